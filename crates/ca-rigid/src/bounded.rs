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

use ccd_bvh::Rss;
use ccd_distance::{
    ConvexHull, GjkCache, GjkOptions, GjkResult, MAX_COORDINATE, gjk_distance_cached,
};
use ccd_geometry::{Aabb, Feature, Triangle, rigid_inverse};
use ccd_kinematics::RigidMotion;
use glam::{DAffine3, DVec3};

use crate::capsule::Capsule;
use crate::contract::{
    REL_ROUNDING, check_options, check_vertices, check_window, end_translations, lever,
};
use crate::driver::{Probe, SafeStep, Search, advance_search};
use crate::scale::{contact_back, max_abs, rescale_factors, scaled_bodies, scaled_tolerance};
use crate::traverse::{MotionBound, Scratch, Traversal, Witness, closest_pair, key_along};
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
    fn allowance(scale: &[Self; 2], ra: f64, rb: f64, la: f64, lb: f64) -> f64 {
        let [sa, sb] = scale;
        let side = |s: &Self, r: f64, l: f64| s.reach.max(l) + r * (1.0 + 1e-3 * s.turn.abs());
        REL_ROUNDING * (side(sa, ra, la) + side(sb, rb, lb))
    }
}

/// The speed bounds of `motion` for the search of `[t, end]` and the time up to which they
/// hold (see [`PairMotion::speed_bounds_until`]; an `until` outside `(t, end]` falls back to
/// the bounds over `[t, 1]`).
fn bounds_until<M: PairMotion + ?Sized>(
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
    fn rounding_scale(&self) -> [RoundingScale; 2] {
        [RoundingScale::rigid(self.a), RoundingScale::rigid(self.b)]
    }
    fn rigid(&self) -> Option<(&RigidMotion, &RigidMotion)> {
        Some((self.a, self.b))
    }
}

/// Reusable buffers of [`time_of_contact_bounded`] (reuse one per thread: no allocation once
/// grown).
#[derive(Debug, Default)]
pub struct BoundedScratch {
    inner: Scratch,
}

/// The speed bounds of both bodies at one evaluation, with their vectors in A's frame: the
/// motion bound of the shared traversal (node and triangle contents alike, from their radii
/// about the frame origins).
struct Speeds {
    sa: SpeedBound,
    sb: SpeedBound,
}

impl MotionBound for Speeds {
    #[inline]
    fn nodes(&self, n: DVec3, _: &Rss, _: &Rss, ra: f64, rb: f64) -> f64 {
        self.sa.bound(n, ra) + self.sb.bound(n, rb)
    }
    #[inline]
    fn triangles(&self, n: DVec3, _: &Triangle, _: &Triangle, ra: f64, rb: f64) -> f64 {
        self.sa.bound(n, ra) + self.sb.bound(n, rb)
    }
}

