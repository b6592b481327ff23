//! Adaptive articulated CCD scenes (issue 18; Kim, Redon, Kim, Sec. 4, Fig. 3–4): two
//! 29-body wooden men pulled together, a pendulum of 30 (and 100) balls self-colliding, and
//! a wooden man falling onto plates and pots. Each sweeps the number of active joints and
//! times the adaptive query ([`AdaptiveScene`](ccd_ca_articulated::AdaptiveScene)) against
//! the full CATCH query ([`ArticulatedScene::query_with`]) on the same motions, step by step.
//!
//! The motions stand in for an adaptive-dynamics simulation (procedural, seeded): the
//! active joints follow smooth oscillations around a random configuration, the others stay
//! at it; the men's roots (floating joints, always among the active joints) are pulled
//! together or fall. Every step is timed for both queries in turn; a run is repeated with
//! a fresh adaptive state and the per-step fastest time is kept (on a shared machine a
//! step preempted in some runs would otherwise count the wait). Both queries' first contacts
//! are compared (time bit for bit and pair).

mod motions;
mod rigs;
mod sweep;
#[cfg(test)]
mod tests;
mod timing;

use std::sync::Arc;

use anyhow::{Result, bail};
use ccd_bvh::{BvhOptions, MeshBvh, Rss};
use ccd_ca_articulated::ArticulatedScene;

use super::SceneConfig;
use crate::report::{Plot, SceneReport};
pub(crate) use motions::{SETUPS, Setup, adaptive_steps, full_steps, setup};
use motions::{falling_motion, men_motions, pendulum_motion, tail_motion};
use rigs::{pendulum, tableware, wooden_man};
use sweep::{Point, columns, plot_of, point, rows, summary_of, sweep, worst_and_disagreements};
pub(crate) use timing::time_runs;

/// `wooden-men`: two wooden men pulled together by a spring from random configurations.
pub(crate) fn wooden_men(cfg: &SceneConfig, bar: &indicatif::ProgressBar) -> Result<SceneReport> {
    let rig = wooden_man()?;
    let body = Arc::new(rig.body(true)?);
    let mut scene = ArticulatedScene::new();
    scene.add_articulated(Arc::clone(&body));
    scene.add_articulated(body);
    let n = rig.model.len();
    let sw = sweep(cfg, n, &[1, 3, 15], &[1, 2, 3, 5, 8, 11, 15, 20, 25]);
    bar.set_length(sw.counts.len() as u64);
    let mut points = Vec::new();
    for &m in &sw.counts {
        let motions = men_motions(&rig.model, m, sw.steps);
        let t = time_runs(&scene, &motions, sw.reps)?;
        points.push(point("2 men", 2 * n, m, &t));
        bar.inc(1);
    }
    let (worst, dis) = worst_and_disagreements(&points);
    let at3 = points.iter().find(|p| p.active == 3);
    let headline = format!(
        "3 of {n} joints active: adaptive {} of the full query per step (mean over the steps; target ≤ 0.25: {}; median step {}); worst step adaptive/full {worst:.2} (target ≤ 1.10: {}); {dis} answer disagreements",
        at3.map_or("—".into(), |p| format!("{:.2}", p.adaptive / p.full)),
        if at3.is_some_and(|p| p.adaptive / p.full <= 0.25) {
            "met"
        } else {
            "NOT met"
        },
        at3.map_or("—".into(), |p| format!("{:.2}", p.median)),
        if worst <= 1.10 { "met" } else { "NOT met" },
    );
    if dis > 0 {
        bail!("wooden-men: {dis} steps where the adaptive and full answers differ");
    }
    Ok(SceneReport {
        name: "wooden-men".into(),
        paper: "Adaptive CCD Sec. 4, Fig. 3 left, Fig. 4".into(),
        description: format!(
            "two {n}-body wooden men ({} triangles each, floating root + revolute joints) pulled together from random configurations; the first m joints of a seeded order are active (roots first), the rest stay; {} steps per run, per-step fastest of {} runs (shared machine)",
            rig.triangles(),
            sw.steps - 1,
            sw.reps
        ),
        columns: columns(),
        rows: rows(&points),
        headline,
        summary: summary_of(&points),
        plots: vec![plot_of(
            "wooden-men.svg",
            "Wooden men: CCD time per step vs active joints",
            &[("", &points)],
        )],
    })
}

