//! Spatial culling never drops a pair that touches, with Taylor models and with intervals:
//! links whose OBB corner meets another box's corner exactly at the end of the step (by a
//! prismatic slide and by a revolute swing), a link grazing the environment at a single
//! instant, and a self pair touching at a corner. The second-level test (each link's
//! bounding pieces swept in the other's link frame) culls slanted links whose world boxes
//! overlap, keeps them when they touch, and never culls a pair that comes within `ε` on
//! random trees.

mod support;

use ccd_ca_articulated::{
    ArticulatedBody, ArticulatedScene, BodyStep, EnclosureKind, Mode, QueryOptions,
};
use ccd_geometry::TriMesh;
use ccd_geometry::glam::{DAffine3, DQuat, DVec3};
use ccd_kinematics::{ArticulatedModel, ArticulatedMotion, Joint, LinkSpec};
use proptest::prelude::*;
use support::{all_pairs, env_arc, joints, link_mesh, model_of, part_distance, tree};

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
    let link = TriMesh::cuboid(DVec3::ZERO, DVec3::ONE).unwrap();
    let mut scene = ArticulatedScene::new();
    scene.add_articulated(ArticulatedBody::from_meshes(model, vec![Some(link)]).unwrap());
    scene.set_environment(env_arc(
        &TriMesh::cuboid(DVec3::new(2.0, 1.0, 1.0), DVec3::splat(2.0) + DVec3::X).unwrap(),
    ));
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
    let link = TriMesh::cuboid(DVec3::new(0.5, -0.1, -0.1), DVec3::new(1.5, 0.1, 0.1)).unwrap();
    let end = DQuat::from_rotation_z(std::f64::consts::FRAC_PI_2) * DVec3::new(1.5, 0.1, 0.1);
    // the environment box has its (max x, min y, min z) corner there: at t = 1 the two boxes
    // share that point and nothing else
    let mut scene = ArticulatedScene::new();
    scene.add_articulated(ArticulatedBody::from_meshes(model, vec![Some(link)]).unwrap());
    scene.set_environment(env_arc(
        &TriMesh::cuboid(
            end - DVec3::new(1.0, 0.0, 0.0),
            end + DVec3::new(0.0, 0.5, 0.5),
        )
        .unwrap(),
    ));
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
            Some(TriMesh::cuboid(DVec3::ZERO, DVec3::ONE).unwrap()),
            None,
            Some(TriMesh::cuboid(DVec3::new(0.0, 1.0, 1.0), DVec3::new(1.0, 2.0, 2.0)).unwrap()),
        ],
    )
    .unwrap();
    let mut scene = ArticulatedScene::new();
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

/// Two parallel bars along the diagonal of the xy plane (2 × 0.1 × 0.6), the second
/// sliding towards the first along their common normal from gap `from` to gap `to`
/// (between the rods' faces); a middle link without geometry makes them a self pair.
fn slanted_rods(from: f64, to: f64) -> (ArticulatedScene, [f64; 2], [f64; 2]) {
    let turn = DQuat::from_rotation_z(std::f64::consts::FRAC_PI_4);
    let rod = || {
        let m = TriMesh::cuboid(DVec3::new(0.0, -0.05, -0.3), DVec3::new(2.0, 0.05, 0.3)).unwrap();
        let v = m.vertices().iter().map(|&v| turn * v).collect();
        TriMesh::new(v, m.triangles().to_vec()).unwrap()
    };
    let normal = turn * DVec3::Y;
    let specs = vec![
        LinkSpec {
            name: "a".into(),
            parent: None,
            joint: Joint::Fixed,
            offset: DAffine3::IDENTITY,
        },
        LinkSpec {
            name: "mid".into(),
            parent: Some("a".into()),
            joint: Joint::Revolute {
                axis: DVec3::Z,
                limits: None,
            },
            offset: DAffine3::IDENTITY,
        },
        LinkSpec {
            name: "b".into(),
            parent: Some("mid".into()),
            joint: Joint::Prismatic {
                axis: -normal,
                limits: None,
            },
            offset: DAffine3::from_translation(normal * (0.1 + from)),
        },
    ];
    let body = ArticulatedBody::from_meshes(
        ArticulatedModel::new(specs).unwrap(),
        vec![Some(rod()), None, Some(rod())],
    )
    .unwrap();
    let mut scene = ArticulatedScene::new();
    scene.add_articulated(body);
    (scene, [0.0, 0.0], [0.0, from - to])
}