/// A [`PairMotion`] in coordinates scaled by `up` (a power of two): translations, linear
/// speeds and lever arms scaled, rotations unchanged (see [`crate::scale`]).
struct ScaledPair<'m, M: ?Sized> {
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
fn poses_in_domain<M: PairMotion + ?Sized>(
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
fn in_window<M: PairMotion + ?Sized>(
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
struct Forward<'m, M: ?Sized>(&'m M);

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

/// The speed bound with its vectors expressed in the frame whose world rotation is `rot`.
fn into_frame(s: SpeedBound, rot_t: glam::DMat3) -> SpeedBound {
    SpeedBound {
        linear: rot_t * s.linear,
        axis: rot_t * s.axis,
        ..s
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
/// Domain and rounding as [`time_of_contact`](crate::time_of_contact): vertex coordinates and
/// the poses' translations at every evaluated time within
/// [`MAX_COORDINATE`](ccd_distance::MAX_COORDINATE); a query whose coordinate scale at
/// `start` is outside `[2⁻¹⁰⁰, 2¹⁰⁰]` runs on a copy rescaled by a power of two (the
/// [`PairMotion`] seen through scaled translations, linear speeds and lever arms); every step
/// subtracts a rounding allowance of `1e-12` times the coordinate scale at its time.
///
/// # Errors
/// The option errors of [`time_of_contact`](crate::time_of_contact);
/// [`CaError::InvalidWindow`] unless `0 ≤ start, end ≤ 1`; [`CaError::OutOfDomain`] for a
/// vertex coordinate, or a translation of the poses at an evaluated time, beyond the domain;
/// [`CaError::Rescaling`] if the rescaled copy cannot be built.
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
    bounded_cast(a, b, motion, start, end, None, false, opts, scratch).map(|(c, _)| c)
}

/// The first evaluation of [`time_of_contact_bounded`] alone (at `start`, over
/// `[start, end]`), for a caller that only needs to know whether the bodies touch at
/// `start`: the same evaluation with the same bounds as the full query's first, so
/// - `Ok(Some(c))` with [`Status::InitiallyTouching`] (or [`Status::Stalled`]) is exactly the
///   contact [`time_of_contact_bounded`] reports for the same arguments;
/// - `Ok(None)`: the bodies stay apart over the window, as the full query finds too;
/// - `Ok(Some(c))` with [`Status::OutOfIterations`]: undecided; `c.toc` is the first safe
///   step (a lower bound of the time of contact) and, unlike the full query at its
///   iteration cap, no closest-pair search runs for the witness: it is the closest pair
///   the evaluation met, if any (else distance infinite).
///
/// [`CaOptions::max_iterations`] is ignored (one evaluation).
///
/// # Errors
/// As [`time_of_contact_bounded`].
///
/// # Example
/// ```
/// use std::sync::Arc;
/// use ccd_ca_rigid::{first_step_bounded, BoundedScratch, CaOptions, RigidBody, RigidPair, Status};
/// use ccd_bvh::{BvhOptions, MeshBvh, Rss};
/// use ccd_geometry::{glam::{DAffine3, DVec3}, TriMesh};
/// use ccd_kinematics::RigidMotion;
///
/// let tetra = TriMesh::new(vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z], vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])?;
/// let body = RigidBody::new(Arc::new(MeshBvh::<Rss>::new(tetra, &BvhOptions::default())?));
/// let still = RigidMotion::stationary(DAffine3::IDENTITY)?;
/// let far = RigidMotion::between(DAffine3::from_translation(DVec3::new(3.0, 0.0, 0.0)), DAffine3::from_translation(DVec3::new(-1.0, 0.0, 0.0)))?;
/// let mut scratch = BoundedScratch::default();
/// let c = first_step_bounded(&body, &body, &RigidPair { a: &still, b: &far }, 0.0, 1.0, &CaOptions::default(), &mut scratch)?;
/// assert_eq!(c.expect("not proven free in one step").status, Status::OutOfIterations);
/// let touching = RigidMotion::stationary(DAffine3::from_translation(DVec3::new(0.5, 0.0, 0.0)))?;
/// let c = first_step_bounded(&body, &body, &RigidPair { a: &still, b: &touching }, 0.0, 1.0, &CaOptions::default(), &mut scratch)?;
/// assert_eq!(c.expect("touching").status, Status::InitiallyTouching);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn first_step_bounded<M: PairMotion + ?Sized>(
    a: &RigidBody,
    b: &RigidBody,
    motion: &M,
    start: f64,
    end: f64,
    opts: &CaOptions,
    scratch: &mut BoundedScratch,
) -> Result<Option<Contact>, CaError> {
    bounded_cast(a, b, motion, start, end, None, true, opts, scratch).map(|(c, _)| c)
}

/// [`first_step_bounded`] of [`time_of_contact_bounded_within`]: its first evaluation
/// alone, with B pruned to `region` (the same guarantee asked of the caller).
///
/// # Errors
/// As [`time_of_contact_bounded_within`].
#[allow(clippy::too_many_arguments)]
pub fn first_step_bounded_within<M: PairMotion + ?Sized>(
    a: &RigidBody,
    b: &RigidBody,
    motion: &M,
    start: f64,
    end: f64,
    region: &Aabb,
    opts: &CaOptions,
    scratch: &mut BoundedScratch,
) -> Result<Option<Contact>, CaError> {
    bounded_cast(a, b, motion, start, end, Some(region), true, opts, scratch).map(|(c, _)| c)
}

/// The first evaluation of [`time_of_contact_bounded`] (`region`: of
/// [`time_of_contact_bounded_within`]) without the closest-pair search at the cap.
/// The mesh–mesh query under a [`PairMotion`] behind the four public entry points and
/// [`cast`](crate::cast): the window `[start, end]`, B's contents within `region` only (when
/// given), the whole search or its first evaluation only; with the query's counters.
#[allow(clippy::too_many_arguments)]
pub(crate) fn bounded_cast<M: PairMotion + ?Sized>(
    a: &RigidBody,
    b: &RigidBody,
    motion: &M,
    start: f64,
    end: f64,
    region: Option<&Aabb>,
    first_step: bool,
    opts: &CaOptions,
    scratch: &mut BoundedScratch,
) -> Result<(Option<Contact>, Stats), CaError> {
    let opts = if first_step {
        CaOptions {
            max_iterations: 1,
            ..*opts
        }
    } else {
        *opts
    };
    check_options(&opts)?;
    check_window(start, end)?;
    if region.is_some_and(|r| r.min.is_nan() || r.max.is_nan()) {
        return Err(CaError::InvalidRegion);
    }
    if start >= end || region.is_some_and(Aabb::is_empty) {
        return Ok((None, Stats::default()));
    }
    let scratch = &mut scratch.inner;
    in_window(
        a,
        b,
        motion,
        start,
        &opts,
        |a, b, motion, opts, limit, down| {
            // the region in the query's coordinates, grown by the rounding allowance
            let region = region.map(|r| scaled_region(r, b, down));
            bounded_run(
                a,
                b,
                motion,
                start,
                end,
                opts,
                limit,
                down,
                region,
                !first_step,
                scratch,
            )
        },
    )
}

/// `region` (caller's coordinates) in the query's coordinates (`down`: the factor back),
/// grown by the rounding allowance of the boxes it is compared with (B's coordinates and
/// the region's own).
fn scaled_region(region: &Aabb, b: &RigidBody, down: f64) -> Aabb {
    let up = 1.0 / down;
    let scaled = Aabb {
        min: region.min * up,
        max: region.max * up,
    };
    let reach = b.radius() + max_abs([scaled.min, scaled.max]);
    scaled.inflate(REL_ROUNDING * reach)
}

/// [`time_of_contact_bounded`] when the caller knows a box in B's frame that A never leaves
/// during the window: B's nodes and triangles outside `region` are pruned from every
/// evaluation, so a large B (a static environment) costs only the part of it near A's path.
///
/// The caller's guarantee: at every time of `[start, end]`, every point of A grown by `ε/2`
/// (its Minkowski sum with a ball of radius `ε/2`) lies in `region`, in B's local frame.
/// For a static B whose local frame is the world, a swept box of A over the window inflated
/// by `ε/2` (e.g. from Taylor-model or interval enclosures of A's motion) qualifies. B's
/// contents outside `region` then stay farther than `ε/2` from A over the whole window, so
/// they can neither touch nor shorten a safe step: the answer keeps the contract of
/// [`time_of_contact_bounded`]. That consequence is all the query relies on, so it may be
/// given directly instead: every triangle of B whose box misses `region` stays farther than
/// `ε/2` from A over the window (`ccd-ca-articulated` cuts a swept box to the environment
/// pieces whose hulls it has not proven apart). Pruning compares the axis-aligned boxes of B's nodes and
/// triangles with `region` grown by the query's rounding allowance. An empty `region` (or
/// one B does not reach) gives `Ok(None)` without any distance evaluation.
///
/// # Errors
/// As [`time_of_contact_bounded`]; [`CaError::InvalidRegion`] when `region` has a NaN
/// coordinate.
///
/// # Example
/// ```
/// use std::sync::Arc;
/// use ccd_ca_rigid::{time_of_contact_bounded_within, BoundedScratch, CaOptions, RigidBody, RigidPair};
/// use ccd_bvh::{BvhOptions, MeshBvh, Rss};
/// use ccd_geometry::{glam::{DAffine3, DVec3}, Aabb, TriMesh};
/// use ccd_kinematics::RigidMotion;
///
/// let tetra = TriMesh::new(vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z], vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])?;
/// let body = RigidBody::new(Arc::new(MeshBvh::<Rss>::new(tetra, &BvhOptions::default())?));
/// // B stands still at the origin; A slides from x = 3 to x = -1
/// let still = RigidMotion::stationary(DAffine3::IDENTITY)?;
/// let moving = RigidMotion::between(DAffine3::from_translation(DVec3::new(3.0, 0.0, 0.0)), DAffine3::from_translation(DVec3::new(-1.0, 0.0, 0.0)))?;
/// let pair = RigidPair { a: &moving, b: &still };
/// let eps = CaOptions::default().tolerance;
/// // A's swept box over [0, 1], grown by ε/2
/// let swept = Aabb { min: DVec3::new(-1.0, 0.0, 0.0), max: DVec3::new(4.0, 1.0, 1.0) }.inflate(0.5 * eps);
/// let mut scratch = BoundedScratch::default();
/// let c = time_of_contact_bounded_within(&body, &body, &pair, 0.0, 1.0, &swept, &CaOptions::default(), &mut scratch)?;
/// assert!(c.expect("contact").toc <= 0.5);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[allow(clippy::too_many_arguments)]
pub fn time_of_contact_bounded_within<M: PairMotion + ?Sized>(
    a: &RigidBody,
    b: &RigidBody,
    motion: &M,
    start: f64,
    end: f64,
    region: &Aabb,
    opts: &CaOptions,
    scratch: &mut BoundedScratch,
) -> Result<Option<Contact>, CaError> {
    bounded_cast(a, b, motion, start, end, Some(region), false, opts, scratch).map(|(c, _)| c)
}

/// The CA loop of [`time_of_contact_bounded`] (input checked, coordinates in the window).
/// `cap_witness`: at the iteration cap, search the closest pair for the contact's witness
/// (else the closest pair the last evaluation met stands in, see [`first_step_bounded`]).
#[allow(clippy::too_many_arguments)]
fn bounded_run(
    a: &RigidBody,
    b: &RigidBody,
    motion: &dyn PairMotion,
    start: f64,
    end: f64,
    opts: &CaOptions,
    limit: f64,
    down: f64,
    region_b: Option<Aabb>,
    cap_witness: bool,
    scratch: &mut Scratch,
) -> Result<(Option<Contact>, Stats), CaError> {
    let mut stats = Stats::default();
    let mut search = BoundedSearch {
        a,
        b,
        motion,
        end,
        eps: opts.tolerance,
        limit,
        down,
        region_b,
        cap_witness,
        scale: motion.rounding_scale(),
        hint: end - start,
        scratch,
        last: None,
    };
    let window = Search {
        from: start,
        start,
        end,
        max_iterations: opts.max_iterations,
    };
    let c = advance_search(&mut search, window, &mut stats)?;
    Ok((c, stats))
}

/// The safe-step oracle of two meshes under a [`PairMotion`]: one C2A traversal per
/// evaluation with the motion's speed bounds over `[t, until]`.
struct BoundedSearch<'q> {
    a: &'q RigidBody,
    b: &'q RigidBody,
    motion: &'q dyn PairMotion,
    end: f64,
    eps: f64,
    limit: f64,
    down: f64,
    region_b: Option<Aabb>,
    /// Whether a capped search reports the closest pair at the time reached (else the
    /// closest pair of the last evaluation, or none).
    cap_witness: bool,
    scale: [RoundingScale; 2],
    /// The length of the last step (the horizon the motion is asked to bound next).
    hint: f64,
    scratch: &'q mut Scratch,
    /// The last evaluation: A's and B's poses, touching and closest pairs.
    last: Option<(DAffine3, DAffine3, Option<Witness>, Option<Witness>)>,
}

