//! GJK distance between two convex hulls under rigid poses, with witness points, features
//! and warm starting.
//!
//! # Algorithm
//!
//! Gilbert–Johnson–Keerthi on the Minkowski difference `A − B` (Lin survey slides, "Convex
//! objects: GJK"): each iteration takes the support point `w = s_A(−v) − s_B(v)` of `A − B`
//! in the direction of the origin, adds it to the simplex and replaces the simplex by the
//! smallest sub-simplex that contains the point closest to the origin. That closest-point
//! step uses the *signed-volumes* sub-algorithm (Montanari, Petrinic & Barbieri, "Improving
//! the GJK algorithm for faster and more reliable distance queries between convex objects",
//! ACM TOG 2017) instead of Johnson's determinants: barycentric coordinates come from signed
//! volumes/areas projected on the best-conditioned coordinate plane, and (near-)degenerate
//! simplices fall back to their faces, so collinear or coplanar simplices never divide by
//! zero.
//!
//! The query runs in A's local frame (B is placed by the relative pose), so the answer does
//! not lose precision when both bodies are far from the world origin. Each iteration gives
//! an upper bound `|v|` and a lower bound `v·w / |v|` on the distance; the loop stops when
//! they agree to the relative tolerance, when the support point is already in the simplex
//! (the exact answer for polytopes), when `|v|` stops decreasing (rounding), when the
//! simplex encloses the origin (intersection), or at the iteration cap. Both bounds are
//! reported: [`GjkResult::lower_bound`] is the one to use for conservative advancement.

use ccd_geometry::Feature;
use glam::{DAffine3, DMat3, DVec3};

use crate::convex_hull::ConvexHull;

/// Which body an error refers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GjkBody {
    /// The first hull (`a`).
    A,
    /// The second hull (`b`).
    B,
}

impl std::fmt::Display for GjkBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::A => "a",
            Self::B => "b",
        })
    }
}

/// Bad input to a GJK query.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum GjkError {
    /// A pose has a NaN or infinite entry.
    #[error("the pose of body {body} is not finite")]
    NonFinitePose {
        /// The body whose pose is bad.
        body: GjkBody,
    },
    /// A pose's linear part is not a rotation (orthonormal with determinant +1, to 1e-9).
    #[error("the pose of body {body} is not rigid (its linear part is not a rotation)")]
    NonRigidPose {
        /// The body whose pose is bad.
        body: GjkBody,
    },
    /// A tolerance is negative or NaN.
    #[error("invalid GJK options: {reason}")]
    InvalidOptions {
        /// What is wrong.
        reason: &'static str,
    },
}

/// Options of a GJK query: `Default` and the `with_*` builders.
///
/// ```
/// use ccd_distance::GjkOptions;
/// let o = GjkOptions::default().with_max_iterations(64).with_contact_distance(1e-6);
/// assert_eq!((o.max_iterations, o.tolerance), (64, 1e-12));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct GjkOptions {
    /// Iteration cap; reaching it gives [`GjkStatus::OutOfIterations`].
    pub max_iterations: u32,
    /// Relative tolerance: stop when `(upper − lower) ≤ tolerance · upper` (in squared form,
    /// `|v|² − v·w ≤ tolerance · |v|²`). Polytopes usually stop earlier, exactly.
    pub tolerance: f64,
    /// Absolute distance at or below which the hulls are reported as intersecting
    /// (distance 0). The default 0 reports only touching or overlapping hulls.
    pub contact_distance: f64,
}

impl Default for GjkOptions {
    fn default() -> Self {
        Self {
            max_iterations: 128,
            tolerance: 1e-12,
            contact_distance: 0.0,
        }
    }
}

impl GjkOptions {
    /// With the iteration cap `max_iterations`.
    #[must_use]
    pub fn with_max_iterations(mut self, max_iterations: u32) -> Self {
        self.max_iterations = max_iterations;
        self
    }

