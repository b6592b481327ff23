//! The real Franka Emika Panda (`../shared/data/robots/panda/`): load its URDF with the
//! collision meshes, pose it, and check link frames against the joint chain multiplied out
//! by hand; read its SRDF self-collision filter. Reported as ignored when the data is absent
//! at build time (`build.rs`).

use std::f64::consts::FRAC_PI_4;
use std::path::PathBuf;

use ccd_kinematics::glam::{DAffine3, DMat3, DVec3};
use ccd_kinematics::urdf::{CollisionGeometry, UrdfOptions, UrdfRobot};
use ccd_kinematics::{Joint, KinematicsError, Pose};

/// `$CCD_SHARED_DIR/data/robots/panda` (else `../shared/data/robots/panda` beside the
/// repository), or the registry robots of `cargo xtask robots`, as `build.rs` chose. The
/// tests are ignored when neither was there at build time; run anyway
/// (`--include-ignored`) without it, they fail here.
fn panda_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CCD_ROBOT_PANDA"));
    // canonical, as the loader resolves mesh paths (confinement)
    let dir = dir.canonicalize().unwrap_or(dir);
    assert!(
        dir.join("urdf/panda.urdf").is_file(),
        "Panda URDF tests: {} not found (set CCD_SHARED_DIR, or run `cargo xtask robots`)",
        dir.join("urdf/panda.urdf").display()
    );
    dir
}

fn load(dir: &PathBuf) -> UrdfRobot {
    let options =
        UrdfOptions::default().with_package("example-robot-data/robots/panda_description", dir);
    let start = std::time::Instant::now();
    let robot = UrdfRobot::from_file(dir.join("urdf/panda.urdf"), &options).unwrap();
    eprintln!(
        "Panda URDF + 9 collision STL meshes loaded in {:?}",
        start.elapsed()
    );
    robot
}

const ARM: [&str; 7] = [
    "panda_joint1",
    "panda_joint2",
    "panda_joint3",
    "panda_joint4",
    "panda_joint5",
    "panda_joint6",
    "panda_joint7",
];

// ---- the hand computation: the Panda's joint origins, copied from its URDF, multiplied
// ---- with rotation matrices written out here (no quaternions, no loader code).

fn rot_x(a: f64) -> DMat3 {
    let (s, c) = a.sin_cos();
    DMat3::from_cols(
        DVec3::new(1.0, 0.0, 0.0),
        DVec3::new(0.0, c, s),
        DVec3::new(0.0, -s, c),
    )
}
fn rot_z(a: f64) -> DMat3 {
    let (s, c) = a.sin_cos();
    DMat3::from_cols(
        DVec3::new(c, s, 0.0),
        DVec3::new(-s, c, 0.0),
        DVec3::new(0.0, 0.0, 1.0),
    )
}
fn frame(xyz: [f64; 3], rot: DMat3) -> DAffine3 {
    DAffine3::from_mat3_translation(rot, DVec3::from_array(xyz))
}

/// The URDF writes 1.5707963267948966, which is this constant.
const HALF_PI: f64 = std::f64::consts::FRAC_PI_2;

/// `(xyz, roll)` of the origins of panda_joint1..7 (their pitch and yaw are 0; every axis
/// is z).
const ARM_ORIGINS: [([f64; 3], f64); 7] = [
    ([0.0, 0.0, 0.333], 0.0),
    ([0.0, 0.0, 0.0], -HALF_PI),
    ([0.0, -0.316, 0.0], HALF_PI),
    ([0.0825, 0.0, 0.0], HALF_PI),
    ([-0.0825, 0.384, 0.0], -HALF_PI),
    ([0.0, 0.0, 0.0], HALF_PI),
    ([0.088, 0.0, 0.0], HALF_PI),
];

