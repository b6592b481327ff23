//! Closed intervals of reals with outward rounding.
//!
//! Every operation computes its endpoints in round-to-nearest and then moves them at least
//! one ulp outward (by `|x| 2⁻⁵² + 2⁻¹⁰⁷⁴`, float-only; the same guarantee as
//! `f64::next_down` / `f64::next_up` at a lower cost). Since a correctly rounded result is
//! within half an ulp of the exact value, the widened interval contains the exact result of
//! the operation on every pair of points of its operands. `sin` and `cos` are not correctly rounded in libm (they are within one
//! ulp on glibc), so they are widened twice.
//!
//! Overflow is rounded outward too: an endpoint candidate that overflows to `+∞` is a lower
//! bound `f64::MAX` (the exact value is at least that) and one that overflows to `−∞` an
//! upper bound `−f64::MAX`; an undefined candidate (NaN, from `∞ − ∞` or a NaN scalar
//! operand) becomes the unbounded end. So no operation yields a NaN endpoint or an interval
//! without a real in it, over the whole f64 range.

use std::fmt;
use std::ops::{Add, AddAssign, Div, Mul, MulAssign, Neg, Sub, SubAssign};

use crate::TaylorError;

/// Smallest positive subnormal, 2⁻¹⁰⁷⁴.
const ETA: f64 = f64::from_bits(1);

/// A lower bound of the exact value whose round-to-nearest result is `x`: at least one ulp
/// below a finite `x`; `f64::MAX` for `+∞` (an overflow: the exact value is at least
/// `f64::MAX`); `−∞` for `−∞` and for NaN (an undefined candidate bounds nothing).
///
/// `|x| · 2⁻⁵² + 2⁻¹⁰⁷⁴` is at least the spacing of floats around `x` (for normal and
/// subnormal `x`), so subtracting it moves at least one representable step down whatever
/// the rounding of the subtraction. Since a round-to-nearest result is within half a step
/// of the exact value, the result is below the exact value. Float-only (no bit
/// manipulation), which is measurably cheaper than `f64::next_down` in the Taylor kernels;
/// the non-finite cases cost nothing on the finite path.
#[inline]
pub(crate) fn down(x: f64) -> f64 {
    // NaN exactly when `x` is +∞ or NaN (−∞ stays −∞): one rarely taken branch
    let y = x - (x.abs() * f64::EPSILON + ETA);
    if y.is_nan() { nan_or_inf_down(x) } else { y }
}

#[cold]
fn nan_or_inf_down(x: f64) -> f64 {
    if x > 0.0 { f64::MAX } else { f64::NEG_INFINITY }
}

/// An upper bound of the exact value whose round-to-nearest result is `x` (see [`down`]):
/// at least one ulp above a finite `x`; `−f64::MAX` for `−∞`; `+∞` for `+∞` and NaN.
#[inline]
pub(crate) fn up(x: f64) -> f64 {
    // NaN exactly when `x` is −∞ or NaN (+∞ stays +∞)
    let y = x + (x.abs() * f64::EPSILON + ETA);
    if y.is_nan() { nan_or_inf_up(x) } else { y }
}

#[cold]
fn nan_or_inf_up(x: f64) -> f64 {
    if x < 0.0 { -f64::MAX } else { f64::INFINITY }
}

/// Product with the convention `0 × ∞ = 0`, as interval endpoint formulas need.
#[inline]
fn mul0(a: f64, b: f64) -> f64 {
    if a == 0.0 || b == 0.0 { 0.0 } else { a * b }
}

/// A closed interval `[lo, hi]` of reals, possibly unbounded (`±∞` endpoints).
///
/// Arithmetic is outward rounded, so the result of an operation contains the exact result
/// for every choice of points in the operands: the enclosure property survives floating
/// point, over the whole f64 range.
///
/// # Invariant
/// Every `Interval` is a non-empty set of reals: `lo <= hi`, neither is NaN, `lo < +∞` and
/// `hi > −∞`. An infinite endpoint means "unbounded on that side" (`[−∞, 5]` is every real
/// up to 5); `[+∞, +∞]` and `[−∞, −∞]` do not exist. Every constructor and operation keeps
/// this, whatever its f64 input (NaN and infinities included):
/// - a result whose exact value is finite but whose rounded endpoint overflows keeps a
///   finite bound on the other side: `[MAX, MAX] + [MAX, MAX]` is `[MAX, +∞]`;
/// - a non-finite scalar `x` stands for the set [`Interval::point`] gives it: `+∞` for
///   `[MAX, +∞]` (every real too large to represent), `−∞` for `[−∞, −MAX]`, NaN for the
///   whole line (an unknown real).
///
/// # Example
/// ```
/// use ccd_taylor::Interval;
///
/// let x = Interval::new(1.0, 2.0);
/// let y = Interval::new(-1.0, 3.0);
/// let p = x * y;
/// assert!(p.contains(-2.0) && p.contains(6.0));
/// assert!((x - x).contains(0.0)); // the dependency problem: [-1, 1], not [0, 0]
/// assert!(Interval::new(0.0, 10.0).sin().contains(1.0));
/// ```
#[derive(Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(try_from = "RawInterval"))]
pub struct Interval {
    lo: f64,
    hi: f64,
}

