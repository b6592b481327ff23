//! Motion bounds of links (CATCH, Sec. 6, Eq. 7–10) in the closed form CA steps use, and
//! the pair motions handed to `ccd-ca-rigid`'s window CA.

use ccd_ca_rigid::{PairMotion, RoundingScale, SpeedBound};
use ccd_kinematics::{ArticulatedModel, ArticulatedMotion, LinkId, RigidMotion};
use glam::{DAffine3, DVec3};

/// The Eq. 10 bound of link `id` over `[t, 1]`, relative to the frame of its ancestor
/// `base` (`None`: the world), as a [`SpeedBound`]: the same terms as
/// [`ArticulatedMotion::motion_bound`] (per unit of time instead of integrated over
/// `[t, 1]`), gathered so that a point within `r` of the link's origin moving along `n` is
/// bounded by `|s₁·n| + ω₁ |u₁ × n| (r + C₁) + |n| (Σⱼ (|sⱼ| + ωⱼ Cⱼ) + r Σⱼ ωⱼ)`.
///
/// Here `1` is the first link below `base` on the chain to `id` (its relative motion is in
/// `base`'s frame, so its projections are exact), `j` runs over the other links of the
/// chain from there to `id`, and `Cⱼ` is the lever arm from link `j`'s origin to the origin
/// of link `id`: the sum of the translations `Lₖ` of the links `k` below `j` on the chain,
/// each at its largest over `[t, 1]` (`|Lₖ(τ)|` is convex in `τ`, Eq. 9). A point at `r`
/// from `id`'s origin is within `r + Cⱼ` of link `j`'s origin, and rotations keep lengths
/// (`|W sⱼ·n| ≤ |sⱼ||n|`, `|W (uⱼ × z)·n| ≤ |z||n|`). Links at or above `base` do not move
/// in its frame; `id == base` gives [`SpeedBound::ZERO`].
///
/// `id` and `base` must be links of the model, `base` an ancestor of `id` (or `id`).
pub(crate) fn link_speed_bound(
    model: &ArticulatedModel,
    motion: &ArticulatedMotion,
    id: LinkId,
    base: Option<LinkId>,
    t: f64,
) -> SpeedBound {
    let t = t.clamp(0.0, 1.0);
    let links = model.links();
    let mut out = SpeedBound::ZERO;
    let mut lever = 0.0f64;
    let mut extra = 0.0f64;
    let mut per_radius = 0.0f64;
    let mut cur = Some(id);
    while let Some(j) = cur
        && cur != base
    {
        let p = motion.relatives()[j.index()].params();
        let parent = links[j.index()].parent;
        if parent == base {
            out.linear = p.displacement();
            out.axis = p.axis();
            out.omega = p.angle().abs();
            out.lever = lever;
        } else {
            extra += p.displacement().length() + p.angle().abs() * lever;
            per_radius += p.angle().abs();
        }
        lever += p
            .translation_at(t)
            .length()
            .max(p.translation_at(1.0).length());
        cur = parent;
    }
    // sums of non-negative terms: a relative 1e-12 covers their rounding (depth ≪ 1e3)
    out.lever = lever_round(out.lever);
    out.extra = lever_round(extra);
    out.extra_per_radius = lever_round(per_radius);
    out
}

