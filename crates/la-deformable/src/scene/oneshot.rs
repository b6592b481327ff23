//! The one-shot separation-preserving step of one deforming mesh ([`separation_step`]): the
//! question of [`DeformingScene::separation_step`](super::DeformingScene::separation_step) for a mesh seen once
//! (the IPC Toolkit's `compute_collision_free_stepsize`), with a hierarchy built for this
//! single query.
//!
//! A [`DeformingScene`](super::DeformingScene) builds what every query mode and every later refit needs: a
//! binned-SAH tree over swept 18-DOPs, the `t = 0` / `t = 1` 18-DOP pair of every node,
//! inflated `f32` boxes of every feature. The step needs none of them: its culling bound
//! (see [`super::separation`]) reads only each node's box at `t = 0` and the box of its
//! vertices' displacements. So this module builds just that:
//!
//! - the tree: the triangles sorted by the Morton code of their centre at `t = 0` (10 bits
//!   per axis; one sort of `u64` keys), split top-down at the highest bit in which a node's
//!   first and last codes differ (in the middle when they are equal), down to leaves of at
//!   most [`LEAF_SIZE`] triangles; each node keeps its [`Motion`] (boxes of `x0` and of
//!   `x1 − x0`). Measured on cloth-funnel against a median split of the centres
//!   (`select_nth` per level): a third more leaf pairs to visit, but a build so much cheaper
//!   that the whole call takes 11% fewer instructions (132M against 149M);
//! - the features in leaf order: every triangle's face, and the vertices and edges it owns
//!   ([`DeformingMesh::owned_features`]), as vertex ids and motions (the positions are read
//!   from the mesh when a pair reaches the kernel), so that every vertex–face and edge–edge
//!   pair of the mesh sits under exactly one leaf pair.
//!
//! The traversal is the one of [`DeformingScene::separation_step`](super::DeformingScene::separation_step) for
//! one mesh against itself (the same pairs: every vertex–face and edge–edge pair that shares
//! no vertex), with the same pair bounds and kernel. In a leaf pair, a feature is selected
//! unless its box at `t = 0` keeps, on some axis, the gap that the two leaves' displacement
//! boxes could close before the best step so far ([`cull_gap`], one gap test per feature
//! instead of a bound per feature and leaf). Only the tree and this selection differ, so the
//! step is the scene's up to which pairs happen to shrink it first: a pair culled in one
//! traversal because its bound exceeds the best step at that moment may run the kernel in
//! the other, whose answer can lie a stopping tolerance below that bound. Either answer is
//! safe (tested against the dense reference in `tests/separation.rs`); on the five
//! Scalable-CCD frames and the tests the two are equal.

use std::ops::Range;

use ccd_geometry::Feature;
use ccd_geometry::glam::DVec3;

use super::SceneStats;
use super::separation::{
    Motion, SeparationOptions, SeparationPair, SeparationStep, bound, cheap_cull, keep_earliest,
};
use crate::kernels::separation::SeparationHit;
use crate::{DeformingMesh, LaError, OWN_EDGE, OWN_VERTEX};

/// Triangles per leaf of the one-shot tree (a leaf's features then fit the 64-bit masks of
/// the leaf-pair test: at most `3 × 8` vertices or edges).
const LEAF_SIZE: usize = 8;

/// A node: its motion, its slots `first..first + count` of the leaf order, and its second
/// child (`0` for a leaf; the first child is the next node).
#[derive(Debug, Clone, Copy)]
struct Node {
    m: Motion,
    first: u32,
    count: u32,
    right: u32,
}

