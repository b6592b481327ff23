//! The world: bodies, their motions for the current step, and the step query.

use ccd_ca_rigid::{CaOptions, MIN_TOLERANCE, Mode as CaMode, ShapeContact as Contact};
use ccd_distance::{
    ConvexHull, ConvexShape, GjkCache, GjkOptions, convex_distance_within, gjk_distance_cached,
};
use ccd_geometry::{Aabb, rigid_inverse};
use ccd_kinematics::{KinematicsError, RigidMotion};
use glam::{DAffine3, DVec3};

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use crate::grid::GridSap;
use crate::schedule::{Schedule, Verdict, safe_steps};
use crate::{Collider, WorldError};
use ccd_bvh::sap::{PairHasher, overlaps, pair_key, unkey};

/// A body of a [`World`]: its slot and the slot's generation, so that a handle of a removed
/// body never names the body that reuses its slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct BodyHandle {
    index: u32,
    generation: u32,
}

impl BodyHandle {
    /// The slot index (dense: below the number of slots ever used).
    #[inline]
    #[must_use]
    pub fn index(self) -> u32 {
        self.index
    }
}

/// What a step computes (the variant names are the ones every query crate shares).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum Mode {
    /// The earliest contact of the world (the world's time of contact): pairs in order of
    /// their TOC lower bounds with a running minimum (temporal culling, as CATCH Alg. 1): a
    /// pair whose lower bound reaches the best TOC so far cannot improve it and is not
    /// queried. Called `Earliest` before 0.2 (still accepted when deserializing).
    #[default]
    #[cfg_attr(feature = "serde", serde(alias = "Earliest"))]
    Toc,
    /// The first contact of every pair that touches during the step. Called `AllContacts`
    /// before 0.2 (still accepted when deserializing).
    #[cfg_attr(feature = "serde", serde(alias = "AllContacts"))]
    All,
    /// Whether anything touches during the step: stops at the first pair found in contact
    /// (per-pair Boolean CA).
    Boolean,
}

/// Where the candidate pairs of a step come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum BroadPhase {
    /// Sweep-and-prune of the swept boxes on x, y, z with insertion-sort updates.
    #[default]
    SweepAndPrune,
    /// Every pair's swept boxes tested (O(n²); the reference and the benchmark's baseline).
    AllPairs,
}

/// Options of [`World::step`].
///
/// ```
/// use ccd_world::{BroadPhase, Mode, StepOptions};
/// let o = StepOptions::default().with_mode(Mode::All).with_scheduling(false);
/// assert_eq!(o.broad_phase, BroadPhase::SweepAndPrune);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default))]
#[non_exhaustive]
pub struct StepOptions {
    /// What the step computes (default [`Mode::Toc`]).
    pub mode: Mode,
    /// The broad phase (default sweep-and-prune).
    pub broad_phase: BroadPhase,
    /// TOC scheduling across steps (default on): pairs proven apart for the next steps are
    /// not queried until their time comes or a body breaks its declared bounds.
    pub scheduling: bool,
    /// The step on all cores (rayon's current pool; default off): the narrow phase's pairs,
    /// the distance bounds of the scheduler, the per-body refresh (from 256 dynamic bodies)
    /// and the grid cells' sweep-and-prunes. Answers and poses are those of the sequential step, bit for bit
    /// (with all contacts the counters too; the earliest contact and Boolean may query
    /// other pairs before their culling stops).
    #[cfg(feature = "parallel")]
    #[cfg_attr(docsrs, doc(cfg(feature = "parallel")))]
    pub parallel: bool,
}

impl Default for StepOptions {
    fn default() -> Self {
        Self {
            mode: Mode::Toc,
            broad_phase: BroadPhase::SweepAndPrune,
            scheduling: true,
            #[cfg(feature = "parallel")]
            parallel: false,
        }
    }
}

impl StepOptions {
    /// With `mode`.
    #[must_use]
    pub fn with_mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }

    /// With `broad_phase`.
    #[must_use]
    pub fn with_broad_phase(mut self, broad_phase: BroadPhase) -> Self {
        self.broad_phase = broad_phase;
        self
    }

    /// With scheduling on or off.
    #[must_use]
    pub fn with_scheduling(mut self, scheduling: bool) -> Self {
        self.scheduling = scheduling;
        self
    }

    /// With the step on all cores or not (see [`parallel`](Self::parallel)).
    #[cfg(feature = "parallel")]
    #[cfg_attr(docsrs, doc(cfg(feature = "parallel")))]
    #[must_use]
    pub fn with_parallel(mut self, parallel: bool) -> Self {
        self.parallel = parallel;
        self
    }
}

/// A contact between two bodies during a step (`a` has the lower slot index).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct PairContact {
    /// First body (the contact's body A).
    pub a: BodyHandle,
    /// Second body (the contact's body B).
    pub b: BodyHandle,
    /// The per-pair contact (time in the step's `[0, 1]`; parts index compounds).
    pub contact: Contact,
}

/// Counters of a step (the rigid-pile scene prints them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct StepStats {
    /// Live bodies.
    pub bodies: usize,
    /// Endpoint swaps of the sweep-and-prune update (0 with the all-pairs broad phase).
    pub swaps: u64,
    /// Pairs whose swept boxes overlap (static–static pairs excluded).
    pub broad_pairs: usize,
    /// Pairs skipped because the schedule proves them apart during this step.
    pub deferred: usize,
    /// Pairs whose schedule record was dropped because a body broke its declared bounds.
    pub requeued: usize,
    /// Pairs settled without CA: their bounding spheres and boxes cannot close the gap
    /// within the step.
    pub bound_free: usize,
    /// Pairs not queried because their TOC lower bound reached the best TOC (earliest
    /// mode) or a contact was already found (Boolean mode).
    pub culled: usize,
    /// Pairs queried by per-pair CA.
    pub ca_pairs: usize,
    /// CA iterations of the queried pairs, those found free included.
    pub ca_iterations: u64,
    /// Contacts reported.
    pub contacts: usize,
    /// Pairs deferred by the schedule after this step.
    pub scheduled: usize,
}

/// The answer of one [`World::step`].
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct StepReport {
    /// The step's index (0 for the first step).
    pub step: u64,
    /// Contacts: the earliest one ([`Mode::Toc`], ties to the lowest slot pair), every
    /// one sorted by slot pair ([`Mode::All`]), or the first found
    /// ([`Mode::Boolean`]).
    pub contacts: Vec<PairContact>,
    /// Counters.
    pub stats: StepStats,
}

impl StepReport {
    /// The contact with the smallest TOC (ties to the lowest slot pair).
    #[must_use]
    pub fn earliest(&self) -> Option<&PairContact> {
        self.contacts
            .iter()
            .min_by(|x, y| x.contact.toc.total_cmp(&y.contact.toc))
    }

    /// True when something touches during the step.
    #[must_use]
    pub fn collides(&self) -> bool {
        !self.contacts.is_empty()
    }
}

/// One body.
#[derive(Clone, Debug)]
struct Body {
    collider: Collider,
    is_static: bool,
    /// The motion of the coming step.
    motion: RigidMotion,
    /// Where the last step ended (the pose the next motion should start from).
    end: DAffine3,
    /// Declared bound on how much the body's point speed (per step) can grow per step.
    accel: f64,
    /// The envelope's anchor: the speed at the last step (or at insertion).
    anchor_speed: f64,
    /// Whether the speed envelope holds from its anchor (false right after insertion).
    anchored: bool,
    /// Changes whenever the body breaks its declared bounds (jumps, speeds up beyond the
    /// declaration, gets a new declaration).
    epoch: u64,
    /// This step: point-speed bound, box at t = 0 and t = 1, swept box.
    speed: f64,
    box0: Aabb,
    box1: Aabb,
    swept: Aabb,
    /// The box the sweep-and-prune keeps: for a turning body the box of its bounding
    /// sphere swept over the step (it does not change with the body's orientation, so
    /// bodies moving together keep their endpoints' order; the rotated box `swept` jitters
    /// with every turn), otherwise `swept`. Both hold the body over the step widened by
    /// `ε/2`; a pair is a broad pair when both kinds of boxes overlap.
    sap_box: Aabb,
    /// A dynamic body's position in [`World`]'s list of dynamic slots.
    dyn_pos: u32,
    /// A dynamic body's pose at `t = 1` and the motion that continues its current one
    /// from there (same velocities), computed by the step's refresh and applied by the
    /// step's advance.
    next: Option<(DAffine3, Result<RigidMotion, KinematicsError>)>,
}

#[derive(Clone, Debug, Default)]
struct Slot {
    generation: u32,
    body: Option<Body>,
}