/// The serialized form, checked by [`Interval::try_new`] when deserialized.
#[cfg(feature = "serde")]
#[derive(serde::Deserialize)]
struct RawInterval {
    lo: f64,
    hi: f64,
}

#[cfg(feature = "serde")]
impl TryFrom<RawInterval> for Interval {
    type Error = TaylorError;
    fn try_from(r: RawInterval) -> Result<Self, TaylorError> {
        Self::try_new(r.lo, r.hi).ok_or(TaylorError::InvalidInterval { lo: r.lo, hi: r.hi })
    }
}

impl fmt::Debug for Interval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{:e}, {:e}]", self.lo, self.hi)
    }
}

impl fmt::Display for Interval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}, {}]", self.lo, self.hi)
    }
}

impl Default for Interval {
    fn default() -> Self {
        Self::ZERO
    }
}

impl Interval {
    /// `[0, 0]`.
    pub const ZERO: Self = Self { lo: 0.0, hi: 0.0 };
    /// `[1, 1]`.
    pub const ONE: Self = Self { lo: 1.0, hi: 1.0 };
    /// `[0, 1]`, the normalized time step.
    pub const UNIT: Self = Self { lo: 0.0, hi: 1.0 };
    /// The whole real line `[−∞, +∞]`.
    pub const ENTIRE: Self = Self {
        lo: f64::NEG_INFINITY,
        hi: f64::INFINITY,
    };
    /// An enclosure of π (`[π↓, π↑]`).
    pub const PI: Self = Self {
        lo: std::f64::consts::PI,
        hi: 3.141_592_653_589_793_6,
    };

    /// The interval `[lo, hi]` for `lo <= hi`; total: for any two f64 it is the smallest
    /// interval holding both ends, in either order (the hull of [`Interval::point`]`(lo)`
    /// and `point(hi)`, so a NaN end gives the whole line and an infinite end an unbounded
    /// side). Never panics; use [`Interval::try_new`] to reject reversed or NaN ends.
    ///
    /// ```
    /// use ccd_taylor::Interval;
    /// assert_eq!(Interval::new(2.0, 1.0), Interval::new(1.0, 2.0));
    /// assert_eq!(Interval::new(f64::NAN, 1.0), Interval::ENTIRE);
    /// let big = Interval::new(f64::INFINITY, f64::INFINITY);
    /// assert_eq!((big.lo(), big.hi()), (f64::MAX, f64::INFINITY));
    /// ```
    #[inline]
    #[must_use]
    pub fn new(lo: f64, hi: f64) -> Self {
        if lo.is_nan() || hi.is_nan() {
            return Self::ENTIRE;
        }
        Self {
            lo: lo.min(hi).min(f64::MAX),
            hi: hi.max(lo).max(-f64::MAX),
        }
    }

    /// The interval `[lo, hi]`, or `None` when `lo > hi`, either is NaN, `lo = +∞` or
    /// `hi = −∞` (no real in between).
    ///
    /// ```
    /// use ccd_taylor::Interval;
    /// assert!(Interval::try_new(2.0, 1.0).is_none());
    /// assert!(Interval::try_new(f64::NAN, 1.0).is_none());
    /// assert!(Interval::try_new(f64::INFINITY, f64::INFINITY).is_none());
    /// assert_eq!(Interval::try_new(1.0, 2.0), Some(Interval::new(1.0, 2.0)));
    /// ```
    #[inline]
    #[must_use]
    pub fn try_new(lo: f64, hi: f64) -> Option<Self> {
        (lo <= hi && lo < f64::INFINITY && hi > f64::NEG_INFINITY).then_some(Self { lo, hi })
    }

