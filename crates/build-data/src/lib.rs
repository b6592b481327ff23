//! The build-script helper of the `ccd` workspace's data tests (one copy of what five
//! `build.rs` files did).
//!
//! A crate whose integration tests read real data calls [`emit`] from its build script with
//! the folders the tests need. For each `(name, folder)`:
//!
//! - the folder is looked up in the shared real-data checkout: `$CCD_SHARED_DIR` when set,
//!   else `../shared` beside the repository;
//! - a robot folder (`data/robots/NAME/...`) may come instead from the `example-robot-data`
//!   package that `cargo xtask robots` installs (the same upstream files):
//!   `$CCD_ROBOT_DATA/robots/NAME`, else `$CARGO_TARGET_DIR/robot-data/robots/NAME`, else
//!   `target/robot-data/robots/NAME` in the workspace; the robot root chosen is passed to the
//!   tests as the compile-time environment variable `CCD_ROBOT_<NAME>`;
//! - a folder found nowhere sets `cfg(ccd_missing_data = "<name>")`; the tests carry
//!   `#[cfg_attr(ccd_missing_data = "<name>", ignore = "...")]` and panic when run without
//!   the folder (`--include-ignored`).
//!
//! Robots read only from the registry package (`registry_only`) get `CCD_ROBOT_<NAME>`
//! pointing into it always, and `CCD_ROBOT_DATA_ROBOTS` names the package's robot folder:
//! their tests fail, naming `cargo xtask robots`, when it is absent (never skipped).
//!
//! Adding a folder later re-runs the build script when its nearest existing parent inside
//! the checkout changes; if the whole checkout was absent, `touch` the crate's `build.rs` (or
//! set `CCD_SHARED_DIR`) to re-check.
//!
//! # Example
//! The body of a `build.rs`'s `main` whose tests read the Panda from either source and the
//! UR robots from the registry package only:
//! ```no_run
//! ccd_build_data::emit(&[("panda", "data/robots/panda/urdf")], &["ur"]);
//! ```

#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};

/// Prints the cargo instructions for a crate whose tests read `needs`
/// (`(cfg value, folder relative to the shared checkout)`) and the registry-only robots
/// `registry_only` (see the crate docs). Call it from a build script: it reads
/// `CARGO_MANIFEST_DIR`, `CCD_SHARED_DIR`, `CCD_ROBOT_DATA` and `CARGO_TARGET_DIR`.
///
/// # Example
/// ```no_run
/// // build.rs of a crate whose tests read the UNC frame pairs
/// ccd_build_data::emit(&[("unc-frames", "data/unc-frames")], &[]);
/// ```
pub fn emit(needs: &[(&str, &str)], registry_only: &[&str]) {
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR").map_or_else(
        || std::env::current_dir().unwrap_or_default(),
        PathBuf::from,
    );
    for line in instructions(
        &manifest,
        std::env::var_os("CCD_SHARED_DIR").map(PathBuf::from),
        std::env::var_os("CCD_ROBOT_DATA").map(PathBuf::from),
        std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from),
        needs,
        registry_only,
    ) {
        println!("{line}");
    }
}

/// The cargo instructions [`emit`] prints, from explicit inputs (the environment variables
/// it reads) for a crate at `manifest` (`crates/NAME` of the workspace).
///
/// # Example
/// ```
/// use std::path::Path;
///
/// let lines = ccd_build_data::instructions(
///     Path::new("/nowhere/repo/crates/geometry"),
///     Some("/nowhere/shared".into()),
///     None,
///     None,
///     &[("unc-frames", "data/unc-frames")],
///     &[],
/// );
/// assert!(lines.contains(&"cargo::rustc-cfg=ccd_missing_data=\"unc-frames\"".to_string()));
/// ```
#[must_use]
pub fn instructions(
    manifest: &Path,
    shared_dir: Option<PathBuf>,
    robot_data_dir: Option<PathBuf>,
    target_dir: Option<PathBuf>,
    needs: &[(&str, &str)],
    registry_only: &[&str],
) -> Vec<String> {
    let mut out = vec![
        "cargo::rerun-if-changed=build.rs".to_string(),
        "cargo::rerun-if-env-changed=CCD_SHARED_DIR".to_string(),
        "cargo::rerun-if-env-changed=CCD_ROBOT_DATA".to_string(),
    ];
    let values: Vec<String> = needs.iter().map(|(v, _)| format!("\"{v}\"")).collect();
    out.push(format!(
        "cargo::rustc-check-cfg=cfg(ccd_missing_data, values({}))",
        values.join(", ")
    ));
    let shared = shared_dir.unwrap_or_else(|| manifest.join("../../../shared"));
    let registry = robot_data(manifest, robot_data_dir, target_dir).join("robots");
    if !registry_only.is_empty() {
        out.push(format!(
            "cargo::rustc-env=CCD_ROBOT_DATA_ROBOTS={}",
            registry.display()
        ));
        for name in registry_only {
            out.push(format!(
                "cargo::rustc-env=CCD_ROBOT_{}={}",
                name.to_uppercase(),
                registry.join(name).display()
            ));
        }
        if registry.is_dir() {
            out.push(format!("cargo::rerun-if-changed={}", registry.display()));
        } else if let Some(parent) = registry.ancestors().skip(1).find(|p| p.is_dir()) {
            out.push(format!("cargo::rerun-if-changed={}", parent.display()));
        }
    }
    for &(value, folder) in needs {
        let dir = shared.join(folder);
        // data/robots/NAME/rest → (NAME, the registry's robots/NAME/rest)
        let robot = folder.strip_prefix("data/robots/").map(|rest| {
            let name = rest.split('/').next().unwrap_or(rest);
            (name, registry.join(rest))
        });
        let found = if dir.is_dir() {
            Some(dir.clone())
        } else {
            robot
                .as_ref()
                .map(|(_, d)| d.clone())
                .filter(|d| d.is_dir())
        };
        if let Some((name, _)) = &robot {
            let root = match &found {
                Some(f) if !f.starts_with(&shared) => registry.join(name),
                _ => shared.join("data/robots").join(name),
            };
            out.push(format!(
                "cargo::rustc-env=CCD_ROBOT_{}={}",
                name.to_uppercase(),
                root.display()
            ));
        }
        if let Some(found) = found {
            // a change inside (files removed or replaced) re-checks
            out.push(format!("cargo::rerun-if-changed={}", found.display()));
        } else {
            out.push(format!("cargo::rustc-cfg=ccd_missing_data=\"{value}\""));
            // the nearest existing ancestor inside the checkout, so adding the folder re-checks
            if let Some(parent) = dir
                .ancestors()
                .skip(1)
                .take_while(|p| p.starts_with(&shared))
                .find(|p| p.is_dir())
            {
                out.push(format!("cargo::rerun-if-changed={}", parent.display()));
            }
            if robot.is_some() && registry.is_dir() {
                out.push(format!("cargo::rerun-if-changed={}", registry.display()));
            }
        }
    }
    out
}

