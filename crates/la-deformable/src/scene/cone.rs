//! Self-collision culling of whole BVH subtrees by continuous normal cones and contour tests.
//!
//! **The criterion** (Volino & Magnenat-Thalmann's theorem, applied at every time of the
//! step): a triangle patch that is a topological disk cannot intersect itself at time `t`
//! if there is a direction `V` with `n(t)·V > 0` for every triangle normal and the projection
//! of its boundary contour onto the plane orthogonal to `V` is a simple closed curve. Then the
//! projection is an orientation-preserving local homeomorphism of the disk whose boundary maps
//! injectively, hence injective: no two points of the patch meet.
//!
//! - **Disks** are found once per mesh from the topology (static while positions change),
//!   bottom-up: every node records its vertex, edge and triangle counts, its number of
//!   edge-connected components and its boundary edges (each tagged with its component); a
//!   parent merges its children's records across the edges on both boundaries (in a manifold
//!   mesh an edge or vertex in both children is on both boundaries). A node is a disk when it
//!   is one component, `V − E + F = 1` and every boundary vertex is on exactly two boundary
//!   edges: a connected compact surface with Euler characteristic 1 and boundary is a disk,
//!   and any pinch (vertices glued) lowers the characteristic. Triangles at non-manifold
//!   edges or vertices, or with repeated vertices, keep every node above them from being a
//!   disk. The winding must also be consistent (the two triangles of every inner edge run
//!   it in opposite directions), so that positive normals mean an orientation-preserving
//!   projection: a flap folded back with its winding flipped would otherwise pass.
//! - **Continuous normal cones** (per step): with linear vertex motion the normal
//!   `n(t) = e₁(t) × e₂(t)` is a quadratic in `t` whose Bernstein coefficients are
//!   `e₁(0)×e₂(0)`, `(e₁(0)×e₂(1) + e₁(1)×e₂(0))/2` and `e₁(1)×e₂(1)`; `n(t)` is a convex
//!   combination of them, so a cone holding the three holds `n(t)` for all `t ∈ [0, 1]`. Node
//!   cones are merged bottom-up and widened by a small angle for rounding; a coefficient that
//!   is tiny next to its edge lengths makes the cone unusable.
//! - **Contour test** (during the query, only for disks whose cone has a half-angle below
//!   90°): the contour's vertices are projected onto the plane orthogonal to the cone axis,
//!   where they move linearly. Two contour edges without a common vertex must stay apart:
//!   their distance at `t = 0` must exceed the largest relative displacement of their
//!   endpoints (the distance is 1-Lipschitz in the displacements). Two edges at a common
//!   vertex may never fold onto each other: the cross product of their directions (a
//!   quadratic) keeps one sign, or their dot product stays negative (Bernstein coefficients
//!   again). Edge pairs are found by a sweep over their swept boxes.
//!
//! A patch that passes cannot self-intersect during the step, so its self-collision subtree is
//! skipped. This proves the absence of intersections, not of proximity below the tolerance:
//! features of a certified patch that come within `ε` without touching are not reported
//! (the elementary queries would report them as early contacts).

use ccd_bvh::{Bvh, Kdop18};
use ccd_geometry::glam::{DVec2, DVec3};

use super::hybrid::{f32_down, f32_up};
use crate::DeformingMesh;

/// Half-angle slack added per cone (rounding of the directions and of the merges).
const ANGLE_SLACK: f64 = 1e-9;

/// Cones at or above this half-angle are useless (the criterion needs less than 90°).
const MAX_HALF_ANGLE: f64 = std::f64::consts::FRAC_PI_2 - 1e-6;

/// A cone of directions: unit axis and half-angle (`half ≥ MAX_HALF_ANGLE`: unusable).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Cone {
    axis: DVec3,
    half: f64,
}

impl Cone {
    const FULL: Self = Self {
        axis: DVec3::Z,
        half: std::f64::consts::PI,
    };

    /// Whether the cone is narrow enough for the criterion.
    #[inline]
    pub(crate) fn usable(&self) -> bool {
        self.half < MAX_HALF_ANGLE
    }

