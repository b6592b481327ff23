//! The rigid motion bound is a true upper bound of the projected motion: for random motions,
//! directions and points within the radius, the sampled `∫ |v·n|` never exceeds it; and the
//! Taylor/interval enclosures contain the sampled positions.

use ccd_kinematics::RigidMotion;
use ccd_kinematics::glam::{DAffine3, DQuat, DVec3};
use ccd_taylor::{Interval, TaylorModel};
use proptest::prelude::*;

fn unit() -> impl Strategy<Value = DVec3> {
    (-1.0..1.0f64, 0.0..std::f64::consts::TAU).prop_map(|(z, p)| {
        let r = (1.0 - z * z).sqrt();
        DVec3::new(r * p.cos(), r * p.sin(), z)
    })
}

fn pose() -> impl Strategy<Value = DAffine3> {
    (unit(), -3.1..3.1f64, prop::array::uniform3(-3.0..3.0f64)).prop_map(|(a, w, c)| {
        DAffine3::from_rotation_translation(DQuat::from_axis_angle(a, w), DVec3::from_array(c))
    })
}

/// `∫ₜ¹ |v·n|` by the midpoint rule on 2000 steps (an under-estimate is impossible to
/// exceed by more than the rule's error, which is tiny for these smooth motions).
fn sampled(m: &RigidMotion, x: DVec3, n: DVec3, t: f64) -> f64 {
    let steps = 2000;
    let h = (1.0 - t) / steps as f64;
    (0..steps)
        .map(|k| m.velocity_of(x, t + (k as f64 + 0.5) * h).dot(n).abs() * h)
        .sum()
}

proptest! {
    #[test]
    fn bound_exceeds_sampled_projected_motion(a in pose(), b in pose(), n in unit(), dir in unit(), frac in 0.0..=1.0f64, t in 0.0..1.0f64) {
        let m = RigidMotion::between(a, b).unwrap();
        let r = 1.5;
        let x = a.matrix3.transpose() * (dir * r * frac); // a local point within radius r
        let mu = m.motion_bound(n, r, t);
        let s = sampled(&m, x, n, t);
        prop_assert!(s <= mu * (1.0 + 1e-6) + 1e-9, "sampled {s} > bound {mu}");
        // the displacement along n can never exceed the bound either
        let d = (m.point_at(x, 1.0) - m.point_at(x, t)).dot(n).abs();
        prop_assert!(d <= mu + 1e-9);
    }

    #[test]
    fn enclosures_contain_sampled_positions(a in pose(), b in pose(), x in prop::array::uniform3(-1.0..1.0f64), lo in 0.0..1.0f64, w in 0.0..1.0f64) {
        let m = RigidMotion::between(a, b).unwrap();
        let x = DVec3::from_array(x);
        let dom = Interval::new(lo, lo + (1.0 - lo) * w);
        let bt = m.enclosure::<TaylorModel>(dom).unwrap().apply(x).aabb().inflate(1e-12);
        let bi = m.enclosure::<Interval>(dom).unwrap().apply(x).aabb().inflate(1e-12);
        for k in 0..=50 {
            let t = dom.lo() + (dom.hi() - dom.lo()) * k as f64 / 50.0;
            let p = m.point_at(x, t);
            prop_assert!(bt.contains_point(p), "taylor box misses t={t}");
            prop_assert!(bi.contains_point(p), "interval box misses t={t}");
        }
    }
}

#[test]
fn signed_bound_would_miss_but_absolute_does_not() {
    // A bar spinning 170° about z: the far end moves towards -n and back. A signed bound
    // (v·n without |·|) can be ≤ 0 although points do approach along n.
    let end = DAffine3::from_quat(DQuat::from_rotation_z(170f64.to_radians()));
    let m = RigidMotion::between(DAffine3::IDENTITY, end).unwrap();
    let n = DVec3::Y;
    let x = DVec3::X; // tip at radius 1
    let approach = (0..=1000)
        .map(|k| m.point_at(x, k as f64 / 1000.0).y)
        .fold(f64::NEG_INFINITY, f64::max);
    assert!(approach > 0.9);
    assert!(m.motion_bound(n, 1.0, 0.0) >= approach);
    assert!(m.linear_velocity().dot(n) <= 0.0); // the signed linear term alone says "no motion"
}