    /// The degenerate interval `[x, x]` (exact: `x` is representable) for a finite `x`;
    /// `[MAX, +∞]` for `+∞`, `[−∞, −MAX]` for `−∞` and the whole line for NaN.
    ///
    /// ```
    /// use ccd_taylor::Interval;
    /// assert_eq!(Interval::point(0.5), Interval::new(0.5, 0.5));
    /// assert_eq!(Interval::point(f64::NAN), Interval::ENTIRE);
    /// assert_eq!(Interval::point(f64::NEG_INFINITY).hi(), -f64::MAX);
    /// ```
    #[inline]
    #[must_use]
    pub const fn point(x: f64) -> Self {
        if x.is_finite() {
            Self { lo: x, hi: x }
        } else if x.is_nan() {
            Self::ENTIRE
        } else if x > 0.0 {
            Self {
                lo: f64::MAX,
                hi: f64::INFINITY,
            }
        } else {
            Self {
                lo: f64::NEG_INFINITY,
                hi: -f64::MAX,
            }
        }
    }

    /// `[lo, hi]` for ends already known to satisfy the invariant (crate-internal,
    /// unchecked).
    #[inline]
    pub(crate) const fn raw(lo: f64, hi: f64) -> Self {
        Self { lo, hi }
    }

    /// `[x, x]` for a finite `x` (crate-internal, unchecked).
    #[inline]
    pub(crate) const fn exact(x: f64) -> Self {
        Self { lo: x, hi: x }
    }

    /// The smallest interval holding both `a` and `b`, in any order (the same as
    /// [`Interval::new`]).
    #[inline]
    #[must_use]
    pub fn spanning(a: f64, b: f64) -> Self {
        Self::new(a, b)
    }

    /// `[−|r|, |r|]`; the whole line for NaN.
    ///
    /// ```
    /// use ccd_taylor::Interval;
    /// assert_eq!(Interval::symmetric(-2.0), Interval::new(-2.0, 2.0));
    /// ```
    #[inline]
    #[must_use]
    pub fn symmetric(r: f64) -> Self {
        if r.is_nan() {
            Self::ENTIRE
        } else {
            Self::sym(r.abs())
        }
    }

    /// `[−r, r]` for `r >= 0` or `+∞` (crate-internal, unchecked).
    #[inline]
    pub(crate) const fn sym(r: f64) -> Self {
        Self { lo: -r, hi: r }
    }

    /// Lower endpoint.
    #[inline]
    #[must_use]
    pub const fn lo(&self) -> f64 {
        self.lo
    }

    /// Upper endpoint.
    #[inline]
    #[must_use]
    pub const fn hi(&self) -> f64 {
        self.hi
    }

    /// `hi − lo`, rounded up.
    #[inline]
    #[must_use]
    pub fn width(&self) -> f64 {
        up(self.hi - self.lo)
    }

    /// The midpoint (a point inside the interval; 0 for the entire line).
    #[inline]
    #[must_use]
    pub fn midpoint(&self) -> f64 {
        if self.lo == f64::NEG_INFINITY && self.hi == f64::INFINITY {
            0.0
        } else if self.lo == f64::NEG_INFINITY {
            f64::MIN
        } else if self.hi == f64::INFINITY {
            f64::MAX
        } else {
            let m = 0.5 * self.lo + 0.5 * self.hi;
            m.clamp(self.lo, self.hi)
        }
    }

    /// The largest absolute value `max(|lo|, |hi|)` (the magnitude).
    #[inline]
    #[must_use]
    pub fn mag(&self) -> f64 {
        self.lo.abs().max(self.hi.abs())
    }

    /// The smallest absolute value of a point of the interval (the mignitude).
    #[inline]
    #[must_use]
    pub fn mig(&self) -> f64 {
        if self.contains(0.0) {
            0.0
        } else {
            self.lo.abs().min(self.hi.abs())
        }
    }

    /// True when `x` lies in the closed interval.
    #[inline]
    #[must_use]
    pub fn contains(&self, x: f64) -> bool {
        self.lo <= x && x <= self.hi
    }

    /// True when `other` lies inside this interval.
    #[inline]
    #[must_use]
    pub fn contains_interval(&self, other: &Self) -> bool {
        self.lo <= other.lo && other.hi <= self.hi
    }

    /// True when both endpoints are finite.
    #[inline]
    #[must_use]
    pub fn is_finite(&self) -> bool {
        self.lo.is_finite() && self.hi.is_finite()
    }

    /// The smallest interval holding both intervals (their hull).
    #[inline]
    #[must_use]
    pub fn hull(self, other: Self) -> Self {
        Self {
            lo: self.lo.min(other.lo),
            hi: self.hi.max(other.hi),
        }
    }

