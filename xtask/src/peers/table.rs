//! The peers report: table cells of the merged rows, per-family headlines, bench-report
//! scenes (console table, Markdown, plot) and the Markdown report.

use std::fmt::Write as _;

use super::results::{Merged, MergedFamily, MergedRow};
use crate::report::{Plot, SceneReport, Series, TargetLine};

/// Table columns of every family.
const COLUMNS: [&str; 14] = [
    "workload",
    "tool",
    "version",
    "settings",
    "queries",
    "misses",
    "late",
    "false alarms",
    "median µs",
    "p90 µs",
    "CPU median µs",
    "ratio",
    "target",
    "met",
];

fn count(x: Option<u64>) -> String {
    x.map_or("—".into(), |v| v.to_string())
}

fn micros(x: Option<f64>) -> String {
    match x {
        None => "—".into(),
        Some(v) if v >= 100.0 => format!("{v:.0}"),
        Some(v) if v >= 1.0 => format!("{v:.2}"),
        Some(v) => format!("{v:.3}"),
    }
}

fn times(x: Option<f64>) -> String {
    match x {
        None => "—".into(),
        Some(v) if v >= 10.0 => format!("{v:.0}×"),
        Some(v) => format!("{v:.2}×"),
    }
}

/// The table cells of one row.
pub(crate) fn row_cells(m: &MergedRow) -> Vec<String> {
    let r = &m.row;
    let skipped = r.skipped.as_ref().map(|s| format!("skipped: {s}"));
    vec![
        r.workload.clone(),
        r.tool.clone(),
        r.version.clone(),
        if r.threads == 1 {
            r.settings.clone()
        } else {
            format!("{} ({} threads)", r.settings, r.threads)
        },
        skipped.clone().unwrap_or_else(|| count(r.queries)),
        count(r.misses),
        count(r.late),
        count(r.false_alarms),
        micros(r.median_us),
        micros(r.p90_us),
        micros(r.cpu_median_us),
        times(m.ratio),
        r.target_ratio
            .map_or("—".into(), |t| format!("≥ {}", times(Some(t)))),
        match m.target_met {
            Some(true) => "met".into(),
            Some(false) => "NOT met".into(),
            None => "—".into(),
        },
    ]
}

/// One line per tool with a target: its ratios' range and how many meet the target.
pub(super) fn headline(f: &MergedFamily) -> String {
    let mut tools: Vec<&str> = Vec::new();
    for r in &f.rows {
        if r.row.target_ratio.is_some() && !tools.contains(&r.row.tool.as_str()) {
            tools.push(&r.row.tool);
        }
    }
    let ccd: Vec<&MergedRow> = f.rows.iter().filter(|r| r.row.is_ccd).collect();
    let ccd_misses: u64 = ccd.iter().filter_map(|r| r.row.misses).sum();
    let ccd_late: u64 = ccd.iter().filter_map(|r| r.row.late).sum();
    let mut parts = vec![format!(
        "ccd: {ccd_misses} misses, {ccd_late} late in {} rows",
        ccd.len()
    )];
    for t in tools {
        let rows: Vec<&MergedRow> = f.rows.iter().filter(|r| r.row.tool == t).collect();
        let ratios: Vec<f64> = rows.iter().filter_map(|r| r.ratio).collect();
        let met = rows.iter().filter(|r| r.target_met == Some(true)).count();
        let skipped = rows.iter().filter(|r| r.row.skipped.is_some()).count();
        let target = rows.iter().find_map(|r| r.row.target_ratio).unwrap_or(0.0);
        let misses: u64 = rows.iter().filter_map(|r| r.row.misses).sum();
        if ratios.is_empty() {
            parts.push(format!("{t}: no timed rows ({skipped} skipped)"));
        } else {
            let lo = ratios.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = ratios.iter().copied().fold(0.0, f64::max);
            parts.push(format!(
                "{t}: {}–{} slower than ccd, target ≥ {} met on {met} of {} timed rows ({skipped} skipped); {misses} misses",
                times(Some(lo)),
                times(Some(hi)),
                times(Some(target)),
                ratios.len()
            ));
        }
    }
    parts.join("; ")
}

