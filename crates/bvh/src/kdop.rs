//! 18-DOPs: discrete oriented polytopes bounded by 9 fixed slab directions.

use ccd_geometry::Aabb;
use glam::{DAffine3, DVec3};

use crate::fit::slack;
use crate::volume::{BoundingVolume, SplitRule};

/// The 9 slab directions of an 18-DOP (not normalised): the coordinate axes and the 6 face
/// diagonals of the unit cube.
pub const KDOP18_AXES: [DVec3; 9] = [
    DVec3::new(1.0, 0.0, 0.0),
    DVec3::new(0.0, 1.0, 0.0),
    DVec3::new(0.0, 0.0, 1.0),
    DVec3::new(1.0, 1.0, 0.0),
    DVec3::new(1.0, -1.0, 0.0),
    DVec3::new(1.0, 0.0, 1.0),
    DVec3::new(1.0, 0.0, -1.0),
    DVec3::new(0.0, 1.0, 1.0),
    DVec3::new(0.0, 1.0, -1.0),
];

/// Lengths of [`KDOP18_AXES`].
const AXIS_LEN: [f64; 9] = [
    1.0,
    1.0,
    1.0,
    std::f64::consts::SQRT_2,
    std::f64::consts::SQRT_2,
    std::f64::consts::SQRT_2,
    std::f64::consts::SQRT_2,
    std::f64::consts::SQRT_2,
    std::f64::consts::SQRT_2,
];

/// An 18-DOP: the intersection of the 9 slabs `min[k] <= axis_k · p <= max[k]` for the
/// directions [`KDOP18_AXES`]. Tighter than an [`Aabb`] around slanted geometry and as cheap to
/// merge (merging is exact, so a BVH of 18-DOPs refits bottom-up). The LA paper (Sec. IV) uses
/// k-DOPs for deformable meshes.
///
/// Under a rotation a k-DOP is no longer a k-DOP of the same axes: [`BoundingVolume::overlaps`]
/// with a rotating `pos12` bounds the other volume's box part by an 18-DOP in this frame
/// (conservative).
///
/// # Example
/// ```
/// use ccd_bvh::{BoundingVolume, Kdop18};
/// use ccd_bvh::glam::{DAffine3, DVec3};
///
/// // a thin diagonal stick: its 18-DOP is much tighter than its box
/// let k = Kdop18::fit_points(&[DVec3::ZERO, DVec3::new(1.0, 1.0, 0.0)]);
/// assert!(!k.contains_point(DVec3::new(1.0, 0.0, 0.0), 1e-9));
/// let pos12 = DAffine3::from_translation(DVec3::new(0.6, -0.6, 0.0));
/// assert!(!k.overlaps(&k, &pos12));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Kdop18 {
    /// Lower slab bounds, one per axis of [`KDOP18_AXES`].
    pub min: [f64; 9],
    /// Upper slab bounds.
    pub max: [f64; 9],
}

impl Kdop18 {
    /// The empty 18-DOP (identity of merge).
    pub const EMPTY: Self = Self {
        min: [f64::INFINITY; 9],
        max: [f64::NEG_INFINITY; 9],
    };

    #[inline]
    fn project(p: DVec3) -> [f64; 9] {
        [
            p.x,
            p.y,
            p.z,
            p.x + p.y,
            p.x - p.y,
            p.x + p.z,
            p.x - p.z,
            p.y + p.z,
            p.y - p.z,
        ]
    }

    /// The 18-DOP grown to hold `p`.
    #[inline]
    #[must_use]
    pub fn include_point(mut self, p: DVec3) -> Self {
        let d = Self::project(p);
        // plain comparisons (one `minsd`/`maxsd` each; a NaN coordinate is ignored, as
        // `f64::min` would)
        for ((lo, hi), x) in self.min.iter_mut().zip(&mut self.max).zip(d) {
            *lo = if x < *lo { x } else { *lo };
            *hi = if x > *hi { x } else { *hi };
        }
        self
    }

    /// The 18-DOP moved by a pure translation `t`.
    #[inline]
    #[must_use]
    pub fn translated(mut self, t: DVec3) -> Self {
        let d = Self::project(t);
        for ((lo, hi), x) in self.min.iter_mut().zip(&mut self.max).zip(d) {
            *lo += x;
            *hi += x;
        }
        self
    }