    /// The common part, or `None` when the intervals are disjoint.
    ///
    /// ```
    /// use ccd_taylor::Interval;
    /// let a = Interval::new(0.0, 2.0);
    /// assert_eq!(a.intersection(Interval::new(1.0, 3.0)), Some(Interval::new(1.0, 2.0)));
    /// assert_eq!(a.intersection(Interval::new(3.0, 4.0)), None);
    /// ```
    #[inline]
    #[must_use]
    pub fn intersection(self, other: Self) -> Option<Self> {
        Self::try_new(self.lo.max(other.lo), self.hi.min(other.hi))
    }

    /// True when the closed intervals share a point.
    #[inline]
    #[must_use]
    pub fn overlaps(&self, other: &Self) -> bool {
        self.lo <= other.hi && other.lo <= self.hi
    }

    /// `x²` for every `x` in the interval (tighter than `self * self`).
    #[must_use]
    pub fn sqr(self) -> Self {
        let a = self.lo * self.lo;
        let b = self.hi * self.hi;
        if self.lo >= 0.0 {
            Self {
                lo: down(a).max(0.0),
                hi: up(b),
            }
        } else if self.hi <= 0.0 {
            Self {
                lo: down(b).max(0.0),
                hi: up(a),
            }
        } else {
            Self {
                lo: 0.0,
                hi: up(a.max(b)),
            }
        }
    }

    /// `x^n` for every `x` in the interval (`n = 0` gives `[1, 1]`).
    #[must_use]
    pub fn powi(self, n: u32) -> Self {
        match n {
            0 => Self::ONE,
            1 => self,
            2 => self.sqr(),
            _ if n.is_multiple_of(2) => self.powi(n / 2).sqr(),
            _ => self.powi(n - 1) * self,
        }
    }

    /// `√x` for every non-negative `x` in the interval (negative points are ignored).
    ///
    /// # Errors
    /// [`TaylorError::NegativeSqrt`] when the interval lies entirely below zero.
    ///
    /// ```
    /// use ccd_taylor::Interval;
    /// let r = Interval::new(-1.0, 4.0).sqrt()?;
    /// assert!(r.contains(0.0) && r.contains(2.0));
    /// assert!(Interval::new(-2.0, -1.0).sqrt().is_err());
    /// # Ok::<(), ccd_taylor::TaylorError>(())
    /// ```
    pub fn sqrt(self) -> Result<Self, TaylorError> {
        if self.hi < 0.0 {
            return Err(TaylorError::NegativeSqrt(self));
        }
        let lo = if self.lo <= 0.0 {
            0.0
        } else {
            down(self.lo.sqrt()).max(0.0)
        };
        Ok(Self {
            lo,
            hi: up(self.hi.sqrt()),
        })
    }

    /// `self / rhs`.
    ///
    /// # Errors
    /// [`TaylorError::DivisionByZero`] when `rhs` contains 0. (The `/` operator instead
    /// returns [`Interval::ENTIRE`] in that case, which is a valid but useless enclosure.)
    pub fn checked_div(self, rhs: Self) -> Result<Self, TaylorError> {
        if rhs.contains(0.0) {
            return Err(TaylorError::DivisionByZero(rhs));
        }
        // An `∞/∞` quotient is NaN; `min`/`max` skip it. That corner never holds an extremum
        // (for a divisor of fixed sign, `x/y` at `x = ±∞` is monotone in `y` the other way),
        // and each pair below has a finite-divisor quotient, since `rhs` is not the whole line.
        let q = [
            self.lo / rhs.lo,
            self.lo / rhs.hi,
            self.hi / rhs.lo,
            self.hi / rhs.hi,
        ];
        let (lo, hi) = min_max(q);
        Ok(Self {
            lo: down(lo),
            hi: up(hi),
        })
    }

    /// `1 / x` (see [`Interval::checked_div`]).
    ///
    /// # Errors
    /// [`TaylorError::DivisionByZero`] when the interval contains 0.
    pub fn recip(self) -> Result<Self, TaylorError> {
        Self::ONE.checked_div(self)
    }

