//! Reading numpy arrays (or anything `numpy.asarray` accepts) with checked dtype and shape,
//! and writing results back as numpy arrays.

use ccd::prelude::{DAffine3, DMat3, DVec3};
use numpy::{
    PyArrayDescrMethods, PyArrayDyn, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// The expected shape of an argument: `None` is a free dimension. Used in messages as
/// `(N, 4, 3)` with `N` for free dimensions.
pub(crate) type Shape<'a> = &'a [Option<usize>];

fn shape_text(shape: Shape<'_>, free: &str) -> String {
    let dims: Vec<String> = shape
        .iter()
        .map(|d| d.map_or_else(|| free.to_string(), |n| n.to_string()))
        .collect();
    if dims.len() == 1 {
        format!("({},)", dims[0])
    } else {
        format!("({})", dims.join(", "))
    }
}

fn actual_text(shape: &[usize]) -> String {
    let dims: Vec<String> = shape.iter().map(ToString::to_string).collect();
    if dims.len() == 1 {
        format!("({},)", dims[0])
    } else {
        format!("({})", dims.join(", "))
    }
}

/// `obj` as an ndarray (no copy when it is one already); a `TypeError` naming `name` when
/// numpy cannot read it.
fn as_ndarray<'py>(obj: &Bound<'py, PyAny>, name: &str) -> PyResult<Bound<'py, PyUntypedArray>> {
    if let Ok(a) = obj.cast::<PyUntypedArray>() {
        return Ok(a.clone());
    }
    let np = obj.py().import("numpy")?;
    let a = np.call_method1("asarray", (obj,)).map_err(|e| {
        PyTypeError::new_err(format!("{name} cannot be read as a numpy array: {e}"))
    })?;
    Ok(a.cast_into::<PyUntypedArray>()?)
}

fn check_shape(
    a: &Bound<'_, PyUntypedArray>,
    name: &str,
    shape: Shape<'_>,
    free: &str,
) -> PyResult<Vec<usize>> {
    let actual = a.shape().to_vec();
    let ok = actual.len() == shape.len()
        && actual
            .iter()
            .zip(shape)
            .all(|(n, want)| want.is_none_or(|w| w == *n));
    if ok {
        Ok(actual)
    } else {
        Err(PyValueError::new_err(format!(
            "{name} must have shape {}, got {}",
            shape_text(shape, free),
            actual_text(&actual)
        )))
    }
}

/// Converts `a` to a C-contiguous array of `dtype` (no copy when it already is one).
fn contiguous<'py>(a: &Bound<'py, PyUntypedArray>, dtype: &str) -> PyResult<Bound<'py, PyAny>> {
    let py = a.py();
    let np = py.import("numpy")?;
    let kwargs = PyDict::new(py);
    kwargs.set_item("dtype", dtype)?;
    np.call_method("ascontiguousarray", (a,), Some(&kwargs))
}

/// A float array argument: any real (float or integer) numpy array or nested sequence of the
/// given shape, read as `f64` in C order. Returns the values and the actual shape.
///
/// Errors: `TypeError` for a non-numeric dtype (complex, bool, strings, objects); `ValueError`
/// for a wrong shape or, with `finite`, a NaN or infinite value (naming its index).
pub(crate) fn f64_array(
    obj: &Bound<'_, PyAny>,
    name: &str,
    shape: Shape<'_>,
    free: &str,
    finite: bool,
) -> PyResult<(Vec<f64>, Vec<usize>)> {
    // fast path: a C-contiguous float64 array of the right shape
    let values_shape = if let Ok(a) = obj.cast::<PyArrayDyn<f64>>() {
        let dims = check_shape(a.as_untyped(), name, shape, free)?;
        // a copy under the GIL (no borrow tracking needed); `None` when not contiguous
        a.to_vec().ok().map(|v| (v, dims))
    } else {
        None
    };
    let (values, dims) = match values_shape {
        Some(v) => v,
        None => {
            let a = as_ndarray(obj, name)?;
            let kind = a.dtype().kind();
            if !matches!(kind, b'f' | b'i' | b'u') {
                return Err(PyTypeError::new_err(format!(
                    "{name} must be a real (float64) array, got dtype {}",
                    a.dtype()
                )));
            }
            let dims = check_shape(&a, name, shape, free)?;
            let c = contiguous(&a, "float64")?;
            let c = c.cast_into::<PyArrayDyn<f64>>()?;
            let ro = c.readonly();
            let v = ro
                .as_slice()
                .map_err(|e| PyValueError::new_err(format!("{name}: {e}")))?
                .to_vec();
            (v, dims)
        }
    };
    if finite && let Some(i) = values.iter().position(|v| !v.is_finite()) {
        return Err(PyValueError::new_err(format!(
            "{name} has a non-finite value ({}) at index {}",
            values[i],
            index_text(i, &dims)
        )));
    }
    Ok((values, dims))
}

