//! `ccd`: continuous collision detection — the first time of contact between moving
//! geometry, with witness features — for games, haptics, motion planning and cloth.
//!
//! This facade re-exports the workspace crates; it holds no logic.
//!
//! # Example
//! ```
//! use ccd::prelude::*;
//!
//! // A link turning 30° about z while sliding along x: its swept box over t ∈ [0, 1].
//! let motion = ConstantVelocity::new(DMat3::IDENTITY, DVec3::ZERO, DVec3::Z, 30f64.to_radians(), DVec3::X * 0.1)?;
//! let world: Transform<TaylorModel> = Transform::from_motion(&motion, Interval::UNIT);
//! let swept = world.aabb_of_box(&Aabb::new(DVec3::ZERO, DVec3::new(1.0, 0.1, 0.1)));
//! assert!(swept.contains_point(motion.pose_at(0.5).transform_point3(DVec3::X)));
//! # Ok::<(), ccd::taylor::TaylorError>(())
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

/// Capsule avatars driven by motion capture: swept volumes with backtracking and exact capsule CA (`ccd-avatar-sv`, Avatar §3–7).
pub use ccd_avatar_sv as avatar_sv;
/// Bounding volumes (AABB, sphere, OBB, RSS, 18-DOP), BVHs, sweep-and-prune and a dynamic BVH (`ccd-bvh`, Lin survey; LA §IV).
pub use ccd_bvh as bvh;
/// Conservative advancement between rigid meshes: time of contact with witnesses (`ccd-ca-rigid`, CATCH §3.4, C2A).
pub use ccd_ca_rigid as ca_rigid;
/// Exact primitive distances with witnesses, convex hulls and GJK (`ccd-distance`, Lin survey: PQP, GJK).
pub use ccd_distance as distance;
/// Meshes, boxes, segments, triangles, witness features and mesh IO (`ccd-geometry`).
pub use ccd_geometry as geometry;
/// Rigid motion between two poses, its enclosures and motion bounds (`ccd-kinematics`, CATCH §3.2, §6; Avatar §4).
pub use ccd_kinematics as kinematics;
/// Local advancement CCD for deforming meshes: inter- and self-collision (`ccd-la-deformable`, LA §III–VI).
pub use ccd_la_deformable as la_deformable;
/// Interval arithmetic, order-3 Taylor models and enclosures of rigid motions (`ccd-taylor`, CATCH §5.1–5.2, Avatar §5).
pub use ccd_taylor as taylor;

pub use ccd_bvh::Error as BvhError;
pub use ccd_ca_rigid::CaError;
pub use ccd_distance::{GjkError, HullError};
pub use ccd_geometry::GeometryError;
pub use ccd_kinematics::KinematicsError;
pub use ccd_la_deformable::LaError;
pub use ccd_taylor::TaylorError;

/// The types most programs need, in one import.
pub mod prelude {
    pub use ccd_bvh::{
        BoundingVolume, Bvh, BvhOptions, MeshBvh, Obb, Rss, SweepAndPrune, Workspace,
    };
    pub use ccd_ca_rigid::{CaOptions, Contact, Mode, RigidBody, Status, time_of_contact};
    pub use ccd_distance::{Closest, ConvexHull, gjk_distance};
    pub use ccd_geometry::glam::{DAffine3, DMat3, DQuat, DVec3};
    pub use ccd_geometry::{Aabb, Feature, GeometryError, Segment, TriMesh, Triangle};
    pub use ccd_taylor::{
        ConstantVelocity, Enclosure, Interval, TaylorError, TaylorModel, Transform,
    };
}
