//! Mesh–mesh distance over RSS bounding-volume hierarchies (PQP-style), with witness
//! features lifted to mesh ids, tolerance and upper-bound early exits, and a coherence hint.

use ccd_bvh::{BoundingVolume, Bvh, MeshBvh, Rss};
use ccd_geometry::{TriMesh, Triangle};
use glam::{DAffine3, DVec3};

use crate::Closest;
use crate::triangle_triangle::vertices_vertices;

/// Bad input to [`mesh_distance`].
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MeshDistanceError {
    /// A pose has a non-finite entry.
    #[error("pose of mesh {which} has a non-finite entry")]
    NonFinitePose {
        /// `'a'` or `'b'`.
        which: char,
    },
    /// A pose is not rigid (its linear part is not a rotation).
    #[error(
        "pose of mesh {which} is not rigid (linear part deviates from a rotation by {deviation:e})"
    )]
    NonRigidPose {
        /// `'a'` or `'b'`.
        which: char,
        /// Largest entry of `RᵀR - I`, or `|det R - 1|`.
        deviation: f64,
    },
    /// A tolerance or bound is negative or NaN.
    #[error("option {name} = {value} must be a non-negative number")]
    InvalidOption {
        /// The option's name.
        name: &'static str,
        /// Its value.
        value: f64,
    },
    /// A mesh's vertex coordinate or a pose's translation exceeds
    /// [`MAX_COORDINATE`](crate::MAX_COORDINATE) (`1e100`) in magnitude.
    #[error("mesh {which}: {what} {value:e} is beyond the domain |x| <= 1e100")]
    OutOfDomain {
        /// `'a'` or `'b'`.
        which: char,
        /// `"vertex coordinate"` or `"translation"`.
        what: &'static str,
        /// The offending magnitude.
        value: f64,
    },
    /// The coherence hint names a triangle that does not exist.
    #[error("hint triangle pair ({a}, {b}) is out of range ({count_a} and {count_b} triangles)")]
    HintOutOfRange {
        /// Triangle of mesh `a`.
        a: u32,
        /// Triangle of mesh `b`.
        b: u32,
        /// Triangles in mesh `a`.
        count_a: usize,
        /// Triangles in mesh `b`.
        count_b: usize,
    },
}

/// Options of [`mesh_distance`]: `Default` (an exact query without hint) and the `with_*`
/// builders.
///
/// ```
/// use ccd_distance::MeshDistanceOptions;
/// let o = MeshDistanceOptions::default().with_upper_bound(0.5).with_hint(Some((3, 7)));
/// assert_eq!((o.upper_bound, o.hint, o.abs_tolerance), (0.5, Some((3, 7)), 0.0));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct MeshDistanceOptions {
    /// Absolute tolerance: node pairs that cannot improve the best distance by more than
    /// this are pruned, so the answer is within `abs_tolerance` (plus the relative part) of
    /// the exact distance. Default 0 (exact).
    pub abs_tolerance: f64,
    /// Relative tolerance: prune when `lower_bound * (1 + rel_tolerance) >= best`
    /// (PQP's `rel_err`). Default 0.
    pub rel_tolerance: f64,
    /// Only distances below this matter: the search stops as soon as it is certain that the
    /// distance is at least `upper_bound` (status [`MeshDistanceStatus::AboveUpperBound`]).
    /// Default infinity.
    pub upper_bound: f64,
    /// Stop as soon as a pair strictly closer than this is found (a Boolean "closer than"
    /// query; status [`MeshDistanceStatus::BelowThreshold`]). Default 0. A contact
    /// (distance 0) always ends the search with status `Converged`.
    pub stop_below: f64,
    /// Coherence hint: a triangle pair `(triangle of a, triangle of b)`, typically the last
    /// closest pair along a motion ([`MeshClosest::hint`]). Its distance seeds the bound,
    /// which prunes most of the hierarchy at once when the pair is still (nearly) closest.
    pub hint: Option<(u32, u32)>,
}

impl Default for MeshDistanceOptions {
    fn default() -> Self {
        Self {
            abs_tolerance: 0.0,
            rel_tolerance: 0.0,
            upper_bound: f64::INFINITY,
            stop_below: 0.0,
            hint: None,
        }
    }
}

impl MeshDistanceOptions {
    /// With the absolute tolerance `abs_tolerance`.
    #[must_use]
    pub fn with_abs_tolerance(mut self, abs_tolerance: f64) -> Self {
        self.abs_tolerance = abs_tolerance;
        self
    }

