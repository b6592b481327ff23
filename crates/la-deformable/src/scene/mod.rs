//! Scene queries: the two-layer hybrid BVH (LA Sec. VI) over deforming meshes, inter-object
//! and self-collision, global ToC, all ToCs and Boolean mode.
//!
//! A [`DeformingScene`] holds deforming meshes and one hybrid BVH per mesh; a mesh of several
//! connected pieces gets one subtree per piece ([`ccd_bvh::Bvh::build_grouped`]), so that
//! subtrees never mix pieces and each piece's surface patches are found as disks below.
//! [`DeformingScene::query`] traverses
//! every pair of meshes and (with [`SceneOptions::self_collision`]) every mesh against itself;
//! node pairs are culled by their swept k-DOPs, then (lower layer) by the moving k-DOP test of
//! LA Sec. IV. Two leaves pair their features directly: each side's owned vertices, owned
//! edges and faces are selected by the other leaf's box (64-bit masks), vertex–face and
//! edge–edge candidates by their swept boxes (`f32`, rounded outward) and then by their moving
//! boxes, and what survives runs the elementary kernels. Every vertex and edge is owned by
//! one triangle ([`DeformingMesh::owned_features`]), so every feature pair is tested at most
//! once. Within a mesh, feature pairs that share a vertex are skipped: adjacent triangles are
//! handled by the vertex–face and edge–edge pairs of their non-shared features.
//!
//! Self-collision skips whole subtrees (and unions of two adjacent subtrees) that form a
//! topological disk whose continuous normal cone stays below 90° and whose projected contour
//! stays simple during the step, and subtrees that form a closed surface whose triangles all
//! keep facing away from a moving centre (star-shaped over the whole step, covering the
//! sphere of directions once): they cannot intersect themselves
//! ([`SceneOptions::normal_cones`]).
//!
//! With [`Mode::Toc`] the best ToC found so far bounds every later test (temporal
//! culling): a node pair or feature pair that cannot touch before it is pruned.
//!
//! [`DeformingScene::update`] refits a mesh's hierarchy to a new frame pair, and rebuilds it once a
//! mesh of several pieces has moved far from where it was at the last build (see
//! [`REBUILD_DRIFT`]).

mod brute;
mod cone;
mod hybrid;
mod oneshot;
mod separation;
mod star;
mod traverse;

pub use brute::brute_force;
pub use oneshot::separation_step;
pub use separation::{
    DEFAULT_SEPARATION_SCALE, DEFAULT_SEPARATION_TOLERANCE, SeparationOptions, SeparationPair,
    SeparationStep,
};
pub use traverse::{BOOLEAN_SERIAL_FACTOR, DEFAULT_SERIAL_WORK, DEFAULT_SPLIT_GRAIN, work_units};

use ccd_geometry::Feature;
use ccd_geometry::glam::DVec3;

use crate::{DeformingMesh, LaError, LaOptions, Mode, PrimitiveToc, SceneContact, SceneStats};
use hybrid::HybridBvh;

/// Which elementary vertex–face / edge–edge test a scene query runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Kernel {
    /// Local advancement with the LA paper's Lemma 2 and 3 motion bounds
    /// ([`crate::kernels::vertex_face_until`], [`crate::kernels::edge_edge_until`]).
    #[default]
    LocalAdvancement,
    /// Provot-style cubic coplanarity solve plus inclusion test
    /// ([`crate::baseline`]), for comparison only.
    CubicBaseline,
}

