//! Motion of an articulated model between two poses: per-link relative constant-velocity
//! motions (CATCH, Eq. 2), world transforms (Eq. 1), their enclosures, and the recursive
//! motion bound (Eq. 7–10).

use ccd_taylor::{Enclosure, Interval, Transform};
use glam::{DAffine3, DVec3};

use crate::{ArticulatedModel, Joint, KinematicsError, LinkId, Pose, RigidMotion};

/// The motion of every link of an [`ArticulatedModel`] from one [`Pose`] to another: each
/// link moves relative to its parent with constant linear and angular velocity (CATCH,
/// Sec. 3.2, Eq. 2), and its world motion is the product down the chain (Eq. 1).
///
/// # Example
/// ```
/// use ccd_kinematics::{ArticulatedModel, ArticulatedMotion, Joint, LinkId, LinkSpec};
/// use ccd_kinematics::glam::{DAffine3, DVec3};
/// use ccd_taylor::{Interval, TaylorModel};
///
/// let hinge = Joint::Revolute { axis: DVec3::Z, limits: None };
/// let spec = |name: &str, parent: Option<&str>| LinkSpec {
///     name: name.into(),
///     parent: parent.map(Into::into),
///     joint: hinge,
///     offset: DAffine3::from_translation(if parent.is_some() { DVec3::X } else { DVec3::ZERO }),
/// };
/// let model = ArticulatedModel::new(vec![spec("a", None), spec("b", Some("a")), spec("c", Some("b"))])?;
/// let p0 = model.pose_from_joints(&[0.0, 0.0, 0.0])?;
/// let p1 = model.pose_from_joints(&[0.3, 0.3, 0.3])?;
/// let motion = ArticulatedMotion::between(&model, &p0, &p1)?;
/// let tip = LinkId(2);
/// let boxes = motion.enclosures::<TaylorModel>(Interval::UNIT)?;
/// let swept = boxes[tip.index()].apply(DVec3::X).aabb();
/// for k in 0..=10 {
///     let t = k as f64 / 10.0;
///     assert!(swept.contains_point(motion.world_at(tip, t)?.transform_point3(DVec3::X)));
/// }
/// // CA step bound: no point within 1 of the tip's origin moves more than mu along +y
/// let mu = motion.motion_bound(tip, DVec3::Y, 1.0, 0.0)?;
/// assert!(mu > 0.0);
/// # Ok::<(), ccd_kinematics::KinematicsError>(())
/// ```
#[derive(Debug)]
pub struct ArticulatedMotion {
    parents: Vec<Option<LinkId>>,
    motions: Vec<RigidMotion>,
}

impl Clone for ArticulatedMotion {
    fn clone(&self) -> Self {
        Self {
            parents: self.parents.clone(),
            motions: self.motions.clone(),
        }
    }

    /// Reuses `self`'s buffers (a query that copies each step's motions into a workspace
    /// allocates nothing).
    fn clone_from(&mut self, source: &Self) {
        self.parents.clone_from(&source.parents);
        self.motions.clone_from(&source.motions);
    }
}

