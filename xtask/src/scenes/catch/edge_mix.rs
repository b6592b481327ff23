//! `robot-edge-mix`: a planner's edge checks on a short / medium / long mix of joint-space
//! edges (40 % within 0.1 rad per joint, 30 % within 1 rad, 30 % between two independent
//! random configurations, where joints turn by up to their whole range), for the Panda before
//! a cluttered shelf and the PR2 in a kitchen, both seeded. Every edge joins two
//! collision-free configurations (a planner checks its states before its edges).
//!
//! Per edge: CATCH in Boolean mode and in ToC mode, the 1° / 1 cm discrete check (mesh
//! overlap within ε at evenly spaced poses), and a dense reference (0.1° / 1 mm, overlap
//! within ε/2). A CATCH Boolean answer "free" where the reference finds an overlap within ε/2
//! is a miss; a CATCH time of contact after the reference's first overlapping pose is a late
//! answer. Both must be 0.

use std::sync::Arc;

use anyhow::{Result, bail};
use ccd_bvh::{BvhOptions, MeshBvh, Rss};
use ccd_ca_articulated::{ArticulatedScene, Mode, QueryOptions};
use serde_json::json;

use super::discrete::Discrete;
use super::robots::{Robot, kitchen, panda, pr2, shelf};
use super::run::{Measured, Motion, Target, Variant, measure};
use super::scenes::robot_body;
use crate::clock::Stopwatch;
use crate::report::{Plot, SceneReport, Series, TargetLine};
use crate::rng::SceneRng;
use crate::scenes::SceneConfig;

/// The three kinds of edge, with their share of the mix.
const CLASSES: [(&str, f64); 3] = [("short", 0.4), ("medium", 0.3), ("long", 0.3)];
/// Largest joint step of a short and of a medium edge (rad); a long edge joins two
/// independent random configurations.
const SHORT_STEP: f64 = 0.1;
const MEDIUM_STEP: f64 = 1.0;
/// A long edge turns at least one joint by more than this (rad).
const LONG_AT_LEAST: f64 = 1.0;
/// Start configurations tried per edge wanted before the generator gives up.
const TRIES_PER_EDGE: usize = 400;
/// The dense reference: joint step (degrees) and largest travel of a link's box corner (m).
const DENSE_DEG: f64 = 0.1;
const DENSE_LEN: f64 = 0.001;

/// An edge: its class (index into [`CLASSES`]), start and end configurations.
type Edge = (usize, Vec<f64>, Vec<f64>);

/// One robot's workload.
struct Workload {
    name: &'static str,
    robot: Robot,
    env: Arc<MeshBvh<Rss>>,
    edges: Vec<Edge>,
}

/// `n` edges between collision-free configurations, classes in the proportions of
/// [`CLASSES`], interleaved (edge `k` is of class `k`'s slot in a repeating 10-edge pattern).
fn mixed_edges(robot: &Robot, check: &Discrete<'_>, n: usize, seed: u64) -> Result<Vec<Edge>> {
    let mut rng = SceneRng::new(seed);
    let pattern: Vec<usize> = CLASSES
        .iter()
        .enumerate()
        .flat_map(|(c, &(_, share))| std::iter::repeat_n(c, (share * 10.0).round() as usize))
        .collect();
    let mut out = Vec::with_capacity(n);
    let mut tries = 0usize;
    while out.len() < n {
        let class = pattern[out.len() % pattern.len()];
        tries += 1;
        if tries > TRIES_PER_EDGE * n {
            bail!(
                "robot-edge-mix: too few collision-free configurations of {} ({} edges of {n} in {} tries)",
                robot.source,
                out.len(),
                tries - 1
            );
        }
        let q0 = robot.random_config(&mut rng);
        if check.collides(&q0)? {
            continue;
        }
        let q1 = match class {
            0 => robot.nearby_config(&q0, SHORT_STEP, &mut rng),
            1 => robot.nearby_config(&q0, MEDIUM_STEP, &mut rng),
            _ => robot.random_config(&mut rng),
        };
        let turn = q0
            .iter()
            .zip(&q1)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        if (class == 2 && turn <= LONG_AT_LEAST) || check.collides(&q1)? {
            continue;
        }
        out.push((class, q0, q1));
    }
    Ok(out)
}

fn workloads(cfg: &SceneConfig) -> Result<Vec<Workload>> {
    let opts = BvhOptions::default();
    let eps = QueryOptions::default().tolerance;
    let (n_panda, n_pr2) = if cfg.quick { (20, 10) } else { (300, 200) };
    let mut out = Vec::new();
    for (name, robot, env, n, seed) in [
        ("Panda", panda(&cfg.robots)?, shelf(7)?, n_panda, 91),
        ("PR2", pr2(&cfg.robots)?, kitchen(22, 30)?, n_pr2, 92),
    ] {
        let env = Arc::new(MeshBvh::<Rss>::new(env, &opts)?);
        let body = robot_body(&robot)?;
        let edges = mixed_edges(&robot, &Discrete::new(&body, &env, eps), n, seed)?;
        out.push(Workload {
            name,
            robot,
            env,
            edges,
        });
    }
    Ok(out)
}

