//! The world: bodies, their motions for the current step, and the step query.

use ccd_ca_rigid::{CaOptions, MIN_TOLERANCE, ShapeContact as Contact};
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

mod body;
mod bounds;
mod broad;
mod narrow;

#[cfg(feature = "parallel")]
use body::listed_pairs;
use body::{Body, Slot, pair_in, refresh_in};
use bounds::{Gap, distance_lower_bound, projected_speed, toc_lower_bound_in};
#[cfg(feature = "parallel")]
use narrow::PAR_MIN_BODIES;
use narrow::counted_due;

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

/// What a step computes: the workspace's shared [`ccd_geometry::Mode`]. [`Mode::Toc`] is the
/// earliest contact of the world: pairs in order of their TOC lower bounds with a running
/// minimum (temporal culling, as CATCH Alg. 1), so a pair whose lower bound reaches the best
/// TOC so far cannot improve it and is not queried. [`Mode::All`] is the first contact of
/// every pair that touches during the step. [`Mode::Boolean`] is whether anything touches
/// during the step: the step stops at the first pair found in contact (per-pair Boolean CA).
pub use ccd_geometry::Mode;

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
pub struct BodyPairContact {
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
    pub contacts: Vec<BodyPairContact>,
    /// Counters.
    pub stats: StepStats,
}

impl StepReport {
    /// The contact with the smallest TOC (ties to the lowest slot pair).
    #[must_use]
    pub fn earliest(&self) -> Option<&BodyPairContact> {
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

/// N rigid bodies moving over a step `t ∈ [0, 1]`, with a broad phase that persists
/// across steps (sweep-and-prune with insertion-sort coherence) and TOC scheduling.
///
/// Each step the caller gives the dynamic bodies' motions ([`set_motion`](Self::set_motion),
/// [`set_velocities`](Self::set_velocities); a body left alone keeps its velocity), and
/// [`step`](Self::step) answers the step's contacts and moves every body to its pose at
/// `t = 1`. Static bodies never move and are never paired with each other.
///
/// Answers equal those of the per-pair query ([`ccd_ca_rigid::cast`] with a [`RigidPair`](ccd_ca_rigid::RigidPair)) on every pair
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
        let mut keys = self.broad_phase(opts.broad_phase, parallel, &mut stats);
        keys.sort_unstable();
        stats.broad_pairs = keys.len();
        // 3. schedule
        self.due_pairs(&mut keys, opts.scheduling, &mut stats);
        if opts.mode == Mode::All {
            // bounds, narrow phase and wake-up steps in one pass per pair
            let contacts = self.step_all(&keys, opts, &mut stats, parallel)?;
            return self.finish_step(contacts, stats);
        }
        // 4.–5. narrow phase and scheduling of the pairs found free
        let contacts = self.step_first(&keys, opts, &mut stats, parallel)?;
        self.finish_step(contacts, stats)
    }

    /// The step's end: the warm starts of the pairs not bounded at this step go (their
    /// hulls have moved), and every body advances to its pose at `t = 1` and its continued
    /// motion (none if one failed).
    fn finish_step(
        &mut self,
        contacts: Vec<BodyPairContact>,
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
}