    /// With the relative tolerance `rel_tolerance`.
    #[must_use]
    pub fn with_rel_tolerance(mut self, rel_tolerance: f64) -> Self {
        self.rel_tolerance = rel_tolerance;
        self
    }

    /// With the upper bound `upper_bound` (only distances below it matter).
    #[must_use]
    pub fn with_upper_bound(mut self, upper_bound: f64) -> Self {
        self.upper_bound = upper_bound;
        self
    }

    /// With the early-stop threshold `stop_below`.
    #[must_use]
    pub fn with_stop_below(mut self, stop_below: f64) -> Self {
        self.stop_below = stop_below;
        self
    }

    /// With the coherence hint `hint` (a triangle pair, or `None`).
    #[must_use]
    pub fn with_hint(mut self, hint: Option<(u32, u32)>) -> Self {
        self.hint = hint;
        self
    }
}

/// How a [`mesh_distance`] query ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum MeshDistanceStatus {
    /// The distance is exact (within the tolerances of the options).
    Converged,
    /// The distance is at least [`MeshDistanceOptions::upper_bound`]; the reported pair is
    /// the closest one seen, an upper bound on the distance.
    AboveUpperBound,
    /// A pair closer than [`MeshDistanceOptions::stop_below`] was found and reported; the
    /// true distance may be smaller.
    BelowThreshold,
}

/// Counters of one [`mesh_distance`] query.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct MeshDistanceStats {
    /// RSS–RSS lower-bound computations.
    pub bv_tests: u64,
    /// Node pairs pruned by their bounding spheres before an RSS–RSS bound was needed.
    pub sphere_rejects: u64,
    /// Triangle–triangle distance computations.
    pub primitive_tests: u64,
}

/// Result of [`mesh_distance`]: the closest pair (world-frame witness points, features with
/// mesh vertex/triangle ids), the triangles it lies on, the status and counters.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct MeshClosest {
    /// Distance, world-frame witness points and mesh features (`feature_a` indexes mesh `a`).
    pub closest: Closest,
    /// Triangle of mesh `a` carrying `closest.point_a`.
    pub triangle_a: u32,
    /// Triangle of mesh `b` carrying `closest.point_b`.
    pub triangle_b: u32,
    /// How the query ended.
    pub status: MeshDistanceStatus,
    /// Counters.
    pub stats: MeshDistanceStats,
}

impl MeshClosest {
    /// The triangle pair to pass as [`MeshDistanceOptions::hint`] to the next query.
    #[inline]
    #[must_use]
    pub fn hint(&self) -> (u32, u32) {
        (self.triangle_a, self.triangle_b)
    }
}

/// Reusable scratch space of [`mesh_distance_with`] (the traversal stack).
#[derive(Clone, Debug, Default)]
pub struct MeshDistanceWorkspace {
    stack: Vec<(u32, u32, f64)>,
}

impl MeshDistanceWorkspace {
    /// An empty workspace.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }
}

pub(crate) fn check_pose(p: &DAffine3, which: char) -> Result<(), MeshDistanceError> {
    if !p.is_finite() {
        return Err(MeshDistanceError::NonFinitePose { which });
    }
    let m = p.matrix3;
    let g = m.transpose() * m;
    let dev = (g.x_axis - DVec3::X)
        .abs()
        .max_element()
        .max((g.y_axis - DVec3::Y).abs().max_element())
        .max((g.z_axis - DVec3::Z).abs().max_element())
        .max((m.determinant() - 1.0).abs());
    if dev > 1e-6 {
        return Err(MeshDistanceError::NonRigidPose {
            which,
            deviation: dev,
        });
    }
    Ok(())
}

/// The domain of the mesh queries: vertex coordinates (from the mesh's cached bounding box)
/// and the pose's translation within [`MAX_COORDINATE`](crate::MAX_COORDINATE).
fn check_domain(
    mesh: &MeshBvh<Rss>,
    pose: &DAffine3,
    which: char,
) -> Result<(), MeshDistanceError> {
    let bounds = mesh.aabb();
    let value = bounds.min.abs().max(bounds.max.abs()).max_element();
    // (an empty mesh has an infinite, inverted box)
    if value.is_finite() && value > crate::MAX_COORDINATE {
        return Err(MeshDistanceError::OutOfDomain {
            which,
            what: "vertex coordinate",
            value,
        });
    }
    let value = pose.translation.abs().max_element();
    if value > crate::MAX_COORDINATE {
        return Err(MeshDistanceError::OutOfDomain {
            which,
            what: "translation",
            value,
        });
    }
    Ok(())
}

