//! The result of a distance query: the distance, a witness point on each shape and the
//! feature each witness point lies on.

use ccd_geometry::Feature;
use glam::DVec3;

/// Closest points between two shapes `a` and `b`, with the features they lie on.
///
/// `point_a` lies on `a` and `point_b` on `b`, and `distance == (point_b - point_a).length()`
/// exactly when the query's coordinates lie within `[2⁻¹⁰⁰, 2¹⁰⁰]` in magnitude (the kernels
/// compute the distance from the witness points). Outside that window the kernels compute
/// at an exactly rescaled copy of the input (see the [crate docs](crate)) and `distance` is
/// that copy's witness distance scaled back, so it neither underflows nor overflows where
/// `(point_b - point_a).length()` would; witness points at vertices are the input vertices.
///
/// # Feature ids
/// The primitive kernels report **local** features:
/// - a point: `Vertex(0)`;
/// - a segment `a → b`: `Vertex(0)` (`a`), `Vertex(1)` (`b`), `Edge(0, 1)` (interior);
/// - a triangle `a, b, c`: `Vertex(0..=2)`, `Edge(i, j)` with `i < j` (the edge between local
///   vertices `i` and `j`), `Face(0)` (interior).
///
/// The feature is the lowest-dimensional one containing the witness point (a witness in an
/// edge interior is an `Edge`, at a vertex a `Vertex`, in the face interior a `Face`). When
/// the closest pair is not unique (parallel edges or faces) any closest pair may be reported;
/// segment–segment then reports a vertex witness. Intersecting shapes report distance `0`
/// with one point of the intersection as both witnesses. Mesh queries map local features to
/// mesh ids with [`Closest::lifted`]
/// ([`Feature::lift`]).
///
/// # Example
/// ```
/// use ccd_distance::{point_segment, Closest};
/// use ccd_geometry::{glam::DVec3, Feature, Segment};
///
/// let c: Closest = point_segment(DVec3::new(0.5, 2.0, 0.0), &Segment::new(DVec3::ZERO, DVec3::X));
/// assert_eq!(c.distance, 2.0);
/// assert_eq!(c.feature_b, Feature::Edge(0, 1));
/// let s = c.swapped();
/// assert_eq!(s.point_a, DVec3::new(0.5, 0.0, 0.0));
/// assert_eq!(s.feature_b, Feature::Vertex(0));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct Closest {
    /// The distance between the two shapes (`0` when they touch or intersect).
    pub distance: f64,
    /// Witness point on shape `a`.
    pub point_a: DVec3,
    /// Witness point on shape `b`.
    pub point_b: DVec3,
    /// The feature of `a` that `point_a` lies on.
    pub feature_a: Feature,
    /// The feature of `b` that `point_b` lies on.
    pub feature_b: Feature,
}

impl Closest {
    /// A result from its parts (for callers that compute witnesses themselves; the queries of
    /// this crate return one).
    ///
    /// ```
    /// use ccd_distance::Closest;
    /// use ccd_geometry::{glam::DVec3, Feature};
    ///
    /// let c = Closest::new(1.0, DVec3::ZERO, DVec3::X, Feature::Vertex(0), Feature::Face(2));
    /// assert_eq!(c.swapped().feature_a, Feature::Face(2));
    /// ```
    #[inline]
    #[must_use]
    pub fn new(
        distance: f64,
        point_a: DVec3,
        point_b: DVec3,
        feature_a: Feature,
        feature_b: Feature,
    ) -> Self {
        Self {
            distance,
            point_a,
            point_b,
            feature_a,
            feature_b,
        }
    }

    /// The same result with the roles of `a` and `b` exchanged.
    ///
    /// ```
    /// use ccd_distance::point_triangle;
    /// use ccd_geometry::{glam::DVec3, Feature, Triangle};
    ///
    /// let t = Triangle::new(DVec3::ZERO, DVec3::X, DVec3::Y);
    /// let c = point_triangle(DVec3::new(0.2, 0.2, 1.0), &t).swapped();
    /// assert_eq!(c.feature_a, Feature::Face(0));
    /// assert_eq!(c.feature_b, Feature::Vertex(0));
    /// ```
    #[inline]
    #[must_use]
    pub fn swapped(self) -> Self {
        Self {
            distance: self.distance,
            point_a: self.point_b,
            point_b: self.point_a,
            feature_a: self.feature_b,
            feature_b: self.feature_a,
        }
    }

    /// Lifts local triangle features to mesh features: `a` is mesh triangle `face_a` with
    /// vertex ids `tri_a`, `b` is `face_b` with `tri_b` (see [`Feature::lift`]).
    ///
    /// ```
    /// use ccd_distance::point_triangle;
    /// use ccd_geometry::{glam::DVec3, Feature, Triangle};
    ///
    /// let t = Triangle::new(DVec3::ZERO, DVec3::X, DVec3::Y);
    /// let c = point_triangle(DVec3::new(2.0, 0.0, 0.0), &t).lifted([7, 7, 7], 0, [4, 5, 6], 3);
    /// assert_eq!(c.feature_a, Feature::Vertex(7));
    /// assert_eq!(c.feature_b, Feature::Vertex(5));
    /// ```
    #[inline]
    #[must_use]
    pub fn lifted(self, tri_a: [u32; 3], face_a: u32, tri_b: [u32; 3], face_b: u32) -> Self {
        Self {
            feature_a: self.feature_a.lift(tri_a, face_a),
            feature_b: self.feature_b.lift(tri_b, face_b),
            ..self
        }
    }

    /// The unit direction from `point_a` to `point_b`, or `None` when the shapes touch.
    ///
    /// ```
    /// use ccd_distance::point_segment;
    /// use ccd_geometry::{glam::DVec3, Segment};
    ///
    /// let c = point_segment(DVec3::new(0.5, 2.0, 0.0), &Segment::new(DVec3::ZERO, DVec3::X));
    /// assert_eq!(c.direction(), Some(DVec3::NEG_Y));
    /// ```
    #[inline]
    #[must_use]
    pub fn direction(&self) -> Option<DVec3> {
        (self.point_b - self.point_a).try_normalize()
    }

    /// Builds a result from two witness points, computing the distance from them.
    #[inline]
    pub(crate) fn from_points(
        point_a: DVec3,
        point_b: DVec3,
        feature_a: Feature,
        feature_b: Feature,
    ) -> Self {
        Self {
            distance: (point_b - point_a).length(),
            point_a,
            point_b,
            feature_a,
            feature_b,
        }
    }
}
