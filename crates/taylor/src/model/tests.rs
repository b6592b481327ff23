//! Unit tests of the Taylor model: exactness, bounds, remainders, domains.

use super::*;
use crate::TaylorError;

#[test]
fn time_and_constant_are_exact() {
    let d = Interval::new(0.25, 0.75);
    let t = TaylorModel::time(d);
    assert_eq!(t.remainder(), Interval::ZERO);
    assert_eq!(t.coefficients(), [0.5, 1.0, 0.0, 0.0]);
    let b = t.bound();
    assert!(b.contains(0.25) && b.contains(0.75) && b.width() < 0.5 + 1e-12);
}

#[test]
fn cubic_bound_finds_interior_extrema() {
    // (t − 0.5)³ − 0.1 (t − 0.5) on [0, 1]: extrema at ±sqrt(1/30)
    let f = TaylorModel::from_parts([0.0, -0.1, 0.0, 1.0], Interval::ZERO, Interval::UNIT).unwrap();
    let b = f.bound();
    let s = (1.0f64 / 30.0).sqrt();
    let ext = s * s * s - 0.1 * s;
    assert!(b.contains(ext) && b.contains(-ext) && b.contains(0.125 - 0.05));
    assert!(b.hi() <= 0.075 + 1e-12 && b.lo() >= -0.075 - 1e-12);
}

#[test]
fn product_remainder_holds_high_terms() {
    let d = Interval::UNIT;
    let t = TaylorModel::time(d);
    let t6 = t * t * t * t * t * t;
    for i in 0..=100 {
        let x = f64::from(i) / 100.0;
        assert!(t6.eval(x).contains(x.powi(6)), "t^6 at {x}");
    }
    assert!(t6.bound().contains(1.0) && t6.bound().contains(0.0));
}

#[test]
fn restrict_rejects_outside() {
    let f = TaylorModel::time(Interval::UNIT);
    assert!(matches!(
        f.restrict(Interval::new(0.5, 1.5)),
        Err(TaylorError::NotASubdomain { .. })
    ));
}

#[test]
fn mismatched_domains_give_the_unbounded_model() {
    let f = TaylorModel::time(Interval::UNIT);
    let g = TaylorModel::time(Interval::new(0.0, 0.5));
    for h in [f + g, f - g, f * g] {
        assert_eq!(h.bound(), Interval::ENTIRE);
        assert_eq!(h.domain(), Interval::UNIT);
    }
    assert!(f.try_mul(g).is_err() && f.try_sub(g).is_err());
}

#[test]
fn point_domain_drops_overflowing_high_coefficients() {
    let d = Interval::ZERO;
    let f = TaylorModel::sin_affine(1e300, 0.5, d);
    assert_eq!(f.radius, 0.0);
    let b = (f * f).bound();
    let exact = Interval::point(0.5).sin().sqr();
    assert!(b.overlaps(&exact) && b.width() < 1e-12, "{b:?}");
}

#[test]
fn inverse_binade_brings_magnitudes_near_one() {
    for m in [
        1e-310,
        f64::MIN_POSITIVE,
        1e-120,
        3.0,
        1e120,
        1e300,
        f64::MAX,
    ] {
        let x = m * inverse_binade(m);
        assert!((2f64.powi(-51)..4.0).contains(&x), "{m:e} -> {x:e}");
    }
}
