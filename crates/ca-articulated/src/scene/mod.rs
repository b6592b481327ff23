//! Scenes of articulated bodies, rigid bodies and a static environment, and the CATCH query
//! pipeline: spatial culling with Taylor-model swept boxes, temporal culling with convex-hull
//! lower bounds (Alg. 1), and per-link-pair conservative advancement.

use std::ops::ControlFlow;
use std::sync::Arc;

use ccd_bvh::{BoundingVolume, MeshBvh, Rss};
use ccd_ca_rigid::{
    CaOptions, CastOptions, CastWorkspace, Collider, Contact, RigidBody, ShapeContact, Status, cast,
};
use ccd_geometry::Aabb;
use ccd_kinematics::{ArticulatedMotion, KinematicsError, LinkId, Pose, RigidMotion};
use ccd_taylor::{Enclosure, Interval, TaylorModel, Transform};
use glam::{DAffine3, DVec3};

use crate::body::Piece;
use crate::bound::{Mover, MoverPair, common_ancestor, pose_below};
use crate::env_pieces::{EnvPieces, PreparedEnvironment, Screened};
use crate::midrad::{MidRadMotion, carry, clear_of, corner_box, interval_enclosure};
use crate::{ArticulatedBody, ArticulatedError, LinkShape};

mod culling;
mod environment;
mod narrow;
mod resting;
mod types;

use culling::{SecondLevel, TAYLOR_ONLY_TURN};
pub(crate) use environment::env_overlaps;
use environment::{EnvSweep, env_ca, env_meets_box};
pub(crate) use types::check_options;
pub use types::{
    ArticulatedStats, BodyStep, DEFAULT_SEGMENT_TURN, EnclosureKind, MAX_SEGMENTS, Part,
    PartPairContact, QueryOptions, QueryResult,
};

/// What a query computes: the workspace's shared [`ccd_geometry::Mode`]. [`Mode::Toc`] is the
/// first time of contact over all pairs (CATCH, Sec. 3.3), with temporal culling;
/// [`Mode::All`] the first time of contact of every colliding pair, sorted by time;
/// [`Mode::Boolean`] only whether the step is collision-free (motion-planning edge checks,
/// CATCH Sec. 8.1): the query returns as soon as some pair is certainly in contact (its `toc`
/// is a contact time, not necessarily the first) or every pair is proven free. A pair that
/// hits the iteration cap is returned at once with [`Status::OutOfIterations`]: the edge is
/// not proven free.
pub use ccd_geometry::Mode;

/// A rigid body of a scene with its motion for the next queries.
#[derive(Clone, Debug)]
pub(crate) struct RigidEntry {
    pub(crate) body: RigidBody,
    pub(crate) collider: Collider,
    pub(crate) corners: [DVec3; 8],
    pub(crate) motion: RigidMotion,
}

/// The frame two links of one body are seen from: the body and their common ancestor.
type Frame = Option<(usize, LinkId)>;

/// A potentially colliding pair with its lower bound of the time of contact.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pcl {
    pub(crate) a: Part,
    pub(crate) b: Part,
    pub(crate) lower: f64,
}

/// A pair left by interval spatial culling ([`ArticulatedScene::interval_pairs`]).
#[derive(Clone, Copy, Debug)]
struct Cand {
    /// The first part's index in [`ArticulatedWorkspace::boxes`].
    i: usize,
    /// The second part's (`None`: the environment).
    j: Option<usize>,
    /// Two links of one tree of one body (culled in their root link's frame).
    one_tree: bool,
}

