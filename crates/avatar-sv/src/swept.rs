//! The paper's method (Avatar, Sec. 6–7): the swept volume of a capsule over a time interval,
//! tessellated in strips grouped by time with a proven error bound, its interference with the
//! environment, the earliest colliding time group and backtracking.
//!
//! Swept volume. A capsule is the offset by `r` of its segment; its swept volume is the
//! offset by `r` of the ruled surface `x(t, s) = A(t) + s (B(t) − A(t))` swept by the segment
//! (Eq. 3; the points move rigidly, so `x` is affine in `s`). The boundary of that offset is
//! the two-sided offset surface of the ruled surface (Eq. 4) together with the pipe surfaces
//! of the end spheres along `A(t)` and `B(t)` (Eq. 12). We tessellate the ruled surface in
//! time: each time group `[t₀, t₁]` is one strip quad with corners `A₀ = A(t₀), B₀, A₁, B₁`,
//! split along both diagonals — four triangles, the faces of the tetrahedron `Q` spanned by
//! the corners. The group's tessellated volume is `Q` offset by `r + δ`; its boundary is made
//! of offset planes of the strip triangles (the offset surface), cylinders about their edges
//! (along the `s = 0, 1` edges: the pipe surfaces of the end spheres) and corner spheres.
//!
//! Error bound (Sec. 6.3, made rigorous). Write `λ = (t − t₀)/h`, `h = t₁ − t₀`. The true
//! point `x(t, s)` differs from the bilinear interpolant of the corners by
//! `(1 − s) e_A(t) + s e_B(t)`, `e_P(t) = P(t) − lerp(P(t₀), P(t₁), λ)`, and the bilinear
//! interpolant is a convex combination of the corners, so it lies in `Q` (which is why the
//! quad is split both ways: one diagonal alone would cost a first-order twist term). By the
//! Peano-kernel form of linear interpolation, `|e_P(t)| ≤ h²/8 · max |P''|` for a vector
//! function too. `P = x₀`, where down the chain `x_{j−1} = R_j(t) x_j + T_j(t)`, `x_k = p`
//! (the point in its link frame), `R_j` turns with constant angular speed `ω_j` about a fixed
//! axis and `T_j` moves with constant velocity `s_j` (Sec. 4, Eq. 6–8). Then
//! `x_{j−1}'' = R_j'' x_j + 2 R_j' x_j' + R_j x_j''` with `|R_j' v| ≤ ω_j |v|` and
//! `|R_j'' v| ≤ ω_j² |v|`, which gives the recurrence
//! `A_{j−1} = ω_j² X_j + 2 ω_j V_j + A_j`, `V_{j−1} = ω_j X_j + V_j + |s_j|`,
//! `X_{j−1} = X_j + max_{[t₀,t₁]} |T_j|` from `X_k = |p|`, `V_k = A_k = 0` (`|T_j|` is convex
//! in `t`, so its maximum is at an end). So `δ = h²/8 · max(A(a), A(b))` (inflated for
//! rounding) bounds the distance from every point of the true ruled surface over the group to
//! `Q`, and every point of the capsule over the group lies within `r + δ` of `Q`: the bound is
//! of second order in `h`, computed in `O(depth)` operations (the paper bounds derivatives by
//! interval arithmetic, Sec. 6.3).
//!
//! Culling in time. The groups are built top-down (each halved in time order while its bound
//! exceeds the target), and each carries the candidate triangles whose boxes overlap its
//! volume's box, filtered from its parent's list: a triangle touching the capsule during a
//! group overlaps the box of that group and of every enclosing one, so none is lost, and a
//! group left without triangles is free without further work (the paper culls the time
//! groups against the environment the same way, with its BVH, before the exact tests).
//!
//! Interference and TOC (Sec. 7.2). A group collides when some candidate environment
//! triangle is within `r + δ` of the solid `Q`: within that distance of one of its faces
//! (exact triangle–triangle distances) or with a vertex inside `Q` — a volume test, so
//! environment triangles inside the swept volume are found too.
//! The end of the earliest colliding group is the paper's TOC upper bound `U`. Backtracking
//! splits that group into `backtrack_steps` sub-groups (the backtracking unit), each with its
//! own bound, and scans them in time order: the start of the first colliding sub-group is
//! `t_c`; every earlier group and sub-group was certified collision-free, so the capsule has
//! a collision-free path on `[0, t_c]`. A group whose sub-groups are all free was a false
//! alarm of the coarser bound, and the scan goes on with the next group.

