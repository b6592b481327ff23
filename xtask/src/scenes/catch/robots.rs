//! The robot scenes: the PR2 (URDF + SRDF from `data/robots/pr2`) in a procedural kitchen
//! of about 100K triangles, and the Panda (`data/robots/panda`) before a cluttered shelf;
//! random joint-space edges inside the joint limits; procedural arms standing in for the
//! robots when the data folder is absent.

use anyhow::{Context, Result};
use ccd_ca_articulated::ArticulatedBody;
use ccd_distance::mesh_overlap;
use ccd_geometry::TriMesh;
use ccd_kinematics::urdf::{UrdfOptions, UrdfRobot, read_srdf_disabled_pairs};
use ccd_kinematics::{ArticulatedModel, Joint, Limits, LinkId, LinkSpec};
use glam::{DAffine3, DQuat, DVec3};

use super::meshes::{MeshBuilder, limb};
use crate::rng::SceneRng;
use crate::robot_data::{RobotDir, RobotSources};

/// A robot ready for a scene: kinematics, a collision mesh per link, the SRDF pairs, and
/// which joint values move.
pub(crate) struct Robot {
    /// The kinematic model.
    pub(crate) model: ArticulatedModel,
    /// Collision mesh per link (`None`: no geometry).
    pub(crate) meshes: Vec<Option<TriMesh>>,
    /// SRDF `disable_collisions` pairs (empty for the stand-ins).
    pub(crate) disabled: Vec<(LinkId, LinkId)>,
    /// Moving joint values: index in `q` and limits.
    pub(crate) moving: Vec<(usize, f64, f64)>,
    /// Values of all joints when not moving (inside the limits).
    pub(crate) rest: Vec<f64>,
    /// Where it came from.
    pub(crate) source: String,
}

impl Robot {
    /// Triangles over all links.
    pub(crate) fn triangles(&self) -> usize {
        self.meshes
            .iter()
            .flatten()
            .map(TriMesh::triangle_count)
            .sum()
    }

    /// A uniformly random configuration of the moving joints (others at rest).
    pub(crate) fn random_config(&self, rng: &mut SceneRng) -> Vec<f64> {
        let mut q = self.rest.clone();
        for &(i, lo, hi) in &self.moving {
            q[i] = rng.uniform(lo, hi);
        }
        q
    }

    /// A configuration at most `max_step` (per joint) from `q0`, inside the limits.
    pub(crate) fn nearby_config(&self, q0: &[f64], max_step: f64, rng: &mut SceneRng) -> Vec<f64> {
        let mut q = q0.to_vec();
        for &(i, lo, hi) in &self.moving {
            q[i] = (q0[i] + rng.uniform(-max_step, max_step)).clamp(lo, hi);
        }
        q
    }
}

fn limits_of(model: &ArticulatedModel, q_index: usize) -> Option<(f64, f64)> {
    let link = model
        .links()
        .iter()
        .find(|l| l.joint.dof() == 1 && l.first_dof == q_index)?;
    match link.joint {
        Joint::Revolute { limits, .. } => Some(
            limits.map_or((-std::f64::consts::PI, std::f64::consts::PI), |l| {
                (l.lower, l.upper)
            }),
        ),
        Joint::Prismatic { limits, .. } => limits.map(|l| (l.lower, l.upper)),
        _ => None,
    }
}

fn rest_of(model: &ArticulatedModel) -> Vec<f64> {
    let mut q = vec![0.0; model.dof()];
    for l in model.links() {
        if let Joint::Revolute {
            limits: Some(lim), ..
        }
        | Joint::Prismatic {
            limits: Some(lim), ..
        } = l.joint
        {
            q[l.first_dof] = 0.0f64.clamp(lim.lower, lim.upper);
        }
    }
    q
}

