//! `ccd.World`: the collision manager over `ccd_world::World` (bodies of any shape, each
//! with its motion for the coming step; one step gives the earliest contact, every contact
//! or a yes/no, with the body ids), and its result `ccd.WorldContact`.

use std::collections::HashMap;

use ccd::prelude::{DAffine3, RigidMotion};
use ccd::world::{BodyHandle, Collider, Mode, StepOptions, World, WorldError};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::errors::CcdError;
use crate::poses::{any_pose, motion_arg, pose_array, vec3};

use crate::queries::{PyContact, check_options};
use crate::shapes::shape_arg;

/// A contact of one :meth:`World.step`: the two body ids (``body_a < body_b``) and the
/// :class:`Contact` (``contact.point_a`` lies on ``body_a``; time in the step's [0, 1]).
#[pyclass(frozen, module = "ccd", name = "WorldContact")]
pub(crate) struct PyWorldContact {
    body_a: u64,
    body_b: u64,
    contact: Py<PyContact>,
}

#[pymethods]
impl PyWorldContact {
    /// Id of the first body (as returned by :meth:`World.add`).
    #[getter]
    fn body_a(&self) -> u64 {
        self.body_a
    }
    /// Id of the second body.
    #[getter]
    fn body_b(&self) -> u64 {
        self.body_b
    }
    /// The pair's contact.
    #[getter]
    fn contact(&self, py: Python<'_>) -> Py<PyContact> {
        self.contact.clone_ref(py)
    }
    /// The contact's time of contact.
    #[getter]
    fn toc(&self, py: Python<'_>) -> f64 {
        self.contact.bind(py).get().c.toc
    }
    fn __repr__(&self, py: Python<'_>) -> String {
        format!(
            "ccd.WorldContact(body_a={}, body_b={}, toc={})",
            self.body_a,
            self.body_b,
            self.toc(py)
        )
    }
}

/// A collision manager: bodies of any shape (as :func:`toc` takes them), each static or
/// moving with a :class:`Motion` over the coming step; :meth:`step` finds the contacts of
/// the step (sweep-and-prune broad phase, conservative advancement per candidate pair,
/// pairs proven apart for several steps are scheduled and skipped) and moves every body to
/// its pose at ``t = 1`` (a body whose motion is not set again keeps its velocities).
///
/// Body ids are integers, never reused. Unknown ids raise ``ccd.CcdError`` naming the
/// argument. Motions must turn about the body's own origin (``center`` of
/// :meth:`Motion.from_velocities` left out).
///
/// Example:
///     >>> import numpy as np, ccd
///     >>> world = ccd.World()
///     >>> ground = world.add(ccd.Box([10, 10, 1]), np.eye(4), static=True)
///     >>> ball = world.add(ccd.Ball(0.5), ccd.Motion.from_velocities(([0, 0, 0, 1], [0, 0, 3]), linear=[0, 0, -4]))
///     >>> hit = world.step()                 # the earliest contact of the step
///     >>> (hit.body_a, hit.body_b), round(hit.toc, 3)   # the ball falls 2 to touch: t = 0.5
///     ((0, 1), 0.5)
///     >>> world.step(mode="boolean")         # it starts the next step touching the box
///     True
///     >>> world.step(mode="all")             # and has fallen past it in the third
///     []
#[pyclass(module = "ccd", name = "World")]
pub(crate) struct PyWorld {
    world: World,
    ids: HashMap<u64, BodyHandle>,
    by_handle: HashMap<BodyHandle, u64>,
    next: u64,
}

fn world_err(e: WorldError) -> PyErr {
    CcdError::new_err(e.to_string())
}

