//! The flat bounding-volume hierarchy [`Bvh`]: top-down build, bottom-up build, refit.

use std::ops::Range;

use ccd_geometry::Aabb;
use glam::{DVec3, Vec4};

use crate::{BoundingVolume, BvhError, PrimitiveSet, SplitRule};

/// Build options of a [`Bvh`].
///
/// # Example
/// ```
/// use ccd_bvh::{Bvh, BvhOptions, SplitRule, TriangleSoup};
/// use ccd_bvh::geometry::Aabb;
/// use ccd_bvh::glam::DVec3;
///
/// let v = [DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z];
/// let t = [[0, 1, 2], [0, 1, 3], [0, 2, 3], [1, 2, 3]];
/// let opts = BvhOptions::default().with_leaf_size(1).with_split(SplitRule::Median);
/// let bvh = Bvh::<Aabb>::build(&TriangleSoup::new(&v, &t), &opts)?;
/// assert_eq!(bvh.node_count(), 7);
/// # Ok::<(), ccd_bvh::BvhError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct BvhOptions {
    /// Largest number of primitives in a leaf (≥ 1; default 4). Nodes with more are split.
    pub leaf_size: u32,
    /// The split rule; `None` uses the volume type's
    /// [`DEFAULT_SPLIT`](BoundingVolume::DEFAULT_SPLIT).
    pub split: Option<SplitRule>,
}

impl BvhOptions {
    /// The same options with at most `leaf_size` primitives per leaf (validated by the
    /// build: at least 1).
    #[inline]
    #[must_use]
    pub fn with_leaf_size(mut self, leaf_size: u32) -> Self {
        self.leaf_size = leaf_size;
        self
    }

    /// The same options splitting nodes by `split` instead of the volume type's default.
    #[inline]
    #[must_use]
    pub fn with_split(mut self, split: SplitRule) -> Self {
        self.split = Some(split);
        self
    }
}

impl Default for BvhOptions {
    fn default() -> Self {
        Self {
            leaf_size: 4,
            split: None,
        }
    }
}

/// A node of a [`Bvh`]: its volume, the contiguous range of the BVH's primitive order it
/// covers, and (for an inner node) the index of its first child; the second child follows it.
#[derive(Clone, Copy, Debug)]
pub struct Node<B> {
    pub(crate) bv: B,
    first: u32,
    count: u32,
    /// Index of the first child; 0 for a leaf (the root, index 0, is nobody's child).
    left: u32,
}

impl<B> Node<B> {
    /// The bounding volume (containing every primitive below this node).
    #[inline]
    #[must_use]
    pub fn bv(&self) -> &B {
        &self.bv
    }

    /// True for a leaf.
    #[inline]
    #[must_use]
    pub fn is_leaf(&self) -> bool {
        self.left == 0
    }

    /// The two child indices of an inner node, `None` for a leaf.
    #[inline]
    #[must_use]
    pub fn children(&self) -> Option<[u32; 2]> {
        if self.left == 0 {
            None
        } else {
            Some([self.left, self.left + 1])
        }
    }

    /// The range of [`Bvh::primitives`] covered by this node (every node, not only leaves,
    /// covers a contiguous range).
    #[inline]
    #[must_use]
    pub fn primitive_range(&self) -> Range<usize> {
        self.first as usize..(self.first + self.count) as usize
    }

    /// Number of primitives below this node.
    #[inline]
    #[must_use]
    pub fn primitive_count(&self) -> u32 {
        self.count
    }
}

/// A bounding-volume hierarchy over the primitives of a [`PrimitiveSet`], stored flat: nodes
/// in one `Vec` (root at index 0, parents before children, siblings adjacent) and the
/// primitive ids in one `Vec` ordered so that every node covers a contiguous range.
///
/// Built top-down ([`Bvh::build`]; binned SAH or median split, see [`SplitRule`]) or
/// bottom-up ([`Bvh::build_bottom_up`], for small sets rebuilt every step). Traversals are in
/// the `traverse` methods and take a reusable [`Workspace`](crate::Workspace).
///
/// # Example
/// ```
/// use ccd_bvh::{Bvh, BvhOptions, Rss, TriangleSoup};
/// use ccd_bvh::glam::DVec3;
///
/// let v: Vec<DVec3> = (0..40).map(|i| DVec3::new(f64::from(i), f64::from(i % 3), 0.0)).collect();
/// let t: Vec<[u32; 3]> = (0..38).map(|i| [i, i + 1, i + 2]).collect();
/// let bvh = Bvh::<Rss>::build(&TriangleSoup::new(&v, &t), &BvhOptions::default())?;
/// assert_eq!(bvh.primitive_count(), 38);
/// let root = bvh.root().unwrap();
/// assert_eq!(root.primitive_range(), 0..38);
/// # Ok::<(), ccd_bvh::BvhError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Bvh<B> {
    pub(crate) nodes: Vec<Node<B>>,
    pub(crate) primitives: Vec<u32>,
}

impl<B> Default for Bvh<B> {
    fn default() -> Self {
        Self {
            nodes: Vec::new(),
            primitives: Vec::new(),
        }
    }
}

