//! The batch loop: JSON Lines in, one result record per query line out, in input order, on
//! a pool of threads, optionally one shard of the input.

use std::io::{BufRead, Write};
use std::str::FromStr;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::error::{BatchError, QueryError};
use crate::run::Runner;
use crate::schema::{Outcome, ResultRecord};

pub use crate::limits::MAX_THREADS;

/// Longest accepted line (bytes); a longer line is an error record, skipped without being
/// held in memory.
pub const MAX_LINE_BYTES: usize = 256 << 20;

/// Lines read and run together (results are written in order after each group).
const GROUP_LINES: usize = 4096;
/// Bytes read before a group is run even if it has fewer lines.
const GROUP_BYTES: usize = 32 << 20;

/// One of `count` interleaved shards: lines `i` (0-based) with `i % count == index`.
///
/// ```
/// use ccd_cli::batch::Shard;
///
/// let shard: Shard = "1/4".parse()?;
/// assert_eq!((shard.index, shard.count), (1, 4));
/// assert!(shard.contains(5) && !shard.contains(4)); // 0-based line indices
/// assert!("4/4".parse::<Shard>().is_err() && "x".parse::<Shard>().is_err());
/// # Ok::<(), ccd_cli::error::BatchError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// This shard, `0..count`.
    pub index: u64,
    /// Number of shards, at least 1.
    pub count: u64,
}

impl Default for Shard {
    /// The whole input.
    fn default() -> Self {
        Self { index: 0, count: 1 }
    }
}

impl Shard {
    /// A shard, checked.
    ///
    /// # Errors
    /// [`BatchError::Shard`] unless `index < count`.
    pub fn new(index: u64, count: u64) -> Result<Self, BatchError> {
        if index < count {
            Ok(Self { index, count })
        } else {
            Err(BatchError::Shard { index, count })
        }
    }

    /// Whether the line with 0-based index `i` belongs to this shard.
    pub fn contains(&self, i: u64) -> bool {
        i % self.count == self.index
    }
}

impl FromStr for Shard {
    type Err = BatchError;

    fn from_str(text: &str) -> Result<Self, BatchError> {
        let bad = || BatchError::ShardSyntax(text.to_owned());
        let (i, n) = text.trim().split_once('/').ok_or_else(bad)?;
        let index = i.trim().parse().map_err(|_| bad())?;
        let count = n.trim().parse().map_err(|_| bad())?;
        Self::new(index, count)
    }
}

/// How to run a batch: `Default` (all cores, the whole input) and the `with_*` builders.
///
/// ```
/// use ccd_cli::batch::{BatchOptions, Shard};
/// let o = BatchOptions::default().with_threads(2).with_shard(Shard::new(1, 4)?);
/// assert_eq!((o.threads, o.shard.index), (2, 1));
/// # Ok::<(), ccd_cli::error::BatchError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct BatchOptions {
    /// Worker threads, `1..=MAX_THREADS`.
    pub threads: usize,
    /// Which lines to run.
    pub shard: Shard,
}

impl Default for BatchOptions {
    /// All available cores, the whole input.
    fn default() -> Self {
        Self {
            threads: std::thread::available_parallelism().map_or(1, usize::from),
            shard: Shard::default(),
        }
    }
}

impl BatchOptions {
    /// With `threads` worker threads (checked by [`run_batch`]: `1..=MAX_THREADS`).
    #[must_use]
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    /// With the shard `shard`.
    #[must_use]
    pub fn with_shard(mut self, shard: Shard) -> Self {
        self.shard = shard;
        self
    }
}

/// What a batch did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Summary {
    /// Lines read (all shards, blank lines included).
    pub lines: u64,
    /// Records written (non-blank lines of this shard).
    pub records: u64,
    /// Records with a result.
    pub ok: u64,
    /// Records with an error.
    pub errors: u64,
    /// Results with a contact (`toc` not null).
    pub contacts: u64,
    /// Wall time.
    pub elapsed: Duration,
    /// Worker threads.
    pub threads: usize,
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let secs = self.elapsed.as_secs_f64();
        #[allow(clippy::cast_precision_loss)] // a rate for people
        let rate = if secs > 0.0 {
            self.records as f64 / secs
        } else {
            0.0
        };
        write!(
            f,
            "{} queries: {} ok ({} with contact), {} errors; {:.3} s, {:.0} queries/s on {} thread{}",
            self.records,
            self.ok,
            self.contacts,
            self.errors,
            secs,
            rate,
            self.threads,
            if self.threads == 1 { "" } else { "s" }
        )
    }
}

/// A line as read: its number, and its bytes or the fact that it was too long.
struct Line {
    number: u64,
    bytes: Result<Vec<u8>, QueryError>,
}

