//! Regression tests for the `Interval` and `TaylorModel` findings of the robustness issue
//! (14): each reproduction, named after what broke, with the behaviour that replaced it.

use ccd_taylor::{Interval, TaylorError, TaylorModel};

const INF: f64 = f64::INFINITY;
const MAX: f64 = f64::MAX;

/// The `Interval` invariant: a non-empty set of reals.
fn valid(iv: Interval) -> bool {
    iv.lo() <= iv.hi() && iv.lo() < INF && iv.hi() > -INF
}

#[test]
fn interval_new_with_reversed_ends_does_not_panic() {
    // was a debug-assert panic (and a reversed interval in release)
    let iv = Interval::new(2.0, 1.0);
    assert_eq!((iv.lo(), iv.hi()), (1.0, 2.0));
    assert!(Interval::try_new(2.0, 1.0).is_none());
    assert_eq!(Interval::spanning(2.0, 1.0), iv);
    for (a, b) in [(f64::NAN, 1.0), (1.0, f64::NAN), (f64::NAN, f64::NAN)] {
        assert_eq!(Interval::new(a, b), Interval::ENTIRE);
        assert!(Interval::try_new(a, b).is_none());
    }
    let up = Interval::new(INF, INF);
    assert_eq!((up.lo(), up.hi()), (MAX, INF));
    let down = Interval::new(-INF, -INF);
    assert_eq!((down.lo(), down.hi()), (-INF, -MAX));
    assert!(Interval::try_new(INF, INF).is_none() && Interval::try_new(-INF, -INF).is_none());
    assert_eq!(Interval::symmetric(-3.0), Interval::new(-3.0, 3.0));
    assert_eq!(Interval::symmetric(f64::NAN), Interval::ENTIRE);
    assert_eq!(Interval::point(f64::NAN), Interval::ENTIRE);
    for iv in [up, down, Interval::point(INF), Interval::point(-INF)] {
        assert!(valid(iv), "{iv:?}");
    }
}

#[test]
fn overflowing_interval_arithmetic_keeps_a_real_inside() {
    // [MAX, MAX] + [MAX, MAX] was [inf, inf], which contains no real
    let m = Interval::point(MAX);
    let cases = [
        m + m,
        m * m,
        m * 2.0,
        m + MAX,
        m.sqr(),
        m.powi(3),
        m / Interval::point(0.5),
        m.checked_div(Interval::point(f64::MIN_POSITIVE)).unwrap(),
    ];
    for r in cases {
        assert!(valid(r), "{r:?}");
        assert_eq!(r.lo(), MAX, "{r:?}: the lower bound stays finite");
        assert_eq!(r.hi(), INF);
    }
    for r in [-m - m, -m * m, (-m) * 2.0, -m - MAX, (-m).powi(3)] {
        assert!(valid(r), "{r:?}");
        assert_eq!((r.lo(), r.hi()), (-INF, -MAX), "{r:?}");
    }
}

#[test]
fn entire_minus_negative_infinity_has_no_nan() {
    // [-inf, inf] - [-inf, -inf] had NaN endpoints
    let neg = Interval::new(-INF, -INF);
    let cases = [
        Interval::ENTIRE - neg,
        Interval::ENTIRE + neg,
        neg - neg,
        neg * neg,
        Interval::ENTIRE * Interval::ENTIRE,
        Interval::ENTIRE * 0.0,
        Interval::ENTIRE - INF,
        Interval::ENTIRE + f64::NAN,
        Interval::new(0.0, 2.0) * f64::NAN,
        Interval::new(-INF, 0.0) + INF,
        Interval::point(INF) - INF,
        Interval::new(1.0, INF) / Interval::new(1.0, INF),
        Interval::ENTIRE.sqr(),
        Interval::ENTIRE.sin(),
    ];
    for r in cases {
        assert!(valid(r), "{r:?}");
    }
    assert_eq!(Interval::ENTIRE - neg, Interval::ENTIRE);
    assert_eq!(Interval::new(0.0, 2.0) * f64::NAN, Interval::ENTIRE);
    assert!(
        (Interval::new(1.0, INF) / Interval::new(1.0, INF))
            .contains_interval(&Interval::new(0.0, 1e300))
    );
}

