//! Build script: marks which folders of the shared real-data checkout (or of the registry
//! robots of `cargo xtask robots`) this crate's tests need and are absent, so that those tests
//! are reported as `ignored` with the reason instead of passing without checking anything;
//! passes the robot folders found to the tests. The lookup rules are `ccd-build-data`'s (its
//! crate docs); see README, "Real data".

/// `(cfg value, folder relative to the shared checkout)` read by this crate's tests.
const NEEDS: &[(&str, &str)] = &[
    ("panda", "data/robots/panda/urdf"),
    ("mocap", "data/mocap/cmu-131"),
];

/// Robots read only from the registry package (`cargo xtask robots`): their tests fail,
/// naming the command, when the folder is absent (never skipped).
const REGISTRY_ONLY: &[&str] = &["ur", "tiago"];

fn main() {
    ccd_build_data::emit(NEEDS, REGISTRY_ONLY);
}
