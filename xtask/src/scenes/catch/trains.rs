//! Trains of CATCH Fig. 11: chains of non-convex cars driven by a small seeded
//! position-based dynamics (particles at the couplings, distance constraints, gravity,
//! repulsion between trains, a heightfield floor). Four 10-car trains meet and tangle; a
//! 17-car train falls onto a mountain.

use anyhow::Result;
use ccd_geometry::TriMesh;
use ccd_kinematics::{ArticulatedModel, Joint, LinkSpec, Pose};
use glam::{DAffine3, DMat3, DVec3};

use super::meshes::{Heightfield, car, mountain};
use crate::rng::SceneRng;

/// Car length, width and height, and the gap between cars.
const CAR: (f64, f64, f64) = (4.0, 1.6, 1.8);
const GAP: f64 = 0.6;

/// A train: its model (root floating, spherical couplings), one car mesh per link, and a
/// pose per frame.
pub(crate) struct Train {
    pub(crate) model: ArticulatedModel,
    pub(crate) meshes: Vec<TriMesh>,
    pub(crate) frames: Vec<Pose>,
}

fn train_model(cars: usize) -> Result<ArticulatedModel> {
    let pitch = CAR.0 + GAP;
    let specs = (0..cars)
        .map(|i| LinkSpec {
            name: format!("car{i}"),
            parent: (i > 0).then(|| format!("car{}", i - 1)),
            joint: if i == 0 {
                Joint::Floating
            } else {
                Joint::Spherical
            },
            offset: DAffine3::from_translation(if i == 0 {
                DVec3::ZERO
            } else {
                DVec3::new(-pitch, 0.0, 0.0)
            }),
        })
        .collect();
    Ok(ArticulatedModel::new(specs)?)
}

/// World transform of a car between coupling particles `front` and `back` (x forward, y up).
fn car_frame(front: DVec3, back: DVec3) -> DAffine3 {
    let x = (front - back).normalize_or(DVec3::X);
    let up = if x.y.abs() > 0.95 { DVec3::Z } else { DVec3::Y };
    let z = x.cross(up).normalize();
    let y = z.cross(x);
    // the car's centre sits between the couplings, its floor at their height
    let c = 0.5 * (front + back) - y * (0.5 * CAR.2);
    DAffine3::from_mat3_translation(DMat3::from_cols(x, y, z), c)
}

fn poses_of(model: &ArticulatedModel, particles: &[DVec3]) -> Result<Pose> {
    let world: Vec<DAffine3> = particles
        .windows(2)
        .map(|w| car_frame(w[0], w[1]))
        .collect();
    let rel = world
        .iter()
        .enumerate()
        .map(|(i, w)| {
            if i == 0 {
                *w
            } else {
                world[i - 1].inverse() * *w
            }
        })
        .collect();
    Ok(Pose::new(model, rel)?)
}

/// Position-based chain dynamics: Verlet integration, then a few constraint passes.
struct Chains {
    pos: Vec<Vec<DVec3>>,
    prev: Vec<Vec<DVec3>>,
}

impl Chains {
    fn step(
        &mut self,
        dt: f64,
        gravity: DVec3,
        floor: Option<&Heightfield>,
        mut drive: impl FnMut(usize, &mut DVec3),
    ) {
        let pitch = CAR.0 + GAP;
        for (c, (pos, prev)) in self.pos.iter_mut().zip(&mut self.prev).enumerate() {
            for (p, q) in pos.iter_mut().zip(prev.iter_mut()) {
                let v = (*p - *q) * 0.995;
                *q = *p;
                *p += v + gravity * dt * dt;
            }
            drive(c, &mut pos[0]);
        }
        let radius = 0.55 * CAR.1;
        for _ in 0..8 {
            for pos in &mut self.pos {
                for i in 0..pos.len() - 1 {
                    let d = pos[i + 1] - pos[i];
                    let len = d.length().max(1e-9);
                    let corr = d * (0.5 * (len - pitch) / len);
                    pos[i] += corr;
                    pos[i + 1] -= corr;
                }
            }
            // repulsion between particles of different trains
            let n = self.pos.len();
            for a in 0..n {
                for b in a + 1..n {
                    for i in 0..self.pos[a].len() {
                        for j in 0..self.pos[b].len() {
                            let d = self.pos[b][j] - self.pos[a][i];
                            let len = d.length();
                            if len < 2.0 * radius && len > 1e-9 {
                                let corr = d * (0.5 * (2.0 * radius - len) / len);
                                self.pos[a][i] -= corr;
                                self.pos[b][j] += corr;
                            }
                        }
                    }
                }
            }
            if let Some(h) = floor {
                for (pos, prev) in self.pos.iter_mut().zip(&mut self.prev) {
                    for (p, q) in pos.iter_mut().zip(prev.iter_mut()) {
                        let ground = h.height(p.x, p.z) + 0.6 * CAR.2;
                        if p.y < ground {
                            p.y = ground;
                            // friction: the particle keeps little of its sliding speed
                            *q = *p - (*p - *q) * 0.3;
                        }
                    }
                }
            }
        }
    }
}

