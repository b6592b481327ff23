//! Cases found by the `articulated` fuzz target (`fuzz/fuzz_targets/articulated.rs`),
//! replayed as plain tests.

use std::sync::Arc;

use ccd_bvh::{BvhOptions, MeshBvh, Rss};
use ccd_ca_articulated::{ArticulatedBody, ArticulatedScene, BodyStep, Part, QueryOptions};
use ccd_geometry::TriMesh;
use ccd_geometry::glam::{DAffine3, DQuat, DVec3};
use ccd_kinematics::{ArticulatedModel, Joint, LinkSpec};

/// A root link on a prismatic joint slides `far` along (0, 1, 1)/√2 back to its origin,
/// where its child link crosses an environment triangle: the contact falls in the last
/// `~1e-17·(1e20 / far)` of the step. With `far = 1e20` the last CA evaluation certified a
/// step that rounds up to the end of the step without reaching it, and the query returned
/// no contact (`ccd_ca_rigid`'s `advance` now keeps such a sliver uncertified: the answer
/// is a conservative `Stalled` contact just before 1). With `far = 1.43e32` the window CA
/// took its rounding allowance from the link's pose at the time evaluated (~1e8 near the
/// end) while that pose carries the rounding of `far` (~1e16), and proved the end of the
/// step free; the allowance now comes from the chain's `RoundingScale`.
#[test]
fn a_contact_in_the_last_ulp_of_the_step_is_reported() {
    let p: Vec<DVec3> = [
        [-1.0, -1.0, 1024.0],
        [0.0, 0.0, 0.0],
        [32256.0, 0.0, 0.0],
        [6400.0, 0.0, 0.0],
        [0.0, 0.0, 0.0],
        [9.0, 8192.0, -13252.0],
        [15123.0, 5041.0, 315.0],
        [-4096.0, 0.0, 0.0],
        [0.0, 0.0, 21846.0],
        [21845.0, 21845.0, 5461.0],
        [0.0, 0.0, 4096.0],
        [0.0, -21847.0, -21846.0],
    ]
    .iter()
    .map(|c| DVec3::from_array(*c))
    .collect();
    let q = DQuat::from_xyzw(1.0, 1.0, 1.0, 0.0).normalize();
    let slide = |axis: DVec3| Joint::Prismatic {
        axis: axis.normalize(),
        limits: None,
    };
    let model = ArticulatedModel::new(vec![
        LinkSpec {
            name: "l0".into(),
            parent: None,
            joint: slide(DVec3::new(0.0, 1.0, 1.0)),
            offset: DAffine3::IDENTITY,
        },
        LinkSpec {
            name: "l1".into(),
            parent: Some("l0".into()),
            joint: slide(DVec3::ONE),
            offset: DAffine3::from_rotation_translation(q, DVec3::new(0.0, 0.0, 4096.0)),
        },
    ])
    .unwrap();
    let m0 = TriMesh::new(p[..6].to_vec(), vec![[3, 0, 4], [0, 0, 0]]).ok();
    let m1 = TriMesh::new(p[..6].to_vec(), vec![[0, 5, 3]]).ok();
    let body = ArticulatedBody::from_meshes(model, vec![m0, m1]).unwrap();
    let env = TriMesh::new(p[6..].to_vec(), vec![[0, 0, 0], [0, 4, 2], [2, 2, 2]]).unwrap();
    let mut scene = ArticulatedScene::new();
    scene.add_articulated(body);
    scene.set_environment(Arc::new(
        MeshBvh::<Rss>::new(env, &BvhOptions::default()).unwrap(),
    ));
    let opts = QueryOptions::default().with_temporal_culling(false);
    for far in [1e4, 1e10, 1e16, 1e20, 1.43e32] {
        let (q0, q1) = ([far, 0.0], [0.0, 0.0]);
        let r = scene
            .query(&[BodyStep::Joints { q0: &q0, q1: &q1 }], &opts)
            .unwrap();
        let c = r
            .first()
            .unwrap_or_else(|| panic!("missed at far = {far:e}"));
        assert_eq!(c.b, Part::Environment);
        assert!(c.contact.toc < 1.0, "far {far:e}: toc {}", c.contact.toc);
    }
}
