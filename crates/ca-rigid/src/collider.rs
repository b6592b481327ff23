//! What a rigid body is made of, for every query of this crate: a mesh, a convex body (a
//! mesh whose hull is the shape), an analytic shape, a hull or a compound, or a polyhedron
//! with its exact mesh ([`Collider`]); [`cast`](crate::cast) takes two of them.

use ccd_bvh::{BvhOptions, MeshBvh, Rss};
use ccd_distance::{ConvexShape, MAX_COORDINATE};
use ccd_geometry::Aabb;
use ccd_geometry::TriMesh;
use ccd_kinematics::RigidMotion;
use glam::DVec3;
use std::borrow::Cow;
use std::sync::Arc;

use crate::convex::time_of_contact_convex_with_stats;
use crate::mesh_mesh::time_of_contact_with_stats;
use crate::shape_ca::time_of_contact_shapes_with_stats;
use crate::{CaError, CaOptions, RigidBody, Shape, ShapeContact, Stats};

/// The shape of a world body, in its local frame (the frame origin is the rotation centre
/// of its motions).
///
/// Pairs dispatch on the two kinds: two [`Convex`](Self::Convex) bodies use the GJK fast
/// path ([`time_of_contact_convex`](crate::time_of_contact_convex)), a [`Mesh`](Self::Mesh) with a mesh or convex body the
/// per-node mesh CA ([`time_of_contact`](crate::time_of_contact)), and any pair with a [`Shape`](Self::Shape) (an
/// analytic shape, a hull or a compound) the shape CA ([`time_of_contact_shapes`](crate::time_of_contact_shapes); a
/// convex body enters it as its hull). A [`Polyhedron`](Self::Polyhedron) (a cuboid) counts
/// as a convex body against meshes and convex bodies, as a shape otherwise.
///
/// ```
/// use std::sync::Arc;
/// use ccd_ca_rigid::{Collider, RigidBody};
/// use ccd_bvh::{BvhOptions, MeshBvh, Rss};
/// use ccd_geometry::{glam::DVec3, TriMesh};
/// let tetra = TriMesh::new(vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z], vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])?;
/// let body = RigidBody::with_hull(Arc::new(MeshBvh::<Rss>::new(tetra, &BvhOptions::default())?))?;
/// let c = Collider::convex(body)?;
/// assert_eq!(c.radius(), 1.0);
/// // an analytic shape
/// let ball = Collider::shape(ccd_ca_rigid::Shape::Ball(ccd_distance::Ball::new(0.5)?))?;
/// assert!((ball.radius() - 0.5).abs() < 1e-12);
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
    /// An analytic shape (ball, capsule, cylinder), a convex hull or a compound (never
    /// [`Shape::Mesh`]: [`Collider::shape`] makes that a [`Mesh`](Self::Mesh), and a
    /// cuboid a [`Polyhedron`](Self::Polyhedron)).
    Shape(Shape),
    /// An analytic polyhedron (a [`Shape::Cuboid`]) with its exact triangle mesh (and hull):
    /// against meshes and convex bodies the pair runs the mesh CA on the mesh (the fast
    /// path for a box under a large mesh; like a [`Convex`](Self::Convex) body), against
    /// analytic shapes and other polyhedra the shape CA on the shape.
    Polyhedron(Shape, RigidBody),
}

impl Collider {
    /// A mesh collider.
    ///
    /// # Errors
    /// [`CaError::InvalidCollider`] when the mesh has zero radius about its origin (a point) or
    /// coordinates beyond [`MAX_COORDINATE`].
    pub fn mesh(body: RigidBody) -> Result<Self, CaError> {
        check_body(&body)?;
        Ok(Self::Mesh(body))
    }

    /// A convex collider (its hull is the shape).
    ///
    /// # Errors
    /// As [`Collider::mesh`], and [`CaError::InvalidCollider`] when the body has no hull.
    pub fn convex(body: RigidBody) -> Result<Self, CaError> {
        check_body(&body)?;
        if body.hull().is_none() {
            return Err(CaError::InvalidCollider(
                "a convex collider needs a body built with RigidBody::with_hull",
            ));
        }
        Ok(Self::Convex(body))
    }

