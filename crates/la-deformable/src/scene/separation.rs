//! The separation-preserving step size of a scene ([`DeformingScene::separation_step`]): the largest
//! `t ∈ [0, 1]` such that every vertex–face and edge–edge pair the scene tests stays at
//! distance `≥ max(δ_min, s·d₀)` on `[0, t]` (the step-size rule of IPC-family simulators).
//!
//! The traversal walks the same hybrid BVHs as [`DeformingScene::query`] but culls with a bound of its
//! own: for two nodes with boxes `A₀`, `B₀` at `t = 0` (gap `g₀ = dist(A₀, B₀)`) and boxes
//! `D_A`, `D_B` of their vertices' displacements, every pair below them starts at
//! `d₀ ≥ g₀` and its distance shrinks by at most `μ = max |D_B − D_A|` per unit time
//! (`d(t) ≥ d₀ − μt`), so no pair below them can break its target before
//! `t_node = min((1 − s)·g₀, g₀ − δ_min) / μ` (when `g₀ > δ_min`; else `0` unless `μ = 0`).
//! Node pairs with `t_node ≥` the best step so far are skipped; feature pairs get the same
//! test with their own boxes, then the separation kernel (see `kernels::separation`), which
//! runs with the best step so far as its horizon.

use ccd_geometry::Feature;
use ccd_geometry::glam::DVec3;

use super::{DeformingScene, SceneStats};
use crate::kernels::separation::{SeparationHit, edge_edge_separation, vertex_face_separation};
use crate::{DEFAULT_MAX_ITERATIONS, LaError, Status};

/// Default `s` of [`SeparationOptions`]: pairs keep at least a fifth of their distance at
/// `t = 0`, which is the IPC Toolkit's default (its conservative rescaling 0.8 lets a pair
/// close 80% of its gap).
pub const DEFAULT_SEPARATION_SCALE: f64 = 0.2;

/// Default [`SeparationOptions::rel_tolerance`].
pub const DEFAULT_SEPARATION_TOLERANCE: f64 = 1e-3;

/// The rule of a separation-preserving step ([`DeformingScene::separation_step`]).
///
/// Every vertex–face and edge–edge pair with distance `d₀` at `t = 0` must stay at distance
/// `≥ τ(d₀)` over the step, with
/// - `τ = max(δ_min, s·d₀)` when `d₀ > δ_min` (`δ_min` = [`min_distance`](Self::min_distance),
///   `s` = [`scale`](Self::scale));
/// - `τ = s·d₀` when `0 < d₀ ≤ δ_min`: a pair already closer than `δ_min` may not come closer
///   than the fraction `s` of its distance (the step does not stall on it; pushing it back
///   out is the simulator's barrier's job);
/// - a pair at distance `0` at `t = 0` (touching, intersecting, or coincident vertices) whose
///   features move relative to each other makes the step `0` (even when they move apart: the
///   state is already in contact), and is reported as the limiting pair with
///   [`Status::InitiallyTouching`]; with no relative motion at all its distance stays `0`
///   and it does not limit the step.
///
/// # Example
/// ```
/// use ccd_la_deformable::scene::SeparationOptions;
///
/// let rule = SeparationOptions::default().with_min_distance(1e-4).with_scale(0.1);
/// assert!(rule.validate().is_ok());
/// assert!(SeparationOptions::default().with_scale(1.0).validate().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct SeparationOptions {
    /// `δ_min ≥ 0`: the absolute minimum separation (default `0`).
    pub min_distance: f64,
    /// `s ∈ (0, 1)`: the fraction of its distance at `t = 0` a pair keeps (default
    /// [`DEFAULT_SEPARATION_SCALE`]).
    pub scale: f64,
    /// `∈ (0, 1)`: a pair's advancement stops once its distance is within
    /// `rel_tolerance · (d₀ − τ)` of its target (default
    /// [`DEFAULT_SEPARATION_TOLERANCE`]); smaller is closer to the exact largest step and
    /// slower. Never affects safety.
    pub rel_tolerance: f64,
    /// Cap on distance evaluations per pair; hitting it ends that pair's advancement early
    /// (a smaller, still safe step) and is counted in [`SceneStats::capped`].
    pub max_iterations: u32,
}

