//! Assembly tree (adaptive-dynamics CCD, Sec. 2–3): on random chains and branched trees of
//! 1–64 links, after random sequences of joint updates, world transforms equal the plain
//! forward kinematics; only the active joints' root paths are recomputed; and the
//! interval/Taylor world bounds over random time intervals contain sampled link points.

use ccd_kinematics::glam::{DAffine3, DQuat, DVec3};
use ccd_kinematics::{
    ArticulatedModel, ArticulatedMotion, AssemblyBounds, AssemblyTree, Joint, LinkId, LinkSpec,
};
use ccd_taylor::{Enclosure, Interval, TaylorModel};
use proptest::prelude::*;

fn unit() -> impl Strategy<Value = DVec3> {
    (-1.0..1.0f64, 0.0..std::f64::consts::TAU).prop_map(|(z, p)| {
        let r = (1.0 - z * z).sqrt();
        DVec3::new(r * p.cos(), r * p.sin(), z)
    })
}

fn offset() -> impl Strategy<Value = DAffine3> {
    (unit(), -3.1..3.1f64, prop::array::uniform3(-1.0..1.0f64)).prop_map(|(a, w, c)| {
        DAffine3::from_rotation_translation(DQuat::from_axis_angle(a, w), DVec3::from_array(c))
    })
}

fn joint() -> impl Strategy<Value = Joint> {
    prop_oneof![
        1 => Just(Joint::Fixed),
        4 => unit().prop_map(|axis| Joint::Revolute { axis, limits: None }),
        1 => unit().prop_map(|axis| Joint::Prismatic { axis, limits: None }),
        1 => Just(Joint::Spherical),
        1 => Just(Joint::Floating),
    ]
}

/// A random tree of `1..=max` links: a chain, or each link hanging from a random earlier
/// link (branched).
fn model(max: usize) -> impl Strategy<Value = ArticulatedModel> {
    (1..=max, any::<bool>())
        .prop_flat_map(|(n, chain)| {
            let parents = (0..n)
                .map(move |i| {
                    if i == 0 {
                        Just(None).boxed()
                    } else if chain {
                        Just(Some(i - 1)).boxed()
                    } else {
                        (0..i).prop_map(Some).boxed()
                    }
                })
                .collect::<Vec<_>>();
            (
                parents,
                prop::collection::vec(joint(), n),
                prop::collection::vec(offset(), n),
            )
        })
        .prop_map(|(parents, joints, offsets)| {
            let specs = parents
                .iter()
                .zip(joints)
                .zip(offsets)
                .enumerate()
                .map(|(i, ((p, joint), offset))| LinkSpec {
                    name: format!("l{i}"),
                    parent: p.map(|p| format!("l{p}")),
                    joint,
                    offset,
                })
                .collect();
            ArticulatedModel::new(specs).expect("a valid random tree")
        })
}

/// Joint values for `model` from a pool of random numbers in [-π, π].
fn values(model: &ArticulatedModel, pool: &[f64], salt: usize) -> Vec<f64> {
    (0..model.dof())
        .map(|k| pool[(k * 7 + salt * 13) % pool.len()])
        .collect()
}

/// One step of a random update sequence.
#[derive(Clone, Debug)]
enum Step {
    /// Set the joint of link `pick % n` to values taken from the pool at `salt`.
    Joint { pick: usize, salt: usize },
    /// Set a link's relative transform directly.
    Relative { pick: usize, pose: DAffine3 },
    /// Ask for world transforms of a few links (exercises the world cache between updates).
    Query { picks: Vec<usize> },
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        5 => (any::<usize>(), any::<usize>()).prop_map(|(pick, salt)| Step::Joint { pick, salt }),
        1 => (any::<usize>(), offset()).prop_map(|(pick, pose)| Step::Relative { pick, pose }),
        2 => prop::collection::vec(any::<usize>(), 1..5).prop_map(|picks| Step::Query { picks }),
    ]
}

fn close(a: &DAffine3, b: &DAffine3) -> bool {
    let scale = 1.0 + a.translation.length().max(b.translation.length());
    a.matrix3.abs_diff_eq(b.matrix3, 1e-9) && a.translation.abs_diff_eq(b.translation, 1e-9 * scale)
}

