//! Sweep-and-prune over moving boxes with insertion-sort coherence (Lin survey slides,
//! "Sweep & Prune"; Cohen, Lin, Manocha and Ponamgi, I-COLLIDE, 1995): sorted endpoints on
//! x, y, z, insertion-sort updates, an incrementally maintained set of overlapping pairs;
//! boxes live in slots that come and go, and boxes marked fixed never pair with each other.
//! The one sweep-and-prune of the workspace: `ccd-world`'s broad phase runs on it.

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

use ccd_geometry::Aabb;

use crate::BvhError;

/// A multiply-shift hasher for the `u64` pair keys of [`pair_key`] (SipHash is several times
/// slower here, and the keys are not attacker-controlled).
///
/// # Example
/// ```
/// use ccd_bvh::sap::{PairSet, pair_key};
///
/// let mut set = PairSet::default();
/// set.insert(pair_key(3, 1));
/// assert!(set.contains(&pair_key(1, 3)));
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct PairHasher(u64);

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

/// A set of pair keys ([`pair_key`]).
pub type PairSet = HashSet<u64, BuildHasherDefault<PairHasher>>;

/// The key of an unordered pair of slots: the lower slot in the high 32 bits.
///
/// # Example
/// ```
/// use ccd_bvh::sap::{pair_key, unkey};
///
/// assert_eq!(pair_key(7, 2), pair_key(2, 7));
/// assert_eq!(unkey(pair_key(7, 2)), [2, 7]);
/// ```
#[inline]
#[must_use]
pub fn pair_key(a: u32, b: u32) -> u64 {
    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
    (u64::from(lo) << 32) | u64::from(hi)
}

/// The flag of a crossing candidate whose boxes come apart on the crossing's axis (slots
/// stay below 2³¹, so pair keys never use the top bit).
const SEPARATING: u64 = 1 << 63;

/// The slots `[lo, hi]` of a pair key ([`pair_key`]).
///
/// # Example
/// ```
/// assert_eq!(ccd_bvh::sap::unkey((1 << 32) | 5), [1, 5]);
/// ```
#[inline]
#[must_use]
pub fn unkey(k: u64) -> [u32; 2] {
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

/// Closed-box overlap (touching boxes overlap), as the sweep counts it.
///
/// # Example
/// ```
/// use ccd_bvh::geometry::Aabb;
/// use ccd_bvh::glam::DVec3;
///
/// let a = Aabb::new(DVec3::ZERO, DVec3::ONE);
/// assert!(ccd_bvh::sap::overlaps(&a, &Aabb::new(DVec3::ONE, DVec3::splat(2.0))));
/// ```
#[inline]
#[must_use]
pub fn overlaps(a: &Aabb, b: &Aabb) -> bool {
    a.min.cmple(b.max).all() && b.min.cmple(a.max).all()
}

/// Counters of one [`SweepAndPrune::update`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct SapStats {
    /// Adjacent endpoint swaps made by the insertion sorts (O(n) under coherence).
    pub swaps: u64,
    /// Candidate pairs re-tested because a min passed a max on some axis.
    pub retests: u64,
    /// Overlapping pairs after the update.
    pub pairs: usize,
}

/// The checks of a box given to the checked entry points: finite, not empty.
fn check_box(index: usize, b: &Aabb) -> Result<(), BvhError> {
    if !(b.min.is_finite() && b.max.is_finite()) {
        return Err(BvhError::NonFinitePrimitive { index });
    }
    if b.is_empty() {
        return Err(BvhError::EmptyBox { index });
    }
    Ok(())
}

/// Slots stay below 2³¹ (pair keys never use the top bit; endpoint tags hold `slot << 1`).
const MAX_SLOTS: usize = (u32::MAX >> 1) as usize;

