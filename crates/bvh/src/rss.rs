//! Rectangle swept spheres (the RSS of PQP; Larsen, Gottschalk, Lin and Manocha 1999).

use ccd_geometry::Aabb;
use glam::{DAffine3, DMat3, DVec3};

use crate::closest::{Rect, rect_rect_distance};
use crate::fit::{principal_axes, slack};
use crate::volume::{BoundingVolume, SplitRule, rot};

/// A rectangle swept sphere: all points within `radius` of the rectangle
/// `origin + rotation * (s, t, 0)`, `s ∈ [0, lengths[0]]`, `t ∈ [0, lengths[1]]`.
///
/// Fitting (Lin survey slides, "For RSS, use all three dimensions"): the axes are the
/// principal axes of the points; the radius is half the thickness along the smallest axis;
/// the rectangle spans the two largest axes, shrunk by the sphere caps where that keeps every
/// point inside and regrown at the corners where needed. The distance between two RSSs is the
/// rectangle–rectangle distance minus both radii, a true lower bound on the distance between
/// their contents (PQP's bound).
///
/// # Example
/// ```
/// use ccd_bvh::{BoundingVolume, Rss};
/// use ccd_bvh::glam::{DAffine3, DQuat, DVec3};
///
/// let pts = [DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::new(1.0, 1.0, 0.2)];
/// let rss = Rss::fit_points(&pts);
/// assert!(pts.iter().all(|p| rss.contains_point(*p, 1e-12)));
/// let pos12 = DAffine3::from_rotation_translation(DQuat::from_rotation_x(0.3), DVec3::new(0.0, 0.0, 4.0));
/// let d = rss.distance_lower_bound(&rss, &pos12);
/// assert!(d > 2.0 && d < 4.0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Rss {
    /// Axes as the columns of a rotation; column 2 is the rectangle's normal.
    pub rotation: DMat3,
    /// The rectangle corner at local `(0, 0, 0)`.
    pub origin: DVec3,
    /// Side lengths of the rectangle along columns 0 and 1 (≥ 0).
    pub lengths: [f64; 2],
    /// Radius of the swept sphere (≥ 0).
    pub radius: f64,
}

impl Rss {
    /// An RSS from its parts (see the field docs).
    ///
    /// ```
    /// use ccd_bvh::{BoundingVolume, Rss};
    /// use ccd_bvh::glam::{DMat3, DVec3};
    /// let r = Rss::new(DMat3::IDENTITY, DVec3::ZERO, [2.0, 1.0], 0.5);
    /// assert!(r.contains_point(DVec3::new(2.0, 1.0, 0.5), 1e-12));
    /// ```
    #[inline]
    #[must_use]
    pub const fn new(rotation: DMat3, origin: DVec3, lengths: [f64; 2], radius: f64) -> Self {
        Self {
            rotation,
            origin,
            lengths,
            radius,
        }
    }