impl Default for SeparationOptions {
    fn default() -> Self {
        Self {
            min_distance: 0.0,
            scale: DEFAULT_SEPARATION_SCALE,
            rel_tolerance: DEFAULT_SEPARATION_TOLERANCE,
            max_iterations: DEFAULT_MAX_ITERATIONS,
        }
    }
}

impl SeparationOptions {
    /// The same rule with another `δ_min`.
    #[must_use]
    pub fn with_min_distance(mut self, min_distance: f64) -> Self {
        self.min_distance = min_distance;
        self
    }

    /// The same rule with another `s`.
    #[must_use]
    pub fn with_scale(mut self, scale: f64) -> Self {
        self.scale = scale;
        self
    }

    /// The same rule with another stopping tolerance.
    #[must_use]
    pub fn with_rel_tolerance(mut self, rel_tolerance: f64) -> Self {
        self.rel_tolerance = rel_tolerance;
        self
    }

    /// The same rule with another iteration cap.
    #[must_use]
    pub fn with_max_iterations(mut self, max_iterations: u32) -> Self {
        self.max_iterations = max_iterations;
        self
    }

    /// Checks the rule.
    ///
    /// # Errors
    /// [`LaError::InvalidOption`] for `δ_min` negative or not finite, `s` or `rel_tolerance`
    /// outside `(0, 1)`; [`LaError::NoIterations`] for a zero cap.
    pub fn validate(&self) -> Result<(), LaError> {
        if !(self.min_distance.is_finite() && self.min_distance >= 0.0) {
            return Err(LaError::InvalidOption(format!(
                "min_distance must be finite and >= 0, not {}",
                self.min_distance
            )));
        }
        if !(self.scale > 0.0 && self.scale < 1.0) {
            return Err(LaError::InvalidOption(format!(
                "scale must be in (0, 1), not {}",
                self.scale
            )));
        }
        if !(self.rel_tolerance > 0.0 && self.rel_tolerance < 1.0) {
            return Err(LaError::InvalidOption(format!(
                "rel_tolerance must be in (0, 1), not {}",
                self.rel_tolerance
            )));
        }
        if self.max_iterations == 0 {
            return Err(LaError::NoIterations);
        }
        Ok(())
    }
}

/// The pair that limits a separation-preserving step.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct SeparationPair {
    /// Mesh of `feature_a`.
    pub mesh_a: u32,
    /// A vertex (vertex–face) or an edge (edge–edge).
    pub feature_a: Feature,
    /// Mesh of `feature_b`.
    pub mesh_b: u32,
    /// A face or an edge.
    pub feature_b: Feature,
    /// Distance at `t = 0`.
    pub distance0: f64,
    /// The separation `τ` it must keep ([`SeparationOptions`]).
    pub target: f64,
    /// Distance at the pair's last iterate (at or just before the step).
    pub distance: f64,
    /// `Converged`, `InitiallyTouching` (step 0) or `OutOfIterations` (the cap or no certified
    /// progress ended the pair's advancement: the step is safe but may be shorter than the
    /// largest).
    pub status: Status,
}

/// A separation-preserving step ([`DeformingScene::separation_step`]).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct SeparationStep {
    /// The step `t ∈ [0, 1]`: every pair stays at distance `≥ τ` on `[0, t]`.
    pub step: f64,
    /// The pair that limits it; `None` when the step is `1` because no pair limits it.
    pub limiting: Option<SeparationPair>,
    /// Counters (`primitive_tests`: pairs run through the kernel; `capped`: pairs whose
    /// advancement ended at the cap).
    pub stats: SceneStats,
}

/// Box at `t = 0` and box of the displacements `x1 − x0` of a node's vertices.
#[derive(Debug, Clone, Copy)]
pub(super) struct Motion {
    pub(super) lo: DVec3,
    pub(super) hi: DVec3,
    pub(super) dlo: DVec3,
    pub(super) dhi: DVec3,
}

impl Motion {
    pub(super) const EMPTY: Self = Self {
        lo: DVec3::INFINITY,
        hi: DVec3::NEG_INFINITY,
        dlo: DVec3::INFINITY,
        dhi: DVec3::NEG_INFINITY,
    };

