//! CA between two rigid meshes (C2A-style per-node advancement over RSS hierarchies).

use ccd_bvh::{BoundingVolume, Rss, Workspace};
use ccd_geometry::Triangle;
use ccd_kinematics::RigidMotion;
use glam::{DAffine3, DMat3, DVec3};

use crate::contract::{Rates, check_domain, check_options, in_window, lever, rounding_allowance};
use crate::convex::hull_start;
use crate::driver::{Probe, SafeStep, Search, advance_search};
use crate::node_key::rss_extent;
use crate::scale::rescale_factors;
use crate::traverse::{
    Evaluation, MotionBound, Scratch, Traversal, Witness, closest_pair, exact_witness,
};
use crate::{CaError, CaOptions, Contact, Mode, RigidBody, Stats, Status};

/// The motion of one evaluation seen from A's frame at time `t`, for motion bounds that
/// use where the points are at `t`, not only how far they are from the rotation centres.
///
/// A point at offset `y` from its body's rotation centre moves with `v + ω u × y`, so
/// along a fixed direction `n` with `(ω u × y)·n = ω y·(n × u)`. Over a sub-interval in
/// which the body turns by at most `θ`, `y` moves by at most `θ |y| ≤ θ r`, hence
/// `|y(t')·w| ≤ |y(t)·w| + θ r |w|` with `w = n × u`; and always `|y·w| ≤ r |w|`. For a
/// set, `max |y(t)·w|` is its support function on `±w` (at the vertices of a triangle).
/// The bound on `|(v_b − v_a)·n|` over `[t, t + s]` is then
/// `|Δv·n| + Σ ω min(r|w|, max|y(t)·w| + ω s r|w|)`, absolute values throughout.
struct Frame {
    pos_ab: DAffine3,
    /// `R_abᵀ`: maps A's frame to B's.
    rot_ba: DMat3,
    /// Relative linear velocity `v_b − v_a`, A's frame.
    dv: DVec3,
    /// Rotation axes: A's in A's frame, B's in B's frame and in A's frame.
    ua: DVec3,
    ub: DVec3,
    ub_in_a: DVec3,
    omega_a: f64,
    omega_b: f64,
    /// Rotation centres: A's in A's frame, B's in B's frame and in A's frame.
    ca: DVec3,
    cb: DVec3,
    cb_in_a: DVec3,
    /// Distances of the centres from the frame origins (rounded up): added to the radii
    /// about the frame origins, they bound the radii about the centres.
    lever_a: f64,
    lever_b: f64,
    /// Length of the sub-interval `[t, t + horizon]` the bounds hold over.
    horizon: f64,
}

/// `ω min(r|w|, e + θ r|w|)` with `e = max |y·w|` (see [`Frame`]), rounded up.
#[inline]
fn angular_term(omega: f64, e: f64, r: f64, wl: f64, theta: f64) -> f64 {
    if omega == 0.0 {
        return 0.0;
    }
    let rw = r * wl;
    omega * rw.min(e + rw * (theta + 8.0 * f64::EPSILON))
}

impl MotionBound for Frame {
    /// Bound on `|(v_b − v_a)·n|` (n in A's frame, any length) over the sub-interval of
    /// length `horizon` for the triangles `ta` (A's frame) and `tb` (mapped into A's frame), whose
    /// points lie within `ra`, `rb` of the frame origins (so within `ra + |c_a|`,
    /// `rb + |c_b|` of the rotation centres).
    #[inline]
    fn triangles(&self, n: DVec3, ta: &Triangle, tb: &Triangle, ra: f64, rb: f64) -> f64 {
        let s = self.horizon;
        let (ra, rb) = (ra + self.lever_a, rb + self.lever_b);
        let lin = self.dv.dot(n).abs();
        let wa = n.cross(self.ua);
        let ca = self.ca;
        let ea = wa
            .dot(ta.a - ca)
            .abs()
            .max(wa.dot(ta.b - ca).abs())
            .max(wa.dot(ta.c - ca).abs());
        let wb = n.cross(self.ub_in_a);
        let c = self.cb_in_a;
        let eb = wb
            .dot(tb.a - c)
            .abs()
            .max(wb.dot(tb.b - c).abs())
            .max(wb.dot(tb.c - c).abs());
        let ang = angular_term(self.omega_a, ea, ra, wa.length(), self.omega_a * s)
            + angular_term(self.omega_b, eb, rb, wb.length(), self.omega_b * s);
        (lin + ang) * (1.0 + 1e-12)
    }

