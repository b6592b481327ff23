//! Traversals of [`Bvh`]s: one BVH against a query volume, two BVHs under a relative pose
//! (depth-first or best-first), and a BVH against itself. All take a reusable [`Workspace`],
//! so steady-state queries allocate nothing.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::ops::ControlFlow;

use ccd_geometry::Aabb;
use glam::DAffine3;

use crate::{BoundingVolume, Bvh};

/// Reusable scratch space (stacks and a priority queue) of the traversals. Create one per
/// thread and pass it to every query; its buffers grow to the largest query and stay.
///
/// # Example
/// ```
/// use ccd_bvh::Workspace;
/// let mut ws = Workspace::new();
/// # let _ = &mut ws;
/// ```
#[derive(Clone, Debug, Default)]
pub struct Workspace {
    pairs: Vec<(u32, u32)>,
    nodes: Vec<u32>,
    heap: BinaryHeap<HeapEntry>,
}

impl Workspace {
    /// An empty workspace.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }
}

/// Counters of one traversal (the papers' tables report them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct TraversalStats {
    /// Node (or node pair) volume tests made.
    pub bv_tests: u64,
    /// Primitive (or primitive pair) callbacks made.
    pub primitive_tests: u64,
    /// True when a callback stopped the traversal early.
    pub stopped: bool,
}

/// A node pair with its lower bound, ordered so that `BinaryHeap` pops the smallest bound.
#[derive(Clone, Copy, Debug)]
struct HeapEntry {
    bound: f64,
    a: u32,
    b: u32,
}

impl PartialEq for HeapEntry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for HeapEntry {}
impl PartialOrd for HeapEntry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for HeapEntry {
    fn cmp(&self, other: &Self) -> Ordering {
        other.bound.total_cmp(&self.bound)
    }
}

impl<B: BoundingVolume> Bvh<B> {
    /// Depth-first traversal against a query: `descend(bv)` decides whether to enter a node
    /// (for a leaf: whether to report its primitives), `leaf(primitive_id)` is called for each
    /// primitive of every accepted leaf and may stop the traversal.
    ///
    /// # Example
    /// ```
    /// use std::ops::ControlFlow;
    /// use ccd_bvh::{BoundingVolume, Bvh, BvhOptions, Workspace};
    /// use ccd_bvh::geometry::Aabb;
    /// use ccd_bvh::glam::DVec3;
    /// let pts: Vec<DVec3> = (0..50).map(|i| DVec3::splat(f64::from(i))).collect();
    /// let bvh = Bvh::<Aabb>::build(pts.as_slice(), &BvhOptions::default().with_leaf_size(1))?;
    /// let mut hits = 0;
    /// let mut ws = Workspace::new();
    /// bvh.traverse(&mut ws, |bv| bv.max.x >= 47.5, |_| { hits += 1; ControlFlow::Continue(()) });
    /// assert_eq!(hits, 2);
    /// # Ok::<(), ccd_bvh::BvhError>(())
    /// ```
    pub fn traverse<F, L>(&self, ws: &mut Workspace, mut descend: F, mut leaf: L) -> TraversalStats
    where
        F: FnMut(&B) -> bool,
        L: FnMut(u32) -> ControlFlow<()>,
    {
        let mut stats = TraversalStats::default();
        if self.nodes.is_empty() {
            return stats;
        }
        ws.nodes.clear();
        ws.nodes.push(0);
        while let Some(i) = ws.nodes.pop() {
            let node = &self.nodes[i as usize];
            stats.bv_tests += 1;
            if !descend(&node.bv) {
                continue;
            }
            match node.children() {
                Some([l, r]) => {
                    ws.nodes.push(r);
                    ws.nodes.push(l);
                }
                None => {
                    for &p in &self.primitives[node.primitive_range()] {
                        stats.primitive_tests += 1;
                        if leaf(p).is_break() {
                            stats.stopped = true;
                            ws.nodes.clear();
                            return stats;
                        }
                    }
                }
            }
        }
        stats
    }

