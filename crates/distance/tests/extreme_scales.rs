//! The primitive distances at the ends of the `f64` range: regression tests for the scales
//! at which they used to fail (non-minimal distances beyond `1e78` and below `1e-90`, NaN
//! from `1e154`, squared distances underflowing at subnormal scale), and property tests
//! that scale the shared strategies' cases exactly by `2ᵏ` (huge, tiny, subnormal, at the
//! edges of the kernels' internal window `2^±100` and of the workspace's `MAX_COORDINATE`)
//! and compare with the independent references evaluated at unit scale, scaled back.

mod support;

use ccd_distance::{
    Closest, point_segment, point_triangle, segment_segment, segment_triangle, triangle_triangle,
};
use ccd_geometry::glam::DVec3;
use ccd_geometry::{Feature, Segment, Triangle};
use proptest::prelude::*;
use support::reference as r;
use support::strategies as st;

/// Two segments crossing at right angles, `gap` apart along z, scaled by `k`.
fn crossing_segments(k: f64, gap: f64) -> (Segment, Segment) {
    (
        Segment::new(
            DVec3::new(-1.0, 0.0, 0.0) * k,
            DVec3::new(1.0, 0.0, 0.0) * k,
        ),
        Segment::new(
            DVec3::new(0.0, -1.0, gap) * k,
            DVec3::new(0.0, 1.0, gap) * k,
        ),
    )
}

#[test]
fn segment_segment_is_minimal_beyond_1e78_and_below_1e_90() {
    for k in [
        1e78, 1e100, 1e150, 1e200, 1e300, 1e-90, 1e-151, 1e-200, 1e-300,
    ] {
        let (a, b) = crossing_segments(k, 0.5);
        let c = segment_segment(&a, &b);
        let want = 0.5 * k;
        assert!(
            (c.distance - want).abs() <= 1e-15 * want,
            "scale {k}: {} vs {want}",
            c.distance
        );
        assert_eq!(
            (c.feature_a, c.feature_b),
            (Feature::Edge(0, 1), Feature::Edge(0, 1))
        );
        // touching at every scale
        let (a, b) = crossing_segments(k, 0.0);
        assert_eq!(segment_segment(&a, &b).distance, 0.0, "scale {k}");
    }
}

#[test]
fn segment_segment_is_not_nan_from_1e154() {
    for k in [1e154, 1e200, 1e300, f64::MAX / 4.0] {
        // nearly parallel, skew: the cross-product branch squares squared lengths
        let a = Segment::new(
            DVec3::new(-1.0, 0.0, 0.0) * k,
            DVec3::new(1.0, 1e-9, 0.0) * k,
        );
        let b = Segment::new(
            DVec3::new(-1.0, 1e-9, 0.25) * k,
            DVec3::new(1.0, 0.0, 0.25) * k,
        );
        let c = segment_segment(&a, &b);
        assert!(c.distance.is_finite(), "scale {k}: {c:?}");
        assert!(
            (c.distance - 0.25 * k).abs() <= 1e-8 * k,
            "scale {k}: {}",
            c.distance
        );
    }
}

#[test]
fn point_triangle_is_minimal_beyond_1e78_and_below_1e_90() {
    let t = Triangle::new(DVec3::ZERO, DVec3::X, DVec3::Y);
    for k in [1e78, 1e100, 1e160, 1e300, 1e-90, 1e-151, 1e-300] {
        let tk = Triangle::new(t.a * k, t.b * k, t.c * k);
        for (p, want, feature) in [
            (DVec3::new(0.25, 0.25, 0.75), 0.75, Feature::Face(0)),
            (DVec3::new(2.0, 0.0, 0.0), 1.0, Feature::Vertex(1)),
            (DVec3::new(0.5, -0.5, 0.0), 0.5, Feature::Edge(0, 1)),
        ] {
            let c = point_triangle(p * k, &tk);
            assert!(
                (c.distance - want * k).abs() <= 1e-15 * want * k,
                "scale {k}: {} vs {}",
                c.distance,
                want * k
            );
            assert_eq!(c.feature_b, feature, "scale {k}");
        }
    }
}

