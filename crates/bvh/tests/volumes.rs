//! Property tests of the bounding volumes: containment, conservative overlap, distance lower
#![allow(clippy::needless_range_loop)] // brute-force references index pairs
//! bounds against brute force, transforms and merges.

mod support;

use ccd_bvh::geometry::Aabb;
use ccd_bvh::glam::{DAffine3, DMat3, DVec3};
use ccd_bvh::{BoundingVolume, Kdop18, Obb, Rss, Sphere};
use proptest::prelude::*;
use support::strategies::{cloud, point, pose};
use support::{min_point_distance, scale};

fn check_volume<B: BoundingVolume>(
    p: &[DVec3],
    q: &[DVec3],
    pos12: &DAffine3,
) -> Result<(), TestCaseError> {
    let name = std::any::type_name::<B>();
    let tol = 1e-9 * (scale(p) + scale(q) + pos12.translation.length());
    let a = B::fit_points(p);
    let b = B::fit_points(q);
    for x in p {
        prop_assert!(a.contains_point(*x, tol), "{name}: fit misses {x:?}");
        prop_assert!(
            a.aabb().inflate(tol).contains_point(*x),
            "{name}: aabb misses {x:?}"
        );
        prop_assert!(
            x.distance(a.center()) <= a.size() + tol,
            "{name}: size too small"
        );
    }
    // distance lower bound never exceeds the true distance between contents
    let true_d = min_point_distance(p, q, pos12);
    let lb = a.distance_lower_bound(&b, pos12);
    prop_assert!(lb >= 0.0);
    prop_assert!(
        lb <= true_d + tol,
        "{name}: lower bound {lb} > true {true_d}"
    );
    // a positive lower bound means no overlap is possible, and vice versa consistency
    if lb > tol {
        prop_assert!(
            !a.overlaps(&b, pos12) || lb <= tol,
            "{name}: overlaps but lb={lb}"
        );
    }
    if !a.overlaps(&b, pos12) {
        prop_assert!(true_d > 0.0, "{name}: separated but contents touch");
    }
    // transform by a pose: contains the moved points
    let moved = b.transformed(pos12);
    for x in q {
        prop_assert!(
            moved.contains_point(pos12.transform_point3(*x), tol),
            "{name}: transformed misses"
        );
    }
    // merge contains both
    let m = a.merge(&moved);
    for x in p
        .iter()
        .copied()
        .chain(q.iter().map(|x| pos12.transform_point3(*x)))
    {
        prop_assert!(m.contains_point(x, tol), "{name}: merge misses {x:?}");
    }
    // refit keeps containment
    let r = a.refit_points(q);
    for x in q {
        prop_assert!(r.contains_point(*x, tol), "{name}: refit misses");
    }
    Ok(())
}

/// `pos12` moved so that point `q[j]` lands exactly on `p[i]` (contents touch): every volume
/// must report an overlap and a zero lower bound.
fn check_touching<B: BoundingVolume>(
    p: &[DVec3],
    q: &[DVec3],
    pos12: &DAffine3,
) -> Result<(), TestCaseError> {
    let name = std::any::type_name::<B>();
    let target = p[p.len() / 2];
    let src = q[q.len() / 2];
    let mut pose = *pos12;
    pose.translation = target - pos12.matrix3 * src;
    let a = B::fit_points(p);
    let b = B::fit_points(q);
    prop_assert!(
        a.overlaps(&b, &pose),
        "{name}: touching contents reported separate"
    );
    prop_assert!(
        a.distance_lower_bound(&b, &pose) <= 1e-9 * (scale(p) + scale(q)),
        "{name}: touching lb > 0"
    );
    Ok(())
}

fn all_volumes(p: &[DVec3], q: &[DVec3], pos12: &DAffine3) -> Result<(), TestCaseError> {
    check_volume::<Aabb>(p, q, pos12)?;
    check_volume::<Sphere>(p, q, pos12)?;
    check_volume::<Obb>(p, q, pos12)?;
    check_volume::<Rss>(p, q, pos12)?;
    check_volume::<Kdop18>(p, q, pos12)?;
    check_touching::<Aabb>(p, q, pos12)?;
    check_touching::<Sphere>(p, q, pos12)?;
    check_touching::<Obb>(p, q, pos12)?;
    check_touching::<Rss>(p, q, pos12)?;
    check_touching::<Kdop18>(p, q, pos12)?;
    Ok(())
}

