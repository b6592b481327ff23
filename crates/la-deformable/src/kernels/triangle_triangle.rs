//! Triangle–triangle local advancement (LA Sec. V-A, Lemma 1).

use ccd_distance::{Closest, triangle_triangle as triangle_distance};
use ccd_geometry::Triangle;
use ccd_geometry::glam::DVec3;

use super::{PairGeometry, advance, check_points, checked};
use crate::{LaError, LaOptions, PrimitiveToc};

/// Triangle `p[0..3]` against triangle `p[3..6]`.
struct TriangleTriangle;

impl PairGeometry<6> for TriangleTriangle {
    const NA: usize = 3;

    #[inline(always)]
    fn closest(p: &[DVec3; 6]) -> Closest {
        triangle_distance(
            &Triangle::new(p[0], p[1], p[2]),
            &Triangle::new(p[3], p[4], p[5]),
        )
    }

    /// One of the two face normals.
    #[inline(always)]
    fn quick_direction(p: &[DVec3; 6], which: usize) -> DVec3 {
        let b = 3 * which.min(1);
        (p[b + 1] - p[b]).cross(p[b + 2] - p[b])
    }
}

/// Time of contact of two triangles whose vertices move linearly over `t ∈ [0, 1]`, by local
/// advancement with the Lemma 1 bound (refined per vertex pair; see the
/// [module docs](crate::kernels)).
///
/// Points are ordered `(a0, a1, a2, b0, b1, b2)` at `t = 0` (`x0`) and at `t = 1` (`x1`).
/// Degenerate (zero-area) triangles are handled as the segments or points they are.
/// Returns `None` when the triangles provably never touch in `[0, 1]`, else the
/// conservative time of contact (statuses as for
/// [`vertex_face`](crate::kernels::vertex_face)); the witness has `a` = the first triangle.
///
/// # Errors
/// [`LaError::NonFiniteVertex`] (with the point index 0–5),
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
/// use ccd_la_deformable::{LaOptions, kernels::triangle_triangle};
/// use ccd_geometry::glam::DVec3;
///
/// // A triangle falling onto another one: first contact at t = 0.25 (height 0.5, speed 2).
/// let a = [DVec3::ZERO, DVec3::X, DVec3::Y];
/// let b0 = [DVec3::new(0.1, 0.1, 0.5), DVec3::new(0.3, 0.1, 1.0), DVec3::new(0.1, 0.3, 1.0)];
/// let x0 = [a[0], a[1], a[2], b0[0], b0[1], b0[2]];
/// let mut x1 = x0;
/// for p in &mut x1[3..] {
///     p.z -= 2.0;
/// }
/// let hit = triangle_triangle(&x0, &x1, &LaOptions::default())?.expect("contact");
/// assert!(hit.toc <= 0.25 && hit.toc > 0.25 - 1e-6);
/// # Ok::<(), ccd_la_deformable::LaError>(())
/// ```
pub fn triangle_triangle(
    x0: &[DVec3; 6],
    x1: &[DVec3; 6],
    opts: &LaOptions,
) -> Result<Option<PrimitiveToc>, LaError> {
    checked(x0, x1, opts, check_points, triangle_triangle_until)
}

/// [`triangle_triangle`] restricted to `t ∈ [0, t_max]`, without input validation. Same
/// conventions as [`vertex_face_until`](crate::kernels::vertex_face_until).
///
/// # Example
/// ```
/// use ccd_la_deformable::kernels::triangle_triangle_until;
/// use ccd_geometry::glam::DVec3;
///
/// let x0 = [DVec3::ZERO, DVec3::X, DVec3::Y,
///           DVec3::new(0.1, 0.1, 0.5), DVec3::new(0.3, 0.1, 1.0), DVec3::new(0.1, 0.3, 1.0)];
/// let mut x1 = x0;
/// for p in &mut x1[3..] {
///     p.z -= 2.0;
/// }
/// assert!(triangle_triangle_until(&x0, &x1, 0.2, 1e-6, 100).is_none());
/// ```
#[inline]
#[must_use]
pub fn triangle_triangle_until(
    x0: &[DVec3; 6],
    x1: &[DVec3; 6],
    t_max: f64,
    tolerance: f64,
    max_iterations: u32,
) -> Option<PrimitiveToc> {
    advance::<6, TriangleTriangle>(x0, x1, t_max, tolerance, max_iterations)
}
