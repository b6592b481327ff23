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
use ccd_geometry::{Aabb, Triangle, rigid_inverse};
use glam::{DAffine3, DVec3};

use crate::contract::{REL_ROUNDING, check_options, check_window};
use crate::driver::{Probe, SafeStep, Search, advance_search};
use crate::motion::{
    PairMotion, RoundingScale, SpeedBound, bounds_until, in_window, poses_in_domain,
};
use crate::scale::max_abs;
use crate::traverse::{MotionBound, Scratch, Traversal, Witness, closest_pair};
use crate::{CaError, CaOptions, Contact, RigidBody, Stats, Status};

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

/// The speed bound with its vectors expressed in the frame whose world rotation is `rot`.
fn into_frame(s: SpeedBound, rot_t: glam::DMat3) -> SpeedBound {
    SpeedBound {
        linear: rot_t * s.linear,
        axis: rot_t * s.axis,
        ..s
    }
}

pub(crate) fn window_contact(
    w: Witness,
    pa: &DAffine3,
    toc: f64,
    status: Status,
    stats: Stats,
) -> Contact {
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
/// See [`RigidPair`](crate::RigidPair).
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
/// use ccd_ca_rigid::details::{first_step_bounded, BoundedScratch};
/// use ccd_ca_rigid::{CaOptions, RigidBody, RigidPair, Status};
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
/// use ccd_ca_rigid::details::{time_of_contact_bounded_within, BoundedScratch};
/// use ccd_ca_rigid::{CaOptions, RigidBody, RigidPair};
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
    type Error = CaError;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RigidPair;
    use crate::bounded_hull::time_of_contact_convex_bounded;
    use ccd_kinematics::RigidMotion;
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
