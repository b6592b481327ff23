//! The planning scene against references: `clearance` and `in_collision` against the
//! brute-force distance of every tested pair (every triangle pair), `check_path` against
//! dense sampling of each segment, several threads against one thread, attached objects
//! and overrides, bad input as typed errors, and (with the data) the Panda's edges through
//! a planning scene identical to a plain scene's.
#![cfg(feature = "urdf")]

use std::sync::Arc;

use ccd_ca_articulated::planning::{ObjectShape, PlanningError, PlanningScene};
use ccd_ca_articulated::{ArticulatedBody, ArticulatedScene, BodyStep, Mode, QueryOptions};
use ccd_ca_rigid::Status;
use ccd_distance::mesh_distance_brute_force;
use ccd_geometry::glam::{DAffine3, DQuat, DVec3};
use ccd_kinematics::urdf::{UrdfOptions, UrdfRobot};
use proptest::prelude::*;

/// A 3-joint arm: a base box, an upper arm turning about y, a forearm turning about y, a
/// hand turning about z (boxes and a cylinder), limits ±2.8.
const ARM: &str = r#"<robot name="arm">
  <link name="base"><collision><geometry><box size="0.3 0.3 0.2"/></geometry></collision></link>
  <link name="upper"><collision><origin xyz="0 0 0.35"/><geometry><box size="0.08 0.08 0.6"/></geometry></collision></link>
  <link name="fore"><collision><origin xyz="0 0 0.25"/><geometry><cylinder radius="0.04" length="0.5"/></geometry></collision></link>
  <link name="hand"><collision><origin xyz="0 0 0.05"/><geometry><box size="0.16 0.04 0.1"/></geometry></collision></link>
  <joint name="shoulder" type="revolute"><origin xyz="0 0 0.1"/><parent link="base"/><child link="upper"/>
    <axis xyz="0 1 0"/><limit lower="-2.8" upper="2.8" effort="1" velocity="1"/></joint>
  <joint name="elbow" type="revolute"><origin xyz="0 0 0.65"/><parent link="upper"/><child link="fore"/>
    <axis xyz="0 1 0"/><limit lower="-2.8" upper="2.8" effort="1" velocity="1"/></joint>
  <joint name="wrist" type="revolute"><origin xyz="0 0 0.5"/><parent link="fore"/><child link="hand"/>
    <axis xyz="0 0 1"/><limit lower="-2.8" upper="2.8" effort="1" velocity="1"/></joint>
</robot>"#;

fn arm() -> ArticulatedBody {
    let robot = UrdfRobot::parse(ARM, ".", &UrdfOptions::default()).unwrap();
    ArticulatedBody::from_urdf_robot(&robot).unwrap()
}

fn at(x: f64, y: f64, z: f64) -> DAffine3 {
    DAffine3::from_translation(DVec3::new(x, y, z))
}

/// The arm among a table, a ball and a post, holding a small box in its hand.
fn scene() -> PlanningScene {
    let mut s = PlanningScene::new();
    s.add_robot("arm", arm()).unwrap();
    s.add_object(
        "table",
        ObjectShape::Box {
            size: DVec3::new(0.6, 0.8, 0.05),
        },
        at(0.7, 0.0, 0.4),
    )
    .unwrap();
    s.add_object(
        "ball",
        ObjectShape::Sphere { radius: 0.12 },
        at(-0.6, 0.1, 0.9),
    )
    .unwrap();
    s.add_object(
        "post",
        ObjectShape::Cylinder {
            radius: 0.05,
            length: 1.2,
        },
        DAffine3::from_rotation_translation(DQuat::from_rotation_x(0.3), DVec3::new(0.1, 0.5, 0.6)),
    )
    .unwrap();
    s.attach_object(
        "part",
        "hand",
        ObjectShape::Box {
            size: DVec3::new(0.05, 0.05, 0.12),
        },
        at(0.0, 0.0, 0.16),
        &[],
    )
    .unwrap();
    s
}

