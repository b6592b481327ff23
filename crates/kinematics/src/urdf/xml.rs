//! The `quick-xml` side of URDF and SRDF reading: errors with line numbers, xacro detection,
//! attribute values, and the pre-pass that checks a URDF's structure and collects its
//! joints' types and `<limit>`s before `urdf-rs` reads it.

use std::collections::HashMap;

use quick_xml::events::{BytesStart, Event};

use crate::KinematicsError;

/// What the pre-pass learns about a `<joint>` (direct child of `<robot>`).
pub(super) struct JointScan {
    pub(super) kind: String,
    pub(super) has_limit: bool,
}

/// `text` with every empty `<texture/>` element (no attributes; materials are ignored here,
/// and `urdfdom` accepts it, but `urdf-rs` requires a `filename`) given `filename=""`.
pub(super) fn with_texture_filenames(text: &str) -> std::borrow::Cow<'_, str> {
    const TAG: &str = "<texture";
    if !text.contains(TAG) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 64);
    let mut rest = text;
    while let Some(at) = rest.find(TAG) {
        let after = &rest[at + TAG.len()..];
        let empty = after
            .find('>')
            .is_some_and(|end| after[..end].trim() == "/");
        out.push_str(&rest[..at + TAG.len()]);
        if empty {
            out.push_str(" filename=\"\"");
        }
        rest = after;
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

/// A [`KinematicsError::UrdfParse`] at byte `position` of `text` (reported as a line).
pub(super) fn parse_error(
    source_name: &str,
    text: &str,
    position: u64,
    reason: &str,
) -> KinematicsError {
    let end = usize::try_from(position)
        .unwrap_or(usize::MAX)
        .min(text.len());
    let line = 1 + text.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count();
    KinematicsError::UrdfParse {
        source_name: source_name.to_owned(),
        reason: format!("line {line}: {reason}"),
    }
}

pub(super) fn xml_error(
    source_name: &str,
    text: &str,
    position: u64,
    e: &quick_xml::Error,
) -> KinematicsError {
    parse_error(source_name, text, position, &format!("malformed XML: {e}"))
}

/// A [`KinematicsError::Xacro`] when `element` is a xacro element (`<xacro:...>`), has a
/// `xacro:` attribute, or an attribute value with a `${...}` or `$(...)` substitution.
fn check_not_xacro(
    element: &quick_xml::events::BytesStart<'_>,
    source_name: &str,
    text: &str,
    position: u64,
) -> Result<(), KinematicsError> {
    let line = || {
        let end = usize::try_from(position)
            .unwrap_or(usize::MAX)
            .min(text.len());
        1 + text.as_bytes()[..end]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
    };
    let xacro = |what: String| KinematicsError::Xacro {
        source_name: source_name.to_owned(),
        reason: format!("line {}: {what}", line()),
    };
    let qname = element.name();
    if qname.as_ref().starts_with(b"xacro:") {
        return Err(xacro(format!(
            "element <{}>",
            String::from_utf8_lossy(qname.as_ref())
        )));
    }
    for a in element.attributes().with_checks(false).flatten() {
        let key = a.key.as_ref();
        if key.starts_with(b"xacro:") {
            return Err(xacro(format!("attribute {}", String::from_utf8_lossy(key))));
        }
        let value = a.value.as_ref();
        if value.windows(2).any(|w| w == b"${" || w == b"$(") {
            return Err(xacro(format!(
                "attribute {}=\"{}\" has a substitution",
                String::from_utf8_lossy(key),
                String::from_utf8_lossy(value)
            )));
        }
    }
    Ok(())
}

/// Checks that `text` is well-formed XML with a `<robot>` root and collects, for every
/// `<joint>` directly under it, its `type` and whether it has a `<limit>`. Unknown joint
/// types are reported here.
pub(super) fn scan(
    text: &str,
    source_name: &str,
) -> Result<HashMap<String, JointScan>, KinematicsError> {
    let mut reader = quick_xml::Reader::from_str(text);
    let mut joints: HashMap<String, JointScan> = HashMap::new();
    let mut depth = 0usize;
    let mut seen_root = false;
    let mut open_joint: Option<String> = None;
    loop {
        let position = reader.buffer_position();
        let event = reader
            .read_event()
            .map_err(|e| xml_error(source_name, text, reader.error_position().max(position), &e))?;
        let (element, is_start) = match &event {
            Event::Start(e) => (e, true),
            Event::Empty(e) => (e, false),
            Event::End(_) => {
                depth = depth.saturating_sub(1);
                if depth == 1 {
                    open_joint = None;
                }
                continue;
            }
            Event::Eof => break,
            _ => continue,
        };
        let bad = |reason: &str| parse_error(source_name, text, position, reason);
        check_not_xacro(element, source_name, text, position)?;
        let name = element.local_name();
        if depth == 0 {
            if seen_root {
                return Err(bad("more than one root element"));
            }
            seen_root = true;
            if name.as_ref() != b"robot" {
                return Err(bad("the root element is not <robot>"));
            }
        } else if depth == 1 && name.as_ref() == b"joint" {
            let attr = |key: &str| attribute(element, key, &reader).map_err(|r| bad(&r));
            let joint = attr("name")?.ok_or_else(|| bad("a <joint> has no name"))?;
            let kind = attr("type")?.ok_or_else(|| bad(&format!("joint {joint:?} has no type")))?;
            const KNOWN: [&str; 7] = [
                "revolute",
                "continuous",
                "prismatic",
                "fixed",
                "floating",
                "planar",
                "spherical",
            ];
            if !KNOWN.contains(&kind.as_str()) {
                return Err(KinematicsError::UnknownJointType { joint, kind });
            }
            if joints.contains_key(&joint) {
                return Err(KinematicsError::InvalidUrdf(format!(
                    "two joints are named {joint:?}"
                )));
            }
            joints.insert(
                joint.clone(),
                JointScan {
                    kind,
                    has_limit: false,
                },
            );
            if is_start {
                open_joint = Some(joint);
            }
        } else if depth == 2
            && name.as_ref() == b"limit"
            && let Some(j) = open_joint.as_ref().and_then(|j| joints.get_mut(j))
        {
            j.has_limit = true;
        }
        if is_start {
            depth += 1;
        }
    }
    if !seen_root {
        return Err(parse_error(
            source_name,
            text,
            reader.buffer_position(),
            "the document has no root element",
        ));
    }
    if depth != 0 {
        return Err(parse_error(
            source_name,
            text,
            reader.buffer_position(),
            "unexpected end of document (unclosed element)",
        ));
    }
    Ok(joints)
}

/// The unescaped value of attribute `key` of `element`, `None` when absent.
pub(super) fn attribute(
    element: &BytesStart<'_>,
    key: &str,
    reader: &quick_xml::Reader<&[u8]>,
) -> Result<Option<String>, String> {
    for a in element.attributes() {
        let a = a.map_err(|e| e.to_string())?;
        if a.key.local_name().as_ref() == key.as_bytes() {
            let v = a
                .decode_and_unescape_value(reader.decoder())
                .map_err(|e| e.to_string())?;
            return Ok(Some(v.into_owned()));
        }
    }
    Ok(None)
}
