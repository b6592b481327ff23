//! [`AssemblyTree`]: the assembly of a model's link tree with exact transforms, updated along
//! the paths of the joints that changed.

use std::sync::Arc;

use glam::DAffine3;

use super::engine::Engine;
use super::topology::Topology;
use super::{AssemblyNode, NONE, NodeId, check_link};
use crate::{ArticulatedModel, Joint, KinematicsError, LinkId, Pose};

/// A balanced binary assembly of an [`ArticulatedModel`]'s link tree with cached
/// transforms (adaptive-dynamics CCD paper, Sec. 2–3).
///
/// Set joints ([`set_joint`](Self::set_joint), [`set_relative`](Self::set_relative),
/// [`set_pose`](Self::set_pose)), then ask for world transforms of the bodies you need:
/// only the nodes on the changed joints' root paths are recomputed (bottom-up, in
/// [`update_active`](Self::update_active), which the world queries call when needed), and
/// world transforms are accumulated top-down on the way to the requested bodies only.
///
/// # Representation
/// Every node of the assembly tree is a *sub-assembly*: a connected set of links. A leaf is
/// one link (a rigid body); an internal node `C` joins two sub-assemblies with one joint of
/// the model, its *principal joint*. The joint of link `c` (connecting `c` to its parent
/// link `p`) splits `C` into the *upper* part `U ∋ p` and the *lower* part `L ∋ c`.
///
/// Handles are the places where a sub-assembly attaches to the rest of the mechanism. We fix
/// the choice the paper leaves free (Sec. 2.2: "the principal handle of `C` is either a
/// secondary handle of `A` or a secondary handle of `B`") so that principal handles always
/// point towards the world: the **principal handle** of a sub-assembly is the frame of its
/// top link (the link closest to the model root, attached to its parent link or, for the
/// model root, to the world), and its **secondary handles** are the frames of its links
/// that have children outside it. Handles on one link share that link's frame and are
/// stored once. With this choice every transform below is a product of link-relative
/// transforms in chain order, with no inverses, so interval bounds are not widened by
/// inverting interval matrices. The four transform kinds (Sec. 2.1), each mapping
/// coordinates of the first frame into the second:
///
/// 1. *principal joint* `J_C`: link `c` → link `p` (the pose's relative transform of `c`);
/// 2. *principal-to-secondary handle* `H^C_h`: handle `h` → principal handle of `C`;
/// 3. *child-to-parent* `T^C_L = H^U_p · J_C` (lower child), `T^C_U = I` (upper child, which
///    shares `C`'s principal handle);
/// 4. *world* `T_C`: principal handle of `C` → world; `T_root` is the pose of the model root.
///
/// The bottom-up update of node `C` (Sec. 2.2) is `H^C_h = H^U_h` for handles of `U` and
/// `H^C_h = T^C_L · H^L_h` for handles of `L`: linear in the number of handles of `C`.
/// The top-down world pass is `T_U = T_C`, `T_L = T_C · T^C_L`.
///
/// # Cost
/// Changing `m` joints dirties at most `m` root paths; [`AssemblyTree::update_active`]
/// recomputes only those nodes (a subtree holding the root, Fig. 2a), deepest first, so it
/// costs `O(m · depth)` at most. A world transform walks down one root path (`O(depth)`),
/// reusing node world transforms already computed since the last update, so `k` bodies
/// cost `O(k · depth)` more: the paper's `O(m + k log n)` (Sec. 3.2), with `m` counting
/// the recomputed nodes. The
/// split chooses the joint that balances the two parts best; for links with at most `d`
/// children the depth is `O(d log n)` (a chain gives `⌈log₂ n⌉`; a star of `d` children
/// cannot be assembled in less than depth `d` with one joint per node).
///
/// # Example
/// ```
/// use ccd_kinematics::{ArticulatedModel, AssemblyNode, AssemblyTree, Joint, LinkId, LinkSpec, NodeId};
/// use ccd_kinematics::glam::{DAffine3, DVec3};
///
/// let hinge = Joint::Revolute { axis: DVec3::Z, limits: None };
/// let specs = (0..8)
///     .map(|i| LinkSpec {
///         name: format!("l{i}"),
///         parent: (i > 0).then(|| format!("l{}", i - 1)),
///         joint: hinge,
///         offset: DAffine3::from_translation(DVec3::X),
///     })
///     .collect();
/// let model = ArticulatedModel::new(specs)?;
/// let mut tree = AssemblyTree::from_model(&model);
/// assert_eq!(tree.depth(), 3); // 8 links: log2(8) levels of joints
/// // the root joins links 0–3 and 4–7 at the joint of link 4, ...
/// assert!(matches!(tree.node(NodeId(0))?, AssemblyNode::Joint { joint: LinkId(4), .. }));
/// tree.set_joint(LinkId(7), &[std::f64::consts::FRAC_PI_2])?;
/// assert_eq!(tree.update_active(), 3); // ... and the joint of link 7 sits 3 levels deep
/// // the same as plain forward kinematics
/// let mut q = vec![0.0; 8];
/// q[7] = std::f64::consts::FRAC_PI_2;
/// let fk = model.pose_from_joints(&q)?.world_transforms(&model)?;
/// assert!(tree.world_transform(LinkId(7))?.abs_diff_eq(fk[7], 1e-12));
/// # Ok::<(), ccd_kinematics::KinematicsError>(())
/// ```
#[derive(Clone, Debug)]
pub struct AssemblyTree {
    pub(super) topo: Arc<Topology>,
    joints: Vec<Joint>,
    offsets: Vec<DAffine3>,
    names: Vec<String>,
    engine: Engine<DAffine3>,
}