/// A bound of the speed of the points of link `id` relative to the frame of its ancestor
/// `base` (`None`: the world) that holds over the short horizon `[t, e]` only, in the
/// [`SpeedBound`] form: from the link frame's angular velocity `Ω` and its origin's
/// velocity `v` at the middle `τₘ` of the horizon (exact, in f64), plus how far they can
/// drift from there within `h = (e − t)/2`. `None` when a link of the chain rotates about a
/// centre away from its frame origin (the derivation assumes it does not; callers then use
/// [`link_speed_bound`]).
///
/// Derivation. Write `Wⱼ(τ)` for the rotation of chain link `j` in `base`'s frame, `p(j)`
/// for its parent (`W = I` above the chain), `Tⱼ(τ) = cⱼ + τ sⱼ` and `ωⱼ uⱼ` for its
/// relative translation and angular velocity (parent frame), and `θⱼ = Σ_{i ≤ j} |ωᵢ|` over
/// the chain from the top down to `j`. Then `Ω = Σⱼ ωⱼ W_{p(j)} uⱼ`, the origin of `id` is
/// `o = Σⱼ W_{p(j)} Tⱼ`, so `v = Σⱼ (Ω_{p(j)} × W_{p(j)} Tⱼ + W_{p(j)} sⱼ)`, and a point at
/// `z = x − o` moves with `v + Ω × z`, `|z| ≤ r`. Each `Wᵢ(τ)` is `Wᵢ(τₘ)` followed by a
/// product of rotations by angles `|ωₖ| |τ − τₘ|`, so `‖Wᵢ(τ) − Wᵢ(τₘ)‖ ≤ θᵢ h`. Hence
/// `|Ω(τ) − Ω(τₘ)| ≤ h Σⱼ |ωⱼ| θ_{p(j)} = dΩ`, `|Ω_{p(j)}| ≤ θ_{p(j)}`,
/// `|W_{p(j)} Tⱼ| ≤ Lⱼ = max(|Tⱼ(t)|, |Tⱼ(e)|)` (convex in τ), its drift is at most
/// `θ_{p(j)} h Lⱼ + h |sⱼ|`, and with `|a×b − aₘ×bₘ| ≤ |a − aₘ||b| + |aₘ||b − bₘ|`
/// `|v(τ) − v(τₘ)| ≤ Σⱼ (dΩ_{p(j)} Lⱼ + θ_{p(j)} (θ_{p(j)} h Lⱼ + 2 h |sⱼ|)) = dv`.
/// So `|(v + Ω × z)·n| ≤ |v(τₘ)·n| + |Ω(τₘ)| |û × n| r + |n| (dv + dΩ r)`: the
/// [`SpeedBound`] with `linear = v(τₘ)`, `ω û = Ω(τₘ)`, `extra = dv`,
/// `extra_per_radius = dΩ`, each inflated for the rounding of the f64 evaluation.
///
/// The chain is walked once from `id` upwards (frames composed bottom-up), once more for
/// the totals. `id` and `base` must be links of the model, `base` an ancestor of `id` (or
/// `id`), and `t ≤ e` in `[0, 1]`.
pub(crate) fn link_speed_bound_until(
    model: &ArticulatedModel,
    motion: &ArticulatedMotion,
    id: LinkId,
    base: Option<LinkId>,
    t: f64,
    e: f64,
) -> Option<SpeedBound> {
    let links = model.links();
    let rel = motion.relatives();
    // pass 1: the total turn Θ of the chain
    let mut theta_all = 0.0f64;
    let mut cur = Some(id);
    while let Some(j) = cur
        && cur != base
    {
        let m = &rel[j.index()];
        if m.local_center() != DVec3::ZERO {
            return None;
        }
        theta_all += m.params().angle().abs();
        cur = links[j.index()].parent;
    }
    let (t, e) = (t.clamp(0.0, 1.0), e.clamp(0.0, 1.0));
    let mid = 0.5 * (t + e);
    // |τ − τₘ| ≤ (e − t)/2 plus the rounding of τₘ
    let h = 0.5 * (e - t).max(0.0) + 4.0 * f64::EPSILON;
    // pass 2, bottom-up: `z`, `omega`, `v` are the origin, angular velocity and origin
    // velocity of `id` relative to the parent frame of the current link, in its coordinates
    let (mut z, mut omega, mut v) = (DVec3::ZERO, DVec3::ZERO, DVec3::ZERO);
    let mut below = 0.0f64; // Σ |ωᵢ| over the links at or below the current one
    let mut e_below = 0.0f64; // Σ |ωᵢ| θ_{p(i)} over the links at or below
    let (mut sum_l, mut sum_el, mut rest) = (0.0f64, 0.0f64, 0.0f64);
    let mut scale = 0.0f64; // magnitudes of the f64 sums, for the rounding allowance
    let mut cur = Some(id);
    while let Some(j) = cur
        && cur != base
    {
        let p = rel[j.index()].params();
        let w = p.angle().abs();
        below += w;
        // θ_{p(j)}: the turn of the links above j (Θ minus those at or below, never < 0;
        // rounded up by more than the subtraction's error)
        let above = (theta_all - below).max(0.0) * (1.0 + 1e-12) + 4.0 * f64::EPSILON * theta_all;
        e_below += w * above;
        let l = p
            .translation_at(t)
            .length()
            .max(p.translation_at(e).length())
            * (1.0 + 1e-12);
        let s = p.displacement().length();
        sum_l += l;
        sum_el += e_below * l;
        rest += above * (above * h * l + 2.0 * h * s);
        scale += above * l + s;
        // the frame of j in its parent's at τₘ
        let r = p.rotation_at(mid);
        let zj = r * z;
        let wj = p.axis() * p.angle();
        v = r * v + wj.cross(zj) + p.displacement();
        omega = r * omega + wj;
        z = zj + p.translation_at(mid);
        cur = links[j.index()].parent;
    }
    // Σⱼ dΩ_{p(j)} Lⱼ = h Σⱼ (E − E_{≤j}) Lⱼ with E = Σᵢ |ωᵢ| θ_{p(i)} (non-negative terms;
    // the difference is bounded by the sum of its parts' rounding below)
    let e_all = e_below;
    let lever_drift = h * (e_all * sum_l - sum_el).max(0.0);
    let d_omega = h * e_all;
    let w = omega.length();
    let round = 1e-10;
    Some(SpeedBound {
        linear: v,
        axis: if w > 0.0 { omega / w } else { DVec3::Z },
        omega: w * (1.0 + 1e-12),
        lever: 0.0,
        extra: (lever_drift + rest) * (1.0 + 1e-12)
            + round * (scale * (1.0 + theta_all) + h * e_all * sum_l),
        extra_per_radius: d_omega * (1.0 + 1e-12) + round * theta_all,
    })
}

