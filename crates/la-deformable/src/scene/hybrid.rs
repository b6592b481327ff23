//! The two-layer hybrid BVH of one deforming mesh (LA Sec. VI, Fig. 5).
//!
//! The tree is a [`ccd_bvh::Bvh<Kdop18>`] built over the triangles' swept volumes (each
//! triangle's six vertex positions at `t = 0` and `t = 1`), so every node holds the 18-DOP of
//! the motion extent of its triangles. Beside it every node keeps the pair of 18-DOPs of its
//! triangles at `t = 0` and at `t = 1`. Nodes at height ≤ `layer_height` above the leaves (the
//! paper's first layer, built bottom-up) are tested with the local-advancement ToC of the
//! moving k-DOP pair ([`crate::kernels::moving_kdop_toc`], Sec. IV-B), which also prunes
//! against the current best ToC; higher nodes (the second layer, where the pair of k-DOPs of a
//! large subtree nearly always overlaps) are tested with the cheaper overlap of the swept
//! k-DOPs.

use ccd_bvh::{BoundingVolume, Bvh, BvhOptions, Kdop18, PrimitiveSet};
use ccd_geometry::Aabb;
use ccd_geometry::glam::DVec3;

use crate::{DeformingMesh, LaError};

/// The triangles of a deforming mesh as swept primitives for the BVH builder: the box of a
/// triangle is its swept box, its points are its vertices at both times.
struct SweptTriangles<'a>(&'a DeformingMesh);

impl PrimitiveSet for SweptTriangles<'_> {
    fn len(&self) -> usize {
        self.0.triangle_count()
    }

    fn aabb(&self, i: usize) -> Aabb {
        let m = self.0;
        let t = m.triangles()[i];
        let mut b = Aabb::EMPTY;
        for v in t {
            b = b
                .include_point(m.x0()[v as usize])
                .include_point(m.x1()[v as usize]);
        }
        b
    }

    fn push_points(&self, i: usize, out: &mut Vec<DVec3>) {
        let m = self.0;
        for v in m.triangles()[i] {
            out.push(m.x0()[v as usize]);
            out.push(m.x1()[v as usize]);
        }
    }
}

/// What the traversal needs of one triangle, stored in leaf order.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TriData {
    /// Boxes at `t = 0` and `t = 1`.
    pub(crate) bx: [Aabb; 2],
    /// Vertex positions at `t = 0`.
    pub(crate) p0: [DVec3; 3],
    /// Vertex positions at `t = 1`.
    pub(crate) p1: [DVec3; 3],
    /// Vertex indices.
    pub(crate) verts: [u32; 3],
    /// Ownership bits ([`DeformingMesh::owned_features`]).
    pub(crate) owned: u8,
    /// Triangle index in the mesh.
    pub(crate) id: u32,
}

/// Hybrid BVH of one mesh: topology and swept 18-DOPs from [`Bvh`], the `t = 0` / `t = 1`
/// 18-DOP pair of every node, each node's height, and per-triangle boxes at both times.
#[derive(Debug, Clone)]
pub(crate) struct HybridBvh {
    pub(crate) bvh: Bvh<Kdop18>,
    /// 18-DOPs of each node's triangles at `t = 0` and `t = 1`.
    pub(crate) pair: Vec<[Kdop18; 2]>,
    /// Height above the leaves (leaves: 0).
    pub(crate) height: Vec<u32>,
    /// Each triangle's boxes, vertices and features, in the BVH's primitive order (leaf
    /// ranges are contiguous, for locality).
    pub(crate) tri: Vec<TriData>,
    /// Each triangle's swept box (the union of its two boxes), in primitive order.
    pub(crate) tri_swept: Vec<Aabb>,
}

impl HybridBvh {
    /// Builds the hierarchy of `mesh` (binned SAH over swept boxes, `leaf_size` triangles per
    /// leaf).
    pub(crate) fn build(mesh: &DeformingMesh, leaf_size: u32) -> Result<Self, LaError> {
        let opts = BvhOptions {
            leaf_size,
            split: None,
        };
        let bvh = Bvh::<Kdop18>::build(&SweptTriangles(mesh), &opts)
            .map_err(|e| LaError::InvalidOption(format!("BVH build failed: {e}")))?;
        let mut out = Self {
            height: vec![0; bvh.node_count()],
            pair: vec![[Kdop18::EMPTY; 2]; bvh.node_count()],
            tri: Vec::new(),
            tri_swept: Vec::new(),
            bvh,
        };
        for i in (0..out.bvh.node_count()).rev() {
            if let Some([l, r]) = out.bvh.node(i as u32).children() {
                out.height[i] = 1 + out.height[l as usize].max(out.height[r as usize]);
            }
        }
        out.fit_pairs(mesh);
        Ok(out)
    }

    /// Refits every volume to the mesh's current positions (same topology).
    pub(crate) fn refit(&mut self, mesh: &DeformingMesh) -> Result<(), LaError> {
        self.bvh
            .refit(&SweptTriangles(mesh))
            .map_err(|e| LaError::InvalidOption(format!("BVH refit failed: {e}")))?;
        self.fit_pairs(mesh);
        Ok(())
    }

    /// Per-triangle boxes, then the node k-DOP pairs bottom-up (leaves from their triangles,
    /// inner nodes by exact merges of their children).
    fn fit_pairs(&mut self, mesh: &DeformingMesh) {
        let (x0, x1) = (mesh.x0(), mesh.x1());
        let tris = mesh.triangles();
        self.tri.clear();
        self.tri.extend(self.bvh.primitives().iter().map(|&t| {
            let verts = tris[t as usize];
            let p0 = verts.map(|v| x0[v as usize]);
            let p1 = verts.map(|v| x1[v as usize]);
            let bx = |p: &[DVec3; 3]| Aabb::new(p[0].min(p[1]).min(p[2]), p[0].max(p[1]).max(p[2]));
            TriData {
                bx: [bx(&p0), bx(&p1)],
                p0,
                p1,
                verts,
                owned: mesh.owned_features(t as usize),
                id: t,
            }
        }));
        self.tri_swept.clear();
        self.tri_swept
            .extend(self.tri.iter().map(|d| d.bx[0].merge(d.bx[1])));
        for i in (0..self.bvh.node_count()).rev() {
            let node = self.bvh.node(i as u32);
            self.pair[i] = match node.children() {
                Some([l, r]) => {
                    let (l, r) = (self.pair[l as usize], self.pair[r as usize]);
                    [l[0].merge(&r[0]), l[1].merge(&r[1])]
                }
                None => {
                    let mut k = [Kdop18::EMPTY; 2];
                    for &t in self.bvh.node_primitives(i as u32) {
                        for v in mesh.triangles()[t as usize] {
                            k[0] = k[0].include_point(x0[v as usize]);
                            k[1] = k[1].include_point(x1[v as usize]);
                        }
                    }
                    k
                }
            };
        }
    }
}
