//! The scene traversal: node pairs of the hybrid BVHs, triangle pairs in leaves, and the
//! owned vertex–face / edge–edge tests.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

use ccd_geometry::Feature;
use ccd_geometry::glam::DVec3;

use super::cone::Scratch;
use super::hybrid::{Box32, HybridBvh};
use super::{DeformingScene, Kernel, Resting, SceneOptions, SceneResult, contact, sort_contacts};
use crate::kernels::moving_bv::{
    aabb_toc_unchecked, kdop_margin, kdop_overlap, kdop_toc_unchecked,
};
use crate::{Mode, PrimitiveToc, SceneContact, SceneStats, Status};
use ccd_geometry::Aabb;

/// A unit of traversal work.
#[derive(Debug, Clone, Copy)]
pub(super) enum Task {
    /// A node against itself (self-collision).
    Within { mesh: u32, node: u32 },
    /// Two nodes whose volumes passed their test.
    Pair { ma: u32, na: u32, mb: u32, nb: u32 },
}

/// Runs the elementary vertex–face test: `x0`/`x1` = (vertex, face 0, face 1, face 2).
#[inline]
pub(super) fn vertex_face(
    kernel: Kernel,
    x0: &[DVec3; 4],
    x1: &[DVec3; 4],
    t_max: f64,
    opts: &SceneOptions,
) -> Option<PrimitiveToc> {
    vertex_face_tol(kernel, x0, x1, t_max, opts.la.tolerance, opts)
}

/// [`vertex_face`] with another tolerance.
#[inline]
fn vertex_face_tol(
    kernel: Kernel,
    x0: &[DVec3; 4],
    x1: &[DVec3; 4],
    t_max: f64,
    tolerance: f64,
    opts: &SceneOptions,
) -> Option<PrimitiveToc> {
    match kernel {
        Kernel::LocalAdvancement => {
            crate::kernels::vertex_face_until(x0, x1, t_max, tolerance, opts.la.max_iterations)
        }
        Kernel::CubicBaseline => crate::baseline::vertex_face_cubic_until(
            x0,
            x1,
            t_max,
            tolerance,
            opts.la.max_iterations,
        ),
    }
}

/// Splits an elementary answer under [`Resting::Separate`]: a pair within the tolerance
/// at `t = 0` becomes `(its own later contact, the resting record)`, the later contact tested
/// again with tolerance `d₀ / 2` up to `t_max` (none when `d₀ = 0`: it cannot come closer);
/// anything else is `(p, None)`.
#[inline]
pub(super) fn split_resting(
    p: Option<PrimitiveToc>,
    opts: &SceneOptions,
    rerun: impl FnOnce(f64) -> Option<PrimitiveToc>,
) -> (Option<PrimitiveToc>, Option<PrimitiveToc>) {
    match p {
        Some(p) if opts.resting == Resting::Separate && p.status == Status::InitiallyTouching => {
            let later = if p.distance > 0.0 {
                rerun(0.5 * p.distance)
            } else {
                None
            };
            (later, Some(p))
        }
        p => (p, None),
    }
}

/// Runs the vertex–face test with the scene's treatment of resting pairs
/// ([`split_resting`]).
#[inline]
pub(super) fn vertex_face_resting(
    kernel: Kernel,
    x0: &[DVec3; 4],
    x1: &[DVec3; 4],
    t_max: f64,
    opts: &SceneOptions,
) -> (Option<PrimitiveToc>, Option<PrimitiveToc>) {
    split_resting(vertex_face(kernel, x0, x1, t_max, opts), opts, |tol| {
        vertex_face_tol(kernel, x0, x1, t_max, tol, opts)
    })
}

/// Runs the edge–edge test with the scene's treatment of resting pairs
/// ([`split_resting`]).
#[inline]
pub(super) fn edge_edge_resting(
    kernel: Kernel,
    x0: &[DVec3; 4],
    x1: &[DVec3; 4],
    t_max: f64,
    opts: &SceneOptions,
) -> (Option<PrimitiveToc>, Option<PrimitiveToc>) {
    split_resting(edge_edge(kernel, x0, x1, t_max, opts), opts, |tol| {
        edge_edge_tol(kernel, x0, x1, t_max, tol, opts)
    })
}

/// Runs the elementary edge–edge test: `x0`/`x1` = (a0, a1, b0, b1).
#[inline]
pub(super) fn edge_edge(
    kernel: Kernel,
    x0: &[DVec3; 4],
    x1: &[DVec3; 4],
    t_max: f64,
    opts: &SceneOptions,
) -> Option<PrimitiveToc> {
    edge_edge_tol(kernel, x0, x1, t_max, opts.la.tolerance, opts)
}

/// [`edge_edge`] with another tolerance.
#[inline]
fn edge_edge_tol(
    kernel: Kernel,
    x0: &[DVec3; 4],
    x1: &[DVec3; 4],
    t_max: f64,
    tolerance: f64,
    opts: &SceneOptions,
) -> Option<PrimitiveToc> {
    match kernel {
        Kernel::LocalAdvancement => {
            crate::kernels::edge_edge_until(x0, x1, t_max, tolerance, opts.la.max_iterations)
        }
        Kernel::CubicBaseline => {
            crate::baseline::edge_edge_cubic_until(x0, x1, t_max, tolerance, opts.la.max_iterations)
        }
    }
}

/// Traversal state of one query (or of one parallel worker).
pub(super) struct Walker<'a> {
    scene: &'a DeformingScene,
    output: Mode,
    /// Upper bound of interest: the best ToC so far (`Toc`), else 1.
    best: f64,
    contacts: Vec<SceneContact>,
    /// Resting pairs ([`Resting::Separate`]).
    resting: Vec<SceneContact>,
    stats: SceneStats,
    stack: Vec<Task>,
    bv_margin: [f64; 9],
    box_margin: f64,
    done: bool,
    /// State shared with other workers of a parallel query.
    shared: Option<&'a Shared>,
    /// Tasks run since the last look at `shared`.
    since_sync: u32,
    /// Scratch list of candidate feature pairs (item indices), room for 64 × 64.
    cand: Vec<[u32; 2]>,
    /// Scratch space of the contour tests.
    cone_scratch: Scratch,
}

