//! `cargo xtask peers [--quick] [--data DIR] [--out DIR]`: ccd side by side with the peers
//! users run today (issue 36), reproducible from the repository.
//!
//! 1. **Environment** (`target/peers/venv`, idempotent): builds the ccd wheel with maturin
//!    (`maturin build --release -m crates/python/Cargo.toml --out target/wheels`, maturin
//!    from the build venv of `.ci/wheel`, `$CCD_WHEEL_BUILD_VENV` or
//!    `target/wheel-build-venv`), creates the venv, installs the wheel when it changed, and
//!    numpy, python-fcl, ipctk and tesseract-robotics-nanobind when they do not import
//!    (pip under a time limit). Tesseract: the latest release first; when its import fails
//!    on `GLIBCXX` (the 0.35 wheels need a newer libstdc++ than older distributions ship)
//!    `==0.34.1.7`, which bundles its own, as its users do. Every step is a line of the
//!    report's environment notes; a peer that does not install leaves its harness to write
//!    its rows as skipped with the reason (never hidden). `--python PY` runs the harnesses
//!    with an existing interpreter instead (development; no install).
//! 2. **Harnesses** (each with `OMP_NUM_THREADS=1` and the other thread-count variables at
//!    1): the Rust peer runs (`peers_rust` of `ccd-benches`: parry3d-f64, families 1–2) and
//!    every `benches/peers/*.py` other than `common.py` and the `_*.py` helper modules, each as
//!    `PY benches/peers/X.py --out target/peers/X.json [--quick] [--data DIR] [--robots DIR]`
//!    under a time limit, stderr kept in `target/peers/X.stderr.log`. `--data` is the
//!    folder with `unc-frames/` and `robots/` (`--data`, else the shared checkout's `data/`
//!    when it exists); `--robots` the folder with `panda/` and `pr2/` (found as
//!    `cargo xtask robots` finds them: the data folders, else the `example-robot-data`
//!    package under `target/robot-data`).
//! 3. **Merge** ([`merge`]): the JSONs of the protocol (`ccd_benches::protocol`) become one
//!    table per family (workload, tool, version, settings, queries, misses, late, false
//!    alarms, median / p90 / CPU median µs, ratio = peer median / ccd median of the same
//!    harness and workload, target and whether it is met), printed and written to
//!    `OUT/peers.md` and `OUT/peers.json` (default `OUT` = `target/bench-report`; also under
//!    the `"peers"` key of `OUT/results.json` when that file exists), with one SVG plot per
//!    family (`peers-FAMILY.svg`: time per query on a log axis per tool, misses marked by
//!    their own series), drawn by the bench report's plotter.
//!
//! The command fails when a ccd row has a miss or a late answer, a fairness check failed, or
//! a harness crashed (its stderr tail is printed); a peer's misses are data.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use ccd_benches::protocol::{Family, Row};
use clap::Args;
use serde::Serialize;
use serde_json::json;

use crate::report::{Plot, SceneReport, Series, TargetLine};
use crate::robot_data::RobotSources;

/// The Tesseract release whose wheels bundle their own libstdc++ (the fallback when the
/// latest release's import fails on `GLIBCXX`).
const TESSERACT_FALLBACK: &str = "tesseract-robotics-nanobind==0.34.1.7";

/// Time limit of one pip install.
const PIP_LIMIT: Duration = Duration::from_secs(900);

/// Time limit of the wheel build.
const BUILD_LIMIT: Duration = Duration::from_secs(3600);

/// The name of the Rust harness (its JSON is `target/peers/peers_rust.json`).
const RUST_HARNESS: &str = "peers_rust";