fn load_urdf(
    robot_dir: &RobotDir,
    package: &str,
    urdf: &str,
    srdf: &str,
    moving: &[&str],
    fixed: &[(&str, f64)],
) -> Result<Robot> {
    let dir = robot_dir.path.as_path();
    let opts = UrdfOptions::default().with_package(package, dir);
    let path = dir.join("urdf").join(urdf);
    let robot = UrdfRobot::from_file(&path, &opts)
        .with_context(|| format!("loading {}", path.display()))?;
    let srdf_path = dir.join("srdf").join(srdf);
    let disabled = read_srdf_disabled_pairs(&srdf_path, &robot.model)
        .with_context(|| format!("reading {}", srdf_path.display()))?
        .into_iter()
        .collect();
    let model = robot.model.clone();
    let meshes = (0..model.len() as u32)
        .map(|i| robot.link_mesh(LinkId(i)))
        .collect();
    let mut rest = rest_of(&model);
    for &(name, v) in fixed {
        let i = robot
            .joint_index(name)
            .with_context(|| format!("{urdf} has no joint {name}"))?;
        rest[i] = v;
    }
    let moving = moving
        .iter()
        .map(|name| {
            let i = robot
                .joint_index(name)
                .with_context(|| format!("{urdf} has no joint {name}"))?;
            let (lo, hi) =
                limits_of(&model, i).with_context(|| format!("joint {name} is not 1-dof"))?;
            Ok((i, lo, hi))
        })
        .collect::<Result<_>>()?;
    Ok(Robot {
        model,
        meshes,
        disabled,
        moving,
        rest,
        source: format!("real data: {urdf} + {srdf} from {}", robot_dir.origin),
    })
}

/// The first robot of `sources` that loads with `load`, or `None` (each source that exists
/// but does not load is reported in one line).
fn first_real(
    sources: &RobotSources,
    name: &str,
    load: impl Fn(&RobotDir) -> Result<Robot>,
) -> Option<Robot> {
    let try_load = |dir: &RobotDir| match load(dir) {
        Ok(r) => Some(r),
        Err(e) => {
            eprintln!(
                "robots: {name} from {} ({}) does not load: {e:#}; trying the next source",
                dir.origin,
                dir.path.display()
            );
            None
        }
    };
    sources
        .candidates(name)
        .iter()
        .find_map(try_load)
        .or_else(|| sources.registry(name).as_ref().and_then(try_load))
}

/// The PR2 with both 7-dof arms moving (torso lifted 0.1 m), or a procedural two-arm
/// stand-in when no source has it.
pub(crate) fn pr2(sources: &RobotSources) -> Result<Robot> {
    let real = first_real(sources, "pr2", |dir| {
        let arm = |s: &str| {
            [
                "shoulder_pan",
                "shoulder_lift",
                "upper_arm_roll",
                "elbow_flex",
                "forearm_roll",
                "wrist_flex",
                "wrist_roll",
            ]
            .map(|j| format!("{s}_{j}_joint"))
        };
        let names: Vec<String> = arm("r").into_iter().chain(arm("l")).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        load_urdf(
            dir,
            "example-robot-data/robots/pr2_description",
            "pr2.urdf",
            "pr2.srdf",
            &refs,
            &[("torso_lift_joint", 0.1)],
        )
    });
    if let Some(r) = real {
        return Ok(r);
    }
    let mut specs = vec![LinkSpec {
        name: "torso".into(),
        parent: None,
        joint: Joint::Fixed,
        offset: DAffine3::IDENTITY,
    }];
    let mut meshes = vec![Some(torso_mesh()?)];
    // shoulders clear of the torso (|y| ≤ 0.14), pans turning mostly outwards and lifts
    // mostly downwards, as the PR2's (r: −2.29…0.71, lift −0.52…1.40 rad)
    for (side, y, pan) in [("r", -0.26, (-2.1, 0.7)), ("l", 0.26, (-0.7, 2.1))] {
        let (s, m) = arm_chain(
            side,
            "torso",
            DAffine3::from_translation(DVec3::new(0.0, y, 1.0)),
            [pan, (-0.5, 1.4)],
        )?;
        specs.extend(s);
        meshes.extend(m);
    }
    stand_in(
        specs,
        meshes,
        "procedural two-arm torso stand-in (no PR2 data)",
    )
}

