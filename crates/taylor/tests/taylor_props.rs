//! Taylor models enclose the functions they model: for random models and random `t` in the
//! domain, a rigorous point enclosure of the true value (interval arithmetic on the closed
//! form at `[t, t]`) meets `bound()` and `eval(t)`. Includes 10-link chains of random
//! rigid motions, the case where interval arithmetic blows up.

mod support;

use ccd_taylor::glam::{DMat3, DVec3};
use ccd_taylor::{CentredCorners, ConstantVelocity, Enclosure, Interval, TaylorModel, Transform};
use proptest::prelude::*;
use support::{Expr, domain_with_time, motion};

fn expr() -> impl Strategy<Value = Expr> {
    let leaf = prop_oneof![
        (-5.0..5.0f64).prop_map(Expr::Const),
        Just(Expr::Time),
        (-5.0..5.0f64, -5.0..5.0f64).prop_map(|(a, b)| Expr::Affine(a, b)),
        (-4.0..4.0f64, -4.0..4.0f64).prop_map(|(w, p)| Expr::Sin(w, p)),
        (-4.0..4.0f64, -4.0..4.0f64).prop_map(|(w, p)| Expr::Cos(w, p)),
    ];
    leaf.prop_recursive(4, 24, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::Add(Box::new(a), Box::new(b))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::Sub(Box::new(a), Box::new(b))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::Mul(Box::new(a), Box::new(b))),
            (inner.clone(), -3.0..3.0f64).prop_map(|(a, k)| Expr::Scale(Box::new(a), k)),
            inner.prop_map(|a| Expr::Neg(Box::new(a))),
        ]
    })
}

/// Rigorous enclosure of the true value at `t`.
fn truth(e: &Expr, t: f64) -> Interval {
    e.eval::<Interval>(Interval::point(t))
}

