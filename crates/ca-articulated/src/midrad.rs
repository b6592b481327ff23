//! The second-level spatial test's arithmetic in midpoint–radius form: a relative motion
//! bounded over the step is held as `rm ± rr` (rotation) and `tm ± tr` (translation), f64
//! midpoints and radii, and a piece's separation along an axis is evaluated in plain f64
//! with **one** rounding bound for the whole expression, instead of outward-rounded interval
//! dot products for every coordinate (`ArticulatedScene::apart_in_link_frames`; CATCH's second level).
//!
//! # What is computed
//! Piece `q` (centre `c`, unit axes `aⱼ`, half extents `hⱼ`, radius `r_q`) is carried into
//! the frame of piece `p` (centre `c_p`, unit axes `uᵢ`, half extents `eᵢ`, radius `r_p`) by
//! every rotation `R` and translation `t` with `|R − rm| ≤ rr` and `|t − tm| ≤ tr`
//! (entry by entry). Along `uᵢ` the two pieces are at least
//! `G = |u·(R c + t − c_p)| − Σⱼ hⱼ |u·R aⱼ| − eᵢ − r_p − r_q` apart. With
//! `ymid = u·(rm c + tm − c_p)`, `yrad = |u|·(rr |c| + tr)`, `mⱼ = u·(rm aⱼ)` and
//! `s = Σⱼ hⱼ |aⱼ|` (absolute values entry by entry):
//! - `|u·(R c + t − c_p)| ≥ |ymid| − yrad`, since `u·((R − rm) c) ≤ |u|·(rr |c|)` and
//!   `u·(t − tm) ≤ |u|·tr`;
//! - `|u·R aⱼ| ≤ |mⱼ| + |u|·(rr |aⱼ|)`, so `Σⱼ hⱼ |u·R aⱼ| ≤ Σⱼ hⱼ |mⱼ| + |u|·(rr s)`;
//!
//! hence `G ≥ E = |ymid| − yrad − reach`, `reach = eᵢ + r_p + r_q + Σⱼ hⱼ |mⱼ| + |u|·(rr s)`.
//! `E` is exactly what the interval version computed (an interval times a point is
//! `mid·x ± rad·|x|` over the reals, and sums of intervals add midpoints and radii), so
//! the decisions are the same up to rounding.
//!
//! # The rounding bound
//! `E` is evaluated in round-to-nearest f64 as a tree of `+`, `−`, `×` and `|·|` over the
//! inputs (all f64: `rm`, `rr`, `tm`, `tr`, `c`, `aⱼ`, `hⱼ`, `c_p`, `u`, `eᵢ`, `r_p`,
//! `r_q`). Write `T` for the same tree with every input replaced by its absolute value and
//! every `−` by `+`. By induction over the tree (Higham, *Accuracy and Stability of
//! Numerical Algorithms*, Lemma 3.3: `γⱼ + γₖ + γⱼγₖ ≤ γⱼ₊ₖ`, `γₖ + u(1 + γₖ) ≤ γₖ₊₁`,
//! `γₖ = k u / (1 − k u)`, `u = 2⁻⁵³`), a node whose every leaf-to-node path has at most
//! `k` rounded operations is computed within `γₖ · T(node)`: a sum or difference of
//! `â = a ± γⱼ T_a`, `b̂` adds one rounding of at most `u (T_a + T_b)(1 + γ)`, a product
//! `â b̂` is within `(γⱼ + γₖ + γⱼγₖ) T_a T_b` before its own rounding, and `| |â| − |a| | ≤
//! |â − a|` while `|a| ≤ T_a`. The longest path in [`carry`] and [`gap_along`] has 14
//! rounded operations (counted at each statement below), so
//! `|fl(E) − E| ≤ γ₁₄ T < 14.1 u T`. `T` itself is bounded by
//! `‖u‖₁ (g ‖W‖₁ + τ + ‖c_p‖∞) + eᵢ + r_p + r_q` with `g = max (|rm| + rr)` over the
//! entries, `τ = maxₖ (|tmₖ| + trₖ)` and `W = |c| + s`: every monomial of `T` is
//! `|uₖ|` times either `(|rm| or rr)ₖₗ · (|cₗ| or sₗ or hⱼ|aₗⱼ|)` (at most `g Wₗ`
//! summed over `ₗ`), `|tmₖ|`, `trₖ` or `|c_{p,k}|`, or one of `eᵢ`, `r_p`, `r_q`. This
//! bound, `T̂`, is computed in f64 with at most 13 roundings of non-negative terms
//! (`T̂ ≥ (1 − γ₁₃) T`); `32 ε T̂` is exact (a power of two times `T̂`) and adding the
//! underflow term rounds down by at most a factor `1 − u`, so the error bound taken,
//! `err ≥ 64 u (1 − γ₁₄) T > 63 u T`, covers `γ₁₄ T` four times over. Underflow: sums of floats are exact in the subnormal range; each of the fewer
//! than 100 products may add an absolute `2⁻¹⁰⁷⁵`, multiplied afterwards by at most
//! `|u|`, `g` and one `hⱼ` (`≤ 2 (1 + g)(1 + max hⱼ)`), far below the
//! `f64::MIN_POSITIVE (1 + g)(1 + max hⱼ)` added. The test then asks
//! `fl(fl(E) − err) > margin` for a float `margin`; rounding is monotone, so this implies
//! `fl(E) − err > margin` and `G ≥ E ≥ fl(E) − err > margin`. Overflow or a NaN makes a
//! comparison false: the pair is kept.
//!
//! The radii of the inputs are rounded up when the interval bounds are converted
//! ([`mid_rad`]), so `rm ± rr` holds every rotation the interval matrix holds.