    /// `sin x` for every `x` in the interval: the exact range (endpoints and every interior
    /// extremum at `π/2 + kπ`), widened by two ulps, clamped to `[−1, 1]`.
    ///
    /// Arguments larger than 10^12 in magnitude give `[−1, 1]`.
    ///
    /// ```
    /// use ccd_taylor::Interval;
    /// let s = Interval::new(0.0, 2.0).sin(); // contains the maximum at π/2
    /// assert_eq!(s.hi(), 1.0);
    /// assert!(s.lo() <= 0.0 && s.lo() > -1e-300);
    /// ```
    #[must_use]
    pub fn sin(self) -> Self {
        // maxima at π/2 + 2kπ, minima at -π/2 + 2kπ
        periodic_range(
            self,
            f64::sin,
            std::f64::consts::FRAC_PI_2,
            -std::f64::consts::FRAC_PI_2,
        )
    }

    /// `cos x` for every `x` in the interval (see [`Interval::sin`]).
    ///
    /// ```
    /// use ccd_taylor::Interval;
    /// let c = Interval::new(-0.5, 4.0).cos(); // maximum at 0, minimum at π
    /// assert_eq!((c.lo(), c.hi()), (-1.0, 1.0));
    /// ```
    #[must_use]
    pub fn cos(self) -> Self {
        // maxima at 2kπ, minima at π + 2kπ
        periodic_range(self, f64::cos, 0.0, std::f64::consts::PI)
    }
}

#[inline]
fn min_max(v: [f64; 4]) -> (f64, f64) {
    let lo = v[0].min(v[1]).min(v[2].min(v[3]));
    let hi = v[0].max(v[1]).max(v[2].max(v[3]));
    (lo, hi)
}

/// The exact range `[min, max]` of `a · b` over the two intervals, each end rounded to
/// nearest (a product's rounding is monotone, so the rounded minimum is the minimum of
/// the rounded corner products). A NaN end (from `0 · ∞`) makes the caller fall back.
#[inline]
fn product_range(a: Interval, b: Interval) -> (f64, f64) {
    min_max([a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi])
}

/// `[min, max]` of `a · x` for a scalar `x`, rounded to nearest (see [`product_range`]).
#[inline]
fn scaled_range(a: Interval, x: f64) -> (f64, f64) {
    let (p, q) = (a.lo * x, a.hi * x);
    if x >= 0.0 { (p, q) } else { (q, p) }
}

/// `Σ [lo_k, hi_k]` for four ranges of exact products rounded to nearest (or exact ends),
/// rounded outward once: each end is summed in round-to-nearest, then moved out by a
/// bound of every rounding error. With `u = 2⁻⁵³` and `S = Σ max(|lo_k|, |hi_k|)`, each
/// rounded product is within `u·|p| + 2⁻¹⁰⁷⁵` of the exact one and the pairwise sum (two
/// additions per term) adds at most `γ₂ S ≤ 2.01 u S`: the total is below
/// `3.02 u S + 2 · 2⁻¹⁰⁷⁴`, and `S` itself, summed in floating point, is within `γ₂` of
/// the exact sum; the margin taken is `8 u S + 4 · 2⁻¹⁰⁷⁴` (`4 ε S`), and the final
/// subtraction is rounded outward as every operation. `None` when an end or `S` is not finite (infinite operands, overflow,
/// `0 · ∞`): the caller computes the sum operation by operation.
#[inline]
fn fused_sum(r: [(f64, f64); 4]) -> Option<Interval> {
    let lo = (r[0].0 + r[1].0) + (r[2].0 + r[3].0);
    let hi = (r[0].1 + r[1].1) + (r[2].1 + r[3].1);
    let mag = |(l, h): (f64, f64)| l.abs().max(h.abs());
    let s = (mag(r[0]) + mag(r[1])) + (mag(r[2]) + mag(r[3]));
    let err = s * (4.0 * f64::EPSILON) + 4.0 * ETA;
    let (lo, hi) = (down(lo - err), up(hi + err));
    (lo.is_finite() && hi.is_finite()).then_some(Interval { lo, hi })
}

impl Interval {
    /// `a₀ b₀ + a₁ b₁ + a₂ b₂ (+ c)` rounded outward once instead of after each product
    /// and sum (the same enclosure guarantee, within a few ulps of the same width);
    /// non-finite cases take the operation-by-operation path.
    #[inline]
    pub(crate) fn fused_dot3(a: [&Self; 3], b: [&Self; 3], c: Option<&Self>) -> Self {
        let c0 = c.map_or((0.0, 0.0), |c| (c.lo, c.hi));
        let r = [
            product_range(*a[0], *b[0]),
            product_range(*a[1], *b[1]),
            product_range(*a[2], *b[2]),
            c0,
        ];
        fused_sum(r).unwrap_or_else(|| {
            let s = *a[0] * *b[0] + *a[1] * *b[1] + *a[2] * *b[2];
            c.map_or(s, |c| s + *c)
        })
    }