    /// The same bound for the contents of the RSS `x` (A's frame) and `y` (B's frame).
    #[inline]
    fn nodes(&self, n: DVec3, x: &Rss, y: &Rss, ra: f64, rb: f64) -> f64 {
        let s = self.horizon;
        let (ra, rb) = (ra + self.lever_a, rb + self.lever_b);
        let lin = self.dv.dot(n).abs();
        let wa = n.cross(self.ua);
        let wb = (self.rot_ba * n).cross(self.ub);
        let (la, lb) = (wa.length(), wb.length());
        let ang = angular_term(
            self.omega_a,
            rss_extent(x, wa, la, self.ca),
            ra,
            la,
            self.omega_a * s,
        ) + angular_term(
            self.omega_b,
            rss_extent(y, wb, lb, self.cb),
            rb,
            lb,
            self.omega_b * s,
        );
        (lin + ang) * (1.0 + 1e-12)
    }
}

struct Query<'q> {
    a: &'q RigidBody,
    b: &'q RigidBody,
    motion_a: &'q RigidMotion,
    motion_b: &'q RigidMotion,
    rates: Rates,
    eps: f64,
    /// Rounding allowance of distances and gaps along a unit direction (see
    /// [`rounding_allowance`]).
    slack: f64,
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

    fn leaf_witness(&self, ia: u32, ib: u32, pos_ab: &DAffine3) -> Witness {
        let ta = self.a.mesh_bvh().mesh().triangle(ia as usize);
        let tb = self.b.mesh_bvh().mesh().triangle(ib as usize);
        let tb_in_a = Triangle::new(
            pos_ab.transform_point3(tb.a),
            pos_ab.transform_point3(tb.b),
            pos_ab.transform_point3(tb.c),
        );
        exact_witness(self.a, self.b, ia, ib, &ta, &tb_in_a)
    }

    /// The relative motion at `t` in A's frame, with bounds over `[t, t + horizon]`.
    fn frame(&self, t: f64, horizon: f64) -> Frame {
        let (pa, pos_ab) = self.poses(t);
        let pb = self.motion_b.pose_at(t);
        let rot_at = pa.matrix3.transpose();
        let rot_ba = pos_ab.matrix3.transpose();
        let ub = pb.matrix3.transpose() * self.motion_b.axis();
        let (ca, cb) = (self.motion_a.local_center(), self.motion_b.local_center());
        Frame {
            pos_ab,
            rot_ba,
            dv: rot_at * self.rates.rel_linear,
            ua: rot_at * self.motion_a.axis(),
            ub,
            ub_in_a: pos_ab.matrix3 * ub,
            omega_a: self.rates.omega_a,
            omega_b: self.rates.omega_b,
            ca,
            cb,
            cb_in_a: pos_ab.transform_point3(cb),
            lever_a: lever(ca),
            lever_b: lever(cb),
            horizon,
        }
    }

    /// Safe advancement from `t` (at most `horizon`, ≤ `1 − t`; C2A, see
    /// [`Traversal::run`]), every motion bound holding over `[t, t + horizon]` (the shorter
    /// the horizon, the less the bodies can turn, the tighter the bounds). The step does not
    /// depend on the traversal order, which makes swapping the bodies give the same answer.
    fn evaluate(
        &self,
        t: f64,
        horizon: f64,
        scratch: &mut Scratch,
        stats: &mut Stats,
    ) -> Evaluation {
        let f = self.frame(t, horizon);
        Traversal {
            a: self.a,
            b: self.b,
            pos_ab: f.pos_ab,
            bound: f,
            eps: self.eps,
            slack: self.slack,
            region_b: None,
        }
        .run(horizon, scratch, stats)
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
                let w = self.leaf_witness(ia, ib, &pos_ab);
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

/// The first time of contact of two rigid meshes under constant-velocity motions over
/// `t ∈ [0, 1]`, by conservative advancement with C2A-style per-node steps.
///
/// Motions may turn by any angle about any rotation centre
/// ([`RigidMotion::local_center`], parry's `local_center`): a point's speed bound uses its
/// offset from the centre, and radii about the frame origin grow by `|c|`.
///
/// Bodies that carry their hulls ([`RigidBody::with_hull`]) first advance the hulls (up to 16
/// GJK steps, counted as iterations): the hulls contain the meshes, so a pair whose hulls
/// stay apart is free, and the others start where their hulls come within `ε`.
///
/// # Contract
/// - `Ok(None)` ⇒ the bodies never touch in `[0, 1]`: their distance stays above `ε/2`
///   throughout (every step keeps a margin of `ε/2` plus the rounding allowance). A pass
///   closer than `ε/2` is therefore always reported; a near miss whose smallest distance
///   lies between `ε/2` and `ε` may be reported (as a contact with distance `≤ ε`) or not,
///   depending on where the advancement's evaluations fall.
/// - `Ok(Some(c))` has a conservative `toc`: the bodies are separated on `[0, toc)`, and at
///   `toc` their distance is `≤ ε` ([`Status::Converged`]; [`Status::InitiallyTouching`] at
///   `t = 0`). With [`Status::OutOfIterations`] (the cap was hit) or [`Status::Stalled`]
///   (no further progress could be certified) `toc` is only a lower bound of the time of
///   contact, and contact may or may not happen later in the step.
///
/// # Domain
/// Vertex coordinates of both meshes and the motions' translations at `t = 0` and `t = 1`
/// within [`MAX_COORDINATE`](ccd_distance::MAX_COORDINATE) (`1e100`) in magnitude;
/// tolerance at least [`MIN_TOLERANCE`](crate::MIN_TOLERANCE) (`1e-100`). A query whose coordinate scale (its
/// largest vertex coordinate or translation) is outside `[2⁻¹⁰⁰, 2¹⁰⁰]` runs on a copy
/// rescaled into that window by a power of two (exact: bodies, translations and tolerance
/// scaled, times unchanged, the contact scaled back; the copy's bodies are rebuilt, one BVH
/// build each), where no intermediate product overflows or underflows. Every computed
/// distance and gap is lowered by a rounding allowance of `1e-12` times the query's
/// coordinate scale (meshes' radii plus the translations), so no contact is passed because
/// of rounding at any scale in the domain; a tolerance below that allowance cannot be
/// resolved and such queries end with [`Status::Stalled`] near contact instead.
///
/// # Errors
/// [`CaError::InvalidTolerance`] for a tolerance that is not finite or below
/// [`MIN_TOLERANCE`](crate::MIN_TOLERANCE); [`CaError::NoIterations`] for `max_iterations == 0`;
/// [`CaError::OutOfDomain`] for a mesh or a translation
/// beyond the domain; [`CaError::Rescaling`] if the rescaled copy cannot be built (not
/// expected inside the domain).
///
/// Swapping the bodies gives the same answer with the roles swapped: the query runs with
/// the bodies in a canonical order (CA's step sequence depends on which body's hierarchy
/// is traversed first only through rounding and tie-breaking, within the tolerance; the
/// canonical order makes it bit-identical).
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
    time_of_contact_with_stats(a, motion_a, b, motion_b, opts).map(|(c, _)| c)
}

