//! Unit tests of the assembly tree: balance, node kinds, handle transforms, bad input.

use ccd_taylor::Interval;
use glam::{DAffine3, DVec3};

use super::*;
use crate::{ArticulatedModel, ArticulatedMotion, Joint, LinkSpec};

fn model(parents: &[Option<usize>]) -> ArticulatedModel {
    let hinge = Joint::Revolute {
        axis: DVec3::Z,
        limits: None,
    };
    ArticulatedModel::new(
        parents
            .iter()
            .enumerate()
            .map(|(i, p)| LinkSpec {
                name: format!("l{i}"),
                parent: p.map(|p| format!("l{p}")),
                joint: hinge,
                offset: DAffine3::from_translation(DVec3::X),
            })
            .collect(),
    )
    .expect("valid model")
}

#[test]
fn chain_is_balanced() {
    for n in 1..=70usize {
        let parents: Vec<_> = (0..n).map(|i| i.checked_sub(1)).collect();
        let tree = AssemblyTree::from_model(&model(&parents));
        assert_eq!(tree.node_count(), 2 * n - 1);
        let log = (n as f64).log2().ceil() as usize;
        assert_eq!(tree.depth(), log, "n = {n}");
    }
}

#[test]
fn every_joint_is_one_node_and_every_link_one_leaf() {
    let parents = [None, Some(0), Some(0), Some(1), Some(1), Some(2), Some(5)];
    let tree = AssemblyTree::from_model(&model(&parents));
    for l in 0..parents.len() as u32 {
        let leaf = tree.leaf(LinkId(l)).unwrap();
        assert_eq!(
            tree.node(leaf).unwrap(),
            AssemblyNode::Body { link: LinkId(l) }
        );
        match tree.joint_node(LinkId(l)).unwrap() {
            None => assert_eq!(l, 0),
            Some(k) => {
                assert!(
                    matches!(tree.node(k).unwrap(), AssemblyNode::Joint { joint, .. } if joint == LinkId(l))
                );
            }
        }
    }
    // the root has no secondary handles; children come after parents
    assert!(tree.handles(NodeId(0)).unwrap().is_empty());
    for k in 1..tree.node_count() as u32 {
        assert!(tree.parent(NodeId(k)).unwrap().expect("non-root").0 < k);
    }
}

#[test]
fn handle_transforms_map_handle_frames_to_the_top_link() {
    let parents = [None, Some(0), Some(1), Some(1), Some(3), Some(4)];
    let m = model(&parents);
    let q = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6];
    let pose = m.pose_from_joints(&q).expect("pose");
    let fk = pose.world_transforms(&m).unwrap();
    let mut tree = AssemblyTree::with_pose(&m, &pose).expect("tree");
    for k in 0..tree.node_count() as u32 {
        let id = NodeId(k);
        let top = match tree.node(id).unwrap() {
            AssemblyNode::Body { link } => link,
            AssemblyNode::Joint { .. } => {
                // top link: the leaf reached by always going to the upper child
                let mut cur = id;
                loop {
                    match tree.node(cur).unwrap() {
                        AssemblyNode::Body { link } => break link,
                        AssemblyNode::Joint { upper, .. } => cur = upper,
                    }
                }
            }
        };
        let inv_top = fk[top.index()].inverse();
        let links = tree.handles(id).unwrap().to_vec();
        for (h, t) in links.iter().zip(tree.handle_transforms(id).unwrap()) {
            assert!(t.abs_diff_eq(inv_top * fk[h.index()], 1e-12));
        }
        let _ = tree.world_transform(top).unwrap();
    }
}

#[test]
fn bad_input_is_an_error() {
    let m = model(&[None, Some(0)]);
    let mut tree = AssemblyTree::from_model(&m);
    assert!(matches!(
        tree.set_joint(LinkId(1), &[0.0, 1.0]),
        Err(KinematicsError::JointCount { .. })
    ));
    assert!(matches!(
        tree.set_joint(LinkId(1), &[f64::INFINITY]),
        Err(KinematicsError::InvalidJointValue { .. })
    ));
    assert!(tree.set_joint(LinkId(7), &[0.0]).is_err());
    assert!(
        tree.set_relative(LinkId(1), DAffine3::from_scale(DVec3::splat(2.0)))
            .is_err()
    );
    let p = m.pose_from_joints(&[0.0, 0.0]).expect("pose");
    let motion = ArticulatedMotion::between(&m, &p, &p).expect("motion");
    assert!(matches!(
        AssemblyBounds::<Interval>::new(&tree, &motion, Interval::new(-0.5, 0.5)),
        Err(KinematicsError::TimeOutOfRange(_))
    ));
}
