//! Reference distances written independently of the kernels: closed forms for
//! point–segment, a 2-D frame with exact `orient2d` for point–triangle, golden-section
//! search for segment–segment, exact `orient3d` crossing tests for intersections, and the
//! vertex/edge candidate minima for segment–triangle and triangle–triangle. Also dense
//! sampling of primitives.

use ccd_geometry::glam::DVec3;
use ccd_geometry::{Segment, Triangle};
use robust::{Coord, Coord3D, orient2d, orient3d};

/// Point–segment distance (projection, clamped).
pub fn point_segment(p: DVec3, a: DVec3, b: DVec3) -> f64 {
    let ab = b - a;
    let l2 = ab.dot(ab);
    if l2 == 0.0 {
        return p.distance(a);
    }
    let t = ((p - a).dot(ab) / l2).clamp(0.0, 1.0);
    p.distance(a + ab * t).min(p.distance(a)).min(p.distance(b))
}

fn c2(x: f64, y: f64) -> Coord<f64> {
    Coord { x, y }
}

fn c3(p: DVec3) -> Coord3D<f64> {
    Coord3D {
        x: p.x,
        y: p.y,
        z: p.z,
    }
}

/// Exact orientation of `d` relative to the plane `a, b, c` (sign only matters).
pub fn o3(a: DVec3, b: DVec3, c: DVec3, d: DVec3) -> f64 {
    orient3d(c3(a), c3(b), c3(c), c3(d))
}

/// Point–triangle distance: the minimum over the three edges, and the plane distance when
/// the projection is inside (tested with exact `orient2d` in an orthonormal 2-D frame built
/// on the longest edge); a triangle of rounding-level width counts as its edges.
pub fn point_triangle(p: DVec3, t: &Triangle) -> f64 {
    let [a, b, c] = t.vertices();
    let edges = point_segment(p, a, b)
        .min(point_segment(p, b, c))
        .min(point_segment(p, c, a));
    let v = [a, b, c];
    let len = |i: usize| (v[(i + 1) % 3] - v[i]).length_squared();
    let i = (0..3)
        .max_by(|&x, &y| len(x).total_cmp(&len(y)))
        .unwrap_or(0);
    let (o, u, w) = (v[i], v[(i + 1) % 3], v[(i + 2) % 3]);
    let Some(e1) = (u - o).try_normalize() else {
        return edges;
    };
    let ow = w - o;
    let perp = ow - e1 * ow.dot(e1);
    // A triangle whose width is at the rounding level of its longest edge (e.g. two vertices
    // that coincide after rounding) has no reliable plane: its distance is the edges' within
    // that width (≤ 1e-14 of the edge, far inside the tests' tolerances).
    if perp.length() <= 1e-14 * ow.length() {
        return edges;
    }
    let Some(e2) = perp.try_normalize() else {
        return edges;
    };
    let n = e1.cross(e2);
    let to2 = |x: DVec3| c2((x - o).dot(e1), (x - o).dot(e2));
    let (o2, u2, w2, p2) = (c2(0.0, 0.0), to2(u), to2(w), to2(p));
    let s = orient2d(o2, u2, w2).signum();
    if s == 0.0 {
        return edges;
    }
    let inside = [
        orient2d(o2, u2, p2),
        orient2d(u2, w2, p2),
        orient2d(w2, o2, p2),
    ]
    .iter()
    .all(|x| x * s >= 0.0);
    if inside {
        edges.min((p - o).dot(n).abs())
    } else {
        edges
    }
}

