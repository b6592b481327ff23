//! Conservative advancement between any two [`Shape`]s: analytic shapes, convex hulls,
//! meshes and compounds, under constant-velocity rigid motions that may turn about any
//! rotation centre ([`RigidMotion::local_center`]).
//!
//! See [`time_of_contact_shapes`] for the bounds each step rests on.

use ccd_distance::{
    ConvexShape, MAX_COORDINATE, MeshDistanceOptions, convex_distance_within, mesh_distance,
};
use ccd_geometry::{Feature, Triangle};
use ccd_kinematics::RigidMotion;
use glam::{DAffine3, DVec3};

use crate::driver::{Probe, SafeStep, Search, advance_search};
use crate::mesh_mesh::time_of_contact_with_stats;
use crate::shape_gap::{
    convex_near, core_extent, core_support, rss_convex_gap, rss_point, tri_convex_gap,
    tri_radius_about,
};
use crate::{CaError, CaOptions, Mode, RigidBody, Shape, ShapeContact, Stats, Status};
use ccd_geometry::rigid_inverse;

enum Geom<'s> {
    Convex(ConvexShape<'s>),
    Mesh(&'s RigidBody),
}

/// One part of a body: its geometry, offset (part → body) and motion-bound radii.
struct Part<'s> {
    index: u32,
    offset: Option<DAffine3>,
    geom: Geom<'s>,
    /// Largest distance of a core point from the rotation centre.
    core_r: f64,
    /// The rotation centre in the part's frame.
    centre: DVec3,
    /// Bounding sphere (part frame) of the whole part.
    sphere: (DVec3, f64),
}

fn part_of(index: u32, offset: Option<DAffine3>, s: &Shape, centre: DVec3) -> Option<Part<'_>> {
    let c = offset.map_or(centre, |o| rigid_inverse(&o).transform_point3(centre));
    {
        let geom = match s {
            Shape::Mesh(m) => Geom::Mesh(m),
            Shape::Compound(_) => return None,
            other => Geom::Convex(other.as_convex()?),
        };
        let b = s.local_aabb();
        let mid = 0.5 * (b.min + b.max);
        Some(Part {
            index,
            offset,
            geom,
            core_r: s.core_radius_about(c),
            centre: c,
            sphere: (mid, s.radius_about(mid)),
        })
    }
}

fn parts_of(shape: &Shape, centre: DVec3) -> Vec<Part<'_>> {
    match shape {
        Shape::Compound(k) => k
            .parts()
            .iter()
            .enumerate()
            .filter_map(|(i, (o, s))| part_of(i as u32, Some(*o), s, centre))
            .collect(),
        s => part_of(0, None, s, centre).into_iter().collect(),
    }
}

/// The closest pair of an evaluation (world frame).
#[derive(Clone, Copy)]
struct Hit {
    distance: f64,
    point_a: DVec3,
    point_b: DVec3,
    part_a: u32,
    feature_a: Feature,
    part_b: u32,
    feature_b: Feature,
}

impl Hit {
    /// The witness of a search that stopped before any evaluation found a pair.
    const NONE: Self = Self {
        distance: f64::INFINITY,
        point_a: DVec3::ZERO,
        point_b: DVec3::ZERO,
        part_a: 0,
        feature_a: Feature::Face(0),
        part_b: 0,
        feature_b: Feature::Face(0),
    };
}

struct Query<'q> {
    a: Vec<Part<'q>>,
    b: Vec<Part<'q>>,
    ma: &'q RigidMotion,
    mb: &'q RigidMotion,
    dv: DVec3,
    ua: DVec3,
    wa: f64,
    ub: DVec3,
    wb: f64,
    eps: f64,
    /// `ε/2 + δ`.
    margin: f64,
    /// How exactly iterative distances (GJK with a cylinder) are computed: `ε/4`. A pair
    /// whose lower bound is at most the margin `ε/2 + δ` then has a distance (of two real
    /// points) at most `3ε/4 + δ < ε`: it is reported touching, so a coarse distance never
    /// stalls the advancement; steps use the lower bound, which stays proven.
    gjk_tolerance: f64,
}

/// A node of a mesh traversal waiting in the queue (key = safe advancement time).
#[derive(Clone, Copy)]
struct Entry {
    key: f64,
    node: u32,
}
impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.key.total_cmp(&o.key).is_eq()
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        o.key.total_cmp(&self.key)
    }
}

/// State of one evaluation.
struct Eval {
    best: f64,
    touching: Option<Hit>,
    closest: Option<Hit>,
}

impl Eval {
    fn record(&mut self, h: Hit, eps: f64) -> bool {
        if self.closest.is_none_or(|c| h.distance < c.distance) {
            self.closest = Some(h);
        }
        // (a NaN distance proves nothing: reported as touching)
        if h.distance <= eps || h.distance.is_nan() {
            self.touching = Some(h);
            self.best = 0.0;
            return true;
        }
        false
    }
}

