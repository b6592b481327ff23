//! Property tests for GJK distance: brute force over feature pairs, witnesses on the hulls,
//! symmetry, invariance under a common rigid transform, overlap, warm starts, and parry3d.

#[path = "support/convex_brute.rs"]
mod convex_brute;

use ccd_distance::{
    ConvexHull, GjkCache, GjkOptions, GjkResult, GjkStatus, gjk_distance, gjk_distance_cached,
};
use convex_brute::{Poly, cloud, max_plane_excess, point, polytope_distance, pose, sphere_points};
use glam::{DAffine3, DQuat, DVec3};
use proptest::prelude::*;

fn gjk(a: &ConvexHull, pa: &DAffine3, b: &ConvexHull, pb: &DAffine3) -> GjkResult {
    gjk_distance(a, pa, b, pb, &GjkOptions::default()).unwrap()
}

/// `p` lies on or in `hull` placed by `pose`, to `tol`.
fn assert_in_hull(hull: &ConvexHull, pose: &DAffine3, p: DVec3, tol: f64) {
    if hull.dimension() == 3 {
        let excess = max_plane_excess(hull, pose, p);
        assert!(excess <= tol, "point {p} is {excess} outside the hull");
    } else {
        // Flat hulls are their own boundary.
        let d = Poly::new(hull, pose).point_distance(p);
        assert!(d <= tol, "point {p} is {d} away from the flat hull");
    }
}

/// Checks a separated result against brute force and its own certificate.
fn check_separated(
    a: &ConvexHull,
    pa: &DAffine3,
    b: &ConvexHull,
    pb: &DAffine3,
    r: &GjkResult,
) -> f64 {
    let (poly_a, poly_b) = (Poly::new(a, pa), Poly::new(b, pb));
    let brute = polytope_distance(&poly_a, &poly_b);
    // 1e-9 relative (to distances of at least 1e-2 for these unit-sized hulls).
    let tol = 1e-9 * brute.max(1e-2);
    assert!(
        (r.distance - brute).abs() <= tol,
        "gjk {} vs brute force {} ({:?})",
        r.distance,
        brute,
        r.status
    );
    assert!(r.lower_bound <= r.distance && r.lower_bound >= brute - tol);
    assert!((r.point_a.distance(r.point_b) - r.distance).abs() <= tol);
    // Witnesses on the hull boundaries.
    assert!(poly_a.point_distance(r.point_a) <= 1e-9);
    assert!(poly_b.point_distance(r.point_b) <= 1e-9);
    assert_in_hull(a, pa, r.point_a, 1e-9);
    assert_in_hull(b, pb, r.point_b, 1e-9);
    // The plane through the witnesses separates the hulls.
    if r.distance > 0.0 {
        for v in &poly_a.vertices {
            assert!((v - r.point_a).dot(r.normal) <= 1e-9);
        }
        for v in &poly_b.vertices {
            assert!((v - r.point_b).dot(r.normal) >= -1e-9);
        }
    }
    brute
}

fn check_result(a: &ConvexHull, pa: &DAffine3, b: &ConvexHull, pb: &DAffine3, r: &GjkResult) {
    assert_ne!(r.status, GjkStatus::OutOfIterations);
    if r.intersecting {
        assert_eq!(r.distance, 0.0);
        assert!(r.point_a.distance(r.point_b) <= 1e-9);
        assert_in_hull(a, pa, r.point_a, 1e-9);
        assert_in_hull(b, pb, r.point_b, 1e-9);
    } else {
        check_separated(a, pa, b, pb, r);
    }
}