#[inline]
fn lever_round(x: f64) -> f64 {
    x * (1.0 + 1e-12)
}

/// The pose of link `id` at `t` in the frame of its ancestor `base` (`None`: the world):
/// the product of the relative motions from `id` up to, not including, `base` (Eq. 1).
/// `id` and `base` must be links of the model, `base` an ancestor of `id` (or `id`).
pub(crate) fn pose_below(
    model: &ArticulatedModel,
    motion: &ArticulatedMotion,
    id: LinkId,
    base: Option<LinkId>,
    t: f64,
) -> DAffine3 {
    let (links, rel) = (model.links(), motion.relatives());
    let mut m = DAffine3::IDENTITY;
    let mut cur = Some(id);
    while let Some(j) = cur
        && cur != base
    {
        m = rel[j.index()].pose_at(t) * m;
        cur = links[j.index()].parent;
    }
    m
}

/// The deepest common ancestor of links `a` and `b` (`a` or `b` when one is the other's
/// ancestor), `None` when either is not a link of the model. Parents come before their
/// children in a model, so the deeper index climbs first.
pub(crate) fn common_ancestor(model: &ArticulatedModel, a: LinkId, b: LinkId) -> Option<LinkId> {
    let links = model.links();
    let (mut x, mut y) = (a, b);
    if x.index() >= links.len() || y.index() >= links.len() {
        return None;
    }
    while x != y {
        if x.index() > y.index() {
            x = links[x.index()].parent?;
        } else {
            y = links[y.index()].parent?;
        }
    }
    Some(x)
}

/// How one side of a pair moves.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Mover<'a> {
    /// A link of an articulated body, in the frame of its ancestor `base` (`None`: the
    /// world). Built by [`Mover::link`], which checks the ids.
    Link {
        model: &'a ArticulatedModel,
        motion: &'a ArticulatedMotion,
        id: LinkId,
        base: Option<LinkId>,
    },
    /// A rigid body.
    Rigid(&'a RigidMotion),
    /// The static environment.
    Static,
}

impl<'a> Mover<'a> {
    /// Link `id` of `model` moving with `motion`, seen from the frame of `base` (`None`:
    /// the world); `None` unless `id` and `base` are links of the model and `motion` has
    /// a relative motion per link, with `base` an ancestor of `id` (or `id` itself).
    pub(crate) fn link(
        model: &'a ArticulatedModel,
        motion: &'a ArticulatedMotion,
        id: LinkId,
        base: Option<LinkId>,
    ) -> Option<Self> {
        let n = model.len();
        if motion.relatives().len() != n || id.index() >= n {
            return None;
        }
        if let Some(b) = base
            && common_ancestor(model, id, b) != Some(b)
        {
            return None;
        }
        Some(Mover::Link {
            model,
            motion,
            id,
            base,
        })
    }

