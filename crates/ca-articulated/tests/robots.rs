//! Real robots from `../shared/data/robots/` (Franka Panda, PR2): URDF + SRDF load into
//! articulated bodies, a pose known to self-collide is reported (checked against exact mesh
//! distance), and SRDF-disabled pairs are never reported. Reported as ignored when the data
//! is absent at build time (`build.rs`).
#![cfg(feature = "urdf")]

use std::collections::HashSet;
use std::path::PathBuf;

use ccd_ca_articulated::{ArticulatedBody, BodyStep, Mode, Part, QueryOptions, Scene};
use ccd_ca_rigid::Status;
use ccd_distance::{MeshDistanceOptions, mesh_distance};
use ccd_kinematics::urdf::{UrdfOptions, UrdfRobot, read_srdf_disabled_pairs};
use ccd_kinematics::{ArticulatedMotion, Joint, LinkId};

/// `$CCD_SHARED_DIR/data/robots/NAME`, else `../shared/data/robots/NAME` beside the
/// repository. The tests are ignored when the folder is absent at build time (`build.rs`);
/// run anyway (`--include-ignored`) without it, they fail here.
fn robot_dir(name: &str, urdf: &str) -> PathBuf {
    let data = match std::env::var_os("CCD_SHARED_DIR") {
        Some(shared) => PathBuf::from(shared).join("data"),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"),
    };
    let dir = data.join("robots").join(name);
    assert!(
        dir.join("urdf").join(urdf).is_file(),
        "{name} tests: {} not found (set CCD_SHARED_DIR)",
        dir.display()
    );
    dir
}

fn load(
    dir: &PathBuf,
    package: &str,
    urdf: &str,
    srdf: &str,
) -> (ArticulatedBody, UrdfRobot, HashSet<(LinkId, LinkId)>) {
    let opts = UrdfOptions::default().with_package(package, dir);
    let srdf = dir.join("srdf").join(srdf);
    let (body, robot) =
        ArticulatedBody::from_urdf(dir.join("urdf").join(urdf), Some(&srdf), &opts).unwrap();
    let disabled = read_srdf_disabled_pairs(&srdf, &robot.model).unwrap();
    (body, robot, disabled)
}

const PANDA_ARM: [&str; 7] = [
    "panda_joint1",
    "panda_joint2",
    "panda_joint3",
    "panda_joint4",
    "panda_joint5",
    "panda_joint6",
    "panda_joint7",
];

fn panda_q(robot: &UrdfRobot, arm: [f64; 7]) -> Vec<f64> {
    let mut q = vec![0.0; robot.model.dof()];
    for (name, v) in PANDA_ARM.iter().zip(arm) {
        q[robot.joint_index(name).unwrap()] = v;
    }
    q
}

/// The SRDF's "default" group state.
const READY: [f64; 7] = [
    0.0,
    -std::f64::consts::FRAC_PI_4,
    0.0,
    -3.0 * std::f64::consts::FRAC_PI_4,
    0.0,
    std::f64::consts::FRAC_PI_2,
    std::f64::consts::FRAC_PI_4,
];
/// Found by sampling the joint limits: link1 and link5 overlap (checked below).
const FOLDED: [f64; 7] = [
    0.9597538034,
    -1.6311082632,
    -1.4391236776,
    -2.928121278,
    -1.3434548316,
    1.96276413,
    -2.5193819826,
];

fn exact_distance(
    body: &ArticulatedBody,
    robot: &UrdfRobot,
    q: &[f64],
    a: LinkId,
    b: LinkId,
) -> f64 {
    let w = robot
        .model
        .pose_from_joints(q)
        .unwrap()
        .world_transforms(&robot.model)
        .unwrap();
    let (sa, sb) = (
        body.link_shape(a).unwrap().body(),
        body.link_shape(b).unwrap().body(),
    );
    mesh_distance(
        sa.mesh_bvh(),
        &w[a.index()],
        sb.mesh_bvh(),
        &w[b.index()],
        &MeshDistanceOptions::default(),
    )
    .unwrap()
    .closest
    .distance
}

