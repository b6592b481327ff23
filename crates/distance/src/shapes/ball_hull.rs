//! Distance between a ball and a convex hull: GJK on the support mappings of the cores (exact for polytopes).

use glam::DAffine3;

use super::{ShapeDistance, by_gjk};
use crate::{Ball, ConvexHull};

/// The distance between the ball `a` and the convex hull `b` placed in `a`'s frame by `pos12`
/// (GJK on the support mappings of the cores (exact for polytopes)); see [`ShapeDistance`] for the answer's frame.
///
/// ```
/// use ccd_distance::{ball_hull, Ball, ConvexHull};
/// use glam::{DAffine3, DVec3};
/// let a = Ball::new(0.5)?;
/// let b = ConvexHull::new(&[DVec3::new(-0.5, -1.0, -1.0), DVec3::new(0.5, -1.0, -1.0), DVec3::new(0.0, 1.0, -1.0), DVec3::new(0.0, 0.0, 1.0), DVec3::new(0.5, 1.0, 1.0), DVec3::new(-0.5, 1.0, 1.0)])?;
/// let d = ball_hull(&a, &b, &DAffine3::from_translation(DVec3::new(4.0, 0.0, 0.0)));
/// assert!((d.distance - 3.0).abs() < 1e-9, "{d:?}");
/// assert!(d.lower_bound <= d.distance && d.lower_bound > 3.0 - 1e-9);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn ball_hull(a: &Ball, b: &ConvexHull, pos12: &DAffine3) -> ShapeDistance {
    by_gjk(a, b, pos12)
}

/// [`ball_hull`] with the roles exchanged: the convex hull `a` and the ball `b` placed by `pos12`.
///
/// ```
/// use ccd_distance::{hull_ball, Ball, ConvexHull};
/// use glam::{DAffine3, DVec3};
/// let a = ConvexHull::new(&[DVec3::new(-0.5, -1.0, -1.0), DVec3::new(0.5, -1.0, -1.0), DVec3::new(0.0, 1.0, -1.0), DVec3::new(0.0, 0.0, 1.0), DVec3::new(0.5, 1.0, 1.0), DVec3::new(-0.5, 1.0, 1.0)])?;
/// let b = Ball::new(0.5)?;
/// let d = hull_ball(&a, &b, &DAffine3::from_translation(DVec3::new(4.0, 0.0, 0.0)));
/// assert!((d.distance - 3.0).abs() < 1e-9, "{d:?}");
/// assert!(d.lower_bound <= d.distance && d.lower_bound > 3.0 - 1e-9);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn hull_ball(a: &ConvexHull, b: &Ball, pos12: &DAffine3) -> ShapeDistance {
    by_gjk(a, b, pos12)
}
