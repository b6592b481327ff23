//! Constant-velocity rigid motion parameters (Avatar, Sec. 4, Eq. 6–10; CATCH, Sec. 3.2).

use glam::{DAffine3, DMat3, DVec3};

use crate::{Interval, TaylorError};

/// A rigid motion over `t ∈ [0, 1]` with constant linear and angular velocity:
/// `R(t) = cos(ωt) A + sin(ωt) B + C` and `T(t) = c + t s` (Avatar, Eq. 6–10), where
/// `A = R₀ − u uᵀ R₀`, `B = u* R₀`, `C = u uᵀ R₀`; equivalently `R(t) = Rot(u, ωt) R₀`.
///
/// The motion is that of a frame relative to its parent (or the world for a root).
/// `axis` must be a unit vector and `rotation` a rotation matrix; [`ConstantVelocity::new`]
/// checks both.
///
/// # Example
/// ```
/// use ccd_taylor::ConstantVelocity;
/// use ccd_taylor::glam::{DMat3, DVec3};
///
/// let m = ConstantVelocity::new(DMat3::IDENTITY, DVec3::ZERO, DVec3::Z, std::f64::consts::FRAC_PI_2, DVec3::X)?;
/// let p = m.pose_at(1.0).transform_point3(DVec3::X);
/// assert!((p - DVec3::new(1.0, 1.0, 0.0)).length() < 1e-12);
/// # Ok::<(), ccd_taylor::TaylorError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ConstantVelocity {
    /// Orientation `R₀` at `t = 0`.
    pub rotation: DMat3,
    /// Position `c` at `t = 0`.
    pub translation: DVec3,
    /// Unit rotation axis `u` (in the parent frame).
    pub axis: DVec3,
    /// Total rotation angle `ω` over the step (radians; the angular speed on `[0, 1]`).
    pub angle: f64,
    /// Total displacement `s` over the step.
    pub displacement: DVec3,
}

/// Tolerance on `|u| = 1` and on `RᵀR = I` for [`ConstantVelocity::new`].
const RIGID_TOL: f64 = 1e-9;

impl ConstantVelocity {
    /// A validated motion.
    ///
    /// # Errors
    /// [`TaylorError::InvalidMotion`] when a parameter is not finite, the axis is not unit
    /// length, or the rotation is not orthonormal with determinant 1 (tolerance 1e-9).
    pub fn new(
        rotation: DMat3,
        translation: DVec3,
        axis: DVec3,
        angle: f64,
        displacement: DVec3,
    ) -> Result<Self, TaylorError> {
        let finite = rotation.is_finite()
            && translation.is_finite()
            && axis.is_finite()
            && angle.is_finite()
            && displacement.is_finite();
        if !finite {
            return Err(TaylorError::InvalidMotion("a parameter is not finite"));
        }
        if (axis.length() - 1.0).abs() > RIGID_TOL {
            return Err(TaylorError::InvalidMotion("the axis is not a unit vector"));
        }
        let gram = rotation.transpose() * rotation;
        if !gram.abs_diff_eq(DMat3::IDENTITY, RIGID_TOL)
            || (rotation.determinant() - 1.0).abs() > RIGID_TOL
        {
            return Err(TaylorError::InvalidMotion(
                "the rotation is not a rotation matrix",
            ));
        }
        Ok(Self {
            rotation,
            translation,
            axis,
            angle,
            displacement,
        })
    }

    /// A motion that stays at `pose` (must be rigid; not checked).
    #[must_use]
    pub fn stationary(pose: DAffine3) -> Self {
        Self {
            rotation: pose.matrix3,
            translation: pose.translation,
            axis: DVec3::Z,
            angle: 0.0,
            displacement: DVec3::ZERO,
        }
    }

    /// `R(t)` in f64.
    #[must_use]
    pub fn rotation_at(&self, t: f64) -> DMat3 {
        DMat3::from_axis_angle(self.axis, self.angle * t) * self.rotation
    }

    /// `T(t) = c + t s` in f64.
    #[inline]
    #[must_use]
    pub fn translation_at(&self, t: f64) -> DVec3 {
        self.translation + self.displacement * t
    }

    /// The pose at time `t` in f64.
    #[must_use]
    pub fn pose_at(&self, t: f64) -> DAffine3 {
        DAffine3 {
            matrix3: self.rotation_at(t),
            translation: self.translation_at(t),
        }
    }

    /// The matrices `A, B, C` of Eq. 9 as interval matrices `[row][col]`, computed in
    /// outward-rounded arithmetic so they enclose the exact values for the stored inputs.
    #[must_use]
    pub fn abc(&self) -> [[[Interval; 3]; 3]; 3] {
        let u = self.axis.to_array().map(Interval::point);
        let r = |i: usize, j: usize| Interval::point(self.rotation.col(j)[i]);
        let mut a = [[Interval::ZERO; 3]; 3];
        let mut b = [[Interval::ZERO; 3]; 3];
        let mut c = [[Interval::ZERO; 3]; 3];
        for j in 0..3 {
            // uᵀ R₀ column j
            let ut_r = u[0] * r(0, j) + u[1] * r(1, j) + u[2] * r(2, j);
            for i in 0..3 {
                c[i][j] = u[i] * ut_r;
                a[i][j] = r(i, j) - c[i][j];
            }
            // u × (column j of R₀)
            let (x, y, z) = (r(0, j), r(1, j), r(2, j));
            b[0][j] = u[1] * z - u[2] * y;
            b[1][j] = u[2] * x - u[0] * z;
            b[2][j] = u[0] * y - u[1] * x;
        }
        [a, b, c]
    }
}
