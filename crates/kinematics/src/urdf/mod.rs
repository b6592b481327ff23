//! URDF import (feature `urdf`): a robot description into an [`ArticulatedModel`] with its
//! collision geometry, and SRDF `disable_collisions` pairs into a link-pair filter.
//!
//! The document is parsed by `urdf-rs`; a light `quick-xml` pass before it gives typed
//! errors (malformed XML with its line, unknown joint types, missing `<limit>`s) where
//! `urdf-rs` would only say that deserialisation failed.
//!
//! # URDF semantics as loaded here
//! - Every `<link>` becomes a link of the model; the root is the link that is no joint's
//!   child (it gets a [`Joint::Fixed`] to the world with an identity offset). Exactly one
//!   root is allowed; a link that is the child of two joints, a cycle of joints, a joint
//!   naming a missing link and duplicate names are errors.
//! - A `<joint>`'s `<origin xyz rpy>` is the constant offset parent → joint frame
//!   ([`LinkSpec::offset`]; `rpy` is fixed-axis roll about x, then pitch about y, then yaw
//!   about z: `R = Rz(yaw)·Ry(pitch)·Rx(roll)`), and the child link's frame is
//!   `offset · motion(q)`, so [`ArticulatedModel::pose_from_joints`] reproduces URDF forward
//!   kinematics.
//! - Types: `revolute` → [`Joint::Revolute`] with [`Limits`] from `<limit lower upper>`,
//!   `continuous` → [`Joint::Revolute`] without limits, `prismatic` → [`Joint::Prismatic`],
//!   `fixed` → [`Joint::Fixed`], `floating` → [`Joint::Floating`], `spherical` (URDF 1.2)
//!   → [`Joint::Spherical`]; `planar` is [`KinematicsError::UnsupportedJointType`], any other
//!   type [`KinematicsError::UnknownJointType`]. `<axis xyz>` defaults to `(1, 0, 0)` and
//!   is normalised (a zero or non-finite axis is an error). Revolute and prismatic joints
//!   need a `<limit>` (as in `urdfdom`); an infinite bound (URDF 1.2 omitted bound) drops
//!   the limits of that joint. `<mimic>` is ignored: a mimic joint gets its own value.
//! - Joint values are ordered as the model's links ([`ArticulatedModel::links`],
//!   [`crate::Link::first_dof`]), which is breadth-first from the root, not the document's
//!   order; [`UrdfRobot::joint_index`] maps a joint name to its index in `q`.
//! - By default only `<collision>` elements are read (visuals, inertials, materials are
//!   ignored, so missing visual meshes are fine); [`UrdfOptions::geometry`] =
//!   [`UrdfGeometry::Visual`] reads the `<visual>` elements instead (their geometry, same
//!   rules; materials ignored), for robots whose collision meshes are coarse or absent.
//!   Each becomes a [`Collision`] with its rigid
//!   `<origin>` kept as [`Collision::origin`] (collision frame → link frame) and its
//!   geometry as a [`TriMesh`] in the collision frame: mesh files are loaded through
//!   [`ccd_geometry::io::read_mesh`] (`.obj`, `.stl`, `.ply`, COLLADA `.dae` with its unit
//!   and node transforms, `up_axis` ignored as in ROS) with the `scale` **baked into
//!   the vertices** (a mirroring scale also flips the triangles); boxes, cylinders, spheres
//!   and capsules are tessellated ([`UrdfOptions::primitive_segments`]).
//!   [`UrdfRobot::link_mesh`] merges a link's collisions into one mesh in the link frame.
//!   A file used several times with the same scale is loaded once and shared.
//! - Mesh `filename`s: `package://NAME/rest` is resolved with [`UrdfOptions::package_dirs`]
//!   (the longest matching prefix wins, so a prefix may be more than a package name),
//!   `file:///abs/path` is taken as is, and a plain path is relative to the URDF's directory
//!   (or the `base_dir` given to [`UrdfRobot::parse`]). `package:///NAME/rest` (empty
//!   authority) is read as `package://NAME/rest`.
//! - Packages: a `NAME` that no prefix matches is searched for
//!   ([`UrdfOptions::search_packages`], on by default), without any table of names:
//!   1. the model's own layout: walking up from the URDF directory (at most
//!      [`UrdfOptions::MAX_PACKAGE_SEARCH_LEVELS`] levels), a directory named `NAME` or
//!      `NAME_description` (the model lies inside its own package: `package://example-robot-data/robots/panda_description/...`
//!      from `.../example-robot-data/robots/panda_description/urdf/`), else a child
//!      `NAME` or `NAME_description` of one of those directories that looks like a package
//!      (holds `package.xml`, `meshes/`, `urdf/` or `robots/`: a sibling package such as
//!      `robots/b1_description` or a `robots/NAME` link);
//!   2. [`UrdfOptions::ros_package_path`] (default: the `ROS_PACKAGE_PATH` variable),
//!      colon-separated: a directory that is the package, `DIR/NAME`, or one level deeper
//!      (`DIR/*/NAME`, or `DIR/*` whose `package.xml` declares `<name>NAME</name>`), each
//!      with a `package.xml` whose `<name>` is `NAME`.
//!
//!   A package found this way is one more allowed directory for confinement (below).
//! - Xacro: a document with `<xacro:...>` elements or attributes, or `${...}` / `$(...)` in
//!   an attribute value (and a file named `*.xacro`) is [`KinematicsError::Xacro`]: its
//!   macros are not expanded here, so it is rejected instead of being loaded without them.
//!   A plain URDF that only declares `xmlns:xacro` (as expanded files do) loads.
//! - Confinement (on by default): a mesh file must lie, after resolving `..` and symbolic
//!   links, inside the model directory (`base_dir`) or one of the
//!   [`UrdfOptions::package_dirs`]. A mesh outside them (`../../secret.stl`, an absolute path,
//!   `file:///etc/...`, `package://pkg/../../...`), a missing one and an unreadable path all
//!   give the same [`KinematicsError::MeshUnavailable`], naming the link and the URI, so a
//!   document cannot probe which files exist elsewhere. [`UrdfOptions::allow_outside_paths`]
//!   turns confinement off; a missing file is then [`KinematicsError::MissingMesh`] with its
//!   path.
//! - A link without `<collision>` elements (or `<visual>` ones with
//!   [`UrdfGeometry::Visual`]) is kept without geometry (not an error).
//!
//! # Example
//! ```
//! use ccd_kinematics::urdf::{UrdfOptions, UrdfRobot};
//! use ccd_kinematics::glam::DVec3;
//!
//! let urdf = r#"
//! <robot name="arm">
//!   <link name="base"/>
//!   <link name="upper">
//!     <collision><origin xyz="0 0 0.5"/><geometry><box size="0.1 0.1 1"/></geometry></collision>
//!   </link>
//!   <joint name="shoulder" type="revolute">
//!     <origin xyz="0 0 1" rpy="0 0 0"/>
//!     <parent link="base"/><child link="upper"/>
//!     <axis xyz="0 1 0"/>
//!     <limit lower="-2" upper="2" effort="1" velocity="1"/>
//!   </joint>
//! </robot>"#;
//! let robot = UrdfRobot::parse(urdf, ".", &UrdfOptions::default())?;
//! assert_eq!(robot.model.len(), 2);
//! assert_eq!(robot.model.dof(), 1);
//!
//! let upper = robot.model.link_id("upper").unwrap();
//! let mut q = vec![0.0; robot.model.dof()];
//! q[robot.joint_index("shoulder").unwrap()] = std::f64::consts::FRAC_PI_2;
//! let world = robot.model.pose_from_joints(&q)?.world_transforms(&robot.model)?;
//! // the link's tip (0, 0, 1) swings about +y onto +x
//! let tip = world[upper.index()].transform_point3(DVec3::Z);
//! assert!(tip.abs_diff_eq(DVec3::new(1.0, 0.0, 1.0), 1e-12));
//! // its box, in the link frame, reaches from z = 0 to z = 1
//! let mesh = robot.link_mesh(upper).unwrap();
//! assert!((mesh.aabb().max.z - 1.0).abs() < 1e-12);
//! # Ok::<(), ccd_kinematics::KinematicsError>(())
//! ```

