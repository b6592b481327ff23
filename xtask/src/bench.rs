//! `cargo xtask bench`: runs the scenes, prints their tables, writes the report.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Result, bail};
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::report;
use crate::scenes::{self, SceneConfig};

/// Options of `cargo xtask bench`.
#[derive(Args, Debug)]
pub(crate) struct BenchArgs {
    /// Run a reduced set (for CI; well under two minutes).
    #[arg(long)]
    quick: bool,
    /// Folder of real inputs (default: ../shared/data beside the workspace, when present).
    #[arg(long)]
    data: Option<PathBuf>,
    /// Only run these scenes (repeatable); default: all.
    #[arg(long = "scene")]
    scenes: Vec<String>,
    /// Also rewrite the benchmark table in README.md.
    #[arg(long)]
    readme: bool,
    /// Output folder (default: target/bench-report).
    #[arg(long)]
    out: Option<PathBuf>,
}

pub(crate) fn run(args: &BenchArgs) -> Result<()> {
    let root = crate::workspace_root();
    for s in &args.scenes {
        if !scenes::ALL.iter().any(|sc| sc.name == s) {
            let names: Vec<_> = scenes::ALL.iter().map(|sc| sc.name).collect();
            bail!("unknown scene {s:?}; scenes: {}", names.join(", "));
        }
    }
    let data = args
        .data
        .clone()
        .unwrap_or_else(|| root.join("../shared/data"));
    if data.is_dir() {
        println!("real data: {}", data.display());
    } else {
        println!(
            "real data: {} not found; running the built-in procedural scenes only",
            data.display()
        );
    }
    let cfg = SceneConfig {
        quick: args.quick,
        data: Some(data),
    };
    let mut reports = Vec::new();
    let started = Instant::now();
    for scene in scenes::ALL
        .iter()
        .filter(|s| args.scenes.is_empty() || args.scenes.iter().any(|n| n == s.name))
    {
        let bar = ProgressBar::new(0);
        if std::env::var_os("CI").is_some() {
            bar.set_draw_target(ProgressDrawTarget::hidden());
        }
        bar.set_style(
            ProgressStyle::with_template("{prefix:>14} [{bar:40}] {pos}/{len} {elapsed}")
                .expect("valid template")
                .progress_chars("=> "),
        );
        bar.set_prefix(scene.name);
        let t0 = Instant::now();
        let r = (scene.run)(&cfg, &bar)?;
        bar.finish_and_clear();
        if r.rows.is_empty() {
            // skipped (e.g. no real data): say why, keep it out of the report
            println!("{}: {}\n", r.name, r.description);
            continue;
        }
        println!("{}({:.1} s)\n", r.to_text(), t0.elapsed().as_secs_f64());
        reports.push(r);
    }
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| root.join("target/bench-report"));
    let meta = serde_json::json!({
        "quick": args.quick,
        "profile": if cfg!(debug_assertions) { "debug" } else { "release" },
        "threads": 1,
        "cpus": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
        "seconds": started.elapsed().as_secs_f64(),
    });
    report::write_all(&out, &reports, meta)?;
    println!("report: {}/results.json, table.md, *.svg", out.display());
    if args.readme {
        let line = format!(
            "Measured by `cargo xtask bench{}` ({} CPUs available; single-threaded except the 2-thr columns).",
            if args.quick { " --quick" } else { "" },
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1)
        );
        report::update_readme(&root.join("README.md"), &reports, &line)?;
        println!("README.md benchmark table updated");
    }
    Ok(())
}
