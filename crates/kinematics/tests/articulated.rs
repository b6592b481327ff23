//! Articulated models and motions: validation errors, forward kinematics, enclosures of
//! sampled link points, and the recursive motion bound (CATCH Eq. 7–10) against sampled
//! projected motion on random chains and trees of depth 1–15.

use ccd_kinematics::glam::{DAffine3, DQuat, DVec3};
use ccd_kinematics::{
    ArticulatedModel, ArticulatedMotion, Joint, KinematicsError, Limits, LinkId, LinkSpec,
};
use ccd_taylor::{Interval, TaylorModel};
use proptest::prelude::*;

fn spec(name: &str, parent: Option<&str>, joint: Joint) -> LinkSpec {
    LinkSpec {
        name: name.into(),
        parent: parent.map(Into::into),
        joint,
        offset: DAffine3::from_translation(DVec3::X),
    }
}

fn invalid(specs: Vec<LinkSpec>) -> String {
    match ArticulatedModel::new(specs) {
        Err(KinematicsError::InvalidModel(m)) => m,
        other => panic!("expected InvalidModel, got {other:?}"),
    }
}

#[test]
fn broken_trees_are_errors() {
    let f = Joint::Fixed;
    assert!(invalid(vec![]).contains("no links"));
    assert!(invalid(vec![spec("a", None, f), spec("a", Some("a"), f)]).contains("two links"));
    assert!(invalid(vec![spec("a", None, f), spec("b", Some("zz"), f)]).contains("does not exist"));
    assert!(invalid(vec![spec("a", None, f), spec("b", None, f)]).contains("2 roots"));
    assert!(invalid(vec![spec("a", Some("b"), f), spec("b", Some("a"), f)]).contains("no root"));
    assert!(
        invalid(vec![
            spec("r", None, f),
            spec("a", Some("b"), f),
            spec("b", Some("a"), f)
        ])
        .contains("cycle")
    );
    let skew = Joint::Revolute {
        axis: DVec3::new(1.0, 1.0, 0.0),
        limits: None,
    };
    assert!(invalid(vec![spec("a", None, skew)]).contains("unit"));
    let bad_lim = Joint::Prismatic {
        axis: DVec3::X,
        limits: Some(Limits {
            lower: 1.0,
            upper: 0.0,
        }),
    };
    assert!(invalid(vec![spec("a", None, bad_lim)]).contains("limits"));
    let mut s = spec("a", None, f);
    s.offset = DAffine3::from_scale(DVec3::splat(2.0));
    assert!(invalid(vec![s]).contains("non-rigid"));
}

#[test]
fn joint_values_are_checked() {
    let lim = Joint::Revolute {
        axis: DVec3::Z,
        limits: Some(Limits {
            lower: -1.0,
            upper: 1.0,
        }),
    };
    let m = ArticulatedModel::new(vec![
        spec("a", None, lim),
        spec("b", Some("a"), Joint::Spherical),
    ])
    .unwrap();
    assert_eq!(m.dof(), 4);
    assert!(matches!(
        m.pose_from_joints(&[0.0; 3]),
        Err(KinematicsError::JointCount {
            expected: 4,
            got: 3
        })
    ));
    assert!(matches!(
        m.pose_from_joints(&[2.0, 0.0, 0.0, 0.0]),
        Err(KinematicsError::InvalidJointValue { .. })
    ));
    assert!(matches!(
        m.pose_from_joints(&[0.0, f64::NAN, 0.0, 0.0]),
        Err(KinematicsError::InvalidJointValue { .. })
    ));
    assert!(m.pose_from_joints(&[1.0, 0.1, 0.2, 0.3]).is_ok());
}

