//! Runs a deforming-mesh frame sequence through the LA scene query (`ccd-la-deformable`) and
//! reports it in the LA paper's Table I columns: global ToC and all ToCs per step, the worst
//! step, BVH build and refit times, culling counters, the cubic-coplanarity baseline on the
//! same frames, and the 2-thread global query.

use std::ops::Range;
use std::time::Instant;

use anyhow::{Context, Result};
use ccd_la_deformable::scene::{DeformingScene, Kernel, SceneOptions, SceneResult};
use ccd_la_deformable::{DeformingMesh, Mode, Status};
use glam::DVec3;
use serde_json::json;

use crate::report::{Plot, SceneReport, Series};
use crate::scenes::la_common::Animation;

/// One row of the LA paper's Table I (Q9450 2.66 GHz, one thread).
pub(crate) struct PaperRow {
    /// Triangle count as printed ("92K").
    pub(crate) tris: &'static str,
    /// Representative-triangle method (the LA paper's reference \[10\]; the paper's cubic-solver baseline), ms.
    pub(crate) rtri_ms: f64,
    /// LA, all ToCs, ms.
    pub(crate) all_ms: f64,
    /// LA, global ToC, ms.
    pub(crate) global_ms: f64,
}

/// What to run and what to print beside it.
pub(crate) struct LaSpec<'a> {
    pub(crate) name: &'a str,
    pub(crate) paper: &'a str,
    pub(crate) description: String,
    pub(crate) anim: &'a dyn Animation,
    /// The CCD steps `k → k + 1` to run, for `k` in this range.
    pub(crate) steps: Range<usize>,
    pub(crate) paper_row: Option<PaperRow>,
    /// Target for the single-thread global ToC, ms per step.
    pub(crate) target_global_ms: Option<f64>,
    /// Runs of each query per step (the fastest is kept).
    pub(crate) reps: usize,
}

/// Measurements of one CCD step.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub(crate) struct StepRecord {
    pub(crate) frame: usize,
    pub(crate) refit_ms: f64,
    pub(crate) global_ms: f64,
    pub(crate) all_ms: f64,
    pub(crate) cubic_ms: f64,
    /// The cubic kernel's all-ToCs query (same pipeline).
    pub(crate) cubic_all_ms: f64,
    /// The cubic kernel in a conventional pipeline (swept volumes only, no LA bounds).
    pub(crate) swept_cubic_ms: f64,
    pub(crate) parallel_ms: f64,
    /// The slowest repeat of each timed query (global, all, cubic, cubic all, swept cubic,
    /// 2 threads); the fields above hold the fastest.
    pub(crate) slowest_ms: [f64; 6],
    pub(crate) toc: Option<f64>,
    pub(crate) cubic_toc: Option<f64>,
    pub(crate) culled_bv_pairs: u64,
    pub(crate) bv_tests: u64,
    pub(crate) primitive_tests: u64,
    pub(crate) contacts: usize,
    /// Contacts of the all-ToCs query already within the tolerance at `t = 0`.
    pub(crate) initial_contacts: usize,
}

/// The measured sequence.
pub(crate) struct SequenceRecord {
    pub(crate) triangles: usize,
    pub(crate) build_ms: f64,
    pub(crate) steps: Vec<StepRecord>,
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

fn timed<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let t = Instant::now();
    let r = f();
    (r, ms(t))
}

/// The steps and repetitions of a procedural sequence of `frames` frames: every step once, or
/// with `quick` the two steps from `quick_step`, each query run three times (the fastest is
/// kept: two steps alone are noisy).
pub(crate) fn schedule(quick: bool, quick_step: usize, frames: usize) -> (Range<usize>, usize) {
    if quick {
        (quick_step..quick_step + 2, 3)
    } else {
        (0..frames - 1, 1)
    }
}

/// Options of the scenes every step runs on.
fn options(kernel: Kernel, parallel: bool) -> SceneOptions {
    SceneOptions::default()
        .with_kernel(kernel)
        .with_parallel(parallel)
}

/// The conventional pipeline of the paper's comparison: the cubic kernel, swept-volume
/// culling only (no LA bounds of moving volumes).
fn swept_cubic_options() -> SceneOptions {
    SceneOptions::default()
        .with_kernel(Kernel::CubicBaseline)
        .with_moving_bounds(false)
}