fn is_rigid(pose: &DAffine3) -> bool {
    let r = pose.matrix3;
    pose.is_finite()
        && (r.transpose() * r).abs_diff_eq(glam::DMat3::IDENTITY, 1e-6)
        && (r.determinant() - 1.0).abs() <= 1e-6
}

fn joint_limits(j: &Joint) -> Option<(f64, f64)> {
    match *j {
        Joint::Revolute {
            limits: Some(l), ..
        }
        | Joint::Prismatic {
            limits: Some(l), ..
        } => Some((l.lower, l.upper)),
        _ => None,
    }
}

impl AssemblyTree {
    /// The balanced assembly of `model` in its zero configuration (every joint value 0,
    /// clamped into the joint's limits).
    #[must_use]
    pub fn from_model(model: &ArticulatedModel) -> Self {
        let relative = model
            .links()
            .iter()
            .map(|l| {
                let mut q = [0.0; 6];
                if let Some((lo, hi)) = joint_limits(&l.joint) {
                    q[0] = 0.0f64.clamp(lo, hi);
                }
                l.offset * l.joint.motion(&q[..l.joint.dof()])
            })
            .collect();
        Self::build(model, relative)
    }

    /// The balanced assembly of `model` in `pose`.
    ///
    /// # Errors
    /// [`KinematicsError::JointCount`] when `pose` has a different number of links;
    /// [`KinematicsError::InvalidModel`] for a non-rigid or non-finite transform.
    ///
    /// # Example
    /// ```
    /// use ccd_kinematics::{ArticulatedModel, AssemblyTree, Joint, LinkId, LinkSpec};
    /// use ccd_kinematics::glam::{DAffine3, DVec3};
    ///
    /// let slider = Joint::Prismatic { axis: DVec3::Y, limits: None };
    /// let model = ArticulatedModel::new(vec![
    ///     LinkSpec { name: "a".into(), parent: None, joint: slider, offset: DAffine3::IDENTITY },
    ///     LinkSpec { name: "b".into(), parent: Some("a".into()), joint: slider, offset: DAffine3::IDENTITY },
    /// ])?;
    /// let pose = model.pose_from_joints(&[1.0, 2.0])?;
    /// let mut tree = AssemblyTree::with_pose(&model, &pose)?;
    /// assert!(tree.world_transform(LinkId(1))?.translation.abs_diff_eq(DVec3::new(0.0, 3.0, 0.0), 1e-12));
    /// # Ok::<(), ccd_kinematics::KinematicsError>(())
    /// ```
    pub fn with_pose(model: &ArticulatedModel, pose: &Pose) -> Result<Self, KinematicsError> {
        let pose = Pose::new(model, pose.relative.clone())?;
        Ok(Self::build(model, pose.relative))
    }

    fn build(model: &ArticulatedModel, relative: Vec<DAffine3>) -> Self {
        let topo = Topology::build(model);
        let engine = Engine::new(&topo, relative, &DAffine3::IDENTITY);
        Self {
            topo: Arc::new(topo),
            joints: model.links().iter().map(|l| l.joint).collect(),
            offsets: model.links().iter().map(|l| l.offset).collect(),
            names: model.links().iter().map(|l| l.name.clone()).collect(),
            engine,
        }
    }