    /// The smallest cone (up to the slack) holding both.
    fn merge(&self, o: &Self) -> Self {
        if !self.usable() || !o.usable() {
            return Self::FULL;
        }
        let d = angle(self.axis, o.axis);
        if d + o.half <= self.half {
            return *self;
        }
        if d + self.half <= o.half {
            return *o;
        }
        let half = 0.5 * (self.half + o.half + d) + ANGLE_SLACK;
        if half >= MAX_HALF_ANGLE || d <= 0.0 {
            return Self::FULL;
        }
        // rotate self.axis towards o.axis by half − self.half
        let phi = half - self.half;
        let axis = (self.axis * (d - phi).sin() + o.axis * phi.sin()) / d.sin();
        match axis.try_normalize() {
            Some(axis) => Self { axis, half },
            None => Self::FULL,
        }
    }
}

/// The angle between two unit vectors (robust near 0 and π).
#[inline]
fn angle(a: DVec3, b: DVec3) -> f64 {
    a.cross(b).length().atan2(a.dot(b))
}

/// The cone of a set of directions (not necessarily unit); `FULL` if any is degenerate
/// (`None`) or the set does not fit in a usable cone. `units` is scratch space.
fn cone_of(dirs: &[Option<DVec3>], units: &mut Vec<DVec3>) -> Cone {
    units.clear();
    let mut sum = DVec3::ZERO;
    for d in dirs {
        let Some(u) = d.and_then(DVec3::try_normalize) else {
            return Cone::FULL;
        };
        sum += u;
        units.push(u);
    }
    let Some(axis) = sum.try_normalize() else {
        return Cone::FULL;
    };
    // one arctangent for the set: with every cosine positive, `atan2(s, c)` grows with the
    // sine `s` and shrinks with the cosine `c`, so the largest sine over the smallest cosine
    // bounds every direction's angle
    let (mut min_cos, mut max_sin2) = (f64::INFINITY, 0.0f64);
    for u in units.iter() {
        min_cos = min_cos.min(axis.dot(*u));
        max_sin2 = max_sin2.max(axis.cross(*u).length_squared());
    }
    if min_cos <= 0.0 || min_cos.is_nan() {
        return Cone::FULL;
    }
    let half = max_sin2.sqrt().atan2(min_cos) + ANGLE_SLACK;
    if half < MAX_HALF_ANGLE {
        Cone { axis, half }
    } else {
        Cone::FULL
    }
}

/// The three Bernstein coefficients of the normal of triangle `t` over the step, `None` when
/// one is tiny next to the edge lengths (its direction would be unreliable).
fn bernstein_normals(mesh: &DeformingMesh, t: [u32; 3]) -> [Option<DVec3>; 3] {
    let (x0, x1) = (mesh.x0(), mesh.x1());
    let p = |x: &[DVec3], k: usize| x[t[k] as usize];
    let (e10, e20) = (p(x0, 1) - p(x0, 0), p(x0, 2) - p(x0, 0));
    let (e11, e21) = (p(x1, 1) - p(x1, 0), p(x1, 2) - p(x1, 0));
    let b = [
        e10.cross(e20),
        0.5 * (e10.cross(e21) + e11.cross(e20)),
        e11.cross(e21),
    ];
    let scale = e10
        .length_squared()
        .max(e11.length_squared())
        .max(e20.length_squared().max(e21.length_squared()));
    b.map(|v| (v.length_squared() > 1e-16 * scale * scale && v.is_finite()).then_some(v))
}

/// Where a disk node's boundary is stored.
#[derive(Debug, Clone, Copy)]
struct Disk {
    edges: (u32, u32),
    verts: (u32, u32),
}

/// Reusable buffers of the contour tests (one per traversal worker).
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    edges: Vec<[u32; 2]>,
    contour: ContourScratch,
    /// Triangles and contour edges the certificates looked at (the parallel query's work
    /// count, [`super::SceneOptions::serial_work`]).
    pub(crate) work: u64,
}

/// The projected edges of a contour and their sweep order.
#[derive(Debug, Default)]
struct ContourScratch {
    edges: Vec<ContourEdge>,
    order: Vec<u64>,
}

/// Which nodes of a mesh's BVH are topological disks, with their boundary edges.
#[derive(Debug, Clone, Default)]
pub(crate) struct Patches {
    /// Per node, when it is a disk: the ranges of its boundary edges in `edges` and of its
    /// boundary vertices in `verts`.
    disk: Vec<Option<Disk>>,
    /// Boundary edges `(low, high)` of the disk nodes, each node's run sorted.
    edges: Vec<[u32; 2]>,
    /// Winding direction of each of `edges` (low to high in its triangle).
    dirs: Vec<bool>,
    /// Boundary vertices of the disk nodes, each node's run sorted.
    verts: Vec<u32>,
    /// Per node: its normal cone over the current step.
    cones: Vec<Cone>,
    /// Per node: the connected piece of its first triangle (a disk node is within one).
    piece: Vec<u32>,
    /// Per node: whether its triangles form a closed, connected, consistently wound
    /// surface (tested by [`super::star::star_shaped`]).
    closed: Vec<bool>,
}