/// [`time_of_contact`] with the query's counters whatever its answer: a query that proves
/// the bodies apart (`None`) reports its iterations and tests too (a [`Contact`] carries
/// the same counters in [`Contact::stats`]). For callers that total the work of many
/// queries, e.g. a world's narrow phase.
///
/// # Errors
/// As [`time_of_contact`].
pub(crate) fn time_of_contact_with_stats(
    a: &RigidBody,
    motion_a: &RigidMotion,
    b: &RigidBody,
    motion_b: &RigidMotion,
    opts: &CaOptions,
) -> Result<(Option<Contact>, Stats), CaError> {
    check_options(opts)?;
    check_domain(a, motion_a, b, motion_b)?;
    let mut stats = Stats::default();
    let c = if order_key(b, motion_b) < order_key(a, motion_a) {
        in_window(b, motion_b, a, motion_a, opts, &mut stats, run)?.map(Contact::swapped)
    } else {
        in_window(a, motion_a, b, motion_b, opts, &mut stats, run)?
    };
    Ok((c, stats))
}

/// A lower bound of the first time `τ ∈ [0, 1]` at which `|d0 + v τ| ≤ reach`, and whether
/// that never happens (`None`): the origins of the bodies move linearly, each body stays
/// within its radius of its origin, so nothing touches before the bounding spheres (radii
/// summing to `reach`, tolerance included) meet.
///
/// Works on `d0`, `v`, `reach` scaled by a power of two so that the largest of them is in
/// `[1, 2)` (exact, and free of overflow whatever their scale; the products here are of
/// degree four), with absolute allowances for the rounding and underflow of the scaled
/// computation: `1e-12` on the discriminant and `1e-14` on `|d0|² − R²`, so the root is
/// rounded down.
fn sphere_start(d0: DVec3, v: DVec3, reach: f64) -> Option<f64> {
    let m = d0.abs().max_element().max(v.abs().max_element()).max(reach);
    if !(m > 0.0 && m.is_finite()) {
        // everything at the origin (or non-finite, which the domain check excludes)
        return Some(0.0);
    }
    let (s1, s2) = unit_factors(m);
    let (d0, v, r) = (d0 * s1 * s2, v * s1 * s2, reach * s1 * s2);
    let vv = v.length_squared();
    // closest approach over [0, 1]: if even that is beyond the spheres, no contact
    let tc = if vv > 0.0 {
        (-d0.dot(v) / vv).clamp(0.0, 1.0)
    } else {
        0.0
    };
    // (|d0 + v tc| is computed to a few ulps of the scaled magnitudes, below 1e-14)
    if (d0 + v * tc).length() > r * (1.0 + 1e-9) + 1e-14 {
        return None;
    }
    let c = d0.length_squared() - r * r * (1.0 + 1e-9) - 1e-14;
    let b = d0.dot(v);
    if !(c > 0.0 && b < 0.0) {
        return Some(0.0);
    }
    // the smaller root of |d0 + v τ|² = R² in the cancellation-free form c / (−b + √disc);
    // rounding errors of b² − vv c stay below 1e-13 at this scale
    let disc = (b * b - vv * c).max(0.0) + 1e-12;
    Some((c / (-b + disc.sqrt()) * (1.0 - 1e-9)).clamp(0.0, 1.0))
}

