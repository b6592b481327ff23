//! Sweep-and-prune over the world's swept boxes, with insertion and removal (Lin survey
//! slides, "Sweep & Prune": sorted endpoints on x, y, z, insertion-sort updates).

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

use ccd_geometry::Aabb;

/// A multiply-shift hasher for the `u64` pair keys (the keys are not attacker-controlled).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PairHasher(u64);

impl Hasher for PairHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }

    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    #[inline]
    fn write_u64(&mut self, k: u64) {
        let h = (self.0 ^ k).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = h ^ (h >> 29);
    }
}

/// A set of pair keys.
pub(crate) type PairSet = HashSet<u64, BuildHasherDefault<PairHasher>>;

/// The key of an unordered pair of slots.
#[inline]
pub(crate) fn pair_key(a: u32, b: u32) -> u64 {
    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
    (u64::from(lo) << 32) | u64::from(hi)
}

/// The slots `[lo, hi]` of a pair key.
#[inline]
pub(crate) fn unkey(k: u64) -> [u32; 2] {
    [(k >> 32) as u32, k as u32]
}

/// One interval endpoint on one axis: the value, `slot << 1 | is_max`, and the generation of
/// the slot's box it belongs to (endpoints of a removed box stay until the next flush).
#[derive(Clone, Copy, Debug)]
struct Endpoint {
    value: f64,
    tag: u32,
    generation: u32,
}

impl Endpoint {
    #[inline]
    fn id(self) -> u32 {
        self.tag >> 1
    }

    #[inline]
    fn is_max(self) -> bool {
        self.tag & 1 == 1
    }

    /// By value, a min before a max at equal values (closed boxes: touching overlaps).
    #[inline]
    fn less(self, other: Self) -> bool {
        self.value < other.value || (self.value == other.value && (self.tag & 1) < (other.tag & 1))
    }
}

/// Closed-box overlap.
#[inline]
pub(crate) fn overlaps(a: &Aabb, b: &Aabb) -> bool {
    a.min.cmple(b.max).all() && b.min.cmple(a.max).all()
}

/// Sweep-and-prune over boxes indexed by slot, with slots that come and go.
///
/// Insertions and removals are batched: they are recorded in O(1) and applied together by
/// the next [`flush`](Self::flush) (which [`update`](Self::update) runs first): one pass per
/// axis drops the removed boxes' endpoints and merges the new ones (sorted among
/// themselves), one pass over the pair set drops the removed boxes' pairs, and each new box
/// is tested against every present box. A world where many bodies come and go per step
/// (bodies falling asleep and returning as static ones) so pays O(n) per step for them,
/// where removing and inserting one at a time paid O(n) per body.
#[derive(Clone, Debug, Default)]
pub(crate) struct Sap {
    boxes: Vec<Aabb>,
    present: Vec<bool>,
    /// Per slot: the generation of its current box (bumped by each insertion and removal).
    generations: Vec<u32>,
    axes: [Vec<Endpoint>; 3],
    pairs: PairSet,
    candidates: Vec<u64>,
    /// Slots removed since the last flush.
    removed: Vec<u32>,
    /// Slots inserted since the last flush, with the generation of the inserted box.
    inserted: Vec<(u32, u32)>,
    /// Scratch of the flush: slots whose pairs go, endpoints to merge.
    marks: Vec<bool>,
    fresh: Vec<Endpoint>,
    merged: Vec<Endpoint>,
}

impl Sap {
    /// Insertion sort of `list` from index `from` on: counts swaps, records min/max
    /// crossings of different boxes as candidates.
    fn settle(list: &mut [Endpoint], from: usize, candidates: &mut Vec<u64>) -> u64 {
        let mut swaps = 0;
        for i in from.max(1)..list.len() {
            let e = list[i];
            let mut j = i;
            while j > 0 && e.less(list[j - 1]) {
                let o = list[j - 1];
                if o.is_max() != e.is_max() && o.id() != e.id() {
                    candidates.push(pair_key(o.id(), e.id()));
                }
                list[j] = o;
                j -= 1;
                swaps += 1;
            }
            list[j] = e;
        }
        swaps
    }

    /// Re-tests the recorded candidates against the current boxes.
    fn retest(&mut self) {
        for &k in &self.candidates {
            let [a, b] = unkey(k);
            if overlaps(&self.boxes[a as usize], &self.boxes[b as usize]) {
                self.pairs.insert(k);
            } else {
                self.pairs.remove(&k);
            }
        }
        self.candidates.clear();
    }

    /// Adds box `b` at `slot` (which must be free; the caller checked it is finite and
    /// not empty). Applied by the next flush.
    pub(crate) fn insert(&mut self, slot: u32, b: Aabb) {
        let s = slot as usize;
        if self.boxes.len() <= s {
            self.boxes.resize(s + 1, b);
            self.present.resize(s + 1, false);
            self.generations.resize(s + 1, 0);
        }
        debug_assert!(!self.present[s]);
        self.boxes[s] = b;
        self.present[s] = true;
        self.generations[s] = self.generations[s].wrapping_add(1);
        self.inserted.push((slot, self.generations[s]));
    }

