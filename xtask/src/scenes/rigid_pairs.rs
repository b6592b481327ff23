//! Scene `rigid-pairs` (issue 16): single rigid pairs — the workloads of `ccd-ca-rigid`'s
//! criterion benches (torus vs sphere head-on, near and far miss, an 86° rotation, a bar
//! spinning 170°, thin plates at high speed, a 20K sphere dropping on a 100K terrain) and
//! analytic pairs (ball–ball, capsule–box, ball–box, capsule–capsule, cylinder–box,
//! hull–hull, ball vs mesh, a compound) — with ours (`time_of_contact_shapes`) and
//! parry3d-f64 0.31 `cast_shapes_nonlinear` on the same shapes and the same
//! `NonlinearRigidMotion`s (linear + angular velocity about `local_center`), timed in the
//! same run. The workloads live in `ccd_benches::rigid` (shared with `cargo xtask peers`).
//!
//! Columns: ours µs per query, our CA iterations, parry µs, parry/ours, both TOCs and their
//! difference; a *disagreement* is a different contact decision or our TOC later than
//! parry's by more than ε over the pair's speed bound. Each query is repeated until 0.2 s
//! have passed (at least 3 runs; parry's mesh–mesh casts, which take seconds, once and only
//! without `--quick`).

use std::hint::black_box;
use std::time::{Duration, Instant};

use anyhow::Result;
use ccd_benches::rigid::workloads;
use ccd_ca_rigid::{CaOptions, CastOptions, CastWorkspace, Collider, RigidPair, cast};
use parry3d_f64::query::cast_shapes_nonlinear;
use serde_json::json;

use crate::report::{Plot, SceneReport, Series};
use crate::scenes::SceneConfig;

/// Mean µs per call of `f`, repeated until `budget` has passed (at least `min` runs).
fn time_us<T>(budget: Duration, min: u32, mut f: impl FnMut() -> T) -> (f64, T) {
    let start = Instant::now();
    let mut n = 0u32;
    let mut last;
    loop {
        last = black_box(f());
        n += 1;
        if n >= min && start.elapsed() >= budget {
            break;
        }
    }
    (start.elapsed().as_secs_f64() * 1e6 / f64::from(n), last)
}

struct Row {
    name: &'static str,
    analytic: bool,
    ours_us: f64,
    iterations: u32,
    parry_us: Option<f64>,
    ours_toc: Option<f64>,
    parry_toc: Option<Option<f64>>,
    disagree: bool,
}

fn toc_text(t: Option<f64>) -> String {
    t.map_or("none".into(), |t| format!("{t:.6}"))
}

