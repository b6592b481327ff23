//! The error type of `ccd-ca-rigid`.

use ccd_distance::GjkError;

/// What can be wrong with a CA query's input.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum CaError {
    /// The tolerance is not finite or below [`MIN_TOLERANCE`](crate::MIN_TOLERANCE)
    /// (`1e-100`).
    #[error("tolerance {0} must be finite and at least 1e-100")]
    InvalidTolerance(f64),
    /// The convex fast path needs bodies built with `RigidBody::with_hull`.
    #[error("a body has no convex hull: build it with RigidBody::with_hull")]
    MissingHull,
    /// GJK rejected its input (a non-rigid or non-finite pose).
    #[error("GJK failed: {0}")]
    Gjk(#[from] GjkError),
    /// A [`Compound`](crate::Compound) without parts, or with an offset that is not a
    /// finite rigid transform within the domain.
    #[error("compound part {part}: {reason}")]
    InvalidCompound {
        /// Index of the offending part (0 for an empty compound).
        part: usize,
        /// What is wrong.
        reason: &'static str,
    },
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
    /// A body's mesh or its motion reaches beyond the domain of the queries: a vertex
    /// coordinate, or a translation of the motion at `t = 0` or `t = 1`, exceeds
    /// [`MAX_COORDINATE`](ccd_distance::MAX_COORDINATE) (`1e100`) in magnitude.
    #[error("body {body}: {what} {value:e} is beyond the domain |x| <= 1e100")]
    OutOfDomain {
        /// `0` for the first body of the query, `1` for the second.
        body: u8,
        /// `"vertex coordinate"` or `"translation"`.
        what: &'static str,
        /// The offending magnitude.
        value: f64,
    },
    /// The copy of a query rescaled into the safe numeric window (see the crate docs,
    /// "Domain") could not be built: a body's scaled mesh, tree or hull, or a scaled motion,
    /// was rejected (not expected for input inside the domain; reported rather than run
    /// unscaled).
    #[error("the rescaled copy of the query could not be built: {0}")]
    Rescaling(String),
    /// A shape the queries cannot take ([`Collider`](crate::Collider)'s constructors): what
    /// is wrong with it.
    #[error("bad shape: {0}")]
    InvalidCollider(&'static str),
    /// A pair and motion [`cast`](crate::cast) has no query for: analytic shapes and
    /// compounds move only under constant-velocity rigid motions (a
    /// [`RigidPair`](crate::RigidPair)), and search windows, regions and first steps apply
    /// to meshes and convex bodies.
    #[error("unsupported cast: {0}")]
    Unsupported(&'static str),
    /// The region of `time_of_contact_bounded_within` has a NaN coordinate.
    #[error("the region has a NaN coordinate")]
    InvalidRegion,
}
