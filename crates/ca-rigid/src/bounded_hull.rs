//! CA between two convex hulls under any [`PairMotion`] (capsules first, then GJK),
//! and the separation certificate along a cached direction ([`convex_apart_along`]).

use ccd_distance::{
    ConvexHull, GjkCache, GjkOptions, GjkResult, MAX_COORDINATE, gjk_distance_cached,
};
use ccd_geometry::Feature;
use glam::{DAffine3, DVec3};

use crate::capsule::Capsule;
use crate::contract::{check_options, check_vertices, check_window};
use crate::convex::hull_contact;
use crate::driver::{Probe, SafeStep, Search, advance_search};
use crate::motion::{PairMotion, RoundingScale, bounds_until, in_window, poses_in_domain};
use crate::scale::{max_abs, rescale_factors};
use crate::traverse::key_along;
use crate::{CaError, CaOptions, Contact, RigidBody, Stats, Status};

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

/// [`time_of_contact_bounded`](crate::details::time_of_contact_bounded) on the convex hulls of the bodies (built with
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
/// [`time_of_contact_bounded`](crate::details::time_of_contact_bounded).
///
/// # Example
/// ```
/// use std::sync::Arc;
/// use ccd_ca_rigid::details::{time_of_contact_convex_bounded, BoundedScratch};
/// use ccd_ca_rigid::{CaOptions, RigidBody, RigidPair};
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
/// use ccd_ca_rigid::details::{convex_apart_along, time_of_contact_convex_bounded_with_direction};
/// use ccd_ca_rigid::{CaOptions, RigidBody, RigidPair};
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
/// [`CaError::MissingHull`], and the errors of [`time_of_contact_bounded`](crate::details::time_of_contact_bounded) for the
/// options, the window and poses outside the supported domain.
///
/// # Example
/// ```
/// use std::sync::Arc;
/// use ccd_ca_rigid::details::{convex_apart_along};
/// use ccd_ca_rigid::{CaOptions, RigidBody, RigidPair};
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
    type Error = CaError;

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
        Ok(hull_contact(&r, (self.ha, self.hb), toc, status, *stats))
    }

    fn advanced(&mut self, t: f64, next: f64, _step: f64) {
        self.hint = next - t;
    }
}
