//! Mesh–mesh distance between two 10K-triangle meshes (a UV sphere and a torus) at several
//! surface gaps and a fixed rotation: ccd-distance `mesh_distance_with` cold and with the
//! coherence hint of the previous answer, in one criterion group per gap. The comparison
//! with parry3d-f64's `query::distance` lives in the workspace's `benches/`
//! (`mesh_distance_vs_parry`).

use std::hint::black_box;

use ccd_bvh::{BvhOptions, MeshBvh, Rss};
use ccd_distance::{MeshDistanceOptions, MeshDistanceWorkspace, mesh_distance_with};
use criterion::{Criterion, criterion_group, criterion_main};
use glam::{DAffine3, DQuat, DVec3};

fn bench_mesh(c: &mut Criterion) {
    // Sphere of radius 1 (100 x 50 cells) and torus (R = 1, r = 0.3, 100 x 50 cells):
    // 10 000 triangles each.
    let ma = ccd_test_support::uv_sphere(1.0, 100, 50).expect("valid sphere");
    let mb = ccd_geometry::TriMesh::torus(1.0, 0.3, 100, 50).expect("valid torus");
    let a = MeshBvh::<Rss>::new(ma.clone(), &BvhOptions::default()).expect("bvh");
    let b = MeshBvh::<Rss>::new(mb.clone(), &BvhOptions::default()).expect("bvh");
    // The torus stands on its rim next to the sphere: its nearest point is at distance
    // `centre distance - 1.3` from the sphere's centre along x.
    let rot = DQuat::from_rotation_x(std::f64::consts::FRAC_PI_2) * DQuat::from_rotation_z(0.3);
    let pose_a = DAffine3::IDENTITY;
    for gap in [0.01, 0.1, 0.5, 2.0] {
        let centre = DVec3::new(1.0 + 1.3 + gap, 0.05, 0.02);
        let pose_b = DAffine3::from_rotation_translation(rot, centre);
        let mut ws = MeshDistanceWorkspace::new();
        let cold = MeshDistanceOptions::default();
        let first = mesh_distance_with(&a, &pose_a, &b, &pose_b, &cold, &mut ws).expect("query");
        let warm = MeshDistanceOptions::default().with_hint(Some(first.hint()));
        eprintln!(
            "gap {gap}: ccd distance {:.6} ({} BV tests, {} triangle tests; with hint {} / {})",
            first.closest.distance,
            first.stats.bv_tests,
            first.stats.primitive_tests,
            mesh_distance_with(&a, &pose_a, &b, &pose_b, &warm, &mut ws)
                .map_or(0, |r| r.stats.bv_tests),
            mesh_distance_with(&a, &pose_a, &b, &pose_b, &warm, &mut ws)
                .map_or(0, |r| r.stats.primitive_tests),
        );
        let mut g = c.benchmark_group(format!("mesh_distance_10k/gap_{gap}"));
        g.bench_function("ccd_cold", |bench| {
            bench.iter(|| {
                mesh_distance_with(
                    &a,
                    black_box(&pose_a),
                    &b,
                    black_box(&pose_b),
                    &cold,
                    &mut ws,
                )
                .map_or(0.0, |r| r.closest.distance)
            });
        });
        g.bench_function("ccd_hint", |bench| {
            bench.iter(|| {
                mesh_distance_with(
                    &a,
                    black_box(&pose_a),
                    &b,
                    black_box(&pose_b),
                    &warm,
                    &mut ws,
                )
                .map_or(0.0, |r| r.closest.distance)
            });
        });
        g.finish();
    }
}

criterion_group!(benches, bench_mesh);
criterion_main!(benches);