/// Checks and collects per-primitive boxes and centroids.
fn primitive_boxes<P: PrimitiveSet + ?Sized>(
    prims: &P,
    boxes: &mut Vec<Aabb>,
    centroids: &mut Vec<DVec3>,
) -> Result<(), BvhError> {
    let n = prims.len();
    if n >= u32::MAX as usize {
        return Err(BvhError::TooManyPrimitives(n));
    }
    prims.validate()?;
    boxes.clear();
    centroids.clear();
    boxes.reserve(n);
    centroids.reserve(n);
    for i in 0..n {
        let b = prims.aabb(i);
        if !(b.min.is_finite() && b.max.is_finite()) {
            return Err(BvhError::NonFinitePrimitive { index: i });
        }
        if b.is_empty() {
            return Err(BvhError::EmptyBox { index: i });
        }
        boxes.push(b);
        centroids.push(b.center());
    }
    Ok(())
}

impl<B: BoundingVolume> Bvh<B> {
    /// Builds the hierarchy top-down. An empty set gives an empty BVH (no nodes; every
    /// traversal visits nothing).
    ///
    /// Cost: O(n log n); every node's volume is fitted to the points of its primitives
    /// (so OBB/RSS nodes get their own principal axes, as in OBBTree/PQP).
    ///
    /// # Errors
    /// [`BvhError::InvalidOption`] for `leaf_size == 0`; [`BvhError::NonFinitePrimitive`] /
    /// [`BvhError::EmptyBox`] for a bad primitive; [`BvhError::TooManyPrimitives`]; whatever
    /// [`PrimitiveSet::validate`] reports.
    ///
    /// # Example
    /// ```
    /// use ccd_bvh::{Bvh, BvhOptions, Obb};
    /// use ccd_bvh::glam::DVec3;
    /// let pts: Vec<DVec3> = (0..100).map(|i| DVec3::new(f64::from(i).sin(), f64::from(i), 0.0)).collect();
    /// let bvh = Bvh::<Obb>::build(pts.as_slice(), &BvhOptions::default())?;
    /// assert!(bvh.node_count() >= 2 * 100 / 4 - 1);
    /// # Ok::<(), ccd_bvh::BvhError>(())
    /// ```
    pub fn build<P: PrimitiveSet + ?Sized>(
        prims: &P,
        options: &BvhOptions,
    ) -> Result<Self, BvhError> {
        if options.leaf_size == 0 {
            return Err(BvhError::InvalidOption("leaf_size must be at least 1"));
        }
        let mut items = build_items(prims)?;
        let n = items.len();
        let mut bvh = Self {
            nodes: Vec::new(),
            primitives: Vec::new(),
        };
        if n == 0 {
            return Ok(bvh);
        }
        let split = options.split.unwrap_or(B::DEFAULT_SPLIT);
        let leaf_size = options.leaf_size;
        // SAH leaves hold about 3/4 of leaf_size on average, so 3n / leaf_size nodes avoid
        // growing (copying) the node array in the common case; never more than the 2n - 1
        // nodes a binary tree with non-empty leaves can have
        bvh.nodes
            .reserve_exact((3 * n / leaf_size as usize).clamp(1, 2 * n - 1));
        // topology first (splits only need boxes and centroids), volumes afterwards
        let placeholder = Node {
            bv: B::fit_points(&[]),
            first: 0,
            count: n as u32,
            left: 0,
        };
        bvh.nodes.push(placeholder);
        // stack of (node index, first, count, centroid bounds); the node's slot exists already
        let mut stack: Vec<(u32, u32, u32, CBounds)> = Vec::with_capacity(64);
        let mut sah = SahScratch::new();
        stack.push((0, 0, n as u32, centroid_bounds(&items)));
        while let Some((index, first, count, cb)) = stack.pop() {
            let node = &mut bvh.nodes[index as usize];
            node.first = first;
            node.count = count;
            if count <= leaf_size {
                continue;
            }
            let part = &mut items[first as usize..(first + count) as usize];
            let (mid, cb_left, cb_right) = split_items(split, part, cb, &mut sah);
            let left = bvh.add_children(index, placeholder);
            // right first so the left subtree is built (and laid out) first
            stack.push((left + 1, first + mid, count - mid, cb_right));
            stack.push((left, first, mid, cb_left));
        }
        bvh.primitives = items.iter().map(BuildItem::id).collect();
        drop(items);
        bvh.fit_from_set(prims, &mut Vec::new(), false);
        Ok(bvh)
    }

