//! The JSON of the peer harnesses (issue 36): each harness (`peers_rust`, every
//! `benches/peers/*.py` other than `common.py`) writes one [`Family`] per file given with
//! `--out FILE`, or a list of them (`peers_rust` writes families 1 and 2 in one file);
//! `cargo xtask peers` reads them all and merges the tables.
//!
//! Field meanings: a *miss* is a "no contact" answer where the reference has a contact;
//! *late* a time of contact later than the reference's first contact (beyond the stated
//! slack); a *false alarm* a contact where the reference's distance stays above the tool's
//! tolerance. `null` counts mean "not applicable"; a `skipped` reason replaces the numbers
//! of a tool that could not run (never hidden).
//!
//! ```
//! use ccd_benches::protocol::{Family, Row};
//! let mut f = Family::new("analytic-shapes", "Analytic pairs", "dense sampling", true);
//! f.rows.push(Row::skipped("ball-ball", "python-fcl", false, "not installed"));
//! let text = serde_json::to_string(&f).unwrap();
//! let back: Family = serde_json::from_str(&text).unwrap();
//! assert_eq!(back.rows[0].skipped.as_deref(), Some("not installed"));
//! ```

use serde::{Deserialize, Serialize};

/// One family's results (one table of `cargo xtask peers`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Family {
    /// `rigid-meshes`, `analytic-shapes`, `robot-edges`, `deformable-steps` or
    /// `vf-ee-kernels`.
    pub family: String,
    /// Table title.
    pub title: String,
    /// One sentence: what judges the answers.
    pub reference: String,
    /// Run with `--quick`.
    #[serde(default)]
    pub quick: bool,
    /// Free text printed under the table.
    #[serde(default)]
    pub notes: Vec<String>,
    /// Fairness checks (same geometry and motion for every tool).
    #[serde(default)]
    pub checks: Vec<Check>,
    /// One row per workload and tool.
    #[serde(default)]
    pub rows: Vec<Row>,
}

impl Family {
    /// An empty family.
    ///
    /// ```
    /// let f = ccd_benches::protocol::Family::new("rigid-meshes", "t", "r", false);
    /// assert!(f.rows.is_empty());
    /// ```
    pub fn new(family: &str, title: &str, reference: &str, quick: bool) -> Self {
        Self {
            family: family.into(),
            title: title.into(),
            reference: reference.into(),
            quick,
            ..Self::default()
        }
    }
}

/// A fairness check.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Check {
    /// What was compared.
    pub name: String,
    /// Whether it held.
    pub passed: bool,
    /// Numbers (e.g. the largest difference).
    #[serde(default)]
    pub detail: String,
}

/// A string field that a harness may write as `null`.
fn null_as_empty<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Ok(Option::<String>::deserialize(d)?.unwrap_or_default())
}

/// One workload run by one tool.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// Workload (the same string for ccd and its peers).
    pub workload: String,
    /// Tool name.
    pub tool: String,
    /// ccd's own row (its misses and late answers fail `cargo xtask peers`).
    #[serde(default)]
    pub is_ccd: bool,
    /// Tool version (`null` reads as empty: a skipped row may not know it).
    #[serde(default, deserialize_with = "null_as_empty")]
    pub version: String,
    /// Settings (solver, tolerance, ...; `null` reads as empty).
    #[serde(default, deserialize_with = "null_as_empty")]
    pub settings: String,
    /// Threads used.
    #[serde(default = "one")]
    pub threads: u32,
    /// Queries timed.
    #[serde(default)]
    pub queries: Option<u64>,
    /// Misses (contact where the tool says free).
    #[serde(default)]
    pub misses: Option<u64>,
    /// Late times of contact.
    #[serde(default)]
    pub late: Option<u64>,
    /// False alarms.
    #[serde(default)]
    pub false_alarms: Option<u64>,
    /// Median wall time per query, µs.
    #[serde(default)]
    pub median_us: Option<f64>,
    /// 90th percentile wall time per query, µs.
    #[serde(default)]
    pub p90_us: Option<f64>,
    /// Median CPU time per query, µs.
    #[serde(default)]
    pub cpu_median_us: Option<f64>,
    /// Peer rows: the issue's speed target (peer median / ccd median ≥ this).
    #[serde(default)]
    pub target_ratio: Option<f64>,
    /// Why the tool did not run (then the numbers are `null`).
    #[serde(default)]
    pub skipped: Option<String>,
}

fn one() -> u32 {
    1
}

impl Row {
    /// A row of a tool that could not run, with the reason.
    ///
    /// ```
    /// let r = ccd_benches::protocol::Row::skipped("w", "parry3d-f64", false, "--quick");
    /// assert!(r.median_us.is_none());
    /// ```
    pub fn skipped(workload: &str, tool: &str, is_ccd: bool, reason: &str) -> Self {
        Self {
            workload: workload.into(),
            tool: tool.into(),
            is_ccd,
            threads: 1,
            skipped: Some(reason.into()),
            ..Self::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_skipped_row_may_leave_version_and_settings_null() {
        let r: Row = serde_json::from_str(
            r#"{"workload": "n-body/step", "tool": "ipctk", "is_ccd": false, "version": null,
                "settings": null, "skipped": "--quick: not run"}"#,
        )
        .unwrap();
        assert_eq!((r.version.as_str(), r.settings.as_str()), ("", ""));
        assert!(serde_json::from_str::<Row>(r#"{"workload": 1, "tool": "x"}"#).is_err());
    }
}
