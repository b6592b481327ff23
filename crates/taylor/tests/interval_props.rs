//! Interval operations contain the exact result for every choice of points (checked in
//! exact rational arithmetic where the operation is rational).

mod support;

use ccd_taylor::{Enclosure, Interval};
use num_rational::BigRational;
use proptest::prelude::*;
use support::interval_with_point;

fn q(x: f64) -> BigRational {
    BigRational::from_float(x).expect("finite")
}

fn holds(iv: Interval, exact: &BigRational) -> bool {
    (iv.lo() == f64::NEG_INFINITY || q(iv.lo()) <= *exact)
        && (iv.hi() == f64::INFINITY || *exact <= q(iv.hi()))
}

proptest! {
    #[test]
    fn add_sub_mul_contain_exact((a, x) in interval_with_point(), (b, y) in interval_with_point()) {
        let (qx, qy) = (q(x), q(y));
        prop_assert!(holds(a + b, &(&qx + &qy)), "{a:?} + {b:?} misses {x} + {y}");
        prop_assert!(holds(a - b, &(&qx - &qy)), "{a:?} - {b:?} misses {x} - {y}");
        prop_assert!(holds(a * b, &(&qx * &qy)), "{a:?} * {b:?} misses {x} * {y}");
        prop_assert!(holds(a * y, &(&qx * &qy)));
        prop_assert!(holds(-a, &(-&qx)));
        prop_assert!(holds(a.sqr(), &(&qx * &qx)));
        prop_assert!(holds(a.powi(3), &(&qx * &qx * &qx)));
        prop_assert!(holds(a.hull(b), &qx) && holds(a.hull(b), &qy));
        if let Some(i) = a.intersection(b) {
            prop_assert!(i.lo() >= a.lo().max(b.lo()) && i.hi() <= a.hi().min(b.hi()));
        } else {
            prop_assert!(!a.overlaps(&b));
        }
    }

    #[test]
    fn div_contains_exact_or_errors((a, x) in interval_with_point(), (b, y) in interval_with_point()) {
        match a.checked_div(b) {
            Ok(r) => {
                prop_assert!(!b.contains(0.0));
                prop_assert!(holds(r, &(q(x) / q(y))), "{a:?} / {b:?} misses {x} / {y}");
            }
            Err(_) => {
                prop_assert!(b.contains(0.0));
                prop_assert_eq!(a / b, Interval::ENTIRE);
            }
        }
    }

    #[test]
    fn sqrt_contains_exact((a, x) in interval_with_point()) {
        match a.sqrt() {
            Ok(r) => {
                prop_assert!(r.lo() >= 0.0);
                if x >= 0.0 {
                    // lo² <= x <= hi² exactly
                    let (lo, hi) = (q(r.lo()), q(r.hi()));
                    let qx = q(x);
                    prop_assert!(&lo * &lo <= qx && qx <= &hi * &hi, "sqrt {a:?} = {r:?} misses sqrt({x})");
                }
            }
            Err(_) => prop_assert!(a.hi() < 0.0),
        }
    }

    #[test]
    fn sin_cos_contain_samples((a, x) in interval_with_point()) {
        let (s, c) = (a.sin(), a.cos());
        prop_assert!(s.contains(x.sin()), "sin {a:?} = {s:?} misses sin({x}) = {}", x.sin());
        prop_assert!(c.contains(x.cos()), "cos {a:?} = {c:?} misses cos({x}) = {}", x.cos());
        prop_assert!(s.lo() >= -1.0 && s.hi() <= 1.0 && c.lo() >= -1.0 && c.hi() <= 1.0);
        // endpoints are attained values (tight): the range is never wider than needed by
        // more than the rounding slack, unless it contains an extremum
        if a.width() < 1e-3 && a.mag() < 1e3 {
            let spread = (a.lo().sin() - a.hi().sin()).abs();
            prop_assert!(s.width() <= spread + 1e-12 || s.hi() == 1.0 || s.lo() == -1.0);
        }
    }

    #[test]
    fn width_midpoint_contains((a, x) in interval_with_point()) {
        prop_assert!(a.contains(x));
        prop_assert!(a.contains(a.midpoint()));
        prop_assert!(a.width() >= a.hi() - a.lo());
        let w = q(a.hi()) - q(a.lo());
        prop_assert!(q(a.width()) >= w);
        prop_assert!(a.mag() >= x.abs() && a.mig() <= x.abs());
    }

    /// The fused sums of interval products (matrix rows, rotation entries; one outward
    /// rounding per sum) contain the exact sum for every choice of points, also with
    /// subnormal and huge operands.
    #[test]
    fn fused_dot3_contains_exact(
        ab in prop::collection::vec(wide_interval_with_point(), 7),
        x in prop::array::uniform3(wide_scalar()),
        with_c in any::<bool>(),
    ) {
        let (iv, pt): (Vec<Interval>, Vec<f64>) = ab.into_iter().unzip();
        let c = with_c.then_some(&iv[6]);
        let qc = if with_c { q(pt[6]) } else { q(0.0) };
        let d = <Interval as Enclosure>::dot3([&iv[0], &iv[1], &iv[2]], [&iv[3], &iv[4], &iv[5]], c);
        let exact = (0..3).fold(qc.clone(), |s, k| s + q(pt[k]) * q(pt[k + 3]));
        prop_assert!(holds(d, &exact), "dot3 {d:?} misses the exact sum of {pt:?}");
        let e = <Interval as Enclosure>::dot3_const([&iv[0], &iv[1], &iv[2]], x, c);
        let exact = (0..3).fold(qc, |s, k| s + q(pt[k]) * q(x[k]));
        prop_assert!(holds(e, &exact), "dot3_const {e:?} misses the exact sum of {pt:?}, {x:?}");
        let f = <Interval as Enclosure>::lin2_interval(&iv[0], iv[1], &iv[2], iv[3], iv[4]);
        let exact = q(pt[0]) * q(pt[1]) + q(pt[2]) * q(pt[3]) + q(pt[4]);
        prop_assert!(holds(f, &exact), "lin2_interval {f:?} misses the exact sum of {pt:?}");
    }
}

/// A finite f64 from the whole range: [`support::scalar`]'s, subnormal and huge ones.
fn wide_scalar() -> impl Strategy<Value = f64> {
    prop_oneof![
        4 => support::scalar(),
        1 => -1e-306..1e-306f64,
        1 => -1e-320..1e-320f64,
        1 => -1e300..1e300f64,
    ]
}

/// An interval of [`wide_scalar`] ends with a point inside it.
fn wide_interval_with_point() -> impl Strategy<Value = (Interval, f64)> {
    (wide_scalar(), wide_scalar(), 0.0..=1.0f64).prop_map(|(a, b, s)| {
        let iv = Interval::spanning(a, b);
        let x = (iv.lo() + (iv.hi() - iv.lo()) * s).clamp(iv.lo(), iv.hi());
        (iv, x)
    })
}

#[test]
fn rational_oracle_detects_a_missed_rounding() {
    // The oracle itself must be able to fail: an interval rounded to nearest only
    // ([0.1 + 0.2, 0.1 + 0.2]) does not contain the exact sum of 0.1 and 0.2.
    let nearest = Interval::point(0.1 + 0.2);
    assert!(!holds(nearest, &(q(0.1) + q(0.2))));
    assert!(holds(
        Interval::point(0.1) + Interval::point(0.2),
        &(q(0.1) + q(0.2))
    ));
}