/// The Panda with its 7 arm joints moving (fingers at 0.02), or a procedural 7-dof arm when
/// no source has it.
pub(crate) fn panda(sources: &RobotSources) -> Result<Robot> {
    let real = first_real(sources, "panda", |dir| {
        let names: Vec<String> = (1..=7).map(|i| format!("panda_joint{i}")).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        load_urdf(
            dir,
            "example-robot-data/robots/panda_description",
            "panda.urdf",
            "panda.srdf",
            &refs,
            &[("panda_finger_joint1", 0.02), ("panda_finger_joint2", 0.02)],
        )
    });
    if let Some(r) = real {
        return Ok(r);
    }
    let mut b = MeshBuilder::new();
    b.cylinder(DVec3::ZERO, DVec3::new(0.0, 0.0, 0.2), 0.09, 32);
    let mut specs = vec![LinkSpec {
        name: "base".into(),
        parent: None,
        joint: Joint::Fixed,
        offset: DAffine3::IDENTITY,
    }];
    let mut meshes = vec![Some(b.build()?)];
    let (s, m) = arm_chain(
        "arm",
        "base",
        DAffine3::from_translation(DVec3::new(0.0, 0.0, 0.2)),
        [(-2.0, 2.0), (-1.4, 1.4)],
    )?;
    specs.extend(s);
    meshes.extend(m);
    stand_in(
        specs,
        meshes,
        "procedural 7-dof arm stand-in (no Panda data)",
    )
}

fn stand_in(specs: Vec<LinkSpec>, meshes: Vec<Option<TriMesh>>, source: &str) -> Result<Robot> {
    let names: Vec<String> = specs.iter().map(|s| s.name.clone()).collect();
    let model = ArticulatedModel::new(specs)?;
    // the model stores links parents-first in its own order: put each mesh on its link
    let mut by_link: Vec<Option<TriMesh>> = vec![None; model.len()];
    for (name, mesh) in names.iter().zip(meshes) {
        if let Some(id) = model.link_id(name) {
            by_link[id.index()] = mesh;
        }
    }
    let meshes = by_link;
    let moving = model
        .links()
        .iter()
        .filter_map(|l| match l.joint {
            Joint::Revolute {
                limits: Some(lim), ..
            } => Some((l.first_dof, lim.lower, lim.upper)),
            _ => None,
        })
        .collect();
    let rest = rest_of(&model);
    let mut robot = Robot {
        model,
        meshes,
        disabled: Vec::new(),
        moving,
        rest,
        source: source.into(),
    };
    robot.disabled = srdf_rule_filter(&robot, FILTER_SAMPLES, 0x5eed)?;
    Ok(robot)
}

/// Random configurations [`srdf_rule_filter`] samples.
const FILTER_SAMPLES: usize = 200;

/// The self-collision filter of a stand-in, built by the rules that produced the real robots'
/// SRDF files (MoveIt's setup assistant): a pair is disabled when it is **adjacent** (joined by
/// a joint, links without geometry skipped: parent–child adjacency itself is built into
/// [`ArticulatedBody`]) or **always in collision** (touching within the query tolerance at
/// every one of `samples` seeded random configurations: the zero-length knuckles' neighbours,
/// say, which touch whatever the joint does). The setup assistant's other rules ("never in
/// collision" over its samples, "default": touching at the zero pose) are not applied: they
/// would hide contacts a query must find.
fn srdf_rule_filter(robot: &Robot, samples: usize, seed: u64) -> Result<Vec<(LinkId, LinkId)>> {
    let body = ArticulatedBody::from_meshes(robot.model.clone(), robot.meshes.clone())?;
    let model = body.model();
    let has_mesh = |l: LinkId| body.link_shape(l).is_some();
    // the nearest ancestor with geometry
    let parent_with_geometry = |l: LinkId| {
        let mut p = model.links()[l.index()].parent;
        while let Some(x) = p {
            if has_mesh(x) {
                return Some(x);
            }
            p = model.links()[x.index()].parent;
        }
        None
    };
    let pairs: Vec<(LinkId, LinkId)> = body.self_pairs().collect();
    let mut disabled: Vec<(LinkId, LinkId)> = pairs
        .iter()
        .copied()
        .filter(|&(a, b)| parent_with_geometry(a) == Some(b) || parent_with_geometry(b) == Some(a))
        .collect();
    let eps = ccd_ca_articulated::QueryOptions::default().tolerance;
    let mut always: Vec<(LinkId, LinkId)> = pairs
        .iter()
        .copied()
        .filter(|p| !disabled.contains(p))
        .collect();
    let mesh = |l: LinkId| body.link_shape(l).map(|s| s.body().mesh_bvh());
    let mut rng = SceneRng::new(seed);
    for _ in 0..samples {
        if always.is_empty() {
            break;
        }
        let q = robot.random_config(&mut rng);
        let w = model.pose_from_joints(&q)?.world_transforms(model)?;
        let mut still = Vec::with_capacity(always.len());
        for &(a, b) in &always {
            if let (Some(ma), Some(mb)) = (mesh(a), mesh(b))
                && mesh_overlap(ma, &w[a.index()], mb, &w[b.index()], eps)?.is_some()
            {
                still.push((a, b));
            }
        }
        always = still;
    }
    disabled.extend(always);
    Ok(disabled)
}

