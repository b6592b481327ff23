//! [`DeformingMesh`]: a triangle mesh whose vertices move linearly from one pose to another.

use ccd_distance::MAX_COORDINATE;
use ccd_geometry::glam::DVec3;

use crate::LaError;

/// A triangle mesh deforming over normalized time `t ∈ [0, 1]`: vertex `i` moves on the
/// straight line from `x0[i]` to `x1[i]` (the LA paper's linear interpolation between two
/// simulation frames). Topology is fixed.
///
/// Geometrically degenerate triangles are accepted (cloth can fold flat); a triangle that
/// repeats a vertex index is rejected.
///
/// # Example
/// ```
/// use ccd_la_deformable::DeformingMesh;
/// use ccd_geometry::glam::DVec3;
///
/// let x0 = vec![DVec3::ZERO, DVec3::X, DVec3::Y];
/// let x1: Vec<DVec3> = x0.iter().map(|p| *p + DVec3::Z).collect();
/// let mesh = DeformingMesh::new(vec![[0, 1, 2]], x0, x1)?;
/// assert_eq!(mesh.position_at(1, 0.5), DVec3::new(1.0, 0.0, 0.5));
///
/// // mismatched poses are an error, not a panic
/// assert!(DeformingMesh::new(vec![[0, 1, 2]], vec![DVec3::ZERO; 3], vec![DVec3::ZERO; 2]).is_err());
/// # Ok::<(), ccd_la_deformable::LaError>(())
/// ```
#[derive(Debug, Clone)]
pub struct DeformingMesh {
    triangles: Vec<[u32; 3]>,
    x0: Vec<DVec3>,
    x1: Vec<DVec3>,
    /// Feature ownership per triangle: bit `k` (0..3) set when the triangle owns its vertex
    /// `k`, bit `3 + k` when it owns its edge `(k, k + 1 mod 3)`.
    owned: Vec<u8>,
}

/// Ownership bit of a triangle's vertex `k` in [`DeformingMesh::owned_features`].
pub const OWN_VERTEX: [u8; 3] = [1, 2, 4];
/// Ownership bit of a triangle's edge `(k, k + 1 mod 3)` in [`DeformingMesh::owned_features`].
pub const OWN_EDGE: [u8; 3] = [8, 16, 32];

impl DeformingMesh {
    /// Builds a deforming mesh from its triangles and its vertex positions at `t = 0` and
    /// `t = 1`.
    ///
    /// # Errors
    /// [`LaError::VertexCountMismatch`], [`LaError::NonFiniteVertex`],
    /// [`LaError::CoordinateOutOfRange`] (a coordinate beyond
    /// [`MAX_COORDINATE`](ccd_distance::MAX_COORDINATE), the domain of the kernels and the
    /// scene queries), [`LaError::IndexOutOfRange`], [`LaError::RepeatedIndex`] or
    /// [`LaError::TooManyVertices`].
    pub fn new(triangles: Vec<[u32; 3]>, x0: Vec<DVec3>, x1: Vec<DVec3>) -> Result<Self, LaError> {
        if x0.len() != x1.len() {
            return Err(LaError::VertexCountMismatch {
                t0: x0.len(),
                t1: x1.len(),
            });
        }
        if u32::try_from(x0.len()).is_err() {
            return Err(LaError::TooManyVertices(x0.len()));
        }
        check_positions(&x0, &x1)?;
        let count = x0.len();
        for (triangle, t) in triangles.iter().enumerate() {
            for (k, &index) in t.iter().enumerate() {
                if index as usize >= count {
                    return Err(LaError::IndexOutOfRange {
                        triangle,
                        index,
                        count,
                    });
                }
                if t[(k + 1) % 3] == index {
                    return Err(LaError::RepeatedIndex { triangle, index });
                }
            }
        }
        let owned = ownership(&triangles, count);
        Ok(Self {
            triangles,
            x0,
            x1,
            owned,
        })
    }

