//! Error types: a bad pose, a query that cannot run, a batch that cannot start.

use std::path::PathBuf;

use crate::limits::{MAX_ITERATIONS, MAX_THREADS};

/// A pose that cannot be read or is not a rigid pose.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum PoseError {
    /// The text is neither `x,y,z,qw,qx,qy,qz` nor a JSON pose.
    #[error("pose: {0}")]
    Syntax(String),
    /// A NaN or infinite entry.
    #[error("pose has a non-finite entry")]
    NotFinite,
    /// The quaternion's norm is not within `1e-3` of 1.
    #[error("pose quaternion has norm {0}, expected 1 (within 1e-3)")]
    Quaternion(f64),
    /// A 4×4 matrix whose last row is not `[0, 0, 0, 1]`.
    #[error("pose matrix last row is {0:?}, expected [0, 0, 0, 1]")]
    LastRow([f64; 4]),
}

/// Why one query gave no result.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum QueryError {
    /// The line is not a JSON query (syntax, unknown kind or field, wrong type).
    #[error("not a valid query: {0}")]
    Parse(String),
    /// The line is longer than the batch limit.
    #[error("line longer than {limit} bytes")]
    LineTooLong {
        /// The limit in bytes.
        limit: usize,
    },
    /// A pose field is invalid. (The reason is part of the message and not an error
    /// `source`, so that a printed error chain does not say it twice.)
    #[error("{field}: {reason}")]
    Pose {
        /// Which pose (`a_start`, …).
        field: &'static str,
        /// What is wrong with it.
        reason: PoseError,
    },
    /// A mesh or robot file could not be read, parsed or turned into a hierarchy (the
    /// message names the file; cached, so a file is tried once per run).
    #[error("{message}")]
    File {
        /// The file as resolved.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// The two frames of a `frames` query do not have the same triangles.
    #[error(
        "frames differ in topology: frame 0 has {v0} vertices and {t0} triangles, frame 1 {v1} and {t1}{detail}"
    )]
    FrameMismatch {
        /// Vertices of frame 0.
        v0: usize,
        /// Triangles of frame 0.
        t0: usize,
        /// Vertices of frame 1.
        v1: usize,
        /// Triangles of frame 1.
        t1: usize,
        /// `", triangle i differs"` when the counts agree.
        detail: String,
    },
    /// `max_iterations` above [`MAX_ITERATIONS`].
    #[error("max_iterations {0} is above the limit {MAX_ITERATIONS}")]
    TooManyIterations(u32),
    /// File paths are not allowed in this context (inline meshes only).
    #[error("mesh and robot files are not allowed here (inline meshes only)")]
    PathsDisabled,
    /// The library rejected the input (non-finite or out-of-domain coordinates, a rotation
    /// block that is not a rotation, bad tolerance, wrong joint count, …).
    #[error(transparent)]
    Ccd(#[from] ccd::Error),
    /// The query panicked (a bug): reported so that a batch goes on.
    #[error("internal error (please report): {0}")]
    Internal(String),
}

/// Why a batch run stopped (as opposed to one line failing, which is a record).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BatchError {
    /// Reading the input failed.
    #[error("reading {what}: {source}")]
    Read {
        /// The input's name.
        what: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// Writing the output failed (e.g. a closed pipe).
    #[error("writing results: {0}")]
    Write(std::io::Error),
    /// `--shard` is not of the form `I/N`.
    #[error("shard {0:?}: expected I/N (two integers, 0 <= I < N)")]
    ShardSyntax(String),
    /// `--shard I/N` is not `0 <= I < N`.
    #[error("shard {index}/{count}: expected I/N with 0 <= I < N")]
    Shard {
        /// I.
        index: u64,
        /// N.
        count: u64,
    },
    /// A thread count of zero or above the limit.
    #[error("threads {0}: expected 1..={MAX_THREADS}")]
    Threads(usize),
    /// The thread pool could not be started.
    #[error("starting {threads} threads: {message}")]
    ThreadPool {
        /// Requested threads.
        threads: usize,
        /// The pool builder's message.
        message: String,
    },
    /// The thread running the queries stopped before the input ended (a bug: report it).
    #[error("internal error: {0}")]
    Internal(&'static str),
}
