//! Adaptive articulated CCD on the assembly tree (Kim, Redon, Kim: "Continuous Collision
//! Detection for Adaptive Simulation of Articulated Bodies", Sec. 2–4): for simulators that
//! rigidify parts of a body (adaptive dynamics, sleeping limbs, locked joints), the caller
//! names the joints that move in a step and the query's culling work follows them.
//!
//! The pipeline is described on [`AdaptiveScene`].

mod state;

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::sync::Arc;

use ccd_bvh::{BoundingVolume, BvhOptions, Kdop18, MeshBvh};
use ccd_ca_rigid::details::convex_apart_along;
use ccd_ca_rigid::{CaOptions, PairMotion};
use ccd_geometry::Aabb;
use ccd_kinematics::{ArticulatedMotion, LinkId};
use ccd_taylor::{Interval, TaylorModel, Transform};
use glam::{DAffine3, DVec3};

use crate::scene::{Pcl, body_motion, check_options, env_overlaps};
use crate::{
    ArticulatedError, ArticulatedScene, ArticulatedStats, ArticulatedWorkspace, BodyStep, Part,
    QueryOptions, QueryResult,
};
use state::{BodyState, between_bodies};

/// How one articulated body moves in an adaptive step: from joint vector `q0` to `q1`
/// (model joint order), with the joints that may move.
#[derive(Clone, Copy, Debug)]
pub struct AdaptiveStep<'a> {
    /// Start configuration.
    pub q0: &'a [f64],
    /// End configuration.
    pub q1: &'a [f64],
    /// The active joints, each named by the link it moves; every other joint must keep its
    /// value over the step.
    pub active: &'a [LinkId],
}

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

/// A body's last joint vectors and their [`ArticulatedMotion`].
#[derive(Clone, Debug)]
struct JointsCache {
    q0: Vec<f64>,
    q1: Vec<f64>,
    motion: ArticulatedMotion,
}

/// The motion of body `i`'s step (as [`body_motion`] gives it): the relative motions of the
/// links whose joint values changed since the cached step are recomputed, the others kept
/// (bit for bit the same motion); a step that does not fit the cache goes to
/// [`body_motion`], which also reports bad input.
fn step_motion(
    cache: &mut Option<JointsCache>,
    i: usize,
    body: &crate::ArticulatedBody,
    step: &AdaptiveStep<'_>,
    out: &mut Vec<ArticulatedMotion>,
) -> Result<(), ArticulatedError> {
    // into `out[i]`, reusing its buffers
    let put = |out: &mut Vec<ArticulatedMotion>, m: &ArticulatedMotion| match out.get_mut(i) {
        Some(w) => w.clone_from(m),
        None => out.push(m.clone()),
    };
    if let Some(c) = cache
        && c.motion
            .update_joints(body.model(), (&c.q0, &c.q1), step.q0, step.q1)
            .is_ok()
    {
        c.q0.copy_from_slice(step.q0);
        c.q1.copy_from_slice(step.q1);
        put(out, &c.motion);
        return Ok(());
    }
    let full = BodyStep::Joints {
        q0: step.q0,
        q1: step.q1,
    };
    let motion = body_motion(i, body, &full)?;
    put(out, &motion);
    *cache = Some(JointsCache {
        q0: step.q0.to_vec(),
        q1: step.q1.to_vec(),
        motion,
    });
    Ok(())
}

/// How a step was answered (see [`AdaptiveScene`], "Large motions").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum StepPath {
    /// Interval culling, its pairs as they are.
    Adaptive,
    /// Interval culling, environment pairs refined with Taylor-model boxes.
    EnvRefined,
    /// Interval culling, every pair refined with Taylor-model boxes.
    Refined,
    /// The interval culling gave up; the full query answered.
    GaveUp,
    /// The full query answered without trying the interval culling.
    Full,
    /// The step started in contact: the full query's resting-contact probe answered it
    /// before any box was built, as it answers the full query.
    Resting,
}

/// Cached separating directions kept, in parts of the scene (more: the cache starts anew).
const SEPARATIONS_PER_PART: usize = 8;

