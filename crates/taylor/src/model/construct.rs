//! Constructors of [`TaylorModel`]s: from parts, constants, the identity `t ↦ t` and affine
//! functions, with the domain checks they share.

use super::{TaylorModel, powers, split};
use crate::{Interval, TaylorError};

impl TaylorModel {
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
}
