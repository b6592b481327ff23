//! Running a CATCH workload: every step queried with the default options (Taylor models,
//! temporal culling), with interval arithmetic, and without temporal culling; the columns
//! of CATCH Tables 1–2 per variant, a time-per-step plot, and target verdicts.

use anyhow::Result;
use ccd_ca_articulated::{
    ArticulatedScene, ArticulatedStats, ArticulatedWorkspace, BodyStep, EnclosureKind, Mode,
    QueryOptions, QueryResult,
};
use ccd_kinematics::Pose;
use serde_json::json;

use crate::clock::Stopwatch;
use crate::report::{Plot, SceneReport, Series};

/// How the bodies move, step by step.
pub(crate) enum Motion {
    /// Per body, a pose per frame; step `k` goes from frame `k·stride` to `(k+1)·stride`.
    Frames {
        /// `frames[body][frame]`.
        frames: Vec<Vec<Pose>>,
        /// First frame.
        start: usize,
        /// Frames per step.
        stride: usize,
        /// Number of steps to run.
        steps: usize,
    },
    /// One body; step `k` is the joint-space edge `edges[k]`.
    Edges(Vec<(Vec<f64>, Vec<f64>)>),
}

impl Motion {
    /// Steps to run.
    pub(crate) fn len(&self) -> usize {
        match self {
            Motion::Frames { steps, .. } => *steps,
            Motion::Edges(e) => e.len(),
        }
    }

