//! The avatar: line swept spheres (capsules) on the links of an articulated model (Avatar,
//! Sec. 3–4), built by hand or from a BVH motion-capture skeleton.

use ccd_geometry::Segment;
use ccd_kinematics::mocap::MocapClip;
use ccd_kinematics::{ArticulatedModel, LinkId, Pose};
use glam::{DAffine3, DVec3};

use crate::AvatarError;

/// A line swept sphere: the points within `radius` of the segment `a → b`, fixed in the
/// frame of link `link` (the paper places the segment on the local x axis, Eq. 5:
/// [`LinkCapsule::along_x`]; any segment through the link frame is allowed here).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkCapsule {
    /// The link it moves with.
    pub link: LinkId,
    /// First endpoint, in the link frame.
    pub a: DVec3,
    /// Second endpoint, in the link frame.
    pub b: DVec3,
    /// The sphere radius (> 0).
    pub radius: f64,
}

impl LinkCapsule {
    /// The paper's LSS (Eq. 5): the segment from `(l_a, 0, 0)` to `(l_b, 0, 0)` of the
    /// link frame, swept by a sphere of radius `radius`.
    #[must_use]
    pub fn along_x(link: LinkId, l_a: f64, l_b: f64, radius: f64) -> Self {
        Self {
            link,
            a: DVec3::new(l_a, 0.0, 0.0),
            b: DVec3::new(l_b, 0.0, 0.0),
            radius,
        }
    }

    /// The largest distance from the link origin to a point of the segment (the lever arm
    /// of the motion bound).
    #[inline]
    #[must_use]
    pub fn reach(&self) -> f64 {
        self.a.length().max(self.b.length())
    }

    /// The segment in world coordinates for the link's world transform.
    #[inline]
    #[must_use]
    pub fn world_segment(&self, world: &DAffine3) -> Segment {
        Segment::new(
            world.transform_point3(self.a),
            world.transform_point3(self.b),
        )
    }
}

/// Capsule radii for an avatar built from a motion-capture skeleton: one radius per joint
/// name (the joint a bone moves with), a default for the others, and the shortest bone that
/// gets a capsule.
#[derive(Clone, Debug, PartialEq)]
pub struct RadiusTable {
    /// Radius of bones whose joint is not listed.
    pub default: f64,
    /// Radii by joint name (exact, case-sensitive match).
    pub by_joint: Vec<(String, f64)>,
    /// Bones shorter than this get no capsule (zero-length bones of helper joints).
    pub min_bone_length: f64,
}

impl RadiusTable {
    /// The same radius for every bone (bones shorter than 1e-6 skipped).
    #[must_use]
    pub fn uniform(radius: f64) -> Self {
        Self {
            default: radius,
            by_joint: Vec::new(),
            min_bone_length: 1e-6,
        }
    }

    /// Radii in metres for the CMU skeleton's joint names (thighs 7 cm, shins 5 cm, feet
    /// 4 cm, torso 12 cm, head 10 cm, upper arms 5 cm, forearms 4 cm, hands 3 cm; 4 cm for
    /// others).
    #[must_use]
    pub fn human() -> Self {
        let mut t = Self::uniform(0.04);
        for side in ["Left", "Right"] {
            let l = &side[..1];
            t = t
                .with(format!("{side}Hip"), 0.07)
                .with(format!("{side}Knee"), 0.05)
                .with(format!("{side}Ankle"), 0.04)
                .with(format!("{side}Toe"), 0.03)
                .with(format!("{side}Shoulder"), 0.05)
                .with(format!("{side}Elbow"), 0.04)
                .with(format!("{side}Wrist"), 0.03)
                .with(format!("{l}Fingers"), 0.02)
                .with(format!("{l}Thumb"), 0.02)
                .with(format!("{}hand", l.to_lowercase()), 0.03);
        }
        t.with("lowerback", 0.12)
            .with("Chest", 0.12)
            .with("Chest2", 0.1)
            .with("Neck", 0.05)
            .with("Head", 0.1)
    }

    /// This table with joint `name` given radius `radius` (replacing an earlier entry).
    #[must_use]
    pub fn with(mut self, name: impl Into<String>, radius: f64) -> Self {
        let name = name.into();
        self.by_joint.retain(|(n, _)| *n != name);
        self.by_joint.push((name, radius));
        self
    }

