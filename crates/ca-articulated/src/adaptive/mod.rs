//! Adaptive articulated CCD on the assembly tree (Kim, Redon, Kim: "Continuous Collision
//! Detection for Adaptive Simulation of Articulated Bodies", Sec. 2–4): for simulators that
//! rigidify parts of a body (adaptive dynamics, sleeping limbs, locked joints), the caller
//! names the joints that move in a step and the query's culling work follows them.
//!
//! The pipeline is described on [`AdaptiveScene`].

mod culling;
mod input;
mod policy;
mod state;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::sync::Arc;

use ccd_bvh::{Kdop18, MeshBvh};
use ccd_geometry::Aabb;
use ccd_kinematics::{ArticulatedMotion, LinkId};
use ccd_taylor::{Interval, TaylorModel, Transform};
use glam::DVec3;

use crate::scene::check_options;
use crate::{
    ArticulatedError, ArticulatedScene, ArticulatedStats, ArticulatedWorkspace, Part, QueryOptions,
    QueryResult,
};
pub use input::AdaptiveStep;
use input::{JointsCache, check_active, step_motion};
use policy::{
    FULL_AFTER_GIVING_UP, GIVE_UP_PER_PART, MOST_MOVING, PREDICT_PER_PART, PROBE_EVERY,
    REFINE_PER_PART, SEPARATIONS_PER_PART, StepPath, full_step_is_near, is_near,
};
use state::BodyState;

