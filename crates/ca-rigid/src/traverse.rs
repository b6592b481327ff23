//! The per-evaluation C2A traversal shared by [`time_of_contact`](crate::time_of_contact)
//! and [`time_of_contact_bounded`](crate::time_of_contact_bounded): a best-first search of
//! the two RSS hierarchies keyed by safe advancement times, with exact triangle distances at
//! the leaves. The two entry points differ only in their motion bounds ([`MotionBound`]).

use ccd_bvh::{BoundingVolume, Rss};
use ccd_distance::triangle_triangle;
use ccd_geometry::{Aabb, Feature, Triangle};
use glam::{DAffine3, DVec3};

use crate::node_key::{rect_direction, rss_center, rss_gap, rss_near_points};
use crate::{RigidBody, Stats};

/// A bound on `|(v_b − v_a)·n|` (direction `n` of any length, A's frame) for the points of
/// two sets over the rest of the evaluation's horizon. Every key of the traversal rests on
/// it being a true upper bound.
pub(crate) trait MotionBound {
    /// For the contents of the RSS `x` (A's frame) and `y` (B's frame), within `ra` and `rb`
    /// of their bodies' frame origins.
    fn nodes(&self, n: DVec3, x: &Rss, y: &Rss, ra: f64, rb: f64) -> f64;
    /// For the triangle `ta` (A's frame) and `tb` (mapped into A's frame), within `ra` and
    /// `rb` of their bodies' frame origins.
    fn triangles(&self, n: DVec3, ta: &Triangle, tb: &Triangle, ra: f64, rb: f64) -> f64;
}

/// A node pair waiting in the best-first queue: its key (safe advancement time) and the
/// direction (A's frame) that gave it, handed down to its children as a first guess.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    key: f64,
    a: u32,
    b: u32,
    n: DVec3,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.key.total_cmp(&other.key).is_eq()
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    /// Reversed, so that `BinaryHeap` pops the smallest key.
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        other.key.total_cmp(&self.key)
    }
}

/// Reusable buffers of the evaluations of one query (no allocation once grown).
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    heap: std::collections::BinaryHeap<Entry>,
    /// A leaf's triangles of B in A's frame, with their ids and radii.
    tris_b: Vec<(u32, Triangle, f64)>,
}

/// The closest pair found by an evaluation, in A's local frame.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Witness {
    pub(crate) distance: f64,
    pub(crate) point_a: DVec3,
    pub(crate) point_b: DVec3,
    pub(crate) feature_a: Feature,
    pub(crate) feature_b: Feature,
}

impl Witness {
    /// The witness of a query that stopped before finding any pair (infinitely far).
    pub(crate) const NONE: Self = Self {
        distance: f64::INFINITY,
        point_a: DVec3::ZERO,
        point_b: DVec3::ZERO,
        feature_a: Feature::Face(0),
        feature_b: Feature::Face(0),
    };
}

/// One evaluation's result: the safe step and, if some pair is within `ε` (or its distance
/// is NaN, which proves nothing), its witness.
pub(crate) struct Evaluation {
    pub(crate) step: f64,
    pub(crate) touching: Option<Witness>,
    pub(crate) closest: Option<Witness>,
}

/// A lower bound of `min n·(q − p)` over the points `p` of `ta` and `q` of `tb` (same frame;
/// `n` need not be unit), rounded down.
#[inline]
fn triangle_gap(ta: &Triangle, tb: &Triangle, n: DVec3) -> f64 {
    let hi = n.dot(ta.a).max(n.dot(ta.b)).max(n.dot(ta.c));
    let lo = n.dot(tb.a).min(n.dot(tb.b)).min(n.dot(tb.c));
    let scale = n.abs().max_element()
        * (ta.a.abs() + ta.b.abs() + ta.c.abs() + tb.a.abs() + tb.b.abs() + tb.c.abs())
            .max_element();
    lo - hi - 64.0 * f64::EPSILON * scale
}

/// The largest distance of a triangle's vertices from its frame's origin, rounded up.
#[inline]
fn tri_radius(t: &Triangle) -> f64 {
    t.a.length_squared()
        .max(t.b.length_squared())
        .max(t.c.length_squared())
        .sqrt()
        * (1.0 + 4.0 * f64::EPSILON)
}

