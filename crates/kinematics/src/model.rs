//! Articulated models: a tree of rigid links connected by joints.

use std::collections::HashMap;

use glam::{DAffine3, DQuat, DVec3};

use crate::KinematicsError;

/// Index of a link in an [`ArticulatedModel`] (its position in [`ArticulatedModel::links`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct LinkId(pub u32);

impl LinkId {
    /// The index as `usize`.
    #[inline]
    #[must_use]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Joint limits `[lower, upper]` on a one-degree-of-freedom joint value.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Limits {
    /// Smallest allowed value (radians or length units).
    pub lower: f64,
    /// Largest allowed value.
    pub upper: f64,
}

/// How a link moves relative to its parent (after the link's constant offset).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Joint {
    /// Rigidly attached (0 values).
    Fixed,
    /// Rotation by `q` radians about a unit axis (1 value).
    Revolute {
        /// Unit axis in the joint frame.
        axis: DVec3,
        /// Optional limits on `q` (`None`: continuous).
        limits: Option<Limits>,
    },
    /// Translation by `q` along a unit axis (1 value).
    Prismatic {
        /// Unit axis in the joint frame.
        axis: DVec3,
        /// Optional limits on `q`.
        limits: Option<Limits>,
    },
    /// Free rotation given as a rotation vector `(axis · angle)` (3 values).
    Spherical,
    /// Free rigid motion: translation then rotation vector (6 values).
    Floating,
}

impl Joint {
    /// Number of joint values this joint takes.
    #[inline]
    #[must_use]
    pub fn dof(&self) -> usize {
        match self {
            Joint::Fixed => 0,
            Joint::Revolute { .. } | Joint::Prismatic { .. } => 1,
            Joint::Spherical => 3,
            Joint::Floating => 6,
        }
    }

    /// The joint's own transform for values `q` (`q.len() == dof()`). Values are not checked
    /// against limits (see [`ArticulatedModel::pose_from_joints`]).
    ///
    /// # Errors
    /// [`KinematicsError::JointCount`] when `q.len() != dof()`.
    ///
    /// # Example
    /// ```
    /// use ccd_kinematics::Joint;
    /// use ccd_kinematics::glam::DVec3;
    ///
    /// let slide = Joint::Prismatic { axis: DVec3::Z, limits: None };
    /// assert_eq!(slide.transform(&[2.0])?.translation, 2.0 * DVec3::Z);
    /// assert!(slide.transform(&[]).is_err());
    /// # Ok::<(), ccd_kinematics::KinematicsError>(())
    /// ```
    pub fn transform(&self, q: &[f64]) -> Result<DAffine3, KinematicsError> {
        if q.len() != self.dof() {
            return Err(KinematicsError::JointCount {
                expected: self.dof(),
                got: q.len(),
            });
        }
        Ok(self.motion(q))
    }

    /// [`Joint::transform`] for a `q` of the right length (missing values read as 0).
    pub(crate) fn motion(&self, q: &[f64]) -> DAffine3 {
        let q = |i: usize| q.get(i).copied().unwrap_or(0.0);
        let q = [q(0), q(1), q(2), q(3), q(4), q(5)];
        match *self {
            Joint::Fixed => DAffine3::IDENTITY,
            Joint::Revolute { axis, .. } => DAffine3::from_axis_angle(axis, q[0]),
            Joint::Prismatic { axis, .. } => DAffine3::from_translation(axis * q[0]),
            Joint::Spherical => {
                DAffine3::from_quat(DQuat::from_scaled_axis(DVec3::new(q[0], q[1], q[2])))
            }
            Joint::Floating => DAffine3::from_rotation_translation(
                DQuat::from_scaled_axis(DVec3::new(q[3], q[4], q[5])),
                DVec3::new(q[0], q[1], q[2]),
            ),
        }
    }

    fn limits(&self) -> Option<Limits> {
        match *self {
            Joint::Revolute { limits, .. } | Joint::Prismatic { limits, .. } => limits,
            _ => None,
        }
    }
}

/// The description of one link, as given to [`ArticulatedModel::new`].
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct LinkSpec {
    /// Unique link name.
    pub name: String,
    /// Name of the parent link, `None` for the root.
    pub parent: Option<String>,
    /// The joint connecting the link to its parent (for the root: to the world).
    pub joint: Joint,
    /// Constant rigid transform from the parent frame to the joint frame (URDF's joint
    /// origin); the link frame is `offset · joint.transform(q)`.
    pub offset: DAffine3,
}

