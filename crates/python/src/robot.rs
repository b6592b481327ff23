//! `ccd.Robot`: an articulated body loaded from a URDF (+ SRDF), checked along joint-space
//! edges `q0 → q1` against an environment mesh and itself (CATCH), one edge or a batch.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use ccd::ca_articulated::{
    self, ArticulatedBody, ArticulatedScene, ArticulatedWorkspace, BodyStep, Part, QueryOptions,
    QueryResult,
};
use ccd::kinematics::urdf::UrdfOptions;
use numpy::PyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::arrays::f64_array;
use crate::errors::{require_file, to_py};
use crate::kernels::{
    CONVERGED, INITIALLY_TOUCHING, NO_CONTACT, OUT_OF_ITERATIONS, STALLED, with_threads,
};
use crate::rigid::{Mesh, PyContact};

/// A robot loaded from a URDF file (collision geometry of each link; an optional SRDF adds its
/// ``disable_collisions`` pairs to the self-collision filter). Joint vectors ``q`` follow
/// :attr:`joint_names`. Each joint moves with constant velocity in joint space from ``q0``
/// (t = 0) to ``q1`` (t = 1); a revolute joint turns by ``q1 - q0``, any angle.
///
/// Mesh files are confined to the URDF's directory and the ``packages`` directories
/// (``{"name": "/path"}`` resolves ``package://name/...``) unless ``allow_outside_paths``.
///
/// Example:
///     >>> import ccd, os, tempfile
///     >>> urdf = '''<robot name="arm">
///     ...   <link name="base"><collision><geometry><box size="0.2 0.2 0.2"/></geometry></collision></link>
///     ...   <link name="bar"><collision><origin xyz="1 0 0"/><geometry><box size="2 0.1 0.1"/></geometry></collision></link>
///     ...   <joint name="turn" type="continuous"><origin xyz="0 0 0.3"/><parent link="base"/><child link="bar"/>
///     ...     <axis xyz="0 0 1"/></joint></robot>'''
///     >>> path = os.path.join(tempfile.mkdtemp(), "arm.urdf")
///     >>> with open(path, "w") as out:
///     ...     _ = out.write(urdf)
///     >>> robot = ccd.Robot.load(path)
///     >>> robot.joint_names, robot.dof
///     (['turn'], 1)
///     >>> post = ccd.Mesh([[1.4, 0.9, 0], [1.6, 0.9, 0], [1.5, 1.1, 0], [1.5, 1.0, 1]],
///     ...                 [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])
///     >>> robot.check_edge([0.0], [0.3], environment=post) is None    # free
///     True
///     >>> hit = robot.check_edge([0.0], [1.5], environment=post)      # sweeps into the post
///     >>> hit.part_a, hit.part_b, hit.contact.status
///     ('bar', 'environment', 'converged')
///     >>> robot.check_edge([0.0], [1.5], environment=post, boolean=True) is not None
///     True
#[pyclass(frozen, module = "ccd", name = "Robot")]
pub(crate) struct Robot {
    body: Arc<ArticulatedBody>,
    name: String,
    link_names: Vec<String>,
    joint_names: Vec<String>,
    /// Query buffers of finished `check_edge` calls, reused by the next ones (a planner's
    /// calls would otherwise allocate and grow them afresh every time).
    pool: Mutex<Vec<ArticulatedWorkspace>>,
}

/// A contact of a robot query: the two parts (link names, or ``"environment"``) and the
/// :class:`Contact` (``part_a``'s side is the contact's a side).
#[pyclass(frozen, module = "ccd", name = "RobotContact", get_all)]
pub(crate) struct RobotContact {
    /// Link name of the first part.
    part_a: String,
    /// Link name of the second part, or ``"environment"``.
    part_b: String,
    /// Time, witnesses, normal, features, status and iterations.
    contact: Py<PyContact>,
}

#[pymethods]
impl RobotContact {
    /// Time of contact (conservative).
    #[getter]
    fn toc(&self) -> f64 {
        self.contact.get().c.toc
    }
    fn __repr__(&self) -> String {
        format!(
            "ccd.RobotContact('{}', '{}', toc={}, status='{}')",
            self.part_a,
            self.part_b,
            self.toc(),
            crate::queries::status_name(self.contact.get().c.status)
        )
    }
}

impl RobotContact {
    /// A contact between parts named `part_a` and `part_b`.
    pub(crate) fn new(
        py: Python<'_>,
        part_a: String,
        part_b: String,
        c: ccd::ca_rigid::Contact,
    ) -> PyResult<Self> {
        Ok(Self {
            part_a,
            part_b,
            contact: Py::new(py, PyContact { c: c.into() })?,
        })
    }
}

