//! A planning scene, the shape MoveIt and Tesseract users know: robots (articulated bodies,
//! from URDF + SRDF with feature `urdf`), a static environment of named meshes and analytic
//! shapes with poses, objects attached to robot links (a grasped part moves with the hand),
//! allowed-collision overrides by link name at run time, and the queries a motion planner
//! asks: an edge ([`PlanningScene::check_edge`]), a piecewise-linear joint path
//! ([`PlanningScene::check_path`]), a batch of edges ([`PlanningScene::check_edges`]), and a
//! static pose ([`PlanningScene::in_collision`], [`PlanningScene::clearance`]).
//!
//! The scene keeps an [`ArticulatedScene`] assembled from its prepared parts: the environment is merged
//! into one world mesh and prepared once ([`PreparedEnvironment`]) per change of the
//! objects, each robot's body is rebuilt only when its attached objects or overrides
//! change. Queries take `&self` (the type is `Send + Sync`): threads query one scene at
//! once, each with a reusable workspace from a small pool; changes take `&mut self`.
//!
//! Conventions: joint vectors `q` concatenate the robots' joint vectors in the order they
//! were added (each in its model's order, [`PlanningScene::joint_names`]). Joint values must
//! be finite and within their limits (a 1e-9 slack): anything else is
//! [`PlanningError::InvalidJointValue`], never clamped. Parts are named by link name (or
//! `robot/link` when two robots share a link name), attached-object name or environment
//! object name. The contact tolerance `ε` ([`QueryOptions::tolerance`]) is the one of
//! every query: an edge or a path reports a contact when a pair comes within `ε`, and a
//! pose is [`in_collision`](PlanningScene::in_collision) when some pair is within `ε`.
//! Contacts are between surfaces (a link wholly inside a closed object without touching
//! its surface is not a contact, as everywhere in this crate).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use ccd_bvh::{BvhOptions, MeshBvh, Rss};
use ccd_ca_rigid::Contact;
use ccd_distance::{MeshDistanceError, MeshDistanceOptions, MeshDistanceStatus, mesh_distance};
use ccd_geometry::{Feature, TriMesh};
use ccd_kinematics::{Joint, LinkId};
use glam::{DAffine3, DVec3};

use crate::{
    ArticulatedBody, ArticulatedError, ArticulatedScene, ArticulatedWorkspace, BodyStep, Part,
    PreparedEnvironment, QueryOptions, QueryResult,
};

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

/// A shape of a planning scene object, in its own frame: boxes, spheres and cylinders (axis
/// z) centred on the origin, or a triangle mesh. Analytic shapes are tessellated into
/// closed meshes that *contain* them (every face at or outside the surface), so a contact
/// with the shape is never missed; the tessellation may report contacts up to the
/// tessellation's gap early (about `1 − cos(π / 32)` ≈ 0.5 % of the radius).
#[derive(Clone, Debug)]
pub enum ObjectShape {
    /// A box of full extents `size`, centred.
    Box {
        /// Full extents along x, y, z.
        size: DVec3,
    },
    /// A sphere of `radius`, centred.
    Sphere {
        /// The radius.
        radius: f64,
    },
    /// A cylinder of `radius` and `length` along z, centred.
    Cylinder {
        /// The radius.
        radius: f64,
        /// The length along z.
        length: f64,
    },
    /// A triangle mesh.
    Mesh(Arc<TriMesh>),
}

/// Segments around the tessellated spheres and cylinders.
const SEGMENTS: u32 = 32;

impl ObjectShape {
    /// The shape as a closed triangle mesh containing it (see [`ObjectShape`]).
    ///
    /// # Errors
    /// [`PlanningError::InvalidShape`] for a non-positive or non-finite size or a mesh
    /// without triangles (`name` names the object in the message).
    ///
    /// # Example
    /// ```
    /// use ccd_ca_articulated::planning::ObjectShape;
    /// use ccd_geometry::glam::DVec3;
    ///
    /// let ball = ObjectShape::Sphere { radius: 0.5 }.to_mesh("ball")?;
    /// // every face plane is at least the radius from the centre: the ball is inside
    /// assert!(ball.triangle_iter().all(|t| {
    ///     let n = (t.b - t.a).cross(t.c - t.a).normalize();
    ///     n.dot(t.a) >= 0.5
    /// }));
    /// assert!(ObjectShape::Sphere { radius: -1.0 }.to_mesh("ball").is_err());
    /// # Ok::<(), ccd_ca_articulated::planning::PlanningError>(())
    /// ```
    pub fn to_mesh(&self, name: &str) -> Result<TriMesh, PlanningError> {
        let bad = |reason: String| PlanningError::InvalidShape {
            name: name.into(),
            reason,
        };
        let positive = |v: f64, what: &str| {
            if v.is_finite() && v > 0.0 {
                Ok(v)
            } else {
                Err(bad(format!("{what} {v} is not a positive finite number")))
            }
        };
        match self {
            ObjectShape::Box { size } => {
                for v in size.to_array() {
                    positive(v, "box size")?;
                }
                TriMesh::cuboid(-0.5 * *size, 0.5 * *size).map_err(|e| bad(e.to_string()))
            }
            ObjectShape::Sphere { radius } => {
                let r = positive(*radius, "sphere radius")?;
                let bands = SEGMENTS / 2;
                let mut profile = Vec::with_capacity(bands as usize + 1);
                for k in 0..=bands {
                    let phi = -std::f64::consts::FRAC_PI_2
                        + std::f64::consts::PI * f64::from(k) / f64::from(bands);
                    let rho = if k == 0 || k == bands { 0.0 } else { phi.cos() };
                    profile.push((rho, phi.sin()));
                }
                let unit = lathe(&profile).map_err(|e| bad(e.to_string()))?;
                // grow the inscribed polyhedron until every face plane is at least 1 from
                // the centre (it is convex and holds the centre): it then holds the ball
                let closest = unit
                    .triangle_iter()
                    .map(|t| {
                        let n = (t.b - t.a).cross(t.c - t.a);
                        n.dot(t.a) / n.length()
                    })
                    .fold(f64::INFINITY, f64::min);
                if closest.is_nan() || closest <= 0.5 {
                    return Err(bad("tessellation failed".into()));
                }
                let s = r / closest * (1.0 + 1e-12);
                let v = unit.vertices().iter().map(|&p| p * s).collect();
                TriMesh::new(v, unit.triangles().to_vec()).map_err(|e| bad(e.to_string()))
            }
            ObjectShape::Cylinder { radius, length } => {
                let r = positive(*radius, "cylinder radius")?;
                let h = 0.5 * positive(*length, "cylinder length")?;
                // the polygon's edges at distance r from the axis: its vertices at r / cos(π/n)
                let rv = r / (std::f64::consts::PI / f64::from(SEGMENTS)).cos() * (1.0 + 1e-12);
                lathe(&[(0.0, -h), (rv, -h), (rv, h), (0.0, h)]).map_err(|e| bad(e.to_string()))
            }
            ObjectShape::Mesh(m) => {
                if m.triangle_count() == 0 {
                    Err(bad("the mesh has no triangles".into()))
                } else {
                    Ok((**m).clone())
                }
            }
        }
    }
}

