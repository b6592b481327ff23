//! Procedural meshes of the tests and benches: parametric grids and the spheres, terrains and
//! noisy torus built on them.
//!
//! Each builder fixes its vertex order, triangle order and arithmetic, so a fixture is the
//! same mesh, bit for bit, wherever it is built. Where two fixtures sample the same solid
//! differently (the [`uv_sphere`] of the distance tests and the [`rough_sphere`] of the rigid
//! benches, say) both are kept: the cases and answers pinned on them depend on the exact
//! vertices. Boxes are [`TriMesh::cuboid`].

use ccd_geometry::glam::DVec3;
use ccd_geometry::{GeometryError, TriMesh};

use crate::rng::SplitMix64;

/// The seed of [`rough_sphere`]'s radial noise.
pub const ROUGH_SPHERE_SEED: u64 = 0x1234_5678;

/// Which parameter the outer loop of a [`grid`] runs over (the vertex order and the
/// triangle order both follow it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GridOrder {
    /// Vertex `(i, j)` (at `u = i / cells_u`, `v = j / cells_v`) has index
    /// `i · rows_v + j`; cells are visited `u` outer, `v` inner.
    UOuter,
    /// Vertex `(i, j)` has index `j · columns_u + i`; cells are visited `v` outer, `u`
    /// inner.
    VOuter,
}

/// A grid surface over `[0, 1]²` with `cells[0] × cells[1]` cells in `(u, v)`, two triangles
/// a cell, from a parametrisation `f(u, v)`.
///
/// Along an axis with `wrap` set the last column of vertices is the first (`cells` samples,
/// `u = k / cells` for `k < cells`); otherwise there are `cells + 1` samples ending at 1.
/// Cell `(i, j)` gives the triangles `[(i, j), (i+1, j), (i+1, j+1)]` and
/// `[(i, j), (i+1, j+1), (i, j+1)]`. `f` is called once a vertex, in vertex order
/// ([`GridOrder`]), so a stateful `f` (noise) sees the vertices in that order.
///
/// # Errors
/// [`GeometryError::TooManyVertices`] when the vertices or triangles overflow `u32`
/// indices; [`GeometryError::NonFiniteVertex`] when `f` gives a non-finite point.
///
/// # Example
/// ```
/// use ccd_test_support::{GridOrder, grid};
/// use ccd_geometry::glam::DVec3;
///
/// // A closed cylinder side: wraps in u, 8 × 2 cells.
/// let m = grid([8, 2], [true, false], GridOrder::UOuter, |u, v| {
///     let a = std::f64::consts::TAU * u;
///     DVec3::new(a.cos(), a.sin(), v)
/// })?;
/// assert_eq!((m.vertex_count(), m.triangle_count()), (24, 32));
/// # Ok::<(), ccd_geometry::GeometryError>(())
/// ```
pub fn grid(
    cells: [u32; 2],
    wrap: [bool; 2],
    order: GridOrder,
    mut f: impl FnMut(f64, f64) -> DVec3,
) -> Result<TriMesh, GeometryError> {
    let [nu, nv] = cells;
    let samples = |n: u32, wrap: bool| u64::from(n) + u64::from(!wrap);
    let (cols, rows) = (samples(nu, wrap[0]), samples(nv, wrap[1]));
    let count = cols.saturating_mul(rows);
    let tris = u64::from(nu)
        .saturating_mul(u64::from(nv))
        .saturating_mul(2);
    if count >= u64::from(u32::MAX) || tris >= u64::from(u32::MAX) {
        let n = count.max(tris);
        return Err(GeometryError::TooManyVertices(
            usize::try_from(n).unwrap_or(usize::MAX),
        ));
    }
    // Both fit u32 now (a wrapped axis with no cells has no samples and no cells).
    let (cols, rows) = (cols as u32, rows as u32);
    let at = |i: u32, j: u32| (f64::from(i) / f64::from(nu), f64::from(j) / f64::from(nv));
    let mut vertices = Vec::with_capacity(count as usize);
    let mut triangles = Vec::with_capacity(tris as usize);
    let mut cell = |id: &dyn Fn(u32, u32) -> u32, i: u32, j: u32| {
        triangles.push([id(i, j), id(i + 1, j), id(i + 1, j + 1)]);
        triangles.push([id(i, j), id(i + 1, j + 1), id(i, j + 1)]);
    };
    match order {
        GridOrder::UOuter => {
            for i in 0..cols {
                for j in 0..rows {
                    let (u, v) = at(i, j);
                    vertices.push(f(u, v));
                }
            }
            let id = |i: u32, j: u32| (i % cols) * rows + (j % rows);
            for i in 0..nu {
                for j in 0..nv {
                    cell(&id, i, j);
                }
            }
        }
        GridOrder::VOuter => {
            for j in 0..rows {
                for i in 0..cols {
                    let (u, v) = at(i, j);
                    vertices.push(f(u, v));
                }
            }
            let id = |i: u32, j: u32| (j % rows) * cols + (i % cols);
            for j in 0..nv {
                for i in 0..nu {
                    cell(&id, i, j);
                }
            }
        }
    }
    TriMesh::new(vertices, triangles)
}