proptest! {
    #[test]
    fn world_transforms_equal_forward_kinematics(
        model in model(64),
        pool in prop::collection::vec(-3.1..3.1f64, 17),
        steps in prop::collection::vec(step(), 1..24),
    ) {
        let n = model.len();
        let mut q = values(&model, &pool, 0);
        let mut pose = model.pose_from_joints(&q).unwrap();
        let mut tree = AssemblyTree::with_pose(&model, &pose).unwrap();
        let all: Vec<LinkId> = (0..n as u32).map(LinkId).collect();
        let mut out = Vec::new();
        for s in &steps {
            match s {
                Step::Joint { pick, salt } => {
                    let l = &model.links()[pick % n];
                    let v: Vec<f64> = (0..l.joint.dof()).map(|k| pool[(k + salt) % pool.len()]).collect();
                    q[l.first_dof..l.first_dof + v.len()].copy_from_slice(&v);
                    tree.set_joint(LinkId((pick % n) as u32), &v).unwrap();
                    pose.relative[pick % n] = l.offset * l.joint.transform(&v).unwrap();
                }
                Step::Relative { pick, pose: p } => {
                    tree.set_relative(LinkId((pick % n) as u32), *p).unwrap();
                    pose.relative[pick % n] = *p;
                }
                Step::Query { picks } => {
                    let links: Vec<LinkId> = picks.iter().map(|p| LinkId((p % n) as u32)).collect();
                    let fk = pose.world_transforms(&model).unwrap();
                    tree.world_transforms_into(&links, &mut out).unwrap();
                    for (l, w) in links.iter().zip(&out) {
                        prop_assert!(close(w, &fk[l.index()]), "link {} differs: {w:?} vs {:?}", l.0, fk[l.index()]);
                    }
                }
            }
        }
        let fk = pose.world_transforms(&model).unwrap();
        let w = tree.world_transforms(&all).unwrap();
        for (i, (a, b)) in w.iter().zip(&fk).enumerate() {
            prop_assert!(close(a, b), "link {i} differs at the end");
        }
        // a fresh tree on the final pose agrees, and set_pose on an unchanged pose is a no-op
        let mut fresh = AssemblyTree::with_pose(&model, &pose).unwrap();
        prop_assert_eq!(tree.set_pose(&pose).unwrap(), 0);
        prop_assert_eq!(tree.update_active(), 0);
        for (&l, f) in all.iter().zip(&fk) {
            prop_assert!(close(&fresh.world_transform(l).unwrap(), f));
        }
    }

    #[test]
    fn update_recomputes_only_the_active_root_paths(
        model in model(64),
        picks in prop::collection::vec(any::<usize>(), 1..10),
    ) {
        let n = model.len();
        let mut tree = AssemblyTree::from_model(&model);
        let depth = tree.depth();
        let mut active = std::collections::BTreeSet::new();
        for p in &picks {
            let link = LinkId((p % n) as u32);
            tree.set_relative(link, DAffine3::from_translation(DVec3::Z)).unwrap();
            active.insert(link);
        }
        // the union of the active joints' root paths, counted from the tree's parent links
        let mut path_nodes = std::collections::BTreeSet::new();
        for &l in &active {
            let mut cur = tree.joint_node(l).unwrap();
            while let Some(k) = cur {
                path_nodes.insert(k);
                cur = tree.parent(k).unwrap();
            }
        }
        let recomputed = tree.update_active();
        prop_assert_eq!(recomputed, path_nodes.len());
        prop_assert!(recomputed <= active.len() * depth.max(1));
        prop_assert_eq!(tree.update_active(), 0);
    }

    #[test]
    fn bounds_contain_sampled_world_points(
        model in model(24),
        pool in prop::collection::vec(-3.1..3.1f64, 17),
        active in prop::collection::vec(any::<usize>(), 0..6),
        x in prop::array::uniform3(-1.0..1.0f64),
        lo in 0.0..1.0f64,
        w in 0.0..1.0f64,
        sub in 0.0..1.0f64,
    ) {
        let n = model.len();
        let q0 = values(&model, &pool, 0);
        // only the picked joints move (an adaptive step with few active joints)
        let mut q1 = q0.clone();
        for (k, a) in active.iter().enumerate() {
            let l = &model.links()[a % n];
            for d in 0..l.joint.dof() {
                q1[l.first_dof + d] = (q0[l.first_dof + d] + pool[(k + d) % pool.len()] * 0.3).clamp(-3.1, 3.1);
            }
        }
        let p0 = model.pose_from_joints(&q0).unwrap();
        let p1 = model.pose_from_joints(&q1).unwrap();
        let motion = ArticulatedMotion::between(&model, &p0, &p1).unwrap();
        let tree = AssemblyTree::with_pose(&model, &p0).unwrap();
        let x = DVec3::from_array(x);
        let dom = Interval::new(lo, lo + (1.0 - lo) * w);
        check_bounds::<Interval>(&tree, &motion, dom, x, sub)?;
        check_bounds::<TaylorModel>(&tree, &motion, dom, x, sub)?;
    }
}

