//! CA between convex hulls with GJK distances (the convex fast path).

use ccd_distance::{ConvexHull, GjkCache, GjkOptions, GjkResult, gjk_distance_cached};
use ccd_geometry::Feature;
use ccd_kinematics::RigidMotion;
use glam::{DAffine3, DVec3};

use crate::contract::{Rates, check_domain, check_options, in_window, lever, rounding_allowance};
use crate::driver::{Probe, SafeStep, Search, advance_search};
use crate::{CaError, CaOptions, Contact, RigidBody, Stats, Status};

/// Separation of the hulls along the unit direction `n` (world), from their exact support
/// functions: `min_{y∈B} y·n − max_{x∈A} x·n`. Positive means a separating slab of that
/// width exists, whatever GJK's convergence.
fn gap_along(a: &ConvexHull, pa: &DAffine3, b: &ConvexHull, pb: &DAffine3, n: DVec3) -> f64 {
    let (sa, _) = a.support(pa.matrix3.transpose() * n);
    let (sb, _) = b.support(pb.matrix3.transpose() * -n);
    pb.transform_point3(sb).dot(n) - pa.transform_point3(sa).dot(n)
}

fn lift(f: Feature, hull: &ConvexHull) -> Feature {
    let id = |i: u32| hull.input_indices().get(i as usize).copied().unwrap_or(i);
    match f {
        Feature::Vertex(i) => Feature::Vertex(id(i)),
        Feature::Edge(i, j) => Feature::edge(id(i), id(j)),
        face => face,
    }
}

/// The first time of contact of two convex bodies (their hulls, see
/// [`RigidBody::with_hull`]) by conservative advancement with GJK: each step advances by the
/// separating-slab width along the closest direction over `|v·n|` bounded for both bodies
/// (valid for convex shapes: the slab separates them until the projected motion closes
/// it), with GJK warm-started across iterations.
///
/// Same contract as [`time_of_contact`](crate::time_of_contact); `Face` features index the
/// hull's faces, vertex and edge features the mesh's vertices.
///
/// # Errors
/// [`CaError::MissingHull`] when a body was built without its hull; [`CaError::Gjk`] when
/// GJK rejects a pose; the option, domain and rescaling errors of
/// [`time_of_contact`](crate::time_of_contact) (same domain, same exact rescaling of queries
/// outside `[2⁻¹⁰⁰, 2¹⁰⁰]`).
///
/// # Example
/// ```
/// use std::sync::Arc;
/// use ccd_ca_rigid::{time_of_contact_convex, CaOptions, RigidBody};
/// use ccd_bvh::{BvhOptions, MeshBvh, Rss};
/// use ccd_geometry::{glam::{DAffine3, DVec3}, TriMesh};
/// use ccd_kinematics::RigidMotion;
///
/// let tetra = TriMesh::new(vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z], vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])?;
/// let body = RigidBody::with_hull(Arc::new(MeshBvh::<Rss>::new(tetra, &BvhOptions::default())?))?;
/// let still = RigidMotion::stationary(DAffine3::IDENTITY)?;
/// let moving = RigidMotion::between(DAffine3::from_translation(DVec3::new(3.0, 0.0, 0.0)), DAffine3::from_translation(DVec3::new(-1.0, 0.0, 0.0)))?;
/// let c = time_of_contact_convex(&body, &still, &body, &moving, &CaOptions::default())?.expect("contact");
/// assert!(c.toc <= 0.5 && c.toc > 0.49);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn time_of_contact_convex(
    a: &RigidBody,
    motion_a: &RigidMotion,
    b: &RigidBody,
    motion_b: &RigidMotion,
    opts: &CaOptions,
) -> Result<Option<Contact>, CaError> {
    time_of_contact_convex_with_stats(a, motion_a, b, motion_b, opts).map(|(c, _)| c)
}

