//! Scenes of articulated bodies, rigid bodies and a static environment, and the CATCH query
//! pipeline: spatial culling with Taylor-model swept boxes, temporal culling with convex-hull
//! lower bounds (Alg. 1), and per-link-pair conservative advancement.

use std::ops::ControlFlow;
use std::sync::Arc;

use ccd_bvh::{BoundingVolume, MeshBvh, Rss};
use ccd_ca_rigid::{
    BoundedScratch, CaOptions, Contact, RigidBody, Status, time_of_contact_bounded,
    time_of_contact_bounded_within, time_of_contact_convex_bounded_with_direction,
};
use ccd_geometry::Aabb;
use ccd_kinematics::{ArticulatedMotion, KinematicsError, LinkId, Pose, RigidMotion};
use ccd_taylor::{Enclosure, Interval, TaylorModel, Transform};
use glam::{DAffine3, DVec3};

use crate::body::Piece;
use crate::bound::{Mover, MoverPair, common_ancestor, pose_below};
use crate::env_pieces::{EnvPieces, PreparedEnvironment, Screened};
use crate::midrad::{MidRadMotion, carry, clear_of, corner_box, interval_enclosure};
use crate::{ArticulatedBody, ArticulatedError, LinkShape};

mod resting;

/// How one articulated body moves during a query step.
#[derive(Clone, Copy, Debug)]
pub enum BodyStep<'a> {
    /// From joint vector `q0` to `q1` (model joint order,
    /// [`ccd_kinematics::Link::first_dof`]).
    Joints {
        /// Start configuration.
        q0: &'a [f64],
        /// End configuration.
        q1: &'a [f64],
    },
    /// From one set of per-link relative transforms to another.
    Poses {
        /// Start pose.
        p0: &'a Pose,
        /// End pose.
        p1: &'a Pose,
    },
}

/// One side of a contact: which piece of the scene it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Part {
    /// Link `link` of articulated body `body` (index in the scene).
    Link {
        /// The articulated body.
        body: usize,
        /// Its link.
        link: LinkId,
    },
    /// Rigid body number `i` of the scene.
    Rigid(usize),
    /// The static environment.
    Environment,
}

/// A contact between two parts of the scene. `contact`'s `a` side is `a`, its `b` side `b`;
/// features index the meshes of those parts; points and normal are in world coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct PairContact {
    /// The first part.
    pub a: Part,
    /// The second part (the environment is always second).
    pub b: Part,
    /// Time, witnesses, normal, distance, status and per-pair counters.
    pub contact: Contact,
}

/// What a query computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Mode {
    /// The first time of contact over all pairs (CATCH, Sec. 3.3), with temporal culling.
    #[default]
    Toc,
    /// Only whether the step is collision-free (motion-planning edge checks, CATCH Sec. 8.1):
    /// returns as soon as some pair is certainly in contact (its `toc` is a contact time, not
    /// necessarily the first) or every pair is proven free. A pair that hits the iteration
    /// cap is returned at once with [`Status::OutOfIterations`]: the edge is not proven free.
    Boolean,
    /// The first time of contact of every colliding pair, sorted by time.
    All,
}

/// Which arithmetic bounds the links' swept boxes for spatial culling (CATCH Sec. 5, Fig. 5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum EnclosureKind {
    /// Order-3 Taylor models (CATCH Sec. 5.1): tight boxes even deep in a chain. Computed
    /// interval-first: every part gets its interval swept box, and only the parts whose
    /// interval box meets another part's or the environment (and their ancestors in the
    /// chain) get Taylor-model world transforms; their box is the intersection of the two.
    #[default]
    Taylor,
    /// Plain interval arithmetic (the baseline CATCH compares with).
    Interval,
}

/// Options of a query: start from [`Default`] and change fields with the `with_*` builders
/// (the struct is `#[non_exhaustive]`, so options can grow without breaking callers).
///
/// # Example
/// ```
/// use ccd_ca_articulated::{Mode, QueryOptions};
///
/// let options = QueryOptions::default().with_mode(Mode::Boolean).with_tolerance(1e-4);
/// assert!(options.temporal_culling && options.self_collision);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct QueryOptions {
    /// [`Mode::Toc`], [`Mode::Boolean`] or [`Mode::All`].
    pub mode: Mode,
    /// Taylor models (default) or interval arithmetic for the swept boxes.
    pub enclosure: EnclosureKind,
    /// CATCH Alg. 1 (default on): convex-hull lower bounds, pairs processed in their order,
    /// abandoned once past the running minimum. Off: every potentially colliding pair runs
    /// CA to its own time of contact. Ignored by [`Mode::All`] beyond the hull bounds.
    pub temporal_culling: bool,
    /// Test the self-collision pairs of each articulated body (default on).
    pub self_collision: bool,
    /// Absolute distance tolerance `ε` (default `1e-3`, as CATCH); finite and at least
    /// [`ccd_ca_rigid::MIN_TOLERANCE`] (`1e-100`), else the query is
    /// [`ArticulatedError::InvalidOptions`].
    pub tolerance: f64,
    /// Cap on CA iterations per pair (default 1000); hitting it gives
    /// [`Status::OutOfIterations`] with a conservative lower bound.
    pub max_iterations: u32,
    /// The resting-contact probe (default on; [`Mode::Toc`] with temporal culling only): a
    /// step that starts in contact is answered by the narrow phase's first calls on the
    /// pairs before any swept box is built (the same time of contact, 0). Off: every step
    /// runs spatial and temporal culling, so [`Stats`] counts CATCH's Table 2 pairs on
    /// every step (the benchmark's culling columns); a probed step's counters only count
    /// the pairs the probe examined.
    #[cfg_attr(feature = "serde", serde(default = "probe_default"))]
    pub resting_probe: bool,
    /// Edge splitting (default [`DEFAULT_SEGMENT_TURN`] rad; [`Mode::Toc`] and
    /// [`Mode::Boolean`], steps given as joint vectors): a step whose largest chain turn (the
    /// sum of the joint angles a link turns by, from the root down) exceeds this is queried
    /// as `k = ⌈turn / segment_turn⌉` consecutive sub-steps of equal joint-space length
    /// (at most [`MAX_SEGMENTS`]), in order, stopping at the first contact. The path is the
    /// same joint-space segment, so the answer keeps the query's contract; the swept boxes
    /// and motion bounds of a short sub-step are far tighter than those of the whole step.
    /// `f64::INFINITY` turns splitting off. Must be positive (not NaN), else
    /// [`ArticulatedError::InvalidOptions`].
    #[cfg_attr(feature = "serde", serde(default = "segment_turn_default"))]
    pub segment_turn: f64,
}

/// The default [`QueryOptions::segment_turn`] (rad): the chain turn above which a joint-space
/// step is split. It trades the fixed cost of a sub-query (swept boxes, culling) against
/// the CA iterations and the pairs that the loose boxes and bounds of a long step let
/// through. Measured on the `robot-edge-mix` bench scene (`cargo xtask bench --scene
/// robot-edge-mix`): 2, 3 and 4 rad are equally fast within the machine's noise there
/// (0.5 and 1 rad are slower: the fixed cost dominates; 6 rad leaves long edges slower), and
/// 4 rad is the largest of them, so the short planner edges of `panda-planner` and `pr2`
/// (≤ 0.7 and ≤ 0.5 rad per joint) run unsplit.
pub const DEFAULT_SEGMENT_TURN: f64 = 4.0;

/// The most sub-steps [`QueryOptions::segment_turn`] splits a step into.
pub const MAX_SEGMENTS: usize = 64;

#[cfg(feature = "serde")]
fn segment_turn_default() -> f64 {
    DEFAULT_SEGMENT_TURN
}

#[cfg(feature = "serde")]
fn probe_default() -> bool {
    true
}

impl Default for QueryOptions {
    fn default() -> Self {
        Self {
            mode: Mode::Toc,
            enclosure: EnclosureKind::Taylor,
            temporal_culling: true,
            self_collision: true,
            tolerance: 1e-3,
            max_iterations: 1000,
            resting_probe: true,
            segment_turn: DEFAULT_SEGMENT_TURN,
        }
    }
}

impl QueryOptions {
    /// The same options computing `mode`.
    #[inline]
    #[must_use]
    pub fn with_mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }

    /// The same options bounding swept boxes with `enclosure`.
    #[inline]
    #[must_use]
    pub fn with_enclosure(mut self, enclosure: EnclosureKind) -> Self {
        self.enclosure = enclosure;
        self
    }

    /// The same options with temporal culling (CATCH Alg. 1) on or off.
    #[inline]
    #[must_use]
    pub fn with_temporal_culling(mut self, temporal_culling: bool) -> Self {
        self.temporal_culling = temporal_culling;
        self
    }

    /// The same options with self-collision tests on or off.
    #[inline]
    #[must_use]
    pub fn with_self_collision(mut self, self_collision: bool) -> Self {
        self.self_collision = self_collision;
        self
    }

    /// The same options with absolute distance tolerance `tolerance` (validated by the
    /// query: finite and at least [`ccd_ca_rigid::MIN_TOLERANCE`], `1e-100`).
    #[inline]
    #[must_use]
    pub fn with_tolerance(mut self, tolerance: f64) -> Self {
        self.tolerance = tolerance;
        self
    }

    /// The same options with iteration cap `max_iterations` per pair (validated by the
    /// query: at least 1).
    #[inline]
    #[must_use]
    pub fn with_max_iterations(mut self, max_iterations: u32) -> Self {
        self.max_iterations = max_iterations;
        self
    }

    /// The same options with the resting-contact probe on or off (see
    /// [`QueryOptions::resting_probe`]).
    #[inline]
    #[must_use]
    pub fn with_resting_probe(mut self, resting_probe: bool) -> Self {
        self.resting_probe = resting_probe;
        self
    }

    /// The same options splitting joint-space steps whose chain turn exceeds
    /// `segment_turn` rad (see [`QueryOptions::segment_turn`]; `f64::INFINITY`: never).
    ///
    /// # Example
    /// ```
    /// use ccd_ca_articulated::QueryOptions;
    ///
    /// let whole = QueryOptions::default().with_segment_turn(f64::INFINITY);
    /// assert_eq!(whole.segment_turn, f64::INFINITY);
    /// ```
    #[inline]
    #[must_use]
    pub fn with_segment_turn(mut self, segment_turn: f64) -> Self {
        self.segment_turn = segment_turn;
        self
    }
}

/// Counters of one query: the columns of CATCH Table 2 and the CA work.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct Stats {
    /// Part pairs considered (self pairs after the filter, pairs of different bodies, each
    /// part against the environment): "before spatial culling".
    pub pairs_before: u64,
    /// Pairs whose swept boxes overlap (potentially colliding links, PCLs): "after spatial
    /// culling".
    pub pairs_after_spatial: u64,
    /// Pairs on which mesh CA ran (not dropped by their lower bound): "after temporal
    /// culling".
    pub pairs_after_temporal: u64,
    /// Mesh CA iterations (distance evaluations) over all pairs.
    pub ca_iterations: u64,
    /// Convex-hull CA iterations (GJK evaluations) of the lower bounds, counted for the
    /// pairs whose hulls come within `ε` and whose bound the narrow phase completed (pairs
    /// proven free by their hulls report no counters, and bounds are computed lazily, so
    /// this undercounts the hull work).
    pub hull_iterations: u64,
}

impl Stats {
    /// Adds `other`'s counters to these (the sub-steps of a split step).
    fn add(&mut self, other: &Stats) {
        self.pairs_before += other.pairs_before;
        self.pairs_after_spatial += other.pairs_after_spatial;
        self.pairs_after_temporal += other.pairs_after_temporal;
        self.ca_iterations += other.ca_iterations;
        self.hull_iterations += other.hull_iterations;
    }
}

/// The answer of a query: the contacts (at most one unless [`Mode::All`]) and the
/// counters.
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct QueryResult {
    /// Contacts sorted by time of contact.
    pub contacts: Vec<PairContact>,
    /// Counters.
    pub stats: Stats,
}

impl QueryResult {
    /// The earliest contact, `None` when the step is collision-free.
    #[inline]
    #[must_use]
    pub fn first(&self) -> Option<&PairContact> {
        self.contacts.first()
    }
}