    /// With the relative tolerance `tolerance`.
    #[must_use]
    pub fn with_tolerance(mut self, tolerance: f64) -> Self {
        self.tolerance = tolerance;
        self
    }

    /// With the absolute contact distance `contact_distance`.
    #[must_use]
    pub fn with_contact_distance(mut self, contact_distance: f64) -> Self {
        self.contact_distance = contact_distance;
        self
    }
}

/// How a GJK query ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum GjkStatus {
    /// The bounds met the tolerance, the support point was already in the simplex, or the
    /// simplex enclosed the origin.
    Converged,
    /// `|v|` stopped decreasing because of rounding; the answer is as accurate as floating
    /// point allows here (the bounds in the result still hold).
    Stalled,
    /// The iteration cap was hit. `distance` is still an upper bound and `lower_bound` a
    /// lower bound of the true distance, so CA steps computed from `lower_bound` stay
    /// conservative.
    OutOfIterations,
}

/// The vertex pairs (hull-local vertex indices on A and B) of a GJK simplex: point `k` of the
/// simplex is `A.vertices()[ids_a[k]] − B.vertices()[ids_b[k]]` (with poses applied).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct GjkSimplex {
    ids_a: [u32; 4],
    ids_b: [u32; 4],
    len: u8,
}

impl GjkSimplex {
    /// Number of points (0 to 4).
    #[inline]
    #[must_use]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// `true` for an empty simplex.
    #[inline]
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Vertex indices on hull A.
    #[inline]
    #[must_use]
    pub fn ids_a(&self) -> &[u32] {
        &self.ids_a[..self.len as usize]
    }

    /// Vertex indices on hull B.
    #[inline]
    #[must_use]
    pub fn ids_b(&self) -> &[u32] {
        &self.ids_b[..self.len as usize]
    }

    /// The same simplex for the query with A and B exchanged.
    #[inline]
    #[must_use]
    pub fn swapped(&self) -> Self {
        Self {
            ids_a: self.ids_b,
            ids_b: self.ids_a,
            len: self.len,
        }
    }
}

/// The answer of a GJK query. Points and normal are in the world frame.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct GjkResult {
    /// Distance between the hulls (0 when intersecting); an upper bound to within rounding,
    /// equal to `|point_b − point_a|`.
    pub distance: f64,
    /// A lower bound of the distance (`v·w / |v|`, the best over the iterations); equals
    /// `distance` to the tolerance on convergence, 0 when intersecting.
    pub lower_bound: f64,
    /// Closest point on A (a common point when intersecting).
    pub point_a: DVec3,
    /// Closest point on B (a common point when intersecting).
    pub point_b: DVec3,
    /// Unit vector from A towards B along the closest pair; zero when intersecting.
    pub normal: DVec3,
    /// The feature of A carrying `point_a`: a vertex, an edge (the simplex's vertex pair, not
    /// necessarily a hull edge when faces are coplanar) or a face, indexing
    /// [`ConvexHull::vertices`] / [`ConvexHull::faces`]. When three simplex vertices do not
    /// form a hull face (a coplanar triangulation), a face incident to the first is given.
    pub feature_a: Feature,
    /// The feature of B carrying `point_b`.
    pub feature_b: Feature,
    /// The final simplex (pass it back through [`GjkCache`] to warm-start).
    pub simplex: GjkSimplex,
    /// `true` when the hulls touch or overlap (or are within `contact_distance`).
    pub intersecting: bool,
    /// How the query ended.
    pub status: GjkStatus,
    /// Iterations (support evaluations after the first).
    pub iterations: u32,
}

impl GjkResult {
    /// The result of the same query with A and B exchanged.
    #[must_use]
    pub fn swapped(&self) -> Self {
        Self {
            point_a: self.point_b,
            point_b: self.point_a,
            normal: -self.normal,
            feature_a: self.feature_b,
            feature_b: self.feature_a,
            simplex: self.simplex.swapped(),
            ..*self
        }
    }
}

