//! Distance between a ball and a cuboid: the closed-form projection of the ball's centre on the box (exact).

use ccd_geometry::Feature;
use glam::DAffine3;

use super::{ShapeDistance, cuboid_feature, from_closest, rigid_inverse};
use crate::{Ball, Closest, Cuboid};

/// The distance between the cuboid `a` and the ball `b` placed in `a`'s frame by `pos12`
/// (the closed-form projection of the ball's centre on the box (exact)); see [`ShapeDistance`] for the answer's frame.
///
/// ```
/// use ccd_distance::{cuboid_ball, Ball, Cuboid};
/// use glam::{DAffine3, DVec3};
/// let a = Cuboid::new(DVec3::splat(0.5))?;
/// let b = Ball::new(0.5)?;
/// let d = cuboid_ball(&a, &b, &DAffine3::from_translation(DVec3::new(4.0, 0.0, 0.0)));
/// assert!((d.distance - 3.0).abs() < 1e-9, "{d:?}");
/// assert!(d.lower_bound <= d.distance && d.lower_bound > 3.0 - 1e-9);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn cuboid_ball(a: &Cuboid, b: &Ball, pos12: &DAffine3) -> ShapeDistance {
    let p = pos12.translation;
    let h = a.half_extents();
    let q = p.clamp(-h, h);
    let c = Closest {
        distance: (p - q).length(),
        point_a: q,
        point_b: p,
        feature_a: Feature::Face(0),
        feature_b: Feature::Vertex(0),
    };
    from_closest(&c, 0.0, b.radius(), cuboid_feature(a, q), Feature::Face(0))
}

/// [`cuboid_ball`] with the roles exchanged: the ball `a` and the cuboid `b` placed by `pos12`.
///
/// ```
/// use ccd_distance::{ball_cuboid, Ball, Cuboid};
/// use glam::{DAffine3, DVec3};
/// let a = Ball::new(0.5)?;
/// let b = Cuboid::new(DVec3::splat(0.5))?;
/// let d = ball_cuboid(&a, &b, &DAffine3::from_translation(DVec3::new(4.0, 0.0, 0.0)));
/// assert!((d.distance - 3.0).abs() < 1e-9, "{d:?}");
/// assert!(d.lower_bound <= d.distance && d.lower_bound > 3.0 - 1e-9);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn ball_cuboid(a: &Ball, b: &Cuboid, pos12: &DAffine3) -> ShapeDistance {
    cuboid_ball(b, a, &rigid_inverse(pos12)).mirrored(pos12)
}
