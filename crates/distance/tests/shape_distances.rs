//! Every analytic shape pair (ball, capsule, cuboid, cylinder, convex hull, triangle, both
//! orders) against an independent brute-force reference: each shape is decomposed into its
//! core primitives (points, segments, boundary triangles) swept by a radius, and the
//! reference distance is the minimum of the independent primitive distances of
//! `support::reference` (with containment of vertices for nested solids). A cylinder is
//! bracketed by its inscribed and circumscribed 32-gon prisms, whose distances bound the
//! true one from above and below. Checked: the distance, the lower bound, the witness
//! points (on their shapes, `|p_b − p_a| = d`), and the contact decision.

mod support;

use ccd_distance::{
    Ball, Capsule, ConvexHull, ConvexShape, Cuboid, Cylinder, ShapeDistance, convex_distance,
    convex_distance_within,
};
use ccd_geometry::{Segment, Triangle};
use glam::{DAffine3, DQuat, DVec3};
use proptest::prelude::*;
use support::reference as r;

#[derive(Clone, Debug)]
enum Sh {
    Ball(Ball),
    Capsule(Capsule),
    Cuboid(Cuboid),
    Cylinder(Cylinder),
    Hull(ConvexHull),
    Triangle(Triangle),
}

impl Sh {
    fn as_convex(&self) -> ConvexShape<'_> {
        match self {
            Sh::Ball(s) => ConvexShape::Ball(s),
            Sh::Capsule(s) => ConvexShape::Capsule(s),
            Sh::Cuboid(s) => ConvexShape::Cuboid(s),
            Sh::Cylinder(s) => ConvexShape::Cylinder(s),
            Sh::Hull(s) => ConvexShape::Hull(s),
            Sh::Triangle(s) => ConvexShape::Triangle(s),
        }
    }
}

/// A core of a shape in some frame: primitives, the radius sweeping them, and a convex
/// solid (for containment) when it has one.
struct Core {
    points: Vec<DVec3>,
    segments: Vec<Segment>,
    triangles: Vec<Triangle>,
    margin: f64,
    /// Outward planes `(n, c)`: inside when `n·x <= c` for all.
    planes: Vec<(DVec3, f64)>,
}

impl Core {
    fn vertices(&self) -> Vec<DVec3> {
        let mut v = self.points.clone();
        for s in &self.segments {
            v.extend([s.a, s.b]);
        }
        for t in &self.triangles {
            v.extend([t.a, t.b, t.c]);
        }
        v
    }
    fn contains(&self, p: DVec3, tol: f64) -> bool {
        !self.planes.is_empty() && self.planes.iter().all(|&(n, c)| n.dot(p) <= c + tol)
    }
    /// Distance from `p` to the solid core (0 inside).
    fn point_distance(&self, p: DVec3) -> f64 {
        if self.contains(p, 0.0) {
            return 0.0;
        }
        let mut d = f64::INFINITY;
        for &q in &self.points {
            d = d.min(p.distance(q));
        }
        for s in &self.segments {
            d = d.min(r::point_segment(p, s.a, s.b));
        }
        for t in &self.triangles {
            d = d.min(r::point_triangle(p, t));
        }
        d
    }
}

fn tri(p: &DAffine3, a: DVec3, b: DVec3, c: DVec3) -> Triangle {
    Triangle::new(
        p.transform_point3(a),
        p.transform_point3(b),
        p.transform_point3(c),
    )
}

/// Triangles and outward planes of a convex polytope given by its vertices and faces
/// (counter-clockwise seen from outside), placed by `p`.
fn polytope(p: &DAffine3, v: &[DVec3], faces: &[[usize; 3]], margin: f64) -> Core {
    let w: Vec<DVec3> = v.iter().map(|&x| p.transform_point3(x)).collect();
    let centre = w.iter().copied().sum::<DVec3>() / w.len() as f64;
    let mut triangles = Vec::new();
    let mut planes = Vec::new();
    for f in faces {
        let t = Triangle::new(w[f[0]], w[f[1]], w[f[2]]);
        let mut n = (t.b - t.a).cross(t.c - t.a);
        if n.length_squared() > 0.0 {
            n = n.normalize();
            if n.dot(centre - t.a) > 0.0 {
                n = -n;
            }
            planes.push((n, n.dot(t.a)));
        }
        triangles.push(t);
    }
    Core {
        points: vec![],
        segments: vec![],
        triangles,
        margin,
        planes,
    }
}