/// One run of the pendulum sweep.
struct PendulumRun {
    balls: usize,
    label: &'static str,
    /// The 30-ball motion at the tail ([`tail_motion`]) instead of [`pendulum_motion`].
    tail: bool,
    /// Active-joint counts of quick and full runs.
    quick: &'static [usize],
    full: &'static [usize],
}

impl PendulumRun {
    /// The joints that can be active (the tail run moves only the last 30).
    fn joints(&self) -> usize {
        if self.tail { 30 } else { self.balls }
    }
}

/// `pendulum`: chains of 30 and 100 balls swinging, self-collision between balls.
pub(crate) fn pendulum_scene(
    cfg: &SceneConfig,
    bar: &indicatif::ProgressBar,
) -> Result<SceneReport> {
    let mut groups: Vec<(String, Vec<Point>)> = Vec::new();
    let mut tris = Vec::new();
    let plans = [
        PendulumRun {
            balls: 30,
            label: "30 balls",
            tail: false,
            quick: &[1, 3],
            full: &[1, 2, 3, 5, 8, 12, 16, 20, 25],
        },
        PendulumRun {
            balls: 100,
            label: "100 balls",
            tail: false,
            quick: &[1, 3],
            full: &[1, 3, 5, 10, 20, 30, 50, 75],
        },
        PendulumRun {
            balls: 100,
            label: "100 balls, 30-ball motion at the tail",
            tail: true,
            quick: &[1, 3],
            full: &[1, 2, 3, 5, 8, 12, 16, 20, 25, 30],
        },
    ];
    let total: usize = plans
        .iter()
        .map(|r| sweep(cfg, r.joints(), r.quick, r.full).counts.len())
        .sum();
    bar.set_length(total as u64);
    for run in &plans {
        let (n, label) = (run.balls, run.label);
        let rig = pendulum(n)?;
        if !run.tail {
            tris.push(rig.triangles());
        }
        let mut scene = ArticulatedScene::new();
        scene.add_articulated(rig.body(false)?);
        let sw = sweep(cfg, run.joints(), run.quick, run.full);
        let mut points = Vec::new();
        for &m in &sw.counts {
            let motions = vec![if run.tail {
                tail_motion(&rig.model, m, sw.steps)?
            } else {
                pendulum_motion(&rig.model, m, sw.steps)
            }];
            let t = time_runs(&scene, &motions, sw.reps)?;
            points.push(point(label, n, m, &t));
            bar.inc(1);
        }
        groups.push((format!(" ({label})"), points));
    }
    let all: Vec<&Point> = groups.iter().flat_map(|(_, p)| p).collect();
    let worst = all.iter().map(|p| p.worst).fold(0.0, f64::max);
    let dis: usize = all.iter().map(|p| p.disagreements).sum();
    if dis > 0 {
        bail!("pendulum: {dis} steps where the adaptive and full answers differ");
    }
    let at = |label: &str, m: usize| {
        all.iter()
            .find(|p| p.label == label && p.active == m)
            .map_or("—".into(), |p| format!("{:.3}", p.adaptive))
    };
    let headline = format!(
        "3 active joints: adaptive {} ms/step with 30 balls, {} with 100 balls moving like the 30 at the tail, {} with 100 (other motion); worst step adaptive/full {worst:.2} (target ≤ 1.10: {}); {dis} disagreements",
        at("30 balls", 3),
        at("100 balls, 30-ball motion at the tail", 3),
        at("100 balls", 3),
        if worst <= 1.10 { "met" } else { "NOT met" }
    );
    let plot_groups: Vec<(&str, &[Point])> = groups
        .iter()
        .map(|(l, p)| (l.as_str(), p.as_slice()))
        .collect();
    let points: Vec<Point> = all.iter().map(|&p| p.clone()).collect();
    let sw = sweep(cfg, 30, &[1], &[1]);
    Ok(SceneReport {
        name: "pendulum".into(),
        paper: "Adaptive CCD Sec. 4, Fig. 3 centre, Fig. 4".into(),
        description: format!(
            "a chain of 30 balls ({} triangles) and of 100 balls ({} triangles) swinging from a pivot, self-collision between balls; the first m joints of a seeded order oscillate, the rest hold a random bend; third run: 100 balls whose top 70 hang straight and still while the last 30 move exactly as the 30-ball chain (same bend, waves and active joints: the same moving part, 3.3x the links); {} steps per run, per-step fastest of {} runs (shared machine)",
            tris[0],
            tris[1],
            sw.steps - 1,
            sw.reps
        ),
        columns: columns(),
        rows: rows(&points),
        headline,
        summary: summary_of(&points),
        // log scale: 0.02–160 ms across the runs
        plots: vec![Plot {
            log_y: true,
            targets: Vec::new(),
            categories: Vec::new(),
            ..plot_of(
                "pendulum.svg",
                "Pendulum: CCD time per step vs active joints",
                &plot_groups,
            )
        }],
    })
}