    /// Number of links (bodies).
    #[inline]
    #[must_use]
    pub fn len(&self) -> usize {
        self.joints.len()
    }

    /// Always false (a model has at least its root).
    #[inline]
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.joints.is_empty()
    }

    /// Number of nodes (`2 · len() − 1`).
    #[inline]
    #[must_use]
    pub fn node_count(&self) -> usize {
        self.topo.nodes.len()
    }

    /// Length of the longest root-to-leaf path (0 for a single body).
    #[inline]
    #[must_use]
    pub fn depth(&self) -> usize {
        self.topo.depth
    }

    /// [`KinematicsError::UnknownNodeId`] unless `id` is a node of this tree.
    fn check_node(&self, id: NodeId) -> Result<usize, KinematicsError> {
        let i = id.index();
        if i < self.topo.nodes.len() {
            Ok(i)
        } else {
            Err(KinematicsError::UnknownNodeId {
                id: id.0,
                nodes: self.topo.nodes.len(),
            })
        }
    }

    /// What node `id` assembles.
    ///
    /// # Errors
    /// [`KinematicsError::UnknownNodeId`] when `id` is not a node of this tree (as for every
    /// method taking a [`NodeId`]; those taking a [`LinkId`] give
    /// [`KinematicsError::UnknownLinkId`] for a link that is not in the model).
    #[inline]
    pub fn node(&self, id: NodeId) -> Result<AssemblyNode, KinematicsError> {
        Ok(self.topo.nodes[self.check_node(id)?].kind)
    }

    /// The parent of node `id` (`None` for the root `NodeId(0)`).
    ///
    /// # Errors
    /// [`KinematicsError::UnknownNodeId`] when `id` is not a node of this tree.
    #[inline]
    pub fn parent(&self, id: NodeId) -> Result<Option<NodeId>, KinematicsError> {
        let p = self.topo.nodes[self.check_node(id)?].parent;
        Ok((p != NONE).then_some(NodeId(p)))
    }

    /// The leaf holding `link`.
    ///
    /// # Errors
    /// [`KinematicsError::UnknownLinkId`] when `link` is not a link of the model.
    #[inline]
    pub fn leaf(&self, link: LinkId) -> Result<NodeId, KinematicsError> {
        Ok(NodeId(self.topo.leaf_of_link[self.check_link(link)?]))
    }

    /// The node whose principal joint is `link`'s joint (`None` for the model root).
    ///
    /// # Errors
    /// [`KinematicsError::UnknownLinkId`] when `link` is not a link of the model.
    #[inline]
    pub fn joint_node(&self, link: LinkId) -> Result<Option<NodeId>, KinematicsError> {
        let k = self.topo.node_of_joint[self.check_link(link)?];
        Ok((k != NONE).then_some(NodeId(k)))
    }

    /// The links carrying node `id`'s secondary handles (links of the sub-assembly with a
    /// child outside it), in increasing order. The principal handle is the sub-assembly's
    /// top link.
    ///
    /// # Errors
    /// [`KinematicsError::UnknownNodeId`] when `id` is not a node of this tree.
    pub fn handles(&self, id: NodeId) -> Result<&[LinkId], KinematicsError> {
        let (s, e) = self.topo.nodes[self.check_node(id)?].handles;
        Ok(&self.topo.handle_links[s as usize..e as usize])
    }

    /// The principal-to-secondary handle transforms of node `id`, parallel to
    /// [`handles`](Self::handles): each maps the handle link's frame into the frame of the
    /// sub-assembly's top link. Valid after [`update_active`](Self::update_active).
    ///
    /// # Errors
    /// [`KinematicsError::UnknownNodeId`] when `id` is not a node of this tree.
    pub fn handle_transforms(&self, id: NodeId) -> Result<&[DAffine3], KinematicsError> {
        let (s, e) = self.topo.nodes[self.check_node(id)?].handles;
        Ok(&self.engine.handles[s as usize..e as usize])
    }

    /// The child-to-parent transform of node `id`: its principal handle's frame into its
    /// parent's (identity for an upper child and for the root). Valid after
    /// [`update_active`](Self::update_active).
    ///
    /// # Errors
    /// [`KinematicsError::UnknownNodeId`] when `id` is not a node of this tree.
    #[inline]
    pub fn child_to_parent(&self, id: NodeId) -> Result<DAffine3, KinematicsError> {
        Ok(self.engine.to_parent[self.check_node(id)?])
    }

    /// The transform of `link` relative to its parent (the principal joint transform of
    /// [`joint_node`](Self::joint_node); for the model root: its world pose).
    ///
    /// # Errors
    /// [`KinematicsError::UnknownLinkId`] when `link` is not a link of the model.
    #[inline]
    pub fn relative(&self, link: LinkId) -> Result<DAffine3, KinematicsError> {
        Ok(self.engine.joint[self.check_link(link)?])
    }

    fn check_link(&self, link: LinkId) -> Result<usize, KinematicsError> {
        check_link(link, self.len())
    }

    /// Sets the joint values of `link` (`q.len()` = the joint's
    /// [`dof`](Joint::dof)) and marks its root path dirty.
    ///
    /// # Errors
    /// [`KinematicsError::UnknownLinkId`] for a link that does not exist;
    /// [`KinematicsError::JointCount`] for a wrong number of values;
    /// [`KinematicsError::InvalidJointValue`] for a non-finite value or one outside the
    /// joint's limits (by more than 1e-9).
    ///
    /// # Example
    /// ```
    /// use ccd_kinematics::{ArticulatedModel, AssemblyTree, Joint, LinkId, LinkSpec};
    /// use ccd_kinematics::glam::{DAffine3, DVec3};
    ///
    /// let hinge = Joint::Revolute { axis: DVec3::Z, limits: None };
    /// let model = ArticulatedModel::new(vec![
    ///     LinkSpec { name: "a".into(), parent: None, joint: Joint::Fixed, offset: DAffine3::IDENTITY },
    ///     LinkSpec { name: "b".into(), parent: Some("a".into()), joint: hinge, offset: DAffine3::from_translation(DVec3::X) },
    /// ])?;
    /// let mut tree = AssemblyTree::from_model(&model);
    /// tree.set_joint(LinkId(1), &[std::f64::consts::PI])?;
    /// let w = tree.world_transform(LinkId(1))?;
    /// assert!(w.transform_point3(DVec3::X).abs_diff_eq(DVec3::ZERO, 1e-12));
    /// assert!(tree.set_joint(LinkId(1), &[f64::NAN]).is_err());
    /// # Ok::<(), ccd_kinematics::KinematicsError>(())
    /// ```
    pub fn set_joint(&mut self, link: LinkId, q: &[f64]) -> Result<(), KinematicsError> {
        self.check_link(link)?;
        let i = link.index();
        let joint = self.joints[i];
        if q.len() != joint.dof() {
            return Err(KinematicsError::JointCount {
                expected: joint.dof(),
                got: q.len(),
            });
        }
        let lim = joint_limits(&joint);
        if let Some(&x) = q.iter().find(|&&x| {
            !x.is_finite() || lim.is_some_and(|(lo, hi)| x < lo - 1e-9 || x > hi + 1e-9)
        }) {
            return Err(KinematicsError::InvalidJointValue {
                link: self.names[i].clone(),
                value: x,
            });
        }
        self.engine.joint[i] = self.offsets[i] * joint.motion(q);
        self.engine.mark(&self.topo, link);
        Ok(())
    }

    /// Sets `link`'s transform relative to its parent directly (for the model root: its
    /// world pose) and marks its root path dirty.
    ///
    /// # Errors
    /// [`KinematicsError::InvalidModel`] for a link that does not exist or a non-rigid or
    /// non-finite transform.
    ///
    /// # Example
    /// ```
    /// use ccd_kinematics::{ArticulatedModel, AssemblyTree, Joint, LinkId, LinkSpec};
    /// use ccd_kinematics::glam::{DAffine3, DVec3};
    ///
    /// let model = ArticulatedModel::new(vec![
    ///     LinkSpec { name: "a".into(), parent: None, joint: Joint::Floating, offset: DAffine3::IDENTITY },
    ///     LinkSpec { name: "b".into(), parent: Some("a".into()), joint: Joint::Fixed, offset: DAffine3::from_translation(DVec3::X) },
    /// ])?;
    /// let mut tree = AssemblyTree::from_model(&model);
    /// tree.set_relative(LinkId(0), DAffine3::from_translation(DVec3::Z))?;
    /// assert!(tree.world_transform(LinkId(1))?.translation.abs_diff_eq(DVec3::new(1.0, 0.0, 1.0), 1e-12));
    /// # Ok::<(), ccd_kinematics::KinematicsError>(())
    /// ```
    pub fn set_relative(
        &mut self,
        link: LinkId,
        relative: DAffine3,
    ) -> Result<(), KinematicsError> {
        self.check_link(link)?;
        if !is_rigid(&relative) {
            return Err(KinematicsError::InvalidModel(format!(
                "relative transform of link {:?} is not rigid",
                self.names[link.index()]
            )));
        }
        self.engine.joint[link.index()] = relative;
        self.engine.mark(&self.topo, link);
        Ok(())
    }

    /// Takes over every link transform of `pose` that differs from the current one and
    /// marks only those joints dirty; returns how many changed.
    ///
    /// # Errors
    /// As [`Pose::new`]; nothing is changed on error.
    ///
    /// # Example
    /// ```
    /// use ccd_kinematics::{ArticulatedModel, AssemblyTree, Joint, LinkId, LinkSpec};
    /// use ccd_kinematics::glam::{DAffine3, DVec3};
    ///
    /// let hinge = Joint::Revolute { axis: DVec3::Z, limits: None };
    /// let specs = (0..4)
    ///     .map(|i| LinkSpec {
    ///         name: format!("l{i}"),
    ///         parent: (i > 0).then(|| format!("l{}", i - 1)),
    ///         joint: hinge,
    ///         offset: DAffine3::from_translation(DVec3::X),
    ///     })
    ///     .collect();
    /// let model = ArticulatedModel::new(specs)?;
    /// let mut tree = AssemblyTree::from_model(&model);
    /// let pose = model.pose_from_joints(&[0.0, 0.0, 0.5, 0.0])?;
    /// assert_eq!(tree.set_pose(&pose)?, 1);
    /// let fk = pose.world_transforms(&model)?;
    /// assert!(tree.world_transform(LinkId(3))?.abs_diff_eq(fk[3], 1e-12));
    /// # Ok::<(), ccd_kinematics::KinematicsError>(())
    /// ```
    pub fn set_pose(&mut self, pose: &Pose) -> Result<usize, KinematicsError> {
        if pose.relative.len() != self.len() {
            return Err(KinematicsError::JointCount {
                expected: self.len(),
                got: pose.relative.len(),
            });
        }
        if let Some(i) = pose.relative.iter().position(|p| !is_rigid(p)) {
            return Err(KinematicsError::InvalidModel(format!(
                "pose of link {:?} is not rigid",
                self.names[i]
            )));
        }
        let mut changed = 0;
        for (i, p) in pose.relative.iter().enumerate() {
            if *p != self.engine.joint[i] {
                self.engine.joint[i] = *p;
                self.engine.mark(&self.topo, LinkId(i as u32));
                changed += 1;
            }
        }
        Ok(changed)
    }

    /// Recomputes the principal-to-secondary handle and child-to-parent transforms of the
    /// dirty nodes only, bottom-up (Sec. 2.2 and Fig. 2a); returns how many nodes were
    /// recomputed. The world queries call it when needed.
    ///
    /// # Example
    /// ```
    /// use ccd_kinematics::{ArticulatedModel, AssemblyTree, Joint, LinkId, LinkSpec};
    /// use ccd_kinematics::glam::{DAffine3, DVec3};
    ///
    /// let hinge = Joint::Revolute { axis: DVec3::Y, limits: None };
    /// let specs = (0..16)
    ///     .map(|i| LinkSpec {
    ///         name: format!("l{i}"),
    ///         parent: (i > 0).then(|| format!("l{}", (i - 1) / 2)), // a binary tree
    ///         joint: hinge,
    ///         offset: DAffine3::from_translation(DVec3::X),
    ///     })
    ///     .collect();
    /// let model = ArticulatedModel::new(specs)?;
    /// let mut tree = AssemblyTree::from_model(&model);
    /// assert_eq!(tree.update_active(), 0);
    /// tree.set_joint(LinkId(9), &[0.1])?;
    /// tree.set_joint(LinkId(10), &[0.2])?;
    /// let n = tree.update_active();
    /// assert!(n >= 1 && n <= 2 * tree.depth());
    /// # Ok::<(), ccd_kinematics::KinematicsError>(())
    /// ```
    pub fn update_active(&mut self) -> usize {
        self.engine.update(&self.topo)
    }

    /// The world transform of `link` (Sec. 3.2, Fig. 2b): updates the dirty nodes, then
    /// accumulates world transforms down the root path of the link's leaf, reusing those
    /// already computed since the last change.
    ///
    /// # Errors
    /// [`KinematicsError::UnknownLinkId`] when `link` is not a link of the model.
    ///
    /// # Example
    /// ```
    /// use ccd_kinematics::{ArticulatedModel, AssemblyTree, Joint, LinkId, LinkSpec};
    /// use ccd_kinematics::glam::{DAffine3, DVec3};
    ///
    /// let model = ArticulatedModel::new(vec![
    ///     LinkSpec { name: "a".into(), parent: None, joint: Joint::Fixed, offset: DAffine3::from_translation(DVec3::Y) },
    /// ])?;
    /// let mut tree = AssemblyTree::from_model(&model);
    /// assert_eq!(tree.world_transform(LinkId(0))?, DAffine3::from_translation(DVec3::Y));
    /// assert!(tree.world_transform(LinkId(1)).is_err());
    /// # Ok::<(), ccd_kinematics::KinematicsError>(())
    /// ```
    pub fn world_transform(&mut self, link: LinkId) -> Result<DAffine3, KinematicsError> {
        let i = self.check_link(link)?;
        self.engine.update(&self.topo);
        let leaf = self.topo.leaf_of_link[i];
        Ok(*self.engine.world_of(&self.topo, leaf))
    }

    /// World transforms of `links`, written to `out` (cleared first) in the same order.
    ///
    /// # Errors
    /// [`KinematicsError::UnknownLinkId`] when a link is not a link of the model (`out` then
    /// holds the transforms of the links before it).
    ///
    /// # Example
    /// ```
    /// use ccd_kinematics::{ArticulatedModel, AssemblyTree, Joint, LinkId, LinkSpec};
    /// use ccd_kinematics::glam::{DAffine3, DVec3};
    ///
    /// let hinge = Joint::Revolute { axis: DVec3::Z, limits: None };
    /// let specs = (0..5)
    ///     .map(|i| LinkSpec {
    ///         name: format!("l{i}"),
    ///         parent: (i > 0).then(|| "l0".to_string()), // a star
    ///         joint: hinge,
    ///         offset: DAffine3::from_translation(DVec3::X),
    ///     })
    ///     .collect();
    /// let model = ArticulatedModel::new(specs)?;
    /// let mut tree = AssemblyTree::from_model(&model);
    /// let mut out = Vec::new();
    /// tree.world_transforms_into(&[LinkId(2), LinkId(4)], &mut out)?;
    /// assert_eq!(out.len(), 2);
    /// assert_eq!(out, tree.world_transforms(&[LinkId(2), LinkId(4)])?);
    /// # Ok::<(), ccd_kinematics::KinematicsError>(())
    /// ```
    pub fn world_transforms_into(
        &mut self,
        links: &[LinkId],
        out: &mut Vec<DAffine3>,
    ) -> Result<(), KinematicsError> {
        out.clear();
        for &l in links {
            out.push(self.world_transform(l)?);
        }
        Ok(())
    }

    /// World transforms of `links`, in the same order (allocating twin of
    /// [`world_transforms_into`](Self::world_transforms_into)).
    ///
    /// # Errors
    /// [`KinematicsError::UnknownLinkId`] when a link is not a link of the model.
    ///
    /// # Example
    /// ```
    /// use ccd_kinematics::{ArticulatedModel, AssemblyTree, Joint, LinkId, LinkSpec};
    /// use ccd_kinematics::glam::{DAffine3, DVec3};
    ///
    /// let model = ArticulatedModel::new(vec![
    ///     LinkSpec { name: "a".into(), parent: None, joint: Joint::Fixed, offset: DAffine3::IDENTITY },
    ///     LinkSpec { name: "b".into(), parent: Some("a".into()), joint: Joint::Fixed, offset: DAffine3::from_translation(DVec3::X) },
    /// ])?;
    /// let mut tree = AssemblyTree::from_model(&model);
    /// let w = tree.world_transforms(&[LinkId(1), LinkId(0)])?;
    /// assert_eq!(w[0].translation, DVec3::X);
    /// assert_eq!(w[1], DAffine3::IDENTITY);
    /// # Ok::<(), ccd_kinematics::KinematicsError>(())
    /// ```
    pub fn world_transforms(&mut self, links: &[LinkId]) -> Result<Vec<DAffine3>, KinematicsError> {
        let mut out = Vec::with_capacity(links.len());
        self.world_transforms_into(links, &mut out)?;
        Ok(out)
    }
}
