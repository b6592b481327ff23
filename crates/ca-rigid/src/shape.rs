//! The geometry of a rigid body for the shape queries: analytic shapes, convex hulls,
//! triangle meshes and compounds of them ([`Shape`]).
//!
//! `Shape` is an enum, not a trait: the set of shapes is closed (every pair needs its own
//! distance, [`ccd_distance::convex_distance`]), a `match` dispatches without `Box<dyn>` in the
//! inner loop, and a world can store bodies of mixed kinds in one `Vec<Shape>`. Each variant
//! is cheap to clone (meshes, hulls and compounds are `Arc`-shared).

use std::sync::Arc;

use ccd_distance::{Ball, Capsule, ConvexHull, ConvexShape, Cuboid, Cylinder, MAX_COORDINATE};
use ccd_geometry::{Aabb, rigid_inverse};
use glam::{DAffine3, DVec3};

use crate::{CaError, RigidBody};

/// The geometry of a rigid body in its local frame. Build the analytic variants with their
/// validating constructors (`Ball::new`, … report NaN, zero radius and negative extents as
/// [`ShapeError`](ccd_distance::ShapeError)).
///
/// ```
/// use std::sync::Arc;
/// use ccd_ca_rigid::{Compound, Shape};
/// use ccd_distance::{Ball, Cuboid};
/// use ccd_geometry::glam::{DAffine3, DVec3};
///
/// let ball = Shape::Ball(Ball::new(0.5)?);
/// // (radii are rounded up by a few ulps)
/// assert!((ball.radius_about(DVec3::new(1.0, 0.0, 0.0)) - 1.5).abs() < 1e-12);
/// // a dumbbell: two balls on a bar
/// let bar = Shape::Cuboid(Cuboid::new(DVec3::new(1.0, 0.1, 0.1))?);
/// let dumbbell = Shape::Compound(Arc::new(Compound::new(vec![
///     (DAffine3::IDENTITY, bar),
///     (DAffine3::from_translation(DVec3::X), ball.clone()),
///     (DAffine3::from_translation(-DVec3::X), ball),
/// ])?));
/// assert!((dumbbell.radius_about(DVec3::ZERO) - 1.5).abs() < 1e-12);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub enum Shape {
    /// A ball centred at the origin.
    Ball(Ball),
    /// A capsule (segment + radius).
    Capsule(Capsule),
    /// A box centred at the origin.
    Cuboid(Cuboid),
    /// A cylinder around the local `y` axis.
    Cylinder(Cylinder),
    /// A convex polyhedron.
    ConvexHull(Arc<ConvexHull>),
    /// A triangle mesh (any soup) with its RSS hierarchy.
    Mesh(RigidBody),
    /// Parts at local offsets.
    Compound(Arc<Compound>),
}

/// Shapes at local offsets (rigid transforms from each part's frame to the compound's
/// frame). Nested compounds are flattened on construction, so parts are never compounds;
/// [`ShapeContact::part_a`](crate::ShapeContact::part_a) indexes [`Compound::parts`].
#[derive(Clone, Debug)]
pub struct Compound {
    parts: Vec<(DAffine3, Shape)>,
}

