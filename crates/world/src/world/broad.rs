//! The world's broad phase: the candidate pairs of a step from the sweep-and-prune of the
//! swept boxes (a grid of sweep-and-prunes for large worlds) or from all pairs, and the
//! schedule's verdicts on them.

use super::*;

impl World {
    /// Step 2.: the pairs whose swept boxes overlap (not two static bodies), unsorted.
    pub(super) fn broad_phase(
        &mut self,
        broad_phase: BroadPhase,
        parallel: bool,
        stats: &mut StepStats,
    ) -> Vec<u64> {
        #[cfg(not(feature = "parallel"))]
        let _ = parallel;
        let mut keys: Vec<u64> = Vec::new();
        match broad_phase {
            BroadPhase::SweepAndPrune => {
                #[cfg(feature = "parallel")]
                self.sap.set_parallel(parallel);
                stats.swaps = self.sap.update(&self.swept);
                self.sap.pairs_into(&mut keys);
                keys.retain(|&k| {
                    let (a, b) = self.pair(k);
                    !(a.is_static && b.is_static) && overlaps(&a.swept, &b.swept)
                });
                // (a pair in several cells of the grid comes once per cell)
                keys.sort_unstable();
                keys.dedup();
            }
            BroadPhase::AllPairs => {
                // (the sweep-and-prune's own pending insertions and removals are applied,
                // so that they do not pile up while it is not used)
                self.sap.flush();
                let live: Vec<(u32, &Body)> = self
                    .slots
                    .iter()
                    .enumerate()
                    .filter_map(|(i, s)| s.body.as_ref().map(|b| (i as u32, b)))
                    .collect();
                for (i, &(sa, a)) in live.iter().enumerate() {
                    for &(sb, b) in &live[i + 1..] {
                        if !(a.is_static && b.is_static)
                            && overlaps(&a.swept, &b.swept)
                            && overlaps(&a.sap_box, &b.sap_box)
                        {
                            keys.push(pair_key(sa, sb));
                        }
                    }
                }
            }
        }
        keys
    }

    /// Step 3.: drops the pairs the schedule defers (counted in `stats`); without
    /// `scheduling` the schedule is cleared.
    pub(super) fn due_pairs(
        &mut self,
        keys: &mut Vec<u64>,
        scheduling: bool,
        stats: &mut StepStats,
    ) {
        let step = self.step;
        if scheduling {
            self.schedule.expire(step);
        } else {
            self.schedule.clear();
        }
        if scheduling {
            keys.retain(|&key| {
                let (a, b) = self.pair(key);
                counted_due(self.schedule.verdict(key, step, [a.epoch, b.epoch]), stats)
            });
        }
    }
}