    /// A collider of any [`Shape`] (a [`Shape::Mesh`] becomes a [`Mesh`](Self::Mesh)
    /// collider).
    ///
    /// # Errors
    /// [`CaError::InvalidCollider`] for coordinates beyond [`MAX_COORDINATE`], an empty or
    /// non-finite bounding box, or zero radius about the origin (shapes are otherwise
    /// validated by their constructors: `Ball::new`, … and `Compound::new`).
    ///
    /// ```
    /// use ccd_ca_rigid::{Collider, Shape};
    /// use ccd_distance::{Capsule, Cuboid};
    /// use ccd_geometry::glam::DVec3;
    /// let capsule = Collider::shape(Shape::Capsule(Capsule::new_y(0.5, 0.2)?))?;
    /// assert!(capsule.body().is_none());
    /// // a cuboid keeps its exact triangle mesh for the pairs with meshes
    /// let cuboid = Collider::shape(Shape::Cuboid(Cuboid::new(DVec3::ONE)?))?;
    /// assert_eq!(cuboid.body().map(|b| b.mesh_bvh().mesh().triangles().len()), Some(12));
    /// let b = Collider::shape(Shape::Cuboid(Cuboid::new(DVec3::new(1.0, 2.0, 3.0))?))?.local_aabb();
    /// assert_eq!(b.max, DVec3::new(1.0, 2.0, 3.0));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn shape(shape: Shape) -> Result<Self, CaError> {
        let shape = match shape {
            Shape::Mesh(body) => return Self::mesh(body),
            Shape::Cuboid(c) => {
                let body = cuboid_body(c.half_extents())?;
                check_body(&body)?;
                return Ok(Self::Polyhedron(Shape::Cuboid(c), body));
            }
            s => s,
        };
        let b = shape.local_aabb();
        if !(b.min.is_finite() && b.max.is_finite()) || b.min.cmpgt(b.max).any() {
            return Err(CaError::InvalidCollider(
                "the shape has an empty bounding box",
            ));
        }
        if shape.max_abs_coordinate() > MAX_COORDINATE {
            return Err(CaError::InvalidCollider(
                "vertex coordinates must be finite and within 1e100",
            ));
        }
        let r = shape.radius_about(DVec3::ZERO);
        if !(r.is_finite() && r > 0.0) {
            return Err(CaError::InvalidCollider(
                "the shape has zero radius about its origin (a single point)",
            ));
        }
        Ok(Self::Shape(shape))
    }

    /// The underlying mesh body (`None` for a [`Shape`](Self::Shape) collider).
    #[inline]
    #[must_use]
    pub fn body(&self) -> Option<&RigidBody> {
        match self {
            Self::Mesh(b) | Self::Convex(b) | Self::Polyhedron(_, b) => Some(b),
            Self::Shape(_) => None,
        }
    }

    /// The collider as a [`Shape`] (a convex body as its hull; cheap: shared handles).
    #[must_use]
    pub fn to_shape(&self) -> Shape {
        match self {
            Self::Mesh(b) => Shape::Mesh(b.clone()),
            Self::Convex(b) => b
                .shared_hull()
                .map_or_else(|| Shape::Mesh(b.clone()), |h| Shape::ConvexHull(h.clone())),
            Self::Shape(s) | Self::Polyhedron(s, _) => s.clone(),
        }
    }

    /// [`to_shape`](Self::to_shape) without a copy where the collider holds its shape.
    fn as_shape(&self) -> Cow<'_, Shape> {
        match self {
            Self::Shape(s) | Self::Polyhedron(s, _) => Cow::Borrowed(s),
            _ => Cow::Owned(self.to_shape()),
        }
    }

    /// A convex set containing the collider (its shape, or a mesh body's hull), for
    /// distance lower bounds (a world's scheduler); `None` for a mesh without hull or a compound.
    pub fn convex_bound(&self) -> Option<ConvexShape<'_>> {
        Some(match self {
            Self::Mesh(b) | Self::Convex(b) => ConvexShape::Hull(b.hull()?),
            Self::Shape(s) | Self::Polyhedron(s, _) => match s {
                Shape::Ball(x) => ConvexShape::Ball(x),
                Shape::Capsule(x) => ConvexShape::Capsule(x),
                Shape::Cuboid(x) => ConvexShape::Cuboid(x),
                Shape::Cylinder(x) => ConvexShape::Cylinder(x),
                Shape::ConvexHull(h) => ConvexShape::Hull(h),
                _ => return None,
            },
        })
    }

    /// Largest distance of a point of the shape from the local origin (rounded up for
    /// shapes).
    #[inline]
    #[must_use]
    pub fn radius(&self) -> f64 {
        match self {
            Self::Mesh(b) | Self::Convex(b) => b.radius(),
            Self::Shape(s) | Self::Polyhedron(s, _) => s.radius_about(DVec3::ZERO),
        }
    }

    /// The local bounding box.
    #[inline]
    #[must_use]
    pub fn local_aabb(&self) -> Aabb {
        match self {
            Self::Mesh(b) | Self::Convex(b) => b.mesh_bvh().aabb(),
            Self::Shape(s) | Self::Polyhedron(s, _) => s.local_aabb(),
        }
    }

    /// The first time of contact of this collider under `motion` with `other` under
    /// `other_motion` over the whole step, with the query's counters whatever its answer:
    /// what [`cast`](crate::cast) answers for a [`RigidPair`](crate::RigidPair) with
    /// plain options (contacts of mesh and convex bodies have parts 0).
    ///
    /// # Errors
    /// The [`CaError`]s of the per-pair queries.
    pub(crate) fn rigid_cast(
        &self,
        motion: &RigidMotion,
        other: &Self,
        other_motion: &RigidMotion,
        opts: &CaOptions,
    ) -> Result<(Option<ShapeContact>, Stats), CaError> {
        let (c, stats) = match (self, other) {
            (Self::Polyhedron(..), Self::Polyhedron(..)) => {
                return time_of_contact_shapes_with_stats(
                    &self.as_shape(),
                    motion,
                    &other.as_shape(),
                    other_motion,
                    opts,
                );
            }
            (
                Self::Convex(a) | Self::Polyhedron(_, a),
                Self::Convex(b) | Self::Polyhedron(_, b),
            ) => time_of_contact_convex_with_stats(a, motion, b, other_motion, opts)?,
            (
                Self::Mesh(a) | Self::Convex(a) | Self::Polyhedron(_, a),
                Self::Mesh(b) | Self::Convex(b) | Self::Polyhedron(_, b),
            ) => time_of_contact_with_stats(a, motion, b, other_motion, opts)?,
            _ => {
                return time_of_contact_shapes_with_stats(
                    &self.as_shape(),
                    motion,
                    &other.as_shape(),
                    other_motion,
                    opts,
                );
            }
        };
        Ok((c.map(ShapeContact::from), stats))
    }
}

