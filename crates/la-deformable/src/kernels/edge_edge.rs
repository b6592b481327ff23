//! Edge–edge local advancement (LA Sec. V-B, Lemma 3).

use ccd_distance::{Closest, segment_segment};
use ccd_geometry::Segment;
use ccd_geometry::glam::DVec3;

use super::{PairGeometry, advance, check_points, checked};
use crate::{LaError, LaOptions, PrimitiveToc};

/// Edge `p[0] → p[1]` against edge `p[2] → p[3]`.
pub(crate) struct EdgeEdge;

impl PairGeometry<4> for EdgeEdge {
    const NA: usize = 2;

    #[inline(always)]
    fn closest(p: &[DVec3; 4]) -> Closest {
        segment_segment(&Segment::new(p[0], p[1]), &Segment::new(p[2], p[3]))
    }

    /// The common normal of the two lines, or the direction between the edges' midpoints.
    #[inline(always)]
    fn quick_direction(p: &[DVec3; 4], which: usize) -> DVec3 {
        if which == 0 {
            (p[1] - p[0]).cross(p[3] - p[2])
        } else {
            (p[2] + p[3]) - (p[0] + p[1])
        }
    }
}

/// Time of contact of two edges whose endpoints move linearly over `t ∈ [0, 1]`, by local
/// advancement (LA Lemma 3, refined per vertex pair; see the [module docs](crate::kernels)).
///
/// Points are ordered `(a0, a1, b0, b1)` at `t = 0` (`x0`) and at `t = 1` (`x1`): edge `a`
/// is `a0 → a1`, edge `b` is `b0 → b1`. Zero-length edges are points, parallel edges are
/// handled. Returns `None` when the edges provably never touch in `[0, 1]`, else the
/// conservative time of contact (see [`vertex_face`](crate::kernels::vertex_face) for the
/// statuses). The witness has `a` = the first edge, `b` = the second.
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
/// use ccd_la_deformable::{LaOptions, kernels::edge_edge};
/// use ccd_geometry::{Feature, glam::DVec3};
///
/// // Edge a along x at z = 0; edge b along y, falling from z = 1 to z = -1.
/// let x0 = [DVec3::new(-1.0, 0.0, 0.0), DVec3::new(1.0, 0.0, 0.0),
///           DVec3::new(0.0, -1.0, 1.0), DVec3::new(0.0, 1.0, 1.0)];
/// let mut x1 = x0;
/// x1[2].z = -1.0;
/// x1[3].z = -1.0;
/// let hit = edge_edge(&x0, &x1, &LaOptions::default())?.expect("contact");
/// assert!(hit.toc <= 0.5 && hit.toc > 0.5 - 1e-6);
/// assert_eq!((hit.closest.feature_a, hit.closest.feature_b), (Feature::Edge(0, 1), Feature::Edge(0, 1)));
/// # Ok::<(), ccd_la_deformable::LaError>(())
/// ```
pub fn edge_edge(
    x0: &[DVec3; 4],
    x1: &[DVec3; 4],
    opts: &LaOptions,
) -> Result<Option<PrimitiveToc>, LaError> {
    checked(x0, x1, opts, check_points, edge_edge_until)
}

/// [`edge_edge`] restricted to `t ∈ [0, t_max]`, without input validation (the hot variant
/// used by the scene query). Same conventions as
/// [`vertex_face_until`](crate::kernels::vertex_face_until): never panics, non-finite
/// points give a conservative contact at `toc = 0` with status `OutOfIterations`.
///
/// # Example
/// ```
/// use ccd_la_deformable::kernels::edge_edge_until;
/// use ccd_geometry::glam::DVec3;
///
/// let x0 = [DVec3::new(-1.0, 0.0, 0.0), DVec3::new(1.0, 0.0, 0.0),
///           DVec3::new(0.0, -1.0, 1.0), DVec3::new(0.0, 1.0, 1.0)];
/// let mut x1 = x0;
/// x1[2].z = -1.0;
/// x1[3].z = -1.0;
/// assert!(edge_edge_until(&x0, &x1, 0.25, 1e-6, 100).is_none());
/// ```
#[inline]
#[must_use]
pub fn edge_edge_until(
    x0: &[DVec3; 4],
    x1: &[DVec3; 4],
    t_max: f64,
    tolerance: f64,
    max_iterations: u32,
) -> Option<PrimitiveToc> {
    advance::<4, EdgeEdge>(x0, x1, t_max, tolerance, max_iterations)
}