/// Coherence between successive GJK queries on the same pair of hulls (e.g. along a CA
/// loop): the last simplex and the last support vertices, from which the next query starts.
/// A cache used with other hulls is harmless (out-of-range ids are ignored) but useless.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GjkCache {
    /// The simplex the next query starts from.
    pub simplex: GjkSimplex,
    /// Start vertex for hill climbing on A (`u32::MAX`: none).
    pub hint_a: u32,
    /// Start vertex for hill climbing on B (`u32::MAX`: none).
    pub hint_b: u32,
}

impl Default for GjkCache {
    fn default() -> Self {
        Self {
            simplex: GjkSimplex::default(),
            hint_a: u32::MAX,
            hint_b: u32::MAX,
        }
    }
}

impl GjkCache {
    /// An empty cache (a cold start).
    #[inline]
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }
}

/// GJK distance between hull `a` placed by `pose_a` and hull `b` placed by `pose_b`
/// (world poses, rotation + translation), from a cold start.
///
/// # Errors
/// [`GjkError`] for non-finite or non-rigid poses and invalid options.
///
/// # Example
/// ```
/// use ccd_distance::{ConvexHull, GjkOptions, GjkStatus, gjk_distance};
/// use glam::{DAffine3, DVec3};
///
/// let corners: Vec<DVec3> = (0..8)
///     .map(|i| DVec3::new((i & 1) as f64, ((i >> 1) & 1) as f64, ((i >> 2) & 1) as f64))
///     .collect();
/// let cube = ConvexHull::new(&corners)?;
/// let pose_a = DAffine3::IDENTITY;
/// let pose_b = DAffine3::from_translation(DVec3::new(3.0, 0.5, 0.0));
/// let r = gjk_distance(&cube, &pose_a, &cube, &pose_b, &GjkOptions::default())?;
/// assert!((r.distance - 2.0).abs() < 1e-12);
/// assert!((r.point_b - r.point_a).length() - 2.0 < 1e-12);
/// assert_eq!(r.status, GjkStatus::Converged);
/// assert!(!r.intersecting);
///
/// let overlap = DAffine3::from_translation(DVec3::splat(0.5));
/// let r = gjk_distance(&cube, &pose_a, &cube, &overlap, &GjkOptions::default())?;
/// assert!(r.intersecting && r.distance == 0.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn gjk_distance(
    a: &ConvexHull,
    pose_a: &DAffine3,
    b: &ConvexHull,
    pose_b: &DAffine3,
    opts: &GjkOptions,
) -> Result<GjkResult, GjkError> {
    gjk_distance_cached(a, pose_a, b, pose_b, opts, &mut GjkCache::new())
}

