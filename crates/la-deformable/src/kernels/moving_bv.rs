//! Time of contact of moving bounding volumes: AABBs and 18-DOPs whose slabs move linearly
//! over `t ∈ [0, 1]` (LA Sec. IV, Eq. 2).
//!
//! A volume fitted to the vertices of a deforming mesh at `t = 0` and at `t = 1` bounds the
//! mesh at every `t` by the linear interpolation of its slab bounds: along a slab direction
//! `a`, `max_i a·x_i(t) = max_i ((1 − t) a·x_i(0) + t a·x_i(1)) ≤ (1 − t) max_i a·x_i(0) +
//! t max_i a·x_i(1)` (and symmetrically for the minimum). Two such volumes can only touch
//! when, on every slab direction, both gaps `B.min(t) − A.max(t)` and `A.min(t) − B.max(t)`
//! are ≤ 0. Each gap is linear in `t`, so each condition holds on an interval of time; the
//! volumes can touch only on the intersection of those intervals, and its start is a lower
//! bound of the time of contact of anything inside them (the paper's `τ = max_i t_i`, here
//! computed with the exit times too, so a pair whose slabs pass each other at different times
//! is culled).

use ccd_bvh::Kdop18;
use ccd_geometry::Aabb;

/// Relative widening of computed interval ends (a few ulps: the root of a linear function is
/// one subtraction and one division of already-inflated values).
const ROOT_SLACK: f64 = 8.0 * f64::EPSILON;

/// Intersects `window` with the times in `[0, t_max]` where the linear function with values
/// `f0` at `t = 0` and `f1` at `t = 1` is `≤ m`. Returns `false` when the result is empty.
#[inline]
fn clip(window: &mut (f64, f64), f0: f64, f1: f64, m: f64, t_max: f64) -> bool {
    let slope = f1 - f0;
    let at_end = f0 + slope * t_max;
    match (f0 <= m, at_end <= m) {
        (true, true) => true,
        (false, false) => false,
        (true, false) => {
            // leaves the half-space at the root: the window ends there (rounded up)
            let root = (m - f0) / slope;
            window.1 = window.1.min(root * (1.0 + ROOT_SLACK) + f64::MIN_POSITIVE);
            window.0 <= window.1
        }
        (false, true) => {
            // enters it at the root: the window starts there (rounded down)
            let root = (f0 - m) / -slope;
            window.0 = window.0.max(root * (1.0 - ROOT_SLACK));
            window.0 <= window.1
        }
    }
}

/// The core of both volume types: `a0/a1` and `b0/b1` are `(min, max)` slab bounds of A and B
/// at `t = 0` and `t = 1`, `margin[k]` the distance that counts as touching along slab `k`.
#[inline]
#[allow(clippy::needless_range_loop)] // four parallel slab arrays and the margins
fn slabs_toc<const N: usize>(
    a0: (&[f64; N], &[f64; N]),
    a1: (&[f64; N], &[f64; N]),
    b0: (&[f64; N], &[f64; N]),
    b1: (&[f64; N], &[f64; N]),
    margin: &[f64; N],
    t_max: f64,
) -> Option<f64> {
    let mut window = (0.0, t_max);
    for k in 0..N {
        // gap B.min − A.max and gap A.min − B.max, each ≤ margin while touching
        if !clip(
            &mut window,
            b0.0[k] - a0.1[k],
            b1.0[k] - a1.1[k],
            margin[k],
            t_max,
        ) || !clip(
            &mut window,
            a0.0[k] - b0.1[k],
            a1.0[k] - b1.1[k],
            margin[k],
            t_max,
        ) {
            return None;
        }
    }
    Some(window.0.max(0.0))
}

