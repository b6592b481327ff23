//! The exact method: conservative advancement of each capsule against the environment
//! triangles that survived culling, with the articulated motion bound (CATCH, Eq. 7–10).
//!
//! Safe step. At time `t` let `p`, `q` be the closest points of the capsule's segment and an
//! environment triangle `T`, `d = |q − p|`, `n = (q − p)/d`, `g = d − r` the surface gap.
//! Segment and triangle are convex, so the plane through `q` normal to `n` separates the
//! triangle (on its `+n` side) from every segment point, which lies at least `d` below it.
//! A segment point comes within `r` of `T` only after moving at least `d − r = g` along
//! `n`. [`ArticulatedMotion::motion_bound`] bounds `∫ |v·n|` over `[t, 1]` by `(1 − t)·ρ`
//! with a constant rate `ρ` for every point within the capsule's reach of the link origin, so
//! no contact with `T` happens before `t + g/ρ`. Each triangle is thus certified free up to
//! `t + (g − ε/2)/ρ_T` (stopping half a tolerance short keeps the reported time strictly
//! before contact) and is re-evaluated only when the advancing time reaches that certificate
//! (as C2A skips pairs whose safe step exceeds the current one), or within one more step of
//! it; the time advances to the earliest certificate, and contact is declared when a
//! re-evaluated gap is `≤ ε`. The loop itself (statuses, the exact-sum advance, the
//! iteration cap) is `ccd-ca-rigid`'s conservative-advancement driver
//! ([`ccd_ca_rigid::driver`]); this module supplies its safe-step oracle.
//!
//! Culling in time. Before CA, the step is cut into time groups of the swept-volume method
//! ([`crate::swept`]): over a group the capsule stays inside the group's volume, so a
//! triangle whose box misses the volume's box cannot touch it during the group. Groups are
//! halved (in time order) while their error bound exceeds `r/20` and some triangle is left,
//! up to [`ExactOptions::max_groups`]; CA then runs group by group over the triangles left
//! in each. A foot gliding a few millimetres above a finely tessellated floor thus needs no
//! CA iteration at all, where a motion bound alone would advance in many small steps.

use ccd_ca_rigid::Stats;
use ccd_ca_rigid::driver::{Probe, SafeStep, Search, advance_search};
use ccd_distance::segment_triangle;
use ccd_geometry::{Status, Triangle};
use ccd_kinematics::{ArticulatedMotion, LinkId};
use glam::DVec3;

use crate::swept::{SplitRule, walk_groups};
use crate::{AvatarError, LinkCapsule};

/// Options of the exact method: start from [`Default`] and change fields with the `with_*`
/// builders (the struct is `#[non_exhaustive]`).
///
/// # Example
/// ```
/// use ccd_avatar_sv::ExactOptions;
///
/// let options = ExactOptions::default().with_tolerance(1e-4);
/// assert_eq!(options.max_iterations, 10_000);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct ExactOptions {
    /// Absolute distance tolerance `ε` (> 0, default `1e-6`): a reported contact has a
    /// surface gap `≤ ε` at its time and none before.
    pub tolerance: f64,
    /// Conservative-advancement iterations per capsule before giving up (the answer is then
    /// the time reached, still conservative, with [`Status::OutOfIterations`]).
    pub max_iterations: usize,
    /// Most time groups per capsule and step used to cull triangles before CA (≥ 1; 1 culls
    /// with the volume of the whole step only). See the module documentation.
    pub max_groups: usize,
}

impl Default for ExactOptions {
    fn default() -> Self {
        Self {
            tolerance: 1e-6,
            max_iterations: 10_000,
            max_groups: 16,
        }
    }
}

impl ExactOptions {
    /// The same options with absolute distance tolerance `tolerance` (validated by the
    /// step: finite and positive).
    #[inline]
    #[must_use]
    pub fn with_tolerance(mut self, tolerance: f64) -> Self {
        self.tolerance = tolerance;
        self
    }