/// A prism of `k` sides with circumradius `rad` around local y, half height `h`.
fn prism(p: &DAffine3, h: f64, rad: f64, k: usize) -> Core {
    let mut v = Vec::new();
    for i in 0..k {
        let a = std::f64::consts::TAU * i as f64 / k as f64;
        v.push(DVec3::new(rad * a.cos(), h, rad * a.sin()));
        v.push(DVec3::new(rad * a.cos(), -h, rad * a.sin()));
    }
    let mut faces = Vec::new();
    for i in 0..k {
        let j = (i + 1) % k;
        faces.push([2 * i, 2 * j, 2 * i + 1]);
        faces.push([2 * j, 2 * j + 1, 2 * i + 1]);
    }
    for i in 1..k - 1 {
        faces.push([0, 2 * i, 2 * i + 2]);
        faces.push([1, 2 * i + 1, 2 * i + 3]);
    }
    polytope(p, &v, &faces, 0.0)
}

const PRISM_SIDES: usize = 32;

/// The cores of a shape placed by `p`: one core, or for a cylinder its inscribed and
/// circumscribed prisms (in that order).
fn cores(s: &Sh, p: &DAffine3) -> Vec<Core> {
    match s {
        Sh::Ball(b) => vec![Core {
            points: vec![p.translation],
            segments: vec![],
            triangles: vec![],
            margin: b.radius(),
            planes: vec![],
        }],
        Sh::Capsule(c) => {
            let g = c.segment();
            vec![Core {
                points: vec![],
                segments: vec![Segment::new(
                    p.transform_point3(g.a),
                    p.transform_point3(g.b),
                )],
                triangles: vec![],
                margin: c.radius(),
                planes: vec![],
            }]
        }
        Sh::Cuboid(c) => {
            let v: Vec<DVec3> = (0..8).map(|i| c.corner(i)).collect();
            // faces of the box as triangles (corner bit k = +x_k)
            let quads = [
                [0, 2, 6, 4],
                [1, 5, 7, 3],
                [0, 4, 5, 1],
                [2, 3, 7, 6],
                [0, 1, 3, 2],
                [4, 6, 7, 5],
            ];
            let faces: Vec<[usize; 3]> = quads
                .iter()
                .flat_map(|q| [[q[0], q[1], q[2]], [q[0], q[2], q[3]]])
                .collect();
            vec![polytope(p, &v, &faces, 0.0)]
        }
        Sh::Cylinder(c) => {
            let k = PRISM_SIDES;
            let outer = c.radius() / (std::f64::consts::PI / k as f64).cos();
            vec![
                prism(p, c.half_height(), c.radius(), k),
                prism(p, c.half_height(), outer, k),
            ]
        }
        Sh::Hull(h) => {
            let faces: Vec<[usize; 3]> = h.faces().iter().map(|f| f.map(|i| i as usize)).collect();
            vec![polytope(p, h.vertices(), &faces, 0.0)]
        }
        Sh::Triangle(t) => vec![Core {
            points: vec![],
            segments: vec![],
            triangles: vec![tri(p, t.a, t.b, t.c)],
            margin: 0.0,
            planes: vec![],
        }],
    }
}

/// The exact distance between two cores (swept solids), independent of the crate.
fn core_distance(a: &Core, b: &Core) -> f64 {
    let m = a.margin + b.margin;
    if a.vertices().iter().any(|&v| b.contains(v, 0.0))
        || b.vertices().iter().any(|&v| a.contains(v, 0.0))
    {
        return 0.0;
    }
    let mut d = f64::INFINITY;
    for &p in &a.points {
        d = d.min(b.point_distance(p));
    }
    for &p in &b.points {
        d = d.min(a.point_distance(p));
    }
    for s in &a.segments {
        for t in &b.segments {
            d = d.min(r::segment_segment(s.a, s.b, t.a, t.b));
        }
        for t in &b.triangles {
            d = d.min(r::segment_triangle(s, t));
        }
    }
    for s in &b.segments {
        for t in &a.triangles {
            d = d.min(r::segment_triangle(s, t));
        }
    }
    for t in &a.triangles {
        for u in &b.triangles {
            d = d.min(r::triangle_triangle(t, u));
        }
    }
    (d - m).max(0.0)
}

/// `[lower, upper]` bounds of the true distance of two shapes (equal unless a cylinder).
fn reference(a: &Sh, pa: &DAffine3, b: &Sh, pb: &DAffine3) -> (f64, f64) {
    let (ca, cb) = (cores(a, pa), cores(b, pb));
    // inscribed cores (index 0) give an upper bound, circumscribed (last) a lower bound
    let upper = core_distance(&ca[0], &cb[0]);
    let lower = core_distance(ca.last().unwrap(), cb.last().unwrap());
    (lower, upper)
}