/// Four `cars`-car trains (`slices` loft slices per car) starting on the four sides of the
/// origin and steering towards it with a seeded wander, `frames + 1` poses each.
pub(crate) fn four_trains(
    seed: u64,
    cars: usize,
    slices: usize,
    frames: usize,
) -> Result<Vec<Train>> {
    let model = train_model(cars)?;
    let mesh = car(CAR.0, CAR.1, CAR.2, 48, slices, 24)?;
    let pitch = CAR.0 + GAP;
    let mut rng = SceneRng::new(seed);
    let mut pos = Vec::new();
    let mut heading = Vec::new();
    for k in 0..4 {
        let a = std::f64::consts::FRAC_PI_2 * k as f64 + rng.uniform(-0.2, 0.2);
        let dir = DVec3::new(-a.cos(), 0.0, -a.sin());
        let start = -dir * 22.0 + DVec3::new(0.0, rng.uniform(-1.0, 1.0), 0.0);
        pos.push(
            (0..=cars)
                .map(|i| start - dir * (pitch * i as f64))
                .collect::<Vec<_>>(),
        );
        heading.push((dir, rng.uniform(0.0, 6.0), rng.uniform(0.6, 1.4)));
    }
    let mut chains = Chains {
        prev: pos.clone(),
        pos,
    };
    let dt = 1.0 / 30.0;
    let speed = 0.45;
    let mut out: Vec<Vec<Pose>> = vec![Vec::new(); 4];
    for f in 0..=frames {
        for (o, p) in out.iter_mut().zip(&chains.pos) {
            o.push(poses_of(&model, p)?);
        }
        let t = f as f64 * dt;
        chains.step(dt, DVec3::ZERO, None, |c, head| {
            let (dir, phase, freq) = heading[c];
            // towards the centre, swerving, climbing and diving: trains meet and tangle
            let to_centre = (-*head).normalize_or(dir);
            let side = to_centre.cross(DVec3::Y);
            let wobble = side * (freq * 2.0 * t + phase).sin() * 0.8
                + DVec3::Y * (freq * 1.3 * t + phase).cos() * 0.4;
            *head += (to_centre * 0.7 + dir * 0.3 + wobble).normalize() * speed;
        });
    }
    Ok(out
        .into_iter()
        .map(|frames| Train {
            model: model.clone(),
            meshes: vec![mesh.clone(); cars],
            frames,
        })
        .collect())
}

/// A `cars`-car train dropped onto a mountain heightfield (`grid × grid` cells), with the
/// mountain mesh; `frames + 1` poses.
pub(crate) fn falling_train(
    seed: u64,
    cars: usize,
    slices: usize,
    grid: usize,
    frames: usize,
) -> Result<(Train, TriMesh)> {
    let model = train_model(cars)?;
    let mesh = car(CAR.0, CAR.1, CAR.2, 48, slices, 24)?;
    let (terrain, field) = mountain(seed, grid, 120.0, 22.0)?;
    let pitch = CAR.0 + GAP;
    let mut rng = SceneRng::new(seed ^ 0x5eed);
    let a = rng.uniform(0.0, std::f64::consts::TAU);
    let dir = DVec3::new(a.cos(), rng.uniform(-0.2, 0.2), a.sin()).normalize();
    let start = DVec3::new(rng.uniform(-10.0, 10.0), 45.0, rng.uniform(-10.0, 10.0))
        + dir * (0.5 * pitch * cars as f64);
    let pos: Vec<DVec3> = (0..=cars)
        .map(|i| start - dir * (pitch * i as f64))
        .collect();
    // initial velocity: forward and a spin about the vertical
    let dt = 1.0 / 30.0;
    let prev = pos
        .iter()
        .enumerate()
        .map(|(i, p)| *p - (dir * 6.0 + DVec3::new(0.0, 0.0, 0.3 * i as f64)) * dt)
        .collect();
    let mut chains = Chains {
        pos: vec![pos],
        prev: vec![prev],
    };
    let mut out = Vec::with_capacity(frames + 1);
    for _ in 0..=frames {
        out.push(poses_of(&model, &chains.pos[0])?);
        chains.step(dt, DVec3::new(0.0, -9.81, 0.0), Some(&field), |_, _| {});
    }
    Ok((
        Train {
            model,
            meshes: vec![mesh; cars],
            frames: out,
        },
        terrain,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn four_trains_have_the_paper_sizes_and_meet() {
        let trains = four_trains(3, 10, 20, 90).unwrap();
        assert_eq!(trains.len(), 4);
        let tris: usize = trains[0].meshes.iter().map(TriMesh::triangle_count).sum();
        assert!((21_000..25_000).contains(&tris), "{tris}");
        // the heads end up much closer to each other than they started
        let head = |t: &Train, f: usize| t.frames[f].relative[0].translation;
        let spread = |f: usize| head(&trains[0], f).distance(head(&trains[2], f));
        assert!(spread(90) < 0.5 * spread(0), "{} {}", spread(0), spread(90));
    }

    #[test]
    fn falling_train_lands_on_the_mountain() {
        let (train, terrain) = falling_train(5, 17, 22, 120, 150).unwrap();
        let tris: usize = train.meshes.iter().map(TriMesh::triangle_count).sum();
        assert!((40_000..45_000).contains(&tris), "{tris}");
        assert!((28_000..30_000).contains(&terrain.triangle_count()));
        let y = |f: usize| train.frames[f].relative[0].translation.y;
        assert!(y(150) < y(0) - 10.0);
    }
}
