//! Per-body state of the adaptive query: the assembly tree with its cached enclosures
//! (updated only along the changed joints' paths), a swept box per sub-assembly in its own
//! frame, world boxes computed top-down on demand, and cached self-collision candidates of
//! rigid sub-assemblies and of node pairs inside one rigid group.

use std::collections::HashMap;

use ccd_distance::{MeshDistanceOptions, MeshDistanceStatus, mesh_distance};
use ccd_geometry::Aabb;
use ccd_kinematics::{
    ArticulatedMotion, AssemblyBounds, AssemblyNode, AssemblyTree, LinkId, NodeId, RigidMotion,
};
use ccd_taylor::{Enclosure, Interval, TaylorModel, Transform};
use glam::{DAffine3, DVec3};

use crate::scene::Pcl;
use crate::{ArticulatedBody, ArticulatedError, Part};

const NONE: u32 = u32::MAX;

/// Whether a relative motion changes the link's pose over the step.
#[inline]
pub(super) fn is_moving(m: &RigidMotion) -> bool {
    m.angle() != 0.0 || m.linear_velocity() != glam::DVec3::ZERO
}

/// The enclosure arithmetics of node boxes, with their box of a transformed local box.
pub(crate) trait NodeArith: Enclosure + PartialEq {
    /// A box holding `t` applied to every point of `local` (not empty) over the domain.
    fn box_of(t: &Transform<Self>, local: &Aabb) -> Aabb {
        t.aabb_of_box(local)
    }

    /// A box holding `t` applied to the convex hull of `corners` (an OBB's, in the order
    /// of [`Transform::aabb_of_corners`]) over the domain: [`Transform::aabb_of_corners`]
    /// by default.
    fn corners_box(t: &Transform<Self>, corners: &[DVec3; 8]) -> Aabb {
        t.aabb_of_corners(corners)
    }

    /// The composition `a · b` of the node transforms (the assembly bounds' and the body
    /// frames'): [`Transform::compose`] by default.
    fn then(a: &Transform<Self>, b: &Transform<Self>) -> Transform<Self> {
        a.compose(b)
    }

    /// An enclosure over `[0, 1]` of a relative (or rigid-body) motion:
    /// [`RigidMotion::enclosure`] by default.
    fn enclose(motion: &RigidMotion) -> Result<Transform<Self>, ccd_kinematics::KinematicsError> {
        motion.enclosure::<Self>(Interval::UNIT)
    }
}

impl NodeArith for TaylorModel {}

impl NodeArith for Interval {
    /// The midpoint–radius box of the transformed local box ([`crate::midrad::local_box`]:
    /// nine f64 products per axis and one proven rounding bound), or, when it cannot be
    /// formed (unbounded or non-finite inputs), per row `i`, `t_i + Σ_j R_ij · [lo_j, hi_j]`
    /// in outward-rounded interval arithmetic (one fused row product,
    /// [`Enclosure::dot3`]).
    #[inline]
    fn box_of(t: &Transform<Self>, local: &Aabb) -> Aabb {
        crate::midrad::local_box(t, local).unwrap_or_else(|| interval_box_of(t, local))
    }

    /// [`crate::midrad::interval_enclosure`]: the rotation entries of a turning motion in
    /// midpoint–radius f64 with one proven rounding bound, as the full query's interval
    /// pass encloses its link motions (the same enclosure up to rounding).
    #[inline]
    fn enclose(motion: &RigidMotion) -> Result<Transform<Self>, ccd_kinematics::KinematicsError> {
        Ok(crate::midrad::interval_enclosure(motion))
    }

    /// [`crate::midrad::compose`] (midpoint–radius products with one proven rounding
    /// bound per entry), or [`Transform::compose`] when it cannot be formed.
    #[inline]
    fn then(a: &Transform<Self>, b: &Transform<Self>) -> Transform<Self> {
        crate::midrad::compose_or_interval(a, b)
    }

    /// The midpoint–radius corner box ([`crate::midrad::corner_box`]: per world axis the
    /// hull of the eight corners' `rm·p ± rr·|p|` plus the translation, one proven rounding
    /// bound), or [`Transform::aabb_of_corners`] when it cannot be formed (unbounded or
    /// non-finite inputs).
    #[inline]
    fn corners_box(t: &Transform<Self>, corners: &[DVec3; 8]) -> Aabb {
        crate::midrad::corner_box(t, corners).unwrap_or_else(|| t.aabb_of_corners(corners))
    }
}

