//! Private closest-distance kernels for RSS–RSS distance: segment–segment, point–rectangle
//! and rectangle–rectangle. (Exact primitive distances with witnesses belong to
//! `ccd-distance`; these only return squared distances.)

use glam::DVec3;

/// Squared distance between segments `p1 q1` and `p2 q2`, any of which may have zero
/// length or be parallel (clamped closest-point parameters, Ericson, *Real-Time Collision
/// Detection*, Sec. 5.1.9).
///
/// The closest-point parameters take products of degree four in the coordinates, which
/// overflow from about `1e77` and underflow below about `1e-77` (a fuzz finding: at
/// coordinates ~4e79 the rectangles' edge pairs took their `s = 0` ends, and the RSS lower
/// bound exceeded the true distance by 1.7e77). Segments with a coordinate beyond `1e60` or
/// all within `1e-60` are therefore computed scaled by a power of two (exact, barring the
/// loss of subnormal bits, which is far below the callers' slack) and the result is scaled
/// back; one that then overflows (coordinates beyond ~1e154, outside every caller's domain)
/// is 0, which no lower bound can get wrong.
#[inline]
pub(crate) fn segment_segment_dist2(p1: DVec3, q1: DVec3, p2: DVec3, q2: DVec3) -> f64 {
    let m = p1
        .abs()
        .max(q1.abs())
        .max(p2.abs())
        .max(q2.abs())
        .max_element();
    if !(1e-60..=1e60).contains(&m) && m > 0.0 && m.is_finite() {
        // 2^k ≤ m < 2^(k+1); the inputs scaled into [1, 2)
        let k = m.log2().floor() as i32;
        let down = pow2(-k);
        let r = segment_segment_dist2_core(p1 * down, q1 * down, p2 * down, q2 * down);
        let up = pow2(k);
        let back = r * up * up;
        return if back.is_finite() { back } else { 0.0 };
    }
    segment_segment_dist2_core(p1, q1, p2, q2)
}

/// `2^k` for `|k| ≤ 1022` (normal range), by its bits.
#[inline]
fn pow2(k: i32) -> f64 {
    f64::from_bits(((k.clamp(-1022, 1023) + 1023) as u64) << 52)
}

/// [`segment_segment_dist2`] without the rescaling (coordinates of moderate magnitude).
#[inline]
fn segment_segment_dist2_core(p1: DVec3, q1: DVec3, p2: DVec3, q2: DVec3) -> f64 {
    let d1 = q1 - p1;
    let d2 = q2 - p2;
    let r = p1 - p2;
    let a = d1.length_squared();
    let e = d2.length_squared();
    let f = d2.dot(r);
    let tiny = 1e-300;
    let (s, t);
    if a <= tiny && e <= tiny {
        return r.length_squared();
    }
    if a <= tiny {
        s = 0.0;
        t = (f / e).clamp(0.0, 1.0);
    } else {
        let c = d1.dot(r);
        if e <= tiny {
            t = 0.0;
            s = (-c / a).clamp(0.0, 1.0);
        } else {
            let b = d1.dot(d2);
            let denom = a * e - b * b;
            let s0 = if denom > 1e-14 * a * e {
                ((b * f - c * e) / denom).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let t0 = (b * s0 + f) / e;
            if t0 < 0.0 {
                t = 0.0;
                s = (-c / a).clamp(0.0, 1.0);
            } else if t0 > 1.0 {
                t = 1.0;
                s = ((b - c) / a).clamp(0.0, 1.0);
            } else {
                t = t0;
                s = s0;
            }
        }
    }
    (p1 + d1 * s - (p2 + d2 * t)).length_squared()
}

/// A rectangle `origin + s u + t v`, `s ∈ [0, lu]`, `t ∈ [0, lv]`, with unit orthogonal `u`,
/// `v`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Rect {
    pub(crate) origin: DVec3,
    pub(crate) u: DVec3,
    pub(crate) v: DVec3,
    pub(crate) lu: f64,
    pub(crate) lv: f64,
}

impl Rect {
    #[inline]
    fn corners(&self) -> [DVec3; 4] {
        let a = self.origin;
        let b = a + self.u * self.lu;
        let c = b + self.v * self.lv;
        let d = a + self.v * self.lv;
        [a, b, c, d]
    }