#[test]
fn slanted_links_with_overlapping_world_boxes_are_culled_in_their_frames() {
    // 0.3 → 0.2 apart: the world boxes of the two diagonal rods overlap over most of their
    // area, their OBBs never come within ε
    let (scene, q0, q1) = slanted_rods(0.3, 0.2);
    for opts in kinds() {
        let r = scene
            .query(&[BodyStep::Joints { q0: &q0, q1: &q1 }], &opts)
            .unwrap();
        assert_eq!(r.stats.pairs_before, 1);
        assert_eq!(r.stats.pairs_after_spatial, 0, "{opts:?}");
        assert!(r.first().is_none());
    }
    // gap 0.3 → 0 (touching at t = 1): kept, and the contact is found
    let (scene, q0, q1) = slanted_rods(0.3, 0.0);
    for opts in kinds() {
        let r = scene
            .query(&[BodyStep::Joints { q0: &q0, q1: &q1 }], &opts)
            .unwrap();
        assert_eq!(r.stats.pairs_after_spatial, 1, "{opts:?}");
        let c = r
            .first()
            .unwrap_or_else(|| panic!("touch missed with {opts:?}"));
        assert!(c.contact.toc >= 1.0 - 1e-2 / 0.3, "{}", c.contact.toc);
    }
    // gap 0.3 → ε exactly at t = 1 (the faces end exactly ε apart): kept
    let (scene, q0, q1) = slanted_rods(0.3, 1e-3);
    for opts in kinds() {
        let r = scene
            .query(&[BodyStep::Joints { q0: &q0, q1: &q1 }], &opts)
            .unwrap();
        assert_eq!(r.stats.pairs_after_spatial, 1, "{opts:?}");
    }
}

/// The body of a random tree with each plan entry's mesh on the model link of its name
/// (`l{i}`: the model stores links breadth first, which need not be the plan's order).
fn body_by_name(plan: &[support::LinkPlan]) -> ArticulatedBody {
    let model = model_of(plan);
    let meshes = model
        .links()
        .iter()
        .map(|l| plan[l.name[1..].parse::<usize>().unwrap()].mesh.clone())
        .collect();
    ArticulatedBody::from_meshes(model, meshes).unwrap()
}

proptest! {
    // each case samples every self pair densely: a quarter of PROPTEST_CASES
    #![proptest_config(ProptestConfig { cases: (ProptestConfig::default().cases / 4).max(1), ..ProptestConfig::default() })]

    /// Spatial culling (world boxes, then the OBB frames) drops a step's self pairs only
    /// when every one stays more than `ε` apart: `ε` is set near the closest sampled
    /// distance of the step (0.5–3 times it), so the culling decision is made close to its
    /// boundary; and every pair that comes within `ε/2` is reported (`All`). Large and
    /// short steps: the Taylor-model query culls short ones interval-first.
    #[test]
    fn culled_pairs_stay_more_than_eps_apart(
        plan in (tree(5).prop_filter("three links or more", |p| p.len() >= 3), link_mesh(), link_mesh())
            .prop_map(|(mut p, m0, m2)| {
                // links 0 and 2 with geometry, joined through a moving link 1: at least one
                // self pair
                p[1].parent = 0;
                p[1].kind = 0;
                p[2].parent = 1;
                p[0].mesh.get_or_insert(m0);
                p[2].mesh.get_or_insert(m2);
                p
            }),
        seed in prop::collection::vec(-1.0..1.0f64, 16),
        scale in 0.5..3.0f64,
        interval in any::<bool>(),
        small in any::<bool>(),
    ) {
        let model = model_of(&plan);
        let (q0, mut q1) = joints(&model, &seed);
        if small {
            // a short step (at most 0.1 rad per joint): the Taylor-model query then takes
            // its interval-first path, with one-tree pairs left to the root-frame test
            for (b, a) in q1.iter_mut().zip(&q0) {
                *b = a + 0.02 * (*b - a);
            }
        }
        let body = body_by_name(&plan);
        let motion = ArticulatedMotion::from_joints(&model, &q0, &q1).unwrap();
        let pairs = all_pairs(&body, false);
        prop_assert!(!pairs.is_empty());
        let times: Vec<f64> = (0..=200).map(|k| f64::from(k) / 200.0).collect();
        let near: Vec<f64> = pairs
            .iter()
            .map(|&(a, b)| {
                times
                    .iter()
                    .map(|&t| part_distance(&body, &motion, None, a, b, t))
                    .fold(f64::INFINITY, f64::min)
            })
            .collect();
        let closest = near.iter().copied().fold(f64::INFINITY, f64::min);
        // pairs that touch get ε = 1e-3 scale: ε = scale × closest would be 0 there, which
        // the query rejects as a tolerance (`tests/culling.proptest-regressions` keeps the
        // case that showed it: two coincident cubes, all joints still, closest distance 0)
        let eps = scale * if closest > 1e-6 { closest } else { 1e-3 };
        let mut scene = ArticulatedScene::new();
        scene.add_articulated(body_by_name(&plan));
        let opts = QueryOptions::default()
            .with_mode(Mode::All)
            .with_tolerance(eps)
            .with_enclosure(if interval { EnclosureKind::Interval } else { EnclosureKind::Taylor });
        let r = scene.query(&[BodyStep::Joints { q0: &q0, q1: &q1 }], &opts).unwrap();
        if r.stats.pairs_after_spatial == 0 {
            prop_assert!(closest > eps, "all pairs culled, but a pair comes {closest} close (ε = {eps})");
        }
        if closest <= eps {
            prop_assert!(r.stats.pairs_after_spatial > 0, "a pair comes {closest} close (ε = {eps}) but all are culled");
        }
        for (&(a, b), &d) in pairs.iter().zip(&near) {
            if d <= 0.5 * eps {
                prop_assert!(
                    r.contacts.iter().any(|c| (c.a, c.b) == (a, b)),
                    "{a:?}-{b:?} comes {d} close (ε = {eps}) but is not reported"
                );
            }
        }
    }
}
