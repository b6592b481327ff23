//! The cached transforms of an assembly (exact `DAffine3` or enclosures) with their
//! dirty-path bookkeeping: the bottom-up update of the changed nodes (Sec. 3.1) and the
//! top-down world pass to requested nodes (Sec. 3.2).

use ccd_taylor::{Enclosure, Transform};
use glam::DAffine3;

use super::topology::{HandleSrc, Topology};
use super::{AssemblyNode, NONE};
use crate::LinkId;

/// Composition of the transforms kept in the tree: `DAffine3` or an enclosure `Transform`.
pub(super) trait Compose: Clone {
    /// `self · rhs`: first `rhs`, then `self`.
    fn then(&self, rhs: &Self) -> Self;
}

impl Compose for DAffine3 {
    #[inline]
    fn then(&self, rhs: &Self) -> Self {
        *self * *rhs
    }
}

impl<E: Enclosure> Compose for Transform<E> {
    #[inline]
    fn then(&self, rhs: &Self) -> Self {
        self.compose(rhs)
    }
}

/// The cached transforms of an assembly and its dirty/world bookkeeping.
#[derive(Clone, Debug)]
pub(super) struct Engine<T> {
    /// Per link: principal joint transform of the link's joint (root: its world pose).
    pub(super) joint: Vec<T>,
    /// Per handle: principal-to-secondary handle transform.
    pub(super) handles: Vec<T>,
    /// Per node: child-to-parent transform (identity for upper children and the root).
    pub(super) to_parent: Vec<T>,
    /// Per node: world transform of the principal handle, valid when `world_epoch == epoch`.
    world: Vec<T>,
    world_epoch: Vec<u64>,
    epoch: u64,
    dirty: Vec<bool>,
    dirty_list: Vec<u32>,
    path: Vec<u32>,
    /// The composition `a · b` used (default [`Compose::then`]).
    pub(super) then: fn(&T, &T) -> T,
}

impl<T: Compose> Engine<T> {
    pub(super) fn new(topo: &Topology, joint: Vec<T>, identity: &T) -> Self {
        let nn = topo.nodes.len();
        let mut e = Self {
            joint,
            handles: vec![identity.clone(); topo.handle_links.len()],
            to_parent: vec![identity.clone(); nn],
            world: vec![identity.clone(); nn],
            world_epoch: vec![0; nn],
            epoch: 1,
            dirty: vec![false; nn],
            dirty_list: Vec::with_capacity(nn),
            path: Vec::with_capacity(topo.depth + 1),
            then: <T as Compose>::then,
        };
        for k in 0..nn {
            if matches!(topo.nodes[k].kind, AssemblyNode::Joint { .. }) {
                e.dirty[k] = true;
                e.dirty_list.push(k as u32);
            }
        }
        e.update(topo);
        e
    }

    /// Marks the path from the node of `link`'s joint to the root dirty, or, for the model
    /// root, invalidates the world transforms.
    pub(super) fn mark(&mut self, topo: &Topology, link: LinkId) {
        let mut k = topo.node_of_joint[link.index()];
        if k == NONE {
            self.epoch += 1;
            return;
        }
        while k != NONE && !self.dirty[k as usize] {
            self.dirty[k as usize] = true;
            self.dirty_list.push(k);
            k = topo.nodes[k as usize].parent;
        }
    }

    /// Marks every joint node dirty (a recomputation of all the node transforms).
    pub(super) fn mark_all(&mut self, topo: &Topology) {
        for (k, n) in topo.nodes.iter().enumerate() {
            if matches!(n.kind, AssemblyNode::Joint { .. }) && !self.dirty[k] {
                self.dirty[k] = true;
                self.dirty_list.push(k as u32);
            }
        }
        self.epoch += 1;
    }

    /// Recomputes the dirty nodes, deepest (largest index) first.
    pub(super) fn update(&mut self, topo: &Topology) -> usize {
        let count = self.dirty_list.len();
        if count == 0 {
            return 0;
        }
        let mut list = std::mem::take(&mut self.dirty_list);
        list.sort_unstable_by(|a, b| b.cmp(a));
        for &k in &list {
            let node = &topo.nodes[k as usize];
            self.dirty[k as usize] = false;
            let AssemblyNode::Joint { joint, lower, .. } = node.kind else {
                continue;
            };
            let then = self.then;
            let tp = then(
                &self.handles[node.upper_handle as usize],
                &self.joint[joint.index()],
            );
            let (s, e) = node.handles;
            for h in s as usize..e as usize {
                self.handles[h] = match topo.handle_src[h] {
                    HandleSrc::Own => continue,
                    HandleSrc::Upper(i) => self.handles[i as usize].clone(),
                    HandleSrc::Lower(i) => then(&tp, &self.handles[i as usize]),
                };
            }
            self.to_parent[lower.index()] = tp;
        }
        list.clear();
        self.dirty_list = list;
        self.epoch += 1;
        count
    }

    /// The world transform of node `k`'s principal handle, computing the missing ones on the
    /// path from the nearest node already computed in this epoch (no dirty nodes allowed).
    pub(super) fn world_of(&mut self, topo: &Topology, k: u32) -> &T {
        let mut cur = k;
        self.path.clear();
        while cur != NONE && self.world_epoch[cur as usize] != self.epoch {
            self.path.push(cur);
            cur = topo.nodes[cur as usize].parent;
        }
        while let Some(v) = self.path.pop() {
            let node = &topo.nodes[v as usize];
            let w = if node.parent == NONE {
                self.joint[0].clone()
            } else if node.is_lower {
                (self.then)(
                    &self.world[node.parent as usize],
                    &self.to_parent[v as usize],
                )
            } else {
                self.world[node.parent as usize].clone()
            };
            self.world[v as usize] = w;
            self.world_epoch[v as usize] = self.epoch;
        }
        &self.world[k as usize]
    }
}
