//! The scene traversal: node pairs of the hybrid BVHs, triangle pairs in leaves, and the
//! owned vertex–face / edge–edge tests.

mod schedule;
#[cfg(all(test, feature = "parallel"))]
mod tests;

use std::sync::atomic::Ordering;

use ccd_geometry::Feature;
use ccd_geometry::glam::DVec3;
use schedule::Shared;
pub use schedule::{BOOLEAN_SERIAL_FACTOR, DEFAULT_SERIAL_WORK, DEFAULT_SPLIT_GRAIN, work_units};

use super::cone::Scratch;
use super::hybrid::{Box32, HybridBvh};
use super::{DeformingScene, Kernel, Resting, SceneOptions, SceneResult, contact, sort_contacts};
use crate::kernels::moving_bv::{
    aabb_toc_unchecked, kdop_margin, kdop_overlap, kdop_toc_unchecked,
};
use crate::{Mode, PrimitiveToc, SceneContact, SceneStats, Status};
use ccd_geometry::Aabb;

/// A unit of traversal work.
#[derive(Debug, Clone, Copy)]
pub(super) enum Task {
    /// A node against itself (self-collision).
    Within { mesh: u32, node: u32 },
    /// Two nodes whose volumes passed their test.
    Pair { ma: u32, na: u32, mb: u32, nb: u32 },
}

/// Runs the elementary vertex–face test: `x0`/`x1` = (vertex, face 0, face 1, face 2).
#[inline]
pub(super) fn vertex_face(
    kernel: Kernel,
    x0: &[DVec3; 4],
    x1: &[DVec3; 4],
    t_max: f64,
    opts: &SceneOptions,
) -> Option<PrimitiveToc> {
    vertex_face_tol(kernel, x0, x1, t_max, opts.la.tolerance, opts)
}

/// [`vertex_face`] with another tolerance.
#[inline]
fn vertex_face_tol(
    kernel: Kernel,
    x0: &[DVec3; 4],
    x1: &[DVec3; 4],
    t_max: f64,
    tolerance: f64,
    opts: &SceneOptions,
) -> Option<PrimitiveToc> {
    match kernel {
        Kernel::LocalAdvancement => {
            crate::kernels::vertex_face_until(x0, x1, t_max, tolerance, opts.la.max_iterations)
        }
        Kernel::CubicBaseline => crate::baseline::vertex_face_cubic_until(
            x0,
            x1,
            t_max,
            tolerance,
            opts.la.max_iterations,
        ),
    }
}

/// Splits an elementary answer under [`Resting::Separate`]: a pair within the tolerance
/// at `t = 0` becomes `(its own later contact, the resting record)`, the later contact tested
/// again with tolerance `d₀ / 2` up to `t_max` (none when `d₀ = 0`: it cannot come closer);
/// anything else is `(p, None)`.
#[inline]
pub(super) fn split_resting(
    p: Option<PrimitiveToc>,
    opts: &SceneOptions,
    rerun: impl FnOnce(f64) -> Option<PrimitiveToc>,
) -> (Option<PrimitiveToc>, Option<PrimitiveToc>) {
    match p {
        Some(p) if opts.resting == Resting::Separate && p.status == Status::InitiallyTouching => {
            let later = if p.distance > 0.0 {
                rerun(0.5 * p.distance)
            } else {
                None
            };
            (later, Some(p))
        }
        p => (p, None),
    }
}

/// Runs the vertex–face test with the scene's treatment of resting pairs
/// ([`split_resting`]).
#[inline]
pub(super) fn vertex_face_resting(
    kernel: Kernel,
    x0: &[DVec3; 4],
    x1: &[DVec3; 4],
    t_max: f64,
    opts: &SceneOptions,
) -> (Option<PrimitiveToc>, Option<PrimitiveToc>) {
    split_resting(vertex_face(kernel, x0, x1, t_max, opts), opts, |tol| {
        vertex_face_tol(kernel, x0, x1, t_max, tol, opts)
    })
}

/// Runs the edge–edge test with the scene's treatment of resting pairs
/// ([`split_resting`]).
#[inline]
pub(super) fn edge_edge_resting(
    kernel: Kernel,
    x0: &[DVec3; 4],
    x1: &[DVec3; 4],
    t_max: f64,
    opts: &SceneOptions,
) -> (Option<PrimitiveToc>, Option<PrimitiveToc>) {
    split_resting(edge_edge(kernel, x0, x1, t_max, opts), opts, |tol| {
        edge_edge_tol(kernel, x0, x1, t_max, tol, opts)
    })
}

