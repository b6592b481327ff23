//! Fuzz target: `ccd_taylor::Interval` arithmetic. A program of up to 16 operations on four
//! registers holding intervals with endpoints anywhere in the `f64` range. Oracle after every
//! operation: no panic; no NaN endpoint and `lo <= hi`; finite operands of `+ − ×`, `sqr`,
//! `powi` give a result with a real point (`lo < +∞`, `hi > −∞`); and *containment*: for
//! sample points `x` of the operands (endpoints, midpoint, an interior point), the result
//! holds `f(x)` computed in `f64` — exact for the correctly rounded `+ − × / √` (an outward
//! enclosure of the real value holds its rounding), with a few ulps for `sin`, `cos`, `powi`.
#![no_main]

use arbitrary::Arbitrary;
use ccd_fuzz::Num;
use ccd_taylor::Interval;
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Clone, Copy, Debug)]
enum Op {
    Add(u8, u8),
    Sub(u8, u8),
    Mul(u8, u8),
    Div(u8, u8),
    CheckedDiv(u8, u8),
    Recip(u8),
    Neg(u8),
    Sqr(u8),
    Powi(u8, u8),
    Sqrt(u8),
    Sin(u8),
    Cos(u8),
    Hull(u8, u8),
    Intersection(u8, u8),
    AddF(u8, Num),
    SubF(u8, Num),
    MulF(u8, Num),
}

#[derive(Arbitrary, Debug)]
struct Input {
    registers: [(Num, Num); 4],
    /// Where in `[lo, hi]` the interior sample lies (`k / 255`).
    interior: u8,
    program: Vec<(Op, u8)>,
}

/// Finite sample points of an interval (all inside it; infinite endpoints are not real
/// numbers and are left out).
fn samples(x: Interval, interior: u8) -> Vec<f64> {
    let (lo, hi) = (x.lo(), x.hi());
    let mut s: Vec<f64> = [lo, hi].into_iter().filter(|v| v.is_finite()).collect();
    let mid = lo + (hi - lo) * 0.5;
    let inner = lo + (hi - lo) * (f64::from(interior) / 255.0);
    for v in [mid, lo * 0.5 + hi * 0.5, inner] {
        if v.is_finite() && lo <= v && v <= hi {
            s.push(v);
        }
    }
    s
}

/// `r` widened by `ulps` ulps on each side holds `v` (NaN `v`: nothing to check).
fn holds(r: Interval, v: f64, ulps: u32) -> bool {
    if v.is_nan() {
        return true;
    }
    let (mut lo, mut hi) = (r.lo(), r.hi());
    for _ in 0..ulps {
        lo = lo.next_down();
        hi = hi.next_up();
    }
    lo <= v && v <= hi
}

fn check_shape(r: Interval, what: &str) {
    assert!(
        !r.lo().is_nan() && !r.hi().is_nan(),
        "{what}: NaN endpoint in {r:?}"
    );
    assert!(r.lo() <= r.hi(), "{what}: lo > hi in {r:?}");
}