/// What the workers of a parallel query share: the best global ToC so far (non-negative
/// `f64` bit patterns order like the floats, so `fetch_min` on the bits is a float min), a
/// stop flag (a `Boolean` contact, or a global ToC of 0), and the hand-off of tasks.
///
/// Work moves by *donation*: a worker that runs out of tasks becomes hungry and waits on
/// `mailbox`; a busy worker, seeing `hungry > 0` between two tasks, moves one task of its
/// stack into the mailbox. Which one depends on the mode:
/// - `All` and `Boolean`: the bottom task (the last in the serial order, usually the largest
///   subtree left). The worker that started the query (the *owner*) keeps running its own
///   stack from the top, in the serial order, and only gives away the tail of that order:
///   it does a subset of the serial traversal's work in the serial order, under a bound at
///   least as tight, and reaches the pair that ends a `Boolean` query no later than the
///   serial traversal would; a helper searching from the other end may end it sooner.
/// - `Toc`: the next task of the serial order that is at least the grain. The serial
///   traversal prunes its tail with the bound it finds at its front, so a helper given the
///   tail works under a bound the owner has not found yet and its work is mostly wasted
///   (the real cloth-ball frame: the helper doubled the node tests and saved the owner 11
///   of 254,729 work units); next to the owner, it works under the current bound, and the
///   owner skips that task. The owner may then run a few tasks under a bound looser than
///   the serial traversal's (until it reads the helper's finding), so its work is no
///   longer a subset of the serial work; the answer is the same (see `parallel`).
#[derive(Debug)]
pub(super) struct Shared {
    pub(super) best: AtomicU64,
    pub(super) stop: AtomicBool,
    /// Workers waiting for a task, on a cache line of its own: every worker reads it between
    /// two tasks, and the ToC bound beside it changes often.
    pub(super) hungry: Padded<AtomicUsize>,
    /// The number of tasks in the mailbox (written under its lock), on another line: a busy
    /// worker donates while `hungry > queued`.
    pub(super) queued: Padded<AtomicUsize>,
    /// Donated tasks, and the workers' membership (changed under this lock only).
    pub(super) mailbox: Mutex<Mailbox>,
    /// Signals a donation, a stop or the end of the work to hungry workers.
    pub(super) wake: Condvar,
    /// [`Mailbox::posted`], for hungry workers to spin on without the lock.
    pub(super) posted: Padded<AtomicUsize>,
    /// A task whose nodes hold fewer triangles (both together) is not donated
    /// ([`SceneOptions::split_grain`]).
    pub(super) grain: u32,
}

/// A value alone on its cache lines (two 64-byte lines: adjacent-line prefetch pairs them),
/// so that writes to its neighbours do not evict it from other cores' caches.
#[derive(Debug, Default)]
#[repr(align(128))]
pub(super) struct Padded<T>(pub(super) T);

impl<T> std::ops::Deref for Padded<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

/// The tasks given away and who takes part.
#[derive(Debug, Default)]
pub(super) struct Mailbox {
    pub(super) tasks: Vec<Task>,
    /// Workers that have joined the query (a helper that starts after the end joins none).
    pub(super) joined: usize,
    /// All joined workers were hungry with no task left: the query is over.
    pub(super) closed: bool,
    /// Tasks donated so far.
    pub(super) posted: usize,
}

impl Shared {
    #[cfg_attr(not(feature = "parallel"), allow(dead_code))]
    pub(super) fn new(best: f64, stop: bool, grain: u32) -> Self {
        Self {
            best: AtomicU64::new(best.to_bits()),
            stop: AtomicBool::new(stop),
            hungry: Padded(AtomicUsize::new(0)),
            queued: Padded(AtomicUsize::new(0)),
            mailbox: Mutex::new(Mailbox {
                joined: 1,
                ..Mailbox::default()
            }),
            wake: Condvar::new(),
            posted: Padded(AtomicUsize::new(0)),
            grain,
        }
    }

    pub(super) fn lock(&self) -> MutexGuard<'_, Mailbox> {
        // the lock guards plain data that no panic leaves half-changed
        self.mailbox.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Joins a helper to the query; `false` when the query is already over.
    #[cfg_attr(not(feature = "parallel"), allow(dead_code))]
    pub(super) fn join(&self) -> bool {
        let mut mb = self.lock();
        if mb.closed || self.stop.load(Ordering::Relaxed) {
            return false;
        }
        mb.joined += 1;
        true
    }
}

/// Takes a worker out of a parallel query when dropped: the others stop counting on it.
struct Leave<'a>(&'a Shared);

impl Drop for Leave<'_> {
    fn drop(&mut self) {
        let mut mb = self.0.lock();
        mb.joined = mb.joined.saturating_sub(1);
        self.0.wake.notify_all();
    }
}

/// Rounds a hungry worker spins (looking for a donation) before it sleeps: about ten
/// microseconds. Ten times as many cost n-body's queries a fifth more CPU under load
/// (docs/deformable.md, "Parallel").
const SPIN: u32 = 500;

/// Triangles under a task's nodes.
fn task_size(scene: &DeformingScene, t: &Task) -> u32 {
    let count = |m: u32, n: u32| scene.bvhs[m as usize].bvh.node(n).primitive_count();
    match *t {
        Task::Within { mesh, node } => count(mesh, node),
        Task::Pair { ma, na, mb, nb } => count(ma, na) + count(mb, nb),
    }
}

impl<'a> Walker<'a> {
    pub(super) fn new(scene: &'a DeformingScene, output: Mode) -> Self {
        let mut w = Self::new_bare(scene, output);
        w.cand = vec![[0, 0]; 64 * 64];
        w
    }

    /// A walker without its candidate buffer (to be given one).
    fn new_bare(scene: &'a DeformingScene, output: Mode) -> Self {
        let margin = scene.options.la.tolerance + scene.round_off;
        Self {
            scene,
            output,
            best: 1.0,
            contacts: Vec::new(),
            resting: Vec::new(),
            stats: SceneStats::default(),
            stack: Vec::with_capacity(128),
            bv_margin: kdop_margin(margin),
            box_margin: margin,
            done: false,
            shared: None,
            since_sync: 0,
            cand: Vec::new(),
            cone_scratch: Scratch::default(),
        }
    }

    /// This walker as a worker of a parallel query sharing `shared`.
    #[cfg_attr(not(feature = "parallel"), allow(dead_code))]
    pub(super) fn with_shared(mut self, shared: &'a Shared) -> Self {
        self.shared = Some(shared);
        self.sync();
        self
    }

