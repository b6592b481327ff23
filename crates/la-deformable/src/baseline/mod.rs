//! Baselines for comparison only: the cubic-coplanarity vertex–face / edge–edge test
//! (Provot-style), which LA is measured against.
//!
//! Under linear vertex motion the four points of a vertex–face or edge–edge pair are
//! coplanar exactly when a cubic in `t` vanishes (the signed volume of the tetrahedron they
//! span). The baseline solves that cubic on `[0, t_max]` in floating point, then runs the
//! inclusion test (exact point–triangle or segment–segment distance below the tolerance) at
//! each root in increasing order; the first root that passes is the time of contact.
//!
//! This is the classic method the LA paper compares against; it is **not** conservative:
//! the floating-point roots can be slightly late, near-tangent roots (a double root that
//! barely touches zero) can be missed, and pairs that stay coplanar (the cubic vanishes
//! identically) are not detected. The conformance test reports its false negatives.

mod cubic;

use ccd_distance::{Closest, point_triangle, segment_segment};
use ccd_geometry::glam::DVec3;
use ccd_geometry::{Segment, Triangle};

use crate::kernels::{check_finite, checked};
use crate::{LaError, LaOptions, PrimitiveToc, Status};

pub use cubic::cubic_roots_in;

/// Coefficients `[c0, c1, c2, c3]` of `det[A(t), B(t), C(t)]` for the linear vectors
/// `X(t) = X0 + t X1`.
#[inline]
fn det_cubic(a0: DVec3, a1: DVec3, b0: DVec3, b1: DVec3, c0: DVec3, c1: DVec3) -> [f64; 4] {
    let ab0 = a0.cross(b0);
    let ab1 = a0.cross(b1) + a1.cross(b0);
    let ab2 = a1.cross(b1);
    [
        ab0.dot(c0),
        ab0.dot(c1) + ab1.dot(c0),
        ab1.dot(c1) + ab2.dot(c0),
        ab2.dot(c1),
    ]
}

/// The coplanarity cubic of points `p[0..4]` moving linearly: `det[p1 − p0, p2 − p0, p3 − p0]`.
#[inline]
fn coplanarity(x0: &[DVec3; 4], x1: &[DVec3; 4]) -> [f64; 4] {
    let d = [x1[0] - x0[0], x1[1] - x0[1], x1[2] - x0[2], x1[3] - x0[3]];
    det_cubic(
        x0[1] - x0[0],
        d[1] - d[0],
        x0[2] - x0[0],
        d[2] - d[0],
        x0[3] - x0[0],
        d[3] - d[0],
    )
}

/// Runs the inclusion test `closest` at each coplanarity root in `[0, t_max]`.
#[inline]
fn first_included(
    x0: &[DVec3; 4],
    x1: &[DVec3; 4],
    t_max: f64,
    tolerance: f64,
    closest: impl Fn(&[DVec3; 4]) -> Closest,
) -> Option<PrimitiveToc> {
    if !(x0.iter().chain(x1).all(|p| p.is_finite())) {
        return None;
    }
    let t_max = if t_max >= 0.0 { t_max.min(1.0) } else { 1.0 };
    let (roots, count) = cubic_roots_in(coplanarity(x0, x1), t_max);
    for (k, &t) in roots[..count].iter().enumerate() {
        let p: [DVec3; 4] = std::array::from_fn(|i| x0[i] + (x1[i] - x0[i]) * t);
        let c = closest(&p);
        if c.distance < tolerance {
            return Some(PrimitiveToc {
                toc: t,
                distance: c.distance,
                iterations: k as u32 + 1,
                status: if t == 0.0 {
                    Status::InitiallyTouching
                } else {
                    Status::Converged
                },
                closest: c,
                normal: c.direction().unwrap_or(DVec3::ZERO),
            });
        }
    }
    None
}

/// Vertex–face CCD by the cubic coplanarity test (baseline, not conservative; see the
/// [module docs](self)). Same points, options and result shape as
/// [`kernels::vertex_face`](crate::kernels::vertex_face); `iterations` counts the roots
/// tested.
///
/// # Errors
/// As [`kernels::vertex_face`](crate::kernels::vertex_face).
///
/// # Example
/// ```
/// use ccd_la_deformable::{LaOptions, baseline::vertex_face_cubic};
/// use ccd_geometry::glam::DVec3;
///
/// let face = [DVec3::ZERO, DVec3::X, DVec3::Y];
/// let x0 = [DVec3::new(0.2, 0.2, 1.0), face[0], face[1], face[2]];
/// let x1 = [DVec3::new(0.2, 0.2, -1.0), face[0], face[1], face[2]];
/// let hit = vertex_face_cubic(&x0, &x1, &LaOptions::default())?.expect("contact");
/// assert!((hit.toc - 0.5).abs() < 1e-12);
/// # Ok::<(), ccd_la_deformable::LaError>(())
/// ```
pub fn vertex_face_cubic(
    x0: &[DVec3; 4],
    x1: &[DVec3; 4],
    opts: &LaOptions,
) -> Result<Option<PrimitiveToc>, LaError> {
    checked(x0, x1, opts, check_finite, vertex_face_cubic_until)
}

