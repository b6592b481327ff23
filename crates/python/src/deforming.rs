//! `ccd.DeformingScene`: deforming triangle meshes (vertices moving linearly over a step) with
//! their hybrid BVHs, queried for the first contact, every contact, yes/no or the
//! separation-preserving step size, and updated frame after frame; and
//! `ccd.collision_free_stepsize`, the one-call step size (the IPC Toolkit's
//! `compute_collision_free_stepsize` question).

use ccd::la_deformable::scene::{
    DEFAULT_SEPARATION_SCALE, DEFAULT_SEPARATION_TOLERANCE, DeformingScene, Resting, SceneOptions,
    SeparationOptions, separation_step,
};
use ccd::la_deformable::{DeformingMesh, Mode, SceneContact};
use ccd::prelude::{DVec3, Feature};
use numpy::{PyArray1, PyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::arrays::{f64_array, points, triangles, u32_array};
use crate::errors::to_py;
use crate::kernels::{CONVERGED, INITIALLY_TOUCHING, OUT_OF_ITERATIONS};

/// A deforming triangle mesh over one step: vertex ``i`` moves linearly from ``x0[i]``
/// (t = 0) to ``x1[i]`` (t = 1). Self-collision is on (adjacent features are skipped);
/// ``self_collision=False`` on a single mesh raises ``ccd.CcdError`` (nothing would be
/// tested): several objects go to :meth:`from_meshes`, whose object pairs are always tested.
///
/// ``faces`` int[M, 3]; ``x0``, ``x1`` float64[N, 3]. The hierarchy is built once; each
/// :meth:`update` refits it to the next step's positions (same faces).
///
/// ``resting``: ``"contact"`` (default) reports pairs already within ``tolerance`` at t = 0
/// as contacts at 0, so :meth:`toc` is 0 under resting contact; ``"separate"`` lists them in
/// :meth:`resting` and reports such a pair only once it comes within half its initial
/// distance (never later than it touches), so :meth:`toc` is the first time a pair comes
/// closer. :meth:`stepsize` is the separation-preserving step size.
///
/// Example:
///     >>> import numpy as np, ccd
///     >>> # two triangles 1 apart; the upper one falls by 2 during the step
///     >>> tri = np.array([[0., 0, 0], [1, 0, 0], [0, 1, 0]])
///     >>> x0 = np.vstack([tri, tri + [0.1, 0.1, 1.0]])
///     >>> x1 = np.vstack([tri, tri + [0.1, 0.1, -1.0]])
///     >>> scene = ccd.DeformingScene([[0, 1, 2], [3, 4, 5]], x0, x1)
///     >>> round(scene.toc(), 4)
///     0.5
///     >>> c = scene.contacts()
///     >>> len(c["toc"]) > 0 and bool(np.all(c["toc"] >= scene.toc()))
///     True
///     >>> scene.update(x1, x0)            # next step: the triangle rises back through
///     >>> scene.collides()
///     True
#[pyclass(module = "ccd", name = "DeformingScene")]
pub(crate) struct PyDeformingScene {
    scene: DeformingScene,
}

fn resting_mode(resting: &str) -> PyResult<Resting> {
    match resting {
        "contact" => Ok(Resting::Contact),
        "separate" => Ok(Resting::Separate),
        other => Err(PyValueError::new_err(format!(
            "resting must be \"contact\" or \"separate\", not {other:?}"
        ))),
    }
}

/// A mesh's triangles and its positions at t = 0 and t = 1.
type MeshParts = (Vec<[u32; 3]>, Vec<DVec3>, Vec<DVec3>);

/// One mesh from Python arrays; `which` prefixes the argument names (`meshes[2].`).
fn mesh_from(
    faces: &Bound<'_, PyAny>,
    x0: &Bound<'_, PyAny>,
    x1: &Bound<'_, PyAny>,
    which: &str,
) -> PyResult<MeshParts> {
    let (f, _) = u32_array(faces, &format!("{which}faces"), &[None, Some(3)], "M")?;
    if f.is_empty() {
        return Err(PyValueError::new_err(format!(
            "{which}faces is empty: a scene needs at least one triangle"
        )));
    }
    let (x0, x1) = (
        positions(x0, &format!("{which}x0"))?,
        positions(x1, &format!("{which}x1"))?,
    );
    if x0.len() != x1.len() {
        return Err(PyValueError::new_err(format!(
            "{which}x0 and {which}x1 must have the same shape: {} and {} vertices",
            x0.len(),
            x1.len()
        )));
    }
    Ok((triangles(&f), x0, x1))
}

/// The separation rule from Python arguments (checked, errors name the argument).
fn separation_rule(
    min_distance: f64,
    scale: f64,
    rel_tolerance: f64,
    max_iterations: u32,
) -> PyResult<SeparationOptions> {
    if !(min_distance.is_finite() && min_distance >= 0.0) {
        return Err(crate::errors::CcdError::new_err(format!(
            "min_distance must be finite and >= 0, got {min_distance}"
        )));
    }
    if !(scale > 0.0 && scale < 1.0) {
        return Err(crate::errors::CcdError::new_err(format!(
            "scale must be in (0, 1), got {scale}"
        )));
    }
    if !(rel_tolerance > 0.0 && rel_tolerance < 1.0) {
        return Err(crate::errors::CcdError::new_err(format!(
            "rel_tolerance must be in (0, 1), got {rel_tolerance}"
        )));
    }
    if max_iterations == 0 {
        return Err(crate::errors::CcdError::new_err(
            "max_iterations must be at least 1",
        ));
    }
    Ok(SeparationOptions::default()
        .with_min_distance(min_distance)
        .with_scale(scale)
        .with_rel_tolerance(rel_tolerance)
        .with_max_iterations(max_iterations))
}

/// The largest step ``t`` in [0, 1] such that every vertex-face and edge-edge pair of the
/// mesh (adjacent features excluded) stays at a distance ``>= max(min_distance, scale * d0)``
/// over ``[0, t]``, ``d0`` the pair's distance at t = 0 (a drop-in for
/// ``ipctk.compute_collision_free_stepsize(mesh, x0, x1, min_distance)``; see
/// ``docs/deformable.md``).
///
/// A pair already closer than ``min_distance`` keeps ``scale * d0``; a pair at distance 0 at
/// t = 0 whose features move gives 0. Conservative: no pair is ever closer than promised
/// on ``[0, t]``; ``t`` is at most ``rel_tolerance`` of a pair's allowed approach short of
/// the exact largest step. ``faces`` int[M, 3]; ``x0``, ``x1`` float64[N, 3]; the hierarchy
/// is built inside (time included).
///
/// Example:
///     >>> import numpy as np, ccd
///     >>> tri = np.array([[0., 0, 0], [1, 0, 0], [0, 1, 0]])
///     >>> x0 = np.vstack([tri, tri + [0.2, 0.2, 1.0]])
///     >>> x1 = np.vstack([tri, tri + [0.2, 0.2, -1.0]])
///     >>> t = ccd.collision_free_stepsize([[0, 1, 2], [3, 4, 5]], x0, x1)
///     >>> bool(0.399 < t <= 0.4)     # falls from 1 to the allowed 0.2 at t = 0.4
///     True
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (faces, x0, x1, min_distance = 0.0, scale = DEFAULT_SEPARATION_SCALE, rel_tolerance = DEFAULT_SEPARATION_TOLERANCE, max_iterations = ccd::la_deformable::DEFAULT_MAX_ITERATIONS))]
pub(crate) fn collision_free_stepsize(
    py: Python<'_>,
    faces: &Bound<'_, PyAny>,
    x0: &Bound<'_, PyAny>,
    x1: &Bound<'_, PyAny>,
    min_distance: f64,
    scale: f64,
    rel_tolerance: f64,
    max_iterations: u32,
) -> PyResult<f64> {
    let rule = separation_rule(min_distance, scale, rel_tolerance, max_iterations)?;
    let (tris, x0, x1) = mesh_from(faces, x0, x1, "")?;
    py.detach(|| {
        let mesh = DeformingMesh::new(tris, x0, x1)?;
        // one query: the one-shot hierarchy (no DeformingScene, whose build serves every query mode)
        separation_step(&mesh, &rule).map(|s| s.step)
    })
    .map_err(to_py)
}