/// Where `cargo xtask robots` installs the registry robots.
fn robot_data(manifest: &Path, robot_data: Option<PathBuf>, target: Option<PathBuf>) -> PathBuf {
    if let Some(d) = robot_data {
        return d;
    }
    match target {
        Some(t) if t.is_absolute() => t.join("robot-data"),
        Some(t) => manifest.join("../..").join(t).join("robot-data"),
        None => manifest.join("../../target/robot-data"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("ccd-build-data-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn present_folder_is_watched_and_absent_one_is_marked() {
        let root = temp("marks");
        let shared = root.join("shared");
        std::fs::create_dir_all(shared.join("data/unc-frames")).unwrap();
        let manifest = root.join("repo/crates/x");
        let lines = instructions(
            &manifest,
            Some(shared.clone()),
            None,
            None,
            &[
                ("unc-frames", "data/unc-frames"),
                ("mocap", "data/mocap/cmu-131"),
            ],
            &[],
        );
        assert!(lines.contains(&format!(
            "cargo::rerun-if-changed={}",
            shared.join("data/unc-frames").display()
        )));
        assert!(lines.contains(&"cargo::rustc-cfg=ccd_missing_data=\"mocap\"".to_string()));
        assert!(!lines.contains(&"cargo::rustc-cfg=ccd_missing_data=\"unc-frames\"".to_string()));
        // adding data/mocap later re-runs: its nearest existing parent is watched
        assert!(lines.contains(&format!(
            "cargo::rerun-if-changed={}",
            shared.join("data").display()
        )));
        assert!(lines[3].starts_with(
            "cargo::rustc-check-cfg=cfg(ccd_missing_data, values(\"unc-frames\", \"mocap\"))"
        ));
        std::fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn robot_from_the_registry_when_the_checkout_lacks_it() {
        let root = temp("robots");
        let shared = root.join("shared");
        std::fs::create_dir_all(&shared).unwrap();
        let data = root.join("robot-data");
        std::fs::create_dir_all(data.join("robots/panda/urdf")).unwrap();
        let lines = instructions(
            &root.join("repo/crates/x"),
            Some(shared.clone()),
            Some(data.clone()),
            None,
            &[
                ("panda", "data/robots/panda/urdf"),
                ("pr2", "data/robots/pr2/urdf"),
            ],
            &["ur"],
        );
        let env = |k: &str| {
            lines
                .iter()
                .find_map(|l| l.strip_prefix(&format!("cargo::rustc-env={k}=")))
                .map(PathBuf::from)
        };
        assert_eq!(env("CCD_ROBOT_PANDA"), Some(data.join("robots/panda")));
        // absent everywhere: the shared path is named, and the tests are marked
        assert_eq!(env("CCD_ROBOT_PR2"), Some(shared.join("data/robots/pr2")));
        assert!(lines.contains(&"cargo::rustc-cfg=ccd_missing_data=\"pr2\"".to_string()));
        assert!(!lines.contains(&"cargo::rustc-cfg=ccd_missing_data=\"panda\"".to_string()));
        assert_eq!(env("CCD_ROBOT_UR"), Some(data.join("robots/ur")));
        assert_eq!(env("CCD_ROBOT_DATA_ROBOTS"), Some(data.join("robots")));
        std::fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn target_dir_relative_to_the_workspace() {
        let m = Path::new("/w/repo/crates/x");
        assert_eq!(
            robot_data(m, None, Some("tgt".into())),
            Path::new("/w/repo/crates/x/../..").join("tgt/robot-data")
        );
        assert_eq!(
            robot_data(m, None, Some("/abs/t".into())),
            Path::new("/abs/t/robot-data")
        );
        assert_eq!(robot_data(m, None, None), m.join("../../target/robot-data"));
    }
}