/// Per row `i`, `t_i + Σ_j R_ij · [lo_j, hi_j]` in outward-rounded interval arithmetic
/// (one fused row product, [`Enclosure::dot3`]): 9 interval products instead of the 72 of
/// the eight corners, for the same range (each entry appears once per row, so the corners'
/// union is no tighter up to rounding).
fn interval_box_of(t: &Transform<Interval>, local: &Aabb) -> Aabb {
    let b = [
        Interval::new(local.min.x, local.max.x),
        Interval::new(local.min.y, local.max.y),
        Interval::new(local.min.z, local.max.z),
    ];
    let r = &t.rotation.rows;
    let row = |i: usize, ti: &Interval| {
        <Interval as Enclosure>::dot3(
            [&r[i][0], &r[i][1], &r[i][2]],
            [&b[0], &b[1], &b[2]],
            Some(ti),
        )
    };
    let v = &t.translation;
    let (x, y, z) = (row(0, &v.x), row(1, &v.y), row(2, &v.z));
    Aabb::new(
        glam::DVec3::new(x.lo(), y.lo(), z.lo()),
        glam::DVec3::new(x.hi(), y.hi(), z.hi()),
    )
}

/// The adaptive state of one articulated body for one enclosure arithmetic `E`.
#[derive(Clone, Debug)]
pub(crate) struct BodyState<E> {
    /// Index of the body in the scene.
    body: usize,
    nodes: Vec<AssemblyNode>,
    parent: Vec<u32>,
    /// Per link: the node whose principal joint is the link's joint (`NONE`: model root).
    joint_node: Vec<u32>,
    bounds: AssemblyBounds<E>,
    /// The relative motions the bounds hold.
    motions: Vec<RigidMotion>,
    /// Per node: a box (not inflated) holding the sub-assembly's geometry over the step, in
    /// the frame of the node's principal handle (its top link). Empty without geometry.
    local: Vec<Aabb>,
    /// Per node: some joint inside the sub-assembly moves during the step (leaves: never).
    moving: Vec<bool>,
    /// Per node: links with geometry in the sub-assembly.
    geometry: Vec<Vec<LinkId>>,
    /// Per node: self-collision candidate pairs inside the sub-assembly, valid while no joint
    /// inside it changes (the sub-assembly is rigid, so their distances are constant).
    rigid: Vec<Option<Vec<(LinkId, LinkId)>>>,
    /// Per node: world box over the step (inflated), valid when `world_stamp == stamp`.
    world: Vec<Aabb>,
    world_stamp: Vec<u64>,
    stamp: u64,
    /// Scratch: nodes marked in this step's update.
    mark: Vec<u64>,
    dirty: Vec<u32>,
    /// World transforms at `t = 0` (computed when a rigid cache is rebuilt).
    pose0: Vec<DAffine3>,
    pose0_stamp: u64,
    /// Rounding allowance of boxes and distances computed from `pose0`
    /// ([`POSE0_ROUNDING`] times the links' translations and radii, summed).
    slack0: f64,
    /// Half the tolerance, slightly enlarged: the inflation of every box.
    margin: f64,
    /// Per node pair `(a, b)` at `a · nodes + b`: 0 unknown, 1 when no self-collision pair
    /// joins a link of `a` to a link of `b`, 2 when one does (the filter never changes).
    joins: Vec<u8>,
    /// Per link: its rigid group, the nearest link at or above it whose joint moves in the
    /// step (the model root for the root's group). Two links of one group keep their
    /// relative pose during the step: no moving joint lies between them.
    link_group: Vec<u32>,
    /// Per node: the rigid group of all its links with geometry (`NONE`: several, or none).
    node_group: Vec<u32>,
    /// Counts the changes of the groups and of the relative poses inside them: a joint
    /// that starts or stops moving, or a still joint whose pose changes between steps.
    groups_epoch: u64,
    /// The epoch `link_group`, `node_group` and `pair_rigid` were computed for.
    groups_built: u64,
    /// Per node pair `(a, b)` (key `a << 32 | b`) in one rigid group: the self pairs between
    /// their links that can come within the tolerance (as the rigid candidates), valid for
    /// the epoch `groups_built`.
    pair_rigid: HashMap<u64, Vec<(LinkId, LinkId)>>,
    /// Per node: the child-to-parent enclosure the last refresh of its parent read (lower
    /// children only), to tell whether it changed.
    to_parent: Vec<Option<Transform<E>>>,
    /// Per node: the stamp at which its child-to-parent enclosure last changed (lower
    /// children; the root's when every body-frame box must be recomputed).
    tp_changed: Vec<u64>,
    /// Per node: the stamp at which its local box last changed.
    local_changed: Vec<u64>,
    /// Per node: the latest `tp_changed` on its path from the root (itself included),
    /// computed at `body_ver_stamp`.
    body_ver: Vec<u64>,
    body_ver_stamp: Vec<u64>,
    /// Per node: the enclosure of the transform from its principal handle to the model
    /// root link's frame over the step (`None`: the identity, on the root's upper spine),
    /// computed at `body_tf_stamp`.
    body_tf: Vec<Option<Transform<E>>>,
    body_tf_stamp: Vec<u64>,
    /// Per node: its geometry's box over the step in the model root link's frame
    /// (inflated), computed at `body_box_stamp`: kept across steps while nothing on its
    /// path changes.
    body_box: Vec<Aabb>,
    body_box_stamp: Vec<u64>,
}

