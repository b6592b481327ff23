//! Python exceptions for the errors of the `ccd` crates.

use pyo3::PyErr;
use pyo3::exceptions::{PyFileNotFoundError, PyOSError, PyValueError};

pyo3::create_exception!(
    ccd,
    CcdError,
    PyValueError,
    "Input rejected by a ccd query (a ValueError): the message says what and where."
);

/// The Python exception for an error of the `ccd` crates: `FileNotFoundError` for a missing
/// file, `OSError` for another I/O failure, else [`CcdError`] (a `ValueError`) with the
/// crate's message.
pub(crate) fn to_py(err: impl Into<ccd::Error>) -> PyErr {
    let err = err.into();
    if let ccd::Error::Geometry(ccd::GeometryError::Io { source, .. }) = &err {
        return if source.kind() == std::io::ErrorKind::NotFound {
            PyFileNotFoundError::new_err(err.to_string())
        } else {
            PyOSError::new_err(err.to_string())
        };
    }
    CcdError::new_err(err.to_string())
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
