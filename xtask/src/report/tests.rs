//! Unit tests of `report`.

use super::*;

fn report(name: &str, headline: &str) -> SceneReport {
    SceneReport {
        name: name.into(),
        paper: "Paper Fig. 1".into(),
        description: "what it measures".into(),
        columns: vec!["a".into(), "b".into()],
        rows: vec![vec!["1".into(), "2".into()]],
        headline: headline.into(),
        summary: serde_json::json!({ "ms": 1.5 }),
        plots: Vec::new(),
    }
}

#[test]
fn absolute_data_paths_are_written_relative_to_the_workspace() {
    let dir = std::env::temp_dir().join(format!("xtask-relative-{}", std::process::id()));
    let ws = dir.join("main");
    fs::create_dir_all(&ws).unwrap();
    let above = dir.canonicalize().unwrap();
    let text = format!("frames from {}/shared/data/unc (x)", above.display());
    assert_eq!(
        relative_paths(&text, &ws.join("README.md"), &ws),
        "frames from ../shared/data/unc (x)"
    );
    assert_eq!(
        relative_paths(&text, &ws.join("docs/results.md"), &ws),
        "frames from ../../shared/data/unc (x)"
    );
    // other paths are left alone
    assert_eq!(
        relative_paths("from /elsewhere/data", &ws.join("README.md"), &ws),
        "from /elsewhere/data"
    );
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn readme_section_is_rewritten_from_a_saved_report() {
    let dir = std::env::temp_dir().join(format!("xtask-readme-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let readme = dir.join("README.md");
    fs::write(
        &readme,
        "# title\n<!-- bench:start -->\nold table\n<!-- bench:end -->\ntail\n",
    )
    .unwrap();
    let results = dir.join("results.json");
    let meta = serde_json::json!({
        "quick": false, "commit": "0123456789abcdef", "date": "2026-11-24T12:00:00Z",
        "cpus": 2, "seconds": 600.0, "load_average": { "start": 3.0, "end": 1.0 },
    });
    let skipped = vec![Skipped {
        name: "unc-frames".into(),
        reason: "data absent".into(),
    }];
    let json: serde_json::Value = serde_json::json!({
        "meta": meta,
        "scenes": [report("one", "T 1 ms (target ≤ 2 ms: met)"), report("two", "")],
        "skipped": skipped,
    });
    fs::write(&results, serde_json::to_string(&json).unwrap()).unwrap();
    readme_from_results(&readme, std::slice::from_ref(&results)).unwrap();
    let text = fs::read_to_string(&readme).unwrap();
    assert!(text.starts_with("# title\n<!-- bench:start -->\nMeasured by `cargo xtask bench` on 2026-11-24T12:00:00Z at commit 0123456789 (2 CPUs; load average 3.0"));
    assert!(text.contains("shared with other jobs"));
    assert!(text.contains("| `one` | Paper Fig. 1 | T 1 ms (target ≤ 2 ms: met) |"));
    assert!(text.contains("| `two` | Paper Fig. 1 | see its table below |"));
    assert!(text.contains("| `unc-frames` | — | skipped: data absent |"));
    assert!(text.contains("<details><summary><code>two</code>: full table</summary>"));
    assert!(!text.contains("old table"));
    assert!(text.ends_with("<!-- bench:end -->\ntail\n"));
    // A second run replaces its scenes and is named as their source.
    let rerun = dir.join("rerun.json");
    let mut meta2 = json["meta"].clone();
    meta2["commit"] = "fedcba9876543210".into();
    let json2 = serde_json::json!({ "meta": meta2, "scenes": [report("two", "faster now")] });
    fs::write(&rerun, serde_json::to_string(&json2).unwrap()).unwrap();
    readme_from_results(&readme, &[results.clone(), rerun]).unwrap();
    let text = fs::read_to_string(&readme).unwrap();
    assert!(text.contains(
        "`one`: Measured by `cargo xtask bench` on 2026-11-24T12:00:00Z at commit 0123456789"
    ));
    assert!(text.contains(
        "`two`: Measured by `cargo xtask bench` on 2026-11-24T12:00:00Z at commit fedcba9876"
    ));
    assert!(text.contains("| `two` | Paper Fig. 1 | faster now |"));
    assert!(!text.contains("see its table below"));
    assert!(text.find("| `one` |") < text.find("| `two` |"));
    // A README without markers and a file that is no report are errors, not panics.
    fs::write(&readme, "no markers\n").unwrap();
    assert!(readme_from_results(&readme, std::slice::from_ref(&results)).is_err());
    fs::write(&results, "{\"meta\": 1}").unwrap();
    assert!(readme_from_results(&readme, std::slice::from_ref(&results)).is_err());
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_run_of_some_scenes_keeps_the_other_scenes_of_the_readme() {
    let dir = std::env::temp_dir().join(format!("xtask-keep-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let readme = dir.join("README.md");
    let old = section_of(
        "`one`, `three`: Measured by run A.\n\n`two`: Measured by run B.",
        &[
            "| `one` | P | first |".to_string(),
            "| `two` | P | second |".to_string(),
            "| `three` | P | third |".to_string(),
        ],
        &[
            details_block(&report("one", "")),
            details_block(&report("two", "")).replace("full table", "old two"),
            details_block(&report("three", "")),
        ],
    );
    fs::write(
        &readme,
        format!("# t\n<!-- bench:start -->\n{old}<!-- bench:end -->\ntail\n"),
    )
    .unwrap();
    // a run of `two` only, and a new scene `four`
    let reports = [report("two", "new second"), report("four", "fourth")];
    update_readme(&readme, &reports, &[], "Measured by run C.").unwrap();
    let text = fs::read_to_string(&readme).unwrap();
    assert!(text.contains(
        "`one`, `three`: Measured by run A.\n\n`two`, `four`: Measured by run C. Full tables"
    ));
    assert!(!text.contains("run B"));
    assert!(text.contains("| `one` | P | first |\n| `two` | Paper Fig. 1 | new second |\n| `three` | P | third |\n| `four` | Paper Fig. 1 | fourth |\n"));
    assert!(!text.contains("old two"));
    let pos = |n: &str| text.find(&format!("<code>{n}</code>")).unwrap();
    assert!(pos("one") < pos("two") && pos("two") < pos("three") && pos("three") < pos("four"));
    assert!(text.ends_with("<!-- bench:end -->\ntail\n"));
    // a second pass of the same run changes nothing
    update_readme(&readme, &reports, &[], "Measured by run C.").unwrap();
    assert_eq!(fs::read_to_string(&readme).unwrap(), text);
    // a run of every scene drops the old meta lines
    let all = [
        report("one", "a"),
        report("two", "b"),
        report("three", "c"),
        report("four", "d"),
    ];
    update_readme(&readme, &all, &[], "Measured by run D.").unwrap();
    let text = fs::read_to_string(&readme).unwrap();
    assert!(text.contains("<!-- bench:start -->\nMeasured by run D. Full tables"));
    assert!(!text.contains("run A") && !text.contains("run C"));
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn plots_are_rendered_again_from_a_saved_report_with_long_and_dense_series() {
    let dir = std::env::temp_dir().join(format!("xtask-plots-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let mut r = report("one", "");
    let x: Vec<f64> = (0..1000).map(f64::from).collect();
    r.plots.push(Plot {
        file: "../escape/one.svg".into(),
        title: "t".into(),
        x_label: "x".into(),
        y_label: "y".into(),
        log_y: true,
        targets: Vec::new(),
        categories: Vec::new(),
        series: vec![
            Series {
                name: "a legend label much longer than the default legend column".into(),
                y: x.iter().map(|v| v + 1.0).collect(),
                x,
                band: None,
            },
            Series {
                name: "b".into(),
                x: vec![1.0, 2.0],
                y: vec![3.0, 4.0],
                band: Some((vec![2.0, 3.0], vec![4.0, 5.0])),
            },
        ],
    });
    let results = dir.join("results.json");
    let json = serde_json::json!({ "meta": {}, "scenes": [r] });
    fs::write(&results, serde_json::to_string(&json).unwrap()).unwrap();
    let out = dir.join("out");
    assert_eq!(plots_from_results(&results, &out).unwrap(), 1);
    let svg = fs::read_to_string(out.join("one.svg")).unwrap();
    assert!(svg.contains("much longer than the default legend column"));
    // the SVG is wider than the default 860 px, so the long label is not clipped
    assert!(!svg.contains("width=\"860\""));
    assert!(!dir.join("escape").exists());
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn failed_scenes_are_in_table_md_and_results_json() {
    let dir = std::env::temp_dir().join(format!("ccd-failed-{}", std::process::id()));
    let failed = [Failed {
        name: "panda-planner".into(),
        error: "too few collision-free configurations".into(),
        seconds: 1.5,
    }];
    let errors = write_all(&dir, &[], &[], &failed, serde_json::json!({})).unwrap();
    assert!(errors.is_empty());
    let md = std::fs::read_to_string(dir.join("table.md")).unwrap();
    assert!(
        md.contains("panda-planner: FAILED after 1.5 s: too few"),
        "{md}"
    );
    let js: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("results.json")).unwrap()).unwrap();
    assert_eq!(js["failed"][0]["name"], "panda-planner");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn decades_of_a_log_axis() {
    assert_eq!(decades(0.08, 1250.0), vec![-1, 0, 1, 2, 3]);
    assert_eq!(decades(2.0, 9.0), Vec::<i32>::new());
    assert_eq!(decades(0.0, 9.0), Vec::<i32>::new());
}

#[test]
fn plots_of_every_kind_are_written() {
    let dir = std::env::var_os("CCD_PLOT_TEST_DIR").map_or_else(
        || std::env::temp_dir().join(format!("ccd-plots-{}", std::process::id())),
        std::path::PathBuf::from,
    );
    std::fs::create_dir_all(&dir).unwrap();
    let series = |name: &str, n: usize| Series {
        name: name.into(),
        x: (1..=n).map(|i| i as f64).collect(),
        y: (1..=n).map(|i| 0.01 * 10f64.powi(i as i32)).collect(),
        band: None,
    };
    let plot = |file: &str, categories: Vec<String>, n: usize| Plot {
        file: file.into(),
        title: "t".into(),
        x_label: "x".into(),
        y_label: "y".into(),
        log_y: true,
        targets: vec![TargetLine {
            label: "target ≤ 5".into(),
            y: 5.0,
        }],
        categories,
        series: vec![series("a", n), series("b", n)],
    };
    for p in [
        plot(
            "bars.svg",
            vec!["ball-ball".into(), "mesh-mesh".into(), "c".into()],
            3,
        ),
        plot("two.svg", Vec::new(), 2),
        plot("lines.svg", Vec::new(), 6),
    ] {
        plot_svg(&dir.join(&p.file), &p).unwrap();
        let svg = std::fs::read_to_string(dir.join(&p.file)).unwrap();
        assert!(svg.contains("target ≤ 5"), "{}", p.file);
        if p.file == "bars.svg" {
            assert!(svg.contains("ball-ball") && svg.contains("mesh-mesh"));
        }
        if p.file == "lines.svg" {
            // every decade of the log axis has its label (0.1 … 10⁴)
            for label in ["0.1", "1", "10", "100", "1000", "10⁴"] {
                assert!(svg.contains(&format!("\n{label}\n</text>")), "{label}");
            }
        }
    }
    if std::env::var_os("CCD_PLOT_TEST_DIR").is_none() {
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn tick_labels_are_short() {
    assert_eq!(tick_label(1e9), "10⁹");
    assert_eq!(tick_label(1e-6), "10⁻⁶");
    assert_eq!(tick_label(100.0), "100");
    assert_eq!(tick_label(2.0), "2");
    assert_eq!(tick_label(2.5), "2.5");
    assert_eq!(tick_label(0.125), "0.125");
    assert_eq!(tick_label(3.0e6), "3e6");
    assert_eq!(tick_label(2.5e6), "2.5e6");
}