/// GJK distance like [`gjk_distance`], starting from `cache` (the previous query's simplex
/// and support vertices) and updating it with this query's. Coherent queries (small motion
/// between calls) typically converge in one or two iterations.
///
/// # Errors
/// As [`gjk_distance`].
///
/// # Example
/// ```
/// use ccd_distance::{ConvexHull, GjkCache, GjkOptions, gjk_distance_cached};
/// use glam::{DAffine3, DQuat, DVec3};
///
/// let tetra = ConvexHull::new(&[DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z])?;
/// let mut cache = GjkCache::new();
/// for step in 0..10 {
///     let t = step as f64 * 0.01;
///     let pose_b = DAffine3::from_rotation_translation(
///         DQuat::from_rotation_z(t),
///         DVec3::new(1.8 - t, 0.1, 0.1),
///     );
///     let r = gjk_distance_cached(
///         &tetra,
///         &DAffine3::IDENTITY,
///         &tetra,
///         &pose_b,
///         &GjkOptions::default(),
///         &mut cache,
///     )?;
///     assert!(r.distance > 0.0 && r.distance < 1.0);
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn gjk_distance_cached(
    a: &ConvexHull,
    pose_a: &DAffine3,
    b: &ConvexHull,
    pose_b: &DAffine3,
    opts: &GjkOptions,
    cache: &mut GjkCache,
) -> Result<GjkResult, GjkError> {
    check_pose(pose_a, GjkBody::A)?;
    check_pose(pose_b, GjkBody::B)?;
    if opts.tolerance.is_nan() || opts.tolerance < 0.0 {
        return Err(GjkError::InvalidOptions {
            reason: "tolerance must be non-negative",
        });
    }
    if opts.contact_distance.is_nan() || opts.contact_distance < 0.0 {
        return Err(GjkError::InvalidOptions {
            reason: "contact_distance must be non-negative",
        });
    }

    // Work in A's frame: B is placed by the relative pose (rot, tr).
    let rat = pose_a.matrix3.transpose();
    let rot = rat * pose_b.matrix3;
    let tr = rat * (pose_b.translation - pose_a.translation);
    let mk = Minkowski {
        a,
        b,
        rot,
        rot_t: rot.transpose(),
        tr,
    };
    let mut hint_a = cache.hint_a;
    let mut hint_b = cache.hint_b;

    let mut s = Simplex::default();
    let mut v;
    let warm = &cache.simplex;
    let warm_ok = !warm.is_empty()
        && warm
            .ids_a()
            .iter()
            .all(|&i| (i as usize) < a.vertices().len())
        && warm
            .ids_b()
            .iter()
            .all(|&i| (i as usize) < b.vertices().len());
    if warm_ok {
        for k in 0..warm.len() {
            s.push(mk.point(warm.ids_a[k], warm.ids_b[k]));
        }
        v = s.reduce();
    } else {
        let centre = a.centroid() - (rot * b.centroid() + tr);
        let d = if centre.length_squared() > 0.0 {
            centre
        } else {
            DVec3::X
        };
        let p = mk.support(-d, &mut hint_a, &mut hint_b);
        s.push(p);
        s.lambda[0] = 1.0;
        v = p.w;
    }

    let contact2 = opts.contact_distance * opts.contact_distance;
    let mut vv = v.length_squared();
    let mut lower: f64 = 0.0;
    let mut intersecting = s.n == 4 || vv <= contact2;
    let mut status = GjkStatus::OutOfIterations;
    let mut iterations = 0;
    if intersecting {
        status = GjkStatus::Converged;
    }
    while !intersecting && iterations < opts.max_iterations {
        iterations += 1;
        let p = mk.support(-v, &mut hint_a, &mut hint_b);
        let vw = v.dot(p.w);
        if vw > 0.0 {
            lower = lower.max(vw / vv.sqrt());
        }
        if vv - vw <= opts.tolerance * vv || s.contains(p.ia, p.ib) {
            status = GjkStatus::Converged;
            break;
        }
        let previous = s;
        s.push(p);
        let next = s.reduce();
        if s.n == 4 {
            intersecting = true;
            status = GjkStatus::Converged;
            break;
        }
        let next_vv = next.length_squared();
        if next_vv <= contact2 {
            v = next;
            vv = next_vv;
            intersecting = true;
            status = GjkStatus::Converged;
            break;
        }
        if next_vv >= vv {
            s = previous;
            status = GjkStatus::Stalled;
            break;
        }
        v = next;
        vv = next_vv;
    }

    let mut local_a = DVec3::ZERO;
    let mut local_b = DVec3::ZERO;
    for k in 0..s.n {
        local_a += s.pa[k] * s.lambda[k];
        local_b += s.pb[k] * s.lambda[k];
    }
    let point_a = pose_a.transform_point3(local_a);
    let point_b = pose_a.transform_point3(local_b);
    let (distance, normal) = if intersecting {
        lower = 0.0;
        (0.0, DVec3::ZERO)
    } else {
        let d = vv.sqrt();
        lower = lower.min(d);
        (d, pose_a.matrix3 * (-v / d))
    };

    let mut simplex = GjkSimplex::default();
    for k in 0..s.n {
        simplex.ids_a[k] = s.ia[k];
        simplex.ids_b[k] = s.ib[k];
    }
    simplex.len = s.n as u8;
    *cache = GjkCache {
        simplex,
        hint_a,
        hint_b,
    };
    Ok(GjkResult {
        distance,
        lower_bound: lower,
        point_a,
        point_b,
        normal,
        feature_a: feature_of(a, simplex.ids_a()),
        feature_b: feature_of(b, simplex.ids_b()),
        simplex,
        intersecting,
        status,
        iterations,
    })
}