/// World frames of panda_link1..7, panda_link8, panda_hand, panda_hand_tcp,
/// panda_leftfinger and panda_rightfinger for arm angles `q` and finger openings.
fn by_hand(q: [f64; 7], fingers: [f64; 2]) -> Vec<(&'static str, DAffine3)> {
    let mut out = Vec::new();
    let mut t = DAffine3::IDENTITY; // panda_link0 is the root, at the world origin
    for (i, (xyz, roll)) in ARM_ORIGINS.iter().enumerate() {
        t = t * frame(*xyz, rot_x(*roll)) * frame([0.0; 3], rot_z(q[i]));
        out.push((
            [
                "panda_link1",
                "panda_link2",
                "panda_link3",
                "panda_link4",
                "panda_link5",
                "panda_link6",
                "panda_link7",
            ][i],
            t,
        ));
    }
    let link8 = t * frame([0.0, 0.0, 0.107], DMat3::IDENTITY);
    let hand = link8 * frame([0.0; 3], rot_z(-FRAC_PI_4));
    let tcp = hand * frame([0.0, 0.0, 0.1034], DMat3::IDENTITY);
    // prismatic fingers: origin (0, 0, 0.0584), axes +y and -y
    let left = hand * frame([0.0, fingers[0], 0.0584], DMat3::IDENTITY);
    let right = hand * frame([0.0, -fingers[1], 0.0584], DMat3::IDENTITY);
    out.extend([
        ("panda_link8", link8),
        ("panda_hand", hand),
        ("panda_hand_tcp", tcp),
        ("panda_leftfinger", left),
        ("panda_rightfinger", right),
    ]);
    out
}

fn check_against_hand(robot: &UrdfRobot, world: &[DAffine3], q: [f64; 7], fingers: [f64; 2]) {
    for (name, expected) in by_hand(q, fingers) {
        let id = robot.model.link_id(name).unwrap();
        let got = world[id.index()];
        assert!(
            got.abs_diff_eq(expected, 1e-12),
            "{name} at q = {q:?}: loader {got:?}, by hand {expected:?}"
        );
    }
}

fn joint_vector(robot: &UrdfRobot, q: [f64; 7], fingers: [f64; 2]) -> Vec<f64> {
    let mut v = vec![0.0; robot.model.dof()];
    for (name, x) in ARM.iter().zip(q) {
        v[robot.joint_index(name).unwrap()] = x;
    }
    v[robot.joint_index("panda_finger_joint1").unwrap()] = fingers[0];
    v[robot.joint_index("panda_finger_joint2").unwrap()] = fingers[1];
    v
}

#[test]
#[cfg_attr(
    ccd_missing_data = "panda",
    ignore = "needs ../shared/data/robots/panda or `cargo xtask robots` (absent at build time)"
)]
fn panda_links_joints_and_collision_meshes() {
    let dir = panda_dir();
    let robot = load(&dir);
    let m = &robot.model;
    assert_eq!(robot.name, "panda");
    // link0..link8, hand, hand_tcp, two fingers
    assert_eq!(m.len(), 13);
    assert_eq!(robot.joint_names.iter().flatten().count(), 12);
    // 7 revolute arm joints and 2 prismatic fingers (the mimic is its own value)
    assert_eq!(m.dof(), 9);
    assert_eq!(m.links()[m.root().index()].name, "panda_link0");
    let revolute = m
        .links()
        .iter()
        .filter(|l| matches!(l.joint, Joint::Revolute { .. }))
        .count();
    let prismatic = m
        .links()
        .iter()
        .filter(|l| matches!(l.joint, Joint::Prismatic { .. }))
        .count();
    assert_eq!((revolute, prismatic), (7, 2));
    match m.links()[robot.joint_link("panda_joint4").unwrap().index()].joint {
        Joint::Revolute {
            axis,
            limits: Some(l),
        } => {
            assert_eq!(axis, DVec3::Z);
            assert_eq!((l.lower, l.upper), (-3.0718, -0.0698));
        }
        ref other => panic!("{other:?}"),
    }
    match m.links()[robot.joint_link("panda_finger_joint2").unwrap().index()].joint {
        Joint::Prismatic { axis, .. } => assert_eq!(axis, -DVec3::Y),
        ref other => panic!("{other:?}"),
    }

    // collision meshes: one STL per arm link and the hand; four boxes per finger
    let mut meshes = 0;
    for (link, shapes) in m.links().iter().zip(&robot.collisions) {
        for c in shapes {
            if let CollisionGeometry::Mesh { path, .. } = &c.geometry {
                meshes += 1;
                assert!(path.starts_with(&dir), "{}", path.display());
                let t = c.mesh.triangle_count();
                assert!((100..=2000).contains(&t), "{}: {t} triangles", link.name);
                let stem = path.file_stem().unwrap().to_str().unwrap();
                assert!(link.name.ends_with(stem), "{} uses {stem}", link.name);
            }
        }
    }
    assert_eq!(meshes, 9);
    let left = &robot.collisions[m.link_id("panda_leftfinger").unwrap().index()];
    assert_eq!(left.len(), 4);
    assert!(
        left.iter()
            .all(|c| matches!(c.geometry, CollisionGeometry::Box { .. }))
    );
    assert!(robot.link_mesh(m.link_id("panda_link8").unwrap()).is_none());
    // the link-7 mesh lies within a plausible 20 cm of its frame
    let l7 = robot.link_mesh(m.link_id("panda_link7").unwrap()).unwrap();
    assert!(l7.vertices().iter().all(|v| v.length() < 0.2));
}