fn check_option(name: &'static str, value: f64) -> Result<(), MeshDistanceError> {
    if value >= 0.0 {
        Ok(())
    } else {
        Err(MeshDistanceError::InvalidOption { name, value })
    }
}

/// Triangle `i` of `mesh` with its vertex ids.
#[inline]
fn tri(mesh: &TriMesh, i: u32) -> ([DVec3; 3], [u32; 3]) {
    let ids = mesh.triangles()[i as usize];
    let v = mesh.vertices();
    (
        [v[ids[0] as usize], v[ids[1] as usize], v[ids[2] as usize]],
        ids,
    )
}

/// The search state: best pair so far (in `a`'s frame, local features).
struct Search<'m> {
    a: &'m MeshBvh<Rss>,
    b: &'m MeshBvh<Rss>,
    pos_ab: DAffine3,
    best: Closest,
    best_pair: (u32, u32),
    stats: MeshDistanceStats,
}

impl Search<'_> {
    #[inline]
    fn test_pair(&mut self, ta: u32, tb: u32) {
        self.stats.primitive_tests += 1;
        let (va, _) = tri(self.a.mesh(), ta);
        let (vb, _) = tri(self.b.mesh(), tb);
        let vb = vb.map(|p| self.pos_ab.transform_point3(p));
        let c = vertices_vertices(&va, &vb);
        if c.distance < self.best.distance {
            self.best = c;
            self.best_pair = (ta, tb);
        }
    }
}

/// Lower bound on the distance between the contents of node `ia` of `bva` and node `ib` of
/// `bvb` (placed by `pos_ab`): first the bounding spheres of the two RSSs (cheap), and only
/// when that cannot prune (bound below `cut`) the exact RSS–RSS bound.
#[inline]
fn node_bound(
    bva: &Bvh<Rss>,
    bvb: &Bvh<Rss>,
    pos_ab: &DAffine3,
    (ia, ib): (u32, u32),
    cut: f64,
    stats: &mut MeshDistanceStats,
) -> f64 {
    let (a, b) = (bva.node(ia).bv(), bvb.node(ib).bv());
    let (ca, cb) = (a.center(), pos_ab.transform_point3(b.center()));
    let reach = a.size() + b.size();
    // Rounding slack relative to the coordinates involved keeps the bound conservative.
    let slack = 1e-12 * (ca.abs().max_element() + cb.abs().max_element() + reach);
    let sphere = ca.distance(cb) - reach - slack;
    if sphere >= cut {
        stats.sphere_rejects += 1;
        return sphere;
    }
    stats.bv_tests += 1;
    a.distance_lower_bound(b, pos_ab).max(sphere)
}

/// Distance between two triangle meshes under world poses, PQP-style: a depth-first
/// traversal of both RSS hierarchies that visits the nearer child pair first and prunes a
/// node pair when its RSS–RSS lower bound cannot beat the best distance found; leaf pairs
/// run [`triangle_triangle`](crate::triangle_triangle). Allocates its stack; use
/// [`mesh_distance_with`] in loops.
///
/// The witness points are in the world frame; the features carry mesh ids (vertex ids,
/// `Edge(i, j)` with `i < j`, `Face(triangle id)`). The options add tolerances, an
/// upper-bound exit (for CA steps that only need "at least d"), a "closer than" exit, and a
/// coherence hint (the last closest triangle pair).
///
/// # Errors
/// A non-finite or non-rigid pose, a negative or NaN option, a hint out of range, a mesh
/// or a translation beyond the domain ([`MeshDistanceError::OutOfDomain`]).
///
/// # Domain
/// Vertex coordinates and pose translations within
/// [`MAX_COORDINATE`](crate::MAX_COORDINATE) (`1e100`) in magnitude, at any smaller scale
/// (the triangle pairs are computed at every scale, see the [crate docs](crate); the RSS
/// lower bounds only lose pruning power where their squares underflow).
///
/// # Example
/// ```
/// use ccd_bvh::{BvhOptions, MeshBvh, Rss};
/// use ccd_distance::{mesh_distance, MeshDistanceOptions};
/// use ccd_geometry::{glam::{DAffine3, DVec3}, Feature, TriMesh};
///
/// let tet = TriMesh::new(
///     vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z],
///     vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
/// )?;
/// let body = MeshBvh::<Rss>::new(tet, &BvhOptions::default())?;
/// // b's bottom face (triangle 0) lies above a's apex (vertex 3), 2 apart.
/// let pose_b = DAffine3::from_translation(DVec3::new(-0.2, -0.2, 3.0));
/// let r = mesh_distance(&body, &DAffine3::IDENTITY, &body, &pose_b, &MeshDistanceOptions::default())?;
/// assert!((r.closest.distance - 2.0).abs() < 1e-12);
/// assert_eq!(r.closest.feature_a, Feature::Vertex(3));
/// assert_eq!(r.closest.feature_b, Feature::Face(0));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn mesh_distance(
    a: &MeshBvh<Rss>,
    pose_a: &DAffine3,
    b: &MeshBvh<Rss>,
    pose_b: &DAffine3,
    opts: &MeshDistanceOptions,
) -> Result<MeshClosest, MeshDistanceError> {
    mesh_distance_with(
        a,
        pose_a,
        b,
        pose_b,
        opts,
        &mut MeshDistanceWorkspace::new(),
    )
}