/// Reads one line (without the newline) into `buf`, keeping at most `limit` bytes; returns
/// the bytes consumed (0 at the end of input) and whether the line was longer than `limit`.
fn read_line_limited(
    input: &mut impl BufRead,
    buf: &mut Vec<u8>,
    limit: usize,
) -> std::io::Result<(usize, bool)> {
    buf.clear();
    let (mut consumed, mut too_long) = (0, false);
    loop {
        let available = match input.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok((consumed, too_long));
        }
        let (take, done) = match available.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (available.len(), false),
        };
        let content = if done { take - 1 } else { take };
        if !too_long {
            if buf.len() + content > limit {
                too_long = true;
                buf.clear();
                buf.shrink_to(0);
            } else {
                buf.extend_from_slice(&available[..content]);
            }
        }
        input.consume(take);
        consumed += take;
        if done {
            return Ok((consumed, too_long));
        }
    }
}

/// Runs every query line of `input` (JSON Lines; blank lines are skipped but counted) that
/// belongs to `options.shard`, and writes one JSON record per line to `out`, in input order.
/// `progress` is called with the number of input bytes consumed after each group of lines.
///
/// A line that fails (bad JSON, unknown kind, missing file, invalid input) is an error
/// record; the run goes on. Only reading the input, writing the output or a bad option stops
/// it.
///
/// # Errors
/// [`BatchError::Read`], [`BatchError::Write`], [`BatchError::Threads`],
/// [`BatchError::ThreadPool`].
///
/// # Example
/// ```
/// use ccd_cli::batch::{run_batch, BatchOptions};
/// use ccd_cli::run::Runner;
///
/// let input = concat!(
///     r#"{"kind": "vertex_face", "id": "a", "x0": [[0.2,0.2,1],[0,0,0],[1,0,0],[0,1,0]], "x1": [[0.2,0.2,-1],[0,0,0],[1,0,0],[0,1,0]]}"#, "\n",
///     "not json\n",
/// );
/// let mut out = Vec::new();
/// let options = BatchOptions::default().with_threads(1);
/// let summary = run_batch(input.as_bytes(), "input", &mut out, &Runner::new("."), &options, |_| {})?;
/// assert_eq!((summary.ok, summary.errors, summary.contacts), (1, 1, 1));
/// let lines: Vec<&str> = std::str::from_utf8(&out).unwrap().lines().collect();
/// assert!(lines[0].starts_with(r#"{"line":1,"id":"a","ok":{"kind":"vertex_face","toc":0.49"#));
/// assert!(lines[1].starts_with(r#"{"line":2,"error":{"kind":"parse""#));
/// # Ok::<(), ccd_cli::error::BatchError>(())
/// ```
pub fn run_batch(
    mut input: impl BufRead,
    what: &str,
    mut out: impl Write,
    runner: &Runner,
    options: &BatchOptions,
    mut progress: impl FnMut(u64),
) -> Result<Summary, BatchError> {
    let start = Instant::now();
    if options.threads == 0 || options.threads > MAX_THREADS {
        return Err(BatchError::Threads(options.threads));
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.threads)
        .build()
        .map_err(|e| BatchError::ThreadPool {
            threads: options.threads,
            message: e.to_string(),
        })?;
    let mut summary = Summary {
        threads: options.threads,
        ..Summary::default()
    };
    // A pipeline of three stages so that reading and writing (serial) overlap the queries
    // (parallel): this thread reads group k + 1 while the pool runs group k, then writes the
    // records of group k. The pool is driven from a helper thread because `install` blocks.
    // At most two groups are in flight (one running, one queued), so memory stays bounded.
    std::thread::scope(|scope| {
        let (to_pool, groups) = std::sync::mpsc::sync_channel::<(Vec<Line>, u64)>(1);
        let (to_writer, done) = std::sync::mpsc::sync_channel::<(Records, u64)>(1);
        let pool = &pool;
        scope.spawn(move || {
            for (group, consumed) in groups {
                let records = pool.install(|| run_group(runner, &group));
                if to_writer.send((records, consumed)).is_err() {
                    break; // the reader stopped (an error): nothing more to do
                }
            }
        });
        let mut buf = Vec::new();
        let (mut in_flight, mut at_end) = (0usize, false);
        while !at_end {
            let (group, consumed) = read_group(
                &mut input,
                what,
                &mut buf,
                options,
                &mut summary,
                &mut at_end,
            )?;
            if !group.is_empty() || consumed > 0 {
                // the pool thread only stops once `to_pool` is dropped: send cannot fail
                to_pool
                    .send((group, consumed))
                    .map_err(|_| BatchError::Internal("the query thread stopped"))?;
                in_flight += 1;
            }
            // keep one group queued behind the running one; write the oldest when more
            while in_flight > 1 || (at_end && in_flight > 0) {
                let (records, consumed) = done
                    .recv()
                    .map_err(|_| BatchError::Internal("the query thread stopped"))?;
                in_flight -= 1;
                write_records(&mut out, &records, &mut summary)?;
                progress(consumed);
            }
        }
        Ok::<(), BatchError>(())
    })?;
    out.flush().map_err(BatchError::Write)?;
    summary.elapsed = start.elapsed();
    Ok(summary)
}

