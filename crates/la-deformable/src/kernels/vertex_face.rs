//! Vertex–face local advancement (LA Sec. V-B, Lemma 2).

use ccd_distance::{Closest, point_triangle};
use ccd_geometry::Triangle;
use ccd_geometry::glam::DVec3;

use super::{PairGeometry, advance, check_points, checked};
use crate::{LaError, LaOptions, PrimitiveToc};

/// Vertex `p[0]` against face `p[1], p[2], p[3]`.
pub(crate) struct VertexFace;

impl PairGeometry<4> for VertexFace {
    const NA: usize = 1;

    #[inline(always)]
    fn closest(p: &[DVec3; 4]) -> Closest {
        point_triangle(p[0], &Triangle::new(p[1], p[2], p[3]))
    }

    /// The face normal, or the direction from the face's centroid to the vertex.
    #[inline(always)]
    fn quick_direction(p: &[DVec3; 4], which: usize) -> DVec3 {
        if which == 0 {
            (p[2] - p[1]).cross(p[3] - p[1])
        } else {
            p[0] * 3.0 - (p[1] + p[2] + p[3])
        }
    }
}

/// Time of contact of a vertex and a triangle whose points move linearly over `t ∈ [0, 1]`,
/// by local advancement (LA Lemma 2, refined per vertex pair; see the
/// [module docs](crate::kernels)).
///
/// Points are ordered `(v, f0, f1, f2)` at `t = 0` (`x0`) and at `t = 1` (`x1`). Returns
/// `None` when the vertex provably never touches the face in `[0, 1]`, else the
/// conservative time of contact: the features are apart at every earlier time, and the
/// distance at `toc` is below `opts.tolerance` (status `Converged` or `InitiallyTouching`)
/// unless the iteration cap was hit (`OutOfIterations`, still a lower bound). The witness
/// has `a` = the vertex and `b` = the face (local face ids).
///
/// # Errors
/// [`LaError::NonFiniteVertex`] (with the point index 0–3),
/// [`LaError::CoordinateOutOfRange`] beyond the domain (see below),
/// [`LaError::InvalidTolerance`], [`LaError::NoIterations`].
///
/// # Domain
/// Every coordinate finite with magnitude at most
/// [`MAX_COORDINATE`](ccd_distance::MAX_COORDINATE) (`1e100`, the workspace's convention),
/// with no lower bound on the scale: the answer is conservative for all such input
/// (checked against exact rational arithmetic at the range's edges). A query whose
/// coordinates lie outside `[2⁻¹⁰⁰, 2¹⁰⁰]` is computed on a copy scaled exactly by a power
/// of two (see [`rescale_factors`](ccd_distance::rescale_factors); the tolerance is scaled
/// with it), so tiny and subnormal scales lose nothing. A tolerance below the resolution of
/// the coordinates (about `1e-15` times their magnitude) can never be reached: such a query
/// still never misses, ending at a conservative contact with
/// [`Status::OutOfIterations`](crate::Status::OutOfIterations) when it cannot certify
/// progress.
///
/// # Example
/// ```
/// use ccd_la_deformable::{LaOptions, Status, kernels::vertex_face};
/// use ccd_geometry::glam::DVec3;
///
/// // A vertex falling from z = 1 to z = -1 through the triangle z = 0: contact at t = 0.5.
/// let face = [DVec3::ZERO, DVec3::X, DVec3::Y];
/// let x0 = [DVec3::new(0.2, 0.2, 1.0), face[0], face[1], face[2]];
/// let x1 = [DVec3::new(0.2, 0.2, -1.0), face[0], face[1], face[2]];
/// let hit = vertex_face(&x0, &x1, &LaOptions::default())?.expect("contact");
/// assert!(hit.toc <= 0.5 && hit.toc > 0.5 - 1e-6);
/// assert_eq!(hit.status, Status::Converged);
/// assert_eq!(hit.normal, DVec3::NEG_Z); // from the vertex to the face
///
/// // Moving sideways above the face never touches it.
/// let x1 = [DVec3::new(0.9, 0.9, 1.0), face[0], face[1], face[2]];
/// assert!(vertex_face(&x0, &x1, &LaOptions::default())?.is_none());
/// # Ok::<(), ccd_la_deformable::LaError>(())
/// ```
pub fn vertex_face(
    x0: &[DVec3; 4],
    x1: &[DVec3; 4],
    opts: &LaOptions,
) -> Result<Option<PrimitiveToc>, LaError> {
    checked(x0, x1, opts, check_points, vertex_face_until)
}

/// [`vertex_face`] restricted to `t ∈ [0, t_max]`, without input validation (the hot
/// variant used by the scene query, which passes its current best time as `t_max`).
///
/// `None` means the features provably do not touch on `[0, t_max]`, for every finite input
/// (the domain check of [`vertex_face`] is skipped, not needed: the query is rescaled
/// exactly by a power of two when its coordinates lie outside `[2⁻¹⁰⁰, 2¹⁰⁰]`, up to
/// `f64::MAX`). Never panics and never
/// loops forever: non-finite points give a conservative contact at `toc = 0` with status
/// `OutOfIterations` (and NaN distance); `t_max` is clamped to `[0, 1]` (NaN means 1);
/// `max_iterations = 0` acts as 1; a tolerance that is not positive (or NaN) never
/// converges, so a touching pair ends at the cap with a conservative `OutOfIterations`.
///
/// # Example
/// ```
/// use ccd_la_deformable::kernels::vertex_face_until;
/// use ccd_geometry::glam::DVec3;
///
/// let face = [DVec3::ZERO, DVec3::X, DVec3::Y];
/// let x0 = [DVec3::new(0.2, 0.2, 1.0), face[0], face[1], face[2]];
/// let x1 = [DVec3::new(0.2, 0.2, -1.0), face[0], face[1], face[2]];
/// // The contact at t = 0.5 is after t_max = 0.4.
/// assert!(vertex_face_until(&x0, &x1, 0.4, 1e-6, 100).is_none());
/// assert!(vertex_face_until(&x0, &x1, 0.6, 1e-6, 100).is_some());
/// ```
#[inline]
#[must_use]
pub fn vertex_face_until(
    x0: &[DVec3; 4],
    x1: &[DVec3; 4],
    t_max: f64,
    tolerance: f64,
    max_iterations: u32,
) -> Option<PrimitiveToc> {
    advance::<4, VertexFace>(x0, x1, t_max, tolerance, max_iterations)
}
