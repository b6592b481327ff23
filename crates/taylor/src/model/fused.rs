//! Fused sums of products of [`TaylorModel`]s (`a₀ b₀ + a₁ b₁ + a₂ b₂ + c` and friends) as
//! one model with one rounding bound per degree: the Taylor-model side of
//! [`crate::Enclosure::dot3`], [`crate::Enclosure::dot3_const`] and
//! [`crate::Enclosure::lin2_interval`].

use super::{GAMMA, GAMMA_DOT, LazySum, TINY, TaylorModel, fold_errors, powers};
use crate::Interval;
use crate::interval::up;

impl TaylorModel {
    /// `a₀ b₀ + a₁ b₁ + a₂ b₂ (+ c)` as one model (the [`crate::Enclosure::dot3`] of Taylor
    /// models): the coefficients of all products summed in f64 with one rounding bound per
    /// degree (`GAMMA_DOT` times the sum of the magnitudes, plus `TINY` for underflow),
    /// the degree 4–6 terms of the sum bounded once, and each product's remainder cross
    /// terms `P_a R_b + P_b R_a + R_a R_b` added. Models over different domains or with
    /// coefficients whose products overflow take the operations one by one.
    pub(crate) fn fused_dot3(a: [&Self; 3], b: [&Self; 3], c: Option<&Self>) -> Self {
        Self::fused_dot(a, b, c, None)
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
}