impl Patches {
    /// Finds the disk nodes of `bvh` over `mesh` (topology only); `piece` is the connected
    /// piece of every triangle.
    pub(crate) fn build(mesh: &DeformingMesh, bvh: &Bvh<Kdop18>, piece: &[u32]) -> Self {
        let poison = non_manifold_triangles(mesh);
        let n = bvh.node_count();
        // per-vertex boundary degree counters (all zero between nodes)
        let mut degree = vec![0u32; mesh.vertex_count()];
        let mut info: Vec<Option<Topo>> = vec![None; n];
        let mut out = Self {
            disk: vec![None; n],
            edges: Vec::new(),
            dirs: Vec::new(),
            verts: Vec::new(),
            cones: vec![Cone::FULL; n],
            piece: (0..n as u32)
                .map(|i| {
                    bvh.node_primitives(i)
                        .first()
                        .map_or(0, |&t| piece[t as usize])
                })
                .collect(),
            closed: vec![false; n],
        };
        for i in (0..n).rev() {
            let node = bvh.node(i as u32);
            let t = match node.children() {
                None => leaf_topology(mesh, bvh.node_primitives(i as u32), &poison, &mut degree),
                Some([l, r]) => match (info[l as usize].take(), info[r as usize].take()) {
                    (Some(a), Some(b)) => merged_topology(&a, &b, &mut degree),
                    _ => None,
                },
            };
            out.closed[i] = t.as_ref().is_some_and(Topo::is_closed);
            if let Some(t) = t.as_ref().filter(|t| t.is_disk()) {
                let (es, vs) = (out.edges.len() as u32, out.verts.len() as u32);
                out.edges.extend(t.boundary.iter().map(|b| b.0));
                out.dirs.extend(t.boundary.iter().map(|b| b.2));
                out.verts.extend_from_slice(&t.boundary_verts);
                out.disk[i] = Some(Disk {
                    edges: (es, t.boundary.len() as u32),
                    verts: (vs, t.boundary_verts.len() as u32),
                });
            }
            info[i] = t;
        }
        out
    }

    /// Refits the normal cones to the mesh's current step (bottom-up).
    pub(crate) fn fit_cones(&mut self, mesh: &DeformingMesh, bvh: &Bvh<Kdop18>) {
        let tris = mesh.triangles();
        let (mut dirs, mut units) = (Vec::new(), Vec::new());
        for i in (0..bvh.node_count()).rev() {
            self.cones[i] = match bvh.node(i as u32).children() {
                Some([l, r]) => self.cones[l as usize].merge(&self.cones[r as usize]),
                None => {
                    dirs.clear();
                    for &t in bvh.node_primitives(i as u32) {
                        dirs.extend(bernstein_normals(mesh, tris[t as usize]));
                    }
                    cone_of(&dirs, &mut units)
                }
            };
        }
    }