impl<E: NodeArith> BodyState<E> {
    /// The state of body `index` at the start of its first step `motion`.
    pub(crate) fn new(
        index: usize,
        body: &ArticulatedBody,
        motion: &ArticulatedMotion,
    ) -> Result<Self, ArticulatedError> {
        let model = body.model();
        let err = |source| ArticulatedError::Motion {
            body: index,
            source,
        };
        let tree = AssemblyTree::from_model(model);
        let nn = tree.node_count();
        let mut nodes = Vec::with_capacity(nn);
        let mut parent = Vec::with_capacity(nn);
        for k in 0..nn as u32 {
            nodes.push(tree.node(NodeId(k)).map_err(err)?);
            parent.push(tree.parent(NodeId(k)).map_err(err)?.map_or(NONE, |p| p.0));
        }
        let mut joint_node = vec![NONE; model.len()];
        for (i, j) in joint_node.iter_mut().enumerate() {
            if let Some(k) = tree.joint_node(LinkId(i as u32)).map_err(err)? {
                *j = k.0;
            }
        }
        let mut geometry = vec![Vec::new(); nn];
        for k in (0..nn).rev() {
            geometry[k] = match nodes[k] {
                AssemblyNode::Body { link } => {
                    if body.link_shape(link).is_some() {
                        vec![link]
                    } else {
                        Vec::new()
                    }
                }
                AssemblyNode::Joint { upper, lower, .. } => {
                    let mut g = geometry[upper.index()].clone();
                    g.extend_from_slice(&geometry[lower.index()]);
                    g
                }
            };
        }
        let mut bounds = AssemblyBounds::<E>::new(&tree, motion, Interval::UNIT).map_err(err)?;
        bounds.set_composition(E::then);
        let mut s = Self {
            body: index,
            nodes,
            parent,
            joint_node,
            bounds,
            motions: motion.relatives().to_vec(),
            local: vec![Aabb::EMPTY; nn],
            moving: vec![false; nn],
            geometry,
            rigid: vec![None; nn],
            world: vec![Aabb::EMPTY; nn],
            world_stamp: vec![0; nn],
            stamp: 1,
            mark: vec![0; nn],
            dirty: Vec::new(),
            pose0: Vec::new(),
            pose0_stamp: 0,
            slack0: 0.0,
            margin: 0.0,
            joins: vec![0; nn * nn],
            link_group: vec![0; model.len()],
            node_group: vec![NONE; nn],
            groups_epoch: 1,
            groups_built: 0,
            pair_rigid: HashMap::new(),
            to_parent: vec![None; nn],
            tp_changed: vec![1; nn],
            local_changed: vec![1; nn],
            body_ver: vec![0; nn],
            body_ver_stamp: vec![0; nn],
            body_tf: vec![None; nn],
            body_tf_stamp: vec![0; nn],
            body_box: vec![Aabb::EMPTY; nn],
            body_box_stamp: vec![0; nn],
        };
        for k in (0..nn as u32).rev() {
            s.refresh(body, k)?;
        }
        Ok(s)
    }

