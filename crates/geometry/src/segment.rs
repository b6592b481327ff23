//! Line segments.

use glam::DVec3;

use crate::Aabb;

/// The closed segment from `a` to `b` (may have zero length: every algorithm copes).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Segment {
    /// First endpoint (parameter 0).
    pub a: DVec3,
    /// Second endpoint (parameter 1).
    pub b: DVec3,
}

impl Segment {
    /// The segment from `a` to `b`.
    ///
    /// ```
    /// use ccd_geometry::{glam::DVec3, Segment};
    /// let s = Segment::new(DVec3::ZERO, DVec3::new(2.0, 0.0, 0.0));
    /// assert_eq!(s.point_at(0.25), DVec3::new(0.5, 0.0, 0.0));
    /// ```
    #[inline]
    #[must_use]
    pub const fn new(a: DVec3, b: DVec3) -> Self {
        Self { a, b }
    }

    /// `b - a`.
    #[inline]
    #[must_use]
    pub fn direction(&self) -> DVec3 {
        self.b - self.a
    }

    /// Length `|b - a|`.
    #[inline]
    #[must_use]
    pub fn length(&self) -> f64 {
        self.direction().length()
    }

    /// The point `a + s (b - a)`.
    #[inline]
    #[must_use]
    pub fn point_at(&self, s: f64) -> DVec3 {
        self.a + (self.b - self.a) * s
    }

    /// Bounding box of the segment.
    #[inline]
    #[must_use]
    pub fn aabb(&self) -> Aabb {
        Aabb::new(self.a.min(self.b), self.a.max(self.b))
    }
}