    /// Removes the box at `slot` and its pairs (applied by the next flush; a slot that is
    /// not present is ignored).
    pub(crate) fn remove(&mut self, slot: u32) {
        let s = slot as usize;
        if s >= self.present.len() || !self.present[s] {
            return;
        }
        self.present[s] = false;
        self.generations[s] = self.generations[s].wrapping_add(1);
        self.removed.push(slot);
    }

    /// Applies the insertions and removals recorded since the last flush (see [`Sap`]).
    pub(crate) fn flush(&mut self) {
        if !self.removed.is_empty() {
            let (present, generations) = (&self.present, &self.generations);
            let live = |e: &Endpoint| {
                present[e.id() as usize] && generations[e.id() as usize] == e.generation
            };
            for list in &mut self.axes {
                list.retain(live);
            }
            self.marks.clear();
            self.marks.resize(self.present.len(), false);
            for &s in &self.removed {
                self.marks[s as usize] = true;
            }
            let marks = &self.marks;
            self.pairs.retain(|&k| {
                let [a, b] = unkey(k);
                !(marks[a as usize] || marks[b as usize])
            });
            self.removed.clear();
        }
        if self.inserted.is_empty() {
            return;
        }
        // the insertions still current (a slot inserted, removed and inserted again since
        // the last flush counts once, with its last box)
        let (present, generations) = (&self.present, &self.generations);
        self.inserted
            .retain(|&(s, g)| present[s as usize] && generations[s as usize] == g);
        for (axis, list) in self.axes.iter_mut().enumerate() {
            self.fresh.clear();
            for &(slot, generation) in &self.inserted {
                let b = &self.boxes[slot as usize];
                self.fresh.push(Endpoint {
                    value: b.min[axis] + 0.0,
                    tag: slot << 1,
                    generation,
                });
                self.fresh.push(Endpoint {
                    value: b.max[axis] + 0.0,
                    tag: (slot << 1) | 1,
                    generation,
                });
            }
            self.fresh.sort_unstable_by(|x, y| {
                if x.less(*y) {
                    std::cmp::Ordering::Less
                } else if y.less(*x) {
                    std::cmp::Ordering::Greater
                } else {
                    std::cmp::Ordering::Equal
                }
            });
            // merge: the new endpoints go after every old one they are not less than (where
            // insertion sort would sink them)
            self.merged.clear();
            self.merged.reserve(list.len() + self.fresh.len());
            let mut old = list.iter().copied().peekable();
            for &e in &self.fresh {
                while let Some(o) = old.next_if(|o| !e.less(*o)) {
                    self.merged.push(o);
                }
                self.merged.push(e);
            }
            self.merged.extend(old);
            std::mem::swap(list, &mut self.merged);
        }
        // the new pairs: each new box against every present box (new ones included)
        for &(slot, _) in &self.inserted {
            let b = self.boxes[slot as usize];
            for (o, ob) in self.boxes.iter().enumerate() {
                if o != slot as usize && self.present[o] && overlaps(ob, &b) {
                    self.pairs.insert(pair_key(o as u32, slot));
                }
            }
        }
        self.inserted.clear();
    }

    /// Applies the pending insertions and removals, moves every present box to
    /// `boxes[slot]` and restores the order by insertion sort; returns the swaps (O(n +
    /// swaps): near linear under coherent motion).
    pub(crate) fn update(&mut self, boxes: &[Aabb]) -> u64 {
        self.flush();
        for (s, b) in boxes.iter().enumerate().take(self.boxes.len()) {
            if self.present[s] {
                self.boxes[s] = *b;
            }
        }
        let mut swaps = 0;
        for (axis, list) in self.axes.iter_mut().enumerate() {
            for e in list.iter_mut() {
                let b = &self.boxes[e.id() as usize];
                e.value = if e.is_max() { b.max[axis] } else { b.min[axis] } + 0.0;
            }
            swaps += Self::settle(list, 1, &mut self.candidates);
        }
        self.retest();
        swaps
    }

    /// The overlapping pairs' keys (as of the last flush or update).
    pub(crate) fn pairs(&self) -> &PairSet {
        debug_assert!(self.removed.is_empty() && self.inserted.is_empty());
        &self.pairs
    }

