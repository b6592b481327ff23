//! World enclosures of all links (Taylor vs interval) for a 15-link humanoid-shaped tree
//! and a 64-link chain, and motion-bound evaluation, on fixed-seed motions.

use std::hint::black_box;

use ccd_kinematics::glam::{DAffine3, DVec3};
use ccd_kinematics::{ArticulatedModel, ArticulatedMotion, Joint, LinkId, LinkSpec};
use ccd_taylor::{Interval, TaylorModel};
use criterion::{Criterion, criterion_group, criterion_main};

/// SplitMix64 in [-1, 1): fixed inputs without an RNG dependency.
struct Gen(u64);
impl Gen {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        2.0 * (((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64) - 1.0
    }
}

fn revolute(axis: DVec3) -> Joint {
    Joint::Revolute { axis, limits: None }
}

fn link(name: &str, parent: Option<&str>, joint: Joint, at: DVec3) -> LinkSpec {
    LinkSpec {
        name: name.into(),
        parent: parent.map(Into::into),
        joint,
        offset: DAffine3::from_translation(at),
    }
}

/// Pelvis (floating) with torso–head, two arms (3 links) and two legs (3 links).
fn humanoid() -> ArticulatedModel {
    let mut s = vec![link("pelvis", None, Joint::Floating, DVec3::ZERO)];
    s.push(link(
        "torso",
        Some("pelvis"),
        Joint::Spherical,
        DVec3::Y * 0.2,
    ));
    s.push(link(
        "head",
        Some("torso"),
        Joint::Spherical,
        DVec3::Y * 0.5,
    ));
    for side in [-1.0, 1.0] {
        let tag = if side < 0.0 { "l" } else { "r" };
        s.push(link(
            &format!("{tag}_upper_arm"),
            Some("torso"),
            Joint::Spherical,
            DVec3::new(0.2 * side, 0.45, 0.0),
        ));
        s.push(link(
            &format!("{tag}_forearm"),
            Some(&format!("{tag}_upper_arm")),
            revolute(DVec3::Z),
            -DVec3::Y * 0.3,
        ));
        s.push(link(
            &format!("{tag}_hand"),
            Some(&format!("{tag}_forearm")),
            revolute(DVec3::X),
            -DVec3::Y * 0.25,
        ));
        s.push(link(
            &format!("{tag}_thigh"),
            Some("pelvis"),
            Joint::Spherical,
            DVec3::new(0.1 * side, -0.1, 0.0),
        ));
        s.push(link(
            &format!("{tag}_shin"),
            Some(&format!("{tag}_thigh")),
            revolute(DVec3::X),
            -DVec3::Y * 0.45,
        ));
        s.push(link(
            &format!("{tag}_foot"),
            Some(&format!("{tag}_shin")),
            revolute(DVec3::X),
            -DVec3::Y * 0.45,
        ));
    }
    s.push(link("neck_cam", Some("head"), Joint::Fixed, DVec3::Z * 0.1));
    ArticulatedModel::new(s).expect("valid humanoid")
}

fn chain(n: usize) -> ArticulatedModel {
    let axes = [DVec3::Z, DVec3::Y, DVec3::X];
    let specs = (0..n)
        .map(|i| {
            let parent = (i > 0).then(|| format!("l{}", i - 1));
            link(
                &format!("l{i}"),
                parent.as_deref(),
                revolute(axes[i % 3]),
                if i == 0 { DVec3::ZERO } else { DVec3::X * 0.2 },
            )
        })
        .collect();
    ArticulatedModel::new(specs).expect("valid chain")
}

fn motion(model: &ArticulatedModel, seed: u64, amplitude: f64) -> ArticulatedMotion {
    let mut g = Gen(seed);
    let q0: Vec<f64> = (0..model.dof()).map(|_| amplitude * g.next()).collect();
    let q1: Vec<f64> = q0.iter().map(|q| q + amplitude * g.next()).collect();
    let p0 = model.pose_from_joints(&q0).expect("finite");
    let p1 = model.pose_from_joints(&q1).expect("finite");
    ArticulatedMotion::between(model, &p0, &p1).expect("rigid")
}

fn bench(c: &mut Criterion) {
    let cases = [
        ("humanoid15", humanoid(), 0.3),
        ("chain64", chain(64), 0.05),
    ];
    let mut g = c.benchmark_group("world_enclosures");
    for (name, model, amp) in &cases {
        let m = motion(model, 7, *amp);
        g.bench_function(format!("{name}/taylor"), |b| {
            b.iter(|| black_box(&m).enclosures::<TaylorModel>(Interval::UNIT))
        });
        g.bench_function(format!("{name}/interval"), |b| {
            b.iter(|| black_box(&m).enclosures::<Interval>(Interval::UNIT))
        });
    }
    g.finish();
    let mut g = c.benchmark_group("motion_bound");
    for (name, model, amp) in &cases {
        let m = motion(model, 7, *amp);
        let last = LinkId(model.len() as u32 - 1);
        g.bench_function(format!("{name}/deepest_link"), |b| {
            b.iter(|| {
                black_box(&m)
                    .motion_bound(black_box(last), DVec3::new(0.3, 0.8, 0.52), 0.25, 0.1)
                    .unwrap()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
