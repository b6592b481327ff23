//! Property tests for `ConvexHull`: containment, topology, degenerate inputs, support mapping,
//! and parry3d's quickhull as an oracle for the vertex set.

#[path = "support/convex_brute.rs"]
mod convex_brute;

use std::collections::{BTreeSet, HashMap};

use ccd_distance::{ConvexHull, HullError};
use convex_brute::{cloud, direction, point, sphere_points};
use glam::DVec3;
use proptest::prelude::*;
use robust::{Coord, Coord3D, orient2d, orient3d};

fn c3(p: DVec3) -> Coord3D<f64> {
    Coord3D {
        x: p.x,
        y: p.y,
        z: p.z,
    }
}

/// Exact: the cross product vanishes iff all three coordinate projections are collinear.
fn collinear(a: DVec3, b: DVec3, c: DVec3) -> bool {
    (0..3).all(|axis| {
        let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
        let c2 = |p: DVec3| Coord { x: p[u], y: p[v] };
        orient2d(c2(a), c2(b), c2(c)) == 0.0
    })
}

/// Every input point is on the inner side of (or on) every face, decided exactly.
fn assert_contains_all(hull: &ConvexHull, points: &[DVec3]) {
    let v = hull.vertices();
    for face in hull.faces() {
        let [a, b, c] = face.map(|i| v[i as usize]);
        for &p in points {
            // orient3d > 0: p strictly below the counter-clockwise face; = 0: on its plane.
            assert!(
                orient3d(c3(a), c3(b), c3(c), c3(p)) >= 0.0,
                "point {p} is outside face {face:?}"
            );
        }
    }
}

/// Vertices come from the input, and the faces form a closed oriented 2-manifold with
/// non-degenerate triangles (V − E + F = 2).
fn assert_valid_3d(hull: &ConvexHull, points: &[DVec3]) {
    assert_eq!(hull.dimension(), 3);
    for (v, &i) in hull.vertices().iter().zip(hull.input_indices()) {
        assert_eq!(*v, points[i as usize]);
    }
    let mut directed: HashMap<(u32, u32), usize> = HashMap::new();
    for f in hull.faces() {
        assert!(f[0] != f[1] && f[1] != f[2] && f[0] != f[2]);
        let [a, b, c] = f.map(|i| hull.vertices()[i as usize]);
        assert!(!collinear(a, b, c), "degenerate face {f:?}");
        for k in 0..3 {
            *directed.entry((f[k], f[(k + 1) % 3])).or_default() += 1;
        }
    }
    for (&(a, b), &count) in &directed {
        assert_eq!(count, 1, "directed edge {a}->{b} used {count} times");
        assert_eq!(
            directed.get(&(b, a)),
            Some(&1),
            "edge {a}-{b} is a boundary"
        );
    }
    let (v, e, f) = (
        hull.vertices().len() as i64,
        directed.len() as i64 / 2,
        hull.faces().len() as i64,
    );
    assert_eq!(v - e + f, 2);
    let used: BTreeSet<u32> = hull.faces().iter().flatten().copied().collect();
    assert_eq!(used.len(), hull.vertices().len());
}

fn key(p: DVec3) -> [u64; 3] {
    [p.x.to_bits(), p.y.to_bits(), p.z.to_bits()]
}

#[test]
fn cube_corners_plus_interior_points_give_8_vertices_12_faces() {
    let mut points = Vec::new();
    for i in 0..8 {
        points.push(DVec3::new(
            if i & 1 == 0 { -1.0 } else { 1.0 },
            if i & 2 == 0 { -1.0 } else { 1.0 },
            if i & 4 == 0 { -1.0 } else { 1.0 },
        ));
    }
    let corners = points.clone();
    for p in sphere_points(500, 3) {
        points.push(p * 0.99);
    }
    // Corners last as well, so the initial simplex is not always made of corners.
    points.rotate_left(4);
    let hull = ConvexHull::new_3d(&points).unwrap();
    assert_eq!(hull.vertices().len(), 8);
    assert_eq!(hull.faces().len(), 12);
    let got: BTreeSet<[u64; 3]> = hull.vertices().iter().map(|&p| key(p)).collect();
    let want: BTreeSet<[u64; 3]> = corners.iter().map(|&p| key(p)).collect();
    assert_eq!(got, want);
    assert_valid_3d(&hull, &points);
    assert_contains_all(&hull, &points);
}

