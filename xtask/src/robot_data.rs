//! Where real robots come from: the data folders a user names or has, then the
//! `example-robot-data` package of the Python package registry (PyPI), installed on first use
//! into a folder under `target/`.
//!
//! A robot is a folder with `urdf/`, `srdf/` and `meshes/` (the layout of
//! `shared/data/robots/panda` and of the package's `robots/panda_description`: the same
//! upstream files). The sources are tried in this order, per robot:
//!
//! 1. `--data DIR`: `DIR/robots/NAME`;
//! 2. the shared checkout: `--shared DIR` / `$CCD_SHARED_DIR` / `../shared` beside the
//!    workspace, `data/robots/NAME`;
//! 3. the registry package, in [`registry_dir`] (`$CCD_ROBOT_DATA`, else
//!    `$CARGO_TARGET_DIR/robot-data`, else `target/robot-data`): `robots/NAME` links to the
//!    package's `robots/NAME_description` (installed with `pip install --target` on first use,
//!    with one line saying so; `CCD_ROBOT_REGISTRY=off` turns the lookup off);
//! 4. none: the scene runs its procedural stand-in and says so.
//!
//! A source that exists but does not load (a broken URDF, say) is reported in one line and the
//! next one is tried. Nothing here panics or waits without a bound: pip runs under a time
//! limit, and a missing Python or registry is one line.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The package and version the robots come from (the same upstream files as
/// `shared/data/robots`).
pub(crate) const PACKAGE: &str = "example-robot-data==6.0.0";

/// Where the package's robot folders live inside a `pip install --target` folder.
const PACKAGE_ROBOTS: &str = "cmeel.prefix/share/example-robot-data/robots";

/// How long pip may take (download of ~130 MB and unpacking) before it is stopped.
const PIP_LIMIT: Duration = Duration::from_secs(600);

/// One place a robot can be read from.
#[derive(Clone, Debug)]
pub(crate) struct RobotDir {
    /// The robot's folder (`urdf/`, `srdf/`, `meshes/`).
    pub(crate) path: PathBuf,
    /// Where it came from, for reports ("--data", "shared data", "example-robot-data 6.0.0
    /// (PyPI)").
    pub(crate) origin: String,
}

/// The robot sources of a run, in the order they are tried.
#[derive(Clone, Debug, Default)]
pub(crate) struct RobotSources {
    /// Folders holding `robots/NAME` (the `--data` folder, the shared data folder), with
    /// their origin labels.
    roots: Vec<(PathBuf, String)>,
    /// Whether the registry package may be used (and installed on first use).
    registry: bool,
}

impl RobotSources {
    /// The sources for a run: `data` (`--data`), `shared_data` (the shared checkout's
    /// `data/`), and the registry package unless `registry` is false.
    pub(crate) fn new(data: Option<&Path>, shared_data: Option<&Path>, registry: bool) -> Self {
        let mut roots = Vec::new();
        if let Some(d) = data {
            roots.push((d.to_path_buf(), format!("--data {}", d.display())));
        }
        if let Some(d) = shared_data
            && Some(d) != data
        {
            roots.push((d.to_path_buf(), format!("shared data {}", d.display())));
        }
        Self { roots, registry }
    }

    /// Sources that never look anywhere (tests of the stand-ins).
    #[cfg(test)]
    pub(crate) fn none() -> Self {
        Self::default()
    }

    /// The data folders that hold robot `name`, in order (the registry package is
    /// [`RobotSources::registry`], tried after these).
    pub(crate) fn candidates(&self, name: &str) -> Vec<RobotDir> {
        self.roots
            .iter()
            .map(|(root, origin)| RobotDir {
                path: root.join("robots").join(name),
                origin: origin.clone(),
            })
            .filter(|d| d.path.is_dir())
            .collect()
    }

    /// Robot `name` from the registry package, installing it on first use; `None` (with
    /// one line on stderr saying why) when the registry is off or cannot be reached.
    pub(crate) fn registry(&self, name: &str) -> Option<RobotDir> {
        if !(self.registry && registry_enabled()) {
            return None;
        }
        match ensure_registry() {
            Ok(dir) => {
                let path = dir.join("robots").join(name);
                if path.is_dir() {
                    Some(RobotDir {
                        path,
                        origin: format!("{PACKAGE} (PyPI)"),
                    })
                } else {
                    eprintln!("robots: {PACKAGE} has no robot {name:?}");
                    None
                }
            }
            Err(e) => {
                eprintln!("robots: {e}; the procedural stand-ins run instead");
                None
            }
        }
    }