/// Distance from a point (world) to a shape placed by `p` (exact for every shape).
fn point_to_shape(x: DVec3, s: &Sh, p: &DAffine3) -> f64 {
    if let Sh::Cylinder(c) = s {
        let l = p.inverse().transform_point3(x);
        let (h, rad) = (c.half_height(), c.radius());
        let rho = (l.x * l.x + l.z * l.z).sqrt();
        let dr = (rho - rad).max(0.0);
        let dy = (l.y.abs() - h).max(0.0);
        return (dr * dr + dy * dy).sqrt();
    }
    let c = &cores(s, p)[0];
    (c.point_distance(x) - c.margin).max(0.0)
}

fn shape() -> impl Strategy<Value = Sh> {
    let v = || -1.0f64..1.0;
    let p = move || (v(), v(), v()).prop_map(|(x, y, z)| DVec3::new(x, y, z));
    prop_oneof![
        (0.05f64..1.0).prop_map(|r| Sh::Ball(Ball::new(r).unwrap())),
        (p(), p(), 0.05f64..0.8).prop_map(|(a, b, r)| Sh::Capsule(Capsule::new(a, b, r).unwrap())),
        (0.05f64..1.0, 0.05f64..1.0, 0.05f64..1.0)
            .prop_map(|(x, y, z)| Sh::Cuboid(Cuboid::new(DVec3::new(x, y, z)).unwrap())),
        (0.05f64..1.0, 0.05f64..1.0).prop_map(|(h, r)| Sh::Cylinder(Cylinder::new(h, r).unwrap())),
        prop::collection::vec(p(), 6..14).prop_filter_map("flat hull", |pts| {
            ConvexHull::new_3d(&pts).ok().map(Sh::Hull)
        }),
        (p(), p(), p()).prop_map(|(a, b, c)| Sh::Triangle(Triangle::new(a, b, c))),
    ]
}

fn pose(spread: f64) -> impl Strategy<Value = DAffine3> {
    (
        (-1.0f64..1.0, -1.0f64..1.0, -1.0f64..1.0, -1.0f64..1.0),
        (-spread..spread, -spread..spread, -spread..spread),
    )
        .prop_map(|((a, b, c, d), (x, y, z))| {
            let q = DQuat::from_xyzw(a, b, c, d + 1e-3).normalize();
            DAffine3::from_rotation_translation(q, DVec3::new(x, y, z))
        })
}

fn check(a: &Sh, pa: &DAffine3, b: &Sh, pb: &DAffine3) -> Result<(), TestCaseError> {
    let pos12 = pa.inverse() * *pb;
    let got: ShapeDistance = convex_distance(a.as_convex(), b.as_convex(), &pos12);
    let got = got.transformed(pa);
    let (lo, hi) = reference(a, pa, b, pb);
    let tol = 1e-9;
    prop_assert!(
        got.distance <= hi + tol,
        "distance {} above the reference {hi}",
        got.distance
    );
    prop_assert!(
        got.distance >= lo - tol,
        "distance {} below the reference {lo}",
        got.distance
    );
    prop_assert!(
        got.lower_bound <= hi + tol,
        "lower bound {} above the distance {hi}",
        got.lower_bound
    );
    if lo > tol {
        // the slab width converges to the distance (GJK to 1e-12 relative)
        prop_assert!(
            got.lower_bound >= lo - 1e-7,
            "lower bound {} far below {lo}",
            got.lower_bound
        );
        prop_assert!(got.distance > 0.0, "separated shapes reported touching");
    }
    if hi == 0.0 {
        prop_assert!(got.distance <= tol, "overlap missed: {}", got.distance);
    }
    // witnesses on their shapes, their distance the reported one
    prop_assert!(point_to_shape(got.point_a, a, pa) <= 1e-8, "point_a off A");
    prop_assert!(point_to_shape(got.point_b, b, pb) <= 1e-8, "point_b off B");
    prop_assert!(
        ((got.point_b - got.point_a).length() - got.distance).abs() <= 1e-8,
        "witness distance {} vs {}",
        (got.point_b - got.point_a).length(),
        got.distance
    );
    if got.distance > 0.0 {
        prop_assert!((got.normal.length() - 1.0).abs() < 1e-9);
    }
    Ok(())
}