impl SafeStep for BoundedSearch<'_> {
    type Contact = Contact;

    fn probe(&mut self, t: f64, stats: &mut Stats) -> Result<Probe, CaError> {
        let (a, b) = (self.a, self.b);
        let (pa, pb, slack) =
            poses_in_domain(self.motion, t, a, b, self.limit, self.down, &self.scale)?;
        let inv = rigid_inverse(&pa);
        let ([sa, sb], until) = bounds_until(self.motion, t, self.end, self.hint);
        let ev = Traversal {
            a,
            b,
            pos_ab: inv * pb,
            bound: Speeds {
                sa: into_frame(sa, inv.matrix3),
                sb: into_frame(sb, inv.matrix3),
            },
            eps: self.eps,
            slack,
            region_b: self.region_b,
        }
        .run(until - t, self.scratch, stats);
        self.last = Some((pa, pb, ev.touching, ev.closest));
        Ok(if ev.touching.is_some() {
            Probe::Touching
        } else {
            Probe::Apart {
                step: ev.step,
                until,
            }
        })
    }

    fn contact(&mut self, toc: f64, status: Status, stats: &mut Stats) -> Result<Contact, CaError> {
        let (a, b) = (self.a, self.b);
        let (pa, pb, touching, closest) = self.last.ok_or(CaError::NoIterations)?;
        let w = match status {
            Status::OutOfIterations if self.cap_witness => {
                // the contact's fields are at its toc: the closest pair there (the poses
                // at `toc` passed the domain check of the last step: they are bounded by
                // it; should the check still refuse them, the pair at the last probe
                // stands in)
                let (pa, pb) = match poses_in_domain(
                    self.motion,
                    toc,
                    a,
                    b,
                    self.limit,
                    self.down,
                    &self.scale,
                ) {
                    Ok((pa, pb, _)) => (pa, pb),
                    Err(_) => (pa, pb),
                };
                let w = closest_pair(a, b, &(rigid_inverse(&pa) * pb), stats);
                return Ok(window_contact(w, &pa, toc, status, *stats));
            }
            Status::OutOfIterations => closest.unwrap_or(Witness::NONE),
            Status::Stalled => {
                closest.unwrap_or_else(|| closest_pair(a, b, &(rigid_inverse(&pa) * pb), stats))
            }
            _ => touching.unwrap_or(Witness::NONE),
        };
        Ok(window_contact(w, &pa, toc, status, *stats))
    }

    fn advanced(&mut self, t: f64, next: f64, _step: f64) {
        self.hint = next - t;
    }
}