/// Segment–segment distance: golden-section search of the convex function
/// `s ↦ dist(a(s), b)`, together with the four endpoint candidates.
pub fn segment_segment(a0: DVec3, a1: DVec3, b0: DVec3, b1: DVec3) -> f64 {
    let f = |s: f64| point_segment(a0 + (a1 - a0) * s, b0, b1);
    let g = 0.5 * (5f64.sqrt() - 1.0);
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    let mut x1 = hi - g * (hi - lo);
    let mut x2 = lo + g * (hi - lo);
    let (mut f1, mut f2) = (f(x1), f(x2));
    for _ in 0..90 {
        if f1 <= f2 {
            hi = x2;
            x2 = x1;
            f2 = f1;
            x1 = hi - g * (hi - lo);
            f1 = f(x1);
        } else {
            lo = x1;
            x1 = x2;
            f1 = f2;
            x2 = lo + g * (hi - lo);
            f2 = f(x2);
        }
    }
    f1.min(f2)
        .min(f(0.5 * (lo + hi)))
        .min(point_segment(a0, b0, b1))
        .min(point_segment(a1, b0, b1))
        .min(point_segment(b0, a0, a1))
        .min(point_segment(b1, a0, a1))
}

/// Whether segment `p → q` crosses the triangle (closed), by exact orientation tests.
/// Coplanar configurations report `false`: their contacts are caught by the candidates.
pub fn segment_crosses_triangle(p: DVec3, q: DVec3, t: &Triangle) -> bool {
    let [a, b, c] = t.vertices();
    let sp = o3(a, b, c, p);
    let sq = o3(a, b, c, q);
    if (sp == 0.0 && sq == 0.0) || (sp > 0.0 && sq > 0.0) || (sp < 0.0 && sq < 0.0) {
        return false;
    }
    let s = [o3(p, q, a, b), o3(p, q, b, c), o3(p, q, c, a)];
    s.iter().all(|&x| x >= 0.0) || s.iter().all(|&x| x <= 0.0)
}

/// Segment–triangle distance.
pub fn segment_triangle(s: &Segment, t: &Triangle) -> f64 {
    if segment_crosses_triangle(s.a, s.b, t) {
        return 0.0;
    }
    let [a, b, c] = t.vertices();
    point_triangle(s.a, t)
        .min(point_triangle(s.b, t))
        .min(segment_segment(s.a, s.b, a, b))
        .min(segment_segment(s.a, s.b, b, c))
        .min(segment_segment(s.a, s.b, c, a))
}

/// Triangle–triangle distance: 0 when an edge of one crosses the other (exact test),
/// otherwise the minimum over the 6 vertex–triangle and 9 edge–edge distances.
pub fn triangle_triangle(ta: &Triangle, tb: &Triangle) -> f64 {
    let va = ta.vertices();
    let vb = tb.vertices();
    for i in 0..3 {
        if segment_crosses_triangle(va[i], va[(i + 1) % 3], tb)
            || segment_crosses_triangle(vb[i], vb[(i + 1) % 3], ta)
        {
            return 0.0;
        }
    }
    let mut d = f64::INFINITY;
    for i in 0..3 {
        d = d
            .min(point_triangle(va[i], tb))
            .min(point_triangle(vb[i], ta));
        for j in 0..3 {
            d = d.min(segment_segment(
                va[i],
                va[(i + 1) % 3],
                vb[j],
                vb[(j + 1) % 3],
            ));
        }
    }
    d
}

/// `n + 1` evenly spaced points of a segment.
pub fn sample_segment(s: &Segment, n: usize) -> Vec<DVec3> {
    (0..=n)
        .map(|i| s.a + (s.b - s.a) * (i as f64 / n as f64))
        .collect()
}

/// A barycentric grid of `(n + 1)(n + 2) / 2` points of a triangle.
pub fn sample_triangle(t: &Triangle, n: usize) -> Vec<DVec3> {
    let mut out = Vec::new();
    for i in 0..=n {
        for j in 0..=(n - i) {
            let (u, v) = (i as f64 / n as f64, j as f64 / n as f64);
            out.push(t.point_at(1.0 - u - v, u, v));
        }
    }
    out
}

/// Minimum distance over all pairs of sampled points.
pub fn sampled_min(a: &[DVec3], b: &[DVec3]) -> f64 {
    let mut d2 = f64::INFINITY;
    for p in a {
        for q in b {
            d2 = d2.min((*p - *q).length_squared());
        }
    }
    d2.sqrt()
}