/// [`mesh_distance`] with a reusable workspace (no allocation once the stack has grown).
///
/// # Errors
/// As [`mesh_distance`].
///
/// # Example
/// ```
/// use ccd_bvh::{BvhOptions, MeshBvh, Rss};
/// use ccd_distance::{mesh_distance_with, MeshDistanceOptions, MeshDistanceWorkspace};
/// use ccd_geometry::{glam::{DAffine3, DVec3}, TriMesh};
///
/// let tet = TriMesh::new(
///     vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z],
///     vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
/// )?;
/// let body = MeshBvh::<Rss>::new(tet, &BvhOptions::default())?;
/// let mut ws = MeshDistanceWorkspace::new();
/// let mut opts = MeshDistanceOptions::default();
/// for step in 0..3 {
///     let pose_b = DAffine3::from_translation(DVec3::new(0.0, 0.0, 3.0 - f64::from(step) * 0.5));
///     let r = mesh_distance_with(&body, &DAffine3::IDENTITY, &body, &pose_b, &opts, &mut ws)?;
///     opts.hint = Some(r.hint()); // coherence along the motion
///     assert!((r.closest.distance - (2.0 - f64::from(step) * 0.5)).abs() < 1e-12);
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn mesh_distance_with(
    a: &MeshBvh<Rss>,
    pose_a: &DAffine3,
    b: &MeshBvh<Rss>,
    pose_b: &DAffine3,
    opts: &MeshDistanceOptions,
    ws: &mut MeshDistanceWorkspace,
) -> Result<MeshClosest, MeshDistanceError> {
    check_pose(pose_a, 'a')?;
    check_pose(pose_b, 'b')?;
    check_domain(a, pose_a, 'a')?;
    check_domain(b, pose_b, 'b')?;
    check_option("abs_tolerance", opts.abs_tolerance)?;
    check_option("rel_tolerance", opts.rel_tolerance)?;
    check_option("upper_bound", opts.upper_bound)?;
    check_option("stop_below", opts.stop_below)?;
    let (na, nb) = (a.mesh().triangle_count(), b.mesh().triangle_count());
    if let Some((ha, hb)) = opts.hint
        && (ha as usize >= na || hb as usize >= nb)
    {
        return Err(MeshDistanceError::HintOutOfRange {
            a: ha,
            b: hb,
            count_a: na,
            count_b: nb,
        });
    }
    let pos_ab = pose_a.inverse() * *pose_b;
    let far = Closest {
        distance: f64::INFINITY,
        point_a: DVec3::ZERO,
        point_b: DVec3::ZERO,
        feature_a: ccd_geometry::Feature::Face(0),
        feature_b: ccd_geometry::Feature::Face(0),
    };
    let mut s = Search {
        a,
        b,
        pos_ab,
        best: far,
        best_pair: (0, 0),
        stats: MeshDistanceStats::default(),
    };
    if let Some((ha, hb)) = opts.hint {
        s.test_pair(ha, hb);
    }
    // Prune a pair with lower bound `lb` when it cannot beat the best (within tolerance) or
    // when everything left is beyond the upper bound.
    let scale = 1.0 + opts.rel_tolerance;
    let prune_at = |best: f64| ((best - opts.abs_tolerance) / scale).min(opts.upper_bound);
    let (bva, bvb) = (a.bvh(), b.bvh());
    let mut status = MeshDistanceStatus::Converged;
    ws.stack.clear();
    let lb0 = node_bound(bva, bvb, &pos_ab, (0, 0), f64::INFINITY, &mut s.stats);
    ws.stack.push((0, 0, lb0));
    while let Some((ia, ib, lb)) = ws.stack.pop() {
        if s.best.distance == 0.0 {
            break; // contact: nothing is closer
        }
        if s.best.distance < opts.stop_below {
            status = MeshDistanceStatus::BelowThreshold;
            break;
        }
        if lb >= prune_at(s.best.distance) {
            continue;
        }
        let (na_, nb_) = (bva.node(ia), bvb.node(ib));
        // Descend the larger node (both leaves: test their triangle pairs).
        let split_a = match (na_.children(), nb_.children()) {
            (None, None) => {
                for &ta in bva.node_primitives(ia) {
                    for &tb in bvb.node_primitives(ib) {
                        s.test_pair(ta, tb);
                    }
                }
                continue;
            }
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (Some(_), Some(_)) => na_.bv().size() >= nb_.bv().size(),
        };
        let pairs = if split_a {
            let [c0, c1] = na_.children().unwrap_or([ia, ia]);
            [(c0, ib), (c1, ib)]
        } else {
            let [c0, c1] = nb_.children().unwrap_or([ib, ib]);
            [(ia, c0), (ia, c1)]
        };
        let cut = prune_at(s.best.distance);
        let l0 = node_bound(bva, bvb, &pos_ab, pairs[0], cut, &mut s.stats);
        let l1 = node_bound(bva, bvb, &pos_ab, pairs[1], cut, &mut s.stats);
        // Push the farther pair first so the nearer one is explored first.
        let ((p_near, l_near), (p_far, l_far)) = if l0 <= l1 {
            ((pairs[0], l0), (pairs[1], l1))
        } else {
            ((pairs[1], l1), (pairs[0], l0))
        };
        if l_far < cut {
            ws.stack.push((p_far.0, p_far.1, l_far));
        }
        if l_near < cut {
            ws.stack.push((p_near.0, p_near.1, l_near));
        }
    }
    if status == MeshDistanceStatus::Converged && s.best.distance >= opts.upper_bound {
        status = MeshDistanceStatus::AboveUpperBound;
    }
    if !s.best.distance.is_finite() {
        // Everything was pruned by the upper bound before any triangle pair was tested:
        // report the pair of the first triangles (a real pair, distance >= upper bound).
        s.test_pair(bva.node_primitives(0)[0], bvb.node_primitives(0)[0]);
        status = MeshDistanceStatus::AboveUpperBound;
    }
    let (ta, tb) = s.best_pair;
    let (_, ids_a) = tri(a.mesh(), ta);
    let (_, ids_b) = tri(b.mesh(), tb);
    let mut closest = s.best.lifted(ids_a, ta, ids_b, tb);
    closest.point_a = pose_a.transform_point3(closest.point_a);
    closest.point_b = pose_a.transform_point3(closest.point_b);
    Ok(MeshClosest {
        closest,
        triangle_a: ta,
        triangle_b: tb,
        status,
        stats: s.stats,
    })
}