#[test]
fn bound_finds_interior_extremum_of_huge_sine() {
    // c · sin(3t) peaks at t = π/6, off the midpoint of [0.3, 0.6]; the bound missed the
    // peak once |c| >= 1e154 (b² − 4ac overflowed in the critical-point formula: the old
    // code gave hi = 0.977 c for c = 1e154, 1e200 and 1e300)
    let peak = std::f64::consts::FRAC_PI_6;
    let cs = [
        1.0, 1e152, 1e153, 1e154, 1e200, 1e300, -1e300, MAX, 1e-300, 5e-324,
    ];
    for dom in [Interval::new(0.3, 0.6), Interval::UNIT] {
        for c in cs {
            let f = TaylorModel::sin_affine(3.0, 0.0, dom) * c;
            let b = f.bound();
            assert!(valid(b), "c = {c:e}: {b:?}");
            for t in [dom.lo(), peak, dom.hi()] {
                let exact = (Interval::point(t) * 3.0).sin() * c;
                assert!(
                    b.overlaps(&exact),
                    "c = {c:e} on {dom:?}: {b:?} misses {exact:?} at t = {t}"
                );
            }
            // and not grossly loose: within the model's remainder of the true range
            if (1e-200..1e300).contains(&c.abs()) {
                assert!(b.width() <= 3.0 * c.abs(), "c = {c:e}: {b:?}");
            }
        }
    }
}

#[test]
fn adding_models_over_different_domains_does_not_panic() {
    // was an assert_eq panic inside `+`
    let f = TaylorModel::sin_affine(1.0, 0.0, Interval::UNIT);
    let g = TaylorModel::time(Interval::new(0.0, 0.5));
    for h in [f + g, f - g, f * g, g + f] {
        assert_eq!(h.bound(), Interval::ENTIRE);
        assert!(valid(h.eval(0.25)));
    }
    assert_eq!(
        f.try_add(g),
        Err(TaylorError::DomainMismatch(
            Interval::UNIT,
            Interval::new(0.0, 0.5)
        ))
    );
    assert!(f.try_sub(g).is_err() && f.try_mul(g).is_err());
    assert!(f.try_mul(f).is_ok());
}

#[test]
fn huge_frequency_product_on_a_point_domain_has_no_nan() {
    // cos_affine(1e300, …) * sin_affine(…) on [0, 0] built Interval::new(NaN, NaN)
    let d = Interval::new(0.0, 0.0);
    for phi in [0.0, 0.3, -2.0] {
        let f = TaylorModel::cos_affine(1e300, phi, d) * TaylorModel::sin_affine(1e300, phi, d);
        let b = f.bound();
        let exact = Interval::point(phi).cos() * Interval::point(phi).sin();
        assert!(valid(b) && b.overlaps(&exact), "{b:?} vs {exact:?}");
        // on a point domain the overflowing higher coefficients do not matter
        assert!(b.width() < 1e-12, "{b:?}");
        assert!(f.eval(0.0).overlaps(&exact));
    }
    for w in [INF, -INF, f64::NAN, MAX] {
        let f = TaylorModel::cos_affine(w, 0.1, d) * TaylorModel::sin_affine(w, 0.1, d);
        assert!(valid(f.bound()) && valid(f.eval(0.0)), "{f:?}");
    }
}

