//! The world's narrow phase: per-pair conservative advancement in the order of the pairs'
//! time-of-contact lower bounds, the wake-up steps of the pairs found free, and their
//! parallel forms (`parallel`).

use super::*;
use ccd_ca_rigid::{CastOptions, CastWorkspace, RigidPair, cast};

/// A pair's work computed beside the sweep-and-prune's update
/// ([`World::all_work_joined`]); taken when the pair is due.
#[cfg(feature = "parallel")]
pub(super) type Ahead = (u64, Option<Result<PairWork, WorldError>>);

/// The parts of a [`World`] that a pair's bounds and query read: what can run beside the
/// sweep-and-prune's update, which holds the world's other part.
#[derive(Clone, Copy)]
pub(super) struct Parts<'a> {
    pub(super) slots: &'a [Slot],
    pub(super) ends: &'a EndBounds,
    pub(super) warm: &'a WarmStarts,
    pub(super) ca: &'a CaOptions,
    pub(super) step: u64,
}

impl Parts<'_> {
    pub(super) fn pair(&self, key: u64) -> (&Body, &Body) {
        pair_in(self.slots, key)
    }

    pub(super) fn handle(&self, slot: u32) -> BodyHandle {
        BodyHandle {
            index: slot,
            generation: self.slots[slot as usize].generation,
        }
    }

    /// The per-pair query of a candidate: its answer and its CA iterations.
    pub(super) fn query(&self, key: u64, mode: Mode) -> Result<(Option<Contact>, u32), WorldError> {
        let (a, b) = self.pair(key);
        let opts = CastOptions::from(self.ca.with_mode(mode));
        let motion = RigidPair {
            a: &a.motion,
            b: &b.motion,
        };
        // (a whole-step rigid cast uses no buffers: an empty workspace allocates nothing)
        cast(
            &a.collider,
            &b.collider,
            &motion,
            &opts,
            &mut CastWorkspace::default(),
        )
        .map(|out| (out.contact, out.stats.iterations))
        .map_err(|source| {
            let [x, y] = unkey(key);
            WorldError::Ca {
                a: self.handle(x),
                b: self.handle(y),
                source,
            }
        })
    }

    /// A lower bound of the pair's first time within `ε`, from the spheres, boxes and
    /// convex bounds at `t = 0` (may exceed 1: then the pair is free over the step): the
    /// distance over the summed point speeds, or the separating slab's width over the
    /// approach speed along its normal, whichever is later.
    pub(super) fn toc_lower_bound(&self, key: u64) -> (f64, Gap) {
        toc_lower_bound_in(self.slots, self.ends, self.warm, self.ca.tolerance, key)
    }

    /// [`wake_step`](Self::wake_step) with the GJK warm start `warm` (what the world's
    /// warm starts hold for the pair once this step's lower bound has been recorded).
    pub(super) fn wake_step_from(
        &self,
        key: u64,
        start: Option<Gap>,
        warm: Option<GjkCache>,
    ) -> (u64, Gap) {
        let (a, b) = self.pair(key);
        // speeds during the next step are at most this step's plus the declared growth
        let v = (a.speed + a.accel + b.speed + b.accel) * (1.0 + 1e-9);
        let acc = (a.accel + b.accel) * (1.0 + 1e-9);
        let wake = |d: f64| {
            let tau = safe_steps(d - self.ca.tolerance, v, acc);
            let whole = if tau >= 1e18 {
                1e18 as u64
            } else {
                tau.floor() as u64
            };
            self.step + 1 + whole
        };
        if let Some(g) = start {
            let mut d = g.d - (a.speed + b.speed) * (1.0 + 1e-9);
            if let Some((n, w)) = g.slab {
                d = d.max(w - projected_speed(a, b, n));
            }
            let w = wake(d);
            if w > self.step + 1 {
                let end = Gap {
                    d,
                    slab: None,
                    gjk: None,
                };
                return (w, end);
            }
        }
        let end = distance_lower_bound(
            a,
            &a.motion.pose_at(1.0),
            &a.box1,
            b,
            &b.motion.pose_at(1.0),
            &b.box1,
            f64::INFINITY,
            self.ca.tolerance,
            warm,
        );
        (wake(end.d), end)
    }

    /// A due pair's whole work in the all-contacts mode, as the other modes' separate
    /// passes compute it: its TOC lower bound; the per-pair query when the bound does not
    /// settle it; its wake-up step when it is found free (`scheduling`), from the warm start
    /// its bound left (or the last step's), as the later pass reads it from `warm`.
    pub(super) fn pair_work(&self, key: u64, scheduling: bool) -> Result<PairWork, WorldError> {
        let (lb, start) = self.toc_lower_bound(key);
        let warm = || start.gjk.or_else(|| self.warm.get(&key).map(|w| w.1));
        if lb > 1.0 {
            let wake = scheduling.then(|| self.wake_step_from(key, Some(start), warm()));
            return Ok(PairWork {
                key,
                start,
                answer: None,
                wake,
            });
        }
        let (r, n) = self.query(key, Mode::Toc)?;
        let wake = (scheduling && r.is_none()).then(|| self.wake_step_from(key, None, warm()));
        Ok(PairWork {
            key,
            start,
            answer: Some((r, n)),
            wake,
        })
    }
}