/// Builds the deforming meshes of one step.
pub(crate) fn meshes(
    topo: &[Vec<[u32; 3]>],
    f0: &[Vec<DVec3>],
    f1: &[Vec<DVec3>],
) -> Result<Vec<DeformingMesh>> {
    topo.iter()
        .zip(f0.iter().zip(f1))
        .enumerate()
        .map(|(m, (t, (a, b)))| {
            DeformingMesh::new(t.clone(), a.clone(), b.clone()).with_context(|| format!("mesh {m}"))
        })
        .collect()
}

/// Runs `steps` of `anim`: LA global and all ToCs, the cubic baseline (global) and the
/// 2-thread global query, each on its own scene refitted every step.
pub(crate) fn measure(
    anim: &dyn Animation,
    steps: Range<usize>,
    reps: usize,
    bar: &indicatif::ProgressBar,
) -> Result<SequenceRecord> {
    if steps.is_empty() || steps.end >= anim.frame_count() {
        anyhow::bail!(
            "steps {steps:?} need frames up to {}, the sequence has {}",
            steps.end,
            anim.frame_count()
        );
    }
    let topo = anim.topology();
    let triangles = topo.iter().map(Vec::len).sum();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .context("building a 2-thread pool")?;
    let mut f0 = anim.frame(steps.start);
    let mut f1 = anim.frame(steps.start + 1);
    let start_meshes = meshes(&topo, &f0, &f1)?;
    let (la, build_ms) = timed(|| {
        DeformingScene::new(
            start_meshes.clone(),
            &options(Kernel::LocalAdvancement, false),
        )
    });
    let mut la = la.context("building the LA scene")?;
    let mut cubic =
        DeformingScene::new(start_meshes.clone(), &options(Kernel::CubicBaseline, false))
            .context("building the cubic-baseline scene")?;
    let mut swept = DeformingScene::new(start_meshes.clone(), &swept_cubic_options())
        .context("building the swept-volume cubic scene")?;
    let mut par = DeformingScene::new(start_meshes, &options(Kernel::LocalAdvancement, true))
        .context("building the parallel scene")?;
    bar.set_length(steps.len() as u64);
    let mut records = Vec::with_capacity(steps.len());
    for k in steps.clone() {
        let mut rec = StepRecord {
            frame: k,
            ..StepRecord::default()
        };
        if k > steps.start {
            f0 = std::mem::take(&mut f1);
            f1 = anim.frame(k + 1);
            // copies made outside the timed refit
            let copies: Vec<(Vec<DVec3>, Vec<DVec3>)> =
                f0.iter().cloned().zip(f1.iter().cloned()).collect();
            let t = Instant::now();
            for (m, (a, b)) in copies.into_iter().enumerate() {
                la.update(m, a, b)
                    .with_context(|| format!("refitting mesh {m} at frame {k}"))?;
            }
            rec.refit_ms = ms(t);
            for (m, (a, b)) in f0.iter().zip(&f1).enumerate() {
                cubic.update(m, a.clone(), b.clone())?;
                swept.update(m, a.clone(), b.clone())?;
                par.update(m, a.clone(), b.clone())?;
            }
        }
        let mut slowest = rec.slowest_ms.iter_mut();
        let mut best = |f: &mut dyn FnMut() -> SceneResult| -> (SceneResult, f64) {
            let mut out = None;
            let (mut best, mut worst) = (f64::INFINITY, 0.0f64);
            for _ in 0..reps.max(1) {
                let (r, t) = timed(&mut *f);
                best = best.min(t);
                worst = worst.max(t);
                out = Some(r);
            }
            if let Some(w) = slowest.next() {
                *w = worst;
            }
            (out.expect("at least one repetition"), best)
        };
        let (global, t_global) = best(&mut || la.query(Mode::Toc));
        let (all, t_all) = best(&mut || la.query(Mode::All));
        let (cub, t_cubic) = best(&mut || cubic.query(Mode::Toc));
        let (_, t_cubic_all) = best(&mut || cubic.query(Mode::All));
        let (_, t_swept) = best(&mut || swept.query(Mode::Toc));
        let (_, t_par) = best(&mut || pool.install(|| par.query(Mode::Toc)));
        rec.global_ms = t_global;
        rec.all_ms = t_all;
        rec.cubic_ms = t_cubic;
        rec.cubic_all_ms = t_cubic_all;
        rec.swept_cubic_ms = t_swept;
        rec.parallel_ms = t_par;
        rec.toc = global.toc();
        rec.cubic_toc = cub.toc();
        rec.culled_bv_pairs = global.stats.culled_bv_pairs;
        rec.bv_tests = global.stats.bv_tests;
        rec.primitive_tests = global.stats.primitive_tests;
        rec.contacts = all.contacts.len();
        rec.initial_contacts = all
            .contacts
            .iter()
            .filter(|c| c.status == Status::InitiallyTouching)
            .count();
        records.push(rec);
        bar.inc(1);
    }
    Ok(SequenceRecord {
        triangles,
        build_ms,
        steps: records,
    })
}

