//! Scene `deformable-bar` (LA Table II, "Bar/Spheres"; Fig. 7a): a bar-like deformable robot
//! falls to the ground along a planned path between three deformable spheres.
//!
//! Procedural and seeded (no third-party data). The robot is a capped tube (a bar of length
//! 4, radius 0.3) whose centre line bends and whose cross-section squeezes while it threads
//! the gaps; its pose follows a path of waypoints (tilting to vertical to pass between the
//! spheres, lying down at the end). The obstacles are one mesh: three icospheres of radius
//! 1.2 that pulse and wobble (low-order surface modes with seeded phases), and a slightly
//! undulating ground grid. The path grazes the spheres where they bulge and ends on the
//! ground, so some steps collide and others are free, as a planner's path checks do.

use std::f64::consts::{FRAC_PI_2, PI, TAU};

use glam::{DMat3, DVec3};

use crate::report::SceneReport;
use crate::rng::SceneRng;
use crate::scenes::SceneConfig;
use crate::scenes::la_common::{Animation, grid_triangles, icosphere, smoothstep};
use crate::scenes::la_run::{PlanPaperRow, PlanSpec, run_plan};

/// Bar length and radius.
const BAR_LEN: f64 = 4.0;
const BAR_R: f64 = 0.3;
/// Sphere radius and centres.
const SPHERE_R: f64 = 1.2;
const SPHERES: [DVec3; 3] = [
    DVec3::new(-1.55, 3.2, 0.0),
    DVec3::new(1.55, 3.2, 0.0),
    DVec3::new(0.0, 3.4, 2.5),
];
/// Half the ground's side.
const GROUND_HALF: f64 = 6.0;

/// Resolution of one run: tube segments and rings, icosphere level, ground cells per side.
#[derive(Clone, Copy)]
struct Resolution {
    segments: usize,
    rings: usize,
    level: u32,
    cells: usize,
}

const FULL: Resolution = Resolution {
    segments: 48,
    rings: 72,
    level: 4,
    cells: 48,
};
const QUICK: Resolution = Resolution {
    segments: 24,
    rings: 24,
    level: 3,
    cells: 16,
};

/// A waypoint of the planned path: bar centre and its tilt from horizontal (radians, about
/// `z`) and heading (about `y`).
struct Waypoint {
    centre: DVec3,
    tilt: f64,
    heading: f64,
}

const PATH: [Waypoint; 6] = [
    Waypoint {
        centre: DVec3::new(0.0, 8.0, 0.0),
        tilt: 0.0,
        heading: 0.0,
    },
    Waypoint {
        centre: DVec3::new(0.0, 6.8, 0.0),
        tilt: 1.2,
        heading: 0.3,
    },
    Waypoint {
        centre: DVec3::new(0.0, 4.6, -0.2),
        tilt: FRAC_PI_2,
        heading: 0.5,
    },
    Waypoint {
        centre: DVec3::new(0.05, 2.9, -0.1),
        tilt: FRAC_PI_2,
        heading: 0.7,
    },
    Waypoint {
        centre: DVec3::new(0.3, 1.6, -0.6),
        tilt: 0.9,
        heading: 1.0,
    },
    Waypoint {
        centre: DVec3::new(0.6, BAR_R + 0.02, -1.2),
        tilt: 0.0,
        heading: 1.2,
    },
];

/// The bar-and-spheres path: mesh 0 is the bar, mesh 1 the spheres and the ground.
pub(crate) struct DeformableBar {
    frames: usize,
    res: Resolution,
    /// Unit-sphere vertices and triangles of one obstacle sphere.
    unit: Vec<DVec3>,
    unit_tris: Vec<[u32; 3]>,
    /// Per sphere: pulse phase and three wobble modes (direction, phase).
    phase: [f64; 3],
    modes: [[(DVec3, f64); 3]; 3],
}

