//! Joint-space motions (`ArticulatedMotion::from_joints`) and rigid motions of any angle
//! (`RigidMotion::from_axis_angle`, `RigidMotion::from_velocities`): poses follow the joint
//! coordinates (forward kinematics of `q0 + (q1 − q0) t`), also past π and past whole turns;
//! Taylor and interval enclosures contain sampled positions and the motion bounds exceed
//! the sampled projected motion at large angles.

use std::f64::consts::{PI, TAU};

use ccd_kinematics::glam::{DAffine3, DQuat, DVec3};
use ccd_kinematics::{
    ArticulatedModel, ArticulatedMotion, Joint, KinematicsError, Limits, LinkId, LinkSpec,
    RigidMotion,
};
use ccd_taylor::{Interval, TaylorModel};
use proptest::prelude::*;

fn unit() -> impl Strategy<Value = DVec3> {
    (-1.0..1.0f64, 0.0..TAU).prop_map(|(z, p)| {
        let r = (1.0 - z * z).sqrt();
        DVec3::new(r * p.cos(), r * p.sin(), z)
    })
}

fn pose() -> impl Strategy<Value = DAffine3> {
    (unit(), -3.1..3.1f64, prop::array::uniform3(-2.0..2.0f64)).prop_map(|(a, w, c)| {
        DAffine3::from_rotation_translation(DQuat::from_axis_angle(a, w), DVec3::from_array(c))
    })
}

/// A random chain or tree with joint values in `[-range, range]` (revolute joints turn by
/// up to `2 range`). `kinds` picks from fixed, revolute, prismatic, spherical, floating.
#[derive(Debug, Clone)]
struct RandomModel {
    specs: Vec<LinkSpec>,
    q0: Vec<f64>,
    q1: Vec<f64>,
}

fn random_model(chain: bool, kinds: usize, range: f64) -> impl Strategy<Value = RandomModel> {
    let link = (
        unit(),
        -1.0..1.0f64,
        prop::array::uniform3(-0.8..0.8f64),
        0..kinds,
        unit(),
        prop::collection::vec(-range..range, 12),
        0.0..1.0f64,
    );
    prop::collection::vec(link, 1..=10).prop_map(move |links| {
        let (mut specs, mut q0, mut q1) = (Vec::new(), Vec::new(), Vec::new());
        for (k, (ax, ang, off, kind, jax, vals, pick)) in links.into_iter().enumerate() {
            let joint = match kind {
                0 => Joint::Fixed,
                1 => Joint::Revolute {
                    axis: jax,
                    limits: None,
                },
                2 => Joint::Prismatic {
                    axis: jax,
                    limits: None,
                },
                3 => Joint::Spherical,
                _ => Joint::Floating,
            };
            let parent = match k {
                0 => None,
                _ if chain => Some(format!("l{}", k - 1)),
                _ => Some(format!("l{}", ((k as f64) * pick) as usize)),
            };
            let n = joint.dof();
            // rotation vectors of spherical and floating joints stay below π
            let clamp = |v: f64| if kind >= 3 { v.clamp(-1.0, 1.0) } else { v };
            q0.extend(vals[..n].iter().map(|&v| clamp(v)));
            q1.extend(vals[6..6 + n].iter().map(|&v| clamp(v)));
            specs.push(LinkSpec {
                name: format!("l{k}"),
                parent,
                joint,
                offset: DAffine3::from_rotation_translation(
                    DQuat::from_axis_angle(ax, ang),
                    DVec3::from_array(off),
                ),
            });
        }
        RandomModel { specs, q0, q1 }
    })
}

fn lerp(q0: &[f64], q1: &[f64], t: f64) -> Vec<f64> {
    q0.iter().zip(q1).map(|(a, b)| a + (b - a) * t).collect()
}