/// Reusable buffers of [`ArticulatedScene::query_with`] (one per thread).
#[derive(Debug, Default)]
pub struct ArticulatedWorkspace {
    pub(crate) motions: Vec<ArticulatedMotion>,
    boxes: Vec<(Part, Aabb)>,
    pub(crate) pcls: Vec<Pcl>,
    scratch: CastWorkspace,
    pub(crate) bvh: ccd_bvh::Workspace,
    stack: Vec<u32>,
    /// Per body, the Taylor-model world transforms of its links over the step, where the
    /// query's spatial culling computed them (`None` elsewhere: the links whose interval
    /// swept boxes meet nothing, and their ancestors' when no descendant needs them; reused
    /// by the environment sweeps).
    pub(crate) world: Vec<Vec<Option<Transform<TaylorModel>>>>,
    /// The same in interval arithmetic (every link: the interval swept boxes come first in
    /// both kinds of query).
    world_iv: Vec<Vec<Option<Transform<Interval>>>>,
    /// Per part of `boxes`, whether it is in a pair that interval spatial culling keeps
    /// (the Taylor-model query then computes its Taylor-model box).
    need: Vec<bool>,
    /// The record of second-level tests after the Taylor-model boxes, across queries.
    second_level: SecondLevel,
    /// Per part of `boxes`, whether its Taylor-model box is still the coarse one
    /// ([`Transform::aabb_of_centred`]; [`ArticulatedScene::refine_box`] takes the corners' box).
    coarse: Vec<bool>,
    /// Per body, its links' interval transforms relative to the root link of their tree.
    rel: Vec<Vec<Option<Transform<Interval>>>>,
    /// Per body and link, the root link of its tree.
    roots: Vec<Vec<usize>>,
    /// Per body and link, the sum of the rotation angles over the step of the link and its
    /// ancestors (see [`TAYLOR_TURN`]).
    turns: Vec<Vec<f64>>,
    /// Per link of one body, its turn (see [`ArticulatedScene::turns_exceed`]).
    scratch_turns: Vec<f64>,
    /// As `frames`, from `rel` (the second-level culling of two links of one tree).
    frames_rel: Vec<Option<Transform<Interval>>>,
    /// The pairs interval spatial culling keeps: indices into `boxes` (`None`: the
    /// environment).
    cands: Vec<Cand>,
    /// Per part of `boxes`, its link frame's world transform bounded over the step (filled
    /// on demand by the second-level spatial culling).
    frames: Vec<Option<Transform<Interval>>>,
    /// The environment pairs' sweeps and window boxes of the current narrow phase.
    envs: Vec<EnvSweep>,
    /// Per pair of `pcls`, whether the narrow phase knows its lower bound yet.
    known: Vec<Lower>,
    /// The narrow phase's queue of pairs (indices into `pcls`) by lower bound.
    order: std::collections::BinaryHeap<std::cmp::Reverse<Queued>>,
    /// Per pair the hull CA proved free in the last narrow phase, the direction of its last
    /// distance (the adaptive query's separation certificates for the next step).
    pub(crate) directions: Vec<(Part, Part, DVec3)>,
    /// The resting-contact probe's world poses of one body's links at `t = 0`.
    rest_world: Vec<DAffine3>,
    /// The resting-contact probe's parts with their OBBs in world coordinates at `t = 0`.
    rest_obbs: Vec<resting::WorldObb>,
}

/// Where the narrow phase stands with a pair's lower bound (see [`ArticulatedScene::narrow_phase`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lower {
    /// Not computed: the pair stands in the queue with the bound 0.
    Unknown,
    /// Hull CA's first iterate, a lower bound of the pair's bound (in [`Pcl::lower`]).
    Partial,
    /// Computed (in [`Pcl::lower`]).
    Known,
    /// Computed: none, the pair is proven free.
    Free,
}

/// A pair in the narrow phase's queue: its lower bound (or 0 while unknown) and its index
/// in the pair list, ordered by bound ([`f64::total_cmp`]) and then by index, as a stable
/// sort of the list by bound orders them.
#[derive(Clone, Copy, Debug)]
struct Queued(f64, usize);

impl PartialEq for Queued {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for Queued {}

impl PartialOrd for Queued {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Queued {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0).then(self.1.cmp(&other.1))
    }
}

/// The Taylor-model world transform of a link from its parent's (`parent`) and its
/// relative motion over the step (CATCH Eq. 1): [`Transform::compose_motion`], which takes
/// the cheaper plane-rotation product for a joint turning about a coordinate axis of its
/// frame, when the motion turns about its frame origin; else the general product.
pub(crate) fn chain_step(
    parent: &Transform<TaylorModel>,
    rel: &ccd_kinematics::RigidMotion,
) -> Result<Transform<TaylorModel>, ccd_kinematics::KinematicsError> {
    if rel.local_center() == DVec3::ZERO {
        Ok(parent.compose_motion(rel.params(), Interval::UNIT))
    } else {
        Ok(parent.compose(&rel.enclosure::<TaylorModel>(Interval::UNIT)?))
    }
}

