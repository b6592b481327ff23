//! Biovision hierarchy (BVH) motion-capture files: skeleton → [`ArticulatedModel`], frames →
//! [`Pose`]s (feature `mocap`).
//!
//! A BVH file has two sections. `HIERARCHY` is a tree of joints (`ROOT`, `JOINT`, leaf `End
//! Site`), each with an `OFFSET` from its parent (the rest translation, in the parent's frame)
//! and, except end sites, a `CHANNELS` line naming which of `Xposition Yposition Zposition
//! Xrotation Yrotation Zrotation` it reads from each frame and in which order. `MOTION` gives
//! `Frames: n`, `Frame Time: s` and then one row per frame with the channel values of all
//! joints, in hierarchy order.
//!
//! Conventions (those of the format): the transform of a joint relative to its parent is
//! `T(offset + p) · R₁ · R₂ · R₃`, where `p` gathers the joint's position channels (0 when it
//! has none) and `R₁, R₂, R₃` are its rotation channels in the order they are listed
//! (intrinsic rotations; angles in degrees). Lengths are in the file's units; no axis is
//! changed (the CMU files are Y-up).
//!
//! Each joint becomes one link of the [`ArticulatedModel`] with the link offset `T(offset)`
//! and a joint type that fits its channels: no channels → [`Joint::Fixed`], rotations only →
//! [`Joint::Spherical`], any position channel → [`Joint::Floating`].
//! [`MocapClip::pose`] builds the [`Pose`] of a frame directly from the Euler angles;
//! [`MocapClip::joint_values`] gives the same pose as joint values for
//! [`ArticulatedModel::pose_from_joints`].
//!
//! Errors carry the 1-based line number where the problem is. Parsing is iterative (no
//! recursion, so deep nesting cannot overflow the stack), stores only the channel values
//! (memory linear in the input size; poses are built on demand), and checks a declared
//! frame count against the bytes that follow before reading any row.
//!
//! [`Joint::Fixed`]: crate::Joint::Fixed
//! [`Joint::Floating`]: crate::Joint::Floating
//! [`Joint::Spherical`]: crate::Joint::Spherical
//! [`Pose`]: crate::Pose

// This file holds the clip and skeleton types; the submodules hold `error` (`MocapError`),
// `parse` (the tokenizer and the iterative parser), `build` (the parsed hierarchy into the
// model, joints, bones and end sites) and `frames` (frame rows into poses and joint values).

mod build;
mod error;
mod frames;
mod parse;

use glam::DVec3;

use crate::{ArticulatedModel, LinkId};

pub use error::MocapError;

/// Largest magnitude accepted for an offset or a position channel value; larger values are
/// [`MocapError::OutOfRange`] (they would overflow when composed down the tree).
pub const MAX_ABS_COORDINATE: f64 = 1e12;

/// Largest magnitude accepted for a rotation channel value, in degrees (about 2.8 million
/// turns; beyond it the angle has lost all its fractional precision).
pub const MAX_ABS_DEGREES: f64 = 1e9;

/// One degree of freedom a joint reads from each frame row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Channel {
    /// Translation along the parent's x axis (added to the offset).
    Xposition,
    /// Translation along y.
    Yposition,
    /// Translation along z.
    Zposition,
    /// Rotation about x, degrees.
    Xrotation,
    /// Rotation about y, degrees.
    Yrotation,
    /// Rotation about z, degrees.
    Zrotation,
}

impl Channel {
    fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "Xposition" => Self::Xposition,
            "Yposition" => Self::Yposition,
            "Zposition" => Self::Zposition,
            "Xrotation" => Self::Xrotation,
            "Yrotation" => Self::Yrotation,
            "Zrotation" => Self::Zrotation,
            _ => return None,
        })
    }

    /// Whether this is a rotation channel.
    #[inline]
    #[must_use]
    pub fn is_rotation(self) -> bool {
        matches!(self, Self::Xrotation | Self::Yrotation | Self::Zrotation)
    }
}

/// A joint of the skeleton; `clip.joints()[i]` is link `LinkId(i)` of `clip.model()`.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct MocapJoint {
    /// The joint's name.
    pub name: String,
    /// Its parent joint (`None` for the root).
    pub parent: Option<LinkId>,
    /// Rest translation from the parent joint, in the parent's frame.
    pub offset: DVec3,
    /// The channels it reads, in file order.
    pub channels: Vec<Channel>,
    /// Index of its first value in a frame row.
    pub first_channel: usize,
    /// Line of its `ROOT`/`JOINT` keyword.
    pub line: usize,
}

