//! Order-3 Taylor models of scalar functions of time.
//!
//! A [`TaylorModel`] over the time domain `[a, b]` is a cubic polynomial in `s = t − m`
//! (`m` the midpoint of the domain) with f64 coefficients, plus an interval remainder `R`,
//! such that for every `t` in `[a, b]` the modelled function satisfies
//! `f(t) ∈ c0 + c1 s + c2 s² + c3 s³ + R`, the polynomial evaluated exactly (CATCH, Sec. 5.1).
//!
//! Every floating-point rounding in computing coefficients is bounded and folded into `R`,
//! together with the degree 4–6 terms of products, so the enclosure holds in floating point.
//! A coefficient that would overflow (or be NaN) is computed in interval arithmetic
//! instead and moved into `R`, so the enclosure also holds over the whole f64 range.
//!
//! This file holds the type, its invariants and the rounding-bound helpers every operation
//! shares; the operations live in the submodules: `construct` (constants, time, affine
//! functions), `trig` (`sin`/`cos` of an affine argument), `range` (bounds, evaluation,
//! restriction to a sub-domain), `arith` (`+`, `−`, `×` and their checked forms) and `fused`
//! (sums of products as one model, for [`crate::Enclosure`]).

mod arith;
mod construct;
mod fused;
mod range;
#[cfg(test)]
mod tests;
mod trig;

use crate::Interval;
#[cfg(feature = "serde")]
use crate::TaylorError;
use crate::interval::{down, up};

/// Relative rounding bound of one operation in round-to-nearest, rounded up (> 2^-53).
const U: f64 = 1.2e-16;
/// Relative bound of the rounding of a sum of at most four products (> γ₅ with margin).
const GAMMA: f64 = 1.0e-15;
/// Absolute allowance for underflow in products.
const TINY: f64 = 1.0e-300;
/// Relative bound of the rounding of a sum of at most thirteen terms, each exact or one
/// rounded product (the fused sums of three model products and an addend): `γ₁₃ < 1.45e-15`
/// covers the sum, with margin for the sum of magnitudes being computed in floating point.
const GAMMA_DOT: f64 = 2.0e-15;

/// An order-3 Taylor model: a cubic in `t − m` plus an interval remainder, enclosing a
/// scalar function of time over a domain `[a, b]` (CATCH, Sec. 5.1).
///
/// # Domain and invariants
/// Models are computed over domains inside `[−MAX_DOMAIN, MAX_DOMAIN]`
/// ([`TaylorModel::MAX_DOMAIN`] `= 1e50`; time domains are sub-intervals of `[0, 1]` in
/// practice). [`TaylorModel::check_domain`] and [`TaylorModel::from_parts`] reject other
/// domains with [`TaylorError::InvalidDomain`](crate::TaylorError::InvalidDomain); the
/// infallible constructors given one fall back to plain interval arithmetic (a constant
/// polynomial whose remainder is the interval enclosure), which is rigorous but loses the
/// Taylor tightness. The coefficients are
/// always finite and the remainder is an [`Interval`] (possibly unbounded), so
/// [`TaylorModel::bound`] and [`TaylorModel::eval`] never give NaN, for any f64 input.
///
/// Models combined by `+`, `−` and `×` must share their domain; mismatched domains give the
/// unbounded model over the left operand's domain (see [`TaylorModel::try_add`] for the
/// checked forms).
///
/// # Example
/// ```
/// use ccd_taylor::{Interval, TaylorModel};
///
/// let dom = Interval::UNIT;
/// let c = TaylorModel::cos_affine(0.5, 0.3, dom); // cos(t/2 + 0.3)
/// let s = TaylorModel::sin_affine(0.5, 0.3, dom);
/// let one = c * c + s * s; // cos² + sin² = 1, to within the remainder
/// let b = one.bound();
/// assert!(b.contains(1.0) && b.width() < 0.002);
/// // Interval arithmetic, by contrast, loses the correlation:
/// let (ci, si) = (Interval::new(0.3, 0.8).cos(), Interval::new(0.3, 0.8).sin());
/// assert!((ci * ci + si * si).width() > 0.2);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(try_from = "ModelParts"))]
pub struct TaylorModel {
    coeffs: [f64; 4],
    rem: Interval,
    domain: Interval,
    mid: f64,
    /// `max |t − mid|` over the domain, rounded up (0 for a point or out-of-range domain).
    radius: f64,
}

/// The serialized form, checked against the invariants when deserialized.
#[cfg(feature = "serde")]
#[derive(serde::Deserialize)]
struct ModelParts {
    coeffs: [f64; 4],
    rem: Interval,
    domain: Interval,
    mid: f64,
    radius: f64,
}

