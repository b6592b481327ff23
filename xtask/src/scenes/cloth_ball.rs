//! Scene `cloth-ball` (LA Table I, UNC "cloth simulation"): a square cloth of 215 × 215
//! vertices (91,592 triangles) falls onto a ball of radius 5 (1,280 triangles) that turns
//! about `+y`, drapes over it and wrinkles.
//!
//! The deformation is procedural and deterministic (no simulation): a cloth point at
//! distance `s` from the cloth centre and azimuth `φ` lies on the ball (offset a little)
//! along its great circle up to the contact angle `α(τ)`, and beyond it on the tangent line
//! (arc length preserved radially). `α` grows from 0 (flat on top) to 90° (hanging) over the
//! first 70 % of the sequence. The circumference the hanging part loses is gathered into
//! prolate-trochoid folds (`φ → φ + β sin nφ` with `nβ > 1` where compression is strong)
//! whose small loops bring cloth layers into contact; the cloth is dragged round by the
//! ball (twist decaying with `s`), and moving patches press it slightly into the ball, so
//! the steps have both self-contacts and cloth–ball contacts like the UNC scene.

use glam::{DMat3, DVec3};

use crate::report::SceneReport;
use crate::rng::SceneRng;
use crate::scenes::SceneConfig;
use crate::scenes::la_common::{Animation, grid_triangles, icosphere, smoothstep};
use crate::scenes::la_run::{LaSpec, PaperRow, run_spec, schedule};

/// Cloth vertices per side.
const CLOTH_N: usize = 215;
/// Half the cloth's side length.
const HALF: f64 = 9.0;
/// Ball radius and centre (as in the UNC data: r ≈ 5, centre ≈ (0, 6.68, 0)).
const BALL_R: f64 = 5.0;
const BALL_C: DVec3 = DVec3::new(0.0, 6.68, 0.0);
/// Icosphere level of the ball (1,280 triangles).
const BALL_LEVEL: u32 = 3;
/// Rest offset of the cloth above the ball surface.
const OFFSET: f64 = 0.03;
/// Ball turns (radians) over the whole sequence.
const SPIN: f64 = std::f64::consts::PI;
/// Height the cloth drops before it touches the ball.
const DROP: f64 = 1.5;
/// Number of folds around the hanging part.
const FOLDS: f64 = 14.0;

/// The cloth-ball animation: mesh 0 is the cloth, mesh 1 the ball.
pub(crate) struct ClothBall {
    frames: usize,
    /// Phases of the fold pattern and of the pressing patches (from the seed).
    fold_phase: f64,
    press_phase: f64,
    ball: Vec<DVec3>,
    ball_tris: Vec<[u32; 3]>,
}

impl ClothBall {
    /// A sequence of `frames` frames (≥ 2) from `seed`.
    pub(crate) fn new(frames: usize, seed: u64) -> Self {
        let mut rng = SceneRng::new(seed);
        let (ball, ball_tris) = icosphere(BALL_LEVEL);
        Self {
            frames: frames.max(2),
            fold_phase: rng.uniform(0.0, std::f64::consts::TAU),
            press_phase: rng.uniform(0.0, std::f64::consts::TAU),
            ball,
            ball_tris,
        }
    }

    /// Normalized time of frame `k` in `[0, 1]`.
    fn tau(&self, k: usize) -> f64 {
        k as f64 / (self.frames - 1) as f64
    }

