//! `ccd.Mesh` and `ccd.rigid_toc`: rigid meshes whose RSS hierarchy is built once
//! and shared by every query.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use ccd::ca_articulated::PreparedEnvironment;

use ccd::ca_rigid;
use ccd::prelude::*;
use numpy::PyArray2;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::arrays::{f64_array, points, pose, triangles, u32_array};
use crate::errors::{CcdError, require_file, to_py};
use crate::poses::any_pose;
pub(crate) use crate::queries::PyContact;
use ccd::ca_rigid::Shape;

/// A triangle mesh in its local frame with its bounding-volume hierarchy (built once, shared
/// by every query; the mesh is immutable).
///
/// `Mesh(vertices, faces)` takes `vertices` as a float array of shape `(N, 3)` and `faces` as
/// an integer array of shape `(M, 3)` (vertex indices); `Mesh.load(path)` reads an OBJ, PLY,
/// STL or COLLADA file; `Mesh.from_trimesh(obj)` takes any object with `vertices` and `faces` (a
/// `trimesh.Trimesh`). A mesh is a surface (a triangle soup), not a solid. Invalid input
/// raises: `TypeError` (dtype), `ValueError` (shape, NaN,
/// out-of-range index), `FileNotFoundError`.
///
/// Example:
///     >>> import numpy as np, ccd
///     >>> tetra = ccd.Mesh(np.array([[0., 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]]),
///     ...                  np.array([[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]))
///     >>> tetra.num_vertices, tetra.num_faces
///     (4, 4)
#[pyclass(frozen, module = "ccd", name = "Mesh")]
pub(crate) struct Mesh {
    pub(crate) body: RigidBody,
    /// The same body as a [`Shape`] (for the shape queries; shares the hierarchy).
    pub(crate) shape: Shape,
    /// The mesh prepared as a robot's environment (node boxes, welded pieces and their
    /// hulls), built by the first robot query that uses it and shared by the later ones.
    prepared: OnceLock<Arc<PreparedEnvironment>>,
}

impl Mesh {
    pub(crate) fn from_tri_mesh(mesh: TriMesh) -> PyResult<Self> {
        let tree = MeshBvh::<Rss>::new(mesh, &BvhOptions::default()).map_err(to_py)?;
        let body = RigidBody::new(Arc::new(tree));
        Ok(Self {
            shape: Shape::Mesh(body.clone()),
            body,
            prepared: OnceLock::new(),
        })
    }

    /// A mesh from vertex and face arrays, the messages naming them `vname` and `fname`.
    pub(crate) fn from_arrays(
        vertices: &Bound<'_, PyAny>,
        faces: &Bound<'_, PyAny>,
        vname: &str,
        fname: &str,
    ) -> PyResult<Self> {
        let (v, _) = f64_array(vertices, vname, &[None, Some(3)], "N", true)?;
        let (f, _) = u32_array(faces, fname, &[None, Some(3)], "M")?;
        if f.is_empty() {
            return Err(CcdError::new_err(format!(
                "{fname} is empty: a mesh needs at least one triangle"
            )));
        }
        let mesh = TriMesh::new(points(&v), triangles(&f))
            .map_err(|e| CcdError::new_err(format!("{fname}: {e}")))?;
        Self::from_tri_mesh(mesh)
    }

    /// The mesh prepared as a static environment, built on first use and cached with the
    /// mesh (meshes are immutable, so it never goes stale).
    pub(crate) fn prepared(&self) -> Arc<PreparedEnvironment> {
        Arc::clone(
            self.prepared
                .get_or_init(|| Arc::new(PreparedEnvironment::new(self.tree()))),
        )
    }

    /// The shared hierarchy (for scenes that take an `Arc<MeshBvh<Rss>>`).
    pub(crate) fn tree(&self) -> Arc<MeshBvh<Rss>> {
        Arc::clone(self.body.shared())
    }

    fn trimesh(&self) -> &TriMesh {
        self.body.mesh_bvh().mesh()
    }
}

#[pymethods]
impl Mesh {
    #[new]
    fn new(vertices: &Bound<'_, PyAny>, faces: &Bound<'_, PyAny>) -> PyResult<Self> {
        Self::from_arrays(vertices, faces, "vertices", "faces")
    }

