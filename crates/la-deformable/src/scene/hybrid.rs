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
use ccd_geometry::glam::{DVec3, Vec4};

use super::cone::{Patches, root, union};
use crate::{DeformingMesh, LaError, OWN_EDGE, OWN_VERTEX};

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

/// Half-width by which the feature boxes of `mesh` are inflated: `ε/2 + 64·u·M` with `M` the
/// mesh's largest coordinate magnitude (`u = 2⁻⁵³`). Two features of meshes `a` and `b` whose
/// exact swept boxes are within `ε + 62·u·(M_a + M_b)` on every axis then have overlapping
/// [`Box32`]s (see [`Box32::inflated`]); that covers the rounding of every distance the
/// kernels compute, so no contact the kernels would report is culled.
fn inflation(mesh: &DeformingMesh, tolerance: f64) -> f64 {
    0.5 * tolerance + 64.0 * (0.5 * f64::EPSILON) * mesh.max_abs_coordinate()
}

/// The connected piece of every triangle (triangles joined through shared vertices), as
/// the root vertex of its piece, and the number of pieces.
pub(crate) fn pieces(mesh: &DeformingMesh) -> (Vec<u32>, usize) {
    let mut parent: Vec<u32> = (0..mesh.vertex_count() as u32).collect();
    for t in mesh.triangles() {
        for k in 1..3 {
            union(&mut parent, t[0], t[k]);
        }
    }
    let ids: Vec<u32> = mesh
        .triangles()
        .iter()
        .map(|t| root(&mut parent, t[0]))
        .collect();
    let mut roots = ids.clone();
    roots.sort_unstable();
    roots.dedup();
    (ids, roots.len())
}

/// An axis-aligned box in `f32`, rounded outward and inflated by half the scene's contact
/// margin, so that two boxes whose `f64` originals are within the margin always overlap here
/// (see [`Box32::inflated`]). The fourth lane is zero in both corners (for 4-wide compares).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Box32 {
    lo: Vec4,
    hi: Vec4,
}

/// The largest `f32` not above `x` (`x` finite or infinite, never NaN here).
#[inline]
pub(super) fn f32_down(x: f64) -> f32 {
    let y = x as f32;
    if f64::from(y) > x { y.next_down() } else { y }
}

/// The smallest `f32` not below `x`.
#[inline]
pub(super) fn f32_up(x: f64) -> f32 {
    let y = x as f32;
    if f64::from(y) < x { y.next_up() } else { y }
}

impl Box32 {
    /// The box `[lo − h, hi + h]` rounded outward to `f32`.
    ///
    /// Each computed corner `fl(lo − h)` is within `u·(M + h)` of `lo − h` (`M` the
    /// coordinate magnitude, `u = 2⁻⁵³`) and the outward `f32` rounding only widens it. So
    /// for boxes inflated by `h_a` and `h_b` whose exact gap on an axis is `g`, the `f32` gap
    /// is at most `g − h_a − h_b + u·(M_a + h_a + M_b + h_b)`, which is negative (overlap)
    /// whenever `g ≤ ε + 62u(M_a + M_b)` and `h = ε/2 + 64uM` ([`inflation`]); overlap is
    /// tested with exact comparisons.
    #[inline]
    pub(crate) fn inflated(lo: DVec3, hi: DVec3, h: f64) -> Self {
        Self {
            lo: Vec4::new(
                f32_down(lo.x - h),
                f32_down(lo.y - h),
                f32_down(lo.z - h),
                0.0,
            ),
            hi: Vec4::new(f32_up(hi.x + h), f32_up(hi.y + h), f32_up(hi.z + h), 0.0),
        }
    }

    /// An empty box (overlaps nothing; the identity of [`Box32::merge`]).
    pub(crate) const EMPTY: Self = Self {
        lo: Vec4::new(f32::INFINITY, f32::INFINITY, f32::INFINITY, 0.0),
        hi: Vec4::new(f32::NEG_INFINITY, f32::NEG_INFINITY, f32::NEG_INFINITY, 0.0),
    };

    /// The smallest box containing both (the fourth lanes stay zero).
    #[inline]
    pub(crate) fn merge(&self, o: &Self) -> Self {
        Self {
            lo: self.lo.min(o.lo),
            hi: self.hi.max(o.hi),
        }
    }

    /// Whether the boxes overlap (closed intervals on every axis; four-lane compares).
    #[inline(always)]
    pub(crate) fn overlaps(&self, o: &Self) -> bool {
        (self.lo.cmple(o.hi) & o.lo.cmple(self.hi)).all()
    }
}

/// A vertex a triangle owns, with its positions at `t = 0` and `t = 1`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct VertItem {
    pub(crate) p0: DVec3,
    pub(crate) p1: DVec3,
    pub(crate) id: u32,
}