    /// The radius for bones of joint `name`.
    #[must_use]
    pub fn radius_for(&self, name: &str) -> f64 {
        self.by_joint
            .iter()
            .find(|(n, _)| n == name)
            .map_or(self.default, |&(_, r)| r)
    }

    fn validate(&self) -> Result<(), AvatarError> {
        let bad = |joint: &str, radius: f64| AvatarError::BadRadiusTable {
            joint: joint.into(),
            radius,
        };
        if !(self.default.is_finite() && self.default > 0.0) {
            return Err(bad("default", self.default));
        }
        if let Some((n, r)) = self
            .by_joint
            .iter()
            .find(|(_, r)| !(r.is_finite() && *r > 0.0))
        {
            return Err(bad(n, *r));
        }
        if !(self.min_bone_length.is_finite() && self.min_bone_length >= 0.0) {
            return Err(bad("min_bone_length", self.min_bone_length));
        }
        Ok(())
    }
}

/// An avatar: an articulated model and capsules on its links (Avatar, Sec. 3).
///
/// # Example
/// ```
/// use ccd_avatar_sv::{Avatar, LinkCapsule};
/// use ccd_kinematics::{ArticulatedModel, Joint, LinkId, LinkSpec};
/// use ccd_kinematics::glam::{DAffine3, DVec3};
///
/// let model = ArticulatedModel::new(vec![
///     LinkSpec { name: "upper".into(), parent: None, joint: Joint::Floating, offset: DAffine3::IDENTITY },
///     LinkSpec { name: "lower".into(), parent: Some("upper".into()), joint: Joint::Spherical,
///                offset: DAffine3::from_translation(DVec3::X * 0.3) },
/// ])?;
/// let avatar = Avatar::new(model, vec![
///     LinkCapsule::along_x(LinkId(0), 0.0, 0.3, 0.05),
///     LinkCapsule::along_x(LinkId(1), 0.0, 0.25, 0.04),
/// ])?;
/// assert_eq!(avatar.capsules().len(), 2);
/// assert!(Avatar::new(avatar.model().clone(), vec![LinkCapsule::along_x(LinkId(0), 0.0, 1.0, 0.0)]).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Avatar {
    model: ArticulatedModel,
    capsules: Vec<LinkCapsule>,
    /// Per capsule, the links from the root to its link.
    chains: Vec<Vec<LinkId>>,
}

impl Avatar {
    /// Validates and builds an avatar.
    ///
    /// # Errors
    /// [`AvatarError::NoCapsules`], [`AvatarError::BadRadius`] (zero, negative, NaN),
    /// [`AvatarError::NonFiniteCapsule`], [`AvatarError::UnknownLink`].
    pub fn new(model: ArticulatedModel, capsules: Vec<LinkCapsule>) -> Result<Self, AvatarError> {
        if capsules.is_empty() {
            return Err(AvatarError::NoCapsules);
        }
        for (index, c) in capsules.iter().enumerate() {
            if !(c.radius.is_finite() && c.radius > 0.0) {
                return Err(AvatarError::BadRadius {
                    index,
                    radius: c.radius,
                });
            }
            if !(c.a.is_finite() && c.b.is_finite()) {
                return Err(AvatarError::NonFiniteCapsule { index });
            }
            if c.link.index() >= model.len() {
                return Err(AvatarError::UnknownLink {
                    index,
                    link: c.link.0,
                    links: model.len(),
                });
            }
        }
        let chains = capsules.iter().map(|c| model.chain(c.link)).collect();
        Ok(Self {
            model,
            capsules,
            chains,
        })
    }

    /// One capsule per bone of a motion-capture skeleton (joint → child joint or end site;
    /// bones shorter than `radii.min_bone_length` skipped), on the clip's own model so that
    /// [`MocapClip::pose`] poses it directly.
    ///
    /// # Errors
    /// [`AvatarError::BadRadiusTable`] for a non-positive or non-finite radius in the table,
    /// then as [`Avatar::new`] (e.g. [`AvatarError::NoCapsules`] when every bone is shorter
    /// than the minimum).
    pub fn from_mocap(clip: &MocapClip, radii: &RadiusTable) -> Result<Self, AvatarError> {
        radii.validate()?;
        let capsules = clip
            .bones()
            .iter()
            .filter(|b| b.length() >= radii.min_bone_length && b.length() > 0.0)
            .map(|b| LinkCapsule {
                link: b.link,
                a: DVec3::ZERO,
                b: b.offset,
                radius: radii.radius_for(&clip.joints()[b.link.index()].name),
            })
            .collect();
        Self::new(clip.model().clone(), capsules)
    }

