//! The adaptive query (assembly-tree culling, issue 18) against the full CATCH query:
//! random trees, random active sets and random motions over several steps give exactly the
//! full query's time of contact and pair (Toc, Boolean and All modes, Taylor and interval
//! enclosures, one or two bodies, a moving rigid body, an environment); node boxes hold
//! every sampled pose of their sub-assembly; bad input is a typed error.

mod support;

use ccd_bvh::{BvhOptions, MeshBvh, Rss};
use ccd_ca_articulated::{
    AdaptiveScene, AdaptiveStep, ArticulatedError, ArticulatedScene, BodyStep, EnclosureKind, Mode,
    QueryOptions, QueryResult,
};
use ccd_geometry::TriMesh;
use ccd_geometry::glam::{DAffine3, DQuat, DVec3};
use ccd_kinematics::{
    ArticulatedModel, ArticulatedMotion, AssemblyNode, AssemblyTree, LinkId, NodeId, RigidMotion,
};
use proptest::prelude::*;
use std::sync::Arc;
use support::*;

fn environment() -> impl Strategy<Value = Option<TriMesh>> {
    prop::option::of(
        (
            prop::array::uniform3(-1.2..1.2f64),
            prop::array::uniform3(0.05..0.5f64),
        )
            .prop_map(|(c, h)| {
                let (c, h) = (DVec3::from_array(c), DVec3::from_array(h));
                TriMesh::cuboid(c - h, c + h).unwrap()
            }),
    )
}

/// Joint vectors for `steps` steps: each step moves only the joints of its active set
/// (random, possibly empty or all); with `jump` a step may start away from the previous
/// end (a teleport between steps).
fn plan_steps(
    model: &ArticulatedModel,
    values: &[f64],
    active: &[bool],
    jumps: &[bool],
    steps: usize,
) -> Vec<(Vec<f64>, Vec<f64>, Vec<LinkId>)> {
    let n = model.dof();
    let mut v = values.iter().cycle().copied();
    let mut flags = active.iter().cycle().copied();
    let mut jump = jumps.iter().cycle().copied();
    let mut q: Vec<f64> = (0..n).map(|_| v.next().unwrap_or(0.0) * 2.0).collect();
    let mut out = Vec::new();
    for _ in 0..steps {
        if jump.next().unwrap_or(false) {
            for x in q.iter_mut() {
                *x += 0.3 * v.next().unwrap_or(0.0);
            }
        }
        let q0 = q.clone();
        let mut ids = Vec::new();
        for (i, l) in model.links().iter().enumerate() {
            if flags.next().unwrap_or(false) {
                ids.push(LinkId(i as u32));
                let scale = if l.joint.dof() == 1
                    && matches!(l.joint, ccd_kinematics::Joint::Prismatic { .. })
                {
                    0.3
                } else {
                    1.5
                };
                for x in &mut q[l.first_dof..l.first_dof + l.joint.dof()] {
                    *x += scale * v.next().unwrap_or(0.0);
                }
            }
        }
        out.push((q0, q.clone(), ids));
    }
    out
}

/// Query options from the defaults (field by field: the struct may be non-exhaustive).
#[allow(clippy::field_reassign_with_default)]
fn options(mode: Mode, kind: EnclosureKind, self_collision: bool, tolerance: f64) -> QueryOptions {
    let mut o = QueryOptions::default();
    o.mode = mode;
    o.enclosure = kind;
    o.self_collision = self_collision;
    o.tolerance = tolerance;
    o
}

fn same(full: &QueryResult, adaptive: &QueryResult, what: &str) -> Result<(), TestCaseError> {
    let key = |r: &QueryResult| {
        r.contacts
            .iter()
            .map(|c| (c.a, c.b, c.contact.toc.to_bits(), c.contact.status))
            .collect::<Vec<_>>()
    };
    prop_assert_eq!(key(full), key(adaptive), "{}", what);
    Ok(())
}