/// A rigid body of a scene with its motion for the next queries.
#[derive(Clone, Debug)]
pub(crate) struct RigidEntry {
    pub(crate) body: RigidBody,
    pub(crate) corners: [DVec3; 8],
    pub(crate) motion: RigidMotion,
}

/// The frame two links of one body are seen from: the body and their common ancestor.
type Frame = Option<(usize, LinkId)>;

/// A potentially colliding pair with its lower bound of the time of contact.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pcl {
    pub(crate) a: Part,
    pub(crate) b: Part,
    pub(crate) lower: f64,
}

/// A pair left by interval spatial culling ([`Scene::interval_pairs`]).
#[derive(Clone, Copy, Debug)]
struct Cand {
    /// The first part's index in [`Workspace::boxes`].
    i: usize,
    /// The second part's (`None`: the environment).
    j: Option<usize>,
    /// Two links of one tree of one body (culled in their root link's frame).
    one_tree: bool,
}

/// Reusable buffers of [`Scene::query_with`] (one per thread).
#[derive(Debug, Default)]
pub struct Workspace {
    pub(crate) motions: Vec<ArticulatedMotion>,
    boxes: Vec<(Part, Aabb)>,
    pub(crate) pcls: Vec<Pcl>,
    scratch: BoundedScratch,
    pub(crate) bvh: ccd_bvh::Workspace,
    stack: Vec<u32>,
    /// Per body, the Taylor-model world transforms of its links over the step, where the
    /// query's spatial culling computed them (`None` elsewhere: the links whose interval
    /// swept boxes meet nothing, and their ancestors' when no descendant needs them; reused
    /// by the environment sweeps).
    pub(crate) world: Vec<Vec<Option<Transform<TaylorModel>>>>,
    /// The same in interval arithmetic (every link: the interval swept boxes come first in
    /// both kinds of query).
    world_iv: Vec<Vec<Option<Transform<Interval>>>>,
    /// Per part of `boxes`, whether it is in a pair that interval spatial culling keeps
    /// (the Taylor-model query then computes its Taylor-model box).
    need: Vec<bool>,
    /// The record of second-level tests after the Taylor-model boxes, across queries.
    second_level: SecondLevel,
    /// Per part of `boxes`, whether its Taylor-model box is still the coarse one
    /// ([`Transform::aabb_of_centred`]; [`Scene::refine_box`] takes the corners' box).
    coarse: Vec<bool>,
    /// Per body, its links' interval transforms relative to the root link of their tree.
    rel: Vec<Vec<Option<Transform<Interval>>>>,
    /// Per body and link, the root link of its tree.
    roots: Vec<Vec<usize>>,
    /// Per body and link, the sum of the rotation angles over the step of the link and its
    /// ancestors (see [`TAYLOR_TURN`]).
    turns: Vec<Vec<f64>>,
    /// Per link of one body, its turn (see [`Scene::turns_exceed`]).
    scratch_turns: Vec<f64>,
    /// As `frames`, from `rel` (the second-level culling of two links of one tree).
    frames_rel: Vec<Option<Transform<Interval>>>,
    /// The pairs interval spatial culling keeps: indices into `boxes` (`None`: the
    /// environment).
    cands: Vec<Cand>,
    /// Per part of `boxes`, its link frame's world transform bounded over the step (filled
    /// on demand by the second-level spatial culling).
    frames: Vec<Option<Transform<Interval>>>,
    /// The environment pairs' sweeps and window boxes of the current narrow phase.
    envs: Vec<EnvSweep>,
    /// Per pair of `pcls`, whether the narrow phase knows its lower bound yet.
    known: Vec<Lower>,
    /// The narrow phase's queue of pairs (indices into `pcls`) by lower bound.
    order: std::collections::BinaryHeap<std::cmp::Reverse<Queued>>,
    /// Per pair the hull CA proved free in the last narrow phase, the direction of its last
    /// distance (the adaptive query's separation certificates for the next step).
    pub(crate) directions: Vec<(Part, Part, DVec3)>,
    /// The resting-contact probe's world poses of one body's links at `t = 0`.
    rest_world: Vec<DAffine3>,
    /// The resting-contact probe's parts with their OBBs in world coordinates at `t = 0`.
    rest_obbs: Vec<resting::WorldObb>,
}

/// Where the narrow phase stands with a pair's lower bound (see [`Scene::narrow_phase`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lower {
    /// Not computed: the pair stands in the queue with the bound 0.
    Unknown,
    /// Hull CA's first iterate, a lower bound of the pair's bound (in [`Pcl::lower`]).
    Partial,
    /// Computed (in [`Pcl::lower`]).
    Known,
    /// Computed: none, the pair is proven free.
    Free,
}

/// A pair in the narrow phase's queue: its lower bound (or 0 while unknown) and its index
/// in the pair list, ordered by bound ([`f64::total_cmp`]) and then by index, as a stable
/// sort of the list by bound orders them.
#[derive(Clone, Copy, Debug)]
struct Queued(f64, usize);

impl PartialEq for Queued {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for Queued {}

impl PartialOrd for Queued {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Queued {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0).then(self.1.cmp(&other.1))
    }
}

/// The Taylor-model world transform of a link from its parent's (`parent`) and its
/// relative motion over the step (CATCH Eq. 1): [`Transform::compose_motion`], which takes
/// the cheaper plane-rotation product for a joint turning about a coordinate axis of its
/// frame, when the motion turns about its frame origin; else the general product.
pub(crate) fn chain_step(
    parent: &Transform<TaylorModel>,
    rel: &ccd_kinematics::RigidMotion,
) -> Result<Transform<TaylorModel>, ccd_kinematics::KinematicsError> {
    if rel.local_center() == DVec3::ZERO {
        Ok(parent.compose_motion(rel.params(), Interval::UNIT))
    } else {
        Ok(parent.compose(&rel.enclosure::<TaylorModel>(Interval::UNIT)?))
    }
}

/// The number of equal time windows over which environment pairs get their own swept
/// boxes in the narrow phase. It trades the cost of each window's restricted Taylor
/// models and boxes against the environment search they narrow; with the hull screen of
/// environment pieces ([`crate::env_pieces`]) cutting each search to the pieces near the
/// link, two is the fastest on the CATCH bench scenes (`falling-train`,
/// `walking-mannequin`, `panda-planner`, `pr2`): more windows cost more than they save, and
/// one loses the windows' lower bounds in temporal culling.
const WINDOWS: usize = 2;

/// Second-level spatial culling (see [`Scene::apart_in_link_frames`]) is tried on the
/// first this many pairs of a query whose world boxes overlap, and on later ones only
/// while it has culled at least one in [`SECOND_LEVEL_RATE`] of those it tried: where
/// overlapping boxes are mostly real near contacts (a folded chain of balls), the test
/// rarely succeeds and its relative motions cost more than the pairs it would save.
/// Skipping it only keeps a pair for the narrow phase, so answers do not change.
const SECOND_LEVEL_TRIAL: u32 = 32;

/// See [`SECOND_LEVEL_TRIAL`].
const SECOND_LEVEL_RATE: u32 = 4;

/// The second-level test after the Taylor-model boxes keeps its record across the queries
/// of a [`Workspace`] ([`SecondLevel`]): a motion planner's queries have a handful of
/// overlapping pairs each, too few for a per-query record to ever stop the test.
/// While the test is off, one pair in this many is still tried (so a changed scene can
/// turn it back on), and the record halves every [`SECOND_LEVEL_MEMORY`] trials. The
/// interval pass keeps its per-query record ([`SECOND_LEVEL_TRIAL`]): its queries test
/// tens of overlapping pairs each, and the mannequin's spatial culling (96.03 % against
/// the 96 % target) depends on trying all of them.
const SECOND_LEVEL_PROBE: u32 = 16;

/// See [`SECOND_LEVEL_PROBE`].
const SECOND_LEVEL_MEMORY: u32 = 1024;

/// The test after the Taylor-model boxes stays on while it culls at least one in this
/// many of the pairs it tries (across queries, see [`SECOND_LEVEL_PROBE`]).
const SECOND_LEVEL_RATE_ACROSS: u32 = 8;

/// The record of second-level tests after the Taylor-model boxes (see
/// [`SECOND_LEVEL_PROBE`]): trials, pairs culled, pairs skipped.
#[derive(Clone, Copy, Debug, Default)]
struct SecondLevel {
    tried: u32,
    culled: u32,
    skipped: u32,
}

impl SecondLevel {
    /// Whether to try the test on the next pair whose boxes overlap.
    fn try_next(&mut self) -> bool {
        if self.tried < SECOND_LEVEL_TRIAL || SECOND_LEVEL_RATE_ACROSS * self.culled >= self.tried {
            return true;
        }
        self.skipped = self.skipped.wrapping_add(1);
        self.skipped.is_multiple_of(SECOND_LEVEL_PROBE)
    }

    /// Records a trial and whether it culled the pair.
    fn record(&mut self, culled: bool) {
        self.tried += 1;
        self.culled += u32::from(culled);
        if self.tried >= SECOND_LEVEL_MEMORY {
            self.tried /= 2;
            self.culled /= 2;
        }
    }
}

/// Articulated bodies, rigid bodies and one static environment, queried one step at a time.
///
/// # Example
/// ```
/// use std::sync::Arc;
/// use ccd_ca_articulated::{ArticulatedBody, BodyStep, Part, QueryOptions, Scene};
/// use ccd_bvh::{BvhOptions, MeshBvh, Rss};
/// use ccd_kinematics::{ArticulatedModel, Joint, LinkId, LinkSpec};
/// use ccd_geometry::{glam::{DAffine3, DVec3}, TriMesh};
///
/// // a one-link arm turning about z over a floor block at x = 1.5
/// let model = ArticulatedModel::new(vec![LinkSpec {
///     name: "arm".into(),
///     parent: None,
///     joint: Joint::Revolute { axis: DVec3::Z, limits: None },
///     offset: DAffine3::IDENTITY,
/// }])?;
/// let bar = TriMesh::new(
///     vec![DVec3::new(0.0, -0.05, 0.0), DVec3::new(2.0, -0.05, 0.0), DVec3::new(2.0, 0.05, 0.0), DVec3::new(0.0, 0.0, 0.1)],
///     vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
/// )?;
/// let arm = ArticulatedBody::from_meshes(model, vec![Some(bar)])?;
/// let post = TriMesh::new(
///     vec![DVec3::new(0.0, 1.5, -1.0), DVec3::new(0.2, 1.5, -1.0), DVec3::new(0.1, 1.7, -1.0), DVec3::new(0.1, 1.6, 1.0)],
///     vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
/// )?;
/// let mut scene = Scene::new();
/// scene.add_articulated(arm);
/// scene.set_environment(Arc::new(MeshBvh::<Rss>::new(post, &BvhOptions::default())?));
/// let result = scene.query(&[BodyStep::Joints { q0: &[0.0], q1: &[3.0] }], &QueryOptions::default())?;
/// let hit = result.first().expect("the arm sweeps through the post");
/// assert_eq!((hit.a, hit.b), (Part::Link { body: 0, link: LinkId(0) }, Part::Environment));
/// assert!(hit.contact.toc > 0.3 && hit.contact.toc < 0.6);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct Scene {
    bodies: Vec<Arc<ArticulatedBody>>,
    pub(crate) rigid: Vec<RigidEntry>,
    /// The static environment with everything derived from its mesh (shared, built once
    /// per environment: [`PreparedEnvironment`]).
    pub(crate) env: Option<Arc<PreparedEnvironment>>,
    /// The first part with a vertex coordinate beyond [`ccd_distance::MAX_COORDINATE`] and
    /// that coordinate's magnitude ([`ArticulatedError::OutOfDomain`] for every query).
    far: Option<(Part, f64)>,
}

/// A transform's entries bounded over the step ([`Enclosure::bound_cheap`]: the cheap
/// range is enough for the second-level culling, which only needs boxes that hold them).
fn bounded<E: Enclosure>(w: &Transform<E>) -> Transform<Interval> {
    let t = &w.translation;
    Transform {
        rotation: ccd_taylor::Mat3 {
            rows: w.rotation.rows.map(|r| r.map(|e| e.bound_cheap())),
        },
        translation: ccd_taylor::Vec3 {
            x: t.x.bound_cheap(),
            y: t.y.bound_cheap(),
            z: t.z.bound_cheap(),
        },
    }
}

