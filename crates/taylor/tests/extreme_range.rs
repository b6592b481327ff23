//! Interval and Taylor-model operations across the whole f64 range (±MAX, subnormals, ±0,
//! ±∞, NaN): no panic, no NaN endpoint, `lo <= hi` with a real in between, and the exact
//! result contained — checked in exact rational arithmetic for `+ − × ÷ √` on finite
//! points, by sampled points for `sin`/`cos`, and by a rigorous point evaluation for
//! Taylor models.

mod support;

use ccd_taylor::{Interval, TaylorModel};
use num_rational::BigRational;
use proptest::prelude::*;
use support::Expr;

const INF: f64 = f64::INFINITY;

fn q(x: f64) -> BigRational {
    BigRational::from_float(x).expect("finite")
}

/// The `Interval` invariant: a non-empty set of reals.
fn valid(iv: Interval) -> bool {
    iv.lo() <= iv.hi() && iv.lo() < INF && iv.hi() > -INF
}

fn holds(iv: Interval, exact: &BigRational) -> bool {
    (iv.lo() == -INF || q(iv.lo()) <= *exact) && (iv.hi() == INF || *exact <= q(iv.hi()))
}

/// Any f64, weighted towards the edges of the range.
fn any_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        3 => proptest::num::f64::ANY,
        2 => prop::sample::select(vec![
            0.0, -0.0, f64::MAX, -f64::MAX, f64::MIN_POSITIVE, -f64::MIN_POSITIVE,
            5e-324, -5e-324, INF, -INF, f64::NAN, 1.0, -1.0, 1e153, -1e154, 1e300, 1e-300,
            1.0e50, -1.0e50, 0.5, f64::from_bits(0x000f_ffff_ffff_ffff), // largest subnormal
        ]),
        // every binade with equal weight, both signs
        3 => (any::<bool>(), 0u64..(1 << 52), 0u64..2047).prop_map(|(neg, m, e)| {
            let x = f64::from_bits((e << 52) | m);
            if neg { -x } else { x }
        }),
        2 => -10.0..10.0f64,
    ]
}

/// A finite point of `iv` (`s` in [0, 1] picks where; 0 and 1 pick the ends).
fn point_in(iv: Interval, s: f64) -> f64 {
    let lo = iv.lo().max(-f64::MAX);
    let hi = iv.hi().min(f64::MAX);
    (lo * (1.0 - s) + hi * s).clamp(lo, hi)
}

/// An interval built from two arbitrary f64 (through the total `Interval::new`) with a
/// finite point inside.
fn interval_with_point() -> impl Strategy<Value = (Interval, f64)> {
    let s = prop_oneof![Just(0.0), Just(1.0), 0.0..=1.0f64];
    (any_f64(), any_f64(), s).prop_map(|(a, b, s)| {
        let iv = Interval::new(a, b);
        (iv, point_in(iv, s))
    })
}

/// The finite value a scalar operand stands for (`Interval::point` of it contains it).
fn representative(y: f64) -> f64 {
    if y.is_nan() {
        0.0
    } else {
        y.clamp(-f64::MAX, f64::MAX)
    }
}