proptest! {
    #[test]
    fn taylor_model_encloses_expression(e in expr(), (d, t) in domain_with_time(), sub in 0.0..=1.0f64) {
        let tm: TaylorModel = e.eval(d);
        let exact = truth(&e, t);
        let b = tm.bound();
        prop_assert!(b.overlaps(&exact), "{e:?} on {d:?}: bound {b:?} misses {exact:?} at t={t}");
        let at = tm.eval(t);
        prop_assert!(at.overlaps(&exact), "{e:?}: eval({t}) = {at:?} misses {exact:?}");
        // the interval enclosure also holds
        let iv: Interval = e.eval(d);
        prop_assert!(iv.overlaps(&exact));
        // restriction to a sub-domain holding t still encloses
        let lo = d.lo() + (t - d.lo()) * sub;
        let r = tm.restrict(Interval::new(lo, t)).expect("inside");
        prop_assert!(r.bound().overlaps(&exact), "restricted bound {:?} misses {exact:?}", r.bound());
    }

    #[test]
    fn fused_sums_enclose_the_products(
        es in prop::collection::vec(expr(), 7),
        x in prop::array::uniform3(-3.0..3.0f64),
        scale in prop_oneof![Just(1.0), Just(1e-160), Just(1e-320), Just(1e150), Just(1e300)],
        addend in any::<bool>(),
        (d, t) in domain_with_time(),
    ) {
        // three products (and an addend) fused into one model, against the rigorous point
        // enclosures of the factors at t; scaled constants reach underflow and overflow
        let m: Vec<TaylorModel> = es.iter().map(|e| e.eval(d)).collect();
        let tv: Vec<Interval> = es.iter().map(|e| truth(e, t)).collect();
        let c = addend.then_some(&m[6]);
        let plus = |s: Interval| if addend { s + tv[6] } else { s };
        let f = <TaylorModel as Enclosure>::dot3([&m[0], &m[1], &m[2]], [&m[3], &m[4], &m[5]], c);
        let exact = plus(tv[0] * tv[3] + tv[1] * tv[4] + tv[2] * tv[5]);
        prop_assert!(f.bound().overlaps(&exact), "dot3 bound {:?} misses {exact:?}", f.bound());
        prop_assert!(f.eval(t).overlaps(&exact), "dot3 eval {:?} misses {exact:?}", f.eval(t));
        let x = x.map(|v| v * scale);
        let g = <TaylorModel as Enclosure>::dot3_const([&m[0], &m[1], &m[2]], x, c);
        let exact = plus(tv[0] * Interval::point(x[0]) + tv[1] * Interval::point(x[1]) + tv[2] * Interval::point(x[2]));
        prop_assert!(g.bound().overlaps(&exact), "dot3_const bound {:?} misses {exact:?}", g.bound());
        prop_assert!(g.eval(t).overlaps(&exact), "dot3_const eval {:?} misses {exact:?}", g.eval(t));
        // f a + g b + c with uncertain constants (a rotation entry cos A + sin B + C)
        let k = |v: f64| Interval::new(v * scale, (v + 0.25) * scale);
        let (ka, kb, kc) = (k(x[0] / scale), k(x[1] / scale), k(x[2] / scale));
        let h = <TaylorModel as Enclosure>::lin2_interval(&m[0], ka, &m[1], kb, kc);
        let exact = tv[0] * ka + tv[1] * kb + kc;
        prop_assert!(h.bound().overlaps(&exact), "lin2 bound {:?} misses {exact:?}", h.bound());
        prop_assert!(h.eval(t).overlaps(&exact), "lin2 eval {:?} misses {exact:?}", h.eval(t));
    }

    #[test]
    fn cubic_bounds_hold_at_every_scale(
        c in prop::array::uniform4(-1.0..1.0f64),
        scales in prop::array::uniform4(prop_oneof![Just(1.0), Just(1e-3), Just(1e3), Just(1e-200), Just(1e-310), Just(1e200), Just(1e305)]),
        (d, _t) in domain_with_time(),
    ) {
        // monotone and non-monotone cubics (the cheap monotone range and the exact search)
        let c = [c[0] * scales[0], c[1] * scales[1], c[2] * scales[2], c[3] * scales[3]];
        let f = TaylorModel::from_parts(c, Interval::ZERO, d).expect("finite");
        let b = f.bound();
        let m = f.expansion_point();
        for i in 0..=200 {
            let t = (d.lo() + (d.hi() - d.lo()) * f64::from(i) / 200.0).clamp(d.lo(), d.hi());
            let s = Interval::point(t) - m;
            let v = ((Interval::point(c[3]) * s + c[2]) * s + c[1]) * s + c[0];
            prop_assert!(b.overlaps(&v), "{c:?} on {d:?}: bound {b:?} misses {v:?} at {t}");
        }
    }

    #[test]
    fn trig_models_are_tight(w in -4.0..4.0f64, p in -4.0..4.0f64, (d, _t) in domain_with_time()) {
        let tm = TaylorModel::sin_affine(w, p, d);
        // Lagrange bound: |R| <= |w h|^4 / 24 plus rounding
        let h = (d.hi() - d.lo()) / 2.0;
        let lagrange = (w * h).abs().powi(4) / 24.0;
        prop_assert!(tm.remainder().mag() <= lagrange * (1.0 + 1e-12) + 1e-14, "{:?} vs {lagrange}", tm.remainder());
        // the bound is not much wider than the true range, sampled
        let samples = (0..=200).map(|i| (d.lo() + (d.hi() - d.lo()) * f64::from(i) / 200.0) * w + p);
        let (mn, mx) = samples.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| (a.min(x.sin()), b.max(x.sin())));
        let b = tm.bound();
        prop_assert!(b.lo() <= mn + 1e-12 && b.hi() >= mx - 1e-12);
        // polynomial within ±R of f, plus R itself: at most 2R past the range on each side
        prop_assert!(b.width() <= (mx - mn) + 4.0 * lagrange + 1e-3 * (w * h).abs() + 1e-12, "{b:?} vs [{mn}, {mx}]");
    }

    #[test]
    fn ten_link_chain_encloses_point(links in prop::collection::vec(motion(0.8, 1.0), 10), p in prop::array::uniform3(-1.0..1.0f64), (d, t) in domain_with_time()) {
        let p = DVec3::from_array(p);
        let chain = |dom: Interval| -> (Transform<TaylorModel>, Transform<Interval>) {
            let tm = links.iter().map(|m| Transform::<TaylorModel>::from_motion(m, dom)).fold(Transform::identity(dom), |a, m| a.compose(&m));
            let iv = links.iter().map(|m| Transform::<Interval>::from_motion(m, dom)).fold(Transform::identity(dom), |a, m| a.compose(&m));
            (tm, iv)
        };
        let (tm, iv) = chain(d);
        let exact = links.iter().map(|m| Transform::<Interval>::from_motion(m, Interval::point(t))).fold(Transform::identity(Interval::point(t)), |a, m| a.compose(&m)).apply(p).bound();
        let (bt, bi) = (tm.apply(p).bound(), iv.apply(p).bound());
        for k in 0..3 {
            prop_assert!(bt[k].overlaps(&exact[k]), "taylor axis {k}: {:?} misses {:?}", bt[k], exact[k]);
            prop_assert!(bi[k].overlaps(&exact[k]), "interval axis {k}: {:?} misses {:?}", bi[k], exact[k]);
        }
        let at = tm.apply(p).eval(t);
        for k in 0..3 {
            prop_assert!(at[k].overlaps(&exact[k]));
        }
        // the f64 closed form agrees with the point enclosure
        let pose = links.iter().fold(ccd_taylor::glam::DAffine3::IDENTITY, |a, m| a * m.pose_at(t));
        let q = pose.transform_point3(p);
        for k in 0..3 {
            prop_assert!((q[k] - exact[k].midpoint()).abs() <= 1e-9 * (1.0 + q[k].abs()));
        }
    }

    #[test]
    fn corner_boxes_enclose_the_corners_and_sit_inside_the_full_box(
        links in prop::collection::vec(motion(1.5, 1.0), 1..7),
        frame in support::rotation(),
        centre in prop::array::uniform3(-1.0..1.0f64),
        half in prop::array::uniform3(0.0..0.5f64),
        jitter in prop::array::uniform24(-0.05..0.05f64),
        (d, _t) in domain_with_time(),
    ) {
        // eight points ordered as box corners (bit j: upper side of axis j), moved a little
        // so that they do not quite form a box
        let corners: [DVec3; 8] = std::array::from_fn(|k| {
            let s = DVec3::new(
                if k & 1 == 0 { -1.0 } else { 1.0 },
                if k & 2 == 0 { -1.0 } else { 1.0 },
                if k & 4 == 0 { -1.0 } else { 1.0 },
            );
            let off = DVec3::new(jitter[3 * k], jitter[3 * k + 1], jitter[3 * k + 2]);
            DVec3::from_array(centre) + frame * (s * DVec3::from_array(half)) + off
        });
        fn check<E: ccd_taylor::Enclosure>(links: &[ConstantVelocity], corners: &[DVec3; 8], d: Interval) -> Result<(), TestCaseError> {
            let chain = links.iter().map(|m| Transform::<E>::from_motion(m, d)).fold(Transform::identity(d), |a, m| a.compose(&m));
            let fast = chain.aabb_of_corners(corners);
            let all = chain.aabb_of_points(corners.iter().copied());
            let centred = chain.aabb_of_centred(&CentredCorners::new(corners).expect("finite"));
            // the same corner enclosures, a subset of them: inside the full box, exactly
            prop_assert!(fast.min.cmpge(all.min).all() && fast.max.cmple(all.max).all(), "{} {fast:?} outside {all:?}", E::NAME);
            // every corner at 41 times of the domain (rigorous point enclosures) is inside
            for i in 0..=40 {
                let t = (d.lo() + (d.hi() - d.lo()) * f64::from(i) / 40.0).clamp(d.lo(), d.hi());
                let at = links.iter().map(|m| Transform::<Interval>::from_motion(m, Interval::point(t))).fold(Transform::identity(Interval::point(t)), |a, m| a.compose(&m));
                for p in corners {
                    let q = at.apply(*p).bound();
                    for (k, q) in q.iter().enumerate() {
                        prop_assert!(q.hi() >= fast.min[k] && q.lo() <= fast.max[k], "{} corner {p} at {t}: axis {k} {q:?} outside {fast:?}", E::NAME);
                        prop_assert!(q.hi() >= centred.min[k] && q.lo() <= centred.max[k], "{} corner {p} at {t}: axis {k} {q:?} outside the centred box {centred:?}", E::NAME);
                    }
                }
            }
            Ok(())
        }
        check::<TaylorModel>(&links, &corners, d)?;
        check::<Interval>(&links, &corners, d)?;
    }
}

