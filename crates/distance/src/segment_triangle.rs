//! Segment–triangle distance (`segment_triangle`, mirrored `triangle_segment`).

use ccd_geometry::{Feature, Segment, Triangle};
use glam::DVec3;

use crate::frame::{Frame, Shape};
use crate::point_segment::{closest_on_segment, segment_feature};
use crate::segment_segment::closest_segment_segment;
use crate::{Closest, scale};

/// Maps a local segment feature (`Vertex(0)`, `Vertex(1)`, `Edge(0, 1)`) to the segment
/// between local vertices `i` and `j` of a triangle.
#[inline]
pub(crate) fn map_segment_feature(f: Feature, i: u32, j: u32) -> Feature {
    match f {
        Feature::Vertex(0) => Feature::Vertex(i),
        Feature::Vertex(_) => Feature::Vertex(j),
        Feature::Edge(..) => Feature::edge(i, j),
        Feature::Face(_) => f,
    }
}

/// Keeps the better of the current best and a candidate pair (strictly smaller wins, so
/// earlier candidates win ties).
#[inline]
fn keep(
    best: &mut (f64, DVec3, DVec3, Feature, Feature),
    pa: DVec3,
    pb: DVec3,
    fa: Feature,
    fb: Feature,
) {
    let d2 = (pb - pa).length_squared();
    if d2 < best.0 {
        *best = (d2, pa, pb, fa, fb);
    }
}

/// Distance from the segment `p0 → p1` to the triangle of frame `fr` (segment features
/// local: `Vertex(0)`, `Vertex(1)`, `Edge(0, 1)`).
#[inline]
pub(crate) fn segment_frame(p0: DVec3, p1: DVec3, fr: &Frame) -> Closest {
    match fr.shape {
        Shape::Point => {
            let v = fr.v[0];
            let (q, f) = closest_on_segment(v, p0, p1, 0, 1);
            Closest::from_points(q, v, f, Feature::Vertex(0))
        }
        Shape::Segment => {
            let (a, b, i, j) = fr.long_edge();
            let (s, t, p, q) = closest_segment_segment(p0, p1, a, b);
            Closest::from_points(p, q, segment_feature(s, 0, 1), segment_feature(t, i, j))
        }
        Shape::Triangle => {
            let n = fr.normal();
            let sd0 = (p0 - fr.o).dot(n);
            let sd1 = (p1 - fr.o).dot(n);
            if (sd0 > 0.0 && sd1 < 0.0) || (sd0 < 0.0 && sd1 > 0.0) {
                // The segment crosses the plane: intersection if the crossing is inside.
                let x = p0 + (p1 - p0) * (sd0 / (sd0 - sd1));
                if fr.project_inside(x).is_some() {
                    return Closest {
                        distance: 0.0,
                        point_a: x,
                        point_b: x,
                        feature_a: Feature::Edge(0, 1),
                        feature_b: Feature::Face(0),
                    };
                }
            } else {
                // One side: if both endpoints project inside, the nearer endpoint wins.
                if let (Some(q0), Some(q1)) = (fr.project_inside(p0), fr.project_inside(p1)) {
                    return if sd0.abs() <= sd1.abs() {
                        Closest::from_points(p0, q0, Feature::Vertex(0), Feature::Face(0))
                    } else {
                        Closest::from_points(p1, q1, Feature::Vertex(1), Feature::Face(0))
                    };
                }
            }
            let (q0, f0) = fr.closest(p0);
            let mut best = ((q0 - p0).length_squared(), p0, q0, Feature::Vertex(0), f0);
            let (q1, f1) = fr.closest(p1);
            keep(&mut best, p1, q1, Feature::Vertex(1), f1);
            for m in 0..3 {
                let n = (m + 1) % 3;
                let (s, t, p, q) = closest_segment_segment(p0, p1, fr.v[m], fr.v[n]);
                keep(
                    &mut best,
                    p,
                    q,
                    segment_feature(s, 0, 1),
                    segment_feature(t, m as u32, n as u32),
                );
            }
            let (_, pa, pb, fa, fb) = best;
            Closest::from_points(pa, pb, fa, fb)
        }
    }
}