/// Separation of two hulls along unit `n` (world) from their support functions.
fn hull_gap(
    a: &ccd_distance::ConvexHull,
    pa: &DAffine3,
    b: &ccd_distance::ConvexHull,
    pb: &DAffine3,
    n: DVec3,
    hints: (u32, u32),
) -> f64 {
    // (the climbs start at the closest features: the supports are exact from any start)
    let (sa, _) = a.support_from(pa.matrix3.transpose() * n, hints.0);
    let (sb, _) = b.support_from(pb.matrix3.transpose() * -n, hints.1);
    let ga = pa.transform_point3(sa);
    let gb = pb.transform_point3(sb);
    let scale = ga.abs().max_element() + gb.abs().max_element();
    gb.dot(n) - ga.dot(n) - 64.0 * f64::EPSILON * scale
}

/// A vertex of a GJK feature of `hull` (a hill-climb start; `u32::MAX`, no hint, for a
/// face index out of range).
fn vertex_of(f: Feature, hull: &ccd_distance::ConvexHull) -> u32 {
    match f {
        Feature::Vertex(i) | Feature::Edge(i, _) => i,
        Feature::Face(i) => hull.faces().get(i as usize).map_or(u32::MAX, |f| f[0]),
    }
}

/// [`time_of_contact_bounded`] on the convex hulls of the bodies (built with
/// [`RigidBody::with_hull`]) with GJK distances: a lower bound of the mesh pair's time of
/// contact (the hulls contain the meshes), cheap enough to sort pairs by (CATCH, Sec. 7.2).
/// Steps are the separating-slab width along GJK's direction (exact support functions)
/// over the speed bound with the bodies' radii. When both bodies' hulls fit tight bounding
/// capsules (built by [`RigidBody::with_hull`] for elongated hulls), the first steps take the
/// capsules' slab width instead (a lower bound of the hulls', from four endpoint
/// projections) until the capsules come within `ε`; GJK on the hulls takes over from there,
/// and always makes the last iteration an iteration cap allows. Same window contract;
/// features index hull vertices mapped back to mesh vertices, as in
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
    let mut direction = DVec3::ZERO;
    time_of_contact_convex_bounded_with_direction(a, b, motion, start, end, opts, &mut direction)
}

