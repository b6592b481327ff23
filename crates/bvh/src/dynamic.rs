//! [`DynamicBvh`]: a BVH over a few moving boxes, rebuilt bottom-up every step.

use ccd_geometry::Aabb;

use crate::bvh::BottomUpScratch;
use crate::{Bvh, BvhError, TraversalStats, Workspace};

/// A BVH over a small set of moving boxes (≤ ~100: the links of an articulated body, CATCH
/// Sec. 4), rebuilt from scratch each step by greedy bottom-up clustering
/// ([`Bvh::build_bottom_up`]), one box per leaf, reusing its buffers. Leaf volumes are the
/// boxes themselves, so overlap queries are exact.
///
/// # Example
/// ```
/// use ccd_bvh::{DynamicBvh, Workspace};
/// use ccd_bvh::geometry::Aabb;
/// use ccd_bvh::glam::DVec3;
///
/// let mut links = DynamicBvh::new();
/// let mut ws = Workspace::new();
/// let mut pairs = Vec::new();
/// for step in 0..3 {
///     let x = f64::from(step);
///     let boxes = [Aabb::new(DVec3::ZERO, DVec3::ONE), Aabb::new(DVec3::new(3.0 - x, 0.0, 0.0), DVec3::new(4.0 - x, 1.0, 1.0))];
///     links.rebuild(&boxes)?;
///     pairs.clear();
///     links.self_pairs_into(&mut ws, &mut pairs);
/// }
/// assert_eq!(pairs, [[0, 1]]);
/// # Ok::<(), ccd_bvh::BvhError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct DynamicBvh {
    bvh: Bvh<Aabb>,
    scratch: BottomUpScratch,
}

impl DynamicBvh {
    /// An empty dynamic BVH.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Rebuilds the hierarchy over `boxes` (box id = index), reusing all buffers.
    ///
    /// # Errors
    /// [`BvhError::NonFinitePrimitive`] or [`BvhError::EmptyBox`] naming the first bad box.
    pub fn rebuild(&mut self, boxes: &[Aabb]) -> Result<(), BvhError> {
        self.bvh.rebuild_bottom_up(boxes, &mut self.scratch)
    }

    /// The current hierarchy (leaf primitive ids are box indices).
    #[inline]
    #[must_use]
    pub fn bvh(&self) -> &Bvh<Aabb> {
        &self.bvh
    }

    /// Appends to `out` the ids of the boxes overlapping `aabb`.
    pub fn query_aabb_into(
        &self,
        aabb: &Aabb,
        ws: &mut Workspace,
        out: &mut Vec<u32>,
    ) -> TraversalStats {
        self.bvh.query_aabb_into(aabb, ws, out)
    }

    /// Appends to `out` every overlapping pair `[a, b]` of boxes (each unordered pair once).
    pub fn self_pairs_into(&self, ws: &mut Workspace, out: &mut Vec<[u32; 2]>) -> TraversalStats {
        self.bvh.self_overlapping_pairs_into(ws, out)
    }

    /// Appends to `out` the pairs `[box id here, primitive id in other]` whose leaf volumes
    /// overlap; `other` is in the same frame (e.g. an environment `Bvh<Aabb>` in world space).
    pub fn pairs_with_into(
        &self,
        other: &Bvh<Aabb>,
        ws: &mut Workspace,
        out: &mut Vec<[u32; 2]>,
    ) -> TraversalStats {
        self.bvh
            .overlapping_pairs_into(other, &glam::DAffine3::IDENTITY, ws, out)
    }
}
