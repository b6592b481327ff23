//! Support functions and certified gaps of analytic shapes against RSS nodes and triangles
//! (the geometry of the shape–mesh safe steps of `shape_ca.rs`).

use ccd_bvh::Rss;
use ccd_distance::ConvexShape;
use ccd_geometry::Triangle;
use glam::{DAffine3, DVec3};

/// Distance from `p` (RSS frame of the tree) to the RSS, and the unit direction from the
/// RSS to `p`.
pub(crate) fn rss_point(r: &Rss, p: DVec3) -> (f64, DVec3) {
    let l = r.rotation.transpose() * (p - r.origin);
    let q = DVec3::new(
        l.x.clamp(0.0, r.lengths[0]),
        l.y.clamp(0.0, r.lengths[1]),
        0.0,
    );
    let d = l - q;
    let len = d.length();
    let n = if len > 0.0 {
        r.rotation * (d / len)
    } else {
        DVec3::ZERO
    };
    (len - r.radius, n)
}

/// `max y·dir` over the points `y` of a convex shape (its frame; `dir` any length).
fn convex_support(c: ConvexShape<'_>, dir: DVec3) -> f64 {
    match c {
        ConvexShape::Ball(b) => b.radius() * dir.length(),
        ConvexShape::Capsule(s) => {
            let g = s.segment();
            dir.dot(g.a).max(dir.dot(g.b)) + s.radius() * dir.length()
        }
        ConvexShape::Cuboid(b) => dir.abs().dot(b.half_extents()),
        ConvexShape::Cylinder(y) => {
            dir.y.abs() * y.half_height() + y.radius() * (dir.x * dir.x + dir.z * dir.z).sqrt()
        }
        ConvexShape::Hull(h) => dir.dot(h.support(dir).0),
        ConvexShape::Triangle(t) => dir.dot(t.a).max(dir.dot(t.b)).max(dir.dot(t.c)),
    }
}

/// `max (y − c)·m` over the points `y` of a convex shape's *core* (a ball's centre, a
/// capsule's segment, the shape itself otherwise; its frame, as `c` and `m`), from the
/// core's support function, rounded up; `r` bounds `|y − c|` over the core.
pub(crate) fn core_support(shape: ConvexShape<'_>, m: DVec3, c: DVec3, r: f64) -> f64 {
    let h = match shape {
        ConvexShape::Ball(_) => 0.0,
        ConvexShape::Capsule(s) => {
            let g = s.segment();
            m.dot(g.a).max(m.dot(g.b))
        }
        other => convex_support(other, m),
    };
    // rounding: the dot products' terms are below (|y| + |c|) |m| ≤ (r + 2|c|) |m|
    h - c.dot(m) + 64.0 * f64::EPSILON * (r + 2.0 * c.length()) * m.length()
}

/// `max |(y − c)·m|` over the points `y` of a convex shape's core, rounded up.
pub(crate) fn core_extent(shape: ConvexShape<'_>, m: DVec3, c: DVec3, r: f64) -> f64 {
    core_support(shape, m, c, r).max(core_support(shape, -m, c, r))
}

/// A point of a convex shape near `p` (its frame): exact for balls, capsules, cuboids and
/// cylinders, the centroid for hulls and triangles. Only gives a direction to try: the gap
/// along it is computed from the support functions.
pub(crate) fn convex_near(c: ConvexShape<'_>, p: DVec3) -> DVec3 {
    match c {
        ConvexShape::Ball(_) => DVec3::ZERO,
        ConvexShape::Capsule(s) => {
            let g = s.segment();
            let d = g.b - g.a;
            let dd = d.length_squared();
            let t = if dd > 0.0 {
                ((p - g.a).dot(d) / dd).clamp(0.0, 1.0)
            } else {
                0.0
            };
            g.a + d * t
        }
        ConvexShape::Cuboid(b) => p.clamp(-b.half_extents(), b.half_extents()),
        ConvexShape::Cylinder(y) => {
            let l = (p.x * p.x + p.z * p.z).sqrt();
            let s = if l > y.radius() { y.radius() / l } else { 1.0 };
            DVec3::new(
                p.x * s,
                p.y.clamp(-y.half_height(), y.half_height()),
                p.z * s,
            )
        }
        ConvexShape::Hull(h) => h.centroid(),
        ConvexShape::Triangle(t) => (t.a + t.b + t.c) / 3.0,
    }
}

/// A lower bound of `min n·(y − x)` over the points `x` of the RSS `r` (mesh frame) and `y`
/// of the convex shape `c` placed in the mesh frame by `pos` (`n` unit, mesh frame), from
/// their support functions, rounded down.
pub(crate) fn rss_convex_gap(r: &Rss, c: ConvexShape<'_>, pos: &DAffine3, n: DVec3) -> f64 {
    let hx = n.dot(r.origin)
        + (r.lengths[0] * n.dot(r.rotation.x_axis)).max(0.0)
        + (r.lengths[1] * n.dot(r.rotation.y_axis)).max(0.0)
        + r.radius;
    // min over the shape of n·(R y + T) = n·T − max over y of (−Rᵀ n)·y
    let local = pos.matrix3.transpose() * n;
    let ly = n.dot(pos.translation) - convex_support(c, -local);
    let scale = r.origin.abs().max_element()
        + r.lengths[0]
        + r.lengths[1]
        + r.radius
        + pos.translation.abs().max_element()
        + convex_support(c, local).abs()
        + convex_support(c, -local).abs();
    ly - hx - 64.0 * f64::EPSILON * scale - 1e-300
}

/// A lower bound of `min n·(y − x)` over the points `x` of the triangle `t` (mesh frame) and
/// `y` of the convex shape `c` placed in the mesh frame by `pos` (`n` unit), rounded down.
pub(crate) fn tri_convex_gap(t: &Triangle, c: ConvexShape<'_>, pos: &DAffine3, n: DVec3) -> f64 {
    let hx = n.dot(t.a).max(n.dot(t.b)).max(n.dot(t.c));
    let local = pos.matrix3.transpose() * n;
    let ly = n.dot(pos.translation) - convex_support(c, -local);
    let scale = (t.a.abs() + t.b.abs() + t.c.abs()).max_element()
        + pos.translation.abs().max_element()
        + convex_support(c, local).abs()
        + convex_support(c, -local).abs();
    ly - hx - 64.0 * f64::EPSILON * scale - 1e-300
}

/// The largest distance of a triangle's vertices from `c`, rounded up.
pub(crate) fn tri_radius_about(t: &Triangle, c: DVec3) -> f64 {
    [t.a, t.b, t.c]
        .iter()
        .map(|v| (*v - c).length())
        .fold(0.0, f64::max)
        * (1.0 + 4.0 * f64::EPSILON)
}