    /// Takes the other workers' best ToC and stop flag.
    #[inline]
    fn sync(&mut self) {
        self.since_sync = 0;
        if let Some(sh) = self.shared {
            if sh.stop.load(Ordering::Relaxed) {
                self.done = true;
            }
            self.tighten(f64::from_bits(sh.best.load(Ordering::Relaxed)));
        }
    }

    /// The root tasks of the scene: every mesh pair and every mesh against itself.
    pub(super) fn roots(&mut self) -> Vec<Task> {
        let n = self.scene.meshes.len() as u32;
        let mut roots = Vec::new();
        for ma in 0..n {
            if self.scene.meshes[ma as usize].triangle_count() == 0 {
                continue;
            }
            if self.scene.self_collides(ma as usize) {
                roots.push(Task::Within { mesh: ma, node: 0 });
            }
            for mb in ma + 1..n {
                if self.scene.meshes[mb as usize].triangle_count() == 0
                    || !self.scene.pair_collides(ma, mb)
                {
                    continue;
                }
                if self.node_toc(ma, 0, mb, 0).is_some() {
                    roots.push(Task::Pair {
                        ma,
                        na: 0,
                        mb,
                        nb: 0,
                    });
                }
            }
        }
        roots
    }

    /// Lower bound on the ToC of two nodes' contents, `None` when they cannot touch before
    /// `best`.
    #[inline]
    fn node_toc(&mut self, ma: u32, na: u32, mb: u32, nb: u32) -> Option<f64> {
        self.stats.bv_tests += 1;
        let (a, b) = (&self.scene.bvhs[ma as usize], &self.scene.bvhs[mb as usize]);
        let h = self.scene.options.layer_height;
        // the swept k-DOPs first (18 compares): the moving test only runs on pairs they keep
        let swept = kdop_overlap(a.bvh.node(na).bv(), b.bvh.node(nb).bv(), &self.bv_margin);
        let r = if !swept {
            None
        } else if self.scene.options.moving_bounds
            && a.height[na as usize] <= h
            && b.height[nb as usize] <= h
        {
            let (pa, pb) = (&a.pair[na as usize], &b.pair[nb as usize]);
            kdop_toc_unchecked(&pa[0], &pa[1], &pb[0], &pb[1], &self.bv_margin, self.best)
        } else {
            Some(0.0)
        };
        if r.is_none() {
            self.stats.culled_bv_pairs += 1;
        }
        r
    }

    /// The work done so far, in the units of [`SceneOptions::serial_work`]
    /// ([`work_units`]).
    ///
    /// [`SceneOptions::serial_work`]: super::SceneOptions::serial_work
    fn work(&self) -> u64 {
        work_units(&self.stats)
    }

    /// Runs `roots` in the serial order until `budget` units of work are done (looked at
    /// after every task); returns the tasks left (independent subtrees), empty when the query
    /// is complete. The split point depends on the scene alone, not on timing.
    #[cfg_attr(not(feature = "parallel"), allow(dead_code))]
    pub(super) fn run_budget(&mut self, roots: Vec<Task>, budget: u64) -> Vec<Task> {
        self.stack.extend(roots.into_iter().rev());
        let start = self.work();
        // bounded by the query's work: every task is popped once
        while budget > 0
            && let Some(task) = self.stack.pop()
        {
            if self.done {
                self.stack.clear();
                break;
            }
            match task {
                Task::Within { mesh, node } => self.within(mesh, node),
                Task::Pair { ma, na, mb, nb } => self.pair(ma, na, mb, nb),
            }
            if self.work() - start >= budget {
                break;
            }
        }
        // the stack pops from the end: hand the tasks over in the serial order
        let mut rest = std::mem::take(&mut self.stack);
        rest.reverse();
        rest
    }

    /// Runs `task` and everything below it.
    pub(super) fn run_task(&mut self, task: Task) {
        self.stack.push(task);
        while let Some(task) = self.stack.pop() {
            self.since_sync += 1;
            if self.since_sync >= 64 {
                self.sync();
            }
            if self.done {
                self.stack.clear();
                return;
            }
            match task {
                Task::Within { mesh, node } => self.within(mesh, node),
                Task::Pair { ma, na, mb, nb } => self.pair(ma, na, mb, nb),
            }
        }
    }

    /// The loop of a worker of a parallel query: runs its stack from the top (the owner's
    /// holds the tasks left after the serial start, in the serial order), donates a task to
    /// hungry workers between tasks (`donate`), and when its stack is empty waits for a
    /// donation; returns when every joined worker is out of work, or at a stop.
    #[cfg_attr(not(feature = "parallel"), allow(dead_code))]
    pub(super) fn work_shared(&mut self) {
        let Some(sh) = self.shared else {
            while let Some(task) = self.stack.pop() {
                self.run_one(task);
            }
            return;
        };
        // leaving (also by a panic) wakes the hungry, who then need not wait for this one
        let _leave = Leave(sh);
        // every round takes a task from the mailbox, and every task is taken once: bounded
        // by the query's tasks
        loop {
            while let Some(task) = self.stack.pop() {
                self.since_sync += 1;
                if self.since_sync >= 64 {
                    self.sync();
                }
                if self.done {
                    self.stack.clear();
                    break;
                }
                if sh.hungry.load(Ordering::Relaxed) > sh.queued.load(Ordering::Relaxed) {
                    self.donate(sh);
                }
                self.run_one(task);
            }
            if self.done {
                sh.stop.store(true, Ordering::Relaxed);
                let _mb = sh.lock();
                sh.wake.notify_all();
                return;
            }
            if !self.wait_for_task(sh) {
                return;
            }
        }
    }

    #[inline]
    fn run_one(&mut self, task: Task) {
        match task {
            Task::Within { mesh, node } => self.within(mesh, node),
            Task::Pair { ma, na, mb, nb } => self.pair(ma, na, mb, nb),
        }
    }

