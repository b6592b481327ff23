//! Proptest strategies for points, segments, triangles and pairs of them, including
//! adversarial cases: near-parallel and collinear segments, degenerate and sliver triangles,
//! intersecting, touching, coplanar and stacked triangles, and tiny and huge scales.

use ccd_geometry::glam::{DAffine3, DQuat, DVec3};
use ccd_geometry::{Segment, Triangle};
use proptest::prelude::*;

/// A point in the unit cube `[-1, 1]³`.
pub fn unit_point() -> impl Strategy<Value = DVec3> {
    (-1.0..1.0f64, -1.0..1.0f64, -1.0..1.0f64).prop_map(|(x, y, z)| DVec3::new(x, y, z))
}

/// A unit vector (uniform enough for tests).
pub fn direction() -> impl Strategy<Value = DVec3> {
    unit_point().prop_map(|v| v.try_normalize().unwrap_or(DVec3::X))
}

/// A scale factor: mostly 1, sometimes tiny or huge.
pub fn scale() -> impl Strategy<Value = f64> {
    prop_oneof![
        4 => Just(1.0),
        1 => Just(1e-6),
        1 => Just(1e-3),
        1 => Just(1e3),
        1 => Just(1e6),
    ]
}

/// A rigid transform: random rotation, translation within `[-10, 10]³`.
pub fn rigid() -> impl Strategy<Value = DAffine3> {
    (unit_point(), -1.0..1.0f64, unit_point()).prop_map(|(q, w, t)| {
        let raw = DQuat::from_xyzw(q.x, q.y, q.z, w);
        let quat = if raw.length() > 1e-3 {
            raw.normalize()
        } else {
            DQuat::IDENTITY
        };
        DAffine3::from_rotation_translation(quat, t * 10.0)
    })
}

/// A segment in the unit cube: general, zero-length or tiny.
pub fn segment() -> impl Strategy<Value = Segment> {
    prop_oneof![
        6 => (unit_point(), unit_point()).prop_map(|(a, b)| Segment::new(a, b)),
        1 => unit_point().prop_map(|a| Segment::new(a, a)),
        1 => (unit_point(), direction(), 1e-12..1e-6f64).prop_map(|(a, d, l)| Segment::new(a, a + d * l)),
    ]
}

/// A triangle in the unit cube: general or degenerate (collinear, repeated vertex, a
/// single point, sliver, needle).
pub fn triangle() -> impl Strategy<Value = Triangle> {
    prop_oneof![
        6 => (unit_point(), unit_point(), unit_point()).prop_map(|(a, b, c)| Triangle::new(a, b, c)),
        1 => (unit_point(), unit_point(), -0.5..1.5f64).prop_map(|(a, b, t)| Triangle::new(a, b, a + (b - a) * t)),
        1 => (unit_point(), unit_point(), 0..3usize).prop_map(|(a, b, k)| match k {
            0 => Triangle::new(a, a, b),
            1 => Triangle::new(a, b, a),
            _ => Triangle::new(b, a, a),
        }),
        1 => unit_point().prop_map(|a| Triangle::new(a, a, a)),
        1 => (unit_point(), unit_point(), 0.0..1.0f64, direction(), 1e-13..1e-5f64)
            .prop_map(|(a, b, t, d, h)| Triangle::new(a, b, a + (b - a) * t + d * h)),
        1 => (unit_point(), direction(), 1e-12..1e-6f64, unit_point())
            .prop_map(|(a, d, l, c)| Triangle::new(a, a + d * l, c)),
    ]
}

fn scaled_segment(s: Segment, k: f64, o: DVec3) -> Segment {
    Segment::new(s.a * k + o, s.b * k + o)
}

fn scaled_triangle(t: Triangle, k: f64, o: DVec3) -> Triangle {
    Triangle::new(t.a * k + o, t.b * k + o, t.c * k + o)
}

/// Two segments: independent, near-parallel, collinear, or crossing at a tiny angle and
/// distance; then scaled by [`scale`] and offset.
pub fn segment_pair() -> impl Strategy<Value = (Segment, Segment)> {
    let raw = prop_oneof![
        4 => (segment(), segment()),
        2 => (segment(), unit_point(), unit_point(), -12.0..-3.0f64).prop_map(|(a, off, wiggle, e)| {
            // near-parallel: a copy shifted by `off`, endpoints perturbed by 10^e.
            let w = wiggle * 10f64.powf(e);
            (a, Segment::new(a.a + off * 0.5, a.b + off * 0.5 + w))
        }),
        1 => (unit_point(), direction(), -1.0..1.0f64, -1.0..1.0f64, 0.0..2.0f64, 0.0..2.0f64)
            .prop_map(|(o, d, s0, s1, t0, t1)| {
                (Segment::new(o + d * s0, o + d * s1), Segment::new(o + d * (t0 - 1.0), o + d * (t1 - 1.0)))
            }),
        2 => (unit_point(), direction(), direction(), -9.0..0.0f64, 0.0..1.0f64, 0.0..1.0f64, -12.0..-1.0f64)
            .prop_map(|(x, d1, n, angle, u, v, gap)| {
                // crossing near x at a tiny angle, `gap` apart along n.
                let d2 = (d1 + n * 10f64.powf(angle)).normalize();
                let off = n * 10f64.powf(gap);
                (Segment::new(x - d1 * u, x + d1 * (1.0 - u)), Segment::new(x + off - d2 * v, x + off + d2 * (1.0 - v)))
            }),
    ];
    (raw, scale(), unit_point())
        .prop_map(|((a, b), k, o)| (scaled_segment(a, k, o * k), scaled_segment(b, k, o * k)))
}

