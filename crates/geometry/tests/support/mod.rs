//! Helpers shared by the integration tests of `ccd-geometry`: test-data paths and the shared
//! real-data folder.
#![allow(dead_code, unreachable_pub)]

use std::path::PathBuf;

/// A file of `tests/data/`.
pub fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// The bytes of a file of `tests/data/`.
pub fn data_bytes(name: &str) -> Vec<u8> {
    std::fs::read(data(name)).unwrap_or_else(|e| panic!("cannot read test data {name}: {e}"))
}

/// The shared real-data folder (`$CCD_SHARED_DIR/data`, else `../shared/data` beside the
/// repository). Tests that call it carry `#[cfg_attr(ccd_missing_data = ..., ignore = ...)]`
/// (set by `build.rs` when the folder is absent), so reaching this without the folder means
/// the test was forced to run (`--include-ignored`): that is a failure naming `what`.
pub fn shared_data(what: &str) -> PathBuf {
    let dir = match std::env::var_os("CCD_SHARED_DIR") {
        Some(shared) => PathBuf::from(shared).join("data"),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"),
    };
    assert!(
        dir.is_dir(),
        "{what}: shared data folder {} not found (set CCD_SHARED_DIR)",
        dir.display()
    );
    dir
}
