//! Distance between a capsule and a convex hull: GJK on the support mappings of the cores (exact for polytopes).

use glam::DAffine3;

use super::{ShapeDistance, by_gjk};
use crate::{Capsule, ConvexHull};

/// The distance between the capsule `a` and the convex hull `b` placed in `a`'s frame by `pos12`
/// (GJK on the support mappings of the cores (exact for polytopes)); see [`ShapeDistance`] for the answer's frame.
///
/// ```
/// use ccd_distance::{capsule_hull, Capsule, ConvexHull};
/// use glam::{DAffine3, DVec3};
/// let a = Capsule::new_y(1.0, 0.5)?;
/// let b = ConvexHull::new(&[DVec3::new(-0.5, -1.0, -1.0), DVec3::new(0.5, -1.0, -1.0), DVec3::new(0.0, 1.0, -1.0), DVec3::new(0.0, 0.0, 1.0), DVec3::new(0.5, 1.0, 1.0), DVec3::new(-0.5, 1.0, 1.0)])?;
/// let d = capsule_hull(&a, &b, &DAffine3::from_translation(DVec3::new(4.0, 0.0, 0.0)));
/// assert!((d.distance - 3.0).abs() < 1e-9, "{d:?}");
/// assert!(d.lower_bound <= d.distance && d.lower_bound > 3.0 - 1e-9);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn capsule_hull(a: &Capsule, b: &ConvexHull, pos12: &DAffine3) -> ShapeDistance {
    by_gjk(a, b, pos12)
}

/// [`capsule_hull`] with the roles exchanged: the convex hull `a` and the capsule `b` placed by `pos12`.
///
/// ```
/// use ccd_distance::{hull_capsule, Capsule, ConvexHull};
/// use glam::{DAffine3, DVec3};
/// let a = ConvexHull::new(&[DVec3::new(-0.5, -1.0, -1.0), DVec3::new(0.5, -1.0, -1.0), DVec3::new(0.0, 1.0, -1.0), DVec3::new(0.0, 0.0, 1.0), DVec3::new(0.5, 1.0, 1.0), DVec3::new(-0.5, 1.0, 1.0)])?;
/// let b = Capsule::new_y(1.0, 0.5)?;
/// let d = hull_capsule(&a, &b, &DAffine3::from_translation(DVec3::new(4.0, 0.0, 0.0)));
/// assert!((d.distance - 3.0).abs() < 1e-9, "{d:?}");
/// assert!(d.lower_bound <= d.distance && d.lower_bound > 3.0 - 1e-9);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn hull_capsule(a: &ConvexHull, b: &Capsule, pos12: &DAffine3) -> ShapeDistance {
    by_gjk(a, b, pos12)
}