/// [`time_of_contact_convex_bounded`], also giving the unit direction (from A to B, in the
/// coordinates of `motion`'s poses) of the last distance computed, or zero when there was
/// none: a good certificate direction for [`convex_apart_along`] in the next window of a
/// motion that continues (any direction is a sound one; a good one makes the certificate
/// hold).
///
/// # Errors
/// Those of [`time_of_contact_convex_bounded`].
///
/// # Example
/// ```
/// use std::sync::Arc;
/// use ccd_ca_rigid::{convex_apart_along, time_of_contact_convex_bounded_with_direction, CaOptions, RigidBody, RigidPair};
/// use ccd_bvh::{BvhOptions, MeshBvh, Rss};
/// use ccd_geometry::{glam::{DAffine3, DVec3}, TriMesh};
/// use ccd_kinematics::RigidMotion;
///
/// let tetra = TriMesh::new(vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z], vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])?;
/// let body = RigidBody::with_hull(Arc::new(MeshBvh::<Rss>::new(tetra, &BvhOptions::default())?))?;
/// let still = RigidMotion::stationary(DAffine3::IDENTITY)?;
/// let near = RigidMotion::between(DAffine3::from_translation(DVec3::new(3.0, 0.0, 0.0)), DAffine3::from_translation(DVec3::new(2.5, 0.0, 0.0)))?;
/// let pair = RigidPair { a: &still, b: &near };
/// let mut n = DVec3::ZERO;
/// let c = time_of_contact_convex_bounded_with_direction(&body, &body, &pair, 0.0, 1.0, &CaOptions::default(), &mut n)?;
/// assert!(c.is_none() && n.x > 0.9);
/// // the same direction proves the pair apart over the step without GJK
/// assert!(convex_apart_along(&body, &body, &pair, n, 0.0, 1.0, &CaOptions::default())?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn time_of_contact_convex_bounded_with_direction<M: PairMotion + ?Sized>(
    a: &RigidBody,
    b: &RigidBody,
    motion: &M,
    start: f64,
    end: f64,
    opts: &CaOptions,
    direction: &mut DVec3,
) -> Result<Option<Contact>, CaError> {
    convex_bounded_cast(a, b, motion, start, end, opts, direction).map(|(c, _)| c)
}