proptest! {
    #[test]
    fn construction_is_total(a in any_f64(), b in any_f64()) {
        let iv = Interval::new(a, b);
        prop_assert!(valid(iv), "new({a:e}, {b:e}) = {iv:?}");
        for x in [a, b] {
            if x.is_finite() {
                prop_assert!(iv.contains(x));
            }
        }
        prop_assert!(valid(Interval::point(a)) && Interval::point(a).contains(representative(a)));
        prop_assert!(valid(Interval::symmetric(a)) && valid(Interval::spanning(a, b)));
        match Interval::try_new(a, b) {
            Some(t) => prop_assert!(valid(t) && t.lo() == a && t.hi() == b),
            None => prop_assert!(!(a <= b && a < INF && b > -INF)),
        }
    }

    #[test]
    fn binary_ops_contain_the_exact_result((a, x) in interval_with_point(), (b, y) in interval_with_point()) {
        let (qx, qy) = (q(x), q(y));
        for (name, r, exact) in [
            ("+", a + b, &qx + &qy),
            ("-", a - b, &qx - &qy),
            ("*", a * b, &qx * &qy),
        ] {
            prop_assert!(valid(r), "{a:?} {name} {b:?} = {r:?}");
            prop_assert!(holds(r, &exact), "{a:?} {name} {b:?} = {r:?} misses {x:e} {name} {y:e}");
        }
        match a.checked_div(b) {
            Ok(r) => {
                prop_assert!(valid(r) && !b.contains(0.0));
                prop_assert!(holds(r, &(&qx / &qy)), "{a:?} / {b:?} = {r:?} misses {x:e} / {y:e}");
            }
            Err(_) => prop_assert!(b.contains(0.0) && a / b == Interval::ENTIRE),
        }
        let h = a.hull(b);
        prop_assert!(valid(h) && h.contains(x) && h.contains(y));
        if let Some(i) = a.intersection(b) {
            prop_assert!(valid(i) && a.contains_interval(&i) && b.contains_interval(&i));
        } else {
            prop_assert!(!a.overlaps(&b));
        }
    }

    #[test]
    fn scalar_ops_contain_the_exact_result((a, x) in interval_with_point(), y in any_f64()) {
        let (qx, qy) = (q(x), q(representative(y)));
        for (name, r, exact) in [
            ("+", a + y, &qx + &qy),
            ("-", a - y, &qx - &qy),
            ("*", a * y, &qx * &qy),
        ] {
            prop_assert!(valid(r), "{a:?} {name} {y:e} = {r:?}");
            prop_assert!(holds(r, &exact), "{a:?} {name} {y:e} = {r:?} misses {x:e} {name} {y:e}");
        }
    }

    #[test]
    fn unary_ops_contain_the_exact_result((a, x) in interval_with_point(), n in 0u32..8) {
        let qx = q(x);
        prop_assert!(valid(-a) && holds(-a, &(-&qx)));
        let s = a.sqr();
        prop_assert!(valid(s) && s.lo() >= 0.0 && holds(s, &(&qx * &qx)), "{a:?}² = {s:?}");
        let p = a.powi(n);
        let mut xn = q(1.0);
        for _ in 0..n {
            xn = &xn * &qx;
        }
        prop_assert!(valid(p) && holds(p, &xn), "{a:?}^{n} = {p:?} misses {x:e}^{n}");
        match a.sqrt() {
            Ok(r) => {
                prop_assert!(valid(r) && r.lo() >= 0.0);
                if x >= 0.0 {
                    let below = &q(r.lo()) * &q(r.lo()) <= qx;
                    let above = r.hi() == INF || qx <= &q(r.hi()) * &q(r.hi());
                    prop_assert!(below && above, "sqrt {a:?} = {r:?} misses sqrt({x:e})");
                }
            }
            Err(_) => prop_assert!(a.hi() < 0.0),
        }
        let (sn, cs) = (a.sin(), a.cos());
        prop_assert!(valid(sn) && valid(cs));
        prop_assert!(sn.contains(x.sin()), "sin {a:?} = {sn:?} misses sin({x:e})");
        prop_assert!(cs.contains(x.cos()), "cos {a:?} = {cs:?} misses cos({x:e})");
        prop_assert!(a.width() >= 0.0 && (a.width() == INF || q(a.width()) >= q(a.hi()) - q(a.lo())));
        prop_assert!(a.contains(a.midpoint()) && a.midpoint().is_finite());
        prop_assert!(a.mag() >= x.abs() && a.mig() <= x.abs());
        if let Ok(r) = a.recip() {
            prop_assert!(valid(r) && (x == 0.0 || holds(r, &(q(1.0) / &qx))));
        }
    }
}

// ---- Taylor models ----

/// A domain: usually inside [0, 1], sometimes a point, a subnormal sliver, the edge of the
/// proven range, or anything at all (out of range, infinite).
fn domain_with_time() -> impl Strategy<Value = (Interval, f64)> {
    let d = prop_oneof![
        4 => (0.0..=1.0f64, 0.0..=1.0f64).prop_map(|(a, b)| Interval::new(a, b)),
        1 => (0.0..=1.0f64).prop_map(Interval::point),
        1 => (0.0..=1.0f64).prop_map(|a| Interval::new(a, a + 5e-324)),
        1 => (-1.0..=1.0f64, -1.0..=1.0f64).prop_map(|(a, b)| Interval::new(a * TaylorModel::MAX_DOMAIN, b * TaylorModel::MAX_DOMAIN)),
        2 => (any_f64(), any_f64()).prop_map(|(a, b)| Interval::new(a, b)),
    ];
    let s = prop_oneof![Just(0.0), Just(1.0), Just(0.5), 0.0..=1.0f64];
    (d, s).prop_map(|(d, s)| (d, point_in(d, s)))
}