/// A UV sphere of `radius` about the origin: a [`grid`] of `cells_u × cells_v` cells,
/// wrapping in longitude `u` (`θ = 2π u`), from pole to pole in `v` (`φ = π v`), vertex
/// `(sin φ cos θ, sin φ sin θ, cos φ) · radius`, order [`GridOrder::UOuter`]. Each pole
/// is repeated once a longitude, so the pole cells' triangles are degenerate (zero area).
///
/// # Errors
/// As [`grid`]; a non-finite `radius` gives [`GeometryError::NonFiniteVertex`].
///
/// # Example
/// ```
/// let s = ccd_test_support::uv_sphere(2.0, 12, 8)?;
/// assert_eq!((s.vertex_count(), s.triangle_count()), (12 * 9, 2 * 12 * 8));
/// assert!(s.vertices().iter().all(|p| (p.length() - 2.0).abs() < 1e-12));
/// # Ok::<(), ccd_geometry::GeometryError>(())
/// ```
pub fn uv_sphere(radius: f64, cells_u: u32, cells_v: u32) -> Result<TriMesh, GeometryError> {
    grid(
        [cells_u, cells_v],
        [true, false],
        GridOrder::UOuter,
        |u, v| {
            let (th, ph) = (u * std::f64::consts::TAU, v * std::f64::consts::PI);
            DVec3::new(ph.sin() * th.cos(), ph.sin() * th.sin(), ph.cos()) * radius
        },
    )
}

/// A sphere of `radius` with radial noise: a [`grid`] of `2n × n` cells (longitude
/// `a = 2π u`, colatitude `b = π v`), order [`GridOrder::VOuter`], vertex `k` (from 1, in
/// that order) at radius `r_k = radius (1 + roughness · s_k)` with `s_k` draw `k` of
/// [`SplitMix64::new(ROUGH_SPHERE_SEED)`](SplitMix64)'s [`signed`](SplitMix64::signed)
/// stream, at `(r_k sin b cos a, r_k sin b sin a, r_k cos b)`. Poles are repeated once a
/// longitude (degenerate pole triangles). `4 n²` triangles: `n = 35` gives 4 900, `n = 100`
/// 40 000.
///
/// # Errors
/// As [`grid`].
///
/// # Example
/// ```
/// let s = ccd_test_support::rough_sphere(10, 0.6, 0.02)?;
/// assert_eq!(s.triangle_count(), 400);
/// assert!(s.vertices().iter().all(|p| (p.length() - 0.6).abs() <= 0.6 * 0.02 + 1e-12));
/// # Ok::<(), ccd_geometry::GeometryError>(())
/// ```
pub fn rough_sphere(n: u32, radius: f64, roughness: f64) -> Result<TriMesh, GeometryError> {
    use std::f64::consts::{PI, TAU};
    let Some(cells_u) = n.checked_mul(2) else {
        return Err(GeometryError::TooManyVertices(usize::MAX));
    };
    let mut noise = SplitMix64::new(ROUGH_SPHERE_SEED);
    grid([cells_u, n], [true, false], GridOrder::VOuter, |u, v| {
        let (a, b) = (TAU * u, PI * v);
        let rr = radius * (1.0 + roughness * noise.signed());
        DVec3::new(rr * b.sin() * a.cos(), rr * b.sin() * a.sin(), rr * b.cos())
    })
}