/// What a scene query does with *resting* pairs: vertex–face and edge–edge pairs already
/// within the tolerance `ε` at `t = 0` (a cloth lying on a body, stacked layers).
///
/// # Example
/// ```
/// use ccd_la_deformable::scene::{Resting, SceneOptions};
///
/// let opts = SceneOptions::default().with_resting(Resting::Separate);
/// assert_eq!(opts.resting, Resting::Separate);
/// ```
///
/// With the `serde` feature written in snake case (`"contact"`, `"separate"`: the spelling
/// of the Python module's `resting=`); the capitalised spelling (`"Contact"`, `"Separate"`) is
/// read too.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Resting {
    /// A resting pair is a contact at `toc = 0` ([`Status::InitiallyTouching`]), so the
    /// global ToC of a scene with resting contact is `0`.
    ///
    /// [`Status::InitiallyTouching`]: crate::Status::InitiallyTouching
    #[default]
    #[cfg_attr(feature = "serde", serde(alias = "Contact"))]
    Contact,
    /// A resting pair (distance `d₀ < ε` at `t = 0`) is listed in
    /// [`SceneResult::resting`] (with its distance and witnesses at `t = 0`) and is a contact
    /// only if and when it comes closer: it is tested again with the tolerance `d₀ / 2`, so
    /// it is reported no later than it would touch, at a time where it is within `d₀ / 2`
    /// (or at the iteration cap). A resting pair that keeps its distance or separates is not
    /// a contact. A pair at distance exactly `0` at `t = 0` (coincident seam vertices,
    /// touching features) cannot come closer: it is listed and never a contact.
    #[cfg_attr(feature = "serde", serde(alias = "Separate"))]
    Separate,
}

/// The largest [`SceneOptions::leaf_size`]: a leaf's features of one kind (at most three per
/// triangle) then fit the 64-bit selection masks of the leaf-pair test.
pub const MAX_LEAF_SIZE: u32 = 16;

/// [`DeformingScene::update`] rebuilds the BVH of a mesh made of several pieces (connected components)
/// instead of refitting it once its vertices have moved, on average, by this fraction of its
/// bounding-box diagonal since the last build. A connected surface keeps its neighbourhoods
/// while it deforms, so its refitted tree keeps matching it and is never rebuilt.
///
/// Every piece has a subtree of its own (the build never splits a piece between subtrees),
/// so a refit only loosens the levels that group whole pieces. The threshold trades a
/// rebuild's cost (hundreds of milliseconds on a large mesh) against the looser boxes of a
/// drifted tree; measured on `exploding-dragon` (fragments flying apart), where a smaller
/// threshold rebuilds several times and is slower, and this one rebuilds about once.
pub const REBUILD_DRIFT: f64 = 0.2;

