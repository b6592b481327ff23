//! Scene `exploding-dragon` (LA Table I, UNC "exploding dragon"): a dense procedural
//! "dragon" — a bumpy tube of varying thickness along a (2, 3) torus knot, 504 × 250 cells,
//! 252,000 triangles — pre-fractured into 210 fragments that break off in a wave from an
//! impact point and burst outward from the tube, spinning, under gravity, hitting each
//! other and the neighbouring strands of the knot.
//!
//! Fragments own their vertices (cracks are duplicated vertices, as in a pre-fractured
//! model) and start shrunk by 0.4 % about their centroids, so the rest pose has hairline
//! cracks instead of coincident (initially touching) features. Each fragment moves rigidly
//! once the wave reaches it; nothing resolves collisions, so fragments may pass through each
//! other — CCD reports the first contact either way.

use glam::{DMat3, DQuat, DVec3};

use crate::report::SceneReport;
use crate::rng::SceneRng;
use crate::scenes::SceneConfig;
use crate::scenes::la_common::{Animation, grid_triangles, smoothstep};
use crate::scenes::la_run::{LaSpec, PaperRow, run_spec, schedule};

/// Cells along the knot and around the tube (2 · 504 · 250 = 252,000 triangles).
const NU: usize = 504;
const NV: usize = 250;
/// Fragment size in cells (504 = 21 · 24, 250 = 10 · 25: 210 fragments).
const FU: usize = 24;
const FV: usize = 25;
/// Knot scale and mean tube radius.
const SCALE: f64 = 3.0;
const TUBE_R: f64 = 0.9;
/// Crack width as a fraction of the fragment size.
const SHRINK: f64 = 0.004;
/// Frame time (s) and gravity (units/s², along −y).
const DT: f64 = 1.0 / 30.0;
const GRAVITY: f64 = 4.0;

struct Fragment {
    /// Rest vertices (cracks applied), centroid, and the rigid motion after `start`.
    rest: Vec<DVec3>,
    centroid: DVec3,
    start: f64,
    velocity: DVec3,
    spin_axis: DVec3,
    spin_rate: f64,
}

/// The exploding-dragon animation: one mesh of 210 fragments.
pub(crate) struct ExplodingDragon {
    frames: usize,
    fragments: Vec<Fragment>,
    tris: Vec<[u32; 3]>,
}

/// Point of the (2, 3) torus knot at parameter `u`, and the unit normal of the underlying
/// torus there (perpendicular to the knot's tangent, since the knot lies on the torus).
fn knot(u: f64) -> (DVec3, DVec3) {
    let (r_major, r_minor) = (2.0, 1.0);
    let (c2, s2) = ((2.0 * u).cos(), (2.0 * u).sin());
    let (c3, s3) = ((3.0 * u).cos(), (3.0 * u).sin());
    let p = DVec3::new(
        (r_major + r_minor * c3) * c2,
        r_minor * s3,
        (r_major + r_minor * c3) * s2,
    );
    let n = DVec3::new(c3 * c2, s3, c3 * s2);
    (p * SCALE, n)
}

impl ExplodingDragon {
    /// A sequence of `frames` frames (≥ 2) from `seed`.
    pub(crate) fn new(frames: usize, seed: u64) -> Self {
        let frames = frames.max(2);
        let mut rng = SceneRng::new(seed);
        // bumps: integer frequencies keep the surface periodic in both directions
        let bumps: Vec<(f64, f64, f64, f64)> = (0..8)
            .map(|_| {
                (
                    rng.uniform(3.0, 40.0).floor(),
                    rng.uniform(1.0, 8.0).floor(),
                    rng.uniform(0.0, std::f64::consts::TAU),
                    rng.uniform(0.02, 0.06),
                )
            })
            .collect();
        let surface = |i: usize, j: usize| -> DVec3 {
            let u = std::f64::consts::TAU * (i % NU) as f64 / NU as f64;
            let v = std::f64::consts::TAU * (j % NV) as f64 / NV as f64;
            let (h, du) = (1e-4, knot(u));
            let tangent = (knot(u + h).0 - knot(u - h).0).normalize();
            let n = (du.1 - tangent * du.1.dot(tangent)).normalize();
            let b = tangent.cross(n);
            // thick "body", thinner "tail", bumps
            let mut r = TUBE_R * (0.8 + 0.25 * u.sin() + 0.1 * (3.0 * u).cos());
            for &(a, c, phase, amp) in &bumps {
                r *= 1.0 + amp * (a * u + c * v + phase).sin();
            }
            du.0 + (n * v.cos() + b * v.sin()) * r
        };
        let impact = DVec3::new(0.0, SCALE * 1.5, 0.0);
        let local_tris = grid_triangles(FU, FV);
        let per_fragment = ((FU + 1) * (FV + 1)) as u32;
        let mut fragments = Vec::new();
        let mut tris = Vec::with_capacity(2 * NU * NV);
        for bu in 0..NU / FU {
            for bv in 0..NV / FV {
                let mut rest = Vec::with_capacity(per_fragment as usize);
                for i in 0..=FU {
                    for j in 0..=FV {
                        rest.push(surface(bu * FU + i, bv * FV + j));
                    }
                }
                let centroid = rest.iter().copied().sum::<DVec3>() / rest.len() as f64;
                for p in &mut rest {
                    *p = centroid + (*p - centroid) * (1.0 - SHRINK);
                }
                let base = fragments.len() as u32 * per_fragment;
                tris.extend(local_tris.iter().map(|t| t.map(|k| k + base)));
                // the tube bursts: away from the knot's centre line, and away from the impact
                let u_mid = std::f64::consts::TAU * (bu * FU + FU / 2) as f64 / NU as f64;
                let burst = (centroid - knot(u_mid).0).normalize_or_zero();
                let outward = burst + 0.4 * (centroid - impact).normalize_or_zero();
                let reach = (centroid - impact).length() / (SCALE * 4.5);
                fragments.push(Fragment {
                    rest,
                    centroid,
                    start: 0.1 + 0.3 * reach.min(1.0) + rng.uniform(0.0, 0.05),
                    velocity: outward * rng.uniform(2.0, 3.5) + rng.in_ball(0.6),
                    spin_axis: rng.unit_vector(),
                    spin_rate: rng.uniform(0.3, 1.5),
                });
            }
        }
        Self {
            frames,
            fragments,
            tris,
        }
    }
}

