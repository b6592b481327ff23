//! Unit tests of `peers`.

use super::results::{Crash, parse_families};
use super::table::{headline, row_cells};
use super::*;
use ccd_benches::protocol::Family;

#[test]
fn harnesses_are_the_scripts_but_common_and_helper_modules() {
    let dir = std::env::temp_dir().join(format!("ccd-peers-harnesses-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    for f in [
        "kernels.py",
        "common.py",
        "_dense.py",
        "robot_edges.py",
        "notes.md",
    ] {
        fs::write(dir.join(f), "").unwrap();
    }
    let found: Vec<String> = python_harnesses(&dir)
        .unwrap()
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(found, ["kernels.py", "robot_edges.py"]);
    // and the repository's own folder: every harness is a family script
    let ours = python_harnesses(&crate::workspace_root().join("benches/peers")).unwrap();
    assert!(ours.iter().all(|p| {
        let n = p.file_name().unwrap().to_string_lossy();
        !n.starts_with('_') && n != "common.py"
    }));
    assert!(ours.len() >= 4, "{ours:?}");
    fs::remove_dir_all(&dir).unwrap();
}

const RUST: &str = r#"[
      {"family": "analytic-shapes", "title": "Analytic", "reference": "dense", "quick": true,
       "checks": [{"name": "distances", "passed": true, "detail": "1e-15"}],
       "rows": [
         {"workload": "ball-ball", "tool": "ccd", "is_ccd": true, "version": "0.1.0",
          "settings": "default", "threads": 1, "queries": 10, "misses": 0, "late": 0,
          "false_alarms": 0, "median_us": 2.0, "p90_us": 3.0, "cpu_median_us": 2.0,
          "target_ratio": null, "skipped": null},
         {"workload": "ball-ball", "tool": "parry3d-f64", "is_ccd": false, "version": "0.31.1",
          "settings": "cast", "threads": 1, "queries": 10, "misses": 1, "late": 0,
          "false_alarms": 0, "median_us": 20.0, "p90_us": 30.0, "cpu_median_us": 19.0,
          "target_ratio": 3.0, "skipped": null},
         {"workload": "capsule-box", "tool": "ccd", "is_ccd": true, "median_us": 4.0,
          "misses": 0, "late": 0},
         {"workload": "capsule-box", "tool": "parry3d-f64", "median_us": 8.0, "target_ratio": 3.0},
         {"workload": "terrain", "tool": "parry3d-f64", "skipped": "too slow", "target_ratio": 3.0}
       ]}
    ]"#;

const PY_MISS: &str = r#"{"family": "analytic-shapes", "title": "Analytic (Python)",
      "reference": "analytic", "rows": [
        {"workload": "ball-ball", "tool": "ccd", "is_ccd": true, "misses": 1, "late": 0,
         "median_us": 5.0},
        {"workload": "ball-ball", "tool": "python-fcl", "median_us": 4.0, "target_ratio": 3.0},
        {"workload": "ball-ball", "tool": "python-fcl sampling", "skipped": "not installed"}
      ]}"#;

fn parsed(harness: &str, text: &str) -> Vec<(String, Family)> {
    parse_families(text)
        .unwrap()
        .into_iter()
        .map(|f| (harness.to_string(), f))
        .collect()
}

#[test]
fn ratios_targets_and_skipped_rows() {
    let m = merge(&parsed("peers_rust", RUST), &[]);
    assert!(m.failures.is_empty(), "{:?}", m.failures);
    assert_eq!(m.families.len(), 1);
    let rows = &m.families[0].rows;
    assert_eq!(rows.len(), 5);
    assert_eq!(rows[0].ratio, None); // ccd itself
    assert_eq!(rows[1].ratio, Some(10.0));
    assert_eq!(rows[1].target_met, Some(true));
    assert_eq!(rows[3].ratio, Some(2.0));
    assert_eq!(rows[3].target_met, Some(false));
    // a skipped peer: no ratio, no verdict, its reason in the table
    assert_eq!(rows[4].ratio, None);
    assert_eq!(rows[4].target_met, None);
    let cells = row_cells(&rows[4]);
    assert_eq!(cells[4], "skipped: too slow");
    assert_eq!(row_cells(&rows[1])[11], "10×");
    assert_eq!(row_cells(&rows[3])[13], "NOT met");
    // a peer's misses are data, not failures
    assert_eq!(rows[1].row.misses, Some(1));
    let h = headline(&m.families[0]);
    assert!(h.contains("met on 1 of 2 timed rows (1 skipped)"), "{h}");
}

#[test]
fn ccd_miss_fails_and_ratio_uses_the_same_harness() {
    let mut all = parsed("peers_rust", RUST);
    all.extend(parsed("rigid_fcl", PY_MISS));
    let m = merge(&all, &[]);
    assert_eq!(m.failures.len(), 1, "{:?}", m.failures);
    assert!(m.failures[0].contains("1 misses"), "{}", m.failures[0]);
    assert!(m.failures[0].contains("rigid_fcl"));
    let fam = &m.families[0];
    let fcl = fam
        .rows
        .iter()
        .find(|r| r.row.tool == "python-fcl")
        .unwrap();
    // 4 / 5 (the Python ccd row), not 4 / 2 (the Rust one)
    assert_eq!(fcl.ratio, Some(0.8));
    assert_eq!(
        fam.references,
        ["[peers_rust] dense", "[rigid_fcl] analytic"]
    );
}

#[test]
fn late_answers_failed_checks_and_crashes_fail() {
    let text = RUST
        .replace(
            r#""late": 0,
          "false_alarms": 0, "median_us": 2.0"#,
            r#""late": 2,
          "false_alarms": 0, "median_us": 2.0"#,
        )
        .replace(r#""passed": true"#, r#""passed": false"#);
    let crash = Crash {
        harness: "kernels".into(),
        error: "exit status 1".into(),
        stderr_tail: "Traceback ...\nValueError: boom".into(),
    };
    let m = merge(&parsed("peers_rust", &text), &[crash]);
    assert_eq!(m.failures.len(), 3, "{:?}", m.failures);
    assert!(m.failures.iter().any(|f| f.contains("2 late")));
    assert!(
        m.failures
            .iter()
            .any(|f| f.contains("fairness check failed"))
    );
    assert!(
        m.failures
            .iter()
            .any(|f| f.contains("kernels crashed") && f.contains("ValueError: boom"))
    );
    let md = markdown(&m, &["env".into()], true);
    assert!(md.contains("Result: FAILED"));
    assert!(md.contains("FAILED distances"));
}

#[test]
fn families_in_issue_order_with_a_plot_marking_misses() {
    let mut all = parsed(
        "x",
        r#"{"family": "robot-edges", "title": "t", "reference": "r", "rows": []}"#,
    );
    all.extend(parsed("peers_rust", RUST));
    let m = merge(&all, &[]);
    let names: Vec<&str> = m.families.iter().map(|f| f.family.as_str()).collect();
    assert_eq!(names, ["analytic-shapes", "robot-edges"]);
    let scene = scene_of(&m.families[0]);
    let plot = &scene.plots[0];
    assert_eq!(plot.categories, ["ball-ball", "capsule-box", "terrain"]);
    let names: Vec<&str> = plot.series.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        ["ccd", "parry3d-f64", "parry3d-f64: missed a contact"]
    );
    assert_eq!(plot.series[2].x, [1.0]);
    assert!(plot.log_y);
}

#[test]
fn bad_json_is_an_error() {
    assert!(parse_families("{not json").is_err());
    assert!(parse_families(r#"{"title": "no family"}"#).is_err());
}