    /// Recomputes node `k`'s local box and moving flag from its children (which must be up
    /// to date) and drops its rigid cache.
    fn refresh(&mut self, body: &ArticulatedBody, k: u32) -> Result<(), ArticulatedError> {
        let i = k as usize;
        self.rigid[i] = None;
        let old_local = self.local[i];
        match self.nodes[i] {
            AssemblyNode::Body { link } => {
                self.local[i] = body.link_shape(link).map_or(Aabb::EMPTY, |s| {
                    Aabb::from_points(s.obb_corners().iter().copied())
                });
                self.moving[i] = false;
            }
            AssemblyNode::Joint {
                joint,
                upper,
                lower,
            } => {
                let (u, l) = (upper.index(), lower.index());
                let t = self.bounds.child_to_parent_bound(lower).map_err(|source| {
                    ArticulatedError::Motion {
                        body: self.body,
                        source,
                    }
                })?;
                if self.to_parent[l] != Some(t) {
                    self.to_parent[l] = Some(t);
                    self.tp_changed[l] = self.stamp;
                }
                let below = if self.local[l].is_empty() {
                    Aabb::EMPTY
                } else {
                    E::box_of(&t, &self.local[l])
                };
                self.local[i] = self.local[u].merge(below);
                self.moving[i] =
                    self.moving[u] || self.moving[l] || is_moving(&self.motions[joint.index()]);
            }
        }
        if self.local[i] != old_local {
            self.local_changed[i] = self.stamp;
        }
        Ok(())
    }

    /// Moves to the next step: links whose relative motion differs from the cached one
    /// (the active joints, joints that stopped, joints moved between steps) get new
    /// enclosures; only the nodes on their paths to the root are recomputed, bottom-up.
    /// Returns the number of recomputed nodes.
    pub(crate) fn advance(
        &mut self,
        body: &ArticulatedBody,
        motion: &ArticulatedMotion,
        tolerance: f64,
    ) -> Result<usize, ArticulatedError> {
        self.stamp += 1;
        let margin = 0.5 * tolerance * (1.0 + 1e-6);
        if margin != self.margin {
            // rigid candidates were culled with the old tolerance
            self.rigid.iter_mut().for_each(|r| *r = None);
            self.groups_epoch += 1;
            self.margin = margin;
            // every body-frame box was inflated by the old margin
            self.tp_changed[0] = self.stamp;
        }
        self.dirty.clear();
        for (i, m) in motion.relatives().iter().enumerate() {
            if *m == self.motions[i] {
                continue;
            }
            // a joint that keeps moving changes no group and no pose inside one; the
            // root's motion (joint node NONE) moves whole bodies
            if self.joint_node[i] != NONE && !(is_moving(m) && is_moving(&self.motions[i])) {
                self.groups_epoch += 1;
            }
            let enclosure = E::enclose(m).map_err(|source| ArticulatedError::Motion {
                body: self.body,
                source,
            })?;
            self.bounds
                .set_motion_enclosed(LinkId(i as u32), *m, enclosure)
                .map_err(|source| ArticulatedError::Motion {
                    body: self.body,
                    source,
                })?;
            self.motions[i] = *m;
            let mut k = self.joint_node[i];
            while k != NONE && self.mark[k as usize] != self.stamp {
                self.mark[k as usize] = self.stamp;
                self.dirty.push(k);
                k = self.parent[k as usize];
            }
        }
        // children have larger indices than their parents: deepest first
        let mut dirty = std::mem::take(&mut self.dirty);
        dirty.sort_unstable_by(|a, b| b.cmp(a));
        for &k in &dirty {
            self.refresh(body, k)?;
        }
        let count = dirty.len();
        self.dirty = dirty;
        Ok(count)
    }

    /// The inflated world box of node `k` over the step (computed top-down on first use).
    fn world_box(&mut self, body: &ArticulatedBody, k: u32) -> Result<Aabb, ArticulatedError> {
        let i = k as usize;
        if self.world_stamp[i] == self.stamp {
            return Ok(self.world[i]);
        }
        let t =
            self.bounds
                .node_world_bound(NodeId(k))
                .map_err(|source| ArticulatedError::Motion {
                    body: self.body,
                    source,
                })?;
        let b = match self.nodes[i] {
            AssemblyNode::Body { link } => match body.link_shape(link) {
                Some(s) => E::corners_box(&t, s.obb_corners()),
                None => Aabb::EMPTY,
            },
            AssemblyNode::Joint { .. } if self.local[i].is_empty() => Aabb::EMPTY,
            AssemblyNode::Joint { .. } => E::box_of(&t, &self.local[i]),
        };
        let b = if b.is_empty() {
            b
        } else {
            b.inflate(self.margin)
        };
        self.world[i] = b;
        self.world_stamp[i] = self.stamp;
        Ok(b)
    }