    /// Appends to `out` the primitives whose leaf volume overlaps `aabb` (same frame;
    /// candidates: a primitive of an overlapping leaf may itself miss the box when leaves
    /// hold several primitives).
    ///
    /// # Example
    /// ```
    /// use ccd_bvh::{Bvh, BvhOptions, Workspace};
    /// use ccd_bvh::geometry::Aabb;
    /// use ccd_bvh::glam::DVec3;
    /// let pts: Vec<DVec3> = (0..50).map(|i| DVec3::splat(f64::from(i))).collect();
    /// let bvh = Bvh::<Aabb>::build(pts.as_slice(), &BvhOptions::default().with_leaf_size(1))?;
    /// let mut out = Vec::new();
    /// bvh.query_aabb_into(&Aabb::new(DVec3::splat(9.5), DVec3::splat(11.5)), &mut Workspace::new(), &mut out);
    /// out.sort();
    /// assert_eq!(out, [10, 11]);
    /// # Ok::<(), ccd_bvh::BvhError>(())
    /// ```
    pub fn query_aabb_into(
        &self,
        aabb: &Aabb,
        ws: &mut Workspace,
        out: &mut Vec<u32>,
    ) -> TraversalStats {
        let q = B::fit_points(&aabb.corners());
        self.traverse(
            ws,
            |bv| bv.overlaps(&q, &DAffine3::IDENTITY),
            |p| {
                out.push(p);
                ControlFlow::Continue(())
            },
        )
    }

    /// Depth-first traversal of two BVHs: `descend(bv_self, bv_other)` decides whether a node
    /// pair is explored (for two leaves: whether their primitive pairs are reported); `leaf(a,
    /// b)` gets every primitive pair of accepted leaf pairs (`a` from `self`, `b` from
    /// `other`) and may stop the traversal. The larger node (by
    /// [`BoundingVolume::size`]) is split first. The relative pose is the caller's: capture
    /// `pos12` in `descend`, as [`Bvh::overlapping_pairs_into`] does.
    ///
    /// # Example
    /// ```
    /// use std::ops::ControlFlow;
    /// use ccd_bvh::{BoundingVolume, Bvh, BvhOptions, Obb, Workspace};
    /// use ccd_bvh::glam::{DAffine3, DVec3};
    /// let pts: Vec<DVec3> = (0..20).map(|i| DVec3::new(f64::from(i), 0.0, 0.0)).collect();
    /// let bvh = Bvh::<Obb>::build(pts.as_slice(), &BvhOptions::default().with_leaf_size(1))?;
    /// let pos12 = DAffine3::from_translation(DVec3::new(19.0, 0.0, 0.0));
    /// let mut pairs = Vec::new();
    /// bvh.traverse_pair(&bvh, &mut Workspace::new(), |a, b| a.overlaps(b, &pos12), |a, b| {
    ///     pairs.push((a, b));
    ///     ControlFlow::Continue(())
    /// });
    /// assert_eq!(pairs, [(19, 0)]);
    /// # Ok::<(), ccd_bvh::BvhError>(())
    /// ```
    pub fn traverse_pair<F, L>(
        &self,
        other: &Bvh<B>,
        ws: &mut Workspace,
        mut descend: F,
        leaf: L,
    ) -> TraversalStats
    where
        F: FnMut(&B, &B) -> bool,
        L: FnMut(u32, u32) -> ControlFlow<()>,
    {
        self.traverse_pair_nodes(
            other,
            ws,
            |a, b| descend(&self.nodes[a as usize].bv, &other.nodes[b as usize].bv),
            leaf,
        )
    }

