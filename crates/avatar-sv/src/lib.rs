//! Continuous collision detection for avatars made of line swept spheres (capsules) on an
//! articulated link tree, driven by motion capture, against a static triangle environment
//! (Redon, Kim, Lin, Manocha, Templeman, "Interactive and continuous collision detection for
//! avatars in virtual environments", IEEE VR 2004; "Avatar" below), on the CPU.
//!
//! - [`Avatar`], [`LinkCapsule`]: capsules on the links of an
//!   [`ArticulatedModel`](ccd_kinematics::ArticulatedModel) (Sec. 3), by hand or from a BVH
//!   clip ([`Avatar::from_mocap`], radii from a [`RadiusTable`]).
//! - [`Environment`]: the static world mesh and its AABB tree.
//! - [`step`] / [`AvatarStream`]: one CCD step per pair of consecutive poses; each link
//!   moves with constant velocities relative to its parent (Sec. 4, Eq. 6–11). Two answers:
//!   - the paper's swept-volume method ([`SvOutcome`]): interval swept AABBs (Sec. 5),
//!     culling with a dynamic AABB tree, swept volumes tessellated in time groups with a
//!     proven error bound ([`tessellate`], [`TimeGroup`]; Sec. 6), the earliest colliding
//!     group and backtracking to `t_c` with a collision-free path on `[0, t_c]` (Sec. 7.2);
//!   - the exact method ([`ExactOutcome`]): the triangles culled in time with the same
//!     proven swept volumes, then conservative advancement of each capsule with the
//!     articulated motion bound, the TOC within `ε` with witness points; a step whose first
//!     pose already touches is flagged ([`ExactOutcome::starts_in_contact`]).
//! - [`AvatarStepStats`]: the rows of the paper's Table 1 in µs.
//!
//! Both answers are conservative: `t_c` and `toc` are never after the first contact, and a
//! step reported collision-free has none. Conventions: world coordinates, time normalised to
//! `[0, 1]` per step, lengths in the units of the input (metres for the CMU clips).
//!
//! # Example
//! ```
//! use ccd_avatar_sv::{Avatar, LinkCapsule, Environment, AvatarStepOptions, step};
//! use ccd_geometry::TriMesh;
//! use ccd_kinematics::{ArticulatedModel, Joint, LinkId, LinkSpec, Pose};
//! use ccd_kinematics::glam::{DAffine3, DQuat, DVec3};
//!
//! // a one-link arm swinging about z through a thin pole at x = 0.8
//! let model = ArticulatedModel::new(vec![LinkSpec {
//!     name: "arm".into(), parent: None, joint: Joint::Floating, offset: DAffine3::IDENTITY,
//! }])?;
//! let avatar = Avatar::new(model, vec![LinkCapsule::along_x(LinkId(0), 0.0, 1.0, 0.05)])?;
//! let pole = TriMesh::new(
//!     vec![DVec3::new(0.8, 0.0, -1.0), DVec3::new(0.8, 0.0, 1.0), DVec3::new(0.8, 0.001, 0.0)],
//!     vec![[0, 1, 2]],
//! )?;
//! let env = Environment::new(pole)?;
//! let p0 = Pose { relative: vec![DAffine3::from_quat(DQuat::from_rotation_z(-1.0))] };
//! let p1 = Pose { relative: vec![DAffine3::from_quat(DQuat::from_rotation_z(1.0))] };
//! let report = step(&avatar, &env, &p0, &p1, &AvatarStepOptions::default())?;
//! let toc = report.exact.unwrap().contact.unwrap().toc;
//! let sv = report.swept.unwrap();
//! assert!(sv.collision.is_some() && sv.t_c <= toc + 1e-6);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod avatar;
mod environment;
mod error;
pub mod exact;
mod step;
pub mod swept;

pub use avatar::{Avatar, LinkCapsule, RadiusTable};
pub use ccd_geometry::Status;
pub use environment::Environment;
pub use error::AvatarError;
pub use exact::{ExactContact, ExactOptions, ExactStats};
pub use step::{
    AvatarStepOptions, AvatarStepReport, AvatarStepStats, AvatarStream, ExactOutcome, Methods,
    SvCollision, SvOutcome, step,
};
pub use swept::{SvOptions, TimeGroup, tessellate};

/// Largest coordinate magnitude (world units) accepted for the environment and for the
/// capsules' swept boxes; beyond it a step is [`AvatarError::OutOfRange`].
pub const MAX_COORDINATE: f64 = 1e9;

/// The largest coordinate magnitude of a box, NaN-propagating (NaN counts as out of range).
pub(crate) fn magnitude(b: &ccd_geometry::Aabb) -> f64 {
    let m = b.min.abs().max(b.max.abs());
    if m.is_nan() {
        f64::NAN
    } else {
        m.max_element()
    }
}
