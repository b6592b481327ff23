//! The sweeps over active-joint counts: their settings, and their points as table rows,
//! plots and summary.

use serde_json::json;

use super::timing::Timing;
use crate::report::{Plot, Series};
use crate::scenes::{SceneConfig, median};

/// A plot series without a spread band.
fn series(name: &str, x: Vec<f64>, y: Vec<f64>) -> Series {
    Series {
        name: name.into(),
        x,
        y,
        band: None,
    }
}

/// One row of a sweep.
#[derive(Clone)]
pub(super) struct Point {
    pub(super) label: String,
    pub(super) links: usize,
    pub(super) active: usize,
    pub(super) full: f64,
    pub(super) adaptive: f64,
    pub(super) worst: f64,
    /// The median over the steps of the per-step ratio adaptive / full.
    pub(super) median: f64,
    pub(super) contacts: usize,
    pub(super) steps: usize,
    pub(super) disagreements: usize,
}

pub(super) fn point(label: &str, links: usize, active: usize, t: &Timing) -> Point {
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    Point {
        label: label.into(),
        links,
        active,
        full: mean(&t.full_ms),
        adaptive: mean(&t.adaptive_ms),
        worst: t
            .adaptive_ms
            .iter()
            .zip(&t.full_ms)
            .map(|(a, f)| a / f)
            .fold(0.0, f64::max),
        median: median(
            &mut t
                .adaptive_ms
                .iter()
                .zip(&t.full_ms)
                .map(|(a, f)| a / f)
                .collect::<Vec<_>>(),
        ),
        contacts: t.contacts,
        steps: t.full_ms.len(),
        disagreements: t.disagreements,
    }
}

pub(super) fn columns() -> Vec<String> {
    [
        "run",
        "links",
        "active joints",
        "full ms/step",
        "adaptive ms/step",
        "adaptive/full",
        "median step ratio",
        "worst step ratio",
        "steps with contact",
        "disagreements",
    ]
    .map(String::from)
    .to_vec()
}

pub(super) fn rows(points: &[Point]) -> Vec<Vec<String>> {
    points
        .iter()
        .map(|p| {
            vec![
                p.label.clone(),
                p.links.to_string(),
                p.active.to_string(),
                format!("{:.3}", p.full),
                format!("{:.3}", p.adaptive),
                format!("{:.2}", p.adaptive / p.full),
                format!("{:.2}", p.median),
                format!("{:.2}", p.worst),
                format!("{}/{}", p.contacts, p.steps),
                p.disagreements.to_string(),
            ]
        })
        .collect()
}

pub(super) fn plot_of(file: &str, title: &str, groups: &[(&str, &[Point])]) -> Plot {
    let mut s = Vec::new();
    for (label, pts) in groups {
        let x: Vec<f64> = pts.iter().map(|p| p.active as f64).collect();
        s.push(series(
            &format!("adaptive{label}"),
            x.clone(),
            pts.iter().map(|p| p.adaptive).collect(),
        ));
        s.push(series(
            &format!("full CATCH{label}"),
            x,
            pts.iter().map(|p| p.full).collect(),
        ));
    }
    Plot {
        file: file.into(),
        title: title.into(),
        x_label: "active joints".into(),
        y_label: "CCD ms per step".into(),
        log_y: false,
        targets: Vec::new(),
        categories: Vec::new(),
        series: s,
    }
}

/// Sweep settings: active-joint counts, steps per run, repeats.
pub(super) struct Sweep {
    pub(super) counts: Vec<usize>,
    pub(super) steps: usize,
    pub(super) reps: usize,
}

pub(super) fn sweep(cfg: &SceneConfig, all: usize, quick: &[usize], full: &[usize]) -> Sweep {
    let pick = if cfg.quick { quick } else { full };
    let mut counts: Vec<usize> = pick.iter().copied().filter(|&m| m <= all).collect();
    // every joint active: kept out of quick runs of long chains (seconds per step)
    if !counts.contains(&all) && (!cfg.quick || all <= 30) {
        counts.push(all);
    }
    Sweep {
        counts,
        steps: if cfg.quick { 5 } else { 21 },
        reps: if cfg.quick { 3 } else { 5 },
    }
}

pub(super) fn summary_of(points: &[Point]) -> serde_json::Value {
    json!(
        points
            .iter()
            .map(|p| json!({
                "run": p.label, "links": p.links, "active": p.active,
                "full_ms": p.full, "adaptive_ms": p.adaptive,
                "ratio": p.adaptive / p.full, "median_step_ratio": p.median, "worst_step_ratio": p.worst,
                "contacts": p.contacts, "steps": p.steps, "disagreements": p.disagreements,
            }))
            .collect::<Vec<_>>()
    )
}

pub(super) fn worst_and_disagreements(points: &[Point]) -> (f64, usize) {
    (
        points.iter().map(|p| p.worst).fold(0.0, f64::max),
        points.iter().map(|p| p.disagreements).sum(),
    )
}
