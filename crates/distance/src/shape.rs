//! Analytic convex shapes (ball, capsule, cuboid, cylinder) in their local frames, their
//! validation, and the support mappings the shape-pair distances run GJK on.
//!
//! Local frames follow parry's conventions so that the shapes map one to one: a ball and a
//! cuboid are centred at the origin, a cylinder's axis is the local `y` axis, a capsule is a
//! segment `a → b` swept by a sphere.

use ccd_geometry::{Feature, Segment, Triangle};
use glam::DVec3;

use crate::{ConvexHull, MAX_COORDINATE};

/// Invalid parameters of an analytic shape.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ShapeError {
    /// A parameter is NaN or infinite.
    #[error("{what} is not finite")]
    NonFinite {
        /// Which parameter (`"radius"`, `"half extents"`, …).
        what: &'static str,
    },
    /// A radius, half height or half extent is zero or negative.
    #[error("{what} must be positive, got {value}")]
    NonPositive {
        /// Which parameter.
        what: &'static str,
        /// Its value.
        value: f64,
    },
    /// A parameter beyond [`MAX_COORDINATE`](crate::MAX_COORDINATE) (`1e100`) in magnitude.
    #[error("{what} {value:e} is beyond the domain |x| <= 1e100")]
    OutOfDomain {
        /// Which parameter.
        what: &'static str,
        /// Its magnitude.
        value: f64,
    },
}

fn check_positive(what: &'static str, value: f64) -> Result<(), ShapeError> {
    if !value.is_finite() {
        return Err(ShapeError::NonFinite { what });
    }
    if value <= 0.0 {
        return Err(ShapeError::NonPositive { what, value });
    }
    if value > MAX_COORDINATE {
        return Err(ShapeError::OutOfDomain { what, value });
    }
    Ok(())
}

fn check_point(what: &'static str, p: DVec3) -> Result<(), ShapeError> {
    if !p.is_finite() {
        return Err(ShapeError::NonFinite { what });
    }
    let value = p.abs().max_element();
    if value > MAX_COORDINATE {
        return Err(ShapeError::OutOfDomain { what, value });
    }
    Ok(())
}

/// A ball of radius `radius > 0` centred at the local origin. Its only feature is the
/// surface, `Face(0)`.
///
/// ```
/// use ccd_distance::{Ball, ShapeError};
/// assert_eq!(Ball::new(0.5)?.radius(), 0.5);
/// assert!(matches!(Ball::new(0.0), Err(ShapeError::NonPositive { .. })));
/// assert!(matches!(Ball::new(f64::NAN), Err(ShapeError::NonFinite { .. })));
/// # Ok::<(), ShapeError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ball {
    radius: f64,
}

impl Ball {
    /// A ball of the given radius.
    ///
    /// # Errors
    /// [`ShapeError`] for a radius that is not finite, not positive or beyond `1e100`.
    pub fn new(radius: f64) -> Result<Self, ShapeError> {
        check_positive("radius", radius)?;
        Ok(Self { radius })
    }

    /// The radius.
    #[inline]
    #[must_use]
    pub fn radius(&self) -> f64 {
        self.radius
    }
}

/// A capsule: the segment `a → b` (local frame; `a == b` gives a ball) swept by a sphere of
/// radius `radius > 0` — the line-swept sphere of the avatar crate. Features are those of
/// the segment: `Vertex(0)` (the cap around `a`), `Vertex(1)` (around `b`), `Edge(0, 1)`
/// (the side).
///
/// ```
/// use ccd_distance::Capsule;
/// use glam::DVec3;
/// let c = Capsule::new(DVec3::new(0.0, -1.0, 0.0), DVec3::new(0.0, 1.0, 0.0), 0.25)?;
/// assert_eq!(c.segment().b, DVec3::Y);
/// # Ok::<(), ccd_distance::ShapeError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Capsule {
    segment: Segment,
    radius: f64,
}

impl Capsule {
    /// A capsule around the segment `a → b`.
    ///
    /// # Errors
    /// [`ShapeError`] for a non-finite endpoint or radius, a radius that is not positive, or
    /// a value beyond `1e100`.
    pub fn new(a: DVec3, b: DVec3, radius: f64) -> Result<Self, ShapeError> {
        check_point("segment endpoint", a)?;
        check_point("segment endpoint", b)?;
        check_positive("radius", radius)?;
        Ok(Self {
            segment: Segment::new(a, b),
            radius,
        })
    }

    /// A capsule along the local `y` axis from `−half_height` to `half_height` (parry's
    /// `Capsule::new_y`).
    ///
    /// # Errors
    /// As [`Capsule::new`]; a negative half height is [`ShapeError::NonPositive`] (zero is
    /// a ball).
    pub fn new_y(half_height: f64, radius: f64) -> Result<Self, ShapeError> {
        if half_height < 0.0 {
            return Err(ShapeError::NonPositive {
                what: "half height",
                value: half_height,
            });
        }
        Self::new(-DVec3::Y * half_height, DVec3::Y * half_height, radius)
    }

