//! `ccd-cli`: the `ccd` command line and the JSON schema of its queries and results.
//!
//! The library half holds what other front ends reuse (the Python package reads the same
//! JSON Lines batches): the serde types of queries and results ([`schema`], documented there
//! with examples), the query runner with its cache of loaded files ([`run::Runner`]) and the
//! ordered, multi-threaded, shardable batch loop ([`batch::run_batch`]). The binary `ccd`
//! (feature `cli`, default) adds argument parsing, a progress bar and exit codes:
//!
//! ```text
//! ccd toc A.obj B.stl --b-start 3,0,0,1,0,0,0 --b-end -1,0,0,1,0,0,0   # rigid: JSON result
//! ccd frames f0.ply f1.ply --all                                      # deforming mesh
//! ccd batch queries.jsonl --threads 2 --shard 0/4 > results.jsonl     # JSONL in, JSONL out
//! ```
//!
//! Exit codes: 0 success (for `batch`: every line gave a result), 1 an error that stopped
//! the command (missing file, invalid input to `toc`/`frames`, unreadable batch file), 2 bad
//! arguments, 3 a batch that ran to the end with some error records.
//!
//! Conventions are the library's: time `t ∈ [0, 1]`, `null` for no contact, absolute
//! tolerances (`1e-3` rigid, `1e-6` deformable by default), conservative answers.
//!
//! # Example
//! ```
//! use ccd_cli::run::Runner;
//! use ccd_cli::schema::Outcome;
//!
//! let line = br#"{"kind": "edge_edge", "id": 1,
//!   "x0": [[-1, 0, 0], [1, 0, 0], [0, -1, 1], [0, 1, 1]],
//!   "x1": [[-1, 0, 0], [1, 0, 0], [0, -1, -1], [0, 1, -1]]}"#;
//! let record = Runner::new(".").process_line(line, 1);
//! let Outcome::Ok(result) = &record.outcome else { panic!("{record:?}") };
//! assert!(result.toc().is_some_and(|t| t <= 0.5 && t > 0.5 - 1e-6));
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod batch;
pub mod error;
pub mod limits;
pub mod run;
pub mod schema;