use ccd_geometry::Aabb;
use ccd_kinematics::RigidMotion;
use ccd_taylor::{ConstantVelocity, Enclosure, Interval, Transform};
use glam::DVec3;

use crate::body::Piece;

/// Smallest positive subnormal, 2⁻¹⁰⁷⁴.
const ETA: f64 = f64::from_bits(1);

/// The factor of `T̂` in the rounding bound (see the module docs: `32 ε = 64 u`, four
/// times `γ₁₄`, with room for the rounding of `T̂`).
const ROUNDING: f64 = 32.0 * f64::EPSILON;

/// A midpoint and a radius `(m, r)` with `[x.lo, x.hi] ⊆ [m − r, m + r]` (exactly, over
/// the reals), or `None` for an unbounded interval (or one too wide for f64 radii).
///
/// `m` is any float; `r` is the larger of `hi − m` and `m − lo`, each rounded to nearest,
/// then moved up by `|r| 2⁻⁵² + 2⁻¹⁰⁷⁴`, which is at least the spacing of floats around
/// `r`: the result is at least one float above the rounded difference, and a
/// round-to-nearest difference is within half a spacing of the exact one (the argument of
/// `ccd_taylor`'s outward rounding).
#[inline]
pub(crate) fn mid_rad(x: Interval) -> Option<(f64, f64)> {
    let (lo, hi) = (x.lo(), x.hi());
    if !(lo.is_finite() && hi.is_finite()) {
        return None;
    }
    let m = 0.5 * lo + 0.5 * hi;
    let r = (hi - m).max(m - lo);
    let r = r + (r * f64::EPSILON + ETA);
    (m.is_finite() && r.is_finite()).then_some((m, r))
}

/// A rigid motion bounded over the step, midpoint–radius form: every rotation `R` and
/// translation `t` of the motion have `|R − rm| ≤ rr` and `|t − tm| ≤ tr` entry by entry.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MidRadMotion {
    rm: [[f64; 3]; 3],
    rr: [[f64; 3]; 3],
    tm: [f64; 3],
    tr: [f64; 3],
    /// `max (|rm| + rr)` over the entries.
    g: f64,
    /// `maxₖ (|tmₖ| + trₖ)`.
    tau: f64,
}

impl MidRadMotion {
    /// The motion whose rotation entries lie in `rot` (`[row][col]`) and translation in
    /// `t`; `None` when a bound is unbounded (the caller keeps the pair).
    pub(crate) fn new(rot: &[[Interval; 3]; 3], t: &[Interval; 3]) -> Option<Self> {
        let mut rm = [[0.0; 3]; 3];
        let mut rr = [[0.0; 3]; 3];
        let mut g = 0.0f64;
        for k in 0..3 {
            for l in 0..3 {
                let (m, r) = mid_rad(rot[k][l])?;
                rm[k][l] = m;
                rr[k][l] = r;
                g = g.max(m.abs() + r);
            }
        }
        let mut tm = [0.0; 3];
        let mut tr = [0.0; 3];
        let mut tau = 0.0f64;
        for k in 0..3 {
            let (m, r) = mid_rad(t[k])?;
            tm[k] = m;
            tr[k] = r;
            tau = tau.max(m.abs() + r);
        }
        Some(Self {
            rm,
            rr,
            tm,
            tr,
            g,
            tau,
        })
    }