    /// [`Bvh::traverse_pair`] with node indices instead of volumes in `descend(node_self,
    /// node_other)` (for callers keeping per-node data, e.g. motion bounds or caches; read the
    /// volumes with [`Bvh::node`]).
    ///
    /// # Example
    /// ```
    /// use std::ops::ControlFlow;
    /// use ccd_bvh::{Bvh, BvhOptions, Workspace};
    /// use ccd_bvh::geometry::Aabb;
    /// use ccd_bvh::glam::DVec3;
    /// let pts: Vec<DVec3> = (0..8).map(|i| DVec3::splat(f64::from(i))).collect();
    /// let bvh = Bvh::<Aabb>::build(pts.as_slice(), &BvhOptions::default().with_leaf_size(1))?;
    /// let mut visited = Vec::new();
    /// let stats = bvh.traverse_pair_nodes(&bvh, &mut Workspace::new(), |a, b| {
    ///     visited.push((a, b));
    ///     true
    /// }, |_, _| ControlFlow::Continue(()));
    /// assert_eq!(visited[0], (0, 0)); // the roots first
    /// assert_eq!(visited.len() as u64, stats.bv_tests);
    /// assert_eq!(stats.primitive_tests, 64);
    /// # Ok::<(), ccd_bvh::BvhError>(())
    /// ```
    pub fn traverse_pair_nodes<F, L>(
        &self,
        other: &Bvh<B>,
        ws: &mut Workspace,
        mut descend: F,
        mut leaf: L,
    ) -> TraversalStats
    where
        F: FnMut(u32, u32) -> bool,
        L: FnMut(u32, u32) -> ControlFlow<()>,
    {
        let mut stats = TraversalStats::default();
        if self.nodes.is_empty() || other.nodes.is_empty() {
            return stats;
        }
        ws.pairs.clear();
        ws.pairs.push((0, 0));
        while let Some((a, b)) = ws.pairs.pop() {
            stats.bv_tests += 1;
            if !descend(a, b) {
                continue;
            }
            if expand_pair(self, other, a, b, &mut ws.pairs, &mut leaf, &mut stats).is_break() {
                ws.pairs.clear();
                return stats;
            }
        }
        stats
    }

    /// Appends to `out` the candidate primitive pairs `[id in self, id in other]` whose leaf
    /// volumes overlap, with `other` placed by `pos12` (its frame in `self`'s frame).
    ///
    /// # Example
    /// ```
    /// use ccd_bvh::{Bvh, BvhOptions, Rss, Workspace};
    /// use ccd_bvh::glam::{DAffine3, DVec3};
    /// let pts: Vec<DVec3> = (0..20).map(|i| DVec3::new(f64::from(i), 0.0, 0.0)).collect();
    /// let bvh = Bvh::<Rss>::build(pts.as_slice(), &BvhOptions::default().with_leaf_size(1))?;
    /// let mut out = Vec::new();
    /// let pos12 = DAffine3::from_translation(DVec3::new(-18.0, 0.0, 0.0));
    /// bvh.overlapping_pairs_into(&bvh, &pos12, &mut Workspace::new(), &mut out);
    /// out.sort();
    /// assert_eq!(out, [[0, 18], [1, 19]]);
    /// # Ok::<(), ccd_bvh::BvhError>(())
    /// ```
    pub fn overlapping_pairs_into(
        &self,
        other: &Bvh<B>,
        pos12: &DAffine3,
        ws: &mut Workspace,
        out: &mut Vec<[u32; 2]>,
    ) -> TraversalStats {
        self.traverse_pair(
            other,
            ws,
            |a, b| a.overlaps(b, pos12),
            |a, b| {
                out.push([a, b]);
                ControlFlow::Continue(())
            },
        )
    }