    /// Moves a task of the stack to the mailbox (the next one of at least the grain in
    /// `Toc`, else the bottom one: see [`Shared`]) when a worker is hungry and no task
    /// waits there for it.
    fn donate(&mut self, sh: &Shared) {
        let scene = self.scene;
        let idx = if self.output == Mode::Toc {
            // the next task of the serial order that is large enough: both workers stay at
            // the front, where the bound that prunes the rest is found (see [`Shared`])
            match self
                .stack
                .iter()
                .rposition(|t| task_size(scene, t) >= sh.grain)
            {
                Some(i) => i,
                None => return,
            }
        } else if self
            .stack
            .first()
            .is_some_and(|t| task_size(scene, t) >= sh.grain)
        {
            // the bottom task: the last in the serial order (see [`Shared`])
            0
        } else {
            return;
        };
        let mut mb = sh.lock();
        if mb.tasks.len() < sh.hungry.load(Ordering::Relaxed) {
            mb.tasks.push(self.stack.remove(idx));
            sh.queued.store(mb.tasks.len(), Ordering::Relaxed);
            mb.posted += 1;
            sh.posted.store(mb.posted, Ordering::Relaxed);
            sh.wake.notify_one();
        }
    }

    /// Waits for a donated task (pushed onto the stack: `true`); `false` at a stop, or
    /// when every joined worker is hungry and no task is left (the query is over).
    fn wait_for_task(&mut self, sh: &Shared) -> bool {
        let posted = {
            let mb = sh.lock();
            sh.hungry.fetch_add(1, Ordering::Relaxed);
            mb.posted
        };
        // a short spin first: a busy worker donates between two of its tasks (microseconds),
        // sooner than a sleeping thread wakes up
        for _ in 0..SPIN {
            if sh.posted.load(Ordering::Relaxed) != posted || sh.stop.load(Ordering::Relaxed) {
                break;
            }
            std::hint::spin_loop();
        }
        let mut mb = sh.lock();
        // each wake-up is a donation, a stop, the end, or spurious; a worker waits only
        // while another joined worker is busy, whose work is finite
        let got = loop {
            if sh.stop.load(Ordering::Relaxed) || mb.closed {
                break false;
            }
            if let Some(t) = mb.tasks.pop() {
                sh.queued.store(mb.tasks.len(), Ordering::Relaxed);
                self.stack.push(t);
                break true;
            }
            if sh.hungry.load(Ordering::Relaxed) >= mb.joined {
                mb.closed = true;
                sh.wake.notify_all();
                break false;
            }
            mb = sh.wake.wait(mb).unwrap_or_else(PoisonError::into_inner);
        };
        sh.hungry.fetch_sub(1, Ordering::Relaxed);
        drop(mb);
        if got {
            self.sync();
        }
        got
    }

    fn within(&mut self, mesh: u32, node: u32) {
        let scene = self.scene;
        let hb = &scene.bvhs[mesh as usize];
        // a single leaf's features are cheaper to pair than to certify
        if scene.options.normal_cones
            && !hb.bvh.node(node).is_leaf()
            && hb.patches.certified(
                node as usize,
                &scene.meshes[mesh as usize],
                hb.bvh.node_primitives(node),
                &hb.pair[node as usize],
                self.box_margin,
                &mut self.cone_scratch,
            )
        {
            self.stats.certificate_items += std::mem::take(&mut self.cone_scratch.work);
            self.stats.patches_skipped += 1;
            return;
        }
        self.stats.certificate_items += std::mem::take(&mut self.cone_scratch.work);
        let bvh = &hb.bvh;
        match bvh.node(node).children() {
            None => self.within_leaf(mesh, node),
            Some([l, r]) => {
                if self.node_toc(mesh, l, mesh, r).is_some() {
                    self.stack.push(Task::Pair {
                        ma: mesh,
                        na: l,
                        mb: mesh,
                        nb: r,
                    });
                }
                self.stack.push(Task::Within { mesh, node: r });
                self.stack.push(Task::Within { mesh, node: l });
            }
        }
    }

    fn pair(&mut self, ma: u32, na: u32, mb: u32, nb: u32) {
        let (a, b) = (
            &self.scene.bvhs[ma as usize].bvh,
            &self.scene.bvhs[mb as usize].bvh,
        );
        let (node_a, node_b) = (a.node(na), b.node(nb));
        // (two leaves are cheaper to pair than to certify)
        if ma == mb
            && self.scene.options.normal_cones
            && !(node_a.is_leaf() && node_b.is_leaf())
            && self.scene.bvhs[ma as usize].patches.pair_certified(
                na as usize,
                nb as usize,
                &self.scene.meshes[ma as usize],
                self.box_margin,
                &mut self.cone_scratch,
            )
        {
            self.stats.certificate_items += std::mem::take(&mut self.cone_scratch.work);
            self.stats.patches_skipped += 1;
            return;
        }
        self.stats.certificate_items += std::mem::take(&mut self.cone_scratch.work);
        let split_a = match (node_a.children(), node_b.children()) {
            (None, None) => {
                self.leaf_pair(ma, na, mb, nb);
                return;
            }
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (Some(_), Some(_)) => node_a.primitive_count() >= node_b.primitive_count(),
        };
        let (c0, c1) = if split_a {
            let [l, r] = node_a.children().unwrap_or_default();
            ((ma, l, mb, nb), (ma, r, mb, nb))
        } else {
            let [l, r] = node_b.children().unwrap_or_default();
            ((ma, na, mb, l), (ma, na, mb, r))
        };
        let t0 = self.node_toc(c0.0, c0.1, c0.2, c0.3);
        let t1 = self.node_toc(c1.0, c1.1, c1.2, c1.3);
        let task = |c: (u32, u32, u32, u32)| Task::Pair {
            ma: c.0,
            na: c.1,
            mb: c.2,
            nb: c.3,
        };
        // the pair with the earlier bound is popped first
        match (t0, t1) {
            (Some(x), Some(y)) => {
                if x <= y {
                    self.stack.push(task(c1));
                    self.stack.push(task(c0));
                } else {
                    self.stack.push(task(c0));
                    self.stack.push(task(c1));
                }
            }
            (Some(_), None) => self.stack.push(task(c0)),
            (None, Some(_)) => self.stack.push(task(c1)),
            (None, None) => {}
        }
    }

