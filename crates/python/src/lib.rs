//! Python bindings of `ccd` (the native module `ccd._ccd`, re-exported by the Python package
//! `ccd`): rigid meshes and their first time of contact, the vectorised vertex–face and
//! edge–edge kernels, deforming-mesh scenes and URDF robots, with numpy arrays in and out.
//!
//! Built with maturin (`pip install ./crates/python`); the functions are documented (with
//! examples) in their Python docstrings and in `python/ccd/_ccd.pyi`, and tested by pytest
//! (`crates/python/tests`). Every bad input becomes a Python exception (`TypeError`,
//! `ValueError` / `ccd.CcdError`, `FileNotFoundError`), never a panic.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod arrays;
mod batch;
mod deforming;
mod errors;
mod kernels;
mod rigid;
mod robot;

use pyo3::prelude::*;

/// The native module `ccd._ccd`.
#[pymodule]
#[pyo3(name = "_ccd")]
fn ccd_native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("CcdError", m.py().get_type::<errors::CcdError>())?;
    m.add_class::<rigid::Mesh>()?;
    m.add_class::<rigid::PyContact>()?;
    m.add_class::<deforming::DeformingScene>()?;
    m.add_class::<robot::Robot>()?;
    m.add_class::<robot::RobotContact>()?;
    m.add_function(wrap_pyfunction!(rigid::rigid_toc, m)?)?;
    m.add_function(wrap_pyfunction!(deforming::collision_free_stepsize, m)?)?;
    m.add_function(wrap_pyfunction!(kernels::vertex_face, m)?)?;
    m.add_function(wrap_pyfunction!(kernels::edge_edge, m)?)?;
    m.add_function(wrap_pyfunction!(batch::batch, m)?)?;
    m.add_function(wrap_pyfunction!(kernels::time_kernel, m)?)?;
    m.add_function(wrap_pyfunction!(rigid::time_rigid, m)?)?;
    m.add("NO_CONTACT", kernels::NO_CONTACT)?;
    m.add("CONVERGED", kernels::CONVERGED)?;
    m.add("INITIALLY_TOUCHING", kernels::INITIALLY_TOUCHING)?;
    m.add("OUT_OF_ITERATIONS", kernels::OUT_OF_ITERATIONS)?;
    m.add("STALLED", kernels::STALLED)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
