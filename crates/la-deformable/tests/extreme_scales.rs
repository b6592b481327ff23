//! The LA kernels at the ends of the `f64` range: regression tests for the crossings they
//! used to miss (vertex–face at `1e300`, edge–edge at `9e149`, touching edges at `1e-151`
//! and `1e162`), the domain of the entry points (`|x| ≤ MAX_COORDINATE`, typed error
//! beyond), and property tests that scale the shared crossing strategies exactly by `2ᵏ`
//! (tiny, subnormal, near `2^±100` and `MAX_COORDINATE`, and up to `2^1015` for the `_until`
//! variants) against the exact rational reference, whose verdicts are scale-invariant.

mod support;

use ccd_distance::MAX_COORDINATE;
use ccd_geometry::glam::DVec3;
use ccd_la_deformable::kernels::{
    edge_edge, edge_edge_until, triangle_triangle, vertex_face, vertex_face_until,
};
use ccd_la_deformable::{LaError, LaOptions, PrimitiveToc, Status};
use proptest::prelude::*;
use support::exact::{Reference, edge_edge_reference, q, vertex_face_reference};

const TOL: f64 = 1e-6;

/// The vertex falls through the face `z = 0` at `t = 0.5` (the crate example).
fn vf_crossing() -> ([DVec3; 4], [DVec3; 4]) {
    let face = [DVec3::ZERO, DVec3::X, DVec3::Y];
    (
        [DVec3::new(0.2, 0.2, 1.0), face[0], face[1], face[2]],
        [DVec3::new(0.2, 0.2, -1.0), face[0], face[1], face[2]],
    )
}

/// Edge `b` falls through edge `a` at `t = 0.5`.
fn ee_crossing() -> ([DVec3; 4], [DVec3; 4]) {
    let x0 = [
        DVec3::new(-1.0, 0.0, 0.0),
        DVec3::new(1.0, 0.0, 0.0),
        DVec3::new(0.0, -1.0, 1.0),
        DVec3::new(0.0, 1.0, 1.0),
    ];
    let mut x1 = x0;
    x1[2].z = -1.0;
    x1[3].z = -1.0;
    (x0, x1)
}

/// Edge `b` slides along z and just touches edge `a` at `t = 1` (distance 0 exactly there).
fn ee_touching() -> ([DVec3; 4], [DVec3; 4]) {
    let (x0, mut x1) = ee_crossing();
    x1[2].z = 0.0;
    x1[3].z = 0.0;
    (x0, x1)
}

fn scaled(x: &[DVec3; 4], k: f64) -> [DVec3; 4] {
    x.map(|p| p * k)
}

/// The crossing at `t = 0.5` is found, with `toc ≤ 0.5` and a tolerance scaled like the
/// geometry.
fn assert_crossing(hit: Option<PrimitiveToc>, k: f64, what: &str) {
    let hit = hit.unwrap_or_else(|| panic!("{what}: missed the crossing at scale {k:e}"));
    assert!(
        hit.toc <= 0.5 && hit.toc > 0.5 - 1e-5,
        "{what} at {k:e}: toc {}",
        hit.toc
    );
    assert_eq!(hit.status, Status::Converged, "{what} at {k:e}");
    assert!(
        hit.distance < TOL * k,
        "{what} at {k:e}: distance {}",
        hit.distance
    );
}

#[test]
fn vertex_face_finds_the_crossing_at_1e300() {
    let (x0, x1) = vf_crossing();
    for k in [1e300, 1e200, 1e150, 1e-151, 1e-300] {
        let (s0, s1) = (scaled(&x0, k), scaled(&x1, k));
        assert_crossing(
            vertex_face_until(&s0, &s1, 1.0, TOL * k, 1000),
            k,
            "vertex-face",
        );
    }
    // the same crossing far outside the unit cube (translated by 1e300) is still found
    let off = DVec3::splat(1e300);
    let (s0, s1) = (x0.map(|p| p * 1e299 + off), x1.map(|p| p * 1e299 + off));
    let hit = vertex_face_until(&s0, &s1, 1.0, 1e293, 1000).expect("contact");
    assert!(hit.toc <= 0.5 + 1e-6 && hit.toc > 0.49, "toc {}", hit.toc);
}

#[test]
fn edge_edge_finds_the_crossing_at_9e149() {
    let (x0, x1) = ee_crossing();
    for k in [9e149, 1e154, 1e300, 1e-151, 1e-300] {
        let (s0, s1) = (scaled(&x0, k), scaled(&x1, k));
        assert_crossing(
            edge_edge_until(&s0, &s1, 1.0, TOL * k, 1000),
            k,
            "edge-edge",
        );
    }
}