use ccd_distance::triangle_triangle;
use ccd_geometry::{Aabb, Triangle};
use ccd_kinematics::ArticulatedMotion;
use glam::DVec3;

use crate::{AvatarError, LinkCapsule};

/// Options of the swept-volume method: start from [`Default`] and change fields with the
/// `with_*` builders (the struct is `#[non_exhaustive]`).
///
/// # Example
/// ```
/// use ccd_avatar_sv::SvOptions;
///
/// let options = SvOptions::default().with_tessellation_error(1e-4).with_max_groups(128);
/// assert_eq!(options.backtrack_steps, 8);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct SvOptions {
    /// Target tessellation error `δ` (absolute, > 0): time groups are halved until their
    /// bound is below it or `max_groups` is reached (a group above the target is still
    /// conservative: it is inflated by its own bound).
    pub tessellation_error: f64,
    /// Most time groups per capsule and step (≥ 1).
    pub max_groups: usize,
    /// Sub-groups a colliding group is split into when backtracking (≥ 1).
    pub backtrack_steps: usize,
}

impl Default for SvOptions {
    fn default() -> Self {
        Self {
            tessellation_error: 1e-3,
            max_groups: 64,
            backtrack_steps: 8,
        }
    }
}

impl SvOptions {
    /// The same options with target tessellation error `tessellation_error` (validated by
    /// the step: finite and positive).
    #[inline]
    #[must_use]
    pub fn with_tessellation_error(mut self, tessellation_error: f64) -> Self {
        self.tessellation_error = tessellation_error;
        self
    }

    /// The same options with at most `max_groups` time groups per capsule (validated: ≥ 1).
    #[inline]
    #[must_use]
    pub fn with_max_groups(mut self, max_groups: usize) -> Self {
        self.max_groups = max_groups;
        self
    }

    /// The same options splitting a colliding group into `backtrack_steps` sub-groups
    /// (validated: ≥ 1).
    #[inline]
    #[must_use]
    pub fn with_backtrack_steps(mut self, backtrack_steps: usize) -> Self {
        self.backtrack_steps = backtrack_steps;
        self
    }

    pub(crate) fn validate(&self) -> Result<(), AvatarError> {
        if !(self.tessellation_error.is_finite() && self.tessellation_error > 0.0) {
            return Err(AvatarError::InvalidOption(format!(
                "SvOptions::tessellation_error = {} (must be finite and positive)",
                self.tessellation_error
            )));
        }
        if self.max_groups == 0 || self.backtrack_steps == 0 {
            return Err(AvatarError::InvalidOption(
                "SvOptions::max_groups and backtrack_steps must be at least 1".into(),
            ));
        }
        Ok(())
    }
}

/// One time group of a tessellated swept volume: the strip quad of the ruled surface over
/// `[t0, t1]` split along both diagonals (the faces of the tetrahedron `Q` of its corners),
/// and the offset radius `inflation = r + error`: `Q` offset by it contains the capsule at
/// every time of the group.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct TimeGroup {
    /// Start of the group.
    pub t0: f64,
    /// End of the group.
    pub t1: f64,
    /// The corners `A(t₀), B(t₀), A(t₁), B(t₁)` (world).
    pub corners: [DVec3; 4],
    /// The tessellation error bound `δ` of the group.
    pub error: f64,
    /// The capsule radius plus `error`.
    pub inflation: f64,
}

impl TimeGroup {
    /// The strip triangles (both diagonals): `A₀B₀B₁`, `A₀B₁A₁`, `A₀B₀A₁`, `B₀B₁A₁`.
    #[must_use]
    pub fn triangles(&self) -> [Triangle; 4] {
        let [a0, b0, a1, b1] = self.corners;
        [
            Triangle::new(a0, b0, b1),
            Triangle::new(a0, b1, a1),
            Triangle::new(a0, b0, a1),
            Triangle::new(b0, b1, a1),
        ]
    }