/// A validated link of an [`ArticulatedModel`].
#[derive(Clone, Debug, PartialEq)]
pub struct Link {
    /// The link's name.
    pub name: String,
    /// Its parent, `None` for the root.
    pub parent: Option<LinkId>,
    /// Its joint.
    pub joint: Joint,
    /// Constant parent → joint frame transform.
    pub offset: DAffine3,
    /// Index of its first joint value in the model's joint vector.
    pub first_dof: usize,
}

/// Links in a tree (one root, several children allowed), each with a joint and a constant
/// offset relative to its parent (CATCH, Sec. 3.1).
///
/// Links are stored in topological order: every parent comes before its children, so one
/// forward pass computes world transforms.
///
/// # Example
/// ```
/// use ccd_kinematics::{ArticulatedModel, Joint, LinkSpec};
/// use ccd_kinematics::glam::{DAffine3, DVec3};
///
/// let revolute = Joint::Revolute { axis: DVec3::Z, limits: None };
/// let model = ArticulatedModel::new(vec![
///     LinkSpec { name: "base".into(), parent: None, joint: Joint::Fixed, offset: DAffine3::IDENTITY },
///     LinkSpec { name: "arm".into(), parent: Some("base".into()), joint: revolute, offset: DAffine3::from_translation(DVec3::Z) },
/// ])?;
/// let pose = model.pose_from_joints(&[std::f64::consts::FRAC_PI_2])?;
/// let world = pose.world_transforms(&model)?;
/// assert!(world[1].transform_point3(DVec3::X).abs_diff_eq(DVec3::new(0.0, 1.0, 1.0), 1e-12));
/// # Ok::<(), ccd_kinematics::KinematicsError>(())
/// ```
#[derive(Clone, Debug)]
pub struct ArticulatedModel {
    links: Vec<Link>,
    children: Vec<Vec<LinkId>>,
    by_name: HashMap<String, LinkId>,
    dof: usize,
}

fn is_unit(v: DVec3) -> bool {
    v.is_finite() && (v.length() - 1.0).abs() <= 1e-9
}

fn check_rigid(pose: &DAffine3) -> bool {
    let r = pose.matrix3;
    pose.is_finite()
        && (r.transpose() * r).abs_diff_eq(glam::DMat3::IDENTITY, 1e-6)
        && (r.determinant() - 1.0).abs() <= 1e-6
}

