//! The bottom-up build of a [`Bvh`] by greedy pairwise clustering, for small sets rebuilt
//! every step (CATCH, Sec. 4), with its reusable buffers.

use ccd_geometry::Aabb;
use glam::DVec3;

use super::{Bvh, Node};
use crate::{BoundingVolume, BvhError, PrimitiveSet};

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
