//! `ccd.DeformingScene`: a deforming triangle mesh (vertices moving linearly over a step) with
//! its hybrid BVH, queried for the first contact, every contact or yes/no, and updated frame
//! after frame.

use ccd::la_deformable::scene::{Scene, SceneOptions};
use ccd::la_deformable::{DeformingMesh, Mode as SceneMode, SceneContact};
use ccd::prelude::{DVec3, Feature};
use numpy::{PyArray1, PyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::arrays::{f64_array, points, triangles, u32_array};
use crate::errors::to_py;
use crate::kernels::{CONVERGED, INITIALLY_TOUCHING, OUT_OF_ITERATIONS};

/// A deforming triangle mesh over one step: vertex ``i`` moves linearly from ``x0[i]``
/// (t = 0) to ``x1[i]`` (t = 1). Self-collision is on (adjacent features are skipped).
///
/// ``faces`` int[M, 3]; ``x0``, ``x1`` float64[N, 3]. The hierarchy is built once; each
/// :meth:`update` refits it to the next step's positions (same faces).
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
pub(crate) struct DeformingScene {
    scene: Scene,
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
impl DeformingScene {
    #[new]
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (faces, x0, x1, tolerance = ccd::la_deformable::DEFAULT_TOLERANCE, max_iterations = ccd::la_deformable::DEFAULT_MAX_ITERATIONS, self_collision = true, parallel = false))]
    fn new(
        py: Python<'_>,
        faces: &Bound<'_, PyAny>,
        x0: &Bound<'_, PyAny>,
        x1: &Bound<'_, PyAny>,
        tolerance: f64,
        max_iterations: u32,
        self_collision: bool,
        parallel: bool,
    ) -> PyResult<Self> {
        let (f, _) = u32_array(faces, "faces", &[None, Some(3)], "M")?;
        if f.is_empty() {
            return Err(PyValueError::new_err(
                "faces is empty: a scene needs at least one triangle",
            ));
        }
        let (x0, x1) = (positions(x0, "x0")?, positions(x1, "x1")?);
        if x0.len() != x1.len() {
            return Err(PyValueError::new_err(format!(
                "x0 and x1 must have the same shape: {} and {} vertices",
                x0.len(),
                x1.len()
            )));
        }
        let options = SceneOptions::default()
            .with_tolerance(tolerance)
            .with_max_iterations(max_iterations)
            .with_self_collision(self_collision)
            .with_parallel(parallel);
        let tris = triangles(&f);
        let scene = py
            .detach(|| {
                let mesh = DeformingMesh::new(tris, x0, x1)?;
                Scene::new(vec![mesh], &options)
            })
            .map_err(to_py)?;
        Ok(Self { scene })
    }

    /// The global time of contact (first contact of any vertex–face or edge–edge pair), or
    /// ``None`` when nothing touches during the step.
    fn toc(&self, py: Python<'_>) -> Option<f64> {
        let scene = &self.scene;
        py.detach(|| scene.query(SceneMode::Toc).toc())
    }

    /// Whether anything touches during the step (Boolean mode: stops at the first certain
    /// contact).
    fn collides(&self, py: Python<'_>) -> bool {
        let scene = &self.scene;
        py.detach(|| !scene.query(SceneMode::Boolean).contacts.is_empty())
    }

    /// Every colliding vertex–face and edge–edge pair with its own time of contact, sorted by
    /// time, as a dict of arrays (K contacts): ``toc`` float64[K]; ``feature_a``,
    /// ``feature_b`` int64[K, 3] rows ``(kind, i, j)`` with kind 0 = vertex ``i``, 1 = edge
    /// ``(i, j)``, 2 = face ``i`` (vertex and face indices into this mesh, ``j = -1`` unless
    /// an edge); ``point_a``, ``point_b``, ``normal`` float64[K, 3] at ``toc``;
    /// ``distance`` float64[K]; ``status`` uint8[K].
    fn contacts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let scene = &self.scene;
        let result = py.detach(|| scene.query(SceneMode::All));
        contacts_dict(py, &result.contacts)
    }

    /// New positions for the next step (same faces, same vertex count); the hierarchy is
    /// refitted.
    fn update(
        &mut self,
        py: Python<'_>,
        x0: &Bound<'_, PyAny>,
        x1: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let (x0, x1) = (positions(x0, "x0")?, positions(x1, "x1")?);
        let n = self.scene.meshes()[0].vertex_count();
        for (name, x) in [("x0", &x0), ("x1", &x1)] {
            if x.len() != n {
                return Err(PyValueError::new_err(format!(
                    "{name} has {} vertices, the scene has {n}",
                    x.len()
                )));
            }
        }
        let scene = &mut self.scene;
        py.detach(|| scene.update(0, x0, x1)).map_err(to_py)
    }

    /// Number of vertices.
    #[getter]
    fn num_vertices(&self) -> usize {
        self.scene.meshes()[0].vertex_count()
    }

    /// Number of triangles.
    #[getter]
    fn num_faces(&self) -> usize {
        self.scene.meshes()[0].triangle_count()
    }

    fn __repr__(&self) -> String {
        format!(
            "ccd.DeformingScene({} vertices, {} faces)",
            self.num_vertices(),
            self.num_faces()
        )
    }
}
