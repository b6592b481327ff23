//! Constant-velocity rigid motion between two poses.

use ccd_taylor::{ConstantVelocity, Enclosure, Interval, Transform};
use glam::{DAffine3, DMat3, DQuat, DVec3};

use crate::KinematicsError;

/// Tolerance on `|RᵀR − I|` and `|det R − 1|` for a pose to count as rigid.
const RIGID_TOL: f64 = 1e-6;

/// The constant-velocity motion of a rigid frame over `t ∈ [0, 1]`: a rotation centre fixed
/// in the frame ([`local_center`](Self::local_center), the frame origin unless given) moves
/// with constant velocity `s`, and the frame turns about it with constant angular velocity
/// `ω u` (unit axis `u` fixed in the parent frame, `ω ≥ 0`, any size up to
/// [`RigidMotion::MAX_ANGLE`]) (Avatar, Eq. 6–10; CATCH, Sec. 3.2):
/// `x(t) = Rot(u, ωt) R₀ (x − c) + C₀ + t s` for a local point `x`, with `C₀ = R₀ c + T₀` the
/// centre's start position.
///
/// Constructors:
/// - [`between`](Self::between): from a start and an end pose, turning the short way
///   (`ω ≤ π`) about the frame origin;
/// - [`from_axis_angle`](Self::from_axis_angle): a start pose, an axis and an angle of any
///   size and sign about the frame origin, and a displacement — e.g. a revolute joint going
///   from `q₀` to `q₁`;
/// - [`from_velocities`](Self::from_velocities): linear and angular velocities about a centre
///   given in the body frame (parry's `NonlinearRigidMotion`);
/// - [`stationary`](Self::stationary).
///
/// # Domain
/// Every constructor (and deserialisation, feature `serde`) checks that the input is finite,
/// that the angle is at most [`RigidMotion::MAX_ANGLE`] and that every coordinate (start and
/// end translations, displacement, the centre in the body frame and in the world) is at most
/// [`RigidMotion::MAX_COORDINATE`] in
/// magnitude — the range in which the workspace's queries are proven — and returns
/// [`KinematicsError::MotionOutOfDomain`] otherwise.
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
///
/// // one and a half turns about z: the long way, which `between` cannot express
/// let spin = RigidMotion::from_axis_angle(DAffine3::IDENTITY, DVec3::Z, 3.0 * std::f64::consts::PI, DVec3::ZERO)?;
/// assert!(spin.point_at(DVec3::X, 0.5).abs_diff_eq(-DVec3::Y, 1e-12)); // ¾ of a turn: x → −y
/// # Ok::<(), ccd_kinematics::KinematicsError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(try_from = "RawRigidMotion", into = "RawRigidMotion")
)]
pub struct RigidMotion {
    /// The motion of the centre frame: the body frame moved to the rotation centre.
    params: ConstantVelocity,
    /// The rotation centre in the body frame.
    center: DVec3,
}

/// The serialised form of a [`RigidMotion`]: its stored parameters, validated on the way in.
#[cfg(feature = "serde")]
#[derive(serde::Serialize, serde::Deserialize)]
struct RawRigidMotion {
    rotation: DMat3,
    center_start: DVec3,
    axis: DVec3,
    angle: f64,
    displacement: DVec3,
    local_center: DVec3,
}

#[cfg(feature = "serde")]
impl From<RigidMotion> for RawRigidMotion {
    fn from(m: RigidMotion) -> Self {
        let p = &m.params;
        Self {
            rotation: p.rotation(),
            center_start: p.translation(),
            axis: p.axis(),
            angle: p.angle(),
            displacement: p.displacement(),
            local_center: m.center,
        }
    }
}

#[cfg(feature = "serde")]
impl TryFrom<RawRigidMotion> for RigidMotion {
    type Error = KinematicsError;

