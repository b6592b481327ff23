//! How the adaptive query answers a step (see [`AdaptiveScene`](crate::AdaptiveScene),
//! "Large motions"): the step's paths and the thresholds that choose between the interval
//! culling and the full query.

use crate::Part;
use crate::scene::Pcl;

/// How a step was answered (see [`AdaptiveScene`](crate::AdaptiveScene), "Large motions").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum StepPath {
    /// Interval culling, its pairs as they are.
    Adaptive,
    /// Interval culling, environment pairs refined with Taylor-model boxes.
    EnvRefined,
    /// Interval culling, every pair refined with Taylor-model boxes.
    Refined,
    /// The interval culling gave up; the full query answered.
    GaveUp,
    /// The full query answered without trying the interval culling.
    Full,
    /// The step started in contact: the full query's resting-contact probe answered it
    /// before any box was built, as it answers the full query.
    Resting,
}

/// Cached separating directions kept, in parts of the scene (more: the cache starts anew).
pub(super) const SEPARATIONS_PER_PART: usize = 8;

/// Candidate pairs after the interval culling above which they are refined with
/// Taylor-model boxes of their links, in parts of the scene (links with geometry and rigid
/// bodies; see [`AdaptiveScene`](crate::AdaptiveScene), "Large motions").
pub(super) const REFINE_PER_PART: usize = 3;

/// Candidate pairs, in parts of the scene, above which the interval culling gives up and
/// the step is answered by the full query (see [`AdaptiveScene`](crate::AdaptiveScene), "Large motions").
pub(super) const GIVE_UP_PER_PART: usize = 4;

/// Interval pairs per part of the scene expected in a step (extrapolated from the last
/// two adaptive steps) above which the step goes to the full query without trying the
/// interval culling (see [`AdaptiveScene`](crate::AdaptiveScene), "Large motions"). It trades a skipped try
/// that might have paid off against a try on a crowded step that costs more than the full
/// query; measured on the `wooden-men` sweep (with all joints active a larger value lets
/// crowded steps try and lose, while the 3-active ratio does not depend on it).
pub(super) const PREDICT_PER_PART: usize = 1;

/// Moving joints (root motions included), as a fraction `(num, den)` of the scene's links,
/// above which a step that follows one near contact ([`is_near`]) is answered by the full
/// query without trying the interval culling: when most joints move, every node box
/// changes and the culling saves no enclosure work, and near contact its looser boxes keep
/// more pairs than the full query's (see [`AdaptiveScene`](crate::AdaptiveScene), "Large motions"). Measured on
/// the `wooden-men` sweep: a larger fraction lets steps near contact with most joints
/// moving try the culling and exceed the full query's cost; the 3-active ratio does not
/// depend on it.
pub(super) const MOST_MOVING: (usize, usize) = (2, 3);

/// Culled pairs per part of the scene above which a step counts as near contact (see
/// [`MOST_MOVING`]).
const NEAR_PER_PART: usize = 1;

/// Interval-culling pairs counted for each pair the full query's culling kept, when a step
/// answered by the full query is judged near contact or not ([`is_near`]): near contact
/// with most joints moving, the interval boxes keep 4–6× the full query's pairs (wooden
/// men, 25 of 29 joints active, steps 16–19: 52 / 63 / 131 interval pairs against 8 / 14 /
/// 21), so a full step with 16 pairs is followed by an interval step keeping more than one
/// pair per part.
const INTERVAL_PER_FULL: usize = 4;

/// Whether a step whose culling kept `culled` interval pairs (or
/// [`INTERVAL_PER_FULL`] times the full query's count), `left` of them after the narrow
/// phase's lower bounds, was near contact: more than [`NEAR_PER_PART`] pairs per part, or
/// an environment pair the lower bounds did not prove free.
pub(super) fn is_near(culled: usize, parts: usize, left: &[Pcl]) -> bool {
    culled > NEAR_PER_PART * parts || left.iter().any(|p| p.b == Part::Environment)
}

/// [`is_near`] for a step answered by the full query, whose culling kept `culled` pairs.
pub(super) fn full_step_is_near(culled: usize, parts: usize, left: &[Pcl]) -> bool {
    is_near(culled.saturating_mul(INTERVAL_PER_FULL), parts, left)
}

/// Steps at most answered by the full query while at least as many joints move as in the
/// last step whose culling gave up (after two such steps in a row), before the interval
/// culling is tried again.
pub(super) const PROBE_EVERY: u32 = 64;

/// Steps answered by the full query after a step whose culling gave up, before the
/// interval culling is tried again (doubled after each such step in a row, up to 8×).
pub(super) const FULL_AFTER_GIVING_UP: u32 = 3;
