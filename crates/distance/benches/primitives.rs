//! Triangle–triangle and segment–segment distance: ccd-distance vs parry3d-f64 0.31
//! (`query::distance` through its dispatcher, and its dedicated kernels: GJK
//! `distance_support_map_support_map` for triangles, `distance_segment_segment`) on the same
//! fixed-seed inputs, in one criterion group per input set. Each iteration measures a batch
//! of `N` pairs; per-pair time is the batch time divided by `N` (criterion reports the
//! throughput in elements/s). Input sets: random triangles of size ~1 with centres
//! 1.5–3 (`separated`), 0.5–1.5 (`near`, many intersecting) and 0–3 (`mixed`) apart, and
//! `stacked` nearly parallel flat triangles.

use std::hint::black_box;

use ccd_distance::{segment_segment, triangle_triangle};
use ccd_geometry::{Segment, Triangle};
use ccd_test_support::SplitMix64;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use glam::DVec3;
use parry3d_f64::math::Pose;
use parry3d_f64::query;
use parry3d_f64::shape;

/// Pairs per batch.
const N: usize = 1024;

/// Triangles of size ~1 with centres `lo..hi` apart.
fn triangle_pairs(seed: u64, lo: f64, hi: f64) -> Vec<(Triangle, Triangle)> {
    let mut s = SplitMix64::new(seed);
    (0..N)
        .map(|_| {
            let ca = DVec3::ZERO;
            let cb = s.direction().expect("a direction") * s.range(lo, hi);
            let tri = |c: DVec3, s: &mut SplitMix64| {
                Triangle::new(
                    c + s.cube(1.0) * 0.6,
                    c + s.cube(1.0) * 0.6,
                    c + s.cube(1.0) * 0.6,
                )
            };
            (tri(ca, &mut s), tri(cb, &mut s))
        })
        .collect()
}

/// Segments of length ~1 with midpoints `lo..hi` apart.
fn segment_pairs(seed: u64, lo: f64, hi: f64) -> Vec<(Segment, Segment)> {
    let mut s = SplitMix64::new(seed);
    (0..N)
        .map(|_| {
            let cb = s.direction().expect("a direction") * s.range(lo, hi);
            let seg = |c: DVec3, s: &mut SplitMix64| {
                let d = s.cube(1.0) * 0.6;
                Segment::new(c - d, c + d)
            };
            (seg(DVec3::ZERO, &mut s), seg(cb, &mut s))
        })
        .collect()
}

/// Flat triangles (thickness 0.05) stacked 0.3 apart along z with in-plane offsets: the
/// nearly parallel configuration of two mesh surfaces facing each other (vertex–face
/// answers are common).
fn stacked_pairs(seed: u64) -> Vec<(Triangle, Triangle)> {
    let mut s = SplitMix64::new(seed);
    let flat = |p: DVec3| DVec3::new(p.x, p.y, p.z * 0.05);
    (0..N)
        .map(|_| {
            let a = Triangle::new(
                flat(s.cube(1.0) * 0.6),
                flat(s.cube(1.0) * 0.6),
                flat(s.cube(1.0) * 0.6),
            );
            let off = DVec3::new(0.0, 0.0, 0.3) + s.cube(1.0) * DVec3::new(0.5, 0.5, 0.0);
            let b = Triangle::new(
                flat(s.cube(1.0) * 0.6) + off,
                flat(s.cube(1.0) * 0.6) + off,
                flat(s.cube(1.0) * 0.6) + off,
            );
            (a, b)
        })
        .collect()
}

fn bench_triangles(c: &mut Criterion) {
    let sets = [
        ("separated", triangle_pairs(0x5EED_0001, 1.5, 3.0)),
        ("near", triangle_pairs(0x5EED_0001, 0.5, 1.5)),
        ("mixed", triangle_pairs(0x5EED_0001, 0.0, 3.0)),
        ("stacked", stacked_pairs(0x5EED_0003)),
    ];
    for (name, pairs) in sets {
        let parry: Vec<(shape::Triangle, shape::Triangle)> = pairs
            .iter()
            .map(|(a, b)| {
                (
                    shape::Triangle::new(a.a, a.b, a.c),
                    shape::Triangle::new(b.a, b.b, b.c),
                )
            })
            .collect();
        let mut g = c.benchmark_group(format!("triangle_triangle/{name}"));
        g.throughput(Throughput::Elements(N as u64));
        g.bench_function("ccd", |bench| {
            bench.iter(|| {
                let mut sum = 0.0;
                for (a, b) in black_box(&pairs) {
                    sum += triangle_triangle(a, b).distance;
                }
                sum
            });
        });
        g.bench_function("parry_query_distance", |bench| {
            bench.iter(|| {
                let mut sum = 0.0;
                for (a, b) in black_box(&parry) {
                    sum += query::distance(&Pose::IDENTITY, a, &Pose::IDENTITY, b)
                        .map_or(0.0, |d| d.distance);
                }
                sum
            });
        });
        g.bench_function("parry_gjk_kernel", |bench| {
            bench.iter(|| {
                let mut sum = 0.0;
                for (a, b) in black_box(&parry) {
                    sum += query::details::distance_support_map_support_map(&Pose::IDENTITY, a, b);
                }
                sum
            });
        });
        g.finish();
    }
}

fn bench_segments(c: &mut Criterion) {
    for (name, lo, hi) in [("separated", 1.5, 3.0), ("mixed", 0.0, 3.0)] {
        let pairs = segment_pairs(0x5EED_0002, lo, hi);
        let parry: Vec<(shape::Segment, shape::Segment)> = pairs
            .iter()
            .map(|(a, b)| (shape::Segment::new(a.a, a.b), shape::Segment::new(b.a, b.b)))
            .collect();
        let mut g = c.benchmark_group(format!("segment_segment/{name}"));
        g.throughput(Throughput::Elements(N as u64));
        g.bench_function("ccd", |bench| {
            bench.iter(|| {
                let mut sum = 0.0;
                for (a, b) in black_box(&pairs) {
                    sum += segment_segment(a, b).distance;
                }
                sum
            });
        });
        g.bench_function("parry_query_distance", |bench| {
            bench.iter(|| {
                let mut sum = 0.0;
                for (a, b) in black_box(&parry) {
                    sum += query::distance(&Pose::IDENTITY, a, &Pose::IDENTITY, b)
                        .map_or(0.0, |d| d.distance);
                }
                sum
            });
        });
        g.bench_function("parry_segment_kernel", |bench| {
            bench.iter(|| {
                let mut sum = 0.0;
                for (a, b) in black_box(&parry) {
                    sum += query::details::distance_segment_segment(&Pose::IDENTITY, a, b);
                }
                sum
            });
        });
        g.finish();
    }
}

criterion_group!(benches, bench_triangles, bench_segments);
criterion_main!(benches);
