//! Criterion benchmarks of `ccd-ca-articulated`: the Franka Panda (real URDF + SRDF from
//! `../shared/data/robots/panda`) self-collision query on a colliding edge (ready → folded)
//! and on a free edge, in `Toc` and `Boolean` mode, Taylor vs interval culling. Skipped with
//! a message when the data is absent.

use std::hint::black_box;
use std::path::PathBuf;

use ccd_ca_articulated::{
    ArticulatedBody, ArticulatedScene, ArticulatedWorkspace, BodyStep, EnclosureKind, Mode,
    QueryOptions, QueryResult,
};
use ccd_kinematics::urdf::UrdfOptions;
use criterion::{Criterion, criterion_group, criterion_main};

const ARM: [&str; 7] = [
    "panda_joint1",
    "panda_joint2",
    "panda_joint3",
    "panda_joint4",
    "panda_joint5",
    "panda_joint6",
    "panda_joint7",
];

fn bench(c: &mut Criterion) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/robots/panda");
    if !dir.join("urdf/panda.urdf").is_file() {
        eprintln!("skipped: Panda benchmarks: {} not found", dir.display());
        return;
    }
    let opts =
        UrdfOptions::default().with_package("example-robot-data/robots/panda_description", &dir);
    let (body, robot) = ArticulatedBody::from_urdf(
        dir.join("urdf/panda.urdf"),
        Some(&dir.join("srdf/panda.srdf")),
        &opts,
    )
    .expect("the Panda loads");
    let q = |arm: [f64; 7]| {
        let mut q = vec![0.0; robot.model.dof()];
        for (n, v) in ARM.iter().zip(arm) {
            q[robot.joint_index(n).unwrap()] = v;
        }
        q
    };
    let ready = q([0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785]);
    let folded = q([0.960, -1.631, -1.439, -2.928, -1.343, 1.963, -2.519]);
    let free = q([1.2, 0.3, -0.5, -1.8, 0.6, 2.2, -0.4]);
    let mut scene = ArticulatedScene::new();
    scene.add_articulated(body);
    let mut group = c.benchmark_group("panda-self");
    let cases = [
        ("colliding-toc-taylor", &folded, QueryOptions::default()),
        (
            "colliding-toc-interval",
            &folded,
            QueryOptions::default().with_enclosure(EnclosureKind::Interval),
        ),
        (
            "colliding-toc-no-temporal",
            &folded,
            QueryOptions::default().with_temporal_culling(false),
        ),
        (
            "colliding-boolean",
            &folded,
            QueryOptions::default().with_mode(Mode::Boolean),
        ),
        ("free-toc-taylor", &free, QueryOptions::default()),
        (
            "free-boolean",
            &free,
            QueryOptions::default().with_mode(Mode::Boolean),
        ),
    ];
    for (name, target, opts) in cases {
        let mut ws = ArticulatedWorkspace::default();
        let mut out = QueryResult::default();
        let step = [BodyStep::Joints {
            q0: &ready,
            q1: target,
        }];
        scene.query_with(&step, &opts, &mut ws, &mut out).unwrap();
        eprintln!(
            "{name}: first {:?}, stats {:?}",
            out.first().map(|c| c.contact.toc),
            out.stats
        );
        group.bench_function(name, |b| {
            b.iter(|| {
                scene
                    .query_with(black_box(&step), &opts, &mut ws, &mut out)
                    .unwrap();
                black_box(out.first().map(|c| c.contact.toc))
            });
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