fn torso_mesh() -> Result<TriMesh> {
    let mut b = MeshBuilder::new();
    b.cuboid(
        DAffine3::from_translation(DVec3::new(-0.1, 0.0, 0.6)),
        DVec3::new(0.15, 0.14, 0.45),
        6,
    );
    b.revolve(
        DAffine3::from_translation(DVec3::new(-0.05, 0.0, 1.15)),
        &[(0.0, 0.05), (0.1, 0.12), (0.25, 0.1), (0.3, 0.02)],
        32,
        2,
        0.1,
    );
    b.cylinder(DVec3::ZERO, DVec3::new(0.0, 0.0, 0.3), 0.33, 48);
    b.build()
}

/// A 7-dof arm (pan, lift, roll, flex, roll, flex, roll) with limb meshes, its root joint
/// at `mount` in `parent`'s frame, reaching along `+x`.
fn arm_chain(
    prefix: &str,
    parent: &str,
    mount: DAffine3,
    shoulder: [(f64, f64); 2],
) -> Result<(Vec<LinkSpec>, Vec<Option<TriMesh>>)> {
    let lim = |(lower, upper): (f64, f64)| Some(Limits { lower, upper });
    // (axis, limits, offset to the next joint along x, radius); the shoulder's pan and lift
    // limits are the caller's (a PR2 arm does not swing into its torso)
    let joints = [
        (DVec3::Z, shoulder[0], 0.0, 0.07),
        (DVec3::Y, shoulder[1], 0.1, 0.065),
        (DVec3::X, (-2.8, 2.8), 0.3, 0.055),
        (DVec3::Y, (-2.0, 2.0), 0.0, 0.05),
        (DVec3::X, (-2.8, 2.8), 0.3, 0.045),
        (DVec3::Y, (-1.8, 1.8), 0.0, 0.04),
        (DVec3::X, (-2.8, 2.8), 0.12, 0.035),
    ];
    let mut specs = Vec::new();
    let mut meshes = Vec::new();
    let mut prev_len = 0.0;
    for (k, &(axis, l, len, r)) in joints.iter().enumerate() {
        let name = format!("{prefix}_link{k}");
        let parent_name = if k == 0 {
            parent.to_string()
        } else {
            format!("{prefix}_link{}", k - 1)
        };
        let offset = if k == 0 {
            mount
        } else {
            DAffine3::from_translation(DVec3::new(prev_len, 0.0, 0.0))
        };
        specs.push(LinkSpec {
            name,
            parent: Some(parent_name),
            joint: Joint::Revolute {
                axis,
                limits: lim(l),
            },
            offset,
        });
        let mut b = MeshBuilder::new();
        if len > 0.0 {
            limb(&mut b, DVec3::new(len, 0.0, 0.0), r, r * 0.85, 20, 20);
        } else {
            b.revolve(
                DAffine3::from_quat(DQuat::from_rotation_arc(DVec3::Z, axis)),
                &[(-r, 0.3 * r), (-0.6 * r, r), (0.6 * r, r), (r, 0.3 * r)],
                20,
                0,
                0.0,
            );
        }
        meshes.push(Some(b.build()?));
        prev_len = len;
    }
    Ok((specs, meshes))
}

