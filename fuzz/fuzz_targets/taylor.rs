//! Fuzz target: `ccd_taylor::TaylorModel` arithmetic. Leaves (constants, `t`, affine
//! functions, `sin`/`cos` of an affine argument) over one domain with endpoints anywhere in the
//! `f64` range, combined by a program of up to 12 operations on four registers (sums,
//! products, the fused `dot2` / `dot2_unit` of `Enclosure`). The modelled
//! function is tracked as an expression and evaluated in `f64` with a rigorous error bound
//! (`ev ± err`, standard rounding-error analysis, `u = 2⁻⁵³`). Oracle after every operation: no
//! panic; `bound()` has no NaN endpoint; and at sample times `t` of the domain, `bound()` and
//! `eval(t)` meet `[ev − err, ev + err]` (which holds the true value), i.e. the enclosure does
//! not provably miss the function.
#![no_main]

use arbitrary::Arbitrary;
use ccd_fuzz::Num;
use ccd_taylor::{Enclosure, Interval, TaylorModel};
use libfuzzer_sys::fuzz_target;

const U: f64 = f64::EPSILON / 2.0;

#[derive(Arbitrary, Clone, Copy, Debug)]
enum Leaf {
    Constant(Num),
    Time,
    Affine(Num, Num),
    Sin(Num, Num),
    Cos(Num, Num),
}

#[derive(Arbitrary, Clone, Copy, Debug)]
enum Op {
    Add(u8, u8),
    Sub(u8, u8),
    Mul(u8, u8),
    Neg(u8),
    AddF(u8, Num),
    MulF(u8, Num),
    /// `a·c + b·d` by `Enclosure::dot2`, or by `dot2_unit` when `a` and `b` are sines or
    /// cosines (or their negations: values in `[−1, 1]`, its premise).
    Dot2(u8, u8, u8, u8),
}

#[derive(Arbitrary, Debug)]
struct Input {
    domain: (Num, Num),
    leaves: [Leaf; 4],
    /// Interior sample positions (`k / 65535` of the domain).
    samples: [u16; 3],
    program: Vec<(Op, u8)>,
}

/// The modelled function, for the `f64` reference.
#[derive(Clone, Debug)]
enum Expr {
    Constant(f64),
    Affine(f64, f64),
    Sin(f64, f64),
    Cos(f64, f64),
    Add(Box<Expr>, Box<Expr>),
    Sub(Box<Expr>, Box<Expr>),
    Mul(Box<Expr>, Box<Expr>),
    Neg(Box<Expr>),
}

/// The number of nodes of `e`, counted up to `cap` (a `Dot2` copies four registers'
/// expressions: without a cap twelve of them make trees of 4¹² nodes, and the oracle's
/// evaluation, not the models, takes seconds).
fn size(e: &Expr, cap: usize) -> usize {
    match e {
        Expr::Constant(_) | Expr::Affine(..) | Expr::Sin(..) | Expr::Cos(..) => 1,
        Expr::Neg(a) => 1 + size(a, cap),
        Expr::Add(a, b) | Expr::Sub(a, b) | Expr::Mul(a, b) => {
            let n = 1 + size(a, cap);
            if n >= cap { n } else { n + size(b, cap - n) }
        }
    }
}

/// Expressions larger than this are not combined by `Dot2` (the largest a program of
/// binary operations alone builds: 2¹² leaves).
const DOT2_MAX_NODES: usize = 8192;

/// `(value, error bound)` of `e` at `t`, `None` when not finite.
fn eval(e: &Expr, t: f64) -> Option<(f64, f64)> {
    let r = match e {
        Expr::Constant(c) => (*c, 0.0),
        Expr::Affine(c0, c1) => {
            let v = c0 + c1 * t;
            (v, 2.0 * U * (c0.abs() + 2.0 * (c1 * t).abs()))
        }
        Expr::Sin(w, p) | Expr::Cos(w, p) => {
            let arg = w * t + p;
            let err = (2.0 * U * ((w * t).abs() * 2.0 + p.abs()) + 4.0 * U).min(2.0);
            let v = if matches!(e, Expr::Sin(..)) {
                arg.sin()
            } else {
                arg.cos()
            };
            (v, err)
        }
        Expr::Add(a, b) | Expr::Sub(a, b) => {
            let ((va, ea), (vb, eb)) = (eval(a, t)?, eval(b, t)?);
            let v = if matches!(e, Expr::Add(..)) {
                va + vb
            } else {
                va - vb
            };
            (v, (ea + eb + U * v.abs()) * (1.0 + 4.0 * U))
        }
        Expr::Mul(a, b) => {
            let ((va, ea), (vb, eb)) = (eval(a, t)?, eval(b, t)?);
            let v = va * vb;
            let err = va.abs() * eb + vb.abs() * ea + ea * eb + U * v.abs();
            (v, err * (1.0 + 8.0 * U) + f64::MIN_POSITIVE)
        }
        Expr::Neg(a) => {
            let (v, err) = eval(a, t)?;
            (-v, err)
        }
    };
    (r.0.is_finite() && r.1.is_finite()).then_some(r)
}