#[test]
fn edge_edge_reports_touching_segments_at_1e_151_and_1e162() {
    let (x0, x1) = ee_touching();
    for k in [1e-151, 1e162, 1e-300, 1e300, 1.0] {
        let (s0, s1) = (scaled(&x0, k), scaled(&x1, k));
        let hit = edge_edge_until(&s0, &s1, 1.0, TOL * k, 1000)
            .unwrap_or_else(|| panic!("missed touching edges at scale {k:e}"));
        assert!(
            hit.toc <= 1.0 && hit.toc > 1.0 - 1e-5,
            "scale {k:e}: toc {}",
            hit.toc
        );
        // with a fixed absolute tolerance, tiny geometry touches from the start
        if k < 1e-100 {
            let hit = edge_edge(&s0, &s1, &LaOptions::default())
                .unwrap()
                .expect("touching");
            assert_eq!((hit.toc, hit.status), (0.0, Status::InitiallyTouching));
        }
    }
}

#[test]
fn entry_points_reject_coordinates_beyond_max_coordinate() {
    let (x0, x1) = vf_crossing();
    let opts = LaOptions::default().with_tolerance(1e94);
    // exactly at the bound: accepted (and the crossing found)
    let k = MAX_COORDINATE;
    let (s0, s1) = (scaled(&x0, k), scaled(&x1, k));
    let hit = vertex_face(&s0, &s1, &opts)
        .unwrap()
        .expect("contact at 1e100");
    assert!(hit.toc <= 0.5 && hit.toc > 0.49, "toc {}", hit.toc);
    let hit = edge_edge(
        &scaled(&ee_crossing().0, k),
        &scaled(&ee_crossing().1, k),
        &opts,
    )
    .unwrap()
    .expect("contact at 1e100");
    assert!(hit.toc <= 0.5 && hit.toc > 0.49, "toc {}", hit.toc);
    // one coordinate beyond it: a typed error naming the point, the pose and the value
    let mut t1 = s1;
    t1[2].y = -MAX_COORDINATE.next_up();
    assert_eq!(
        vertex_face(&s0, &t1, &opts),
        Err(LaError::CoordinateOutOfRange {
            vertex: 2,
            time: 1,
            value: -MAX_COORDINATE.next_up(),
        })
    );
    assert!(matches!(
        edge_edge(&t1, &s0, &opts),
        Err(LaError::CoordinateOutOfRange {
            vertex: 2,
            time: 0,
            ..
        })
    ));
    let six0 = [s0[0], s0[1], s0[2], s0[3], s0[1], s0[2]];
    let six1 = [
        s1[0],
        s1[1],
        s1[2],
        s1[3],
        s1[1],
        DVec3::new(0.0, 0.0, 1e300),
    ];
    assert!(matches!(
        triangle_triangle(&six0, &six1, &opts),
        Err(LaError::CoordinateOutOfRange {
            vertex: 5,
            time: 1,
            value: 1e300
        })
    ));
    // non-finite input keeps its own error
    t1[0].x = f64::NAN;
    assert!(matches!(
        vertex_face(&s0, &t1, &opts),
        Err(LaError::NonFiniteVertex { vertex: 0, time: 1 })
    ));
}

// --- property tests ---------------------------------------------------------------------

fn point() -> impl Strategy<Value = DVec3> {
    (-1.0..1.0f64, -1.0..1.0f64, -1.0..1.0f64).prop_map(|(x, y, z)| DVec3::new(x, y, z))
}

fn around(at: [DVec3; 4], t: f64, vel: [DVec3; 4]) -> ([DVec3; 4], [DVec3; 4]) {
    (
        std::array::from_fn(|k| at[k] - vel[k] * t),
        std::array::from_fn(|k| at[k] + vel[k] * (1.0 - t)),
    )
}

/// A vertex–face crossing at a random time, or a random pair.
fn vf_pair() -> impl Strategy<Value = ([DVec3; 4], [DVec3; 4])> {
    prop_oneof![
        3 => (
            proptest::array::uniform3(point()),
            (0.01..1.0f64, 0.01..1.0f64, 0.01..1.0f64),
            0.0..=1.0f64,
            proptest::array::uniform4(point()),
        )
            .prop_map(|(f, (a, b, c), t, vel)| {
                let s = a + b + c;
                let v = f[0] * (a / s) + f[1] * (b / s) + f[2] * (c / s);
                around([v, f[0], f[1], f[2]], t, vel)
            }),
        1 => (proptest::array::uniform4(point()), proptest::array::uniform4(point())),
    ]
}