/// A closed surface of revolution about z: `profile` lists `(radius, z)` from the bottom
/// pole (radius 0) to the top pole (radius 0), rings of [`SEGMENTS`] vertices in between.
fn lathe(profile: &[(f64, f64)]) -> Result<TriMesh, ccd_geometry::GeometryError> {
    let n = SEGMENTS;
    let rings = &profile[1..profile.len() - 1];
    let mut vertices = vec![DVec3::new(0.0, 0.0, profile[0].1)];
    for &(r, z) in rings {
        for j in 0..n {
            let a = std::f64::consts::TAU * f64::from(j) / f64::from(n);
            vertices.push(DVec3::new(r * a.cos(), r * a.sin(), z));
        }
    }
    let top = vertices.len() as u32;
    vertices.push(DVec3::new(0.0, 0.0, profile[profile.len() - 1].1));
    let ring = |i: usize, j: u32| 1 + i as u32 * n + j % n;
    let mut triangles = Vec::new();
    for j in 0..n {
        triangles.push([0, ring(0, j + 1), ring(0, j)]);
    }
    for i in 0..rings.len() - 1 {
        for j in 0..n {
            let (a, b) = (ring(i, j), ring(i, j + 1));
            let (c, d) = (ring(i + 1, j + 1), ring(i + 1, j));
            triangles.push([a, b, c]);
            triangles.push([a, c, d]);
        }
    }
    let last = rings.len() - 1;
    for j in 0..n {
        triangles.push([ring(last, j), ring(last, j + 1), top]);
    }
    TriMesh::new(vertices, triangles)
}

/// Whether `pose` is a finite rigid transform.
fn rigid_pose(pose: &DAffine3) -> bool {
    let r = pose.matrix3;
    pose.is_finite()
        && (r.transpose() * r).abs_diff_eq(glam::DMat3::IDENTITY, 1e-6)
        && (r.determinant() - 1.0).abs() <= 1e-6
}

/// A robot of the scene.
#[derive(Clone, Debug)]
struct Robot {
    name: String,
    /// As loaded (with its SRDF filter), without attachments or overrides.
    base: Arc<ArticulatedBody>,
    /// Per joint value, its name and limits.
    joints: Vec<(String, f64, f64)>,
    /// Allowed-collision overrides by link name (sorted pair → allowed).
    overrides: BTreeMap<(String, String), bool>,
}

/// A static object of the environment.
#[derive(Clone, Debug)]
struct Object {
    name: String,
    /// The object's triangles in world coordinates.
    mesh: TriMesh,
}

/// An object attached to a robot link.
#[derive(Clone, Debug)]
struct Attached {
    name: String,
    robot: usize,
    link: String,
    pose: DAffine3,
    mesh: Arc<MeshBvh<Rss>>,
    touch: Vec<String>,
}

/// A contact named by its parts.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct PlanningContact {
    /// The first part: a link or attached object.
    pub a: String,
    /// The second part: a link, attached object or environment object.
    pub b: String,
    /// Time, witnesses (world), normal, distance and status (features index the parts'
    /// meshes; an environment object's feature indexes the merged environment mesh).
    pub contact: Contact,
}

/// The first contact along a path.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct PathContact {
    /// The segment (`waypoints[segment] → waypoints[segment + 1]`).
    pub segment: usize,
    /// Its time of contact in the segment, `[0, 1]`.
    pub toc: f64,
    /// The contact.
    pub contact: PlanningContact,
}

/// The closest pair of a static pose.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Clearance {
    /// Their distance (0: touching or intersecting surfaces).
    pub distance: f64,
    /// The first part.
    pub a: String,
    /// The second part.
    pub b: String,
    /// The closest point on `a` (world).
    pub point_a: DVec3,
    /// The closest point on `b` (world).
    pub point_b: DVec3,
}

/// A planning scene: robots, a static environment of objects, attached objects and
/// allowed-collision overrides, queried from any number of threads (see the
/// [module docs](self)).
///
/// # Example
/// ```
/// use std::sync::Arc;
/// use ccd_ca_articulated::planning::{PlanningScene, ObjectShape};
/// use ccd_ca_articulated::{ArticulatedBody, QueryOptions};
/// use ccd_kinematics::{ArticulatedModel, Joint, LinkSpec, Limits};
/// use ccd_geometry::{glam::{DAffine3, DVec3}, TriMesh};
///
/// // a one-joint arm: a 2 m bar turning about z
/// let model = ArticulatedModel::new(vec![LinkSpec {
///     name: "bar".into(),
///     parent: None,
///     joint: Joint::Revolute { axis: DVec3::Z, limits: Some(Limits { lower: -3.0, upper: 3.0 }) },
///     offset: DAffine3::IDENTITY,
/// }])?;
/// let bar = TriMesh::cuboid(DVec3::new(0.2, -0.05, -0.05), DVec3::new(2.0, 0.05, 0.05))?;
/// let mut scene = PlanningScene::new();
/// scene.add_robot("arm", ArticulatedBody::from_meshes(model, vec![Some(bar)])?)?;
/// scene.add_object("post", ObjectShape::Cylinder { radius: 0.1, length: 1.0 }, DAffine3::from_translation(DVec3::new(0.0, 1.5, 0.0)))?;
/// let opts = QueryOptions::default();
/// assert!(scene.check_edge(&[0.0], &[0.5], &opts)?.is_none());
/// let hit = scene.check_edge(&[0.0], &[2.0], &opts)?.expect("the bar sweeps into the post");
/// assert_eq!((hit.a.as_str(), hit.b.as_str()), ("bar", "post"));
/// let path = scene.check_path(&[vec![0.0], vec![0.5], vec![2.0]], &opts)?.expect("second segment");
/// assert_eq!(path.segment, 1);
/// assert!(!scene.in_collision(&[0.0], &opts)?);
/// // the bar's corner (0.2, 0.05) is 1.4637 from the post's axis (0, 1.5), radius 0.1
/// assert!((scene.clearance(&[0.0])?.unwrap().distance - 1.3637).abs() < 1e-3);
/// assert!(scene.check_edge(&[0.0], &[f64::NAN], &opts).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Default)]
pub struct PlanningScene {
    robots: Vec<Robot>,
    objects: Vec<Object>,
    attached: Vec<Attached>,
    /// The scene of the robots' current bodies and the prepared environment.
    scene: ArticulatedScene,
    /// Per robot, the display name of each link of its current body (model order).
    names: Vec<Vec<String>>,
    /// Per environment object, its first vertex and first triangle in the merged mesh.
    ranges: Vec<(u32, u32)>,
    /// Workspaces of finished queries, reused by the next ones.
    pool: Mutex<Vec<ArticulatedWorkspace>>,
}