    /// The features of one leaf against each other (self-collision): every owned vertex
    /// against every face, every pair of owned edges.
    fn within_leaf(&mut self, mesh: u32, node: u32) {
        if self.done {
            return;
        }
        let scene = self.scene;
        let h = &scene.bvhs[mesh as usize];
        let (fr, vr, er) = h.leaf_features(h.bvh.node(node).primitive_range());
        self.stats.leaf_pairs += 1;
        let mut cand = std::mem::take(&mut self.cand);
        let (mf, mv, me) = (low_bits(fr.len()), low_bits(vr.len()), low_bits(er.len()));
        let n = collect_vf(&mut cand, h, vr.start, mv, h, fr.start, mf, true);
        self.run_vf(mesh, mesh, &cand[..n]);
        let mut n = 0;
        for k in 0..er.len() {
            // edges after k only
            let later = me & !low_bits(k + 1);
            n = collect_ee(&mut cand, n, h, er.start + k, h, er.start, later, true);
        }
        self.run_ee(mesh, mesh, &cand[..n]);
        self.cand = cand;
    }

    /// Two leaves (of one mesh or of two): each side's features are first selected by the
    /// other leaf's box, then owned vertices of either side meet faces of the other and owned
    /// edges meet owned edges.
    fn leaf_pair(&mut self, ma: u32, na: u32, mb: u32, nb: u32) {
        if self.done {
            return;
        }
        let scene = self.scene;
        let (ha, hb) = (&scene.bvhs[ma as usize], &scene.bvhs[mb as usize]);
        let (box_a, box_b) = (&ha.node_box[na as usize], &hb.node_box[nb as usize]);
        let (fa, va, ea) = ha.leaf_features(ha.bvh.node(na).primitive_range());
        let (fb, vb, eb) = hb.leaf_features(hb.bvh.node(nb).primitive_range());
        self.stats.leaf_pairs += 1;
        let same = ma == mb;
        let m_fa = mask(&ha.face_box[fa.clone()], box_b);
        let m_va = mask(&ha.vert_box[va.clone()], box_b);
        let m_ea = mask(&ha.edge_box[ea.clone()], box_b);
        let m_fb = mask(&hb.face_box[fb.clone()], box_a);
        let m_vb = mask(&hb.vert_box[vb.clone()], box_a);
        let m_eb = mask(&hb.edge_box[eb.clone()], box_a);
        let mut cand = std::mem::take(&mut self.cand);
        let n = collect_vf(&mut cand, ha, va.start, m_va, hb, fb.start, m_fb, same);
        self.run_vf(ma, mb, &cand[..n]);
        let n = collect_vf(&mut cand, hb, vb.start, m_vb, ha, fa.start, m_fa, same);
        self.run_vf(mb, ma, &cand[..n]);
        let (mut n, mut m) = (0, m_ea);
        while m != 0 {
            let i = ea.start + m.trailing_zeros() as usize;
            m &= m - 1;
            n = collect_ee(&mut cand, n, ha, i, hb, eb.start, m_eb, same);
        }
        self.run_ee(ma, mb, &cand[..n]);
        self.cand = cand;
    }

    /// Runs the vertex–face candidates `(vertex item, face item)` of meshes `mv` / `mf`.
    fn run_vf(&mut self, mv: u32, mf: u32, cand: &[[u32; 2]]) {
        for &[v, f] in cand {
            if self.done {
                return;
            }
            self.vertex_face(mv, v as usize, mf, f as usize);
        }
    }

    /// Runs the edge–edge candidates `(edge item of ma, edge item of mb)`.
    fn run_ee(&mut self, ma: u32, mb: u32, cand: &[[u32; 2]]) {
        for &[i, j] in cand {
            if self.done {
                return;
            }
            self.edge_edge(ma, i as usize, mb, j as usize);
        }
    }

    /// Owned vertex `v` of mesh `mv` against face `f` of mesh `mf` (item indices, a
    /// [`collect_vf`] candidate): moving-box cull, then the elementary test.
    fn vertex_face(&mut self, mv: u32, v: usize, mf: u32, f: usize) {
        let scene = self.scene;
        let (hv, hf) = (&scene.bvhs[mv as usize], &scene.bvhs[mf as usize]);
        let (vi, fi) = (&hv.verts[v], &hf.faces[f]);
        let tri_box =
            |p: &[DVec3; 3]| Aabb::new(p[0].min(p[1]).min(p[2]), p[0].max(p[1]).max(p[2]));
        if scene.options.moving_bounds
            && aabb_toc_unchecked(
                &Aabb::new(vi.p0, vi.p0),
                &Aabb::new(vi.p1, vi.p1),
                &tri_box(&fi.p0),
                &tri_box(&fi.p1),
                self.box_margin,
                self.best,
            )
            .is_none()
        {
            self.stats.culled_bv_pairs += 1;
            return;
        }
        let x0 = [vi.p0, fi.p0[0], fi.p0[1], fi.p0[2]];
        let x1 = [vi.p1, fi.p1[0], fi.p1[1], fi.p1[2]];
        self.stats.primitive_tests += 1;
        let (hit, rest) =
            vertex_face_resting(scene.options.kernel, &x0, &x1, self.best, &scene.options);
        let (fa, fb) = (Feature::Vertex(vi.id), Feature::Face(fi.id));
        if let Some(r) = rest {
            self.resting.push(contact(mv, fa, mf, fb, &r));
        }
        if let Some(p) = hit {
            self.report(contact(mv, fa, mf, fb, &p));
        }
    }

    /// Owned edge `i` of mesh `ma` against owned edge `j` of mesh `mb` (item indices, a
    /// [`collect_ee`] candidate): moving-box cull, then the elementary test in a canonical
    /// point order.
    fn edge_edge(&mut self, ma: u32, i: usize, mb: u32, j: usize) {
        let scene = self.scene;
        let (ha, hb) = (&scene.bvhs[ma as usize], &scene.bvhs[mb as usize]);
        let (a, b) = (&ha.edges[i], &hb.edges[j]);
        let seg = |p: &[DVec3; 2]| Aabb::new(p[0].min(p[1]), p[0].max(p[1]));
        if scene.options.moving_bounds
            && aabb_toc_unchecked(
                &seg(&a.p0),
                &seg(&a.p1),
                &seg(&b.p0),
                &seg(&b.p1),
                self.box_margin,
                self.best,
            )
            .is_none()
        {
            self.stats.culled_bv_pairs += 1;
            return;
        }
        // canonical order (lower (mesh, edge) first; each edge low vertex first), so the
        // kernel sees the same points as in the brute-force reference
        let (ma, a, mb, b) = if (ma, a.ends) <= (mb, b.ends) {
            (ma, a, mb, b)
        } else {
            (mb, b, ma, a)
        };
        let x0 = [a.p0[0], a.p0[1], b.p0[0], b.p0[1]];
        let x1 = [a.p1[0], a.p1[1], b.p1[0], b.p1[1]];
        self.stats.primitive_tests += 1;
        let (hit, rest) =
            edge_edge_resting(scene.options.kernel, &x0, &x1, self.best, &scene.options);
        let (fa, fb) = (
            Feature::Edge(a.ends[0], a.ends[1]),
            Feature::Edge(b.ends[0], b.ends[1]),
        );
        if let Some(r) = rest {
            self.resting.push(contact(ma, fa, mb, fb, &r));
        }
        if let Some(p) = hit {
            self.report(contact(ma, fa, mb, fb, &p));
        }
    }