    /// Whether node `i`'s triangles (`prims`) provably do not intersect each other at any
    /// time of the step: a disk by its normal cone and contour (see the module docs; `slack`
    /// is added to every separation test), a closed surface by its star centre
    /// ([`super::star`]).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn certified(
        &self,
        i: usize,
        mesh: &DeformingMesh,
        prims: &[u32],
        pair: &[Kdop18; 2],
        slack: f64,
        scratch: &mut Scratch,
    ) -> bool {
        if self.closed[i] {
            scratch.work += prims.len() as u64;
            // the k-DOPs' first three slabs are the node's boxes at t = 0 and t = 1
            let corners = |k: &Kdop18| {
                [
                    DVec3::new(k.min[0], k.min[1], k.min[2]),
                    DVec3::new(k.max[0], k.max[1], k.max[2]),
                ]
            };
            return super::star::star_shaped(mesh, prims, [corners(&pair[0]), corners(&pair[1])]);
        }
        let (Some(d), cone) = (self.disk[i], self.cones[i]) else {
            return false;
        };
        if !cone.usable() {
            return false;
        }
        let (edges, _, _) = self.boundary(d);
        scratch.work += edges.len() as u64;
        contour_is_simple(edges, mesh, cone.axis, slack, &mut scratch.contour)
    }

    /// A disk node's boundary edges, their winding directions and its boundary vertices.
    fn boundary(&self, d: Disk) -> (&[[u32; 2]], &[bool], &[u32]) {
        let e = d.edges.0 as usize..(d.edges.0 + d.edges.1) as usize;
        (
            &self.edges[e.clone()],
            &self.dirs[e],
            &self.verts[d.verts.0 as usize..(d.verts.0 + d.verts.1) as usize],
        )
    }

    /// Whether the triangles of nodes `a` and `b` together provably do not intersect each
    /// other at any time of the step: both are disks that share an edge and whose union is a
    /// disk, with a usable merged cone and a simple projected contour.
    pub(crate) fn pair_certified(
        &self,
        a: usize,
        b: usize,
        mesh: &DeformingMesh,
        slack: f64,
        scratch: &mut Scratch,
    ) -> bool {
        let (Some(da), Some(db)) = (self.disk[a], self.disk[b]) else {
            return false;
        };
        // disks of different pieces share no edge (cheaper than merging their boundaries)
        if self.piece[a] != self.piece[b] {
            return false;
        }
        let (ca, cb) = (self.cones[a], self.cones[b]);
        if !ca.usable() || !cb.usable() {
            return false;
        }
        let cone = ca.merge(&cb);
        if !cone.usable() {
            return false;
        }
        let ((ea, wa, va), (eb, wb, vb)) = (self.boundary(da), self.boundary(db));
        scratch.work += (ea.len() + eb.len()) as u64;
        let mut edges = std::mem::take(&mut scratch.edges);
        let ok = union_boundary((ea, wa, va), (eb, wb, vb), &mut edges)
            && contour_is_simple(&edges, mesh, cone.axis, slack, &mut scratch.contour);
        scratch.edges = edges;
        ok
    }
}

/// Triangles at a non-manifold edge (three or more triangles) or vertex (more than one fan),
/// or with a repeated vertex.
fn non_manifold_triangles(mesh: &DeformingMesh) -> Vec<bool> {
    let tris = mesh.triangles();
    let mut poison: Vec<bool> = tris
        .iter()
        .map(|t| t[0] == t[1] || t[1] == t[2] || t[0] == t[2])
        .collect();
    // vertex fans (triangles at each vertex)
    let nv = mesh.vertex_count();
    let mut first = vec![0u32; nv + 1];
    for t in tris {
        for &v in t {
            first[v as usize + 1] += 1;
        }
    }
    for v in 0..nv {
        first[v + 1] += first[v];
    }
    let mut fill = first.clone();
    let mut at = vec![0u32; 3 * tris.len()];
    for (f, t) in tris.iter().enumerate() {
        for &v in t {
            at[fill[v as usize] as usize] = f as u32;
            fill[v as usize] += 1;
        }
    }
    let mut parent = Vec::new();
    let mut up: Vec<(u32, u32)> = Vec::new();
    for v in 0..nv {
        let fan = &at[first[v] as usize..first[v + 1] as usize];
        // edges (v, w > v) in more than two triangles: from each edge's low vertex's fan
        up.clear();
        for &f in fan {
            for w in tris[f as usize] {
                if w > v as u32 {
                    up.push((w, f));
                }
            }
        }
        up.sort_unstable();
        for run in up.chunk_by(|x, y| x.0 == y.0) {
            if run.len() > 2 {
                for &(_, f) in run {
                    poison[f as usize] = true;
                }
            }
        }
        // the triangles at a vertex must be connected through edges at the vertex
        if fan.len() <= 1 {
            continue;
        }
        parent.clear();
        parent.extend(0..fan.len() as u32);
        let others = |f: u32| {
            let t = tris[f as usize];
            t.into_iter().filter(move |&w| w != v as u32)
        };
        for a in 0..fan.len() {
            for b in a + 1..fan.len() {
                if others(fan[a]).any(|w| others(fan[b]).any(|x| x == w)) {
                    union(&mut parent, a as u32, b as u32);
                }
            }
        }
        let r0 = root(&mut parent, 0);
        if (1..fan.len() as u32).any(|k| root(&mut parent, k) != r0) {
            for &f in fan {
                poison[f as usize] = true;
            }
        }
    }
    poison
}