/// A hinge: a frame `R₀` turning by up to `max_angle` about its own axis `±e_k`, tilted by
/// `tilt` radians away from it (0: exactly the coordinate axis up to rounding; small: the
/// `D` bound of `compose_motion` at work; large: its general path), at a random offset
/// that may slide.
fn hinge(max_angle: f64) -> impl Strategy<Value = (ConstantVelocity, f64)> {
    (
        prop_oneof![
            support::rotation().prop_map(|r| (r, None)),
            // a URDF-like joint frame: quarter turns (computed, so not exactly a signed
            // permutation) and then the joint's start angle about its own axis
            (0usize..3, 0u32..4, 0usize..3, 0u32..4, -3.5..3.5f64)
                .prop_map(|(a, na, b, nb, q0)| (DMat3::IDENTITY, Some((a, na, b, nb, q0)))),
        ],
        0usize..3,
        any::<bool>(),
        prop_oneof![Just(0.0), 1e-12..1e-6f64, 0.5..1.5f64],
        support::unit_vector(),
        -max_angle..=max_angle,
        prop::array::uniform3(-1.0..=1.0f64),
        prop_oneof![Just([0.0; 3]), prop::array::uniform3(-1.0..=1.0f64)],
    )
        .prop_map(|((r, urdf), k, neg, tilt, w, angle, c, s)| {
            let mut e = DVec3::ZERO;
            e[k] = if neg { -1.0 } else { 1.0 };
            let quarter = |axis: usize, n: u32| {
                let mut u = DVec3::ZERO;
                u[axis] = 1.0;
                DMat3::from_axis_angle(u, f64::from(n) * std::f64::consts::FRAC_PI_2)
            };
            let r = match urdf {
                Some((a, na, b, nb, q0)) => {
                    quarter(a, na) * quarter(b, nb) * DMat3::from_axis_angle(e, q0)
                }
                None => r,
            };
            let tilted = ccd_taylor::glam::DQuat::from_axis_angle(
                e.cross(w)
                    .try_normalize()
                    .unwrap_or(e.any_orthonormal_vector()),
                tilt,
            ) * e;
            let m = ConstantVelocity::new(
                r,
                DVec3::from_array(c),
                r * tilted,
                angle,
                DVec3::from_array(s),
            )
            .expect("valid by construction");
            (m, tilt)
        })
}

