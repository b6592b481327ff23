//! Safe-advancement keys of RSS node pairs: support-function gaps along a direction, and
//! the direction between the closest points of the two RSS rectangles.
//!
//! The key of a node pair is `gap_n / μ(n)`, where `gap_n` is a lower bound of
//! `min_{x∈X, y∈Y} n·(y − x)` for the two volumes and `μ(n)` bounds the rate at which that
//! projection can shrink. It is valid for *every* nonzero `n` (the slab between the volumes
//! stays open until the projected motion closes it), so the direction only decides how tight
//! the key is, never whether it is safe. That lets the direction come from a fast,
//! approximate rectangle closest-point search, while the gap is computed exactly from the
//! RSS support functions and rounded down.

use ccd_bvh::Rss;
use glam::{DAffine3, DVec3};

/// Rounding margin of a support gap whose terms are bounded by `scale` in magnitude: each
/// dot product and sum carries a relative error of a few ulps; 64 ulps covers them with room.
#[inline]
fn gap_slack(scale: f64) -> f64 {
    64.0 * f64::EPSILON * scale
}

/// A lower bound of `min_{x∈X, y∈Y} n·(y − x)` for the RSS `x` (in A's frame) and the RSS
/// `y` mapped into A's frame by `pos_ab`; `n` (A's frame) need not be unit. Negative or
/// zero when the volumes are not separated along `n`.
///
/// Support of an RSS along `m`: `m·o + max(0, l₀ m·u) + max(0, l₁ m·v) + r|m|`, the
/// rectangle's extreme corner plus the sphere.
#[inline]
pub(crate) fn rss_gap(x: &Rss, y: &Rss, pos_ab: &DAffine3, n: DVec3) -> f64 {
    let nn = n.length();
    // max over X of n·p
    let (xu, xv) = (n.dot(x.rotation.x_axis), n.dot(x.rotation.y_axis));
    let hx = n.dot(x.origin)
        + (x.lengths[0] * xu).max(0.0)
        + (x.lengths[1] * xv).max(0.0)
        + x.radius * nn;
    // min over Y of n·(R q + T) = n·T + min over q of (Rᵀ n)·q
    let nb = pos_ab.matrix3.transpose() * n;
    let (yu, yv) = (nb.dot(y.rotation.x_axis), nb.dot(y.rotation.y_axis));
    let ly = n.dot(pos_ab.translation)
        + nb.dot(y.origin)
        + (y.lengths[0] * yu).min(0.0)
        + (y.lengths[1] * yv).min(0.0)
        - y.radius * nn;
    let scale = nn
        * (x.origin.abs().max_element()
            + x.lengths[0]
            + x.lengths[1]
            + x.radius
            + pos_ab.translation.abs().max_element()
            + y.origin.abs().max_element()
            + y.lengths[0]
            + y.lengths[1]
            + y.radius);
    ly - hx - gap_slack(scale)
}

/// `max |(p − c)·m|` over the points `p` of the RSS (its own frame, as `c`; `lm = |m|`),
/// from the support functions on `±m`, rounded up.
#[inline]
pub(crate) fn rss_extent(r: &Rss, m: DVec3, lm: f64, c: DVec3) -> f64 {
    let o = r.origin - c;
    let p = m.dot(o);
    let pu = r.lengths[0] * m.dot(r.rotation.x_axis);
    let pv = r.lengths[1] * m.dot(r.rotation.y_axis);
    let hi = p + pu.max(0.0) + pv.max(0.0);
    let lo = p + pu.min(0.0) + pv.min(0.0);
    let e = hi.max(-lo) + r.radius * lm;
    e + gap_slack(
        lm * (o.abs().max_element()
            + c.abs().max_element()
            + r.lengths[0]
            + r.lengths[1]
            + r.radius),
    )
}

/// Centre of an RSS's rectangle (its own frame).
#[inline]
pub(crate) fn rss_center(r: &Rss) -> DVec3 {
    r.origin + r.rotation.x_axis * (0.5 * r.lengths[0]) + r.rotation.y_axis * (0.5 * r.lengths[1])
}

