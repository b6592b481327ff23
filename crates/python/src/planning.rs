//! `ccd.PlanningScene`: robots from URDF (+ SRDF), a static environment of meshes and
//! analytic shapes with poses, attached objects, allowed-collision overrides, and the
//! planner's queries (edge, path, batch, in-collision, clearance), safe from several threads.

use std::path::PathBuf;
use std::sync::{Arc, PoisonError, RwLock};

use ccd::ca_articulated::planning::{self, ObjectShape, PlanningError};
use ccd::ca_articulated::{self, QueryOptions};
use ccd::geometry::glam::{DAffine3, DVec3};
use ccd::kinematics::urdf::UrdfOptions;
use numpy::PyArray1;
use pyo3::prelude::*;

use crate::arrays::{f64_array, pose};
use crate::errors::{CcdError, require_file};
use crate::kernels::{
    CONVERGED, INITIALLY_TOUCHING, NO_CONTACT, OUT_OF_ITERATIONS, STALLED, with_threads,
};
use crate::rigid::{Mesh, PyContact};
use crate::robot::RobotContact;

pyo3::create_exception!(
    ccd,
    PlanningSceneError,
    CcdError,
    "Input rejected by a ccd.PlanningScene (a ccd.CcdError, so a ValueError): the message names the argument."
);

/// The Python exception for a planning error (messages name the Python arguments: the Rust
/// API uses the same names).
fn to_py(e: PlanningError) -> PyErr {
    PlanningSceneError::new_err(crate::errors::python_message(&e.to_string()))
}

/// A planning scene: robots loaded from URDF (+ SRDF), a static environment of named
/// objects (meshes, boxes, spheres, cylinders, each with a 4x4 pose), objects attached to
/// robot links, allowed-collision overrides by link name, and the queries of a motion
/// planner. Queries release the GIL and may run from several threads at once.
///
/// Joint vectors ``q`` concatenate the robots' joint values in the order the robots were
/// added (:attr:`joint_names`). Values must be finite and within their joint limits: a NaN
/// or out-of-limit value raises :class:`PlanningSceneError` (never clamped). Contacts name
/// their parts by link name (``robot/link`` when two robots share it), attached-object
/// name or environment-object name.
///
/// Example:
///     >>> import ccd, os, tempfile
///     >>> import numpy as np
///     >>> urdf = '''<robot name="arm">
///     ...   <link name="base"><collision><geometry><box size="0.2 0.2 0.2"/></geometry></collision></link>
///     ...   <link name="bar"><collision><origin xyz="1 0 0"/><geometry><box size="2 0.1 0.1"/></geometry></collision></link>
///     ...   <joint name="turn" type="revolute"><origin xyz="0 0 0.3"/><parent link="base"/><child link="bar"/>
///     ...     <axis xyz="0 0 1"/><limit lower="-3" upper="3" effort="1" velocity="1"/></joint></robot>'''
///     >>> path = os.path.join(tempfile.mkdtemp(), "arm.urdf")
///     >>> with open(path, "w") as out:
///     ...     _ = out.write(urdf)
///     >>> scene = ccd.PlanningScene()
///     >>> scene.add_robot(path)
///     >>> post = np.eye(4); post[:3, 3] = [0.0, 1.5, 0.3]
///     >>> scene.add_object("post", cylinder=(0.1, 1.0), pose=post)
///     >>> scene.check_edge([0.0], [0.5]) is None
///     True
///     >>> hit = scene.check_edge([0.0], [2.0])
///     >>> hit.part_a, hit.part_b
///     ('bar', 'post')
///     >>> found = scene.check_path([[0.0], [0.5], [2.0]])
///     >>> found.segment
///     1
///     >>> scene.in_collision([0.0]), round(scene.clearance([0.0]).distance, 2)
///     (False, 1.3)
#[pyclass(frozen, module = "ccd", name = "PlanningScene")]
pub(crate) struct PyPlanningScene {
    inner: RwLock<planning::PlanningScene>,
}

