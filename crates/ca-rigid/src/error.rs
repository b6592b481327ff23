//! The error type of `ccd-ca-rigid`.

/// What can be wrong with a CA query's input.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum CaError {
    /// The tolerance is not a positive finite distance.
    #[error("tolerance {0} must be positive and finite")]
    InvalidTolerance(f64),
    /// The convex fast path needs bodies built with `RigidBody::with_hull`.
    #[error("a body has no convex hull: build it with RigidBody::with_hull")]
    MissingHull,
    /// GJK rejected its input (a non-rigid or non-finite pose).
    #[error("GJK failed: {0}")]
    Gjk(String),
    /// A motion turning about a centre away from the body's frame origin
    /// (`RigidMotion::local_center` non-zero, from `RigidMotion::from_velocities`): the
    /// motion bounds of this crate assume rotation about the frame origin. Build the body
    /// with its frame origin at the rotation centre instead.
    #[error(
        "a motion rotates about a centre away from the body's frame origin, which rigid CA does not support"
    )]
    OffsetRotationCentre,
    /// `max_iterations` is zero.
    #[error("max_iterations must be at least 1")]
    NoIterations,
    /// A search window that is not inside `[0, 1]`.
    #[error("search window [{start}, {end}] is not inside [0, 1]")]
    InvalidWindow {
        /// Its start.
        start: f64,
        /// Its end.
        end: f64,
    },
}