#[test]
#[cfg_attr(
    ccd_missing_data = "panda",
    ignore = "needs ../shared/data/robots/panda or `cargo xtask robots` (absent at build time)"
)]
fn panda_poses_match_the_joint_chain_by_hand() {
    let dir = panda_dir();
    let robot = load(&dir);
    let m = &robot.model;

    // 1. the zero configuration: q4 = 0 lies outside joint 4's limits [-3.0718, -0.0698],
    //    so the model refuses it as joint values; build the pose from the joint transforms.
    let zero = [0.0; 7];
    assert!(matches!(
        m.pose_from_joints(&joint_vector(&robot, zero, [0.0, 0.0])),
        Err(KinematicsError::InvalidJointValue { ref link, .. }) if link == "panda_link4"
    ));
    let relative = m
        .links()
        .iter()
        .map(|l| l.offset * l.joint.transform(&[0.0; 6][..l.joint.dof()]).unwrap())
        .collect();
    let world = Pose::new(m, relative).unwrap().world_transforms(m).unwrap();
    check_against_hand(&robot, &world, zero, [0.0, 0.0]);
    // the well-known zero-configuration flange: (0.088, 0, 0.926), pointing down
    let flange = world[m.link_id("panda_link8").unwrap().index()];
    assert!(
        flange
            .translation
            .abs_diff_eq(DVec3::new(0.088, 0.0, 0.926), 1e-12)
    );
    assert!(flange.matrix3.z_axis.abs_diff_eq(-DVec3::Z, 1e-12));

    // 2. the SRDF "default" state (its values as written there), and 3. an arbitrary
    //    configuration within the limits
    #[allow(clippy::approx_constant)]
    let configs = [
        (
            [0.0, -0.785398, 0.0, -2.35619, 0.0, 1.5707, 0.785398],
            [0.001, 0.001],
        ),
        ([0.3, -0.5, 0.8, -1.9, 0.4, 2.1, -0.7], [0.02, 0.035]),
    ];
    for (q, fingers) in configs {
        let pose = m
            .pose_from_joints(&joint_vector(&robot, q, fingers))
            .unwrap();
        check_against_hand(&robot, &pose.world_transforms(m).unwrap(), q, fingers);
    }
}

