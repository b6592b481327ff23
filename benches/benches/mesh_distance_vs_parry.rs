//! Mesh–mesh distance between two 10K-triangle meshes (a UV sphere and a torus) at several
//! surface gaps and a fixed rotation: ccd-distance `mesh_distance_with` (cold) vs
//! parry3d-f64 `query::distance` on `TriMesh` shapes built from the same vertices and
//! triangles, one criterion group per gap (moved here from `ccd-distance`'s `mesh` bench,
//! which now measures ccd alone, cold and with the coherence hint).
//!
//! `cargo bench -p ccd-benches --bench mesh_distance_vs_parry`

use std::hint::black_box;

use ccd_bvh::{BvhOptions, MeshBvh, Rss};
use ccd_distance::{MeshDistanceOptions, MeshDistanceWorkspace, mesh_distance_with};
use ccd_geometry::TriMesh;
use criterion::{Criterion, criterion_group, criterion_main};
use glam::{DAffine3, DQuat, DVec3};
use parry3d_f64::math::Pose;
use parry3d_f64::query;

fn parry_mesh(m: &TriMesh) -> parry3d_f64::shape::TriMesh {
    parry3d_f64::shape::TriMesh::new(m.vertices().to_vec(), m.triangles().to_vec())
        .expect("valid mesh for parry")
}

fn bench_mesh(c: &mut Criterion) {
    // the meshes of ccd-distance's `mesh` bench
    let ma = ccd_test_support::uv_sphere(1.0, 100, 50).expect("valid sphere");
    let mb = TriMesh::torus(1.0, 0.3, 100, 50).expect("valid torus");
    let a = MeshBvh::<Rss>::new(ma.clone(), &BvhOptions::default()).expect("bvh");
    let b = MeshBvh::<Rss>::new(mb.clone(), &BvhOptions::default()).expect("bvh");
    let (pa, pb) = (parry_mesh(&ma), parry_mesh(&mb));
    let rot = DQuat::from_rotation_x(std::f64::consts::FRAC_PI_2) * DQuat::from_rotation_z(0.3);
    let pose_a = DAffine3::IDENTITY;
    for gap in [0.01, 0.1, 0.5, 2.0] {
        let centre = DVec3::new(1.0 + 1.3 + gap, 0.05, 0.02);
        let pose_b = DAffine3::from_rotation_translation(rot, centre);
        let mut ws = MeshDistanceWorkspace::new();
        let cold = MeshDistanceOptions::default();
        let parry_a = Pose::IDENTITY;
        let parry_b = Pose::from_parts(centre, rot);
        eprintln!(
            "gap {gap}: ccd distance {:.9}, parry {:.9}",
            mesh_distance_with(&a, &pose_a, &b, &pose_b, &cold, &mut ws)
                .map_or(f64::NAN, |r| r.closest.distance),
            query::distance(&parry_a, &pa, &parry_b, &pb).map_or(f64::NAN, |d| d.distance)
        );
        let mut g = c.benchmark_group(format!("mesh_distance_vs_parry_10k/gap_{gap}"));
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
        g.bench_function("parry_query_distance", |bench| {
            bench.iter(|| {
                query::distance(black_box(&parry_a), &pa, black_box(&parry_b), &pb)
                    .map_or(0.0, |d| d.distance)
            });
        });
        g.finish();
    }
}

criterion_group!(benches, bench_mesh);
criterion_main!(benches);