fn positions(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<Vec<DVec3>> {
    let (v, _) = f64_array(obj, name, &[None, Some(3)], "N", true)?;
    Ok(points(&v))
}

/// `(kind, i, j)` of a feature: kind 0 vertex, 1 edge, 2 face; `j = -1` unless an edge.
fn feature_row(f: Feature) -> [i64; 3] {
    match f {
        Feature::Vertex(i) => [0, i64::from(i), -1],
        Feature::Edge(i, j) => [1, i64::from(i), i64::from(j)],
        Feature::Face(i) => [2, i64::from(i), -1],
    }
}

fn contacts_dict<'py>(py: Python<'py>, contacts: &[SceneContact]) -> PyResult<Bound<'py, PyDict>> {
    let rows3 = |f: &dyn Fn(&SceneContact) -> DVec3| -> PyResult<Bound<'py, PyArray2<f64>>> {
        let v: Vec<Vec<f64>> = contacts.iter().map(|c| f(c).to_array().to_vec()).collect();
        if v.is_empty() {
            return Ok(PyArray2::zeros(py, [0, 3], false));
        }
        PyArray2::from_vec2(py, &v).map_err(|e| PyValueError::new_err(e.to_string()))
    };
    let feats = |f: &dyn Fn(&SceneContact) -> Feature| -> PyResult<Bound<'py, PyArray2<i64>>> {
        let v: Vec<Vec<i64>> = contacts
            .iter()
            .map(|c| feature_row(f(c)).to_vec())
            .collect();
        if v.is_empty() {
            return Ok(PyArray2::zeros(py, [0, 3], false));
        }
        PyArray2::from_vec2(py, &v).map_err(|e| PyValueError::new_err(e.to_string()))
    };
    let d = PyDict::new(py);
    let toc: Vec<f64> = contacts.iter().map(|c| c.toc).collect();
    d.set_item("toc", PyArray1::from_vec(py, toc))?;
    let mesh_a: Vec<i64> = contacts.iter().map(|c| i64::from(c.mesh_a)).collect();
    let mesh_b: Vec<i64> = contacts.iter().map(|c| i64::from(c.mesh_b)).collect();
    d.set_item("mesh_a", PyArray1::from_vec(py, mesh_a))?;
    d.set_item("mesh_b", PyArray1::from_vec(py, mesh_b))?;
    d.set_item("feature_a", feats(&|c| c.feature_a)?)?;
    d.set_item("feature_b", feats(&|c| c.feature_b)?)?;
    d.set_item("point_a", rows3(&|c| c.point_a)?)?;
    d.set_item("point_b", rows3(&|c| c.point_b)?)?;
    d.set_item("normal", rows3(&|c| c.normal)?)?;
    let dist: Vec<f64> = contacts.iter().map(|c| c.distance).collect();
    d.set_item("distance", PyArray1::from_vec(py, dist))?;
    let status: Vec<u8> = contacts
        .iter()
        .map(|c| match c.status {
            ccd::la_deformable::Status::Converged => CONVERGED,
            ccd::la_deformable::Status::InitiallyTouching => INITIALLY_TOUCHING,
            ccd::la_deformable::Status::OutOfIterations => OUT_OF_ITERATIONS,
            ccd::la_deformable::Status::Stalled => crate::kernels::STALLED,
        })
        .collect();
    d.set_item("status", PyArray1::from_vec(py, status))?;
    Ok(d)
}

