//! The rigid queries on any pair of shapes: `ccd.toc` (continuous, first time of contact),
//! `ccd.collide` (discrete, with the contact point), `ccd.distance` (with witness points) and
//! `ccd.toc_batch` (many motions of one shape pair, the GIL released, on all cores), with
//! their results `ccd.Contact` and `ccd.Distance`.

use std::cell::Cell;
use std::ops::ControlFlow;

use ccd::bvh::{Rss, Workspace};
use ccd::ca_rigid::{self, Shape, ShapeContact};
use ccd::distance::{
    ConvexShape, MeshDistanceOptions, ShapeDistance, convex_distance, mesh_distance,
};
use ccd::geometry::rigid_inverse;
use ccd::prelude::*;
use numpy::{PyArray1, PyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use rayon::prelude::*;

use crate::arrays::f64_array;
use crate::errors::{CcdError, to_py};
use crate::kernels::{
    CONVERGED, INITIALLY_TOUCHING, NO_CONTACT, OUT_OF_ITERATIONS, STALLED, with_threads,
};
use crate::poses::{any_pose, motion_arg, rows_pose};
use crate::shapes::shape_arg;

/// The status code of a batch element.
pub(crate) fn status_code(s: Status) -> u8 {
    match s {
        Status::Converged => CONVERGED,
        Status::InitiallyTouching => INITIALLY_TOUCHING,
        Status::OutOfIterations => OUT_OF_ITERATIONS,
        Status::Stalled => STALLED,
    }
}

/// A contact between two shapes (the one contact type of the module: :func:`toc`,
/// :func:`collide`, :func:`rigid_toc`, :class:`World`, :class:`Robot` and
/// :class:`PlanningScene` return it; ``ccd.ShapeContact`` is another name for it): the time
/// of contact, the world witness points and normal at that time, the parts and features
/// that touch, how the query ended and its iteration count.
///
/// Attributes:
///     toc (float): conservative time of contact in [0, 1]: no contact before it (0 for
///         :func:`collide`).
///     point_a, point_b (ndarray[3]): world witness points on A and B at ``toc``.
///     points (ndarray[2, 3]): ``point_a`` and ``point_b`` stacked.
///     normal (ndarray[3]): unit direction from A to B at ``toc``.
///     distance (float): distance between the witnesses (<= tolerance when converged).
///     part_a, part_b (int): the index in a :class:`Compound`'s parts, 0 for any other shape.
///     feature_a, feature_b (tuple): ``("vertex", i)``, ``("edge", i, j)`` or
///         ``("face", i)``: mesh indices for a mesh, the shape's own feature ids otherwise (a
///         ball's surface is ``("face", 0)``; a box's corners, edges and faces are numbered
///         as in the Rust ``Cuboid``); ``features`` is the pair. The JSON of the command
///         line and :func:`batch` writes the same value as an array, ``["vertex", i]``.
///     status (str): ``"converged"``, ``"initially_touching"``, ``"out_of_iterations"`` or
///         ``"stalled"`` (the last two: ``toc`` is a lower bound); arrays hold the codes of
///         :data:`STATUS_CODES`.
///     iterations (int): conservative-advancement iterations.
///
/// Example:
///     >>> import ccd
///     >>> c = ccd.collide(ccd.Ball(1.0), ([0, 0, 0, 1], [0, 0, 0]), ccd.Ball(1.0), ([0, 0, 0, 1], [2, 0, 0]))
///     >>> c.status, c.part_a, c.feature_a, ccd.STATUS_CODES[c.status]
///     ('initially_touching', 0, ('face', 0), 2)
#[pyclass(frozen, module = "ccd", name = "Contact")]
#[derive(Clone)]
pub(crate) struct PyContact {
    pub(crate) c: ContactData,
}

/// What a [`PyContact`] holds: the fields of the crates' `ShapeContact` (and of a mesh
/// pair's `Contact`, parts 0), the counters reduced to the iteration count.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ContactData {
    pub(crate) toc: f64,
    pub(crate) point_a: DVec3,
    pub(crate) point_b: DVec3,
    pub(crate) normal: DVec3,
    pub(crate) distance: f64,
    pub(crate) part_a: u32,
    pub(crate) feature_a: Feature,
    pub(crate) part_b: u32,
    pub(crate) feature_b: Feature,
    pub(crate) status: Status,
    pub(crate) iterations: u32,
}