    /// Best-first traversal of two BVHs for distance-like queries (PQP): node pairs are
    /// visited in increasing order of `lower_bound(bv_self, bv_other)`; pairs whose bound is
    /// `>= threshold` are pruned. The threshold starts at `initial_threshold` (e.g.
    /// `f64::INFINITY`, or an upper bound known from a previous query) and is replaced by the
    /// value `leaf(a, b)` returns for each primitive pair (typically the best distance so
    /// far, or that minus a tolerance; return `f64::NEG_INFINITY` to stop).
    ///
    /// Returns the final threshold and the counters.
    ///
    /// # Example
    /// ```
    /// use ccd_bvh::{BoundingVolume, Bvh, BvhOptions, Sphere, Workspace};
    /// use ccd_bvh::glam::{DAffine3, DVec3};
    /// let pts: Vec<DVec3> = (0..30).map(|i| DVec3::new(f64::from(i), 0.0, 0.0)).collect();
    /// let bvh = Bvh::<Sphere>::build(pts.as_slice(), &BvhOptions::default().with_leaf_size(2))?;
    /// let pos12 = DAffine3::from_translation(DVec3::new(0.0, 3.0, 0.0));
    /// let mut best = f64::INFINITY;
    /// let (threshold, _stats) = bvh.traverse_pair_best_first(
    ///     &bvh, &mut Workspace::new(), f64::INFINITY,
    ///     |a, b| a.distance_lower_bound(b, &pos12),
    ///     // return the best distance so far (not this pair's), so the threshold never grows
    ///     |a, b| {
    ///         best = best.min(pts[a as usize].distance(pos12.transform_point3(pts[b as usize])));
    ///         best
    ///     },
    /// );
    /// assert_eq!((threshold, best), (3.0, 3.0));
    /// # Ok::<(), ccd_bvh::BvhError>(())
    /// ```
    pub fn traverse_pair_best_first<F, L>(
        &self,
        other: &Bvh<B>,
        ws: &mut Workspace,
        initial_threshold: f64,
        mut lower_bound: F,
        leaf: L,
    ) -> (f64, TraversalStats)
    where
        F: FnMut(&B, &B) -> f64,
        L: FnMut(u32, u32) -> f64,
    {
        self.traverse_pair_best_first_nodes(
            other,
            ws,
            initial_threshold,
            |a, b| lower_bound(&self.nodes[a as usize].bv, &other.nodes[b as usize].bv),
            leaf,
        )
    }

    /// [`Bvh::traverse_pair_best_first`] with node indices instead of volumes in
    /// `lower_bound(node_self, node_other)`.
    ///
    /// # Example
    /// ```
    /// use ccd_bvh::{BoundingVolume, Bvh, BvhOptions, Rss, Workspace};
    /// use ccd_bvh::glam::{DAffine3, DVec3};
    /// let pts: Vec<DVec3> = (0..16).map(|i| DVec3::new(f64::from(i), 0.0, 0.0)).collect();
    /// let bvh = Bvh::<Rss>::build(pts.as_slice(), &BvhOptions::default())?;
    /// let pos12 = DAffine3::from_translation(DVec3::new(0.0, 0.0, 2.0));
    /// let (best, _) = bvh.traverse_pair_best_first_nodes(&bvh, &mut Workspace::new(), f64::INFINITY,
    ///     |a, b| bvh.node(a).bv().distance_lower_bound(bvh.node(b).bv(), &pos12),
    ///     |a, b| pts[a as usize].distance(pos12.transform_point3(pts[b as usize])));
    /// assert_eq!(best, 2.0);
    /// # Ok::<(), ccd_bvh::BvhError>(())
    /// ```
    pub fn traverse_pair_best_first_nodes<F, L>(
        &self,
        other: &Bvh<B>,
        ws: &mut Workspace,
        initial_threshold: f64,
        mut lower_bound: F,
        mut leaf: L,
    ) -> (f64, TraversalStats)
    where
        F: FnMut(u32, u32) -> f64,
        L: FnMut(u32, u32) -> f64,
    {
        let mut stats = TraversalStats::default();
        let mut threshold = initial_threshold;
        if self.nodes.is_empty() || other.nodes.is_empty() {
            return (threshold, stats);
        }
        ws.heap.clear();
        stats.bv_tests += 1;
        let root = lower_bound(0, 0);
        if root < threshold {
            ws.heap.push(HeapEntry {
                bound: root,
                a: 0,
                b: 0,
            });
        }
        while let Some(HeapEntry { bound, a, b }) = ws.heap.pop() {
            if bound >= threshold {
                break;
            }
            let na = &self.nodes[a as usize];
            let nb = &other.nodes[b as usize];
            let children = match (na.children(), nb.children()) {
                (None, None) => {
                    for &pa in &self.primitives[na.primitive_range()] {
                        for &pb in &other.primitives[nb.primitive_range()] {
                            stats.primitive_tests += 1;
                            threshold = leaf(pa, pb);
                            if threshold == f64::NEG_INFINITY {
                                stats.stopped = true;
                                ws.heap.clear();
                                return (threshold, stats);
                            }
                        }
                    }
                    continue;
                }
                (Some([l, r]), None) => [(l, b), (r, b)],
                (None, Some([l, r])) => [(a, l), (a, r)],
                (Some([la, ra]), Some([lb, rb])) => {
                    if na.bv.size() >= nb.bv.size() {
                        [(la, b), (ra, b)]
                    } else {
                        [(a, lb), (a, rb)]
                    }
                }
            };
            for (ca, cb) in children {
                stats.bv_tests += 1;
                let lb = lower_bound(ca, cb);
                if lb < threshold {
                    ws.heap.push(HeapEntry {
                        bound: lb,
                        a: ca,
                        b: cb,
                    });
                }
            }
        }
        ws.heap.clear();
        (threshold, stats)
    }