/// The family as a bench-report scene (console table, Markdown, plot).
pub(crate) fn scene_of(f: &MergedFamily) -> SceneReport {
    let mut workloads: Vec<String> = Vec::new();
    let mut tools: Vec<String> = Vec::new();
    for r in &f.rows {
        if !workloads.contains(&r.row.workload) {
            workloads.push(r.row.workload.clone());
        }
        if !tools.contains(&r.row.tool) {
            tools.push(r.row.tool.clone());
        }
    }
    let x_of = |w: &str| {
        workloads
            .iter()
            .position(|x| x == w)
            .map_or(0.0, |i| i as f64 + 1.0)
    };
    let mut series = Vec::new();
    for t in &tools {
        let timed: Vec<&MergedRow> = f
            .rows
            .iter()
            .filter(|r| &r.row.tool == t && r.row.median_us.is_some())
            .collect();
        if timed.is_empty() {
            continue;
        }
        series.push(Series {
            name: t.clone(),
            x: timed.iter().map(|r| x_of(&r.row.workload)).collect(),
            y: timed.iter().filter_map(|r| r.row.median_us).collect(),
            band: None,
        });
        let missed: Vec<&&MergedRow> = timed
            .iter()
            .filter(|r| r.row.misses.unwrap_or(0) > 0)
            .collect();
        if !missed.is_empty() {
            series.push(Series {
                name: format!("{t}: missed a contact"),
                x: missed.iter().map(|r| x_of(&r.row.workload)).collect(),
                y: missed.iter().filter_map(|r| r.row.median_us).collect(),
                band: None,
            });
        }
    }
    let plot = Plot {
        file: format!("peers-{}.svg", f.family),
        title: format!("{}: median time per query", f.family),
        x_label: "workload".into(),
        y_label: "µs per query (log)".into(),
        log_y: true,
        targets: Vec::<TargetLine>::new(),
        categories: workloads.clone(),
        series,
    };
    SceneReport {
        name: format!("peers: {}", f.family),
        paper: "issue 36".into(),
        description: format!("{} — reference: {}", f.title, f.references.join("; ")),
        columns: COLUMNS.map(String::from).to_vec(),
        rows: f.rows.iter().map(row_cells).collect(),
        headline: headline(f),
        summary: serde_json::to_value(f).unwrap_or(serde_json::Value::Null),
        plots: vec![plot],
    }
}

/// The Markdown report.
pub(crate) fn markdown(merged: &Merged, environment: &[String], quick: bool) -> String {
    let mut s = format!(
        "# ccd and its peers (`cargo xtask peers{}`)\n\n",
        if quick { " --quick" } else { "" }
    );
    if !environment.is_empty() {
        s.push_str("Environment:\n\n");
        for e in environment {
            let _ = writeln!(s, "- {e}");
        }
        s.push('\n');
    }
    for f in &merged.families {
        let scene = scene_of(f);
        s.push_str(&scene.to_markdown().replacen("#### ", "## ", 1));
        s.push('\n');
        if !f.checks.is_empty() {
            s.push_str("Fairness checks:\n\n");
            for c in &f.checks {
                let _ = writeln!(
                    s,
                    "- {} {}: {}",
                    if c.passed { "passed" } else { "FAILED" },
                    c.name,
                    c.detail
                );
            }
            s.push('\n');
        }
        if !f.notes.is_empty() {
            s.push_str("Notes:\n\n");
            for n in &f.notes {
                let _ = writeln!(s, "- {n}");
            }
            s.push('\n');
        }
        let _ = writeln!(s, "![{}](peers-{}.svg)\n", f.family, f.family);
    }
    if merged.failures.is_empty() {
        s.push_str("Result: passed (ccd: no miss, no late answer; every fairness check held; every harness ran).\n");
    } else {
        s.push_str("Result: FAILED\n\n");
        for e in &merged.failures {
            let _ = writeln!(s, "- {}", e.replace('\n', "\n  "));
        }
    }
    s
}