    /// `f a + g b + c` rounded outward once (see [`Interval::fused_dot3`]).
    #[inline]
    pub(crate) fn fused_lin2(f: Self, a: Self, g: Self, b: Self, c: Self) -> Self {
        let r = [
            product_range(f, a),
            product_range(g, b),
            (c.lo, c.hi),
            (0.0, 0.0),
        ];
        fused_sum(r).unwrap_or_else(|| f * a + (g * b + c))
    }

    /// `f a + g b + c` for `a`, `b`, `c` anywhere within `rad` of the scalars given,
    /// rounded outward once (see [`Interval::fused_dot3`]): `f a + g b + c` over those
    /// ranges lies within `rad (|f| + |g| + 1)` of `f a₀ + g b₀ + c₀` over `f` and `g`
    /// (`|f|`, `|g|` the magnitudes), so that spread, rounded up by a relative `4 ε`
    /// (three roundings of positive terms), is the fourth range of the fused sum.
    #[inline]
    pub(crate) fn fused_lin2_point(f: Self, a: f64, g: Self, b: f64, c: f64, rad: f64) -> Self {
        let spread = rad * (f.mag() + g.mag() + 1.0) * (1.0 + 4.0 * f64::EPSILON);
        let r = [
            scaled_range(f, a),
            scaled_range(g, b),
            (c, c),
            (-spread, spread),
        ];
        fused_sum(r).unwrap_or_else(|| {
            let iv = |v: f64| Interval::new(v - rad, v + rad);
            Self::fused_lin2(f, iv(a), g, iv(b), iv(c))
        })
    }

    /// `a₀ x₀ + a₁ x₁ + a₂ x₂ (+ c)` for scalars `x`, rounded outward once (see
    /// [`Interval::fused_dot3`]).
    #[inline]
    pub(crate) fn fused_dot3_const(a: [&Self; 3], x: [f64; 3], c: Option<&Self>) -> Self {
        let c0 = c.map_or((0.0, 0.0), |c| (c.lo, c.hi));
        let r = [
            scaled_range(*a[0], x[0]),
            scaled_range(*a[1], x[1]),
            scaled_range(*a[2], x[2]),
            c0,
        ];
        fused_sum(r).unwrap_or_else(|| {
            let s = *a[0] * x[0] + *a[1] * x[1] + *a[2] * x[2];
            c.map_or(s, |c| s + *c)
        })
    }
}

/// Range of a 2π-periodic function with one maximum (at `max_phase + 2kπ`) and one
/// minimum (at `min_phase + 2kπ`) per period and monotone pieces between them.
fn periodic_range(x: Interval, f: fn(f64) -> f64, max_phase: f64, min_phase: f64) -> Interval {
    const FULL: Interval = Interval { lo: -1.0, hi: 1.0 };
    const TWO_PI: f64 = std::f64::consts::TAU;
    let scale = x.mag();
    if scale.is_nan() || scale > 1.0e12 || x.width() >= TWO_PI {
        // too wide (or too large for reliable period counting), infinite or NaN
        return FULL;
    }
    // Slack for the floating-point location of the extrema: covers the error of the
    // constants π/2, 2π and of the products below (all far below 1e-15 relative).
    let slack = 4.0e-15 * (1.0 + scale);
    let contains_phase = |phase: f64| {
        let k = ((x.lo - phase) / TWO_PI).ceil();
        (-1..=1).any(|dk| {
            let c = phase + (k + f64::from(dk)) * TWO_PI;
            c >= x.lo - slack && c <= x.hi + slack
        })
    };
    let (a, b) = (f(x.lo), f(x.hi));
    // libm sin/cos are within one ulp; two steps outward cover it.
    let mut lo = down(down(a.min(b)));
    let mut hi = up(up(a.max(b)));
    if contains_phase(max_phase) {
        hi = 1.0;
    }
    if contains_phase(min_phase) {
        lo = -1.0;
    }
    Interval {
        lo: lo.max(-1.0),
        hi: hi.min(1.0),
    }
}

impl Neg for Interval {
    type Output = Self;
    #[inline]
    fn neg(self) -> Self {
        Self {
            lo: -self.hi,
            hi: -self.lo,
        }
    }
}

impl Add for Interval {
    type Output = Self;
    #[inline]
    fn add(self, rhs: Self) -> Self {
        Self {
            lo: down(self.lo + rhs.lo),
            hi: up(self.hi + rhs.hi),
        }
    }
}

