//! Segment–segment distance, including parallel and zero-length segments.

use ccd_geometry::Segment;
use glam::DVec3;

use crate::point_segment::{segment_feature, segment_point_at};
use crate::{Closest, scale};

/// Squared sine of the angle below which two segments are treated as parallel. Below it the
/// line–line solution is noise; treating them as parallel costs at most `1e-14` times the
/// segment length (the distance along the common direction is that flat).
const PARALLEL: f64 = 1e-28;

/// Squared sine above which the normal equations (`a e - b²`) are accurate enough for the
/// line–line solution (relative error of the determinant at most `ε / 1e-6`).
const WELL_CONDITIONED: f64 = 1e-6;

/// Closest points of segments `a1 → b1` and `a2 → b2`: parameters `(s, t)` in `[0, 1]` and
/// the points (exact endpoints at parameters 0 and 1).
///
/// Minimises the convex quadratic `|a1 + s d1 - a2 - t d2|²` over the unit square: start
/// from the line–line solution (from the normal equations when well conditioned, else from
/// `d1 × d2`, which keeps full relative precision where `|d1|²|d2|² - (d1·d2)²` cancels),
/// clamp `s`, take the best `t` for it,
/// and if that `t` is clamped re-optimise `s` for the clamped `t`. Each step's optimality
/// follows from convexity (the unconstrained minimum over `t` is monotone along `s` away
/// from the line–line solution). Parallel or zero-length segments start from `s = 0`, so a
/// vertex witness is reported on `a` where the closest pair is not unique.
#[inline]
pub(crate) fn closest_segment_segment(
    a1: DVec3,
    b1: DVec3,
    a2: DVec3,
    b2: DVec3,
) -> (f64, f64, DVec3, DVec3) {
    let d1 = b1 - a1;
    let d2 = b2 - a2;
    let r = a1 - a2;
    let a = d1.length_squared();
    let e = d2.length_squared();
    let f = d2.dot(r);
    let (s, t);
    if a == 0.0 {
        s = 0.0;
        t = if e > 0.0 {
            (f / e).clamp(0.0, 1.0)
        } else {
            0.0
        };
    } else {
        let c = d1.dot(r);
        if e == 0.0 {
            t = 0.0;
            s = (-c / a).clamp(0.0, 1.0);
        } else {
            let b = d1.dot(d2);
            let ae = a * e;
            let denom = ae - b * b;
            let mut s0 = if denom > WELL_CONDITIONED * ae {
                // Well-conditioned: the normal equations lose at most 6 digits here.
                ((b * f - c * e) / denom).clamp(0.0, 1.0)
            } else {
                // Nearly parallel: |d1 × d2|² keeps full relative precision where
                // `a e - b²` cancels.
                let n = d1.cross(d2);
                let nn = n.length_squared();
                if nn > PARALLEL * ae {
                    ((-r).cross(d2).dot(n) / nn).clamp(0.0, 1.0)
                } else {
                    0.0
                }
            };
            let mut t0 = (b * s0 + f) / e;
            if t0 < 0.0 {
                t0 = 0.0;
                s0 = (-c / a).clamp(0.0, 1.0);
            } else if t0 > 1.0 {
                t0 = 1.0;
                s0 = ((b - c) / a).clamp(0.0, 1.0);
            }
            s = s0;
            t = t0;
        }
    }
    (
        s,
        t,
        segment_point_at(a1, b1, d1, s),
        segment_point_at(a2, b2, d2, t),
    )
}