/// A closed sphere with one vertex at each pole (`±radius` on z) and `n - 1` rings of `2n`
/// vertices between them (`4 n (n - 1)` triangles, outward), ring vertex `k` (from 0, ring
/// by ring from the north pole) at radius `radius (1 + roughness · noise[k mod len])`, at
/// colatitude `π i / n` and longitude `2π j / 2n`. With noise the mesh is slightly
/// non-convex: the "blob" of the rigid CA tests.
///
/// # Errors
/// [`GeometryError::InvalidPrimitive`] when `n < 2` or `noise` is empty; as [`grid`] for
/// the sizes and non-finite vertices.
///
/// # Example
/// ```
/// let b = ccd_test_support::blob(1.0, 4, 0.2, &[0.5, -0.5])?;
/// assert_eq!((b.vertex_count(), b.triangle_count()), (26, 48));
/// assert_eq!(b.edges().len(), 72); // closed: every edge has two triangles
/// # Ok::<(), ccd_geometry::GeometryError>(())
/// ```
pub fn blob(radius: f64, n: u32, roughness: f64, noise: &[f64]) -> Result<TriMesh, GeometryError> {
    if n < 2 || noise.is_empty() {
        return Err(GeometryError::InvalidPrimitive {
            shape: "blob",
            reason: format!(
                "needs n >= 2 and some noise, got n = {n} and {} noise values",
                noise.len()
            ),
        });
    }
    if u64::from(n).pow(2).saturating_mul(4) >= u64::from(u32::MAX) {
        return Err(GeometryError::TooManyVertices(usize::MAX));
    }
    let (rings, segs) = (n as usize, 2 * n as usize);
    let mut v = vec![DVec3::new(0.0, 0.0, radius)];
    let mut k = 0;
    for i in 1..rings {
        let th = std::f64::consts::PI * i as f64 / rings as f64;
        for j in 0..segs {
            let ph = std::f64::consts::TAU * j as f64 / segs as f64;
            let r = radius * (1.0 + roughness * noise[k % noise.len()]);
            k += 1;
            v.push(DVec3::new(
                r * th.sin() * ph.cos(),
                r * th.sin() * ph.sin(),
                r * th.cos(),
            ));
        }
    }
    v.push(DVec3::new(0.0, 0.0, -radius));
    let idx = |i: usize, j: usize| (1 + (i - 1) * segs + j % segs) as u32;
    let last = (v.len() - 1) as u32;
    let mut t = Vec::with_capacity(2 * segs * (rings - 1));
    for j in 0..segs {
        t.push([0, idx(1, j), idx(1, j + 1)]);
        t.push([last, idx(rings - 1, j + 1), idx(rings - 1, j)]);
    }
    for i in 1..rings - 1 {
        for j in 0..segs {
            t.push([idx(i, j), idx(i + 1, j), idx(i + 1, j + 1)]);
            t.push([idx(i, j), idx(i + 1, j + 1), idx(i, j + 1)]);
        }
    }
    TriMesh::new(v, t)
}