/// An [`ArticulatedScene`] queried step by step with the adaptive pipeline of the adaptive-dynamics CCD
/// paper (Kim, Redon, Kim, Sec. 2–4): the same answers as [`ArticulatedScene::query`], at a culling
/// cost that follows the active joints.
///
/// # Pipeline of [`AdaptiveScene::query`]
/// 1. **Bottom-up update** (Sec. 2.2–2.3, 3.1): each body keeps an
///    [`AssemblyBounds`](ccd_kinematics::AssemblyBounds) from step to step. Links whose
///    relative motion differs from the previous step's (the active joints, and joints that
///    stopped) get new interval enclosures, and only the assembly nodes on their
///    paths to the root are recomputed: the enclosures of the node transforms and a box per
///    node holding its sub-assembly's geometry over the step in the node's own frame (the
///    frame of its top link). A node without a moving joint inside keeps its box.
/// 2. **Top-down culling** (Sec. 3.1–3.2): node world boxes (the node's world enclosure
///    applied to its box) are computed on demand from the root down, and tested against the
///    environment's hierarchy, the rigid bodies' swept boxes and the other bodies' nodes (the
///    two assembly trees traversed together): a sub-assembly whose box misses is culled with
///    all its links, and world enclosures are computed only for nodes that are reached.
///    Self-collision: in a moving node, its two parts are tested against each other top-down
///    with boxes in the model root link's frame instead of world boxes (the same distances;
///    the root's own motion does not widen them, and a node's box is kept from step to step
///    until its local box or a child-to-parent enclosure on its path changes, so only the
///    nodes moved by the changed joints are recomputed); a rigid node (no moving joint inside) keeps the list of its self pairs whose boxes
///    overlap at one instant (their distance cannot change during the step), rebuilt only
///    when a joint inside it changes. The same holds for two nodes of one *rigid group*
///    (links that no moving joint separates): their pairs are taken from a list kept from
///    step to step, without world boxes, until a joint starts or stops moving or a still
///    joint changes its value.
/// 3. **Separation certificates** (temporal coherence): a pair whose hull CA proved it
///    free at an earlier step keeps the direction of its last hull distance; while that
///    direction still separates the two hulls by more than `ε` over the step (two support
///    points and the links' speed bounds, no GJK: [`ccd_ca_rigid::details::convex_apart_along`]),
///    the pair is dropped before the narrow phase, as one whose boxes are apart.
/// 4. **Steps that start in contact** are answered by the full query's resting-contact
///    probe ([`QueryOptions::resting_probe`]), as the full query answers them: first thing
///    after a step with a contact or near one, otherwise after the culling and only when
///    pairs are left (with none left, no pair comes within `ε`, so the probe would give up).
/// 5. **Contact**: the surviving pairs go through the same narrow phase as
///    [`ArticulatedScene::query`] (hull lower bounds, temporal culling, per-link CA; CATCH Alg. 1) in
///    the same order, over the whole step: the adaptive query does not split long steps
///    ([`QueryOptions::segment_turn`] is not used; its steps are frames of a simulation,
///    far below the default 4 rad). The answer is the full query's with
///    `segment_turn = f64::INFINITY`: the same `toc` and pair, whenever no
///    pair of either query stops at the iteration cap (both keep every pair that can come
///    within `ε`, and pairs only one of them keeps cannot reach `ε`).
///
/// **Interval boxes.** The node boxes are bounded in interval arithmetic, as in the paper
/// (Sec. 2.3), whatever [`QueryOptions::enclosure`] says: they only decide which pairs
/// reach the narrow phase, so the answer does not depend on them (a looser box only keeps
/// pairs that cannot come within `ε`). Taylor-model node boxes cost about 7× more per node
/// for boxes of about the same size on the benchmark scenes (wooden men, pendulums, falling
/// man: 3 active joints, 0.9–1.2× the full query's time with Taylor models). The interval
/// work is done as the full query's interval pass does it where a proven cheaper form
/// exists: the changed joints' enclosures with midpoint–radius rotation entries
/// (`midrad::interval_enclosure`), leaf boxes from the eight OBB corners and node
/// boxes from the children's local boxes in midpoint–radius f64 with one rounding bound
/// each (`midrad::corner_box`, `midrad::local_box`), and the compositions along the tree
/// as midpoint–radius matrix products with one rounding bound per entry
/// (`midrad::compose`, installed with [`ccd_kinematics::AssemblyBounds::set_composition`]).
/// The bench scenes `wooden-men`, `pendulum` and `falling-man` measure the adaptive query
/// against the full one per number of active joints (docs/results.md).
///
/// **Large motions.** Interval boxes widen with the rotation in a step and along chains
/// (the wrapping effect), so a step with many or fast joints can keep many more pairs than
/// the full query. Extra pairs of links are cheap in the narrow phase (their hull lower
/// bounds prove most of them free at once), so up to 3 pairs per part of the scene (links
/// with geometry and rigid bodies) go there as they are; environment pairs are not (each
/// sweeps time windows against the environment's hierarchy), so they are always refined
/// with the full query's Taylor-model swept boxes of their links (computed for those links
/// and their ancestors only; a pair whose boxes are apart is dropped, as the full query
/// drops it, so the answer is unchanged). Above 3 pairs per part every pair is refined so,
/// and the culling gives up as soon as it holds more than 4 per part: the step is then
/// answered by the full query on the motions already computed. After a step that refined
/// everything or gave up, the next steps are answered by the full query (3 steps, doubled
/// after each such step in a row, up to 24; after two in a row, as long as no fewer joints
/// move, up to 64 steps; the assembly states catch up when next needed) before the
/// interval culling is tried again; and a step whose interval pair count, extrapolated
/// from the last two adaptive steps, exceeds 2 per part goes to the full query without
/// trying (the next step tries again). When more than 3/4 of the links move (root motions
/// included) and the last step was near contact (its interval culling kept more than 1
/// pair per part, or the full query's more than 1/4, or an environment pair was left by
/// the lower bounds), the step goes to the full query without trying: every node box
/// changes anyway, and near contact the interval boxes keep several times the full query's
/// pairs (`wooden-men` with most joints active). When a step's interval culling kept more than 2 pairs per
/// part (refined or not) or gave up, the following steps go to the full query as long as
/// no fewer joints move (up to 64 steps): with that many joints moving the culling's boxes
/// stay loose, each try costs the update and the culling on top of a narrow phase or a
/// refinement that costs about as much as the full query, and the next try may give up
/// (the `pendulum` sweep's points with 10–25 active joints). This trades a few cheaper
/// tries lost against the worst step's cost: a step that tries the interval culling and
/// gives up, refines everything or keeps many extra pairs costs more than the full query
/// (the states' bottom-up update and the culling are lost or add to it), and the bench's
/// "worst step adaptive/full ≤ 1.10" target is what these rules keep.
///
/// A step costs the relative motions of the links whose joint values changed since the last
/// step (the others are kept; an `O(n)` comparison of the joint vectors finds them) plus
/// enclosure work on the `m` changed joints' paths and the visited nodes, instead of
/// enclosures of every link and every pair of link boxes.
///
/// # Which joints are active
/// A joint is named by the [`LinkId`] of the link it moves (its child link; the model root's
/// "joint" is the root's pose in the world). Every joint not listed must keep its value over
/// the step (`q0 == q1` on its degrees of freedom), else
/// [`ArticulatedError::InactiveJointMoved`]; an id beyond the model is
/// [`ArticulatedError::UnknownJoint`]. Listing a joint that does not move is allowed. Joint
/// values may jump between steps (a step's `q0` need not be the previous `q1`): the links
/// whose relative motion changed are recomputed, whether or not listed.
///
/// # Example
/// ```
/// use std::sync::Arc;
/// use ccd_ca_articulated::{AdaptiveScene, AdaptiveStep, ArticulatedBody, ArticulatedError, BodyStep, Part, QueryOptions, ArticulatedScene};
/// use ccd_bvh::{BvhOptions, MeshBvh, Rss};
/// use ccd_kinematics::{ArticulatedModel, Joint, LinkId, LinkSpec};
/// use ccd_geometry::{glam::{DAffine3, DVec3}, TriMesh};
///
/// // a four-link arm beside a post at (3.3, 0.5)
/// let hinge = Joint::Revolute { axis: DVec3::Z, limits: None };
/// let link = |i: usize| LinkSpec {
///     name: format!("l{i}"),
///     parent: (i > 0).then(|| format!("l{}", i - 1)),
///     joint: hinge,
///     offset: DAffine3::from_translation(if i > 0 { DVec3::X } else { DVec3::ZERO }),
/// };
/// let model = ArticulatedModel::new((0..4).map(link).collect())?;
/// let rod = TriMesh::new(
///     vec![DVec3::new(0.1, -0.05, -0.05), DVec3::new(0.9, -0.05, -0.05), DVec3::new(0.5, 0.05, -0.05), DVec3::new(0.5, 0.0, 0.05)],
///     vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
/// )?;
/// let post = TriMesh::new(
///     vec![DVec3::new(3.2, 0.4, -1.0), DVec3::new(3.4, 0.4, -1.0), DVec3::new(3.3, 0.6, -1.0), DVec3::new(3.3, 0.5, 1.0)],
///     vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
/// )?;
/// let mut scene = ArticulatedScene::new();
/// scene.add_articulated(ArticulatedBody::from_meshes(model, vec![Some(rod); 4])?);
/// scene.set_environment(Arc::new(MeshBvh::<Rss>::new(post, &BvhOptions::default())?));
/// let mut adaptive = AdaptiveScene::new(scene.clone());
/// let options = QueryOptions::default();
/// // only the joint of link 3 (the last one) turns: the tip swings into the post
/// let (q0, q1) = ([0.0; 4], [0.0, 0.0, 0.0, 2.0]);
/// let step = AdaptiveStep { q0: &q0, q1: &q1, active: &[LinkId(3)] };
/// let hit = adaptive.query(&[step], &options)?;
/// let full = scene.query(&[BodyStep::Joints { q0: &q0, q1: &q1 }], &options)?;
/// assert_eq!(hit.first().map(|c| (c.a, c.b)), Some((Part::Link { body: 0, link: LinkId(3) }, Part::Environment)));
/// assert_eq!(hit.first().map(|c| c.contact.toc), full.first().map(|c| c.contact.toc));
/// // declaring the moving joint inactive is an error
/// let wrong = AdaptiveStep { q0: &q0, q1: &q1, active: &[LinkId(2)] };
/// assert!(matches!(adaptive.query(&[wrong], &options), Err(ArticulatedError::InactiveJointMoved { .. })));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct AdaptiveScene {
    scene: ArticulatedScene,
    /// Per body: the assembly state (empty before the first query).
    states: Vec<BodyState<Interval>>,
    /// Per body: which joints are active in the current step.
    active: Vec<Vec<bool>>,
    /// The environment's k-DOP hierarchy and the key of the mesh it was built for.
    env_tree: Option<(EnvKey, Arc<MeshBvh<Kdop18>>)>,
    /// The "pairs before culling" count and the scene shape and option it was computed for.
    pairs_before: Option<((usize, usize, bool, bool), u64)>,
    node_stack: Vec<u32>,
    pair_stack: Vec<(u32, u32)>,
    rigid_boxes: Vec<Aabb>,
    /// Refinement scratch: per body, per link, the Taylor-model world enclosure and box of
    /// the step (computed on demand), and a chain of links.
    taylor: Vec<Vec<Option<LinkSweep>>>,
    chain: Vec<LinkId>,
    /// Links with geometry and rigid bodies of the scene (computed on first use).
    parts: Option<usize>,
    /// Steps still to answer with the full query (after a step whose culling gave up).
    full_steps: u32,
    /// Adaptive steps in a row whose culling gave up.
    gave_up_in_a_row: u32,
    /// Moving joints in the last adaptive step, when its culling gave up.
    gave_up_moving: Option<usize>,
    /// Steps since the last adaptive step.
    since_probe: u32,
    /// The interval culling of the last adaptive step gave up (more than
    /// `GIVE_UP_PER_PART` pairs per part).
    last_probe_gave_up: bool,
    /// The interval culling of the last adaptive step kept more than
    /// [`PREDICT_PER_PART`] pairs per part or gave up.
    last_probe_crowded: bool,
    /// Pairs kept by the interval culling in the last step and in the one before it (the
    /// last one's count again when that one was not adaptive), while steps are adaptive.
    interval_pairs: Option<(usize, usize)>,
    /// The motions (and tolerance) of the last step answered with the full query's
    /// culling, not yet applied to the states.
    pending: Option<(Vec<ArticulatedMotion>, f64)>,
    /// How the last step was answered.
    path: StepPath,
    /// The last step was near contact ([`is_near`]).
    near: bool,
    /// The last step reported a contact (the next one likely starts in contact).
    touched: bool,
    /// Per body: the joint vectors of the last step and their motion, from which the next
    /// step's motion is updated link by link (`None` before the first step).
    joints: Vec<Option<JointsCache>>,
    /// Per pair of parts that the hull CA proved free in an adaptive step, the direction
    /// of its last hull distance: the pair's separation certificate for the next steps
    /// (see [`AdaptiveScene::certify`]).
    separations: HashMap<(Part, Part), DVec3>,
    /// Pairs dropped by separation certificates so far (for tests).
    certified: u64,
}

