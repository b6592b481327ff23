//! [`BoundingVolume`] for `ccd_geometry::Aabb`.

use ccd_geometry::Aabb;
use glam::{DAffine3, DVec3};

use crate::fit::slack;
use crate::volume::{BoundingVolume, SplitRule, box_box_gap, rot};

/// The box containing `aabb` moved by the rigid `pose` (Arvo's method: exact for the box).
#[inline]
#[must_use]
pub(crate) fn transform_aabb(aabb: &Aabb, pose: &DAffine3) -> Aabb {
    if aabb.is_empty() {
        return *aabb;
    }
    let c = pose.transform_point3(aabb.center());
    let h = (aabb.max - aabb.min) * 0.5;
    let m = rot(pose);
    let e = DVec3::new(
        m.row(0).abs().dot(h),
        m.row(1).abs().dot(h),
        m.row(2).abs().dot(h),
    );
    Aabb::new(c - e, c + e)
}

/// Box-box separating gap of two AABBs under `pos12` (see [`box_box_gap`]).
#[inline]
fn aabb_gap(a: &Aabb, b: &Aabb, pos12: &DAffine3, stop_above: f64) -> f64 {
    let ha = (a.max - a.min) * 0.5;
    let hb = (b.max - b.min) * 0.5;
    let r = rot(pos12);
    let t = pos12.transform_point3(b.center()) - a.center();
    let scale = a.center().abs().max_element()
        + b.center().abs().max_element()
        + pos12.translation.abs().max_element();
    box_box_gap(ha, hb, &r, t, scale, stop_above)
}

/// Rounding slack of a translated-box comparison.
#[inline]
fn translation_slack(a: &Aabb, b: &Aabb) -> f64 {
    slack(a.min.abs().max(a.max.abs()).max_element() + b.min.abs().max(b.max.abs()).max_element())
}

/// True when `pos12` has no rotation (the common case of boxes in one frame).
#[inline]
fn is_translation(pos12: &DAffine3) -> bool {
    pos12.matrix3 == glam::DMat3::IDENTITY
}

impl BoundingVolume for Aabb {
    const DEFAULT_SPLIT: SplitRule = SplitRule::BinnedSah { bins: 16 };
    const MERGE_IS_EXACT: bool = true;

    #[inline]
    fn fit_points(points: &[DVec3]) -> Self {
        if points.is_empty() {
            return Aabb::from_point(DVec3::ZERO);
        }
        Aabb::from_points(points.iter().copied())
    }

    #[inline]
    fn merge(&self, other: &Self) -> Self {
        Aabb::merge(*self, *other)
    }

    #[inline]
    fn overlaps(&self, other: &Self, pos12: &DAffine3) -> bool {
        if !pos12.is_finite() {
            return true; // conservative answer for a NaN/infinite pose
        }
        if is_translation(pos12) {
            let t = pos12.translation;
            let b = Aabb::new(other.min + t, other.max + t);
            return Aabb::overlaps(&self.inflate(translation_slack(self, &b)), &b);
        }
        if self.is_empty() || other.is_empty() {
            return false;
        }
        aabb_gap(self, other, pos12, 0.0) <= 0.0
    }

    #[inline]
    fn distance_lower_bound(&self, other: &Self, pos12: &DAffine3) -> f64 {
        if !pos12.is_finite() {
            return 0.0; // conservative answer for a NaN/infinite pose
        }
        if is_translation(pos12) {
            let t = pos12.translation;
            let b = Aabb::new(other.min + t, other.max + t);
            return (self.distance(&b) - translation_slack(self, &b)).max(0.0);
        }
        aabb_gap(self, other, pos12, f64::INFINITY).max(0.0)
    }

    #[inline]
    fn transformed(&self, pose: &DAffine3) -> Self {
        transform_aabb(self, pose)
    }

    #[inline]
    fn contains_point(&self, p: DVec3, tolerance: f64) -> bool {
        self.inflate(tolerance).contains_point(p)
    }

    #[inline]
    fn center(&self) -> DVec3 {
        Aabb::center(self)
    }

    #[inline]
    fn aabb(&self) -> Aabb {
        *self
    }

    #[inline]
    fn size(&self) -> f64 {
        0.5 * self.extents().length()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DQuat;

    #[test]
    fn rotated_boxes_use_sat() {
        let a = Aabb::new(DVec3::splat(-1.0), DVec3::splat(1.0));
        // a box rotated 45 degrees about z, placed so that its corner would hit the axis-aligned
        // bound of a but not a itself
        let pose = DAffine3::from_rotation_translation(
            DQuat::from_rotation_z(std::f64::consts::FRAC_PI_4),
            DVec3::new(1.0 + 2f64.sqrt() + 0.05, 0.0, 0.0),
        );
        assert!(!BoundingVolume::overlaps(&a, &a, &pose));
        let d = a.distance_lower_bound(&a, &pose);
        assert!((d - 0.05).abs() < 1e-9, "{d}");
        let pose = DAffine3::from_rotation_translation(
            DQuat::from_rotation_z(std::f64::consts::FRAC_PI_4),
            DVec3::new(1.0 + 2f64.sqrt() - 0.05, 0.0, 0.0),
        );
        assert!(BoundingVolume::overlaps(&a, &a, &pose));
        assert_eq!(a.distance_lower_bound(&a, &pose), 0.0);
    }

    #[test]
    fn transform_contains_moved_corners() {
        let a = Aabb::new(DVec3::new(-1.0, 0.0, 2.0), DVec3::new(3.0, 1.0, 2.5));
        let pose = DAffine3::from_rotation_translation(
            DQuat::from_rotation_y(0.7),
            DVec3::new(1.0, -2.0, 0.3),
        );
        let b = a.transformed(&pose);
        for c in a.corners() {
            assert!(BoundingVolume::contains_point(
                &b,
                pose.transform_point3(c),
                1e-12
            ));
        }
    }
}
