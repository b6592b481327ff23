//! The motions of the adaptive scenes (procedural stand-ins for an adaptive-dynamics
//! simulation): smooth oscillations of the active joints around a random configuration, the
//! roots pulled together or falling, and the scenes' set-ups by name.

use std::sync::Arc;

use anyhow::{Context, Result, bail};
use ccd_bvh::{BvhOptions, MeshBvh, Rss};
use ccd_ca_articulated::{AdaptiveStep, ArticulatedScene, BodyStep};
use ccd_kinematics::{ArticulatedModel, Joint, LinkId};

use super::rigs::{pendulum, tableware, wooden_man};
use crate::rng::SceneRng;

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
pub(super) fn motion(
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
pub(super) fn men_motions(model: &ArticulatedModel, m: usize, steps: usize) -> Vec<Motion> {
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
pub(super) fn pendulum_motion(model: &ArticulatedModel, m: usize, steps: usize) -> Motion {
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
pub(super) fn tail_motion(model: &ArticulatedModel, m: usize, steps: usize) -> Result<Motion> {
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
pub(super) fn falling_motion(model: &ArticulatedModel, m: usize, steps: usize) -> Motion {
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

/// A seeded order of a model's joints with the root first (`root_first`) or shuffled in.
pub(super) fn joint_order(n: usize, seed: u64, root_first: bool) -> Vec<usize> {
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