    /// The motion with the transposed rotation bounds (the reverse relative motion's
    /// rotation: the transpose of an entrywise bound of `R` bounds `Rᵀ` exactly) and the
    /// translation bounds `t`; `None` as for [`MidRadMotion::new`].
    pub(crate) fn transposed_with(&self, t: &[Interval; 3]) -> Option<Self> {
        let mut tm = [0.0; 3];
        let mut tr = [0.0; 3];
        let mut tau = 0.0f64;
        for k in 0..3 {
            let (m, r) = mid_rad(t[k])?;
            tm[k] = m;
            tr[k] = r;
            tau = tau.max(m.abs() + r);
        }
        Some(Self {
            rm: std::array::from_fn(|i| std::array::from_fn(|j| self.rm[j][i])),
            rr: std::array::from_fn(|i| std::array::from_fn(|j| self.rr[j][i])),
            tm,
            tr,
            g: self.g,
            tau,
        })
    }
}

/// A piece carried into another link frame by a [`MidRadMotion`] (see the module docs).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Carried {
    /// `rm c + tm`.
    centre: [f64; 3],
    /// `rr |c| + tr`.
    centre_rad: [f64; 3],
    /// `axes[k][j]`: coordinate `k` of `rm aⱼ`.
    axes: [[f64; 3]; 3],
    /// `rr s`, `s = Σⱼ hⱼ |aⱼ|`.
    axes_rad: [f64; 3],
    half: DVec3,
    radius: f64,
    /// `g ‖W‖₁ + τ` (`W = |c| + s`): the carried piece's part of the rounding bound.
    bound: f64,
    /// `f64::MIN_POSITIVE (1 + g)(1 + max hⱼ)`: the underflow part of the rounding bound.
    tiny: f64,
}

/// Piece `q` carried by the motion `m` of its link frame in the other link frame.
pub(crate) fn carry(m: &MidRadMotion, q: &Piece) -> Carried {
    let c = [q.centre.x, q.centre.y, q.centre.z];
    let a = [q.axes.x_axis, q.axes.y_axis, q.axes.z_axis];
    let h = [q.half.x, q.half.y, q.half.z];
    // s_l = Σ_j h_j |a_lj|: 3 roundings (product, two sums)
    let s: [f64; 3] =
        std::array::from_fn(|l| h[0] * a[0][l].abs() + h[1] * a[1][l].abs() + h[2] * a[2][l].abs());
    let (rm, rr) = (&m.rm, &m.rr);
    // centre: product + 3 sums = 4 roundings
    let centre =
        std::array::from_fn(|k| rm[k][0] * c[0] + rm[k][1] * c[1] + rm[k][2] * c[2] + m.tm[k]);
    // 4 roundings
    let centre_rad = std::array::from_fn(|k| {
        rr[k][0] * c[0].abs() + rr[k][1] * c[1].abs() + rr[k][2] * c[2].abs() + m.tr[k]
    });
    // 3 roundings
    let axes = std::array::from_fn(|k| {
        std::array::from_fn(|j| rm[k][0] * a[j][0] + rm[k][1] * a[j][1] + rm[k][2] * a[j][2])
    });
    // s (3) + product + 2 sums = 6 roundings
    let axes_rad = std::array::from_fn(|k| rr[k][0] * s[0] + rr[k][1] * s[1] + rr[k][2] * s[2]);
    // (the bound: non-negative terms; w1 6 roundings, bound 8)
    let w1 = (c[0].abs() + s[0]) + (c[1].abs() + s[1]) + (c[2].abs() + s[2]);
    Carried {
        centre,
        centre_rad,
        axes,
        axes_rad,
        half: q.half,
        radius: q.radius,
        bound: m.g * w1 + m.tau,
        tiny: f64::MIN_POSITIVE * (1.0 + m.g) * (1.0 + q.half.max_element()),
    }
}

/// A lower bound, proven over the motion and rounding included, of the gap between piece
/// `p` and the carried piece `q` along `p`'s axis `i` (`fl(E) − err` of the module docs),
/// and the scale of the coordinates behind it (`max(|ymid| + yrad, reach)`). NaN when
/// something overflowed (every comparison with it is false).
#[inline]
pub(crate) fn gap_along(p: &Piece, q: &Carried, i: usize) -> (f64, f64) {
    let u = p.axes.col(i);
    let u = [u.x, u.y, u.z];
    let ua = [u[0].abs(), u[1].abs(), u[2].abs()];
    let cp = [p.centre.x, p.centre.y, p.centre.z];
    // v: centre (4) + 1 = 5; ymid: product (6) + 2 sums = 8 roundings
    let v = [
        q.centre[0] - cp[0],
        q.centre[1] - cp[1],
        q.centre[2] - cp[2],
    ];
    let ymid = u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
    // centre_rad (4) + product + 2 sums = 7
    let yrad = ua[0] * q.centre_rad[0] + ua[1] * q.centre_rad[1] + ua[2] * q.centre_rad[2];
    // axes_rad (6) + product + 2 sums = 9
    let spread = ua[0] * q.axes_rad[0] + ua[1] * q.axes_rad[1] + ua[2] * q.axes_rad[2];
    // m_j: axes (3) + product + 2 sums = 6; h_j |m_j|: 7
    let m = |j: usize| u[0] * q.axes[0][j] + u[1] * q.axes[1][j] + u[2] * q.axes[2][j];
    // reach: ((e + r_p) + r_q) + spread (10) + three terms (13)
    let reach = p.half[i]
        + p.radius
        + q.radius
        + spread
        + q.half[0] * m(0).abs()
        + q.half[1] * m(1).abs()
        + q.half[2] * m(2).abs();
    // E = (|ymid| − yrad) − reach: at most 14 roundings on any path
    let e = ymid.abs() - yrad - reach;
    // T̂ (non-negative terms; w1 6, bound 8, then 5 more: ≤ 13 roundings)
    let u1 = ua[0] + ua[1] + ua[2];
    let cmax = cp[0].abs().max(cp[1].abs()).max(cp[2].abs());
    let t = u1 * (q.bound + cmax) + p.half[i] + p.radius + q.radius;
    let err = ROUNDING * t + q.tiny;
    (e - err, (ymid.abs() + yrad).max(reach))
}

