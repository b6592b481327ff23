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

use std::ops::{Add, Mul, Neg, Sub};

use crate::interval::{down, up};
use crate::{Interval, TaylorError};

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
/// domains with [`TaylorError::InvalidDomain`]; the infallible constructors given one fall
/// back to plain interval arithmetic (a constant polynomial whose remainder is the interval
/// enclosure), which is rigorous but loses the Taylor tightness. The coefficients are
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

    /// Checks that `domain` is usable as a time domain: finite and within
    /// `±`[`TaylorModel::MAX_DOMAIN`].
    ///
    /// # Errors
    /// [`TaylorError::InvalidDomain`] for a domain out of that range.
    ///
    /// ```
    /// use ccd_taylor::{Interval, TaylorModel};
    /// assert!(TaylorModel::check_domain(Interval::UNIT).is_ok());
    /// assert!(TaylorModel::check_domain(Interval::new(-1e300, 1e300)).is_err());
    /// ```
    pub fn check_domain(domain: Interval) -> Result<Interval, TaylorError> {
        if Self::domain_in_range(domain) {
            Ok(domain)
        } else {
            Err(TaylorError::InvalidDomain(domain))
        }
    }

    /// A model from its parts: coefficients of `(t − m)^k`, remainder, domain.
    ///
    /// # Errors
    /// [`TaylorError::InvalidDomain`] when the domain is out of range (see
    /// [`TaylorModel::check_domain`]); [`TaylorError::NonFiniteCoefficients`] when a
    /// coefficient is infinite or NaN.
    ///
    /// ```
    /// use ccd_taylor::{Interval, TaylorModel};
    /// let f = TaylorModel::from_parts([1.0, 2.0, 0.0, 0.0], Interval::ZERO, Interval::UNIT)?;
    /// assert!(f.bound().contains(0.0) && f.bound().contains(2.0));
    /// assert!(TaylorModel::from_parts([f64::NAN; 4], Interval::ZERO, Interval::UNIT).is_err());
    /// # Ok::<(), ccd_taylor::TaylorError>(())
    /// ```
    pub fn from_parts(
        coeffs: [f64; 4],
        remainder: Interval,
        domain: Interval,
    ) -> Result<Self, TaylorError> {
        if !coeffs.iter().all(|c| c.is_finite()) {
            return Err(TaylorError::NonFiniteCoefficients(coeffs));
        }
        let base = Self::zero_on(domain).ok_or(TaylorError::InvalidDomain(domain))?;
        Ok(Self {
            coeffs,
            rem: remainder,
            ..base
        })
    }

    /// The constant function `c` (exact over any domain; a non-finite `c` becomes the
    /// remainder [`Interval::point`]`(c)`).
    ///
    /// ```
    /// use ccd_taylor::{Interval, TaylorModel};
    /// let b = TaylorModel::constant(2.0, Interval::UNIT).bound();
    /// assert!(b.contains(2.0) && b.width() < 1e-14);
    /// ```
    #[must_use]
    pub fn constant(c: f64, domain: Interval) -> Self {
        let (c0, rem) = if c.is_finite() {
            (c, Interval::ZERO)
        } else {
            (0.0, Interval::point(c))
        };
        match Self::zero_on(domain) {
            Some(base) => Self {
                coeffs: [c0, 0.0, 0.0, 0.0],
                rem,
                ..base
            },
            None => Self::flat(c0, rem, domain),
        }
    }

    /// The identity `t ↦ t` (exact: `m + (t − m)`).
    ///
    /// ```
    /// use ccd_taylor::{Interval, TaylorModel};
    /// assert!(TaylorModel::time(Interval::UNIT).bound().contains_interval(&Interval::UNIT));
    /// ```
    #[must_use]
    pub fn time(domain: Interval) -> Self {
        match Self::zero_on(domain) {
            Some(base) => Self {
                coeffs: [base.mid, 1.0, 0.0, 0.0],
                ..base
            },
            None => Self::flat(0.0, domain, domain),
        }
    }

    /// The affine function `c0 + c1 t`.
    ///
    /// ```
    /// use ccd_taylor::{Interval, TaylorModel};
    /// let f = TaylorModel::affine(1.0, -3.0, Interval::new(0.0, 0.5));
    /// let b = f.bound();
    /// assert!(b.contains(1.0) && b.contains(-0.5) && b.width() < 1.5 + 1e-12);
    /// ```
    #[must_use]
    pub fn affine(c0: f64, c1: f64, domain: Interval) -> Self {
        let Some(base) = Self::zero_on(domain) else {
            return Self::flat(0.0, domain * c1 + Interval::point(c0), domain);
        };
        let k1 = Interval::point(c1);
        let k0 = Interval::point(c0) + k1 * Interval::exact(base.mid);
        let (coeffs, rem) = split(
            [k0, k1, Interval::ZERO, Interval::ZERO],
            &powers(base.radius),
        );
        Self {
            coeffs,
            rem,
            ..base
        }
    }

    /// `sin(ω t + φ)` with a rigorous Lagrange remainder: the fourth derivative
    /// `ω⁴ sin(ξ)` bounded over the whole argument range, times `(t − m)⁴ / 24`, plus the
    /// coefficient rounding (CATCH, Sec. 5.1: "exact" remainder by simple analysis).
    ///
    /// ```
    /// use ccd_taylor::{Interval, TaylorModel};
    /// let f = TaylorModel::sin_affine(1.0, 0.0, Interval::UNIT);
    /// assert!(f.eval(0.5).contains(0.5f64.sin()));
    /// assert!(f.remainder().mag() < 3e-3); // ω⁴ h⁴ / 24 with h = 1/2
    /// ```
    #[must_use]
    pub fn sin_affine(omega: f64, phi: f64, domain: Interval) -> Self {
        Self::trig(omega, phi, domain, false)
    }

    /// `cos(ω t + φ)` with a rigorous remainder (see [`TaylorModel::sin_affine`]).
    ///
    /// ```
    /// use ccd_taylor::{Interval, TaylorModel};
    /// let f = TaylorModel::cos_affine(3.0, 0.1, Interval::new(0.2, 0.4));
    /// assert!(f.bound().contains((3.0f64 * 0.3 + 0.1).cos()));
    /// ```
    #[must_use]
    pub fn cos_affine(omega: f64, phi: f64, domain: Interval) -> Self {
        Self::trig(omega, phi, domain, true)
    }

    /// `(cos(ω t + φ), sin(ω t + φ))`: bit for bit [`TaylorModel::cos_affine`] and
    /// [`TaylorModel::sin_affine`], sharing their expansion point's sine and cosine.
    ///
    /// ```
    /// use ccd_taylor::{Interval, TaylorModel};
    /// let d = Interval::new(0.2, 0.4);
    /// let (c, s) = TaylorModel::cos_sin_affine(3.0, 0.1, d);
    /// assert_eq!((c, s), (TaylorModel::cos_affine(3.0, 0.1, d), TaylorModel::sin_affine(3.0, 0.1, d)));
    /// ```
    #[must_use]
    pub fn cos_sin_affine(omega: f64, phi: f64, domain: Interval) -> (Self, Self) {
        let w = Interval::point(omega);
        let Some(base) = Self::zero_on(domain) else {
            return (
                Self::trig(omega, phi, domain, true),
                Self::trig(omega, phi, domain, false),
            );
        };
        let theta = w * base.mid + Interval::point(phi);
        let (st, ct) = (theta.sin(), theta.cos());
        let arg = (base.radius > 0.0).then(|| theta + w * Interval::sym(base.radius));
        (
            Self::trig_terms(w, &base, st, ct, arg.map(Interval::cos), true),
            Self::trig_terms(w, &base, st, ct, arg.map(Interval::sin), false),
        )
    }

    fn trig(omega: f64, phi: f64, domain: Interval, cosine: bool) -> Self {
        let w = Interval::point(omega);
        let Some(base) = Self::zero_on(domain) else {
            let arg = w * domain + Interval::point(phi);
            let range = if cosine { arg.cos() } else { arg.sin() };
            return Self::flat(0.0, range, domain);
        };
        let theta = w * base.mid + Interval::point(phi);
        let (st, ct) = (theta.sin(), theta.cos());
        let f4 = (base.radius > 0.0).then(|| {
            let arg = theta + w * Interval::sym(base.radius);
            if cosine { arg.cos() } else { arg.sin() }
        });
        Self::trig_terms(w, &base, st, ct, f4, cosine)
    }

    /// The model of `cos` (`cosine`) or `sin` of `ω t + φ` from the sine `st` and cosine
    /// `ct` of `θ = ω m + φ`, and `f4`, the function over `θ + ω [−h, h]` (`None` on a
    /// point domain).
    fn trig_terms(
        w: Interval,
        base: &Self,
        st: Interval,
        ct: Interval,
        f4: Option<Interval>,
        cosine: bool,
    ) -> Self {
        let hp = powers(base.radius);
        let sixth = Interval::ONE / Interval::exact(6.0);
        let w2 = w.sqr();
        let w3 = w2 * w;
        // derivatives of sin: sin, cos, −sin, −cos; of cos: cos, −sin, −cos, sin
        let (d0, d1) = if cosine { (ct, -st) } else { (st, ct) };
        let k = [d0, w * d1, -(w2 * d0) * 0.5, -(w3 * d1) * sixth];
        let (coeffs, mut rem) = split(k, &hp);
        // Lagrange remainder: f⁽⁴⁾(ξ)(t − m)⁴ / 24 with f⁽⁴⁾ = ω⁴ f(ξ) (none on a point
        // domain, where t − m = 0).
        if let Some(f4) = f4 {
            let s4 = Interval::raw(0.0, up(hp[2] * hp[2]));
            let inv24 = Interval::ONE / Interval::exact(24.0);
            rem += w2.sqr() * f4 * s4 * inv24;
        }
        Self {
            coeffs,
            rem,
            ..*base
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

    /// An enclosure of the polynomial part over the domain, cheap (no root finding).
    #[inline]
    pub(crate) fn poly_range_cheap(&self) -> Interval {
        let hp = powers(self.radius);
        let c = &self.coeffs;
        let mut acc = LazySum::new(c[0], c[0]);
        acc.add_symmetric(c[1].abs() * hp[1]);
        acc.add_even(c[2] * hp[2]);
        acc.add_symmetric(c[3].abs() * hp[3]);
        acc.finish()
    }

    /// The exact range of the cubic over the domain (endpoints and the enclosed critical
    /// points, evaluated in outward-rounded interval arithmetic) plus the remainder:
    /// an enclosure of the modelled function over the whole domain.
    ///
    /// ```
    /// use ccd_taylor::{Interval, TaylorModel};
    /// // t(1 − t) peaks at 1/4 inside [0, 1]
    /// let t = TaylorModel::time(Interval::UNIT);
    /// let f = t * (TaylorModel::constant(1.0, Interval::UNIT) - t);
    /// let b = f.bound();
    /// assert!(b.contains(0.0) && b.contains(0.25) && b.hi() < 0.25 + 1e-12);
    /// ```
    #[must_use]
    pub fn bound(&self) -> Interval {
        // Extreme coefficients (huge or tiny) would overflow or underflow the discriminant;
        // the critical points do not change when the derivative is scaled by a power of two.
        const BIG: f64 = 1.0e100;
        const SMALL: f64 = 1.0e-100;
        if let Some(r) = self.monotone_range() {
            return r + self.rem;
        }
        let h = self.radius;
        let c = &self.coeffs;
        let s = Interval::sym(h);
        let mut r = horner(c, Interval::exact(-h)).hull(horner(c, Interval::exact(h)));
        let m = c[1].abs().max(c[2].abs()).max(c[3].abs());
        let (a, b, lin) = if m > BIG || (m < SMALL && m > 0.0) {
            let k = inverse_binade(m);
            (
                Interval::exact(c[3]) * (3.0 * k),
                Interval::exact(c[2]) * (2.0 * k),
                Interval::exact(c[1]) * k,
            )
        } else {
            (
                Interval::exact(c[3]) * 3.0,
                Interval::exact(c[2]) * 2.0,
                Interval::exact(c[1]),
            )
        };
        for x in quadratic_roots(a, b, lin, c[3] == 0.0, c[2] == 0.0)
            .into_iter()
            .flatten()
        {
            if let Some(x) = x.intersection(s) {
                r = r.hull(horner(c, x));
            }
        }
        r + self.rem
    }

    /// The range of the cubic over `S = [−h, h]` when it is monotone there, cheaply: when
    /// `|c1|` exceeds `2|c2| h + 3|c3| h²` (computed, then raised by a relative `4e-15`
    /// that covers its six roundings, plus `TINY` for underflow), the derivative
    /// `c1 + 2 c2 s + 3 c3 s²` keeps the sign of `c1` on `S`, so the range is spanned by
    /// the values at `±h`. Each is
    /// evaluated by Horner's rule in f64 and widened by Horner's error bound
    /// `γ₆ Σ|ck| h^k` (`γ₆ < 6.7e-16`; `1e-15` covers it and the rounding of the sum of
    /// magnitudes) plus `TINY` for underflow, then rounded outward. `None` when the test
    /// fails or a value is not finite (the caller's exact search takes over).
    #[inline]
    fn monotone_range(&self) -> Option<Interval> {
        let h = self.radius;
        let c = &self.coeffs;
        // (`TINY` absolute: terms that underflow lose up to a subnormal ulp each)
        let slope = (2.0 * c[2].abs() * h + 3.0 * c[3].abs() * (h * h)) * (1.0 + 4.0e-15) + TINY;
        if slope.is_nan() || c[1].abs() <= slope {
            return None;
        }
        let eval = |x: f64| ((c[3] * x + c[2]) * x + c[1]) * x + c[0];
        let (a, b) = (eval(-h), eval(h));
        let mag = ((c[3].abs() * h + c[2].abs()) * h + c[1].abs()) * h + c[0].abs();
        let e = 1.0e-15 * mag + TINY;
        if !(a.is_finite() && b.is_finite() && e.is_finite()) {
            return None;
        }
        let e = up(e);
        Some(Interval::raw(down(a.min(b) - e), up(a.max(b) + e)))
    }

    /// An enclosure of the modelled function at time `t` (a point of the domain):
    /// the polynomial evaluated in interval arithmetic plus the remainder.
    #[must_use]
    pub fn eval(&self, t: f64) -> Interval {
        horner(&self.coeffs, Interval::point(t) - self.mid) + self.rem
    }

    /// The same function re-expanded on a sub-domain (its midpoint): the polynomial is
    /// shifted exactly (in interval arithmetic, residuals folded into the remainder) and
    /// the remainder is kept. CA uses this to bound `[t, 1]` as `t` advances.
    ///
    /// # Errors
    /// [`TaylorError::NotASubdomain`] when `sub` is not inside the domain.
    ///
    /// ```
    /// use ccd_taylor::{Interval, TaylorModel};
    /// let f = TaylorModel::sin_affine(3.0, 0.0, Interval::UNIT);
    /// let g = f.restrict(Interval::new(0.5, 1.0))?;
    /// assert!(g.bound().width() < f.bound().width());
    /// assert!(g.bound().contains(2.0f64.sin()));
    /// # Ok::<(), ccd_taylor::TaylorError>(())
    /// ```
    pub fn restrict(&self, sub: Interval) -> Result<Self, TaylorError> {
        if !self.domain.contains_interval(&sub) {
            return Err(TaylorError::NotASubdomain {
                sub,
                domain: self.domain,
            });
        }
        let Some(base) = Self::zero_on(sub) else {
            // an out-of-range domain's model is flat: only c0 is nonzero
            return Ok(Self::flat(self.coeffs[0], self.rem, sub));
        };
        let base = Self {
            rem: self.rem,
            ..base
        };
        let d = Interval::exact(base.mid) - self.mid;
        let (d2, d3) = (d.sqr(), d.powi(3));
        let c = self.coeffs.map(Interval::exact);
        let k = [
            c[0] + c[1] * d + c[2] * d2 + c[3] * d3,
            c[1] + c[2] * d * 2.0 + c[3] * d2 * 3.0,
            c[2] + c[3] * d * 3.0,
            c[3],
        ];
        let (coeffs, rem) = split(k, &powers(base.radius));
        Ok(Self {
            coeffs,
            rem: base.rem + rem,
            ..base
        })
    }

    /// This model times an uncertain constant `k` (an interval).
    ///
    /// ```
    /// use ccd_taylor::{Interval, TaylorModel};
    /// let f = TaylorModel::time(Interval::UNIT).mul_interval(Interval::new(1.0, 2.0));
    /// assert!(f.bound().contains(2.0) && f.bound().contains(0.0));
    /// ```
    #[must_use]
    pub fn mul_interval(self, k: Interval) -> Self {
        let km = k.midpoint();
        let mut out = self * km;
        let resid = k - km;
        if resid != Interval::ZERO {
            out.rem += (self.poly_range_cheap() + self.rem) * resid;
        }
        out
    }

    /// This model plus an uncertain constant `k` (an interval).
    ///
    /// ```
    /// use ccd_taylor::{Interval, TaylorModel};
    /// let f = TaylorModel::time(Interval::UNIT).add_interval(Interval::new(1.0, 2.0));
    /// assert!(f.bound().contains(1.0) && f.bound().contains(3.0));
    /// ```
    #[must_use]
    pub fn add_interval(self, k: Interval) -> Self {
        let km = k.midpoint();
        let mut out = self + km;
        out.rem += k - km;
        out
    }

    /// `self + rhs`, or [`TaylorError::DomainMismatch`] when the domains differ.
    ///
    /// # Errors
    /// [`TaylorError::DomainMismatch`] when the models are over different domains.
    ///
    /// ```
    /// use ccd_taylor::{Interval, TaylorError, TaylorModel};
    /// let f = TaylorModel::time(Interval::UNIT);
    /// assert!(f.try_add(f)?.bound().contains(2.0));
    /// let g = TaylorModel::time(Interval::new(0.0, 0.5));
    /// assert!(matches!(f.try_add(g), Err(TaylorError::DomainMismatch(..))));
    /// # Ok::<(), TaylorError>(())
    /// ```
    pub fn try_add(self, rhs: Self) -> Result<Self, TaylorError> {
        self.same_domain(&rhs)?;
        Ok(self + rhs)
    }

    /// `self − rhs`, or [`TaylorError::DomainMismatch`] when the domains differ.
    ///
    /// # Errors
    /// [`TaylorError::DomainMismatch`] when the models are over different domains.
    ///
    /// ```
    /// use ccd_taylor::{Interval, TaylorModel};
    /// let f = TaylorModel::time(Interval::UNIT);
    /// assert!(f.try_sub(f)?.bound().contains(0.0));
    /// # Ok::<(), ccd_taylor::TaylorError>(())
    /// ```
    pub fn try_sub(self, rhs: Self) -> Result<Self, TaylorError> {
        self.same_domain(&rhs)?;
        Ok(self - rhs)
    }

    /// `self × rhs`, or [`TaylorError::DomainMismatch`] when the domains differ.
    ///
    /// # Errors
    /// [`TaylorError::DomainMismatch`] when the models are over different domains.
    ///
    /// ```
    /// use ccd_taylor::{Interval, TaylorModel};
    /// let f = TaylorModel::time(Interval::UNIT);
    /// assert!(f.try_mul(f)?.bound().contains(1.0));
    /// # Ok::<(), ccd_taylor::TaylorError>(())
    /// ```
    pub fn try_mul(self, rhs: Self) -> Result<Self, TaylorError> {
        self.same_domain(&rhs)?;
        Ok(self * rhs)
    }

    #[inline]
    fn same_domain(&self, other: &Self) -> Result<(), TaylorError> {
        if self.domain == other.domain {
            Ok(())
        } else {
            Err(TaylorError::DomainMismatch(self.domain, other.domain))
        }
    }

    /// The model with interval coefficients `k` (degree 0..=3) and extra remainder `rem`,
    /// split into f64 midpoints: the slow path of the operations when an f64 coefficient
    /// would overflow.
    #[cold]
    fn with_interval_coeffs(&self, k: [Interval; 4], rem: Interval) -> Self {
        let (coeffs, r) = split(k, &powers(self.radius));
        Self {
            coeffs,
            rem: rem + r,
            ..*self
        }
    }

    fn add_impl(self, rhs: Self, sign: f64) -> Self {
        if self.domain != rhs.domain {
            return self.unbounded();
        }
        let mut c = [0.0; 4];
        let mut err = [0.0; 4];
        for k in 0..4 {
            c[k] = self.coeffs[k] + sign * rhs.coeffs[k];
            err[k] = U * c[k].abs();
        }
        let rhs_rem = if sign > 0.0 { rhs.rem } else { -rhs.rem };
        if !c.iter().all(|x| x.is_finite()) {
            let k = std::array::from_fn(|i| {
                Interval::exact(self.coeffs[i]) + Interval::exact(sign * rhs.coeffs[i])
            });
            return self.with_interval_coeffs(k, self.rem + rhs_rem);
        }
        let rem = self.rem + rhs_rem + fold_errors(&err, &powers(self.radius));
        Self {
            coeffs: c,
            rem,
            ..self
        }
    }

    /// `a₀ b₀ + a₁ b₁ + a₂ b₂ (+ c)` as one model (the [`crate::Enclosure::dot3`] of Taylor
    /// models): the coefficients of all products summed in f64 with one rounding bound per
    /// degree (`GAMMA_DOT` times the sum of the magnitudes, plus `TINY` for underflow),
    /// the degree 4–6 terms of the sum bounded once, and each product's remainder cross
    /// terms `P_a R_b + P_b R_a + R_a R_b` added. Models over different domains or with
    /// coefficients whose products overflow take the operations one by one.
    pub(crate) fn fused_dot3(a: [&Self; 3], b: [&Self; 3], c: Option<&Self>) -> Self {
        Self::fused_dot(a, b, c, None)
    }

    /// The range of the polynomial part of a model of a function with values in
    /// `[−1, 1]` (a sine or cosine): its cheap range cut to `[−1, 1] − R` (`P = f − R`).
    /// Only valid under that premise.
    pub(crate) fn unit_poly_range(&self) -> Interval {
        let cheap = self.poly_range_cheap();
        let premise = Interval::new(-1.0, 1.0) - self.rem;
        cheap.intersection(premise).unwrap_or(cheap)
    }

    /// [`TaylorModel::fused_dot3`] for `N ∈ 1..=3` products (the rounding bound
    /// `GAMMA_DOT` covers sums of up to thirteen terms, so fewer products keep it valid).
    /// `a_ranges`, when given, are enclosures of the ranges of `a`'s polynomial parts
    /// (used for the remainder cross terms instead of their cheap ranges).
    pub(crate) fn fused_dot<const N: usize>(
        a: [&Self; N],
        b: [&Self; N],
        c: Option<&Self>,
        a_ranges: Option<[Interval; N]>,
    ) -> Self {
        const { assert!(N >= 1 && N <= 3) };
        let d = a[0].domain;
        let same =
            a.iter().chain(b.iter()).all(|m| m.domain == d) && c.is_none_or(|c| c.domain == d);
        let slow = || {
            let mut s = *a[0] * *b[0];
            for m in 1..N {
                s = s + *a[m] * *b[m];
            }
            match c {
                Some(c) => s + *c,
                None => s,
            }
        };
        if !same {
            return slow();
        }
        let mut p = [0.0f64; 7];
        let mut abs = [0.0f64; 7];
        // (see `mul`: degrees with a product of two non-zero factors get the underflow
        // allowance)
        let mut live = [false; 7];
        for m in 0..N {
            let (x, y) = (&a[m].coeffs, &b[m].coeffs);
            for i in 0..4 {
                for j in 0..4 {
                    let v = x[i] * y[j];
                    p[i + j] += v;
                    abs[i + j] += v.abs();
                    live[i + j] |= x[i] != 0.0 && y[j] != 0.0;
                }
            }
        }
        if let Some(c) = c {
            // exact terms: a degree without a live product keeps c's coefficient exactly
            for k in 0..4 {
                p[k] += c.coeffs[k];
                abs[k] += c.coeffs[k].abs();
            }
        }
        if !abs.iter().all(|x| x.is_finite()) {
            return slow();
        }
        let hp = powers(a[0].radius);
        let mut err = [0.0; 4];
        for k in 0..4 {
            err[k] = if live[k] {
                up(GAMMA_DOT * abs[k] + TINY)
            } else {
                0.0
            };
        }
        let mut rem = fold_errors(&err, &hp);
        let h4 = up(hp[2] * hp[2]);
        let high_pow = [h4, up(h4 * a[0].radius), up(h4 * hp[2])];
        let mut high = LazySum::new(0.0, 0.0);
        for k in 4..7 {
            if !live[k] {
                continue;
            }
            let hk = high_pow[k - 4];
            high.add_symmetric((GAMMA_DOT * abs[k] + TINY) * hk);
            if k.is_multiple_of(2) {
                high.add_even(p[k] * hk);
            } else {
                high.add_symmetric(p[k].abs() * hk);
            }
        }
        rem += high.finish();
        for m in 0..N {
            let (x, y) = (a[m], b[m]);
            if x.rem != Interval::ZERO || y.rem != Interval::ZERO {
                let px = a_ranges.map_or_else(|| x.poly_range_cheap(), |r| r[m]);
                let py = y.poly_range_cheap();
                rem += px * y.rem + py * x.rem + x.rem * y.rem;
            }
        }
        if let Some(c) = c {
            rem += c.rem;
        }
        Self {
            coeffs: [p[0], p[1], p[2], p[3]],
            rem,
            ..*a[0]
        }
    }

    /// `a₀ x₀ + a₁ x₁ + a₂ x₂ (+ c)` for f64 constants `x` as one model (the
    /// [`crate::Enclosure::dot3_const`] of Taylor models): the coefficients summed in f64
    /// with one rounding bound per degree, the remainders scaled and added. Different
    /// domains, non-finite constants or overflow take the operations one by one.
    pub(crate) fn fused_dot3_const(a: [&Self; 3], x: [f64; 3], c: Option<&Self>) -> Self {
        let d = a[0].domain;
        let same = a.iter().all(|m| m.domain == d) && c.is_none_or(|c| c.domain == d);
        let slow = || {
            let s = *a[0] * x[0] + *a[1] * x[1] + *a[2] * x[2];
            match c {
                Some(c) => s + *c,
                None => s,
            }
        };
        if !same || !x.iter().all(|v| v.is_finite()) {
            return slow();
        }
        let mut coeffs = [0.0f64; 4];
        let mut err = [0.0f64; 4];
        for k in 0..4 {
            let (mut s, mut mag, mut live) = match c {
                Some(c) => (c.coeffs[k], c.coeffs[k].abs(), false),
                None => (0.0, 0.0, false),
            };
            for m in 0..3 {
                let v = a[m].coeffs[k] * x[m];
                s += v;
                mag += v.abs();
                live |= a[m].coeffs[k] != 0.0 && x[m] != 0.0;
            }
            if !mag.is_finite() {
                return slow();
            }
            coeffs[k] = s;
            // at most four terms, three of them rounded products: γ₄ < GAMMA
            err[k] = if live { up(GAMMA * mag + TINY) } else { 0.0 };
        }
        let mut rem = fold_errors(&err, &powers(a[0].radius));
        for m in 0..3 {
            if a[m].rem != Interval::ZERO {
                rem += a[m].rem * x[m];
            }
        }
        if let Some(c) = c {
            rem += c.rem;
        }
        Self {
            coeffs,
            rem,
            ..*a[0]
        }
    }

    /// `f a + g b + c` for interval constants `a`, `b`, `c` as one model (the
    /// [`crate::Enclosure::lin2_interval`] of Taylor models, a rotation entry
    /// `cos·A + sin·B + C`): the midpoints' products summed in f64 with one rounding bound
    /// per degree (at most three terms: `γ₃ < GAMMA`), the remainders scaled by the
    /// midpoints, the residuals `a − mid(a)` times an enclosure of `f` (its cheap
    /// polynomial range plus remainder; likewise `g`) and `c − mid(c)` added. Mismatched
    /// domains or unbounded constants take the operations one by one.
    pub(crate) fn fused_lin2(f: &Self, a: Interval, g: &Self, b: Interval, c: Interval) -> Self {
        let slow = || f.mul_interval(a) + g.mul_interval(b).add_interval(c);
        if f.domain != g.domain || !(a.is_finite() && b.is_finite() && c.is_finite()) {
            return slow();
        }
        let (am, bm, cm) = (a.midpoint(), b.midpoint(), c.midpoint());
        let mut coeffs = [0.0f64; 4];
        let mut err = [0.0f64; 4];
        for k in 0..4 {
            let (x, y) = (f.coeffs[k] * am, g.coeffs[k] * bm);
            let add = if k == 0 { cm } else { 0.0 };
            let v = x + y + add;
            let mag = x.abs() + y.abs() + add.abs();
            if !mag.is_finite() {
                return slow();
            }
            let live = (f.coeffs[k] != 0.0 && am != 0.0) || (g.coeffs[k] != 0.0 && bm != 0.0);
            coeffs[k] = v;
            err[k] = if live { up(GAMMA * mag + TINY) } else { 0.0 };
        }
        let mut rem = fold_errors(&err, &powers(f.radius));
        if f.rem != Interval::ZERO {
            rem += f.rem * am;
        }
        if g.rem != Interval::ZERO {
            rem += g.rem * bm;
        }
        let (ra, rb, rc) = (a - am, b - bm, c - cm);
        if ra != Interval::ZERO {
            rem += (f.poly_range_cheap() + f.rem) * ra;
        }
        if rb != Interval::ZERO {
            rem += (g.poly_range_cheap() + g.rem) * rb;
        }
        if rc != Interval::ZERO {
            rem += rc;
        }
        Self { coeffs, rem, ..*f }
    }

    /// The product in interval arithmetic (coefficients that overflow f64 go to the
    /// remainder): the slow path of `*` for extreme coefficients.
    #[cold]
    fn mul_wide(&self, rhs: &Self) -> Self {
        let (a, b) = (
            self.coeffs.map(Interval::exact),
            rhs.coeffs.map(Interval::exact),
        );
        let mut k = [Interval::ZERO; 7];
        for i in 0..4 {
            for j in 0..4 {
                k[i + j] += a[i] * b[j];
            }
        }
        let mut rem = Interval::ZERO;
        for (n, kn) in k.iter().enumerate().skip(4) {
            rem += *kn * s_pow_high(self.radius, n);
        }
        if self.rem != Interval::ZERO || rhs.rem != Interval::ZERO {
            let (pa, pb) = (self.poly_range_cheap(), rhs.poly_range_cheap());
            rem += pa * rhs.rem + pb * self.rem + self.rem * rhs.rem;
        }
        self.with_interval_coeffs([k[0], k[1], k[2], k[3]], rem)
    }
}

impl Neg for TaylorModel {
    type Output = Self;
    #[inline]
    fn neg(self) -> Self {
        Self {
            coeffs: self.coeffs.map(|c| -c),
            rem: -self.rem,
            ..self
        }
    }
}

impl Add for TaylorModel {
    type Output = Self;
    /// Sum of two models over the same domain.
    ///
    /// Models over different domains (a programming error: models of one query share a
    /// domain) give the unbounded model over `self`'s domain, a valid but useless
    /// enclosure; [`TaylorModel::try_add`] reports the mismatch instead.
    #[inline]
    fn add(self, rhs: Self) -> Self {
        self.add_impl(rhs, 1.0)
    }
}

impl Sub for TaylorModel {
    type Output = Self;
    /// Difference of two models over the same domain (different domains: see `+`).
    #[inline]
    fn sub(self, rhs: Self) -> Self {
        self.add_impl(rhs, -1.0)
    }
}

impl Mul for TaylorModel {
    type Output = Self;
    /// Product of two models over the same domain: the degree 4–6 terms are bounded over
    /// the domain and folded into the remainder, with the cross terms `P_f R_g + P_g R_f +
    /// R_f R_g` and every rounding error. Different domains: see `+`.
    fn mul(self, rhs: Self) -> Self {
        if self.domain != rhs.domain {
            return self.unbounded();
        }
        let (a, b) = (&self.coeffs, &rhs.coeffs);
        let mut p = [0.0f64; 7];
        let mut abs = [0.0f64; 7];
        // whether degree k has a product of two non-zero factors: such a product can
        // underflow to 0 (or a subnormal) with an absolute error the relative bound misses,
        // so its degree gets the `TINY` allowance even when every rounded product is 0
        let mut live = [false; 7];
        for i in 0..4 {
            for j in 0..4 {
                let x = a[i] * b[j];
                p[i + j] += x;
                abs[i + j] += x.abs();
                live[i + j] |= a[i] != 0.0 && b[j] != 0.0;
            }
        }
        // |p[k]| <= abs[k] (rounding is monotone), so finite sums of magnitudes mean finite
        // coefficients and error bounds.
        if !abs.iter().all(|x| x.is_finite()) {
            return self.mul_wide(&rhs);
        }
        let hp = powers(self.radius);
        let mut err = [0.0; 4];
        for k in 0..4 {
            err[k] = if live[k] {
                up(GAMMA * abs[k] + TINY)
            } else {
                0.0
            };
        }
        let mut rem = fold_errors(&err, &hp);
        // degree 4..=6 terms over S = [−h, h], with their coefficients' rounding errors
        let h4 = up(hp[2] * hp[2]);
        let high_pow = [h4, up(h4 * self.radius), up(h4 * hp[2])];
        let mut high = LazySum::new(0.0, 0.0);
        for k in 4..7 {
            if !live[k] {
                continue;
            }
            let hk = high_pow[k - 4];
            high.add_symmetric((GAMMA * abs[k] + TINY) * hk);
            if k.is_multiple_of(2) {
                high.add_even(p[k] * hk);
            } else {
                high.add_symmetric(p[k].abs() * hk);
            }
        }
        rem += high.finish();
        if self.rem != Interval::ZERO || rhs.rem != Interval::ZERO {
            let (pa, pb) = (self.poly_range_cheap(), rhs.poly_range_cheap());
            rem += pa * rhs.rem + pb * self.rem + self.rem * rhs.rem;
        }
        Self {
            coeffs: [p[0], p[1], p[2], p[3]],
            rem,
            ..self
        }
    }
}

impl Mul<f64> for TaylorModel {
    type Output = Self;
    /// The model times a scalar (a non-finite `x` stands for [`Interval::point`]`(x)`).
    #[inline]
    fn mul(self, x: f64) -> Self {
        let mut err = [0.0; 4];
        let coeffs = std::array::from_fn(|k| {
            let c = self.coeffs[k] * x;
            err[k] = if c == 0.0 && (self.coeffs[k] == 0.0 || x == 0.0) {
                0.0
            } else {
                up(U * c.abs() + TINY)
            };
            c
        });
        if !coeffs.iter().all(|c: &f64| c.is_finite()) {
            let k = self.coeffs.map(|c| Interval::exact(c) * x);
            return self.with_interval_coeffs(k, self.rem * x);
        }
        let rem = self.rem * x + fold_errors(&err, &powers(self.radius));
        Self {
            coeffs,
            rem,
            ..self
        }
    }
}

impl Add<f64> for TaylorModel {
    type Output = Self;
    /// The model plus a scalar (a non-finite `x` stands for [`Interval::point`]`(x)`).
    #[inline]
    fn add(mut self, x: f64) -> Self {
        let c0 = self.coeffs[0] + x;
        if !c0.is_finite() {
            let k0 = Interval::exact(self.coeffs[0]) + x;
            self.coeffs[0] = 0.0;
            self.rem += k0;
            return self;
        }
        self.coeffs[0] = c0;
        self.rem += Interval::sym(up(U * c0.abs()));
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_and_constant_are_exact() {
        let d = Interval::new(0.25, 0.75);
        let t = TaylorModel::time(d);
        assert_eq!(t.remainder(), Interval::ZERO);
        assert_eq!(t.coefficients(), [0.5, 1.0, 0.0, 0.0]);
        let b = t.bound();
        assert!(b.contains(0.25) && b.contains(0.75) && b.width() < 0.5 + 1e-12);
    }

    #[test]
    fn cubic_bound_finds_interior_extrema() {
        // (t − 0.5)³ − 0.1 (t − 0.5) on [0, 1]: extrema at ±sqrt(1/30)
        let f =
            TaylorModel::from_parts([0.0, -0.1, 0.0, 1.0], Interval::ZERO, Interval::UNIT).unwrap();
        let b = f.bound();
        let s = (1.0f64 / 30.0).sqrt();
        let ext = s * s * s - 0.1 * s;
        assert!(b.contains(ext) && b.contains(-ext) && b.contains(0.125 - 0.05));
        assert!(b.hi() <= 0.075 + 1e-12 && b.lo() >= -0.075 - 1e-12);
    }

    #[test]
    fn product_remainder_holds_high_terms() {
        let d = Interval::UNIT;
        let t = TaylorModel::time(d);
        let t6 = t * t * t * t * t * t;
        for i in 0..=100 {
            let x = f64::from(i) / 100.0;
            assert!(t6.eval(x).contains(x.powi(6)), "t^6 at {x}");
        }
        assert!(t6.bound().contains(1.0) && t6.bound().contains(0.0));
    }

    #[test]
    fn restrict_rejects_outside() {
        let f = TaylorModel::time(Interval::UNIT);
        assert!(matches!(
            f.restrict(Interval::new(0.5, 1.5)),
            Err(TaylorError::NotASubdomain { .. })
        ));
    }

    #[test]
    fn mismatched_domains_give_the_unbounded_model() {
        let f = TaylorModel::time(Interval::UNIT);
        let g = TaylorModel::time(Interval::new(0.0, 0.5));
        for h in [f + g, f - g, f * g] {
            assert_eq!(h.bound(), Interval::ENTIRE);
            assert_eq!(h.domain(), Interval::UNIT);
        }
        assert!(f.try_mul(g).is_err() && f.try_sub(g).is_err());
    }

    #[test]
    fn point_domain_drops_overflowing_high_coefficients() {
        let d = Interval::ZERO;
        let f = TaylorModel::sin_affine(1e300, 0.5, d);
        assert_eq!(f.radius, 0.0);
        let b = (f * f).bound();
        let exact = Interval::point(0.5).sin().sqr();
        assert!(b.overlaps(&exact) && b.width() < 1e-12, "{b:?}");
    }

    #[test]
    fn inverse_binade_brings_magnitudes_near_one() {
        for m in [
            1e-310,
            f64::MIN_POSITIVE,
            1e-120,
            3.0,
            1e120,
            1e300,
            f64::MAX,
        ] {
            let x = m * inverse_binade(m);
            assert!((2f64.powi(-51)..4.0).contains(&x), "{m:e} -> {x:e}");
        }
    }
}
