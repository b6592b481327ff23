//! `ccd.vertex_face` and `ccd.edge_edge`: the elementary LA kernels over a batch of pairs,
//! with the GIL released and the batch spread over a rayon pool.

use ccd::la_deformable::{self, LaError, LaOptions, PrimitiveToc, Status};
use ccd::prelude::DVec3;
use numpy::PyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use crate::arrays::f64_array;
use crate::errors::to_py;

/// Status code of a batch element: no contact in `[0, 1]`.
pub(crate) const NO_CONTACT: u8 = 0;
/// Status code: converged (the distance fell below the tolerance at `toc`).
pub(crate) const CONVERGED: u8 = 1;
/// Status code: within the tolerance at `t = 0`.
pub(crate) const INITIALLY_TOUCHING: u8 = 2;
/// Status code: iteration cap hit; `toc` is a conservative lower bound.
pub(crate) const OUT_OF_ITERATIONS: u8 = 3;
/// Status code: (rigid and articulated queries only) no further progress certified; `toc` is
/// a conservative lower bound.
pub(crate) const STALLED: u8 = 4;

fn la_code(s: Status) -> u8 {
    match s {
        Status::Converged => CONVERGED,
        Status::InitiallyTouching => INITIALLY_TOUCHING,
        Status::OutOfIterations => OUT_OF_ITERATIONS,
        Status::Stalled => STALLED,
    }
}

type Kernel = fn(&[DVec3; 4], &[DVec3; 4], &LaOptions) -> Result<Option<PrimitiveToc>, LaError>;

/// Runs `f` on `threads` threads (`None`: rayon's global pool, all cores; `n`: a pool of `n`
/// threads, built on first use and kept for later calls, so that a call with `threads=n`
/// does not pay for starting threads).
pub(crate) fn with_threads<T: Send>(
    threads: Option<usize>,
    f: impl FnOnce() -> T + Send,
) -> Result<T, String> {
    match threads {
        None => Ok(f()),
        Some(0) => Err("threads must be at least 1 (or None for all cores)".into()),
        Some(n) => Ok(pool(n)?.install(f)),
    }
}

/// The kept pool of `n` threads (built on first use).
fn pool(n: usize) -> Result<Arc<rayon::ThreadPool>, String> {
    static POOLS: OnceLock<Mutex<HashMap<usize, Arc<rayon::ThreadPool>>>> = OnceLock::new();
    let mut pools = POOLS
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(p) = pools.get(&n) {
        return Ok(Arc::clone(p));
    }
    let p = Arc::new(
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .map_err(|e| format!("cannot start {n} threads: {e}"))?,
    );
    pools.insert(n, Arc::clone(&p));
    Ok(p)
}

/// Reads `(N, 4, 3)` point quadruples.
fn quads(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<Vec<[DVec3; 4]>> {
    let (v, _) = f64_array(obj, name, &[None, Some(4), Some(3)], "N", false)?;
    Ok(v.chunks_exact(12)
        .map(|c| {
            let p = |k: usize| DVec3::new(c[3 * k], c[3 * k + 1], c[3 * k + 2]);
            [p(0), p(1), p(2), p(3)]
        })
        .collect())
}

/// Batch elements smaller than this run on one thread (rayon's split overhead dominates).
const MIN_PER_TASK: usize = 256;

/// One batch element's answer: time of contact (NaN for none), status code, input error.
type Answer = (f64, u8, Option<LaError>);

/// The kernel over every pair, on the current rayon pool (one thread for small batches), or
/// on the calling thread alone when `serial`.
fn run_batch(
    kernel: Kernel,
    a: &[[DVec3; 4]],
    b: &[[DVec3; 4]],
    options: &LaOptions,
    serial: bool,
) -> Vec<Answer> {
    let one = |(p, q): (&[DVec3; 4], &[DVec3; 4])| match kernel(p, q, options) {
        Ok(None) => (f64::NAN, NO_CONTACT, None),
        Ok(Some(hit)) => (hit.toc, la_code(hit.status), None),
        Err(e) => (f64::NAN, NO_CONTACT, Some(e)),
    };
    if serial || a.len() < MIN_PER_TASK || rayon::current_num_threads() == 1 {
        a.iter().zip(b).map(one).collect()
    } else {
        a.par_iter()
            .zip(b)
            .with_min_len(MIN_PER_TASK / 4)
            .map(one)
            .collect()
    }
}

/// Benchmark aid (docs/benchmarks.md): seconds taken by the Rust loop alone of
/// ``vertex_face``/``edge_edge`` (``kind``) on ``x0``, ``x1``, ``repeats`` times, on
/// ``threads`` threads, after the arrays have been read; the difference to the public
/// function's time is the Python overhead.
#[pyfunction]
#[pyo3(name = "_time_kernel", signature = (kind, x0, x1, repeats = 1, threads = Some(1)))]
pub(crate) fn time_kernel(
    py: Python<'_>,
    kind: &str,
    x0: &Bound<'_, PyAny>,
    x1: &Bound<'_, PyAny>,
    repeats: u32,
    threads: Option<usize>,
) -> PyResult<f64> {
    let kernel: Kernel = match kind {
        "vertex_face" => la_deformable::vertex_face,
        "edge_edge" => la_deformable::edge_edge,
        _ => return Err(PyValueError::new_err(format!("unknown kernel {kind:?}"))),
    };
    let (a, b) = (quads(x0, "x0")?, quads(x1, "x1")?);
    if a.len() != b.len() {
        return Err(PyValueError::new_err("x0 and x1 must have the same shape"));
    }
    let options = LaOptions::default();
    py.detach(|| {
        with_threads(threads, || {
            let start = std::time::Instant::now();
            for _ in 0..repeats {
                std::hint::black_box(run_batch(kernel, &a, &b, &options, false));
            }
            start.elapsed().as_secs_f64()
        })
    })
    .map_err(PyValueError::new_err)
}

#[allow(clippy::type_complexity)]
fn batch<'py>(
    py: Python<'py>,
    kernel: Kernel,
    x0: &Bound<'py, PyAny>,
    x1: &Bound<'py, PyAny>,
    tolerance: f64,
    max_iterations: u32,
    threads: Option<usize>,
) -> PyResult<(Bound<'py, PyArray1<f64>>, Bound<'py, PyArray1<u8>>)> {
    let a = quads(x0, "x0")?;
    let b = quads(x1, "x1")?;
    if a.len() != b.len() {
        return Err(PyValueError::new_err(format!(
            "x0 and x1 must have the same shape: {} and {} elements",
            a.len(),
            b.len()
        )));
    }
    let options = LaOptions::default()
        .with_tolerance(tolerance)
        .with_max_iterations(max_iterations);
    options.validate().map_err(to_py)?;
    // a batch that runs on one thread anyway runs on the calling one (no pool hand-off)
    let serial = threads == Some(1) || (threads.is_none() && a.len() < MIN_PER_TASK);
    let out = if serial {
        py.detach(|| run_batch(kernel, &a, &b, &options, true))
    } else {
        py.detach(|| with_threads(threads, || run_batch(kernel, &a, &b, &options, false)))
            .map_err(PyValueError::new_err)?
    };
    if let Some((i, e)) = out
        .iter()
        .enumerate()
        .find_map(|(i, r)| r.2.as_ref().map(|e| (i, e)))
    {
        return Err(PyValueError::new_err(format!("element {i}: {e}")));
    }
    let toc: Vec<f64> = out.iter().map(|r| r.0).collect();
    let status: Vec<u8> = out.iter().map(|r| r.1).collect();
    Ok((PyArray1::from_vec(py, toc), PyArray1::from_vec(py, status)))
}

