//! The analytic shapes of the Python package (`ccd.Ball`, `ccd.Capsule`, `ccd.Box`,
//! `ccd.Cylinder`, `ccd.Convex`, `ccd.Compound`, all subclasses of `ccd.Shape`) and how a
//! query argument becomes a [`Shape`]: one of those, a `ccd.Mesh`, or any object with
//! `vertices` and `faces` (a `trimesh.Trimesh`, say), turned into a mesh on the spot.

use std::sync::Arc;

use ccd::ca_rigid::{Compound as RustCompound, Shape};
use ccd::distance::{Ball as RustBall, Capsule as RustCapsule, ConvexHull, Cuboid, Cylinder};
use ccd::prelude::{DAffine3, DQuat, DVec3};
use numpy::{PyArray1, PyArray2};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

use crate::arrays::f64_array;
use crate::errors::CcdError;
use crate::errors::type_name;
use crate::poses::{any_pose, pose_array};
use crate::rigid::{Mesh, duck_mesh};

/// The base class of the analytic shapes (`Ball`, `Capsule`, `Box`, `Cylinder`, `Convex`,
/// `Compound`): immutable, in their local frame, usable in every query (with `Mesh`).
///
/// Example:
///     >>> import ccd
///     >>> isinstance(ccd.Ball(0.5), ccd.Shape), isinstance(ccd.Box([1, 2, 3]), ccd.Shape)
///     (True, True)
#[pyclass(frozen, subclass, module = "ccd", name = "Shape")]
pub(crate) struct PyShape {
    pub(crate) shape: Shape,
}

/// The initializer of a subclass of `Shape` holding `shape`.
fn init<T: pyo3::PyClass<BaseType = PyShape>>(shape: Shape, sub: T) -> PyClassInitializer<T> {
    PyClassInitializer::from(PyShape { shape }).add_subclass(sub)
}

/// A float argument, the `TypeError` naming it.
fn float_arg(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<f64> {
    obj.extract::<f64>().map_err(|_| {
        PyTypeError::new_err(format!(
            "{name} must be a real number, got {}",
            type_name(obj)
        ))
    })
}

/// A positive finite size argument (radius, length, …) as a `ValueError` naming it.
fn positive_arg(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<f64> {
    positive(float_arg(obj, name)?, name)
}

/// A positive finite size as a `ValueError` naming it.
fn positive(value: f64, name: &str) -> PyResult<f64> {
    if value.is_finite() && value > 0.0 && value <= 1e100 {
        Ok(value)
    } else {
        Err(CcdError::new_err(format!(
            "{name} must be positive and finite (at most 1e100), got {value}"
        )))
    }
}

/// A ball of radius `radius` centred at the local origin (python-fcl's `Sphere`).
///
/// Raises `ccd.CcdError` (a `ValueError`) for a radius that is not positive and finite.
///
/// Example:
///     >>> import ccd
///     >>> ccd.Ball(0.5).radius
///     0.5
///     >>> ccd.Ball(0.0)
///     Traceback (most recent call last):
///     ...
///     ccd.CcdError: radius must be positive and finite (at most 1e100), got 0
#[pyclass(frozen, extends = PyShape, module = "ccd", name = "Ball")]
pub(crate) struct PyBall;

#[pymethods]
impl PyBall {
    #[new]
    fn new(radius: &Bound<'_, PyAny>) -> PyResult<PyClassInitializer<Self>> {
        let b = RustBall::new(positive_arg(radius, "radius")?).map_err(shape_err)?;
        Ok(init(Shape::Ball(b), Self))
    }
    /// The radius.
    #[getter]
    fn radius(slf: PyRef<'_, Self>) -> f64 {
        match &slf.as_super().shape {
            Shape::Ball(b) => b.radius(),
            _ => f64::NAN,
        }
    }
    fn __repr__(slf: PyRef<'_, Self>) -> String {
        format!("ccd.Ball(radius={})", Self::radius(slf))
    }
    fn __reduce__<'py>(slf: PyRef<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let r = Self::radius(slf);
        (py.get_type::<Self>(), (r,)).into_pyobject(py)
    }
}

/// A capsule: the points within `radius` of the segment from `(0, 0, -length/2)` to
/// `(0, 0, length/2)`, along the local **z** axis (python-fcl's `Capsule(radius, lz)` and
/// trimesh's capsule). `length` is the segment's length (0 gives a ball).
///
/// Example:
///     >>> import ccd
///     >>> c = ccd.Capsule(0.25, 2.0)
///     >>> c.radius, c.length
///     (0.25, 2.0)
#[pyclass(frozen, extends = PyShape, module = "ccd", name = "Capsule")]
pub(crate) struct PyCapsule {
    radius: f64,
    length: f64,
}

#[pymethods]
impl PyCapsule {
    #[new]
    fn new(
        radius: &Bound<'_, PyAny>,
        length: &Bound<'_, PyAny>,
    ) -> PyResult<PyClassInitializer<Self>> {
        let r = positive_arg(radius, "radius")?;
        let length = float_arg(length, "length")?;
        if !(length.is_finite() && (0.0..=1e100).contains(&length)) {
            return Err(CcdError::new_err(format!(
                "length must be finite and non-negative, got {length}"
            )));
        }
        let h = DVec3::Z * (0.5 * length);
        let c = RustCapsule::new(-h, h, r).map_err(shape_err)?;
        Ok(init(Shape::Capsule(c), Self { radius: r, length }))
    }
    /// The radius.
    #[getter]
    fn radius(&self) -> f64 {
        self.radius
    }
    /// The length of the core segment (along z).
    #[getter]
    fn length(&self) -> f64 {
        self.length
    }
    fn __repr__(&self) -> String {
        format!(
            "ccd.Capsule(radius={}, length={})",
            self.radius, self.length
        )
    }
    fn __reduce__<'py>(slf: PyRef<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let args = (slf.radius, slf.length);
        (py.get_type::<Self>(), args).into_pyobject(py)
    }
}