impl Clone for PlanningScene {
    fn clone(&self) -> Self {
        Self {
            robots: self.robots.clone(),
            objects: self.objects.clone(),
            attached: self.attached.clone(),
            scene: self.scene.clone(),
            names: self.names.clone(),
            ranges: self.ranges.clone(),
            pool: Mutex::new(Vec::new()),
        }
    }
}

impl PlanningScene {
    /// An empty scene.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a robot (its self-collision filter as given, e.g. from an SRDF) named `name`.
    /// Its joint values follow those of the robots added before.
    ///
    /// # Errors
    /// [`PlanningError::DuplicateName`] when a robot or object has that name.
    ///
    /// # Example
    /// See [`PlanningScene`].
    pub fn add_robot(
        &mut self,
        name: &str,
        body: impl Into<Arc<ArticulatedBody>>,
    ) -> Result<(), PlanningError> {
        self.add_named_robot(name, body.into(), None)
    }

    /// Loads a robot from a URDF (and SRDF): see [`ArticulatedBody::from_urdf`]. Named by
    /// its `<robot name>` unless `name` is given; its joints keep their URDF names.
    ///
    /// # Errors
    /// The errors of [`ArticulatedBody::from_urdf`] as [`PlanningError::Articulated`];
    /// [`PlanningError::DuplicateName`].
    ///
    /// # Example
    /// ```
    /// use ccd_ca_articulated::planning::PlanningScene;
    /// use ccd_kinematics::urdf::UrdfOptions;
    ///
    /// let dir = std::env::temp_dir().join(format!("ccd-planning-doc-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir).unwrap();
    /// std::fs::write(dir.join("arm.urdf"), r#"<robot name="arm">
    ///   <link name="base"><collision><geometry><box size="0.2 0.2 0.2"/></geometry></collision></link>
    ///   <link name="upper"><collision><origin xyz="0 0 0.5"/><geometry><box size="0.1 0.1 1"/></geometry></collision></link>
    ///   <joint name="shoulder" type="revolute"><origin xyz="0 0 0.1"/><parent link="base"/><child link="upper"/>
    ///     <axis xyz="0 1 0"/><limit lower="-2" upper="2" effort="1" velocity="1"/></joint>
    /// </robot>"#).unwrap();
    /// let mut scene = PlanningScene::new();
    /// let loaded = scene.load_robot(dir.join("arm.urdf"), None, &UrdfOptions::default(), None);
    /// std::fs::remove_dir_all(&dir).ok();
    /// loaded?;
    /// assert_eq!(scene.joint_names(), vec!["shoulder".to_string()]);
    /// assert!(scene.check_edge(&[0.0], &[2.5], &Default::default()).is_err()); // beyond the limit
    /// # Ok::<(), ccd_ca_articulated::planning::PlanningError>(())
    /// ```
    #[cfg(feature = "urdf")]
    #[cfg_attr(docsrs, doc(cfg(feature = "urdf")))]
    pub fn load_robot(
        &mut self,
        urdf: impl AsRef<std::path::Path>,
        srdf: Option<&std::path::Path>,
        options: &ccd_kinematics::urdf::UrdfOptions,
        name: Option<&str>,
    ) -> Result<(), PlanningError> {
        let (body, robot) = ArticulatedBody::from_urdf(urdf, srdf, options)?;
        let joint_names: Vec<Option<String>> = robot.joint_names.clone();
        let name = name.map_or(robot.name.clone(), str::to_owned);
        self.add_named_robot(&name, Arc::new(body), Some(&joint_names))
    }

    fn add_named_robot(
        &mut self,
        name: &str,
        body: Arc<ArticulatedBody>,
        joint_names: Option<&[Option<String>]>,
    ) -> Result<(), PlanningError> {
        if self.robots.iter().any(|r| r.name == name) || self.object_taken(name) {
            return Err(PlanningError::DuplicateName(name.into()));
        }
        let model = body.model();
        let mut joints = Vec::with_capacity(model.dof());
        for (i, l) in model.links().iter().enumerate() {
            let base = joint_names
                .and_then(|n| n.get(i).cloned().flatten())
                .unwrap_or_else(|| l.name.clone());
            let (lo, hi) = match l.joint {
                Joint::Revolute {
                    limits: Some(lim), ..
                }
                | Joint::Prismatic {
                    limits: Some(lim), ..
                } => (lim.lower, lim.upper),
                _ => (f64::NEG_INFINITY, f64::INFINITY),
            };
            let k = l.joint.dof();
            for d in 0..k {
                let n = if k == 1 {
                    base.clone()
                } else {
                    format!("{base}[{d}]")
                };
                joints.push((l.first_dof + d, (n, lo, hi)));
            }
        }
        joints.sort_by_key(|j| j.0);
        self.robots.push(Robot {
            name: name.into(),
            base: body,
            joints: joints.into_iter().map(|j| j.1).collect(),
            overrides: BTreeMap::new(),
        });
        self.rebuild_robots()
    }

    /// Whether an environment or attached object is named `name`.
    fn object_taken(&self, name: &str) -> bool {
        self.objects.iter().any(|o| o.name == name) || self.attached.iter().any(|a| a.name == name)
    }