    fn cloth_point(&self, x: f64, z: f64, tau: f64) -> DVec3 {
        let s = x.hypot(z);
        let phi = if s > 0.0 { z.atan2(x) } else { 0.0 };
        // offset above the ball; moving patches dip below zero (cloth pressed into the ball)
        let patch = (3.0 * phi + 0.7 * s - 6.0 * tau + self.press_phase)
            .sin()
            .max(0.0);
        let r = BALL_R + OFFSET * (1.0 - 1.6 * patch.powi(8));
        let alpha = std::f64::consts::FRAC_PI_2 * smoothstep(0.08, 0.7, tau);
        let drop = DROP * (1.0 - tau / 0.08).max(0.0).powi(2);
        let contact = r * alpha;
        let (rho, y, hang) = if s <= contact {
            let theta = s / r;
            (r * theta.sin(), r * theta.cos(), 0.0)
        } else {
            let d = s - contact;
            (
                r * alpha.sin() + d * alpha.cos(),
                r * alpha.cos() - d * alpha.sin(),
                d,
            )
        };
        // folds: gather the lost circumference where the cloth hangs free
        let compression = if s > 0.0 { (s - rho) / s } else { 0.0 };
        let free = smoothstep(0.0, 2.0, hang);
        let loop_strength = 1.3 * smoothstep(0.05, 0.45, compression) * free;
        let beta = loop_strength / FOLDS;
        let amp = 0.5 * compression * rho * free / FOLDS * std::f64::consts::PI;
        let twist = 0.35 * SPIN * tau * (-s / 6.0).exp();
        let wave = FOLDS * phi + self.fold_phase;
        let phi2 = phi + twist + beta * wave.sin();
        let rho2 = rho + amp * 0.5 * (1.0 + wave.cos());
        BALL_C + DVec3::new(rho2 * phi2.cos(), y + drop, rho2 * phi2.sin())
    }
}

impl Animation for ClothBall {
    fn topology(&self) -> Vec<Vec<[u32; 3]>> {
        vec![
            grid_triangles(CLOTH_N - 1, CLOTH_N - 1),
            self.ball_tris.clone(),
        ]
    }

    fn frame_count(&self) -> usize {
        self.frames
    }

    fn frame(&self, k: usize) -> Vec<Vec<DVec3>> {
        let tau = self.tau(k);
        let step = 2.0 * HALF / (CLOTH_N - 1) as f64;
        let mut cloth = Vec::with_capacity(CLOTH_N * CLOTH_N);
        for i in 0..CLOTH_N {
            for j in 0..CLOTH_N {
                let x = -HALF + step * i as f64;
                let z = -HALF + step * j as f64;
                cloth.push(self.cloth_point(x, z, tau));
            }
        }
        let rot = DMat3::from_rotation_y(SPIN * tau);
        let ball = self
            .ball
            .iter()
            .map(|&p| BALL_C + rot * (p * BALL_R))
            .collect();
        vec![cloth, ball]
    }
}

/// Frames of the full sequence.
const FRAMES: usize = 100;

/// The first step of the quick run.
pub(crate) const QUICK_STEP: usize = 50;

/// The benchmark's sequence.
pub(crate) fn animation() -> ClothBall {
    ClothBall::new(FRAMES, 0xC107)
}

pub(crate) fn run(cfg: &SceneConfig, bar: &indicatif::ProgressBar) -> anyhow::Result<SceneReport> {
    let anim = animation();
    // quick: two steps while the cloth is wrapping (folds forming, pressed into the ball)
    let (steps, reps) = schedule(cfg.quick, QUICK_STEP, FRAMES);
    run_spec(
        &LaSpec {
            name: "cloth-ball",
            paper: "LA Table I, cloth simulation",
            description: format!(
                "procedural cloth (215×215 vertices) draping over a turning ball (r 5), steps {}..{} of {FRAMES} frames; cloth and ball are two meshes, self-collision on",
                steps.start, steps.end
            ),
            anim: &anim,
            steps,
            paper_row: Some(PaperRow {
                tris: "92K",
                rtri_ms: 350.0,
                all_ms: 286.0,
                global_ms: 274.0,
            }),
            target_global_ms: Some(40.0),
            reps,
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
        let a = ClothBall::new(100, 7);
        let tris = check_animation(&a, &[0, 1, 50, 99]);
        assert_eq!(tris, 2 * 214 * 214 + 1280);
        assert!((90_000..95_000).contains(&tris));
        let b = ClothBall::new(100, 7);
        assert_eq!(a.frame(42), b.frame(42));
        assert_ne!(a.frame(42), a.frame(43));
    }

    #[test]
    fn cloth_starts_above_the_ball_and_ends_draped_close_to_it() {
        let a = ClothBall::new(100, 3);
        let first = &a.frame(0)[0];
        assert!(first.iter().all(|p| (*p - BALL_C).length() > BALL_R));
        let last = &a.frame(99)[0];
        // the centre of the cloth rests on the ball within the offset
        let centre = last[CLOTH_N * CLOTH_N / 2];
        assert!(((centre - BALL_C).length() - BALL_R).abs() < 2.0 * OFFSET);
        // the hem hangs below the ball's equator
        assert!(last[0].y < BALL_C.y);
    }
}