mod packages;
mod shapes;
mod srdf;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ccd_geometry::TriMesh;
use glam::{DAffine3, DQuat, DVec3};
use quick_xml::events::Event;

use crate::{ArticulatedModel, Joint, KinematicsError, Limits, LinkId, LinkSpec, UriError};

pub use srdf::{parse_srdf_disabled_pairs, read_srdf_disabled_pairs};

/// How to load a URDF: where `package://` URIs point and how finely primitives are
/// tessellated. `Default` and the `with_*` builders:
///
/// ```
/// use ccd_kinematics::urdf::UrdfOptions;
/// let o = UrdfOptions::default().with_primitive_segments(8).with_package("arm", "/data/arm");
/// assert_eq!((o.primitive_segments, o.allow_outside_paths), (8, false));
/// ```
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct UrdfOptions {
    /// `(prefix, directory)` pairs: `package://PREFIX/rest` resolves to `directory/rest`.
    /// A prefix is a package name (`"panda_description"`) or a longer path
    /// (`"example-robot-data/robots/panda_description"`); the longest match wins.
    pub package_dirs: Vec<(String, PathBuf)>,
    /// Vertices around the axis of tessellated cylinders, spheres and capsules (at least 3,
    /// at most [`UrdfOptions::MAX_PRIMITIVE_SEGMENTS`]; default 16).
    pub primitive_segments: u32,
    /// Let mesh files lie outside the model directory and the package directories (default
    /// `false`: see "Confinement" in the [module docs](self)). Turn it on only for trusted
    /// documents.
    pub allow_outside_paths: bool,
    /// Which elements give the link geometry: `<collision>` (default) or `<visual>`.
    pub geometry: UrdfGeometry,
    /// Find the packages of `package://NAME/...` URIs that no
    /// [`package_dirs`](Self::package_dirs) prefix matches (default `true`): first in the
    /// model's own layout (a folder `NAME` or `NAME_description` that is the URDF directory
    /// or one of its ancestors, or a child of one of them), then in the
    /// [`ros_package_path`](Self::ros_package_path) directories. See "Packages" in the
    /// [module docs](self).
    pub search_packages: bool,
    /// The colon-separated directories searched for packages (folders with a `package.xml`)
    /// after the model's own layout; `None` (default) reads the `ROS_PACKAGE_PATH`
    /// environment variable when loading.
    pub ros_package_path: Option<String>,
}

/// Which URDF elements give each link's geometry ([`UrdfOptions::geometry`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum UrdfGeometry {
    /// The `<collision>` elements (usually simplified meshes).
    #[default]
    Collision,
    /// The `<visual>` elements (the detailed meshes robots are drawn with).
    Visual,
}

impl Default for UrdfOptions {
    fn default() -> Self {
        Self {
            package_dirs: Vec::new(),
            primitive_segments: 16,
            allow_outside_paths: false,
            geometry: UrdfGeometry::Collision,
            search_packages: true,
            ros_package_path: None,
        }
    }
}

impl UrdfOptions {
    /// Largest [`primitive_segments`](Self::primitive_segments): a sphere then has
    /// 256 × 128 vertices.
    pub const MAX_PRIMITIVE_SEGMENTS: u32 = 256;

    /// How many directories up from the URDF's directory the package search looks
    /// ([`search_packages`](Self::search_packages)).
    pub const MAX_PACKAGE_SEARCH_LEVELS: usize = 8;

    /// How many entries of one `ros_package_path` directory the package search lists when
    /// looking one level down for a package folder.
    pub const MAX_PACKAGE_PATH_ENTRIES: usize = 4096;

    /// These options with the package search ([`search_packages`](Self::search_packages))
    /// on or off.
    #[must_use]
    pub fn with_search_packages(mut self, search_packages: bool) -> Self {
        self.search_packages = search_packages;
        self
    }

    /// These options searching `ros_package_path` (colon-separated directories) instead of
    /// the `ROS_PACKAGE_PATH` environment variable.
    ///
    /// # Example
    /// ```
    /// use ccd_kinematics::urdf::UrdfOptions;
    ///
    /// let o = UrdfOptions::default().with_ros_package_path("/opt/ros/share:/home/me/ws/src");
    /// assert_eq!(o.ros_package_path.as_deref(), Some("/opt/ros/share:/home/me/ws/src"));
    /// assert!(o.search_packages);
    /// ```
    #[must_use]
    pub fn with_ros_package_path(mut self, ros_package_path: impl Into<String>) -> Self {
        self.ros_package_path = Some(ros_package_path.into());
        self
    }

