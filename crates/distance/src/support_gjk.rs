//! GJK between any two convex sets given by their support mappings ([`SupportMap`]), with a
//! proven lower bound: the width of the slab separating them along the final direction.
//!
//! The loop and the signed-volumes sub-simplex step are those of the hull GJK
//! ([`gjk_distance`](crate::gjk_distance)); here the support points come from any
//! [`SupportMap`] (boxes, cylinders, triangles, segments, points, hulls). For polytopes the
//! loop ends exactly (the support point repeats); for smooth sets (cylinders) it ends at the
//! relative tolerance or when `|v|` stops decreasing, and the reported lower bound
//! [`SupportDistance::gap`] — `min_B n·y − max_A n·x` along the final unit direction `n`,
//! from one more support evaluation — holds whatever the convergence: it is what
//! conservative advancement steps with.

use glam::{DAffine3, DVec3};

use crate::gjk::{MinkowskiPoint, Simplex};
use crate::shape::SupportMap;

/// The answer of [`gjk_support`]; points and normal in A's frame.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct SupportDistance {
    /// `|point_b − point_a|`: an upper bound of the distance (0 when intersecting).
    pub distance: f64,
    /// A lower bound of the distance: the separating slab's width along `normal` (can be
    /// negative or 0 when the sets touch or overlap).
    pub gap: f64,
    /// A point of A closest to B (a common point when intersecting).
    pub point_a: DVec3,
    /// A point of B closest to A (A's frame).
    pub point_b: DVec3,
    /// Unit direction from A to B (zero when intersecting).
    pub normal: DVec3,
    /// Support ids of A's points in the final simplex (`len` of them).
    pub ids_a: [u32; 4],
    /// Support ids of B's points in the final simplex.
    pub ids_b: [u32; 4],
    /// Number of points of the final simplex.
    pub len: u8,
    /// `true` when the sets touch or overlap.
    pub intersecting: bool,
    /// Support evaluations after the first.
    pub iterations: u32,
}

/// Iteration cap of [`gjk_support`] (polytopes of a few hundred vertices converge far below
/// it; a smooth set stops at the tolerance).
pub const SUPPORT_GJK_MAX_ITERATIONS: u32 = 64;

/// GJK distance between `a` (its local frame is the query frame) and `b` placed in A's
/// frame by the rigid transform `pos12`, to the relative tolerance `1e-12`.
///
/// ```
/// use ccd_distance::{Cuboid, Cylinder, gjk_support};
/// use glam::{DAffine3, DVec3};
/// let a = Cuboid::new(DVec3::splat(1.0))?;
/// let b = Cylinder::new(1.0, 0.5)?;
/// let r = gjk_support(&a, &b, &DAffine3::from_translation(DVec3::new(3.0, 0.0, 0.0)));
/// assert!((r.distance - 1.5).abs() < 1e-12 && r.gap <= r.distance && r.gap > 1.5 - 1e-9);
/// # Ok::<(), ccd_distance::ShapeError>(())
/// ```
#[must_use]
pub fn gjk_support<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(
    a: &A,
    b: &B,
    pos12: &DAffine3,
) -> SupportDistance {
    gjk_support_within(a, b, pos12, 0.0)
}

