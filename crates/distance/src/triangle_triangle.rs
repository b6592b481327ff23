//! Triangle–triangle distance, including intersecting and degenerate triangles.

use ccd_geometry::{Feature, Triangle};
use glam::DVec3;

use crate::frame::{Frame, Shape};
use crate::point_segment::segment_feature;
use crate::segment_segment::closest_segment_segment;
use crate::segment_triangle::{map_segment_feature, segment_frame};
use crate::{Closest, scale};

/// Signed (unnormalised) distances of `v` to the plane of `fr`.
#[inline]
fn plane_sides(fr: &Frame, v: &[DVec3; 3]) -> [f64; 3] {
    let n = fr.normal();
    [
        (v[0] - fr.o).dot(n),
        (v[1] - fr.o).dot(n),
        (v[2] - fr.o).dot(n),
    ]
}

/// All strictly on one side of the plane.
#[inline]
fn one_side(sd: &[f64; 3]) -> bool {
    (sd[0] > 0.0 && sd[1] > 0.0 && sd[2] > 0.0) || (sd[0] < 0.0 && sd[1] < 0.0 && sd[2] < 0.0)
}

/// Vertex–face early exit: when the vertices `v` lie strictly on one side of the plane of
/// `fr` and the one nearest the plane projects inside the triangle, that vertex and its
/// projection are a closest pair (every point of the other triangle is at least that far
/// from the plane). Returns `(face point, vertex id)`.
#[inline]
fn vertex_face(fr: &Frame, sd: &[f64; 3], v: &[DVec3; 3]) -> Option<(DVec3, usize)> {
    if !one_side(sd) {
        return None;
    }
    let (a0, a1, a2) = (sd[0].abs(), sd[1].abs(), sd[2].abs());
    let k = if a0 <= a1 && a0 <= a2 {
        0
    } else if a1 <= a2 {
        1
    } else {
        2
    };
    fr.project_inside(v[k]).map(|q| (q, k))
}

/// Proper crossing of an edge of `v` (plane sides `sd` w.r.t. `fr`) through the interior of
/// the triangle `fr`: the crossing point and the edge's local ids.
#[inline]
fn edge_crossing(fr: &Frame, sd: &[f64; 3], v: &[DVec3; 3]) -> Option<(DVec3, u32, u32)> {
    for m in 0..3 {
        let n = (m + 1) % 3;
        if (sd[m] > 0.0 && sd[n] < 0.0) || (sd[m] < 0.0 && sd[n] > 0.0) {
            let x = v[m] + (v[n] - v[m]) * (sd[m] / (sd[m] - sd[n]));
            if fr.project_inside(x).is_some() {
                return Some((x, m as u32, n as u32));
            }
        }
    }
    None
}

/// Relative slack of the separating-slab certificate (on the squared distance).
const SLAB_SLACK: f64 = 1e-12;

/// Whether the slab between the planes through `p` and `p + v`, normal to `v`, separates
/// the triangles (`va` below, `vb` above): then `|v|` is a lower bound of the distance, so a
/// pair of points `|v|` apart is a closest pair. All six vertices are tested rather than
/// only the two off the edges (PQP's test): for near-parallel edges the computed segment
/// pair is only nearly optimal, and the edges' own endpoints can then violate the slab.
#[inline]
fn separates(va: &[DVec3; 3], vb: &[DVec3; 3], p: DVec3, v: DVec3, vv: f64) -> bool {
    let hi_a = (va[0] - p)
        .dot(v)
        .max((va[1] - p).dot(v))
        .max((va[2] - p).dot(v));
    let lo_b = (vb[0] - p)
        .dot(v)
        .min((vb[1] - p).dot(v))
        .min((vb[2] - p).dot(v));
    lo_b - hi_a >= vv * (1.0 - SLAB_SLACK)
}

/// Best candidate so far: squared distance, points, features.
type Best = (f64, DVec3, DVec3, Feature, Feature);

/// Edge index pairs in visiting order, as positions in the per-triangle edge orders.
const ORDER: [(usize, usize); 9] = [
    (0, 0),
    (0, 1),
    (1, 0),
    (1, 1),
    (0, 2),
    (1, 2),
    (2, 0),
    (2, 1),
    (2, 2),
];