/// Per-edge measurements of one workload.
struct Run {
    boolean: Measured,
    toc: Measured,
    /// CPU ms per edge of the 1° / 1 cm discrete check, and its verdict.
    discrete_ms: Vec<f64>,
    discrete_hit: Vec<bool>,
    /// The dense reference's first overlapping time, per edge.
    dense: Vec<Option<f64>>,
}

fn run(w: &Workload, bar: &indicatif::ProgressBar) -> Result<Run> {
    let body = robot_body(&w.robot)?;
    let mut scene = ArticulatedScene::new();
    scene.add_articulated(body.clone());
    scene.set_environment(Arc::clone(&w.env));
    let motion = Motion::Edges(
        w.edges
            .iter()
            .map(|(_, a, b)| (a.clone(), b.clone()))
            .collect(),
    );
    let opts = QueryOptions::default();
    let eps = opts.tolerance;
    bar.set_length(4 * w.edges.len() as u64);
    bar.set_message(format!("{}: edge (Boolean, ToC, 1°, dense)", w.name));
    let boolean = measure(
        &scene,
        &motion,
        &Variant {
            label: "CATCH Boolean",
            opts: opts.with_mode(Mode::Boolean),
        },
        bar,
    )?;
    let toc = measure(
        &scene,
        &motion,
        &Variant {
            label: "CATCH ToC",
            opts: opts.with_mode(Mode::Toc),
        },
        bar,
    )?;
    let one_deg = Discrete::new(&body, &w.env, eps);
    let dense = Discrete::new(&body, &w.env, 0.5 * eps);
    let (mut discrete_ms, mut discrete_hit, mut first) = (Vec::new(), Vec::new(), Vec::new());
    for (_, q0, q1) in &w.edges {
        let watch = Stopwatch::start();
        let (hit, _) = one_deg.edge(q0, q1, 1.0, 0.01)?;
        discrete_ms.push(watch.ms().0);
        discrete_hit.push(hit);
        bar.inc(1);
    }
    for (_, q0, q1) in &w.edges {
        first.push(dense.first_hit(q0, q1, DENSE_DEG, DENSE_LEN)?);
        bar.inc(1);
    }
    Ok(Run {
        boolean,
        toc,
        discrete_ms,
        discrete_hit,
        dense: first,
    })
}

/// Counts of one class (or the whole mix, `class = None`) of a run.
struct Tally {
    edges: usize,
    colliding: usize,
    boolean_us: f64,
    toc_us: f64,
    discrete_us: f64,
    missed: usize,
    late: usize,
    discrete_missed: usize,
}

fn tally(w: &Workload, r: &Run, class: Option<usize>) -> Tally {
    let idx: Vec<usize> = (0..w.edges.len())
        .filter(|&k| class.is_none_or(|c| w.edges[k].0 == c))
        .collect();
    let at = |v: &[f64]| Measured::mean(idx.iter().map(|&k| 1e3 * v[k]));
    Tally {
        edges: idx.len(),
        colliding: idx.iter().filter(|&&k| r.dense[k].is_some()).count(),
        boolean_us: at(&r.boolean.ms),
        toc_us: at(&r.toc.ms),
        discrete_us: at(&r.discrete_ms),
        missed: idx
            .iter()
            .filter(|&&k| r.dense[k].is_some() && r.boolean.toc[k].is_none())
            .count(),
        late: idx
            .iter()
            .filter(|&&k| match (r.dense[k], r.toc.toc[k]) {
                (Some(d), Some(c)) => c > d,
                (Some(_), None) => true,
                _ => false,
            })
            .count(),
        discrete_missed: idx
            .iter()
            .filter(|&&k| r.dense[k].is_some() && !r.discrete_hit[k])
            .count(),
    }
}

fn columns() -> Vec<String> {
    [
        "robot: edges",
        "edges",
        "colliding (dense)",
        "CATCH Boolean µs",
        "CATCH ToC µs",
        "1° discrete µs",
        "speed-up Boolean vs 1°",
        "CATCH missed",
        "CATCH late",
        "1° missed",
    ]
    .map(String::from)
    .to_vec()
}