/// An integer index array argument (`int` dtypes only), values in `0..=u32::MAX`.
pub(crate) fn u32_array(
    obj: &Bound<'_, PyAny>,
    name: &str,
    shape: Shape<'_>,
    free: &str,
) -> PyResult<(Vec<u32>, Vec<usize>)> {
    let a = as_ndarray(obj, name)?;
    let kind = a.dtype().kind();
    // an empty list reads as float64: accept it as an empty index array
    let empty = a.len() == 0;
    if !(matches!(kind, b'i' | b'u') || (empty && kind == b'f')) {
        return Err(PyTypeError::new_err(format!(
            "{name} must be an integer array, got dtype {}",
            a.dtype()
        )));
    }
    let dims = check_shape(&a, name, shape, free)?;
    let c = contiguous(&a, "int64")
        .map_err(|e| PyValueError::new_err(format!("{name}: indices do not fit in int64 ({e})")))?;
    let c = c.cast_into::<PyArrayDyn<i64>>()?;
    let ro = c.readonly();
    let s = ro
        .as_slice()
        .map_err(|e| PyValueError::new_err(format!("{name}: {e}")))?;
    let mut out = Vec::with_capacity(s.len());
    for (i, &v) in s.iter().enumerate() {
        match u32::try_from(v) {
            Ok(u) => out.push(u),
            Err(_) => {
                return Err(PyValueError::new_err(format!(
                    "{name} has index {v} at {}: indices must be in 0..=4294967295",
                    index_text(i, &dims)
                )));
            }
        }
    }
    Ok((out, dims))
}

/// The multi-index of flat index `i` in an array of shape `dims`, as `(a, b, c)`.
fn index_text(mut i: usize, dims: &[usize]) -> String {
    let mut idx = vec![0; dims.len()];
    for (k, &d) in dims.iter().enumerate().rev() {
        if d > 0 {
            idx[k] = i % d;
            i /= d;
        }
    }
    actual_text(&idx)
}

/// `(N, 3)` values as points.
pub(crate) fn points(values: &[f64]) -> Vec<DVec3> {
    values
        .chunks_exact(3)
        .map(|c| DVec3::new(c[0], c[1], c[2]))
        .collect()
}

/// `(N, 3)` indices as triangles.
pub(crate) fn triangles(values: &[u32]) -> Vec<[u32; 3]> {
    values.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect()
}

/// A 4×4 homogeneous pose (rotation and translation, last row `0 0 0 1`): finite values, a
/// last row within `1e-9` of `0 0 0 1`. Rigidity of the rotation block is checked by the
/// motion constructors.
pub(crate) fn pose(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<DAffine3> {
    let (m, _) = f64_array(obj, name, &[Some(4), Some(4)], "", true)?;
    let last = [m[12], m[13], m[14], m[15]];
    let want = [0.0, 0.0, 0.0, 1.0];
    if last.iter().zip(want).any(|(a, b)| (a - b).abs() > 1e-9) {
        return Err(PyValueError::new_err(format!(
            "{name} must be a homogeneous 4x4 pose with last row [0, 0, 0, 1], got {last:?}"
        )));
    }
    // row-major rows of the numpy matrix -> glam columns
    let col = |j: usize| DVec3::new(m[j], m[4 + j], m[8 + j]);
    Ok(DAffine3::from_mat3_translation(
        DMat3::from_cols(col(0), col(1), col(2)),
        col(3),
    ))
}