/// An edge–edge crossing at a random time, or a random pair.
fn ee_pair() -> impl Strategy<Value = ([DVec3; 4], [DVec3; 4])> {
    prop_oneof![
        3 => (
            proptest::array::uniform3(point()),
            (0.01..0.99f64, 0.01..0.99f64),
            0.0..=1.0f64,
            proptest::array::uniform4(point()),
        )
            .prop_map(|([c, da, db], (s, u), t, vel)| {
                around([c - da * s, c + da * (1.0 - s), c - db * u, c + db * (1.0 - u)], t, vel)
            }),
        1 => (proptest::array::uniform4(point()), proptest::array::uniform4(point())),
    ]
}

/// `2ᵏ` exactly, for `k ∈ [-1074, 1023]`.
fn pow2(k: i32) -> f64 {
    if k < -1000 {
        2f64.powi(-1000) * 2f64.powi(k + 1000)
    } else {
        2f64.powi(k)
    }
}

/// Exponents for the entry points (coordinates stay within `MAX_COORDINATE`: the cases
/// live in `[-3, 3]³`): the window edges, the domain's edge `2^330` and tiny scales.
fn domain_exponent() -> impl Strategy<Value = i32> {
    prop_oneof![
        Just(-100),
        Just(-101),
        Just(99),
        Just(101),
        Just(330),
        Just(-330),
        Just(-1000),
        -1060..330i32,
    ]
}

/// Exponents for the `_until` variants: the whole range.
fn any_exponent() -> impl Strategy<Value = i32> {
    prop_oneof![Just(1015), Just(500), Just(-1040), -1074..1016i32]
}

/// The case scaled by `2ᵏ` (rounded where subnormal) and its exact unit-scale image.
fn scale_case(x0: &[DVec3; 4], x1: &[DVec3; 4], k: i32) -> ([[DVec3; 4]; 2], [[DVec3; 4]; 2]) {
    let f = pow2(k);
    let s = [x0.map(|p| p * f), x1.map(|p| p * f)];
    let (h, l) = (-k / 2, -k - (-k / 2));
    let u = s.map(|x| x.map(|p| p * pow2(h) * pow2(l)));
    (s, u)
}

/// Never misses a certified contact, never reports one after it, and the reported distance
/// is below the (scaled) tolerance unless out of iterations.
fn check(
    hit: Option<PrimitiveToc>,
    reference: &Reference,
    tolerance: f64,
) -> Result<(), TestCaseError> {
    if let Some(contact) = reference.first_collision() {
        let hit = hit.ok_or_else(|| TestCaseError::fail(format!("missed {reference:?}")))?;
        prop_assert!(q(hit.toc) <= *contact, "toc {} after {contact}", hit.toc);
    }
    if let Some(hit) = hit {
        prop_assert!((0.0..=1.0).contains(&hit.toc));
        if hit.status != Status::OutOfIterations {
            prop_assert!(hit.distance < tolerance, "{} vs {tolerance}", hit.distance);
        }
    }
    Ok(())
}

proptest! {
    #[test]
    fn vertex_face_never_misses_at_any_scale((x0, x1) in vf_pair(), k in domain_exponent(), j in any_exponent()) {
        let (s, u) = scale_case(&x0, &x1, k);
        let reference = vertex_face_reference(&u[0], &u[1]);
        let opts = LaOptions::default().with_tolerance(TOL * pow2(k).max(1e-300));
        check(vertex_face(&s[0], &s[1], &opts).unwrap(), &reference, opts.tolerance)?;
        // a fixed absolute tolerance too
        check(vertex_face(&s[0], &s[1], &LaOptions::default()).unwrap(), &reference, TOL)?;
        let (s, u) = scale_case(&x0, &x1, j);
        let reference = vertex_face_reference(&u[0], &u[1]);
        let tolerance = TOL * pow2(j).max(1e-300);
        check(vertex_face_until(&s[0], &s[1], 1.0, tolerance, 1000), &reference, tolerance)?;
    }

    #[test]
    fn edge_edge_never_misses_at_any_scale((x0, x1) in ee_pair(), k in domain_exponent(), j in any_exponent()) {
        let (s, u) = scale_case(&x0, &x1, k);
        let reference = edge_edge_reference(&u[0], &u[1]);
        let opts = LaOptions::default().with_tolerance(TOL * pow2(k).max(1e-300));
        check(edge_edge(&s[0], &s[1], &opts).unwrap(), &reference, opts.tolerance)?;
        check(edge_edge(&s[0], &s[1], &LaOptions::default()).unwrap(), &reference, TOL)?;
        let (s, u) = scale_case(&x0, &x1, j);
        let reference = edge_edge_reference(&u[0], &u[1]);
        let tolerance = TOL * pow2(j).max(1e-300);
        check(edge_edge_until(&s[0], &s[1], 1.0, tolerance, 1000), &reference, tolerance)?;
    }
}