    /// A mesh from any object with ``vertices`` ``(N, 3)`` and ``faces`` ``(M, 3)``
    /// attributes: a ``trimesh.Trimesh``, an ``open3d`` mesh converted to arrays, a
    /// ``SimpleNamespace``... Every query also accepts such an object directly (it is then
    /// converted on every call: convert once with this for repeated queries).
    ///
    /// Example:
    ///     >>> import types, ccd
    ///     >>> tm = types.SimpleNamespace(vertices=[[0., 0, 0], [1, 0, 0], [0, 1, 0]], faces=[[0, 1, 2]])
    ///     >>> ccd.Mesh.from_trimesh(tm)
    ///     ccd.Mesh(3 vertices, 1 faces)
    #[staticmethod]
    #[pyo3(name = "from_trimesh")]
    fn py_from_trimesh(mesh: &Bound<'_, PyAny>) -> PyResult<Self> {
        match duck_mesh(mesh, "mesh")? {
            Some(m) => Ok(m),
            None => Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "mesh must have vertices and faces attributes (a trimesh.Trimesh), got {}",
                crate::errors::type_name(mesh)
            ))),
        }
    }

    /// Reads a mesh from an OBJ, PLY, STL or COLLADA (`.dae`) file (by extension).
    ///
    /// Raises `FileNotFoundError` when the file does not exist and `ccd.CcdError` (a
    /// `ValueError`) when it cannot be parsed or the mesh is invalid.
    #[staticmethod]
    fn load(path: PathBuf) -> PyResult<Self> {
        require_file(&path, "mesh file")?;
        let mesh = ccd::geometry::io::read_mesh(&path).map_err(to_py)?;
        if mesh.triangles().is_empty() {
            return Err(PyValueError::new_err(format!(
                "{} has no triangles",
                path.display()
            )));
        }
        Self::from_tri_mesh(mesh)
    }

    /// Vertex positions, shape `(N, 3)` (a copy).
    #[getter]
    fn vertices<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f64>> {
        let rows: Vec<Vec<f64>> = self
            .trimesh()
            .vertices()
            .iter()
            .map(|p| p.to_array().to_vec())
            .collect();
        PyArray2::from_vec2(py, &rows).unwrap_or_else(|_| PyArray2::zeros(py, [0, 3], false))
    }

    /// Triangles as vertex indices, shape `(M, 3)`, dtype int64 (a copy).
    #[getter]
    fn faces<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<i64>> {
        let rows: Vec<Vec<i64>> = self
            .trimesh()
            .triangles()
            .iter()
            .map(|t| t.iter().map(|&i| i64::from(i)).collect())
            .collect();
        PyArray2::from_vec2(py, &rows).unwrap_or_else(|_| PyArray2::zeros(py, [0, 3], false))
    }

    /// Number of vertices.
    #[getter]
    fn num_vertices(&self) -> usize {
        self.trimesh().vertices().len()
    }

    /// Number of triangles.
    #[getter]
    fn num_faces(&self) -> usize {
        self.trimesh().triangles().len()
    }

    fn __repr__(&self) -> String {
        format!(
            "ccd.Mesh({} vertices, {} faces)",
            self.num_vertices(),
            self.num_faces()
        )
    }

    /// Pickling (for multiprocessing and Dask): the vertices and faces; the hierarchy is
    /// rebuilt on unpickling.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let me = slf.get();
        let args = PyTuple::new(py, [me.vertices(py).into_any(), me.faces(py).into_any()])?;
        PyTuple::new(py, [slf.get_type().into_any(), args.into_any()])
    }
}