fn rigid_tetra() -> Arc<MeshBvh<Rss>> {
    let m = tetra([
        DVec3::new(-0.2, -0.2, -0.2),
        DVec3::new(0.3, -0.1, -0.2),
        DVec3::new(0.0, 0.3, -0.1),
        DVec3::new(0.0, 0.0, 0.3),
    ]);
    Arc::new(MeshBvh::<Rss>::new(m, &BvhOptions::default()).expect("tetra hierarchy"))
}

proptest! {
    // each case runs several steps of both queries in three modes: a quarter of
    // PROPTEST_CASES (64 in CI)
    #![proptest_config(ProptestConfig { cases: (ProptestConfig::default().cases / 4).max(1), ..ProptestConfig::default() })]

    #[test]
    fn adaptive_equals_the_full_query(
        plan in tree(9),
        second in prop::option::of(tree(5)),
        env in environment(),
        rigid in prop::option::of((prop::array::uniform3(-1.0..1.0f64), prop::array::uniform3(-1.0..1.0f64))),
        values in prop::collection::vec(-1.0..1.0f64, 24),
        active in prop::collection::vec(prop::bool::weighted(0.3), 1..40),
        jumps in prop::collection::vec(prop::bool::weighted(0.2), 1..4),
        interval in any::<bool>(),
        self_collision in prop::bool::weighted(0.8),
    ) {
        let mut scene = ArticulatedScene::new();
        scene.add_articulated(body_of(&plan));
        if let Some(p) = &second {
            scene.add_articulated(body_of(p));
        }
        if let Some(e) = &env {
            scene.set_environment(env_arc(e));
        }
        if let Some((a, b)) = rigid {
            let m = RigidMotion::between(
                DAffine3::from_translation(DVec3::from_array(a)),
                DAffine3::from_rotation_translation(DQuat::from_rotation_z(1.0), DVec3::from_array(b)),
            ).unwrap();
            scene.add_rigid(rigid_tetra(), m);
        }
        let mut adaptive = AdaptiveScene::new(scene.clone());
        let models: Vec<_> = scene.bodies().iter().map(|b| b.model().clone()).collect();
        let plans: Vec<_> = models
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let shifted: Vec<f64> = values.iter().skip(5 * i).chain(&values).copied().collect();
                plan_steps(m, &shifted, &active, &jumps, 4)
            })
            .collect();
        let kind = if interval { EnclosureKind::Interval } else { EnclosureKind::Taylor };
        for k in 0..4 {
            let full_steps: Vec<_> = plans.iter().map(|p| BodyStep::Joints { q0: &p[k].0, q1: &p[k].1 }).collect();
            let steps: Vec<_> = plans.iter().map(|p| AdaptiveStep { q0: &p[k].0, q1: &p[k].1, active: &p[k].2 }).collect();
            for mode in [Mode::Toc, Mode::Boolean, Mode::All] {
                let opts = options(mode, kind, self_collision, 1e-3);
                let full = scene.query(&full_steps, &opts.with_segment_turn(f64::INFINITY)).unwrap();
                let ours = adaptive.query(&steps, &opts).unwrap();
                same(&full, &ours, &format!("step {k}, {mode:?}"))?;
                prop_assert!(ours.stats.pairs_before == full.stats.pairs_before);
            }
        }
    }

    #[test]
    fn node_boxes_hold_every_sampled_pose(
        plan in tree(9),
        values in prop::collection::vec(-1.0..1.0f64, 24),
        active in prop::collection::vec(prop::bool::weighted(0.4), 1..40),
        interval in any::<bool>(),
    ) {
        let body = body_of(&plan);
        let model = body.model().clone();
        let mut scene = ArticulatedScene::new();
        scene.add_articulated(body.clone());
        let mut adaptive = AdaptiveScene::new(scene);
        let tree = AssemblyTree::from_model(&model);
        // links under each node
        let mut under: Vec<Vec<LinkId>> = vec![Vec::new(); tree.node_count()];
        for k in (0..tree.node_count()).rev() {
            under[k] = match tree.node(NodeId(k as u32)).unwrap() {
                AssemblyNode::Body { link } => vec![link],
                AssemblyNode::Joint { upper, lower, .. } => {
                    let mut v = under[upper.index()].clone();
                    v.extend_from_slice(&under[lower.index()]);
                    v
                }
            };
        }
        let kind = if interval { EnclosureKind::Interval } else { EnclosureKind::Taylor };
        let opts = options(Mode::Toc, kind, true, 1e-3);
        // three steps: the boxes of the last one are checked after incremental updates
        for (q0, q1, ids) in plan_steps(&model, &values, &active, &[false, true], 3) {
            adaptive
                .query(&[AdaptiveStep { q0: &q0, q1: &q1, active: &ids }], &opts)
                .unwrap();
            let boxes = adaptive.node_world_boxes(0).unwrap().expect("queried");
            prop_assert_eq!(boxes.len(), tree.node_count());
            let motion = ArticulatedMotion::from_joints(&model, &q0, &q1).unwrap();
            for s in 0..=40 {
                let t = f64::from(s) / 40.0;
                let world = motion.world_all_at(t);
                for (k, links) in under.iter().enumerate() {
                    for &l in links {
                        let Some(shape) = body.link_shape(l) else { continue };
                        for &v in shape.body().mesh_bvh().mesh().vertices() {
                            let p = world[l.index()].transform_point3(v);
                            prop_assert!(
                                boxes[k].contains_point(p),
                                "node {k}: vertex of link {l:?} at t = {t}: {p} outside {:?}",
                                boxes[k]
                            );
                        }
                    }
                }
            }
        }
    }
}

