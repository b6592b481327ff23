//! Procedural triangle meshes for the CATCH scenes: closed surfaces of revolution (limbs,
//! chessmen, tableware), lofted non-convex car bodies, cylinders and boxes, and a
//! heightfield mountain. Everything is seeded or fixed, so every machine builds the same
//! scene.

use std::f64::consts::TAU;

use anyhow::Result;
use ccd_geometry::TriMesh;
use glam::{DAffine3, DQuat, DVec3};

use crate::rng::SceneRng;

/// A growing triangle soup; pieces are added in their own frames.
#[derive(Default)]
pub(crate) struct MeshBuilder {
    vertices: Vec<DVec3>,
    triangles: Vec<[u32; 3]>,
}

impl MeshBuilder {
    /// An empty builder.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    fn vertex(&mut self, p: DVec3) -> u32 {
        self.vertices.push(p);
        (self.vertices.len() - 1) as u32
    }

    /// Appends a whole mesh placed by `xf`.
    pub(crate) fn append(&mut self, mesh: &TriMesh, xf: DAffine3) {
        let base = self.vertices.len() as u32;
        self.vertices
            .extend(mesh.vertices().iter().map(|&v| xf.transform_point3(v)));
        self.triangles.extend(
            mesh.triangles()
                .iter()
                .map(|t| [t[0] + base, t[1] + base, t[2] + base]),
        );
    }

    /// A closed surface of revolution about the local `z` axis, placed by `xf`.
    /// `profile` lists `(z, radius)` from bottom to top (radii > 0); the ends are closed by
    /// a pole vertex on the axis. The radius at angle `θ` is scaled by
    /// `1 + lobe_amp · cos(lobes · θ)` (crowns, fluted columns, muscles).
    pub(crate) fn revolve(
        &mut self,
        xf: DAffine3,
        profile: &[(f64, f64)],
        segments: usize,
        lobes: u32,
        lobe_amp: f64,
    ) {
        let (Some(&(z_lo, _)), Some(&(z_hi, _))) = (profile.first(), profile.last()) else {
            return;
        };
        let bottom = self.vertex(xf.transform_point3(DVec3::new(0.0, 0.0, z_lo)));
        let first = self.vertices.len() as u32;
        for &(z, r) in profile {
            for s in 0..segments {
                let th = TAU * s as f64 / segments as f64;
                let rr = r * (1.0 + lobe_amp * (f64::from(lobes) * th).cos());
                self.vertex(xf.transform_point3(DVec3::new(rr * th.cos(), rr * th.sin(), z)));
            }
        }
        let top = self.vertex(xf.transform_point3(DVec3::new(0.0, 0.0, z_hi)));
        let n = segments as u32;
        let ring = |k: usize, s: u32| first + k as u32 * n + s % n;
        for s in 0..n {
            self.triangles.push([bottom, ring(0, s + 1), ring(0, s)]);
        }
        for k in 0..profile.len() - 1 {
            for s in 0..n {
                let (a, b) = (ring(k, s), ring(k, s + 1));
                let (c, d) = (ring(k + 1, s), ring(k + 1, s + 1));
                self.triangles.push([a, b, d]);
                self.triangles.push([a, d, c]);
            }
        }
        let last = profile.len() - 1;
        for s in 0..n {
            self.triangles.push([top, ring(last, s), ring(last, s + 1)]);
        }
    }

    /// A closed surface lofted along the local `x` axis: cross-section `section(u)` (a
    /// closed polygon in the `yz` plane, counter-clockwise, the same vertex count for every
    /// `u`) at `x = x0 + u (x1 − x0)` for `slices` values of `u ∈ [0, 1]`, ends capped by a
    /// centre vertex.
    pub(crate) fn loft(
        &mut self,
        xf: DAffine3,
        x0: f64,
        x1: f64,
        slices: usize,
        section: impl Fn(f64) -> Vec<(f64, f64)>,
    ) {
        let mut first = None;
        let mut m = 0;
        let mut centres = Vec::new();
        for k in 0..slices {
            let u = k as f64 / (slices - 1) as f64;
            let x = x0 + u * (x1 - x0);
            let sec = section(u);
            m = sec.len();
            let (cy, cz) = sec
                .iter()
                .fold((0.0, 0.0), |(a, b), &(y, z)| (a + y, b + z));
            centres.push(DVec3::new(x, cy / m as f64, cz / m as f64));
            for (y, z) in sec {
                let id = self.vertex(xf.transform_point3(DVec3::new(x, y, z)));
                first.get_or_insert(id);
            }
        }
        let Some(first) = first else { return };
        let m32 = m as u32;
        let at = |k: usize, s: u32| first + k as u32 * m32 + s % m32;
        for k in 0..slices - 1 {
            for s in 0..m32 {
                let (a, b) = (at(k, s), at(k, s + 1));
                let (c, d) = (at(k + 1, s), at(k + 1, s + 1));
                self.triangles.push([a, d, b]);
                self.triangles.push([a, c, d]);
            }
        }
        let c0 = self.vertex(xf.transform_point3(centres[0]));
        let c1 = self.vertex(xf.transform_point3(centres[slices - 1]));
        for s in 0..m32 {
            self.triangles.push([c0, at(0, s), at(0, s + 1)]);
            self.triangles
                .push([c1, at(slices - 1, s + 1), at(slices - 1, s)]);
        }
    }

    /// A closed cylinder of radius `r` from `a` to `b`.
    pub(crate) fn cylinder(&mut self, a: DVec3, b: DVec3, r: f64, segments: usize) {
        let d = b - a;
        let xf = DAffine3::from_rotation_translation(
            DQuat::from_rotation_arc(DVec3::Z, d.normalize()),
            a,
        );
        self.revolve(xf, &[(0.0, r), (d.length(), r)], segments, 0, 0.0);
    }

    /// A box with half extents `half`, placed by `xf`, each face split into `n × n` quads.
    pub(crate) fn cuboid(&mut self, xf: DAffine3, half: DVec3, n: usize) {
        let n = n.max(1);
        for axis in 0..3 {
            for sign in [-1.0, 1.0] {
                let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
                let first = self.vertices.len() as u32;
                for i in 0..=n {
                    for j in 0..=n {
                        let mut p = DVec3::ZERO;
                        p[axis] = sign * half[axis];
                        p[u] = half[u] * (2.0 * i as f64 / n as f64 - 1.0);
                        p[v] = half[v] * (2.0 * j as f64 / n as f64 - 1.0);
                        self.vertex(xf.transform_point3(p));
                    }
                }
                let at = |i: usize, j: usize| first + (i * (n + 1) + j) as u32;
                for i in 0..n {
                    for j in 0..n {
                        let (a, b, c, d) = (at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1));
                        if sign > 0.0 {
                            self.triangles.push([a, b, c]);
                            self.triangles.push([a, c, d]);
                        } else {
                            self.triangles.push([a, c, b]);
                            self.triangles.push([a, d, c]);
                        }
                    }
                }
            }
        }
    }

    /// The validated mesh.
    pub(crate) fn build(self) -> Result<TriMesh> {
        Ok(TriMesh::new(self.vertices, self.triangles)?)
    }
}