    /// Whether `p` lies inside the solid tetrahedron of the corners (false when it is flat).
    #[must_use]
    pub fn encloses(&self, p: DVec3) -> bool {
        let [a, b, c, d] = self.corners;
        let vol = (b - a).cross(c - a).dot(d - a);
        if vol == 0.0 {
            return false;
        }
        let side = |x: DVec3, y: DVec3, z: DVec3, w: DVec3| {
            let n = (y - x).cross(z - x);
            n.dot(p - x) * n.dot(w - x) >= 0.0
        };
        side(a, b, c, d) && side(a, b, d, c) && side(a, c, d, b) && side(b, c, d, a)
    }

    /// Distance from a point to the solid `Q` minus the inflation (≤ 0 inside the
    /// tessellated volume).
    #[must_use]
    pub fn signed_gap(&self, p: DVec3) -> f64 {
        if self.encloses(p) {
            return -self.inflation;
        }
        let d = self
            .triangles()
            .iter()
            .map(|t| ccd_distance::point_triangle(p, t).distance)
            .fold(f64::INFINITY, f64::min);
        d - self.inflation
    }

    /// Bounding box of the group's volume.
    #[must_use]
    pub fn aabb(&self) -> Aabb {
        Aabb::from_points(self.corners).inflate(self.inflation)
    }

    /// Whether an environment triangle meets the group's volume.
    #[must_use]
    pub fn hits(&self, tri: &Triangle) -> bool {
        (0..3).any(|i| self.encloses(tri.vertex(i)))
            || self
                .triangles()
                .iter()
                .any(|s| triangle_triangle(s, tri).distance <= self.inflation)
    }
}

/// Bound on `|P''(t)|` over `[t0, t1]` for the point `p` of the last link of `chain` (see
/// the module documentation for the recurrence).
fn acceleration_bound(
    motion: &ArticulatedMotion,
    chain: &[ccd_kinematics::LinkId],
    p: DVec3,
    t0: f64,
    t1: f64,
) -> Result<f64, AvatarError> {
    let (mut x, mut v, mut a) = (p.length(), 0.0f64, 0.0f64);
    for &id in chain.iter().rev() {
        let rm = motion.relative(id)?;
        let m = rm.params();
        let w = rm.angle().abs();
        let t_max = m
            .translation_at(t0)
            .length()
            .max(m.translation_at(t1).length());
        a += w * w * x + 2.0 * w * v;
        v += w * x + rm.linear_velocity().length();
        x += t_max;
    }
    Ok(a)
}

/// A time group over `[t0, t1]` for a capsule with its bound.
pub(crate) fn time_group(
    motion: &ArticulatedMotion,
    chain: &[ccd_kinematics::LinkId],
    capsule: &LinkCapsule,
    t0: f64,
    t1: f64,
) -> Result<TimeGroup, AvatarError> {
    let w0 = motion.world_at(capsule.link, t0)?;
    let w1 = motion.world_at(capsule.link, t1)?;
    let (a0, b0) = (
        w0.transform_point3(capsule.a),
        w0.transform_point3(capsule.b),
    );
    let (a1, b1) = (
        w1.transform_point3(capsule.a),
        w1.transform_point3(capsule.b),
    );
    let h = t1 - t0;
    let acc = acceleration_bound(motion, chain, capsule.a, t0, t1)?
        .max(acceleration_bound(motion, chain, capsule.b, t0, t1)?);
    // rounding of the corner evaluations and of this sum
    let scale = 1.0
        + [a0, b0, a1, b1]
            .iter()
            .fold(0.0f64, |m, p| m.max(p.abs().max_element()));
    let error = h * h / 8.0 * acc * (1.0 + 1e-9) + 1e-12 * scale;
    Ok(TimeGroup {
        t0,
        t1,
        corners: [a0, b0, a1, b1],
        error,
        inflation: capsule.radius + error,
    })
}

