//! Conservative advancement (CA) between rigid polygon soups: the first time of contact of
//! two meshes under constant-velocity rigid motions, with witness features.
//!
//! The algorithm is CA (CATCH, Sec. 3.4, Eq. 4) with the C2A per-node refinement: each
//! iteration runs one best-first traversal of the two RSS hierarchies keyed by a *safe
//! advancement time* `gap_n / μ(n)`: the width of a slab separating the pair along a
//! direction `n` over a bound of the relative speed of its contents along `n`. Any `n` gives
//! a safe key, so node pairs try their parent's direction first and then the direction
//! between the closest points of their RSS rectangles, with the gap taken exactly from the
//! RSS support functions; triangle pairs use their exact distance along their closest
//! direction. The speed bound is `|Δv·n|` plus, per body, `ω` times the extent of the set
//! on `n × u` at the current time, widened by how far the body can turn within the step's
//! horizon (docs/architecture.md, "Rigid motion bound", with absolute values throughout).
//! The step is the minimum over surviving pairs; a pair whose key already reaches the best
//! step is pruned. Iterations start when the bodies' bounding spheres (about the rotation centres)
//! first come within the tolerance.
//!
//! One door takes every pair: [`cast`] two [`Collider`]s along a [`PairMotion`] with
//! [`CastOptions`] (tolerance, cap, mode, window, region, first step, warm direction) into a
//! [`CastOutcome`] (contact and counters). Behind it one conservative-advancement loop
//! ([`driver`], under the contract of `contract.rs`) runs one safe-step oracle per pair of
//! representations. Three plain whole-step rigid cases are also functions, for callers
//! that hold bodies or shapes: [`time_of_contact`] (meshes), [`time_of_contact_convex`]
//! (the fast path for convex bodies: the same advancement with GJK distances between their
//! hulls, warm-started across iterations) and [`time_of_contact_shapes`] (analytic shapes
//! and compounds).
//!
//! Bodies under other motions (links of articulated bodies) take [`cast`] with their
//! [`PairMotion`] (poses plus per-body [`SpeedBound`]s) and a search window; the window,
//! first-step and temporal-coherence queries it dispatches to are in [`details`].
//!
//! Conventions: meshes in their local frames, shared as `Arc<MeshBvh<Rss>>`; motions are
//! [`RigidMotion`](ccd_kinematics::RigidMotion)s over normalized time `t ∈ [0, 1]`, turning
//! by any angle about any rotation centre (`local_center`, the frame origin by default). The tolerance `ε` is an absolute distance: a reported
//! contact has distance `≤ ε` at `toc`, and the objects never touch before `toc`
//! (conservative). Contact points and the normal are in world coordinates at `toc`.
//!
//! Domain (checked per query, typed errors outside it): vertex coordinates and the motions'
//! translations (at `t = 0` and `t = 1`; at every evaluated time for the bounded queries)
//! within [`MAX_COORDINATE`](ccd_distance::MAX_COORDINATE) (`1e100`), tolerance at least
//! [`MIN_TOLERANCE`] (`1e-100`). Within it no contact is missed at any scale:
//! - a query whose coordinate scale (largest vertex coordinate or translation) lies outside
//!   `[2⁻¹⁰⁰, 2¹⁰⁰]` runs on a copy rescaled into that window by a power of two (exact; CA
//!   is scale-invariant in time, the tolerance scales along), so no product of degree up to
//!   four overflows or underflows (at `2²⁵⁶ ≈ 1.2e77` they did: late contacts and misses);
//!   only such queries pay for it (one BVH build per body);
//! - every step subtracts a rounding allowance (`1e-12` of the query's coordinate scale),
//!   and a query that can no longer certify progress (a tolerance below that allowance)
//!   ends with [`Status::Stalled`] instead of running to the iteration cap.
//!
//! `None` means the distance stays above `ε/2` over the whole step; see [`time_of_contact`]
//! for the near-miss contract.
//!
//! # Example
//! ```
//! use std::sync::Arc;
//! use ccd_ca_rigid::{time_of_contact, CaOptions, RigidBody, Status};
//! use ccd_bvh::{BvhOptions, MeshBvh, Rss};
//! use ccd_geometry::{glam::{DAffine3, DVec3}, TriMesh};
//! use ccd_kinematics::RigidMotion;
//!
//! let tetra = TriMesh::new(
//!     vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z],
//!     vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
//! )?;
//! let body = RigidBody::new(Arc::new(MeshBvh::<Rss>::new(tetra, &BvhOptions::default())?));
//! let still = RigidMotion::stationary(DAffine3::IDENTITY)?;
//! // the second tetrahedron slides from x = 3 to x = -1 through the first
//! let moving = RigidMotion::between(
//!     DAffine3::from_translation(DVec3::new(3.0, 0.0, 0.0)),
//!     DAffine3::from_translation(DVec3::new(-1.0, 0.0, 0.0)),
//! )?;
//! let contact = time_of_contact(&body, &still, &body, &moving, &CaOptions::default())?.expect("they collide");
//! assert_eq!(contact.status, Status::Converged);
//! // first touch at x = 1 (the vertex X of the first meets the vertex at the origin of the second): t = 0.5
//! assert!(contact.toc <= 0.5 && contact.toc > 0.49);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod advance;
mod body;
mod bounded;
mod bounded_hull;
mod capsule;
mod cast;
mod collider;
mod contact;
mod contract;
mod convex;
pub mod driver;
mod error;
mod mesh_mesh;
mod motion;
mod node_key;
mod scale;
mod shape;
mod shape_ca;
mod shape_gap;
mod traverse;

pub use body::RigidBody;
pub use cast::{CastOptions, CastOutcome, CastWorkspace, cast};
pub use collider::Collider;
pub use contact::{CaOptions, Contact, Mode, ShapeContact, Stats, Status};
pub use contract::MIN_TOLERANCE;
pub use convex::time_of_contact_convex;
pub use error::CaError;
pub use mesh_mesh::time_of_contact;
pub use motion::{PairMotion, RigidPair, RoundingScale, SpeedBound};
pub use shape::{Compound, Shape};
pub use shape_ca::time_of_contact_shapes;

pub mod details {
    //! The queries [`cast`](crate::cast) dispatches to under bounded motions, for callers
    //! that hold [`RigidBody`](crate::RigidBody)s and run one representation directly (as
    //! parry keeps its per-shape-pair queries in `query::details`): the window queries of
    //! meshes and convex bodies under any [`PairMotion`](crate::PairMotion), their first
    //! safe step, and the one-evaluation separation certificate of two hulls. Each runs the
    //! crate's one driver ([`crate::driver`]); [`cast`](crate::cast) with
    //! [`CastOptions`](crate::CastOptions) (window, region, first step only, warm direction)
    //! answers the same.

    pub use crate::bounded::{
        BoundedScratch, first_step_bounded, first_step_bounded_within, time_of_contact_bounded,
        time_of_contact_bounded_within,
    };
    pub use crate::bounded_hull::{
        convex_apart_along, time_of_contact_convex_bounded,
        time_of_contact_convex_bounded_with_direction,
    };
}
