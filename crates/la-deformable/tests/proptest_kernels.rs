//! Property tests of the vertex–face and edge–edge LA kernels against the exact rational
//! reference (`support/exact.rs`): never miss a certified contact, `toc` no later than it,
//! distance below the tolerance at `toc`, apart at sampled earlier times, and `_until`
//! consistent with the full query. Case count from `PROPTEST_CASES` (CI: 256).

mod support;

use ccd_distance::{point_triangle, segment_segment};
use ccd_geometry::glam::DVec3;
use ccd_geometry::{Segment, Triangle};
use ccd_la_deformable::kernels::{edge_edge, edge_edge_until, vertex_face, vertex_face_until};
use ccd_la_deformable::{LaOptions, PrimitiveToc, Status};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use support::exact::{Reference, edge_edge_reference, q, vertex_face_reference};

const TOL: f64 = 1e-6;

fn point() -> impl Strategy<Value = DVec3> {
    (-1.0..1.0f64, -1.0..1.0f64, -1.0..1.0f64).prop_map(|(x, y, z)| DVec3::new(x, y, z))
}

/// Four random points at t = 0 and at t = 1.
fn random_pair() -> impl Strategy<Value = ([DVec3; 4], [DVec3; 4])> {
    (
        proptest::array::uniform4(point()),
        proptest::array::uniform4(point()),
    )
}

/// Places the configuration `at` (the points at time `t`) on random linear motions.
fn around(at: [DVec3; 4], t: f64, vel: [DVec3; 4]) -> ([DVec3; 4], [DVec3; 4]) {
    (
        std::array::from_fn(|k| at[k] - vel[k] * t),
        std::array::from_fn(|k| at[k] + vel[k] * (1.0 - t)),
    )
}

/// A vertex–face pair that touches at a random `t*` (the vertex at a random interior point
/// of the face then), with random velocities: a generic crossing.
fn colliding_vertex_face() -> impl Strategy<Value = ([DVec3; 4], [DVec3; 4])> {
    (
        proptest::array::uniform3(point()),
        (0.01..1.0f64, 0.01..1.0f64, 0.01..1.0f64),
        0.0..=1.0f64,
        proptest::array::uniform4(point()),
    )
        .prop_map(|(f, (a, b, c), t, vel)| {
            let s = a + b + c;
            let v = f[0] * (a / s) + f[1] * (b / s) + f[2] * (c / s);
            around([v, f[0], f[1], f[2]], t, vel)
        })
}

/// An edge–edge pair crossing at a random `t*`.
fn colliding_edge_edge() -> impl Strategy<Value = ([DVec3; 4], [DVec3; 4])> {
    (
        point(),
        point(),
        point(),
        (0.01..0.99f64, 0.01..0.99f64),
        0.0..=1.0f64,
        proptest::array::uniform4(point()),
    )
        .prop_map(|(c, da, db, (s, u), t, vel)| {
            let at = [
                c - da * s,
                c + da * (1.0 - s),
                c - db * u,
                c + db * (1.0 - u),
            ];
            around(at, t, vel)
        })
}

/// Degenerate features: a zero-length or collinear feature, or all points static.
fn degenerate_pair() -> impl Strategy<Value = ([DVec3; 4], [DVec3; 4])> {
    (random_pair(), 0..4usize).prop_map(|((mut x0, mut x1), kind)| {
        match kind {
            0 => {
                x0[1] = x0[0];
                x1[1] = x1[0];
            }
            1 => {
                x0[3] = (x0[1] + x0[2]) * 0.5;
                x1[3] = (x1[1] + x1[2]) * 0.5;
            }
            2 => {
                x0[3] = x0[2];
                x1[3] = x1[2];
            }
            _ => x1 = x0,
        }
        (x0, x1)
    })
}

fn any_pair() -> impl Strategy<Value = ([DVec3; 4], [DVec3; 4])> {
    prop_oneof![
        2 => random_pair(),
        3 => colliding_vertex_face(),
        3 => colliding_edge_edge(),
        1 => degenerate_pair(),
    ]
}