/// The number of equal time windows over which environment pairs get their own swept
/// boxes in the narrow phase. It trades the cost of each window's restricted Taylor
/// models and boxes against the environment search they narrow; with the hull screen of
/// environment pieces ([`crate::env_pieces`]) cutting each search to the pieces near the
/// link, two is the fastest on the CATCH bench scenes (`falling-train`,
/// `walking-mannequin`, `panda-planner`, `pr2`): more windows cost more than they save, and
/// one loses the windows' lower bounds in temporal culling.
const WINDOWS: usize = 2;

/// Articulated bodies, rigid bodies and one static environment, queried one step at a time.
///
/// # Example
/// ```
/// use std::sync::Arc;
/// use ccd_ca_articulated::{ArticulatedBody, BodyStep, Part, QueryOptions, ArticulatedScene};
/// use ccd_bvh::{BvhOptions, MeshBvh, Rss};
/// use ccd_kinematics::{ArticulatedModel, Joint, LinkId, LinkSpec};
/// use ccd_geometry::{glam::{DAffine3, DVec3}, TriMesh};
///
/// // a one-link arm turning about z over a floor block at x = 1.5
/// let model = ArticulatedModel::new(vec![LinkSpec {
///     name: "arm".into(),
///     parent: None,
///     joint: Joint::Revolute { axis: DVec3::Z, limits: None },
///     offset: DAffine3::IDENTITY,
/// }])?;
/// let bar = TriMesh::new(
///     vec![DVec3::new(0.0, -0.05, 0.0), DVec3::new(2.0, -0.05, 0.0), DVec3::new(2.0, 0.05, 0.0), DVec3::new(0.0, 0.0, 0.1)],
///     vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
/// )?;
/// let arm = ArticulatedBody::from_meshes(model, vec![Some(bar)])?;
/// let post = TriMesh::new(
///     vec![DVec3::new(0.0, 1.5, -1.0), DVec3::new(0.2, 1.5, -1.0), DVec3::new(0.1, 1.7, -1.0), DVec3::new(0.1, 1.6, 1.0)],
///     vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
/// )?;
/// let mut scene = ArticulatedScene::new();
/// scene.add_articulated(arm);
/// scene.set_environment(Arc::new(MeshBvh::<Rss>::new(post, &BvhOptions::default())?));
/// let result = scene.query(&[BodyStep::Joints { q0: &[0.0], q1: &[3.0] }], &QueryOptions::default())?;
/// let hit = result.first().expect("the arm sweeps through the post");
/// assert_eq!((hit.a, hit.b), (Part::Link { body: 0, link: LinkId(0) }, Part::Environment));
/// assert!(hit.contact.toc > 0.3 && hit.contact.toc < 0.6);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct ArticulatedScene {
    bodies: Vec<Arc<ArticulatedBody>>,
    pub(crate) rigid: Vec<RigidEntry>,
    /// The static environment with everything derived from its mesh (shared, built once
    /// per environment: [`PreparedEnvironment`]).
    pub(crate) env: Option<Arc<PreparedEnvironment>>,
    /// The first part with a vertex coordinate beyond [`ccd_distance::MAX_COORDINATE`] and
    /// that coordinate's magnitude ([`ArticulatedError::OutOfDomain`] for every query).
    far: Option<(Part, f64)>,
}

fn corners_of(mesh: &MeshBvh<Rss>) -> [DVec3; 8] {
    let obb = ccd_bvh::Obb::fit_points(mesh.mesh().vertices());
    let reach = obb.center.abs().max_element() + obb.half_extents.max_element();
    let h = obb.half_extents + DVec3::splat(16.0 * f64::EPSILON * reach);
    std::array::from_fn(|k| {
        let s = DVec3::new(
            if k & 1 == 0 { -1.0 } else { 1.0 },
            if k & 2 == 0 { -1.0 } else { 1.0 },
            if k & 4 == 0 { -1.0 } else { 1.0 },
        );
        obb.center + obb.rotation * (s * h)
    })
}

impl ArticulatedScene {
    /// An empty scene.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds an articulated body (shared; no copy of its meshes) and returns its index.
    pub fn add_articulated(&mut self, body: impl Into<Arc<ArticulatedBody>>) -> usize {
        self.bodies.push(body.into());
        self.find_far();
        self.bodies.len() - 1
    }

