//! Triangle meshes for URDF collision primitives, and mesh scaling.
//!
//! URDF conventions: a box is centred on its frame; a cylinder and a capsule are centred with
//! their axis along z (`length` is the cylindrical part; a capsule adds two hemispheres of
//! `radius`); a sphere is centred. All meshes are closed with outward-facing triangles
//! (counter-clockwise seen from outside).

use ccd_geometry::TriMesh;
use glam::DVec3;

/// A closed box of full extents `size`, centred on the origin (8 vertices, 12 triangles;
/// [`TriMesh::cuboid`]).
pub(crate) fn box_mesh(size: DVec3) -> Option<TriMesh> {
    let h = size * 0.5;
    TriMesh::cuboid(-h, h).ok()
}

/// A surface of revolution about z: `profile` lists `(radius, z)` from the bottom pole
/// (radius 0) to the top pole (radius 0); the points in between have radius > 0 and become
/// rings of `segments` vertices.
fn lathe(profile: &[(f64, f64)], segments: u32) -> Option<TriMesh> {
    let n = segments.max(3);
    let rings = &profile[1..profile.len() - 1];
    let mut vertices = Vec::with_capacity(rings.len() * n as usize + 2);
    vertices.push(DVec3::new(0.0, 0.0, profile[0].1));
    for &(r, z) in rings {
        for j in 0..n {
            let a = std::f64::consts::TAU * f64::from(j) / f64::from(n);
            vertices.push(DVec3::new(r * a.cos(), r * a.sin(), z));
        }
    }
    let top = vertices.len() as u32;
    vertices.push(DVec3::new(0.0, 0.0, profile[profile.len() - 1].1));
    let ring = |i: usize, j: u32| 1 + i as u32 * n + j % n;
    let mut triangles = Vec::with_capacity(2 * n as usize * (rings.len() + 1));
    for j in 0..n {
        triangles.push([0, ring(0, j + 1), ring(0, j)]);
    }
    for i in 0..rings.len().saturating_sub(1) {
        for j in 0..n {
            let (a, b) = (ring(i, j), ring(i, j + 1));
            let (c, d) = (ring(i + 1, j + 1), ring(i + 1, j));
            triangles.push([a, b, c]);
            triangles.push([a, c, d]);
        }
    }
    let last = rings.len() - 1;
    for j in 0..n {
        triangles.push([ring(last, j), ring(last, j + 1), top]);
    }
    TriMesh::new(vertices, triangles).ok()
}

/// Profile points of a quarter circle of radius `r` centred at height `zc`, from angle
/// `from` to `to` (radians from the equator, positive up), `steps` intervals, both ends
/// included.
fn arc(r: f64, zc: f64, from: f64, to: f64, steps: u32) -> impl Iterator<Item = (f64, f64)> {
    (0..=steps).map(move |k| {
        let phi = from + (to - from) * f64::from(k) / f64::from(steps);
        // exact zero radius at the poles
        let radius = if phi.abs() >= std::f64::consts::FRAC_PI_2 {
            0.0
        } else {
            r * phi.cos()
        };
        (radius, zc + r * phi.sin())
    })
}

/// A UV sphere of `radius` with `segments` vertices around and `segments / 2` bands.
pub(crate) fn sphere_mesh(radius: f64, segments: u32) -> Option<TriMesh> {
    let bands = (segments.max(3) / 2).max(2);
    let half = std::f64::consts::FRAC_PI_2;
    let profile: Vec<_> = arc(radius, 0.0, -half, half, bands).collect();
    lathe(&profile, segments)
}

/// A closed cylinder of `radius` and `length` along z, centred.
pub(crate) fn cylinder_mesh(radius: f64, length: f64, segments: u32) -> Option<TriMesh> {
    let h = 0.5 * length;
    lathe(&[(0.0, -h), (radius, -h), (radius, h), (0.0, h)], segments)
}