/// `convex_distance_within`: the same guarantees as the exact distance against the
/// reference (an upper bound from two real witness points, a proven lower bound), with the
/// two within `tolerance` of each other.
fn check_within(
    a: &Sh,
    pa: &DAffine3,
    b: &Sh,
    pb: &DAffine3,
    tolerance: f64,
) -> Result<(), TestCaseError> {
    let pos12 = pa.inverse() * *pb;
    let got = convex_distance_within(a.as_convex(), b.as_convex(), &pos12, tolerance);
    let got = got.transformed(pa);
    let (lo, hi) = reference(a, pa, b, pb);
    let tol = 1e-9;
    prop_assert!(
        got.lower_bound <= hi + tol,
        "lower bound {} above the distance {hi}",
        got.lower_bound
    );
    prop_assert!(
        got.distance >= lo - tol,
        "distance {} below the reference {lo}",
        got.distance
    );
    // (separated shapes: overlapping ones may report a negative slab width)
    prop_assert!(
        lo <= tol || got.distance - got.lower_bound <= tolerance + 1e-9,
        "bounds {} .. {} further apart than {tolerance}",
        got.lower_bound,
        got.distance
    );
    if hi == 0.0 {
        prop_assert!(
            got.distance <= tolerance + tol,
            "overlap missed: {}",
            got.distance
        );
    }
    prop_assert!(point_to_shape(got.point_a, a, pa) <= 1e-8, "point_a off A");
    prop_assert!(point_to_shape(got.point_b, b, pb) <= 1e-8, "point_b off B");
    prop_assert!(
        ((got.point_b - got.point_a).length() - got.distance).abs() <= 1e-8,
        "witness distance {} vs {}",
        (got.point_b - got.point_a).length(),
        got.distance
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(256)
    ))]

    /// Random pairs with a distance tolerance (0 to 0.05; cylinder pairs stop early).
    #[test]
    fn pairs_within_a_tolerance_keep_their_bounds(a in shape(), b in shape(), pa in pose(1.5), pb in pose(1.5), tolerance in 0.0f64..0.05) {
        check_within(&a, &pa, &b, &pb, tolerance)?;
    }

    /// Random pairs at random poses (separated, touching and overlapping).
    #[test]
    fn every_pair_matches_the_reference(a in shape(), b in shape(), pa in pose(2.0), pb in pose(2.0)) {
        check(&a, &pa, &b, &pb)?;
    }

    /// Close pairs: `b` placed just beyond `a` along a random direction.
    #[test]
    fn close_pairs_match_the_reference(a in shape(), b in shape(), pa in pose(0.5), dir in pose(1.0), gap in 0.0f64..0.05) {
        let n = dir.matrix3 * DVec3::X;
        // push b out along n until just separated (bisection on the reference)
        let (mut lo, mut hi) = (0.0f64, 6.0f64);
        for _ in 0..24 {
            let mid = 0.5 * (lo + hi);
            let pb = DAffine3::from_rotation_translation(DQuat::from_mat3(&dir.matrix3), pa.translation + n * mid);
            let pos = pa.inverse() * pb;
            if convex_distance(a.as_convex(), b.as_convex(), &pos).distance > 0.0 { hi = mid } else { lo = mid }
        }
        let pb = DAffine3::from_rotation_translation(DQuat::from_mat3(&dir.matrix3), pa.translation + n * (hi + gap));
        check(&a, &pa, &b, &pb)?;
    }
}

#[test]
fn every_ordered_pair_is_dispatched() {
    let shapes = [
        Sh::Ball(Ball::new(0.3).unwrap()),
        Sh::Capsule(Capsule::new_y(0.5, 0.2).unwrap()),
        Sh::Cuboid(Cuboid::new(DVec3::new(0.3, 0.4, 0.5)).unwrap()),
        Sh::Cylinder(Cylinder::new(0.4, 0.3).unwrap()),
        Sh::Hull(
            ConvexHull::new_3d(&[DVec3::ZERO, DVec3::X * 0.5, DVec3::Y * 0.5, DVec3::Z * 0.5])
                .unwrap(),
        ),
        Sh::Triangle(Triangle::new(DVec3::ZERO, DVec3::X, DVec3::Y)),
    ];
    let pa = DAffine3::from_rotation_translation(DQuat::from_rotation_z(0.3), DVec3::ZERO);
    for a in &shapes {
        for b in &shapes {
            for x in [0.0, 0.5, 2.0, 3.5] {
                let pb = DAffine3::from_rotation_translation(
                    DQuat::from_rotation_y(1.1),
                    DVec3::new(x, 0.1, 0.05),
                );
                check(a, &pa, b, &pb).unwrap();
            }
        }
    }
}
