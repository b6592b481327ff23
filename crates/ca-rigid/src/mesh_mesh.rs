//! CA between two rigid meshes (C2A-style per-node advancement over RSS hierarchies).

use ccd_bvh::{BoundingVolume, Rss, Workspace};
use ccd_distance::triangle_triangle;
use ccd_geometry::{Feature, Triangle};
use ccd_kinematics::RigidMotion;
use glam::{DAffine3, DMat3, DVec3};

use crate::node_key::{rect_direction, rss_center, rss_gap};
use crate::{CaError, CaOptions, Contact, Mode, RigidBody, Stats, Status};

/// Constant velocity rates of the two bodies (world frame, per unit of normalized time).
pub(crate) struct Rates {
    /// `s_b − s_a`: relative velocity of the frame origins.
    rel_linear: DVec3,
    axis_a: DVec3,
    omega_a: f64,
    axis_b: DVec3,
    omega_b: f64,
}

impl Rates {
    pub(crate) fn new(a: &RigidMotion, b: &RigidMotion) -> Self {
        Self {
            rel_linear: b.linear_velocity() - a.linear_velocity(),
            axis_a: a.axis(),
            omega_a: a.angle(),
            axis_b: b.axis(),
            omega_b: b.angle(),
        }
    }

    /// Bound on the approach speed of any point within `ra` of A's origin and any point
    /// within `rb` of B's origin, in any direction: `|Δs| + ω_a r_a + ω_b r_b`.
    #[inline]
    pub(crate) fn free(&self, ra: f64, rb: f64) -> f64 {
        (self.rel_linear.length() + self.omega_a * ra + self.omega_b * rb) * (1.0 + 1e-12)
    }

    /// Bound on `|(v_b − v_a) · n|` for unit `n` (DESIGN, "Rigid motion bound"):
    /// `|Δs · n| + ω_a |u_a × n| r_a + ω_b |u_b × n| r_b`. Absolute values throughout, so it
    /// holds whatever the sign of the motion (FCL #555 used a signed form).
    #[inline]
    pub(crate) fn projected(&self, n: DVec3, ra: f64, rb: f64) -> f64 {
        let lin = self.rel_linear.dot(n).abs();
        let ang = self.omega_a * self.axis_a.cross(n).length() * ra
            + self.omega_b * self.axis_b.cross(n).length() * rb;
        (lin + ang) * (1.0 + 1e-12)
    }
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

#[inline]
fn tri_radius(t: &Triangle) -> f64 {
    t.a.length_squared()
        .max(t.b.length_squared())
        .max(t.c.length_squared())
        .sqrt()
}

/// The closest pair found by an evaluation, in A's local frame.
#[derive(Clone, Copy)]
struct Witness {
    distance: f64,
    point_a: DVec3,
    point_b: DVec3,
    feature_a: Feature,
    feature_b: Feature,
}

/// One CA evaluation at time `t`: the safe step and, if some pair is within `ε`, its witness.
struct Evaluation {
    step: f64,
    touching: Option<Witness>,
    closest: Option<Witness>,
}

struct Query<'q> {
    a: &'q RigidBody,
    b: &'q RigidBody,
    motion_a: &'q RigidMotion,
    motion_b: &'q RigidMotion,
    rates: Rates,
    eps: f64,
}