pub(crate) fn run(cfg: &SceneConfig, progress: &indicatif::ProgressBar) -> Result<SceneReport> {
    let opts = CaOptions::default();
    let eps = opts.tolerance;
    let budget = Duration::from_millis(if cfg.quick { 50 } else { 200 });
    let loads = workloads();
    progress.set_length(loads.len() as u64);
    let mut rows = Vec::new();
    for w in &loads {
        progress.set_message(w.name);
        let (ma, mb) = (w.ma.ours(), w.mb.ours());
        let (ca, cb) = (Collider::shape(w.a.clone())?, Collider::shape(w.b.clone())?);
        let pair = RigidPair { a: &ma, b: &mb };
        let cast_opts = CastOptions::from(opts);
        let mut ws = CastWorkspace::default();
        let (ours_us, ours) = time_us(budget, 3, || cast(&ca, &cb, &pair, &cast_opts, &mut ws));
        let ours = ours?;
        let (ours, ours_stats) = (ours.contact, ours.stats);
        let (qa, qb) = (w.ma.parry(), w.mb.parry());
        let cast = || {
            cast_shapes_nonlinear(&qa, w.pa.as_ref(), &qb, w.pb.as_ref(), 0.0, 1.0, true)
                .map(|h| h.map(|h| h.time_of_impact))
        };
        let parry = match w.parry_slow {
            None => None,
            Some(true) if cfg.quick => None,
            Some(true) => Some(time_us(Duration::ZERO, 1, cast)),
            Some(false) => Some(time_us(budget, 3, cast)),
        };
        let parry = match parry {
            Some((us, r)) => Some((us, r.map_err(|e| anyhow::anyhow!("parry: {e:?}"))?)),
            None => None,
        };
        let speed = w.speed_bound();
        let disagree = match (ours, parry.map(|p| p.1)) {
            (_, None) => false,
            (Some(o), Some(Some(p))) => o.toc - p > eps / speed + 1e-12,
            (None, Some(None)) => false,
            _ => true,
        };
        rows.push(Row {
            name: w.name,
            analytic: w.analytic,
            ours_us,
            iterations: ours_stats.iterations,
            parry_us: parry.map(|p| p.0),
            ours_toc: ours.map(|c| c.toc),
            parry_toc: parry.map(|p| p.1),
            disagree,
        });
        progress.inc(1);
    }
    let ratio = |r: &Row| r.parry_us.map(|p| p / r.ours_us);
    let disagreements = rows.iter().filter(|r| r.disagree).count();
    let compared = rows.iter().filter(|r| r.parry_toc.is_some()).count();
    let find = |prefix: &str| {
        rows.iter()
            .filter(|r| r.name.starts_with(prefix))
            .filter_map(ratio)
            .fold(f64::INFINITY, f64::min)
    };
    let (bb, cb) = (find("ball-ball"), find("capsule-box"));
    let analytic_min = rows
        .iter()
        .filter(|r| r.analytic)
        .filter_map(ratio)
        .fold(f64::INFINITY, f64::min);
    let met = |x: f64| if x >= 2.0 { "met" } else { "NOT met" };
    let headline = format!(
        "ball–ball {bb:.1}× and capsule–box {cb:.1}× faster than parry3d-f64 (slowest of each; target ≥ 2×: {} / {}); \
         every analytic pair ≥ {analytic_min:.1}×; {disagreements} disagreements beyond ε in {compared} compared queries{}",
        met(bb),
        met(cb),
        if cfg.quick {
            " (--quick: parry's mesh–mesh casts skipped)"
        } else {
            ""
        }
    );
    let xs: Vec<f64> = (1..=rows.len()).map(|i| i as f64).collect();
    let plot = Plot {
        file: "rigid-pairs.svg".into(),
        title: "Time per query, ours vs parry3d-f64".into(),
        x_label: "workload".into(),
        y_label: "µs per query (log)".into(),
        log_y: true,
        targets: Vec::new(),
        categories: rows.iter().map(|r| r.name.to_string()).collect(),
        series: vec![
            Series {
                name: "ours".into(),
                x: xs.clone(),
                y: rows.iter().map(|r| r.ours_us).collect(),
                band: None,
            },
            Series {
                name: "parry3d-f64 cast_shapes_nonlinear".into(),
                x: rows
                    .iter()
                    .zip(&xs)
                    .filter(|(r, _)| r.parry_us.is_some())
                    .map(|(_, x)| *x)
                    .collect(),
                y: rows.iter().filter_map(|r| r.parry_us).collect(),
                band: None,
            },
        ],
    };
    let summary = json!({
        "ball_ball_ratio": bb,
        "capsule_box_ratio": cb,
        "analytic_min_ratio": analytic_min,
        "disagreements": disagreements,
        "compared": compared,
        "rows": rows.iter().map(|r| json!({
            "pair": r.name,
            "analytic": r.analytic,
            "ours_us": r.ours_us,
            "iterations": r.iterations,
            "parry_us": r.parry_us,
            "ours_toc": r.ours_toc,
            "parry_toc": r.parry_toc,
            "disagree": r.disagree,
        })).collect::<Vec<_>>(),
    });
    Ok(SceneReport {
        name: "rigid-pairs".into(),
        paper: "Lin survey slides, C2A; issue 16".into(),
        description: format!(
            "single rigid pairs: the ccd-ca-rigid criterion workloads (meshes) and analytic pairs; ours = time_of_contact_shapes (ε = {eps}), parry = parry3d-f64 0.31 cast_shapes_nonlinear on the same shapes and NonlinearRigidMotions, timed in the same run (mean of repeated queries; parry's mesh–mesh casts once, skipped with --quick, not run on the 100K terrain); disagreement = different contact decision, or our TOC later than parry's by more than ε / speed bound"
        ),
        columns: [
            "pair",
            "ours µs",
            "iterations",
            "parry µs",
            "parry/ours",
            "ours toc",
            "parry toc",
            "toc diff",
            "agree",
        ]
        .map(String::from)
        .to_vec(),
        rows: rows
            .iter()
            .map(|r| {
                vec![
                    r.name.to_string(),
                    format!("{:.2}", r.ours_us),
                    r.iterations.to_string(),
                    r.parry_us.map_or("—".into(), |p| format!("{p:.2}")),
                    ratio(r).map_or("—".into(), |x| format!("{x:.1}")),
                    toc_text(r.ours_toc),
                    r.parry_toc.map_or("—".into(), toc_text),
                    match (r.ours_toc, r.parry_toc) {
                        (Some(o), Some(Some(p))) => format!("{:+.2e}", o - p),
                        _ => "—".into(),
                    },
                    match r.parry_toc {
                        None => "—".into(),
                        Some(_) if r.disagree => "NO".into(),
                        Some(_) => "yes".into(),
                    },
                ]
            })
            .collect(),
        headline,
        summary,
        plots: vec![plot],
    })
}