/// Total variation of `p(τ)·n` over `[t, 1]` on a grid: a lower bound of `∫|ṗ·n|` for any
/// motion, however fast it turns.
fn sampled_projected_motion(m: &ArticulatedMotion, id: LinkId, x: DVec3, n: DVec3, t: f64) -> f64 {
    let steps = 4000;
    let mut prev = m.world_at(id, t).unwrap().transform_point3(x).dot(n);
    let mut total = 0.0;
    for k in 1..=steps {
        let tau = t + (1.0 - t) * k as f64 / steps as f64;
        let cur = m.world_at(id, tau).unwrap().transform_point3(x).dot(n);
        total += (cur - prev).abs();
        prev = cur;
    }
    total
}

fn chain_model(joints: &[Joint]) -> ArticulatedModel {
    let specs = joints
        .iter()
        .enumerate()
        .map(|(k, &joint)| LinkSpec {
            name: format!("l{k}"),
            parent: (k > 0).then(|| format!("l{}", k - 1)),
            joint,
            offset: DAffine3::from_translation(if k > 0 { DVec3::X } else { DVec3::ZERO }),
        })
        .collect();
    ArticulatedModel::new(specs).unwrap()
}

#[test]
fn a_joint_turning_1_9_pi_follows_its_coordinate() {
    let hinge = Joint::Revolute {
        axis: DVec3::Z,
        limits: None,
    };
    let model = chain_model(&[Joint::Fixed, hinge, hinge]);
    let (q0, q1) = ([0.2, -0.3], [0.2 + 1.9 * PI, -0.3 - 1.9 * PI]);
    let motion = ArticulatedMotion::from_joints(&model, &q0, &q1).unwrap();
    assert!((motion.relative(LinkId(1)).unwrap().angle() - 1.9 * PI).abs() < 1e-12);
    assert!((motion.relative(LinkId(2)).unwrap().angle() - 1.9 * PI).abs() < 1e-12);
    let tip = LinkId(2);
    for k in 0..=100 {
        let t = k as f64 / 100.0;
        let fk = model
            .pose_from_joints(&lerp(&q0, &q1, t))
            .unwrap()
            .world_transforms(&model)
            .unwrap();
        let w = motion.world_all_at(t);
        for i in 0..3 {
            assert!(w[i].abs_diff_eq(fk[i], 1e-12), "link {i} at t = {t}");
        }
    }
    // the short way turns by 0.1π the other way: half-way it is far from the joint path
    let short = ArticulatedMotion::between(
        &model,
        &model.pose_from_joints(&q0).unwrap(),
        &model.pose_from_joints(&q1).unwrap(),
    )
    .unwrap();
    assert!((short.relative(LinkId(1)).unwrap().angle() - 0.1 * PI).abs() < 1e-9);
    let mid = model
        .pose_from_joints(&lerp(&q0, &q1, 0.5))
        .unwrap()
        .world_transforms(&model)
        .unwrap();
    let gap = (short.world_at(tip, 0.5).unwrap().translation - mid[2].translation).length();
    assert!(gap > 1.0, "short-way tip {gap} from the joint path");

    // enclosures over the whole step and over pieces contain the sampled tip
    for dom in [
        Interval::UNIT,
        Interval::new(0.0, 0.25),
        Interval::new(0.4, 0.6),
    ] {
        let bt = motion.enclosures::<TaylorModel>(dom).unwrap()[2]
            .apply(DVec3::X)
            .aabb();
        let bi = motion.enclosures::<Interval>(dom).unwrap()[2]
            .apply(DVec3::X)
            .aabb();
        for k in 0..=200 {
            let t = dom.lo() + (dom.hi() - dom.lo()) * k as f64 / 200.0;
            let p = motion.world_at(tip, t).unwrap().transform_point3(DVec3::X);
            assert!(bt.contains_point(p) && bi.contains_point(p), "t = {t}");
        }
    }
}