impl Compound {
    /// A compound of the given parts.
    ///
    /// # Errors
    /// [`CaError::InvalidCompound`] for no parts, or an offset that is not finite, not rigid
    /// (rotation to `1e-9`) or beyond [`MAX_COORDINATE`].
    ///
    /// ```
    /// use ccd_ca_rigid::{CaError, Compound, Shape};
    /// use ccd_distance::Ball;
    /// use ccd_geometry::glam::{DAffine3, DVec3};
    /// let ball = Shape::Ball(Ball::new(1.0)?);
    /// assert!(matches!(Compound::new(vec![]), Err(CaError::InvalidCompound { .. })));
    /// let skewed = DAffine3::from_scale(DVec3::splat(2.0));
    /// assert!(matches!(Compound::new(vec![(skewed, ball)]), Err(CaError::InvalidCompound { part: 0, .. })));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(parts: Vec<(DAffine3, Shape)>) -> Result<Self, CaError> {
        if parts.is_empty() {
            return Err(CaError::InvalidCompound {
                part: 0,
                reason: "a compound needs at least one part",
            });
        }
        let mut flat = Vec::with_capacity(parts.len());
        for (i, (offset, shape)) in parts.into_iter().enumerate() {
            let bad = |reason| CaError::InvalidCompound { part: i, reason };
            if !offset.is_finite() {
                return Err(bad("offset is not finite"));
            }
            if offset.translation.abs().max_element() > MAX_COORDINATE {
                return Err(bad("offset translation beyond 1e100"));
            }
            let m = offset.matrix3;
            let g = m.transpose() * m - glam::DMat3::IDENTITY;
            if g.to_cols_array().iter().any(|x| x.abs() > 1e-9) || m.determinant() <= 0.0 {
                return Err(bad("offset is not a rigid transform"));
            }
            match shape {
                Shape::Compound(c) => {
                    flat.extend(c.parts.iter().map(|(o, s)| (offset * *o, s.clone())));
                }
                s => flat.push((offset, s)),
            }
        }
        Ok(Self { parts: flat })
    }

    /// The parts with their offsets.
    #[inline]
    #[must_use]
    pub fn parts(&self) -> &[(DAffine3, Shape)] {
        &self.parts
    }
}

impl Shape {
    /// Largest distance from the local point `c` (e.g. a motion's rotation centre) of a
    /// point of the shape, rounded up: the lever arm of the motion bounds.
    #[must_use]
    pub fn radius_about(&self, c: DVec3) -> f64 {
        let r = match self {
            Shape::Ball(b) => c.length() + b.radius(),
            Shape::Capsule(s) => {
                let g = s.segment();
                (g.a - c).length().max((g.b - c).length()) + s.radius()
            }
            Shape::Compound(k) => k
                .parts
                .iter()
                .map(|(o, s)| s.radius_about(rigid_inverse(o).transform_point3(c)))
                .fold(0.0, f64::max),
            _ => self.core_radius_about(c),
        };
        r * (1.0 + 4.0 * f64::EPSILON)
    }

    /// Largest distance from `c` of a point of the shape's *core* (a ball's centre, a
    /// capsule's segment; the shape itself otherwise), rounded up: the distance of a swept
    /// sphere is its core's minus the radius, so only the core's motion bounds it.
    #[must_use]
    pub(crate) fn core_radius_about(&self, c: DVec3) -> f64 {
        let r = match self {
            Shape::Ball(_) => c.length(),
            Shape::Capsule(s) => {
                let g = s.segment();
                (g.a - c).length().max((g.b - c).length())
            }
            Shape::Cuboid(b) => (c.abs() + b.half_extents()).length(),
            Shape::Cylinder(y) => {
                let radial = (c.x * c.x + c.z * c.z).sqrt() + y.radius();
                let axial = c.y.abs() + y.half_height();
                (radial * radial + axial * axial).sqrt()
            }
            Shape::ConvexHull(h) => h
                .vertices()
                .iter()
                .map(|v| (*v - c).length())
                .fold(0.0, f64::max),
            // the mesh's radius about its origin, plus the lever to c
            Shape::Mesh(m) => m.radius() + c.length(),
            Shape::Compound(_) => return self.radius_about(c),
        };
        r * (1.0 + 4.0 * f64::EPSILON)
    }

