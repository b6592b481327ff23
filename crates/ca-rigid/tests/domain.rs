//! The domain and contract of rigid CA at the ends of its range: regression tests for the
//! answers that used to be wrong (no contact for triangles intersecting at `1e-151`, a toc
//! after the intersection at `1e100`, 100,000 useless iterations when no step makes
//! progress), typed errors outside the domain (`MAX_COORDINATE`, `MIN_TOLERANCE`), the
//! near-miss contract of `None` (distance above `ε/2` throughout; passes between `ε/2` and `ε`
//! may or may not be reported), and the typed GJK error.

mod support;

use ccd_ca_rigid::{
    CaError, CaOptions, MIN_TOLERANCE, RigidBody, Status, time_of_contact, time_of_contact_convex,
};
use ccd_distance::{GjkBody, GjkError, MAX_COORDINATE};
use ccd_geometry::TriMesh;
use ccd_geometry::glam::{DAffine3, DQuat, DVec3};
use ccd_kinematics::RigidMotion;
use proptest::prelude::*;
use support::*;

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

fn with_tolerance(tolerance: f64) -> CaOptions {
    CaOptions::default().with_tolerance(tolerance)
}

fn triangle(a: DVec3, b: DVec3, c: DVec3) -> TriMesh {
    TriMesh::new(vec![a, b, c], vec![[0, 1, 2]]).unwrap()
}

fn hull_body(mesh: TriMesh) -> RigidBody {
    RigidBody::with_hull(std::sync::Arc::new(
        ccd_bvh::MeshBvh::<ccd_bvh::Rss>::new(mesh, &ccd_bvh::BvhOptions::default()).unwrap(),
    ))
    .unwrap()
}

/// Two triangles crossing each other (a's interior pierced by b's edge), scaled by `k`.
fn crossing_triangles(k: f64) -> (TriMesh, TriMesh) {
    (
        triangle(DVec3::ZERO, DVec3::X * k, DVec3::Y * k),
        triangle(
            DVec3::new(0.2, 0.2, -1.0) * k,
            DVec3::new(0.3, 0.2, 1.0) * k,
            DVec3::new(0.2, 0.6, 1.0) * k,
        ),
    )
}

#[test]
fn triangles_intersecting_at_1e_151_are_a_contact() {
    for k in [1e-151, 1e-200, 1e-300, 1e-90] {
        let (a, b) = crossing_triangles(k);
        for tolerance in [MIN_TOLERANCE, 1e-3] {
            let c = time_of_contact(
                &body(a.clone()),
                &still(),
                &body(b.clone()),
                &still(),
                &with_tolerance(tolerance),
            )
            .unwrap()
            .unwrap_or_else(|| {
                panic!("scale {k:e}, ε {tolerance:e}: intersecting triangles reported apart")
            });
            assert_eq!(
                (c.toc, c.status),
                (0.0, Status::InitiallyTouching),
                "scale {k:e}"
            );
            assert!(c.distance <= tolerance);
        }
        // the same triangles approaching from afar
        let m = slide(
            DVec3::new(0.0, 0.0, 3.0 * k),
            DVec3::new(0.0, 0.0, -3.0 * k),
        );
        let c = time_of_contact(
            &body(a),
            &still(),
            &body(b),
            &m,
            &with_tolerance(MIN_TOLERANCE),
        )
        .unwrap()
        .expect("contact");
        if k > 1e-99 {
            // b's lowest point (z = -k) meets a's plane at z = 0 when 3k - 6k t = k: t = 1/3
            assert!(c.toc <= 1.0 / 3.0 + 1e-12, "scale {k:e}: toc {}", c.toc);
            assert!(c.toc > 0.3, "scale {k:e}: toc {}", c.toc);
        } else {
            // everything is within ε = 1e-100 from the start
            assert_eq!(c.status, Status::InitiallyTouching);
        }
    }
}

#[test]
fn tolerance_below_min_tolerance_is_an_error() {
    let (a, b) = crossing_triangles(1e-151);
    for tolerance in [1e-101, 1e-160, 1e-300, 0.0] {
        assert_eq!(
            time_of_contact(
                &body(a.clone()),
                &still(),
                &body(b.clone()),
                &still(),
                &with_tolerance(tolerance)
            ),
            Err(CaError::InvalidTolerance(tolerance))
        );
    }
}