fn mean(xs: impl Iterator<Item = f64>) -> f64 {
    let (s, n) = xs.fold((0.0, 0usize), |(s, n), x| (s + x, n + 1));
    if n == 0 { f64::NAN } else { s / n as f64 }
}

/// Averages of a measured sequence, as table cells and JSON.
pub(crate) struct Averages {
    pub(crate) global_ms: f64,
    pub(crate) all_ms: f64,
    pub(crate) worst_ms: f64,
    pub(crate) refit_ms: f64,
    pub(crate) cubic_ms: f64,
    pub(crate) cubic_all_ms: f64,
    pub(crate) swept_cubic_ms: f64,
    pub(crate) parallel_ms: f64,
    pub(crate) culled: f64,
    pub(crate) primitive_tests: f64,
    pub(crate) contacts: f64,
    pub(crate) steps_with_contact: usize,
}

impl SequenceRecord {
    /// Per-step averages (refit over the steps that refitted).
    pub(crate) fn averages(&self) -> Averages {
        let s = &self.steps;
        Averages {
            global_ms: mean(s.iter().map(|r| r.global_ms)),
            all_ms: mean(s.iter().map(|r| r.all_ms)),
            worst_ms: s.iter().map(|r| r.global_ms).fold(0.0, f64::max),
            refit_ms: mean(s.iter().skip(1).map(|r| r.refit_ms)),
            cubic_ms: mean(s.iter().map(|r| r.cubic_ms)),
            cubic_all_ms: mean(s.iter().map(|r| r.cubic_all_ms)),
            swept_cubic_ms: mean(s.iter().map(|r| r.swept_cubic_ms)),
            parallel_ms: mean(s.iter().map(|r| r.parallel_ms)),
            culled: mean(s.iter().map(|r| r.culled_bv_pairs as f64)),
            primitive_tests: mean(s.iter().map(|r| r.primitive_tests as f64)),
            contacts: mean(s.iter().map(|r| r.contacts as f64)),
            steps_with_contact: s.iter().filter(|r| r.toc.is_some()).count(),
        }
    }
}

/// What the columns of the LA tables mean.
pub(crate) const COLUMN_NOTE: &str = "Times are per CCD step (average; worst = slowest global query), single-threaded except 2-thr (SceneOptions.parallel in a 2-thread rayon pool); culled BV pairs and prim tests count the global query; contacts = colliding VF/EE pairs of the all-ToCs query; cubic = the same global query with Kernel::CubicBaseline (same pipeline, only the elementary test differs), cubic all = its all-ToCs query; swept cubic = the cubic kernel in a conventional pipeline, swept-volume culling only (SceneOptions.moving_bounds off), the setting of the paper's comparison (its R-Tri column, a cubic-solver baseline, stands there)";

/// Column names of the LA tables.
pub(crate) fn columns(first: &str) -> Vec<String> {
    [
        first,
        "tris",
        "steps",
        "global ms",
        "all ms",
        "worst ms",
        "build ms",
        "refit ms",
        "culled BV pairs",
        "prim tests",
        "contacts",
        "cubic ms",
        "cubic/LA",
        "cubic all ms",
        "cubic/LA all",
        "swept cubic ms",
        "swept/LA",
        "2-thr ms",
        "1/2-thr",
    ]
    .map(String::from)
    .to_vec()
}

/// Formats a millisecond value.
pub(crate) fn fmt_ms(x: f64) -> String {
    if !x.is_finite() {
        "—".into()
    } else if x < 0.1 {
        // the planning steps of LA Table II take microseconds
        format!("{x:.3}")
    } else if x < 10.0 {
        format!("{x:.2}")
    } else {
        format!("{x:.1}")
    }
}

fn fmt_count(x: f64) -> String {
    if x >= 1e6 {
        format!("{:.2}M", x / 1e6)
    } else if x >= 1e4 {
        format!("{:.1}K", x / 1e3)
    } else {
        format!("{x:.0}")
    }
}