/// [`time_of_contact_convex`] with the query's counters whatever its answer (a query that
/// proves the bodies apart reports its iterations too), as
/// `time_of_contact_with_stats`.
///
/// # Errors
/// As [`time_of_contact_convex`].
pub(crate) fn time_of_contact_convex_with_stats(
    a: &RigidBody,
    motion_a: &RigidMotion,
    b: &RigidBody,
    motion_b: &RigidMotion,
    opts: &CaOptions,
) -> Result<(Option<Contact>, Stats), CaError> {
    check_options(opts)?;
    check_domain(a, motion_a, b, motion_b)?;
    if a.hull().is_none() || b.hull().is_none() {
        return Err(CaError::MissingHull);
    }
    let mut stats = Stats::default();
    let c = in_window(a, motion_a, b, motion_b, opts, &mut stats, run)?;
    Ok((c, stats))
}

/// The CA of [`time_of_contact_convex`] (input checked, coordinates in the window): the
/// shared driver with the hull–hull oracle.
fn run(
    a: &RigidBody,
    motion_a: &RigidMotion,
    b: &RigidBody,
    motion_b: &RigidMotion,
    opts: &CaOptions,
    stats: &mut Stats,
) -> Result<Option<Contact>, CaError> {
    let (Some(ha), Some(hb)) = (a.hull(), b.hull()) else {
        return Err(CaError::MissingHull);
    };
    let mut search = HullSearch {
        ha,
        hb,
        motion_a,
        motion_b,
        rates: Rates::new(motion_a, motion_b),
        eps: opts.tolerance,
        slack: rounding_allowance(a, motion_a, b, motion_b),
        // radii about the rotation centres
        radii: (
            a.radius() + lever(motion_a.local_center()),
            b.radius() + lever(motion_b.local_center()),
        ),
        cache: GjkCache::new(),
        last: None,
    };
    let window = Search {
        from: 0.0,
        start: 0.0,
        end: 1.0,
        max_iterations: opts.max_iterations,
    };
    advance_search(&mut search, window, stats)
}

/// The safe-step oracle of two convex hulls under constant-velocity motions: one GJK
/// distance (warm-started) per evaluation, the step from the separating slab along its
/// direction ([`certified_step`]).
struct HullSearch<'q> {
    ha: &'q ConvexHull,
    hb: &'q ConvexHull,
    motion_a: &'q RigidMotion,
    motion_b: &'q RigidMotion,
    rates: Rates,
    eps: f64,
    slack: f64,
    radii: (f64, f64),
    cache: GjkCache,
    /// The last evaluation (the witnesses of any answer).
    last: Option<GjkResult>,
}

impl SafeStep for HullSearch<'_> {
    type Contact = Contact;
    type Error = CaError;

    fn probe(&mut self, t: f64, stats: &mut Stats) -> Result<Probe, CaError> {
        let (pa, pb) = (self.motion_a.pose_at(t), self.motion_b.pose_at(t));
        let gjk = GjkOptions::default();
        let r = gjk_distance_cached(self.ha, &pa, self.hb, &pb, &gjk, &mut self.cache)?;
        stats.primitive_tests += u64::from(r.iterations);
        self.last = Some(r);
        // (a NaN distance proves nothing: reported as touching)
        if r.intersecting || r.distance <= self.eps || r.distance.is_nan() {
            return Ok(Probe::Touching);
        }
        let (half, slack) = (0.5 * self.eps, self.slack);
        let step = certified_step(
            self.ha,
            &pa,
            self.hb,
            &pb,
            &r,
            &self.rates,
            self.radii,
            half,
            slack,
        );
        Ok(Probe::Apart { step, until: 1.0 })
    }

    fn contact(&mut self, toc: f64, status: Status, stats: &mut Stats) -> Result<Contact, CaError> {
        // (the driver asks only after a probe)
        let r = self.last.ok_or(CaError::MissingHull)?;
        Ok(hull_contact(&r, (self.ha, self.hb), toc, status, *stats))
    }
}