impl From<ShapeContact> for ContactData {
    fn from(c: ShapeContact) -> Self {
        Self {
            toc: c.toc,
            point_a: c.point_a,
            point_b: c.point_b,
            normal: c.normal,
            distance: c.distance,
            part_a: c.part_a,
            feature_a: c.feature_a,
            part_b: c.part_b,
            feature_b: c.feature_b,
            status: c.status,
            iterations: c.stats.iterations,
        }
    }
}

impl From<ca_rigid::Contact> for ContactData {
    fn from(c: ca_rigid::Contact) -> Self {
        ShapeContact::from(c).into()
    }
}

#[pymethods]
impl PyContact {
    /// Time of contact in `[0, 1]` (0 for :func:`collide`).
    #[getter]
    fn toc(&self) -> f64 {
        self.c.toc
    }
    /// World witness point on A at `toc`.
    #[getter]
    fn point_a<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_slice(py, &self.c.point_a.to_array())
    }
    /// World witness point on B at `toc`.
    #[getter]
    fn point_b<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_slice(py, &self.c.point_b.to_array())
    }
    /// Both witness points, shape `(2, 3)`.
    #[getter]
    fn points<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        two_points(py, self.c.point_a, self.c.point_b)
    }
    /// Unit normal from A to B at `toc` (zero when the points coincide and no direction is known).
    #[getter]
    fn normal<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_slice(py, &self.c.normal.to_array())
    }
    /// Distance between the witnesses.
    #[getter]
    fn distance(&self) -> f64 {
        self.c.distance
    }
    /// Part of A (index into a compound's parts; 0 otherwise).
    #[getter]
    fn part_a(&self) -> u32 {
        self.c.part_a
    }
    /// Part of B.
    #[getter]
    fn part_b(&self) -> u32 {
        self.c.part_b
    }
    /// Feature of A's part carrying `point_a`.
    #[getter]
    fn feature_a<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        feature_tuple(py, self.c.feature_a)
    }
    /// Feature of B's part carrying `point_b`.
    #[getter]
    fn feature_b<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        feature_tuple(py, self.c.feature_b)
    }
    /// `(feature_a, feature_b)`.
    #[getter]
    fn features<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, [self.feature_a(py)?, self.feature_b(py)?])
    }
    /// How the query ended: ``"converged"``, ``"initially_touching"``,
    /// ``"out_of_iterations"`` or ``"stalled"`` (the last two: ``toc`` is a lower bound).
    #[getter]
    fn status(&self) -> &'static str {
        status_name(self.c.status)
    }
    /// Conservative-advancement iterations.
    #[getter]
    fn iterations(&self) -> u32 {
        self.c.iterations
    }
    fn __repr__(&self) -> String {
        format!(
            "ccd.Contact(toc={}, status='{}', distance={:e}, parts=({}, {}), features=({}, {}), iterations={})",
            self.c.toc,
            self.status(),
            self.c.distance,
            self.c.part_a,
            self.c.part_b,
            feature_repr(self.c.feature_a),
            feature_repr(self.c.feature_b),
            self.c.iterations
        )
    }
}