    /// Builds the hierarchy top-down without splitting any group: primitive `i` belongs to
    /// group `groups[i]` (any ids, e.g. the connected pieces of a mesh). The upper levels
    /// split sets of whole groups (the split rule applied to the groups' boxes), so every
    /// group gets its own subtree below them, built as [`Bvh::build`] would; only groups
    /// together no larger than a leaf may share one. A refit then keeps every group's subtree
    /// tight however the groups move apart (the rigid fragments of an explosion, separate
    /// bodies), and a subtree never mixes the triangles of different pieces.
    ///
    /// # Errors
    /// As [`Bvh::build`], and [`BvhError::CountMismatch`] when `groups` and `prims` differ in
    /// length.
    ///
    /// # Example
    /// ```
    /// use ccd_bvh::{Bvh, BvhOptions};
    /// use ccd_bvh::geometry::Aabb;
    /// use ccd_bvh::glam::DVec3;
    /// // two interleaved rows of boxes, group = parity
    /// let boxes: Vec<Aabb> = (0..64)
    ///     .map(|i| Aabb::new(DVec3::new(f64::from(i), 0.0, 0.0), DVec3::new(f64::from(i) + 0.5, 1.0, 1.0)))
    ///     .collect();
    /// let groups: Vec<u32> = (0..64).map(|i| i % 2).collect();
    /// let opts = BvhOptions::default().with_leaf_size(4);
    /// let bvh = Bvh::<Aabb>::build_grouped(boxes.as_slice(), &groups, &opts)?;
    /// let [l, r] = bvh.root().unwrap().children().unwrap();
    /// // the root's children are the two groups
    /// assert!(bvh.node_primitives(l).iter().all(|&p| p % 2 == bvh.node_primitives(l)[0] % 2));
    /// assert_eq!(bvh.node(r).primitive_count(), 32);
    /// # Ok::<(), ccd_bvh::BvhError>(())
    /// ```
    pub fn build_grouped<P: PrimitiveSet + ?Sized>(
        prims: &P,
        groups: &[u32],
        options: &BvhOptions,
    ) -> Result<Self, BvhError> {
        if options.leaf_size == 0 {
            return Err(BvhError::InvalidOption("leaf_size must be at least 1"));
        }
        if groups.len() != prims.len() {
            return Err(BvhError::CountMismatch {
                expected: prims.len(),
                actual: groups.len(),
            });
        }
        let items = build_items(prims)?;
        let n = items.len();
        let mut bvh = Self {
            nodes: Vec::new(),
            primitives: Vec::new(),
        };
        if n == 0 {
            return Ok(bvh);
        }
        // items in group order; `ranges[g]` is group g's run of them
        let mut order: Vec<u64> = groups
            .iter()
            .enumerate()
            .map(|(i, &g)| (u64::from(g) << 32) | i as u64)
            .collect();
        order.sort_unstable();
        let by_group: Vec<BuildItem> = order
            .iter()
            .map(|&k| items[(k & 0xffff_ffff) as usize])
            .collect();
        drop(items);
        let mut ranges: Vec<(u32, u32)> = Vec::new();
        for (i, w) in order.iter().enumerate() {
            if i == 0 || (w >> 32) != (order[i - 1] >> 32) {
                ranges.push((i as u32, 0));
            }
            if let Some(r) = ranges.last_mut() {
                r.1 += 1;
            }
        }
        drop(order);
        // one build item per group (its box; the id lane holds the group's index)
        let mut gitems: Vec<BuildItem> = ranges
            .iter()
            .enumerate()
            .map(|(g, &(first, count))| {
                let run = &by_group[first as usize..(first + count) as usize];
                let (lo, hi) = run
                    .iter()
                    .fold((Vec4::INFINITY, Vec4::NEG_INFINITY), |(lo, hi), it| {
                        (lo.min(it.lo), hi.max(it.hi))
                    });
                let mut item = BuildItem { lo, hi };
                item.lo.w = f32::from_bits(g as u32 ^ ID_MASK);
                item
            })
            .collect();
        let split = options.split.unwrap_or(B::DEFAULT_SPLIT);
        let leaf_size = options.leaf_size;
        bvh.nodes
            .reserve_exact((3 * n / leaf_size as usize + 2 * ranges.len()).clamp(1, 2 * n - 1));
        let placeholder = Node {
            bv: B::fit_points(&[]),
            first: 0,
            count: n as u32,
            left: 0,
        };
        bvh.nodes.push(placeholder);
        // the final primitive order, filled left to right as group subtrees are reached
        let mut placed: Vec<BuildItem> = Vec::with_capacity(n);
        let mut sah = SahScratch::new();
        // (node, first, count, centroid bounds, whether the range is of groups)
        let mut stack: Vec<(u32, u32, u32, CBounds, bool)> = Vec::with_capacity(64);
        stack.push((0, 0, gitems.len() as u32, centroid_bounds(&gitems), true));
        while let Some((index, first, count, cb, of_groups)) = stack.pop() {
            let (first, count, cb) = if of_groups {
                let part = &gitems[first as usize..(first + count) as usize];
                let prims_in: u32 = part.iter().map(|g| ranges[g.id() as usize].1).sum();
                if count > 1 && prims_in > leaf_size {
                    // split whole groups
                    let part = &mut gitems[first as usize..(first + count) as usize];
                    let (mid, cb_left, cb_right) = split_items(split, part, cb, &mut sah);
                    let node = &mut bvh.nodes[index as usize];
                    node.first = placed.len() as u32;
                    node.count = prims_in;
                    let left = bvh.add_children(index, placeholder);
                    stack.push((left + 1, first + mid, count - mid, cb_right, true));
                    stack.push((left, first, mid, cb_left, true));
                    continue;
                }
                // one group (or a few small ones): place its primitives, split them below
                let start = placed.len() as u32;
                for g in part {
                    let (f, c) = ranges[g.id() as usize];
                    placed.extend_from_slice(&by_group[f as usize..(f + c) as usize]);
                }
                let all = &placed[start as usize..];
                (start, prims_in, centroid_bounds(all))
            } else {
                (first, count, cb)
            };
            let node = &mut bvh.nodes[index as usize];
            node.first = first;
            node.count = count;
            if count <= leaf_size {
                continue;
            }
            let part = &mut placed[first as usize..(first + count) as usize];
            let (mid, cb_left, cb_right) = split_items(split, part, cb, &mut sah);
            let left = bvh.add_children(index, placeholder);
            stack.push((left + 1, first + mid, count - mid, cb_right, false));
            stack.push((left, first, mid, cb_left, false));
        }
        debug_assert_eq!(placed.len(), n);
        bvh.primitives = placed.iter().map(BuildItem::id).collect();
        drop(placed);
        bvh.fit_from_set(prims, &mut Vec::new(), false);
        Ok(bvh)
    }