/// The one-shot hierarchy of one mesh: nodes (root `0`, pre-order) and the features in leaf
/// order. Positions are read from the mesh by vertex id (only the pairs that reach a kernel
/// need them): a copy per feature was 40% of the tree's memory, and a call's fresh pages
/// cost more than its random reads (cloth-funnel: 14 MB of first-touch page faults, a fifth
/// of the call).
struct Tree<'m> {
    x0: &'m [DVec3],
    x1: &'m [DVec3],
    nodes: Vec<Node>,
    /// Per slot: face vertex ids, triangle id.
    face_v: Vec<[u32; 3]>,
    face_id: Vec<u32>,
    /// Owned vertices grouped by slot: vertex id.
    vert_id: Vec<u32>,
    /// Owned edges grouped by slot: end ids (low first).
    edge_v: Vec<[u32; 2]>,
    /// Motions of the faces, owned vertices and owned edges (same order).
    face_m: Vec<Motion>,
    vert_m: Vec<Motion>,
    edge_m: Vec<Motion>,
    /// `vert_first[s]..vert_first[s + 1]`: the owned vertices of slot `s` (edges alike).
    vert_first: Vec<u32>,
    edge_first: Vec<u32>,
}

/// The motion of points given at both times.
#[inline(always)]
fn motion_of(p0: &[DVec3], p1: &[DVec3]) -> Motion {
    let mut m = Motion::EMPTY;
    for (a, b) in p0.iter().zip(p1) {
        m.add(*a, *b);
    }
    m
}

impl<'m> Tree<'m> {
    fn build(mesh: &'m DeformingMesh) -> Self {
        let (x0, x1) = (mesh.x0(), mesh.x1());
        let tris = mesh.triangles();
        let n = tris.len();
        // twice the centre of a triangle's box at t = 0
        let centre2 = |t: &[u32; 3]| {
            let [a, b, c] = t.map(|v| x0[v as usize]);
            a.min(b).min(c) + a.max(b).max(c)
        };
        // triangles sorted by the Morton code of their centre at t = 0 (10 bits per axis on
        // the cube around the centres), then split top-down at the highest differing bit
        let (mut lo, mut hi) = (DVec3::INFINITY, DVec3::NEG_INFINITY);
        for t in tris {
            let c = centre2(t);
            lo = lo.min(c);
            hi = hi.max(c);
        }
        let ext = (hi - lo).max_element();
        let q = if ext > 0.0 && ext.is_finite() {
            1023.0 / ext
        } else {
            0.0
        };
        let mut keys: Vec<u64> = tris
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let c = ((centre2(t) - lo) * q).clamp(DVec3::ZERO, DVec3::splat(1023.0));
                let code =
                    spread(c.x as u32) | (spread(c.y as u32) << 1) | (spread(c.z as u32) << 2);
                (u64::from(code) << 32) | i as u64
            })
            .collect();
        keys.sort_unstable();
        let mut t = Self {
            x0,
            x1,
            nodes: Vec::new(),
            face_v: Vec::with_capacity(n),
            face_id: Vec::with_capacity(n),
            vert_id: Vec::with_capacity(mesh.vertex_count()),
            edge_v: Vec::with_capacity(2 * n + 3),
            face_m: Vec::with_capacity(n),
            vert_m: Vec::with_capacity(mesh.vertex_count()),
            edge_m: Vec::with_capacity(2 * n + 3),
            vert_first: Vec::with_capacity(n + 1),
            edge_first: Vec::with_capacity(n + 1),
        };
        for f in keys.iter().map(|k| *k as u32) {
            let v = tris[f as usize];
            let p0 = v.map(|i| x0[i as usize]);
            let p1 = v.map(|i| x1[i as usize]);
            t.face_m.push(motion_of(&p0, &p1));
            t.face_v.push(v);
            t.face_id.push(f);
            t.vert_first.push(t.vert_id.len() as u32);
            t.edge_first.push(t.edge_v.len() as u32);
            let owned = mesh.owned_features(f as usize);
            for k in 0..3 {
                if owned & OWN_VERTEX[k] != 0 {
                    t.vert_m.push(motion_of(&[p0[k]], &[p1[k]]));
                    t.vert_id.push(v[k]);
                }
            }
            for k in 0..3 {
                if owned & OWN_EDGE[k] != 0 {
                    let (i, j) = if v[k] <= v[(k + 1) % 3] {
                        (k, (k + 1) % 3)
                    } else {
                        ((k + 1) % 3, k)
                    };
                    t.edge_m.push(motion_of(&[p0[i], p0[j]], &[p1[i], p1[j]]));
                    t.edge_v.push([v[i], v[j]]);
                }
            }
        }
        t.vert_first.push(t.vert_id.len() as u32);
        t.edge_first.push(t.edge_v.len() as u32);
        // a binary tree whose leaves hold at least one triangle has fewer than 2n nodes
        t.nodes.reserve_exact(2 * n.div_ceil(LEAF_SIZE) + 1);
        split(&mut t.nodes, &keys, 0, &t.face_m);
        t
    }

    /// The faces, owned vertices and owned edges of a node's slots.
    #[inline]
    fn features(&self, node: &Node) -> (Range<usize>, Range<usize>, Range<usize>) {
        let (s, e) = (node.first as usize, (node.first + node.count) as usize);
        (
            s..e,
            self.vert_first[s] as usize..self.vert_first[e] as usize,
            self.edge_first[s] as usize..self.edge_first[e] as usize,
        )
    }
}

