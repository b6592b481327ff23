//! [`PlanningError`]: what can be wrong with a planning scene's input.

use ccd_distance::MeshDistanceError;

use crate::ArticulatedError;

/// What can be wrong with a planning scene's input. Argument names are those of the Rust
/// API (`q0`, `q1`, `q`, `waypoints`); the Python bindings name theirs.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum PlanningError {
    /// A name that is no link, attached object or environment object of the scene (or not
    /// the kind the call needs).
    #[error("{what} {name:?} is not {expected} of the planning scene")]
    UnknownName {
        /// The argument (`"link"`, `"a"`, ...).
        what: &'static str,
        /// The name given.
        name: String,
        /// What it should have been.
        expected: &'static str,
    },
    /// A link name that several robots have (name it `robot/link`).
    #[error("link {name:?} belongs to several robots ({robots:?}): write robot/link")]
    AmbiguousName {
        /// The name given.
        name: String,
        /// The robots with such a link.
        robots: Vec<String>,
    },
    /// A robot, object or attached object whose name is already taken.
    #[error("the name {0:?} is already taken in the planning scene")]
    DuplicateName(String),
    /// An allowed-collision override between links of two different robots (every pair of
    /// different robots is always tested).
    #[error(
        "links {a:?} and {b:?} belong to different robots: only pairs of one robot can be allowed"
    )]
    CrossRobotPair {
        /// The first link.
        a: String,
        /// The second link.
        b: String,
    },
    /// A shape with invalid parameters (non-positive or non-finite sizes, an empty mesh).
    #[error("shape of {name:?}: {reason}")]
    InvalidShape {
        /// The object.
        name: String,
        /// What is wrong.
        reason: String,
    },
    /// A pose that is not a finite rigid transform.
    #[error("pose of {0:?} is not a finite rigid transform")]
    InvalidPose(String),
    /// A path with fewer than two waypoints.
    #[error("waypoints has {0} rows: a path needs at least 2")]
    TooFewWaypoints(usize),
    /// A joint vector of the wrong width.
    #[error("{which} has {got} values, the scene's robots take {expected}")]
    JointCount {
        /// The argument (`"q0"`, `"q1"`, `"q"`, `"waypoints[3]"`, `"edges[2].q0"`).
        which: String,
        /// The scene's joint values.
        expected: usize,
        /// Values given.
        got: usize,
    },
    /// A joint value that is NaN, infinite or outside its joint's limits (not clamped).
    #[error(
        "{which}[{index}] = {value} (joint {joint:?}) is not finite or outside its limits [{lower}, {upper}]"
    )]
    InvalidJointValue {
        /// The argument.
        which: String,
        /// Index of the value in the joint vector.
        index: usize,
        /// The joint's name.
        joint: String,
        /// The value.
        value: f64,
        /// The lower limit (`-inf` without limits).
        lower: f64,
        /// The upper limit (`inf` without limits).
        upper: f64,
    },
    /// The scene has no robot to move.
    #[error("the planning scene has no robot")]
    NoRobot,
    /// An error of the articulated query or body.
    #[error(transparent)]
    Articulated(#[from] ArticulatedError),
    /// An error of the static distance query.
    #[error(transparent)]
    Distance(#[from] MeshDistanceError),
}