    /// The box at a present slot.
    #[cfg(test)]
    pub(crate) fn box_at(&self, slot: u32) -> Aabb {
        self.boxes[slot as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DVec3;

    fn brute(sap: &Sap, live: &[u32]) -> Vec<u64> {
        let mut out = Vec::new();
        for (i, &a) in live.iter().enumerate() {
            for &b in &live[i + 1..] {
                if overlaps(&sap.box_at(a), &sap.box_at(b)) {
                    out.push(pair_key(a, b));
                }
            }
        }
        out.sort_unstable();
        out
    }

    fn sorted(sap: &mut Sap) -> Vec<u64> {
        sap.flush();
        let mut v: Vec<u64> = sap.pairs().iter().copied().collect();
        v.sort_unstable();
        v
    }

    #[test]
    fn insert_update_remove_track_overlaps() {
        let unit = |x: f64| Aabb::new(DVec3::new(x, 0.0, 0.0), DVec3::new(x + 1.0, 1.0, 1.0));
        let mut sap = Sap::default();
        sap.insert(0, unit(0.0));
        sap.insert(1, unit(0.5));
        sap.insert(2, unit(3.0));
        assert_eq!(sorted(&mut sap), [pair_key(0, 1)]);
        let mut boxes = vec![unit(0.0), unit(2.5), unit(3.0)];
        let swaps = sap.update(&boxes);
        assert!(swaps > 0);
        assert_eq!(sorted(&mut sap), [pair_key(1, 2)]);
        sap.remove(1);
        assert!(sorted(&mut sap).is_empty());
        sap.remove(1); // twice: nothing happens (the world reports the error)
        boxes[0] = unit(2.9);
        sap.update(&boxes);
        assert_eq!(sorted(&mut sap), brute(&sap, &[0, 2]));
        assert_eq!(sorted(&mut sap), [pair_key(0, 2)]);
        // the freed slot comes back
        sap.insert(1, unit(3.5));
        assert_eq!(sorted(&mut sap), brute(&sap, &[0, 1, 2]));
        // touching boxes overlap (closed)
        sap.insert(
            3,
            Aabb::new(DVec3::new(4.5, 0.0, 0.0), DVec3::new(5.0, 1.0, 1.0)),
        );
        assert!(sorted(&mut sap).contains(&pair_key(1, 3)));
    }

    #[test]
    fn still_boxes_need_no_swaps() {
        let mut sap = Sap::default();
        let boxes: Vec<Aabb> = (0..20)
            .map(|i| {
                let p = DVec3::new(f64::from(i) * 0.7, f64::from(i % 3), 0.0);
                Aabb::new(p, p + DVec3::ONE)
            })
            .collect();
        for (i, b) in boxes.iter().enumerate() {
            sap.insert(i as u32, *b);
        }
        assert_eq!(sap.update(&boxes), 0);
        let live: Vec<u32> = (0..20).collect();
        assert_eq!(sorted(&mut sap), brute(&sap, &live));
    }

    #[derive(Clone, Debug)]
    enum Op {
        Insert(DVec3, DVec3),
        Remove(usize),
        Move(Vec<(DVec3, DVec3)>),
    }

    fn boxed(p: DVec3, e: DVec3) -> Aabb {
        Aabb::new(p, p + e)
    }

    use proptest::prelude::*;

    fn vec3(lo: f64, hi: f64) -> impl Strategy<Value = DVec3> {
        (lo..hi, lo..hi, lo..hi).prop_map(|(x, y, z)| DVec3::new(x, y, z))
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            (vec3(-5.0, 5.0), vec3(0.0, 2.0)).prop_map(|(p, e)| Op::Insert(p, e)),
            (0usize..64).prop_map(Op::Remove),
            prop::collection::vec((vec3(-0.7, 0.7), vec3(0.0, 2.0)), 64).prop_map(Op::Move),
        ]
    }

    proptest! {
        /// The incrementally maintained pair set equals brute-force box overlap after
        /// random insertions, removals and moves (moves: coherent jitter of every box),
        /// checked after a random half of the operations and the last one: batches of
        /// insertions and removals between flushes, slots reused before a flush included.
        #[test]
        fn pairs_equal_brute_force(ops in prop::collection::vec((op(), any::<bool>()), 1..40)) {
            let mut sap = Sap::default();
            let mut boxes: Vec<Aabb> = Vec::new();
            let mut live: Vec<u32> = Vec::new();
            let mut free: Vec<u32> = Vec::new();
            let last = ops.len() - 1;
            for (i, (op, check)) in ops.into_iter().enumerate() {
                match op {
                    Op::Insert(p, e) => {
                        let slot = free.pop().unwrap_or(boxes.len() as u32);
                        if slot as usize == boxes.len() {
                            boxes.push(boxed(p, e));
                        } else {
                            boxes[slot as usize] = boxed(p, e);
                        }
                        sap.insert(slot, boxes[slot as usize]);
                        live.push(slot);
                    }
                    Op::Remove(i) => {
                        if !live.is_empty() {
                            let slot = live.swap_remove(i % live.len());
                            sap.remove(slot);
                            free.push(slot);
                        }
                    }
                    Op::Move(m) => {
                        for (k, b) in boxes.iter_mut().enumerate() {
                            let (d, e) = m[k % m.len()];
                            let p = b.min + d;
                            // a few boxes snap to a shared coordinate: equal endpoints
                            let p = if k % 5 == 0 { p.round() } else { p };
                            *b = boxed(p, if k % 7 == 0 { DVec3::ZERO } else { e });
                        }
                        sap.update(&boxes);
                    }
                }
                if !check && i < last {
                    continue;
                }
                live.sort_unstable();
                prop_assert_eq!(sorted(&mut sap), brute(&sap, &live));
                for &s in &live {
                    prop_assert_eq!(sap.box_at(s), boxes[s as usize]);
                }
            }
        }
    }
}