/// Our row of an LA table.
pub(crate) fn our_row(label: &str, rec: &SequenceRecord) -> Vec<String> {
    let a = rec.averages();
    vec![
        label.to_string(),
        rec.triangles.to_string(),
        rec.steps.len().to_string(),
        fmt_ms(a.global_ms),
        fmt_ms(a.all_ms),
        fmt_ms(a.worst_ms),
        fmt_ms(rec.build_ms),
        fmt_ms(a.refit_ms),
        fmt_count(a.culled),
        fmt_count(a.primitive_tests),
        format!("{:.1}", a.contacts),
        fmt_ms(a.cubic_ms),
        format!("{:.2}", a.cubic_ms / a.global_ms),
        fmt_ms(a.cubic_all_ms),
        format!("{:.2}", a.cubic_all_ms / a.all_ms),
        fmt_ms(a.swept_cubic_ms),
        format!("{:.2}", a.swept_cubic_ms / a.global_ms),
        fmt_ms(a.parallel_ms),
        format!("{:.2}", a.global_ms / a.parallel_ms),
    ]
}

/// Machine-readable summary of a measured sequence.
pub(crate) fn summary(rec: &SequenceRecord) -> serde_json::Value {
    let a = rec.averages();
    json!({
        "triangles": rec.triangles,
        "steps": rec.steps.len(),
        "steps_with_contact": a.steps_with_contact,
        "global_ms": a.global_ms,
        "all_ms": a.all_ms,
        "worst_global_ms": a.worst_ms,
        "build_ms": rec.build_ms,
        "refit_ms": a.refit_ms,
        "culled_bv_pairs": a.culled,
        "primitive_tests": a.primitive_tests,
        "contacts_all": a.contacts,
        "cubic_global_ms": a.cubic_ms,
        "cubic_over_la": a.cubic_ms / a.global_ms,
        "cubic_all_ms": a.cubic_all_ms,
        "cubic_all_over_la_all": a.cubic_all_ms / a.all_ms,
        "swept_cubic_global_ms": a.swept_cubic_ms,
        "swept_cubic_over_la": a.swept_cubic_ms / a.global_ms,
        "parallel2_global_ms": a.parallel_ms,
        "speedup_2_threads": a.global_ms / a.parallel_ms,
        "per_step": rec.steps,
    })
}

/// Runs a procedural scene and builds its report.
pub(crate) fn run_spec(spec: &LaSpec<'_>, bar: &indicatif::ProgressBar) -> Result<SceneReport> {
    let rec = measure(spec.anim, spec.steps.clone(), spec.reps, bar)?;
    let a = rec.averages();
    let mut rows = vec![our_row("ours (LA)", &rec)];
    let dash = || "—".to_string();
    if let Some(p) = &spec.paper_row {
        let mut row = vec![dash(); 19];
        row[0] = "paper (Q9450, 1 thr)".into();
        row[1] = p.tris.into();
        row[3] = fmt_ms(p.global_ms);
        row[4] = fmt_ms(p.all_ms);
        row[15] = format!("{} (R-Tri)", fmt_ms(p.rtri_ms));
        row[16] = format!("{:.2}", p.rtri_ms / p.global_ms);
        rows.push(row);
    }
    let mut target = vec![dash(); 19];
    target[0] = "target".into();
    if let Some(t) = spec.target_global_ms {
        target[3] = format!("≤ {t:.0}");
    }
    target[12] = "≥ 1.30".into();
    target[16] = "≥ 1.30".into();
    rows.push(target);
    let verdict = |ok: bool| if ok { "met" } else { "NOT met" };
    let ratio = a.cubic_ms / a.global_ms;
    let swept_ratio = a.swept_cubic_ms / a.global_ms;
    let headline = format!(
        "{}: global ToC {} ms/step single-threaded{}; LA {:.2}× the cubic baseline in the same pipeline, {:.2}× the cubic kernel in a swept-volume pipeline (target ≥ 1.3×: {} / {}); all ToCs {:.2}× the cubic in the same pipeline; 2 threads {:.2}×; {}/{} steps with a contact ({} already touching at t = 0)",
        spec.name,
        fmt_ms(a.global_ms),
        spec.target_global_ms.map_or(String::new(), |t| format!(
            " (target ≤ {t:.0} ms: {})",
            verdict(a.global_ms <= t)
        )),
        ratio,
        swept_ratio,
        verdict(ratio >= 1.3),
        verdict(swept_ratio >= 1.3),
        a.cubic_all_ms / a.all_ms,
        a.global_ms / a.parallel_ms,
        a.steps_with_contact,
        rec.steps.len(),
        rec.steps.iter().filter(|r| r.toc == Some(0.0)).count(),
    );
    let xs: Vec<f64> = rec.steps.iter().map(|r| r.frame as f64).collect();
    // short runs repeat each query (`spec.reps`): the band spans the fastest to the slowest
    let series = |name: &str, i: usize, f: fn(&StepRecord) -> f64| Series {
        name: name.into(),
        x: xs.clone(),
        y: rec.steps.iter().map(f).collect(),
        band: (spec.reps > 1).then(|| {
            (
                rec.steps.iter().map(f).collect(),
                rec.steps.iter().map(|r| r.slowest_ms[i]).collect(),
            )
        }),
    };
    Ok(SceneReport {
        name: spec.name.into(),
        paper: spec.paper.into(),
        description: format!("{}. {COLUMN_NOTE}", spec.description),
        columns: columns("run"),
        rows,
        headline,
        summary: summary(&rec),
        plots: vec![Plot {
            file: format!("{}.svg", spec.name),
            title: format!("{}: CCD time per step ({})", spec.name, spec.paper),
            x_label: "frame".into(),
            y_label: "ms per step".into(),
            log_y: false,
            targets: spec
                .target_global_ms
                .map(|t| crate::report::TargetLine {
                    label: format!("target: LA global ToC ≤ {t} ms"),
                    y: t,
                })
                .into_iter()
                .collect(),
            categories: Vec::new(),
            series: vec![
                series("LA global ToC", 0, |r| r.global_ms),
                series("LA all ToCs", 1, |r| r.all_ms),
                series("cubic baseline global", 2, |r| r.cubic_ms),
                series("cubic baseline all ToCs", 3, |r| r.cubic_all_ms),
                series("swept-volume cubic global", 4, |r| r.swept_cubic_ms),
                series("LA global, 2 threads", 5, |r| r.parallel_ms),
            ],
        }],
    })
}