    /// The same options with iteration cap `max_iterations` per capsule (validated by the
    /// step: at least 1).
    #[inline]
    #[must_use]
    pub fn with_max_iterations(mut self, max_iterations: usize) -> Self {
        self.max_iterations = max_iterations;
        self
    }

    /// The same options culling with at most `max_groups` time groups per capsule (validated
    /// by the step: at least 1).
    #[inline]
    #[must_use]
    pub fn with_max_groups(mut self, max_groups: usize) -> Self {
        self.max_groups = max_groups;
        self
    }

    pub(crate) fn validate(&self) -> Result<(), AvatarError> {
        if !(self.tolerance.is_finite() && self.tolerance > 0.0) {
            return Err(AvatarError::InvalidOption(format!(
                "ExactOptions::tolerance = {} (must be finite and positive)",
                self.tolerance
            )));
        }
        if self.max_iterations == 0 || self.max_groups == 0 {
            return Err(AvatarError::InvalidOption(
                "ExactOptions::max_iterations and max_groups must be at least 1".into(),
            ));
        }
        Ok(())
    }
}

/// The first contact of one step found by the exact method, in the workspace's contact
/// vocabulary: side `a` is the avatar (feature: [`capsule`](Self::capsule) on
/// [`link`](Self::link)), side `b` the environment (feature: face
/// [`triangle`](Self::triangle) of its mesh).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct ExactContact {
    /// Time of contact in `[0, 1]`: gap `≤ ε` here, no contact before.
    pub toc: f64,
    /// Index of the capsule (the avatar's feature).
    pub capsule: usize,
    /// Its link.
    pub link: LinkId,
    /// The environment triangle (index into the environment mesh).
    pub triangle: u32,
    /// Witness on the capsule's surface at `toc` (world).
    pub point_a: DVec3,
    /// Witness on the triangle at `toc` (world).
    pub point_b: DVec3,
    /// Unit direction from the capsule's axis to the triangle's witness at `toc` (world;
    /// zero when the axis touches the triangle).
    pub normal: DVec3,
    /// Surface gap at `toc`: `|point_b − point_a|` when separated (≤ ε), negative when the
    /// capsule already penetrates at `t = 0`.
    pub distance: f64,
    /// How the run ended: `Converged`, `InitiallyTouching` (within `ε` at `t = 0`),
    /// `OutOfIterations` (the time reached at the cap, the closest triangle there), or
    /// `Stalled` (a step without progress; the closest triangle at `toc`), decided by the
    /// conservative-advancement driver of `ccd-ca-rigid`.
    pub status: Status,
}

/// Counters of one exact step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct ExactStats {
    /// CA iterations over all capsules.
    pub iterations: usize,
    /// Segment–triangle distance evaluations.
    pub distance_tests: usize,
    /// Time groups (culling leaves) over all capsules.
    pub groups: usize,
}

/// The exact answer for one capsule over `[0, t_limit]`: culling in time groups, then CA
/// group by group (see the module documentation). The groups share one iteration budget,
/// [`ExactOptions::max_iterations`].
#[allow(clippy::too_many_arguments)]
pub(crate) fn capsule_exact(
    motion: &ArticulatedMotion,
    chain: &[LinkId],
    capsule: &LinkCapsule,
    index: usize,
    triangles: &[(u32, Triangle)],
    t_limit: f64,
    options: &ExactOptions,
    stats: &mut ExactStats,
) -> Result<Option<ExactContact>, AvatarError> {
    if triangles.is_empty() || t_limit.is_nan() || t_limit < 0.0 {
        return Ok(None);
    }
    let rule = SplitRule {
        target: capsule.radius / 20.0,
        max_leaves: options.max_groups,
    };
    // the driver's counters, shared by the groups: its cap counts this capsule's iterations
    let mut budget = Stats::default();
    let mut group_us = 0.0;
    let walked = walk_groups(
        motion,
        chain,
        capsule,
        0.0,
        t_limit.max(f64::MIN_POSITIVE),
        triangles,
        rule,
        &mut group_us,
        |g, list| {
            capsule_ca(
                motion,
                capsule,
                index,
                triangles,
                list,
                (g.t0, g.t1.min(t_limit)),
                options,
                &mut budget,
            )
        },
    );
    stats.iterations += budget.iterations as usize;
    stats.distance_tests += usize::try_from(budget.primitive_tests).unwrap_or(usize::MAX);
    let (found, leaves) = walked?;
    stats.groups += leaves;
    Ok(found)
}

