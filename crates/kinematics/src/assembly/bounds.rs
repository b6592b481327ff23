//! [`AssemblyBounds`]: enclosures (Taylor models or intervals) of an [`AssemblyTree`]'s
//! transforms over a time interval (Sec. 2.3), updated along the paths of the links whose
//! motion changed.

use std::sync::Arc;

use ccd_taylor::{Enclosure, Interval, Transform};

use super::engine::Engine;
use super::topology::Topology;
use super::{AssemblyTree, NodeId, check_link, check_node};
use crate::{ArticulatedMotion, KinematicsError, LinkId, RigidMotion};

/// A composition `a · b` (first `b`, then `a`) of transform enclosures
/// ([`AssemblyBounds::set_composition`]).
pub type Composition<E> = fn(&Transform<E>, &Transform<E>) -> Transform<E>;

/// Enclosures of an [`AssemblyTree`]'s transforms over a time interval (Sec. 2.3): the
/// principal joint transforms are the Taylor-model or interval enclosures of the links'
/// relative motions ([`RigidMotion::enclosure`]); the other three kinds are their products
/// in the same enclosure arithmetic, recomputed bottom-up only along the paths of links
/// whose motion was set, and world bounds are accumulated top-down for the requested bodies.
///
/// Changing the time interval ([`set_domain`](Self::set_domain)) re-encloses only the
/// links that move when constant enclosures do not depend on the domain (intervals); with
/// Taylor models, whose constants carry their domain, everything is recomputed.
///
/// # Example
/// ```
/// use ccd_kinematics::{ArticulatedModel, ArticulatedMotion, AssemblyBounds, AssemblyTree, Joint, LinkId, LinkSpec};
/// use ccd_kinematics::glam::{DAffine3, DVec3};
/// use ccd_taylor::Interval;
///
/// let hinge = Joint::Revolute { axis: DVec3::Z, limits: None };
/// let specs = (0..6)
///     .map(|i| LinkSpec {
///         name: format!("l{i}"),
///         parent: (i > 0).then(|| format!("l{}", i - 1)),
///         joint: hinge,
///         offset: DAffine3::from_translation(DVec3::X),
///     })
///     .collect();
/// let model = ArticulatedModel::new(specs)?;
/// let tree = AssemblyTree::from_model(&model);
/// let p0 = model.pose_from_joints(&[0.0; 6])?;
/// let p1 = model.pose_from_joints(&[0.0, 0.0, 0.4, 0.0, 0.0, 0.0])?; // one active joint
/// let motion = ArticulatedMotion::between(&model, &p0, &p1)?;
/// let mut bounds = AssemblyBounds::<Interval>::new(&tree, &motion, Interval::UNIT)?;
/// let tip = LinkId(5);
/// let swept = bounds.world_bound(tip)?.apply(DVec3::X).aabb();
/// for k in 0..=10 {
///     let t = k as f64 / 10.0;
///     assert!(swept.contains_point(motion.world_at(tip, t)?.transform_point3(DVec3::X)));
/// }
/// // refine the time interval: only the moving joint's path is recomputed
/// bounds.set_domain(Interval::new(0.0, 0.5))?;
/// assert_eq!(bounds.update_active(), 3);
/// # Ok::<(), ccd_kinematics::KinematicsError>(())
/// ```
#[derive(Clone, Debug)]
pub struct AssemblyBounds<E> {
    topo: Arc<Topology>,
    motions: Vec<RigidMotion>,
    domain: Interval,
    engine: Engine<Transform<E>>,
    /// The composition set by [`AssemblyBounds::set_composition`], if any.
    composition: Option<Composition<E>>,
}

#[inline]
fn is_moving(m: &RigidMotion) -> bool {
    m.angle() != 0.0 || m.linear_velocity() != glam::DVec3::ZERO
}

impl<E: Enclosure + PartialEq> AssemblyBounds<E> {
    /// Enclosures of every transform of `tree` under `motion` (per-link relative motions
    /// of the same model) over `domain ⊆ [0, 1]`.
    ///
    /// # Errors
    /// [`KinematicsError::JointCount`] when `motion` has a different number of links;
    /// [`KinematicsError::TimeOutOfRange`] when `domain` is not inside `[0, 1]`.
    pub fn new(
        tree: &AssemblyTree,
        motion: &ArticulatedMotion,
        domain: Interval,
    ) -> Result<Self, KinematicsError> {
        if motion.len() != tree.len() {
            return Err(KinematicsError::JointCount {
                expected: tree.len(),
                got: motion.len(),
            });
        }
        let motions = motion.relatives().to_vec();
        let topo = Arc::clone(&tree.topo);
        let engine = Self::full(&topo, &motions, domain)?;
        Ok(Self {
            topo,
            motions,
            domain,
            engine,
            composition: None,
        })
    }