/// Candidate pairs after the interval culling above which they are refined with
/// Taylor-model boxes of their links, in parts of the scene (links with geometry and rigid
/// bodies; see [`AdaptiveScene`], "Large motions").
const REFINE_PER_PART: usize = 3;

/// Candidate pairs, in parts of the scene, above which the interval culling gives up and
/// the step is answered by the full query (see [`AdaptiveScene`], "Large motions").
const GIVE_UP_PER_PART: usize = 4;

/// Interval pairs per part of the scene expected in a step (extrapolated from the last
/// two adaptive steps) above which the step goes to the full query without trying the
/// interval culling (see [`AdaptiveScene`], "Large motions"). It trades a skipped try
/// that might have paid off against a try on a crowded step that costs more than the full
/// query; measured on the `wooden-men` sweep (with all joints active a larger value lets
/// crowded steps try and lose, while the 3-active ratio does not depend on it).
const PREDICT_PER_PART: usize = 1;

/// Moving joints (root motions included), as a fraction `(num, den)` of the scene's links,
/// above which a step that follows one near contact ([`is_near`]) is answered by the full
/// query without trying the interval culling: when most joints move, every node box
/// changes and the culling saves no enclosure work, and near contact its looser boxes keep
/// more pairs than the full query's (see [`AdaptiveScene`], "Large motions"). Measured on
/// the `wooden-men` sweep: a larger fraction lets steps near contact with most joints
/// moving try the culling and exceed the full query's cost; the 3-active ratio does not
/// depend on it.
const MOST_MOVING: (usize, usize) = (2, 3);

/// Culled pairs per part of the scene above which a step counts as near contact (see
/// [`MOST_MOVING`]).
const NEAR_PER_PART: usize = 1;

/// Interval-culling pairs counted for each pair the full query's culling kept, when a step
/// answered by the full query is judged near contact or not ([`is_near`]): near contact
/// with most joints moving, the interval boxes keep 4–6× the full query's pairs (wooden
/// men, 25 of 29 joints active, steps 16–19: 52 / 63 / 131 interval pairs against 8 / 14 /
/// 21), so a full step with 16 pairs is followed by an interval step keeping more than one
/// pair per part.
const INTERVAL_PER_FULL: usize = 4;

/// Whether a step whose culling kept `culled` interval pairs (or
/// [`INTERVAL_PER_FULL`] times the full query's count), `left` of them after the narrow
/// phase's lower bounds, was near contact: more than [`NEAR_PER_PART`] pairs per part, or
/// an environment pair the lower bounds did not prove free.
fn is_near(culled: usize, parts: usize, left: &[Pcl]) -> bool {
    culled > NEAR_PER_PART * parts || left.iter().any(|p| p.b == Part::Environment)
}

/// [`is_near`] for a step answered by the full query, whose culling kept `culled` pairs.
fn full_step_is_near(culled: usize, parts: usize, left: &[Pcl]) -> bool {
    is_near(culled.saturating_mul(INTERVAL_PER_FULL), parts, left)
}

/// Steps at most answered by the full query while at least as many joints move as in the
/// last step whose culling gave up (after two such steps in a row), before the interval
/// culling is tried again.
const PROBE_EVERY: u32 = 64;

