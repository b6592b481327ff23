//! One trait for "an enclosure of a scalar function of time", implemented by [`Interval`]
//! and [`TaylorModel`], so kinematics is written once and the Taylor-vs-interval comparison
//! of CATCH (Sec. 5.2, Fig. 5) is one type parameter.

use std::fmt::Debug;
use std::ops::{Add, Mul, Neg, Sub};

use crate::{Interval, TaylorError, TaylorModel};

/// An arithmetic whose values enclose real functions of time `t` over a domain.
///
/// For every value `e` built through these operations from functions `f`, and every `t` in
/// the domain, `f(t) ∈ e.eval(t) ⊆ e.bound()` holds in floating point (outward rounding).
///
/// # Example
/// ```
/// use ccd_taylor::{Enclosure, Interval, TaylorModel};
///
/// // x(t) = cos(t) · (1 + t), written once for both arithmetics
/// fn x<E: Enclosure>(dom: Interval) -> E {
///     E::cos_affine(1.0, 0.0, dom) * (E::constant(1.0, dom) + E::time(dom))
/// }
/// let dom = Interval::UNIT;
/// let ti = x::<Interval>(dom).bound();
/// let tm = x::<TaylorModel>(dom).bound();
/// assert!(tm.width() < ti.width());
/// assert!(tm.contains(1.0) && tm.contains(1.0f64.cos() * 2.0));
/// ```
pub trait Enclosure:
    Copy
    + Debug
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Neg<Output = Self>
    + Mul<f64, Output = Self>
    + Add<f64, Output = Self>
{
    /// The constant function `c`.
    fn constant(c: f64, domain: Interval) -> Self;
    /// The identity `t ↦ t`.
    fn time(domain: Interval) -> Self;
    /// `c0 + c1 t`.
    fn affine(c0: f64, c1: f64, domain: Interval) -> Self;
    /// `sin(ω t + φ)`.
    fn sin_affine(omega: f64, phi: f64, domain: Interval) -> Self;
    /// `cos(ω t + φ)`.
    fn cos_affine(omega: f64, phi: f64, domain: Interval) -> Self;
    /// `(cos(ω t + φ), sin(ω t + φ))`, the same as [`Enclosure::cos_affine`] and
    /// [`Enclosure::sin_affine`] (Taylor models share the work).
    #[inline]
    fn cos_sin_affine(omega: f64, phi: f64, domain: Interval) -> (Self, Self) {
        (
            Self::cos_affine(omega, phi, domain),
            Self::sin_affine(omega, phi, domain),
        )
    }
    /// Multiplication by an uncertain constant.
    #[must_use]
    fn mul_interval(self, k: Interval) -> Self;
    /// Addition of an uncertain constant.
    #[must_use]
    fn add_interval(self, k: Interval) -> Self;
    /// An interval holding the function over the whole domain.
    fn bound(&self) -> Interval;
    /// An interval holding the function over the whole domain, possibly wider than
    /// [`Enclosure::bound`] but cheaper (no search for interior extrema): for tests that
    /// only need a sign. The default is [`Enclosure::bound`].
    #[inline]
    fn bound_cheap(&self) -> Interval {
        self.bound()
    }
    /// `a₀ b₀ + a₁ b₁ + a₂ b₂ (+ c)`: a row of a matrix product. The default computes
    /// the products and sums one by one, left to right; Taylor models fuse them (one
    /// rounding bound and one truncation for the whole sum), intervals round the sum
    /// outward once.
    #[inline]
    #[must_use]
    fn dot3(a: [&Self; 3], b: [&Self; 3], c: Option<&Self>) -> Self {
        let s = *a[0] * *b[0] + *a[1] * *b[1] + *a[2] * *b[2];
        match c {
            Some(c) => s + *c,
            None => s,
        }
    }
    /// `a₀ b₀ + a₁ b₁`: an entry of a product with a plane rotation. The default computes
    /// the products and the sum one by one; Taylor models fuse them as [`Enclosure::dot3`].
    #[inline]
    #[must_use]
    fn dot2(a: [&Self; 2], b: [&Self; 2]) -> Self {
        *a[0] * *b[0] + *a[1] * *b[1]
    }
    /// [`Enclosure::dot2`] when `a₀` and `a₁` enclose functions with values in `[−1, 1]`
    /// (a cosine and a sine, as built by [`Enclosure::cos_affine`] and
    /// [`Enclosure::sin_affine`]): Taylor models use it to bound the remainder products
    /// (their polynomial parts lie in `[−1, 1]` minus their remainders, often much less
    /// than their cheap ranges). Only valid under that premise. The default is
    /// [`Enclosure::dot2`].
    #[inline]
    #[must_use]
    fn dot2_unit(a: [&Self; 2], b: [&Self; 2]) -> Self {
        Self::dot2(a, b)
    }
    /// `f a + g b + c` for uncertain constants `a`, `b`, `c` (a rotation entry
    /// `cos·A + sin·B + C` of a constant-velocity motion). The default is
    /// `f.mul_interval(a) + g.mul_interval(b).add_interval(c)`; Taylor models and
    /// intervals fuse it.
    #[inline]
    #[must_use]
    fn lin2_interval(f: &Self, a: Interval, g: &Self, b: Interval, c: Interval) -> Self {
        f.mul_interval(a) + g.mul_interval(b).add_interval(c)
    }
    /// `f a + g b + c` for uncertain constants given as round-to-nearest values with one
    /// radius: `a`, `b`, `c` each anywhere within `rad` of the value given (the output of
    /// [`crate::ConstantVelocity::abc_nearest`]). The default is
    /// [`Enclosure::lin2_interval`] on the intervals `[v − rad, v + rad]`; intervals fuse
    /// it with the scalar products.
    #[inline]
    #[must_use]
    fn lin2_point(f: &Self, a: f64, g: &Self, b: f64, c: f64, rad: f64) -> Self {
        let iv = |v: f64| Interval::new(v - rad, v + rad);
        Self::lin2_interval(f, iv(a), g, iv(b), iv(c))
    }
    /// `a₀ x₀ + a₁ x₁ + a₂ x₂ (+ c)` for constants `x`: a row of a matrix times a point.
    /// The default computes the products and sums one by one, left to right; Taylor
    /// models and intervals fuse them.
    #[inline]
    #[must_use]
    fn dot3_const(a: [&Self; 3], x: [f64; 3], c: Option<&Self>) -> Self {
        let s = *a[0] * x[0] + *a[1] * x[1] + *a[2] * x[2];
        match c {
            Some(c) => s + *c,
            None => s,
        }
    }
    /// An interval holding the function at time `t` of the domain.
    fn eval(&self, t: f64) -> Interval;
    /// The enclosure over a sub-domain (possibly tighter).
    ///
    /// # Errors
    /// [`TaylorError::NotASubdomain`] when `sub` is not inside the domain (Taylor models
    /// only; an interval has no domain and is returned unchanged).
    fn restrict(&self, sub: Interval) -> Result<Self, TaylorError>;
    /// The value when the enclosure is exactly one constant (a point interval, a Taylor
    /// model with only a constant term and a zero remainder), else `None`; lets products
    /// with constant factors take the cheaper scalar path. The default is `None`.
    #[inline]
    fn as_constant(&self) -> Option<f64> {
        None
    }
    /// Short name for reports ("interval", "taylor").
    const NAME: &'static str;
}

