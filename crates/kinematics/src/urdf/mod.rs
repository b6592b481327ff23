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
//!
//! [`Joint::Fixed`]: crate::Joint::Fixed
//! [`Joint::Floating`]: crate::Joint::Floating
//! [`Joint::Prismatic`]: crate::Joint::Prismatic
//! [`Joint::Revolute`]: crate::Joint::Revolute
//! [`Joint::Spherical`]: crate::Joint::Spherical
//! [`Limits`]: crate::Limits
//! [`LinkSpec::offset`]: crate::LinkSpec::offset

// This file holds the robot and collision types and the queries on a loaded robot; the
// submodules hold the loading: `load` (the entry points), `options` (`UrdfOptions`,
// `package://` URI resolution), `xml` (the `quick-xml` pre-pass and its errors, shared with
// `srdf`), `links` (links and joints into `LinkSpec`s), `geometry` (collision elements:
// primitives tessellated by `shapes`, mesh files resolved, confined and loaded) and
// `packages` (finding package folders).

mod geometry;
mod links;
mod load;
mod options;
mod packages;
mod shapes;
mod srdf;
mod xml;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ccd_geometry::TriMesh;
use glam::{DAffine3, DVec3};

use crate::{ArticulatedModel, KinematicsError, LinkId};

pub use options::{UrdfGeometry, UrdfOptions};
pub use srdf::{parse_srdf_disabled_pairs, read_srdf_disabled_pairs};

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

impl UrdfRobot {
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