    #[inline]
    pub(super) fn add(&mut self, p0: DVec3, p1: DVec3) {
        let d = p1 - p0;
        self.lo = self.lo.min(p0);
        self.hi = self.hi.max(p0);
        self.dlo = self.dlo.min(d);
        self.dhi = self.dhi.max(d);
    }

    #[inline]
    pub(super) fn merge(&self, o: &Self) -> Self {
        Self {
            lo: self.lo.min(o.lo),
            hi: self.hi.max(o.hi),
            dlo: self.dlo.min(o.dlo),
            dhi: self.dhi.max(o.dhi),
        }
    }
}

/// The time before which no pair of points of `a` and `b` can break its target (see the
/// module docs); `round_off` is subtracted from the gap.
#[inline]
pub(super) fn bound(a: &Motion, b: &Motion, rule: &SeparationOptions, round_off: f64) -> f64 {
    let up = 1.0 + 8.0 * f64::EPSILON;
    let lo = b.dlo - a.dhi;
    let hi = b.dhi - a.dlo;
    let mu = lo.abs().max(hi.abs()).length() * up;
    if mu == 0.0 {
        return f64::INFINITY;
    }
    let gap = (a.lo - b.hi).max(b.lo - a.hi).max(DVec3::ZERO);
    let g0 = gap.length() * (1.0 - 8.0 * f64::EPSILON) - round_off;
    if g0.is_nan() || g0 <= rule.min_distance {
        return 0.0;
    }
    let room = ((1.0 - rule.scale) * g0).min(g0 - rule.min_distance);
    (room / mu) * (1.0 - 8.0 * f64::EPSILON)
}

/// A cheap sufficient test that [`bound`]`(a, b) ≥ best` (no square root, no division): the
/// gap on the most separating axis bounds `g₀` from below, the 1-norm of the displacement
/// box bounds `μ` from above.
#[inline(always)]
pub(super) fn cheap_cull(
    a: &Motion,
    b: &Motion,
    rule: &SeparationOptions,
    round_off: f64,
    best: f64,
) -> bool {
    let lo = b.dlo - a.dhi;
    let hi = b.dhi - a.dlo;
    let m = lo.abs().max(hi.abs());
    let mu = (m.x + m.y + m.z) * (1.0 + 8.0 * f64::EPSILON);
    let g = (a.lo - b.hi).max(b.lo - a.hi).max_element() * (1.0 - 8.0 * f64::EPSILON) - round_off;
    let reach = best * mu * (1.0 + 8.0 * f64::EPSILON);
    g > rule.min_distance && (1.0 - rule.scale) * g >= reach && g - rule.min_distance >= reach
}

impl SeparationOptions {
    /// The separation kernel of one vertex–face pair (`x = [vertex, f0, f1, f2]`) under
    /// this rule, searching below `best`.
    #[inline]
    pub(super) fn vertex_face(
        &self,
        x0: &[DVec3; 4],
        x1: &[DVec3; 4],
        best: f64,
    ) -> Option<SeparationHit> {
        vertex_face_separation(
            x0,
            x1,
            self.min_distance,
            self.scale,
            self.rel_tolerance,
            best,
            self.max_iterations,
        )
    }

    /// The separation kernel of one edge–edge pair (`x = [a0, a1, b0, b1]`) under this
    /// rule, searching below `best`.
    #[inline]
    pub(super) fn edge_edge(
        &self,
        x0: &[DVec3; 4],
        x1: &[DVec3; 4],
        best: f64,
    ) -> Option<SeparationHit> {
        edge_edge_separation(
            x0,
            x1,
            self.min_distance,
            self.scale,
            self.rel_tolerance,
            best,
            self.max_iterations,
        )
    }
}