/// Two links of one tree whose interval spatial culling (in their root's frame) keeps them
/// are tested again with Taylor models when one of them turns by more than this (radians,
/// the sum of its and its ancestors' rotation angles over the step): the intervals' wrapping
/// grows with the turn, so on small steps (mocap frames) the Taylor models cull almost
/// nothing more and cost more than they save, while on large ones (planner edges) they cull
/// many pairs. Only which tests run depends on it, never an answer.
const TAYLOR_TURN: f64 = 0.25;

/// A Taylor-model query whose links turn by more than this (radians, as [`TAYLOR_TURN`])
/// skips the interval boxes and computes Taylor-model boxes for every part: on such steps
/// (planner edges, tumbling trains) nearly every link would need them, and the interval
/// boxes and tests would only add their cost.
const TAYLOR_ONLY_TURN: f64 = 0.5;

/// Whether one of two links turns by more than [`TAYLOR_TURN`] over the step.
fn turned(turns: &[Vec<f64>], a: Part, b: Part) -> bool {
    let turn = |p: Part| match p {
        Part::Link { body, link } => turns
            .get(body)
            .and_then(|t| t.get(link.index()))
            .copied()
            .unwrap_or(f64::INFINITY),
        _ => f64::INFINITY,
    };
    turn(a).max(turn(b)) > TAYLOR_TURN
}

/// A part's interval swept box narrowed by its Taylor-model one. Both hold the part's
/// motion, so their intersection is never empty; should rounding ever make it so, the
/// Taylor-model box is kept (the box the query used before the hybrid).
fn narrowed(interval: Aabb, taylor: Aabb) -> Aabb {
    let both = interval.intersection(taylor);
    if both.is_empty() { taylor } else { both }
}

/// The motion of `wb`'s frame in `wa`'s (`wa⁻¹ ∘ wb`) and the reverse, bounded over the
/// step (interval arithmetic) and held in midpoint–radius form for the second-level test
/// ([`crate::midrad`]); both transforms' rotation parts must enclose rotations at every
/// time (world transforms of links). `None` when a bound is unbounded.
fn relative(
    wa: &Transform<Interval>,
    wb: &Transform<Interval>,
) -> Option<(MidRadMotion, MidRadMotion)> {
    let ab = wa.inverse_compose(wb); // b's link frame → a's
    let fwd = MidRadMotion::new(&ab.rotation.bound(), &ab.translation.bound())?;
    let rev = fwd.transposed_with(&ab.inverse().translation.bound())?;
    Some((fwd, rev))
}

/// Whether two links' pieces (`pa` of the first, `pb` of the second: OBB, root RSS, the
/// root's children's RSSs), moving relative to each other by `(fwd, rev)` (the second's
/// frame in the first's and the reverse), stay more than `eps` apart over the step: their
/// OBBs are, or their root RSSs are, or every pair of the hierarchies' second-level RSSs
/// is. Two pieces are apart when either, carried into the other's frame, clears it along
/// one of its axes ([`clear_of`]).
fn apart_by(
    (fwd, rev): &(MidRadMotion, MidRadMotion),
    pa: &[Piece],
    pb: &[Piece],
    eps: f64,
) -> bool {
    let apart =
        |p: &Piece, q: &Piece| clear_of(p, &carry(fwd, q), eps) || clear_of(q, &carry(rev, p), eps);
    let (Some(obb_a), Some(obb_b)) = (pa.first(), pb.first()) else {
        return false;
    };
    if apart(obb_a, obb_b) {
        return true;
    }
    let (Some(ra), Some(rb)) = (pa.get(1), pb.get(1)) else {
        return false;
    };
    if apart(ra, rb) {
        return true;
    }
    // second level: the root's children (the root itself for a leaf)
    fn level(p: &[Piece]) -> &[Piece] {
        if p.len() > 2 { &p[2..] } else { &p[1..2] }
    }
    let (ca, cb) = (level(pa), level(pb));
    if ca.len() == 1 && cb.len() == 1 {
        return false; // (tested above)
    }
    // each piece carried once into the other frame (at most two per side)
    let mut into_a = [None; 2];
    let mut into_b = [None; 2];
    ca.iter().enumerate().all(|(x, p)| {
        cb.iter().enumerate().all(|(y, q)| {
            let qa = into_a
                .get_mut(y)
                .map(|c| *c.get_or_insert_with(|| carry(fwd, q)));
            if qa.is_some_and(|qa| clear_of(p, &qa, eps)) {
                return true;
            }
            let pb = into_b
                .get_mut(x)
                .map(|c| *c.get_or_insert_with(|| carry(rev, p)));
            pb.is_some_and(|pb| clear_of(q, &pb, eps))
        })
    })
}

fn corners_of(mesh: &MeshBvh<Rss>) -> [DVec3; 8] {
    let obb = ccd_bvh::Obb::fit_points(mesh.mesh().vertices());
    let reach = obb.center.abs().max_element() + obb.half_extents.max_element();
    let h = obb.half_extents + DVec3::splat(16.0 * f64::EPSILON * reach);
    std::array::from_fn(|k| {
        let s = DVec3::new(
            if k & 1 == 0 { -1.0 } else { 1.0 },
            if k & 2 == 0 { -1.0 } else { 1.0 },
            if k & 4 == 0 { -1.0 } else { 1.0 },
        );
        obb.center + obb.rotation * (s * h)
    })
}

impl Scene {
    /// An empty scene.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds an articulated body (shared; no copy of its meshes) and returns its index.
    pub fn add_articulated(&mut self, body: impl Into<Arc<ArticulatedBody>>) -> usize {
        self.bodies.push(body.into());
        self.find_far();
        self.bodies.len() - 1
    }

    /// The first part (articulated bodies' links, rigid bodies, the environment) whose
    /// coordinates are beyond the CA's domain, into `far`.
    fn find_far(&mut self) {
        let links = self.bodies.iter().enumerate().flat_map(|(i, b)| {
            b.shapes()
                .map(move |(link, s)| (Part::Link { body: i, link }, s.body()))
        });
        let rigid = self
            .rigid
            .iter()
            .enumerate()
            .map(|(i, r)| (Part::Rigid(i), &r.body));
        let env = self.env.iter().map(|e| (Part::Environment, e.body()));
        self.far = links
            .chain(rigid)
            .chain(env)
            .map(|(p, b)| (p, b.max_abs_coordinate()))
            .find(|&(_, v)| v.is_nan() || v > ccd_distance::MAX_COORDINATE);
    }

    /// The environment's body (world frame), `None` without an environment.
    #[inline]
    pub(crate) fn environment(&self) -> Option<&RigidBody> {
        self.env.as_deref().map(PreparedEnvironment::body)
    }

    /// Per node of the environment's hierarchy, the exact box of the node's triangles
    /// (empty without an environment).
    #[inline]
    pub(crate) fn env_boxes(&self) -> &[Aabb] {
        self.env
            .as_deref()
            .map_or(&[], PreparedEnvironment::node_boxes)
    }

    /// The environment's connected pieces with their hulls (none without an environment).
    #[inline]
    fn env_pieces(&self) -> &EnvPieces {
        static NO_PIECES: EnvPieces = EnvPieces::NONE;
        self.env
            .as_deref()
            .map_or(&NO_PIECES, PreparedEnvironment::pieces)
    }

    /// [`ArticulatedError::OutOfDomain`] when a part's coordinates are beyond the CA's
    /// domain (checked by every query, before any culling).
    pub(crate) fn check_domain(&self) -> Result<(), ArticulatedError> {
        match self.far {
            Some((part, value)) => Err(ArticulatedError::OutOfDomain { part, value }),
            None => Ok(()),
        }
    }

    /// Adds a rigid body (local frame = its motion's frame) moving with `motion` in the
    /// following queries, and returns its index.
    pub fn add_rigid(&mut self, mesh: Arc<MeshBvh<Rss>>, motion: RigidMotion) -> usize {
        let corners = corners_of(&mesh);
        let body = RigidBody::with_hull(Arc::clone(&mesh)).unwrap_or_else(|_| RigidBody::new(mesh));
        self.rigid.push(RigidEntry {
            body,
            corners,
            motion,
        });
        self.find_far();
        self.rigid.len() - 1
    }

    /// Sets the motion of rigid body `i` for the following queries (`false` when there is
    /// no such body).
    pub fn set_rigid_motion(&mut self, i: usize, motion: RigidMotion) -> bool {
        match self.rigid.get_mut(i) {
            Some(r) => {
                r.motion = motion;
                true
            }
            None => false,
        }
    }

    /// Sets the static environment (world frame), replacing any previous one: prepares it
    /// ([`PreparedEnvironment::new`], linear in its triangles and more) for this scene only.
    /// Scenes assembled many times over one environment (a planner's queries, a batch)
    /// prepare it once and share it with [`Scene::set_prepared_environment`].
    pub fn set_environment(&mut self, mesh: Arc<MeshBvh<Rss>>) {
        self.set_prepared_environment(Arc::new(PreparedEnvironment::new(mesh)));
    }

    /// Sets a prepared static environment (world frame, shared: no copy and no work beyond
    /// the scene's domain check, O(parts)), replacing any previous one. The answers are
    /// those of [`Scene::set_environment`] with the environment's mesh.
    ///
    /// # Example
    /// ```
    /// use std::sync::Arc;
    /// use ccd_ca_articulated::{ArticulatedBody, BodyStep, PreparedEnvironment, QueryOptions, Scene};
    /// use ccd_bvh::{BvhOptions, MeshBvh, Rss};
    /// use ccd_kinematics::{ArticulatedModel, Joint, LinkSpec};
    /// use ccd_geometry::{glam::{DAffine3, DVec3}, TriMesh};
    ///
    /// let model = ArticulatedModel::new(vec![LinkSpec { name: "arm".into(), parent: None, joint: Joint::Revolute { axis: DVec3::Z, limits: None }, offset: DAffine3::IDENTITY }])?;
    /// let bar = TriMesh::new(vec![DVec3::new(0.0, -0.05, 0.0), DVec3::new(2.0, -0.05, 0.0), DVec3::new(2.0, 0.05, 0.0), DVec3::new(0.0, 0.0, 0.1)], vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])?;
    /// let post = TriMesh::new(vec![DVec3::new(0.0, 1.5, -1.0), DVec3::new(0.2, 1.5, -1.0), DVec3::new(0.1, 1.7, -1.0), DVec3::new(0.1, 1.6, 1.0)], vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])?;
    /// let arm = Arc::new(ArticulatedBody::from_meshes(model, vec![Some(bar)])?);
    /// // prepared once ...
    /// let env = Arc::new(PreparedEnvironment::new(Arc::new(MeshBvh::<Rss>::new(post, &BvhOptions::default())?)));
    /// for q1 in [0.5, 3.0] {
    ///     // ... and shared by every scene assembled from it (O(bodies))
    ///     let mut scene = Scene::new();
    ///     scene.add_articulated(Arc::clone(&arm));
    ///     scene.set_prepared_environment(Arc::clone(&env));
    ///     let hit = scene.query(&[BodyStep::Joints { q0: &[0.0], q1: &[q1] }], &QueryOptions::default())?;
    ///     assert_eq!(hit.first().is_some(), q1 > 1.0);
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set_prepared_environment(&mut self, environment: Arc<PreparedEnvironment>) {
        self.env = Some(environment);
        self.find_far();
    }

    /// The prepared static environment, `None` when the scene has none.
    #[inline]
    #[must_use]
    pub fn prepared_environment(&self) -> Option<&Arc<PreparedEnvironment>> {
        self.env.as_ref()
    }

    /// The articulated bodies.
    #[inline]
    #[must_use]
    pub fn bodies(&self) -> &[Arc<ArticulatedBody>] {
        &self.bodies
    }