    /// The latest stamp at which a child-to-parent enclosure on node `k`'s path from the
    /// root (itself included) changed: its body-frame transform is older than that.
    fn body_version(&mut self, k: u32) -> u64 {
        let i = k as usize;
        if self.body_ver_stamp[i] == self.stamp {
            return self.body_ver[i];
        }
        let p = self.parent[i];
        // recursion depth: the node's depth in the assembly tree
        let v = if p == NONE {
            self.tp_changed[i]
        } else {
            self.tp_changed[i].max(self.body_version(p))
        };
        self.body_ver[i] = v;
        self.body_ver_stamp[i] = self.stamp;
        v
    }

    /// The enclosure of node `k`'s principal handle in the model root link's frame over
    /// the step (`None`: the identity), recomputed only when a child-to-parent enclosure on
    /// its path changed since it was computed.
    fn body_transform(&mut self, k: u32) -> Option<Transform<E>> {
        let i = k as usize;
        let version = self.body_version(k);
        if self.body_tf_stamp[i] >= version {
            return self.body_tf[i];
        }
        let p = self.parent[i];
        let t = if p == NONE {
            None
        } else {
            let above = self.body_transform(p);
            match (self.nodes[p as usize], self.to_parent[i]) {
                (AssemblyNode::Joint { lower, .. }, Some(tp)) if lower.0 == k => {
                    Some(above.map_or(tp, |a| E::then(&a, &tp)))
                }
                _ => above,
            }
        };
        self.body_tf[i] = t;
        self.body_tf_stamp[i] = self.stamp;
        t
    }

    /// The inflated box of node `k`'s geometry over the step in the model root link's
    /// frame, kept across steps while neither its local box nor a child-to-parent
    /// enclosure on its path changes. Two parts of one body whose body-frame boxes are
    /// apart are apart at every time of the step (the frame moves rigidly), and the
    /// root's own motion does not widen these boxes.
    fn body_box(&mut self, body: &ArticulatedBody, k: u32) -> Aabb {
        let i = k as usize;
        let version = self.body_version(k).max(self.local_changed[i]);
        if self.body_box_stamp[i] >= version {
            return self.body_box[i];
        }
        let t = self.body_transform(k);
        let b = match self.nodes[i] {
            AssemblyNode::Body { link } => match (body.link_shape(link), t) {
                (Some(s), Some(t)) => E::corners_box(&t, s.obb_corners()),
                (Some(s), None) => Aabb::from_points(s.obb_corners().iter().copied()),
                (None, _) => Aabb::EMPTY,
            },
            AssemblyNode::Joint { .. } if self.local[i].is_empty() => Aabb::EMPTY,
            AssemblyNode::Joint { .. } => match t {
                Some(t) => E::box_of(&t, &self.local[i]),
                None => self.local[i],
            },
        };
        let b = if b.is_empty() {
            b
        } else {
            b.inflate(self.margin)
        };
        self.body_box[i] = b;
        self.body_box_stamp[i] = self.stamp;
        b
    }

    /// The inflated world boxes of all nodes over the current step (index = node id).
    pub(crate) fn world_boxes(
        &mut self,
        body: &ArticulatedBody,
    ) -> Result<Vec<Aabb>, ArticulatedError> {
        (0..self.nodes.len() as u32)
            .map(|k| self.world_box(body, k))
            .collect()
    }

    fn part(&self, link: LinkId) -> Part {
        Part::Link {
            body: self.body,
            link,
        }
    }

    /// Pairs of this body's links with the part `other` (the environment or a rigid body)
    /// whose geometry `overlaps` tells a box from: node boxes tested top-down, a
    /// sub-assembly culled as one.
    pub(crate) fn against(
        &mut self,
        body: &ArticulatedBody,
        other: Part,
        overlaps: &mut dyn FnMut(&Aabb) -> bool,
        stack: &mut Vec<u32>,
        budget: usize,
        out: &mut Vec<Pcl>,
    ) -> Result<(), ArticulatedError> {
        stack.clear();
        stack.push(0);
        while let Some(k) = stack.pop() {
            if out.len() > budget {
                break;
            }
            if self.local[k as usize].is_empty() || !overlaps(&self.world_box(body, k)?) {
                continue;
            }
            match self.nodes[k as usize] {
                AssemblyNode::Body { link } => out.push(Pcl {
                    a: self.part(link),
                    b: other,
                    lower: 0.0,
                }),
                AssemblyNode::Joint { upper, lower, .. } => {
                    stack.push(lower.0);
                    stack.push(upper.0);
                }
            }
        }
        Ok(())
    }