/// The world box of a local box under `pose`, widened by `margin` plus a rounding allowance.
fn world_box(local: &Aabb, pose: &DAffine3, margin: f64) -> Aabb {
    let c = pose.transform_point3(local.center());
    let h = 0.5 * (local.max - local.min);
    let m = pose.matrix3;
    let e = DVec3::new(
        m.row(0).abs().dot(h),
        m.row(1).abs().dot(h),
        m.row(2).abs().dot(h),
    );
    let slack = 1e-12 * (c.abs() + e).max_element() + margin;
    Aabb::new(c - e - DVec3::splat(slack), c + e + DVec3::splat(slack))
}

impl Body {
    /// Point-speed bound of the motion (per step): `|v| + ω r`.
    fn motion_speed(&self) -> f64 {
        if self.is_static {
            return 0.0;
        }
        (self.motion.linear_velocity().length() + self.motion.angle() * self.collider.radius())
            * (1.0 + 1e-12)
    }

    /// Refreshes a dynamic body for the step ([`refresh`](Self::refresh)) and its anchor
    /// (the point speed its declared acceleration is measured from); true when its epoch
    /// must be renewed (its motion starts away from where the last one ended, it sped up
    /// beyond its declaration, or it was never anchored): then the epoch is set to
    /// `u64::MAX`, a placeholder the caller numbers.
    ///
    /// Also computes the body's pose at `t = 1` and its continued motion (`next`).
    fn refresh_dynamic(&mut self, half: f64) -> bool {
        let (start, end) = self.refresh(half);
        let m = &self.motion;
        let cont = RigidMotion::from_axis_angle(end, m.axis(), m.angle(), m.linear_velocity());
        self.next = Some((end, cont));
        let jumped = start != self.end;
        let over = self.anchored && self.speed > self.anchor_speed + self.accel;
        let renew = jumped || over || !self.anchored;
        if renew {
            self.epoch = u64::MAX;
        }
        self.anchor_speed = self.speed;
        self.anchored = true;
        renew
    }

    /// Recomputes the step's speed, boxes and swept box (`half` = half the tolerance);
    /// returns the poses at `t = 0` and `t = 1`.
    fn refresh(&mut self, half: f64) -> (DAffine3, DAffine3) {
        let local = self.collider.local_aabb();
        let (p0, p1) = (self.motion.pose_at(0.0), self.motion.pose_at(1.0));
        self.speed = self.motion_speed();
        self.box0 = world_box(&local, &p0, half);
        self.box1 = world_box(&local, &p1, half);
        // a point x is at c(t) + R(t) x; c(t) + R(0) x sweeps box0 ∪ (box0 + disp) and is
        // within min(θ, 2) r of it; independently every point is within r of c(t)
        let disp = self.motion.linear_velocity();
        let moved = Aabb::new(self.box0.min + disp, self.box0.max + disp);
        let theta = self.motion.angle();
        let r = self.collider.radius();
        let lin = self.box0.merge(moved);
        let (swept, ball) = if theta > 0.0 {
            let turn = theta.min(2.0) * r * (1.0 + 1e-12);
            let lin = lin.inflate(turn);
            let c0 = p0.translation;
            let c1 = c0 + disp;
            let rr = r * (1.0 + 1e-12) + half + 1e-12 * (c0.abs().max(c1.abs())).max_element();
            let ball = Aabb::new(c0.min(c1) - DVec3::splat(rr), c0.max(c1) + DVec3::splat(rr));
            (lin.intersection(ball), Some(ball))
        } else {
            (lin, None)
        };
        self.swept = swept.merge(self.box1);
        self.sap_box = match ball {
            Some(b) if !self.is_static => b,
            _ => self.swept,
        };
        (p0, p1)
    }
}

/// A lower bound of the distance of two bodies at given poses, and the separating slab it
/// came from when a convex bound gave one.
#[derive(Clone, Copy, Debug)]
struct Gap {
    /// The distance lower bound (rounding allowance subtracted).
    d: f64,
    /// A unit direction `n` (world frame, from A towards B) and a lower bound of
    /// `min n·(y − x)` over the points `x` of A and `y` of B (rounding allowance
    /// subtracted): the bodies are separated by a slab of that width along `n`.
    slab: Option<(DVec3, f64)>,
    /// The GJK warm start after this bound (hull pairs whose GJK ran).
    gjk: Option<GjkCache>,
}

/// A lower bound of the distance of two bodies at poses `pa`, `pb` with world boxes `ba`,
/// `bb`: the best of the sphere gap, the box gap and (when both are convex or carry hulls)
/// the proven lower bound of their convex distance (GJK between hulls, the pair kernels of
/// `ccd-distance` for analytic shapes), less a rounding allowance; with the convex bound's
/// separating slab (exact support functions of the hulls along GJK's direction, the slab of
/// the analytic kernels, which may stop once within `ε/4` of the distance). The convex
/// distance runs only while the cheap bounds are below `enough`; GJK between hulls starts
/// from `warm` (the pair's last simplex: any start gives proven bounds).
#[allow(clippy::too_many_arguments)]
fn distance_lower_bound(
    a: &Body,
    pa: &DAffine3,
    ba: &Aabb,
    b: &Body,
    pb: &DAffine3,
    bb: &Aabb,
    enough: f64,
    eps: f64,
    warm: Option<GjkCache>,
) -> Gap {
    let (ra, rb) = (a.collider.radius(), b.collider.radius());
    let (ca, cb) = (pa.translation, pb.translation);
    let scale = 1.0 + ca.abs().max_element() + cb.abs().max_element() + ra + rb;
    let allowance = 1e-9 * scale;
    let sphere = ca.distance(cb) - ra - rb;
    // (the boxes are widened: their distance is below the bodies')
    let mut d = sphere.max(ba.distance(bb));
    let mut slab = None;
    let mut gjk = None;
    if d < enough
        && let (Some(ca), Some(cb)) = (a.collider.convex_bound(), b.collider.convex_bound())
    {
        let (lower, s) = match (ca, cb) {
            (ConvexShape::Hull(ha), ConvexShape::Hull(hb)) => {
                let mut cache = warm.unwrap_or_default();
                let r = gjk_distance_cached(ha, pa, hb, pb, &GjkOptions::default(), &mut cache);
                gjk = Some(cache);
                match r {
                    Ok(r) => {
                        let s = if r.intersecting {
                            None
                        } else {
                            r.normal
                                .try_normalize()
                                .map(|n| (n, hull_gap_along(ha, pa, hb, pb, n).min(r.distance)))
                        };
                        (r.lower_bound, s)
                    }
                    Err(_) => (f64::NAN, None),
                }
            }
            // (B's pose in A's frame: a rigid inverse; the slab is along the normal, in
            // A's frame)
            _ => {
                let r = convex_distance_within(ca, cb, &(rigid_inverse(pa) * *pb), 0.25 * eps);
                let s = (pa.matrix3 * r.normal)
                    .try_normalize()
                    .map(|n| (n, r.lower_bound));
                (r.lower_bound, s)
            }
        };
        if lower.is_finite() {
            d = d.max(lower);
        }
        slab = s.filter(|(n, w)| n.is_finite() && w.is_finite());
    }
    Gap {
        d: d - allowance,
        slab: slab.map(|(n, w)| (n, w - allowance)),
        gjk,
    }
}

/// Separation of two hulls along the unit direction `n` (world frame), from their exact
/// support functions: `min_{y∈B} y·n − max_{x∈A} x·n` (positive: a separating slab of that
/// width).
fn hull_gap_along(a: &ConvexHull, pa: &DAffine3, b: &ConvexHull, pb: &DAffine3, n: DVec3) -> f64 {
    let (sa, _) = a.support(pa.matrix3.transpose() * n);
    let (sb, _) = b.support(pb.matrix3.transpose() * -n);
    pb.transform_point3(sb).dot(n) - pa.transform_point3(sa).dot(n)
}

/// A bound on the rate at which `n·(y − x)` can shrink for points `x` of A and `y` of B
/// (unit `n`, world frame): `|Δv·n| + ω_a r_a |u_a × n| + ω_b r_b |u_b × n|` (a point at
/// offset `p` from its body's origin moves with `v + ω u × p` and
/// `|(u × p)·n| = |p·(n × u)| ≤ r |u × n|`), rounded up.
fn projected_speed(a: &Body, b: &Body, n: DVec3) -> f64 {
    let (ma, mb) = (&a.motion, &b.motion);
    let lin = (mb.linear_velocity() - ma.linear_velocity()).dot(n).abs();
    let turn = |m: &RigidMotion, r: f64| {
        if m.angle() == 0.0 {
            0.0
        } else {
            m.angle() * r * m.axis().cross(n).length()
        }
    };
    (lin + turn(ma, a.collider.radius()) + turn(mb, b.collider.radius())) * (1.0 + 1e-9)
}