/// The exact triangle mesh of a box with half extents `h` (and its hull).
fn cuboid_body(h: DVec3) -> Result<RigidBody, CaError> {
    let bad = |_| CaError::InvalidCollider("the cuboid's mesh could not be built");
    let mesh = TriMesh::cuboid(-h, h).map_err(|e| bad(e.to_string()))?;
    let tree = MeshBvh::<Rss>::new(mesh, &BvhOptions::default()).map_err(|e| bad(e.to_string()))?;
    RigidBody::with_hull(Arc::new(tree)).map_err(|e| bad(e.to_string()))
}

fn check_body(body: &RigidBody) -> Result<(), CaError> {
    let r = body.radius();
    if !(r.is_finite() && body.max_abs_coordinate() <= MAX_COORDINATE) {
        return Err(CaError::InvalidCollider(
            "vertex coordinates must be finite and within 1e100",
        ));
    }
    if r <= 0.0 {
        return Err(CaError::InvalidCollider(
            "the shape has zero radius about its origin (a single point)",
        ));
    }
    let b = body.mesh_bvh().aabb();
    if !(b.min.is_finite() && b.max.is_finite()) || b.min.cmpgt(b.max).any() {
        return Err(CaError::InvalidCollider(
            "the shape has an empty bounding box",
        ));
    }
    Ok(())
}