/// Settings of a scene query.
///
/// `#[non_exhaustive]`: start from [`SceneOptions::default`] and change what you need with
/// the `with_*` builders.
///
/// # Example
/// ```
/// use ccd_la_deformable::scene::{Kernel, SceneOptions};
///
/// let opts = SceneOptions::default().with_tolerance(1e-5).with_self_collision(false);
/// assert_eq!(opts.la.tolerance, 1e-5);
/// assert_eq!(opts.kernel, Kernel::LocalAdvancement);
/// assert!(opts.validate().is_ok());
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct SceneOptions {
    /// Tolerance and iteration cap of the elementary queries.
    pub la: LaOptions,
    /// Height (above the leaves) of the hybrid BVH's lower layer, whose node pairs are tested
    /// with the moving k-DOP ToC; higher nodes use swept k-DOP overlap (the paper uses 3).
    pub layer_height: u32,
    /// Triangles per BVH leaf, `1..=`[`MAX_LEAF_SIZE`].
    pub leaf_size: u32,
    /// Also test every mesh against itself.
    pub self_collision: bool,
    /// Skip self-collision subtrees that provably cannot intersect themselves during the step
    /// (disks: continuous normal cone and contour test; closed pieces: star-shaped about a
    /// moving centre; see [`SceneStats::patches_skipped`]). Such
    /// a patch has no contacts, but pairs inside it that come within the tolerance without
    /// touching are then not reported as early contacts; turn it off to get exactly the
    /// elementary queries' answers (as [`brute_force`] does). Off, the scene does not build
    /// the cones at all (a cheaper build and refit, e.g. for
    /// [`DeformingScene::separation_step`], which does not use them).
    pub normal_cones: bool,
    /// The elementary test.
    pub kernel: Kernel,
    /// Cull with the local-advancement bounds of moving volumes (LA Sec. IV, Eq. 2): node
    /// pairs of the lower layer and feature pairs by the first time their moving k-DOPs or
    /// boxes can touch, pruned against the best ToC so far. Off: swept-volume overlap only,
    /// as in a conventional swept-volume pipeline (for comparisons).
    pub moving_bounds: bool,
    /// Run independent subtrees on rayon's thread pool (needs the `parallel` feature;
    /// ignored without it, and with a pool of one thread). The first
    /// [`serial_work`](Self::serial_work) units of the traversal run on the calling thread in
    /// the serial order, so a query that ends within them (a small scene, an early global
    /// ToC of 0, a Boolean contact) costs what the serial one does. Then the calling thread
    /// goes on in the serial order, while rayon's other workers, whenever they run out of
    /// work, are given a task of a busy worker's stack (of at least
    /// [`split_grain`](Self::split_grain) triangles): in [`Mode::All`] and
    /// [`Mode::Boolean`] the last one (the tail of the serial order: the calling thread
    /// does no more of the traversal than the serial query does, in the same order, and
    /// reaches a Boolean contact no later), in [`Mode::Toc`] the next one (the bound that
    /// prunes the tail is found at the front, so both threads work there). The answer is
    /// the serial one: the same global
    /// ToC (bit for bit), the same sorted list of contacts and resting pairs in
    /// [`Mode::All`], the same yes/no in [`Mode::Boolean`]; only which of several pairs
    /// tied at the earliest time (`Toc`) or which colliding pair (`Boolean`) is reported,
    /// and the counters, may differ.
    pub parallel: bool,
    /// With [`parallel`](Self::parallel): how much work the traversal does serially before
    /// the rest is split, in units of roughly a tenth of a microsecond of one core (node
    /// tests and elementary tests count one each; see [`work_units`] and
    /// [`DEFAULT_SERIAL_WORK`]); a [`Mode::Boolean`] query runs
    /// [`BOOLEAN_SERIAL_FACTOR`] times as much first. A query of less work
    /// never wakes a thread. `0` splits at once. The split point depends on the scene and
    /// these thresholds alone (not on timing or load); the answer does not depend on it.
    #[cfg_attr(feature = "serde", serde(default = "default_serial_work"))]
    pub serial_work: u32,
    /// With [`parallel`](Self::parallel): a task whose two nodes hold fewer triangles than
    /// this stays with the worker that holds it; a larger one may be handed to an idle
    /// worker (default [`DEFAULT_SPLIT_GRAIN`]; `0` or `1` hands out any task, down to leaf
    /// pairs).
    #[cfg_attr(feature = "serde", serde(default = "default_split_grain"))]
    pub split_grain: u32,
    /// Resting pairs (within the tolerance at `t = 0`): contacts at `0` or listed apart
    /// ([`Resting`]).
    pub resting: Resting,
}

impl Default for SceneOptions {
    fn default() -> Self {
        Self {
            la: LaOptions::default(),
            layer_height: 3,
            leaf_size: 8,
            self_collision: true,
            normal_cones: true,
            kernel: Kernel::LocalAdvancement,
            moving_bounds: true,
            parallel: false,
            serial_work: DEFAULT_SERIAL_WORK,
            split_grain: DEFAULT_SPLIT_GRAIN,
            resting: Resting::Contact,
        }
    }
}

impl SceneOptions {
    /// The same options with other elementary-query settings ([`SceneOptions::la`]).
    #[must_use]
    pub fn with_la(mut self, la: LaOptions) -> Self {
        self.la = la;
        self
    }

    /// The same options with another lower-layer height ([`SceneOptions::layer_height`]).
    #[must_use]
    pub fn with_layer_height(mut self, layer_height: u32) -> Self {
        self.layer_height = layer_height;
        self
    }

    /// The same options with another leaf size ([`SceneOptions::leaf_size`]; checked by [`DeformingScene::new`]).
    #[must_use]
    pub fn with_leaf_size(mut self, leaf_size: u32) -> Self {
        self.leaf_size = leaf_size;
        self
    }

    /// The same options with self-collision on or off ([`SceneOptions::self_collision`]).
    #[must_use]
    pub fn with_self_collision(mut self, self_collision: bool) -> Self {
        self.self_collision = self_collision;
        self
    }

    /// The same options with self-collision culling on or off ([`SceneOptions::normal_cones`]).
    #[must_use]
    pub fn with_normal_cones(mut self, normal_cones: bool) -> Self {
        self.normal_cones = normal_cones;
        self
    }

    /// The same options with another elementary test ([`SceneOptions::kernel`]).
    #[must_use]
    pub fn with_kernel(mut self, kernel: Kernel) -> Self {
        self.kernel = kernel;
        self
    }

