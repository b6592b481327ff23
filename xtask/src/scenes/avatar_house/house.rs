//! The house of `avatar-house`: a triangle soup builder, walls with door openings, the
//! thin objects (music stand, curtain, plant, shelf divider) and the furnished house of more
//! than 300K triangles.

use anyhow::{Context, Result, bail};
use ccd_geometry::TriMesh;
use glam::{DMat3, DVec3};

use crate::rng::SceneRng;

/// Minimum triangle count of the house.
pub(super) const MIN_TRIANGLES: usize = 300_000;

/// Triangle soup being assembled.
#[derive(Default)]
pub(super) struct MeshBuilder {
    pub(super) v: Vec<DVec3>,
    pub(super) f: Vec<[u32; 3]>,
}

impl MeshBuilder {
    /// A grid on the parallelogram `o + s·u + t·w`, `s, t ∈ [0, 1]`, with cells of about `cell`.
    fn quad(&mut self, o: DVec3, u: DVec3, w: DVec3, cell: f64) {
        let nu = ((u.length() / cell).ceil() as usize).max(1);
        let nw = ((w.length() / cell).ceil() as usize).max(1);
        let base = self.v.len() as u32;
        for j in 0..=nw {
            for i in 0..=nu {
                self.v
                    .push(o + u * (i as f64 / nu as f64) + w * (j as f64 / nw as f64));
            }
        }
        let row = nu as u32 + 1;
        for j in 0..nw as u32 {
            for i in 0..nu as u32 {
                let a = base + j * row + i;
                self.f.push([a, a + 1, a + row + 1]);
                self.f.push([a, a + row + 1, a + row]);
            }
        }
    }

    /// A box with centre `c`, half extents `h` in its frame, turned by `rot`.
    fn cuboid(&mut self, c: DVec3, h: DVec3, rot: DMat3, cell: f64) {
        let (x, y, z) = (rot.x_axis * h.x, rot.y_axis * h.y, rot.z_axis * h.z);
        for (n, a, b) in [(x, y, z), (y, z, x), (z, x, y)] {
            for s in [-1.0, 1.0] {
                let o = c + n * s - a - b;
                self.quad(o, a * 2.0, b * 2.0, cell);
            }
        }
    }

    /// Axis-aligned box from `lo` to `hi`.
    fn block(&mut self, lo: DVec3, hi: DVec3, cell: f64) {
        self.cuboid((lo + hi) * 0.5, (hi - lo) * 0.5, DMat3::IDENTITY, cell);
    }

    /// A vertical cylinder (closed) from `base` up by `height`.
    fn cylinder(&mut self, base: DVec3, height: f64, radius: f64, segments: usize, rings: usize) {
        let b = self.v.len() as u32;
        let n = segments as u32;
        for r in 0..=rings {
            let y = height * r as f64 / rings as f64;
            for k in 0..segments {
                let a = std::f64::consts::TAU * k as f64 / segments as f64;
                self.v
                    .push(base + DVec3::new(radius * a.cos(), y, radius * a.sin()));
            }
        }
        for r in 0..rings as u32 {
            for k in 0..n {
                let (a, c) = (b + r * n + k, b + r * n + (k + 1) % n);
                self.f.push([a, c, c + n]);
                self.f.push([a, c + n, a + n]);
            }
        }
        for (ring, y) in [(0, 0.0), (rings as u32, height)] {
            let centre = self.v.len() as u32;
            self.v.push(base + DVec3::Y * y);
            for k in 0..n {
                let s = b + ring * n;
                self.f.push([centre, s + k, s + (k + 1) % n]);
            }
        }
    }

    /// Appends another builder's triangles.
    fn append(&mut self, o: &MeshBuilder) {
        let base = self.v.len() as u32;
        self.v.extend_from_slice(&o.v);
        self.f
            .extend(o.f.iter().map(|t| [t[0] + base, t[1] + base, t[2] + base]));
    }

    /// Moves every vertex by `d`.
    pub(super) fn translate(&mut self, d: DVec3) {
        for v in &mut self.v {
            *v += d;
        }
    }

    pub(super) fn build(self) -> Result<TriMesh> {
        TriMesh::new(self.v, self.f).context("house mesh")
    }
}