/// Sweep-and-prune over axis-aligned boxes (one frame) indexed by slot, with slots that come
/// and go.
///
/// The endpoints of the boxes are kept sorted on all three axes. [`update`](Self::update)
/// writes the new positions and restores the order by insertion sort: with coherent motion
/// few endpoints move past each other, so an update costs O(n + swaps) (slides: "O(n) per
/// update"). A pair's overlap status can only change when one box's min endpoint passes the
/// other's max endpoint on some axis; exactly those pairs are swapped by the sort, so only
/// they are re-tested and the overlapping-pair set is maintained incrementally. Boxes are
/// closed: touching boxes overlap (as [`Aabb::overlaps`]).
///
/// Insertions and removals are batched: they are recorded in O(1) and applied together by
/// the next [`flush`](Self::flush) (which [`update`](Self::update) runs first): one pass per
/// axis drops the removed boxes' endpoints and merges the new ones (sorted among
/// themselves), one pass over the pair set drops the removed boxes' pairs, and one sweep
/// along an axis finds the new boxes' pairs. Many boxes coming and going per step (bodies
/// falling asleep and returning as static ones) so cost O(n) per step, not O(n) per box.
/// A box inserted as *fixed* never moves, and two fixed boxes never make a pair.
///
/// # Example
/// ```
/// use ccd_bvh::SweepAndPrune;
/// use ccd_bvh::geometry::Aabb;
/// use ccd_bvh::glam::DVec3;
///
/// let mut boxes = vec![
///     Aabb::new(DVec3::ZERO, DVec3::ONE),
///     Aabb::new(DVec3::splat(2.0), DVec3::splat(3.0)),
/// ];
/// let mut sap = SweepAndPrune::new(&boxes)?;
/// assert_eq!(sap.pair_count(), 0);
/// boxes[1] = Aabb::new(DVec3::splat(0.5), DVec3::splat(1.5));
/// sap.update(&boxes)?;
/// assert_eq!(sap.pairs().collect::<Vec<_>>(), [[0, 1]]);
/// // a third box, fixed in place
/// sap.insert(2, Aabb::new(DVec3::splat(1.0), DVec3::splat(1.2)), true)?;
/// boxes.push(Aabb::new(DVec3::splat(1.0), DVec3::splat(1.2)));
/// sap.update(&boxes)?;
/// assert_eq!(sap.pair_count(), 3);
/// # Ok::<(), ccd_bvh::BvhError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct SweepAndPrune {
    boxes: Vec<Aabb>,
    present: Vec<bool>,
    /// Per slot: the box never moves (a static body). Two fixed boxes never make a pair
    /// (their overlap cannot change and the world never queries it), and
    /// [`update`](Self::update) leaves fixed boxes' endpoints as they are.
    fixed: Vec<bool>,
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
    /// Scratch of the flush's sweep: the open boxes (old, new) and each one's position
    /// in its list.
    open_old: Vec<u32>,
    open_new: Vec<u32>,
    positions: Vec<u32>,
    /// Scratch of [`sweep_pairs_into`](Self::sweep_pairs_into).
    active: Vec<u32>,
}

impl SweepAndPrune {
    /// Insertion sort of `list` from index `from` on: counts swaps, records min/max
    /// crossings of different boxes as candidates: a min moving before a max (the boxes
    /// start to overlap on this axis: the pair may come) as its key, a max moving before
    /// a min (they come apart on this axis: the pair may go) as its key with
    /// [`SEPARATING`] set.
    fn settle(list: &mut [Endpoint], from: usize, candidates: &mut Vec<u64>) -> u64 {
        let mut swaps = 0;
        for i in from.max(1)..list.len() {
            let e = list[i];
            let mut j = i;
            while j > 0 && e.less(list[j - 1]) {
                let o = list[j - 1];
                if o.is_max() != e.is_max() && o.id() != e.id() {
                    let kind = if e.is_max() { SEPARATING } else { 0 };
                    candidates.push(pair_key(o.id(), e.id()) | kind);
                }
                list[j] = o;
                j -= 1;
                swaps += 1;
            }
            list[j] = e;
        }
        swaps
    }

