//! The limits a query or a batch may ask for, checked where the input is read (kept apart
//! so that the error types can name them without depending on the runner).

/// Largest `max_iterations` a query may ask for (so that one line cannot keep a batch busy
/// for hours; the library defaults are 1000 for rigid CA and 1000 for LA).
pub const MAX_ITERATIONS: u32 = 1_000_000;

/// Most threads a batch may ask for.
pub const MAX_THREADS: usize = 1024;
