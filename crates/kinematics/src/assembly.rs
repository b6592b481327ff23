//! Assembly tree of an articulated model (adaptive-dynamics CCD paper, Sec. 2–3): a balanced
//! binary assembly of the link tree whose transforms are updated only along the paths of
//! the active joints, and world transforms (or their enclosures over a time interval)
//! computed top-down for a requested subset of bodies.

use std::sync::Arc;

use ccd_taylor::{Enclosure, Interval, Transform};
use glam::DAffine3;

use crate::{
    ArticulatedModel, ArticulatedMotion, Joint, KinematicsError, LinkId, Pose, RigidMotion,
};

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

/// Where a secondary handle transform of an internal node comes from.
#[derive(Clone, Copy, Debug)]
enum HandleSrc {
    /// A leaf's own frame: the identity.
    Own,
    /// Copied from the upper child's handle at this absolute index.
    Upper(u32),
    /// The lower child's handle at this absolute index, times the lower child-to-parent.
    Lower(u32),
}

#[derive(Clone, Debug)]
struct NodeTopo {
    parent: u32,
    kind: AssemblyNode,
    /// Absolute index (into the handle arrays) of the upper child's handle on the parent
    /// link of the principal joint; `NONE` for leaves.
    upper_handle: u32,
    /// Range of this node's handles in the handle arrays.
    handles: (u32, u32),
    /// Whether this node is the lower child of its parent.
    is_lower: bool,
}

/// The shape of the assembly: shared by an [`AssemblyTree`] and its [`AssemblyBounds`].
#[derive(Clone, Debug)]
struct Topology {
    nodes: Vec<NodeTopo>,
    handle_links: Vec<LinkId>,
    handle_src: Vec<HandleSrc>,
    leaf_of_link: Vec<u32>,
    /// Per link: the internal node whose principal joint is the link's joint (`NONE` for
    /// the model root).
    node_of_joint: Vec<u32>,
    depth: usize,
}