fn two_points(py: Python<'_>, a: DVec3, b: DVec3) -> PyResult<Bound<'_, PyArray2<f64>>> {
    PyArray2::from_vec2(py, &[a.to_array().to_vec(), b.to_array().to_vec()])
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The distance between two shapes at their poses, with world witness points.
///
/// Attributes:
///     distance (float): the distance (0 when the shapes touch or intersect).
///     point_a, point_b (ndarray[3]): world witness points (a common point when they
///         intersect); ``points`` stacks them.
///     normal (ndarray[3]): unit direction from ``point_a`` to ``point_b`` (zero when they
///         coincide).
///     part_a, part_b (int): the compound parts carrying the witnesses (0 for non-compounds).
///     feature_a, feature_b (tuple): the features carrying them, as in :class:`Contact`.
#[pyclass(frozen, module = "ccd", name = "Distance")]
#[derive(Clone, Copy)]
pub(crate) struct PyDistance {
    d: Dist,
}

#[derive(Clone, Copy, Debug)]
struct Dist {
    distance: f64,
    point_a: DVec3,
    point_b: DVec3,
    part_a: u32,
    feature_a: Feature,
    part_b: u32,
    feature_b: Feature,
}

impl Dist {
    fn swapped(self) -> Self {
        Self {
            point_a: self.point_b,
            point_b: self.point_a,
            part_a: self.part_b,
            part_b: self.part_a,
            feature_a: self.feature_b,
            feature_b: self.feature_a,
            ..self
        }
    }
}

#[pymethods]
impl PyDistance {
    /// The distance.
    #[getter]
    fn distance(&self) -> f64 {
        self.d.distance
    }
    /// World witness point on A.
    #[getter]
    fn point_a<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_slice(py, &self.d.point_a.to_array())
    }
    /// World witness point on B.
    #[getter]
    fn point_b<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_slice(py, &self.d.point_b.to_array())
    }
    /// Both witness points, shape `(2, 3)`.
    #[getter]
    fn points<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        two_points(py, self.d.point_a, self.d.point_b)
    }
    /// Unit direction from `point_a` to `point_b` (zero when they coincide).
    #[getter]
    fn normal<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        let n = (self.d.point_b - self.d.point_a).normalize_or_zero();
        PyArray1::from_slice(py, &n.to_array())
    }
    /// Part of A carrying `point_a`.
    #[getter]
    fn part_a(&self) -> u32 {
        self.d.part_a
    }
    /// Part of B carrying `point_b`.
    #[getter]
    fn part_b(&self) -> u32 {
        self.d.part_b
    }
    /// Feature of A's part carrying `point_a`.
    #[getter]
    fn feature_a<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        feature_tuple(py, self.d.feature_a)
    }
    /// Feature of B's part carrying `point_b`.
    #[getter]
    fn feature_b<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        feature_tuple(py, self.d.feature_b)
    }
    fn __float__(&self) -> f64 {
        self.d.distance
    }
    fn __repr__(&self) -> String {
        format!(
            "ccd.Distance(distance={}, parts=({}, {}), features=({}, {}))",
            self.d.distance,
            self.d.part_a,
            self.d.part_b,
            feature_repr(self.d.feature_a),
            feature_repr(self.d.feature_b)
        )
    }
}

/// `tolerance` and `max_iterations` checked, naming them.
pub(crate) fn check_options(tolerance: f64, max_iterations: u32) -> PyResult<()> {
    if !(tolerance.is_finite() && tolerance >= ca_rigid::MIN_TOLERANCE) {
        return Err(CcdError::new_err(format!(
            "tolerance must be finite and at least 1e-100, got {tolerance}"
        )));
    }
    if max_iterations == 0 {
        return Err(CcdError::new_err("max_iterations must be at least 1"));
    }
    Ok(())
}

/// One whole-step rigid query through the engine's door ([`cast`]): the answer of the
/// query the colliders' kinds dispatch to.
pub(crate) fn cast_rigid(
    a: &Collider,
    ma: &RigidMotion,
    b: &Collider,
    mb: &RigidMotion,
    opts: &CaOptions,
) -> Result<Option<ShapeContact>, ccd::CaError> {
    let pair = RigidPair { a: ma, b: mb };
    let opts = CastOptions::from(*opts);
    cast(a, b, &pair, &opts, &mut CastWorkspace::default()).map(|o| o.contact)
}

fn options(tolerance: f64, max_iterations: u32, boolean: bool) -> CaOptions {
    CaOptions::default()
        .with_tolerance(tolerance)
        .with_max_iterations(max_iterations)
        .with_mode(if boolean { Mode::Boolean } else { Mode::Toc })
}