    /// Whether some self-collision pair joins a link of node `a` to a link of node `b`
    /// (memoised; a descent stops at node pairs around a joint whose links are all filtered
    /// out, e.g. adjacent links).
    fn joins(&mut self, body: &ArticulatedBody, a: u32, b: u32) -> bool {
        let nn = self.nodes.len();
        let (ai, bi) = (a as usize, b as usize);
        match self.joins[ai * nn + bi] {
            1 => return false,
            2 => return true,
            _ => {}
        }
        let r = match (self.nodes[ai], self.nodes[bi]) {
            (AssemblyNode::Body { link: x }, AssemblyNode::Body { link: y }) => {
                body.is_self_pair(x, y)
            }
            (AssemblyNode::Joint { upper, lower, .. }, _) => {
                self.joins(body, upper.0, b) || self.joins(body, lower.0, b)
            }
            (_, AssemblyNode::Joint { upper, lower, .. }) => {
                self.joins(body, a, upper.0) || self.joins(body, a, lower.0)
            }
        };
        let v = 1 + u8::from(r);
        self.joins[ai * nn + bi] = v;
        self.joins[bi * nn + ai] = v;
        r
    }

    /// The node of a pair to split: the internal one, or the one with the larger box.
    fn split_first(a: (&AssemblyNode, &Aabb), b: (&AssemblyNode, &Aabb)) -> bool {
        match (a.0, b.0) {
            (AssemblyNode::Body { .. }, _) => false,
            (_, AssemblyNode::Body { .. }) => true,
            _ => a.1.surface_area() >= b.1.surface_area(),
        }
    }

    /// Pushes the child pairs of the node pair `(a, b)` (not two links): the node
    /// [`Self::split_first`] picks is replaced by its two children.
    fn push_split(
        stack: &mut Vec<(u32, u32)>,
        (a, na, wa): (u32, &AssemblyNode, &Aabb),
        (b, nb, wb): (u32, &AssemblyNode, &Aabb),
    ) {
        if Self::split_first((na, wa), (nb, wb)) {
            if let AssemblyNode::Joint { upper, lower, .. } = *na {
                stack.push((lower.0, b));
                stack.push((upper.0, b));
            }
        } else if let AssemblyNode::Joint { upper, lower, .. } = *nb {
            stack.push((a, lower.0));
            stack.push((a, upper.0));
        }
    }

    /// Self-collision candidates: for each moving sub-assembly, its two parts' boxes tested
    /// top-down against each other; a rigid sub-assembly contributes its cached candidates.
    pub(crate) fn self_pairs(
        &mut self,
        body: &ArticulatedBody,
        motion: &ArticulatedMotion,
        stack: &mut Vec<(u32, u32)>,
        budget: usize,
        out: &mut Vec<Pcl>,
    ) -> Result<(), ArticulatedError> {
        if self.groups_built != self.groups_epoch {
            self.build_groups(body);
        }
        let mut nodes = vec![0u32];
        while let Some(k) = nodes.pop() {
            if out.len() > budget {
                break;
            }
            let i = k as usize;
            if self.geometry[i].len() < 2 {
                continue;
            }
            if !self.moving[i] {
                self.rigid_candidates(body, motion, k);
                if let Some(list) = &self.rigid[i] {
                    let b = self.body;
                    out.extend(list.iter().map(|&(x, y)| Pcl {
                        a: Part::Link { body: b, link: x },
                        b: Part::Link { body: b, link: y },
                        lower: 0.0,
                    }));
                }
                continue;
            }
            let AssemblyNode::Joint { upper, lower, .. } = self.nodes[i] else {
                continue;
            };
            nodes.push(lower.0);
            nodes.push(upper.0);
            stack.clear();
            stack.push((upper.0, lower.0));
            while let Some((a, b)) = stack.pop() {
                if out.len() > budget {
                    break;
                }
                let (ai, bi) = (a as usize, b as usize);
                if self.local[ai].is_empty() || self.local[bi].is_empty() || !self.joins(body, a, b)
                {
                    continue;
                }
                let g = self.node_group[ai];
                if g != NONE && g == self.node_group[bi] {
                    // one rigid group: constant distances, candidates cached
                    self.rigid_pair_candidates(body, motion, a, b);
                    if let Some(list) = self.pair_rigid.get(&(u64::from(a) << 32 | u64::from(b))) {
                        let id = self.body;
                        out.extend(list.iter().map(|&(x, y)| Pcl {
                            a: Part::Link { body: id, link: x },
                            b: Part::Link { body: id, link: y },
                            lower: 0.0,
                        }));
                    }
                    continue;
                }
                // in the model root link's frame: the same distances, no root motion
                let (wa, wb) = (self.body_box(body, a), self.body_box(body, b));
                if !wa.overlaps(&wb) {
                    continue;
                }
                match (self.nodes[ai], self.nodes[bi]) {
                    (AssemblyNode::Body { link: x }, AssemblyNode::Body { link: y }) => {
                        if body.is_self_pair(x, y) {
                            let (x, y) = (x.min(y), x.max(y));
                            out.push(Pcl {
                                a: self.part(x),
                                b: self.part(y),
                                lower: 0.0,
                            });
                        }
                    }
                    (na, nb) => Self::push_split(stack, (a, &na, &wa), (b, &nb, &wb)),
                }
            }
        }
        Ok(())
    }

