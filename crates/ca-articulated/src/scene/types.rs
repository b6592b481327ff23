//! The public vocabulary of a query: how bodies move ([`BodyStep`]), the parts of a
//! contact ([`Part`], [`PartPairContact`]), the options ([`QueryOptions`], [`EnclosureKind`],
//! their validation) and the answer ([`QueryResult`] with its [`ArticulatedStats`]).

use ccd_ca_rigid::Contact;
use ccd_geometry::Mode;
use ccd_kinematics::{LinkId, Pose};

use crate::ArticulatedError;

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
pub struct PartPairContact {
    /// The first part.
    pub a: Part,
    /// The second part (the environment is always second).
    pub b: Part,
    /// Time, witnesses, normal, distance, status and per-pair counters.
    pub contact: Contact,
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
    /// [`Status::OutOfIterations`](ccd_ca_rigid::Status::OutOfIterations) with a conservative lower bound.
    pub max_iterations: u32,
    /// The resting-contact probe (default on; [`Mode::Toc`] with temporal culling only): a
    /// step that starts in contact is answered by the narrow phase's first calls on the
    /// pairs before any swept box is built (the same time of contact, 0). Off: every step
    /// runs spatial and temporal culling, so [`ArticulatedStats`] counts CATCH's Table 2 pairs on
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
pub struct ArticulatedStats {
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

impl ArticulatedStats {
    /// Adds `other`'s counters to these (the sub-steps of a split step).
    pub(super) fn add(&mut self, other: &ArticulatedStats) {
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
    pub contacts: Vec<PartPairContact>,
    /// Counters.
    pub stats: ArticulatedStats,
}

impl QueryResult {
    /// The earliest contact, `None` when the step is collision-free.
    #[inline]
    #[must_use]
    pub fn first(&self) -> Option<&PartPairContact> {
        self.contacts.first()
    }
}

/// Validates a query's options: tolerance, iteration cap and `segment_turn`.
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
