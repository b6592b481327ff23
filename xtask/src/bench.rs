//! `cargo xtask bench`: runs the scenes, prints their tables, writes the report.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{Result, bail};
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::report;
use crate::robot_data::RobotSources;
use crate::scenes::{self, SceneConfig};

/// Options of `cargo xtask bench`.
#[derive(Args, Debug)]
pub(crate) struct BenchArgs {
    /// Run a reduced set (for CI; a few minutes). Its target verdicts are not meaningful.
    #[arg(long)]
    quick: bool,
    /// Folder of real inputs (`unc-frames/`, `mocap/`, `robots/`); tried before the shared
    /// checkout's `data/`.
    #[arg(long)]
    data: Option<PathBuf>,
    /// The shared checkout (default: `$CCD_SHARED_DIR`, else `../shared` beside the
    /// workspace); its `data/` is used when present. Point it at an empty folder to run as on
    /// a machine without it.
    #[arg(long)]
    shared: Option<PathBuf>,
    /// Never use the `example-robot-data` package from PyPI (default: installed on first use
    /// when no data folder has the robots; `CCD_ROBOT_REGISTRY=off` does the same).
    #[arg(long)]
    no_registry: bool,
    /// Fail unless the robot scenes ran on real robots (a data folder or the registry
    /// package), not on the procedural stand-ins (CI's check of the registry lookup).
    #[arg(long)]
    require_real_robots: bool,
    /// Fail when a scene was skipped (every scene has a procedural stand-in, so a skip means
    /// a broken stand-in; CI's fresh-machine run).
    #[arg(long)]
    require_all_scenes: bool,
    /// Only run these scenes (repeatable); default: all.
    #[arg(long = "scene")]
    scenes: Vec<String>,
    /// Also rewrite the generated section of docs/results.md (a summary row per scene and
    /// its full table); `--readme` is an older spelling.
    #[arg(long = "results", alias = "readme")]
    readme: bool,
    /// Output folder (default: `bench-report` in the target folder: `$CARGO_TARGET_DIR` or
    /// `target/`).
    #[arg(long)]
    out: Option<PathBuf>,
}

/// The robot scenes, checked by `--require-real-robots`.
const ROBOT_SCENES: &[&str] = &["pr2", "panda-planner", "robot-edge-mix"];

