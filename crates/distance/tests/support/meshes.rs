//! Deterministic mesh generators for tests and benches: UV spheres, tori, noisy terrains
//! and random triangle soups.

use ccd_geometry::TriMesh;
use ccd_geometry::glam::DVec3;

/// splitmix64 in `[0, 1)`.
pub fn splitmix(state: &mut u64) -> f64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 53) as f64
}

/// A closed grid surface from a parametrisation over `[0, 1]²` with `n × m` cells, wrapping
/// in `u` and/or `v` (two triangles per cell).
fn grid(n: u32, m: u32, wrap_u: bool, wrap_v: bool, f: impl Fn(f64, f64) -> DVec3) -> TriMesh {
    let (nu, nv) = (
        if wrap_u { n } else { n + 1 },
        if wrap_v { m } else { m + 1 },
    );
    let mut verts = Vec::new();
    for i in 0..nu {
        for j in 0..nv {
            verts.push(f(f64::from(i) / f64::from(n), f64::from(j) / f64::from(m)));
        }
    }
    let id = |i: u32, j: u32| (i % nu) * nv + (j % nv);
    let mut tris = Vec::new();
    for i in 0..n {
        for j in 0..m {
            let (a, b, c, d) = (id(i, j), id(i + 1, j), id(i + 1, j + 1), id(i, j + 1));
            tris.push([a, b, c]);
            tris.push([a, c, d]);
        }
    }
    TriMesh::new(verts, tris).expect("generated mesh is valid")
}

/// A UV sphere (poles repeated per longitude cell: degenerate triangles included).
pub fn sphere(radius: f64, n: u32, m: u32) -> TriMesh {
    grid(n, m, true, false, |u, v| {
        let (th, ph) = (u * std::f64::consts::TAU, v * std::f64::consts::PI);
        DVec3::new(ph.sin() * th.cos(), ph.sin() * th.sin(), ph.cos()) * radius
    })
}

/// A torus with major radius `r0` and minor radius `r1`, `n` segments around z and `m`
/// around the tube ([`TriMesh::torus`]).
pub fn torus(r0: f64, r1: f64, n: u32, m: u32) -> TriMesh {
    TriMesh::torus(r0, r1, n, m).expect("valid torus")
}

/// A noisy height field over `[-1, 1]²`.
pub fn terrain(n: u32, amplitude: f64, seed: u64) -> TriMesh {
    let mut s = seed;
    let noise: Vec<f64> = (0..(n + 1) * (n + 1)).map(|_| splitmix(&mut s)).collect();
    grid(n, n, false, false, |u, v| {
        let (i, j) = (
            (u * f64::from(n)).round() as u32,
            (v * f64::from(n)).round() as u32,
        );
        let h = noise[(i * (n + 1) + j) as usize] - 0.5;
        DVec3::new(
            2.0 * u - 1.0,
            2.0 * v - 1.0,
            amplitude * h + 0.2 * (3.0 * u).sin(),
        )
    })
}

/// `count` random triangles of size about `size` in the cube `[-1, 1]³`.
pub fn soup(count: u32, size: f64, seed: u64) -> TriMesh {
    let mut s = seed;
    let p = |s: &mut u64| DVec3::new(splitmix(s), splitmix(s), splitmix(s)) * 2.0 - DVec3::ONE;
    let mut verts = Vec::new();
    let mut tris = Vec::new();
    for k in 0..count {
        let c = p(&mut s);
        for _ in 0..3 {
            let q = c + p(&mut s) * size;
            verts.push(q);
        }
        tris.push([3 * k, 3 * k + 1, 3 * k + 2]);
    }
    TriMesh::new(verts, tris).expect("generated soup is valid")
}