/// Arguments of `cargo xtask peers`.
#[derive(Args, Debug)]
pub(crate) struct PeersArgs {
    /// CI mode: fewer queries and repeats, parry's slow mesh casts only on small meshes.
    #[arg(long)]
    quick: bool,
    /// Folder with `unc-frames/` and `robots/` (default: the shared checkout's `data/` when
    /// it exists).
    #[arg(long)]
    data: Option<PathBuf>,
    /// Report folder (default: `target/bench-report`).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Run only these harnesses (`peers_rust`, or a file stem of `benches/peers/`;
    /// repeatable).
    #[arg(long)]
    only: Vec<String>,
    /// Run the Python harnesses with this interpreter and install nothing (development).
    #[arg(long)]
    python: Option<PathBuf>,
}

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
fn headline(f: &MergedFamily) -> String {
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

/// `cargo xtask peers`.
pub(crate) fn run(args: &PeersArgs) -> Result<()> {
    let root = crate::workspace_root();
    let target = crate::target_dir();
    let work = target.join("peers");
    fs::create_dir_all(&work).with_context(|| format!("creating {}", work.display()))?;
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| target.join("bench-report"));
    let started = Instant::now();
    let wanted = |name: &str| args.only.is_empty() || args.only.iter().any(|o| o == name);
    let harnesses = python_harnesses(&root.join("benches/peers"))?;
    let need_python = harnesses.iter().any(|h| wanted(&stem(h)));
    let mut environment = Vec::new();
    let python = match (&args.python, need_python) {
        (Some(p), _) => {
            environment.push(format!(
                "Python harnesses run with {} (--python: nothing installed)",
                p.display()
            ));
            Some(p.clone())
        }
        (None, true) => Some(setup_venv(&root, &target, &work, &mut environment)?),
        (None, false) => None,
    };
    if let Some(py) = &python {
        environment.push(versions_line(py));
    }
    // data and robots
    let shared_data = crate::shared_dir(None).join("data");
    let shared_data = shared_data.canonicalize().unwrap_or(shared_data);
    let data = args.data.clone().or_else(|| {
        (shared_data.join("unc-frames").is_dir() || shared_data.join("robots").is_dir())
            .then(|| shared_data.clone())
    });
    let robots = robots_dir(data.as_deref(), &shared_data);
    environment.push(format!(
        "data: {}; robots: {}",
        data.as_ref()
            .map_or("none (procedural inputs)".into(), |d| d
                .display()
                .to_string()),
        robots
            .as_ref()
            .map_or("none".into(), |d| d.display().to_string())
    ));
    let mut results = Vec::new();
    let mut crashes = Vec::new();
    let limit = Duration::from_secs(if args.quick { 600 } else { 7200 });
    // the Rust peers
    if wanted(RUST_HARNESS) {
        eprintln!("peers: building {RUST_HARNESS} (release)");
        let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .current_dir(&root)
            .args([
                "build",
                "--release",
                "-p",
                "ccd-benches",
                "--bin",
                RUST_HARNESS,
            ])
            .status()
            .context("running cargo build")?;
        if !status.success() {
            bail!("cargo build -p ccd-benches --bin {RUST_HARNESS} failed ({status})");
        }
        let mut cmd = Command::new(target.join("release").join(RUST_HARNESS));
        run_harness(
            RUST_HARNESS,
            &mut cmd,
            &work,
            args.quick,
            data.as_deref(),
            robots.as_deref(),
            limit,
            &mut results,
            &mut crashes,
        );
    }
    for h in &harnesses {
        let name = stem(h);
        if !wanted(&name) {
            continue;
        }
        let py = python.as_ref().context("no Python for the harnesses")?;
        let mut cmd = Command::new(py);
        cmd.arg(h);
        run_harness(
            &name,
            &mut cmd,
            &work,
            args.quick,
            data.as_deref(),
            robots.as_deref(),
            limit,
            &mut results,
            &mut crashes,
        );
    }
    let merged = merge(&results, &crashes);
    // report
    for f in &merged.families {
        let scene = scene_of(f);
        println!("{}", scene.to_text());
        for c in &f.checks {
            println!(
                "  check {}: {} ({})",
                if c.passed { "passed" } else { "FAILED" },
                c.name,
                c.detail
            );
        }
        println!();
    }
    fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    let md = markdown(&merged, &environment, args.quick);
    fs::write(out.join("peers.md"), &md).context("writing peers.md")?;
    let scenes: Vec<SceneReport> = merged.families.iter().map(scene_of).collect();
    let body = json!({
        "quick": args.quick,
        "seconds": started.elapsed().as_secs_f64(),
        "environment": environment,
        "families": merged.families,
        "crashes": merged.crashes,
        "failures": merged.failures,
    });
    let mut saved = body.clone();
    saved["scenes"] = serde_json::to_value(&scenes)?;
    let peers_json = out.join("peers.json");
    fs::write(&peers_json, serde_json::to_string_pretty(&saved)?).context("writing peers.json")?;
    let plots = crate::report::plots_from_results(&peers_json, &out)?;
    let results_json = out.join("results.json");
    if results_json.is_file() {
        let text = fs::read_to_string(&results_json)?;
        match serde_json::from_str::<serde_json::Value>(&text) {
            Ok(serde_json::Value::Object(mut o)) => {
                o.insert("peers".into(), body);
                fs::write(&results_json, serde_json::to_string_pretty(&o)?)?;
                println!(
                    "peers: added the \"peers\" key to {}",
                    results_json.display()
                );
            }
            _ => println!(
                "peers: {} is not a JSON object; left as it is",
                results_json.display()
            ),
        }
    }
    println!(
        "peers: {} families, {plots} plots, report in {} ({:.0} s)",
        merged.families.len(),
        out.join("peers.md").display(),
        started.elapsed().as_secs_f64()
    );
    if !merged.failures.is_empty() {
        for e in &merged.failures {
            eprintln!("error: {e}");
        }
        bail!(
            "{} failures (see {})",
            merged.failures.len(),
            out.join("peers.md").display()
        );
    }
    Ok(())
}