fn arm() -> ArticulatedScene {
    let mut scene = ArticulatedScene::new();
    let plan = vec![
        LinkPlan {
            parent: 0,
            kind: 0,
            axis: DVec3::Z,
            offset: DAffine3::IDENTITY,
            mesh: Some(TriMesh::cuboid(DVec3::splat(-0.1), DVec3::splat(0.1)).unwrap()),
        },
        LinkPlan {
            parent: 0,
            kind: 0,
            axis: DVec3::Z,
            offset: DAffine3::from_translation(DVec3::X),
            mesh: Some(TriMesh::cuboid(DVec3::splat(-0.1), DVec3::splat(0.1)).unwrap()),
        },
        LinkPlan {
            parent: 1,
            kind: 2,
            axis: DVec3::Z,
            offset: DAffine3::from_translation(DVec3::X),
            mesh: Some(TriMesh::cuboid(DVec3::splat(-0.1), DVec3::splat(0.1)).unwrap()),
        },
    ];
    scene.add_articulated(body_of(&plan));
    scene
}

#[test]
fn an_unknown_joint_is_an_error() {
    let mut a = AdaptiveScene::new(arm());
    let (q0, q1) = ([0.0, 0.0], [0.0, 0.5]);
    let r = a.query(
        &[AdaptiveStep {
            q0: &q0,
            q1: &q1,
            active: &[LinkId(1), LinkId(3)],
        }],
        &QueryOptions::default(),
    );
    assert!(
        matches!(
            r,
            Err(ArticulatedError::UnknownJoint {
                body: 0,
                joint: 3,
                count: 3
            })
        ),
        "{r:?}"
    );
}

#[test]
fn a_moving_joint_declared_inactive_is_an_error() {
    let mut a = AdaptiveScene::new(arm());
    let (q0, q1) = ([0.0, 0.0], [0.2, 0.5]);
    let r = a.query(
        &[AdaptiveStep {
            q0: &q0,
            q1: &q1,
            active: &[LinkId(1)],
        }],
        &QueryOptions::default(),
    );
    match r {
        Err(ArticulatedError::InactiveJointMoved {
            body: 0,
            link,
            from,
            to,
        }) => assert_eq!((link.as_str(), from, to), ("l0", 0.0, 0.2)),
        other => panic!("expected InactiveJointMoved, got {other:?}"),
    }
    // the fixed joint of link 2 and a listed joint that stays put are fine
    let ok = a.query(
        &[AdaptiveStep {
            q0: &q0,
            q1: &q1,
            active: &[LinkId(0), LinkId(1), LinkId(2)],
        }],
        &QueryOptions::default(),
    );
    assert!(ok.is_ok(), "{ok:?}");
}

