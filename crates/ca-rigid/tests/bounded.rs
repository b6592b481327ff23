//! The window CA under any `PairMotion` ([`time_of_contact_bounded`]) against the same
//! brute-force reference as `ca_reference.rs` (dense sampling + bisection with exact
//! triangle distances): never a miss, `toc ≤ τ_ref`, distance at `toc ≤ ε`; the hull variant
//! is a lower bound of the mesh one; a window resumed from the hull bound agrees; a
//! separation certificate along a cached direction (`convex_apart_along`) holds at every
//! sampled time of its window.

mod support;

use ccd_ca_rigid::details::{
    BoundedScratch, convex_apart_along, time_of_contact_bounded, time_of_contact_convex_bounded,
    time_of_contact_convex_bounded_with_direction,
};
use ccd_ca_rigid::{CaOptions, RigidBody, RigidPair, Status};
use ccd_geometry::TriMesh;
use ccd_geometry::glam::DVec3;
use proptest::prelude::*;
use std::sync::Arc;
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
    ]
}

fn hull_body(b: &RigidBody) -> RigidBody {
    RigidBody::with_hull(Arc::clone(b.shared())).unwrap()
}

proptest! {
    // each case runs a dense brute-force reference: a quarter of PROPTEST_CASES (64 in CI)
    #![proptest_config(ProptestConfig { cases: (ProptestConfig::default().cases / 4).max(1), ..ProptestConfig::default() })]

    #[test]
    fn bounded_never_misses_and_hull_is_a_lower_bound(a in shapes(), b in shapes(), ma in motion(1.2), mb in motion(1.2)) {
        let (ba, bb) = (hull_body(&body(a.clone())), hull_body(&body(b.clone())));
        let opts = CaOptions::default().with_tolerance(EPS);
        let pair = RigidPair { a: &ma, b: &mb };
        let mut scratch = BoundedScratch::default();
        let res = time_of_contact_bounded(&ba, &bb, &pair, 0.0, 1.0, &opts, &mut scratch).unwrap();
        let hull = time_of_contact_convex_bounded(&ba, &bb, &pair, 0.0, 1.0, &opts).unwrap();
        let reference = reference_toc(&a, &ma, &b, &mb, 400);
        if let Some(r) = reference {
            let c = res.expect("bounded CA missed a contact");
            prop_assert!(c.toc <= r + 1e-9, "toc {} after the reference {r}", c.toc);
            let h = hull.expect("hull CA missed a contact");
            prop_assert!(h.toc <= r + 1e-9, "hull toc {} after the reference {r}", h.toc);
        }
        if let Some(c) = res {
            if c.status != Status::OutOfIterations {
                let d = distance_at(&a, &ma, &b, &mb, c.toc);
                prop_assert!(d <= EPS + 1e-9, "distance {d} at toc {}", c.toc);
            }
            for k in 0..100 {
                let t = c.toc * f64::from(k) / 100.0;
                if t >= c.toc {
                    continue;
                }
                prop_assert!(distance_at(&a, &ma, &b, &mb, t) > 0.0, "touching at {t} before toc {}", c.toc);
            }
            // resumed from the hull bound, the window search still finds a contact no later
            if let (Some(h), Some(r)) = (hull, reference) {
                let again = time_of_contact_bounded(&ba, &bb, &pair, h.toc, 1.0, &opts, &mut scratch).unwrap();
                let again = again.expect("resumed window missed a contact");
                prop_assert!(again.toc >= h.toc && again.toc <= r + 1e-9);
            }
        } else {
            for k in 0..=200 {
                let t = f64::from(k) / 200.0;
                prop_assert!(distance_at(&a, &ma, &b, &mb, t) > 0.0, "touching at {t} but None");
            }
        }
        // a window ending before the reference contact finds nothing before its end
        if let (Some(c), Some(r)) = (res, reference) && c.toc > 0.0 && r > 0.0 {
            let early = time_of_contact_bounded(&ba, &bb, &pair, 0.0, 0.5 * c.toc, &opts, &mut scratch).unwrap();
            prop_assert!(early.is_none() || early.is_some_and(|e| e.toc < 0.5 * c.toc));
        }
    }

    #[test]
    fn a_separation_certificate_keeps_the_pair_apart(
        a in shapes(),
        b in shapes(),
        ma in motion(1.6),
        mb in motion(1.6),
        s in 0.0..0.9f64,
        len in 0.0..0.6f64,
        n in unit(),
        cached in any::<bool>(),
    ) {
        let (ba, bb) = (hull_body(&body(a.clone())), hull_body(&body(b.clone())));
        let opts = CaOptions::default().with_tolerance(EPS);
        let pair = RigidPair { a: &ma, b: &mb };
        let e = (s + len).min(1.0);
        // the direction: the hull CA's last one over the window before (as the adaptive
        // articulated query caches it from the last step), or any
        let mut dir = n;
        if cached && s > 0.0 {
            let mut d = DVec3::ZERO;
            let r = time_of_contact_convex_bounded_with_direction(&ba, &bb, &pair, 0.0, s, &opts, &mut d).unwrap();
            if r.is_none() {
                prop_assert!(d != DVec3::ZERO && (d.length() - 1.0).abs() < 1e-9, "direction {d}");
                dir = d;
            }
        }
        if convex_apart_along(&ba, &bb, &pair, dir, s, e, &opts).unwrap() {
            for k in 0..=200 {
                let t = s + (e - s) * f64::from(k) / 200.0;
                let d = distance_at(&a, &ma, &b, &mb, t);
                prop_assert!(d > EPS, "certified apart over [{s}, {e}] along {dir}, but {d} apart at {t}");
            }
        }
    }
}