/// Edge–edge pass: the nine edge pairs, starting with the edges at the closest pair of
/// vertices (they hold the answer most often). A pair whose connecting vector spans a
/// separating slab is returned at once; otherwise `best` collects the closest pair.
#[inline]
fn edge_edge(va: &[DVec3; 3], vb: &[DVec3; 3], best: &mut Best) -> Option<Closest> {
    let (mut bi, mut bj, mut bd) = (0, 0, f64::INFINITY);
    for (i, a) in va.iter().enumerate() {
        for (j, b) in vb.iter().enumerate() {
            let d = a.distance_squared(*b);
            if d < bd {
                (bi, bj, bd) = (i, j, d);
            }
        }
    }
    // Edge `e` joins vertices `e` and `e + 1`; the edges at vertex `v` are `v` and `v - 1`.
    let ea = [bi, (bi + 2) % 3, (bi + 1) % 3];
    let eb = [bj, (bj + 2) % 3, (bj + 1) % 3];
    for (x, y) in ORDER {
        let (i, j) = (ea[x], eb[y]);
        let (i1, j1) = ((i + 1) % 3, (j + 1) % 3);
        let (s, t, p, q) = closest_segment_segment(va[i], va[i1], vb[j], vb[j1]);
        let v = q - p;
        let d2 = v.length_squared();
        // PQP's cheap test on the two vertices off the edges, then the full slab test.
        if (va[(i + 2) % 3] - p).dot(v) <= 0.0
            && (vb[(j + 2) % 3] - q).dot(v) >= 0.0
            && separates(va, vb, p, v, d2)
        {
            let fa = segment_feature(s, i as u32, i1 as u32);
            let fb = segment_feature(t, j as u32, j1 as u32);
            return Some(Closest::from_points(p, q, fa, fb));
        }
        if d2 < best.0 {
            let fa = segment_feature(s, i as u32, i1 as u32);
            let fb = segment_feature(t, j as u32, j1 as u32);
            *best = (d2, p, q, fa, fb);
        }
    }
    None
}

/// Distance between the triangles of frames `fa` and `fb`, given the closest edge–edge
/// pair `best` found by an uncertified [`edge_edge`] pass.
fn after_edges(fa: &Frame, fb: &Frame, mut best: Best) -> Closest {
    match (fa.shape, fb.shape) {
        (Shape::Point, _) => {
            let p = fa.v[0];
            let (q, f) = fb.closest(p);
            return Closest::from_points(p, q, Feature::Vertex(0), f);
        }
        (Shape::Segment, _) => {
            let (a, b, i, j) = fa.long_edge();
            let mut c = segment_frame(a, b, fb);
            c.feature_a = map_segment_feature(c.feature_a, i, j);
            return c;
        }
        (Shape::Triangle, Shape::Point | Shape::Segment) => {
            return after_edges(fb, fa, best).swapped();
        }
        (Shape::Triangle, Shape::Triangle) => {}
    }
    let (va, vb) = (&fa.v, &fb.v);
    // Vertex–face certificates (cheap plane tests).
    let sb = plane_sides(fa, vb);
    if let Some((q, k)) = vertex_face(fa, &sb, vb) {
        return Closest::from_points(q, vb[k], Feature::Face(0), Feature::Vertex(k as u32));
    }
    let sa = plane_sides(fb, va);
    if let Some((q, k)) = vertex_face(fb, &sa, va) {
        return Closest::from_points(va[k], q, Feature::Vertex(k as u32), Feature::Face(0));
    }
    // No certificate: the triangles intersect, or the answer is a vertex–face pair the
    // certificates could not confirm (ties, rounding).
    if !one_side(&sb) && !one_side(&sa) {
        if let Some((x, i, j)) = edge_crossing(fb, &sa, va) {
            return Closest {
                distance: 0.0,
                point_a: x,
                point_b: x,
                feature_a: Feature::edge(i, j),
                feature_b: Feature::Face(0),
            };
        }
        if let Some((x, i, j)) = edge_crossing(fa, &sb, vb) {
            return Closest {
                distance: 0.0,
                point_a: x,
                point_b: x,
                feature_a: Feature::Face(0),
                feature_b: Feature::edge(i, j),
            };
        }
    }
    for (k, &p) in vb.iter().enumerate() {
        let (q, f) = fa.closest(p);
        let d2 = (p - q).length_squared();
        if d2 < best.0 {
            best = (d2, q, p, f, Feature::Vertex(k as u32));
        }
    }
    for (k, &p) in va.iter().enumerate() {
        let (q, f) = fb.closest(p);
        let d2 = (p - q).length_squared();
        if d2 < best.0 {
            best = (d2, p, q, Feature::Vertex(k as u32), f);
        }
    }
    let (_, pa, pb, fa_, fb_) = best;
    Closest::from_points(pa, pb, fa_, fb_)
}

/// Distance between triangles with vertices `va` and `vb`, at any scale (see
/// [`scale`](crate::scale)).
#[inline]
pub(crate) fn vertices_vertices(va: &[DVec3; 3], vb: &[DVec3; 3]) -> Closest {
    let m = scale::max_abs(va).max(scale::max_abs(vb));
    if scale::outside_window(m) {
        return scale::rescaled(va, vb, m, unscaled);
    }
    unscaled(va, vb)
}