    /// Builds the hierarchy bottom-up by greedy pairwise clustering (each pass pairs every
    /// cluster with the unpaired cluster minimising the surface area of their merged box),
    /// one primitive per leaf. O(n²) per pass and O(log n) passes: meant for small sets
    /// (≤ a few hundred), e.g. the links of a robot rebuilt every step (CATCH, Sec. 4).
    ///
    /// # Errors
    /// As [`Bvh::build`].
    ///
    /// # Example
    /// ```
    /// use ccd_bvh::Bvh;
    /// use ccd_bvh::geometry::Aabb;
    /// use ccd_bvh::glam::DVec3;
    /// let boxes: Vec<Aabb> = (0..10).map(|i| Aabb::new(DVec3::splat(f64::from(i)), DVec3::splat(f64::from(i) + 0.5))).collect();
    /// let bvh = Bvh::<Aabb>::build_bottom_up(boxes.as_slice())?;
    /// assert_eq!(bvh.node_count(), 19);
    /// # Ok::<(), ccd_bvh::BvhError>(())
    /// ```
    pub fn build_bottom_up<P: PrimitiveSet + ?Sized>(prims: &P) -> Result<Self, BvhError> {
        let mut bvh = Self::default();
        let mut scratch = BottomUpScratch::default();
        bvh.rebuild_bottom_up(prims, &mut scratch)?;
        Ok(bvh)
    }

    pub(crate) fn rebuild_bottom_up<P: PrimitiveSet + ?Sized>(
        &mut self,
        prims: &P,
        s: &mut BottomUpScratch,
    ) -> Result<(), BvhError> {
        primitive_boxes(prims, &mut s.boxes, &mut s.centroids)?;
        let n = s.boxes.len();
        self.nodes.clear();
        self.primitives.clear();
        if n == 0 {
            return Ok(());
        }
        // temporary tree: entries 0..n are leaves, then inner nodes
        s.tmp_children.clear();
        s.tmp_children.extend((0..n).map(|_| [u32::MAX; 2]));
        s.leaf_counts.clear();
        s.leaf_counts.resize(n, 1);
        s.active.clear();
        s.active
            .extend((0..n as u32).map(|i| (i, s.boxes[i as usize])));
        let mut passes = 0u32;
        while s.active.len() > 1 {
            passes += 1;
            debug_assert!(passes <= 64, "each pass at least halves the clusters");
            s.next.clear();
            s.used.clear();
            s.used.resize(s.active.len(), false);
            for i in 0..s.active.len() {
                if s.used[i] {
                    continue;
                }
                s.used[i] = true;
                let bi = s.active[i].1;
                let mut best: Option<(usize, f64)> = None;
                for j in i + 1..s.active.len() {
                    if s.used[j] {
                        continue;
                    }
                    let cost = bi.merge(s.active[j].1).surface_area();
                    if best.is_none_or(|(_, c)| cost < c) {
                        best = Some((j, cost));
                    }
                }
                match best {
                    Some((j, _)) => {
                        s.used[j] = true;
                        let id = s.tmp_children.len() as u32;
                        let (a, b) = (s.active[i].0, s.active[j].0);
                        s.tmp_children.push([a, b]);
                        s.leaf_counts
                            .push(s.leaf_counts[a as usize] + s.leaf_counts[b as usize]);
                        s.next.push((id, bi.merge(s.active[j].1)));
                    }
                    None => s.next.push(s.active[i]),
                }
            }
            std::mem::swap(&mut s.active, &mut s.next);
        }
        // lay out: parents before children, siblings adjacent, leaves in DFS order
        let root = s.active[0].0;
        self.nodes.reserve(2 * n - 1);
        self.primitives.reserve(n);
        let empty_bv = B::fit_points(&[]);
        self.nodes.push(Node {
            bv: empty_bv,
            first: 0,
            count: n as u32,
            left: 0,
        });
        s.stack.clear();
        s.stack.push((root, 0));
        while let Some((tmp, index)) = s.stack.pop() {
            let first = self.primitives.len() as u32;
            let node = &mut self.nodes[index as usize];
            node.first = first;
            node.count = s.leaf_counts[tmp as usize];
            let [a, b] = s.tmp_children[tmp as usize];
            if a == u32::MAX {
                self.primitives.push(tmp);
                continue;
            }
            let left = self.nodes.len() as u32;
            self.nodes[index as usize].left = left;
            self.nodes.push(Node {
                bv: empty_bv,
                first: 0,
                count: 0,
                left: 0,
            });
            self.nodes.push(Node {
                bv: empty_bv,
                first: 0,
                count: 0,
                left: 0,
            });
            s.stack.push((b, left + 1));
            s.stack.push((a, left));
        }
        self.fit_from_set(prims, &mut s.points, false);
        Ok(())
    }

