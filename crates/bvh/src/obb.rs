//! Oriented bounding boxes (OBBTree, Gottschalk, Lin and Manocha 1996).

use ccd_geometry::Aabb;
use glam::{DAffine3, DMat3, DVec3};

use crate::fit::{principal_axes, project_extents, slack};
use crate::volume::{BoundingVolume, SplitRule, box_box_gap, rot};

/// An oriented box: `center + rotation * x` for `|x_i| <= half_extents_i`.
///
/// Fitted along the principal axes of the covariance of the points (OBBTree, Sec. 4; Lin
/// survey slides, "OBB Fitting algorithm: covariance-based"). Overlap is the 15-axis
/// separating-axis test (slides: "OBBs need at most 15 axis tests"), with `|R|` inflated by
/// an epsilon so that parallel edges never yield a false separation.
///
/// # Example
/// ```
/// use ccd_bvh::{BoundingVolume, Obb};
/// use ccd_bvh::glam::{DAffine3, DQuat, DVec3};
///
/// let pts = [DVec3::ZERO, DVec3::new(4.0, 4.0, 0.0), DVec3::new(0.1, -0.1, 0.0), DVec3::new(4.1, 3.9, 0.0)];
/// let obb = Obb::fit_points(&pts);
/// assert!(pts.iter().all(|p| obb.contains_point(*p, 1e-9)));
/// let pos12 = DAffine3::from_rotation_translation(DQuat::from_rotation_z(1.0), DVec3::new(0.0, 0.0, 5.0));
/// assert!(!obb.overlaps(&obb, &pos12));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Obb {
    /// Centre of the box.
    pub center: DVec3,
    /// The box axes as the columns of a rotation matrix.
    pub rotation: DMat3,
    /// Half side lengths along the three axes (≥ 0).
    pub half_extents: DVec3,
}

impl Obb {
    /// A box from its centre, axes (columns of an orthonormal `rotation`) and half extents.
    ///
    /// ```
    /// use ccd_bvh::{BoundingVolume, Obb};
    /// use ccd_bvh::glam::{DMat3, DVec3};
    /// let b = Obb::new(DVec3::ZERO, DMat3::IDENTITY, DVec3::ONE);
    /// assert!(b.contains_point(DVec3::splat(0.99), 0.0));
    /// ```
    #[inline]
    #[must_use]
    pub const fn new(center: DVec3, rotation: DMat3, half_extents: DVec3) -> Self {
        Self {
            center,
            rotation,
            half_extents,
        }
    }

    /// The box with the given axes tightly containing `points`.
    #[must_use]
    pub fn fit_with_axes(points: &[DVec3], rotation: DMat3) -> Self {
        if points.is_empty() {
            return Self::new(DVec3::ZERO, rotation, DVec3::ZERO);
        }
        let (lo, hi) = project_extents(points, &rotation);
        let mid = (lo + hi) * 0.5;
        let half = (hi - lo) * 0.5;
        let scale = lo.abs().max(hi.abs()).max_element();
        Self::new(rotation * mid, rotation, half + DVec3::splat(slack(scale)))
    }

    /// The eight corners.
    #[must_use]
    pub fn corners(&self) -> [DVec3; 8] {
        std::array::from_fn(|i| {
            let s = DVec3::new(
                if i & 1 == 0 { -1.0 } else { 1.0 },
                if i & 2 == 0 { -1.0 } else { 1.0 },
                if i & 4 == 0 { -1.0 } else { 1.0 },
            );
            self.center + self.rotation * (s * self.half_extents)
        })
    }

    #[inline]
    fn gap(&self, other: &Self, pos12: &DAffine3, stop_above: f64) -> f64 {
        // other's axes and centre in self's box frame
        let rt = self.rotation.transpose();
        let r = rt * rot(pos12) * other.rotation;
        let t = rt * (pos12.transform_point3(other.center) - self.center);
        let scale = self.center.abs().max_element()
            + other.center.abs().max_element()
            + pos12.translation.abs().max_element();
        box_box_gap(
            self.half_extents,
            other.half_extents,
            &r,
            t,
            scale,
            stop_above,
        )
    }
}