/// The 10 low bits of `x` spread to every third bit (a Morton code's axis).
#[inline]
fn spread(x: u32) -> u32 {
    let mut x = x & 0x3ff;
    x = (x | (x << 16)) & 0x0300_00ff;
    x = (x | (x << 8)) & 0x0300_f00f;
    x = (x | (x << 4)) & 0x030c_30c3;
    (x | (x << 2)) & 0x0924_9249
}

/// Builds the subtree over the sorted `keys` (Morton code, triangle; slots from `first`,
/// whose motions are `slot_m`) into `nodes`; returns its index. A node splits at the highest
/// bit in which its first and last codes differ (or in the middle, at a whole number of
/// leaves, when they are equal).
fn split(nodes: &mut Vec<Node>, keys: &[u64], first: u32, slot_m: &[Motion]) -> u32 {
    let at = nodes.len() as u32;
    let count = keys.len() as u32;
    if keys.len() <= LEAF_SIZE {
        let slots = first as usize..first as usize + keys.len();
        let m = slot_m[slots].iter().fold(Motion::EMPTY, |a, m| a.merge(m));
        nodes.push(Node {
            m,
            first,
            count,
            right: 0,
        });
        return at;
    }
    nodes.push(Node {
        m: Motion::EMPTY,
        first,
        count,
        right: 0,
    });
    let (a, b) = (keys[0] >> 32, keys[keys.len() - 1] >> 32);
    let mid = if a == b {
        let leaves = keys.len().div_ceil(LEAF_SIZE);
        (leaves.div_ceil(2) * LEAF_SIZE).min(keys.len() - 1)
    } else {
        let bit = 63 - (a ^ b).leading_zeros();
        keys.partition_point(|k| (k >> 32) & (1 << bit) == 0)
    };
    let (l, r) = keys.split_at(mid);
    let left = split(nodes, l, first, slot_m);
    let right = split(nodes, r, first + mid as u32, slot_m);
    let m = nodes[left as usize].m.merge(&nodes[right as usize].m);
    let node = &mut nodes[at as usize];
    node.m = m;
    node.right = right;
    at
}

/// A pending node pair (`a < b`, or a node against itself with `a == b`) and its time
/// bound when it was pushed.
#[derive(Clone, Copy)]
enum Task {
    Within(u32),
    Pair(u32, u32, f64),
}

struct Walker<'a> {
    tree: &'a Tree<'a>,
    rule: SeparationOptions,
    round_off: f64,
    best: f64,
    limiting: Option<SeparationPair>,
    stats: SceneStats,
}

