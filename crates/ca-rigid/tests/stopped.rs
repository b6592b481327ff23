//! Runs that stop before converging ([`Status::OutOfIterations`], [`Status::Stalled`]) still
//! report a contact whose fields hold at its `toc`: a finite distance, witnesses on the bodies
//! that far apart, and — for the iteration cap — the closest pair there.

mod support;

use ccd_ca_rigid::details::{BoundedScratch, time_of_contact_bounded};
use ccd_ca_rigid::{CaOptions, Contact, RigidPair, Status, time_of_contact};
use ccd_geometry::TriMesh;
use ccd_geometry::glam::{DAffine3, DQuat, DVec3};
use ccd_kinematics::RigidMotion;
use proptest::prelude::*;
use support::*;

/// Checks a stopped contact against the brute-force distance at its `toc`.
fn check_stopped(
    what: &str,
    c: &Contact,
    a: &TriMesh,
    ma: &RigidMotion,
    b: &TriMesh,
    mb: &RigidMotion,
) {
    assert!(c.distance.is_finite(), "{what}: {c:?}");
    assert!(c.point_a.is_finite() && c.point_b.is_finite() && c.normal.is_finite());
    let gap = (c.point_b - c.point_a).length();
    assert!(
        (gap - c.distance).abs() <= 1e-9 * (1.0 + gap),
        "{what}: {c:?}"
    );
    let d = distance_at(a, ma, b, mb, c.toc);
    // witnesses are points of the bodies at `toc`: never closer than the closest pair
    assert!(
        c.distance >= d - 1e-9 * (1.0 + d),
        "{what}: {} < {d}",
        c.distance
    );
    if c.status == Status::OutOfIterations {
        assert!(
            (c.distance - d).abs() <= 1e-9 * (1.0 + d),
            "{what}: {} vs {d}",
            c.distance
        );
    }
}

/// `ccd batch` fuzz finding (json target): a body with a far vertex (`3.6e5` from its
/// origin) turning 90° runs into the iteration cap with steps from node bounds alone; the
/// last evaluation had no triangle pair, and the contact carried an infinite distance (and
/// zero witnesses) that JSON cannot hold. Both argument orders (the run's canonical order is
/// one of them).
#[test]
fn iteration_cap_with_a_far_turning_vertex_reports_the_pair_at_toc() {
    let a = TriMesh::new(
        vec![
            DVec3::new(5.0, 0.0, 0.0),
            DVec3::new(1.0, 0.0, 0.2),
            DVec3::Y,
            DVec3::Z,
        ],
        vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
    )
    .unwrap();
    let b = TriMesh::new(
        vec![
            DVec3::new(0.0, 5.0, 0.0),
            DVec3::X,
            DVec3::new(0.0, 133_333.0, 333_330.0),
            DVec3::Z,
        ],
        // (a triangle with a repeated index: the segment 0–2)
        vec![[0, 2, 0], [0, 2, 3], [0, 3, 2], [1, 2, 3]],
    )
    .unwrap();
    let ma = RigidMotion::stationary(DAffine3::IDENTITY).unwrap();
    // (the fuzz input's quaternion, 1.3e-4 off unit length; the CLI normalises it)
    #[allow(clippy::approx_constant)]
    let q = DQuat::from_xyzw(0.0, 0.0, 0.707_106_7, 0.707_201_6).normalize();
    let mb = RigidMotion::between(
        DAffine3::from_translation(DVec3::new(3.0, 6.0, 0.0)),
        DAffine3::from_rotation_translation(q, DVec3::ZERO),
    )
    .unwrap();
    let opts = CaOptions::default();
    let (ba, bb) = (body(a.clone()), body(b.clone()));
    let ab = time_of_contact(&ba, &ma, &bb, &mb, &opts).unwrap().unwrap();
    let ba_ = time_of_contact(&bb, &mb, &ba, &ma, &opts).unwrap().unwrap();
    assert_eq!(ab.status, Status::OutOfIterations);
    check_stopped("a, b", &ab, &a, &ma, &b, &mb);
    check_stopped("b, a", &ba_, &b, &mb, &a, &ma);
    // the meshes first touch at t = 1 (dense reference): the cap's toc is before it
    let r = reference_toc(&a, &ma, &b, &mb, 1000).expect("they touch");
    assert!(ab.toc <= r, "{} > {r}", ab.toc);
    for (order, x, y, mx, my) in [("a, b", &ba, &bb, &ma, &mb), ("b, a", &bb, &ba, &mb, &ma)] {
        let pair = RigidPair { a: mx, b: my };
        let mut scratch = BoundedScratch::default();
        let c = time_of_contact_bounded(x, y, &pair, 0.0, 1.0, &opts, &mut scratch)
            .unwrap()
            .unwrap();
        let (mx_mesh, my_mesh) = (x.mesh_bvh().mesh(), y.mesh_bvh().mesh());
        check_stopped(&format!("bounded {order}"), &c, mx_mesh, mx, my_mesh, my);
    }
}

proptest! {
    /// Random blobs and motions with an iteration cap of 1–3: every stopped contact holds at
    /// its `toc` (mesh and window entry points).
    #[test]
    fn stopped_contacts_hold_at_their_toc(
        noise in prop::collection::vec(-1.0..1.0f64, 8),
        ma in motion(2.0),
        mb in motion(2.0),
        cap in 1u32..=3,
    ) {
        let (a, b) = (blob(1.0, 4, 0.2, &noise).unwrap(), blob(0.7, 3, 0.2, &noise[3..]).unwrap());
        let (ba, bb) = (body(a.clone()), body(b.clone()));
        let opts = CaOptions::default().with_max_iterations(cap);
        if let Some(c) = time_of_contact(&ba, &ma, &bb, &mb, &opts).unwrap()
            && matches!(c.status, Status::OutOfIterations | Status::Stalled)
        {
            check_stopped("mesh", &c, &a, &ma, &b, &mb);
        }
        let pair = RigidPair { a: &ma, b: &mb };
        let mut scratch = BoundedScratch::default();
        if let Some(c) = time_of_contact_bounded(&ba, &bb, &pair, 0.0, 1.0, &opts, &mut scratch).unwrap()
            && matches!(c.status, Status::OutOfIterations | Status::Stalled)
        {
            check_stopped("bounded", &c, &a, &ma, &b, &mb);
        }
    }
}
