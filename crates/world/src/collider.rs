//! What a world body is made of: a shape with its per-pair TOC query.

use ccd_ca_rigid::{
    CaError, CaOptions, Contact, RigidBody, time_of_contact, time_of_contact_convex,
};
use ccd_distance::MAX_COORDINATE;
use ccd_geometry::Aabb;
use ccd_kinematics::RigidMotion;

use crate::WorldError;

/// The shape of a world body, in its local frame (the frame origin is the rotation centre
/// of its motions).
///
/// Pairs dispatch on the two kinds: two [`Convex`](Self::Convex) bodies use the GJK fast
/// path ([`time_of_contact_convex`]), any pair with a [`Mesh`](Self::Mesh) the per-node
/// mesh CA ([`time_of_contact`]). More kinds (analytic shapes) join as variants.
///
/// ```
/// use std::sync::Arc;
/// use ccd_world::Collider;
/// use ccd_ca_rigid::RigidBody;
/// use ccd_bvh::{BvhOptions, MeshBvh, Rss};
/// use ccd_geometry::{glam::DVec3, TriMesh};
/// let tetra = TriMesh::new(vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z], vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])?;
/// let body = RigidBody::with_hull(Arc::new(MeshBvh::<Rss>::new(tetra, &BvhOptions::default())?))?;
/// let c = Collider::convex(body)?;
/// assert_eq!(c.radius(), 1.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum Collider {
    /// A triangle soup (not necessarily closed or convex); its hull, when the body carries
    /// one, tightens the scheduler's distance bounds.
    Mesh(RigidBody),
    /// A convex body: the hull of the mesh is the shape (built with
    /// [`RigidBody::with_hull`]).
    Convex(RigidBody),
}

impl Collider {
    /// A mesh collider.
    ///
    /// # Errors
    /// [`WorldError::BadShape`] when the mesh has zero radius about its origin (a point) or
    /// coordinates beyond [`MAX_COORDINATE`].
    pub fn mesh(body: RigidBody) -> Result<Self, WorldError> {
        check_body(&body)?;
        Ok(Self::Mesh(body))
    }

    /// A convex collider (its hull is the shape).
    ///
    /// # Errors
    /// As [`Collider::mesh`], and [`WorldError::BadShape`] when the body has no hull.
    pub fn convex(body: RigidBody) -> Result<Self, WorldError> {
        check_body(&body)?;
        if body.hull().is_none() {
            return Err(WorldError::BadShape(
                "a convex collider needs a body built with RigidBody::with_hull",
            ));
        }
        Ok(Self::Convex(body))
    }

    /// The underlying body.
    #[inline]
    #[must_use]
    pub fn body(&self) -> &RigidBody {
        match self {
            Self::Mesh(b) | Self::Convex(b) => b,
        }
    }

    /// Largest distance of a point of the shape from the local origin.
    #[inline]
    #[must_use]
    pub fn radius(&self) -> f64 {
        self.body().radius()
    }

    /// The local bounding box.
    #[inline]
    #[must_use]
    pub fn local_aabb(&self) -> Aabb {
        self.body().mesh_bvh().aabb()
    }

    /// The first time of contact of this shape under `motion` with `other` under
    /// `other_motion` (the per-pair query the world runs; also its brute-force reference).
    ///
    /// # Errors
    /// The [`CaError`]s of the per-pair queries.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use ccd_world::Collider;
    /// use ccd_ca_rigid::{CaOptions, RigidBody};
    /// use ccd_bvh::{BvhOptions, MeshBvh, Rss};
    /// use ccd_geometry::{glam::{DAffine3, DVec3}, TriMesh};
    /// use ccd_kinematics::RigidMotion;
    /// let tetra = TriMesh::new(vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z], vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])?;
    /// let c = Collider::mesh(RigidBody::new(Arc::new(MeshBvh::<Rss>::new(tetra, &BvhOptions::default())?)))?;
    /// let still = RigidMotion::stationary(DAffine3::IDENTITY)?;
    /// let moving = RigidMotion::between(DAffine3::from_translation(DVec3::new(3.0, 0.0, 0.0)), DAffine3::from_translation(DVec3::new(-1.0, 0.0, 0.0)))?;
    /// let hit = c.time_of_contact(&still, &c, &moving, &CaOptions::default())?.expect("contact");
    /// assert!(hit.toc <= 0.5 && hit.toc > 0.49);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn time_of_contact(
        &self,
        motion: &RigidMotion,
        other: &Self,
        other_motion: &RigidMotion,
        opts: &CaOptions,
    ) -> Result<Option<Contact>, CaError> {
        match (self, other) {
            (Self::Convex(a), Self::Convex(b)) => {
                time_of_contact_convex(a, motion, b, other_motion, opts)
            }
            _ => time_of_contact(self.body(), motion, other.body(), other_motion, opts),
        }
    }
}

fn check_body(body: &RigidBody) -> Result<(), WorldError> {
    let r = body.radius();
    if !(r.is_finite() && body.max_abs_coordinate() <= MAX_COORDINATE) {
        return Err(WorldError::BadShape(
            "vertex coordinates must be finite and within 1e100",
        ));
    }
    if r <= 0.0 {
        return Err(WorldError::BadShape(
            "the shape has zero radius about its origin (a single point)",
        ));
    }
    let b = body.mesh_bvh().aabb();
    if !(b.min.is_finite() && b.max.is_finite()) || b.min.cmpgt(b.max).any() {
        return Err(WorldError::BadShape("the shape has an empty bounding box"));
    }
    Ok(())
}
