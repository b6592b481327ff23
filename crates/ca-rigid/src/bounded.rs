//! CA between two rigid meshes under arbitrary motions known only through their poses and a
//! bound on the speed of their points (for links of articulated bodies, CATCH Sec. 6).
//!
//! [`time_of_contact`](crate::time_of_contact) knows the two motions exactly
//! (constant-velocity [`RigidMotion`]s) and tightens its bounds with it. The functions here
//! take any [`PairMotion`]: the world poses at a time `t` and, per body, a [`SpeedBound`] on
//! `|v_p · n|` for its points over `[t, 1]`. The per-node advancement is the same C2A
//! traversal (RSS support gaps along the parent's and the rectangle-closest directions,
//! exact triangle distances at the leaves), with every node's motion bound taken from the
//! node's radius about its body's frame origin. A search window `[start, end]` lets a caller
//! resume from a known lower bound of the time of contact and give up at a known upper
//! bound (CATCH's temporal culling, Alg. 1).

use ccd_bvh::{BoundingVolume, Rss};
use ccd_distance::{GjkCache, GjkOptions, gjk_distance_cached, triangle_triangle};
use ccd_geometry::{Feature, Triangle};
use ccd_kinematics::RigidMotion;
use glam::{DAffine3, DVec3};

use crate::node_key::{rect_direction, rss_center, rss_gap};
use crate::{CaError, CaOptions, Contact, RigidBody, Stats, Status};

/// A bound on the speed of the points of one body along a direction, for all times of the
/// rest of the step `[t, 1]`, of the form (for a direction `n` of any length and a point at
/// distance at most `r` from the body's frame origin)
///
/// `|v_p · n| ≤ |s · n| + ω |u × n| (r + lever) + |n| (extra + extra_per_radius · r)`.
///
/// A rigid body under a constant-velocity motion has `s` = its linear velocity, `(u, ω)` its
/// rotation, and zero `lever`/`extra` terms ([`SpeedBound::rigid`]); a link deep in an
/// articulated chain has its root's terms in the first two slots and the rest of the chain
/// (CATCH Eq. 10, where rotations hide the direction) in the `extra` terms. A static body has
/// [`SpeedBound::ZERO`].
///
/// # Example
/// ```
/// use ccd_ca_rigid::SpeedBound;
/// use ccd_kinematics::RigidMotion;
/// use ccd_geometry::glam::{DAffine3, DVec3};
///
/// let m = RigidMotion::between(DAffine3::IDENTITY, DAffine3::from_translation(DVec3::X))?;
/// let s = SpeedBound::rigid(&m);
/// assert!((s.bound(DVec3::X, 1.0) - 1.0).abs() < 1e-9);
/// assert!(s.bound(DVec3::Y, 1.0) < 1e-9);
/// # Ok::<(), ccd_kinematics::KinematicsError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct SpeedBound {
    /// Linear velocity `s` whose projection is taken exactly (world frame).
    pub linear: DVec3,
    /// Unit rotation axis `u` (world frame; any vector when `omega` is 0).
    pub axis: DVec3,
    /// Angular speed `ω ≥ 0` about `axis`.
    pub omega: f64,
    /// Extra lever arm `≥ 0` added to the radius in the rotational term.
    pub lever: f64,
    /// Direction-free speed `≥ 0` (multiplied by `|n|`).
    pub extra: f64,
    /// Direction-free speed per unit of radius `≥ 0` (multiplied by `|n| r`).
    pub extra_per_radius: f64,
}

impl SpeedBound {
    /// A body that does not move.
    pub const ZERO: Self = Self {
        linear: DVec3::ZERO,
        axis: DVec3::Z,
        omega: 0.0,
        lever: 0.0,
        extra: 0.0,
        extra_per_radius: 0.0,
    };