    /// The same options with moving-volume culling on or off ([`SceneOptions::moving_bounds`]).
    #[must_use]
    pub fn with_moving_bounds(mut self, moving_bounds: bool) -> Self {
        self.moving_bounds = moving_bounds;
        self
    }

    /// The same options with the rayon traversal on or off ([`SceneOptions::parallel`]).
    #[must_use]
    pub fn with_parallel(mut self, parallel: bool) -> Self {
        self.parallel = parallel;
        self
    }

    /// The same options with other thresholds of the parallel query
    /// ([`SceneOptions::serial_work`], [`SceneOptions::split_grain`]).
    ///
    /// # Example
    /// ```
    /// use ccd_la_deformable::scene::SceneOptions;
    ///
    /// // split every query at once, down to single leaves (for testing the split)
    /// let opts = SceneOptions::default().with_parallel(true).with_parallel_thresholds(0, 1);
    /// assert_eq!((opts.serial_work, opts.split_grain), (0, 1));
    /// ```
    #[must_use]
    pub fn with_parallel_thresholds(mut self, serial_work: u32, split_grain: u32) -> Self {
        self.serial_work = serial_work;
        self.split_grain = split_grain;
        self
    }

    /// The same options with another treatment of resting pairs ([`SceneOptions::resting`]).
    #[must_use]
    pub fn with_resting(mut self, resting: Resting) -> Self {
        self.resting = resting;
        self
    }

    /// The same options with tolerance `ε` for the elementary queries (shorthand for
    /// `with_la(self.la.with_tolerance(tolerance))`).
    #[must_use]
    pub fn with_tolerance(mut self, tolerance: f64) -> Self {
        self.la.tolerance = tolerance;
        self
    }

    /// The same options with another iteration cap for the elementary queries.
    #[must_use]
    pub fn with_max_iterations(mut self, max_iterations: u32) -> Self {
        self.la.max_iterations = max_iterations;
        self
    }

    /// Checks the options.
    ///
    /// # Errors
    /// [`LaError::InvalidTolerance`], [`LaError::NoIterations`] or
    /// [`LaError::InvalidOption`] (leaf size outside `1..=`[`MAX_LEAF_SIZE`]).
    pub fn validate(&self) -> Result<(), LaError> {
        self.la.validate()?;
        if self.leaf_size == 0 || self.leaf_size > MAX_LEAF_SIZE {
            return Err(LaError::InvalidOption(format!(
                "leaf_size must be in 1..={MAX_LEAF_SIZE}, not {}",
                self.leaf_size
            )));
        }
        Ok(())
    }
}

/// What a scene query found.
#[derive(Debug, Clone, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct SceneResult {
    /// [`Mode::Toc`] and [`Mode::Boolean`]: at most one contact (the first in time for
    /// `Toc`, any for `Boolean`); [`Mode::All`]: every colliding feature pair with its
    /// own ToC, sorted by ToC.
    pub contacts: Vec<SceneContact>,
    /// With [`Resting::Separate`]: the pairs within the tolerance at `t = 0`, with their
    /// distance and witnesses at `t = 0` ([`Status::InitiallyTouching`](crate::Status)),
    /// sorted by distance. Complete in [`Mode::All`] and [`Mode::Toc`] except inside
    /// self-collision patches skipped by [`SceneOptions::normal_cones`] (which cannot touch
    /// during the step); [`Mode::Boolean`] stops at its first contact. Empty with
    /// [`Resting::Contact`].
    pub resting: Vec<SceneContact>,
    /// Counters.
    pub stats: SceneStats,
}

impl SceneResult {
    /// The earliest ToC found, `None` when nothing collides in `[0, 1]`.
    #[must_use]
    pub fn toc(&self) -> Option<f64> {
        self.contacts.iter().map(|c| c.toc).reduce(f64::min)
    }
}