/// The first time of contact of two shapes, each moving over one step ``t`` in [0, 1].
///
/// ``a``, ``b``: any shape (:class:`Ball`, :class:`Capsule`, :class:`Box`, :class:`Cylinder`,
/// :class:`Convex`, :class:`Compound`, :class:`Mesh`, or an object with ``vertices`` and
/// ``faces`` such as a ``trimesh.Trimesh``). ``motion_a``, ``motion_b``: a :class:`Motion`,
/// or a pose (the shape stays there). A pose is a 4x4 or 3x4 matrix, ``(R, t)`` with ``R``
/// 3x3, or ``(q, t)`` with the quaternion ``q`` in **``[x, y, z, w]`` order (scalar last,
/// as scipy's ``Rotation.as_quat()`` and ROS; not the CLI's ``qw, qx, qy, qz``)**; a
/// quaternion within 1e-3 of unit norm is normalised, farther from it is an error.
///
/// Returns ``None`` when the shapes stay more than ``tolerance / 2`` apart over the step,
/// else a :class:`Contact` whose ``toc`` is conservative: no contact before it, distance
/// <= ``tolerance`` at it. ``boolean=True`` answers only "does anything touch": the contact
/// is then some time in contact, not necessarily the first. The GIL is released when a mesh
/// is involved (an analytic pair takes about as long as releasing and taking it back).
///
/// Example:
///     >>> import numpy as np, ccd
///     >>> ball, box = ccd.Ball(0.5), ccd.Box([1.0, 1.0, 1.0])
///     >>> fly = ccd.Motion(([0, 0, 0, 1], [4, 0, 0]), ([0, 0, 0, 1], [-4, 0, 0]))
///     >>> c = ccd.toc(box, np.eye(4), ball, fly)
///     >>> round(c.toc, 3), c.status       # the ball's centre reaches x = 1 at t = 0.375
///     (0.375, 'converged')
///     >>> np.round(c.point_b, 2)
///     array([0.5, 0. , 0. ])
///     >>> ccd.toc(box, np.eye(4), ball, (np.eye(3), [4, 0, 0])) is None   # ball stays away
///     True
#[pyfunction]
#[pyo3(signature = (a, motion_a, b, motion_b, tolerance = 1e-3, max_iterations = 1000, boolean = false))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn toc(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    motion_a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    motion_b: &Bound<'_, PyAny>,
    tolerance: f64,
    max_iterations: u32,
    boolean: bool,
) -> PyResult<Option<PyContact>> {
    let sa = shape_arg(a, "a")?;
    let sb = shape_arg(b, "b")?;
    let ma = motion_arg(motion_a, "motion_a")?;
    let mb = motion_arg(motion_b, "motion_b")?;
    let opts = options(tolerance, max_iterations, boolean);
    let (sa, sb) = (sa.shape(), sb.shape());
    let (ca, cb) = (Collider::Shape(sa.clone()), Collider::Shape(sb.clone()));
    let query = || cast_rigid(&ca, &ma, &cb, &mb, &opts);
    // releasing the GIL costs about as much as an analytic query: only for meshes
    let out = if has_mesh(sa) || has_mesh(sb) {
        py.detach(query)
    } else {
        query()
    };
    Ok(out.map_err(to_py)?.map(|c| PyContact { c: c.into() }))
}

/// Discrete collision check: whether two shapes at their poses touch or intersect (are
/// within ``tolerance``), with the contact point.
///
/// Returns ``None`` when they are more than ``tolerance`` apart, else a
/// :class:`Contact` at ``toc`` 0 with status ``"initially_touching"``, the witness
/// points (a common point when they intersect), the parts and features. No penetration
/// depth is computed. A :class:`Mesh` is a surface (a triangle soup): a shape wholly inside a
/// closed mesh does not touch it. Shapes and poses as in :func:`toc`.
///
/// Example:
///     >>> import ccd
///     >>> pose = ([0, 0, 0, 1], [0.9, 0, 0])          # (quaternion xyzw, translation)
///     >>> c = ccd.collide(ccd.Ball(0.5), ([0, 0, 0, 1], [0, 0, 0]), ccd.Ball(0.5), pose)
///     >>> c.status, c.toc
///     ('initially_touching', 0.0)
///     >>> ccd.collide(ccd.Ball(0.5), ([0, 0, 0, 1], [0, 0, 0]), ccd.Ball(0.3), pose) is None
///     True
#[pyfunction]
#[pyo3(signature = (a, pose_a, b, pose_b, tolerance = 1e-9))]
pub(crate) fn collide(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    pose_a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    pose_b: &Bound<'_, PyAny>,
    tolerance: f64,
) -> PyResult<Option<PyContact>> {
    let sa = shape_arg(a, "a")?;
    let sb = shape_arg(b, "b")?;
    let (pa, pb) = (any_pose(pose_a, "pose_a")?, any_pose(pose_b, "pose_b")?);
    let opts = options(tolerance, 1000, false);
    let (sa, sb) = (sa.shape(), sb.shape());
    if !(has_mesh(sa) || has_mesh(sb)) {
        // analytic and convex pairs: their exact distance, without building two motions and
        // a conservative-advancement query (about half the time of the call)
        check_options(tolerance, 1000)?;
        let d = shape_distance(sa, &pa, sb, &pb).map_err(CcdError::new_err)?;
        return Ok((d.distance <= tolerance).then(|| PyContact { c: touching(&d) }));
    }
    let ma = RigidMotion::stationary(pa).map_err(to_py)?;
    let mb = RigidMotion::stationary(pb).map_err(to_py)?;
    let out = py.detach(|| ca_rigid::time_of_contact_shapes(sa, &ma, sb, &mb, &opts));
    Ok(out
        .map_err(to_py)?
        .filter(|c| c.status == Status::InitiallyTouching)
        .map(|c| PyContact { c: c.into() }))
}