#[test]
fn squared_distance_does_not_underflow_at_subnormal_scale() {
    // a point 1.3e-300 above a triangle of size 1e-300: the squared distance (1.7e-600)
    // underflowed and the distance came out 0
    let k = 1e-300;
    let t = Triangle::new(DVec3::ZERO, DVec3::X * k, DVec3::Y * k);
    let p = DVec3::new(0.25 * k, 0.25 * k, 1.3e-300);
    let c = point_triangle(p, &t);
    assert!(
        (c.distance - 1.3e-300).abs() <= 1e-15 * 1.3e-300,
        "{}",
        c.distance
    );
    assert_eq!(c.feature_b, Feature::Face(0));
    let s = Segment::new(DVec3::ZERO, DVec3::X * k);
    let c = point_segment(DVec3::new(0.5 * k, 1.3e-300, 0.0), &s);
    assert!(
        (c.distance - 1.3e-300).abs() <= 1e-15 * 1.3e-300,
        "{}",
        c.distance
    );
    // subnormal: the smallest positive distances survive too
    let tiny = f64::from_bits(1); // 4.9e-324
    let c = point_segment(
        DVec3::new(0.0, tiny, 0.0),
        &Segment::new(DVec3::ZERO, DVec3::ZERO),
    );
    assert_eq!(c.distance, tiny);
    let a = Triangle::new(DVec3::ZERO, DVec3::X * k, DVec3::Y * k);
    let b = Triangle::new(
        DVec3::new(0.1 * k, 0.1 * k, 3e-310),
        DVec3::new(0.3 * k, 0.1 * k, 2.0 * k),
        DVec3::new(0.1 * k, 0.3 * k, 2.0 * k),
    );
    let c = triangle_triangle(&a, &b);
    assert!(
        (c.distance - 3e-310).abs() <= 1e-9 * 3e-310,
        "{}",
        c.distance
    );
}

#[test]
fn distances_beyond_f64_max_are_infinite_not_nan() {
    let far = f64::MAX;
    let c = point_segment(
        DVec3::splat(-far),
        &Segment::new(DVec3::splat(far), DVec3::splat(far)),
    );
    assert_eq!(c.distance, f64::INFINITY);
    assert_eq!(
        (c.point_a, c.point_b),
        (DVec3::splat(-far), DVec3::splat(far))
    );
}

// --- property tests: exact power-of-two scalings of the shared strategies -----------------

/// An exponent `k` for a scaling by `2ᵏ`: the window edges `2^±100` (relative to the unit
/// cube the cases live in), `MAX_COORDINATE` and `1/MAX_COORDINATE` (`2^±332`), and the ends
/// of the range (`2^1015`; `2^-1000` and below, where small features become subnormal).
fn exponent() -> impl Strategy<Value = i32> {
    prop_oneof![
        Just(99),
        Just(100),
        Just(101),
        Just(-99),
        Just(-100),
        Just(-101),
        Just(332),
        Just(-332),
        Just(1015),
        Just(-1000),
        Just(-1040),
        -1074..1015i32,
    ]
}

/// `2ᵏ` for any `k` in `[-1074, 1023]`, exactly (two factors for the subnormal range).
fn pow2(k: i32) -> f64 {
    if k < -1000 {
        2f64.powi(-1000) * 2f64.powi(k + 1000)
    } else {
        2f64.powi(k)
    }
}

