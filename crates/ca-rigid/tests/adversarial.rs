//! Adversarial CA cases whose contact time is known in closed form: thin plates passing at
//! high speed, a long bar spinning 170°, grazing and sliding contacts, touching at t = 0,
//! degenerate triangles, Boolean mode, the absolute-value motion bound (FCL #555).

mod support;

use ccd_ca_rigid::{CaError, CaOptions, Mode, Status, time_of_contact};
use ccd_geometry::TriMesh;
use ccd_geometry::glam::{DAffine3, DQuat, DVec3};
use ccd_kinematics::RigidMotion;
use support::*;

const EPS: f64 = 1e-3;

fn opts() -> CaOptions {
    CaOptions::default().with_tolerance(EPS)
}

fn slide(from: DVec3, to: DVec3) -> RigidMotion {
    RigidMotion::between(
        DAffine3::from_translation(from),
        DAffine3::from_translation(to),
    )
    .unwrap()
}

fn still() -> RigidMotion {
    RigidMotion::stationary(DAffine3::IDENTITY).unwrap()
}

#[test]
fn thin_plates_at_high_speed_do_not_tunnel() {
    // plates 1 x 1 x 0.01; B falls from z = 10 to z = -10: its bottom meets A's top when
    // 10 - 20 t = 0.01, t = 0.4995; tolerance ε in distance is ε / 20 in time.
    let plate = TriMesh::cuboid(DVec3::ZERO, DVec3::new(1.0, 1.0, 0.01)).unwrap();
    let (a, b) = (body(plate.clone()), body(plate));
    let mb = slide(DVec3::new(0.0, 0.0, 10.0), DVec3::new(0.0, 0.0, -10.0));
    let c = time_of_contact(&a, &still(), &b, &mb, &opts())
        .unwrap()
        .expect("contact");
    assert_eq!(c.status, Status::Converged);
    assert!(
        c.toc <= 0.4995 && c.toc >= 0.4995 - EPS / 20.0 - 1e-12,
        "toc {}",
        c.toc
    );
    assert!(c.distance <= EPS && c.distance > 0.0);
    assert!(c.normal.z > 0.99, "normal {}", c.normal);
}

#[test]
fn long_bar_spinning_170_degrees_hits_a_box() {
    // a bar along x of half-length 2 spins 170° about z; a small box sits at (0, 1.5, 0):
    // the bar reaches it when its angle reaches atan2 of the box's nearest corner.
    let bar = TriMesh::cuboid(DVec3::new(-2.0, -0.05, -0.05), DVec3::new(2.0, 0.05, 0.05)).unwrap();
    let obstacle = TriMesh::cuboid(DVec3::new(-0.1, 1.4, -0.1), DVec3::new(0.1, 1.6, 0.1)).unwrap();
    let spin = RigidMotion::between(
        DAffine3::IDENTITY,
        DAffine3::from_quat(DQuat::from_rotation_z(170f64.to_radians())),
    )
    .unwrap();
    assert!((spin.angle() - 170f64.to_radians()).abs() < 1e-9);
    let c = time_of_contact(
        &body(bar.clone()),
        &spin,
        &body(obstacle.clone()),
        &still(),
        &opts(),
    )
    .unwrap()
    .expect("contact");
    let r = reference_toc(&bar, &spin, &obstacle, &still(), 4000).expect("reference contact");
    assert!(c.toc <= r + 1e-9, "toc {} vs reference {r}", c.toc);
    assert!(r - c.toc < 0.01, "too early: {} vs {r}", c.toc);
}

#[test]
fn grazing_within_tolerance_is_contact_and_beyond_is_not() {
    let cube = TriMesh::cuboid(DVec3::ZERO, DVec3::ONE).unwrap();
    let (a, b) = (body(cube.clone()), body(cube));
    // B passes over A with a gap of 0.0005 (< ε): contact
    let near = slide(DVec3::new(-3.0, 0.0, 1.0005), DVec3::new(3.0, 0.0, 1.0005));
    let c = time_of_contact(&a, &still(), &b, &near, &opts())
        .unwrap()
        .expect("grazing contact");
    assert!(c.distance <= EPS);
    // (B's right face reaches x = 0 at t = 1/3; the gap is already below ε, so toc ≤ 1/3)
    assert!(c.toc <= 1.0 / 3.0 + 1e-9);
    // a gap of 0.01 (> ε): no contact
    let far = slide(DVec3::new(-3.0, 0.0, 1.01), DVec3::new(3.0, 0.0, 1.01));
    assert!(
        time_of_contact(&a, &still(), &b, &far, &opts())
            .unwrap()
            .is_none()
    );
}

#[test]
fn parallel_faces_sliding_without_approach() {
    let cube = TriMesh::cuboid(DVec3::ZERO, DVec3::ONE).unwrap();
    let (a, b) = (body(cube.clone()), body(cube));
    let m = slide(DVec3::new(0.0, 0.0, 1.5), DVec3::new(0.7, 0.3, 1.5));
    let r = time_of_contact(&a, &still(), &b, &m, &opts()).unwrap();
    assert!(r.is_none(), "{r:?}");
}

#[test]
fn touching_at_start() {
    let cube = TriMesh::cuboid(DVec3::ZERO, DVec3::ONE).unwrap();
    let (a, b) = (body(cube.clone()), body(cube));
    let m = slide(DVec3::new(1.0, 0.0, 0.0), DVec3::new(5.0, 0.0, 0.0));
    let c = time_of_contact(&a, &still(), &b, &m, &opts())
        .unwrap()
        .expect("touching");
    assert_eq!(c.status, Status::InitiallyTouching);
    assert_eq!(c.toc, 0.0);
}

