//! The one door of the crate: [`cast`] two [`Collider`]s along a [`PairMotion`] with
//! [`CastOptions`], answering a [`CastOutcome`].
//!
//! Every query runs the same conservative-advancement driver (`driver.rs`) with the
//! contract of `contract.rs`; what differs per pair of representations is the safe-step
//! oracle that certifies a gap and a speed bound along a direction:
//!
//! | pair | motion | oracle |
//! |---|---|---|
//! | mesh–mesh, mesh–convex | rigid | C2A over the two RSS trees (hulls first when both carry one) |
//! | convex–convex | rigid | GJK on the hulls |
//! | any pair with an analytic shape, hull or compound | rigid | part-pair best-first evaluation (`shape_ca.rs`) |
//! | mesh–mesh, mesh–convex | any [`PairMotion`] | C2A with the motion's [`SpeedBound`](crate::SpeedBound)s (window, region, first step) |
//! | convex–convex | any [`PairMotion`] | capsules, then GJK (window, first step, warm direction) |

use ccd_geometry::Aabb;
use glam::DVec3;

use crate::bounded::{BoundedScratch, bounded_cast};
use crate::bounded_hull::{convex_apart_along, convex_bounded_cast};
use crate::{CaError, CaOptions, Collider, Mode, PairMotion, ShapeContact, Stats};

/// What a [`cast`] computes and where: start from [`Default`] (or a [`CaOptions`]) and
/// change fields with the `with_*` builders (`#[non_exhaustive]`: options can grow).
///
/// # Example
/// ```
/// use ccd_ca_rigid::{CastOptions, Mode};
///
/// let o = CastOptions::default().with_tolerance(1e-4).with_window(0.25, 0.75);
/// assert_eq!((o.tolerance, o.window, o.mode), (1e-4, [0.25, 0.75], Mode::Toc));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct CastOptions {
    /// Absolute distance tolerance `ε` (default `1e-3`): contact is reported when the
    /// distance falls to `ε` or below.
    pub tolerance: f64,
    /// Cap on CA iterations (default 1000); hitting it gives
    /// [`Status::OutOfIterations`](crate::Status::OutOfIterations).
    pub max_iterations: u32,
    /// [`Mode::Toc`] or [`Mode::Boolean`] (rigid motions; one pair has one first contact,
    /// so [`Mode::All`] answers as `Toc`; bounded motions answer the first contact in every
    /// mode).
    pub mode: Mode,
    /// The search window `[start, end] ⊆ [0, 1]` (default `[0, 1]`): a contact at `start`
    /// is `InitiallyTouching`; nothing after `end` is looked at.
    pub window: [f64; 2],
    /// Only B's contents within this box (in B's frame) are queried (meshes under bounded
    /// motions: the part of an environment a link's swept volume can reach).
    pub region: Option<Aabb>,
    /// One evaluation only: the answer is a lower bound of the time of contact
    /// (`OutOfIterations` at the time certified free), or a contact at the window's start.
    pub first_step_only: bool,
    /// Convex pairs under bounded motions: a direction (world frame) along which the pair
    /// was last certified apart; a pair still apart along it over the whole window is
    /// answered free without a GJK distance (temporal coherence).
    pub warm_direction: Option<DVec3>,
    /// Meshes that carry their hulls are cast as their hulls (GJK): the answer is a lower
    /// bound of the meshes' time of contact (the hulls contain the meshes), as CATCH's
    /// temporal culling takes it. A pair without both hulls is cast as given.
    pub hulls_only: bool,
}

impl Default for CastOptions {
    fn default() -> Self {
        Self::from(CaOptions::default())
    }
}

impl From<CaOptions> for CastOptions {
    fn from(o: CaOptions) -> Self {
        Self {
            tolerance: o.tolerance,
            max_iterations: o.max_iterations,
            mode: o.mode,
            window: [0.0, 1.0],
            region: None,
            first_step_only: false,
            warm_direction: None,
            hulls_only: false,
        }
    }
}

