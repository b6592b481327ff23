//! Sweep-and-prune over N moving boxes with insertion-sort coherence (Lin survey slides,
//! "Sweep & Prune"; Cohen, Lin, Manocha and Ponamgi, I-COLLIDE, 1995).

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

use ccd_geometry::Aabb;

use crate::Error;

/// A multiply-shift hasher for the `u64` pair keys (SipHash is several times slower here and
/// the keys are not attacker-controlled).
#[derive(Clone, Copy, Debug, Default)]
struct PairHasher(u64);

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

type PairSet = HashSet<u64, BuildHasherDefault<PairHasher>>;

/// One interval endpoint on one axis: the value and `box id << 1 | is_max`.
#[derive(Clone, Copy, Debug)]
struct Endpoint {
    value: f64,
    tag: u32,
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

    /// Sort order: by value, a min before a max at equal values (so closed intervals that
    /// touch count as overlapping, like [`Aabb::overlaps`]).
    #[inline]
    fn less(self, other: Self) -> bool {
        self.value < other.value || (self.value == other.value && (self.tag & 1) < (other.tag & 1))
    }
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

/// Sweep-and-prune over N moving axis-aligned boxes (same frame).
///
/// The endpoints of the boxes are kept sorted on all three axes. [`update`](Self::update)
/// writes the new positions and restores the order by insertion sort: with coherent motion
/// few endpoints move past each other, so an update costs O(n + swaps) (slides: "O(n) per
/// update"). A pair's overlap status can only change when one box's min endpoint passes the
/// other's max endpoint on some axis; exactly those pairs are swapped by the sort, so only they
/// are re-tested and the overlapping-pair set is maintained incrementally.
///
/// Boxes are closed: touching boxes overlap (as [`Aabb::overlaps`]).
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
/// # Ok::<(), ccd_bvh::Error>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct SweepAndPrune {
    boxes: Vec<Aabb>,
    axes: [Vec<Endpoint>; 3],
    pairs: PairSet,
    candidates: Vec<u64>,
    active: Vec<u32>,
}

#[inline]
fn key(a: u32, b: u32) -> u64 {
    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
    (u64::from(lo) << 32) | u64::from(hi)
}

#[inline]
fn unkey(k: u64) -> [u32; 2] {
    [(k >> 32) as u32, k as u32]
}

fn check(boxes: &[Aabb]) -> Result<(), Error> {
    if boxes.len() >= (u32::MAX >> 1) as usize {
        return Err(Error::TooManyPrimitives(boxes.len()));
    }
    for (index, b) in boxes.iter().enumerate() {
        if !(b.min.is_finite() && b.max.is_finite()) {
            return Err(Error::NonFinitePrimitive { index });
        }
        if b.is_empty() {
            return Err(Error::EmptyBox { index });
        }
    }
    Ok(())
}

impl SweepAndPrune {
    /// Sorts the endpoints of `boxes` (O(n log n)) and finds the overlapping pairs with one
    /// sweep along x.
    ///
    /// # Errors
    /// [`Error::NonFinitePrimitive`] or [`Error::EmptyBox`] naming the first bad box;
    /// [`Error::TooManyPrimitives`] beyond 2^31 - 1 boxes.
    pub fn new(boxes: &[Aabb]) -> Result<Self, Error> {
        check(boxes)?;
        let mut sap = Self {
            boxes: boxes.to_vec(),
            ..Self::default()
        };
        for (axis, list) in sap.axes.iter_mut().enumerate() {
            list.reserve(2 * boxes.len());
            for (i, b) in boxes.iter().enumerate() {
                // `+ 0.0` turns -0.0 into +0.0 so that value comparisons are total
                list.push(Endpoint {
                    value: b.min[axis] + 0.0,
                    tag: (i as u32) << 1,
                });
                list.push(Endpoint {
                    value: b.max[axis] + 0.0,
                    tag: ((i as u32) << 1) | 1,
                });
            }
            list.sort_unstable_by(|a, b| {
                a.value
                    .total_cmp(&b.value)
                    .then((a.tag & 1).cmp(&(b.tag & 1)))
            });
        }
        let mut found = Vec::new();
        sap.sweep_pairs_into(&mut found);
        sap.pairs = found.iter().map(|p| key(p[0], p[1])).collect();
        Ok(sap)
    }

    /// Moves the boxes to their new positions (same count and ids as at construction) and
    /// updates the sorted axes and the overlapping pairs incrementally.
    ///
    /// # Errors
    /// [`Error::CountMismatch`], [`Error::NonFinitePrimitive`], [`Error::EmptyBox`]; on error
    /// nothing changes.
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
    /// # Ok::<(), ccd_bvh::Error>(())
    /// ```
    pub fn update(&mut self, boxes: &[Aabb]) -> Result<SapStats, Error> {
        if boxes.len() != self.boxes.len() {
            return Err(Error::CountMismatch {
                expected: self.boxes.len(),
                actual: boxes.len(),
            });
        }
        check(boxes)?;
        self.boxes.copy_from_slice(boxes);
        let mut stats = SapStats::default();
        self.candidates.clear();
        for (axis, list) in self.axes.iter_mut().enumerate() {
            for e in list.iter_mut() {
                let b = &boxes[e.id() as usize];
                e.value = if e.is_max() { b.max[axis] } else { b.min[axis] } + 0.0;
            }
            // insertion sort: every swap of a min and a max of different boxes is a pair whose
            // order on this axis, hence possibly whose overlap, changes
            for i in 1..list.len() {
                let e = list[i];
                let mut j = i;
                while j > 0 && e.less(list[j - 1]) {
                    let o = list[j - 1];
                    if o.is_max() != e.is_max() && o.id() != e.id() {
                        self.candidates.push(key(o.id(), e.id()));
                    }
                    list[j] = o;
                    j -= 1;
                    stats.swaps += 1;
                }
                list[j] = e;
            }
        }
        for &k in &self.candidates {
            let [a, b] = unkey(k);
            stats.retests += 1;
            if self.boxes[a as usize].overlaps(&self.boxes[b as usize]) {
                self.pairs.insert(k);
            } else {
                self.pairs.remove(&k);
            }
        }
        stats.pairs = self.pairs.len();
        Ok(stats)
    }

    /// The overlapping pairs `[a, b]` with `a < b`, in no particular order.
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
        self.pairs.contains(&key(a, b))
    }

    /// The boxes as last given.
    #[inline]
    #[must_use]
    pub fn boxes(&self) -> &[Aabb] {
        &self.boxes
    }

    /// Number of boxes.
    #[inline]
    #[must_use]
    pub fn len(&self) -> usize {
        self.boxes.len()
    }

    /// True when there is no box.
    #[inline]
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.boxes.is_empty()
    }

    /// Recomputes the overlapping pairs from scratch with one sweep along the (already
    /// sorted) x axis, testing y and z for each pair of x-overlapping boxes, and appends them
    /// to `out` (`[a, b]`, `a < b`). The alternative to the incremental pair set; O(n + k_x)
    /// where k_x is the number of x-overlapping pairs.
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
    /// # Ok::<(), ccd_bvh::Error>(())
    /// ```
    pub fn sweep_pairs_into(&mut self, out: &mut Vec<[u32; 2]>) {
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
