//! Poses and motions of the Python package: a pose argument in any of its four spellings
//! (4×4, 3×4, `(R, t)`, `(quaternion xyzw, t)`), checked and named in its messages, and
//! `ccd.Motion` (start/end poses, or a start pose with linear and angular velocity of any
//! angle) with `pose_at(t)`.

use ccd::prelude::{DAffine3, DMat3, DQuat, DVec3, RigidMotion};
use numpy::{PyArray1, PyArray2, PyArrayDyn, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

use crate::arrays::f64_array;
use crate::errors::CcdError;

/// Largest coordinate of a pose translation (the queries' domain).
const MAX_COORDINATE: f64 = 1e100;

/// The accepted pose forms, for messages.
const FORMS: &str = "a 4x4 or 3x4 matrix, (R, t) with R 3x3, or (quaternion [x, y, z, w], t)";

/// A pose argument (local -> world), in any of its forms:
///
/// - a 4x4 homogeneous matrix (last row `0 0 0 1` within `1e-9`) or its top 3x4 rows;
/// - a pair `(R, t)`: a 3x3 rotation matrix and a translation of 3 values;
/// - a pair `(q, t)`: a quaternion **`[x, y, z, w]` (scalar last, as scipy and ROS)** and a
///   translation. A quaternion whose norm is within `1e-3` of 1 is normalised; farther from
///   1 (a zero quaternion included) it is rejected.
///
/// The rotation block must be a rotation (`RᵀR = I` within `1e-6`, `det R > 0`) and the
/// translation within `1e100`. Errors name `name`: `TypeError` for a non-numeric value,
/// `ccd.CcdError` (a `ValueError`) for the rest.
pub(crate) fn any_pose(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<DAffine3> {
    // fast path: a float64 ndarray
    if let Ok(a) = obj.cast::<PyArrayDyn<f64>>() {
        let dims = a.shape().to_vec();
        // (a copy, without the borrow tracking of `readonly`: cheaper for 16 values)
        if dims.len() == 2
            && let Ok(v) = a.to_vec()
        {
            return matrix_pose(&v, &dims, name);
        }
    }
    let pair = if let Ok(t) = obj.cast::<PyTuple>() {
        (t.len() == 2).then(|| (t.get_item(0), t.get_item(1)))
    } else if let Ok(l) = obj.cast::<PyList>() {
        (l.len() == 2).then(|| (l.get_item(0), l.get_item(1)))
    } else {
        None
    };
    if let Some((r, t)) = pair {
        return rotation_translation(&r?, &t?, name);
    }
    let (v, dims) = read_any(obj, name)?;
    matrix_pose(&v, &dims, name)
}

/// The values and shape of a small pose part without numpy: a float64 ndarray, or a tuple /
/// list of Python numbers (one or two levels, rectangular); `None` for anything else (which
/// then goes through `numpy.asarray`). Reading `([0, 0, 0, 1], [x, y, z])` this way takes
/// well under a microsecond where `numpy.asarray` and its dtype checks took about 7 µs per
/// part.
fn small_array(obj: &Bound<'_, PyAny>) -> Option<(Vec<f64>, Vec<usize>)> {
    if let Ok(a) = obj.cast::<PyArrayDyn<f64>>() {
        let dims = a.shape().to_vec();
        return a.to_vec().ok().map(|v| (v, dims));
    }
    let items: Vec<Bound<'_, PyAny>> = if let Ok(t) = obj.cast::<PyTuple>() {
        t.iter().collect()
    } else if let Ok(l) = obj.cast::<PyList>() {
        l.iter().collect()
    } else {
        return None;
    };
    if items.is_empty() || items.len() > 4 {
        return None;
    }
    let number = |x: &Bound<'_, PyAny>| -> Option<f64> {
        // Python int and float only (a bool or a string goes the numpy way, to its error)
        if x.is_instance_of::<pyo3::types::PyFloat>()
            || (x.is_instance_of::<pyo3::types::PyInt>()
                && !x.is_instance_of::<pyo3::types::PyBool>())
        {
            x.extract::<f64>().ok()
        } else {
            None
        }
    };
    if let Some(v) = items.iter().map(number).collect::<Option<Vec<f64>>>() {
        let n = v.len();
        return Some((v, vec![n]));
    }
    let mut values = Vec::with_capacity(16);
    let mut width = None;
    for row in &items {
        let (v, dims) = small_array(row)?;
        if dims.len() != 1 || width.is_some_and(|w| w != dims[0]) {
            return None;
        }
        width = Some(dims[0]);
        values.extend(v);
    }
    Some((values, vec![items.len(), width?]))
}

