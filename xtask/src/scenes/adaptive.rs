//! Adaptive articulated CCD scenes (issue 18; Kim, Redon, Kim, Sec. 4, Fig. 3–4): two
//! 29-body wooden men pulled together, a pendulum of 30 (and 100) balls self-colliding, and
//! a wooden man falling onto plates and pots. Each sweeps the number of active joints and
//! times the adaptive query ([`AdaptiveScene`]) against the full CATCH query
//! ([`ArticulatedScene::query_with`]) on the same motions, step by step.
//!
//! The motions stand in for an adaptive-dynamics simulation (procedural, seeded): the
//! active joints follow smooth oscillations around a random configuration, the others stay
//! at it; the men's roots (floating joints, always among the active joints) are pulled
//! together or fall. Every step is timed for both queries in turn; a run is repeated with
//! a fresh adaptive state and the per-step fastest time is kept (on a shared machine a
//! step preempted in some runs would otherwise count the wait). Both queries' first contacts
//! are compared (time bit for bit and pair).

use std::sync::Arc;

use anyhow::{Context, Result, bail};
use ccd_bvh::{BvhOptions, MeshBvh, Rss};
use ccd_ca_articulated::{
    AdaptiveScene, AdaptiveStep, ArticulatedBody, ArticulatedScene, ArticulatedWorkspace, BodyStep,
    QueryOptions, QueryResult,
};
use ccd_geometry::TriMesh;
use ccd_kinematics::{ArticulatedModel, Joint, LinkId, LinkSpec};
use glam::{DAffine3, DVec3};
use serde_json::json;

use super::catch::meshes::{MeshBuilder, limb};
use super::{SceneConfig, median};
use crate::report::{Plot, SceneReport, Series};
use crate::rng::SceneRng;

/// A plot series without a spread band.
fn series(name: &str, x: Vec<f64>, y: Vec<f64>) -> Series {
    Series {
        name: name.into(),
        x,
        y,
        band: None,
    }
}

