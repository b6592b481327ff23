//! CA against a brute-force reference (dense time sampling + bisection with exact
//! triangle–triangle distances over all pairs): never a miss, `toc ≤ τ_ref`, distance at
//! `toc ≤ ε`, separation before `toc`; symmetry under swapping the bodies.

mod support;

use ccd_ca_rigid::{CaOptions, Status, time_of_contact};
use ccd_geometry::TriMesh;
use proptest::prelude::*;
use support::*;

const EPS: f64 = 1e-3;

fn shapes() -> impl Strategy<Value = ccd_geometry::TriMesh> {
    prop_oneof![
        prop::collection::vec(-1.0..1.0f64, 64).prop_map(|n| blob(0.6, 4, 0.2, &n).unwrap()),
        (prop::array::uniform3(0.05..0.8f64)).prop_map(|e| TriMesh::cuboid(
            -ccd_geometry::glam::DVec3::from_array(e),
            ccd_geometry::glam::DVec3::from_array(e)
        )
        .unwrap()),
        prop::collection::vec(prop::array::uniform9(-1.0..1.0f64), 1..8)
            .prop_map(|t| soup(&t, 0.7)),
    ]
}

proptest! {
    // each case runs a dense brute-force reference: a quarter of PROPTEST_CASES (64 in CI)
    #![proptest_config(ProptestConfig { cases: (ProptestConfig::default().cases / 4).max(1), ..ProptestConfig::default() })]

    #[test]
    fn never_misses_and_is_conservative(a in shapes(), b in shapes(), ma in motion(1.2), mb in motion(1.2), hulls in any::<bool>()) {
        // (bodies with hulls: the hulls' advancement comes first)
        let (ba, bb) = (body_maybe_hull(a.clone(), hulls), body_maybe_hull(b.clone(), hulls));
        let opts = CaOptions::default().with_tolerance(EPS);
        let res = time_of_contact(&ba, &ma, &bb, &mb, &opts).unwrap();
        let reference = reference_toc(&a, &ma, &b, &mb, 400);
        match (res, reference) {
            (None, Some(r)) => prop_assert!(false, "missed a contact at t = {r}"),
            (None, None) => {
                // None claims the distance stays above ~ε/2 all along
                for k in 0..=200 {
                    let t = f64::from(k) / 200.0;
                    prop_assert!(distance_at(&a, &ma, &b, &mb, t) > 0.0, "touching at {t} but None");
                }
            }
            (Some(c), r) => {
                if let Some(r) = r {
                    prop_assert!(c.toc <= r + 1e-9, "toc {} after the reference contact {r}", c.toc);
                }
                if c.status != Status::OutOfIterations {
                    let d = distance_at(&a, &ma, &b, &mb, c.toc);
                    prop_assert!(d <= EPS + 1e-9, "distance {d} at toc {}", c.toc);
                    prop_assert!((c.distance - d).abs() <= 1e-9 || c.distance >= d, "reported distance {} vs {d}", c.distance);
                    prop_assert!((c.point_b - c.point_a).length() <= EPS + 1e-9);
                }
                for k in 0..100 {
                    let t = c.toc * f64::from(k) / 100.0;
                    if t < c.toc {
                        prop_assert!(distance_at(&a, &ma, &b, &mb, t) > 0.0, "touching at {t} before toc {}", c.toc);
                    }
                }
            }
        }
    }

    #[test]
    fn swapping_bodies_gives_the_same_toc(a in shapes(), b in shapes(), ma in motion(1.2), mb in motion(1.2), hulls in any::<bool>()) {
        let (ba, bb) = (body_maybe_hull(a, hulls), body_maybe_hull(b, hulls));
        let opts = CaOptions::default();
        let ab = time_of_contact(&ba, &ma, &bb, &mb, &opts).unwrap();
        let ba_ = time_of_contact(&bb, &mb, &ba, &ma, &opts).unwrap();
        match (ab, ba_) {
            (None, None) => {}
            (Some(x), Some(y)) => {
                prop_assert!((x.toc - y.toc).abs() <= 1e-6, "{} vs {}", x.toc, y.toc);
                // the same contact with the roles swapped
                prop_assert!((x.point_a - y.point_b).length() <= 1e-9 && (x.point_b - y.point_a).length() <= 1e-9);
                prop_assert!((x.normal + y.normal).length() <= 1e-9);
                prop_assert_eq!((x.feature_a, x.feature_b), (y.feature_b, y.feature_a));
            }
            (x, y) => prop_assert!(false, "asymmetric: {x:?} vs {y:?}"),
        }
    }
}