    /// The bounding box in the local frame.
    ///
    /// ```
    /// use ccd_ca_rigid::Shape;
    /// use ccd_distance::Cylinder;
    /// use ccd_geometry::glam::DVec3;
    /// let b = Shape::Cylinder(Cylinder::new(2.0, 0.5)?).local_aabb();
    /// assert_eq!((b.min, b.max), (DVec3::new(-0.5, -2.0, -0.5), DVec3::new(0.5, 2.0, 0.5)));
    /// # Ok::<(), ccd_distance::ShapeError>(())
    /// ```
    #[must_use]
    pub fn local_aabb(&self) -> Aabb {
        match self {
            Shape::Ball(b) => Aabb::new(DVec3::splat(-b.radius()), DVec3::splat(b.radius())),
            Shape::Capsule(s) => {
                let g = s.segment();
                let r = DVec3::splat(s.radius());
                Aabb::new(g.a.min(g.b) - r, g.a.max(g.b) + r)
            }
            Shape::Cuboid(b) => Aabb::new(-b.half_extents(), b.half_extents()),
            Shape::Cylinder(y) => {
                let h = DVec3::new(y.radius(), y.half_height(), y.radius());
                Aabb::new(-h, h)
            }
            Shape::ConvexHull(h) => Aabb::from_points(h.vertices().iter().copied()),
            Shape::Mesh(m) => m.mesh_bvh().aabb(),
            Shape::Compound(k) => k.parts.iter().fold(Aabb::EMPTY, |acc, (o, s)| {
                let b = s.local_aabb();
                let corners = (0..8).map(|i| {
                    o.transform_point3(DVec3::new(
                        if i & 1 == 0 { b.min.x } else { b.max.x },
                        if i & 2 == 0 { b.min.y } else { b.max.y },
                        if i & 4 == 0 { b.min.z } else { b.max.z },
                    ))
                });
                acc.merge(Aabb::from_points(corners))
            }),
        }
    }

    /// Largest magnitude of a coordinate of the shape in its local frame (the domain check
    /// of the queries).
    #[must_use]
    pub fn max_abs_coordinate(&self) -> f64 {
        let b = self.local_aabb();
        let m = b.min.abs().max(b.max.abs()).max_element();
        if m.is_finite() { m } else { 0.0 }
    }

    /// The shape as a convex shape, when it is one.
    pub(crate) fn as_convex(&self) -> Option<ConvexShape<'_>> {
        Some(match self {
            Shape::Ball(b) => ConvexShape::Ball(b),
            Shape::Capsule(c) => ConvexShape::Capsule(c),
            Shape::Cuboid(c) => ConvexShape::Cuboid(c),
            Shape::Cylinder(c) => ConvexShape::Cylinder(c),
            Shape::ConvexHull(h) => ConvexShape::Hull(h),
            Shape::Mesh(_) | Shape::Compound(_) => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn radii_cover_sampled_points() {
        let c = DVec3::new(0.3, -0.7, 0.2);
        let cyl = Shape::Cylinder(Cylinder::new(1.0, 0.5).unwrap());
        let cub = Shape::Cuboid(Cuboid::new(DVec3::new(1.0, 0.5, 0.25)).unwrap());
        for k in 0..200 {
            let a = f64::from(k) * 0.37;
            let p = DVec3::new(0.5 * a.cos(), (a * 1.7).sin(), 0.5 * a.sin());
            assert!((p - c).length() <= cyl.radius_about(c));
            let q = DVec3::new(a.cos().signum(), (a * 1.3).sin().signum() * 0.5, 0.25);
            assert!((q - c).length() <= cub.radius_about(c));
        }
    }

    #[test]
    fn nested_compounds_flatten() {
        let ball = Shape::Ball(Ball::new(1.0).unwrap());
        let inner = Compound::new(vec![(DAffine3::from_translation(DVec3::X), ball)]).unwrap();
        let outer = Compound::new(vec![(
            DAffine3::from_translation(DVec3::Y),
            Shape::Compound(Arc::new(inner)),
        )])
        .unwrap();
        assert_eq!(outer.parts().len(), 1);
        assert_eq!(outer.parts()[0].0.translation, DVec3::new(1.0, 1.0, 0.0));
        assert!(matches!(outer.parts()[0].1, Shape::Ball(_)));
    }
}