    /// Squared distance from `p` to the rectangle.
    #[inline]
    pub(crate) fn point_dist2(&self, p: DVec3) -> f64 {
        let d = p - self.origin;
        let s = d.dot(self.u).clamp(0.0, self.lu);
        let t = d.dot(self.v).clamp(0.0, self.lv);
        (p - (self.origin + self.u * s + self.v * t)).length_squared()
    }

    /// True when an edge of the closed polygon `corners` crosses the rectangle's plane at a
    /// point of the rectangle. Edges lying in the plane are not reported (their contacts are
    /// found by the edge and vertex tests).
    #[inline]
    fn crossed_by_edges(&self, corners: &[DVec3; 4]) -> bool {
        let n = self.u.cross(self.v);
        let sd = corners.map(|c| (c - self.origin).dot(n));
        if sd.iter().all(|&x| x > 0.0) || sd.iter().all(|&x| x < 0.0) {
            return false;
        }
        for k in 0..4 {
            let (dp, dq) = (sd[k], sd[(k + 1) % 4]);
            if dp * dq > 0.0 || dp == dq {
                continue;
            }
            let (p, q) = (corners[k], corners[(k + 1) % 4]);
            let x = p + (q - p) * (dp / (dp - dq)) - self.origin;
            let s = x.dot(self.u);
            let t = x.dot(self.v);
            if (0.0..=self.lu).contains(&s) && (0.0..=self.lv).contains(&t) {
                return true;
            }
        }
        false
    }
}

/// Midpoints and half lengths of the four edges of a rectangle with corners `c` (edges 0 and
/// 2 have length `lu`, edges 1 and 3 length `lv`).
#[inline]
fn edge_spheres(c: &[DVec3; 4], lu: f64, lv: f64) -> [(DVec3, f64); 4] {
    [
        ((c[0] + c[1]) * 0.5, 0.5 * lu),
        ((c[1] + c[2]) * 0.5, 0.5 * lv),
        ((c[2] + c[3]) * 0.5, 0.5 * lu),
        ((c[3] + c[0]) * 0.5, 0.5 * lv),
    ]
}