#[test]
fn wide_domain_gives_no_nan_enclosure() {
    // [-1e300, 1e300] gave NaN enclosures; such domains are now out of the proven range:
    // a typed error where checked, and plain interval arithmetic from the infallible
    // constructors
    let d = Interval::new(-1e300, 1e300);
    assert_eq!(
        TaylorModel::check_domain(d),
        Err(TaylorError::InvalidDomain(d))
    );
    assert!(TaylorModel::from_parts([0.0; 4], Interval::ZERO, d).is_err());
    let t = TaylorModel::time(d);
    let f = t * t + TaylorModel::sin_affine(2.0, 0.1, d) * 3.0 - TaylorModel::affine(1.0, 2.0, d);
    let b = f.bound();
    assert!(valid(b), "{b:?}");
    for x in [-1e300, -1.0, 0.0, 0.5, 1.5e299, 1e300] {
        let tx = Interval::point(x);
        let exact = tx.sqr() + (tx * 2.0 + 0.1).sin() * 3.0 - (tx * 2.0 + 1.0);
        assert!(b.overlaps(&exact), "bound {b:?} misses {exact:?} at {x:e}");
        assert!(f.eval(x).overlaps(&exact), "eval misses at {x:e}");
    }
    // restricting to the unit step gives a real Taylor model again
    let g = TaylorModel::sin_affine(2.0, 0.1, d)
        .restrict(Interval::UNIT)
        .unwrap();
    assert!(valid(g.bound()) && g.bound().contains(0.1f64.sin()));
    for d in [
        Interval::new(0.0, INF),
        Interval::ENTIRE,
        Interval::new(MAX, INF),
        Interval::new(-MAX, MAX),
    ] {
        let f = TaylorModel::time(d) * TaylorModel::cos_affine(1.0, 0.0, d) + 1.0;
        assert!(valid(f.bound()) && valid(f.eval(1.0)), "{d:?}: {f:?}");
        assert!(TaylorModel::check_domain(d).is_err());
    }
    // the edge of the range is accepted and stays finite
    let edge = Interval::new(-TaylorModel::MAX_DOMAIN, TaylorModel::MAX_DOMAIN);
    assert!(TaylorModel::check_domain(edge).is_ok());
    let e = TaylorModel::time(edge) * TaylorModel::time(edge);
    assert!(e.bound().is_finite() && e.bound().contains(1e100));
}

#[test]
fn constant_velocity_with_nan_parameters_is_an_error() {
    // its public fields once let a NaN reach glam (a panic inside `from_axis_angle`); the
    // fields are private and `new` (which `Deserialize` goes through) rejects it
    use ccd_taylor::ConstantVelocity;
    use ccd_taylor::glam::{DMat3, DVec3};
    let ok = |r: DMat3, t: DVec3, u: DVec3, w: f64, d: DVec3| ConstantVelocity::new(r, t, u, w, d);
    assert!(ok(DMat3::IDENTITY, DVec3::ZERO, DVec3::Z, 1.0, DVec3::X).is_ok());
    let nan = DVec3::new(0.0, f64::NAN, 0.0);
    for r in [
        ok(DMat3::IDENTITY, DVec3::ZERO, DVec3::Z, f64::NAN, DVec3::X),
        ok(DMat3::IDENTITY, nan, DVec3::Z, 1.0, DVec3::X),
        ok(DMat3::IDENTITY, DVec3::ZERO, nan, 1.0, DVec3::X),
        ok(DMat3::IDENTITY, DVec3::ZERO, DVec3::Z, 1.0, nan),
        ok(
            DMat3::from_cols(nan, DVec3::Y, DVec3::Z),
            DVec3::ZERO,
            DVec3::Z,
            1.0,
            DVec3::X,
        ),
    ] {
        assert!(matches!(r, Err(TaylorError::InvalidMotion(_))), "{r:?}");
    }
}

#[test]
fn products_whose_terms_underflow_keep_their_rounding_allowance() {
    // fuzz finding (taylor target, 10-minute run of this session): over a domain of radius
    // ~4.8e32, `(c t⁶)²` with `c = 3.9e-265` has coefficient products that underflow to 0;
    // their degrees got no rounding allowance, yet the error of an underflowed product is
    // multiplied by h^k ≈ 1e197 in the enclosure, and `bound()` missed f(b) = 1.04e-133
    let (a, b) = (95.37109375, 9.671777938928819e32);
    let dom = Interval::new(a, b);
    let t = TaylorModel::time(dom);
    let t3 = t * (t * t);
    let t6 = t3 * t3;
    let c = 3.9343947233582947e-265;
    let g = t6 * TaylorModel::constant(c, dom);
    let f = g * g;
    // f(b) = (c b⁶)², evaluated in f64 (relative error ~1e-15, far below the miss of 10%)
    let fb = (c * b.powi(6)).powi(2);
    let fa = (c * a.powi(6)).powi(2);
    assert!(fb > 1e-133 && fb.is_finite());
    for (x, fx) in [(a, fa), (b, fb)] {
        let lo = fx * (1.0 - 1e-12);
        let hi = fx * (1.0 + 1e-12);
        for iv in [f.bound(), f.eval(x)] {
            assert!(
                iv.lo() <= lo && iv.hi() >= hi,
                "{iv:?} misses f({x:e}) = {fx:e}"
            );
        }
    }
}