impl Query<'_> {
    fn poses(&self, t: f64) -> (DAffine3, DAffine3) {
        let pa = self.motion_a.pose_at(t);
        let pb = self.motion_b.pose_at(t);
        // rigid inverse of pa
        let inv_rot = pa.matrix3.transpose();
        let pa_inv = DAffine3 {
            matrix3: inv_rot,
            translation: -(inv_rot * pa.translation),
        };
        (pa, pa_inv * pb)
    }

    fn leaf_witness(&self, ia: u32, ib: u32, pos_ab: &DAffine3) -> (Witness, Triangle, Triangle) {
        let ta = self.a.mesh_bvh().mesh().triangle(ia as usize);
        let tb = self.b.mesh_bvh().mesh().triangle(ib as usize);
        let tb_in_a = Triangle::new(
            pos_ab.transform_point3(tb.a),
            pos_ab.transform_point3(tb.b),
            pos_ab.transform_point3(tb.c),
        );
        (self.exact_witness(ia, ib, &ta, &tb_in_a), ta, tb)
    }

    fn exact_witness(&self, ia: u32, ib: u32, ta: &Triangle, tb_in_a: &Triangle) -> Witness {
        let (ma, mb) = (self.a.mesh_bvh().mesh(), self.b.mesh_bvh().mesh());
        let c = triangle_triangle(ta, tb_in_a);
        Witness {
            distance: c.distance,
            point_a: c.point_a,
            point_b: c.point_b,
            feature_a: c.feature_a.lift(ma.triangles()[ia as usize], ia),
            feature_b: c.feature_b.lift(mb.triangles()[ib as usize], ib),
        }
    }

    /// Safe advancement of two sets separated by at least `gap` along `n` (A's frame, any
    /// length), points within `ra`, `rb` of the origins: `(gap − |n| ε/2) / μ(n)`, or 0 when
    /// the gap is below `|n| ε/2`.
    #[inline]
    fn key_along(&self, gap: f64, n: DVec3, rot_a: &DMat3, ra: f64, rb: f64) -> f64 {
        let margin = 0.5 * self.eps * n.length();
        // (a NaN gap also gives 0: the pair is descended)
        if gap.partial_cmp(&margin) != Some(std::cmp::Ordering::Greater) {
            return 0.0;
        }
        let mu = self.rates.projected(*rot_a * n, ra, rb);
        if mu > 0.0 {
            (gap - margin) / mu
        } else {
            f64::INFINITY
        }
    }

    /// Safe advancement from `t` (C2A: min over pairs of distance / projected speed).
    fn evaluate(&self, t: f64, ws: &mut Workspace, stats: &mut Stats) -> Evaluation {
        let (pa, pos_ab) = self.poses(t);
        let rot_a: DMat3 = pa.matrix3;
        let half = 0.5 * self.eps;
        let best = std::cell::Cell::new(1.0 - t);
        let mut touching = None;
        let mut closest: Option<Witness> = None;
        let (ba, bb) = (self.a.mesh_bvh().bvh(), self.b.mesh_bvh().bvh());
        let (rad_a, rad_b) = (self.a.node_radii(), self.b.node_radii());
        let (ma, mb) = (self.a.mesh_bvh().mesh(), self.b.mesh_bvh().mesh());
        let (_, ts) = ba.traverse_pair_best_first_nodes(
            bb,
            ws,
            best.get(),
            |ia, ib| {
                // A node pair's key is a safe advancement time for its contents: they stay
                // inside their RSS, which cannot touch before it (the slab of width `gap`
                // along `n` stays open while the motion projected on `n` is below it, for
                // any `n`; see `node_key`). Pruning a pair whose key is at least the
                // current step is therefore safe. First the cheap centre-to-centre
                // direction, then (C2A) the direction between the closest points of the
                // RSS rectangles.
                let (x, y) = (ba.node(ia).bv(), bb.node(ib).bv());
                let (ra, rb) = (rad_a[ia as usize], rad_b[ib as usize]);
                let nc = pos_ab.transform_point3(rss_center(y)) - rss_center(x);
                let kc = self.key_along(rss_gap(x, y, &pos_ab, nc), nc, &rot_a, ra, rb);
                if kc >= best.get() {
                    return kc;
                }
                match rect_direction(x, y, &pos_ab) {
                    Some(n) => kc.max(self.key_along(rss_gap(x, y, &pos_ab, n), n, &rot_a, ra, rb)),
                    None => kc,
                }
            },
            |ia, ib| {
                let ta = ma.triangle(ia as usize);
                let tb = mb.triangle(ib as usize);
                let tb_in_a = Triangle::new(
                    pos_ab.transform_point3(tb.a),
                    pos_ab.transform_point3(tb.b),
                    pos_ab.transform_point3(tb.c),
                );
                let (ra, rb) = (tri_radius(&ta), tri_radius(&tb));
                // cheap key along the centroid direction: a pair separated by more than ε
                // along it is not touching, and if its key already exceeds the step its
                // exact distance cannot lower the step
                let nc = (tb_in_a.a + tb_in_a.b + tb_in_a.c - ta.a - ta.b - ta.c) / 3.0;
                let gc = triangle_gap(&ta, &tb_in_a, nc);
                if gc > self.eps * nc.length()
                    && self.key_along(gc, nc, &rot_a, ra, rb) >= best.get()
                {
                    return best.get();
                }
                let w = self.exact_witness(ia, ib, &ta, &tb_in_a);
                if closest.is_none_or(|c| w.distance < c.distance) {
                    closest = Some(w);
                }
                if w.distance <= self.eps {
                    touching = Some(w);
                    return f64::NEG_INFINITY;
                }
                let n = rot_a * ((w.point_b - w.point_a) / w.distance);
                let mu = self.rates.projected(n, ra, rb);
                if mu > 0.0 {
                    best.set(best.get().min((w.distance - half) / mu));
                }
                best.get()
            },
        );
        stats.bv_tests += ts.bv_tests;
        stats.primitive_tests += ts.primitive_tests;
        Evaluation {
            step: best.get(),
            touching,
            closest,
        }
    }

    /// Whether some pair is within `ε` at time `t` (best-first distance with cutoff `ε`).
    fn touching_at(&self, t: f64, ws: &mut Workspace, stats: &mut Stats) -> Option<Witness> {
        let (_, pos_ab) = self.poses(t);
        let mut found = None;
        let (ba, bb) = (self.a.mesh_bvh().bvh(), self.b.mesh_bvh().bvh());
        let (_, ts) = ba.traverse_pair_best_first(
            bb,
            ws,
            self.eps.next_up(),
            |x: &Rss, y: &Rss| x.distance_lower_bound(y, &pos_ab),
            |ia, ib| {
                let (w, _, _) = self.leaf_witness(ia, ib, &pos_ab);
                if w.distance <= self.eps {
                    found = Some(w);
                    return f64::NEG_INFINITY;
                }
                self.eps.next_up()
            },
        );
        stats.bv_tests += ts.bv_tests;
        stats.primitive_tests += ts.primitive_tests;
        found
    }

    fn contact(&self, t: f64, w: Witness, status: Status, stats: Stats) -> Contact {
        let pa = self.motion_a.pose_at(t);
        let point_a = pa.transform_point3(w.point_a);
        let point_b = pa.transform_point3(w.point_b);
        let normal = (point_b - point_a).try_normalize().unwrap_or(DVec3::Z);
        Contact {
            toc: t,
            point_a,
            point_b,
            normal,
            distance: w.distance,
            feature_a: w.feature_a,
            feature_b: w.feature_b,
            status,
            stats,
        }
    }
}

