//! The records of the top-down build (a primitive's box in f32 SIMD lanes with its id) and the
//! split rules that partition them in place: binned SAH (Wald 2007), exact SAH for small
//! nodes, and the median split.

use ccd_geometry::Aabb;
use glam::Vec4;

use crate::{BvhError, PrimitiveSet, SplitRule};

/// Checks the primitives (as the bottom-up build's `primitive_boxes` does) and collects
/// their build records.
pub(super) fn build_items<P: PrimitiveSet + ?Sized>(prims: &P) -> Result<Vec<BuildItem>, BvhError> {
    let n = prims.len();
    if n >= u32::MAX as usize {
        return Err(BvhError::TooManyPrimitives(n));
    }
    prims.validate()?;
    let mut items = Vec::with_capacity(n);
    for i in 0..n {
        let b = prims.aabb(i);
        // one branch for both checks (the masks avoid short-circuit branches)
        let finite = (b.min.is_finite_mask() & b.max.is_finite_mask()).all();
        if !finite || b.min.cmpgt(b.max).any() {
            return Err(if finite {
                BvhError::EmptyBox { index: i }
            } else {
                BvhError::NonFinitePrimitive { index: i }
            });
        }
        items.push(BuildItem::new(&b, i as u32));
    }
    Ok(items)
}

/// A primitive during the top-down build: its box in f32 SIMD lanes (it only steers the
/// splits; node volumes are fitted to the exact f64 points afterwards), 32 bytes, kept in one
/// array that is partitioned in place (sequential memory access at every level).
///
/// The `w` lane of `lo` carries the bits of the primitive id: it is only ever copied and read
/// back with `to_bits`, and the `w` lanes of everything computed from items (centroids, bin
/// bounds) are ignored.
#[derive(Clone, Copy, Debug)]
pub(super) struct BuildItem {
    pub(super) lo: Vec4,
    pub(super) hi: Vec4,
}

/// XORed into the id bits stored in a float lane: ids below 2^23 then read as floats in
/// `[1, 2)` instead of subnormals, which some CPUs process slowly when the lane takes part
/// in (ignored) arithmetic.
pub(super) const ID_MASK: u32 = 0x3F80_0000;

/// Coordinates are clamped to this magnitude before the f32 conversion, so that centroid
/// sums and extents stay finite for any finite input (the splits only need an ordering).
const F32_CLAMP: f64 = 1e37;

impl BuildItem {
    #[inline]
    pub(super) fn new(b: &Aabb, id: u32) -> Self {
        let f = |x: f64| x.clamp(-F32_CLAMP, F32_CLAMP) as f32;
        Self {
            lo: Vec4::new(
                f(b.min.x),
                f(b.min.y),
                f(b.min.z),
                f32::from_bits(id ^ ID_MASK),
            ),
            hi: Vec4::new(f(b.max.x), f(b.max.y), f(b.max.z), 0.0),
        }
    }

    #[inline]
    pub(super) fn id(&self) -> u32 {
        self.lo.w.to_bits() ^ ID_MASK
    }

    /// Twice the centroid in `xyz` (the factor cancels in every comparison); `w` is junk.
    #[inline]
    fn centroid2(&self) -> Vec4 {
        self.lo + self.hi
    }
}

/// Lane `A` (0, 1 or 2) of `v`; `A` is a constant, so this is one shuffle.
#[inline(always)]
fn lane<const A: usize>(v: Vec4) -> f32 {
    match A {
        0 => v.x,
        1 => v.y,
        _ => v.z,
    }
}

/// The axis (0, 1, 2) of largest extent of `(lo, hi)`.
#[inline]
fn longest_axis((lo, hi): CBounds) -> usize {
    let e = hi - lo;
    if e.x >= e.y && e.x >= e.z {
        0
    } else if e.y >= e.z {
        1
    } else {
        2
    }
}

/// Largest number of SAH bins (larger requests are clamped).
const MAX_BINS: usize = 64;