/// Runs the elementary edge–edge test: `x0`/`x1` = (a0, a1, b0, b1).
#[inline]
pub(super) fn edge_edge(
    kernel: Kernel,
    x0: &[DVec3; 4],
    x1: &[DVec3; 4],
    t_max: f64,
    opts: &SceneOptions,
) -> Option<PrimitiveToc> {
    edge_edge_tol(kernel, x0, x1, t_max, opts.la.tolerance, opts)
}

/// [`edge_edge`] with another tolerance.
#[inline]
fn edge_edge_tol(
    kernel: Kernel,
    x0: &[DVec3; 4],
    x1: &[DVec3; 4],
    t_max: f64,
    tolerance: f64,
    opts: &SceneOptions,
) -> Option<PrimitiveToc> {
    match kernel {
        Kernel::LocalAdvancement => {
            crate::kernels::edge_edge_until(x0, x1, t_max, tolerance, opts.la.max_iterations)
        }
        Kernel::CubicBaseline => {
            crate::baseline::edge_edge_cubic_until(x0, x1, t_max, tolerance, opts.la.max_iterations)
        }
    }
}

/// Traversal state of one query (or of one parallel worker).
pub(super) struct Walker<'a> {
    scene: &'a DeformingScene,
    output: Mode,
    /// Upper bound of interest: the best ToC so far (`Toc`), else 1.
    best: f64,
    contacts: Vec<SceneContact>,
    /// Resting pairs ([`Resting::Separate`]).
    resting: Vec<SceneContact>,
    stats: SceneStats,
    stack: Vec<Task>,
    bv_margin: [f64; 9],
    box_margin: f64,
    done: bool,
    /// State shared with other workers of a parallel query.
    shared: Option<&'a Shared>,
    /// Tasks run since the last look at `shared`.
    since_sync: u32,
    /// Scratch list of candidate feature pairs (item indices), room for 64 × 64.
    cand: Vec<[u32; 2]>,
    /// Scratch space of the contour tests.
    cone_scratch: Scratch,
}

impl<'a> Walker<'a> {
    pub(super) fn new(scene: &'a DeformingScene, output: Mode) -> Self {
        let mut w = Self::new_bare(scene, output);
        w.cand = vec![[0, 0]; 64 * 64];
        w
    }

    /// A walker without its candidate buffer (to be given one).
    fn new_bare(scene: &'a DeformingScene, output: Mode) -> Self {
        let margin = scene.options.la.tolerance + scene.round_off;
        Self {
            scene,
            output,
            best: 1.0,
            contacts: Vec::new(),
            resting: Vec::new(),
            stats: SceneStats::default(),
            stack: Vec::with_capacity(128),
            bv_margin: kdop_margin(margin),
            box_margin: margin,
            done: false,
            shared: None,
            since_sync: 0,
            cand: Vec::new(),
            cone_scratch: Scratch::default(),
        }
    }

    /// Takes the other workers' best ToC and stop flag.
    #[inline]
    fn sync(&mut self) {
        self.since_sync = 0;
        if let Some(sh) = self.shared {
            if sh.stop.load(Ordering::Relaxed) {
                self.done = true;
            }
            self.tighten(f64::from_bits(sh.best.load(Ordering::Relaxed)));
        }
    }

    /// The root tasks of the scene: every mesh pair and every mesh against itself.
    pub(super) fn roots(&mut self) -> Vec<Task> {
        let n = self.scene.meshes.len() as u32;
        let mut roots = Vec::new();
        for ma in 0..n {
            if self.scene.meshes[ma as usize].triangle_count() == 0 {
                continue;
            }
            if self.scene.self_collides(ma as usize) {
                roots.push(Task::Within { mesh: ma, node: 0 });
            }
            for mb in ma + 1..n {
                if self.scene.meshes[mb as usize].triangle_count() == 0
                    || !self.scene.pair_collides(ma, mb)
                {
                    continue;
                }
                if self.node_toc(ma, 0, mb, 0).is_some() {
                    roots.push(Task::Pair {
                        ma,
                        na: 0,
                        mb,
                        nb: 0,
                    });
                }
            }
        }
        roots
    }