/// Places local `z` along `dir` (unit) at `origin`.
pub(crate) fn along(dir: DVec3, origin: DVec3) -> DAffine3 {
    DAffine3::from_rotation_translation(DQuat::from_rotation_arc(DVec3::Z, dir), origin)
}

/// A limb around the segment from the origin to `end`: a surface of revolution with a
/// muscle bulge and a waist (not convex), `rings × segments` quads. `r0`/`r1`: radii at
/// the near and far end.
pub(crate) fn limb(
    b: &mut MeshBuilder,
    end: DVec3,
    r0: f64,
    r1: f64,
    rings: usize,
    segments: usize,
) {
    let len = end.length();
    let pad = 0.5 * r1.min(r0);
    let profile: Vec<(f64, f64)> = (0..rings)
        .map(|k| {
            let u = k as f64 / (rings - 1) as f64;
            let z = -0.3 * r0 + u * (len + 0.3 * r1 + pad);
            let base = r0 + (r1 - r0) * u;
            // bulge in the upper third, a waist near the far joint; rounded ends
            let shape = 1.0 + 0.22 * (std::f64::consts::PI * u).sin().powi(2)
                - 0.18 * (-((u - 0.78) / 0.1).powi(2)).exp();
            let end_round = (1.0 - (2.0 * u - 1.0).powi(8)).max(0.05).sqrt();
            (z, base * shape * end_round)
        })
        .collect();
    let dir = if len > 0.0 { end / len } else { DVec3::NEG_Y };
    b.revolve(along(dir, DVec3::ZERO), &profile, segments, 2, 0.12);
}

