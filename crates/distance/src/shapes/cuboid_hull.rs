//! Distance between a cuboid and a convex hull: GJK on the support mappings of the cores (exact for polytopes).

use glam::DAffine3;

use super::{ShapeDistance, by_gjk};
use crate::{ConvexHull, Cuboid};

/// The distance between the cuboid `a` and the convex hull `b` placed in `a`'s frame by `pos12`
/// (GJK on the support mappings of the cores (exact for polytopes)); see [`ShapeDistance`] for the answer's frame.
///
/// ```
/// use ccd_distance::{cuboid_hull, ConvexHull, Cuboid};
/// use glam::{DAffine3, DVec3};
/// let a = Cuboid::new(DVec3::splat(0.5))?;
/// let b = ConvexHull::new(&[DVec3::new(-0.5, -1.0, -1.0), DVec3::new(0.5, -1.0, -1.0), DVec3::new(0.0, 1.0, -1.0), DVec3::new(0.0, 0.0, 1.0), DVec3::new(0.5, 1.0, 1.0), DVec3::new(-0.5, 1.0, 1.0)])?;
/// let d = cuboid_hull(&a, &b, &DAffine3::from_translation(DVec3::new(4.0, 0.0, 0.0)));
/// assert!((d.distance - 3.0).abs() < 1e-9, "{d:?}");
/// assert!(d.lower_bound <= d.distance && d.lower_bound > 3.0 - 1e-9);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn cuboid_hull(a: &Cuboid, b: &ConvexHull, pos12: &DAffine3) -> ShapeDistance {
    by_gjk(a, b, pos12)
}

/// [`cuboid_hull`] with the roles exchanged: the convex hull `a` and the cuboid `b` placed by `pos12`.
///
/// ```
/// use ccd_distance::{hull_cuboid, ConvexHull, Cuboid};
/// use glam::{DAffine3, DVec3};
/// let a = ConvexHull::new(&[DVec3::new(-0.5, -1.0, -1.0), DVec3::new(0.5, -1.0, -1.0), DVec3::new(0.0, 1.0, -1.0), DVec3::new(0.0, 0.0, 1.0), DVec3::new(0.5, 1.0, 1.0), DVec3::new(-0.5, 1.0, 1.0)])?;
/// let b = Cuboid::new(DVec3::splat(0.5))?;
/// let d = hull_cuboid(&a, &b, &DAffine3::from_translation(DVec3::new(4.0, 0.0, 0.0)));
/// assert!((d.distance - 3.0).abs() < 1e-9, "{d:?}");
/// assert!(d.lower_bound <= d.distance && d.lower_bound > 3.0 - 1e-9);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn hull_cuboid(a: &ConvexHull, b: &Cuboid, pos12: &DAffine3) -> ShapeDistance {
    by_gjk(a, b, pos12)
}
