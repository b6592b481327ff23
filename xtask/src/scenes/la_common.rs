//! Shared pieces of the deformable (LA, Table I) scenes: the [`Animation`] trait every frame
//! generator implements, and the mesh primitives they are built from (grids, spheres,
//! cylinders).

use glam::DVec3;

/// A deterministic sequence of frames of fixed topology: one or more meshes whose vertex
/// positions change from frame to frame. Each consecutive pair of frames is one CCD step.
pub(crate) trait Animation {
    /// Triangles of every mesh (fixed for the whole sequence).
    fn topology(&self) -> Vec<Vec<[u32; 3]>>;
    /// Number of frames (the number of CCD steps is one less).
    fn frame_count(&self) -> usize;
    /// Vertex positions of every mesh at frame `k < frame_count()`.
    fn frame(&self, k: usize) -> Vec<Vec<DVec3>>;
}

/// Triangles of an `nu × nv` grid of cells over `(nu + 1) × (nv + 1)` vertices numbered
/// `i * (nv + 1) + j`; two triangles per cell, diagonals alternating so that the grid has no
/// preferred direction.
pub(crate) fn grid_triangles(nu: usize, nv: usize) -> Vec<[u32; 3]> {
    let w = nv + 1;
    let mut tris = Vec::with_capacity(2 * nu * nv);
    for i in 0..nu {
        for j in 0..nv {
            let a = (i * w + j) as u32;
            let b = (i * w + j + 1) as u32;
            let c = ((i + 1) * w + j) as u32;
            let d = ((i + 1) * w + j + 1) as u32;
            if (i + j) % 2 == 0 {
                tris.push([a, c, d]);
                tris.push([a, d, b]);
            } else {
                tris.push([a, c, b]);
                tris.push([b, c, d]);
            }
        }
    }
    tris
}

/// A unit UV sphere with `slices` meridians and `stacks` bands: `2 + slices * (stacks - 1)`
/// vertices and `2 * slices * (stacks - 1)` triangles (fans at the poles), outward wound.
pub(crate) fn uv_sphere(slices: usize, stacks: usize) -> (Vec<DVec3>, Vec<[u32; 3]>) {
    let mut v = vec![DVec3::Z];
    for k in 1..stacks {
        let theta = std::f64::consts::PI * k as f64 / stacks as f64;
        for s in 0..slices {
            let phi = std::f64::consts::TAU * s as f64 / slices as f64;
            v.push(DVec3::new(
                theta.sin() * phi.cos(),
                theta.sin() * phi.sin(),
                theta.cos(),
            ));
        }
    }
    v.push(-DVec3::Z);
    let south = (v.len() - 1) as u32;
    let ring = |k: usize, s: usize| (1 + (k - 1) * slices + s % slices) as u32;
    let mut t = Vec::with_capacity(2 * slices * (stacks - 1));
    for s in 0..slices {
        t.push([0, ring(1, s), ring(1, s + 1)]);
    }
    for k in 1..stacks - 1 {
        for s in 0..slices {
            let (a, b) = (ring(k, s), ring(k, s + 1));
            let (c, d) = (ring(k + 1, s), ring(k + 1, s + 1));
            t.push([a, c, d]);
            t.push([a, d, b]);
        }
    }
    for s in 0..slices {
        t.push([south, ring(stacks - 1, s + 1), ring(stacks - 1, s)]);
    }
    (v, t)
}

/// A unit icosphere: the icosahedron subdivided `level` times (`20 · 4^level` triangles),
/// vertices projected on the sphere, outward wound.
pub(crate) fn icosphere(level: u32) -> (Vec<DVec3>, Vec<[u32; 3]>) {
    let p = (1.0 + 5f64.sqrt()) / 2.0;
    let mut v: Vec<DVec3> = [
        (-1.0, p, 0.0),
        (1.0, p, 0.0),
        (-1.0, -p, 0.0),
        (1.0, -p, 0.0),
        (0.0, -1.0, p),
        (0.0, 1.0, p),
        (0.0, -1.0, -p),
        (0.0, 1.0, -p),
        (p, 0.0, -1.0),
        (p, 0.0, 1.0),
        (-p, 0.0, -1.0),
        (-p, 0.0, 1.0),
    ]
    .iter()
    .map(|&(x, y, z)| DVec3::new(x, y, z).normalize())
    .collect();
    let mut t: Vec<[u32; 3]> = vec![
        [0, 11, 5],
        [0, 5, 1],
        [0, 1, 7],
        [0, 7, 10],
        [0, 10, 11],
        [1, 5, 9],
        [5, 11, 4],
        [11, 10, 2],
        [10, 7, 6],
        [7, 1, 8],
        [3, 9, 4],
        [3, 4, 2],
        [3, 2, 6],
        [3, 6, 8],
        [3, 8, 9],
        [4, 9, 5],
        [2, 4, 11],
        [6, 2, 10],
        [8, 6, 7],
        [9, 8, 1],
    ];
    for _ in 0..level {
        let mut mid = std::collections::HashMap::new();
        let mut midpoint = |a: u32, b: u32, v: &mut Vec<DVec3>| -> u32 {
            *mid.entry((a.min(b), a.max(b))).or_insert_with(|| {
                v.push(((v[a as usize] + v[b as usize]) * 0.5).normalize());
                (v.len() - 1) as u32
            })
        };
        let mut next = Vec::with_capacity(t.len() * 4);
        for &[a, b, c] in &t {
            let ab = midpoint(a, b, &mut v);
            let bc = midpoint(b, c, &mut v);
            let ca = midpoint(c, a, &mut v);
            next.extend_from_slice(&[[a, ab, ca], [b, bc, ab], [c, ca, bc], [ab, bc, ca]]);
        }
        t = next;
    }
    (v, t)
}