impl ArticulatedModel {
    /// Validates and builds a model. Links may be given in any order; they are stored
    /// parents-first (ties keep the given order).
    ///
    /// # Errors
    /// [`KinematicsError::InvalidModel`] for: no links, duplicate names, a parent name that
    /// does not exist, more than one root, a cycle, a non-rigid or non-finite offset, a
    /// non-unit joint axis, or inverted limits.
    pub fn new(specs: Vec<LinkSpec>) -> Result<Self, KinematicsError> {
        let bad = |msg: String| Err(KinematicsError::InvalidModel(msg));
        if specs.is_empty() {
            return bad("the model has no links".into());
        }
        let mut index: HashMap<&str, usize> = HashMap::with_capacity(specs.len());
        for (i, s) in specs.iter().enumerate() {
            if index.insert(s.name.as_str(), i).is_some() {
                return bad(format!("two links are named {:?}", s.name));
            }
            if !check_rigid(&s.offset) {
                return bad(format!(
                    "link {:?} has a non-rigid or non-finite offset",
                    s.name
                ));
            }
            match s.joint {
                Joint::Revolute { axis, limits } | Joint::Prismatic { axis, limits } => {
                    if !is_unit(axis) {
                        return bad(format!(
                            "link {:?} has a joint axis that is not a unit vector",
                            s.name
                        ));
                    }
                    if let Some(l) = limits
                        && !(l.lower <= l.upper && l.lower.is_finite() && l.upper.is_finite())
                    {
                        return bad(format!(
                            "link {:?} has invalid joint limits [{}, {}]",
                            s.name, l.lower, l.upper
                        ));
                    }
                }
                _ => {}
            }
        }
        let mut parent_idx = Vec::with_capacity(specs.len());
        let mut roots = Vec::new();
        for (i, s) in specs.iter().enumerate() {
            match &s.parent {
                None => {
                    roots.push(i);
                    parent_idx.push(None);
                }
                Some(p) => match index.get(p.as_str()) {
                    Some(&j) => parent_idx.push(Some(j)),
                    None => {
                        return bad(format!(
                            "link {:?} has a parent {p:?} that does not exist",
                            s.name
                        ));
                    }
                },
            }
        }
        if roots.len() != 1 {
            let names: Vec<&str> = roots.iter().map(|&i| specs[i].name.as_str()).collect();
            return bad(if names.is_empty() {
                "the model has no root (every link has a parent: a cycle)".into()
            } else {
                format!("the model has {} roots: {names:?}", names.len())
            });
        }
        // topological order by breadth-first search from the root
        let mut kids: Vec<Vec<usize>> = vec![Vec::new(); specs.len()];
        for (i, p) in parent_idx.iter().enumerate() {
            if let Some(p) = p {
                kids[*p].push(i);
            }
        }
        let mut order = vec![roots[0]];
        let mut k = 0;
        while k < order.len() {
            order.extend(kids[order[k]].iter().copied());
            k += 1;
        }
        if order.len() != specs.len() {
            let stuck: Vec<&str> = (0..specs.len())
                .filter(|i| !order.contains(i))
                .map(|i| specs[i].name.as_str())
                .collect();
            return bad(format!(
                "links {stuck:?} form a cycle (not reachable from the root)"
            ));
        }
        let mut new_id = vec![0u32; specs.len()];
        for (n, &old) in order.iter().enumerate() {
            new_id[old] = n as u32;
        }
        let mut links = Vec::with_capacity(specs.len());
        let mut dof = 0;
        let mut specs: Vec<Option<LinkSpec>> = specs.into_iter().map(Some).collect();
        for &old in &order {
            let s = specs[old].take().expect("each link is visited once");
            links.push(Link {
                name: s.name,
                parent: parent_idx[old].map(|p| LinkId(new_id[p])),
                joint: s.joint,
                offset: s.offset,
                first_dof: dof,
            });
            dof += s.joint.dof();
        }
        let mut children = vec![Vec::new(); links.len()];
        for (i, l) in links.iter().enumerate() {
            if let Some(p) = l.parent {
                children[p.index()].push(LinkId(i as u32));
            }
        }
        let by_name = links
            .iter()
            .enumerate()
            .map(|(i, l)| (l.name.clone(), LinkId(i as u32)))
            .collect();
        Ok(Self {
            links,
            children,
            by_name,
            dof,
        })
    }

    /// The links, parents before children.
    #[inline]
    #[must_use]
    pub fn links(&self) -> &[Link] {
        &self.links
    }

    /// Number of links.
    #[inline]
    #[must_use]
    pub fn len(&self) -> usize {
        self.links.len()
    }

    /// Always false (a model has at least its root).
    #[inline]
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.links.is_empty()
    }

    /// The root link (always `LinkId(0)`).
    #[inline]
    #[must_use]
    pub fn root(&self) -> LinkId {
        LinkId(0)
    }

    /// The children of a link.
    #[inline]
    #[must_use]
    pub fn children(&self, id: LinkId) -> &[LinkId] {
        self.children.get(id.index()).map_or(&[], Vec::as_slice)
    }

    /// The link with this name.
    #[must_use]
    pub fn link_id(&self, name: &str) -> Option<LinkId> {
        self.by_name.get(name).copied()
    }

    /// The chain from the root down to `id`, root first.
    #[must_use]
    pub fn chain(&self, id: LinkId) -> Vec<LinkId> {
        let mut c = vec![id];
        let mut cur = id;
        while let Some(p) = self.links.get(cur.index()).and_then(|l| l.parent) {
            c.push(p);
            cur = p;
        }
        c.reverse();
        c
    }

    /// Total number of joint values.
    #[inline]
    #[must_use]
    pub fn dof(&self) -> usize {
        self.dof
    }

    /// The pose for joint values `q` (concatenated in link order, [`Link::first_dof`]).
    ///
    /// # Errors
    /// [`KinematicsError::JointCount`] when `q.len() != dof()`;
    /// [`KinematicsError::InvalidJointValue`] for a non-finite value or one outside the
    /// joint's limits (by more than 1e-9).
    pub fn pose_from_joints(&self, q: &[f64]) -> Result<Pose, KinematicsError> {
        if q.len() != self.dof {
            return Err(KinematicsError::JointCount {
                expected: self.dof,
                got: q.len(),
            });
        }
        let mut relative = Vec::with_capacity(self.links.len());
        for l in &self.links {
            relative.push(l.relative_at(q)?);
        }
        Ok(Pose { relative })
    }
}