/// `robot-edge-mix`: see the module docs.
pub(crate) fn robot_edge_mix(
    cfg: &SceneConfig,
    bar: &indicatif::ProgressBar,
) -> Result<SceneReport> {
    bar.set_message("collision-free edges");
    let loads = workloads(cfg)?;
    let mut rows = Vec::new();
    let mut targets = Vec::new();
    let mut numbers = serde_json::Map::new();
    let mut categories = Vec::new();
    let (mut bool_y, mut toc_y, mut disc_y) = (Vec::new(), Vec::new(), Vec::new());
    let mut description = Vec::new();
    for w in &loads {
        let r = run(w, bar)?;
        description.push(format!(
            "{} ({} triangles) in a {}-triangle scene, {} edges",
            w.robot.source,
            w.robot.triangles(),
            w.env.mesh().triangle_count(),
            w.edges.len()
        ));
        let mut per_class = serde_json::Map::new();
        for class in [Some(0), Some(1), Some(2), None] {
            let label = class.map_or("all", |c| CLASSES[c].0);
            let t = tally(w, &r, class);
            rows.push(vec![
                format!("{}: {label}", w.name),
                t.edges.to_string(),
                t.colliding.to_string(),
                format!("{:.0}", t.boolean_us),
                format!("{:.0}", t.toc_us),
                format!("{:.0}", t.discrete_us),
                format!("{:.1}×", t.discrete_us / t.boolean_us),
                t.missed.to_string(),
                t.late.to_string(),
                t.discrete_missed.to_string(),
            ]);
            categories.push(format!("{} {label}", w.name));
            let x = categories.len() as f64;
            bool_y.push((x, t.boolean_us));
            toc_y.push((x, t.toc_us));
            disc_y.push((x, t.discrete_us));
            per_class.insert(
                label.into(),
                json!({ "edges": t.edges, "colliding": t.colliding, "catch_boolean_us": t.boolean_us,
                        "catch_toc_us": t.toc_us, "discrete_1deg_us": t.discrete_us,
                        "speedup_vs_1deg": t.discrete_us / t.boolean_us, "catch_missed": t.missed,
                        "catch_late": t.late, "discrete_1deg_missed": t.discrete_missed }),
            );
            if class.is_none() {
                targets.push(Target::at_least(
                    &format!(
                        "{}: mean speed-up of CATCH Boolean over the 1° discrete check",
                        w.name
                    ),
                    t.discrete_us / t.boolean_us,
                    10.0,
                    "×",
                ));
                targets.push(Target::at_most(
                    &format!(
                        "{}: CATCH misses + late answers against the dense reference",
                        w.name
                    ),
                    (t.missed + t.late) as f64,
                    0.0,
                    "edges",
                ));
            }
        }
        numbers.insert(w.name.into(), serde_json::Value::Object(per_class));
    }
    let series = |name: &str, pts: Vec<(f64, f64)>| Series {
        name: name.into(),
        x: pts.iter().map(|p| p.0).collect(),
        y: pts.iter().map(|p| p.1).collect(),
        band: None,
    };
    let plot = Plot {
        file: "robot-edge-mix.svg".into(),
        title: "Robot edges, short / medium / long mix: mean CPU µs per edge".into(),
        x_label: "robot: edges".into(),
        y_label: "CPU µs per edge (log)".into(),
        log_y: true,
        targets: Vec::<TargetLine>::new(),
        categories,
        series: vec![
            series("CATCH Boolean", bool_y),
            series("CATCH ToC", toc_y),
            series("discrete 1° / 1 cm", disc_y),
        ],
    };
    let mut headline: Vec<String> = targets
        .iter()
        .map(|t| format!("{}: {}", t.what, if t.ok { "met" } else { "NOT met" }))
        .collect();
    headline.push(format!(
        "dense reference: overlap within ε/2 at {DENSE_DEG}° / {} mm",
        DENSE_LEN * 1e3
    ));
    Ok(SceneReport {
        name: "robot-edge-mix".into(),
        paper: "CATCH Sec. 8 (planner edges; issue 33)".into(),
        description: format!(
            "{}; 40 % short (≤ {SHORT_STEP} rad per joint), 30 % medium (≤ {MEDIUM_STEP} rad), 30 % long (two independent random configurations, some joint turning > {LONG_AT_LEAST} rad), every endpoint collision-free; 1 thread, CPU time",
            description.join("; ")
        ),
        columns: columns(),
        rows,
        headline: headline.join("; "),
        summary: json!({ "targets_met": targets.iter().all(|t| t.ok), "numbers": numbers }),
        plots: vec![plot],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mix_has_its_proportions_and_long_edges_turn_far() {
        let cfg = SceneConfig {
            quick: true,
            data: None,
            robots: crate::robot_data::RobotSources::none(),
        };
        let loads = workloads(&cfg).unwrap();
        for w in &loads {
            assert!(w.env.mesh().triangle_count() > 1_000);
            let count = |c| w.edges.iter().filter(|e| e.0 == c).count();
            let n = w.edges.len();
            assert_eq!(count(0) + count(1) + count(2), n);
            assert!(count(0) * 10 >= 4 * n - 10, "short share");
            for (class, q0, q1) in &w.edges {
                let turn = q0
                    .iter()
                    .zip(q1)
                    .map(|(a, b)| (a - b).abs())
                    .fold(0.0, f64::max);
                match class {
                    0 => assert!(turn <= SHORT_STEP + 1e-12),
                    1 => assert!(turn <= MEDIUM_STEP + 1e-12),
                    _ => assert!(turn > LONG_AT_LEAST),
                }
            }
        }
    }
}
