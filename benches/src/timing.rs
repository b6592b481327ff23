//! Per-query timing on a shared machine: each query is timed alone (one call, as a user
//! calls it), best wall time of a few repeats, with the calling thread's CPU time of the
//! same run beside it (`CLOCK_THREAD_CPUTIME_ID`: the time the query itself ran, without the
//! time other processes held the core).
//!
//! ```
//! use ccd_benches::timing::time_query;
//! let (t, x) = time_query(3, || 2 + 2);
//! assert_eq!(x, 4);
//! assert!(t.wall_us >= 0.0 && t.cpu_us >= 0.0);
//! ```

use std::hint::black_box;
use std::time::Instant;

/// One query's time: the best wall time of its repeats and that run's thread CPU time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QueryTime {
    /// Wall time, µs.
    pub wall_us: f64,
    /// CPU time of the calling thread during the same run, µs.
    pub cpu_us: f64,
}

/// CPU time of the calling thread in µs from an arbitrary origin.
///
/// ```
/// let a = ccd_benches::timing::thread_cpu_us();
/// assert!(ccd_benches::timing::thread_cpu_us() >= a);
/// ```
pub fn thread_cpu_us() -> f64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    t.tv_sec as f64 * 1e6 + t.tv_nsec as f64 * 1e-3
}

/// Runs `f` `repeats` times (at least once) and keeps the fastest run's wall and CPU time
/// and the last answer.
///
/// ```
/// let (t, v) = ccd_benches::timing::time_query(1, || vec![1u8; 8]);
/// assert_eq!(v.len(), 8);
/// assert!(t.wall_us.is_finite());
/// ```
pub fn time_query<T>(repeats: u32, mut f: impl FnMut() -> T) -> (QueryTime, T) {
    let mut best = QueryTime {
        wall_us: f64::INFINITY,
        cpu_us: f64::INFINITY,
    };
    let mut last = None;
    for _ in 0..repeats.max(1) {
        let (c0, w0) = (thread_cpu_us(), Instant::now());
        let out = black_box(f());
        let wall = w0.elapsed().as_secs_f64() * 1e6;
        let cpu = thread_cpu_us() - c0;
        if wall < best.wall_us {
            best = QueryTime {
                wall_us: wall,
                cpu_us: cpu,
            };
        }
        last = Some(out);
    }
    (best, last.expect("at least one run"))
}

/// The `q`-quantile (0 ≤ q ≤ 1) of `xs` by the nearest-rank rule on the sorted values
/// (`None` for an empty slice; NaN sorts last).
///
/// ```
/// assert_eq!(ccd_benches::timing::quantile(&[4.0, 1.0, 3.0, 2.0], 0.5), Some(2.0));
/// ```
pub fn quantile(xs: &[f64], q: f64) -> Option<f64> {
    if xs.is_empty() {
        return None;
    }
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let rank = (q.clamp(0.0, 1.0) * v.len() as f64).ceil() as usize;
    Some(v[rank.clamp(1, v.len()) - 1])
}

/// Median (nearest rank, the lower middle of an even count).
///
/// ```
/// assert_eq!(ccd_benches::timing::median(&[5.0]), Some(5.0));
/// ```
pub fn median(xs: &[f64]) -> Option<f64> {
    quantile(xs, 0.5)
}

/// 90th percentile (nearest rank).
///
/// ```
/// let xs: Vec<f64> = (1..=10).map(f64::from).collect();
/// assert_eq!(ccd_benches::timing::p90(&xs), Some(9.0));
/// ```
pub fn p90(xs: &[f64]) -> Option<f64> {
    quantile(xs, 0.9)
}
