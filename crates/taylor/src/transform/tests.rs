//! Unit tests of `transform`.

use super::*;
use crate::TaylorModel;

/// Chains with still, sliding and turning links, composed with constant factors on
/// either side (the scalar paths of `compose`), contain the f64 product at sampled
/// times, for Taylor models and intervals alike.
#[test]
fn compose_with_constant_rotations_contains_the_product() {
    let dom = Interval::UNIT;
    let rot = |axis: DVec3, a: f64| DMat3::from_axis_angle(axis.normalize(), a);
    let links = [
        // still (constant rotation and translation)
        ConstantVelocity::new(
            rot(DVec3::X, 0.4),
            DVec3::new(0.1, 0.2, 0.3),
            DVec3::Z,
            0.0,
            DVec3::ZERO,
        )
        .unwrap(),
        // turning
        ConstantVelocity::new(
            rot(DVec3::Y, -0.7),
            DVec3::new(0.0, 0.0, 0.5),
            DVec3::new(1.0, 2.0, -0.5).normalize(),
            1.3,
            DVec3::ZERO,
        )
        .unwrap(),
        // sliding (constant rotation, moving translation)
        ConstantVelocity::new(
            rot(DVec3::Z, 1.1),
            DVec3::new(0.3, -0.1, 0.0),
            DVec3::Z,
            0.0,
            DVec3::new(0.2, 0.4, -0.3),
        )
        .unwrap(),
        ConstantVelocity::new(
            rot(DVec3::new(1.0, 1.0, 0.0), 2.0),
            DVec3::new(0.0, 0.6, 0.0),
            DVec3::X,
            -2.1,
            DVec3::new(0.0, 0.1, 0.0),
        )
        .unwrap(),
        ConstantVelocity::new(
            rot(DVec3::Z, 0.0),
            DVec3::new(0.0, 0.0, 0.2),
            DVec3::Z,
            0.0,
            DVec3::ZERO,
        )
        .unwrap(),
    ];
    let p = DVec3::new(0.3, -0.2, 0.7);
    fn check<E: Enclosure>(links: &[ConstantVelocity], p: DVec3, dom: Interval) {
        let chain = links
            .iter()
            .map(|m| Transform::<E>::from_motion(m, dom))
            .fold(Transform::identity(dom), |a, m| a.compose(&m));
        let b = chain.apply(p).aabb();
        for k in 0..=100 {
            let t = f64::from(k) / 100.0;
            let exact = links
                .iter()
                .fold(DAffine3::IDENTITY, |a, m| a * m.pose_at(t))
                .transform_point3(p);
            let grown = Aabb::new(b.min - DVec3::splat(1e-12), b.max + DVec3::splat(1e-12));
            assert!(
                grown.contains_point(exact),
                "{} at {t}: {exact} outside {b:?}",
                E::NAME
            );
        }
    }
    check::<TaylorModel>(&links, p, dom);
    check::<Interval>(&links, p, dom);
    // the still link is recognised as constant and multiplied in with scalars
    let still = Transform::<TaylorModel>::from_motion(&links[0], dom);
    assert!(still.rotation.as_constant().is_some());
    let turning = Transform::<TaylorModel>::from_motion(&links[1], dom);
    assert!(turning.rotation.as_constant().is_none());
}

/// A constant signed permutation on the right moves and negates columns exactly: the
/// result lies inside the general product's enclosure entry by entry, and a matrix that
/// is not exactly a signed permutation takes the scalar products.
#[test]
fn signed_permutations_multiply_exactly() {
    let dom = Interval::UNIT;
    let m = ConstantVelocity::new(
        DMat3::from_axis_angle(DVec3::new(1.0, -2.0, 0.5).normalize(), 0.9),
        DVec3::ZERO,
        DVec3::new(0.3, 1.0, -0.4).normalize(),
        1.7,
        DVec3::ZERO,
    )
    .unwrap();
    let r = Transform::<TaylorModel>::from_motion(&m, dom).rotation;
    let d = [[0.0, 0.0, -1.0], [1.0, 0.0, 0.0], [0.0, -1.0, 0.0]];
    assert_eq!(
        signed_permutation(&d),
        Some([(1, true), (2, false), (0, false)])
    );
    let fast = r.mul_const_right(&d);
    let general = r.mul_mat(&Mat3::constant(
        DMat3::from_cols_array_2d(&[[0.0, 1.0, 0.0], [0.0, 0.0, -1.0], [-1.0, 0.0, 0.0]]),
        dom,
    ));
    for i in 0..3 {
        for j in 0..3 {
            let (f, g) = (fast.rows[i][j].bound(), general.rows[i][j].bound());
            assert!(
                g.contains_interval(&f),
                "entry {i} {j}: {f:?} not inside {g:?}"
            );
        }
    }
    assert_eq!(fast.rows[0][1], -r.rows[0][2]);
    let near = [[0.0, 0.0, -1.0], [1.0, 1e-17, 0.0], [0.0, -1.0, 0.0]];
    assert_eq!(signed_permutation(&near), None);
    assert_eq!(
        signed_permutation(&[[1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]),
        None
    );
}
