//! `bound()` of a 10-link chain transform (the swept box of the last link's OBB corners),
//! Taylor models vs interval arithmetic, on the same fixed-seed motions.

use std::hint::black_box;

use ccd_taylor::glam::{DMat3, DQuat, DVec3};
use ccd_taylor::{Aabb, ConstantVelocity, Enclosure, Interval, TaylorModel, Transform};
use criterion::{Criterion, criterion_group, criterion_main};

/// Tiny deterministic generator (SplitMix64) so the bench needs no RNG crate.
struct SplitMix(u64);
impl SplitMix {
    fn next_f64(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }
    fn unit(&mut self) -> DVec3 {
        let z = 2.0 * self.next_f64() - 1.0;
        let phi = std::f64::consts::TAU * self.next_f64();
        let r = (1.0 - z * z).sqrt();
        DVec3::new(r * phi.cos(), r * phi.sin(), z)
    }
}

fn links(n: usize) -> Vec<ConstantVelocity> {
    let mut rng = SplitMix(42);
    (0..n)
        .map(|_| {
            let r0 = DMat3::from_quat(DQuat::from_axis_angle(rng.unit(), rng.next_f64()));
            let angle = 45f64.to_radians() * rng.next_f64();
            ConstantVelocity::new(
                r0,
                DVec3::X,
                rng.unit(),
                angle,
                rng.unit() * 0.1 * rng.next_f64(),
            )
            .expect("rigid")
        })
        .collect()
}

fn chain_box<E: Enclosure>(links: &[ConstantVelocity], obb: &Aabb) -> Aabb {
    let dom = Interval::UNIT;
    let t = links
        .iter()
        .map(|m| Transform::<E>::from_motion(m, dom))
        .fold(Transform::identity(dom), |a, m| a.compose(&m));
    t.aabb_of_box(obb)
}

fn bench(c: &mut Criterion) {
    let links = links(10);
    let obb = Aabb::new(DVec3::new(0.0, -0.1, -0.1), DVec3::new(1.0, 0.1, 0.1));
    let mut g = c.benchmark_group("chain10_swept_box");
    g.bench_function("taylor", |b| {
        b.iter(|| chain_box::<TaylorModel>(black_box(&links), black_box(&obb)))
    });
    g.bench_function("interval", |b| {
        b.iter(|| chain_box::<Interval>(black_box(&links), black_box(&obb)))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