#[test]
fn coplanar_collinear_and_duplicate_inputs() {
    // Exactly coplanar (z = 0.25) square lattice with duplicates: a square polygon.
    let mut plane = Vec::new();
    for i in 0..5 {
        for j in 0..5 {
            plane.push(DVec3::new(i as f64 * 0.5, j as f64 * 0.25, 0.25));
            plane.push(DVec3::new(i as f64 * 0.5, j as f64 * 0.25, 0.25));
        }
    }
    let poly = ConvexHull::new(&plane).unwrap();
    assert_eq!(poly.dimension(), 2);
    assert_eq!(poly.vertices().len(), 4);
    assert_eq!(poly.faces().len(), 2);
    assert_eq!(poly.plane_normal(), DVec3::Z);
    assert_eq!(
        ConvexHull::new_3d(&plane),
        Err(HullError::NotThreeDimensional { dimension: 2 })
    );
    // A polygon in the x = 1 plane, given in an order that starts collinear.
    let wall: Vec<DVec3> = [
        (0.0, 0.0),
        (1.0, 0.0),
        (2.0, 0.0),
        (2.0, 2.0),
        (0.0, 2.0),
        (1.0, 1.0),
    ]
    .iter()
    .map(|&(y, z)| DVec3::new(1.0, y, z))
    .collect();
    let wall_hull = ConvexHull::new(&wall).unwrap();
    assert_eq!(wall_hull.dimension(), 2);
    assert_eq!(wall_hull.vertices().len(), 4);
    for f in 0..wall_hull.faces().len() {
        assert!(
            wall_hull
                .face_normal(f)
                .abs_diff_eq(wall_hull.plane_normal(), 1e-15)
        );
    }

    // Exactly collinear points with repeats: a segment between the extremes.
    let line: Vec<DVec3> = [3, -2, 0, 7, 7, -2, 1]
        .iter()
        .map(|&t| DVec3::new(1.0, -2.0, 4.0) * t as f64 + DVec3::new(0.5, 0.5, 0.5))
        .collect();
    let seg = ConvexHull::new(&line).unwrap();
    assert_eq!(seg.dimension(), 1);
    let ends: BTreeSet<[u64; 3]> = seg.vertices().iter().map(|&p| key(p)).collect();
    let want: BTreeSet<[u64; 3]> = [line[1], line[3]].iter().map(|&p| key(p)).collect();
    assert_eq!(ends, want);
    assert!(seg.faces().is_empty());

    // All identical.
    let same = ConvexHull::new(&[DVec3::splat(2.0); 4]).unwrap();
    assert_eq!(same.dimension(), 0);
    assert_eq!(same.vertices(), &[DVec3::splat(2.0)]);
    assert_eq!(
        ConvexHull::new_3d(&[DVec3::splat(2.0); 4]),
        Err(HullError::NotThreeDimensional { dimension: 0 })
    );

    // A cube lattice: many coplanar and collinear points on every face and edge.
    let mut lattice = Vec::new();
    for i in 0..4 {
        for j in 0..4 {
            for k in 0..4 {
                lattice.push(DVec3::new(i as f64, j as f64, k as f64) / 3.0);
            }
        }
    }
    let cube = ConvexHull::new(&lattice).unwrap();
    assert_valid_3d(&cube, &lattice);
    assert_contains_all(&cube, &lattice);
    assert_eq!(cube.vertices().len(), 8);
}

