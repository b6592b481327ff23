//! The robot scenes: the PR2 (URDF + SRDF from `data/robots/pr2`) in a procedural kitchen
//! of about 100K triangles, and the Panda (`data/robots/panda`) before a cluttered shelf;
//! random joint-space edges inside the joint limits; procedural arms standing in for the
//! robots when the data folder is absent.

use std::path::Path;

use anyhow::{Context, Result};
use ccd_geometry::TriMesh;
use ccd_kinematics::urdf::{UrdfOptions, UrdfRobot, read_srdf_disabled_pairs};
use ccd_kinematics::{ArticulatedModel, Joint, Limits, LinkId, LinkSpec};
use glam::{DAffine3, DQuat, DVec3};

use super::meshes::{MeshBuilder, limb};
use crate::rng::SceneRng;

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
    dir: &Path,
    package: &str,
    urdf: &str,
    srdf: &str,
    moving: &[&str],
    fixed: &[(&str, f64)],
) -> Result<Robot> {
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
        source: format!("{} + {}", path.display(), srdf),
    })
}

/// The PR2 with both 7-dof arms moving (torso lifted 0.1 m), or a procedural two-arm
/// stand-in when `data/robots/pr2` is absent.
pub(crate) fn pr2(data: Option<&Path>) -> Result<Robot> {
    if let Some(dir) = data.map(|d| d.join("robots/pr2")).filter(|d| d.is_dir()) {
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
        return load_urdf(
            &dir,
            "example-robot-data/robots/pr2_description",
            "pr2.urdf",
            "pr2.srdf",
            &refs,
            &[("torso_lift_joint", 0.1)],
        );
    }
    let mut specs = vec![LinkSpec {
        name: "torso".into(),
        parent: None,
        joint: Joint::Fixed,
        offset: DAffine3::IDENTITY,
    }];
    let mut meshes = vec![Some(torso_mesh()?)];
    for (side, y) in [("r", -0.19), ("l", 0.19)] {
        let (s, m) = arm_chain(
            side,
            "torso",
            DAffine3::from_translation(DVec3::new(0.0, y, 1.0)),
        )?;
        specs.extend(s);
        meshes.extend(m);
    }
    stand_in(specs, meshes, "procedural two-arm torso (PR2 data absent)")
}

/// The Panda with its 7 arm joints moving (fingers at 0.02), or a procedural 7-dof arm when
/// `data/robots/panda` is absent.
pub(crate) fn panda(data: Option<&Path>) -> Result<Robot> {
    if let Some(dir) = data.map(|d| d.join("robots/panda")).filter(|d| d.is_dir()) {
        let names: Vec<String> = (1..=7).map(|i| format!("panda_joint{i}")).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        return load_urdf(
            &dir,
            "example-robot-data/robots/panda_description",
            "panda.urdf",
            "panda.srdf",
            &refs,
            &[("panda_finger_joint1", 0.02), ("panda_finger_joint2", 0.02)],
        );
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
    )?;
    specs.extend(s);
    meshes.extend(m);
    stand_in(specs, meshes, "procedural 7-dof arm (Panda data absent)")
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
    Ok(Robot {
        model,
        meshes,
        disabled: Vec::new(),
        moving,
        rest,
        source: source.into(),
    })
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
) -> Result<(Vec<LinkSpec>, Vec<Option<TriMesh>>)> {
    let lim = |a: f64| {
        Some(Limits {
            lower: -a,
            upper: a,
        })
    };
    // (axis, limit, offset to the next joint along x, radius)
    let joints = [
        (DVec3::Z, 2.0, 0.0, 0.07),
        (DVec3::Y, 1.4, 0.1, 0.065),
        (DVec3::X, 2.8, 0.3, 0.055),
        (DVec3::Y, 2.0, 0.0, 0.05),
        (DVec3::X, 2.8, 0.3, 0.045),
        (DVec3::Y, 1.8, 0.0, 0.04),
        (DVec3::X, 2.8, 0.12, 0.035),
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
        let (p, a) = (pr2(None).unwrap(), panda(None).unwrap());
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
}

#[cfg(test)]
mod real_data {
    use super::*;

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
    fn pr2_and_panda_load_with_their_srdf_filters() {
        let Some(d) = data() else { return };
        let p = pr2(Some(&d)).unwrap();
        assert!(p.source.contains("pr2.urdf"));
        assert_eq!(p.moving.len(), 14);
        assert!(!p.disabled.is_empty());
        assert!(p.triangles() > 1000, "{}", p.triangles());
        let a = panda(Some(&d)).unwrap();
        assert_eq!(a.moving.len(), 7);
        assert!(!a.disabled.is_empty());
        let mut rng = SceneRng::new(2);
        for _ in 0..20 {
            assert!(a.model.pose_from_joints(&a.random_config(&mut rng)).is_ok());
            assert!(p.model.pose_from_joints(&p.random_config(&mut rng)).is_ok());
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
