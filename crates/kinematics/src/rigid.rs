//! Constant-velocity rigid motion between two poses.

use ccd_taylor::{ConstantVelocity, Enclosure, Interval, Transform};
use glam::{DAffine3, DMat3, DQuat, DVec3};

use crate::KinematicsError;

/// Tolerance on `|RᵀR − I|` and `|det R − 1|` for a pose to count as rigid.
const RIGID_TOL: f64 = 1e-6;

/// The constant-velocity motion of a rigid frame from a start pose to an end pose over
/// `t ∈ [0, 1]`: its origin moves with constant velocity `s = c₁ − c₀` and it turns with
/// constant angular velocity `ω u` about a fixed unit axis `u` through the origin, where
/// `(u, ω)` is the rotation `R₁ R₀ᵀ` with `ω ∈ [0, π]` (Avatar, Eq. 6–10; CATCH, Sec. 3.2).
///
/// # Example
/// ```
/// use ccd_kinematics::RigidMotion;
/// use ccd_kinematics::glam::{DAffine3, DQuat, DVec3};
///
/// let end = DAffine3::from_rotation_translation(DQuat::from_rotation_x(3.0), DVec3::Z);
/// let m = RigidMotion::between(DAffine3::IDENTITY, end)?;
/// assert!((m.angle() - 3.0).abs() < 1e-12);
/// assert!(m.pose_at(1.0).abs_diff_eq(end, 1e-12));
/// # Ok::<(), ccd_kinematics::KinematicsError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RigidMotion {
    params: ConstantVelocity,
}

fn check_rigid(pose: &DAffine3, which: &'static str) -> Result<(), KinematicsError> {
    if !pose.is_finite() {
        return Err(KinematicsError::NonFinitePose { which });
    }
    let r = pose.matrix3;
    let gram = r.transpose() * r - DMat3::IDENTITY;
    let deviation = gram
        .to_cols_array()
        .iter()
        .fold(0.0f64, |m, x| m.max(x.abs()));
    let det = r.determinant();
    if deviation > RIGID_TOL || (det - 1.0).abs() > RIGID_TOL {
        return Err(KinematicsError::NonRigidPose {
            which,
            deviation,
            det,
        });
    }
    Ok(())
}

/// Axis and angle in `[0, π]` of a rotation matrix, robust near 0 and near π (through the
/// unit quaternion, whose extraction is stable everywhere).
fn axis_angle(r: DMat3) -> (DVec3, f64) {
    let mut q = DQuat::from_mat3(&r).normalize();
    if q.w < 0.0 {
        q = -q;
    }
    let v = DVec3::new(q.x, q.y, q.z);
    let s = v.length();
    if s < 1e-300 {
        return (DVec3::Z, 0.0);
    }
    (v / s, 2.0 * s.atan2(q.w))
}

impl RigidMotion {
    /// The constant-velocity motion from `start` to `end` (both rigid, local → world).
    ///
    /// # Errors
    /// [`KinematicsError::NonFinitePose`] or [`KinematicsError::NonRigidPose`] (tolerance
    /// 1e-6 on `RᵀR = I` and `det R = 1`).
    pub fn between(start: DAffine3, end: DAffine3) -> Result<Self, KinematicsError> {
        check_rigid(&start, "start")?;
        check_rigid(&end, "end")?;
        let (axis, angle) = axis_angle(end.matrix3 * start.matrix3.transpose());
        let params = ConstantVelocity {
            rotation: start.matrix3,
            translation: start.translation,
            axis,
            angle,
            displacement: end.translation - start.translation,
        };
        Ok(Self { params })
    }

    /// A body that does not move.
    ///
    /// # Errors
    /// As [`RigidMotion::between`].
    pub fn stationary(pose: DAffine3) -> Result<Self, KinematicsError> {
        Self::between(pose, pose)
    }

    /// The motion parameters (`R₀, c₀, u, ω, s`).
    #[inline]
    #[must_use]
    pub fn params(&self) -> &ConstantVelocity {
        &self.params
    }

    /// Unit rotation axis `u` (world frame).
    #[inline]
    #[must_use]
    pub fn axis(&self) -> DVec3 {
        self.params.axis
    }

    /// Total rotation angle `ω ∈ [0, π]` over the step (also the angular speed).
    #[inline]
    #[must_use]
    pub fn angle(&self) -> f64 {
        self.params.angle
    }

    /// Translational velocity of the frame origin (`c₁ − c₀`).
    #[inline]
    #[must_use]
    pub fn linear_velocity(&self) -> DVec3 {
        self.params.displacement
    }

    /// Angular velocity vector `ω u` (world frame).
    #[inline]
    #[must_use]
    pub fn angular_velocity(&self) -> DVec3 {
        self.params.axis * self.params.angle
    }

    /// The pose at time `t`.
    #[inline]
    #[must_use]
    pub fn pose_at(&self, t: f64) -> DAffine3 {
        self.params.pose_at(t)
    }

    /// World position at time `t` of a point given in the local frame.
    #[inline]
    #[must_use]
    pub fn point_at(&self, local: DVec3, t: f64) -> DVec3 {
        self.params.rotation_at(t) * local + self.params.translation_at(t)
    }

