//! Motions that turn about a centre away from the frame origin
//! (`RigidMotion::from_velocities` with a non-zero `local_center`) are a typed error: the
//! motion bounds of rigid CA assume rotation about the frame origin, and answering with
//! them would be unsound.

use std::sync::Arc;

use ccd_bvh::{BvhOptions, MeshBvh, Rss};
use ccd_ca_rigid::{CaError, CaOptions, RigidBody, time_of_contact, time_of_contact_convex};
use ccd_geometry::TriMesh;
use ccd_geometry::glam::{DAffine3, DVec3};
use ccd_kinematics::RigidMotion;

#[test]
fn an_offset_rotation_centre_is_rejected() {
    let tetra = TriMesh::new(
        vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z],
        vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
    )
    .unwrap();
    let bvh = Arc::new(MeshBvh::<Rss>::new(tetra, &BvhOptions::default()).unwrap());
    let body = RigidBody::with_hull(bvh).unwrap();
    let still = RigidMotion::stationary(DAffine3::IDENTITY).unwrap();
    let start = DAffine3::from_translation(DVec3::new(3.0, 0.0, 0.0));
    let spin = RigidMotion::from_velocities(start, -DVec3::X, DVec3::Z * 10.0, DVec3::Y).unwrap();
    let opts = CaOptions::default();
    for (a, b) in [(&still, &spin), (&spin, &still)] {
        assert_eq!(
            time_of_contact(&body, a, &body, b, &opts).unwrap_err(),
            CaError::OffsetRotationCentre
        );
        assert_eq!(
            time_of_contact_convex(&body, a, &body, b, &opts).unwrap_err(),
            CaError::OffsetRotationCentre
        );
    }
    // the same velocities about the frame origin are fine
    let about_origin =
        RigidMotion::from_velocities(start, -DVec3::X, DVec3::Z * 10.0, DVec3::ZERO).unwrap();
    assert!(time_of_contact(&body, &still, &body, &about_origin, &opts).is_ok());
}