    /// Lower bound on the ToC of two nodes' contents, `None` when they cannot touch before
    /// `best`.
    #[inline]
    fn node_toc(&mut self, ma: u32, na: u32, mb: u32, nb: u32) -> Option<f64> {
        self.stats.bv_tests += 1;
        let (a, b) = (&self.scene.bvhs[ma as usize], &self.scene.bvhs[mb as usize]);
        let h = self.scene.options.layer_height;
        // the swept k-DOPs first (18 compares): the moving test only runs on pairs they keep
        let swept = kdop_overlap(a.bvh.node(na).bv(), b.bvh.node(nb).bv(), &self.bv_margin);
        let r = if !swept {
            None
        } else if self.scene.options.moving_bounds
            && a.height[na as usize] <= h
            && b.height[nb as usize] <= h
        {
            let (pa, pb) = (&a.pair[na as usize], &b.pair[nb as usize]);
            kdop_toc_unchecked(&pa[0], &pa[1], &pb[0], &pb[1], &self.bv_margin, self.best)
        } else {
            Some(0.0)
        };
        if r.is_none() {
            self.stats.culled_bv_pairs += 1;
        }
        r
    }

    /// The work done so far, in the units of [`SceneOptions::serial_work`]
    /// ([`work_units`]).
    ///
    /// [`SceneOptions::serial_work`]: super::SceneOptions::serial_work
    fn work(&self) -> u64 {
        work_units(&self.stats)
    }

    /// Runs `roots` in the serial order until `budget` units of work are done (looked at
    /// after every task); returns the tasks left (independent subtrees), empty when the query
    /// is complete. The split point depends on the scene alone, not on timing.
    #[cfg_attr(not(feature = "parallel"), allow(dead_code))]
    pub(super) fn run_budget(&mut self, roots: Vec<Task>, budget: u64) -> Vec<Task> {
        self.stack.extend(roots.into_iter().rev());
        let start = self.work();
        // bounded by the query's work: every task is popped once
        while budget > 0
            && let Some(task) = self.stack.pop()
        {
            if self.done {
                self.stack.clear();
                break;
            }
            match task {
                Task::Within { mesh, node } => self.within(mesh, node),
                Task::Pair { ma, na, mb, nb } => self.pair(ma, na, mb, nb),
            }
            if self.work() - start >= budget {
                break;
            }
        }
        // the stack pops from the end: hand the tasks over in the serial order
        let mut rest = std::mem::take(&mut self.stack);
        rest.reverse();
        rest
    }

    /// Runs `task` and everything below it.
    pub(super) fn run_task(&mut self, task: Task) {
        self.stack.push(task);
        while let Some(task) = self.stack.pop() {
            self.since_sync += 1;
            if self.since_sync >= 64 {
                self.sync();
            }
            if self.done {
                self.stack.clear();
                return;
            }
            match task {
                Task::Within { mesh, node } => self.within(mesh, node),
                Task::Pair { ma, na, mb, nb } => self.pair(ma, na, mb, nb),
            }
        }
    }

    fn within(&mut self, mesh: u32, node: u32) {
        let scene = self.scene;
        let hb = &scene.bvhs[mesh as usize];
        // a single leaf's features are cheaper to pair than to certify
        if scene.options.normal_cones
            && !hb.bvh.node(node).is_leaf()
            && hb.patches.certified(
                node as usize,
                &scene.meshes[mesh as usize],
                hb.bvh.node_primitives(node),
                &hb.pair[node as usize],
                self.box_margin,
                &mut self.cone_scratch,
            )
        {
            self.stats.certificate_items += std::mem::take(&mut self.cone_scratch.work);
            self.stats.patches_skipped += 1;
            return;
        }
        self.stats.certificate_items += std::mem::take(&mut self.cone_scratch.work);
        let bvh = &hb.bvh;
        match bvh.node(node).children() {
            None => self.within_leaf(mesh, node),
            Some([l, r]) => {
                if self.node_toc(mesh, l, mesh, r).is_some() {
                    self.stack.push(Task::Pair {
                        ma: mesh,
                        na: l,
                        mb: mesh,
                        nb: r,
                    });
                }
                self.stack.push(Task::Within { mesh, node: r });
                self.stack.push(Task::Within { mesh, node: l });
            }
        }
    }

