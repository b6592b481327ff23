//! CA time of contact (C2A) against plain conservative advancement on the same meshes and
//! the same constant linear + angular velocity motions (`local_center` = frame origin).
//!
//! Workloads (issue 6): torus vs sphere (~5K triangles each) head-on, near miss (0.01),
//! far miss, rotating 90° per step; a long bar spinning 170° through a sphere; two thin
//! plates passing at high speed; a 20K noisy sphere dropping on a 100K terrain; a convex
//! pair (BVH path and GJK path).
//!
//! Group `ca_analytic`: analytic pairs (`time_of_contact_shapes`), the pairs of
//! `cargo xtask bench --scene rigid-pairs`: ball–ball head-on while spinning, ball–ball near
//! miss, capsule–box turning 86° about an offset centre, cylinder–box rolling.
//!
//! The comparisons with parry3d-f64's `cast_shapes_nonlinear` live in the workspace's
//! `benches/` (`ca_rigid_vs_parry`, and `cargo xtask peers`).

use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use ccd_bvh::{BvhOptions, MeshBvh, Rss};
use ccd_ca_rigid::{
    CaOptions, RigidBody, Shape as CcdShape, time_of_contact, time_of_contact_convex,
    time_of_contact_shapes,
};
use ccd_distance::{
    Ball, Capsule, ConvexHull, Cuboid, Cylinder, MeshDistanceOptions, MeshDistanceWorkspace,
    mesh_distance_with,
};
use ccd_geometry::TriMesh;
use ccd_geometry::glam::{DAffine3, DQuat, DVec3};
use ccd_kinematics::RigidMotion;
use criterion::{Criterion, criterion_group, criterion_main};

