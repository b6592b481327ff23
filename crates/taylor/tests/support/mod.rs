//! Shared proptest strategies for the ccd-taylor property tests.
#![allow(dead_code, unreachable_pub)]

use ccd_taylor::glam::{DMat3, DQuat, DVec3};
use ccd_taylor::{ConstantVelocity, Enclosure, Interval};
use proptest::prelude::*;

/// A finite f64 of varied magnitude (including tiny and large values and exact zero).
pub fn scalar() -> impl Strategy<Value = f64> {
    prop_oneof![
        4 => -10.0..10.0f64,
        1 => -1e-6..1e-6f64,
        1 => -1e8..1e8f64,
        1 => Just(0.0),
    ]
}

/// An interval with a point inside it.
pub fn interval_with_point() -> impl Strategy<Value = (Interval, f64)> {
    (scalar(), scalar(), 0.0..=1.0f64).prop_map(|(a, b, s)| {
        let iv = Interval::spanning(a, b);
        let x = (iv.lo() + (iv.hi() - iv.lo()) * s).clamp(iv.lo(), iv.hi());
        (iv, x)
    })
}

/// A sub-interval of [0, 1] (possibly a point) with a time inside it.
pub fn domain_with_time() -> impl Strategy<Value = (Interval, f64)> {
    (0.0..=1.0f64, 0.0..=1.0f64, 0.0..=1.0f64).prop_map(|(a, b, s)| {
        let d = Interval::spanning(a, b);
        let t = (d.lo() + (d.hi() - d.lo()) * s).clamp(d.lo(), d.hi());
        (d, t)
    })
}

/// A unit vector.
pub fn unit_vector() -> impl Strategy<Value = DVec3> {
    (-1.0..1.0f64, 0.0..std::f64::consts::TAU).prop_map(|(z, phi)| {
        let r = (1.0 - z * z).sqrt();
        DVec3::new(r * phi.cos(), r * phi.sin(), z)
    })
}

/// A rotation matrix.
pub fn rotation() -> impl Strategy<Value = DMat3> {
    (unit_vector(), -3.2..3.2f64)
        .prop_map(|(axis, a)| DMat3::from_quat(DQuat::from_axis_angle(axis, a)))
}

/// A constant-velocity motion with rotation angle up to `max_angle` and offsets up to `reach`.
pub fn motion(max_angle: f64, reach: f64) -> impl Strategy<Value = ConstantVelocity> {
    (
        rotation(),
        unit_vector(),
        -max_angle..=max_angle,
        prop::array::uniform3(-reach..=reach),
        prop::array::uniform3(-reach..=reach),
    )
        .prop_map(|(r, u, w, c, s)| {
            ConstantVelocity::new(r, DVec3::from_array(c), u, w, DVec3::from_array(s))
                .expect("valid by construction")
        })
}

/// A small expression language over time, evaluated in any enclosure arithmetic.
#[derive(Clone, Debug)]
pub enum Expr {
    Const(f64),
    Time,
    Affine(f64, f64),
    Sin(f64, f64),
    Cos(f64, f64),
    Add(Box<Expr>, Box<Expr>),
    Sub(Box<Expr>, Box<Expr>),
    Mul(Box<Expr>, Box<Expr>),
    Scale(Box<Expr>, f64),
    Shift(Box<Expr>, f64),
    Neg(Box<Expr>),
}

impl Expr {
    /// The expression as an enclosure over the domain `d`.
    pub fn eval<E: Enclosure>(&self, d: Interval) -> E {
        match self {
            Expr::Const(c) => E::constant(*c, d),
            Expr::Time => E::time(d),
            Expr::Affine(a, b) => E::affine(*a, *b, d),
            Expr::Sin(w, p) => E::sin_affine(*w, *p, d),
            Expr::Cos(w, p) => E::cos_affine(*w, *p, d),
            Expr::Add(a, b) => a.eval::<E>(d) + b.eval::<E>(d),
            Expr::Sub(a, b) => a.eval::<E>(d) - b.eval::<E>(d),
            Expr::Mul(a, b) => a.eval::<E>(d) * b.eval::<E>(d),
            Expr::Scale(a, k) => a.eval::<E>(d) * *k,
            Expr::Shift(a, k) => a.eval::<E>(d) + *k,
            Expr::Neg(a) => -a.eval::<E>(d),
        }
    }
}