pub(crate) fn run(args: &BenchArgs) -> Result<()> {
    let root = crate::workspace_root();
    for s in &args.scenes {
        if !scenes::ALL.iter().any(|sc| sc.name == s) {
            let names: Vec<_> = scenes::ALL.iter().map(|sc| sc.name).collect();
            bail!("unknown scene {s:?}; scenes: {}", names.join(", "));
        }
    }
    let shared_data = crate::shared_dir(args.shared.as_deref()).join("data");
    if let Some(d) = &args.data
        && !d.is_dir()
    {
        println!(
            "real data: --data {} is not a folder; looking in the shared folder and the registry",
            d.display()
        );
    }
    if let Some(d) = args.data.as_ref().filter(|d| d.is_dir()) {
        for robot in ["panda", "pr2"] {
            if !d.join("robots").join(robot).is_dir() {
                println!(
                    "real data: --data {} has no robots/{robot}: it comes from the next source",
                    d.display()
                );
            }
        }
    }
    let data = args
        .data
        .clone()
        .filter(|d| d.is_dir())
        .unwrap_or_else(|| shared_data.clone());
    if data.is_dir() {
        println!("real data: {}", data.display());
    } else {
        println!(
            "real data: {} not found; robots from the registry package when it can be installed, procedural stand-ins for the rest",
            data.display()
        );
    }
    let cfg = SceneConfig {
        quick: args.quick,
        data: Some(data),
        robots: RobotSources::new(
            args.data.as_deref().filter(|d| d.is_dir()),
            Some(&shared_data)
                .filter(|d| d.is_dir())
                .map(PathBuf::as_path),
            !args.no_registry,
        ),
    };
    if args.quick {
        println!(
            "quick run: reduced sizes for CI; its target verdicts are NOT meaningful (run without --quick for them)"
        );
    }
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| crate::target_dir().join("bench-report"));
    let started = Instant::now();
    let load_start = load_average();
    let selected: Vec<_> = scenes::ALL
        .iter()
        .filter(|s| args.scenes.is_empty() || args.scenes.iter().any(|n| n == s.name))
        .collect();
    let Outcome {
        reports,
        skipped,
        mut failed,
        seconds,
    } = run_scenes(&selected, &cfg, started);
    if args.require_real_robots {
        for r in reports
            .iter()
            .filter(|r| ROBOT_SCENES.contains(&r.name.as_str()))
        {
            if r.description.contains("stand-in") {
                failed.push(report::Failed {
                    name: r.name.clone(),
                    error: "--require-real-robots: the scene ran on its procedural stand-in".into(),
                    seconds: 0.0,
                });
            }
        }
    }
    if args.require_all_scenes {
        for k in &skipped {
            failed.push(report::Failed {
                name: k.name.clone(),
                error: format!("--require-all-scenes: skipped ({})", k.reason),
                seconds: 0.0,
            });
        }
    }
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
        "scene_seconds": seconds.iter().map(|(n, s, c)| (n.clone(), serde_json::json!({ "wall": s, "cpu": c }))).collect::<serde_json::Map<_, _>>(),
        "cpu_seconds": crate::clock::process_cpu_seconds(),
        "load_average": { "start": load_start, "end": load_average() },
    });
    let plot_errors = report::write_all(&out, &reports, &skipped, &failed, meta.clone())?;
    for e in &plot_errors {
        println!("warning: {e}");
    }
    println!("report: {}/results.json, table.md, *.svg", out.display());
    println!("\nseconds per scene (wall, and CPU of all threads):");
    for (name, s, c) in &seconds {
        let state = if failed.iter().any(|f| &f.name == name) {
            "FAILED"
        } else if skipped.iter().any(|k| &k.name == name) {
            "skipped"
        } else {
            "done"
        };
        println!("  {name:<18} {s:>7.1} s  {c:>7.1} s CPU  {state}");
    }
    println!(
        "  {:<18} {:>7.1} s  {:>7.1} s CPU  ({} done, {} skipped, {} failed)",
        "total",
        started.elapsed().as_secs_f64(),
        crate::clock::process_cpu_seconds(),
        reports.len(),
        skipped.len(),
        failed.len()
    );
    if args.readme && failed.is_empty() {
        report::update_readme(
            &root.join(crate::RESULTS_DOC),
            &reports,
            &skipped,
            &report::readme_meta_line(&meta),
        )?;
        println!("{} updated", crate::RESULTS_DOC);
    } else if args.readme {
        println!(
            "{} NOT updated: {} scene(s) failed",
            crate::RESULTS_DOC,
            failed.len()
        );
    }
    if !failed.is_empty() {
        let names: Vec<&str> = failed.iter().map(|f| f.name.as_str()).collect();
        bail!(
            "{} of {} scenes failed: {} (errors in {}/table.md)",
            failed.len(),
            selected.len(),
            names.join(", "),
            out.display()
        );
    }
    Ok(())
}

/// What a run of scenes gave: reports, skipped and failed scenes, and (scene, wall seconds,
/// CPU seconds of the process while it ran).
struct Outcome {
    reports: Vec<report::SceneReport>,
    skipped: Vec<report::Skipped>,
    failed: Vec<report::Failed>,
    seconds: Vec<(String, f64, f64)>,
}

