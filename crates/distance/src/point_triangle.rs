//! Point–triangle distance (`point_triangle`, mirrored `triangle_point`).

use ccd_geometry::{Feature, Triangle};
use glam::DVec3;

use crate::frame::Frame;
use crate::{Closest, scale};

/// Distance from point `p` to triangle `t`.
///
/// `feature_b` is `Face(0)` when the closest point is interior to the triangle, `Edge(i, j)`
/// on an edge interior, `Vertex(i)` at a vertex. Degenerate triangles are handled as what
/// they are: collinear vertices as the segment of the longest edge (features of that edge),
/// coincident vertices as a point (`Vertex(0)`). Inputs must be finite; the result never is
/// NaN for finite input.
///
/// # Example
/// ```
/// use ccd_distance::point_triangle;
/// use ccd_geometry::{glam::DVec3, Feature, Triangle};
///
/// let t = Triangle::new(DVec3::ZERO, DVec3::X, DVec3::Y);
/// let c = point_triangle(DVec3::new(0.25, 0.25, 2.0), &t);
/// assert_eq!(c.distance, 2.0);
/// assert_eq!(c.feature_b, Feature::Face(0));
/// let c = point_triangle(DVec3::new(-1.0, 0.5, 0.0), &t);
/// assert_eq!(c.feature_b, Feature::Edge(0, 2));
/// ```
#[inline]
#[must_use]
pub fn point_triangle(p: DVec3, t: &Triangle) -> Closest {
    let (va, vb) = ([p], t.vertices());
    let m = scale::max_abs(&va).max(scale::max_abs(&vb));
    if scale::outside_window(m) {
        return scale::rescaled(&va, &vb, m, |va, vb| unscaled(va[0], *vb));
    }
    unscaled(p, vb)
}

/// [`point_triangle`] without the rescaling.
#[inline(always)]
fn unscaled(p: DVec3, v: [DVec3; 3]) -> Closest {
    let (q, f) = Frame::new(v).closest(p);
    Closest::from_points(p, q, Feature::Vertex(0), f)
}

/// Distance from triangle `t` to point `p`: [`point_triangle`] with the roles swapped.
///
/// # Example
/// ```
/// use ccd_distance::triangle_point;
/// use ccd_geometry::{glam::DVec3, Feature, Triangle};
///
/// let t = Triangle::new(DVec3::ZERO, DVec3::X, DVec3::Y);
/// let c = triangle_point(&t, DVec3::new(2.0, 2.0, 0.0));
/// assert_eq!(c.feature_a, Feature::Edge(1, 2));
/// assert_eq!(c.point_a, DVec3::new(0.5, 0.5, 0.0));
/// ```
#[inline]
#[must_use]
pub fn triangle_point(t: &Triangle, p: DVec3) -> Closest {
    point_triangle(p, t).swapped()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tri() -> Triangle {
        Triangle::new(
            DVec3::ZERO,
            DVec3::new(2.0, 0.0, 0.0),
            DVec3::new(0.0, 2.0, 0.0),
        )
    }

    #[test]
    fn vertex_regions_report_exact_vertices() {
        let t = tri();
        for (k, v) in t.vertices().into_iter().enumerate() {
            let out = v + (v - t.centroid()) + DVec3::Z;
            let c = point_triangle(out, &t);
            assert_eq!(c.point_b, v);
            assert_eq!(c.feature_b, Feature::Vertex(k as u32));
        }
    }

    #[test]
    fn collinear_triangle_is_its_longest_edge() {
        let t = Triangle::new(
            DVec3::ZERO,
            DVec3::new(3.0, 0.0, 0.0),
            DVec3::new(1.0, 0.0, 0.0),
        );
        let c = point_triangle(DVec3::new(1.0, 1.0, 0.0), &t);
        assert_eq!(c.distance, 1.0);
        assert_eq!(c.feature_b, Feature::Edge(0, 1));
        let c = point_triangle(DVec3::new(5.0, 0.0, 0.0), &t);
        assert_eq!(c.feature_b, Feature::Vertex(1));
    }

    #[test]
    fn point_triangle_all_coincident() {
        let t = Triangle::new(DVec3::ONE, DVec3::ONE, DVec3::ONE);
        let c = point_triangle(DVec3::ZERO, &t);
        assert_eq!(c.point_b, DVec3::ONE);
        assert_eq!(c.feature_b, Feature::Vertex(0));
    }

    #[test]
    fn sliver_stays_on_its_plane() {
        // A cap-shaped sliver: apex almost on the long edge.
        let t = Triangle::new(
            DVec3::ZERO,
            DVec3::new(1.0, 1e-9, 0.0),
            DVec3::new(0.5, 0.5e-9, 1e-11),
        );
        let p = DVec3::new(0.5, -3.0, 0.2);
        let c = point_triangle(p, &t);
        assert!(c.distance.is_finite());
        // The reported point must lie on the triangle: close to the long edge.
        let on_edge = crate::point_segment(c.point_b, &t.edge(0)).distance;
        assert!(on_edge < 1e-10, "{on_edge}");
    }
}
