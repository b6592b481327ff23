//! Distance between a ball and a capsule: the exact point–segment distance of the cores minus the radii.

use ccd_geometry::{Feature, Segment};
use glam::{DAffine3, DVec3};

use super::{ShapeDistance, from_closest, rigid_inverse};
use crate::{Ball, Capsule, point_segment};

/// The distance between the ball `a` and the capsule `b` placed in `a`'s frame by `pos12`
/// (the exact point–segment distance of the cores minus the radii); see [`ShapeDistance`] for the answer's frame.
///
/// ```
/// use ccd_distance::{ball_capsule, Ball, Capsule};
/// use glam::{DAffine3, DVec3};
/// let a = Ball::new(0.5)?;
/// let b = Capsule::new_y(1.0, 0.5)?;
/// let d = ball_capsule(&a, &b, &DAffine3::from_translation(DVec3::new(4.0, 0.0, 0.0)));
/// assert!((d.distance - 3.0).abs() < 1e-9, "{d:?}");
/// assert!(d.lower_bound <= d.distance && d.lower_bound > 3.0 - 1e-9);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn ball_capsule(a: &Ball, b: &Capsule, pos12: &DAffine3) -> ShapeDistance {
    let s = b.segment();
    let s = Segment::new(pos12.transform_point3(s.a), pos12.transform_point3(s.b));
    let c = point_segment(DVec3::ZERO, &s);
    from_closest(&c, a.radius(), b.radius(), Feature::Face(0), c.feature_b)
}

/// [`ball_capsule`] with the roles exchanged: the capsule `a` and the ball `b` placed by `pos12`.
///
/// ```
/// use ccd_distance::{capsule_ball, Ball, Capsule};
/// use glam::{DAffine3, DVec3};
/// let a = Capsule::new_y(1.0, 0.5)?;
/// let b = Ball::new(0.5)?;
/// let d = capsule_ball(&a, &b, &DAffine3::from_translation(DVec3::new(4.0, 0.0, 0.0)));
/// assert!((d.distance - 3.0).abs() < 1e-9, "{d:?}");
/// assert!(d.lower_bound <= d.distance && d.lower_bound > 3.0 - 1e-9);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn capsule_ball(a: &Capsule, b: &Ball, pos12: &DAffine3) -> ShapeDistance {
    ball_capsule(b, a, &rigid_inverse(pos12)).mirrored(pos12)
}
