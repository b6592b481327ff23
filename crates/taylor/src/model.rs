//! Order-3 Taylor models of scalar functions of time.
//!
//! A [`TaylorModel`] over the time domain `[a, b]` is a cubic polynomial in `s = t − m`
//! (`m` the midpoint of the domain) with f64 coefficients, plus an interval remainder `R`,
//! such that for every `t` in `[a, b]` the modelled function satisfies
//! `f(t) ∈ c0 + c1 s + c2 s² + c3 s³ + R`, the polynomial evaluated exactly (CATCH, Sec. 5.1).
//!
//! Every floating-point rounding in computing coefficients is bounded and folded into `R`,
//! together with the degree 4–6 terms of products, so the enclosure holds in floating point.

use std::ops::{Add, Mul, Neg, Sub};

use crate::interval::{down, up};
use crate::{Interval, TaylorError};

/// Relative rounding bound of one operation in round-to-nearest, rounded up (> 2^-53).
const U: f64 = 1.2e-16;
/// Relative bound of the rounding of a sum of at most four products (> γ₅ with margin).
const GAMMA: f64 = 1.0e-15;
/// Absolute allowance for underflow in products.
const TINY: f64 = 1.0e-300;

/// An order-3 Taylor model: a cubic in `t − m` plus an interval remainder, enclosing a
/// scalar function of time over a domain `[a, b]` (CATCH, Sec. 5.1).
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
pub struct TaylorModel {
    coeffs: [f64; 4],
    rem: Interval,
    domain: Interval,
    mid: f64,
    /// `max |t − mid|` over the domain, rounded up.
    radius: f64,
}

/// `[1, h, h², h³]`, each rounded up (`h >= 0`).
#[inline]
fn powers(h: f64) -> [f64; 4] {
    let h2 = up(h * h);
    [1.0, h, h2, up(h2 * h)]
}

/// The interval `S^k` for `S = [−h, h]`.
#[inline]
fn s_pow(hp: &[f64; 4], k: usize) -> Interval {
    if k.is_multiple_of(2) && k > 0 {
        Interval::new(0.0, hp[k])
    } else {
        Interval::symmetric(hp[k])
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
        Interval::symmetric(up(r * (1.0 + 2.0e-15)))
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
        let slack = up(2.0e-15 * self.mag + TINY);
        Interval::new(down(self.lo - slack), up(self.hi + slack))
    }
}

/// Interval Horner evaluation of the cubic at `x`.
#[inline]
fn horner(c: &[f64; 4], x: Interval) -> Interval {
    ((Interval::point(c[3]) * x + c[2]) * x + c[1]) * x + c[0]
}