/// The contact at `toc` from the GJK evaluation `r` of the hulls `ha`, `hb` (features
/// lifted to the meshes' vertex indices).
pub(crate) fn hull_contact(
    r: &GjkResult,
    (ha, hb): (&ConvexHull, &ConvexHull),
    toc: f64,
    status: Status,
    stats: Stats,
) -> Contact {
    Contact {
        toc,
        point_a: r.point_a,
        point_b: r.point_b,
        normal: r.normal.try_normalize().unwrap_or(DVec3::Z),
        distance: r.distance,
        feature_a: lift(r.feature_a, ha),
        feature_b: lift(r.feature_b, hb),
        status,
        stats,
    }
}

/// The advancement certified by one GJK evaluation `r` of the hulls at poses `pa`, `pb`: the
/// separating-slab width along GJK's direction (exact support functions) less `ε/2` and the
/// rounding allowance `slack`, over the motions' bound on `|v·n|`; else GJK's distance lower
/// bound over the free speed bound; 0 when neither certifies anything. `ra`, `rb`: radii
/// about the rotation centres.
#[allow(clippy::too_many_arguments)]
fn certified_step(
    ha: &ConvexHull,
    pa: &DAffine3,
    hb: &ConvexHull,
    pb: &DAffine3,
    r: &GjkResult,
    rates: &Rates,
    (ra, rb): (f64, f64),
    half: f64,
    slack: f64,
) -> f64 {
    // a rigorous slab along GJK's direction, else the lower bound with the free bound
    let step = match r.normal.try_normalize() {
        Some(n) => {
            let gap = gap_along(ha, pa, hb, pb, n).min(r.distance) - slack;
            let mu = rates.projected(n, ra, rb);
            if gap > half {
                if mu > 0.0 {
                    (gap - half) / mu
                } else {
                    f64::INFINITY
                }
            } else {
                0.0
            }
        }
        None => 0.0,
    };
    if step > 0.0 {
        return step;
    }
    let free = rates.free(ra, rb);
    if r.lower_bound - slack > half && free > 0.0 {
        (r.lower_bound - slack - half) / free
    } else {
        0.0
    }
}

/// Conservative advancement of two meshes' hulls from `t0`, at most `max_steps` GJK
/// evaluations (each counted as an iteration, its GJK iterations as primitive tests): the
/// hulls contain the meshes, so where the hulls are certified farther than `ε/2` apart the
/// meshes are too. `None`: apart over all of `[t0, 1]`; else the time `t ≥ t0` up to which
/// they are certified apart (the hulls touch there, or the steps ran out). Cheap against a
/// traversal of two hierarchies: it settles pairs that pass each other and moves the start
/// of the meshes' advancement up to where their hulls meet.
#[allow(clippy::too_many_arguments)]
pub(crate) fn hull_start(
    ha: &ConvexHull,
    motion_a: &RigidMotion,
    hb: &ConvexHull,
    motion_b: &RigidMotion,
    rates: &Rates,
    radii: (f64, f64),
    half: f64,
    slack: f64,
    t0: f64,
    max_steps: u32,
    stats: &mut Stats,
) -> Option<f64> {
    let gjk = GjkOptions::default();
    let mut cache = GjkCache::new();
    let mut t = t0;
    for _ in 0..max_steps {
        let (pa, pb) = (motion_a.pose_at(t), motion_b.pose_at(t));
        // (a pose GJK rejects proves nothing: the meshes' advancement takes over)
        let Ok(r) = gjk_distance_cached(ha, &pa, hb, &pb, &gjk, &mut cache) else {
            return Some(t);
        };
        stats.iterations += 1;
        stats.primitive_tests += u64::from(r.iterations);
        // (a NaN distance proves nothing)
        if r.intersecting || r.distance <= 2.0 * half || r.distance.is_nan() {
            return Some(t);
        }
        let step = certified_step(ha, &pa, hb, &pb, &r, rates, radii, half, slack);
        let next = crate::advance::advance(t, step, 1.0)?;
        if next <= t || next.is_nan() {
            return Some(t);
        }
        t = next;
    }
    Some(t)
}