/// Whether the carried piece `q` stays more than `eps` from piece `p` (both in `p`'s link
/// frame) over the step: along some axis of `p` the proven gap ([`gap_along`]) exceeds
/// `eps` plus a margin of a relative 1e-9 of the coordinates, for the pieces' axes, which
/// are orthonormal only up to rounding (a gap along a unit axis bounds the distance from
/// below).
#[inline]
pub(crate) fn clear_of(p: &Piece, q: &Carried, eps: f64) -> bool {
    (0..3).any(|i| {
        let (gap, scale) = gap_along(p, q, i);
        let margin = eps * (1.0 + 1e-9) + 1e-9 * scale;
        gap > margin
    })
}

/// A box enclosing the trajectories of eight local points (a link's or a rigid body's OBB
/// corners) under the interval transform `w` over the step, evaluated in midpoint–radius
/// form: per world axis `i`, with row `i` of the rotation held as `rm ± rr` and the
/// translation as `tm ± tr` ([`mid_rad`]), corner `p` stays within
/// `rm·p + tm ± (rr·|p| + tr)` (an interval row times a point is exactly that over the
/// reals), so the box runs from `minₖ (rm·pₖ − rr·|pₖ|) + tm − tr` to
/// `maxₖ (rm·pₖ + rr·|pₖ|) + tm + tr`, widened by one rounding bound. Over the reals this
/// is the hull of the eight corners' interval evaluations, which is what
/// [`Transform::aabb_of_corners`] computes for interval transforms (it skips corners that
/// cannot hold an extreme, which does not change the hull), so the boxes agree up to
/// rounding; this form needs no sign tests and no outward rounding per operation.
///
/// Rounding: each candidate `fl(fl(fl(rm·p ± rr·|p|) + tm) ± tr)` is a tree with at most 6
/// rounded operations per leaf (3 for the dot products, the `±`, two sums), so it is within
/// `γ₆ Tᵢ`, `Tᵢ = gᵢ P + τᵢ` (`gᵢ = maxₗ (|rmᵢₗ| + rrᵢₗ)`, `P = maxₖ ‖pₖ‖₁`,
/// `τᵢ = |tmᵢ| + trᵢ`, which bounds every candidate's absolute-value tree); the minimum and
/// maximum are exact. The final `± err` with `err = 16 ε T̂ᵢ + f64::MIN_POSITIVE`
/// (`16 ε = 32 u`, `T̂ᵢ` computed from non-negative terms with at most 6 roundings, the
/// subnormal term covering the at most 6 products' absolute underflow errors of 2⁻¹⁰⁷⁵) is
/// rounded too, by at most `u (|x| + γ₆ Tᵢ + err)` with `|x| ≤ Tᵢ`: in total
/// `err ≥ 32 u (1 − γ₇) Tᵢ` covers `γ₆ Tᵢ + u (Tᵢ + γ₆ Tᵢ + err) < 8 u Tᵢ + u err`.
/// `None` when a bound is unbounded or a point not finite (the caller falls back to
/// [`Transform::aabb_of_corners`]) or when a bound overflowed.
pub(crate) fn corner_box(w: &Transform<Interval>, corners: &[DVec3; 8]) -> Option<Aabb> {
    if !corners.iter().all(|p| p.is_finite()) {
        return None;
    }
    let t = [w.translation.x, w.translation.y, w.translation.z];
    let abs = corners.map(DVec3::abs);
    let big = abs.iter().fold(0.0f64, |b, a| b.max((a.x + a.y) + a.z));
    let mut lo = [0.0; 3];
    let mut hi = [0.0; 3];
    for i in 0..3 {
        let row = &w.rotation.rows[i];
        let (m0, r0) = mid_rad(row[0])?;
        let (m1, r1) = mid_rad(row[1])?;
        let (m2, r2) = mid_rad(row[2])?;
        let (tm, tr) = mid_rad(t[i])?;
        let (mut a, mut b) = (f64::INFINITY, f64::NEG_INFINITY);
        for (p, q) in corners.iter().zip(&abs) {
            let mid = m0 * p.x + m1 * p.y + m2 * p.z;
            let rad = r0 * q.x + r1 * q.y + r2 * q.z;
            a = a.min(mid - rad);
            b = b.max(mid + rad);
        }
        let g = (m0.abs() + r0).max(m1.abs() + r1).max(m2.abs() + r2);
        let err = 16.0 * f64::EPSILON * (g * big + (tm.abs() + tr)) + f64::MIN_POSITIVE;
        lo[i] = a + tm - tr - err;
        hi[i] = b + tm + tr + err;
        if !(lo[i].is_finite() && hi[i].is_finite()) {
            return None;
        }
    }
    Some(Aabb::new(DVec3::from_array(lo), DVec3::from_array(hi)))
}