    /// The RSS with the given axes (column 2 = rectangle normal) containing `points`.
    #[must_use]
    pub fn fit_with_axes(points: &[DVec3], rotation: DMat3) -> Self {
        if points.is_empty() {
            return Self::new(rotation, DVec3::ZERO, [0.0, 0.0], 0.0);
        }
        let rt = rotation.transpose();
        let (mut zlo, mut zhi) = (f64::INFINITY, f64::NEG_INFINITY);
        let mut scale = 0.0f64;
        for p in points {
            let z = rotation.z_axis.dot(*p);
            zlo = zlo.min(z);
            zhi = zhi.max(z);
            scale = scale.max(p.abs().max_element());
        }
        let r = 0.5 * (zhi - zlo);
        let cz = 0.5 * (zhi + zlo);
        let r2 = r * r;
        let (mut x0, mut x1, mut y0, mut y1) = (
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
        );
        for p in points {
            let q = rt * *p;
            let dz = q.z - cz;
            let s = (r2 - dz * dz).max(0.0).sqrt();
            x0 = x0.min(q.x + s);
            x1 = x1.max(q.x - s);
            y0 = y0.min(q.y + s);
            y1 = y1.max(q.y - s);
        }
        // every point now has |x offset| <= s and |y offset| <= s; collapse inverted ranges
        if x0 > x1 {
            let m = 0.5 * (x0 + x1);
            (x0, x1) = (m, m);
        }
        if y0 > y1 {
            let m = 0.5 * (y0 + y1);
            (y0, y1) = (m, m);
        }
        // corner regions: a point outside on both x and y may still be too far; grow the
        // rectangle along x just enough (growing never moves another point farther away)
        for p in points {
            let q = rt * *p;
            let dz = q.z - cz;
            let dx = (x0 - q.x).max(q.x - x1);
            let dy = (y0 - q.y).max(q.y - y1);
            if dx > 0.0 && dy > 0.0 && dx * dx + dy * dy + dz * dz > r2 {
                let room = r2 - dz * dz - dy * dy;
                let reach = if room > 0.0 { room.sqrt() } else { 0.0 };
                if q.x < x0 {
                    x0 = q.x + reach;
                } else {
                    x1 = q.x - reach;
                }
                if room < 0.0 {
                    // unreachable in exact arithmetic (dy <= s from the first pass); guard
                    // rounding by also covering y
                    y0 = y0.min(q.y);
                    y1 = y1.max(q.y);
                }
            }
        }
        let origin = rotation * DVec3::new(x0, y0, cz);
        let radius = r + slack(scale + r + (x1 - x0) + (y1 - y0));
        Self::new(rotation, origin, [x1 - x0, y1 - y0], radius)
    }

    /// The rectangle part in the frame of this RSS, moved by `pose`.
    #[inline]
    fn rect(&self, pose: Option<&DAffine3>) -> Rect {
        match pose {
            None => Rect {
                origin: self.origin,
                u: self.rotation.x_axis,
                v: self.rotation.y_axis,
                lu: self.lengths[0],
                lv: self.lengths[1],
            },
            Some(p) => {
                let m = rot(p);
                Rect {
                    origin: p.transform_point3(self.origin),
                    u: m * self.rotation.x_axis,
                    v: m * self.rotation.y_axis,
                    lu: self.lengths[0],
                    lv: self.lengths[1],
                }
            }
        }
    }

    /// The four rectangle corners.
    #[must_use]
    pub fn rectangle_corners(&self) -> [DVec3; 4] {
        let u = self.rotation.x_axis * self.lengths[0];
        let v = self.rotation.y_axis * self.lengths[1];
        [
            self.origin,
            self.origin + u,
            self.origin + u + v,
            self.origin + v,
        ]
    }
}

impl BoundingVolume for Rss {
    const DEFAULT_SPLIT: SplitRule = SplitRule::BinnedSah { bins: 16 };
    const MERGE_IS_EXACT: bool = false;

    fn fit_points(points: &[DVec3]) -> Self {
        Self::fit_with_axes(points, principal_axes(points))
    }

    fn refit_points(&self, points: &[DVec3]) -> Self {
        Self::fit_with_axes(points, self.rotation)
    }

    fn merge(&self, other: &Self) -> Self {
        let mut pts = [DVec3::ZERO; 8];
        pts[..4].copy_from_slice(&self.rectangle_corners());
        pts[4..].copy_from_slice(&other.rectangle_corners());
        let mut m = Self::fit_points(&pts);
        m.radius += self.radius.max(other.radius);
        m
    }

    #[inline]
    fn overlaps(&self, other: &Self, pos12: &DAffine3) -> bool {
        if !pos12.is_finite() {
            return true; // conservative answer for a NaN/infinite pose
        }
        // cheap bounding-sphere rejection before the rectangle-rectangle distance
        let c2 = pos12.transform_point3(other.center());
        let reach = self.size() + other.size();
        if self.center().distance_squared(c2) > reach * reach * (1.0 + 1e-9) {
            return false;
        }
        self.distance_lower_bound(other, pos12) <= 0.0
    }