/// Steps answered by the full query after a step whose culling gave up, before the
/// interval culling is tried again (doubled after each such step in a row, up to 8×).
const FULL_AFTER_GIVING_UP: u32 = 3;

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

    /// A k-DOP hierarchy of the environment's triangles for the node-box tests (large node
    /// boxes against the environment's RSS tree cost many rectangle distances), rebuilt when
    /// the environment changes.
    fn environment_tree(&mut self) -> Result<Option<Arc<MeshBvh<Kdop18>>>, ArticulatedError> {
        let Some(env) = self.scene.environment() else {
            self.env_tree = None;
            return Ok(None);
        };
        let mesh = env.mesh_bvh().mesh();
        let key = (
            std::ptr::from_ref(env.mesh_bvh()) as usize,
            mesh.triangle_count(),
            mesh.vertices()
                .first()
                .map(|v| v.to_array().map(f64::to_bits)),
        );
        if let Some((k, tree)) = &self.env_tree
            && *k == key
        {
            return Ok(Some(Arc::clone(tree)));
        }
        let tree = Arc::new(
            MeshBvh::<Kdop18>::new(mesh.clone(), &BvhOptions::default()).map_err(|e| {
                ArticulatedError::LinkGeometry {
                    link: "environment".into(),
                    reason: e.to_string(),
                }
            })?,
        );
        self.env_tree = Some((key, Arc::clone(&tree)));
        Ok(Some(tree))
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

    /// Drops the candidate pairs that one direction proves free over the step: the two
    /// links' convex hulls stay more than `ε` apart along it over the step, counting how far
    /// their points can move along it ([`convex_apart_along`]: two support points and the
    /// speed bounds, where the hull CA needs a GJK distance). The direction is the hull
    /// distance's with which the narrow phase proved the pair free at an earlier step
    /// (`separations`), else the one between the hulls' centroids at the step's start
    /// (wooden men, 3 of 29 joints active, 20 steps: 27 pairs left for the narrow phase
    /// with cached directions alone, 11 with the centroid one too). Any direction gives a
    /// sound test; a dropped pair stays more than `ε` apart, as one whose boxes are apart,
    /// so the answer is unchanged.
    fn certify(
        &mut self,
        ws: &mut ArticulatedWorkspace,
        opts: &QueryOptions,
    ) -> Result<(), ArticulatedError> {
        let ca = CaOptions::default()
            .with_tolerance(opts.tolerance)
            .with_max_iterations(opts.max_iterations);
        let mut kept = 0;
        for k in 0..ws.pcls.len() {
            let p = ws.pcls[k];
            let apart = if p.b == Part::Environment {
                false
            } else {
                let (a, b, pair, _) = self.scene.pair(&ws.motions, &p)?;
                match (a.hull(), b.hull()) {
                    (Some(ha), Some(hb)) => {
                        let n = self
                            .separations
                            .get(&(p.a, p.b))
                            .copied()
                            .unwrap_or_else(|| {
                                let (pa, pb) = pair.poses(0.0);
                                pb.transform_point3(hb.centroid())
                                    - pa.transform_point3(ha.centroid())
                            });
                        convex_apart_along(a, b, &pair, n, 0.0, 1.0, &ca)?
                    }
                    _ => false,
                }
            };
            if !apart {
                ws.pcls[kept] = p;
                kept += 1;
            }
        }
        self.certified += (ws.pcls.len() - kept) as u64;
        ws.pcls.truncate(kept);
        Ok(())
    }

    /// Drops the candidate pairs whose Taylor-model swept boxes (those of the full query)
    /// are apart, computing the world enclosures of the links in the pairs only (and of
    /// their ancestors), once per step. The pair order is kept.
    fn refine(
        &mut self,
        ws: &mut ArticulatedWorkspace,
        opts: &QueryOptions,
        env_tree: Option<&MeshBvh<Kdop18>>,
        only_env: bool,
    ) -> Result<(), ArticulatedError> {
        let bodies = self.scene.bodies();
        let margin = 0.5 * opts.tolerance * (1.0 + 1e-6);
        self.taylor.resize_with(bodies.len(), Vec::new);
        for (t, b) in self.taylor.iter_mut().zip(bodies) {
            t.clear();
            t.resize(b.model().len(), None);
        }
        let rigid: Vec<Aabb> = self
            .scene
            .rigid
            .iter()
            .map(|r| {
                let tr: Transform<TaylorModel> =
                    r.motion.enclosure::<TaylorModel>(Interval::UNIT)?;
                Ok(tr.aabb_of_corners(&r.corners).inflate(margin))
            })
            .collect::<Result<_, ArticulatedError>>()?;
        let mut kept = 0;
        for k in 0..ws.pcls.len() {
            let p = ws.pcls[k];
            if only_env && p.b != Part::Environment {
                ws.pcls[kept] = p;
                kept += 1;
                continue;
            }
            let mut part_box = |part: Part| -> Result<Option<Aabb>, ArticulatedError> {
                match part {
                    Part::Link { body, link } => {
                        let (Some(b), Some(m), Some(cache)) = (
                            bodies.get(body),
                            ws.motions.get(body),
                            self.taylor.get_mut(body),
                        ) else {
                            return Err(ArticulatedError::UnknownPart(part));
                        };
                        link_box(b, m, cache, &mut self.chain, link, margin)
                            .map_err(|source| ArticulatedError::Motion { body, source })
                    }
                    Part::Rigid(i) => rigid
                        .get(i)
                        .copied()
                        .map(Some)
                        .ok_or(ArticulatedError::UnknownPart(part)),
                    Part::Environment => Ok(None),
                }
            };
            let (ba, bb) = (part_box(p.a)?, part_box(p.b)?);
            // a part without a box (the environment, a link without geometry) keeps the pair
            // unless the other side's box meets no environment triangle
            let env = p.a == Part::Environment || p.b == Part::Environment;
            let keep = match (ba, bb) {
                (Some(x), Some(y)) => x.overlaps(&y),
                (Some(x), None) | (None, Some(x)) if env => {
                    env_tree.is_none_or(|tree| env_touches(tree, &x, &mut ws.bvh))
                }
                _ => true,
            };
            if keep {
                ws.pcls[kept] = p;
                kept += 1;
            }
        }
        ws.pcls.truncate(kept);
        Ok(())
    }

    /// Step 2: the potentially colliding pairs in `ws.pcls` (the states advanced to the
    /// step's motions), in the full query's order; false (and an incomplete list) when the
    /// culling gave up after finding more than `budget` pairs.
    #[allow(clippy::too_many_arguments)]
    fn cull<E: state::NodeArith>(
        scene: &ArticulatedScene,
        states: &mut [BodyState<E>],
        node_stack: &mut Vec<u32>,
        pair_stack: &mut Vec<(u32, u32)>,
        rigid_boxes: &mut Vec<Aabb>,
        env_tree: Option<&MeshBvh<Kdop18>>,
        ws: &mut ArticulatedWorkspace,
        opts: &QueryOptions,
        budget: usize,
        stats: &mut ArticulatedStats,
    ) -> Result<bool, ArticulatedError> {
        let bodies = scene.bodies();
        let margin = 0.5 * opts.tolerance * (1.0 + 1e-6);
        rigid_boxes.clear();
        for r in &scene.rigid {
            let tr: Transform<E> = E::enclose(&r.motion)?;
            rigid_boxes.push(E::corners_box(&tr, &r.corners).inflate(margin));
        }
        let pcls = &mut ws.pcls;
        pcls.clear();
        for x in 0..states.len() {
            let (head, tail) = states.split_at_mut(x + 1);
            let sx = &mut head[x];
            let body = &bodies[x];
            if opts.self_collision {
                sx.self_pairs(body, &ws.motions[x], pair_stack, budget, pcls)?;
            }
            for (y, sy) in tail.iter_mut().enumerate() {
                if pcls.len() > budget {
                    return Ok(false);
                }
                between_bodies(sx, body, sy, &bodies[x + 1 + y], pair_stack, budget, pcls)?;
            }
            for (i, rb) in rigid_boxes.iter().enumerate() {
                if pcls.len() > budget {
                    return Ok(false);
                }
                let mut meets = |b: &Aabb| b.overlaps(rb);
                sx.against(body, Part::Rigid(i), &mut meets, node_stack, budget, pcls)?;
            }
            if let Some(tree) = env_tree {
                let bvh = &mut ws.bvh;
                sx.against(
                    body,
                    Part::Environment,
                    &mut |b| env_touches(tree, b, bvh),
                    node_stack,
                    budget,
                    pcls,
                )?;
            }
            if pcls.len() > budget {
                return Ok(false);
            }
        }
        for (i, bi) in rigid_boxes.iter().enumerate() {
            for (j, bj) in rigid_boxes.iter().enumerate().skip(i + 1) {
                if bi.overlaps(bj) {
                    pcls.push(Pcl {
                        a: Part::Rigid(i),
                        b: Part::Rigid(j),
                        lower: 0.0,
                    });
                }
            }
            if let Some(env) = scene.environment()
                && env_overlaps(env, bi, &mut ws.bvh)
            {
                pcls.push(Pcl {
                    a: Part::Rigid(i),
                    b: Part::Environment,
                    lower: 0.0,
                });
            }
        }
        if pcls.len() > budget {
            return Ok(false);
        }
        // the full query's order: lexicographic in (a, b), so that the narrow phase meets
        // the pairs both queries keep in the same order
        pcls.sort_by_key(|p| (p.a, p.b));
        stats.pairs_after_spatial = pcls.len() as u64;
        Ok(true)
    }
}

