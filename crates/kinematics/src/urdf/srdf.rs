//! SRDF `disable_collisions` pairs: the usual self-collision filter of a robot.

use std::collections::HashSet;
use std::path::Path;

use quick_xml::events::Event;

use super::xml::{attribute, parse_error, xml_error};
use crate::{ArticulatedModel, KinematicsError, LinkId};

/// Reads the `<disable_collisions link1="…" link2="…"/>` entries of an SRDF file into a
/// set of link pairs, each normalised smaller id first. Pairs listed twice (in either
/// order) appear once; other SRDF elements are ignored.
///
/// # Errors
/// [`KinematicsError::FileRead`] when the file cannot be read, and the errors of
/// [`parse_srdf_disabled_pairs`].
///
/// # Example
/// ```
/// use ccd_kinematics::urdf::{read_srdf_disabled_pairs, UrdfOptions, UrdfRobot};
///
/// let urdf = r#"<robot name="r"><link name="a"/><link name="b"/>
///   <joint name="j" type="fixed"><parent link="a"/><child link="b"/></joint></robot>"#;
/// let robot = UrdfRobot::parse(urdf, ".", &UrdfOptions::default())?;
/// let path = std::env::temp_dir().join(format!("ccd-srdf-doc-{}.srdf", std::process::id()));
/// std::fs::write(&path, r#"<robot name="r"><disable_collisions link1="b" link2="a" reason="Adjacent"/></robot>"#).unwrap();
/// let pairs = read_srdf_disabled_pairs(&path, &robot.model);
/// std::fs::remove_file(&path).ok();
/// let (a, b) = (robot.model.link_id("a").unwrap(), robot.model.link_id("b").unwrap());
/// assert!(pairs?.contains(&(a, b)));
/// # Ok::<(), ccd_kinematics::KinematicsError>(())
/// ```
pub fn read_srdf_disabled_pairs(
    path: impl AsRef<Path>,
    model: &ArticulatedModel,
) -> Result<HashSet<(LinkId, LinkId)>, KinematicsError> {
    let path = path.as_ref();
    let text = std::fs::read_to_string(path).map_err(|e| KinematicsError::FileRead {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })?;
    parse_disabled(&text, &path.display().to_string(), model)
}

/// [`read_srdf_disabled_pairs`] for an SRDF document given as text.
///
/// # Errors
/// [`KinematicsError::UrdfParse`] for malformed XML or an entry without `link1`/`link2`;
/// [`KinematicsError::UnknownLink`] for a link name the model does not have.
///
/// # Example
/// ```
/// use ccd_kinematics::urdf::{parse_srdf_disabled_pairs, UrdfOptions, UrdfRobot};
/// use ccd_kinematics::KinematicsError;
///
/// let urdf = r#"<robot name="r"><link name="a"/><link name="b"/>
///   <joint name="j" type="fixed"><parent link="a"/><child link="b"/></joint></robot>"#;
/// let robot = UrdfRobot::parse(urdf, ".", &UrdfOptions::default())?;
/// let pairs = parse_srdf_disabled_pairs(
///     r#"<robot name="r"><disable_collisions link1="a" link2="b"/></robot>"#,
///     &robot.model,
/// )?;
/// assert_eq!(pairs.len(), 1);
/// let bad = parse_srdf_disabled_pairs(
///     r#"<robot name="r"><disable_collisions link1="a" link2="c"/></robot>"#,
///     &robot.model,
/// );
/// assert!(matches!(bad, Err(KinematicsError::UnknownLink { .. })));
/// # Ok::<(), KinematicsError>(())
/// ```
pub fn parse_srdf_disabled_pairs(
    text: &str,
    model: &ArticulatedModel,
) -> Result<HashSet<(LinkId, LinkId)>, KinematicsError> {
    parse_disabled(text, "<string>", model)
}

fn parse_disabled(
    text: &str,
    source_name: &str,
    model: &ArticulatedModel,
) -> Result<HashSet<(LinkId, LinkId)>, KinematicsError> {
    let mut reader = quick_xml::Reader::from_str(text);
    let mut pairs = HashSet::new();
    let mut depth = 0usize;
    let mut seen_root = false;
    loop {
        let position = reader.buffer_position();
        let event = reader
            .read_event()
            .map_err(|e| xml_error(source_name, text, reader.error_position().max(position), &e))?;
        let element = match &event {
            Event::Start(e) => {
                depth += 1;
                Some(e)
            }
            Event::Empty(e) => Some(e),
            Event::End(_) => {
                depth = depth.saturating_sub(1);
                None
            }
            Event::Eof => break,
            _ => None,
        };
        let Some(element) = element else { continue };
        if !seen_root {
            seen_root = true;
            if element.local_name().as_ref() != b"robot" {
                return Err(parse_error(
                    source_name,
                    text,
                    position,
                    "the root element is not <robot>",
                ));
            }
            continue;
        }
        if element.local_name().as_ref() == b"disable_collisions" {
            let link = |key: &str| -> Result<LinkId, KinematicsError> {
                let name = attribute(element, key, &reader)
                    .map_err(|reason| parse_error(source_name, text, position, &reason))?
                    .ok_or_else(|| {
                        parse_error(
                            source_name,
                            text,
                            position,
                            &format!("<disable_collisions> has no {key} attribute"),
                        )
                    })?;
                model
                    .link_id(&name)
                    .ok_or_else(|| KinematicsError::UnknownLink {
                        link: name.clone(),
                        context: format!("SRDF {source_name} <disable_collisions> ({key})"),
                    })
            };
            let (a, b) = (link("link1")?, link("link2")?);
            pairs.insert((a.min(b), a.max(b)));
        }
    }
    if depth != 0 || !seen_root {
        return Err(parse_error(
            source_name,
            text,
            reader.buffer_position(),
            if seen_root {
                "unexpected end of document (unclosed element)"
            } else {
                "the document has no root element"
            },
        ));
    }
    Ok(pairs)
}