/// The first contact along a path: the segment (``waypoints[segment] ->
/// waypoints[segment + 1]``), its time of contact in the segment, and the parts.
#[pyclass(frozen, module = "ccd", name = "PathContact", get_all)]
pub(crate) struct PathContact {
    /// Index of the segment.
    segment: usize,
    /// Time of contact in the segment, in [0, 1].
    toc: f64,
    /// The first part (a link or attached object).
    part_a: String,
    /// The second part.
    part_b: String,
    /// The :class:`Contact`.
    contact: Py<PyContact>,
}

#[pymethods]
impl PathContact {
    fn __repr__(&self) -> String {
        format!(
            "ccd.PathContact(segment={}, toc={}, '{}', '{}')",
            self.segment, self.toc, self.part_a, self.part_b
        )
    }
}

/// The closest pair of a pose: its distance, the two parts and the closest points (world).
#[pyclass(frozen, module = "ccd", name = "Clearance")]
pub(crate) struct Clearance {
    c: planning::Clearance,
}

#[pymethods]
impl Clearance {
    /// Distance of the closest pair (0: touching or intersecting).
    #[getter]
    fn distance(&self) -> f64 {
        self.c.distance
    }
    /// The first part.
    #[getter]
    fn part_a(&self) -> String {
        self.c.a.clone()
    }
    /// The second part.
    #[getter]
    fn part_b(&self) -> String {
        self.c.b.clone()
    }
    /// Closest point on ``part_a`` (world).
    #[getter]
    fn point_a<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_slice(py, &self.c.point_a.to_array())
    }
    /// Closest point on ``part_b`` (world).
    #[getter]
    fn point_b<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_slice(py, &self.c.point_b.to_array())
    }
    fn __repr__(&self) -> String {
        format!(
            "ccd.Clearance({}, '{}', '{}')",
            self.c.distance, self.c.a, self.c.b
        )
    }
}

fn options(boolean: bool, tolerance: f64, max_iterations: u32) -> QueryOptions {
    QueryOptions::default()
        .with_mode(if boolean {
            ca_articulated::Mode::Boolean
        } else {
            ca_articulated::Mode::Toc
        })
        .with_tolerance(tolerance)
        .with_max_iterations(max_iterations)
}

/// The one shape given among `mesh`, `box`, `sphere`, `cylinder`.
fn shape(
    mesh: Option<&Bound<'_, Mesh>>,
    r#box: Option<&Bound<'_, PyAny>>,
    sphere: Option<f64>,
    cylinder: Option<(f64, f64)>,
) -> PyResult<ObjectShape> {
    let given = usize::from(mesh.is_some())
        + usize::from(r#box.is_some())
        + usize::from(sphere.is_some())
        + usize::from(cylinder.is_some());
    if given != 1 {
        return Err(PlanningSceneError::new_err(format!(
            "give exactly one of mesh, box, sphere, cylinder ({given} given)"
        )));
    }
    if let Some(m) = mesh {
        return Ok(ObjectShape::Mesh(Arc::new(
            m.get().body.mesh_bvh().mesh().clone(),
        )));
    }
    if let Some(b) = r#box {
        let (v, _) = f64_array(b, "box", &[Some(3)], "", true)?;
        return Ok(ObjectShape::Box {
            size: DVec3::new(v[0], v[1], v[2]),
        });
    }
    if let Some(radius) = sphere {
        return Ok(ObjectShape::Sphere { radius });
    }
    let (radius, length) = cylinder.unwrap_or_default();
    Ok(ObjectShape::Cylinder { radius, length })
}

fn status_code(s: ccd::ca_rigid::Status) -> u8 {
    match s {
        ccd::ca_rigid::Status::Converged => CONVERGED,
        ccd::ca_rigid::Status::InitiallyTouching => INITIALLY_TOUCHING,
        ccd::ca_rigid::Status::OutOfIterations => OUT_OF_ITERATIONS,
        ccd::ca_rigid::Status::Stalled => STALLED,
    }
}