    fn try_from(r: RawRigidMotion) -> Result<Self, KinematicsError> {
        check_rigid(
            &DAffine3::from_mat3_translation(r.rotation, r.center_start),
            "start",
        )?;
        if !(r.axis.is_finite() && (r.axis.length() - 1.0).abs() <= 1e-9) {
            return Err(KinematicsError::InvalidAxis {
                axis: r.axis.to_array(),
            });
        }
        // the start translation is the centre's start position minus R₀ c
        let origin = r.center_start - r.rotation * r.local_center;
        check_domain(
            r.angle,
            &[
                ("start", origin),
                ("displacement", r.displacement),
                ("local centre", r.local_center),
                ("centre", r.center_start),
            ],
        )?;
        if r.angle < 0.0 {
            return Err(KinematicsError::MotionOutOfDomain {
                what: "angle (a stored angle is never negative)",
                value: r.angle,
                max: RigidMotion::MAX_ANGLE,
            });
        }
        RigidMotion::from_parts(
            r.rotation,
            r.center_start,
            r.axis,
            r.angle,
            r.displacement,
            r.local_center,
        )
    }
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

/// [`KinematicsError::NonFiniteMotion`] or [`KinematicsError::MotionOutOfDomain`] for an
/// angle or a vector outside the domain of [`RigidMotion`].
fn check_domain(angle: f64, vectors: &[(&'static str, DVec3)]) -> Result<(), KinematicsError> {
    if !angle.is_finite() {
        return Err(KinematicsError::NonFiniteMotion { what: "angle" });
    }
    if angle.abs() > RigidMotion::MAX_ANGLE {
        return Err(KinematicsError::MotionOutOfDomain {
            what: "angle",
            value: angle,
            max: RigidMotion::MAX_ANGLE,
        });
    }
    for &(what, v) in vectors {
        if !v.is_finite() {
            return Err(KinematicsError::NonFiniteMotion { what });
        }
        let largest = v.abs().max_element();
        if largest > RigidMotion::MAX_COORDINATE {
            return Err(KinematicsError::MotionOutOfDomain {
                what,
                value: largest,
                max: RigidMotion::MAX_COORDINATE,
            });
        }
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
    /// Largest rotation angle over a step, in radians (about 159,000 turns). Beyond it the
    /// angle `ωt` loses the precision the enclosures and motion bounds are checked at.
    pub const MAX_ANGLE: f64 = 1e6;

    /// Largest magnitude of a coordinate (translations, displacement, rotation centre): the
    /// range in which the workspace's queries are proven (`|x| ≤ 1e100`).
    pub const MAX_COORDINATE: f64 = 1e100;

    /// The stored form (validated by the callers; [`ConstantVelocity::new`] checks again).
    fn from_parts(
        rotation: DMat3,
        center_start: DVec3,
        axis: DVec3,
        angle: f64,
        displacement: DVec3,
        center: DVec3,
    ) -> Result<Self, KinematicsError> {
        Ok(Self {
            params: ConstantVelocity::new(rotation, center_start, axis, angle, displacement)?,
            center,
        })
    }

    /// The constant-velocity motion from `start` to `end` (both rigid, local → world) that
    /// turns **the short way**: about the axis of `R₁ R₀ᵀ` by its angle `ω ∈ [0, π]`, about
    /// the frame origin, which moves in a straight line.
    ///
    /// Two poses do not say how many turns happened in between: a joint going from −1.6 to
    /// +1.6 rad turns by 3.2 rad, but `between` of its two poses turns by `2π − 3.2` the
    /// other way. Use [`RigidMotion::from_axis_angle`] (or
    /// [`ArticulatedMotion::from_joints`](crate::ArticulatedMotion::from_joints) for a
    /// model) when the angle is known.
    ///
    /// # Errors
    /// [`KinematicsError::NonFinitePose`] or [`KinematicsError::NonRigidPose`] (tolerance
    /// 1e-6 on `RᵀR = I` and `det R = 1`); [`KinematicsError::MotionOutOfDomain`] for a
    /// translation beyond [`RigidMotion::MAX_COORDINATE`].
    pub fn between(start: DAffine3, end: DAffine3) -> Result<Self, KinematicsError> {
        check_rigid(&start, "start")?;
        check_rigid(&end, "end")?;
        check_domain(
            0.0,
            &[("start", start.translation), ("end", end.translation)],
        )?;
        let (axis, angle) = axis_angle(end.matrix3 * start.matrix3.transpose());
        Self::from_parts(
            start.matrix3,
            start.translation,
            axis,
            angle,
            end.translation - start.translation,
            DVec3::ZERO,
        )
    }

    /// The motion that starts at `start`, turns by `angle` radians (any size and sign: the
    /// right-hand rule about `axis`, more than a turn allowed) about the frame origin, with
    /// `axis` fixed in the parent (world) frame, while the origin moves by `displacement`:
    /// `pose_at(t) = (Rot(axis, angle·t) R₀, T₀ + t·displacement)`.
    ///
    /// A negative angle is stored as its magnitude about the reversed axis
    /// ([`angle`](Self::angle) is never negative).
    ///
    /// # Errors
    /// [`KinematicsError::NonFinitePose`] or [`KinematicsError::NonRigidPose`] for `start`;
    /// [`KinematicsError::NonFiniteMotion`] for a NaN or infinite value;
    /// [`KinematicsError::InvalidAxis`] for a zero axis with a non-zero angle;
    /// [`KinematicsError::MotionOutOfDomain`] beyond [`RigidMotion::MAX_ANGLE`] or
    /// [`RigidMotion::MAX_COORDINATE`].
    ///
    /// # Example
    /// ```
    /// use ccd_kinematics::RigidMotion;
    /// use ccd_kinematics::glam::{DAffine3, DQuat, DVec3};
    ///
    /// let turns = 1.9 * std::f64::consts::TAU;
    /// let m = RigidMotion::from_axis_angle(DAffine3::IDENTITY, DVec3::Z, -turns, DVec3::X)?;
    /// assert_eq!(m.axis(), -DVec3::Z);
    /// assert!((m.angle() - turns).abs() < 1e-12);
    /// let expected = DAffine3::from_rotation_translation(DQuat::from_rotation_z(-0.5 * turns), 0.5 * DVec3::X);
    /// assert!(m.pose_at(0.5).abs_diff_eq(expected, 1e-12));
    /// # Ok::<(), ccd_kinematics::KinematicsError>(())
    /// ```
    pub fn from_axis_angle(
        start: DAffine3,
        axis: DVec3,
        angle: f64,
        displacement: DVec3,
    ) -> Result<Self, KinematicsError> {
        check_rigid(&start, "start")?;
        if !axis.is_finite() {
            return Err(KinematicsError::NonFiniteMotion { what: "axis" });
        }
        check_domain(
            angle,
            &[("start", start.translation), ("displacement", displacement)],
        )?;
        let (axis, angle) = unit_axis(axis, angle)?;
        Self::from_parts(
            start.matrix3,
            start.translation,
            axis,
            angle,
            displacement,
            DVec3::ZERO,
        )
    }

    /// The motion with constant `linear_velocity` of the rotation centre and constant
    /// `angular_velocity` (world frame, radians per step: its length is the angle turned
    /// over `[0, 1]`, any size) about a centre `local_center` given in the body frame, from
    /// the pose `start` — the semantics of parry's `NonlinearRigidMotion`:
    /// `pose_at(t)` maps a local point `x` to
    /// `Rot(ω t) R₀ (x − c) + (R₀ c + T₀) + t v`.
    ///
    /// # Errors
    /// [`KinematicsError::NonFinitePose`] or [`KinematicsError::NonRigidPose`] for `start`;
    /// [`KinematicsError::NonFiniteMotion`] for a NaN or infinite velocity or centre;
    /// [`KinematicsError::MotionOutOfDomain`] beyond [`RigidMotion::MAX_ANGLE`] or
    /// [`RigidMotion::MAX_COORDINATE`].
    ///
    /// # Example
    /// ```
    /// use ccd_kinematics::RigidMotion;
    /// use ccd_kinematics::glam::{DAffine3, DVec3};
    ///
    /// // a wheel of radius 1 centred at (0, 1, 0) in its frame rolls along +x by 2π (one turn)
    /// let tau = std::f64::consts::TAU;
    /// let m = RigidMotion::from_velocities(DAffine3::IDENTITY, DVec3::new(tau, 0.0, 0.0), DVec3::new(0.0, 0.0, -tau), DVec3::Y)?;
    /// // the contact point (the frame origin) is back on the ground after a turn
    /// assert!(m.point_at(DVec3::ZERO, 1.0).abs_diff_eq(DVec3::new(tau, 0.0, 0.0), 1e-12));
    /// // and at the top half-way
    /// assert!(m.point_at(DVec3::ZERO, 0.5).abs_diff_eq(DVec3::new(0.5 * tau, 2.0, 0.0), 1e-12));
    /// assert!(m.velocity_of(DVec3::ZERO, 0.0).length() < 1e-12); // rolling without slipping
    /// # Ok::<(), ccd_kinematics::KinematicsError>(())
    /// ```
    pub fn from_velocities(
        start: DAffine3,
        linear_velocity: DVec3,
        angular_velocity: DVec3,
        local_center: DVec3,
    ) -> Result<Self, KinematicsError> {
        check_rigid(&start, "start")?;
        if !angular_velocity.is_finite() {
            return Err(KinematicsError::NonFiniteMotion {
                what: "angular velocity",
            });
        }
        let angle = angular_velocity.length();
        check_domain(
            angle,
            &[
                ("start", start.translation),
                ("linear velocity", linear_velocity),
                ("local centre", local_center),
                ("centre", start.transform_point3(local_center)),
            ],
        )?;
        let (axis, angle) = unit_axis(angular_velocity, angle)?;
        Self::from_parts(
            start.matrix3,
            start.transform_point3(local_center),
            axis,
            angle,
            linear_velocity,
            local_center,
        )
    }

    /// A body that does not move.
    ///
    /// # Errors
    /// As [`RigidMotion::between`].
    ///
    /// # Example
    /// ```
    /// use ccd_kinematics::RigidMotion;
    /// use ccd_kinematics::glam::{DAffine3, DVec3};
    ///
    /// let pose = DAffine3::from_translation(DVec3::X);
    /// assert_eq!(RigidMotion::stationary(pose)?.pose_at(0.7), pose);
    /// # Ok::<(), ccd_kinematics::KinematicsError>(())
    /// ```
    pub fn stationary(pose: DAffine3) -> Result<Self, KinematicsError> {
        Self::between(pose, pose)
    }

    /// The same motion in coordinates scaled by `factor`: the same rotations, with the
    /// translations, the displacement and the rotation centre multiplied by `factor`. For a
    /// power of two (the use: exact rescaling of a query into a safe numeric range),
    /// `scaled(f).pose_at(t)` is `pose_at(t)` with its translation multiplied by `f`, exactly
    /// (barring underflow).
    ///
    /// # Errors
    /// [`KinematicsError::NonFiniteMotion`] for a factor that is not finite and positive;
    /// [`KinematicsError::MotionOutOfDomain`] when a scaled coordinate exceeds
    /// [`RigidMotion::MAX_COORDINATE`].
    ///
    /// # Example
    /// ```
    /// use ccd_kinematics::RigidMotion;
    /// use ccd_kinematics::glam::{DAffine3, DQuat, DVec3};
    ///
    /// let m = RigidMotion::between(
    ///     DAffine3::from_translation(DVec3::new(1.0, 2.0, 3.0)),
    ///     DAffine3::from_rotation_translation(DQuat::from_rotation_z(1.0), DVec3::new(-1.0, 0.5, 0.0)),
    /// )?;
    /// let s = m.scaled(0.25)?;
    /// let (p, q) = (m.pose_at(0.3), s.pose_at(0.3));
    /// assert_eq!(q.matrix3, p.matrix3);
    /// assert_eq!(q.translation, p.translation * 0.25);
    /// # Ok::<(), ccd_kinematics::KinematicsError>(())
    /// ```
    pub fn scaled(&self, factor: f64) -> Result<Self, KinematicsError> {
        if !(factor.is_finite() && factor > 0.0) {
            return Err(KinematicsError::NonFiniteMotion {
                what: "scale factor",
            });
        }
        let p = &self.params;
        let check = [
            ("start", p.translation() * factor),
            ("displacement", p.displacement() * factor),
            ("local centre", self.center * factor),
        ];
        check_domain(0.0, &check)?;
        Self::from_parts(
            p.rotation(),
            check[0].1,
            p.axis(),
            p.angle(),
            check[1].1,
            check[2].1,
        )
    }

    /// The motion parameters (`R₀, C₀, u, ω, s`) of the **centre frame**: the body frame
    /// moved to the rotation centre (the frame origin unless the motion was built by
    /// [`from_velocities`](Self::from_velocities) with a non-zero centre).
    #[inline]
    #[must_use]
    pub fn params(&self) -> &ConstantVelocity {
        &self.params
    }

    /// The rotation centre in the body frame (zero: the frame origin).
    #[inline]
    #[must_use]
    pub fn local_center(&self) -> DVec3 {
        self.center
    }

    /// Unit rotation axis `u` (world frame).
    #[inline]
    #[must_use]
    pub fn axis(&self) -> DVec3 {
        self.params.axis()
    }

    /// Total rotation angle `ω ≥ 0` over the step (also the angular speed); at most π for
    /// [`between`](Self::between), up to [`RigidMotion::MAX_ANGLE`] otherwise.
    #[inline]
    #[must_use]
    pub fn angle(&self) -> f64 {
        self.params.angle()
    }

    /// Translational velocity of the rotation centre (`c₁ − c₀`); of the frame origin when
    /// [`local_center`](Self::local_center) is zero.
    #[inline]
    #[must_use]
    pub fn linear_velocity(&self) -> DVec3 {
        self.params.displacement()
    }

    /// Angular velocity vector `ω u` (world frame).
    #[inline]
    #[must_use]
    pub fn angular_velocity(&self) -> DVec3 {
        self.params.axis() * self.params.angle()
    }

    /// The pose at time `t`.
    #[inline]
    #[must_use]
    pub fn pose_at(&self, t: f64) -> DAffine3 {
        let centre = self.params.pose_at(t);
        DAffine3 {
            matrix3: centre.matrix3,
            translation: centre.translation - centre.matrix3 * self.center,
        }
    }

    /// World position at time `t` of a point given in the local frame.
    #[inline]
    #[must_use]
    pub fn point_at(&self, local: DVec3, t: f64) -> DVec3 {
        self.params.rotation_at(t) * (local - self.center) + self.params.translation_at(t)
    }

    /// World velocity (per unit of normalized time) at time `t` of a local point:
    /// `s + ω u × R(t) (x − c)`.
    #[inline]
    #[must_use]
    pub fn velocity_of(&self, local: DVec3, t: f64) -> DVec3 {
        self.params.displacement()
            + self
                .angular_velocity()
                .cross(self.params.rotation_at(t) * (local - self.center))
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
        let centre = Transform::from_motion(&self.params, domain);
        if self.center == DVec3::ZERO {
            return Ok(centre);
        }
        // the body frame is the centre frame shifted by −c (exact: a negation)
        let shift = Transform::constant(&DAffine3::from_translation(-self.center), domain);
        Ok(centre.compose(&shift))
    }

    /// An upper bound on `∫ₜ¹ |v_p · n| dτ` over every point `p` within distance `radius` of
    /// the frame origin (CATCH, Eq. 6, for one rigid body):
    /// `(1 − t) (|s · n| + ω |u × n| (r + |c|))`, inflated by a relative 1e-12 for rounding
    /// (`c` is the rotation centre, zero unless given to
    /// [`from_velocities`](Self::from_velocities)).
    ///
    /// Proof: `v_p = s + ω u × x` with `x = R(τ) (x₀ − c)`, `|x| ≤ r + |c|`;
    /// `(u × x) · n = x · (n × u)`, so `|v_p · n| ≤ |s · n| + ω |n × u| (r + |c|)` at every
    /// `τ`; integrate over `[t, 1]`. It holds for any angle `ω`. The absolute value makes it
    /// valid for any geometry (FCL's signed bound is not). `t` outside `[0, 1]` is clamped.
    /// `n` need not be unit: the bound scales with `|n|`. A NaN radius gives an infinite
    /// bound.
    #[must_use]
    pub fn motion_bound(&self, n: DVec3, radius: f64, t: f64) -> f64 {
        if radius.is_nan() {
            return f64::INFINITY;
        }
        let rest = 1.0 - t.clamp(0.0, 1.0);
        let lin = self.params.displacement().dot(n).abs();
        let lever = radius.max(0.0) + self.center.length();
        let ang = self.params.angle() * self.params.axis().cross(n).length() * lever;
        let mu = rest * (lin + ang);
        mu * (1.0 + 1e-12) + f64::MIN_POSITIVE
    }
}

/// `(axis / |axis|, angle)` with a non-negative angle (the axis reversed for a negative
/// one); any unit axis for a zero angle.
fn unit_axis(axis: DVec3, angle: f64) -> Result<(DVec3, f64), KinematicsError> {
    if angle == 0.0 {
        return Ok((axis.try_normalize().unwrap_or(DVec3::Z), 0.0));
    }
    let u = axis.try_normalize().ok_or(KinematicsError::InvalidAxis {
        axis: axis.to_array(),
    })?;
    Ok(if angle < 0.0 {
        (-u, -angle)
    } else {
        (u, angle)
    })
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

    #[cfg(feature = "serde")]
    #[test]
    fn serde_round_trips_and_validates() {
        let start = DAffine3::from_rotation_translation(
            DQuat::from_rotation_y(0.7),
            DVec3::new(1.0, -2.0, 3.0),
        );
        for m in [
            RigidMotion::from_velocities(start, DVec3::X, DVec3::new(0.0, 30.0, 4.0), DVec3::Z)
                .unwrap(),
            RigidMotion::between(start, DAffine3::IDENTITY).unwrap(),
        ] {
            let text = serde_json::to_string(&m).unwrap();
            let back: RigidMotion = serde_json::from_str(&text).unwrap();
            // (serde_json's default float parsing may differ in the last bit)
            assert!(back.pose_at(0.3).abs_diff_eq(m.pose_at(0.3), 1e-12));
            assert!((back.angle() - m.angle()).abs() < 1e-12);
            assert_eq!(back.local_center(), m.local_center());
        }
        let good = RigidMotion::from_axis_angle(start, DVec3::Z, 2.0, DVec3::X).unwrap();
        let value = serde_json::to_value(good).unwrap();
        let with = |key: &str, v: serde_json::Value| {
            let mut x = value.clone();
            x[key] = v;
            serde_json::from_value::<RigidMotion>(x)
        };
        // an angle of 1e300 rad per step, a negative angle, a non-unit axis, a scaled
        // rotation, coordinates of 1e150: all refused as the constructors refuse them
        for (key, v) in [
            ("angle", serde_json::json!(1e300)),
            ("angle", serde_json::json!(-1.0)),
            ("axis", serde_json::json!([0.0, 0.0, 2.0])),
            ("axis", serde_json::json!([0.0, 0.0, 0.0])),
            (
                "rotation",
                serde_json::json!([2.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 2.0]),
            ),
            ("center_start", serde_json::json!([1e150, 0.0, 0.0])),
            ("displacement", serde_json::json!([0.0, -1e150, 0.0])),
            ("local_center", serde_json::json!([0.0, 0.0, 1e150])),
        ] {
            assert!(with(key, v.clone()).is_err(), "{key} = {v} accepted");
        }
        // ccd_taylor::ConstantVelocity validates too (a NaN used to panic inside glam)
        let mut cv = serde_json::to_value(good.params()).unwrap();
        assert!(serde_json::from_value::<ConstantVelocity>(cv.clone()).is_ok());
        cv["angle"] = serde_json::json!(1e300);
        assert!(serde_json::from_value::<ConstantVelocity>(cv.clone()).is_err());
        cv["angle"] = serde_json::json!(1.0);
        cv["axis"] = serde_json::json!([0.0, 0.0, 0.5]);
        assert!(serde_json::from_value::<ConstantVelocity>(cv).is_err());
        let back = with("angle", serde_json::json!(2.0)).unwrap();
        assert!(back.pose_at(1.0).abs_diff_eq(good.pose_at(1.0), 1e-12));
    }
}