fn check_pose(pose: &DAffine3, body: GjkBody) -> Result<(), GjkError> {
    if !pose.is_finite() {
        return Err(GjkError::NonFinitePose { body });
    }
    let m = pose.matrix3;
    let g = m.transpose() * m;
    let off = (g - DMat3::IDENTITY).to_cols_array();
    if off.iter().any(|x| x.abs() > 1e-9) || m.determinant() <= 0.0 {
        return Err(GjkError::NonRigidPose { body });
    }
    Ok(())
}

/// The feature of a hull spanned by the distinct vertex ids of a simplex.
fn feature_of(hull: &ConvexHull, ids: &[u32]) -> Feature {
    let mut distinct = [0u32; 4];
    let mut n = 0;
    for &i in ids {
        if !distinct[..n].contains(&i) {
            distinct[n] = i;
            n += 1;
        }
    }
    match n {
        0 | 1 => Feature::Vertex(distinct[0]),
        2 => Feature::edge(distinct[0], distinct[1]),
        _ => hull
            .face_with_vertices(distinct[0], distinct[1], distinct[2])
            .or_else(|| hull.faces_of_vertex(distinct[0]).first().copied())
            .map_or(Feature::Vertex(distinct[0]), Feature::Face),
    }
}

/// A point of the Minkowski difference with its two sources.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct MinkowskiPoint {
    pub(crate) w: DVec3,
    pub(crate) pa: DVec3,
    pub(crate) pb: DVec3,
    pub(crate) ia: u32,
    pub(crate) ib: u32,
}

/// `A − B` in A's frame.
struct Minkowski<'h> {
    a: &'h ConvexHull,
    b: &'h ConvexHull,
    rot: DMat3,
    rot_t: DMat3,
    tr: DVec3,
}

impl Minkowski<'_> {
    #[inline]
    fn support(&self, d: DVec3, hint_a: &mut u32, hint_b: &mut u32) -> MinkowskiPoint {
        let (pa, ia) = self.a.support_from(d, *hint_a);
        let (pb_local, ib) = self.b.support_from(self.rot_t * -d, *hint_b);
        *hint_a = ia;
        *hint_b = ib;
        let pb = self.rot * pb_local + self.tr;
        MinkowskiPoint {
            w: pa - pb,
            pa,
            pb,
            ia,
            ib,
        }
    }

    #[inline]
    fn point(&self, ia: u32, ib: u32) -> MinkowskiPoint {
        let pa = self.a.vertices()[ia as usize];
        let pb = self.rot * self.b.vertices()[ib as usize] + self.tr;
        MinkowskiPoint {
            w: pa - pb,
            pa,
            pb,
            ia,
            ib,
        }
    }
}

#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Simplex {
    pub(crate) w: [DVec3; 4],
    pub(crate) pa: [DVec3; 4],
    pub(crate) pb: [DVec3; 4],
    pub(crate) ia: [u32; 4],
    pub(crate) ib: [u32; 4],
    pub(crate) lambda: [f64; 4],
    pub(crate) n: usize,
}

/// A sub-simplex: which vertices remain (`keep[..n]`), their weights, and the closest
/// point `v` with `vv = |v|²`.
#[derive(Debug, Clone, Copy)]
struct Sub {
    keep: [usize; 4],
    lambda: [f64; 4],
    n: usize,
    v: DVec3,
    vv: f64,
}

impl Sub {
    #[inline]
    fn vertex(w: &[DVec3; 4], i: usize) -> Self {
        Self {
            keep: [i, 0, 0, 0],
            lambda: [1.0, 0.0, 0.0, 0.0],
            n: 1,
            v: w[i],
            vv: w[i].length_squared(),
        }
    }