impl Enclosure for Interval {
    const NAME: &'static str = "interval";

    #[inline]
    fn constant(c: f64, _domain: Interval) -> Self {
        Interval::point(c)
    }
    #[inline]
    fn time(domain: Interval) -> Self {
        domain
    }
    #[inline]
    fn affine(c0: f64, c1: f64, domain: Interval) -> Self {
        domain * c1 + c0
    }
    #[inline]
    fn sin_affine(omega: f64, phi: f64, domain: Interval) -> Self {
        (domain * omega + phi).sin()
    }
    #[inline]
    fn cos_affine(omega: f64, phi: f64, domain: Interval) -> Self {
        (domain * omega + phi).cos()
    }
    #[inline]
    fn mul_interval(self, k: Interval) -> Self {
        self * k
    }
    #[inline]
    fn add_interval(self, k: Interval) -> Self {
        self + k
    }
    #[inline]
    fn bound(&self) -> Interval {
        *self
    }
    #[inline]
    fn eval(&self, _t: f64) -> Interval {
        *self
    }
    #[inline]
    fn restrict(&self, _sub: Interval) -> Result<Self, TaylorError> {
        Ok(*self)
    }
    #[inline]
    fn as_constant(&self) -> Option<f64> {
        (self.lo() == self.hi() && self.lo().is_finite()).then_some(self.lo())
    }
    #[inline]
    fn dot3(a: [&Self; 3], b: [&Self; 3], c: Option<&Self>) -> Self {
        Interval::fused_dot3(a, b, c)
    }
    #[inline]
    fn lin2_interval(f: &Self, a: Interval, g: &Self, b: Interval, c: Interval) -> Self {
        Interval::fused_lin2(*f, a, *g, b, c)
    }
    #[inline]
    fn lin2_point(f: &Self, a: f64, g: &Self, b: f64, c: f64, rad: f64) -> Self {
        Interval::fused_lin2_point(*f, a, *g, b, c, rad)
    }
    #[inline]
    fn dot3_const(a: [&Self; 3], x: [f64; 3], c: Option<&Self>) -> Self {
        Interval::fused_dot3_const(a, x, c)
    }
}