/// The contact at `toc` 0 of two shapes whose distance is `d` (within the tolerance): the
/// witnesses, the normal from A to B (zero when they coincide), parts and features.
fn touching(d: &Dist) -> ContactData {
    ContactData {
        toc: 0.0,
        point_a: d.point_a,
        point_b: d.point_b,
        normal: (d.point_b - d.point_a).normalize_or_zero(),
        distance: d.distance,
        part_a: d.part_a,
        feature_a: d.feature_a,
        part_b: d.part_b,
        feature_b: d.feature_b,
        status: Status::InitiallyTouching,
        iterations: 0,
    }
}

/// The distance between two shapes at their poses, with world witness points, parts and
/// features (a :class:`Distance`; ``float(d)`` is the distance). Exact for the analytic
/// pairs and meshes (a cylinder's distances to within a relative 1e-12); 0 with a common
/// point when the shapes intersect (meshes are surfaces, as in :func:`collide`). Shapes and
/// poses as in :func:`toc`.
///
/// Example:
///     >>> import numpy as np, ccd
///     >>> d = ccd.distance(ccd.Box([2, 2, 2]), np.eye(4), ccd.Ball(0.5), (np.eye(3), [0, 3, 0]))
///     >>> d.distance, d.point_b
///     (1.5, array([0. , 2.5, 0. ]))
#[pyfunction]
pub(crate) fn distance(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    pose_a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    pose_b: &Bound<'_, PyAny>,
) -> PyResult<PyDistance> {
    let sa = shape_arg(a, "a")?;
    let sb = shape_arg(b, "b")?;
    let pa = any_pose(pose_a, "pose_a")?;
    let pb = any_pose(pose_b, "pose_b")?;
    let (sa, sb) = (sa.shape(), sb.shape());
    let d = if has_mesh(sa) || has_mesh(sb) {
        py.detach(|| shape_distance(sa, &pa, sb, &pb))
    } else {
        shape_distance(sa, &pa, sb, &pb)
    };
    let d = d.map_err(CcdError::new_err)?;
    Ok(PyDistance { d })
}

/// True for a mesh or a compound with a mesh part (the queries that may take long enough to
/// release the GIL for).
pub(crate) fn has_mesh(s: &Shape) -> bool {
    match s {
        Shape::Mesh(_) => true,
        Shape::Compound(k) => k.parts().iter().any(|(_, p)| matches!(p, Shape::Mesh(_))),
        _ => false,
    }
}

/// The parts of a shape with their world poses.
fn world_parts<'s>(s: &'s Shape, pose: &DAffine3) -> Vec<(u32, DAffine3, &'s Shape)> {
    match s {
        Shape::Compound(k) => k
            .parts()
            .iter()
            .enumerate()
            .map(|(i, (o, p))| (i as u32, *pose * *o, p))
            .collect(),
        other => vec![(0, *pose, other)],
    }
}

fn as_convex(s: &Shape) -> Option<ConvexShape<'_>> {
    Some(match s {
        Shape::Ball(b) => ConvexShape::Ball(b),
        Shape::Capsule(c) => ConvexShape::Capsule(c),
        Shape::Cuboid(c) => ConvexShape::Cuboid(c),
        Shape::Cylinder(c) => ConvexShape::Cylinder(c),
        Shape::ConvexHull(h) => ConvexShape::Hull(h),
        _ => return None,
    })
}

fn shape_distance(a: &Shape, pa: &DAffine3, b: &Shape, pb: &DAffine3) -> Result<Dist, String> {
    let mut best: Option<Dist> = None;
    for (ia, qa, xa) in world_parts(a, pa) {
        for (ib, qb, xb) in world_parts(b, pb) {
            let mut d =
                part_distance(xa, &qa, xb, &qb, best.map_or(f64::INFINITY, |d| d.distance))?;
            if let Some(d) = d.as_mut() {
                d.part_a = ia;
                d.part_b = ib;
            }
            if let Some(d) = d
                && best.is_none_or(|b| d.distance < b.distance)
            {
                best = Some(d);
            }
        }
    }
    best.ok_or_else(|| "distance: no parts to compare".to_string())
}