    /// Re-tests the recorded candidates against the current boxes. A pair that overlaps
    /// now but did not before the update started to overlap on some axis (a coming
    /// candidate); one that overlapped before but not now came apart on some axis (a
    /// going candidate). So a coming candidate is inserted if its boxes overlap and
    /// otherwise left alone (it was not a pair before, or a going candidate of the same
    /// pair removes it), and a going candidate is removed if its boxes do not overlap:
    /// the many crossings of boxes that overlap on one axis only cost no lookup.
    fn retest(&mut self) {
        for &c in &self.candidates {
            let k = c & !SEPARATING;
            let [a, b] = unkey(k);
            if self.fixed[a as usize] && self.fixed[b as usize] {
                // (two fixed endpoints never cross; never a pair)
                continue;
            }
            let now = overlaps(&self.boxes[a as usize], &self.boxes[b as usize]);
            if c & SEPARATING == 0 {
                if now {
                    self.pairs.insert(k);
                }
            } else if !now {
                self.pairs.remove(&k);
            }
        }
        self.candidates.clear();
    }

    /// [`insert`](Self::insert) without its checks, for callers that validated the box and
    /// the slot (the world's broad phase): a box that is not finite or is empty gives
    /// unspecified pairs (never a panic), a slot in use is replaced, a slot at or above 2³¹
    /// is ignored.
    pub fn insert_unchecked(&mut self, slot: u32, b: Aabb, fixed: bool) {
        let s = slot as usize;
        if s >= MAX_SLOTS {
            return;
        }
        if self.present.get(s).copied().unwrap_or(false) {
            self.remove(slot);
        }
        if self.boxes.len() <= s {
            self.boxes.resize(s + 1, b);
            self.present.resize(s + 1, false);
            self.fixed.resize(s + 1, false);
            self.generations.resize(s + 1, 0);
        }
        self.boxes[s] = b;
        self.present[s] = true;
        self.fixed[s] = fixed;
        self.generations[s] = self.generations[s].wrapping_add(1);
        self.inserted.push((slot, self.generations[s]));
    }

    /// Removes the box at `slot` and its pairs (applied by the next flush; a slot that is
    /// not present is ignored).
    ///
    /// # Example
    /// ```
    /// use ccd_bvh::SweepAndPrune;
    /// use ccd_bvh::geometry::Aabb;
    /// use ccd_bvh::glam::DVec3;
    ///
    /// let mut sap = SweepAndPrune::new(&[Aabb::new(DVec3::ZERO, DVec3::ONE); 3])?;
    /// sap.remove(1);
    /// sap.flush();
    /// assert_eq!(sap.pairs().collect::<Vec<_>>(), [[0, 2]]);
    /// # Ok::<(), ccd_bvh::BvhError>(())
    /// ```
    pub fn remove(&mut self, slot: u32) {
        let s = slot as usize;
        if s >= self.present.len() || !self.present[s] {
            return;
        }
        self.present[s] = false;
        self.generations[s] = self.generations[s].wrapping_add(1);
        self.removed.push(slot);
    }

    /// Applies the insertions and removals recorded since the last flush (see
    /// [`SweepAndPrune`]); [`update`](Self::update) runs it first.
    pub fn flush(&mut self) {
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
        self.sweep_new_pairs();
        self.inserted.clear();
    }