/// The convex query under a [`PairMotion`] behind
/// [`time_of_contact_convex_bounded_with_direction`] and [`cast`](crate::cast), with the
/// query's counters.
pub(crate) fn convex_bounded_cast<M: PairMotion + ?Sized>(
    a: &RigidBody,
    b: &RigidBody,
    motion: &M,
    start: f64,
    end: f64,
    opts: &CaOptions,
    direction: &mut DVec3,
) -> Result<(Option<Contact>, Stats), CaError> {
    *direction = DVec3::ZERO;
    check_options(opts)?;
    check_window(start, end)?;
    if a.hull().is_none() || b.hull().is_none() {
        return Err(CaError::MissingHull);
    }
    if start >= end {
        return Ok((None, Stats::default()));
    }
    in_window(
        a,
        b,
        motion,
        start,
        opts,
        |a, b, motion, opts, limit, down| {
            convex_bounded_run(a, b, motion, start, end, opts, limit, down, direction)
        },
    )
}

/// Whether the convex hulls of A and B (built with [`RigidBody::with_hull`]) stay more than
/// the tolerance `ε` apart over the whole window `[start, end]`, proven along the one
/// direction `n` (any length; a separating direction cached from an earlier query, see
/// [`time_of_contact_convex_bounded_with_direction`]): the width of the hulls' separating
/// slab along `n` at `start` (exact support functions, rounding allowed for), less `ε`,
/// exceeds how far the bodies' points can move along `n` over the window (the motion's speed
/// bounds with the bodies' radii). `true` proves the pair free over the window, as an
/// apart bounding-volume test does (the hull CA would not report it); `false` proves
/// nothing (a poor direction, a closing motion, speed bounds that do not cover the whole
/// window, a zero or non-finite `n`, or coordinates outside the unscaled range of
/// [`MAX_COORDINATE`]).
///
/// # Errors
/// [`CaError::MissingHull`], and the errors of [`time_of_contact_bounded`] for the
/// options, the window and poses outside the supported domain.
///
/// # Example
/// ```
/// use std::sync::Arc;
/// use ccd_ca_rigid::{convex_apart_along, CaOptions, RigidBody, RigidPair};
/// use ccd_bvh::{BvhOptions, MeshBvh, Rss};
/// use ccd_geometry::{glam::{DAffine3, DVec3}, TriMesh};
/// use ccd_kinematics::RigidMotion;
///
/// let tetra = TriMesh::new(vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z], vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])?;
/// let body = RigidBody::with_hull(Arc::new(MeshBvh::<Rss>::new(tetra, &BvhOptions::default())?))?;
/// let still = RigidMotion::stationary(DAffine3::IDENTITY)?;
/// let moving = RigidMotion::between(DAffine3::from_translation(DVec3::new(3.0, 0.0, 0.0)), DAffine3::from_translation(DVec3::new(-1.0, 0.0, 0.0)))?;
/// let pair = RigidPair { a: &still, b: &moving };
/// let opts = CaOptions::default();
/// assert!(convex_apart_along(&body, &body, &pair, DVec3::X, 0.0, 0.25, &opts)?);
/// assert!(!convex_apart_along(&body, &body, &pair, DVec3::X, 0.0, 1.0, &opts)?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn convex_apart_along<M: PairMotion + ?Sized>(
    a: &RigidBody,
    b: &RigidBody,
    motion: &M,
    n: DVec3,
    start: f64,
    end: f64,
    opts: &CaOptions,
) -> Result<bool, CaError> {
    check_options(opts)?;
    check_window(start, end)?;
    let (Some(ha), Some(hb)) = (a.hull(), b.hull()) else {
        return Err(CaError::MissingHull);
    };
    check_vertices(a, b)?;
    if !n.is_finite() || n == DVec3::ZERO {
        return Ok(false);
    }
    let (pa, pb, slack) = poses_in_domain(
        motion,
        start,
        a,
        b,
        MAX_COORDINATE,
        1.0,
        &motion.rounding_scale(),
    )?;
    let g = max_abs([pa.translation, pb.translation])
        .max(a.max_abs_coordinate())
        .max(b.max_abs_coordinate());
    if rescale_factors(g).is_some() {
        return Ok(false);
    }
    if start >= end {
        return Ok(true);
    }
    let gap = hull_gap(ha, &pa, hb, &pb, n, (u32::MAX, u32::MAX));
    let ([sa, sb], until) = bounds_until(motion, start, end, end - start);
    if until < end {
        return Ok(false);
    }
    let mu = sa.bound(n, a.radius()) + sb.bound(n, b.radius());
    let margin = (opts.tolerance + slack) * n.length();
    // (NaN anywhere: false) the closing over the window, rounded up
    let closing = mu * (end - start) * (1.0 + 1e-12);
    Ok(gap - margin > closing)
}

