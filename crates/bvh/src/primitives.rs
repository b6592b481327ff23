//! What a [`Bvh`](crate::Bvh) is built over: the [`PrimitiveSet`] trait and its
//! implementations for triangles, boxes, segments and points.

use ccd_geometry::{Aabb, GeometryError, Segment, TriMesh};

use crate::BvhError;
use glam::DVec3;

/// An indexed set of primitives a [`Bvh`](crate::Bvh) can be built over: each primitive has a
/// bounding box (for splitting) and a few points whose convex hull contains it (for fitting
/// any [`BoundingVolume`](crate::BoundingVolume)).
///
/// # Example
/// ```
/// use ccd_bvh::{PrimitiveSet, TriangleSoup};
/// use ccd_bvh::glam::DVec3;
///
/// let vertices = [DVec3::ZERO, DVec3::X, DVec3::Y];
/// let soup = TriangleSoup::new(&vertices, &[[0, 1, 2]]);
/// assert_eq!(soup.len(), 1);
/// let mut pts = Vec::new();
/// soup.push_points(0, &mut pts);
/// assert_eq!(pts.len(), 3);
/// ```
pub trait PrimitiveSet {
    /// Number of primitives.
    fn len(&self) -> usize;

    /// True when there is no primitive.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bounding box of primitive `i` (`i < len()`).
    fn aabb(&self, i: usize) -> Aabb;

    /// Appends to `out` points whose convex hull contains primitive `i`.
    fn push_points(&self, i: usize, out: &mut Vec<DVec3>);

    /// Checks what [`aabb`](Self::aabb) and [`push_points`](Self::push_points) rely on
    /// (e.g. index ranges); builders call it first. Non-finite coordinates are checked by
    /// the builders themselves.
    ///
    /// # Errors
    /// An [`BvhError`] describing the first bad primitive.
    fn validate(&self) -> Result<(), BvhError> {
        Ok(())
    }

    /// For triangles over a shared vertex array (a mesh): that array. Builders then gather
    /// each vertex once per node instead of once per triangle. `None` (the default) for
    /// independent primitives.
    fn shared_vertices(&self) -> Option<&[DVec3]> {
        None
    }

    /// The three indices into [`shared_vertices`](Self::shared_vertices) of primitive `i`
    /// (only called when that returns `Some`; the points of
    /// [`push_points`](Self::push_points) must be these vertices).
    fn vertex_indices(&self, i: usize) -> [u32; 3] {
        let _ = i;
        [0; 3]
    }
}

/// Triangles given by vertex positions and index triples, e.g. the current positions of a
/// deforming mesh. Indices must be in range (a `TriMesh` guarantees it; the BVH builders
/// check it and return an error otherwise).
#[derive(Clone, Copy, Debug)]
pub struct TriangleSoup<'a> {
    /// Vertex positions.
    pub vertices: &'a [DVec3],
    /// Triangles as vertex-index triples.
    pub triangles: &'a [[u32; 3]],
}

impl<'a> TriangleSoup<'a> {
    /// The soup of `triangles` over `vertices`.
    ///
    /// ```
    /// use ccd_bvh::TriangleSoup;
    /// use ccd_bvh::glam::DVec3;
    /// let v = [DVec3::ZERO, DVec3::X, DVec3::Y];
    /// assert_eq!(TriangleSoup::new(&v, &[[0, 1, 2]]).triangles.len(), 1);
    /// ```
    #[inline]
    #[must_use]
    pub const fn new(vertices: &'a [DVec3], triangles: &'a [[u32; 3]]) -> Self {
        Self {
            vertices,
            triangles,
        }
    }

    /// The soup of a mesh's triangles.
    ///
    /// ```
    /// use ccd_bvh::TriangleSoup;
    /// use ccd_bvh::geometry::TriMesh;
    /// use ccd_bvh::glam::DVec3;
    /// let m = TriMesh::new(vec![DVec3::ZERO, DVec3::X, DVec3::Y], vec![[0, 1, 2]])?;
    /// assert_eq!(TriangleSoup::of_mesh(&m).vertices.len(), 3);
    /// # Ok::<(), ccd_bvh::geometry::GeometryError>(())
    /// ```
    #[inline]
    #[must_use]
    pub fn of_mesh(mesh: &'a TriMesh) -> Self {
        Self {
            vertices: mesh.vertices(),
            triangles: mesh.triangles(),
        }
    }
}

impl PrimitiveSet for TriangleSoup<'_> {
    #[inline]
    fn shared_vertices(&self) -> Option<&[DVec3]> {
        Some(self.vertices)
    }

    #[inline]
    fn vertex_indices(&self, i: usize) -> [u32; 3] {
        self.triangles[i]
    }

    fn validate(&self) -> Result<(), BvhError> {
        let n = self.vertices.len();
        if let Some(t) = self
            .triangles
            .iter()
            .position(|t| t.iter().any(|&i| i as usize >= n))
        {
            let vertex = *self.triangles[t]
                .iter()
                .find(|&&i| i as usize >= n)
                .unwrap_or(&0);
            return Err(BvhError::Geometry(GeometryError::IndexOutOfRange {
                triangle: t,
                vertex,
                vertex_count: n,
            }));
        }
        Ok(())
    }

    #[inline]
    fn len(&self) -> usize {
        self.triangles.len()
    }

    #[inline]
    fn aabb(&self, i: usize) -> Aabb {
        let [a, b, c] = self.triangles[i].map(|k| self.vertices[k as usize]);
        Aabb::new(a.min(b).min(c), a.max(b).max(c))
    }

    #[inline]
    fn push_points(&self, i: usize, out: &mut Vec<DVec3>) {
        let [a, b, c] = self.triangles[i].map(|k| self.vertices[k as usize]);
        out.extend_from_slice(&[a, b, c]);
    }
}

impl PrimitiveSet for [Aabb] {
    #[inline]
    fn len(&self) -> usize {
        <[Aabb]>::len(self)
    }

    #[inline]
    fn aabb(&self, i: usize) -> Aabb {
        self[i]
    }

    #[inline]
    fn push_points(&self, i: usize, out: &mut Vec<DVec3>) {
        out.extend_from_slice(&self[i].corners());
    }
}

impl PrimitiveSet for [Segment] {
    #[inline]
    fn len(&self) -> usize {
        <[Segment]>::len(self)
    }

    #[inline]
    fn aabb(&self, i: usize) -> Aabb {
        self[i].aabb()
    }

    #[inline]
    fn push_points(&self, i: usize, out: &mut Vec<DVec3>) {
        out.extend_from_slice(&[self[i].a, self[i].b]);
    }
}

impl PrimitiveSet for [DVec3] {
    #[inline]
    fn len(&self) -> usize {
        <[DVec3]>::len(self)
    }

    #[inline]
    fn aabb(&self, i: usize) -> Aabb {
        Aabb::from_point(self[i])
    }

    #[inline]
    fn push_points(&self, i: usize, out: &mut Vec<DVec3>) {
        out.push(self[i]);
    }
}