/// Tableware and bottles: closed surfaces of revolution (bowls and cups as shells, so not
/// convex), `rings × 48 × 2` triangles.
fn tableware(b: &mut MeshBuilder, kind: usize, at: DVec3, s: f64, rings: usize) {
    let xf = DAffine3::from_translation(at);
    let r = |u: f64| -> (f64, f64) {
        match kind % 4 {
            // bowl: outside up, inside down (a shell)
            0 => {
                if u < 0.5 {
                    let v = u / 0.5;
                    (0.06 * v.powf(0.7), 0.03 + 0.07 * v.sqrt())
                } else {
                    let v = (1.0 - u) / 0.5;
                    (0.012 + 0.048 * v.powf(0.7), 0.02 + 0.07 * v.sqrt())
                }
            }
            // cup: a straight shell
            1 => {
                if u < 0.5 {
                    (0.1 * u / 0.5, 0.035 + 0.01 * u)
                } else {
                    (0.1 * (1.0 - u) / 0.5 + 0.01, 0.03)
                }
            }
            // bottle: body, shoulder, neck
            2 => {
                let z = 0.28 * u;
                let rad = if u < 0.6 {
                    0.035
                } else if u < 0.8 {
                    0.035 - 0.1 * (u - 0.6)
                } else {
                    0.014
                };
                (z, rad)
            }
            // plate: a wide flat shell
            _ => {
                if u < 0.5 {
                    (0.02 * u / 0.5, 0.06 + 0.06 * (u / 0.5))
                } else {
                    (
                        0.005 + 0.015 * (1.0 - u) / 0.5,
                        0.05 + 0.06 * ((1.0 - u) / 0.5),
                    )
                }
            }
        }
    };
    let profile: Vec<(f64, f64)> = (0..rings)
        .map(|k| {
            let (z, rad) = r(k as f64 / (rings - 1) as f64);
            (z * s, rad * s)
        })
        .collect();
    b.revolve(xf, &profile, 48, 0, 0.0);
}

/// A kitchen around a robot at the origin (z up, facing `+x`): a table in front, counters
/// with cabinets on both sides, chairs, a fridge, and tableware on every surface; about
/// `objects × 2.9K` triangles plus the furniture.
pub(crate) fn kitchen(seed: u64, objects: usize) -> Result<TriMesh> {
    let mut rng = SceneRng::new(seed);
    let mut b = MeshBuilder::new();
    let bx = |b: &mut MeshBuilder, c: DVec3, h: DVec3, n: usize| {
        b.cuboid(DAffine3::from_translation(c), h, n)
    };
    // table: top at z = 0.72, x ∈ [0.55, 1.35]
    bx(
        &mut b,
        DVec3::new(0.95, 0.0, 0.7),
        DVec3::new(0.4, 0.7, 0.02),
        8,
    );
    for (x, y) in [(0.6, -0.65), (0.6, 0.65), (1.3, -0.65), (1.3, 0.65)] {
        b.cylinder(DVec3::new(x, y, 0.0), DVec3::new(x, y, 0.68), 0.03, 32);
    }
    // counters with cabinets on both sides, top at z = 0.9
    for y in [-1.15, 1.15] {
        bx(
            &mut b,
            DVec3::new(0.3, y, 0.45),
            DVec3::new(1.0, 0.3, 0.45),
            10,
        );
        bx(
            &mut b,
            DVec3::new(0.3, y * 1.1, 1.7),
            DVec3::new(1.0, 0.18, 0.35),
            10,
        );
    }
    // fridge and two chairs
    bx(
        &mut b,
        DVec3::new(2.0, 0.9, 0.9),
        DVec3::new(0.35, 0.35, 0.9),
        12,
    );
    for y in [-0.45, 0.45] {
        bx(
            &mut b,
            DVec3::new(1.7, y, 0.45),
            DVec3::new(0.2, 0.2, 0.02),
            4,
        );
        bx(
            &mut b,
            DVec3::new(1.9, y, 0.7),
            DVec3::new(0.02, 0.2, 0.25),
            4,
        );
        for (dx, dy) in [(-0.17, -0.17), (-0.17, 0.17), (0.17, -0.17), (0.17, 0.17)] {
            b.cylinder(
                DVec3::new(1.7 + dx, y + dy, 0.0),
                DVec3::new(1.7 + dx, y + dy, 0.43),
                0.02,
                24,
            );
        }
    }
    // tableware: on the table (z 0.72) and on the counters (z 0.9)
    for i in 0..objects {
        let (at, s) = if i % 3 == 0 {
            (
                DVec3::new(rng.uniform(0.6, 1.3), rng.uniform(-0.65, 0.65), 0.72),
                rng.uniform(0.8, 1.4),
            )
        } else {
            let y = if i % 3 == 1 { -1.0 } else { 1.0 };
            (
                DVec3::new(rng.uniform(-0.6, 1.2), y * rng.uniform(0.9, 1.35), 0.9),
                rng.uniform(0.8, 1.4),
            )
        };
        tableware(&mut b, i, at, s, 30);
    }
    b.build()
}

