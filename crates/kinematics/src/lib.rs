//! Motion between two poses for the `ccd` workspace.
//!
//! - [`RigidMotion`]: the constant-velocity ("arbitrary in-between") motion of a rigid frame
//!   from a start pose to an end pose over `t ∈ [0, 1]` — constant translational velocity
//!   of the frame origin and constant angular velocity about a fixed unit axis (Avatar,
//!   Sec. 4, Eq. 6–10; CATCH, Sec. 3.2) — with exact poses and velocities, Taylor or interval
//!   enclosures over any sub-interval, and the projected motion bound that conservative
//!   advancement divides by (CATCH, Eq. 4 and 6).
//!
//! - [`ArticulatedModel`]: links in a tree with fixed, revolute, prismatic, spherical or
//!   floating joints and constant offsets; [`Pose`] from joint values or given directly.
//! - [`ArticulatedMotion`]: per-link relative motions between two poses (CATCH, Eq. 2),
//!   world transforms (Eq. 1) and their enclosures in one pass down the tree, and the
//!   recursive motion bound (Eq. 7–10).
//! - [`AssemblyTree`]: a balanced binary assembly of the link tree (adaptive-dynamics CCD
//!   paper, Sec. 2–3) that updates only the active joints' paths and computes world
//!   transforms of requested bodies top-down; [`AssemblyBounds`] does the same for their
//!   Taylor/interval enclosures over a time interval (Sec. 2.3).
//!
//! Conventions: poses are rigid `DAffine3` (local → world); time is normalized to `[0, 1]`;
//! the rotation centre is the frame origin.
//!
//! # Example
//! ```
//! use ccd_kinematics::RigidMotion;
//! use ccd_kinematics::glam::{DAffine3, DQuat, DVec3};
//!
//! let start = DAffine3::IDENTITY;
//! let end = DAffine3::from_rotation_translation(DQuat::from_rotation_z(1.0), DVec3::new(2.0, 0.0, 0.0));
//! let m = RigidMotion::between(start, end)?;
//! assert!(m.pose_at(1.0).abs_diff_eq(end, 1e-12));
//! // every point within radius 1 of the origin moves at most this far along +y:
//! let mu = m.motion_bound(DVec3::Y, 1.0, 0.0);
//! assert!(mu >= (m.point_at(DVec3::X, 1.0) - m.point_at(DVec3::X, 0.0)).y.abs());
//! # Ok::<(), ccd_kinematics::KinematicsError>(())
//! ```
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

mod articulated;
mod assembly;
mod error;
#[cfg(feature = "mocap")]
#[cfg_attr(docsrs, doc(cfg(feature = "mocap")))]
pub mod mocap;
mod model;
mod rigid;
#[cfg(feature = "urdf")]
#[cfg_attr(docsrs, doc(cfg(feature = "urdf")))]
pub mod urdf;

pub use articulated::ArticulatedMotion;
pub use assembly::{AssemblyBounds, AssemblyNode, AssemblyTree, Composition, NodeId};
pub use error::{KinematicsError, UriError};
pub use glam;
pub use model::{ArticulatedModel, Joint, Limits, Link, LinkId, LinkSpec, Pose};
pub use rigid::RigidMotion;
