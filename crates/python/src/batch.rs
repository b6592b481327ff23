//! `ccd.batch`: JSON Lines queries through the command line's schema and batch loop
//! (`ccd-cli`'s `schema`, `run::Runner` and `batch::run_batch`), so a Python batch answers
//! exactly what `ccd batch` answers.

use std::path::PathBuf;

use ccd_cli::batch::{BatchOptions, run_batch};
use ccd_cli::run::Runner;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString};

/// The JSONL text of `lines`: one str/bytes of text, or an iterable of single lines.
fn jsonl_text(lines: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    if let Ok(s) = lines.cast::<PyString>() {
        return Ok(s.extract::<String>()?.into_bytes());
    }
    if let Ok(b) = lines.cast::<PyBytes>() {
        return Ok(b.as_bytes().to_vec());
    }
    let iter = lines.try_iter().map_err(|_| {
        PyTypeError::new_err("lines must be a str, bytes or an iterable of str/bytes lines")
    })?;
    let mut text = Vec::new();
    for (i, item) in iter.enumerate() {
        let item = item?;
        let bytes: Vec<u8> = if let Ok(s) = item.cast::<PyString>() {
            s.extract::<String>()?.into_bytes()
        } else if let Ok(b) = item.cast::<PyBytes>() {
            b.as_bytes().to_vec()
        } else {
            return Err(PyTypeError::new_err(format!(
                "lines[{i}] must be str or bytes, got {}",
                item.get_type().name()?
            )));
        };
        let bytes = bytes.strip_suffix(b"\n").unwrap_or(&bytes);
        let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
        if bytes.contains(&b'\n') {
            return Err(PyValueError::new_err(format!(
                "lines[{i}] holds more than one line (pass the whole text as one str instead)"
            )));
        }
        text.extend_from_slice(bytes);
        text.push(b'\n');
    }
    Ok(text)
}

/// Runs JSON Lines queries (the schema of the ``ccd batch`` command: ``rigid``,
/// ``vertex_face``, ``edge_edge``, ``frames``, ``articulated``) on ``threads`` threads (all
/// cores by default), the GIL released. ``lines`` is the JSONL text (str or bytes) or an
/// iterable of lines; blank lines are skipped (and counted). Relative file paths in queries
/// are resolved against ``base_dir`` (default: the current directory).
///
/// Returns one dict per non-blank line, in input order: ``{"line": n, "id": ..., "ok":
/// {...}}`` or ``{"line": n, "error": {"kind": ..., "message": ...}}``. A malformed line or
/// a bad query is an error record, and the run goes on.
///
/// Example:
///     >>> import ccd
///     >>> records = ccd.batch([
///     ...     '{"kind": "edge_edge", "id": 7, "x0": [[-1,0,0],[1,0,0],[0,-1,1],[0,1,1]],'
///     ...     ' "x1": [[-1,0,0],[1,0,0],[0,-1,-1],[0,1,-1]]}',
///     ...     'not json',
///     ... ])
///     >>> records[0]["id"], round(records[0]["ok"]["toc"], 4)
///     (7, 0.5)
///     >>> records[1]["line"], records[1]["error"]["kind"]
///     (2, 'parse')
#[pyfunction]
#[pyo3(signature = (lines, threads = None, base_dir = None))]
pub(crate) fn batch<'py>(
    py: Python<'py>,
    lines: &Bound<'py, PyAny>,
    threads: Option<usize>,
    base_dir: Option<PathBuf>,
) -> PyResult<Bound<'py, PyList>> {
    let text = jsonl_text(lines)?;
    let mut options = BatchOptions::default();
    if let Some(n) = threads {
        options.threads = n;
    }
    let base = match base_dir {
        Some(dir) => dir,
        None => std::env::current_dir()
            .map_err(|e| PyValueError::new_err(format!("no current directory: {e}")))?,
    };
    let out = py.detach(|| {
        let runner = Runner::new(base);
        let mut out = Vec::new();
        run_batch(
            text.as_slice(),
            "lines",
            &mut out,
            &runner,
            &options,
            |_| {},
        )
        .map(|_| out)
    });
    let out = out.map_err(|e| PyValueError::new_err(e.to_string()))?;
    let json = py.import("json")?;
    let records = PyList::empty(py);
    for line in out.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let text = std::str::from_utf8(line)
            .map_err(|e| PyValueError::new_err(format!("batch output is not UTF-8: {e}")))?;
        records.append(json.call_method1("loads", (text,))?)?;
    }
    Ok(records)
}