#[test]
fn non_finite_and_empty_inputs_are_errors() {
    assert_eq!(ConvexHull::new(&[]), Err(HullError::Empty));
    let mut pts = sphere_points(10, 1);
    pts[7].y = f64::NEG_INFINITY;
    assert!(matches!(
        ConvexHull::new(&pts),
        Err(HullError::NonFinite { index: 7, .. })
    ));
    pts[7].y = f64::NAN;
    assert!(matches!(
        ConvexHull::new_3d(&pts),
        Err(HullError::NonFinite { index: 7, .. })
    ));
}

#[test]
fn sphere_points_are_all_vertices() {
    let points = sphere_points(2000, 9);
    let hull = ConvexHull::new(&points).unwrap();
    assert_eq!(hull.vertices().len(), 2000);
    assert_valid_3d(&hull, &points);
}

proptest! {
    #[test]
    fn random_clouds_give_valid_hulls(points in cloud(1..120)) {
        let hull = ConvexHull::new(&points).unwrap();
        if hull.dimension() == 3 {
            assert_valid_3d(&hull, &points);
            assert_contains_all(&hull, &points);
        }
    }

    /// Coordinates on a coarse grid: duplicates, coplanar and collinear subsets everywhere.
    #[test]
    fn grid_clouds_give_valid_hulls(
        cells in prop::collection::vec((0i32..4, 0i32..4, 0i32..3), 1..60),
        exact in any::<bool>(),
    ) {
        // Dyadic steps keep the lattice exact; decimal steps make it almost exact.
        let step = if exact {
            DVec3::new(0.25, 0.5, 0.125)
        } else {
            DVec3::new(0.1, 0.3, 0.7)
        };
        let points: Vec<DVec3> = cells
            .iter()
            .map(|&(x, y, z)| DVec3::new(x as f64, y as f64, z as f64) * step)
            .collect();
        let hull = ConvexHull::new(&points).unwrap();
        for (v, &i) in hull.vertices().iter().zip(hull.input_indices()) {
            prop_assert_eq!(*v, points[i as usize]);
        }
        match hull.dimension() {
            3 => {
                assert_valid_3d(&hull, &points);
                assert_contains_all(&hull, &points);
            }
            2 => {
                let n = hull.plane_normal();
                let a = hull.vertices()[0];
                for &p in &points {
                    prop_assert!(n.dot(p - a).abs() < 1e-12);
                }
                prop_assert_eq!(hull.faces().len(), hull.vertices().len() - 2);
            }
            d => prop_assert!(hull.vertices().len() == d as usize + 1),
        }
    }

    /// Same vertex set as parry3d's quickhull on points in general position.
    #[test]
    fn vertex_set_matches_parry(points in cloud(4..200)) {
        let ours = ConvexHull::new(&points).unwrap();
        let (theirs, _) = parry3d_f64::transformation::try_convex_hull(&points).unwrap();
        let a: BTreeSet<[u64; 3]> = ours.vertices().iter().map(|&p| key(p)).collect();
        let b: BTreeSet<[u64; 3]> = theirs.iter().map(|&p| key(p)).collect();
        prop_assert_eq!(a, b);
    }

    /// The support point maximises `dir · v` over all input points, from any start vertex.
    #[test]
    fn support_is_the_maximum(
        points in cloud(4..300),
        dir in direction(),
        start in 0u32..400,
        offset in point(5.0),
    ) {
        let mut points = points;
        points.extend(sphere_points(100, 5).iter().map(|&p| p * 1.5 + offset));
        let hull = ConvexHull::new(&points).unwrap();
        let best = points.iter().map(|p| p.dot(dir)).fold(f64::NEG_INFINITY, f64::max);
        let (p, i) = hull.support_from(dir, start);
        prop_assert_eq!(hull.vertices()[i as usize], p);
        prop_assert!(p.dot(dir) >= best - 1e-12 * (1.0 + best.abs()), "{} < {}", p.dot(dir), best);
        let (q, _) = hull.support(dir);
        prop_assert!(q.dot(dir) >= best - 1e-12 * (1.0 + best.abs()));
    }
}
