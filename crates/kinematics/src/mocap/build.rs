//! From the parsed hierarchy to a [`MocapClip`]: the [`ArticulatedModel`] (a joint type that
//! fits each joint's channels), the joints in link order, the bones and the end sites.

use glam::{DAffine3, DVec3};

use super::{Bone, BoneEnd, Channel, EndSite, MocapClip, MocapError, MocapJoint};
use crate::{ArticulatedModel, Joint, LinkId, LinkSpec};

/// A joint being read (before the model is built), in file order.
pub(super) struct RawJoint {
    pub(super) name: String,
    pub(super) parent: Option<usize>,
    pub(super) offset: Option<DVec3>,
    pub(super) channels: Option<Vec<Channel>>,
    pub(super) first_channel: usize,
    pub(super) line: usize,
    /// Whether a child (joint or end site) has been seen (CHANNELS must come before).
    pub(super) has_child: bool,
}

/// An end site being read.
pub(super) struct RawEndSite {
    pub(super) parent: usize,
    pub(super) offset: DVec3,
    pub(super) line: usize,
}

/// The clip from the joints and end sites in file order and the frame values.
pub(super) fn build(
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