/// Scales `points` by `2ᵏ` (which rounds where the result is subnormal), keeps the scale
/// below `f64::MAX / 16`, and returns the scaled points and their exact unit-scale images
/// (the scaled points times `2⁻ᵏ`, computed exactly in two steps) with the factor `2ᵏ`.
fn scaled<const N: usize>(points: [DVec3; N], k: i32) -> ([DVec3; N], [DVec3; N], f64) {
    let m = points
        .iter()
        .fold(0.0f64, |m, p| m.max(p.abs().max_element()));
    // room below the top of the range
    let k = if m > 0.0 {
        k.min(1019 - m.log2().ceil() as i32)
    } else {
        k
    };
    let f = pow2(k);
    let s = points.map(|p| p * f);
    // exact: 2^-k times a value of the form 2^k x (x representable)
    let (h, l) = (-k / 2, -k - (-k / 2));
    let back = s.map(|p| p * pow2(h) * pow2(l));
    (s, back, f)
}

/// Reference tolerance at unit scale (as in `primitive_properties`).
fn tol(d: f64, mag: f64) -> f64 {
    1e-9 * d + 1e-12 * mag
}

fn mag(points: &[DVec3]) -> f64 {
    points
        .iter()
        .fold(0.0f64, |m, p| m.max(p.abs().max_element()))
}

/// The scaled query's distance is the unit-scale reference times `2ᵏ` (up to the rounding
/// of a subnormal result), finite, and its witness points are `distance` apart.
fn check_scaled(c: &Closest, reference: f64, f: f64, m: f64) -> Result<(), TestCaseError> {
    prop_assert!(c.distance.is_finite() && c.distance >= 0.0, "{c:?}");
    let d = c.distance / f;
    // plus the rounding of subnormal results (absolute 2⁻¹⁰⁷⁴ per value)
    let tl = tol(reference, m) + 8.0 * f64::from_bits(1) / f;
    prop_assert!(
        (d - reference).abs() <= tl,
        "{d} vs {reference} (scale {f:e}, tol {tl})"
    );
    let w = (c.point_b / f - c.point_a / f).length();
    prop_assert!((w - d).abs() <= tl, "witnesses {w} apart, distance {d}");
    Ok(())
}

fn tri_points(t: &Triangle) -> [DVec3; 3] {
    t.vertices()
}

fn tri(p: &[DVec3]) -> Triangle {
    Triangle::new(p[0], p[1], p[2])
}

proptest! {
    #[test]
    fn point_segment_holds_at_every_scale((p, s) in st::point_segment(), k in exponent()) {
        let (x, u, f) = scaled([p, s.a, s.b], k);
        let c = point_segment(x[0], &Segment::new(x[1], x[2]));
        check_scaled(&c, r::point_segment(u[0], u[1], u[2]), f, mag(&u))?;
    }

    #[test]
    fn point_triangle_holds_at_every_scale((p, t) in st::point_triangle(), k in exponent()) {
        let (x, u, f) = scaled([p, t.a, t.b, t.c], k);
        let c = point_triangle(x[0], &tri(&x[1..]));
        check_scaled(&c, r::point_triangle(u[0], &tri(&u[1..])), f, mag(&u))?;
        if let Feature::Vertex(i) = c.feature_b {
            prop_assert_eq!(c.point_b, x[1 + i as usize]);
        }
    }

    #[test]
    fn segment_segment_holds_at_every_scale((a, b) in st::segment_pair(), k in exponent()) {
        let (x, u, f) = scaled([a.a, a.b, b.a, b.b], k);
        let c = segment_segment(&Segment::new(x[0], x[1]), &Segment::new(x[2], x[3]));
        check_scaled(&c, r::segment_segment(u[0], u[1], u[2], u[3]), f, mag(&u))?;
    }

    #[test]
    fn segment_triangle_holds_at_every_scale((s, t) in st::segment_triangle(), k in exponent()) {
        let (x, u, f) = scaled([s.a, s.b, t.a, t.b, t.c], k);
        let c = segment_triangle(&Segment::new(x[0], x[1]), &tri(&x[2..]));
        let reference = r::segment_triangle(&Segment::new(u[0], u[1]), &tri(&u[2..]));
        check_scaled(&c, reference, f, mag(&u))?;
    }

    #[test]
    fn triangle_triangle_holds_at_every_scale((a, b) in st::triangle_pair(), k in exponent()) {
        let pts = [tri_points(&a), tri_points(&b)].concat();
        let (x, u, f) = scaled([pts[0], pts[1], pts[2], pts[3], pts[4], pts[5]], k);
        let c = triangle_triangle(&tri(&x[..3]), &tri(&x[3..]));
        check_scaled(&c, r::triangle_triangle(&tri(&u[..3]), &tri(&u[3..])), f, mag(&u))?;
    }

    /// Mixed scales: one shape shrunk by `2⁻ʲ` about its first vertex, then the pair scaled
    /// to the ends of the range.
    #[test]
    fn mixed_scales_hold((a, b) in st::triangle_pair(), j in 0..60i32, k in exponent()) {
        let shrink = pow2(-j);
        let b = Triangle::new(b.a, b.a + (b.b - b.a) * shrink, b.a + (b.c - b.a) * shrink);
        let pts = [tri_points(&a), tri_points(&b)].concat();
        let (x, u, f) = scaled([pts[0], pts[1], pts[2], pts[3], pts[4], pts[5]], k);
        let c = triangle_triangle(&tri(&x[..3]), &tri(&x[3..]));
        check_scaled(&c, r::triangle_triangle(&tri(&u[..3]), &tri(&u[3..])), f, mag(&u))?;
    }
}