    /// The articulated model.
    #[inline]
    #[must_use]
    pub fn model(&self) -> &ArticulatedModel {
        &self.model
    }

    /// The capsules.
    #[inline]
    #[must_use]
    pub fn capsules(&self) -> &[LinkCapsule] {
        &self.capsules
    }

    /// The links from the root to capsule `index`'s link (empty for an unknown index).
    #[inline]
    pub(crate) fn chain(&self, index: usize) -> &[LinkId] {
        self.chains.get(index).map_or(&[], Vec::as_slice)
    }

    /// Checks that a pose fits the model, is finite and rigid.
    ///
    /// # Errors
    /// [`AvatarError::InvalidPose`].
    pub fn check_pose(&self, pose: &Pose) -> Result<(), AvatarError> {
        Pose::new(&self.model, pose.relative.clone())
            .map(|_| ())
            .map_err(AvatarError::InvalidPose)
    }

    /// World segments of all capsules in a pose (its rigidity is not checked: see
    /// [`Avatar::check_pose`]).
    ///
    /// # Errors
    /// [`AvatarError::InvalidPose`] when the pose has a different number of links.
    pub fn world_segments(&self, pose: &Pose) -> Result<Vec<Segment>, AvatarError> {
        let world = pose
            .world_transforms(&self.model)
            .map_err(AvatarError::InvalidPose)?;
        Ok(self
            .capsules
            .iter()
            .map(|c| c.world_segment(&world[c.link.index()]))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ccd_kinematics::{Joint, LinkSpec};

    fn model() -> ArticulatedModel {
        ArticulatedModel::new(vec![LinkSpec {
            name: "a".into(),
            parent: None,
            joint: Joint::Floating,
            offset: DAffine3::IDENTITY,
        }])
        .unwrap()
    }

    #[test]
    fn bad_capsules_are_typed_errors() {
        let m = model();
        for r in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            let e = Avatar::new(
                m.clone(),
                vec![LinkCapsule::along_x(LinkId(0), 0.0, 1.0, r)],
            );
            assert!(
                matches!(e, Err(AvatarError::BadRadius { index: 0, .. })),
                "{r}"
            );
        }
        let e = Avatar::new(
            m.clone(),
            vec![LinkCapsule::along_x(LinkId(0), f64::NAN, 1.0, 0.1)],
        );
        assert!(matches!(e, Err(AvatarError::NonFiniteCapsule { index: 0 })));
        let e = Avatar::new(
            m.clone(),
            vec![LinkCapsule::along_x(LinkId(3), 0.0, 1.0, 0.1)],
        );
        assert!(matches!(e, Err(AvatarError::UnknownLink { link: 3, .. })));
        assert!(matches!(
            Avatar::new(m, vec![]),
            Err(AvatarError::NoCapsules)
        ));
    }

    #[test]
    fn nan_pose_is_rejected() {
        let avatar = Avatar::new(
            model(),
            vec![LinkCapsule::along_x(LinkId(0), 0.0, 1.0, 0.1)],
        )
        .unwrap();
        let mut p = Pose {
            relative: vec![DAffine3::IDENTITY],
        };
        assert!(avatar.check_pose(&p).is_ok());
        p.relative[0].translation.x = f64::NAN;
        assert!(matches!(
            avatar.check_pose(&p),
            Err(AvatarError::InvalidPose(_))
        ));
        p.relative.push(DAffine3::IDENTITY);
        assert!(avatar.check_pose(&p).is_err());
    }

    #[test]
    fn radius_table_lookup_and_validation() {
        let t = RadiusTable::human();
        assert_eq!(t.radius_for("LeftHip"), 0.07);
        assert_eq!(t.radius_for("unknown"), 0.04);
        let t = t.with("LeftHip", 0.09);
        assert_eq!(t.radius_for("LeftHip"), 0.09);
        assert!(RadiusTable::uniform(0.0).validate().is_err());
        assert!(
            RadiusTable::uniform(0.1)
                .with("x", f64::NAN)
                .validate()
                .is_err()
        );
    }
}