#[test]
fn degenerate_triangles_still_collide() {
    // a soup made only of zero-area triangles (segments) sweeping through a box
    let needles = ccd_geometry::TriMesh::new(
        vec![
            DVec3::new(0.0, -1.0, 0.0),
            DVec3::new(0.0, 1.0, 0.0),
            DVec3::new(0.0, 0.0, 0.0),
        ],
        vec![[0, 1, 2]],
    )
    .unwrap();
    assert_eq!(needles.degenerate_triangles(), &[0]);
    let cube = TriMesh::cuboid(DVec3::new(-0.5, -0.5, -0.5), DVec3::new(0.5, 0.5, 0.5)).unwrap();
    let m = slide(DVec3::new(-2.0, 0.0, 0.0), DVec3::new(2.0, 0.0, 0.0));
    let c = time_of_contact(&body(cube), &still(), &body(needles), &m, &opts())
        .unwrap()
        .expect("contact");
    // the needle reaches x = -0.5 at t = 0.375
    assert!(
        c.toc <= 0.375 && c.toc > 0.375 - EPS / 4.0 - 1e-12,
        "toc {}",
        c.toc
    );
}

#[test]
fn boolean_mode_agrees_with_toc_mode() {
    let cube = TriMesh::cuboid(DVec3::ZERO, DVec3::ONE).unwrap();
    let (a, b) = (body(cube.clone()), body(cube));
    let hit = slide(DVec3::new(-3.0, 0.0, 0.0), DVec3::new(3.0, 0.0, 0.0));
    let miss = slide(DVec3::new(-3.0, 0.0, 2.0), DVec3::new(3.0, 0.0, 2.0));
    let boolean = opts().with_mode(Mode::Boolean);
    assert!(
        time_of_contact(&a, &still(), &b, &hit, &boolean)
            .unwrap()
            .is_some()
    );
    assert!(
        time_of_contact(&a, &still(), &b, &miss, &boolean)
            .unwrap()
            .is_none()
    );
    // ends inside: Boolean answers from the end pose in one evaluation
    let ends_inside = slide(DVec3::new(-3.0, 0.0, 0.0), DVec3::new(0.2, 0.0, 0.0));
    let c = time_of_contact(&a, &still(), &b, &ends_inside, &boolean)
        .unwrap()
        .expect("contact");
    assert_eq!(c.stats.iterations, 0);
}

#[test]
fn absolute_motion_bound_catches_a_sweep_back_fcl_555() {
    // B rotates about its origin far from A; its tip sweeps towards A and back while the
    // origins do not approach at all (a signed linear bound would be 0).
    let bar = TriMesh::cuboid(DVec3::new(0.0, -0.05, -0.05), DVec3::new(3.0, 0.05, 0.05)).unwrap();
    let target = TriMesh::cuboid(DVec3::new(-0.2, -0.2, -0.2), DVec3::new(0.2, 0.2, 0.2)).unwrap();
    let start = DAffine3::from_rotation_translation(
        DQuat::from_rotation_z(0.2),
        DVec3::new(0.0, -2.5, 0.0),
    );
    let end = DAffine3::from_rotation_translation(
        DQuat::from_rotation_z(std::f64::consts::PI - 0.2),
        DVec3::new(0.0, -2.5, 0.0),
    );
    let spin = RigidMotion::between(start, end).unwrap();
    assert_eq!(spin.linear_velocity(), DVec3::ZERO);
    let r = reference_toc(&target, &still(), &bar, &spin, 4000)
        .expect("the tip sweeps through the target");
    let c = time_of_contact(&body(target), &still(), &body(bar), &spin, &opts())
        .unwrap()
        .expect("must not miss");
    assert!(c.toc <= r + 1e-9);
}

#[test]
fn bad_options_are_errors() {
    let cube = body(TriMesh::cuboid(DVec3::ZERO, DVec3::ONE).unwrap());
    for tol in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        let o = opts().with_tolerance(tol);
        assert!(matches!(
            time_of_contact(&cube, &still(), &cube, &still(), &o),
            Err(CaError::InvalidTolerance(_))
        ));
    }
    let o = opts().with_max_iterations(0);
    assert_eq!(
        time_of_contact(&cube, &still(), &cube, &still(), &o),
        Err(CaError::NoIterations)
    );
}

#[test]
fn iteration_cap_reports_a_conservative_lower_bound() {
    let plate = TriMesh::cuboid(DVec3::ZERO, DVec3::new(1.0, 1.0, 0.01)).unwrap();
    let (a, b) = (body(plate.clone()), body(plate));
    let mb = slide(DVec3::new(0.3, 0.0, 5.0), DVec3::new(0.0, 0.3, -5.0));
    let capped = opts().with_max_iterations(2);
    let c = time_of_contact(&a, &still(), &b, &mb, &capped)
        .unwrap()
        .expect("some answer");
    let full = time_of_contact(&a, &still(), &b, &mb, &opts())
        .unwrap()
        .expect("contact");
    if c.status == Status::OutOfIterations {
        assert!(c.toc <= full.toc, "capped {} vs full {}", c.toc, full.toc);
        assert_eq!(c.stats.iterations, 2);
    }
}
