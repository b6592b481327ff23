//! How a pair of bodies moves, for the CA under any motion: [`PairMotion`] (world poses
//! and per-body [`SpeedBound`]s), its [`RoundingScale`], the constant-velocity
//! [`RigidPair`], and the exact power-of-two rescaling of a pair motion into the numeric
//! window of the queries.

use ccd_distance::MAX_COORDINATE;
use ccd_kinematics::RigidMotion;
use glam::{DAffine3, DVec3};

use crate::contract::{REL_ROUNDING, check_vertices, end_translations, lever};
use crate::scale::{contact_back, max_abs, rescale_factors, scaled_bodies, scaled_tolerance};
use crate::{CaError, CaOptions, Contact, RigidBody, Stats};

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

    /// Speed bounds of A and B valid over `[t, until]` with `until` returned, for a query
    /// that searches `[t, end]` (`t < end ≤ 1`): a motion whose bounds are much tighter over
    /// a short horizon returns them with `until ∈ (t, end]`, and the queries then advance
    /// at most to `until` before asking again. `hint` is the length of the query's previous
    /// step (`end − t` at its first evaluation): steps change gradually, so a horizon of a
    /// few times `hint` is likely to be reached. The default is
    /// [`speed_bounds`](PairMotion::speed_bounds) with `until = end`. A returned `until`
    /// outside `(t, end]` (or NaN) is not trusted: the queries use
    /// [`speed_bounds`](PairMotion::speed_bounds) instead.
    fn speed_bounds_until(&self, t: f64, end: f64, hint: f64) -> ([SpeedBound; 2], f64) {
        let _ = hint;
        (self.speed_bounds(t), end)
    }

    /// The two constant-velocity rigid motions this motion is, when it is one (a
    /// [`RigidPair`]): [`cast`](crate::cast) then runs the rigid queries, whose bounds use
    /// the motions exactly. `None` by default.
    fn rigid(&self) -> Option<(&RigidMotion, &RigidMotion)> {
        None
    }

    /// The scale of the rounding in [`poses`](PairMotion::poses) at any `t ∈ [0, 1]`, per
    /// body (see [`RoundingScale`]); the queries take their rounding allowance from it once
    /// per search. The default reads the translations at `t = 0` and `t = 1`: right for a
    /// motion that interpolates its two end poses (`c + t·s` with `c`, `c + s` the ends)
    /// and turns less than ~10³ rad. A motion computed through larger intermediate values
    /// (a chain of relative motions whose translations cancel, a turn of many revolutions)
    /// must report them here, or a pose it computes can be off by more than the queries
    /// allow for.
    fn rounding_scale(&self) -> [RoundingScale; 2] {
        let (a0, b0) = self.poses(0.0);
        let (a1, b1) = self.poses(1.0);
        let reach = |p: DAffine3, q: DAffine3| p.translation.length().max(q.translation.length());
        [
            RoundingScale {
                reach: reach(a0, a1),
                turn: 0.0,
            },
            RoundingScale {
                reach: reach(b0, b1),
                turn: 0.0,
            },
        ]
    }
}

/// How large the values are from which a [`PairMotion`] computes a body's pose: the
/// rounding of an evaluation is relative to them, not to the pose it produces (a
/// translation `c + t·s` that cancels to 0 still carries the rounding of `c`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RoundingScale {
    /// Upper bound of the lengths of the translations (and lever arms) summed into the
    /// body's translation at any `t ∈ [0, 1]`.
    pub reach: f64,
    /// Upper bound of the angles (radians, summed along a chain) turned into the body's
    /// rotation at any `t ∈ [0, 1]`: a point at `r` from the origin moves by the angle's
    /// rounding times `r`.
    pub turn: f64,
}

