//! Python exceptions for the errors of the `ccd` crates.

use pyo3::PyErr;
use pyo3::exceptions::{PyFileNotFoundError, PyOSError, PyValueError};
use pyo3::prelude::*;

pyo3::create_exception!(
    ccd,
    CcdError,
    PyValueError,
    "Input rejected by a ccd query (a ValueError): the message says what and where."
);

/// Rust names in the crates' messages and the Python argument or term that means the same.
const PYTHON_TERMS: &[(&str, &str)] = &[("UrdfOptions::package_dirs", "the packages= argument")];

/// A crate's message in Python terms: the Rust option names of [`PYTHON_TERMS`] replaced by
/// the Python arguments, and a reason repeated after its own prefix (`"X: X"`) said once.
pub(crate) fn python_message(message: &str) -> String {
    let mut text = message.to_owned();
    for (rust, python) in PYTHON_TERMS {
        text = text.replace(rust, python);
    }
    if let Some((head, tail)) = text.split_once(": ")
        && head == tail
    {
        return head.to_owned();
    }
    text
}

/// The Python exception for an error of the `ccd` crates: `FileNotFoundError` for a missing
/// file, `OSError` for another I/O failure, else [`CcdError`] (a `ValueError`) with the
/// crate's message (in Python terms, [`python_message`]).
pub(crate) fn to_py(err: impl Into<ccd::Error>) -> PyErr {
    let err = err.into();
    let message = python_message(&err.to_string());
    if let ccd::Error::Geometry(ccd::GeometryError::Io { source, .. }) = &err {
        return if source.kind() == std::io::ErrorKind::NotFound {
            PyFileNotFoundError::new_err(message)
        } else {
            PyOSError::new_err(message)
        };
    }
    CcdError::new_err(message)
}

/// `FileNotFoundError` naming `path` unless it exists (checked before handing a path to a
/// reader, so that a missing file is the Python exception users test for).
pub(crate) fn require_file(path: &std::path::Path, what: &str) -> Result<(), PyErr> {
    if path.is_file() {
        Ok(())
    } else if path.exists() {
        Err(PyOSError::new_err(format!(
            "{what} {} is not a regular file",
            path.display()
        )))
    } else {
        Err(PyFileNotFoundError::new_err(format!(
            "{what} {} does not exist",
            path.display()
        )))
    }
}

/// The Python type name of `obj`, for messages.
pub(crate) fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map_or_else(|_| "?".to_string(), |n| n.to_string())
}