/// One SAH bin: bounds of the boxes and of the doubled centroids of the items binned in it
/// (`w` lanes are junk).
#[derive(Clone, Copy)]
struct Bin {
    lo: Vec4,
    hi: Vec4,
    clo: Vec4,
    chi: Vec4,
}

const EMPTY_BIN: Bin = Bin {
    lo: Vec4::INFINITY,
    hi: Vec4::NEG_INFINITY,
    clo: Vec4::INFINITY,
    chi: Vec4::NEG_INFINITY,
};

/// Reusable bin buffers of [`split_sah`] (allocated once per build).
pub(super) struct SahScratch {
    bins: [Bin; MAX_BINS],
    count: [u32; MAX_BINS],
    /// Half surface area and item count of bins `k..` (the right side of the split after
    /// bin `k - 1`).
    right_area: [f32; MAX_BINS],
    right_count: [u32; MAX_BINS],
}

impl SahScratch {
    pub(super) fn new() -> Self {
        Self {
            bins: [EMPTY_BIN; MAX_BINS],
            count: [0; MAX_BINS],
            right_area: [0.0; MAX_BINS],
            right_count: [0; MAX_BINS],
        }
    }
}

/// Half the surface area of the box `(lo, hi)` (only `xyz` read).
#[inline]
fn half_area(lo: Vec4, hi: Vec4) -> f32 {
    let d = hi - lo;
    d.x * d.y + d.y * d.z + d.z * d.x
}

/// The bin of a doubled-centroid coordinate `c`: about `floor((c - lo) * scale)`, clamped to
/// `0..=last`. Binning and partitioning both call this, so they agree on every item; the bin
/// is a non-decreasing function of `c` (a NaN lands in bin 0).
///
/// The rounding is done by adding 2^23 (whose f32 ulp is 1) and reading the mantissa bits,
/// which is a few instructions cheaper than a saturating float-to-integer cast; it rounds
/// half to even, hence the shift by one half so that bin `k` covers about `[k, k + 1)`.
#[inline(always)]
fn bin_index(c: f32, lo: f32, scale: f32, last: f32) -> usize {
    let x = (c - lo) * scale - 0.5;
    // written as selects so that they compile to maxss/minss; NaN picks 0
    let x = if x > 0.0 { x } else { 0.0 };
    let x = if x < last { x } else { last };
    ((x + 8_388_608.0).to_bits() & 0x7F_FFFF) as usize
}

/// Binned SAH split (Wald 2007) along the axis of largest centroid extent: partitions `items`
/// in place and returns the size of the left part with the centroid bounds of both parts.
/// Falls back to a median split when the centroids coincide or no bin boundary separates
/// them.
fn split_sah(
    items: &mut [BuildItem],
    cb: CBounds,
    bins: usize,
    sc: &mut SahScratch,
) -> (u32, CBounds, CBounds) {
    match longest_axis(cb) {
        0 => split_sah_axis::<0>(items, cb, bins, sc),
        1 => split_sah_axis::<1>(items, cb, bins, sc),
        _ => split_sah_axis::<2>(items, cb, bins, sc),
    }
}

/// Nodes with at most this many items are split by [`split_sah_sorted`] (exact SAH over the
/// sorted centroids) instead of binning: cheaper there, since the per-bin work dominates, and
/// at least as good.
const SMALL_NODE: usize = 16;

