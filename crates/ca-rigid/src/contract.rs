//! The contract every conservative-advancement query of this crate keeps, in one place:
//! option and domain validation, the rounding allowance its steps subtract, the search
//! window, and the exact power-of-two rescaling of queries whose coordinates lie outside
//! `[2⁻¹⁰⁰, 2¹⁰⁰]`.
//!
//! The queries (mesh–mesh, hull–hull, shape–shape, bounded motions) differ only in how they
//! certify a safe step (their oracles); what a caller may rely on — the tolerance `ε`, the
//! domain, the statuses — is stated here and in the crate docs, and enforced by the
//! functions below before any oracle runs.

use ccd_distance::MAX_COORDINATE;
use ccd_kinematics::RigidMotion;
use glam::DVec3;

use crate::scale::{
    contact_back, max_abs, rescale_factors, scaled_bodies, scaled_motion, scaled_tolerance,
};
use crate::{CaError, CaOptions, Contact, RigidBody, Stats};

/// Constant velocity rates of the two bodies (world frame, per unit of normalized time).
pub(crate) struct Rates {
    /// `s_b − s_a`: relative velocity of the rotation centres.
    pub(crate) rel_linear: DVec3,
    pub(crate) axis_a: DVec3,
    pub(crate) omega_a: f64,
    pub(crate) axis_b: DVec3,
    pub(crate) omega_b: f64,
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

