//! Adversarial unit cases of the elementary LA kernels (signs, degenerate features, time
//! ends, bad input), each with a contact time known in closed form.

use ccd_geometry::Feature;
use ccd_geometry::glam::DVec3;
use ccd_la_deformable::baseline::{edge_edge_cubic, vertex_face_cubic};
use ccd_la_deformable::kernels::{
    edge_edge, edge_edge_until, triangle_triangle, vertex_face, vertex_face_until,
};
use ccd_la_deformable::{LaError, LaOptions, PrimitiveToc, Status};

const TOL: f64 = 1e-6;

fn opts() -> LaOptions {
    LaOptions::default()
}

fn v(x: f64, y: f64, z: f64) -> DVec3 {
    DVec3::new(x, y, z)
}

/// Asserts a contact with `toc` in `(expected - slack, expected]`.
fn assert_toc(hit: Option<PrimitiveToc>, expected: f64, slack: f64) -> PrimitiveToc {
    let hit = hit.unwrap_or_else(|| panic!("missed the contact at {expected}"));
    assert!(
        hit.toc <= expected && hit.toc > expected - slack,
        "toc {} vs expected {expected} ({hit:?})",
        hit.toc
    );
    assert!(hit.distance < TOL, "{hit:?}");
    hit
}

fn face() -> [DVec3; 3] {
    [v(0.0, 0.0, 0.0), v(1.0, 0.0, 0.0), v(0.0, 1.0, 0.0)]
}

fn vf(p0: DVec3, p1: DVec3, f0: [DVec3; 3], f1: [DVec3; 3]) -> ([DVec3; 4], [DVec3; 4]) {
    ([p0, f0[0], f0[1], f0[2]], [p1, f1[0], f1[1], f1[2]])
}

#[test]
fn vertex_face_head_on_from_both_sides() {
    for sign in [1.0, -1.0] {
        let (x0, x1) = vf(v(0.2, 0.3, sign), v(0.2, 0.3, -sign), face(), face());
        let hit = assert_toc(vertex_face(&x0, &x1, &opts()).unwrap(), 0.5, 1e-6);
        assert_eq!(hit.status, Status::Converged);
        assert_eq!(hit.closest.feature_b, Feature::Face(0));
        assert_eq!(hit.normal, v(0.0, 0.0, -sign));
        // The face moving instead of the vertex: same contact.
        let f1 = face().map(|p| p + v(0.0, 0.0, 2.0 * sign));
        let (x0, x1) = vf(v(0.2, 0.3, sign), v(0.2, 0.3, sign), face(), f1);
        assert_toc(vertex_face(&x0, &x1, &opts()).unwrap(), 0.5, 1e-6);
    }
}

#[test]
fn vertex_face_contact_exactly_at_the_end() {
    let (x0, x1) = vf(v(0.2, 0.3, 1.0), v(0.2, 0.3, 0.0), face(), face());
    assert_toc(vertex_face(&x0, &x1, &opts()).unwrap(), 1.0, 1e-6);
    // ... and on an edge, and at a vertex of the face.
    let (x0, x1) = vf(v(0.5, 0.0, 1.0), v(0.5, 0.0, 0.0), face(), face());
    assert_toc(vertex_face(&x0, &x1, &opts()).unwrap(), 1.0, 1e-6);
    let (x0, x1) = vf(v(1.0, 0.0, 1.0), v(1.0, 0.0, 0.0), face(), face());
    assert_toc(vertex_face(&x0, &x1, &opts()).unwrap(), 1.0, 1e-6);
    // Stopping just short of the face: no contact.
    let (x0, x1) = vf(v(0.2, 0.3, 1.0), v(0.2, 0.3, 1e-5), face(), face());
    assert!(vertex_face(&x0, &x1, &opts()).unwrap().is_none());
}

#[test]
fn vertex_face_touching_at_start() {
    let (x0, x1) = vf(v(0.2, 0.3, 0.0), v(0.2, 0.3, 1.0), face(), face());
    let hit = vertex_face(&x0, &x1, &opts()).unwrap().unwrap();
    assert_eq!((hit.toc, hit.status), (0.0, Status::InitiallyTouching));
}