    /// The pairs of the boxes in `inserted` (whose endpoints are merged): one sweep along
    /// the sorted axis where the new boxes are narrowest relative to the spread of all
    /// boxes. Each new box is tested against every box open at its min (old and new
    /// ones), each old box against the new ones open at its min; a pair overlapping on
    /// that axis has one box open at the other's min (mins sort before maxes at equal
    /// values), so every overlapping pair with a new box is tested, at O(n) for the sweep
    /// plus the pairs overlapping on the axis — where testing each new box against every
    /// box cost O(n) per new box.
    fn sweep_new_pairs(&mut self) {
        let axis = (0..3)
            .min_by(|&x, &y| {
                let spread = |a: usize| -> f64 {
                    let list = &self.axes[a];
                    let ext = match (list.first(), list.last()) {
                        (Some(f), Some(l)) => l.value - f.value,
                        _ => 0.0,
                    };
                    let widths: f64 = self
                        .inserted
                        .iter()
                        .map(|&(s, _)| {
                            let b = &self.boxes[s as usize];
                            b.max[a] - b.min[a]
                        })
                        .sum();
                    // (no spread: every box overlaps every other on this axis)
                    if ext > 0.0 {
                        widths / ext
                    } else {
                        f64::INFINITY
                    }
                };
                spread(x).total_cmp(&spread(y))
            })
            .unwrap_or(0);
        let n = self.boxes.len();
        self.marks.clear();
        self.marks.resize(n, false);
        for &(s, _) in &self.inserted {
            self.marks[s as usize] = true;
        }
        self.positions.resize(n, 0);
        let (open_old, open_new) = (&mut self.open_old, &mut self.open_new);
        open_old.clear();
        open_new.clear();
        let boxes = &self.boxes;
        for e in &self.axes[axis] {
            let s = e.id();
            let is_new = self.marks[s as usize];
            let open = if is_new {
                &mut *open_new
            } else {
                &mut *open_old
            };
            if e.is_max() {
                // close it: the last open box takes its place
                let at = self.positions[s as usize] as usize;
                open.swap_remove(at);
                if let Some(&moved) = open.get(at) {
                    self.positions[moved as usize] = at as u32;
                }
                continue;
            }
            let b = &boxes[s as usize];
            let fixed = &self.fixed;
            let pairs = &mut self.pairs;
            let mut test = |o: u32| {
                if !(fixed[o as usize] && fixed[s as usize]) && overlaps(&boxes[o as usize], b) {
                    pairs.insert(pair_key(o, s));
                }
            };
            if is_new {
                open_old
                    .iter()
                    .chain(open_new.iter())
                    .for_each(|&o| test(o));
            } else {
                open_new.iter().for_each(|&o| test(o));
            }
            let open = if is_new {
                &mut *open_new
            } else {
                &mut *open_old
            };
            self.positions[s as usize] = open.len() as u32;
            open.push(s);
        }
    }

    /// [`update`](Self::update) without its checks, for callers that validated the boxes
    /// (the world's broad phase): applies the pending insertions and removals, moves every
    /// present box that is not fixed to `boxes[slot]` (a fixed box keeps its place; slots
    /// beyond `boxes` keep theirs) and restores the order by insertion sort (O(n + swaps):
    /// near linear under coherent motion). A box that is not finite or is empty gives
    /// unspecified pairs, never a panic.
    pub fn update_unchecked(&mut self, boxes: &[Aabb]) -> SapStats {
        self.flush();
        let mut moving = false;
        for (s, b) in boxes.iter().enumerate().take(self.boxes.len()) {
            if self.present[s] && !self.fixed[s] {
                self.boxes[s] = *b;
                moving = true;
            }
        }
        if !moving {
            // (every box fixed: the order and the pairs hold)
            return SapStats {
                pairs: self.pairs.len(),
                ..SapStats::default()
            };
        }
        let mut swaps = 0;
        for (axis, list) in self.axes.iter_mut().enumerate() {
            for e in list.iter_mut() {
                let s = e.id() as usize;
                if self.fixed[s] {
                    continue;
                }
                let b = &self.boxes[s];
                e.value = if e.is_max() { b.max[axis] } else { b.min[axis] } + 0.0;
            }
            swaps += Self::settle(list, 1, &mut self.candidates);
        }
        let retests = self.candidates.len() as u64;
        self.retest();
        SapStats {
            swaps,
            retests,
            pairs: self.pairs.len(),
        }
    }

