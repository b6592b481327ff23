//! `mesh_overlap` agrees with brute force over all triangle pairs (OBB and AABB trees) on
//! random meshes and poses, and rejects bad input.

mod support;

use ccd_bvh::{BvhOptions, MeshBvh, Obb};
use ccd_distance::{MeshDistanceError, mesh_distance_brute_force, mesh_overlap};
use ccd_geometry::glam::{DAffine3, DQuat, DVec3};
use ccd_geometry::{Aabb, TriMesh};
use ccd_test_support::{noisy_terrain, triangle_soup, uv_sphere};
use proptest::prelude::*;

fn mesh(kind: u8, seed: u64) -> TriMesh {
    match kind % 4 {
        0 => uv_sphere(1.0, 12, 8).unwrap(),
        1 => TriMesh::torus(1.0, 0.3, 14, 8).unwrap(),
        2 => noisy_terrain(9, 0.4, seed).unwrap(),
        _ => triangle_soup(120, 0.3, seed).unwrap(),
    }
}

fn pose() -> impl Strategy<Value = DAffine3> {
    (
        prop::array::uniform3(-1.0..1.0f64),
        -3.0..3.0f64,
        prop::array::uniform3(-2.0..2.0f64),
    )
        .prop_map(|(axis, angle, t)| {
            let axis = DVec3::from_array(axis).try_normalize().unwrap_or(DVec3::Z);
            DAffine3::from_rotation_translation(
                DQuat::from_axis_angle(axis, angle),
                DVec3::from_array(t),
            )
        })
}

proptest! {
    #[test]
    fn overlap_matches_brute_force(ka in 0u8..4, kb in 0u8..4, seed in 0u64..1000, pa in pose(), pb in pose(), contact in prop_oneof![Just(0.0), 0.0..0.2f64]) {
        let (a, b) = (mesh(ka, seed), mesh(kb, seed + 1));
        let truth = mesh_distance_brute_force(&a, &pa, &b, &pb).distance;
        let obb = (MeshBvh::<Obb>::new(a.clone(), &BvhOptions::default()).unwrap(), MeshBvh::<Obb>::new(b.clone(), &BvhOptions::default()).unwrap());
        let aabb = (MeshBvh::<Aabb>::new(a, &BvhOptions::default()).unwrap(), MeshBvh::<Aabb>::new(b, &BvhOptions::default()).unwrap());
        let r1 = mesh_overlap(&obb.0, &pa, &obb.1, &pb, contact).unwrap();
        let r2 = mesh_overlap(&aabb.0, &pa, &aabb.1, &pb, contact).unwrap();
        for r in [r1, r2] {
            match r {
                Some(o) => {
                    prop_assert!(o.closest.distance <= contact);
                    prop_assert!(truth <= contact + 1e-12, "found a pair at {} but brute force says {truth}", o.closest.distance);
                    prop_assert!(((o.closest.point_b - o.closest.point_a).length() - o.closest.distance).abs() <= 1e-9);
                }
                None => prop_assert!(truth > contact, "missed: brute force distance {truth} <= {contact}"),
            }
        }
    }
}

#[test]
fn bad_input_is_an_error() {
    let m = MeshBvh::<Obb>::new(uv_sphere(1.0, 6, 4).unwrap(), &BvhOptions::default()).unwrap();
    let id = DAffine3::IDENTITY;
    let nan = DAffine3::from_translation(DVec3::new(f64::NAN, 0.0, 0.0));
    assert!(matches!(
        mesh_overlap(&m, &nan, &m, &id, 0.0),
        Err(MeshDistanceError::NonFinitePose { .. })
    ));
    let scaled = DAffine3::from_scale(DVec3::splat(2.0));
    assert!(matches!(
        mesh_overlap(&m, &id, &m, &scaled, 0.0),
        Err(MeshDistanceError::NonRigidPose { .. })
    ));
    for bad in [-1.0, f64::NAN, f64::INFINITY] {
        assert!(matches!(
            mesh_overlap(&m, &id, &m, &id, bad),
            Err(MeshDistanceError::InvalidOption { .. })
        ));
    }
    // identical meshes at the same pose overlap
    assert!(mesh_overlap(&m, &id, &m, &id, 0.0).unwrap().is_some());
}