#[test]
#[cfg_attr(
    ccd_missing_data = "panda",
    ignore = "needs ../shared/data/robots/panda (absent at build time)"
)]
fn panda_loads_with_the_srdf_filter() {
    let dir = robot_dir("panda", "panda.urdf");
    let (body, robot, disabled) = load(
        &dir,
        "example-robot-data/robots/panda_description",
        "panda.urdf",
        "panda.srdf",
    );
    assert_eq!(robot.model.len(), 13);
    assert_eq!(robot.model.dof(), 9);
    assert!(!disabled.is_empty());
    for &(a, b) in &disabled {
        assert!(!body.is_self_pair(a, b) && !body.is_self_pair(b, a));
    }
    let pairs: Vec<_> = body.self_pairs().collect();
    assert!(!pairs.is_empty());
    // links without collision geometry (link8, hand_tcp) are skipped, not errors
    let tcp = robot.model.link_id("panda_hand_tcp").unwrap();
    assert!(body.link_shape(tcp).is_none());
    assert!(pairs.iter().all(|&(a, b)| a != tcp && b != tcp));
}

#[test]
#[cfg_attr(
    ccd_missing_data = "panda",
    ignore = "needs ../shared/data/robots/panda (absent at build time)"
)]
fn panda_self_collision_is_reported() {
    let dir = robot_dir("panda", "panda.urdf");
    let (body, robot, disabled) = load(
        &dir,
        "example-robot-data/robots/panda_description",
        "panda.urdf",
        "panda.srdf",
    );
    let (l1, l5) = (
        robot.model.link_id("panda_link1").unwrap(),
        robot.model.link_id("panda_link5").unwrap(),
    );
    let ready = panda_q(&robot, READY);
    let folded = panda_q(&robot, FOLDED);
    // the reference: the ready pose is free, the folded one overlaps
    for (a, b) in body.self_pairs() {
        assert!(
            exact_distance(&body, &robot, &ready, a, b) > 1e-3,
            "ready pose touches"
        );
    }
    assert_eq!(exact_distance(&body, &robot, &folded, l1, l5), 0.0);

    let pairs: Vec<_> = body.self_pairs().collect();
    let mut scene = Scene::new();
    scene.add_articulated(body);
    let opts = QueryOptions::default();
    // standing still at the ready pose: free
    let still = scene
        .query(
            &[BodyStep::Joints {
                q0: &ready,
                q1: &ready,
            }],
            &opts,
        )
        .unwrap();
    assert!(still.first().is_none());
    // moving into the folded pose: a contact, on a tested pair, within ε at its time
    let res = scene
        .query(
            &[BodyStep::Joints {
                q0: &ready,
                q1: &folded,
            }],
            &opts,
        )
        .unwrap();
    let hit = res.first().expect("the folding motion self-collides");
    let (Part::Link { link: a, .. }, Part::Link { link: b, .. }) = (hit.a, hit.b) else {
        panic!("not a self pair: {hit:?}");
    };
    assert!(pairs.contains(&(a, b)));
    assert!(!disabled.contains(&(a, b)) && !disabled.contains(&(b, a)));
    assert_eq!(hit.contact.status, Status::Converged);
    let motion =
        ArticulatedMotion::from_joints(&scene.bodies()[0].model().clone(), &ready, &folded)
            .unwrap();
    let wa = motion.world_at(a, hit.contact.toc).unwrap();
    let wb = motion.world_at(b, hit.contact.toc).unwrap();
    let body = &scene.bodies()[0];
    let d = mesh_distance(
        body.link_shape(a).unwrap().body().mesh_bvh(),
        &wa,
        body.link_shape(b).unwrap().body().mesh_bvh(),
        &wb,
        &MeshDistanceOptions::default(),
    )
    .unwrap()
    .closest
    .distance;
    assert!(d <= 1e-3 + 1e-9, "distance {d} at toc {}", hit.contact.toc);
    eprintln!(
        "Panda ready -> folded: toc {:.4} on {:?}-{:?}; stats {:?}",
        hit.contact.toc,
        robot.model.links()[a.index()].name,
        robot.model.links()[b.index()].name,
        res.stats
    );
    // Boolean (edge check) agrees
    let edge = scene
        .query(
            &[BodyStep::Joints {
                q0: &ready,
                q1: &folded,
            }],
            &QueryOptions {
                mode: Mode::Boolean,
                ..opts
            },
        )
        .unwrap();
    assert!(edge.first().is_some());
}