/// Lower bound of the time at which two linearly moving AABBs come within `margin` of each
/// other on every axis, in `[0, t_max]`, or `None` when they provably stay apart on that
/// interval (LA Sec. IV-A, Eq. 2).
///
/// `a0`, `a1` are A's boxes at `t = 0` and `t = 1` (each bounding the same points at those
/// times), likewise `b0`, `b1`. `margin ≥ 0` is added to every gap (pass the distance
/// tolerance plus a bound on the rounding error of the boxes' coordinates); non-finite
/// input gives `Some(0.0)` (nothing is culled).
///
/// # Example
/// ```
/// use ccd_geometry::{Aabb, glam::DVec3};
/// use ccd_la_deformable::kernels::moving_aabb_toc;
///
/// let unit = Aabb::new(DVec3::ZERO, DVec3::ONE);
/// let b0 = Aabb::new(DVec3::new(3.0, 0.0, 0.0), DVec3::new(4.0, 1.0, 1.0));
/// let b1 = Aabb::new(DVec3::new(-1.0, 0.0, 0.0), DVec3::new(0.0, 1.0, 1.0));
/// // B slides left by 4 while A stays: the gap of 2 closes at t = 0.5
/// let t = moving_aabb_toc(&unit, &unit, &b0, &b1, 0.0, 1.0).unwrap();
/// assert!((t - 0.5).abs() < 1e-12 && t <= 0.5);
/// // and nothing happens before t = 0.4
/// assert_eq!(moving_aabb_toc(&unit, &unit, &b0, &b1, 0.0, 0.4), None);
/// ```
#[must_use]
pub fn moving_aabb_toc(
    a0: &Aabb,
    a1: &Aabb,
    b0: &Aabb,
    b1: &Aabb,
    margin: f64,
    t_max: f64,
) -> Option<f64> {
    let arr = |b: &Aabb| (b.min.to_array(), b.max.to_array());
    let (a0, a1, b0, b1) = (arr(a0), arr(a1), arr(b0), arr(b1));
    let finite = [a0, a1, b0, b1]
        .iter()
        .all(|(lo, hi)| lo.iter().chain(hi).all(|x| x.is_finite()));
    if !finite || !margin.is_finite() || t_max.is_nan() {
        return Some(0.0);
    }
    slabs_toc(
        (&a0.0, &a0.1),
        (&a1.0, &a1.1),
        (&b0.0, &b0.1),
        (&b1.0, &b1.1),
        &[margin; 3],
        t_max.min(1.0),
    )
}

/// [`moving_aabb_toc`] for finite input (the scene query's inner loop).
#[inline]
pub(crate) fn aabb_toc_unchecked(
    a0: &Aabb,
    a1: &Aabb,
    b0: &Aabb,
    b1: &Aabb,
    margin: f64,
    t_max: f64,
) -> Option<f64> {
    let arr = |b: &Aabb| (b.min.to_array(), b.max.to_array());
    let (a0, a1, b0, b1) = (arr(a0), arr(a1), arr(b0), arr(b1));
    slabs_toc(
        (&a0.0, &a0.1),
        (&a1.0, &a1.1),
        (&b0.0, &b0.1),
        (&b1.0, &b1.1),
        &[margin; 3],
        t_max,
    )
}

/// The 18-DOP version of [`moving_aabb_toc`] (LA Sec. IV-B): `margin` is a Euclidean
/// distance, scaled per slab by the length of its (unnormalised) direction.
///
/// # Example
/// ```
/// use ccd_bvh::{BoundingVolume, Kdop18};
/// use ccd_geometry::glam::DVec3;
/// use ccd_la_deformable::kernels::moving_kdop_toc;
///
/// let a = Kdop18::fit_points(&[DVec3::ZERO, DVec3::new(1.0, 1.0, 0.0)]);
/// // a diagonal stick B moving towards A along x: its box meets A's box at t = 0.25, but the
/// // diagonal slabs keep them apart until t = 0.5
/// let b0 = Kdop18::fit_points(&[DVec3::new(2.0, 0.0, 0.0), DVec3::new(3.0, 1.0, 0.0)]);
/// let b1 = Kdop18::fit_points(&[DVec3::new(-2.0, 0.0, 0.0), DVec3::new(-1.0, 1.0, 0.0)]);
/// let t = moving_kdop_toc(&a, &a, &b0, &b1, 0.0, 1.0).unwrap();
/// assert!(t > 0.49 && t <= 0.5);
/// ```
#[must_use]
pub fn moving_kdop_toc(
    a0: &Kdop18,
    a1: &Kdop18,
    b0: &Kdop18,
    b1: &Kdop18,
    margin: f64,
    t_max: f64,
) -> Option<f64> {
    let finite = [a0, a1, b0, b1]
        .iter()
        .all(|k| k.min.iter().chain(&k.max).all(|x| x.is_finite()));
    if !finite || !margin.is_finite() || t_max.is_nan() {
        return Some(0.0);
    }
    kdop_toc_unchecked(a0, a1, b0, b1, &kdop_margin(margin), t_max.min(1.0))
}

/// Per-slab margins of an 18-DOP for a Euclidean `margin` (diagonal slab directions have
/// length √2; 1.5 > √2 keeps the scaled margin an upper bound after rounding).
#[inline]
#[must_use]
pub(crate) fn kdop_margin(margin: f64) -> [f64; 9] {
    let d = margin * 1.5;
    [margin, margin, margin, d, d, d, d, d, d]
}

/// [`moving_kdop_toc`] for finite input with precomputed per-slab margins (the scene query's
/// inner loop).
#[inline]
pub(crate) fn kdop_toc_unchecked(
    a0: &Kdop18,
    a1: &Kdop18,
    b0: &Kdop18,
    b1: &Kdop18,
    margin: &[f64; 9],
    t_max: f64,
) -> Option<f64> {
    slabs_toc(
        (&a0.min, &a0.max),
        (&a1.min, &a1.max),
        (&b0.min, &b0.max),
        (&b1.min, &b1.max),
        margin,
        t_max,
    )
}