impl RoundingScale {
    /// The scale of a constant-velocity rigid motion: its translations at `t = 0` and
    /// `t = 1` plus the lever of its rotation centre (the terms of
    /// [`time_of_contact`](crate::time_of_contact)'s allowance), and its angle.
    #[must_use]
    pub fn rigid(m: &RigidMotion) -> Self {
        let [t0, t1] = end_translations(m);
        Self {
            reach: t0.length().max(t1.length()) + lever(m.local_center()),
            turn: m.angle().abs(),
        }
    }

    /// The rounding allowance of an evaluation at `t` of two bodies of radii `ra`, `rb`
    /// whose translations there are `la`, `lb` long: [`REL_ROUNDING`] times the coordinate
    /// scale, with each turn's rounding (`≤ 2.3e-16` of the angle) beyond what the
    /// relative `1e-12` already covers charged at `1e-3` of the angle per unit radius.
    pub(crate) fn allowance(scale: &[Self; 2], ra: f64, rb: f64, la: f64, lb: f64) -> f64 {
        let [sa, sb] = scale;
        let side = |s: &Self, r: f64, l: f64| s.reach.max(l) + r * (1.0 + 1e-3 * s.turn.abs());
        REL_ROUNDING * (side(sa, ra, la) + side(sb, rb, lb))
    }
}

/// The speed bounds of `motion` for the search of `[t, end]` and the time up to which they
/// hold (see [`PairMotion::speed_bounds_until`]; an `until` outside `(t, end]` falls back to
/// the bounds over `[t, 1]`).
pub(crate) fn bounds_until<M: PairMotion + ?Sized>(
    motion: &M,
    t: f64,
    end: f64,
    hint: f64,
) -> ([SpeedBound; 2], f64) {
    let (s, until) = motion.speed_bounds_until(t, end, hint);
    if until > t && until <= end {
        (s, until)
    } else {
        (motion.speed_bounds(t), end)
    }
}

/// Two constant-velocity rigid motions as a [`PairMotion`].
///
/// # Example
/// ```
/// use std::sync::Arc;
/// use ccd_ca_rigid::details::{time_of_contact_bounded, BoundedScratch};
/// use ccd_ca_rigid::{CaOptions, RigidBody, RigidPair};
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
    fn rounding_scale(&self) -> [RoundingScale; 2] {
        [RoundingScale::rigid(self.a), RoundingScale::rigid(self.b)]
    }
    fn rigid(&self) -> Option<(&RigidMotion, &RigidMotion)> {
        Some((self.a, self.b))
    }
}

/// A [`PairMotion`] in coordinates scaled by `up` (a power of two): translations, linear
/// speeds and lever arms scaled, rotations unchanged (see [`crate::scale`]).
pub(crate) struct ScaledPair<'m, M: ?Sized> {
    inner: &'m M,
    up: f64,
}

impl<M: PairMotion + ?Sized> PairMotion for ScaledPair<'_, M> {
    fn poses(&self, t: f64) -> (DAffine3, DAffine3) {
        let (mut pa, mut pb) = self.inner.poses(t);
        pa.translation *= self.up;
        pb.translation *= self.up;
        (pa, pb)
    }
    fn speed_bounds(&self, t: f64) -> [SpeedBound; 2] {
        self.inner.speed_bounds(t).map(|s| self.scale(s))
    }
    fn speed_bounds_until(&self, t: f64, end: f64, hint: f64) -> ([SpeedBound; 2], f64) {
        let (s, until) = self.inner.speed_bounds_until(t, end, hint);
        (s.map(|s| self.scale(s)), until)
    }
    fn rounding_scale(&self) -> [RoundingScale; 2] {
        self.inner.rounding_scale().map(|s| RoundingScale {
            reach: s.reach * self.up,
            ..s
        })
    }
}

impl<M: ?Sized> ScaledPair<'_, M> {
    /// A speed bound in the scaled coordinates (lengths scaled, rotations unchanged).
    fn scale(&self, s: SpeedBound) -> SpeedBound {
        SpeedBound {
            linear: s.linear * self.up,
            lever: s.lever * self.up,
            extra: s.extra * self.up,
            ..s
        }
    }
}

