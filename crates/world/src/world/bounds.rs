//! Distance and time-of-contact lower bounds of a pair of bodies (sphere and box bounds, a
//! certified GJK gap along a direction, the bodies' speeds along it): what temporal culling
//! and scheduling use before any conservative advancement runs.

use super::*;

/// A lower bound of the distance of two bodies at given poses, and the separating slab it
/// came from when a convex bound gave one.
#[derive(Clone, Copy, Debug)]
pub(super) struct Gap {
    /// The distance lower bound (rounding allowance subtracted).
    pub(super) d: f64,
    /// A unit direction `n` (world frame, from A towards B) and a lower bound of
    /// `min n·(y − x)` over the points `x` of A and `y` of B (rounding allowance
    /// subtracted): the bodies are separated by a slab of that width along `n`.
    pub(super) slab: Option<(DVec3, f64)>,
    /// The GJK warm start after this bound (hull pairs whose GJK ran).
    pub(super) gjk: Option<GjkCache>,
}

/// A lower bound of the distance of two bodies at poses `pa`, `pb` with world boxes `ba`,
/// `bb`: the best of the sphere gap, the box gap and (when both are convex or carry hulls)
/// the proven lower bound of their convex distance (GJK between hulls, the pair kernels of
/// `ccd-distance` for analytic shapes), less a rounding allowance; with the convex bound's
/// separating slab (exact support functions of the hulls along GJK's direction, the slab of
/// the analytic kernels, which may stop once within `ε/4` of the distance). The convex
/// distance runs only while the cheap bounds are below `enough`; GJK between hulls starts
/// from `warm` (the pair's last simplex: any start gives proven bounds).
#[allow(clippy::too_many_arguments)]
pub(super) fn distance_lower_bound(
    a: &Body,
    pa: &DAffine3,
    ba: &Aabb,
    b: &Body,
    pb: &DAffine3,
    bb: &Aabb,
    enough: f64,
    eps: f64,
    warm: Option<GjkCache>,
) -> Gap {
    let (ra, rb) = (a.collider.radius(), b.collider.radius());
    let (ca, cb) = (pa.translation, pb.translation);
    let scale = 1.0 + ca.abs().max_element() + cb.abs().max_element() + ra + rb;
    let allowance = 1e-9 * scale;
    let sphere = ca.distance(cb) - ra - rb;
    // (the boxes are widened: their distance is below the bodies')
    let mut d = sphere.max(ba.distance(bb));
    let mut slab = None;
    let mut gjk = None;
    if d < enough
        && let (Some(ca), Some(cb)) = (a.collider.convex_bound(), b.collider.convex_bound())
    {
        let (lower, s) = match (ca, cb) {
            (ConvexShape::Hull(ha), ConvexShape::Hull(hb)) => {
                let mut cache = warm.unwrap_or_default();
                let r = gjk_distance_cached(ha, pa, hb, pb, &GjkOptions::default(), &mut cache);
                gjk = Some(cache);
                match r {
                    Ok(r) => {
                        let s = if r.intersecting {
                            None
                        } else {
                            r.normal
                                .try_normalize()
                                .map(|n| (n, hull_gap_along(ha, pa, hb, pb, n).min(r.distance)))
                        };
                        (r.lower_bound, s)
                    }
                    Err(_) => (f64::NAN, None),
                }
            }
            // (B's pose in A's frame: a rigid inverse; the slab is along the normal, in
            // A's frame)
            _ => {
                let r = convex_distance_within(ca, cb, &(rigid_inverse(pa) * *pb), 0.25 * eps);
                let s = (pa.matrix3 * r.normal)
                    .try_normalize()
                    .map(|n| (n, r.lower_bound));
                (r.lower_bound, s)
            }
        };
        if lower.is_finite() {
            d = d.max(lower);
        }
        slab = s.filter(|(n, w)| n.is_finite() && w.is_finite());
    }
    Gap {
        d: d - allowance,
        slab: slab.map(|(n, w)| (n, w - allowance)),
        gjk,
    }
}

/// Separation of two hulls along the unit direction `n` (world frame), from their exact
/// support functions: `min_{y∈B} y·n − max_{x∈A} x·n` (positive: a separating slab of that
/// width).
pub(super) fn hull_gap_along(
    a: &ConvexHull,
    pa: &DAffine3,
    b: &ConvexHull,
    pb: &DAffine3,
    n: DVec3,
) -> f64 {
    let (sa, _) = a.support(pa.matrix3.transpose() * n);
    let (sb, _) = b.support(pb.matrix3.transpose() * -n);
    pb.transform_point3(sb).dot(n) - pa.transform_point3(sa).dot(n)
}

/// A bound on the rate at which `n·(y − x)` can shrink for points `x` of A and `y` of B
/// (unit `n`, world frame): `|Δv·n| + ω_a r_a |u_a × n| + ω_b r_b |u_b × n|` (a point at
/// offset `p` from its body's origin moves with `v + ω u × p` and
/// `|(u × p)·n| = |p·(n × u)| ≤ r |u × n|`), rounded up.
pub(super) fn projected_speed(a: &Body, b: &Body, n: DVec3) -> f64 {
    let (ma, mb) = (&a.motion, &b.motion);
    let lin = (mb.linear_velocity() - ma.linear_velocity()).dot(n).abs();
    let turn = |m: &RigidMotion, r: f64| {
        if m.angle() == 0.0 {
            0.0
        } else {
            m.angle() * r * m.axis().cross(n).length()
        }
    };
    (lin + turn(ma, a.collider.radius()) + turn(mb, b.collider.radius())) * (1.0 + 1e-9)
}

/// [`World::toc_lower_bound`] on the world's parts (slots, the last step's end bounds,
/// the warm starts, the tolerance `eps`), so that it can run beside the sweep-and-prune's
/// update.
pub(super) fn toc_lower_bound_in(
    slots: &[Slot],
    ends: &EndBounds,
    warm: &WarmStarts,
    eps: f64,
    key: u64,
) -> (f64, Gap) {
    let (a, b) = pair_in(slots, key);
    let v = (a.speed + b.speed) * (1.0 + 1e-9);
    // a pair found free at the end of the last step whose bodies kept their epochs
    // starts where that step ended (a body whose motion starts elsewhere gets a new
    // epoch): its bound there is known
    let gap = match ends.get(&key) {
        Some(&(epochs, g)) if epochs == [a.epoch, b.epoch] => g,
        _ => distance_lower_bound(
            a,
            &a.motion.pose_at(0.0),
            &a.box0,
            b,
            &b.motion.pose_at(0.0),
            &b.box0,
            2.0 * (eps + v),
            eps,
            warm.get(&key).map(|w| w.1),
        ),
    };
    let d = gap.d - eps;
    if d <= 0.0 {
        return (0.0, gap);
    }
    let isotropic = if v > 0.0 { d / v } else { f64::INFINITY };
    // the slab along n stays open while n·(y − x) has not shrunk by its width less ε
    let along = match gap.slab {
        Some((n, w)) if w - eps > 0.0 => {
            let mu = projected_speed(a, b, n);
            if mu > 0.0 {
                (w - eps) / mu
            } else if mu == 0.0 {
                f64::INFINITY
            } else {
                0.0 // (a NaN bound proves nothing)
            }
        }
        _ => 0.0,
    };
    (isotropic.max(along), gap)
}