    /// The bound of a rigid body under a constant-velocity motion:
    /// `|s · n| + ω |u × n| (r + |c|)`, valid at every time, where `s` is the velocity of the
    /// rotation centre `c` ([`RigidMotion::local_center`], body frame): a point within `r`
    /// of the frame origin is within `r + |c|` of the centre.
    #[must_use]
    pub fn rigid(m: &RigidMotion) -> Self {
        Self {
            linear: m.linear_velocity(),
            axis: m.axis(),
            omega: m.angle().abs(),
            lever: m.local_center().length() * (1.0 + 4.0 * f64::EPSILON),
            ..Self::ZERO
        }
    }

    /// The bound on `|v_p · n|` for points within `r` of the frame origin (`n` any length),
    /// rounded up by a relative 1e-12.
    #[inline]
    #[must_use]
    pub fn bound(&self, n: DVec3, r: f64) -> f64 {
        let rot = if self.omega == 0.0 {
            0.0
        } else {
            self.omega * self.axis.cross(n).length() * (r + self.lever)
        };
        let free = if self.extra == 0.0 && self.extra_per_radius == 0.0 {
            0.0
        } else {
            n.length() * (self.extra + self.extra_per_radius * r)
        };
        (self.linear.dot(n).abs() + rot + free) * (1.0 + 1e-12)
    }
}

/// The motion of two bodies A and B over normalized time `[0, 1]`, given through their world
/// poses and speed bounds. Implementations must make [`PairMotion::speed_bounds`] true upper
/// bounds of how fast the points move along any direction over `[t, 1]` (conservativeness
/// of every query rests on it).
pub trait PairMotion {
    /// World poses (local → world) of A and B at time `t ∈ [0, 1]`.
    fn poses(&self, t: f64) -> (DAffine3, DAffine3);
    /// Speed bounds of A and B valid over `[t, 1]`.
    fn speed_bounds(&self, t: f64) -> [SpeedBound; 2];
}

/// Two constant-velocity rigid motions as a [`PairMotion`].
///
/// # Example
/// ```
/// use std::sync::Arc;
/// use ccd_ca_rigid::{time_of_contact_bounded, BoundedScratch, CaOptions, RigidBody, RigidPair};
/// use ccd_bvh::{BvhOptions, MeshBvh, Rss};
/// use ccd_geometry::{glam::{DAffine3, DVec3}, TriMesh};
/// use ccd_kinematics::RigidMotion;
///
/// let tetra = TriMesh::new(vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z], vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])?;
/// let body = RigidBody::new(Arc::new(MeshBvh::<Rss>::new(tetra, &BvhOptions::default())?));
/// let still = RigidMotion::stationary(DAffine3::IDENTITY)?;
/// let moving = RigidMotion::between(DAffine3::from_translation(DVec3::new(3.0, 0.0, 0.0)), DAffine3::from_translation(DVec3::new(-1.0, 0.0, 0.0)))?;
/// let pair = RigidPair { a: &still, b: &moving };
/// let c = time_of_contact_bounded(&body, &body, &pair, 0.0, 1.0, &CaOptions::default(), &mut BoundedScratch::default())?.expect("contact");
/// assert!(c.toc <= 0.5 && c.toc > 0.49);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct RigidPair<'m> {
    /// A's motion.
    pub a: &'m RigidMotion,
    /// B's motion.
    pub b: &'m RigidMotion,
}

impl PairMotion for RigidPair<'_> {
    fn poses(&self, t: f64) -> (DAffine3, DAffine3) {
        (self.a.pose_at(t), self.b.pose_at(t))
    }
    fn speed_bounds(&self, _t: f64) -> [SpeedBound; 2] {
        [SpeedBound::rigid(self.a), SpeedBound::rigid(self.b)]
    }
}