    /// Every source of robot `name` in order: the data folders, then the registry package
    /// (asked only when no data folder has the robot).
    pub(crate) fn all(&self, name: &str) -> Vec<RobotDir> {
        let mut out = self.candidates(name);
        if out.is_empty() {
            out.extend(self.registry(name));
        }
        out
    }
}

/// Whether `CCD_ROBOT_REGISTRY` allows the registry package (anything but `off`/`0`/`no`).
fn registry_enabled() -> bool {
    !matches!(
        std::env::var("CCD_ROBOT_REGISTRY").as_deref(),
        Ok("off" | "0" | "no" | "false")
    )
}

/// The folder the registry package is installed into: `$CCD_ROBOT_DATA`, else
/// `$CARGO_TARGET_DIR/robot-data`, else `target/robot-data` in the workspace.
pub(crate) fn registry_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("CCD_ROBOT_DATA") {
        return PathBuf::from(d);
    }
    crate::target_dir().join("robot-data")
}

/// The registry folder with `robots/NAME` links to every robot of the package, installing
/// the package first when it is absent.
///
/// # Errors
/// A message of one line: no Python, pip failed (no network, say) or ran out of time, or
/// the package does not have the expected layout.
pub(crate) fn ensure_registry() -> Result<PathBuf, String> {
    let dir = registry_dir();
    let site = dir.join("site");
    let robots = site.join(PACKAGE_ROBOTS);
    let marker = dir.join("installed");
    if !(marker.is_file() && robots.is_dir()) {
        eprintln!(
            "robots: installing {PACKAGE} from PyPI into {} (first use; ~130 MB)",
            site.display()
        );
        let _ = std::fs::remove_dir_all(&site);
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        pip_install(&site)?;
        if !robots.is_dir() {
            return Err(format!(
                "{PACKAGE} installed, but {} is missing (a changed package layout)",
                robots.display()
            ));
        }
        std::fs::write(&marker, PACKAGE)
            .map_err(|e| format!("cannot write {}: {e}", marker.display()))?;
    }
    link_robots(
        &robots,
        &dir.join("robots"),
        Path::new("..").join("site").join(PACKAGE_ROBOTS).as_path(),
    )?;
    Ok(dir)
}

/// `python3 -m pip install --target SITE PACKAGE`, bounded by [`PIP_LIMIT`].
fn pip_install(site: &Path) -> Result<(), String> {
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
    let mut child = Command::new(&python)
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
        ])
        .args(["--no-deps", "--timeout", "30", "--retries", "1", "--target"])
        .arg(site)
        .arg(PACKAGE)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {python} -m pip ({e}): install Python 3 with pip"))?;
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => return Ok(()),
            Ok(Some(status)) => {
                let mut err = String::new();
                if let Some(mut s) = child.stderr.take() {
                    let _ = std::io::Read::read_to_string(&mut s, &mut err);
                }
                let last = err
                    .lines()
                    .rev()
                    .find(|l| !l.trim().is_empty())
                    .unwrap_or("")
                    .trim()
                    .to_string();
                return Err(format!("pip install {PACKAGE} failed ({status}): {last}"));
            }
            Ok(None) if start.elapsed() > PIP_LIMIT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "pip install {PACKAGE} stopped after {} s",
                    PIP_LIMIT.as_secs()
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(200)),
            Err(e) => return Err(format!("waiting for pip: {e}")),
        }
    }
}