/// [`vertices_vertices`] without the rescaling.
#[inline(always)]
fn unscaled(va: &[DVec3; 3], vb: &[DVec3; 3]) -> Closest {
    let mut best = (
        f64::INFINITY,
        va[0],
        vb[0],
        Feature::Vertex(0),
        Feature::Vertex(0),
    );
    if let Some(c) = edge_edge(va, vb, &mut best) {
        return c;
    }
    after_edges(&Frame::new(*va), &Frame::new(*vb), best)
}

/// Distance between triangles `a` and `b`.
///
/// Intersecting triangles have distance `0`, with a point of the intersection as both
/// witnesses (an edge of one triangle crossing the face of the other: `Edge(i, j)` /
/// `Face(0)`; touching or coplanar overlapping triangles report the touching features, with
/// a distance at rounding level).
/// Degenerate triangles are handled as the segment or point they are. Inputs must be
/// finite; the result never is NaN for finite input.
///
/// Method: the nine edge–edge pairs (those at the closest vertex pair first), each with a
/// separating-slab certificate (after PQP's `TriDist`); then vertex–face certificates (all
/// of one triangle strictly on one side of the other's plane and its nearest vertex
/// projecting inside); then an explicit edge–face crossing test; and finally the minimum
/// over all 6 vertex–triangle and 9 edge–edge candidates, which is exact for disjoint
/// triangles.
///
/// # Example
/// ```
/// use ccd_distance::triangle_triangle;
/// use ccd_geometry::{glam::DVec3, Feature, Triangle};
///
/// let a = Triangle::new(DVec3::ZERO, DVec3::X, DVec3::Y);
/// // Piercing a's interior.
/// let b = Triangle::new(DVec3::new(0.2, 0.2, -1.0), DVec3::new(0.3, 0.2, 1.0), DVec3::new(5.0, 5.0, 1.0));
/// let c = triangle_triangle(&a, &b);
/// assert_eq!(c.distance, 0.0);
/// assert_eq!(c.point_a, c.point_b);
///
/// // Skew edges: b's edge (0, 1) passes over a's edge (0, 1), outside a.
/// let e = Triangle::new(DVec3::new(0.5, -1.0, 0.5), DVec3::new(0.5, 1.0, 1.5), DVec3::new(0.5, 0.0, 3.0));
/// let c = triangle_triangle(&a, &e);
/// assert!((c.distance - 0.8_f64.sqrt()).abs() < 1e-12);
/// assert_eq!((c.feature_a, c.feature_b), (Feature::Edge(0, 1), Feature::Edge(0, 1)));
/// ```
#[inline]
#[must_use]
pub fn triangle_triangle(a: &Triangle, b: &Triangle) -> Closest {
    vertices_vertices(&a.vertices(), &b.vertices())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coplanar_overlapping() {
        let a = Triangle::new(DVec3::ZERO, DVec3::X, DVec3::Y);
        let b = Triangle::new(
            DVec3::new(0.1, 0.1, 0.0),
            DVec3::new(2.0, 0.1, 0.0),
            DVec3::new(0.1, 2.0, 0.0),
        );
        let c = triangle_triangle(&a, &b);
        // Touching up to rounding (crossing edges are solved in floating point).
        assert!(c.distance < 1e-15, "{}", c.distance);
        // B's vertex 0 is inside A, and A's edge (1, 2) crosses B's edges (0, 1) and (0, 2):
        // each touching pair is a valid witness.
        assert!(matches!(
            (c.feature_a, c.feature_b),
            (Feature::Face(0), Feature::Vertex(0)) | (Feature::Edge(1, 2), Feature::Edge(0, _))
        ));
    }

    #[test]
    fn degenerate_against_proper() {
        let a = Triangle::new(DVec3::ZERO, DVec3::X, DVec3::Y);
        let seg = Triangle::new(
            DVec3::new(0.2, 0.2, 1.0),
            DVec3::new(0.2, 0.2, 1.0),
            DVec3::new(0.2, 0.2, 3.0),
        );
        let c = triangle_triangle(&a, &seg);
        assert_eq!(c.distance, 1.0);
        assert_eq!(c.feature_a, Feature::Face(0));
        assert!(matches!(c.feature_b, Feature::Vertex(0 | 1)));
        let c2 = triangle_triangle(&seg, &a);
        assert_eq!(c2.distance, 1.0);
        let pt = Triangle::new(DVec3::Z, DVec3::Z, DVec3::Z);
        assert!((triangle_triangle(&pt, &seg).distance - 0.08_f64.sqrt()).abs() < 1e-15);
    }

    #[test]
    fn stacked_parallel_faces() {
        let a = Triangle::new(DVec3::ZERO, DVec3::X, DVec3::Y);
        let b = Triangle::new(
            DVec3::new(0.0, 0.0, 1.0),
            DVec3::new(1.0, 0.0, 1.0),
            DVec3::new(0.0, 1.0, 1.0),
        );
        let c = triangle_triangle(&a, &b);
        assert_eq!(c.distance, 1.0);
    }
}
