//! Distance between a ball and a triangle: the exact point–triangle distance minus the radius.

use ccd_geometry::{Feature, Triangle};
use glam::{DAffine3, DVec3};

use super::{ShapeDistance, from_closest, rigid_inverse};
use crate::{Ball, point_triangle};

/// The distance between the ball `a` and the triangle `b` placed in `a`'s frame by `pos12`
/// (the exact point–triangle distance minus the radius); see [`ShapeDistance`] for the answer's frame.
///
/// ```
/// use ccd_distance::{ball_triangle, Ball};
/// use ccd_geometry::Triangle;
/// use glam::{DAffine3, DVec3};
/// let a = Ball::new(0.5)?;
/// let b = Triangle::new(DVec3::new(0.5, -1.0, -1.0), DVec3::new(0.5, 1.0, -1.0), DVec3::new(0.5, 0.0, 1.0));
/// let d = ball_triangle(&a, &b, &DAffine3::from_translation(DVec3::new(4.0, 0.0, 0.0)));
/// assert!((d.distance - 4.0).abs() < 1e-9, "{d:?}");
/// assert!(d.lower_bound <= d.distance && d.lower_bound > 4.0 - 1e-9);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn ball_triangle(a: &Ball, b: &Triangle, pos12: &DAffine3) -> ShapeDistance {
    let t = Triangle::new(
        pos12.transform_point3(b.a),
        pos12.transform_point3(b.b),
        pos12.transform_point3(b.c),
    );
    let c = point_triangle(DVec3::ZERO, &t);
    from_closest(&c, a.radius(), 0.0, Feature::Face(0), c.feature_b)
}

/// [`ball_triangle`] with the roles exchanged: the triangle `a` and the ball `b` placed by `pos12`.
///
/// ```
/// use ccd_distance::{triangle_ball, Ball};
/// use ccd_geometry::Triangle;
/// use glam::{DAffine3, DVec3};
/// let a = Triangle::new(DVec3::new(0.5, -1.0, -1.0), DVec3::new(0.5, 1.0, -1.0), DVec3::new(0.5, 0.0, 1.0));
/// let b = Ball::new(0.5)?;
/// let d = triangle_ball(&a, &b, &DAffine3::from_translation(DVec3::new(4.0, 0.0, 0.0)));
/// assert!((d.distance - 3.0).abs() < 1e-9, "{d:?}");
/// assert!(d.lower_bound <= d.distance && d.lower_bound > 3.0 - 1e-9);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn triangle_ball(a: &Triangle, b: &Ball, pos12: &DAffine3) -> ShapeDistance {
    ball_triangle(b, a, &rigid_inverse(pos12)).mirrored(pos12)
}