    /// Replaces the vertex positions (a new frame pair of the same topology).
    ///
    /// # Errors
    /// [`LaError::VertexCountMismatch`] (either array differs from the mesh's vertex count),
    /// [`LaError::NonFiniteVertex`] or [`LaError::CoordinateOutOfRange`]; the mesh is
    /// unchanged on error.
    pub fn set_positions(&mut self, x0: Vec<DVec3>, x1: Vec<DVec3>) -> Result<(), LaError> {
        for xs in [&x0, &x1] {
            if xs.len() != self.x0.len() {
                return Err(LaError::VertexCountMismatch {
                    t0: self.x0.len(),
                    t1: xs.len(),
                });
            }
        }
        check_positions(&x0, &x1)?;
        self.x0 = x0;
        self.x1 = x1;
        Ok(())
    }

    /// Feature ownership of triangle `t` (bits [`OWN_VERTEX`] and [`OWN_EDGE`]): every vertex
    /// and every edge of the mesh is owned by exactly one of the triangles using it (the
    /// first one in triangle order), so a scene query that tests the vertices a triangle owns
    /// against the other triangle's face, and owned edges against owned edges, runs each
    /// vertex–face and edge–edge pair once.
    ///
    /// # Panics
    /// If `t` is out of range.
    #[inline]
    #[must_use]
    pub fn owned_features(&self, t: usize) -> u8 {
        self.owned[t]
    }

    /// The triangles (indices into the vertex arrays).
    #[inline]
    #[must_use]
    pub fn triangles(&self) -> &[[u32; 3]] {
        &self.triangles
    }

    /// Vertex positions at `t = 0`.
    #[inline]
    #[must_use]
    pub fn x0(&self) -> &[DVec3] {
        &self.x0
    }

    /// Vertex positions at `t = 1`.
    #[inline]
    #[must_use]
    pub fn x1(&self) -> &[DVec3] {
        &self.x1
    }

    /// The largest coordinate magnitude of the vertices at both times (the scale of the
    /// rounding margins).
    #[must_use]
    pub(crate) fn max_abs_coordinate(&self) -> f64 {
        self.x0
            .iter()
            .chain(&self.x1)
            .fold(0.0f64, |m, p| m.max(p.abs().max_element()))
    }

    /// Number of vertices.
    #[inline]
    #[must_use]
    pub fn vertex_count(&self) -> usize {
        self.x0.len()
    }

    /// Number of triangles.
    #[inline]
    #[must_use]
    pub fn triangle_count(&self) -> usize {
        self.triangles.len()
    }

    /// Position of vertex `v` at time `t` (linear interpolation; `t` is not clamped).
    ///
    /// # Panics
    /// If `v` is out of range (an index bug in the caller, not a data error).
    #[inline]
    #[must_use]
    pub fn position_at(&self, v: u32, t: f64) -> DVec3 {
        let (a, b) = (self.x0[v as usize], self.x1[v as usize]);
        a + (b - a) * t
    }
}

/// Checks the positions of a deforming mesh: every coordinate finite and within
/// [`MAX_COORDINATE`] in magnitude (the domain of the kernels, which a scene query runs on
/// its vertices), reporting the first offending vertex.
fn check_positions(x0: &[DVec3], x1: &[DVec3]) -> Result<(), LaError> {
    for (time, xs) in [(0u8, x0), (1u8, x1)] {
        if let Some(vertex) = xs.iter().position(|p| !p.is_finite()) {
            return Err(LaError::NonFiniteVertex { vertex, time });
        }
        if let Some(vertex) = xs
            .iter()
            .position(|p| p.abs().max_element() > MAX_COORDINATE)
        {
            let p = xs[vertex];
            let value = p
                .to_array()
                .into_iter()
                .find(|c| c.abs() > MAX_COORDINATE)
                .unwrap_or(f64::INFINITY);
            return Err(LaError::CoordinateOutOfRange {
                vertex,
                time,
                value,
            });
        }
    }
    Ok(())
}

