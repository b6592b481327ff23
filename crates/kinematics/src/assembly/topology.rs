//! The shape of an assembly: the balanced binary split of the link tree into sub-assemblies
//! (adaptive-dynamics CCD paper, Sec. 2), each node's handles and where each handle
//! transform comes from.

use super::{AssemblyNode, NONE, NodeId};
use crate::{ArticulatedModel, LinkId};

/// Where a secondary handle transform of an internal node comes from.
#[derive(Clone, Copy, Debug)]
pub(super) enum HandleSrc {
    /// A leaf's own frame: the identity.
    Own,
    /// Copied from the upper child's handle at this absolute index.
    Upper(u32),
    /// The lower child's handle at this absolute index, times the lower child-to-parent.
    Lower(u32),
}

#[derive(Clone, Debug)]
pub(super) struct NodeTopo {
    pub(super) parent: u32,
    pub(super) kind: AssemblyNode,
    /// Absolute index (into the handle arrays) of the upper child's handle on the parent
    /// link of the principal joint; `NONE` for leaves.
    pub(super) upper_handle: u32,
    /// Range of this node's handles in the handle arrays.
    pub(super) handles: (u32, u32),
    /// Whether this node is the lower child of its parent.
    pub(super) is_lower: bool,
}

/// The shape of the assembly: shared by an [`AssemblyTree`](crate::AssemblyTree) and its
/// [`AssemblyBounds`](crate::AssemblyBounds).
#[derive(Clone, Debug)]
pub(super) struct Topology {
    pub(super) nodes: Vec<NodeTopo>,
    pub(super) handle_links: Vec<LinkId>,
    pub(super) handle_src: Vec<HandleSrc>,
    pub(super) leaf_of_link: Vec<u32>,
    /// Per link: the internal node whose principal joint is the link's joint (`NONE` for
    /// the model root).
    pub(super) node_of_joint: Vec<u32>,
    pub(super) depth: usize,
}

impl Topology {
    /// Balanced binary assembly: every connected link set is split at the joint whose
    /// removal leaves the two parts closest in size (ties: the smaller link id).
    pub(super) fn build(model: &ArticulatedModel) -> Self {
        let n = model.len();
        let parent: Vec<u32> = model
            .links()
            .iter()
            .map(|l| l.parent.map_or(NONE, |p| p.0))
            .collect();
        let mut nodes: Vec<NodeTopo> = Vec::with_capacity(2 * n - 1);
        let mut sets: Vec<Vec<u32>> = Vec::with_capacity(2 * n - 1);
        nodes.push(NodeTopo {
            parent: NONE,
            kind: AssemblyNode::Body { link: LinkId(0) },
            upper_handle: NONE,
            handles: (0, 0),
            is_lower: false,
        });
        sets.push((0..n as u32).collect());
        let mut size = vec![0u32; n];
        let mut in_lower = vec![false; n];
        let mut k = 0;
        // nodes are processed in creation order (breadth first), so parents precede
        // children; every split adds two nodes, so the loop ends after 2n − 1 nodes
        while k < nodes.len() {
            let set = std::mem::take(&mut sets[k]);
            if set.len() == 1 {
                nodes[k].kind = AssemblyNode::Body {
                    link: LinkId(set[0]),
                };
                sets[k] = set;
                k += 1;
                continue;
            }
            let top = set[0]; // links are stored parents-first
            for &y in &set {
                size[y as usize] = 1;
            }
            for &y in set.iter().rev() {
                if y != top {
                    size[parent[y as usize] as usize] += size[y as usize];
                }
            }
            let total = set.len() as i64;
            let cut = set[1..]
                .iter()
                .copied()
                .min_by_key(|&y| ((total - 2 * i64::from(size[y as usize])).abs(), y))
                .expect("a set of two or more links has a joint");
            let (mut upper, mut lower) = (Vec::new(), Vec::new());
            for &y in &set {
                let low = y == cut || (y != top && in_lower[parent[y as usize] as usize]);
                in_lower[y as usize] = low;
                if low { lower.push(y) } else { upper.push(y) }
            }
            for &y in &set {
                in_lower[y as usize] = false;
            }
            let (u, l) = (nodes.len() as u32, nodes.len() as u32 + 1);
            for is_lower in [false, true] {
                nodes.push(NodeTopo {
                    parent: k as u32,
                    kind: AssemblyNode::Body { link: LinkId(0) },
                    upper_handle: NONE,
                    handles: (0, 0),
                    is_lower,
                });
            }
            sets.push(upper);
            sets.push(lower);
            nodes[k].kind = AssemblyNode::Joint {
                joint: LinkId(cut),
                upper: NodeId(u),
                lower: NodeId(l),
            };
            sets[k] = set;
            k += 1;
        }
        // handles: the links of each set with a child outside the set
        let mut member = vec![false; n];
        let mut handle_links = Vec::new();
        for (node, set) in nodes.iter_mut().zip(&sets) {
            for &y in set {
                member[y as usize] = true;
            }
            let start = handle_links.len() as u32;
            for &y in set {
                let id = LinkId(y);
                if model.children(id).iter().any(|c| !member[c.index()]) {
                    handle_links.push(id);
                }
            }
            node.handles = (start, handle_links.len() as u32);
            for &y in set {
                member[y as usize] = false;
            }
        }
        let find = |node: &NodeTopo, link: LinkId| -> u32 {
            let (s, e) = node.handles;
            let pos = handle_links[s as usize..e as usize]
                .binary_search(&link)
                .expect("a handle of a part is a handle of the part's sub-assembly");
            s + pos as u32
        };
        let mut handle_src = vec![HandleSrc::Own; handle_links.len()];
        let mut leaf_of_link = vec![NONE; n];
        let mut node_of_joint = vec![NONE; n];
        for k in 0..nodes.len() {
            match nodes[k].kind {
                AssemblyNode::Body { link } => leaf_of_link[link.index()] = k as u32,
                AssemblyNode::Joint {
                    joint,
                    upper,
                    lower,
                } => {
                    node_of_joint[joint.index()] = k as u32;
                    let (un, ln) = (&nodes[upper.index()], &nodes[lower.index()]);
                    let p = LinkId(parent[joint.index()]);
                    let uh = find(un, p);
                    let (s, e) = nodes[k].handles;
                    for h in s..e {
                        let link = handle_links[h as usize];
                        let (us, ue) = un.handles;
                        handle_src[h as usize] = if handle_links[us as usize..ue as usize]
                            .binary_search(&link)
                            .is_ok()
                        {
                            HandleSrc::Upper(find(un, link))
                        } else {
                            HandleSrc::Lower(find(ln, link))
                        };
                    }
                    nodes[k].upper_handle = uh;
                }
            }
        }
        let mut depths = vec![0usize; nodes.len()];
        for k in 1..nodes.len() {
            depths[k] = depths[nodes[k].parent as usize] + 1;
        }
        let depth = depths.into_iter().max().unwrap_or(0);
        Self {
            nodes,
            handle_links,
            handle_src,
            leaf_of_link,
            node_of_joint,
            depth,
        }
    }
}
