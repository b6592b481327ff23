//! Build script: marks which folders of the shared real-data checkout (or of the registry
//! robots of `cargo xtask robots`) this crate's tests need and are absent, so that those tests
//! are reported as `ignored` with the reason instead of passing without checking anything;
//! passes the robot folders found to the tests. The lookup rules are `ccd-build-data`'s (its
//! crate docs); see README, "Real data".

/// `(cfg value, folder relative to the shared checkout)` read by this crate's tests.
const NEEDS: &[(&str, &str)] = &[("tight-inclusion", "conformance/tight-inclusion")];

/// No robot of this crate's tests comes only from the registry package.
const REGISTRY_ONLY: &[&str] = &[];

fn main() {
    ccd_build_data::emit(NEEDS, REGISTRY_ONLY);
}
