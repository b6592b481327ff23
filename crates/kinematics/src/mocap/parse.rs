//! Reading a BVH file: a line-aware tokenizer and an iterative parser of the `HIERARCHY` and
//! `MOTION` sections (no recursion; a declared frame count is checked against the bytes that
//! follow before any row is read).

use std::path::Path;

use glam::DVec3;

use super::build::{RawEndSite, RawJoint, build};
use super::{Channel, MAX_ABS_COORDINATE, MAX_ABS_DEGREES, MocapClip, MocapError};

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
}

/// A whitespace-separated token and its 1-based line.
#[derive(Clone, Copy)]
struct Token<'a> {
    text: &'a str,
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
