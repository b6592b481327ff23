//! The error type of `ccd-ca-rigid`.

/// What can be wrong with a CA query's input.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum CaError {
    /// The tolerance is not a positive finite distance.
    #[error("tolerance {0} must be positive and finite")]
    InvalidTolerance(f64),
    /// `max_iterations` is zero.
    #[error("max_iterations must be at least 1")]
    NoIterations,
}