    /// The overlapping pairs' keys ([`pair_key`]; as of the last flush or update: call
    /// [`flush`](Self::flush) after insertions and removals).
    #[inline]
    #[must_use]
    pub fn pair_keys(&self) -> &PairSet {
        &self.pairs
    }

    /// The box at a slot (as last inserted or updated; `None` for a slot that was never
    /// used or is removed).
    #[inline]
    #[must_use]
    pub fn box_at(&self, slot: u32) -> Option<Aabb> {
        let s = slot as usize;
        (self.present.get(s).copied().unwrap_or(false)).then(|| self.boxes[s])
    }

    /// The boxes in slots `0..n` and their pairs, found by one sort and one sweep (O(n log n +
    /// pairs)).
    ///
    /// # Errors
    /// [`BvhError::NonFinitePrimitive`] or [`BvhError::EmptyBox`] naming the first bad box;
    /// [`BvhError::TooManyPrimitives`] at 2³¹ - 1 boxes or more.
    pub fn new(boxes: &[Aabb]) -> Result<Self, BvhError> {
        if boxes.len() >= MAX_SLOTS {
            return Err(BvhError::TooManyPrimitives(boxes.len()));
        }
        for (index, b) in boxes.iter().enumerate() {
            check_box(index, b)?;
        }
        let mut sap = Self::default();
        for (slot, b) in boxes.iter().enumerate() {
            sap.insert_unchecked(slot as u32, *b, false);
        }
        sap.flush();
        Ok(sap)
    }

    /// Adds box `b` at a free `slot` (`fixed`: the box never moves, and never pairs with
    /// another fixed box); applied by the next [`flush`](Self::flush) or
    /// [`update`](Self::update).
    ///
    /// # Errors
    /// [`BvhError::NonFinitePrimitive`] or [`BvhError::EmptyBox`] (naming the slot),
    /// [`BvhError::TooManyPrimitives`] for a slot at or above 2³¹ - 1,
    /// [`BvhError::InvalidOption`] for a slot in use; nothing changes on error.
    ///
    /// # Example
    /// ```
    /// use ccd_bvh::SweepAndPrune;
    /// use ccd_bvh::geometry::Aabb;
    /// use ccd_bvh::glam::DVec3;
    ///
    /// let mut sap = SweepAndPrune::default();
    /// sap.insert(4, Aabb::new(DVec3::ZERO, DVec3::ONE), false)?;
    /// assert!(sap.insert(4, Aabb::new(DVec3::ZERO, DVec3::ONE), false).is_err());
    /// # Ok::<(), ccd_bvh::BvhError>(())
    /// ```
    pub fn insert(&mut self, slot: u32, b: Aabb, fixed: bool) -> Result<(), BvhError> {
        let s = slot as usize;
        if s >= MAX_SLOTS {
            return Err(BvhError::TooManyPrimitives(s));
        }
        check_box(s, &b)?;
        if self.present.get(s).copied().unwrap_or(false) {
            return Err(BvhError::InvalidOption(
                "SweepAndPrune::insert: the slot is in use",
            ));
        }
        self.insert_unchecked(slot, b, fixed);
        Ok(())
    }