impl PyPlanningScene {
    fn read(&self) -> std::sync::RwLockReadGuard<'_, planning::PlanningScene> {
        self.inner.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, planning::PlanningScene> {
        self.inner.write().unwrap_or_else(PoisonError::into_inner)
    }

    /// A joint vector (1-D, any length: the width is checked by the scene, naming `name`).
    fn joints(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<Vec<f64>> {
        let (q, _) = f64_array(obj, name, &[None], "dof", false)?;
        Ok(q)
    }

    fn optional_pose(p: Option<&Bound<'_, PyAny>>) -> PyResult<DAffine3> {
        p.map_or(Ok(DAffine3::IDENTITY), |p| pose(p, "pose"))
    }
}

#[pymethods]
impl PyPlanningScene {
    #[new]
    fn new() -> Self {
        Self {
            inner: RwLock::new(planning::PlanningScene::new()),
        }
    }

    /// Adds a robot from a URDF (and optionally an SRDF whose ``disable_collisions`` pairs
    /// join its self-collision filter), named ``name`` or its ``<robot name>``. Packages and
    /// path confinement as :meth:`Robot.load`.
    #[pyo3(signature = (urdf, srdf = None, packages = None, name = None, allow_outside_paths = false))]
    fn add_robot(
        &self,
        py: Python<'_>,
        urdf: PathBuf,
        srdf: Option<PathBuf>,
        packages: Option<std::collections::BTreeMap<String, PathBuf>>,
        name: Option<String>,
        allow_outside_paths: bool,
    ) -> PyResult<()> {
        require_file(&urdf, "URDF file")?;
        if let Some(s) = &srdf {
            require_file(s, "SRDF file")?;
        }
        let mut opts = UrdfOptions::default();
        for (prefix, dir) in packages.unwrap_or_default() {
            opts = opts.with_package(prefix, dir);
        }
        opts.allow_outside_paths = allow_outside_paths;
        py.detach(|| {
            self.write()
                .load_robot(&urdf, srdf.as_deref(), &opts, name.as_deref())
        })
        .map_err(to_py)
    }

