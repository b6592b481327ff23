//! The link tree of a parsed URDF: one [`LinkSpec`] per `<link>`, with its parent joint's
//! type, axis, limits and origin, after checking names, roots and cycles.

use std::collections::HashMap;

use glam::{DAffine3, DQuat, DVec3};

use super::xml::JointScan;
use crate::{Joint, KinematicsError, Limits, LinkSpec};

fn finite3(v: [f64; 3]) -> Option<DVec3> {
    let v = DVec3::from_array(v);
    v.is_finite().then_some(v)
}

/// The rigid transform of an `<origin xyz rpy>`.
pub(super) fn origin(pose: &urdf_rs::Pose, what: &str) -> Result<DAffine3, KinematicsError> {
    let (Some(xyz), Some(rpy)) = (finite3(pose.xyz.0), finite3(pose.rpy.0)) else {
        return Err(KinematicsError::InvalidUrdf(format!(
            "{what} has a non-finite origin"
        )));
    };
    let rotation = DQuat::from_rotation_z(rpy.z)
        * DQuat::from_rotation_y(rpy.y)
        * DQuat::from_rotation_x(rpy.x);
    Ok(DAffine3::from_rotation_translation(rotation, xyz))
}

/// The link specs in document order, and for each link the index of its parent joint.
pub(super) fn link_specs(
    robot: &urdf_rs::Robot,
    scans: &HashMap<String, JointScan>,
) -> Result<(Vec<LinkSpec>, Vec<Option<usize>>), KinematicsError> {
    let invalid = |m: String| Err(KinematicsError::InvalidUrdf(m));
    if robot.links.is_empty() {
        return invalid("the robot has no links".into());
    }
    let mut index: HashMap<&str, usize> = HashMap::with_capacity(robot.links.len());
    for (i, l) in robot.links.iter().enumerate() {
        if index.insert(l.name.as_str(), i).is_some() {
            return invalid(format!("two links are named {:?}", l.name));
        }
    }
    let n = robot.links.len();
    let mut parent_joint: Vec<Option<usize>> = vec![None; n];
    let mut parent_link: Vec<Option<usize>> = vec![None; n];
    for (j, joint) in robot.joints.iter().enumerate() {
        let find = |name: &str, role: &str| {
            index
                .get(name)
                .copied()
                .ok_or_else(|| KinematicsError::UnknownLink {
                    link: name.to_owned(),
                    context: format!("joint {:?} ({role})", joint.name),
                })
        };
        let parent = find(&joint.parent.link, "parent")?;
        let child = find(&joint.child.link, "child")?;
        if let Some(first) = parent_joint[child] {
            return Err(KinematicsError::LinkWithTwoParents {
                link: joint.child.link.clone(),
                first: robot.joints[first].name.clone(),
                second: joint.name.clone(),
            });
        }
        if parent == child {
            return Err(KinematicsError::UrdfCycle {
                links: vec![joint.child.link.clone()],
            });
        }
        parent_joint[child] = Some(j);
        parent_link[child] = Some(parent);
    }
    let roots: Vec<usize> = (0..n).filter(|&i| parent_joint[i].is_none()).collect();
    let sorted_names = |ids: &mut dyn Iterator<Item = usize>| {
        let mut names: Vec<String> = ids.map(|i| robot.links[i].name.clone()).collect();
        names.sort();
        names
    };
    if roots.is_empty() {
        return Err(KinematicsError::UrdfCycle {
            links: sorted_names(&mut (0..n)),
        });
    }
    // every non-root link has exactly one parent, so a link that cannot reach a root by
    // following parents lies on (or hangs below) a cycle
    let mut reaches_root: Vec<Option<bool>> = vec![None; n];
    for start in 0..n {
        let mut path = Vec::new();
        let mut cur = start;
        let verdict = loop {
            if let Some(v) = reaches_root[cur] {
                break v;
            }
            if path.len() > n {
                break false;
            }
            path.push(cur);
            match parent_link[cur] {
                None => break true,
                Some(p) => cur = p,
            }
        };
        for i in path {
            reaches_root[i] = Some(verdict);
        }
    }
    let stuck: Vec<usize> = (0..n).filter(|&i| reaches_root[i] != Some(true)).collect();
    if !stuck.is_empty() {
        return Err(KinematicsError::UrdfCycle {
            links: sorted_names(&mut stuck.into_iter()),
        });
    }
    if roots.len() > 1 {
        return invalid(format!(
            "the links form {} trees (roots {:?}); a URDF has exactly one root",
            roots.len(),
            sorted_names(&mut roots.into_iter())
        ));
    }
    let mut specs = Vec::with_capacity(n);
    for (i, link) in robot.links.iter().enumerate() {
        let spec = match parent_joint[i] {
            None => LinkSpec {
                name: link.name.clone(),
                parent: None,
                joint: Joint::Fixed,
                offset: DAffine3::IDENTITY,
            },
            Some(j) => {
                let joint = &robot.joints[j];
                let scan = scans.get(&joint.name);
                LinkSpec {
                    name: link.name.clone(),
                    parent: Some(joint.parent.link.clone()),
                    joint: joint_of(joint, scan)?,
                    offset: origin(&joint.origin, &format!("joint {:?}", joint.name))?,
                }
            }
        };
        specs.push(spec);
    }
    Ok((specs, parent_joint))
}

/// The [`Joint`] of a URDF joint.
fn joint_of(joint: &urdf_rs::Joint, scan: Option<&JointScan>) -> Result<Joint, KinematicsError> {
    use urdf_rs::JointType as T;
    let name = &joint.name;
    let axis = || {
        let a = finite3(joint.axis.xyz.0)
            .and_then(DVec3::try_normalize)
            .ok_or_else(|| {
                KinematicsError::InvalidUrdf(format!(
                    "joint {name:?} has a zero or non-finite axis {:?}",
                    joint.axis.xyz.0
                ))
            })?;
        Ok::<_, KinematicsError>(a)
    };
    let limits = || {
        if !scan.is_some_and(|s| s.has_limit) {
            return Err(KinematicsError::InvalidUrdf(format!(
                "joint {name:?} ({}) has no <limit>",
                scan.map_or("revolute or prismatic", |s| s.kind.as_str())
            )));
        }
        let (lower, upper) = (joint.limit.lower, joint.limit.upper);
        if lower.is_nan() || upper.is_nan() || lower > upper {
            return Err(KinematicsError::InvalidUrdf(format!(
                "joint {name:?} has invalid limits [{lower}, {upper}]"
            )));
        }
        Ok((lower.is_finite() && upper.is_finite()).then_some(Limits { lower, upper }))
    };
    Ok(match joint.joint_type {
        T::Fixed => Joint::Fixed,
        T::Revolute => Joint::Revolute {
            axis: axis()?,
            limits: limits()?,
        },
        T::Continuous => Joint::Revolute {
            axis: axis()?,
            limits: None,
        },
        T::Prismatic => Joint::Prismatic {
            axis: axis()?,
            limits: limits()?,
        },
        T::Floating => Joint::Floating,
        T::Spherical => Joint::Spherical,
        T::Planar => {
            return Err(KinematicsError::UnsupportedJointType {
                joint: name.clone(),
                kind: "planar".into(),
            });
        }
    })
}