#[test]
fn prismatic_and_fixed_joints_follow_their_coordinates() {
    let slide = Joint::Prismatic {
        axis: DVec3::new(0.0, 0.6, 0.8),
        limits: Some(Limits {
            lower: -5.0,
            upper: 5.0,
        }),
    };
    let model = chain_model(&[slide, Joint::Fixed, slide]);
    let (q0, q1) = ([-4.0, 3.0], [4.5, -2.0]);
    let motion = ArticulatedMotion::from_joints(&model, &q0, &q1).unwrap();
    assert_eq!(motion.relative(LinkId(1)).unwrap().angle(), 0.0);
    assert_eq!(
        motion.relative(LinkId(1)).unwrap().linear_velocity(),
        DVec3::ZERO,
        "fixed joints stay"
    );
    for k in 0..=10 {
        let t = k as f64 / 10.0;
        let fk = model
            .pose_from_joints(&lerp(&q0, &q1, t))
            .unwrap()
            .world_transforms(&model)
            .unwrap();
        for (i, w) in motion.world_all_at(t).iter().enumerate() {
            assert!(w.abs_diff_eq(fk[i], 1e-12));
        }
    }
}

#[test]
fn bad_joint_vectors_are_typed_errors() {
    let hinge = Joint::Revolute {
        axis: DVec3::Z,
        limits: Some(Limits {
            lower: -2.0,
            upper: 2.0,
        }),
    };
    let spin = Joint::Revolute {
        axis: DVec3::Z,
        limits: None,
    };
    let model = chain_model(&[hinge, spin]);
    let ok = [0.0, 0.0];
    for (q, bad) in [
        (&[0.0][..], "short"),
        (&[0.0, 0.0, 0.0][..], "long"),
        (&[f64::NAN, 0.0][..], "NaN"),
        (&[2.5, 0.0][..], "outside the limits"),
        (&[0.0, f64::INFINITY][..], "infinite"),
    ] {
        let e0 = ArticulatedMotion::from_joints(&model, q, &ok);
        let e1 = ArticulatedMotion::from_joints(&model, &ok, q);
        for e in [e0, e1] {
            assert!(
                matches!(
                    e,
                    Err(KinematicsError::JointCount { .. }
                        | KinematicsError::InvalidJointValue { .. })
                ),
                "{bad}: {e:?}"
            );
        }
    }
    // a continuous joint asked to turn by 1e300 rad is outside the supported domain
    assert!(matches!(
        ArticulatedMotion::from_joints(&model, &[0.0, -1e300], &[0.0, 1e300]),
        Err(KinematicsError::MotionOutOfDomain { what: "angle", .. })
    ));
    assert!(matches!(
        ArticulatedMotion::from_joints(&model, &[0.0, -f64::MAX], &[0.0, f64::MAX]),
        Err(KinematicsError::NonFiniteMotion { what: "angle" })
    ));
}

