//! The conservative-advancement loop, written once.
//!
//! Every query of this crate advances time the same way; only how it certifies a safe step
//! differs. A query supplies a [`SafeStep`] oracle (a certified gap and a speed bound along
//! a direction, per representation pair: mesh–mesh C2A, hull–hull GJK, shapes) and
//! [`advance_search`] runs the loop that keeps the contract:
//!
//! - an evaluation at `t` either finds a pair within `ε` (a contact at `t`: `InitiallyTouching`
//!   at the start of the search window, else `Converged`) or certifies the bodies apart over
//!   `[t, t + step]`, with bounds that hold up to `until`;
//! - the next time is `t + step`, rounded so that it never passes the exact sum (nor
//!   `until`); reaching the end of the window proves the path free;
//! - a step that makes no progress (below the resolution of `t`, or NaN) ends the search with
//!   [`Status::Stalled`] at `t`;
//! - the iteration cap ends it with [`Status::OutOfIterations`] at the time reached, a
//!   conservative lower bound of the time of contact.
//!
//! The driver is public so that other crates' conservative-advancement queries keep the
//! same contract by running on it rather than on a loop of their own (`ccd-avatar-sv`'s
//! exact capsule method does). An oracle promises what [`Probe`] documents; the driver
//! decides the statuses, the advance and the cap.

use crate::{Stats, Status};

/// What one evaluation of a [`SafeStep`] oracle found at time `t`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Probe {
    /// Some pair is within the tolerance at `t`.
    Touching,
    /// The bodies are certified apart over `[t, t + step]` (the step has already taken off
    /// the margin `ε/2` and the rounding allowance); the bounds behind it hold up to
    /// `until` (the end of the search window when they hold throughout).
    Apart {
        /// The certified advancement from `t` (0 or NaN: none).
        step: f64,
        /// The time up to which the step's bounds hold.
        until: f64,
    },
}

/// A safe-step oracle: what a representation pair contributes to the CA loop.
pub trait SafeStep {
    /// What a finished search reports (a contact with its witnesses).
    type Contact;
    /// What an evaluation can fail with (the driver adds no error of its own).
    type Error;

    /// Evaluates the pair at `t` (counting its bounding-volume and primitive tests in
    /// `stats`; the driver counts the iteration).
    ///
    /// # Errors
    /// Whatever the evaluation fails with (an invalid motion at `t`, …): the search ends
    /// with it.
    fn probe(&mut self, t: f64, stats: &mut Stats) -> Result<Probe, Self::Error>;

    /// The answer of a search that ends at `toc` with `status`: for `InitiallyTouching` and
    /// `Converged` the touching pair of the last probe (at `toc`); for `Stalled` the closest
    /// pair the last probe (at `toc`) found; for `OutOfIterations` the witness at the time
    /// reached, `toc`, after the last probe.
    ///
    /// # Errors
    /// As [`probe`](Self::probe), when the witness needs another evaluation.
    fn contact(
        &mut self,
        toc: f64,
        status: Status,
        stats: &mut Stats,
    ) -> Result<Self::Contact, Self::Error>;

    /// Told after each advance from `t` to `next` by `step` (tightens the horizon of the next
    /// evaluation's bounds).
    fn advanced(&mut self, _t: f64, _next: f64, _step: f64) {}
}

/// Where a search runs: from `from` inside the window `[start, end]` (a search resumed past
/// the window's start, after a cheaper bound proved `[start, from]` free), with an iteration
/// cap.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Search {
    /// The first evaluation time (`start ≤ from < end`).
    pub from: f64,
    /// The window's start: a contact found there is `InitiallyTouching`.
    pub start: f64,
    /// The window's end: certified steps reaching it prove the path free.
    pub end: f64,
    /// Cap on iterations (the counter in `stats` includes earlier stages of the query, and
    /// earlier searches that share the budget).
    pub max_iterations: u32,
}