/// [`vertex_face_cubic`] on `[0, t_max]` without validation (non-finite input gives
/// `None`; `max_iterations` is unused — a cubic has at most three roots — and kept so that
/// both kernel families share one signature, the one [`Kernel`](crate::scene::Kernel) dispatches on).
///
/// # Example
/// ```
/// use ccd_la_deformable::baseline::vertex_face_cubic_until;
/// use ccd_geometry::glam::DVec3;
///
/// let face = [DVec3::ZERO, DVec3::X, DVec3::Y];
/// let x0 = [DVec3::new(0.2, 0.2, 1.0), face[0], face[1], face[2]];
/// let x1 = [DVec3::new(0.2, 0.2, -1.0), face[0], face[1], face[2]];
/// assert!(vertex_face_cubic_until(&x0, &x1, 0.4, 1e-6, 1).is_none());
/// ```
#[inline]
#[must_use]
pub fn vertex_face_cubic_until(
    x0: &[DVec3; 4],
    x1: &[DVec3; 4],
    t_max: f64,
    tolerance: f64,
    _max_iterations: u32,
) -> Option<PrimitiveToc> {
    first_included(x0, x1, t_max, tolerance, |p| {
        point_triangle(p[0], &Triangle::new(p[1], p[2], p[3]))
    })
}

/// Edge–edge CCD by the cubic coplanarity test (baseline, not conservative; see the
/// [module docs](self)). Same points, options and result shape as
/// [`kernels::edge_edge`](crate::kernels::edge_edge).
///
/// # Errors
/// As [`kernels::edge_edge`](crate::kernels::edge_edge).
///
/// # Example
/// ```
/// use ccd_la_deformable::{LaOptions, baseline::edge_edge_cubic};
/// use ccd_geometry::glam::DVec3;
///
/// let x0 = [DVec3::new(-1.0, 0.0, 0.0), DVec3::new(1.0, 0.0, 0.0),
///           DVec3::new(0.0, -1.0, 1.0), DVec3::new(0.0, 1.0, 1.0)];
/// let mut x1 = x0;
/// x1[2].z = -1.0;
/// x1[3].z = -1.0;
/// let hit = edge_edge_cubic(&x0, &x1, &LaOptions::default())?.expect("contact");
/// assert!((hit.toc - 0.5).abs() < 1e-12);
/// # Ok::<(), ccd_la_deformable::LaError>(())
/// ```
pub fn edge_edge_cubic(
    x0: &[DVec3; 4],
    x1: &[DVec3; 4],
    opts: &LaOptions,
) -> Result<Option<PrimitiveToc>, LaError> {
    checked(x0, x1, opts, check_finite, edge_edge_cubic_until)
}

/// [`edge_edge_cubic`] on `[0, t_max]` without validation (non-finite input gives `None`).
///
/// # Example
/// ```
/// use ccd_la_deformable::baseline::edge_edge_cubic_until;
/// use ccd_geometry::glam::DVec3;
///
/// let x0 = [DVec3::new(-1.0, 0.0, 0.0), DVec3::new(1.0, 0.0, 0.0),
///           DVec3::new(0.0, -1.0, 1.0), DVec3::new(0.0, 1.0, 1.0)];
/// let mut x1 = x0;
/// x1[2].z = -1.0;
/// x1[3].z = -1.0;
/// assert!(edge_edge_cubic_until(&x0, &x1, 0.6, 1e-6, 1).is_some());
/// ```
#[inline]
#[must_use]
pub fn edge_edge_cubic_until(
    x0: &[DVec3; 4],
    x1: &[DVec3; 4],
    t_max: f64,
    tolerance: f64,
    _max_iterations: u32,
) -> Option<PrimitiveToc> {
    first_included(x0, x1, t_max, tolerance, |p| {
        segment_segment(&Segment::new(p[0], p[1]), &Segment::new(p[2], p[3]))
    })
}