    fn full(
        topo: &Topology,
        motions: &[RigidMotion],
        domain: Interval,
    ) -> Result<Engine<Transform<E>>, KinematicsError> {
        let joint = motions
            .iter()
            .map(|m| m.enclosure::<E>(domain))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Engine::new(topo, joint, &Transform::identity(domain)))
    }

    /// The time interval of the enclosures.
    #[inline]
    #[must_use]
    pub fn domain(&self) -> Interval {
        self.domain
    }

    /// Number of links.
    #[inline]
    #[must_use]
    pub fn len(&self) -> usize {
        self.motions.len()
    }

    /// Always false (a model has at least its root).
    #[inline]
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.motions.is_empty()
    }

    /// Sets the motion of `link` relative to its parent (an active joint of the step) and
    /// marks its root path dirty.
    ///
    /// # Errors
    /// [`KinematicsError::UnknownLinkId`] for a link that does not exist.
    ///
    /// # Example
    /// ```
    /// use ccd_kinematics::{ArticulatedModel, ArticulatedMotion, AssemblyBounds, AssemblyTree, Joint, LinkId, LinkSpec, RigidMotion};
    /// use ccd_kinematics::glam::{DAffine3, DQuat, DVec3};
    /// use ccd_taylor::TaylorModel;
    /// use ccd_taylor::Interval;
    ///
    /// let hinge = Joint::Revolute { axis: DVec3::Z, limits: None };
    /// let model = ArticulatedModel::new(vec![
    ///     LinkSpec { name: "a".into(), parent: None, joint: Joint::Fixed, offset: DAffine3::IDENTITY },
    ///     LinkSpec { name: "b".into(), parent: Some("a".into()), joint: hinge, offset: DAffine3::from_translation(DVec3::X) },
    /// ])?;
    /// let tree = AssemblyTree::from_model(&model);
    /// let p = model.pose_from_joints(&[0.0])?;
    /// let mut bounds = AssemblyBounds::<TaylorModel>::new(&tree, &ArticulatedMotion::between(&model, &p, &p)?, Interval::UNIT)?;
    /// let start = DAffine3::from_translation(DVec3::X);
    /// let end = start * DAffine3::from_quat(DQuat::from_rotation_z(1.0));
    /// bounds.set_motion(LinkId(1), RigidMotion::between(start, end)?)?;
    /// let b = bounds.world_bound(LinkId(1))?.apply(DVec3::X).aabb();
    /// assert!(b.contains_point(end.transform_point3(DVec3::X)));
    /// # Ok::<(), ccd_kinematics::KinematicsError>(())
    /// ```
    pub fn set_motion(&mut self, link: LinkId, motion: RigidMotion) -> Result<(), KinematicsError> {
        let i = check_link(link, self.len())?;
        self.engine.joint[i] = motion.enclosure::<E>(self.domain)?;
        self.motions[i] = motion;
        self.engine.mark(&self.topo, link);
        Ok(())
    }

    /// [`AssemblyBounds::set_motion`] with an enclosure computed by the caller (a cheaper
    /// or tighter one than [`RigidMotion::enclosure`]): `enclosure` must hold the
    /// transform of `motion` at every time of [`AssemblyBounds::domain`] (for Taylor
    /// models, over that domain); the bounds are only as conservative as it is.
    ///
    /// # Errors
    /// [`KinematicsError::UnknownLinkId`] for a link that does not exist.
    ///
    /// # Example
    /// ```
    /// use ccd_kinematics::{ArticulatedModel, ArticulatedMotion, AssemblyBounds, AssemblyTree, Joint, LinkId, LinkSpec, RigidMotion};
    /// use ccd_kinematics::glam::{DAffine3, DQuat, DVec3};
    /// use ccd_taylor::Interval;
    ///
    /// let hinge = Joint::Revolute { axis: DVec3::Z, limits: None };
    /// let model = ArticulatedModel::new(vec![
    ///     LinkSpec { name: "a".into(), parent: None, joint: Joint::Fixed, offset: DAffine3::IDENTITY },
    ///     LinkSpec { name: "b".into(), parent: Some("a".into()), joint: hinge, offset: DAffine3::from_translation(DVec3::X) },
    /// ])?;
    /// let tree = AssemblyTree::from_model(&model);
    /// let p = model.pose_from_joints(&[0.0])?;
    /// let mut bounds = AssemblyBounds::<Interval>::new(&tree, &ArticulatedMotion::between(&model, &p, &p)?, Interval::UNIT)?;
    /// let start = DAffine3::from_translation(DVec3::X);
    /// let end = start * DAffine3::from_quat(DQuat::from_rotation_z(1.0));
    /// let motion = RigidMotion::between(start, end)?;
    /// bounds.set_motion_enclosed(LinkId(1), motion, motion.enclosure::<Interval>(Interval::UNIT)?)?;
    /// let b = bounds.world_bound(LinkId(1))?.apply(DVec3::X).aabb();
    /// assert!(b.contains_point(end.transform_point3(DVec3::X)));
    /// # Ok::<(), ccd_kinematics::KinematicsError>(())
    /// ```
    pub fn set_motion_enclosed(
        &mut self,
        link: LinkId,
        motion: RigidMotion,
        enclosure: Transform<E>,
    ) -> Result<(), KinematicsError> {
        let i = check_link(link, self.len())?;
        self.engine.joint[i] = enclosure;
        self.motions[i] = motion;
        self.engine.mark(&self.topo, link);
        Ok(())
    }

    /// Replaces the composition of enclosures (default [`Transform::compose`]) by `then`,
    /// for a cheaper or tighter proven one, and recomputes every node transform with it.
    /// `then(a, b)` must hold `A · B` (first `B`, then `A`) for every pair of transforms
    /// `A`, `B` held by `a`, `b` at the same time of the domain; the bounds are only as
    /// conservative as it is. Kept by [`AssemblyBounds::set_domain`].
    ///
    /// # Example
    /// ```
    /// use ccd_kinematics::{ArticulatedModel, ArticulatedMotion, AssemblyBounds, AssemblyTree, Joint, LinkId, LinkSpec};
    /// use ccd_kinematics::glam::{DAffine3, DVec3};
    /// use ccd_taylor::Interval;
    ///
    /// let hinge = Joint::Revolute { axis: DVec3::Z, limits: None };
    /// let model = ArticulatedModel::new(vec![
    ///     LinkSpec { name: "a".into(), parent: None, joint: hinge, offset: DAffine3::IDENTITY },
    ///     LinkSpec { name: "b".into(), parent: Some("a".into()), joint: hinge, offset: DAffine3::from_translation(DVec3::X) },
    /// ])?;
    /// let tree = AssemblyTree::from_model(&model);
    /// let (q0, q1) = (model.pose_from_joints(&[0.0, 0.0])?, model.pose_from_joints(&[1.0, 1.0])?);
    /// let motion = ArticulatedMotion::between(&model, &q0, &q1)?;
    /// let mut bounds = AssemblyBounds::<Interval>::new(&tree, &motion, Interval::UNIT)?;
    /// let before = bounds.world_bound(LinkId(1))?.apply(DVec3::X).aabb();
    /// bounds.set_composition(|a, b| a.compose(b));
    /// bounds.set_domain(Interval::new(0.0, 1.0))?;
    /// assert_eq!(bounds.world_bound(LinkId(1))?.apply(DVec3::X).aabb(), before);
    /// # Ok::<(), ccd_kinematics::KinematicsError>(())
    /// ```
    pub fn set_composition(&mut self, then: Composition<E>) {
        self.composition = Some(then);
        self.engine.then = then;
        self.engine.mark_all(&self.topo);
    }

    /// Moves the enclosures to another time interval `domain ⊆ [0, 1]`: re-encloses the
    /// moving links and marks their paths dirty (all links, and a full recomputation, when
    /// constant enclosures depend on the domain, as Taylor models do).
    ///
    /// # Errors
    /// [`KinematicsError::TimeOutOfRange`] when `domain` is not inside `[0, 1]`; nothing is
    /// changed then.
    ///
    /// # Example
    /// ```
    /// use ccd_kinematics::{ArticulatedModel, ArticulatedMotion, AssemblyBounds, AssemblyTree, Joint, LinkId, LinkSpec};
    /// use ccd_kinematics::glam::{DAffine3, DVec3};
    /// use ccd_taylor::{Interval, TaylorModel};
    ///
    /// let hinge = Joint::Revolute { axis: DVec3::Z, limits: None };
    /// let model = ArticulatedModel::new(vec![
    ///     LinkSpec { name: "a".into(), parent: None, joint: hinge, offset: DAffine3::IDENTITY },
    ///     LinkSpec { name: "b".into(), parent: Some("a".into()), joint: hinge, offset: DAffine3::from_translation(DVec3::X) },
    /// ])?;
    /// let tree = AssemblyTree::from_model(&model);
    /// let motion = ArticulatedMotion::between(&model, &model.pose_from_joints(&[0.0, 0.0])?, &model.pose_from_joints(&[1.0, 1.0])?)?;
    /// let mut bounds = AssemblyBounds::<TaylorModel>::new(&tree, &motion, Interval::UNIT)?;
    /// let wide = bounds.world_bound(LinkId(1))?.apply(DVec3::X).aabb();
    /// bounds.set_domain(Interval::new(0.5, 0.6))?;
    /// let narrow = bounds.world_bound(LinkId(1))?.apply(DVec3::X).aabb();
    /// assert!(narrow.volume() < wide.volume());
    /// assert!(bounds.set_domain(Interval::new(0.5, 1.5)).is_err());
    /// # Ok::<(), ccd_kinematics::KinematicsError>(())
    /// ```
    pub fn set_domain(&mut self, domain: Interval) -> Result<(), KinematicsError> {
        if !Interval::UNIT.contains_interval(&domain) {
            return Err(KinematicsError::TimeOutOfRange(domain.to_string()));
        }
        // do constants carry their domain (Taylor models) or not (intervals)?
        let domain_free =
            E::constant(1.0, Interval::new(0.0, 0.5)) == E::constant(1.0, Interval::new(0.5, 1.0));
        if !domain_free {
            self.engine = Self::full(&self.topo, &self.motions, domain)?;
            if let Some(then) = self.composition {
                self.engine.then = then;
                self.engine.mark_all(&self.topo);
            }
            self.domain = domain;
            return Ok(());
        }
        for (i, m) in self.motions.iter().enumerate() {
            if is_moving(m) {
                self.engine.joint[i] = m.enclosure::<E>(domain)?;
                self.engine.mark(&self.topo, LinkId(i as u32));
            }
        }
        self.domain = domain;
        Ok(())
    }

    /// Recomputes the handle and child-to-parent enclosures of the dirty nodes only,
    /// bottom-up (Sec. 3.1); returns how many nodes were recomputed. The world queries call
    /// it when needed.
    pub fn update_active(&mut self) -> usize {
        self.engine.update(&self.topo)
    }

    /// The enclosure of node `id`'s child-to-parent transform over the domain (kind 3 of
    /// [`AssemblyTree`]: lower part's principal handle → the node's parent's principal handle;
    /// the identity for upper parts and the root), after the bottom-up update of the dirty
    /// nodes. Adaptive CCD bounds a sub-assembly's swept volume in its own frame with it.
    ///
    /// # Errors
    /// [`KinematicsError::UnknownNodeId`] when `id` is not a node of the assembly.
    ///
    /// # Example
    /// ```
    /// use ccd_kinematics::{ArticulatedModel, ArticulatedMotion, AssemblyBounds, AssemblyNode, AssemblyTree, Joint, LinkSpec, NodeId};
    /// use ccd_kinematics::glam::{DAffine3, DVec3};
    /// use ccd_taylor::Interval;
    ///
    /// let hinge = Joint::Revolute { axis: DVec3::Z, limits: None };
    /// let spec = |i: usize| LinkSpec {
    ///     name: format!("l{i}"),
    ///     parent: (i > 0).then(|| format!("l{}", i - 1)),
    ///     joint: hinge,
    ///     offset: DAffine3::from_translation(DVec3::X),
    /// };
    /// let model = ArticulatedModel::new(vec![spec(0), spec(1)])?;
    /// let tree = AssemblyTree::from_model(&model);
    /// let motion = ArticulatedMotion::from_joints(&model, &[0.0, 0.0], &[0.0, 1.0])?;
    /// let mut bounds = AssemblyBounds::<Interval>::new(&tree, &motion, Interval::UNIT)?;
    /// let AssemblyNode::Joint { lower, .. } = tree.node(NodeId(0))? else { unreachable!() };
    /// // link 1's frame seen from link 0 sweeps a quarter circle of radius 1 about (1, 0, 0)
    /// let swept = bounds.child_to_parent_bound(lower)?.apply(DVec3::X).aabb();
    /// assert!(swept.contains_point(DVec3::new(2.0, 0.0, 0.0)));
    /// assert!(swept.contains_point(DVec3::new(1.0 + 1.0f64.cos(), 1.0f64.sin(), 0.0)));
    /// # Ok::<(), ccd_kinematics::KinematicsError>(())
    /// ```
    pub fn child_to_parent_bound(&mut self, id: NodeId) -> Result<Transform<E>, KinematicsError> {
        let k = check_node(id, self.topo.nodes.len())?;
        self.engine.update(&self.topo);
        Ok(self.engine.to_parent[k])
    }

    /// The enclosure of the world transform of node `id`'s principal handle (the frame of
    /// its top link) over the domain, accumulated top-down from the nearest node already
    /// computed since the last update (Sec. 3.2).
    ///
    /// # Errors
    /// [`KinematicsError::UnknownNodeId`] when `id` is not a node of the assembly.
    ///
    /// # Example
    /// ```
    /// use ccd_kinematics::{ArticulatedModel, ArticulatedMotion, AssemblyBounds, AssemblyTree, Joint, LinkId, LinkSpec};
    /// use ccd_kinematics::glam::{DAffine3, DVec3};
    /// use ccd_taylor::Interval;
    ///
    /// let hinge = Joint::Revolute { axis: DVec3::Z, limits: None };
    /// let spec = |i: usize| LinkSpec {
    ///     name: format!("l{i}"),
    ///     parent: (i > 0).then(|| format!("l{}", i - 1)),
    ///     joint: hinge,
    ///     offset: DAffine3::from_translation(DVec3::X),
    /// };
    /// let model = ArticulatedModel::new(vec![spec(0), spec(1), spec(2)])?;
    /// let tree = AssemblyTree::from_model(&model);
    /// let motion = ArticulatedMotion::from_joints(&model, &[0.0; 3], &[0.5, 0.0, 0.0])?;
    /// let mut bounds = AssemblyBounds::<Interval>::new(&tree, &motion, Interval::UNIT)?;
    /// // the leaf of link 2 is its own sub-assembly: its handle is link 2's frame
    /// let leaf = tree.leaf(LinkId(2))?;
    /// let w = bounds.node_world_bound(leaf)?.apply(DVec3::ZERO).aabb();
    /// assert!(w.contains_point(motion.world_at(LinkId(2), 0.7)?.translation.into()));
    /// # Ok::<(), ccd_kinematics::KinematicsError>(())
    /// ```
    pub fn node_world_bound(&mut self, id: NodeId) -> Result<Transform<E>, KinematicsError> {
        let k = check_node(id, self.topo.nodes.len())?;
        self.engine.update(&self.topo);
        Ok(*self.engine.world_of(&self.topo, k as u32))
    }

    /// The enclosure of `link`'s world transform over the domain (Sec. 3.1–3.2).
    ///
    /// # Errors
    /// [`KinematicsError::UnknownLinkId`] when `link` is not a link of the model.
    pub fn world_bound(&mut self, link: LinkId) -> Result<Transform<E>, KinematicsError> {
        let i = check_link(link, self.len())?;
        self.engine.update(&self.topo);
        let leaf = self.topo.leaf_of_link[i];
        Ok(*self.engine.world_of(&self.topo, leaf))
    }

    /// Enclosures of the world transforms of `links`, written to `out` (cleared first).
    ///
    /// # Errors
    /// [`KinematicsError::UnknownLinkId`] when a link is not a link of the model (`out` then
    /// holds the enclosures of the links before it).
    pub fn world_bounds_into(
        &mut self,
        links: &[LinkId],
        out: &mut Vec<Transform<E>>,
    ) -> Result<(), KinematicsError> {
        out.clear();
        for &l in links {
            out.push(self.world_bound(l)?);
        }
        Ok(())
    }
}