/// A queried pair: its key, its answer and its CA iterations.
pub(super) type Answer = (u64, Option<Contact>, u32);

/// Pairs' wake-up steps and distance lower bounds at the step's end (per pair found free).
pub(super) type Wakes = Vec<(u64, Gap)>;

/// A due pair's work in the all-contacts mode ([`World::pair_work`]): its TOC lower bound
/// and slab, its per-pair query's answer and CA iterations (`None` when the bound settled
/// it), and its wake-up step and end bound when it was found free and scheduling is on.
pub(super) struct PairWork {
    pub(super) key: u64,
    pub(super) start: Gap,
    pub(super) answer: Option<(Option<Contact>, u32)>,
    pub(super) wake: Option<(u64, Gap)>,
}

/// With `parallel`, the per-body refresh runs on rayon's pool from this many dynamic bodies.
#[cfg(feature = "parallel")]
pub(super) const PAR_MIN_BODIES: usize = 256;

/// With `parallel`, a step's distance bounds (a few µs per pair) run on rayon's pool from
/// this many pairs: fewer cost less than waking a sleeping worker (~20 µs measured on 2
/// cores).
#[cfg(feature = "parallel")]
pub(super) const PAR_MIN_PAIRS: usize = 16;

/// A candidate pair's TOC lower bound and its slots.
#[derive(Clone, Copy, Debug)]
pub(super) struct Candidate {
    pub(super) key: u64,
    pub(super) lb: f64,
}

/// Whether a pair with this scheduling verdict is queried in the step, counting deferred
/// and re-queued pairs in `stats`.
pub(super) fn counted_due(verdict: Verdict, stats: &mut StepStats) -> bool {
    match verdict {
        Verdict::Deferred => {
            stats.deferred += 1;
            false
        }
        Verdict::Requeued => {
            stats.requeued += 1;
            true
        }
        Verdict::Due => true,
    }
}