/// A wall along x (at `z`) or along z (at `x`) from `a` to `b`, with door openings
/// `(centre, width)` along it; 0.1 m thick, 2.6 m tall, doors 2.05 m tall.
fn wall(m: &mut MeshBuilder, along_x: bool, at: f64, a: f64, b: f64, doors: &[f64], y0: f64) {
    let (th, hgt, door_w, door_h, cell) = (0.05, 2.6, 0.9, 2.05, 0.06);
    let put = |m: &mut MeshBuilder, s0: f64, s1: f64, ylo: f64, yhi: f64| {
        if along_x {
            m.block(
                DVec3::new(s0, y0 + ylo, at - th),
                DVec3::new(s1, y0 + yhi, at + th),
                cell,
            );
        } else {
            m.block(
                DVec3::new(at - th, y0 + ylo, s0),
                DVec3::new(at + th, y0 + yhi, s1),
                cell,
            );
        }
    };
    let mut s = a;
    for &d in doors {
        put(m, s, d - door_w / 2.0, 0.0, hgt);
        put(m, d - door_w / 2.0, d + door_w / 2.0, door_h, hgt);
        s = d + door_w / 2.0;
    }
    put(m, s, b, 0.0, hgt);
}

/// Furniture of a thin-object kind at `p` (on the floor), facing `lateral` (unit, horizontal).
pub(super) fn thin_object(
    m: &mut MeshBuilder,
    kind: usize,
    p: DVec3,
    lateral: DVec3,
    rng: &mut SceneRng,
) {
    let fwd = DVec3::Y.cross(lateral).normalize();
    let frame = |l: DVec3, up: DVec3| DMat3::from_cols(l, up, l.cross(up));
    let upright = frame(lateral, DVec3::Y);
    match kind % 4 {
        0 => {
            // music stand: tripod, pole, tilted 2 mm desk
            m.cylinder(p, 0.9, 0.01, 12, 20);
            for k in 0..3 {
                let a = std::f64::consts::TAU * k as f64 / 3.0;
                let d = lateral * a.cos() + fwd * a.sin();
                let rot = frame(d, DVec3::Y);
                m.cuboid(
                    p + d * 0.18 + DVec3::Y * 0.05,
                    DVec3::new(0.2, 0.008, 0.008),
                    rot,
                    0.02,
                );
            }
            let tilt = DMat3::from_axis_angle(fwd, 0.25) * upright;
            m.cuboid(p + DVec3::Y * 1.2, DVec3::new(0.001, 0.3, 0.3), tilt, 0.015);
        }
        1 => {
            // curtain: a 1 mm sheet hanging from a rail
            m.cuboid(
                p + DVec3::Y * 1.35,
                DVec3::new(0.0005, 0.75, 0.45),
                upright,
                0.015,
            );
            m.cuboid(
                p + DVec3::Y * 2.12,
                DVec3::new(0.01, 0.01, 0.6),
                upright,
                0.02,
            );
        }
        2 => {
            // tall plant: pot, stem, thin leaves at random angles
            m.cylinder(p, 0.35, 0.15, 32, 8);
            m.cylinder(p + DVec3::Y * 0.35, 1.3, 0.008, 10, 40);
            for k in 0..8 {
                let yaw = rng.uniform(-0.5, 0.5);
                let pitch = rng.uniform(-0.4, 0.4);
                let rot =
                    DMat3::from_rotation_y(yaw) * DMat3::from_axis_angle(fwd, pitch) * upright;
                let h = 0.85 + 0.09 * k as f64;
                m.cuboid(p + DVec3::Y * h, DVec3::new(0.001, 0.06, 0.28), rot, 0.012);
            }
        }
        _ => {
            // open shelf divider: two thin uprights and 2 cm boards
            for s in [-0.4, 0.4] {
                m.cuboid(
                    p + fwd * s + DVec3::Y * 0.95,
                    DVec3::new(0.15, 0.95, 0.009),
                    upright,
                    0.02,
                );
            }
            for k in 0..5 {
                let y = 0.2 + 0.38 * k as f64;
                m.cuboid(
                    p + DVec3::Y * y,
                    DVec3::new(0.15, 0.01, 0.4),
                    upright,
                    0.015,
                );
            }
        }
    }
}