    fn pair(&mut self, ma: u32, na: u32, mb: u32, nb: u32) {
        let (a, b) = (
            &self.scene.bvhs[ma as usize].bvh,
            &self.scene.bvhs[mb as usize].bvh,
        );
        let (node_a, node_b) = (a.node(na), b.node(nb));
        // (two leaves are cheaper to pair than to certify)
        if ma == mb
            && self.scene.options.normal_cones
            && !(node_a.is_leaf() && node_b.is_leaf())
            && self.scene.bvhs[ma as usize].patches.pair_certified(
                na as usize,
                nb as usize,
                &self.scene.meshes[ma as usize],
                self.box_margin,
                &mut self.cone_scratch,
            )
        {
            self.stats.certificate_items += std::mem::take(&mut self.cone_scratch.work);
            self.stats.patches_skipped += 1;
            return;
        }
        self.stats.certificate_items += std::mem::take(&mut self.cone_scratch.work);
        let split_a = match (node_a.children(), node_b.children()) {
            (None, None) => {
                self.leaf_pair(ma, na, mb, nb);
                return;
            }
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (Some(_), Some(_)) => node_a.primitive_count() >= node_b.primitive_count(),
        };
        let (c0, c1) = if split_a {
            let [l, r] = node_a.children().unwrap_or_default();
            ((ma, l, mb, nb), (ma, r, mb, nb))
        } else {
            let [l, r] = node_b.children().unwrap_or_default();
            ((ma, na, mb, l), (ma, na, mb, r))
        };
        let t0 = self.node_toc(c0.0, c0.1, c0.2, c0.3);
        let t1 = self.node_toc(c1.0, c1.1, c1.2, c1.3);
        let task = |c: (u32, u32, u32, u32)| Task::Pair {
            ma: c.0,
            na: c.1,
            mb: c.2,
            nb: c.3,
        };
        // the pair with the earlier bound is popped first
        match (t0, t1) {
            (Some(x), Some(y)) => {
                if x <= y {
                    self.stack.push(task(c1));
                    self.stack.push(task(c0));
                } else {
                    self.stack.push(task(c0));
                    self.stack.push(task(c1));
                }
            }
            (Some(_), None) => self.stack.push(task(c0)),
            (None, Some(_)) => self.stack.push(task(c1)),
            (None, None) => {}
        }
    }

    /// The features of one leaf against each other (self-collision): every owned vertex
    /// against every face, every pair of owned edges.
    fn within_leaf(&mut self, mesh: u32, node: u32) {
        if self.done {
            return;
        }
        let scene = self.scene;
        let h = &scene.bvhs[mesh as usize];
        let (fr, vr, er) = h.leaf_features(h.bvh.node(node).primitive_range());
        self.stats.leaf_pairs += 1;
        let mut cand = std::mem::take(&mut self.cand);
        let (mf, mv, me) = (low_bits(fr.len()), low_bits(vr.len()), low_bits(er.len()));
        let n = collect_vf(&mut cand, h, vr.start, mv, h, fr.start, mf, true);
        self.run_vf(mesh, mesh, &cand[..n]);
        let mut n = 0;
        for k in 0..er.len() {
            // edges after k only
            let later = me & !low_bits(k + 1);
            n = collect_ee(&mut cand, n, h, er.start + k, h, er.start, later, true);
        }
        self.run_ee(mesh, mesh, &cand[..n]);
        self.cand = cand;
    }