    /// Self traversal: every unordered pair of distinct primitives whose leaves pass
    /// `descend` is reported once to `leaf(a, b)` (identical primitives are never paired).
    /// `descend(bv1, bv2)` is asked for pairs of distinct nodes; a node is always paired with
    /// itself (its children against each other). Callers cull adjacent features in `leaf`.
    ///
    /// # Example
    /// ```
    /// use std::ops::ControlFlow;
    /// use ccd_bvh::{BoundingVolume, Bvh, BvhOptions, Workspace};
    /// use ccd_bvh::geometry::Aabb;
    /// use ccd_bvh::glam::{DAffine3, DVec3};
    /// let pts: Vec<DVec3> = (0..10).map(|i| DVec3::new(f64::from(i), 0.0, 0.0)).collect();
    /// let bvh = Bvh::<Aabb>::build(pts.as_slice(), &BvhOptions::default().with_leaf_size(3))?;
    /// let mut n = 0;
    /// bvh.traverse_self(&mut Workspace::new(), |_, _| true, |_, _| { n += 1; ControlFlow::Continue(()) });
    /// assert_eq!(n, 45);
    /// # Ok::<(), ccd_bvh::BvhError>(())
    /// ```
    pub fn traverse_self<F, L>(
        &self,
        ws: &mut Workspace,
        mut descend: F,
        mut leaf: L,
    ) -> TraversalStats
    where
        F: FnMut(&B, &B) -> bool,
        L: FnMut(u32, u32) -> ControlFlow<()>,
    {
        let mut stats = TraversalStats::default();
        if self.nodes.is_empty() {
            return stats;
        }
        ws.pairs.clear();
        ws.pairs.push((0, 0));
        while let Some((a, b)) = ws.pairs.pop() {
            let na = &self.nodes[a as usize];
            if a == b {
                match na.children() {
                    Some([l, r]) => {
                        ws.pairs.push((l, r));
                        ws.pairs.push((r, r));
                        ws.pairs.push((l, l));
                    }
                    None => {
                        let prims = &self.primitives[na.primitive_range()];
                        for i in 0..prims.len() {
                            for j in i + 1..prims.len() {
                                if report(prims[i], prims[j], &mut leaf, &mut stats).is_break() {
                                    ws.pairs.clear();
                                    return stats;
                                }
                            }
                        }
                    }
                }
                continue;
            }
            let nb = &self.nodes[b as usize];
            stats.bv_tests += 1;
            if !descend(&na.bv, &nb.bv) {
                continue;
            }
            if expand_pair(self, self, a, b, &mut ws.pairs, &mut leaf, &mut stats).is_break() {
                ws.pairs.clear();
                return stats;
            }
        }
        stats
    }