/// A box enclosing an axis-aligned local box `local` (a sub-assembly's box in its own
/// frame) under the interval transform `w` over the step, in midpoint–radius form: the
/// local box is held as `c ± h` ([`mid_rad`] per axis, so `[lo, hi] ⊆ [c − h, c + h]`
/// exactly), row `i` of the rotation as `rm ± rr` and the translation as `tm ± tr`. For
/// every `R` with `|R − rm| ≤ rr`, every `t` with `|t − tm| ≤ tr` and every `x` with
/// `|x − c| ≤ h`, `Rᵢ·x + tᵢ = rm·c + tm + rm·(x − c) + (R − rm)ᵢ·x + (tᵢ − tm)`, and
/// `|rm·(x − c)| ≤ |rm|·h`, `|(R − rm)ᵢ·x| ≤ rr·(|c| + h)`, so coordinate `i` stays within
/// `rm·c + tm ± (|rm|·h + rr·(|c| + h) + tr)`, widened by one rounding bound. Over the
/// reals this is the midpoint–radius product of the interval row with the box (at most
/// `2 Σₗ rrₗ hₗ` wider per side than the interval row product of
/// `NodeArith::box_of`), with 9 products and no outward rounding per operation.
///
/// Rounding: per axis, `mid = fl(fl(rm·c) + tm)` (3 rounded operations for the dot
/// product, one sum: 4) and `rad = fl(fl(Σₗ fl(fl(|rmₗ| hₗ) + fl(rrₗ fl(|cₗ| + hₗ)))) + tr)`
/// (`|cₗ| + hₗ`, the product, the inner sum, two outer sums, `+ tr`: 6), and each end
/// `fl(mid ± rad)` has at most 7 rounded operations on any leaf-to-end path, so it is
/// within `γ₇ Tᵢ` of the exact end (Higham, Lemma 3.3, as in the module docs), where the
/// tree with absolute values is `Tᵢ = Σₗ (|rmₗ| + rrₗ)(|cₗ| + hₗ) + |tm| + tr ≤ gᵢ P + τᵢ`
/// with `gᵢ = maxₗ (|rmₗ| + rrₗ)`, `P = Σₗ (|cₗ| + hₗ)`, `τᵢ = |tm| + tr`. That bound, `T̂ᵢ`,
/// is computed from non-negative terms with at most 5 roundings (`T̂ᵢ ≥ (1 − γ₅) Tᵢ`); the
/// end moved out by `err = 16 ε T̂ᵢ + f64::MIN_POSITIVE` (`16 ε = 32 u`, exact but for
/// underflow; the subnormal term covers the at most 9 products' absolute underflow errors
/// of 2⁻¹⁰⁷⁵ each, which no later product scales, and that of `16 ε T̂ᵢ`) and rounded once
/// more, by at most
/// `u (|x| + γ₇ Tᵢ + err)` with `|x| ≤ Tᵢ`, stays outside: `err ≥ 32 u (1 − γ₆) Tᵢ` (the
/// sum with the subnormal term is one more rounding)
/// covers `γ₇ Tᵢ + u (Tᵢ + γ₇ Tᵢ + err) < 9 u Tᵢ + u err`. `None` when a bound is unbounded
/// or a box end not finite (the caller falls back to the interval product) or when an end
/// overflowed.
pub(crate) fn local_box(w: &Transform<Interval>, local: &Aabb) -> Option<Aabb> {
    if !(local.min.is_finite() && local.max.is_finite()) {
        return None;
    }
    let mut ch = [(0.0, 0.0); 3];
    for (l, x) in ch.iter_mut().enumerate() {
        let (lo, hi) = (local.min[l], local.max[l]);
        if lo > hi {
            return None;
        }
        *x = mid_rad(Interval::new(lo, hi))?;
    }
    let [(c0, h0), (c1, h1), (c2, h2)] = ch;
    // |c| + h per axis (1 rounding) and P (3)
    let (a0, a1, a2) = (c0.abs() + h0, c1.abs() + h1, c2.abs() + h2);
    let big = (a0 + a1) + a2;
    let t = [w.translation.x, w.translation.y, w.translation.z];
    let mut lo = [0.0; 3];
    let mut hi = [0.0; 3];
    for i in 0..3 {
        let row = &w.rotation.rows[i];
        let (m0, r0) = mid_rad(row[0])?;
        let (m1, r1) = mid_rad(row[1])?;
        let (m2, r2) = mid_rad(row[2])?;
        let (tm, tr) = mid_rad(t[i])?;
        let mid = (m0 * c0 + m1 * c1 + m2 * c2) + tm;
        let rad = ((m0.abs() * h0 + r0 * a0) + (m1.abs() * h1 + r1 * a1))
            + (m2.abs() * h2 + r2 * a2)
            + tr;
        let g = (m0.abs() + r0).max(m1.abs() + r1).max(m2.abs() + r2);
        let err = 16.0 * f64::EPSILON * (g * big + (tm.abs() + tr)) + f64::MIN_POSITIVE;
        lo[i] = mid - rad - err;
        hi[i] = mid + rad + err;
        if !(lo[i].is_finite() && hi[i].is_finite()) {
            return None;
        }
    }
    Some(Aabb::new(DVec3::from_array(lo), DVec3::from_array(hi)))
}