/// Exact SAH split of a small node along axis `A`: sorts the items by centroid and evaluates
/// every split position of that order (the binned SAH with one bin per item).
fn split_sah_sorted<const A: usize>(
    items: &mut [BuildItem],
    sc: &mut SahScratch,
) -> (u32, CBounds, CBounds) {
    let n = items.len();
    debug_assert!((2..=MAX_BINS).contains(&n));
    items.sort_unstable_by(|a, b| lane::<A>(a.centroid2()).total_cmp(&lane::<A>(b.centroid2())));
    // right_area[k]: half area of the boxes of items k..
    let (mut lo_acc, mut hi_acc) = (Vec4::INFINITY, Vec4::NEG_INFINITY);
    for k in (1..n).rev() {
        lo_acc = lo_acc.min(items[k].lo);
        hi_acc = hi_acc.max(items[k].hi);
        sc.right_area[k] = half_area(lo_acc, hi_acc);
    }
    let mut best = (0usize, f32::INFINITY); // last item of the left side, cost
    let (mut lo_acc, mut hi_acc) = (Vec4::INFINITY, Vec4::NEG_INFINITY);
    for (k, it) in items[..n - 1].iter().enumerate() {
        lo_acc = lo_acc.min(it.lo);
        hi_acc = hi_acc.max(it.hi);
        #[allow(clippy::cast_precision_loss)] // k < MAX_BINS
        let cost =
            half_area(lo_acc, hi_acc) * (k + 1) as f32 + sc.right_area[k + 1] * (n - 1 - k) as f32;
        // ties (identical boxes, or costs that all overflowed) go to the more balanced
        // split; if every cost is NaN the first split is kept, still a valid one
        if cost < best.1
            || (cost == best.1 && (2 * k + 2).abs_diff(n) < (2 * best.0 + 2).abs_diff(n))
        {
            best = (k, cost);
        }
    }
    let mid = best.0 + 1;
    let (l, r) = items.split_at(mid);
    (mid as u32, centroid_bounds(l), centroid_bounds(r))
}

/// [`split_sah`] along axis `A`.
fn split_sah_axis<const A: usize>(
    items: &mut [BuildItem],
    cb: CBounds,
    bins: usize,
    sc: &mut SahScratch,
) -> (u32, CBounds, CBounds) {
    let nb = bins;
    let lo = lane::<A>(cb.0);
    let ext = lane::<A>(cb.1) - lo;
    #[allow(clippy::cast_precision_loss)] // at most MAX_BINS
    let (scale, last_f) = (nb as f32 / ext, (nb - 1) as f32);
    // not (ext > 0): coincident centroids, or a NaN from an overflow
    if !(ext > 0.0 && scale.is_finite()) {
        return split_median_axis::<A>(items);
    }
    if items.len() <= SMALL_NODE {
        return split_sah_sorted::<A>(items, sc);
    }
    let bins = &mut sc.bins;
    let count = &mut sc.count;
    bins[..nb].fill(EMPTY_BIN);
    count[..nb].fill(0);
    for it in items.iter() {
        let c = it.centroid2();
        // bin_index is at most nb - 1 < MAX_BINS; the mask only spares the bounds check
        let k = bin_index(lane::<A>(c), lo, scale, last_f) & (MAX_BINS - 1);
        let b = &mut bins[k];
        b.lo = b.lo.min(it.lo);
        b.hi = b.hi.max(it.hi);
        b.clo = b.clo.min(c);
        b.chi = b.chi.max(c);
        count[k] += 1;
    }
    // sweep from the right: area and count of bins k..
    let (mut lo_acc, mut hi_acc) = (Vec4::INFINITY, Vec4::NEG_INFINITY);
    let mut cnt = 0;
    for k in (1..nb).rev() {
        lo_acc = lo_acc.min(bins[k].lo);
        hi_acc = hi_acc.max(bins[k].hi);
        cnt += count[k];
        sc.right_area[k] = half_area(lo_acc, hi_acc);
        sc.right_count[k] = cnt;
    }
    // sweep from the left, evaluating the split after every bin k
    let n = items.len() as u64;
    // last bin of the left side, cost, imbalance |left - right| (breaks ties, e.g. the zero
    // costs of collinear primitives, towards balanced trees)
    let mut best: Option<(usize, f32, u64)> = None;
    let (mut lo_acc, mut hi_acc) = (Vec4::INFINITY, Vec4::NEG_INFINITY);
    let mut cnt = 0;
    for k in 0..nb - 1 {
        lo_acc = lo_acc.min(bins[k].lo);
        hi_acc = hi_acc.max(bins[k].hi);
        cnt += count[k];
        let rc = sc.right_count[k + 1];
        if cnt == 0 || rc == 0 {
            continue;
        }
        #[allow(clippy::cast_precision_loss)] // the SAH cost needs no exact counts
        let cost = half_area(lo_acc, hi_acc) * cnt as f32 + sc.right_area[k + 1] * rc as f32;
        let imbalance = (2 * u64::from(cnt)).abs_diff(n);
        // the first candidate is taken even when its cost overflowed, so a split exists
        if best.is_none_or(|(_, c, i)| cost < c || (cost == c && imbalance < i)) {
            best = Some((k, cost, imbalance));
        }
    }
    let Some((split_bin, _, _)) = best else {
        return split_median_axis::<A>(items);
    };
    let merge = |bins: &[Bin]| {
        bins.iter()
            .fold((Vec4::INFINITY, Vec4::NEG_INFINITY), |(lo, hi), b| {
                (lo.min(b.clo), hi.max(b.chi))
            })
    };
    let cb_left = merge(&bins[..=split_bin]);
    let cb_right = merge(&bins[split_bin + 1..nb]);
    // bin_index is non-decreasing in the centroid, so an item is in a bin <= split_bin
    // exactly when its centroid is at most the largest centroid of those bins
    let threshold = lane::<A>(cb_left.1);
    // branchless in-place partition: items[..l] go left, items[l..k] go right
    let mut l = 0usize;
    for k in 0..items.len() {
        let it = items[k];
        let goes_left = lane::<A>(it.centroid2()) <= threshold;
        items[k] = items[l];
        items[l] = it;
        l += usize::from(goes_left);
    }
    if l == 0 || l == items.len() {
        // unreachable (both sides were counted non-empty); kept so that every split
        // makes progress whatever happens
        return split_median_axis::<A>(items);
    }
    (l as u32, cb_left, cb_right)
}