/// [`gjk_support`] that may stop as soon as the distance is known to within `tolerance`
/// (absolute): when `|v| − v·w/|v| ≤ tolerance` for the current closest point `v` and the
/// support point `w` along `−v`. The answer keeps its guarantees — `distance` is the
/// distance of two points of the sets (an upper bound), `gap` the width of a separating
/// slab (a lower bound) — and `distance − gap ≤ tolerance` unless the loop stopped for
/// convergence or at [`SUPPORT_GJK_MAX_ITERATIONS`]. For conservative advancement, which
/// needs a lower bound and a contact test, not the exact distance: a smooth set (a
/// cylinder's rim) converges only linearly, and most of its iterations refine digits that
/// the advancement does not use. `tolerance` 0 (or NaN) is [`gjk_support`].
///
/// ```
/// use ccd_distance::{Cuboid, Cylinder, gjk_support, gjk_support_within};
/// use glam::{DAffine3, DQuat, DVec3};
/// let a = Cuboid::new(DVec3::splat(0.4))?;
/// let b = Cylinder::new(0.3, 0.5)?;
/// let pos = DAffine3::from_rotation_translation(DQuat::from_rotation_z(0.7), DVec3::new(1.5, 0.2, 0.1));
/// let (exact, coarse) = (gjk_support(&a, &b, &pos), gjk_support_within(&a, &b, &pos, 1e-3));
/// assert!(coarse.iterations <= exact.iterations);
/// assert!(coarse.gap <= exact.distance + 1e-12 && coarse.distance >= exact.gap - 1e-12);
/// assert!(coarse.distance - coarse.gap <= 1e-3);
/// # Ok::<(), ccd_distance::ShapeError>(())
/// ```
#[must_use]
pub fn gjk_support_within<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(
    a: &A,
    b: &B,
    pos12: &DAffine3,
    tolerance: f64,
) -> SupportDistance {
    let tolerance = if tolerance > 0.0 { tolerance } else { 0.0 };
    let rot = pos12.matrix3;
    let rot_t = rot.transpose();
    let tr = pos12.translation;
    let support = |d: DVec3| {
        let (pa, ia) = a.support(d);
        let (pb_local, ib) = b.support(rot_t * -d);
        let pb = rot * pb_local + tr;
        MinkowskiPoint {
            w: pa - pb,
            pa,
            pb,
            ia,
            ib,
        }
    };
    let mut s = Simplex::default();
    let centre = a.center() - (rot * b.center() + tr);
    let d0 = if centre.length_squared() > 0.0 {
        centre
    } else {
        DVec3::X
    };
    let p = support(-d0);
    s.push(p);
    s.lambda[0] = 1.0;
    let mut v = p.w;
    let mut vv = v.length_squared();
    let mut intersecting = vv.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater);
    let mut iterations = 0;
    while !intersecting && iterations < SUPPORT_GJK_MAX_ITERATIONS {
        iterations += 1;
        let p = support(-v);
        let vw = v.dot(p.w);
        // (vv − vw = |v| (|v| − v·w/|v|): the gap between the distance's bounds times |v|)
        if vv - vw <= 1e-12 * vv
            || vv - vw <= tolerance * vv.sqrt()
            || (0..s.n).any(|k| s.w[k] == p.w)
        {
            break;
        }
        let previous = s;
        s.push(p);
        let next = s.reduce();
        if s.n == 4 {
            intersecting = true;
            break;
        }
        let next_vv = next.length_squared();
        if next_vv.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
            v = next;
            intersecting = true;
            break;
        }
        if next_vv >= vv {
            s = previous;
            break;
        }
        v = next;
        vv = next_vv;
    }
    let mut point_a = DVec3::ZERO;
    let mut point_b = DVec3::ZERO;
    for k in 0..s.n {
        point_a += s.pa[k] * s.lambda[k];
        point_b += s.pb[k] * s.lambda[k];
    }
    let mut ids_a = [0; 4];
    let mut ids_b = [0; 4];
    ids_a[..s.n].copy_from_slice(&s.ia[..s.n]);
    ids_b[..s.n].copy_from_slice(&s.ib[..s.n]);
    let (distance, gap, normal) = if intersecting {
        (0.0, 0.0, DVec3::ZERO)
    } else {
        let d = vv.sqrt();
        // the slab along the final direction, from the exact supports
        let w = support(-v).w;
        let gap = (v.dot(w) / d).min(d);
        (d, gap, -v / d)
    };
    if intersecting {
        point_b = point_a;
    }
    SupportDistance {
        distance,
        gap,
        point_a,
        point_b,
        normal,
        ids_a,
        ids_b,
        len: s.n as u8,
        intersecting,
        iterations,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Cuboid, Cylinder};
    use ccd_geometry::Segment;

    #[test]
    fn segment_against_box_is_exact() {
        let b = Cuboid::new(DVec3::new(1.0, 2.0, 3.0)).unwrap();
        let s = Segment::new(DVec3::new(2.0, -5.0, 0.0), DVec3::new(2.0, 5.0, 0.0));
        let r = gjk_support(&b, &s, &DAffine3::IDENTITY);
        assert!((r.distance - 1.0).abs() < 1e-15);
        assert!((r.gap - 1.0).abs() < 1e-15);
        assert_eq!(r.normal, DVec3::X);
        let inside = Segment::new(DVec3::ZERO, DVec3::X);
        assert!(gjk_support(&b, &inside, &DAffine3::IDENTITY).intersecting);
    }

    #[test]
    fn cylinders_side_by_side() {
        let c = Cylinder::new(1.0, 0.5).unwrap();
        let pos = DAffine3::from_translation(DVec3::new(0.0, 0.0, 1.7));
        let r = gjk_support(&c, &c, &pos);
        assert!((r.distance - 0.7).abs() < 1e-9, "{r:?}");
        assert!(r.gap <= 0.7 + 1e-12 && r.gap > 0.7 - 1e-9);
    }
}
