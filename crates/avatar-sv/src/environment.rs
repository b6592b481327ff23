//! The static environment: a triangle mesh in world coordinates with an AABB tree.

use std::sync::Arc;

use ccd_bvh::{BvhOptions, MeshBvh};
use ccd_geometry::{Aabb, TriMesh};

use crate::AvatarError;

/// A static triangle mesh in world coordinates and its AABB tree (shared via `Arc`).
///
/// # Example
/// ```
/// use ccd_avatar_sv::Environment;
/// use ccd_geometry::TriMesh;
/// use ccd_geometry::glam::DVec3;
///
/// let floor = TriMesh::new(
///     vec![DVec3::new(-5.0, 0.0, -5.0), DVec3::new(5.0, 0.0, -5.0), DVec3::new(5.0, 0.0, 5.0), DVec3::new(-5.0, 0.0, 5.0)],
///     vec![[0, 2, 1], [0, 3, 2]],
/// )?;
/// let env = Environment::new(floor)?;
/// assert_eq!(env.mesh().triangle_count(), 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Environment {
    bvh: Arc<MeshBvh<Aabb>>,
}

impl Environment {
    /// Builds the AABB tree (leaves of up to 4 triangles) over a world-space mesh.
    ///
    /// # Errors
    /// [`AvatarError::Bvh`] for a mesh without triangles; [`AvatarError::OutOfRange`] for
    /// coordinates beyond [`crate::MAX_COORDINATE`].
    pub fn new(mesh: TriMesh) -> Result<Self, AvatarError> {
        let m = crate::magnitude(&mesh.aabb());
        if m.is_nan() || m > crate::MAX_COORDINATE {
            return Err(AvatarError::OutOfRange {
                what: "the environment mesh".into(),
                magnitude: m,
                limit: crate::MAX_COORDINATE,
            });
        }
        let options = BvhOptions::default().with_leaf_size(4);
        Ok(Self {
            bvh: Arc::new(MeshBvh::new(mesh, &options)?),
        })
    }

    /// An environment over an existing tree.
    ///
    /// # Errors
    /// [`AvatarError::OutOfRange`] for coordinates beyond [`crate::MAX_COORDINATE`].
    pub fn from_mesh_bvh(bvh: Arc<MeshBvh<Aabb>>) -> Result<Self, AvatarError> {
        let m = crate::magnitude(&bvh.aabb());
        if m.is_nan() || m > crate::MAX_COORDINATE {
            return Err(AvatarError::OutOfRange {
                what: "the environment mesh".into(),
                magnitude: m,
                limit: crate::MAX_COORDINATE,
            });
        }
        Ok(Self { bvh })
    }

    /// The mesh.
    #[inline]
    #[must_use]
    pub fn mesh(&self) -> &TriMesh {
        self.bvh.mesh()
    }

    /// The mesh and its tree.
    #[inline]
    #[must_use]
    pub fn mesh_bvh(&self) -> &Arc<MeshBvh<Aabb>> {
        &self.bvh
    }
}