impl DeformableBar {
    fn new(frames: usize, seed: u64, res: Resolution) -> Self {
        let mut rng = SceneRng::new(seed);
        let (unit, unit_tris) = icosphere(res.level);
        let phase = [(); 3].map(|()| rng.uniform(0.0, TAU));
        let modes = [(); 3].map(|()| [(); 3].map(|()| (rng.unit_vector(), rng.uniform(0.0, TAU))));
        Self {
            frames: frames.max(2),
            res,
            unit,
            unit_tris,
            phase,
            modes,
        }
    }

    fn tau(&self, k: usize) -> f64 {
        k as f64 / (self.frames - 1) as f64
    }

    /// Pose on the path at `tau`: centre, tilt, heading (smooth between waypoints).
    fn pose(tau: f64) -> (DVec3, f64, f64) {
        let x = tau.clamp(0.0, 1.0) * (PATH.len() - 1) as f64;
        let i = (x.floor() as usize).min(PATH.len() - 2);
        let u = smoothstep(0.0, 1.0, x - i as f64);
        let (a, b) = (&PATH[i], &PATH[i + 1]);
        (
            a.centre.lerp(b.centre, u),
            a.tilt + (b.tilt - a.tilt) * u,
            a.heading + (b.heading - a.heading) * u,
        )
    }

    fn bar(&self, tau: f64) -> Vec<DVec3> {
        let (centre, tilt, heading) = Self::pose(tau);
        let rot = DMat3::from_rotation_y(heading) * DMat3::from_rotation_z(tilt);
        // bending while threading the gap (largest half-way), a slow squeeze of the section
        let bend = 0.1 * (PI * tau).sin();
        let squeeze = 1.0 - 0.25 * smoothstep(0.35, 0.5, tau) * (1.0 - smoothstep(0.6, 0.75, tau));
        let (s, r) = (self.res.segments, self.res.rings);
        let mut v = Vec::with_capacity(s * r + 2);
        let centre_line = |x: f64| DVec3::new(x, bend * (1.0 - (2.0 * x / BAR_LEN).powi(2)), 0.0);
        for i in 0..r {
            let x = -BAR_LEN / 2.0 + BAR_LEN * i as f64 / (r - 1) as f64;
            let c = centre_line(x);
            for j in 0..s {
                let phi = TAU * j as f64 / s as f64;
                let p = c + DVec3::new(0.0, BAR_R * squeeze * phi.cos(), BAR_R * phi.sin());
                v.push(centre + rot * p);
            }
        }
        v.push(centre + rot * (centre_line(-BAR_LEN / 2.0) - DVec3::X * BAR_R));
        v.push(centre + rot * (centre_line(BAR_LEN / 2.0) + DVec3::X * BAR_R));
        v
    }

    fn bar_triangles(&self) -> Vec<[u32; 3]> {
        let (s, r) = (self.res.segments, self.res.rings);
        let idx = |i: usize, j: usize| (i * s + j % s) as u32;
        let mut t = Vec::with_capacity(2 * s * r);
        for i in 0..r - 1 {
            for j in 0..s {
                t.push([idx(i, j), idx(i, j + 1), idx(i + 1, j + 1)]);
                t.push([idx(i, j), idx(i + 1, j + 1), idx(i + 1, j)]);
            }
        }
        let (a, b) = ((s * r) as u32, (s * r + 1) as u32);
        for j in 0..s {
            t.push([a, idx(0, j + 1), idx(0, j)]);
            t.push([b, idx(r - 1, j), idx(r - 1, j + 1)]);
        }
        t
    }

    fn obstacles(&self, tau: f64) -> Vec<DVec3> {
        let mut v = Vec::new();
        for (k, c) in SPHERES.iter().enumerate() {
            let pulse = 1.0 + 0.04 * (TAU * 3.0 * tau + self.phase[k]).sin();
            for &p in &self.unit {
                let wobble: f64 = self.modes[k]
                    .iter()
                    .map(|(d, ph)| 0.02 * (2.0 * p.dot(*d)).cos() * (TAU * 2.0 * tau + ph).sin())
                    .sum();
                v.push(*c + p * SPHERE_R * (pulse + wobble));
            }
        }
        let n = self.res.cells;
        for i in 0..=n {
            for j in 0..=n {
                let x = -GROUND_HALF + 2.0 * GROUND_HALF * i as f64 / n as f64;
                let z = -GROUND_HALF + 2.0 * GROUND_HALF * j as f64 / n as f64;
                let y = -0.03 * (0.8 * x + TAU * tau).sin() * (0.7 * z).cos() - 0.04;
                v.push(DVec3::new(x, y, z));
            }
        }
        v
    }