/// Cubes of size `k`; B slides along x from `-3k` to `3k` through A: first contact when B's
/// right face reaches A's left face, at `t = 1/3`.
fn cubes_through(k: f64) -> (RigidBody, RigidBody, RigidMotion) {
    let cube = TriMesh::cuboid(DVec3::ZERO, DVec3::ONE * k).unwrap();
    (
        body(cube.clone()),
        body(cube),
        slide(
            DVec3::new(-3.0 * k, 0.0, 0.0),
            DVec3::new(3.0 * k, 0.0, 0.0),
        ),
    )
}

#[test]
fn toc_is_not_after_the_intersection_at_1e100() {
    // k = 1e98: coordinates and displacements within MAX_COORDINATE (RigidMotion checks both)
    for k in [1e98, 1e80, 1.0, 1e-80] {
        let (a, b, m) = cubes_through(k);
        // a tolerance relative to the scale: converges
        let c = time_of_contact(&a, &still(), &b, &m, &with_tolerance(1e-3 * k))
            .unwrap()
            .expect("contact");
        assert!(
            c.toc <= 1.0 / 3.0,
            "scale {k:e}: toc {} after the contact",
            c.toc
        );
        assert!(c.toc > 1.0 / 3.0 - 1e-3, "scale {k:e}: toc {}", c.toc);
        assert_eq!(c.status, Status::Converged, "scale {k:e}");
        // an absolute tolerance far below what f64 resolves at 1e100: never after the
        // contact, and ends (stalled) long before the iteration cap
        let opts = CaOptions::default()
            .with_tolerance(1e-3)
            .with_max_iterations(100_000);
        let c = time_of_contact(&a, &still(), &b, &m, &opts)
            .unwrap()
            .expect("contact");
        assert!(
            c.toc <= 1.0 / 3.0,
            "scale {k:e}: toc {} after the contact",
            c.toc
        );
        assert!(
            c.stats.iterations < 1000,
            "scale {k:e}: {} iterations",
            c.stats.iterations
        );
        if k > 1e20 {
            assert_eq!(c.status, Status::Stalled, "scale {k:e}");
        }
    }
}

#[test]
fn no_progress_ends_stalled_instead_of_100000_iterations() {
    // the largest accepted motion: a half turn (the constructor's angles are at most π)
    // at coordinates near MAX_COORDINATE, with an absolute tolerance (1e-3) that f64 cannot
    // resolve there
    let k = 1e99;
    let bar = TriMesh::cuboid(
        DVec3::new(0.0, -0.05, -0.05) * k,
        DVec3::new(3.0, 0.05, 0.05) * k,
    )
    .unwrap();
    let target = TriMesh::cuboid(DVec3::splat(-0.2 * k), DVec3::splat(0.2 * k)).unwrap();
    let start = DAffine3::from_rotation_translation(
        DQuat::from_rotation_z(0.0),
        DVec3::new(0.0, -2.5 * k, 0.0),
    );
    let end = DAffine3::from_rotation_translation(
        DQuat::from_rotation_z(std::f64::consts::PI - 1e-9),
        DVec3::new(0.0, -2.5 * k, 0.0),
    );
    let spin = RigidMotion::between(start, end).unwrap();
    assert!(spin.angle() > std::f64::consts::PI - 1e-6);
    let opts = CaOptions::default()
        .with_tolerance(1e-3)
        .with_max_iterations(100_000);
    let c = time_of_contact(
        &body(target.clone()),
        &still(),
        &body(bar.clone()),
        &spin,
        &opts,
    )
    .unwrap()
    .expect("the bar's tip sweeps through the target");
    assert_eq!(c.status, Status::Stalled);
    assert!(
        c.stats.iterations < 1000,
        "{} iterations",
        c.stats.iterations
    );
    // conservative: no later than the sampled first contact
    let r = reference_toc(&target, &still(), &bar, &spin, 2000).expect("reference contact");
    assert!(c.toc <= r, "toc {} vs reference {r}", c.toc);

    // the convex path stalls the same way
    let c = time_of_contact_convex(
        &hull_body(target.clone()),
        &still(),
        &hull_body(bar.clone()),
        &spin,
        &opts,
    )
    .unwrap()
    .expect("contact");
    assert!(
        matches!(c.status, Status::Stalled | Status::Converged),
        "{:?}",
        c.status
    );
    assert!(
        c.stats.iterations < 1000,
        "{} iterations",
        c.stats.iterations
    );
    assert!(c.toc <= r, "convex toc {} vs reference {r}", c.toc);

    // 100π rad in one step (fifty turns: `from_axis_angle` accepts up to `MAX_ANGLE`)
    let start = DAffine3::from_translation(DVec3::new(0.0, -2.5 * k, 0.0));
    let spin =
        RigidMotion::from_axis_angle(start, DVec3::Z, 100.0 * std::f64::consts::PI, DVec3::ZERO)
            .unwrap();
    let c = time_of_contact(
        &body(target.clone()),
        &still(),
        &body(bar.clone()),
        &spin,
        &opts,
    )
    .unwrap()
    .expect("the bar's tip sweeps through the target");
    assert_eq!(c.status, Status::Stalled);
    assert!(
        c.stats.iterations < 1000,
        "{} iterations",
        c.stats.iterations
    );
    let r = reference_toc(&target, &still(), &bar, &spin, 20000).expect("reference contact");
    assert!(c.toc <= r, "toc {} vs reference {r}", c.toc);
}

