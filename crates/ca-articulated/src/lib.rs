//! CATCH: continuous collision detection for articulated bodies — Taylor-model spatial
//! culling, per-link conservative advancement (CA), temporal culling and self-collision
//! (Zhang, Redon, Lee, Kim: "Continuous Collision Detection for Articulated Models using
//! Taylor Models and Temporal Culling", Sec. 4–7).
//!
//! - [`ArticulatedBody`]: an [`ArticulatedModel`](ccd_kinematics::ArticulatedModel) with a
//!   mesh hierarchy (and convex hull) per link and a self-collision filter (adjacent links,
//!   rigidly attached links, SRDF `disable_collisions` pairs). Built from per-link meshes or,
//!   with feature `urdf`, from a URDF + SRDF in one call.
//! - [`ArticulatedScene`]: articulated bodies, rigid bodies with [`RigidMotion`](ccd_kinematics::RigidMotion)s,
//!   and one static environment mesh. [`ArticulatedScene::query`] moves every articulated body from
//!   `q0` to `q1` ([`BodyStep`]) and returns the first contact ([`Mode::Toc`]), any certain
//!   contact ([`Mode::Boolean`], for planner edges) or every colliding pair
//!   ([`Mode::All`]), with the pair named by [`Part`]s and the counters of CATCH
//!   Table 2 ([`ArticulatedStats`]).
//! - [`AdaptiveScene`]: the same query for simulators that move only some joints per step
//!   (adaptive dynamics; Kim, Redon, Kim, "Continuous Collision Detection for Adaptive
//!   Simulation of Articulated Bodies", Sec. 2–4): the caller names the active joints
//!   ([`AdaptiveStep`]); each body's assembly tree is updated only along their paths and its
//!   sub-assembly boxes are culled top-down, with the same answers as [`ArticulatedScene::query`].
//! - [`PreparedEnvironment`]: everything a scene derives from an environment mesh (node
//!   boxes, welded pieces with their hulls, the domain check), built once and shared by any
//!   number of scenes ([`ArticulatedScene::set_prepared_environment`], O(parts)).
//! - [`planning::PlanningScene`]: a motion planner's scene — robots from URDF + SRDF, named
//!   static objects (meshes, boxes, spheres, cylinders with poses), objects attached to
//!   links, allowed-collision overrides by link name — with `check_edge`, `check_path`,
//!   `check_edges`, `in_collision` and `clearance`, queried from several threads.
//!
//! # Pipeline
//! 1. **Spatial culling** (Sec. 5): the world transforms of all links over `[0, 1]` as
//!    Taylor models (or intervals, [`EnclosureKind`]) in one pass down each tree
//!    ([`ArticulatedMotion::enclosures`](ccd_kinematics::ArticulatedMotion::enclosures)); the
//!    bounded corners of each link's OBB give its swept box (with Taylor models a coarse box
//!    of the OBB's centre first, [`ccd_taylor::Transform::aabb_of_centred`], and the corners'
//!    box before environment tests, where it pays); boxes are tested against each
//!    other (self pairs after the filter, other bodies, rigid bodies) and against the
//!    environment's hierarchy. Surviving pairs are the potentially colliding links (PCLs).
//!    A link turning about a coordinate axis of its frame (most URDF joints) is composed
//!    onto its parent with a plane rotation of two columns
//!    ([`ccd_taylor::Transform::compose_motion`]: 12 model products instead of 27, none for
//!    the parent's quarter-turn frame; the same boxes, fewer products).
//! 2. **Temporal culling** (Sec. 7, Alg. 1): a lower bound of each PCL's time of contact by
//!    CA on the links' convex hulls (GJK, after a first stage on bounding capsules where the
//!    hulls are elongated); for a pair with the environment, the start of the
//!    first of 2 equal time windows whose Taylor swept box meets an environment triangle
//!    (none: the pair is free); the first mesh CA step for other pairs without hulls. Pairs
//!    are processed in increasing order of it, each abandoned once its CA time passes the
//!    running minimum.
//! 3. **CA per pair** (Sec. 3.4, 6): C2A-style per-node advancement over both links' RSS
//!    hierarchies ([`ccd_ca_rigid::details::time_of_contact_bounded`]) until the distance is at most
//!    `ε`, with a speed bound per moving link over a short horizon (a few CA steps):
//!    the link's angular velocity and origin velocity in the middle of the horizon, plus how
//!    far the chain's rotations let them drift within it (the rotations of the recursive
//!    Eq. 7–10 bound, applied to the drift only; links turning about a point away from their
//!    frame origin keep the Eq. 10 bound).
//!    A link–environment search first goes through a hull screen (not in CATCH): the
//!    environment is split once into its connected pieces, each with its convex hull, and
//!    hull CA of the link against the pieces its swept box meets proves the window free,
//!    or moves the mesh CA's start to the earliest hull contact and cuts its region to the
//!    pieces not proven free (the `env_pieces` module).
//!
//! # Conventions
//! Time is normalized to `t ∈ [0, 1]` per step. Each joint moves with constant velocity in
//! joint space from `q0` to `q1` (CATCH Sec. 3.2, [`ArticulatedMotion::from_joints`](ccd_kinematics::ArticulatedMotion::from_joints):
//! a revolute joint turns by `q1 − q0`, any angle); per-link poses ([`BodyStep::Poses`])
//! move each link relative to its parent with constant velocity, the short way. The world
//! motion is the product down the chain (Eq. 1). Meshes are in link frames,
//! contacts in world coordinates at `toc`. The tolerance `ε` is an absolute distance
//! (default `1e-3`): a contact is reported when a pair comes within `ε`, no pair touches
//! before the reported `toc` (conservative), and an iteration cap gives
//! [`Status::OutOfIterations`](ccd_ca_rigid::Status) with a lower bound. Bad input (joint
//! vectors of the wrong length, NaN or out-of-limit joints, non-rigid poses) is an
//! [`ArticulatedError`].
//!
//! # Example
//! ```
//! use ccd_ca_articulated::{ArticulatedBody, BodyStep, Part, QueryOptions, ArticulatedScene};
//! use ccd_kinematics::{ArticulatedModel, Joint, LinkId, LinkSpec};
//! use ccd_geometry::{glam::{DAffine3, DVec3}, TriMesh};
//!
//! // a three-link planar arm folding onto itself: link 2 swings back into link 0
//! let hinge = Joint::Revolute { axis: DVec3::Z, limits: None };
//! let link = |name: &str, parent: Option<&str>| LinkSpec {
//!     name: name.into(),
//!     parent: parent.map(Into::into),
//!     joint: hinge,
//!     offset: DAffine3::from_translation(if parent.is_some() { DVec3::X } else { DVec3::ZERO }),
//! };
//! let model = ArticulatedModel::new(vec![link("l0", None), link("l1", Some("l0")), link("l2", Some("l1"))])?;
//! let rod = TriMesh::new(
//!     vec![DVec3::new(0.1, -0.05, -0.05), DVec3::new(0.9, -0.05, -0.05), DVec3::new(0.5, 0.05, -0.05), DVec3::new(0.5, 0.0, 0.05)],
//!     vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
//! )?;
//! let arm = ArticulatedBody::from_meshes(model, vec![Some(rod.clone()), Some(rod.clone()), Some(rod)])?;
//! let mut scene = ArticulatedScene::new();
//! scene.add_articulated(arm);
//! let q0 = [0.0, 0.0, 0.0];
//! let q1 = [0.0, 2.6, 2.6];
//! let result = scene.query(&[BodyStep::Joints { q0: &q0, q1: &q1 }], &QueryOptions::default())?;
//! let hit = result.first().expect("the arm folds into itself");
//! assert_eq!(hit.a, Part::Link { body: 0, link: LinkId(0) });
//! assert_eq!(hit.b, Part::Link { body: 0, link: LinkId(2) });
//! assert!(hit.contact.distance <= 1e-3);
//! // l0–l2 is the only self pair; link 2 turns by 5.2 rad, more than the default
//! // `segment_turn` (4 rad), so the step ran as 2 sub-steps and the counters add up
//! assert_eq!(result.stats.pairs_before, 2);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod adaptive;
mod body;
mod bound;
mod env_pieces;
mod error;
mod midrad;
pub mod planning;
mod scene;
#[cfg(feature = "urdf")]
mod urdf;

pub use adaptive::{AdaptiveScene, AdaptiveStep};
pub use body::{ArticulatedBody, LinkShape};
pub use env_pieces::PreparedEnvironment;
pub use error::ArticulatedError;
pub use scene::{
    ArticulatedScene, ArticulatedStats, ArticulatedWorkspace, BodyStep, DEFAULT_SEGMENT_TURN,
    EnclosureKind, MAX_SEGMENTS, Mode, Part, PartPairContact, QueryOptions, QueryResult,
};
