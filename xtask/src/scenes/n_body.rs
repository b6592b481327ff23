//! Scene `n-body` (LA Table I, UNC "N-body simulation"): 300 balls (480 triangles each)
//! fly in a box, bounce off its walls, off five static cylinders (496 triangles each) and
//! off each other; half of them wobble as ellipsoids (deformable), all spin. 146,480
//! triangles, as in the UNC data.
//!
//! The motion is a small deterministic particle simulation (seeded initial state, fixed
//! sub-steps, elastic impulses between bounding spheres): contacts happen when balls meet,
//! and may interpenetrate by up to one sub-step of travel — CCD reports them either way.

use glam::{DMat3, DQuat, DVec3};

use crate::report::SceneReport;
use crate::rng::SceneRng;
use crate::scenes::SceneConfig;
use crate::scenes::la_common::{Animation, cylinder, uv_sphere};
use crate::scenes::la_run::{LaSpec, PaperRow, run_spec, schedule};

/// Number of balls.
const BALLS: usize = 300;
/// UV-sphere resolution (480 triangles per ball).
const SLICES: usize = 16;
const STACKS: usize = 16;
/// The box is `[-HALF, HALF]³`.
const HALF: f64 = 13.0;
/// Cylinder radius, sides (496 triangles each), and positions in the `xz` plane.
const CYL_R: f64 = 1.2;
const CYL_SEGMENTS: usize = 124;
const CYLINDERS: [(f64, f64); 5] = [
    (0.0, 0.0),
    (8.0, 8.0),
    (-8.0, 8.0),
    (8.0, -8.0),
    (-8.0, -8.0),
];
/// Frame time and simulation sub-steps per frame.
const DT: f64 = 1.0 / 25.0;
const SUBSTEPS: usize = 8;

struct Ball {
    radius: f64,
    /// Wobble amplitude (0 for rigid balls), angular frequency and phase.
    wobble: f64,
    freq: f64,
    phase: f64,
    spin_axis: DVec3,
    spin_rate: f64,
}

/// The n-body animation: mesh 0 holds all balls, mesh 1 the static cylinders.
pub(crate) struct NBody {
    balls: Vec<Ball>,
    /// Ball centres per frame.
    centres: Vec<Vec<DVec3>>,
    unit: Vec<DVec3>,
    unit_tris: Vec<[u32; 3]>,
    cylinders: Vec<DVec3>,
    cylinder_tris: Vec<[u32; 3]>,
}

impl NBody {
    /// Simulates `frames` frames (≥ 2) from `seed`.
    pub(crate) fn new(frames: usize, seed: u64) -> Self {
        let frames = frames.max(2);
        let mut rng = SceneRng::new(seed);
        // jittered grid of free cells (no overlap with each other or the cylinders)
        let cells = 7;
        let cell = 2.0 * HALF / cells as f64;
        let mut free = Vec::new();
        for i in 0..cells {
            for j in 0..cells {
                for k in 0..cells {
                    let c = DVec3::new(
                        -HALF + cell * (i as f64 + 0.5),
                        -HALF + cell * (j as f64 + 0.5),
                        -HALF + cell * (k as f64 + 0.5),
                    );
                    let clear = CYLINDERS
                        .iter()
                        .all(|&(x, z)| (c.x - x).hypot(c.z - z) > CYL_R + 0.5 * cell);
                    if clear {
                        free.push(c);
                    }
                }
            }
        }
        // a seeded shuffle, then the first BALLS cells
        for i in (1..free.len()).rev() {
            let j = (rng.uniform(0.0, (i + 1) as f64) as usize).min(i);
            free.swap(i, j);
        }
        assert!(free.len() >= BALLS, "box too small for {BALLS} balls");
        let mut balls = Vec::with_capacity(BALLS);
        let mut pos = Vec::with_capacity(BALLS);
        let mut vel = Vec::with_capacity(BALLS);
        for (b, &c) in free.iter().take(BALLS).enumerate() {
            let radius = rng.uniform(0.9, 1.5);
            let wobble = if b % 2 == 0 {
                rng.uniform(0.04, 0.12)
            } else {
                0.0
            };
            balls.push(Ball {
                radius,
                wobble,
                freq: rng.uniform(4.0, 9.0),
                phase: rng.uniform(0.0, std::f64::consts::TAU),
                spin_axis: rng.unit_vector(),
                spin_rate: rng.uniform(0.0, 2.5),
            });
            let slack = 0.5 * cell - radius * (1.0 + wobble);
            pos.push(c + rng.in_ball(slack.max(0.0)));
            vel.push(rng.unit_vector() * rng.uniform(4.0, 8.0));
        }
        let mut centres = Vec::with_capacity(frames);
        centres.push(pos.clone());
        let h = DT / SUBSTEPS as f64;
        for _ in 1..frames {
            for _ in 0..SUBSTEPS {
                step(&balls, &mut pos, &mut vel, h);
            }
            centres.push(pos.clone());
        }
        let (unit, unit_tris) = uv_sphere(SLICES, STACKS);
        let (cyl, cyl_tris) = cylinder(CYL_SEGMENTS, CYL_R, -HALF, HALF);
        let mut cylinders = Vec::new();
        let mut cylinder_tris = Vec::new();
        for &(x, z) in &CYLINDERS {
            let base = cylinders.len() as u32;
            cylinders.extend(cyl.iter().map(|&p| p + DVec3::new(x, 0.0, z)));
            cylinder_tris.extend(cyl_tris.iter().map(|t| t.map(|i| i + base)));
        }
        Self {
            balls,
            centres,
            unit,
            unit_tris,
            cylinders,
            cylinder_tris,
        }
    }
}

