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
    /// An error from the enclosure arithmetic.
    #[error(transparent)]
    Taylor(#[from] ccd_taylor::TaylorError),
}