    #[inline]
    fn best(self, other: Self) -> Self {
        if other.vv < self.vv { other } else { self }
    }
}

/// Signs agree strictly (both positive or both negative).
#[inline]
fn same_sign(a: f64, b: f64) -> bool {
    (a > 0.0 && b > 0.0) || (a < 0.0 && b < 0.0)
}

/// Closest point to the origin on segment `w[i] w[j]`.
fn s1d(w: &[DVec3; 4], i: usize, j: usize) -> Sub {
    let (a, b) = (w[i], w[j]);
    let t = b - a;
    let tt = t.length_squared();
    if tt.is_nan() || tt <= 0.0 {
        return Sub::vertex(w, i);
    }
    let mu = -a.dot(t) / tt;
    if mu <= 0.0 {
        Sub::vertex(w, i)
    } else if mu >= 1.0 {
        Sub::vertex(w, j)
    } else {
        let v = a * (1.0 - mu) + b * mu;
        Sub {
            keep: [i, j, 0, 0],
            lambda: [1.0 - mu, mu, 0.0, 0.0],
            n: 2,
            v,
            vv: v.length_squared(),
        }
    }
}

/// Closest point to the origin on triangle `w[i] w[j] w[k]`.
fn s2d(w: &[DVec3; 4], i: usize, j: usize, k: usize) -> Sub {
    let (a, b, c) = (w[i], w[j], w[k]);
    let (ab, ac) = (b - a, c - a);
    let n = ab.cross(ac);
    let nn = n.length_squared();
    let edges = || s1d(w, i, j).best(s1d(w, j, k)).best(s1d(w, i, k));
    // Degenerate (sliver) triangle: its closest point is on an edge to within rounding.
    if nn.is_nan() || nn <= 1e-24 * ab.length_squared() * ac.length_squared() {
        return edges();
    }
    // Origin projected on the plane, then signed areas on the coordinate plane where the
    // triangle's projection is largest.
    let p = n * (a.dot(n) / nn);
    let na = n.abs();
    let axis = if na.x >= na.y && na.x >= na.z {
        0
    } else if na.y >= na.z {
        1
    } else {
        2
    };
    let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
    let area = |p: DVec3, q: DVec3, r: DVec3| {
        (q[u] - p[u]) * (r[v] - p[v]) - (q[v] - p[v]) * (r[u] - p[u])
    };
    let mu = area(a, b, c);
    let ca = area(p, b, c);
    let cb = area(a, p, c);
    let cc = area(a, b, p);
    let (ia, ib, ic) = (same_sign(mu, ca), same_sign(mu, cb), same_sign(mu, cc));
    if ia && ib && ic {
        let lambda = [ca / mu, cb / mu, cc / mu, 0.0];
        return Sub {
            keep: [i, j, k, 0],
            lambda,
            n: 3,
            v: p,
            vv: p.length_squared(),
        };
    }
    // The closest point lies on an edge whose outer side holds the projection.
    let mut best: Option<Sub> = None;
    for (inside, (x, y)) in [(ia, (j, k)), (ib, (i, k)), (ic, (i, j))] {
        if !inside {
            let cand = s1d(w, x, y);
            best = Some(best.map_or(cand, |b| b.best(cand)));
        }
    }
    best.unwrap_or_else(edges)
}