proptest! {
    #[test]
    fn distance_matches_brute_force(
        pa in cloud(1..40),
        pb in cloud(1..40),
        pose_a in pose(3.0),
        rel in pose(4.0),
    ) {
        let (a, b) = (ConvexHull::new(&pa).unwrap(), ConvexHull::new(&pb).unwrap());
        let pose_b = pose_a * rel;
        let r = gjk(&a, &pose_a, &b, &pose_b);
        check_result(&a, &pose_a, &b, &pose_b, &r);
    }

    #[test]
    fn separated_pairs_match_brute_force(
        pa in cloud(4..40),
        pb in cloud(4..40),
        pose_a in pose(3.0),
        rot in pose(0.0),
        dir in point(1.0),
        gap in 0.0f64..3.0,
    ) {
        // Both clouds lie in balls of radius √3 about their frames' origins.
        let (a, b) = (ConvexHull::new(&pa).unwrap(), ConvexHull::new(&pb).unwrap());
        let dir = dir.try_normalize().unwrap_or(DVec3::X);
        let pose_b = pose_a
            * DAffine3::from_translation(dir * (2.0 * 3f64.sqrt() + gap))
            * rot;
        let r = gjk(&a, &pose_a, &b, &pose_b);
        prop_assert!(!r.intersecting);
        check_separated(&a, &pose_a, &b, &pose_b, &r);
    }

    /// B pushed against A along a random direction until their support planes are `gap`
    /// apart: near-contact configurations where degenerate simplices show up.
    #[test]
    fn near_contact_pairs_match_brute_force(
        pa in cloud(4..40),
        pb in cloud(4..40),
        pose_a in pose(3.0),
        rot in pose(0.0),
        dir in point(1.0),
        log_gap in -9.0f64..-1.0,
    ) {
        let (a, b) = (ConvexHull::new(&pa).unwrap(), ConvexHull::new(&pb).unwrap());
        let dir = dir.try_normalize().unwrap_or(DVec3::X);
        let ha = Poly::new(&a, &pose_a).vertices.iter().map(|v| v.dot(dir)).fold(f64::MIN, f64::max);
        let hb = Poly::new(&b, &rot).vertices.iter().map(|v| -v.dot(dir)).fold(f64::MIN, f64::max);
        let shift = dir * (ha + hb + 10f64.powf(log_gap));
        let pose_b = DAffine3::from_translation(shift) * rot;
        let r = gjk(&a, &pose_a, &b, &pose_b);
        prop_assert!(!r.intersecting);
        check_separated(&a, &pose_a, &b, &pose_b, &r);
    }

    /// Boxes and plates with parallel faces and edges (degenerate closest features), at
    /// small and large gaps, under a common random pose.
    #[test]
    fn parallel_faces_match_brute_force(
        size_a in point(1.0),
        size_b in point(1.0),
        offset in point(1.0),
        log_gap in -8.0f64..0.5,
        flat in 0usize..3,
        common in pose(5.0),
    ) {
        let boxed = |s: DVec3| -> Vec<DVec3> {
            let s = s.abs() + DVec3::splat(0.05);
            (0..8)
                .map(|i| DVec3::new(
                    if i & 1 == 0 { -s.x } else { s.x },
                    if i & 2 == 0 { -s.y } else { s.y },
                    if i & 4 == 0 { -s.z } else { s.z },
                ))
                .collect()
        };
        let mut pb = boxed(size_b);
        if flat > 0 {
            // A plate (2D hull) or a bar (1D hull) for B.
            for p in &mut pb {
                p.z = 0.0;
                if flat == 2 {
                    p.y = 0.0;
                }
            }
        }
        let (a, b) = (
            ConvexHull::new(&boxed(size_a)).unwrap(),
            ConvexHull::new(&pb).unwrap(),
        );
        let top_a = a.vertices().iter().map(|v| v.z).fold(f64::MIN, f64::max);
        let bottom_b = b.vertices().iter().map(|v| v.z).fold(f64::MAX, f64::min);
        let shift = DVec3::new(offset.x, offset.y, top_a - bottom_b + 10f64.powf(log_gap));
        let pose_a = common;
        let pose_b = common * DAffine3::from_translation(shift);
        let r = gjk(&a, &pose_a, &b, &pose_b);
        prop_assert!(!r.intersecting);
        check_separated(&a, &pose_a, &b, &pose_b, &r);
    }

    #[test]
    fn symmetric(
        pa in cloud(1..30),
        pb in cloud(1..30),
        pose_a in pose(3.0),
        pose_b in pose(3.0),
    ) {
        let (a, b) = (ConvexHull::new(&pa).unwrap(), ConvexHull::new(&pb).unwrap());
        let ab = gjk(&a, &pose_a, &b, &pose_b);
        let ba = gjk(&b, &pose_b, &a, &pose_a);
        prop_assert_eq!(ab.intersecting, ba.intersecting);
        prop_assert!((ab.distance - ba.distance).abs() <= 1e-9 * ab.distance.max(1e-2));
        let sw = ba.swapped();
        if !ab.intersecting {
            prop_assert!(sw.normal.abs_diff_eq(ab.normal, 1e-6) || ab.distance < 1e-6);
        }
    }

    #[test]
    fn invariant_under_common_rigid_transform(
        pa in cloud(1..30),
        pb in cloud(1..30),
        pose_a in pose(3.0),
        pose_b in pose(3.0),
        common in pose(100.0),
    ) {
        let (a, b) = (ConvexHull::new(&pa).unwrap(), ConvexHull::new(&pb).unwrap());
        let r = gjk(&a, &pose_a, &b, &pose_b);
        let (ta, tb) = (common * pose_a, common * pose_b);
        let t = gjk(&a, &ta, &b, &tb);
        prop_assert_eq!(r.intersecting, t.intersecting);
        prop_assert!((r.distance - t.distance).abs() <= 1e-9 * r.distance.max(1e-2));
        if !r.intersecting {
            let moved = common.transform_point3(r.point_a);
            prop_assert!(moved.distance(t.point_a) <= 1e-6 || r.distance < 1e-6
                || r.feature_a != t.feature_a);
        }
    }

    #[test]
    fn overlapping_pairs_give_zero(
        pa in cloud(4..40),
        pb in cloud(4..40),
        pose_a in pose(3.0),
        rot in pose(0.0),
    ) {
        // Put B's centroid (a point of B) on A's centroid (a point of A).
        let (a, b) = (ConvexHull::new(&pa).unwrap(), ConvexHull::new(&pb).unwrap());
        let ca = pose_a.transform_point3(a.centroid());
        let rb = rot.transform_vector3(b.centroid());
        let pose_b = DAffine3::from_translation(ca - rb) * rot;
        let r = gjk(&a, &pose_a, &b, &pose_b);
        prop_assert!(r.intersecting, "distance {}", r.distance);
        prop_assert_eq!(r.distance, 0.0);
        prop_assert_eq!(r.lower_bound, 0.0);
        check_result(&a, &pose_a, &b, &pose_b, &r);
    }

    #[test]
    fn warm_start_matches_cold_start(
        pa in cloud(4..60),
        pb in cloud(4..60),
        pose_a in pose(1.0),
        start in point(4.0),
        velocity in point(0.5),
        spin in point(1.0),
    ) {
        let (a, b) = (ConvexHull::new(&pa).unwrap(), ConvexHull::new(&pb).unwrap());
        let mut cache = GjkCache::new();
        for step in 0..8 {
            let t = step as f64 * 0.125;
            let pose_b = DAffine3::from_rotation_translation(
                DQuat::from_scaled_axis(spin * t),
                start + velocity * t,
            );
            let opts = GjkOptions::default();
            let warm = gjk_distance_cached(&a, &pose_a, &b, &pose_b, &opts, &mut cache).unwrap();
            let cold = gjk(&a, &pose_a, &b, &pose_b);
            prop_assert_eq!(warm.intersecting, cold.intersecting);
            prop_assert!((warm.distance - cold.distance).abs() <= 1e-9 * cold.distance.max(1e-2));
            check_result(&a, &pose_a, &b, &pose_b, &warm);
        }
    }
}