#[test]
fn rigid_constructors_reject_input_outside_the_domain() {
    let id = DAffine3::IDENTITY;
    let big = DVec3::new(0.0, 2e100, 0.0);
    assert!(matches!(
        RigidMotion::between(DAffine3::from_translation(big), id),
        Err(KinematicsError::MotionOutOfDomain { what: "start", .. })
    ));
    assert!(matches!(
        RigidMotion::between(id, DAffine3::from_translation(big)),
        Err(KinematicsError::MotionOutOfDomain { what: "end", .. })
    ));
    assert!(matches!(
        RigidMotion::from_axis_angle(id, DVec3::Z, 1e300, DVec3::ZERO),
        Err(KinematicsError::MotionOutOfDomain { what: "angle", .. })
    ));
    assert!(matches!(
        RigidMotion::from_axis_angle(id, DVec3::Z, 100.0 * PI, big),
        Err(KinematicsError::MotionOutOfDomain {
            what: "displacement",
            ..
        })
    ));
    assert!(matches!(
        RigidMotion::from_axis_angle(id, DVec3::ZERO, 1.0, DVec3::ZERO),
        Err(KinematicsError::InvalidAxis { .. })
    ));
    assert!(matches!(
        RigidMotion::from_axis_angle(id, DVec3::new(f64::NAN, 0.0, 1.0), 1.0, DVec3::ZERO),
        Err(KinematicsError::NonFiniteMotion { what: "axis" })
    ));
    assert!(matches!(
        RigidMotion::from_axis_angle(id, DVec3::Z, f64::NAN, DVec3::ZERO),
        Err(KinematicsError::NonFiniteMotion { what: "angle" })
    ));
    assert!(matches!(
        RigidMotion::from_velocities(id, DVec3::ZERO, DVec3::new(0.0, 0.0, 2e6), DVec3::ZERO),
        Err(KinematicsError::MotionOutOfDomain { what: "angle", .. })
    ));
    assert!(matches!(
        RigidMotion::from_velocities(id, DVec3::ZERO, DVec3::Z, big),
        Err(KinematicsError::MotionOutOfDomain {
            what: "local centre",
            ..
        })
    ));
    assert!(matches!(
        RigidMotion::from_velocities(id, DVec3::splat(f64::INFINITY), DVec3::Z, DVec3::ZERO),
        Err(KinematicsError::NonFiniteMotion {
            what: "linear velocity"
        })
    ));
    assert!(matches!(
        RigidMotion::from_velocities(id, DVec3::ZERO, DVec3::new(f64::NAN, 0.0, 0.0), DVec3::ZERO),
        Err(KinematicsError::NonFiniteMotion {
            what: "angular velocity"
        })
    ));
    assert!(matches!(
        RigidMotion::from_velocities(
            DAffine3::from_scale(DVec3::splat(2.0)),
            DVec3::ZERO,
            DVec3::Z,
            DVec3::ZERO
        ),
        Err(KinematicsError::NonRigidPose { .. })
    ));
    // the edges of the domain are accepted
    let edge = DVec3::splat(RigidMotion::MAX_COORDINATE);
    assert!(RigidMotion::from_axis_angle(id, DVec3::Z, -RigidMotion::MAX_ANGLE, edge).is_ok());
    assert!(
        RigidMotion::from_velocities(id, edge, DVec3::Z * RigidMotion::MAX_ANGLE, edge).is_ok()
    );
}

#[test]
fn from_velocities_rotates_about_the_local_centre() {
    let start = DAffine3::from_rotation_translation(
        DQuat::from_rotation_x(0.4),
        DVec3::new(1.0, -2.0, 0.5),
    );
    let (v, w, c) = (
        DVec3::new(0.3, 0.1, -0.2),
        DVec3::new(0.0, 7.0, 2.0),
        DVec3::new(0.5, 0.0, -1.0),
    );
    let m = RigidMotion::from_velocities(start, v, w, c).unwrap();
    assert_eq!(m.local_center(), c);
    assert!(m.angular_velocity().abs_diff_eq(w, 1e-12));
    assert!(m.pose_at(0.0).abs_diff_eq(start, 1e-12));
    let x = DVec3::new(0.2, 0.7, -0.4);
    for k in 0..=20 {
        let t = k as f64 / 20.0;
        // the centre moves with v; every point turns about it by |w| t
        let centre = start.transform_point3(c) + v * t;
        assert!(m.point_at(c, t).abs_diff_eq(centre, 1e-12));
        let rot = DQuat::from_scaled_axis(w * t);
        let expected = centre + rot * (start.matrix3 * (x - c));
        assert!(m.point_at(x, t).abs_diff_eq(expected, 1e-12), "t = {t}");
        assert!(
            m.pose_at(t)
                .transform_point3(x)
                .abs_diff_eq(expected, 1e-12)
        );
        let h = 1e-6;
        if (h..1.0 - h).contains(&t) {
            let fd = (m.point_at(x, t + h) - m.point_at(x, t - h)) / (2.0 * h);
            assert!((fd - m.velocity_of(x, t)).length() < 1e-6);
        }
    }
}

