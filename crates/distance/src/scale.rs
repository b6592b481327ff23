//! Exact power-of-two rescaling: the primitive kernels run at a coordinate scale where none
//! of their intermediate quantities (up to fourth powers of coordinates) can overflow or
//! underflow, whatever the scale of the input.
//!
//! Distances, witness points and their features are equivariant under a uniform scaling, and
//! multiplying by a power of two is exact in binary floating point (barring underflow), so a
//! query whose largest coordinate magnitude `M` lies outside `[2⁻¹⁰⁰, 2¹⁰⁰]` is answered by
//! scaling its input by `2ᵏ` (`M·2ᵏ ∈ [2⁹⁹, 2¹⁰⁰)` from above, `[2⁻¹⁰⁰, 2⁻⁹⁹)` from below),
//! computing there, and scaling the result back by `2⁻ᵏ`. Scaling up is exact; scaling down
//! loses only bits below `2⁻¹⁰⁷⁴⁺⁹⁹⁻ᵉ` for `M ≈ 2ᵉ`, which are far below the kernels' own
//! rounding (`≈ 2⁻⁵³ M`). Inside the window the kernels run unchanged, so inputs of ordinary
//! scale pay one comparison.

use ccd_geometry::Feature;
use glam::DVec3;

use crate::Closest;

/// `2¹⁰⁰`: above this largest coordinate magnitude, a query is scaled down first.
pub(crate) const SAFE_MAX: f64 = 1_267_650_600_228_229_401_496_703_205_376.0;

/// `2⁻¹⁰⁰`: below this largest (non-zero) coordinate magnitude, a query is scaled up first.
pub(crate) const SAFE_MIN: f64 = 1.0 / SAFE_MAX;

/// The largest coordinate magnitude of `points` (NaN-propagation is not needed: non-finite
/// input is outside every kernel's contract and is passed through unscaled).
#[inline(always)]
pub(crate) fn max_abs<const N: usize>(points: &[DVec3; N]) -> f64 {
    let mut m = DVec3::ZERO;
    for p in points {
        m = m.max(p.abs());
    }
    m.max_element()
}

/// Whether a query of largest coordinate magnitude `m` must be rescaled.
#[inline(always)]
pub(crate) fn outside_window(m: f64) -> bool {
    (m > SAFE_MAX && m <= f64::MAX) || (m < SAFE_MIN && m > 0.0)
}

/// `⌊log₂ m⌋` for finite `m > 0` (subnormals included).
fn exponent(m: f64) -> i32 {
    let biased = ((m.to_bits() >> 52) & 0x7ff) as i32;
    if biased == 0 {
        // subnormal: 2⁶⁴ m is normal
        exponent(m * 18_446_744_073_709_551_616.0) - 64
    } else {
        biased - 1023
    }
}

/// `2ᵏ` for `−1022 ≤ k ≤ 1023`.
fn pow2(k: i32) -> f64 {
    debug_assert!((-1022..=1023).contains(&k));
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// The factors `(2ᵏ, 2⁻ᵏ)` that bring a largest magnitude `m` (with
/// [`outside_window`]`(m)`) into the window: `m·2ᵏ ∈ [2⁹⁹, 2¹⁰⁰)` or `[2⁻¹⁰⁰, 2⁻⁹⁹)`.
/// `k ∈ [−924, 974]`, so both factors are normal numbers.
#[cold]
pub(crate) fn factors(m: f64) -> (f64, f64) {
    let e = exponent(m);
    let k = if m > SAFE_MAX { 99 - e } else { -100 - e };
    (pow2(k), pow2(-k))
}

/// Runs `kernel` on the points of shape `a` (`va`) and shape `b` (`vb`) scaled into the
/// window (`m` is their largest magnitude, with [`outside_window`]`(m)`), and maps the result
/// back: the distance and non-vertex witnesses scaled by `2⁻ᵏ`, vertex witnesses replaced by
/// the original vertices (exact whatever the scaling lost).
#[cold]
#[inline(never)]
pub(crate) fn rescaled<const NA: usize, const NB: usize>(
    va: &[DVec3; NA],
    vb: &[DVec3; NB],
    m: f64,
    kernel: impl Fn(&[DVec3; NA], &[DVec3; NB]) -> Closest,
) -> Closest {
    let (f, inv) = factors(m);
    let c = kernel(&va.map(|p| p * f), &vb.map(|p| p * f));
    let back = |p: DVec3, feature: Feature, v: &[DVec3]| match feature {
        Feature::Vertex(i) => v.get(i as usize).copied().unwrap_or(p * inv),
        _ => p * inv,
    };
    Closest {
        distance: c.distance * inv,
        point_a: back(c.point_a, c.feature_a, va),
        point_b: back(c.point_b, c.feature_b, vb),
        feature_a: c.feature_a,
        feature_b: c.feature_b,
    }
}

/// The exact power-of-two scaling `(2ᵏ, 2⁻ᵏ)` that brings a query whose largest coordinate
/// magnitude is `max_abs` into the window `[2⁻¹⁰⁰, 2¹⁰⁰]` where the primitive kernels run
/// without rescaling (`max_abs·2ᵏ ∈ [2⁹⁹, 2¹⁰⁰)` from above, `[2⁻¹⁰⁰, 2⁻⁹⁹)` from below), or
/// `None` when `max_abs` is already inside it, zero or not finite.
///
/// Multiplying every coordinate (and every distance, such as a tolerance) by `2ᵏ` is exact
/// in binary floating point except where a result underflows, and distances, witnesses and
/// times of contact are equivariant (times invariant) under it; so a query at an extreme
/// scale can be computed on the scaled copy and its lengths scaled back by `2⁻ᵏ`. The
/// distance kernels of this crate do so internally; the local-advancement kernels of
/// `ccd-la-deformable` use it once per query.
///
/// # Example
/// ```
/// use ccd_distance::rescale_factors;
///
/// assert_eq!(rescale_factors(1.0), None);
/// let (up, down) = rescale_factors(1e-300).expect("outside the window");
/// assert!(1e-300 * up >= 2f64.powi(-100) && 1e-300 * up < 2f64.powi(-99));
/// assert_eq!(up * down, 1.0);
/// ```
#[inline]
#[must_use]
pub fn rescale_factors(max_abs: f64) -> Option<(f64, f64)> {
    outside_window(max_abs).then(|| factors(max_abs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn factors_land_in_the_window_and_are_exact_inverses() {
        let cases = [
            f64::MAX,
            1e300,
            1e100,
            SAFE_MAX * 2.0,
            SAFE_MIN * 0.5,
            1e-100,
            1e-300,
            f64::MIN_POSITIVE,
            f64::MIN_POSITIVE / 3.0,
            5e-324,
        ];
        for m in cases {
            assert!(outside_window(m), "{m}");
            let (f, inv) = factors(m);
            assert_eq!(f * inv, 1.0);
            let s = m * f;
            assert!(
                (SAFE_MAX * 0.5..SAFE_MAX).contains(&s) || (SAFE_MIN..SAFE_MIN * 2.0).contains(&s),
                "{m} -> {s}"
            );
            assert!(!outside_window(s));
        }
        for m in [0.0, 1.0, SAFE_MAX, SAFE_MIN, f64::INFINITY, f64::NAN] {
            assert!(!outside_window(m), "{m}");
        }
        assert_eq!(SAFE_MAX, 2f64.powi(100));
        assert_eq!(SAFE_MIN, 2f64.powi(-100));
    }
}