/// Deterministic noise in [-1, 1].
fn noise(i: u64) -> f64 {
    let mut z = i
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(0x1234_5678);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    2.0 * (((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64) - 1.0
}

/// A (u, v) grid surface with wrap-around in u (and in v when `closed_v`), as triangles.
fn grid(nu: usize, nv: usize, closed_v: bool, mut f: impl FnMut(f64, f64) -> DVec3) -> TriMesh {
    let rows = if closed_v { nv } else { nv + 1 };
    let mut v = Vec::with_capacity(nu * rows);
    for j in 0..rows {
        for i in 0..nu {
            v.push(f(i as f64 / nu as f64, j as f64 / nv as f64));
        }
    }
    let id = |i: usize, j: usize| ((j % rows) * nu + (i % nu)) as u32;
    let mut t = Vec::with_capacity(2 * nu * nv);
    for j in 0..nv {
        for i in 0..nu {
            t.push([id(i, j), id(i + 1, j), id(i + 1, j + 1)]);
            t.push([id(i, j), id(i + 1, j + 1), id(i, j + 1)]);
        }
    }
    TriMesh::new(v, t).expect("valid grid")
}

/// A sphere as a closed latitude–longitude grid (poles pinched), with optional noise.
fn sphere(n: usize, r: f64, rough: f64) -> TriMesh {
    use std::f64::consts::{PI, TAU};
    let mut k = 0u64;
    grid(2 * n, n, false, |u, v| {
        let (a, b) = (TAU * u, PI * v);
        k += 1;
        let rr = r * (1.0 + rough * noise(k));
        DVec3::new(rr * b.sin() * a.cos(), rr * b.sin() * a.sin(), rr * b.cos())
    })
}

fn terrain(n: usize) -> TriMesh {
    grid(n, n, false, |u, v| {
        let (x, y) = (20.0 * u - 10.0, 20.0 * v - 10.0);
        DVec3::new(x, y, 0.3 * (0.7 * x).sin() * (0.5 * y).cos())
    })
}

fn box_mesh(h: DVec3) -> TriMesh {
    TriMesh::cuboid(-h, h).expect("valid box")
}

struct Workload {
    name: &'static str,
    a: TriMesh,
    b: TriMesh,
    ma: RigidMotion,
    mb: RigidMotion,
}

fn pose(axis: DVec3, angle: f64, at: DVec3) -> DAffine3 {
    DAffine3::from_rotation_translation(DQuat::from_axis_angle(axis.normalize(), angle), at)
}

fn workloads() -> Vec<Workload> {
    let still = RigidMotion::stationary(DAffine3::IDENTITY).unwrap();
    let tor = TriMesh::torus(1.0, 0.35, 70, 35).expect("valid torus"); // 4900 triangles
    let sph = sphere(35, 0.6, 0.0); // 4900 triangles
    let head_on = RigidMotion::between(
        pose(DVec3::Z, 0.0, DVec3::new(4.0, 0.0, 0.0)),
        pose(DVec3::Y, 0.6, DVec3::new(-1.0, 0.0, 0.0)),
    )
    .unwrap();
    // the sphere passes above the torus tube: tube top z = 0.35, sphere radius 0.6
    let near = RigidMotion::between(
        pose(DVec3::Z, 0.0, DVec3::new(3.0, 0.0, 0.96)),
        pose(DVec3::Z, 0.0, DVec3::new(-3.0, 0.0, 0.96)),
    )
    .unwrap();
    let far = RigidMotion::between(
        pose(DVec3::Z, 0.0, DVec3::new(3.0, 0.0, 3.0)),
        pose(DVec3::Z, 0.0, DVec3::new(-3.0, 0.0, 3.0)),
    )
    .unwrap();
    let rot90 = RigidMotion::between(
        pose(DVec3::X, 0.0, DVec3::new(2.5, 0.0, 0.5)),
        pose(DVec3::new(1.0, 1.0, 0.0), 1.5, DVec3::new(0.0, 0.0, 0.2)),
    )
    .unwrap();
    let bar = box_mesh(DVec3::new(3.0, 0.05, 0.05));
    let spin = RigidMotion::between(
        pose(DVec3::Z, 0.0, DVec3::ZERO),
        pose(DVec3::Z, 170f64.to_radians(), DVec3::ZERO),
    )
    .unwrap();
    let ball = RigidMotion::stationary(pose(DVec3::Z, 0.0, DVec3::new(0.0, 2.0, 0.0))).unwrap();
    let plate = box_mesh(DVec3::new(0.5, 0.5, 0.005));
    let fly = RigidMotion::between(
        pose(DVec3::Z, 0.0, DVec3::new(0.3, 0.1, 20.0)),
        pose(DVec3::Z, 0.3, DVec3::new(0.0, 0.0, -20.0)),
    )
    .unwrap();
    let drop = RigidMotion::between(
        pose(DVec3::X, 0.0, DVec3::new(0.5, 0.3, 3.0)),
        pose(DVec3::X, 0.4, DVec3::new(0.4, 0.2, -1.0)),
    )
    .unwrap();
    vec![
        Workload {
            name: "torus_sphere_head_on",
            a: tor.clone(),
            b: sph.clone(),
            ma: still,
            mb: head_on,
        },
        Workload {
            name: "torus_sphere_near_miss",
            a: tor.clone(),
            b: sph.clone(),
            ma: still,
            mb: near,
        },
        Workload {
            name: "torus_sphere_far_miss",
            a: tor.clone(),
            b: sph.clone(),
            ma: still,
            mb: far,
        },
        Workload {
            name: "torus_sphere_rot90",
            a: tor,
            b: sph.clone(),
            ma: still,
            mb: rot90,
        },
        Workload {
            name: "bar_spin170_sphere",
            a: bar,
            b: sph,
            ma: spin,
            mb: ball,
        },
        Workload {
            name: "thin_plates",
            a: plate.clone(),
            b: plate,
            ma: still,
            mb: fly,
        },
        Workload {
            name: "sphere20k_terrain100k",
            a: terrain(224),
            b: sphere(100, 1.0, 0.02),
            ma: still,
            mb: drop,
        },
    ]
}

fn body(m: &TriMesh) -> RigidBody {
    RigidBody::new(Arc::new(
        MeshBvh::<Rss>::new(m.clone(), &BvhOptions::default()).unwrap(),
    ))
}

/// Plain CA (CATCH Eq. 4 without the per-node refinement), the baseline for C2A: each
/// iteration computes the exact mesh distance `d` (PQP-style, warm-started with the last
/// closest pair) and advances by `d / μ` with the direction-free bound
/// `μ = |Δv| + ω_a R_a + ω_b R_b` (a projected bound is not safe for non-convex meshes).
/// Returns the toc (or `None`) and the iteration count; capped at 1000 iterations.
fn plain_ca(
    a: &RigidBody,
    ma: &RigidMotion,
    b: &RigidBody,
    mb: &RigidMotion,
    eps: f64,
    ws: &mut MeshDistanceWorkspace,
) -> (Option<f64>, u32) {
    let mu = (mb.linear_velocity() - ma.linear_velocity()).length()
        + ma.angle() * a.radius()
        + mb.angle() * b.radius();
    let mut opts = MeshDistanceOptions::default();
    let mut t = 0.0;
    for it in 1..=1000 {
        let r = mesh_distance_with(
            a.mesh_bvh(),
            &ma.pose_at(t),
            b.mesh_bvh(),
            &mb.pose_at(t),
            &opts,
            ws,
        )
        .expect("valid poses");
        opts.hint = Some(r.hint());
        let d = r.closest.distance;
        if d <= eps {
            return (Some(t), it);
        }
        t += (d - 0.5 * eps) / (mu * (1.0 + 1e-12));
        if t >= 1.0 {
            return (None, it);
        }
    }
    (Some(t), 1000)
}

fn bench(c: &mut Criterion) {
    let opts = CaOptions::default();
    let mut g = c.benchmark_group("ca_rigid");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    for w in workloads() {
        let (ba, bb) = (body(&w.a), body(&w.b));
        let ours = time_of_contact(&ba, &w.ma, &bb, &w.mb, &opts).unwrap();
        eprintln!(
            "{}: {}x{} triangles, toc = {:?}, iterations = {:?}",
            w.name,
            w.a.triangle_count(),
            w.b.triangle_count(),
            ours.map(|c| c.toc),
            ours.map(|c| c.stats.iterations)
        );
        g.bench_function(format!("{}/ccd", w.name), |bch| {
            bch.iter(|| time_of_contact(black_box(&ba), &w.ma, black_box(&bb), &w.mb, &opts))
        });
        // plain CA on the same inputs (the C2A-vs-CA comparison of issue 6)
        let mut mws = MeshDistanceWorkspace::default();
        let (plain_toc, plain_it) = plain_ca(&ba, &w.ma, &bb, &w.mb, opts.tolerance, &mut mws);
        eprintln!(
            "{}: plain CA toc = {plain_toc:?}, iterations = {plain_it}",
            w.name
        );
        g.bench_function(format!("{}/plain_ca", w.name), |bch| {
            bch.iter(|| {
                plain_ca(
                    black_box(&ba),
                    &w.ma,
                    black_box(&bb),
                    &w.mb,
                    opts.tolerance,
                    &mut mws,
                )
            })
        });
    }
    // convex pairs: both sides the convex hull of 200 points on a sphere, as a mesh
    let hull_pts: Vec<DVec3> = (0..200)
        .map(|i| DVec3::new(noise(3 * i), noise(3 * i + 1), noise(3 * i + 2)).normalize() * 0.5)
        .collect();
    let poly = ConvexHull::new_3d(&hull_pts).unwrap();
    let hull = TriMesh::new(poly.vertices().to_vec(), poly.faces().to_vec()).unwrap();
    let hb = RigidBody::with_hull(Arc::new(
        MeshBvh::<Rss>::new(hull.clone(), &BvhOptions::default()).unwrap(),
    ))
    .unwrap();
    let still = RigidMotion::stationary(DAffine3::IDENTITY).unwrap();
    let mv = RigidMotion::between(
        pose(DVec3::Z, 0.0, DVec3::new(3.0, 0.2, 0.0)),
        pose(DVec3::Y, 1.0, DVec3::new(-1.0, 0.0, 0.1)),
    )
    .unwrap();
    eprintln!(
        "convex_pair: ours toc = {:?}",
        time_of_contact(&hb, &still, &hb, &mv, &opts)
            .unwrap()
            .map(|c| c.toc)
    );
    g.bench_function("convex_pair/ccd", |bch| {
        bch.iter(|| time_of_contact(black_box(&hb), &still, black_box(&hb), &mv, &opts))
    });
    eprintln!(
        "convex_pair: ours (GJK path) toc = {:?}",
        time_of_contact_convex(&hb, &still, &hb, &mv, &opts)
            .unwrap()
            .map(|c| c.toc)
    );
    g.bench_function("convex_pair/ccd_gjk", |bch| {
        bch.iter(|| time_of_contact_convex(black_box(&hb), &still, black_box(&hb), &mv, &opts))
    });
    g.finish();
}

/// A motion from a start translation, linear and angular velocity and a rotation centre.
fn velocities(at: DVec3, lin: DVec3, ang: DVec3, centre: DVec3) -> RigidMotion {
    RigidMotion::from_velocities(DAffine3::from_translation(at), lin, ang, centre).unwrap()
}

/// A named analytic pair: both shapes and both motions.
type AnalyticPair = (&'static str, CcdShape, CcdShape, RigidMotion, RigidMotion);

fn analytic(c: &mut Criterion) {
    let opts = CaOptions::default();
    let mut g = c.benchmark_group("ca_analytic");
    g.sample_size(20)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    let still = velocities(DVec3::ZERO, DVec3::ZERO, DVec3::ZERO, DVec3::ZERO);
    let pairs: Vec<AnalyticPair> = vec![
        (
            "ball-ball head-on spinning",
            CcdShape::Ball(Ball::new(0.5).unwrap()),
            CcdShape::Ball(Ball::new(0.3).unwrap()),
            still,
            velocities(
                DVec3::new(4.0, 0.2, 0.1),
                DVec3::new(-8.0, 0.0, 0.0),
                DVec3::new(0.0, 20.0, 5.0),
                DVec3::ZERO,
            ),
        ),
        (
            "ball-ball near miss",
            CcdShape::Ball(Ball::new(0.5).unwrap()),
            CcdShape::Ball(Ball::new(0.3).unwrap()),
            still,
            velocities(
                DVec3::new(4.0, 0.81, 0.0),
                DVec3::new(-8.0, 0.0, 0.0),
                DVec3::ZERO,
                DVec3::ZERO,
            ),
        ),
        (
            "capsule-box 86deg offset centre",
            CcdShape::Capsule(Capsule::new_y(0.6, 0.2).unwrap()),
            CcdShape::Cuboid(Cuboid::new(DVec3::new(0.5, 0.4, 0.3)).unwrap()),
            velocities(
                DVec3::new(-2.5, 0.3, 0.0),
                DVec3::new(3.0, 0.0, 0.0),
                DVec3::new(0.0, 0.0, 1.5),
                DVec3::new(0.0, 0.4, 0.0),
            ),
            still,
        ),
        (
            "cylinder-box rolling",
            CcdShape::Cylinder(Cylinder::new(0.3, 0.5).unwrap()),
            CcdShape::Cuboid(Cuboid::new(DVec3::splat(0.4)).unwrap()),
            velocities(
                DVec3::new(-3.0, 0.0, 0.0),
                DVec3::new(4.0, 0.0, 0.0),
                DVec3::new(0.0, 0.0, -8.0),
                DVec3::ZERO,
            ),
            still,
        ),
    ];
    for (name, a, b, ma, mb) in &pairs {
        let ours = time_of_contact_shapes(a, ma, b, mb, &opts).unwrap();
        eprintln!(
            "{name}: ours toc = {:?} ({:?} iterations)",
            ours.map(|c| c.toc),
            ours.map(|c| c.stats.iterations),
        );
        g.bench_function(format!("{name}/ccd"), |bch| {
            bch.iter(|| time_of_contact_shapes(black_box(a), ma, black_box(b), mb, &opts))
        });
    }
    g.finish();
}

criterion_group!(benches, bench, analytic);
criterion_main!(benches);