    /// Moves the present boxes that are not fixed to `boxes[slot]` (after applying pending
    /// insertions and removals) and updates the sorted axes and the overlapping pairs
    /// incrementally. Entries of removed and fixed slots are not read.
    ///
    /// # Errors
    /// [`BvhError::CountMismatch`] when `boxes` is shorter than [`len`](Self::len);
    /// [`BvhError::NonFinitePrimitive`] or [`BvhError::EmptyBox`] naming the first bad box of a
    /// moving slot. On error nothing moves (pending insertions and removals are applied).
    ///
    /// # Example
    /// ```
    /// use ccd_bvh::SweepAndPrune;
    /// use ccd_bvh::geometry::Aabb;
    /// use ccd_bvh::glam::DVec3;
    /// let mut sap = SweepAndPrune::new(&[Aabb::new(DVec3::ZERO, DVec3::ONE); 3])?;
    /// assert_eq!(sap.pair_count(), 3);
    /// let stats = sap.update(&[Aabb::new(DVec3::ZERO, DVec3::ONE); 3])?;
    /// assert_eq!(stats.swaps, 0);
    /// # Ok::<(), ccd_bvh::BvhError>(())
    /// ```
    pub fn update(&mut self, boxes: &[Aabb]) -> Result<SapStats, BvhError> {
        self.flush();
        if boxes.len() < self.boxes.len() {
            return Err(BvhError::CountMismatch {
                expected: self.boxes.len(),
                actual: boxes.len(),
            });
        }
        for (index, b) in boxes.iter().enumerate().take(self.boxes.len()) {
            if self.present[index] && !self.fixed[index] {
                check_box(index, b)?;
            }
        }
        Ok(self.update_unchecked(boxes))
    }

