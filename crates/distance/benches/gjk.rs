//! GJK distance between convex hulls of 100 and 1000 random points at several separations:
//! ccd-distance (cold start and warm start) vs parry3d-f64's `query::distance` on
//! `ConvexPolyhedron` shapes built from the same hulls, in one criterion group.

use std::hint::black_box;

use ccd_distance::{ConvexHull, GjkCache, GjkOptions, gjk_distance, gjk_distance_cached};
use ccd_test_support::SplitMix64;
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use glam::{DAffine3, DQuat, DVec3};
use parry3d_f64::math::Pose;
use parry3d_f64::shape::ConvexPolyhedron;

/// `n` random points near the unit sphere (radius in [0.999, 1]), so most are hull vertices,
/// stretched by `scale`.
fn random_blob(n: usize, seed: u64, scale: DVec3) -> Vec<DVec3> {
    let mut rng = SplitMix64::new(seed);
    let mut points = Vec::with_capacity(n);
    while points.len() < n {
        let p = rng.cube(1.0);
        let len = p.length();
        if len > 0.1 && len <= 1.0 {
            let r = 0.999 + 0.001 * rng.unit();
            points.push(p / len * r * scale);
        }
    }
    points
}

fn to_pose(p: &DAffine3) -> Pose {
    let (_, rotation, translation) = p.to_scale_rotation_translation();
    Pose::from_parts(translation, rotation)
}

fn bench_gjk(c: &mut Criterion) {
    let mut group = c.benchmark_group("gjk_distance");
    let opts = GjkOptions::default();
    for n in [100usize, 1000] {
        let a = ConvexHull::new(&random_blob(n, 11, DVec3::ONE)).expect("hull a");
        let b = ConvexHull::new(&random_blob(n, 23, DVec3::new(1.5, 0.8, 0.5))).expect("hull b");
        let shape_a = ConvexPolyhedron::from_convex_mesh(a.vertices().to_vec(), a.faces())
            .expect("parry shape a");
        let shape_b = ConvexPolyhedron::from_convex_mesh(b.vertices().to_vec(), b.faces())
            .expect("parry shape b");
        let pose_a = DAffine3::from_rotation_translation(
            DQuat::from_euler(glam::EulerRot::XYZ, 0.3, -0.2, 0.9),
            DVec3::new(0.2, -0.4, 0.1),
        );
        // Gaps between the support planes along x; -0.3 overlaps.
        for gap in [-0.3, 0.01, 0.5, 5.0] {
            let rot = DQuat::from_euler(glam::EulerRot::XYZ, 1.1, 0.4, -0.7);
            let rotated = DAffine3::from_quat(rot);
            let ha = a
                .vertices()
                .iter()
                .map(|v| pose_a.transform_point3(*v).x)
                .fold(f64::MIN, f64::max);
            let hb = b
                .vertices()
                .iter()
                .map(|v| -rotated.transform_point3(*v).x)
                .fold(f64::MIN, f64::max);
            let pose_b =
                DAffine3::from_translation(DVec3::new(ha + hb + gap, 0.1, -0.05)) * rotated;
            let (pa, pb) = (to_pose(&pose_a), to_pose(&pose_b));
            let ours = gjk_distance(&a, &pose_a, &b, &pose_b, &opts).expect("gjk");
            let theirs = parry3d_f64::query::distance(&pa, &shape_a, &pb, &shape_b)
                .expect("parry distance")
                .distance;
            eprintln!(
                "n={n} gap={gap}: vertices {}/{}, ccd {:.12} ({} iterations, {:?}), parry {:.12}",
                a.vertices().len(),
                b.vertices().len(),
                ours.distance,
                ours.iterations,
                ours.status,
                theirs
            );
            let id = format!("n{n}/gap{gap}");
            group.bench_with_input(BenchmarkId::new("ccd", &id), &(), |bench, ()| {
                bench.iter(|| {
                    gjk_distance(
                        black_box(&a),
                        black_box(&pose_a),
                        black_box(&b),
                        black_box(&pose_b),
                        &opts,
                    )
                })
            });
            // Warm start from the answer of the same query (the steady state of a CA loop
            // with small steps).
            let mut warm = GjkCache::new();
            let _ = gjk_distance_cached(&a, &pose_a, &b, &pose_b, &opts, &mut warm);
            group.bench_with_input(BenchmarkId::new("ccd_warm", &id), &(), |bench, ()| {
                bench.iter(|| {
                    let mut cache = warm;
                    gjk_distance_cached(
                        black_box(&a),
                        black_box(&pose_a),
                        black_box(&b),
                        black_box(&pose_b),
                        &opts,
                        &mut cache,
                    )
                })
            });
            group.bench_with_input(BenchmarkId::new("parry", &id), &(), |bench, ()| {
                bench.iter(|| {
                    parry3d_f64::query::distance(
                        black_box(&pa),
                        black_box(&shape_a),
                        black_box(&pb),
                        black_box(&shape_b),
                    )
                })
            });
        }
    }
    group.finish();

    let mut build = c.benchmark_group("convex_hull_build");
    for n in [100usize, 1000, 10000] {
        let points = random_blob(n, 5, DVec3::ONE);
        build.bench_with_input(BenchmarkId::new("ccd", n), &points, |bench, pts| {
            bench.iter(|| ConvexHull::new(black_box(pts)))
        });
        build.bench_with_input(BenchmarkId::new("parry", n), &points, |bench, pts| {
            bench.iter(|| parry3d_f64::transformation::try_convex_hull(black_box(pts)))
        });
    }
    build.finish();
}

criterion_group!(benches, bench_gjk);
criterion_main!(benches);