impl Query<'_> {
    /// Bound on `|(v_b − v_a)·n|` for unit `n` (world) and points within `ra`, `rb` of the
    /// rotation centres.
    #[inline]
    fn mu(&self, n: DVec3, ra: f64, rb: f64) -> f64 {
        let lin = self.dv.dot(n).abs();
        let ang =
            self.wa * self.ua.cross(n).length() * ra + self.wb * self.ub.cross(n).length() * rb;
        (lin + ang) * (1.0 + 1e-12)
    }

    /// The bound of [`Query::mu`] for two convex parts, tightened with where their cores
    /// are at the evaluated time and how far they can turn within `horizon` (valid over
    /// `[t, t + horizon]` only): a point at offset `q` from its rotation centre moves along
    /// `n` with `v·n + ω q·(n × u)`, `|q| ≤ r` and `q` turns by at most `θ = ω·horizon`, so
    /// `|q·w| ≤ min(r|w|, e + θ r|w|)` with `w = n × u` and `e = max |q(t)·w|` over the core
    /// (its support functions; docs/architecture.md, "Rigid motion bound").
    #[allow(clippy::too_many_arguments)]
    fn mu_parts(
        &self,
        n: DVec3,
        x: &Part<'_>,
        cx: ConvexShape<'_>,
        px: &DAffine3,
        y: &Part<'_>,
        cy: ConvexShape<'_>,
        py: &DAffine3,
        horizon: f64,
    ) -> f64 {
        let term = |omega: f64, u: DVec3, part: &Part<'_>, c: ConvexShape<'_>, pose: &DAffine3| {
            if omega == 0.0 {
                return 0.0;
            }
            let w = n.cross(u);
            let wl = w.length();
            let rw = part.core_r * wl;
            let e = core_extent(c, pose.matrix3.transpose() * w, part.centre, part.core_r);
            omega * rw.min(e + rw * (omega * horizon + 8.0 * f64::EPSILON))
        };
        let lin = self.dv.dot(n).abs();
        let ang = term(self.wa, self.ua, x, cx, px) + term(self.wb, self.ub, y, cy, py);
        (lin + ang) * (1.0 + 1e-12)
    }

    /// A safe step for two convex parts separated by `gap` along the unit direction `n`
    /// (world) at the evaluated time, from a second-order bound of the gap: every point of
    /// a body projects on `n` as `p(s)` with `p'(0) = v·n + ω q·w` (`q` its offset from the
    /// rotation centre, `w = n × u`) and `|p''| ≤ ω² |q| ≤ ω² r`. So the largest projection
    /// of A grows by at most `s (v_a·n + ω_a h_A(w_a)) + s² ω_a² r_a / 2` (`h` the core's
    /// support function about the centre, *signed*: a part turning away from the other
    /// body is not charged for it), the smallest of B shrinks by at most
    /// `s (−v_b·n + ω_b h_B(−w_b)) + s² ω_b² r_b / 2`, and the gap stays above `ε/2 + δ`
    /// until the smallest positive root of `gap − ε/2 − δ − α s − β s²/2`, with
    /// `α = (v_a − v_b)·n + ω_a h_A(w_a) + ω_b h_B(−w_b)`, `β = ω_a² r_a + ω_b² r_b`.
    /// Valid for any step length (no horizon), any angle.
    #[allow(clippy::too_many_arguments)]
    fn key_second_order(
        &self,
        gap: f64,
        n: DVec3,
        x: &Part<'_>,
        cx: ConvexShape<'_>,
        px: &DAffine3,
        y: &Part<'_>,
        cy: ConvexShape<'_>,
        py: &DAffine3,
    ) -> f64 {
        let g = gap - self.margin;
        if g.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
            return 0.0;
        }
        let support =
            |omega: f64, w: DVec3, part: &Part<'_>, c: ConvexShape<'_>, pose: &DAffine3| {
                if omega == 0.0 {
                    0.0
                } else {
                    omega * core_support(c, pose.matrix3.transpose() * w, part.centre, part.core_r)
                }
            };
        let ha = support(self.wa, n.cross(self.ua), x, cx, px);
        let hb = support(self.wb, -n.cross(self.ub), y, cy, py);
        let lin = -self.dv.dot(n);
        let alpha = lin + ha + hb + 1e-12 * (lin.abs() + ha.abs() + hb.abs());
        let beta = (self.wa * self.wa * x.core_r + self.wb * self.wb * y.core_r) * (1.0 + 1e-12);
        let s = if beta > 0.0 {
            let root = (alpha * alpha + 2.0 * beta * g).sqrt();
            if alpha < 0.0 {
                (root - alpha) / beta
            } else {
                2.0 * g / (alpha + root)
            }
        } else if alpha > 0.0 {
            g / alpha
        } else {
            return f64::INFINITY;
        };
        // (a NaN gives 0: no advancement)
        if s > 0.0 { s * (1.0 - 1e-10) } else { 0.0 }
    }

    /// A lower bound of the gap along the unit direction `n` (world) after a step `s`, for
    /// two convex parts whose gap along `n` is at least `gap` now: each point's projection
    /// `p(s) ≤ p(0) + s p'(0) + s² ω² r / 2` with `p'(0) = v·n + ω q·(n × u)`, so A's
    /// largest projection is at most `n·C_a + s v_a·n + h_A(n + s ω_a (n × u_a)) + s² β_a / 2`
    /// (`h` the core's support about the rotation centre; exact, not split, so a fast point
    /// far behind the front is not charged), and B's smallest at least
    /// `n·C_b + s v_b·n − h_B(−n − s ω_b (n × u_b)) − s² β_b / 2`. The bound is concave in
    /// `s` (support functions are convex), so it stays above `ε/2 + δ` on `[0, s]` as soon
    /// as it does at `0` and at `s`.
    #[allow(clippy::too_many_arguments)]
    fn gap_after(
        &self,
        s: f64,
        gap: f64,
        n: DVec3,
        x: &Part<'_>,
        cx: ConvexShape<'_>,
        px: &DAffine3,
        y: &Part<'_>,
        cy: ConvexShape<'_>,
        py: &DAffine3,
    ) -> f64 {
        // the growth of a part's support along `dir + s ω (dir × u)` over its value at `dir`,
        // rounded up (both values carry their rounding allowance; the one subtracted twice)
        let growth = |omega: f64,
                      u: DVec3,
                      dir: DVec3,
                      part: &Part<'_>,
                      c: ConvexShape<'_>,
                      pose: &DAffine3| {
            if omega == 0.0 {
                return 0.0;
            }
            let rt = pose.matrix3.transpose();
            let m = dir + dir.cross(u) * (s * omega);
            let h1 = core_support(c, rt * m, part.centre, part.core_r);
            let h0 = core_support(c, rt * dir, part.centre, part.core_r);
            h1 - h0 + 128.0 * f64::EPSILON * (part.core_r + 2.0 * part.centre.length())
        };
        let ga = growth(self.wa, self.ua, n, x, cx, px);
        let gb = growth(self.wb, self.ub, -n, y, cy, py);
        let lin = -self.dv.dot(n) * s;
        let beta = (self.wa * self.wa * x.core_r + self.wb * self.wb * y.core_r) * (1.0 + 1e-12);
        let shrink = lin + ga + gb + 0.5 * beta * s * s;
        gap - shrink - 1e-12 * (lin.abs() + ga.abs() + gb.abs() + 0.5 * beta * s * s)
    }

    /// The largest step in `[safe, cap]` (to four bisections) after which
    /// [`Query::gap_after`] still exceeds `ε/2 + δ`; `safe` is a step already certified.
    #[allow(clippy::too_many_arguments)]
    fn extend_step(
        &self,
        safe: f64,
        cap: f64,
        gap: f64,
        n: DVec3,
        x: &Part<'_>,
        cx: ConvexShape<'_>,
        px: &DAffine3,
        y: &Part<'_>,
        cy: ConvexShape<'_>,
        py: &DAffine3,
    ) -> f64 {
        if gap.partial_cmp(&self.margin) != Some(std::cmp::Ordering::Greater) || !cap.is_finite() {
            return safe;
        }
        let holds = |s: f64| self.gap_after(s, gap, n, x, cx, px, y, cy, py) > self.margin;
        if holds(cap) {
            return cap;
        }
        let (mut lo, mut hi) = (safe, cap);
        for _ in 0..4 {
            let mid = 0.5 * (lo + hi);
            if holds(mid) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        lo
    }

    #[inline]
    fn free(&self, ra: f64, rb: f64) -> f64 {
        (self.dv.length() + self.wa * ra + self.wb * rb) * (1.0 + 1e-12)
    }

    /// Safe step of a pair separated by `gap` along unit `n` (0 when it cannot be certified).
    #[inline]
    fn key(&self, gap: f64, mu: f64) -> f64 {
        if gap.partial_cmp(&self.margin) != Some(std::cmp::Ordering::Greater) {
            return 0.0;
        }
        if mu > 0.0 {
            (gap - self.margin) / mu
        } else if mu == 0.0 {
            f64::INFINITY
        } else {
            0.0
        }
    }

    fn evaluate(
        &self,
        t: f64,
        cap: f64,
        stats: &mut Stats,
        heap: &mut std::collections::BinaryHeap<Entry>,
    ) -> Eval {
        let (pa, pb) = (self.ma.pose_at(t), self.mb.pose_at(t));
        let mut ev = Eval {
            best: cap,
            touching: None,
            closest: None,
        };
        for x in &self.a {
            let px = x.offset.map_or(pa, |o| pa * o);
            for y in &self.b {
                let py = y.offset.map_or(pb, |o| pb * o);
                match (&x.geom, &y.geom) {
                    (Geom::Convex(cx), Geom::Convex(cy)) => {
                        stats.primitive_tests += 1;
                        let pos = rigid_inverse(&px) * py;
                        let d = convex_distance_within(*cx, *cy, &pos, self.gjk_tolerance);
                        let h = Hit {
                            distance: d.distance,
                            point_a: px.transform_point3(d.point_a),
                            point_b: px.transform_point3(d.point_b),
                            part_a: x.index,
                            feature_a: d.feature_a,
                            part_b: y.index,
                            feature_b: d.feature_b,
                        };
                        if ev.record(h, self.eps) {
                            return ev;
                        }
                        let n = px.matrix3 * d.normal;
                        let mu = self.mu_parts(n, x, *cx, &px, y, *cy, &py, cap);
                        let k = self.key(d.lower_bound, mu).max(self.key_second_order(
                            d.lower_bound,
                            n,
                            x,
                            *cx,
                            &px,
                            y,
                            *cy,
                            &py,
                        ));
                        // a longer step when the sheared-support bound certifies it
                        // (only when a part's turn moves its core: a ball spinning about its
                        // centre gains nothing over the bounds above)
                        let turns = self.wa * x.core_r > 0.0 || self.wb * y.core_r > 0.0;
                        let k = if k < ev.best && turns {
                            self.extend_step(k, ev.best, d.lower_bound, n, x, *cx, &px, y, *cy, &py)
                        } else {
                            k
                        };
                        ev.best = ev.best.min(k);
                    }
                    (Geom::Mesh(m), Geom::Convex(c)) => {
                        self.mesh_convex(m, x, &px, *c, y, &py, false, &mut ev, stats, heap);
                    }
                    (Geom::Convex(c), Geom::Mesh(m)) => {
                        self.mesh_convex(m, y, &py, *c, x, &px, true, &mut ev, stats, heap);
                    }
                    (Geom::Mesh(ma), Geom::Mesh(mb)) => {
                        stats.primitive_tests += 1;
                        let r = mesh_distance(
                            ma.mesh_bvh(),
                            &px,
                            mb.mesh_bvh(),
                            &py,
                            &MeshDistanceOptions::default(),
                        );
                        let Ok(r) = r else {
                            // (poses within the checked domain: not expected) no certificate
                            ev.best = 0.0;
                            continue;
                        };
                        let c = r.closest;
                        let h = Hit {
                            distance: c.distance,
                            point_a: c.point_a,
                            point_b: c.point_b,
                            part_a: x.index,
                            feature_a: c.feature_a,
                            part_b: y.index,
                            feature_b: c.feature_b,
                        };
                        if ev.record(h, self.eps) {
                            return ev;
                        }
                        ev.best = ev
                            .best
                            .min(self.key(c.distance, self.free(x.core_r, y.core_r)));
                    }
                }
                if ev.touching.is_some() {
                    return ev;
                }
            }
        }
        ev
    }

    /// The leaves of a mesh part against a convex part (best-first over the RSS tree).
    /// `swapped`: the convex part belongs to body A.
    #[allow(clippy::too_many_arguments)]
    fn mesh_convex(
        &self,
        mesh: &RigidBody,
        mp: &Part<'_>,
        pose_m: &DAffine3,
        convex: ConvexShape<'_>,
        cp: &Part<'_>,
        pose_c: &DAffine3,
        swapped: bool,
        ev: &mut Eval,
        stats: &mut Stats,
        heap: &mut std::collections::BinaryHeap<Entry>,
    ) {
        let bvh = mesh.mesh_bvh().bvh();
        if bvh.node_count() == 0 {
            return;
        }
        let tris = mesh.mesh_bvh().mesh();
        let radii = mesh.node_radii();
        let lever = mp.centre.length();
        let pos = rigid_inverse(pose_m) * *pose_c;
        let centre = pos.transform_point3(cp.sphere.0);
        let rad = cp.sphere.1;
        let rot = pose_m.matrix3;
        // slab bound along n between the mesh's content and the convex part
        let mu = |n: DVec3, r_mesh: f64| {
            if swapped {
                self.mu(n, cp.core_r, r_mesh)
            } else {
                self.mu(n, r_mesh, cp.core_r)
            }
        };
        // the convex part's frame from the mesh part's
        let pos_inv = rigid_inverse(&pos);
        // a safe key along the mesh-frame unit direction `n` (from the node towards the
        // convex part) for a gap along it
        let key_along = |i: u32, gap: f64, n: DVec3| {
            let w = rot * if swapped { -n } else { n };
            if w == DVec3::ZERO {
                return 0.0;
            }
            self.key(gap, mu(w, radii[i as usize] + lever))
        };
        // two directions: towards the convex part's bounding sphere (gap from the sphere),
        // and towards the point of the convex part nearest the node's centre (gap from the
        // support functions: tight for large shapes, e.g. a floor under a mesh)
        let node_key = |i: u32| {
            let bv = bvh.node(i).bv();
            let (d, n) = rss_point(bv, centre);
            let k_sphere = key_along(i, (d - rad) * (1.0 - 1e-12) - 1e-300, n);
            let near = pos.transform_point3(convex_near(
                convex,
                pos_inv.transform_point3(crate::node_key::rss_center(bv)),
            ));
            let (_, m) = rss_point(bv, near);
            if m == DVec3::ZERO {
                return k_sphere;
            }
            let k_support = key_along(i, rss_convex_gap(bv, convex, &pos, m), m);
            k_sphere.max(k_support)
        };
        heap.clear();
        stats.bv_tests += 1;
        let k0 = node_key(0);
        if k0 < ev.best {
            heap.push(Entry { key: k0, node: 0 });
        }
        while let Some(Entry { key, node }) = heap.pop() {
            if key >= ev.best {
                break;
            }
            if let Some(children) = bvh.node(node).children() {
                for c in children {
                    stats.bv_tests += 1;
                    let k = node_key(c);
                    if k < ev.best {
                        heap.push(Entry { key: k, node: c });
                    }
                }
                continue;
            }
            // a cheap key per triangle first, along the leaf's direction towards the convex
            // part: a triangle separated by more than ε along it is not touching, and if
            // that key already reaches the step its exact distance cannot lower the step
            let leaf = bvh.node(node).bv();
            let near = pos.transform_point3(convex_near(
                convex,
                pos_inv.transform_point3(crate::node_key::rss_center(leaf)),
            ));
            let (_, m) = rss_point(leaf, near);
            for &it in bvh.node_primitives(node) {
                let tri: Triangle = tris.triangle(it as usize);
                if m != DVec3::ZERO {
                    let gap = tri_convex_gap(&tri, convex, &pos, m);
                    if gap > self.eps {
                        let r_tri = tri_radius_about(&tri, mp.centre);
                        let w = rot * if swapped { -m } else { m };
                        if self.key(gap, mu(w, r_tri)) >= ev.best {
                            continue;
                        }
                    }
                }
                stats.primitive_tests += 1;
                let d = convex_distance_within(
                    ConvexShape::Triangle(&tri),
                    convex,
                    &pos,
                    self.gjk_tolerance,
                );
                let feature_m = d.feature_a.lift(tris.triangles()[it as usize], it);
                let (wa, wb) = (
                    pose_m.transform_point3(d.point_a),
                    pose_m.transform_point3(d.point_b),
                );
                let h = if swapped {
                    Hit {
                        distance: d.distance,
                        point_a: wb,
                        point_b: wa,
                        part_a: cp.index,
                        feature_a: d.feature_b,
                        part_b: mp.index,
                        feature_b: feature_m,
                    }
                } else {
                    Hit {
                        distance: d.distance,
                        point_a: wa,
                        point_b: wb,
                        part_a: mp.index,
                        feature_a: feature_m,
                        part_b: cp.index,
                        feature_b: d.feature_b,
                    }
                };
                if ev.record(h, self.eps) {
                    heap.clear();
                    return;
                }
                let r_tri = tri_radius_about(&tri, mp.centre);
                let n = rot * if swapped { -d.normal } else { d.normal };
                ev.best = ev.best.min(self.key(d.lower_bound, mu(n, r_tri)));
            }
        }
        heap.clear();
    }
}