fn distance(vf: bool, x0: &[DVec3; 4], x1: &[DVec3; 4], t: f64) -> f64 {
    let p: [DVec3; 4] = std::array::from_fn(|k| x0[k] + (x1[k] - x0[k]) * t);
    if vf {
        point_triangle(p[0], &Triangle::new(p[1], p[2], p[3])).distance
    } else {
        segment_segment(&Segment::new(p[0], p[1]), &Segment::new(p[2], p[3])).distance
    }
}

/// The properties shared by both kernels.
fn check(
    vf: bool,
    x0: &[DVec3; 4],
    x1: &[DVec3; 4],
    got: Option<PrimitiveToc>,
    reference: &Reference,
    until: impl Fn(f64) -> Option<PrimitiveToc>,
) -> Result<(), TestCaseError> {
    if let Some(contact) = reference.first_collision() {
        let hit = got.ok_or_else(|| {
            TestCaseError::fail(format!(
                "missed a certified contact ≤ {contact}: {reference:?}"
            ))
        })?;
        prop_assert!(
            q(hit.toc) <= *contact,
            "toc {} after the contact {}",
            hit.toc,
            contact
        );
    }
    if let Some(hit) = got {
        prop_assert!((0.0..=1.0).contains(&hit.toc));
        if hit.status != Status::OutOfIterations {
            prop_assert!(hit.distance < TOL);
            let d = distance(vf, x0, x1, hit.toc);
            prop_assert!(d <= TOL + 1e-12, "distance {d} at toc {}", hit.toc);
        }
        // Apart before toc (brute-force samples).
        for k in 0..32 {
            let t = hit.toc * f64::from(k) / 32.0;
            if t < hit.toc {
                prop_assert!(
                    distance(vf, x0, x1, t) > 0.0,
                    "touching at {t} < toc {}",
                    hit.toc
                );
            }
        }
        // `_until` agrees with the full query.
        prop_assert_eq!(until(hit.toc).map(|h| h.toc), Some(hit.toc));
        if hit.toc > 0.0 {
            prop_assert!(until(hit.toc.next_down()).is_none());
        }
    } else {
        prop_assert!(until(1.0).is_none());
        prop_assert!(until(0.5).is_none());
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "proptest-regressions/proptest_kernels.txt",
        ))),
        ..ProptestConfig::default()
    })]

    #[test]
    fn vertex_face_never_misses((x0, x1) in any_pair()) {
        let got = vertex_face(&x0, &x1, &LaOptions::default()).unwrap();
        let reference = vertex_face_reference(&x0, &x1);
        check(true, &x0, &x1, got, &reference, |t| vertex_face_until(&x0, &x1, t, TOL, 1000))?;
    }

    #[test]
    fn edge_edge_never_misses((x0, x1) in any_pair()) {
        let got = edge_edge(&x0, &x1, &LaOptions::default()).unwrap();
        let reference = edge_edge_reference(&x0, &x1);
        check(false, &x0, &x1, got, &reference, |t| edge_edge_until(&x0, &x1, t, TOL, 1000))?;
    }
}

/// The colliding strategies really produce certified contacts (so the properties above are
/// not vacuous): most generated crossings are certified by the exact reference and found.
#[test]
fn colliding_strategies_are_certified() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let (mut vf_certified, mut ee_certified) = (0, 0);
    for _ in 0..64 {
        let (x0, x1) = colliding_vertex_face()
            .new_tree(&mut runner)
            .unwrap()
            .current();
        if vertex_face_reference(&x0, &x1).first_collision().is_some() {
            vf_certified += 1;
            assert!(
                vertex_face(&x0, &x1, &LaOptions::default())
                    .unwrap()
                    .is_some()
            );
        }
        let (x0, x1) = colliding_edge_edge()
            .new_tree(&mut runner)
            .unwrap()
            .current();
        if edge_edge_reference(&x0, &x1).first_collision().is_some() {
            ee_certified += 1;
            assert!(
                edge_edge(&x0, &x1, &LaOptions::default())
                    .unwrap()
                    .is_some()
            );
        }
    }
    println!("certified contacts: vertex-face {vf_certified}/64, edge-edge {ee_certified}/64");
    assert!(
        vf_certified >= 48 && ee_certified >= 48,
        "{vf_certified} {ee_certified}"
    );
}