/// One row of the LA paper's Table II (Q9450 2.66 GHz, one thread): the
/// representative-triangle method (R-Tri) and LA, Boolean answer and global ToC, ms.
pub(crate) struct PlanPaperRow {
    /// Triangle count as printed ("636").
    pub(crate) tris: &'static str,
    pub(crate) rtri_boolean_ms: f64,
    pub(crate) rtri_toc_ms: f64,
    pub(crate) boolean_ms: f64,
    pub(crate) toc_ms: f64,
}

/// A motion-planning scene of Table II: a deforming robot (mesh 0) moved along a planned
/// path among deforming obstacles (mesh 1, one mesh of several pieces). Only robot–obstacle
/// pairs are tested (self-collision off for both meshes): the planner's question.
pub(crate) struct PlanSpec<'a> {
    pub(crate) name: &'a str,
    pub(crate) paper: &'a str,
    pub(crate) description: String,
    pub(crate) anim: &'a dyn Animation,
    pub(crate) steps: Range<usize>,
    pub(crate) paper_row: PlanPaperRow,
    /// Runs of each query per step (the fastest is kept).
    pub(crate) reps: usize,
}

/// Measurements of one path step.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub(crate) struct PlanStep {
    pub(crate) frame: usize,
    /// LA Boolean, LA global ToC, cubic Boolean, cubic global ToC (same pipeline), cubic
    /// Boolean and global ToC in the swept-volume pipeline (fastest repeat), ms.
    pub(crate) ms: [f64; 6],
    /// The slowest repeat of each.
    pub(crate) slowest_ms: [f64; 6],
    pub(crate) hit: bool,
    pub(crate) cubic_hit: bool,
    pub(crate) swept_hit: bool,
    pub(crate) toc: Option<f64>,
    pub(crate) cubic_toc: Option<f64>,
    pub(crate) swept_toc: Option<f64>,
}

/// Largest difference allowed between the LA and cubic global ToCs of a step. Both are
/// conservative and report a pair once it is within the tolerance (1e-6) of touching,
/// which a slow grazing approach reaches well before the touch (1.3e-3 apart on a grazing
/// step of `deformable-bar`): the check asks for the same contact, not for equal digits.
pub(crate) const PLAN_TOC_AGREEMENT: f64 = 1e-2;

/// The scene options of the planning queries: only pairs of different meshes.
fn plan_options(kernel: Kernel) -> SceneOptions {
    SceneOptions::default()
        .with_kernel(kernel)
        .with_self_collision(false)
}

/// Brute force over every robot–obstacle feature pair of one step (LA kernel): whether any
/// collides and the earliest ToC.
fn plan_brute(
    topo: &[Vec<[u32; 3]>],
    f0: &[Vec<DVec3>],
    f1: &[Vec<DVec3>],
) -> Result<(bool, Option<f64>)> {
    let ms = meshes(topo, f0, f1)?;
    let all = ccd_la_deformable::scene::brute_force(
        &ms,
        &plan_options(Kernel::LocalAdvancement),
        Mode::All,
    )?;
    let toc = all
        .contacts
        .iter()
        .filter(|c| c.mesh_a != c.mesh_b)
        .map(|c| c.toc)
        .reduce(f64::min);
    Ok((toc.is_some(), toc))
}

