//! Axis-aligned bounding boxes.

use glam::DVec3;

/// An axis-aligned box `[min, max]`. A box with `min > max` on some axis is empty
/// ([`Aabb::EMPTY`] is the identity of [`Aabb::merge`]).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Aabb {
    /// Lower corner.
    pub min: DVec3,
    /// Upper corner.
    pub max: DVec3,
}

impl Default for Aabb {
    fn default() -> Self {
        Self::EMPTY
    }
}

impl Aabb {
    /// The empty box: merging anything into it gives that thing.
    pub const EMPTY: Self = Self {
        min: DVec3::INFINITY,
        max: DVec3::NEG_INFINITY,
    };

    /// A box from its corners (not reordered; `min > max` gives an empty box).
    ///
    /// ```
    /// use ccd_geometry::{glam::DVec3, Aabb};
    /// let b = Aabb::new(DVec3::ZERO, DVec3::ONE);
    /// assert_eq!(b.volume(), 1.0);
    /// ```
    #[inline]
    #[must_use]
    pub const fn new(min: DVec3, max: DVec3) -> Self {
        Self { min, max }
    }

    /// The degenerate box holding a single point.
    #[inline]
    #[must_use]
    pub const fn from_point(p: DVec3) -> Self {
        Self { min: p, max: p }
    }

    /// The smallest box holding all `points` (empty for no points).
    ///
    /// ```
    /// use ccd_geometry::{glam::DVec3, Aabb};
    /// let b = Aabb::from_points([DVec3::X, DVec3::Y, -DVec3::Z]);
    /// assert_eq!(b.min, DVec3::new(0.0, 0.0, -1.0));
    /// assert_eq!(b.max, DVec3::new(1.0, 1.0, 0.0));
    /// ```
    #[must_use]
    pub fn from_points<I: IntoIterator<Item = DVec3>>(points: I) -> Self {
        points
            .into_iter()
            .fold(Self::EMPTY, |b, p| b.include_point(p))
    }