proptest! {
    /// With revolute, prismatic and fixed joints turning by up to 24 rad, the motion's
    /// poses are the forward kinematics of the interpolated joint vector.
    #[test]
    fn joint_space_poses_are_forward_kinematics_of_interpolated_joints(rm in random_model(false, 3, 12.0), t in 0.0..=1.0f64) {
        let model = ArticulatedModel::new(rm.specs.clone()).unwrap();
        let motion = ArticulatedMotion::from_joints(&model, &rm.q0, &rm.q1).unwrap();
        let fk = model.pose_from_joints(&lerp(&rm.q0, &rm.q1, t)).unwrap().world_transforms(&model).unwrap();
        for (i, w) in motion.world_all_at(t).iter().enumerate() {
            prop_assert!(w.abs_diff_eq(fk[i], 1e-9), "link {i} at t = {t}");
        }
    }

    #[test]
    fn joint_space_enclosures_contain_sampled_link_points(rm in random_model(false, 5, 8.0), x in prop::array::uniform3(-0.5..0.5f64), lo in 0.0..1.0f64, w in 0.0..1.0f64) {
        let model = ArticulatedModel::new(rm.specs.clone()).unwrap();
        let motion = ArticulatedMotion::from_joints(&model, &rm.q0, &rm.q1).unwrap();
        let x = DVec3::from_array(x);
        let dom = Interval::new(lo, lo + (1.0 - lo) * w);
        let taylor = motion.enclosures::<TaylorModel>(dom).unwrap();
        let interval = motion.enclosures::<Interval>(dom).unwrap();
        for i in 0..model.len() {
            let (bt, bi) = (taylor[i].apply(x).aabb().inflate(1e-9), interval[i].apply(x).aabb().inflate(1e-9));
            for k in 0..=40 {
                let t = dom.lo() + (dom.hi() - dom.lo()) * k as f64 / 40.0;
                let p = motion.world_at(LinkId(i as u32), t).unwrap().transform_point3(x);
                prop_assert!(bt.contains_point(p), "link {i} t={t}: taylor misses {p}");
                prop_assert!(bi.contains_point(p), "link {i} t={t}: interval misses {p}");
            }
        }
    }

    #[test]
    fn joint_space_motion_bound_exceeds_sampled_projected_motion(rm in random_model(true, 5, 8.0), n in unit(), dir in unit(), frac in 0.0..=1.0f64, t in 0.0..0.9f64) {
        let model = ArticulatedModel::new(rm.specs.clone()).unwrap();
        let motion = ArticulatedMotion::from_joints(&model, &rm.q0, &rm.q1).unwrap();
        let tip = LinkId(model.len() as u32 - 1);
        let r = 0.7;
        let mu = motion.motion_bound(tip, n, r, t).unwrap();
        let s = sampled_projected_motion(&motion, tip, dir * r * frac, n, t);
        prop_assert!(s <= mu + 1e-9, "depth {}: sampled {s} > bound {mu}", model.len());
    }

    /// Rigid motions of any angle (up to 60 rad, both signs) about any centre: the
    /// enclosures contain sampled positions and the bound exceeds the sampled motion.
    #[test]
    fn large_angle_rigid_motions_are_enclosed_and_bounded(start in pose(), axis in unit(), angle in -60.0..60.0f64, v in prop::array::uniform3(-2.0..2.0f64), c in prop::array::uniform3(-1.0..1.0f64), centred in any::<bool>(), x in prop::array::uniform3(-1.0..1.0f64), n in unit(), lo in 0.0..1.0f64, w in 0.0..1.0f64) {
        let (v, c, x) = (DVec3::from_array(v), DVec3::from_array(c), DVec3::from_array(x));
        let m = if centred {
            RigidMotion::from_velocities(start, v, axis * angle, c).unwrap()
        } else {
            RigidMotion::from_axis_angle(start, axis, angle, v).unwrap()
        };
        prop_assert!((m.angle() - angle.abs()).abs() < 1e-9);
        prop_assert!(m.angle() >= 0.0);
        let dom = Interval::new(lo, lo + (1.0 - lo) * w);
        let bt = m.enclosure::<TaylorModel>(dom).unwrap().apply(x).aabb().inflate(1e-9);
        let bi = m.enclosure::<Interval>(dom).unwrap().apply(x).aabb().inflate(1e-9);
        for k in 0..=100 {
            let t = dom.lo() + (dom.hi() - dom.lo()) * k as f64 / 100.0;
            let p = m.point_at(x, t);
            prop_assert!(bt.contains_point(p), "taylor box misses t={t}");
            prop_assert!(bi.contains_point(p), "interval box misses t={t}");
            prop_assert!(m.pose_at(t).transform_point3(x).abs_diff_eq(p, 1e-9));
        }
        // total variation along n from lo on a fine grid: a lower bound of ∫|v·n|
        let r = x.length();
        let mu = m.motion_bound(n, r, lo);
        let steps = 4000;
        let mut prev = m.point_at(x, lo).dot(n);
        let mut total = 0.0;
        for k in 1..=steps {
            let cur = m.point_at(x, lo + (1.0 - lo) * k as f64 / steps as f64).dot(n);
            total += (cur - prev).abs();
            prev = cur;
        }
        prop_assert!(total <= mu + 1e-9, "sampled {total} > bound {mu}");
    }
}

