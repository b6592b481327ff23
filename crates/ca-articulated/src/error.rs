//! The error type of `ccd-ca-articulated`.

use ccd_kinematics::KinematicsError;

/// What can be wrong with an articulated body, a scene or a query.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ArticulatedError {
    /// Per-link geometry given for a different number of links than the model has.
    #[error("the model has {expected} links but geometry was given for {got}")]
    LinkCount {
        /// Links of the model.
        expected: usize,
        /// Geometry entries given.
        got: usize,
    },
    /// A link pair names a link the model does not have.
    #[error("link {link} does not exist (the model has {count} links)")]
    UnknownLink {
        /// The index given.
        link: u32,
        /// Links of the model.
        count: usize,
    },
    /// A query gives a different number of steps than the scene has articulated bodies.
    #[error("the scene has {expected} articulated bodies but the query gives {got} steps")]
    StepCount {
        /// Articulated bodies in the scene.
        expected: usize,
        /// Steps given.
        got: usize,
    },
    /// A joint vector of the wrong length for body `body`.
    #[error("body {body}: {which} joint vector has {got} values, the model takes {expected}")]
    JointCount {
        /// The articulated body (index in the scene).
        body: usize,
        /// `"start"` or `"end"`.
        which: &'static str,
        /// The model's degrees of freedom.
        expected: usize,
        /// Values given.
        got: usize,
    },
    /// A joint value that is NaN, infinite or outside its joint's limits.
    #[error(
        "body {body}: {which} value {value} of the joint of link {link:?} is not finite or outside its limits"
    )]
    InvalidJointValue {
        /// The articulated body.
        body: usize,
        /// `"start"` or `"end"`.
        which: &'static str,
        /// The link whose joint got the value.
        link: String,
        /// The value.
        value: f64,
    },
    /// Per-link poses that do not fit the model or are not rigid, or another error of the
    /// kinematics layer, for body `body`.
    #[error("body {body}: {source}")]
    Motion {
        /// The articulated body.
        body: usize,
        /// The kinematics error.
        source: KinematicsError,
    },
    /// Options out of range (tolerance, iteration cap).
    #[error("invalid query options: {0}")]
    InvalidOptions(String),
    /// A batch query ([`ArticulatedScene::check_edges`](crate::ArticulatedScene::check_edges)) on a scene whose
    /// number of articulated bodies is not one.
    #[error("check_edges needs a scene with exactly one articulated body, this one has {0}")]
    NotOneBody(usize),
    /// A link mesh whose hierarchy cannot be built (empty or non-finite).
    #[error("link {link:?}: {reason}")]
    LinkGeometry {
        /// The link's name.
        link: String,
        /// What went wrong.
        reason: String,
    },
    /// A part of a pair that the scene does not hold with geometry (a link without a
    /// mesh, a body, rigid body or environment that is not there). The query builds its
    /// pairs from the scene, so this signals an inconsistency, reported instead of a panic.
    #[error("{0:?} is not a part of the scene with geometry")]
    UnknownPart(crate::Part),
    /// An adaptive query names an active joint the body does not have (joints are named
    /// by the link they move; a model has one per link).
    #[error("body {body}: active joint {joint} does not exist (the model has {count} joints)")]
    UnknownJoint {
        /// The articulated body.
        body: usize,
        /// The joint id given.
        joint: u32,
        /// Joints (links) of the model.
        count: usize,
    },
    /// An adaptive query declares a joint inactive although its value changes over the step.
    #[error(
        "body {body}: the joint of link {link:?} is declared inactive but moves from {from} to {to}"
    )]
    InactiveJointMoved {
        /// The articulated body.
        body: usize,
        /// The link whose joint moves.
        link: String,
        /// Its (first differing) start value.
        from: f64,
        /// Its end value.
        to: f64,
    },
    /// A part of the scene has a vertex coordinate beyond the per-link CA's domain
    /// ([`ccd_distance::MAX_COORDINATE`], `1e100` in magnitude): refused by every query of
    /// the scene, whether or not the part's pairs reach the narrow phase.
    #[error(
        "{part:?}: vertex coordinate {value:e} beyond the supported domain (magnitude at most 1e100)"
    )]
    OutOfDomain {
        /// The part (the first one found: articulated bodies, then rigid bodies, then the
        /// environment).
        part: crate::Part,
        /// Its largest vertex coordinate magnitude.
        value: f64,
    },
    /// An error of the conservative-advancement layer.
    #[error(transparent)]
    Ca(#[from] ccd_ca_rigid::CaError),
    /// An error loading a URDF or SRDF (feature `urdf`).
    #[error(transparent)]
    Kinematics(#[from] KinematicsError),
}
