//! Distance between a capsule and a cylinder: GJK on the support mappings of the cores (to a relative 1e-12; the lower bound is the proven slab width).

use glam::DAffine3;

use super::{ShapeDistance, by_gjk};
use crate::{Capsule, Cylinder};

/// The distance between the capsule `a` and the cylinder `b` placed in `a`'s frame by `pos12`
/// (GJK on the support mappings of the cores (to a relative 1e-12; the lower bound is the proven slab width)); see [`ShapeDistance`] for the answer's frame.
///
/// ```
/// use ccd_distance::{capsule_cylinder, Capsule, Cylinder};
/// use glam::{DAffine3, DVec3};
/// let a = Capsule::new_y(1.0, 0.5)?;
/// let b = Cylinder::new(1.0, 0.5)?;
/// let d = capsule_cylinder(&a, &b, &DAffine3::from_translation(DVec3::new(4.0, 0.0, 0.0)));
/// assert!((d.distance - 3.0).abs() < 1e-9, "{d:?}");
/// assert!(d.lower_bound <= d.distance && d.lower_bound > 3.0 - 1e-9);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn capsule_cylinder(a: &Capsule, b: &Cylinder, pos12: &DAffine3) -> ShapeDistance {
    by_gjk(a, b, pos12)
}

/// [`capsule_cylinder`] with the roles exchanged: the cylinder `a` and the capsule `b` placed by `pos12`.
///
/// ```
/// use ccd_distance::{cylinder_capsule, Capsule, Cylinder};
/// use glam::{DAffine3, DVec3};
/// let a = Cylinder::new(1.0, 0.5)?;
/// let b = Capsule::new_y(1.0, 0.5)?;
/// let d = cylinder_capsule(&a, &b, &DAffine3::from_translation(DVec3::new(4.0, 0.0, 0.0)));
/// assert!((d.distance - 3.0).abs() < 1e-9, "{d:?}");
/// assert!(d.lower_bound <= d.distance && d.lower_bound > 3.0 - 1e-9);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn cylinder_capsule(a: &Cylinder, b: &Capsule, pos12: &DAffine3) -> ShapeDistance {
    by_gjk(a, b, pos12)
}