    /// Adds a static object ``name``: exactly one of ``mesh`` (a :class:`Mesh`), ``box``
    /// (full extents ``(x, y, z)``), ``sphere`` (radius) or ``cylinder`` (``(radius,
    /// length)``, axis z), centred on its frame, placed by ``pose`` (4x4, world; identity
    /// by default). Spheres and cylinders are tessellated outside their surface (contacts
    /// are never missed, may come up to 0.5 % of the radius early).
    #[pyo3(signature = (name, mesh = None, r#box = None, sphere = None, cylinder = None, pose = None))]
    #[allow(clippy::too_many_arguments)]
    fn add_object(
        &self,
        py: Python<'_>,
        name: &str,
        mesh: Option<&Bound<'_, Mesh>>,
        r#box: Option<&Bound<'_, PyAny>>,
        sphere: Option<f64>,
        cylinder: Option<(f64, f64)>,
        pose: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let shape = shape(mesh, r#box, sphere, cylinder)?;
        let pose = Self::optional_pose(pose)?;
        py.detach(|| self.write().add_object(name, shape, pose))
            .map_err(to_py)
    }

    /// Removes the static object ``name``.
    fn remove_object(&self, py: Python<'_>, name: &str) -> PyResult<()> {
        py.detach(|| self.write().remove_object(name))
            .map_err(to_py)
    }

    /// Attaches an object to robot link ``link`` (shape arguments as :meth:`add_object`,
    /// ``pose`` in the link's frame): it moves with the link and collides with everything
    /// but its link, the links rigidly attached to it and ``touch_links``.
    #[pyo3(signature = (name, link, mesh = None, r#box = None, sphere = None, cylinder = None, pose = None, touch_links = Vec::new()))]
    #[allow(clippy::too_many_arguments)]
    fn attach_object(
        &self,
        py: Python<'_>,
        name: &str,
        link: &str,
        mesh: Option<&Bound<'_, Mesh>>,
        r#box: Option<&Bound<'_, PyAny>>,
        sphere: Option<f64>,
        cylinder: Option<(f64, f64)>,
        pose: Option<&Bound<'_, PyAny>>,
        touch_links: Vec<String>,
    ) -> PyResult<()> {
        let shape = shape(mesh, r#box, sphere, cylinder)?;
        let pose = Self::optional_pose(pose)?;
        let touch: Vec<&str> = touch_links.iter().map(String::as_str).collect();
        py.detach(|| self.write().attach_object(name, link, shape, pose, &touch))
            .map_err(to_py)
    }

    /// Detaches (and removes) the attached object ``name``.
    fn detach_object(&self, py: Python<'_>, name: &str) -> PyResult<()> {
        py.detach(|| self.write().detach_object(name))
            .map_err(to_py)
    }

    /// Allows (``allowed=True``: never tested) or forbids (``False``: always tested, even if
    /// the SRDF excluded it) contact between two links or attached objects of one robot.
    #[pyo3(signature = (link_a, link_b, allowed = true))]
    fn set_allowed(
        &self,
        py: Python<'_>,
        link_a: &str,
        link_b: &str,
        allowed: bool,
    ) -> PyResult<()> {
        py.detach(|| self.write().set_allowed(link_a, link_b, allowed))
            .map_err(to_py)
    }

    /// Names of the joint values, in the order of ``q``.
    #[getter]
    fn joint_names(&self) -> Vec<String> {
        self.read().joint_names()
    }

    /// Number of joint values.
    #[getter]
    fn dof(&self) -> usize {
        self.read().dof()
    }

    /// Names of the parts that can be in a contact (links with geometry, attached objects,
    /// environment objects).
    #[getter]
    fn part_names(&self) -> Vec<String> {
        self.read().part_names()
    }

    /// Checks the edge ``q0 -> q1``: ``None`` when free, else a :class:`RobotContact` (the
    /// first contact, or with ``boolean=True`` any certain contact).
    #[pyo3(signature = (q0, q1, boolean = false, tolerance = 1e-3, max_iterations = 1000))]
    fn check_edge(
        &self,
        py: Python<'_>,
        q0: &Bound<'_, PyAny>,
        q1: &Bound<'_, PyAny>,
        boolean: bool,
        tolerance: f64,
        max_iterations: u32,
    ) -> PyResult<Option<RobotContact>> {
        let (q0, q1) = (Self::joints(q0, "q0")?, Self::joints(q1, "q1")?);
        let opts = options(boolean, tolerance, max_iterations);
        let hit = py
            .detach(|| self.read().check_edge(&q0, &q1, &opts))
            .map_err(to_py)?;
        hit.map(|c| RobotContact::new(py, c.a, c.b, c.contact))
            .transpose()
    }

    /// Checks the piecewise-linear path through ``waypoints`` (array ``(K, dof)``, K >= 2):
    /// ``None`` when free, else a :class:`PathContact` (first segment in contact, its toc).
    #[pyo3(signature = (waypoints, boolean = false, tolerance = 1e-3, max_iterations = 1000))]
    fn check_path(
        &self,
        py: Python<'_>,
        waypoints: &Bound<'_, PyAny>,
        boolean: bool,
        tolerance: f64,
        max_iterations: u32,
    ) -> PyResult<Option<PathContact>> {
        let (w, shape) = f64_array(waypoints, "waypoints", &[None, None], "K", false)?;
        let width = shape[1];
        let rows: Vec<&[f64]> = if width == 0 {
            vec![&[][..]; shape[0]]
        } else {
            w.chunks_exact(width).collect()
        };
        let opts = options(boolean, tolerance, max_iterations);
        let hit = py
            .detach(|| self.read().check_path(&rows, &opts))
            .map_err(to_py)?;
        hit.map(|p| {
            Ok(PathContact {
                segment: p.segment,
                toc: p.toc,
                part_a: p.contact.a,
                part_b: p.contact.b,
                contact: Py::new(
                    py,
                    PyContact {
                        c: p.contact.contact.into(),
                    },
                )?,
            })
        })
        .transpose()
    }

    /// Checks a batch of edges ``q0[i] -> q1[i]`` (arrays ``(N, dof)``) on all cores (or
    /// ``threads``), the GIL released. Returns ``(toc, status, part_a, part_b)``: float64[N]
    /// (NaN: free), uint8[N] status codes and two lists of part names (``None``: free).
    #[pyo3(signature = (q0, q1, boolean = true, tolerance = 1e-3, max_iterations = 1000, threads = None))]
    #[allow(clippy::too_many_arguments, clippy::type_complexity)]
    fn check_edges<'py>(
        &self,
        py: Python<'py>,
        q0: &Bound<'py, PyAny>,
        q1: &Bound<'py, PyAny>,
        boolean: bool,
        tolerance: f64,
        max_iterations: u32,
        threads: Option<usize>,
    ) -> PyResult<(
        Bound<'py, PyArray1<f64>>,
        Bound<'py, PyArray1<u8>>,
        Vec<Option<String>>,
        Vec<Option<String>>,
    )> {
        let (a, da) = f64_array(q0, "q0", &[None, None], "N", false)?;
        let (b, db) = f64_array(q1, "q1", &[None, None], "N", false)?;
        if da != db {
            return Err(PlanningSceneError::new_err(format!(
                "q0 and q1 must have the same shape: {da:?} and {db:?}"
            )));
        }
        let width = da[1];
        let rows = |v: &[f64]| -> Vec<Vec<f64>> {
            if width == 0 {
                vec![Vec::new(); da[0]]
            } else {
                v.chunks_exact(width).map(<[f64]>::to_vec).collect()
            }
        };
        let edges: Vec<(Vec<f64>, Vec<f64>)> = rows(&a).into_iter().zip(rows(&b)).collect();
        let opts = options(boolean, tolerance, max_iterations);
        let scene = self.read();
        // every row checked first, under the Python names
        for (i, (x, y)) in edges.iter().enumerate() {
            scene.validate(x, &format!("q0[{i}]")).map_err(to_py)?;
            scene.validate(y, &format!("q1[{i}]")).map_err(to_py)?;
        }
        drop(scene);
        let answers = py
            .detach(|| with_threads(threads, || self.read().check_edges(&edges, &opts)))
            .map_err(PlanningSceneError::new_err)?;
        let n = answers.len();
        let (mut toc, mut status) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let (mut pa, mut pb) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for answer in answers {
            match answer.map_err(to_py)? {
                None => {
                    toc.push(f64::NAN);
                    status.push(NO_CONTACT);
                    pa.push(None);
                    pb.push(None);
                }
                Some(c) => {
                    toc.push(c.contact.toc);
                    status.push(status_code(c.contact.status));
                    pa.push(Some(c.a));
                    pb.push(Some(c.b));
                }
            }
        }
        Ok((
            PyArray1::from_vec(py, toc),
            PyArray1::from_vec(py, status),
            pa,
            pb,
        ))
    }

    /// Whether the pose ``q`` is in collision: some tested pair within ``tolerance`` (the
    /// contact distance of the edge queries).
    #[pyo3(signature = (q, tolerance = 1e-3))]
    fn in_collision(&self, py: Python<'_>, q: &Bound<'_, PyAny>, tolerance: f64) -> PyResult<bool> {
        let q = Self::joints(q, "q")?;
        let opts = QueryOptions::default().with_tolerance(tolerance);
        py.detach(|| self.read().in_collision(&q, &opts))
            .map_err(to_py)
    }

    /// The closest tested pair at pose ``q``: a :class:`Clearance` (``None`` when the scene
    /// has no pair to test).
    fn clearance(&self, py: Python<'_>, q: &Bound<'_, PyAny>) -> PyResult<Option<Clearance>> {
        let q = Self::joints(q, "q")?;
        let c = py.detach(|| self.read().clearance(&q)).map_err(to_py)?;
        Ok(c.map(|c| Clearance { c }))
    }

    fn __repr__(&self) -> String {
        let s = self.read();
        format!(
            "ccd.PlanningScene({} joint values, {} parts)",
            s.dof(),
            s.part_names().len()
        )
    }
}