/// The separation-preserving step of `mesh` against itself: the largest `t ∈ [0, 1]` (up to
/// the rule's stopping tolerance, always on the safe side) such that every vertex–face and
/// edge–edge pair of the mesh that shares no vertex stays at distance `≥ τ(d₀)` on
/// `[0, t]` (the rule of [`SeparationOptions`]). The same question and guarantee as
/// `DeformingScene::new(vec![mesh.clone()], &SceneOptions::default())?.separation_step(rule)`
/// ([`DeformingScene::separation_step`](super::DeformingScene::separation_step)), without building a
/// [`DeformingScene`](super::DeformingScene): for a mesh seen once it builds only what the step's bound
/// reads (a Morton-ordered tree whose nodes keep their boxes at `t = 0` and the boxes of
/// their displacements), which is cheaper than a scene's build; a scene reused over many
/// steps refits instead. Runs serially.
///
/// # Errors
/// [`SeparationOptions::validate`].
///
/// # Example
/// ```
/// use ccd_geometry::glam::DVec3;
/// use ccd_la_deformable::DeformingMesh;
/// use ccd_la_deformable::scene::{SeparationOptions, separation_step};
///
/// // two triangles 1 apart; the upper one falls by 2: with s = 0.2 it may come down to
/// // 0.2, which it reaches at t = 0.4
/// let tri = [DVec3::ZERO, DVec3::X, DVec3::Y];
/// let lift = |d: f64| tri.map(|p| p + DVec3::new(0.1, 0.1, d));
/// let x0 = [tri, lift(1.0)].concat();
/// let x1 = [tri, lift(-1.0)].concat();
/// let mesh = DeformingMesh::new(vec![[0, 1, 2], [3, 4, 5]], x0, x1)?;
/// let step = separation_step(&mesh, &SeparationOptions::default())?;
/// assert!(step.step <= 0.4 && step.step > 0.399);
/// assert_eq!(step.limiting.unwrap().target, 0.2);
/// # Ok::<(), ccd_la_deformable::LaError>(())
/// ```
pub fn separation_step(
    mesh: &DeformingMesh,
    rule: &SeparationOptions,
) -> Result<SeparationStep, LaError> {
    rule.validate()?;
    if mesh.triangle_count() == 0 {
        return Ok(SeparationStep {
            step: 1.0,
            limiting: None,
            stats: SceneStats::default(),
        });
    }
    let tree = Tree::build(mesh);
    let mut w = Walker {
        tree: &tree,
        rule: *rule,
        round_off: super::round_off(std::slice::from_ref(mesh)),
        best: 1.0,
        limiting: None,
        stats: SceneStats::default(),
    };
    let mut stack = Vec::with_capacity(128);
    stack.push(Task::Within(0));
    while let Some(task) = stack.pop() {
        if w.best <= 0.0 {
            break;
        }
        match task {
            Task::Within(n) => w.within(n, &mut stack),
            Task::Pair(a, b, t) => {
                // the best step may have shrunk since this pair was pushed
                if t < w.best {
                    w.pair(a, b, &mut stack);
                }
            }
        }
    }
    Ok(SeparationStep {
        step: w.best,
        limiting: w.limiting,
        stats: w.stats,
    })
}