    /// Bound on `|(v_b − v_a) · n|` for unit `n` (docs/architecture.md, "Rigid motion bound"):
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

/// `|c|` rounded up: the lever a rotation centre `c` adds to radii about the frame origin.
#[inline]
pub(crate) fn lever(c: DVec3) -> f64 {
    c.length() * (1.0 + 4.0 * f64::EPSILON)
}

/// Smallest accepted tolerance `ε` of the CA queries (`1e-100`): the lower end of their
/// domain. Distances below it are not resolved (bodies closer than `ε` count as touching),
/// so the motion bounds never depend on quantities that underflow (squares of coordinates
/// below `1e-154`); geometry at any smaller scale is simply in contact within `ε`.
pub const MIN_TOLERANCE: f64 = 1e-100;

/// Relative rounding allowance of the distances and gaps a CA query computes, with respect
/// to its coordinate scale (see [`rounding_allowance`]): `1e-12`, the accuracy to which the
/// distance kernels of `ccd-distance` are tested (relative to the largest coordinate), with
/// room for the pose compositions.
pub(crate) const REL_ROUNDING: f64 = 1e-12;

/// The rounding allowance `δ` of a query: `REL_ROUNDING` times the coordinate scale of its
/// computations (both meshes' radii about their rotation centres plus the largest
/// translation of either motion, at `t = 0` or `t = 1`; the origins move linearly). A
/// computed distance (or gap along a unit direction) exceeds the true one by at most `δ`, so
/// CA steps subtract it: a step never passes a contact because of rounding. When `ε` is
/// below `δ` the steps vanish before `ε` is reached and the query ends with
/// [`Status::Stalled`].
pub(crate) fn rounding_allowance(
    a: &RigidBody,
    motion_a: &RigidMotion,
    b: &RigidBody,
    motion_b: &RigidMotion,
) -> f64 {
    let reach = |m: &RigidMotion| {
        let [t0, t1] = end_translations(m);
        t0.length().max(t1.length())
    };
    REL_ROUNDING
        * (a.radius()
            + b.radius()
            + lever(motion_a.local_center())
            + lever(motion_b.local_center())
            + reach(motion_a)
            + reach(motion_b))
}

/// The positions of a motion's rotation centre at `t = 0` and `t = 1`, from its parameters
/// (no rotation to build): the centre moves linearly between them (the frame origin too
/// when the centre is the origin; otherwise it stays within `|c|` of the centre).
pub(crate) fn end_translations(m: &RigidMotion) -> [DVec3; 2] {
    let p = m.params();
    [p.translation(), p.translation() + p.displacement()]
}

/// Validates the domain of a query: every vertex coordinate and the positions of the
/// motions' rotation centres at `t = 0` and `t = 1` (the frame origins unless a centre is
/// given) within [`MAX_COORDINATE`] in magnitude (the path of a centre is a segment, so it
/// stays within too; a centre's offset in its body frame is within it by
/// [`RigidMotion`]'s own domain).
pub(crate) fn check_domain(
    a: &RigidBody,
    motion_a: &RigidMotion,
    b: &RigidBody,
    motion_b: &RigidMotion,
) -> Result<(), CaError> {
    check_vertices(a, b)?;
    for (body, m) in [motion_a, motion_b].into_iter().enumerate() {
        let body = body as u8;
        for end in end_translations(m) {
            let value = end.abs().max_element();
            if value > MAX_COORDINATE || value.is_nan() {
                return Err(CaError::OutOfDomain {
                    body,
                    what: "translation",
                    value,
                });
            }
        }
    }
    Ok(())
}

/// Validates the bodies' vertex coordinates: within [`MAX_COORDINATE`] in magnitude.
pub(crate) fn check_vertices(a: &RigidBody, b: &RigidBody) -> Result<(), CaError> {
    for (body, rb) in [(0u8, a), (1u8, b)] {
        let value = rb.max_abs_coordinate();
        if value > MAX_COORDINATE {
            return Err(CaError::OutOfDomain {
                body,
                what: "vertex coordinate",
                value,
            });
        }
    }
    Ok(())
}

/// Validates the options shared by the CA entry points.
pub(crate) fn check_options(opts: &CaOptions) -> Result<(), CaError> {
    if !(opts.tolerance >= MIN_TOLERANCE && opts.tolerance.is_finite()) {
        return Err(CaError::InvalidTolerance(opts.tolerance));
    }
    if opts.max_iterations == 0 {
        return Err(CaError::NoIterations);
    }
    Ok(())
}

/// The coordinate scale of a query: the largest vertex coordinate or translation (at
/// `t = 0` or `t = 1`) magnitude of either body.
pub(crate) fn query_scale(
    a: &RigidBody,
    motion_a: &RigidMotion,
    b: &RigidBody,
    motion_b: &RigidMotion,
) -> f64 {
    let [a0, a1] = end_translations(motion_a);
    let [b0, b1] = end_translations(motion_b);
    max_abs([
        a0,
        a1,
        b0,
        b1,
        motion_a.local_center(),
        motion_b.local_center(),
    ])
    .max(a.max_abs_coordinate())
    .max(b.max_abs_coordinate())
}

/// `query` on the bodies, motions and options as given when the query's coordinate scale is
/// inside the window `[2⁻¹⁰⁰, 2¹⁰⁰]`, else on a copy scaled into it by a power of two (see
/// [`crate::scale`]), with the contact scaled back.
pub(crate) fn in_window(
    a: &RigidBody,
    motion_a: &RigidMotion,
    b: &RigidBody,
    motion_b: &RigidMotion,
    opts: &CaOptions,
    stats: &mut Stats,
    query: impl FnOnce(
        &RigidBody,
        &RigidMotion,
        &RigidBody,
        &RigidMotion,
        &CaOptions,
        &mut Stats,
    ) -> Result<Option<Contact>, CaError>,
) -> Result<Option<Contact>, CaError> {
    let g = query_scale(a, motion_a, b, motion_b);
    let Some((up, down)) = rescale_factors(g) else {
        return query(a, motion_a, b, motion_b, opts, stats);
    };
    let (sa, sb) = scaled_bodies(a, b, up)?;
    let (ma, mb) = (scaled_motion(motion_a, up)?, scaled_motion(motion_b, up)?);
    let scaled = CaOptions {
        tolerance: scaled_tolerance(opts.tolerance, up, g * up),
        ..*opts
    };
    Ok(query(&sa, &ma, &sb, &mb, &scaled, stats)?.map(|c| contact_back(c, down)))
}

/// Validates a search window `[start, end]`: both ends within `[0, 1]`.
pub(crate) fn check_window(start: f64, end: f64) -> Result<(), CaError> {
    if (0.0..=1.0).contains(&start) && (0.0..=1.0).contains(&end) {
        Ok(())
    } else {
        Err(CaError::InvalidWindow { start, end })
    }
}