    /// Two leaves (of one mesh or of two): each side's features are first selected by the
    /// other leaf's box, then owned vertices of either side meet faces of the other and owned
    /// edges meet owned edges.
    fn leaf_pair(&mut self, ma: u32, na: u32, mb: u32, nb: u32) {
        if self.done {
            return;
        }
        let scene = self.scene;
        let (ha, hb) = (&scene.bvhs[ma as usize], &scene.bvhs[mb as usize]);
        let (box_a, box_b) = (&ha.node_box[na as usize], &hb.node_box[nb as usize]);
        let (fa, va, ea) = ha.leaf_features(ha.bvh.node(na).primitive_range());
        let (fb, vb, eb) = hb.leaf_features(hb.bvh.node(nb).primitive_range());
        self.stats.leaf_pairs += 1;
        let same = ma == mb;
        let m_fa = mask(&ha.face_box[fa.clone()], box_b);
        let m_va = mask(&ha.vert_box[va.clone()], box_b);
        let m_ea = mask(&ha.edge_box[ea.clone()], box_b);
        let m_fb = mask(&hb.face_box[fb.clone()], box_a);
        let m_vb = mask(&hb.vert_box[vb.clone()], box_a);
        let m_eb = mask(&hb.edge_box[eb.clone()], box_a);
        let mut cand = std::mem::take(&mut self.cand);
        let n = collect_vf(&mut cand, ha, va.start, m_va, hb, fb.start, m_fb, same);
        self.run_vf(ma, mb, &cand[..n]);
        let n = collect_vf(&mut cand, hb, vb.start, m_vb, ha, fa.start, m_fa, same);
        self.run_vf(mb, ma, &cand[..n]);
        let (mut n, mut m) = (0, m_ea);
        while m != 0 {
            let i = ea.start + m.trailing_zeros() as usize;
            m &= m - 1;
            n = collect_ee(&mut cand, n, ha, i, hb, eb.start, m_eb, same);
        }
        self.run_ee(ma, mb, &cand[..n]);
        self.cand = cand;
    }

    /// Runs the vertex–face candidates `(vertex item, face item)` of meshes `mv` / `mf`.
    fn run_vf(&mut self, mv: u32, mf: u32, cand: &[[u32; 2]]) {
        for &[v, f] in cand {
            if self.done {
                return;
            }
            self.vertex_face(mv, v as usize, mf, f as usize);
        }
    }

    /// Runs the edge–edge candidates `(edge item of ma, edge item of mb)`.
    fn run_ee(&mut self, ma: u32, mb: u32, cand: &[[u32; 2]]) {
        for &[i, j] in cand {
            if self.done {
                return;
            }
            self.edge_edge(ma, i as usize, mb, j as usize);
        }
    }

    /// Owned vertex `v` of mesh `mv` against face `f` of mesh `mf` (item indices, a
    /// [`collect_vf`] candidate): moving-box cull, then the elementary test.
    fn vertex_face(&mut self, mv: u32, v: usize, mf: u32, f: usize) {
        let scene = self.scene;
        let (hv, hf) = (&scene.bvhs[mv as usize], &scene.bvhs[mf as usize]);
        let (vi, fi) = (&hv.verts[v], &hf.faces[f]);
        let tri_box =
            |p: &[DVec3; 3]| Aabb::new(p[0].min(p[1]).min(p[2]), p[0].max(p[1]).max(p[2]));
        if scene.options.moving_bounds
            && aabb_toc_unchecked(
                &Aabb::new(vi.p0, vi.p0),
                &Aabb::new(vi.p1, vi.p1),
                &tri_box(&fi.p0),
                &tri_box(&fi.p1),
                self.box_margin,
                self.best,
            )
            .is_none()
        {
            self.stats.culled_bv_pairs += 1;
            return;
        }
        let x0 = [vi.p0, fi.p0[0], fi.p0[1], fi.p0[2]];
        let x1 = [vi.p1, fi.p1[0], fi.p1[1], fi.p1[2]];
        self.stats.primitive_tests += 1;
        let (hit, rest) =
            vertex_face_resting(scene.options.kernel, &x0, &x1, self.best, &scene.options);
        let (fa, fb) = (Feature::Vertex(vi.id), Feature::Face(fi.id));
        if let Some(r) = rest {
            self.resting.push(contact(mv, fa, mf, fb, &r));
        }
        if let Some(p) = hit {
            self.report(contact(mv, fa, mf, fb, &p));
        }
    }

