//! Python bindings of `ccd` (the native module `ccd._ccd`, re-exported by the Python package
//! `ccd`): shapes (analytic, convex, compound, meshes), poses and motions, their first time
//! of contact, discrete collision and distance, a collision manager, the vectorised
//! vertex–face and edge–edge kernels, deforming-mesh scenes and URDF robots, with numpy
//! arrays in and out.
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
mod planning;
mod poses;
mod queries;
mod rigid;
mod robot;
mod shapes;
mod world;

use pyo3::prelude::*;

/// The native module `ccd._ccd`.
#[pymodule]
#[pyo3(name = "_ccd")]
fn ccd_native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("CcdError", m.py().get_type::<errors::CcdError>())?;
    m.add_class::<rigid::Mesh>()?;
    m.add_class::<deforming::PyDeformingScene>()?;
    m.add_class::<robot::Robot>()?;
    m.add_class::<robot::RobotContact>()?;
    m.add_class::<planning::PyPlanningScene>()?;
    m.add_class::<planning::PathContact>()?;
    m.add_class::<planning::Clearance>()?;
    m.add(
        "PlanningSceneError",
        m.py().get_type::<planning::PlanningSceneError>(),
    )?;
    m.add_function(wrap_pyfunction!(rigid::rigid_toc, m)?)?;
    m.add_function(wrap_pyfunction!(deforming::collision_free_stepsize, m)?)?;
    m.add_function(wrap_pyfunction!(kernels::vertex_face, m)?)?;
    m.add_function(wrap_pyfunction!(kernels::edge_edge, m)?)?;
    m.add_function(wrap_pyfunction!(batch::batch, m)?)?;
    m.add_function(wrap_pyfunction!(kernels::time_kernel, m)?)?;
    m.add_function(wrap_pyfunction!(rigid::time_rigid, m)?)?;
    m.add_class::<shapes::PyShape>()?;
    m.add_class::<shapes::PyBall>()?;
    m.add_class::<shapes::PyCapsule>()?;
    m.add_class::<shapes::PyBox>()?;
    m.add_class::<shapes::PyCylinder>()?;
    m.add_class::<shapes::PyConvex>()?;
    m.add_class::<shapes::PyCompound>()?;
    m.add_class::<poses::PyMotion>()?;
    m.add_class::<queries::PyContact>()?;
    // the earlier name of the one contact type
    m.add("ShapeContact", m.py().get_type::<queries::PyContact>())?;
    m.add_class::<queries::PyDistance>()?;
    m.add_class::<world::PyWorld>()?;
    m.add_class::<world::PyWorldContact>()?;
    m.add_function(wrap_pyfunction!(queries::toc, m)?)?;
    m.add_function(wrap_pyfunction!(queries::collide, m)?)?;
    m.add_function(wrap_pyfunction!(queries::distance, m)?)?;
    m.add_function(wrap_pyfunction!(queries::toc_batch, m)?)?;
    m.add_function(wrap_pyfunction!(queries::time_toc, m)?)?;
    m.add("NO_CONTACT", kernels::NO_CONTACT)?;
    m.add("CONVERGED", kernels::CONVERGED)?;
    m.add("INITIALLY_TOUCHING", kernels::INITIALLY_TOUCHING)?;
    m.add("OUT_OF_ITERATIONS", kernels::OUT_OF_ITERATIONS)?;
    m.add("STALLED", kernels::STALLED)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