/// The far end of a [`Bone`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum BoneEnd {
    /// A child joint.
    Joint(LinkId),
    /// An end site (index into [`MocapClip::end_sites`]).
    EndSite(usize),
}

/// A segment of the skeleton: from a joint's origin to one child's offset, in the joint's
/// frame (the axis of a capsule on that link). Zero-length bones (child at offset 0) are
/// listed too; callers building capsules usually skip them.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct Bone {
    /// The link the bone moves with.
    pub link: LinkId,
    /// What its far end is.
    pub end: BoneEnd,
    /// The far end in the link's frame (the near end is the origin).
    pub offset: DVec3,
}

impl Bone {
    /// Length of the bone.
    #[inline]
    #[must_use]
    pub fn length(&self) -> f64 {
        self.offset.length()
    }
}

/// A leaf point of the skeleton (`End Site`).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct EndSite {
    /// The joint it hangs from.
    pub link: LinkId,
    /// Its position in that joint's frame.
    pub offset: DVec3,
    /// Line of its `End Site` keyword.
    pub line: usize,
}

/// A parsed BVH clip: skeleton, channel values per frame, frame time.
///
/// # Example
/// ```
/// use ccd_kinematics::mocap::MocapClip;
/// use ccd_kinematics::glam::DVec3;
///
/// let text = "HIERARCHY
/// ROOT Hips
/// {
///   OFFSET 0 0 0
///   CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation
///   JOINT Knee
///   {
///     OFFSET 0 -0.5 0
///     CHANNELS 3 Zrotation Yrotation Xrotation
///     End Site
///     {
///       OFFSET 0 -0.4 0
///     }
///   }
/// }
/// MOTION
/// Frames: 2
/// Frame Time: 0.01
/// 0 1 0 0 0 0 0 0 0
/// 0.1 1 0 0 0 0 0 0 90
/// ";
/// let clip = MocapClip::parse(text)?;
/// assert_eq!((clip.model().len(), clip.frame_count(), clip.frame_time()), (2, 2, 0.01));
/// // frame 1: the hips move 0.1 along x and the knee turns 90° about x (y → z):
/// let pose = clip.pose(1).unwrap();
/// let world = pose.world_transforms(clip.model())?;
/// let knee = clip.model().link_id("Knee").unwrap();
/// let foot = world[knee.index()].transform_point3(clip.end_sites()[0].offset);
/// assert!(foot.abs_diff_eq(DVec3::new(0.1, 0.5, -0.4), 1e-12));
/// # Ok::<(), ccd_kinematics::mocap::MocapError>(())
/// ```
#[derive(Clone, Debug)]
pub struct MocapClip {
    model: ArticulatedModel,
    joints: Vec<MocapJoint>,
    bones: Vec<Bone>,
    end_sites: Vec<EndSite>,
    channel_count: usize,
    frame_count: usize,
    frame_time: f64,
    values: Vec<f64>,
}

impl MocapClip {
    /// The skeleton as an articulated model (one link per joint, same names).
    #[inline]
    #[must_use]
    pub fn model(&self) -> &ArticulatedModel {
        &self.model
    }

    /// The joints, in the model's link order.
    #[inline]
    #[must_use]
    pub fn joints(&self) -> &[MocapJoint] {
        &self.joints
    }

    /// The joint names, in the model's link order.
    pub fn joint_names(&self) -> impl Iterator<Item = &str> {
        self.joints.iter().map(|j| j.name.as_str())
    }

    /// Every parent → child segment (joint children and end sites), parents first.
    #[inline]
    #[must_use]
    pub fn bones(&self) -> &[Bone] {
        &self.bones
    }

    /// The end sites, in file order.
    #[inline]
    #[must_use]
    pub fn end_sites(&self) -> &[EndSite] {
        &self.end_sites
    }

    /// Number of frames.
    #[inline]
    #[must_use]
    pub fn frame_count(&self) -> usize {
        self.frame_count
    }

    /// Seconds between frames.
    #[inline]
    #[must_use]
    pub fn frame_time(&self) -> f64 {
        self.frame_time
    }

    /// Channel values per frame row.
    #[inline]
    #[must_use]
    pub fn channel_count(&self) -> usize {
        self.channel_count
    }

    /// The raw channel values of a frame (file order), `None` past the last frame.
    #[must_use]
    pub fn frame_values(&self, frame: usize) -> Option<&[f64]> {
        if frame >= self.frame_count {
            return None;
        }
        let n = self.channel_count;
        Some(&self.values[frame * n..(frame + 1) * n])
    }
}