/// Most advancement steps of the hulls standing in for meshes before the shapes' own.
const HULL_STEPS: u32 = 16;

/// A convex shape containing `s` for the hull stage: the shape itself when it is convex
/// (not a mesh or compound), a mesh's hull when it carries one, else `None`.
fn hull_stand_in(s: &Shape) -> Option<Shape> {
    match s {
        Shape::Mesh(body) => body.shared_hull().map(|h| Shape::ConvexHull(h.clone())),
        Shape::Compound(_) => None,
        convex => Some(convex.clone()),
    }
}

fn check_domain(s: &Shape, m: &RigidMotion, body: u8) -> Result<(), CaError> {
    let value = s.max_abs_coordinate();
    if value > MAX_COORDINATE || value.is_nan() {
        return Err(CaError::OutOfDomain {
            body,
            what: "vertex coordinate",
            value,
        });
    }
    let p = m.params();
    for end in [p.translation(), p.translation() + p.displacement()] {
        let value = end.abs().max_element();
        if value > MAX_COORDINATE || value.is_nan() {
            return Err(CaError::OutOfDomain {
                body,
                what: "translation",
                value,
            });
        }
    }
    Ok(())
}

/// The first time of contact of two shapes under constant-velocity rigid motions over
/// `t ∈ [0, 1]`, by conservative advancement.
/// Motions may turn by any angle about any rotation centre
/// ([`RigidMotion::from_velocities`]); the motion bounds use each part's own radius about
/// that centre.
///
/// # Bounds
/// Each iteration evaluates every pair of *leaves* — two convex parts, or a convex part and
/// a triangle of a mesh part (found by a best-first traversal of the mesh's RSS tree), or two
/// mesh parts — at the current time `t`, and takes the smallest safe step over them:
///
/// - a pair separated by a slab of width `g` along a unit direction `n` (world) stays
///   separated while the slab stays open; a point `x` of a body moves with
///   `v + ω u × (x − C(t))`, `C` the rotation centre, so along `n` with speed at most
///   `|v·n| + ω |u × n| r` for `r` the largest distance of the part's points from the centre
///   (which rotation does not change). The slab of the pair closes at most at
///   `μ(n) = |Δv·n| + ω_a |u_a × n| r_a + ω_b |u_b × n| r_b` (absolute values: valid for any
///   geometry and any turn), so the step `(g − ε/2 − δ) / μ(n)` keeps the pair at least `ε/2`
///   apart (docs/architecture.md, "Rigid motion bound");
/// - balls and capsules are cores (a point, a segment) swept by a sphere whose support along
///   `n` does not depend on the rotation: their slab moves with the core, so `r` is the
///   core's radius about the centre — a ball spinning about its own centre does not slow
///   the advancement;
/// - `g` is the distance for the exact pair kernels and GJK's separating-slab lower bound
///   otherwise (cylinders), [`ShapeDistance::lower_bound`](ccd_distance::ShapeDistance);
///   mesh nodes use the distance from their RSS to the convex part's bounding sphere along
///   the direction between them; two mesh parts of compounds use their exact mesh distance
///   with the direction-free bound `|Δv| + ω_a r_a + ω_b r_b`; GJK (cylinder pairs) stops
///   once its bounds are within `ε/4` of each other
///   ([`convex_distance_within`](ccd_distance::convex_distance_within));
/// - two convex parts take the larger of two safe steps: the one above with the turn
///   limited to the step's horizon (twice the last step), `ω min(r|w|, e + θ r|w|)` for
///   `w = u × n`, `e` the core's extent along `w` and `θ` the turn over the horizon; and a
///   second-order one, where each body's extreme projection on `n` moves at most by
///   `s (v·n + ω h(±w)) + s² ω² r / 2` (`h` the core's *signed* support about the rotation
///   centre: a part turning away from the other is not charged for it); while a part's
///   turn moves its core, the step is then extended (four bisections up to the
///   evaluation's cap) as long as a concave lower bound of the gap along `n` stays above
///   `ε/2 + δ`: the core's support in the sheared direction `n + s ω (n × u)` plus
///   `s² ω² r / 2` bounds each body's extreme projection after a step `s`.
///
/// `δ` is the rounding allowance, `1e-12` of the query's coordinate scale, as in
/// [`time_of_contact`](crate::time_of_contact).
///
/// # Contract
/// The contract of [`time_of_contact`](crate::time_of_contact): `Ok(None)` ⇒ the shapes stay more than `ε/2` apart
/// over `[0, 1]`; a contact has a conservative `toc` (separated on `[0, toc)`, distance
/// `≤ ε` at `toc` when [`Status::Converged`] or [`Status::InitiallyTouching`]); with
/// [`Status::OutOfIterations`] or [`Status::Stalled`] `toc` is a lower bound. Witness points
/// and normal in world coordinates at `toc`, features as [`ShapeContact`] documents.
/// [`Mode::Boolean`] queries first look for a pair within `ε` at `t = 1` and report it
/// (toc 1, [`Status::Converged`]: contact is certain, the first contact may be earlier),
/// else run like `Toc`.
///
/// Two meshes (`Shape::Mesh` both) go to [`time_of_contact`](crate::time_of_contact), which
/// takes the same motions (any rotation centre).
/// A mesh that carries its hull ([`RigidBody::with_hull`](crate::RigidBody::with_hull))
/// against a convex shape first advances with the hull in its place (up to 16 evaluations,
/// counted as iterations): the pair is free if the hulls stay apart, else the mesh's own
/// advancement starts where they meet.
///
/// # Errors
/// [`CaError::InvalidTolerance`], [`CaError::NoIterations`]; [`CaError::OutOfDomain`] for a
/// shape or a translation beyond [`MAX_COORDINATE`]. Invalid shapes cannot be built (their
/// constructors return [`ShapeError`](ccd_distance::ShapeError)).
///
/// # Example
/// ```
/// use ccd_ca_rigid::{time_of_contact_shapes, CaOptions, Shape, Status};
/// use ccd_distance::{Ball, Capsule};
/// use ccd_geometry::glam::{DAffine3, DVec3};
/// use ccd_kinematics::RigidMotion;
///
/// let ball = Shape::Ball(Ball::new(0.5)?);
/// let capsule = Shape::Capsule(Capsule::new_y(1.0, 0.25)?);
/// let still = RigidMotion::stationary(DAffine3::IDENTITY)?;
/// // the ball flies from x = 5 to x = -5 while spinning 3 turns about a point 1 off its centre
/// let start = DAffine3::from_translation(DVec3::new(5.0, 0.0, 0.0));
/// let fly = RigidMotion::from_velocities(start, DVec3::new(-10.0, 0.0, 0.0), DVec3::Z * 6.0 * std::f64::consts::PI, DVec3::ZERO)?;
/// let c = time_of_contact_shapes(&capsule, &still, &ball, &fly, &CaOptions::default())?.expect("hit");
/// assert_eq!(c.status, Status::Converged);
/// // first touch when the centre reaches x = 0.75: t = 0.425
/// assert!(c.toc <= 0.425 && c.toc > 0.4249);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn time_of_contact_shapes(
    a: &Shape,
    motion_a: &RigidMotion,
    b: &Shape,
    motion_b: &RigidMotion,
    opts: &CaOptions,
) -> Result<Option<ShapeContact>, CaError> {
    time_of_contact_shapes_with_stats(a, motion_a, b, motion_b, opts).map(|(c, _)| c)
}

