//! Distance between a capsule and a triangle: the exact segment–triangle distance minus the radius.

use ccd_geometry::Triangle;
use glam::DAffine3;

use super::{ShapeDistance, from_closest, rigid_inverse};
use crate::{Capsule, segment_triangle};

/// The distance between the capsule `a` and the triangle `b` placed in `a`'s frame by `pos12`
/// (the exact segment–triangle distance minus the radius); see [`ShapeDistance`] for the answer's frame.
///
/// ```
/// use ccd_distance::{capsule_triangle, Capsule};
/// use ccd_geometry::Triangle;
/// use glam::{DAffine3, DVec3};
/// let a = Capsule::new_y(1.0, 0.5)?;
/// let b = Triangle::new(DVec3::new(0.5, -1.0, -1.0), DVec3::new(0.5, 1.0, -1.0), DVec3::new(0.5, 0.0, 1.0));
/// let d = capsule_triangle(&a, &b, &DAffine3::from_translation(DVec3::new(4.0, 0.0, 0.0)));
/// assert!((d.distance - 4.0).abs() < 1e-9, "{d:?}");
/// assert!(d.lower_bound <= d.distance && d.lower_bound > 4.0 - 1e-9);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn capsule_triangle(a: &Capsule, b: &Triangle, pos12: &DAffine3) -> ShapeDistance {
    let t = Triangle::new(
        pos12.transform_point3(b.a),
        pos12.transform_point3(b.b),
        pos12.transform_point3(b.c),
    );
    let c = segment_triangle(&a.segment(), &t);
    from_closest(&c, a.radius(), 0.0, c.feature_a, c.feature_b)
}

/// [`capsule_triangle`] with the roles exchanged: the triangle `a` and the capsule `b` placed by `pos12`.
///
/// ```
/// use ccd_distance::{triangle_capsule, Capsule};
/// use ccd_geometry::Triangle;
/// use glam::{DAffine3, DVec3};
/// let a = Triangle::new(DVec3::new(0.5, -1.0, -1.0), DVec3::new(0.5, 1.0, -1.0), DVec3::new(0.5, 0.0, 1.0));
/// let b = Capsule::new_y(1.0, 0.5)?;
/// let d = triangle_capsule(&a, &b, &DAffine3::from_translation(DVec3::new(4.0, 0.0, 0.0)));
/// assert!((d.distance - 3.0).abs() < 1e-9, "{d:?}");
/// assert!(d.lower_bound <= d.distance && d.lower_bound > 3.0 - 1e-9);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn triangle_capsule(a: &Triangle, b: &Capsule, pos12: &DAffine3) -> ShapeDistance {
    capsule_triangle(b, a, &rigid_inverse(pos12)).mirrored(pos12)
}