/// Issue 14 item 5: a `LinkId`, `NodeId`, pose or joint vector from another model is a
/// typed error everywhere, never a panic.
#[test]
fn foreign_ids_and_poses_are_typed_errors() {
    use ccd_kinematics::{AssemblyBounds, AssemblyTree, NodeId};
    let hinge = Joint::Revolute {
        axis: DVec3::Z,
        limits: None,
    };
    let small = chain_model(&[Joint::Fixed, hinge]);
    let big = chain_model(&[Joint::Fixed, hinge, hinge, hinge]);
    let motion = ArticulatedMotion::from_joints(&small, &[0.0], &[1.0]).unwrap();
    let foreign = LinkId(3);
    let unknown = |e| matches!(e, KinematicsError::UnknownLinkId { id: 3, links: 2 });
    assert!(unknown(motion.relative(foreign).unwrap_err()));
    assert!(unknown(motion.world_at(foreign, 0.5).unwrap_err()));
    assert!(unknown(
        motion
            .motion_bound(foreign, DVec3::X, 1.0, 0.0)
            .unwrap_err()
    ));
    assert!(motion.world_at(LinkId(1), 0.5).is_ok());

    let big_pose = big.pose_from_joints(&[0.0; 3]).unwrap();
    assert!(matches!(
        big_pose.world_transforms(&small),
        Err(KinematicsError::JointCount {
            expected: 2,
            got: 4
        })
    ));
    assert!(matches!(
        hinge.transform(&[]),
        Err(KinematicsError::JointCount {
            expected: 1,
            got: 0
        })
    ));
    assert!(matches!(
        Joint::Floating.transform(&[0.0; 3]),
        Err(KinematicsError::JointCount { .. })
    ));

    let mut tree = AssemblyTree::from_model(&small);
    assert!(unknown(tree.world_transform(foreign).unwrap_err()));
    assert!(unknown(
        tree.world_transforms(&[LinkId(0), foreign]).unwrap_err()
    ));
    assert!(unknown(tree.leaf(foreign).unwrap_err()));
    assert!(unknown(tree.joint_node(foreign).unwrap_err()));
    assert!(unknown(tree.relative(foreign).unwrap_err()));
    assert!(unknown(tree.set_joint(foreign, &[0.0]).unwrap_err()));
    let node = NodeId(tree.node_count() as u32);
    let no_node = |e| matches!(e, KinematicsError::UnknownNodeId { .. });
    assert!(no_node(tree.node(node).unwrap_err()));
    assert!(no_node(tree.parent(node).unwrap_err()));
    assert!(no_node(tree.handles(node).unwrap_err()));
    assert!(no_node(tree.handle_transforms(node).unwrap_err()));
    assert!(no_node(tree.child_to_parent(node).unwrap_err()));
    let mut bounds = AssemblyBounds::<Interval>::new(&tree, &motion, Interval::UNIT).unwrap();
    assert!(unknown(bounds.world_bound(foreign).err().unwrap()));
    let mut out = Vec::new();
    assert!(unknown(
        bounds.world_bounds_into(&[foreign], &mut out).unwrap_err()
    ));
    let still = RigidMotion::stationary(DAffine3::IDENTITY).unwrap();
    assert!(unknown(bounds.set_motion(foreign, still).unwrap_err()));
}