/// The CA loop of [`time_of_contact_convex_bounded`] (input checked, coordinates in the
/// window).
#[allow(clippy::too_many_arguments)]
fn convex_bounded_run(
    a: &RigidBody,
    b: &RigidBody,
    motion: &dyn PairMotion,
    start: f64,
    end: f64,
    opts: &CaOptions,
    limit: f64,
    down: f64,
    direction: &mut DVec3,
) -> Result<(Option<Contact>, Stats), CaError> {
    let (Some(ha), Some(hb)) = (a.hull(), b.hull()) else {
        return Err(CaError::MissingHull);
    };
    let mut stats = Stats::default();
    let mut search = BoundedHullSearch {
        a,
        b,
        ha,
        hb,
        motion,
        end,
        eps: opts.tolerance,
        max_iterations: opts.max_iterations,
        limit,
        down,
        scale: motion.rounding_scale(),
        hint: end - start,
        // the capsule stage (see `crate::capsule`) while both bodies have capsules
        capsules: a.capsule().zip(b.capsule()),
        cache: GjkCache::new(),
        direction,
        last: None,
    };
    let window = Search {
        from: start,
        start,
        end,
        max_iterations: opts.max_iterations,
    };
    let c = advance_search(&mut search, window, &mut stats)?;
    Ok((c, stats))
}

/// The safe-step oracle of two hulls under a [`PairMotion`]: steps on the bodies' fitted
/// capsules while their gap exceeds `ε`, then one GJK distance (warm-started) per
/// evaluation; records the direction of the last certified gap.
struct BoundedHullSearch<'q> {
    a: &'q RigidBody,
    b: &'q RigidBody,
    ha: &'q ConvexHull,
    hb: &'q ConvexHull,
    motion: &'q dyn PairMotion,
    end: f64,
    eps: f64,
    max_iterations: u32,
    limit: f64,
    down: f64,
    scale: [RoundingScale; 2],
    hint: f64,
    capsules: Option<(&'q Capsule, &'q Capsule)>,
    cache: GjkCache,
    direction: &'q mut DVec3,
    /// The last GJK evaluation (the witnesses of any answer).
    last: Option<GjkResult>,
}

