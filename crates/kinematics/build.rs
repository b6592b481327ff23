//! Build script: marks which folders of the shared real-data checkout are absent, so that the
//! integration tests that read them are reported as `ignored` with the reason (visible in
//! the test summary) instead of passing without checking anything.
//!
//! The shared checkout is `$CCD_SHARED_DIR` when set, else `../shared` beside the
//! repository. A robot's folder (`data/robots/NAME/...`) may come instead from the
//! `example-robot-data` package that `cargo xtask robots` installs (the same upstream files):
//! `$CCD_ROBOT_DATA/robots/NAME`, else `$CARGO_TARGET_DIR/robot-data/robots/NAME`, else
//! `target/robot-data/robots/NAME` in the workspace; the folder chosen is passed to the tests
//! as `CCD_ROBOT_<NAME>` (compile-time environment). Each folder found nowhere sets
//! `cfg(ccd_missing_data = "<name>")`; the tests carry
//! `#[cfg_attr(ccd_missing_data = "<name>", ignore = "...")]`, and panic when run without
//! the folder (`--include-ignored`). Adding a folder later re-runs this script when its
//! nearest existing parent inside the checkout changes; if the whole checkout was absent,
//! `touch` this file (or set `CCD_SHARED_DIR`) to re-check. See README, "Real data".

use std::path::{Path, PathBuf};

/// `(cfg value, folder relative to the shared checkout)` read by this crate's tests.
const NEEDS: &[(&str, &str)] = &[
    ("panda", "data/robots/panda/urdf"),
    ("mocap", "data/mocap/cmu-131"),
];

/// Robots read only from the registry package (`cargo xtask robots`): their tests fail,
/// naming the command, when the folder is absent (never skipped).
const REGISTRY_ONLY: &[&str] = &["ur", "tiago"];

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=CCD_SHARED_DIR");
    println!("cargo::rerun-if-env-changed=CCD_ROBOT_DATA");
    let values: Vec<String> = NEEDS.iter().map(|(v, _)| format!("\"{v}\"")).collect();
    println!(
        "cargo::rustc-check-cfg=cfg(ccd_missing_data, values({}))",
        values.join(", ")
    );
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let shared = std::env::var_os("CCD_SHARED_DIR")
        .map_or_else(|| manifest.join("../../../shared"), PathBuf::from);
    let registry = robot_data(&manifest).join("robots");
    // The registry package itself, always (no shared fallback, no `ignore`): the tests of
    // the package's robots read `CCD_ROBOT_DATA_ROBOTS/NAME` and `CCD_ROBOT_<NAME>` for
    // `REGISTRY_ONLY`, and fail with a message naming `cargo xtask robots` when it is absent.
    println!(
        "cargo::rustc-env=CCD_ROBOT_DATA_ROBOTS={}",
        registry.display()
    );
    for name in REGISTRY_ONLY {
        println!(
            "cargo::rustc-env=CCD_ROBOT_{}={}",
            name.to_uppercase(),
            registry.join(name).display()
        );
    }
    match registry.is_dir() {
        true => println!("cargo::rerun-if-changed={}", registry.display()),
        false => {
            if let Some(parent) = registry.ancestors().skip(1).find(|p| p.is_dir()) {
                println!("cargo::rerun-if-changed={}", parent.display());
            }
        }
    }
    for &(value, folder) in NEEDS {
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
            println!(
                "cargo::rustc-env=CCD_ROBOT_{}={}",
                name.to_uppercase(),
                root.display()
            );
        }
        if let Some(found) = found {
            // a change inside (files removed or replaced) re-checks
            println!("cargo::rerun-if-changed={}", found.display());
        } else {
            println!("cargo::rustc-cfg=ccd_missing_data=\"{value}\"");
            // the nearest existing ancestor inside the checkout, so adding the folder re-checks
            if let Some(parent) = dir
                .ancestors()
                .skip(1)
                .take_while(|p| p.starts_with(&shared))
                .find(|p| p.is_dir())
            {
                println!("cargo::rerun-if-changed={}", parent.display());
            }
            if robot.is_some() && registry.is_dir() {
                println!("cargo::rerun-if-changed={}", registry.display());
            }
        }
    }
}

/// Where `cargo xtask robots` installs the registry robots.
fn robot_data(manifest: &Path) -> PathBuf {
    if let Some(d) = std::env::var_os("CCD_ROBOT_DATA") {
        return PathBuf::from(d);
    }
    match std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from) {
        Some(t) if t.is_absolute() => t.join("robot-data"),
        Some(t) => manifest.join("../..").join(t).join("robot-data"),
        None => manifest.join("../../target/robot-data"),
    }
}