/// A box centred at the local origin with side lengths `extents = (x, y, z)` (**full**
/// lengths, as python-fcl's `Box(x, y, z)` and trimesh's `extents`; `half_extents` is half
/// of it).
///
/// Example:
///     >>> import ccd
///     >>> ccd.Box([2.0, 1.0, 0.5]).half_extents
///     array([1.  , 0.5 , 0.25])
///     >>> ccd.Box([1.0, -1.0, 1.0])
///     Traceback (most recent call last):
///     ...
///     ccd.CcdError: extents must be positive and finite (at most 1e100), got -1 at index 1
#[pyclass(frozen, extends = PyShape, module = "ccd", name = "Box")]
pub(crate) struct PyBox;

#[pymethods]
impl PyBox {
    #[new]
    fn new(extents: &Bound<'_, PyAny>) -> PyResult<PyClassInitializer<Self>> {
        let (e, _) = f64_array(extents, "extents", &[Some(3)], "", true)?;
        for (i, v) in e.iter().enumerate() {
            if !(*v > 0.0 && *v <= 1e100) {
                return Err(CcdError::new_err(format!(
                    "extents must be positive and finite (at most 1e100), got {v} at index {i}"
                )));
            }
        }
        let c = Cuboid::new(0.5 * DVec3::new(e[0], e[1], e[2])).map_err(shape_err)?;
        Ok(init(Shape::Cuboid(c), Self))
    }
    /// Half the side lengths, shape `(3,)`.
    #[getter]
    fn half_extents<'py>(slf: PyRef<'py, Self>) -> Bound<'py, PyArray1<f64>> {
        let h = match &slf.as_super().shape {
            Shape::Cuboid(c) => c.half_extents(),
            _ => DVec3::NAN,
        };
        PyArray1::from_slice(slf.py(), &h.to_array())
    }
    /// The side lengths, shape `(3,)`.
    #[getter]
    fn extents<'py>(slf: PyRef<'py, Self>) -> Bound<'py, PyArray1<f64>> {
        let h = match &slf.as_super().shape {
            Shape::Cuboid(c) => c.half_extents(),
            _ => DVec3::NAN,
        };
        PyArray1::from_slice(slf.py(), &(2.0 * h).to_array())
    }
    fn __repr__(slf: PyRef<'_, Self>) -> String {
        let h = match &slf.as_super().shape {
            Shape::Cuboid(c) => 2.0 * c.half_extents(),
            _ => DVec3::NAN,
        };
        format!("ccd.Box(extents=[{}, {}, {}])", h.x, h.y, h.z)
    }
    fn __reduce__<'py>(slf: PyRef<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let e = Self::extents(slf);
        (py.get_type::<Self>(), (e,)).into_pyobject(py)
    }
}

