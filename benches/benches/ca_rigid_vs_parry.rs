//! Rigid time of contact, ccd vs parry3d-f64 `cast_shapes_nonlinear`, on the workloads of
//! `cargo xtask bench --scene rigid-pairs` ([`ccd_benches::rigid`]): the same shapes and the
//! same constant linear + angular velocity motions for both (moved here from
//! `ccd-ca-rigid`'s `ca` bench, which now measures ccd alone).
//!
//! Group `ca_rigid_vs_parry_meshes`: the mesh pairs; parry's mesh–mesh casts take seconds
//! per query, so they run (criterion's minimum sample count, 10) only when
//! `CCD_BENCH_PARRY_MESH=1`, and never on the 100K terrain. Group
//! `ca_rigid_vs_parry_analytic`: the analytic pairs and the compound.
//!
//! `cargo bench -p ccd-benches --bench ca_rigid_vs_parry`

use std::hint::black_box;
use std::time::Duration;

use ccd_benches::rigid::workloads;
use ccd_ca_rigid::{CaOptions, time_of_contact_shapes};
use criterion::{Criterion, criterion_group, criterion_main};
use parry3d_f64::query::cast_shapes_nonlinear;

fn bench(c: &mut Criterion) {
    let parry_mesh = std::env::var("CCD_BENCH_PARRY_MESH").is_ok_and(|v| v == "1");
    let opts = CaOptions::default();
    let mut meshes = c.benchmark_group("ca_rigid_vs_parry_meshes");
    meshes
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    let loads = workloads();
    for w in loads.iter().filter(|w| w.mesh_pair()) {
        let (ma, mb) = (w.ma.ours(), w.mb.ours());
        meshes.bench_function(format!("{}/ccd", w.name), |bch| {
            bch.iter(|| time_of_contact_shapes(black_box(&w.a), &ma, black_box(&w.b), &mb, &opts))
        });
        if parry_mesh && w.parry_slow.is_some() {
            let (qa, qb) = (w.ma.parry(), w.mb.parry());
            meshes.bench_function(format!("{}/parry", w.name), |bch| {
                bch.iter(|| {
                    cast_shapes_nonlinear(&qa, w.pa.as_ref(), &qb, w.pb.as_ref(), 0.0, 1.0, true)
                })
            });
        }
    }
    meshes.finish();
    let mut analytic = c.benchmark_group("ca_rigid_vs_parry_analytic");
    analytic
        .sample_size(20)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    for w in loads.iter().filter(|w| !w.mesh_pair()) {
        let (ma, mb) = (w.ma.ours(), w.mb.ours());
        let (qa, qb) = (w.ma.parry(), w.mb.parry());
        eprintln!(
            "{}: ccd toc = {:?}, parry toc = {:?}",
            w.name,
            time_of_contact_shapes(&w.a, &ma, &w.b, &mb, &opts).map(|c| c.map(|c| c.toc)),
            cast_shapes_nonlinear(&qa, w.pa.as_ref(), &qb, w.pb.as_ref(), 0.0, 1.0, true)
                .map(|h| h.map(|h| h.time_of_impact))
        );
        analytic.bench_function(format!("{}/ccd", w.name), |bch| {
            bch.iter(|| time_of_contact_shapes(black_box(&w.a), &ma, black_box(&w.b), &mb, &opts))
        });
        analytic.bench_function(format!("{}/parry", w.name), |bch| {
            bch.iter(|| {
                cast_shapes_nonlinear(&qa, w.pa.as_ref(), &qb, w.pb.as_ref(), 0.0, 1.0, true)
            })
        });
    }
    analytic.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