/// Takes the kernel's answer `h` for the pair `(mesh_a, feature_a)`–`(mesh_b, feature_b)`
/// into a running search (the scene's and the one-shot one): counts a capped kernel, and
/// keeps the earliest step with its limiting pair.
pub(super) fn keep_earliest(
    h: SeparationHit,
    ((mesh_a, feature_a), (mesh_b, feature_b)): ((u32, Feature), (u32, Feature)),
    best: &mut f64,
    limiting: &mut Option<SeparationPair>,
    stats: &mut SceneStats,
) {
    if h.status == Status::OutOfIterations {
        stats.capped += 1;
    }
    if h.t < *best {
        *best = h.t.max(0.0);
        *limiting = Some(SeparationPair {
            mesh_a,
            feature_a,
            mesh_b,
            feature_b,
            distance0: h.distance0,
            target: h.target,
            distance: h.distance,
            status: h.status,
        });
    }
}

enum Task {
    Within { mesh: u32, node: u32 },
    Pair { ma: u32, na: u32, mb: u32, nb: u32 },
}

/// Motions of every node and feature item of one mesh's hierarchy.
struct Motions {
    node: Vec<Motion>,
    vert: Vec<Motion>,
    face: Vec<Motion>,
    edge: Vec<Motion>,
}

impl Motions {
    fn of(h: &super::hybrid::HybridBvh) -> Self {
        let n = h.bvh.node_count();
        let mut node = vec![Motion::EMPTY; n];
        let face: Vec<Motion> = h
            .faces
            .iter()
            .map(|f| {
                let mut b = Motion::EMPTY;
                for k in 0..3 {
                    b.add(f.p0[k], f.p1[k]);
                }
                b
            })
            .collect();
        for i in (0..n).rev() {
            let nd = h.bvh.node(i as u32);
            node[i] = match nd.children() {
                Some([l, r]) => node[l as usize].merge(&node[r as usize]),
                None => face[nd.primitive_range()]
                    .iter()
                    .fold(Motion::EMPTY, |a, b| a.merge(b)),
            };
        }
        let vert = h
            .verts
            .iter()
            .map(|v| {
                let mut b = Motion::EMPTY;
                b.add(v.p0, v.p1);
                b
            })
            .collect();
        let edge = h
            .edges
            .iter()
            .map(|e| {
                let mut b = Motion::EMPTY;
                b.add(e.p0[0], e.p1[0]);
                b.add(e.p0[1], e.p1[1]);
                b
            })
            .collect();
        Self {
            node,
            vert,
            face,
            edge,
        }
    }
}

struct Walker<'a> {
    scene: &'a DeformingScene,
    rule: SeparationOptions,
    motion: Vec<Motions>,
    best: f64,
    limiting: Option<SeparationPair>,
    stats: SceneStats,
    round_off: f64,
}

/// Runs the step query (`rule` validated).
pub(super) fn run(scene: &DeformingScene, rule: &SeparationOptions) -> SeparationStep {
    let motion = scene.bvhs.iter().map(Motions::of).collect();
    let mut w = Walker {
        scene,
        rule: *rule,
        motion,
        best: 1.0,
        limiting: None,
        stats: SceneStats::default(),
        round_off: scene.round_off,
    };
    let n = scene.meshes.len() as u32;
    let mut stack = Vec::with_capacity(128);
    for ma in 0..n {
        if scene.meshes[ma as usize].triangle_count() == 0 {
            continue;
        }
        if scene.self_collides(ma as usize) {
            stack.push(Task::Within { mesh: ma, node: 0 });
        }
        for mb in ma + 1..n {
            if scene.meshes[mb as usize].triangle_count() > 0 && scene.pair_collides(ma, mb) {
                stack.push(Task::Pair {
                    ma,
                    na: 0,
                    mb,
                    nb: 0,
                });
            }
        }
    }
    while let Some(task) = stack.pop() {
        if w.best <= 0.0 {
            break;
        }
        match task {
            Task::Within { mesh, node } => w.within(mesh, node, &mut stack),
            Task::Pair { ma, na, mb, nb } => w.pair(ma, na, mb, nb, &mut stack),
        }
    }
    SeparationStep {
        step: w.best,
        limiting: w.limiting,
        stats: w.stats,
    }
}