#[test]
fn other_bad_input_is_the_full_querys_error() {
    let mut a = AdaptiveScene::new(arm());
    let opts = QueryOptions::default();
    let (q0, q1) = ([0.0, 0.0], [0.0, 0.5]);
    let step = AdaptiveStep {
        q0: &q0,
        q1: &q1,
        active: &[LinkId(1)],
    };
    assert!(matches!(
        a.query(&[step, step], &opts),
        Err(ArticulatedError::StepCount {
            expected: 1,
            got: 2
        })
    ));
    let short = AdaptiveStep {
        q0: &q0[..1],
        q1: &q1,
        active: &[],
    };
    assert!(matches!(
        a.query(&[short], &opts),
        Err(ArticulatedError::JointCount { .. })
    ));
    let nan = [0.0, f64::NAN];
    let bad = AdaptiveStep {
        q0: &q0,
        q1: &nan,
        active: &[LinkId(1)],
    };
    assert!(matches!(
        a.query(&[bad], &opts),
        Err(ArticulatedError::InvalidJointValue { .. })
    ));
    for tolerance in [-1.0, 1e-311] {
        let bad_opts = options(Mode::Toc, EnclosureKind::Taylor, true, tolerance);
        assert!(matches!(
            a.query(&[step], &bad_opts),
            Err(ArticulatedError::InvalidOptions(_))
        ));
    }
    // after errors the state still answers like the full query
    let full = arm()
        .query(
            &[BodyStep::Joints { q0: &q0, q1: &q1 }],
            &opts.with_segment_turn(f64::INFINITY),
        )
        .unwrap();
    let ours = a.query(&[step], &opts).unwrap();
    assert_eq!(full.contacts, ours.contacts);
}

/// A coiling chain of 16 boxes whose joints all turn by up to 1.2 rad per step: interval
/// node boxes keep many pairs, which are refined with Taylor boxes or handed to the full
/// query, and the next steps go through the full query's culling; every step's answer is
/// still the full query's, and the node boxes hold the last step's poses.
#[test]
fn large_motions_keep_the_full_querys_answers() {
    let n: usize = 16;
    let plan: Vec<LinkPlan> = (0..n)
        .map(|i| LinkPlan {
            parent: i.saturating_sub(1),
            kind: 0,
            axis: if i % 2 == 0 { DVec3::Z } else { DVec3::Y },
            offset: DAffine3::from_translation(if i > 0 { DVec3::X * 0.3 } else { DVec3::ZERO }),
            mesh: Some(TriMesh::cuboid(DVec3::splat(-0.1), DVec3::splat(0.1)).unwrap()),
        })
        .collect();
    let body = body_of(&plan);
    let mut scene = ArticulatedScene::new();
    scene.add_articulated(body.clone());
    let mut adaptive = AdaptiveScene::new(scene.clone());
    let all: Vec<LinkId> = (0..n as u32).map(LinkId).collect();
    let mut q = vec![0.0; n];
    for step in 0..8 {
        let q0 = q.clone();
        for (i, x) in q.iter_mut().enumerate() {
            *x += 1.2 * ((i * 7 + step * 3) % 11) as f64 / 10.0 - 0.6;
        }
        for mode in [Mode::Toc, Mode::All] {
            let opts = options(mode, EnclosureKind::Taylor, true, 1e-3);
            let full = scene
                .query(
                    &[BodyStep::Joints { q0: &q0, q1: &q }],
                    &opts.with_segment_turn(f64::INFINITY),
                )
                .unwrap();
            let ours = adaptive
                .query(
                    &[AdaptiveStep {
                        q0: &q0,
                        q1: &q,
                        active: &all,
                    }],
                    &opts,
                )
                .unwrap();
            same(&full, &ours, &format!("step {step}, {mode:?}")).unwrap();
        }
        let boxes = adaptive.node_world_boxes(0).unwrap().expect("queried");
        let motion = ArticulatedMotion::from_joints(body.model(), &q0, &q).unwrap();
        for s in 0..=20 {
            let world = motion.world_all_at(f64::from(s) / 20.0);
            for (l, w) in world.iter().enumerate() {
                let mesh = body
                    .link_shape(LinkId(l as u32))
                    .unwrap()
                    .body()
                    .mesh_bvh()
                    .mesh();
                for &v in mesh.vertices() {
                    // the root node holds every link
                    assert!(
                        boxes[0].contains_point(w.transform_point3(v)),
                        "step {step}"
                    );
                }
            }
        }
    }
}

