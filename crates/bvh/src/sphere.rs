//! Bounding spheres.

use ccd_geometry::Aabb;
use glam::{DAffine3, DVec3};

use crate::fit::slack;
use crate::volume::{BoundingVolume, SplitRule};

/// A ball: all points within `radius` of `center`.
///
/// Fitting uses the centre of the points' bounding box and the largest distance to it (at most
/// √3/2 of the box diagonal from optimal, and never misses a point).
///
/// # Example
/// ```
/// use ccd_bvh::{BoundingVolume, Sphere};
/// use ccd_bvh::glam::{DAffine3, DVec3};
///
/// let s = Sphere::new(DVec3::ZERO, 1.0);
/// let pos12 = DAffine3::from_translation(DVec3::new(5.0, 0.0, 0.0));
/// let d = s.distance_lower_bound(&s, &pos12);
/// assert!(d <= 3.0 && d > 3.0 - 1e-12);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Sphere {
    /// Centre.
    pub center: DVec3,
    /// Radius (≥ 0).
    pub radius: f64,
}

impl Sphere {
    /// The ball of `radius` around `center`.
    ///
    /// ```
    /// use ccd_bvh::{BoundingVolume, Sphere};
    /// use ccd_bvh::glam::DVec3;
    /// assert!(Sphere::new(DVec3::ZERO, 2.0).contains_point(DVec3::X, 0.0));
    /// ```
    #[inline]
    #[must_use]
    pub const fn new(center: DVec3, radius: f64) -> Self {
        Self { center, radius }
    }
}

/// Rounding slack of placing `b` by `pos12` next to `a`.
#[inline]
fn pair_slack(a: &Sphere, b: &Sphere, pos12: &DAffine3) -> f64 {
    slack(
        a.center.abs().max_element()
            + b.center.abs().max_element()
            + pos12.translation.abs().max_element(),
    )
}

impl BoundingVolume for Sphere {
    const DEFAULT_SPLIT: SplitRule = SplitRule::BinnedSah { bins: 16 };
    const MERGE_IS_EXACT: bool = false;

    fn fit_points(points: &[DVec3]) -> Self {
        if points.is_empty() {
            return Self::new(DVec3::ZERO, 0.0);
        }
        let center = Aabb::from_points(points.iter().copied()).center();
        Self::new(center, 0.0).refit_points(points)
    }

    fn refit_points(&self, points: &[DVec3]) -> Self {
        let c = self.center;
        let r2 = points
            .iter()
            .fold(0.0f64, |m, p| m.max(p.distance_squared(c)));
        let r = r2.sqrt();
        Self::new(c, r + slack(r + c.abs().max_element()))
    }

    fn merge(&self, other: &Self) -> Self {
        let d = other.center - self.center;
        let dist = d.length();
        if dist + other.radius <= self.radius {
            return *self;
        }
        if dist + self.radius <= other.radius {
            return *other;
        }
        let radius = 0.5 * (dist + self.radius + other.radius);
        let center = self.center + d * ((radius - self.radius) / dist);
        Self::new(center, radius + slack(radius + center.abs().max_element()))
    }

    #[inline]
    fn overlaps(&self, other: &Self, pos12: &DAffine3) -> bool {
        if !pos12.is_finite() {
            return true; // conservative answer for a NaN/infinite pose
        }
        let c2 = pos12.transform_point3(other.center);
        let r = self.radius + other.radius + pair_slack(self, other, pos12);
        self.center.distance_squared(c2) <= r * r
    }

    #[inline]
    fn distance_lower_bound(&self, other: &Self, pos12: &DAffine3) -> f64 {
        if !pos12.is_finite() {
            return 0.0; // conservative answer for a NaN/infinite pose
        }
        let c2 = pos12.transform_point3(other.center);
        (self.center.distance(c2) - self.radius - other.radius - pair_slack(self, other, pos12))
            .max(0.0)
    }

    #[inline]
    fn transformed(&self, pose: &DAffine3) -> Self {
        Self::new(pose.transform_point3(self.center), self.radius)
    }

    #[inline]
    fn contains_point(&self, p: DVec3, tolerance: f64) -> bool {
        p.distance(self.center) <= self.radius + tolerance
    }

    #[inline]
    fn center(&self) -> DVec3 {
        self.center
    }

    #[inline]
    fn aabb(&self) -> Aabb {
        Aabb::new(
            self.center - DVec3::splat(self.radius),
            self.center + DVec3::splat(self.radius),
        )
    }

    #[inline]
    fn size(&self) -> f64 {
        self.radius
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_contains_both() {
        let a = Sphere::new(DVec3::ZERO, 1.0);
        let b = Sphere::new(DVec3::new(3.0, 0.0, 0.0), 0.5);
        let m = a.merge(&b);
        assert!(m.contains_point(DVec3::new(-1.0, 0.0, 0.0), 1e-12));
        assert!(m.contains_point(DVec3::new(3.5, 0.0, 0.0), 1e-12));
        assert!((m.radius - 2.25).abs() < 1e-9);
        assert_eq!(a.merge(&Sphere::new(DVec3::X * 0.1, 0.2)), a);
    }
}