/// The kind of a chessman (its profile).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Chessman {
    Pawn,
    Rook,
    Knight,
    Bishop,
    Queen,
    King,
}

/// A chessman of height `h` standing on the `xz` plane at the origin (y up), about
/// `rings × segments × 2` triangles.
pub(crate) fn chessman(kind: Chessman, h: f64, rings: usize, segments: usize) -> Result<TriMesh> {
    // profile radius as a fraction of h over u ∈ [0, 1] of the height
    let shape = |u: f64| -> f64 {
        let foot = if u < 0.08 { 0.28 - 0.6 * u } else { 0.0 };
        let stem = 0.12 + 0.08 * (1.0 - u) - 0.05 * (std::f64::consts::PI * u).sin();
        let collar = 0.07 * (-((u - 0.62) / 0.03).powi(2)).exp();
        let head = match kind {
            Chessman::Pawn => 0.14 * (1.0 - ((u - 0.82) / 0.17).powi(2)).max(0.0).sqrt(),
            Chessman::Rook => {
                if u > 0.75 {
                    0.17
                } else {
                    0.0
                }
            }
            Chessman::Knight => 0.12 * (1.0 - ((u - 0.8) / 0.2).powi(2)).max(0.0).sqrt(),
            Chessman::Bishop => 0.11 * (1.0 - ((u - 0.8) / 0.2).powi(2)).max(0.0).sqrt(),
            Chessman::Queen => 0.15 * (1.0 - ((u - 0.84) / 0.16).powi(2)).max(0.0).sqrt(),
            Chessman::King => 0.13 * (1.0 - ((u - 0.8) / 0.2).powi(2)).max(0.0).sqrt(),
        };
        foot.max(stem).max(collar).max(head).max(0.02)
    };
    let profile: Vec<(f64, f64)> = (0..rings)
        .map(|k| {
            let u = k as f64 / (rings - 1) as f64;
            (u * h, shape(u) * h * 0.9)
        })
        .collect();
    let (lobes, amp) = match kind {
        Chessman::Rook => (6, 0.05),
        Chessman::Queen | Chessman::King => (8, 0.06),
        Chessman::Knight => (1, 0.25),
        _ => (0, 0.0),
    };
    let mut b = MeshBuilder::new();
    // z up in the revolve frame → y up in the scene
    let up = DAffine3::from_quat(DQuat::from_rotation_arc(DVec3::Z, DVec3::Y));
    b.revolve(up, &profile, segments, lobes, amp);
    b.build()
}

