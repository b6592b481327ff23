//! `ConstantVelocity::abc` (the matrices `A, B, C` of a constant-velocity rotation,
//! `R(t) = cos(ωt) A + sin(ωt) B + C`) encloses the exact values of its stored inputs,
//! checked in exact rational arithmetic on random motions; its round-to-nearest path
//! (`abc_nearest`, one error bound for all entries) would fail this without its radius.

use ccd_taylor::{ConstantVelocity, Interval};
use glam::{DMat3, DQuat, DVec3};
use num_rational::BigRational;
use proptest::prelude::*;

fn q(x: f64) -> BigRational {
    BigRational::from_float(x).expect("finite")
}

fn holds(iv: Interval, exact: &BigRational) -> bool {
    q(iv.lo()) <= *exact && *exact <= q(iv.hi())
}

/// `A, B, C` in exact rational arithmetic from the motion's stored axis and rotation.
fn exact_abc(m: &ConstantVelocity) -> [[[BigRational; 3]; 3]; 3] {
    let u = m.axis().to_array().map(q);
    let r = m.rotation();
    let cols = [r.x_axis, r.y_axis, r.z_axis].map(|c| c.to_array().map(q));
    let zero = || BigRational::from_integer(0.into());
    let mut out: [[[BigRational; 3]; 3]; 3] =
        std::array::from_fn(|_| std::array::from_fn(|_| std::array::from_fn(|_| zero())));
    for (j, col) in cols.iter().enumerate() {
        let ut_r = &u[0] * &col[0] + &u[1] * &col[1] + &u[2] * &col[2];
        for i in 0..3 {
            let c = &u[i] * &ut_r;
            out[0][i][j] = &col[i] - &c;
            out[2][i][j] = c;
        }
        out[1][0][j] = &u[1] * &col[2] - &u[2] * &col[1];
        out[1][1][j] = &u[2] * &col[0] - &u[0] * &col[2];
        out[1][2][j] = &u[0] * &col[1] - &u[1] * &col[0];
    }
    out
}

fn unit() -> impl Strategy<Value = DVec3> {
    prop_oneof![
        4 => (-1.0..1.0f64, -1.0..1.0f64, -1.0..1.0f64)
            .prop_filter("not tiny", |(x, y, z)| x * x + y * y + z * z > 1e-6)
            .prop_map(|(x, y, z)| DVec3::new(x, y, z).normalize()),
        1 => prop::sample::select(vec![DVec3::X, DVec3::Y, DVec3::Z, -DVec3::X, DVec3::new(0.6, 0.8, 0.0)]),
    ]
}

fn motion() -> impl Strategy<Value = ConstantVelocity> {
    (unit(), -4.0..4.0f64, unit(), -20.0..20.0f64, -1e3..1e3f64).prop_filter_map(
        "valid motion",
        |(qaxis, qangle, axis, angle, x)| {
            let rotation = DMat3::from_quat(DQuat::from_axis_angle(qaxis, qangle));
            ConstantVelocity::new(rotation, DVec3::new(x, -x, 0.5), axis, angle, DVec3::X).ok()
        },
    )
}

proptest! {
    #[test]
    fn abc_encloses_the_exact_matrices(m in motion()) {
        let got = m.abc();
        let exact = exact_abc(&m);
        for k in 0..3 {
            for i in 0..3 {
                for j in 0..3 {
                    prop_assert!(
                        holds(got[k][i][j], &exact[k][i][j]),
                        "matrix {k} entry ({i}, {j}): {:?} misses the exact value",
                        got[k][i][j]
                    );
                    // a few ulps wide at most (the bound is for entries of size ≤ ~3)
                    prop_assert!(got[k][i][j].width() < 1e-13);
                }
            }
        }
    }

    /// Without its radius the round-to-nearest path misses the exact value somewhere (so
    /// the test above can fail): some entry of most motions is not exact in f64.
    #[test]
    fn abc_nearest_values_alone_are_not_exact(ms in prop::collection::vec(motion(), 16)) {
        let mut missed = false;
        for m in &ms {
            let (v, rad) = m.abc_nearest().expect("finite motion");
            prop_assert!(rad > 0.0 && rad < 2e-14);
            let exact = exact_abc(m);
            for k in 0..3 {
                for i in 0..3 {
                    for j in 0..3 {
                        missed |= q(v[k][i][j]) != exact[k][i][j];
                    }
                }
            }
        }
        prop_assert!(missed);
    }
}
