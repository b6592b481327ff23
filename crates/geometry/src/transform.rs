//! Rigid transforms: the one inverse every crate of the workspace uses.

use glam::DAffine3;

/// The inverse of a rigid transform (a rotation and a translation): the transposed rotation
/// and the rotated, negated translation. Cheaper and better conditioned than a general
/// affine inverse; the result is only an inverse when `p.matrix3` is a rotation.
///
/// # Example
/// ```
/// use ccd_geometry::glam::{DAffine3, DQuat, DVec3};
/// use ccd_geometry::rigid_inverse;
///
/// let p = DAffine3::from_rotation_translation(DQuat::from_rotation_z(0.7), DVec3::new(1.0, 2.0, 3.0));
/// let q = rigid_inverse(&p) * p;
/// assert!(q.abs_diff_eq(DAffine3::IDENTITY, 1e-12));
/// ```
#[inline]
#[must_use]
pub fn rigid_inverse(p: &DAffine3) -> DAffine3 {
    let r = p.matrix3.transpose();
    DAffine3 {
        matrix3: r,
        translation: -(r * p.translation),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{DQuat, DVec3};

    #[test]
    fn matches_the_affine_inverse() {
        let p = DAffine3::from_rotation_translation(
            DQuat::from_euler(glam::EulerRot::XYZ, 0.3, -1.1, 2.0),
            DVec3::new(-4.0, 0.5, 9.0),
        );
        assert!(rigid_inverse(&p).abs_diff_eq(p.inverse(), 1e-12));
        let x = DVec3::new(0.1, 0.2, 0.3);
        assert!(
            rigid_inverse(&p)
                .transform_point3(p.transform_point3(x))
                .abs_diff_eq(x, 1e-12)
        );
    }
}
