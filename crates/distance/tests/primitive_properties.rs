//! Property tests of the primitive distance kernels against independent references.
//!
//! For every pair kind: the distance equals the reference (within `1e-9` relative plus
//! `1e-12` times the coordinate magnitude), is at most the distance of any sampled pair of
//! points, the witness points lie on the features they name and are `distance` apart, the
//! mirrored query agrees, and a common rigid transform leaves the distance unchanged.

mod support;

use ccd_distance::{
    Closest, point_segment, point_triangle, segment_point, segment_segment, segment_triangle,
    triangle_point, triangle_segment, triangle_triangle,
};
use ccd_geometry::glam::{DAffine3, DVec3};
use ccd_geometry::{Feature, Segment, Triangle};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use support::reference as r;
use support::strategies as st;

/// Tolerance: `1e-9` relative to the distance plus `1e-12` times the coordinate magnitude.
fn tol(d: f64, mag: f64) -> f64 {
    1e-9 * d + 1e-12 * mag
}

fn mag(points: &[DVec3]) -> f64 {
    points
        .iter()
        .fold(0.0f64, |m, p| m.max(p.abs().max_element()))
}

fn seg_pts(s: &Segment) -> [DVec3; 2] {
    [s.a, s.b]
}

fn tf_seg(t: &DAffine3, s: &Segment) -> Segment {
    Segment::new(t.transform_point3(s.a), t.transform_point3(s.b))
}

fn tf_tri(t: &DAffine3, x: &Triangle) -> Triangle {
    Triangle::new(
        t.transform_point3(x.a),
        t.transform_point3(x.b),
        t.transform_point3(x.c),
    )
}

/// The witness points are exactly `distance` apart and the result is finite.
fn check_closest(c: &Closest) -> Result<(), TestCaseError> {
    prop_assert!(c.distance.is_finite() && c.distance >= 0.0, "{c:?}");
    prop_assert_eq!((c.point_b - c.point_a).length(), c.distance, "{:?}", c);
    Ok(())
}

fn check_on_point(p: DVec3, f: Feature, q: DVec3) -> Result<(), TestCaseError> {
    prop_assert_eq!(f, Feature::Vertex(0));
    prop_assert_eq!(p, q);
    Ok(())
}

fn check_on_segment(p: DVec3, f: Feature, s: &Segment, tl: f64) -> Result<(), TestCaseError> {
    match f {
        Feature::Vertex(0) => prop_assert_eq!(p, s.a),
        Feature::Vertex(1) => prop_assert_eq!(p, s.b),
        Feature::Edge(0, 1) => {
            let d = r::point_segment(p, s.a, s.b);
            prop_assert!(d <= tl, "point {p} is {d} off segment {s:?}");
        }
        other => prop_assert!(false, "bad segment feature {other:?}"),
    }
    Ok(())
}

fn check_on_triangle(p: DVec3, f: Feature, t: &Triangle, tl: f64) -> Result<(), TestCaseError> {
    match f {
        Feature::Vertex(k) if k < 3 => prop_assert_eq!(p, t.vertex(k as usize)),
        Feature::Edge(i, j) if i < j && j < 3 => {
            let d = r::point_segment(p, t.vertex(i as usize), t.vertex(j as usize));
            prop_assert!(d <= tl, "point {p} is {d} off edge {i}-{j} of {t:?}");
        }
        Feature::Face(0) => {
            let d = r::point_triangle(p, t);
            prop_assert!(d <= tl, "point {p} is {d} off face of {t:?}");
        }
        other => prop_assert!(false, "bad triangle feature {other:?}"),
    }
    Ok(())
}

