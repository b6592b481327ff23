//! The frames of a [`MocapClip`] as [`Pose`]s (from the Euler angles) or as joint values of
//! its model (rotation vectors).

use glam::{DAffine3, DMat3, DQuat, DVec3};

use super::{Channel, MocapClip, MocapJoint};
use crate::{Joint, Pose};

impl MocapClip {
    /// The pose of a frame (each link relative to its parent, the root relative to the
    /// world), `None` past the last frame.
    #[must_use]
    pub fn pose(&self, frame: usize) -> Option<Pose> {
        let row = self.frame_values(frame)?;
        let relative = self
            .joints
            .iter()
            .map(|j| {
                let (p, r) = joint_motion(j, row);
                DAffine3::from_mat3_translation(r, j.offset + p)
            })
            .collect();
        Some(Pose { relative })
    }

    /// The poses of all frames, in order.
    pub fn poses(&self) -> impl Iterator<Item = Pose> + '_ {
        (0..self.frame_count).filter_map(|f| self.pose(f))
    }

    /// The frame as joint values of [`Self::model`] (for
    /// [`ArticulatedModel::pose_from_joints`]): a spherical joint gets the rotation vector of
    /// its Euler rotations, a floating joint its position channels then that rotation vector.
    /// `None` past the last frame.
    ///
    /// [`ArticulatedModel::pose_from_joints`]: crate::ArticulatedModel::pose_from_joints
    #[must_use]
    pub fn joint_values(&self, frame: usize) -> Option<Vec<f64>> {
        let row = self.frame_values(frame)?;
        let mut q = Vec::with_capacity(self.model.dof());
        for (j, link) in self.joints.iter().zip(self.model.links()) {
            let p = joint_position(j, row);
            let rv = rotation_vector(joint_rotation(j, row));
            match link.joint {
                Joint::Floating => q.extend([p.x, p.y, p.z, rv.x, rv.y, rv.z]),
                Joint::Spherical => q.extend([rv.x, rv.y, rv.z]),
                _ => {}
            }
        }
        Some(q)
    }
}

/// The position channels of a joint for one frame row.
fn joint_position(j: &MocapJoint, row: &[f64]) -> DVec3 {
    let mut p = DVec3::ZERO;
    for (k, &c) in j.channels.iter().enumerate() {
        let v = row[j.first_channel + k];
        match c {
            Channel::Xposition => p.x = v,
            Channel::Yposition => p.y = v,
            Channel::Zposition => p.z = v,
            _ => {}
        }
    }
    p
}

/// The rotation channels of a joint for one frame row, as a unit quaternion (product in file
/// order).
fn joint_rotation(j: &MocapJoint, row: &[f64]) -> DQuat {
    let mut q = DQuat::IDENTITY;
    for (k, &c) in j.channels.iter().enumerate() {
        let a = row[j.first_channel + k].to_radians();
        match c {
            Channel::Xrotation => q *= DQuat::from_rotation_x(a),
            Channel::Yrotation => q *= DQuat::from_rotation_y(a),
            Channel::Zrotation => q *= DQuat::from_rotation_z(a),
            _ => {}
        }
    }
    q
}

/// The rotation vector (axis · angle, angle in `[0, π]`) of a unit quaternion, accurate for
/// small angles too (`atan2` instead of `acos`).
fn rotation_vector(q: DQuat) -> DVec3 {
    let q = if q.w < 0.0 { -q } else { q };
    let v = DVec3::new(q.x, q.y, q.z);
    let s = v.length();
    if s == 0.0 {
        return DVec3::ZERO;
    }
    v * (2.0 * s.atan2(q.w) / s)
}

/// Position (sum of position channels) and rotation (product of rotation channels in file
/// order) of a joint for one frame row.
fn joint_motion(j: &MocapJoint, row: &[f64]) -> (DVec3, DMat3) {
    let mut p = DVec3::ZERO;
    let mut r = DMat3::IDENTITY;
    for (k, &c) in j.channels.iter().enumerate() {
        let v = row[j.first_channel + k];
        match c {
            Channel::Xposition => p.x = v,
            Channel::Yposition => p.y = v,
            Channel::Zposition => p.z = v,
            Channel::Xrotation => r *= DMat3::from_rotation_x(v.to_radians()),
            Channel::Yrotation => r *= DMat3::from_rotation_y(v.to_radians()),
            Channel::Zrotation => r *= DMat3::from_rotation_z(v.to_radians()),
        }
    }
    (p, r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotation_vector_keeps_tiny_and_half_turn_angles() {
        for rv in [
            DVec3::new(1e-9, 0.0, 0.0),
            DVec3::new(0.3, -0.2, 0.1),
            DVec3::new(0.0, 0.0, std::f64::consts::PI - 1e-9),
        ] {
            let back = rotation_vector(DQuat::from_scaled_axis(rv));
            assert!(
                (back - rv).length() <= 1e-15 + 1e-12 * rv.length(),
                "{rv} → {back}"
            );
        }
        assert_eq!(rotation_vector(DQuat::IDENTITY), DVec3::ZERO);
    }
}
