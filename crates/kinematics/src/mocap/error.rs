//! [`MocapError`]: what can be wrong with a BVH file, with the line where it is.

use crate::KinematicsError;

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
    /// A second `ROOT` (an [`ArticulatedModel`](crate::ArticulatedModel) has one root).
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
    /// A finite number too large to compose safely
    /// ([`MAX_ABS_COORDINATE`](super::MAX_ABS_COORDINATE),
    /// [`MAX_ABS_DEGREES`](super::MAX_ABS_DEGREES)).
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
    /// The skeleton is not a valid [`ArticulatedModel`](crate::ArticulatedModel).
    #[error(transparent)]
    Model(#[from] KinematicsError),
}