    /// The first part (articulated bodies' links, rigid bodies, the environment) whose
    /// coordinates are beyond the CA's domain, into `far`.
    fn find_far(&mut self) {
        let links = self.bodies.iter().enumerate().flat_map(|(i, b)| {
            b.shapes()
                .map(move |(link, s)| (Part::Link { body: i, link }, s.body()))
        });
        let rigid = self
            .rigid
            .iter()
            .enumerate()
            .map(|(i, r)| (Part::Rigid(i), &r.body));
        let env = self.env.iter().map(|e| (Part::Environment, e.body()));
        self.far = links
            .chain(rigid)
            .chain(env)
            .map(|(p, b)| (p, b.max_abs_coordinate()))
            .find(|&(_, v)| v.is_nan() || v > ccd_distance::MAX_COORDINATE);
    }

    /// The environment's body (world frame), `None` without an environment.
    #[inline]
    pub(crate) fn environment(&self) -> Option<&RigidBody> {
        self.env.as_deref().map(PreparedEnvironment::body)
    }

    /// Per node of the environment's hierarchy, the exact box of the node's triangles
    /// (empty without an environment).
    #[inline]
    pub(crate) fn env_boxes(&self) -> &[Aabb] {
        self.env
            .as_deref()
            .map_or(&[], PreparedEnvironment::node_boxes)
    }

    /// The environment's connected pieces with their hulls (none without an environment).
    #[inline]
    fn env_pieces(&self) -> &EnvPieces {
        static NO_PIECES: EnvPieces = EnvPieces::NONE;
        self.env
            .as_deref()
            .map_or(&NO_PIECES, PreparedEnvironment::pieces)
    }

    /// [`ArticulatedError::OutOfDomain`] when a part's coordinates are beyond the CA's
    /// domain (checked by every query, before any culling).
    pub(crate) fn check_domain(&self) -> Result<(), ArticulatedError> {
        match self.far {
            Some((part, value)) => Err(ArticulatedError::OutOfDomain { part, value }),
            None => Ok(()),
        }
    }

    /// Adds a rigid body (local frame = its motion's frame) moving with `motion` in the
    /// following queries, and returns its index.
    pub fn add_rigid(&mut self, mesh: Arc<MeshBvh<Rss>>, motion: RigidMotion) -> usize {
        let corners = corners_of(&mesh);
        let body = RigidBody::with_hull(Arc::clone(&mesh)).unwrap_or_else(|_| RigidBody::new(mesh));
        self.rigid.push(RigidEntry {
            collider: Collider::Mesh(body.clone()),
            body,
            corners,
            motion,
        });
        self.find_far();
        self.rigid.len() - 1
    }

    /// Sets the motion of rigid body `i` for the following queries (`false` when there is
    /// no such body).
    pub fn set_rigid_motion(&mut self, i: usize, motion: RigidMotion) -> bool {
        match self.rigid.get_mut(i) {
            Some(r) => {
                r.motion = motion;
                true
            }
            None => false,
        }
    }

    /// Sets the static environment (world frame), replacing any previous one: prepares it
    /// ([`PreparedEnvironment::new`], linear in its triangles and more) for this scene only.
    /// Scenes assembled many times over one environment (a planner's queries, a batch)
    /// prepare it once and share it with [`ArticulatedScene::set_prepared_environment`].
    pub fn set_environment(&mut self, mesh: Arc<MeshBvh<Rss>>) {
        self.set_prepared_environment(Arc::new(PreparedEnvironment::new(mesh)));
    }