/// The composition `a · b` (first `b`, then `a`) of two interval transforms in
/// midpoint–radius form: every entry of `a` as `am ± ar`, of `b` as `bm ± br`
/// ([`mid_rad`]). Entry `(i, j)` of the rotation is `Σₖ Aᵢₖ Bₖⱼ` and coordinate `i` of
/// the translation `Σₖ Aᵢₖ tₖ + sᵢ` (`t`, `s`: the translations of `b` and `a`); for
/// `Aᵢₖ ∈ am ± ar` and `Cₖ ∈ cm ± cr` (a column of `B`, or `t`),
/// `Aᵢₖ Cₖ − am cm = am (Cₖ − cm) + (Aᵢₖ − am) Cₖ`, so each sum stays within
/// `Σₖ am cm (+ sm) ± (Σₖ (|am| cr + ar (|cm| + cr)) (+ sr))`, widened by one rounding bound.
/// Over the reals this is the midpoint–radius product, at most `2 Σₖ arᵢₖ crₖ` wider per side
/// than the interval product of [`Transform::compose`].
///
/// Rounding: as in [`local_box`] (the same expression with the local box's centre and half
/// extents replaced by the column's midpoints and radii, and `tm ± tr` by `sm ± sr`, or by
/// 0 for rotation entries, whose sums with 0 are exact): each end has at most 7 rounded
/// operations on any path, the tree with absolute values is
/// `T = Σₖ (|am| + ar)(|cm| + cr) + |sm| + sr ≤ gᵢ S + τ` (`gᵢ = maxₖ (|amᵢₖ| + arᵢₖ)`,
/// `S = Σₖ (|cmₖ| + crₖ)`, `τ = |sm| + sr`), computed from non-negative terms with at most
/// 5 roundings, and `err = 16 ε T̂ + f64::MIN_POSITIVE` (9 leaf products' underflow, none
/// scaled later) covers `γ₇ T` and the final rounding. `None` when an entry is unbounded or
/// an end not finite (the caller falls back to [`Transform::compose`]). Point entries
/// (constant handle transforms) are taken as `x ± 0`, and the radius terms of a point
/// factor, exactly 0, are not computed: the same floats as the general expression.
pub(crate) fn compose(
    a: &Transform<Interval>,
    b: &Transform<Interval>,
) -> Option<Transform<Interval>> {
    let ar = &a.rotation.rows;
    let br = &b.rotation.rows;
    let mut am = [[(0.0, 0.0); 3]; 3];
    for i in 0..3 {
        for k in 0..3 {
            am[i][k] = point_or_mid_rad(ar[i][k])?;
        }
    }
    let at = [
        mid_rad(a.translation.x)?,
        mid_rad(a.translation.y)?,
        mid_rad(a.translation.z)?,
    ];
    // columns of b's rotation, then b's translation, as (m, r) per k
    let mut cols = [[(0.0, 0.0); 3]; 4];
    for k in 0..3 {
        for j in 0..3 {
            cols[j][k] = point_or_mid_rad(br[k][j])?;
        }
    }
    cols[3] = [
        mid_rad(b.translation.x)?,
        mid_rad(b.translation.y)?,
        mid_rad(b.translation.z)?,
    ];
    // point factors (radius 0): their radius terms are exactly 0 and are skipped (the
    // same floats: products with 0 are 0 and sums with them exact)
    let a_point = am.iter().flatten().all(|&(_, r)| r == 0.0);
    let b_point = cols.map(|c| c.iter().all(|&(_, r)| r == 0.0));
    // |cm| + cr per k (1 rounding) and S per column (3)
    let ca: [[f64; 3]; 4] = cols.map(|c| c.map(|(m, r)| m.abs() + r));
    let big: [f64; 4] = ca.map(|c| (c[0] + c[1]) + c[2]);
    let mut out = [[Interval::ZERO; 4]; 3];
    for i in 0..3 {
        let [(m0, r0), (m1, r1), (m2, r2)] = am[i];
        let g = (m0.abs() + r0).max(m1.abs() + r1).max(m2.abs() + r2);
        for j in 0..4 {
            let [(c0, d0), (c1, d1), (c2, d2)] = cols[j];
            let (tm, tr) = if j == 3 { at[i] } else { (0.0, 0.0) };
            let e = ca[j];
            let mid = (m0 * c0 + m1 * c1 + m2 * c2) + tm;
            let rad = match (a_point, b_point[j]) {
                (true, true) => tr,
                (true, false) => (m0.abs() * d0 + m1.abs() * d1) + m2.abs() * d2 + tr,
                (false, true) => (r0 * e[0] + r1 * e[1]) + r2 * e[2] + tr,
                (false, false) => {
                    ((m0.abs() * d0 + r0 * e[0]) + (m1.abs() * d1 + r1 * e[1]))
                        + (m2.abs() * d2 + r2 * e[2])
                        + tr
                }
            };
            let err = 16.0 * f64::EPSILON * (g * big[j] + (tm.abs() + tr)) + f64::MIN_POSITIVE;
            let (lo, hi) = (mid - rad - err, mid + rad + err);
            if !(lo.is_finite() && hi.is_finite()) {
                return None;
            }
            out[i][j] = Interval::new(lo, hi);
        }
    }
    Some(Transform {
        rotation: ccd_taylor::Mat3 {
            rows: std::array::from_fn(|i| [out[i][0], out[i][1], out[i][2]]),
        },
        translation: ccd_taylor::Vec3 {
            x: out[0][3],
            y: out[1][3],
            z: out[2][3],
        },
    })
}

