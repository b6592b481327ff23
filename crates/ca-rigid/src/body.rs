//! Rigid bodies: a shared mesh with its RSS hierarchy.

use std::sync::Arc;

use ccd_bvh::{MeshBvh, Rss};
use ccd_distance::{ConvexHull, HullError};

use crate::capsule::Capsule;
use ccd_geometry::glam::DVec3;

/// A rigid body for CA queries: an `Arc`-shared mesh and RSS hierarchy in the body's local
/// frame (motions turn about their `local_center`, the frame origin by default).
///
/// ```
/// use std::sync::Arc;
/// use ccd_ca_rigid::RigidBody;
/// use ccd_bvh::{BvhOptions, MeshBvh, Rss};
/// use ccd_geometry::{glam::DVec3, TriMesh};
/// let mesh = TriMesh::new(vec![DVec3::ZERO, DVec3::X, DVec3::Y], vec![[0, 1, 2]])?;
/// let body = RigidBody::new(Arc::new(MeshBvh::<Rss>::new(mesh, &BvhOptions::default())?));
/// assert_eq!(body.radius(), 1.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct RigidBody {
    mesh: Arc<MeshBvh<Rss>>,
    radius: f64,
    /// Largest vertex coordinate magnitude (from the mesh's bounding box).
    max_abs: f64,
    /// Per BVH node: the largest distance from the local origin of a point of its RSS.
    node_radii: Arc<[f64]>,
    hull: Option<Arc<ConvexHull>>,
    /// A capsule holding the hull, when it fits it tightly (the first stage of hull CA).
    capsule: Option<Capsule>,
    /// A hash of the mesh's vertex bits and triangles: orders the bodies of a query
    /// canonically by content (an address would make the answer depend on allocation order).
    fingerprint: u64,
}

/// Largest distance from the local origin of a point of the RSS: at a rectangle corner (the
/// distance is convex) plus the sphere radius, rounded up.
fn rss_radius(r: &Rss) -> f64 {
    let far = r
        .rectangle_corners()
        .iter()
        .fold(0.0f64, |m, c| m.max(c.length()));
    (far + r.radius) * (1.0 + 4.0 * f64::EPSILON)
}

/// FNV-1a over the vertex coordinate bits and the triangle indices (and their counts).
fn fingerprint(vertices: &[DVec3], triangles: &[[u32; 3]]) -> u64 {
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut mix = |x: u64| {
        for byte in x.to_le_bytes() {
            h = (h ^ u64::from(byte)).wrapping_mul(PRIME);
        }
    };
    mix(vertices.len() as u64);
    mix(triangles.len() as u64);
    for v in vertices {
        mix(v.x.to_bits());
        mix(v.y.to_bits());
        mix(v.z.to_bits());
    }
    for t in triangles {
        mix(u64::from(t[0]) | u64::from(t[1]) << 32);
        mix(u64::from(t[2]));
    }
    h
}

impl RigidBody {
    /// A body over a shared mesh hierarchy.
    #[must_use]
    pub fn new(mesh: Arc<MeshBvh<Rss>>) -> Self {
        let radius = mesh.max_radius();
        let bounds = mesh.aabb();
        let max_abs = bounds.min.abs().max(bounds.max.abs()).max_element();
        // (an empty mesh has an inverted, infinite box: nothing to bound)
        let max_abs = if max_abs.is_finite() { max_abs } else { 0.0 };
        let node_radii = mesh
            .bvh()
            .nodes()
            .iter()
            .map(|n| rss_radius(n.bv()))
            .collect();
        let fingerprint = fingerprint(mesh.mesh().vertices(), mesh.mesh().triangles());
        Self {
            mesh,
            radius,
            max_abs,
            node_radii,
            hull: None,
            capsule: None,
            fingerprint,
        }
    }

    /// A body that also carries the convex hull of its vertices (computed once), for the
    /// convex fast path [`time_of_contact_convex`](crate::time_of_contact_convex). Hull
    /// vertex ids map back to mesh vertices through [`ConvexHull::input_indices`].
    ///
    /// # Errors
    /// [`HullError`] when the hull cannot be built (non-finite or out-of-range points).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use ccd_ca_rigid::RigidBody;
    /// use ccd_bvh::{BvhOptions, MeshBvh, Rss};
    /// use ccd_geometry::{glam::DVec3, TriMesh};
    /// let mesh = TriMesh::new(vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z], vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])?;
    /// let body = RigidBody::with_hull(Arc::new(MeshBvh::<Rss>::new(mesh, &BvhOptions::default())?))?;
    /// assert_eq!(body.hull().map(|h| h.vertices().len()), Some(4));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_hull(mesh: Arc<MeshBvh<Rss>>) -> Result<Self, HullError> {
        let hull = ConvexHull::new(mesh.mesh().vertices())?;
        let mut body = Self::new(mesh);
        body.capsule = Capsule::fit(hull.vertices());
        body.hull = Some(Arc::new(hull));
        Ok(body)
    }

    /// The bounding capsule of the hull, when it has a tight one.
    #[inline]
    pub(crate) fn capsule(&self) -> Option<&Capsule> {
        self.capsule.as_ref()
    }

    /// The convex hull, when built with [`RigidBody::with_hull`].
    #[inline]
    #[must_use]
    pub fn hull(&self) -> Option<&ConvexHull> {
        self.hull.as_deref()
    }

    /// The convex hull's shared handle (e.g. for [`Shape::ConvexHull`](crate::Shape)), when
    /// built with [`RigidBody::with_hull`].
    #[inline]
    #[must_use]
    pub fn shared_hull(&self) -> Option<&Arc<ConvexHull>> {
        self.hull.as_ref()
    }

    /// The mesh and its hierarchy.
    #[inline]
    #[must_use]
    pub fn mesh_bvh(&self) -> &MeshBvh<Rss> {
        &self.mesh
    }

    /// A hash of the mesh's vertex coordinates (bits) and triangles, equal for equal meshes.
    #[inline]
    pub(crate) fn fingerprint(&self) -> u64 {
        self.fingerprint
    }

    /// The shared handle.
    #[inline]
    #[must_use]
    pub fn shared(&self) -> &Arc<MeshBvh<Rss>> {
        &self.mesh
    }

    /// Per BVH node (indexed like [`ccd_bvh::Bvh::nodes`]): the largest distance from the
    /// local origin of a point of the node's RSS.
    #[inline]
    pub(crate) fn node_radii(&self) -> &[f64] {
        &self.node_radii
    }

    /// Largest magnitude of a vertex coordinate in the local frame (computed once). The
    /// queries reject a body whose value exceeds
    /// [`MAX_COORDINATE`](ccd_distance::MAX_COORDINATE).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use ccd_ca_rigid::RigidBody;
    /// use ccd_bvh::{BvhOptions, MeshBvh, Rss};
    /// use ccd_geometry::{glam::DVec3, TriMesh};
    /// let mesh = TriMesh::new(vec![DVec3::ZERO, DVec3::X, DVec3::new(0.0, -3.0, 0.5)], vec![[0, 1, 2]])?;
    /// let body = RigidBody::new(Arc::new(MeshBvh::<Rss>::new(mesh, &BvhOptions::default())?));
    /// assert_eq!(body.max_abs_coordinate(), 3.0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    #[must_use]
    pub fn max_abs_coordinate(&self) -> f64 {
        self.max_abs
    }

    /// Largest distance of a vertex from the local origin.
    #[inline]
    #[must_use]
    pub fn radius(&self) -> f64 {
        self.radius
    }
}