/// The brute-force closest tested pair at `q`: every self pair the body's filter keeps and
/// every link against the environment, every triangle pair.
fn brute_clearance(s: &PlanningScene, q: &[f64]) -> f64 {
    let body = &s.scene().bodies()[0];
    let model = body.model();
    let world = model
        .pose_from_joints(q)
        .unwrap()
        .world_transforms(model)
        .unwrap();
    let env = s
        .scene()
        .prepared_environment()
        .unwrap()
        .mesh()
        .mesh()
        .clone();
    let n = model.len() as u32;
    let mut best = f64::INFINITY;
    for i in 0..n {
        let a = ccd_kinematics::LinkId(i);
        let Some(sa) = body.link_shape(a) else {
            continue;
        };
        let ma = sa.body().mesh_bvh().mesh();
        best = best.min(
            mesh_distance_brute_force(ma, &world[a.index()], &env, &DAffine3::IDENTITY).distance,
        );
        for j in i + 1..n {
            let b = ccd_kinematics::LinkId(j);
            if body.is_self_pair(a, b) {
                let mb = body.link_shape(b).unwrap().body().mesh_bvh().mesh();
                best = best.min(
                    mesh_distance_brute_force(ma, &world[a.index()], mb, &world[b.index()])
                        .distance,
                );
            }
        }
    }
    best
}

fn q_strategy() -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(-2.8..2.8f64, 3)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: (ProptestConfig::default().cases / 4).max(1), ..ProptestConfig::default() })]

    /// `clearance` is the brute-force distance of the closest tested pair; `in_collision`
    /// says whether it is within the tolerance.
    #[test]
    fn clearance_and_in_collision_match_brute_force(q in q_strategy(), eps in prop::sample::select(vec![1e-3, 0.05])) {
        let s = scene();
        let exact = brute_clearance(&s, &q);
        let c = s.clearance(&q).unwrap().expect("pairs to test");
        prop_assert!((c.distance - exact).abs() <= 1e-9 * (1.0 + exact), "{} vs {exact}", c.distance);
        prop_assert!((c.point_a.distance(c.point_b) - c.distance).abs() <= 1e-9);
        let opts = QueryOptions::default().with_tolerance(eps);
        prop_assert_eq!(s.in_collision(&q, &opts).unwrap(), exact <= eps, "exact {}", exact);
    }

    /// `check_path` against dense sampling: no sampled pose before the reported contact (or
    /// on a free path) has a touching pair, and a converged contact's pose is within the
    /// tolerance.
    #[test]
    fn check_path_matches_dense_sampling(w in prop::collection::vec(q_strategy(), 2..4)) {
        let s = scene();
        let opts = QueryOptions::default();
        let found = s.check_path(&w, &opts).unwrap();
        let pose = |seg: usize, t: f64| -> Vec<f64> {
            w[seg].iter().zip(&w[seg + 1]).map(|(a, b)| a + t * (b - a)).collect()
        };
        const SAMPLES: usize = 48;
        for seg in 0..w.len() - 1 {
            for k in 0..=SAMPLES {
                let t = k as f64 / SAMPLES as f64;
                if let Some(f) = &found && (seg, t) >= (f.segment, f.toc) {
                    continue;
                }
                let d = s.clearance(&pose(seg, t)).unwrap().unwrap().distance;
                prop_assert!(d > 0.0, "segment {} t {}: touching before the answer {:?}", seg, t, found);
            }
        }
        if let Some(f) = found
            && f.contact.contact.status == Status::Converged
        {
            let d = s.clearance(&pose(f.segment, f.toc)).unwrap().unwrap().distance;
            prop_assert!(d <= 1.001e-3, "reported contact at distance {d}");
        }
    }
}