/// Safe advancement of two sets separated by at least `gap` along `n` (any length) whose
/// approach speed along `n` is at most `mu`: `(gap − |n| (ε/2 + δ)) / μ`, or 0 when the gap
/// is below `|n| (ε/2 + δ)` or NaN (`δ`: the rounding allowance `slack`).
#[inline]
pub(crate) fn key_along(eps: f64, slack: f64, gap: f64, n: DVec3, mu: f64) -> f64 {
    let margin = (0.5 * eps + slack) * n.length();
    // (a NaN gap also gives 0: the pair is descended)
    if gap.partial_cmp(&margin) != Some(std::cmp::Ordering::Greater) {
        return 0.0;
    }
    if mu > 0.0 {
        (gap - margin) / mu
    } else if mu == 0.0 {
        f64::INFINITY
    } else {
        0.0 // a NaN bound proves nothing
    }
}

/// The exact closest pair of triangle `ia` of A and `ib` of B (`tb_in_a` in A's frame), with
/// features lifted to mesh indices.
pub(crate) fn exact_witness(
    a: &RigidBody,
    b: &RigidBody,
    ia: u32,
    ib: u32,
    ta: &Triangle,
    tb_in_a: &Triangle,
) -> Witness {
    let (ma, mb) = (a.mesh_bvh().mesh(), b.mesh_bvh().mesh());
    let c = triangle_triangle(ta, tb_in_a);
    Witness {
        distance: c.distance,
        point_a: c.point_a,
        point_b: c.point_b,
        feature_a: c.feature_a.lift(ma.triangles()[ia as usize], ia),
        feature_b: c.feature_b.lift(mb.triangles()[ib as usize], ib),
    }
}

/// The exact closest pair of the two meshes with B at `pos_ab` in A's frame (best-first
/// traversal with the RSS lower bound), or [`Witness::NONE`] when no pair has a finite
/// distance. Used to give a run that stopped early ([`Status::Stalled`](crate::Status),
/// [`Status::OutOfIterations`](crate::Status)) a real witness at its `toc` when the last
/// evaluation found none (its steps came from node bounds alone).
pub(crate) fn closest_pair(
    a: &RigidBody,
    b: &RigidBody,
    pos_ab: &DAffine3,
    stats: &mut Stats,
) -> Witness {
    let (ma, mb) = (a.mesh_bvh().mesh(), b.mesh_bvh().mesh());
    let mut best = Witness::NONE;
    let mut ws = ccd_bvh::Workspace::new();
    let (_, ts) = a.mesh_bvh().bvh().traverse_pair_best_first(
        b.mesh_bvh().bvh(),
        &mut ws,
        f64::INFINITY,
        |x: &Rss, y: &Rss| x.distance_lower_bound(y, pos_ab),
        |ia, ib| {
            let ta = ma.triangle(ia as usize);
            let tb = mb.triangle(ib as usize);
            let tb_in_a = Triangle::new(
                pos_ab.transform_point3(tb.a),
                pos_ab.transform_point3(tb.b),
                pos_ab.transform_point3(tb.c),
            );
            let w = exact_witness(a, b, ia, ib, &ta, &tb_in_a);
            if w.distance < best.distance {
                best = w;
            }
            best.distance
        },
    );
    stats.bv_tests += ts.bv_tests;
    stats.primitive_tests += ts.primitive_tests;
    best
}

/// One evaluation at a time `t`: the bodies, B's pose in A's frame, the motion bound over
/// the horizon, the tolerance and the rounding allowance.
pub(crate) struct Traversal<'q, M> {
    pub(crate) a: &'q RigidBody,
    pub(crate) b: &'q RigidBody,
    /// B's pose in A's frame at `t`.
    pub(crate) pos_ab: DAffine3,
    pub(crate) bound: M,
    pub(crate) eps: f64,
    /// Rounding allowance `δ` of distances and gaps along a unit direction: a computed
    /// distance may exceed the true one by `δ`.
    pub(crate) slack: f64,
    /// A box in B's frame that A, grown by `ε/2`, never leaves over the evaluation's horizon
    /// (the caller's guarantee, e.g. a swept box): B's nodes and triangles outside it can
    /// never come within `ε/2` of A and are pruned. `None`: no pruning.
    pub(crate) region_b: Option<Aabb>,
}