impl BoundingVolume for Obb {
    const DEFAULT_SPLIT: SplitRule = SplitRule::BinnedSah { bins: 16 };
    const MERGE_IS_EXACT: bool = false;

    fn fit_points(points: &[DVec3]) -> Self {
        Self::fit_with_axes(points, principal_axes(points))
    }

    fn refit_points(&self, points: &[DVec3]) -> Self {
        Self::fit_with_axes(points, self.rotation)
    }

    fn merge(&self, other: &Self) -> Self {
        let mut pts = [DVec3::ZERO; 16];
        pts[..8].copy_from_slice(&self.corners());
        pts[8..].copy_from_slice(&other.corners());
        Self::fit_points(&pts)
    }

    #[inline]
    fn overlaps(&self, other: &Self, pos12: &DAffine3) -> bool {
        if !pos12.is_finite() {
            return true; // conservative answer for a NaN/infinite pose
        }
        self.gap(other, pos12, 0.0) <= 0.0
    }

    #[inline]
    fn distance_lower_bound(&self, other: &Self, pos12: &DAffine3) -> f64 {
        if !pos12.is_finite() {
            return 0.0; // conservative answer for a NaN/infinite pose
        }
        self.gap(other, pos12, f64::INFINITY).max(0.0)
    }

    #[inline]
    fn transformed(&self, pose: &DAffine3) -> Self {
        Self::new(
            pose.transform_point3(self.center),
            rot(pose) * self.rotation,
            self.half_extents,
        )
    }

    #[inline]
    fn contains_point(&self, p: DVec3, tolerance: f64) -> bool {
        let q = self.rotation.transpose() * (p - self.center);
        q.abs()
            .cmple(self.half_extents + DVec3::splat(tolerance))
            .all()
    }

    #[inline]
    fn center(&self) -> DVec3 {
        self.center
    }

    #[inline]
    fn aabb(&self) -> Aabb {
        let r = self.rotation;
        let e = DVec3::new(
            r.row(0).abs().dot(self.half_extents),
            r.row(1).abs().dot(self.half_extents),
            r.row(2).abs().dot(self.half_extents),
        );
        Aabb::new(self.center - e, self.center + e)
    }

    #[inline]
    fn size(&self) -> f64 {
        self.half_extents.length()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DQuat;

    #[test]
    fn parallel_boxes_touching_faces_overlap() {
        let b = Obb::new(DVec3::ZERO, DMat3::IDENTITY, DVec3::ONE);
        let pose = DAffine3::from_translation(DVec3::new(2.0, 0.0, 0.0));
        assert!(b.overlaps(&b, &pose));
        let pose = DAffine3::from_translation(DVec3::new(2.001, 0.0, 0.0));
        assert!(!b.overlaps(&b, &pose));
        assert!((b.distance_lower_bound(&b, &pose) - 0.001).abs() < 1e-9);
    }

    #[test]
    fn edge_edge_separation_is_found() {
        // two unit cubes rotated so that only an edge-edge axis separates them
        let b = Obb::new(DVec3::ZERO, DMat3::IDENTITY, DVec3::splat(0.5));
        let r1 = DQuat::from_rotation_x(std::f64::consts::FRAC_PI_4);
        let r2 = DQuat::from_rotation_z(std::f64::consts::FRAC_PI_4);
        let a = b.transformed(&DAffine3::from_quat(r1));
        let c = b.transformed(&DAffine3::from_quat(r2));
        // edges along x (of a, at top y... ) and along z (of c); separated along y
        let h = 0.5 * 2f64.sqrt();
        let pose = DAffine3::from_translation(DVec3::new(0.0, 2.0 * h + 0.01, 0.0));
        assert!(!a.overlaps(&c, &pose));
        let pose = DAffine3::from_translation(DVec3::new(0.0, 2.0 * h - 0.01, 0.0));
        assert!(a.overlaps(&c, &pose));
    }
}