/// A non-convex railway car of length `len` centred at the origin, facing `+x`, `y` up:
/// a lofted body whose cross-section is a rounded rectangle with a recessed window band,
/// tapered at both ends, and four wheels. About `2·sides·(slices+1) + 4·4·wheel_segments`
/// triangles.
pub(crate) fn car(
    len: f64,
    width: f64,
    height: f64,
    sides: usize,
    slices: usize,
    wheel_segments: usize,
) -> Result<TriMesh> {
    let mut b = MeshBuilder::new();
    let (hw, hh) = (0.5 * width, 0.5 * height);
    let lift = 0.25 * height;
    b.loft(DAffine3::IDENTITY, -0.5 * len, 0.5 * len, slices, |u| {
        let taper = 1.0 - 0.25 * (2.0 * u - 1.0).powi(6);
        (0..sides)
            .map(|s| {
                let th = TAU * s as f64 / sides as f64;
                let (c, sn) = (th.cos(), th.sin());
                // superellipse |y|^4 + |z|^4 = 1 in the yz plane (z here is the height)
                let r = (c.abs().powi(4) + sn.abs().powi(4)).powf(-0.25);
                let (mut y, z) = (r * c * hw, r * sn * hh);
                if z > 0.1 * hh && z < 0.6 * hh {
                    y *= 0.9; // window recess: the section is not convex
                }
                // section coordinates (height, lateral): the car's y is up, z lateral
                (z * taper + lift + hh, y * taper)
            })
            .collect()
    });
    let wr = 0.22 * height;
    for x in [-0.32 * len, 0.32 * len] {
        for z in [-0.4 * width, 0.4 * width] {
            let a = DVec3::new(x, wr, z - 0.06 * width);
            let c = DVec3::new(x, wr, z + 0.06 * width);
            b.cylinder(a, c, wr, wheel_segments);
        }
    }
    b.build()
}

/// A mountain heightfield over `[-size/2, size/2]²` in `xz` (y up): `n × n` cells, two
/// triangles each, height from seeded Gaussian peaks plus ridges.
pub(crate) fn mountain(
    seed: u64,
    n: usize,
    size: f64,
    height: f64,
) -> Result<(TriMesh, Heightfield)> {
    let mut rng = SceneRng::new(seed);
    let peaks: Vec<(f64, f64, f64, f64)> = (0..7)
        .map(|i| {
            let r = if i == 0 {
                0.0
            } else {
                rng.uniform(0.1, 0.35) * size
            };
            let a = rng.uniform(0.0, TAU);
            let amp = if i == 0 { 1.0 } else { rng.uniform(0.25, 0.6) };
            let w = rng.uniform(0.1, 0.2) * size;
            (r * a.cos(), r * a.sin(), amp * height, w)
        })
        .collect();
    let field = Heightfield {
        peaks,
        ridge: 0.06 * height,
        ridge_freq: 9.0 / size,
    };
    let mut b = MeshBuilder::new();
    let step = size / n as f64;
    for i in 0..=n {
        for j in 0..=n {
            let (x, z) = (-0.5 * size + i as f64 * step, -0.5 * size + j as f64 * step);
            b.vertex(DVec3::new(x, field.height(x, z), z));
        }
    }
    let at = |i: usize, j: usize| (i * (n + 1) + j) as u32;
    for i in 0..n {
        for j in 0..n {
            b.triangles.push([at(i, j), at(i, j + 1), at(i + 1, j + 1)]);
            b.triangles.push([at(i, j), at(i + 1, j + 1), at(i + 1, j)]);
        }
    }
    Ok((b.build()?, field))
}

/// The height function of [`mountain`].
pub(crate) struct Heightfield {
    peaks: Vec<(f64, f64, f64, f64)>,
    ridge: f64,
    ridge_freq: f64,
}

impl Heightfield {
    /// Height at `(x, z)` (the mesh interpolates it linearly per triangle).
    pub(crate) fn height(&self, x: f64, z: f64) -> f64 {
        let bumps: f64 = self
            .peaks
            .iter()
            .map(|&(px, pz, a, w)| a * (-((x - px).powi(2) + (z - pz).powi(2)) / (w * w)).exp())
            .sum();
        bumps + self.ridge * (self.ridge_freq * x).sin() * (self.ridge_freq * 1.3 * z).cos()
    }
}