    /// Adds a static object `shape` placed by `pose` (world frame).
    ///
    /// # Errors
    /// [`PlanningError::DuplicateName`] (a robot, link or object has that name),
    /// [`PlanningError::InvalidShape`], [`PlanningError::InvalidPose`].
    ///
    /// # Example
    /// See [`PlanningScene`].
    pub fn add_object(
        &mut self,
        name: &str,
        shape: ObjectShape,
        pose: DAffine3,
    ) -> Result<(), PlanningError> {
        if self.object_taken(name)
            || self.robots.iter().any(|r| r.name == name)
            || self.is_link(name)
        {
            return Err(PlanningError::DuplicateName(name.into()));
        }
        if !rigid_pose(&pose) {
            return Err(PlanningError::InvalidPose(name.into()));
        }
        let local = shape.to_mesh(name)?;
        let v = local
            .vertices()
            .iter()
            .map(|&p| pose.transform_point3(p))
            .collect();
        let mesh = TriMesh::new(v, local.triangles().to_vec()).map_err(|e| {
            PlanningError::InvalidShape {
                name: name.into(),
                reason: e.to_string(),
            }
        })?;
        self.objects.push(Object {
            name: name.into(),
            mesh,
        });
        self.rebuild_environment()
    }

    /// Removes the static object `name`.
    ///
    /// # Errors
    /// [`PlanningError::UnknownName`] when there is none.
    ///
    /// # Example
    /// ```
    /// use ccd_ca_articulated::planning::{PlanningScene, ObjectShape};
    /// use ccd_geometry::glam::{DAffine3, DVec3};
    ///
    /// let mut scene = PlanningScene::new();
    /// scene.add_object("box", ObjectShape::Box { size: DVec3::ONE }, DAffine3::IDENTITY)?;
    /// scene.remove_object("box")?;
    /// assert!(scene.remove_object("box").is_err());
    /// # Ok::<(), ccd_ca_articulated::planning::PlanningError>(())
    /// ```
    pub fn remove_object(&mut self, name: &str) -> Result<(), PlanningError> {
        let Some(i) = self.objects.iter().position(|o| o.name == name) else {
            return Err(PlanningError::UnknownName {
                what: "name",
                name: name.into(),
                expected: "an environment object",
            });
        };
        self.objects.remove(i);
        self.rebuild_environment()
    }