    /// These options with one more `package://` prefix mapped to `dir`.
    ///
    /// # Example
    /// ```
    /// use ccd_kinematics::urdf::UrdfOptions;
    /// use std::path::Path;
    ///
    /// let opts = UrdfOptions::default().with_package("robots/arm_description", "/data/arm");
    /// let path = opts.resolve_uri("package://robots/arm_description/meshes/a.stl", Path::new("."));
    /// assert_eq!(path.unwrap(), Path::new("/data/arm/meshes/a.stl"));
    /// ```
    #[must_use]
    pub fn with_package(mut self, prefix: impl Into<String>, dir: impl Into<PathBuf>) -> Self {
        self.package_dirs.push((prefix.into(), dir.into()));
        self
    }

    /// These options with the `(prefix, directory)` pairs `package_dirs` (replacing any).
    #[must_use]
    pub fn with_package_dirs(mut self, package_dirs: Vec<(String, PathBuf)>) -> Self {
        self.package_dirs = package_dirs;
        self
    }

    /// These options tessellating primitives with `primitive_segments` vertices around the
    /// axis (checked when loading: at least 3, at most
    /// [`MAX_PRIMITIVE_SEGMENTS`](Self::MAX_PRIMITIVE_SEGMENTS)).
    #[must_use]
    pub fn with_primitive_segments(mut self, primitive_segments: u32) -> Self {
        self.primitive_segments = primitive_segments;
        self
    }

    /// These options letting mesh files lie outside the model and package directories
    /// (`true` only for trusted documents).
    #[must_use]
    pub fn with_allow_outside_paths(mut self, allow_outside_paths: bool) -> Self {
        self.allow_outside_paths = allow_outside_paths;
        self
    }

    /// These options reading link geometry from `geometry`'s elements.
    ///
    /// # Example
    /// ```
    /// use ccd_kinematics::urdf::{UrdfGeometry, UrdfOptions, UrdfRobot};
    ///
    /// let urdf = r#"<robot name="r"><link name="a">
    ///     <visual><geometry><box size="2 2 2"/></geometry></visual>
    ///     <collision><geometry><box size="1 1 1"/></geometry></collision></link></robot>"#;
    /// let visual = UrdfOptions::default().with_geometry(UrdfGeometry::Visual);
    /// let robot = UrdfRobot::parse(urdf, ".", &visual)?;
    /// assert_eq!(robot.collisions[0][0].mesh.aabb().max.x, 1.0); // the 2 m visual box
    /// let robot = UrdfRobot::parse(urdf, ".", &UrdfOptions::default())?;
    /// assert_eq!(robot.collisions[0][0].mesh.aabb().max.x, 0.5); // the 1 m collision box
    /// # Ok::<(), ccd_kinematics::KinematicsError>(())
    /// ```
    #[must_use]
    pub fn with_geometry(mut self, geometry: UrdfGeometry) -> Self {
        self.geometry = geometry;
        self
    }

    /// The file a mesh `filename` refers to (see the [module docs](self)); `base_dir` is the
    /// URDF's directory.
    ///
    /// This only maps the URI to a path; the loader then checks that the file lies inside
    /// the allowed directories (unless [`allow_outside_paths`](Self::allow_outside_paths)).
    ///
    /// # Errors
    /// [`UriError::UnknownPackage`] when no package prefix matches,
    /// [`UriError::UnsupportedScheme`] when the scheme is not `package://` or `file://`.
    ///
    /// # Example
    /// ```
    /// use ccd_kinematics::urdf::UrdfOptions;
    /// use ccd_kinematics::UriError;
    /// use std::path::Path;
    ///
    /// let opts = UrdfOptions::default().with_package("arm", "/pkgs/arm");
    /// let base = Path::new("/robots/urdf");
    /// assert_eq!(opts.resolve_uri("../meshes/a.stl", base).unwrap(), base.join("../meshes/a.stl"));
    /// assert_eq!(opts.resolve_uri("package://arm/a.obj", base).unwrap(), Path::new("/pkgs/arm/a.obj"));
    /// assert_eq!(opts.resolve_uri("file:///abs/a.ply", base).unwrap(), Path::new("/abs/a.ply"));
    /// assert!(matches!(opts.resolve_uri("package://other/a.stl", base), Err(UriError::UnknownPackage { .. })));
    /// assert!(matches!(opts.resolve_uri("https://example.invalid/a.stl", base), Err(UriError::UnsupportedScheme { .. })));
    /// ```
    pub fn resolve_uri(&self, uri: &str, base_dir: &Path) -> Result<PathBuf, UriError> {
        if let Some(rest) = uri.strip_prefix("package://") {
            // `package:///name/...` (an empty authority, as some exporters write) is read as
            // `package://name/...`
            let rest = rest.trim_start_matches('/');
            let mut best: Option<(usize, &Path)> = None;
            for (prefix, dir) in &self.package_dirs {
                let p = prefix.trim_matches('/');
                let matches = !p.is_empty()
                    && rest.starts_with(p)
                    && (rest.len() == p.len() || rest[p.len()..].starts_with('/'));
                if matches && best.is_none_or(|(len, _)| p.len() > len) {
                    best = Some((p.len(), dir));
                }
            }
            match best {
                Some((len, dir)) => Ok(dir.join(rest[len..].trim_start_matches('/'))),
                None => Err(UriError::UnknownPackage {
                    package: rest.split('/').next().unwrap_or(rest).to_owned(),
                }),
            }
        } else if let Some(path) = uri.strip_prefix("file://") {
            Ok(PathBuf::from(path))
        } else if let Some((scheme, _)) = uri.split_once("://") {
            Err(UriError::UnsupportedScheme {
                scheme: scheme.to_owned(),
            })
        } else {
            Ok(base_dir.join(uri))
        }
    }
}

/// The shape of one `<collision>` element as the URDF gives it.
#[derive(Clone, Debug, PartialEq)]
pub enum CollisionGeometry {
    /// `<mesh filename scale>`.
    Mesh {
        /// The `filename` attribute as written.
        uri: String,
        /// The file it resolved to.
        path: PathBuf,
        /// The `scale` attribute (default `(1, 1, 1)`), baked into [`Collision::mesh`].
        scale: DVec3,
    },
    /// `<box size>`: full extents, centred.
    Box {
        /// Full extents along x, y, z.
        size: DVec3,
    },
    /// `<cylinder radius length>`: axis z, centred.
    Cylinder {
        /// Radius.
        radius: f64,
        /// Length along z.
        length: f64,
    },
    /// `<capsule radius length>` (URDF 1.2): a cylinder along z with hemispherical caps.
    Capsule {
        /// Radius.
        radius: f64,
        /// Length of the cylindrical part.
        length: f64,
    },
    /// `<sphere radius>`: centred.
    Sphere {
        /// Radius.
        radius: f64,
    },
}

