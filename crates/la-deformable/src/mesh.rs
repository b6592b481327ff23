//! [`DeformingMesh`]: a triangle mesh whose vertices move linearly from one pose to another.

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
}

impl DeformingMesh {
    /// Builds a deforming mesh from its triangles and its vertex positions at `t = 0` and
    /// `t = 1`.
    ///
    /// # Errors
    /// [`LaError::VertexCountMismatch`], [`LaError::NonFiniteVertex`],
    /// [`LaError::IndexOutOfRange`], [`LaError::RepeatedIndex`] or
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
        for (time, xs) in [(0u8, &x0), (1u8, &x1)] {
            if let Some(vertex) = xs.iter().position(|p| !p.is_finite()) {
                return Err(LaError::NonFiniteVertex { vertex, time });
            }
        }
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
        Ok(Self { triangles, x0, x1 })
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
}