impl CastOptions {
    /// The same options with tolerance `tolerance` (validated by [`cast`]).
    #[must_use]
    pub fn with_tolerance(mut self, tolerance: f64) -> Self {
        self.tolerance = tolerance;
        self
    }

    /// The same options with iteration cap `max_iterations` (at least 1).
    #[must_use]
    pub fn with_max_iterations(mut self, max_iterations: u32) -> Self {
        self.max_iterations = max_iterations;
        self
    }

    /// The same options computing `mode`.
    #[must_use]
    pub fn with_mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }

    /// The same options searching `[start, end]` (validated by [`cast`]: inside `[0, 1]`).
    #[must_use]
    pub fn with_window(mut self, start: f64, end: f64) -> Self {
        self.window = [start, end];
        self
    }

    /// The same options querying only B's contents within `region` (B's frame).
    #[must_use]
    pub fn with_region(mut self, region: Aabb) -> Self {
        self.region = Some(region);
        self
    }

    /// The same options with one evaluation only (a lower bound of the time of contact).
    #[must_use]
    pub fn with_first_step_only(mut self, first_step_only: bool) -> Self {
        self.first_step_only = first_step_only;
        self
    }

    /// The same options trying the direction `n` first (convex pairs, bounded motions).
    #[must_use]
    pub fn with_warm_direction(mut self, n: DVec3) -> Self {
        self.warm_direction = Some(n);
        self
    }

    /// The same options casting meshes that carry hulls as their hulls (a lower bound).
    #[must_use]
    pub fn with_hulls_only(mut self, hulls_only: bool) -> Self {
        self.hulls_only = hulls_only;
        self
    }

    /// The per-query options (tolerance, cap, mode).
    #[must_use]
    pub fn ca(&self) -> CaOptions {
        CaOptions::default()
            .with_tolerance(self.tolerance)
            .with_max_iterations(self.max_iterations)
            .with_mode(self.mode)
    }

    /// Whether these options ask for anything beyond a whole-step query.
    fn is_plain(&self) -> bool {
        self.window == [0.0, 1.0]
            && self.region.is_none()
            && !self.first_step_only
            && self.warm_direction.is_none()
            && !self.hulls_only
    }
}

/// The answer of a [`cast`]: the contact (if any) with the query's counters, whatever the
/// answer, and for convex pairs under bounded motions the direction of the last certified
/// gap (feed it back as [`CastOptions::warm_direction`] for the next step of the motion).
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct CastOutcome {
    /// The first contact within the tolerance (see [`time_of_contact`](crate::time_of_contact)
    /// for the contract); `None`: the pair stays apart over the window.
    pub contact: Option<ShapeContact>,
    /// Counters of the query.
    pub stats: Stats,
    /// The direction of the last certified gap (convex pairs under bounded motions).
    pub direction: Option<DVec3>,
}

impl CastOutcome {
    /// The time of contact, if any.
    #[must_use]
    pub fn toc(&self) -> Option<f64> {
        self.contact.map(|c| c.toc)
    }
}

/// Reusable buffers of [`cast`] (one per thread: no allocation once grown).
#[derive(Debug, Default)]
pub struct CastWorkspace {
    pub(crate) bounded: BoundedScratch,
}