fn from_shape_distance(d: ShapeDistance, frame: &DAffine3) -> Dist {
    Dist {
        distance: d.distance,
        point_a: frame.transform_point3(d.point_a),
        point_b: frame.transform_point3(d.point_b),
        part_a: 0,
        feature_a: d.feature_a,
        part_b: 0,
        feature_b: d.feature_b,
    }
}

/// The distance between two non-compound parts at world poses, when below `bound` (a part
/// pair that cannot beat `bound` may return `None`).
fn part_distance(
    a: &Shape,
    pa: &DAffine3,
    b: &Shape,
    pb: &DAffine3,
    bound: f64,
) -> Result<Option<Dist>, String> {
    match (a, b) {
        (Shape::Mesh(ma), Shape::Mesh(mb)) => {
            let r = mesh_distance(
                ma.mesh_bvh(),
                pa,
                mb.mesh_bvh(),
                pb,
                &MeshDistanceOptions::default(),
            )
            .map_err(|e| e.to_string())?;
            let c = r.closest;
            Ok(Some(Dist {
                distance: c.distance,
                point_a: c.point_a,
                point_b: c.point_b,
                part_a: 0,
                feature_a: c.feature_a,
                part_b: 0,
                feature_b: c.feature_b,
            }))
        }
        (Shape::Mesh(m), other) => Ok(mesh_convex(m, pa, other, pb, bound)),
        (other, Shape::Mesh(m)) => Ok(mesh_convex(m, pb, other, pa, bound).map(Dist::swapped)),
        _ => match (as_convex(a), as_convex(b)) {
            (Some(ca), Some(cb)) => {
                let pos12 = rigid_inverse(pa) * *pb;
                Ok(Some(from_shape_distance(
                    convex_distance(ca, cb, &pos12),
                    pa,
                )))
            }
            _ => Err("distance: unsupported shape pair".to_string()),
        },
    }
}

/// Lower bound of the distance from `p` to the RSS `r` (same frame).
fn rss_point_lower(r: &Rss, p: DVec3) -> f64 {
    let l = r.rotation.transpose() * (p - r.origin);
    let q = DVec3::new(
        l.x.clamp(0.0, r.lengths[0]),
        l.y.clamp(0.0, r.lengths[1]),
        0.0,
    );
    // rounding: a relative 1e-12 of the coordinates involved
    let slack = 1e-12
        * (p.abs().max_element()
            + r.origin.abs().max_element()
            + r.lengths[0]
            + r.lengths[1]
            + r.radius);
    (l - q).length() - r.radius - slack
}

/// Distance from a mesh (A, at `pm`) to a convex shape (B, at `pc`), by branch and bound
/// over the mesh's RSS tree: a node is opened only when the distance from its RSS to the
/// shape's bounding sphere is below the best triangle distance so far. `None` when nothing
/// beats `bound`.
fn mesh_convex(
    m: &RigidBody,
    pm: &DAffine3,
    shape: &Shape,
    pc: &DAffine3,
    bound: f64,
) -> Option<Dist> {
    let c = as_convex(shape)?;
    let pos = rigid_inverse(pm) * *pc; // the shape in the mesh frame
    let bb = shape.local_aabb();
    let mid = 0.5 * (bb.min + bb.max);
    let centre = pos.transform_point3(mid);
    let radius = shape.radius_about(mid);
    let tree = m.mesh_bvh();
    let mesh = tree.mesh();
    let best = Cell::new(bound);
    let mut hit: Option<Dist> = None;
    let mut ws = Workspace::new();
    tree.bvh().traverse(
        &mut ws,
        |rss| rss_point_lower(rss, centre) - radius < best.get(),
        |i| {
            let tri = mesh.triangle(i as usize);
            let d = convex_distance(ConvexShape::Triangle(&tri), c, &pos);
            if d.distance < best.get() || hit.is_none() && d.distance <= best.get() {
                best.set(d.distance);
                let ids = mesh.triangles()[i as usize];
                let mut h = from_shape_distance(d, pm);
                h.feature_a = d.feature_a.lift(ids, i);
                hit = Some(h);
            }
            if best.get() <= 0.0 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        },
    );
    hit
}

/// The `(toc, status)` arrays of a batch.
type TocArrays<'py> = (Bound<'py, PyArray1<f64>>, Bound<'py, PyArray1<u8>>);