impl Walker<'_> {
    fn node_bound(&mut self, ma: u32, na: u32, mb: u32, nb: u32) -> f64 {
        self.stats.bv_tests += 1;
        let t = bound(
            &self.motion[ma as usize].node[na as usize],
            &self.motion[mb as usize].node[nb as usize],
            &self.rule,
            self.round_off,
        );
        if t >= self.best {
            self.stats.culled_bv_pairs += 1;
        }
        t
    }

    fn within(&mut self, mesh: u32, node: u32, stack: &mut Vec<Task>) {
        let bvh = &self.scene.bvhs[mesh as usize].bvh;
        match bvh.node(node).children() {
            None => self.leaf_pair(mesh, node, mesh, node),
            Some([l, r]) => {
                if self.node_bound(mesh, l, mesh, r) < self.best {
                    stack.push(Task::Pair {
                        ma: mesh,
                        na: l,
                        mb: mesh,
                        nb: r,
                    });
                }
                stack.push(Task::Within { mesh, node: r });
                stack.push(Task::Within { mesh, node: l });
            }
        }
    }

    fn pair(&mut self, ma: u32, na: u32, mb: u32, nb: u32, stack: &mut Vec<Task>) {
        // the best step may have shrunk since this pair was pushed
        let here = bound(
            &self.motion[ma as usize].node[na as usize],
            &self.motion[mb as usize].node[nb as usize],
            &self.rule,
            self.round_off,
        );
        if here >= self.best {
            return;
        }
        let (a, b) = (
            self.scene.bvhs[ma as usize].bvh.node(na),
            self.scene.bvhs[mb as usize].bvh.node(nb),
        );
        let split_a = match (a.children(), b.children()) {
            (None, None) => {
                self.leaf_pair(ma, na, mb, nb);
                return;
            }
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (Some(_), Some(_)) => a.primitive_count() >= b.primitive_count(),
        };
        let kids = if split_a {
            let [l, r] = a.children().unwrap_or_default();
            [(ma, l, mb, nb), (ma, r, mb, nb)]
        } else {
            let [l, r] = b.children().unwrap_or_default();
            [(ma, na, mb, l), (ma, na, mb, r)]
        };
        let t0 = self.node_bound(kids[0].0, kids[0].1, kids[0].2, kids[0].3);
        let t1 = self.node_bound(kids[1].0, kids[1].1, kids[1].2, kids[1].3);
        // the more urgent (smaller bound) popped first
        let order = if t0 <= t1 {
            [(1, t1), (0, t0)]
        } else {
            [(0, t0), (1, t1)]
        };
        for (k, t) in order {
            if t < self.best {
                let (ma, na, mb, nb) = kids[k];
                stack.push(Task::Pair { ma, na, mb, nb });
            }
        }
    }

    /// Every owned vertex of one leaf against the faces of the other (both ways) and every
    /// owned edge pair; `na == nb` within one mesh: the leaf against itself. Each side's
    /// features are first selected by their bound against the other leaf (64-bit masks).
    fn leaf_pair(&mut self, ma: u32, na: u32, mb: u32, nb: u32) {
        let scene = self.scene;
        let (ha, hb) = (&scene.bvhs[ma as usize], &scene.bvhs[mb as usize]);
        let (fa, va, ea) = ha.leaf_features(ha.bvh.node(na).primitive_range());
        let (fb, vb, eb) = hb.leaf_features(hb.bvh.node(nb).primitive_range());
        self.stats.leaf_pairs += 1;
        let same_mesh = ma == mb;
        let same_leaf = same_mesh && na == nb;
        let (mo_a, mo_b) = (&self.motion[ma as usize], &self.motion[mb as usize]);
        let (node_a, node_b) = (mo_a.node[na as usize], mo_b.node[nb as usize]);
        let (rule, round_off, best) = (self.rule, self.round_off, self.best);
        let select = |items: &[Motion], other: &Motion| -> u64 {
            let mut m = 0u64;
            for (k, it) in items.iter().take(64).enumerate() {
                m |= u64::from(!cheap_cull(it, other, &rule, round_off, best)) << k;
            }
            m
        };
        let m_va = select(&mo_a.vert[va.clone()], &node_b);
        let m_fa = select(&mo_a.face[fa.clone()], &node_b);
        let m_ea = select(&mo_a.edge[ea.clone()], &node_b);
        let (m_vb, m_fb, m_eb) = if same_leaf {
            (m_va, m_fa, m_ea)
        } else {
            (
                select(&mo_b.vert[vb.clone()], &node_a),
                select(&mo_b.face[fb.clone()], &node_a),
                select(&mo_b.edge[eb.clone()], &node_a),
            )
        };
        let bits = |mut m: u64, start: usize| {
            std::iter::from_fn(move || {
                (m != 0).then(|| {
                    let k = m.trailing_zeros() as usize;
                    m &= m - 1;
                    start + k
                })
            })
        };
        for v in bits(m_va, va.start) {
            for f in bits(m_fb, fb.start) {
                self.vertex_face(ma, v, mb, f, same_mesh);
            }
        }
        if !same_leaf {
            for v in bits(m_vb, vb.start) {
                for f in bits(m_fa, fa.start) {
                    self.vertex_face(mb, v, ma, f, same_mesh);
                }
            }
        }
        for i in bits(m_ea, ea.start) {
            for j in bits(m_eb, eb.start) {
                if !same_leaf || j > i {
                    self.edge_edge(ma, i, mb, j, same_mesh);
                }
            }
        }
    }

    fn vertex_face(&mut self, mv: u32, v: usize, mf: u32, f: usize, same_mesh: bool) {
        if self.best <= 0.0 {
            return;
        }
        let scene = self.scene;
        let (vi, fi) = (
            &scene.bvhs[mv as usize].verts[v],
            &scene.bvhs[mf as usize].faces[f],
        );
        let fv = scene.bvhs[mf as usize].face_verts[f];
        if same_mesh && fv.contains(&vi.id) {
            return;
        }
        let (a, b) = (
            &self.motion[mv as usize].vert[v],
            &self.motion[mf as usize].face[f],
        );
        if bound(a, b, &self.rule, self.round_off) >= self.best {
            self.stats.culled_bv_pairs += 1;
            return;
        }
        let x0 = [vi.p0, fi.p0[0], fi.p0[1], fi.p0[2]];
        let x1 = [vi.p1, fi.p1[0], fi.p1[1], fi.p1[2]];
        self.stats.primitive_tests += 1;
        if let Some(h) = self.rule.vertex_face(&x0, &x1, self.best) {
            self.record(h, mv, Feature::Vertex(vi.id), mf, Feature::Face(fi.id));
        }
    }

    fn edge_edge(&mut self, ma: u32, i: usize, mb: u32, j: usize, same_mesh: bool) {
        if self.best <= 0.0 {
            return;
        }
        let scene = self.scene;
        let (a, b) = (
            &scene.bvhs[ma as usize].edges[i],
            &scene.bvhs[mb as usize].edges[j],
        );
        if same_mesh && a.ends.iter().any(|e| b.ends.contains(e)) {
            return;
        }
        let (ba, bb) = (
            &self.motion[ma as usize].edge[i],
            &self.motion[mb as usize].edge[j],
        );
        if bound(ba, bb, &self.rule, self.round_off) >= self.best {
            self.stats.culled_bv_pairs += 1;
            return;
        }
        // canonical order, as the contact query
        let (ma, a, mb, b) = if (ma, a.ends) <= (mb, b.ends) {
            (ma, a, mb, b)
        } else {
            (mb, b, ma, a)
        };
        let x0 = [a.p0[0], a.p0[1], b.p0[0], b.p0[1]];
        let x1 = [a.p1[0], a.p1[1], b.p1[0], b.p1[1]];
        self.stats.primitive_tests += 1;
        if let Some(h) = self.rule.edge_edge(&x0, &x1, self.best) {
            self.record(
                h,
                ma,
                Feature::Edge(a.ends[0], a.ends[1]),
                mb,
                Feature::Edge(b.ends[0], b.ends[1]),
            );
        }
    }

    fn record(&mut self, h: SeparationHit, ma: u32, fa: Feature, mb: u32, fb: Feature) {
        let (best, limiting, stats) = (&mut self.best, &mut self.limiting, &mut self.stats);
        keep_earliest(h, ((ma, fa), (mb, fb)), best, limiting, stats);
    }
}
