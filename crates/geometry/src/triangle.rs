//! Triangles.

use glam::DVec3;

use crate::{Aabb, Segment};

/// The closed triangle `a, b, c` (may be degenerate: zero area, collinear or repeated
/// vertices).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Triangle {
    /// First vertex (local vertex id 0).
    pub a: DVec3,
    /// Second vertex (local vertex id 1).
    pub b: DVec3,
    /// Third vertex (local vertex id 2).
    pub c: DVec3,
}

impl Triangle {
    /// The triangle `a, b, c`.
    ///
    /// ```
    /// use ccd_geometry::{glam::DVec3, Triangle};
    /// let t = Triangle::new(DVec3::ZERO, DVec3::X, DVec3::Y);
    /// assert_eq!(t.area(), 0.5);
    /// assert_eq!(t.normal(), Some(DVec3::Z));
    /// ```
    #[inline]
    #[must_use]
    pub const fn new(a: DVec3, b: DVec3, c: DVec3) -> Self {
        Self { a, b, c }
    }

    /// The vertices as an array.
    #[inline]
    #[must_use]
    pub const fn vertices(&self) -> [DVec3; 3] {
        [self.a, self.b, self.c]
    }

    /// Vertex `i` (0, 1 or 2; larger values are clamped to 2).
    #[inline]
    #[must_use]
    pub fn vertex(&self, i: usize) -> DVec3 {
        match i {
            0 => self.a,
            1 => self.b,
            _ => self.c,
        }
    }

    /// Edge `i` as a segment: 0 = `a→b`, 1 = `b→c`, 2 = `c→a`.
    #[inline]
    #[must_use]
    pub fn edge(&self, i: usize) -> Segment {
        Segment::new(self.vertex(i), self.vertex((i + 1) % 3))
    }

    /// `(b - a) × (c - a)`: twice the area times the unit normal (zero when degenerate).
    #[inline]
    #[must_use]
    pub fn scaled_normal(&self) -> DVec3 {
        (self.b - self.a).cross(self.c - self.a)
    }

    /// Unit normal, or `None` for a degenerate triangle.
    #[inline]
    #[must_use]
    pub fn normal(&self) -> Option<DVec3> {
        self.scaled_normal().try_normalize()
    }

    /// Area.
    #[inline]
    #[must_use]
    pub fn area(&self) -> f64 {
        0.5 * self.scaled_normal().length()
    }

    /// True when the triangle has (numerically) zero area: its doubled area is at most
    /// `1e-14` times the squared longest edge.
    #[must_use]
    pub fn is_degenerate(&self) -> bool {
        let longest = (self.b - self.a)
            .length_squared()
            .max((self.c - self.b).length_squared())
            .max((self.a - self.c).length_squared());
        self.scaled_normal().length() <= 1e-14 * longest || longest == 0.0
    }

    /// The centroid.
    #[inline]
    #[must_use]
    pub fn centroid(&self) -> DVec3 {
        (self.a + self.b + self.c) / 3.0
    }

    /// Bounding box.
    #[inline]
    #[must_use]
    pub fn aabb(&self) -> Aabb {
        Aabb::new(
            self.a.min(self.b).min(self.c),
            self.a.max(self.b).max(self.c),
        )
    }

    /// The point with barycentric coordinates `(u, v, w)` (`u a + v b + w c`).
    #[inline]
    #[must_use]
    pub fn point_at(&self, u: f64, v: f64, w: f64) -> DVec3 {
        self.a * u + self.b * v + self.c * w
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn degenerate_detection() {
        let t = Triangle::new(DVec3::ZERO, DVec3::X, DVec3::X * 2.0);
        assert!(t.is_degenerate());
        assert_eq!(t.normal(), None);
        let p = Triangle::new(DVec3::ONE, DVec3::ONE, DVec3::ONE);
        assert!(p.is_degenerate());
        let ok = Triangle::new(DVec3::ZERO, DVec3::X, DVec3::Y * 1e-3);
        assert!(!ok.is_degenerate());
    }

    #[test]
    fn edges_cycle() {
        let t = Triangle::new(DVec3::ZERO, DVec3::X, DVec3::Y);
        assert_eq!(t.edge(2).a, DVec3::Y);
        assert_eq!(t.edge(2).b, DVec3::ZERO);
        assert_eq!(t.centroid(), DVec3::new(1.0 / 3.0, 1.0 / 3.0, 0.0));
    }
}