/// One `<collision>` element of a link.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Collision {
    /// The element's `name`, if any.
    pub name: Option<String>,
    /// Its rigid `<origin>`: collision frame → link frame.
    pub origin: DAffine3,
    /// What the URDF says the shape is.
    pub geometry: CollisionGeometry,
    /// The shape as triangles in the collision frame (mesh scale baked in, primitives
    /// tessellated). Shared between collisions that use the same file and scale.
    pub mesh: Arc<TriMesh>,
}

/// A robot loaded from a URDF: its [`ArticulatedModel`] and per-link collision geometry.
///
/// See the [module docs](self) for the semantics and an example.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct UrdfRobot {
    /// The `<robot name>`.
    pub name: String,
    /// The link tree with joints and offsets.
    pub model: ArticulatedModel,
    /// `joint_names[i]`: the joint whose child is link `i` (`None` for the root).
    pub joint_names: Vec<Option<String>>,
    /// `collisions[i]`: the collision shapes of link `i` in document order.
    pub collisions: Vec<Vec<Collision>>,
}

/// What the pre-pass learns about a `<joint>` (direct child of `<robot>`).
struct JointScan {
    kind: String,
    has_limit: bool,
}

impl UrdfRobot {
    /// Loads a URDF file; relative mesh paths are resolved against its directory.
    ///
    /// # Errors
    /// [`KinematicsError::FileRead`] when the file cannot be read, and everything
    /// [`UrdfRobot::parse`] reports.
    ///
    /// # Example
    /// ```
    /// use ccd_kinematics::urdf::{UrdfOptions, UrdfRobot};
    ///
    /// let dir = std::env::temp_dir().join(format!("ccd-urdf-doc-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir).unwrap();
    /// std::fs::write(
    ///     dir.join("tri.stl"),
    ///     "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\n\
    ///      endloop\nendfacet\nendsolid t\n",
    /// )
    /// .unwrap();
    /// std::fs::write(
    ///     dir.join("one.urdf"),
    ///     r#"<robot name="one"><link name="base"><collision><geometry>
    ///        <mesh filename="tri.stl" scale="2 2 2"/></geometry></collision></link></robot>"#,
    /// )
    /// .unwrap();
    /// let robot = UrdfRobot::from_file(dir.join("one.urdf"), &UrdfOptions::default());
    /// std::fs::remove_dir_all(&dir).ok();
    /// let robot = robot?;
    /// assert_eq!(robot.collisions[0][0].mesh.aabb().max.x, 2.0);
    /// # Ok::<(), ccd_kinematics::KinematicsError>(())
    /// ```
    pub fn from_file(
        path: impl AsRef<Path>,
        options: &UrdfOptions,
    ) -> Result<Self, KinematicsError> {
        let path = path.as_ref();
        if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("xacro"))
        {
            return Err(KinematicsError::Xacro {
                source_name: path.display().to_string(),
                reason: "the file name ends in .xacro".into(),
            });
        }
        let text = std::fs::read_to_string(path).map_err(|e| KinematicsError::FileRead {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })?;
        let base = path.parent().unwrap_or(Path::new("."));
        Self::load(&text, &path.display().to_string(), base, options)
    }

    /// Loads a URDF document given as text; relative mesh paths are resolved against
    /// `base_dir`.
    ///
    /// # Errors
    /// - [`KinematicsError::UrdfParse`]: malformed XML (with its line), a root element
    ///   other than `<robot>`, missing or unparsable elements and attributes.
    /// - [`KinematicsError::Xacro`]: a xacro document (`<xacro:...>` elements or attributes,
    ///   `${...}` / `$(...)` substitutions in attribute values; [`UrdfRobot::from_file`] also
    ///   rejects a file name ending in `.xacro`), which must be expanded first.
    /// - [`KinematicsError::UnknownJointType`], [`KinematicsError::UnsupportedJointType`]
    ///   (`planar`).
    /// - [`KinematicsError::UnknownLink`]: a joint's parent or child does not exist.
    /// - [`KinematicsError::LinkWithTwoParents`], [`KinematicsError::UrdfCycle`].
    /// - [`KinematicsError::InvalidUrdf`]: no links, duplicate link or joint names, several
    ///   roots, a zero or non-finite axis, origin or dimension, a revolute or prismatic
    ///   joint without `<limit>`, `lower > upper`, a zero or non-finite mesh scale.
    /// - [`KinematicsError::UnresolvedUri`], [`KinematicsError::MeshUnavailable`] (missing,
    ///   unreadable or outside the allowed directories), [`KinematicsError::MeshLoad`] (not a
    ///   mesh) for collision meshes; [`KinematicsError::MissingMesh`] instead of
    ///   `MeshUnavailable` with [`UrdfOptions::allow_outside_paths`].
    /// - [`KinematicsError::TooManySegments`] when [`UrdfOptions::primitive_segments`]
    ///   exceeds [`UrdfOptions::MAX_PRIMITIVE_SEGMENTS`].
    ///
    /// # Example
    /// ```
    /// use ccd_kinematics::urdf::{UrdfOptions, UrdfRobot};
    /// use ccd_kinematics::KinematicsError;
    ///
    /// let bad = r#"<robot name="r"><link name="a"/><link name="b"/>
    ///   <joint name="j" type="hinge"><parent link="a"/><child link="b"/></joint></robot>"#;
    /// let err = UrdfRobot::parse(bad, ".", &UrdfOptions::default()).unwrap_err();
    /// assert!(matches!(err, KinematicsError::UnknownJointType { ref kind, .. } if kind == "hinge"));
    /// ```
    pub fn parse(
        text: &str,
        base_dir: impl AsRef<Path>,
        options: &UrdfOptions,
    ) -> Result<Self, KinematicsError> {
        Self::load(text, "<string>", base_dir.as_ref(), options)
    }

    fn load(
        text: &str,
        source_name: &str,
        base_dir: &Path,
        options: &UrdfOptions,
    ) -> Result<Self, KinematicsError> {
        if options.primitive_segments > UrdfOptions::MAX_PRIMITIVE_SEGMENTS {
            return Err(KinematicsError::TooManySegments {
                segments: options.primitive_segments,
                max: UrdfOptions::MAX_PRIMITIVE_SEGMENTS,
            });
        }
        let scans = scan(text, source_name)?;
        let text = with_texture_filenames(text);
        let robot = urdf_rs::read_from_string(&text).map_err(|e| KinematicsError::UrdfParse {
            source_name: source_name.to_owned(),
            reason: e.to_string(),
        })?;
        let searched;
        let options = if options.search_packages {
            searched = with_found_packages(&robot, base_dir, options);
            &searched
        } else {
            options
        };
        let (specs, joint_of_link) = link_specs(&robot, &scans)?;
        let model = ArticulatedModel::new(specs)?;

        let by_name: HashMap<&str, usize> = robot
            .links
            .iter()
            .enumerate()
            .map(|(i, l)| (l.name.as_str(), i))
            .collect();
        let mut cache: HashMap<(PathBuf, [u64; 3]), Arc<TriMesh>> = HashMap::new();
        // the directories mesh files must lie in (canonical), unless confinement is off
        let roots = (!options.allow_outside_paths).then(|| {
            std::iter::once(base_dir)
                .chain(options.package_dirs.iter().map(|(_, d)| d.as_path()))
                .filter_map(|d| d.canonicalize().ok())
                .collect::<Vec<_>>()
        });
        let ctx = MeshContext {
            base_dir,
            options,
            roots: roots.as_deref(),
        };
        let mut collisions = Vec::with_capacity(model.len());
        let mut joint_names = Vec::with_capacity(model.len());
        for link in model.links() {
            let i = by_name[link.name.as_str()];
            joint_names.push(joint_of_link[i].map(|j| robot.joints[j].name.clone()));
            let visuals: Vec<urdf_rs::Collision>;
            let elements: &[urdf_rs::Collision] = match options.geometry {
                UrdfGeometry::Collision => &robot.links[i].collision,
                UrdfGeometry::Visual => {
                    visuals = robot.links[i]
                        .visual
                        .iter()
                        .map(|v| urdf_rs::Collision {
                            name: v.name.clone(),
                            origin: v.origin.clone(),
                            geometry: v.geometry.clone(),
                        })
                        .collect();
                    &visuals
                }
            };
            let mut shapes = Vec::with_capacity(elements.len());
            for c in elements {
                shapes.push(collision(&link.name, c, &ctx, &mut cache)?);
            }
            collisions.push(shapes);
        }
        Ok(Self {
            name: robot.name,
            model,
            joint_names,
            collisions,
        })
    }

    /// The link whose parent joint is named `joint`.
    ///
    /// # Example
    /// ```
    /// use ccd_kinematics::urdf::{UrdfOptions, UrdfRobot};
    ///
    /// let robot = UrdfRobot::parse(
    ///     r#"<robot name="r"><link name="a"/><link name="b"/>
    ///        <joint name="j" type="continuous"><parent link="a"/><child link="b"/></joint></robot>"#,
    ///     ".",
    ///     &UrdfOptions::default(),
    /// )?;
    /// assert_eq!(robot.joint_link("j"), robot.model.link_id("b"));
    /// assert_eq!(robot.joint_link("nope"), None);
    /// # Ok::<(), ccd_kinematics::KinematicsError>(())
    /// ```
    #[must_use]
    pub fn joint_link(&self, joint: &str) -> Option<LinkId> {
        self.joint_names
            .iter()
            .position(|n| n.as_deref() == Some(joint))
            .map(|i| LinkId(i as u32))
    }

    /// Index of the first value of joint `joint` in the model's joint vector `q`, or `None`
    /// for an unknown name or a joint without values (fixed).
    ///
    /// # Example
    /// ```
    /// use ccd_kinematics::urdf::{UrdfOptions, UrdfRobot};
    ///
    /// let robot = UrdfRobot::parse(
    ///     r#"<robot name="r"><link name="a"/><link name="b"/><link name="c"/>
    ///        <joint name="fix" type="fixed"><parent link="a"/><child link="b"/></joint>
    ///        <joint name="spin" type="continuous"><parent link="b"/><child link="c"/></joint></robot>"#,
    ///     ".",
    ///     &UrdfOptions::default(),
    /// )?;
    /// assert_eq!(robot.joint_index("spin"), Some(0));
    /// assert_eq!(robot.joint_index("fix"), None);
    /// # Ok::<(), ccd_kinematics::KinematicsError>(())
    /// ```
    #[must_use]
    pub fn joint_index(&self, joint: &str) -> Option<usize> {
        let link = &self.model.links()[self.joint_link(joint)?.index()];
        (link.joint.dof() > 0).then_some(link.first_dof)
    }

    /// All collision shapes of link `id` merged into one mesh in the link frame (origins
    /// applied), or `None` when the link has no collision geometry.
    ///
    /// # Example
    /// ```
    /// use ccd_kinematics::urdf::{UrdfOptions, UrdfRobot};
    ///
    /// let robot = UrdfRobot::parse(
    ///     r#"<robot name="r"><link name="a">
    ///          <collision><origin xyz="1 0 0"/><geometry><box size="1 1 1"/></geometry></collision>
    ///          <collision><origin xyz="-1 0 0"/><geometry><box size="1 1 1"/></geometry></collision>
    ///        </link></robot>"#,
    ///     ".",
    ///     &UrdfOptions::default(),
    /// )?;
    /// let mesh = robot.link_mesh(robot.model.root()).unwrap();
    /// assert_eq!(mesh.triangle_count(), 24);
    /// assert_eq!(mesh.aabb().max.x, 1.5);
    /// # Ok::<(), ccd_kinematics::KinematicsError>(())
    /// ```
    #[must_use]
    pub fn link_mesh(&self, id: LinkId) -> Option<TriMesh> {
        let shapes = self.collisions.get(id.index())?;
        if shapes.is_empty() {
            return None;
        }
        let mut vertices = Vec::new();
        let mut triangles = Vec::new();
        for c in shapes {
            let first = u32::try_from(vertices.len()).ok()?;
            vertices.extend(
                c.mesh
                    .vertices()
                    .iter()
                    .map(|&v| c.origin.transform_point3(v)),
            );
            triangles.extend(c.mesh.triangles().iter().map(|t| t.map(|k| k + first)));
        }
        TriMesh::new(vertices, triangles).ok()
    }

    /// The SRDF `disable_collisions` pairs of this robot ([`read_srdf_disabled_pairs`]).
    ///
    /// # Errors
    /// As [`read_srdf_disabled_pairs`].
    ///
    /// # Example
    /// ```
    /// use ccd_kinematics::urdf::{UrdfOptions, UrdfRobot};
    ///
    /// let robot = UrdfRobot::parse(r#"<robot name="r"><link name="a"/></robot>"#, ".", &UrdfOptions::default())?;
    /// assert!(robot.srdf_disabled_pairs("/nonexistent/robot.srdf").is_err());
    /// # Ok::<(), ccd_kinematics::KinematicsError>(())
    /// ```
    pub fn srdf_disabled_pairs(
        &self,
        path: impl AsRef<Path>,
    ) -> Result<HashSet<(LinkId, LinkId)>, KinematicsError> {
        read_srdf_disabled_pairs(path, &self.model)
    }
}

