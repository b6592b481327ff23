//! Scene `heart-organs` (LA Table II, "Human Organs"; Fig. 7b): a heart-shaped deformable
//! robot is taken out from between two lungs along a planned path, past a liver and a spine,
//! all of them deforming.
//!
//! Procedural and seeded (no third-party data). The heart is an icosphere mapped to a heart
//! shape (apex tapered, a cleft between the atria) that beats and is squeezed sideways
//! while it sits between the lungs; its pose follows a path of waypoints down between the
//! lungs, forward just above the liver, and up out of the chest. The obstacles are one
//! mesh: two lung ellipsoids that breathe (their inner sides swell towards the heart), a
//! flattened liver below that moves with the diaphragm, and a column of twelve vertebrae
//! (cylinders) behind that sways a little. The lungs press on the heart at the start of
//! the path and the liver rises against it with the diaphragm (steps that collide); the
//! rest of the path passes close to them without contact.

use std::f64::consts::TAU;

use glam::{DMat3, DVec3};

use crate::report::SceneReport;
use crate::rng::SceneRng;
use crate::scenes::SceneConfig;
use crate::scenes::la_common::{Animation, cylinder, icosphere, smoothstep};
use crate::scenes::la_run::{PlanPaperRow, PlanSpec, run_plan};

/// Resolution of one run: icosphere levels of heart, lungs and liver, vertebra sides.
#[derive(Clone, Copy)]
struct Resolution {
    heart: u32,
    lung: u32,
    liver: u32,
    vertebra: usize,
}

const FULL: Resolution = Resolution {
    heart: 4,
    lung: 4,
    liver: 3,
    vertebra: 16,
};
const QUICK: Resolution = Resolution {
    heart: 3,
    lung: 3,
    liver: 2,
    vertebra: 8,
};

/// Lung centres (x = ±LUNG_X) and semi-axes.
const LUNG_X: f64 = 1.62;
const LUNG_AXES: DVec3 = DVec3::new(1.1, 2.2, 1.3);
/// Liver centre and semi-axes.
const LIVER_C: DVec3 = DVec3::new(0.6, -2.3, 0.4);
const LIVER_AXES: DVec3 = DVec3::new(1.8, 0.55, 1.3);
/// Vertebrae: count, radius, height, spacing, and the column's `z`.
const VERTEBRAE: usize = 12;
const VERT_R: f64 = 0.35;
const VERT_H: f64 = 0.3;
const VERT_STEP: f64 = 0.5;
const SPINE_Z: f64 = -1.9;

/// The planned path of the heart's centre.
const PATH: [DVec3; 6] = [
    DVec3::new(0.0, 0.0, 0.0),
    DVec3::new(0.0, -0.7, 0.2),
    DVec3::new(0.2, -0.95, 0.9),
    DVec3::new(0.6, -0.95, 1.6),
    DVec3::new(0.8, -0.3, 2.6),
    DVec3::new(0.8, 0.8, 3.6),
];

/// The heart path: mesh 0 is the heart, mesh 1 the lungs, liver and spine.
pub(crate) struct HeartOrgans {
    frames: usize,
    res: Resolution,
    heart: (Vec<DVec3>, Vec<[u32; 3]>),
    lung: (Vec<DVec3>, Vec<[u32; 3]>),
    liver: (Vec<DVec3>, Vec<[u32; 3]>),
    vertebra: (Vec<DVec3>, Vec<[u32; 3]>),
    /// Breathing phase, heart-beat phase, liver tilt.
    breath_phase: f64,
    beat_phase: f64,
    liver_tilt: f64,
}

impl HeartOrgans {
    fn new(frames: usize, seed: u64, res: Resolution) -> Self {
        let mut rng = SceneRng::new(seed);
        Self {
            frames: frames.max(2),
            res,
            heart: icosphere(res.heart),
            lung: icosphere(res.lung),
            liver: icosphere(res.liver),
            vertebra: cylinder(res.vertebra, VERT_R, -VERT_H / 2.0, VERT_H / 2.0),
            breath_phase: rng.uniform(0.0, TAU),
            beat_phase: rng.uniform(0.0, TAU),
            liver_tilt: rng.uniform(-0.2, 0.2),
        }
    }

    fn tau(&self, k: usize) -> f64 {
        k as f64 / (self.frames - 1) as f64
    }

    fn breath(&self, tau: f64) -> f64 {
        (TAU * 2.0 * tau + self.breath_phase).sin()
    }

    /// The heart's centre on the path at `tau` (smooth between waypoints).
    fn centre(tau: f64) -> DVec3 {
        let x = tau.clamp(0.0, 1.0) * (PATH.len() - 1) as f64;
        let i = (x.floor() as usize).min(PATH.len() - 2);
        PATH[i].lerp(PATH[i + 1], smoothstep(0.0, 1.0, x - i as f64))
    }

    fn heart_frame(&self, tau: f64) -> Vec<DVec3> {
        let beat = 1.0 + 0.06 * (TAU * 8.0 * tau + self.beat_phase).sin();
        // squeezed sideways while between the lungs
        let squeeze = 1.0 - 0.12 * (1.0 - smoothstep(0.15, 0.4, tau));
        let c = Self::centre(tau);
        let turn = DMat3::from_rotation_x(-0.5 * smoothstep(0.2, 0.9, tau));
        self.heart
            .0
            .iter()
            .map(|p| {
                // apex tapered (y < 0), a cleft between the atria at the top
                let taper = 0.55 + 0.45 * (0.5 * (p.y + 1.0));
                let cleft = 0.3 * (-p.x * p.x / 0.04).exp() * p.y.max(0.0).powi(2);
                let h = DVec3::new(
                    0.75 * taper * squeeze * p.x,
                    0.85 * p.y - cleft,
                    0.6 * taper * p.z,
                );
                c + turn * (h * beat)
            })
            .collect()
    }