    /// The 18-DOP of the box part (the first three slabs) moved by `pose`.
    fn moved(&self, pose: &DAffine3) -> Self {
        if pose.matrix3 == glam::DMat3::IDENTITY {
            let mut out = self.translated(pose.translation);
            let s = slack(
                self.min
                    .iter()
                    .chain(&self.max)
                    .fold(0.0f64, |m, x| m.max(x.abs()))
                    + pose.translation.abs().max_element(),
            );
            for (lo, hi) in out.min.iter_mut().zip(&mut out.max) {
                *lo -= s;
                *hi += s;
            }
            return out;
        }
        // the moved box part (8 corners) bounded on every axis: exact for the moved box,
        // which contains the moved 18-DOP
        let b = BoundingVolume::aabb(self);
        let mut out = Self::EMPTY;
        for p in b.corners() {
            out = out.include_point(pose.transform_point3(p));
        }
        let c = pose.transform_point3(b.center());
        let h = (b.max - b.min) * 0.5;
        let s = slack(c.abs().max_element() + h.max_element());
        for k in 0..9 {
            out.min[k] -= s;
            out.max[k] += s;
        }
        out
    }

    /// Largest slab gap (normalised), a lower bound on the distance; `<= 0` when all slabs
    /// overlap.
    #[inline]
    fn gap(&self, other: &Self) -> f64 {
        (0..9).fold(f64::NEG_INFINITY, |best, k| {
            best.max((self.min[k] - other.max[k]).max(other.min[k] - self.max[k]) / AXIS_LEN[k])
        })
    }
}

impl BoundingVolume for Kdop18 {
    const DEFAULT_SPLIT: SplitRule = SplitRule::BinnedSah { bins: 16 };
    const MERGE_IS_EXACT: bool = true;

    fn fit_points(points: &[DVec3]) -> Self {
        if points.is_empty() {
            return Self::EMPTY.include_point(DVec3::ZERO);
        }
        points.iter().fold(Self::EMPTY, |k, p| k.include_point(*p))
    }

    #[inline]
    fn merge(&self, other: &Self) -> Self {
        let mut out = *self;
        for k in 0..9 {
            let (lo, hi) = (other.min[k], other.max[k]);
            out.min[k] = if lo < out.min[k] { lo } else { out.min[k] };
            out.max[k] = if hi > out.max[k] { hi } else { out.max[k] };
        }
        out
    }

    #[inline]
    fn overlaps(&self, other: &Self, pos12: &DAffine3) -> bool {
        if !pos12.is_finite() {
            return true; // conservative answer for a NaN/infinite pose
        }
        self.gap(&other.moved(pos12)) <= 0.0
    }

    #[inline]
    fn distance_lower_bound(&self, other: &Self, pos12: &DAffine3) -> f64 {
        if !pos12.is_finite() {
            return 0.0; // conservative answer for a NaN/infinite pose
        }
        self.gap(&other.moved(pos12)).max(0.0)
    }

    #[inline]
    fn transformed(&self, pose: &DAffine3) -> Self {
        self.moved(pose)
    }

    #[inline]
    fn contains_point(&self, p: DVec3, tolerance: f64) -> bool {
        let d = Self::project(p);
        (0..9).all(|k| {
            let t = tolerance * AXIS_LEN[k];
            d[k] >= self.min[k] - t && d[k] <= self.max[k] + t
        })
    }

    #[inline]
    fn center(&self) -> DVec3 {
        BoundingVolume::aabb(self).center()
    }

    #[inline]
    fn aabb(&self) -> Aabb {
        Aabb::new(
            DVec3::new(self.min[0], self.min[1], self.min[2]),
            DVec3::new(self.max[0], self.max[1], self.max[2]),
        )
    }

    #[inline]
    fn size(&self) -> f64 {
        0.5 * BoundingVolume::aabb(self).extents().length()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DQuat;

    #[test]
    fn rotated_overlap_is_conservative() {
        let k = Kdop18::fit_points(&[DVec3::ZERO, DVec3::ONE, DVec3::new(1.0, 0.0, 0.3)]);
        let pose = DAffine3::from_rotation_translation(
            DQuat::from_rotation_z(0.4),
            DVec3::new(0.5, 0.2, 0.1),
        );
        assert!(k.overlaps(&k, &pose));
        let moved = k.transformed(&pose);
        for p in [DVec3::ZERO, DVec3::ONE, DVec3::new(1.0, 0.0, 0.3)] {
            assert!(moved.contains_point(pose.transform_point3(p), 1e-12));
        }
    }
}