    fn report(&mut self, c: SceneContact) {
        if c.status == Status::OutOfIterations {
            self.stats.capped += 1;
        }
        match self.output {
            Mode::Toc => {
                if self.contacts.first().is_none_or(|best| c.toc < best.toc) {
                    self.best = c.toc;
                    self.contacts.clear();
                    self.contacts.push(c);
                    // nothing can come before t = 0
                    self.done = c.toc <= 0.0;
                }
            }
            Mode::All => self.contacts.push(c),
            Mode::Boolean => {
                self.contacts.push(c);
                self.done = true;
            }
        }
        if let Some(sh) = self.shared {
            if self.output == Mode::Toc {
                sh.best.fetch_min(self.best.to_bits(), Ordering::Relaxed);
            }
            if self.done {
                sh.stop.store(true, Ordering::Relaxed);
            }
        }
    }

    /// Lowers the bound of interest (from other workers' findings).
    #[cfg_attr(not(feature = "parallel"), allow(dead_code))]
    pub(super) fn tighten(&mut self, best: f64) {
        if best < self.best {
            self.best = best;
        }
    }

    #[cfg_attr(not(feature = "parallel"), allow(dead_code))]
    pub(super) fn best(&self) -> f64 {
        self.best
    }

    pub(super) fn finish(mut self) -> SceneResult {
        sort_contacts(&mut self.contacts);
        super::sort_resting(&mut self.resting);
        SceneResult {
            resting: self.resting,
            contacts: self.contacts,
            stats: self.stats,
        }
    }

    /// Hands over what this walker found so far (unsorted), keeping its scratch space.
    #[cfg_attr(not(feature = "parallel"), allow(dead_code))]
    pub(super) fn take_part(&mut self) -> SceneResult {
        SceneResult {
            contacts: std::mem::take(&mut self.contacts),
            resting: std::mem::take(&mut self.resting),
            stats: std::mem::take(&mut self.stats),
        }
    }

    /// Merges another worker's findings into this one.
    #[cfg_attr(not(feature = "parallel"), allow(dead_code))]
    pub(super) fn absorb(&mut self, other: SceneResult) {
        let s = &mut self.stats;
        s.bv_tests += other.stats.bv_tests;
        s.culled_bv_pairs += other.stats.culled_bv_pairs;
        s.leaf_pairs += other.stats.leaf_pairs;
        s.primitive_tests += other.stats.primitive_tests;
        s.capped += other.stats.capped;
        s.patches_skipped += other.stats.patches_skipped;
        s.certificate_items += other.stats.certificate_items;
        self.resting.extend(other.resting);
        for c in other.contacts {
            // `capped` was counted by the worker already
            match self.output {
                Mode::Toc => {
                    if self.contacts.first().is_none_or(|best| c.toc < best.toc) {
                        self.best = c.toc;
                        self.contacts.clear();
                        self.contacts.push(c);
                    }
                }
                Mode::All => self.contacts.push(c),
                Mode::Boolean => {
                    if self.contacts.is_empty() {
                        self.contacts.push(c);
                    }
                    self.done = true;
                }
            }
        }
    }
}

/// Bit `k` set when `boxes[k]` overlaps `o` (at most 64 boxes: leaves hold at most
/// [`MAX_LEAF_SIZE`](super::MAX_LEAF_SIZE) triangles, so at most 48 features of a kind).
#[inline]
fn mask(boxes: &[Box32], o: &Box32) -> u64 {
    let mut m = 0;
    for (k, b) in boxes.iter().take(64).enumerate() {
        m |= u64::from(b.overlaps(o)) << k;
    }
    m
}

/// The `len` lowest bits.
#[inline]
fn low_bits(len: usize) -> u64 {
    if len >= 64 {
        u64::MAX
    } else {
        (1u64 << len) - 1
    }
}

/// Writes to `out` the pairs (owned vertex `v0 + k` of `hv` for bits `k` of `mv`, face
/// `f0 + l` of `hf` for bits `l` of `mf`) whose swept boxes overlap, skipping (within one
/// mesh, `same`) faces that contain the vertex; returns their count. Branch-free compaction:
/// every pair is written, and counted when it passes. `out` has room for 64 × 64 pairs.
#[inline]
#[allow(clippy::too_many_arguments)]
fn collect_vf(
    out: &mut [[u32; 2]],
    hv: &HybridBvh,
    v0: usize,
    mut mv: u64,
    hf: &HybridBvh,
    f0: usize,
    mf: u64,
    same: bool,
) -> usize {
    let mut n = 0;
    while mv != 0 {
        let v = v0 + mv.trailing_zeros() as usize;
        mv &= mv - 1;
        let (bv, id) = (&hv.vert_box[v], hv.vert_ids[v]);
        let mut m = mf;
        while m != 0 {
            let f = f0 + m.trailing_zeros() as usize;
            m &= m - 1;
            let fv = hf.face_verts[f];
            let adjacent = same & ((fv[0] == id) | (fv[1] == id) | (fv[2] == id));
            let keep = bv.overlaps(&hf.face_box[f]) & !adjacent;
            out[n] = [v as u32, f as u32];
            n += usize::from(keep);
        }
    }
    n
}