    /// Owned edge `i` of mesh `ma` against owned edge `j` of mesh `mb` (item indices, a
    /// [`collect_ee`] candidate): moving-box cull, then the elementary test in a canonical
    /// point order.
    fn edge_edge(&mut self, ma: u32, i: usize, mb: u32, j: usize) {
        let scene = self.scene;
        let (ha, hb) = (&scene.bvhs[ma as usize], &scene.bvhs[mb as usize]);
        let (a, b) = (&ha.edges[i], &hb.edges[j]);
        let seg = |p: &[DVec3; 2]| Aabb::new(p[0].min(p[1]), p[0].max(p[1]));
        if scene.options.moving_bounds
            && aabb_toc_unchecked(
                &seg(&a.p0),
                &seg(&a.p1),
                &seg(&b.p0),
                &seg(&b.p1),
                self.box_margin,
                self.best,
            )
            .is_none()
        {
            self.stats.culled_bv_pairs += 1;
            return;
        }
        // canonical order (lower (mesh, edge) first; each edge low vertex first), so the
        // kernel sees the same points as in the brute-force reference
        let (ma, a, mb, b) = if (ma, a.ends) <= (mb, b.ends) {
            (ma, a, mb, b)
        } else {
            (mb, b, ma, a)
        };
        let x0 = [a.p0[0], a.p0[1], b.p0[0], b.p0[1]];
        let x1 = [a.p1[0], a.p1[1], b.p1[0], b.p1[1]];
        self.stats.primitive_tests += 1;
        let (hit, rest) =
            edge_edge_resting(scene.options.kernel, &x0, &x1, self.best, &scene.options);
        let (fa, fb) = (
            Feature::Edge(a.ends[0], a.ends[1]),
            Feature::Edge(b.ends[0], b.ends[1]),
        );
        if let Some(r) = rest {
            self.resting.push(contact(ma, fa, mb, fb, &r));
        }
        if let Some(p) = hit {
            self.report(contact(ma, fa, mb, fb, &p));
        }
    }

    fn report(&mut self, c: SceneContact) {
        if c.status == Status::OutOfIterations {
            self.stats.capped += 1;
        }
        match self.output {
            Mode::Toc => {
                if self.contacts.first().is_none_or(|best| c.toc < best.toc) {
                    self.best = c.toc;
                    self.contacts.clear();
                    self.contacts.push(c);
                    // nothing can come before t = 0
                    self.done = c.toc <= 0.0;
                }
            }
            Mode::All => self.contacts.push(c),
            Mode::Boolean => {
                self.contacts.push(c);
                self.done = true;
            }
        }
        if let Some(sh) = self.shared {
            if self.output == Mode::Toc {
                sh.best.fetch_min(self.best.to_bits(), Ordering::Relaxed);
            }
            if self.done {
                sh.stop.store(true, Ordering::Relaxed);
            }
        }
    }

    /// Lowers the bound of interest (from other workers' findings).
    #[cfg_attr(not(feature = "parallel"), allow(dead_code))]
    pub(super) fn tighten(&mut self, best: f64) {
        if best < self.best {
            self.best = best;
        }
    }

    #[cfg_attr(not(feature = "parallel"), allow(dead_code))]
    pub(super) fn best(&self) -> f64 {
        self.best
    }

    pub(super) fn finish(mut self) -> SceneResult {
        sort_contacts(&mut self.contacts);
        super::sort_resting(&mut self.resting);
        SceneResult {
            resting: self.resting,
            contacts: self.contacts,
            stats: self.stats,
        }
    }

    /// Hands over what this walker found so far (unsorted), keeping its scratch space.
    #[cfg_attr(not(feature = "parallel"), allow(dead_code))]
    pub(super) fn take_part(&mut self) -> SceneResult {
        SceneResult {
            contacts: std::mem::take(&mut self.contacts),
            resting: std::mem::take(&mut self.resting),
            stats: std::mem::take(&mut self.stats),
        }
    }

    /// Merges another worker's findings into this one.
    #[cfg_attr(not(feature = "parallel"), allow(dead_code))]
    pub(super) fn absorb(&mut self, other: SceneResult) {
        let s = &mut self.stats;
        s.bv_tests += other.stats.bv_tests;
        s.culled_bv_pairs += other.stats.culled_bv_pairs;
        s.leaf_pairs += other.stats.leaf_pairs;
        s.primitive_tests += other.stats.primitive_tests;
        s.capped += other.stats.capped;
        s.patches_skipped += other.stats.patches_skipped;
        s.certificate_items += other.stats.certificate_items;
        self.resting.extend(other.resting);
        for c in other.contacts {
            // `capped` was counted by the worker already
            match self.output {
                Mode::Toc => {
                    if self.contacts.first().is_none_or(|best| c.toc < best.toc) {
                        self.best = c.toc;
                        self.contacts.clear();
                        self.contacts.push(c);
                    }
                }
                Mode::All => self.contacts.push(c),
                Mode::Boolean => {
                    if self.contacts.is_empty() {
                        self.contacts.push(c);
                    }
                    self.done = true;
                }
            }
        }
    }
}