/// The rotation taking the local `y` axis (the Rust cylinder's) to `z`.
fn y_to_z() -> DAffine3 {
    DAffine3::from_quat(DQuat::from_rotation_x(std::f64::consts::FRAC_PI_2))
}

/// A solid cylinder of radius `radius` and length `length` centred at the local origin,
/// its axis along the local **z** axis (python-fcl's `Cylinder(radius, lz)`, trimesh's
/// cylinder). Inside it is the Rust `Cylinder` (axis `y`) turned onto `z`: a one-part
/// compound, so its contacts report `part` 0 and the cylinder's feature ids.
///
/// Example:
///     >>> import ccd
///     >>> c = ccd.Cylinder(0.5, 2.0)
///     >>> c.radius, c.length
///     (0.5, 2.0)
#[pyclass(frozen, extends = PyShape, module = "ccd", name = "Cylinder")]
pub(crate) struct PyCylinder {
    radius: f64,
    length: f64,
}

#[pymethods]
impl PyCylinder {
    #[new]
    fn new(
        radius: &Bound<'_, PyAny>,
        length: &Bound<'_, PyAny>,
    ) -> PyResult<PyClassInitializer<Self>> {
        let r = positive_arg(radius, "radius")?;
        let l = positive_arg(length, "length")?;
        let c = Cylinder::new(0.5 * l, r).map_err(shape_err)?;
        let k = RustCompound::new(vec![(y_to_z(), Shape::Cylinder(c))])
            .map_err(crate::errors::to_py)?;
        Ok(init(
            Shape::Compound(Arc::new(k)),
            Self {
                radius: r,
                length: l,
            },
        ))
    }
    /// The radius.
    #[getter]
    fn radius(&self) -> f64 {
        self.radius
    }
    /// The length along z.
    #[getter]
    fn length(&self) -> f64 {
        self.length
    }
    fn __repr__(&self) -> String {
        format!(
            "ccd.Cylinder(radius={}, length={})",
            self.radius, self.length
        )
    }
    fn __reduce__<'py>(slf: PyRef<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let args = (slf.radius, slf.length);
        (py.get_type::<Self>(), args).into_pyobject(py)
    }
}

/// The convex hull of `points` (float array of shape `(N, 3)`, N >= 1; flat, segment and
/// single-point hulls are allowed). Raises `ccd.CcdError` for an empty array, NaN or a
/// coordinate beyond 1e100.
///
/// Example:
///     >>> import ccd
///     >>> hull = ccd.Convex([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [0.1, 0.1, 0.1]])
///     >>> hull.vertices.shape      # the interior point is dropped
///     (4, 3)
#[pyclass(frozen, extends = PyShape, module = "ccd", name = "Convex")]
pub(crate) struct PyConvex;

impl PyConvex {
    fn hull<'a>(slf: &'a PyRef<'_, Self>) -> Option<&'a ConvexHull> {
        match &slf.as_super().shape {
            Shape::ConvexHull(h) => Some(h),
            _ => None,
        }
    }
}