    /// Sets a prepared static environment (world frame, shared: no copy and no work beyond
    /// the scene's domain check, O(parts)), replacing any previous one. The answers are
    /// those of [`ArticulatedScene::set_environment`] with the environment's mesh.
    ///
    /// # Example
    /// ```
    /// use std::sync::Arc;
    /// use ccd_ca_articulated::{ArticulatedBody, BodyStep, PreparedEnvironment, QueryOptions, ArticulatedScene};
    /// use ccd_bvh::{BvhOptions, MeshBvh, Rss};
    /// use ccd_kinematics::{ArticulatedModel, Joint, LinkSpec};
    /// use ccd_geometry::{glam::{DAffine3, DVec3}, TriMesh};
    ///
    /// let model = ArticulatedModel::new(vec![LinkSpec { name: "arm".into(), parent: None, joint: Joint::Revolute { axis: DVec3::Z, limits: None }, offset: DAffine3::IDENTITY }])?;
    /// let bar = TriMesh::new(vec![DVec3::new(0.0, -0.05, 0.0), DVec3::new(2.0, -0.05, 0.0), DVec3::new(2.0, 0.05, 0.0), DVec3::new(0.0, 0.0, 0.1)], vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])?;
    /// let post = TriMesh::new(vec![DVec3::new(0.0, 1.5, -1.0), DVec3::new(0.2, 1.5, -1.0), DVec3::new(0.1, 1.7, -1.0), DVec3::new(0.1, 1.6, 1.0)], vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])?;
    /// let arm = Arc::new(ArticulatedBody::from_meshes(model, vec![Some(bar)])?);
    /// // prepared once ...
    /// let env = Arc::new(PreparedEnvironment::new(Arc::new(MeshBvh::<Rss>::new(post, &BvhOptions::default())?)));
    /// for q1 in [0.5, 3.0] {
    ///     // ... and shared by every scene assembled from it (O(bodies))
    ///     let mut scene = ArticulatedScene::new();
    ///     scene.add_articulated(Arc::clone(&arm));
    ///     scene.set_prepared_environment(Arc::clone(&env));
    ///     let hit = scene.query(&[BodyStep::Joints { q0: &[0.0], q1: &[q1] }], &QueryOptions::default())?;
    ///     assert_eq!(hit.first().is_some(), q1 > 1.0);
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set_prepared_environment(&mut self, environment: Arc<PreparedEnvironment>) {
        self.env = Some(environment);
        self.find_far();
    }

    /// The prepared static environment, `None` when the scene has none.
    #[inline]
    #[must_use]
    pub fn prepared_environment(&self) -> Option<&Arc<PreparedEnvironment>> {
        self.env.as_ref()
    }

    /// The articulated bodies.
    #[inline]
    #[must_use]
    pub fn bodies(&self) -> &[Arc<ArticulatedBody>] {
        &self.bodies
    }