#[test]
fn large_hulls_match_brute_force_and_parry() {
    use parry3d_f64::math::Pose;
    use parry3d_f64::shape::ConvexPolyhedron;

    let a = ConvexHull::new(&sphere_points(300, 1)).unwrap();
    let b_points: Vec<DVec3> = sphere_points(200, 2)
        .iter()
        .map(|p| *p * DVec3::new(1.5, 0.7, 0.4))
        .collect();
    let b = ConvexHull::new(&b_points).unwrap();
    let pa_shape = ConvexPolyhedron::from_convex_mesh(a.vertices().to_vec(), a.faces()).unwrap();
    let pb_shape = ConvexPolyhedron::from_convex_mesh(b.vertices().to_vec(), b.faces()).unwrap();
    for (k, gap) in [0.001, 0.05, 0.7, 3.0].into_iter().enumerate() {
        let q = DQuat::from_euler(glam::EulerRot::XYZ, 0.3 * k as f64, 1.1, -0.4);
        let pose_a = DAffine3::from_rotation_translation(DQuat::from_rotation_y(0.2), DVec3::ONE);
        let pose_b = DAffine3::from_rotation_translation(q, DVec3::new(1.0 + 1.5 + gap, 1.0, 1.0));
        let r = gjk(&a, &pose_a, &b, &pose_b);
        check_result(&a, &pose_a, &b, &pose_b, &r);
        let to_pose = |p: &DAffine3| {
            let (_, rot, t) = p.to_scale_rotation_translation();
            Pose::from_parts(t, rot)
        };
        let peer = parry3d_f64::query::distance(
            &to_pose(&pose_a),
            &pa_shape,
            &to_pose(&pose_b),
            &pb_shape,
        )
        .unwrap()
        .distance;
        assert!(
            (peer - r.distance).abs() <= 1e-7 * r.distance.max(1e-2),
            "{peer} vs {}",
            r.distance
        );
    }
}