/// Runs CA for one capsule over `[t_start, t_end]` against `triangles[list]` on the
/// conservative-advancement driver of `ccd-ca-rigid` ([`advance_search`]), counting in
/// `budget` (iterations, and segment–triangle distances as primitive tests); the search
/// stops at [`ExactOptions::max_iterations`] iterations of `budget` in all, earlier searches
/// included, with the time reached and [`Status::OutOfIterations`].
#[allow(clippy::too_many_arguments)]
pub(crate) fn capsule_ca(
    motion: &ArticulatedMotion,
    capsule: &LinkCapsule,
    index: usize,
    triangles: &[(u32, Triangle)],
    list: &[u32],
    (t_start, t_end): (f64, f64),
    options: &ExactOptions,
    budget: &mut Stats,
) -> Result<Option<ExactContact>, AvatarError> {
    if list.is_empty() {
        return Ok(None);
    }
    let mut oracle = CapsuleSearch {
        motion,
        capsule,
        index,
        triangles,
        list,
        eps: options.tolerance,
        reach: capsule.reach(),
        safe_until: vec![t_start; list.len()],
        window: 0.0,
        last: None,
    };
    let search = Search {
        from: t_start,
        // a contact is `InitiallyTouching` at the start of the step only, not of a group
        start: 0.0,
        end: t_end,
        max_iterations: u32::try_from(options.max_iterations).unwrap_or(u32::MAX),
    };
    Ok(advance_search(&mut oracle, search, budget)?.flatten())
}

/// The closest triangle found by an evaluation: surface gap, triangle id, closest points
/// on the capsule's axis and on the triangle.
type Closest = (f64, u32, DVec3, DVec3);

/// The safe-step oracle of one capsule against a list of environment triangles, C2A-style:
/// each triangle is certified free up to `safe_until[k]` and re-evaluated only when the
/// advancing time comes within one step (`window`, the last step's length) of it (renewing
/// early is sound: the later of two valid certificates is kept), which keeps the iteration
/// count near that of a global step without re-evaluating far triangles.
struct CapsuleSearch<'a> {
    motion: &'a ArticulatedMotion,
    capsule: &'a LinkCapsule,
    index: usize,
    triangles: &'a [(u32, Triangle)],
    list: &'a [u32],
    eps: f64,
    reach: f64,
    safe_until: Vec<f64>,
    window: f64,
    /// The closest triangle of the last evaluation.
    last: Option<Closest>,
}

impl CapsuleSearch<'_> {
    /// Evaluates at `t` the triangles whose certificate expires within `t + window` (all
    /// of them with `all`), renewing their certificates; returns the closest one evaluated.
    fn evaluate(
        &mut self,
        t: f64,
        all: bool,
        stats: &mut Stats,
    ) -> Result<Option<Closest>, AvatarError> {
        let (capsule, eps) = (self.capsule, self.eps);
        // an unknown link (a capsule not made for this motion's model) is a typed error
        let seg = capsule.world_segment(&self.motion.world_at(capsule.link, t)?);
        let mut best: Option<Closest> = None;
        let rest = 1.0 - t;
        for (k, &i) in self.list.iter().enumerate() {
            if !all && self.safe_until[k] > t + self.window {
                continue;
            }
            let (id, ref tri) = self.triangles[i as usize];
            stats.primitive_tests += 1;
            let c = segment_triangle(&seg, tri);
            let gap = c.distance - capsule.radius;
            if best.is_none_or(|b| gap < b.0) {
                best = Some((gap, id, c.point_a, c.point_b));
            }
            self.safe_until[k] = if gap > eps && rest > 0.0 {
                let n = (c.point_b - c.point_a) / c.distance;
                let rate = self.motion.motion_bound(capsule.link, n, self.reach, t)? / rest;
                self.safe_until[k].max(t + (gap - 0.5 * eps) / rate)
            } else {
                t
            };
        }
        Ok(best)
    }
}