    pub(crate) fn with_step<R>(&self, k: usize, f: impl FnOnce(&[BodyStep<'_>]) -> R) -> R {
        match self {
            Motion::Frames {
                frames,
                start,
                stride,
                ..
            } => {
                let (a, b) = (start + k * stride, start + (k + 1) * stride);
                let steps: Vec<BodyStep<'_>> = frames
                    .iter()
                    .map(|fr| BodyStep::Poses {
                        p0: &fr[a],
                        p1: &fr[b],
                    })
                    .collect();
                f(&steps)
            }
            Motion::Edges(e) => f(&[BodyStep::Joints {
                q0: &e[k].0,
                q1: &e[k].1,
            }]),
        }
    }
}

/// A query variant (a row group of the table).
#[derive(Clone, Copy)]
pub(crate) struct Variant {
    pub(crate) label: &'static str,
    pub(crate) opts: QueryOptions,
}

/// Default, interval-arithmetic and no-temporal-culling variants in `mode`.
pub(crate) fn variants(mode: Mode) -> [Variant; 3] {
    let base = QueryOptions::default().with_mode(mode);
    [
        Variant {
            label: "Taylor + temporal",
            opts: base,
        },
        Variant {
            label: "interval + temporal",
            opts: base.with_enclosure(EnclosureKind::Interval),
        },
        Variant {
            label: "Taylor, no temporal",
            opts: base.with_temporal_culling(false),
        },
    ]
}

/// Per-step measurements of one variant.
pub(crate) struct Measured {
    pub(crate) label: String,
    /// CPU milliseconds per step of the querying thread (the fastest repeat when a short
    /// motion is repeated): T_a and the other time columns.
    pub(crate) ms: Vec<f64>,
    /// Wall-clock milliseconds per step (of the same repeat as `ms`).
    pub(crate) wall_ms: Vec<f64>,
    /// The slowest repeat per step (equal to `ms` without repeats).
    pub(crate) ms_slowest: Vec<f64>,
    /// Time of contact per step (`None`: free).
    pub(crate) toc: Vec<Option<f64>>,
    /// Distance at the reported contact per step (`None`: free).
    pub(crate) distance: Vec<Option<f64>>,
    /// The query's tolerance ε.
    pub(crate) tolerance: f64,
    /// Counters per step.
    pub(crate) stats: Vec<ArticulatedStats>,
}

impl Measured {
    pub(crate) fn mean(v: impl Iterator<Item = f64>) -> f64 {
        let (s, n) = v.fold((0.0, 0usize), |(s, n), x| (s + x, n + 1));
        if n == 0 { f64::NAN } else { s / n as f64 }
    }

    /// T_a, T_f, T_c, T_w in ms.
    pub(crate) fn table1(&self) -> [f64; 4] {
        let free = self
            .ms
            .iter()
            .zip(&self.toc)
            .filter(|(_, t)| t.is_none())
            .map(|(m, _)| *m);
        let coll = self
            .ms
            .iter()
            .zip(&self.toc)
            .filter(|(_, t)| t.is_some())
            .map(|(m, _)| *m);
        [
            Self::mean(self.ms.iter().copied()),
            Self::mean(free),
            Self::mean(coll),
            self.ms.iter().copied().fold(0.0, f64::max),
        ]
    }

    /// Mean PCLs before, after spatial, after temporal culling, and CA iterations.
    pub(crate) fn table2(&self) -> [f64; 4] {
        let m =
            |f: fn(&ArticulatedStats) -> u64| Self::mean(self.stats.iter().map(|s| f(s) as f64));
        [
            m(|s| s.pairs_before),
            m(|s| s.pairs_after_spatial),
            m(|s| s.pairs_after_temporal),
            m(|s| s.ca_iterations + s.hull_iterations),
        ]
    }

    /// Spatial and temporal culling ratios (CATCH Table 2: `1 − after/before`).
    pub(crate) fn culling(&self) -> (f64, f64) {
        let [b, s, t, _] = self.table2();
        (1.0 - s / b, if s > 0.0 { 1.0 - t / s } else { f64::NAN })
    }

    pub(crate) fn collisions(&self) -> usize {
        self.toc.iter().filter(|t| t.is_some()).count()
    }
}

/// Runs every step of `motion` with `variant`, single-threaded, timing each query.
/// Motions of at most this many steps are timed [`REPEATS`] times per step.
const SHORT_MOTION: usize = 64;
/// Repeats per step of a short motion.
const REPEATS: usize = 3;

pub(crate) fn measure(
    scene: &ArticulatedScene,
    motion: &Motion,
    variant: &Variant,
    bar: &indicatif::ProgressBar,
) -> Result<Measured> {
    let (mut ws, mut out) = (ArticulatedWorkspace::default(), QueryResult::default());
    let n = motion.len();
    let mut m = Measured {
        label: variant.label.into(),
        ms: Vec::with_capacity(n),
        wall_ms: Vec::with_capacity(n),
        ms_slowest: Vec::with_capacity(n),
        toc: Vec::with_capacity(n),
        distance: Vec::with_capacity(n),
        tolerance: variant.opts.tolerance,
        stats: Vec::with_capacity(n),
    };
    // a short motion (quick runs) is timed REPEATS times per step: the fastest is reported,
    // the spread is drawn as a band
    let reps = if n <= SHORT_MOTION { REPEATS } else { 1 };
    // the resting-contact probe answers steps that start in contact (time of contact 0)
    // before any culling, and then counts only the pairs it examined: the Table 2 columns
    // of such a step come from the same step queried again without it (untimed), whose
    // answer must be the same; any other answer already went through the culling
    let unprobed = variant.opts.with_resting_probe(false);
    let mut out_unprobed = QueryResult::default();
    for k in 0..n {
        let (fastest, wall, slowest, probed) =
            motion.with_step(k, |steps| -> Result<(f64, f64, f64, bool)> {
                let (mut fastest, mut wall, mut slowest) = (f64::INFINITY, f64::NAN, 0.0f64);
                for _ in 0..reps {
                    let watch = Stopwatch::start();
                    scene.query_with(steps, &variant.opts, &mut ws, &mut out)?;
                    let (ms, wall_ms) = watch.ms();
                    if ms < fastest {
                        (fastest, wall) = (ms, wall_ms);
                    }
                    slowest = slowest.max(ms);
                }
                let probed =
                    variant.opts.resting_probe && out.first().is_some_and(|c| c.contact.toc == 0.0);
                if probed {
                    scene.query_with(steps, &unprobed, &mut ws, &mut out_unprobed)?;
                }
                Ok((fastest, wall, slowest, probed))
            })?;
        m.ms.push(fastest);
        m.wall_ms.push(wall);
        m.ms_slowest.push(slowest);
        let toc = out.first().map(|c| c.contact.toc);
        m.toc.push(toc);
        m.distance.push(out.first().map(|c| c.contact.distance));
        if probed {
            let unprobed_toc = out_unprobed.first().map(|c| c.contact.toc);
            anyhow::ensure!(
                toc == unprobed_toc,
                "{}: step {k}: {toc:?} with the resting-contact probe, {unprobed_toc:?} without",
                variant.label
            );
            m.stats.push(out_unprobed.stats);
        } else {
            m.stats.push(out.stats);
        }
        bar.inc(1);
    }
    Ok(m)
}

/// A target line: `what`, measured value, bound, whether it holds.
pub(crate) struct Target {
    pub(crate) what: String,
    pub(crate) ok: bool,
}

impl Target {
    pub(crate) fn at_most(what: &str, value: f64, bound: f64, unit: &str) -> Self {
        Self {
            what: format!("{what} {value:.3} {unit} (target ≤ {bound} {unit})"),
            ok: value <= bound,
        }
    }
    pub(crate) fn at_least(what: &str, value: f64, bound: f64, unit: &str) -> Self {
        Self {
            what: format!("{what} {value:.3} {unit} (target ≥ {bound} {unit})"),
            ok: value >= bound,
        }
    }
}

/// The Table 1 + Table 2 columns.
pub(crate) fn columns() -> Vec<String> {
    [
        "variant",
        "steps",
        "coll.",
        "T_a ms",
        "T_f ms",
        "T_c ms",
        "T_w ms",
        "PCL before",
        "after spatial",
        "spatial cull",
        "after temporal",
        "temporal cull",
        "CA iters",
        "T_a wall ms",
    ]
    .map(String::from)
    .to_vec()
}

/// One table row of a measured variant (`prefix` names the step kind when a scene has
/// several).
pub(crate) fn row(prefix: &str, m: &Measured) -> Vec<String> {
    let [ta, tf, tc, tw] = m.table1();
    let [b, s, t, it] = m.table2();
    let (sc, tcul) = m.culling();
    let f = |x: f64, d: usize| {
        if x.is_finite() {
            format!("{x:.d$}")
        } else {
            "–".into()
        }
    };
    vec![
        if prefix.is_empty() {
            m.label.clone()
        } else {
            format!("{prefix}: {}", m.label)
        },
        m.ms.len().to_string(),
        m.collisions().to_string(),
        f(ta, 3),
        f(tf, 3),
        f(tc, 3),
        f(tw, 3),
        f(b, 1),
        f(s, 2),
        f(100.0 * sc, 1) + if sc.is_finite() { "%" } else { "" },
        f(t, 3),
        f(100.0 * tcul, 1) + if tcul.is_finite() { "%" } else { "" },
        f(it, 1),
        f(Measured::mean(m.wall_ms.iter().copied()), 3),
    ]
}

/// How two runs of the same steps differ.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Disagreements {
    /// Steps free in one run while the other reports a contact at distance ≤ ε/2: one of the
    /// two broke the tolerance contract (a free answer proves distance > ε/2 throughout).
    pub(crate) contract: usize,
    /// Steps free in one run while the other reports a contact at a distance in (ε/2, ε]: both
    /// answers are valid (the tolerance band, where a contact may or may not be reported).
    pub(crate) band: usize,
    /// The largest TOC difference over steps where both runs report a contact.
    pub(crate) max_toc_difference: f64,
}

/// Compares two runs of the same steps under the tolerance contract.
pub(crate) fn disagreements(a: &Measured, b: &Measured) -> Disagreements {
    let half = 0.5 * a.tolerance.min(b.tolerance);
    let mut d = Disagreements::default();
    for k in 0..a.toc.len().min(b.toc.len()) {
        match (a.toc[k], b.toc[k]) {
            (None, None) => {}
            (Some(x), Some(y)) => d.max_toc_difference = d.max_toc_difference.max((x - y).abs()),
            _ => {
                let at = |m: &Measured| m.distance.get(k).copied().flatten();
                // no recorded distance: counted against the contract
                let dist = at(a).or(at(b)).unwrap_or(0.0);
                if dist > half {
                    d.band += 1;
                } else {
                    d.contract += 1;
                }
            }
        }
    }
    d
}

/// The time-per-step plot of the variants.
pub(crate) fn plot(file: &str, title: &str, runs: &[&Measured]) -> Plot {
    Plot {
        file: file.into(),
        title: title.into(),
        x_label: "step".into(),
        y_label: "CPU ms per step (log)".into(),
        log_y: true,
        targets: Vec::new(),
        categories: Vec::new(),
        series: runs
            .iter()
            .map(|m| Series {
                name: m.label.clone(),
                x: (0..m.ms.len()).map(|i| i as f64).collect(),
                y: m.ms.clone(),
                band: (m.ms_slowest != m.ms).then(|| (m.ms.clone(), m.ms_slowest.clone())),
            })
            .collect(),
    }
}

/// Assembles a report: rows, target verdicts in the headline, key numbers in the summary.
pub(crate) fn report(
    (name, paper): (&str, &str),
    description: String,
    rows: Vec<Vec<String>>,
    targets: &[Target],
    notes: &[String],
    summary: serde_json::Value,
    plots: Vec<Plot>,
) -> SceneReport {
    let mut headline: Vec<String> = targets
        .iter()
        .map(|t| format!("{}: {}", t.what, if t.ok { "met" } else { "NOT met" }))
        .collect();
    headline.extend(notes.iter().cloned());
    SceneReport {
        name: name.into(),
        paper: paper.into(),
        description,
        columns: columns(),
        rows,
        headline: headline.join("; "),
        summary: json!({ "targets_met": targets.iter().all(|t| t.ok), "numbers": summary }),
        plots,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(toc: &[Option<f64>], distance: &[Option<f64>]) -> Measured {
        Measured {
            label: String::new(),
            ms: vec![1.0; toc.len()],
            wall_ms: vec![1.0; toc.len()],
            ms_slowest: vec![1.0; toc.len()],
            toc: toc.to_vec(),
            distance: distance.to_vec(),
            tolerance: 1e-3,
            stats: vec![ArticulatedStats::default(); toc.len()],
        }
    }

    #[test]
    fn disagreements_separate_the_tolerance_band_from_contract_breaks() {
        let a = run(
            &[None, Some(0.5), None, Some(0.2), None],
            &[None, Some(9e-4), None, Some(1e-4), None],
        );
        let b = run(
            &[None, None, Some(0.3), Some(0.25), Some(0.9)],
            &[None, None, Some(2e-4), Some(3e-4), None],
        );
        let d = disagreements(&a, &b);
        assert_eq!(d.band, 1, "step 1: 9e-4 lies in (ε/2, ε]");
        assert_eq!(
            d.contract, 2,
            "step 2 at 2e-4 ≤ ε/2, step 4 without a distance"
        );
        assert!((d.max_toc_difference - 0.05).abs() < 1e-12);
    }
}
