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

use std::path::Path;

use glam::{DAffine3, DMat3, DQuat, DVec3};

use crate::{ArticulatedModel, Joint, KinematicsError, LinkId, LinkSpec, Pose};

/// Largest magnitude accepted for an offset or a position channel value; larger values are
/// [`MocapError::OutOfRange`] (they would overflow when composed down the tree).
pub const MAX_ABS_COORDINATE: f64 = 1e12;

/// Largest magnitude accepted for a rotation channel value, in degrees (about 2.8 million
/// turns; beyond it the angle has lost all its fractional precision).
pub const MAX_ABS_DEGREES: f64 = 1e9;

/// What can be wrong with a BVH file. Every variant but [`MocapError::FileRead`] and
/// [`MocapError::Model`] carries the 1-based line number of the offending text.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum MocapError {
    /// The file cannot be read.
    #[error("cannot read {}: {reason}", path.display())]
    FileRead {
        /// The file.
        path: std::path::PathBuf,
        /// The underlying IO error, as text.
        reason: String,
    },
    /// A token other than the one the format requires here.
    #[error("line {line}: expected {expected}, found {found:?}")]
    Unexpected {
        /// Line of the token.
        line: usize,
        /// What the format requires.
        expected: &'static str,
        /// What is there.
        found: String,
    },
    /// The input ends where the format requires more.
    #[error("line {line}: the input ends, expected {expected}")]
    UnexpectedEnd {
        /// The last line of the input.
        line: usize,
        /// What the format requires.
        expected: &'static str,
    },
    /// `HIERARCHY` without a `ROOT` joint.
    #[error("line {line}: the hierarchy is empty (no ROOT joint)")]
    EmptyHierarchy {
        /// Line where a `ROOT` was expected.
        line: usize,
    },
    /// A second `ROOT` (an [`ArticulatedModel`] has one root).
    #[error("line {line}: a second ROOT joint {name:?} (only one skeleton per file is supported)")]
    SecondRoot {
        /// Line of the second `ROOT`.
        line: usize,
        /// Its name.
        name: String,
    },
    /// A `{` without its `}` before `MOTION` or the end, or a `}` without a `{`.
    #[error("line {line}: unbalanced braces: {reason}")]
    UnbalancedBraces {
        /// Line of the unmatched brace (or where the closing one is missing).
        line: usize,
        /// Which brace is unmatched.
        reason: String,
    },
    /// A joint name used twice.
    #[error("line {line}: a second joint named {name:?}")]
    DuplicateJoint {
        /// Line of the second joint.
        line: usize,
        /// The name.
        name: String,
    },
    /// A joint without its `OFFSET` line, or an `OFFSET` given twice.
    #[error("line {line}: joint {joint:?} {problem}")]
    Offset {
        /// Line of the joint's closing brace (missing) or of the second `OFFSET`.
        line: usize,
        /// The joint (or `"End Site"`).
        joint: String,
        /// "has no OFFSET" or "has two OFFSET lines".
        problem: &'static str,
    },
    /// A joint without its `CHANNELS` line, or one given twice.
    #[error("line {line}: joint {joint:?} {problem}")]
    Channels {
        /// Line of the joint's first child or closing brace (missing) or of the second line.
        line: usize,
        /// The joint.
        joint: String,
        /// "has no CHANNELS line" or "has two CHANNELS lines".
        problem: &'static str,
    },
    /// A `CHANNELS` line whose declared count differs from the names that follow.
    #[error("line {line}: CHANNELS declares {declared} channels but names {named}")]
    ChannelCount {
        /// Line of the `CHANNELS` line.
        line: usize,
        /// The declared count.
        declared: usize,
        /// The names given.
        named: usize,
    },
    /// A channel name that is not one of the six.
    #[error(
        "line {line}: unknown channel {name:?} (expected Xposition, Yposition, Zposition, Xrotation, Yrotation or Zrotation)"
    )]
    UnknownChannel {
        /// Line of the `CHANNELS` line.
        line: usize,
        /// The name.
        name: String,
    },
    /// The same channel named twice on one joint.
    #[error("line {line}: channel {name:?} is listed twice")]
    DuplicateChannel {
        /// Line of the `CHANNELS` line.
        line: usize,
        /// The name.
        name: String,
    },
    /// Text where a number is required.
    #[error("line {line}: {text:?} is not a number")]
    NotANumber {
        /// Line of the text.
        line: usize,
        /// The text.
        text: String,
    },
    /// A NaN or infinite number.
    #[error("line {line}: {text:?} is not finite")]
    NonFinite {
        /// Line of the number.
        line: usize,
        /// The text.
        text: String,
    },
    /// A finite number too large to compose safely ([`MAX_ABS_COORDINATE`],
    /// [`MAX_ABS_DEGREES`]).
    #[error("line {line}: {value} is out of range (magnitude at most {limit})")]
    OutOfRange {
        /// Line of the number.
        line: usize,
        /// The value.
        value: f64,
        /// The limit it exceeds.
        limit: f64,
    },
    /// A frame time that is not positive.
    #[error("line {line}: frame time {value} is not positive")]
    FrameTime {
        /// Line of `Frame Time:`.
        line: usize,
        /// The value.
        value: f64,
    },
    /// A `Frames:` count that the rest of the input cannot hold (each channel value needs at
    /// least two bytes), rejected before any row is read.
    #[error(
        "line {line}: Frames: {declared} with {channels} channels needs at least {needed} more bytes, but only {available} follow"
    )]
    FrameCountTooLarge {
        /// Line of `Frames:`.
        line: usize,
        /// The declared count.
        declared: usize,
        /// Channels per frame.
        channels: usize,
        /// Minimum bytes the rows need.
        needed: u128,
        /// Bytes after the `Frame Time:` line.
        available: usize,
    },
    /// Fewer frame rows than `Frames:` declares.
    #[error("line {line}: Frames: declares {declared} frames but the file has {found}")]
    MissingFrames {
        /// Line of `Frames:`.
        line: usize,
        /// The declared count.
        declared: usize,
        /// The rows present.
        found: usize,
    },
    /// A frame row with the wrong number of values.
    #[error("line {line}: frame {frame} has {found} values, expected {expected}")]
    FrameValueCount {
        /// Line of the row.
        line: usize,
        /// 0-based frame index.
        frame: usize,
        /// Channels in the hierarchy.
        expected: usize,
        /// Values on the row.
        found: usize,
    },
    /// Non-blank text after the last declared frame.
    #[error("line {line}: text after the last of the {declared} declared frames")]
    TrailingData {
        /// Line of the text.
        line: usize,
        /// The declared count.
        declared: usize,
    },
    /// The skeleton is not a valid [`ArticulatedModel`].
    #[error(transparent)]
    Model(#[from] KinematicsError),
}

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
    /// Reads and parses a BVH file.
    ///
    /// # Errors
    /// [`MocapError::FileRead`] when the file cannot be read, otherwise as [`Self::parse`].
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self, MocapError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| MocapError::FileRead {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })?;
        Self::parse(&text)
    }

    /// Parses the text of a BVH file.
    ///
    /// # Errors
    /// A [`MocapError`] variant with the line number for malformed input: missing or
    /// miscounted channels, non-numeric, non-finite or huge values, a wrong number of values
    /// on a frame row, fewer rows than `Frames:` declares (or a count the remaining bytes
    /// cannot hold), unbalanced braces, an empty hierarchy, duplicate joint names.
    pub fn parse(text: &str) -> Result<Self, MocapError> {
        Parser::new(text).parse()
    }

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