    /// Refits every node after the primitives moved (same count, same order as at build
    /// time), keeping the tree topology: for deformable meshes pass the new vertex positions
    /// as a [`TriangleSoup`](crate::TriangleSoup). Volumes whose merge is exact (AABB, k-DOP)
    /// are updated bottom-up in O(n); OBB/RSS nodes keep their axes and are refitted from
    /// their primitives' points (O(n log n)).
    ///
    /// # Errors
    /// [`BvhError::CountMismatch`] when the count differs from the build;
    /// [`BvhError::NonFinitePrimitive`]; whatever [`PrimitiveSet::validate`] reports. On error the
    /// BVH is unchanged.
    ///
    /// # Example
    /// ```
    /// use ccd_bvh::{BoundingVolume, Bvh, BvhOptions, TriangleSoup};
    /// use ccd_bvh::geometry::Aabb;
    /// use ccd_bvh::glam::DVec3;
    /// let mut v = vec![DVec3::ZERO, DVec3::X, DVec3::Y];
    /// let t = [[0, 1, 2]];
    /// let mut bvh = Bvh::<Aabb>::build(&TriangleSoup::new(&v, &t), &BvhOptions::default())?;
    /// v[2] = DVec3::new(0.0, 5.0, 0.0);
    /// bvh.refit(&TriangleSoup::new(&v, &t))?;
    /// assert_eq!(bvh.root().unwrap().bv().max.y, 5.0);
    /// # Ok::<(), ccd_bvh::BvhError>(())
    /// ```
    pub fn refit<P: PrimitiveSet + ?Sized>(&mut self, prims: &P) -> Result<(), BvhError> {
        if prims.len() != self.primitives.len() {
            return Err(BvhError::CountMismatch {
                expected: self.primitives.len(),
                actual: prims.len(),
            });
        }
        prims.validate()?;
        for i in 0..prims.len() {
            let b = prims.aabb(i);
            if !(b.min.is_finite() && b.max.is_finite()) {
                return Err(BvhError::NonFinitePrimitive { index: i });
            }
        }
        self.fit_from_set(prims, &mut Vec::new(), true);
        Ok(())
    }

    /// Appends two children (placeholders) to node `index` and returns the first's index.
    fn add_children(&mut self, index: u32, placeholder: Node<B>) -> u32 {
        let left = self.nodes.len() as u32;
        self.nodes[index as usize].left = left;
        self.nodes.push(placeholder);
        self.nodes.push(placeholder);
        left
    }

    /// Refits from volumes the caller computed for the leaves: `leaf(node, primitives)` gives
    /// the volume of leaf `node` holding `primitives`, and every inner node becomes the merge
    /// of its children (children before parents). This skips gathering points when the
    /// caller already has the leaves' bounds (e.g. of two time steps, merged).
    ///
    /// The caller is responsible for each leaf volume holding its primitives; the inner
    /// nodes then hold theirs (exactly the smallest such volume for AABB and k-DOP, whose
    /// merges are exact).
    ///
    /// # Example
    /// ```
    /// use ccd_bvh::{BoundingVolume, Bvh, BvhOptions, TriangleSoup};
    /// use ccd_bvh::geometry::Aabb;
    /// use ccd_bvh::glam::DVec3;
    /// let v = vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z];
    /// let t = [[0, 1, 2], [1, 2, 3]];
    /// let opts = BvhOptions::default().with_leaf_size(1);
    /// let mut bvh = Bvh::<Aabb>::build(&TriangleSoup::new(&v, &t), &opts)?;
    /// // every leaf grown by 1 on each side
    /// let grow = |p: &[u32]| {
    ///     let b = p.iter().flat_map(|&i| t[i as usize]).fold(Aabb::EMPTY, |b, k| {
    ///         b.include_point(v[k as usize])
    ///     });
    ///     Aabb::new(b.min - DVec3::ONE, b.max + DVec3::ONE)
    /// };
    /// bvh.refit_from_leaves(|_, prims| grow(prims));
    /// assert_eq!(bvh.root().unwrap().bv().min, DVec3::splat(-1.0));
    /// # Ok::<(), ccd_bvh::BvhError>(())
    /// ```
    pub fn refit_from_leaves<F: FnMut(u32, &[u32]) -> B>(&mut self, mut leaf: F) {
        for index in (0..self.nodes.len()).rev() {
            let node = self.nodes[index];
            let bv = match node.children() {
                Some([l, r]) => self.nodes[l as usize].bv.merge(&self.nodes[r as usize].bv),
                None => leaf(index as u32, &self.primitives[node.primitive_range()]),
            };
            self.nodes[index].bv = bv;
        }
    }

    /// Fits every node to the primitives of `prims`. For sets over shared vertices (meshes)
    /// each vertex is gathered once per node (a mesh vertex is in ~6 triangles), which makes
    /// OBB/RSS fitting several times cheaper.
    fn fit_from_set<P: PrimitiveSet + ?Sized>(
        &mut self,
        prims: &P,
        points: &mut Vec<DVec3>,
        keep_axes: bool,
    ) {
        match prims.shared_vertices() {
            Some(verts) if !B::MERGE_IS_EXACT => {
                let mut stamp = vec![u32::MAX; verts.len()];
                self.fit_nodes(
                    |node, p, out| {
                        for v in prims.vertex_indices(p as usize) {
                            let slot = &mut stamp[v as usize];
                            if *slot != node {
                                *slot = node;
                                out.push(verts[v as usize]);
                            }
                        }
                    },
                    points,
                    keep_axes,
                );
            }
            // exact merges: only leaves gather, a few triangles each (no dedup needed)
            Some(verts) => self.fit_nodes(
                |_, p, out| {
                    for v in prims.vertex_indices(p as usize) {
                        out.push(verts[v as usize]);
                    }
                },
                points,
                keep_axes,
            ),
            None => self.fit_nodes(
                |_, p, out| prims.push_points(p as usize, out),
                points,
                keep_axes,
            ),
        }
    }

