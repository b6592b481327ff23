//! Options and results shared by the elementary kernels and the scene query.

use ccd_distance::Closest;
use ccd_geometry::Feature;
use ccd_geometry::glam::DVec3;

/// Default distance tolerance `ε` for deformable LA (the LA paper's setting).
pub const DEFAULT_TOLERANCE: f64 = 1e-6;

/// Default cap on LA iterations per elementary query.
pub const DEFAULT_MAX_ITERATIONS: u32 = 1000;

/// Settings of a local-advancement query.
///
/// `#[non_exhaustive]`: start from [`LaOptions::default`] and change what you need with the
/// `with_*` builders.
///
/// # Example
/// ```
/// use ccd_la_deformable::LaOptions;
///
/// let opts = LaOptions::default().with_tolerance(1e-4).with_max_iterations(50);
/// assert_eq!((opts.tolerance, opts.max_iterations), (1e-4, 50));
/// assert!(opts.validate().is_ok());
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct LaOptions {
    /// Absolute distance `ε`: a contact is reported once the features are closer than this.
    pub tolerance: f64,
    /// Cap on LA iterations per elementary query; hitting it reports a conservative
    /// contact with [`Status::OutOfIterations`].
    pub max_iterations: u32,
}

impl Default for LaOptions {
    fn default() -> Self {
        Self {
            tolerance: DEFAULT_TOLERANCE,
            max_iterations: DEFAULT_MAX_ITERATIONS,
        }
    }
}

impl LaOptions {
    /// The same options with tolerance `ε` (an absolute distance; checked by the query).
    #[must_use]
    pub fn with_tolerance(mut self, tolerance: f64) -> Self {
        self.tolerance = tolerance;
        self
    }

    /// The same options with another cap on LA iterations per elementary query.
    #[must_use]
    pub fn with_max_iterations(mut self, max_iterations: u32) -> Self {
        self.max_iterations = max_iterations;
        self
    }

    /// Checks the options.
    ///
    /// # Errors
    /// [`LaError::InvalidTolerance`](crate::LaError::InvalidTolerance) or
    /// [`LaError::NoIterations`](crate::LaError::NoIterations).
    pub fn validate(&self) -> Result<(), crate::LaError> {
        if !(self.tolerance.is_finite() && self.tolerance > 0.0) {
            return Err(crate::LaError::InvalidTolerance(self.tolerance));
        }
        if self.max_iterations == 0 {
            return Err(crate::LaError::NoIterations);
        }
        Ok(())
    }
}

/// How a query ended: the workspace's shared [`ccd_geometry::Status`] (LA queries end
/// `Converged`, `InitiallyTouching` or `OutOfIterations`, never `Stalled`).
pub use ccd_geometry::Status;

/// Result of an elementary LA query (vertex–face, edge–edge, triangle–triangle), with the
/// witness at `toc`.
///
/// The two features are called `a` and `b` in the order of the query's points: vertex–face
/// has `a` = the vertex and `b` = the face, edge–edge `a` = the first edge, triangle–triangle
/// `a` = the first triangle. The witness features in [`closest`](Self::closest) are **local**
/// ids in that order (see [`Closest`]): for a face `Vertex(0..=2)` are `f0, f1, f2`,
/// `Edge(i, j)` the edge between them and `Face(0)` the interior; for an edge `Vertex(0)`,
/// `Vertex(1)` and `Edge(0, 1)`.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct PrimitiveToc {
    /// Conservative time of contact in `[0, 1]`: the features do not touch before it.
    pub toc: f64,
    /// Distance between the features at `toc` (`< tolerance` unless out of iterations).
    pub distance: f64,
    /// LA iterations taken (distance evaluations).
    pub iterations: u32,
    /// How the query ended.
    pub status: Status,
    /// Closest points and the local features they lie on, at `toc` (`point_a` on feature
    /// `a`, `point_b` on feature `b`; `distance == closest.distance`).
    pub closest: Closest,
    /// Unit contact normal at `toc`, pointing from feature `a` to feature `b`: the direction
    /// of the last LA step (the face normal for a vertex–face interior witness, the common
    /// perpendicular for an edge–edge interior witness, else `point_b - point_a`). Zero when
    /// no direction is defined (coincident witnesses without a face or edge normal, or
    /// non-finite input).
    pub normal: DVec3,
}

/// One contact in a scene: which mesh features touch, when, and where.
///
/// The same vocabulary as `ccd_ca_rigid::Contact`: time of contact, the two features, the
/// world witness points and unit normal at `toc`, the distance there and the status.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct SceneContact {
    /// Conservative time of contact: the features are farther apart than the tolerance at
    /// every earlier time.
    pub toc: f64,
    /// Index of the first mesh in the scene.
    pub mesh_a: u32,
    /// Feature of the first mesh (a vertex or an edge, indices into its mesh).
    pub feature_a: Feature,
    /// Index of the second mesh (equal to `mesh_a` for a self-contact).
    pub mesh_b: u32,
    /// Feature of the second mesh (a face or an edge).
    pub feature_b: Feature,
    /// Point of `feature_a` closest to `feature_b` at `toc` (world coordinates).
    pub point_a: DVec3,
    /// Point of `feature_b` closest to `feature_a` at `toc` (world coordinates).
    pub point_b: DVec3,
    /// Unit contact normal at `toc`, from feature `a` towards feature `b` (see
    /// [`PrimitiveToc::normal`]); zero when no direction is defined.
    pub normal: DVec3,
    /// Distance between the features at `toc` (`|point_b - point_a|`).
    pub distance: f64,
    /// How the elementary query ended.
    pub status: Status,
}

/// What a scene query reports: the workspace's shared [`ccd_geometry::Mode`]. [`Mode::Toc`] is
/// the first contact in the scene (the global ToC; pruning uses the current best as a bound),
/// [`Mode::All`] every colliding vertex–face and edge–edge pair with its own ToC,
/// [`Mode::Boolean`] only whether anything collides in `[0, 1]` (for planners: the query stops
/// at the first contact).
pub use ccd_geometry::Mode;

/// Counters of a scene query.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct SceneStats {
    /// Bounding-volume pair tests.
    pub bv_tests: u64,
    /// Bounding-volume pairs culled (by overlap or by LA time bound).
    pub culled_bv_pairs: u64,
    /// Leaf pairs (and single leaves, for self-collision) whose features were paired.
    pub leaf_pairs: u64,
    /// Elementary vertex–face and edge–edge queries run.
    pub primitive_tests: u64,
    /// Elementary queries that hit the iteration cap.
    pub capped: u64,
    /// Self-collision subtrees (or unions of two) skipped because their triangles form a
    /// disk whose normals stay in an open half-space and whose projected contour stays simple
    /// during the step, or a closed surface star-shaped about a moving centre.
    pub patches_skipped: u64,
    /// Triangles (star-shaped surfaces) and boundary edges (disks) the self-collision
    /// certificates examined, whether or not they certified.
    #[cfg_attr(feature = "serde", serde(default))]
    pub certificate_items: u64,
}