#[test]
fn vertex_face_sliding_tangentially() {
    // Sliding in the plane of the face from outside into it, at height h.
    for (h, hits) in [(1e-3, false), (1e-5, false), (5e-7, true), (0.0, true)] {
        let (x0, x1) = vf(v(-1.0, 0.2, h), v(0.5, 0.2, h), face(), face());
        let got = vertex_face(&x0, &x1, &opts()).unwrap();
        assert_eq!(got.is_some(), hits, "h = {h}: {got:?}");
        if let Some(hit) = got {
            // The vertex reaches the edge x = 0 at t = 2/3 (touching when h = 0; a near
            // miss within the tolerance may be reported anywhere it is closer than ε).
            let last = if h == 0.0 {
                2.0 / 3.0
            } else {
                2.0 / 3.0 + 1e-9
            };
            assert!(hit.toc <= last && hit.toc > 0.6, "{hit:?}");
            assert!(hit.distance < TOL);
            assert!(hit.iterations < 50, "{hit:?}");
        }
    }
}

#[test]
fn vertex_face_separating_motion_is_none() {
    // The vertex falls towards the face, but the face falls faster.
    let f1 = face().map(|p| p - v(0.0, 0.0, 3.0));
    let (x0, x1) = vf(v(0.2, 0.3, 1.0), v(0.2, 0.3, -1.0), face(), f1);
    assert!(vertex_face(&x0, &x1, &opts()).unwrap().is_none());
    // Below the face moving down: separating along -z.
    let (x0, x1) = vf(v(0.2, 0.3, -0.1), v(0.2, 0.3, -1.0), face(), face());
    let hit = vertex_face(&x0, &x1, &opts()).unwrap();
    assert!(hit.is_none());
}

#[test]
fn vertex_face_rotating_face_sweeps_the_vertex() {
    // The face turns about the x axis (its vertex f2 goes from +y to +z through linear
    // interpolation), sweeping a vertex at (0.1, 0.3, 0.3): the plane through the x axis
    // and f2(t) = (0, 1 - t, t) contains the vertex when t / (1 - t) = 1, i.e. t = 0.5.
    let f0 = face();
    let f1 = [f0[0], f0[1], v(0.0, 0.0, 1.0)];
    let (x0, x1) = vf(v(0.1, 0.3, 0.3), v(0.1, 0.3, 0.3), f0, f1);
    let hit = assert_toc(vertex_face(&x0, &x1, &opts()).unwrap(), 0.5, 1e-6);
    assert!(hit.iterations < 100, "{hit:?}");
    let cubic = vertex_face_cubic(&x0, &x1, &opts()).unwrap().unwrap();
    assert!((cubic.toc - 0.5).abs() < 1e-12);
}

#[test]
fn vertex_face_zero_area_faces() {
    // Collinear face (a segment along x) and a point face, with a vertex falling on them.
    let seg = [v(0.0, 0.0, 0.0), v(1.0, 0.0, 0.0), v(0.5, 0.0, 0.0)];
    let (x0, x1) = vf(v(0.3, 0.0, 1.0), v(0.3, 0.0, -1.0), seg, seg);
    assert_toc(vertex_face(&x0, &x1, &opts()).unwrap(), 0.5, 1e-6);
    let pt = [v(0.3, 0.0, 0.0); 3];
    let (x0, x1) = vf(v(0.3, 0.0, 1.0), v(0.3, 0.0, -1.0), pt, pt);
    assert_toc(vertex_face(&x0, &x1, &opts()).unwrap(), 0.5, 1e-6);
    // Missing the segment sideways.
    let (x0, x1) = vf(v(0.3, 0.1, 1.0), v(0.3, 0.1, -1.0), seg, seg);
    assert!(vertex_face(&x0, &x1, &opts()).unwrap().is_none());
}

fn ee(a: [DVec3; 2], b0: [DVec3; 2], b1: [DVec3; 2]) -> ([DVec3; 4], [DVec3; 4]) {
    ([a[0], a[1], b0[0], b0[1]], [a[0], a[1], b1[0], b1[1]])
}