#[test]
fn coordinates_beyond_max_coordinate_are_typed_errors() {
    let opts = CaOptions::default();
    let unit = body(TriMesh::cuboid(DVec3::ZERO, DVec3::ONE).unwrap());
    // at the bound: accepted
    let edge = body(TriMesh::cuboid(DVec3::ZERO, DVec3::ONE * MAX_COORDINATE).unwrap());
    let far = slide(
        DVec3::splat(-MAX_COORDINATE / 2.0),
        DVec3::splat(MAX_COORDINATE / 2.0),
    );
    assert!(time_of_contact(&edge, &still(), &unit, &far, &opts).is_ok());
    // a mesh beyond it
    let huge = body(TriMesh::cuboid(DVec3::ZERO, DVec3::new(1.0, 2e100, 1.0)).unwrap());
    assert_eq!(
        time_of_contact(&huge, &still(), &unit, &still(), &opts),
        Err(CaError::OutOfDomain {
            body: 0,
            what: "vertex coordinate",
            value: 2e100
        })
    );
    // a translation beyond it (at t = 1: start and displacement each within the bound, as
    // `RigidMotion` checks them), in either argument position
    let away = RigidMotion::from_axis_angle(
        DAffine3::from_translation(DVec3::new(0.0, 0.0, -MAX_COORDINATE)),
        DVec3::Z,
        0.0,
        DVec3::new(0.0, 0.0, -MAX_COORDINATE),
    )
    .unwrap();
    assert_eq!(
        time_of_contact(&unit, &still(), &unit, &away, &opts),
        Err(CaError::OutOfDomain {
            body: 1,
            what: "translation",
            value: 2.0 * MAX_COORDINATE
        })
    );
    assert!(matches!(
        time_of_contact_convex(
            &hull_body(TriMesh::cuboid(DVec3::ZERO, DVec3::ONE).unwrap()),
            &away,
            &hull_body(TriMesh::cuboid(DVec3::ZERO, DVec3::ONE).unwrap()),
            &still(),
            &opts
        ),
        Err(CaError::OutOfDomain {
            body: 0,
            what: "translation",
            ..
        })
    ));
}

#[test]
fn gjk_errors_are_typed() {
    let e: CaError = GjkError::NonRigidPose { body: GjkBody::B }.into();
    assert_eq!(e, CaError::Gjk(GjkError::NonRigidPose { body: GjkBody::B }));
    assert!(e.to_string().contains("not rigid"), "{e}");
}

// --- the near-miss contract -------------------------------------------------------------

const EPS: f64 = 1e-3;

/// A 1 mm tetrahedron whose lowest vertex is its local origin.
fn tetra_mm() -> TriMesh {
    let s = 1e-3;
    TriMesh::new(
        vec![
            DVec3::ZERO,
            DVec3::new(s, 0.0, s),
            DVec3::new(0.0, s, s),
            DVec3::new(s, s, 2.0 * s),
        ],
        vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
    )
    .unwrap()
}