/// Validates the options shared by the CA entry points.
pub(crate) fn check_options(opts: &CaOptions) -> Result<(), CaError> {
    if !(opts.tolerance > 0.0 && opts.tolerance.is_finite()) {
        return Err(CaError::InvalidTolerance(opts.tolerance));
    }
    if opts.max_iterations == 0 {
        return Err(CaError::NoIterations);
    }
    Ok(())
}

/// The first time of contact of two rigid meshes under constant-velocity motions over
/// `t ∈ [0, 1]`, by conservative advancement with C2A-style per-node steps.
///
/// Returns `Ok(None)` when the bodies stay farther apart than the tolerance during the whole
/// step — never when they touch. Otherwise a [`Contact`] whose `toc` is conservative: the
/// bodies are separated on `[0, toc)`, and at `toc` their distance is `≤ ε`
/// ([`Status::Converged`]; [`Status::InitiallyTouching`] at `t = 0`); with
/// [`Status::OutOfIterations`] the cap was hit and `toc` is only a lower bound.
///
/// # Errors
/// [`CaError::InvalidTolerance`] for a tolerance that is not positive and finite;
/// [`CaError::NoIterations`] for `max_iterations == 0`.
///
/// # Example
/// See the [crate documentation](crate).
pub fn time_of_contact(
    a: &RigidBody,
    motion_a: &RigidMotion,
    b: &RigidBody,
    motion_b: &RigidMotion,
    opts: &CaOptions,
) -> Result<Option<Contact>, CaError> {
    check_options(opts)?;
    let q = Query {
        a,
        b,
        motion_a,
        motion_b,
        rates: Rates::new(motion_a, motion_b),
        eps: opts.tolerance,
    };
    // Bounding-sphere sweep: each body stays within its radius of its frame origin, and the
    // origins move linearly, so if the origins never come closer than the sum of the radii
    // (plus ε) there is no contact in [0, 1].
    let d0 = motion_b.pose_at(0.0).translation - motion_a.pose_at(0.0).translation;
    let v = q.rates.rel_linear;
    let vv = v.length_squared();
    let s = if vv > 0.0 {
        (-d0.dot(v) / vv).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let reach = a.radius() + b.radius() + opts.tolerance;
    if (d0 + v * s).length() > reach * (1.0 + 1e-9) + 1e-300 {
        return Ok(None);
    }
    let mut ws = Workspace::new();
    let mut stats = Stats::default();
    if opts.mode == Mode::Boolean
        && let Some(w) = q.touching_at(1.0, &mut ws, &mut stats)
    {
        // contact is certain at the end of the step; the first contact may be earlier
        return Ok(Some(q.contact(1.0, w, Status::Converged, stats)));
    }
    let mut t = 0.0f64;
    loop {
        let ev = q.evaluate(t, &mut ws, &mut stats);
        stats.iterations += 1;
        if let Some(w) = ev.touching {
            let status = if t == 0.0 {
                Status::InitiallyTouching
            } else {
                Status::Converged
            };
            return Ok(Some(q.contact(t, w, status, stats)));
        }
        if t + ev.step >= 1.0 {
            return Ok(None);
        }
        let next = t + ev.step;
        if stats.iterations >= opts.max_iterations {
            // separated on [0, next): `next` is a conservative lower bound of the TOC
            let w = ev.closest.unwrap_or(Witness {
                distance: f64::INFINITY,
                point_a: DVec3::ZERO,
                point_b: DVec3::ZERO,
                feature_a: Feature::Face(0),
                feature_b: Feature::Face(0),
            });
            let mut c = q.contact(t, w, Status::OutOfIterations, stats);
            c.toc = next;
            return Ok(Some(c));
        }
        t = next;
    }
}