/// Bounds `(lo, hi)` of the doubled centroids of a range of build items (`xyz` lanes).
pub(super) type CBounds = (Vec4, Vec4);

/// The [`CBounds`] of `items`.
pub(super) fn centroid_bounds(items: &[BuildItem]) -> CBounds {
    items
        .iter()
        .fold((Vec4::INFINITY, Vec4::NEG_INFINITY), |(lo, hi), it| {
            let c = it.centroid2();
            (lo.min(c), hi.max(c))
        })
}

/// Partitions `items` in place by `rule`: the size of the left part and the centroid bounds
/// of both parts.
pub(super) fn split_items(
    rule: SplitRule,
    items: &mut [BuildItem],
    cb: CBounds,
    sah: &mut SahScratch,
) -> (u32, CBounds, CBounds) {
    match rule {
        SplitRule::BinnedSah { bins } => {
            split_sah(items, cb, bins.clamp(2, MAX_BINS as u32) as usize, sah)
        }
        SplitRule::Median => split_median(items, cb),
    }
}

/// Median split of the centroids along the longest axis of their box: partitions `items` in
/// place (O(n) selection) and returns the size of the left half with the centroid bounds of
/// both halves.
fn split_median(items: &mut [BuildItem], cb: CBounds) -> (u32, CBounds, CBounds) {
    match longest_axis(cb) {
        0 => split_median_axis::<0>(items),
        1 => split_median_axis::<1>(items),
        _ => split_median_axis::<2>(items),
    }
}

/// [`split_median`] along axis `A` (any `items.len() >= 2` gives two non-empty halves).
fn split_median_axis<const A: usize>(items: &mut [BuildItem]) -> (u32, CBounds, CBounds) {
    let mid = items.len() / 2;
    items.select_nth_unstable_by(mid, |a, b| {
        lane::<A>(a.centroid2()).total_cmp(&lane::<A>(b.centroid2()))
    });
    let (l, r) = items.split_at(mid);
    (mid as u32, centroid_bounds(l), centroid_bounds(r))
}
