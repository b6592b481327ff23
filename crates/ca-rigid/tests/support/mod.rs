//! Shared generators and the brute-force reference for the CA tests.
#![allow(dead_code, unreachable_pub)]

use std::sync::Arc;

use ccd_bvh::{BvhOptions, MeshBvh, Rss};
use ccd_ca_rigid::RigidBody;
use ccd_distance::triangle_triangle;
use ccd_geometry::glam::{DAffine3, DQuat, DVec3};
use ccd_geometry::{TriMesh, Triangle};
use ccd_kinematics::RigidMotion;
use proptest::prelude::*;

#[allow(unused_imports)] // each test crate uses its own part of the support
pub use ccd_test_support::{SplitMix64, blob};

/// A random rigid motion: a [`SplitMix64::rotation`] and a translation in `[-1.5, 1.5)³`,
/// linear and angular velocities in `[-2, 2)³` and `[-3, 3)³`, a rotation centre in
/// `[-0.3, 0.3)³` (the cubes drawn by [`SplitMix64::cube`]).
pub fn random_motion(rng: &mut SplitMix64) -> RigidMotion {
    let q = rng.rotation();
    RigidMotion::from_velocities(
        DAffine3::from_rotation_translation(q, rng.cube(1.5)),
        rng.cube(2.0),
        rng.cube(3.0),
        rng.cube(0.3),
    )
    .unwrap()
}

/// A soup of random triangles in a ball, including degenerate ones.
pub fn soup(tris: &[[f64; 9]], radius: f64) -> TriMesh {
    let mut v = Vec::new();
    let mut t = Vec::new();
    for (k, c) in tris.iter().enumerate() {
        let p = |i: usize| DVec3::new(c[3 * i], c[3 * i + 1], c[3 * i + 2]) * radius;
        let (a, b, mut cc) = (p(0), p(1), p(2));
        if k % 7 == 3 {
            cc = a + (b - a) * 0.5; // collinear: zero area
        }
        let base = v.len() as u32;
        v.extend([a, b, cc]);
        t.push([base, base + 1, base + 2]);
    }
    TriMesh::new(v, t).expect("valid soup")
}

pub fn body(mesh: TriMesh) -> RigidBody {
    RigidBody::new(Arc::new(
        MeshBvh::<Rss>::new(mesh, &BvhOptions::default()).expect("non-empty"),
    ))
}

/// A body that carries its hull too: the mesh CA starts with the hulls' advancement.
pub fn body_with_hull(mesh: TriMesh) -> RigidBody {
    RigidBody::with_hull(Arc::new(
        MeshBvh::<Rss>::new(mesh, &BvhOptions::default()).expect("non-empty"),
    ))
    .expect("hull")
}

/// A body with its hull or without (both paths of the mesh CA).
pub fn body_maybe_hull(mesh: TriMesh, hull: bool) -> RigidBody {
    if hull {
        body_with_hull(mesh)
    } else {
        body(mesh)
    }
}

/// Brute-force distance over all triangle pairs at time `t`.
pub fn distance_at(a: &TriMesh, ma: &RigidMotion, b: &TriMesh, mb: &RigidMotion, t: f64) -> f64 {
    let (pa, pb) = (ma.pose_at(t), mb.pose_at(t));
    let ta: Vec<Triangle> = a
        .triangle_iter()
        .map(|x| {
            Triangle::new(
                pa.transform_point3(x.a),
                pa.transform_point3(x.b),
                pa.transform_point3(x.c),
            )
        })
        .collect();
    let tb: Vec<Triangle> = b
        .triangle_iter()
        .map(|x| {
            Triangle::new(
                pb.transform_point3(x.a),
                pb.transform_point3(x.b),
                pb.transform_point3(x.c),
            )
        })
        .collect();
    let mut best = f64::INFINITY;
    for x in &ta {
        for y in &tb {
            best = best.min(triangle_triangle(x, y).distance);
        }
    }
    best
}

/// Reference first contact: dense sampling (`steps` + 1 samples) of the brute-force
/// distance, then bisection between the last separated sample and the first touching one.
/// Returns a time at which the meshes touch (distance ≤ 1e-12), or `None` if no sample
/// touches.
pub fn reference_toc(
    a: &TriMesh,
    ma: &RigidMotion,
    b: &TriMesh,
    mb: &RigidMotion,
    steps: usize,
) -> Option<f64> {
    let touch = |t: f64| distance_at(a, ma, b, mb, t) <= 1e-12;
    let mut prev = 0.0;
    for k in 0..=steps {
        let t = k as f64 / steps as f64;
        if touch(t) {
            if k == 0 {
                return Some(0.0);
            }
            let (mut lo, mut hi) = (prev, t);
            for _ in 0..50 {
                let mid = 0.5 * (lo + hi);
                if touch(mid) { hi = mid } else { lo = mid }
            }
            return Some(hi);
        }
        prev = t;
    }
    None
}

pub fn unit() -> impl Strategy<Value = DVec3> {
    (-1.0..1.0f64, 0.0..std::f64::consts::TAU).prop_map(|(z, p)| {
        let r = (1.0 - z * z).sqrt();
        DVec3::new(r * p.cos(), r * p.sin(), z)
    })
}

/// A pose within `reach` of the origin, any orientation.
pub fn pose(reach: f64) -> impl Strategy<Value = DAffine3> {
    (unit(), -3.1..3.1f64, prop::array::uniform3(-reach..reach)).prop_map(|(a, w, c)| {
        DAffine3::from_rotation_translation(DQuat::from_axis_angle(a, w), DVec3::from_array(c))
    })
}

pub fn motion(reach: f64) -> impl Strategy<Value = RigidMotion> {
    (pose(reach), pose(reach)).prop_map(|(p, q)| RigidMotion::between(p, q).expect("rigid"))
}