impl ArticulatedMotion {
    /// Per-link relative motions from `pose0` to `pose1`, each by
    /// [`RigidMotion::between`]: every link turns **the short way** (at most π) relative to
    /// its parent. That is not the joint-space motion when a revolute joint turns by more
    /// than π, and it turns by `2π − Δq` the other way when it does (a joint going from −1.6
    /// to +1.6 rad turns by −3.08 instead of 3.2). Use [`ArticulatedMotion::from_joints`]
    /// when the joint values are known.
    ///
    /// # Errors
    /// [`KinematicsError::JointCount`] when a pose does not fit the model, or the errors of
    /// [`RigidMotion::between`] for a non-rigid relative transform.
    pub fn between(
        model: &ArticulatedModel,
        pose0: &Pose,
        pose1: &Pose,
    ) -> Result<Self, KinematicsError> {
        for p in [pose0, pose1] {
            if p.relative.len() != model.len() {
                return Err(KinematicsError::JointCount {
                    expected: model.len(),
                    got: p.relative.len(),
                });
            }
        }
        let motions = pose0
            .relative
            .iter()
            .zip(&pose1.relative)
            .map(|(a, b)| RigidMotion::between(*a, *b))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self {
            parents: model.links().iter().map(|l| l.parent).collect(),
            motions,
        })
    }

    /// The joint-space motion from joint values `q0` to `q1` (CATCH, Sec. 3.2: constant
    /// velocity per joint): a revolute joint turns about its axis by `(q1 − q0)·t` — any
    /// angle, more than π or a whole turn included — a prismatic joint slides along its axis
    /// by `(q1 − q0)·t`, a fixed joint stays; spherical and floating joints, whose values
    /// are rotation vectors, move by [`RigidMotion::between`] of their two transforms (the
    /// short way). The pose at `t` of a model made of revolute, prismatic and fixed joints
    /// is the forward kinematics of `q0 + (q1 − q0) t`.
    ///
    /// # Errors
    /// As [`ArticulatedModel::pose_from_joints`] for either vector
    /// ([`KinematicsError::JointCount`], [`KinematicsError::InvalidJointValue`]);
    /// [`KinematicsError::MotionOutOfDomain`] when a joint turns by more than
    /// [`RigidMotion::MAX_ANGLE`] or a coordinate exceeds [`RigidMotion::MAX_COORDINATE`].
    ///
    /// # Example
    /// ```
    /// use ccd_kinematics::{ArticulatedModel, ArticulatedMotion, Joint, LinkId, LinkSpec};
    /// use ccd_kinematics::glam::{DAffine3, DVec3};
    ///
    /// let hinge = Joint::Revolute { axis: DVec3::Z, limits: None };
    /// let model = ArticulatedModel::new(vec![
    ///     LinkSpec { name: "base".into(), parent: None, joint: Joint::Fixed, offset: DAffine3::IDENTITY },
    ///     LinkSpec { name: "arm".into(), parent: Some("base".into()), joint: hinge, offset: DAffine3::IDENTITY },
    /// ])?;
    /// let (q0, q1) = ([-1.6], [1.6]);
    /// let motion = ArticulatedMotion::from_joints(&model, &q0, &q1)?;
    /// // half-way the arm points along the joint-space midpoint q = 0 (+x), not along −x
    /// let tip = motion.world_at(LinkId(1), 0.5)?.transform_point3(DVec3::X);
    /// assert!(tip.abs_diff_eq(DVec3::X, 1e-12));
    /// // the short way between the two poses goes through −x
    /// let short = ArticulatedMotion::between(&model, &model.pose_from_joints(&q0)?, &model.pose_from_joints(&q1)?)?;
    /// assert!(short.world_at(LinkId(1), 0.5)?.transform_point3(DVec3::X).abs_diff_eq(-DVec3::X, 1e-12));
    /// # Ok::<(), ccd_kinematics::KinematicsError>(())
    /// ```
    pub fn from_joints(
        model: &ArticulatedModel,
        q0: &[f64],
        q1: &[f64],
    ) -> Result<Self, KinematicsError> {
        let pose0 = model.pose_from_joints(q0)?;
        if q1.len() != model.dof() {
            return Err(KinematicsError::JointCount {
                expected: model.dof(),
                got: q1.len(),
            });
        }
        // `q1`'s values are checked link by link as `pose_from_joints(q1)` would (the same
        // first error); its relative transforms are needed only for ball joints
        for l in model.links() {
            l.check_values(q1)?;
        }
        let mut motions = Vec::with_capacity(model.len());
        for (i, l) in model.links().iter().enumerate() {
            let rel1 = match l.joint {
                Joint::Spherical | Joint::Floating => l.relative_at(q1)?,
                // (not read by `link_motion` for these joints)
                _ => pose0.relative[i],
            };
            motions.push(link_motion(l, pose0.relative[i], rel1, q0, q1)?);
        }
        Ok(Self {
            parents: model.links().iter().map(|l| l.parent).collect(),
            motions,
        })
    }

    /// [`ArticulatedMotion::from_joints`] for a step that follows another one: `self` is
    /// the motion `from_joints(model, prev.0, prev.1)` (or this method's result for them),
    /// and only the links whose joint values differ between the two steps are recomputed.
    /// The result is bit for bit `from_joints(model, q0, q1)`, at a cost that follows the
    /// changed links (an adaptive simulation's active joints) plus one comparison of the
    /// joint vectors. Returns the number of recomputed links.
    ///
    /// # Errors
    /// [`KinematicsError::JointCount`] when a vector's length is not the model's number of
    /// degrees of freedom or `self` does not have the model's number of links; the errors of
    /// [`ArticulatedMotion::from_joints`] for the recomputed links (a changed value that is
    /// not finite or outside the joint's limits). `self` is unchanged on error.
    ///
    /// # Example
    /// ```
    /// use ccd_kinematics::{ArticulatedModel, ArticulatedMotion, Joint, LinkSpec};
    /// use ccd_kinematics::glam::{DAffine3, DVec3};
    ///
    /// let hinge = Joint::Revolute { axis: DVec3::Z, limits: None };
    /// let spec = |i: usize| LinkSpec {
    ///     name: format!("l{i}"),
    ///     parent: (i > 0).then(|| format!("l{}", i - 1)),
    ///     joint: hinge,
    ///     offset: DAffine3::from_translation(DVec3::X),
    /// };
    /// let model = ArticulatedModel::new((0..4).map(spec).collect())?;
    /// let (a, b) = ([0.1, 0.2, 0.3, 0.4], [0.1, 0.2, 0.3, 0.6]);
    /// let mut motion = ArticulatedMotion::from_joints(&model, &a, &b)?;
    /// // the next step: only the last joint moves on
    /// let c = [0.1, 0.2, 0.3, 0.8];
    /// assert_eq!(motion.update_joints(&model, (&a, &b), &b, &c)?, 1);
    /// let full = ArticulatedMotion::from_joints(&model, &b, &c)?;
    /// assert_eq!(motion.relatives(), full.relatives());
    /// assert!(motion.update_joints(&model, (&b, &c), &c, &[0.0; 3]).is_err());
    /// # Ok::<(), ccd_kinematics::KinematicsError>(())
    /// ```
    pub fn update_joints(
        &mut self,
        model: &ArticulatedModel,
        prev: (&[f64], &[f64]),
        q0: &[f64],
        q1: &[f64],
    ) -> Result<usize, KinematicsError> {
        let dof = model.dof();
        for got in [prev.0.len(), prev.1.len(), q0.len(), q1.len()] {
            if got != dof {
                return Err(KinematicsError::JointCount { expected: dof, got });
            }
        }
        if self.motions.len() != model.len() {
            return Err(KinematicsError::JointCount {
                expected: model.len(),
                got: self.motions.len(),
            });
        }
        let mut changed: Vec<(usize, RigidMotion)> = Vec::new();
        for (i, l) in model.links().iter().enumerate() {
            let dofs = l.first_dof..l.first_dof + l.joint.dof();
            if q0[dofs.clone()] == prev.0[dofs.clone()] && q1[dofs.clone()] == prev.1[dofs] {
                continue;
            }
            let (r0, r1) = (l.relative_at(q0)?, l.relative_at(q1)?);
            changed.push((i, link_motion(l, r0, r1, q0, q1)?));
        }
        for &(i, m) in &changed {
            self.motions[i] = m;
        }
        Ok(changed.len())
    }

    /// Number of links.
    #[inline]
    #[must_use]
    pub fn len(&self) -> usize {
        self.motions.len()
    }

    /// True for a motion without links (never, for motions built from a model).
    #[inline]
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.motions.is_empty()
    }

    /// [`KinematicsError::UnknownLinkId`] unless `id` is a link of the model.
    fn check(&self, id: LinkId) -> Result<usize, KinematicsError> {
        let i = id.index();
        if i < self.motions.len() {
            Ok(i)
        } else {
            Err(KinematicsError::UnknownLinkId {
                id: id.0,
                links: self.motions.len(),
            })
        }
    }

    /// The motions of all links relative to their parents, indexed by [`LinkId::index`].
    #[inline]
    #[must_use]
    pub fn relatives(&self) -> &[RigidMotion] {
        &self.motions
    }

    /// The motion of link `id` relative to its parent.
    ///
    /// # Errors
    /// [`KinematicsError::UnknownLinkId`] when `id` is not a link of the model (as for
    /// every method taking a [`LinkId`]).
    #[inline]
    pub fn relative(&self, id: LinkId) -> Result<&RigidMotion, KinematicsError> {
        Ok(&self.motions[self.check(id)?])
    }

    /// World transform of link `id` at time `t` (CATCH, Eq. 1).
    ///
    /// # Errors
    /// [`KinematicsError::UnknownLinkId`] when `id` is not a link of the model.
    pub fn world_at(&self, id: LinkId, t: f64) -> Result<DAffine3, KinematicsError> {
        let i = self.check(id)?;
        let mut m = self.motions[i].pose_at(t);
        let mut cur = self.parents[i];
        while let Some(p) = cur {
            m = self.motions[p.index()].pose_at(t) * m;
            cur = self.parents[p.index()];
        }
        Ok(m)
    }

    /// World transforms of all links at time `t`, in one pass.
    #[must_use]
    pub fn world_all_at(&self, t: f64) -> Vec<DAffine3> {
        let mut world: Vec<DAffine3> = Vec::with_capacity(self.motions.len());
        for (i, m) in self.motions.iter().enumerate() {
            let local = m.pose_at(t);
            world.push(match self.parents[i] {
                Some(p) => world[p.index()] * local,
                None => local,
            });
        }
        world
    }

    /// World enclosures of all links over `domain ⊆ [0, 1]`, as Taylor-model or interval
    /// transforms (one generic code path), in one pass down the tree sharing the parents'
    /// products (CATCH, Sec. 5.2).
    ///
    /// # Errors
    /// [`KinematicsError::TimeOutOfRange`] when `domain` is not inside `[0, 1]`.
    pub fn enclosures<E: Enclosure>(
        &self,
        domain: Interval,
    ) -> Result<Vec<Transform<E>>, KinematicsError> {
        let mut world: Vec<Transform<E>> = Vec::with_capacity(self.motions.len());
        for (i, m) in self.motions.iter().enumerate() {
            let local = m.enclosure::<E>(domain)?;
            let w = match self.parents[i] {
                Some(p) => world[p.index()].compose(&local),
                None => local,
            };
            world.push(w);
        }
        Ok(world)
    }

    /// An upper bound on `∫ₜ¹ |v_p · n| dτ` for every point `p` of link `id` within distance
    /// `radius` of the link's frame origin (CATCH, Eq. 6–10).
    ///
    /// Derivation. Write the chain root `= j₁, …, j_k = id` and `W_{j−1}(τ)` for the world
    /// rotation of link `j`'s parent (identity above the root). Differentiating the product
    /// of Eq. 1, a point moves with
    /// `ṗ = Σⱼ W_{j−1} (sⱼ + ωⱼ uⱼ × zⱼ)`, where `sⱼ`, `ωⱼ uⱼ` are link `j`'s constant
    /// relative velocities and `zⱼ(τ)` is the vector from link `j`'s origin to `p`. Rotations
    /// preserve length, so `|W sⱼ · n| ≤ |sⱼ|` and `|W (uⱼ × zⱼ) · n| ≤ |zⱼ|`; for the root
    /// `W = I` and the sharper `|s₁ · n|` and `|u₁ × n| |z₁|` hold. Finally
    /// `|zⱼ| ≤ r + Σ_{k after j} max_{τ∈[t,1]} |Lₖ(τ)|`, where `Lₖ(τ) = cₖ + τ sₖ` is the
    /// translation of link `k` in its parent, whose norm is convex in `τ` and so maximal at
    /// `τ = t` or `τ = 1` (Eq. 9). Integrating the constant bound over `[t, 1]` gives
    /// `μ = (1 − t) Σⱼ (linⱼ + ωⱼ angⱼ |zⱼ|max)`. The result is inflated by a relative
    /// 1e-12 for rounding. `n` need not be unit (the bound scales with `|n|`); a NaN radius
    /// gives an infinite bound. The motions of [`between`](Self::between) and
    /// [`from_joints`](Self::from_joints) turn about the link frame origins, as assumed here.
    ///
    /// # Errors
    /// [`KinematicsError::UnknownLinkId`] when `id` is not a link of the model.
    pub fn motion_bound(
        &self,
        id: LinkId,
        n: DVec3,
        radius: f64,
        t: f64,
    ) -> Result<f64, KinematicsError> {
        self.check(id)?;
        if radius.is_nan() {
            return Ok(f64::INFINITY);
        }
        let t = t.clamp(0.0, 1.0);
        let n_len = n.length();
        // chain from id up to the root, accumulating the lever arm |z_j| on the way
        let mut lever = radius.max(0.0);
        let mut sum = 0.0;
        let mut cur = Some(id);
        while let Some(j) = cur {
            let m = &self.motions[j.index()];
            let p = m.params();
            let parent = self.parents[j.index()];
            let (lin, ang) = if parent.is_none() {
                (p.displacement().dot(n).abs(), p.axis().cross(n).length())
            } else {
                (p.displacement().length() * n_len, n_len)
            };
            sum += lin + p.angle() * ang * lever;
            // the lever arm seen from the parent's origin grows by |L_j| over [t, 1]
            let l_max = m
                .params()
                .translation_at(t)
                .length()
                .max(m.params().translation_at(1.0).length());
            lever += l_max;
            cur = parent;
        }
        let mu = (1.0 - t) * sum;
        Ok(mu * (1.0 + 1e-12) + f64::MIN_POSITIVE)
    }
}

/// The motion of link `l` relative to its parent from relative pose `rel0` to `rel1` for
/// joint vectors `q0` to `q1` (the per-link part of [`ArticulatedMotion::from_joints`]).
fn link_motion(
    l: &crate::Link,
    rel0: DAffine3,
    rel1: DAffine3,
    q0: &[f64],
    q1: &[f64],
) -> Result<RigidMotion, KinematicsError> {
    let k = l.first_dof;
    Ok(match l.joint {
        Joint::Fixed => RigidMotion::stationary(rel0)?,
        Joint::Revolute { axis, .. } => {
            RigidMotion::from_axis_angle(rel0, l.offset.matrix3 * axis, q1[k] - q0[k], DVec3::ZERO)?
        }
        Joint::Prismatic { axis, .. } => RigidMotion::from_axis_angle(
            rel0,
            DVec3::Z,
            0.0,
            l.offset.matrix3 * (axis * (q1[k] - q0[k])),
        )?,
        Joint::Spherical | Joint::Floating => RigidMotion::between(rel0, rel1)?,
    })
}