impl Sub for Interval {
    type Output = Self;
    #[inline]
    fn sub(self, rhs: Self) -> Self {
        Self {
            lo: down(self.lo - rhs.hi),
            hi: up(self.hi - rhs.lo),
        }
    }
}

impl Mul for Interval {
    type Output = Self;
    #[inline]
    fn mul(self, rhs: Self) -> Self {
        let p = [
            mul0(self.lo, rhs.lo),
            mul0(self.lo, rhs.hi),
            mul0(self.hi, rhs.lo),
            mul0(self.hi, rhs.hi),
        ];
        let (lo, hi) = min_max(p);
        Self {
            lo: down(lo),
            hi: up(hi),
        }
    }
}

impl Div for Interval {
    type Output = Self;
    /// Division; a divisor containing 0 gives [`Interval::ENTIRE`]
    /// (see [`Interval::checked_div`] for the erroring form).
    #[inline]
    fn div(self, rhs: Self) -> Self {
        self.checked_div(rhs).unwrap_or(Self::ENTIRE)
    }
}

impl Add<f64> for Interval {
    type Output = Self;
    #[inline]
    fn add(self, rhs: f64) -> Self {
        // a non-finite `rhs` stands for the set `point(rhs)`, whose finite end matters
        if !rhs.is_finite() {
            return self + Self::point(rhs);
        }
        Self {
            lo: down(self.lo + rhs),
            hi: up(self.hi + rhs),
        }
    }
}

impl Sub<f64> for Interval {
    type Output = Self;
    #[inline]
    fn sub(self, rhs: f64) -> Self {
        if !rhs.is_finite() {
            return self - Self::point(rhs);
        }
        Self {
            lo: down(self.lo - rhs),
            hi: up(self.hi - rhs),
        }
    }
}

impl Mul<f64> for Interval {
    type Output = Self;
    #[inline]
    fn mul(self, rhs: f64) -> Self {
        if !rhs.is_finite() {
            return self * Self::point(rhs);
        }
        let (a, b) = (mul0(self.lo, rhs), mul0(self.hi, rhs));
        Self {
            lo: down(a.min(b)),
            hi: up(a.max(b)),
        }
    }
}

impl AddAssign for Interval {
    #[inline]
    fn add_assign(&mut self, rhs: Self) {
        *self = *self + rhs;
    }
}

impl SubAssign for Interval {
    #[inline]
    fn sub_assign(&mut self, rhs: Self) {
        *self = *self - rhs;
    }
}

impl MulAssign for Interval {
    #[inline]
    fn mul_assign(&mut self, rhs: Self) {
        *self = *self * rhs;
    }
}

