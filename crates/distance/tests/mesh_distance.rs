//! Property tests of `mesh_distance` against brute force over all triangle pairs on random
//! meshes of a few hundred triangles (spheres, tori, terrains, soups) under random poses,
//! plus its options (hint, upper bound, tolerance, "closer than") and bad input.

mod support;

use ccd_bvh::{BvhOptions, MeshBvh, Rss};
use ccd_distance::{
    MeshDistanceError, MeshDistanceOptions, MeshDistanceStatus, mesh_distance,
    mesh_distance_brute_force, triangle_triangle,
};
use ccd_geometry::glam::{DAffine3, DQuat, DVec3};
use ccd_geometry::{Feature, TriMesh, Triangle};
use ccd_test_support::{noisy_terrain, triangle_soup, uv_sphere};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use support::reference as r;

fn mesh(kind: u8, seed: u64) -> TriMesh {
    match kind % 4 {
        0 => uv_sphere(1.0, 14, 10).unwrap(),
        1 => TriMesh::torus(1.0, 0.3, 16, 9).unwrap(),
        2 => noisy_terrain(11, 0.4, seed).unwrap(),
        _ => triangle_soup(200, 0.3, seed).unwrap(),
    }
}

fn pose() -> impl Strategy<Value = DAffine3> {
    (
        (-1.0..1.0f64, -1.0..1.0f64, -1.0..1.0f64, -1.0..1.0f64),
        (-1.0..1.0f64, -1.0..1.0f64, -1.0..1.0f64),
        0.0..4.0f64,
    )
        .prop_map(|((x, y, z, w), (dx, dy, dz), sep)| {
            let q = DQuat::from_xyzw(x, y, z, w);
            let q = if q.length() > 1e-3 {
                q.normalize()
            } else {
                DQuat::IDENTITY
            };
            let d = DVec3::new(dx, dy, dz).try_normalize().unwrap_or(DVec3::X);
            DAffine3::from_rotation_translation(q, d * sep)
        })
}

/// Brute force with the public kernel, in the world frame.
fn brute(a: &TriMesh, pa: &DAffine3, b: &TriMesh, pb: &DAffine3) -> f64 {
    let world = |m: &TriMesh, p: &DAffine3| -> Vec<Triangle> {
        m.triangle_iter()
            .map(|t| {
                Triangle::new(
                    p.transform_point3(t.a),
                    p.transform_point3(t.b),
                    p.transform_point3(t.c),
                )
            })
            .collect()
    };
    let (ta, tb) = (world(a, pa), world(b, pb));
    let mut d = f64::INFINITY;
    for x in &ta {
        for y in &tb {
            d = d.min(triangle_triangle(x, y).distance);
        }
    }
    d
}

/// Distance from world point `p` to the mesh feature `f` of mesh `m` placed by `pose`.
fn off_feature(p: DVec3, f: Feature, m: &TriMesh, pose: &DAffine3) -> f64 {
    let v = |i: u32| pose.transform_point3(m.vertices()[i as usize]);
    match f {
        Feature::Vertex(i) => p.distance(v(i)),
        Feature::Edge(i, j) => r::point_segment(p, v(i), v(j)),
        Feature::Face(t) => {
            let [i, j, k] = m.triangles()[t as usize];
            r::point_triangle(p, &Triangle::new(v(i), v(j), v(k)))
        }
    }
}

const TOL: f64 = 1e-9;

proptest! {
    #![proptest_config(ProptestConfig {
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "proptest-regressions/mesh_distance.txt",
        ))),
        ..ProptestConfig::default()
    })]

    #[test]
    fn mesh_distance_matches_brute_force(
        ka in 0u8..4, kb in 0u8..4, sa in any::<u64>(), sb in any::<u64>(),
        pa in pose(), pb in pose(), leaf in 1u32..5,
    ) {
        let (ma, mb) = (mesh(ka, sa), mesh(kb, sb));
        let opts = BvhOptions::default().with_leaf_size(leaf);
        let a = MeshBvh::<Rss>::new(ma.clone(), &opts).unwrap();
        let b = MeshBvh::<Rss>::new(mb.clone(), &opts).unwrap();
        let exact = brute(&ma, &pa, &mb, &pb);
        let res = mesh_distance(&a, &pa, &b, &pb, &MeshDistanceOptions::default()).unwrap();
        let c = res.closest;
        prop_assert!((c.distance - exact).abs() <= TOL * (1.0 + exact), "{} vs {exact}", c.distance);
        prop_assert_eq!(res.status, MeshDistanceStatus::Converged);
        prop_assert!((c.point_b - c.point_a).length() - c.distance <= TOL);
        prop_assert!(off_feature(c.point_a, c.feature_a, &ma, &pa) <= TOL, "{c:?}");
        prop_assert!(off_feature(c.point_b, c.feature_b, &mb, &pb) <= TOL, "{c:?}");
        prop_assert!(res.stats.primitive_tests >= 1);
        let bf = mesh_distance_brute_force(&ma, &pa, &mb, &pb);
        prop_assert!((bf.distance - exact).abs() <= TOL * (1.0 + exact));

        // Symmetry.
        let back = mesh_distance(&b, &pb, &a, &pa, &MeshDistanceOptions::default()).unwrap();
        prop_assert!((back.closest.distance - exact).abs() <= TOL * (1.0 + exact));

        // A hint (any pair) changes nothing but the work.
        let hint = (sa as u32 % ma.triangle_count() as u32, sb as u32 % mb.triangle_count() as u32);
        let hinted = mesh_distance(&a, &pa, &b, &pb, &MeshDistanceOptions::default().with_hint(Some(hint))).unwrap();
        prop_assert!((hinted.closest.distance - exact).abs() <= TOL * (1.0 + exact));
        let coherent = mesh_distance(&a, &pa, &b, &pb, &MeshDistanceOptions::default().with_hint(Some(res.hint()))).unwrap();
        prop_assert!((coherent.closest.distance - exact).abs() <= TOL * (1.0 + exact));
        prop_assert!(coherent.stats.primitive_tests <= res.stats.primitive_tests + 1);

        // Tolerance: within abs_tolerance of exact.
        let loose = mesh_distance(&a, &pa, &b, &pb, &MeshDistanceOptions::default().with_abs_tolerance(0.05)).unwrap();
        prop_assert!(loose.closest.distance >= exact - TOL && loose.closest.distance <= exact + 0.05 + TOL);

        // Upper bound: above it -> AboveUpperBound with a real pair; below -> exact.
        if exact > 1e-6 {
            let ub = mesh_distance(&a, &pa, &b, &pb, &MeshDistanceOptions::default().with_upper_bound(exact * 0.5)).unwrap();
            prop_assert_eq!(ub.status, MeshDistanceStatus::AboveUpperBound);
            prop_assert!(ub.closest.distance >= exact - TOL);
        }
        let ub = mesh_distance(&a, &pa, &b, &pb, &MeshDistanceOptions::default().with_upper_bound(exact * 2.0 + 1e-3)).unwrap();
        prop_assert!((ub.closest.distance - exact).abs() <= TOL * (1.0 + exact));

        // "Closer than": stops with a pair below the threshold, or converges above it.
        let thr = exact + 0.1;
        let cl = mesh_distance(&a, &pa, &b, &pb, &MeshDistanceOptions::default().with_stop_below(thr)).unwrap();
        if exact > 0.0 {
            prop_assert_eq!(cl.status, MeshDistanceStatus::BelowThreshold);
        }
        prop_assert!(cl.closest.distance < thr && cl.closest.distance >= exact - TOL);
    }
}

