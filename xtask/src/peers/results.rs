//! The harnesses' results: their JSONs (the protocol of `ccd_benches::protocol`) read and
//! merged into one table per family, with the ratios, target verdicts and failures.

use std::collections::BTreeMap;

use anyhow::{Context, Result};
use ccd_benches::protocol::{Family, Row};
use serde::Serialize;

/// A harness that did not produce its JSON.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Crash {
    /// Harness name (file stem).
    pub(crate) harness: String,
    /// What happened (exit status, time limit, unreadable JSON).
    pub(crate) error: String,
    /// Last lines of its stderr.
    pub(crate) stderr_tail: String,
}

/// One row of a merged table with its computed ratio.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct MergedRow {
    /// The harness that wrote the row.
    pub(crate) harness: String,
    /// The row as written.
    #[serde(flatten)]
    pub(crate) row: Row,
    /// Peer median / ccd median of the same harness and workload.
    pub(crate) ratio: Option<f64>,
    /// Whether `ratio >= target_ratio` (`None` without a target or a ratio).
    pub(crate) target_met: Option<bool>,
}

/// One family merged over the harnesses that wrote it.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct MergedFamily {
    pub(crate) family: String,
    pub(crate) title: String,
    pub(crate) references: Vec<String>,
    pub(crate) quick: bool,
    pub(crate) notes: Vec<String>,
    pub(crate) checks: Vec<ccd_benches::protocol::Check>,
    pub(crate) rows: Vec<MergedRow>,
}

/// Everything a run produced.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Merged {
    pub(crate) families: Vec<MergedFamily>,
    pub(crate) crashes: Vec<Crash>,
    /// Why the run fails (empty: it passes).
    pub(crate) failures: Vec<String>,
}

/// Families in the order of the issue; others after them, by name.
fn family_order(name: &str) -> usize {
    [
        "rigid-meshes",
        "analytic-shapes",
        "robot-edges",
        "deformable-steps",
        "vf-ee-kernels",
    ]
    .iter()
    .position(|f| *f == name)
    .unwrap_or(usize::MAX)
}

/// Reads a harness's JSON: one family object or a list of them.
pub(crate) fn parse_families(text: &str) -> Result<Vec<Family>> {
    let v: serde_json::Value = serde_json::from_str(text).context("not JSON")?;
    let list = match v {
        serde_json::Value::Array(items) => items,
        other => vec![other],
    };
    list.into_iter()
        .map(|f| serde_json::from_value(f).context("not a family of the peers protocol"))
        .collect()
}

/// Merges the families written by each harness (`(harness, family)`), computes the ratios
/// and target verdicts, and lists the failures: a ccd row with misses or late answers, a
/// failed fairness check, a crashed harness.
pub(crate) fn merge(results: &[(String, Family)], crashes: &[Crash]) -> Merged {
    let mut by_family: BTreeMap<(usize, String), MergedFamily> = BTreeMap::new();
    let mut failures = Vec::new();
    for (harness, f) in results {
        let m = by_family
            .entry((family_order(&f.family), f.family.clone()))
            .or_insert_with(|| MergedFamily {
                family: f.family.clone(),
                title: f.title.clone(),
                references: Vec::new(),
                quick: f.quick,
                notes: Vec::new(),
                checks: Vec::new(),
                rows: Vec::new(),
            });
        m.quick |= f.quick;
        let reference = format!("[{harness}] {}", f.reference);
        if !m.references.contains(&reference) {
            m.references.push(reference);
        }
        m.notes
            .extend(f.notes.iter().map(|n| format!("[{harness}] {n}")));
        for c in &f.checks {
            if !c.passed {
                failures.push(format!(
                    "{}: fairness check failed ({harness}): {} ({})",
                    f.family, c.name, c.detail
                ));
            }
            m.checks.push(c.clone());
        }
        // ccd's median per workload in this harness: the first ccd row that ran
        let ccd_median = |workload: &str| {
            f.rows
                .iter()
                .filter(|r| r.is_ccd && r.workload == workload && r.skipped.is_none())
                .find_map(|r| r.median_us)
        };
        for r in &f.rows {
            if r.is_ccd && (r.misses.unwrap_or(0) > 0 || r.late.unwrap_or(0) > 0) {
                failures.push(format!(
                    "{}: {} on {:?} ({harness}): {} misses, {} late",
                    f.family,
                    r.tool,
                    r.workload,
                    r.misses.unwrap_or(0),
                    r.late.unwrap_or(0)
                ));
            }
            let ratio = if r.is_ccd || r.skipped.is_some() {
                None
            } else {
                match (r.median_us, ccd_median(&r.workload)) {
                    (Some(p), Some(c)) if c > 0.0 => Some(p / c),
                    _ => None,
                }
            };
            let target_met = match (ratio, r.target_ratio) {
                (Some(x), Some(t)) => Some(x >= t),
                _ => None,
            };
            m.rows.push(MergedRow {
                harness: harness.clone(),
                row: r.clone(),
                ratio,
                target_met,
            });
        }
    }
    for c in crashes {
        failures.push(format!(
            "harness {} crashed: {}\n{}",
            c.harness, c.error, c.stderr_tail
        ));
    }
    Merged {
        families: by_family.into_values().collect(),
        crashes: crashes.to_vec(),
        failures,
    }
}