/// Distance between two rectangles: the minimum over the 16 edge pairs and the 8
/// vertex–rectangle pairs, or 0 when an edge of one crosses the other. (Some closest pair
/// has a point on the boundary of one rectangle, so these cases cover all configurations.)
#[must_use]
pub(crate) fn rect_rect_distance(a: &Rect, b: &Rect) -> f64 {
    let ca = a.corners();
    let cb = b.corners();
    if b.crossed_by_edges(&ca) || a.crossed_by_edges(&cb) {
        return 0.0;
    }
    let mut best = f64::INFINITY;
    for i in 0..4 {
        best = best.min(b.point_dist2(ca[i])).min(a.point_dist2(cb[i]));
    }
    // edge pairs, skipping those whose bounding spheres (midpoint, half length) are already
    // farther apart than the best distance so far (a safe prune: it only skips pairs that
    // cannot improve `best`)
    let ma = edge_spheres(&ca, a.lu, a.lv);
    let mb = edge_spheres(&cb, b.lu, b.lv);
    for i in 0..4 {
        let (p1, q1) = (ca[i], ca[(i + 1) % 4]);
        let (m1, h1) = ma[i];
        for j in 0..4 {
            let (m2, h2) = mb[j];
            let gap = m1.distance(m2) - h1 - h2;
            if gap > 0.0 && gap * gap >= best {
                continue;
            }
            best = best.min(segment_segment_dist2(p1, q1, cb[j], cb[(j + 1) % 4]));
        }
    }
    best.sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brute_seg(p1: DVec3, q1: DVec3, p2: DVec3, q2: DVec3) -> f64 {
        let n = 200;
        let mut best = f64::INFINITY;
        for i in 0..=n {
            let a = p1.lerp(q1, f64::from(i) / f64::from(n));
            for j in 0..=n {
                let b = p2.lerp(q2, f64::from(j) / f64::from(n));
                best = best.min(a.distance_squared(b));
            }
        }
        best
    }

    #[test]
    fn segment_distances_hold_at_every_scale() {
        // the same configurations scaled by 2^k (exact): squared distances scale by 4^k, up
        // to the rounding of the unscaled computation (a fuzz finding at 2^250: overflowing
        // degree-4 products gave the s = 0 end of a segment, far from the closest point)
        let cases = [
            (
                DVec3::ZERO,
                DVec3::new(7.0, 0.0, 0.0),
                DVec3::new(3.0, -2.0, 1.0),
                DVec3::new(3.5, 4.0, 1.0),
            ),
            (
                DVec3::new(-1.0, 2.0, 0.5),
                DVec3::new(5.0, -3.0, 2.0),
                DVec3::new(0.0, 0.0, 0.0),
                DVec3::new(2.0, 2.0, -2.0),
            ),
            (
                DVec3::ZERO,
                DVec3::X,
                DVec3::new(0.5, 0.0, 0.0),
                DVec3::new(0.5, 1.0, 0.0),
            ),
        ];
        for (p1, q1, p2, q2) in cases {
            let unit = segment_segment_dist2(p1, q1, p2, q2);
            for k in [-300, -250, -120, -60, 60, 120, 250, 300] {
                let s = pow2(k);
                let got = segment_segment_dist2(p1 * s, q1 * s, p2 * s, q2 * s);
                let want = unit * s * s;
                assert!(
                    (got - want).abs() <= 1e-12 * (want + s * s),
                    "2^{k}: {got:e} vs {want:e}"
                );
            }
        }
    }

    #[test]
    fn segments_parallel_degenerate_and_crossing() {
        let cases = [
            (
                DVec3::ZERO,
                DVec3::X,
                DVec3::new(0.5, 1.0, 0.0),
                DVec3::new(2.0, 1.0, 0.0),
            ),
            (
                DVec3::ZERO,
                DVec3::X,
                DVec3::new(0.5, -1.0, 1.0),
                DVec3::new(0.5, 1.0, 1.0),
            ),
            (
                DVec3::ZERO,
                DVec3::ZERO,
                DVec3::new(0.5, -1.0, 1.0),
                DVec3::new(0.5, 1.0, 1.0),
            ),
            (DVec3::ONE, DVec3::ONE, DVec3::ZERO, DVec3::ZERO),
            (
                DVec3::ZERO,
                DVec3::X,
                DVec3::new(2.0, 0.0, 0.0),
                DVec3::new(3.0, 0.0, 0.0),
            ),
            (
                DVec3::ZERO,
                DVec3::new(1.0, 1.0, 0.0),
                DVec3::new(1.0, 0.0, 0.0),
                DVec3::new(0.0, 1.0, 0.0),
            ),
        ];
        for (p1, q1, p2, q2) in cases {
            let d = segment_segment_dist2(p1, q1, p2, q2);
            let b = brute_seg(p1, q1, p2, q2);
            assert!(d <= b + 1e-12 && b - d < 1e-3, "{d} vs {b}");
        }
        assert!(
            segment_segment_dist2(DVec3::ZERO, DVec3::new(1.0, 1.0, 0.0), DVec3::X, DVec3::Y)
                < 1e-24
        );
    }

    #[test]
    fn rectangles_crossing_and_stacked() {
        let a = Rect {
            origin: DVec3::ZERO,
            u: DVec3::X,
            v: DVec3::Y,
            lu: 2.0,
            lv: 1.0,
        };
        // b stands vertically through a's middle
        let b = Rect {
            origin: DVec3::new(0.5, 0.5, -1.0),
            u: DVec3::Y,
            v: DVec3::Z,
            lu: 0.2,
            lv: 2.0,
        };
        assert_eq!(rect_rect_distance(&a, &b), 0.0);
        // c is a parallel, smaller copy 0.7 above the interior
        let c = Rect {
            origin: DVec3::new(0.5, 0.2, 0.7),
            u: DVec3::X,
            v: DVec3::Y,
            lu: 0.5,
            lv: 0.5,
        };
        assert!((rect_rect_distance(&a, &c) - 0.7).abs() < 1e-12);
        // a cross shape: two coplanar rectangles overlapping without containing vertices
        let d = Rect {
            origin: DVec3::new(0.8, -1.0, 0.0),
            u: DVec3::X,
            v: DVec3::Y,
            lu: 0.3,
            lv: 3.0,
        };
        assert_eq!(rect_rect_distance(&a, &d), 0.0);
    }
}