/// World bounds over `dom`, then over a sub-interval (via `set_domain`), contain the link
/// point `x` of every link at sampled times.
fn check_bounds<E: Enclosure + PartialEq>(
    tree: &AssemblyTree,
    motion: &ArticulatedMotion,
    dom: Interval,
    x: DVec3,
    sub: f64,
) -> Result<(), TestCaseError> {
    let n = tree.len();
    let mut bounds = AssemblyBounds::<E>::new(tree, motion, dom).unwrap();
    let links: Vec<LinkId> = (0..n as u32).map(LinkId).collect();
    let mut out = Vec::new();
    for d in [
        dom,
        Interval::new(dom.lo(), dom.lo() + (dom.hi() - dom.lo()) * sub),
    ] {
        bounds.set_domain(d).unwrap();
        bounds.world_bounds_into(&links, &mut out).unwrap();
        for (l, b) in links.iter().zip(&out) {
            let aabb = b.apply(x).aabb().inflate(1e-9);
            for k in 0..=16 {
                let t = d.lo() + (d.hi() - d.lo()) * f64::from(k) / 16.0;
                let p = motion.world_at(*l, t).unwrap().transform_point3(x);
                prop_assert!(
                    aabb.contains_point(p),
                    "{} bound of link {} misses t={t} over {d}",
                    E::NAME,
                    l.0
                );
            }
        }
    }
    Ok(())
}

#[test]
fn set_motion_updates_only_that_link_and_bounds_follow() {
    let hinge = Joint::Revolute {
        axis: DVec3::Z,
        limits: None,
    };
    let specs = (0..32)
        .map(|i| LinkSpec {
            name: format!("l{i}"),
            parent: (i > 0).then(|| format!("l{}", i - 1)),
            joint: hinge,
            offset: DAffine3::from_translation(DVec3::new(0.2, 0.0, 0.0)),
        })
        .collect();
    let model = ArticulatedModel::new(specs).unwrap();
    let tree = AssemblyTree::from_model(&model);
    let q0 = vec![0.1; 32];
    let p0 = model.pose_from_joints(&q0).unwrap();
    let still = ArticulatedMotion::between(&model, &p0, &p0).unwrap();
    let mut bounds = AssemblyBounds::<Interval>::new(&tree, &still, Interval::UNIT).unwrap();
    // activate joint 20: its new motion enters through set_motion only
    let mut q1 = q0.clone();
    q1[20] = 1.2;
    let p1 = model.pose_from_joints(&q1).unwrap();
    let moving = ArticulatedMotion::between(&model, &p0, &p1).unwrap();
    bounds
        .set_motion(LinkId(20), *moving.relative(LinkId(20)).unwrap())
        .unwrap();
    let recomputed = bounds.update_active();
    assert!(recomputed >= 1 && recomputed <= tree.depth() + 1);
    let tip = LinkId(31);
    let b = bounds.world_bound(tip).unwrap().apply(DVec3::X).aabb();
    for k in 0..=20 {
        let t = f64::from(k) / 20.0;
        assert!(b.contains_point(moving.world_at(tip, t).unwrap().transform_point3(DVec3::X)));
    }
    // links above the active joint do not move: their bound is (nearly) a point
    let base = bounds
        .world_bound(LinkId(10))
        .unwrap()
        .apply(DVec3::X)
        .aabb();
    assert!(base.volume() < 1e-30);
    // a bad link is an error
    assert!(
        bounds
            .set_motion(LinkId(99), *moving.relative(LinkId(20)).unwrap())
            .is_err()
    );
}
