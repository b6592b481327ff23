//! Enclosing the range of a [`TaylorModel`]: the cheap polynomial range, the exact range of
//! the cubic ([`TaylorModel::bound`]), point evaluation and re-expansion on a sub-domain.

use super::{LazySum, TINY, TaylorModel, horner, inverse_binade, powers, quadratic_roots, split};
use crate::interval::{down, up};
use crate::{Interval, TaylorError};

impl TaylorModel {
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

    /// The range of the polynomial part of a model of a function with values in
    /// `[−1, 1]` (a sine or cosine): its cheap range cut to `[−1, 1] − R` (`P = f − R`).
    /// Only valid under that premise.
    pub(crate) fn unit_poly_range(&self) -> Interval {
        let cheap = self.poly_range_cheap();
        let premise = Interval::new(-1.0, 1.0) - self.rem;
        cheap.intersection(premise).unwrap_or(cheap)
    }
}