/// The Taylor-model swept box of `link` over the step (inflated by `margin`), from the
/// world enclosures of its chain composed from the root down as in the full query (CATCH
/// Eq. 1), memoised in `cache` (per link: enclosure and box). `None` (no box: the pair is
/// kept) for a link without geometry or outside the model.
fn link_box(
    body: &crate::ArticulatedBody,
    motion: &ArticulatedMotion,
    cache: &mut [Option<LinkSweep>],
    chain: &mut Vec<LinkId>,
    link: LinkId,
    margin: f64,
) -> Result<Option<Aabb>, ccd_kinematics::KinematicsError> {
    let links = body.model().links();
    if link.index() >= links.len() || link.index() >= cache.len() {
        return Ok(None);
    }
    // the link and its ancestors up to the first one already enclosed
    chain.clear();
    let mut cur = Some(link);
    while let Some(l) = cur {
        if cache[l.index()].is_some() {
            break;
        }
        chain.push(l);
        cur = links[l.index()].parent;
    }
    // from the top down: each parent is enclosed before its child
    while let Some(l) = chain.pop() {
        let rel = &motion.relatives()[l.index()];
        let world = match links[l.index()].parent {
            Some(p) => match &cache[p.index()] {
                Some((w, _)) => crate::scene::chain_step(w, rel)?,
                None => return Ok(None),
            },
            None => rel.enclosure::<TaylorModel>(Interval::UNIT)?,
        };
        let bx = body.link_shape(l).map_or(Aabb::EMPTY, |s| {
            world.aabb_of_corners(s.obb_corners()).inflate(margin)
        });
        cache[l.index()] = Some((world, bx));
    }
    Ok(body
        .link_shape(link)
        .and_then(|_| cache[link.index()].as_ref().map(|c| c.1)))
}