    /// Appends to `out` the candidate pairs `[a, b]` (`a != b`) of primitives whose leaf
    /// volumes overlap, each unordered pair once.
    ///
    /// # Example
    /// ```
    /// use ccd_bvh::{Bvh, BvhOptions, Workspace};
    /// use ccd_bvh::geometry::Aabb;
    /// use ccd_bvh::glam::DVec3;
    /// let boxes = [
    ///     Aabb::new(DVec3::ZERO, DVec3::ONE),
    ///     Aabb::new(DVec3::splat(0.5), DVec3::splat(2.0)),
    ///     Aabb::new(DVec3::splat(5.0), DVec3::splat(6.0)),
    /// ];
    /// let bvh = Bvh::<Aabb>::build(boxes.as_slice(), &BvhOptions::default().with_leaf_size(1))?;
    /// let mut out = Vec::new();
    /// bvh.self_overlapping_pairs_into(&mut Workspace::new(), &mut out);
    /// assert_eq!(out.len(), 1);
    /// # Ok::<(), ccd_bvh::BvhError>(())
    /// ```
    pub fn self_overlapping_pairs_into(
        &self,
        ws: &mut Workspace,
        out: &mut Vec<[u32; 2]>,
    ) -> TraversalStats {
        self.traverse_self(
            ws,
            |a, b| a.overlaps(b, &DAffine3::IDENTITY),
            |a, b| {
                out.push([a, b]);
                ControlFlow::Continue(())
            },
        )
    }
}

/// Reports one primitive pair to `leaf`, counting it; a break marks the traversal stopped.
#[inline]
fn report<L>(a: u32, b: u32, leaf: &mut L, stats: &mut TraversalStats) -> ControlFlow<()>
where
    L: FnMut(u32, u32) -> ControlFlow<()>,
{
    stats.primitive_tests += 1;
    let flow = leaf(a, b);
    stats.stopped |= flow.is_break();
    flow
}

/// The step shared by the pair and self traversals, for a node pair `(a, b)` (`a` in `first`,
/// `b` in `second`, distinct nodes when both are the same tree) that passed `descend`: two
/// leaves report their primitive pairs; otherwise the inner node, or the larger of two inner
/// nodes, is split and its two children are pushed (left on top).
#[inline]
fn expand_pair<B, L>(
    first: &Bvh<B>,
    second: &Bvh<B>,
    a: u32,
    b: u32,
    pairs: &mut Vec<(u32, u32)>,
    leaf: &mut L,
    stats: &mut TraversalStats,
) -> ControlFlow<()>
where
    B: BoundingVolume,
    L: FnMut(u32, u32) -> ControlFlow<()>,
{
    let na = &first.nodes[a as usize];
    let nb = &second.nodes[b as usize];
    match (na.children(), nb.children()) {
        (None, None) => {
            for &pa in &first.primitives[na.primitive_range()] {
                for &pb in &second.primitives[nb.primitive_range()] {
                    report(pa, pb, leaf, stats)?;
                }
            }
        }
        (Some([l, r]), None) => pairs.extend([(r, b), (l, b)]),
        (None, Some([l, r])) => pairs.extend([(a, r), (a, l)]),
        (Some([la, ra]), Some([lb, rb])) => {
            if na.bv.size() >= nb.bv.size() {
                pairs.extend([(ra, b), (la, b)]);
            } else {
                pairs.extend([(a, rb), (a, lb)]);
            }
        }
    }
    ControlFlow::Continue(())
}