impl Robot {
    fn part_name(&self, p: Part) -> String {
        match p {
            Part::Link { link, .. } => self
                .link_names
                .get(link.index())
                .cloned()
                .unwrap_or_else(|| format!("link {}", link.index())),
            Part::Rigid(i) => format!("rigid {i}"),
            Part::Environment => "environment".into(),
        }
    }

    /// The scene of this robot and `environment`: O(links) once the environment is
    /// prepared (the preparation is cached with the mesh object, so a planner's calls with
    /// one environment share it).
    fn scene(&self, py: Python<'_>, environment: Option<&Bound<'_, Mesh>>) -> ArticulatedScene {
        let mut scene = ArticulatedScene::new();
        scene.add_articulated(Arc::clone(&self.body));
        if let Some(env) = environment {
            let mesh = env.get();
            scene.set_prepared_environment(py.detach(|| mesh.prepared()));
        }
        scene
    }

    fn joints(&self, obj: &Bound<'_, PyAny>, name: &str) -> PyResult<Vec<f64>> {
        let (q, _) = f64_array(obj, name, &[Some(self.dof())], "", true)?;
        Ok(q)
    }

    fn dof(&self) -> usize {
        self.body.model().dof()
    }
}

fn options(
    boolean: bool,
    tolerance: f64,
    max_iterations: u32,
    self_collision: bool,
) -> QueryOptions {
    QueryOptions::default()
        .with_mode(if boolean {
            ca_articulated::Mode::Boolean
        } else {
            ca_articulated::Mode::Toc
        })
        .with_tolerance(tolerance)
        .with_max_iterations(max_iterations)
        .with_self_collision(self_collision)
}

#[pymethods]
impl Robot {
    /// Loads a URDF (and optionally an SRDF). Raises ``FileNotFoundError`` for a missing
    /// URDF or SRDF and ``ccd.CcdError`` for a malformed file or a missing or forbidden mesh.
    #[staticmethod]
    #[pyo3(signature = (urdf, srdf = None, packages = None, allow_outside_paths = false))]
    fn load(
        py: Python<'_>,
        urdf: PathBuf,
        srdf: Option<PathBuf>,
        packages: Option<std::collections::BTreeMap<String, PathBuf>>,
        allow_outside_paths: bool,
    ) -> PyResult<Self> {
        require_file(&urdf, "URDF file")?;
        if let Some(s) = &srdf {
            require_file(s, "SRDF file")?;
        }
        let mut opts = UrdfOptions::default();
        for (prefix, dir) in packages.unwrap_or_default() {
            opts = opts.with_package(prefix, dir);
        }
        opts.allow_outside_paths = allow_outside_paths;
        let (body, robot) = py
            .detach(|| ArticulatedBody::from_urdf(&urdf, srdf.as_deref(), &opts))
            .map_err(to_py)?;
        let model = &robot.model;
        let link_names = model.links().iter().map(|l| l.name.clone()).collect();
        let mut dofs: Vec<(usize, String, usize)> = model
            .links()
            .iter()
            .enumerate()
            .filter(|(_, l)| l.joint.dof() > 0)
            .map(|(i, l)| {
                let name = robot.joint_names[i]
                    .clone()
                    .unwrap_or_else(|| l.name.clone());
                (l.first_dof, name, l.joint.dof())
            })
            .collect();
        dofs.sort();
        let mut joint_names = Vec::new();
        for (_, name, n) in dofs {
            if n == 1 {
                joint_names.push(name);
            } else {
                joint_names.extend((0..n).map(|k| format!("{name}[{k}]")));
            }
        }
        Ok(Self {
            body: Arc::new(body),
            name: robot.name,
            link_names,
            joint_names,
            pool: Mutex::new(Vec::new()),
        })
    }

    /// The ``<robot name>``.
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// Number of joint values (length of ``q``).
    #[getter]
    #[pyo3(name = "dof")]
    fn py_dof(&self) -> usize {
        self.dof()
    }

    /// Names of the joint values, in the order of ``q``.
    #[getter]
    fn joint_names(&self) -> Vec<String> {
        self.joint_names.clone()
    }

    /// Names of the links (model order).
    #[getter]
    fn link_names(&self) -> Vec<String> {
        self.link_names.clone()
    }