/// Many motions of one pair of shapes, on all cores with the GIL released: ``poses_a0``,
/// ``poses_a1``, ``poses_b0``, ``poses_b1`` are float arrays of shape ``(N, 4, 4)`` (or
/// ``(4, 4)``, the same pose for every element), query ``i`` moving A from ``poses_a0[i]`` to
/// ``poses_a1[i]`` and B likewise, the short way round (as :class:`Motion`).
///
/// Returns ``(toc, status)``: float64 and uint8 arrays of shape ``(N,)``; ``toc`` is NaN and
/// ``status`` ``ccd.NO_CONTACT`` (0) where the pair stays apart, else the status codes
/// ``ccd.CONVERGED``, ``ccd.INITIALLY_TOUCHING``, ``ccd.OUT_OF_ITERATIONS``,
/// ``ccd.STALLED`` (the integer codes of :attr:`Contact.status`, :data:`STATUS_CODES`). A bad pose raises
/// ``ccd.CcdError`` naming its array and index. ``threads=None`` uses every core.
///
/// Example:
///     >>> import numpy as np, ccd
///     >>> ball = ccd.Ball(0.5)
///     >>> start = np.tile(np.eye(4), (3, 1, 1))
///     >>> end = start.copy()
///     >>> end[:, 0, 3] = [3.0, -1.0, -3.0]     # B's end x; B starts at x = 2
///     >>> start_b = start.copy(); start_b[:, 0, 3] = 2.0
///     >>> toc, status = ccd.toc_batch(ball, np.eye(4), np.eye(4), ball, start_b, end)
///     >>> np.round(toc, 3), status
///     (array([  nan, 0.333, 0.2  ]), array([0, 1, 1], dtype=uint8))
#[pyfunction]
#[pyo3(signature = (a, poses_a0, poses_a1, b, poses_b0, poses_b1, tolerance = 1e-3, max_iterations = 1000, threads = None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn toc_batch<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    poses_a0: &Bound<'py, PyAny>,
    poses_a1: &Bound<'py, PyAny>,
    b: &Bound<'py, PyAny>,
    poses_b0: &Bound<'py, PyAny>,
    poses_b1: &Bound<'py, PyAny>,
    tolerance: f64,
    max_iterations: u32,
    threads: Option<usize>,
) -> PyResult<TocArrays<'py>> {
    let sa = shape_arg(a, "a")?;
    let sb = shape_arg(b, "b")?;
    let arrays = [
        read_poses(poses_a0, "poses_a0")?,
        read_poses(poses_a1, "poses_a1")?,
        read_poses(poses_b0, "poses_b0")?,
        read_poses(poses_b1, "poses_b1")?,
    ];
    let n = arrays.iter().map(Poses::len).max().unwrap_or(1);
    for p in &arrays {
        if !p.broadcast && p.len() != n {
            return Err(PyValueError::new_err(format!(
                "{} has {} poses, the others {n}: the (N, 4, 4) arrays must have the same N",
                p.name,
                p.len()
            )));
        }
    }
    check_options(tolerance, max_iterations)?;
    let opts = options(tolerance, max_iterations, false);
    let (sa, sb) = (sa.shape(), sb.shape());
    let (ca, cb) = (Collider::Shape(sa.clone()), Collider::Shape(sb.clone()));
    // poses, motions and queries all run without the GIL, on the pool
    let motion = |p0: &Poses, p1: &Poses, i: usize, side: &str| -> Result<RigidMotion, String> {
        let (s, e) = (p0.get(i)?, p1.get(i)?);
        RigidMotion::between(s, e).map_err(|e| format!("motion of {side} at index {i}: {e}"))
    };
    // a side whose two poses are single 4x4 arrays has one motion for every element
    let fixed = |k: usize, side: &str| -> PyResult<Option<RigidMotion>> {
        if arrays[k].broadcast && arrays[k + 1].broadcast {
            let m = motion(&arrays[k], &arrays[k + 1], 0, side).map_err(CcdError::new_err)?;
            Ok(Some(m))
        } else {
            Ok(None)
        }
    };
    let (fixed_a, fixed_b) = (fixed(0, "a")?, fixed(2, "b")?);
    let one = |i: usize| -> Result<(f64, u8), String> {
        let ma = match fixed_a {
            Some(m) => m,
            None => motion(&arrays[0], &arrays[1], i, "a")?,
        };
        let mb = match fixed_b {
            Some(m) => m,
            None => motion(&arrays[2], &arrays[3], i, "b")?,
        };
        match cast_rigid(&ca, &ma, &cb, &mb, &opts) {
            Ok(Some(c)) => Ok((c.toc, status_code(c.status))),
            Ok(None) => Ok((f64::NAN, NO_CONTACT)),
            Err(e) => Err(format!("element {i}: {e}")),
        }
    };
    let out = py.detach(|| {
        if threads == Some(1) {
            // one thread: this one, no pool
            return Ok((0..n).map(one).collect::<Result<Vec<_>, String>>());
        }
        with_threads(threads, || {
            (0..n)
                .into_par_iter()
                .map(one)
                .collect::<Result<Vec<_>, String>>()
        })
    });
    let out = out
        .map_err(PyValueError::new_err)?
        .map_err(CcdError::new_err)?;
    let (tocs, codes): (Vec<f64>, Vec<u8>) = out.into_iter().unzip();
    Ok((PyArray1::from_vec(py, tocs), PyArray1::from_vec(py, codes)))
}