#[pymethods]
impl PyDeformingScene {
    #[new]
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (faces, x0, x1, tolerance = ccd::la_deformable::DEFAULT_TOLERANCE, max_iterations = ccd::la_deformable::DEFAULT_MAX_ITERATIONS, self_collision = true, parallel = false, resting = "contact"))]
    fn new(
        py: Python<'_>,
        faces: &Bound<'_, PyAny>,
        x0: &Bound<'_, PyAny>,
        x1: &Bound<'_, PyAny>,
        tolerance: f64,
        max_iterations: u32,
        self_collision: bool,
        parallel: bool,
        resting: &str,
    ) -> PyResult<Self> {
        let mesh = mesh_from(faces, x0, x1, "")?;
        Self::build(
            py,
            vec![mesh],
            tolerance,
            max_iterations,
            &[self_collision],
            parallel,
            resting,
        )
    }

    /// Several objects in one scene: ``meshes`` is a sequence of ``(faces, x0, x1)``, each
    /// with its own vertex indices. Every pair of objects is tested; ``self_collision`` is
    /// one bool for all objects or one per object (``False`` for bodies that cannot touch
    /// themselves). Contacts name their objects in ``mesh_a`` / ``mesh_b``.
    ///
    /// Example:
    ///     >>> import numpy as np, ccd
    ///     >>> tri = np.array([[0., 0, 0], [1, 0, 0], [0, 1, 0]])
    ///     >>> ground = ([[0, 1, 2]], tri, tri)
    ///     >>> falling = ([[0, 1, 2]], tri + [0.1, 0.1, 1.0], tri + [0.1, 0.1, -1.0])
    ///     >>> scene = ccd.DeformingScene.from_meshes([ground, falling], self_collision=[False, False])
    ///     >>> round(scene.toc(), 4)
    ///     0.5
    ///     >>> c = scene.contacts()                  # every contact is between the two objects
    ///     >>> bool(np.all(c["mesh_a"] != c["mesh_b"]))
    ///     True
    #[staticmethod]
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (meshes, tolerance = ccd::la_deformable::DEFAULT_TOLERANCE, max_iterations = ccd::la_deformable::DEFAULT_MAX_ITERATIONS, self_collision = None, parallel = false, resting = "contact"))]
    fn from_meshes(
        py: Python<'_>,
        meshes: &Bound<'_, PyAny>,
        tolerance: f64,
        max_iterations: u32,
        self_collision: Option<&Bound<'_, PyAny>>,
        parallel: bool,
        resting: &str,
    ) -> PyResult<Self> {
        let mut parts = Vec::new();
        for (k, item) in meshes.try_iter()?.enumerate() {
            let item = item?;
            let n = item.len().unwrap_or(0);
            if n != 3 {
                return Err(PyValueError::new_err(format!(
                    "meshes[{k}] must be a (faces, x0, x1) triple"
                )));
            }
            parts.push(mesh_from(
                &item.get_item(0)?,
                &item.get_item(1)?,
                &item.get_item(2)?,
                &format!("meshes[{k}]."),
            )?);
        }
        if parts.is_empty() {
            return Err(PyValueError::new_err("meshes is empty"));
        }
        let flags: Vec<bool> = match self_collision {
            None => vec![true; parts.len()],
            Some(obj) => {
                if let Ok(b) = obj.extract::<bool>() {
                    vec![b; parts.len()]
                } else {
                    let v: Vec<bool> = obj.extract().map_err(|_| {
                        PyValueError::new_err(
                            "self_collision must be a bool or a sequence of bools, one per mesh",
                        )
                    })?;
                    if v.len() != parts.len() {
                        return Err(PyValueError::new_err(format!(
                            "self_collision has {} entries for {} meshes",
                            v.len(),
                            parts.len()
                        )));
                    }
                    v
                }
            }
        };
        Self::build(
            py,
            parts,
            tolerance,
            max_iterations,
            &flags,
            parallel,
            resting,
        )
    }

    /// The global time of contact (first contact of any vertex–face or edge–edge pair), or
    /// ``None`` when nothing touches during the step.
    fn toc(&self, py: Python<'_>) -> Option<f64> {
        let scene = &self.scene;
        py.detach(|| scene.query(Mode::Toc).toc())
    }

    /// Whether anything touches during the step (Boolean mode: stops at the first certain
    /// contact).
    fn collides(&self, py: Python<'_>) -> bool {
        let scene = &self.scene;
        py.detach(|| !scene.query(Mode::Boolean).contacts.is_empty())
    }

    /// Every colliding vertex–face and edge–edge pair with its own time of contact, sorted by
    /// time, as a dict of arrays (K contacts): ``toc`` float64[K]; ``mesh_a``, ``mesh_b``
    /// int64[K] (the objects, 0 for a single mesh); ``feature_a``,
    /// ``feature_b`` int64[K, 3] rows ``(kind, i, j)`` with kind 0 = vertex ``i``, 1 = edge
    /// ``(i, j)``, 2 = face ``i`` (vertex and face indices into their object, ``j = -1`` unless
    /// an edge); ``point_a``, ``point_b``, ``normal`` float64[K, 3] at ``toc``;
    /// ``distance`` float64[K]; ``status`` uint8[K].
    fn contacts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let scene = &self.scene;
        let result = py.detach(|| scene.query(Mode::All));
        contacts_dict(py, &result.contacts)
    }

    /// The pairs already within the tolerance at t = 0 (``resting="separate"``; empty with
    /// ``"contact"``), in the format of :meth:`contacts` (``toc`` 0, ``distance`` at t = 0),
    /// sorted by distance.
    ///
    /// Example:
    ///     >>> import numpy as np, ccd
    ///     >>> tri = np.array([[0., 0, 0], [1, 0, 0], [0, 1, 0]])
    ///     >>> lying = tri + [0.2, 0.2, 1e-8]          # resting 1e-8 above, sliding
    ///     >>> scene = ccd.DeformingScene.from_meshes(
    ///     ...     [([[0, 1, 2]], tri, tri), ([[0, 1, 2]], lying, lying + [0.05, 0, 0])],
    ///     ...     resting="separate")
    ///     >>> scene.toc() is None, len(scene.resting()["toc"]) > 0
    ///     (True, True)
    fn resting<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let scene = &self.scene;
        let result = py.detach(|| scene.query(Mode::All));
        contacts_dict(py, &result.resting)
    }

    /// The separation-preserving step size of the scene (see
    /// :func:`ccd.collision_free_stepsize`, which builds the scene itself): every pair keeps
    /// ``max(min_distance, scale * d0)`` on ``[0, t]``.
    ///
    /// Example:
    ///     >>> import numpy as np, ccd
    ///     >>> tri = np.array([[0., 0, 0], [1, 0, 0], [0, 1, 0]])
    ///     >>> x0 = np.vstack([tri, tri + [0.2, 0.2, 1.0]])
    ///     >>> x1 = np.vstack([tri, tri + [0.2, 0.2, -1.0]])
    ///     >>> scene = ccd.DeformingScene([[0, 1, 2], [3, 4, 5]], x0, x1)
    ///     >>> bool(0.2499 < scene.stepsize(min_distance=0.5) <= 0.25)  # down to 0.5
    ///     True
    #[pyo3(signature = (min_distance = 0.0, scale = DEFAULT_SEPARATION_SCALE, rel_tolerance = DEFAULT_SEPARATION_TOLERANCE, max_iterations = ccd::la_deformable::DEFAULT_MAX_ITERATIONS))]
    fn stepsize(
        &self,
        py: Python<'_>,
        min_distance: f64,
        scale: f64,
        rel_tolerance: f64,
        max_iterations: u32,
    ) -> PyResult<f64> {
        let rule = separation_rule(min_distance, scale, rel_tolerance, max_iterations)?;
        let scene = &self.scene;
        py.detach(|| scene.separation_step(&rule).map(|s| s.step))
            .map_err(to_py)
    }

    /// New positions for the next step of object ``mesh`` (same faces, same vertex count);
    /// its hierarchy is refitted.
    #[pyo3(signature = (x0, x1, mesh = 0))]
    fn update(
        &mut self,
        py: Python<'_>,
        x0: &Bound<'_, PyAny>,
        x1: &Bound<'_, PyAny>,
        mesh: usize,
    ) -> PyResult<()> {
        let (x0, x1) = (positions(x0, "x0")?, positions(x1, "x1")?);
        let Some(m) = self.scene.meshes().get(mesh) else {
            return Err(PyValueError::new_err(format!(
                "mesh {mesh} out of range: the scene has {} meshes",
                self.scene.meshes().len()
            )));
        };
        let n = m.vertex_count();
        for (name, x) in [("x0", &x0), ("x1", &x1)] {
            if x.len() != n {
                return Err(PyValueError::new_err(format!(
                    "{name} has {} vertices, the scene has {n}",
                    x.len()
                )));
            }
        }
        let scene = &mut self.scene;
        py.detach(|| scene.update(mesh, x0, x1)).map_err(to_py)
    }

    /// Number of vertices (all objects).
    #[getter]
    fn num_vertices(&self) -> usize {
        self.scene
            .meshes()
            .iter()
            .map(DeformingMesh::vertex_count)
            .sum()
    }

    /// Number of triangles (all objects).
    #[getter]
    fn num_faces(&self) -> usize {
        self.scene
            .meshes()
            .iter()
            .map(DeformingMesh::triangle_count)
            .sum()
    }

    /// Number of objects (meshes).
    #[getter]
    fn num_meshes(&self) -> usize {
        self.scene.meshes().len()
    }

    fn __repr__(&self) -> String {
        format!(
            "ccd.DeformingScene({} meshes, {} vertices, {} faces)",
            self.num_meshes(),
            self.num_vertices(),
            self.num_faces()
        )
    }
}

impl PyDeformingScene {
    #[allow(clippy::too_many_arguments)]
    fn build(
        py: Python<'_>,
        parts: Vec<MeshParts>,
        tolerance: f64,
        max_iterations: u32,
        self_collision: &[bool],
        parallel: bool,
        resting: &str,
    ) -> PyResult<Self> {
        let options = SceneOptions::default()
            .with_tolerance(tolerance)
            .with_max_iterations(max_iterations)
            .with_self_collision(self_collision.iter().any(|&b| b))
            .with_parallel(parallel)
            .with_resting(resting_mode(resting)?);
        let flags = self_collision.to_vec();
        let scene = py
            .detach(|| {
                let meshes = parts
                    .into_iter()
                    .map(|(t, a, b)| DeformingMesh::new(t, a, b))
                    .collect::<Result<Vec<_>, _>>()?;
                let mut scene = DeformingScene::new(meshes, &options)?;
                for (k, on) in flags.into_iter().enumerate() {
                    scene.set_self_collision(k, on)?;
                }
                Ok::<_, ccd::la_deformable::LaError>(scene)
            })
            .map_err(to_py)?;
        Ok(Self { scene })
    }
}