    /// One step: every articulated body moves as its [`BodyStep`] says (per-link constant
    /// velocities, CATCH Sec. 3.2), rigid bodies with their motions, the environment stays.
    /// Allocates an [`ArticulatedWorkspace`]; per-frame loops use [`ArticulatedScene::query_with`].
    ///
    /// # Errors
    /// [`ArticulatedError::StepCount`], [`ArticulatedError::JointCount`],
    /// [`ArticulatedError::InvalidJointValue`] (NaN, infinite or outside the limits),
    /// [`ArticulatedError::Motion`] (poses that do not fit or are not rigid),
    /// [`ArticulatedError::InvalidOptions`].
    ///
    /// # Example
    /// See [`ArticulatedScene`].
    pub fn query(
        &self,
        steps: &[BodyStep<'_>],
        opts: &QueryOptions,
    ) -> Result<QueryResult, ArticulatedError> {
        let mut out = QueryResult::default();
        self.query_with(steps, opts, &mut ArticulatedWorkspace::default(), &mut out)?;
        Ok(out)
    }

    /// [`ArticulatedScene::query`] with reusable buffers and output (no allocation for the culling
    /// lists once they have grown).
    ///
    /// # Errors
    /// As [`ArticulatedScene::query`].
    ///
    /// # Example
    /// ```
    /// # use ccd_ca_articulated::{ArticulatedBody, BodyStep, QueryOptions, QueryResult, ArticulatedScene, ArticulatedWorkspace};
    /// # use ccd_kinematics::{ArticulatedModel, Joint, LinkSpec};
    /// # use ccd_geometry::{glam::{DAffine3, DVec3}, TriMesh};
    /// # let model = ArticulatedModel::new(vec![LinkSpec { name: "a".into(), parent: None, joint: Joint::Revolute { axis: DVec3::Z, limits: None }, offset: DAffine3::IDENTITY }])?;
    /// # let tri = TriMesh::new(vec![DVec3::ZERO, DVec3::X, DVec3::Y], vec![[0, 1, 2]])?;
    /// let mut scene = ArticulatedScene::new();
    /// scene.add_articulated(ArticulatedBody::from_meshes(model, vec![Some(tri)])?);
    /// let (mut ws, mut out) = (ArticulatedWorkspace::default(), QueryResult::default());
    /// for frame in 0..3 {
    ///     let (q0, q1) = ([0.1 * f64::from(frame)], [0.1 * f64::from(frame + 1)]);
    ///     scene.query_with(&[BodyStep::Joints { q0: &q0, q1: &q1 }], &QueryOptions::default(), &mut ws, &mut out)?;
    ///     assert!(out.first().is_none()); // alone in an empty world
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn query_with(
        &self,
        steps: &[BodyStep<'_>],
        opts: &QueryOptions,
        ws: &mut ArticulatedWorkspace,
        out: &mut QueryResult,
    ) -> Result<(), ArticulatedError> {
        out.contacts.clear();
        out.stats = ArticulatedStats::default();
        check_options(opts)?;
        self.check_domain()?;
        if steps.len() != self.bodies.len() {
            return Err(ArticulatedError::StepCount {
                expected: self.bodies.len(),
                got: steps.len(),
            });
        }
        ws.motions.clear();
        for (i, (body, step)) in self.bodies.iter().zip(steps).enumerate() {
            ws.motions.push(body_motion(i, body, step)?);
        }
        if opts.mode != Mode::All && steps.iter().all(|s| matches!(s, BodyStep::Joints { .. })) {
            let turn = self.largest_turn(ws);
            if turn > opts.segment_turn {
                // NaN turns (impossible after validation) take the unsplit path
                let k = ((turn / opts.segment_turn).ceil() as usize).clamp(2, MAX_SEGMENTS);
                return self.query_segments(steps, k, opts, ws, out);
            }
        }
        // steps that start in contact are answered before any swept box is built
        if self.resting_contact(ws, opts, out) {
            return Ok(());
        }
        self.query_motions(ws, opts, out)
    }

    /// A joint-space step (every entry of `steps` is [`BodyStep::Joints`], validated) as `k`
    /// consecutive sub-steps `[i/k, (i+1)/k]`, in order, until one has a contact; its times
    /// of contact are mapped back to the whole step (rounded down) and the counters summed.
    fn query_segments(
        &self,
        steps: &[BodyStep<'_>],
        k: usize,
        opts: &QueryOptions,
        ws: &mut ArticulatedWorkspace,
        out: &mut QueryResult,
    ) -> Result<(), ArticulatedError> {
        let ends: Vec<(&[f64], &[f64])> = steps
            .iter()
            .filter_map(|s| match *s {
                BodyStep::Joints { q0, q1 } => Some((q0, q1)),
                BodyStep::Poses { .. } => None,
            })
            .collect();
        // the configuration at `i / k` (exactly q0 at 0 and q1 at k): adjacent sub-steps share
        // their end configuration, so the sub-paths join into one continuous path
        let at = |q0: &[f64], q1: &[f64], i: usize| -> Vec<f64> {
            if i == 0 {
                return q0.to_vec();
            }
            if i == k {
                return q1.to_vec();
            }
            let t = i as f64 / k as f64;
            q0.iter().zip(q1).map(|(a, b)| a + t * (b - a)).collect()
        };
        let mut part = QueryResult::default();
        let mut start: Vec<Vec<f64>> = ends.iter().map(|(q0, _)| q0.to_vec()).collect();
        for i in 0..k {
            let end: Vec<Vec<f64>> = ends.iter().map(|(q0, q1)| at(q0, q1, i + 1)).collect();
            ws.motions.clear();
            for (b, (body, (qa, qb))) in self.bodies.iter().zip(start.iter().zip(&end)).enumerate()
            {
                let step = BodyStep::Joints { q0: qa, q1: qb };
                ws.motions.push(body_motion(b, body, &step)?);
            }
            part.contacts.clear();
            part.stats = ArticulatedStats::default();
            if !self.resting_contact(ws, opts, &mut part) {
                self.query_motions(ws, opts, &mut part)?;
            }
            out.stats.add(&part.stats);
            if !part.contacts.is_empty() {
                let (a, b) = (i as f64 / k as f64, (i + 1) as f64 / k as f64);
                for c in &mut part.contacts {
                    // one rounding in each of the product and the sum: two steps down keep
                    // the mapped time at or before the exact one
                    let t = a + c.contact.toc * (b - a);
                    c.contact.toc = t.next_down().next_down().clamp(a, b);
                }
                out.contacts.append(&mut part.contacts);
                return Ok(());
            }
            start = end;
        }
        Ok(())
    }

    /// The largest chain turn of the bodies' motions in `ws.motions` (the sum, from the
    /// root down, of the angles each link turns by relative to its parent; a parent not
    /// listed before its child counts as an infinite turn); NaN when some angle is NaN.
    fn largest_turn(&self, ws: &mut ArticulatedWorkspace) -> f64 {
        let turns = &mut ws.scratch_turns;
        let mut most = 0.0f64;
        for (body, motion) in self.bodies.iter().zip(&ws.motions) {
            turns.clear();
            for (link, m) in body.model().links().iter().zip(motion.relatives()) {
                let up = link.parent.and_then(|p| turns.get(p.index())).copied();
                let turn = match (link.parent, up) {
                    (Some(_), None) => f64::INFINITY,
                    (_, up) => up.unwrap_or(0.0) + m.params().angle().abs(),
                };
                if turn.is_nan() {
                    return f64::NAN;
                }
                most = most.max(turn);
                turns.push(turn);
            }
        }
        most
    }

    /// The rest of [`ArticulatedScene::query_with`] once the bodies' motions are in `ws.motions`
    /// (`out` cleared): swept boxes, spatial culling and the narrow phase. The adaptive
    /// query falls back to it.
    pub(crate) fn query_motions(
        &self,
        ws: &mut ArticulatedWorkspace,
        opts: &QueryOptions,
        out: &mut QueryResult,
    ) -> Result<(), ArticulatedError> {
        ws.world.clear();
        ws.envs.clear();
        if opts.enclosure == EnclosureKind::Taylor && self.turns_exceed(ws, TAYLOR_ONLY_TURN) {
            // large motions: the interval boxes would cull little, Taylor models for all
            let mut world = std::mem::take(&mut ws.world);
            let r = self
                .all_pairs(ws, opts, &mut out.stats)
                .and_then(|()| self.taylor_boxes(ws, opts.tolerance, &mut world, false));
            if r.is_ok() {
                self.potential_pairs(ws, opts, &mut out.stats, Some(&world));
            }
            ws.world = world;
            r?;
            let r = self.narrow_phase_with(ws, opts, out, true);
            ws.world.clear();
            return r;
        }
        // interval swept boxes of every part first
        let mut world_iv = std::mem::take(&mut ws.world_iv);
        let r = self.interval_boxes(ws, opts.tolerance, &mut world_iv);
        let r = r.and_then(|()| {
            self.interval_pairs(ws, opts, &mut out.stats, &world_iv);
            match opts.enclosure {
                EnclosureKind::Taylor => {
                    let mut world = std::mem::take(&mut ws.world);
                    let r = self.taylor_boxes(ws, opts.tolerance, &mut world, true);
                    if r.is_ok() {
                        self.potential_pairs(ws, opts, &mut out.stats, Some(&world));
                    }
                    ws.world = world;
                    r
                }
                EnclosureKind::Interval => {
                    self.potential_pairs(ws, opts, &mut out.stats, None);
                    Ok(())
                }
            }
        });
        ws.world_iv = world_iv;
        r?;
        let r = self.narrow_phase_with(ws, opts, out, true);
        ws.world.clear();
        r
    }

    /// A batch of independent steps of the scene's only articulated body (motion-planning
    /// edges `(q0, q1)`), rigid bodies moving as set, each answered as by [`ArticulatedScene::query`].
    /// With feature `parallel` the edges run on all cores (rayon, one [`ArticulatedWorkspace`] per
    /// task); the answers are the same either way, in the order of `edges`.
    ///
    /// # Errors
    /// [`ArticulatedError::NotOneBody`] unless the scene has exactly one articulated body;
    /// [`ArticulatedError::InvalidOptions`]. A bad edge gets its own error in its slot.
    ///
    /// # Example
    /// ```
    /// # use std::sync::Arc;
    /// # use ccd_ca_articulated::{ArticulatedBody, Mode, QueryOptions, ArticulatedScene};
    /// # use ccd_bvh::{BvhOptions, MeshBvh, Rss};
    /// # use ccd_kinematics::{ArticulatedModel, Joint, LinkSpec};
    /// # use ccd_geometry::{glam::{DAffine3, DVec3}, TriMesh};
    /// # let model = ArticulatedModel::new(vec![LinkSpec { name: "arm".into(), parent: None, joint: Joint::Revolute { axis: DVec3::Z, limits: None }, offset: DAffine3::IDENTITY }])?;
    /// # let bar = TriMesh::new(vec![DVec3::new(0.0, -0.05, 0.0), DVec3::new(2.0, -0.05, 0.0), DVec3::new(2.0, 0.05, 0.0), DVec3::new(0.0, 0.0, 0.1)], vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])?;
    /// # let post = TriMesh::new(vec![DVec3::new(0.0, 1.5, -1.0), DVec3::new(0.2, 1.5, -1.0), DVec3::new(0.1, 1.7, -1.0), DVec3::new(0.1, 1.6, 1.0)], vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])?;
    /// let mut scene = ArticulatedScene::new();
    /// scene.add_articulated(ArticulatedBody::from_meshes(model, vec![Some(bar)])?);
    /// scene.set_environment(Arc::new(MeshBvh::<Rss>::new(post, &BvhOptions::default())?));
    /// let edges = vec![(vec![0.0], vec![0.5]), (vec![0.0], vec![3.0]), (vec![0.0], vec![f64::NAN])];
    /// let answers = scene.check_edges(&edges, &QueryOptions::default().with_mode(Mode::Boolean))?;
    /// assert!(answers[0].as_ref().unwrap().first().is_none()); // free
    /// assert!(answers[1].as_ref().unwrap().first().is_some()); // sweeps through the post
    /// assert!(answers[2].is_err()); // NaN joint
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn check_edges(
        &self,
        edges: &[(Vec<f64>, Vec<f64>)],
        opts: &QueryOptions,
    ) -> Result<Vec<Result<QueryResult, ArticulatedError>>, ArticulatedError> {
        if self.bodies.len() != 1 {
            return Err(ArticulatedError::NotOneBody(self.bodies.len()));
        }
        check_options(opts)?;
        let one = |ws: &mut ArticulatedWorkspace, (q0, q1): &(Vec<f64>, Vec<f64>)| {
            let mut out = QueryResult::default();
            self.query_with(&[BodyStep::Joints { q0, q1 }], opts, ws, &mut out)
                .map(|()| out)
        };
        #[cfg(feature = "parallel")]
        {
            use rayon::prelude::*;
            Ok(edges
                .par_iter()
                .map_init(ArticulatedWorkspace::default, one)
                .collect())
        }
        #[cfg(not(feature = "parallel"))]
        {
            let mut ws = ArticulatedWorkspace::default();
            Ok(edges.iter().map(|e| one(&mut ws, e)).collect())
        }
    }

    /// Whether some link of some articulated body turns by more than `limit` over the step
    /// (radians: the sum of its and its ancestors' rotation angles).
    fn turns_exceed(&self, ws: &mut ArticulatedWorkspace, limit: f64) -> bool {
        let turn = self.largest_turn(ws);
        turn.is_nan() || turn > limit
    }
}

/// The motion of body `i` for its step, with typed errors naming the body.
pub(crate) fn body_motion(
    i: usize,
    body: &ArticulatedBody,
    step: &BodyStep<'_>,
) -> Result<ArticulatedMotion, ArticulatedError> {
    let model = body.model();
    let motion_err = |source| ArticulatedError::Motion { body: i, source };
    match *step {
        BodyStep::Joints { q0, q1 } => {
            let pose = |q: &[f64], which: &'static str| {
                model.pose_from_joints(q).map_err(|e| match e {
                    KinematicsError::JointCount { expected, got } => ArticulatedError::JointCount {
                        body: i,
                        which,
                        expected,
                        got,
                    },
                    KinematicsError::InvalidJointValue { link, value } => {
                        ArticulatedError::InvalidJointValue {
                            body: i,
                            which,
                            link,
                            value,
                        }
                    }
                    other => motion_err(other),
                })
            };
            // validated one by one for errors that say which vector is wrong
            pose(q0, "start")?;
            pose(q1, "end")?;
            ArticulatedMotion::from_joints(model, q0, q1).map_err(motion_err)
        }
        BodyStep::Poses { p0, p1 } => {
            for p in [p0, p1] {
                // re-validate: a Pose's fields are public
                Pose::new(model, p.relative.clone()).map_err(motion_err)?;
            }
            ArticulatedMotion::between(model, p0, p1).map_err(motion_err)
        }
    }
}