/// A whitespace-separated token and its 1-based line.
#[derive(Clone, Copy)]
struct Token<'a> {
    text: &'a str,
    line: usize,
}

/// A joint being read (before the model is built), in file order.
struct RawJoint {
    name: String,
    parent: Option<usize>,
    offset: Option<DVec3>,
    channels: Option<Vec<Channel>>,
    first_channel: usize,
    line: usize,
    /// Whether a child (joint or end site) has been seen (CHANNELS must come before).
    has_child: bool,
}

struct RawEndSite {
    parent: usize,
    offset: DVec3,
    line: usize,
}

struct Parser<'a> {
    text: &'a str,
    /// Byte offset of the next unread line.
    pos: usize,
    /// Line number of the next unread line (1-based).
    line: usize,
    /// Tokens left on the current line.
    pending: std::collections::VecDeque<Token<'a>>,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Self {
        Self {
            text,
            pos: 0,
            line: 1,
            pending: std::collections::VecDeque::new(),
        }
    }

    /// Reads the next line (without its terminator) and its number, `None` at the end.
    fn next_line(&mut self) -> Option<(&'a str, usize)> {
        if self.pos >= self.text.len() {
            return None;
        }
        let rest = &self.text[self.pos..];
        let (line, advance) = match rest.find('\n') {
            Some(i) => (&rest[..i], i + 1),
            None => (rest, rest.len()),
        };
        self.pos += advance;
        let n = self.line;
        self.line += 1;
        Some((line.strip_suffix('\r').unwrap_or(line), n))
    }

    /// The last line number read (for end-of-input errors).
    fn last_line(&self) -> usize {
        (self.line - 1).max(1)
    }

    fn next_token(&mut self) -> Option<Token<'a>> {
        loop {
            if let Some(t) = self.pending.pop_front() {
                return Some(t);
            }
            let (text, line) = self.next_line()?;
            self.pending
                .extend(text.split_whitespace().map(|t| Token { text: t, line }));
        }
    }

    fn peek_token(&mut self) -> Option<Token<'a>> {
        let t = self.next_token()?;
        self.pending.push_front(t);
        Some(t)
    }

    fn expect_token(&mut self, expected: &'static str) -> Result<Token<'a>, MocapError> {
        self.next_token().ok_or(MocapError::UnexpectedEnd {
            line: self.last_line(),
            expected,
        })
    }

    fn keyword(&mut self, word: &'static str) -> Result<Token<'a>, MocapError> {
        let t = self.expect_token(word)?;
        if t.text == word {
            Ok(t)
        } else {
            Err(MocapError::Unexpected {
                line: t.line,
                expected: word,
                found: t.text.into(),
            })
        }
    }

    /// The rest of the current line as a name (joint names may contain spaces); a trailing
    /// `{` on the same line is left for the caller.
    fn name(&mut self, line: usize) -> Result<String, MocapError> {
        let mut parts = Vec::new();
        while let Some(t) = self.pending.front() {
            if t.text == "{" {
                break;
            }
            parts.push(t.text);
            self.pending.pop_front();
        }
        if parts.is_empty() {
            return Err(MocapError::Unexpected {
                line,
                expected: "a joint name",
                found: self.pending.front().map_or("", |t| t.text).into(),
            });
        }
        Ok(parts.join(" "))
    }

    fn number(tok: Token<'_>) -> Result<f64, MocapError> {
        let v: f64 = tok.text.parse().map_err(|_| MocapError::NotANumber {
            line: tok.line,
            text: tok.text.into(),
        })?;
        if !v.is_finite() {
            return Err(MocapError::NonFinite {
                line: tok.line,
                text: tok.text.into(),
            });
        }
        Ok(v)
    }

    fn bounded(tok: Token<'_>, limit: f64) -> Result<f64, MocapError> {
        let v = Self::number(tok)?;
        if v.abs() > limit {
            return Err(MocapError::OutOfRange {
                line: tok.line,
                value: v,
                limit,
            });
        }
        Ok(v)
    }

    fn offset(&mut self) -> Result<DVec3, MocapError> {
        let mut v = [0.0; 3];
        for x in &mut v {
            let t = self.expect_token("an OFFSET coordinate")?;
            *x = Self::bounded(t, MAX_ABS_COORDINATE)?;
        }
        Ok(DVec3::from_array(v))
    }

    fn channels(&mut self, line: usize) -> Result<Vec<Channel>, MocapError> {
        let t = self.expect_token("a channel count")?;
        let declared: usize = t.text.parse().map_err(|_| MocapError::NotANumber {
            line: t.line,
            text: t.text.into(),
        })?;
        // the names are the rest of the CHANNELS line
        let mut out = Vec::new();
        let mut named = 0;
        while let Some(n) = self.pending.front().copied() {
            if n.line != line {
                break;
            }
            self.pending.pop_front();
            named += 1;
            let c = Channel::parse(n.text).ok_or_else(|| MocapError::UnknownChannel {
                line,
                name: n.text.into(),
            })?;
            if out.contains(&c) {
                return Err(MocapError::DuplicateChannel {
                    line,
                    name: n.text.into(),
                });
            }
            out.push(c);
        }
        if named != declared {
            return Err(MocapError::ChannelCount {
                line,
                declared,
                named,
            });
        }
        Ok(out)
    }

    fn parse(mut self) -> Result<MocapClip, MocapError> {
        self.keyword("HIERARCHY")?;
        let (joints, end_sites) = self.hierarchy()?;
        let channel_count: usize = joints
            .iter()
            .map(|j| j.channels.as_ref().map_or(0, Vec::len))
            .sum();
        // MOTION header
        self.keyword("MOTION")?;
        let frames_tok = self.keyword("Frames:")?;
        let t = self.expect_token("the frame count")?;
        let frame_count: usize = t.text.parse().map_err(|_| MocapError::NotANumber {
            line: t.line,
            text: t.text.into(),
        })?;
        self.keyword("Frame")?;
        self.keyword("Time:")?;
        let t = self.expect_token("the frame time")?;
        let frame_time = Self::number(t)?;
        if frame_time <= 0.0 {
            return Err(MocapError::FrameTime {
                line: t.line,
                value: frame_time,
            });
        }
        if let Some(extra) = self.pending.pop_front() {
            return Err(MocapError::Unexpected {
                line: extra.line,
                expected: "the end of the Frame Time line",
                found: extra.text.into(),
            });
        }
        // each value needs a digit and a separator; a frame with no channels still needs a
        // line break between rows
        let available = self.text.len() - self.pos;
        let per_frame = (2 * channel_count).max(1) as u128;
        let needed = (frame_count as u128 * per_frame).saturating_sub(1);
        if needed > available as u128 {
            return Err(MocapError::FrameCountTooLarge {
                line: frames_tok.line,
                declared: frame_count,
                channels: channel_count,
                needed,
                available,
            });
        }
        let mut values = Vec::with_capacity(frame_count * channel_count);
        let mut found = 0;
        let limits: Vec<f64> = joints
            .iter()
            .flat_map(|j| j.channels.as_deref().unwrap_or(&[]))
            .map(|c| {
                if c.is_rotation() {
                    MAX_ABS_DEGREES
                } else {
                    MAX_ABS_COORDINATE
                }
            })
            .collect();
        while let Some((row, line)) = self.next_line() {
            if found == frame_count {
                if row.trim().is_empty() {
                    continue;
                }
                return Err(MocapError::TrailingData {
                    line,
                    declared: frame_count,
                });
            }
            if channel_count > 0 && row.trim().is_empty() {
                // blank lines between rows are tolerated
                continue;
            }
            let start = values.len();
            let mut n = 0;
            for text in row.split_whitespace() {
                n += 1;
                if n > channel_count {
                    continue;
                }
                values.push(Self::bounded(Token { text, line }, limits[n - 1])?);
            }
            if n != channel_count {
                values.truncate(start);
                return Err(MocapError::FrameValueCount {
                    line,
                    frame: found,
                    expected: channel_count,
                    found: n,
                });
            }
            found += 1;
        }
        if found != frame_count {
            return Err(MocapError::MissingFrames {
                line: frames_tok.line,
                declared: frame_count,
                found,
            });
        }
        build(
            joints,
            end_sites,
            channel_count,
            frame_count,
            frame_time,
            values,
        )
    }

    /// Reads `ROOT … }` with an explicit stack of open joints.
    fn hierarchy(&mut self) -> Result<(Vec<RawJoint>, Vec<RawEndSite>), MocapError> {
        let root = self.expect_token("ROOT")?;
        if root.text != "ROOT" {
            return Err(if root.text == "MOTION" || root.text == "}" {
                MocapError::EmptyHierarchy { line: root.line }
            } else {
                MocapError::Unexpected {
                    line: root.line,
                    expected: "ROOT",
                    found: root.text.into(),
                }
            });
        }
        let mut joints: Vec<RawJoint> = Vec::new();
        let mut end_sites = Vec::new();
        let mut names = std::collections::HashSet::new();
        // open joints, innermost last, with the line of their `{`
        let mut stack: Vec<(usize, usize)> = Vec::new();
        let mut next_channel = 0;
        let mut open = |this: &mut Self,
                        joints: &mut Vec<RawJoint>,
                        stack: &mut Vec<(usize, usize)>,
                        kw: Token<'_>|
         -> Result<(), MocapError> {
            let name = this.name(kw.line)?;
            if !names.insert(name.clone()) {
                return Err(MocapError::DuplicateJoint {
                    line: kw.line,
                    name,
                });
            }
            let brace = this.keyword("{")?;
            let parent = stack.last().map(|&(j, _)| j);
            if let Some(p) = parent {
                joints[p].has_child = true;
            }
            stack.push((joints.len(), brace.line));
            joints.push(RawJoint {
                name,
                parent,
                offset: None,
                channels: None,
                first_channel: 0,
                line: kw.line,
                has_child: false,
            });
            Ok(())
        };
        open(self, &mut joints, &mut stack, root)?;
        while let Some(&(cur, brace_line)) = stack.last() {
            let Some(t) = self.next_token() else {
                return Err(MocapError::UnbalancedBraces {
                    line: brace_line,
                    reason: format!(
                        "the {{ of joint {:?} is never closed (the input ends)",
                        joints[cur].name
                    ),
                });
            };
            match t.text {
                "OFFSET" => {
                    if joints[cur].offset.is_some() {
                        return Err(MocapError::Offset {
                            line: t.line,
                            joint: joints[cur].name.clone(),
                            problem: "has two OFFSET lines",
                        });
                    }
                    joints[cur].offset = Some(self.offset()?);
                }
                "CHANNELS" => {
                    let j = &joints[cur];
                    if j.channels.is_some() || j.has_child {
                        return Err(MocapError::Channels {
                            line: t.line,
                            joint: j.name.clone(),
                            problem: if j.has_child {
                                "has its CHANNELS line after a child"
                            } else {
                                "has two CHANNELS lines"
                            },
                        });
                    }
                    let c = self.channels(t.line)?;
                    joints[cur].first_channel = next_channel;
                    next_channel += c.len();
                    joints[cur].channels = Some(c);
                }
                "JOINT" | "End" => {
                    if joints[cur].channels.is_none() {
                        return Err(MocapError::Channels {
                            line: t.line,
                            joint: joints[cur].name.clone(),
                            problem: "has no CHANNELS line before its first child",
                        });
                    }
                    if t.text == "JOINT" {
                        open(self, &mut joints, &mut stack, t)?;
                    } else {
                        let site = self.expect_token("Site")?;
                        if site.text != "Site" || site.line != t.line {
                            return Err(MocapError::Unexpected {
                                line: site.line,
                                expected: "Site (after End)",
                                found: site.text.into(),
                            });
                        }
                        let brace = self.keyword("{")?;
                        let kw = self.expect_token("OFFSET")?;
                        if kw.text != "OFFSET" {
                            return Err(if kw.text == "}" {
                                MocapError::Offset {
                                    line: kw.line,
                                    joint: "End Site".into(),
                                    problem: "has no OFFSET",
                                }
                            } else {
                                MocapError::Unexpected {
                                    line: kw.line,
                                    expected: "OFFSET",
                                    found: kw.text.into(),
                                }
                            });
                        }
                        let offset = self.offset()?;
                        let close =
                            self.expect_token("}")
                                .map_err(|_| MocapError::UnbalancedBraces {
                                    line: brace.line,
                                    reason: "the { of an End Site is never closed".into(),
                                })?;
                        if close.text != "}" {
                            return Err(MocapError::Unexpected {
                                line: close.line,
                                expected: "} (End Site takes only an OFFSET)",
                                found: close.text.into(),
                            });
                        }
                        joints[cur].has_child = true;
                        end_sites.push(RawEndSite {
                            parent: cur,
                            offset,
                            line: t.line,
                        });
                    }
                }
                "}" => {
                    let j = &joints[cur];
                    if j.offset.is_none() {
                        return Err(MocapError::Offset {
                            line: t.line,
                            joint: j.name.clone(),
                            problem: "has no OFFSET",
                        });
                    }
                    if j.channels.is_none() {
                        return Err(MocapError::Channels {
                            line: t.line,
                            joint: j.name.clone(),
                            problem: "has no CHANNELS line",
                        });
                    }
                    stack.pop();
                }
                "MOTION" | "ROOT" => {
                    return Err(MocapError::UnbalancedBraces {
                        line: t.line,
                        reason: format!(
                            "{} while the {{ of joint {:?} (line {brace_line}) is still open",
                            t.text, joints[cur].name
                        ),
                    });
                }
                "{" => {
                    return Err(MocapError::UnbalancedBraces {
                        line: t.line,
                        reason: "a { that does not open a joint".into(),
                    });
                }
                other => {
                    return Err(MocapError::Unexpected {
                        line: t.line,
                        expected: "OFFSET, CHANNELS, JOINT, End Site or }",
                        found: other.into(),
                    });
                }
            }
        }
        // after the root closes: MOTION, or a stray brace, or a second root
        if let Some(t) = self.peek_token() {
            match t.text {
                "}" => {
                    return Err(MocapError::UnbalancedBraces {
                        line: t.line,
                        reason: "a } without a matching {".into(),
                    });
                }
                "ROOT" => {
                    self.next_token();
                    let name = self.name(t.line)?;
                    return Err(MocapError::SecondRoot { line: t.line, name });
                }
                _ => {}
            }
        }
        Ok((joints, end_sites))
    }
}

fn build(
    raw: Vec<RawJoint>,
    raw_sites: Vec<RawEndSite>,
    channel_count: usize,
    frame_count: usize,
    frame_time: f64,
    values: Vec<f64>,
) -> Result<MocapClip, MocapError> {
    let specs = raw
        .iter()
        .map(|j| {
            let channels = j.channels.as_deref().unwrap_or(&[]);
            let joint = if channels.is_empty() {
                Joint::Fixed
            } else if channels.iter().all(|c| c.is_rotation()) {
                Joint::Spherical
            } else {
                Joint::Floating
            };
            LinkSpec {
                name: j.name.clone(),
                parent: j.parent.map(|p| raw[p].name.clone()),
                joint,
                offset: DAffine3::from_translation(j.offset.unwrap_or(DVec3::ZERO)),
            }
        })
        .collect();
    let model = ArticulatedModel::new(specs)?;
    // file order → link order
    let id: Vec<LinkId> = raw
        .iter()
        .map(|j| model.link_id(&j.name).expect("every joint is a link"))
        .collect();
    let mut joints: Vec<Option<MocapJoint>> = vec![None; raw.len()];
    for (k, j) in raw.into_iter().enumerate() {
        joints[id[k].index()] = Some(MocapJoint {
            name: j.name,
            parent: j.parent.map(|p| id[p]),
            offset: j.offset.unwrap_or(DVec3::ZERO),
            channels: j.channels.unwrap_or_default(),
            first_channel: j.first_channel,
            line: j.line,
        });
    }
    let joints: Vec<MocapJoint> = joints
        .into_iter()
        .map(|j| j.expect("a bijection"))
        .collect();
    let end_sites: Vec<EndSite> = raw_sites
        .into_iter()
        .map(|s| EndSite {
            link: id[s.parent],
            offset: s.offset,
            line: s.line,
        })
        .collect();
    let mut bones = Vec::new();
    for (i, j) in joints.iter().enumerate() {
        if let Some(p) = j.parent {
            bones.push(Bone {
                link: p,
                end: BoneEnd::Joint(LinkId(i as u32)),
                offset: j.offset,
            });
        }
    }
    for (k, s) in end_sites.iter().enumerate() {
        bones.push(Bone {
            link: s.link,
            end: BoneEnd::EndSite(k),
            offset: s.offset,
        });
    }
    bones.sort_by_key(|b| b.link);
    Ok(MocapClip {
        model,
        joints,
        bones,
        end_sites,
        channel_count,
        frame_count,
        frame_time,
        values,
    })
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
