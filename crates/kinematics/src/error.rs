//! The error type of `ccd-kinematics`.

/// What can be wrong with motion input.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum KinematicsError {
    /// A pose has a NaN or infinite entry.
    #[error("the {which} pose has a non-finite entry")]
    NonFinitePose {
        /// "start" or "end".
        which: &'static str,
    },
    /// A pose's linear part is not a rotation (orthonormal, determinant 1).
    #[error(
        "the {which} pose is not rigid: |RᵀR − I| = {deviation:e} (tolerance 1e-6) or det = {det}"
    )]
    NonRigidPose {
        /// "start" or "end".
        which: &'static str,
        /// Largest entry of `RᵀR − I`.
        deviation: f64,
        /// Determinant of the linear part.
        det: f64,
    },
    /// A time or time interval outside `[0, 1]`.
    #[error("time {0} is outside [0, 1]")]
    TimeOutOfRange(String),
    /// A broken articulated model (cycles, missing parents, several roots, ...).
    #[error("invalid articulated model: {0}")]
    InvalidModel(String),
    /// Wrong number of joint values or link poses.
    #[error("expected {expected} values, got {got}")]
    JointCount {
        /// Expected count.
        expected: usize,
        /// Given count.
        got: usize,
    },
    /// A joint value that is not finite or outside the joint's limits.
    #[error("joint value {value} of link {link:?} is not finite or outside its limits")]
    InvalidJointValue {
        /// The link whose joint got the value.
        link: String,
        /// The value.
        value: f64,
    },
    /// An error from the enclosure arithmetic.
    #[error(transparent)]
    Taylor(#[from] ccd_taylor::TaylorError),
}