/// `falling-man`: a wooden man falling onto plates and pots.
pub(crate) fn falling_man(cfg: &SceneConfig, bar: &indicatif::ProgressBar) -> Result<SceneReport> {
    let rig = wooden_man()?;
    let env = tableware(7)?;
    let env_tris = env.triangle_count();
    let mut scene = ArticulatedScene::new();
    scene.add_articulated(rig.body(true)?);
    scene.set_environment(Arc::new(MeshBvh::<Rss>::new(env, &BvhOptions::default())?));
    let n = rig.model.len();
    let sw = sweep(cfg, n, &[1, 3, 15], &[1, 2, 3, 5, 8, 11, 15, 20, 25]);
    bar.set_length(sw.counts.len() as u64);
    let mut points = Vec::new();
    for &m in &sw.counts {
        let motions = vec![falling_motion(&rig.model, m, sw.steps)];
        let t = time_runs(&scene, &motions, sw.reps)?;
        points.push(point("1 man", n, m, &t));
        bar.inc(1);
    }
    let (worst, dis) = worst_and_disagreements(&points);
    if dis > 0 {
        bail!("falling-man: {dis} steps where the adaptive and full answers differ");
    }
    let at3 = points.iter().find(|p| p.active == 3);
    let headline = format!(
        "3 of {n} joints active: adaptive {} of the full query per step; worst step adaptive/full {worst:.2} (target ≤ 1.10: {})",
        at3.map_or("—".into(), |p| format!("{:.2}", p.adaptive / p.full)),
        if worst <= 1.10 { "met" } else { "NOT met" }
    );
    Ok(SceneReport {
        name: "falling-man".into(),
        paper: "Adaptive CCD Sec. 4, Fig. 3 right, Fig. 4".into(),
        description: format!(
            "a {n}-body wooden man ({} triangles) falling and tumbling onto plates and pots ({env_tris} triangles); the first m joints of a seeded order are active (root first); {} steps per run, per-step fastest of {} runs (shared machine)",
            rig.triangles(),
            sw.steps - 1,
            sw.reps
        ),
        columns: columns(),
        rows: rows(&points),
        headline,
        summary: summary_of(&points),
        plots: vec![plot_of(
            "falling-man.svg",
            "Falling man: CCD time per step vs active joints",
            &[("", &points)],
        )],
    })
}
