//! Distance between a cuboid and a cuboid: GJK on the support mappings of the cores (exact for polytopes).

use glam::DAffine3;

use super::{ShapeDistance, by_gjk};
use crate::Cuboid;

/// The distance between the cuboid `a` and the cuboid `b` placed in `a`'s frame by `pos12`
/// (GJK on the support mappings of the cores (exact for polytopes)); see [`ShapeDistance`] for the answer's frame.
///
/// ```
/// use ccd_distance::{cuboid_cuboid, Cuboid};
/// use glam::{DAffine3, DVec3};
/// let a = Cuboid::new(DVec3::splat(0.5))?;
/// let b = a;
/// let d = cuboid_cuboid(&a, &b, &DAffine3::from_translation(DVec3::new(4.0, 0.0, 0.0)));
/// assert!((d.distance - 3.0).abs() < 1e-9, "{d:?}");
/// assert!(d.lower_bound <= d.distance && d.lower_bound > 3.0 - 1e-9);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn cuboid_cuboid(a: &Cuboid, b: &Cuboid, pos12: &DAffine3) -> ShapeDistance {
    by_gjk(a, b, pos12)
}