    fn distance_lower_bound(&self, other: &Self, pos12: &DAffine3) -> f64 {
        if !pos12.is_finite() {
            return 0.0; // conservative answer for a NaN/infinite pose
        }
        let a = self.rect(None);
        let b = other.rect(Some(pos12));
        let d = rect_rect_distance(&a, &b);
        let scale = self.origin.abs().max_element()
            + b.origin.abs().max_element()
            + self.lengths[0]
            + self.lengths[1]
            + other.lengths[0]
            + other.lengths[1];
        (d - self.radius - other.radius - slack(scale)).max(0.0)
    }

    #[inline]
    fn transformed(&self, pose: &DAffine3) -> Self {
        Self::new(
            rot(pose) * self.rotation,
            pose.transform_point3(self.origin),
            self.lengths,
            self.radius,
        )
    }

    #[inline]
    fn contains_point(&self, p: DVec3, tolerance: f64) -> bool {
        self.rect(None).point_dist2(p).sqrt() <= self.radius + tolerance
    }

    #[inline]
    fn center(&self) -> DVec3 {
        self.origin + self.rotation * DVec3::new(0.5 * self.lengths[0], 0.5 * self.lengths[1], 0.0)
    }

    #[inline]
    fn aabb(&self) -> Aabb {
        Aabb::from_points(self.rectangle_corners()).inflate(self.radius)
    }

    #[inline]
    fn size(&self) -> f64 {
        0.5 * (self.lengths[0] * self.lengths[0] + self.lengths[1] * self.lengths[1]).sqrt()
            + self.radius
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flat_points_get_a_thin_rss() {
        let pts: Vec<DVec3> = (0..20)
            .map(|i| DVec3::new(f64::from(i % 5), f64::from(i / 5), 0.0))
            .collect();
        let r = Rss::fit_points(&pts);
        assert!(r.radius < 1e-9);
        assert!(pts.iter().all(|p| r.contains_point(*p, 1e-12)));
        let l = [
            r.lengths[0].max(r.lengths[1]),
            r.lengths[0].min(r.lengths[1]),
        ];
        assert!(
            (l[0] - 4.0).abs() < 1e-9 && (l[1] - 3.0).abs() < 1e-9,
            "{l:?}"
        );
    }

    #[test]
    fn sphere_caps_shrink_the_rectangle() {
        // points on a ball of radius 1: the RSS must still contain them all
        let mut pts = Vec::new();
        for i in 0..12 {
            for j in 0..6 {
                let th = f64::from(i) * std::f64::consts::FRAC_PI_6;
                let ph = f64::from(j) * std::f64::consts::FRAC_PI_6 + 0.1;
                pts.push(DVec3::new(
                    th.cos() * ph.sin(),
                    th.sin() * ph.sin(),
                    ph.cos() * 0.3,
                ));
            }
        }
        let r = Rss::fit_points(&pts);
        assert!(pts.iter().all(|p| r.contains_point(*p, 1e-12)));
        assert!(r.radius <= 0.3 + 1e-9);
    }

    #[test]
    fn merge_contains_both() {
        let a = Rss::fit_points(&[DVec3::ZERO, DVec3::X, DVec3::new(0.0, 0.0, 0.5)]);
        let b = Rss::fit_points(&[
            DVec3::new(3.0, 1.0, 0.0),
            DVec3::new(3.0, 2.0, 1.0),
            DVec3::new(4.0, 1.0, 0.0),
        ]);
        let m = a.merge(&b);
        for p in [
            DVec3::ZERO,
            DVec3::X,
            DVec3::new(0.0, 0.0, 0.5),
            DVec3::new(3.0, 2.0, 1.0),
            DVec3::new(4.0, 1.0, 0.0),
        ] {
            assert!(m.contains_point(p, 1e-9));
        }
    }
}