    /// World velocity (per unit of normalized time) at time `t` of a local point:
    /// `s + ω u × R(t) x`.
    #[inline]
    #[must_use]
    pub fn velocity_of(&self, local: DVec3, t: f64) -> DVec3 {
        self.params.displacement
            + self
                .angular_velocity()
                .cross(self.params.rotation_at(t) * local)
    }

    /// The world transform over `domain ⊆ [0, 1]` as a Taylor-model or interval transform.
    ///
    /// # Errors
    /// [`KinematicsError::TimeOutOfRange`] when `domain` is not inside `[0, 1]`.
    ///
    /// ```
    /// use ccd_kinematics::RigidMotion;
    /// use ccd_kinematics::glam::{DAffine3, DQuat, DVec3};
    /// use ccd_taylor::{Interval, TaylorModel};
    ///
    /// let end = DAffine3::from_rotation_translation(DQuat::from_rotation_y(0.5), DVec3::X);
    /// let m = RigidMotion::between(DAffine3::IDENTITY, end)?;
    /// let tr = m.enclosure::<TaylorModel>(Interval::new(0.5, 1.0))?;
    /// assert!(tr.apply(DVec3::Z).aabb().contains_point(m.point_at(DVec3::Z, 0.75)));
    /// # Ok::<(), ccd_kinematics::KinematicsError>(())
    /// ```
    pub fn enclosure<E: Enclosure>(
        &self,
        domain: Interval,
    ) -> Result<Transform<E>, KinematicsError> {
        if !Interval::UNIT.contains_interval(&domain) {
            return Err(KinematicsError::TimeOutOfRange(domain.to_string()));
        }
        Ok(Transform::from_motion(&self.params, domain))
    }

    /// An upper bound on `∫ₜ¹ |v_p · n| dτ` over every point `p` within distance `radius` of
    /// the frame origin (CATCH, Eq. 6, for one rigid body):
    /// `(1 − t) (|s · n| + ω |u × n| r)`, inflated by a relative 1e-12 for rounding.
    ///
    /// Proof: `v_p = s + ω u × x` with `x = R(τ) x₀`, `|x| ≤ r`; `(u × x) · n = x · (n × u)`,
    /// so `|v_p · n| ≤ |s · n| + ω |n × u| r` at every `τ`; integrate over `[t, 1]`.
    /// The absolute value makes it valid for any geometry (FCL's signed bound is not).
    /// `t` outside `[0, 1]` is clamped. `n` need not be unit: the bound scales with `|n|`.
    #[must_use]
    pub fn motion_bound(&self, n: DVec3, radius: f64, t: f64) -> f64 {
        let rest = 1.0 - t.clamp(0.0, 1.0);
        let lin = self.params.displacement.dot(n).abs();
        let ang = self.params.angle * self.params.axis.cross(n).length() * radius.max(0.0);
        let mu = rest * (lin + ang);
        mu * (1.0 + 1e-12) + f64::MIN_POSITIVE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_non_rigid_and_non_finite() {
        let scaled = DAffine3::from_scale(DVec3::splat(2.0));
        assert!(matches!(
            RigidMotion::between(scaled, DAffine3::IDENTITY),
            Err(KinematicsError::NonRigidPose { which: "start", .. })
        ));
        let mirrored = DAffine3::from_scale(DVec3::new(1.0, 1.0, -1.0));
        assert!(matches!(
            RigidMotion::between(DAffine3::IDENTITY, mirrored),
            Err(KinematicsError::NonRigidPose { which: "end", .. })
        ));
        let nan = DAffine3::from_translation(DVec3::new(f64::NAN, 0.0, 0.0));
        assert!(matches!(
            RigidMotion::between(nan, DAffine3::IDENTITY),
            Err(KinematicsError::NonFinitePose { which: "start" })
        ));
    }

    #[test]
    fn angle_near_pi_and_zero() {
        for angle in [
            0.0,
            1e-12,
            1e-6,
            std::f64::consts::PI - 1e-9,
            std::f64::consts::PI,
        ] {
            let end = DAffine3::from_quat(DQuat::from_axis_angle(
                DVec3::new(1.0, 2.0, 3.0).normalize(),
                angle,
            ));
            let m = RigidMotion::between(DAffine3::IDENTITY, end).unwrap();
            assert!(
                (m.angle() - angle).abs() < 1e-9,
                "angle {angle}: got {}",
                m.angle()
            );
            assert!(m.pose_at(1.0).abs_diff_eq(end, 1e-9), "angle {angle}");
        }
    }

    #[test]
    fn velocity_matches_finite_difference() {
        let start = DAffine3::from_rotation_translation(
            DQuat::from_rotation_z(0.3),
            DVec3::new(1.0, 2.0, 3.0),
        );
        let end = DAffine3::from_rotation_translation(
            DQuat::from_rotation_y(1.1),
            DVec3::new(-1.0, 0.5, 2.0),
        );
        let m = RigidMotion::between(start, end).unwrap();
        let x = DVec3::new(0.3, -0.2, 0.9);
        let h = 1e-6;
        for t in [0.1, 0.5, 0.9] {
            let fd = (m.point_at(x, t + h) - m.point_at(x, t - h)) / (2.0 * h);
            assert!((fd - m.velocity_of(x, t)).length() < 1e-6);
        }
        assert!(m.pose_at(0.0).abs_diff_eq(start, 1e-12) && m.pose_at(1.0).abs_diff_eq(end, 1e-12));
    }
}