/// A capsule: a cylinder of `radius` and `length` along z, centred, with hemispherical caps.
pub(crate) fn capsule_mesh(radius: f64, length: f64, segments: u32) -> Option<TriMesh> {
    let h = 0.5 * length;
    let quarter = (segments.max(3) / 4).max(2);
    let half = std::f64::consts::FRAC_PI_2;
    let mut profile: Vec<_> = arc(radius, -h, -half, 0.0, quarter).collect();
    profile.extend(arc(radius, h, 0.0, half, quarter));
    lathe(&profile, segments)
}

/// `mesh` with every vertex multiplied component-wise by `scale` (non-zero, finite). A
/// mirroring scale (odd number of negative components) reverses the triangles so they
/// still face outward.
pub(crate) fn scaled(mesh: &TriMesh, scale: DVec3) -> Option<TriMesh> {
    let vertices = mesh.vertices().iter().map(|&v| v * scale).collect();
    let mirror = scale.x * scale.y * scale.z < 0.0;
    let triangles = mesh
        .triangles()
        .iter()
        .map(|&[a, b, c]| if mirror { [a, c, b] } else { [a, b, c] })
        .collect();
    TriMesh::new(vertices, triangles).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Signed volume (divergence theorem); positive for outward-facing closed meshes.
    fn volume(m: &TriMesh) -> f64 {
        m.triangle_iter()
            .map(|t| {
                let [a, b, c] = [t.a, t.b, t.c];
                a.dot(b.cross(c)) / 6.0
            })
            .sum()
    }

    /// Every edge is used exactly twice, once in each direction (closed, consistently
    /// oriented).
    fn closed_and_oriented(m: &TriMesh) -> bool {
        let mut directed = std::collections::HashMap::new();
        for &[a, b, c] in m.triangles() {
            for e in [(a, b), (b, c), (c, a)] {
                *directed.entry(e).or_insert(0) += 1;
            }
        }
        directed
            .iter()
            .all(|(&(a, b), &k)| k == 1 && directed.get(&(b, a)) == Some(&1))
    }

    #[test]
    fn primitives_are_closed_outward_and_have_about_the_right_volume() {
        use std::f64::consts::PI;
        let b = box_mesh(DVec3::new(1.0, 2.0, 3.0)).unwrap();
        assert!(closed_and_oriented(&b));
        assert!((volume(&b) - 6.0).abs() < 1e-12);

        let s = sphere_mesh(2.0, 64).unwrap();
        assert!(closed_and_oriented(&s));
        let exact = 4.0 / 3.0 * PI * 8.0;
        assert!(volume(&s) < exact && volume(&s) > 0.97 * exact);
        for v in s.vertices() {
            assert!((v.length() - 2.0).abs() < 1e-12);
        }

        let c = cylinder_mesh(0.5, 2.0, 48).unwrap();
        assert!(closed_and_oriented(&c));
        let exact = PI * 0.25 * 2.0;
        assert!(volume(&c) < exact && volume(&c) > 0.99 * exact);
        assert!((c.aabb().max.z - 1.0).abs() < 1e-15);

        let k = capsule_mesh(0.5, 2.0, 48).unwrap();
        assert!(closed_and_oriented(&k));
        let exact = PI * 0.25 * 2.0 + 4.0 / 3.0 * PI * 0.125;
        assert!(volume(&k) < exact && volume(&k) > 0.98 * exact);
        assert!((k.aabb().max.z - 1.5).abs() < 1e-15);

        // the smallest tessellations are still closed
        assert!(closed_and_oriented(&sphere_mesh(1.0, 0).unwrap()));
        assert!(closed_and_oriented(&capsule_mesh(1.0, 1.0, 3).unwrap()));
    }

    #[test]
    fn mirroring_scale_keeps_triangles_outward() {
        let b = box_mesh(DVec3::ONE).unwrap();
        let m = scaled(&b, DVec3::new(-2.0, 1.0, 1.0)).unwrap();
        assert!((volume(&m) - 2.0).abs() < 1e-12);
        let m = scaled(&b, DVec3::new(-1.0, -1.0, 3.0)).unwrap();
        assert!((volume(&m) - 3.0).abs() < 1e-12);
    }
}