/// A link's Taylor-model world enclosure over the step and its swept box.
type LinkSweep = (Transform<TaylorModel>, Aabb);

/// Identifies an environment mesh: its address, triangle count and first vertex.
type EnvKey = (usize, usize, Option<[u64; 3]>);

/// Whether some environment triangle's box overlaps `bx` (conservative: false only when
/// none can), on the k-DOP hierarchy.
fn env_touches(tree: &MeshBvh<Kdop18>, bx: &Aabb, ws: &mut ccd_bvh::Workspace) -> bool {
    let q = Kdop18::fit_points(&bx.corners());
    let mut found = false;
    tree.bvh().traverse(
        ws,
        |bv| bv.overlaps(&q, &DAffine3::IDENTITY),
        |p| {
            let t = tree.mesh().triangle(p as usize);
            if Aabb::from_points([t.a, t.b, t.c]).overlaps(bx) {
                found = true;
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        },
    );
    found
}

/// Validates the active set of body `i` and checks that the other joints keep their values.
fn check_active(
    i: usize,
    body: &crate::ArticulatedBody,
    step: &AdaptiveStep<'_>,
    mask: &mut Vec<bool>,
) -> Result<(), ArticulatedError> {
    let links = body.model().links();
    mask.clear();
    mask.resize(links.len(), false);
    for &a in step.active {
        match mask.get_mut(a.index()) {
            Some(m) => *m = true,
            None => {
                return Err(ArticulatedError::UnknownJoint {
                    body: i,
                    joint: a.0,
                    count: links.len(),
                });
            }
        }
    }
    for (l, &active) in links.iter().zip(mask.iter()) {
        if active {
            continue;
        }
        let dofs = l.first_dof..l.first_dof + l.joint.dof();
        // lengths were checked with the motion
        if let Some(k) = dofs.clone().find(|&k| step.q0[k] != step.q1[k]) {
            return Err(ArticulatedError::InactiveJointMoved {
                body: i,
                link: l.name.clone(),
                from: step.q0[k],
                to: step.q1[k],
            });
        }
    }
    Ok(())
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ArticulatedBody;
    use ccd_bvh::Rss;
    use ccd_geometry::TriMesh;
    use ccd_kinematics::{ArticulatedModel, Joint, LinkSpec};
    use glam::DVec3;

    /// A chain of `n` small boxes 0.3 apart, hinged about z and y in turn, over a floor.
    fn coil(n: usize) -> ArticulatedScene {
        let specs = (0..n)
            .map(|i| LinkSpec {
                name: format!("l{i}"),
                parent: (i > 0).then(|| format!("l{}", i - 1)),
                joint: Joint::Revolute {
                    axis: if i % 2 == 0 { DVec3::Z } else { DVec3::Y },
                    limits: None,
                },
                offset: DAffine3::from_translation(if i > 0 {
                    DVec3::X * 0.3
                } else {
                    DVec3::ZERO
                }),
            })
            .collect();
        let model = ArticulatedModel::new(specs).unwrap();
        let cube = |lo: DVec3, hi: DVec3| TriMesh::cuboid(lo, hi).unwrap();
        let link = cube(DVec3::splat(-0.1), DVec3::splat(0.1));
        let body = ArticulatedBody::from_meshes(model, vec![Some(link); n]).unwrap();
        let mut scene = ArticulatedScene::new();
        scene.add_articulated(body);
        let floor = cube(DVec3::new(-10.0, -10.0, -2.0), DVec3::new(10.0, 10.0, -1.0));
        scene.set_environment(Arc::new(
            MeshBvh::<Rss>::new(floor, &BvhOptions::default()).unwrap(),
        ));
        scene
    }

    /// The full query's and the adaptive query's answers to one step of a one-body scene.
    fn both(
        scene: &ArticulatedScene,
        adaptive: &mut AdaptiveScene,
        (q0, q1): (&[f64], &[f64]),
        active: &[LinkId],
        opts: &QueryOptions,
    ) -> (QueryResult, QueryResult) {
        let whole = opts.with_segment_turn(f64::INFINITY);
        let full = scene.query(&[BodyStep::Joints { q0, q1 }], &whole).unwrap();
        let ours = adaptive
            .query(&[AdaptiveStep { q0, q1, active }], opts)
            .unwrap();
        (full, ours)
    }

    /// Every way of answering a step (interval culling as it is, with environment pairs
    /// refined, with every pair refined, giving up, the full query) gives the full query's
    /// answer, on a chain coiling with growing and shrinking amplitude.
    #[test]
    fn every_path_gives_the_full_querys_answer() {
        let n = 16;
        let scene = coil(n);
        let mut adaptive = AdaptiveScene::new(scene.clone());
        let all: Vec<LinkId> = (0..n as u32).map(LinkId).collect();
        let opts = QueryOptions::default();
        let mut seen = Vec::new();
        let mut q = vec![0.0; n];
        for step in 0..160 {
            // amplitude 0 → 1.4 rad → 0, twice (1.4: the interval pair count passes the
            // refining threshold without giving up at some steps, e.g. 15 and 75); then calm
            // steps with a sudden
            // jump to 1.6 rad every 10 steps (a step far from contact, as the full query
            // saw it, followed by one whose interval culling gives up)
            let phase = (step % 60) as f64 / 60.0;
            let amp = match step {
                0..120 => 1.4 * (std::f64::consts::PI * phase).sin().powi(2),
                _ if step % 10 == 5 => 1.6,
                _ => 0.01,
            };
            let q0 = q.clone();
            for (i, x) in q.iter_mut().enumerate() {
                *x += amp * (((i * 7 + step * 3) % 11) as f64 / 10.0 - 0.5);
            }
            let (full, ours) = both(&scene, &mut adaptive, (&q0, &q), &all, &opts);
            assert_eq!(
                full.contacts, ours.contacts,
                "step {step}, {:?}",
                adaptive.path
            );
            if !seen.contains(&adaptive.path) {
                seen.push(adaptive.path);
            }
        }
        for path in [
            StepPath::Adaptive,
            StepPath::EnvRefined,
            StepPath::Refined,
            StepPath::GaveUp,
            StepPath::Full,
        ] {
            assert!(seen.contains(&path), "{path:?} not taken; seen {seen:?}");
        }
    }

    /// Pairs that the narrow phase proved free at one step are dropped at the next by
    /// their cached separating direction while it still separates them (a coil folded on
    /// itself, three joints wiggling): the certificates act, and every answer, contacts
    /// included (the fold closes at the end), is the full query's.
    #[test]
    fn separation_certificates_drop_pairs_without_changing_answers() {
        let n = 16;
        let scene = coil(n);
        let mut adaptive = AdaptiveScene::new(scene.clone());
        let active = [LinkId(5), LinkId(9), LinkId(12)];
        let opts = QueryOptions::default();
        let mut q: Vec<f64> = (0..n).map(|i| if i % 2 == 0 { 0.9 } else { 0.3 }).collect();
        let mut contacts = 0;
        for step in 0..40 {
            let q0 = q.clone();
            for (k, a) in active.iter().enumerate() {
                // small waves, then joint 12 folds the tail onto the coil
                let wave = 0.02 * ((step + 3 * k) as f64 * 0.7).sin();
                q[a.index()] += if step >= 30 && k == 2 { 0.15 } else { wave };
            }
            let (full, ours) = both(&scene, &mut adaptive, (&q0, &q), &active, &opts);
            assert_eq!(
                full.contacts, ours.contacts,
                "step {step}, {:?}",
                adaptive.path
            );
            contacts += usize::from(!ours.contacts.is_empty());
        }
        assert!(adaptive.certified > 0, "no pair certified");
        assert!(contacts > 0, "the fold never closed");
    }

    /// With most links moving, a step whose interval culling kept more than
    /// `PREDICT_PER_PART` pairs per part (refined or not) or gave up is followed by the full
    /// query as long as no fewer joints move: the coil swinging at constant amplitudes never
    /// tries the culling again after such a step; every answer is the full query's.
    #[test]
    fn a_crowded_step_keeps_the_full_query() {
        let n = 16;
        let scene = coil(n);
        let all: Vec<LinkId> = (0..n as u32).map(LinkId).collect();
        let opts = QueryOptions::default();
        // the top 6 joints (every link moves) or the last 10 (10 of 16 links move,
        // fewer than 3/4)
        for (first, count) in [(0, 6), (n - 10, 10)] {
            let mut triggers = Vec::new();
            for amp in [0.1, 0.2, 0.3, 0.45, 0.6, 0.8, 1.2, 1.6, 2.0] {
                let mut adaptive = AdaptiveScene::new(scene.clone());
                let mut q = vec![0.05; n];
                let mut crowded_at = None;
                for step in 0..40 {
                    let q0 = q.clone();
                    // `count` joints move every step (no increment is zero): fewer than
                    // 3/4 of the joints (the rule for near steps does not apply)
                    for (i, x) in q.iter_mut().enumerate().skip(first).take(count) {
                        let sign = if (i + step) % 2 == 0 { 1.0 } else { -1.0 };
                        *x += sign * amp * (0.5 + ((i * 7 + step * 3) % 11) as f64 / 20.0);
                    }
                    let (full, ours) = both(&scene, &mut adaptive, (&q0, &q), &all, &opts);
                    assert_eq!(
                        full.contacts, ours.contacts,
                        "{first} amp {amp} step {step}"
                    );
                    if let Some(at) = crowded_at {
                        assert_eq!(
                            adaptive.path,
                            StepPath::Full,
                            "first {first}, amp {amp}: step {step} after the crowded step {at}"
                        );
                    }
                    let crowded = match adaptive.path {
                        StepPath::Refined | StepPath::GaveUp => true,
                        StepPath::Adaptive => {
                            ours.stats.pairs_after_spatial > (PREDICT_PER_PART * n) as u64
                        }
                        StepPath::EnvRefined | StepPath::Full | StepPath::Resting => false,
                    };
                    if crowded && crowded_at.is_none() {
                        crowded_at = Some(step);
                        triggers.push((amp, step, adaptive.path));
                    }
                }
            }
            // the rule was exercised by a step the older rules let try again (not a give-up)
            assert!(
                triggers.iter().any(|t| t.2 != StepPath::GaveUp),
                "first {first}: {triggers:?}"
            );
        }
    }

    /// With most joints moving, a step after one near contact goes to the full query
    /// without trying the interval culling; with few moving, or after a step far from
    /// contact, the interval culling answers; every answer is the full query's.
    #[test]
    fn most_joints_moving_near_contact_take_the_full_query() {
        let n = 16;
        let scene = coil(n);
        let all: Vec<LinkId> = (0..n as u32).map(LinkId).collect();
        let opts = QueryOptions::default();
        let q0 = vec![0.1; n];
        let mut most = q0.clone();
        most.iter_mut().for_each(|x| *x += 0.01);
        let mut one = q0.clone();
        one[n - 1] += 0.01;
        for (near, q1, full_path) in [
            (false, &most, false),
            (true, &most, true),
            (true, &one, false),
        ] {
            let mut adaptive = AdaptiveScene::new(scene.clone());
            adaptive.near = near;
            let (full, ours) = both(&scene, &mut adaptive, (&q0, q1), &all, &opts);
            assert_eq!(full.contacts, ours.contacts);
            assert_eq!(
                adaptive.path == StepPath::Full,
                full_path,
                "near {near}: {:?}",
                adaptive.path
            );
        }
        // many culled pairs, or an environment pair left by the lower bounds
        let env = Pcl {
            a: Part::Link {
                body: 0,
                link: LinkId(0),
            },
            b: Part::Environment,
            lower: 0.0,
        };
        assert!(is_near(11, 10, &[]));
        assert!(!is_near(10, 10, &[]));
        assert!(is_near(0, 10, &[env]));
        // a full step counts its pairs INTERVAL_PER_FULL times (wooden men: 58 parts, the
        // full query's 16 pairs before an interval step keeping 131)
        assert!(full_step_is_near(16, 58, &[]));
        assert!(!full_step_is_near(14, 58, &[]));
        assert!(full_step_is_near(0, 58, &[env]));
    }

    /// Pairs cached for a rigid group (two nodes whose links no moving joint separates) are
    /// dropped when a still joint between them jumps to another value: the chain folds back
    /// onto itself at a joint that does not move during the steps, and the adaptive query
    /// still gives the full query's contacts between the two halves.
    #[test]
    fn a_still_joint_jumping_renews_the_rigid_groups_pairs() {
        let n = 12;
        let scene = coil(n);
        let mut adaptive = AdaptiveScene::new(scene.clone());
        // every pair's contact, not only the first one (at the fold, many touch at t = 0)
        let opts = QueryOptions::default().with_mode(crate::Mode::All);
        let mut folded_contact = false;
        for step in 0..12 {
            let mut q0 = vec![0.0; n];
            // the root's principal joint (link 6) holds the chain's second half bent back
            // over the first one, then folds it closer at step 6 and stays
            q0[6] = if step >= 6 { 3.0 } else { 2.5 };
            let mut q1 = q0.clone();
            q0[n - 1] = 0.05 * step as f64;
            q1[n - 1] = 0.05 * (step + 1) as f64;
            let (full, ours) = both(
                &scene,
                &mut adaptive,
                (&q0, &q1),
                &[LinkId(n as u32 - 1)],
                &opts,
            );
            assert_eq!(full.contacts, ours.contacts, "step {step}");
            assert_eq!(adaptive.path, StepPath::Adaptive, "step {step}");
            // a contact between the halves, neither of them the moving link
            folded_contact |= full.contacts.iter().any(|c| {
                matches!(
                    (c.a, c.b),
                    (Part::Link { link: x, .. }, Part::Link { link: y, .. })
                        if x.0 < 6 && (6..11).contains(&y.0)
                )
            });
        }
        assert!(
            folded_contact,
            "the fold made no contact between the halves"
        );
    }
}
