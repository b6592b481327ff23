//! Timing on a shared machine: the calling thread's own CPU time beside the wall clock.
//!
//! `cargo xtask bench` and the step tools run on machines shared with other jobs, where the
//! wall clock of a single-threaded query also counts the time other processes held the core.
//! The thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`, exact to the nanosecond, unlike
//! `/proc/thread-self/schedstat`, which moves at scheduler ticks) is the time the query
//! itself ran; cache pollution by other processes still shows in it. Reports name the
//! clock behind each column.

use std::time::Instant;

/// CPU time of the calling thread in ms, from an arbitrary origin.
/// CPU seconds of the whole process so far (all threads).
pub(crate) fn process_cpu_seconds() -> f64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ProcessCPUTime);
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

pub(crate) fn thread_cpu_ms() -> f64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    t.tv_sec as f64 * 1e3 + t.tv_nsec as f64 * 1e-6
}

/// Both clocks started together.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Stopwatch {
    wall: Instant,
    cpu: f64,
}

impl Stopwatch {
    /// Starts both clocks.
    pub(crate) fn start() -> Self {
        Self {
            wall: Instant::now(),
            cpu: thread_cpu_ms(),
        }
    }

    /// `(cpu, wall)` milliseconds since [`Stopwatch::start`].
    pub(crate) fn ms(&self) -> (f64, f64) {
        let cpu = thread_cpu_ms() - self.cpu;
        (cpu, self.wall.elapsed().as_secs_f64() * 1e3)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_time_advances_with_work_and_never_exceeds_much_the_wall_time() {
        let w = Stopwatch::start();
        let mut x = 0u64;
        for i in 0..5_000_000u64 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(i);
        }
        std::hint::black_box(x);
        let (cpu, wall) = w.ms();
        assert!(cpu > 0.0, "no CPU time measured for a busy loop");
        // one thread cannot run longer than the wall clock (slack: clock granularity)
        assert!(cpu <= wall + 1.0, "cpu {cpu} ms > wall {wall} ms");
    }
}