#[test]
fn links_are_stored_parents_first_and_branch() {
    let f = Joint::Fixed;
    let m = ArticulatedModel::new(vec![
        spec("hand", Some("arm"), f),
        spec("leg", Some("pelvis"), f),
        spec("arm", Some("pelvis"), f),
        spec("pelvis", None, f),
    ])
    .unwrap();
    assert_eq!(m.links()[0].name, "pelvis");
    for (i, l) in m.links().iter().enumerate() {
        if let Some(p) = l.parent {
            assert!(p.index() < i);
        }
    }
    let hand = m.link_id("hand").unwrap();
    assert_eq!(m.chain(hand).len(), 3);
    assert_eq!(m.children(m.root()).len(), 2);
    let w = m
        .pose_from_joints(&[])
        .unwrap()
        .world_transforms(&m)
        .unwrap();
    // every offset is a unit step along x, the root's included
    assert!(
        w[hand.index()]
            .translation
            .abs_diff_eq(DVec3::new(3.0, 0.0, 0.0), 1e-12)
    );
}

/// A random tree: link k's parent is drawn among the previous links (a chain when
/// `chain` is set), with random offsets, joint types and joint values at t = 0 and 1.
#[derive(Debug, Clone)]
struct RandomModel {
    specs: Vec<LinkSpec>,
    q0: Vec<f64>,
    q1: Vec<f64>,
}

fn unit() -> impl Strategy<Value = DVec3> {
    (-1.0..1.0f64, 0.0..std::f64::consts::TAU).prop_map(|(z, p)| {
        let r = (1.0 - z * z).sqrt();
        DVec3::new(r * p.cos(), r * p.sin(), z)
    })
}

