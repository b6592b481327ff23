//! Distance between a ball and a ball: the centres' distance minus the radii (exact).

use ccd_geometry::Feature;
use glam::{DAffine3, DVec3};

use super::{ShapeDistance, from_closest};
use crate::{Ball, Closest};

/// The distance between the ball `a` and the ball `b` placed in `a`'s frame by `pos12`
/// (the centres' distance minus the radii (exact)); see [`ShapeDistance`] for the answer's frame.
///
/// ```
/// use ccd_distance::{ball_ball, Ball};
/// use glam::{DAffine3, DVec3};
/// let a = Ball::new(0.5)?;
/// let b = a;
/// let d = ball_ball(&a, &b, &DAffine3::from_translation(DVec3::new(4.0, 0.0, 0.0)));
/// assert!((d.distance - 3.0).abs() < 1e-9, "{d:?}");
/// assert!(d.lower_bound <= d.distance && d.lower_bound > 3.0 - 1e-9);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn ball_ball(a: &Ball, b: &Ball, pos12: &DAffine3) -> ShapeDistance {
    let pb = pos12.translation;
    let c = Closest {
        distance: pb.length(),
        point_a: DVec3::ZERO,
        point_b: pb,
        feature_a: Feature::Vertex(0),
        feature_b: Feature::Vertex(0),
    };
    from_closest(
        &c,
        a.radius(),
        b.radius(),
        Feature::Face(0),
        Feature::Face(0),
    )
}