/// A node pair waiting in the best-first queue (key = safe advancement time).
#[derive(Clone, Copy, Debug)]
struct Entry {
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

/// Reusable buffers of [`time_of_contact_bounded`] and the GJK cache of
/// [`time_of_contact_convex_bounded`] (reuse one per thread: no allocation once grown).
#[derive(Debug, Default)]
pub struct BoundedScratch {
    heap: std::collections::BinaryHeap<Entry>,
    tris_b: Vec<(u32, Triangle, f64)>,
}

#[derive(Clone, Copy)]
struct Witness {
    distance: f64,
    point_a: DVec3,
    point_b: DVec3,
    feature_a: Feature,
    feature_b: Feature,
}

/// A lower bound of `min n·(q − p)` over the points of two triangles (same frame), rounded
/// down.
#[inline]
fn triangle_gap(ta: &Triangle, tb: &Triangle, n: DVec3) -> f64 {
    let hi = n.dot(ta.a).max(n.dot(ta.b)).max(n.dot(ta.c));
    let lo = n.dot(tb.a).min(n.dot(tb.b)).min(n.dot(tb.c));
    let scale = n.abs().max_element()
        * (ta.a.abs() + ta.b.abs() + ta.c.abs() + tb.a.abs() + tb.b.abs() + tb.c.abs())
            .max_element();
    lo - hi - 64.0 * f64::EPSILON * scale
}

#[inline]
fn tri_radius(t: &Triangle) -> f64 {
    t.a.length_squared()
        .max(t.b.length_squared())
        .max(t.c.length_squared())
        .sqrt()
        * (1.0 + 4.0 * f64::EPSILON)
}

/// `(gap − |n| ε/2) / μ`, or 0 when the gap is below `|n| ε/2` (or NaN).
#[inline]
fn key_along(eps: f64, gap: f64, n: DVec3, mu: f64) -> f64 {
    let margin = 0.5 * eps * n.length();
    if gap.partial_cmp(&margin) != Some(std::cmp::Ordering::Greater) {
        return 0.0;
    }
    if mu > 0.0 {
        (gap - margin) / mu
    } else if mu == 0.0 {
        f64::INFINITY
    } else {
        0.0
    }
}

/// One evaluation at time `t`: `A`'s world pose, B in A's frame, the speed bounds with
/// directions mapped into A's frame.
struct Eval<'q> {
    a: &'q RigidBody,
    b: &'q RigidBody,
    pos_ab: DAffine3,
    /// Speed bounds with their vectors in A's frame at `t`.
    sa: SpeedBound,
    sb: SpeedBound,
    eps: f64,
}