/// The topology of a node's triangles (manifold meshes only: `None` once a triangle at a
/// non-manifold edge or vertex is inside): counts for the Euler characteristic, the number of
/// edge-connected components, and the boundary edges (sorted, each with the local index of
/// its component) and boundary vertices (sorted).
#[derive(Debug, Clone)]
struct Topo {
    vertices: i64,
    edges: i64,
    faces: i64,
    components: u32,
    /// `(edge, component, direction)`: `direction` is whether the edge's triangle runs from
    /// its low to its high vertex (winding).
    boundary: Vec<([u32; 2], u32, bool)>,
    boundary_verts: Vec<u32>,
    /// Whether every boundary vertex is on exactly two boundary edges.
    degrees_two: bool,
}

impl Topo {
    /// One edge-connected component, Euler characteristic 1 and two boundary edges at every
    /// boundary vertex: a topological disk (see the module docs).
    fn is_disk(&self) -> bool {
        self.components == 1
            && self.vertices - self.edges + self.faces == 1
            && !self.boundary.is_empty()
            && self.boundary_verts.len() == self.boundary.len()
            && self.degrees_two
    }

    /// One edge-connected component without boundary and Euler characteristic 2: a closed
    /// surface of genus 0 (winding consistency is checked while merging).
    fn is_closed(&self) -> bool {
        self.components == 1
            && self.boundary.is_empty()
            && self.vertices - self.edges + self.faces == 2
    }
}

/// Union-find root with path halving (`p[i] == i` at roots).
pub(crate) fn root(p: &mut [u32], mut i: u32) -> u32 {
    while p[i as usize] != i {
        p[i as usize] = p[p[i as usize] as usize];
        i = p[i as usize];
    }
    i
}

/// Joins the sets of `a` and `b`; whether they were apart.
pub(crate) fn union(p: &mut [u32], a: u32, b: u32) -> bool {
    let (ra, rb) = (root(p, a), root(p, b));
    p[ra as usize] = rb;
    ra != rb
}

/// Renumbers the component tags of `boundary` (union-find elements of `parent`) as compact
/// indices `0, 1, …` of their roots.
fn compact_components(boundary: &mut [([u32; 2], u32, bool)], parent: &mut [u32]) {
    let mut id = vec![u32::MAX; parent.len()];
    let mut next = 0;
    for e in boundary {
        let r = root(parent, e.1) as usize;
        if id[r] == u32::MAX {
            id[r] = next;
            next += 1;
        }
        e.1 = id[r];
    }
}

/// Counts in `degree` how many `boundary` edges end at each vertex of `candidates` (sorted,
/// a superset of the edges' vertices); returns the candidates with a non-zero count (sorted)
/// and whether every such count is two, and leaves `degree` zero again.
fn boundary_degrees(
    boundary: &[([u32; 2], u32, bool)],
    candidates: &[u32],
    degree: &mut [u32],
) -> (Vec<u32>, bool) {
    for b in boundary {
        degree[b.0[0] as usize] += 1;
        degree[b.0[1] as usize] += 1;
    }
    let mut verts = Vec::with_capacity(boundary.len());
    let mut two = true;
    for &v in candidates {
        let d = std::mem::take(&mut degree[v as usize]);
        if d > 0 {
            two &= d == 2;
            verts.push(v);
        }
    }
    (verts, two)
}

/// The topology of a leaf's triangles, `None` if one of them is poisoned.
fn leaf_topology(
    mesh: &DeformingMesh,
    prims: &[u32],
    poison: &[bool],
    degree: &mut [u32],
) -> Option<Topo> {
    let tris = mesh.triangles();
    if prims.iter().any(|&t| poison[t as usize]) {
        return None;
    }
    let mut edges: Vec<([u32; 2], u32, bool)> = Vec::with_capacity(3 * prims.len());
    for (k, &t) in prims.iter().enumerate() {
        let t = tris[t as usize];
        for j in 0..3 {
            let (a, b) = (t[j], t[(j + 1) % 3]);
            edges.push(([a.min(b), a.max(b)], k as u32, a < b));
        }
    }
    edges.sort_unstable();
    let mut parent: Vec<u32> = (0..prims.len() as u32).collect();
    let mut components = prims.len() as u32;
    let mut boundary = Vec::new();
    let mut edge_count = 0i64;
    for run in edges.chunk_by(|x, y| x.0 == y.0) {
        edge_count += 1;
        match run {
            [(e, f, d)] => boundary.push((*e, *f, *d)),
            // the two triangles of an inner edge must run it in opposite directions
            // (consistent winding); otherwise the patch could fold over itself unseen
            [(_, _, da), (_, _, db)] if da == db => return None,
            [(_, a, _), (_, b, _)] => {
                if union(&mut parent, *a, *b) {
                    components -= 1;
                }
            }
            _ => return None,
        }
    }
    compact_components(&mut boundary, &mut parent);
    let mut verts: Vec<u32> = prims.iter().flat_map(|&t| tris[t as usize]).collect();
    verts.sort_unstable();
    verts.dedup();
    let (boundary_verts, degrees_two) = boundary_degrees(&boundary, &verts, degree);
    Some(Topo {
        vertices: verts.len() as i64,
        edges: edge_count,
        faces: prims.len() as i64,
        components,
        boundary,
        boundary_verts,
        degrees_two,
    })
}