/// An edge a triangle owns: endpoints low vertex index first, positions at both times.
#[derive(Debug, Clone, Copy)]
pub(crate) struct EdgeItem {
    pub(crate) p0: [DVec3; 2],
    pub(crate) p1: [DVec3; 2],
    pub(crate) ends: [u32; 2],
}

/// A face, with its vertices' positions at both times.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FaceItem {
    pub(crate) p0: [DVec3; 3],
    pub(crate) p1: [DVec3; 3],
    /// Triangle index in the mesh.
    pub(crate) id: u32,
}

/// Hybrid BVH of one mesh: topology and swept 18-DOPs from [`Bvh`], the `t = 0` / `t = 1`
/// 18-DOP pair of every node, each node's height, and the features of the leaves.
///
/// The features are stored in the BVH's primitive (leaf) order: faces one per triangle slot,
/// owned vertices and owned edges grouped by the slot of their owning triangle
/// ([`DeformingMesh::owned_features`]), so a leaf's faces, vertices and edges are three
/// contiguous ranges and every vertex and edge of the mesh appears in exactly one leaf.
/// Every feature has a swept [`Box32`] (inflated by half the contact margin), every node the
/// union of its faces' boxes.
#[derive(Debug, Clone)]
pub(crate) struct HybridBvh {
    pub(crate) bvh: Bvh<Kdop18>,
    /// 18-DOPs of each node's triangles at `t = 0` and `t = 1`.
    pub(crate) pair: Vec<[Kdop18; 2]>,
    /// Height above the leaves (leaves: 0).
    pub(crate) height: Vec<u32>,
    /// Swept box of every node.
    pub(crate) node_box: Vec<Box32>,
    /// Faces in primitive order, and their swept boxes.
    pub(crate) faces: Vec<FaceItem>,
    pub(crate) face_box: Vec<Box32>,
    /// Each face's vertex indices (a compact copy for the adjacency test).
    pub(crate) face_verts: Vec<[u32; 3]>,
    /// Owned vertices grouped by triangle slot, their swept boxes and vertex indices.
    pub(crate) verts: Vec<VertItem>,
    pub(crate) vert_box: Vec<Box32>,
    pub(crate) vert_ids: Vec<u32>,
    /// Owned edges grouped by triangle slot, their swept boxes and endpoint indices.
    pub(crate) edges: Vec<EdgeItem>,
    pub(crate) edge_box: Vec<Box32>,
    pub(crate) edge_ends: Vec<[u32; 2]>,
    /// `vert_first[s]..vert_first[s + 1]`: the owned vertices of triangle slot `s`.
    vert_first: Vec<u32>,
    /// `edge_first[s]..edge_first[s + 1]`: the owned edges of triangle slot `s`.
    edge_first: Vec<u32>,
    /// Disk-shaped subtrees and their normal cones (self-collision culling).
    pub(crate) patches: Patches,
    /// Vertex positions at `t = 0` when the hierarchy was built ([`HybridBvh::drift`]).
    anchor: Vec<DVec3>,
    /// Number of connected pieces of the mesh (triangles sharing vertices).
    pub(crate) pieces: usize,
    /// Whether [`Self::patches`] were built (the scene culls self-collision by normal
    /// cones); without them the patches stay empty and are never consulted.
    cones: bool,
}

impl HybridBvh {
    /// Builds the hierarchy of `mesh` (binned SAH over swept boxes, `leaf_size` triangles per
    /// leaf); feature boxes are inflated for the contact `tolerance` ([`inflation`]).
    pub(crate) fn build(
        mesh: &DeformingMesh,
        leaf_size: u32,
        tolerance: f64,
        cones: bool,
    ) -> Result<Self, LaError> {
        let opts = BvhOptions::default().with_leaf_size(leaf_size);
        // each connected piece gets its own subtree: a refit keeps it tight however the
        // pieces move apart, and its patches stay topological disks
        let (piece, pieces) = pieces(mesh);
        let bvh = if pieces > 1 {
            Bvh::<Kdop18>::build_grouped(&SweptTriangles(mesh), &piece, &opts)
        } else {
            Bvh::<Kdop18>::build(&SweptTriangles(mesh), &opts)
        }
        .map_err(|e| LaError::InvalidOption(format!("BVH build failed: {e}")))?;
        let n = bvh.node_count();
        let mut out = Self {
            height: vec![0; n],
            pair: vec![[Kdop18::EMPTY; 2]; n],
            node_box: vec![Box32::EMPTY; n],
            faces: Vec::new(),
            face_box: Vec::new(),
            face_verts: Vec::new(),
            verts: Vec::new(),
            vert_box: Vec::new(),
            vert_ids: Vec::new(),
            edges: Vec::new(),
            edge_box: Vec::new(),
            edge_ends: Vec::new(),
            vert_first: Vec::new(),
            edge_first: Vec::new(),
            patches: if cones {
                Patches::build(mesh, &bvh, &piece)
            } else {
                Patches::default()
            },
            cones,
            anchor: mesh.x0().to_vec(),
            pieces,
            bvh,
        };
        for i in (0..n).rev() {
            if let Some([l, r]) = out.bvh.node(i as u32).children() {
                out.height[i] = 1 + out.height[l as usize].max(out.height[r as usize]);
            }
        }
        out.fit(mesh, tolerance);
        Ok(out)
    }