    /// Recomputes the rigid groups of the links and nodes for the current motions and
    /// drops the node-pair candidates of the old ones.
    fn build_groups(&mut self, body: &ArticulatedBody) {
        for (i, l) in body.model().links().iter().enumerate() {
            // parents come before their children
            self.link_group[i] = match l.parent {
                Some(p) if !is_moving(&self.motions[i]) => self.link_group[p.index()],
                _ => i as u32,
            };
        }
        for (k, g) in self.node_group.iter_mut().enumerate() {
            let mut links = self.geometry[k].iter().map(|l| self.link_group[l.index()]);
            *g = match links.next() {
                Some(first) if links.all(|x| x == first) => first,
                _ => NONE,
            };
        }
        self.pair_rigid.clear();
        self.groups_built = self.groups_epoch;
    }

    /// Appends to `list` the self pairs between the links of nodes `a` and `b` whose boxes
    /// at `t = 0` (the step's start pose, computed once per step), inflated by the margin,
    /// overlap and that [`Self::apart`] does not prove apart.
    fn close_pairs_at_start(
        &mut self,
        body: &ArticulatedBody,
        motion: &ArticulatedMotion,
        (a, b): (usize, usize),
        list: &mut Vec<(LinkId, LinkId)>,
    ) {
        if self.pose0_stamp != self.stamp {
            self.pose0 = motion.world_all_at(0.0);
            self.pose0_stamp = self.stamp;
            let reach: f64 = self
                .pose0
                .iter()
                .enumerate()
                .map(|(l, w)| {
                    w.translation.length()
                        + body
                            .link_shape(LinkId(l as u32))
                            .map_or(0.0, |s| s.body().radius())
                })
                .sum();
            self.slack0 = POSE0_ROUNDING * reach;
        }
        let boxes = |l: LinkId, pose0: &[DAffine3], margin: f64| {
            let w = pose0[l.index()];
            body.link_shape(l).map(|s| {
                Aabb::from_points(s.obb_corners().iter().map(|&c| w.transform_point3(c)))
                    .inflate(margin)
            })
        };
        // (boxes from f64 poses: grown by the rounding allowance too)
        let grow = self.margin + self.slack0;
        for &x in &self.geometry[a] {
            let Some(bx) = boxes(x, &self.pose0, grow) else {
                continue;
            };
            for &y in &self.geometry[b] {
                if !body.is_self_pair(x, y) {
                    continue;
                }
                if let Some(by) = boxes(y, &self.pose0, grow)
                    && bx.overlaps(&by)
                    && !self.apart(body, x, y)
                {
                    list.push((x.min(y), x.max(y)));
                }
            }
        }
    }

    /// Caches the candidates between nodes `a` and `b` of one rigid group (not cached yet):
    /// their self pairs whose boxes at `t = 0`, inflated by the margin, overlap and whose
    /// exact mesh distance is not above `2ε` (as [`BodyState::rigid_candidates`]: no joint
    /// between the two links moves, so their distance is the same during the whole step,
    /// and in every later step of the same epoch).
    fn rigid_pair_candidates(
        &mut self,
        body: &ArticulatedBody,
        motion: &ArticulatedMotion,
        a: u32,
        b: u32,
    ) {
        let key = u64::from(a) << 32 | u64::from(b);
        if self.pair_rigid.contains_key(&key) {
            return;
        }
        let mut list = Vec::new();
        self.close_pairs_at_start(body, motion, (a as usize, b as usize), &mut list);
        self.pair_rigid.insert(key, list);
    }

