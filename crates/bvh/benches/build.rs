//! BVH build time for a 100K-triangle noisy torus (ccd-bvh AABB/RSS, SAH and median
//! splits), and the query cost of SAH vs median trees. The comparison with parry3d-f64's
//! `TriMesh::new` lives in the workspace's `benches/` (`bvh_build_vs_parry`).

use std::hint::black_box;

use ccd_bvh::geometry::Aabb;
use ccd_bvh::glam::{DAffine3, DQuat, DVec3};
use ccd_bvh::{BoundingVolume, Bvh, BvhOptions, Rss, SplitRule, TriangleSoup, Workspace};
use ccd_test_support::noisy_torus;
use criterion::{Criterion, criterion_group, criterion_main};

fn build(c: &mut Criterion) {
    let torus = noisy_torus(250, 200, 0x00C0_FFEE).expect("valid torus");
    let (v, t) = (torus.vertices(), torus.triangles());
    assert_eq!(t.len(), 100_000);
    let soup = TriangleSoup::new(v, t);
    let mut g = c.benchmark_group("bvh_build_100k");
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
    g.bench_function("ccd_aabb_median", |b| {
        b.iter(|| Bvh::<Aabb>::build(black_box(&soup), &median).unwrap())
    });
    g.bench_function("ccd_rss_median", |b| {
        b.iter(|| Bvh::<Rss>::build(black_box(&soup), &median).unwrap())
    });
    g.bench_function("ccd_rss_sah", |b| {
        b.iter(|| Bvh::<Rss>::build(black_box(&soup), &sah).unwrap())
    });
    g.finish();
}

/// Query cost of a tree: the overlap traversal of a 20K-triangle torus against a slightly
/// rotated copy of itself (surfaces crossing along long curves), and a
/// best-first closest-vertex search between two separated tori (a stand-in for PQP distance:
/// the leaf work is the vertex-vertex distances, so the time is dominated by the tree).
fn query(c: &mut Criterion) {
    let torus = noisy_torus(100, 100, 0x00BE_EF00).expect("valid torus");
    let (v, t) = (torus.vertices(), torus.triangles());
    let soup = TriangleSoup::new(v, t);
    let interlocked = DAffine3::from_rotation_translation(
        DQuat::from_rotation_x(0.1),
        DVec3::new(0.05, 0.0, 0.0),
    );
    let apart =
        DAffine3::from_rotation_translation(DQuat::from_rotation_y(0.7), DVec3::new(2.9, 0.4, 0.2));
    let mut g = c.benchmark_group("bvh_query_20k");
    g.sample_size(20);
    fn run<B: BoundingVolume>(
        g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
        name: &str,
        soup: &TriangleSoup<'_>,
        split: SplitRule,
        interlocked: &DAffine3,
        apart: &DAffine3,
    ) {
        let bvh = Bvh::<B>::build(
            soup,
            &BvhOptions::default().with_leaf_size(4).with_split(split),
        )
        .unwrap();
        let mut ws = Workspace::new();
        let mut out = Vec::new();
        g.bench_function(format!("overlap_{name}"), |b| {
            b.iter(|| {
                out.clear();
                bvh.overlapping_pairs_into(&bvh, black_box(interlocked), &mut ws, &mut out)
            })
        });
        g.bench_function(format!("closest_{name}"), |b| {
            b.iter(|| {
                let mut best = f64::INFINITY;
                bvh.traverse_pair_best_first(
                    &bvh,
                    &mut ws,
                    f64::INFINITY,
                    |x, y| x.distance_lower_bound(y, apart),
                    |i, j| {
                        for &p in &soup.triangles[i as usize] {
                            for &q in &soup.triangles[j as usize] {
                                let d = soup.vertices[p as usize]
                                    .distance(apart.transform_point3(soup.vertices[q as usize]));
                                best = best.min(d);
                            }
                        }
                        best
                    },
                )
            })
        });
        // report the tree-quality counters once (stderr, outside timing)
        out.clear();
        let s1 = bvh.overlapping_pairs_into(&bvh, interlocked, &mut ws, &mut out);
        let mut best = f64::INFINITY;
        let (_, s2) = bvh.traverse_pair_best_first(
            &bvh,
            &mut ws,
            f64::INFINITY,
            |x, y| x.distance_lower_bound(y, apart),
            |i, j| {
                for &p in &soup.triangles[i as usize] {
                    for &q in &soup.triangles[j as usize] {
                        best = best.min(
                            soup.vertices[p as usize]
                                .distance(apart.transform_point3(soup.vertices[q as usize])),
                        );
                    }
                }
                best
            },
        );
        eprintln!(
            "{name}: overlap bv_tests={} leaf_pairs={}; closest bv_tests={} leaf_pairs={}",
            s1.bv_tests, s1.primitive_tests, s2.bv_tests, s2.primitive_tests
        );
    }
    let sah = SplitRule::BinnedSah { bins: 16 };
    run::<Aabb>(&mut g, "aabb_sah", &soup, sah, &interlocked, &apart);
    run::<Aabb>(
        &mut g,
        "aabb_median",
        &soup,
        SplitRule::Median,
        &interlocked,
        &apart,
    );
    run::<Rss>(&mut g, "rss_sah", &soup, sah, &interlocked, &apart);
    run::<Rss>(
        &mut g,
        "rss_median",
        &soup,
        SplitRule::Median,
        &interlocked,
        &apart,
    );
    g.finish();
}

criterion_group!(benches, build, query);
criterion_main!(benches);