fn random_model(chain: bool) -> impl Strategy<Value = RandomModel> {
    let link = (
        unit(),
        -1.0..1.0f64,
        prop::array::uniform3(-0.8..0.8f64),
        0usize..5,
        unit(),
        prop::collection::vec(-1.0..1.0f64, 12),
        0.0..1.0f64,
    );
    prop::collection::vec(link, 1..=15).prop_map(move |links| {
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
            let parent = if k == 0 {
                None
            } else if chain {
                Some(format!("l{}", k - 1))
            } else {
                Some(format!("l{}", ((k as f64) * pick) as usize))
            };
            let n = joint.dof();
            q0.extend_from_slice(&vals[..n]);
            q1.extend_from_slice(&vals[6..6 + n]);
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

/// Total variation of `p(τ)·n` over `[t, 1]` on a fine grid: a lower bound of `∫|ṗ·n|`.
fn sampled_projected_motion(m: &ArticulatedMotion, id: LinkId, x: DVec3, n: DVec3, t: f64) -> f64 {
    let steps = 2000;
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

proptest! {
    #[test]
    fn world_transforms_agree_with_motion_endpoints(rm in random_model(false)) {
        let model = ArticulatedModel::new(rm.specs.clone()).unwrap();
        let (p0, p1) = (model.pose_from_joints(&rm.q0).unwrap(), model.pose_from_joints(&rm.q1).unwrap());
        let motion = ArticulatedMotion::between(&model, &p0, &p1).unwrap();
        let (w0, w1) = (p0.world_transforms(&model).unwrap(), p1.world_transforms(&model).unwrap());
        let (m0, m1) = (motion.world_all_at(0.0), motion.world_all_at(1.0));
        for i in 0..model.len() {
            prop_assert!(w0[i].abs_diff_eq(m0[i], 1e-9) && w1[i].abs_diff_eq(m1[i], 1e-9));
            prop_assert!(motion.world_at(LinkId(i as u32), 0.5).unwrap().abs_diff_eq(motion.world_all_at(0.5)[i], 1e-9));
        }
    }

    #[test]
    fn enclosures_contain_sampled_link_points(rm in random_model(false), x in prop::array::uniform3(-0.5..0.5f64), lo in 0.0..1.0f64) {
        let model = ArticulatedModel::new(rm.specs.clone()).unwrap();
        let (p0, p1) = (model.pose_from_joints(&rm.q0).unwrap(), model.pose_from_joints(&rm.q1).unwrap());
        let motion = ArticulatedMotion::between(&model, &p0, &p1).unwrap();
        let x = DVec3::from_array(x);
        let dom = Interval::new(lo, 1.0);
        let taylor = motion.enclosures::<TaylorModel>(dom).unwrap();
        let interval = motion.enclosures::<Interval>(dom).unwrap();
        for i in 0..model.len() {
            let (bt, bi) = (taylor[i].apply(x).aabb().inflate(1e-9), interval[i].apply(x).aabb().inflate(1e-9));
            for k in 0..=20 {
                let t = lo + (1.0 - lo) * k as f64 / 20.0;
                let p = motion.world_at(LinkId(i as u32), t).unwrap().transform_point3(x);
                prop_assert!(bt.contains_point(p), "link {i} t={t}: taylor {bt:?} misses {p}");
                prop_assert!(bi.contains_point(p), "link {i} t={t}: interval misses {p}");
            }
        }
    }

    #[test]
    fn motion_bound_exceeds_sampled_projected_motion(rm in random_model(true), n in unit(), dir in unit(), frac in 0.0..=1.0f64, t in 0.0..0.9f64) {
        let model = ArticulatedModel::new(rm.specs.clone()).unwrap();
        let (p0, p1) = (model.pose_from_joints(&rm.q0).unwrap(), model.pose_from_joints(&rm.q1).unwrap());
        let motion = ArticulatedMotion::between(&model, &p0, &p1).unwrap();
        let tip = LinkId(model.len() as u32 - 1);
        let r = 0.7;
        let x = dir * r * frac;
        let mu = motion.motion_bound(tip, n, r, t).unwrap();
        let s = sampled_projected_motion(&motion, tip, x, n, t);
        prop_assert!(s <= mu + 1e-9, "depth {}: sampled {s} > bound {mu}", model.len());
    }
}

/// Tightness report (printed with `--nocapture`): median of bound / sampled motion of the
/// worst point on random chains, per depth group. Asserts only the bound property.
#[test]
fn motion_bound_tightness_report() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::{Config, TestRunner};
    let mut runner = TestRunner::new(Config::default());
    let mut ratios: Vec<(usize, f64)> = Vec::new();
    for _ in 0..60 {
        let rm = random_model(true).new_tree(&mut runner).unwrap().current();
        let n = unit().new_tree(&mut runner).unwrap().current();
        let model = ArticulatedModel::new(rm.specs).unwrap();
        let motion = ArticulatedMotion::between(
            &model,
            &model.pose_from_joints(&rm.q0).unwrap(),
            &model.pose_from_joints(&rm.q1).unwrap(),
        )
        .unwrap();
        let tip = LinkId(model.len() as u32 - 1);
        let r = 0.7;
        let mu = motion.motion_bound(tip, n, r, 0.0).unwrap();
        // worst of a few points on the sphere of radius r
        let s = [
            DVec3::X,
            -DVec3::X,
            DVec3::Y,
            -DVec3::Y,
            DVec3::Z,
            -DVec3::Z,
            DVec3::ZERO,
        ]
        .iter()
        .map(|&d| sampled_projected_motion(&motion, tip, d * r, n, 0.0))
        .fold(0.0, f64::max);
        assert!(s <= mu + 1e-9);
        if s > 1e-9 {
            ratios.push((model.len(), mu / s));
        }
    }
    let med = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        if v.is_empty() {
            f64::NAN
        } else {
            v[v.len() / 2]
        }
    };
    let shallow: Vec<f64> = ratios.iter().filter(|r| r.0 <= 5).map(|r| r.1).collect();
    let deep: Vec<f64> = ratios.iter().filter(|r| r.0 > 5).map(|r| r.1).collect();
    eprintln!(
        "motion bound / sampled: median {:.2} (depth 1-5: {:.2}, depth 6-15: {:.2}), {} chains",
        med(ratios.iter().map(|r| r.1).collect()),
        med(shallow),
        med(deep),
        ratios.len()
    );
}