/// A fuzz finding (`fuzz/corpus/articulated/seed-finding-rigid-siblings-touching-1e18`): two
/// sibling links with the same offset from a turning root, whose meshes share a vertex, at
/// coordinates ~1e18. The pair is rigid (no joint between the two moves), and the adaptive
/// query settled it from the links' f64 world poses at `t = 0`, which put the shared vertex
/// ~100 apart, as more than `2ε` apart: a miss where the full query reports the contact at
/// `t = 0`. The boxes and distances from those poses now carry a rounding allowance.
#[test]
fn touching_rigid_siblings_at_huge_coordinates_are_kept() {
    // (at 2^204 · 2^46 the RSS lower bound of `ccd-bvh` overflowed too, see
    // `ccd_bvh`'s `segment_segment_dist2`)
    for scale in [1.0, 1e-10, 1e10, 2f64.powi(204)] {
        let s = 2f64.powi(46) * scale;
        let pts: Vec<DVec3> = [
            [-1.0, -20304.0, -20304.0],
            [0.0, 2816.0, -20304.0],
            [-20304.0, -20304.0, -20304.0],
            [-20304.0, -20304.0, 22192.0],
        ]
        .iter()
        .map(|c| DVec3::from_array(*c) * s)
        .collect();
        let q = DQuat::from_xyzw(-1.0, -1.0, -1.0, -1.0).normalize();
        let off = DAffine3::from_rotation_translation(q, DVec3::splat(-20304.0 * s));
        let spec = |i: usize, parent: Option<usize>, joint, offset| ccd_kinematics::LinkSpec {
            name: format!("l{i}"),
            parent: parent.map(|p| format!("l{p}")),
            joint,
            offset,
        };
        let hinge = |axis| ccd_kinematics::Joint::Revolute { axis, limits: None };
        let model = ArticulatedModel::new(vec![
            spec(0, None, hinge(DVec3::Y), DAffine3::IDENTITY),
            spec(1, Some(0), hinge(DVec3::Z), off),
            spec(2, Some(0), ccd_kinematics::Joint::Fixed, off),
            spec(3, Some(2), ccd_kinematics::Joint::Fixed, off),
        ])
        .unwrap();
        // segments and points (degenerate triangles), links 1 and 2 sharing vertex 2
        let mesh = |t: Vec<[u32; 3]>| Some(TriMesh::new(pts.clone(), t).unwrap());
        let body = ccd_ca_articulated::ArticulatedBody::from_meshes(
            model,
            vec![
                None,
                mesh(vec![[3, 2, 2], [2, 2, 2]]),
                mesh(vec![[2, 2, 2], [2, 2, 0]]),
                mesh(vec![[2, 2, 2]]),
            ],
        )
        .unwrap();
        let mut scene = ArticulatedScene::new();
        scene.add_articulated(body);
        let (q0, q1) = ([91.0, 0.0], [0.0, 0.0]);
        let opts = QueryOptions::default().with_temporal_culling(false);
        let full = scene
            .query(
                &[BodyStep::Joints { q0: &q0, q1: &q1 }],
                &opts.with_segment_turn(f64::INFINITY),
            )
            .unwrap();
        let hit = full.first().expect("the siblings touch");
        assert_eq!(hit.contact.toc, 0.0);
        let active = [LinkId(0), LinkId(1), LinkId(2), LinkId(3)];
        let ours = AdaptiveScene::new(scene)
            .query(
                &[AdaptiveStep {
                    q0: &q0,
                    q1: &q1,
                    active: &active,
                }],
                &opts,
            )
            .unwrap();
        assert_eq!(full.contacts, ours.contacts, "scale {scale}");
    }
}
