//! TOC scheduling across steps (Lin survey slides, "Scheduling Scheme"): every pair found
//! separated carries the first step at which it could come within the tolerance, from a
//! lower bound on its distance and the declared bounds on its bodies' speeds and
//! accelerations; a heap orders those wake-up steps.
//!
//! The bound (slides: `t_c = (√(v² + 2 a_max d) − v) / a_max`): if the two bodies' point
//! speeds are at most `v + a j` during the `j`-th step after the distance `d` was measured
//! (`j = 0, 1, …`, each speed constant within its step), the distance closed within `τ` steps
//! is at most `∫₀^τ (v + a ⌊s⌋) ds ≤ v τ + a τ² / 2`, which stays below `d` while
//! `τ < 2d / (v + √(v² + 2 a d))`. The speeds are guaranteed by the world's per-body
//! envelopes: a body whose speed exceeds its envelope gets a new epoch, and a record whose
//! epochs no longer match is dropped (the pair is examined again), never trusted.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::hash::BuildHasherDefault;

use ccd_bvh::sap::{PairHasher, unkey};

/// Steps `τ ≥ 0` after a distance `d` was measured during which a pair whose relative point
/// speed is at most `v + a j` in the `j`-th step cannot close `d` (rounded down).
#[must_use]
pub(crate) fn safe_steps(d: f64, v: f64, a: f64) -> f64 {
    if d.is_nan() || d <= 0.0 || v.is_nan() || a.is_nan() {
        return 0.0;
    }
    let tau = if a > 0.0 {
        2.0 * d / (v + (v * v + 2.0 * a * d).sqrt())
    } else if v > 0.0 {
        d / v
    } else {
        f64::INFINITY
    };
    // a relative allowance for the roundings above
    tau * (1.0 - 1e-9)
}

/// A deferred pair: the first step it must be examined at, and its bodies' epochs when
/// the record was made.
#[derive(Clone, Copy, Debug)]
struct Record {
    wake: u64,
    epochs: [u64; 2],
}

/// What the schedule says about a pair at the current step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// No record: examine it.
    Due,
    /// A valid record whose time has not come: skip it.
    Deferred,
    /// A record made under a body motion that has since exceeded its declaration: dropped,
    /// examine it.
    Requeued,
}

/// The records and their heap.
#[derive(Clone, Debug, Default)]
pub(crate) struct Schedule {
    records: HashMap<u64, Record, BuildHasherDefault<PairHasher>>,
    heap: BinaryHeap<Reverse<(u64, u64)>>,
}

impl Schedule {
    /// Drops the records whose wake-up step has come (heap order); returns how many.
    pub(crate) fn expire(&mut self, step: u64) -> usize {
        let mut n = 0;
        while let Some(&Reverse((wake, key))) = self.heap.peek() {
            if wake > step {
                break;
            }
            self.heap.pop();
            if self.records.get(&key).is_some_and(|r| r.wake == wake) {
                self.records.remove(&key);
                n += 1;
            }
        }
        n
    }

    /// Whether [`verdict`](Self::verdict) would defer the pair (without its bookkeeping).
    #[cfg(feature = "parallel")]
    pub(crate) fn is_deferred(&self, key: u64, step: u64, epochs: [u64; 2]) -> bool {
        self.records
            .get(&key)
            .is_some_and(|r| r.epochs == epochs && r.wake > step)
    }

    /// The verdict for a pair whose bodies now have `epochs`.
    pub(crate) fn verdict(&mut self, key: u64, step: u64, epochs: [u64; 2]) -> Verdict {
        match self.records.get(&key) {
            None => Verdict::Due,
            Some(r) if r.epochs == epochs && r.wake > step => Verdict::Deferred,
            Some(r) if r.epochs == epochs => {
                self.records.remove(&key);
                Verdict::Due
            }
            Some(_) => {
                self.records.remove(&key);
                Verdict::Requeued
            }
        }
    }