/// Static overlap of two 18-DOPs within per-slab margins (the swept-volume test of the
/// hybrid BVH's upper layer).
#[inline]
pub(crate) fn kdop_overlap(a: &Kdop18, b: &Kdop18, margin: &[f64; 9]) -> bool {
    (0..9).all(|k| b.min[k] - a.max[k] <= margin[k] && a.min[k] - b.max[k] <= margin[k])
}

#[cfg(test)]
mod tests {
    use super::*;
    use ccd_bvh::BoundingVolume;
    use ccd_geometry::glam::DVec3;

    fn lcg(seed: &mut u64) -> f64 {
        *seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((*seed >> 11) as f64) / ((1u64 << 53) as f64)
    }

    /// Sampled check: whenever two point sets moving linearly touch (closest pair of points
    /// within the margin on every slab of the 18-DOP of the two sets at that time), the
    /// moving test must not have culled that time.
    #[test]
    fn never_culls_a_sampled_overlap() {
        let mut seed = 7u64;
        let mut hits = 0;
        for _ in 0..2000 {
            let mut pts = |c: DVec3| -> (Vec<DVec3>, Vec<DVec3>) {
                let d = DVec3::new(lcg(&mut seed), lcg(&mut seed), lcg(&mut seed)) * 4.0 - 2.0;
                let p0: Vec<DVec3> = (0..3)
                    .map(|_| c + DVec3::new(lcg(&mut seed), lcg(&mut seed), lcg(&mut seed)))
                    .collect();
                let p1 = p0
                    .iter()
                    .map(|p| {
                        *p + d + DVec3::new(lcg(&mut seed), lcg(&mut seed), lcg(&mut seed)) * 0.5
                    })
                    .collect();
                (p0, p1)
            };
            let (pa0, pa1) = pts(DVec3::ZERO);
            let (pb0, pb1) = pts(DVec3::new(1.5, 0.5, 0.0));
            let fit = |p: &[DVec3]| Kdop18::fit_points(p);
            let toc = moving_kdop_toc(&fit(&pa0), &fit(&pa1), &fit(&pb0), &fit(&pb1), 0.0, 1.0);
            let abox = |p: &[DVec3]| Aabb::from_points(p.iter().copied());
            let btoc =
                moving_aabb_toc(&abox(&pa0), &abox(&pa1), &abox(&pb0), &abox(&pb1), 0.0, 1.0);
            for s in 0..=200 {
                let t = f64::from(s) / 200.0;
                let at = |p0: &[DVec3], p1: &[DVec3]| -> Vec<DVec3> {
                    p0.iter().zip(p1).map(|(a, b)| a.lerp(*b, t)).collect()
                };
                let (ka, kb) = (fit(&at(&pa0, &pa1)), fit(&at(&pb0, &pb1)));
                if kdop_overlap(&ka, &kb, &[0.0; 9]) {
                    hits += 1;
                    let tc = toc.expect("overlap at a sampled time was culled");
                    assert!(tc <= t, "toc {tc} after a sampled overlap at {t}");
                }
                let (ba, bb) = (
                    Aabb::from_points(at(&pa0, &pa1)),
                    Aabb::from_points(at(&pb0, &pb1)),
                );
                if ba.min.cmple(bb.max).all() && bb.min.cmple(ba.max).all() {
                    let tc = btoc.expect("box overlap at a sampled time was culled");
                    assert!(tc <= t);
                }
            }
        }
        assert!(hits > 100, "the generator must produce overlaps ({hits})");
    }

    #[test]
    fn separating_slabs_cull_and_non_finite_does_not() {
        let a = Aabb::new(DVec3::ZERO, DVec3::ONE);
        let far = Aabb::new(DVec3::splat(5.0), DVec3::splat(6.0));
        assert_eq!(moving_aabb_toc(&a, &a, &far, &far, 0.1, 1.0), None);
        let nan = Aabb::new(DVec3::splat(f64::NAN), DVec3::ONE);
        assert_eq!(moving_aabb_toc(&a, &a, &nan, &far, 0.1, 1.0), Some(0.0));
        // touching at t = 0 within the margin
        let near = Aabb::new(DVec3::new(1.05, 0.0, 0.0), DVec3::new(2.0, 1.0, 1.0));
        assert_eq!(moving_aabb_toc(&a, &a, &near, &near, 0.1, 1.0), Some(0.0));
        assert_eq!(moving_aabb_toc(&a, &a, &near, &near, 0.01, 1.0), None);
        // passing on x while apart on y at that time: culled thanks to the exit times
        let b0 = Aabb::new(DVec3::new(3.0, 3.0, 0.0), DVec3::new(4.0, 4.0, 1.0));
        let b1 = Aabb::new(DVec3::new(-4.0, 3.0, 0.0), DVec3::new(-3.0, 4.0, 1.0));
        assert_eq!(moving_aabb_toc(&a, &a, &b0, &b1, 0.0, 1.0), None);
    }
}