    /// One step: every articulated body moves as its [`BodyStep`] says (per-link constant
    /// velocities, CATCH Sec. 3.2), rigid bodies with their motions, the environment stays.
    /// Allocates a [`Workspace`]; per-frame loops use [`Scene::query_with`].
    ///
    /// # Errors
    /// [`ArticulatedError::StepCount`], [`ArticulatedError::JointCount`],
    /// [`ArticulatedError::InvalidJointValue`] (NaN, infinite or outside the limits),
    /// [`ArticulatedError::Motion`] (poses that do not fit or are not rigid),
    /// [`ArticulatedError::InvalidOptions`].
    ///
    /// # Example
    /// See [`Scene`].
    pub fn query(
        &self,
        steps: &[BodyStep<'_>],
        opts: &QueryOptions,
    ) -> Result<QueryResult, ArticulatedError> {
        let mut out = QueryResult::default();
        self.query_with(steps, opts, &mut Workspace::default(), &mut out)?;
        Ok(out)
    }

    /// [`Scene::query`] with reusable buffers and output (no allocation for the culling
    /// lists once they have grown).
    ///
    /// # Errors
    /// As [`Scene::query`].
    ///
    /// # Example
    /// ```
    /// # use ccd_ca_articulated::{ArticulatedBody, BodyStep, QueryOptions, QueryResult, Scene, Workspace};
    /// # use ccd_kinematics::{ArticulatedModel, Joint, LinkSpec};
    /// # use ccd_geometry::{glam::{DAffine3, DVec3}, TriMesh};
    /// # let model = ArticulatedModel::new(vec![LinkSpec { name: "a".into(), parent: None, joint: Joint::Revolute { axis: DVec3::Z, limits: None }, offset: DAffine3::IDENTITY }])?;
    /// # let tri = TriMesh::new(vec![DVec3::ZERO, DVec3::X, DVec3::Y], vec![[0, 1, 2]])?;
    /// let mut scene = Scene::new();
    /// scene.add_articulated(ArticulatedBody::from_meshes(model, vec![Some(tri)])?);
    /// let (mut ws, mut out) = (Workspace::default(), QueryResult::default());
    /// for frame in 0..3 {
    ///     let (q0, q1) = ([0.1 * f64::from(frame)], [0.1 * f64::from(frame + 1)]);
    ///     scene.query_with(&[BodyStep::Joints { q0: &q0, q1: &q1 }], &QueryOptions::default(), &mut ws, &mut out)?;
    ///     assert!(out.first().is_none()); // alone in an empty world
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn query_with(
        &self,
        steps: &[BodyStep<'_>],
        opts: &QueryOptions,
        ws: &mut Workspace,
        out: &mut QueryResult,
    ) -> Result<(), ArticulatedError> {
        out.contacts.clear();
        out.stats = Stats::default();
        check_options(opts)?;
        self.check_domain()?;
        if steps.len() != self.bodies.len() {
            return Err(ArticulatedError::StepCount {
                expected: self.bodies.len(),
                got: steps.len(),
            });
        }
        ws.motions.clear();
        for (i, (body, step)) in self.bodies.iter().zip(steps).enumerate() {
            ws.motions.push(body_motion(i, body, step)?);
        }
        if opts.mode != Mode::All && steps.iter().all(|s| matches!(s, BodyStep::Joints { .. })) {
            let turn = self.largest_turn(ws);
            if turn > opts.segment_turn {
                // NaN turns (impossible after validation) take the unsplit path
                let k = ((turn / opts.segment_turn).ceil() as usize).clamp(2, MAX_SEGMENTS);
                return self.query_segments(steps, k, opts, ws, out);
            }
        }
        // steps that start in contact are answered before any swept box is built
        if self.resting_contact(ws, opts, out) {
            return Ok(());
        }
        self.query_motions(ws, opts, out)
    }

    /// A joint-space step (every entry of `steps` is [`BodyStep::Joints`], validated) as `k`
    /// consecutive sub-steps `[i/k, (i+1)/k]`, in order, until one has a contact; its times
    /// of contact are mapped back to the whole step (rounded down) and the counters summed.
    fn query_segments(
        &self,
        steps: &[BodyStep<'_>],
        k: usize,
        opts: &QueryOptions,
        ws: &mut Workspace,
        out: &mut QueryResult,
    ) -> Result<(), ArticulatedError> {
        let ends: Vec<(&[f64], &[f64])> = steps
            .iter()
            .filter_map(|s| match *s {
                BodyStep::Joints { q0, q1 } => Some((q0, q1)),
                BodyStep::Poses { .. } => None,
            })
            .collect();
        // the configuration at `i / k` (exactly q0 at 0 and q1 at k): adjacent sub-steps share
        // their end configuration, so the sub-paths join into one continuous path
        let at = |q0: &[f64], q1: &[f64], i: usize| -> Vec<f64> {
            if i == 0 {
                return q0.to_vec();
            }
            if i == k {
                return q1.to_vec();
            }
            let t = i as f64 / k as f64;
            q0.iter().zip(q1).map(|(a, b)| a + t * (b - a)).collect()
        };
        let mut part = QueryResult::default();
        let mut start: Vec<Vec<f64>> = ends.iter().map(|(q0, _)| q0.to_vec()).collect();
        for i in 0..k {
            let end: Vec<Vec<f64>> = ends.iter().map(|(q0, q1)| at(q0, q1, i + 1)).collect();
            ws.motions.clear();
            for (b, (body, (qa, qb))) in self.bodies.iter().zip(start.iter().zip(&end)).enumerate()
            {
                let step = BodyStep::Joints { q0: qa, q1: qb };
                ws.motions.push(body_motion(b, body, &step)?);
            }
            part.contacts.clear();
            part.stats = Stats::default();
            if !self.resting_contact(ws, opts, &mut part) {
                self.query_motions(ws, opts, &mut part)?;
            }
            out.stats.add(&part.stats);
            if !part.contacts.is_empty() {
                let (a, b) = (i as f64 / k as f64, (i + 1) as f64 / k as f64);
                for c in &mut part.contacts {
                    // one rounding in each of the product and the sum: two steps down keep
                    // the mapped time at or before the exact one
                    let t = a + c.contact.toc * (b - a);
                    c.contact.toc = t.next_down().next_down().clamp(a, b);
                }
                out.contacts.append(&mut part.contacts);
                return Ok(());
            }
            start = end;
        }
        Ok(())
    }

    /// The largest chain turn of the bodies' motions in `ws.motions` (the sum, from the
    /// root down, of the angles each link turns by relative to its parent; a parent not
    /// listed before its child counts as an infinite turn); NaN when some angle is NaN.
    fn largest_turn(&self, ws: &mut Workspace) -> f64 {
        let turns = &mut ws.scratch_turns;
        let mut most = 0.0f64;
        for (body, motion) in self.bodies.iter().zip(&ws.motions) {
            turns.clear();
            for (link, m) in body.model().links().iter().zip(motion.relatives()) {
                let up = link.parent.and_then(|p| turns.get(p.index())).copied();
                let turn = match (link.parent, up) {
                    (Some(_), None) => f64::INFINITY,
                    (_, up) => up.unwrap_or(0.0) + m.params().angle().abs(),
                };
                if turn.is_nan() {
                    return f64::NAN;
                }
                most = most.max(turn);
                turns.push(turn);
            }
        }
        most
    }

    /// The rest of [`Scene::query_with`] once the bodies' motions are in `ws.motions`
    /// (`out` cleared): swept boxes, spatial culling and the narrow phase. The adaptive
    /// query falls back to it.
    pub(crate) fn query_motions(
        &self,
        ws: &mut Workspace,
        opts: &QueryOptions,
        out: &mut QueryResult,
    ) -> Result<(), ArticulatedError> {
        ws.world.clear();
        ws.envs.clear();
        if opts.enclosure == EnclosureKind::Taylor && self.turns_exceed(ws, TAYLOR_ONLY_TURN) {
            // large motions: the interval boxes would cull little, Taylor models for all
            let mut world = std::mem::take(&mut ws.world);
            let r = self
                .all_pairs(ws, opts, &mut out.stats)
                .and_then(|()| self.taylor_boxes(ws, opts.tolerance, &mut world, false));
            if r.is_ok() {
                self.potential_pairs(ws, opts, &mut out.stats, Some(&world));
            }
            ws.world = world;
            r?;
            let r = self.narrow_phase_with(ws, opts, out, true);
            ws.world.clear();
            return r;
        }
        // interval swept boxes of every part first
        let mut world_iv = std::mem::take(&mut ws.world_iv);
        let r = self.interval_boxes(ws, opts.tolerance, &mut world_iv);
        let r = r.and_then(|()| {
            self.interval_pairs(ws, opts, &mut out.stats, &world_iv);
            match opts.enclosure {
                EnclosureKind::Taylor => {
                    let mut world = std::mem::take(&mut ws.world);
                    let r = self.taylor_boxes(ws, opts.tolerance, &mut world, true);
                    if r.is_ok() {
                        self.potential_pairs(ws, opts, &mut out.stats, Some(&world));
                    }
                    ws.world = world;
                    r
                }
                EnclosureKind::Interval => {
                    self.potential_pairs(ws, opts, &mut out.stats, None);
                    Ok(())
                }
            }
        });
        ws.world_iv = world_iv;
        r?;
        let r = self.narrow_phase_with(ws, opts, out, true);
        ws.world.clear();
        r
    }

    /// A batch of independent steps of the scene's only articulated body (motion-planning
    /// edges `(q0, q1)`), rigid bodies moving as set, each answered as by [`Scene::query`].
    /// With feature `parallel` the edges run on all cores (rayon, one [`Workspace`] per
    /// task); the answers are the same either way, in the order of `edges`.
    ///
    /// # Errors
    /// [`ArticulatedError::NotOneBody`] unless the scene has exactly one articulated body;
    /// [`ArticulatedError::InvalidOptions`]. A bad edge gets its own error in its slot.
    ///
    /// # Example
    /// ```
    /// # use std::sync::Arc;
    /// # use ccd_ca_articulated::{ArticulatedBody, Mode, QueryOptions, Scene};
    /// # use ccd_bvh::{BvhOptions, MeshBvh, Rss};
    /// # use ccd_kinematics::{ArticulatedModel, Joint, LinkSpec};
    /// # use ccd_geometry::{glam::{DAffine3, DVec3}, TriMesh};
    /// # let model = ArticulatedModel::new(vec![LinkSpec { name: "arm".into(), parent: None, joint: Joint::Revolute { axis: DVec3::Z, limits: None }, offset: DAffine3::IDENTITY }])?;
    /// # let bar = TriMesh::new(vec![DVec3::new(0.0, -0.05, 0.0), DVec3::new(2.0, -0.05, 0.0), DVec3::new(2.0, 0.05, 0.0), DVec3::new(0.0, 0.0, 0.1)], vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])?;
    /// # let post = TriMesh::new(vec![DVec3::new(0.0, 1.5, -1.0), DVec3::new(0.2, 1.5, -1.0), DVec3::new(0.1, 1.7, -1.0), DVec3::new(0.1, 1.6, 1.0)], vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])?;
    /// let mut scene = Scene::new();
    /// scene.add_articulated(ArticulatedBody::from_meshes(model, vec![Some(bar)])?);
    /// scene.set_environment(Arc::new(MeshBvh::<Rss>::new(post, &BvhOptions::default())?));
    /// let edges = vec![(vec![0.0], vec![0.5]), (vec![0.0], vec![3.0]), (vec![0.0], vec![f64::NAN])];
    /// let answers = scene.check_edges(&edges, &QueryOptions::default().with_mode(Mode::Boolean))?;
    /// assert!(answers[0].as_ref().unwrap().first().is_none()); // free
    /// assert!(answers[1].as_ref().unwrap().first().is_some()); // sweeps through the post
    /// assert!(answers[2].is_err()); // NaN joint
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn check_edges(
        &self,
        edges: &[(Vec<f64>, Vec<f64>)],
        opts: &QueryOptions,
    ) -> Result<Vec<Result<QueryResult, ArticulatedError>>, ArticulatedError> {
        if self.bodies.len() != 1 {
            return Err(ArticulatedError::NotOneBody(self.bodies.len()));
        }
        check_options(opts)?;
        let one = |ws: &mut Workspace, (q0, q1): &(Vec<f64>, Vec<f64>)| {
            let mut out = QueryResult::default();
            self.query_with(&[BodyStep::Joints { q0, q1 }], opts, ws, &mut out)
                .map(|()| out)
        };
        #[cfg(feature = "parallel")]
        {
            use rayon::prelude::*;
            Ok(edges.par_iter().map_init(Workspace::default, one).collect())
        }
        #[cfg(not(feature = "parallel"))]
        {
            let mut ws = Workspace::default();
            Ok(edges.iter().map(|e| one(&mut ws, e)).collect())
        }
    }

    /// Whether some link of some articulated body turns by more than `limit` over the step
    /// (radians: the sum of its and its ancestors' rotation angles).
    fn turns_exceed(&self, ws: &mut Workspace, limit: f64) -> bool {
        let turn = self.largest_turn(ws);
        turn.is_nan() || turn > limit
    }

    /// Every part in `ws.boxes` (boxes not yet set) and every pair the query considers in
    /// `ws.cands`, in the order of the pair loop, each part marked in `ws.need`: spatial
    /// culling then tests every pair with Taylor-model boxes only.
    fn all_pairs(
        &self,
        ws: &mut Workspace,
        opts: &QueryOptions,
        stats: &mut Stats,
    ) -> Result<(), ArticulatedError> {
        ws.boxes.clear();
        for (b, body) in self.bodies.iter().enumerate() {
            for (id, _) in body.shapes() {
                ws.boxes
                    .push((Part::Link { body: b, link: id }, Aabb::EMPTY));
            }
        }
        for i in 0..self.rigid.len() {
            ws.boxes.push((Part::Rigid(i), Aabb::EMPTY));
        }
        let n = ws.boxes.len();
        ws.need.clear();
        ws.need.resize(n, true);
        ws.cands.clear();
        for i in 0..n {
            for j in i + 1..n {
                if self.considered(opts, ws.boxes[i].0, ws.boxes[j].0) {
                    stats.pairs_before += 1;
                    ws.cands.push(Cand {
                        i,
                        j: Some(j),
                        one_tree: false,
                    });
                }
            }
            if self.env.is_some() {
                stats.pairs_before += 1;
                ws.cands.push(Cand {
                    i,
                    j: None,
                    one_tree: false,
                });
            }
        }
        Ok(())
    }

    /// Interval swept boxes of every part with geometry over `[0, 1]` (the OBB corners'
    /// box in midpoint–radius form, [`corner_box`]), inflated by `ε/2`, into `ws.boxes`, with the interval world transforms of each body's links left in
    /// `worlds` (one entry per body), and in `ws.rel` the links' transforms relative to the
    /// root link of their tree (`ws.roots`: that root): two links of one tree seen from
    /// their root's frame move only as the chain between them does, without the root's
    /// world motion, so their relative motion gets much tighter bounds.
    fn interval_boxes(
        &self,
        ws: &mut Workspace,
        eps: f64,
        worlds: &mut Vec<Vec<Option<Transform<Interval>>>>,
    ) -> Result<(), ArticulatedError> {
        ws.boxes.clear();
        worlds.clear();
        ws.rel.clear();
        ws.roots.clear();
        ws.turns.clear();
        for (b, (body, motion)) in self.bodies.iter().zip(&ws.motions).enumerate() {
            let links = body.model().links();
            let mut world: Vec<Option<Transform<Interval>>> = Vec::with_capacity(links.len());
            let mut rel: Vec<Option<Transform<Interval>>> = Vec::with_capacity(links.len());
            let mut roots: Vec<usize> = Vec::with_capacity(links.len());
            let mut turns: Vec<f64> = Vec::with_capacity(links.len());
            for (i, link) in links.iter().enumerate() {
                let m = &motion.relatives()[i];
                let local = interval_enclosure(m);
                // (a model lists parents before their children; a parent not yet seen is
                // an error, never a root)
                let parent = match link.parent {
                    Some(p) => Some(
                        world
                            .get(p.index())
                            .and_then(Option::as_ref)
                            .zip(rel.get(p.index()).and_then(Option::as_ref))
                            .zip(roots.get(p.index()).zip(turns.get(p.index())))
                            .ok_or(ArticulatedError::UnknownPart(Part::Link {
                                body: b,
                                link: p,
                            }))?,
                    ),
                    None => None,
                };
                let (w, r, root, turn) = match parent {
                    Some(((wp, rp), (&root, &turn))) => {
                        (wp.compose(&local), rp.compose(&local), root, turn)
                    }
                    None => (local, Transform::identity(Interval::UNIT), i, 0.0),
                };
                let turn = turn + m.params().angle().abs();
                world.push(Some(w));
                rel.push(Some(r));
                roots.push(root);
                turns.push(turn);
            }
            for (id, shape) in body.shapes() {
                if let Some(w) = &world[id.index()] {
                    let corners = shape.obb_corners();
                    let bx = corner_box(w, corners).unwrap_or_else(|| w.aabb_of_corners(corners));
                    ws.boxes
                        .push((Part::Link { body: b, link: id }, bx.inflate(0.5 * eps)));
                }
            }
            worlds.push(world);
            ws.rel.push(rel);
            ws.roots.push(roots);
            ws.turns.push(turns);
        }
        for (i, r) in self.rigid.iter().enumerate() {
            let tr = interval_enclosure(&r.motion);
            let bx = corner_box(&tr, &r.corners).unwrap_or_else(|| tr.aabb_of_corners(&r.corners));
            ws.boxes.push((Part::Rigid(i), bx.inflate(0.5 * eps)));
        }
        Ok(())
    }

    /// Whether the query considers the pair of parts `a`, `b` at all (two links of one body
    /// only when self-collision is on and the body's filter keeps them).
    fn considered(&self, opts: &QueryOptions, a: Part, b: Part) -> bool {
        match (a, b) {
            (Part::Link { body: x, link: la }, Part::Link { body: y, link: lb }) if x == y => {
                opts.self_collision && self.bodies[x].is_self_pair(la, lb)
            }
            _ => true,
        }
    }

    /// Spatial culling with the interval swept boxes in `ws.boxes` and the interval world
    /// transforms `worlds`: box pairs (self pairs after the filter, other bodies), then for
    /// two links whose boxes overlap a second, sharper test ([`Scene::apart_in_link_frames`]:
    /// each link's bounding pieces swept in the other's frame; tried while it pays, see
    /// [`SECOND_LEVEL_TRIAL`]), and each box against the environment's triangle boxes. The
    /// pairs left are `ws.cands` (in the order of the pair loop; `None`: the environment),
    /// and `ws.need` marks the parts in one of them (the Taylor-model query computes
    /// Taylor-model boxes for those only: every culling test is conservative, so a pair
    /// culled here is culled whatever its Taylor-model boxes).
    fn interval_pairs(
        &self,
        ws: &mut Workspace,
        opts: &QueryOptions,
        stats: &mut Stats,
        worlds: &[Vec<Option<Transform<Interval>>>],
    ) {
        let n = ws.boxes.len();
        ws.need.clear();
        ws.need.resize(n, false);
        ws.cands.clear();
        ws.frames.clear();
        ws.frames.resize(n, None);
        ws.frames_rel.clear();
        ws.frames_rel.resize(n, None);
        // second-level tests tried and pairs they culled (see SECOND_LEVEL_TRIAL)
        let (mut tried, mut culled) = (0u32, 0u32);
        for i in 0..n {
            let (pa, ba) = ws.boxes[i];
            for j in i + 1..n {
                let (pb, bb) = ws.boxes[j];
                if !self.considered(opts, pa, pb) {
                    continue;
                }
                stats.pairs_before += 1;
                let one_tree = match (pa, pb) {
                    (Part::Link { body: x, link: la }, Part::Link { body: y, link: lb }) => {
                        x == y
                            && ws.roots.get(x).is_some_and(|r| {
                                r.get(la.index()).is_some()
                                    && r.get(la.index()) == r.get(lb.index())
                            })
                    }
                    _ => false,
                };
                let keep = ba.overlaps(&bb) && {
                    let trial = tried < SECOND_LEVEL_TRIAL || SECOND_LEVEL_RATE * culled >= tried;
                    let (w, frames) = if one_tree {
                        (&ws.rel[..], &mut ws.frames_rel)
                    } else {
                        (worlds, &mut ws.frames)
                    };
                    let apart = trial
                        && self.apart_in_link_frames(w, frames, (i, pa), (j, pb), opts.tolerance);
                    tried += u32::from(trial);
                    culled += u32::from(apart);
                    !apart
                };
                if keep {
                    ws.cands.push(Cand {
                        i,
                        j: Some(j),
                        one_tree,
                    });
                    if !one_tree || turned(&ws.turns, pa, pb) {
                        ws.need[i] = true;
                        ws.need[j] = true;
                    }
                }
            }
            if let Some(env) = self.environment() {
                stats.pairs_before += 1;
                if env_meets_box(env, self.env_boxes(), &ba, &mut ws.stack) {
                    ws.cands.push(Cand {
                        i,
                        j: None,
                        one_tree: false,
                    });
                    ws.need[i] = true;
                }
            }
        }
    }

    /// The interval-first hybrid of the Taylor-model query: Taylor-model world transforms
    /// (`worlds`, one entry per body; `None` where not computed) only for the links that
    /// `ws.need` marks and their ancestors (one pass down each body's tree), and the boxes of
    /// needed parts in `ws.boxes` narrowed to their intersection with the Taylor-model swept
    /// box (both hold the part's motion grown by `ε/2`, so their intersection does too).
    /// Without `narrow` the boxes are replaced by the Taylor-model ones (for every part that
    /// `ws.need` marks). A link's Taylor-model box is the coarse one of its OBB's centre
    /// ([`Transform::aabb_of_centred`], marked in `ws.coarse`), three bounded models
    /// instead of up to twenty-four; rigid bodies get their corners' boxes.
    fn taylor_boxes(
        &self,
        ws: &mut Workspace,
        eps: f64,
        worlds: &mut Vec<Vec<Option<Transform<TaylorModel>>>>,
        narrow: bool,
    ) -> Result<(), ArticulatedError> {
        worlds.clear();
        ws.coarse.clear();
        ws.coarse.resize(ws.boxes.len(), false);
        let mut k = 0;
        for (b, (body, motion)) in self.bodies.iter().zip(&ws.motions).enumerate() {
            let links = body.model().links();
            let mut need = vec![false; links.len()];
            // the parts of this body are its shapes, in order, at ws.boxes[k..]
            let start = k;
            for (id, _) in body.shapes() {
                need[id.index()] = ws.need[k];
                k += 1;
            }
            // parents come before their children: mark ancestors from the leaves up
            for i in (0..links.len()).rev() {
                if need[i]
                    && let Some(p) = links[i].parent
                {
                    need[p.index()] = true;
                }
            }
            let mut world: Vec<Option<Transform<TaylorModel>>> = vec![None; links.len()];
            for i in 0..links.len() {
                if !need[i] {
                    continue;
                }
                let rel = &motion.relatives()[i];
                world[i] = Some(match links[i].parent {
                    // (marked with the link, and listed before it)
                    Some(p) => {
                        let pw = world
                            .get(p.index())
                            .and_then(Option::as_ref)
                            .filter(|_| p.index() < i)
                            .ok_or(ArticulatedError::UnknownPart(Part::Link {
                                body: b,
                                link: p,
                            }))?;
                        chain_step(pw, rel)
                            .map_err(|source| ArticulatedError::Motion { body: b, source })?
                    }
                    None => rel
                        .enclosure::<TaylorModel>(Interval::UNIT)
                        .map_err(|source| ArticulatedError::Motion { body: b, source })?,
                });
            }
            for (m, (id, shape)) in body.shapes().enumerate() {
                let kk = start + m;
                if let (true, Some(w)) = (ws.need[kk], world[id.index()].as_ref()) {
                    // the coarse box first: the corners' box only where it does not cull
                    let (bx, coarse) = match shape.centred() {
                        Some(c) => (w.aabb_of_centred(c), true),
                        None => (w.aabb_of_corners(shape.obb_corners()), false),
                    };
                    let bx = bx.inflate(0.5 * eps);
                    ws.boxes[kk].1 = if narrow {
                        narrowed(ws.boxes[kk].1, bx)
                    } else {
                        bx
                    };
                    ws.coarse[kk] = coarse;
                }
            }
            worlds.push(world);
        }
        for (i, r) in self.rigid.iter().enumerate() {
            if ws.need[k] {
                let tr: Transform<TaylorModel> =
                    r.motion.enclosure::<TaylorModel>(Interval::UNIT)?;
                let bx = tr.aabb_of_corners(&r.corners).inflate(0.5 * eps);
                debug_assert_eq!(ws.boxes[k].0, Part::Rigid(i));
                ws.boxes[k].1 = if narrow {
                    narrowed(ws.boxes[k].1, bx)
                } else {
                    bx
                };
            }
            k += 1;
        }
        Ok(())
    }

    /// The potentially colliding pairs from the pairs `ws.cands` that
    /// [`Scene::interval_pairs`] left. Without `taylor` (the interval query) they are all
    /// kept. With `taylor` (the Taylor-model world transforms of the needed links and the
    /// narrowed boxes of [`Scene::taylor_boxes`], coarse ones for links) each is tested
    /// again: two parts when their boxes overlap and [`Scene::apart_in_link_frames`] with
    /// the Taylor-model transforms does not cull them (tried while it pays, counted
    /// afresh), a part and the environment when its box meets an environment triangle box,
    /// again once a coarse box is narrowed by the corners' box ([`Scene::refine_box`]),
    /// and then some window's box ([`WINDOWS`] Taylor-model swept boxes over sub-intervals
    /// of the step, exact triangle tests) meets an environment triangle. (Two links' coarse
    /// boxes are not refined: on `panda-planner` the corners' boxes of both cost more than
    /// the hull CA runs of the pairs they would cull.) The sweeps stay in `ws.envs` for the narrow
    /// phase, which needs the same windows.
    fn potential_pairs(
        &self,
        ws: &mut Workspace,
        opts: &QueryOptions,
        stats: &mut Stats,
        taylor: Option<&[Vec<Option<Transform<TaylorModel>>>]>,
    ) {
        ws.pcls.clear();
        let mut cands = std::mem::take(&mut ws.cands);
        ws.frames.clear();
        ws.frames.resize(ws.boxes.len(), None);
        for &Cand { i, j, one_tree } in &cands {
            let (pa, ba) = ws.boxes[i];
            let keep = match (taylor, j) {
                (None, _) => true,
                // (boxes narrowed only when the links' Taylor models were computed anyway)
                (Some(_), Some(j)) if one_tree && !turned(&ws.turns, pa, ws.boxes[j].0) => {
                    ba.overlaps(&ws.boxes[j].1)
                }
                (Some(w), None) => self.environment().is_some_and(|env| {
                    env_meets_box(env, self.env_boxes(), &ba, &mut ws.stack)
                        && (!self.refine_box(ws, w, i, opts.tolerance)
                            || env_meets_box(env, self.env_boxes(), &ws.boxes[i].1, &mut ws.stack))
                        && self.some_window_meets_environment(ws, w, pa, opts.tolerance)
                }),
                (Some(w), Some(j)) => {
                    let (pb, bb) = ws.boxes[j];
                    ba.overlaps(&bb) && {
                        let trial = ws.second_level.try_next();
                        let apart = trial
                            && self.apart_in_link_frames(
                                w,
                                &mut ws.frames,
                                (i, pa),
                                (j, pb),
                                opts.tolerance,
                            );
                        if trial {
                            ws.second_level.record(apart);
                        }
                        !apart
                    }
                }
            };
            if keep {
                ws.pcls.push(Pcl {
                    a: pa,
                    b: j.map_or(Part::Environment, |j| ws.boxes[j].0),
                    lower: 0.0,
                });
            }
        }
        cands.clear();
        ws.cands = cands;
        stats.pairs_after_spatial = ws.pcls.len() as u64;
    }

    /// Narrows the coarse Taylor-model box of part `k` of `ws.boxes` (a link's, from
    /// [`Transform::aabb_of_centred`]) by the box of its OBB corners' trajectories
    /// ([`Transform::aabb_of_corners`], with the link's world transform in `world`); whether
    /// the box changed (false when it was not coarse: nothing to test again).
    fn refine_box(
        &self,
        ws: &mut Workspace,
        world: &[Vec<Option<Transform<TaylorModel>>>],
        k: usize,
        eps: f64,
    ) -> bool {
        if !std::mem::replace(&mut ws.coarse[k], false) {
            return false;
        }
        if let Part::Link { body, link } = ws.boxes[k].0
            && let Some(w) = world.get(body).and_then(|b| b.get(link.index()))
            && let Some(w) = w.as_ref()
            && let Some(shape) = self.bodies.get(body).and_then(|b| b.link_shape(link))
        {
            let bx = w.aabb_of_corners(shape.obb_corners()).inflate(0.5 * eps);
            ws.boxes[k].1 = narrowed(ws.boxes[k].1, bx);
            return true;
        }
        false
    }

    /// Whether some time window's Taylor-model swept box of part `p` meets an environment
    /// triangle (its sweep is added to `ws.envs`, built from the Taylor-model world
    /// transforms `world` of the query); true when the sweep cannot be built (the narrow
    /// phase reports the error).
    fn some_window_meets_environment(
        &self,
        ws: &mut Workspace,
        world: &[Vec<Option<Transform<TaylorModel>>>],
        p: Part,
        eps: f64,
    ) -> bool {
        let Some(env) = self.environment() else {
            return false;
        };
        let i = match ws.envs.iter().position(|e| e.part == p) {
            Some(i) => i,
            None => match self.env_sweep(&ws.motions, world, p, eps) {
                Ok(sweep) => {
                    ws.envs.push(EnvSweep {
                        part: p,
                        sweep,
                        windows: [None; WINDOWS],
                    });
                    ws.envs.len() - 1
                }
                Err(_) => return true,
            },
        };
        ws.envs[i]
            .first_hit(0, (env, self.env_boxes()), &mut ws.stack)
            .is_some()
    }

    /// Second-level spatial culling of two parts (at `i` and `j` in `ws.boxes`) whose world
    /// swept boxes overlap: true when they certainly stay more than `eps` apart over the
    /// step. Both must be links whose bodies' world enclosures are in `worlds` (else false:
    /// the pair is kept). Each link's world transform is bounded entry by entry over the
    /// step once per query (`frames`, interval arithmetic, also for Taylor-model worlds:
    /// refining with the Taylor models' relative motion culled more but cost more than it
    /// saved); the relative motion of `b`'s link frame in `a`'s
    /// ([`Transform::inverse_compose`]) and the reverse motion carry each side's rounded
    /// boxes ([`crate::body::Piece`]) into the frame of the other side's ([`apart_by`]).
    /// World-aligned boxes of long, slanted or crossing links overlap where these do not.
    fn apart_in_link_frames<E: Enclosure>(
        &self,
        worlds: &[Vec<Option<Transform<E>>>],
        frames: &mut [Option<Transform<Interval>>],
        (i, a): (usize, Part),
        (j, b): (usize, Part),
        eps: f64,
    ) -> bool {
        let side = |p: Part| match p {
            Part::Link { body, link } => Some((
                worlds.get(body)?.get(link.index())?.as_ref()?,
                self.bodies.get(body)?.link_shape(link)?.pieces(),
            )),
            _ => None,
        };
        let (Some((wa, pa)), Some((wb, pb))) = (side(a), side(b)) else {
            return false;
        };
        let mut frame = |k: usize, w: &Transform<E>| -> Option<Transform<Interval>> {
            let f = frames.get_mut(k)?;
            Some(*f.get_or_insert_with(|| bounded(w)))
        };
        let (Some(fa), Some(fb)) = (frame(i, wa), frame(j, wb)) else {
            return false;
        };
        relative(&fa, &fb).is_some_and(|m| apart_by(&m, pa, pb, eps))
    }

    /// The world motion of part `p` (a link or a rigid body) over the step as order-3
    /// Taylor models (the chain's relative motions composed as in Eq. 1), with its OBB
    /// corners, for its swept boxes per time window.
    fn env_sweep(
        &self,
        motions: &[ArticulatedMotion],
        cached: &[Vec<Option<Transform<TaylorModel>>>],
        p: Part,
        eps: f64,
    ) -> Result<Sweep, ArticulatedError> {
        let (world, corners): (Transform<TaylorModel>, &[DVec3; 8]) = match p {
            Part::Link { body, link } => {
                let (b, m) = self
                    .bodies
                    .get(body)
                    .zip(motions.get(body))
                    .ok_or(ArticulatedError::UnknownPart(p))?;
                let shape = b.link_shape(link).ok_or(ArticulatedError::UnknownPart(p))?;
                if let Some(w) = cached
                    .get(body)
                    .and_then(|w| w.get(link.index()))
                    .and_then(Option::as_ref)
                {
                    return Ok(Sweep {
                        world: *w,
                        corners: *shape.obb_corners(),
                        margin: 0.5 * eps * (1.0 + 1e-9),
                    });
                }
                let links = b.model().links();
                // the chain from the root down to the link, composed as in Eq. 1
                let mut chain = vec![link];
                while let Some(parent) = links[chain[chain.len() - 1].index()].parent {
                    chain.push(parent);
                }
                let mut world: Option<Transform<TaylorModel>> = None;
                for &j in chain.iter().rev() {
                    let rel = &m.relatives()[j.index()];
                    world = Some(
                        match world {
                            Some(w) => chain_step(&w, rel),
                            None => rel.enclosure::<TaylorModel>(Interval::UNIT),
                        }
                        .map_err(|source| ArticulatedError::Motion { body, source })?,
                    );
                }
                (
                    world.ok_or(ArticulatedError::UnknownPart(p))?,
                    shape.obb_corners(),
                )
            }
            Part::Rigid(i) => {
                let r = self.rigid.get(i).ok_or(ArticulatedError::UnknownPart(p))?;
                (
                    r.motion.enclosure::<TaylorModel>(Interval::UNIT)?,
                    &r.corners,
                )
            }
            Part::Environment => return Err(ArticulatedError::UnknownPart(p)),
        };
        Ok(Sweep {
            world,
            corners: *corners,
            margin: 0.5 * eps * (1.0 + 1e-9),
        })
    }

    fn part_body(&self, p: Part) -> Result<&RigidBody, ArticulatedError> {
        let body = match p {
            Part::Link { body, link } => self
                .bodies
                .get(body)
                .and_then(|b| b.link_shape(link))
                .map(LinkShape::body),
            Part::Rigid(i) => self.rigid.get(i).map(|r| &r.body),
            Part::Environment => self.environment(),
        };
        body.ok_or(ArticulatedError::UnknownPart(p))
    }

    fn mover<'s>(
        &'s self,
        motions: &'s [ArticulatedMotion],
        p: Part,
        base: Option<LinkId>,
    ) -> Result<Mover<'s>, ArticulatedError> {
        match p {
            Part::Link { body, link } => self
                .bodies
                .get(body)
                .zip(motions.get(body))
                .and_then(|(b, m)| Mover::link(b.model(), m, link, base))
                .ok_or(ArticulatedError::UnknownPart(p)),
            Part::Rigid(i) => self
                .rigid
                .get(i)
                .map(|r| Mover::Rigid(&r.motion))
                .ok_or(ArticulatedError::UnknownPart(p)),
            Part::Environment => Ok(Mover::Static),
        }
    }

    /// The two sides of a pair with their motions. Two links of one body are seen from the
    /// frame of their deepest common ancestor (returned with the body): the motion they
    /// share does not change their distance and stays out of the bounds.
    pub(crate) fn pair<'s>(
        &'s self,
        motions: &'s [ArticulatedMotion],
        pcl: &Pcl,
    ) -> Result<(&'s RigidBody, &'s RigidBody, MoverPair<'s>, Frame), ArticulatedError> {
        let (a, b) = (self.part_body(pcl.a)?, self.part_body(pcl.b)?);
        let frame = match (pcl.a, pcl.b) {
            (Part::Link { body: x, link: la }, Part::Link { body: y, link: lb }) if x == y => {
                let model = self
                    .bodies
                    .get(x)
                    .ok_or(ArticulatedError::UnknownPart(pcl.a))?
                    .model();
                common_ancestor(model, la, lb).map(|base| (x, base))
            }
            _ => None,
        };
        let base = frame.map(|(_, l)| l);
        let pair = MoverPair(
            self.mover(motions, pcl.a, base)?,
            self.mover(motions, pcl.b, base)?,
        );
        Ok((a, b, pair, frame))
    }