/// A motion for the world: about the body's own origin.
fn world_motion(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<RigidMotion> {
    let m = motion_arg(obj, name)?;
    if m.local_center() != ccd::prelude::DVec3::ZERO {
        return Err(CcdError::new_err(format!(
            "{name}: a world body must turn about its own origin (Motion.from_velocities \
             without center)"
        )));
    }
    Ok(m)
}

impl PyWorld {
    fn dynamic(&self, id: u64, name: &str) -> PyResult<BodyHandle> {
        let h = self.handle(id, name)?;
        if self.world.is_static(h).map_err(world_err)? {
            return Err(CcdError::new_err(format!(
                "{name}: body {id} is static: it has no motion to set"
            )));
        }
        Ok(h)
    }
    /// A step error in Python terms (body ids, not handles).
    fn step_err(&self, e: WorldError) -> PyErr {
        match e {
            WorldError::Ca { a, b, source } => CcdError::new_err(format!(
                "bodies {} and {}: {source}",
                self.id_of(a),
                self.id_of(b)
            )),
            other => world_err(other),
        }
    }

    fn handle(&self, id: u64, name: &str) -> PyResult<BodyHandle> {
        self.ids.get(&id).copied().ok_or_else(|| {
            CcdError::new_err(format!(
                "{name}: body {id} is not in the world (never added, or removed)"
            ))
        })
    }
    fn id_of(&self, h: BodyHandle) -> u64 {
        self.by_handle.get(&h).copied().unwrap_or(u64::MAX)
    }
}

#[pymethods]
impl PyWorld {
    #[new]
    #[pyo3(signature = (tolerance = 1e-3, max_iterations = 1000))]
    fn new(tolerance: f64, max_iterations: u32) -> PyResult<Self> {
        check_options(tolerance, max_iterations)?;
        let ca = ccd::prelude::CaOptions::default()
            .with_tolerance(tolerance)
            .with_max_iterations(max_iterations);
        Ok(Self {
            world: World::new(ca).map_err(world_err)?,
            ids: HashMap::new(),
            by_handle: HashMap::new(),
            next: 0,
        })
    }

    /// Adds a body and returns its id. ``motion``: a :class:`Motion` for the coming step or
    /// a pose (the body is at rest there); ``static=True`` makes it a fixed obstacle at that
    /// pose (``motion`` must then be a pose).
    ///
    /// Example:
    ///     >>> import numpy as np, ccd
    ///     >>> world = ccd.World()
    ///     >>> world.add(ccd.Ball(1.0), np.eye(4)), world.add(ccd.Box([1, 1, 1]), ([0, 0, 0, 1], [5, 0, 0]), static=True)
    ///     (0, 1)
    #[pyo3(signature = (shape, motion, r#static = false))]
    fn add(
        &mut self,
        shape: &Bound<'_, PyAny>,
        motion: &Bound<'_, PyAny>,
        r#static: bool,
    ) -> PyResult<u64> {
        let s = shape_arg(shape, "shape")?;
        let collider = Collider::shape(s.shape().clone())
            .map_err(|e| CcdError::new_err(format!("shape: {e}")))?;
        let h = if r#static {
            if motion.cast::<crate::poses::PyMotion>().is_ok() {
                return Err(CcdError::new_err(
                    "motion: a static body takes a pose, not a ccd.Motion",
                ));
            }
            let pose: DAffine3 = any_pose(motion, "motion")?;
            self.world
                .insert_static(collider, pose)
                .map_err(world_err)?
        } else {
            let m: RigidMotion = world_motion(motion, "motion")?;
            self.world
                .insert(collider, m)
                .map_err(|e| CcdError::new_err(format!("motion: {e}")))?
        };
        let id = self.next;
        self.next += 1;
        self.ids.insert(id, h);
        self.by_handle.insert(h, id);
        Ok(id)
    }

    /// Removes the body ``body`` (its id is not reused).
    ///
    /// Example:
    ///     >>> import numpy as np, ccd
    ///     >>> world = ccd.World()
    ///     >>> b = world.add(ccd.Ball(1.0), np.eye(4))
    ///     >>> world.remove(b); len(world)
    ///     0
    fn remove(&mut self, body: u64) -> PyResult<()> {
        let h = self.handle(body, "body")?;
        self.world.remove(h).map_err(world_err)?;
        self.ids.remove(&body);
        self.by_handle.remove(&h);
        Ok(())
    }

    /// Sets the motion of body ``body`` for the coming step (a :class:`Motion`, or a pose:
    /// at rest there; a motion need not start where the body is).
    ///
    /// Example:
    ///     >>> import numpy as np, ccd
    ///     >>> world = ccd.World()
    ///     >>> b = world.add(ccd.Ball(1.0), np.eye(4))
    ///     >>> world.set_motion(b, ccd.Motion(np.eye(4), ([0, 0, 0, 1], [2, 0, 0])))
    ///     >>> world.step() is None, float(world.pose(b)[0, 3])
    ///     (True, 2.0)
    fn set_motion(&mut self, body: u64, motion: &Bound<'_, PyAny>) -> PyResult<()> {
        let h = self.dynamic(body, "body")?;
        let m = world_motion(motion, "motion")?;
        self.world
            .set_motion(h, m)
            .map_err(|e| CcdError::new_err(format!("motion: {e}")))
    }

    /// Sets the motion of body ``body`` from its current pose: ``linear`` velocity of its
    /// origin and ``angular`` velocity (world rotation vector, radians per step, any angle).
    ///
    /// Example:
    ///     >>> import numpy as np, ccd
    ///     >>> world = ccd.World()
    ///     >>> b = world.add(ccd.Ball(1.0), np.eye(4))
    ///     >>> world.set_velocities(b, [0, 0, 1], [0, 0, 4 * np.pi])   # two turns while rising by 1
    ///     >>> _ = world.step(); np.round(world.pose(b), 6)[:, 3]
    ///     array([0., 0., 1., 1.])
    fn set_velocities(
        &mut self,
        body: u64,
        linear: &Bound<'_, PyAny>,
        angular: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let h = self.dynamic(body, "body")?;
        let v = vec3(linear, "linear")?;
        let w = vec3(angular, "angular")?;
        self.world
            .set_velocities(h, v, w)
            .map_err(|e| CcdError::new_err(format!("linear/angular: {e}")))
    }

    /// The pose of body ``body`` at the start of the coming step (4x4).
    ///
    /// Example:
    ///     >>> import ccd
    ///     >>> world = ccd.World()
    ///     >>> b = world.add(ccd.Ball(1.0), ([0, 0, 0, 1], [1, 2, 3]))
    ///     >>> world.pose(b)[:3, 3]
    ///     array([1., 2., 3.])
    fn pose<'py>(&self, py: Python<'py>, body: u64) -> PyResult<Bound<'py, numpy::PyArray2<f64>>> {
        let h = self.handle(body, "body")?;
        pose_array(py, &self.world.pose(h).map_err(world_err)?)
    }

    /// The ids of the bodies, in insertion order.
    #[getter]
    fn bodies(&self) -> Vec<u64> {
        let mut v: Vec<u64> = self.ids.keys().copied().collect();
        v.sort_unstable();
        v
    }

    fn __len__(&self) -> usize {
        self.world.len()
    }

    /// Benchmark aid (docs/python.md): runs ``steps`` steps in a Rust loop (no Python
    /// objects built) and returns the seconds taken; the difference to :meth:`step` called
    /// from Python is the binding's overhead per step.
    #[pyo3(name = "_time_steps", signature = (steps, mode = "toc", parallel = false))]
    fn time_steps(
        &mut self,
        py: Python<'_>,
        steps: u32,
        mode: &str,
        parallel: bool,
    ) -> PyResult<f64> {
        let m = match mode {
            "toc" => Mode::Toc,
            "all" => Mode::All,
            "boolean" => Mode::Boolean,
            other => {
                return Err(PyValueError::new_err(format!(
                    "mode must be 'toc', 'all' or 'boolean', got {other:?}"
                )));
            }
        };
        let opts = StepOptions::default().with_mode(m).with_parallel(parallel);
        let world = &mut self.world;
        let out = py.detach(|| -> Result<f64, WorldError> {
            let start = std::time::Instant::now();
            for _ in 0..steps {
                std::hint::black_box(world.step(&opts)?);
            }
            Ok(start.elapsed().as_secs_f64())
        });
        out.map_err(|e| self.step_err(e))
    }

    /// Runs the step: ``mode="toc"`` returns the earliest :class:`WorldContact` (or
    /// ``None``), ``mode="all"`` the list of every touching pair's first contact (sorted by
    /// body pair), ``mode="boolean"`` whether anything touches. Then every body moves to its
    /// pose at ``t = 1``. ``parallel=True`` runs the step on all cores (same answers). The
    /// GIL is released.
    #[pyo3(signature = (mode = "toc", parallel = false))]
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        mode: &str,
        parallel: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let m = match mode {
            "toc" => Mode::Toc,
            "all" => Mode::All,
            "boolean" => Mode::Boolean,
            other => {
                return Err(PyValueError::new_err(format!(
                    "mode must be 'toc', 'all' or 'boolean', got {other:?}"
                )));
            }
        };
        let opts = StepOptions::default().with_mode(m).with_parallel(parallel);
        let world = &mut self.world;
        let report = py.detach(|| world.step(&opts));
        let report = report.map_err(|e| self.step_err(e))?;
        let wrap = |pc: &ccd::world::BodyPairContact| -> PyResult<PyWorldContact> {
            Ok(PyWorldContact {
                body_a: self.id_of(pc.a),
                body_b: self.id_of(pc.b),
                contact: Py::new(
                    py,
                    PyContact {
                        c: pc.contact.into(),
                    },
                )?,
            })
        };
        match m {
            Mode::Boolean => Ok(pyo3::types::PyBool::new(py, report.collides())
                .to_owned()
                .into_any()),
            Mode::All => {
                let items: Vec<PyWorldContact> =
                    report.contacts.iter().map(wrap).collect::<PyResult<_>>()?;
                Ok(PyList::new(py, items)?.into_any())
            }
            _ => match report.earliest() {
                Some(pc) => Ok(Bound::new(py, wrap(pc)?)?.into_any()),
                None => Ok(py.None().into_bound(py)),
            },
        }
    }
}