impl World {
    /// The parts a pair's bounds and query read ([`Parts`]).
    pub(super) fn parts(&self) -> Parts<'_> {
        Parts {
            slots: &self.slots,
            ends: &self.ends,
            warm: &self.warm,
            ca: &self.ca,
            step: self.step,
        }
    }

    pub(super) fn query(&self, key: u64, mode: Mode) -> Result<(Option<Contact>, u32), WorldError> {
        self.parts().query(key, mode)
    }

    pub(super) fn toc_lower_bound(&self, key: u64) -> (f64, Gap) {
        self.parts().toc_lower_bound(key)
    }

    pub(super) fn pair_work(&self, key: u64, scheduling: bool) -> Result<PairWork, WorldError> {
        self.parts().pair_work(key, scheduling)
    }

    /// The wake-up step of a pair found free during this step, and the pair's distance
    /// lower bound at the end of the step. A pair settled by its bound at the step's start
    /// (`start`) whose distance cannot have closed enough over the step to make it due at
    /// the next one is deferred from that bound (the distance closes by at most the summed
    /// point speeds, the slab by at most the approach speed along its normal) without a new
    /// distance at the end.
    pub(super) fn wake_step(&self, key: u64, start: Option<Gap>) -> (u64, Gap) {
        self.parts()
            .wake_step_from(key, start, self.warm.get(&key).map(|w| w.1))
    }

    /// [`pair_work`](Self::pair_work) of every due pair, in key order: with `parallel`, one
    /// parallel section on rayon's current pool, one pair per task (a step's pairs differ
    /// 100× in cost: the costliest must not wait behind others in one task).
    pub(super) fn all_pairs_work(
        &self,
        keys: &[u64],
        scheduling: bool,
        parallel: bool,
    ) -> Result<Vec<PairWork>, WorldError> {
        #[cfg(feature = "parallel")]
        if parallel && keys.len() > 1 {
            use rayon::prelude::*;
            return keys
                .par_iter()
                .with_max_len(1)
                .map(|&k| self.pair_work(k, scheduling))
                .collect();
        }
        let _ = parallel;
        keys.iter()
            .map(|&k| self.pair_work(k, scheduling))
            .collect()
    }

    /// The all-contacts mode's bounds, narrow phase and wake-up steps of the due `keys`
    /// (in one pass per pair, [`all_pairs_work`](Self::all_pairs_work)), recorded as the
    /// other modes' separate passes record them: warm starts, counters, contacts (in key
    /// order), and the free pairs (those the bounds settled, then those the queries found
    /// free) deferred per their wake-up steps.
    pub(super) fn step_all(
        &mut self,
        keys: &[u64],
        opts: &StepOptions,
        stats: &mut StepStats,
        parallel: bool,
    ) -> Result<Vec<BodyPairContact>, WorldError> {
        let work = self.all_pairs_work(keys, opts.scheduling, parallel)?;
        Ok(self.record_all(work, opts, stats))
    }

    /// The bookkeeping of the all-contacts pass's `work` (due pairs in key order): warm
    /// starts, counters, contacts (in key order), and the free pairs (those the bounds
    /// settled, then those the queries found free) deferred per their wake-up steps.
    pub(super) fn record_all(
        &mut self,
        work: Vec<PairWork>,
        opts: &StepOptions,
        stats: &mut StepStats,
    ) -> Vec<BodyPairContact> {
        let step = self.step;
        for w in &work {
            if let Some(g) = w.start.gjk {
                self.warm.insert(w.key, (step, g));
            }
        }
        let mut contacts = Vec::new();
        for w in &work {
            match &w.answer {
                None => stats.bound_free += 1,
                Some((r, n)) => {
                    stats.ca_pairs += 1;
                    stats.ca_iterations += u64::from(*n);
                    if let Some(c) = r {
                        let [x, y] = unkey(w.key);
                        contacts.push(BodyPairContact {
                            a: self.handle(x),
                            b: self.handle(y),
                            contact: *c,
                        });
                    }
                }
            }
        }
        stats.contacts = contacts.len();
        if opts.scheduling {
            for w in &work {
                if matches!(w.answer, Some((Some(_), _))) {
                    self.schedule.forget(w.key);
                }
            }
            // (the settled pairs first, then those found free by their queries)
            let settled = work.iter().filter(|w| w.answer.is_none());
            let found = work.iter().filter(|w| w.answer.is_some());
            for w in settled.chain(found) {
                let Some((wake, end)) = w.wake else {
                    continue;
                };
                if let Some(g) = end.gjk {
                    self.warm.insert(w.key, (step, g));
                }
                let (a, b) = self.pair(w.key);
                let epochs = [a.epoch, b.epoch];
                self.schedule.defer(w.key, step, wake, epochs);
                if wake <= step + 1 {
                    // due again at the next step, which starts from these poses
                    self.ends_next.insert(w.key, (epochs, end));
                }
            }
            stats.scheduled = self.schedule.len();
        }
        contacts
    }

    /// Steps 2.–4. of the all-contacts step with `parallel` and the sweep-and-prune, as one
    /// parallel section (`None` when there are too few pairs to share: the caller takes the
    /// usual path). The pairs certainly due — those of the sweep-and-prune (its pending
    /// insertions and removals applied first) whose bodies are live and not both static,
    /// whose swept boxes and sweep-and-prune boxes both overlap now (so that the update
    /// keeps them pairs), and that the schedule does not defer — get their whole work
    /// ([`Parts::pair_work`]) on rayon's pool while the calling thread updates the
    /// sweep-and-prune (serial when the boxes fit one cell), filters its pairs, takes the
    /// schedule's verdicts and computes the due pairs the first set missed (pairs new to
    /// the sweep-and-prune), then helps with the rest. The certain pairs are pulled one at
    /// a time, in key order, by both threads from one atomic counter: the calling thread
    /// joins in as soon as its side is done, whether or not rayon's sleeping threads notice
    /// new work (with a parallel iterator it sometimes did not: 8 steps of a rigid-pile run
    /// with every pair on the worker). `listed`: the sweep-and-prune's pairs listed beside
    /// the refresh ([`listed_pairs`]; else listed here). A pair's work reads only its
    /// refreshed bodies, the last step's end bounds and warm starts, none of which the
    /// update or the verdicts touch: it is the one the usual path computes, and the counters
    /// and pairs are the usual path's. Returns the due pairs' work in key order (the first
    /// error in key order; a pair computed ahead that is not due is dropped with its error).
    #[cfg(feature = "parallel")]
    pub(super) fn all_work_joined(
        &mut self,
        scheduling: bool,
        listed: Option<Vec<u64>>,
        stats: &mut StepStats,
    ) -> Option<Result<Vec<PairWork>, WorldError>> {
        use rayon::prelude::*;
        use std::sync::atomic::{AtomicUsize, Ordering};
        // (the pending insertions and removals first: their pairs are then known; the
        // update's own flush finds nothing left; `listed`: done beside the refresh)
        let mut likely = listed.unwrap_or_else(|| listed_pairs(&mut self.sap));
        if likely.len() < PAR_MIN_PAIRS {
            return None;
        }
        let step = self.step;
        let parts = Parts {
            slots: &self.slots,
            ends: &self.ends,
            warm: &self.warm,
            ca: &self.ca,
            step,
        };
        likely.retain(|&k| {
            let (a, b) = pair_in(parts.slots, k);
            !(a.is_static && b.is_static)
                && overlaps(&a.swept, &b.swept)
                && overlaps(&a.sap_box, &b.sap_box)
                && !(scheduling && self.schedule.is_deferred(k, step, [a.epoch, b.epoch]))
        });
        // the pairs pulled one at a time, in key order, by both threads (a step's pairs
        // differ 100× in cost: none waits behind others in a task; the calling thread
        // joins in as soon as its side is done, whatever rayon's idle threads do)
        let next = AtomicUsize::new(0);
        let pull = || {
            let mut out: Vec<Ahead> = Vec::new();
            while let Some(&k) = likely.get(next.fetch_add(1, Ordering::Relaxed)) {
                out.push((k, Some(parts.pair_work(k, scheduling))));
            }
            out
        };
        let schedule = &mut self.schedule;
        let (sap, swept) = (&mut self.sap, &self.swept);
        let likely = &likely;
        let ((keys, rest, mut ahead), theirs) = rayon::join(
            || {
                stats.swaps = sap.update(swept);
                let mut keys: Vec<u64> = Vec::new();
                sap.pairs_into(&mut keys);
                keys.retain(|&k| {
                    let (a, b) = pair_in(parts.slots, k);
                    !(a.is_static && b.is_static) && overlaps(&a.swept, &b.swept)
                });
                // (a pair in several cells of the grid comes once per cell)
                keys.sort_unstable();
                keys.dedup();
                stats.broad_pairs = keys.len();
                if scheduling {
                    schedule.expire(step);
                    keys.retain(|&key| {
                        let (a, b) = pair_in(parts.slots, key);
                        counted_due(schedule.verdict(key, step, [a.epoch, b.epoch]), stats)
                    });
                } else {
                    schedule.clear();
                }
                let missed: Vec<u64> = keys
                    .iter()
                    .copied()
                    .filter(|k| likely.binary_search(k).is_err())
                    .collect();
                let rest: Vec<Result<PairWork, WorldError>> = missed
                    .par_iter()
                    .with_max_len(1)
                    .map(|&k| parts.pair_work(k, scheduling))
                    .collect();
                (keys, rest, pull())
            },
            pull,
        );
        // (each thread's pairs come in key order: merged by key)
        ahead.extend(theirs);
        ahead.sort_unstable_by_key(|x| x.0);
        let mut rest = rest.into_iter();
        let mut work = Vec::with_capacity(keys.len());
        for k in &keys {
            let got = match ahead.binary_search_by_key(k, |x| x.0) {
                Ok(i) => ahead[i].1.take(),
                Err(_) => rest.next(),
            };
            match got {
                Some(Ok(w)) => work.push(w),
                Some(Err(e)) => return Some(Err(e)),
                // (a key held twice: keys are distinct, so not reached)
                None => match parts.pair_work(*k, scheduling) {
                    Ok(w) => work.push(w),
                    Err(e) => return Some(Err(e)),
                },
            }
        }
        Some(Ok(work))
    }

    /// The narrow phase ([`narrow`](Self::narrow)); with `parallel`, joined on rayon's pool
    /// by work that does not wait for it and fills the cores its costliest pairs leave
    /// idle: the wake-up steps of the pairs `settled` (keys, start bounds) when
    /// scheduling. Returns the narrow phase's answers and the joined wake-up steps (`None`
    /// when not computed).
    pub(super) fn narrow_joined(
        &self,
        cands: &mut [Candidate],
        opts: &StepOptions,
        stats: &mut StepStats,
        settled: (&[u64], &[Option<Gap>]),
        parallel: bool,
    ) -> (Result<Vec<Answer>, WorldError>, Option<Wakes>) {
        #[cfg(feature = "parallel")]
        if parallel {
            return rayon::join(
                || self.narrow_parallel(cands, opts, stats),
                || {
                    opts.scheduling.then(|| {
                        self.map_pairs_with(settled.0, settled.1, true, |key, start| {
                            self.wake_step(key, start)
                        })
                    })
                },
            );
        }
        let _ = (parallel, settled);
        (self.narrow(cands, opts, stats), None)
    }

    /// `f` of every pair key, in order; on rayon's current pool when `parallel` (with the
    /// `parallel` feature).
    pub(super) fn map_pairs<T: Send>(
        &self,
        keys: &[u64],
        parallel: bool,
        f: impl Fn(u64) -> T + Sync + Send,
    ) -> Vec<T> {
        #[cfg(feature = "parallel")]
        if parallel && keys.len() >= PAR_MIN_PAIRS {
            use rayon::prelude::*;
            return keys.par_iter().map(|&k| f(k)).collect();
        }
        let _ = parallel;
        keys.iter().map(|&k| f(k)).collect()
    }

    /// `f` of every pair key and its datum (`data` parallel to `keys`), in order; on
    /// rayon's current pool when `parallel` (with the `parallel` feature).
    pub(super) fn map_pairs_with<D: Copy + Send + Sync, T: Send>(
        &self,
        keys: &[u64],
        data: &[D],
        parallel: bool,
        f: impl Fn(u64, D) -> T + Sync + Send,
    ) -> Vec<T> {
        #[cfg(feature = "parallel")]
        if parallel && keys.len() >= PAR_MIN_PAIRS {
            use rayon::prelude::*;
            return keys
                .par_iter()
                .zip(data.par_iter())
                .map(|(&k, &d)| f(k, d))
                .collect();
        }
        let _ = parallel;
        keys.iter().zip(data).map(|(&k, &d)| f(k, d)).collect()
    }

    /// Runs the per-pair queries of the candidates per mode; returns the queried pairs and
    /// their answers, and counts the pairs and their CA iterations into `stats`.
    pub(super) fn narrow(
        &self,
        cands: &mut [Candidate],
        opts: &StepOptions,
        stats: &mut StepStats,
    ) -> Result<Vec<Answer>, WorldError> {
        let mut out = Vec::with_capacity(cands.len());
        match opts.mode {
            Mode::All => {
                for c in cands.iter() {
                    let (r, n) = self.query(c.key, Mode::Toc)?;
                    out.push((c.key, r, n));
                }
            }
            Mode::Toc => {
                cands.sort_unstable_by(|x, y| x.lb.total_cmp(&y.lb).then(x.key.cmp(&y.key)));
                let mut best = f64::INFINITY;
                for (i, c) in cands.iter().enumerate() {
                    if c.lb > best {
                        stats.culled += cands.len() - i;
                        break;
                    }
                    let (r, n) = self.query(c.key, Mode::Toc)?;
                    if let Some(hit) = &r {
                        best = best.min(hit.toc);
                    }
                    out.push((c.key, r, n));
                }
            }
            Mode::Boolean => {
                cands.sort_unstable_by(|x, y| x.lb.total_cmp(&y.lb).then(x.key.cmp(&y.key)));
                for (i, c) in cands.iter().enumerate() {
                    let (r, n) = self.query(c.key, Mode::Boolean)?;
                    let hit = r.is_some();
                    out.push((c.key, r, n));
                    if hit {
                        stats.culled += cands.len() - i - 1;
                        break;
                    }
                }
            }
        }
        stats.ca_pairs = out.len();
        stats.ca_iterations = out.iter().map(|(_, _, n)| u64::from(*n)).sum();
        Ok(out)
    }

    #[cfg(feature = "parallel")]
    pub(super) fn narrow_parallel(
        &self,
        cands: &mut [Candidate],
        opts: &StepOptions,
        stats: &mut StepStats,
    ) -> Result<Vec<Answer>, WorldError> {
        use rayon::prelude::*;
        use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
        cands.sort_unstable_by(|x, y| x.lb.total_cmp(&y.lb).then(x.key.cmp(&y.key)));
        let found = AtomicBool::new(false);
        // the best TOC so far as bits: non-negative f64s order like their bits
        let best = AtomicU64::new(f64::INFINITY.to_bits());
        let mode = opts.mode;
        let results: Vec<Option<Answer>> = cands
            .par_iter()
            .map(|c| -> Result<Option<Answer>, WorldError> {
                match mode {
                    Mode::All => {
                        let (r, n) = self.query(c.key, Mode::Toc)?;
                        Ok(Some((c.key, r, n)))
                    }
                    Mode::Toc => {
                        if c.lb > f64::from_bits(best.load(Ordering::Relaxed)) {
                            return Ok(None);
                        }
                        let (r, n) = self.query(c.key, Mode::Toc)?;
                        if let Some(hit) = &r {
                            best.fetch_min(hit.toc.max(0.0).to_bits(), Ordering::Relaxed);
                        }
                        Ok(Some((c.key, r, n)))
                    }
                    Mode::Boolean => {
                        if found.load(Ordering::Relaxed) {
                            return Ok(None);
                        }
                        let (r, n) = self.query(c.key, Mode::Boolean)?;
                        if r.is_some() {
                            found.store(true, Ordering::Relaxed);
                        }
                        Ok(Some((c.key, r, n)))
                    }
                }
            })
            .collect::<Result<_, _>>()?;
        let mut out: Vec<Answer> = results.into_iter().flatten().collect();
        if mode == Mode::All {
            // the candidates ran in order of their lower bounds; the contacts are reported
            // by slot pair, as in the sequential narrow phase
            out.sort_unstable_by_key(|a| a.0);
        }
        stats.culled += cands.len() - out.len();
        stats.ca_pairs = out.len();
        stats.ca_iterations = out.iter().map(|(_, _, n)| u64::from(*n)).sum();
        if mode == Mode::Boolean {
            // report one contact, like the sequential mode
            let first = out.iter().position(|(_, r, _)| r.is_some());
            if let Some(i) = first {
                let mut kept: Vec<_> = out
                    .iter()
                    .filter(|(_, r, _)| r.is_none())
                    .copied()
                    .collect();
                kept.push(out[i]);
                return Ok(kept);
            }
        }
        Ok(out)
    }
}

