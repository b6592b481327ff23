//! Continuous collision detection for worlds of rigid bodies: N bodies moving over a step
//! `t ∈ [0, 1]`, with a persistent broad phase, TOC scheduling across steps and per-pair
//! conservative advancement.
//!
//! - **Broad phase** (Lin survey slides, "Sweep & Prune"): each body's swept box over the
//!   step (its world box at `t = 0` translated along the step, widened by how far a turn of
//!   `θ` can carry a point of radius `r` — `min(θ, 2) r` — and intersected with the box of
//!   the segment its centre sweeps widened by `r`), all widened by `ε/2`. Space is cut into
//!   a uniform grid of cells (16 median box sizes on a side); per cell, the endpoints of the
//!   boxes it meets stay sorted on x, y and z between steps, and an update re-sorts them by
//!   insertion sort, whose swaps ([`StepStats::swaps`]) are few when motion is coherent and
//!   only reorder boxes of the same region.
//! - **Scheduling** (slides, "Scheduling Scheme", `a_max`): a pair found apart carries the
//!   first step at which it could come within `ε`, from a distance lower bound (spheres,
//!   boxes, GJK between hulls, the shape-pair kernels) and the declared per-body speed growth; a heap orders those
//!   steps. A body that moves faster than declared, or jumps, re-queues its pairs.
//! - **Bodies** ([`Collider`]): triangle meshes, convex bodies and the analytic shapes of
//!   `ccd-ca-rigid` (`Shape`: balls, capsules, cuboids, cylinders, hulls, compounds).
//! - **Narrow phase**: the per-pair CA of `ccd-ca-rigid` ([`ccd_ca_rigid::cast`] with a [`RigidPair`](ccd_ca_rigid::RigidPair)),
//!   in order of TOC lower bounds with a running minimum for the world's earliest contact
//!   (CATCH's temporal culling), every contact, or a Boolean answer; `parallel` feature:
//!   pairs on all cores.
//!
//! Conventions: f64 glam types, geometry in local frames whose origin is the rotation
//! centre, motions per step over normalized time, `ε` an absolute distance (the world's
//! [`CaOptions`](ccd_ca_rigid::CaOptions)). The answers equal the brute force — every
//! pair with a dynamic body queried by CA — on every step (property-tested).
//!
//! # Example
//! ```
//! use std::sync::Arc;
//! use ccd_world::{Collider, Mode, StepOptions, World};
//! use ccd_ca_rigid::{CaOptions, RigidBody};
//! use ccd_bvh::{BvhOptions, MeshBvh, Rss};
//! use ccd_geometry::{glam::{DAffine3, DVec3}, TriMesh};
//! use ccd_kinematics::RigidMotion;
//!
//! let tetra = TriMesh::new(vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z], vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])?;
//! let shape = Collider::convex(RigidBody::with_hull(Arc::new(MeshBvh::<Rss>::new(tetra, &BvhOptions::default())?))?)?;
//! let mut world = World::new(CaOptions::default())?;
//! for i in 0..10 {
//!     let start = DAffine3::from_translation(DVec3::new(3.0 * f64::from(i), 0.0, 5.0));
//!     let h = world.insert(shape.clone(), RigidMotion::stationary(start)?)?;
//!     world.set_velocities(h, DVec3::new(0.0, 0.0, -1.0), DVec3::ZERO)?;
//! }
//! world.insert_static(shape, DAffine3::from_translation(DVec3::new(0.0, 0.0, -1.0)))?;
//! let report = world.step(&StepOptions::default().with_mode(Mode::All))?;
//! assert!(report.contacts.is_empty());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

mod error;
mod grid;
mod schedule;
#[cfg(test)]
mod test_ops;
mod world;

pub use ccd_ca_rigid::Collider;
pub use error::WorldError;
pub use world::{
    BodyHandle, BodyPairContact, BroadPhase, Mode, StepOptions, StepReport, StepStats, World,
};
