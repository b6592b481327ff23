//! The parallel query's scheduling: what its workers share (the best ToC, the stop flag,
//! the donated tasks), the donation itself, the work units that decide when a query splits,
//! and the parallel run (feature `parallel`).

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

use super::{Task, Walker};
use crate::scene::DeformingScene;
use crate::{Mode, SceneStats};

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
    /// ([`SceneOptions::split_grain`](crate::scene::SceneOptions::split_grain)).
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
        // a node against itself carries its self-collision certificate (the star test of a
        // whole ball on n-body is most of that scene's query) besides its children's pairs:
        // weighed as a pair of two such nodes, a single object's self task is handed out too
        Task::Within { mesh, node } => count(mesh, node).saturating_mul(2),
        Task::Pair { ma, na, mb, nb } => count(ma, na).saturating_add(count(mb, nb)),
    }
}

impl<'a> Walker<'a> {
    /// This walker as a worker of a parallel query sharing `shared`.
    #[cfg_attr(not(feature = "parallel"), allow(dead_code))]
    pub(super) fn with_shared(mut self, shared: &'a Shared) -> Self {
        self.shared = Some(shared);
        self.sync();
        self
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
}

/// A query's work in the units of [`SceneOptions::serial_work`](crate::scene::SceneOptions::serial_work), from its counters:
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

/// Default of [`SceneOptions::serial_work`](crate::scene::SceneOptions::serial_work): how much work (in [`work_units`]) a parallel
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

/// A [`Mode::Boolean`] query runs this many times
/// [`SceneOptions::serial_work`](crate::scene::SceneOptions::serial_work) serially before
/// it splits (24,000 units, about 3 ms of one core, with the default). A Boolean query ends
/// at its first contact, and a helper searching the tail of the serial order is a bet: it
/// wins where a contact lies there (exploding-dragon, rod-twist), and where the calling
/// thread finds one first it only shares the core. On two vCPUs that are SMT siblings of one
/// core, the helper slows the calling thread by 15–30 %, so with a head start of 4,000 units
/// the real cloth-ball frame (contact after 20,307 units serially) ran 0.82–0.93× and the
/// n-body bench step (8,400 units) 0.75×; with 24,000 both run serially (1.0×) and
/// rod-twist still gains 1.8× (measured with `examples/parallel.rs`, docs/deformable.md,
/// "Parallel"). `serial_work = 0` still splits a Boolean query at once.
pub const BOOLEAN_SERIAL_FACTOR: u32 = 6;

/// Default of [`SceneOptions::split_grain`](crate::scene::SceneOptions::split_grain): a traversal task whose nodes hold fewer
/// triangles than this (both together) is never handed to another worker; a worker that
/// runs out of work is given a task of a busy worker's stack that is at least this large
/// (the last one in the serial order, or in `Toc` the next one: see the scene docs).
pub const DEFAULT_SPLIT_GRAIN: u32 = 512;

#[cfg(feature = "parallel")]
pub(super) mod parallel {
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

    use super::Shared;
    use crate::scene::cone::Scratch;
    use crate::scene::traverse::{Task, Walker};
    use crate::scene::{DeformingScene, SceneResult};
    use crate::{Mode, SceneStats};

    pub(in crate::scene::traverse) fn run(w: Walker<'_>, rest: Vec<Task>) -> SceneResult {
        run_counted(w, rest, false).0
    }

    /// [`run`], and the counters of the calling thread's own share of the work (the
    /// owner's: the serial start and the tasks it kept). With `wait`, the owner starts once
    /// every helper has joined (tests: a helper then takes part however busy the machine).
    pub(in crate::scene::traverse) fn run_counted(
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