impl SafeStep for BoundedHullSearch<'_> {
    type Contact = Contact;

    fn probe(&mut self, t: f64, stats: &mut Stats) -> Result<Probe, CaError> {
        let (a, b, eps) = (self.a, self.b, self.eps);
        let (ra, rb) = (a.radius(), b.radius());
        let (pa, pb, slack) =
            poses_in_domain(self.motion, t, a, b, self.limit, self.down, &self.scale)?;
        if let Some((ca, cb)) = self.capsules {
            // steps on the capsules' gap (a lower bound of the hulls' along its direction)
            // while it exceeds ε and a step is possible; else GJK from this `t` on. The
            // last iteration allowed is always GJK's, which reports the status.
            if stats.iterations + 1 < self.max_iterations
                && let Some((n, gap)) = ca.gap(&pa, cb, &pb)
                && gap > eps
            {
                let ([sa, sb], until) = bounds_until(self.motion, t, self.end, self.hint);
                let step = key_along(eps, slack, gap, n, sa.bound(n, ra) + sb.bound(n, rb));
                let next = crate::advance::advance(t, step, until).unwrap_or(until);
                if step > 0.0 && next > t {
                    *self.direction = n;
                    return Ok(Probe::Apart { step, until });
                }
            }
            self.capsules = None;
        }
        let (ha, hb) = (self.ha, self.hb);
        let gjk = GjkOptions::default();
        let r = gjk_distance_cached(ha, &pa, hb, &pb, &gjk, &mut self.cache)?;
        stats.primitive_tests += u64::from(r.iterations);
        self.last = Some(r);
        // (a NaN distance proves nothing: reported as touching)
        if r.intersecting || r.distance <= eps || r.distance.is_nan() {
            return Ok(Probe::Touching);
        }
        let half = 0.5 * eps;
        let ([sa, sb], until) = bounds_until(self.motion, t, self.end, self.hint);
        let mu = |n: DVec3| sa.bound(n, ra) + sb.bound(n, rb);
        let mut step = 0.0f64;
        if let Some(n) = r.normal.try_normalize() {
            *self.direction = n;
            let hints = (vertex_of(r.feature_a, ha), vertex_of(r.feature_b, hb));
            let gap = hull_gap(ha, &pa, hb, &pb, n, hints).min(r.distance);
            step = key_along(eps, slack, gap, n, mu(n));
        }
        if step <= 0.0 && r.lower_bound - slack > half {
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
                (r.lower_bound - slack - half) / (free * (1.0 + 1e-12))
            } else {
                f64::INFINITY
            };
        }
        Ok(Probe::Apart { step, until })
    }

    fn contact(&mut self, toc: f64, status: Status, stats: &mut Stats) -> Result<Contact, CaError> {
        // (capsule steps always progress below the cap: every answer follows a GJK probe)
        let r = self.last.ok_or(CaError::MissingHull)?;
        let lift = |f: Feature, hull: &ConvexHull| {
            let id = |i: u32| hull.input_indices().get(i as usize).copied().unwrap_or(i);
            match f {
                Feature::Vertex(i) => Feature::Vertex(id(i)),
                Feature::Edge(i, j) => Feature::edge(id(i), id(j)),
                face => face,
            }
        };
        Ok(Contact {
            toc,
            point_a: r.point_a,
            point_b: r.point_b,
            normal: r.normal.try_normalize().unwrap_or(DVec3::Z),
            distance: r.distance,
            feature_a: lift(r.feature_a, self.ha),
            feature_b: lift(r.feature_b, self.hb),
            status,
            stats: *stats,
        })
    }

    fn advanced(&mut self, t: f64, next: f64, _step: f64) {
        self.hint = next - t;
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

    /// A sliding pair whose bounds over `[t, 1]` are 10× too loose and whose bounds over the
    /// horizon `until(t, end)` are the exact ones.
    struct Horizon<'m> {
        pair: RigidPair<'m>,
        until: fn(f64, f64) -> f64,
    }

    impl PairMotion for Horizon<'_> {
        fn poses(&self, t: f64) -> (DAffine3, DAffine3) {
            self.pair.poses(t)
        }
        fn speed_bounds(&self, t: f64) -> [SpeedBound; 2] {
            self.pair.speed_bounds(t).map(|s| SpeedBound {
                linear: s.linear * 10.0,
                ..s
            })
        }
        fn speed_bounds_until(&self, t: f64, end: f64, _: f64) -> ([SpeedBound; 2], f64) {
            (self.pair.speed_bounds(t), (self.until)(t, end))
        }
    }

    #[test]
    fn short_horizon_bounds_are_used_up_to_their_horizon_and_bad_horizons_are_not_trusted() {
        let tetra = ccd_geometry::TriMesh::new(
            vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z],
            vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
        )
        .unwrap();
        let body = RigidBody::with_hull(std::sync::Arc::new(
            ccd_bvh::MeshBvh::<Rss>::new(tetra, &ccd_bvh::BvhOptions::default()).unwrap(),
        ))
        .unwrap();
        let still = RigidMotion::stationary(DAffine3::IDENTITY).unwrap();
        let sliding = RigidMotion::between(
            DAffine3::from_translation(DVec3::new(3.0, 0.0, 0.0)),
            DAffine3::from_translation(DVec3::new(-1.0, 0.0, 0.0)),
        )
        .unwrap();
        let pair = RigidPair {
            a: &still,
            b: &sliding,
        };
        let opts = CaOptions::default();
        let run = |until: fn(f64, f64) -> f64| {
            let m = Horizon { pair, until };
            let mesh = time_of_contact_bounded(
                &body,
                &body,
                &m,
                0.0,
                1.0,
                &opts,
                &mut BoundedScratch::default(),
            )
            .unwrap()
            .unwrap();
            let hull = time_of_contact_convex_bounded(&body, &body, &m, 0.0, 1.0, &opts)
                .unwrap()
                .unwrap();
            for c in [mesh, hull] {
                // the faces x = 1 of A and x = 3 − 4t of B meet at t = 0.5
                assert!(c.toc <= 0.5 && c.toc > 0.49, "{c:?}");
                assert_eq!(c.status, Status::Converged);
            }
            (mesh.stats.iterations, hull.stats.iterations)
        };
        let short = run(|t, end| end.min(t + 0.1));
        for bad in [
            (|t, _| t) as fn(f64, f64) -> f64,
            |_, _| f64::NAN,
            |_, end| end + 0.5,
        ] {
            let loose = run(bad);
            assert!(
                loose.0 > short.0 + 10 && loose.1 > short.1 + 10,
                "{short:?} vs {loose:?}"
            );
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