/// Runs `selected` in order. A scene that returns an error or panics is recorded as failed
/// (with its error) and the next one runs: nothing here ends the run early.
fn run_scenes(selected: &[&scenes::Scene], cfg: &SceneConfig, started: Instant) -> Outcome {
    let mut reports = Vec::new();
    let mut skipped = Vec::new();
    let mut failed: Vec<report::Failed> = Vec::new();
    let mut seconds: Vec<(String, f64, f64)> = Vec::new();
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
            ProgressStyle::with_template("{prefix:>14} [{bar:40}] {pos}/{len} {msg} {elapsed}")
                .expect("valid template")
                .progress_chars("=> "),
        );
        bar.set_prefix(scene.name);
        let t0 = Instant::now();
        let cpu0 = crate::clock::process_cpu_seconds();
        let run_scene = || {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (scene.run)(cfg, &bar)))
                .unwrap_or_else(|p| {
                    let what = p
                        .downcast_ref::<&str>()
                        .map(|s| (*s).to_string())
                        .or_else(|| p.downcast_ref::<String>().cloned())
                        .unwrap_or_else(|| "unknown panic".into());
                    Err(anyhow::anyhow!("panicked: {what}"))
                })
        };
        let result = if plain {
            with_heartbeat(scene.name, &bar, run_scene)
        } else {
            run_scene()
        };
        bar.finish_and_clear();
        let secs = t0.elapsed().as_secs_f64();
        seconds.push((
            scene.name.to_string(),
            secs,
            crate::clock::process_cpu_seconds() - cpu0,
        ));
        let r = match result {
            Ok(r) => r,
            Err(e) => {
                let error = format!("{e:#}");
                eprintln!(
                    "scene {} of {}: {} FAILED after {secs:.1} s: {error}",
                    k + 1,
                    selected.len(),
                    scene.name
                );
                println!("{}: FAILED after {secs:.1} s: {error}\n", scene.name);
                failed.push(report::Failed {
                    name: scene.name.to_string(),
                    error,
                    seconds: secs,
                });
                continue;
            }
        };
        if plain {
            eprintln!(
                "scene {} of {}: {} {} in {secs:.1} s",
                k + 1,
                selected.len(),
                scene.name,
                if r.rows.is_empty() { "skipped" } else { "done" },
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
        println!("{}({secs:.1} s)\n", r.to_text());
        reports.push(r);
    }
    Outcome {
        reports,
        skipped,
        failed,
        seconds,
    }
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

/// Runs `f`, printing what the scene is doing to stderr every 20 s (for output without a
/// terminal, where the progress bar is hidden): the bar's message (what a unit of work is,
/// "edge", "step", or a setup phase) and its position, "edge 3,200 of 10,000".
fn with_heartbeat<T>(name: &str, bar: &ProgressBar, f: impl FnOnce() -> T) -> T {
    let (done, wait) = mpsc::channel::<()>();
    let (bar2, name2) = (bar.clone(), name.to_string());
    let t0 = Instant::now();
    let ticker = std::thread::spawn(move || {
        while wait.recv_timeout(Duration::from_secs(20)) == Err(mpsc::RecvTimeoutError::Timeout) {
            eprintln!(
                "  {name2}: {} ({:.0} s)",
                progress_line(&bar2.message(), bar2.position(), bar2.length().unwrap_or(0)),
                t0.elapsed().as_secs_f64()
            );
        }
    });
    let out = f();
    let _ = done.send(());
    let _ = ticker.join();
    out
}

/// "edge 3,200 of 10,000" from a bar's message, position and length ("step" when the scene
/// set no message; the message alone while the length is unknown, e.g. during a setup).
fn progress_line(message: &str, pos: u64, len: u64) -> String {
    let unit = if message.is_empty() { "step" } else { message };
    if len == 0 {
        if message.is_empty() {
            "setting up".into()
        } else {
            message.into()
        }
    } else {
        format!("{unit} {} of {}", thousands(pos), thousands(len))
    }
}

/// `10000` as `10,000`.
fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
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
    use super::{civil_from_days, progress_line, run_scenes};
    use crate::report::SceneReport;
    use crate::robot_data::RobotSources;
    use crate::scenes::{Scene, SceneConfig};

    fn ok(name: &str, rows: usize) -> SceneReport {
        SceneReport {
            name: name.into(),
            paper: "p".into(),
            description: "skipped: nothing".into(),
            columns: vec!["a".into()],
            rows: vec![vec!["1".into()]; rows],
            headline: String::new(),
            summary: serde_json::json!(null),
            plots: Vec::new(),
        }
    }

    #[test]
    fn a_failing_or_panicking_scene_is_recorded_and_the_others_run() {
        let scenes = [
            Scene {
                name: "first",
                run: |_, _| Ok(ok("first", 1)),
            },
            Scene {
                name: "fails",
                run: |_, _| anyhow::bail!("no valid inputs"),
            },
            Scene {
                name: "panics",
                run: |_, _| panic!("a bug"),
            },
            Scene {
                name: "skips",
                run: |_, _| Ok(ok("skips", 0)),
            },
            Scene {
                name: "last",
                run: |_, _| Ok(ok("last", 2)),
            },
        ];
        let selected: Vec<&Scene> = scenes.iter().collect();
        let cfg = SceneConfig {
            quick: true,
            data: None,
            robots: RobotSources::none(),
        };
        let out = run_scenes(&selected, &cfg, std::time::Instant::now());
        let names = |v: Vec<&str>| v.into_iter().map(String::from).collect::<Vec<_>>();
        assert_eq!(
            out.reports
                .iter()
                .map(|r| r.name.clone())
                .collect::<Vec<_>>(),
            names(vec!["first", "last"])
        );
        assert_eq!(out.skipped.len(), 1);
        assert_eq!(out.failed.len(), 2);
        assert!(out.failed[0].error.contains("no valid inputs"));
        assert!(out.failed[1].error.contains("panicked: a bug"));
        assert_eq!(out.seconds.len(), 5);
    }

    #[test]
    fn heartbeat_lines_say_what_runs() {
        assert_eq!(progress_line("edge", 3200, 10_000), "edge 3,200 of 10,000");
        assert_eq!(progress_line("", 5, 17), "step 5 of 17");
        assert_eq!(progress_line("", 0, 0), "setting up");
        assert_eq!(
            progress_line("finding free edges", 0, 0),
            "finding free edges"
        );
    }

    #[test]
    fn civil_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(20_781), (2026, 11, 24));
    }
}