/// Bit `k` set when `boxes[k]` overlaps `o` (at most 64 boxes: leaves hold at most
/// [`MAX_LEAF_SIZE`](super::MAX_LEAF_SIZE) triangles, so at most 48 features of a kind).
#[inline]
fn mask(boxes: &[Box32], o: &Box32) -> u64 {
    let mut m = 0;
    for (k, b) in boxes.iter().take(64).enumerate() {
        m |= u64::from(b.overlaps(o)) << k;
    }
    m
}

/// The `len` lowest bits.
#[inline]
fn low_bits(len: usize) -> u64 {
    if len >= 64 {
        u64::MAX
    } else {
        (1u64 << len) - 1
    }
}

/// Writes to `out` the pairs (owned vertex `v0 + k` of `hv` for bits `k` of `mv`, face
/// `f0 + l` of `hf` for bits `l` of `mf`) whose swept boxes overlap, skipping (within one
/// mesh, `same`) faces that contain the vertex; returns their count. Branch-free compaction:
/// every pair is written, and counted when it passes. `out` has room for 64 × 64 pairs.
#[inline]
#[allow(clippy::too_many_arguments)]
fn collect_vf(
    out: &mut [[u32; 2]],
    hv: &HybridBvh,
    v0: usize,
    mut mv: u64,
    hf: &HybridBvh,
    f0: usize,
    mf: u64,
    same: bool,
) -> usize {
    let mut n = 0;
    while mv != 0 {
        let v = v0 + mv.trailing_zeros() as usize;
        mv &= mv - 1;
        let (bv, id) = (&hv.vert_box[v], hv.vert_ids[v]);
        let mut m = mf;
        while m != 0 {
            let f = f0 + m.trailing_zeros() as usize;
            m &= m - 1;
            let fv = hf.face_verts[f];
            let adjacent = same & ((fv[0] == id) | (fv[1] == id) | (fv[2] == id));
            let keep = bv.overlaps(&hf.face_box[f]) & !adjacent;
            out[n] = [v as u32, f as u32];
            n += usize::from(keep);
        }
    }
    n
}

/// Writes to `out[n..]` the pairs (owned edge `i` of `ha`, owned edge `e0 + l` of `hb` for
/// bits `l` of `me`) whose swept boxes overlap, skipping (within one mesh, `same`) edges that
/// share an endpoint; returns the new count (as [`collect_vf`]).
#[inline]
#[allow(clippy::too_many_arguments)]
fn collect_ee(
    out: &mut [[u32; 2]],
    mut n: usize,
    ha: &HybridBvh,
    i: usize,
    hb: &HybridBvh,
    e0: usize,
    mut me: u64,
    same: bool,
) -> usize {
    let (bi, [p, q]) = (&ha.edge_box[i], ha.edge_ends[i]);
    while me != 0 {
        let j = e0 + me.trailing_zeros() as usize;
        me &= me - 1;
        let [r, s] = hb.edge_ends[j];
        let adjacent = same & ((p == r) | (p == s) | (q == r) | (q == s));
        let keep = bi.overlaps(&hb.edge_box[j]) & !adjacent;
        out[n] = [i as u32, j as u32];
        n += usize::from(keep);
    }
    n
}

/// The work a parallel query does serially before it splits ([`SceneOptions::serial_work`],
/// times [`schedule::BOOLEAN_SERIAL_FACTOR`] for a Boolean query).
#[cfg_attr(not(feature = "parallel"), allow(dead_code))]
fn serial_budget(options: &SceneOptions, output: Mode) -> u64 {
    let factor = match output {
        Mode::Boolean => schedule::BOOLEAN_SERIAL_FACTOR,
        Mode::Toc | Mode::All => 1,
    };
    u64::from(options.serial_work) * u64::from(factor)
}

/// Runs a whole query (sequentially, or on rayon's pool with the `parallel` feature).
pub(super) fn run(scene: &DeformingScene, output: Mode) -> SceneResult {
    let mut w = Walker::new(scene, output);
    let roots = w.roots();
    #[cfg(feature = "parallel")]
    if scene.options.parallel && rayon::current_num_threads() > 1 {
        let rest = w.run_budget(roots, serial_budget(&scene.options, output));
        if rest.is_empty() || w.done {
            return w.finish();
        }
        return schedule::parallel::run(w, rest);
    }
    for t in roots {
        w.run_task(t);
    }
    w.finish()
}