    /// Builds the candidate list of rigid node `k` (and of its children) when it is not
    /// cached: self pairs whose boxes at `t = 0`, inflated by the margin, overlap and whose
    /// exact mesh distance is not above `2ε`. Their relative pose is constant over the step
    /// (no joint between them moves), so boxes apart, or a distance above `2ε`, at one
    /// instant prove them more than `ε` apart during the whole step: the narrow phase could
    /// not report them.
    fn rigid_candidates(&mut self, body: &ArticulatedBody, motion: &ArticulatedMotion, k: u32) {
        let i = k as usize;
        if self.rigid[i].is_some() {
            return;
        }
        let AssemblyNode::Joint { upper, lower, .. } = self.nodes[i] else {
            self.rigid[i] = Some(Vec::new());
            return;
        };
        self.rigid_candidates(body, motion, upper.0);
        self.rigid_candidates(body, motion, lower.0);
        let mut list: Vec<(LinkId, LinkId)> = Vec::new();
        for src in [upper, lower] {
            list.extend_from_slice(self.rigid[src.index()].as_deref().unwrap_or(&[]));
        }
        self.close_pairs_at_start(body, motion, (upper.index(), lower.index()), &mut list);
        self.rigid[i] = Some(list);
    }
}

impl<E> BodyState<E> {
    /// Whether links `x` and `y` (of a rigid sub-assembly) are proven more than twice the
    /// tolerance apart at `t = 0` by an exact mesh distance: their distance cannot change
    /// during the step, so no CA on them can reach `ε`. A failed distance proves nothing.
    fn apart(&self, body: &ArticulatedBody, x: LinkId, y: LinkId) -> bool {
        let (Some(sx), Some(sy)) = (body.link_shape(x), body.link_shape(y)) else {
            return false;
        };
        let tolerance = 2.0 * self.margin / (1.0 + 1e-6);
        // the poses' and the distance's rounding: a computed distance above `2ε` plus twice
        // the allowance proves the exact one above `2ε`
        let threshold = 2.0 * tolerance + 2.0 * self.slack0;
        let opts = MeshDistanceOptions::default().with_upper_bound(threshold);
        mesh_distance(
            sx.body().mesh_bvh(),
            &self.pose0[x.index()],
            sy.body().mesh_bvh(),
            &self.pose0[y.index()],
            &opts,
        )
        .is_ok_and(|r| match r.status {
            MeshDistanceStatus::AboveUpperBound => true,
            MeshDistanceStatus::Converged => r.closest.distance > threshold,
            _ => false,
        })
    }
}

/// Relative rounding allowance of the rigid groups' boxes and distances at `t = 0`, which
/// come from f64 world poses: `1e-11` times the sum over the body's links of their
/// translation magnitudes and mesh radii. Each composition of the chain rounds by a few
/// units in the last place of magnitudes that this sum bounds (about `8u` of it per level,
/// `u = 2⁻⁵³`), so it covers chains up to ~10,000 links deep, and the exact mesh distance's
/// own accuracy (`1e-12` of the coordinates). A fuzz finding: two sibling links sharing a
/// vertex at coordinates ~1e18 were computed ~100 apart from their world poses at `t = 0`
/// and their pair dropped as a rigid one more than `2ε` apart, where the full query
/// reported them touching.
const POSE0_ROUNDING: f64 = 1e-11;

/// Candidate pairs between two different articulated bodies: their assembly trees
/// traversed together, node boxes tested top-down.
pub(crate) fn between_bodies<E: NodeArith>(
    sa: &mut BodyState<E>,
    ba: &ArticulatedBody,
    sb: &mut BodyState<E>,
    bb: &ArticulatedBody,
    stack: &mut Vec<(u32, u32)>,
    budget: usize,
    out: &mut Vec<Pcl>,
) -> Result<(), ArticulatedError> {
    stack.clear();
    stack.push((0, 0));
    while let Some((a, b)) = stack.pop() {
        if out.len() > budget {
            break;
        }
        let (ai, bi) = (a as usize, b as usize);
        if sa.local[ai].is_empty() || sb.local[bi].is_empty() {
            continue;
        }
        let (wa, wb) = (sa.world_box(ba, a)?, sb.world_box(bb, b)?);
        if !wa.overlaps(&wb) {
            continue;
        }
        match (sa.nodes[ai], sb.nodes[bi]) {
            (AssemblyNode::Body { link: x }, AssemblyNode::Body { link: y }) => out.push(Pcl {
                a: sa.part(x),
                b: sb.part(y),
                lower: 0.0,
            }),
            (na, nb) => BodyState::<E>::push_split(stack, (a, &na, &wa), (b, &nb, &wb)),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