/// `options` with a directory for every package named by a mesh URI of the elements
/// `options.geometry` reads that no prefix of `options.package_dirs` matches and that
/// [`packages::find_package`] finds.
fn with_found_packages(
    robot: &urdf_rs::Robot,
    base_dir: &Path,
    options: &UrdfOptions,
) -> UrdfOptions {
    let mut out = options.clone();
    let mut tried: HashSet<String> = HashSet::new();
    let geometries: Vec<&urdf_rs::Geometry> = robot
        .links
        .iter()
        .flat_map(|l| -> Vec<&urdf_rs::Geometry> {
            match options.geometry {
                UrdfGeometry::Collision => l.collision.iter().map(|c| &c.geometry).collect(),
                UrdfGeometry::Visual => l.visual.iter().map(|v| &v.geometry).collect(),
            }
        })
        .collect();
    for g in geometries {
        let urdf_rs::Geometry::Mesh { filename, .. } = g else {
            continue;
        };
        let Err(UriError::UnknownPackage { package }) = out.resolve_uri(filename, base_dir) else {
            continue;
        };
        if tried.insert(package.clone())
            && let Some(dir) = packages::find_package(&package, base_dir, options)
        {
            out.package_dirs.push((package, dir));
        }
    }
    out
}

/// `text` with every empty `<texture/>` element (no attributes; materials are ignored here,
/// and `urdfdom` accepts it, but `urdf-rs` requires a `filename`) given `filename=""`.
fn with_texture_filenames(text: &str) -> std::borrow::Cow<'_, str> {
    const TAG: &str = "<texture";
    if !text.contains(TAG) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 64);
    let mut rest = text;
    while let Some(at) = rest.find(TAG) {
        let after = &rest[at + TAG.len()..];
        let empty = after
            .find('>')
            .is_some_and(|end| after[..end].trim() == "/");
        out.push_str(&rest[..at + TAG.len()]);
        if empty {
            out.push_str(" filename=\"\"");
        }
        rest = after;
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

/// A [`KinematicsError::UrdfParse`] at byte `position` of `text` (reported as a line).
fn parse_error(source_name: &str, text: &str, position: u64, reason: &str) -> KinematicsError {
    let end = usize::try_from(position)
        .unwrap_or(usize::MAX)
        .min(text.len());
    let line = 1 + text.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count();
    KinematicsError::UrdfParse {
        source_name: source_name.to_owned(),
        reason: format!("line {line}: {reason}"),
    }
}

fn xml_error(
    source_name: &str,
    text: &str,
    position: u64,
    e: &quick_xml::Error,
) -> KinematicsError {
    parse_error(source_name, text, position, &format!("malformed XML: {e}"))
}

/// A [`KinematicsError::Xacro`] when `element` is a xacro element (`<xacro:...>`), has a
/// `xacro:` attribute, or an attribute value with a `${...}` or `$(...)` substitution.
fn check_not_xacro(
    element: &quick_xml::events::BytesStart<'_>,
    source_name: &str,
    text: &str,
    position: u64,
) -> Result<(), KinematicsError> {
    let line = || {
        let end = usize::try_from(position)
            .unwrap_or(usize::MAX)
            .min(text.len());
        1 + text.as_bytes()[..end]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
    };
    let xacro = |what: String| KinematicsError::Xacro {
        source_name: source_name.to_owned(),
        reason: format!("line {}: {what}", line()),
    };
    let qname = element.name();
    if qname.as_ref().starts_with(b"xacro:") {
        return Err(xacro(format!(
            "element <{}>",
            String::from_utf8_lossy(qname.as_ref())
        )));
    }
    for a in element.attributes().with_checks(false).flatten() {
        let key = a.key.as_ref();
        if key.starts_with(b"xacro:") {
            return Err(xacro(format!("attribute {}", String::from_utf8_lossy(key))));
        }
        let value = a.value.as_ref();
        if value.windows(2).any(|w| w == b"${" || w == b"$(") {
            return Err(xacro(format!(
                "attribute {}=\"{}\" has a substitution",
                String::from_utf8_lossy(key),
                String::from_utf8_lossy(value)
            )));
        }
    }
    Ok(())
}

/// Checks that `text` is well-formed XML with a `<robot>` root and collects, for every
/// `<joint>` directly under it, its `type` and whether it has a `<limit>`. Unknown joint
/// types are reported here.
fn scan(text: &str, source_name: &str) -> Result<HashMap<String, JointScan>, KinematicsError> {
    let mut reader = quick_xml::Reader::from_str(text);
    let mut joints: HashMap<String, JointScan> = HashMap::new();
    let mut depth = 0usize;
    let mut seen_root = false;
    let mut open_joint: Option<String> = None;
    loop {
        let position = reader.buffer_position();
        let event = reader
            .read_event()
            .map_err(|e| xml_error(source_name, text, reader.error_position().max(position), &e))?;
        let (element, is_start) = match &event {
            Event::Start(e) => (e, true),
            Event::Empty(e) => (e, false),
            Event::End(_) => {
                depth = depth.saturating_sub(1);
                if depth == 1 {
                    open_joint = None;
                }
                continue;
            }
            Event::Eof => break,
            _ => continue,
        };
        let bad = |reason: &str| parse_error(source_name, text, position, reason);
        check_not_xacro(element, source_name, text, position)?;
        let name = element.local_name();
        if depth == 0 {
            if seen_root {
                return Err(bad("more than one root element"));
            }
            seen_root = true;
            if name.as_ref() != b"robot" {
                return Err(bad("the root element is not <robot>"));
            }
        } else if depth == 1 && name.as_ref() == b"joint" {
            let attr = |key: &str| srdf::attribute(element, key, &reader).map_err(|r| bad(&r));
            let joint = attr("name")?.ok_or_else(|| bad("a <joint> has no name"))?;
            let kind = attr("type")?.ok_or_else(|| bad(&format!("joint {joint:?} has no type")))?;
            const KNOWN: [&str; 7] = [
                "revolute",
                "continuous",
                "prismatic",
                "fixed",
                "floating",
                "planar",
                "spherical",
            ];
            if !KNOWN.contains(&kind.as_str()) {
                return Err(KinematicsError::UnknownJointType { joint, kind });
            }
            if joints.contains_key(&joint) {
                return Err(KinematicsError::InvalidUrdf(format!(
                    "two joints are named {joint:?}"
                )));
            }
            joints.insert(
                joint.clone(),
                JointScan {
                    kind,
                    has_limit: false,
                },
            );
            if is_start {
                open_joint = Some(joint);
            }
        } else if depth == 2
            && name.as_ref() == b"limit"
            && let Some(j) = open_joint.as_ref().and_then(|j| joints.get_mut(j))
        {
            j.has_limit = true;
        }
        if is_start {
            depth += 1;
        }
    }
    if !seen_root {
        return Err(parse_error(
            source_name,
            text,
            reader.buffer_position(),
            "the document has no root element",
        ));
    }
    if depth != 0 {
        return Err(parse_error(
            source_name,
            text,
            reader.buffer_position(),
            "unexpected end of document (unclosed element)",
        ));
    }
    Ok(joints)
}

fn finite3(v: [f64; 3]) -> Option<DVec3> {
    let v = DVec3::from_array(v);
    v.is_finite().then_some(v)
}

/// The rigid transform of an `<origin xyz rpy>`.
fn origin(pose: &urdf_rs::Pose, what: &str) -> Result<DAffine3, KinematicsError> {
    let (Some(xyz), Some(rpy)) = (finite3(pose.xyz.0), finite3(pose.rpy.0)) else {
        return Err(KinematicsError::InvalidUrdf(format!(
            "{what} has a non-finite origin"
        )));
    };
    let rotation = DQuat::from_rotation_z(rpy.z)
        * DQuat::from_rotation_y(rpy.y)
        * DQuat::from_rotation_x(rpy.x);
    Ok(DAffine3::from_rotation_translation(rotation, xyz))
}

/// The link specs in document order, and for each link the index of its parent joint.
fn link_specs(
    robot: &urdf_rs::Robot,
    scans: &HashMap<String, JointScan>,
) -> Result<(Vec<LinkSpec>, Vec<Option<usize>>), KinematicsError> {
    let invalid = |m: String| Err(KinematicsError::InvalidUrdf(m));
    if robot.links.is_empty() {
        return invalid("the robot has no links".into());
    }
    let mut index: HashMap<&str, usize> = HashMap::with_capacity(robot.links.len());
    for (i, l) in robot.links.iter().enumerate() {
        if index.insert(l.name.as_str(), i).is_some() {
            return invalid(format!("two links are named {:?}", l.name));
        }
    }
    let n = robot.links.len();
    let mut parent_joint: Vec<Option<usize>> = vec![None; n];
    let mut parent_link: Vec<Option<usize>> = vec![None; n];
    for (j, joint) in robot.joints.iter().enumerate() {
        let find = |name: &str, role: &str| {
            index
                .get(name)
                .copied()
                .ok_or_else(|| KinematicsError::UnknownLink {
                    link: name.to_owned(),
                    context: format!("joint {:?} ({role})", joint.name),
                })
        };
        let parent = find(&joint.parent.link, "parent")?;
        let child = find(&joint.child.link, "child")?;
        if let Some(first) = parent_joint[child] {
            return Err(KinematicsError::LinkWithTwoParents {
                link: joint.child.link.clone(),
                first: robot.joints[first].name.clone(),
                second: joint.name.clone(),
            });
        }
        if parent == child {
            return Err(KinematicsError::UrdfCycle {
                links: vec![joint.child.link.clone()],
            });
        }
        parent_joint[child] = Some(j);
        parent_link[child] = Some(parent);
    }
    let roots: Vec<usize> = (0..n).filter(|&i| parent_joint[i].is_none()).collect();
    let sorted_names = |ids: &mut dyn Iterator<Item = usize>| {
        let mut names: Vec<String> = ids.map(|i| robot.links[i].name.clone()).collect();
        names.sort();
        names
    };
    if roots.is_empty() {
        return Err(KinematicsError::UrdfCycle {
            links: sorted_names(&mut (0..n)),
        });
    }
    // every non-root link has exactly one parent, so a link that cannot reach a root by
    // following parents lies on (or hangs below) a cycle
    let mut reaches_root: Vec<Option<bool>> = vec![None; n];
    for start in 0..n {
        let mut path = Vec::new();
        let mut cur = start;
        let verdict = loop {
            if let Some(v) = reaches_root[cur] {
                break v;
            }
            if path.len() > n {
                break false;
            }
            path.push(cur);
            match parent_link[cur] {
                None => break true,
                Some(p) => cur = p,
            }
        };
        for i in path {
            reaches_root[i] = Some(verdict);
        }
    }
    let stuck: Vec<usize> = (0..n).filter(|&i| reaches_root[i] != Some(true)).collect();
    if !stuck.is_empty() {
        return Err(KinematicsError::UrdfCycle {
            links: sorted_names(&mut stuck.into_iter()),
        });
    }
    if roots.len() > 1 {
        return invalid(format!(
            "the links form {} trees (roots {:?}); a URDF has exactly one root",
            roots.len(),
            sorted_names(&mut roots.into_iter())
        ));
    }
    let mut specs = Vec::with_capacity(n);
    for (i, link) in robot.links.iter().enumerate() {
        let spec = match parent_joint[i] {
            None => LinkSpec {
                name: link.name.clone(),
                parent: None,
                joint: Joint::Fixed,
                offset: DAffine3::IDENTITY,
            },
            Some(j) => {
                let joint = &robot.joints[j];
                let scan = scans.get(&joint.name);
                LinkSpec {
                    name: link.name.clone(),
                    parent: Some(joint.parent.link.clone()),
                    joint: joint_of(joint, scan)?,
                    offset: origin(&joint.origin, &format!("joint {:?}", joint.name))?,
                }
            }
        };
        specs.push(spec);
    }
    Ok((specs, parent_joint))
}

/// The [`Joint`] of a URDF joint.
fn joint_of(joint: &urdf_rs::Joint, scan: Option<&JointScan>) -> Result<Joint, KinematicsError> {
    use urdf_rs::JointType as T;
    let name = &joint.name;
    let axis = || {
        let a = finite3(joint.axis.xyz.0)
            .and_then(DVec3::try_normalize)
            .ok_or_else(|| {
                KinematicsError::InvalidUrdf(format!(
                    "joint {name:?} has a zero or non-finite axis {:?}",
                    joint.axis.xyz.0
                ))
            })?;
        Ok::<_, KinematicsError>(a)
    };
    let limits = || {
        if !scan.is_some_and(|s| s.has_limit) {
            return Err(KinematicsError::InvalidUrdf(format!(
                "joint {name:?} ({}) has no <limit>",
                scan.map_or("revolute or prismatic", |s| s.kind.as_str())
            )));
        }
        let (lower, upper) = (joint.limit.lower, joint.limit.upper);
        if lower.is_nan() || upper.is_nan() || lower > upper {
            return Err(KinematicsError::InvalidUrdf(format!(
                "joint {name:?} has invalid limits [{lower}, {upper}]"
            )));
        }
        Ok((lower.is_finite() && upper.is_finite()).then_some(Limits { lower, upper }))
    };
    Ok(match joint.joint_type {
        T::Fixed => Joint::Fixed,
        T::Revolute => Joint::Revolute {
            axis: axis()?,
            limits: limits()?,
        },
        T::Continuous => Joint::Revolute {
            axis: axis()?,
            limits: None,
        },
        T::Prismatic => Joint::Prismatic {
            axis: axis()?,
            limits: limits()?,
        },
        T::Floating => Joint::Floating,
        T::Spherical => Joint::Spherical,
        T::Planar => {
            return Err(KinematicsError::UnsupportedJointType {
                joint: name.clone(),
                kind: "planar".into(),
            });
        }
    })
}

/// A positive finite dimension, or an error naming it.
fn positive(value: f64, what: &str, link: &str) -> Result<f64, KinematicsError> {
    if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(KinematicsError::InvalidUrdf(format!(
            "a collision {what} of link {link:?} is {value} (must be positive and finite)"
        )))
    }
}

