//! A planning scene, the shape MoveIt and Tesseract users know: robots (articulated bodies,
//! from URDF + SRDF with feature `urdf`), a static environment of named meshes and analytic
//! shapes with poses, objects attached to robot links (a grasped part moves with the hand),
//! allowed-collision overrides by link name at run time, and the queries a motion planner
//! asks: an edge ([`PlanningScene::check_edge`]), a piecewise-linear joint path
//! ([`PlanningScene::check_path`]), a batch of edges ([`PlanningScene::check_edges`]), and a
//! static pose ([`PlanningScene::in_collision`], [`PlanningScene::clearance`]).
//!
//! The scene keeps an [`ArticulatedScene`] assembled from its prepared parts: the environment is merged
//! into one world mesh and prepared once ([`PreparedEnvironment`](crate::PreparedEnvironment)) per change of the
//! objects, each robot's body is rebuilt only when its attached objects or overrides
//! change. Queries take `&self` (the type is `Send + Sync`): threads query one scene at
//! once, each with a reusable workspace from a small pool; changes take `&mut self`.
//!
//! Conventions: joint vectors `q` concatenate the robots' joint vectors in the order they
//! were added (each in its model's order, [`PlanningScene::joint_names`]). Joint values must
//! be finite and within their limits (a 1e-9 slack): anything else is
//! [`PlanningError::InvalidJointValue`], never clamped. Parts are named by link name (or
//! `robot/link` when two robots share a link name), attached-object name or environment
//! object name. The contact tolerance `ε` ([`QueryOptions::tolerance`](crate::QueryOptions::tolerance)) is the one of
//! every query: an edge or a path reports a contact when a pair comes within `ε`, and a
//! pose is [`in_collision`](PlanningScene::in_collision) when some pair is within `ε`.
//! Contacts are between surfaces (a link wholly inside a closed object without touching
//! its surface is not a contact, as everywhere in this crate).

mod editing;
mod error;
mod query;
mod shape;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use ccd_bvh::{MeshBvh, Rss};
use ccd_ca_rigid::Contact;
use ccd_geometry::TriMesh;
use glam::{DAffine3, DVec3};

use crate::{ArticulatedBody, ArticulatedScene, ArticulatedWorkspace};
pub use error::PlanningError;
pub use shape::ObjectShape;

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
}