/// [`time_of_contact_shapes`] with the query's counters whatever its answer: a query that
/// proves the shapes apart (`None`) reports its iterations and tests too (a contact carries
/// the same counters in [`ShapeContact::stats`]).
///
/// # Errors
/// As [`time_of_contact_shapes`].
pub(crate) fn time_of_contact_shapes_with_stats(
    a: &Shape,
    motion_a: &RigidMotion,
    b: &Shape,
    motion_b: &RigidMotion,
    opts: &CaOptions,
) -> Result<(Option<ShapeContact>, Stats), CaError> {
    crate::contract::check_options(opts)?;
    check_domain(a, motion_a, 0)?;
    check_domain(b, motion_b, 1)?;
    if let (Shape::Mesh(ma), Shape::Mesh(mb)) = (a, b) {
        let (c, stats) = time_of_contact_with_stats(ma, motion_a, mb, motion_b, opts)?;
        return Ok((c.map(ShapeContact::from), stats));
    }
    let (ca, cb) = (motion_a.local_center(), motion_b.local_center());
    let q = Query {
        a: parts_of(a, ca),
        b: parts_of(b, cb),
        ma: motion_a,
        mb: motion_b,
        dv: motion_b.linear_velocity() - motion_a.linear_velocity(),
        ua: motion_a.axis(),
        wa: motion_a.angle(),
        ub: motion_b.axis(),
        wb: motion_b.angle(),
        eps: opts.tolerance,
        margin: 0.0,
        gjk_tolerance: 0.25 * opts.tolerance,
    };
    let (ra, rb) = (a.radius_about(ca), b.radius_about(cb));
    let reach = |m: &RigidMotion| {
        let p = m.params();
        p.translation()
            .length()
            .max((p.translation() + p.displacement()).length())
    };
    let slack = 1e-12 * (ra + rb + reach(motion_a) + reach(motion_b));
    let q = Query {
        margin: 0.5 * opts.tolerance + slack,
        ..q
    };
    // Bounding spheres about the rotation centres, whose world positions move linearly: no
    // contact before they come within ε (start there), none at all if they never do.
    let d0 = motion_b.params().translation() - motion_a.params().translation();
    let v = q.dv;
    let vv = v.length_squared();
    let reach_ab = (ra + rb + opts.tolerance) * (1.0 + 1e-9) + slack;
    let c = d0.length_squared() - reach_ab * reach_ab;
    let bq = d0.dot(v);
    let mut t = 0.0;
    if c > 0.0 {
        if bq >= 0.0 || vv == 0.0 {
            return Ok((None, Stats::default()));
        }
        let disc = bq * bq - vv * c;
        if disc < 0.0 {
            return Ok((None, Stats::default()));
        }
        t = (c / (-bq + disc.sqrt()) * (1.0 - 1e-9)).clamp(0.0, 1.0);
        if t >= 1.0 {
            return Ok((None, Stats::default()));
        }
    }
    let mut stats = Stats::default();
    let mut heap = std::collections::BinaryHeap::new();
    // A mesh that carries its hull against a convex shape (or another such mesh): no
    // contact before the hulls come within ε (the convex pair's advancement, up to
    // HULL_STEPS evaluations, far cheaper than the mesh's leaves); settles pairs that pass
    // each other and starts the others where the hulls meet
    if let (Some(ha), Some(hb)) = (hull_stand_in(a), hull_stand_in(b))
        && (matches!(a, Shape::Mesh(_)) || matches!(b, Shape::Mesh(_)))
    {
        let hq = Query {
            a: parts_of(&ha, ca),
            b: parts_of(&hb, cb),
            ..q
        };
        let steps = HULL_STEPS.min(opts.max_iterations - 1);
        let mut horizon = 1.0 - t;
        for _ in 0..steps {
            let ev = hq.evaluate(t, horizon, &mut stats, &mut heap);
            stats.iterations += 1;
            if ev.touching.is_some() {
                break;
            }
            let Some(next) = crate::advance::advance(t, ev.best, 1.0) else {
                return Ok((None, stats));
            };
            if next <= t || next.is_nan() {
                break;
            }
            horizon = (2.0 * ev.best).min(1.0 - next);
            t = next;
        }
    }
    if opts.mode == Mode::Boolean && t < 1.0 {
        // contact is certain if some pair is within ε at the end of the step (the first
        // contact may be earlier): one evaluation at t = 1 that only descends node pairs
        // whose key is 0 (a cap just above 0), looking for a touching pair
        let ev = q.evaluate(1.0, f64::MIN_POSITIVE, &mut stats, &mut heap);
        if let Some(h) = ev.touching {
            return Ok((Some(shape_contact(h, 1.0, Status::Converged, stats)), stats));
        }
    }
    // horizon of the convex pairs' motion bounds: the rest of the step at first, then
    // twice the last step (steps shrink towards a contact, and so do the turns the bounds
    // allow for); a step never exceeds it
    let mut search = ShapeSearch {
        horizon: 1.0 - t,
        q,
        heap,
        last: None,
    };
    let window = Search {
        from: t,
        start: 0.0,
        end: 1.0,
        max_iterations: opts.max_iterations,
    };
    let c = advance_search(&mut search, window, &mut stats)?;
    Ok((c, stats))
}

