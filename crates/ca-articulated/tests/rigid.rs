//! Rigid bodies in a scene: against the environment and against a link, with contact times
//! known in closed form (pure translations), parts named on both sides.

mod support;

use std::sync::Arc;

use ccd_bvh::{BvhOptions, MeshBvh, Rss};
use ccd_ca_articulated::{ArticulatedBody, ArticulatedScene, BodyStep, Mode, Part, QueryOptions};
use ccd_geometry::TriMesh;
use ccd_geometry::glam::{DAffine3, DVec3};
use ccd_kinematics::{ArticulatedModel, Joint, LinkId, LinkSpec, RigidMotion};
use support::env_arc;

fn slide(from: f64, to: f64) -> RigidMotion {
    RigidMotion::between(
        DAffine3::from_translation(DVec3::new(from, 0.0, 0.0)),
        DAffine3::from_translation(DVec3::new(to, 0.0, 0.0)),
    )
    .unwrap()
}

fn unit_box() -> Arc<MeshBvh<Rss>> {
    Arc::new(
        MeshBvh::new(
            TriMesh::cuboid(DVec3::ZERO, DVec3::ONE).unwrap(),
            &BvhOptions::default(),
        )
        .unwrap(),
    )
}

#[test]
fn rigid_box_slides_into_the_environment() {
    // the unit box's +x face goes from x = -2 to x = 2; the wall starts at x = 1.5: t = 0.875
    let mut scene = ArticulatedScene::new();
    let id = scene.add_rigid(unit_box(), slide(-3.0, 1.0));
    scene.set_environment(env_arc(
        &TriMesh::cuboid(DVec3::new(1.5, -1.0, -1.0), DVec3::new(2.5, 2.0, 2.0)).unwrap(),
    ));
    let r = scene.query(&[], &QueryOptions::default()).unwrap();
    let c = r.first().expect("hits the wall");
    assert_eq!((c.a, c.b), (Part::Rigid(id), Part::Environment));
    let toc = c.contact.toc;
    // distance ≤ ε at toc: the face is within 1e-3 of the wall, i.e. toc ≥ 0.875 − 1e-3/4
    assert!((0.875 - 0.25e-3 - 1e-9..=0.875).contains(&toc), "{toc}");
    assert!((c.contact.normal - DVec3::X).length() < 1e-6);
    // moving it elsewhere: free
    assert!(scene.set_rigid_motion(id, slide(-3.0, -2.0)));
    assert!(
        scene
            .query(&[], &QueryOptions::default())
            .unwrap()
            .first()
            .is_none()
    );
    assert!(!scene.set_rigid_motion(7, slide(0.0, 0.0)));
}

#[test]
fn rigid_box_meets_a_sliding_link() {
    // a prismatic link (unit box) slides +x by 2 from the origin while a rigid unit box
    // slides -x by 2 from x = 4: faces at 1 + 2t and 4 - 2t meet at t = 0.75
    let model = ArticulatedModel::new(vec![LinkSpec {
        name: "slider".into(),
        parent: None,
        joint: Joint::Prismatic {
            axis: DVec3::X,
            limits: None,
        },
        offset: DAffine3::IDENTITY,
    }])
    .unwrap();
    let body = ArticulatedBody::from_meshes(
        model,
        vec![Some(TriMesh::cuboid(DVec3::ZERO, DVec3::ONE).unwrap())],
    )
    .unwrap();
    let mut scene = ArticulatedScene::new();
    scene.add_articulated(body);
    let rid = scene.add_rigid(unit_box(), slide(4.0, 2.0));
    for mode in [Mode::Toc, Mode::All, Mode::Boolean] {
        let opts = QueryOptions::default().with_mode(mode);
        let r = scene
            .query(
                &[BodyStep::Joints {
                    q0: &[0.0],
                    q1: &[2.0],
                }],
                &opts,
            )
            .unwrap();
        let c = r.first().expect("they meet");
        assert_eq!(
            (c.a, c.b),
            (
                Part::Link {
                    body: 0,
                    link: LinkId(0)
                },
                Part::Rigid(rid)
            )
        );
        assert!(
            c.contact.toc <= 0.75 && c.contact.toc >= 0.75 - 0.25e-3 - 1e-9,
            "{mode:?}: {}",
            c.contact.toc
        );
    }
}