/// Brute-force distance between two rectangles by dense sampling: returns the sampled minimum
/// and the sampling resolution (the true distance is within it below the sample).
fn sampled_rect_distance(a: &Rss, b: &Rss, pos12: &DAffine3, n: u32) -> (f64, f64) {
    let sample = |r: &Rss, pose: &DAffine3| -> Vec<DVec3> {
        let mut v = Vec::with_capacity(((n + 1) * (n + 1)) as usize);
        for i in 0..=n {
            for j in 0..=n {
                let s = f64::from(i) / f64::from(n) * r.lengths[0];
                let t = f64::from(j) / f64::from(n) * r.lengths[1];
                v.push(pose.transform_point3(r.origin + r.rotation * DVec3::new(s, t, 0.0)));
            }
        }
        v
    };
    let pa = sample(a, &DAffine3::IDENTITY);
    let pb = sample(b, pos12);
    let d = min_point_distance(&pa, &pb, &DAffine3::IDENTITY);
    let res = |r: &Rss| 0.5 * (r.lengths[0].hypot(r.lengths[1])) / f64::from(n);
    (d, res(a) + res(b))
}

proptest! {
    #[test]
    fn volumes_contain_and_bound(p in cloud(24), q in cloud(24), pos12 in pose(12.0)) {
        all_volumes(&p, &q, &pos12)?;
    }

    #[test]
    fn volumes_near_contact(p in cloud(16), q in cloud(16), pos12 in pose(1.0), gap in point(0.3)) {
        // place q so that one of its points is within 0.3 of one of p's points
        let mut pose = pos12;
        pose.translation = p[0] + gap - pos12.matrix3 * q[0];
        all_volumes(&p, &q, &pose)?;
    }

    #[test]
    fn rss_distance_is_the_rectangle_distance_minus_radii(
        p in cloud(12), q in cloud(12), pos12 in pose(4.0), ra in 0.0..0.5f64, rb in 0.0..0.5f64,
    ) {
        let mut a = Rss::fit_points(&p);
        let mut b = Rss::fit_points(&q);
        a.radius = 0.0;
        b.radius = 0.0;
        let d0 = a.distance_lower_bound(&b, &pos12);
        let (sampled, res) = sampled_rect_distance(&a, &b, &pos12, 24);
        let tol = 1e-9 * (scale(&p) + scale(&q) + 5.0);
        prop_assert!(d0 <= sampled + tol, "rect distance {d0} above sampled {sampled}");
        prop_assert!(sampled - d0 <= res + tol, "rect distance {d0} far below sampled {sampled} (res {res})");
        a.radius = ra;
        b.radius = rb;
        let d = a.distance_lower_bound(&b, &pos12);
        prop_assert!((d - (d0 - ra - rb).max(0.0)).abs() <= tol);
    }
}

#[test]
fn rss_parallel_and_crossing_rectangles() {
    let a = Rss::new(DMat3::IDENTITY, DVec3::ZERO, [2.0, 1.0], 0.1);
    // parallel copy above: distance 1 - 0.2
    let pose = DAffine3::from_translation(DVec3::new(0.5, 0.25, 1.0));
    assert!((a.distance_lower_bound(&a, &pose) - 0.8).abs() < 1e-12);
    // rotated 90 degrees about x and pushed through the first: distance 0
    let pose = DAffine3::from_rotation_translation(
        ccd_bvh::glam::DQuat::from_rotation_x(std::f64::consts::FRAC_PI_2),
        DVec3::new(0.5, 0.5, -0.5),
    );
    assert_eq!(a.distance_lower_bound(&a, &pose), 0.0);
    assert!(a.overlaps(&a, &pose));
}

fn check_nan_pose<B: BoundingVolume>() {
    let a = B::fit_points(&[DVec3::ZERO, DVec3::X, DVec3::Y]);
    for pose in [
        DAffine3::from_translation(DVec3::new(f64::NAN, 0.0, 0.0)),
        DAffine3::from_translation(DVec3::new(f64::INFINITY, 0.0, 0.0)),
        DAffine3::from_quat(ccd_bvh::glam::DQuat::from_xyzw(f64::NAN, 0.0, 0.0, 1.0)),
    ] {
        assert!(a.overlaps(&a, &pose), "{}", std::any::type_name::<B>());
        assert_eq!(a.distance_lower_bound(&a, &pose), 0.0);
    }
}

#[test]
fn nan_poses_give_conservative_answers() {
    check_nan_pose::<Aabb>();
    check_nan_pose::<Sphere>();
    check_nan_pose::<Obb>();
    check_nan_pose::<Rss>();
    check_nan_pose::<Kdop18>();
}