/// One explicit sub-step: move, then reflect off walls and cylinders and exchange normal
/// velocity (mass ∝ r³) between approaching overlapping balls.
fn step(balls: &[Ball], pos: &mut [DVec3], vel: &mut [DVec3], h: f64) {
    for (p, v) in pos.iter_mut().zip(vel.iter()) {
        *p += *v * h;
    }
    let reach = |b: &Ball| b.radius * (1.0 + b.wobble);
    for (i, b) in balls.iter().enumerate() {
        let r = reach(b);
        for axis in 0..3 {
            if pos[i][axis] > HALF - r && vel[i][axis] > 0.0
                || pos[i][axis] < -HALF + r && vel[i][axis] < 0.0
            {
                vel[i][axis] = -vel[i][axis];
            }
        }
        for &(x, z) in &CYLINDERS {
            let d = DVec3::new(pos[i].x - x, 0.0, pos[i].z - z);
            let len = d.length();
            if len < CYL_R + r && len > 0.0 {
                let n = d / len;
                let vn = vel[i].dot(n);
                if vn < 0.0 {
                    vel[i] -= 2.0 * vn * n;
                }
            }
        }
    }
    for i in 0..balls.len() {
        for j in i + 1..balls.len() {
            let d = pos[j] - pos[i];
            let reach_ij = reach(&balls[i]) + reach(&balls[j]);
            let dist2 = d.length_squared();
            if dist2 >= reach_ij * reach_ij || dist2 == 0.0 {
                continue;
            }
            let n = d / dist2.sqrt();
            let approach = (vel[i] - vel[j]).dot(n);
            if approach <= 0.0 {
                continue;
            }
            let (mi, mj) = (balls[i].radius.powi(3), balls[j].radius.powi(3));
            let impulse = 2.0 * approach / (mi + mj);
            vel[i] -= n * (impulse * mj);
            vel[j] += n * (impulse * mi);
        }
    }
}

impl Animation for NBody {
    fn topology(&self) -> Vec<Vec<[u32; 3]>> {
        let nv = self.unit.len() as u32;
        let balls = (0..self.balls.len() as u32)
            .flat_map(|b| self.unit_tris.iter().map(move |t| t.map(|i| i + b * nv)))
            .collect();
        vec![balls, self.cylinder_tris.clone()]
    }

    fn frame_count(&self) -> usize {
        self.centres.len()
    }

    fn frame(&self, k: usize) -> Vec<Vec<DVec3>> {
        let time = k as f64 * DT;
        let mut out = Vec::with_capacity(self.balls.len() * self.unit.len());
        for (b, c) in self.balls.iter().zip(&self.centres[k]) {
            let w = b.wobble * (b.freq * time + b.phase).sin();
            // volume-preserving wobble along the ball's own axes
            let scale = DVec3::new(1.0 + w, 1.0 / (1.0 + w).sqrt(), 1.0 / (1.0 + w).sqrt());
            let rot = DMat3::from_quat(DQuat::from_axis_angle(b.spin_axis, b.spin_rate * time));
            out.extend(self.unit.iter().map(|&p| *c + rot * (p * scale * b.radius)));
        }
        vec![out, self.cylinders.clone()]
    }
}

/// Frames of the full sequence.
const FRAMES: usize = 100;

/// The first step of the quick run.
pub(crate) const QUICK_STEP: usize = 40;

/// The benchmark's sequence.
pub(crate) fn animation() -> NBody {
    NBody::new(FRAMES, 0xB0D1)
}

pub(crate) fn run(cfg: &SceneConfig, bar: &indicatif::ProgressBar) -> anyhow::Result<SceneReport> {
    let anim = animation();
    let (steps, reps) = schedule(cfg.quick, QUICK_STEP, FRAMES);
    run_spec(
        &LaSpec {
            name: "n-body",
            paper: "LA Table I, N-body simulation",
            description: format!(
                "300 balls (half wobbling) bouncing in a box with 5 static cylinders, steps {}..{} of {FRAMES} frames; balls and cylinders are two meshes, self-collision on",
                steps.start, steps.end
            ),
            anim: &anim,
            steps,
            paper_row: Some(PaperRow {
                tris: "146K",
                rtri_ms: 1131.0,
                all_ms: 720.0,
                global_ms: 669.0,
            }),
            target_global_ms: Some(100.0),
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
        let a = NBody::new(30, 11);
        let tris = check_animation(&a, &[0, 1, 29]);
        assert_eq!(tris, 146_480);
        let b = NBody::new(30, 11);
        assert_eq!(a.frame(17), b.frame(17));
        assert_ne!(a.frame(17)[0], a.frame(18)[0]);
        // cylinders are static
        assert_eq!(a.frame(3)[1], a.frame(4)[1]);
    }

    #[test]
    fn balls_stay_in_the_box_and_some_meet() {
        let a = NBody::new(100, 5);
        let mut meetings = 0;
        for frame in &a.centres {
            for (c, b) in frame.iter().zip(&a.balls) {
                assert!(c.abs().max_element() < HALF + 0.5 * b.radius);
            }
            for i in 0..frame.len() {
                for j in i + 1..frame.len() {
                    let r = a.balls[i].radius + a.balls[j].radius;
                    if frame[i].distance(frame[j]) < r * 1.05 {
                        meetings += 1;
                    }
                }
            }
        }
        assert!(meetings > 10, "only {meetings} ball meetings in 100 frames");
    }
}