/// A closed cylinder of radius `r` along `+y` from `y0` to `y1` with `segments` sides:
/// `2 * segments + 2` vertices, `4 * segments` triangles (side quads and cap fans).
pub(crate) fn cylinder(segments: usize, r: f64, y0: f64, y1: f64) -> (Vec<DVec3>, Vec<[u32; 3]>) {
    let mut v = Vec::with_capacity(2 * segments + 2);
    for y in [y0, y1] {
        for s in 0..segments {
            let phi = std::f64::consts::TAU * s as f64 / segments as f64;
            v.push(DVec3::new(r * phi.cos(), y, r * phi.sin()));
        }
    }
    v.push(DVec3::new(0.0, y0, 0.0));
    v.push(DVec3::new(0.0, y1, 0.0));
    let (bottom, top) = ((2 * segments) as u32, (2 * segments + 1) as u32);
    let n = segments as u32;
    let mut t = Vec::with_capacity(4 * segments);
    for s in 0..n {
        let s1 = (s + 1) % n;
        t.push([s, n + s1, s1]);
        t.push([s, n + s, n + s1]);
        t.push([bottom, s, s1]);
        t.push([top, n + s1, n + s]);
    }
    (v, t)
}

/// `0` below `a`, `1` above `b`, a smooth cubic ramp between.
pub(crate) fn smoothstep(a: f64, b: f64, x: f64) -> f64 {
    let u = ((x - a) / (b - a)).clamp(0.0, 1.0);
    u * u * (3.0 - 2.0 * u)
}

/// Checks shared by the generator tests: every frame has one finite position per vertex of
/// its mesh, indices are in range, no triangle repeats a vertex.
#[cfg(test)]
pub(crate) fn check_animation(anim: &dyn Animation, frames: &[usize]) -> usize {
    let topo = anim.topology();
    let mut triangles = 0;
    for (m, tris) in topo.iter().enumerate() {
        let n = anim.frame(0)[m].len();
        for t in tris {
            assert!(
                t.iter().all(|&i| (i as usize) < n),
                "mesh {m}: index out of range"
            );
            assert!(
                t[0] != t[1] && t[1] != t[2] && t[0] != t[2],
                "mesh {m}: repeated index"
            );
        }
        triangles += tris.len();
    }
    for &k in frames {
        let f = anim.frame(k);
        assert_eq!(f.len(), topo.len());
        for (m, xs) in f.iter().enumerate() {
            assert_eq!(xs.len(), anim.frame(0)[m].len(), "frame {k} mesh {m}");
            assert!(
                xs.iter().all(|p| p.is_finite()),
                "frame {k} mesh {m}: non-finite"
            );
        }
    }
    triangles
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Euler characteristic of a closed genus-0 triangle mesh: V − E + F = 2, i.e. every
    /// edge is shared by exactly two triangles and F = 2V − 4.
    fn closed_sphere(v: &[DVec3], t: &[[u32; 3]]) {
        let mut edges = std::collections::HashMap::new();
        for tri in t {
            for k in 0..3 {
                let (a, b) = (tri[k], tri[(k + 1) % 3]);
                *edges.entry((a.min(b), a.max(b))).or_insert(0) += 1;
            }
        }
        assert!(edges.values().all(|&c| c == 2));
        assert_eq!(t.len(), 2 * v.len() - 4);
        // outward winding: signed volume positive
        let vol: f64 = t
            .iter()
            .map(|&[a, b, c]| v[a as usize].dot(v[b as usize].cross(v[c as usize])) / 6.0)
            .sum();
        assert!(vol > 0.0, "volume {vol}");
    }

    #[test]
    fn primitives_are_closed_and_outward() {
        let (v, t) = uv_sphere(16, 16);
        assert_eq!((v.len(), t.len()), (242, 480));
        closed_sphere(&v, &t);
        let (v, t) = icosphere(3);
        assert_eq!((v.len(), t.len()), (642, 1280));
        closed_sphere(&v, &t);
        let (v, t) = cylinder(124, 1.0, -1.0, 1.0);
        assert_eq!((v.len(), t.len()), (250, 496));
        closed_sphere(&v, &t);
        assert_eq!(grid_triangles(3, 4).len(), 24);
    }
}
