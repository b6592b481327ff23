//! Unit tests of `state`.

use super::*;
use ccd_geometry::TriMesh;
use ccd_kinematics::{ArticulatedModel, Joint, LinkSpec};
use ccd_taylor::TaylorModel;
use glam::DVec3;

fn chain(n: usize) -> ArticulatedBody {
    let hinge = Joint::Revolute {
        axis: DVec3::Z,
        limits: None,
    };
    let specs = (0..n)
        .map(|i| LinkSpec {
            name: format!("l{i}"),
            parent: (i > 0).then(|| format!("l{}", i - 1)),
            joint: hinge,
            offset: DAffine3::from_translation(DVec3::X),
        })
        .collect();
    let model = ArticulatedModel::new(specs).unwrap();
    let rod = TriMesh::new(
        vec![
            DVec3::new(0.1, -0.05, -0.05),
            DVec3::new(0.9, -0.05, -0.05),
            DVec3::new(0.5, 0.05, -0.05),
            DVec3::new(0.5, 0.0, 0.05),
        ],
        vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
    )
    .unwrap();
    ArticulatedBody::from_meshes(model, vec![Some(rod); n]).unwrap()
}

#[test]
fn only_the_changed_joints_paths_are_recomputed() {
    let body = chain(16);
    let q0 = vec![0.1; 16];
    let m0 = ArticulatedMotion::from_joints(body.model(), &q0, &q0).unwrap();
    let mut s = BodyState::<TaylorModel>::new(0, &body, &m0).unwrap();
    assert_eq!(s.advance(&body, &m0, 1e-3).unwrap(), 0);
    let mut q1 = q0.clone();
    q1[9] = 0.5;
    let m1 = ArticulatedMotion::from_joints(body.model(), &q0, &q1).unwrap();
    // 16 links: the joint of link 9 sits 4 levels deep
    assert_eq!(s.advance(&body, &m1, 1e-3).unwrap(), 4);
    assert!(s.moving[0]);
    // the root's own motion dirties no node
    let mut q2 = q0.clone();
    q2[0] = 0.3;
    let m2 = ArticulatedMotion::from_joints(body.model(), &q0, &q2).unwrap();
    // link 9 stops (4 nodes), link 0 starts (none)
    assert_eq!(s.advance(&body, &m2, 1e-3).unwrap(), 4);
    assert!(!s.moving[0]);
}

/// The body-frame boxes kept across steps hold every sampled pose of their links in the
/// root link's frame, for steps where the root turns, a joint starts, keeps moving and
/// stops, and still joints jump between steps (their boxes must be renewed: keeping
/// every box of the first step fails at the third).
#[test]
fn body_frame_boxes_follow_the_changed_joints() {
    let n = 12;
    let body = chain(n);
    let mut q = vec![0.0; n];
    let mut steps = Vec::new();
    for k in 0..8 {
        let q0 = q.clone();
        if k == 2 || k == 5 {
            // still joints jump between steps
            q[3] += 0.7;
            q[8] -= 0.9;
        }
        let q0 = if k == 2 || k == 5 { q.clone() } else { q0 };
        let mut q1 = q.clone();
        q1[0] += 0.3; // the root turns every step
        if (1..6).contains(&k) {
            q1[6] += 0.4; // a joint moves for five steps
        }
        if k >= 4 {
            q1[10] -= 0.5;
        }
        q.clone_from(&q1);
        steps.push((q0, q1));
    }
    let m0 = ArticulatedMotion::from_joints(body.model(), &steps[0].0, &steps[0].1).unwrap();
    let mut s = BodyState::<Interval>::new(0, &body, &m0).unwrap();
    let mut recomputed = 0;
    for (k, (q0, q1)) in steps.iter().enumerate() {
        let m = ArticulatedMotion::from_joints(body.model(), q0, q1).unwrap();
        s.advance(&body, &m, 1e-3).unwrap();
        let before = s.body_box_stamp.clone();
        let boxes: Vec<Aabb> = (0..s.nodes.len() as u32)
            .map(|node| s.body_box(&body, node))
            .collect();
        recomputed += before
            .iter()
            .zip(&s.body_box_stamp)
            .filter(|(a, b)| a != b)
            .count();
        for j in 0..=64 {
            let t = f64::from(j) / 64.0;
            let w = m.world_all_at(t);
            let root = w[0].inverse();
            for (node, b) in boxes.iter().enumerate() {
                for &l in &s.geometry[node] {
                    let shape = body.link_shape(l).unwrap();
                    for &c in shape.obb_corners() {
                        let p = (root * w[l.index()]).transform_point3(c);
                        assert!(
                            b.inflate(1e-9).contains_point(p),
                            "step {k}, t {t}: node {node} misses link {l:?} at {p}"
                        );
                    }
                }
            }
        }
    }
    // boxes were kept: fewer recomputed than every node at every step
    assert!(recomputed < steps.len() * s.nodes.len(), "{recomputed}");
}
