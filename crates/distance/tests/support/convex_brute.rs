//! Brute-force references for the convex hull and GJK tests: closed-form point–segment,
//! point–triangle and segment–segment distances, polytope distance by feature pairs, and
//! random point-cloud strategies.

#![allow(dead_code, unreachable_pub)]

use glam::{DAffine3, DQuat, DVec3};
use proptest::prelude::*;

/// Distance from `p` to segment `ab` (a point if `a == b`).
pub fn point_segment(p: DVec3, a: DVec3, b: DVec3) -> f64 {
    let ab = b - a;
    let len2 = ab.length_squared();
    let t = if len2 > 0.0 {
        ((p - a).dot(ab) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    p.distance(a + ab * t)
}

/// Distance from `p` to triangle `abc`: the plane distance when the projection falls inside
/// (barycentric coordinates all non-negative), otherwise the nearest edge.
pub fn point_triangle(p: DVec3, a: DVec3, b: DVec3, c: DVec3) -> f64 {
    let n = (b - a).cross(c - a);
    let n2 = n.length_squared();
    let edges = point_segment(p, a, b)
        .min(point_segment(p, b, c))
        .min(point_segment(p, c, a));
    if n2 == 0.0 {
        return edges;
    }
    let q = p - n * ((p - a).dot(n) / n2);
    let wa = (b - q).cross(c - q).dot(n);
    let wb = (c - q).cross(a - q).dot(n);
    let wc = (a - q).cross(b - q).dot(n);
    if wa >= 0.0 && wb >= 0.0 && wc >= 0.0 {
        p.distance(q).min(edges)
    } else {
        edges
    }
}

/// Distance between segments `p1q1` and `p2q2`: the interior critical point of the squared
/// distance when it lies in the unit square, otherwise the best endpoint–segment distance
/// (the minimum of a convex quadratic over a square is interior or on its boundary).
pub fn segment_segment(p1: DVec3, q1: DVec3, p2: DVec3, q2: DVec3) -> f64 {
    let boundary = point_segment(p1, p2, q2)
        .min(point_segment(q1, p2, q2))
        .min(point_segment(p2, p1, q1))
        .min(point_segment(q2, p1, q1));
    let (d1, d2, r) = (q1 - p1, q2 - p2, p1 - p2);
    let (a, e, b) = (d1.dot(d1), d2.dot(d2), d1.dot(d2));
    let (c, f) = (d1.dot(r), d2.dot(r));
    let det = a * e - b * b;
    if det <= 1e-14 * a * e {
        return boundary;
    }
    let s = (b * f - c * e) / det;
    let t = (a * f - b * c) / det;
    if (0.0..=1.0).contains(&s) && (0.0..=1.0).contains(&t) {
        (p1 + d1 * s).distance(p2 + d2 * t).min(boundary)
    } else {
        boundary
    }
}

/// A polytope as world-frame vertices, triangles and edges.
pub struct Poly {
    pub vertices: Vec<DVec3>,
    pub triangles: Vec<[DVec3; 3]>,
    pub edges: Vec<[DVec3; 2]>,
}

impl Poly {
    /// The boundary features of `hull` placed by `pose`.
    pub fn new(hull: &ccd_distance::ConvexHull, pose: &DAffine3) -> Self {
        let vertices: Vec<DVec3> = hull
            .vertices()
            .iter()
            .map(|&v| pose.transform_point3(v))
            .collect();
        let triangles = hull
            .faces()
            .iter()
            .map(|f| f.map(|i| vertices[i as usize]))
            .collect();
        let mut edges = Vec::new();
        for (i, &v) in vertices.iter().enumerate() {
            for &j in hull.neighbors(i as u32) {
                if (j as usize) > i {
                    edges.push([v, vertices[j as usize]]);
                }
            }
        }
        Self {
            vertices,
            triangles,
            edges,
        }
    }

    /// Distance from a point to the boundary features (vertices, edges, triangles).
    pub fn point_distance(&self, p: DVec3) -> f64 {
        let mut d = f64::INFINITY;
        for v in &self.vertices {
            d = d.min(p.distance(*v));
        }
        for [a, b] in &self.edges {
            d = d.min(point_segment(p, *a, *b));
        }
        for [a, b, c] in &self.triangles {
            d = d.min(point_triangle(p, *a, *b, *c));
        }
        d
    }
}

/// Distance between two disjoint convex polytopes: the minimum over vertex–feature and
/// edge–edge pairs (a closest pair of disjoint polytopes always involves one of them).
pub fn polytope_distance(a: &Poly, b: &Poly) -> f64 {
    let mut d = f64::INFINITY;
    for &v in &a.vertices {
        d = d.min(b.point_distance(v));
    }
    for &v in &b.vertices {
        d = d.min(a.point_distance(v));
    }
    for [p1, q1] in &a.edges {
        for [p2, q2] in &b.edges {
            d = d.min(segment_segment(*p1, *q1, *p2, *q2));
        }
    }
    d
}

/// Largest signed distance of `p` above the face planes of a 3D hull placed by `pose`
/// (≤ 0 inside).
pub fn max_plane_excess(hull: &ccd_distance::ConvexHull, pose: &DAffine3, p: DVec3) -> f64 {
    let local = pose.inverse().transform_point3(p);
    (0..hull.faces().len())
        .map(|f| {
            let n = hull.face_normal(f);
            let a = hull.vertices()[hull.faces()[f][0] as usize];
            n.dot(local - a)
        })
        .fold(f64::NEG_INFINITY, f64::max)
}

/// A random point in the cube `[-s, s]³`.
pub fn point(s: f64) -> impl Strategy<Value = DVec3> {
    (-s..=s, -s..=s, -s..=s).prop_map(|(x, y, z)| DVec3::new(x, y, z))
}

/// A random cloud of `n` points in `[-1, 1]³`.
pub fn cloud(n: std::ops::Range<usize>) -> impl Strategy<Value = Vec<DVec3>> {
    prop::collection::vec(point(1.0), n)
}

/// A random rigid pose (unit quaternion rotation, translation in `[-t, t]³`).
pub fn pose(t: f64) -> impl Strategy<Value = DAffine3> {
    (point(1.0), 0.0..std::f64::consts::TAU, point(t)).prop_map(|(axis, angle, tr)| {
        let axis = axis.try_normalize().unwrap_or(DVec3::Z);
        DAffine3::from_rotation_translation(DQuat::from_axis_angle(axis, angle), tr)
    })
}

/// A random unit direction.
pub fn direction() -> impl Strategy<Value = DVec3> {
    point(1.0).prop_map(|d| d.try_normalize().unwrap_or(DVec3::X))
}

/// `n` points spread over the unit sphere (Fibonacci lattice) with a deterministic wobble,
/// so every point is a hull vertex.
pub fn sphere_points(n: usize, seed: u64) -> Vec<DVec3> {
    let mut rng = ccd_test_support::SplitMix64::new(seed);
    (0..n)
        .map(|i| {
            let s = (i as f64 + 0.5) / n as f64;
            let z = 1.0 - 2.0 * s;
            let r = (1.0 - z * z).sqrt();
            let t = i as f64 * 2.399_963_229_728_653 + 0.3 * rng.unit();
            DVec3::new(r * t.cos(), r * t.sin(), z)
        })
        .collect()
}
