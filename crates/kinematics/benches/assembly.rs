//! Assembly tree (adaptive-dynamics CCD, Sec. 3): cost of setting `m` active joints,
//! `update_active` and the world transform (or interval world bound) of one body, for
//! `m = 1 … 64` on 64-link models (a chain and a branched tree), next to the plain full
//! forward-kinematics pass (and the full one-pass enclosure of all links) that does not
//! depend on `m`. No peer library has an assembly tree; the full pass is the baseline.

use std::hint::black_box;

use ccd_kinematics::glam::{DAffine3, DQuat, DVec3};
use ccd_kinematics::{
    ArticulatedModel, ArticulatedMotion, AssemblyBounds, AssemblyTree, Joint, LinkId, LinkSpec,
};
use ccd_taylor::Interval;
use ccd_test_support::SplitMix64;
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

const N: usize = 64;
const MS: [usize; 7] = [1, 2, 4, 8, 16, 32, 64];

/// 64 revolute links with random axes and offsets; `parent(i)` gives the tree shape.
fn model(rng: &mut SplitMix64, parent: impl Fn(usize) -> usize) -> ArticulatedModel {
    let specs = (0..N)
        .map(|i| LinkSpec {
            name: format!("l{i}"),
            parent: (i > 0).then(|| format!("l{}", parent(i))),
            joint: Joint::Revolute {
                axis: rng.unit_vector(),
                limits: None,
            },
            offset: DAffine3::from_rotation_translation(
                DQuat::from_axis_angle(rng.unit_vector(), rng.unit()),
                DVec3::new(0.3, 0.0, 0.0),
            ),
        })
        .collect();
    ArticulatedModel::new(specs).expect("valid model")
}

/// The first `m` links of a fixed random permutation of all links.
fn active_sets(rng: &mut SplitMix64) -> Vec<LinkId> {
    let mut ids: Vec<LinkId> = (0..N as u32).map(LinkId).collect();
    for i in (1..N).rev() {
        let j = (rng.next_u64() % (i as u64 + 1)) as usize;
        ids.swap(i, j);
    }
    ids
}

fn bench_model(c: &mut Criterion, name: &str, model: &ArticulatedModel, rng: &mut SplitMix64) {
    let order = active_sets(rng);
    let q0: Vec<f64> = (0..N).map(|_| rng.signed()).collect();
    let q1: Vec<f64> = q0.iter().map(|q| q + 0.2 * rng.unit()).collect();
    let pose0 = model.pose_from_joints(&q0).expect("pose");
    // the body whose world transform is asked for: the deepest link of the model
    let body = LinkId((N - 1) as u32);

    let mut g = c.benchmark_group(format!("assembly_{name}64"));
    let mut tree = AssemblyTree::with_pose(model, &pose0).expect("tree");
    println!("{name}: assembly depth {}", tree.depth());
    for m in MS {
        let active = &order[..m];
        g.bench_with_input(BenchmarkId::new("set_update_world1", m), &m, |b, _| {
            b.iter(|| {
                for &l in active {
                    tree.set_joint(l, &[q1[l.index()]]).expect("valid value");
                }
                black_box(tree.update_active());
                black_box(tree.world_transform(black_box(body)).unwrap())
            });
        });
    }
    g.bench_function("plain_full_fk", |b| {
        b.iter(|| {
            let pose = model.pose_from_joints(black_box(&q1)).expect("pose");
            black_box(pose.world_transforms(model).unwrap())
        });
    });

    // interval bounds over a time interval: m moving joints, one body's world bound
    let mut q_end = q0.clone();
    for &l in &order {
        q_end[l.index()] = q1[l.index()];
    }
    let pose1 = model.pose_from_joints(&q_end).expect("pose");
    let motion = ArticulatedMotion::between(model, &pose0, &pose1).expect("motion");
    let still = ArticulatedMotion::between(model, &pose0, &pose0).expect("motion");
    let mut bounds =
        AssemblyBounds::<Interval>::new(&tree, &still, Interval::UNIT).expect("bounds");
    for m in MS {
        let active = &order[..m];
        g.bench_with_input(
            BenchmarkId::new("bounds_set_update_world1", m),
            &m,
            |b, _| {
                b.iter(|| {
                    for &l in active {
                        bounds
                            .set_motion(l, *motion.relative(l).unwrap())
                            .expect("valid link");
                    }
                    black_box(bounds.update_active());
                    black_box(bounds.world_bound(black_box(body)).unwrap())
                });
            },
        );
    }
    g.bench_function("plain_full_enclosures", |b| {
        b.iter(|| {
            black_box(
                motion
                    .enclosures::<Interval>(black_box(Interval::UNIT))
                    .expect("domain"),
            )
        });
    });
    g.finish();
}

fn bench(c: &mut Criterion) {
    let mut rng = SplitMix64::new(5);
    let chain = model(&mut rng, |i| i - 1);
    bench_model(c, "chain", &chain, &mut rng);
    // a branched tree: every link hangs from a random one of the previous four
    let mut shape = SplitMix64::new(11);
    let parents: Vec<usize> = (0..N)
        .map(|i| i.saturating_sub(1 + (shape.next_u64() % 4) as usize))
        .collect();
    let branched = model(&mut rng, |i| parents[i]);
    bench_model(c, "branched", &branched, &mut rng);
}

criterion_group!(benches, bench);
criterion_main!(benches);