/// Any real array (no shape check): values and shape.
fn read_any(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<(Vec<f64>, Vec<usize>)> {
    if let Some(small) = small_array(obj) {
        return Ok(small);
    }
    let np = obj.py().import("numpy")?;
    let a = np.call_method1("asarray", (obj,)).map_err(|_| {
        PyTypeError::new_err(format!(
            "{name} must be a pose ({FORMS}), got {}",
            crate::errors::type_name(obj)
        ))
    })?;
    let kind: String = a.getattr("dtype")?.getattr("kind")?.extract()?;
    if !matches!(kind.as_str(), "f" | "i" | "u") {
        return Err(PyTypeError::new_err(format!(
            "{name} must be a pose of real numbers ({FORMS}), got dtype {}",
            a.getattr("dtype")?
        )));
    }
    let ndim: usize = a.getattr("ndim")?.extract()?;
    let (v, dims) = match ndim {
        1 => f64_array(&a, name, &[None], "N", false)?,
        2 => f64_array(&a, name, &[None, None], "N", false)?,
        3 => f64_array(&a, name, &[None, None, None], "N", false)?,
        _ => {
            return Err(CcdError::new_err(format!(
                "{name} must be a pose ({FORMS}), got an array with {ndim} dimensions"
            )));
        }
    };
    Ok((v, dims))
}

fn dims_text(dims: &[usize]) -> String {
    let d: Vec<String> = dims.iter().map(ToString::to_string).collect();
    if d.len() == 1 {
        format!("({},)", d[0])
    } else {
        format!("({})", d.join(", "))
    }
}

pub(crate) fn matrix_pose(m: &[f64], dims: &[usize], name: &str) -> PyResult<DAffine3> {
    if !(dims.len() == 2 && (dims[0] == 4 || dims[0] == 3) && dims[1] == 4) {
        return Err(CcdError::new_err(format!(
            "{name} must be a pose ({FORMS}), got an array of shape {}",
            dims_text(dims)
        )));
    }
    rows_pose(m, dims[0] == 4).map_err(|msg| CcdError::new_err(format!("{name}{msg}")))
}

/// A pose from the rows of a 4x4 (`full`) or 3x4 matrix, row-major, without the GIL: the
/// error is the message's tail after the argument's name (" has a non-finite value ...").
pub(crate) fn rows_pose(m: &[f64], full: bool) -> Result<DAffine3, String> {
    if let Some(x) = m.iter().find(|x| !x.is_finite()) {
        return Err(format!(" has a non-finite value ({x})"));
    }
    if full {
        let last = [m[12], m[13], m[14], m[15]];
        let want = [0.0, 0.0, 0.0, 1.0];
        if last.iter().zip(want).any(|(a, b)| (a - b).abs() > 1e-9) {
            return Err(format!(
                " must be a homogeneous 4x4 pose with last row [0, 0, 0, 1], got {last:?}"
            ));
        }
    }
    // row-major rows of the numpy matrix -> glam columns
    let col = |j: usize| DVec3::new(m[j], m[4 + j], m[8 + j]);
    checked_msg(DMat3::from_cols(col(0), col(1), col(2)), col(3))
}

fn finite(v: &[f64], name: &str) -> PyResult<()> {
    if let Some(x) = v.iter().find(|x| !x.is_finite()) {
        return Err(CcdError::new_err(format!(
            "{name} has a non-finite value ({x})"
        )));
    }
    Ok(())
}

fn rotation_translation(
    r: &Bound<'_, PyAny>,
    t: &Bound<'_, PyAny>,
    name: &str,
) -> PyResult<DAffine3> {
    let tv = match small_array(t) {
        Some((v, dims)) if dims == [3] && v.iter().all(|x| x.is_finite()) => v,
        _ => f64_array(t, &format!("{name}[1] (translation)"), &[Some(3)], "", true)?.0,
    };
    let trans = DVec3::new(tv[0], tv[1], tv[2]);
    let (rv, rdims) = read_any(r, &format!("{name}[0]"))?;
    match rdims.as_slice() {
        [3, 3] => {
            finite(&rv, &format!("{name}[0] (rotation)"))?;
            let col = |j: usize| DVec3::new(rv[j], rv[3 + j], rv[6 + j]);
            checked(DMat3::from_cols(col(0), col(1), col(2)), trans, name)
        }
        [4] => {
            finite(&rv, &format!("{name}[0] (quaternion)"))?;
            let q = DQuat::from_xyzw(rv[0], rv[1], rv[2], rv[3]);
            let norm = q.length();
            if !(norm.is_finite() && (norm - 1.0).abs() <= 1e-3) {
                return Err(CcdError::new_err(format!(
                    "{name}[0] is a quaternion [x, y, z, w] of norm {norm}: expected a unit \
                     quaternion (a norm within 1e-3 of 1 is normalised)"
                )));
            }
            checked(DMat3::from_quat(q / norm), trans, name)
        }
        other => Err(CcdError::new_err(format!(
            "{name}[0] must be a 3x3 rotation matrix or a quaternion [x, y, z, w], got an array of shape {}",
            dims_text(other)
        ))),
    }
}

/// Checks the rotation block and the translation's domain.
fn checked(r: DMat3, t: DVec3, name: &str) -> PyResult<DAffine3> {
    checked_msg(r, t).map_err(|msg| CcdError::new_err(format!("{name}{msg}")))
}

/// [`checked`] without the GIL (the message's tail after the argument's name).
fn checked_msg(r: DMat3, t: DVec3) -> Result<DAffine3, String> {
    let g = r.transpose() * r - DMat3::IDENTITY;
    let dev = g
        .to_cols_array()
        .iter()
        .fold(0.0_f64, |m, x| m.max(x.abs()));
    let det = r.determinant();
    if !(dev <= 1e-6 && det > 0.0) {
        return Err(format!(
            ": the rotation block is not a rotation (|R^T R - I| = {dev:.3e}, det R = {det:.6})"
        ));
    }
    if let Some(x) = t.to_array().iter().find(|x| x.abs() > MAX_COORDINATE) {
        return Err(format!(
            ": translation {x:e} is beyond the domain |x| <= 1e100"
        ));
    }
    Ok(DAffine3::from_mat3_translation(r, t))
}

/// A pose as a 4x4 float64 array.
pub(crate) fn pose_array<'py>(
    py: Python<'py>,
    p: &DAffine3,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let m = p.matrix3;
    let t = p.translation;
    let rows = vec![
        vec![m.x_axis.x, m.y_axis.x, m.z_axis.x, t.x],
        vec![m.x_axis.y, m.y_axis.y, m.z_axis.y, t.y],
        vec![m.x_axis.z, m.y_axis.z, m.z_axis.z, t.z],
        vec![0.0, 0.0, 0.0, 1.0],
    ];
    PyArray2::from_vec2(py, &rows).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// A 3-vector argument (finite).
pub(crate) fn vec3(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<DVec3> {
    let (v, _) = f64_array(obj, name, &[Some(3)], "", true)?;
    let p = DVec3::new(v[0], v[1], v[2]);
    if let Some(x) = v.iter().find(|x| x.abs() > MAX_COORDINATE) {
        return Err(CcdError::new_err(format!(
            "{name}: {x:e} is beyond the domain |x| <= 1e100"
        )));
    }
    Ok(p)
}

/// A rigid motion over one step `t ∈ [0, 1]`: constant linear and angular velocity.
///
/// ``Motion(start, end=None)``: from ``start`` (at t = 0) to ``end`` (at t = 1) the short way
/// round (a turn of at most 180°; ``end=None``: the body stays at ``start``).
/// ``Motion.from_velocities(start, linear, angular, center=None)``: from ``start``, the
/// origin (or ``center``, in the body's frame) moves by ``linear`` over the step while the
/// body turns by the rotation vector ``angular`` (world frame, radians per step, **any
/// angle**: ``[0, 0, 4 * pi]`` is two full turns). Poses take any form that :func:`toc`
/// accepts (4x4, 3x4, ``(R, t)``, ``(quaternion xyzw, t)``).
///
/// Example:
///     >>> import numpy as np, ccd
///     >>> spin = ccd.Motion.from_velocities(np.eye(4), linear=[1, 0, 0], angular=[0, 0, 3 * np.pi])
///     >>> np.round(spin.pose_at(0.5)[:3, 3], 6)   # half way along x
///     array([0.5, 0. , 0. ])
///     >>> np.round(spin.pose_at(1.0)[:2, :2], 6)  # one and a half turns: upside down
///     array([[-1., -0.],
///            [ 0., -1.]])
///     >>> float(ccd.Motion(np.eye(4), ([0, 0, 0, 1], [2, 0, 0])).pose_at(0.25)[0, 3])
///     0.5
#[pyclass(frozen, module = "ccd", name = "Motion")]
#[derive(Clone)]
pub(crate) struct PyMotion {
    pub(crate) m: RigidMotion,
}

fn kin_err(e: ccd::kinematics::KinematicsError, name: &str) -> PyErr {
    CcdError::new_err(format!("{name}: {e}"))
}

#[pymethods]
impl PyMotion {
    #[new]
    #[pyo3(signature = (start, end = None))]
    fn new(start: &Bound<'_, PyAny>, end: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let s = any_pose(start, "start")?;
        let e = match end {
            Some(e) => any_pose(e, "end")?,
            None => s,
        };
        Ok(Self {
            m: RigidMotion::between(s, e).map_err(|e| kin_err(e, "start/end"))?,
        })
    }

    /// The motion from ``start`` with linear velocity ``linear`` (of the origin, or of
    /// ``center`` when given in the body frame) and angular velocity ``angular`` (a world
    /// rotation vector in radians per step: its length is the angle turned over the step,
    /// any size). Velocities default to zero.
    ///
    /// Example:
    ///     >>> import numpy as np, ccd
    ///     >>> m = ccd.Motion.from_velocities(np.eye(4), angular=[0, 0, 2 * np.pi])
    ///     >>> bool(np.allclose(m.pose_at(1.0), np.eye(4)))   # a full turn: back where it started
    ///     True
    #[staticmethod]
    #[pyo3(signature = (start, linear = None, angular = None, center = None))]
    fn from_velocities(
        start: &Bound<'_, PyAny>,
        linear: Option<&Bound<'_, PyAny>>,
        angular: Option<&Bound<'_, PyAny>>,
        center: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let s = any_pose(start, "start")?;
        let v = linear.map_or(Ok(DVec3::ZERO), |x| vec3(x, "linear"))?;
        let w = angular.map_or(Ok(DVec3::ZERO), |x| vec3(x, "angular"))?;
        let m = match center {
            Some(c) => {
                let c = vec3(c, "center")?;
                RigidMotion::from_velocities(s, v, w, c)
            }
            None => {
                let angle = w.length();
                let axis = if angle > 0.0 { w / angle } else { DVec3::Z };
                RigidMotion::from_axis_angle(s, axis, angle, v)
            }
        }
        .map_err(|e| kin_err(e, "linear/angular"))?;
        Ok(Self { m })
    }

    /// The pose at time ``t`` (4x4; ``t`` in [0, 1] over the step, extrapolated outside).
    fn pose_at<'py>(&self, py: Python<'py>, t: f64) -> PyResult<Bound<'py, PyArray2<f64>>> {
        if !t.is_finite() {
            return Err(CcdError::new_err(format!("t must be finite, got {t}")));
        }
        pose_array(py, &self.m.pose_at(t))
    }
    /// The pose at t = 0 (4x4).
    #[getter]
    fn start<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        pose_array(py, &self.m.pose_at(0.0))
    }
    /// The pose at t = 1 (4x4).
    #[getter]
    fn end<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        pose_array(py, &self.m.pose_at(1.0))
    }
    /// Linear velocity of the rotation centre (world, per step).
    #[getter]
    fn linear_velocity<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_slice(py, &self.m.linear_velocity().to_array())
    }
    /// Angular velocity (world rotation vector, radians per step).
    #[getter]
    fn angular_velocity<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_slice(py, &self.m.angular_velocity().to_array())
    }
    fn __repr__(&self) -> String {
        let v = self.m.linear_velocity();
        let w = self.m.angular_velocity();
        format!(
            "ccd.Motion(linear_velocity=[{}, {}, {}], angular_velocity=[{}, {}, {}])",
            v.x, v.y, v.z, w.x, w.y, w.z
        )
    }
}

/// A motion argument: a `ccd.Motion`, or a pose (the body stays there).
pub(crate) fn motion_arg(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<RigidMotion> {
    if let Ok(m) = obj.cast::<PyMotion>() {
        return Ok(m.get().m);
    }
    let p = any_pose(obj, name).map_err(|e| {
        if e.is_instance_of::<PyTypeError>(obj.py()) && obj.cast::<numpy::PyUntypedArray>().is_err()
        {
            PyTypeError::new_err(format!(
                "{name} must be a ccd.Motion or a pose ({FORMS}), got {}",
                crate::errors::type_name(obj)
            ))
        } else {
            e
        }
    })?;
    RigidMotion::stationary(p).map_err(|e| kin_err(e, name))
}