/// Splits interval coefficients into f64 midpoints and a remainder over `S = [−h, h]`.
fn split(k: [Interval; 4], hp: &[f64; 4]) -> ([f64; 4], Interval) {
    let mut c = [0.0; 4];
    let mut rem = Interval::ZERO;
    for i in 0..4 {
        c[i] = k[i].midpoint();
        let resid = k[i] - c[i];
        if resid != Interval::ZERO {
            rem += resid * s_pow(hp, i);
        }
    }
    (c, rem)
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
    fn with_domain(coeffs: [f64; 4], rem: Interval, domain: Interval) -> Self {
        debug_assert!(
            domain.is_finite(),
            "TaylorModel domain {domain} must be finite"
        );
        let mid = domain.midpoint();
        let radius = up(mid - domain.lo()).max(up(domain.hi() - mid));
        Self {
            coeffs,
            rem,
            domain,
            mid,
            radius,
        }
    }

    /// Checks that `domain` is usable as a time domain.
    ///
    /// # Errors
    /// [`TaylorError::InvalidDomain`] for a non-finite domain.
    pub fn check_domain(domain: Interval) -> Result<Interval, TaylorError> {
        if domain.is_finite() {
            Ok(domain)
        } else {
            Err(TaylorError::InvalidDomain(domain))
        }
    }

    /// A model from its parts: coefficients of `(t − m)^k`, remainder, domain.
    ///
    /// # Errors
    /// [`TaylorError::InvalidDomain`] when the domain is not finite.
    pub fn from_parts(
        coeffs: [f64; 4],
        remainder: Interval,
        domain: Interval,
    ) -> Result<Self, TaylorError> {
        Ok(Self::with_domain(
            coeffs,
            remainder,
            Self::check_domain(domain)?,
        ))
    }

    /// The constant function `c`.
    ///
    /// Precondition (all constructors): `domain` is finite (checked in debug builds; see
    /// [`TaylorModel::check_domain`]).
    #[must_use]
    pub fn constant(c: f64, domain: Interval) -> Self {
        Self::with_domain([c, 0.0, 0.0, 0.0], Interval::ZERO, domain)
    }

    /// The identity `t ↦ t` (exact: `m + (t − m)`).
    #[must_use]
    pub fn time(domain: Interval) -> Self {
        let mid = domain.midpoint();
        Self::with_domain([mid, 1.0, 0.0, 0.0], Interval::ZERO, domain)
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
        let m = Self::time(domain);
        let k0 = Interval::point(c0) + Interval::point(c1) * m.mid;
        let (coeffs, rem) = split(
            [k0, Interval::point(c1), Interval::ZERO, Interval::ZERO],
            &powers(m.radius),
        );
        Self { coeffs, rem, ..m }
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

    fn trig(omega: f64, phi: f64, domain: Interval, cosine: bool) -> Self {
        let base = Self::constant(0.0, domain);
        let hp = powers(base.radius);
        let w = Interval::point(omega);
        let theta = w * base.mid + phi;
        let (st, ct) = (theta.sin(), theta.cos());
        let sixth = Interval::ONE / Interval::point(6.0);
        let w2 = w.sqr();
        let w3 = w2 * w;
        // derivatives of sin: sin, cos, −sin, −cos; of cos: cos, −sin, −cos, sin
        let (d0, d1) = if cosine { (ct, -st) } else { (st, ct) };
        let k = [d0, w * d1, -(w2 * d0) * 0.5, -(w3 * d1) * sixth];
        let (coeffs, mut rem) = split(k, &hp);
        // Lagrange remainder: f⁽⁴⁾(ξ)(t − m)⁴ / 24 with f⁽⁴⁾ = ω⁴ f(ξ).
        let arg = theta + w * Interval::symmetric(base.radius);
        let f4 = if cosine { arg.cos() } else { arg.sin() };
        let s4 = Interval::new(0.0, up(hp[2] * hp[2]));
        let inv24 = Interval::ONE / Interval::point(24.0);
        rem += w2.sqr() * f4 * s4 * inv24;
        Self {
            coeffs,
            rem,
            ..base
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
    fn poly_range_cheap(&self) -> Interval {
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
        let h = self.radius;
        let c = &self.coeffs;
        let s = Interval::symmetric(h);
        let mut r = horner(c, Interval::point(-h)).hull(horner(c, Interval::point(h)));
        let a = Interval::point(c[3]) * 3.0;
        let b = Interval::point(c[2]) * 2.0;
        for x in quadratic_roots(a, b, Interval::point(c[1]), c[3] == 0.0, c[2] == 0.0)
            .into_iter()
            .flatten()
        {
            if let Some(x) = x.intersection(s) {
                r = r.hull(horner(c, x));
            }
        }
        r + self.rem
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
        let base = Self::with_domain([0.0; 4], self.rem, sub);
        let d = Interval::point(base.mid) - self.mid;
        let (d2, d3) = (d.sqr(), d.powi(3));
        let c = self.coeffs.map(Interval::point);
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
    #[must_use]
    pub fn add_interval(self, k: Interval) -> Self {
        let km = k.midpoint();
        let mut out = self + km;
        out.rem += k - km;
        out
    }

    #[inline]
    fn check_same_domain(&self, other: &Self) {
        assert!(
            self.domain == other.domain,
            "TaylorModel: {}",
            TaylorError::DomainMismatch(self.domain, other.domain)
        );
    }

    fn add_impl(self, rhs: Self, sign: f64) -> Self {
        self.check_same_domain(&rhs);
        let mut c = [0.0; 4];
        let mut err = [0.0; 4];
        for k in 0..4 {
            c[k] = self.coeffs[k] + sign * rhs.coeffs[k];
            err[k] = U * c[k].abs();
        }
        let rhs_rem = if sign > 0.0 { rhs.rem } else { -rhs.rem };
        let rem = self.rem + rhs_rem + fold_errors(&err, &powers(self.radius));
        Self {
            coeffs: c,
            rem,
            ..self
        }
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
    /// # Panics
    /// When the domains differ (a programming error: models of one query share a domain).
    #[inline]
    fn add(self, rhs: Self) -> Self {
        self.add_impl(rhs, 1.0)
    }
}

impl Sub for TaylorModel {
    type Output = Self;
    /// Difference of two models over the same domain.
    ///
    /// # Panics
    /// When the domains differ.
    #[inline]
    fn sub(self, rhs: Self) -> Self {
        self.add_impl(rhs, -1.0)
    }
}

impl Mul for TaylorModel {
    type Output = Self;
    /// Product of two models over the same domain: the degree 4–6 terms are bounded over
    /// the domain and folded into the remainder, with the cross terms `P_f R_g + P_g R_f +
    /// R_f R_g` and every rounding error.
    ///
    /// # Panics
    /// When the domains differ.
    fn mul(self, rhs: Self) -> Self {
        self.check_same_domain(&rhs);
        let (a, b) = (&self.coeffs, &rhs.coeffs);
        let mut p = [0.0f64; 7];
        let mut abs = [0.0f64; 7];
        for i in 0..4 {
            for j in 0..4 {
                let x = a[i] * b[j];
                p[i + j] += x;
                abs[i + j] += x.abs();
            }
        }
        let hp = powers(self.radius);
        let mut err = [0.0; 4];
        for k in 0..4 {
            err[k] = if abs[k] == 0.0 {
                0.0
            } else {
                up(GAMMA * abs[k] + TINY)
            };
        }
        let mut rem = fold_errors(&err, &hp);
        // degree 4..=6 terms over S = [−h, h], with their coefficients' rounding errors
        let h4 = up(hp[2] * hp[2]);
        let high_pow = [h4, up(h4 * self.radius), up(h4 * hp[2])];
        let mut high = LazySum::new(0.0, 0.0);
        for k in 4..7 {
            if abs[k] == 0.0 {
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
    #[inline]
    fn add(mut self, x: f64) -> Self {
        let c0 = self.coeffs[0] + x;
        self.coeffs[0] = c0;
        self.rem += Interval::symmetric(up(U * c0.abs()));
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
    #[should_panic(expected = "different domains")]
    fn mismatched_domains_panic() {
        let _ = TaylorModel::time(Interval::UNIT) + TaylorModel::time(Interval::new(0.0, 0.5));
    }
}