#[cfg(feature = "serde")]
impl TryFrom<ModelParts> for TaylorModel {
    type Error = TaylorError;
    fn try_from(p: ModelParts) -> Result<Self, TaylorError> {
        if !p.coeffs.iter().all(|c| c.is_finite()) {
            return Err(TaylorError::NonFiniteCoefficients(p.coeffs));
        }
        let model = match Self::zero_on(p.domain) {
            Some(base) => Self {
                coeffs: p.coeffs,
                rem: p.rem,
                ..base
            },
            None if p.coeffs[1..].iter().all(|&c| c == 0.0) => {
                Self::flat(p.coeffs[0], p.rem, p.domain)
            }
            None => return Err(TaylorError::InconsistentModel(p.domain)),
        };
        if model.mid == p.mid && model.radius == p.radius {
            Ok(model)
        } else {
            Err(TaylorError::InconsistentModel(p.domain))
        }
    }
}

/// `[1, h, h², h³]`, each rounded up (`h >= 0`); exactly `[1, 0, 0, 0]` for `h = 0`
/// (a point domain), so terms of degree >= 1 vanish there whatever their coefficient.
#[inline]
fn powers(h: f64) -> [f64; 4] {
    if h == 0.0 {
        return [1.0, 0.0, 0.0, 0.0];
    }
    let h2 = up(h * h);
    [1.0, h, h2, up(h2 * h)]
}

/// The interval `S^k` for `S = [−h, h]`.
#[inline]
fn s_pow(hp: &[f64; 4], k: usize) -> Interval {
    if k.is_multiple_of(2) && k > 0 {
        Interval::raw(0.0, hp[k])
    } else {
        Interval::sym(hp[k])
    }
}

/// `Σ_k err_k h^k` as a symmetric interval (a bound on coefficient rounding errors).
///
/// All terms are non-negative, so the floating-point sum of the four products is within
/// a relative `γ₈ < 1e-15` of the exact one; the result is inflated by `2e-15` relative
/// and rounded up. The `err_k` themselves may carry a relative rounding error of a few
/// ulps, which the same margin covers.
#[inline]
fn fold_errors(err: &[f64; 4], hp: &[f64; 4]) -> Interval {
    let r = err[0] + err[1] * hp[1] + err[2] * hp[2] + err[3] * hp[3];
    if r == 0.0 {
        Interval::ZERO
    } else {
        Interval::sym(up(r * (1.0 + 2.0e-15)))
    }
}

/// A sum of at most eight range terms, each computed with at most one rounding from exact
/// inputs, rounded outward once at the end (cheaper than an interval operation per term).
///
/// Recursive summation of `n` terms that each carry one rounding errs by at most
/// `γ_{n+1} Σ|term|` (`γ₉ < 1.1e-15`); `finish` adds `2e-15 Σ|term|` (the sum of
/// magnitudes is itself computed in floating point, hence the margin) and rounds outward.
struct LazySum {
    lo: f64,
    hi: f64,
    mag: f64,
}

impl LazySum {
    #[inline]
    fn new(lo: f64, hi: f64) -> Self {
        Self {
            lo,
            hi,
            mag: lo.abs().max(hi.abs()),
        }
    }

    /// Adds `[−r, r]` (`r >= 0`).
    #[inline]
    fn add_symmetric(&mut self, r: f64) {
        self.lo -= r;
        self.hi += r;
        self.mag += r;
    }

    /// Adds the range of `x · σ` for `σ ∈ [0, 1]` (an even power of `s` times a coefficient).
    #[inline]
    fn add_even(&mut self, x: f64) {
        if x < 0.0 {
            self.lo += x;
        } else {
            self.hi += x;
        }
        self.mag += x.abs();
    }

    #[inline]
    fn finish(self) -> Interval {
        // `lo` only decreases from a finite start and `hi` only increases, so neither is
        // NaN and `down`/`up` keep them a valid interval even after an overflow.
        let slack = up(2.0e-15 * self.mag + TINY);
        Interval::raw(down(self.lo - slack), up(self.hi + slack))
    }
}

/// Interval Horner evaluation of the cubic at `x` (finite coefficients).
#[inline]
fn horner(c: &[f64; 4], x: Interval) -> Interval {
    ((Interval::exact(c[3]) * x + c[2]) * x + c[1]) * x + c[0]
}

/// Splits interval coefficients into f64 midpoints and a remainder over `S = [−h, h]`.
/// An unbounded coefficient gets the midpoint 0 and goes whole into the remainder (where
/// it vanishes on a point domain, `S = [0, 0]`).
fn split(k: [Interval; 4], hp: &[f64; 4]) -> ([f64; 4], Interval) {
    let mut c = [0.0; 4];
    let mut rem = Interval::ZERO;
    for i in 0..4 {
        c[i] = if k[i].is_finite() {
            k[i].midpoint()
        } else {
            0.0
        };
        let resid = k[i] - c[i];
        if resid != Interval::ZERO {
            rem += if i == 0 { resid } else { resid * s_pow(hp, i) };
        }
    }
    (c, rem)
}