/// The exact distance by testing every triangle pair (O(n m)), with world-frame witness
/// points and mesh features as [`mesh_distance`]: a reference for tests and tiny meshes.
///
/// # Example
/// ```
/// use ccd_distance::mesh_distance_brute_force;
/// use ccd_geometry::{glam::{DAffine3, DVec3}, TriMesh};
///
/// let tri = TriMesh::new(vec![DVec3::ZERO, DVec3::X, DVec3::Y], vec![[0, 1, 2]])?;
/// let d = mesh_distance_brute_force(&tri, &DAffine3::IDENTITY, &tri, &DAffine3::from_translation(DVec3::Z));
/// assert_eq!(d.distance, 1.0);
/// # Ok::<(), ccd_geometry::GeometryError>(())
/// ```
#[must_use]
pub fn mesh_distance_brute_force(
    a: &TriMesh,
    pose_a: &DAffine3,
    b: &TriMesh,
    pose_b: &DAffine3,
) -> Closest {
    let tb: Vec<(Triangle, [u32; 3])> = b
        .triangles()
        .iter()
        .map(|&ids| {
            let v = ids.map(|i| pose_b.transform_point3(b.vertices()[i as usize]));
            (Triangle::new(v[0], v[1], v[2]), ids)
        })
        .collect();
    let mut best = Closest {
        distance: f64::INFINITY,
        point_a: DVec3::ZERO,
        point_b: DVec3::ZERO,
        feature_a: ccd_geometry::Feature::Face(0),
        feature_b: ccd_geometry::Feature::Face(0),
    };
    for (ia, &ids_a) in a.triangles().iter().enumerate() {
        let va = ids_a.map(|i| pose_a.transform_point3(a.vertices()[i as usize]));
        for (ib, (t, ids_b)) in tb.iter().enumerate() {
            let c = vertices_vertices(&va, &t.vertices());
            if c.distance < best.distance {
                best = c.lifted(ids_a, ia as u32, *ids_b, ib as u32);
            }
        }
    }
    best
}