fn close(a: f64, b: f64, tl: f64) -> Result<(), TestCaseError> {
    prop_assert!(
        (a - b).abs() <= tl,
        "{a} vs {b} (diff {}, tol {tl})",
        (a - b).abs()
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "proptest-regressions/primitive_properties.txt",
        ))),
        ..ProptestConfig::default()
    })]

    #[test]
    fn point_segment_matches_reference((p, s) in st::point_segment()) {
        let m = mag(&[p, s.a, s.b]);
        let c = point_segment(p, &s);
        check_closest(&c)?;
        let tl = tol(c.distance, m);
        check_on_point(c.point_a, c.feature_a, p)?;
        check_on_segment(c.point_b, c.feature_b, &s, tl)?;
        close(c.distance, r::point_segment(p, s.a, s.b), tl)?;
        let samples = r::sample_segment(&s, 200);
        prop_assert!(c.distance <= r::sampled_min(&[p], &samples) + tl);
        prop_assert_eq!(segment_point(&s, p), c.swapped());
    }

    #[test]
    fn point_triangle_matches_reference((p, t) in st::point_triangle(), tf in st::rigid()) {
        let m = mag(&[p, t.a, t.b, t.c]);
        let c = point_triangle(p, &t);
        check_closest(&c)?;
        let tl = tol(c.distance, m);
        check_on_point(c.point_a, c.feature_a, p)?;
        check_on_triangle(c.point_b, c.feature_b, &t, tl)?;
        close(c.distance, r::point_triangle(p, &t), tl)?;
        let samples = r::sample_triangle(&t, 40);
        prop_assert!(c.distance <= r::sampled_min(&[p], &samples) + tl);
        prop_assert_eq!(triangle_point(&t, p), c.swapped());
        let (p2, t2) = (tf.transform_point3(p), tf_tri(&tf, &t));
        let m2 = m.max(mag(&[p2, t2.a, t2.b, t2.c]));
        close(point_triangle(p2, &t2).distance, c.distance, tol(c.distance, m2))?;
    }

    #[test]
    fn segment_segment_matches_reference((a, b) in st::segment_pair(), tf in st::rigid()) {
        let m = mag(&[a.a, a.b, b.a, b.b]);
        let c = segment_segment(&a, &b);
        check_closest(&c)?;
        let tl = tol(c.distance, m);
        check_on_segment(c.point_a, c.feature_a, &a, tl)?;
        check_on_segment(c.point_b, c.feature_b, &b, tl)?;
        close(c.distance, r::segment_segment(a.a, a.b, b.a, b.b), tl)?;
        let (sa, sb) = (r::sample_segment(&a, 64), r::sample_segment(&b, 64));
        prop_assert!(c.distance <= r::sampled_min(&sa, &sb) + tl);
        close(segment_segment(&b, &a).distance, c.distance, tl)?;
        let (a2, b2) = (tf_seg(&tf, &a), tf_seg(&tf, &b));
        let m2 = m.max(mag(&[seg_pts(&a2), seg_pts(&b2)].concat()));
        close(segment_segment(&a2, &b2).distance, c.distance, tol(c.distance, m2))?;
    }

    #[test]
    fn segment_triangle_matches_reference((s, t) in st::segment_triangle(), tf in st::rigid()) {
        let m = mag(&[s.a, s.b, t.a, t.b, t.c]);
        let c = segment_triangle(&s, &t);
        check_closest(&c)?;
        let tl = tol(c.distance, m);
        check_on_segment(c.point_a, c.feature_a, &s, tl)?;
        check_on_triangle(c.point_b, c.feature_b, &t, tl)?;
        close(c.distance, r::segment_triangle(&s, &t), tl)?;
        let (ss, stt) = (r::sample_segment(&s, 32), r::sample_triangle(&t, 24));
        prop_assert!(c.distance <= r::sampled_min(&ss, &stt) + tl);
        prop_assert_eq!(triangle_segment(&t, &s), c.swapped());
        let (s2, t2) = (tf_seg(&tf, &s), tf_tri(&tf, &t));
        let m2 = m.max(mag(&[s2.a, s2.b, t2.a, t2.b, t2.c]));
        close(segment_triangle(&s2, &t2).distance, c.distance, tol(c.distance, m2))?;
    }

    #[test]
    fn triangle_triangle_matches_reference((a, b) in st::triangle_pair(), tf in st::rigid()) {
        let m = mag(&[a.a, a.b, a.c, b.a, b.b, b.c]);
        let c = triangle_triangle(&a, &b);
        check_closest(&c)?;
        let tl = tol(c.distance, m);
        check_on_triangle(c.point_a, c.feature_a, &a, tl)?;
        check_on_triangle(c.point_b, c.feature_b, &b, tl)?;
        close(c.distance, r::triangle_triangle(&a, &b), tl)?;
        let (sa, sb) = (r::sample_triangle(&a, 12), r::sample_triangle(&b, 12));
        prop_assert!(c.distance <= r::sampled_min(&sa, &sb) + tl);
        let back = triangle_triangle(&b, &a);
        check_closest(&back)?;
        close(back.distance, c.distance, tl)?;
        let (a2, b2) = (tf_tri(&tf, &a), tf_tri(&tf, &b));
        let m2 = m.max(mag(&[a2.a, a2.b, a2.c, b2.a, b2.b, b2.c]));
        close(triangle_triangle(&a2, &b2).distance, c.distance, tol(c.distance, m2))?;
    }
}