    /// Lower bounds, sorting and CA with temporal culling (CATCH Alg. 1).
    ///
    /// `cached`: `ws.world` holds Taylor-model world transforms of links of this query's
    /// motions (`None` where not computed), composed as the full query composes them, and
    /// the environment sweeps start from them.
    pub(crate) fn narrow_phase(
        &self,
        ws: &mut Workspace,
        opts: &QueryOptions,
        out: &mut QueryResult,
        cached: bool,
    ) -> Result<(), ArticulatedError> {
        ws.envs.clear();
        self.narrow_phase_with(ws, opts, out, cached)
    }

    /// [`Scene::narrow_phase`]; `cached`: `ws.world` holds this query's Taylor-model world
    /// transforms of every body's links (else they are composed where needed).
    fn narrow_phase_with(
        &self,
        ws: &mut Workspace,
        opts: &QueryOptions,
        out: &mut QueryResult,
        cached: bool,
    ) -> Result<(), ArticulatedError> {
        let ca = CaOptions::default()
            .with_tolerance(opts.tolerance)
            .with_max_iterations(opts.max_iterations);
        let Workspace {
            motions,
            pcls,
            scratch,
            stack,
            world,
            envs,
            known,
            order,
            directions,
            ..
        } = ws;
        directions.clear();
        let world: &[Vec<Option<Transform<TaylorModel>>>] = if cached { world } else { &[] };
        // the sweep of part `a` against the environment (computed once per query)
        let env_entry = |envs: &mut Vec<EnvSweep>, a: Part| -> Result<usize, ArticulatedError> {
            if let Some(i) = envs.iter().position(|e| e.part == a) {
                return Ok(i);
            }
            let sweep = self.env_sweep(motions, world, a, opts.tolerance)?;
            envs.push(EnvSweep {
                part: a,
                sweep,
                windows: [None; WINDOWS],
            });
            Ok(envs.len() - 1)
        };
        let culling = opts.temporal_culling || opts.mode == Mode::All;
        // the lower bound of a pair's time of contact (CATCH Alg. 1, step 1): hull CA; the
        // start of the first time window of an environment pair whose swept box meets an
        // environment triangle; else the first mesh CA step when a side has no hull.
        // With `first`, hull CA runs one iteration: its outcome is that of the full run
        // (touching or free at once), or else the full run's first iterate, a lower bound of
        // the full run's result (`Lower::Partial`; CA only advances).
        let lower_of = |pcl: &Pcl,
                        first: bool,
                        envs: &mut Vec<EnvSweep>,
                        stack: &mut Vec<u32>,
                        scratch: &mut BoundedScratch,
                        stats: &mut Stats,
                        directions: &mut Vec<(Part, Part, DVec3)>|
         -> Result<(Lower, f64), ArticulatedError> {
            let (a, b, pair, _) = self.pair(motions, pcl)?;
            let bound = if pcl.b == Part::Environment {
                let i = env_entry(envs, pcl.a)?;
                let env = (self.part_body(Part::Environment)?, self.env_boxes());
                envs[i]
                    .first_hit(0, env, stack)
                    .map(|k| k as f64 / WINDOWS as f64)
            } else if a.hull().is_some() && b.hull().is_some() {
                let opts = if first { ca.with_max_iterations(1) } else { ca };
                let mut n = DVec3::ZERO;
                let r = time_of_contact_convex_bounded_with_direction(
                    a, b, &pair, 0.0, 1.0, &opts, &mut n,
                )?;
                match r {
                    Some(c) if first && c.status == Status::OutOfIterations => {
                        return Ok((Lower::Partial, c.toc));
                    }
                    Some(c) => {
                        stats.hull_iterations += u64::from(c.stats.iterations);
                        Some(c.toc)
                    }
                    None => {
                        // (the adaptive query's separation certificate for the next step)
                        if n != DVec3::ZERO {
                            directions.push((pcl.a, pcl.b, n));
                        }
                        None
                    }
                }
            } else {
                let first = ca.with_max_iterations(1);
                let r = time_of_contact_bounded(a, b, &pair, 0.0, 1.0, &first, scratch)?;
                stats.ca_iterations += 1;
                match r {
                    Some(c) if c.status == Status::OutOfIterations => Some(c.toc),
                    Some(_) => Some(0.0),
                    None => None,
                }
            };
            Ok(bound.map_or((Lower::Free, 0.0), |l| (Lower::Known, l)))
        };
        // With temporal culling the pairs run in the order of their lower bounds, ties in
        // the order of the pair list (a stable sort), each until the running minimum
        // `t_min` stops the loop. The bounds are computed lazily: a pair whose bound is not
        // known yet stands in the queue with a lower bound of it (0, then the first hull CA
        // iterate) and gets its bound when it comes first; only a known bound lets a pair
        // run. A pair then runs only once every pair before it in the queue has a known
        // bound that is no smaller (or a smaller one and has run), so the pairs run in
        // exactly the order of the sorted bounds, with the same bounds; the pairs the loop
        // never reaches (after a contact at `t = 0`, most of them) never complete theirs.
        // In Boolean mode a pair's bound is computed whole when it first comes up: any
        // contact ends the query, so the order only decides which one, and the first
        // iterate would be computed twice for every pair that goes on.
        // Environment pairs get theirs at once: their windows were tested by spatial
        // culling, and the pairs left in `ws.pcls` (the adaptive query reads them) keep
        // every environment pair not proven free.
        known.clear();
        order.clear();
        if culling {
            for (k, pcl) in pcls.iter_mut().enumerate() {
                let state = if pcl.b == Part::Environment {
                    let (state, l) =
                        lower_of(pcl, false, envs, stack, scratch, &mut out.stats, directions)?;
                    pcl.lower = l;
                    state
                } else {
                    pcl.lower = 0.0;
                    Lower::Unknown
                };
                if state != Lower::Free {
                    order.push(std::cmp::Reverse(Queued(pcl.lower, k)));
                }
                known.push(state);
            }
        }
        let stats = &mut out.stats;
        let contact_of = |pcl: &Pcl, mut c: Contact| {
            if c.status == Status::InitiallyTouching && c.toc > 0.0 {
                c.status = Status::Converged;
            }
            PairContact {
                a: pcl.a,
                b: pcl.b,
                contact: c,
            }
        };
        // step 3: CA in that order with the running minimum
        let mut t_min = 1.0f64;
        let mut plain = 0..if culling { 0 } else { pcls.len() };
        loop {
            let next = if culling {
                order.pop().map(|std::cmp::Reverse(Queued(_, k))| k)
            } else {
                plain.next()
            };
            let Some(k) = next else { break };
            let pcl = pcls[k];
            let end = if opts.mode == Mode::All || !opts.temporal_culling {
                1.0
            } else {
                t_min
            };
            // sorted: every later pair starts later still. Once a contact holds `t_min`, a
            // pair whose lower bound reaches it can only tie (its TOC is at least its lower
            // bound, and a tie does not replace the first contact), so it is not run: resting
            // contacts (lower bound 0 everywhere) then cost one CA, not one per pair. (A
            // bound not known yet stands as 0, below its pair's bound: the test is sound.)
            let tied = opts.mode == Mode::Toc
                && opts.temporal_culling
                && !out.contacts.is_empty()
                && pcl.lower >= end;
            if pcl.lower > end || tied {
                break;
            }
            if culling && known[k] != Lower::Known {
                let first = known[k] == Lower::Unknown && opts.mode != Mode::Boolean;
                let (state, l) = lower_of(&pcl, first, envs, stack, scratch, stats, directions)?;
                known[k] = state;
                if state != Lower::Free {
                    pcls[k].lower = l;
                    order.push(std::cmp::Reverse(Queued(l, k)));
                }
                continue;
            }
            let (a, b, pair, frame) = self.pair(motions, &pcl)?;
            stats.pairs_after_temporal += 1;
            let r = if pcl.b == Part::Environment {
                let i = env_entry(envs, pcl.a)?;
                let env = (self.part_body(Part::Environment)?, self.env_boxes());
                env_ca(
                    a,
                    &pair,
                    &mut envs[i],
                    env,
                    self.env_pieces(),
                    stack,
                    pcl.lower,
                    end,
                    &ca,
                    scratch,
                    &mut stats.hull_iterations,
                )?
            } else {
                time_of_contact_bounded(a, b, &pair, pcl.lower, end, &ca, scratch)?
            };
            let Some(mut c) = r else { continue };
            stats.ca_iterations += u64::from(c.stats.iterations);
            if let Some((body, base)) = frame {
                // witnesses and normal from the common ancestor's frame to the world
                let w = pose_below(self.bodies[body].model(), &motions[body], base, None, c.toc);
                c.point_a = w.transform_point3(c.point_a);
                c.point_b = w.transform_point3(c.point_b);
                c.normal = w.transform_vector3(c.normal);
            }
            let pc = contact_of(&pcl, c);
            match opts.mode {
                Mode::All => out.contacts.push(pc),
                Mode::Boolean => {
                    out.contacts.push(pc);
                    break;
                }
                Mode::Toc => {
                    if pc.contact.toc < t_min || out.contacts.is_empty() {
                        t_min = t_min.min(pc.contact.toc);
                        out.contacts.clear();
                        out.contacts.push(pc);
                    }
                }
            }
        }
        if culling {
            // the pairs left: those not proven free (in the order of the pair list)
            let mut k = 0;
            pcls.retain(|_| {
                k += 1;
                known[k - 1] != Lower::Free
            });
        }
        out.contacts
            .sort_by(|x, y| x.contact.toc.total_cmp(&y.contact.toc));
        Ok(())
    }
}