/// Where mesh files are looked up and which directories they must lie in.
struct MeshContext<'a> {
    base_dir: &'a Path,
    options: &'a UrdfOptions,
    /// Canonical allowed directories; `None` when confinement is off.
    roots: Option<&'a [PathBuf]>,
}

/// The canonical path of `path` when it exists and lies inside one of `roots`.
fn confined(path: &Path, roots: &[PathBuf]) -> Option<PathBuf> {
    let canonical = path.canonicalize().ok()?;
    roots
        .iter()
        .any(|r| canonical.starts_with(r))
        .then_some(canonical)
}

/// One `<collision>` element: its origin and geometry, with the mesh loaded or tessellated.
fn collision(
    link: &str,
    c: &urdf_rs::Collision,
    ctx: &MeshContext<'_>,
    cache: &mut HashMap<(PathBuf, [u64; 3]), Arc<TriMesh>>,
) -> Result<Collision, KinematicsError> {
    use urdf_rs::Geometry as G;
    let options = ctx.options;
    let origin = origin(&c.origin, &format!("a collision of link {link:?}"))?;
    let segments = options.primitive_segments.max(3);
    let tessellation_failed = || {
        KinematicsError::InvalidUrdf(format!(
            "a collision primitive of link {link:?} cannot be tessellated"
        ))
    };
    let (geometry, mesh) = match &c.geometry {
        G::Box { size } => {
            let size = DVec3::from_array(size.0);
            for s in size.to_array() {
                positive(s, "box size", link)?;
            }
            let mesh = shapes::box_mesh(size).ok_or_else(tessellation_failed)?;
            (CollisionGeometry::Box { size }, Arc::new(mesh))
        }
        G::Cylinder { radius, length } => {
            let (radius, length) = (
                positive(*radius, "cylinder radius", link)?,
                positive(*length, "cylinder length", link)?,
            );
            let mesh =
                shapes::cylinder_mesh(radius, length, segments).ok_or_else(tessellation_failed)?;
            (
                CollisionGeometry::Cylinder { radius, length },
                Arc::new(mesh),
            )
        }
        G::Capsule { radius, length } => {
            let radius = positive(*radius, "capsule radius", link)?;
            let length = if *length == 0.0 {
                0.0
            } else {
                positive(*length, "capsule length", link)?
            };
            let mesh =
                shapes::capsule_mesh(radius, length, segments).ok_or_else(tessellation_failed)?;
            (
                CollisionGeometry::Capsule { radius, length },
                Arc::new(mesh),
            )
        }
        G::Sphere { radius } => {
            let radius = positive(*radius, "sphere radius", link)?;
            let mesh = shapes::sphere_mesh(radius, segments).ok_or_else(tessellation_failed)?;
            (CollisionGeometry::Sphere { radius }, Arc::new(mesh))
        }
        G::Mesh { filename, scale } => {
            let scale = scale.map_or(DVec3::ONE, |s| DVec3::from_array(s.0));
            if !scale.is_finite() || scale.x * scale.y * scale.z == 0.0 {
                return Err(KinematicsError::InvalidUrdf(format!(
                    "collision mesh {filename:?} of link {link:?} has scale {scale} \
                     (components must be non-zero and finite)"
                )));
            }
            let path = options
                .resolve_uri(filename, ctx.base_dir)
                .map_err(|reason| KinematicsError::UnresolvedUri {
                    link: link.to_owned(),
                    uri: filename.clone(),
                    reason,
                })?;
            let path = match ctx.roots {
                None => path,
                Some(roots) => {
                    confined(&path, roots).ok_or_else(|| KinematicsError::MeshUnavailable {
                        link: link.to_owned(),
                        uri: filename.clone(),
                    })?
                }
            };
            let key = (path.clone(), scale.to_array().map(f64::to_bits));
            let mesh = match cache.get(&key) {
                Some(m) => Arc::clone(m),
                None => {
                    let m = Arc::new(load_mesh(link, filename, &path, scale)?);
                    cache.insert(key, Arc::clone(&m));
                    m
                }
            };
            (
                CollisionGeometry::Mesh {
                    uri: filename.clone(),
                    path,
                    scale,
                },
                mesh,
            )
        }
    };
    Ok(Collision {
        name: c.name.clone(),
        origin,
        geometry,
        mesh,
    })
}

/// Reads a collision mesh file and bakes in its scale.
fn load_mesh(link: &str, uri: &str, path: &Path, scale: DVec3) -> Result<TriMesh, KinematicsError> {
    if !path.is_file() {
        return Err(KinematicsError::MissingMesh {
            link: link.to_owned(),
            uri: uri.to_owned(),
            path: path.to_path_buf(),
        });
    }
    let load_error = |reason: String| KinematicsError::MeshLoad {
        link: link.to_owned(),
        path: path.to_path_buf(),
        reason,
    };
    let mesh = ccd_geometry::io::read_mesh(path).map_err(|e| load_error(e.to_string()))?;
    if scale == DVec3::ONE {
        return Ok(mesh);
    }
    shapes::scaled(&mesh, scale)
        .ok_or_else(|| load_error(format!("scaling by {scale} gives non-finite vertices")))
}