fn tet() -> MeshBvh<Rss> {
    MeshBvh::<Rss>::from_parts(
        vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z],
        vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
        &BvhOptions::default(),
    )
    .unwrap()
}

#[test]
fn bad_poses_and_options_are_errors() {
    let t = tet();
    let id = DAffine3::IDENTITY;
    let o = MeshDistanceOptions::default();
    let nan = DAffine3::from_translation(DVec3::new(f64::NAN, 0.0, 0.0));
    assert!(matches!(
        mesh_distance(&t, &nan, &t, &id, &o),
        Err(MeshDistanceError::NonFinitePose { which: 'a' })
    ));
    let scaled = DAffine3::from_scale(DVec3::splat(2.0));
    assert!(matches!(
        mesh_distance(&t, &id, &t, &scaled, &o),
        Err(MeshDistanceError::NonRigidPose { which: 'b', .. })
    ));
    let neg = o.with_abs_tolerance(-1.0);
    assert!(matches!(
        mesh_distance(&t, &id, &t, &id, &neg),
        Err(MeshDistanceError::InvalidOption { .. })
    ));
    let nan_opt = o.with_upper_bound(f64::NAN);
    assert!(matches!(
        mesh_distance(&t, &id, &t, &id, &nan_opt),
        Err(MeshDistanceError::InvalidOption { .. })
    ));
    let hint = o.with_hint(Some((4, 0)));
    assert!(matches!(
        mesh_distance(&t, &id, &t, &id, &hint),
        Err(MeshDistanceError::HintOutOfRange { .. })
    ));
}

#[test]
fn single_triangles_and_degenerate_meshes() {
    let one = MeshBvh::<Rss>::from_parts(
        vec![DVec3::ZERO, DVec3::X, DVec3::Y],
        vec![[0, 1, 2]],
        &BvhOptions::default(),
    )
    .unwrap();
    let r = mesh_distance(
        &one,
        &DAffine3::IDENTITY,
        &one,
        &DAffine3::from_translation(DVec3::Z * 2.0),
        &MeshDistanceOptions::default(),
    )
    .unwrap();
    assert_eq!(r.closest.distance, 2.0);
    // All triangles degenerate (collinear or repeated vertices).
    let flat = MeshBvh::<Rss>::from_parts(
        vec![DVec3::ZERO, DVec3::X, DVec3::X * 2.0, DVec3::Y],
        vec![[0, 1, 2], [3, 3, 3], [0, 0, 3]],
        &BvhOptions::default().with_leaf_size(1),
    )
    .unwrap();
    let pose = DAffine3::from_translation(DVec3::new(0.5, 0.5, 1.0));
    let r = mesh_distance(
        &flat,
        &DAffine3::IDENTITY,
        &flat,
        &pose,
        &MeshDistanceOptions::default(),
    )
    .unwrap();
    let bf = mesh_distance_brute_force(flat.mesh(), &DAffine3::IDENTITY, flat.mesh(), &pose);
    assert!(r.closest.distance.is_finite());
    assert!((r.closest.distance - bf.distance).abs() < 1e-12);
}

#[test]
fn upper_bound_prunes_everything_still_reports_a_real_pair() {
    let t = tet();
    let far = DAffine3::from_translation(DVec3::new(100.0, 0.0, 0.0));
    let o = MeshDistanceOptions::default().with_upper_bound(1.0);
    let r = mesh_distance(&t, &DAffine3::IDENTITY, &t, &far, &o).unwrap();
    assert_eq!(r.status, MeshDistanceStatus::AboveUpperBound);
    assert!(r.closest.distance >= 98.0 && r.closest.distance.is_finite());
}