/// The poses at `t` after checking the domain: both translations within
/// [`MAX_COORDINATE`] of the caller's coordinates (`limit`, scaled like the query) and
/// finite; and the rounding allowance of an evaluation there (`1e-12` times the bodies'
/// radii plus the translations: the coordinate scale of B's pose in A's frame, at least
/// the motion's [`RoundingScale`] `scale`, read once per search).
pub(crate) fn poses_in_domain<M: PairMotion + ?Sized>(
    motion: &M,
    t: f64,
    a: &RigidBody,
    b: &RigidBody,
    limit: f64,
    down: f64,
    scale: &[RoundingScale; 2],
) -> Result<(DAffine3, DAffine3, f64), CaError> {
    let (pa, pb) = motion.poses(t);
    for (body, p) in [(0u8, &pa), (1u8, &pb)] {
        let value = p.translation.abs().max_element();
        if value > limit || value.is_nan() {
            return Err(CaError::OutOfDomain {
                body,
                what: "translation",
                value: value * down,
            });
        }
    }
    let slack = RoundingScale::allowance(
        scale,
        a.radius(),
        b.radius(),
        pa.translation.length(),
        pb.translation.length(),
    );
    Ok((pa, pb, slack))
}

/// Runs a window query (`query(a, b, motion, opts, limit, down)`) on the bodies and motion
/// as given when their coordinate scale at `start` is inside the window `[2⁻¹⁰⁰, 2¹⁰⁰]`,
/// else on a copy scaled into it by a power of two, with the contact scaled back (see
/// [`crate::scale`]). `limit` is [`MAX_COORDINATE`] in the query's coordinates, `down` the
/// factor back to the caller's.
pub(crate) fn in_window<M: PairMotion + ?Sized>(
    a: &RigidBody,
    b: &RigidBody,
    motion: &M,
    start: f64,
    opts: &CaOptions,
    query: impl FnOnce(
        &RigidBody,
        &RigidBody,
        &dyn PairMotion,
        &CaOptions,
        f64,
        f64,
    ) -> Result<(Option<Contact>, Stats), CaError>,
) -> Result<(Option<Contact>, Stats), CaError> {
    check_vertices(a, b)?;
    let (pa, pb, _) = poses_in_domain(
        motion,
        start,
        a,
        b,
        MAX_COORDINATE,
        1.0,
        &[RoundingScale::default(); 2],
    )?;
    let g = max_abs([pa.translation, pb.translation])
        .max(a.max_abs_coordinate())
        .max(b.max_abs_coordinate());
    let Some((up, down)) = rescale_factors(g) else {
        return query(a, b, &Forward(motion), opts, MAX_COORDINATE, 1.0);
    };
    let (sa, sb) = scaled_bodies(a, b, up)?;
    let scaled = CaOptions {
        tolerance: scaled_tolerance(opts.tolerance, up, g * up),
        ..*opts
    };
    let motion = ScaledPair { inner: motion, up };
    let (c, stats) = query(&sa, &sb, &motion, &scaled, MAX_COORDINATE * up, down)?;
    Ok((c.map(|c| contact_back(c, down)), stats))
}

/// A `?Sized` [`PairMotion`] behind a sized handle (to pass it on as `&dyn PairMotion`).
pub(crate) struct Forward<'m, M: ?Sized>(&'m M);

impl<M: PairMotion + ?Sized> PairMotion for Forward<'_, M> {
    fn poses(&self, t: f64) -> (DAffine3, DAffine3) {
        self.0.poses(t)
    }
    fn speed_bounds(&self, t: f64) -> [SpeedBound; 2] {
        self.0.speed_bounds(t)
    }
    fn speed_bounds_until(&self, t: f64, end: f64, hint: f64) -> ([SpeedBound; 2], f64) {
        self.0.speed_bounds_until(t, end, hint)
    }
    fn rounding_scale(&self) -> [RoundingScale; 2] {
        self.0.rounding_scale()
    }
}
