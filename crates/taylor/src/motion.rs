//! Constant-velocity rigid motion parameters (Avatar, Sec. 4, Eq. 6–10; CATCH, Sec. 3.2).

use glam::{DAffine3, DMat3, DVec3};

use crate::{Interval, TaylorError};

/// A rigid motion over `t ∈ [0, 1]` with constant linear and angular velocity:
/// `R(t) = cos(ωt) A + sin(ωt) B + C` and `T(t) = c + t s` (Avatar, Eq. 6–10), where
/// `A = R₀ − u uᵀ R₀`, `B = u* R₀`, `C = u uᵀ R₀`; equivalently `R(t) = Rot(u, ωt) R₀`.
///
/// The motion is that of a frame relative to its parent (or the world for a root). The
/// parameters are private and always valid: [`ConstantVelocity::new`] (and deserialisation,
/// feature `serde`) checks them.
///
/// # Domain
/// Every parameter finite; `axis` a unit vector (tolerance 1e-9) and `rotation` a rotation
/// matrix (`RᵀR = I`, `det R = 1`, tolerance 1e-6); `|angle| ≤` [`ConstantVelocity::MAX_ANGLE`]
/// (1e6 rad); every coordinate of `translation` and `displacement` at most
/// [`ConstantVelocity::MAX_COORDINATE`] (1e100) in magnitude.
///
/// # Example
/// ```
/// use ccd_taylor::ConstantVelocity;
/// use ccd_taylor::glam::{DMat3, DVec3};
///
/// let m = ConstantVelocity::new(DMat3::IDENTITY, DVec3::ZERO, DVec3::Z, std::f64::consts::FRAC_PI_2, DVec3::X)?;
/// let p = m.pose_at(1.0).transform_point3(DVec3::X);
/// assert!((p - DVec3::new(1.0, 1.0, 0.0)).length() < 1e-12);
/// assert!(ConstantVelocity::new(DMat3::IDENTITY, DVec3::ZERO, DVec3::Z, f64::NAN, DVec3::X).is_err());
/// # Ok::<(), ccd_taylor::TaylorError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(try_from = "RawConstantVelocity", into = "RawConstantVelocity")
)]
pub struct ConstantVelocity {
    rotation: DMat3,
    translation: DVec3,
    axis: DVec3,
    angle: f64,
    displacement: DVec3,
}

/// The serialised form of a [`ConstantVelocity`], validated on the way in.
#[cfg(feature = "serde")]
#[derive(serde::Serialize, serde::Deserialize)]
struct RawConstantVelocity {
    rotation: DMat3,
    translation: DVec3,
    axis: DVec3,
    angle: f64,
    displacement: DVec3,
}

#[cfg(feature = "serde")]
impl From<ConstantVelocity> for RawConstantVelocity {
    fn from(m: ConstantVelocity) -> Self {
        Self {
            rotation: m.rotation,
            translation: m.translation,
            axis: m.axis,
            angle: m.angle,
            displacement: m.displacement,
        }
    }
}

#[cfg(feature = "serde")]
impl TryFrom<RawConstantVelocity> for ConstantVelocity {
    type Error = TaylorError;

    fn try_from(r: RawConstantVelocity) -> Result<Self, TaylorError> {
        Self::new(r.rotation, r.translation, r.axis, r.angle, r.displacement)
    }
}

/// Tolerance on `|u| = 1` for [`ConstantVelocity::new`].
const UNIT_TOL: f64 = 1e-9;
/// Tolerance on `RᵀR = I` and `det R = 1` for [`ConstantVelocity::new`].
const RIGID_TOL: f64 = 1e-6;

impl ConstantVelocity {
    /// Largest `|angle|` accepted, in radians.
    pub const MAX_ANGLE: f64 = 1e6;
    /// Largest magnitude of a coordinate of `translation` or `displacement`.
    pub const MAX_COORDINATE: f64 = 1e100;

