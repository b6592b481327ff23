//! Bounding volumes, bounding-volume hierarchies and broad-phase culling for the `ccd`
//! workspace.
//!
//! - Bounding volumes behind one trait, [`BoundingVolume`]: [`Aabb`](ccd_geometry::Aabb) (from
//!   `ccd-geometry`), [`Sphere`], [`Obb`] (covariance fit, 15-axis separating-axis test;
//!   OBBTree), [`Rss`] (rectangle swept sphere with an exact RSS–RSS distance lower bound;
//!   PQP) and [`Kdop18`]. Lin survey slides: "OBBTree", "SSV", "Building an OBBTree".
//! - [`Bvh<B>`](Bvh): flat node array, top-down build with binned SAH or median split
//!   ([`SplitRule`]), bottom-up build for small sets, [`Bvh::refit`] for deforming geometry,
//!   and traversals against a query ([`Bvh::traverse`]), another BVH under a relative pose
//!   ([`Bvh::traverse_pair`], best-first [`Bvh::traverse_pair_best_first`]) and itself
//!   ([`Bvh::traverse_self`]), all with a reusable [`Workspace`].
//! - [`MeshBvh<B>`](MeshBvh): a `TriMesh` and its BVH, shared via `Arc`.
//! - [`SweepAndPrune`]: N moving boxes, sorted endpoints on three axes kept sorted by
//!   insertion sort (coherence makes an update O(n + swaps); Lin slides, "Sweep & Prune";
//!   I-COLLIDE), overlapping pairs maintained incrementally.
//! - [`DynamicBvh`]: a BVH over a few (≤ 100) moving boxes rebuilt bottom-up each step, as
//!   CATCH (Sec. 4) does for the links of an articulated body.
//!
//! Conventions: f64; every volume lives in its body's local frame; pair queries take
//! `pos12`, the pose of body 2's frame in body 1's frame (a rigid `DAffine3`), never world
//! poses. Every volume test is conservative: it may report an overlap that is not there, never
//! miss one, and distance bounds never exceed true distances.
//!
//! # Example
//! ```
//! use std::ops::ControlFlow;
//! use ccd_bvh::{BoundingVolume, BvhOptions, MeshBvh, Rss, Workspace};
//! use ccd_bvh::geometry::TriMesh;
//! use ccd_bvh::glam::{DAffine3, DVec3};
//!
//! let mesh = TriMesh::new(
//!     vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z],
//!     vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
//! )?;
//! let body = MeshBvh::<Rss>::new(mesh, &BvhOptions::default().with_leaf_size(1))?;
//! let pos12 = DAffine3::from_translation(DVec3::new(0.5, 0.0, 0.0));
//! let mut candidates = 0;
//! body.bvh().traverse_pair(body.bvh(), &mut Workspace::new(), |a, b| a.overlaps(b, &pos12), |_, _| {
//!     candidates += 1;
//!     ControlFlow::Continue(())
//! });
//! assert!(candidates > 0);
//! # Ok::<(), ccd_bvh::BvhError>(())
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod aabb;
mod bvh;
mod closest;
mod dynamic;
mod error;
mod fit;
mod kdop;
mod mesh_bvh;
mod obb;
mod primitives;
mod rss;
pub mod sap;
mod sphere;
mod traverse;
mod volume;

pub use bvh::{Bvh, BvhOptions, Node};
pub use ccd_geometry as geometry;
pub use dynamic::DynamicBvh;
pub use error::BvhError;
pub use glam;
pub use kdop::{KDOP18_AXES, Kdop18};
pub use mesh_bvh::MeshBvh;
pub use obb::Obb;
pub use primitives::{PrimitiveSet, TriangleSoup};
pub use rss::Rss;
pub use sap::{SapStats, SweepAndPrune};
pub use sphere::Sphere;
pub use traverse::{TraversalStats, Workspace};
pub use volume::{BoundingVolume, SplitRule};
