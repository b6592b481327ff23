//! Regression tests, named after what broke.

mod support;

use ccd_distance::{point_triangle, triangle_triangle};
use ccd_geometry::Triangle;
use ccd_geometry::glam::DVec3;
use support::reference as r;

/// A needle triangle (one 8e-6 edge): one Gram–Schmidt pass left the frame's second axis
/// skewed by `ε |ok| / |h|`, and a point on an edge came out 2.9e-12 off the plane.
#[test]
fn sliver_frame_needs_second_gram_schmidt_pass() {
    let p = DVec3::new(0.0, -0.062_355_593_800_920_52, -0.120_050_152_322_831_84);
    let t = Triangle::new(
        DVec3::new(0.0, 0.0, -0.140_544_447_842_708_4),
        DVec3::new(0.0, -0.427_666_188_808_465_46, 0.0),
        DVec3::new(0.0, 8.202_877_100_675_722e-6, -0.140_544_447_842_708_4),
    );
    let c = point_triangle(p, &t);
    let reference = r::point_triangle(p, &t);
    assert!(
        (c.distance - reference).abs() < 1e-15,
        "{} vs {reference}",
        c.distance
    );
}

/// Two nearly coincident triangles crossing each other: PQP's two-vertex separation test
/// accepted a near-parallel edge pair whose computed closest points were not exactly
/// optimal, reporting 5e-9 for intersecting triangles (in one argument order only).
#[test]
fn near_coincident_triangles_need_full_slab_certificate() {
    let a = Triangle::new(
        DVec3::ZERO,
        DVec3::new(0.883_974_375_534_760_3, 0.0, 0.803_385_338_466_730_3),
        DVec3::new(0.0, 0.0, -0.856_167_919_902_643_3),
    );
    let b = Triangle::new(
        DVec3::new(
            -8.937_894_196_758_203e-9,
            -5.004_846_423_892_165e-9,
            -1.135_609_483_329_586e-8,
        ),
        DVec3::new(0.0, -9.193_547_860_267_958e-9, -0.856_167_919_902_643_3),
        DVec3::new(
            0.883_974_384_724_673_8,
            3.584_342_574_121_732_3e-9,
            0.803_385_338_466_730_3,
        ),
    );
    assert_eq!(r::triangle_triangle(&a, &b), 0.0);
    assert!(triangle_triangle(&a, &b).distance < 1e-15);
    assert!(triangle_triangle(&b, &a).distance < 1e-15);
}

/// A fuzz finding (through the adaptive articulated query): the RSS–RSS lower bound of
/// `ccd-bvh` took products of degree four in the coordinates, which overflow from ~1e77, and
/// exceeded the true distance there (1.7e77 for touching meshes at ~4e79); `mesh_distance`
/// with an upper bound then pruned every pair and reported the meshes farther apart than the
/// bound. The fuzz case's two meshes (a segment and a triangle sharing a point, under two
/// world poses), at scales 2^-250 … 2^250.
#[test]
fn mesh_distance_upper_bound_exit_holds_at_extreme_scales() {
    use ccd_bvh::{BvhOptions, MeshBvh, Rss};
    use ccd_distance::{MeshDistanceOptions, MeshDistanceStatus, mesh_distance};
    use ccd_geometry::TriMesh;
    use ccd_geometry::glam::{DAffine3, DQuat};
    for k in [-250, -120, 0, 46, 120, 250] {
        let s = 2f64.powi(k);
        let pts: Vec<DVec3> = [
            [-1.0, -20304.0, -20304.0],
            [0.0, 2816.0, -20304.0],
            [-20304.0, -20304.0, -20304.0],
            [-20304.0, -20304.0, -20304.0],
            [-20304.0, -20304.0, 22192.0],
            [-20304.0, -20304.0, -20304.0],
        ]
        .iter()
        .map(|c| DVec3::from_array(*c) * s)
        .collect();
        let q = DQuat::from_xyzw(-1.0, -1.0, -1.0, -1.0).normalize();
        let turn = DAffine3::from_axis_angle(DVec3::new(46.0, 49.0, 0.0).normalize(), 91.0);
        let pa = turn
            * DAffine3::from_rotation_translation(q, DVec3::new(-20399.0, -20304.0, -20304.0) * s);
        let pb = turn * DAffine3::from_rotation_translation(q, DVec3::splat(-20304.0 * s));
        let mesh = |t: Vec<[u32; 3]>| {
            MeshBvh::<Rss>::new(
                TriMesh::new(pts.clone(), t).unwrap(),
                &BvhOptions::default(),
            )
            .unwrap()
        };
        let (a, b) = (
            mesh(vec![[4, 2, 4], [2, 2, 2]]),
            mesh(vec![[2, 2, 2], [3, 1, 0]]),
        );
        // the meshes touch: a computed distance within rounding of the coordinates (~4e4 s)
        let opts = MeshDistanceOptions::default().with_upper_bound(1e-6 * s);
        let r = mesh_distance(&a, &pa, &b, &pb, &opts).unwrap();
        assert_eq!(r.status, MeshDistanceStatus::Converged, "2^{k}");
        assert!(
            r.closest.distance <= 1e-10 * s,
            "2^{k}: {:e}",
            r.closest.distance / s
        );
    }
}
