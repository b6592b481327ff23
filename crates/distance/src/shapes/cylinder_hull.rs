//! Distance between a cylinder and a convex hull: GJK on the support mappings of the cores (to a relative 1e-12; the lower bound is the proven slab width).

use glam::DAffine3;

use super::{ShapeDistance, by_gjk};
use crate::{ConvexHull, Cylinder};

/// The distance between the cylinder `a` and the convex hull `b` placed in `a`'s frame by `pos12`
/// (GJK on the support mappings of the cores (to a relative 1e-12; the lower bound is the proven slab width)); see [`ShapeDistance`] for the answer's frame.
///
/// ```
/// use ccd_distance::{cylinder_hull, ConvexHull, Cylinder};
/// use glam::{DAffine3, DVec3};
/// let a = Cylinder::new(1.0, 0.5)?;
/// let b = ConvexHull::new(&[DVec3::new(-0.5, -1.0, -1.0), DVec3::new(0.5, -1.0, -1.0), DVec3::new(0.0, 1.0, -1.0), DVec3::new(0.0, 0.0, 1.0), DVec3::new(0.5, 1.0, 1.0), DVec3::new(-0.5, 1.0, 1.0)])?;
/// let d = cylinder_hull(&a, &b, &DAffine3::from_translation(DVec3::new(4.0, 0.0, 0.0)));
/// assert!((d.distance - 3.0).abs() < 1e-9, "{d:?}");
/// assert!(d.lower_bound <= d.distance && d.lower_bound > 3.0 - 1e-9);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn cylinder_hull(a: &Cylinder, b: &ConvexHull, pos12: &DAffine3) -> ShapeDistance {
    by_gjk(a, b, pos12)
}

/// [`cylinder_hull`] with the roles exchanged: the convex hull `a` and the cylinder `b` placed by `pos12`.
///
/// ```
/// use ccd_distance::{hull_cylinder, ConvexHull, Cylinder};
/// use glam::{DAffine3, DVec3};
/// let a = ConvexHull::new(&[DVec3::new(-0.5, -1.0, -1.0), DVec3::new(0.5, -1.0, -1.0), DVec3::new(0.0, 1.0, -1.0), DVec3::new(0.0, 0.0, 1.0), DVec3::new(0.5, 1.0, 1.0), DVec3::new(-0.5, 1.0, 1.0)])?;
/// let b = Cylinder::new(1.0, 0.5)?;
/// let d = hull_cylinder(&a, &b, &DAffine3::from_translation(DVec3::new(4.0, 0.0, 0.0)));
/// assert!((d.distance - 3.0).abs() < 1e-9, "{d:?}");
/// assert!(d.lower_bound <= d.distance && d.lower_bound > 3.0 - 1e-9);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn hull_cylinder(a: &ConvexHull, b: &Cylinder, pos12: &DAffine3) -> ShapeDistance {
    by_gjk(a, b, pos12)
}
