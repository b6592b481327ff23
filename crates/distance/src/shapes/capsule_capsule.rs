//! Distance between a capsule and a capsule: the exact segment–segment distance of the cores minus the radii.

use ccd_geometry::Segment;
use glam::DAffine3;

use super::{ShapeDistance, from_closest};
use crate::{Capsule, segment_segment};

/// The distance between the capsule `a` and the capsule `b` placed in `a`'s frame by `pos12`
/// (the exact segment–segment distance of the cores minus the radii); see [`ShapeDistance`] for the answer's frame.
///
/// ```
/// use ccd_distance::{capsule_capsule, Capsule};
/// use glam::{DAffine3, DVec3};
/// let a = Capsule::new_y(1.0, 0.5)?;
/// let b = a;
/// let d = capsule_capsule(&a, &b, &DAffine3::from_translation(DVec3::new(4.0, 0.0, 0.0)));
/// assert!((d.distance - 3.0).abs() < 1e-9, "{d:?}");
/// assert!(d.lower_bound <= d.distance && d.lower_bound > 3.0 - 1e-9);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn capsule_capsule(a: &Capsule, b: &Capsule, pos12: &DAffine3) -> ShapeDistance {
    let s = b.segment();
    let s = Segment::new(pos12.transform_point3(s.a), pos12.transform_point3(s.b));
    let c = segment_segment(&a.segment(), &s);
    from_closest(&c, a.radius(), b.radius(), c.feature_a, c.feature_b)
}