    /// A validated motion.
    ///
    /// # Errors
    /// [`TaylorError::InvalidMotion`] when a parameter is not finite, the axis is not unit
    /// length (tolerance 1e-9), the rotation is not orthonormal with determinant 1
    /// (tolerance 1e-6), or a value is outside the domain (see the type's docs).
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
        if (axis.length() - 1.0).abs() > UNIT_TOL {
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
        if angle.abs() > Self::MAX_ANGLE {
            return Err(TaylorError::InvalidMotion(
                "the angle is larger than ConstantVelocity::MAX_ANGLE (1e6 rad)",
            ));
        }
        if translation.abs().max_element() > Self::MAX_COORDINATE
            || displacement.abs().max_element() > Self::MAX_COORDINATE
        {
            return Err(TaylorError::InvalidMotion(
                "a coordinate is larger than ConstantVelocity::MAX_COORDINATE (1e100)",
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

    /// A motion that stays at `pose`.
    ///
    /// # Errors
    /// As [`ConstantVelocity::new`] for the pose's rotation and translation.
    pub fn stationary(pose: DAffine3) -> Result<Self, TaylorError> {
        Self::new(pose.matrix3, pose.translation, DVec3::Z, 0.0, DVec3::ZERO)
    }

    /// Orientation `R₀` at `t = 0`.
    #[inline]
    #[must_use]
    pub fn rotation(&self) -> DMat3 {
        self.rotation
    }

    /// Position `c` at `t = 0`.
    #[inline]
    #[must_use]
    pub fn translation(&self) -> DVec3 {
        self.translation
    }

    /// Unit rotation axis `u` (in the parent frame).
    #[inline]
    #[must_use]
    pub fn axis(&self) -> DVec3 {
        self.axis
    }

    /// Total rotation angle `ω` over the step (radians; the angular speed on `[0, 1]`).
    #[inline]
    #[must_use]
    pub fn angle(&self) -> f64 {
        self.angle
    }

    /// Total displacement `s` over the step.
    #[inline]
    #[must_use]
    pub fn displacement(&self) -> DVec3 {
        self.displacement
    }

    /// `R(t)` in f64 (`R₀` itself at `t = 0` and for a motion without rotation: the
    /// rotation by a zero angle is the identity, so the product would return `R₀` up to
    /// the signs of zero entries, after a `sin_cos` and a matrix product).
    #[must_use]
    pub fn rotation_at(&self, t: f64) -> DMat3 {
        let angle = self.angle * t;
        if angle == 0.0 {
            return self.rotation;
        }
        DMat3::from_axis_angle(self.axis, angle) * self.rotation
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

    /// The matrices `A, B, C` of Eq. 9 as interval matrices `[row][col]`, enclosing the
    /// exact values for the stored inputs.
    ///
    /// Computed in round-to-nearest f64 with one error bound for all 27 entries (see
    /// [`ConstantVelocity::abc_nearest`]), which costs a fraction of entry-by-entry
    /// outward rounding for intervals a few ulps wider at most; inputs for which that
    /// bound is not finite take the outward-rounded interval path.
    #[must_use]
    pub fn abc(&self) -> [[[Interval; 3]; 3]; 3] {
        let Some((m, rad)) = self.abc_nearest() else {
            return self.abc_outward();
        };
        let mut out = [[[Interval::ZERO; 3]; 3]; 3];
        for (o, v) in out.iter_mut().zip(&m) {
            for (o, v) in o.iter_mut().zip(v) {
                for (o, &v) in o.iter_mut().zip(v) {
                    *o = Interval::new(v - rad, v + rad);
                }
            }
        }
        out
    }

    /// `A, B, C` (as [`ConstantVelocity::abc`]) in round-to-nearest f64, with a radius
    /// `r` such that every exact entry lies within `r` of its computed value (the
    /// endpoints `v ± r`, rounded to nearest, still enclose it); `None` when an input or the
    /// radius is not finite or is so large (above 10²⁸⁰) that an entry could overflow.
    ///
    /// Bound, with `u = 2⁻⁵³`, `m_u = max |u_k|`, `m_r = max |R₀ᵢⱼ|`, `K = m_u² m_r`
    /// (first-order terms; the factor 2 of the radius covers the higher-order ones and
    /// the rounding of the radius and of `v ± r`): `uᵀR₀ⱼ = Σₖ uₖ Rₖⱼ` summed left to
    /// right is within `γ₃ Σ|uₖ Rₖⱼ| ≤ 9u m_u m_r` of its exact value; `Cᵢⱼ = uᵢ (uᵀR₀ⱼ)`
    /// within `m_u · 9u m_u m_r + u |Cᵢⱼ| ≤ 12u K`; `Aᵢⱼ = Rᵢⱼ − Cᵢⱼ` within
    /// `12u K + u(m_r + 3K) = 15u K + u m_r`; `Bᵢⱼ = u_p z − u_q y` within
    /// `γ₂ (|u_p z| + |u_q y|) ≤ 4u m_u m_r`. Each product can also lose `2⁻¹⁰⁷⁵` to
    /// underflow (a few per entry). The radius taken is
    /// `32u (K + m_r + m_u m_r) + 64 · 2⁻¹⁰⁷⁴`, at least twice every bound.
    ///
    /// The operations are fixed, so a caller may bound their rounding its own way (the
    /// midpoint–radius rotation rows of `ccd-ca-articulated` fold them into one bound per
    /// entry): `uᵀR₀ⱼ = (u₀R₀ⱼ + u₁R₁ⱼ) + u₂R₂ⱼ`, `Cᵢⱼ = uᵢ · uᵀR₀ⱼ`, `Aᵢⱼ = Rᵢⱼ − Cᵢⱼ`,
    /// `B₀ⱼ = u₁R₂ⱼ − u₂R₁ⱼ`, `B₁ⱼ = u₂R₀ⱼ − u₀R₂ⱼ`, `B₂ⱼ = u₀R₁ⱼ − u₁R₀ⱼ`.
    #[must_use]
    pub fn abc_nearest(&self) -> Option<([[[f64; 3]; 3]; 3], f64)> {
        let u = self.axis.to_array();
        let cols = [
            self.rotation.x_axis,
            self.rotation.y_axis,
            self.rotation.z_axis,
        ];
        let m_u = u[0].abs().max(u[1].abs()).max(u[2].abs());
        let m_r = cols
            .iter()
            .map(|c| c.abs().max_element())
            .fold(0.0_f64, f64::max);
        let rad =
            16.0 * f64::EPSILON * (m_u * m_u * m_r + m_r + m_u * m_r) + 64.0 * f64::from_bits(1);
        // (`max` skips NaN: the inputs are checked separately)
        if !(self.axis.is_finite() && self.rotation.is_finite() && rad < 1e280) {
            return None;
        }
        let mut a = [[0.0; 3]; 3];
        let mut b = [[0.0; 3]; 3];
        let mut c = [[0.0; 3]; 3];
        for (j, col) in cols.iter().enumerate() {
            let (x, y, z) = (col.x, col.y, col.z);
            let ut_r = u[0] * x + u[1] * y + u[2] * z;
            let r = [x, y, z];
            for i in 0..3 {
                c[i][j] = u[i] * ut_r;
                a[i][j] = r[i] - c[i][j];
            }
            b[0][j] = u[1] * z - u[2] * y;
            b[1][j] = u[2] * x - u[0] * z;
            b[2][j] = u[0] * y - u[1] * x;
        }
        Some(([a, b, c], rad))
    }

    /// [`ConstantVelocity::abc`] entry by entry in outward-rounded interval arithmetic.
    #[must_use]
    fn abc_outward(&self) -> [[[Interval; 3]; 3]; 3] {
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