impl Topology {
    /// Balanced binary assembly: every connected link set is split at the joint whose
    /// removal leaves the two parts closest in size (ties: the smaller link id).
    fn build(model: &ArticulatedModel) -> Self {
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

/// Composition of the transforms kept in the tree: `DAffine3` or an enclosure `Transform`.
trait Compose: Clone {
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
struct Engine<T> {
    /// Per link: principal joint transform of the link's joint (root: its world pose).
    joint: Vec<T>,
    /// Per handle: principal-to-secondary handle transform.
    handles: Vec<T>,
    /// Per node: child-to-parent transform (identity for upper children and the root).
    to_parent: Vec<T>,
    /// Per node: world transform of the principal handle, valid when `world_epoch == epoch`.
    world: Vec<T>,
    world_epoch: Vec<u64>,
    epoch: u64,
    dirty: Vec<bool>,
    dirty_list: Vec<u32>,
    path: Vec<u32>,
    /// The composition `a · b` used (default [`Compose::then`]).
    then: fn(&T, &T) -> T,
}

impl<T: Compose> Engine<T> {
    fn new(topo: &Topology, joint: Vec<T>, identity: &T) -> Self {
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
    fn mark(&mut self, topo: &Topology, link: LinkId) {
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
    fn mark_all(&mut self, topo: &Topology) {
        for (k, n) in topo.nodes.iter().enumerate() {
            if matches!(n.kind, AssemblyNode::Joint { .. }) && !self.dirty[k] {
                self.dirty[k] = true;
                self.dirty_list.push(k as u32);
            }
        }
        self.epoch += 1;
    }

    /// Recomputes the dirty nodes, deepest (largest index) first.
    fn update(&mut self, topo: &Topology) -> usize {
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
    fn world_of(&mut self, topo: &Topology, k: u32) -> &T {
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

/// A composition `a · b` (first `b`, then `a`) of transform enclosures
/// ([`AssemblyBounds::set_composition`]).
pub type Composition<E> = fn(&Transform<E>, &Transform<E>) -> Transform<E>;

/// A balanced binary assembly of an [`ArticulatedModel`]'s link tree with cached
/// transforms (adaptive-dynamics CCD paper, Sec. 2–3).
///
/// Set joints ([`set_joint`](Self::set_joint), [`set_relative`](Self::set_relative),
/// [`set_pose`](Self::set_pose)), then ask for world transforms of the bodies you need:
/// only the nodes on the changed joints' root paths are recomputed (bottom-up, in
/// [`update_active`](Self::update_active), which the world queries call when needed), and
/// world transforms are accumulated top-down on the way to the requested bodies only.
///
/// # Representation
/// Every node of the assembly tree is a *sub-assembly*: a connected set of links. A leaf is
/// one link (a rigid body); an internal node `C` joins two sub-assemblies with one joint of
/// the model, its *principal joint*. The joint of link `c` (connecting `c` to its parent
/// link `p`) splits `C` into the *upper* part `U ∋ p` and the *lower* part `L ∋ c`.
///
/// Handles are the places where a sub-assembly attaches to the rest of the mechanism. We fix
/// the choice the paper leaves free (Sec. 2.2: "the principal handle of `C` is either a
/// secondary handle of `A` or a secondary handle of `B`") so that principal handles always
/// point towards the world: the **principal handle** of a sub-assembly is the frame of its
/// top link (the link closest to the model root, attached to its parent link or, for the
/// model root, to the world), and its **secondary handles** are the frames of its links
/// that have children outside it. Handles on one link share that link's frame and are
/// stored once. With this choice every transform below is a product of link-relative
/// transforms in chain order, with no inverses, so interval bounds are not widened by
/// inverting interval matrices. The four transform kinds (Sec. 2.1), each mapping
/// coordinates of the first frame into the second:
///
/// 1. *principal joint* `J_C`: link `c` → link `p` (the pose's relative transform of `c`);
/// 2. *principal-to-secondary handle* `H^C_h`: handle `h` → principal handle of `C`;
/// 3. *child-to-parent* `T^C_L = H^U_p · J_C` (lower child), `T^C_U = I` (upper child, which
///    shares `C`'s principal handle);
/// 4. *world* `T_C`: principal handle of `C` → world; `T_root` is the pose of the model root.
///
/// The bottom-up update of node `C` (Sec. 2.2) is `H^C_h = H^U_h` for handles of `U` and
/// `H^C_h = T^C_L · H^L_h` for handles of `L`: linear in the number of handles of `C`.
/// The top-down world pass is `T_U = T_C`, `T_L = T_C · T^C_L`.
///
/// # Cost
/// Changing `m` joints dirties at most `m` root paths; [`AssemblyTree::update_active`]
/// recomputes only those nodes (a subtree holding the root, Fig. 2a), deepest first, so it
/// costs `O(m · depth)` at most. A world transform walks down one root path (`O(depth)`),
/// reusing node world transforms already computed since the last update, so `k` bodies
/// cost `O(k · depth)` more: the paper's `O(m + k log n)` (Sec. 3.2), with `m` counting
/// the recomputed nodes. The
/// split chooses the joint that balances the two parts best; for links with at most `d`
/// children the depth is `O(d log n)` (a chain gives `⌈log₂ n⌉`; a star of `d` children
/// cannot be assembled in less than depth `d` with one joint per node).
///
/// # Example
/// ```
/// use ccd_kinematics::{ArticulatedModel, AssemblyNode, AssemblyTree, Joint, LinkId, LinkSpec, NodeId};
/// use ccd_kinematics::glam::{DAffine3, DVec3};
///
/// let hinge = Joint::Revolute { axis: DVec3::Z, limits: None };
/// let specs = (0..8)
///     .map(|i| LinkSpec {
///         name: format!("l{i}"),
///         parent: (i > 0).then(|| format!("l{}", i - 1)),
///         joint: hinge,
///         offset: DAffine3::from_translation(DVec3::X),
///     })
///     .collect();
/// let model = ArticulatedModel::new(specs)?;
/// let mut tree = AssemblyTree::from_model(&model);
/// assert_eq!(tree.depth(), 3); // 8 links: log2(8) levels of joints
/// // the root joins links 0–3 and 4–7 at the joint of link 4, ...
/// assert!(matches!(tree.node(NodeId(0))?, AssemblyNode::Joint { joint: LinkId(4), .. }));
/// tree.set_joint(LinkId(7), &[std::f64::consts::FRAC_PI_2])?;
/// assert_eq!(tree.update_active(), 3); // ... and the joint of link 7 sits 3 levels deep
/// // the same as plain forward kinematics
/// let mut q = vec![0.0; 8];
/// q[7] = std::f64::consts::FRAC_PI_2;
/// let fk = model.pose_from_joints(&q)?.world_transforms(&model)?;
/// assert!(tree.world_transform(LinkId(7))?.abs_diff_eq(fk[7], 1e-12));
/// # Ok::<(), ccd_kinematics::KinematicsError>(())
/// ```
#[derive(Clone, Debug)]
pub struct AssemblyTree {
    topo: Arc<Topology>,
    joints: Vec<Joint>,
    offsets: Vec<DAffine3>,
    names: Vec<String>,
    engine: Engine<DAffine3>,
}

fn is_rigid(pose: &DAffine3) -> bool {
    let r = pose.matrix3;
    pose.is_finite()
        && (r.transpose() * r).abs_diff_eq(glam::DMat3::IDENTITY, 1e-6)
        && (r.determinant() - 1.0).abs() <= 1e-6
}

fn joint_limits(j: &Joint) -> Option<(f64, f64)> {
    match *j {
        Joint::Revolute {
            limits: Some(l), ..
        }
        | Joint::Prismatic {
            limits: Some(l), ..
        } => Some((l.lower, l.upper)),
        _ => None,
    }
}

impl AssemblyTree {
    /// The balanced assembly of `model` in its zero configuration (every joint value 0,
    /// clamped into the joint's limits).
    #[must_use]
    pub fn from_model(model: &ArticulatedModel) -> Self {
        let relative = model
            .links()
            .iter()
            .map(|l| {
                let mut q = [0.0; 6];
                if let Some((lo, hi)) = joint_limits(&l.joint) {
                    q[0] = 0.0f64.clamp(lo, hi);
                }
                l.offset * l.joint.motion(&q[..l.joint.dof()])
            })
            .collect();
        Self::build(model, relative)
    }

    /// The balanced assembly of `model` in `pose`.
    ///
    /// # Errors
    /// [`KinematicsError::JointCount`] when `pose` has a different number of links;
    /// [`KinematicsError::InvalidModel`] for a non-rigid or non-finite transform.
    ///
    /// # Example
    /// ```
    /// use ccd_kinematics::{ArticulatedModel, AssemblyTree, Joint, LinkId, LinkSpec};
    /// use ccd_kinematics::glam::{DAffine3, DVec3};
    ///
    /// let slider = Joint::Prismatic { axis: DVec3::Y, limits: None };
    /// let model = ArticulatedModel::new(vec![
    ///     LinkSpec { name: "a".into(), parent: None, joint: slider, offset: DAffine3::IDENTITY },
    ///     LinkSpec { name: "b".into(), parent: Some("a".into()), joint: slider, offset: DAffine3::IDENTITY },
    /// ])?;
    /// let pose = model.pose_from_joints(&[1.0, 2.0])?;
    /// let mut tree = AssemblyTree::with_pose(&model, &pose)?;
    /// assert!(tree.world_transform(LinkId(1))?.translation.abs_diff_eq(DVec3::new(0.0, 3.0, 0.0), 1e-12));
    /// # Ok::<(), ccd_kinematics::KinematicsError>(())
    /// ```
    pub fn with_pose(model: &ArticulatedModel, pose: &Pose) -> Result<Self, KinematicsError> {
        let pose = Pose::new(model, pose.relative.clone())?;
        Ok(Self::build(model, pose.relative))
    }

    fn build(model: &ArticulatedModel, relative: Vec<DAffine3>) -> Self {
        let topo = Topology::build(model);
        let engine = Engine::new(&topo, relative, &DAffine3::IDENTITY);
        Self {
            topo: Arc::new(topo),
            joints: model.links().iter().map(|l| l.joint).collect(),
            offsets: model.links().iter().map(|l| l.offset).collect(),
            names: model.links().iter().map(|l| l.name.clone()).collect(),
            engine,
        }
    }

    /// Number of links (bodies).
    #[inline]
    #[must_use]
    pub fn len(&self) -> usize {
        self.joints.len()
    }

    /// Always false (a model has at least its root).
    #[inline]
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.joints.is_empty()
    }

    /// Number of nodes (`2 · len() − 1`).
    #[inline]
    #[must_use]
    pub fn node_count(&self) -> usize {
        self.topo.nodes.len()
    }

    /// Length of the longest root-to-leaf path (0 for a single body).
    #[inline]
    #[must_use]
    pub fn depth(&self) -> usize {
        self.topo.depth
    }

    /// [`KinematicsError::UnknownNodeId`] unless `id` is a node of this tree.
    fn check_node(&self, id: NodeId) -> Result<usize, KinematicsError> {
        let i = id.index();
        if i < self.topo.nodes.len() {
            Ok(i)
        } else {
            Err(KinematicsError::UnknownNodeId {
                id: id.0,
                nodes: self.topo.nodes.len(),
            })
        }
    }

    /// What node `id` assembles.
    ///
    /// # Errors
    /// [`KinematicsError::UnknownNodeId`] when `id` is not a node of this tree (as for every
    /// method taking a [`NodeId`]; those taking a [`LinkId`] give
    /// [`KinematicsError::UnknownLinkId`] for a link that is not in the model).
    #[inline]
    pub fn node(&self, id: NodeId) -> Result<AssemblyNode, KinematicsError> {
        Ok(self.topo.nodes[self.check_node(id)?].kind)
    }

    /// The parent of node `id` (`None` for the root `NodeId(0)`).
    ///
    /// # Errors
    /// [`KinematicsError::UnknownNodeId`] when `id` is not a node of this tree.
    #[inline]
    pub fn parent(&self, id: NodeId) -> Result<Option<NodeId>, KinematicsError> {
        let p = self.topo.nodes[self.check_node(id)?].parent;
        Ok((p != NONE).then_some(NodeId(p)))
    }

    /// The leaf holding `link`.
    ///
    /// # Errors
    /// [`KinematicsError::UnknownLinkId`] when `link` is not a link of the model.
    #[inline]
    pub fn leaf(&self, link: LinkId) -> Result<NodeId, KinematicsError> {
        Ok(NodeId(self.topo.leaf_of_link[self.check_link(link)?]))
    }

    /// The node whose principal joint is `link`'s joint (`None` for the model root).
    ///
    /// # Errors
    /// [`KinematicsError::UnknownLinkId`] when `link` is not a link of the model.
    #[inline]
    pub fn joint_node(&self, link: LinkId) -> Result<Option<NodeId>, KinematicsError> {
        let k = self.topo.node_of_joint[self.check_link(link)?];
        Ok((k != NONE).then_some(NodeId(k)))
    }

    /// The links carrying node `id`'s secondary handles (links of the sub-assembly with a
    /// child outside it), in increasing order. The principal handle is the sub-assembly's
    /// top link.
    ///
    /// # Errors
    /// [`KinematicsError::UnknownNodeId`] when `id` is not a node of this tree.
    pub fn handles(&self, id: NodeId) -> Result<&[LinkId], KinematicsError> {
        let (s, e) = self.topo.nodes[self.check_node(id)?].handles;
        Ok(&self.topo.handle_links[s as usize..e as usize])
    }

    /// The principal-to-secondary handle transforms of node `id`, parallel to
    /// [`handles`](Self::handles): each maps the handle link's frame into the frame of the
    /// sub-assembly's top link. Valid after [`update_active`](Self::update_active).
    ///
    /// # Errors
    /// [`KinematicsError::UnknownNodeId`] when `id` is not a node of this tree.
    pub fn handle_transforms(&self, id: NodeId) -> Result<&[DAffine3], KinematicsError> {
        let (s, e) = self.topo.nodes[self.check_node(id)?].handles;
        Ok(&self.engine.handles[s as usize..e as usize])
    }

    /// The child-to-parent transform of node `id`: its principal handle's frame into its
    /// parent's (identity for an upper child and for the root). Valid after
    /// [`update_active`](Self::update_active).
    ///
    /// # Errors
    /// [`KinematicsError::UnknownNodeId`] when `id` is not a node of this tree.
    #[inline]
    pub fn child_to_parent(&self, id: NodeId) -> Result<DAffine3, KinematicsError> {
        Ok(self.engine.to_parent[self.check_node(id)?])
    }

    /// The transform of `link` relative to its parent (the principal joint transform of
    /// [`joint_node`](Self::joint_node); for the model root: its world pose).
    ///
    /// # Errors
    /// [`KinematicsError::UnknownLinkId`] when `link` is not a link of the model.
    #[inline]
    pub fn relative(&self, link: LinkId) -> Result<DAffine3, KinematicsError> {
        Ok(self.engine.joint[self.check_link(link)?])
    }

    fn check_link(&self, link: LinkId) -> Result<usize, KinematicsError> {
        check_link(link, self.len())
    }

    /// Sets the joint values of `link` (`q.len()` = the joint's
    /// [`dof`](Joint::dof)) and marks its root path dirty.
    ///
    /// # Errors
    /// [`KinematicsError::UnknownLinkId`] for a link that does not exist;
    /// [`KinematicsError::JointCount`] for a wrong number of values;
    /// [`KinematicsError::InvalidJointValue`] for a non-finite value or one outside the
    /// joint's limits (by more than 1e-9).
    ///
    /// # Example
    /// ```
    /// use ccd_kinematics::{ArticulatedModel, AssemblyTree, Joint, LinkId, LinkSpec};
    /// use ccd_kinematics::glam::{DAffine3, DVec3};
    ///
    /// let hinge = Joint::Revolute { axis: DVec3::Z, limits: None };
    /// let model = ArticulatedModel::new(vec![
    ///     LinkSpec { name: "a".into(), parent: None, joint: Joint::Fixed, offset: DAffine3::IDENTITY },
    ///     LinkSpec { name: "b".into(), parent: Some("a".into()), joint: hinge, offset: DAffine3::from_translation(DVec3::X) },
    /// ])?;
    /// let mut tree = AssemblyTree::from_model(&model);
    /// tree.set_joint(LinkId(1), &[std::f64::consts::PI])?;
    /// let w = tree.world_transform(LinkId(1))?;
    /// assert!(w.transform_point3(DVec3::X).abs_diff_eq(DVec3::ZERO, 1e-12));
    /// assert!(tree.set_joint(LinkId(1), &[f64::NAN]).is_err());
    /// # Ok::<(), ccd_kinematics::KinematicsError>(())
    /// ```
    pub fn set_joint(&mut self, link: LinkId, q: &[f64]) -> Result<(), KinematicsError> {
        self.check_link(link)?;
        let i = link.index();
        let joint = self.joints[i];
        if q.len() != joint.dof() {
            return Err(KinematicsError::JointCount {
                expected: joint.dof(),
                got: q.len(),
            });
        }
        let lim = joint_limits(&joint);
        if let Some(&x) = q.iter().find(|&&x| {
            !x.is_finite() || lim.is_some_and(|(lo, hi)| x < lo - 1e-9 || x > hi + 1e-9)
        }) {
            return Err(KinematicsError::InvalidJointValue {
                link: self.names[i].clone(),
                value: x,
            });
        }
        self.engine.joint[i] = self.offsets[i] * joint.motion(q);
        self.engine.mark(&self.topo, link);
        Ok(())
    }

    /// Sets `link`'s transform relative to its parent directly (for the model root: its
    /// world pose) and marks its root path dirty.
    ///
    /// # Errors
    /// [`KinematicsError::InvalidModel`] for a link that does not exist or a non-rigid or
    /// non-finite transform.
    ///
    /// # Example
    /// ```
    /// use ccd_kinematics::{ArticulatedModel, AssemblyTree, Joint, LinkId, LinkSpec};
    /// use ccd_kinematics::glam::{DAffine3, DVec3};
    ///
    /// let model = ArticulatedModel::new(vec![
    ///     LinkSpec { name: "a".into(), parent: None, joint: Joint::Floating, offset: DAffine3::IDENTITY },
    ///     LinkSpec { name: "b".into(), parent: Some("a".into()), joint: Joint::Fixed, offset: DAffine3::from_translation(DVec3::X) },
    /// ])?;
    /// let mut tree = AssemblyTree::from_model(&model);
    /// tree.set_relative(LinkId(0), DAffine3::from_translation(DVec3::Z))?;
    /// assert!(tree.world_transform(LinkId(1))?.translation.abs_diff_eq(DVec3::new(1.0, 0.0, 1.0), 1e-12));
    /// # Ok::<(), ccd_kinematics::KinematicsError>(())
    /// ```
    pub fn set_relative(
        &mut self,
        link: LinkId,
        relative: DAffine3,
    ) -> Result<(), KinematicsError> {
        self.check_link(link)?;
        if !is_rigid(&relative) {
            return Err(KinematicsError::InvalidModel(format!(
                "relative transform of link {:?} is not rigid",
                self.names[link.index()]
            )));
        }
        self.engine.joint[link.index()] = relative;
        self.engine.mark(&self.topo, link);
        Ok(())
    }

    /// Takes over every link transform of `pose` that differs from the current one and
    /// marks only those joints dirty; returns how many changed.
    ///
    /// # Errors
    /// As [`Pose::new`]; nothing is changed on error.
    ///
    /// # Example
    /// ```
    /// use ccd_kinematics::{ArticulatedModel, AssemblyTree, Joint, LinkId, LinkSpec};
    /// use ccd_kinematics::glam::{DAffine3, DVec3};
    ///
    /// let hinge = Joint::Revolute { axis: DVec3::Z, limits: None };
    /// let specs = (0..4)
    ///     .map(|i| LinkSpec {
    ///         name: format!("l{i}"),
    ///         parent: (i > 0).then(|| format!("l{}", i - 1)),
    ///         joint: hinge,
    ///         offset: DAffine3::from_translation(DVec3::X),
    ///     })
    ///     .collect();
    /// let model = ArticulatedModel::new(specs)?;
    /// let mut tree = AssemblyTree::from_model(&model);
    /// let pose = model.pose_from_joints(&[0.0, 0.0, 0.5, 0.0])?;
    /// assert_eq!(tree.set_pose(&pose)?, 1);
    /// let fk = pose.world_transforms(&model)?;
    /// assert!(tree.world_transform(LinkId(3))?.abs_diff_eq(fk[3], 1e-12));
    /// # Ok::<(), ccd_kinematics::KinematicsError>(())
    /// ```
    pub fn set_pose(&mut self, pose: &Pose) -> Result<usize, KinematicsError> {
        if pose.relative.len() != self.len() {
            return Err(KinematicsError::JointCount {
                expected: self.len(),
                got: pose.relative.len(),
            });
        }
        if let Some(i) = pose.relative.iter().position(|p| !is_rigid(p)) {
            return Err(KinematicsError::InvalidModel(format!(
                "pose of link {:?} is not rigid",
                self.names[i]
            )));
        }
        let mut changed = 0;
        for (i, p) in pose.relative.iter().enumerate() {
            if *p != self.engine.joint[i] {
                self.engine.joint[i] = *p;
                self.engine.mark(&self.topo, LinkId(i as u32));
                changed += 1;
            }
        }
        Ok(changed)
    }

    /// Recomputes the principal-to-secondary handle and child-to-parent transforms of the
    /// dirty nodes only, bottom-up (Sec. 2.2 and Fig. 2a); returns how many nodes were
    /// recomputed. The world queries call it when needed.
    ///
    /// # Example
    /// ```
    /// use ccd_kinematics::{ArticulatedModel, AssemblyTree, Joint, LinkId, LinkSpec};
    /// use ccd_kinematics::glam::{DAffine3, DVec3};
    ///
    /// let hinge = Joint::Revolute { axis: DVec3::Y, limits: None };
    /// let specs = (0..16)
    ///     .map(|i| LinkSpec {
    ///         name: format!("l{i}"),
    ///         parent: (i > 0).then(|| format!("l{}", (i - 1) / 2)), // a binary tree
    ///         joint: hinge,
    ///         offset: DAffine3::from_translation(DVec3::X),
    ///     })
    ///     .collect();
    /// let model = ArticulatedModel::new(specs)?;
    /// let mut tree = AssemblyTree::from_model(&model);
    /// assert_eq!(tree.update_active(), 0);
    /// tree.set_joint(LinkId(9), &[0.1])?;
    /// tree.set_joint(LinkId(10), &[0.2])?;
    /// let n = tree.update_active();
    /// assert!(n >= 1 && n <= 2 * tree.depth());
    /// # Ok::<(), ccd_kinematics::KinematicsError>(())
    /// ```
    pub fn update_active(&mut self) -> usize {
        self.engine.update(&self.topo)
    }

    /// The world transform of `link` (Sec. 3.2, Fig. 2b): updates the dirty nodes, then
    /// accumulates world transforms down the root path of the link's leaf, reusing those
    /// already computed since the last change.
    ///
    /// # Errors
    /// [`KinematicsError::UnknownLinkId`] when `link` is not a link of the model.
    ///
    /// # Example
    /// ```
    /// use ccd_kinematics::{ArticulatedModel, AssemblyTree, Joint, LinkId, LinkSpec};
    /// use ccd_kinematics::glam::{DAffine3, DVec3};
    ///
    /// let model = ArticulatedModel::new(vec![
    ///     LinkSpec { name: "a".into(), parent: None, joint: Joint::Fixed, offset: DAffine3::from_translation(DVec3::Y) },
    /// ])?;
    /// let mut tree = AssemblyTree::from_model(&model);
    /// assert_eq!(tree.world_transform(LinkId(0))?, DAffine3::from_translation(DVec3::Y));
    /// assert!(tree.world_transform(LinkId(1)).is_err());
    /// # Ok::<(), ccd_kinematics::KinematicsError>(())
    /// ```
    pub fn world_transform(&mut self, link: LinkId) -> Result<DAffine3, KinematicsError> {
        let i = self.check_link(link)?;
        self.engine.update(&self.topo);
        let leaf = self.topo.leaf_of_link[i];
        Ok(*self.engine.world_of(&self.topo, leaf))
    }

    /// World transforms of `links`, written to `out` (cleared first) in the same order.
    ///
    /// # Errors
    /// [`KinematicsError::UnknownLinkId`] when a link is not a link of the model (`out` then
    /// holds the transforms of the links before it).
    ///
    /// # Example
    /// ```
    /// use ccd_kinematics::{ArticulatedModel, AssemblyTree, Joint, LinkId, LinkSpec};
    /// use ccd_kinematics::glam::{DAffine3, DVec3};
    ///
    /// let hinge = Joint::Revolute { axis: DVec3::Z, limits: None };
    /// let specs = (0..5)
    ///     .map(|i| LinkSpec {
    ///         name: format!("l{i}"),
    ///         parent: (i > 0).then(|| "l0".to_string()), // a star
    ///         joint: hinge,
    ///         offset: DAffine3::from_translation(DVec3::X),
    ///     })
    ///     .collect();
    /// let model = ArticulatedModel::new(specs)?;
    /// let mut tree = AssemblyTree::from_model(&model);
    /// let mut out = Vec::new();
    /// tree.world_transforms_into(&[LinkId(2), LinkId(4)], &mut out)?;
    /// assert_eq!(out.len(), 2);
    /// assert_eq!(out, tree.world_transforms(&[LinkId(2), LinkId(4)])?);
    /// # Ok::<(), ccd_kinematics::KinematicsError>(())
    /// ```
    pub fn world_transforms_into(
        &mut self,
        links: &[LinkId],
        out: &mut Vec<DAffine3>,
    ) -> Result<(), KinematicsError> {
        out.clear();
        for &l in links {
            out.push(self.world_transform(l)?);
        }
        Ok(())
    }

    /// World transforms of `links`, in the same order (allocating twin of
    /// [`world_transforms_into`](Self::world_transforms_into)).
    ///
    /// # Errors
    /// [`KinematicsError::UnknownLinkId`] when a link is not a link of the model.
    ///
    /// # Example
    /// ```
    /// use ccd_kinematics::{ArticulatedModel, AssemblyTree, Joint, LinkId, LinkSpec};
    /// use ccd_kinematics::glam::{DAffine3, DVec3};
    ///
    /// let model = ArticulatedModel::new(vec![
    ///     LinkSpec { name: "a".into(), parent: None, joint: Joint::Fixed, offset: DAffine3::IDENTITY },
    ///     LinkSpec { name: "b".into(), parent: Some("a".into()), joint: Joint::Fixed, offset: DAffine3::from_translation(DVec3::X) },
    /// ])?;
    /// let mut tree = AssemblyTree::from_model(&model);
    /// let w = tree.world_transforms(&[LinkId(1), LinkId(0)])?;
    /// assert_eq!(w[0].translation, DVec3::X);
    /// assert_eq!(w[1], DAffine3::IDENTITY);
    /// # Ok::<(), ccd_kinematics::KinematicsError>(())
    /// ```
    pub fn world_transforms(&mut self, links: &[LinkId]) -> Result<Vec<DAffine3>, KinematicsError> {
        let mut out = Vec::with_capacity(links.len());
        self.world_transforms_into(links, &mut out)?;
        Ok(out)
    }
}

/// Enclosures of an [`AssemblyTree`]'s transforms over a time interval (Sec. 2.3): the
/// principal joint transforms are the Taylor-model or interval enclosures of the links'
/// relative motions ([`RigidMotion::enclosure`]); the other three kinds are their products
/// in the same enclosure arithmetic, recomputed bottom-up only along the paths of links
/// whose motion was set, and world bounds are accumulated top-down for the requested bodies.
///
/// Changing the time interval ([`set_domain`](Self::set_domain)) re-encloses only the
/// links that move when constant enclosures do not depend on the domain (intervals); with
/// Taylor models, whose constants carry their domain, everything is recomputed.
///
/// # Example
/// ```
/// use ccd_kinematics::{ArticulatedModel, ArticulatedMotion, AssemblyBounds, AssemblyTree, Joint, LinkId, LinkSpec};
/// use ccd_kinematics::glam::{DAffine3, DVec3};
/// use ccd_taylor::Interval;
///
/// let hinge = Joint::Revolute { axis: DVec3::Z, limits: None };
/// let specs = (0..6)
///     .map(|i| LinkSpec {
///         name: format!("l{i}"),
///         parent: (i > 0).then(|| format!("l{}", i - 1)),
///         joint: hinge,
///         offset: DAffine3::from_translation(DVec3::X),
///     })
///     .collect();
/// let model = ArticulatedModel::new(specs)?;
/// let tree = AssemblyTree::from_model(&model);
/// let p0 = model.pose_from_joints(&[0.0; 6])?;
/// let p1 = model.pose_from_joints(&[0.0, 0.0, 0.4, 0.0, 0.0, 0.0])?; // one active joint
/// let motion = ArticulatedMotion::between(&model, &p0, &p1)?;
/// let mut bounds = AssemblyBounds::<Interval>::new(&tree, &motion, Interval::UNIT)?;
/// let tip = LinkId(5);
/// let swept = bounds.world_bound(tip)?.apply(DVec3::X).aabb();
/// for k in 0..=10 {
///     let t = k as f64 / 10.0;
///     assert!(swept.contains_point(motion.world_at(tip, t)?.transform_point3(DVec3::X)));
/// }
/// // refine the time interval: only the moving joint's path is recomputed
/// bounds.set_domain(Interval::new(0.0, 0.5))?;
/// assert_eq!(bounds.update_active(), 3);
/// # Ok::<(), ccd_kinematics::KinematicsError>(())
/// ```
#[derive(Clone, Debug)]
pub struct AssemblyBounds<E> {
    topo: Arc<Topology>,
    motions: Vec<RigidMotion>,
    domain: Interval,
    engine: Engine<Transform<E>>,
    /// The composition set by [`AssemblyBounds::set_composition`], if any.
    composition: Option<Composition<E>>,
}

#[inline]
fn is_moving(m: &RigidMotion) -> bool {
    m.angle() != 0.0 || m.linear_velocity() != glam::DVec3::ZERO
}

impl<E: Enclosure + PartialEq> AssemblyBounds<E> {
    /// Enclosures of every transform of `tree` under `motion` (per-link relative motions
    /// of the same model) over `domain ⊆ [0, 1]`.
    ///
    /// # Errors
    /// [`KinematicsError::JointCount`] when `motion` has a different number of links;
    /// [`KinematicsError::TimeOutOfRange`] when `domain` is not inside `[0, 1]`.
    pub fn new(
        tree: &AssemblyTree,
        motion: &ArticulatedMotion,
        domain: Interval,
    ) -> Result<Self, KinematicsError> {
        if motion.len() != tree.len() {
            return Err(KinematicsError::JointCount {
                expected: tree.len(),
                got: motion.len(),
            });
        }
        let motions = motion.relatives().to_vec();
        let topo = Arc::clone(&tree.topo);
        let engine = Self::full(&topo, &motions, domain)?;
        Ok(Self {
            topo,
            motions,
            domain,
            engine,
            composition: None,
        })
    }

    fn full(
        topo: &Topology,
        motions: &[RigidMotion],
        domain: Interval,
    ) -> Result<Engine<Transform<E>>, KinematicsError> {
        let joint = motions
            .iter()
            .map(|m| m.enclosure::<E>(domain))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Engine::new(topo, joint, &Transform::identity(domain)))
    }

    /// The time interval of the enclosures.
    #[inline]
    #[must_use]
    pub fn domain(&self) -> Interval {
        self.domain
    }

    /// Number of links.
    #[inline]
    #[must_use]
    pub fn len(&self) -> usize {
        self.motions.len()
    }

    /// Always false (a model has at least its root).
    #[inline]
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.motions.is_empty()
    }

    /// Sets the motion of `link` relative to its parent (an active joint of the step) and
    /// marks its root path dirty.
    ///
    /// # Errors
    /// [`KinematicsError::UnknownLinkId`] for a link that does not exist.
    ///
    /// # Example
    /// ```
    /// use ccd_kinematics::{ArticulatedModel, ArticulatedMotion, AssemblyBounds, AssemblyTree, Joint, LinkId, LinkSpec, RigidMotion};
    /// use ccd_kinematics::glam::{DAffine3, DQuat, DVec3};
    /// use ccd_taylor::TaylorModel;
    /// use ccd_taylor::Interval;
    ///
    /// let hinge = Joint::Revolute { axis: DVec3::Z, limits: None };
    /// let model = ArticulatedModel::new(vec![
    ///     LinkSpec { name: "a".into(), parent: None, joint: Joint::Fixed, offset: DAffine3::IDENTITY },
    ///     LinkSpec { name: "b".into(), parent: Some("a".into()), joint: hinge, offset: DAffine3::from_translation(DVec3::X) },
    /// ])?;
    /// let tree = AssemblyTree::from_model(&model);
    /// let p = model.pose_from_joints(&[0.0])?;
    /// let mut bounds = AssemblyBounds::<TaylorModel>::new(&tree, &ArticulatedMotion::between(&model, &p, &p)?, Interval::UNIT)?;
    /// let start = DAffine3::from_translation(DVec3::X);
    /// let end = start * DAffine3::from_quat(DQuat::from_rotation_z(1.0));
    /// bounds.set_motion(LinkId(1), RigidMotion::between(start, end)?)?;
    /// let b = bounds.world_bound(LinkId(1))?.apply(DVec3::X).aabb();
    /// assert!(b.contains_point(end.transform_point3(DVec3::X)));
    /// # Ok::<(), ccd_kinematics::KinematicsError>(())
    /// ```
    pub fn set_motion(&mut self, link: LinkId, motion: RigidMotion) -> Result<(), KinematicsError> {
        let i = check_link(link, self.len())?;
        self.engine.joint[i] = motion.enclosure::<E>(self.domain)?;
        self.motions[i] = motion;
        self.engine.mark(&self.topo, link);
        Ok(())
    }

    /// [`AssemblyBounds::set_motion`] with an enclosure computed by the caller (a cheaper
    /// or tighter one than [`RigidMotion::enclosure`]): `enclosure` must hold the
    /// transform of `motion` at every time of [`AssemblyBounds::domain`] (for Taylor
    /// models, over that domain); the bounds are only as conservative as it is.
    ///
    /// # Errors
    /// [`KinematicsError::UnknownLinkId`] for a link that does not exist.
    ///
    /// # Example
    /// ```
    /// use ccd_kinematics::{ArticulatedModel, ArticulatedMotion, AssemblyBounds, AssemblyTree, Joint, LinkId, LinkSpec, RigidMotion};
    /// use ccd_kinematics::glam::{DAffine3, DQuat, DVec3};
    /// use ccd_taylor::Interval;
    ///
    /// let hinge = Joint::Revolute { axis: DVec3::Z, limits: None };
    /// let model = ArticulatedModel::new(vec![
    ///     LinkSpec { name: "a".into(), parent: None, joint: Joint::Fixed, offset: DAffine3::IDENTITY },
    ///     LinkSpec { name: "b".into(), parent: Some("a".into()), joint: hinge, offset: DAffine3::from_translation(DVec3::X) },
    /// ])?;
    /// let tree = AssemblyTree::from_model(&model);
    /// let p = model.pose_from_joints(&[0.0])?;
    /// let mut bounds = AssemblyBounds::<Interval>::new(&tree, &ArticulatedMotion::between(&model, &p, &p)?, Interval::UNIT)?;
    /// let start = DAffine3::from_translation(DVec3::X);
    /// let end = start * DAffine3::from_quat(DQuat::from_rotation_z(1.0));
    /// let motion = RigidMotion::between(start, end)?;
    /// bounds.set_motion_enclosed(LinkId(1), motion, motion.enclosure::<Interval>(Interval::UNIT)?)?;
    /// let b = bounds.world_bound(LinkId(1))?.apply(DVec3::X).aabb();
    /// assert!(b.contains_point(end.transform_point3(DVec3::X)));
    /// # Ok::<(), ccd_kinematics::KinematicsError>(())
    /// ```
    pub fn set_motion_enclosed(
        &mut self,
        link: LinkId,
        motion: RigidMotion,
        enclosure: Transform<E>,
    ) -> Result<(), KinematicsError> {
        let i = check_link(link, self.len())?;
        self.engine.joint[i] = enclosure;
        self.motions[i] = motion;
        self.engine.mark(&self.topo, link);
        Ok(())
    }

    /// Replaces the composition of enclosures (default [`Transform::compose`]) by `then`,
    /// for a cheaper or tighter proven one, and recomputes every node transform with it.
    /// `then(a, b)` must hold `A · B` (first `B`, then `A`) for every pair of transforms
    /// `A`, `B` held by `a`, `b` at the same time of the domain; the bounds are only as
    /// conservative as it is. Kept by [`AssemblyBounds::set_domain`].
    ///
    /// # Example
    /// ```
    /// use ccd_kinematics::{ArticulatedModel, ArticulatedMotion, AssemblyBounds, AssemblyTree, Joint, LinkId, LinkSpec};
    /// use ccd_kinematics::glam::{DAffine3, DVec3};
    /// use ccd_taylor::Interval;
    ///
    /// let hinge = Joint::Revolute { axis: DVec3::Z, limits: None };
    /// let model = ArticulatedModel::new(vec![
    ///     LinkSpec { name: "a".into(), parent: None, joint: hinge, offset: DAffine3::IDENTITY },
    ///     LinkSpec { name: "b".into(), parent: Some("a".into()), joint: hinge, offset: DAffine3::from_translation(DVec3::X) },
    /// ])?;
    /// let tree = AssemblyTree::from_model(&model);
    /// let (q0, q1) = (model.pose_from_joints(&[0.0, 0.0])?, model.pose_from_joints(&[1.0, 1.0])?);
    /// let motion = ArticulatedMotion::between(&model, &q0, &q1)?;
    /// let mut bounds = AssemblyBounds::<Interval>::new(&tree, &motion, Interval::UNIT)?;
    /// let before = bounds.world_bound(LinkId(1))?.apply(DVec3::X).aabb();
    /// bounds.set_composition(|a, b| a.compose(b));
    /// bounds.set_domain(Interval::new(0.0, 1.0))?;
    /// assert_eq!(bounds.world_bound(LinkId(1))?.apply(DVec3::X).aabb(), before);
    /// # Ok::<(), ccd_kinematics::KinematicsError>(())
    /// ```
    pub fn set_composition(&mut self, then: Composition<E>) {
        self.composition = Some(then);
        self.engine.then = then;
        self.engine.mark_all(&self.topo);
    }

    /// Moves the enclosures to another time interval `domain ⊆ [0, 1]`: re-encloses the
    /// moving links and marks their paths dirty (all links, and a full recomputation, when
    /// constant enclosures depend on the domain, as Taylor models do).
    ///
    /// # Errors
    /// [`KinematicsError::TimeOutOfRange`] when `domain` is not inside `[0, 1]`; nothing is
    /// changed then.
    ///
    /// # Example
    /// ```
    /// use ccd_kinematics::{ArticulatedModel, ArticulatedMotion, AssemblyBounds, AssemblyTree, Joint, LinkId, LinkSpec};
    /// use ccd_kinematics::glam::{DAffine3, DVec3};
    /// use ccd_taylor::{Interval, TaylorModel};
    ///
    /// let hinge = Joint::Revolute { axis: DVec3::Z, limits: None };
    /// let model = ArticulatedModel::new(vec![
    ///     LinkSpec { name: "a".into(), parent: None, joint: hinge, offset: DAffine3::IDENTITY },
    ///     LinkSpec { name: "b".into(), parent: Some("a".into()), joint: hinge, offset: DAffine3::from_translation(DVec3::X) },
    /// ])?;
    /// let tree = AssemblyTree::from_model(&model);
    /// let motion = ArticulatedMotion::between(&model, &model.pose_from_joints(&[0.0, 0.0])?, &model.pose_from_joints(&[1.0, 1.0])?)?;
    /// let mut bounds = AssemblyBounds::<TaylorModel>::new(&tree, &motion, Interval::UNIT)?;
    /// let wide = bounds.world_bound(LinkId(1))?.apply(DVec3::X).aabb();
    /// bounds.set_domain(Interval::new(0.5, 0.6))?;
    /// let narrow = bounds.world_bound(LinkId(1))?.apply(DVec3::X).aabb();
    /// assert!(narrow.volume() < wide.volume());
    /// assert!(bounds.set_domain(Interval::new(0.5, 1.5)).is_err());
    /// # Ok::<(), ccd_kinematics::KinematicsError>(())
    /// ```
    pub fn set_domain(&mut self, domain: Interval) -> Result<(), KinematicsError> {
        if !Interval::UNIT.contains_interval(&domain) {
            return Err(KinematicsError::TimeOutOfRange(domain.to_string()));
        }
        // do constants carry their domain (Taylor models) or not (intervals)?
        let domain_free =
            E::constant(1.0, Interval::new(0.0, 0.5)) == E::constant(1.0, Interval::new(0.5, 1.0));
        if !domain_free {
            self.engine = Self::full(&self.topo, &self.motions, domain)?;
            if let Some(then) = self.composition {
                self.engine.then = then;
                self.engine.mark_all(&self.topo);
            }
            self.domain = domain;
            return Ok(());
        }
        for (i, m) in self.motions.iter().enumerate() {
            if is_moving(m) {
                self.engine.joint[i] = m.enclosure::<E>(domain)?;
                self.engine.mark(&self.topo, LinkId(i as u32));
            }
        }
        self.domain = domain;
        Ok(())
    }

    /// Recomputes the handle and child-to-parent enclosures of the dirty nodes only,
    /// bottom-up (Sec. 3.1); returns how many nodes were recomputed. The world queries call
    /// it when needed.
    pub fn update_active(&mut self) -> usize {
        self.engine.update(&self.topo)
    }

    /// The enclosure of node `id`'s child-to-parent transform over the domain (kind 3 of
    /// [`AssemblyTree`]: lower part's principal handle → the node's parent's principal handle;
    /// the identity for upper parts and the root), after the bottom-up update of the dirty
    /// nodes. Adaptive CCD bounds a sub-assembly's swept volume in its own frame with it.
    ///
    /// # Errors
    /// [`KinematicsError::UnknownNodeId`] when `id` is not a node of the assembly.
    ///
    /// # Example
    /// ```
    /// use ccd_kinematics::{ArticulatedModel, ArticulatedMotion, AssemblyBounds, AssemblyNode, AssemblyTree, Joint, LinkSpec, NodeId};
    /// use ccd_kinematics::glam::{DAffine3, DVec3};
    /// use ccd_taylor::Interval;
    ///
    /// let hinge = Joint::Revolute { axis: DVec3::Z, limits: None };
    /// let spec = |i: usize| LinkSpec {
    ///     name: format!("l{i}"),
    ///     parent: (i > 0).then(|| format!("l{}", i - 1)),
    ///     joint: hinge,
    ///     offset: DAffine3::from_translation(DVec3::X),
    /// };
    /// let model = ArticulatedModel::new(vec![spec(0), spec(1)])?;
    /// let tree = AssemblyTree::from_model(&model);
    /// let motion = ArticulatedMotion::from_joints(&model, &[0.0, 0.0], &[0.0, 1.0])?;
    /// let mut bounds = AssemblyBounds::<Interval>::new(&tree, &motion, Interval::UNIT)?;
    /// let AssemblyNode::Joint { lower, .. } = tree.node(NodeId(0))? else { unreachable!() };
    /// // link 1's frame seen from link 0 sweeps a quarter circle of radius 1 about (1, 0, 0)
    /// let swept = bounds.child_to_parent_bound(lower)?.apply(DVec3::X).aabb();
    /// assert!(swept.contains_point(DVec3::new(2.0, 0.0, 0.0)));
    /// assert!(swept.contains_point(DVec3::new(1.0 + 1.0f64.cos(), 1.0f64.sin(), 0.0)));
    /// # Ok::<(), ccd_kinematics::KinematicsError>(())
    /// ```
    pub fn child_to_parent_bound(&mut self, id: NodeId) -> Result<Transform<E>, KinematicsError> {
        let k = check_node(id, self.topo.nodes.len())?;
        self.engine.update(&self.topo);
        Ok(self.engine.to_parent[k])
    }

    /// The enclosure of the world transform of node `id`'s principal handle (the frame of
    /// its top link) over the domain, accumulated top-down from the nearest node already
    /// computed since the last update (Sec. 3.2).
    ///
    /// # Errors
    /// [`KinematicsError::UnknownNodeId`] when `id` is not a node of the assembly.
    ///
    /// # Example
    /// ```
    /// use ccd_kinematics::{ArticulatedModel, ArticulatedMotion, AssemblyBounds, AssemblyTree, Joint, LinkId, LinkSpec};
    /// use ccd_kinematics::glam::{DAffine3, DVec3};
    /// use ccd_taylor::Interval;
    ///
    /// let hinge = Joint::Revolute { axis: DVec3::Z, limits: None };
    /// let spec = |i: usize| LinkSpec {
    ///     name: format!("l{i}"),
    ///     parent: (i > 0).then(|| format!("l{}", i - 1)),
    ///     joint: hinge,
    ///     offset: DAffine3::from_translation(DVec3::X),
    /// };
    /// let model = ArticulatedModel::new(vec![spec(0), spec(1), spec(2)])?;
    /// let tree = AssemblyTree::from_model(&model);
    /// let motion = ArticulatedMotion::from_joints(&model, &[0.0; 3], &[0.5, 0.0, 0.0])?;
    /// let mut bounds = AssemblyBounds::<Interval>::new(&tree, &motion, Interval::UNIT)?;
    /// // the leaf of link 2 is its own sub-assembly: its handle is link 2's frame
    /// let leaf = tree.leaf(LinkId(2))?;
    /// let w = bounds.node_world_bound(leaf)?.apply(DVec3::ZERO).aabb();
    /// assert!(w.contains_point(motion.world_at(LinkId(2), 0.7)?.translation.into()));
    /// # Ok::<(), ccd_kinematics::KinematicsError>(())
    /// ```
    pub fn node_world_bound(&mut self, id: NodeId) -> Result<Transform<E>, KinematicsError> {
        let k = check_node(id, self.topo.nodes.len())?;
        self.engine.update(&self.topo);
        Ok(*self.engine.world_of(&self.topo, k as u32))
    }

    /// The enclosure of `link`'s world transform over the domain (Sec. 3.1–3.2).
    ///
    /// # Errors
    /// [`KinematicsError::UnknownLinkId`] when `link` is not a link of the model.
    pub fn world_bound(&mut self, link: LinkId) -> Result<Transform<E>, KinematicsError> {
        let i = check_link(link, self.len())?;
        self.engine.update(&self.topo);
        let leaf = self.topo.leaf_of_link[i];
        Ok(*self.engine.world_of(&self.topo, leaf))
    }

    /// Enclosures of the world transforms of `links`, written to `out` (cleared first).
    ///
    /// # Errors
    /// [`KinematicsError::UnknownLinkId`] when a link is not a link of the model (`out` then
    /// holds the enclosures of the links before it).
    pub fn world_bounds_into(
        &mut self,
        links: &[LinkId],
        out: &mut Vec<Transform<E>>,
    ) -> Result<(), KinematicsError> {
        out.clear();
        for &l in links {
            out.push(self.world_bound(l)?);
        }
        Ok(())
    }
}

/// The index of `id` when it is one of `len` nodes, else [`KinematicsError::UnknownNodeId`].
fn check_node(id: NodeId, len: usize) -> Result<usize, KinematicsError> {
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
fn check_link(link: LinkId, len: usize) -> Result<usize, KinematicsError> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LinkSpec;
    use glam::DVec3;

    fn model(parents: &[Option<usize>]) -> ArticulatedModel {
        let hinge = Joint::Revolute {
            axis: DVec3::Z,
            limits: None,
        };
        ArticulatedModel::new(
            parents
                .iter()
                .enumerate()
                .map(|(i, p)| LinkSpec {
                    name: format!("l{i}"),
                    parent: p.map(|p| format!("l{p}")),
                    joint: hinge,
                    offset: DAffine3::from_translation(DVec3::X),
                })
                .collect(),
        )
        .expect("valid model")
    }

    #[test]
    fn chain_is_balanced() {
        for n in 1..=70usize {
            let parents: Vec<_> = (0..n).map(|i| i.checked_sub(1)).collect();
            let tree = AssemblyTree::from_model(&model(&parents));
            assert_eq!(tree.node_count(), 2 * n - 1);
            let log = (n as f64).log2().ceil() as usize;
            assert_eq!(tree.depth(), log, "n = {n}");
        }
    }

    #[test]
    fn every_joint_is_one_node_and_every_link_one_leaf() {
        let parents = [None, Some(0), Some(0), Some(1), Some(1), Some(2), Some(5)];
        let tree = AssemblyTree::from_model(&model(&parents));
        for l in 0..parents.len() as u32 {
            let leaf = tree.leaf(LinkId(l)).unwrap();
            assert_eq!(
                tree.node(leaf).unwrap(),
                AssemblyNode::Body { link: LinkId(l) }
            );
            match tree.joint_node(LinkId(l)).unwrap() {
                None => assert_eq!(l, 0),
                Some(k) => {
                    assert!(
                        matches!(tree.node(k).unwrap(), AssemblyNode::Joint { joint, .. } if joint == LinkId(l))
                    );
                }
            }
        }
        // the root has no secondary handles; children come after parents
        assert!(tree.handles(NodeId(0)).unwrap().is_empty());
        for k in 1..tree.node_count() as u32 {
            assert!(tree.parent(NodeId(k)).unwrap().expect("non-root").0 < k);
        }
    }

    #[test]
    fn handle_transforms_map_handle_frames_to_the_top_link() {
        let parents = [None, Some(0), Some(1), Some(1), Some(3), Some(4)];
        let m = model(&parents);
        let q = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6];
        let pose = m.pose_from_joints(&q).expect("pose");
        let fk = pose.world_transforms(&m).unwrap();
        let mut tree = AssemblyTree::with_pose(&m, &pose).expect("tree");
        for k in 0..tree.node_count() as u32 {
            let id = NodeId(k);
            let top = match tree.node(id).unwrap() {
                AssemblyNode::Body { link } => link,
                AssemblyNode::Joint { .. } => {
                    // top link: the leaf reached by always going to the upper child
                    let mut cur = id;
                    loop {
                        match tree.node(cur).unwrap() {
                            AssemblyNode::Body { link } => break link,
                            AssemblyNode::Joint { upper, .. } => cur = upper,
                        }
                    }
                }
            };
            let inv_top = fk[top.index()].inverse();
            let links = tree.handles(id).unwrap().to_vec();
            for (h, t) in links.iter().zip(tree.handle_transforms(id).unwrap()) {
                assert!(t.abs_diff_eq(inv_top * fk[h.index()], 1e-12));
            }
            let _ = tree.world_transform(top).unwrap();
        }
    }

    #[test]
    fn bad_input_is_an_error() {
        let m = model(&[None, Some(0)]);
        let mut tree = AssemblyTree::from_model(&m);
        assert!(matches!(
            tree.set_joint(LinkId(1), &[0.0, 1.0]),
            Err(KinematicsError::JointCount { .. })
        ));
        assert!(matches!(
            tree.set_joint(LinkId(1), &[f64::INFINITY]),
            Err(KinematicsError::InvalidJointValue { .. })
        ));
        assert!(tree.set_joint(LinkId(7), &[0.0]).is_err());
        assert!(
            tree.set_relative(LinkId(1), DAffine3::from_scale(DVec3::splat(2.0)))
                .is_err()
        );
        let p = m.pose_from_joints(&[0.0, 0.0]).expect("pose");
        let motion = ArticulatedMotion::between(&m, &p, &p).expect("motion");
        assert!(matches!(
            AssemblyBounds::<Interval>::new(&tree, &motion, Interval::new(-0.5, 0.5)),
            Err(KinematicsError::TimeOutOfRange(_))
        ));
    }
}