impl SafeStep for CapsuleSearch<'_> {
    /// `None` only for an empty list, which [`capsule_ca`] never searches.
    type Contact = Option<ExactContact>;
    type Error = AvatarError;

    fn probe(&mut self, t: f64, stats: &mut Stats) -> Result<Probe, AvatarError> {
        self.last = self.evaluate(t, false, stats)?;
        if self.last.is_some_and(|(gap, ..)| gap <= self.eps) {
            return Ok(Probe::Touching);
        }
        // the earliest certificate: every triangle is free before it
        let next = self
            .safe_until
            .iter()
            .copied()
            .fold(f64::INFINITY, f64::min);
        Ok(Probe::Apart {
            step: next - t,
            until: 1.0,
        })
    }

    fn contact(
        &mut self,
        toc: f64,
        status: Status,
        stats: &mut Stats,
    ) -> Result<Option<ExactContact>, AvatarError> {
        let closest = match status {
            Status::InitiallyTouching | Status::Converged => self.last,
            // the closest triangle of all at the time reached (the last evaluation may have
            // skipped some)
            _ => self.evaluate(toc, true, stats)?,
        };
        let r = self.capsule.radius;
        Ok(closest.map(|(gap, id, pa, pb)| {
            let dir = (pb - pa).try_normalize().unwrap_or(DVec3::ZERO);
            ExactContact {
                toc,
                capsule: self.index,
                link: self.capsule.link,
                triangle: id,
                point_a: pa + dir * r,
                point_b: pb,
                normal: dir,
                distance: gap,
                status,
            }
        }))
    }

    fn advanced(&mut self, t: f64, next: f64, _step: f64) {
        self.window = next - t;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ccd_kinematics::{ArticulatedModel, Joint, LinkSpec, Pose};
    use glam::DAffine3;

    fn falling(distance: f64) -> (ArticulatedMotion, LinkCapsule, Vec<(u32, Triangle)>) {
        let model = ArticulatedModel::new(vec![LinkSpec {
            name: "a".into(),
            parent: None,
            joint: Joint::Floating,
            offset: DAffine3::IDENTITY,
        }])
        .unwrap();
        let p0 = Pose {
            relative: vec![DAffine3::IDENTITY],
        };
        let p1 = Pose {
            relative: vec![DAffine3::from_translation(DVec3::new(0.0, 0.0, -distance))],
        };
        let motion = ArticulatedMotion::between(&model, &p0, &p1).unwrap();
        let floor = Triangle::new(
            DVec3::new(-5.0, -5.0, -1.0),
            DVec3::new(5.0, -5.0, -1.0),
            DVec3::new(0.0, 5.0, -1.0),
        );
        (
            motion,
            LinkCapsule::along_x(LinkId(0), 0.0, 1.0, 0.1),
            vec![(7, floor)],
        )
    }

    /// The exact answer for the capsule over `[0, t_max]` (culling groups, then CA).
    fn run(
        motion: &ArticulatedMotion,
        capsule: &LinkCapsule,
        tris: &[(u32, Triangle)],
        t_max: f64,
        options: &ExactOptions,
        stats: &mut ExactStats,
    ) -> Result<Option<ExactContact>, AvatarError> {
        let chain = [capsule.link];
        capsule_exact(motion, &chain, capsule, 0, tris, t_max, options, stats)
    }

    #[test]
    fn pure_translation_converges_just_before_contact() {
        // gap 0.9 closed at speed 2: contact at 0.45
        let (motion, capsule, tris) = falling(2.0);
        let mut stats = ExactStats::default();
        let c = run(
            &motion,
            &capsule,
            &tris,
            1.0,
            &ExactOptions::default(),
            &mut stats,
        )
        .unwrap()
        .unwrap();
        assert_eq!(c.status, Status::Converged);
        assert_eq!(c.triangle, 7);
        assert!(c.toc <= 0.45 && c.toc > 0.45 - 1e-6, "{}", c.toc);
        assert!(c.distance <= 1e-6 && c.distance > 0.0);
        assert!((c.point_b.z + 1.0).abs() < 1e-12);
        assert!((c.point_a - c.point_b).length() <= 1e-6);
        // pure translation along the normal: CA is exact, a handful of iterations
        assert!(stats.iterations <= 4, "{}", stats.iterations);
    }

    #[test]
    fn touching_at_the_start_is_initially_touching_with_a_normal() {
        // the floor raised to z = -0.1 - 1e-7: 1e-7 below the capsule's surface at t = 0
        let (motion, capsule, tris) = falling(2.0);
        let (a, b, c) = (tris[0].1.a, tris[0].1.b, tris[0].1.c);
        let up = DVec3::new(0.0, 0.0, 0.9 - 1e-7);
        let raised = vec![(7, Triangle::new(a + up, b + up, c + up))];
        let mut stats = ExactStats::default();
        let options = ExactOptions::default();
        let c = run(&motion, &capsule, &raised, 1.0, &options, &mut stats)
            .unwrap()
            .unwrap();
        assert_eq!(c.status, Status::InitiallyTouching);
        assert_eq!(c.toc, 0.0);
        assert!(
            (c.normal - DVec3::new(0.0, 0.0, -1.0)).length() < 1e-12,
            "{}",
            c.normal
        );
        assert!(c.distance <= 1e-6);
    }

    #[test]
    fn no_contact_within_the_step_or_before_the_limit() {
        let (motion, capsule, tris) = falling(0.5);
        let mut stats = ExactStats::default();
        let options = ExactOptions::default();
        assert!(
            run(&motion, &capsule, &tris, 1.0, &options, &mut stats)
                .unwrap()
                .is_none()
        );
        let (motion, capsule, tris) = falling(2.0);
        assert!(
            run(&motion, &capsule, &tris, 0.4, &options, &mut stats)
                .unwrap()
                .is_none()
        );
        assert!(
            run(&motion, &capsule, &[], 1.0, &options, &mut stats)
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn a_capsule_on_a_link_the_motion_lacks_is_a_typed_error() {
        let (motion, _, tris) = falling(2.0);
        let stray = LinkCapsule::along_x(LinkId(5), 0.0, 1.0, 0.1);
        let mut stats = ExactStats::default();
        let e = run(
            &motion,
            &stray,
            &tris,
            1.0,
            &ExactOptions::default(),
            &mut stats,
        );
        assert!(matches!(e, Err(AvatarError::Kinematics(_))), "{e:?}");
    }

    #[test]
    fn iteration_cap_is_reported_as_a_status_with_an_early_time() {
        let (motion, capsule, tris) = falling(2.0);
        let mut stats = ExactStats::default();
        let options = ExactOptions {
            tolerance: 1e-12,
            max_iterations: 1,
            max_groups: 4,
        };
        let c = run(&motion, &capsule, &tris, 1.0, &options, &mut stats)
            .unwrap()
            .unwrap();
        assert_eq!(c.status, Status::OutOfIterations);
        assert!(c.toc <= 0.45);
        assert!(
            ExactOptions {
                tolerance: 0.0,
                ..ExactOptions::default()
            }
            .validate()
            .is_err()
        );
        assert!(
            ExactOptions {
                max_iterations: 0,
                ..ExactOptions::default()
            }
            .validate()
            .is_err()
        );
    }
}