/// First-use ownership of vertices and edges (see [`DeformingMesh::owned_features`]): the
/// owner of a vertex is the first triangle using it, of an edge the first triangle holding
/// both its ends. Found through each vertex's incident triangles in triangle order (a
/// counting sort), which is linear in the mesh size (indices validated by the caller).
fn ownership(triangles: &[[u32; 3]], vertex_count: usize) -> Vec<u8> {
    let mut owned = vec![0u8; triangles.len()];
    // start[v]..start[v + 1]: the triangles incident to v, ascending
    let mut start = vec![0u32; vertex_count + 1];
    for t in triangles {
        for &v in t {
            start[v as usize + 1] += 1;
        }
    }
    for v in 0..vertex_count {
        start[v + 1] += start[v];
    }
    let mut fill = start.clone();
    let mut incident = vec![0u32; 3 * triangles.len()];
    for (t, tri) in triangles.iter().enumerate() {
        for &v in tri {
            incident[fill[v as usize] as usize] = t as u32;
            fill[v as usize] += 1;
        }
    }
    for (t, tri) in triangles.iter().enumerate() {
        for k in 0..3 {
            let (a, b) = (tri[k] as usize, tri[(k + 1) % 3]);
            let around = &incident[start[a] as usize..start[a + 1] as usize];
            // `t` itself is in the list: the search ends at it at the latest
            if around[0] == t as u32 {
                owned[t] |= OWN_VERTEX[k];
            }
            let first = around
                .iter()
                .find(|&&s| triangles[s as usize].contains(&b))
                .copied();
            if first == Some(t as u32) {
                owned[t] |= OWN_EDGE[k];
            }
        }
    }
    owned
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_bad_input() {
        let x = vec![DVec3::ZERO, DVec3::X, DVec3::Y];
        let tri = vec![[0, 1, 2]];
        assert!(matches!(
            DeformingMesh::new(tri.clone(), x.clone(), x[..2].to_vec()),
            Err(LaError::VertexCountMismatch { t0: 3, t1: 2 })
        ));
        let mut nan = x.clone();
        nan[1].y = f64::NAN;
        assert!(matches!(
            DeformingMesh::new(tri.clone(), x.clone(), nan),
            Err(LaError::NonFiniteVertex { vertex: 1, time: 1 })
        ));
        assert!(matches!(
            DeformingMesh::new(vec![[0, 1, 3]], x.clone(), x.clone()),
            Err(LaError::IndexOutOfRange { index: 3, .. })
        ));
        assert!(matches!(
            DeformingMesh::new(vec![[0, 1, 1]], x.clone(), x.clone()),
            Err(LaError::RepeatedIndex { index: 1, .. })
        ));
        assert!(DeformingMesh::new(tri, x.clone(), x).is_ok());
    }

    #[test]
    fn coordinates_beyond_max_coordinate_are_typed_errors() {
        let tri = vec![[0, 1, 2]];
        let x = vec![DVec3::ZERO, DVec3::X, DVec3::Y];
        // at the bound: accepted, in both poses
        let edge = vec![
            DVec3::ZERO,
            DVec3::X * MAX_COORDINATE,
            DVec3::Y * -MAX_COORDINATE,
        ];
        let mut m = DeformingMesh::new(tri.clone(), edge.clone(), edge.clone()).unwrap();
        // beyond it: the first offending vertex, its pose and its signed coordinate
        let mut far = x.clone();
        far[2].z = -2e100;
        assert_eq!(
            DeformingMesh::new(tri.clone(), x.clone(), far.clone()).unwrap_err(),
            LaError::CoordinateOutOfRange {
                vertex: 2,
                time: 1,
                value: -2e100
            }
        );
        assert_eq!(
            m.set_positions(far.clone(), x.clone()).unwrap_err(),
            LaError::CoordinateOutOfRange {
                vertex: 2,
                time: 0,
                value: -2e100
            }
        );
        // unchanged on error
        assert_eq!(m.x0(), edge.as_slice());
        assert!(m.set_positions(x.clone(), x).is_ok());
    }

    #[test]
    fn every_feature_has_one_owner() {
        // a 3x3 vertex grid, 8 triangles
        let mut tris = Vec::new();
        for i in 0..2u32 {
            for j in 0..2u32 {
                let v = i * 3 + j;
                tris.push([v, v + 1, v + 4]);
                tris.push([v, v + 4, v + 3]);
            }
        }
        let x: Vec<DVec3> = (0..9)
            .map(|k| DVec3::new(f64::from(k % 3), f64::from(k / 3), 0.0))
            .collect();
        let m = DeformingMesh::new(tris.clone(), x.clone(), x).unwrap();
        let mut vertex_owners = [0; 9];
        let mut edge_owners = std::collections::HashMap::new();
        for (t, tri) in tris.iter().enumerate() {
            let o = m.owned_features(t);
            for k in 0..3 {
                if o & OWN_VERTEX[k] != 0 {
                    vertex_owners[tri[k] as usize] += 1;
                }
                let (a, b) = (tri[k], tri[(k + 1) % 3]);
                let e = edge_owners.entry((a.min(b), a.max(b))).or_insert(0);
                if o & OWN_EDGE[k] != 0 {
                    *e += 1;
                }
            }
        }
        assert!(vertex_owners.iter().all(|&c| c == 1));
        assert_eq!(edge_owners.len(), 16);
        assert!(edge_owners.values().all(|&c| c == 1));
    }

    /// The ownership of [`ownership`] against its definition written with a sort, on
    /// random meshes with shared, non-manifold and unused vertices.
    #[test]
    fn ownership_matches_the_first_use_definition() {
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut next = |n: u32| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % u64::from(n)) as u32
        };
        for round in 0..200 {
            let nv = 3 + next(12);
            let nt = 1 + next(3 * nv) as usize;
            let mut tris = Vec::new();
            while tris.len() < nt {
                let t = [next(nv), next(nv), next(nv)];
                if t[0] != t[1] && t[1] != t[2] && t[0] != t[2] {
                    tris.push(t);
                }
            }
            let got = ownership(&tris, nv as usize + round % 3);
            let mut want = vec![0u8; tris.len()];
            let mut seen = std::collections::HashSet::new();
            let mut edges: Vec<(u32, u32, usize, usize)> = Vec::new();
            for (t, tri) in tris.iter().enumerate() {
                for k in 0..3 {
                    if seen.insert(tri[k]) {
                        want[t] |= OWN_VERTEX[k];
                    }
                    let (a, b) = (tri[k], tri[(k + 1) % 3]);
                    edges.push((a.min(b), a.max(b), t, k));
                }
            }
            edges.sort_unstable();
            for (i, e) in edges.iter().enumerate() {
                if i == 0 || (edges[i - 1].0, edges[i - 1].1) != (e.0, e.1) {
                    want[e.2] |= OWN_EDGE[e.3];
                }
            }
            assert_eq!(got, want, "{tris:?}");
        }
    }

    #[test]
    fn set_positions_checks_counts() {
        let x = vec![DVec3::ZERO, DVec3::X, DVec3::Y];
        let mut m = DeformingMesh::new(vec![[0, 1, 2]], x.clone(), x.clone()).unwrap();
        assert!(m.set_positions(x.clone(), x[..2].to_vec()).is_err());
        let mut nan = x.clone();
        nan[0].x = f64::INFINITY;
        assert!(m.set_positions(nan, x.clone()).is_err());
        let moved: Vec<DVec3> = x.iter().map(|p| *p + DVec3::Z).collect();
        m.set_positions(x, moved).unwrap();
        assert_eq!(m.x1()[0], DVec3::Z);
    }
}
