//! Taylor models of `sin(ω t + φ)` and `cos(ω t + φ)` with rigorous Lagrange remainders
//! (CATCH, Sec. 5.1).

use super::{TaylorModel, powers, split};
use crate::Interval;
use crate::interval::up;

impl TaylorModel {
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
}