impl Walker<'_> {
    #[inline]
    fn node_bound(&mut self, a: u32, b: u32) -> f64 {
        self.stats.bv_tests += 1;
        let nodes = &self.tree.nodes;
        let t = bound(
            &nodes[a as usize].m,
            &nodes[b as usize].m,
            &self.rule,
            self.round_off,
        );
        if t >= self.best {
            self.stats.culled_bv_pairs += 1;
        }
        t
    }

    fn within(&mut self, n: u32, stack: &mut Vec<Task>) {
        let node = self.tree.nodes[n as usize];
        if node.right == 0 {
            self.leaf_pair(n, n);
            return;
        }
        let (l, r) = (n + 1, node.right);
        let t = self.node_bound(l, r);
        if t < self.best {
            stack.push(Task::Pair(l, r, t));
        }
        stack.push(Task::Within(r));
        stack.push(Task::Within(l));
    }

    fn pair(&mut self, a: u32, b: u32, stack: &mut Vec<Task>) {
        let nodes = &self.tree.nodes;
        let (na, nb) = (nodes[a as usize], nodes[b as usize]);
        let split_a = match (na.right != 0, nb.right != 0) {
            (false, false) => {
                self.leaf_pair(a, b);
                return;
            }
            (true, false) => true,
            (false, true) => false,
            (true, true) => na.count >= nb.count,
        };
        let kids = if split_a {
            [(a + 1, b), (na.right, b)]
        } else {
            [(a, b + 1), (a, nb.right)]
        };
        let t0 = self.node_bound(kids[0].0, kids[0].1);
        let t1 = self.node_bound(kids[1].0, kids[1].1);
        // the more urgent (smaller bound) popped first
        let order = if t0 <= t1 {
            [(kids[1], t1), (kids[0], t0)]
        } else {
            [(kids[0], t0), (kids[1], t1)]
        };
        for ((x, y), t) in order {
            if t < self.best {
                stack.push(Task::Pair(x, y, t));
            }
        }
    }

    /// Every owned vertex of one leaf against the faces of the other (both ways) and every
    /// owned edge pair; `a == b`: the leaf against itself. Each side's features are first
    /// selected by their bound against the other leaf (64-bit masks).
    fn leaf_pair(&mut self, a: u32, b: u32) {
        let tree = self.tree;
        let (na, nb) = (&tree.nodes[a as usize], &tree.nodes[b as usize]);
        let (fa, va, ea) = tree.features(na);
        let (fb, vb, eb) = tree.features(nb);
        self.stats.leaf_pairs += 1;
        let same = a == b;
        let round_off = self.round_off;
        // a feature of one leaf is selected unless its box at t = 0 keeps the gap
        // `cull_gap` from the other leaf's on some axis (see `cull_gap`)
        let select = |items: &[Motion], other: &Motion, need: f64| {
            let mut m = 0u64;
            for (k, it) in items.iter().take(64).enumerate() {
                let g = (it.lo - other.hi).max(other.lo - it.hi).max_element()
                    * (1.0 - 8.0 * f64::EPSILON)
                    - round_off;
                m |= u64::from(g < need || g.is_nan()) << k;
            }
            m
        };
        let all = |r: &Range<usize>| {
            if r.len() >= 64 {
                u64::MAX
            } else {
                (1u64 << r.len()) - 1
            }
        };
        let (m_va, m_fa, m_ea, m_vb, m_fb, m_eb) = if same {
            // a leaf against itself: every feature is in the other's box
            let (v, f, e) = (all(&va), all(&fa), all(&ea));
            (v, f, e, v, f, e)
        } else {
            let need = cull_gap(&na.m, &nb.m, &self.rule, self.best);
            (
                select(&tree.vert_m[va.clone()], &nb.m, need),
                select(&tree.face_m[fa.clone()], &nb.m, need),
                select(&tree.edge_m[ea.clone()], &nb.m, need),
                select(&tree.vert_m[vb.clone()], &na.m, need),
                select(&tree.face_m[fb.clone()], &na.m, need),
                select(&tree.edge_m[eb.clone()], &na.m, need),
            )
        };
        for v in bits(m_va, va.start) {
            for f in bits(m_fb, fb.start) {
                self.vertex_face(v, f);
            }
        }
        if !same {
            for v in bits(m_vb, vb.start) {
                for f in bits(m_fa, fa.start) {
                    self.vertex_face(v, f);
                }
            }
        }
        for i in bits(m_ea, ea.start) {
            for j in bits(m_eb, eb.start) {
                if !same || j > i {
                    self.edge_edge(i, j);
                }
            }
        }
    }

    fn vertex_face(&mut self, v: usize, f: usize) {
        if self.best <= 0.0 {
            return;
        }
        let tree = self.tree;
        let id = tree.vert_id[v];
        if tree.face_v[f].contains(&id) {
            return;
        }
        let (a, b) = (&tree.vert_m[v], &tree.face_m[f]);
        if cheap_cull(a, b, &self.rule, self.round_off, self.best)
            || bound(a, b, &self.rule, self.round_off) >= self.best
        {
            self.stats.culled_bv_pairs += 1;
            return;
        }
        let [a, b, c] = tree.face_v[f].map(|i| i as usize);
        let (p, q) = (tree.x0, tree.x1);
        let idu = id as usize;
        let x0 = [p[idu], p[a], p[b], p[c]];
        let x1 = [q[idu], q[a], q[b], q[c]];
        self.stats.primitive_tests += 1;
        if let Some(h) = self.rule.vertex_face(&x0, &x1, self.best) {
            self.record(h, Feature::Vertex(id), Feature::Face(tree.face_id[f]));
        }
    }

    fn edge_edge(&mut self, i: usize, j: usize) {
        if self.best <= 0.0 {
            return;
        }
        let tree = self.tree;
        let (ei, ej) = (tree.edge_v[i], tree.edge_v[j]);
        if ei.iter().any(|e| ej.contains(e)) {
            return;
        }
        let (a, b) = (&tree.edge_m[i], &tree.edge_m[j]);
        if cheap_cull(a, b, &self.rule, self.round_off, self.best)
            || bound(a, b, &self.rule, self.round_off) >= self.best
        {
            self.stats.culled_bv_pairs += 1;
            return;
        }
        // canonical order, as the scene's query
        let (i, j) = if ei <= ej { (i, j) } else { (j, i) };
        let [a, b] = tree.edge_v[i].map(|v| v as usize);
        let [c, d] = tree.edge_v[j].map(|v| v as usize);
        let (p, q) = (tree.x0, tree.x1);
        let x0 = [p[a], p[b], p[c], p[d]];
        let x1 = [q[a], q[b], q[c], q[d]];
        self.stats.primitive_tests += 1;
        if let Some(h) = self.rule.edge_edge(&x0, &x1, self.best) {
            let (ei, ej) = (tree.edge_v[i], tree.edge_v[j]);
            self.record(h, Feature::Edge(ei[0], ei[1]), Feature::Edge(ej[0], ej[1]));
        }
    }

    fn record(&mut self, h: SeparationHit, fa: Feature, fb: Feature) {
        let (best, limiting, stats) = (&mut self.best, &mut self.limiting, &mut self.stats);
        keep_earliest(h, ((0, fa), (0, fb)), best, limiting, stats);
    }
}