fn leaf(l: Leaf, domain: Interval) -> (TaylorModel, Expr) {
    match l {
        Leaf::Constant(c) => (
            TaylorModel::constant(c.value(), domain),
            Expr::Constant(c.value()),
        ),
        Leaf::Time => (TaylorModel::time(domain), Expr::Affine(0.0, 1.0)),
        Leaf::Affine(a, b) => (
            TaylorModel::affine(a.value(), b.value(), domain),
            Expr::Affine(a.value(), b.value()),
        ),
        Leaf::Sin(w, p) => (
            TaylorModel::sin_affine(w.value(), p.value(), domain),
            Expr::Sin(w.value(), p.value()),
        ),
        Leaf::Cos(w, p) => (
            TaylorModel::cos_affine(w.value(), p.value(), domain),
            Expr::Cos(w.value(), p.value()),
        ),
    }
}

/// The enclosure `e` provably misses the true value known to lie in `v ± err`.
fn misses(e: Interval, v: f64, err: f64) -> bool {
    e.hi() < v - err || e.lo() > v + err
}

fn check(m: &TaylorModel, expr: &Expr, times: &[f64]) {
    let b = m.bound();
    assert!(
        !b.lo().is_nan() && !b.hi().is_nan(),
        "bound() {b:?} has a NaN endpoint: {m:?}"
    );
    for &t in times {
        let Some((v, err)) = eval(expr, t) else {
            continue;
        };
        assert!(
            !misses(b, v, err),
            "bound() {b:?} misses f({t:e}) = {v:e} ± {err:e}: {m:?} for {expr:?}"
        );
        let at = m.eval(t);
        assert!(
            !misses(at, v, err),
            "eval({t:e}) {at:?} misses {v:e} ± {err:e}: {m:?} for {expr:?}"
        );
    }
}

fuzz_target!(|input: Input| {
    let Some(domain) = Interval::try_new(input.domain.0.value(), input.domain.1.value()) else {
        return;
    };
    let Ok(domain) = TaylorModel::check_domain(domain) else {
        return;
    };
    let (lo, hi) = (domain.lo(), domain.hi());
    let mut times = vec![lo, hi];
    for k in input.samples {
        let t = lo + (hi - lo) * (f64::from(k) / 65535.0);
        if t.is_finite() {
            times.push(t.clamp(lo, hi));
        }
    }
    let mut regs: Vec<(TaylorModel, Expr)> =
        input.leaves.iter().map(|&l| leaf(l, domain)).collect();
    for (m, e) in &regs {
        check(m, e, &times);
    }
    for (op, dst) in input.program.into_iter().take(12) {
        let r = |i: u8| regs[usize::from(i % 4)].clone();
        let (m, e) = match op {
            Op::Add(a, b) => {
                let ((ma, ea), (mb, eb)) = (r(a), r(b));
                (ma + mb, Expr::Add(Box::new(ea), Box::new(eb)))
            }
            Op::Sub(a, b) => {
                let ((ma, ea), (mb, eb)) = (r(a), r(b));
                (ma - mb, Expr::Sub(Box::new(ea), Box::new(eb)))
            }
            Op::Mul(a, b) => {
                let ((ma, ea), (mb, eb)) = (r(a), r(b));
                (ma * mb, Expr::Mul(Box::new(ea), Box::new(eb)))
            }
            Op::Neg(a) => {
                let (ma, ea) = r(a);
                (-ma, Expr::Neg(Box::new(ea)))
            }
            Op::AddF(a, c) => {
                let ((ma, ea), c) = (r(a), c.value());
                (ma + c, Expr::Add(Box::new(ea), Box::new(Expr::Constant(c))))
            }
            Op::MulF(a, c) => {
                let ((ma, ea), c) = (r(a), c.value());
                (ma * c, Expr::Mul(Box::new(ea), Box::new(Expr::Constant(c))))
            }
            Op::Dot2(a, b, c, d) => {
                let n: usize = [a, b, c, d]
                    .iter()
                    .map(|&i| size(&regs[usize::from(i % 4)].1, DOT2_MAX_NODES))
                    .sum();
                if n > DOT2_MAX_NODES {
                    continue;
                }
                let ((ma, ea), (mb, eb), (mc, ec), (md, ed)) = (r(a), r(b), r(c), r(d));
                let unit = |e: &Expr| match e {
                    Expr::Sin(..) | Expr::Cos(..) => true,
                    Expr::Neg(x) => matches!(**x, Expr::Sin(..) | Expr::Cos(..)),
                    _ => false,
                };
                let m = if unit(&ea) && unit(&eb) {
                    TaylorModel::dot2_unit([&ma, &mb], [&mc, &md])
                } else {
                    TaylorModel::dot2([&ma, &mb], [&mc, &md])
                };
                let e = Expr::Add(
                    Box::new(Expr::Mul(Box::new(ea), Box::new(ec))),
                    Box::new(Expr::Mul(Box::new(eb), Box::new(ed))),
                );
                (m, e)
            }
        };
        check(&m, &e, &times);
        regs[usize::from(dst % 4)] = (m, e);
    }
});
