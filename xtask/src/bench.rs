//! `cargo xtask bench`: runs the scenes, prints their tables, writes the report.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

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
    let mut skipped = Vec::new();
    let started = Instant::now();
    let load_start = load_average();
    let selected: Vec<_> = scenes::ALL
        .iter()
        .filter(|s| args.scenes.is_empty() || args.scenes.iter().any(|n| n == s.name))
        .collect();
    // without a terminal (CI, redirected output) the bars are invisible: say what runs
    let plain = !std::io::stderr().is_terminal() || std::env::var_os("CI").is_some();
    for (k, scene) in selected.iter().enumerate() {
        let bar = ProgressBar::new(0);
        if plain {
            bar.set_draw_target(ProgressDrawTarget::hidden());
            eprintln!(
                "scene {} of {}: {} … (elapsed {:.0} s)",
                k + 1,
                selected.len(),
                scene.name,
                started.elapsed().as_secs_f64()
            );
        }
        bar.set_style(
            ProgressStyle::with_template("{prefix:>14} [{bar:40}] {pos}/{len} {elapsed}")
                .expect("valid template")
                .progress_chars("=> "),
        );
        bar.set_prefix(scene.name);
        let t0 = Instant::now();
        let r = if plain {
            with_heartbeat(scene.name, &bar, || (scene.run)(&cfg, &bar))?
        } else {
            (scene.run)(&cfg, &bar)?
        };
        bar.finish_and_clear();
        if plain {
            eprintln!(
                "scene {} of {}: {} {} in {:.1} s",
                k + 1,
                selected.len(),
                scene.name,
                if r.rows.is_empty() { "skipped" } else { "done" },
                t0.elapsed().as_secs_f64()
            );
        }
        if r.rows.is_empty() {
            // skipped (e.g. no real data): say why, and record it in the report
            println!("{}: skipped: {}\n", r.name, r.description);
            skipped.push(report::Skipped {
                name: r.name,
                reason: r.description,
            });
            continue;
        }
        println!("{}({:.1} s)\n", r.to_text(), t0.elapsed().as_secs_f64());
        reports.push(r);
    }
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| root.join("target/bench-report"));
    let cpus = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let meta = serde_json::json!({
        "quick": args.quick,
        "profile": if cfg!(debug_assertions) { "debug" } else { "release" },
        "commit": git_commit(&root),
        "rustc": command_line("rustc", &["--version"]),
        "cpu": cpu_model(),
        "cpus": cpus,
        "date": utc_now(),
        "threads": {
            "default": 1,
            "2-thr columns": 2,
            "note": "every column is single-threaded except the 2-thr columns (a 2-thread rayon pool)",
        },
        "seconds": started.elapsed().as_secs_f64(),
        "load_average": { "start": load_start, "end": load_average() },
    });
    report::write_all(&out, &reports, &skipped, meta.clone())?;
    println!("report: {}/results.json, table.md, *.svg", out.display());
    if args.readme {
        report::update_readme(
            &root.join("README.md"),
            &reports,
            &skipped,
            &report::readme_meta_line(&meta),
        )?;
        println!("README.md benchmark table updated");
    }
    Ok(())
}

/// The 1-minute load average (Linux `/proc/loadavg`), `None` elsewhere.
fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// Runs `f`, printing the scene's progress to stderr every 30 s (for output without a
/// terminal, where the progress bar is hidden).
fn with_heartbeat<T>(name: &str, bar: &ProgressBar, f: impl FnOnce() -> T) -> T {
    let (done, wait) = mpsc::channel::<()>();
    let (bar2, name2) = (bar.clone(), name.to_string());
    let t0 = Instant::now();
    let ticker = std::thread::spawn(move || {
        while wait.recv_timeout(Duration::from_secs(30)) == Err(mpsc::RecvTimeoutError::Timeout) {
            let len = bar2.length().unwrap_or(0);
            let progress = if len > 0 {
                format!("{}/{len}", bar2.position())
            } else {
                "running".to_string()
            };
            eprintln!(
                "  {name2}: {progress} ({:.0} s)",
                t0.elapsed().as_secs_f64()
            );
        }
    });
    let out = f();
    let _ = done.send(());
    let _ = ticker.join();
    out
}

/// First line of a command's output, or `"unknown"`.
fn command_line(cmd: &str, args: &[&str]) -> String {
    std::process::Command::new(cmd)
        .args(args)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.lines().next().map(str::to_string))
        .unwrap_or_else(|| "unknown".to_string())
}

/// The commit of the workspace, with `-dirty` when files differ from it.
fn git_commit(root: &Path) -> String {
    let dir = root.to_string_lossy();
    let head = command_line("git", &["-C", &dir, "rev-parse", "HEAD"]);
    let dirty = std::process::Command::new("git")
        .args(["-C", &dir, "status", "--porcelain", "--untracked-files=no"])
        .output()
        .is_ok_and(|o| !o.stdout.is_empty());
    if dirty { format!("{head}-dirty") } else { head }
}

/// The CPU model from `/proc/cpuinfo` (Linux), or `"unknown"`.
fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".to_string())
}

/// The current UTC time as `YYYY-MM-DDTHH:MM:SSZ`.
fn utc_now() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(i64::try_from(days).unwrap_or(0));
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Proleptic Gregorian date of a day count since 1970-01-01 (H. Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::civil_from_days;

    #[test]
    fn civil_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(20_781), (2026, 11, 24));
    }
}
