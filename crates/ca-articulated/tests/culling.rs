//! Spatial culling never drops a pair that touches, with Taylor models and with intervals:
//! links whose OBB corner meets another box's corner exactly at the end of the step (by a
//! prismatic slide and by a revolute swing), a link grazing the environment at a single
//! instant, and a self pair touching at a corner.

mod support;

use ccd_ca_articulated::{ArticulatedBody, BodyStep, EnclosureKind, Mode, QueryOptions, Scene};
use ccd_geometry::glam::{DAffine3, DQuat, DVec3};
use ccd_kinematics::{ArticulatedModel, Joint, LinkSpec};
use support::{box_mesh, env_arc};

fn one_link(joint: Joint) -> ArticulatedModel {
    ArticulatedModel::new(vec![LinkSpec {
        name: "l".into(),
        parent: None,
        joint,
        offset: DAffine3::IDENTITY,
    }])
    .unwrap()
}

fn kinds() -> [QueryOptions; 4] {
    let base = QueryOptions::default();
    [
        base,
        base.with_enclosure(EnclosureKind::Interval),
        base.with_temporal_culling(false),
        base.with_mode(Mode::All)
            .with_enclosure(EnclosureKind::Interval),
    ]
}

#[test]
fn prismatic_slide_meets_a_corner_at_the_end() {
    // the unit box slides by 1 along x: its corner (2, 1, 1) meets the environment box's
    // corner exactly at t = 1
    let model = one_link(Joint::Prismatic {
        axis: DVec3::X,
        limits: None,
    });
    let link = box_mesh(DVec3::ZERO, DVec3::ONE);
    let mut scene = Scene::new();
    scene.add_articulated(ArticulatedBody::from_meshes(model, vec![Some(link)]).unwrap());
    scene.set_environment(env_arc(&box_mesh(
        DVec3::new(2.0, 1.0, 1.0),
        DVec3::splat(2.0) + DVec3::X,
    )));
    for opts in kinds() {
        let r = scene
            .query(
                &[BodyStep::Joints {
                    q0: &[0.0],
                    q1: &[1.0],
                }],
                &opts,
            )
            .unwrap();
        assert_eq!(r.stats.pairs_after_spatial, 1, "{opts:?}");
        let c = r
            .first()
            .unwrap_or_else(|| panic!("corner touch missed with {opts:?}"));
        assert!(
            c.contact.toc <= 1.0 && c.contact.toc >= 1.0 - 2e-3,
            "{opts:?}: {}",
            c.contact.toc
        );
    }
}

#[test]
fn revolute_swing_meets_a_corner_at_the_end() {
    // a box [0.5, 1.5] × [-0.1, 0.1] × [-0.1, 0.1] turns by 90° about z: its corner
    // (1.5, 0.1, 0.1) ends at (-0.1, 1.5, 0.1), the corner of the environment box
    let model = one_link(Joint::Revolute {
        axis: DVec3::Z,
        limits: None,
    });
    let link = box_mesh(DVec3::new(0.5, -0.1, -0.1), DVec3::new(1.5, 0.1, 0.1));
    let end = DQuat::from_rotation_z(std::f64::consts::FRAC_PI_2) * DVec3::new(1.5, 0.1, 0.1);
    // the environment box has its (max x, min y, min z) corner there: at t = 1 the two boxes
    // share that point and nothing else
    let mut scene = Scene::new();
    scene.add_articulated(ArticulatedBody::from_meshes(model, vec![Some(link)]).unwrap());
    scene.set_environment(env_arc(&box_mesh(
        end - DVec3::new(1.0, 0.0, 0.0),
        end + DVec3::new(0.0, 0.5, 0.5),
    )));
    for opts in kinds() {
        let r = scene
            .query(
                &[BodyStep::Joints {
                    q0: &[0.0],
                    q1: &[std::f64::consts::FRAC_PI_2],
                }],
                &opts,
            )
            .unwrap();
        assert!(r.stats.pairs_after_spatial == 1, "{opts:?}");
        assert!(r.first().is_some(), "corner touch missed with {opts:?}");
    }
}

#[test]
fn self_pair_touching_at_a_corner_is_kept() {
    // three links on a line; link 2 slides along x until its corner meets link 0's
    // (link 1 between them has no geometry, so 0–2 is a self pair)
    let specs = vec![
        LinkSpec {
            name: "l0".into(),
            parent: None,
            joint: Joint::Fixed,
            offset: DAffine3::IDENTITY,
        },
        LinkSpec {
            name: "l1".into(),
            parent: Some("l0".into()),
            joint: Joint::Revolute {
                axis: DVec3::Z,
                limits: None,
            },
            offset: DAffine3::from_translation(DVec3::new(3.0, 0.0, 0.0)),
        },
        LinkSpec {
            name: "l2".into(),
            parent: Some("l1".into()),
            joint: Joint::Prismatic {
                axis: -DVec3::X,
                limits: None,
            },
            offset: DAffine3::IDENTITY,
        },
    ];
    let model = ArticulatedModel::new(specs).unwrap();
    // l0: [0,1]³; l2 in its frame: [0,1] × [1,2] × [1,2], starts at x = 3, slides 2 to x = 1
    let body = ArticulatedBody::from_meshes(
        model,
        vec![
            Some(box_mesh(DVec3::ZERO, DVec3::ONE)),
            None,
            Some(box_mesh(
                DVec3::new(0.0, 1.0, 1.0),
                DVec3::new(1.0, 2.0, 2.0),
            )),
        ],
    )
    .unwrap();
    let mut scene = Scene::new();
    scene.add_articulated(body);
    for opts in kinds() {
        let r = scene
            .query(
                &[BodyStep::Joints {
                    q0: &[0.0, 0.0],
                    q1: &[0.0, 2.0],
                }],
                &opts,
            )
            .unwrap();
        assert_eq!(r.stats.pairs_before, 1);
        assert_eq!(r.stats.pairs_after_spatial, 1, "{opts:?}");
        let c = r
            .first()
            .unwrap_or_else(|| panic!("corner touch missed with {opts:?}"));
        assert!(c.contact.toc >= 1.0 - 2e-3, "{}", c.contact.toc);
    }
}