    /// Checks the edge ``q0 -> q1`` against ``environment`` (a :class:`Mesh` in world
    /// coordinates, optional) and, with ``self_collision``, the robot itself. Returns
    /// ``None`` when the edge is collision-free, else a :class:`RobotContact`: the first
    /// contact, or with ``boolean=True`` any certain contact (faster; for planners).
    #[pyo3(signature = (q0, q1, environment = None, boolean = false, tolerance = 1e-3, max_iterations = 1000, self_collision = true))]
    #[allow(clippy::too_many_arguments)]
    fn check_edge(
        &self,
        py: Python<'_>,
        q0: &Bound<'_, PyAny>,
        q1: &Bound<'_, PyAny>,
        environment: Option<&Bound<'_, Mesh>>,
        boolean: bool,
        tolerance: f64,
        max_iterations: u32,
        self_collision: bool,
    ) -> PyResult<Option<RobotContact>> {
        let (q0, q1) = (self.joints(q0, "q0")?, self.joints(q1, "q1")?);
        let scene = self.scene(py, environment);
        let opts = options(boolean, tolerance, max_iterations, self_collision);
        let result = py
            .detach(|| {
                let mut ws = self
                    .pool
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .pop()
                    .unwrap_or_default();
                let mut out = QueryResult::default();
                let r = scene.query_with(
                    &[BodyStep::Joints { q0: &q0, q1: &q1 }],
                    &opts,
                    &mut ws,
                    &mut out,
                );
                self.pool
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(ws);
                r.map(|()| out)
            })
            .map_err(to_py)?;
        let Some(first) = result.first() else {
            return Ok(None);
        };
        Ok(Some(RobotContact {
            part_a: self.part_name(first.a),
            part_b: self.part_name(first.b),
            contact: Py::new(
                py,
                PyContact {
                    c: first.contact.into(),
                },
            )?,
        }))
    }

    /// Checks a batch of edges ``q0[i] -> q1[i]`` (arrays of shape ``(N, dof)``) on all cores
    /// (or ``threads``), the GIL released. Returns ``(toc, status)``: float64[N] (NaN: edge
    /// free) and uint8[N] status codes (``ccd.NO_CONTACT``, ``ccd.CONVERGED``, ...). In
    /// Boolean mode (default) ``toc`` is a time in contact, not necessarily the first.
    #[pyo3(signature = (q0, q1, environment = None, boolean = true, tolerance = 1e-3, max_iterations = 1000, self_collision = true, threads = None))]
    #[allow(clippy::too_many_arguments, clippy::type_complexity)]
    fn check_edges<'py>(
        &self,
        py: Python<'py>,
        q0: &Bound<'py, PyAny>,
        q1: &Bound<'py, PyAny>,
        environment: Option<&Bound<'py, Mesh>>,
        boolean: bool,
        tolerance: f64,
        max_iterations: u32,
        self_collision: bool,
        threads: Option<usize>,
    ) -> PyResult<(Bound<'py, PyArray1<f64>>, Bound<'py, PyArray1<u8>>)> {
        let dof = self.dof();
        let (a, da) = f64_array(q0, "q0", &[None, Some(dof)], "N", true)?;
        let (b, db) = f64_array(q1, "q1", &[None, Some(dof)], "N", true)?;
        if da != db {
            return Err(PyValueError::new_err(format!(
                "q0 and q1 must have the same shape: {da:?} and {db:?}"
            )));
        }
        let edges: Vec<(Vec<f64>, Vec<f64>)> = if dof == 0 {
            (0..da[0]).map(|_| (Vec::new(), Vec::new())).collect()
        } else {
            a.chunks_exact(dof)
                .zip(b.chunks_exact(dof))
                .map(|(x, y)| (x.to_vec(), y.to_vec()))
                .collect()
        };
        let scene = self.scene(py, environment);
        let opts = options(boolean, tolerance, max_iterations, self_collision);
        let answers = py
            .detach(|| with_threads(threads, || scene.check_edges(&edges, &opts)))
            .map_err(PyValueError::new_err)?
            .map_err(to_py)?;
        let mut toc = Vec::with_capacity(answers.len());
        let mut status = Vec::with_capacity(answers.len());
        for (i, answer) in answers.into_iter().enumerate() {
            let r = answer.map_err(|e| PyValueError::new_err(format!("edge {i}: {e}")))?;
            match r.first() {
                None => {
                    toc.push(f64::NAN);
                    status.push(NO_CONTACT);
                }
                Some(c) => {
                    toc.push(c.contact.toc);
                    status.push(match c.contact.status {
                        ccd::ca_rigid::Status::Converged => CONVERGED,
                        ccd::ca_rigid::Status::InitiallyTouching => INITIALLY_TOUCHING,
                        ccd::ca_rigid::Status::OutOfIterations => OUT_OF_ITERATIONS,
                        ccd::ca_rigid::Status::Stalled => STALLED,
                    });
                }
            }
        }
        Ok((PyArray1::from_vec(py, toc), PyArray1::from_vec(py, status)))
    }

    fn __repr__(&self) -> String {
        format!(
            "ccd.Robot('{}', {} links, {} joint values)",
            self.name,
            self.link_names.len(),
            self.dof()
        )
    }
}