    /// True when the box holds no point.
    #[inline]
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.min.x > self.max.x || self.min.y > self.max.y || self.min.z > self.max.z
    }

    /// The box grown to hold `p`.
    #[inline]
    #[must_use]
    pub fn include_point(self, p: DVec3) -> Self {
        Self {
            min: self.min.min(p),
            max: self.max.max(p),
        }
    }

    /// The smallest box holding both boxes.
    #[inline]
    #[must_use]
    pub fn merge(self, other: Self) -> Self {
        Self {
            min: self.min.min(other.min),
            max: self.max.max(other.max),
        }
    }

    /// The common part of both boxes (possibly empty).
    #[inline]
    #[must_use]
    pub fn intersection(self, other: Self) -> Self {
        Self {
            min: self.min.max(other.min),
            max: self.max.min(other.max),
        }
    }

    /// True when the closed boxes share at least one point.
    ///
    /// ```
    /// use ccd_geometry::{glam::DVec3, Aabb};
    /// let a = Aabb::new(DVec3::ZERO, DVec3::ONE);
    /// let b = Aabb::new(DVec3::ONE, DVec3::splat(2.0));
    /// assert!(a.overlaps(&b)); // touching counts
    /// ```
    #[inline]
    #[must_use]
    pub fn overlaps(&self, other: &Self) -> bool {
        self.min.x <= other.max.x
            && other.min.x <= self.max.x
            && self.min.y <= other.max.y
            && other.min.y <= self.max.y
            && self.min.z <= other.max.z
            && other.min.z <= self.max.z
    }

    /// True when `p` lies in the closed box.
    #[inline]
    #[must_use]
    pub fn contains_point(&self, p: DVec3) -> bool {
        p.cmpge(self.min).all() && p.cmple(self.max).all()
    }

    /// True when `other` lies entirely inside this box (an empty `other` always does).
    #[inline]
    #[must_use]
    pub fn contains(&self, other: &Self) -> bool {
        other.is_empty() || (other.min.cmpge(self.min).all() && other.max.cmple(self.max).all())
    }

    /// Euclidean distance between the boxes (0 when they overlap).
    ///
    /// ```
    /// use ccd_geometry::{glam::DVec3, Aabb};
    /// let a = Aabb::new(DVec3::ZERO, DVec3::ONE);
    /// let b = Aabb::new(DVec3::new(4.0, 5.0, 0.5), DVec3::new(5.0, 6.0, 0.7));
    /// assert_eq!(a.distance(&b), 5.0);
    /// ```
    #[inline]
    #[must_use]
    pub fn distance(&self, other: &Self) -> f64 {
        let gap = (self.min - other.max)
            .max(other.min - self.max)
            .max(DVec3::ZERO);
        gap.length()
    }

    /// Euclidean distance from `p` to the box (0 inside).
    #[inline]
    #[must_use]
    pub fn distance_to_point(&self, p: DVec3) -> f64 {
        let gap = (self.min - p).max(p - self.max).max(DVec3::ZERO);
        gap.length()
    }

    /// The box grown by `margin` on every side (shrunk for a negative margin).
    #[inline]
    #[must_use]
    pub fn inflate(self, margin: f64) -> Self {
        Self {
            min: self.min - DVec3::splat(margin),
            max: self.max + DVec3::splat(margin),
        }
    }

    /// Side lengths (`max - min`, zero for an empty box).
    #[inline]
    #[must_use]
    pub fn extents(&self) -> DVec3 {
        if self.is_empty() {
            DVec3::ZERO
        } else {
            self.max - self.min
        }
    }

    /// The centre point.
    #[inline]
    #[must_use]
    pub fn center(&self) -> DVec3 {
        (self.min + self.max) * 0.5
    }

    /// Volume (0 for an empty or flat box).
    #[inline]
    #[must_use]
    pub fn volume(&self) -> f64 {
        let e = self.extents();
        e.x * e.y * e.z
    }

    /// Surface area (0 for an empty box).
    #[inline]
    #[must_use]
    pub fn surface_area(&self) -> f64 {
        let e = self.extents();
        2.0 * (e.x * e.y + e.y * e.z + e.z * e.x)
    }

    /// The eight corners, bit `i` of the index choosing `max` on axis `i`.
    #[must_use]
    pub fn corners(&self) -> [DVec3; 8] {
        std::array::from_fn(|i| {
            DVec3::new(
                if i & 1 == 0 { self.min.x } else { self.max.x },
                if i & 2 == 0 { self.min.y } else { self.max.y },
                if i & 4 == 0 { self.min.z } else { self.max.z },
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_is_merge_identity() {
        let b = Aabb::new(DVec3::ZERO, DVec3::ONE);
        assert_eq!(Aabb::EMPTY.merge(b), b);
        assert!(Aabb::EMPTY.is_empty());
        assert_eq!(Aabb::EMPTY.volume(), 0.0);
        assert!(!Aabb::EMPTY.overlaps(&b));
    }

    #[test]
    fn distance_is_zero_on_overlap_and_symmetric() {
        let a = Aabb::new(DVec3::ZERO, DVec3::ONE);
        let b = Aabb::new(DVec3::splat(0.5), DVec3::splat(3.0));
        let c = Aabb::new(DVec3::new(3.0, 0.0, 0.0), DVec3::new(4.0, 1.0, 1.0));
        assert_eq!(a.distance(&b), 0.0);
        assert_eq!(a.distance(&c), 2.0);
        assert_eq!(c.distance(&a), 2.0);
        assert_eq!(a.distance_to_point(DVec3::new(0.5, 0.5, 3.0)), 2.0);
    }

    #[test]
    fn inflate_and_contains() {
        let a = Aabb::new(DVec3::ZERO, DVec3::ONE).inflate(0.5);
        assert_eq!(a.extents(), DVec3::splat(2.0));
        assert!(a.contains(&Aabb::new(DVec3::ZERO, DVec3::ONE)));
        assert!(a.contains_point(DVec3::splat(-0.5)));
        assert_eq!(a.corners()[7], DVec3::splat(1.5));
        assert_eq!(a.surface_area(), 24.0);
    }
}