    #[inline]
    fn pose(&self, t: f64) -> DAffine3 {
        match self {
            Mover::Link {
                model,
                motion,
                id,
                base,
            } => pose_below(model, motion, *id, *base, t),
            Mover::Rigid(m) => m.pose_at(t),
            Mover::Static => DAffine3::IDENTITY,
        }
    }

    /// The scale of the rounding of [`Mover::pose`] at any time: a link's pose is composed
    /// down its chain, so every relative translation of the chain counts at its largest
    /// (a child can cancel its parent's offset: its small pose still carries the
    /// parent's rounding), and each turn also moves the links below it by its rounding
    /// times their lever (charged into `reach` like [`RoundingScale`] charges a turn
    /// against the radius).
    fn rounding_scale(&self) -> RoundingScale {
        match self {
            Mover::Link {
                model,
                motion,
                id,
                base,
            } => {
                let (links, rel) = (model.links(), motion.relatives());
                let (mut reach, mut turn, mut lever) = (0.0f64, 0.0f64, 0.0f64);
                let mut cur = Some(*id);
                while let Some(j) = cur
                    && cur != *base
                {
                    let m = &rel[j.index()];
                    let p = m.params();
                    let len = p.translation().length()
                        + p.displacement().length()
                        + m.local_center().length();
                    let angle = p.angle().abs();
                    reach += len + 1e-3 * angle * lever;
                    turn += angle;
                    lever += len;
                    cur = links[j.index()].parent;
                }
                RoundingScale { reach, turn }
            }
            Mover::Rigid(m) => RoundingScale::rigid(m),
            Mover::Static => RoundingScale::default(),
        }
    }

    /// The speed bound over `[t, e]` (the short-horizon bound of a link when its chain
    /// allows it, else the bound over `[t, 1]`).
    #[inline]
    fn speed_until(&self, t: f64, e: f64) -> SpeedBound {
        match self {
            Mover::Link {
                model,
                motion,
                id,
                base,
            } => link_speed_bound_until(model, motion, *id, *base, t, e)
                .unwrap_or_else(|| link_speed_bound(model, motion, *id, *base, t)),
            _ => self.speed(t),
        }
    }

    #[inline]
    fn speed(&self, t: f64) -> SpeedBound {
        match self {
            Mover::Link {
                model,
                motion,
                id,
                base,
            } => link_speed_bound(model, motion, *id, *base, t),
            Mover::Rigid(m) => SpeedBound::rigid(m),
            Mover::Static => SpeedBound::ZERO,
        }
    }
}

/// Two movers as a [`PairMotion`]. Both sides must be seen from the same frame (the world,
/// or for two links of one body the frame of a common ancestor): distances do not depend
/// on it, and bounds taken in a moving ancestor's frame leave out the motion the two links
/// share.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MoverPair<'a>(pub(crate) Mover<'a>, pub(crate) Mover<'a>);

impl PairMotion for MoverPair<'_> {
    fn poses(&self, t: f64) -> (DAffine3, DAffine3) {
        (self.0.pose(t), self.1.pose(t))
    }
    fn speed_bounds(&self, t: f64) -> [SpeedBound; 2] {
        [self.0.speed(t), self.1.speed(t)]
    }
    fn speed_bounds_until(&self, t: f64, end: f64, hint: f64) -> ([SpeedBound; 2], f64) {
        // the drift terms grow with the horizon: a few times the last step (the whole
        // window at first, when a far pair may be proven free at once)
        let until = end.min(t + (HORIZON_STEPS * hint).max(MIN_HORIZON));
        if until <= t || until.is_nan() {
            return (self.speed_bounds(t), end);
        }
        (
            [self.0.speed_until(t, until), self.1.speed_until(t, until)],
            until,
        )
    }
    fn rounding_scale(&self) -> [RoundingScale; 2] {
        [self.0.rounding_scale(), self.1.rounding_scale()]
    }
}

