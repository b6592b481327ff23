//! Distance between a capsule and a cuboid: GJK on the support mappings of the cores (exact for polytopes).

use glam::DAffine3;

use super::{ShapeDistance, by_gjk};
use crate::{Capsule, Cuboid};

/// The distance between the capsule `a` and the cuboid `b` placed in `a`'s frame by `pos12`
/// (GJK on the support mappings of the cores (exact for polytopes)); see [`ShapeDistance`] for the answer's frame.
///
/// ```
/// use ccd_distance::{capsule_cuboid, Capsule, Cuboid};
/// use glam::{DAffine3, DVec3};
/// let a = Capsule::new_y(1.0, 0.5)?;
/// let b = Cuboid::new(DVec3::splat(0.5))?;
/// let d = capsule_cuboid(&a, &b, &DAffine3::from_translation(DVec3::new(4.0, 0.0, 0.0)));
/// assert!((d.distance - 3.0).abs() < 1e-9, "{d:?}");
/// assert!(d.lower_bound <= d.distance && d.lower_bound > 3.0 - 1e-9);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn capsule_cuboid(a: &Capsule, b: &Cuboid, pos12: &DAffine3) -> ShapeDistance {
    by_gjk(a, b, pos12)
}

/// [`capsule_cuboid`] with the roles exchanged: the cuboid `a` and the capsule `b` placed by `pos12`.
///
/// ```
/// use ccd_distance::{cuboid_capsule, Capsule, Cuboid};
/// use glam::{DAffine3, DVec3};
/// let a = Cuboid::new(DVec3::splat(0.5))?;
/// let b = Capsule::new_y(1.0, 0.5)?;
/// let d = cuboid_capsule(&a, &b, &DAffine3::from_translation(DVec3::new(4.0, 0.0, 0.0)));
/// assert!((d.distance - 3.0).abs() < 1e-9, "{d:?}");
/// assert!(d.lower_bound <= d.distance && d.lower_bound > 3.0 - 1e-9);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn cuboid_capsule(a: &Cuboid, b: &Capsule, pos12: &DAffine3) -> ShapeDistance {
    by_gjk(a, b, pos12)
}
