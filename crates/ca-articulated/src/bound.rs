//! Motion bounds of links (CATCH, Sec. 6, Eq. 7–10) in the closed form CA steps use, and
//! the pair motions handed to `ccd-ca-rigid`'s window CA.

use ccd_ca_rigid::{PairMotion, SpeedBound};
use ccd_kinematics::{ArticulatedModel, ArticulatedMotion, LinkId, RigidMotion};
use glam::DAffine3;

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
}

#[cfg(test)]
mod tests {
    use super::*;
    use ccd_kinematics::{Joint, LinkSpec};
    use glam::DVec3;

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
