//! The error type of `ccd-taylor`.

use crate::Interval;

/// What can go wrong in enclosure arithmetic.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum TaylorError {
    /// Division by an interval that contains zero.
    #[error("division by the interval {0}, which contains zero")]
    DivisionByZero(Interval),
    /// Square root of an interval lying entirely below zero.
    #[error("square root of the negative interval {0}")]
    NegativeSqrt(Interval),
    /// A time domain that is not finite or reaches beyond `±TaylorModel::MAX_DOMAIN`.
    #[error("invalid time domain {0}: it must lie within [-1e50, 1e50]")]
    InvalidDomain(Interval),
    /// A sub-domain that is not inside the model's domain.
    #[error("sub-domain {sub} is not inside the domain {domain}")]
    NotASubdomain {
        /// The requested sub-domain.
        sub: Interval,
        /// The model's domain.
        domain: Interval,
    },
    /// Motion parameters that do not describe a rigid constant-velocity motion.
    #[error("invalid motion: {0}")]
    InvalidMotion(&'static str),
    /// Two models over different time domains were combined.
    #[error("models over different domains {0} and {1} cannot be combined")]
    DomainMismatch(Interval, Interval),
    /// Interval ends that hold no real between them (reversed, NaN, `lo = +∞` or `hi = −∞`).
    #[error("[{lo}, {hi}] is not an interval of reals")]
    InvalidInterval {
        /// The lower end given.
        lo: f64,
        /// The upper end given.
        hi: f64,
    },
    /// Taylor model coefficients that are not all finite.
    #[error("Taylor model coefficients {0:?} are not all finite")]
    NonFiniteCoefficients([f64; 4]),
    /// A serialized Taylor model whose expansion point or radius does not match its domain.
    #[error("Taylor model over {0}: expansion point or radius does not match the domain")]
    InconsistentModel(Interval),
}