    /// Fits every node, children before parents: bottom-up merge when exact, else from the
    /// points of its range (keeping the current axes when `keep_axes` is set).
    fn fit_nodes<G: FnMut(u32, u32, &mut Vec<DVec3>)>(
        &mut self,
        mut gather: G,
        points: &mut Vec<DVec3>,
        keep_axes: bool,
    ) {
        for index in (0..self.nodes.len()).rev() {
            let node = self.nodes[index];
            let bv = match node.children() {
                Some([l, r]) if B::MERGE_IS_EXACT => {
                    self.nodes[l as usize].bv.merge(&self.nodes[r as usize].bv)
                }
                _ => {
                    points.clear();
                    for &p in &self.primitives[node.primitive_range()] {
                        gather(index as u32, p, points);
                    }
                    if keep_axes {
                        node.bv.refit_points(points)
                    } else {
                        B::fit_points(points)
                    }
                }
            };
            self.nodes[index].bv = bv;
        }
    }
}

/// Reusable buffers of the bottom-up build.
#[derive(Clone, Debug, Default)]
pub(crate) struct BottomUpScratch {
    boxes: Vec<Aabb>,
    centroids: Vec<DVec3>,
    tmp_children: Vec<[u32; 2]>,
    leaf_counts: Vec<u32>,
    active: Vec<(u32, Aabb)>,
    next: Vec<(u32, Aabb)>,
    used: Vec<bool>,
    stack: Vec<(u32, u32)>,
    points: Vec<DVec3>,
}

impl<B> Bvh<B> {
    /// All nodes (root at index 0; empty for an empty BVH).
    #[inline]
    #[must_use]
    pub fn nodes(&self) -> &[Node<B>] {
        &self.nodes
    }

    /// Node `i`.
    ///
    /// # Panics
    /// When `i >= node_count()` (an index bug in the caller).
    #[inline]
    #[must_use]
    pub fn node(&self, i: u32) -> &Node<B> {
        &self.nodes[i as usize]
    }

    /// The root, `None` for an empty BVH.
    #[inline]
    #[must_use]
    pub fn root(&self) -> Option<&Node<B>> {
        self.nodes.first()
    }

    /// Number of nodes.
    #[inline]
    #[must_use]
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// Number of primitives.
    #[inline]
    #[must_use]
    pub fn primitive_count(&self) -> usize {
        self.primitives.len()
    }

    /// The primitive ids in BVH order: node `i` covers
    /// `primitives()[node(i).primitive_range()]`.
    #[inline]
    #[must_use]
    pub fn primitives(&self) -> &[u32] {
        &self.primitives
    }

    /// The primitive ids below node `i` (for a leaf: its primitives).
    ///
    /// # Panics
    /// When `i >= node_count()`.
    #[inline]
    #[must_use]
    pub fn node_primitives(&self, i: u32) -> &[u32] {
        &self.primitives[self.nodes[i as usize].primitive_range()]
    }

    /// Depth of the tree (1 for a single leaf, 0 when empty).
    #[must_use]
    pub fn depth(&self) -> usize {
        let mut depth = vec![0usize; self.nodes.len()];
        let mut best = 0;
        for i in 0..self.nodes.len() {
            let d = if i == 0 { 1 } else { depth[i] };
            best = best.max(d);
            if let Some([l, r]) = self.nodes[i].children() {
                depth[l as usize] = d + 1;
                depth[r as usize] = d + 1;
            }
        }
        best
    }
}