    fn obstacles(&self, tau: f64) -> Vec<DVec3> {
        let b = self.breath(tau);
        let mut v = Vec::new();
        for side in [-1.0, 1.0] {
            let c = DVec3::new(side * LUNG_X, 0.3, 0.0);
            for p in &self.lung.0 {
                // inspiration swells the lung, most on its inner side
                let inner = (-side * p.x).max(0.0);
                let swell = 1.0 + 0.04 * b + 0.1 * b * inner;
                v.push(c + *p * LUNG_AXES * swell);
            }
        }
        let liver_c = LIVER_C + DVec3::new(0.0, -0.15 * b, 0.05 * b);
        let liver_rot = DMat3::from_rotation_z(self.liver_tilt + 0.05 * b);
        for p in &self.liver.0 {
            // a wedge: thinner towards +x
            let wedge = 1.0 - 0.35 * smoothstep(-1.0, 1.0, p.x);
            let q = DVec3::new(p.x, p.y * wedge, p.z) * LIVER_AXES;
            v.push(liver_c + liver_rot * q);
        }
        for k in 0..VERTEBRAE {
            let y = -3.0 + VERT_STEP * k as f64;
            let sway = 0.04 * b * (y / 3.0);
            let c = DVec3::new(sway, y, SPINE_Z);
            v.extend(self.vertebra.0.iter().map(|p| c + *p));
        }
        v
    }

    fn obstacle_triangles(&self) -> Vec<[u32; 3]> {
        let mut t = Vec::new();
        let mut base = 0u32;
        let mut add = |mesh: &(Vec<DVec3>, Vec<[u32; 3]>), copies: usize| {
            for _ in 0..copies {
                t.extend(mesh.1.iter().map(|tri| tri.map(|i| i + base)));
                base += mesh.0.len() as u32;
            }
        };
        add(&self.lung, 2);
        add(&self.liver, 1);
        add(&self.vertebra, VERTEBRAE);
        t
    }
}

impl Animation for HeartOrgans {
    fn topology(&self) -> Vec<Vec<[u32; 3]>> {
        vec![self.heart.1.clone(), self.obstacle_triangles()]
    }

    fn frame_count(&self) -> usize {
        self.frames
    }

    fn frame(&self, k: usize) -> Vec<Vec<DVec3>> {
        let tau = self.tau(k);
        vec![self.heart_frame(tau), self.obstacles(tau)]
    }
}

/// Frames of the path (full run) and of the quick run.
const FRAMES: usize = 40;
const QUICK_FRAMES: usize = 10;

const SEED: u64 = 0x4EA7;

pub(crate) fn run(cfg: &SceneConfig, bar: &indicatif::ProgressBar) -> anyhow::Result<SceneReport> {
    let anim = if cfg.quick {
        HeartOrgans::new(QUICK_FRAMES, SEED, QUICK)
    } else {
        HeartOrgans::new(FRAMES, SEED, FULL)
    };
    let steps = 0..anim.frame_count() - 1;
    run_plan(
        &PlanSpec {
            name: "heart-organs",
            paper: "LA Table II, Human Organs",
            description: format!(
                "procedural heart-shaped deformable robot (icosphere level {}, beating, squeezed) taken out along a {}-waypoint path from between two breathing lungs (level {}), past a liver (level {}) moving with the diaphragm and a swaying spine of {VERTEBRAE} vertebrae, {} path steps",
                anim.res.heart,
                PATH.len(),
                anim.res.lung,
                anim.res.liver,
                steps.len()
            ),
            anim: &anim,
            steps,
            paper_row: PlanPaperRow {
                tris: "14K",
                rtri_boolean_ms: 27.5,
                rtri_toc_ms: 2986.3,
                boolean_ms: 22.5,
                toc_ms: 727.5,
            },
            reps: 3,
        },
        bar,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenes::la_common::check_animation;

    #[test]
    fn sizes_topology_and_determinism() {
        let a = HeartOrgans::new(FRAMES, SEED, FULL);
        let tris = check_animation(&a, &[0, 1, 20, FRAMES - 1]);
        assert!((12_000..20_000).contains(&tris), "{tris} triangles");
        let b = HeartOrgans::new(FRAMES, SEED, FULL);
        assert_eq!(a.frame(3), b.frame(3));
        assert_ne!(a.frame(3), a.frame(4));
        check_animation(&HeartOrgans::new(QUICK_FRAMES, SEED, QUICK), &[0, 9]);
    }

    #[test]
    fn the_heart_leaves_the_chest() {
        let a = HeartOrgans::new(FRAMES, SEED, QUICK);
        let start = &a.frame(0)[0];
        // between the lungs at the start
        assert!(start.iter().all(|p| p.x.abs() < LUNG_X));
        let end = &a.frame(FRAMES - 1)[0];
        assert!(
            end.iter().all(|p| p.z > LUNG_AXES.z),
            "in front of the lungs"
        );
    }
}
