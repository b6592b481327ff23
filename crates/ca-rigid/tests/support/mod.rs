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

/// splitmix64: a deterministic random stream for spreads of cases (the seed is the case).
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)` (53 bits).
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in the cube `[-r, r]³`.
    pub fn vec(&mut self, r: f64) -> DVec3 {
        DVec3::new(
            r * (2.0 * self.unit() - 1.0),
            r * (2.0 * self.unit() - 1.0),
            r * (2.0 * self.unit() - 1.0),
        )
    }
}

/// An axis-aligned box mesh (12 triangles).
pub fn box_mesh(min: DVec3, max: DVec3) -> TriMesh {
    TriMesh::cuboid(min, max).expect("valid box")
}

/// A noisy UV sphere (a closed, slightly non-convex mesh) with `n` segments.
pub fn blob(radius: f64, n: usize, noise: &[f64]) -> TriMesh {
    let (rings, segs) = (n, 2 * n);
    let mut v = vec![DVec3::new(0.0, 0.0, radius)];
    let mut k = 0;
    for i in 1..rings {
        let th = std::f64::consts::PI * i as f64 / rings as f64;
        for j in 0..segs {
            let ph = std::f64::consts::TAU * j as f64 / segs as f64;
            let r = radius * (1.0 + 0.2 * noise[k % noise.len()]);
            k += 1;
            v.push(DVec3::new(
                r * th.sin() * ph.cos(),
                r * th.sin() * ph.sin(),
                r * th.cos(),
            ));
        }
    }
    v.push(DVec3::new(0.0, 0.0, -radius));
    let idx = |i: usize, j: usize| (1 + (i - 1) * segs + j % segs) as u32;
    let last = (v.len() - 1) as u32;
    let mut t = Vec::new();
    for j in 0..segs {
        t.push([0, idx(1, j), idx(1, j + 1)]);
        t.push([last, idx(rings - 1, j + 1), idx(rings - 1, j)]);
    }
    for i in 1..rings - 1 {
        for j in 0..segs {
            t.push([idx(i, j), idx(i + 1, j), idx(i + 1, j + 1)]);
            t.push([idx(i, j), idx(i + 1, j + 1), idx(i, j + 1)]);
        }
    }
    TriMesh::new(v, t).expect("valid blob")
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