/// `robots/NAME` → `PACKAGE_ROBOTS/NAME_description` for every robot of the package (the
/// layout of `shared/data/robots`); the links point at `relative/NAME_description` (relative
/// to `robots`, so that the folder can move).
fn link_robots(package_robots: &Path, robots: &Path, relative: &Path) -> Result<(), String> {
    std::fs::create_dir_all(robots)
        .map_err(|e| format!("cannot create {}: {e}", robots.display()))?;
    let entries = std::fs::read_dir(package_robots)
        .map_err(|e| format!("cannot read {}: {e}", package_robots.display()))?;
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(name) = file_name
            .to_str()
            .and_then(|n| n.strip_suffix("_description"))
        else {
            continue;
        };
        let link = robots.join(name);
        if link.exists() {
            continue;
        }
        let _ = std::fs::remove_file(&link); // a dangling link of an earlier install
        symlink_dir(&relative.join(&file_name), &link)
            .map_err(|e| format!("cannot link {}: {e}", link.display()))?;
    }
    Ok(())
}

#[cfg(unix)]
fn symlink_dir(target: &Path, link: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(target, link)
}

#[cfg(windows)]
fn symlink_dir(target: &Path, link: &Path) -> std::io::Result<()> {
    std::os::windows::fs::symlink_dir(target, link)
}

/// `cargo xtask robots`: installs the registry package (unless the shared folder has every
/// robot the tests read, the UR arms and TIAGo included, and `--force` is not given) and prints where each robot is read from. Always
/// exits 0 when nothing could be installed: the tests that need robots are then reported
/// as ignored, with the reason.
pub(crate) fn run_robots(force: bool) -> anyhow::Result<()> {
    let shared = crate::shared_dir(None).join("data");
    // the UR arm and TIAGo (tests of the package's robots) come only from the package
    let have_shared = ["panda", "pr2", "ur", "tiago"]
        .iter()
        .all(|n| shared.join("robots").join(n).join("urdf").is_dir());
    if have_shared && !force {
        println!(
            "robots: the shared data folder has the Panda, the PR2, the UR arms and TIAGo ({}); nothing to install (--force installs {PACKAGE} anyway)",
            shared.join("robots").display()
        );
        return Ok(());
    }
    match ensure_registry() {
        Ok(dir) => {
            let mut names: Vec<String> = std::fs::read_dir(dir.join("robots"))?
                .flatten()
                .filter_map(|e| e.file_name().to_str().map(str::to_string))
                .collect();
            names.sort();
            println!(
                "robots: {PACKAGE} in {} ({} robots: {})",
                dir.join("robots").display(),
                names.len(),
                names.join(", ")
            );
        }
        Err(e) => println!(
            "robots: {e}; the tests that need robots will be reported as ignored, and the bench runs its stand-ins"
        ),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_then_shared_in_order_and_absent_folders_dropped() {
        let tmp = std::env::temp_dir().join(format!("ccd-robot-sources-{}", std::process::id()));
        let (a, b) = (tmp.join("a"), tmp.join("b"));
        std::fs::create_dir_all(a.join("robots/panda")).unwrap();
        std::fs::create_dir_all(b.join("robots/panda")).unwrap();
        std::fs::create_dir_all(b.join("robots/pr2")).unwrap();
        let s = RobotSources::new(Some(&a), Some(&b), false);
        let panda = s.candidates("panda");
        assert_eq!(panda.len(), 2);
        assert_eq!(panda[0].path, a.join("robots/panda"));
        assert!(panda[0].origin.starts_with("--data"));
        assert_eq!(panda[1].path, b.join("robots/panda"));
        let pr2 = s.candidates("pr2");
        assert_eq!(pr2.len(), 1);
        assert!(pr2[0].origin.starts_with("shared data"));
        assert!(s.candidates("tiago").is_empty());
        std::fs::remove_dir_all(&tmp).unwrap();
    }

    #[test]
    fn links_name_the_robots_without_their_suffix() {
        let tmp = std::env::temp_dir().join(format!("ccd-robot-links-{}", std::process::id()));
        let pkg = tmp.join("pkg");
        std::fs::create_dir_all(pkg.join("panda_description/urdf")).unwrap();
        std::fs::create_dir_all(pkg.join("README.d")).unwrap();
        let rel = Path::new("../pkg");
        link_robots(&pkg, &tmp.join("robots"), rel).unwrap();
        assert!(tmp.join("robots/panda/urdf").is_dir());
        assert!(!tmp.join("robots/README.d").exists());
        // again: existing links are kept
        link_robots(&pkg, &tmp.join("robots"), rel).unwrap();
        std::fs::remove_dir_all(&tmp).unwrap();
    }
}
