//! Timing the adaptive query against the full one on the same motions, step by step
//! (thread CPU time, the fastest of several runs per step), comparing their answers.

use anyhow::Result;
use ccd_ca_articulated::{
    AdaptiveScene, ArticulatedScene, ArticulatedWorkspace, QueryOptions, QueryResult,
};

use super::motions::{Motion, adaptive_steps, full_steps};
use crate::clock::thread_cpu_ms;

/// Per-step times (fastest of the runs) of one sweep point.
pub(crate) struct Timing {
    pub(crate) full_ms: Vec<f64>,
    pub(crate) adaptive_ms: Vec<f64>,
    pub(crate) contacts: usize,
    pub(crate) disagreements: usize,
}

fn fastest(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::INFINITY, f64::min)
}

/// Runs the motions `reps` times (a fresh adaptive state each time; step 0 warms both
/// queries up and is not timed), timing each step of both queries (thread CPU time).
pub(crate) fn time_runs(
    scene: &ArticulatedScene,
    motions: &[Motion],
    reps: usize,
) -> Result<Timing> {
    // whole steps, as the adaptive query answers them (it never splits long steps)
    let opts = QueryOptions::default().with_segment_turn(f64::INFINITY);
    let steps = motions[0].steps.len();
    let mut full = vec![Vec::new(); steps];
    let mut ours = vec![Vec::new(); steps];
    let (mut contacts, mut disagreements) = (0, 0);
    let (mut ws_full, mut ws_ours) = (
        ArticulatedWorkspace::default(),
        ArticulatedWorkspace::default(),
    );
    let (mut out_full, mut out_ours) = (QueryResult::default(), QueryResult::default());
    for rep in 0..reps {
        let mut adaptive = AdaptiveScene::new(scene.clone());
        for k in 0..steps {
            let full_step = full_steps(motions, k);
            let our_steps = adaptive_steps(motions, k);
            let t0 = thread_cpu_ms();
            scene.query_with(&full_step, &opts, &mut ws_full, &mut out_full)?;
            let t1 = thread_cpu_ms();
            adaptive.query_with(&our_steps, &opts, &mut ws_ours, &mut out_ours)?;
            let t2 = thread_cpu_ms();
            if k == 0 {
                continue;
            }
            full[k].push(t1 - t0);
            ours[k].push(t2 - t1);
            if rep == 0 {
                let key = |r: &QueryResult| r.first().map(|c| (c.a, c.b, c.contact.toc.to_bits()));
                contacts += usize::from(out_full.first().is_some());
                disagreements += usize::from(key(&out_full) != key(&out_ours));
            }
        }
    }
    Ok(Timing {
        full_ms: full[1..].iter().map(|v| fastest(v)).collect(),
        adaptive_ms: ours[1..].iter().map(|v| fastest(v)).collect(),
        contacts,
        disagreements,
    })
}
