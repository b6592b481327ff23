//! The error type of `ccd-world`.

use ccd_ca_rigid::CaError;
use ccd_kinematics::KinematicsError;

use crate::BodyHandle;

/// What can be wrong with a world's input.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum WorldError {
    /// The handle names no body of this world (never inserted here, or already removed).
    #[error("unknown body {0:?} (never inserted, or already removed)")]
    UnknownBody(BodyHandle),
    /// A pose or motion was rejected (NaN or infinite values, a non-rigid matrix, a
    /// translation or angle beyond the kinematics domain).
    #[error("invalid pose or motion: {0}")]
    InvalidMotion(#[from] KinematicsError),
    /// A motion rotating about a centre away from the body's frame origin (the rigid CA
    /// bounds assume rotation about the frame origin: put the origin at the centre).
    #[error("body {0:?}: the motion rotates about a centre away from the body's frame origin")]
    OffsetRotationCentre(BodyHandle),
    /// A static body was given a motion.
    #[error("body {0:?} is static: it has no motion to set")]
    StaticBody(BodyHandle),
    /// An option out of range: which.
    #[error("invalid option: {0}")]
    InvalidOption(&'static str),
    /// More bodies than a `u32` slot index can address (2^31 - 1).
    #[error("too many bodies")]
    TooManyBodies,
    /// The narrow phase rejected a pair (domain or option errors of `ccd-ca-rigid`).
    #[error("pair ({a:?}, {b:?}): {source}")]
    Ca {
        /// First body of the pair.
        a: BodyHandle,
        /// Second body of the pair.
        b: BodyHandle,
        /// The per-pair error.
        source: CaError,
    },
}