/// The first time of contact of two colliders along `motion` over the window of `opts`: the
/// crate's one entry point. ([`time_of_contact`](crate::time_of_contact),
/// [`time_of_contact_convex`](crate::time_of_contact_convex) and
/// [`time_of_contact_shapes`](crate::time_of_contact_shapes) are its plain whole-step
/// rigid cases for callers that hold bodies or shapes; [`details`](crate::details) has the
/// window and first-step queries it dispatches to.)
///
/// Under a [`RigidPair`](crate::RigidPair) with a whole-step window every pair of
/// colliders is answered (with the motions' exact rigid bounds); under any other [`PairMotion`],
/// or with a window, region or first step, meshes and convex bodies are (analytic shapes
/// and compounds then give [`CaError::Unsupported`]).
///
/// # Errors
/// The option, window, region and domain errors of the queries it runs
/// ([`CaError::InvalidTolerance`], [`CaError::NoIterations`], [`CaError::InvalidWindow`],
/// [`CaError::InvalidRegion`], [`CaError::OutOfDomain`], …); [`CaError::Unsupported`] as above.
///
/// # Example
/// ```
/// use std::sync::Arc;
/// use ccd_ca_rigid::{cast, CastOptions, CastWorkspace, Collider, RigidBody, RigidPair, Shape};
/// use ccd_bvh::{BvhOptions, MeshBvh, Rss};
/// use ccd_distance::Ball;
/// use ccd_geometry::{glam::{DAffine3, DVec3}, TriMesh};
/// use ccd_kinematics::RigidMotion;
///
/// let tetra = TriMesh::new(vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z], vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])?;
/// let mesh = Collider::mesh(RigidBody::new(Arc::new(MeshBvh::<Rss>::new(tetra, &BvhOptions::default())?)))?;
/// let ball = Collider::shape(Shape::Ball(Ball::new(0.5)?))?;
/// let still = RigidMotion::stationary(DAffine3::IDENTITY)?;
/// // the ball rolls from x = 3 to x = -1 along the tetrahedron's x axis
/// let rolling = RigidMotion::between(
///     DAffine3::from_translation(DVec3::new(3.0, 0.0, 0.0)),
///     DAffine3::from_translation(DVec3::new(-1.0, 0.0, 0.0)),
/// )?;
/// let pair = RigidPair { a: &still, b: &rolling };
/// let out = cast(&mesh, &ball, &pair, &CastOptions::default(), &mut CastWorkspace::default())?;
/// // first touch when the ball's centre reaches x = 1.5: t = 0.375
/// let toc = out.toc().expect("they collide");
/// assert!(toc <= 0.375 && toc > 0.37);
/// assert!(out.stats.iterations >= 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn cast<M: PairMotion + ?Sized>(
    a: &Collider,
    b: &Collider,
    motion: &M,
    opts: &CastOptions,
    ws: &mut CastWorkspace,
) -> Result<CastOutcome, CaError> {
    let ca = opts.ca();
    if opts.is_plain()
        && let Some((ma, mb)) = motion.rigid()
    {
        let (contact, stats) = a.rigid_cast(ma, b, mb, &ca)?;
        return Ok(CastOutcome {
            contact,
            stats,
            direction: None,
        });
    }
    let [start, end] = opts.window;
    let (Some(ba), Some(bb)) = (a.body(), b.body()) else {
        return Err(CaError::Unsupported(
            "analytic shapes and compounds move only under whole-step rigid motions",
        ));
    };
    let convex_kind = |c: &Collider| matches!(c, Collider::Convex(_) | Collider::Polyhedron(..));
    let hulls = opts.hulls_only && ba.hull().is_some() && bb.hull().is_some();
    let convex = (hulls || (convex_kind(a) && convex_kind(b))) && opts.region.is_none();
    if convex {
        if let Some(n) = opts.warm_direction
            && convex_apart_along(ba, bb, motion, n, start, end, &ca)?
        {
            return Ok(CastOutcome {
                contact: None,
                stats: Stats::default(),
                direction: Some(n),
            });
        }
        let ca = if opts.first_step_only {
            ca.with_max_iterations(1)
        } else {
            ca
        };
        let mut n = DVec3::ZERO;
        let (contact, stats) = convex_bounded_cast(ba, bb, motion, start, end, &ca, &mut n)?;
        return Ok(CastOutcome {
            contact: contact.map(ShapeContact::from),
            stats,
            direction: (n != DVec3::ZERO).then_some(n),
        });
    }
    let (contact, stats) = bounded_cast(
        ba,
        bb,
        motion,
        start,
        end,
        opts.region.as_ref(),
        opts.first_step_only,
        &ca,
        &mut ws.bounded,
    )?;
    Ok(CastOutcome {
        contact: contact.map(ShapeContact::from),
        stats,
        direction: None,
    })
}