/// A shelf in front of a robot at the origin (z up, facing `+x`): boards, side and back
/// panels, cans, bottles and boxes on the boards, a side table; about 25K triangles.
pub(crate) fn shelf(seed: u64) -> Result<TriMesh> {
    let mut rng = SceneRng::new(seed);
    let mut b = MeshBuilder::new();
    let bx = |b: &mut MeshBuilder, c: DVec3, h: DVec3, n: usize| {
        b.cuboid(DAffine3::from_translation(c), h, n)
    };
    let (x0, x1) = (0.5, 0.8);
    let xm = 0.5 * (x0 + x1);
    for z in [0.25, 0.55, 0.85, 1.15] {
        bx(
            &mut b,
            DVec3::new(xm, 0.0, z),
            DVec3::new(0.5 * (x1 - x0), 0.55, 0.012),
            6,
        );
    }
    for y in [-0.56, 0.56] {
        bx(
            &mut b,
            DVec3::new(xm, y, 0.6),
            DVec3::new(0.5 * (x1 - x0), 0.012, 0.6),
            6,
        );
    }
    bx(
        &mut b,
        DVec3::new(x1 + 0.01, 0.0, 0.6),
        DVec3::new(0.012, 0.56, 0.6),
        8,
    );
    // clutter on the boards
    for (k, z) in [0.262, 0.562, 0.862, 1.162].into_iter().enumerate() {
        for i in 0..6 {
            let at = DVec3::new(
                rng.uniform(x0 + 0.05, x1 - 0.05),
                -0.45 + 0.18 * i as f64 + rng.uniform(-0.03, 0.03),
                z,
            );
            match (i + k) % 3 {
                0 => tableware(&mut b, 2, at, rng.uniform(0.6, 0.9), 12),
                1 => b.cylinder(
                    at,
                    at + DVec3::new(0.0, 0.0, rng.uniform(0.08, 0.14)),
                    0.033,
                    32,
                ),
                _ => {
                    let h = DVec3::new(
                        rng.uniform(0.03, 0.06),
                        rng.uniform(0.03, 0.06),
                        rng.uniform(0.04, 0.09),
                    );
                    bx(&mut b, at + DVec3::new(0.0, 0.0, h.z), h, 4);
                }
            }
        }
    }
    // side table with a bin
    bx(
        &mut b,
        DVec3::new(0.0, -0.65, 0.4),
        DVec3::new(0.3, 0.2, 0.02),
        6,
    );
    b.revolve(
        DAffine3::from_translation(DVec3::new(0.0, -0.65, 0.42)),
        &[(0.0, 0.1), (0.15, 0.12), (0.15, 0.11), (0.01, 0.09)],
        48,
        0,
        0.0,
    );
    b.build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stand_ins_have_moving_joints_inside_limits_and_scenes_have_their_sizes() {
        let none = RobotSources::none();
        let (p, a) = (pr2(&none).unwrap(), panda(&none).unwrap());
        assert!(p.source.contains("stand-in") && a.source.contains("stand-in"));
        assert_eq!((p.moving.len(), a.moving.len()), (14, 7));
        let mut rng = SceneRng::new(1);
        let q = p.random_config(&mut rng);
        assert!(p.model.pose_from_joints(&q).is_ok());
        let q1 = a.nearby_config(&a.random_config(&mut rng), 0.5, &mut rng);
        assert!(a.model.pose_from_joints(&q1).is_ok());
        let k = kitchen(1, 30).unwrap().triangle_count();
        assert!((85_000..115_000).contains(&k), "{k}");
        let s = shelf(1).unwrap().triangle_count();
        assert!((5_000..40_000).contains(&s), "{s}");
    }

    /// The share of seeded random configurations of `robot` free of self-collision.
    fn self_free_share(robot: &Robot, n: usize) -> f64 {
        let mut body =
            ArticulatedBody::from_meshes(robot.model.clone(), robot.meshes.clone()).unwrap();
        body.disable_pairs(robot.disabled.iter().copied()).unwrap();
        let empty = ccd_bvh::MeshBvh::<ccd_bvh::Rss>::new(
            TriMesh::new(
                vec![
                    DVec3::splat(50.0),
                    DVec3::new(51.0, 50.0, 50.0),
                    DVec3::new(50.0, 51.0, 50.0),
                ],
                vec![[0, 1, 2]],
            )
            .unwrap(),
            &ccd_bvh::BvhOptions::default(),
        )
        .unwrap();
        let check = super::super::discrete::Discrete::new(&body, &empty, 1e-3);
        let mut rng = SceneRng::new(3);
        let free = (0..n)
            .filter(|_| !check.collides(&robot.random_config(&mut rng)).unwrap())
            .count();
        free as f64 / n as f64
    }

    #[test]
    fn stand_in_filters_drop_the_always_touching_pairs_and_keep_the_others() {
        let none = RobotSources::none();
        for robot in [panda(&none).unwrap(), pr2(&none).unwrap()] {
            // the knuckles' neighbours touch at every configuration: filtered ...
            assert!(!robot.disabled.is_empty(), "{}", robot.source);
            // ... and a self-collision check still has pairs to test
            let body =
                ArticulatedBody::from_meshes(robot.model.clone(), robot.meshes.clone()).unwrap();
            let all = body.self_pairs().count();
            assert!(
                robot.disabled.len() < all,
                "{} of {all}",
                robot.disabled.len()
            );
            // a robot a planner can use: many configurations free of self-collision
            let share = self_free_share(&robot, 200);
            assert!(share > 0.2, "{}: {share}", robot.source);
        }
        // without the filter the stand-in arm touches itself everywhere (the bug it fixes)
        let mut bare = panda(&none).unwrap();
        bare.disabled.clear();
        assert!(self_free_share(&bare, 50) < 0.05);
    }

    #[test]
    fn a_broken_urdf_falls_back_to_the_next_source() {
        let tmp = std::env::temp_dir().join(format!("ccd-broken-robot-{}", std::process::id()));
        let dir = tmp.join("robots/panda");
        std::fs::create_dir_all(dir.join("urdf")).unwrap();
        std::fs::create_dir_all(dir.join("srdf")).unwrap();
        std::fs::write(dir.join("urdf/panda.urdf"), "<robot name=\"broken\"><link").unwrap();
        let sources = RobotSources::new(Some(&tmp), None, false);
        let a = panda(&sources).unwrap();
        assert!(a.source.contains("stand-in"), "{}", a.source);
        std::fs::remove_dir_all(&tmp).unwrap();
    }
}

#[cfg(test)]
mod real_data {
    fn data() -> Option<std::path::PathBuf> {
        let d = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data");
        if d.is_dir() {
            Some(d)
        } else {
            println!("skipped: {} absent", d.display());
            None
        }
    }

    #[test]
    fn cmu_walk_maps_onto_the_mannequin() {
        use super::super::mannequin::{Clip, load_clip, mannequin};
        let Some(d) = data() else { return };
        let (clip, src) = load_clip(Some(&d), Clip::Walk).unwrap();
        assert!(src.contains("131_01"));
        let m = mannequin(&clip, src).unwrap();
        assert_eq!(m.frames.len(), 995);
        assert!(
            (18_000..24_000).contains(&m.triangles()),
            "{}",
            m.triangles()
        );
    }
}
