//! Query options and results.

use ccd_geometry::Feature;
use glam::DVec3;

/// What a query computes: the workspace's shared [`ccd_geometry::Mode`]. A rigid query is
/// one pair, so [`Mode::All`] (every pair's first contact) answers exactly as [`Mode::Toc`]
/// (the pair's first contact); [`Mode::Boolean`] stops at the first certain contact.
pub use ccd_geometry::Mode;

/// Options of a CA query: start from [`Default`] and change fields with the `with_*`
/// builders (the struct is `#[non_exhaustive]`, so options can grow without breaking
/// callers).
///
/// # Example
/// ```
/// use ccd_ca_rigid::{CaOptions, Mode};
///
/// let options = CaOptions::default().with_tolerance(1e-4).with_mode(Mode::Boolean);
/// assert_eq!((options.tolerance, options.max_iterations), (1e-4, 1000));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct CaOptions {
    /// Absolute distance tolerance `ε` (default `1e-3`): contact is reported when the
    /// distance falls to `ε` or below.
    pub tolerance: f64,
    /// Cap on CA iterations (default 1000); hitting it gives [`Status::OutOfIterations`].
    pub max_iterations: u32,
    /// [`Mode::Toc`] (default), [`Mode::Boolean`], or [`Mode::All`] (as `Toc` for one pair).
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

impl CaOptions {
    /// The same options with absolute distance tolerance `tolerance` (validated by the
    /// query: finite and positive).
    #[inline]
    #[must_use]
    pub fn with_tolerance(mut self, tolerance: f64) -> Self {
        self.tolerance = tolerance;
        self
    }

    /// The same options with iteration cap `max_iterations` (validated by the query: at
    /// least 1).
    #[inline]
    #[must_use]
    pub fn with_max_iterations(mut self, max_iterations: u32) -> Self {
        self.max_iterations = max_iterations;
        self
    }

    /// The same options computing `mode`.
    #[inline]
    #[must_use]
    pub fn with_mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }
}

/// How a query ended: the workspace's shared [`ccd_geometry::Status`]. Rigid queries end
/// [`Stalled`](Status::Stalled) when the tolerance is below what `f64` resolves at the
/// query's coordinate scale (see [`time_of_contact`](crate::time_of_contact)).
pub use ccd_geometry::Status;

/// Counters of a query (the papers' tables report them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
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
#[non_exhaustive]
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
/// A time of contact between two shapes with its witnesses.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct ShapeContact {
    /// Time of contact in `[0, 1]`.
    pub toc: f64,
    /// Witness point on A at `toc` (world frame).
    pub point_a: DVec3,
    /// Witness point on B at `toc` (world frame).
    pub point_b: DVec3,
    /// Unit direction from A to B at `toc` (world frame; arbitrary when the points coincide).
    pub normal: DVec3,
    /// Distance between the witnesses (`≤ ε` unless `OutOfIterations` or `Stalled`).
    pub distance: f64,
    /// Index of A's part carrying `point_a` in [`Compound::parts`](crate::Compound::parts)
    /// (0 for a shape that is not a compound).
    pub part_a: u32,
    /// The feature of that part carrying `point_a`: ids of the shape type (see
    /// [`ccd_distance::Cuboid`], …), mesh ids for a mesh.
    pub feature_a: Feature,
    /// Index of B's part carrying `point_b`.
    pub part_b: u32,
    /// The feature of that part carrying `point_b`.
    pub feature_b: Feature,
    /// How the query ended.
    pub status: Status,
    /// Counters (`primitive_tests` counts shape-pair and shape–triangle distances).
    pub stats: Stats,
}

impl ShapeContact {
    /// The contact without its part indices (the answer of a mesh or convex pair, whose
    /// parts are always 0).
    ///
    /// # Example
    /// ```
    /// use std::sync::Arc;
    /// use ccd_ca_rigid::{cast, CastOptions, CastWorkspace, Collider, RigidBody, RigidPair};
    /// use ccd_bvh::{BvhOptions, MeshBvh, Rss};
    /// use ccd_geometry::{glam::{DAffine3, DVec3}, TriMesh};
    /// use ccd_kinematics::RigidMotion;
    ///
    /// let tetra = TriMesh::new(vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z], vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])?;
    /// let c = Collider::mesh(RigidBody::new(Arc::new(MeshBvh::<Rss>::new(tetra, &BvhOptions::default())?)))?;
    /// let still = RigidMotion::stationary(DAffine3::IDENTITY)?;
    /// let moving = RigidMotion::between(DAffine3::from_translation(DVec3::new(3.0, 0.0, 0.0)), DAffine3::from_translation(DVec3::new(-1.0, 0.0, 0.0)))?;
    /// let out = cast(&c, &c, &RigidPair { a: &still, b: &moving }, &CastOptions::default(), &mut CastWorkspace::default())?;
    /// let contact = out.contact.expect("contact").into_contact();
    /// assert!(contact.toc <= 0.5 && contact.toc > 0.49);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn into_contact(self) -> Contact {
        Contact {
            toc: self.toc,
            point_a: self.point_a,
            point_b: self.point_b,
            normal: self.normal,
            distance: self.distance,
            feature_a: self.feature_a,
            feature_b: self.feature_b,
            status: self.status,
            stats: self.stats,
        }
    }
}

impl From<Contact> for ShapeContact {
    /// A mesh-pair contact as a shape contact (parts 0).
    fn from(c: Contact) -> Self {
        Self {
            toc: c.toc,
            point_a: c.point_a,
            point_b: c.point_b,
            normal: c.normal,
            distance: c.distance,
            part_a: 0,
            feature_a: c.feature_a,
            part_b: 0,
            feature_b: c.feature_b,
            status: c.status,
            stats: c.stats,
        }
    }
}