/// A smooth wavy height field over `[-10, 10]²`: a [`grid`] of `n × n` cells wrapping in
/// `u` (as the sphere grid of the rigid benches does), order [`GridOrder::VOuter`], vertex
/// `(x, y, 0.3 sin(0.7 x) cos(0.5 y))` with `x = 20u - 10`, `y = 20v - 10`. The samples in
/// x stop at `10 - 20 / n` and the last column of cells joins them back to `x = -10`: a
/// strip of long triangles spanning the field. `2 n²`
/// triangles (`n = 224` gives 100 352), `n (n + 1)` vertices.
///
/// # Errors
/// As [`grid`].
///
/// # Example
/// ```
/// let t = ccd_test_support::wavy_terrain(16)?;
/// assert_eq!((t.vertex_count(), t.triangle_count()), (16 * 17, 2 * 16 * 16));
/// assert!(t.vertices().iter().all(|p| p.z.abs() <= 0.3));
/// # Ok::<(), ccd_geometry::GeometryError>(())
/// ```
pub fn wavy_terrain(n: u32) -> Result<TriMesh, GeometryError> {
    grid([n, n], [true, false], GridOrder::VOuter, |u, v| {
        let (x, y) = (20.0 * u - 10.0, 20.0 * v - 10.0);
        DVec3::new(x, y, 0.3 * (0.7 * x).sin() * (0.5 * y).cos())
    })
}

/// A noisy height field over `[-1, 1]²`: a [`grid`] of `n × n` cells, order
/// [`GridOrder::UOuter`], vertex `(i, j)` at
/// `(2u - 1, 2v - 1, amplitude (h_ij - 0.5) + 0.2 sin(3u))` with `h` the first `(n + 1)²`
/// [`unit`](SplitMix64::unit) draws of [`SplitMix64::new(seed)`](SplitMix64), row `i` by
/// row.
///
/// # Errors
/// As [`grid`].
///
/// # Example
/// ```
/// let t = ccd_test_support::noisy_terrain(8, 0.4, 1)?;
/// assert_eq!(t.triangle_count(), 128);
/// assert!(t.vertices().iter().all(|p| p.z.abs() <= 0.2 + 0.2));
/// # Ok::<(), ccd_geometry::GeometryError>(())
/// ```
pub fn noisy_terrain(n: u32, amplitude: f64, seed: u64) -> Result<TriMesh, GeometryError> {
    let side = u64::from(n) + 1;
    if side.saturating_mul(side) >= u64::from(u32::MAX) {
        return Err(GeometryError::TooManyVertices(usize::MAX));
    }
    let mut s = SplitMix64::new(seed);
    let heights: Vec<f64> = (0..side * side).map(|_| s.unit()).collect();
    grid([n, n], [false, false], GridOrder::UOuter, |u, v| {
        let (i, j) = (
            (u * f64::from(n)).round() as u64,
            (v * f64::from(n)).round() as u64,
        );
        let h = heights[(i * side + j) as usize] - 0.5;
        DVec3::new(
            2.0 * u - 1.0,
            2.0 * v - 1.0,
            amplitude * h + 0.2 * (3.0 * u).sin(),
        )
    })
}

/// A ring torus about z (major radius 1, minor radius 0.3) with radial noise: a [`grid`]
/// of `cells_u × cells_v` cells wrapping both ways, order [`GridOrder::UOuter`], vertex `k`
/// (in that order) at tube radius `r_k = 0.3 (1 + 0.02 (u_k - 0.5))` with `u_k` draw `k`
/// of [`SplitMix64::new(seed)`](SplitMix64)'s [`unit`](SplitMix64::unit) stream, at
/// `((1 + r_k cos w) cos u, (1 + r_k cos w) sin u, r_k sin w)` for `u = 2π i / cells_u`,
/// `w = 2π j / cells_v`. `2 cells_u cells_v` triangles: `250 × 200` gives 100 000.
///
/// # Errors
/// As [`grid`].
///
/// # Example
/// ```
/// let t = ccd_test_support::noisy_torus(40, 20, 0xC0FFEE)?;
/// assert_eq!((t.vertex_count(), t.triangle_count()), (800, 1600));
/// assert_eq!(t.edges().len(), 2400); // closed
/// # Ok::<(), ccd_geometry::GeometryError>(())
/// ```
pub fn noisy_torus(cells_u: u32, cells_v: u32, seed: u64) -> Result<TriMesh, GeometryError> {
    let mut s = SplitMix64::new(seed);
    grid(
        [cells_u, cells_v],
        [true, true],
        GridOrder::UOuter,
        |u, v| {
            let (u, w) = (u * std::f64::consts::TAU, v * std::f64::consts::TAU);
            let r = 0.3 * (1.0 + 0.02 * (s.unit() - 0.5));
            DVec3::new(
                (1.0 + r * w.cos()) * u.cos(),
                (1.0 + r * w.cos()) * u.sin(),
                r * w.sin(),
            )
        },
    )
}