/// Deforming meshes with their hybrid BVHs, ready for repeated queries.
///
/// # Example
/// ```
/// use ccd_geometry::glam::DVec3;
/// use ccd_la_deformable::{DeformingMesh, Mode};
/// use ccd_la_deformable::scene::{DeformingScene, SceneOptions};
///
/// // a triangle falling by 2 onto a static one 1 below it: contact at t = 0.5
/// let tri = vec![DVec3::ZERO, DVec3::X, DVec3::Y];
/// let ground = DeformingMesh::new(vec![[0, 1, 2]], tri.clone(), tri.clone())?;
/// let up: Vec<DVec3> = tri.iter().map(|p| *p + DVec3::new(0.1, 0.1, 1.0)).collect();
/// let down: Vec<DVec3> = tri.iter().map(|p| *p + DVec3::new(0.1, 0.1, -1.0)).collect();
/// let falling = DeformingMesh::new(vec![[0, 1, 2]], up, down)?;
/// let scene = DeformingScene::new(vec![ground, falling], &SceneOptions::default())?;
/// let toc = scene.query(Mode::Toc).toc().unwrap();
/// assert!(toc <= 0.5 && toc > 0.5 - 1e-5);
/// # Ok::<(), ccd_la_deformable::LaError>(())
/// ```
#[derive(Debug, Clone)]
pub struct DeformingScene {
    meshes: Vec<DeformingMesh>,
    bvhs: Vec<HybridBvh>,
    options: SceneOptions,
    /// Bound on the rounding error of projected coordinates (scene scale × a few ulps).
    round_off: f64,
    /// BVH rebuilds done by [`DeformingScene::update`].
    rebuilds: u64,
    /// Per mesh: tested against itself ([`DeformingScene::set_self_collision`]).
    self_collision: Vec<bool>,
}