/// Runs a planning path: per step the LA and cubic-baseline scenes (same pipeline), each
/// in Boolean and global-ToC mode; checks that the answers agree (Boolean identical, ToCs
/// within [`PLAN_TOC_AGREEMENT`]) and that brute force agrees on the first step with a
/// contact and the first without one.
pub(crate) fn run_plan(spec: &PlanSpec<'_>, bar: &indicatif::ProgressBar) -> Result<SceneReport> {
    let anim = spec.anim;
    let steps = spec.steps.clone();
    if steps.is_empty() || steps.end >= anim.frame_count() {
        anyhow::bail!(
            "steps {steps:?} need frames up to {}, the path has {}",
            steps.end,
            anim.frame_count()
        );
    }
    let topo = anim.topology();
    let triangles: usize = topo.iter().map(Vec::len).sum();
    let mut f0 = anim.frame(steps.start);
    let mut f1 = anim.frame(steps.start + 1);
    let start = meshes(&topo, &f0, &f1)?;
    let mut la = DeformingScene::new(start.clone(), &plan_options(Kernel::LocalAdvancement))
        .context("building the LA scene")?;
    let mut cubic = DeformingScene::new(start.clone(), &plan_options(Kernel::CubicBaseline))
        .context("building the cubic-baseline scene")?;
    // the paper's setting: the cubic in a conventional swept-volume pipeline (no
    // local-advancement bounds on node and feature pairs), as R-Tri culls
    let mut swept = DeformingScene::new(
        start,
        &plan_options(Kernel::CubicBaseline).with_moving_bounds(false),
    )
    .context("building the swept-volume cubic scene")?;
    bar.set_length(steps.len() as u64);
    let mut recs = Vec::with_capacity(steps.len());
    let mut frames = Vec::with_capacity(steps.len());
    for k in steps.clone() {
        if k > steps.start {
            f0 = std::mem::take(&mut f1);
            f1 = anim.frame(k + 1);
            for (m, (a, b)) in f0.iter().zip(&f1).enumerate() {
                la.update(m, a.clone(), b.clone())?;
                cubic.update(m, a.clone(), b.clone())?;
                swept.update(m, a.clone(), b.clone())?;
            }
        }
        let mut rec = PlanStep {
            frame: k,
            ..PlanStep::default()
        };
        let mut results = Vec::with_capacity(6);
        for (i, (scene, mode)) in [
            (&la, Mode::Boolean),
            (&la, Mode::Toc),
            (&cubic, Mode::Boolean),
            (&cubic, Mode::Toc),
            (&swept, Mode::Boolean),
            (&swept, Mode::Toc),
        ]
        .into_iter()
        .enumerate()
        {
            let (mut best, mut worst, mut out) = (f64::INFINITY, 0.0f64, None);
            for _ in 0..spec.reps.max(1) {
                let (r, t) = timed(|| scene.query(mode));
                best = best.min(t);
                worst = worst.max(t);
                out = Some(r);
            }
            rec.ms[i] = best;
            rec.slowest_ms[i] = worst;
            results.push(out.unwrap_or_default());
        }
        rec.hit = !results[0].contacts.is_empty();
        rec.toc = results[1].toc();
        rec.cubic_hit = !results[2].contacts.is_empty();
        rec.cubic_toc = results[3].toc();
        rec.swept_hit = !results[4].contacts.is_empty();
        rec.swept_toc = results[5].toc();
        frames.push((f0.clone(), f1.clone()));
        recs.push(rec);
        bar.inc(1);
    }
    // the checks
    let mut problems = Vec::new();
    let mut max_diff = 0.0f64;
    for r in &recs {
        if r.hit != r.cubic_hit
            || r.hit != r.swept_hit
            || r.hit != r.toc.is_some()
            || r.cubic_hit != r.cubic_toc.is_some()
            || r.swept_hit != r.swept_toc.is_some()
        {
            problems.push(format!(
                "step {}: Boolean LA {} / cubic {} / swept-volume cubic {}, ToC LA {:?} / cubic {:?} / swept-volume cubic {:?}",
                r.frame, r.hit, r.cubic_hit, r.swept_hit, r.toc, r.cubic_toc, r.swept_toc
            ));
        }
        for other in [r.cubic_toc, r.swept_toc] {
            if let (Some(a), Some(b)) = (r.toc, other) {
                max_diff = max_diff.max((a - b).abs());
            }
        }
    }
    if max_diff > PLAN_TOC_AGREEMENT {
        problems.push(format!(
            "LA and cubic ToCs differ by {max_diff:.2e} (> {PLAN_TOC_AGREEMENT:e})"
        ));
    }
    let mut brute = Vec::new();
    for want in [true, false] {
        if let Some(i) = recs.iter().position(|r| r.hit == want) {
            let (b0, b1) = &frames[i];
            let (hit, toc) = plan_brute(&topo, b0, b1)?;
            let r = &recs[i];
            let ok = hit == r.hit
                && match (toc, r.toc) {
                    (None, None) => true,
                    (Some(a), Some(b)) => (a - b).abs() <= 1e-9,
                    _ => false,
                };
            if !ok {
                problems.push(format!(
                    "step {}: brute force {hit} / {toc:?}, scene {} / {:?}",
                    r.frame, r.hit, r.toc
                ));
            }
            brute.push(json!({ "frame": r.frame, "hit": hit, "toc": toc, "agree": ok }));
        }
    }
    if !problems.is_empty() {
        anyhow::bail!("{}: answers disagree: {}", spec.name, problems.join("; "));
    }
    let n = recs.len() as f64;
    let avg = |i: usize| recs.iter().map(|r| r.ms[i]).sum::<f64>() / n;
    let (b, t, cb, ct, sb, st) = (avg(0), avg(1), avg(2), avg(3), avg(4), avg(5));
    let hits = recs.iter().filter(|r| r.hit).count();
    let p = &spec.paper_row;
    let dash = || "—".to_string();
    let rows = vec![
        vec![
            "ours (LA; cubic in the same and in a swept-volume pipeline)".into(),
            triangles.to_string(),
            recs.len().to_string(),
            hits.to_string(),
            fmt_ms(b),
            fmt_ms(t),
            fmt_ms(cb),
            fmt_ms(ct),
            format!("{:.2}", cb / b),
            format!("{:.2}", ct / t),
            fmt_ms(sb),
            fmt_ms(st),
            format!("{:.2}", sb / b),
            format!("{:.2}", st / t),
        ],
        vec![
            "paper (Q9450, 1 thr; R-Tri as baseline)".into(),
            p.tris.into(),
            dash(),
            dash(),
            fmt_ms(p.boolean_ms),
            fmt_ms(p.toc_ms),
            fmt_ms(p.rtri_boolean_ms),
            fmt_ms(p.rtri_toc_ms),
            format!("{:.2}", p.rtri_boolean_ms / p.boolean_ms),
            format!("{:.2}", p.rtri_toc_ms / p.toc_ms),
            dash(),
            dash(),
            dash(),
            dash(),
        ],
        vec![
            "target".into(),
            dash(),
            dash(),
            dash(),
            dash(),
            dash(),
            dash(),
            dash(),
            "≥ 1.40".into(),
            dash(),
            dash(),
            dash(),
            dash(),
            dash(),
        ],
    ];
    let met = if cb / b >= 1.4 { "met" } else { "NOT met" };
    let headline = format!(
        "{}: Boolean {} ms, global ToC {} ms per path step (1 thread); target Boolean ≥ 1.4× the cubic baseline in the same pipeline: {:.2}× ({met}); ToC {:.2}×; against the cubic in a swept-volume pipeline (the paper's setting) Boolean {:.2}×, ToC {:.2}× (paper, against R-Tri: {:.2}× / {:.2}×); {hits}/{} steps collide; answers agree (Boolean identical on every step, ToCs within {:.1e}, brute force on {} step(s))",
        spec.name,
        fmt_ms(b),
        fmt_ms(t),
        cb / b,
        ct / t,
        sb / b,
        st / t,
        p.rtri_boolean_ms / p.boolean_ms,
        p.rtri_toc_ms / p.toc_ms,
        recs.len(),
        max_diff,
        brute.len(),
    );
    let xs: Vec<f64> = recs.iter().map(|r| r.frame as f64).collect();
    let series = |name: &str, i: usize| Series {
        name: name.into(),
        x: xs.clone(),
        y: recs.iter().map(|r| r.ms[i]).collect(),
        band: (spec.reps > 1).then(|| {
            (
                recs.iter().map(|r| r.ms[i]).collect(),
                recs.iter().map(|r| r.slowest_ms[i]).collect(),
            )
        }),
    };
    Ok(SceneReport {
        name: spec.name.into(),
        paper: spec.paper.into(),
        description: format!(
            "{}. Times are per path step (average over the steps, fastest of {} runs each, 1 thread); Boolean = is the step collision-free (Mode::Boolean), ToC = global time of contact (Mode::Toc); cubic = the same queries with Kernel::CubicBaseline in the same pipeline (only the elementary test differs); swept = the cubic in a swept-volume pipeline (SceneOptions::with_moving_bounds(false): node and feature pairs culled by swept-volume overlap only, the setting of the paper's baseline, the representative-triangle method R-Tri); only robot–obstacle pairs are tested",
            spec.description,
            spec.reps.max(1)
        ),
        columns: [
            "run",
            "tris",
            "steps",
            "steps with contact",
            "Boolean ms",
            "ToC ms",
            "cubic Boolean ms",
            "cubic ToC ms",
            "cubic/LA Boolean",
            "cubic/LA ToC",
            "swept Boolean ms",
            "swept ToC ms",
            "swept/LA Boolean",
            "swept/LA ToC",
        ]
        .map(String::from)
        .to_vec(),
        rows,
        headline,
        summary: json!({
            "triangles": triangles,
            "steps": recs.len(),
            "steps_with_contact": hits,
            "boolean_ms": b,
            "toc_ms": t,
            "cubic_boolean_ms": cb,
            "cubic_toc_ms": ct,
            "cubic_over_la_boolean": cb / b,
            "cubic_over_la_toc": ct / t,
            "swept_cubic_boolean_ms": sb,
            "swept_cubic_toc_ms": st,
            "swept_cubic_over_la_boolean": sb / b,
            "swept_cubic_over_la_toc": st / t,
            "paper": {
                "triangles": p.tris,
                "rtri_boolean_ms": p.rtri_boolean_ms,
                "rtri_toc_ms": p.rtri_toc_ms,
                "boolean_ms": p.boolean_ms,
                "toc_ms": p.toc_ms,
            },
            "max_toc_difference": max_diff,
            "brute_force": brute,
            "per_step": recs,
        }),
        plots: vec![Plot {
            file: format!("{}.svg", spec.name),
            title: format!("{}: CCD time per path step ({})", spec.name, spec.paper),
            x_label: "frame".into(),
            y_label: "ms per step".into(),
            // the swept-volume ToC is 10× the others on its busy steps
            log_y: true,
            targets: Vec::new(),
            categories: Vec::new(),
            series: vec![
                series("LA Boolean", 0),
                series("LA global ToC", 1),
                series("cubic baseline Boolean", 2),
                series("cubic baseline global ToC", 3),
                series("cubic, swept-volume pipeline, Boolean", 4),
                series("cubic, swept-volume pipeline, global ToC", 5),
            ],
        }],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A static triangle and a triangle falling through it: contact at t = 0.5 of step 0,
    /// none in step 1 (the falling one is below by then).
    struct Falling;

    impl Animation for Falling {
        fn topology(&self) -> Vec<Vec<[u32; 3]>> {
            vec![vec![[0, 1, 2]], vec![[0, 1, 2]]]
        }

        fn frame_count(&self) -> usize {
            3
        }

        fn frame(&self, k: usize) -> Vec<Vec<DVec3>> {
            let tri = [DVec3::ZERO, DVec3::X, DVec3::Z];
            let z = 1.0 - 2.0 * k as f64;
            let moving = tri
                .iter()
                .map(|p| DVec3::new(p.x + 0.1, z, p.z + 0.1))
                .collect();
            vec![tri.to_vec(), moving]
        }
    }

    #[test]
    fn measure_finds_the_contact_in_the_right_step_with_every_kernel() {
        let bar = indicatif::ProgressBar::hidden();
        let rec = measure(&Falling, 0..2, 1, &bar).unwrap();
        assert_eq!(rec.triangles, 2);
        assert_eq!(rec.steps.len(), 2);
        let (s0, s1) = (&rec.steps[0], &rec.steps[1]);
        let toc = s0.toc.unwrap();
        assert!(toc <= 0.5 && toc > 0.5 - 1e-4, "toc {toc}");
        let cubic = s0.cubic_toc.unwrap();
        assert!(cubic <= 0.5 && cubic > 0.5 - 1e-4, "cubic toc {cubic}");
        assert!(s0.contacts >= 1 && s0.initial_contacts == 0);
        assert!(s1.toc.is_none() && s1.contacts == 0);
        let a = rec.averages();
        assert_eq!(a.steps_with_contact, 1);
        assert_eq!(our_row("x", &rec).len(), columns("run").len());
        // a range past the last frame is an error, not a panic
        assert!(measure(&Falling, 1..3, 1, &bar).is_err());
    }
}