/// Closest point to the origin on tetrahedron `w[0..4]`.
fn s3d(w: &[DVec3; 4]) -> Sub {
    let [a, b, c, d] = *w;
    let (ab, ac, ad) = (b - a, c - a, d - a);
    let det = ab.dot(ac.cross(ad));
    let faces = || {
        s2d(w, 0, 1, 2)
            .best(s2d(w, 0, 1, 3))
            .best(s2d(w, 0, 2, 3))
            .best(s2d(w, 1, 2, 3))
    };
    if det.is_nan() || det.abs() <= 1e-12 * ab.length() * ac.length() * ad.length() {
        return faces();
    }
    // Signed volumes with the origin replacing each vertex in turn (they sum to `det`).
    let ca = b.dot(c.cross(d));
    let cb = -a.dot(ac.cross(ad));
    let cc = -ab.dot(a.cross(ad));
    let cd = -ab.dot(ac.cross(a));
    let inside = [
        same_sign(det, ca),
        same_sign(det, cb),
        same_sign(det, cc),
        same_sign(det, cd),
    ];
    if inside.iter().all(|&x| x) {
        return Sub {
            keep: [0, 1, 2, 3],
            lambda: [ca / det, cb / det, cc / det, cd / det],
            n: 4,
            v: DVec3::ZERO,
            vv: 0.0,
        };
    }
    let opposite = [(1, 2, 3), (0, 2, 3), (0, 1, 3), (0, 1, 2)];
    let mut best: Option<Sub> = None;
    for (m, &(x, y, z)) in opposite.iter().enumerate() {
        if !inside[m] {
            let cand = s2d(w, x, y, z);
            best = Some(best.map_or(cand, |b| b.best(cand)));
        }
    }
    best.unwrap_or_else(faces)
}

impl Simplex {
    #[inline]
    pub(crate) fn push(&mut self, p: MinkowskiPoint) {
        let k = self.n.min(3);
        self.w[k] = p.w;
        self.pa[k] = p.pa;
        self.pb[k] = p.pb;
        self.ia[k] = p.ia;
        self.ib[k] = p.ib;
        self.n = k + 1;
    }

    #[inline]
    fn contains(&self, ia: u32, ib: u32) -> bool {
        (0..self.n).any(|k| self.ia[k] == ia && self.ib[k] == ib)
    }