/// Distance from segment `s` to triangle `t`.
///
/// An intersecting pair has distance `0` with the crossing point as both witnesses
/// (`Edge(0, 1)` / `Face(0)` for a proper crossing). Degenerate triangles are handled as the
/// segment or point they are, zero-length segments as points. Inputs must be finite; the
/// result never is NaN for finite input.
///
/// # Example
/// ```
/// use ccd_distance::segment_triangle;
/// use ccd_geometry::{glam::DVec3, Feature, Segment, Triangle};
///
/// let t = Triangle::new(DVec3::ZERO, DVec3::X, DVec3::Y);
/// let above = Segment::new(DVec3::new(0.2, 0.2, 1.0), DVec3::new(0.2, 0.2, 3.0));
/// let c = segment_triangle(&above, &t);
/// assert_eq!(c.distance, 1.0);
/// assert_eq!((c.feature_a, c.feature_b), (Feature::Vertex(0), Feature::Face(0)));
///
/// let through = Segment::new(DVec3::new(0.2, 0.2, -1.0), DVec3::new(0.2, 0.2, 1.0));
/// assert_eq!(segment_triangle(&through, &t).distance, 0.0);
/// ```
#[inline]
#[must_use]
pub fn segment_triangle(s: &Segment, t: &Triangle) -> Closest {
    let (va, vb) = ([s.a, s.b], t.vertices());
    let m = scale::max_abs(&va).max(scale::max_abs(&vb));
    if scale::outside_window(m) {
        return scale::rescaled(&va, &vb, m, |va, vb| {
            segment_frame(va[0], va[1], &Frame::new(*vb))
        });
    }
    segment_frame(s.a, s.b, &Frame::new(vb))
}

/// Distance from triangle `t` to segment `s`: [`segment_triangle`] with the roles swapped.
///
/// # Example
/// ```
/// use ccd_distance::triangle_segment;
/// use ccd_geometry::{glam::DVec3, Feature, Segment, Triangle};
///
/// let t = Triangle::new(DVec3::ZERO, DVec3::X, DVec3::Y);
/// let s = Segment::new(DVec3::new(-1.0, -1.0, 1.0), DVec3::new(-1.0, -1.0, -1.0));
/// let c = triangle_segment(&t, &s);
/// assert_eq!(c.distance, 2.0_f64.sqrt());
/// assert_eq!((c.feature_a, c.feature_b), (Feature::Vertex(0), Feature::Edge(0, 1)));
/// ```
#[inline]
#[must_use]
pub fn triangle_segment(t: &Triangle, s: &Segment) -> Closest {
    segment_triangle(s, t).swapped()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parallel_above_edge_region() {
        let t = Triangle::new(DVec3::ZERO, DVec3::X, DVec3::Y);
        let s = Segment::new(DVec3::new(-1.0, 0.5, 0.0), DVec3::new(-1.0, -0.5, 0.0));
        let c = segment_triangle(&s, &t);
        assert_eq!(c.distance, 1.0);
        assert!(matches!(c.feature_b, Feature::Edge(0, 2)));
    }

    #[test]
    fn degenerate_triangle_is_a_segment() {
        let t = Triangle::new(DVec3::ZERO, DVec3::X * 2.0, DVec3::X);
        let s = Segment::new(DVec3::new(0.5, -1.0, 1.0), DVec3::new(0.5, 1.0, 1.0));
        let c = segment_triangle(&s, &t);
        assert_eq!(c.distance, 1.0);
        assert_eq!(c.feature_b, Feature::Edge(0, 1));
    }

    #[test]
    fn segment_touching_vertex() {
        let t = Triangle::new(DVec3::ZERO, DVec3::X, DVec3::Y);
        let s = Segment::new(DVec3::new(-1.0, -1.0, 0.0), DVec3::new(1.0, 1.0, 0.0));
        let c = segment_triangle(&s, &t);
        assert_eq!(c.distance, 0.0);
    }
}