proptest! {
    /// `compose_motion` encloses the chain as `compose(from_motion)` does: rigorous point
    /// enclosures at `t` meet its boxes, and with the axis on a coordinate axis its boxes
    /// are not wider than the general product's (beyond rounding).
    #[test]
    fn compose_motion_encloses_hinge_chains(
        parents in prop::collection::vec(motion(0.8, 1.0), 1..4),
        hinges in prop::collection::vec(hinge(3.5), 1..5),
        p in prop::array::uniform3(-1.0..1.0f64),
        (d, t) in domain_with_time(),
    ) {
        let p = DVec3::from_array(p);
        // every hinge on its coordinate axis, or tilted so far that the general path runs
        let plain = hinges.iter().all(|h| h.1 == 0.0 || h.1 >= 0.5);
        let hinges: Vec<ConstantVelocity> = hinges.into_iter().map(|h| h.0).collect();
        fn chains<E: Enclosure>(parents: &[ConstantVelocity], hinges: &[ConstantVelocity], d: Interval) -> (Transform<E>, Transform<E>) {
            let base = parents.iter().map(|m| Transform::<E>::from_motion(m, d)).fold(Transform::identity(d), |a, m| a.compose(&m));
            let fast = hinges.iter().fold(base, |a, m| a.compose_motion(m, d));
            let slow = hinges.iter().fold(base, |a, m| a.compose(&Transform::from_motion(m, d)));
            (fast, slow)
        }
        let pt = Interval::point(t);
        let exact = parents.iter().chain(&hinges).map(|m| Transform::<Interval>::from_motion(m, pt)).fold(Transform::identity(pt), |a, m| a.compose(&m)).apply(p).bound();
        let (tf, ts) = chains::<TaylorModel>(&parents, &hinges, d);
        let (iff, _) = chains::<Interval>(&parents, &hinges, d);
        let (bf, bs, bi) = (tf.apply(p).bound(), ts.apply(p).bound(), iff.apply(p).bound());
        let at = tf.apply(p).eval(t);
        for k in 0..3 {
            prop_assert!(bf[k].overlaps(&exact[k]), "taylor axis {k}: {:?} misses {:?}", bf[k], exact[k]);
            prop_assert!(at[k].overlaps(&exact[k]), "taylor eval axis {k}: {:?} misses {:?}", at[k], exact[k]);
            prop_assert!(bi[k].overlaps(&exact[k]), "interval axis {k}: {:?} misses {:?}", bi[k], exact[k]);
            // on coordinate axes (no tilt, or a tilt the general path takes) not much wider
            // than the general product: the D bound is rounding-sized there
            if plain {
                prop_assert!(bf[k].width() <= bs[k].width() * 1.5 + 1e-9, "axis {k}: {:?} vs general {:?}", bf[k], bs[k]);
            }
        }
    }
}