    /// The core segment.
    #[inline]
    #[must_use]
    pub fn segment(&self) -> Segment {
        self.segment
    }

    #[inline]
    pub(crate) fn segment_ref(&self) -> &Segment {
        &self.segment
    }

    /// The radius.
    #[inline]
    #[must_use]
    pub fn radius(&self) -> f64 {
        self.radius
    }
}

/// A box `[-h, h]` (half extents `h > 0` per axis) centred at the local origin. Features:
/// `Vertex(i)` for the corner whose coordinate `k` is `+h_k` when bit `k` of `i` is set,
/// `Edge(i, j)` between two corners, `Face(2k)` for the face `x_k = +h_k` and `Face(2k + 1)`
/// for `x_k = −h_k`.
///
/// ```
/// use ccd_distance::{Cuboid, ShapeError};
/// use glam::DVec3;
/// let c = Cuboid::new(DVec3::new(1.0, 0.5, 0.25))?;
/// assert_eq!(c.half_extents().y, 0.5);
/// assert!(matches!(Cuboid::new(DVec3::new(1.0, -0.5, 0.25)), Err(ShapeError::NonPositive { .. })));
/// # Ok::<(), ShapeError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cuboid {
    half: DVec3,
}

impl Cuboid {
    /// A box with the given half extents.
    ///
    /// # Errors
    /// [`ShapeError`] for a non-finite, non-positive (negative or zero) or too large half
    /// extent.
    pub fn new(half_extents: DVec3) -> Result<Self, ShapeError> {
        for v in half_extents.to_array() {
            check_positive("half extent", v)?;
        }
        Ok(Self { half: half_extents })
    }

    /// The half extents.
    #[inline]
    #[must_use]
    pub fn half_extents(&self) -> DVec3 {
        self.half
    }

    /// The corner `i` (see the type's feature ids).
    #[inline]
    #[must_use]
    pub fn corner(&self, i: u32) -> DVec3 {
        let h = self.half;
        DVec3::new(
            if i & 1 != 0 { h.x } else { -h.x },
            if i & 2 != 0 { h.y } else { -h.y },
            if i & 4 != 0 { h.z } else { -h.z },
        )
    }
}

/// A solid cylinder of radius `radius > 0` around the local `y` axis, from `y = −half_height`
/// to `y = half_height` (parry's convention). Features: `Face(0)` the top cap (`y = +h`),
/// `Face(1)` the bottom cap, `Face(2)` the side, `Edge(0, 2)` and `Edge(1, 2)` the top and
/// bottom rims.
///
/// ```
/// use ccd_distance::Cylinder;
/// let c = Cylinder::new(1.0, 0.5)?;
/// assert_eq!((c.half_height(), c.radius()), (1.0, 0.5));
/// # Ok::<(), ccd_distance::ShapeError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cylinder {
    half_height: f64,
    radius: f64,
}

impl Cylinder {
    /// A cylinder with the given half height and radius.
    ///
    /// # Errors
    /// [`ShapeError`] for a value that is not finite, not positive or beyond `1e100`.
    pub fn new(half_height: f64, radius: f64) -> Result<Self, ShapeError> {
        check_positive("half height", half_height)?;
        check_positive("radius", radius)?;
        Ok(Self {
            half_height,
            radius,
        })
    }

    /// Half the height (along local `y`).
    #[inline]
    #[must_use]
    pub fn half_height(&self) -> f64 {
        self.half_height
    }

    /// The radius.
    #[inline]
    #[must_use]
    pub fn radius(&self) -> f64 {
        self.radius
    }

    /// The feature of a point on (or near) the surface, classified with an absolute
    /// tolerance `tol`.
    #[must_use]
    pub fn feature_of(&self, p: DVec3, tol: f64) -> Feature {
        let rho = (p.x * p.x + p.z * p.z).sqrt();
        let side = rho >= self.radius - tol;
        let cap = if p.y >= self.half_height - tol {
            Some(0)
        } else if p.y <= -self.half_height + tol {
            Some(1)
        } else {
            None
        };
        match (cap, side) {
            (Some(c), true) => Feature::Edge(c, 2),
            (Some(c), false) => Feature::Face(c),
            (None, _) => Feature::Face(2),
        }
    }
}

/// A convex set given by its support mapping, in its local frame: the point `s(d)` of the set
/// farthest along `d` (`d · s(d) = max over the set`) and an id of the vertex it is, when
/// the set is a polytope (equal ids mean equal points; `u32::MAX` for a point of a smooth
/// part). GJK ([`gjk_support`](crate::gjk_support)) needs nothing else.
pub trait SupportMap {
    /// The support point along `dir` (any length; a zero `dir` gives any point of the set)
    /// and its vertex id.
    fn support(&self, dir: DVec3) -> (DVec3, u32);
    /// A point of the set (GJK's start).
    fn center(&self) -> DVec3;
}

