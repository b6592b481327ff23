//! Running the harnesses: finding the Python scripts and the robots folder, running each
//! harness under a time limit with its stderr logged, and collecting its JSON or its crash.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use ccd_benches::protocol::Family;

use super::results::{Crash, parse_families};
use crate::robot_data::RobotSources;

pub(super) fn stem(p: &Path) -> String {
    p.file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("?")
        .to_string()
}

/// The harnesses: `benches/peers/*.py` other than `common.py` and the helper modules whose
/// names start with `_`, sorted.
pub(super) fn python_harnesses(dir: &Path) -> Result<Vec<PathBuf>> {
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
pub(super) fn robots_dir(data: Option<&Path>, shared_data: &Path) -> Option<PathBuf> {
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
pub(super) fn run_harness(
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

pub(super) fn stderr_tail(log: &Path, lines: usize) -> String {
    let text = fs::read_to_string(log).unwrap_or_default();
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// Runs `cmd` with stderr into `log` (stdout inherited, or to the log too when `quiet`),
/// stopping it after `limit`.
pub(super) fn run_bounded(
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