/// The bodies of a pair key (both slots live).
fn pair_in(slots: &[Slot], key: u64) -> (&Body, &Body) {
    let [a, b] = unkey(key);
    let get = |s: u32| {
        slots[s as usize]
            .body
            .as_ref()
            .expect("pairs name live slots")
    };
    (get(a), get(b))
}

/// [`World::refresh_dynamic`] on the world's slots, swept boxes and dynamic bodies (so
/// that it can run beside the sweep-and-prune's flush, which holds another part).
fn refresh_in(
    slots: &mut [Slot],
    swept: &mut [Aabb],
    dynamic: &[u32],
    half: f64,
    parallel: bool,
) -> usize {
    #[cfg(feature = "parallel")]
    if parallel && dynamic.len() >= PAR_MIN_BODIES {
        use rayon::prelude::*;
        // (every slot is visited: the dynamic ones are the live bodies not static; pieces
        // of PAR_MIN_BODIES / 16 slots, because as bodies fall asleep the dynamic ones are
        // spread unevenly and larger pieces leave a thread idle: `rigid-pile`'s 2-thread row)
        return slots
            .par_iter_mut()
            .zip(swept.par_iter_mut())
            .with_min_len(PAR_MIN_BODIES / 16)
            .map(|(slot, swept)| match slot.body.as_mut() {
                Some(body) if !body.is_static => {
                    let renew = body.refresh_dynamic(half);
                    *swept = body.sap_box;
                    usize::from(renew)
                }
                _ => 0,
            })
            .sum();
    }
    let _ = parallel;
    let mut renewed = 0;
    for &i in dynamic {
        let Some(body) = slots[i as usize].body.as_mut() else {
            continue;
        };
        renewed += usize::from(body.refresh_dynamic(half));
        swept[i as usize] = body.sap_box;
    }
    renewed
}

/// The sweep-and-prune's pairs in key order, its pending insertions and removals applied
/// first (the joined parallel step's first guess of the due pairs,
/// [`World::all_work_joined`]).
#[cfg(feature = "parallel")]
fn listed_pairs(sap: &mut GridSap) -> Vec<u64> {
    sap.flush();
    let mut keys: Vec<u64> = Vec::new();
    sap.pairs_into(&mut keys);
    keys.sort_unstable();
    keys.dedup();
    keys
}

/// [`World::toc_lower_bound`] on the world's parts (slots, the last step's end bounds,
/// the warm starts, the tolerance `eps`), so that it can run beside the sweep-and-prune's
/// update.
fn toc_lower_bound_in(
    slots: &[Slot],
    ends: &EndBounds,
    warm: &WarmStarts,
    eps: f64,
    key: u64,
) -> (f64, Gap) {
    let (a, b) = pair_in(slots, key);
    let v = (a.speed + b.speed) * (1.0 + 1e-9);
    // a pair found free at the end of the last step whose bodies kept their epochs
    // starts where that step ended (a body whose motion starts elsewhere gets a new
    // epoch): its bound there is known
    let gap = match ends.get(&key) {
        Some(&(epochs, g)) if epochs == [a.epoch, b.epoch] => g,
        _ => distance_lower_bound(
            a,
            &a.motion.pose_at(0.0),
            &a.box0,
            b,
            &b.motion.pose_at(0.0),
            &b.box0,
            2.0 * (eps + v),
            eps,
            warm.get(&key).map(|w| w.1),
        ),
    };
    let d = gap.d - eps;
    if d <= 0.0 {
        return (0.0, gap);
    }
    let isotropic = if v > 0.0 { d / v } else { f64::INFINITY };
    // the slab along n stays open while n·(y − x) has not shrunk by its width less ε
    let along = match gap.slab {
        Some((n, w)) if w - eps > 0.0 => {
            let mu = projected_speed(a, b, n);
            if mu > 0.0 {
                (w - eps) / mu
            } else if mu == 0.0 {
                f64::INFINITY
            } else {
                0.0 // (a NaN bound proves nothing)
            }
        }
        _ => 0.0,
    };
    (isotropic.max(along), gap)
}

/// A pair's work computed beside the sweep-and-prune's update
/// ([`World::all_work_joined`]); taken when the pair is due.
#[cfg(feature = "parallel")]
type Ahead = (u64, Option<Result<PairWork, WorldError>>);

/// The parts of a [`World`] that a pair's bounds and query read: what can run beside the
/// sweep-and-prune's update, which holds the world's other part.
#[derive(Clone, Copy)]
struct Parts<'a> {
    slots: &'a [Slot],
    ends: &'a EndBounds,
    warm: &'a WarmStarts,
    ca: &'a CaOptions,
    step: u64,
}

impl Parts<'_> {
    fn pair(&self, key: u64) -> (&Body, &Body) {
        pair_in(self.slots, key)
    }

    fn handle(&self, slot: u32) -> BodyHandle {
        BodyHandle {
            index: slot,
            generation: self.slots[slot as usize].generation,
        }
    }

    /// The per-pair query of a candidate: its answer and its CA iterations.
    fn query(&self, key: u64, mode: CaMode) -> Result<(Option<Contact>, u32), WorldError> {
        let (a, b) = self.pair(key);
        let opts = self.ca.with_mode(mode);
        a.collider
            .time_of_contact_with_stats(&a.motion, &b.collider, &b.motion, &opts)
            .map(|(c, s)| (c, s.iterations))
            .map_err(|source| {
                let [x, y] = unkey(key);
                WorldError::Ca {
                    a: self.handle(x),
                    b: self.handle(y),
                    source,
                }
            })
    }

    /// A lower bound of the pair's first time within `ε`, from the spheres, boxes and
    /// convex bounds at `t = 0` (may exceed 1: then the pair is free over the step): the
    /// distance over the summed point speeds, or the separating slab's width over the
    /// approach speed along its normal, whichever is later.
    fn toc_lower_bound(&self, key: u64) -> (f64, Gap) {
        toc_lower_bound_in(self.slots, self.ends, self.warm, self.ca.tolerance, key)
    }

    /// [`wake_step`](Self::wake_step) with the GJK warm start `warm` (what the world's
    /// warm starts hold for the pair once this step's lower bound has been recorded).
    fn wake_step_from(&self, key: u64, start: Option<Gap>, warm: Option<GjkCache>) -> (u64, Gap) {
        let (a, b) = self.pair(key);
        // speeds during the next step are at most this step's plus the declared growth
        let v = (a.speed + a.accel + b.speed + b.accel) * (1.0 + 1e-9);
        let acc = (a.accel + b.accel) * (1.0 + 1e-9);
        let wake = |d: f64| {
            let tau = safe_steps(d - self.ca.tolerance, v, acc);
            let whole = if tau >= 1e18 {
                1e18 as u64
            } else {
                tau.floor() as u64
            };
            self.step + 1 + whole
        };
        if let Some(g) = start {
            let mut d = g.d - (a.speed + b.speed) * (1.0 + 1e-9);
            if let Some((n, w)) = g.slab {
                d = d.max(w - projected_speed(a, b, n));
            }
            let w = wake(d);
            if w > self.step + 1 {
                let end = Gap {
                    d,
                    slab: None,
                    gjk: None,
                };
                return (w, end);
            }
        }
        let end = distance_lower_bound(
            a,
            &a.motion.pose_at(1.0),
            &a.box1,
            b,
            &b.motion.pose_at(1.0),
            &b.box1,
            f64::INFINITY,
            self.ca.tolerance,
            warm,
        );
        (wake(end.d), end)
    }

    /// A due pair's whole work in the all-contacts mode, as the other modes' separate
    /// passes compute it: its TOC lower bound; the per-pair query when the bound does not
    /// settle it; its wake-up step when it is found free (`scheduling`), from the warm start
    /// its bound left (or the last step's), as the later pass reads it from `warm`.
    fn pair_work(&self, key: u64, scheduling: bool) -> Result<PairWork, WorldError> {
        let (lb, start) = self.toc_lower_bound(key);
        let warm = || start.gjk.or_else(|| self.warm.get(&key).map(|w| w.1));
        if lb > 1.0 {
            let wake = scheduling.then(|| self.wake_step_from(key, Some(start), warm()));
            return Ok(PairWork {
                key,
                start,
                answer: None,
                wake,
            });
        }
        let (r, n) = self.query(key, CaMode::Toc)?;
        let wake = (scheduling && r.is_none()).then(|| self.wake_step_from(key, None, warm()));
        Ok(PairWork {
            key,
            start,
            answer: Some((r, n)),
            wake,
        })
    }
}

/// A queried pair: its key, its answer and its CA iterations.
type Answer = (u64, Option<Contact>, u32);

/// Pairs' wake-up steps and distance lower bounds at the step's end (per pair found free).
type Wakes = Vec<(u64, Gap)>;