/// The topology of the union of two nodes' triangles (disjoint triangle sets of a manifold
/// mesh): an edge in both is a boundary edge of both (one triangle on each side), a vertex in
/// both is a boundary vertex of both, and components meet only across shared edges.
fn merged_topology(a: &Topo, b: &Topo, degree: &mut [u32]) -> Option<Topo> {
    let offset = a.boundary.iter().map(|e| e.1 + 1).max().unwrap_or(0);
    let ids = offset + b.boundary.iter().map(|e| e.1 + 1).max().unwrap_or(0);
    let mut parent: Vec<u32> = (0..ids).collect();
    let mut components = a.components + b.components;
    let mut boundary = Vec::with_capacity(a.boundary.len() + b.boundary.len());
    let (mut i, mut j, mut shared_edges) = (0, 0, 0i64);
    while i < a.boundary.len() && j < b.boundary.len() {
        let (ea, eb) = (a.boundary[i], b.boundary[j]);
        match ea.0.cmp(&eb.0) {
            std::cmp::Ordering::Less => {
                boundary.push(ea);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                boundary.push((eb.0, eb.1 + offset, eb.2));
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                if ea.2 == eb.2 {
                    // inconsistent winding across the shared edge
                    return None;
                }
                shared_edges += 1;
                if union(&mut parent, ea.1, eb.1 + offset) {
                    components -= 1;
                }
                i += 1;
                j += 1;
            }
        }
    }
    boundary.extend_from_slice(&a.boundary[i..]);
    boundary.extend(b.boundary[j..].iter().map(|e| (e.0, e.1 + offset, e.2)));
    // the merged boundary's vertices are among both children's (a sorted union)
    let (va, vb) = (&a.boundary_verts, &b.boundary_verts);
    let mut candidates = Vec::with_capacity(va.len() + vb.len());
    let (mut i, mut j) = (0, 0);
    while i < va.len() && j < vb.len() {
        match va[i].cmp(&vb[j]) {
            std::cmp::Ordering::Less => {
                candidates.push(va[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                candidates.push(vb[j]);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                candidates.push(va[i]);
                i += 1;
                j += 1;
            }
        }
    }
    candidates.extend_from_slice(&va[i..]);
    candidates.extend_from_slice(&vb[j..]);
    let shared_verts = (va.len() + vb.len() - candidates.len()) as i64;
    compact_components(&mut boundary, &mut parent);
    let (boundary_verts, degrees_two) = boundary_degrees(&boundary, &candidates, degree);
    Some(Topo {
        vertices: a.vertices + b.vertices - shared_verts,
        edges: a.edges + b.edges - shared_edges,
        faces: a.faces + b.faces,
        components,
        boundary,
        boundary_verts,
        degrees_two,
    })
}

/// Number of common elements of two sorted lists.
fn common<T: Ord>(a: &[T], b: &[T]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
        }
    }
    n
}