/// `(name, parent, joint axis, offset from the parent's frame, limb end, r0, r1)`; the root
/// (index 0) is floating, every other joint revolute.
type Bone = (&'static str, usize, DVec3, DVec3, DVec3, f64, f64);

/// The wooden man's 29 bodies (z up, facing +x; metres), parents first. `s` = +1 for the
/// left side, −1 for the right.
fn bones() -> Vec<Bone> {
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
struct Rig {
    model: ArticulatedModel,
    meshes: Vec<TriMesh>,
}

impl Rig {
    fn triangles(&self) -> usize {
        self.meshes.iter().map(TriMesh::triangle_count).sum()
    }

    /// The body; with `ragdoll`, pairs of siblings and of links two joints apart are not
    /// tested (the usual character set-up: their meshes overlap around the joints).
    fn body(&self, ragdoll: bool) -> Result<ArticulatedBody> {
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
fn wooden_man() -> Result<Rig> {
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
fn pendulum(n: usize) -> Result<Rig> {
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
fn tableware(seed: u64) -> Result<TriMesh> {
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

/// One body's motion in a run: per step `(q0, q1)`, and the active joints.
pub(crate) struct Motion {
    pub(crate) steps: Vec<(Vec<f64>, Vec<f64>)>,
    pub(crate) active: Vec<LinkId>,
}

/// Step `k` of every body's motion for the adaptive query.
pub(crate) fn adaptive_steps(motions: &[Motion], k: usize) -> Vec<AdaptiveStep<'_>> {
    motions
        .iter()
        .map(|m| AdaptiveStep {
            q0: &m.steps[k].0,
            q1: &m.steps[k].1,
            active: &m.active,
        })
        .collect()
}

/// Step `k` of every body's motion for the full query.
pub(crate) fn full_steps(motions: &[Motion], k: usize) -> Vec<BodyStep<'_>> {
    motions
        .iter()
        .map(|m| BodyStep::Joints {
            q0: &m.steps[k].0,
            q1: &m.steps[k].1,
        })
        .collect()
}

/// Joint vectors of `steps` steps for `model`: the first `m` links of `order` are active
/// (oscillating around a random configuration of amplitude `base_amp`), the others stay;
/// the root (when floating) follows `root(k)`, as `[x, y, z, rx, ry, rz]`.
#[allow(clippy::too_many_arguments)]
fn motion(
    model: &ArticulatedModel,
    order: &[usize],
    m: usize,
    steps: usize,
    base_amp: f64,
    amp: f64,
    seed: u64,
    root: &dyn Fn(f64) -> [f64; 6],
) -> Motion {
    let mut rng = SceneRng::new(seed);
    let n = model.dof();
    let base: Vec<f64> = (0..n).map(|_| rng.uniform(-base_amp, base_amp)).collect();
    let wave: Vec<(f64, f64)> = (0..n)
        .map(|_| {
            (
                rng.uniform(0.5, 1.5),
                rng.uniform(0.0, std::f64::consts::TAU),
            )
        })
        .collect();
    let active: Vec<LinkId> = order[..m].iter().map(|&i| LinkId(i as u32)).collect();
    let floating = matches!(
        model.links().first().map(|l| l.joint),
        Some(Joint::Floating)
    );
    let root_active = order[..m].contains(&0);
    let q = |k: usize| -> Vec<f64> {
        let t = k as f64 / steps as f64;
        let mut q = base.clone();
        if floating {
            // an inactive root stays where the motion starts
            q[..6].copy_from_slice(&root(if root_active { t } else { 0.0 }));
        }
        for l in &active {
            let link = &model.links()[l.index()];
            if matches!(link.joint, Joint::Floating) {
                continue;
            }
            for j in link.first_dof..link.first_dof + link.joint.dof() {
                let (f, phase) = wave[j];
                q[j] = base[j] + amp * (std::f64::consts::TAU * f * t + phase).sin();
            }
        }
        q
    };
    Motion {
        steps: (0..steps).map(|k| (q(k), q(k + 1))).collect(),
        active,
    }
}

/// The adaptive scenes' set-ups, by name, for [`setup`].
pub(crate) const SETUPS: &[&str] = &[
    "wooden-men",
    "pendulum-30",
    "pendulum-100",
    "pendulum-100-tail",
    "falling-man",
];

/// One scene of the sweeps with `m` active joints over `steps` steps: the scene, each
/// body's motion, and the number of links per body.
pub(crate) struct Setup {
    pub(crate) scene: ArticulatedScene,
    pub(crate) motions: Vec<Motion>,
    pub(crate) links: usize,
}

/// The set-up `name` (one of [`SETUPS`]) with `m` active joints over `steps` steps.
pub(crate) fn setup(name: &str, m: usize, steps: usize) -> Result<Setup> {
    match name {
        "wooden-men" => {
            let rig = wooden_man()?;
            let body = Arc::new(rig.body(true)?);
            let mut scene = ArticulatedScene::new();
            scene.add_articulated(Arc::clone(&body));
            scene.add_articulated(body);
            let n = rig.model.len();
            Ok(Setup {
                scene,
                motions: men_motions(&rig.model, m, steps),
                links: n,
            })
        }
        "pendulum-30" | "pendulum-100" | "pendulum-100-tail" => {
            let n = if name == "pendulum-30" { 30 } else { 100 };
            let rig = pendulum(n)?;
            let mut scene = ArticulatedScene::new();
            scene.add_articulated(rig.body(false)?);
            let motion = if name == "pendulum-100-tail" {
                tail_motion(&rig.model, m, steps)?
            } else {
                pendulum_motion(&rig.model, m, steps)
            };
            Ok(Setup {
                scene,
                motions: vec![motion],
                links: n,
            })
        }
        "falling-man" => {
            let rig = wooden_man()?;
            let mut scene = ArticulatedScene::new();
            scene.add_articulated(rig.body(true)?);
            scene.set_environment(Arc::new(MeshBvh::<Rss>::new(
                tableware(7)?,
                &BvhOptions::default(),
            )?));
            Ok(Setup {
                scene,
                motions: vec![falling_motion(&rig.model, m, steps)],
                links: rig.model.len(),
            })
        }
        _ => bail!("unknown adaptive scene {name} (one of {SETUPS:?})"),
    }
}

/// The two wooden men's motions: the spring pulls the roots together.
fn men_motions(model: &ArticulatedModel, m: usize, steps: usize) -> Vec<Motion> {
    let n = model.len();
    (0..2u64)
        .map(|who| {
            let sign = if who == 0 { -1.0 } else { 1.0 };
            // the spring pulls the roots from 0.9 m to 0.3 m off the middle
            let root = move |t: f64| {
                let x = sign * (0.9 - 0.6 * t);
                let yaw = if who == 0 { 0.0 } else { std::f64::consts::PI };
                [x, 0.05 * sign, 0.95, 0.1 * t, 0.05 * t, yaw + 0.2 * t]
            };
            motion(
                model,
                &joint_order(n, 11 + who, true),
                m,
                steps,
                0.3,
                0.5,
                101 + who,
                &root,
            )
        })
        .collect()
}

/// The pendulum's motion: the active joints oscillate around a random bend.
fn pendulum_motion(model: &ArticulatedModel, m: usize, steps: usize) -> Motion {
    motion(
        model,
        &joint_order(model.len(), 21, false),
        m,
        steps,
        0.2,
        0.5,
        202,
        &|_| [0.0; 6],
    )
}

/// The 30-ball pendulum's motion (`m` active joints) at the tail of a chain of `n` balls:
/// the top `n - 30` joints hold the chain straight and still, the last 30 move as the
/// 30-ball pendulum's joints (the same bend, waves and active joints, shifted by `n - 30`).
/// The moving part and its contacts are the 30-ball pendulum's; only the link count grows.
fn tail_motion(model: &ArticulatedModel, m: usize, steps: usize) -> Result<Motion> {
    let short = pendulum(30)?;
    let extra = model
        .len()
        .checked_sub(short.model.len())
        .context("the tail pendulum needs at least 30 balls")?;
    let inner = pendulum_motion(&short.model, m, steps);
    let widen = |q: &Vec<f64>| {
        let mut v = vec![0.0; extra];
        v.extend_from_slice(q);
        v
    };
    Ok(Motion {
        steps: inner
            .steps
            .iter()
            .map(|(q0, q1)| (widen(q0), widen(q1)))
            .collect(),
        active: inner
            .active
            .iter()
            .map(|l| LinkId(l.0 + extra as u32))
            .collect(),
    })
}

/// The falling man's motion: falls from 2.2 m to where the feet reach the tableware,
/// tumbling slowly.
fn falling_motion(model: &ArticulatedModel, m: usize, steps: usize) -> Motion {
    let root = |t: f64| {
        let z = 2.2 - 1.3 * t * t;
        [0.1 * t, -0.05 * t, z, 0.3 * t, 0.2 * t, 0.1]
    };
    motion(
        model,
        &joint_order(model.len(), 31, true),
        m,
        steps,
        0.3,
        0.5,
        303,
        &root,
    )
}

/// Per-step times (fastest of the runs) of one sweep point.
pub(crate) struct Timing {
    pub(crate) full_ms: Vec<f64>,
    pub(crate) adaptive_ms: Vec<f64>,
    pub(crate) contacts: usize,
    pub(crate) disagreements: usize,
}

fn fastest(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::INFINITY, f64::min)
}

pub(crate) use crate::clock::thread_cpu_ms;

/// Runs the motions `reps` times (a fresh adaptive state each time; step 0 warms both
/// queries up and is not timed), timing each step of both queries (thread CPU time).
pub(crate) fn time_runs(
    scene: &ArticulatedScene,
    motions: &[Motion],
    reps: usize,
) -> Result<Timing> {
    // whole steps, as the adaptive query answers them (it never splits long steps)
    let opts = QueryOptions::default().with_segment_turn(f64::INFINITY);
    let steps = motions[0].steps.len();
    let mut full = vec![Vec::new(); steps];
    let mut ours = vec![Vec::new(); steps];
    let (mut contacts, mut disagreements) = (0, 0);
    let (mut ws_full, mut ws_ours) = (
        ArticulatedWorkspace::default(),
        ArticulatedWorkspace::default(),
    );
    let (mut out_full, mut out_ours) = (QueryResult::default(), QueryResult::default());
    for rep in 0..reps {
        let mut adaptive = AdaptiveScene::new(scene.clone());
        for k in 0..steps {
            let full_step = full_steps(motions, k);
            let our_steps = adaptive_steps(motions, k);
            let t0 = thread_cpu_ms();
            scene.query_with(&full_step, &opts, &mut ws_full, &mut out_full)?;
            let t1 = thread_cpu_ms();
            adaptive.query_with(&our_steps, &opts, &mut ws_ours, &mut out_ours)?;
            let t2 = thread_cpu_ms();
            if k == 0 {
                continue;
            }
            full[k].push(t1 - t0);
            ours[k].push(t2 - t1);
            if rep == 0 {
                let key = |r: &QueryResult| r.first().map(|c| (c.a, c.b, c.contact.toc.to_bits()));
                contacts += usize::from(out_full.first().is_some());
                disagreements += usize::from(key(&out_full) != key(&out_ours));
            }
        }
    }
    Ok(Timing {
        full_ms: full[1..].iter().map(|v| fastest(v)).collect(),
        adaptive_ms: ours[1..].iter().map(|v| fastest(v)).collect(),
        contacts,
        disagreements,
    })
}

/// One row of a sweep.
#[derive(Clone)]
struct Point {
    label: String,
    links: usize,
    active: usize,
    full: f64,
    adaptive: f64,
    worst: f64,
    /// The median over the steps of the per-step ratio adaptive / full.
    median: f64,
    contacts: usize,
    steps: usize,
    disagreements: usize,
}

fn point(label: &str, links: usize, active: usize, t: &Timing) -> Point {
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    Point {
        label: label.into(),
        links,
        active,
        full: mean(&t.full_ms),
        adaptive: mean(&t.adaptive_ms),
        worst: t
            .adaptive_ms
            .iter()
            .zip(&t.full_ms)
            .map(|(a, f)| a / f)
            .fold(0.0, f64::max),
        median: median(
            &mut t
                .adaptive_ms
                .iter()
                .zip(&t.full_ms)
                .map(|(a, f)| a / f)
                .collect::<Vec<_>>(),
        ),
        contacts: t.contacts,
        steps: t.full_ms.len(),
        disagreements: t.disagreements,
    }
}

fn columns() -> Vec<String> {
    [
        "run",
        "links",
        "active joints",
        "full ms/step",
        "adaptive ms/step",
        "adaptive/full",
        "median step ratio",
        "worst step ratio",
        "steps with contact",
        "disagreements",
    ]
    .map(String::from)
    .to_vec()
}

fn rows(points: &[Point]) -> Vec<Vec<String>> {
    points
        .iter()
        .map(|p| {
            vec![
                p.label.clone(),
                p.links.to_string(),
                p.active.to_string(),
                format!("{:.3}", p.full),
                format!("{:.3}", p.adaptive),
                format!("{:.2}", p.adaptive / p.full),
                format!("{:.2}", p.median),
                format!("{:.2}", p.worst),
                format!("{}/{}", p.contacts, p.steps),
                p.disagreements.to_string(),
            ]
        })
        .collect()
}

fn plot_of(file: &str, title: &str, groups: &[(&str, &[Point])]) -> Plot {
    let mut s = Vec::new();
    for (label, pts) in groups {
        let x: Vec<f64> = pts.iter().map(|p| p.active as f64).collect();
        s.push(series(
            &format!("adaptive{label}"),
            x.clone(),
            pts.iter().map(|p| p.adaptive).collect(),
        ));
        s.push(series(
            &format!("full CATCH{label}"),
            x,
            pts.iter().map(|p| p.full).collect(),
        ));
    }
    Plot {
        file: file.into(),
        title: title.into(),
        x_label: "active joints".into(),
        y_label: "CCD ms per step".into(),
        log_y: false,
        targets: Vec::new(),
        categories: Vec::new(),
        series: s,
    }
}

/// Sweep settings: active-joint counts, steps per run, repeats.
struct Sweep {
    counts: Vec<usize>,
    steps: usize,
    reps: usize,
}

fn sweep(cfg: &SceneConfig, all: usize, quick: &[usize], full: &[usize]) -> Sweep {
    let pick = if cfg.quick { quick } else { full };
    let mut counts: Vec<usize> = pick.iter().copied().filter(|&m| m <= all).collect();
    // every joint active: kept out of quick runs of long chains (seconds per step)
    if !counts.contains(&all) && (!cfg.quick || all <= 30) {
        counts.push(all);
    }
    Sweep {
        counts,
        steps: if cfg.quick { 5 } else { 21 },
        reps: if cfg.quick { 3 } else { 5 },
    }
}

/// A seeded order of a model's joints with the root first (`root_first`) or shuffled in.
fn joint_order(n: usize, seed: u64, root_first: bool) -> Vec<usize> {
    let mut rng = SceneRng::new(seed);
    let mut v: Vec<usize> = (usize::from(root_first)..n).collect();
    for i in (1..v.len()).rev() {
        let j = (rng.uniform(0.0, (i + 1) as f64) as usize).min(i);
        v.swap(i, j);
    }
    if root_first {
        v.insert(0, 0);
    }
    v
}

fn summary_of(points: &[Point]) -> serde_json::Value {
    json!(
        points
            .iter()
            .map(|p| json!({
                "run": p.label, "links": p.links, "active": p.active,
                "full_ms": p.full, "adaptive_ms": p.adaptive,
                "ratio": p.adaptive / p.full, "median_step_ratio": p.median, "worst_step_ratio": p.worst,
                "contacts": p.contacts, "steps": p.steps, "disagreements": p.disagreements,
            }))
            .collect::<Vec<_>>()
    )
}

fn worst_and_disagreements(points: &[Point]) -> (f64, usize) {
    (
        points.iter().map(|p| p.worst).fold(0.0, f64::max),
        points.iter().map(|p| p.disagreements).sum(),
    )
}

/// `wooden-men`: two wooden men pulled together by a spring from random configurations.
pub(crate) fn wooden_men(cfg: &SceneConfig, bar: &indicatif::ProgressBar) -> Result<SceneReport> {
    let rig = wooden_man()?;
    let body = Arc::new(rig.body(true)?);
    let mut scene = ArticulatedScene::new();
    scene.add_articulated(Arc::clone(&body));
    scene.add_articulated(body);
    let n = rig.model.len();
    let sw = sweep(cfg, n, &[1, 3, 15], &[1, 2, 3, 5, 8, 11, 15, 20, 25]);
    bar.set_length(sw.counts.len() as u64);
    let mut points = Vec::new();
    for &m in &sw.counts {
        let motions = men_motions(&rig.model, m, sw.steps);
        let t = time_runs(&scene, &motions, sw.reps)?;
        points.push(point("2 men", 2 * n, m, &t));
        bar.inc(1);
    }
    let (worst, dis) = worst_and_disagreements(&points);
    let at3 = points.iter().find(|p| p.active == 3);
    let headline = format!(
        "3 of {n} joints active: adaptive {} of the full query per step (mean over the steps; target ≤ 0.25: {}; median step {}); worst step adaptive/full {worst:.2} (target ≤ 1.10: {}); {dis} answer disagreements",
        at3.map_or("—".into(), |p| format!("{:.2}", p.adaptive / p.full)),
        if at3.is_some_and(|p| p.adaptive / p.full <= 0.25) {
            "met"
        } else {
            "NOT met"
        },
        at3.map_or("—".into(), |p| format!("{:.2}", p.median)),
        if worst <= 1.10 { "met" } else { "NOT met" },
    );
    if dis > 0 {
        bail!("wooden-men: {dis} steps where the adaptive and full answers differ");
    }
    Ok(SceneReport {
        name: "wooden-men".into(),
        paper: "Adaptive CCD Sec. 4, Fig. 3 left, Fig. 4".into(),
        description: format!(
            "two {n}-body wooden men ({} triangles each, floating root + revolute joints) pulled together from random configurations; the first m joints of a seeded order are active (roots first), the rest stay; {} steps per run, per-step fastest of {} runs (shared machine)",
            rig.triangles(),
            sw.steps - 1,
            sw.reps
        ),
        columns: columns(),
        rows: rows(&points),
        headline,
        summary: summary_of(&points),
        plots: vec![plot_of(
            "wooden-men.svg",
            "Wooden men: CCD time per step vs active joints",
            &[("", &points)],
        )],
    })
}

/// One run of the pendulum sweep.
struct PendulumRun {
    balls: usize,
    label: &'static str,
    /// The 30-ball motion at the tail ([`tail_motion`]) instead of [`pendulum_motion`].
    tail: bool,
    /// Active-joint counts of quick and full runs.
    quick: &'static [usize],
    full: &'static [usize],
}

impl PendulumRun {
    /// The joints that can be active (the tail run moves only the last 30).
    fn joints(&self) -> usize {
        if self.tail { 30 } else { self.balls }
    }
}

/// `pendulum`: chains of 30 and 100 balls swinging, self-collision between balls.
pub(crate) fn pendulum_scene(
    cfg: &SceneConfig,
    bar: &indicatif::ProgressBar,
) -> Result<SceneReport> {
    let mut groups: Vec<(String, Vec<Point>)> = Vec::new();
    let mut tris = Vec::new();
    let plans = [
        PendulumRun {
            balls: 30,
            label: "30 balls",
            tail: false,
            quick: &[1, 3],
            full: &[1, 2, 3, 5, 8, 12, 16, 20, 25],
        },
        PendulumRun {
            balls: 100,
            label: "100 balls",
            tail: false,
            quick: &[1, 3],
            full: &[1, 3, 5, 10, 20, 30, 50, 75],
        },
        PendulumRun {
            balls: 100,
            label: "100 balls, 30-ball motion at the tail",
            tail: true,
            quick: &[1, 3],
            full: &[1, 2, 3, 5, 8, 12, 16, 20, 25, 30],
        },
    ];
    let total: usize = plans
        .iter()
        .map(|r| sweep(cfg, r.joints(), r.quick, r.full).counts.len())
        .sum();
    bar.set_length(total as u64);
    for run in &plans {
        let (n, label) = (run.balls, run.label);
        let rig = pendulum(n)?;
        if !run.tail {
            tris.push(rig.triangles());
        }
        let mut scene = ArticulatedScene::new();
        scene.add_articulated(rig.body(false)?);
        let sw = sweep(cfg, run.joints(), run.quick, run.full);
        let mut points = Vec::new();
        for &m in &sw.counts {
            let motions = vec![if run.tail {
                tail_motion(&rig.model, m, sw.steps)?
            } else {
                pendulum_motion(&rig.model, m, sw.steps)
            }];
            let t = time_runs(&scene, &motions, sw.reps)?;
            points.push(point(label, n, m, &t));
            bar.inc(1);
        }
        groups.push((format!(" ({label})"), points));
    }
    let all: Vec<&Point> = groups.iter().flat_map(|(_, p)| p).collect();
    let worst = all.iter().map(|p| p.worst).fold(0.0, f64::max);
    let dis: usize = all.iter().map(|p| p.disagreements).sum();
    if dis > 0 {
        bail!("pendulum: {dis} steps where the adaptive and full answers differ");
    }
    let at = |label: &str, m: usize| {
        all.iter()
            .find(|p| p.label == label && p.active == m)
            .map_or("—".into(), |p| format!("{:.3}", p.adaptive))
    };
    let headline = format!(
        "3 active joints: adaptive {} ms/step with 30 balls, {} with 100 balls moving like the 30 at the tail, {} with 100 (other motion); worst step adaptive/full {worst:.2} (target ≤ 1.10: {}); {dis} disagreements",
        at("30 balls", 3),
        at("100 balls, 30-ball motion at the tail", 3),
        at("100 balls", 3),
        if worst <= 1.10 { "met" } else { "NOT met" }
    );
    let plot_groups: Vec<(&str, &[Point])> = groups
        .iter()
        .map(|(l, p)| (l.as_str(), p.as_slice()))
        .collect();
    let points: Vec<Point> = all.iter().map(|&p| p.clone()).collect();
    let sw = sweep(cfg, 30, &[1], &[1]);
    Ok(SceneReport {
        name: "pendulum".into(),
        paper: "Adaptive CCD Sec. 4, Fig. 3 centre, Fig. 4".into(),
        description: format!(
            "a chain of 30 balls ({} triangles) and of 100 balls ({} triangles) swinging from a pivot, self-collision between balls; the first m joints of a seeded order oscillate, the rest hold a random bend; third run: 100 balls whose top 70 hang straight and still while the last 30 move exactly as the 30-ball chain (same bend, waves and active joints: the same moving part, 3.3x the links); {} steps per run, per-step fastest of {} runs (shared machine)",
            tris[0],
            tris[1],
            sw.steps - 1,
            sw.reps
        ),
        columns: columns(),
        rows: rows(&points),
        headline,
        summary: summary_of(&points),
        // log scale: 0.02–160 ms across the runs
        plots: vec![Plot {
            log_y: true,
            targets: Vec::new(),
            categories: Vec::new(),
            ..plot_of(
                "pendulum.svg",
                "Pendulum: CCD time per step vs active joints",
                &plot_groups,
            )
        }],
    })
}

/// `falling-man`: a wooden man falling onto plates and pots.
pub(crate) fn falling_man(cfg: &SceneConfig, bar: &indicatif::ProgressBar) -> Result<SceneReport> {
    let rig = wooden_man()?;
    let env = tableware(7)?;
    let env_tris = env.triangle_count();
    let mut scene = ArticulatedScene::new();
    scene.add_articulated(rig.body(true)?);
    scene.set_environment(Arc::new(MeshBvh::<Rss>::new(env, &BvhOptions::default())?));
    let n = rig.model.len();
    let sw = sweep(cfg, n, &[1, 3, 15], &[1, 2, 3, 5, 8, 11, 15, 20, 25]);
    bar.set_length(sw.counts.len() as u64);
    let mut points = Vec::new();
    for &m in &sw.counts {
        let motions = vec![falling_motion(&rig.model, m, sw.steps)];
        let t = time_runs(&scene, &motions, sw.reps)?;
        points.push(point("1 man", n, m, &t));
        bar.inc(1);
    }
    let (worst, dis) = worst_and_disagreements(&points);
    if dis > 0 {
        bail!("falling-man: {dis} steps where the adaptive and full answers differ");
    }
    let at3 = points.iter().find(|p| p.active == 3);
    let headline = format!(
        "3 of {n} joints active: adaptive {} of the full query per step; worst step adaptive/full {worst:.2} (target ≤ 1.10: {})",
        at3.map_or("—".into(), |p| format!("{:.2}", p.adaptive / p.full)),
        if worst <= 1.10 { "met" } else { "NOT met" }
    );
    Ok(SceneReport {
        name: "falling-man".into(),
        paper: "Adaptive CCD Sec. 4, Fig. 3 right, Fig. 4".into(),
        description: format!(
            "a {n}-body wooden man ({} triangles) falling and tumbling onto plates and pots ({env_tris} triangles); the first m joints of a seeded order are active (root first); {} steps per run, per-step fastest of {} runs (shared machine)",
            rig.triangles(),
            sw.steps - 1,
            sw.reps
        ),
        columns: columns(),
        rows: rows(&points),
        headline,
        summary: summary_of(&points),
        plots: vec![plot_of(
            "falling-man.svg",
            "Falling man: CCD time per step vs active joints",
            &[("", &points)],
        )],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