    /// The overlapping pairs `[a, b]` with `a < b`, in no particular order (as of the last
    /// flush or update).
    pub fn pairs(&self) -> impl Iterator<Item = [u32; 2]> + '_ {
        self.pairs.iter().map(|&k| unkey(k))
    }

    /// Number of overlapping pairs.
    #[inline]
    #[must_use]
    pub fn pair_count(&self) -> usize {
        self.pairs.len()
    }

    /// True when the pair overlaps (order of `a`, `b` irrelevant).
    #[inline]
    #[must_use]
    pub fn contains_pair(&self, a: u32, b: u32) -> bool {
        self.pairs.contains(&pair_key(a, b))
    }

    /// The boxes by slot as last given (entries of removed slots are stale; see
    /// [`box_at`](Self::box_at)).
    #[inline]
    #[must_use]
    pub fn boxes(&self) -> &[Aabb] {
        &self.boxes
    }

    /// Number of slots (one past the highest slot ever used).
    #[inline]
    #[must_use]
    pub fn len(&self) -> usize {
        self.boxes.len()
    }

    /// True when no slot was ever used.
    #[inline]
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.boxes.is_empty()
    }

    /// Recomputes the overlapping pairs from scratch with one sweep along the (already
    /// sorted) x axis, testing y and z for each pair of x-overlapping boxes, and appends them
    /// to `out` (`[a, b]`, `a < b`; pairs of two fixed boxes left out, as in
    /// [`pairs`](Self::pairs)). The alternative to the incremental pair set; O(n + k_x)
    /// where k_x is the number of x-overlapping pairs. Applies pending insertions and
    /// removals first.
    ///
    /// # Example
    /// ```
    /// use ccd_bvh::SweepAndPrune;
    /// use ccd_bvh::geometry::Aabb;
    /// use ccd_bvh::glam::DVec3;
    /// let mut sap = SweepAndPrune::new(&[Aabb::new(DVec3::ZERO, DVec3::ONE); 2])?;
    /// let mut out = Vec::new();
    /// sap.sweep_pairs_into(&mut out);
    /// assert_eq!(out, [[0, 1]]);
    /// # Ok::<(), ccd_bvh::BvhError>(())
    /// ```
    pub fn sweep_pairs_into(&mut self, out: &mut Vec<[u32; 2]>) {
        self.flush();
        self.active.clear();
        for e in &self.axes[0] {
            let id = e.id();
            if e.is_max() {
                if let Some(pos) = self.active.iter().position(|&a| a == id) {
                    self.active.swap_remove(pos);
                }
                continue;
            }
            let b = &self.boxes[id as usize];
            for &other in &self.active {
                if self.fixed[id as usize] && self.fixed[other as usize] {
                    continue;
                }
                let o = &self.boxes[other as usize];
                if b.min.y <= o.max.y
                    && o.min.y <= b.max.y
                    && b.min.z <= o.max.z
                    && o.min.z <= b.max.z
                {
                    out.push(if id < other { [id, other] } else { [other, id] });
                }
            }
            self.active.push(id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ccd_geometry::glam;
    use proptest::prelude::*;

    /// One operation on the box set.
    #[derive(Clone, Debug)]
    enum Op {
        /// A box (corner, extent), and whether it is fixed.
        Insert(DVec3, DVec3, bool),
        /// Removes the box in this slot (modulo the live count).
        Remove(usize),
        /// Moves every live box: per slot, a shift of its corner and a new extent.
        Move(Vec<(DVec3, DVec3)>),
    }

    fn vec3(lo: f64, hi: f64) -> impl Strategy<Value = DVec3> {
        (lo..hi, lo..hi, lo..hi).prop_map(|(x, y, z)| DVec3::new(x, y, z))
    }

    fn op(shift: f64, extent: f64) -> impl Strategy<Value = Op> {
        prop_oneof![
            (vec3(-5.0, 5.0), vec3(0.0, 2.0), any::<bool>())
                .prop_map(|(p, e, f)| Op::Insert(p, e, f)),
            (0usize..64).prop_map(Op::Remove),
            prop::collection::vec((vec3(-shift, shift), vec3(0.0, extent)), 64).prop_map(Op::Move),
        ]
    }
    use glam::DVec3;

    /// The overlapping pairs of the `live` slots but those of two fixed boxes.
    fn brute(sap: &SweepAndPrune, live: &[u32]) -> Vec<u64> {
        let mut out = Vec::new();
        for (i, &a) in live.iter().enumerate() {
            for &b in &live[i + 1..] {
                let both_fixed = sap.fixed[a as usize] && sap.fixed[b as usize];
                if !both_fixed && overlaps(&sap.box_at(a).unwrap(), &sap.box_at(b).unwrap()) {
                    out.push(pair_key(a, b));
                }
            }
        }
        out.sort_unstable();
        out
    }

    fn sorted(sap: &mut SweepAndPrune) -> Vec<u64> {
        sap.flush();
        let mut v: Vec<u64> = sap.pair_keys().iter().copied().collect();
        v.sort_unstable();
        v
    }

    #[test]
    fn insert_update_remove_track_overlaps() {
        let unit = |x: f64| Aabb::new(DVec3::new(x, 0.0, 0.0), DVec3::new(x + 1.0, 1.0, 1.0));
        let mut sap = SweepAndPrune::default();
        sap.insert_unchecked(0, unit(0.0), false);
        sap.insert_unchecked(1, unit(0.5), false);
        sap.insert_unchecked(2, unit(3.0), false);
        assert_eq!(sorted(&mut sap), [pair_key(0, 1)]);
        let mut boxes = vec![unit(0.0), unit(2.5), unit(3.0)];
        let swaps = sap.update_unchecked(&boxes).swaps;
        assert!(swaps > 0);
        assert_eq!(sorted(&mut sap), [pair_key(1, 2)]);
        sap.remove(1);
        assert!(sorted(&mut sap).is_empty());
        sap.remove(1); // twice: nothing happens (the world reports the error)
        boxes[0] = unit(2.9);
        sap.update_unchecked(&boxes);
        assert_eq!(sorted(&mut sap), brute(&sap, &[0, 2]));
        assert_eq!(sorted(&mut sap), [pair_key(0, 2)]);
        // the freed slot comes back
        sap.insert_unchecked(1, unit(3.5), false);
        assert_eq!(sorted(&mut sap), brute(&sap, &[0, 1, 2]));
        // touching boxes overlap (closed)
        sap.insert_unchecked(
            3,
            Aabb::new(DVec3::new(4.5, 0.0, 0.0), DVec3::new(5.0, 1.0, 1.0)),
            false,
        );
        assert!(sorted(&mut sap).contains(&pair_key(1, 3)));
        // two fixed boxes never make a pair; a fixed and a moving one do
        sap.insert_unchecked(4, unit(3.2), true);
        sap.insert_unchecked(5, unit(3.3), true);
        let pairs = sorted(&mut sap);
        assert!(!pairs.contains(&pair_key(4, 5)));
        assert!(pairs.contains(&pair_key(2, 4)) && pairs.contains(&pair_key(2, 5)));
        assert_eq!(pairs, brute(&sap, &[0, 1, 2, 3, 4, 5]));
        // a moving box crosses the fixed ones: its pairs follow, theirs stay out
        boxes[0] = unit(-3.0);
        boxes.extend([
            Aabb::new(DVec3::new(4.5, 0.0, 0.0), DVec3::new(5.0, 1.0, 1.0)),
            unit(3.2),
            unit(3.3),
        ]);
        sap.update_unchecked(&boxes);
        let pairs = sorted(&mut sap);
        assert!(!pairs.contains(&pair_key(0, 4)) && !pairs.contains(&pair_key(4, 5)));
        assert_eq!(pairs, brute(&sap, &[0, 1, 2, 3, 4, 5]));
    }

    #[test]
    fn still_boxes_need_no_swaps() {
        let mut sap = SweepAndPrune::default();
        let boxes: Vec<Aabb> = (0..20)
            .map(|i| {
                let p = DVec3::new(f64::from(i) * 0.7, f64::from(i % 3), 0.0);
                Aabb::new(p, p + DVec3::ONE)
            })
            .collect();
        for (i, b) in boxes.iter().enumerate() {
            sap.insert_unchecked(i as u32, *b, false);
        }
        assert_eq!(sap.update_unchecked(&boxes).swaps, 0);
        let live: Vec<u32> = (0..20).collect();
        assert_eq!(sorted(&mut sap), brute(&sap, &live));
    }

    fn boxed(p: DVec3, e: DVec3) -> Aabb {
        Aabb::new(p, p + e)
    }

    proptest! {
        /// The incrementally maintained pair set equals brute-force box overlap after
        /// random insertions, removals and moves (moves: coherent jitter of every box),
        /// checked after a random half of the operations and the last one: batches of
        /// insertions and removals between flushes, slots reused before a flush included;
        /// fixed boxes stay where they were inserted and never pair with each other.
        #[test]
        fn pairs_equal_brute_force(ops in prop::collection::vec((op(0.7, 2.0), any::<bool>()), 1..40)) {
            let mut sap = SweepAndPrune::default();
            let mut boxes: Vec<Aabb> = Vec::new();
            let mut live: Vec<u32> = Vec::new();
            let mut free: Vec<u32> = Vec::new();
            let mut fixed: Vec<bool> = Vec::new();
            let last = ops.len() - 1;
            for (i, (op, check)) in ops.into_iter().enumerate() {
                match op {
                    Op::Insert(p, e, f) => {
                        let slot = free.pop().unwrap_or(boxes.len() as u32);
                        if slot as usize == boxes.len() {
                            boxes.push(boxed(p, e));
                            fixed.push(f);
                        } else {
                            boxes[slot as usize] = boxed(p, e);
                            fixed[slot as usize] = f;
                        }
                        sap.insert_unchecked(slot, boxes[slot as usize], f);
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
                            if fixed[k] {
                                continue;
                            }
                            let (d, e) = m[k % m.len()];
                            let p = b.min + d;
                            // a few boxes snap to a shared coordinate: equal endpoints
                            let p = if k % 5 == 0 { p.round() } else { p };
                            *b = boxed(p, if k % 7 == 0 { DVec3::ZERO } else { e });
                        }
                        sap.update_unchecked(&boxes);
                    }
                }
                if !check && i < last {
                    continue;
                }
                live.sort_unstable();
                prop_assert_eq!(sorted(&mut sap), brute(&sap, &live));
                for &s in &live {
                    prop_assert_eq!(sap.box_at(s), Some(boxes[s as usize]));
                }
            }
        }
    }
}
