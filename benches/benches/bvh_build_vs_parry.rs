//! BVH build time for a 100K-triangle noisy torus: ccd-bvh (AABB and RSS, binned SAH and
//! median splits) vs parry3d-f64's `TriMesh::new`, which builds its BVH (moved here from
//! `ccd-bvh`'s `build` bench, which now measures ccd alone). The torus is the one of that
//! bench (same generator and seed).
//!
//! `cargo bench -p ccd-benches --bench bvh_build_vs_parry`

use std::hint::black_box;

use ccd_bvh::geometry::Aabb;
use ccd_bvh::glam::DVec3;
use ccd_bvh::{Bvh, BvhOptions, Rss, SplitRule, TriangleSoup};
use criterion::{Criterion, criterion_group, criterion_main};

/// splitmix64: a fixed-seed generator for reproducible noise.
fn splitmix(state: &mut u64) -> f64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 53) as f64
}

/// A torus (major radius 1, minor 0.3) with `nu * nv` vertices, `2 nu nv` triangles and
/// radial noise of 2% of the minor radius.
fn noisy_torus(nu: u32, nv: u32, seed: u64) -> (Vec<DVec3>, Vec<[u32; 3]>) {
    let mut state = seed;
    let mut v = Vec::with_capacity((nu * nv) as usize);
    for i in 0..nu {
        let u = f64::from(i) / f64::from(nu) * std::f64::consts::TAU;
        for j in 0..nv {
            let w = f64::from(j) / f64::from(nv) * std::f64::consts::TAU;
            let r = 0.3 * (1.0 + 0.02 * (splitmix(&mut state) - 0.5));
            v.push(DVec3::new(
                (1.0 + r * w.cos()) * u.cos(),
                (1.0 + r * w.cos()) * u.sin(),
                r * w.sin(),
            ));
        }
    }
    let mut t = Vec::with_capacity(2 * (nu * nv) as usize);
    for i in 0..nu {
        for j in 0..nv {
            let a = i * nv + j;
            let b = ((i + 1) % nu) * nv + j;
            let c = ((i + 1) % nu) * nv + (j + 1) % nv;
            let d = i * nv + (j + 1) % nv;
            t.push([a, b, c]);
            t.push([a, c, d]);
        }
    }
    (v, t)
}

fn build(c: &mut Criterion) {
    let (v, t) = noisy_torus(250, 200, 0x00C0_FFEE);
    assert_eq!(t.len(), 100_000);
    let soup = TriangleSoup::new(&v, &t);
    let mut g = c.benchmark_group("bvh_build_vs_parry_100k");
    g.sample_size(10);
    let sah = BvhOptions::default()
        .with_leaf_size(4)
        .with_split(SplitRule::BinnedSah { bins: 16 });
    let median = BvhOptions::default()
        .with_leaf_size(4)
        .with_split(SplitRule::Median);
    g.bench_function("ccd_aabb_sah", |b| {
        b.iter(|| Bvh::<Aabb>::build(black_box(&soup), &sah).unwrap())
    });
    g.bench_function("ccd_rss_median", |b| {
        b.iter(|| Bvh::<Rss>::build(black_box(&soup), &median).unwrap())
    });
    g.bench_function("parry3d_trimesh_new", |b| {
        b.iter_batched(
            || (v.clone(), t.clone()),
            |(v, t)| parry3d_f64::shape::TriMesh::new(v, t).unwrap(),
            criterion::BatchSize::LargeInput,
        )
    });
    g.finish();
}

criterion_group!(benches, build);
criterion_main!(benches);
