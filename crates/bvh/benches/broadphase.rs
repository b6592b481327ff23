//! Broad phase and volume-test costs: sweep-and-prune update (incremental pairs) vs the
//! x-axis re-sweep, the dynamic BVH rebuild + self pairs, and single volume tests.

use std::hint::black_box;

use ccd_bvh::geometry::Aabb;
use ccd_bvh::glam::{DAffine3, DQuat, DVec3};
use ccd_bvh::{BoundingVolume, DynamicBvh, Kdop18, Obb, Rss, Sphere, SweepAndPrune, Workspace};
use ccd_test_support::SplitMix64;
use criterion::{Criterion, criterion_group, criterion_main};

/// Frame `k` of a back-and-forth walk over `n` frames (every step is a coherent move).
fn pingpong(k: usize, n: usize) -> usize {
    let period = 2 * (n - 1);
    let r = k % period;
    if r < n { r } else { period - r }
}

/// `n` unit-ish boxes in a cube sized for ~2 overlaps per box, and a coherent sequence of
/// `steps` frames (each box moves 2% of its size per frame).
fn scene(n: usize, steps: usize, seed: u64) -> Vec<Vec<Aabb>> {
    let mut s = SplitMix64::new(seed);
    let side = (n as f64).cbrt();
    let centers: Vec<DVec3> = (0..n).map(|_| s.cube(side)).collect();
    let vel: Vec<DVec3> = (0..n).map(|_| s.cube(0.02)).collect();
    (0..steps)
        .map(|k| {
            centers
                .iter()
                .zip(&vel)
                .map(|(c, v)| {
                    let c = *c + *v * k as f64;
                    Aabb::new(c - DVec3::splat(0.5), c + DVec3::splat(0.5))
                })
                .collect()
        })
        .collect()
}

fn sap(c: &mut Criterion) {
    let mut g = c.benchmark_group("sap_1000_coherent");
    let frames = scene(1000, 64, 7);
    g.bench_function("update_incremental_pairs", |b| {
        let mut sap = SweepAndPrune::new(&frames[0]).unwrap();
        let mut k = 0;
        b.iter(|| {
            k += 1;
            sap.update(black_box(&frames[pingpong(k, frames.len())]))
                .unwrap()
        })
    });
    g.bench_function("x_sweep_recompute_pairs", |b| {
        let mut sap = SweepAndPrune::new(&frames[0]).unwrap();
        let mut out = Vec::new();
        b.iter(|| {
            out.clear();
            sap.sweep_pairs_into(&mut out);
            out.len()
        })
    });
    g.bench_function("dynamic_bvh_rebuild_and_self_pairs", |b| {
        let mut d = DynamicBvh::new();
        let mut ws = Workspace::new();
        let mut out = Vec::new();
        let mut k = 0;
        b.iter(|| {
            k += 1;
            d.rebuild(black_box(&frames[pingpong(k, frames.len())]))
                .unwrap();
            out.clear();
            d.self_pairs_into(&mut ws, &mut out);
            out.len()
        })
    });
    g.finish();
    let mut g = c.benchmark_group("dynamic_bvh_100");
    let frames = scene(100, 64, 9);
    g.bench_function("rebuild_and_self_pairs", |b| {
        let mut d = DynamicBvh::new();
        let mut ws = Workspace::new();
        let mut out = Vec::new();
        let mut k = 0;
        b.iter(|| {
            k += 1;
            d.rebuild(black_box(&frames[pingpong(k, frames.len())]))
                .unwrap();
            out.clear();
            d.self_pairs_into(&mut ws, &mut out);
            out.len()
        })
    });
    g.bench_function("sap_update", |b| {
        let mut sap = SweepAndPrune::new(&frames[0]).unwrap();
        let mut k = 0;
        b.iter(|| {
            k += 1;
            sap.update(black_box(&frames[pingpong(k, frames.len())]))
                .unwrap()
        })
    });
    g.finish();
}

fn volume_pair<B: BoundingVolume>(
    c: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
) {
    let mut s = SplitMix64::new(11);
    let clouds: Vec<Vec<DVec3>> = (0..64)
        .map(|_| {
            let o = s.cube(1.0);
            (0..12)
                .map(|_| o + s.cube(0.5) * DVec3::new(1.0, 0.6, 0.1))
                .collect()
        })
        .collect();
    let bvs: Vec<B> = clouds.iter().map(|p| B::fit_points(p)).collect();
    let poses: Vec<DAffine3> = (0..64)
        .map(|_| {
            let axis = s.cube(1.0).try_normalize().unwrap_or(DVec3::Z);
            DAffine3::from_rotation_translation(
                DQuat::from_axis_angle(axis, s.unit() * 3.0),
                s.cube(1.5),
            )
        })
        .collect();
    c.bench_function(format!("{name}_overlap_x64"), |b| {
        b.iter(|| {
            let mut n = 0;
            for (i, p) in poses.iter().enumerate() {
                n += usize::from(bvs[i].overlaps(&bvs[(i + 1) % 64], black_box(p)));
            }
            n
        })
    });
    c.bench_function(format!("{name}_distance_x64"), |b| {
        b.iter(|| {
            let mut d = 0.0;
            for (i, p) in poses.iter().enumerate() {
                d += bvs[i].distance_lower_bound(&bvs[(i + 1) % 64], black_box(p));
            }
            d
        })
    });
}

fn volumes(c: &mut Criterion) {
    let mut g = c.benchmark_group("volume_tests");
    volume_pair::<Aabb>(&mut g, "aabb");
    volume_pair::<Sphere>(&mut g, "sphere");
    volume_pair::<Obb>(&mut g, "obb");
    volume_pair::<Rss>(&mut g, "rss");
    volume_pair::<Kdop18>(&mut g, "kdop18");
    g.finish();
}

criterion_group!(benches, sap, volumes);
criterion_main!(benches);