/// The interval `S^k` for `S = [−h, h]` and `k = 4, 5, 6` (exactly 0 for `h = 0`).
fn s_pow_high(h: f64, k: usize) -> Interval {
    if h == 0.0 {
        return Interval::ZERO;
    }
    let s = Interval::sym(h);
    s.powi(u32::try_from(k).unwrap_or(u32::MAX))
}

/// A power of two `k` with `m · k` in `[2⁻⁵¹, 4)` for finite `m > 0` (`2^-e` for the
/// binary exponent `e` of `m`, kept a normal float), so scaled values neither overflow
/// when squared nor sit at the bottom of the range.
fn inverse_binade(m: f64) -> f64 {
    let biased = ((m.to_bits() >> 52) & 0x7ff) as i64;
    // e = biased − 1023 (−1023 for subnormals); 2^-e has the biased exponent 2046 − biased
    let inv = (2046 - biased).clamp(1, 2046) as u64;
    f64::from_bits(inv << 52)
}

/// Enclosures of the real roots of `A s² + B s + C` (for the cubic's critical points).
fn quadratic_roots(
    a: Interval,
    b: Interval,
    c: Interval,
    a_zero: bool,
    b_zero: bool,
) -> [Option<Interval>; 2] {
    if a_zero {
        if b_zero {
            return [None, None];
        }
        return [Some((-c).checked_div(b).unwrap_or(Interval::ENTIRE)), None];
    }
    let disc = b.sqr() - a * c * 4.0;
    let Ok(sd) = disc.sqrt() else {
        return [None, None];
    };
    // q = −(B + sign(B) √D) / 2; roots q / A and C / q
    let q = if b.lo() >= 0.0 {
        -(b + sd) * 0.5
    } else {
        -(b - sd) * 0.5
    };
    let two_a = a * 2.0;
    match (q.checked_div(a), c.checked_div(q)) {
        (Ok(r1), Ok(r2)) => [Some(r1), Some(r2)],
        _ => [
            Some((-b + sd).checked_div(two_a).unwrap_or(Interval::ENTIRE)),
            Some((-b - sd).checked_div(two_a).unwrap_or(Interval::ENTIRE)),
        ],
    }
}

impl TaylorModel {
    /// The largest magnitude of a domain endpoint on which models are computed (`1e50`:
    /// `radius⁶` stays finite). See the type's documentation for other domains.
    pub const MAX_DOMAIN: f64 = 1.0e50;

    /// True when `domain` lies within `±MAX_DOMAIN` (so it is finite).
    #[inline]
    fn domain_in_range(domain: Interval) -> bool {
        domain.lo() >= -Self::MAX_DOMAIN && domain.hi() <= Self::MAX_DOMAIN
    }

    /// The zero model over an in-range `domain` (expansion point and radius set), or
    /// `None` for a domain out of range.
    fn zero_on(domain: Interval) -> Option<Self> {
        if !Self::domain_in_range(domain) {
            return None;
        }
        let mid = domain.midpoint();
        // a zero difference is exact (floats differ iff their difference is nonzero)
        let reach = |d: f64| if d == 0.0 { 0.0 } else { up(d) };
        let radius = reach(mid - domain.lo()).max(reach(domain.hi() - mid));
        Some(Self {
            coeffs: [0.0; 4],
            rem: Interval::ZERO,
            domain,
            mid,
            radius,
        })
    }

    /// The interval-arithmetic model `c0 + rem` (constant polynomial, radius 0): what the
    /// constructors give over a domain out of range.
    fn flat(c0: f64, rem: Interval, domain: Interval) -> Self {
        Self {
            coeffs: [c0, 0.0, 0.0, 0.0],
            rem,
            domain,
            mid: domain.midpoint(),
            radius: 0.0,
        }
    }

    /// The unbounded model over this model's domain (what mismatched domains give).
    fn unbounded(&self) -> Self {
        Self {
            coeffs: [0.0; 4],
            rem: Interval::ENTIRE,
            ..*self
        }
    }

    /// Coefficients of `(t − m)^k`, `k = 0..=3`.
    #[inline]
    #[must_use]
    pub fn coefficients(&self) -> [f64; 4] {
        self.coeffs
    }

    /// The interval remainder.
    #[inline]
    #[must_use]
    pub fn remainder(&self) -> Interval {
        self.rem
    }

    /// The time domain `[a, b]`.
    #[inline]
    #[must_use]
    pub fn domain(&self) -> Interval {
        self.domain
    }

    /// The expansion point `m` (midpoint of the domain).
    #[inline]
    #[must_use]
    pub fn expansion_point(&self) -> f64 {
        self.mid
    }
}