/// A deterministic xorshift in [0, 1).
fn rng(seed: u64) -> impl FnMut() -> f64 {
    let mut s = seed;
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A random configuration inside the joint limits (continuous joints in ±π).
fn random_q(robot: &UrdfRobot, next: &mut impl FnMut() -> f64) -> Vec<f64> {
    let mut q = vec![0.0; robot.model.dof()];
    for l in robot.model.links() {
        let (lo, hi) = match l.joint {
            Joint::Revolute {
                limits: Some(lim), ..
            }
            | Joint::Prismatic {
                limits: Some(lim), ..
            } => (lim.lower, lim.upper),
            Joint::Revolute { limits: None, .. } => (-std::f64::consts::PI, std::f64::consts::PI),
            _ => continue,
        };
        q[l.first_dof] = lo + (hi - lo) * next();
    }
    q
}

fn never_reports_disabled(
    robot: &UrdfRobot,
    body: ArticulatedBody,
    disabled: &HashSet<(LinkId, LinkId)>,
    edges: usize,
    seed: u64,
) -> usize {
    let mut scene = Scene::new();
    scene.add_articulated(body);
    let mut next = rng(seed);
    let opts = QueryOptions {
        mode: Mode::AllPairs,
        ..QueryOptions::default()
    };
    let mut reported = 0;
    for _ in 0..edges {
        let q0 = random_q(robot, &mut next);
        let q1 = random_q(robot, &mut next);
        let res = scene
            .query(&[BodyStep::Joints { q0: &q0, q1: &q1 }], &opts)
            .unwrap();
        for c in &res.contacts {
            let (Part::Link { link: a, .. }, Part::Link { link: b, .. }) = (c.a, c.b) else {
                panic!("not a self pair: {c:?}");
            };
            assert!(
                !disabled.contains(&(a, b)) && !disabled.contains(&(b, a)),
                "disabled pair reported"
            );
            assert!(scene.bodies()[0].is_self_pair(a, b));
            reported += 1;
        }
    }
    reported
}

#[test]
#[cfg_attr(
    ccd_missing_data = "panda",
    ignore = "needs ../shared/data/robots/panda (absent at build time)"
)]
fn panda_srdf_disabled_pairs_are_never_reported() {
    let dir = robot_dir("panda", "panda.urdf");
    let (body, robot, disabled) = load(
        &dir,
        "example-robot-data/robots/panda_description",
        "panda.urdf",
        "panda.srdf",
    );
    let n = never_reports_disabled(&robot, body, &disabled, 12, 7);
    eprintln!("Panda: 12 random edges, {n} colliding pairs reported");
}

#[test]
#[cfg_attr(
    ccd_missing_data = "pr2",
    ignore = "needs ../shared/data/robots/pr2 (absent at build time)"
)]
fn pr2_loads_and_never_reports_disabled_pairs() {
    let dir = robot_dir("pr2", "pr2.urdf");
    let (body, robot, disabled) = load(
        &dir,
        "example-robot-data/robots/pr2_description",
        "pr2.urdf",
        "pr2.srdf",
    );
    let tris: usize = (0..robot.model.len() as u32)
        .filter_map(|i| body.link_shape(LinkId(i)))
        .map(|s| s.body().mesh_bvh().mesh().triangle_count())
        .sum();
    eprintln!(
        "PR2: {} links, {} dof, {tris} triangles, {} self pairs after the filter, {} SRDF-disabled",
        robot.model.len(),
        robot.model.dof(),
        body.self_pairs().count(),
        disabled.len()
    );
    assert!(robot.model.len() > 50 && tris > 5_000);
    for &(a, b) in &disabled {
        assert!(!body.is_self_pair(a, b));
    }
    never_reports_disabled(&robot, body, &disabled, 3, 11);
}