    fn obstacle_triangles(&self) -> Vec<[u32; 3]> {
        let mut t = Vec::new();
        let nv = self.unit.len() as u32;
        for k in 0..SPHERES.len() as u32 {
            t.extend(self.unit_tris.iter().map(|tri| tri.map(|i| i + k * nv)));
        }
        let base = SPHERES.len() as u32 * nv;
        let n = self.res.cells;
        // the ground faces up
        t.extend(
            grid_triangles(n, n)
                .into_iter()
                .map(|[a, b, c]| [a + base, c + base, b + base]),
        );
        t
    }
}

impl Animation for DeformableBar {
    fn topology(&self) -> Vec<Vec<[u32; 3]>> {
        vec![self.bar_triangles(), self.obstacle_triangles()]
    }

    fn frame_count(&self) -> usize {
        self.frames
    }

    fn frame(&self, k: usize) -> Vec<Vec<DVec3>> {
        let tau = self.tau(k);
        vec![self.bar(tau), self.obstacles(tau)]
    }
}

/// Frames of the path (full run), and the steps of the quick run.
const FRAMES: usize = 40;
const QUICK_FRAMES: usize = 12;

const SEED: u64 = 0xBA55;

pub(crate) fn run(cfg: &SceneConfig, bar: &indicatif::ProgressBar) -> anyhow::Result<SceneReport> {
    let (anim, reps) = if cfg.quick {
        (DeformableBar::new(QUICK_FRAMES, SEED, QUICK), 3)
    } else {
        (DeformableBar::new(FRAMES, SEED, FULL), 3)
    };
    let steps = 0..anim.frame_count() - 1;
    run_plan(
        &PlanSpec {
            name: "deformable-bar",
            paper: "LA Table II, Bar/Spheres",
            description: format!(
                "procedural bar-like deformable robot (capped tube, {} × {} vertices, bending and squeezing) falling along a {}-waypoint path between three pulsing, wobbling spheres (icosphere level {}) onto an undulating ground, {} path steps",
                anim.res.rings,
                anim.res.segments,
                PATH.len(),
                anim.res.level,
                steps.len()
            ),
            anim: &anim,
            steps,
            paper_row: PlanPaperRow {
                tris: "636",
                rtri_boolean_ms: 7.2,
                rtri_toc_ms: 14.9,
                boolean_ms: 3.4,
                toc_ms: 10.6,
            },
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
        let a = DeformableBar::new(FRAMES, SEED, FULL);
        let tris = check_animation(&a, &[0, 1, 20, FRAMES - 1]);
        assert!(tris > 10_000, "{tris} triangles");
        let b = DeformableBar::new(FRAMES, SEED, FULL);
        assert_eq!(a.frame(7), b.frame(7));
        assert_ne!(a.frame(7), a.frame(8));
        let q = DeformableBar::new(QUICK_FRAMES, SEED, QUICK);
        check_animation(&q, &[0, QUICK_FRAMES - 1]);
    }

    #[test]
    fn the_bar_ends_on_the_ground_below_the_spheres() {
        let a = DeformableBar::new(FRAMES, SEED, QUICK);
        let start = &a.frame(0)[0];
        assert!(start.iter().all(|p| p.y > 7.0));
        let end = &a.frame(FRAMES - 1)[0];
        let low = end.iter().map(|p| p.y).fold(f64::INFINITY, f64::min);
        assert!(low.abs() < 0.1, "lowest point {low}");
    }
}