#[test]
fn edge_edge_crossing_and_parallel() {
    let a = [v(-1.0, 0.0, 0.0), v(1.0, 0.0, 0.0)];
    // Crossing edges falling.
    let (x0, x1) = ee(
        a,
        [v(0.3, -1.0, 1.0), v(0.3, 1.0, 1.0)],
        [v(0.3, -1.0, -1.0), v(0.3, 1.0, -1.0)],
    );
    let hit = assert_toc(edge_edge(&x0, &x1, &opts()).unwrap(), 0.5, 1e-6);
    assert_eq!(hit.normal, v(0.0, 0.0, 1.0));
    // Parallel edges (overlapping in x) falling: contact at 0.5.
    let (x0, x1) = ee(
        a,
        [v(0.5, 0.0, 1.0), v(2.0, 0.0, 1.0)],
        [v(0.5, 0.0, -1.0), v(2.0, 0.0, -1.0)],
    );
    assert_toc(edge_edge(&x0, &x1, &opts()).unwrap(), 0.5, 1e-6);
    // Collinear edges sliding into each other along their line: contact when the gap of
    // 0.5 closes at speed 1, t = 0.5.
    let (x0, x1) = ee(
        a,
        [v(1.5, 0.0, 0.0), v(3.0, 0.0, 0.0)],
        [v(0.5, 0.0, 0.0), v(2.0, 0.0, 0.0)],
    );
    assert_toc(edge_edge(&x0, &x1, &opts()).unwrap(), 0.5, 1e-6);
    // Parallel, passing beside at distance 1e-3: none.
    let (x0, x1) = ee(
        a,
        [v(0.5, 1e-3, 1.0), v(2.0, 1e-3, 1.0)],
        [v(0.5, 1e-3, -1.0), v(2.0, 1e-3, -1.0)],
    );
    assert!(edge_edge(&x0, &x1, &opts()).unwrap().is_none());
}

#[test]
fn edge_edge_rotating_edge() {
    // Edge b spins about its midpoint (0, 0, 0.5) above a... its endpoints interpolate
    // linearly from along y to along z: b0 (0,-1,.5) -> (0,0,-.5), b1 (0,1,.5) -> (0,0,1.5).
    // Its lower end reaches z = 0 on the x axis (edge a) when (0, t-1, 0.5 - t) has
    // ... y = t - 1 and z = 0.5 - t: z = 0 at t = 0.5 with y = -0.5 ≠ 0: no contact with
    // the x axis edge a at y = 0. Shift a to y = -0.5: contact at t = 0.5.
    let a = [v(-1.0, -0.5, 0.0), v(1.0, -0.5, 0.0)];
    let (x0, x1) = ee(
        a,
        [v(0.0, -1.0, 0.5), v(0.0, 1.0, 0.5)],
        [v(0.0, 0.0, -0.5), v(0.0, 0.0, 1.5)],
    );
    assert_toc(edge_edge(&x0, &x1, &opts()).unwrap(), 0.5, 1e-6);
    let cubic = edge_edge_cubic(&x0, &x1, &opts()).unwrap().unwrap();
    assert!((cubic.toc - 0.5).abs() < 1e-9, "{cubic:?}");
}

#[test]
fn edge_edge_zero_length_edges() {
    let a = [v(-1.0, 0.0, 0.0), v(1.0, 0.0, 0.0)];
    let p = v(0.25, 0.0, 1.0);
    let q = v(0.25, 0.0, -1.0);
    let (x0, x1) = ee(a, [p, p], [q, q]);
    assert_toc(edge_edge(&x0, &x1, &opts()).unwrap(), 0.5, 1e-6);
    // Both degenerate: two points meeting at t = 0.25.
    let x0 = [
        v(0.0, 0.0, 0.0),
        v(0.0, 0.0, 0.0),
        v(2.0, 0.0, 0.0),
        v(2.0, 0.0, 0.0),
    ];
    let x1 = [
        v(2.0, 0.0, 0.0),
        v(2.0, 0.0, 0.0),
        v(-2.0, 0.0, 0.0),
        v(-2.0, 0.0, 0.0),
    ];
    assert_toc(edge_edge(&x0, &x1, &opts()).unwrap(), 1.0 / 3.0, 1e-6);
}