/// The horizon of the short-horizon speed bounds ([`link_speed_bound_until`]) in CA steps:
/// this many times the previous step.
const HORIZON_STEPS: f64 = 4.0;
/// The shortest horizon of the short-horizon speed bounds.
const MIN_HORIZON: f64 = 1.0 / 64.0;

#[cfg(test)]
mod tests {
    use super::*;
    use ccd_kinematics::{Joint, LinkSpec};
    use glam::DQuat;
    use proptest::prelude::*;

    /// A random tree of up to 7 links with every joint kind, random axes and offsets.
    fn random_tree() -> impl Strategy<Value = (ArticulatedModel, Vec<f64>, Vec<f64>)> {
        let link = (
            0usize..5,
            prop::array::uniform3(-1.0f64..1.0),
            prop::array::uniform3(-1.5f64..1.5),
            prop::array::uniform3(-3.0f64..3.0),
            0usize..64,
        );
        prop::collection::vec(link, 1..8).prop_flat_map(|specs| {
            let mut links = Vec::new();
            let mut dof = 0;
            for (i, (kind, axis, offset, rot, parent)) in specs.into_iter().enumerate() {
                let axis = DVec3::from(axis).try_normalize().unwrap_or(DVec3::Z);
                let joint = match kind {
                    0 | 1 => Joint::Revolute { axis, limits: None },
                    2 => Joint::Prismatic { axis, limits: None },
                    3 => Joint::Fixed,
                    _ if i == 0 => Joint::Floating,
                    _ => Joint::Spherical,
                };
                dof += joint.dof();
                links.push(LinkSpec {
                    name: format!("l{i}"),
                    parent: (i > 0).then(|| format!("l{}", parent % i)),
                    joint,
                    offset: DAffine3::from_rotation_translation(
                        DQuat::from_scaled_axis(DVec3::from(rot) * 0.5),
                        DVec3::from(offset),
                    ),
                });
            }
            let model = ArticulatedModel::new(links).unwrap();
            // revolute joints may turn by up to 5 rad (the long way round included)
            let q = prop::collection::vec(-2.5f64..2.5, dof);
            (Just(model), q.clone(), q)
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: (ProptestConfig::default().cases / 2).max(1), ..ProptestConfig::default() })]

