//! Arithmetic of [`TaylorModel`]s: `+`, `−`, `×` of models and with scalars or intervals,
//! the checked forms that report mismatched domains, and the interval-arithmetic slow paths
//! for coefficients that would overflow.

use std::ops::{Add, Mul, Neg, Sub};

use super::{GAMMA, LazySum, TINY, TaylorModel, U, fold_errors, powers, s_pow_high, split};
use crate::interval::up;
use crate::{Interval, TaylorError};

impl TaylorModel {
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