fn stem(p: &Path) -> String {
    p.file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("?")
        .to_string()
}

/// The harnesses: `benches/peers/*.py` other than `common.py` and the helper modules whose
/// names start with `_`, sorted.
fn python_harnesses(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut out: Vec<PathBuf> = fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.extension().is_some_and(|e| e == "py")
                && p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n != "common.py" && !n.starts_with('_'))
        })
        .collect();
    out.sort();
    Ok(out)
}

/// The folder holding `panda/` and `pr2/`: the data folders, else the registry package.
fn robots_dir(data: Option<&Path>, shared_data: &Path) -> Option<PathBuf> {
    let sources = RobotSources::new(data, Some(shared_data), true);
    let pr2: Vec<PathBuf> = sources
        .all("pr2")
        .into_iter()
        .filter_map(|d| d.path.parent().map(Path::to_path_buf))
        .collect();
    sources
        .all("panda")
        .into_iter()
        .filter_map(|d| d.path.parent().map(Path::to_path_buf))
        .find(|p| pr2.contains(p))
}

/// Runs one harness under `limit`, stderr to `work/NAME.stderr.log`; its JSON goes to
/// `results`, or a crash to `crashes`.
#[allow(clippy::too_many_arguments)]
fn run_harness(
    name: &str,
    cmd: &mut Command,
    work: &Path,
    quick: bool,
    data: Option<&Path>,
    robots: Option<&Path>,
    limit: Duration,
    results: &mut Vec<(String, Family)>,
    crashes: &mut Vec<Crash>,
) {
    let json = work.join(format!("{name}.json"));
    let log = work.join(format!("{name}.stderr.log"));
    let _ = fs::remove_file(&json);
    cmd.arg("--out").arg(&json);
    if quick {
        cmd.arg("--quick");
    }
    if let Some(d) = data {
        cmd.arg("--data").arg(d);
    }
    if let Some(r) = robots {
        cmd.arg("--robots").arg(r);
    }
    for var in [
        "OMP_NUM_THREADS",
        "OPENBLAS_NUM_THREADS",
        "MKL_NUM_THREADS",
        "NUMEXPR_NUM_THREADS",
        "VECLIB_MAXIMUM_THREADS",
        "RAYON_NUM_THREADS",
    ] {
        cmd.env(var, "1");
    }
    cmd.env("PYTHONUNBUFFERED", "1");
    eprintln!("peers: running {name}");
    let start = Instant::now();
    let outcome = run_bounded(cmd, limit, &log, false);
    let tail = stderr_tail(&log, 20);
    let crash = |error: String| Crash {
        harness: name.into(),
        error,
        stderr_tail: tail.clone(),
    };
    match outcome {
        Err(e) => crashes.push(crash(e)),
        Ok(status) if !status.success() => crashes.push(crash(status.to_string())),
        Ok(_) => match fs::read_to_string(&json)
            .map_err(anyhow::Error::from)
            .and_then(|t| parse_families(&t))
        {
            Ok(fams) => {
                eprintln!(
                    "peers: {name} done in {:.1} s ({} families)",
                    start.elapsed().as_secs_f64(),
                    fams.len()
                );
                results.extend(fams.into_iter().map(|f| (name.to_string(), f)));
            }
            Err(e) => crashes.push(crash(format!("no valid JSON in {}: {e:#}", json.display()))),
        },
    }
}