/// Poses read from an `(N, 4, 4)` (or `(4, 4)`, broadcast) array, checked when used.
struct Poses {
    name: &'static str,
    values: Vec<f64>,
    broadcast: bool,
}

impl Poses {
    fn len(&self) -> usize {
        if self.broadcast {
            1
        } else {
            self.values.len() / 16
        }
    }
    fn get(&self, i: usize) -> Result<DAffine3, String> {
        let k = if self.broadcast { 0 } else { i };
        rows_pose(&self.values[16 * k..16 * k + 16], true).map_err(|msg| {
            if self.broadcast {
                format!("{}{msg}", self.name)
            } else {
                format!("{}[{i}]{msg}", self.name)
            }
        })
    }
}

fn read_poses(obj: &Bound<'_, PyAny>, name: &'static str) -> PyResult<Poses> {
    if let Ok((values, _)) = f64_array(obj, name, &[Some(4), Some(4)], "", false) {
        return Ok(Poses {
            name,
            values,
            broadcast: true,
        });
    }
    let (values, _) = f64_array(obj, name, &[None, Some(4), Some(4)], "N", false)?;
    Ok(Poses {
        name,
        values,
        broadcast: false,
    })
}

/// Benchmark aid (docs/python.md): seconds taken by ``repeats`` calls of the Rust query
/// behind :func:`toc` (shapes and motions read once, outside the timing); the difference to
/// the public function's time per call is the Python overhead.
#[pyfunction]
#[pyo3(name = "_time_toc", signature = (a, motion_a, b, motion_b, repeats = 1, tolerance = 1e-3))]
pub(crate) fn time_toc(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    motion_a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    motion_b: &Bound<'_, PyAny>,
    repeats: u32,
    tolerance: f64,
) -> PyResult<f64> {
    let sa = shape_arg(a, "a")?;
    let sb = shape_arg(b, "b")?;
    let ma = motion_arg(motion_a, "motion_a")?;
    let mb = motion_arg(motion_b, "motion_b")?;
    let opts = options(tolerance, 1000, false);
    let (sa, sb) = (sa.shape(), sb.shape());
    let elapsed = py.detach(|| -> Result<f64, ccd::CaError> {
        let start = std::time::Instant::now();
        for _ in 0..repeats {
            std::hint::black_box(ca_rigid::time_of_contact_shapes(sa, &ma, sb, &mb, &opts))?;
        }
        Ok(start.elapsed().as_secs_f64())
    });
    elapsed.map_err(to_py)
}

/// The name of a status, as Python sees it.
pub(crate) fn status_name(status: Status) -> &'static str {
    match status {
        Status::Converged => "converged",
        Status::InitiallyTouching => "initially_touching",
        Status::OutOfIterations => "out_of_iterations",
        Status::Stalled => "stalled",
    }
}

/// A feature as a tuple: `("vertex", i)`, `("edge", i, j)` or `("face", i)`.
pub(crate) fn feature_tuple<'py>(py: Python<'py>, f: Feature) -> PyResult<Bound<'py, PyTuple>> {
    match f {
        Feature::Vertex(i) => ("vertex", i).into_pyobject(py),
        Feature::Edge(i, j) => ("edge", i, j).into_pyobject(py),
        Feature::Face(i) => ("face", i).into_pyobject(py),
    }
}

/// A feature as Python writes its tuple: `('vertex', 5)`, `('edge', 1, 2)`, `('face', 0)`.
pub(crate) fn feature_repr(f: Feature) -> String {
    match f {
        Feature::Vertex(i) => format!("('vertex', {i})"),
        Feature::Edge(i, j) => format!("('edge', {i}, {j})"),
        Feature::Face(i) => format!("('face', {i})"),
    }
}