    /// Defers the pair until step `wake` (a no-op when `wake` is not after `step`).
    pub(crate) fn defer(&mut self, key: u64, step: u64, wake: u64, epochs: [u64; 2]) {
        if wake <= step + 1 {
            self.records.remove(&key);
            return;
        }
        self.records.insert(key, Record { wake, epochs });
        self.heap.push(Reverse((wake, key)));
    }

    /// Forgets a pair (it touched, or its outcome is unknown).
    pub(crate) fn forget(&mut self, key: u64) {
        self.records.remove(&key);
    }

    /// Forgets every pair of the slots in `removed` (their bodies were removed since the
    /// last step; one pass over the records, whatever their number). `marks` is scratch.
    pub(crate) fn forget_slots(&mut self, removed: &[u32], marks: &mut Vec<bool>) {
        if removed.is_empty() || self.records.is_empty() {
            return;
        }
        marks.clear();
        let n = removed.iter().map(|&s| s as usize + 1).max().unwrap_or(0);
        marks.resize(n, false);
        for &s in removed {
            marks[s as usize] = true;
        }
        let gone = |s: u32| marks.get(s as usize).copied().unwrap_or(false);
        self.records.retain(|&k, _| {
            let [a, b] = unkey(k);
            !(gone(a) || gone(b))
        });
    }

    /// Forgets everything (scheduling switched off).
    pub(crate) fn clear(&mut self) {
        self.records.clear();
        self.heap.clear();
    }

    /// Number of pairs currently deferred.
    pub(crate) fn len(&self) -> usize {
        self.records.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn safe_steps_matches_the_slides_formula() {
        // v = 1, a = 2, d = 4: (√(1 + 16) − 1) / 2
        let tau = safe_steps(4.0, 1.0, 2.0);
        assert!((tau - (17f64.sqrt() - 1.0) / 2.0).abs() < 1e-8);
        // the distance closed in τ steps is below d
        assert!(tau + tau * tau < 4.0);
        assert_eq!(safe_steps(3.0, 1.5, 0.0), 2.0 * (1.0 - 1e-9));
        assert_eq!(safe_steps(1.0, 0.0, 0.0), f64::INFINITY);
        assert_eq!(safe_steps(-1.0, 1.0, 0.0), 0.0);
        assert_eq!(safe_steps(f64::NAN, 1.0, 0.0), 0.0);
        assert_eq!(safe_steps(1.0, f64::NAN, 0.0), 0.0);
    }

    #[test]
    fn records_expire_and_epochs_requeue() {
        let mut s = Schedule::default();
        s.defer(7, 0, 5, [1, 2]);
        s.defer(9, 0, 3, [1, 3]);
        assert_eq!(s.verdict(7, 1, [1, 2]), Verdict::Deferred);
        assert_eq!(s.expire(3), 1); // pair 9 wakes at step 3
        assert_eq!(s.verdict(9, 3, [1, 3]), Verdict::Due);
        // body epoch 2 changed to 4: requeued, not skipped
        assert_eq!(s.verdict(7, 3, [1, 4]), Verdict::Requeued);
        assert_eq!(s.verdict(7, 3, [1, 4]), Verdict::Due);
        assert_eq!(s.len(), 0);
        // a wake-up no later than the next step is no deferral
        s.defer(11, 4, 5, [0, 0]);
        assert_eq!(s.verdict(11, 5, [0, 0]), Verdict::Due);
        // removed slots take their pairs along, all at once
        let key = |a: u64, b: u64| (a << 32) | b;
        for (k, w) in [
            (key(1, 2), 9),
            (key(2, 7), 9),
            (key(3, 4), 9),
            (key(0, 3), 9),
        ] {
            s.defer(k, 5, w, [0, 0]);
        }
        let mut marks = Vec::new();
        s.forget_slots(&[2, 0], &mut marks);
        assert_eq!(s.len(), 1);
        assert_eq!(s.verdict(key(3, 4), 6, [0, 0]), Verdict::Deferred);
        s.forget_slots(&[], &mut marks);
        assert_eq!(s.len(), 1);
    }
}