impl Enclosure for TaylorModel {
    const NAME: &'static str = "taylor";

    #[inline]
    fn constant(c: f64, domain: Interval) -> Self {
        TaylorModel::constant(c, domain)
    }
    #[inline]
    fn time(domain: Interval) -> Self {
        TaylorModel::time(domain)
    }
    #[inline]
    fn affine(c0: f64, c1: f64, domain: Interval) -> Self {
        TaylorModel::affine(c0, c1, domain)
    }
    #[inline]
    fn sin_affine(omega: f64, phi: f64, domain: Interval) -> Self {
        TaylorModel::sin_affine(omega, phi, domain)
    }
    #[inline]
    fn cos_affine(omega: f64, phi: f64, domain: Interval) -> Self {
        TaylorModel::cos_affine(omega, phi, domain)
    }
    #[inline]
    fn cos_sin_affine(omega: f64, phi: f64, domain: Interval) -> (Self, Self) {
        TaylorModel::cos_sin_affine(omega, phi, domain)
    }
    #[inline]
    fn mul_interval(self, k: Interval) -> Self {
        TaylorModel::mul_interval(self, k)
    }
    #[inline]
    fn add_interval(self, k: Interval) -> Self {
        TaylorModel::add_interval(self, k)
    }
    #[inline]
    fn bound(&self) -> Interval {
        TaylorModel::bound(self)
    }
    #[inline]
    fn bound_cheap(&self) -> Interval {
        self.poly_range_cheap() + self.remainder()
    }
    #[inline]
    fn dot3(a: [&Self; 3], b: [&Self; 3], c: Option<&Self>) -> Self {
        TaylorModel::fused_dot3(a, b, c)
    }
    #[inline]
    fn dot2(a: [&Self; 2], b: [&Self; 2]) -> Self {
        TaylorModel::fused_dot(a, b, None, None)
    }
    #[inline]
    fn dot2_unit(a: [&Self; 2], b: [&Self; 2]) -> Self {
        let r = [a[0].unit_poly_range(), a[1].unit_poly_range()];
        TaylorModel::fused_dot(a, b, None, Some(r))
    }
    #[inline]
    fn lin2_interval(f: &Self, a: Interval, g: &Self, b: Interval, c: Interval) -> Self {
        TaylorModel::fused_lin2(f, a, g, b, c)
    }
    #[inline]
    fn dot3_const(a: [&Self; 3], x: [f64; 3], c: Option<&Self>) -> Self {
        TaylorModel::fused_dot3_const(a, x, c)
    }
    #[inline]
    fn eval(&self, t: f64) -> Interval {
        TaylorModel::eval(self, t)
    }
    #[inline]
    fn restrict(&self, sub: Interval) -> Result<Self, TaylorError> {
        TaylorModel::restrict(self, sub)
    }
    #[inline]
    fn as_constant(&self) -> Option<f64> {
        let c = self.coefficients();
        (c[1] == 0.0 && c[2] == 0.0 && c[3] == 0.0 && self.remainder() == Interval::ZERO)
            .then_some(c[0])
    }
}