/// A due pair's work in the all-contacts mode ([`World::pair_work`]): its TOC lower bound
/// and slab, its per-pair query's answer and CA iterations (`None` when the bound settled
/// it), and its wake-up step and end bound when it was found free and scheduling is on.
struct PairWork {
    key: u64,
    start: Gap,
    answer: Option<(Option<Contact>, u32)>,
    wake: Option<(u64, Gap)>,
}

/// With `parallel`, the per-body refresh runs on rayon's pool from this many dynamic bodies.
#[cfg(feature = "parallel")]
const PAR_MIN_BODIES: usize = 256;

/// With `parallel`, a step's distance bounds (a few µs per pair) run on rayon's pool from
/// this many pairs: fewer cost less than waking a sleeping worker (~20 µs measured on 2
/// cores).
#[cfg(feature = "parallel")]
const PAR_MIN_PAIRS: usize = 16;

/// A candidate pair's TOC lower bound and its slots.
#[derive(Clone, Copy, Debug)]
struct Candidate {
    key: u64,
    lb: f64,
}

/// N rigid bodies moving over a step `t ∈ [0, 1]`, with a broad phase that persists
/// across steps (sweep-and-prune with insertion-sort coherence) and TOC scheduling.
///
/// Each step the caller gives the dynamic bodies' motions ([`set_motion`](Self::set_motion),
/// [`set_velocities`](Self::set_velocities); a body left alone keeps its velocity), and
/// [`step`](Self::step) answers the step's contacts and moves every body to its pose at
/// `t = 1`. Static bodies never move and are never paired with each other.
///
/// Answers equal those of the per-pair query ([`Collider::time_of_contact`]) on every pair
/// with at least one dynamic body (the brute force), whatever the broad phase and schedule:
/// the swept boxes hold every point of a body over the step widened by `ε/2`, so a pair
/// outside them is farther apart than `ε` throughout; the schedule defers a pair only while
/// a proven distance bound exceeds what its bodies' declared speeds can close.
///
/// Scheduling needs each dynamic body's **declared acceleration** `a` (per step², of its
/// point-speed bound `|v| + ω r`: [`declare_acceleration`](Self::declare_acceleration),
/// default 0). A body whose point speed grows by more than `a` from one step to the next,
/// or whose motion starts away from where its last one ended, breaks the declaration: its
/// deferred pairs are examined again (counted in [`StepStats::requeued`]).
///
/// # Example
/// ```
/// use std::sync::Arc;
/// use ccd_world::{Collider, Mode, StepOptions, World};
/// use ccd_ca_rigid::{CaOptions, RigidBody};
/// use ccd_bvh::{BvhOptions, MeshBvh, Rss};
/// use ccd_geometry::{glam::{DAffine3, DVec3}, TriMesh};
/// use ccd_kinematics::RigidMotion;
///
/// let tetra = TriMesh::new(vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z], vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])?;
/// let shape = Collider::convex(RigidBody::with_hull(Arc::new(MeshBvh::<Rss>::new(tetra, &BvhOptions::default())?))?)?;
/// let mut world = World::new(CaOptions::default())?;
/// let ground = world.insert_static(shape.clone(), DAffine3::IDENTITY)?;
/// // a tetrahedron falling from x = 3 towards the one at the origin, 1 unit per step
/// let falling = world.insert(shape, RigidMotion::between(
///     DAffine3::from_translation(DVec3::new(3.0, 0.0, 0.0)),
///     DAffine3::from_translation(DVec3::new(2.0, 0.0, 0.0)),
/// )?)?;
/// let first = world.step(&StepOptions::default())?;
/// assert!(!first.collides());
/// let second = world.step(&StepOptions::default())?; // keeps its velocity: x from 2 to 1
/// let hit = second.earliest().expect("they touch at x = 1");
/// assert_eq!((hit.a, hit.b), (ground, falling));
/// assert!(hit.contact.toc > 0.99);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct World {
    ca: CaOptions,
    slots: Vec<Slot>,
    free: Vec<u32>,
    live: usize,
    sap: GridSap,
    schedule: Schedule,
    step: u64,
    next_epoch: u64,
    /// The sweep-and-prune's boxes by slot (`Body::sap_box`; empty for a free slot; a
    /// static body's is set at insertion, dynamic ones' every step).
    swept: Vec<Aabb>,
    /// The slots of the dynamic bodies (in no particular order): a step's per-body work
    /// skips the static ones without visiting them.
    dynamic: Vec<u32>,
    /// Slots removed since the last step (their scheduled pairs go at the next step).
    removed: Vec<u32>,
    /// Scratch: marks by slot.
    marks: Vec<bool>,
    /// Distance lower bounds (and separating slabs) at the end of the last step of the
    /// pairs then found free and due again, with their bodies' epochs then (read by this
    /// step's TOC lower bounds).
    ends: EndBounds,
    /// The same, being gathered for the next step.
    ends_next: EndBounds,
    /// GJK warm starts of the hull pairs whose bounds were computed at the last step (or
    /// earlier in this one), with that step's index.
    warm: WarmStarts,
}

/// Pair key → (the step it was last used at, GJK warm start).
type WarmStarts = HashMap<u64, (u64, GjkCache), BuildHasherDefault<PairHasher>>;

/// Pair key → (the bodies' epochs, distance lower bound and slab) at the end of a step.
type EndBounds = HashMap<u64, ([u64; 2], Gap), BuildHasherDefault<PairHasher>>;

impl World {
    /// An empty world whose pairs are queried with `ca` (its tolerance `ε` and iteration
    /// cap; its mode is set per step by [`StepOptions::mode`]).
    ///
    /// # Errors
    /// [`WorldError::InvalidOption`] for a tolerance that is not finite or below
    /// [`MIN_TOLERANCE`], or a zero iteration cap.
    ///
    /// ```
    /// use ccd_world::World;
    /// use ccd_ca_rigid::CaOptions;
    /// assert!(World::new(CaOptions::default().with_tolerance(f64::NAN)).is_err());
    /// assert!(World::new(CaOptions::default())?.is_empty());
    /// # Ok::<(), ccd_world::WorldError>(())
    /// ```
    pub fn new(ca: CaOptions) -> Result<Self, WorldError> {
        if !(ca.tolerance.is_finite() && ca.tolerance >= MIN_TOLERANCE) {
            return Err(WorldError::InvalidOption(
                "tolerance must be finite and at least 1e-100",
            ));
        }
        if ca.max_iterations == 0 {
            return Err(WorldError::InvalidOption(
                "max_iterations must be at least 1",
            ));
        }
        Ok(Self {
            ca,
            slots: Vec::new(),
            free: Vec::new(),
            live: 0,
            sap: GridSap::default(),
            schedule: Schedule::default(),
            step: 0,
            next_epoch: 0,
            swept: Vec::new(),
            dynamic: Vec::new(),
            removed: Vec::new(),
            marks: Vec::new(),
            ends: EndBounds::default(),
            ends_next: EndBounds::default(),
            warm: WarmStarts::default(),
        })
    }

    /// Number of bodies.
    #[inline]
    #[must_use]
    pub fn len(&self) -> usize {
        self.live
    }

    /// True when the world has no body.
    #[inline]
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// The index of the next step.
    #[inline]
    #[must_use]
    pub fn step_index(&self) -> u64 {
        self.step
    }

    /// The per-pair options.
    #[inline]
    #[must_use]
    pub fn ca_options(&self) -> &CaOptions {
        &self.ca
    }