/// The tessellated swept volume of a capsule over `[t0, t1]`: time groups in time order,
/// halved until each bound is below `options.tessellation_error` or `options.max_groups` is
/// reached.
///
/// # Errors
/// [`AvatarError::InvalidOption`] for bad options or a time interval not inside `[0, 1]`.
///
/// # Example
/// ```
/// use ccd_avatar_sv::{LinkCapsule, SvOptions, tessellate};
/// use ccd_kinematics::{ArticulatedModel, ArticulatedMotion, Joint, LinkId, LinkSpec, Pose};
/// use ccd_kinematics::glam::{DAffine3, DQuat, DVec3};
///
/// let model = ArticulatedModel::new(vec![LinkSpec {
///     name: "arm".into(), parent: None, joint: Joint::Floating, offset: DAffine3::IDENTITY,
/// }])?;
/// let p0 = Pose::new(&model, vec![DAffine3::IDENTITY])?;
/// let p1 = Pose::new(&model, vec![DAffine3::from_quat(DQuat::from_rotation_z(2.0))])?;
/// let motion = ArticulatedMotion::between(&model, &p0, &p1)?;
/// let capsule = LinkCapsule::along_x(LinkId(0), 0.0, 1.0, 0.1);
/// let groups = tessellate(&motion, &model, &capsule, 0.0, 1.0, &SvOptions::default())?;
/// // the arm's tip at t = 0.37 lies inside the tessellated volume
/// let tip = motion.world_at(LinkId(0), 0.37)?.transform_point3(DVec3::X);
/// assert!(groups.iter().any(|g| g.t0 <= 0.37 && 0.37 <= g.t1 && g.signed_gap(tip) <= 0.0));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn tessellate(
    motion: &ArticulatedMotion,
    model: &ccd_kinematics::ArticulatedModel,
    capsule: &LinkCapsule,
    t0: f64,
    t1: f64,
    options: &SvOptions,
) -> Result<Vec<TimeGroup>, AvatarError> {
    options.validate()?;
    if !(0.0 <= t0 && t0 < t1 && t1 <= 1.0) {
        return Err(AvatarError::InvalidOption(format!(
            "time interval [{t0}, {t1}] is not a non-empty part of [0, 1]"
        )));
    }
    let chain = model.chain(capsule.link);
    tessellate_chain(motion, &chain, capsule, t0, t1, options)
}

pub(crate) fn tessellate_chain(
    motion: &ArticulatedMotion,
    chain: &[ccd_kinematics::LinkId],
    capsule: &LinkCapsule,
    t0: f64,
    t1: f64,
    options: &SvOptions,
) -> Result<Vec<TimeGroup>, AvatarError> {
    let mut out = Vec::new();
    // depth-first, left half first, so the output is in time order
    let mut stack = vec![time_group(motion, chain, capsule, t0, t1)?];
    while let Some(g) = stack.pop() {
        let room = out.len() + stack.len() + 2 <= options.max_groups;
        if g.error > options.tessellation_error && room && g.t1 - g.t0 > 1e-9 {
            let mid = 0.5 * (g.t0 + g.t1);
            stack.push(time_group(motion, chain, capsule, mid, g.t1)?);
            stack.push(time_group(motion, chain, capsule, g.t0, mid)?);
        } else {
            out.push(g);
        }
    }
    Ok(out)
}

/// Counters and timings (µs) of the swept-volume stages of one step.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct SvCounters {
    pub groups: usize,
    pub triangle_tests: usize,
    pub sv_us: f64,
    pub interference_us: f64,
    pub backtracking_us: f64,
}

/// When the walk splits a group: its bound is above `target`, the group is wider than
/// 1e-9, and the leaves so far plus the pending groups plus the two halves stay within
/// `max_leaves`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SplitRule {
    pub target: f64,
    pub max_leaves: usize,
}