impl Animation for ExplodingDragon {
    fn topology(&self) -> Vec<Vec<[u32; 3]>> {
        vec![self.tris.clone()]
    }

    fn frame_count(&self) -> usize {
        self.frames
    }

    fn frame(&self, k: usize) -> Vec<Vec<DVec3>> {
        let tau = k as f64 / (self.frames - 1) as f64;
        let seconds = (self.frames - 1) as f64 * DT;
        let mut out = Vec::with_capacity(self.fragments.len() * (FU + 1) * (FV + 1));
        for f in &self.fragments {
            // time since the fragment broke off, eased in so the break starts gently
            let t = (tau - f.start).max(0.0) * seconds;
            let ease = smoothstep(0.0, 0.1, t);
            let shift = f.velocity * t * ease - DVec3::Y * (0.5 * GRAVITY * t * t);
            let rot = DMat3::from_quat(DQuat::from_axis_angle(f.spin_axis, f.spin_rate * t * ease));
            out.extend(
                f.rest
                    .iter()
                    .map(|&p| f.centroid + shift + rot * (p - f.centroid)),
            );
        }
        vec![out]
    }
}

/// Frames of the full sequence.
const FRAMES: usize = 100;

/// The first step of the quick run.
pub(crate) const QUICK_STEP: usize = 25;

/// The benchmark's sequence.
pub(crate) fn animation() -> ExplodingDragon {
    ExplodingDragon::new(FRAMES, 0xD7A6)
}

pub(crate) fn run(cfg: &SceneConfig, bar: &indicatif::ProgressBar) -> anyhow::Result<SceneReport> {
    let anim = animation();
    // quick: two steps while the break-up wave runs through the model
    let (steps, reps) = schedule(cfg.quick, QUICK_STEP, FRAMES);
    run_spec(
        &LaSpec {
            name: "exploding-dragon",
            paper: "LA Table I, exploding dragon",
            description: format!(
                "procedural bumpy torus-knot \"dragon\" in 210 fragments breaking apart, steps {}..{} of {FRAMES} frames; one mesh, self-collision on",
                steps.start, steps.end
            ),
            anim: &anim,
            steps,
            paper_row: Some(PaperRow {
                tris: "252K",
                rtri_ms: 938.0,
                all_ms: 792.0,
                global_ms: 717.0,
            }),
            target_global_ms: Some(120.0),
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
        let a = ExplodingDragon::new(60, 2);
        let tris = check_animation(&a, &[0, 30, 59]);
        assert_eq!(tris, 252_000);
        assert_eq!(a.fragments.len(), 210);
        let b = ExplodingDragon::new(60, 2);
        assert_eq!(a.frame(31), b.frame(31));
        // at rest before the wave, moving after it
        assert_eq!(a.frame(0), a.frame(1));
        assert_ne!(a.frame(40), a.frame(41));
    }

    #[test]
    fn knot_strands_do_not_touch_at_rest() {
        // the centre line keeps more than two tube radii between distinct strands
        let n = 2000;
        let pts: Vec<DVec3> = (0..n)
            .map(|i| knot(std::f64::consts::TAU * i as f64 / n as f64).0)
            .collect();
        let mut min = f64::INFINITY;
        for i in 0..n {
            for j in i + 1..n {
                let gap = (j - i).min(n - (j - i));
                if gap > n / 12 {
                    min = min.min(pts[i].distance(pts[j]));
                }
            }
        }
        let max_r = TUBE_R * 1.15 * 1.06f64.powi(8);
        assert!(
            min > 2.0 * max_r,
            "strands {min} apart, tube radius up to {max_r}"
        );
    }
}
