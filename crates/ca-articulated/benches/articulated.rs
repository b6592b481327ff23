//! Criterion benchmarks of `ccd-ca-articulated` (filled in below).
fn main() {}