/// `(x, 0)` for a finite point interval `[x, x]` (exactly itself), else [`mid_rad`].
#[inline]
fn point_or_mid_rad(x: Interval) -> Option<(f64, f64)> {
    if x.lo() == x.hi() && x.lo().is_finite() {
        Some((x.lo(), 0.0))
    } else {
        mid_rad(x)
    }
}

/// [`compose`], or [`Transform::compose`] when it cannot be formed: the composition the
/// adaptive state's interval assembly bounds use
/// (`ccd_kinematics::AssemblyBounds::set_composition`).
pub(crate) fn compose_or_interval(
    a: &Transform<Interval>,
    b: &Transform<Interval>,
) -> Transform<Interval> {
    compose(a, b).unwrap_or_else(|| a.compose(b))
}

/// The rotation rows of a turning constant-velocity motion over `t ∈ [0, 1]`
/// (`R(t) = cos(ωt) A + sin(ωt) B + C`, [`ConstantVelocity`]) as intervals, evaluated in
/// midpoint–radius form: `A = R₀ − u uᵀR₀`, `B = u × R₀` and `C = u uᵀR₀` in plain f64
/// from the stored `u`, `R₀`; the interval enclosures of `cos(ωt)` and `sin(ωt)` (the
/// same as [`Transform::from_motion`]'s) as `cm ± cr`, `sm ± sr` ([`mid_rad`]); each
/// entry `cm A + sm B + C ± (cr |A| + sr |B|)`, which holds `c A + s B + C` for every `c`,
/// `s` in the enclosures, widened by one rounding bound. Over the reals this is what
/// [`Transform::from_motion`] computes with interval `A`, `B`, `C` (an interval times a
/// point is `mid·x ± rad·|x|`; its `A`, `B`, `C` are the exact values widened by rounding),
/// so the entries agree up to rounding.
///
/// Rounding: each end `fl(mid ± rad)` is a tree over the inputs `u`, `R₀`, `cm`, `cr`,
/// `sm`, `sr` with at most 9 rounded operations per leaf (`uᵀR₀` 3, `C` 4, `A` 5, `cm A`
/// 6, two sums 8, `± rad` 9), so it is within `γ₉ T` of the exact end, where `T`, the
/// tree with absolute values, is at most `(|cm| + cr)(|R₀ᵢⱼ| + |uᵢ| Σₖ|uₖ||R₀ₖⱼ|) +
/// (|sm| + sr)(|u_a||R₀_bj| + |u_b||R₀_aj|) + |uᵢ| Σₖ|uₖ||R₀ₖⱼ| ≤ ρ (κ (1 + U + U²) + U²)`
/// with `ρ = max |R₀ᵢⱼ|`, `U = ‖u‖₁`, `κ = max(|cm| + cr, |sm| + sr)`. That bound, `T̂`,
/// is computed from non-negative terms with at most 7 roundings; the end moved out by
/// `err = 16 ε T̂ + f64::MIN_POSITIVE (1 + U)(1 + κ)` (`16 ε = 32 u`; the subnormal term
/// covers the products' absolute underflow errors, at most 2⁻¹⁰⁷⁵ each, multiplied
/// afterwards by at most `U κ`) and rounded once more stays outside: `err ≥ 32 u (1 − γ₈) T`
/// covers `γ₉ T + u (T + γ₉ T + err)`. `None` when an end is not finite (the caller
/// falls back to [`Transform::from_motion`]).
fn rotation_rows(m: &ConstantVelocity) -> Option<[[Interval; 3]; 3]> {
    let cos = <Interval as Enclosure>::cos_affine(m.angle(), 0.0, Interval::UNIT);
    let sin = <Interval as Enclosure>::sin_affine(m.angle(), 0.0, Interval::UNIT);
    let (cm, cr) = mid_rad(cos)?;
    let (sm, sr) = mid_rad(sin)?;
    let u = m.axis().to_array();
    let r0 = m.rotation();
    let cols = [
        r0.x_axis.to_array(),
        r0.y_axis.to_array(),
        r0.z_axis.to_array(),
    ];
    let big_u = (u[0].abs() + u[1].abs()) + u[2].abs();
    let rho = cols.iter().flatten().fold(0.0f64, |a, x| a.max(x.abs()));
    let kappa = (cm.abs() + cr).max(sm.abs() + sr);
    let t = rho * (kappa * ((1.0 + big_u) + big_u * big_u) + big_u * big_u);
    let err = 16.0 * f64::EPSILON * t + f64::MIN_POSITIVE * (1.0 + big_u) * (1.0 + kappa);
    // A, B, C in round-to-nearest f64, by the operations counted above (`uᵀR₀` summed
    // left to right, `C = u (uᵀR₀)`, `A = R₀ − C`, `B` as a cross product); its own radius
    // is not needed: the bound above covers those roundings
    let ([a, b, c], _) = m.abc_nearest()?;
    let mut rows = [[Interval::ZERO; 3]; 3];
    for j in 0..3 {
        for i in 0..3 {
            let (a, b, cc) = (a[i][j], b[i][j], c[i][j]);
            let mid = cm * a + sm * b + cc;
            let rad = cr * a.abs() + sr * b.abs();
            let (lo, hi) = (mid - rad - err, mid + rad + err);
            if !(lo.is_finite() && hi.is_finite()) {
                return None;
            }
            rows[i][j] = Interval::new(lo, hi);
        }
    }
    Some(rows)
}