/// Writes to `out[n..]` the pairs (owned edge `i` of `ha`, owned edge `e0 + l` of `hb` for
/// bits `l` of `me`) whose swept boxes overlap, skipping (within one mesh, `same`) edges that
/// share an endpoint; returns the new count (as [`collect_vf`]).
#[inline]
#[allow(clippy::too_many_arguments)]
fn collect_ee(
    out: &mut [[u32; 2]],
    mut n: usize,
    ha: &HybridBvh,
    i: usize,
    hb: &HybridBvh,
    e0: usize,
    mut me: u64,
    same: bool,
) -> usize {
    let (bi, [p, q]) = (&ha.edge_box[i], ha.edge_ends[i]);
    while me != 0 {
        let j = e0 + me.trailing_zeros() as usize;
        me &= me - 1;
        let [r, s] = hb.edge_ends[j];
        let adjacent = same & ((p == r) | (p == s) | (q == r) | (q == s));
        let keep = bi.overlaps(&hb.edge_box[j]) & !adjacent;
        out[n] = [i as u32, j as u32];
        n += usize::from(keep);
    }
    n
}

/// A query's work in the units of [`SceneOptions::serial_work`], from its counters:
/// node-pair tests and elementary tests count one each, a leaf pair (its feature culling:
/// selection masks, swept-box compaction) four, and the self-collision certificates one per
/// four triangles or contour edges they examine ([`SceneStats::certificate_items`]). The
/// weights make a unit cost about the same time on every scene (measured with
/// `examples/parallel.rs` on the `cloth-ball`, `n-body` and `exploding-dragon` bench frames
/// and the real frame pairs: docs/deformable.md, "Parallel").
///
/// # Example
/// ```
/// use ccd_la_deformable::DeformingMesh;
/// use ccd_la_deformable::Mode;
/// use ccd_la_deformable::scene::{DeformingScene, SceneOptions, work_units};
/// use glam::DVec3;
///
/// // a triangle falling onto another one below it
/// let tris = vec![[0, 1, 2], [3, 4, 5]];
/// let below = [DVec3::ZERO, DVec3::X, DVec3::Y];
/// let x0: Vec<DVec3> = below.iter().copied().chain(below.iter().map(|p| *p + DVec3::Z)).collect();
/// let x1: Vec<DVec3> = below.iter().copied().chain(below.iter().map(|p| *p - DVec3::Z)).collect();
/// let scene = DeformingScene::new(vec![DeformingMesh::new(tris, x0, x1)?], &SceneOptions::default())?;
/// let r = scene.query(Mode::Toc);
/// assert!(work_units(&r.stats) >= r.stats.primitive_tests);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn work_units(s: &SceneStats) -> u64 {
    s.bv_tests
        + s.primitive_tests
        + LEAF_PAIR_UNITS * s.leaf_pairs
        + s.certificate_items / CERTIFICATE_ITEMS_PER_UNIT
}

/// Weight of a leaf pair in [`work_units`].
const LEAF_PAIR_UNITS: u64 = 4;
/// Certificate items per unit in [`work_units`].
const CERTIFICATE_ITEMS_PER_UNIT: u64 = 4;

/// Default of [`SceneOptions::serial_work`]: how much work (in [`work_units`]) a parallel
/// query does on the calling thread, in the serial order, before it splits the rest over
/// rayon's pool — about 0.5 ms of one core (the bench and real frames run 5–16 units per
/// µs in `Toc` and `Boolean` queries, 3–8 in `All`). A query that ends within it (a small scene, a
/// global ToC of 0 found early, a Boolean contact) runs exactly as the serial one: splitting
/// it could save at most half of this and costs thread wake-ups and cold caches. Counted in
/// work rather than time, so that the split does not depend on the machine's load (a wall
/// clock budget runs out after less work on a busy machine and splits queries too small to
/// gain). Trade-off measured by `examples/parallel.rs` on the frames of docs/deformable.md,
/// "Parallel".
pub const DEFAULT_SERIAL_WORK: u32 = 4_000;

/// Default of [`SceneOptions::split_grain`]: a traversal task whose nodes hold fewer
/// triangles than this (both together) is never handed to another worker; a worker that
/// runs out of work is given a task of a busy worker's stack that is at least this large
/// (the last one in the serial order, or in `Toc` the next one: see the scene docs).
pub const DEFAULT_SPLIT_GRAIN: u32 = 512;

/// Runs a whole query (sequentially, or on rayon's pool with the `parallel` feature).
pub(super) fn run(scene: &DeformingScene, output: Mode) -> SceneResult {
    let mut w = Walker::new(scene, output);
    let roots = w.roots();
    #[cfg(feature = "parallel")]
    if scene.options.parallel && rayon::current_num_threads() > 1 {
        let rest = w.run_budget(roots, u64::from(scene.options.serial_work));
        if rest.is_empty() || w.done {
            return w.finish();
        }
        return parallel::run(w, rest);
    }
    for t in roots {
        w.run_task(t);
    }
    w.finish()
}

#[cfg(feature = "parallel")]
mod parallel {
    //! Parallel traversal by donation ([`Shared`]): the calling thread goes on with the
    //! serial traversal's stack (the *owner*); helpers on rayon's pool start hungry, and a
    //! busy worker gives a hungry one a task of its stack between two tasks (the last in the
    //! serial order, or in `Toc` the next one). The best ToC so far and the stop flag are
    //! shared through atomics (non-negative `f64` bit patterns order like the floats); each
    //! worker keeps its own findings, merged at the end.
    //!
    //! The answer does not depend on who ran what: `All` lists every contact (sorted at the
    //! end), `Toc`'s earliest time is the minimum over all pairs (a pair's elementary ToC
    //! does not depend on the bound it was run with, as long as it is below it), `Boolean`
    //! says whether any pair collides.

    use std::cell::RefCell;
    use std::sync::Mutex;

    use super::{Scratch, Shared, Task, Walker};
    use crate::scene::{DeformingScene, SceneResult};
    use crate::{Mode, SceneStats};

    pub(super) fn run(w: Walker<'_>, rest: Vec<Task>) -> SceneResult {
        run_counted(w, rest, false).0
    }