    /// Attaches `shape` to robot link `link` (placed by `pose` in the link's frame): it
    /// moves with the link, collides with the environment, other robots and the robot's
    /// links except its link, the links rigidly attached to it and `touch_links` (e.g. the
    /// fingers holding it). It is named `name` in contacts and overrides.
    ///
    /// # Errors
    /// [`PlanningError::DuplicateName`], [`PlanningError::UnknownName`] (link or touch
    /// link), [`PlanningError::AmbiguousName`], [`PlanningError::InvalidShape`],
    /// [`PlanningError::InvalidPose`].
    ///
    /// # Example
    /// ```
    /// use std::sync::Arc;
    /// use ccd_ca_articulated::planning::{PlanningScene, ObjectShape};
    /// use ccd_ca_articulated::{ArticulatedBody, QueryOptions};
    /// use ccd_kinematics::{ArticulatedModel, Joint, LinkSpec};
    /// use ccd_geometry::{glam::{DAffine3, DVec3}, TriMesh};
    ///
    /// let model = ArticulatedModel::new(vec![LinkSpec { name: "bar".into(), parent: None, joint: Joint::Revolute { axis: DVec3::Z, limits: None }, offset: DAffine3::IDENTITY }])?;
    /// let bar = TriMesh::cuboid(DVec3::new(0.2, -0.05, -0.05), DVec3::new(1.0, 0.05, 0.05))?;
    /// let mut scene = PlanningScene::new();
    /// scene.add_robot("arm", ArticulatedBody::from_meshes(model, vec![Some(bar)])?)?;
    /// scene.add_object("post", ObjectShape::Box { size: DVec3::splat(0.2) }, DAffine3::from_translation(DVec3::new(0.0, 1.5, 0.0)))?;
    /// let opts = QueryOptions::default();
    /// assert!(scene.check_edge(&[0.0], &[2.0], &opts)?.is_none()); // the bar is too short
    /// // a grasped rod at the bar's end reaches the post
    /// scene.attach_object("rod", "bar", ObjectShape::Box { size: DVec3::new(1.0, 0.05, 0.05) }, DAffine3::from_translation(DVec3::new(1.4, 0.0, 0.0)), &[])?;
    /// let hit = scene.check_edge(&[0.0], &[2.0], &opts)?.expect("the rod hits the post");
    /// assert_eq!((hit.a.as_str(), hit.b.as_str()), ("rod", "post"));
    /// scene.detach_object("rod")?;
    /// assert!(scene.check_edge(&[0.0], &[2.0], &opts)?.is_none());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn attach_object(
        &mut self,
        name: &str,
        link: &str,
        shape: ObjectShape,
        pose: DAffine3,
        touch_links: &[&str],
    ) -> Result<(), PlanningError> {
        if self.object_taken(name)
            || self.robots.iter().any(|r| r.name == name)
            || self.is_link(name)
        {
            return Err(PlanningError::DuplicateName(name.into()));
        }
        if !rigid_pose(&pose) {
            return Err(PlanningError::InvalidPose(name.into()));
        }
        let (robot, id) = self.resolve("link", link, false)?;
        let link_name = self.link_name(robot, id);
        let mut touch = Vec::with_capacity(touch_links.len());
        for t in touch_links {
            let (r, tid) = self.resolve("touch_links", t, true)?;
            if r != robot {
                return Err(PlanningError::CrossRobotPair {
                    a: name.into(),
                    b: (*t).into(),
                });
            }
            touch.push(self.link_name(r, tid));
        }
        let mesh = shape.to_mesh(name)?;
        let tree = MeshBvh::<Rss>::new(mesh, &BvhOptions::default()).map_err(|e| {
            PlanningError::InvalidShape {
                name: name.into(),
                reason: e.to_string(),
            }
        })?;
        self.attached.push(Attached {
            name: name.into(),
            robot,
            link: link_name,
            pose,
            mesh: Arc::new(tree),
            touch,
        });
        let r = self.rebuild_robots();
        if r.is_err() {
            self.attached.pop();
            self.rebuild_robots()?;
        }
        r
    }

    /// Detaches (and removes) the attached object `name`.
    ///
    /// # Errors
    /// [`PlanningError::UnknownName`] when no object of that name is attached.
    ///
    /// # Example
    /// See [`PlanningScene::attach_object`].
    pub fn detach_object(&mut self, name: &str) -> Result<(), PlanningError> {
        let Some(i) = self.attached.iter().position(|a| a.name == name) else {
            return Err(PlanningError::UnknownName {
                what: "name",
                name: name.into(),
                expected: "an attached object",
            });
        };
        self.attached.remove(i);
        // overrides naming it go with it
        for r in &mut self.robots {
            r.overrides.retain(|(a, b), _| a != name && b != name);
        }
        self.rebuild_robots()
    }

    /// Allows (`allowed = true`: never tested) or forbids (`false`: always tested, even
    /// when the SRDF or adjacency excluded it) contact between two links or attached
    /// objects of one robot, overriding the robot's filter until changed again.
    ///
    /// # Errors
    /// [`PlanningError::UnknownName`], [`PlanningError::AmbiguousName`],
    /// [`PlanningError::CrossRobotPair`].
    ///
    /// # Example
    /// ```
    /// use ccd_ca_articulated::planning::PlanningScene;
    /// use ccd_ca_articulated::{ArticulatedBody, QueryOptions};
    /// use ccd_kinematics::{ArticulatedModel, Joint, LinkSpec};
    /// use ccd_geometry::{glam::{DAffine3, DVec3}, TriMesh};
    ///
    /// let hinge = Joint::Revolute { axis: DVec3::Z, limits: None };
    /// let link = |name: &str, parent: Option<&str>| LinkSpec { name: name.into(), parent: parent.map(Into::into), joint: hinge, offset: DAffine3::from_translation(if parent.is_some() { DVec3::X } else { DVec3::ZERO }) };
    /// let model = ArticulatedModel::new(vec![link("l0", None), link("l1", Some("l0")), link("l2", Some("l1"))])?;
    /// let rod = TriMesh::cuboid(DVec3::new(0.1, -0.05, -0.05), DVec3::new(0.9, 0.05, 0.05))?;
    /// let mut scene = PlanningScene::new();
    /// scene.add_robot("arm", ArticulatedBody::from_meshes(model, vec![Some(rod.clone()), Some(rod.clone()), Some(rod)])?)?;
    /// let opts = QueryOptions::default();
    /// assert!(scene.check_edge(&[0.0, 0.0, 0.0], &[0.0, 2.6, 2.6], &opts)?.is_some()); // folds into itself
    /// scene.set_allowed("l0", "l2", true)?;
    /// assert!(scene.check_edge(&[0.0, 0.0, 0.0], &[0.0, 2.6, 2.6], &opts)?.is_none());
    /// assert!(scene.set_allowed("l0", "nope", true).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set_allowed(
        &mut self,
        link_a: &str,
        link_b: &str,
        allowed: bool,
    ) -> Result<(), PlanningError> {
        let (a, b) = (link_a, link_b);
        let (ra, ia) = self.resolve("link_a", a, true)?;
        let (rb, ib) = self.resolve("link_b", b, true)?;
        if ra != rb {
            return Err(PlanningError::CrossRobotPair {
                a: a.into(),
                b: b.into(),
            });
        }
        let (na, nb) = (self.link_name(ra, ia), self.link_name(rb, ib));
        let key = if na <= nb { (na, nb) } else { (nb, na) };
        self.robots[ra].overrides.insert(key, allowed);
        self.rebuild_robots()
    }

    /// The names of the joint values, in the order of `q` (robots in the order added).
    #[must_use]
    pub fn joint_names(&self) -> Vec<String> {
        self.robots
            .iter()
            .flat_map(|r| r.joints.iter().map(|j| j.0.clone()))
            .collect()
    }

    /// The number of joint values.
    #[must_use]
    pub fn dof(&self) -> usize {
        self.robots.iter().map(|r| r.joints.len()).sum()
    }

    /// The names of the parts that can be in a contact: robot links with geometry and
    /// attached objects (as contacts name them), then environment objects.
    #[must_use]
    pub fn part_names(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (b, body) in self.scene.bodies().iter().enumerate() {
            for (id, _) in body.shapes() {
                out.push(self.names[b][id.index()].clone());
            }
        }
        out.extend(self.objects.iter().map(|o| o.name.clone()));
        out
    }

    /// The underlying [`ArticulatedScene`] (the robots' current bodies, the prepared environment).
    #[must_use]
    pub fn scene(&self) -> &ArticulatedScene {
        &self.scene
    }

    /// Whether `name` is a link of some robot's current body.
    fn is_link(&self, name: &str) -> bool {
        self.scene
            .bodies()
            .iter()
            .any(|b| b.model().link_id(name).is_some())
    }

    /// The robot and link (in its current body) named `name` (`robot/link` or a link name
    /// unique among the robots; attached objects are links).
    fn resolve(
        &self,
        what: &'static str,
        name: &str,
        attached_too: bool,
    ) -> Result<(usize, LinkId), PlanningError> {
        let unknown = || PlanningError::UnknownName {
            what,
            name: name.into(),
            expected: if attached_too {
                "a robot link or attached object"
            } else {
                "a robot link"
            },
        };
        let bodies = self.scene.bodies();
        let is_attached = |n: &str| self.attached.iter().any(|a| a.name == n);
        if let Some((robot, link)) = name.split_once('/')
            && let Some(r) = self.robots.iter().position(|r| r.name == robot)
            && let Some(id) = bodies.get(r).and_then(|b| b.model().link_id(link))
            && (attached_too || !is_attached(link))
        {
            return Ok((r, id));
        }
        if !attached_too && is_attached(name) {
            return Err(unknown());
        }
        let found: Vec<(usize, LinkId)> = bodies
            .iter()
            .enumerate()
            .filter_map(|(r, b)| b.model().link_id(name).map(|id| (r, id)))
            .collect();
        match found.as_slice() {
            [] => Err(unknown()),
            [one] => Ok(*one),
            _ => Err(PlanningError::AmbiguousName {
                name: name.into(),
                robots: found
                    .iter()
                    .map(|&(r, _)| self.robots[r].name.clone())
                    .collect(),
            }),
        }
    }

    /// The model name of link `id` of robot `r`'s current body.
    fn link_name(&self, r: usize, id: LinkId) -> String {
        self.scene.bodies()[r].model().links()[id.index()]
            .name
            .clone()
    }

    /// Rebuilds every robot's current body (attachments, then overrides) and the scene.
    fn rebuild_robots(&mut self) -> Result<(), PlanningError> {
        let mut bodies = Vec::with_capacity(self.robots.len());
        for (r, robot) in self.robots.iter().enumerate() {
            let extra: Vec<_> = self
                .attached
                .iter()
                .filter(|a| a.robot == r)
                .map(|a| (a.name.clone(), a.link.clone(), a.pose, Arc::clone(&a.mesh)))
                .collect();
            if extra.is_empty() && robot.overrides.is_empty() {
                bodies.push(Arc::clone(&robot.base));
                continue;
            }
            let mut body = if extra.is_empty() {
                (*robot.base).clone()
            } else {
                robot.base.with_fixed_links(extra)?
            };
            let id = |body: &ArticulatedBody, n: &str| {
                body.model()
                    .link_id(n)
                    .ok_or_else(|| PlanningError::UnknownName {
                        what: "name",
                        name: n.into(),
                        expected: "a robot link or attached object",
                    })
            };
            for a in self.attached.iter().filter(|a| a.robot == r) {
                let obj = id(&body, &a.name)?;
                for t in &a.touch {
                    let t = id(&body, t)?;
                    body.disable_pair(obj, t)?;
                }
            }
            for ((a, b), &allowed) in &robot.overrides {
                let (a, b) = (id(&body, a)?, id(&body, b)?);
                if allowed {
                    body.disable_pair(a, b)?;
                } else {
                    body.enable_pair(a, b)?;
                }
            }
            bodies.push(Arc::new(body));
        }
        // display names: a link name unique among the robots, else robot/link
        let mut count: BTreeMap<&str, usize> = BTreeMap::new();
        for b in &bodies {
            for l in b.model().links() {
                *count.entry(l.name.as_str()).or_default() += 1;
            }
        }
        let names = bodies
            .iter()
            .zip(&self.robots)
            .map(|(b, r)| {
                b.model()
                    .links()
                    .iter()
                    .map(|l| {
                        if count.get(l.name.as_str()) == Some(&1) {
                            l.name.clone()
                        } else {
                            format!("{}/{}", r.name, l.name)
                        }
                    })
                    .collect()
            })
            .collect();
        let mut scene = ArticulatedScene::new();
        for b in bodies {
            scene.add_articulated(b);
        }
        if let Some(env) = self.scene.prepared_environment() {
            scene.set_prepared_environment(Arc::clone(env));
        }
        self.scene = scene;
        self.names = names;
        Ok(())
    }

    /// Merges the objects into one world mesh, prepares it and sets it on the scene.
    fn rebuild_environment(&mut self) -> Result<(), PlanningError> {
        let mut vertices = Vec::new();
        let mut triangles = Vec::new();
        let mut ranges = Vec::with_capacity(self.objects.len());
        for o in &self.objects {
            let base = vertices.len() as u32;
            ranges.push((base, triangles.len() as u32));
            vertices.extend_from_slice(o.mesh.vertices());
            triangles.extend(o.mesh.triangles().iter().map(|t| t.map(|v| v + base)));
        }
        let mut scene = ArticulatedScene::new();
        for b in self.scene.bodies() {
            scene.add_articulated(Arc::clone(b));
        }
        if !triangles.is_empty() {
            let bad = |e: String| PlanningError::InvalidShape {
                name: "environment".into(),
                reason: e,
            };
            let mesh = TriMesh::new(vertices, triangles).map_err(|e| bad(e.to_string()))?;
            let tree = MeshBvh::<Rss>::new(mesh, &BvhOptions::default())
                .map_err(|e| bad(e.to_string()))?;
            scene.set_prepared_environment(Arc::new(PreparedEnvironment::new(Arc::new(tree))));
        }
        self.scene = scene;
        self.ranges = ranges;
        Ok(())
    }

    /// The display name of a part.
    fn part_name(&self, p: Part, feature: Feature) -> String {
        match p {
            Part::Link { body, link } => self
                .names
                .get(body)
                .and_then(|n| n.get(link.index()))
                .cloned()
                .unwrap_or_else(|| format!("link {}", link.index())),
            Part::Rigid(i) => format!("rigid {i}"),
            Part::Environment => self.object_of(feature),
        }
    }

    /// The environment object holding a feature of the merged environment mesh.
    fn object_of(&self, feature: Feature) -> String {
        let k = match feature {
            Feature::Vertex(v) | Feature::Edge(v, _) => {
                self.ranges.partition_point(|&(first, _)| first <= v)
            }
            Feature::Face(t) => self.ranges.partition_point(|&(_, first)| first <= t),
        };
        k.checked_sub(1)
            .and_then(|k| self.objects.get(k))
            .map_or_else(|| "environment".into(), |o| o.name.clone())
    }

    /// Checks a joint vector's width and values as every query does, naming it `which`
    /// in the error (a binding checks its rows under its own argument names first).
    ///
    /// # Errors
    /// [`PlanningError::NoRobot`], [`PlanningError::JointCount`],
    /// [`PlanningError::InvalidJointValue`].
    ///
    /// # Example
    /// ```
    /// use ccd_ca_articulated::planning::{PlanningError, PlanningScene};
    /// assert_eq!(PlanningScene::new().validate(&[0.0], "q"), Err(PlanningError::NoRobot));
    /// ```
    pub fn validate(&self, q: &[f64], which: &str) -> Result<(), PlanningError> {
        self.check_q(q, &|| which.to_owned())
    }

    /// Checks a joint vector's width and values (`which` names it in errors).
    fn check_q(&self, q: &[f64], which: &dyn Fn() -> String) -> Result<(), PlanningError> {
        if self.robots.is_empty() {
            return Err(PlanningError::NoRobot);
        }
        let joints = self.robots.iter().flat_map(|r| r.joints.iter());
        if q.len() != self.dof() {
            return Err(PlanningError::JointCount {
                which: which(),
                expected: self.dof(),
                got: q.len(),
            });
        }
        for (index, (&value, (joint, lower, upper))) in q.iter().zip(joints).enumerate() {
            if !value.is_finite() || value < lower - 1e-9 || value > upper + 1e-9 {
                return Err(PlanningError::InvalidJointValue {
                    which: which(),
                    index,
                    joint: joint.clone(),
                    value,
                    lower: *lower,
                    upper: *upper,
                });
            }
        }
        Ok(())
    }

    /// Runs one query with a pooled workspace.
    fn run(
        &self,
        q0: &[f64],
        q1: &[f64],
        opts: &QueryOptions,
    ) -> Result<QueryResult, PlanningError> {
        let mut steps = Vec::with_capacity(self.robots.len());
        let mut at = 0;
        for r in &self.robots {
            let n = r.joints.len();
            steps.push(BodyStep::Joints {
                q0: &q0[at..at + n],
                q1: &q1[at..at + n],
            });
            at += n;
        }
        let mut ws = self
            .pool
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop()
            .unwrap_or_default();
        let mut out = QueryResult::default();
        let r = self.scene.query_with(&steps, opts, &mut ws, &mut out);
        self.pool
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(ws);
        r?;
        Ok(out)
    }

    fn named(&self, result: &QueryResult) -> Option<PlanningContact> {
        result.first().map(|c| PlanningContact {
            a: self.part_name(c.a, c.contact.feature_a),
            b: self.part_name(c.b, c.contact.feature_b),
            contact: c.contact,
        })
    }

    /// Checks the edge `q0 → q1` (every joint at constant velocity): `None` when it is
    /// collision-free, else the first contact ([`Mode::Toc`](crate::Mode::Toc)) or any
    /// certain one ([`Mode::Boolean`](crate::Mode::Boolean)) with its parts' names.
    ///
    /// # Errors
    /// [`PlanningError::NoRobot`], [`PlanningError::JointCount`],
    /// [`PlanningError::InvalidJointValue`] (NaN or outside the limits: not clamped),
    /// [`PlanningError::Articulated`] for invalid options.
    ///
    /// # Example
    /// See [`PlanningScene`].
    pub fn check_edge(
        &self,
        q0: &[f64],
        q1: &[f64],
        opts: &QueryOptions,
    ) -> Result<Option<PlanningContact>, PlanningError> {
        self.check_q(q0, &|| "q0".into())?;
        self.check_q(q1, &|| "q1".into())?;
        let result = self.run(q0, q1, opts)?;
        Ok(self.named(&result))
    }

    /// Checks a piecewise-linear joint path (`waypoints[i] → waypoints[i + 1]`, each a
    /// [`PlanningScene::check_edge`]) segment by segment: `None` when it is free, else the
    /// first segment in contact with its time of contact (the first one in
    /// [`Mode::Toc`](crate::Mode::Toc); with [`Mode::Boolean`](crate::Mode::Boolean) a
    /// time in contact of that segment).
    ///
    /// # Errors
    /// [`PlanningError::TooFewWaypoints`], and those of [`PlanningScene::check_edge`]
    /// naming the waypoint (`waypoints[i]`); every waypoint is checked before any segment.
    ///
    /// # Example
    /// See [`PlanningScene`].
    pub fn check_path<Q: AsRef<[f64]>>(
        &self,
        waypoints: &[Q],
        opts: &QueryOptions,
    ) -> Result<Option<PathContact>, PlanningError> {
        if waypoints.len() < 2 {
            return Err(PlanningError::TooFewWaypoints(waypoints.len()));
        }
        for (i, w) in waypoints.iter().enumerate() {
            self.check_q(w.as_ref(), &|| format!("waypoints[{i}]"))?;
        }
        for (segment, w) in waypoints.windows(2).enumerate() {
            let result = self.run(w[0].as_ref(), w[1].as_ref(), opts)?;
            if let Some(contact) = self.named(&result) {
                return Ok(Some(PathContact {
                    segment,
                    toc: contact.contact.toc,
                    contact,
                }));
            }
        }
        Ok(None)
    }

    /// A batch of independent edges `(q0, q1)`, each answered as by
    /// [`PlanningScene::check_edge`] (with feature `parallel` on all cores), in the order
    /// of `edges`; a bad edge gets its own error (naming `edges[i].q0` or `edges[i].q1`).
    ///
    /// # Example
    /// ```
    /// use ccd_ca_articulated::planning::{PlanningScene, ObjectShape};
    /// use ccd_ca_articulated::{ArticulatedBody, QueryOptions};
    /// use ccd_kinematics::{ArticulatedModel, Joint, LinkSpec};
    /// use ccd_geometry::{glam::{DAffine3, DVec3}, TriMesh};
    ///
    /// let model = ArticulatedModel::new(vec![LinkSpec { name: "bar".into(), parent: None, joint: Joint::Revolute { axis: DVec3::Z, limits: None }, offset: DAffine3::IDENTITY }])?;
    /// let bar = TriMesh::cuboid(DVec3::new(0.2, -0.05, -0.05), DVec3::new(2.0, 0.05, 0.05))?;
    /// let mut scene = PlanningScene::new();
    /// scene.add_robot("arm", ArticulatedBody::from_meshes(model, vec![Some(bar)])?)?;
    /// scene.add_object("post", ObjectShape::Sphere { radius: 0.1 }, DAffine3::from_translation(DVec3::new(0.0, 1.5, 0.0)))?;
    /// let edges = vec![(vec![0.0], vec![0.5]), (vec![0.0], vec![2.0]), (vec![0.0], vec![f64::NAN])];
    /// let answers = scene.check_edges(&edges, &QueryOptions::default());
    /// assert!(answers[0].as_ref().unwrap().is_none());
    /// assert_eq!(answers[1].as_ref().unwrap().as_ref().unwrap().b, "post");
    /// assert!(answers[2].is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn check_edges(
        &self,
        edges: &[(Vec<f64>, Vec<f64>)],
        opts: &QueryOptions,
    ) -> Vec<Result<Option<PlanningContact>, PlanningError>> {
        let one = |(i, (q0, q1)): (usize, &(Vec<f64>, Vec<f64>))| -> Result<Option<PlanningContact>, PlanningError> {
            self.check_q(q0, &|| format!("edges[{i}].q0"))?;
            self.check_q(q1, &|| format!("edges[{i}].q1"))?;
            let result = self.run(q0, q1, opts)?;
            Ok(self.named(&result))
        };
        #[cfg(feature = "parallel")]
        {
            use rayon::prelude::*;
            edges.par_iter().enumerate().map(one).collect()
        }
        #[cfg(not(feature = "parallel"))]
        {
            edges.iter().enumerate().map(one).collect()
        }
    }

    /// The world transforms of every body's links at `q`.
    fn worlds(&self, q: &[f64]) -> Result<Vec<Vec<DAffine3>>, PlanningError> {
        let mut out = Vec::with_capacity(self.robots.len());
        let mut at = 0;
        for (b, body) in self.scene.bodies().iter().enumerate() {
            let model = body.model();
            let n = model.dof();
            let pose = model
                .pose_from_joints(&q[at..at + n])
                .and_then(|p| p.world_transforms(model))
                .map_err(|source| ArticulatedError::Motion { body: b, source })?;
            out.push(pose);
            at += n;
        }
        Ok(out)
    }

    /// The closest pair at `q` among the pairs the queries test (self pairs after the
    /// filter and overrides, pairs of different robots, each link and attached object
    /// against the environment), each pair's search cut at the best distance so far;
    /// `stop_below`: stop at the first pair closer than it. `None` without pairs.
    fn closest(
        &self,
        q: &[f64],
        stop_below: Option<f64>,
    ) -> Result<Option<Clearance>, PlanningError> {
        self.check_q(q, &|| "q".into())?;
        let worlds = self.worlds(q)?;
        let bodies = self.scene.bodies();
        let mut parts = Vec::new();
        for (b, body) in bodies.iter().enumerate() {
            for (id, shape) in body.shapes() {
                parts.push((b, id, shape.body().mesh_bvh(), worlds[b][id.index()]));
            }
        }
        let env = self.scene.prepared_environment();
        let mut best: Option<Clearance> = None;
        let mut cut = f64::INFINITY;
        let mut opts = MeshDistanceOptions::default();
        opts.stop_below = stop_below.unwrap_or(0.0);
        let mut consider = |a: &MeshBvh<Rss>,
                            pa: &DAffine3,
                            b: &MeshBvh<Rss>,
                            pb: &DAffine3,
                            names: &dyn Fn(Feature) -> (String, String),
                            best: &mut Option<Clearance>|
         -> Result<bool, PlanningError> {
            let mut o = opts;
            // only distances below the best so far (or the threshold) matter
            o.upper_bound = stop_below.unwrap_or(cut);
            let r = mesh_distance(a, pa, b, pb, &o)?;
            if r.status == MeshDistanceStatus::AboveUpperBound {
                return Ok(false);
            }
            let d = r.closest.distance;
            if d < cut || best.is_none() {
                cut = cut.min(d);
                let (na, nb) = names(r.closest.feature_b);
                *best = Some(Clearance {
                    distance: d,
                    a: na,
                    b: nb,
                    point_a: r.closest.point_a,
                    point_b: r.closest.point_b,
                });
            }
            Ok(stop_below.is_some_and(|s| d <= s))
        };
        for (i, &(ba, la, ma, pa)) in parts.iter().enumerate() {
            for &(bb, lb, mb, pb) in &parts[i + 1..] {
                if ba == bb && !bodies[ba].is_self_pair(la, lb) {
                    continue;
                }
                let names = |_: Feature| {
                    (
                        self.names[ba][la.index()].clone(),
                        self.names[bb][lb.index()].clone(),
                    )
                };
                if consider(ma, &pa, mb, &pb, &names, &mut best)? {
                    return Ok(best);
                }
            }
            if let Some(env) = env {
                let names = |f: Feature| (self.names[ba][la.index()].clone(), self.object_of(f));
                if consider(
                    ma,
                    &pa,
                    env.mesh().as_ref(),
                    &DAffine3::IDENTITY,
                    &names,
                    &mut best,
                )? {
                    return Ok(best);
                }
            }
        }
        Ok(best)
    }

    /// Whether the pose `q` is in collision: some pair the queries test comes within the
    /// tolerance `opts.tolerance` (the contact distance of [`PlanningScene::check_edge`]).
    ///
    /// # Errors
    /// [`PlanningError::NoRobot`], [`PlanningError::JointCount`],
    /// [`PlanningError::InvalidJointValue`]; a tolerance that is negative or not finite is
    /// [`PlanningError::Articulated`] ([`ArticulatedError::InvalidOptions`]).
    ///
    /// # Example
    /// See [`PlanningScene`].
    pub fn in_collision(&self, q: &[f64], opts: &QueryOptions) -> Result<bool, PlanningError> {
        let eps = opts.tolerance;
        if !(eps.is_finite() && eps >= 0.0) {
            return Err(ArticulatedError::InvalidOptions(format!(
                "tolerance {eps} must be finite and not negative"
            ))
            .into());
        }
        // stop at the first pair within eps (a strict "closer than" just above it)
        let stop = eps + f64::MIN_POSITIVE.max(eps * f64::EPSILON);
        Ok(self
            .closest(q, Some(stop))?
            .is_some_and(|c| c.distance <= eps))
    }

    /// The closest pair at `q` among the pairs the queries test, with its distance and
    /// witness points (world); `None` when the scene has no pair to test.
    ///
    /// # Errors
    /// As [`PlanningScene::in_collision`].
    ///
    /// # Example
    /// See [`PlanningScene`].
    pub fn clearance(&self, q: &[f64]) -> Result<Option<Clearance>, PlanningError> {
        self.closest(q, None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn planning_scene_is_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<PlanningScene>();
    }

    #[test]
    fn tessellations_hold_their_shapes() {
        let cyl = ObjectShape::Cylinder {
            radius: 0.3,
            length: 1.0,
        }
        .to_mesh("c")
        .unwrap();
        // the side faces' planes at least the radius from the axis
        for t in cyl.triangle_iter() {
            let n = (t.b - t.a).cross(t.c - t.a).normalize();
            if n.z.abs() < 1e-9 {
                assert!(n.dot(t.a) >= 0.3, "{}", n.dot(t.a));
            }
        }
        for s in [
            ObjectShape::Box {
                size: DVec3::new(1.0, 0.0, 1.0),
            },
            ObjectShape::Cylinder {
                radius: f64::NAN,
                length: 1.0,
            },
        ] {
            assert!(matches!(
                s.to_mesh("x"),
                Err(PlanningError::InvalidShape { .. })
            ));
        }
    }
}