/// `count` random triangles in the cube `[-1, 1]³`: each a centre `c` and three corners
/// `c + size · q`, every point `2 (x, y, z) - 1` from three [`unit`](SplitMix64::unit)
/// draws of [`SplitMix64::new(seed)`](SplitMix64) (centre, then corners). Triangles share
/// no vertices.
///
/// # Errors
/// [`GeometryError::TooManyVertices`] when `3 · count` overflows `u32` indices.
///
/// # Example
/// ```
/// let s = ccd_test_support::triangle_soup(50, 0.3, 7)?;
/// assert_eq!((s.vertex_count(), s.triangle_count()), (150, 50));
/// # Ok::<(), ccd_geometry::GeometryError>(())
/// ```
pub fn triangle_soup(count: u32, size: f64, seed: u64) -> Result<TriMesh, GeometryError> {
    if u64::from(count) * 3 >= u64::from(u32::MAX) {
        return Err(GeometryError::TooManyVertices(usize::MAX));
    }
    let mut s = SplitMix64::new(seed);
    let mut p = || DVec3::new(s.unit(), s.unit(), s.unit()) * 2.0 - DVec3::ONE;
    let mut verts = Vec::with_capacity(3 * count as usize);
    let mut tris = Vec::with_capacity(count as usize);
    for k in 0..count {
        let c = p();
        for _ in 0..3 {
            let q = c + p() * size;
            verts.push(q);
        }
        tris.push([3 * k, 3 * k + 1, 3 * k + 2]);
    }
    TriMesh::new(verts, tris)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every edge of a closed mesh has exactly two triangles: `E = 3F / 2`.
    fn is_closed(m: &TriMesh) -> bool {
        2 * m.edges().len() == 3 * m.triangle_count()
    }

    #[test]
    fn grid_orders_give_the_same_surface_reindexed() {
        let f = |u: f64, v: f64| DVec3::new(u, v, u * v);
        for wrap in [[false, false], [true, false], [false, true]] {
            let a = grid([5, 3], wrap, GridOrder::UOuter, f).unwrap();
            let b = grid([5, 3], wrap, GridOrder::VOuter, f).unwrap();
            assert_eq!(a.vertex_count(), b.vertex_count());
            let mut ta: Vec<[DVec3; 3]> = a.triangle_iter().map(|t| [t.a, t.b, t.c]).collect();
            let mut tb: Vec<[DVec3; 3]> = b.triangle_iter().map(|t| [t.a, t.b, t.c]).collect();
            let key = |t: &[DVec3; 3]| t.map(|p| p.to_array().map(f64::to_bits));
            ta.sort_by_key(key);
            tb.sort_by_key(key);
            assert_eq!(ta, tb, "{wrap:?}");
        }
    }

    #[test]
    fn wrapped_grids_are_closed_and_stateful_f_sees_vertex_order() {
        let t = noisy_torus(12, 7, 3).unwrap();
        assert!(is_closed(&t));
        assert!(t.degenerate_triangles().is_empty());
        let mut seen = Vec::new();
        grid([3, 2], [false, false], GridOrder::VOuter, |u, v| {
            seen.push((u, v));
            DVec3::new(u, v, 0.0)
        })
        .unwrap();
        assert_eq!(
            seen[..4],
            [(0.0, 0.0), (1.0 / 3.0, 0.0), (2.0 / 3.0, 0.0), (1.0, 0.0)]
        );
    }

    #[test]
    fn spheres_lie_on_their_radius() {
        let s = uv_sphere(1.5, 10, 6).unwrap();
        assert!(
            s.vertices()
                .iter()
                .all(|p| (p.length() - 1.5).abs() < 1e-12)
        );
        let r = rough_sphere(6, 1.0, 0.0).unwrap();
        assert!(
            r.vertices()
                .iter()
                .all(|p| (p.length() - 1.0).abs() < 1e-12)
        );
        let rough = rough_sphere(6, 1.0, 0.1).unwrap();
        assert!(
            rough
                .vertices()
                .iter()
                .any(|p| (p.length() - 1.0).abs() > 1e-3)
        );
        let b = blob(0.7, 5, 0.0, &[0.0]).unwrap();
        assert!(is_closed(&b));
        assert!(b.degenerate_triangles().is_empty());
        assert!(
            b.vertices()
                .iter()
                .all(|p| (p.length() - 0.7).abs() < 1e-12)
        );
        // outward faces
        for t in b.triangle_iter() {
            let c = (t.a + t.b + t.c) / 3.0;
            assert!((t.b - t.a).cross(t.c - t.a).dot(c) > 0.0);
        }
    }

    #[test]
    fn bad_sizes_are_typed_errors() {
        assert!(matches!(
            blob(1.0, 1, 0.2, &[0.0]),
            Err(GeometryError::InvalidPrimitive { shape: "blob", .. })
        ));
        assert!(matches!(
            blob(1.0, 4, 0.2, &[]),
            Err(GeometryError::InvalidPrimitive { shape: "blob", .. })
        ));
        assert!(matches!(
            grid(
                [1 << 16, 1 << 16],
                [false, false],
                GridOrder::UOuter,
                |_, _| DVec3::ZERO
            ),
            Err(GeometryError::TooManyVertices(_))
        ));
        assert!(matches!(
            rough_sphere(u32::MAX, 1.0, 0.0),
            Err(GeometryError::TooManyVertices(_))
        ));
        assert!(matches!(
            uv_sphere(f64::NAN, 4, 4),
            Err(GeometryError::NonFiniteVertex { .. })
        ));
        for n in [u32::MAX, 1 << 20] {
            assert!(matches!(
                grid([n, n], [false, false], GridOrder::VOuter, |_, _| {
                    DVec3::ZERO
                }),
                Err(GeometryError::TooManyVertices(_))
            ));
            assert!(matches!(
                noisy_terrain(n, 0.1, 1),
                Err(GeometryError::TooManyVertices(_))
            ));
            assert!(matches!(
                blob(1.0, n, 0.2, &[0.0]),
                Err(GeometryError::TooManyVertices(_))
            ));
        }
        assert!(matches!(
            triangle_soup(u32::MAX / 2, 0.1, 1),
            Err(GeometryError::TooManyVertices(_))
        ));
        assert!(grid([0, 0], [true, true], GridOrder::VOuter, |_, _| DVec3::ZERO).is_ok());
    }

    #[test]
    fn noisy_fixtures_follow_their_seed() {
        let same = |a: &TriMesh, b: &TriMesh| a.vertices() == b.vertices();
        assert!(same(
            &noisy_terrain(6, 0.4, 1).unwrap(),
            &noisy_terrain(6, 0.4, 1).unwrap()
        ));
        assert!(!same(
            &noisy_terrain(6, 0.4, 1).unwrap(),
            &noisy_terrain(6, 0.4, 2).unwrap()
        ));
        assert!(!same(
            &triangle_soup(9, 0.3, 1).unwrap(),
            &triangle_soup(9, 0.3, 2).unwrap()
        ));
        assert!(!same(
            &noisy_torus(5, 4, 1).unwrap(),
            &noisy_torus(5, 4, 2).unwrap()
        ));
    }
}