// --- mesh distance at the domain's edges -------------------------------------------------

fn tetra(k: f64) -> ccd_bvh::MeshBvh<ccd_bvh::Rss> {
    let mesh = ccd_geometry::TriMesh::new(
        vec![DVec3::ZERO, DVec3::X * k, DVec3::Y * k, DVec3::Z * k],
        vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
    )
    .unwrap();
    ccd_bvh::MeshBvh::new(mesh, &ccd_bvh::BvhOptions::default()).unwrap()
}

#[test]
fn mesh_distance_holds_at_the_domain_edges_and_rejects_beyond() {
    use ccd_distance::{
        MeshDistanceError, MeshDistanceOptions, mesh_distance, mesh_distance_brute_force,
    };
    use ccd_geometry::glam::{DAffine3, DQuat};
    let opts = MeshDistanceOptions::default();
    for k in [3e99, 1e60, 1e-100, 1e-200, 1e-300] {
        let body = tetra(k);
        let pose_b = DAffine3::from_rotation_translation(
            DQuat::from_rotation_x(0.3),
            DVec3::new(-0.2, -0.2, 3.0) * k,
        );
        let r = mesh_distance(&body, &DAffine3::IDENTITY, &body, &pose_b, &opts).unwrap();
        let brute =
            mesh_distance_brute_force(body.mesh(), &DAffine3::IDENTITY, body.mesh(), &pose_b);
        assert!(
            (r.closest.distance - brute.distance).abs() <= 1e-12 * k,
            "scale {k:e}: {} vs brute force {}",
            r.closest.distance,
            brute.distance
        );
        assert!(
            r.closest.distance > 1.5 * k && r.closest.distance < 2.5 * k,
            "scale {k:e}"
        );
    }
    let body = tetra(1.0);
    let away = DAffine3::from_translation(DVec3::new(0.0, 2e100, 0.0));
    assert_eq!(
        mesh_distance(&body, &away, &body, &DAffine3::IDENTITY, &opts).map(|r| r.closest.distance),
        Err(MeshDistanceError::OutOfDomain {
            which: 'a',
            what: "translation",
            value: 2e100
        })
    );
    let huge = tetra(1e101);
    assert!(matches!(
        mesh_distance(
            &body,
            &DAffine3::IDENTITY,
            &huge,
            &DAffine3::IDENTITY,
            &opts
        ),
        Err(MeshDistanceError::OutOfDomain {
            which: 'b',
            what: "vertex coordinate",
            ..
        })
    ));
}