impl SupportMap for DVec3 {
    #[inline]
    fn support(&self, _dir: DVec3) -> (DVec3, u32) {
        (*self, 0)
    }
    #[inline]
    fn center(&self) -> DVec3 {
        *self
    }
}

impl SupportMap for Segment {
    #[inline]
    fn support(&self, dir: DVec3) -> (DVec3, u32) {
        if dir.dot(self.b) > dir.dot(self.a) {
            (self.b, 1)
        } else {
            (self.a, 0)
        }
    }
    #[inline]
    fn center(&self) -> DVec3 {
        0.5 * (self.a + self.b)
    }
}

impl SupportMap for Triangle {
    #[inline]
    fn support(&self, dir: DVec3) -> (DVec3, u32) {
        let (da, db, dc) = (dir.dot(self.a), dir.dot(self.b), dir.dot(self.c));
        if da >= db && da >= dc {
            (self.a, 0)
        } else if db >= dc {
            (self.b, 1)
        } else {
            (self.c, 2)
        }
    }
    #[inline]
    fn center(&self) -> DVec3 {
        (self.a + self.b + self.c) / 3.0
    }
}

impl SupportMap for Cuboid {
    #[inline]
    fn support(&self, dir: DVec3) -> (DVec3, u32) {
        let i =
            u32::from(dir.x >= 0.0) | u32::from(dir.y >= 0.0) << 1 | u32::from(dir.z >= 0.0) << 2;
        (self.corner(i), i)
    }
    #[inline]
    fn center(&self) -> DVec3 {
        DVec3::ZERO
    }
}

impl SupportMap for Cylinder {
    #[inline]
    fn support(&self, dir: DVec3) -> (DVec3, u32) {
        let y = if dir.y >= 0.0 {
            self.half_height
        } else {
            -self.half_height
        };
        let rho = (dir.x * dir.x + dir.z * dir.z).sqrt();
        if rho > 0.0 && rho.is_finite() {
            let s = self.radius / rho;
            (DVec3::new(dir.x * s, y, dir.z * s), u32::MAX)
        } else {
            // along the axis: the cap centre (a support point; the whole cap is)
            (DVec3::new(0.0, y, 0.0), u32::MAX)
        }
    }
    #[inline]
    fn center(&self) -> DVec3 {
        DVec3::ZERO
    }
}

impl SupportMap for ConvexHull {
    #[inline]
    fn support(&self, dir: DVec3) -> (DVec3, u32) {
        ConvexHull::support(self, dir)
    }
    #[inline]
    fn center(&self) -> DVec3 {
        self.centroid()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_parameters_are_typed_errors() {
        assert!(matches!(
            Ball::new(-1.0),
            Err(ShapeError::NonPositive { .. })
        ));
        assert!(matches!(
            Ball::new(1e101),
            Err(ShapeError::OutOfDomain { .. })
        ));
        assert!(matches!(
            Capsule::new(DVec3::NAN, DVec3::ZERO, 1.0),
            Err(ShapeError::NonFinite { .. })
        ));
        assert!(matches!(
            Capsule::new(DVec3::ZERO, DVec3::X, 0.0),
            Err(ShapeError::NonPositive { .. })
        ));
        assert!(matches!(
            Capsule::new_y(-1.0, 1.0),
            Err(ShapeError::NonPositive { .. })
        ));
        assert!(matches!(
            Cuboid::new(DVec3::new(1.0, f64::INFINITY, 1.0)),
            Err(ShapeError::NonFinite { .. })
        ));
        assert!(matches!(
            Cylinder::new(1.0, 0.0),
            Err(ShapeError::NonPositive { .. })
        ));
        assert!(matches!(
            Cylinder::new(-1.0, 1.0),
            Err(ShapeError::NonPositive { .. })
        ));
    }

    #[test]
    fn supports_are_extreme() {
        let c = Cylinder::new(1.0, 0.5).unwrap();
        let b = Cuboid::new(DVec3::new(1.0, 2.0, 3.0)).unwrap();
        for k in 0..50 {
            let a = f64::from(k) * 0.7;
            let d = DVec3::new(a.cos(), (1.3 * a).sin(), a.sin() * 0.5);
            let (p, _) = c.support(d);
            for j in 0..64 {
                let phi = f64::from(j) * std::f64::consts::TAU / 64.0;
                for y in [-1.0, 1.0] {
                    let q = DVec3::new(0.5 * phi.cos(), y, 0.5 * phi.sin());
                    assert!(q.dot(d) <= p.dot(d) + 1e-12);
                }
            }
            let (p, i) = b.support(d);
            assert_eq!(p, b.corner(i));
            for j in 0..8 {
                assert!(b.corner(j).dot(d) <= p.dot(d));
            }
        }
    }
}