impl<M: MotionBound> Traversal<'_, M> {
    #[inline]
    fn key_along(&self, gap: f64, n: DVec3, mu: f64) -> f64 {
        key_along(self.eps, self.slack, gap, n, mu)
    }

    /// Key of a node pair and the direction (A's frame) that gave it: first along `hint`
    /// (the parent pair's direction, coherent down the tree), and, unless that already
    /// reaches `cutoff`, along the direction between the closest points of the two RSS
    /// rectangles (C2A), unless the volumes are within `ε/2` of each other (key 0). A node pair's key is a safe advancement time for its contents: they
    /// stay inside their RSS, and the slab of width `gap` along `n` stays open while the
    /// motion projected on `n` is below it, for any `n` (see `node_key`).
    #[inline]
    fn node_key(
        &self,
        x: &Rss,
        y: &Rss,
        ra: f64,
        rb: f64,
        hint: DVec3,
        cutoff: f64,
    ) -> (f64, DVec3) {
        // volumes within ε/2 of each other (by an upper bound of their distance): no
        // direction separates them by more than `|n| (ε/2 + δ)`, so every key is 0 and the
        // pair is descended; the searches below are skipped (they would give key 0 along
        // the hint, the answer returned here)
        let (p, q) = rss_near_points(x, y, &self.pos_ab);
        if p.distance(q) - x.radius - y.radius <= 0.5 * self.eps {
            return (0.0, hint);
        }
        let key = |n: DVec3| {
            let gap = rss_gap(x, y, &self.pos_ab, n);
            // (a gap within the margin gives key 0 whatever the motion bound: not computed)
            if gap.partial_cmp(&((0.5 * self.eps + self.slack) * n.length()))
                != Some(std::cmp::Ordering::Greater)
            {
                return 0.0;
            }
            self.key_along(gap, n, self.bound.nodes(n, x, y, ra, rb))
        };
        let kh = key(hint);
        if kh >= cutoff {
            return (kh, hint);
        }
        match rect_direction(x, y, &self.pos_ab) {
            Some(n) => {
                let kn = key(n);
                if kn > kh { (kn, n) } else { (kh, hint) }
            }
            None => (kh, hint),
        }
    }

    /// Safe advancement (at most `cap`; C2A: the minimum over pairs of distance over
    /// projected speed) by a best-first traversal of the pair of RSS trees keyed by safe
    /// advancement times; a pair whose key reaches the current step is pruned (its contents
    /// cannot lower it). Keys do not depend on the traversal order, so neither does the
    /// step: it is the minimum over all triangle pairs of their keys.
    pub(crate) fn run(&self, cap: f64, scratch: &mut Scratch, stats: &mut Stats) -> Evaluation {
        let half = 0.5 * self.eps;
        let mut best = cap;
        let mut closest: Option<Witness> = None;
        let (ba, bb) = (self.a.mesh_bvh().bvh(), self.b.mesh_bvh().bvh());
        let (rad_a, rad_b) = (self.a.node_radii(), self.b.node_radii());
        let (ma, mb) = (self.a.mesh_bvh().mesh(), self.b.mesh_bvh().mesh());
        let pos_ab = self.pos_ab;
        let heap = &mut scratch.heap;
        heap.clear();
        let done = |step, touching, closest| Evaluation {
            step,
            touching,
            closest,
        };
        if ba.node_count() == 0 || bb.node_count() == 0 {
            return done(best, None, None);
        }
        // B's contents outside the region never come within ε/2 of A: they bound nothing
        let outside = |bv: &Rss| self.region_b.is_some_and(|r| !bv.aabb().overlaps(&r));
        let (x0, y0) = (ba.node(0).bv(), bb.node(0).bv());
        if outside(y0) {
            return done(best, None, None);
        }
        let centre = pos_ab.transform_point3(rss_center(y0)) - rss_center(x0);
        stats.bv_tests += 1;
        let (k0, n0) = self.node_key(x0, y0, rad_a[0], rad_b[0], centre, best);
        if k0 < best {
            heap.push(Entry {
                key: k0,
                a: 0,
                b: 0,
                n: n0,
            });
        }
        while let Some(Entry { key, a, b, n }) = heap.pop() {
            if key >= best {
                break;
            }
            let (na, nb) = (ba.node(a), bb.node(b));
            let children = match (na.children(), nb.children()) {
                (None, None) => {
                    // leaf pair: B's triangles mapped into A's frame once
                    scratch.tris_b.clear();
                    scratch
                        .tris_b
                        .extend(bb.node_primitives(b).iter().filter_map(|&ib| {
                            let tb = mb.triangle(ib as usize);
                            if let Some(r) = &self.region_b
                                && !Aabb::from_points([tb.a, tb.b, tb.c]).overlaps(r)
                            {
                                return None;
                            }
                            let moved = Triangle::new(
                                pos_ab.transform_point3(tb.a),
                                pos_ab.transform_point3(tb.b),
                                pos_ab.transform_point3(tb.c),
                            );
                            Some((ib, moved, tri_radius(&tb)))
                        }));
                    for &ia in ba.node_primitives(a) {
                        let ta = ma.triangle(ia as usize);
                        let ra = tri_radius(&ta);
                        for &(ib, tb, rb) in &scratch.tris_b {
                            // cheap keys along the node pair's direction and the centroid
                            // direction: a pair separated by more than ε along one is not
                            // touching, and if its key already reaches the step its exact
                            // distance cannot lower the step
                            let skip = |n: DVec3| {
                                let g = triangle_gap(&ta, &tb, n);
                                g > self.eps * n.length()
                                    && self.key_along(
                                        g,
                                        n,
                                        self.bound.triangles(n, &ta, &tb, ra, rb),
                                    ) >= best
                            };
                            if skip(n) || skip((tb.a + tb.b + tb.c - ta.a - ta.b - ta.c) / 3.0) {
                                continue;
                            }
                            stats.primitive_tests += 1;
                            let w = exact_witness(self.a, self.b, ia, ib, &ta, &tb);
                            if closest.is_none_or(|c| w.distance < c.distance) {
                                closest = Some(w);
                            }
                            // (a NaN distance proves nothing: reported as touching)
                            if w.distance <= self.eps || w.distance.is_nan() {
                                heap.clear();
                                return done(0.0, Some(w), closest);
                            }
                            let nw = (w.point_b - w.point_a) / w.distance;
                            let mu = self.bound.triangles(nw, &ta, &tb, ra, rb);
                            // the computed distance may exceed the true one by δ: only a
                            // distance above ε/2 + δ proves a slab, whatever the motion (a
                            // fuzz finding: a pair touching at 2⁸⁰ scale, computed 384
                            // apart with δ ≈ 5e15 along a direction the motion is
                            // orthogonal to, was passed as free for the whole step)
                            let free = w.distance - half - self.slack;
                            if mu > 0.0 {
                                best = best.min(free / mu);
                            } else if mu.is_nan()
                                || free.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater)
                            {
                                // a NaN bound proves nothing, nor does a slab within δ: no
                                // advancement
                                best = best.min(0.0);
                            }
                        }
                    }
                    continue;
                }
                (Some([l, r]), None) => [(l, b), (r, b)],
                (None, Some([l, r])) => [(a, l), (a, r)],
                (Some([la, ra]), Some([lb, rb])) => {
                    if na.bv().size() >= nb.bv().size() {
                        [(la, b), (ra, b)]
                    } else {
                        [(a, lb), (a, rb)]
                    }
                }
            };
            for (ca, cb) in children {
                let (x, y) = (ba.node(ca).bv(), bb.node(cb).bv());
                // (B's node is tested when B was split; an A split keeps a tested node)
                if cb != b && outside(y) {
                    continue;
                }
                stats.bv_tests += 1;
                let (k, kn) = self.node_key(x, y, rad_a[ca as usize], rad_b[cb as usize], n, best);
                if k < best {
                    heap.push(Entry {
                        key: k,
                        a: ca,
                        b: cb,
                        n: kn,
                    });
                }
            }
        }
        heap.clear();
        done(best, None, closest)
    }
}