#[pymethods]
impl PyConvex {
    #[new]
    fn new(points: &Bound<'_, PyAny>) -> PyResult<PyClassInitializer<Self>> {
        let (v, _) = f64_array(points, "points", &[None, Some(3)], "N", true)?;
        if v.is_empty() {
            return Err(CcdError::new_err(
                "points is empty: a convex hull needs at least one point",
            ));
        }
        let hull = ConvexHull::new(&crate::arrays::points(&v))
            .map_err(|e| CcdError::new_err(format!("points: {e}")))?;
        Ok(init(Shape::ConvexHull(Arc::new(hull)), Self))
    }
    /// The hull's vertices, shape `(V, 3)`.
    #[getter]
    fn vertices<'py>(slf: PyRef<'py, Self>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let rows: Vec<Vec<f64>> = Self::hull(&slf)
            .map(|h| h.vertices().iter().map(|p| p.to_array().to_vec()).collect())
            .unwrap_or_default();
        rows_array(slf.py(), &rows)
    }
    /// The hull's triangles (indices into `vertices`), shape `(F, 3)`.
    #[getter]
    fn faces<'py>(slf: PyRef<'py, Self>) -> PyResult<Bound<'py, PyArray2<i64>>> {
        let rows: Vec<Vec<i64>> = Self::hull(&slf)
            .map(|h| {
                h.faces()
                    .iter()
                    .map(|f| f.iter().map(|&i| i64::from(i)).collect())
                    .collect()
            })
            .unwrap_or_default();
        if rows.is_empty() {
            return Ok(PyArray2::zeros(slf.py(), [0, 3], false));
        }
        PyArray2::from_vec2(slf.py(), &rows).map_err(|e| PyValueError::new_err(e.to_string()))
    }
    fn __repr__(slf: PyRef<'_, Self>) -> String {
        let n = Self::hull(&slf).map_or(0, |h| h.vertices().len());
        format!("ccd.Convex({n} vertices)")
    }
    fn __reduce__<'py>(slf: PyRef<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let v = Self::vertices(slf)?;
        (py.get_type::<Self>(), (v,)).into_pyobject(py)
    }
}

fn rows_array<'py>(py: Python<'py>, rows: &[Vec<f64>]) -> PyResult<Bound<'py, PyArray2<f64>>> {
    if rows.is_empty() {
        return Ok(PyArray2::zeros(py, [0, 3], false));
    }
    PyArray2::from_vec2(py, rows).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// Shapes at local offsets: `parts` is a non-empty sequence of `(shape, pose)` pairs (any
/// shape, meshes included; any pose form, see :func:`toc`). Contacts and distances name the
/// part by its index (`part_a`, `part_b`); nested compounds are flattened (their parts are
/// renumbered in order).
///
/// Example:
///     >>> import numpy as np, ccd
///     >>> bar = ccd.Box([2.0, 0.2, 0.2])
///     >>> left, right = np.eye(4), np.eye(4)
///     >>> left[0, 3], right[0, 3] = -1.0, 1.0
///     >>> dumbbell = ccd.Compound([(bar, np.eye(4)), (ccd.Ball(0.3), left), (ccd.Ball(0.3), right)])
///     >>> len(dumbbell)
///     3
#[pyclass(frozen, extends = PyShape, module = "ccd", name = "Compound")]
pub(crate) struct PyCompound {
    /// The Python parts as given (for pickling and `parts`).
    parts: Vec<(Py<PyAny>, DAffine3)>,
}

