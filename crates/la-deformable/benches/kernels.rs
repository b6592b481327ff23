//! Elementary kernel benchmarks: LA vs the cubic-coplanarity baseline per query, on the
//! Tight-Inclusion conformance set (vertex–face and edge–edge separately; skipped when the
//! data folder is absent) and on seeded random pairs. Throughput is per query, so criterion's
//! time divided by the element count is the mean time per query.

#[path = "../tests/support/conformance.rs"]
#[allow(dead_code, unreachable_pub)]
mod conformance;

use std::hint::black_box;

use ccd_geometry::glam::DVec3;
use ccd_la_deformable::baseline::{edge_edge_cubic_until, vertex_face_cubic_until};
use ccd_la_deformable::kernels::{edge_edge_until, vertex_face_until};
use ccd_la_deformable::{DEFAULT_MAX_ITERATIONS, DEFAULT_TOLERANCE, PrimitiveToc};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

type Pair = ([DVec3; 4], [DVec3; 4]);
type Until = fn(&[DVec3; 4], &[DVec3; 4], f64, f64, u32) -> Option<PrimitiveToc>;

/// A small deterministic generator (xorshift64*), so inputs are fixed without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let x = self.0.wrapping_mul(0x2545_f491_4f6c_dd1d);
        (x >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    }
    fn point(&mut self) -> DVec3 {
        DVec3::new(self.next(), self.next(), self.next())
    }
}

/// Random pairs: half uniformly random, half built to cross at a random time.
fn random_pairs(vf: bool, n: usize) -> Vec<Pair> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    (0..n)
        .map(|k| {
            if k % 2 == 0 {
                let x0 = [rng.point(), rng.point(), rng.point(), rng.point()];
                let x1 = x0.map(|p| p + rng.point() * 0.5);
                (x0, x1)
            } else {
                let t = 0.5 * (rng.next() + 1.0);
                let at = if vf {
                    let f = [rng.point(), rng.point(), rng.point()];
                    let w = [0.2 + 0.3 * rng.next().abs(), 0.3, 0.3];
                    let s = w[0] + w[1] + w[2];
                    let v = f[0] * (w[0] / s) + f[1] * (w[1] / s) + f[2] * (w[2] / s);
                    [v, f[0], f[1], f[2]]
                } else {
                    let (c, da, db) = (rng.point(), rng.point(), rng.point());
                    [c - da * 0.4, c + da * 0.6, c - db * 0.5, c + db * 0.5]
                };
                let vel = [rng.point(), rng.point(), rng.point(), rng.point()];
                (
                    std::array::from_fn(|i| at[i] - vel[i] * t),
                    std::array::from_fn(|i| at[i] + vel[i] * (1.0 - t)),
                )
            }
        })
        .collect()
}

fn group(c: &mut Criterion, name: &str, pairs: &[Pair], la: Until, cubic: Until) {
    let mut g = c.benchmark_group(name);
    g.throughput(Throughput::Elements(pairs.len() as u64));
    for (label, f) in [("la", la), ("cubic", cubic)] {
        g.bench_function(label, |b| {
            b.iter(|| {
                let mut hits = 0u32;
                for (x0, x1) in pairs {
                    let r = f(
                        black_box(x0),
                        black_box(x1),
                        1.0,
                        DEFAULT_TOLERANCE,
                        DEFAULT_MAX_ITERATIONS,
                    );
                    hits += u32::from(r.is_some());
                }
                hits
            });
        });
    }
    g.finish();
}

fn kernels(c: &mut Criterion) {
    if let Some(dir) = conformance::find() {
        for (kind, la, cubic) in [
            (
                "vertex-face",
                vertex_face_until as Until,
                vertex_face_cubic_until as Until,
            ),
            (
                "edge-edge",
                edge_edge_until as Until,
                edge_edge_cubic_until as Until,
            ),
        ] {
            let pairs: Vec<Pair> = conformance::load(&dir, kind)
                .into_iter()
                .map(|q| (q.x0, q.x1))
                .collect();
            group(c, &format!("conformance-{kind}"), &pairs, la, cubic);
        }
    } else {
        eprintln!("skipped: ../shared/conformance/tight-inclusion not found");
    }
    group(
        c,
        "random-vertex-face",
        &random_pairs(true, 1000),
        vertex_face_until,
        vertex_face_cubic_until,
    );
    group(
        c,
        "random-edge-edge",
        &random_pairs(false, 1000),
        edge_edge_until,
        edge_edge_cubic_until,
    );
}

criterion_group!(benches, kernels);
criterion_main!(benches);
