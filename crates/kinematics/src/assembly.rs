//! Assembly tree of an articulated model (adaptive-dynamics CCD paper, Sec. 2–3): a balanced
//! binary assembly of the link tree whose transforms are updated only along the paths of
//! the active joints, and world transforms (or their enclosures over a time interval)
//! computed top-down for a requested subset of bodies.
//!
//! This file holds the node ids and kinds and the checks shared by the submodules:
//! `topology` (the balanced split of the link tree and its handles), `engine` (the cached
//! transforms, their bottom-up update and top-down world pass, for any composable
//! transform), `tree` ([`AssemblyTree`], exact transforms) and `bounds` ([`AssemblyBounds`],
//! their enclosures over a time interval).

mod bounds;
mod engine;
#[cfg(test)]
mod tests;
mod topology;
mod tree;

use crate::{KinematicsError, LinkId};

pub use bounds::{AssemblyBounds, Composition};
pub use tree::AssemblyTree;

const NONE: u32 = u32::MAX;

/// Index of a node of an [`AssemblyTree`]; the root is `NodeId(0)` and every node's parent
/// has a smaller index than the node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

impl NodeId {
    /// The index as `usize`.
    #[inline]
    #[must_use]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// What a node of an [`AssemblyTree`] assembles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AssemblyNode {
    /// A leaf: one rigid body.
    Body {
        /// The link.
        link: LinkId,
    },
    /// Two sub-assemblies joined by the joint of `joint` (connecting `joint` to its parent
    /// link), the node's principal joint.
    Joint {
        /// The link whose joint (to its parent link) is the principal joint.
        joint: LinkId,
        /// The part holding the parent link of `joint` (shares this node's principal handle).
        upper: NodeId,
        /// The part whose top link is `joint`.
        lower: NodeId,
    },
}

/// The index of `id` when it is one of `len` nodes, else [`KinematicsError::UnknownNodeId`].
pub(super) fn check_node(id: NodeId, len: usize) -> Result<usize, KinematicsError> {
    let i = id.index();
    if i < len {
        Ok(i)
    } else {
        Err(KinematicsError::UnknownNodeId {
            id: id.0,
            nodes: len,
        })
    }
}

/// The index of `link` when it is one of `len` links, else [`KinematicsError::UnknownLinkId`].
pub(super) fn check_link(link: LinkId, len: usize) -> Result<usize, KinematicsError> {
    let i = link.index();
    if i < len {
        Ok(i)
    } else {
        Err(KinematicsError::UnknownLinkId {
            id: link.0,
            links: len,
        })
    }
}