#[test]
#[cfg_attr(
    ccd_missing_data = "panda",
    ignore = "needs ../shared/data/robots/panda or `cargo xtask robots` (absent at build time)"
)]
fn panda_srdf_disable_collisions() {
    let dir = panda_dir();
    let robot = load(&dir);
    let m = &robot.model;
    let pairs = robot
        .srdf_disabled_pairs(dir.join("srdf/panda.srdf"))
        .unwrap();
    // 35 <disable_collisions> entries, all distinct pairs
    assert_eq!(pairs.len(), 35);
    assert!(pairs.iter().all(|(a, b)| a < b));
    let id = |n: &str| m.link_id(n).unwrap();
    let pair = |a: &str, b: &str| (id(a).min(id(b)), id(a).max(id(b)));
    // every adjacent pair of arm links is filtered
    for k in 0..7 {
        let (a, b) = (format!("panda_link{k}"), format!("panda_link{}", k + 1));
        assert!(pairs.contains(&pair(&a, &b)), "{a}-{b}");
    }
    assert!(pairs.contains(&pair("panda_hand", "panda_leftfinger")));
    assert!(!pairs.contains(&pair("panda_link0", "panda_hand")));
}

/// CATCH's joint-space motion on the real robot: joint 1 going from −1.6 to +1.6 rad (legal:
/// its limits are ±2.8973) turns by 3.2 rad, and the hand half-way is where forward
/// kinematics of the joint-space midpoint puts it — not where the short way (2π − 3.2 the
/// other way round) would.
#[test]
#[cfg_attr(
    ccd_missing_data = "panda",
    ignore = "needs ../shared/data/robots/panda or `cargo xtask robots` (absent at build time)"
)]
fn panda_joint_space_motion_turns_joint_one_the_long_way() {
    use ccd_kinematics::ArticulatedMotion;
    use ccd_taylor::{Interval, TaylorModel};

    let dir = panda_dir();
    let robot = load(&dir);
    let m = &robot.model;
    let rest = [-0.3, 0.4, -2.0, 0.2, 1.8, 0.6];
    let arm = |j1: f64| [j1, rest[0], rest[1], rest[2], rest[3], rest[4], rest[5]];
    let q0 = joint_vector(&robot, arm(-1.6), [0.01, 0.01]);
    let q1 = joint_vector(&robot, arm(1.6), [0.03, 0.02]);
    let motion = ArticulatedMotion::from_joints(m, &q0, &q1).unwrap();
    let hand = m.link_id("panda_hand").unwrap();
    let link1 = robot.joint_link("panda_joint1").unwrap();
    assert!((motion.relative(link1).unwrap().angle() - 3.2).abs() < 1e-12);
    for k in 0..=20 {
        let t = k as f64 / 20.0;
        let q: Vec<f64> = q0.iter().zip(&q1).map(|(a, b)| a + (b - a) * t).collect();
        let fk = m.pose_from_joints(&q).unwrap().world_transforms(m).unwrap();
        let w = motion.world_all_at(t);
        for (i, (a, b)) in w.iter().zip(&fk).enumerate() {
            assert!(a.abs_diff_eq(*b, 1e-9), "link {i} at t = {t}");
        }
        assert!(
            motion
                .world_at(hand, t)
                .unwrap()
                .abs_diff_eq(fk[hand.index()], 1e-9)
        );
    }
    // the short way misses the joint-space midpoint by a wide margin
    let short = ArticulatedMotion::between(
        m,
        &m.pose_from_joints(&q0).unwrap(),
        &m.pose_from_joints(&q1).unwrap(),
    )
    .unwrap();
    let mid = m
        .pose_from_joints(&joint_vector(&robot, arm(0.0), [0.02, 0.015]))
        .unwrap()
        .world_transforms(m)
        .unwrap();
    let off =
        (short.world_at(hand, 0.5).unwrap().translation - mid[hand.index()].translation).length();
    eprintln!("short-way hand at t = 0.5: {off:.3} m from the joint-space path");
    assert!(off > 0.3, "short-way hand only {off} m from the joint path");
    // the hand's swept box over the step contains its sampled positions
    let boxes = motion.enclosures::<TaylorModel>(Interval::UNIT).unwrap();
    let swept = boxes[hand.index()].apply(DVec3::ZERO).aabb();
    for k in 0..=200 {
        let p = motion.world_at(hand, k as f64 / 200.0).unwrap().translation;
        assert!(swept.contains_point(p));
    }
}