fuzz_target!(|input: Input| {
    let mut regs: Vec<Interval> = Vec::with_capacity(4);
    for (a, b) in input.registers {
        let Some(x) = Interval::try_new(a.value(), b.value()) else {
            return;
        };
        regs.push(x);
    }
    let k = input.interior;
    for (op, dst) in input.program.into_iter().take(16) {
        let r = |i: u8| regs[usize::from(i % 4)];
        // (result, what, samples of f at the operands' sample points, ulps, finite-result check)
        let binary = |x: Interval, y: Interval, f: &dyn Fn(f64, f64) -> f64| {
            let mut v = Vec::new();
            for a in samples(x, k) {
                for b in samples(y, k) {
                    v.push(f(a, b));
                }
            }
            v
        };
        let unary = |x: Interval, f: &dyn Fn(f64) -> f64| {
            samples(x, k).into_iter().map(f).collect::<Vec<_>>()
        };
        let (result, what, values, ulps, finite): (Option<Interval>, String, Vec<f64>, u32, bool) =
            match op {
                Op::Add(a, b) => (
                    Some(r(a) + r(b)),
                    format!("{:?} + {:?}", r(a), r(b)),
                    binary(r(a), r(b), &|x, y| x + y),
                    0,
                    r(a).is_finite() && r(b).is_finite(),
                ),
                Op::Sub(a, b) => (
                    Some(r(a) - r(b)),
                    format!("{:?} - {:?}", r(a), r(b)),
                    binary(r(a), r(b), &|x, y| x - y),
                    0,
                    r(a).is_finite() && r(b).is_finite(),
                ),
                Op::Mul(a, b) => (
                    Some(r(a) * r(b)),
                    format!("{:?} * {:?}", r(a), r(b)),
                    binary(r(a), r(b), &|x, y| x * y),
                    0,
                    r(a).is_finite() && r(b).is_finite(),
                ),
                Op::Div(a, b) => (
                    Some(r(a) / r(b)),
                    format!("{:?} / {:?}", r(a), r(b)),
                    binary(r(a), r(b), &|x, y| x / y),
                    0,
                    false,
                ),
                Op::CheckedDiv(a, b) => (
                    r(a).checked_div(r(b)).ok(),
                    format!("{:?}.checked_div({:?})", r(a), r(b)),
                    binary(r(a), r(b), &|x, y| x / y),
                    0,
                    false,
                ),
                Op::Recip(a) => (
                    r(a).recip().ok(),
                    format!("{:?}.recip()", r(a)),
                    unary(r(a), &|x| 1.0 / x),
                    0,
                    false,
                ),
                Op::Neg(a) => (
                    Some(-r(a)),
                    format!("-{:?}", r(a)),
                    unary(r(a), &|x| -x),
                    0,
                    false,
                ),
                Op::Sqr(a) => (
                    Some(r(a).sqr()),
                    format!("{:?}.sqr()", r(a)),
                    unary(r(a), &|x| x * x),
                    0,
                    r(a).is_finite(),
                ),
                Op::Powi(a, n) => {
                    let n = u32::from(n % 9);
                    (
                        Some(r(a).powi(n)),
                        format!("{:?}.powi({n})", r(a)),
                        unary(r(a), &|x| x.powi(n as i32)),
                        2 * n,
                        r(a).is_finite(),
                    )
                }
                Op::Sqrt(a) => (
                    r(a).sqrt().ok(),
                    format!("{:?}.sqrt()", r(a)),
                    unary(r(a), &|x| if x >= 0.0 { x.sqrt() } else { f64::NAN }),
                    0,
                    false,
                ),
                Op::Sin(a) => (
                    Some(r(a).sin()),
                    format!("{:?}.sin()", r(a)),
                    unary(r(a), &f64::sin),
                    2,
                    false,
                ),
                Op::Cos(a) => (
                    Some(r(a).cos()),
                    format!("{:?}.cos()", r(a)),
                    unary(r(a), &f64::cos),
                    2,
                    false,
                ),
                Op::Hull(a, b) => (
                    Some(r(a).hull(r(b))),
                    format!("{:?}.hull({:?})", r(a), r(b)),
                    [samples(r(a), k), samples(r(b), k)].concat(),
                    0,
                    false,
                ),
                Op::Intersection(a, b) => (
                    r(a).intersection(r(b)),
                    format!("{:?}.intersection({:?})", r(a), r(b)),
                    Vec::new(),
                    0,
                    false,
                ),
                Op::AddF(a, c) => {
                    let c = c.value();
                    (
                        Some(r(a) + c),
                        format!("{:?} + {c:e}", r(a)),
                        unary(r(a), &|x| x + c),
                        0,
                        r(a).is_finite() && c.is_finite(),
                    )
                }
                Op::SubF(a, c) => {
                    let c = c.value();
                    (
                        Some(r(a) - c),
                        format!("{:?} - {c:e}", r(a)),
                        unary(r(a), &|x| x - c),
                        0,
                        r(a).is_finite() && c.is_finite(),
                    )
                }
                Op::MulF(a, c) => {
                    let c = c.value();
                    (
                        Some(r(a) * c),
                        format!("{:?} * {c:e}", r(a)),
                        unary(r(a), &|x| x * c),
                        0,
                        r(a).is_finite() && c.is_finite(),
                    )
                }
            };
        let Some(result) = result else { continue };
        check_shape(result, &what);
        if finite {
            assert!(
                result.lo() < f64::INFINITY && result.hi() > f64::NEG_INFINITY,
                "{what} = {result:?} holds no real number"
            );
        }
        for v in values {
            assert!(holds(result, v, ulps), "{what} = {result:?} misses {v:e}");
        }
        regs[usize::from(dst % 4)] = result;
    }
});