        /// The short-horizon bound holds against dense sampling: the average velocity over
        /// each of 400 sub-intervals of `[t, e]` (a mean of `v·n`, so at most its maximum)
        /// of points of every link, up to the rounding of the sampled positions.
        #[test]
        fn short_horizon_bound_covers_dense_sampling(
            (model, q0, q1) in random_tree(),
            t in 0.0f64..1.0,
            len in 0.0f64..1.0,
            n in prop::array::uniform3(-1.0f64..1.0),
            local in prop::array::uniform3(-1.0f64..1.0),
            base_pick in 0usize..64,
        ) {
            let motion = ArticulatedMotion::from_joints(&model, &q0, &q1).unwrap();
            let e = (t + len * 0.5).min(1.0);
            let (n, local) = (DVec3::from(n), DVec3::from(local));
            let r = local.length();
            for id in (0..model.len() as u32).map(LinkId) {
                // the world, or an ancestor of the link
                let mut ancestors = vec![None, Some(id)];
                let mut cur = model.links()[id.index()].parent;
                while let Some(a) = cur {
                    ancestors.push(Some(a));
                    cur = model.links()[a.index()].parent;
                }
                let base = ancestors[base_pick % ancestors.len()];
                let s = link_speed_bound_until(&model, &motion, id, base, t, e).unwrap();
                let bound = s.bound(n, r);
                let k = 400;
                let dt = (e - t) / f64::from(k);
                if dt <= 0.0 {
                    continue;
                }
                let at = |tau: f64| {
                    let m = pose_below(&model, &motion, id, base, tau);
                    m.transform_point3(local)
                };
                let mut prev = at(t);
                for i in 1..=k {
                    let next = at(if i == k { e } else { t + dt * f64::from(i) });
                    let mean = (next - prev).dot(n) / dt;
                    // the positions are computed to ~1e-13 of their magnitude
                    let tol = 1e-12 * (1.0 + prev.length() + next.length()) / dt;
                    prop_assert!(
                        mean.abs() <= bound + tol,
                        "link {id:?} base {base:?} [{t}, {e}] step {i}: {} > {bound}",
                        mean.abs()
                    );
                    prev = next;
                }
            }
        }
    }

    #[test]
    fn short_horizon_bound_is_tighter_than_the_whole_step_bound_on_a_chain() {
        let model = chain();
        let q0 = [0.1, -0.2, 0.3, 0.2, -0.1, 0.4, 0.3, -0.5, 0.2, 1.1];
        let q1 = [0.4, 0.1, -0.2, -0.3, 0.5, 0.1, -1.2, 1.0, -0.3, -0.9];
        let motion = ArticulatedMotion::from_joints(&model, &q0, &q1).unwrap();
        let id = LinkId(4);
        let old = link_speed_bound(&model, &motion, id, None, 0.5);
        let new = link_speed_bound_until(&model, &motion, id, None, 0.5, 0.625).unwrap();
        let (n, r) = (DVec3::new(0.3, -0.4, 0.5).normalize(), 0.4);
        assert!(
            new.bound(n, r) < 0.8 * old.bound(n, r),
            "{new:?} vs {old:?}"
        );
    }

    fn chain() -> ArticulatedModel {
        let mut specs = vec![LinkSpec {
            name: "l0".into(),
            parent: None,
            joint: Joint::Floating,
            offset: DAffine3::IDENTITY,
        }];
        let axes = [DVec3::Z, DVec3::Y, DVec3::X, DVec3::new(0.6, 0.8, 0.0)];
        for (i, a) in axes.iter().enumerate() {
            specs.push(LinkSpec {
                name: format!("l{}", i + 1),
                parent: Some(format!("l{i}")),
                joint: if i == 2 {
                    Joint::Prismatic {
                        axis: *a,
                        limits: None,
                    }
                } else {
                    Joint::Revolute {
                        axis: *a,
                        limits: None,
                    }
                },
                offset: DAffine3::from_translation(DVec3::new(0.5, 0.1 * i as f64, 0.2)),
            });
        }
        ArticulatedModel::new(specs).unwrap()
    }

    #[test]
    fn closed_form_equals_the_kinematics_bound_and_covers_sampled_speeds() {
        let model = chain();
        let q0 = [0.1, -0.2, 0.3, 0.2, -0.1, 0.4, 0.3, -0.5, 0.2, 1.1];
        let q1 = [0.4, 0.1, -0.2, -0.3, 0.5, 0.1, -1.2, 1.0, -0.3, -0.9];
        // joint 3 turns by 4.4 rad: more than π, the long way
        let q1 = {
            let mut q = q1;
            q[7] = 3.9;
            q
        };
        let motion = ArticulatedMotion::from_joints(&model, &q0, &q1).unwrap();
        let local = DVec3::new(0.2, -0.3, 0.1);
        let r = local.length();
        for id in (0..model.len() as u32).map(LinkId) {
            for &t in &[0.0, 0.3, 0.7] {
                let s = link_speed_bound(&model, &motion, id, None, t);
                for n in [
                    DVec3::X,
                    DVec3::Y,
                    DVec3::Z,
                    DVec3::new(1.0, 2.0, -2.0) / 3.0,
                ] {
                    let ours = s.bound(n, r) * (1.0 - t);
                    let theirs = motion.motion_bound(id, n, r, t).unwrap();
                    assert!(
                        (ours - theirs).abs() <= 1e-9 * theirs.max(1.0),
                        "link {id:?} t {t}: {ours} vs {theirs}"
                    );
                    // finite differences of the world trajectory stay below the bound
                    let h = 1e-6;
                    for k in 0..20 {
                        let tau = t + (1.0 - t - h) * f64::from(k) / 19.0;
                        let a = motion.world_at(id, tau).unwrap().transform_point3(local);
                        let b = motion
                            .world_at(id, tau + h)
                            .unwrap()
                            .transform_point3(local);
                        assert!(((b - a) / h).dot(n).abs() <= s.bound(n, r) + 1e-5);
                    }
                }
            }
        }
    }
}
