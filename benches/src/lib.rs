//! Cross-crate and peer benchmarks of the `ccd` workspace (`publish = false`).
//!
//! - [`rigid`]: the rigid-pair workloads (meshes and analytic shapes, each stated in ccd and
//!   in parry3d-f64) shared by `cargo xtask bench --scene rigid-pairs`, the `peers_rust`
//!   binary and the criterion groups in `benches/benches/`.
//! - [`reference`](mod@reference): the dense reference that judges every tool of families 1–2: exact
//!   distances (ccd-distance) sampled densely along the motion, refined where a contact
//!   could hide between two samples.
//! - [`protocol`]: the JSON every peer harness writes (`benches/peers/*.py`, `peers_rust`)
//!   and `cargo xtask peers` merges: one family, its fairness checks and its rows.
//! - [`timing`]: per-query wall and CPU time, median and p90.
//!
//! See `benches/README.md` for the families, the targets and how to run them.
//!
//! ```
//! use ccd_benches::timing::{median, p90};
//! assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
//! assert_eq!(p90(&[1.0; 10]), Some(1.0));
//! ```

#![forbid(unsafe_code)]

pub mod protocol;
pub mod reference;
pub mod rigid;
pub mod timing;
