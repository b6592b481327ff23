//! The changes of a [`PlanningScene`]: robots, static objects, attached objects and
//! allowed-collision overrides, and the rebuilds of its robots' bodies and merged
//! environment that follow them.

use std::collections::BTreeMap;
use std::sync::Arc;

use ccd_bvh::{BvhOptions, MeshBvh, Rss};
use ccd_geometry::TriMesh;
use ccd_kinematics::{Joint, LinkId};
use glam::DAffine3;

use super::{Attached, Object, ObjectShape, PlanningError, PlanningScene, Robot};
use crate::{ArticulatedBody, ArticulatedScene, PreparedEnvironment};

/// Whether `pose` is a finite rigid transform.
fn rigid_pose(pose: &DAffine3) -> bool {
    let r = pose.matrix3;
    pose.is_finite()
        && (r.transpose() * r).abs_diff_eq(glam::DMat3::IDENTITY, 1e-6)
        && (r.determinant() - 1.0).abs() <= 1e-6
}

impl PlanningScene {
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
}
