//! Fitting the node volumes of a [`Bvh`] to its primitives: after a build, after the
//! primitives moved ([`Bvh::refit`]), or from leaf volumes the caller computed
//! ([`Bvh::refit_from_leaves`]).

use glam::DVec3;

use super::Bvh;
use crate::{BoundingVolume, BvhError, PrimitiveSet};

impl<B: BoundingVolume> Bvh<B> {
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
    pub(super) fn fit_from_set<P: PrimitiveSet + ?Sized>(
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