/// The serialized records of one group with, for each, `Some(contact?)` or `None` for an
/// error record.
type Records = Vec<(Vec<u8>, Option<bool>)>;

/// Reads the next group of lines of this shard (at most [`GROUP_LINES`] lines or
/// [`GROUP_BYTES`] bytes); returns it with the input bytes it consumed, and sets `at_end` at
/// the end of the input.
fn read_group(
    input: &mut impl BufRead,
    what: &str,
    buf: &mut Vec<u8>,
    options: &BatchOptions,
    summary: &mut Summary,
    at_end: &mut bool,
) -> Result<(Vec<Line>, u64), BatchError> {
    let mut group = Vec::with_capacity(GROUP_LINES);
    let (mut group_bytes, mut consumed) = (0usize, 0u64);
    while group.len() < GROUP_LINES && group_bytes < GROUP_BYTES {
        let (n, too_long) =
            read_line_limited(input, buf, MAX_LINE_BYTES).map_err(|source| BatchError::Read {
                what: what.to_owned(),
                source,
            })?;
        if n == 0 {
            *at_end = true;
            break;
        }
        consumed += n as u64;
        let index = summary.lines;
        summary.lines += 1;
        if !options.shard.contains(index) {
            continue;
        }
        let mut bytes = buf.as_slice();
        if index == 0 {
            bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        }
        if !too_long && bytes.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        group_bytes += bytes.len();
        group.push(Line {
            number: index + 1,
            bytes: if too_long {
                Err(QueryError::LineTooLong {
                    limit: MAX_LINE_BYTES,
                })
            } else {
                Ok(bytes.to_vec())
            },
        });
    }
    Ok((group, consumed))
}

/// Runs and serializes one group on the current pool, in order.
fn run_group(runner: &Runner, group: &[Line]) -> Records {
    group
        .par_iter()
        .map(|line| {
            let record = match &line.bytes {
                Ok(bytes) => runner.process_line(bytes, line.number),
                Err(e) => ResultRecord {
                    line: Some(line.number),
                    id: None,
                    outcome: Outcome::Error(e.to_info()),
                },
            };
            let contact = match &record.outcome {
                Outcome::Ok(r) => Some(r.toc().is_some()),
                Outcome::Error(_) => None,
            };
            let mut text = serde_json::to_vec(&record).unwrap_or_else(|e| {
                format!(
                    r#"{{"line":{},"error":{{"kind":"internal","message":{:?}}}}}"#,
                    line.number,
                    e.to_string()
                )
                .into_bytes()
            });
            text.push(b'\n');
            (text, contact)
        })
        .collect()
}

/// Writes one group's records in order and counts them.
fn write_records(
    out: &mut impl Write,
    records: &Records,
    summary: &mut Summary,
) -> Result<(), BatchError> {
    for (text, contact) in records {
        out.write_all(text).map_err(BatchError::Write)?;
        summary.records += 1;
        match contact {
            Some(hit) => {
                summary.ok += 1;
                summary.contacts += u64::from(*hit);
            }
            None => summary.errors += 1,
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_are_cut_and_skipped_to_the_newline() {
        let input = b"abcdef\nxy\n\nlast";
        let mut reader = &input[..];
        let mut buf = Vec::new();
        let mut lines = Vec::new();
        loop {
            let (n, long) = read_line_limited(&mut reader, &mut buf, 3).unwrap();
            if n == 0 {
                break;
            }
            lines.push((n, long, buf.clone()));
        }
        assert_eq!(
            lines,
            vec![
                (7, true, vec![]),
                (3, false, b"xy".to_vec()),
                (1, false, vec![]),
                (4, true, vec![]),
            ]
        );
    }

    #[test]
    fn shards_partition_the_lines() {
        let shards: Vec<Shard> = (0..3).map(|i| Shard::new(i, 3).unwrap()).collect();
        for line in 0..30 {
            assert_eq!(shards.iter().filter(|s| s.contains(line)).count(), 1);
        }
        assert!(Shard::new(3, 3).is_err() && Shard::new(0, 0).is_err());
        assert!(" 2 / 5 ".parse::<Shard>().is_ok());
        assert!("-1/5".parse::<Shard>().is_err() && "1/".parse::<Shard>().is_err());
    }

    #[test]
    fn zero_threads_is_an_error() {
        let options = BatchOptions::default().with_threads(0);
        let r = run_batch(
            &b""[..],
            "x",
            Vec::new(),
            &Runner::new("."),
            &options,
            |_| {},
        );
        assert!(matches!(r, Err(BatchError::Threads(0))));
    }
}