#[test]
fn taylor_beats_interval_on_a_long_chain() {
    // 10 links rotating 15° each about z, link length 1: interval boxes blow up.
    let dom = Interval::UNIT;
    let m = ConstantVelocity::new(
        ccd_taylor::glam::DMat3::IDENTITY,
        DVec3::X,
        DVec3::Z,
        15f64.to_radians(),
        DVec3::ZERO,
    )
    .unwrap();
    let tm = (0..10)
        .map(|_| Transform::<TaylorModel>::from_motion(&m, dom))
        .fold(Transform::identity(dom), |a, b| a.compose(&b));
    let iv = (0..10)
        .map(|_| Transform::<Interval>::from_motion(&m, dom))
        .fold(Transform::identity(dom), |a, b| a.compose(&b));
    let (bt, bi) = (tm.apply(DVec3::ZERO).aabb(), iv.apply(DVec3::ZERO).aabb());
    let truth = ccd_taylor::Aabb::from_points((0..=2000).map(|i| {
        let t = f64::from(i) / 2000.0;
        (0..10)
            .fold(ccd_taylor::glam::DAffine3::IDENTITY, |a, _| {
                a * m.pose_at(t)
            })
            .transform_point3(DVec3::ZERO)
    }));
    let area = |b: ccd_taylor::Aabb| b.extents().x * b.extents().y;
    assert!(bt.contains(&truth) && bi.contains(&truth));
    assert!(
        area(bt) < 1.5 * area(truth),
        "taylor {bt:?} vs sampled {truth:?}"
    );
    assert!(
        area(bi) > 1.5 * area(bt),
        "interval {bi:?} vs taylor {bt:?}"
    );
}
