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

mod harness;
mod install;
mod results;
mod table;
#[cfg(test)]
mod tests;

use std::fs;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::Args;
use serde_json::json;

use crate::report::SceneReport;
use harness::{python_harnesses, robots_dir, run_harness, stem};
use install::{setup_venv, versions_line};
use results::merge;
use table::{markdown, scene_of};

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