fn extreme_expr() -> impl Strategy<Value = Expr> {
    let leaf = prop_oneof![
        any_f64().prop_map(Expr::Const),
        Just(Expr::Time),
        (any_f64(), any_f64()).prop_map(|(a, b)| Expr::Affine(a, b)),
        (any_f64(), -4.0..4.0f64).prop_map(|(w, p)| Expr::Sin(w, p)),
        (-4.0..4.0f64, any_f64()).prop_map(|(w, p)| Expr::Cos(w, p)),
        (-4.0..4.0f64, -4.0..4.0f64).prop_map(|(w, p)| Expr::Sin(w, p)),
    ];
    leaf.prop_recursive(3, 16, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::Add(Box::new(a), Box::new(b))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::Sub(Box::new(a), Box::new(b))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::Mul(Box::new(a), Box::new(b))),
            (inner.clone(), any_f64()).prop_map(|(a, k)| Expr::Scale(Box::new(a), k)),
            (inner.clone(), any_f64()).prop_map(|(a, k)| Expr::Shift(Box::new(a), k)),
            inner.prop_map(|a| Expr::Neg(Box::new(a))),
        ]
    })
}

proptest! {
    #[test]
    fn taylor_models_enclose_extreme_expressions(e in extreme_expr(), (d, t) in domain_with_time(), sub in 0.0..=1.0f64) {
        let tm: TaylorModel = e.eval(d);
        prop_assert!(tm.coefficients().iter().all(|c| c.is_finite()), "{e:?} on {d:?}: {tm:?}");
        prop_assert!(valid(tm.remainder()));
        let b = tm.bound();
        prop_assert!(valid(b), "{e:?} on {d:?}: bound {b:?}");
        // a rigorous enclosure of the true value at t
        let exact: Interval = e.eval(Interval::point(t));
        prop_assert!(valid(exact));
        prop_assert!(b.overlaps(&exact), "{e:?} on {d:?}: bound {b:?} misses {exact:?} at t = {t:e}");
        let at = tm.eval(t);
        prop_assert!(valid(at) && at.overlaps(&exact), "{e:?} on {d:?}: eval({t:e}) = {at:?} misses {exact:?}");
        let r = tm.restrict(Interval::new(point_in(Interval::new(d.lo(), t), sub), t)).expect("inside");
        prop_assert!(valid(r.bound()) && r.bound().overlaps(&exact), "restricted {:?} misses {exact:?}", r.bound());
        // interval and model operations stay valid with any scalar
        prop_assert!(valid(tm.mul_interval(exact).bound()) && valid(tm.add_interval(exact).bound()));
    }

    #[test]
    fn mismatched_domains_never_panic(e in extreme_expr(), (d1, t) in domain_with_time(), (d2, _) in domain_with_time()) {
        let (f, g): (TaylorModel, TaylorModel) = (e.eval(d1), e.eval(d2));
        let exact: Interval = e.eval(Interval::point(t));
        for h in [f + g, f - g, f * g] {
            prop_assert!(valid(h.bound()) && valid(h.eval(t)));
            if d1 == d2 {
                prop_assert!(f.try_add(g).is_ok());
            } else {
                prop_assert_eq!(h.bound(), Interval::ENTIRE);
                prop_assert!(f.try_add(g).is_err() && f.try_mul(g).is_err());
            }
        }
        // (f + g) with g = f on one domain encloses 2 f(t)
        if d1 == d2 {
            prop_assert!((f + g).bound().overlaps(&(exact * 2.0)));
        }
    }

    #[test]
    fn huge_sine_bound_contains_samples(c in any_f64(), w in -8.0..8.0f64, p in -4.0..4.0f64, (d, t) in domain_with_time()) {
        let f = TaylorModel::sin_affine(w, p, d) * c;
        let b = f.bound();
        let exact = (Interval::point(t) * w + p).sin() * c;
        prop_assert!(valid(b) && b.overlaps(&exact), "{c:e} sin({w} t + {p}) on {d:?}: {b:?} misses {exact:?} at {t:e}");
    }
}