    /// Refits every volume to the mesh's current positions (same topology; the mesh has
    /// validated them). The swept k-DOPs are merged from the leaves' k-DOP pairs.
    pub(crate) fn refit(&mut self, mesh: &DeformingMesh, tolerance: f64) {
        self.fit(mesh, tolerance);
    }

    /// How far the mesh has moved since this hierarchy was built: the mean distance of its
    /// vertices (at `t = 0`) from where they were at the build, over the diagonal of their
    /// bounding box then. Refitting keeps the tree's grouping from the build; once separate
    /// pieces have moved far (fragments flying apart, bodies of a particle system) the groups
    /// no longer match the geometry nor its disk-shaped patches, and the traversal slows.
    pub(crate) fn drift(&self, mesh: &DeformingMesh) -> f64 {
        let x0 = mesh.x0();
        if x0.len() != self.anchor.len() || x0.is_empty() {
            return f64::INFINITY;
        }
        let (mut lo, mut hi) = (DVec3::INFINITY, DVec3::NEG_INFINITY);
        let mut sum = 0.0;
        for (p, a) in x0.iter().zip(&self.anchor) {
            lo = lo.min(*a);
            hi = hi.max(*a);
            sum += (*p - *a).length();
        }
        let diag = (hi - lo).length();
        let d = sum / x0.len() as f64 / diag;
        if d.is_nan() { f64::INFINITY } else { d }
    }

    /// The faces (`.0`), owned vertices (`.1`) and owned edges (`.2`) of a leaf's triangle
    /// slots `range`, as index ranges into [`Self::faces`], [`Self::verts`], [`Self::edges`].
    #[inline]
    pub(crate) fn leaf_features(
        &self,
        range: std::ops::Range<usize>,
    ) -> (
        std::ops::Range<usize>,
        std::ops::Range<usize>,
        std::ops::Range<usize>,
    ) {
        let v = self.vert_first[range.start] as usize..self.vert_first[range.end] as usize;
        let e = self.edge_first[range.start] as usize..self.edge_first[range.end] as usize;
        (range, v, e)
    }

