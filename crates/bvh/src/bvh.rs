//! The flat bounding-volume hierarchy [`Bvh`]: its nodes, build options and queries.
//!
//! The submodules hold the rest: `build` (top-down builds, also keeping groups whole),
//! `split` (the build records and the binned-SAH and median split rules), `bottom_up`
//! (greedy pairwise clustering for small sets) and `refit` (fitting node volumes to moved
//! primitives).

mod bottom_up;
mod build;
mod refit;
mod split;
#[cfg(test)]
mod tests;

use std::ops::Range;

use crate::SplitRule;

pub(crate) use bottom_up::BottomUpScratch;

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
    /// [`DEFAULT_SPLIT`](crate::BoundingVolume::DEFAULT_SPLIT).
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

/// A bounding-volume hierarchy over the primitives of a
/// [`PrimitiveSet`](crate::PrimitiveSet), stored flat: nodes in one `Vec` (root at index 0,
/// parents before children, siblings adjacent) and the primitive ids in one `Vec` ordered so
/// that every node covers a contiguous range.
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
