//! The convex fast path (GJK-based CA on hulls) against the brute-force reference and the
//! mesh path, on boxes and spheres under random motions.

mod support;

use std::sync::Arc;

use ccd_bvh::{BvhOptions, MeshBvh, Rss};
use ccd_ca_rigid::{
    CaError, CaOptions, RigidBody, Status, time_of_contact, time_of_contact_convex,
};
use ccd_geometry::TriMesh;
use ccd_geometry::glam::DVec3;
use proptest::prelude::*;
use support::*;

fn convex_shapes() -> impl Strategy<Value = TriMesh> {
    prop_oneof![
        (prop::array::uniform3(0.05..0.8f64)).prop_map(|e| TriMesh::cuboid(
            -DVec3::from_array(e),
            DVec3::from_array(e)
        )
        .unwrap()),
        (0.2..0.8f64).prop_map(|r| blob(r, 5, 0.2, &[0.0]).unwrap()),
    ]
}

fn hull_body(m: TriMesh) -> RigidBody {
    RigidBody::with_hull(Arc::new(
        MeshBvh::<Rss>::new(m, &BvhOptions::default()).unwrap(),
    ))
    .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: (ProptestConfig::default().cases / 4).max(1), ..ProptestConfig::default() })]

    #[test]
    fn convex_path_never_misses(a in convex_shapes(), b in convex_shapes(), ma in motion(1.2), mb in motion(1.2)) {
        let (ba, bb) = (hull_body(a.clone()), hull_body(b.clone()));
        let opts = CaOptions::default();
        let res = time_of_contact_convex(&ba, &ma, &bb, &mb, &opts).unwrap();
        let reference = reference_toc(&a, &ma, &b, &mb, 400);
        match (res, reference) {
            (None, Some(r)) => prop_assert!(false, "missed a contact at {r}"),
            (None, None) => {}
            (Some(c), r) => {
                if let Some(r) = r {
                    prop_assert!(c.toc <= r + 1e-9, "toc {} after reference {r}", c.toc);
                }
                if c.status == Status::Converged {
                    let d = distance_at(&a, &ma, &b, &mb, c.toc);
                    prop_assert!(d <= opts.tolerance + 1e-9, "distance {d} at toc {}", c.toc);
                    for k in 0..50 {
                        let t = c.toc * f64::from(k) / 50.0;
                        prop_assert!(distance_at(&a, &ma, &b, &mb, t) > 0.0, "touching at {t} before toc");
                    }
                }
                // the mesh path agrees when both start separated
                if c.status == Status::Converged
                    && let Some(m) = time_of_contact(&ba, &ma, &bb, &mb, &opts).unwrap()
                    && m.status == Status::Converged
                {
                    prop_assert!((m.toc - c.toc).abs() <= 0.05, "mesh {} vs convex {}", m.toc, c.toc);
                }
            }
        }
    }
}

#[test]
fn bodies_without_hulls_are_rejected() {
    let plain = body(TriMesh::cuboid(DVec3::ZERO, DVec3::ONE).unwrap());
    let still =
        ccd_kinematics::RigidMotion::stationary(ccd_geometry::glam::DAffine3::IDENTITY).unwrap();
    assert_eq!(
        time_of_contact_convex(&plain, &still, &plain, &still, &CaOptions::default()),
        Err(CaError::MissingHull)
    );
}
