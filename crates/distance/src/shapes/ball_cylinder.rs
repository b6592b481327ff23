//! Distance between a ball and a cylinder: the closed-form projection of the ball's centre on the cylinder (a disk times an interval, exact).

use ccd_geometry::Feature;
use glam::{DAffine3, DVec3};

use super::{ShapeDistance, from_closest, rigid_inverse};
use crate::{Ball, Closest, Cylinder};

/// The distance between the cylinder `a` and the ball `b` placed in `a`'s frame by `pos12`
/// (the closed-form projection of the ball's centre on the cylinder (a disk times an interval, exact)); see [`ShapeDistance`] for the answer's frame.
///
/// ```
/// use ccd_distance::{cylinder_ball, Ball, Cylinder};
/// use glam::{DAffine3, DVec3};
/// let a = Cylinder::new(1.0, 0.5)?;
/// let b = Ball::new(0.5)?;
/// let d = cylinder_ball(&a, &b, &DAffine3::from_translation(DVec3::new(4.0, 0.0, 0.0)));
/// assert!((d.distance - 3.0).abs() < 1e-9, "{d:?}");
/// assert!(d.lower_bound <= d.distance && d.lower_bound > 3.0 - 1e-9);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn cylinder_ball(a: &Cylinder, b: &Ball, pos12: &DAffine3) -> ShapeDistance {
    let p = pos12.translation;
    let (h, r) = (a.half_height(), a.radius());
    let rho = (p.x * p.x + p.z * p.z).sqrt();
    let s = if rho > r { r / rho } else { 1.0 };
    let q = DVec3::new(p.x * s, p.y.clamp(-h, h), p.z * s);
    let c = Closest {
        distance: (p - q).length(),
        point_a: q,
        point_b: p,
        feature_a: Feature::Face(0),
        feature_b: Feature::Vertex(0),
    };
    let fa = a.feature_of(q, 1e-9 * h.max(r));
    from_closest(&c, 0.0, b.radius(), fa, Feature::Face(0))
}

/// [`cylinder_ball`] with the roles exchanged: the ball `a` and the cylinder `b` placed by `pos12`.
///
/// ```
/// use ccd_distance::{ball_cylinder, Ball, Cylinder};
/// use glam::{DAffine3, DVec3};
/// let a = Ball::new(0.5)?;
/// let b = Cylinder::new(1.0, 0.5)?;
/// let d = ball_cylinder(&a, &b, &DAffine3::from_translation(DVec3::new(4.0, 0.0, 0.0)));
/// assert!((d.distance - 3.0).abs() < 1e-9, "{d:?}");
/// assert!(d.lower_bound <= d.distance && d.lower_bound > 3.0 - 1e-9);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn ball_cylinder(a: &Ball, b: &Cylinder, pos12: &DAffine3) -> ShapeDistance {
    cylinder_ball(b, a, &rigid_inverse(pos12)).mirrored(pos12)
}