/// Vertex–face continuous collision detection on a batch of pairs moving linearly.
///
/// ``x0`` and ``x1`` have shape ``(N, 4, 3)``: for each pair the vertex then the face's three
/// corners, at t = 0 and at t = 1. Returns ``(toc, status)``: ``toc`` float64[N] with the
/// conservative time of contact (NaN: no contact in [0, 1]) and ``status`` uint8[N]
/// (``ccd.NO_CONTACT``, ``ccd.CONVERGED``, ``ccd.INITIALLY_TOUCHING``,
/// ``ccd.OUT_OF_ITERATIONS``). ``tolerance`` is an absolute distance. The GIL is released;
/// the batch runs on all cores (``threads=None``) or on ``threads`` threads. A NaN or
/// infinite coordinate raises ``ValueError`` naming the element.
///
/// Example:
///     >>> import numpy as np, ccd
///     >>> face = [[0., 0, 0], [1, 0, 0], [0, 1, 0]]
///     >>> x0 = np.array([[[0.2, 0.2, 1.0]] + face])    # vertex above the triangle
///     >>> x1 = np.array([[[0.2, 0.2, -1.0]] + face])   # ... and below it at t = 1
///     >>> toc, status = ccd.vertex_face(x0, x1)
///     >>> round(float(toc[0]), 4), int(status[0]) == ccd.CONVERGED
///     (0.5, True)
#[pyfunction]
#[pyo3(signature = (x0, x1, tolerance = la_deformable::DEFAULT_TOLERANCE, max_iterations = la_deformable::DEFAULT_MAX_ITERATIONS, threads = None))]
#[allow(clippy::type_complexity)]
pub(crate) fn vertex_face<'py>(
    py: Python<'py>,
    x0: &Bound<'py, PyAny>,
    x1: &Bound<'py, PyAny>,
    tolerance: f64,
    max_iterations: u32,
    threads: Option<usize>,
) -> PyResult<(Bound<'py, PyArray1<f64>>, Bound<'py, PyArray1<u8>>)> {
    batch(
        py,
        la_deformable::vertex_face,
        x0,
        x1,
        tolerance,
        max_iterations,
        threads,
    )
}

/// Edge–edge continuous collision detection on a batch of pairs moving linearly.
///
/// ``x0`` and ``x1`` have shape ``(N, 4, 3)``: for each pair the two ends of edge a, then the
/// two ends of edge b, at t = 0 and t = 1. Returns ``(toc, status)`` as
/// :func:`vertex_face` does.
///
/// Example:
///     >>> import numpy as np, ccd
///     >>> a = [[-1., 0, 0], [1, 0, 0]]                      # still, along x
///     >>> x0 = np.array([a + [[0, -1, 1], [0, 1, 1]]])     # edge along y at z = 1 ...
///     >>> x1 = np.array([a + [[0, -1, -1], [0, 1, -1]]])   # ... falls to z = -1
///     >>> toc, status = ccd.edge_edge(x0, x1)
///     >>> round(float(toc[0]), 4)
///     0.5
#[pyfunction]
#[pyo3(signature = (x0, x1, tolerance = la_deformable::DEFAULT_TOLERANCE, max_iterations = la_deformable::DEFAULT_MAX_ITERATIONS, threads = None))]
#[allow(clippy::type_complexity)]
pub(crate) fn edge_edge<'py>(
    py: Python<'py>,
    x0: &Bound<'py, PyAny>,
    x1: &Bound<'py, PyAny>,
    tolerance: f64,
    max_iterations: u32,
    threads: Option<usize>,
) -> PyResult<(Bound<'py, PyArray1<f64>>, Bound<'py, PyArray1<u8>>)> {
    batch(
        py,
        la_deformable::edge_edge,
        x0,
        x1,
        tolerance,
        max_iterations,
        threads,
    )
}