impl AdaptiveScene {
    /// An adaptive query over `scene` (its bodies, rigid bodies and environment). The
    /// per-body state is built by the first query.
    ///
    /// # Example
    /// See [`AdaptiveScene`].
    #[must_use]
    pub fn new(scene: ArticulatedScene) -> Self {
        Self {
            scene,
            states: Vec::new(),
            active: Vec::new(),
            pairs_before: None,
            env_tree: None,
            node_stack: Vec::new(),
            pair_stack: Vec::new(),
            rigid_boxes: Vec::new(),
            taylor: Vec::new(),
            chain: Vec::new(),
            parts: None,
            full_steps: 0,
            gave_up_in_a_row: 0,
            gave_up_moving: None,
            since_probe: 0,
            last_probe_crowded: false,
            last_probe_gave_up: false,
            interval_pairs: None,
            pending: None,
            path: StepPath::Full,
            near: false,
            touched: false,
            joints: Vec::new(),
            separations: HashMap::new(),
            certified: 0,
        }
    }

    /// The scene.
    #[inline]
    #[must_use]
    pub fn scene(&self) -> &ArticulatedScene {
        &self.scene
    }

    /// The scene, to change rigid motions or the environment, or add bodies (the per-body
    /// state is rebuilt when the number of articulated bodies changes).
    #[inline]
    pub fn scene_mut(&mut self) -> &mut ArticulatedScene {
        self.parts = None;
        self.joints.clear();
        &mut self.scene
    }

