//! The error type of `ccd-avatar-sv`.

use ccd_kinematics::KinematicsError;

/// What can be wrong with avatar, environment, pose or option input.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AvatarError {
    /// A capsule radius that is zero, negative or not finite.
    #[error("capsule {index} has radius {radius}: radii must be finite and positive")]
    BadRadius {
        /// Index of the capsule.
        index: usize,
        /// The radius.
        radius: f64,
    },
    /// A capsule endpoint that is not finite.
    #[error("capsule {index} has a non-finite endpoint")]
    NonFiniteCapsule {
        /// Index of the capsule.
        index: usize,
    },
    /// A capsule on a link the model does not have.
    #[error("capsule {index} is on link {link}, but the model has {links} links")]
    UnknownLink {
        /// Index of the capsule.
        index: usize,
        /// The link index.
        link: u32,
        /// Links in the model.
        links: usize,
    },
    /// An avatar without capsules.
    #[error("the avatar has no capsules")]
    NoCapsules,
    /// A radius table entry that is zero, negative or not finite.
    #[error("radius table entry {joint:?} = {radius}: radii must be finite and positive")]
    BadRadiusTable {
        /// The joint name (or `"default"`).
        joint: String,
        /// The radius.
        radius: f64,
    },
    /// A pose that does not fit the avatar's model, is not rigid or has NaN/infinite entries.
    #[error("invalid pose: {0}")]
    InvalidPose(KinematicsError),
    /// Coordinates beyond [`crate::MAX_COORDINATE`] (the distance kernels and bounds are
    /// proven for bounded input only).
    #[error("{what} reaches coordinate magnitude {magnitude:e}, beyond the supported {limit:e}")]
    OutOfRange {
        /// What is too large ("the environment mesh", "capsule 3's swept box").
        what: String,
        /// The largest magnitude found (may be infinite or NaN).
        magnitude: f64,
        /// The limit.
        limit: f64,
    },
    /// An option out of its range.
    #[error("invalid option: {0}")]
    InvalidOption(String),
    /// An environment mesh that cannot be turned into a BVH (no triangles, invalid mesh).
    #[error(transparent)]
    Bvh(#[from] ccd_bvh::BvhError),
    /// An error from the kinematics (model construction, motion between poses).
    #[error(transparent)]
    Kinematics(#[from] KinematicsError),
}