pub(crate) fn check_options(opts: &QueryOptions) -> Result<(), ArticulatedError> {
    // the per-link CA's domain (`ccd_ca_rigid::MIN_TOLERANCE`), checked here so that a query
    // refuses such a tolerance whether or not a pair reaches the narrow phase (a fuzz
    // finding: 1e-311 was refused by the full query, whose CA ran, and accepted by the
    // adaptive one, whose boxes culled every pair)
    if !(opts.tolerance >= ccd_ca_rigid::MIN_TOLERANCE && opts.tolerance.is_finite()) {
        return Err(ArticulatedError::InvalidOptions(format!(
            "tolerance {} must be finite and at least {:e}",
            opts.tolerance,
            ccd_ca_rigid::MIN_TOLERANCE
        )));
    }
    if opts.max_iterations == 0 {
        return Err(ArticulatedError::InvalidOptions(
            "max_iterations must be at least 1".into(),
        ));
    }
    if opts.segment_turn.is_nan() || opts.segment_turn <= 0.0 {
        return Err(ArticulatedError::InvalidOptions(format!(
            "segment_turn {} must be positive (f64::INFINITY: no splitting)",
            opts.segment_turn
        )));
    }
    Ok(())
}

/// Whether some environment triangle's box overlaps `bx` (conservative: false only when
/// none can).
pub(crate) fn env_overlaps(env: &RigidBody, bx: &Aabb, ws: &mut ccd_bvh::Workspace) -> bool {
    let q = Rss::fit_points(&bx.corners());
    let mesh = env.mesh_bvh();
    let mut found = false;
    mesh.bvh().traverse(
        ws,
        |bv| bv.overlaps(&q, &DAffine3::IDENTITY),
        |p| {
            let t = mesh.mesh().triangle(p as usize);
            let tb = Aabb::from_points([t.a, t.b, t.c]);
            if tb.overlaps(bx) {
                found = true;
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        },
    );
    found
}

/// The sweep of a part against the environment with its window boxes, each computed and
/// tested on first use.
#[derive(Debug)]
struct EnvSweep {
    part: Part,
    sweep: Sweep,
    /// Per window: not yet tested (`None`), free (`Some(None)`), or its swept box, which
    /// meets some environment triangle.
    windows: [Option<Option<Aabb>>; WINDOWS],
}

impl EnvSweep {
    /// Window `k`'s swept box when it meets some triangle of the environment `env` (its
    /// body and node boxes), `None` when the window is free.
    fn window(
        &mut self,
        k: usize,
        env: (&RigidBody, &[Aabb]),
        stack: &mut Vec<u32>,
    ) -> Option<Aabb> {
        *self.windows[k].get_or_insert_with(|| {
            let bx = self.sweep.window_box(k);
            env_meets_box(env.0, env.1, &bx, stack).then_some(bx)
        })
    }

    /// The first window from `k` on whose swept box meets the environment.
    fn first_hit(
        &mut self,
        k: usize,
        env: (&RigidBody, &[Aabb]),
        stack: &mut Vec<u32>,
    ) -> Option<usize> {
        (k..WINDOWS).find(|&j| self.window(j, env, stack).is_some())
    }
}

/// A part's world motion over the step as Taylor models, for its swept box per window.
#[derive(Debug)]
struct Sweep {
    world: Transform<TaylorModel>,
    corners: [DVec3; 8],
    /// `ε/2` and a relative allowance for the rounding of the inflation.
    margin: f64,
}

impl Sweep {
    /// The part's swept box over window `k` of [`WINDOWS`] equal windows of the step (the
    /// Taylor models restricted to the window), grown by `ε/2`.
    fn window_box(&self, k: usize) -> Aabb {
        let w = Interval::new(k as f64 / WINDOWS as f64, (k + 1) as f64 / WINDOWS as f64);
        // (the windows lie in the step: a failed restriction, not expected, falls back to
        // the whole step's box, which holds the window's)
        self.world
            .restrict(w)
            .as_ref()
            .unwrap_or(&self.world)
            .aabb_of_corners(&self.corners)
            .inflate(self.margin)
    }
}

/// Mesh CA of part `a` against the environment (`env`: its body and node boxes) over
/// `[start, end]`, run only over the time windows whose swept boxes meet some environment
/// triangle (consecutive ones merged into one window search), each restricted to the
/// triangles inside its boxes: the windows whose boxes meet none are free. The first contact
/// found is the pair's (every window before it is free). Boxes are computed as the search
/// reaches their windows. Each window search first goes through the pieces' hull screen
/// (`pieces`, see [`crate::env_pieces`]): skipped when every piece its box meets is proven
/// free, else started at the earliest hull contact and restricted to the box of the
/// pieces not proven free.
#[allow(clippy::too_many_arguments)]
fn env_ca(
    a: &RigidBody,
    pair: &MoverPair<'_>,
    sweep: &mut EnvSweep,
    (env, env_boxes): (&RigidBody, &[Aabb]),
    pieces: &EnvPieces,
    stack: &mut Vec<u32>,
    start: f64,
    end: f64,
    ca: &CaOptions,
    scratch: &mut BoundedScratch,
    hull_iterations: &mut u64,
) -> Result<Option<Contact>, ArticulatedError> {
    let mut hit = |k: usize| sweep.window(k, (env, env_boxes), stack);
    let w = WINDOWS as f64;
    // windows are [k/W, (k+1)/W]; the search starts in the one holding `start`
    let mut k = ((start * w) as usize).min(WINDOWS - 1);
    while k < WINDOWS && (k as f64 / w) < end {
        let Some(mut region) = hit(k) else {
            k += 1;
            continue;
        };
        // the run k..m of consecutive windows whose boxes meet the environment (window m,
        // when tested, is free)
        let mut m = k + 1;
        while m < WINDOWS && (m as f64 / w) < end {
            match hit(m) {
                Some(bx) => {
                    region = region.merge(bx);
                    m += 1;
                }
                None => break,
            }
        }
        let (mut from, to) = ((k as f64 / w).max(start), (m as f64 / w).min(end));
        if from < to && !pieces.is_empty() {
            match pieces.screen(a, pair, from, to, &region, ca, hull_iterations) {
                Screened::Free => from = to,
                Screened::Search { from: f, region: r } => (from, region) = (f, r),
            }
        }
        if from < to
            && let Some(c) =
                time_of_contact_bounded_within(a, env, pair, from, to, &region, ca, scratch)?
        {
            return Ok(Some(c));
        }
        k = m + 1;
    }
    Ok(None)
}

/// Whether some triangle of the environment `env` meets `bx` (its node boxes `boxes`
/// tested top-down, then each triangle by an exact separating-axis test grown by a rounding
/// allowance: false only when none can).
fn env_meets_box(env: &RigidBody, boxes: &[Aabb], bx: &Aabb, stack: &mut Vec<u32>) -> bool {
    let mesh = env.mesh_bvh();
    let bvh = mesh.bvh();
    if boxes.len() != bvh.node_count() || boxes.is_empty() {
        return true; // (not expected: the boxes are built with the environment)
    }
    stack.clear();
    stack.push(0);
    while let Some(i) = stack.pop() {
        if !boxes[i as usize].overlaps(bx) {
            continue;
        }
        match bvh.node(i).children() {
            Some([l, r]) => stack.extend([l, r]),
            None => {
                for &p in bvh.node_primitives(i) {
                    let t = mesh.mesh().triangle(p as usize);
                    if triangle_meets_box(t.a, t.b, t.c, bx) {
                        return true;
                    }
                }
            }
        }
    }
    false
}

/// Fills `boxes[i]` and its subtree's boxes with the exact boxes of their triangles.
pub(crate) fn fit_node_box(mesh: &MeshBvh<Rss>, i: u32, boxes: &mut [Aabb]) -> Aabb {
    let b = match mesh.bvh().node(i).children() {
        Some([l, r]) => fit_node_box(mesh, l, boxes).merge(fit_node_box(mesh, r, boxes)),
        None => mesh
            .bvh()
            .node_primitives(i)
            .iter()
            .fold(Aabb::EMPTY, |b, &p| {
                let t = mesh.mesh().triangle(p as usize);
                b.merge(Aabb::from_points([t.a, t.b, t.c]))
            }),
    };
    boxes[i as usize] = b;
    b
}

/// Whether triangle `abc` meets the box `bx` (separating-axis test on the 13 axes: the box
/// normals, the triangle normal and the 9 edge cross products), with every separation
/// required to exceed a rounding allowance (`1e-12` times the coordinate scale): false only
/// when they are certainly apart.
fn triangle_meets_box(a: DVec3, b: DVec3, c: DVec3, bx: &Aabb) -> bool {
    let tb = Aabb::from_points([a, b, c]);
    if !tb.overlaps(bx) {
        return false;
    }
    let centre = bx.center();
    let h = 0.5 * (bx.max - bx.min);
    let (a, b, c) = (a - centre, b - centre, c - centre);
    let scale = a.abs().max(b.abs()).max(c.abs()).max_element() + h.max_element();
    let slack = 1e-12 * scale;
    let (e0, e1, e2) = (b - a, c - b, a - c);
    // separated along `n` when the triangle's projection clears the box's by the allowance
    let apart = |n: DVec3| {
        let (pa, pb, pc) = (n.dot(a), n.dot(b), n.dot(c));
        let r = h.x * n.x.abs() + h.y * n.y.abs() + h.z * n.z.abs();
        let m = slack * (n.x.abs() + n.y.abs() + n.z.abs());
        pa.min(pb).min(pc) > r + m || pa.max(pb).max(pc) < -r - m
    };
    for e in [e0, e1, e2] {
        for axis in [DVec3::X, DVec3::Y, DVec3::Z] {
            if apart(axis.cross(e)) {
                return false;
            }
        }
    }
    !apart(e0.cross(e1))
}

/// The motion of body `i` for its step, with typed errors naming the body.
pub(crate) fn body_motion(
    i: usize,
    body: &ArticulatedBody,
    step: &BodyStep<'_>,
) -> Result<ArticulatedMotion, ArticulatedError> {
    let model = body.model();
    let motion_err = |source| ArticulatedError::Motion { body: i, source };
    match *step {
        BodyStep::Joints { q0, q1 } => {
            let pose = |q: &[f64], which: &'static str| {
                model.pose_from_joints(q).map_err(|e| match e {
                    KinematicsError::JointCount { expected, got } => ArticulatedError::JointCount {
                        body: i,
                        which,
                        expected,
                        got,
                    },
                    KinematicsError::InvalidJointValue { link, value } => {
                        ArticulatedError::InvalidJointValue {
                            body: i,
                            which,
                            link,
                            value,
                        }
                    }
                    other => motion_err(other),
                })
            };
            // validated one by one for errors that say which vector is wrong
            pose(q0, "start")?;
            pose(q1, "end")?;
            ArticulatedMotion::from_joints(model, q0, q1).map_err(motion_err)
        }
        BodyStep::Poses { p0, p1 } => {
            for p in [p0, p1] {
                // re-validate: a Pose's fields are public
                Pose::new(model, p.relative.clone()).map_err(motion_err)?;
            }
            ArticulatedMotion::between(model, p0, p1).map_err(motion_err)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (xorshift) for the sampled checks.
    fn rng(state: &mut u64) -> f64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        (*state >> 11) as f64 / (1u64 << 53) as f64
    }

    #[test]
    fn triangle_box_test_never_separates_meeting_sets() {
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        let mut r = |lo: f64, hi: f64| lo + (hi - lo) * rng(&mut s);
        let (mut met, mut apart) = (0, 0);
        for _ in 0..20_000 {
            let c = DVec3::new(r(-1.0, 1.0), r(-1.0, 1.0), r(-1.0, 1.0));
            let h = DVec3::new(r(0.01, 0.6), r(0.01, 0.6), r(0.01, 0.6));
            let bx = Aabb {
                min: c - h,
                max: c + h,
            };
            let mut p = || DVec3::new(r(-1.6, 1.6), r(-1.6, 1.6), r(-1.6, 1.6));
            let (a, b, t) = (p(), p(), p());
            if triangle_meets_box(a, b, t, &bx) {
                met += 1;
                continue;
            }
            apart += 1;
            // no point of the triangle (on a barycentric grid) lies in the box
            for i in 0..=24 {
                for j in 0..=24 - i {
                    let (u, v) = (f64::from(i) / 24.0, f64::from(j) / 24.0);
                    let q = a + (b - a) * u + (t - a) * v;
                    assert!(!bx.contains_point(q), "{a} {b} {t} vs {bx:?}: {q} inside");
                }
            }
        }
        assert!(met > 1000 && apart > 1000, "{met} meeting, {apart} apart");
    }

    #[test]
    fn triangle_box_test_keeps_exact_touches() {
        let bx = Aabb {
            min: DVec3::ZERO,
            max: DVec3::ONE,
        };
        // a vertex on the corner, an edge along an edge, a face on a face, an edge crossing
        // a box edge diagonally; and a triangle whose box overlaps but that passes by the
        // corner (its plane x + y + z = 3.3 misses the box)
        let cases = [
            (
                [
                    DVec3::ONE,
                    DVec3::new(2.0, 1.5, 1.0),
                    DVec3::new(1.5, 2.0, 3.0),
                ],
                true,
            ),
            (
                [
                    DVec3::new(1.0, 0.0, 1.0),
                    DVec3::new(1.0, 1.0, 1.0),
                    DVec3::new(2.0, 0.5, 2.0),
                ],
                true,
            ),
            (
                [
                    DVec3::new(0.2, 0.2, 1.0),
                    DVec3::new(0.8, 0.2, 1.0),
                    DVec3::new(0.5, 0.9, 1.0),
                ],
                true,
            ),
            (
                [
                    DVec3::new(1.5, 0.5, 1.0),
                    DVec3::new(0.5, 1.5, 1.0),
                    DVec3::new(1.5, 1.5, 3.0),
                ],
                true,
            ),
            (
                [
                    DVec3::new(2.3, 0.5, 0.5),
                    DVec3::new(0.5, 2.3, 0.5),
                    DVec3::new(0.5, 0.5, 2.3),
                ],
                false,
            ),
        ];
        for ([a, b, c], meets) in cases {
            assert_eq!(triangle_meets_box(a, b, c, &bx), meets, "{a} {b} {c}");
        }
    }
}