    /// The handles of the bodies, by slot.
    pub fn handles(&self) -> impl Iterator<Item = BodyHandle> + '_ {
        self.slots.iter().enumerate().filter_map(|(i, s)| {
            s.body.as_ref().map(|_| BodyHandle {
                index: i as u32,
                generation: s.generation,
            })
        })
    }

    fn epoch(&mut self) -> u64 {
        self.next_epoch += 1;
        self.next_epoch
    }

    fn body(&self, h: BodyHandle) -> Result<&Body, WorldError> {
        self.slots
            .get(h.index as usize)
            .filter(|s| s.generation == h.generation)
            .and_then(|s| s.body.as_ref())
            .ok_or(WorldError::UnknownBody(h))
    }

    fn body_mut(&mut self, h: BodyHandle) -> Result<&mut Body, WorldError> {
        self.slots
            .get_mut(h.index as usize)
            .filter(|s| s.generation == h.generation)
            .and_then(|s| s.body.as_mut())
            .ok_or(WorldError::UnknownBody(h))
    }

    fn add(
        &mut self,
        collider: Collider,
        motion: RigidMotion,
        is_static: bool,
    ) -> Result<BodyHandle, WorldError> {
        let index = match self.free.pop() {
            Some(i) => i,
            None => {
                if self.slots.len() >= (u32::MAX >> 1) as usize {
                    return Err(WorldError::TooManyBodies);
                }
                self.slots.push(Slot::default());
                (self.slots.len() - 1) as u32
            }
        };
        let epoch = self.epoch();
        let mut body = Body {
            collider,
            is_static,
            end: motion.pose_at(0.0),
            motion,
            accel: 0.0,
            anchor_speed: 0.0,
            anchored: false,
            epoch,
            speed: 0.0,
            box0: Aabb::EMPTY,
            box1: Aabb::EMPTY,
            swept: Aabb::EMPTY,
            sap_box: Aabb::EMPTY,
            dyn_pos: self.dynamic.len() as u32,
            next: None,
        };
        body.refresh(0.5 * self.ca.tolerance);
        if !is_static {
            self.dynamic.push(index);
        }
        if self.swept.len() <= index as usize {
            self.swept.resize(index as usize + 1, Aabb::EMPTY);
        }
        self.swept[index as usize] = body.sap_box;
        self.sap.insert(index, body.sap_box, is_static);
        let slot = &mut self.slots[index as usize];
        slot.body = Some(body);
        self.live += 1;
        Ok(BodyHandle {
            index,
            generation: slot.generation,
        })
    }

    fn check_motion(motion: &RigidMotion, h: BodyHandle) -> Result<(), WorldError> {
        if motion.local_center() != DVec3::ZERO {
            return Err(WorldError::OffsetRotationCentre(h));
        }
        Ok(())
    }

    /// Adds a dynamic body with its motion for the coming step.
    ///
    /// # Errors
    /// [`WorldError::OffsetRotationCentre`] for a motion about a centre away from the
    /// body's origin; [`WorldError::TooManyBodies`].
    ///
    /// ```
    /// use std::sync::Arc;
    /// use ccd_world::{Collider, World};
    /// use ccd_ca_rigid::{CaOptions, RigidBody};
    /// use ccd_bvh::{BvhOptions, MeshBvh, Rss};
    /// use ccd_geometry::{glam::{DAffine3, DVec3}, TriMesh};
    /// use ccd_kinematics::RigidMotion;
    /// let tri = TriMesh::new(vec![DVec3::ZERO, DVec3::X, DVec3::Y], vec![[0, 1, 2]])?;
    /// let shape = Collider::mesh(RigidBody::new(Arc::new(MeshBvh::<Rss>::new(tri, &BvhOptions::default())?)))?;
    /// let mut world = World::new(CaOptions::default())?;
    /// let h = world.insert(shape, RigidMotion::stationary(DAffine3::IDENTITY)?)?;
    /// assert_eq!(world.len(), 1);
    /// world.remove(h)?;
    /// assert!(world.remove(h).is_err()); // removed twice: a typed error
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn insert(
        &mut self,
        collider: Collider,
        motion: RigidMotion,
    ) -> Result<BodyHandle, WorldError> {
        let probe = BodyHandle {
            index: u32::MAX,
            generation: 0,
        };
        Self::check_motion(&motion, probe)?;
        self.add(collider, motion, false)
    }

    /// Adds a static body at `pose`.
    ///
    /// # Errors
    /// [`WorldError::InvalidMotion`] for a NaN, infinite or non-rigid pose;
    /// [`WorldError::TooManyBodies`].
    pub fn insert_static(
        &mut self,
        collider: Collider,
        pose: DAffine3,
    ) -> Result<BodyHandle, WorldError> {
        let motion = RigidMotion::stationary(pose)?;
        self.add(collider, motion, true)
    }

    /// Removes a body and returns its collider.
    ///
    /// # Errors
    /// [`WorldError::UnknownBody`] when the handle names no body (removed twice, say).
    pub fn remove(&mut self, h: BodyHandle) -> Result<Collider, WorldError> {
        self.body(h)?;
        let slot = &mut self.slots[h.index as usize];
        let body = slot.body.take().ok_or(WorldError::UnknownBody(h))?;
        slot.generation = slot.generation.wrapping_add(1);
        self.free.push(h.index);
        self.live -= 1;
        if !body.is_static {
            let at = body.dyn_pos as usize;
            self.dynamic.swap_remove(at);
            if let Some(&moved) = self.dynamic.get(at)
                && let Some(b) = self.slots[moved as usize].body.as_mut()
            {
                b.dyn_pos = at as u32;
            }
        }
        self.swept[h.index as usize] = Aabb::EMPTY;
        self.sap.remove(h.index);
        // (the slot's scheduled pairs are dropped at the next step, all removals at once)
        self.removed.push(h.index);
        Ok(body.collider)
    }

    /// Sets a dynamic body's motion for the coming step. A motion that does not start where
    /// the body is ([`pose`](Self::pose)) is allowed (a teleport) and re-queues the body's
    /// scheduled pairs.
    ///
    /// # Errors
    /// [`WorldError::UnknownBody`], [`WorldError::StaticBody`],
    /// [`WorldError::OffsetRotationCentre`].
    pub fn set_motion(&mut self, h: BodyHandle, motion: RigidMotion) -> Result<(), WorldError> {
        Self::check_motion(&motion, h)?;
        let body = self.body_mut(h)?;
        if body.is_static {
            return Err(WorldError::StaticBody(h));
        }
        body.motion = motion;
        Ok(())
    }

    /// Sets a dynamic body's motion for the coming step from its current pose: linear
    /// velocity of its origin and angular velocity (world frame, per step; any angle).
    ///
    /// # Errors
    /// [`WorldError::InvalidMotion`] for NaN or out-of-domain velocities; as
    /// [`set_motion`](Self::set_motion).
    pub fn set_velocities(
        &mut self,
        h: BodyHandle,
        linear: DVec3,
        angular: DVec3,
    ) -> Result<(), WorldError> {
        let pose = self.pose(h)?;
        let motion = RigidMotion::from_velocities(pose, linear, angular, DVec3::ZERO)?;
        self.set_motion(h, motion)
    }

    /// Declares the bound `a ≥ 0` on how much the body's point speed `|v| + ω r` (per
    /// step) grows from one step to the next (the slides' `a_max`, per body). Re-queues the
    /// body's scheduled pairs.
    ///
    /// # Errors
    /// [`WorldError::InvalidOption`] for a negative or non-finite `a`;
    /// [`WorldError::UnknownBody`].
    pub fn declare_acceleration(&mut self, h: BodyHandle, a: f64) -> Result<(), WorldError> {
        if !(a.is_finite() && a >= 0.0) {
            return Err(WorldError::InvalidOption(
                "a declared acceleration must be finite and non-negative",
            ));
        }
        let epoch = self.epoch();
        let body = self.body_mut(h)?;
        body.accel = a;
        body.epoch = epoch;
        Ok(())
    }

    /// The body's pose at the start of the coming step.
    ///
    /// # Errors
    /// [`WorldError::UnknownBody`].
    pub fn pose(&self, h: BodyHandle) -> Result<DAffine3, WorldError> {
        Ok(self.body(h)?.end)
    }

    /// The body's motion for the coming step.
    ///
    /// # Errors
    /// [`WorldError::UnknownBody`].
    pub fn motion(&self, h: BodyHandle) -> Result<&RigidMotion, WorldError> {
        Ok(&self.body(h)?.motion)
    }

    /// The body's collider.
    ///
    /// # Errors
    /// [`WorldError::UnknownBody`].
    pub fn collider(&self, h: BodyHandle) -> Result<&Collider, WorldError> {
        Ok(&self.body(h)?.collider)
    }

    /// True for a static body.
    ///
    /// # Errors
    /// [`WorldError::UnknownBody`].
    pub fn is_static(&self, h: BodyHandle) -> Result<bool, WorldError> {
        Ok(self.body(h)?.is_static)
    }

    fn handle(&self, slot: u32) -> BodyHandle {
        BodyHandle {
            index: slot,
            generation: self.slots[slot as usize].generation,
        }
    }

    fn pair(&self, key: u64) -> (&Body, &Body) {
        pair_in(&self.slots, key)
    }

    /// The parts a pair's bounds and query read ([`Parts`]).
    fn parts(&self) -> Parts<'_> {
        Parts {
            slots: &self.slots,
            ends: &self.ends,
            warm: &self.warm,
            ca: &self.ca,
            step: self.step,
        }
    }

    fn query(&self, key: u64, mode: CaMode) -> Result<(Option<Contact>, u32), WorldError> {
        self.parts().query(key, mode)
    }

    fn toc_lower_bound(&self, key: u64) -> (f64, Gap) {
        self.parts().toc_lower_bound(key)
    }

    fn pair_work(&self, key: u64, scheduling: bool) -> Result<PairWork, WorldError> {
        self.parts().pair_work(key, scheduling)
    }

    /// The wake-up step of a pair found free during this step, and the pair's distance
    /// lower bound at the end of the step. A pair settled by its bound at the step's start
    /// (`start`) whose distance cannot have closed enough over the step to make it due at
    /// the next one is deferred from that bound (the distance closes by at most the summed
    /// point speeds, the slab by at most the approach speed along its normal) without a new
    /// distance at the end.
    fn wake_step(&self, key: u64, start: Option<Gap>) -> (u64, Gap) {
        self.parts()
            .wake_step_from(key, start, self.warm.get(&key).map(|w| w.1))
    }

    /// [`pair_work`](Self::pair_work) of every due pair, in key order: with `parallel`, one
    /// parallel section on rayon's current pool, one pair per task (a step's pairs differ
    /// 100× in cost: the costliest must not wait behind others in one task).
    fn all_pairs_work(
        &self,
        keys: &[u64],
        scheduling: bool,
        parallel: bool,
    ) -> Result<Vec<PairWork>, WorldError> {
        #[cfg(feature = "parallel")]
        if parallel && keys.len() > 1 {
            use rayon::prelude::*;
            return keys
                .par_iter()
                .with_max_len(1)
                .map(|&k| self.pair_work(k, scheduling))
                .collect();
        }
        let _ = parallel;
        keys.iter()
            .map(|&k| self.pair_work(k, scheduling))
            .collect()
    }

    /// The all-contacts mode's bounds, narrow phase and wake-up steps of the due `keys`
    /// (in one pass per pair, [`all_pairs_work`](Self::all_pairs_work)), recorded as the
    /// other modes' separate passes record them: warm starts, counters, contacts (in key
    /// order), and the free pairs (those the bounds settled, then those the queries found
    /// free) deferred per their wake-up steps.
    fn step_all(
        &mut self,
        keys: &[u64],
        opts: &StepOptions,
        stats: &mut StepStats,
        parallel: bool,
    ) -> Result<Vec<PairContact>, WorldError> {
        let work = self.all_pairs_work(keys, opts.scheduling, parallel)?;
        Ok(self.record_all(work, opts, stats))
    }

    /// The bookkeeping of the all-contacts pass's `work` (due pairs in key order): warm
    /// starts, counters, contacts (in key order), and the free pairs (those the bounds
    /// settled, then those the queries found free) deferred per their wake-up steps.
    fn record_all(
        &mut self,
        work: Vec<PairWork>,
        opts: &StepOptions,
        stats: &mut StepStats,
    ) -> Vec<PairContact> {
        let step = self.step;
        for w in &work {
            if let Some(g) = w.start.gjk {
                self.warm.insert(w.key, (step, g));
            }
        }
        let mut contacts = Vec::new();
        for w in &work {
            match &w.answer {
                None => stats.bound_free += 1,
                Some((r, n)) => {
                    stats.ca_pairs += 1;
                    stats.ca_iterations += u64::from(*n);
                    if let Some(c) = r {
                        let [x, y] = unkey(w.key);
                        contacts.push(PairContact {
                            a: self.handle(x),
                            b: self.handle(y),
                            contact: *c,
                        });
                    }
                }
            }
        }
        stats.contacts = contacts.len();
        if opts.scheduling {
            for w in &work {
                if matches!(w.answer, Some((Some(_), _))) {
                    self.schedule.forget(w.key);
                }
            }
            // (the settled pairs first, then those found free by their queries)
            let settled = work.iter().filter(|w| w.answer.is_none());
            let found = work.iter().filter(|w| w.answer.is_some());
            for w in settled.chain(found) {
                let Some((wake, end)) = w.wake else {
                    continue;
                };
                if let Some(g) = end.gjk {
                    self.warm.insert(w.key, (step, g));
                }
                let (a, b) = self.pair(w.key);
                let epochs = [a.epoch, b.epoch];
                self.schedule.defer(w.key, step, wake, epochs);
                if wake <= step + 1 {
                    // due again at the next step, which starts from these poses
                    self.ends_next.insert(w.key, (epochs, end));
                }
            }
            stats.scheduled = self.schedule.len();
        }
        contacts
    }

    /// Queries the step: the contacts of the current motions over `t ∈ [0, 1]` per
    /// `opts.mode`, then moves every body to its pose at `t = 1` (a body whose motion is
    /// not set again keeps its velocity).
    ///
    /// # Errors
    /// [`WorldError::Ca`] when a pair's query rejects its input (a body beyond the
    /// coordinate domain, say); [`WorldError::InvalidMotion`] when a continued motion
    /// leaves the domain. On error the world does not advance.
    pub fn step(&mut self, opts: &StepOptions) -> Result<StepReport, WorldError> {
        let half = 0.5 * self.ca.tolerance;
        let step = self.step;
        #[cfg(feature = "parallel")]
        let parallel = opts.parallel;
        #[cfg(not(feature = "parallel"))]
        let parallel = false;
        // 0. the end bounds of the last step; the scheduled pairs of the bodies removed
        // since the last step
        std::mem::swap(&mut self.ends, &mut self.ends_next);
        self.ends_next.clear();
        self.schedule.forget_slots(&self.removed, &mut self.marks);
        self.removed.clear();
        // 1. speeds, envelopes, boxes
        // (static bodies never move: their boxes were set at insertion)
        #[cfg(feature = "parallel")]
        let (epochs_needed, listed) = if parallel
            && opts.mode == Mode::All
            && opts.broad_phase == BroadPhase::SweepAndPrune
            && self.dynamic.len() >= PAR_MIN_BODIES
        {
            // beside the refresh, the sweep-and-prune's pending insertions and removals
            // and its pairs (sorted), which the joined step below starts from: they read
            // none of the refreshed boxes (60–90 µs per step serial on the rigid pile while
            // bodies fall asleep)
            self.sap.set_parallel(true);
            let (slots, swept, dynamic, sap) = (
                &mut self.slots,
                &mut self.swept,
                &self.dynamic,
                &mut self.sap,
            );
            let (renewed, listed) = rayon::join(
                || refresh_in(slots, swept, dynamic, half, true),
                || listed_pairs(sap),
            );
            (renewed, Some(listed))
        } else {
            (self.refresh_dynamic(half, parallel), None)
        };
        #[cfg(not(feature = "parallel"))]
        let epochs_needed = self.refresh_dynamic(half, parallel);
        if epochs_needed > 0 {
            for &i in &self.dynamic {
                if let Some(body) = self.slots[i as usize].body.as_mut()
                    && body.epoch == u64::MAX
                {
                    self.next_epoch += 1;
                    body.epoch = self.next_epoch;
                }
            }
        }
        let mut stats = StepStats {
            bodies: self.live,
            ..StepStats::default()
        };
        // 2.–5. with `parallel`, all contacts and the sweep-and-prune: one parallel section
        #[cfg(feature = "parallel")]
        if parallel && opts.mode == Mode::All && opts.broad_phase == BroadPhase::SweepAndPrune {
            self.sap.set_parallel(true);
            if let Some(work) = self.all_work_joined(opts.scheduling, listed, &mut stats) {
                let contacts = self.record_all(work?, opts, &mut stats);
                return self.finish_step(contacts, stats);
            }
        }
        // 2. broad phase
        let mut keys: Vec<u64> = Vec::new();
        match opts.broad_phase {
            BroadPhase::SweepAndPrune => {
                #[cfg(feature = "parallel")]
                self.sap.set_parallel(parallel);
                stats.swaps = self.sap.update(&self.swept);
                self.sap.pairs_into(&mut keys);
                keys.retain(|&k| {
                    let (a, b) = self.pair(k);
                    !(a.is_static && b.is_static) && overlaps(&a.swept, &b.swept)
                });
                // (a pair in several cells of the grid comes once per cell)
                keys.sort_unstable();
                keys.dedup();
            }
            BroadPhase::AllPairs => {
                // (the sweep-and-prune's own pending insertions and removals are applied,
                // so that they do not pile up while it is not used)
                self.sap.flush();
                let live: Vec<(u32, &Body)> = self
                    .slots
                    .iter()
                    .enumerate()
                    .filter_map(|(i, s)| s.body.as_ref().map(|b| (i as u32, b)))
                    .collect();
                for (i, &(sa, a)) in live.iter().enumerate() {
                    for &(sb, b) in &live[i + 1..] {
                        if !(a.is_static && b.is_static)
                            && overlaps(&a.swept, &b.swept)
                            && overlaps(&a.sap_box, &b.sap_box)
                        {
                            keys.push(pair_key(sa, sb));
                        }
                    }
                }
            }
        }
        keys.sort_unstable();
        stats.broad_pairs = keys.len();
        // 3. schedule
        if opts.scheduling {
            self.schedule.expire(step);
        } else {
            self.schedule.clear();
        }
        if opts.scheduling {
            keys.retain(|&key| {
                let (a, b) = self.pair(key);
                counted_due(
                    self.schedule.verdict(key, step, [a.epoch, b.epoch]),
                    &mut stats,
                )
            });
        }
        if opts.mode == Mode::All {
            // bounds, narrow phase and wake-up steps in one pass per pair
            let contacts = self.step_all(&keys, opts, &mut stats, parallel)?;
            return self.finish_step(contacts, stats);
        }
        // the due pairs' TOC lower bounds (on all cores with `parallel`)
        let lbs = self.map_pairs(&keys, parallel, |key| self.toc_lower_bound(key));
        let mut cands: Vec<Candidate> = Vec::with_capacity(keys.len());
        // (the free pairs, with their bounds at the step's start when these settled them)
        let mut free_keys: Vec<u64> = Vec::new();
        let mut starts: Vec<Option<Gap>> = Vec::new();
        for (&key, &(lb, gap)) in keys.iter().zip(&lbs) {
            if let Some(w) = gap.gjk {
                self.warm.insert(key, (step, w));
            }
            if lb > 1.0 {
                stats.bound_free += 1;
                free_keys.push(key);
                starts.push(Some(gap));
            } else {
                cands.push(Candidate { key, lb });
            }
        }
        // 4. narrow phase; with `parallel`, joined by work that does not wait for it: the
        // wake-up steps of the pairs their bounds settled
        let settled = free_keys.len();
        let (results, early_wakes) = self.narrow_joined(
            &mut cands,
            opts,
            &mut stats,
            (&free_keys, &starts),
            parallel,
        );
        let results = results?;
        let mut contacts = Vec::new();
        for (key, r, _) in &results {
            match r {
                Some(c) => {
                    let [x, y] = unkey(*key);
                    contacts.push(PairContact {
                        a: self.handle(x),
                        b: self.handle(y),
                        contact: *c,
                    });
                }
                None => {
                    free_keys.push(*key);
                    starts.push(None);
                }
            }
        }
        if opts.mode == Mode::Toc {
            let best = contacts.iter().copied().min_by(|x, y| {
                x.contact
                    .toc
                    .total_cmp(&y.contact.toc)
                    .then(x.a.index.cmp(&y.a.index))
                    .then(x.b.index.cmp(&y.b.index))
            });
            contacts = best.into_iter().collect();
        }
        stats.contacts = contacts.len();
        // 5. schedule the pairs found free
        if opts.scheduling {
            for (key, r, _) in &results {
                if r.is_some() {
                    self.schedule.forget(*key);
                }
            }
            // (the pairs settled by their bounds may have theirs from the narrow phase's join)
            let from = if early_wakes.is_some() { settled } else { 0 };
            let mut wakes = early_wakes.unwrap_or_default();
            wakes.extend(self.map_pairs_with(
                &free_keys[from..],
                &starts[from..],
                parallel,
                |key, start| self.wake_step(key, start),
            ));
            for (&key, &(wake, end)) in free_keys.iter().zip(&wakes) {
                if let Some(w) = end.gjk {
                    self.warm.insert(key, (step, w));
                }
                let (a, b) = self.pair(key);
                let epochs = [a.epoch, b.epoch];
                self.schedule.defer(key, step, wake, epochs);
                if wake <= step + 1 {
                    // due again at the next step, which starts from these poses
                    self.ends_next.insert(key, (epochs, end));
                }
            }
            stats.scheduled = self.schedule.len();
        }
        self.finish_step(contacts, stats)
    }

    /// The step's end: the warm starts of the pairs not bounded at this step go (their
    /// hulls have moved), and every body advances to its pose at `t = 1` and its continued
    /// motion (none if one failed).
    fn finish_step(
        &mut self,
        contacts: Vec<PairContact>,
        stats: StepStats,
    ) -> Result<StepReport, WorldError> {
        let step = self.step;
        self.warm.retain(|_, w| w.0 == step);
        // 6. advance (to the poses and motions the refresh computed; none if one failed)
        for &i in &self.dynamic {
            if let Some(b) = self.slots[i as usize].body.as_ref()
                && let Some((_, Err(e))) = &b.next
            {
                return Err(e.clone().into());
            }
        }
        for &i in &self.dynamic {
            if let Some(b) = self.slots[i as usize].body.as_mut()
                && let Some((end, Ok(cont))) = b.next.take()
            {
                b.end = end;
                b.motion = cont;
            }
        }
        self.step += 1;
        Ok(StepReport {
            step,
            contacts,
            stats,
        })
    }

    /// Refreshes the dynamic bodies for the step (their boxes into the sweep-and-prune's
    /// list) and counts those whose epochs must be renewed (see [`Body::refresh_dynamic`]);
    /// on rayon's current pool when `parallel` and there are enough of them.
    fn refresh_dynamic(&mut self, half: f64, parallel: bool) -> usize {
        refresh_in(
            &mut self.slots,
            &mut self.swept,
            &self.dynamic,
            half,
            parallel,
        )
    }

    /// Steps 2.–4. of the all-contacts step with `parallel` and the sweep-and-prune, as one
    /// parallel section (`None` when there are too few pairs to share: the caller takes the
    /// usual path). The pairs certainly due — those of the sweep-and-prune (its pending
    /// insertions and removals applied first) whose bodies are live and not both static,
    /// whose swept boxes and sweep-and-prune boxes both overlap now (so that the update
    /// keeps them pairs), and that the schedule does not defer — get their whole work
    /// ([`Parts::pair_work`]) on rayon's pool while the calling thread updates the
    /// sweep-and-prune (serial when the boxes fit one cell), filters its pairs, takes the
    /// schedule's verdicts and computes the due pairs the first set missed (pairs new to
    /// the sweep-and-prune), then helps with the rest. The certain pairs are pulled one at
    /// a time, in key order, by both threads from one atomic counter: the calling thread
    /// joins in as soon as its side is done, whether or not rayon's sleeping threads notice
    /// new work (with a parallel iterator it sometimes did not: 8 steps of a rigid-pile run
    /// with every pair on the worker). `listed`: the sweep-and-prune's pairs listed beside
    /// the refresh ([`listed_pairs`]; else listed here). A pair's work reads only its
    /// refreshed bodies, the last step's end bounds and warm starts, none of which the
    /// update or the verdicts touch: it is the one the usual path computes, and the counters
    /// and pairs are the usual path's. Returns the due pairs' work in key order (the first
    /// error in key order; a pair computed ahead that is not due is dropped with its error).
    #[cfg(feature = "parallel")]
    fn all_work_joined(
        &mut self,
        scheduling: bool,
        listed: Option<Vec<u64>>,
        stats: &mut StepStats,
    ) -> Option<Result<Vec<PairWork>, WorldError>> {
        use rayon::prelude::*;
        use std::sync::atomic::{AtomicUsize, Ordering};
        // (the pending insertions and removals first: their pairs are then known; the
        // update's own flush finds nothing left; `listed`: done beside the refresh)
        let mut likely = listed.unwrap_or_else(|| listed_pairs(&mut self.sap));
        if likely.len() < PAR_MIN_PAIRS {
            return None;
        }
        let step = self.step;
        let parts = Parts {
            slots: &self.slots,
            ends: &self.ends,
            warm: &self.warm,
            ca: &self.ca,
            step,
        };
        likely.retain(|&k| {
            let (a, b) = pair_in(parts.slots, k);
            !(a.is_static && b.is_static)
                && overlaps(&a.swept, &b.swept)
                && overlaps(&a.sap_box, &b.sap_box)
                && !(scheduling && self.schedule.is_deferred(k, step, [a.epoch, b.epoch]))
        });
        // the pairs pulled one at a time, in key order, by both threads (a step's pairs
        // differ 100× in cost: none waits behind others in a task; the calling thread
        // joins in as soon as its side is done, whatever rayon's idle threads do)
        let next = AtomicUsize::new(0);
        let pull = || {
            let mut out: Vec<Ahead> = Vec::new();
            while let Some(&k) = likely.get(next.fetch_add(1, Ordering::Relaxed)) {
                out.push((k, Some(parts.pair_work(k, scheduling))));
            }
            out
        };
        let schedule = &mut self.schedule;
        let (sap, swept) = (&mut self.sap, &self.swept);
        let likely = &likely;
        let ((keys, rest, mut ahead), theirs) = rayon::join(
            || {
                stats.swaps = sap.update(swept);
                let mut keys: Vec<u64> = Vec::new();
                sap.pairs_into(&mut keys);
                keys.retain(|&k| {
                    let (a, b) = pair_in(parts.slots, k);
                    !(a.is_static && b.is_static) && overlaps(&a.swept, &b.swept)
                });
                // (a pair in several cells of the grid comes once per cell)
                keys.sort_unstable();
                keys.dedup();
                stats.broad_pairs = keys.len();
                if scheduling {
                    schedule.expire(step);
                    keys.retain(|&key| {
                        let (a, b) = pair_in(parts.slots, key);
                        counted_due(schedule.verdict(key, step, [a.epoch, b.epoch]), stats)
                    });
                } else {
                    schedule.clear();
                }
                let missed: Vec<u64> = keys
                    .iter()
                    .copied()
                    .filter(|k| likely.binary_search(k).is_err())
                    .collect();
                let rest: Vec<Result<PairWork, WorldError>> = missed
                    .par_iter()
                    .with_max_len(1)
                    .map(|&k| parts.pair_work(k, scheduling))
                    .collect();
                (keys, rest, pull())
            },
            pull,
        );
        // (each thread's pairs come in key order: merged by key)
        ahead.extend(theirs);
        ahead.sort_unstable_by_key(|x| x.0);
        let mut rest = rest.into_iter();
        let mut work = Vec::with_capacity(keys.len());
        for k in &keys {
            let got = match ahead.binary_search_by_key(k, |x| x.0) {
                Ok(i) => ahead[i].1.take(),
                Err(_) => rest.next(),
            };
            match got {
                Some(Ok(w)) => work.push(w),
                Some(Err(e)) => return Some(Err(e)),
                // (a key held twice: keys are distinct, so not reached)
                None => match parts.pair_work(*k, scheduling) {
                    Ok(w) => work.push(w),
                    Err(e) => return Some(Err(e)),
                },
            }
        }
        Some(Ok(work))
    }

    /// The narrow phase ([`narrow`](Self::narrow)); with `parallel`, joined on rayon's pool
    /// by work that does not wait for it and fills the cores its costliest pairs leave
    /// idle: the wake-up steps of the pairs `settled` (keys, start bounds) when
    /// scheduling. Returns the narrow phase's answers and the joined wake-up steps (`None`
    /// when not computed).
    fn narrow_joined(
        &self,
        cands: &mut [Candidate],
        opts: &StepOptions,
        stats: &mut StepStats,
        settled: (&[u64], &[Option<Gap>]),
        parallel: bool,
    ) -> (Result<Vec<Answer>, WorldError>, Option<Wakes>) {
        #[cfg(feature = "parallel")]
        if parallel {
            return rayon::join(
                || self.narrow_parallel(cands, opts, stats),
                || {
                    opts.scheduling.then(|| {
                        self.map_pairs_with(settled.0, settled.1, true, |key, start| {
                            self.wake_step(key, start)
                        })
                    })
                },
            );
        }
        let _ = (parallel, settled);
        (self.narrow(cands, opts, stats), None)
    }

    /// `f` of every pair key, in order; on rayon's current pool when `parallel` (with the
    /// `parallel` feature).
    fn map_pairs<T: Send>(
        &self,
        keys: &[u64],
        parallel: bool,
        f: impl Fn(u64) -> T + Sync + Send,
    ) -> Vec<T> {
        #[cfg(feature = "parallel")]
        if parallel && keys.len() >= PAR_MIN_PAIRS {
            use rayon::prelude::*;
            return keys.par_iter().map(|&k| f(k)).collect();
        }
        let _ = parallel;
        keys.iter().map(|&k| f(k)).collect()
    }

    /// `f` of every pair key and its datum (`data` parallel to `keys`), in order; on
    /// rayon's current pool when `parallel` (with the `parallel` feature).
    fn map_pairs_with<D: Copy + Send + Sync, T: Send>(
        &self,
        keys: &[u64],
        data: &[D],
        parallel: bool,
        f: impl Fn(u64, D) -> T + Sync + Send,
    ) -> Vec<T> {
        #[cfg(feature = "parallel")]
        if parallel && keys.len() >= PAR_MIN_PAIRS {
            use rayon::prelude::*;
            return keys
                .par_iter()
                .zip(data.par_iter())
                .map(|(&k, &d)| f(k, d))
                .collect();
        }
        let _ = parallel;
        keys.iter().zip(data).map(|(&k, &d)| f(k, d)).collect()
    }

    /// Runs the per-pair queries of the candidates per mode; returns the queried pairs and
    /// their answers, and counts the pairs and their CA iterations into `stats`.
    fn narrow(
        &self,
        cands: &mut [Candidate],
        opts: &StepOptions,
        stats: &mut StepStats,
    ) -> Result<Vec<Answer>, WorldError> {
        let mut out = Vec::with_capacity(cands.len());
        match opts.mode {
            Mode::All => {
                for c in cands.iter() {
                    let (r, n) = self.query(c.key, CaMode::Toc)?;
                    out.push((c.key, r, n));
                }
            }
            Mode::Toc => {
                cands.sort_unstable_by(|x, y| x.lb.total_cmp(&y.lb).then(x.key.cmp(&y.key)));
                let mut best = f64::INFINITY;
                for (i, c) in cands.iter().enumerate() {
                    if c.lb > best {
                        stats.culled += cands.len() - i;
                        break;
                    }
                    let (r, n) = self.query(c.key, CaMode::Toc)?;
                    if let Some(hit) = &r {
                        best = best.min(hit.toc);
                    }
                    out.push((c.key, r, n));
                }
            }
            Mode::Boolean => {
                cands.sort_unstable_by(|x, y| x.lb.total_cmp(&y.lb).then(x.key.cmp(&y.key)));
                for (i, c) in cands.iter().enumerate() {
                    let (r, n) = self.query(c.key, CaMode::Boolean)?;
                    let hit = r.is_some();
                    out.push((c.key, r, n));
                    if hit {
                        stats.culled += cands.len() - i - 1;
                        break;
                    }
                }
            }
        }
        stats.ca_pairs = out.len();
        stats.ca_iterations = out.iter().map(|(_, _, n)| u64::from(*n)).sum();
        Ok(out)
    }

    #[cfg(feature = "parallel")]
    fn narrow_parallel(
        &self,
        cands: &mut [Candidate],
        opts: &StepOptions,
        stats: &mut StepStats,
    ) -> Result<Vec<Answer>, WorldError> {
        use rayon::prelude::*;
        use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
        cands.sort_unstable_by(|x, y| x.lb.total_cmp(&y.lb).then(x.key.cmp(&y.key)));
        let found = AtomicBool::new(false);
        // the best TOC so far as bits: non-negative f64s order like their bits
        let best = AtomicU64::new(f64::INFINITY.to_bits());
        let mode = opts.mode;
        let results: Vec<Option<Answer>> = cands
            .par_iter()
            .map(|c| -> Result<Option<Answer>, WorldError> {
                match mode {
                    Mode::All => {
                        let (r, n) = self.query(c.key, CaMode::Toc)?;
                        Ok(Some((c.key, r, n)))
                    }
                    Mode::Toc => {
                        if c.lb > f64::from_bits(best.load(Ordering::Relaxed)) {
                            return Ok(None);
                        }
                        let (r, n) = self.query(c.key, CaMode::Toc)?;
                        if let Some(hit) = &r {
                            best.fetch_min(hit.toc.max(0.0).to_bits(), Ordering::Relaxed);
                        }
                        Ok(Some((c.key, r, n)))
                    }
                    Mode::Boolean => {
                        if found.load(Ordering::Relaxed) {
                            return Ok(None);
                        }
                        let (r, n) = self.query(c.key, CaMode::Boolean)?;
                        if r.is_some() {
                            found.store(true, Ordering::Relaxed);
                        }
                        Ok(Some((c.key, r, n)))
                    }
                }
            })
            .collect::<Result<_, _>>()?;
        let mut out: Vec<Answer> = results.into_iter().flatten().collect();
        if mode == Mode::All {
            // the candidates ran in order of their lower bounds; the contacts are reported
            // by slot pair, as in the sequential narrow phase
            out.sort_unstable_by_key(|a| a.0);
        }
        stats.culled += cands.len() - out.len();
        stats.ca_pairs = out.len();
        stats.ca_iterations = out.iter().map(|(_, _, n)| u64::from(*n)).sum();
        if mode == Mode::Boolean {
            // report one contact, like the sequential mode
            let first = out.iter().position(|(_, r, _)| r.is_some());
            if let Some(i) = first {
                let mut kept: Vec<_> = out
                    .iter()
                    .filter(|(_, r, _)| r.is_none())
                    .copied()
                    .collect();
                kept.push(out[i]);
                return Ok(kept);
            }
        }
        Ok(out)
    }
}

/// Whether a pair with this scheduling verdict is queried in the step, counting deferred
/// and re-queued pairs in `stats`.
fn counted_due(verdict: Verdict, stats: &mut StepStats) -> bool {
    match verdict {
        Verdict::Deferred => {
            stats.deferred += 1;
            false
        }
        Verdict::Requeued => {
            stats.requeued += 1;
            true
        }
        Verdict::Due => true,
    }
}
