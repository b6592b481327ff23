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
    /// A motion parameter (angle, axis, velocity, displacement, rotation centre) that is NaN
    /// or infinite.
    #[error("the motion's {what} is not finite")]
    NonFiniteMotion {
        /// Which parameter.
        what: &'static str,
    },
    /// A rotation axis that is zero (with a non-zero angle) or, when deserialised, not a
    /// unit vector.
    #[error("rotation axis {axis:?} is zero or not a unit vector")]
    InvalidAxis {
        /// The axis as given.
        axis: [f64; 3],
    },
    /// A motion outside the domain in which the workspace's answers are proven: an angle
    /// beyond [`RigidMotion::MAX_ANGLE`](crate::RigidMotion::MAX_ANGLE) or a coordinate
    /// beyond [`RigidMotion::MAX_COORDINATE`](crate::RigidMotion::MAX_COORDINATE).
    #[error(
        "the motion's {what} is {value:e}, outside the supported range (magnitude at most {max:e})"
    )]
    MotionOutOfDomain {
        /// Which parameter.
        what: &'static str,
        /// Its value (the largest coordinate for a vector).
        value: f64,
        /// The largest magnitude allowed.
        max: f64,
    },
    /// A [`LinkId`](crate::LinkId) that is not a link of the model (or motion, or assembly)
    /// it was given to.
    #[error("link {id} does not exist (the model has {links} links)")]
    UnknownLinkId {
        /// The index given.
        id: u32,
        /// Number of links.
        links: usize,
    },
    /// A [`NodeId`](crate::NodeId) that is not a node of the assembly tree.
    #[error("node {id} does not exist (the assembly tree has {nodes} nodes)")]
    UnknownNodeId {
        /// The index given.
        id: u32,
        /// Number of nodes.
        nodes: usize,
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
    /// A URDF or SRDF file that cannot be read (feature `urdf`).
    #[error("cannot read {}: {reason}", path.display())]
    FileRead {
        /// The file.
        path: std::path::PathBuf,
        /// The underlying IO error, as text.
        reason: String,
    },
    /// A URDF or SRDF document that is not well-formed XML or does not follow the format:
    /// missing elements or attributes, unparsable numbers (feature `urdf`).
    #[error("cannot parse {source_name}: {reason}")]
    UrdfParse {
        /// The file path, or `"<string>"` for a document given as text.
        source_name: String,
        /// What is wrong, with the position where known.
        reason: String,
    },
    /// A xacro document given as URDF: a file named `*.xacro`, `<xacro:...>` elements or
    /// attributes, or `${...}` / `$(...)` substitutions in attribute values (feature `urdf`).
    /// Its macros would not be expanded, so it is rejected rather than loaded without
    /// them; expand it first (`xacro robot.urdf.xacro > robot.urdf`).
    #[error(
        "{source_name} is a xacro document ({reason}); expand it first (`xacro FILE.xacro > FILE.urdf`)"
    )]
    Xacro {
        /// The file path, or `"<string>"` for a document given as text.
        source_name: String,
        /// What marks it as xacro, with the line.
        reason: String,
    },
    /// A URDF joint whose `type` is not one of revolute, continuous, prismatic, fixed,
    /// floating, planar, spherical (feature `urdf`).
    #[error("joint {joint:?} has an unknown type {kind:?}")]
    UnknownJointType {
        /// The joint's name.
        joint: String,
        /// The type it gives.
        kind: String,
    },
    /// A valid URDF joint type that this crate does not model (`planar`) (feature `urdf`).
    #[error("joint {joint:?} has type {kind:?}, which is unsupported")]
    UnsupportedJointType {
        /// The joint's name.
        joint: String,
        /// The type it gives.
        kind: String,
    },
    /// A URDF joint or an SRDF entry names a link that does not exist (feature `urdf`).
    #[error("{context} names link {link:?}, which does not exist")]
    UnknownLink {
        /// The missing link's name.
        link: String,
        /// Who names it (e.g. `joint "elbow" (parent)`).
        context: String,
    },
    /// A URDF link that is the child of two joints (feature `urdf`).
    #[error("link {link:?} has two parents: it is the child of joints {first:?} and {second:?}")]
    LinkWithTwoParents {
        /// The link.
        link: String,
        /// The first joint naming it as child.
        first: String,
        /// The second joint naming it as child.
        second: String,
    },
    /// URDF joints that connect links in a cycle (feature `urdf`).
    #[error("the joints form a cycle through links {links:?}")]
    UrdfCycle {
        /// The links on (or hanging below) the cycle, sorted by name.
        links: Vec<String>,
    },
    /// A URDF that is structurally invalid in another way: no links, duplicate names,
    /// several roots, a zero joint axis, a missing `<limit>`, an invalid mesh scale
    /// (feature `urdf`).
    #[error("invalid URDF: {0}")]
    InvalidUrdf(String),
    /// A collision mesh URI that cannot be resolved to a file: an unknown `package://`
    /// name, an unsupported scheme (feature `urdf`).
    #[error("cannot resolve mesh {uri:?} of link {link:?}: {reason}")]
    UnresolvedUri {
        /// The link.
        link: String,
        /// The `filename` attribute.
        uri: String,
        /// Why.
        reason: UriError,
    },
    /// A collision mesh that cannot be loaded because its file is missing, unreadable or
    /// outside the model directory and the package directories (feature `urdf`, with the
    /// default confinement). One variant for all three, so that an error does not reveal
    /// whether a path outside the allowed directories exists.
    #[error(
        "cannot load collision mesh {uri:?} of link {link:?}: missing, unreadable, or outside the model and package directories"
    )]
    MeshUnavailable {
        /// The link.
        link: String,
        /// The `filename` attribute.
        uri: String,
    },
    /// `UrdfOptions::primitive_segments` above its documented maximum (feature `urdf`).
    #[error("primitive_segments = {segments} exceeds the maximum {max}")]
    TooManySegments {
        /// The value given.
        segments: u32,
        /// The largest value allowed.
        max: u32,
    },
    /// A collision mesh file that does not exist (feature `urdf`, only with
    /// `UrdfOptions::allow_outside_paths`).
    #[error("collision mesh {uri:?} of link {link:?} not found at {}", path.display())]
    MissingMesh {
        /// The link.
        link: String,
        /// The `filename` attribute.
        uri: String,
        /// The path it resolved to.
        path: std::path::PathBuf,
    },
    /// A collision mesh file that exists but cannot be loaded: not a mesh, malformed (feature
    /// `urdf`).
    #[error("cannot load collision mesh {} of link {link:?}: {reason}", path.display())]
    MeshLoad {
        /// The link.
        link: String,
        /// The mesh file.
        path: std::path::PathBuf,
        /// The `ccd_geometry` error, as text.
        reason: String,
    },
}

/// Why a URDF mesh URI does not resolve to a path (see `UrdfOptions::resolve_uri`, feature
/// `urdf`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UriError {
    /// A `package://NAME/...` URI whose package no `UrdfOptions::package_dirs` prefix matches.
    #[error("no directory for package {package:?} in UrdfOptions::package_dirs")]
    UnknownPackage {
        /// The package name (the URI's first path component).
        package: String,
    },
    /// A scheme other than `package://` and `file://`.
    #[error("unsupported URI scheme {scheme:?}")]
    UnsupportedScheme {
        /// The scheme.
        scheme: String,
    },
}