impl DeformingScene {
    /// Builds the hybrid BVH of every mesh. Every pair of meshes is tested against each
    /// other, and every mesh against itself when [`SceneOptions::self_collision`] is set
    /// (per mesh: [`DeformingScene::set_self_collision`]).
    ///
    /// # Errors
    /// Invalid options ([`SceneOptions::validate`]), more than `u32::MAX` meshes, or a
    /// single mesh without self-collision ([`LaError::InvalidOption`]: such a scene would
    /// test no pair at all; pass several objects as separate meshes).
    pub fn new(meshes: Vec<DeformingMesh>, options: &SceneOptions) -> Result<Self, LaError> {
        options.validate()?;
        if u32::try_from(meshes.len()).is_err() {
            return Err(LaError::InvalidOption("more than u32::MAX meshes".into()));
        }
        if meshes.len() == 1 && !options.self_collision {
            return Err(LaError::InvalidOption(NOTHING_TESTED.into()));
        }
        let bvhs = meshes
            .iter()
            .map(|m| {
                HybridBvh::build(
                    m,
                    options.leaf_size,
                    options.la.tolerance,
                    options.normal_cones,
                )
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut scene = Self {
            meshes,
            bvhs,
            options: *options,
            round_off: 0.0,
            rebuilds: 0,
            self_collision: Vec::new(),
        };
        scene.self_collision = vec![options.self_collision; scene.meshes.len()];
        scene.round_off = round_off(&scene.meshes);
        Ok(scene)
    }

    /// Gives mesh `mesh` a new frame pair (same topology) and refits its BVH; the BVH of a
    /// mesh of several pieces is rebuilt instead once they have drifted far from where they
    /// were at the last build ([`REBUILD_DRIFT`]): a refitted tree keeps its old grouping of
    /// the pieces, which stops matching the geometry once they have moved far apart.
    ///
    /// # Errors
    /// [`LaError::InvalidOption`] for a bad mesh index, or what
    /// [`DeformingMesh::set_positions`] reports.
    pub fn update(&mut self, mesh: usize, x0: Vec<DVec3>, x1: Vec<DVec3>) -> Result<(), LaError> {
        let m = self
            .meshes
            .get_mut(mesh)
            .ok_or_else(|| LaError::InvalidOption(format!("no mesh {mesh} in the scene")))?;
        m.set_positions(x0, x1)?;
        let tol = self.options.la.tolerance;
        let h = &mut self.bvhs[mesh];
        if h.pieces > 1 && h.drift(&self.meshes[mesh]) > REBUILD_DRIFT {
            *h = HybridBvh::build(
                &self.meshes[mesh],
                self.options.leaf_size,
                tol,
                self.options.normal_cones,
            )?;
            self.rebuilds += 1;
        } else {
            h.refit(&self.meshes[mesh], tol);
        }
        self.round_off = round_off(&self.meshes);
        Ok(())
    }

    /// How many times [`DeformingScene::update`] rebuilt a BVH instead of refitting it.
    #[inline]
    #[must_use]
    pub fn rebuilds(&self) -> u64 {
        self.rebuilds
    }

    /// The meshes.
    #[inline]
    #[must_use]
    pub fn meshes(&self) -> &[DeformingMesh] {
        &self.meshes
    }

    /// The options the scene was built with.
    #[inline]
    #[must_use]
    pub fn options(&self) -> &SceneOptions {
        &self.options
    }

    /// Runs the query: every mesh pair, and every mesh against itself when
    /// [`SceneOptions::self_collision`] is set.
    #[must_use]
    pub fn query(&self, output: Mode) -> SceneResult {
        traverse::run(self, output)
    }

    /// The separation-preserving step size: the largest `t ∈ [0, 1]` (up to the rule's
    /// stopping tolerance, always on the safe side) such that every vertex–face and
    /// edge–edge pair this scene tests (the same pairs as [`DeformingScene::query`]) stays at distance
    /// `≥ τ(d₀)` on `[0, t]`, with `τ` the rule of [`SeparationOptions`]
    /// (`max(δ_min, s·d₀)`). The answer is conservative: no pair is ever closer than its `τ`
    /// at any time in `[0, step]`; it is at most a relative `rel_tolerance` of the pair's
    /// allowed approach short of the exact largest step (or shorter when a pair hits the
    /// iteration cap, counted in [`SceneStats::capped`]). Runs serially. For one mesh seen
    /// once, [`separation_step`] answers the same question without building a scene.
    ///
    /// # Errors
    /// [`SeparationOptions::validate`].
    ///
    /// # Example
    /// ```
    /// use ccd_geometry::glam::DVec3;
    /// use ccd_la_deformable::DeformingMesh;
    /// use ccd_la_deformable::scene::{DeformingScene, SceneOptions, SeparationOptions};
    ///
    /// // a triangle 1 above a static one falls by 2: with s = 0.2 it may come down to 0.2,
    /// // which it reaches at t = 0.4
    /// let tri = vec![DVec3::ZERO, DVec3::X, DVec3::Y];
    /// let ground = DeformingMesh::new(vec![[0, 1, 2]], tri.clone(), tri.clone())?;
    /// let up: Vec<DVec3> = tri.iter().map(|p| *p + DVec3::new(0.1, 0.1, 1.0)).collect();
    /// let down: Vec<DVec3> = tri.iter().map(|p| *p + DVec3::new(0.1, 0.1, -1.0)).collect();
    /// let falling = DeformingMesh::new(vec![[0, 1, 2]], up, down)?;
    /// let scene = DeformingScene::new(vec![ground, falling], &SceneOptions::default())?;
    /// let step = scene.separation_step(&SeparationOptions::default())?;
    /// assert!(step.step <= 0.4 && step.step > 0.399);
    /// assert_eq!(step.limiting.unwrap().target, 0.2);
    /// # Ok::<(), ccd_la_deformable::LaError>(())
    /// ```
    pub fn separation_step(&self, rule: &SeparationOptions) -> Result<SeparationStep, LaError> {
        rule.validate()?;
        Ok(separation::run(self, rule))
    }

    /// Whether mesh `mesh` is tested against itself.
    pub(crate) fn self_collides(&self, mesh: usize) -> bool {
        self.self_collision.get(mesh).copied().unwrap_or(false)
    }

    /// Turns self-collision of mesh `mesh` on or off (the default is
    /// [`SceneOptions::self_collision`]); pairs of different meshes are always tested.
    ///
    /// # Errors
    /// [`LaError::InvalidOption`] for a bad mesh index, or for turning off the only mesh of
    /// a one-mesh scene (nothing would be tested).
    ///
    /// # Example
    /// ```
    /// use ccd_geometry::glam::DVec3;
    /// use ccd_la_deformable::{DeformingMesh, Mode};
    /// use ccd_la_deformable::scene::{DeformingScene, SceneOptions};
    ///
    /// let tri = vec![DVec3::ZERO, DVec3::X, DVec3::Y];
    /// let a = DeformingMesh::new(vec![[0, 1, 2]], tri.clone(), tri.clone())?;
    /// let moved: Vec<DVec3> = tri.iter().map(|p| *p + DVec3::Z).collect();
    /// let b = DeformingMesh::new(vec![[0, 1, 2]], moved.clone(), moved)?;
    /// let mut scene = DeformingScene::new(vec![a.clone(), b], &SceneOptions::default())?;
    /// scene.set_self_collision(1, false)?; // a rigid-like body: no self pairs
    /// assert!(scene.query(Mode::Toc).toc().is_none());
    /// let mut alone = DeformingScene::new(vec![a], &SceneOptions::default())?;
    /// assert!(alone.set_self_collision(0, false).is_err());
    /// # Ok::<(), ccd_la_deformable::LaError>(())
    /// ```
    pub fn set_self_collision(&mut self, mesh: usize, on: bool) -> Result<(), LaError> {
        if mesh >= self.meshes.len() {
            return Err(LaError::InvalidOption(format!(
                "no mesh {mesh} in the scene"
            )));
        }
        if !on && self.meshes.len() == 1 {
            return Err(LaError::InvalidOption(NOTHING_TESTED.into()));
        }
        self.self_collision[mesh] = on;
        Ok(())
    }

    /// Per mesh: whether it is tested against itself.
    #[must_use]
    pub fn self_collision(&self) -> &[bool] {
        &self.self_collision
    }

    /// Whether meshes `a` and `b` (`a != b`) are tested against each other.
    pub(crate) fn pair_collides(&self, _a: u32, _b: u32) -> bool {
        true
    }
}

#[cfg(feature = "serde")]
fn default_serial_work() -> u32 {
    DEFAULT_SERIAL_WORK
}

#[cfg(feature = "serde")]
fn default_split_grain() -> u32 {
    DEFAULT_SPLIT_GRAIN
}

const NOTHING_TESTED: &str = "self_collision is off and the scene has a single mesh: no pair would be tested (pass the objects as separate meshes, or keep self-collision on)";

/// Bound on the rounding error of the projected (18-DOP) coordinates of a scene: a few ulps of
/// twice the largest coordinate magnitude.
fn round_off(meshes: &[DeformingMesh]) -> f64 {
    let m = meshes
        .iter()
        .map(DeformingMesh::max_abs_coordinate)
        .fold(0.0f64, f64::max);
    64.0 * f64::EPSILON * m
}

/// A contact record from an elementary result (vertex or edge side first): the witness
/// points and normal are the elementary query's, at its `toc`, in world coordinates.
fn contact(
    mesh_a: u32,
    feature_a: Feature,
    mesh_b: u32,
    feature_b: Feature,
    p: &PrimitiveToc,
) -> SceneContact {
    SceneContact {
        toc: p.toc,
        mesh_a,
        feature_a,
        mesh_b,
        feature_b,
        point_a: p.closest.point_a,
        point_b: p.closest.point_b,
        normal: p.normal,
        distance: p.distance,
        status: p.status,
    }
}

/// Sorts contacts by time, then features (a canonical order for comparisons).
fn sort_contacts(c: &mut [SceneContact]) {
    c.sort_by(|x, y| {
        x.toc
            .total_cmp(&y.toc)
            .then_with(|| (x.mesh_a, x.mesh_b).cmp(&(y.mesh_a, y.mesh_b)))
            .then_with(|| feature_key(x.feature_a).cmp(&feature_key(y.feature_a)))
            .then_with(|| feature_key(x.feature_b).cmp(&feature_key(y.feature_b)))
    });
}

/// Sorts resting pairs by distance, then features.
fn sort_resting(c: &mut [SceneContact]) {
    c.sort_by(|x, y| {
        x.distance
            .total_cmp(&y.distance)
            .then_with(|| (x.mesh_a, x.mesh_b).cmp(&(y.mesh_a, y.mesh_b)))
            .then_with(|| feature_key(x.feature_a).cmp(&feature_key(y.feature_a)))
            .then_with(|| feature_key(x.feature_b).cmp(&feature_key(y.feature_b)))
    });
}

fn feature_key(f: Feature) -> (u8, u32, u32) {
    match f {
        Feature::Vertex(v) => (0, v, 0),
        Feature::Edge(a, b) => (1, a, b),
        Feature::Face(t) => (2, t, 0),
    }
}
