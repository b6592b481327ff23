//! Top-down builds of a [`Bvh`]: [`Bvh::build`] splits the primitives recursively by the
//! chosen [`SplitRule`](crate::SplitRule); [`Bvh::build_grouped`] first splits whole groups,
//! then builds each group's subtree the same way.

use glam::Vec4;

use super::split::{
    BuildItem, CBounds, ID_MASK, SahScratch, build_items, centroid_bounds, split_items,
};
use super::{Bvh, BvhOptions, Node};
use crate::{BoundingVolume, BvhError, PrimitiveSet};

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

    /// Appends two children (placeholders) to node `index` and returns the first's index.
    fn add_children(&mut self, index: u32, placeholder: Node<B>) -> u32 {
        let left = self.nodes.len() as u32;
        self.nodes[index as usize].left = left;
        self.nodes.push(placeholder);
        self.nodes.push(placeholder);
        left
    }
}