#[test]
fn threads_share_one_scene() {
    let s = scene();
    let mut rng = 12345u64;
    let mut next = || {
        rng = rng
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((rng >> 11) as f64 / (1u64 << 53) as f64) * 5.6 - 2.8
    };
    let edges: Vec<(Vec<f64>, Vec<f64>)> = (0..24)
        .map(|_| {
            (
                (0..3).map(|_| next()).collect(),
                (0..3).map(|_| next()).collect(),
            )
        })
        .collect();
    let opts = QueryOptions::default();
    let one: Vec<_> = edges
        .iter()
        .map(|(a, b)| s.check_edge(a, b, &opts).unwrap())
        .collect();
    assert!(one.iter().any(Option::is_some) && one.iter().any(Option::is_none));
    let many: Vec<Vec<_>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..4)
            .map(|_| {
                scope.spawn(|| {
                    edges
                        .iter()
                        .map(|(a, b)| s.check_edge(a, b, &opts).unwrap())
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for answers in many {
        assert_eq!(answers, one);
    }
    let batch: Vec<_> = s
        .check_edges(&edges, &opts)
        .into_iter()
        .map(Result::unwrap)
        .collect();
    assert_eq!(batch, one);
}

/// A planar arm of three rods turning about z (the crate docs' folding arm).
fn folding_arm() -> ArticulatedBody {
    use ccd_kinematics::{ArticulatedModel, Joint, LinkSpec};
    let hinge = Joint::Revolute {
        axis: DVec3::Z,
        limits: None,
    };
    let link = |name: &str, parent: Option<&str>| LinkSpec {
        name: name.into(),
        parent: parent.map(Into::into),
        joint: hinge,
        offset: at(if parent.is_some() { 1.0 } else { 0.0 }, 0.0, 0.0),
    };
    let model = ArticulatedModel::new(vec![
        link("l0", None),
        link("l1", Some("l0")),
        link("l2", Some("l1")),
    ])
    .unwrap();
    let rod =
        ccd_geometry::TriMesh::cuboid(DVec3::new(0.1, -0.05, -0.05), DVec3::new(0.9, 0.05, 0.05))
            .unwrap();
    ArticulatedBody::from_meshes(model, vec![Some(rod.clone()), Some(rod.clone()), Some(rod)])
        .unwrap()
}

#[test]
fn attached_objects_and_overrides_change_the_tested_pairs() {
    let mut s = PlanningScene::new();
    s.add_robot("arm", folding_arm()).unwrap();
    let opts = QueryOptions::default();
    let (q0, q1) = ([0.0, 0.0, 0.0], [0.0, 2.6, 2.6]);
    let hit = s
        .check_edge(&q0, &q1, &opts)
        .unwrap()
        .expect("the arm folds into itself");
    assert_eq!((hit.a.as_str(), hit.b.as_str()), ("l0", "l2"));
    s.set_allowed("l2", "l0", true).unwrap();
    assert!(s.check_edge(&q0, &q1, &opts).unwrap().is_none());
    // a copy of l2's rod held by l2 (l1, next to it, may touch it): hits l0 under its own name
    s.attach_object(
        "rod",
        "l2",
        ObjectShape::Box {
            size: DVec3::new(0.8, 0.1, 0.1),
        },
        at(0.5, 0.0, 0.0),
        &["l1"],
    )
    .unwrap();
    let hit = s
        .check_edge(&q0, &q1, &opts)
        .unwrap()
        .expect("the rod folds into l0");
    assert_eq!((hit.a.as_str(), hit.b.as_str()), ("l0", "rod"));
    s.set_allowed("rod", "l0", true).unwrap();
    assert!(s.check_edge(&q0, &q1, &opts).unwrap().is_none());
    s.set_allowed("rod", "l0", false).unwrap();
    assert!(s.check_edge(&q0, &q1, &opts).unwrap().is_some());
    s.detach_object("rod").unwrap();
    assert!(s.check_edge(&q0, &q1, &opts).unwrap().is_none());
    // every self pair is filtered: nothing to measure; forbidding an adjacent pair tests it
    assert!(s.clearance(&q0).unwrap().is_none());
    s.set_allowed("l0", "l1", false).unwrap();
    let c = s.clearance(&q0).unwrap().unwrap();
    assert_eq!((c.a.as_str(), c.b.as_str()), ("l0", "l1"));
    assert!((c.distance - 0.2).abs() < 1e-12, "{}", c.distance);
    // an environment object is named in contacts and clearances
    s.add_object(
        "wall",
        ObjectShape::Box {
            size: DVec3::new(0.5, 0.05, 1.0),
        },
        at(1.5, 0.2, 0.0),
    )
    .unwrap();
    let c = s.clearance(&q0).unwrap().unwrap();
    assert_eq!((c.a.as_str(), c.b.as_str()), ("l1", "wall"));
    assert!((c.distance - 0.125).abs() < 1e-12);
    let hit = s
        .check_edge(&q0, &[0.5, 0.0, 0.0], &opts)
        .unwrap()
        .expect("the arm swings into the wall");
    assert_eq!(hit.b, "wall");
}

#[test]
fn bad_input_is_a_typed_error() {
    let mut s = scene();
    let opts = QueryOptions::default();
    let ok = [0.0, 0.0, 0.0];
    assert!(matches!(
        s.set_allowed("upper", "nope", true),
        Err(PlanningError::UnknownName { what: "link_b", .. })
    ));
    assert!(matches!(
        s.attach_object(
            "x",
            "table",
            ObjectShape::Sphere { radius: 0.1 },
            DAffine3::IDENTITY,
            &[]
        ),
        Err(PlanningError::UnknownName { what: "link", .. })
    ));
    assert!(matches!(
        s.attach_object(
            "y",
            "hand",
            ObjectShape::Sphere { radius: 0.1 },
            DAffine3::IDENTITY,
            &["ghost"]
        ),
        Err(PlanningError::UnknownName {
            what: "touch_links",
            ..
        })
    ));
    assert!(matches!(
        s.check_path(&[ok.to_vec()], &opts),
        Err(PlanningError::TooFewWaypoints(1))
    ));
    let empty: [Vec<f64>; 0] = [];
    assert!(matches!(
        s.check_path(&empty, &opts),
        Err(PlanningError::TooFewWaypoints(0))
    ));
    match s.check_path(&[ok.to_vec(), vec![0.0, 0.0]], &opts) {
        Err(PlanningError::JointCount {
            which,
            expected: 3,
            got: 2,
        }) => assert_eq!(which, "waypoints[1]"),
        other => panic!("{other:?}"),
    }
    match s.check_edge(&ok, &[0.0, f64::NAN, 0.0], &opts) {
        Err(PlanningError::InvalidJointValue {
            which,
            index: 1,
            joint,
            ..
        }) => {
            assert_eq!((which.as_str(), joint.as_str()), ("q1", "fore")); // (a body without URDF joint names: its links name them)
        }
        other => panic!("{other:?}"),
    }
    // outside the limits: an error, not clamped
    assert!(matches!(
        s.check_edge(&[3.0, 0.0, 0.0], &ok, &opts),
        Err(PlanningError::InvalidJointValue { index: 0, .. })
    ));
    assert!(matches!(
        s.in_collision(&[0.0; 4], &opts),
        Err(PlanningError::JointCount { .. })
    ));
    assert!(matches!(
        s.clearance(&[f64::INFINITY, 0.0, 0.0]),
        Err(PlanningError::InvalidJointValue { .. })
    ));
    assert!(matches!(
        s.in_collision(&ok, &QueryOptions::default().with_tolerance(f64::NAN)),
        Err(PlanningError::Articulated(_))
    ));
    assert!(matches!(
        s.add_object(
            "ball",
            ObjectShape::Sphere { radius: 0.1 },
            DAffine3::IDENTITY
        ),
        Err(PlanningError::DuplicateName(_))
    ));
    assert!(matches!(
        s.add_object(
            "hand",
            ObjectShape::Sphere { radius: 0.1 },
            DAffine3::IDENTITY
        ),
        Err(PlanningError::DuplicateName(_))
    ));
    assert!(matches!(
        s.add_object(
            "skew",
            ObjectShape::Sphere { radius: 0.1 },
            DAffine3::from_scale(DVec3::splat(2.0))
        ),
        Err(PlanningError::InvalidPose(_))
    ));
    assert!(matches!(
        s.add_object(
            "flat",
            ObjectShape::Box {
                size: DVec3::new(1.0, 0.0, 1.0)
            },
            DAffine3::IDENTITY
        ),
        Err(PlanningError::InvalidShape { .. })
    ));
    assert!(matches!(
        s.remove_object("nothing"),
        Err(PlanningError::UnknownName { .. })
    ));
    assert!(matches!(
        s.detach_object("table"),
        Err(PlanningError::UnknownName { .. })
    ));
    // two robots: cross-robot overrides are refused, shared link names need robot/link
    s.add_robot("twin", arm()).unwrap();
    assert_eq!(s.dof(), 6);
    assert!(matches!(
        s.set_allowed("hand", "upper", true),
        Err(PlanningError::AmbiguousName { .. })
    ));
    assert!(matches!(
        s.set_allowed("arm/hand", "twin/upper", true),
        Err(PlanningError::CrossRobotPair { .. })
    ));
    s.set_allowed("twin/hand", "twin/upper", true).unwrap();
    assert!(matches!(
        s.add_robot("twin", arm()),
        Err(PlanningError::DuplicateName(_))
    ));
    assert!(matches!(
        PlanningScene::new().check_edge(&[], &[], &opts),
        Err(PlanningError::NoRobot)
    ));
}

/// `$CCD_SHARED_DIR/data/robots/panda`, else `../shared/data/robots/panda`.
fn panda_dir() -> std::path::PathBuf {
    let data = match std::env::var_os("CCD_SHARED_DIR") {
        Some(shared) => std::path::PathBuf::from(shared).join("data"),
        None => std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"),
    };
    data.join("robots/panda")
}

#[test]
#[cfg_attr(
    ccd_missing_data = "panda",
    ignore = "needs ../shared/data/robots/panda (absent at build time)"
)]
fn panda_edges_match_a_plain_scene() {
    let dir = panda_dir();
    let urdf = dir.join("urdf/panda.urdf");
    let srdf = dir.join("srdf/panda.srdf");
    let opts =
        UrdfOptions::default().with_package("example-robot-data/robots/panda_description", &dir);
    let mut s = PlanningScene::new();
    s.load_robot(&urdf, Some(&srdf), &opts, None).unwrap();
    for (k, (x, y)) in [(0.5, 0.0), (0.0, 0.55), (-0.45, -0.3), (0.35, -0.45)]
        .into_iter()
        .enumerate()
    {
        let name = format!("block{k}");
        let pose = at(x, y, 0.3 + 0.1 * k as f64);
        s.add_object(
            &name,
            ObjectShape::Box {
                size: DVec3::new(0.15, 0.2, 0.3),
            },
            pose,
        )
        .unwrap();
    }
    // the same robot and environment in a plain scene (set_environment: prepared inside)
    let (body, _) = ArticulatedBody::from_urdf(&urdf, Some(&srdf), &opts).unwrap();
    let mut plain = ArticulatedScene::new();
    plain.add_articulated(body);
    plain.set_environment(Arc::clone(s.scene().prepared_environment().unwrap().mesh()));
    let dof = s.dof();
    let mut rng = 7u64;
    let mut next = |lo: f64, hi: f64| {
        rng = rng
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        lo + (hi - lo) * ((rng >> 11) as f64 / (1u64 << 53) as f64)
    };
    let limits = [
        (-2.8, 2.8),
        (-1.7, 1.7),
        (-2.8, 2.8),
        (-3.0, -0.1),
        (-2.8, 2.8),
        (0.0, 3.7),
        (-2.8, 2.8),
    ];
    let mut hits = 0;
    for _ in 0..40 {
        let mut q0 = vec![0.0; dof];
        let mut q1 = vec![0.0; dof];
        for (k, &(lo, hi)) in limits.iter().enumerate() {
            q0[k] = next(lo, hi);
            q1[k] = next(lo, hi);
        }
        for mode in [Mode::Toc, Mode::Boolean] {
            let o = QueryOptions::default().with_mode(mode);
            let a = s.check_edge(&q0, &q1, &o).unwrap();
            let b = plain
                .query(&[BodyStep::Joints { q0: &q0, q1: &q1 }], &o)
                .unwrap();
            assert_eq!(a.as_ref().map(|c| c.contact), b.first().map(|c| c.contact));
            hits += usize::from(a.is_some());
        }
    }
    assert!(hits > 0);
}