/// Two powers of two whose product is `2⁻ᵉ` for `m ∈ [2ᵉ, 2ᵉ⁺¹)` (`m` positive and finite,
/// normal or subnormal; `e ∈ [−1074, 1023]`, where `2⁻ᵉ` alone need not be representable):
/// multiplying by the first, then the second, brings `m` into `[1, 2)` exactly.
fn unit_factors(m: f64) -> (f64, f64) {
    let (up, _) = rescale_factors(m).unwrap_or((1.0, 1.0));
    // m·up ∈ [2⁻¹⁰⁰, 2¹⁰⁰]: finish with a representable power of two
    let e = (((m * up).to_bits() >> 52) & 0x7ff) as i32 - 1023;
    (up, f64::from_bits(((1023 - e) as u64) << 52))
}

/// A total order on (body, motion) pairs for [`time_of_contact`]'s canonical order: the
/// mesh's content fingerprint, then the motion's parameters. (Not the mesh's address: that
/// made an answer's last bits depend on which body had been allocated first, e.g. on the
/// order in which `ccd batch` threads loaded the files.)
fn order_key(body: &RigidBody, motion: &RigidMotion) -> (u64, [u64; 18]) {
    let p = motion.pose_at(0.0);
    let (v, u, c) = (
        motion.linear_velocity(),
        motion.axis(),
        motion.local_center(),
    );
    let m = p.matrix3;
    let bits = [
        v.x,
        v.y,
        v.z,
        u.x,
        u.y,
        u.z,
        motion.angle(),
        p.translation.x,
        p.translation.y,
        p.translation.z,
        m.x_axis.x,
        m.x_axis.y,
        m.x_axis.z,
        m.y_axis.x,
        m.y_axis.y,
        c.x,
        c.y,
        c.z,
    ]
    .map(f64::to_bits);
    (body.fingerprint(), bits)
}

