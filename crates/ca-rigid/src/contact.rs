//! Query options and results.

use ccd_geometry::Feature;
use glam::DVec3;

/// What a query computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Mode {
    /// The first time of contact (CATCH, Sec. 3.3).
    #[default]
    Toc,
    /// Only whether the path is collision-free: returns as soon as contact within the
    /// tolerance is certain somewhere in `[0, 1]` (the end pose is checked first), or the
    /// path is proven free. The reported `toc` is then a time at which the bodies are within
    /// the tolerance, not necessarily the first.
    Boolean,
}

/// Options of a CA query.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct CaOptions {
    /// Absolute distance tolerance `ε` (default `1e-3`): contact is reported when the
    /// distance falls to `ε` or below.
    pub tolerance: f64,
    /// Cap on CA iterations (default 1000); hitting it gives [`Status::OutOfIterations`].
    pub max_iterations: u32,
    /// [`Mode::Toc`] or [`Mode::Boolean`].
    pub mode: Mode,
}

impl Default for CaOptions {
    fn default() -> Self {
        Self {
            tolerance: 1e-3,
            max_iterations: 1000,
            mode: Mode::Toc,
        }
    }
}

/// How a query ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Status {
    /// The distance fell to the tolerance: `toc` is the time of contact (within `ε`).
    Converged,
    /// The iteration cap was hit before convergence: `toc` is a conservative lower bound of
    /// the time of contact (the bodies are separated on `[0, toc)`), and contact may or may
    /// not happen later in the step. The witnesses and `distance` are those of the closest
    /// pair found by the last evaluation (at the previous iterate, before `toc`).
    OutOfIterations,
    /// The bodies are within the tolerance at `t = 0`.
    InitiallyTouching,
    /// The advancement stopped making progress: the certified step from `toc` is below the
    /// resolution of `t` (or not positive), which happens when the tolerance is below what
    /// `f64` resolves at the query's coordinate scale (about `1e-12` of it: see
    /// [`time_of_contact`](crate::time_of_contact)) and the bodies come that close. Like
    /// [`OutOfIterations`](Self::OutOfIterations), `toc` is a conservative lower bound
    /// (separated on `[0, toc]`, distance above `ε` at `toc`), and the witnesses are the
    /// closest pair at `toc`. Reported instead of spinning to the iteration cap.
    Stalled,
}

/// Counters of a query (the papers' tables report them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Stats {
    /// CA iterations (distance evaluations).
    pub iterations: u32,
    /// Bounding-volume pair tests.
    pub bv_tests: u64,
    /// Triangle–triangle distance evaluations.
    pub primitive_tests: u64,
}

/// A time of contact with its witnesses.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Contact {
    /// Time of contact in `[0, 1]`.
    pub toc: f64,
    /// Witness point on body A at `toc` (world frame).
    pub point_a: DVec3,
    /// Witness point on body B at `toc` (world frame).
    pub point_b: DVec3,
    /// Unit direction from A to B at `toc` (world frame; arbitrary when the points
    /// coincide).
    pub normal: DVec3,
    /// Distance between the witnesses at `toc`, always finite: `≤ ε` unless
    /// `OutOfIterations` or `Stalled`; with `OutOfIterations` the witnesses are the closest
    /// pair at `toc`, with `Stalled` the closest pair the last evaluation found (or the
    /// closest pair at `toc` when it found none).
    pub distance: f64,
    /// Feature of A's mesh carrying `point_a` (indices into the caller's mesh).
    pub feature_a: Feature,
    /// Feature of B's mesh carrying `point_b`.
    pub feature_b: Feature,
    /// How the query ended.
    pub status: Status,
    /// Counters.
    pub stats: Stats,
}

impl Contact {
    /// The same contact with the roles of the bodies swapped (witnesses and features
    /// exchanged, normal reversed).
    #[must_use]
    pub(crate) fn swapped(self) -> Self {
        Self {
            point_a: self.point_b,
            point_b: self.point_a,
            normal: -self.normal,
            feature_a: self.feature_b,
            feature_b: self.feature_a,
            ..self
        }
    }
}