/// Checks the primitives (as [`primitive_boxes`] does) and collects their build records.
fn build_items<P: PrimitiveSet + ?Sized>(prims: &P) -> Result<Vec<BuildItem>, BvhError> {
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
struct BuildItem {
    lo: Vec4,
    hi: Vec4,
}

/// XORed into the id bits stored in a float lane: ids below 2^23 then read as floats in
/// `[1, 2)` instead of subnormals, which some CPUs process slowly when the lane takes part
/// in (ignored) arithmetic.
const ID_MASK: u32 = 0x3F80_0000;

/// Coordinates are clamped to this magnitude before the f32 conversion, so that centroid
/// sums and extents stay finite for any finite input (the splits only need an ordering).
const F32_CLAMP: f64 = 1e37;

impl BuildItem {
    #[inline]
    fn new(b: &Aabb, id: u32) -> Self {
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
    fn id(&self) -> u32 {
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
struct SahScratch {
    bins: [Bin; MAX_BINS],
    count: [u32; MAX_BINS],
    /// Half surface area and item count of bins `k..` (the right side of the split after
    /// bin `k - 1`).
    right_area: [f32; MAX_BINS],
    right_count: [u32; MAX_BINS],
}

impl SahScratch {
    fn new() -> Self {
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
type CBounds = (Vec4, Vec4);

/// The [`CBounds`] of `items`.
fn centroid_bounds(items: &[BuildItem]) -> CBounds {
    items
        .iter()
        .fold((Vec4::INFINITY, Vec4::NEG_INFINITY), |(lo, hi), it| {
            let c = it.centroid2();
            (lo.min(c), hi.max(c))
        })
}

/// Partitions `items` in place by `rule`: the size of the left part and the centroid bounds
/// of both parts.
fn split_items(
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Kdop18, Obb, Rss, TriangleSoup};

    fn grid(n: u32) -> (Vec<DVec3>, Vec<[u32; 3]>) {
        let mut v = Vec::new();
        for j in 0..=n {
            for i in 0..=n {
                v.push(DVec3::new(
                    f64::from(i),
                    f64::from(j),
                    (f64::from(i) * 0.3).sin(),
                ));
            }
        }
        let mut t = Vec::new();
        for j in 0..n {
            for i in 0..n {
                let a = j * (n + 1) + i;
                t.push([a, a + 1, a + n + 2]);
                t.push([a, a + n + 2, a + n + 1]);
            }
        }
        (v, t)
    }

    fn check_structure<B: BoundingVolume>(bvh: &Bvh<B>, soup: &TriangleSoup<'_>, leaf_size: u32) {
        let mut seen = vec![false; soup.triangles.len()];
        for &p in bvh.primitives() {
            assert!(!seen[p as usize]);
            seen[p as usize] = true;
        }
        assert!(seen.iter().all(|s| *s));
        for (i, node) in bvh.nodes().iter().enumerate() {
            for &p in bvh.node_primitives(i as u32) {
                for k in soup.triangles[p as usize] {
                    assert!(
                        node.bv().contains_point(soup.vertices[k as usize], 1e-9),
                        "{} {:?} {:?}",
                        std::any::type_name::<B>(),
                        node.bv(),
                        soup.vertices[k as usize]
                    );
                }
            }
            match node.children() {
                Some([l, r]) => {
                    assert!(l as usize > i);
                    let (a, b) = (bvh.node(l), bvh.node(r));
                    assert_eq!(a.primitive_range().start, node.primitive_range().start);
                    assert_eq!(a.primitive_range().end, b.primitive_range().start);
                    assert_eq!(b.primitive_range().end, node.primitive_range().end);
                    assert!(a.primitive_count() > 0 && b.primitive_count() > 0);
                }
                None => assert!(node.primitive_count() <= leaf_size),
            }
        }
    }

    #[test]
    fn builds_are_well_formed_for_every_rule_and_volume() {
        let (v, t) = grid(12);
        let soup = TriangleSoup::new(&v, &t);
        for split in [SplitRule::Median, SplitRule::BinnedSah { bins: 8 }] {
            for leaf_size in [1, 3, 8] {
                let o = BvhOptions::default()
                    .with_leaf_size(leaf_size)
                    .with_split(split);
                check_structure(&Bvh::<Aabb>::build(&soup, &o).unwrap(), &soup, leaf_size);
                check_structure(&Bvh::<Obb>::build(&soup, &o).unwrap(), &soup, leaf_size);
                check_structure(&Bvh::<Rss>::build(&soup, &o).unwrap(), &soup, leaf_size);
            }
        }
        let b = Bvh::<Aabb>::build_bottom_up(&soup).unwrap();
        check_structure(&b, &soup, 1);
        let b = Bvh::<Rss>::build_bottom_up(&soup).unwrap();
        check_structure(&b, &soup, 1);
    }

    #[test]
    fn identical_centroids_still_split() {
        let v = vec![DVec3::ZERO, DVec3::X, DVec3::Y];
        let t = vec![[0, 1, 2]; 20];
        let soup = TriangleSoup::new(&v, &t);
        let bvh = Bvh::<Aabb>::build(&soup, &BvhOptions::default().with_leaf_size(2)).unwrap();
        check_structure(&bvh, &soup, 2);
        assert!(bvh.depth() <= 6);
    }

    #[test]
    fn refit_follows_moved_vertices() {
        let (mut v, t) = grid(6);
        let mut bvh_a =
            Bvh::<Aabb>::build(&TriangleSoup::new(&v, &t), &BvhOptions::default()).unwrap();
        let mut bvh_r =
            Bvh::<Rss>::build(&TriangleSoup::new(&v, &t), &BvhOptions::default()).unwrap();
        for (i, p) in v.iter_mut().enumerate() {
            *p += DVec3::new(0.0, 0.0, (i as f64 * 0.77).cos() * 2.0);
        }
        let soup = TriangleSoup::new(&v, &t);
        bvh_a.refit(&soup).unwrap();
        bvh_r.refit(&soup).unwrap();
        check_structure(&bvh_a, &soup, 4);
        check_structure(&bvh_r, &soup, 4);
        let short = TriangleSoup::new(&v, &t[1..]);
        assert!(matches!(
            bvh_a.refit(&short),
            Err(BvhError::CountMismatch { .. })
        ));
    }

    /// Every node holds either primitives of one group only, or whole groups.
    fn check_groups<B>(bvh: &Bvh<B>, groups: &[u32], leaf_size: u32) {
        let mut size = std::collections::HashMap::new();
        for &g in groups {
            *size.entry(g).or_insert(0u32) += 1;
        }
        for i in 0..bvh.node_count() as u32 {
            let mut here = std::collections::HashMap::new();
            for &p in bvh.node_primitives(i) {
                *here.entry(groups[p as usize]).or_insert(0u32) += 1;
            }
            if here.len() > 1 {
                for (g, c) in &here {
                    assert_eq!(*c, size[g], "node {i} splits group {g}");
                }
            }
            if bvh.node(i).is_leaf() {
                assert!(bvh.node(i).primitive_count() <= leaf_size);
            }
        }
    }

    #[test]
    fn grouped_builds_never_split_a_group() {
        let (v, t) = grid(20);
        let soup = TriangleSoup::new(&v, &t);
        // interleaved groups (stripes, checkerboard, one big + singletons, all one)
        let rules: [&dyn Fn(usize) -> u32; 4] = [
            &|i| (i % 7) as u32,
            &|i| ((i / 40 + i % 40 / 2) % 2) as u32,
            &|i| if i % 97 == 0 { i as u32 } else { 5 },
            &|_| 9,
        ];
        for rule in rules {
            let groups: Vec<u32> = (0..t.len()).map(rule).collect();
            for split in [SplitRule::Median, SplitRule::BinnedSah { bins: 8 }] {
                for leaf_size in [1, 4, 8] {
                    let o = BvhOptions::default()
                        .with_leaf_size(leaf_size)
                        .with_split(split);
                    let b = Bvh::<Kdop18>::build_grouped(&soup, &groups, &o).unwrap();
                    check_structure(&b, &soup, leaf_size);
                    check_groups(&b, &groups, leaf_size);
                    let b = Bvh::<Obb>::build_grouped(&soup, &groups, &o).unwrap();
                    check_structure(&b, &soup, leaf_size);
                }
            }
        }
        assert!(matches!(
            Bvh::<Aabb>::build_grouped(&soup, &[0; 3], &BvhOptions::default()),
            Err(BvhError::CountMismatch { .. })
        ));
        let empty = TriangleSoup::new(&v, &[]);
        assert_eq!(
            Bvh::<Aabb>::build_grouped(&empty, &[], &BvhOptions::default())
                .unwrap()
                .node_count(),
            0
        );
    }

    #[test]
    fn refit_from_leaves_matches_refit_for_exact_merges() {
        let (mut v, t) = grid(7);
        let mut bvh =
            Bvh::<Kdop18>::build(&TriangleSoup::new(&v, &t), &BvhOptions::default()).unwrap();
        for (i, p) in v.iter_mut().enumerate() {
            *p += DVec3::new((i as f64 * 1.3).sin(), 0.0, (i as f64 * 0.77).cos() * 2.0);
        }
        let soup = TriangleSoup::new(&v, &t);
        let mut by_leaves = bvh.clone();
        bvh.refit(&soup).unwrap();
        let mut leaves = 0;
        by_leaves.refit_from_leaves(|_, prims| {
            leaves += 1;
            let pts: Vec<DVec3> = prims
                .iter()
                .flat_map(|&p| t[p as usize].map(|k| v[k as usize]))
                .collect();
            Kdop18::fit_points(&pts)
        });
        assert!(leaves > 1);
        for (a, b) in bvh.nodes().iter().zip(by_leaves.nodes()) {
            assert_eq!(a.bv(), b.bv());
        }
        check_structure(&by_leaves, &soup, 4);
    }

    #[test]
    fn bad_input_is_an_error() {
        let v = vec![DVec3::ZERO, DVec3::X, DVec3::new(f64::NAN, 0.0, 0.0)];
        let t = vec![[0, 1, 2]];
        let e = Bvh::<Aabb>::build(&TriangleSoup::new(&v, &t), &BvhOptions::default()).unwrap_err();
        assert!(matches!(e, BvhError::NonFinitePrimitive { index: 0 }));
        let t = vec![[0, 1, 7]];
        let e = Bvh::<Aabb>::build(&TriangleSoup::new(&v, &t), &BvhOptions::default()).unwrap_err();
        assert!(e.to_string().contains("triangle 0"));
        let e = Bvh::<Aabb>::build(
            &TriangleSoup::new(&v, &[]),
            &BvhOptions::default().with_leaf_size(0),
        );
        assert!(matches!(e, Err(BvhError::InvalidOption(_))));
        let empty =
            Bvh::<Aabb>::build(&TriangleSoup::new(&v, &[]), &BvhOptions::default()).unwrap();
        assert!(empty.root().is_none());
        assert_eq!(empty.depth(), 0);
    }

    #[test]
    fn build_item_ids_round_trip_through_the_float_lane() {
        let b = Aabb::new(DVec3::ZERO, DVec3::ONE);
        for id in [
            0,
            1,
            (1 << 23) - 1,
            1 << 23,
            0x3F80_0000,
            0x7F80_0001,
            u32::MAX - 1,
        ] {
            let it = BuildItem::new(&b, id);
            // copies and partition swaps keep the bits
            let copy = [it, it][1];
            assert_eq!(copy.id(), id);
        }
    }

    #[test]
    fn huge_and_tiny_coordinates_still_build() {
        // beyond the f32 range (clamped for the split records) and far below it
        let mut v = Vec::new();
        let mut t = Vec::new();
        for i in 0..60u32 {
            let s = match i % 3 {
                0 => 1e300,
                1 => 1e-300,
                _ => 1.0,
            };
            let x = f64::from(i) * s;
            let k = v.len() as u32;
            v.extend([
                DVec3::new(x, 0.0, 0.0),
                DVec3::new(x + s, 0.0, 0.0),
                DVec3::new(x, s, -s),
            ]);
            t.push([k, k + 1, k + 2]);
        }
        let soup = TriangleSoup::new(&v, &t);
        for split in [SplitRule::Median, SplitRule::BinnedSah { bins: 16 }] {
            let o = BvhOptions::default().with_leaf_size(2).with_split(split);
            check_structure(&Bvh::<Aabb>::build(&soup, &o).unwrap(), &soup, 2);
        }
    }

    #[test]
    fn collinear_points_give_balanced_trees() {
        // every SAH cost is zero (flat boxes): ties must not degrade into a chain
        let pts: Vec<DVec3> = (0..1000)
            .map(|i| DVec3::new(f64::from(i), 0.0, 0.0))
            .collect();
        let bvh = Bvh::<Aabb>::build(pts.as_slice(), &BvhOptions::default()).unwrap();
        // a perfectly balanced tree with leaves of 4 has depth 9
        assert!(bvh.depth() <= 11, "depth {}", bvh.depth());
    }
}
