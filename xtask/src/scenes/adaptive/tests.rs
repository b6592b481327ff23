//! Unit tests of `adaptive`.

use super::motions::{joint_order, motion};
use super::rigs::bones;
use super::*;
use ccd_kinematics::LinkId;

#[test]
fn the_wooden_man_has_29_bodies_and_about_16k_triangles() {
    let rig = wooden_man().unwrap();
    assert_eq!(rig.model.len(), 29);
    let t = rig.triangles();
    assert!((14_000..18_000).contains(&t), "{t} triangles");
    let env = tableware(7).unwrap().triangle_count();
    assert!((40_000..48_000).contains(&env), "{env} triangles");
}

#[test]
fn each_link_gets_its_own_bones_mesh() {
    let rig = wooden_man().unwrap();
    let bones = bones();
    for (l, mesh) in rig.model.links().iter().zip(&rig.meshes) {
        let bone = bones.iter().find(|b| b.0 == l.name).unwrap();
        let bx = ccd_geometry::Aabb::from_points(mesh.vertices().iter().copied());
        // the middle of the limb, and not far beyond its end
        assert!(bx.contains_point(0.5 * bone.4), "{}", l.name);
        assert!(
            bx.max.length().max(bx.min.length()) < bone.4.length() + 0.2,
            "{}",
            l.name
        );
    }
}

#[test]
fn inactive_joints_keep_their_values() {
    let rig = pendulum(10).unwrap();
    let order = joint_order(10, 3, false);
    let m = motion(&rig.model, &order, 3, 4, 0.3, 0.9, 1, &|_| [0.0; 6]);
    for (q0, q1) in &m.steps {
        for i in 0..10 {
            if !m.active.contains(&LinkId(i as u32)) {
                assert_eq!(q0[i], q1[i]);
            }
        }
    }
    assert!(m.steps.iter().any(|(q0, q1)| q0 != q1));
}
