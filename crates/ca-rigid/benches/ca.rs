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
use ccd_geometry::glam::{DAffine3, DVec3};
use ccd_kinematics::RigidMotion;
use ccd_test_support::{ROUGH_SPHERE_SEED, axis_angle_pose, noise, rough_sphere, wavy_terrain};
use criterion::{Criterion, criterion_group, criterion_main};

struct Workload {
    name: &'static str,
    a: TriMesh,
    b: TriMesh,
    ma: RigidMotion,
    mb: RigidMotion,
}

fn workloads() -> Vec<Workload> {
    let still = RigidMotion::stationary(DAffine3::IDENTITY).unwrap();
    let tor = TriMesh::torus(1.0, 0.35, 70, 35).expect("valid torus"); // 4900 triangles
    let sph = rough_sphere(35, 0.6, 0.0).expect("valid sphere"); // 4900 triangles
    let head_on = RigidMotion::between(
        axis_angle_pose(DVec3::Z, 0.0, DVec3::new(4.0, 0.0, 0.0)),
        axis_angle_pose(DVec3::Y, 0.6, DVec3::new(-1.0, 0.0, 0.0)),
    )
    .unwrap();
    // the sphere passes above the torus tube: tube top z = 0.35, sphere radius 0.6
    let near = RigidMotion::between(
        axis_angle_pose(DVec3::Z, 0.0, DVec3::new(3.0, 0.0, 0.96)),
        axis_angle_pose(DVec3::Z, 0.0, DVec3::new(-3.0, 0.0, 0.96)),
    )
    .unwrap();
    let far = RigidMotion::between(
        axis_angle_pose(DVec3::Z, 0.0, DVec3::new(3.0, 0.0, 3.0)),
        axis_angle_pose(DVec3::Z, 0.0, DVec3::new(-3.0, 0.0, 3.0)),
    )
    .unwrap();
    let rot90 = RigidMotion::between(
        axis_angle_pose(DVec3::X, 0.0, DVec3::new(2.5, 0.0, 0.5)),
        axis_angle_pose(DVec3::new(1.0, 1.0, 0.0), 1.5, DVec3::new(0.0, 0.0, 0.2)),
    )
    .unwrap();
    let bar = DVec3::new(3.0, 0.05, 0.05);
    let bar = TriMesh::cuboid(-bar, bar).expect("valid box");
    let spin = RigidMotion::between(
        axis_angle_pose(DVec3::Z, 0.0, DVec3::ZERO),
        axis_angle_pose(DVec3::Z, 170f64.to_radians(), DVec3::ZERO),
    )
    .unwrap();
    let ball =
        RigidMotion::stationary(axis_angle_pose(DVec3::Z, 0.0, DVec3::new(0.0, 2.0, 0.0))).unwrap();
    let plate = DVec3::new(0.5, 0.5, 0.005);
    let plate = TriMesh::cuboid(-plate, plate).expect("valid box");
    let fly = RigidMotion::between(
        axis_angle_pose(DVec3::Z, 0.0, DVec3::new(0.3, 0.1, 20.0)),
        axis_angle_pose(DVec3::Z, 0.3, DVec3::new(0.0, 0.0, -20.0)),
    )
    .unwrap();
    let drop = RigidMotion::between(
        axis_angle_pose(DVec3::X, 0.0, DVec3::new(0.5, 0.3, 3.0)),
        axis_angle_pose(DVec3::X, 0.4, DVec3::new(0.4, 0.2, -1.0)),
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
            a: wavy_terrain(224).expect("valid terrain"),
            b: rough_sphere(100, 1.0, 0.02).expect("valid sphere"),
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
        .map(|i| {
            DVec3::new(
                noise(ROUGH_SPHERE_SEED, 3 * i),
                noise(ROUGH_SPHERE_SEED, 3 * i + 1),
                noise(ROUGH_SPHERE_SEED, 3 * i + 2),
            )
            .normalize()
                * 0.5
        })
        .collect();
    let poly = ConvexHull::new_3d(&hull_pts).unwrap();
    let hull = TriMesh::new(poly.vertices().to_vec(), poly.faces().to_vec()).unwrap();
    let hb = RigidBody::with_hull(Arc::new(
        MeshBvh::<Rss>::new(hull.clone(), &BvhOptions::default()).unwrap(),
    ))
    .unwrap();
    let still = RigidMotion::stationary(DAffine3::IDENTITY).unwrap();
    let mv = RigidMotion::between(
        axis_angle_pose(DVec3::Z, 0.0, DVec3::new(3.0, 0.2, 0.0)),
        axis_angle_pose(DVec3::Y, 1.0, DVec3::new(-1.0, 0.0, 0.1)),
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