/// A point of the rectangle of `x` and a point of the rectangle of `y` (mapped into `x`'s
/// frame by `pos_ab`; both in that frame) that are close to each other: two rounds of
/// alternating projection starting at `y`'s centre (cheap: three clamped projections). Their
/// distance less the radii bounds the distance of the volumes from above (up to a few ulps
/// of rounding); for separated rectangles it is near the closest pair, whose direction
/// makes a good separating direction.
#[inline]
pub(crate) fn rss_near_points(x: &Rss, y: &Rss, pos_ab: &DAffine3) -> (DVec3, DVec3) {
    let (ux, vx) = (x.rotation.x_axis, x.rotation.y_axis);
    let uy = pos_ab.matrix3 * y.rotation.x_axis;
    let vy = pos_ab.matrix3 * y.rotation.y_axis;
    let oy = pos_ab.transform_point3(y.origin);
    let (ax, bx, ay, by) = (x.lengths[0], x.lengths[1], y.lengths[0], y.lengths[1]);
    // (`max`/`min` instead of `clamp`: no panic on NaN, which then fails every comparison)
    let on_x = |q: DVec3| {
        let r = q - x.origin;
        x.origin + ux * r.dot(ux).max(0.0).min(ax) + vx * r.dot(vx).max(0.0).min(bx)
    };
    let on_y = |p: DVec3| {
        let r = p - oy;
        oy + uy * r.dot(uy).max(0.0).min(ay) + vy * r.dot(vy).max(0.0).min(by)
    };
    let q = on_y(on_x(oy + uy * (0.5 * ay) + vy * (0.5 * by)));
    (on_x(q), q)
}