/// Distance between segments `a` and `b`.
///
/// Features are `Vertex(0)`, `Vertex(1)` or `Edge(0, 1)` on each side (see [`Closest`]).
/// Parallel segments report a vertex witness where the closest pair is not unique;
/// zero-length segments are points. Inputs must be finite; the result never is NaN for
/// finite input.
///
/// # Example
/// ```
/// use ccd_distance::segment_segment;
/// use ccd_geometry::{glam::DVec3, Feature, Segment};
///
/// let a = Segment::new(DVec3::new(-1.0, 0.0, 0.0), DVec3::new(1.0, 0.0, 0.0));
/// let b = Segment::new(DVec3::new(0.0, -1.0, 2.0), DVec3::new(0.0, 1.0, 2.0));
/// let c = segment_segment(&a, &b);
/// assert_eq!(c.distance, 2.0);
/// assert_eq!((c.feature_a, c.feature_b), (Feature::Edge(0, 1), Feature::Edge(0, 1)));
///
/// // Parallel, overlapping: a vertex witness.
/// let p = Segment::new(DVec3::new(0.5, 0.0, 1.0), DVec3::new(3.0, 0.0, 1.0));
/// let c = segment_segment(&a, &p);
/// assert_eq!(c.distance, 1.0);
/// assert!(matches!(c.feature_a, Feature::Vertex(_)) || matches!(c.feature_b, Feature::Vertex(_)));
/// ```
#[inline]
#[must_use]
pub fn segment_segment(a: &Segment, b: &Segment) -> Closest {
    let (va, vb) = ([a.a, a.b], [b.a, b.b]);
    let m = scale::max_abs(&va).max(scale::max_abs(&vb));
    if scale::outside_window(m) {
        return scale::rescaled(&va, &vb, m, unscaled);
    }
    unscaled(&va, &vb)
}

/// [`segment_segment`] without the rescaling.
#[inline(always)]
fn unscaled(a: &[DVec3; 2], b: &[DVec3; 2]) -> Closest {
    let (s, t, p, q) = closest_segment_segment(a[0], a[1], b[0], b[1]);
    Closest::from_points(p, q, segment_feature(s, 0, 1), segment_feature(t, 0, 1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ccd_geometry::Feature;

    #[test]
    fn both_zero_length() {
        let a = Segment::new(DVec3::ZERO, DVec3::ZERO);
        let b = Segment::new(DVec3::X, DVec3::X);
        let c = segment_segment(&a, &b);
        assert_eq!(c.distance, 1.0);
        assert_eq!(
            (c.feature_a, c.feature_b),
            (Feature::Vertex(0), Feature::Vertex(0))
        );
    }

    #[test]
    fn one_zero_length() {
        let a = Segment::new(DVec3::new(0.5, 1.0, 0.0), DVec3::new(0.5, 1.0, 0.0));
        let b = Segment::new(DVec3::ZERO, DVec3::X);
        let c = segment_segment(&a, &b);
        assert_eq!(c.distance, 1.0);
        assert_eq!(c.feature_b, Feature::Edge(0, 1));
        let c = segment_segment(&b, &a);
        assert_eq!(c.distance, 1.0);
        assert_eq!(c.feature_a, Feature::Edge(0, 1));
    }

    #[test]
    fn collinear_disjoint() {
        let a = Segment::new(DVec3::ZERO, DVec3::X);
        let b = Segment::new(DVec3::new(3.0, 0.0, 0.0), DVec3::new(2.0, 0.0, 0.0));
        let c = segment_segment(&a, &b);
        assert_eq!(c.distance, 1.0);
        assert_eq!(
            (c.feature_a, c.feature_b),
            (Feature::Vertex(1), Feature::Vertex(1))
        );
    }

    #[test]
    fn nearly_parallel_crossing() {
        // Two long segments crossing at a tiny angle in their middle.
        let a = Segment::new(DVec3::new(-1.0, -1e-9, 0.0), DVec3::new(1.0, 1e-9, 0.0));
        let b = Segment::new(DVec3::new(-1.0, 1e-9, 1e-12), DVec3::new(1.0, -1e-9, 1e-12));
        let c = segment_segment(&a, &b);
        assert!((c.distance - 1e-12).abs() < 1e-15, "{}", c.distance);
    }
}
