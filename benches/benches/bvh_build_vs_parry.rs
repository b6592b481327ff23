//! BVH build time for a 100K-triangle noisy torus: ccd-bvh (AABB and RSS, binned SAH and
//! median splits) vs parry3d-f64's `TriMesh::new`, which builds its BVH (moved here from
//! `ccd-bvh`'s `build` bench, which now measures ccd alone). The torus is the one of that
//! bench (same generator and seed).
//!
//! `cargo bench -p ccd-benches --bench bvh_build_vs_parry`

use std::hint::black_box;

use ccd_bvh::geometry::Aabb;
use ccd_bvh::{Bvh, BvhOptions, Rss, SplitRule, TriangleSoup};
use criterion::{Criterion, criterion_group, criterion_main};

fn build(c: &mut Criterion) {
    let torus = ccd_test_support::noisy_torus(250, 200, 0x00C0_FFEE).expect("valid torus");
    let (v, t) = (torus.vertices().to_vec(), torus.triangles().to_vec());
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