/// An approximate closest-point direction (from `x` towards `y`, A's frame, not normalized)
/// between the rectangles of two RSSs, or `None` when the search found them touching.
///
/// Works in `x`'s rectangle frame, where it is `[0, a] × [0, b] × {0}`. Candidates: the
/// four corners of each rectangle against the other (clamped projections), and the sixteen
/// edge pairs at the closest points of `y`'s edge to the line of `x`'s edge (kept when that
/// point projects inside `x`'s edge). These are the closest pairs of every configuration but
/// crossing rectangles (reported as touching by the gap anyway); only the direction is used,
/// so rounding here cannot make a key unsafe.
pub(crate) fn rect_direction(x: &Rss, y: &Rss, pos_ab: &DAffine3) -> Option<DVec3> {
    let rt = x.rotation.transpose();
    let m = rt * pos_ab.matrix3;
    let p0 = rt * (pos_ab.transform_point3(y.origin) - x.origin);
    let du = m * y.rotation.x_axis * y.lengths[0];
    let dv = m * y.rotation.y_axis * y.lengths[1];
    let (a, b) = (x.lengths[0], x.lengths[1]);
    let qc = [p0, p0 + du, p0 + du + dv, p0 + dv];
    // fast case (PQP's common one): y entirely on one side of x's plane with its lowest
    // corner above x's rectangle — nothing of y is nearer than that corner
    let (zlo, zhi) = qc
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), q| {
            (lo.min(q.z), hi.max(q.z))
        });
    if zlo > 0.0 || zhi < 0.0 {
        let k = if zlo > 0.0 {
            qc.iter().position(|q| q.z == zlo)
        } else {
            qc.iter().position(|q| q.z == zhi)
        };
        if let Some(q) = k.map(|k| qc[k])
            && (0.0..=a).contains(&q.x)
            && (0.0..=b).contains(&q.y)
        {
            return Some(x.rotation.z_axis * q.z);
        }
    }
    let (lu2, lv2) = (du.length_squared(), dv.length_squared());
    let (iu, iv) = (
        if lu2 > 0.0 { 1.0 / lu2 } else { 0.0 },
        if lv2 > 0.0 { 1.0 / lv2 } else { 0.0 },
    );
    let xc = [
        DVec3::ZERO,
        DVec3::new(a, 0.0, 0.0),
        DVec3::new(a, b, 0.0),
        DVec3::new(0.0, b, 0.0),
    ];
    // the same with the roles swapped: x on one side of y's plane
    let ny = du.cross(dv);
    if ny != DVec3::ZERO {
        let h = xc.map(|p| (p - p0).dot(ny));
        let (hlo, hhi) = h
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
                (lo.min(v), hi.max(v))
            });
        if hlo > 0.0 || hhi < 0.0 {
            let target = if hlo > 0.0 { hlo } else { hhi };
            if let Some(k) = h.iter().position(|&v| v == target) {
                let r = xc[k] - p0;
                let (s, t) = (r.dot(du) * iu, r.dot(dv) * iv);
                if (0.0..=1.0).contains(&s) && (0.0..=1.0).contains(&t) {
                    // from x's corner straight to y's plane
                    return Some(x.rotation * (ny * (-target / ny.length_squared())));
                }
            }
        }
    }
    // (squared distance, point on x, point on y), x's rectangle frame
    let mut best = (f64::INFINITY, DVec3::ZERO, DVec3::ZERO);
    // y's corners against x
    for q in qc {
        let p = DVec3::new(q.x.clamp(0.0, a), q.y.clamp(0.0, b), 0.0);
        let d2 = p.distance_squared(q);
        if d2 < best.0 {
            best = (d2, p, q);
        }
    }
    // x's corners against y (in y's rectangle coordinates)
    for p in xc {
        let r = p - p0;
        let s = (r.dot(du) * iu).clamp(0.0, 1.0);
        let t = (r.dot(dv) * iv).clamp(0.0, 1.0);
        let q = p0 + du * s + dv * t;
        let d2 = p.distance_squared(q);
        if d2 < best.0 {
            best = (d2, p, q);
        }
    }
    // edge pairs: y's edge (start, direction) against the lines of x's edges
    let edges = [(qc[0], du), (qc[1], dv), (qc[3], du), (qc[0], dv)];
    for (q, d) in edges {
        // x's edges along its x axis at y = 0 and y = b (2D problem in the (y, z) plane)
        let den = d.y * d.y + d.z * d.z;
        for y0 in [0.0, b] {
            let t = if den > 0.0 {
                (((y0 - q.y) * d.y - q.z * d.z) / den).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let pt = q + d * t;
            if (0.0..=a).contains(&pt.x) {
                let p = DVec3::new(pt.x, y0, 0.0);
                let d2 = p.distance_squared(pt);
                if d2 < best.0 {
                    best = (d2, p, pt);
                }
            }
        }
        // x's edges along its y axis at x = 0 and x = a
        let den = d.x * d.x + d.z * d.z;
        for x0 in [0.0, a] {
            let t = if den > 0.0 {
                (((x0 - q.x) * d.x - q.z * d.z) / den).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let pt = q + d * t;
            if (0.0..=b).contains(&pt.y) {
                let p = DVec3::new(x0, pt.y, 0.0);
                let d2 = p.distance_squared(pt);
                if d2 < best.0 {
                    best = (d2, p, pt);
                }
            }
        }
    }
    let n = x.rotation * (best.2 - best.1);
    (best.0 > 0.0 && n.is_finite()).then_some(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{DMat3, DQuat};

    fn sample(r: &Rss, k: usize) -> DVec3 {
        // points of the RSS on a grid of the rectangle pushed out by the radius
        let (i, j, s) = (k % 5, (k / 5) % 5, k / 25);
        let dir = [
            DVec3::Z,
            -DVec3::Z,
            DVec3::X,
            -DVec3::X,
            DVec3::Y,
            -DVec3::Y,
            DVec3::ONE.normalize(),
        ][s % 7];
        r.origin
            + r.rotation.x_axis * (r.lengths[0] * i as f64 / 4.0)
            + r.rotation.y_axis * (r.lengths[1] * j as f64 / 4.0)
            + r.rotation * dir * r.radius
    }

    #[test]
    fn gap_is_below_every_sampled_separation_and_tight_on_the_axis() {
        let x = Rss::new(DMat3::IDENTITY, DVec3::ZERO, [2.0, 1.0], 0.1);
        let y = Rss::new(
            DMat3::from_quat(DQuat::from_rotation_y(0.4)),
            DVec3::new(0.3, -0.2, 0.0),
            [1.0, 0.5],
            0.05,
        );
        let pos = DAffine3::from_rotation_translation(
            DQuat::from_rotation_x(0.7),
            DVec3::new(0.5, 0.2, 3.0),
        );
        for n in [
            DVec3::Z,
            DVec3::new(0.1, -0.3, 1.0),
            DVec3::new(1.0, 2.0, 3.0) * 0.1,
        ] {
            let g = rss_gap(&x, &y, &pos, n);
            for i in 0..175 {
                for j in 0..175 {
                    let (p, q) = (sample(&x, i), pos.transform_point3(sample(&y, j)));
                    assert!(n.dot(q - p) >= g, "{n}: {} < {g}", n.dot(q - p));
                }
            }
        }
        // two flat squares stacked along z: the gap along z is the distance between them
        let s = Rss::new(DMat3::IDENTITY, DVec3::ZERO, [1.0, 1.0], 0.0);
        let up = DAffine3::from_translation(DVec3::new(0.2, 0.1, 2.0));
        assert!((rss_gap(&s, &s, &up, DVec3::Z) - 2.0).abs() < 1e-12);
        let n = rect_direction(&s, &s, &up).expect("apart");
        assert!(n.normalize().dot(DVec3::Z) > 1.0 - 1e-12, "{n}");
    }

    #[test]
    fn near_points_lie_on_the_rectangles_and_bound_the_distance_from_above() {
        // a deterministic spread of rectangle pairs: tilted, offset, overlapping or apart
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut unit = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut apart = 0;
        for _ in 0..2000 {
            let rss = |unit: &mut dyn FnMut() -> f64| {
                let q = DQuat::from_euler(
                    glam::EulerRot::XYZ,
                    6.0 * unit(),
                    6.0 * unit(),
                    6.0 * unit(),
                );
                Rss::new(
                    DMat3::from_quat(q),
                    DVec3::new(unit() - 0.5, unit() - 0.5, unit() - 0.5),
                    [2.0 * unit(), 2.0 * unit()],
                    0.2 * unit(),
                )
            };
            let (x, y) = (rss(&mut unit), rss(&mut unit));
            let pos = DAffine3::from_rotation_translation(
                DQuat::from_euler(glam::EulerRot::ZYX, 6.0 * unit(), 6.0 * unit(), 0.0),
                DVec3::new(4.0 * unit() - 2.0, 4.0 * unit() - 2.0, 4.0 * unit() - 2.0),
            );
            let (p, q) = rss_near_points(&x, &y, &pos);
            // p on x's rectangle, q on y's (in their frames), to rounding
            let lx = x.rotation.transpose() * (p - x.origin);
            let ly = y.rotation.transpose() * (pos.inverse().transform_point3(q) - y.origin);
            for (l, r) in [(lx, &x), (ly, &y)] {
                assert!(l.z.abs() < 1e-12, "{l}");
                assert!(l.x > -1e-12 && l.x < r.lengths[0] + 1e-12, "{l}");
                assert!(l.y > -1e-12 && l.y < r.lengths[1] + 1e-12, "{l}");
            }
            // an upper bound of the volumes' distance: at least every separating slab
            let upper = p.distance(q) - x.radius - y.radius;
            if let Some(n) = rect_direction(&x, &y, &pos) {
                let lower = rss_gap(&x, &y, &pos, n) / n.length();
                if lower > 0.0 {
                    apart += 1;
                }
                assert!(upper >= lower - 1e-12, "{upper} < {lower}");
            }
        }
        assert!(apart > 500, "only {apart} separated pairs");
        // two flat squares crossing each other: the near points meet (distance 0)
        let s = Rss::new(DMat3::IDENTITY, DVec3::ZERO, [1.0, 1.0], 0.0);
        let cross = DAffine3::from_rotation_translation(
            DQuat::from_rotation_x(std::f64::consts::FRAC_PI_2),
            DVec3::new(0.0, 0.5, -0.5),
        );
        let (p, q) = rss_near_points(&s, &s, &cross);
        assert!(p.distance(q) < 1e-12, "{p} {q}");
    }

    #[test]
    fn direction_of_edge_to_edge_and_corner_to_face() {
        let s = Rss::new(DMat3::IDENTITY, DVec3::ZERO, [1.0, 1.0], 0.0);
        // crossed edges: y's square rotated 90° about x, hanging its lower edge 1 above the
        // middle of x (closest pair: interior of an edge of each)
        let pos = DAffine3::from_rotation_translation(
            DQuat::from_rotation_z(0.5) * DQuat::from_rotation_x(std::f64::consts::FRAC_PI_2),
            DVec3::new(0.2, -0.1, 1.0),
        );
        let n = rect_direction(&s, &s, &pos).expect("apart");
        let d = n.length();
        assert!((d - 1.0).abs() < 1e-9, "{n}");
        // a corner of y above the face of x
        let tilt = DAffine3::from_rotation_translation(
            DQuat::from_rotation_x(0.6) * DQuat::from_rotation_y(0.6),
            DVec3::new(0.0, 0.2, 1.5),
        );
        let n = rect_direction(&s, &s, &tilt).expect("apart");
        assert!(n.normalize().dot(DVec3::Z) > 1.0 - 1e-12, "{n}");
        // crossing rectangles: no direction
        let cross = DAffine3::from_rotation_translation(
            DQuat::from_rotation_x(std::f64::consts::FRAC_PI_2),
            DVec3::new(0.0, 0.5, -0.5),
        );
        let g = rss_gap(&s, &s, &cross, DVec3::new(0.3, 0.2, 1.0));
        assert!(g <= 0.0);
    }
}