/// A 40 cm triangle in the plane z = 0 about the origin: a path from `x = -1` to `x = 1` with
/// `|y| ≤ 0.05` passes over its interior near `x = 0`.
fn floor() -> TriMesh {
    triangle(
        DVec3::new(-0.2, -0.2, 0.0),
        DVec3::new(0.2, -0.2, 0.0),
        DVec3::new(0.0, 0.2, 0.0),
    )
}

/// The tetrahedron passes over the floor at height `gap`, sliding from `from` to `to` in
/// the plane z = gap, turning by `turn` about the vertical axis through its lowest vertex:
/// its smallest distance to the floor is exactly `gap` (the lowest vertex over the face).
fn pass(gap: f64, from: DVec3, to: DVec3, turn: f64) -> RigidMotion {
    RigidMotion::between(
        DAffine3::from_translation(from + DVec3::Z * gap),
        DAffine3::from_rotation_translation(DQuat::from_rotation_z(turn), to + DVec3::Z * gap),
    )
    .unwrap()
}

#[test]
fn near_miss_at_0_977_tolerance_is_not_reported_and_the_contract_allows_it() {
    // the 1 mm tetrahedron passing a triangle at 9.77e-4 < ε: they never touch, and the
    // contract of `None` (distance above ε/2 throughout) is what holds
    let m = pass(
        9.77e-4,
        DVec3::new(-1.0, 0.0, 0.0),
        DVec3::new(1.0, 0.0, 0.0),
        0.0,
    );
    let r = time_of_contact(
        &body(floor()),
        &still(),
        &body(tetra_mm()),
        &m,
        &with_tolerance(EPS),
    )
    .unwrap();
    assert!(r.is_none(), "{r:?}");
    // closer than ε/2: always reported
    let m = pass(
        4.9e-4,
        DVec3::new(-1.0, 0.0, 0.0),
        DVec3::new(1.0, 0.0, 0.0),
        0.0,
    );
    let c = time_of_contact(
        &body(floor()),
        &still(),
        &body(tetra_mm()),
        &m,
        &with_tolerance(EPS),
    )
    .unwrap()
    .expect("a pass at 0.49 ε is a contact");
    assert!(c.distance <= EPS && c.status == Status::Converged, "{c:?}");
    assert!(c.toc > 0.4 && c.toc < 0.5, "toc {}", c.toc);
}

/// A start (`x = -1`) or end (`x = 1`) of a pass over the floor.
fn end(x: f64) -> impl Strategy<Value = DVec3> {
    (-0.05..0.05f64).prop_map(move |y| DVec3::new(x, y, 0.0))
}

proptest! {
    /// Passes at a random height `g ∈ (0, 1.2 ε)` with random sliding and turning: a pass
    /// below `ε/2` is always reported; `None` only when the sampled distance stays above
    /// `ε/2`; a reported contact has distance `≤ ε` at its toc and the bodies are apart before
    /// it; a pass above `ε` is never reported.
    #[test]
    fn none_means_the_distance_stays_above_half_the_tolerance(
        g in 1e-6..1.2e-3f64,
        from in end(-1.0),
        to in end(1.0),
        turn in -3.0..3.0f64,
    ) {
        let m = pass(g, from, to, turn);
        let (fl, te) = (floor(), tetra_mm());
        let got = time_of_contact(&body(fl.clone()), &still(), &body(te.clone()), &m, &with_tolerance(EPS)).unwrap();
        match got {
            None => {
                prop_assert!(g >= 0.5 * EPS * 0.999, "a pass at {g} < ε/2 went unreported");
                for k in 0..=64 {
                    let d = distance_at(&fl, &still(), &te, &m, f64::from(k) / 64.0);
                    prop_assert!(d > 0.5 * EPS * 0.999, "None, yet distance {d} at t = {}", f64::from(k) / 64.0);
                }
            }
            Some(c) => {
                prop_assert!(g <= EPS * 1.001, "a pass at {g} > ε was reported: {c:?}");
                prop_assert!(matches!(c.status, Status::Converged | Status::InitiallyTouching), "{c:?}");
                prop_assert!(c.distance <= EPS);
                let d = distance_at(&fl, &still(), &te, &m, c.toc);
                prop_assert!(d <= EPS * (1.0 + 1e-9), "distance {d} at toc {}", c.toc);
            }
        }
    }
}