    /// Feature items and boxes, then the node boxes and k-DOP pairs bottom-up (leaves from
    /// their triangles, inner nodes by exact merges of their children).
    fn fit(&mut self, mesh: &DeformingMesh, tolerance: f64) {
        let (x0, x1) = (mesh.x0(), mesh.x1());
        let h = inflation(mesh, tolerance);
        let tris = mesh.triangles();
        let swept = |ps: &[DVec3]| {
            let (mut lo, mut hi) = (ps[0], ps[0]);
            for p in &ps[1..] {
                lo = lo.min(*p);
                hi = hi.max(*p);
            }
            Box32::inflated(lo, hi, h)
        };
        self.faces.clear();
        self.face_box.clear();
        self.face_verts.clear();
        self.verts.clear();
        self.vert_box.clear();
        self.vert_ids.clear();
        self.edges.clear();
        self.edge_box.clear();
        self.edge_ends.clear();
        self.vert_first.clear();
        self.edge_first.clear();
        // sized once (a fresh hierarchy would otherwise grow them by repeated copies)
        let n = tris.len();
        self.faces.reserve(n);
        self.face_box.reserve(n);
        self.face_verts.reserve(n);
        self.vert_first.reserve(n + 1);
        self.edge_first.reserve(n + 1);
        let nv = mesh.vertex_count();
        self.verts.reserve(nv);
        self.vert_box.reserve(nv);
        self.vert_ids.reserve(nv);
        let ne = 3 * n / 2 + 1;
        self.edges.reserve(ne);
        self.edge_box.reserve(ne);
        self.edge_ends.reserve(ne);
        for &t in self.bvh.primitives() {
            let verts = tris[t as usize];
            let p0 = verts.map(|v| x0[v as usize]);
            let p1 = verts.map(|v| x1[v as usize]);
            self.face_box
                .push(swept(&[p0[0], p0[1], p0[2], p1[0], p1[1], p1[2]]));
            self.face_verts.push(verts);
            self.faces.push(FaceItem { p0, p1, id: t });
            let owned = mesh.owned_features(t as usize);
            self.vert_first.push(self.verts.len() as u32);
            self.edge_first.push(self.edges.len() as u32);
            for k in 0..3 {
                if owned & OWN_VERTEX[k] != 0 {
                    self.vert_box.push(swept(&[p0[k], p1[k]]));
                    self.vert_ids.push(verts[k]);
                    self.verts.push(VertItem {
                        p0: p0[k],
                        p1: p1[k],
                        id: verts[k],
                    });
                }
            }
            for k in 0..3 {
                if owned & OWN_EDGE[k] != 0 {
                    let (i, j) = if verts[k] <= verts[(k + 1) % 3] {
                        (k, (k + 1) % 3)
                    } else {
                        ((k + 1) % 3, k)
                    };
                    self.edge_box.push(swept(&[p0[i], p0[j], p1[i], p1[j]]));
                    self.edge_ends.push([verts[i], verts[j]]);
                    self.edges.push(EdgeItem {
                        p0: [p0[i], p0[j]],
                        p1: [p1[i], p1[j]],
                        ends: [verts[i], verts[j]],
                    });
                }
            }
        }
        self.vert_first.push(self.verts.len() as u32);
        self.edge_first.push(self.edges.len() as u32);
        if self.cones {
            self.patches.fit_cones(mesh, &self.bvh);
        }
        for i in (0..self.bvh.node_count()).rev() {
            let node = self.bvh.node(i as u32);
            match node.children() {
                Some([l, r]) => {
                    let (pl, pr) = (self.pair[l as usize], self.pair[r as usize]);
                    self.pair[i] = [pl[0].merge(&pr[0]), pl[1].merge(&pr[1])];
                    self.node_box[i] = self.node_box[l as usize].merge(&self.node_box[r as usize]);
                }
                None => {
                    let mut k = [Kdop18::EMPTY; 2];
                    let mut b = Box32::EMPTY;
                    for s in node.primitive_range() {
                        let f = &self.faces[s];
                        for c in 0..3 {
                            k[0] = k[0].include_point(f.p0[c]);
                            k[1] = k[1].include_point(f.p1[c]);
                        }
                        b = b.merge(&self.face_box[s]);
                    }
                    self.pair[i] = k;
                    self.node_box[i] = b;
                }
            }
        }
        // the swept k-DOP of a leaf holds its triangles' vertices at both times: the merge of
        // its pair (exactly what fitting those points gives)
        let pair = &self.pair;
        self.bvh
            .refit_from_leaves(|i, _| pair[i as usize][0].merge(&pair[i as usize][1]));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ccd_test_support::XorShift64;

    #[test]
    fn inflated_boxes_within_tolerance_overlap() {
        // boxes whose exact gap is at most ε on every axis must overlap after inflation,
        // at every scale (f32 rounding is far coarser than ε at large coordinates)
        let mut s = XorShift64::new(0x9E37_79B9_7F4A_7C15);
        for scale in [1e-3, 1.0, 10.0, 1e4, 1e8] {
            let eps = 1e-6;
            let h = 0.5 * eps + 64.0 * (0.5 * f64::EPSILON) * (2.0 * scale);
            for _ in 0..20_000 {
                let lo_a = DVec3::new(s.unit(), s.unit(), s.unit()) * scale;
                let hi_a = lo_a + DVec3::splat(s.unit() * scale * 0.1);
                // b starts a gap in [0, ε] beyond a on x, overlaps on y and z
                let gap = s.unit() * eps;
                let lo_b = DVec3::new(hi_a.x + gap, lo_a.y, lo_a.z);
                let hi_b = lo_b + DVec3::splat(scale * 0.01);
                let (a, b) = (
                    Box32::inflated(lo_a, hi_a, h),
                    Box32::inflated(lo_b, hi_b, h),
                );
                assert!(
                    a.overlaps(&b) && b.overlaps(&a),
                    "{lo_a} {hi_a} {lo_b} {gap}"
                );
            }
        }
    }

    #[test]
    fn far_boxes_do_not_overlap_and_merge_is_a_union() {
        let a = Box32::inflated(DVec3::ZERO, DVec3::ONE, 1e-7);
        let b = Box32::inflated(DVec3::splat(1.1), DVec3::splat(2.0), 1e-7);
        assert!(!a.overlaps(&b));
        let c = Box32::inflated(DVec3::splat(1.05), DVec3::splat(3.0), 1e-7);
        assert!(!a.overlaps(&c) && b.overlaps(&c));
        let u = a.merge(&b);
        assert!(u.overlaps(&c) && u.overlaps(&a) && u.overlaps(&b));
        assert!(!Box32::EMPTY.overlaps(&a) && Box32::EMPTY.merge(&a) == a);
        // infinite coordinates saturate instead of failing
        let huge = Box32::inflated(DVec3::splat(-1e300), DVec3::splat(1e300), 0.0);
        assert!(huge.overlaps(&a));
    }
}
