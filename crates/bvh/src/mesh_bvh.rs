//! [`MeshBvh`]: a triangle mesh with a BVH over its triangles.

use ccd_geometry::{Aabb, GeometryError, TriMesh};
use glam::DVec3;

use crate::{BoundingVolume, Bvh, BvhError, BvhOptions, TriangleSoup};

/// A [`TriMesh`] and a [`Bvh`] over its triangles (primitive id = triangle index; every leaf
/// volume encloses its triangles). Immutable after construction: share it as
/// `Arc<MeshBvh<B>>` between bodies, threads and queries; poses are passed per query.
///
/// Empty meshes (no triangles) are rejected with [`BvhError::EmptyMesh`]: a body without
/// triangles has no distance or contact to report, and every query on a `MeshBvh` can then
/// rely on a root node. Degenerate (zero-area) triangles are kept: they still bound contact.
///
/// # Example
/// ```
/// use std::sync::Arc;
/// use ccd_bvh::{BvhOptions, MeshBvh, Rss};
/// use ccd_bvh::geometry::TriMesh;
/// use ccd_bvh::glam::DVec3;
///
/// let mesh = TriMesh::new(
///     vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z],
///     vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
/// )?;
/// let body = Arc::new(MeshBvh::<Rss>::new(mesh, &BvhOptions::default())?);
/// assert_eq!(body.bvh().primitive_count(), body.mesh().triangle_count());
/// # Ok::<(), ccd_bvh::BvhError>(())
/// ```
#[derive(Clone, Debug)]
pub struct MeshBvh<B> {
    mesh: TriMesh,
    bvh: Bvh<B>,
    radius: f64,
}

impl<B: BoundingVolume> MeshBvh<B> {
    /// Builds the BVH over the mesh's triangles.
    ///
    /// # Errors
    /// [`BvhError::EmptyMesh`] for a mesh without triangles; [`BvhError::InvalidOption`] for bad
    /// options.
    pub fn new(mesh: TriMesh, options: &BvhOptions) -> Result<Self, BvhError> {
        if mesh.triangle_count() == 0 {
            return Err(BvhError::EmptyMesh);
        }
        let bvh = Bvh::build(&TriangleSoup::of_mesh(&mesh), options)?;
        let radius = mesh
            .vertices()
            .iter()
            .fold(0.0f64, |m, v| m.max(v.length()));
        Ok(Self { mesh, bvh, radius })
    }

    /// Validates raw vertices and triangles into a [`TriMesh`] and builds the BVH.
    ///
    /// # Errors
    /// [`BvhError::Geometry`] wrapping the [`GeometryError`] of an invalid mesh, then as
    /// [`MeshBvh::new`].
    ///
    /// # Example
    /// ```
    /// use ccd_bvh::{BvhOptions, BvhError, MeshBvh};
    /// use ccd_bvh::geometry::Aabb;
    /// use ccd_bvh::glam::DVec3;
    /// let bad = MeshBvh::<Aabb>::from_parts(vec![DVec3::NAN], vec![[0, 0, 0]], &BvhOptions::default());
    /// assert!(matches!(bad, Err(BvhError::Geometry(_))));
    /// ```
    pub fn from_parts(
        vertices: Vec<DVec3>,
        triangles: Vec<[u32; 3]>,
        options: &BvhOptions,
    ) -> Result<Self, BvhError> {
        let mesh =
            TriMesh::new(vertices, triangles).map_err(|e: GeometryError| BvhError::Geometry(e))?;
        Self::new(mesh, options)
    }
}

impl<B> MeshBvh<B> {
    /// The mesh (local frame).
    #[inline]
    #[must_use]
    pub fn mesh(&self) -> &TriMesh {
        &self.mesh
    }

    /// The BVH over the mesh's triangles (primitive id = triangle index).
    #[inline]
    #[must_use]
    pub fn bvh(&self) -> &Bvh<B> {
        &self.bvh
    }

    /// The largest distance from the local origin to a vertex (the `r_max` of motion bounds
    /// about the origin, docs/architecture.md, "Rigid motion bound").
    #[inline]
    #[must_use]
    pub fn max_radius(&self) -> f64 {
        self.radius
    }

    /// Bounding box of the mesh in its local frame.
    #[inline]
    #[must_use]
    pub fn aabb(&self) -> Aabb {
        self.mesh.aabb()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Rss;

    #[test]
    fn empty_and_invalid_meshes_are_errors() {
        let e = MeshBvh::<Rss>::from_parts(vec![DVec3::ZERO], vec![], &BvhOptions::default())
            .unwrap_err();
        assert!(matches!(e, BvhError::EmptyMesh));
        let e =
            MeshBvh::<Rss>::from_parts(vec![DVec3::ZERO], vec![[0, 1, 0]], &BvhOptions::default())
                .unwrap_err();
        assert!(e.to_string().contains("triangle 0"));
    }

    #[test]
    fn single_and_degenerate_triangles_build() {
        let m = MeshBvh::<Rss>::from_parts(
            vec![DVec3::ZERO, DVec3::X, DVec3::X * 2.0],
            vec![[0, 1, 2], [0, 0, 0]],
            &BvhOptions::default(),
        )
        .unwrap();
        assert_eq!(m.bvh().node_count(), 1);
        assert!((m.max_radius() - 2.0).abs() < 1e-15);
        assert!(
            m.bvh()
                .root()
                .unwrap()
                .bv()
                .contains_point(DVec3::X * 2.0, 1e-12)
        );
    }
}