fn stderr_tail(log: &Path, lines: usize) -> String {
    let text = fs::read_to_string(log).unwrap_or_default();
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// Runs `cmd` with stderr into `log` (stdout inherited, or to the log too when `quiet`),
/// stopping it after `limit`.
fn run_bounded(
    cmd: &mut Command,
    limit: Duration,
    log: &Path,
    quiet: bool,
) -> Result<ExitStatus, String> {
    let file = fs::File::create(log).map_err(|e| format!("creating {}: {e}", log.display()))?;
    let out: Stdio = if quiet {
        file.try_clone().map_err(|e| e.to_string())?.into()
    } else {
        Stdio::inherit()
    };
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(file)
        .spawn()
        .map_err(|e| format!("cannot start {:?}: {e}", cmd.get_program()))?;
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Ok(status),
            Ok(None) if start.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "stopped after the time limit of {} s",
                    limit.as_secs()
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(100)),
            Err(e) => return Err(format!("waiting: {e}")),
        }
    }
}

/// `PY -c CODE` succeeds; else the last line of its stderr.
fn python_ok(py: &Path, code: &str) -> Result<(), String> {
    match Command::new(py)
        .args(["-c", code])
        .stdin(Stdio::null())
        .output()
    {
        Ok(o) if o.status.success() => Ok(()),
        Ok(o) => Err(String::from_utf8_lossy(&o.stderr)
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("failed")
            .trim()
            .to_string()),
        Err(e) => Err(format!("cannot run {}: {e}", py.display())),
    }
}

fn pip(py: &Path, packages: &[&str], extra: &[&str], work: &Path) -> Result<(), String> {
    let log = work.join("pip.log");
    let mut cmd = Command::new(py);
    cmd.args([
        "-m",
        "pip",
        "install",
        "--disable-pip-version-check",
        "--timeout",
        "60",
        "--retries",
        "2",
    ])
    .args(extra)
    .args(packages);
    match run_bounded(&mut cmd, PIP_LIMIT, &log, true)? {
        s if s.success() => Ok(()),
        s => Err(format!(
            "pip install {} failed ({s}): {}",
            packages.join(" "),
            stderr_tail(&log, 1)
        )),
    }
}

/// Builds the wheel and brings `work/venv` up to date; returns its interpreter.
fn setup_venv(
    root: &Path,
    target: &Path,
    work: &Path,
    env_notes: &mut Vec<String>,
) -> Result<PathBuf> {
    let python3 = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
    let build_venv = std::env::var_os("CCD_WHEEL_BUILD_VENV")
        .map_or_else(|| target.join("wheel-build-venv"), PathBuf::from);
    let maturin = build_venv.join("bin/maturin");
    if !maturin.is_file() {
        eprintln!(
            "peers: creating the build venv {} with maturin",
            build_venv.display()
        );
        let ok = Command::new(&python3)
            .arg("-m")
            .arg("venv")
            .arg(&build_venv)
            .status()?;
        if !ok.success() {
            bail!("{python3} -m venv {} failed", build_venv.display());
        }
        pip(
            &build_venv.join("bin/python"),
            &["maturin"],
            &["--quiet"],
            work,
        )
        .map_err(anyhow::Error::msg)?;
    }
    // the wheel (cargo makes a warm build quick)
    let wheels = target.join("wheels");
    if let Ok(entries) = fs::read_dir(&wheels) {
        for e in entries.flatten() {
            if e.file_name().to_string_lossy().starts_with("ccd_toc-") {
                let _ = fs::remove_file(e.path());
            }
        }
    }
    eprintln!("peers: building the ccd wheel (maturin, release)");
    let t = Instant::now();
    let log = work.join("maturin.log");
    let mut cmd = Command::new(&maturin);
    cmd.current_dir(root)
        .args([
            "build",
            "--release",
            "-m",
            "crates/python/Cargo.toml",
            "--out",
        ])
        .arg(&wheels);
    match run_bounded(&mut cmd, BUILD_LIMIT, &log, true) {
        Ok(s) if s.success() => {}
        Ok(s) => bail!("maturin build failed ({s}):\n{}", stderr_tail(&log, 20)),
        Err(e) => bail!("maturin build: {e}"),
    }
    let wheel = fs::read_dir(&wheels)?
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("ccd_toc-"))
        })
        .context("maturin wrote no ccd_toc wheel")?;
    env_notes.push(format!(
        "ccd wheel {} built in {:.0} s",
        wheel.file_name().unwrap_or_default().to_string_lossy(),
        t.elapsed().as_secs_f64()
    ));
    let venv = work.join("venv");
    let py = venv.join("bin/python");
    if !py.is_file() {
        eprintln!("peers: creating {}", venv.display());
        let ok = Command::new(&python3)
            .arg("-m")
            .arg("venv")
            .arg(&venv)
            .status()?;
        if !ok.success() {
            bail!("{python3} -m venv {} failed", venv.display());
        }
    }
    // the wheel, when its contents changed since the last install (the wheel file itself
    // differs on every build: zip timestamps): the compiled library and the Python sources
    let mut h = std::collections::hash_map::DefaultHasher::new();
    let library = target.join("release/libccd_python.so");
    fs::read(&library).unwrap_or_default().hash(&mut h);
    hash_tree(&root.join("crates/python/python"), &mut h);
    let stamp = format!("{:016x}", h.finish());
    let stamp_file = venv.join(".ccd-wheel");
    if fs::read_to_string(&stamp_file).ok().as_deref() != Some(stamp.as_str())
        || python_ok(&py, "import ccd").is_err()
    {
        let w = wheel.to_string_lossy().to_string();
        pip(
            &py,
            &[&w],
            &["--quiet", "--force-reinstall", "--no-deps"],
            work,
        )
        .map_err(anyhow::Error::msg)?;
        fs::write(&stamp_file, &stamp)?;
        env_notes.push("ccd wheel installed into target/peers/venv".into());
    }
    // the peers and numpy, when they do not import
    for (package, module) in [
        ("numpy", "numpy"),
        ("python-fcl", "fcl"),
        ("ipctk", "ipctk"),
    ] {
        if python_ok(&py, &format!("import {module}")).is_ok() {
            continue;
        }
        eprintln!("peers: pip install {package}");
        let r = pip(&py, &[package], &["--quiet"], work)
            .and_then(|()| python_ok(&py, &format!("import {module}")));
        if let Err(e) = r {
            env_notes.push(format!(
                "{package}: not available ({e}); its harness reports its rows as skipped"
            ));
        }
    }
    tesseract(&py, work, env_notes);
    Ok(py)
}