/// The safe-step oracle of two shapes (their parts: analytic shapes, hulls, meshes): one
/// best-first evaluation of the part pairs per step.
struct ShapeSearch<'q> {
    q: Query<'q>,
    heap: std::collections::BinaryHeap<Entry>,
    /// Length of the sub-interval the next evaluation's motion bounds hold over.
    horizon: f64,
    /// The last evaluation's touching and closest pairs.
    last: Option<(Option<Hit>, Option<Hit>)>,
}

impl SafeStep for ShapeSearch<'_> {
    type Contact = ShapeContact;
    type Error = CaError;

    fn probe(&mut self, t: f64, stats: &mut Stats) -> Result<Probe, CaError> {
        let ev = self.q.evaluate(t, self.horizon, stats, &mut self.heap);
        self.last = Some((ev.touching, ev.closest));
        Ok(if ev.touching.is_some() {
            Probe::Touching
        } else {
            Probe::Apart {
                step: ev.best,
                until: 1.0,
            }
        })
    }

    fn contact(
        &mut self,
        toc: f64,
        status: Status,
        stats: &mut Stats,
    ) -> Result<ShapeContact, CaError> {
        let (touching, closest) = self.last.unwrap_or((None, None));
        let h = match status {
            Status::InitiallyTouching | Status::Converged => touching,
            _ => closest,
        }
        .unwrap_or(Hit::NONE);
        Ok(shape_contact(h, toc, status, *stats))
    }

    fn advanced(&mut self, _t: f64, next: f64, step: f64) {
        self.horizon = (2.0 * step).min(1.0 - next);
    }
}

/// The answer at `toc` from the pair `h`.
fn shape_contact(h: Hit, toc: f64, status: Status, stats: Stats) -> ShapeContact {
    ShapeContact {
        toc,
        point_a: h.point_a,
        point_b: h.point_b,
        normal: (h.point_b - h.point_a).try_normalize().unwrap_or(DVec3::Z),
        distance: h.distance,
        part_a: h.part_a,
        feature_a: h.feature_a,
        part_b: h.part_b,
        feature_b: h.feature_b,
        status,
        stats,
    }
}