impl Eval<'_> {
    #[inline]
    fn mu(&self, n: DVec3, ra: f64, rb: f64) -> f64 {
        self.sa.bound(n, ra) + self.sb.bound(n, rb)
    }

    fn node_key(
        &self,
        x: &Rss,
        y: &Rss,
        ra: f64,
        rb: f64,
        hint: DVec3,
        cutoff: f64,
    ) -> (f64, DVec3) {
        let key = |n: DVec3| {
            let gap = rss_gap(x, y, &self.pos_ab, n);
            key_along(self.eps, gap, n, self.mu(n, ra, rb))
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

    /// Safe step from `t` (at most `cap`), and a witness when some pair is within `ε`.
    fn run(
        &self,
        cap: f64,
        scratch: &mut BoundedScratch,
        stats: &mut Stats,
    ) -> (f64, Option<Witness>, Option<Witness>) {
        let half = 0.5 * self.eps;
        let mut best = cap;
        let mut closest: Option<Witness> = None;
        let (ba, bb) = (self.a.mesh_bvh().bvh(), self.b.mesh_bvh().bvh());
        let (rad_a, rad_b) = (self.a.node_radii(), self.b.node_radii());
        let (ma, mb) = (self.a.mesh_bvh().mesh(), self.b.mesh_bvh().mesh());
        let pos_ab = self.pos_ab;
        scratch.heap.clear();
        if ba.node_count() == 0 || bb.node_count() == 0 {
            return (best, None, None);
        }
        let (x0, y0) = (ba.node(0).bv(), bb.node(0).bv());
        let centre = pos_ab.transform_point3(rss_center(y0)) - rss_center(x0);
        stats.bv_tests += 1;
        let (k0, n0) = self.node_key(x0, y0, rad_a[0], rad_b[0], centre, best);
        if k0 < best {
            scratch.heap.push(Entry {
                key: k0,
                a: 0,
                b: 0,
                n: n0,
            });
        }
        while let Some(Entry { key, a, b, n }) = scratch.heap.pop() {
            if key >= best {
                break;
            }
            let (na, nb) = (ba.node(a), bb.node(b));
            let children = match (na.children(), nb.children()) {
                (None, None) => {
                    scratch.tris_b.clear();
                    scratch
                        .tris_b
                        .extend(bb.node_primitives(b).iter().map(|&ib| {
                            let tb = mb.triangle(ib as usize);
                            let moved = Triangle::new(
                                pos_ab.transform_point3(tb.a),
                                pos_ab.transform_point3(tb.b),
                                pos_ab.transform_point3(tb.c),
                            );
                            (ib, moved, tri_radius(&tb))
                        }));
                    for &ia in ba.node_primitives(a) {
                        let ta = ma.triangle(ia as usize);
                        let ra = tri_radius(&ta);
                        for &(ib, tb, rb) in &scratch.tris_b {
                            let gn = triangle_gap(&ta, &tb, n);
                            if gn > self.eps * n.length()
                                && key_along(self.eps, gn, n, self.mu(n, ra, rb)) >= best
                            {
                                continue;
                            }
                            stats.primitive_tests += 1;
                            let c = triangle_triangle(&ta, &tb);
                            let w = Witness {
                                distance: c.distance,
                                point_a: c.point_a,
                                point_b: c.point_b,
                                feature_a: c.feature_a.lift(ma.triangles()[ia as usize], ia),
                                feature_b: c.feature_b.lift(mb.triangles()[ib as usize], ib),
                            };
                            if closest.is_none_or(|c| w.distance < c.distance) {
                                closest = Some(w);
                            }
                            if w.distance <= self.eps {
                                scratch.heap.clear();
                                return (0.0, Some(w), closest);
                            }
                            let nw = (w.point_b - w.point_a) / w.distance;
                            let mu = self.mu(nw, ra, rb);
                            best = best.min(if mu > 0.0 {
                                (w.distance - half) / mu
                            } else {
                                f64::INFINITY
                            });
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
                stats.bv_tests += 1;
                let (x, y) = (ba.node(ca).bv(), bb.node(cb).bv());
                let (k, kn) = self.node_key(x, y, rad_a[ca as usize], rad_b[cb as usize], n, best);
                if k < best {
                    scratch.heap.push(Entry {
                        key: k,
                        a: ca,
                        b: cb,
                        n: kn,
                    });
                }
            }
        }
        scratch.heap.clear();
        (best, None, closest)
    }
}

/// The speed bound with its vectors expressed in the frame whose world rotation is `rot`.
fn into_frame(s: SpeedBound, rot_t: glam::DMat3) -> SpeedBound {
    SpeedBound {
        linear: rot_t * s.linear,
        axis: rot_t * s.axis,
        ..s
    }
}

fn rigid_inverse(p: &DAffine3) -> DAffine3 {
    let r = p.matrix3.transpose();
    DAffine3 {
        matrix3: r,
        translation: -(r * p.translation),
    }
}

fn check_window(start: f64, end: f64) -> Result<(), CaError> {
    if (0.0..=1.0).contains(&start) && (0.0..=1.0).contains(&end) {
        Ok(())
    } else {
        Err(CaError::InvalidWindow { start, end })
    }
}

fn window_contact(w: Witness, pa: &DAffine3, toc: f64, status: Status, stats: Stats) -> Contact {
    let point_a = pa.transform_point3(w.point_a);
    let point_b = pa.transform_point3(w.point_b);
    Contact {
        toc,
        point_a,
        point_b,
        normal: (point_b - point_a).try_normalize().unwrap_or(DVec3::Z),
        distance: w.distance,
        feature_a: w.feature_a,
        feature_b: w.feature_b,
        status,
        stats,
    }
}

/// The first time of contact of two meshes in the window `[start, end] ⊆ [0, 1]` under any
/// [`PairMotion`], by conservative advancement with C2A-style per-node steps whose motion
/// bounds come from the node radii and the pair's [`SpeedBound`]s (CATCH, Sec. 3.4 and 6).
///
/// The caller vouches for `[0, start)` (e.g. a convex-hull lower bound); the search starts at
/// `start`. Returns `Ok(None)` when the bodies stay apart (at least `ε/2`) over
/// `[start, end]`, or rather: until CA proves the next safe time reaches `end` — a caller
/// using `end` as a running minimum (CATCH Alg. 1) abandons the pair there. Otherwise a
/// [`Contact`] with `toc ∈ [start, end)`: separated on `[start, toc)`, distance `≤ ε` at
/// `toc` ([`Status::Converged`], or [`Status::InitiallyTouching`] when `toc == start`, which
/// the caller interprets); with [`Status::OutOfIterations`] the cap was hit and `toc` is a
/// conservative lower bound, and so it is with [`Status::Stalled`] (no progress could be
/// certified, e.g. a NaN or vanishing step). [`CaOptions::mode`] is ignored (the window gives Boolean
/// queries their early exit).
///
/// # Errors
/// The option errors of [`time_of_contact`](crate::time_of_contact);
/// [`CaError::InvalidWindow`] unless `0 ≤ start, end ≤ 1`.
///
/// # Example
/// See [`RigidPair`].
pub fn time_of_contact_bounded<M: PairMotion + ?Sized>(
    a: &RigidBody,
    b: &RigidBody,
    motion: &M,
    start: f64,
    end: f64,
    opts: &CaOptions,
    scratch: &mut BoundedScratch,
) -> Result<Option<Contact>, CaError> {
    crate::mesh_mesh::check_options(opts)?;
    check_window(start, end)?;
    let mut stats = Stats::default();
    let mut t = start;
    if t >= end {
        return Ok(None);
    }
    loop {
        let (pa, pb) = motion.poses(t);
        let inv = rigid_inverse(&pa);
        let [sa, sb] = motion.speed_bounds(t);
        let ev = Eval {
            a,
            b,
            pos_ab: inv * pb,
            sa: into_frame(sa, inv.matrix3),
            sb: into_frame(sb, inv.matrix3),
            eps: opts.tolerance,
        };
        let (step, touching, closest) = ev.run(end - t, scratch, &mut stats);
        stats.iterations += 1;
        if let Some(w) = touching {
            let status = if t == start {
                Status::InitiallyTouching
            } else {
                Status::Converged
            };
            return Ok(Some(window_contact(w, &pa, t, status, stats)));
        }
        let next = t + step;
        if next >= end {
            return Ok(None);
        }
        let w = closest.unwrap_or(Witness {
            distance: f64::INFINITY,
            point_a: DVec3::ZERO,
            point_b: DVec3::ZERO,
            feature_a: Feature::Face(0),
            feature_b: Feature::Face(0),
        });
        if next <= t || next.is_nan() {
            // no progress (a step below the resolution of t, or NaN): conservative stop
            return Ok(Some(window_contact(w, &pa, t, Status::Stalled, stats)));
        }
        if stats.iterations >= opts.max_iterations {
            return Ok(Some(window_contact(
                w,
                &pa,
                next,
                Status::OutOfIterations,
                stats,
            )));
        }
        t = next;
    }
}

/// Separation of two hulls along unit `n` (world) from their support functions.
fn hull_gap(
    a: &ccd_distance::ConvexHull,
    pa: &DAffine3,
    b: &ccd_distance::ConvexHull,
    pb: &DAffine3,
    n: DVec3,
) -> f64 {
    let (sa, _) = a.support(pa.matrix3.transpose() * n);
    let (sb, _) = b.support(pb.matrix3.transpose() * -n);
    let ga = pa.transform_point3(sa);
    let gb = pb.transform_point3(sb);
    let scale = ga.abs().max_element() + gb.abs().max_element();
    gb.dot(n) - ga.dot(n) - 64.0 * f64::EPSILON * scale
}

/// [`time_of_contact_bounded`] on the convex hulls of the bodies (built with
/// [`RigidBody::with_hull`]) with GJK distances: a lower bound of the mesh pair's time of
/// contact (the hulls contain the meshes), cheap enough to sort pairs by (CATCH, Sec. 7.2).
/// Steps are the separating-slab width along GJK's direction (exact support functions)
/// over the speed bound with the bodies' radii. Same window contract; features index hull
/// vertices mapped back to mesh vertices, as in
/// [`time_of_contact_convex`](crate::time_of_contact_convex).
///
/// # Errors
/// [`CaError::MissingHull`], [`CaError::Gjk`], and the errors of
/// [`time_of_contact_bounded`].
///
/// # Example
/// ```
/// use std::sync::Arc;
/// use ccd_ca_rigid::{time_of_contact_convex_bounded, BoundedScratch, CaOptions, RigidBody, RigidPair};
/// use ccd_bvh::{BvhOptions, MeshBvh, Rss};
/// use ccd_geometry::{glam::{DAffine3, DVec3}, TriMesh};
/// use ccd_kinematics::RigidMotion;
///
/// let tetra = TriMesh::new(vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z], vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])?;
/// let body = RigidBody::with_hull(Arc::new(MeshBvh::<Rss>::new(tetra, &BvhOptions::default())?))?;
/// let still = RigidMotion::stationary(DAffine3::IDENTITY)?;
/// let moving = RigidMotion::between(DAffine3::from_translation(DVec3::new(3.0, 0.0, 0.0)), DAffine3::from_translation(DVec3::new(-1.0, 0.0, 0.0)))?;
/// let c = time_of_contact_convex_bounded(&body, &body, &RigidPair { a: &still, b: &moving }, 0.0, 1.0, &CaOptions::default())?;
/// assert!(c.expect("contact").toc <= 0.5);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn time_of_contact_convex_bounded<M: PairMotion + ?Sized>(
    a: &RigidBody,
    b: &RigidBody,
    motion: &M,
    start: f64,
    end: f64,
    opts: &CaOptions,
) -> Result<Option<Contact>, CaError> {
    crate::mesh_mesh::check_options(opts)?;
    check_window(start, end)?;
    let (Some(ha), Some(hb)) = (a.hull(), b.hull()) else {
        return Err(CaError::MissingHull);
    };
    let eps = opts.tolerance;
    let half = 0.5 * eps;
    let (ra, rb) = (a.radius(), b.radius());
    let gjk = GjkOptions::default();
    let mut cache = GjkCache::new();
    let mut stats = Stats::default();
    let mut t = start;
    if t >= end {
        return Ok(None);
    }
    loop {
        let (pa, pb) = motion.poses(t);
        let r = gjk_distance_cached(ha, &pa, hb, &pb, &gjk, &mut cache)?;
        stats.iterations += 1;
        stats.primitive_tests += u64::from(r.iterations);
        let lift = |f: Feature, hull: &ccd_distance::ConvexHull| {
            let id = |i: u32| hull.input_indices().get(i as usize).copied().unwrap_or(i);
            match f {
                Feature::Vertex(i) => Feature::Vertex(id(i)),
                Feature::Edge(i, j) => Feature::edge(id(i), id(j)),
                face => face,
            }
        };
        let contact = |status, toc: f64, stats| Contact {
            toc,
            point_a: r.point_a,
            point_b: r.point_b,
            normal: r.normal.try_normalize().unwrap_or(DVec3::Z),
            distance: r.distance,
            feature_a: lift(r.feature_a, ha),
            feature_b: lift(r.feature_b, hb),
            status,
            stats,
        };
        if r.intersecting || r.distance <= eps {
            let status = if t == start {
                Status::InitiallyTouching
            } else {
                Status::Converged
            };
            return Ok(Some(contact(status, t, stats)));
        }
        let [sa, sb] = motion.speed_bounds(t);
        let mu = |n: DVec3| sa.bound(n, ra) + sb.bound(n, rb);
        let mut step = 0.0f64;
        if let Some(n) = r.normal.try_normalize() {
            let gap = hull_gap(ha, &pa, hb, &pb, n).min(r.distance);
            step = key_along(eps, gap, n, mu(n));
        }
        if step <= 0.0 && r.lower_bound > half {
            // direction-free: |v·n| ≤ max over unit n of the bound ≤ the bound's norm terms
            let free = sa.linear.length()
                + sa.omega * (ra + sa.lever)
                + sa.extra
                + sa.extra_per_radius * ra
                + sb.linear.length()
                + sb.omega * (rb + sb.lever)
                + sb.extra
                + sb.extra_per_radius * rb;
            step = if free > 0.0 {
                (r.lower_bound - half) / (free * (1.0 + 1e-12))
            } else {
                f64::INFINITY
            };
        }
        let next = t + step;
        if next >= end {
            return Ok(None);
        }
        if next <= t || next.is_nan() {
            // no progress (a step below the resolution of t, or NaN): conservative stop
            return Ok(Some(contact(Status::Stalled, t, stats)));
        }
        if stats.iterations >= opts.max_iterations {
            return Ok(Some(contact(Status::OutOfIterations, next, stats)));
        }
        t = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DQuat;

    #[test]
    fn speed_bound_of_a_rigid_motion_covers_sampled_velocities() {
        let m = RigidMotion::between(
            DAffine3::from_rotation_translation(
                DQuat::from_rotation_y(0.3),
                DVec3::new(1.0, 2.0, 0.0),
            ),
            DAffine3::from_rotation_translation(
                DQuat::from_rotation_x(2.0),
                DVec3::new(-1.0, 0.5, 0.3),
            ),
        )
        .unwrap();
        let s = SpeedBound::rigid(&m);
        let p = DVec3::new(0.3, -0.4, 0.5);
        let r = p.length();
        for n in [
            DVec3::X,
            DVec3::Y,
            DVec3::Z,
            DVec3::new(1.0, -2.0, 0.5).normalize(),
        ] {
            for k in 0..=20 {
                let t = f64::from(k) / 20.0;
                assert!(m.velocity_of(p, t).dot(n).abs() <= s.bound(n, r) + 1e-12);
            }
        }
    }

    #[test]
    fn window_errors_are_typed() {
        let mesh =
            ccd_geometry::TriMesh::new(vec![DVec3::ZERO, DVec3::X, DVec3::Y], vec![[0, 1, 2]])
                .unwrap();
        let body = RigidBody::new(std::sync::Arc::new(
            ccd_bvh::MeshBvh::<Rss>::new(mesh, &ccd_bvh::BvhOptions::default()).unwrap(),
        ));
        let m = RigidMotion::stationary(DAffine3::IDENTITY).unwrap();
        let pair = RigidPair { a: &m, b: &m };
        let mut s = BoundedScratch::default();
        let r = time_of_contact_bounded(
            &body,
            &body,
            &pair,
            -0.1,
            1.0,
            &CaOptions::default(),
            &mut s,
        );
        assert!(matches!(r, Err(CaError::InvalidWindow { .. })));
        let r = time_of_contact_bounded(
            &body,
            &body,
            &pair,
            0.0,
            f64::NAN,
            &CaOptions::default(),
            &mut s,
        );
        assert!(matches!(r, Err(CaError::InvalidWindow { .. })));
        // an empty window has no contact
        let r =
            time_of_contact_bounded(&body, &body, &pair, 0.5, 0.5, &CaOptions::default(), &mut s);
        assert_eq!(r, Ok(None));
        // a coincident copy touches at the start
        let c = time_of_contact_bounded(
            &body,
            &body,
            &pair,
            0.25,
            1.0,
            &CaOptions::default(),
            &mut s,
        )
        .unwrap()
        .unwrap();
        assert_eq!((c.toc, c.status), (0.25, Status::InitiallyTouching));
    }
}