/// The first time of contact of two rigid meshes, each moving with constant linear and
/// angular velocity from its start pose (t = 0) to its end pose (t = 1), the short way round.
///
/// Poses are 4x4 homogeneous matrices (local -> world, rotation block orthonormal) or any
/// other pose form :func:`toc` takes (3x4, ``(R, t)``, ``(quaternion xyzw, t)``); for other
/// shapes and motions of any angle use :func:`toc`. Returns
/// ``None`` when the meshes stay apart over [0, 1] (their distance stays above
/// ``tolerance / 2``), else a :class:`Contact` whose ``toc`` is conservative: no contact
/// before it, distance <= ``tolerance`` at it. ``boolean=True`` answers only "is the path
/// free": the returned contact is then some time in contact, not necessarily the first.
/// The GIL is released during the query.
///
/// Example:
///     >>> import numpy as np, ccd
///     >>> tetra = ccd.Mesh([[0., 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]],
///     ...                  [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])
///     >>> still = np.eye(4)
///     >>> start, end = np.eye(4), np.eye(4)
///     >>> start[0, 3], end[0, 3] = 3.0, -1.0   # slides from x = 3 to x = -1
///     >>> c = ccd.rigid_toc(tetra, still, still, tetra, start, end)
///     >>> round(c.toc, 2), c.status             # touches when x = 1, at t = 0.5
///     (0.5, 'converged')
///     >>> ccd.rigid_toc(tetra, still, still, tetra, start, start) is None
///     True
#[pyfunction]
#[pyo3(signature = (mesh_a, pose_a0, pose_a1, mesh_b, pose_b0, pose_b1, tolerance = 1e-3, max_iterations = 1000, boolean = false))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn rigid_toc(
    py: Python<'_>,
    mesh_a: &Bound<'_, Mesh>,
    pose_a0: &Bound<'_, PyAny>,
    pose_a1: &Bound<'_, PyAny>,
    mesh_b: &Bound<'_, Mesh>,
    pose_b0: &Bound<'_, PyAny>,
    pose_b1: &Bound<'_, PyAny>,
    tolerance: f64,
    max_iterations: u32,
    boolean: bool,
) -> PyResult<Option<PyContact>> {
    let motion = |p0: &Bound<'_, PyAny>, n0: &str, p1: &Bound<'_, PyAny>, n1: &str| {
        let (s, e) = (any_pose(p0, n0)?, any_pose(p1, n1)?);
        RigidMotion::between(s, e).map_err(to_py)
    };
    let ma = motion(pose_a0, "pose_a0", pose_a1, "pose_a1")?;
    let mb = motion(pose_b0, "pose_b0", pose_b1, "pose_b1")?;
    let options = CaOptions::default()
        .with_tolerance(tolerance)
        .with_max_iterations(max_iterations)
        .with_mode(if boolean { Mode::Boolean } else { Mode::Toc });
    let (a, b) = (&mesh_a.get().body, &mesh_b.get().body);
    let (a, b) = (Collider::Mesh(a.clone()), Collider::Mesh(b.clone()));
    let out = py.detach(|| crate::queries::cast_rigid(&a, &ma, &b, &mb, &options));
    Ok(out.map_err(to_py)?.map(|c| PyContact { c: c.into() }))
}

/// Benchmark aid (docs/benchmarks.md): seconds taken by ``repeats`` calls of the Rust query
/// behind :func:`rigid_toc` (poses read once, outside the timing); the difference to the
/// public function's time per call is the Python overhead.
#[pyfunction]
#[pyo3(name = "_time_rigid", signature = (mesh_a, pose_a0, pose_a1, mesh_b, pose_b0, pose_b1, repeats = 1))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn time_rigid(
    py: Python<'_>,
    mesh_a: &Bound<'_, Mesh>,
    pose_a0: &Bound<'_, PyAny>,
    pose_a1: &Bound<'_, PyAny>,
    mesh_b: &Bound<'_, Mesh>,
    pose_b0: &Bound<'_, PyAny>,
    pose_b1: &Bound<'_, PyAny>,
    repeats: u32,
) -> PyResult<f64> {
    let ma = RigidMotion::between(pose(pose_a0, "pose_a0")?, pose(pose_a1, "pose_a1")?)
        .map_err(to_py)?;
    let mb = RigidMotion::between(pose(pose_b0, "pose_b0")?, pose(pose_b1, "pose_b1")?)
        .map_err(to_py)?;
    let options = CaOptions::default();
    let (a, b) = (&mesh_a.get().body, &mesh_b.get().body);
    let elapsed = py.detach(|| -> Result<f64, ccd::CaError> {
        let start = std::time::Instant::now();
        for _ in 0..repeats {
            std::hint::black_box(ca_rigid::time_of_contact(a, &ma, b, &mb, &options))?;
        }
        Ok(start.elapsed().as_secs_f64())
    });
    elapsed.map_err(to_py)
}

/// A mesh from an object with `vertices` and `faces` attributes (`None` without them).
pub(crate) fn duck_mesh(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<Option<Mesh>> {
    if !(obj.hasattr("vertices")? && obj.hasattr("faces")?) {
        return Ok(None);
    }
    let v = obj.getattr("vertices")?;
    let f = obj.getattr("faces")?;
    Mesh::from_arrays(
        &v,
        &f,
        &format!("{name}.vertices"),
        &format!("{name}.faces"),
    )
    .map(Some)
}