/// The interval enclosure over `[0, 1]` of a link's or rigid body's motion: what
/// `RigidMotion::enclosure::<Interval>(Interval::UNIT)` gives (the centre frame's
/// constant-velocity motion, shifted by the body's rotation centre), with the rotation
/// entries of a turning motion from [`rotation_rows`] (translation and still motions as
/// [`Transform::from_motion`] builds them).
pub(crate) fn interval_enclosure(motion: &RigidMotion) -> Transform<Interval> {
    let m = motion.params();
    let unit = Interval::UNIT;
    let rows = if m.angle() == 0.0 {
        None
    } else {
        rotation_rows(m)
    };
    let centre = match rows {
        Some(rows) => {
            let t = |k: usize| {
                <Interval as Enclosure>::affine(m.translation()[k], m.displacement()[k], unit)
            };
            Transform {
                rotation: ccd_taylor::Mat3 { rows },
                translation: ccd_taylor::Vec3 {
                    x: t(0),
                    y: t(1),
                    z: t(2),
                },
            }
        }
        None => Transform::from_motion(m, unit),
    };
    let c = motion.local_center();
    if c == DVec3::ZERO {
        return centre;
    }
    // the body frame is the centre frame shifted by −c (exact: a negation)
    centre.compose(&Transform::constant(
        &glam::DAffine3::from_translation(-c),
        unit,
    ))
}

#[cfg(test)]
mod tests;