/// Walks the time groups of a capsule over `[t0, t1]` in time order, each with the
/// candidate triangles whose boxes overlap the group's volume box, calling `leaf` on the
/// groups that are not split and still have candidates; stops at the first `Break`.
///
/// Culling is sound: a triangle that touches the capsule at a time `t` of a group lies
/// partly inside the capsule at `t`, hence inside the group's volume (see the module
/// documentation) and its box; so it overlaps the boxes of the group and of every enclosing
/// group, and is never filtered out on the way down. A group whose list becomes empty is
/// collision-free and counts as one leaf. `time_us` collects the time spent building groups.
#[allow(clippy::too_many_arguments)]
pub(crate) fn walk_groups<R>(
    motion: &ArticulatedMotion,
    chain: &[ccd_kinematics::LinkId],
    capsule: &LinkCapsule,
    t0: f64,
    t1: f64,
    triangles: &[(u32, Triangle)],
    rule: SplitRule,
    time_us: &mut f64,
    mut leaf: impl FnMut(&TimeGroup, &[u32]) -> Result<Option<R>, AvatarError>,
) -> Result<(Option<R>, usize), AvatarError> {
    let clock = std::time::Instant::now();
    let root = time_group(motion, chain, capsule, t0, t1)?;
    *time_us += clock.elapsed().as_secs_f64() * 1e6;
    let filter = |g: &TimeGroup, from: &mut dyn Iterator<Item = u32>| -> Vec<u32> {
        let bb = g.aabb();
        from.filter(|&k| bb.overlaps(&triangles[k as usize].1.aabb()))
            .collect()
    };
    let list = filter(&root, &mut (0..triangles.len() as u32));
    let mut leaves = 0usize;
    // depth-first, earlier half on top, so leaves come in time order
    let mut stack = vec![(root, list)];
    while let Some((g, list)) = stack.pop() {
        if list.is_empty() {
            leaves += 1;
            continue;
        }
        let room = leaves + stack.len() + 2 <= rule.max_leaves;
        if g.error > rule.target && room && g.t1 - g.t0 > 1e-9 {
            let mid = 0.5 * (g.t0 + g.t1);
            let clock = std::time::Instant::now();
            let late = time_group(motion, chain, capsule, mid, g.t1)?;
            let early = time_group(motion, chain, capsule, g.t0, mid)?;
            *time_us += clock.elapsed().as_secs_f64() * 1e6;
            let late_list = filter(&late, &mut list.iter().copied());
            let early_list = filter(&early, &mut list.iter().copied());
            stack.push((late, late_list));
            stack.push((early, early_list));
            continue;
        }
        leaves += 1;
        if let Some(r) = leaf(&g, &list)? {
            return Ok((Some(r), leaves));
        }
    }
    Ok((None, leaves))
}

/// The swept-volume result for one capsule: `(U, t_c, triangle)` of its first collision
/// before `t_limit`, `None` when its path is certified free up to `t_limit`.
pub(crate) fn capsule_sv(
    motion: &ArticulatedMotion,
    chain: &[ccd_kinematics::LinkId],
    capsule: &LinkCapsule,
    triangles: &[(u32, Triangle)],
    t_limit: f64,
    options: &SvOptions,
    counters: &mut SvCounters,
) -> Result<Option<(f64, f64, u32)>, AvatarError> {
    if triangles.is_empty() || t_limit <= 0.0 {
        return Ok(None);
    }
    let rule = SplitRule {
        target: options.tessellation_error,
        max_leaves: options.max_groups,
    };
    let clock = std::time::Instant::now();
    let mut sv_us = 0.0;
    let mut backtracking_us = 0.0;
    let mut tests = 0usize;
    let (found, leaves) = walk_groups(
        motion,
        chain,
        capsule,
        0.0,
        t_limit,
        triangles,
        rule,
        &mut sv_us,
        |g, list| {
            if first_hit(g, triangles, list, &mut tests).is_none() {
                return Ok(None);
            }
            // backtracking inside the colliding group (its list holds every triangle that
            // touches the capsule during the group)
            let clock = std::time::Instant::now();
            let n = options.backtrack_steps;
            let mut found = None;
            for k in 0..n {
                let s0 = g.t0 + (g.t1 - g.t0) * (k as f64 / n as f64);
                let s1 = if k + 1 == n {
                    g.t1
                } else {
                    g.t0 + (g.t1 - g.t0) * ((k + 1) as f64 / n as f64)
                };
                let sub = time_group(motion, chain, capsule, s0, s1)?;
                if let Some(tri) = first_hit(&sub, triangles, list, &mut tests) {
                    found = Some((g.t1, s0, tri));
                    break;
                }
            }
            backtracking_us += clock.elapsed().as_secs_f64() * 1e6;
            Ok(found)
        },
    )?;
    let total = clock.elapsed().as_secs_f64() * 1e6;
    counters.groups += leaves;
    counters.triangle_tests += tests;
    counters.sv_us += sv_us;
    counters.backtracking_us += backtracking_us;
    counters.interference_us += (total - sv_us - backtracking_us).max(0.0);
    Ok(found)
}