impl From<f64> for Interval {
    #[inline]
    fn from(x: f64) -> Self {
        Self::point(x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    mod lin2_point {
        use super::*;
        use num_rational::BigRational;
        use proptest::prelude::*;

        fn q(x: f64) -> BigRational {
            BigRational::from_float(x).expect("finite")
        }

        /// A point of `iv` picked by `s ∈ [0, 1]` (ends included), as a rational.
        fn at(iv: Interval, s: f64) -> BigRational {
            let (lo, hi) = (q(iv.lo()), q(iv.hi()));
            let s = q(s);
            &lo + (&hi - &lo) * s
        }

        fn side() -> impl Strategy<Value = f64> {
            prop_oneof![Just(0.0), Just(1.0), 0.0..=1.0f64]
        }

        fn range() -> impl Strategy<Value = Interval> {
            prop_oneof![
                (-1.0..1.0f64, 0.0..0.5f64).prop_map(|(a, w)| Interval::new(a, (a + w).min(1.0))),
                (-1e3..1e3f64, -1e3..1e3f64).prop_map(|(a, b)| Interval::new(a, b)),
                (-1.0..1.0f64).prop_map(Interval::point),
            ]
        }

        proptest! {
            /// `f a + g b + c` over every point of `f`, `g` and of `[v − rad, v + rad]` for
            /// the coefficients (ends included) is inside the fused result, checked in
            /// exact rational arithmetic.
            #[test]
            fn encloses_every_point(
                f in range(), g in range(),
                a in -3.0..3.0f64, b in -3.0..3.0f64, c in -3.0..3.0f64,
                rad in prop_oneof![Just(0.0), 1e-300..1e-12f64, 1e-6..1.0f64],
                sides in (side(), side(), side(), side(), side()),
            ) {
                let got = Interval::fused_lin2_point(f, a, g, b, c, rad);
                let (sf, sg, sa, sb, sc) = sides;
                let coef = |v: f64, s: f64| q(v) + q(rad) * (q(2.0 * s) - q(1.0));
                let exact = at(f, sf) * coef(a, sa) + at(g, sg) * coef(b, sb) + coef(c, sc);
                prop_assert!(q(got.lo()) <= exact && exact <= q(got.hi()), "{got:?}");
            }
        }
    }

    #[test]
    fn arithmetic_contains_exact_results() {
        let a = Interval::new(0.1, 0.2);
        let b = Interval::new(0.3, 0.7);
        assert!((a + b).contains(0.1 + 0.3) && (a + b).contains(0.9));
        assert!((a * b).contains(0.1 * 0.3) && (a * b).contains(0.2 * 0.7));
        assert!((a / b).contains(0.2 / 0.3));
        assert_eq!(
            Interval::new(1.0, 2.0) / Interval::new(-1.0, 1.0),
            Interval::ENTIRE
        );
        assert!(
            Interval::new(1.0, 2.0)
                .checked_div(Interval::new(0.0, 1.0))
                .is_err()
        );
    }

    #[test]
    fn up_down_step_at_least_one_ulp() {
        let cases = [
            0.0,
            -0.0,
            ETA,
            -ETA,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
            1.0,
            -1.0,
            0.1,
            -3.5e200,
            2f64.powi(-1022) * 3.0,
            f64::MAX,
            -f64::MAX,
            4.0,
            -4.0,
        ];
        for x in cases {
            assert!(up(x) >= x.next_up(), "up({x:e}) = {:e}", up(x));
            assert!(down(x) <= x.next_down(), "down({x:e}) = {:e}", down(x));
            // and not wildly more than a few ulps
            if x.abs() < 1e300 {
                assert!(
                    up(x) <= x.next_up().next_up().next_up(),
                    "up({x:e}) too far"
                );
                assert!(
                    down(x) >= x.next_down().next_down().next_down(),
                    "down({x:e}) too far"
                );
            }
        }
        assert_eq!(up(f64::INFINITY), f64::INFINITY);
        assert_eq!(down(f64::NEG_INFINITY), f64::NEG_INFINITY);
        // overflowed candidates bound the other side by ±MAX; NaN bounds nothing
        assert_eq!(up(f64::NEG_INFINITY), -f64::MAX);
        assert_eq!(down(f64::INFINITY), f64::MAX);
        assert_eq!(up(f64::NAN), f64::INFINITY);
        assert_eq!(down(f64::NAN), f64::NEG_INFINITY);
    }

    #[test]
    fn zero_times_infinity_is_zero() {
        let p = Interval::ZERO * Interval::ENTIRE;
        assert!(p.contains(0.0) && p.width() < 1e-300);
        let q = Interval::new(0.0, 1.0) * Interval::ENTIRE;
        assert_eq!((q.lo(), q.hi()), (f64::NEG_INFINITY, f64::INFINITY));
    }

    #[test]
    fn sqr_of_straddling_interval_starts_at_zero() {
        let s = Interval::new(-2.0, 1.0).sqr();
        assert_eq!(s.lo(), 0.0);
        assert!(s.contains(4.0));
        assert!(Interval::new(-2.0, 1.0).powi(3).contains(-8.0));
    }

    #[test]
    fn sin_cos_extrema() {
        let pi = std::f64::consts::PI;
        let s = Interval::new(pi / 2.0 - 0.1, pi / 2.0 + 0.1).sin();
        assert_eq!(s.hi(), 1.0);
        assert!(s.lo() > 0.99);
        let c = Interval::new(0.1, 0.2).cos();
        assert!(c.contains(0.1f64.cos()) && c.contains(0.2f64.cos()));
        assert!(c.width() < 0.03);
        assert_eq!(Interval::new(0.0, 7.0).sin(), Interval::new(-1.0, 1.0));
        assert_eq!(
            Interval::new(f64::NEG_INFINITY, 0.0).cos(),
            Interval::new(-1.0, 1.0)
        );
        // tight on a wide interval: [1, 5] contains the max of sin at π/2 and the min at 3π/2
        assert_eq!(Interval::new(1.0, 5.0).sin(), Interval::new(-1.0, 1.0));
        // [2, 4] contains only the minimum of cos at π
        let c = Interval::new(2.0, 4.0).cos();
        assert_eq!(c.lo(), -1.0);
        assert!((c.hi() - 2.0f64.cos().max(4.0f64.cos())).abs() < 1e-15);
    }
}