fn run(
    a: &RigidBody,
    motion_a: &RigidMotion,
    b: &RigidBody,
    motion_b: &RigidMotion,
    opts: &CaOptions,
    stats: &mut Stats,
) -> Result<Option<Contact>, CaError> {
    let q = Query {
        a,
        b,
        motion_a,
        motion_b,
        rates: Rates::new(motion_a, motion_b),
        eps: opts.tolerance,
        slack: rounding_allowance(a, motion_a, b, motion_b),
    };
    // Bounding spheres about the rotation centres (moving linearly): no contact before
    // they meet
    let d0 = motion_b.params().translation() - motion_a.params().translation();
    let reach = a.radius()
        + lever(motion_a.local_center())
        + b.radius()
        + lever(motion_b.local_center())
        + opts.tolerance;
    let Some(mut t) = sphere_start(d0, q.rates.rel_linear, reach) else {
        return Ok(None);
    };
    // Bodies with hulls: no contact before their hulls come within ε (a few GJK steps of
    // conservative advancement, far cheaper than traversing the two hierarchies); settles
    // pairs that pass each other and starts the others where their hulls meet
    if let (Some(ha), Some(hb)) = (a.hull(), b.hull()) {
        let radii = (
            a.radius() + lever(motion_a.local_center()),
            b.radius() + lever(motion_b.local_center()),
        );
        let steps = HULL_STEPS.min(opts.max_iterations - 1);
        let (half, slack) = (0.5 * q.eps, q.slack);
        match hull_start(
            ha, motion_a, hb, motion_b, &q.rates, radii, half, slack, t, steps, stats,
        ) {
            None => return Ok(None),
            Some(h) => t = h,
        }
    }
    let mut ws = Workspace::new();
    if opts.mode == Mode::Boolean
        && let Some(w) = q.touching_at(1.0, &mut ws, stats)
    {
        // contact is certain at the end of the step; the first contact may be earlier
        return Ok(Some(q.contact(1.0, w, Status::Converged, *stats)));
    }
    // horizon of the motion bounds: the whole rest of the step at first, then a few times
    // the last step (steps shrink towards a contact)
    let mut search = MeshSearch {
        horizon: 1.0 - t,
        q,
        scratch: Scratch::default(),
        last: None,
    };
    let window = Search {
        from: t,
        start: 0.0,
        end: 1.0,
        max_iterations: opts.max_iterations,
    };
    advance_search(&mut search, window, stats)
}

/// The safe-step oracle of two meshes: one C2A traversal per evaluation.
struct MeshSearch<'q> {
    q: Query<'q>,
    scratch: Scratch,
    /// Length of the sub-interval the next evaluation's motion bounds hold over.
    horizon: f64,
    /// The last evaluation's touching and closest pairs.
    last: Option<(Option<Witness>, Option<Witness>)>,
}

impl SafeStep for MeshSearch<'_> {
    type Contact = Contact;
    type Error = CaError;

    fn probe(&mut self, t: f64, stats: &mut Stats) -> Result<Probe, CaError> {
        let ev = self.q.evaluate(t, self.horizon, &mut self.scratch, stats);
        self.last = Some((ev.touching, ev.closest));
        Ok(if ev.touching.is_some() {
            Probe::Touching
        } else {
            Probe::Apart {
                step: ev.step,
                until: 1.0,
            }
        })
    }

    fn contact(&mut self, toc: f64, status: Status, stats: &mut Stats) -> Result<Contact, CaError> {
        let (touching, closest) = self.last.unwrap_or((None, None));
        let (a, b) = (self.q.a, self.q.b);
        let w = match (status, touching, closest) {
            // the contact's fields are at its toc: the closest pair at the time reached
            (Status::OutOfIterations, _, _) => closest_pair(a, b, &self.q.poses(toc).1, stats),
            (Status::InitiallyTouching | Status::Converged, Some(w), _) => w,
            (_, _, Some(w)) => w,
            _ => closest_pair(a, b, &self.q.poses(toc).1, stats),
        };
        Ok(self.q.contact(toc, w, status, *stats))
    }

    fn advanced(&mut self, _t: f64, next: f64, step: f64) {
        self.horizon = (HORIZON_GROWTH * step).min(1.0 - next);
    }
}

/// How many times the last step the next iteration's motion bounds cover.
const HORIZON_GROWTH: f64 = 2.0;

/// Most conservative-advancement steps of the hulls before the meshes' own advancement
/// (16: a pair not settled by then is close to contact; more gained nothing on the
/// rigid-pile scene).
const HULL_STEPS: u32 = 16;
