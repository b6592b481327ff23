//! One CCD step of an avatar against a static environment, per method.
//!
//! - `arm-swing`: a 3-link arm swinging 2 rad per step through a thin plate (the Fig. 5 case)
//!   over a 20K-triangle floor grid.
//! - `cmu-131_03`: the CMU walk (27 capsules) over an 80K-triangle floor grid with a thin
//!   plate across the path, every frame (120 Hz) and every 5th frame (fast motion); one
//!   iteration is one step, cycling through the clip. Skipped with a message when
//!   `../shared/data` (or `$CCD_SHARED_DIR/data`) is absent.

use std::hint::black_box;
use std::path::PathBuf;

use ccd_avatar_sv::{
    Avatar, AvatarStepOptions, Environment, LinkCapsule, Methods, RadiusTable, step,
};
use ccd_geometry::TriMesh;
use ccd_kinematics::glam::{DAffine3, DQuat, DVec3};
use ccd_kinematics::mocap::MocapClip;
use ccd_kinematics::{ArticulatedModel, Joint, LinkId, LinkSpec, Pose};
use criterion::{Criterion, criterion_group, criterion_main};

/// An `n × n` grid of quads over `[-half, half]²` at height `y` (y up), plus a thin
/// vertical plate (two faces 1 mm apart) at `plate` facing `normal`.
fn floor_and_plate(n: usize, half: f64, y: f64, plate: DVec3, normal: DVec3) -> TriMesh {
    let mut v = Vec::new();
    let mut f = Vec::new();
    for j in 0..=n {
        for i in 0..=n {
            let x = -half + 2.0 * half * i as f64 / n as f64;
            let z = -half + 2.0 * half * j as f64 / n as f64;
            v.push(DVec3::new(x, y, z));
        }
    }
    let w = (n + 1) as u32;
    for j in 0..n as u32 {
        for i in 0..n as u32 {
            let a = j * w + i;
            f.push([a, a + w + 1, a + 1]);
            f.push([a, a + w, a + w + 1]);
        }
    }
    let side = DVec3::Y.cross(normal).normalize();
    for off in [0.0, 0.001] {
        let b = plate + normal * off;
        let s = v.len() as u32;
        v.extend([
            b - side * 0.6 - DVec3::Y * 0.2,
            b + side * 0.6 - DVec3::Y * 0.2,
            b + side * 0.6 + DVec3::Y * 0.2,
            b - side * 0.6 + DVec3::Y * 0.2,
        ]);
        f.extend([[s, s + 1, s + 2], [s, s + 2, s + 3]]);
    }
    TriMesh::new(v, f).unwrap()
}

fn options(methods: Methods) -> AvatarStepOptions {
    AvatarStepOptions::default().with_methods(methods)
}

fn arm_swing(c: &mut Criterion) {
    let specs = (0..3)
        .map(|i| LinkSpec {
            name: format!("l{i}"),
            parent: (i > 0).then(|| format!("l{}", i - 1)),
            joint: if i == 0 {
                Joint::Floating
            } else {
                Joint::Spherical
            },
            offset: DAffine3::from_translation(if i == 0 {
                DVec3::new(0.0, 1.2, 0.0)
            } else {
                DVec3::X * 0.3
            }),
        })
        .collect();
    let model = ArticulatedModel::new(specs).unwrap();
    let capsules = (0..3)
        .map(|i| LinkCapsule::along_x(LinkId(i), 0.0, 0.3, 0.04))
        .collect();
    let avatar = Avatar::new(model, capsules).unwrap();
    let env = Environment::new(floor_and_plate(
        100,
        5.0,
        0.0,
        DVec3::new(0.0, 1.2, 0.6),
        DVec3::Z,
    ))
    .unwrap();
    let pose = |a: f64| Pose {
        relative: vec![
            DAffine3::from_rotation_translation(
                DQuat::from_rotation_y(a),
                DVec3::new(0.0, 1.2, 0.0),
            ),
            DAffine3::from_rotation_translation(DQuat::from_rotation_y(0.1), DVec3::X * 0.3),
            DAffine3::from_rotation_translation(DQuat::from_rotation_y(0.1), DVec3::X * 0.3),
        ],
    };
    let (p0, p1) = (pose(0.5), pose(-1.5));
    let mut g = c.benchmark_group("arm-swing");
    for (name, m) in [("exact", Methods::Exact), ("swept", Methods::SweptVolume)] {
        let o = options(m);
        g.bench_function(name, |b| {
            b.iter(|| step(&avatar, &env, black_box(&p0), black_box(&p1), &o).unwrap());
        });
    }
    g.finish();
}

fn cmu(c: &mut Criterion) {
    let data = match std::env::var_os("CCD_SHARED_DIR") {
        Some(shared) => PathBuf::from(shared).join("data"),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"),
    };
    let path = data.join("mocap/cmu-131/scaled_131_03.bvh");
    if !path.is_file() {
        eprintln!(
            "skipped: cmu-131_03 benchmark: {} not found",
            path.display()
        );
        return;
    }
    let clip = MocapClip::from_file(&path).unwrap();
    let avatar = Avatar::from_mocap(&clip, &RadiusTable::human()).unwrap();
    let root = clip.pose(700).unwrap().relative[0].translation;
    let next = clip.pose(710).unwrap().relative[0].translation;
    let dir = DVec3::new(next.x - root.x, 0.0, next.z - root.z).normalize();
    let env = Environment::new(floor_and_plate(
        200,
        10.0,
        -0.02,
        DVec3::new(root.x, 1.1, root.z),
        dir,
    ))
    .unwrap();
    let poses: Vec<Pose> = clip.poses().collect();
    let mut g = c.benchmark_group("cmu-131_03");
    for stride in [1usize, 5] {
        let pairs: Vec<(Pose, Pose)> = (0..poses.len() - stride)
            .step_by(stride)
            .map(|f| (poses[f].clone(), poses[f + stride].clone()))
            .collect();
        for (name, m) in [("exact", Methods::Exact), ("swept", Methods::SweptVolume)] {
            let o = options(m);
            let mut k = 0;
            g.bench_function(format!("every-{stride}/{name}"), |b| {
                b.iter(|| {
                    let (p0, p1) = &pairs[k % pairs.len()];
                    k += 1;
                    step(&avatar, &env, black_box(p0), black_box(p1), &o).unwrap()
                });
            });
        }
    }
    g.finish();
}

criterion_group!(benches, arm_swing, cmu);
criterion_main!(benches);