    /// [`run`], and the counters of the calling thread's own share of the work (the
    /// owner's: the serial start and the tasks it kept). With `wait`, the owner starts once
    /// every helper has joined (tests: a helper then takes part however busy the machine).
    pub(super) fn run_counted(
        w: Walker<'_>,
        rest: Vec<Task>,
        wait: bool,
    ) -> (SceneResult, SceneStats) {
        let (scene, output) = (w.scene, w.output);
        let shared = Shared::new(w.best(), w.done, scene.options.split_grain);
        let parts = Mutex::new(Vec::new());
        let mut owner = w;
        owner.shared = Some(&shared);
        // the stack pops from the end: the first task of the serial order on top
        owner.stack = rest;
        owner.stack.reverse();
        let helpers = rayon::current_num_threads().saturating_sub(1);
        rayon::in_place_scope(|s| {
            for _ in 0..helpers {
                s.spawn(|_| {
                    // a helper that starts after the end has nothing to do
                    if !shared.join() {
                        return;
                    }
                    let mut h = Pooled::new(scene, output, &shared);
                    h.0.work_shared();
                    let part = h.0.take_part();
                    parts
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .push(part);
                });
            }
            // bounded: rayon runs every spawned helper, and each joins or finds the end
            while wait && shared.lock().joined <= helpers {
                std::thread::yield_now();
            }
            owner.work_shared();
        });
        owner.shared = None;
        let own = owner.stats;
        for p in parts
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
        {
            owner.absorb(p);
        }
        (owner.finish(), own)
    }

    thread_local! {
        /// Scratch buffers of finished helpers on this thread, for the next ones (a fresh
        /// candidate buffer is 32 KiB of zeroed pages).
        static SPARE: RefCell<Vec<(Vec<[u32; 2]>, Scratch)>> = const { RefCell::new(Vec::new()) };
    }

    /// A helper whose scratch buffers come from, and go back to, this thread's pool.
    struct Pooled<'a>(Walker<'a>);

    impl<'a> Pooled<'a> {
        fn new(scene: &'a DeformingScene, output: Mode, shared: &'a Shared) -> Self {
            let mut w = Walker::new_bare(scene, output);
            if let Some((cand, scratch)) = SPARE.with(|s| s.borrow_mut().pop()) {
                w.cand = cand;
                w.cone_scratch = scratch;
            } else {
                w.cand = vec![[0, 0]; 64 * 64];
            }
            Self(w.with_shared(shared))
        }
    }

    impl Drop for Pooled<'_> {
        fn drop(&mut self) {
            let bufs = (
                std::mem::take(&mut self.0.cand),
                std::mem::take(&mut self.0.cone_scratch),
            );
            SPARE.with(|s| s.borrow_mut().push(bufs));
        }
    }
}

#[cfg(all(test, feature = "parallel"))]
mod tests {
    use ccd_geometry::glam::DVec3;

    use super::{Walker, parallel, run};
    use crate::scene::{DeformingScene, Resting, SceneOptions};
    use crate::{DeformingMesh, Mode, SceneStats};

    /// An `n × n` grid of unit squares (two triangles each) at `z0` (t = 0) and `z1`
    /// (t = 1), shifted by `(dx, dy)`, its vertices from `base`.
    fn grid(n: u32, base: u32, z: [f64; 2], shift: [f64; 2]) -> (Vec<[u32; 3]>, [Vec<DVec3>; 2]) {
        let (mut tris, mut x0, mut x1) = (Vec::new(), Vec::new(), Vec::new());
        for j in 0..=n {
            for i in 0..=n {
                let p = DVec3::new(f64::from(i) + shift[0], f64::from(j) + shift[1], 0.0);
                x0.push(p + DVec3::Z * z[0]);
                x1.push(p + DVec3::Z * z[1]);
            }
        }
        let v = |i: u32, j: u32| base + j * (n + 1) + i;
        for j in 0..n {
            for i in 0..n {
                tris.push([v(i, j), v(i + 1, j), v(i + 1, j + 1)]);
                tris.push([v(i, j), v(i + 1, j + 1), v(i, j + 1)]);
            }
        }
        (tris, [x0, x1])
    }

    /// One mesh of several sheets: a static floor, a sheet falling through it, and a small
    /// sheet resting on it (within the tolerance at t = 0) at its far corner.
    fn sheets(rest_at: f64) -> DeformingMesh {
        let (mut tris, mut x0, mut x1) = (Vec::new(), Vec::new(), Vec::new());
        let parts = [
            (40, [0.0, 0.0], [0.0, 0.0]),
            (24, [1.0, -1.0], [3.3, 2.7]),
            (3, [rest_at, rest_at], [33.2, 34.1]),
        ];
        for (n, z, shift) in parts {
            let (t, [a, b]) = grid(n, x0.len() as u32, z, shift);
            tris.extend(t);
            x0.extend(a);
            x1.extend(b);
        }
        DeformingMesh::new(tris, x0, x1).unwrap()
    }

    fn le(own: &SceneStats, serial: &SceneStats) -> bool {
        own.bv_tests <= serial.bv_tests
            && own.leaf_pairs <= serial.leaf_pairs
            && own.primitive_tests <= serial.primitive_tests
            && own.certificate_items <= serial.certificate_items
    }

    /// In `All` and `Boolean` the owner (the calling thread) keeps the head of the serial
    /// order and gives away its tail: its own work is never more than the serial query's,
    /// so such a parallel query is never longer than the serial one by more than the cost
    /// of sharing the cores. `Toc` hands out the next task instead (see [`Shared`]), which
    /// does not keep that bound; every mode's answer is the serial one.
    #[test]
    fn owner_work_is_within_the_serial_work_when_the_tail_is_given_away() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        for (rest_at, resting) in [
            (1e-7, Resting::Contact),
            (1e-7, Resting::Separate),
            (0.5, Resting::Contact),
        ] {
            let mesh = sheets(rest_at);
            let opts = SceneOptions::default().with_resting(resting);
            let serial = DeformingScene::new(vec![mesh.clone()], &opts).unwrap();
            let par_opts = opts.with_parallel(true).with_parallel_thresholds(0, 1);
            let par = DeformingScene::new(vec![mesh], &par_opts).unwrap();
            for mode in [Mode::Toc, Mode::All, Mode::Boolean] {
                let s = run(&serial, mode);
                for _ in 0..20 {
                    let (r, own) = pool.install(|| {
                        let mut w = Walker::new(&par, mode);
                        let roots = w.roots();
                        let rest = w.run_budget(roots, 0);
                        parallel::run_counted(w, rest, true)
                    });
                    if mode != Mode::Toc {
                        assert!(
                            le(&own, &s.stats),
                            "{mode:?}, {resting:?}: owner {own:?}, serial {:?}",
                            s.stats
                        );
                    }
                    assert_eq!(r.toc().map(f64::to_bits), s.toc().map(f64::to_bits));
                    if mode == Mode::All {
                        assert_eq!(r.contacts, s.contacts);
                        assert_eq!(r.resting, s.resting);
                    }
                }
            }
        }
    }
}