impl Link {
    /// The link's transform relative to its parent for the model's joint vector `q` (its
    /// values checked as [`ArticulatedModel::pose_from_joints`] does; `q` must hold the
    /// link's degrees of freedom, which a vector of the model's length does).
    pub(crate) fn relative_at(&self, q: &[f64]) -> Result<DAffine3, KinematicsError> {
        self.check_values(q)?;
        let v = &q[self.first_dof..self.first_dof + self.joint.dof()];
        Ok(self.offset * self.joint.transform(v)?)
    }

    /// The checks of [`Link::relative_at`] without the transform: the link's values in
    /// `q` are finite and within the joint's limits.
    pub(crate) fn check_values(&self, q: &[f64]) -> Result<(), KinematicsError> {
        let v = &q[self.first_dof..self.first_dof + self.joint.dof()];
        for &x in v {
            let out_of_limits = self
                .joint
                .limits()
                .is_some_and(|lim| x < lim.lower - 1e-9 || x > lim.upper + 1e-9);
            if !x.is_finite() || out_of_limits {
                return Err(KinematicsError::InvalidJointValue {
                    link: self.name.clone(),
                    value: x,
                });
            }
        }
        Ok(())
    }
}

/// Per-link transforms relative to the parent (the root's relative to the world).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Pose {
    /// `relative[i]` maps link `i`'s frame into its parent's frame.
    pub relative: Vec<DAffine3>,
}

impl Pose {
    /// A pose given directly.
    ///
    /// # Errors
    /// [`KinematicsError::JointCount`] when the count differs from the model's links;
    /// [`KinematicsError::InvalidModel`] for a non-rigid or non-finite transform.
    pub fn new(model: &ArticulatedModel, relative: Vec<DAffine3>) -> Result<Self, KinematicsError> {
        if relative.len() != model.len() {
            return Err(KinematicsError::JointCount {
                expected: model.len(),
                got: relative.len(),
            });
        }
        if let Some(i) = relative.iter().position(|p| !check_rigid(p)) {
            return Err(KinematicsError::InvalidModel(format!(
                "pose of link {:?} is not rigid",
                model.links[i].name
            )));
        }
        Ok(Self { relative })
    }

    /// World transforms of all links (CATCH, Eq. 1), in one pass down the tree.
    ///
    /// # Errors
    /// [`KinematicsError::JointCount`] when the pose was not made for `model` (a different
    /// number of links).
    ///
    /// # Example
    /// ```
    /// use ccd_kinematics::{ArticulatedModel, Joint, KinematicsError, LinkSpec, Pose};
    /// use ccd_kinematics::glam::{DAffine3, DVec3};
    ///
    /// let link = |name: &str, parent: Option<&str>| LinkSpec {
    ///     name: name.into(),
    ///     parent: parent.map(Into::into),
    ///     joint: Joint::Fixed,
    ///     offset: DAffine3::from_translation(DVec3::X),
    /// };
    /// let model = ArticulatedModel::new(vec![link("a", None), link("b", Some("a"))])?;
    /// let world = model.pose_from_joints(&[])?.world_transforms(&model)?;
    /// assert_eq!(world[1].translation, 2.0 * DVec3::X);
    /// let other = ArticulatedModel::new(vec![link("a", None)])?;
    /// let pose = other.pose_from_joints(&[])?;
    /// assert!(matches!(pose.world_transforms(&model), Err(KinematicsError::JointCount { .. })));
    /// # Ok::<(), ccd_kinematics::KinematicsError>(())
    /// ```
    pub fn world_transforms(
        &self,
        model: &ArticulatedModel,
    ) -> Result<Vec<DAffine3>, KinematicsError> {
        if self.relative.len() != model.len() {
            return Err(KinematicsError::JointCount {
                expected: model.len(),
                got: self.relative.len(),
            });
        }
        let mut world: Vec<DAffine3> = Vec::with_capacity(self.relative.len());
        for (i, l) in model.links.iter().enumerate() {
            let w = match l.parent {
                Some(p) => world[p.index()] * self.relative[i],
                None => self.relative[i],
            };
            world.push(w);
        }
        Ok(world)
    }
}