impl World {
    /// Steps 4.–5. of a `Toc` or `Boolean` step: the due pairs' time-of-contact lower bounds,
    /// the narrow phase in their order (joined, with `parallel`, by the wake-up steps of the
    /// pairs their bounds settled), the contacts (the earliest only in `Toc`), and the
    /// schedule of the pairs found free.
    pub(super) fn step_first(
        &mut self,
        keys: &[u64],
        opts: &StepOptions,
        stats: &mut StepStats,
        parallel: bool,
    ) -> Result<Vec<BodyPairContact>, WorldError> {
        let step = self.step;
        // the due pairs' TOC lower bounds (on all cores with `parallel`)
        let lbs = self.map_pairs(keys, parallel, |key| self.toc_lower_bound(key));
        let mut cands: Vec<Candidate> = Vec::with_capacity(keys.len());
        // (the free pairs, with their bounds at the step's start when these settled them)
        let mut free_keys: Vec<u64> = Vec::new();
        let mut starts: Vec<Option<Gap>> = Vec::new();
        for (&key, &(lb, gap)) in keys.iter().zip(&lbs) {
            if let Some(w) = gap.gjk {
                self.warm.insert(key, (step, w));
            }
            if lb > 1.0 {
                stats.bound_free += 1;
                free_keys.push(key);
                starts.push(Some(gap));
            } else {
                cands.push(Candidate { key, lb });
            }
        }
        // 4. narrow phase; with `parallel`, joined by work that does not wait for it: the
        // wake-up steps of the pairs their bounds settled
        let settled = free_keys.len();
        let (results, early_wakes) =
            self.narrow_joined(&mut cands, opts, stats, (&free_keys, &starts), parallel);
        let results = results?;
        let mut contacts = Vec::new();
        for (key, r, _) in &results {
            match r {
                Some(c) => {
                    let [x, y] = unkey(*key);
                    contacts.push(BodyPairContact {
                        a: self.handle(x),
                        b: self.handle(y),
                        contact: *c,
                    });
                }
                None => {
                    free_keys.push(*key);
                    starts.push(None);
                }
            }
        }
        if opts.mode == Mode::Toc {
            let best = contacts.iter().copied().min_by(|x, y| {
                x.contact
                    .toc
                    .total_cmp(&y.contact.toc)
                    .then(x.a.index.cmp(&y.a.index))
                    .then(x.b.index.cmp(&y.b.index))
            });
            contacts = best.into_iter().collect();
        }
        stats.contacts = contacts.len();
        // 5. schedule the pairs found free
        if opts.scheduling {
            for (key, r, _) in &results {
                if r.is_some() {
                    self.schedule.forget(*key);
                }
            }
            // (the pairs settled by their bounds may have theirs from the narrow phase's join)
            let from = if early_wakes.is_some() { settled } else { 0 };
            let mut wakes = early_wakes.unwrap_or_default();
            wakes.extend(self.map_pairs_with(
                &free_keys[from..],
                &starts[from..],
                parallel,
                |key, start| self.wake_step(key, start),
            ));
            for (&key, &(wake, end)) in free_keys.iter().zip(&wakes) {
                if let Some(w) = end.gjk {
                    self.warm.insert(key, (step, w));
                }
                let (a, b) = self.pair(key);
                let epochs = [a.epoch, b.epoch];
                self.schedule.defer(key, step, wake, epochs);
                if wake <= step + 1 {
                    // due again at the next step, which starts from these poses
                    self.ends_next.insert(key, (epochs, end));
                }
            }
            stats.scheduled = self.schedule.len();
        }
        Ok(contacts)
    }
}
