//! Point–segment distance (`point_segment`, mirrored `segment_point`).

use ccd_geometry::{Feature, Segment};
use glam::DVec3;

use crate::{Closest, scale};

/// Parameter in `[0, 1]` of the point of the segment `a + t d` closest to `p` (`0` for a
/// zero-length segment).
#[inline]
pub(crate) fn segment_param(p: DVec3, a: DVec3, d: DVec3) -> f64 {
    let dd = d.length_squared();
    if dd > 0.0 {
        ((p - a).dot(d) / dd).clamp(0.0, 1.0)
    } else {
        0.0
    }
}

/// The point at parameter `t` of the segment `a → b` (direction `d = b - a`), snapped to the
/// exact endpoint at `t = 0` and `t = 1`.
#[inline]
pub(crate) fn segment_point_at(a: DVec3, b: DVec3, d: DVec3, t: f64) -> DVec3 {
    if t <= 0.0 {
        a
    } else if t >= 1.0 {
        b
    } else {
        a + d * t
    }
}

/// The feature of the segment between local vertices `i` and `j` at parameter `t`.
#[inline]
pub(crate) fn segment_feature(t: f64, i: u32, j: u32) -> Feature {
    if t <= 0.0 {
        Feature::Vertex(i)
    } else if t >= 1.0 {
        Feature::Vertex(j)
    } else {
        Feature::edge(i, j)
    }
}

/// Closest point of segment `a → b` (local ids `i`, `j`) to `p`, with its feature.
#[inline]
pub(crate) fn closest_on_segment(p: DVec3, a: DVec3, b: DVec3, i: u32, j: u32) -> (DVec3, Feature) {
    let d = b - a;
    let t = segment_param(p, a, d);
    (segment_point_at(a, b, d, t), segment_feature(t, i, j))
}

/// Distance from point `p` to segment `s`.
///
/// `feature_a` is `Vertex(0)`; `feature_b` is `Vertex(0)`, `Vertex(1)` or `Edge(0, 1)` (see
/// [`Closest`]). A zero-length segment is a point (`Vertex(0)`). Inputs must be finite.
///
/// # Example
/// ```
/// use ccd_distance::point_segment;
/// use ccd_geometry::{glam::DVec3, Feature, Segment};
///
/// let s = Segment::new(DVec3::ZERO, DVec3::X);
/// let c = point_segment(DVec3::new(3.0, 4.0, 0.0), &s);
/// assert_eq!(c.distance, 4.0_f64.hypot(2.0));
/// assert_eq!(c.point_b, DVec3::X);
/// assert_eq!(c.feature_b, Feature::Vertex(1));
/// ```
#[inline]
#[must_use]
pub fn point_segment(p: DVec3, s: &Segment) -> Closest {
    let (va, vb) = ([p], [s.a, s.b]);
    let m = scale::max_abs(&va).max(scale::max_abs(&vb));
    if scale::outside_window(m) {
        return scale::rescaled(&va, &vb, m, |va, vb| unscaled(va[0], vb[0], vb[1]));
    }
    unscaled(p, s.a, s.b)
}

/// [`point_segment`] without the rescaling.
#[inline(always)]
fn unscaled(p: DVec3, a: DVec3, b: DVec3) -> Closest {
    let (q, f) = closest_on_segment(p, a, b, 0, 1);
    Closest::from_points(p, q, Feature::Vertex(0), f)
}

/// Distance from segment `s` to point `p`: [`point_segment`] with the roles swapped.
///
/// # Example
/// ```
/// use ccd_distance::segment_point;
/// use ccd_geometry::{glam::DVec3, Feature, Segment};
///
/// let c = segment_point(&Segment::new(DVec3::ZERO, DVec3::X), DVec3::new(0.5, 1.0, 0.0));
/// assert_eq!(c.distance, 1.0);
/// assert_eq!(c.feature_a, Feature::Edge(0, 1));
/// ```
#[inline]
#[must_use]
pub fn segment_point(s: &Segment, p: DVec3) -> Closest {
    point_segment(p, s).swapped()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_length_segment_is_a_point() {
        let s = Segment::new(DVec3::ONE, DVec3::ONE);
        let c = point_segment(DVec3::ZERO, &s);
        assert_eq!(c.point_b, DVec3::ONE);
        assert_eq!(c.feature_b, Feature::Vertex(0));
        assert_eq!(c.distance, 3.0_f64.sqrt());
    }

    #[test]
    fn endpoints_are_exact() {
        let s = Segment::new(DVec3::new(0.1, 0.2, 0.3), DVec3::new(0.7, -0.3, 0.9));
        let beyond = s.b + (s.b - s.a) * 2.0;
        let c = point_segment(beyond, &s);
        assert_eq!(c.point_b, s.b);
        assert_eq!(c.feature_b, Feature::Vertex(1));
        let before = s.a - (s.b - s.a);
        assert_eq!(point_segment(before, &s).point_b, s.a);
    }

    #[test]
    fn tiny_segment_does_not_overflow() {
        let s = Segment::new(DVec3::ZERO, DVec3::splat(1e-160));
        let c = point_segment(DVec3::splat(1e10), &s);
        assert!(c.distance.is_finite());
        assert_eq!(c.feature_b, Feature::Vertex(1));
    }
}