/// Runs conservative advancement with `oracle` over `search`: `None` when the path is
/// certified free up to the window's end, else the contact the oracle reports (see the
/// module docs for the statuses). Every evaluation counts one iteration in `stats`; the
/// loop ends by the cap at the latest.
///
/// # Errors
/// The oracle's: the first error of [`SafeStep::probe`] or [`SafeStep::contact`].
///
/// # Example
/// Two points on a line closing at unit speed from a gap of 0.5, certified with a speed
/// bound of 2 (each step covers half of the gap left, less half the tolerance):
/// ```
/// use ccd_ca_rigid::driver::{advance_search, Probe, SafeStep, Search};
/// use ccd_ca_rigid::{Stats, Status};
///
/// struct Line {
///     eps: f64,
/// }
///
/// impl SafeStep for Line {
///     type Contact = (f64, Status);
///     type Error = std::convert::Infallible;
///     fn probe(&mut self, t: f64, _: &mut Stats) -> Result<Probe, Self::Error> {
///         let gap = 0.5 - t;
///         Ok(if gap <= self.eps {
///             Probe::Touching
///         } else {
///             Probe::Apart { step: 0.5 * (gap - 0.5 * self.eps), until: 1.0 }
///         })
///     }
///     fn contact(&mut self, toc: f64, status: Status, _: &mut Stats) -> Result<Self::Contact, Self::Error> {
///         Ok((toc, status))
///     }
/// }
///
/// let search = Search { from: 0.0, start: 0.0, end: 1.0, max_iterations: 100 };
/// let mut stats = Stats::default();
/// let (toc, status) = advance_search(&mut Line { eps: 1e-6 }, search, &mut stats)
///     .unwrap()
///     .expect("they meet at t = 0.5");
/// assert_eq!(status, Status::Converged);
/// assert!(toc <= 0.5 && toc > 0.5 - 1e-6);
/// assert!(stats.iterations < 30);
/// ```
pub fn advance_search<O: SafeStep + ?Sized>(
    oracle: &mut O,
    search: Search,
    stats: &mut Stats,
) -> Result<Option<O::Contact>, O::Error> {
    let mut t = search.from;
    loop {
        let probe = oracle.probe(t, stats)?;
        stats.iterations += 1;
        let (step, until) = match probe {
            Probe::Touching => {
                let status = if t == search.start {
                    Status::InitiallyTouching
                } else {
                    Status::Converged
                };
                return oracle.contact(t, status, stats).map(Some);
            }
            Probe::Apart { step, until } => (step, until.min(search.end)),
        };
        // (the bounds hold up to `until`: the step never passes it; NaN stays NaN)
        let next = crate::advance::advance(t, step, until).unwrap_or(until);
        if next >= search.end {
            return Ok(None);
        }
        if next <= t || next.is_nan() {
            // no progress: a step below the resolution of `t`, not positive, or NaN; the
            // bodies are apart on `[start, t]` (no pair within ε at t)
            return oracle.contact(t, Status::Stalled, stats).map(Some);
        }
        if stats.iterations >= search.max_iterations {
            // apart on `[start, next)`: `next` is a conservative lower bound of the TOC
            return oracle
                .contact(next, Status::OutOfIterations, stats)
                .map(Some);
        }
        oracle.advanced(t, next, step);
        t = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CaError;

    /// Two points on a line closing at unit speed from gap `g0`, with a speed bound of 2
    /// (each step covers half the gap left).
    struct Line {
        g0: f64,
        eps: f64,
        last: f64,
    }

    impl SafeStep for Line {
        type Contact = (f64, Status);
        type Error = CaError;
        fn probe(&mut self, t: f64, _: &mut Stats) -> Result<Probe, CaError> {
            let gap = self.g0 - t;
            self.last = t;
            if gap <= self.eps {
                return Ok(Probe::Touching);
            }
            Ok(Probe::Apart {
                step: 0.5 * (gap - 0.5 * self.eps),
                until: 1.0,
            })
        }
        fn contact(
            &mut self,
            toc: f64,
            status: Status,
            _: &mut Stats,
        ) -> Result<Self::Contact, CaError> {
            Ok((toc, status))
        }
    }

    fn search(from: f64, cap: u32) -> Search {
        Search {
            from,
            start: 0.0,
            end: 1.0,
            max_iterations: cap,
        }
    }

    #[test]
    fn statuses_follow_the_contract() {
        let mut stats = Stats::default();
        // touching at the start
        let mut o = Line {
            g0: 0.0,
            eps: 1e-3,
            last: -1.0,
        };
        let c = advance_search(&mut o, search(0.0, 10), &mut stats).unwrap();
        assert_eq!(c, Some((0.0, Status::InitiallyTouching)));
        // converges before the gap closes, never after
        let mut o = Line {
            g0: 0.5,
            eps: 1e-3,
            last: -1.0,
        };
        let mut stats = Stats::default();
        let (toc, status) = advance_search(&mut o, search(0.0, 100), &mut stats)
            .unwrap()
            .unwrap();
        assert_eq!(status, Status::Converged);
        assert!((0.5 - 1e-3..=0.5).contains(&toc), "{toc}");
        // the cap answers the time reached, below the contact
        let mut o = Line {
            g0: 0.5,
            eps: 1e-9,
            last: -1.0,
        };
        let mut stats = Stats::default();
        let (toc, status) = advance_search(&mut o, search(0.0, 3), &mut stats)
            .unwrap()
            .unwrap();
        assert_eq!((status, stats.iterations), (Status::OutOfIterations, 3));
        assert!(toc < 0.5 && toc > o.last);
        // a gap beyond the window: free
        let mut o = Line {
            g0: 2.0,
            eps: 1e-3,
            last: -1.0,
        };
        assert_eq!(
            advance_search(&mut o, search(0.0, 10), &mut Stats::default()).unwrap(),
            None
        );
        // a search resumed past the start reports Converged, not InitiallyTouching
        let mut o = Line {
            g0: 0.25,
            eps: 1e-3,
            last: -1.0,
        };
        let c = advance_search(&mut o, search(0.25, 10), &mut Stats::default()).unwrap();
        assert_eq!(c, Some((0.25, Status::Converged)));
    }

    #[test]
    fn a_step_without_progress_stalls() {
        struct Stuck;
        impl SafeStep for Stuck {
            type Contact = (f64, Status);
            type Error = CaError;
            fn probe(&mut self, _: f64, _: &mut Stats) -> Result<Probe, CaError> {
                Ok(Probe::Apart {
                    step: f64::NAN,
                    until: 1.0,
                })
            }
            fn contact(
                &mut self,
                toc: f64,
                status: Status,
                _: &mut Stats,
            ) -> Result<Self::Contact, CaError> {
                Ok((toc, status))
            }
        }
        let c = advance_search(&mut Stuck, search(0.5, 10), &mut Stats::default()).unwrap();
        assert_eq!(c, Some((0.5, Status::Stalled)));
    }
}