#[test]
fn until_respects_t_max() {
    let (x0, x1) = vf(v(0.2, 0.3, 1.0), v(0.2, 0.3, -1.0), face(), face());
    assert!(vertex_face_until(&x0, &x1, 0.49, TOL, 100).is_none());
    assert_toc(vertex_face_until(&x0, &x1, 0.5, TOL, 100), 0.5, 1e-6);
    // NaN t_max means the whole step; negative means t = 0 only.
    assert!(vertex_face_until(&x0, &x1, f64::NAN, TOL, 100).is_some());
    assert!(vertex_face_until(&x0, &x1, -1.0, TOL, 100).is_none());
}

#[test]
fn bad_input_is_an_error_or_a_conservative_contact() {
    let (mut x0, x1) = vf(v(0.2, 0.3, 1.0), v(0.2, 0.3, -1.0), face(), face());
    assert!(matches!(
        vertex_face(&x0, &x1, &opts().with_tolerance(0.0)),
        Err(LaError::InvalidTolerance(_))
    ));
    assert!(matches!(
        edge_edge(&x0, &x1, &opts().with_max_iterations(0)),
        Err(LaError::NoIterations)
    ));
    x0[2].y = f64::NAN;
    assert!(matches!(
        vertex_face(&x0, &x1, &opts()),
        Err(LaError::NonFiniteVertex { vertex: 2, time: 0 })
    ));
    let hit = vertex_face_until(&x0, &x1, 1.0, TOL, 100).unwrap();
    assert_eq!((hit.toc, hit.status), (0.0, Status::OutOfIterations));
    let hit = edge_edge_until(&x0, &x1, 1.0, TOL, 100).unwrap();
    assert_eq!((hit.toc, hit.status), (0.0, Status::OutOfIterations));
    // Huge coordinates: never a panic, a conservative answer.
    let big = [
        v(1e200, 1e200, -1e200),
        v(-1e200, 1e200, 1e200),
        v(1e200, -1e200, 1e200),
        v(0.0, 0.0, 0.0),
    ];
    let _ = vertex_face_until(&big, &big.map(|p| -p), 1.0, TOL, 100);
    // A zero tolerance never converges: the cap ends the query conservatively.
    let (x0, x1) = vf(v(0.2, 0.3, 1.0), v(0.2, 0.3, -1.0), face(), face());
    let hit = vertex_face_until(&x0, &x1, 1.0, 0.0, 30).unwrap();
    assert!(hit.toc <= 0.5);
}

#[test]
fn triangle_triangle_cases() {
    let a = face();
    // b falls on a with a vertex first.
    let b = [v(0.2, 0.2, 0.5), v(0.6, 0.2, 1.0), v(0.2, 0.6, 1.0)];
    let x0 = [a[0], a[1], a[2], b[0], b[1], b[2]];
    let x1 = x0.map(|p| p);
    let mut x1 = x1;
    for p in &mut x1[3..] {
        p.z -= 2.0;
    }
    assert_toc(triangle_triangle(&x0, &x1, &opts()).unwrap(), 0.25, 1e-6);
    // Edge-first: b's edge crosses a's edge region.
    let b = [v(0.5, -0.5, 1.0), v(0.5, 0.5, 1.0), v(2.0, 0.0, 2.0)];
    let x0 = [a[0], a[1], a[2], b[0], b[1], b[2]];
    let mut x1 = x0;
    for p in &mut x1[3..] {
        p.z -= 2.0;
    }
    assert_toc(triangle_triangle(&x0, &x1, &opts()).unwrap(), 0.5, 1e-6);
    // Moving apart: none.
    let mut x1 = x0;
    for p in &mut x1[3..] {
        p.z += 2.0;
    }
    assert!(triangle_triangle(&x0, &x1, &opts()).unwrap().is_none());
}