/// The house: 14 × 12 m, three rooms with door openings, furniture along the walls, and the
/// given thin objects (already placed).
pub(super) fn house(floor: f64, thin: &[&MeshBuilder]) -> Result<TriMesh> {
    let mut m = MeshBuilder::default();
    let y = floor;
    // floor slab (top at y), finely tessellated
    m.quad(
        DVec3::new(-7.0, y, -6.0),
        DVec3::X * 14.0,
        DVec3::Z * 12.0,
        0.045,
    );
    // outer walls, inner wall x = 0 (two doors), wall z = 0 on the left half (one door)
    wall(&mut m, true, -6.0, -7.0, 7.0, &[], y);
    wall(&mut m, true, 6.0, -7.0, 7.0, &[4.0], y);
    wall(&mut m, false, -7.0, -6.0, 6.0, &[], y);
    wall(&mut m, false, 7.0, -6.0, 6.0, &[], y);
    wall(&mut m, false, 0.0, -6.0, 6.0, &[-3.0, 3.0], y);
    wall(&mut m, true, 0.0, -7.0, 0.0, &[-1.2], y);
    let c = 0.03;
    let at = |x: f64, yy: f64, z: f64| DVec3::new(x, y + yy, z);
    // living room (x > 0): sofa along x = 7 wall, coffee table, bookshelf along z = -6
    m.block(at(6.0, 0.0, -1.2), at(6.9, 0.45, 1.2), c);
    m.block(at(6.7, 0.45, -1.2), at(6.9, 0.9, 1.2), c);
    for z in [-1.3, 1.3] {
        m.block(at(6.0, 0.0, z - 0.1), at(6.9, 0.65, z + 0.1), c);
    }
    m.block(at(5.0, 0.42, -0.6), at(5.6, 0.45, 0.6), c);
    for (dx, dz) in [(0.03, 0.03), (0.57, 0.03), (0.03, 1.17), (0.57, 1.17)] {
        m.cylinder(at(5.0 + dx, 0.0, -0.6 + dz), 0.42, 0.015, 12, 10);
    }
    for s in [1.0, 2.8] {
        m.block(at(s, 0.0, -5.95), at(s + 0.02, 2.0, -5.6), c);
    }
    for k in 0..6 {
        let h = 0.05 + 0.38 * k as f64;
        m.block(at(1.0, h, -5.95), at(2.82, h + 0.02, -5.6), 0.02);
    }
    // kitchen (x < 0, z < 0): table with legs, chairs, shelves along x = -7
    m.block(at(-6.5, 0.72, -5.5), at(-5.3, 0.75, -3.8), c);
    for (dx, dz) in [(0.05, 0.05), (1.15, 0.05), (0.05, 1.65), (1.15, 1.65)] {
        m.block(
            at(-6.5 + dx - 0.02, 0.0, -5.5 + dz - 0.02),
            at(-6.5 + dx + 0.02, 0.72, -5.5 + dz + 0.02),
            0.02,
        );
    }
    for z in [-5.1, -4.2] {
        m.block(at(-5.2, 0.44, z - 0.2), at(-4.8, 0.47, z + 0.2), 0.02);
        m.block(at(-4.83, 0.47, z - 0.2), at(-4.8, 0.95, z + 0.2), 0.02);
    }
    for k in 0..5 {
        m.block(
            at(-6.95, 0.9 + 0.3 * k as f64, -2.5),
            at(-6.6, 0.92 + 0.3 * k as f64, -0.5),
            0.02,
        );
    }
    // study (x < 0, z > 0): desk, chair, bookcase, bed
    m.block(at(-6.9, 0.72, 1.0), at(-6.2, 0.75, 2.6), c);
    m.block(at(-6.9, 0.0, 1.0), at(-6.88, 0.72, 2.6), c);
    m.block(at(-6.2, 0.0, 1.0), at(-6.18, 0.72, 2.6), c);
    m.block(at(-2.4, 0.0, 3.9), at(-0.2, 0.5, 5.9), c);
    for s in [-5.5, -4.0] {
        m.block(at(s, 0.0, 5.6), at(s + 0.02, 2.1, 5.95), c);
    }
    for k in 0..7 {
        let h = 0.05 + 0.33 * k as f64;
        m.block(at(-5.5, h, 5.6), at(-3.98, h + 0.02, 5.95), 0.02);
    }
    // thin objects beside the swings
    for o in thin {
        m.append(o);
    }
    let mesh = m.build()?;
    if mesh.triangle_count() < MIN_TRIANGLES {
        bail!(
            "avatar-house: house has {} triangles < {MIN_TRIANGLES}",
            mesh.triangle_count()
        );
    }
    Ok(mesh)
}
