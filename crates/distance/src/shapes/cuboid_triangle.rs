//! Distance between a cuboid and a triangle: GJK on the support mappings of the cores (exact for polytopes).

use ccd_geometry::Triangle;
use glam::DAffine3;

use super::{ShapeDistance, by_gjk};
use crate::Cuboid;

/// The distance between the cuboid `a` and the triangle `b` placed in `a`'s frame by `pos12`
/// (GJK on the support mappings of the cores (exact for polytopes)); see [`ShapeDistance`] for the answer's frame.
///
/// ```
/// use ccd_distance::{cuboid_triangle, Cuboid};
/// use ccd_geometry::Triangle;
/// use glam::{DAffine3, DVec3};
/// let a = Cuboid::new(DVec3::splat(0.5))?;
/// let b = Triangle::new(DVec3::new(0.5, -1.0, -1.0), DVec3::new(0.5, 1.0, -1.0), DVec3::new(0.5, 0.0, 1.0));
/// let d = cuboid_triangle(&a, &b, &DAffine3::from_translation(DVec3::new(4.0, 0.0, 0.0)));
/// assert!((d.distance - 4.0).abs() < 1e-9, "{d:?}");
/// assert!(d.lower_bound <= d.distance && d.lower_bound > 4.0 - 1e-9);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn cuboid_triangle(a: &Cuboid, b: &Triangle, pos12: &DAffine3) -> ShapeDistance {
    by_gjk(a, b, pos12)
}

/// [`cuboid_triangle`] with the roles exchanged: the triangle `a` and the cuboid `b` placed by `pos12`.
///
/// ```
/// use ccd_distance::{triangle_cuboid, Cuboid};
/// use ccd_geometry::Triangle;
/// use glam::{DAffine3, DVec3};
/// let a = Triangle::new(DVec3::new(0.5, -1.0, -1.0), DVec3::new(0.5, 1.0, -1.0), DVec3::new(0.5, 0.0, 1.0));
/// let b = Cuboid::new(DVec3::splat(0.5))?;
/// let d = triangle_cuboid(&a, &b, &DAffine3::from_translation(DVec3::new(4.0, 0.0, 0.0)));
/// assert!((d.distance - 3.0).abs() < 1e-9, "{d:?}");
/// assert!(d.lower_bound <= d.distance && d.lower_bound > 3.0 - 1e-9);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn triangle_cuboid(a: &Triangle, b: &Cuboid, pos12: &DAffine3) -> ShapeDistance {
    by_gjk(a, b, pos12)
}
