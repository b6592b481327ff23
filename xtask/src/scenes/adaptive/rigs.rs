//! The rigs of the adaptive scenes: the 29-body wooden man, the pendulum of balls and the
//! tableware the falling man lands on, each a kinematic model with one mesh per link.

use anyhow::Result;
use ccd_ca_articulated::ArticulatedBody;
use ccd_geometry::TriMesh;
use ccd_kinematics::{ArticulatedModel, Joint, LinkId, LinkSpec};
use glam::{DAffine3, DVec3};

use crate::rng::SceneRng;
use crate::scenes::catch::meshes::{MeshBuilder, limb};

/// `(name, parent, joint axis, offset from the parent's frame, limb end, r0, r1)`; the root
/// (index 0) is floating, every other joint revolute.
pub(super) type Bone = (&'static str, usize, DVec3, DVec3, DVec3, f64, f64);

/// The wooden man's 29 bodies (z up, facing +x; metres), parents first. `s` = +1 for the
/// left side, −1 for the right.
pub(super) fn bones() -> Vec<Bone> {
    let mut b: Vec<Bone> = vec![
        (
            "pelvis",
            0,
            DVec3::Z,
            DVec3::ZERO,
            DVec3::new(0.0, 0.0, 0.14),
            0.12,
            0.11,
        ),
        (
            "spine1",
            0,
            DVec3::Y,
            DVec3::new(0.0, 0.0, 0.15),
            DVec3::new(0.0, 0.0, 0.11),
            0.1,
            0.1,
        ),
        (
            "spine2",
            1,
            DVec3::X,
            DVec3::new(0.0, 0.0, 0.12),
            DVec3::new(0.0, 0.0, 0.11),
            0.1,
            0.11,
        ),
        (
            "spine3",
            2,
            DVec3::Z,
            DVec3::new(0.0, 0.0, 0.12),
            DVec3::new(0.0, 0.0, 0.11),
            0.11,
            0.12,
        ),
        (
            "chest",
            3,
            DVec3::Y,
            DVec3::new(0.0, 0.0, 0.12),
            DVec3::new(0.0, 0.0, 0.17),
            0.13,
            0.12,
        ),
        (
            "neck",
            4,
            DVec3::X,
            DVec3::new(0.0, 0.0, 0.21),
            DVec3::new(0.0, 0.0, 0.07),
            0.04,
            0.04,
        ),
        (
            "head",
            5,
            DVec3::Y,
            DVec3::new(0.0, 0.0, 0.09),
            DVec3::new(0.0, 0.0, 0.19),
            0.08,
            0.07,
        ),
    ];
    for (side, s) in [("l", 1.0), ("r", -1.0)] {
        let base = b.len();
        let name =
            |part: &str| -> &'static str { Box::leak(format!("{side}_{part}").into_boxed_str()) };
        b.extend_from_slice(&[
            (
                name("clavicle"),
                4,
                DVec3::X,
                DVec3::new(0.0, s * 0.05, 0.16),
                DVec3::new(0.0, s * 0.13, 0.0),
                0.035,
                0.035,
            ),
            (
                name("upper_arm"),
                base,
                DVec3::X,
                DVec3::new(0.0, s * 0.16, 0.0),
                DVec3::new(0.0, s * 0.27, 0.0),
                0.05,
                0.04,
            ),
            (
                name("forearm"),
                base + 1,
                DVec3::Z,
                DVec3::new(0.0, s * 0.29, 0.0),
                DVec3::new(0.0, s * 0.24, 0.0),
                0.04,
                0.032,
            ),
            (
                name("hand"),
                base + 2,
                DVec3::X,
                DVec3::new(0.0, s * 0.26, 0.0),
                DVec3::new(0.0, s * 0.07, 0.0),
                0.03,
                0.03,
            ),
            (
                name("thumb"),
                base + 3,
                DVec3::Z,
                DVec3::new(0.03, s * 0.02, 0.0),
                DVec3::new(0.035, s * 0.035, 0.0),
                0.012,
                0.01,
            ),
            (
                name("finger1"),
                base + 3,
                DVec3::X,
                DVec3::new(0.012, s * 0.085, 0.0),
                DVec3::new(0.0, s * 0.06, 0.0),
                0.011,
                0.009,
            ),
            (
                name("finger2"),
                base + 3,
                DVec3::X,
                DVec3::new(-0.014, s * 0.085, 0.0),
                DVec3::new(0.0, s * 0.055, 0.0),
                0.011,
                0.009,
            ),
        ]);
    }
    for (side, s) in [("l", 1.0), ("r", -1.0)] {
        let base = b.len();
        let name =
            |part: &str| -> &'static str { Box::leak(format!("{side}_{part}").into_boxed_str()) };
        b.extend_from_slice(&[
            (
                name("thigh"),
                0,
                DVec3::Y,
                DVec3::new(0.0, s * 0.09, -0.02),
                DVec3::new(0.0, 0.0, -0.41),
                0.07,
                0.05,
            ),
            (
                name("shin"),
                base,
                DVec3::Y,
                DVec3::new(0.0, 0.0, -0.43),
                DVec3::new(0.0, 0.0, -0.38),
                0.05,
                0.035,
            ),
            (
                name("foot"),
                base + 1,
                DVec3::Y,
                DVec3::new(0.0, 0.0, -0.4),
                DVec3::new(0.14, 0.0, -0.03),
                0.035,
                0.03,
            ),
            (
                name("toe"),
                base + 2,
                DVec3::Y,
                DVec3::new(0.15, 0.0, -0.035),
                DVec3::new(0.05, 0.0, 0.0),
                0.025,
                0.02,
            ),
        ]);
    }
    b
}

/// A kinematic model and one mesh per link.
pub(super) struct Rig {
    pub(super) model: ArticulatedModel,
    pub(super) meshes: Vec<TriMesh>,
}

impl Rig {
    pub(super) fn triangles(&self) -> usize {
        self.meshes.iter().map(TriMesh::triangle_count).sum()
    }

    /// The body; with `ragdoll`, pairs of siblings and of links two joints apart are not
    /// tested (the usual character set-up: their meshes overlap around the joints).
    pub(super) fn body(&self, ragdoll: bool) -> Result<ArticulatedBody> {
        let mut body = ArticulatedBody::from_meshes(
            self.model.clone(),
            self.meshes.iter().cloned().map(Some).collect(),
        )?;
        if ragdoll {
            let links = self.model.links();
            let parent = |i: usize| links[i].parent.map(|p| p.index());
            for i in 0..links.len() {
                for j in 0..i {
                    let siblings = parent(i).is_some() && parent(i) == parent(j);
                    let two_apart = parent(i).and_then(parent) == Some(j)
                        || parent(j).and_then(parent) == Some(i);
                    if siblings || two_apart {
                        body.disable_pair(LinkId(i as u32), LinkId(j as u32))?;
                    }
                }
            }
        }
        Ok(body)
    }
}

/// The 29-body wooden man, about 16K triangles.
pub(super) fn wooden_man() -> Result<Rig> {
    let bones = bones();
    let mut specs = Vec::new();
    let mut meshes = Vec::new();
    for (i, &(name, parent, axis, offset, end, r0, r1)) in bones.iter().enumerate() {
        specs.push(LinkSpec {
            name: name.into(),
            parent: (i > 0).then(|| bones[parent].0.to_string()),
            joint: if i == 0 {
                Joint::Floating
            } else {
                Joint::Revolute { axis, limits: None }
            },
            offset: DAffine3::from_translation(offset),
        });
        let mut b = MeshBuilder::new();
        limb(&mut b, end, r0, r1, 14, 20);
        meshes.push(Some(b.build()?));
    }
    // the model numbers its links breadth-first: each link gets its own bone's mesh
    let model = ArticulatedModel::new(specs)?;
    let meshes = model
        .links()
        .iter()
        .map(|l| {
            let i = bones.iter().position(|b| b.0 == l.name);
            i.and_then(|i| meshes[i].take())
                .ok_or_else(|| anyhow::anyhow!("no mesh for link {}", l.name))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Rig { model, meshes })
}

/// A chain of `n` balls (radius 0.1, centres 0.24 apart) hanging from a pivot, joints
/// alternating about y and x; about 560 triangles per ball.
pub(super) fn pendulum(n: usize) -> Result<Rig> {
    let (r, d) = (0.1, 0.24);
    let mut specs = Vec::new();
    let mut meshes = Vec::new();
    for i in 0..n {
        specs.push(LinkSpec {
            name: format!("ball{i}"),
            parent: (i > 0).then(|| format!("ball{}", i - 1)),
            joint: Joint::Revolute {
                axis: if i % 2 == 0 { DVec3::Y } else { DVec3::X },
                limits: None,
            },
            offset: DAffine3::from_translation(if i > 0 {
                DVec3::new(0.0, 0.0, -d)
            } else {
                DVec3::ZERO
            }),
        });
        let rings = 15;
        let profile: Vec<(f64, f64)> = (1..rings)
            .map(|k| {
                let a = std::f64::consts::PI * f64::from(k) / f64::from(rings);
                (-d - r * a.cos(), r * a.sin())
            })
            .collect();
        let mut b = MeshBuilder::new();
        b.revolve(DAffine3::IDENTITY, &profile, 20, 0, 0.0);
        meshes.push(b.build()?);
    }
    Ok(Rig {
        model: ArticulatedModel::new(specs)?,
        meshes,
    })
}

/// Plates and pots around the origin on a floor slab, about 44K triangles.
pub(super) fn tableware(seed: u64) -> Result<TriMesh> {
    let mut rng = SceneRng::new(seed);
    let mut b = MeshBuilder::new();
    b.cuboid(
        DAffine3::from_translation(DVec3::new(0.0, 0.0, -0.05)),
        DVec3::new(2.0, 2.0, 0.05),
        20,
    );
    for k in 0..24 {
        let at = DVec3::new(rng.uniform(-0.8, 0.8), rng.uniform(-0.8, 0.8), 0.0);
        if k % 2 == 0 {
            // a pot: a bulging surface of revolution with fluting
            let (h, rad) = (rng.uniform(0.15, 0.35), rng.uniform(0.08, 0.16));
            let profile: Vec<(f64, f64)> = (0..20)
                .map(|i| {
                    let u = f64::from(i) / 19.0;
                    (u * h, rad * (0.7 + 0.5 * (std::f64::consts::PI * u).sin()))
                })
                .collect();
            b.revolve(DAffine3::from_translation(at), &profile, 56, 8, 0.04);
        } else {
            // a plate: a shallow dish
            let rad = rng.uniform(0.1, 0.2);
            let profile: Vec<(f64, f64)> = (0..8)
                .map(|i| {
                    let u = f64::from(i) / 7.0;
                    (0.02 * u * u, rad * (0.35 + 0.65 * u))
                })
                .collect();
            b.revolve(DAffine3::from_translation(at), &profile, 64, 0, 0.0);
        }
    }
    b.build()
}