#[test]
fn touching_cubes_report_zero_distance() {
    let corners: Vec<DVec3> = (0..8)
        .map(|i| DVec3::new((i & 1) as f64, ((i >> 1) & 1) as f64, ((i >> 2) & 1) as f64))
        .collect();
    let cube = ConvexHull::new(&corners).unwrap();
    let face_contact = DAffine3::from_translation(DVec3::new(1.0, 0.25, 0.5));
    let r = gjk(&cube, &DAffine3::IDENTITY, &cube, &face_contact);
    assert_eq!(r.distance, 0.0);
    assert!(r.intersecting);
    let edge_contact = DAffine3::from_translation(DVec3::new(1.0, 1.0, 0.0));
    let r = gjk(&cube, &DAffine3::IDENTITY, &cube, &edge_contact);
    assert!(r.distance == 0.0 && r.intersecting);
    // Within contact_distance counts as intersecting.
    let near = DAffine3::from_translation(DVec3::new(1.0 + 1e-4, 0.0, 0.0));
    let opts = GjkOptions::default().with_contact_distance(1e-3);
    let r = gjk_distance(&cube, &DAffine3::IDENTITY, &cube, &near, &opts).unwrap();
    assert!(r.intersecting && r.distance == 0.0);
    let r = gjk(&cube, &DAffine3::IDENTITY, &cube, &near);
    assert!(!r.intersecting && (r.distance - 1e-4).abs() < 1e-15);
}

#[test]
fn degenerate_hulls() {
    // Point vs segment vs polygon vs polytope, in closed form.
    let point = ConvexHull::new(&[DVec3::new(0.0, 0.0, 2.0)]).unwrap();
    let segment =
        ConvexHull::new(&[DVec3::new(-1.0, 0.0, 0.0), DVec3::new(1.0, 0.0, 0.0)]).unwrap();
    let square = ConvexHull::new(&[
        DVec3::new(-1.0, -1.0, 0.0),
        DVec3::new(1.0, -1.0, 0.0),
        DVec3::new(1.0, 1.0, 0.0),
        DVec3::new(-1.0, 1.0, 0.0),
    ])
    .unwrap();
    let id = DAffine3::IDENTITY;
    assert!((gjk(&point, &id, &segment, &id).distance - 2.0).abs() < 1e-15);
    assert!((gjk(&point, &id, &square, &id).distance - 2.0).abs() < 1e-15);
    let up = DAffine3::from_translation(DVec3::new(0.3, 0.2, 0.5));
    let r = gjk(&segment, &up, &square, &id);
    assert!((r.distance - 0.5).abs() < 1e-15);
    let r = gjk(&segment, &id, &square, &id);
    assert!(r.intersecting);
    // A segment crossing a square's plane through its interior.
    let tilted =
        DAffine3::from_rotation_translation(DQuat::from_rotation_y(1.0), DVec3::new(0.1, 0.1, 0.0));
    assert!(gjk(&segment, &tilted, &square, &id).intersecting);
    let r = gjk(&point, &id, &point, &DAffine3::from_translation(DVec3::X));
    assert!((r.distance - 1.0).abs() < 1e-15);
    assert_eq!(r.feature_a, ccd_geometry::Feature::Vertex(0));
}
