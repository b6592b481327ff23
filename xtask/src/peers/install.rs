//! The Python environment of the peers (`target/peers/venv`): the ccd wheel built with
//! maturin and installed when it changed, numpy and the Python peers installed when they do
//! not import (Tesseract with its fallback release), and the versions line of the report.

use std::fs;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use super::harness::{run_bounded, stderr_tail};

/// The Tesseract release whose wheels bundle their own libstdc++ (the fallback when the
/// latest release's import fails on `GLIBCXX`).
const TESSERACT_FALLBACK: &str = "tesseract-robotics-nanobind==0.34.1.7";

/// Time limit of one pip install.
const PIP_LIMIT: Duration = Duration::from_secs(900);

/// Time limit of the wheel build.
const BUILD_LIMIT: Duration = Duration::from_secs(3600);

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
pub(super) fn setup_venv(
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
pub(super) fn versions_line(py: &Path) -> String {
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