/// The first triangle of `list` (indices into `triangles`) that meets the group's volume.
fn first_hit(
    g: &TimeGroup,
    triangles: &[(u32, Triangle)],
    list: &[u32],
    tests: &mut usize,
) -> Option<u32> {
    let bb = g.aabb();
    for &k in list {
        let (id, tri) = &triangles[k as usize];
        if !bb.overlaps(&tri.aabb()) {
            continue;
        }
        *tests += 1;
        if g.hits(tri) {
            return Some(*id);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use ccd_kinematics::{ArticulatedModel, Joint, LinkId, LinkSpec, Pose};
    use glam::{DAffine3, DQuat};

    fn one_link(end: DAffine3) -> (ArticulatedModel, ArticulatedMotion) {
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
            relative: vec![end],
        };
        let motion = ArticulatedMotion::between(&model, &p0, &p1).unwrap();
        (model, motion)
    }

    #[test]
    fn a_triangle_inside_the_volume_hits_and_one_outside_does_not() {
        let g = TimeGroup {
            t0: 0.0,
            t1: 1.0,
            corners: [DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z],
            error: 0.0,
            inflation: 0.001,
        };
        let inside = Triangle::new(
            DVec3::splat(0.1),
            DVec3::new(0.12, 0.1, 0.1),
            DVec3::new(0.1, 0.12, 0.1),
        );
        assert!(g.encloses(DVec3::splat(0.1)) && !g.encloses(DVec3::splat(0.5)));
        assert!(g.hits(&inside));
        assert!(g.signed_gap(DVec3::splat(0.1)) < 0.0);
        let outside = Triangle::new(
            DVec3::splat(1.0),
            DVec3::new(1.2, 1.0, 1.0),
            DVec3::new(1.0, 1.2, 1.0),
        );
        assert!(!g.hits(&outside));
        assert!(g.signed_gap(DVec3::splat(1.0)) > 0.0);
    }

    #[test]
    fn pure_translation_needs_one_group_with_a_round_off_bound() {
        let (model, motion) = one_link(DAffine3::from_translation(DVec3::new(1.0, 2.0, 3.0)));
        let c = LinkCapsule::along_x(LinkId(0), 0.0, 1.0, 0.1);
        let g = tessellate(&motion, &model, &c, 0.0, 1.0, &SvOptions::default()).unwrap();
        assert_eq!(g.len(), 1);
        assert!(g[0].error < 1e-9, "{}", g[0].error);
        assert!((g[0].inflation - 0.1 - g[0].error).abs() < 1e-15);
    }

    #[test]
    fn rotation_bound_shrinks_quadratically_and_respects_the_group_cap() {
        let (model, motion) = one_link(DAffine3::from_quat(DQuat::from_rotation_z(2.0)));
        let c = LinkCapsule::along_x(LinkId(0), 0.0, 1.0, 0.1);
        let chain = model.chain(c.link);
        let e1 = time_group(&motion, &chain, &c, 0.0, 0.5).unwrap().error;
        let e2 = time_group(&motion, &chain, &c, 0.0, 0.25).unwrap().error;
        // the chord error of a circle of radius 1 over angle 1 is 1 − cos(0.5) ≈ 0.122; the
        // bound h²/8·ω² = 0.125, and it quarters when h halves
        assert!(e1 >= 1.0 - 0.5f64.cos() && e1 < 0.126, "{e1}");
        assert!(e2 < 0.2501 * e1, "{e1} → {e2}");
        let options = SvOptions {
            tessellation_error: 1e-6,
            max_groups: 5,
            backtrack_steps: 1,
        };
        let g = tessellate(&motion, &model, &c, 0.0, 1.0, &options).unwrap();
        assert!(g.len() <= 5 && g.len() >= 4);
        assert!(tessellate(&motion, &model, &c, 0.5, 0.5, &options).is_err());
        assert!(tessellate(&motion, &model, &c, 0.0, 1.5, &options).is_err());
    }
}