/// Hashes every file under `dir` (paths and contents, in sorted order).
fn hash_tree(dir: &Path, h: &mut impl Hasher) {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .map(|r| r.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    entries.sort();
    for p in entries {
        if p.file_name().is_some_and(|n| n == "__pycache__") {
            continue;
        } else if p.is_dir() {
            hash_tree(&p, h);
        } else {
            p.hash(h);
            fs::read(&p).unwrap_or_default().hash(h);
        }
    }
}

/// Tesseract: the installed one when it imports, else the latest release, else (on a
/// `GLIBCXX` import error) the release that bundles its libstdc++.
fn tesseract(py: &Path, work: &Path, env_notes: &mut Vec<String>) {
    // the compiled modules (the package's `__init__` alone imports on any libstdc++)
    let probe =
        "import tesseract_robotics.tesseract_common, tesseract_robotics.tesseract_environment";
    if python_ok(py, probe).is_ok() {
        return;
    }
    eprintln!("peers: pip install tesseract-robotics-nanobind");
    let latest = pip(
        py,
        &["tesseract-robotics-nanobind"],
        &["--quiet", "--upgrade"],
        work,
    )
    .and_then(|()| python_ok(py, probe));
    match latest {
        Ok(()) => env_notes.push("tesseract-robotics-nanobind: latest release installed".into()),
        Err(e) if e.contains("GLIBCXX") => {
            eprintln!("peers: the latest Tesseract needs a newer libstdc++ ({e}); installing {TESSERACT_FALLBACK}");
            match pip(py, &[TESSERACT_FALLBACK], &["--quiet"], work).and_then(|()| python_ok(py, probe)) {
                Ok(()) => env_notes.push(format!(
                    "tesseract-robotics-nanobind: the latest release does not import here ({e}); installed {TESSERACT_FALLBACK}, whose wheel bundles its libstdc++"
                )),
                Err(e2) => env_notes.push(format!(
                    "tesseract-robotics-nanobind: not available (latest: {e}; {TESSERACT_FALLBACK}: {e2}); its harness reports its rows as skipped"
                )),
            }
        }
        Err(e) => env_notes.push(format!(
            "tesseract-robotics-nanobind: not available ({e}); its harness reports its rows as skipped"
        )),
    }
}

/// The versions of the interpreter's packages, one line.
fn versions_line(py: &Path) -> String {
    let code = r"
import sys, importlib.metadata as m
out = ['Python ' + sys.version.split()[0]]
for p in ['ccd-toc', 'numpy', 'python-fcl', 'ipctk', 'tesseract-robotics-nanobind']:
    try:
        out.append(p + ' ' + m.version(p))
    except Exception:
        out.append(p + ' absent')
print(', '.join(out))
";
    match Command::new(py).args(["-c", code]).output() {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout).trim().to_string(),
        _ => format!("{}: versions unknown", py.display()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