/// The boundary of the union of two disks (sorted boundary edges with their winding
/// directions, sorted boundary vertices) into `out`, when the union is a consistently wound
/// disk: they share `E_s ≥ 1` edges, each run in opposite directions by its two triangles,
/// and `V_s = E_s + 1` vertices (Euler characteristic `2 − (V_s − E_s) = 1`). The shared
/// part is then a single tree lying on both boundary loops, i.e. a path, so the merged
/// boundary is one loop (no degree test needed, unlike a leaf).
fn union_boundary(
    (ea, wa, va): (&[[u32; 2]], &[bool], &[u32]),
    (eb, wb, vb): (&[[u32; 2]], &[bool], &[u32]),
    out: &mut Vec<[u32; 2]>,
) -> bool {
    out.clear();
    let (mut i, mut j, mut shared_edges) = (0, 0, 0);
    while i < ea.len() && j < eb.len() {
        match ea[i].cmp(&eb[j]) {
            std::cmp::Ordering::Less => {
                out.push(ea[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(eb[j]);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                if wa[i] == wb[j] {
                    return false;
                }
                shared_edges += 1;
                i += 1;
                j += 1;
            }
        }
    }
    if shared_edges == 0 || common(va, vb) != shared_edges + 1 {
        return false;
    }
    out.extend_from_slice(&ea[i..]);
    out.extend_from_slice(&eb[j..]);
    !out.is_empty()
}

/// A contour edge projected onto the plane, at both times, with its swept box.
#[derive(Debug, Clone, Copy)]
struct ContourEdge {
    ends: [u32; 2],
    p0: [DVec2; 2],
    p1: [DVec2; 2],
    lo: DVec2,
    hi: DVec2,
}

/// The contour test: the boundary `edges`, projected onto the plane orthogonal to `axis`,
/// stays a simple closed curve over the whole step. Every pair of edges whose swept boxes
/// overlap is checked (after a sort along `x` for large contours).
fn contour_is_simple(
    edges: &[[u32; 2]],
    mesh: &DeformingMesh,
    axis: DVec3,
    slack: f64,
    scratch: &mut ContourScratch,
) -> bool {
    let ContourScratch { edges: es, order } = scratch;
    let (u, w) = axis.any_orthonormal_pair();
    let (x0, x1) = (mesh.x0(), mesh.x1());
    let proj = |p: DVec3| DVec2::new(p.dot(u), p.dot(w));
    if edges.is_empty() {
        return true;
    }
    // A common translation `t·shift` of the whole contour changes no intersection, so the
    // displacements are taken relative to the mean one: rigidly translating contours get
    // tight swept boxes.
    let mut shift = DVec3::ZERO;
    for &[a, _] in edges {
        shift += x1[a as usize] - x0[a as usize];
    }
    let shift = shift / edges.len() as f64;
    es.clear();
    for &[a, b] in edges {
        let p0 = [proj(x0[a as usize]), proj(x0[b as usize])];
        let p1 = [proj(x1[a as usize] - shift), proj(x1[b as usize] - shift)];
        let lo = p0[0].min(p0[1]).min(p1[0].min(p1[1])) - DVec2::splat(slack);
        let hi = p0[0].max(p0[1]).max(p1[0].max(p1[1])) + DVec2::splat(slack);
        if !(lo.is_finite() && hi.is_finite()) {
            return false;
        }
        es.push(ContourEdge {
            ends: [a, b],
            p0,
            p1,
            lo,
            hi,
        });
    }
    // sweep along x: edges in order of their boxes' low x, as integer keys (the low x
    // rounded down to `f32`, in order-preserving bits, above the edge index): a key never
    // exceeds its box, so the sweep stops only past boxes that cannot overlap
    order.clear();
    order.extend(
        es.iter()
            .enumerate()
            .map(|(k, e)| (u64::from(ordered_bits(f32_down(e.lo.x))) << 32) | k as u64),
    );
    order.sort_unstable();
    for (n, &key) in order.iter().enumerate() {
        let e = &es[(key & 0xffff_ffff) as usize];
        let stop = ordered_bits(f32_up(e.hi.x));
        for &other in &order[n + 1..] {
            if (other >> 32) as u32 > stop {
                break;
            }
            let f = &es[(other & 0xffff_ffff) as usize];
            if f.lo.y > e.hi.y || e.lo.y > f.hi.y {
                continue;
            }
            let ok = match shared_end(e.ends, f.ends) {
                Some((i, j)) => never_fold(e, i, f, j, slack),
                None => stay_apart(e, f, slack),
            };
            if !ok {
                return false;
            }
        }
    }
    true
}

/// Order-preserving map of non-NaN `f32`s to `u32` (`a < b` iff `bits(a) < bits(b)`, with
/// `-0.0` just below `+0.0`).
#[inline]
fn ordered_bits(x: f32) -> u32 {
    let b = x.to_bits();
    if b >> 31 == 1 { !b } else { b | 0x8000_0000 }
}

/// Indices (in `a`, in `b`) of the common vertex of two distinct edges.
#[inline]
fn shared_end(a: [u32; 2], b: [u32; 2]) -> Option<(usize, usize)> {
    (0..2)
        .flat_map(|i| (0..2).map(move |j| (i, j)))
        .find(|&(i, j)| a[i] == b[j])
}

/// Edges `e`, `f` meeting at `e.p[i] = f.p[j]` never fold onto each other: the cross product
/// of their directions from the common vertex keeps a strict sign, or their dot product stays
/// negative (Bernstein coefficients of the two quadratics).
fn never_fold(e: &ContourEdge, i: usize, f: &ContourEdge, j: usize, slack: f64) -> bool {
    let (a0, a1) = (e.p0[1 - i] - e.p0[i], e.p1[1 - i] - e.p1[i]);
    let (b0, b1) = (f.p0[1 - j] - f.p0[j], f.p1[1 - j] - f.p1[j]);
    let cross = [
        a0.perp_dot(b0),
        0.5 * (a0.perp_dot(b1) + a1.perp_dot(b0)),
        a1.perp_dot(b1),
    ];
    let dot = [a0.dot(b0), 0.5 * (a0.dot(b1) + a1.dot(b0)), a1.dot(b1)];
    // L1 norms bound the lengths from above (no square roots)
    let l1 = |v: DVec2| v.x.abs() + v.y.abs();
    let (la, lb) = (l1(a0).max(l1(a1)), l1(b0).max(l1(b1)));
    let tol = 2.0 * slack * (la + lb) + 1e-12 * la * lb;
    cross.iter().all(|&c| c > tol)
        || cross.iter().all(|&c| c < -tol)
        || dot.iter().all(|&d| d < -tol)
}

/// Edges without a common vertex stay apart: their distance at `t = 0` exceeds the largest
/// relative displacement of an endpoint of one and an endpoint of the other (the relative
/// displacement of any two points of the edges is a convex combination of those).
fn stay_apart(e: &ContourEdge, f: &ContourEdge, slack: f64) -> bool {
    // first per axis, without square roots: the gap of the boxes at t = 0 against the
    // largest relative displacement along the axis
    let (mut rx, mut ry) = (0.0f64, 0.0f64);
    for i in 0..2 {
        for j in 0..2 {
            let d = (e.p1[i] - e.p0[i]) - (f.p1[j] - f.p0[j]);
            rx = rx.max(d.x.abs());
            ry = ry.max(d.y.abs());
        }
    }
    let (lo_e, hi_e) = (e.p0[0].min(e.p0[1]), e.p0[0].max(e.p0[1]));
    let (lo_f, hi_f) = (f.p0[0].min(f.p0[1]), f.p0[0].max(f.p0[1]));
    let gap = (lo_f - hi_e).max(lo_e - hi_f);
    if gap.x > rx + 2.0 * slack || gap.y > ry + 2.0 * slack {
        return true;
    }
    let mut rel = 0.0f64;
    for i in 0..2 {
        for j in 0..2 {
            let d = (e.p1[i] - e.p0[i]) - (f.p1[j] - f.p0[j]);
            rel = rel.max(d.length());
        }
    }
    segment_distance(e.p0, f.p0) > rel + 2.0 * slack
}

/// Distance between two segments in the plane (0 when they cross or touch).
fn segment_distance(a: [DVec2; 2], b: [DVec2; 2]) -> f64 {
    let orient = |p: DVec2, q: DVec2, r: DVec2| (q - p).perp_dot(r - p);
    let (o1, o2) = (orient(a[0], a[1], b[0]), orient(a[0], a[1], b[1]));
    let (o3, o4) = (orient(b[0], b[1], a[0]), orient(b[0], b[1], a[1]));
    if o1 * o2 <= 0.0 && o3 * o4 <= 0.0 {
        return 0.0;
    }
    point_segment(a[0], b)
        .min(point_segment(a[1], b))
        .min(point_segment(b[0], a))
        .min(point_segment(b[1], a))
}

/// Distance from `p` to the segment `s`.
fn point_segment(p: DVec2, s: [DVec2; 2]) -> f64 {
    let d = s[1] - s[0];
    let dd = d.length_squared();
    let t = if dd > 0.0 {
        ((p - s[0]).dot(d) / dd).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (s[0] + d * t - p).length()
}

#[cfg(test)]
mod tests;