/// A point of triangle `t` from raw weights (normalised barycentric).
fn on_triangle(t: &Triangle, u: f64, v: f64, w: f64) -> DVec3 {
    let s = u + v + w;
    t.point_at(u / s, v / s, w / s)
}

/// Two triangles: independent, intersecting, touching, coplanar, stacked, degenerate or
/// very close; then scaled by [`scale`] and offset.
pub fn triangle_pair() -> impl Strategy<Value = (Triangle, Triangle)> {
    let w = || (0.01..1.0f64, 0.01..1.0f64, 0.01..1.0f64);
    let raw = prop_oneof![
        4 => (triangle(), triangle()),
        2 => (triangle(), w(), direction(), 0.01..1.0f64, 0.01..1.0f64, unit_point()).prop_map(|(a, (u, v, x), d, al, be, c)| {
            // B's edge pierces A at an interior point.
            let p = on_triangle(&a, u, v, x);
            (a, Triangle::new(p + d * al, p - d * be, c))
        }),
        1 => (triangle(), w(), unit_point(), unit_point(), 0..2usize).prop_map(|(a, (u, v, x), b1, b2, k)| {
            // touching: B has a vertex on A (a vertex of A, or an interior point).
            let p = if k == 0 { a.a } else { on_triangle(&a, u, v, x) };
            (a, Triangle::new(p, p + b1, p + b2))
        }),
        1 => (triangle(), (-0.5..1.5f64, -0.5..1.5f64), (-0.5..1.5f64, -0.5..1.5f64), (-0.5..1.5f64, -0.5..1.5f64))
            .prop_map(|(a, (u0, v0), (u1, v1), (u2, v2))| {
                // coplanar
                let at = |u: f64, v: f64| a.a + (a.b - a.a) * u + (a.c - a.a) * v;
                (a, Triangle::new(at(u0, v0), at(u1, v1), at(u2, v2)))
            }),
        1 => (triangle(), unit_point(), -12.0..0.0f64).prop_map(|(a, shift, e)| {
            // stacked: a translated copy, near or far.
            let n = a.normal().unwrap_or(DVec3::Z);
            let o = n * 10f64.powf(e) + (shift - n * shift.dot(n)) * 0.5;
            (a, Triangle::new(a.a + o, a.b + o, a.c + o))
        }),
        1 => (triangle(), unit_point(), unit_point(), unit_point(), -12.0..-2.0f64).prop_map(|(a, d0, d1, d2, e)| {
            // very close: B's vertices near A's.
            let k = 10f64.powf(e);
            (a, Triangle::new(a.a + d0 * k, a.c + d1 * k, a.b + d2 * k))
        }),
    ];
    (raw, scale(), unit_point(), any::<bool>()).prop_map(|((a, b), k, o, swap)| {
        let (a, b) = if swap { (b, a) } else { (a, b) };
        (scaled_triangle(a, k, o * k), scaled_triangle(b, k, o * k))
    })
}

/// A point and a triangle (the point sometimes on or very near the triangle).
pub fn point_triangle() -> impl Strategy<Value = (DVec3, Triangle)> {
    let raw = prop_oneof![
        3 => (unit_point(), triangle()),
        1 => (triangle(), (0.0..1.0f64, 0.0..1.0f64, 0.0..1.0f64), unit_point(), -12.0..0.0f64).prop_map(|(t, (u, v, w), d, e)| {
            let p = if u + v + w > 0.0 { on_triangle(&t, u, v, w) } else { t.a };
            (p + d * 10f64.powf(e), t)
        }),
    ];
    (raw, scale(), unit_point())
        .prop_map(|((p, t), k, o)| (p * k + o * k, scaled_triangle(t, k, o * k)))
}

/// A point and a segment.
pub fn point_segment() -> impl Strategy<Value = (DVec3, Segment)> {
    (unit_point(), segment(), scale(), unit_point())
        .prop_map(|(p, s, k, o)| (p * k + o * k, scaled_segment(s, k, o * k)))
}

/// A segment and a triangle: independent, piercing, parallel to the face, or degenerate.
pub fn segment_triangle() -> impl Strategy<Value = (Segment, Triangle)> {
    let raw = prop_oneof![
        3 => (segment(), triangle()),
        1 => (triangle(), (0.01..1.0f64, 0.01..1.0f64, 0.01..1.0f64), direction(), 0.0..1.0f64, 0.0..1.0f64)
            .prop_map(|(t, (u, v, w), d, al, be)| {
                let p = on_triangle(&t, u, v, w);
                (Segment::new(p + d * al, p - d * be), t)
            }),
        1 => (triangle(), unit_point(), unit_point(), -12.0..0.0f64).prop_map(|(t, p, q, e)| {
            let n = t.normal().unwrap_or(DVec3::Z);
            let flat = |x: DVec3| x - n * x.dot(n);
            let h = n * 10f64.powf(e);
            (Segment::new(t.a + flat(p) + h, t.a + flat(q) + h), t)
        }),
    ];
    (raw, scale(), unit_point())
        .prop_map(|((s, t), k, o)| (scaled_segment(s, k, o * k), scaled_triangle(t, k, o * k)))
}
