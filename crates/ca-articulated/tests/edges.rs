//! `ArticulatedScene::check_edges` (all cores with feature `parallel`) answers every edge exactly as
//! `ArticulatedScene::query` does, in order, with per-edge errors.

mod support;

use ccd_ca_articulated::{ArticulatedScene, BodyStep, Mode, QueryOptions};
use ccd_geometry::TriMesh;
use ccd_geometry::glam::DVec3;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;
use support::{body_of, env_arc, joints, model_of, tree};

#[test]
fn batch_matches_single_queries() {
    let mut runner = TestRunner::deterministic();
    let plan = tree(5).new_tree(&mut runner).unwrap().current();
    let model = model_of(&plan);
    let mut scene = ArticulatedScene::new();
    scene.add_articulated(body_of(&plan));
    scene.set_environment(env_arc(
        &TriMesh::cuboid(DVec3::new(0.3, -0.5, -0.5), DVec3::new(0.8, 0.5, 0.5)).unwrap(),
    ));
    let mut edges = Vec::new();
    for k in 0..24 {
        let seed = prop::collection::vec(-1.0..1.0f64, 16)
            .new_tree(&mut runner)
            .unwrap()
            .current();
        let (q0, mut q1) = joints(&model, &seed);
        if k == 5 && !q1.is_empty() {
            q1[0] = f64::NAN; // a bad edge gets its own error
        }
        edges.push((q0, q1));
    }
    for mode in [Mode::Toc, Mode::Boolean, Mode::All] {
        let opts = QueryOptions::default().with_mode(mode);
        let batch = scene.check_edges(&edges, &opts).unwrap();
        assert_eq!(batch.len(), edges.len());
        let mut hits = 0;
        for ((q0, q1), got) in edges.iter().zip(&batch) {
            let single = scene.query(&[BodyStep::Joints { q0, q1 }], &opts);
            // (Debug text: the NaN of the bad edge is not equal to itself)
            assert_eq!(format!("{single:?}"), format!("{got:?}"));
            hits += usize::from(got.as_ref().is_ok_and(|r| r.first().is_some()));
        }
        eprintln!("{mode:?}: {hits} of {} edges collide", edges.len());
    }
}