    /// The world box of every node of body `body`'s assembly tree (indexed by
    /// [`NodeId`](ccd_kinematics::NodeId) of
    /// [`AssemblyTree::from_model`](ccd_kinematics::AssemblyTree::from_model)) over the last
    /// queried step, inflated by `ε/2`: each holds the geometry of its sub-assembly's links at
    /// every time of the step. `None` before the first query or for a body index out of range.
    ///
    /// # Errors
    /// [`ArticulatedError::Motion`] when an enclosure cannot be computed.
    ///
    /// # Example
    /// ```
    /// # use ccd_ca_articulated::{AdaptiveScene, AdaptiveStep, ArticulatedBody, QueryOptions, ArticulatedScene};
    /// # use ccd_kinematics::{ArticulatedModel, Joint, LinkId, LinkSpec};
    /// # use ccd_geometry::{glam::{DAffine3, DVec3}, TriMesh};
    /// # let model = ArticulatedModel::new(vec![LinkSpec { name: "a".into(), parent: None, joint: Joint::Revolute { axis: DVec3::Z, limits: None }, offset: DAffine3::IDENTITY }])?;
    /// # let tri = TriMesh::new(vec![DVec3::ZERO, DVec3::X, DVec3::Y], vec![[0, 1, 2]])?;
    /// let mut scene = ArticulatedScene::new();
    /// scene.add_articulated(ArticulatedBody::from_meshes(model, vec![Some(tri)])?);
    /// let mut adaptive = AdaptiveScene::new(scene);
    /// assert!(adaptive.node_world_boxes(0)?.is_none());
    /// let step = AdaptiveStep { q0: &[0.0], q1: &[1.0], active: &[LinkId(0)] };
    /// adaptive.query(&[step], &QueryOptions::default())?;
    /// let boxes = adaptive.node_world_boxes(0)?.expect("queried");
    /// assert!(boxes[0].contains_point(DVec3::new(1.0f64.cos(), 1.0f64.sin(), 0.0)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn node_world_boxes(&mut self, body: usize) -> Result<Option<Vec<Aabb>>, ArticulatedError> {
        let Some(b) = self.scene.bodies().get(body) else {
            return Ok(None);
        };
        if let Some((motions, tolerance)) = self.pending.take() {
            let bodies = self.scene.bodies();
            for ((state, body), motion) in self.states.iter_mut().zip(bodies).zip(&motions) {
                state.advance(body, motion, tolerance)?;
            }
        }
        self.states
            .get_mut(body)
            .map(|s| s.world_boxes(b))
            .transpose()
    }

    /// One step: every articulated body moves from `q0` to `q1` with only its `active`
    /// joints changing, rigid bodies with their motions, the environment stays. Allocates a
    /// [`ArticulatedWorkspace`]; per-frame loops use [`AdaptiveScene::query_with`].
    ///
    /// # Errors
    /// As [`ArticulatedScene::query`], and [`ArticulatedError::UnknownJoint`] for an active joint the
    /// model does not have, [`ArticulatedError::InactiveJointMoved`] for a joint not listed
    /// whose value changes over the step.
    ///
    /// # Example
    /// See [`AdaptiveScene`].
    pub fn query(
        &mut self,
        steps: &[AdaptiveStep<'_>],
        opts: &QueryOptions,
    ) -> Result<QueryResult, ArticulatedError> {
        let mut out = QueryResult::default();
        self.query_with(steps, opts, &mut ArticulatedWorkspace::default(), &mut out)?;
        Ok(out)
    }

    /// [`AdaptiveScene::query`] with reusable buffers and output.
    ///
    /// # Errors
    /// As [`AdaptiveScene::query`].
    ///
    /// # Example
    /// ```
    /// # use ccd_ca_articulated::{AdaptiveScene, AdaptiveStep, ArticulatedBody, QueryOptions, QueryResult, ArticulatedScene, ArticulatedWorkspace};
    /// # use ccd_kinematics::{ArticulatedModel, Joint, LinkId, LinkSpec};
    /// # use ccd_geometry::{glam::{DAffine3, DVec3}, TriMesh};
    /// # let model = ArticulatedModel::new(vec![LinkSpec { name: "a".into(), parent: None, joint: Joint::Revolute { axis: DVec3::Z, limits: None }, offset: DAffine3::IDENTITY }])?;
    /// # let tri = TriMesh::new(vec![DVec3::ZERO, DVec3::X, DVec3::Y], vec![[0, 1, 2]])?;
    /// let mut scene = ArticulatedScene::new();
    /// scene.add_articulated(ArticulatedBody::from_meshes(model, vec![Some(tri)])?);
    /// let mut adaptive = AdaptiveScene::new(scene);
    /// let (mut ws, mut out) = (ArticulatedWorkspace::default(), QueryResult::default());
    /// for frame in 0..3 {
    ///     let (q0, q1) = ([0.1 * f64::from(frame)], [0.1 * f64::from(frame + 1)]);
    ///     let step = AdaptiveStep { q0: &q0, q1: &q1, active: &[LinkId(0)] };
    ///     adaptive.query_with(&[step], &QueryOptions::default(), &mut ws, &mut out)?;
    ///     assert!(out.first().is_none()); // alone in an empty world
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn query_with(
        &mut self,
        steps: &[AdaptiveStep<'_>],
        opts: &QueryOptions,
        ws: &mut ArticulatedWorkspace,
        out: &mut QueryResult,
    ) -> Result<(), ArticulatedError> {
        let r = self.step(steps, opts, ws, out);
        self.touched = r.is_ok() && !out.contacts.is_empty();
        r
    }

    /// [`AdaptiveScene::query_with`] but for the contact flag of the next step.
    fn step(
        &mut self,
        steps: &[AdaptiveStep<'_>],
        opts: &QueryOptions,
        ws: &mut ArticulatedWorkspace,
        out: &mut QueryResult,
    ) -> Result<(), ArticulatedError> {
        out.contacts.clear();
        out.stats = ArticulatedStats::default();
        check_options(opts)?;
        self.scene.check_domain()?;
        let bodies = self.scene.bodies();
        if steps.len() != bodies.len() {
            return Err(ArticulatedError::StepCount {
                expected: bodies.len(),
                got: steps.len(),
            });
        }
        self.active.resize(bodies.len(), Vec::new());
        self.joints.resize(bodies.len(), None);
        // each body's motion copied into the workspace's buffers
        ws.motions.truncate(bodies.len());
        for (i, (body, step)) in bodies.iter().zip(steps).enumerate() {
            step_motion(&mut self.joints[i], i, body, step, &mut ws.motions)?;
            check_active(i, body, step, &mut self.active[i])?;
        }
        // step 1: the states follow the steps (built on first use)
        let bodies = self.scene.bodies();
        if self.states.len() != bodies.len() {
            self.states.clear();
            self.pending = None;
            for (i, (body, motion)) in bodies.iter().zip(&ws.motions).enumerate() {
                self.states.push(BodyState::new(i, body, motion)?);
            }
        }
        let moving: usize = ws
            .motions
            .iter()
            .map(|m| m.relatives().iter().filter(|r| state::is_moving(r)).count())
            .sum();
        let links: usize = ws.motions.iter().map(|m| m.relatives().len()).sum();
        // after a step whose interval culling refined every pair or gave up (large
        // motions): the full query for a few steps, and, when the culling gave up or the
        // step trying it again needed refining too, as long as no fewer joints move (up
        // to PROBE_EVERY steps); the states catch up when next needed
        let parts = *self.parts.get_or_insert_with(|| {
            self.scene
                .bodies()
                .iter()
                .map(|b| b.shapes().count())
                .sum::<usize>()
                + self.scene.rigid.len()
        });
        // the interval pairs this step is expected to keep, extrapolated from the last two
        // adaptive steps in a row: above PREDICT_PER_PART per part, the full query is
        // cheaper than the pairs' narrow phase or their refinement, and trying costs the
        // states' update and the culling on top (the next step tries again)
        let expected = self
            .interval_pairs
            .map(|(last, before)| (2 * last).saturating_sub(before));
        let full = self.full_steps > 0
            || ((self.gave_up_in_a_row >= 2 || self.last_probe_gave_up || self.last_probe_crowded)
                && self.since_probe < PROBE_EVERY
                && self.gave_up_moving.is_some_and(|r| moving >= r))
            || expected.is_some_and(|e| e > PREDICT_PER_PART * parts)
            || (self.near && MOST_MOVING.1 * moving > MOST_MOVING.0 * links);
        // A step that starts in contact is answered as the full query answers it, by its
        // resting-contact probe. After a step with a contact or near one it runs first (a
        // contact at `t = 0` is likely, and it saves the culling); otherwise after the
        // culling, and only when pairs are left (below).
        let probed = self.near || self.touched;
        let resting = probed && self.scene.resting_contact(ws, opts, out);
        if full || resting {
            self.interval_pairs = None;
            self.full_steps = self.full_steps.saturating_sub(1);
            self.since_probe += 1;
            match &mut self.pending {
                Some((m, tol)) => {
                    m.clone_from(&ws.motions);
                    *tol = opts.tolerance;
                }
                None => self.pending = Some((ws.motions.clone(), opts.tolerance)),
            }
            self.path = StepPath::Full;
            // the full query: its resting-contact probe, then its culling
            if resting || (!probed && self.scene.resting_contact(ws, opts, out)) {
                if !full {
                    self.path = StepPath::Resting;
                }
                self.near = true;
                return Ok(());
            }
            let r = self.scene.query_motions(ws, opts, out);
            // the full query's tighter boxes keep a fraction of the interval pairs near
            // contact (INTERVAL_PER_FULL)
            let culled = usize::try_from(out.stats.pairs_after_spatial).unwrap_or(usize::MAX);
            self.near = full_step_is_near(culled, parts, &ws.pcls);
            return r;
        }
        self.pending = None;
        for ((state, body), motion) in self.states.iter_mut().zip(bodies).zip(&ws.motions) {
            state.advance(body, motion, opts.tolerance)?;
        }
        let env_tree = self.environment_tree()?;
        // node boxes in interval arithmetic whatever `opts.enclosure` says (see the
        // type's documentation): they only cull, so the answer does not depend on them;
        // the culling gives up once it holds more pairs than GIVE_UP_PER_PART per part
        let complete = Self::cull(
            &self.scene,
            &mut self.states,
            &mut self.node_stack,
            &mut self.pair_stack,
            &mut self.rigid_boxes,
            env_tree.as_deref(),
            ws,
            opts,
            GIVE_UP_PER_PART * parts,
            &mut out.stats,
        )?;
        self.since_probe = 0;
        self.last_probe_gave_up = !complete;
        self.last_probe_crowded = !complete || ws.pcls.len() > PREDICT_PER_PART * parts;
        self.interval_pairs = complete.then(|| {
            let n = ws.pcls.len();
            (n, self.interval_pairs.map_or(n, |(last, _)| last))
        });
        if !complete || ws.pcls.len() > REFINE_PER_PART * parts {
            // the full query's culling for the next few steps, more after each such
            // step in a row (up to 8×)
            self.full_steps = FULL_AFTER_GIVING_UP << self.gave_up_in_a_row.min(3);
            self.gave_up_in_a_row += 1;
            self.gave_up_moving = Some(moving);
        } else if self.last_probe_crowded {
            self.gave_up_in_a_row = 0;
            self.gave_up_moving = Some(moving);
        } else {
            self.gave_up_in_a_row = 0;
            self.gave_up_moving = None;
        }
        if !complete {
            self.path = StepPath::GaveUp;
            out.stats = ArticulatedStats::default();
            if !probed && self.scene.resting_contact(ws, opts, out) {
                self.near = true;
                return Ok(());
            }
            let r = self.scene.query_motions(ws, opts, out);
            self.near = true;
            return r;
        }
        self.path = StepPath::Adaptive;
        let mut refined = true;
        if ws.pcls.len() > REFINE_PER_PART * parts {
            self.path = StepPath::Refined;
            self.refine(ws, opts, env_tree.as_deref(), false)?;
            out.stats.pairs_after_spatial = ws.pcls.len() as u64;
        } else if ws.pcls.iter().any(|p| p.b == Part::Environment) {
            // environment pairs are costly in the narrow phase (swept boxes per time
            // window against the environment's hierarchy): the Taylor boxes of their
            // links drop those the full query drops
            self.path = StepPath::EnvRefined;
            self.refine(ws, opts, env_tree.as_deref(), true)?;
            out.stats.pairs_after_spatial = ws.pcls.len() as u64;
        } else {
            refined = false;
        }
        let key = (
            self.scene.bodies().len(),
            self.scene.rigid.len(),
            self.scene.env.is_some(),
            opts.self_collision,
        );
        out.stats.pairs_before = match self.pairs_before {
            Some((k, n)) if k == key => n,
            _ => {
                let n = pairs_before(&self.scene, opts);
                self.pairs_before = Some((key, n));
                n
            }
        };
        let culled = ws.pcls.len();
        self.certify(ws, opts)?;
        // the resting-contact probe, when it did not run first: with no pair left, none
        // comes within `ε` during the step (culled pairs cannot, certified ones stay more
        // than `ε` apart), so none touches at `t = 0` and the probe would give up
        if !probed && !ws.pcls.is_empty() {
            let stats = out.stats;
            if self.scene.resting_contact(ws, opts, out) {
                self.path = StepPath::Resting;
                self.near = true;
                return Ok(());
            }
            out.stats = stats;
        }
        if refined {
            // the refinement's Taylor-model world transforms (the full query's, bit for
            // bit) start the environment sweeps of the narrow phase
            ws.world.resize_with(self.taylor.len(), Vec::new);
            for (w, t) in ws.world.iter_mut().zip(&self.taylor) {
                w.clear();
                w.extend(t.iter().map(|s| s.as_ref().map(|(tr, _)| *tr)));
            }
        }
        let r = self.scene.narrow_phase(ws, opts, out, refined);
        if self.separations.len() > SEPARATIONS_PER_PART * parts {
            self.separations.clear();
        }
        for &(a, b, n) in &ws.directions {
            self.separations.insert((a, b), n);
        }
        self.near = is_near(culled, parts, &ws.pcls);
        r
    }
}

/// A link's Taylor-model world enclosure over the step and its swept box.
type LinkSweep = (Transform<TaylorModel>, Aabb);

/// Identifies an environment mesh: its address, triangle count and first vertex.
type EnvKey = (usize, usize, Option<[u64; 3]>);

/// The full query's "pairs before culling" count (CATCH Table 2).
fn pairs_before(scene: &ArticulatedScene, opts: &QueryOptions) -> u64 {
    let bodies = scene.bodies();
    let parts: Vec<u64> = bodies
        .iter()
        .map(|b| b.shapes().count() as u64)
        .chain(std::iter::repeat_n(1, scene.rigid.len()))
        .collect();
    let total: u64 = parts.iter().sum();
    let same_body: u64 = parts[..bodies.len()]
        .iter()
        .map(|&n| n * n.saturating_sub(1) / 2)
        .sum();
    let self_pairs: u64 = if opts.self_collision {
        bodies.iter().map(|b| b.self_pairs().count() as u64).sum()
    } else {
        0
    };
    let env = if scene.env.is_some() { total } else { 0 };
    total * total.saturating_sub(1) / 2 - same_body + self_pairs + env
}
