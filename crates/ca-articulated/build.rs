//! Build script: marks which folders of the shared real-data checkout are absent, so that the
//! integration tests that read them are reported as `ignored` with the reason (visible in
//! the test summary) instead of passing without checking anything.
//!
//! The shared checkout is `$CCD_SHARED_DIR` when set, else `../shared` beside the
//! repository. Each absent folder sets `cfg(ccd_missing_data = "<name>")`; the tests carry
//! `#[cfg_attr(ccd_missing_data = "<name>", ignore = "...")]`, and panic when run without
//! the folder (`--include-ignored`). Adding a folder
//! later re-runs this script when its nearest existing parent inside the checkout changes; if
//! the whole checkout was absent, `touch` this file (or set `CCD_SHARED_DIR`) to re-check.
//! See README, "Real data".

use std::path::PathBuf;

/// `(cfg value, folder relative to the shared checkout)` read by this crate's tests.
const NEEDS: &[(&str, &str)] = &[
    ("panda", "data/robots/panda/urdf"),
    ("pr2", "data/robots/pr2/urdf"),
];

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=CCD_SHARED_DIR");
    let values: Vec<String> = NEEDS.iter().map(|(v, _)| format!("\"{v}\"")).collect();
    println!(
        "cargo::rustc-check-cfg=cfg(ccd_missing_data, values({}))",
        values.join(", ")
    );
    let shared = std::env::var_os("CCD_SHARED_DIR").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
        PathBuf::from,
    );
    for &(value, folder) in NEEDS {
        let dir = shared.join(folder);
        if dir.is_dir() {
            // a change inside (files removed or replaced) re-checks
            println!("cargo::rerun-if-changed={}", dir.display());
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
        }
    }
}