#[pymethods]
impl PyCompound {
    #[new]
    fn new(parts: &Bound<'_, PyAny>) -> PyResult<PyClassInitializer<Self>> {
        let seq: Vec<Bound<'_, PyAny>> = parts
            .try_iter()
            .map_err(|_| PyTypeError::new_err("parts must be a sequence of (shape, pose) pairs"))?
            .collect::<PyResult<_>>()?;
        if seq.is_empty() {
            return Err(CcdError::new_err(
                "parts is empty: a compound needs at least one (shape, pose) pair",
            ));
        }
        let mut rust = Vec::with_capacity(seq.len());
        let mut py_parts = Vec::with_capacity(seq.len());
        for (i, item) in seq.iter().enumerate() {
            let pair = item
                .cast::<PyTuple>()
                .ok()
                .filter(|t| t.len() == 2)
                .cloned()
                .or_else(|| {
                    item.cast::<PyList>()
                        .ok()
                        .filter(|l| l.len() == 2)
                        .map(|l| l.to_tuple())
                });
            let Some(pair) = pair else {
                return Err(PyTypeError::new_err(format!(
                    "parts[{i}] must be a (shape, pose) pair, got {}",
                    type_name(item)
                )));
            };
            let shape_obj = pair.get_item(0)?;
            let s = shape_arg(&shape_obj, &format!("parts[{i}][0]"))?;
            let pose = any_pose(&pair.get_item(1)?, &format!("parts[{i}][1]"))?;
            rust.push((pose, s.shape().clone()));
            py_parts.push((shape_obj.unbind(), pose));
        }
        let k = RustCompound::new(rust).map_err(|e| CcdError::new_err(format!("parts: {e}")))?;
        Ok(init(Shape::Compound(Arc::new(k)), Self { parts: py_parts }))
    }
    /// The parts as given: a list of `(shape, 4x4 pose)` pairs.
    #[getter]
    fn parts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let items: Vec<Bound<'py, PyTuple>> = self
            .parts
            .iter()
            .map(|(s, p)| PyTuple::new(py, [s.bind(py).clone(), pose_array(py, p)?.into_any()]))
            .collect::<PyResult<_>>()?;
        PyList::new(py, items)
    }
    /// Number of parts after flattening (the range of `part_a` / `part_b`).
    fn __len__(slf: PyRef<'_, Self>) -> usize {
        match &slf.as_super().shape {
            Shape::Compound(k) => k.parts().len(),
            _ => 0,
        }
    }
    fn __repr__(slf: PyRef<'_, Self>) -> String {
        format!("ccd.Compound({} parts)", Self::__len__(slf))
    }
    fn __reduce__<'py>(slf: PyRef<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let parts = slf.parts(py)?;
        (py.get_type::<Self>(), (parts,)).into_pyobject(py)
    }
}

fn shape_err(e: ccd::distance::ShapeError) -> PyErr {
    CcdError::new_err(e.to_string())
}

/// A shape argument, borrowed from its Python object when it is a ccd shape or mesh (no
/// copy), built when it is duck-typed.
pub(crate) enum ShapeArg<'py> {
    Shape(Bound<'py, PyShape>),
    Mesh(Bound<'py, Mesh>),
    Owned(Shape),
}

impl ShapeArg<'_> {
    /// The shape.
    pub(crate) fn shape(&self) -> &Shape {
        match self {
            Self::Shape(s) => &s.get().shape,
            Self::Mesh(m) => &m.get().shape,
            Self::Owned(s) => s,
        }
    }
}

/// Reads a shape argument: a `ccd.Shape` subclass, a `ccd.Mesh`, or any object with
/// `vertices` (`(N, 3)`) and `faces` (`(M, 3)`) attributes (a `trimesh.Trimesh`), turned into
/// a mesh with its hierarchy (built on every call: pass a `ccd.Mesh` to build it once).
pub(crate) fn shape_arg<'py>(obj: &Bound<'py, PyAny>, name: &str) -> PyResult<ShapeArg<'py>> {
    if let Ok(s) = obj.cast::<PyShape>() {
        return Ok(ShapeArg::Shape(s.clone()));
    }
    if let Ok(m) = obj.cast::<Mesh>() {
        return Ok(ShapeArg::Mesh(m.clone()));
    }
    if let Some(mesh) = duck_mesh(obj, name)? {
        return Ok(ShapeArg::Owned(mesh.shape));
    }
    Err(PyTypeError::new_err(format!(
        "{name} must be a ccd shape (Ball, Capsule, Box, Cylinder, Convex, Compound, Mesh) or \
         an object with vertices and faces (such as a trimesh.Trimesh), got {}",
        type_name(obj)
    )))
}