    /// Replaces the simplex by the sub-simplex closest to the origin; returns that point.
    pub(crate) fn reduce(&mut self) -> DVec3 {
        let sub = match self.n {
            1 => Sub::vertex(&self.w, 0),
            2 => s1d(&self.w, 0, 1),
            3 => s2d(&self.w, 0, 1, 2),
            _ => s3d(&self.w),
        };
        let old = *self;
        for m in 0..sub.n {
            let k = sub.keep[m];
            self.w[m] = old.w[k];
            self.pa[m] = old.pa[k];
            self.pb[m] = old.pb[k];
            self.ia[m] = old.ia[k];
            self.ib[m] = old.ib[k];
            self.lambda[m] = sub.lambda[m];
        }
        self.n = sub.n;
        sub.v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ws(points: &[DVec3]) -> [DVec3; 4] {
        let mut w = [DVec3::ZERO; 4];
        w[..points.len()].copy_from_slice(points);
        w
    }

    #[test]
    fn segment_closest_points() {
        let w = ws(&[DVec3::new(-1.0, 1.0, 0.0), DVec3::new(1.0, 1.0, 0.0)]);
        let s = s1d(&w, 0, 1);
        assert_eq!(s.n, 2);
        assert_eq!(s.v, DVec3::Y);
        let w = ws(&[DVec3::new(1.0, 1.0, 0.0), DVec3::new(2.0, 1.0, 0.0)]);
        let s = s1d(&w, 0, 1);
        assert_eq!((s.n, s.keep[0]), (1, 0));
        let w = ws(&[DVec3::ONE, DVec3::ONE]);
        assert_eq!(s1d(&w, 0, 1).n, 1);
    }

    #[test]
    fn triangle_regions() {
        // Face region.
        let w = ws(&[
            DVec3::new(-1.0, -1.0, 2.0),
            DVec3::new(1.0, -1.0, 2.0),
            DVec3::new(0.0, 1.0, 2.0),
        ]);
        let s = s2d(&w, 0, 1, 2);
        assert_eq!(s.n, 3);
        assert!(s.v.abs_diff_eq(DVec3::new(0.0, 0.0, 2.0), 1e-15));
        assert!((s.lambda.iter().sum::<f64>() - 1.0).abs() < 1e-15);
        // Vertex region.
        let w = ws(&[
            DVec3::new(1.0, 1.0, 0.0),
            DVec3::new(2.0, 1.0, 0.0),
            DVec3::new(1.0, 2.0, 0.0),
        ]);
        let s = s2d(&w, 0, 1, 2);
        assert_eq!((s.n, s.keep[0]), (1, 0));
        // Collinear triangle falls back to its edges.
        let w = ws(&[
            DVec3::new(-1.0, 1.0, 0.0),
            DVec3::new(0.0, 1.0, 0.0),
            DVec3::new(3.0, 1.0, 0.0),
        ]);
        let s = s2d(&w, 0, 1, 2);
        assert!(s.v.abs_diff_eq(DVec3::Y, 1e-15));
    }

    #[test]
    fn tetrahedron_inside_and_outside() {
        let w = ws(&[
            DVec3::new(-1.0, -1.0, -1.0),
            DVec3::new(3.0, -1.0, -1.0),
            DVec3::new(-1.0, 3.0, -1.0),
            DVec3::new(-1.0, -1.0, 3.0),
        ]);
        let s = s3d(&w);
        assert_eq!(s.n, 4);
        assert!((s.lambda.iter().sum::<f64>() - 1.0).abs() < 1e-15);
        let shifted = w.map(|p| p + DVec3::new(0.0, 0.0, 2.0));
        let s = s3d(&shifted);
        assert_eq!(s.n, 3);
        assert!(s.v.abs_diff_eq(DVec3::Z, 1e-15));
        // Flat tetrahedron falls back to its faces.
        let flat = ws(&[
            DVec3::new(-1.0, -1.0, 1.0),
            DVec3::new(2.0, -1.0, 1.0),
            DVec3::new(-1.0, 2.0, 1.0),
            DVec3::new(0.0, 0.0, 1.0),
        ]);
        assert!(s3d(&flat).v.abs_diff_eq(DVec3::Z, 1e-15));
    }

    #[test]
    fn bad_poses_and_options_are_errors() {
        let hull = ConvexHull::new(&[DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z]).unwrap();
        let ok = DAffine3::IDENTITY;
        let nan = DAffine3::from_translation(DVec3::new(f64::NAN, 0.0, 0.0));
        let scaled = DAffine3::from_scale(DVec3::splat(2.0));
        let mirror = DAffine3::from_scale(DVec3::new(-1.0, 1.0, 1.0));
        let o = GjkOptions::default();
        assert_eq!(
            gjk_distance(&hull, &nan, &hull, &ok, &o),
            Err(GjkError::NonFinitePose { body: GjkBody::A })
        );
        assert_eq!(
            gjk_distance(&hull, &ok, &hull, &scaled, &o),
            Err(GjkError::NonRigidPose { body: GjkBody::B })
        );
        assert_eq!(
            gjk_distance(&hull, &ok, &hull, &mirror, &o),
            Err(GjkError::NonRigidPose { body: GjkBody::B })
        );
        let bad = o.with_tolerance(f64::NAN);
        assert!(matches!(
            gjk_distance(&hull, &ok, &hull, &ok, &bad),
            Err(GjkError::InvalidOptions { .. })
        ));
    }

    #[test]
    fn zero_iterations_still_bounds() {
        let hull = ConvexHull::new(&[DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z]).unwrap();
        let far = DAffine3::from_translation(DVec3::new(5.0, 1.0, 0.5));
        let opts = GjkOptions::default().with_max_iterations(0);
        let r = gjk_distance(&hull, &DAffine3::IDENTITY, &hull, &far, &opts).unwrap();
        assert_eq!(r.status, GjkStatus::OutOfIterations);
        let exact = gjk_distance(
            &hull,
            &DAffine3::IDENTITY,
            &hull,
            &far,
            &GjkOptions::default(),
        )
        .unwrap();
        assert!(r.distance >= exact.distance - 1e-12);
        assert!(r.lower_bound <= exact.distance + 1e-12);
    }
}