/// The axis gap at `t = 0` (rounded down as in [`cheap_cull`]: `g·(1 − 8ε) − round_off`)
/// beyond which a feature of node `a` (or `b`) and every feature of the other node have
/// time bounds `≥ best`, so no pair of them can limit the step.
///
/// It is [`cheap_cull`] solved for the gap, with the displacement box of the whole node in
/// place of the feature's (which it contains, so `μ` only grows and the test stays
/// sufficient): with `μ₁ = |max(|D_b − D_a|)|₁ ≥ μ` and `reach = best·μ₁`, a pair whose
/// boxes at `t = 0` are `g` apart on some axis keeps `d ≥ g` and is culled when `g > δ`,
/// `(1 − s)·g ≥ reach` and `g − δ ≥ reach`; both right-hand sides are rounded up by `4ε`
/// (the roundings of the products and sums), and the result is above `δ`.
#[inline]
fn cull_gap(a: &Motion, b: &Motion, rule: &SeparationOptions, best: f64) -> f64 {
    let up = 1.0 + 8.0 * f64::EPSILON;
    let lo = b.dlo - a.dhi;
    let hi = b.dhi - a.dlo;
    let m = lo.abs().max(hi.abs());
    let reach = best * ((m.x + m.y + m.z) * up) * up;
    let need = (reach / (1.0 - rule.scale)).max(rule.min_distance + reach) * up;
    if need.is_nan() {
        f64::INFINITY
    } else {
        need.max(rule.min_distance.next_up())
    }
}

/// The indices `start + k` of the set bits `k` of `m`, lowest first.
#[inline(always)]
fn bits(mut m: u64, start: usize) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (m != 0).then(|| {
            let k = m.trailing_zeros() as usize;
            m &= m - 1;
            start + k
        })
    })
}
