//! Distances between analytic convex shapes (ball, capsule, cuboid, cylinder, convex hull,
//! triangle) with witness points, features and a proven lower bound, one file per shape
//! pair (`ball_cuboid.rs` → [`ball_cuboid`] and its mirror [`cuboid_ball`]).
//!
//! Every pair function takes shape `a` in its local frame (the query frame) and shape `b`
//! placed in it by the rigid transform `pos12` (B's local frame → A's); the answer
//! ([`ShapeDistance`]) is in A's frame. Balls and capsules are a point or a segment (their
//! *core*) swept by a sphere: their distances are the cores' distances minus the radii.
//!
//! Methods: where the cores are points, segments and triangles the exact kernels of this
//! crate give the distance ([`point_segment`](crate::point_segment),
//! [`segment_segment`](crate::segment_segment), [`point_triangle`](crate::point_triangle),
//! [`segment_triangle`](crate::segment_triangle)); a ball against a cuboid or a cylinder is a
//! closed-form projection. Every other pair runs [`gjk_support`](crate::gjk_support) on the
//! cores' support mappings: exact for polytopes (the loop ends when a support point
//! repeats), to a relative `1e-12` for cylinders, and in every case with a proven
//! [`ShapeDistance::lower_bound`] (the separating slab along the returned normal) — the
//! proven-conservative bound that conservative advancement steps with.

mod ball_ball;
mod ball_capsule;
mod ball_cuboid;
mod ball_cylinder;
mod ball_hull;
mod ball_triangle;
mod capsule_capsule;
mod capsule_cuboid;
mod capsule_cylinder;
mod capsule_hull;
mod capsule_triangle;
mod cuboid_cuboid;
mod cuboid_cylinder;
mod cuboid_hull;
mod cuboid_triangle;
mod cylinder_cylinder;
mod cylinder_hull;
mod cylinder_triangle;
mod hull_hull;
mod hull_triangle;

pub use ball_ball::ball_ball;
pub use ball_capsule::{ball_capsule, capsule_ball};
pub use ball_cuboid::{ball_cuboid, cuboid_ball};
pub use ball_cylinder::{ball_cylinder, cylinder_ball};
pub use ball_hull::{ball_hull, hull_ball};
pub use ball_triangle::{ball_triangle, triangle_ball};
pub use capsule_capsule::capsule_capsule;
pub use capsule_cuboid::{capsule_cuboid, cuboid_capsule};
pub use capsule_cylinder::{capsule_cylinder, cylinder_capsule};
pub use capsule_hull::{capsule_hull, hull_capsule};
pub use capsule_triangle::{capsule_triangle, triangle_capsule};
pub use cuboid_cuboid::cuboid_cuboid;
pub use cuboid_cylinder::{cuboid_cylinder, cylinder_cuboid};
pub use cuboid_hull::{cuboid_hull, hull_cuboid};
pub use cuboid_triangle::{cuboid_triangle, triangle_cuboid};
pub use cylinder_cylinder::cylinder_cylinder;
pub use cylinder_hull::{cylinder_hull, hull_cylinder};
pub use cylinder_triangle::{cylinder_triangle, triangle_cylinder};
pub use hull_hull::hull_hull;
pub use hull_triangle::{hull_triangle, triangle_hull};

use ccd_geometry::{Feature, Segment, Triangle, rigid_inverse};
use glam::{DAffine3, DVec3};

use crate::shape::SupportMap;
use crate::{Ball, Capsule, Closest, ConvexHull, Cuboid, Cylinder, gjk_support_within};

/// The distance between two convex shapes, in the frame of shape A.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct ShapeDistance {
    /// The distance (0 when the shapes touch or overlap): exact for the closed-form pairs,
    /// an upper bound within a relative `1e-12` for the GJK pairs.
    pub distance: f64,
    /// A proven lower bound of the distance (up to rounding): the width of a slab
    /// separating the shapes along `normal`. Not positive when they touch or overlap.
    pub lower_bound: f64,
    /// Witness point on A (A's frame); a common point when the shapes overlap.
    pub point_a: DVec3,
    /// Witness point on B (A's frame).
    pub point_b: DVec3,
    /// Unit direction from A to B along which `lower_bound` holds (A's frame); zero when
    /// the cores overlap.
    pub normal: DVec3,
    /// The feature of A carrying `point_a` (ids as documented on each shape type; a ball's
    /// surface is `Face(0)`).
    pub feature_a: Feature,
    /// The feature of B carrying `point_b`.
    pub feature_b: Feature,
}

impl ShapeDistance {
    /// The same answer for the query with A and B exchanged, still in the same frame.
    #[must_use]
    pub fn swapped(self) -> Self {
        Self {
            point_a: self.point_b,
            point_b: self.point_a,
            normal: -self.normal,
            feature_a: self.feature_b,
            feature_b: self.feature_a,
            ..self
        }
    }

    /// The same answer with points and normal mapped by the rigid transform `pose`.
    #[must_use]
    pub fn transformed(self, pose: &DAffine3) -> Self {
        Self {
            point_a: pose.transform_point3(self.point_a),
            point_b: pose.transform_point3(self.point_b),
            normal: pose.matrix3 * self.normal,
            ..self
        }
    }

    /// The answer of the mirrored query: `self` was computed for (B, A) in B's frame, and
    /// `pos12` maps B's frame into A's.
    #[must_use]
    pub(crate) fn mirrored(self, pos12: &DAffine3) -> Self {
        self.swapped().transformed(pos12)
    }
}

/// A shape as a core (a support mapping) swept by a sphere of radius `margin` (zero for
/// the polytopes and the cylinder), with the features of points of the core.
pub(crate) trait Swept {
    type Core: SupportMap + ?Sized;
    fn core(&self) -> &Self::Core;
    fn margin(&self) -> f64;
    /// The feature of the shape whose closest point comes from the core point `p` (local
    /// frame), given the support ids of GJK's final simplex (may be empty).
    fn feature(&self, p: DVec3, ids: &[u32]) -> Feature;
}

const ORIGIN: DVec3 = DVec3::ZERO;

impl Swept for Ball {
    type Core = DVec3;
    fn core(&self) -> &DVec3 {
        &ORIGIN
    }
    fn margin(&self) -> f64 {
        self.radius()
    }
    fn feature(&self, _p: DVec3, _ids: &[u32]) -> Feature {
        Feature::Face(0)
    }
}

impl Swept for Capsule {
    type Core = Segment;
    fn core(&self) -> &Segment {
        self.segment_ref()
    }
    fn margin(&self) -> f64 {
        self.radius()
    }
    fn feature(&self, p: DVec3, _ids: &[u32]) -> Feature {
        crate::point_segment(p, self.segment_ref()).feature_b
    }
}

impl Swept for Cuboid {
    type Core = Cuboid;
    fn core(&self) -> &Cuboid {
        self
    }
    fn margin(&self) -> f64 {
        0.0
    }
    fn feature(&self, p: DVec3, _ids: &[u32]) -> Feature {
        cuboid_feature(self, p)
    }
}

impl Swept for Cylinder {
    type Core = Cylinder;
    fn core(&self) -> &Cylinder {
        self
    }
    fn margin(&self) -> f64 {
        0.0
    }
    fn feature(&self, p: DVec3, _ids: &[u32]) -> Feature {
        self.feature_of(p, 1e-9 * self.half_height().max(self.radius()))
    }
}

impl Swept for Triangle {
    type Core = Triangle;
    fn core(&self) -> &Triangle {
        self
    }
    fn margin(&self) -> f64 {
        0.0
    }
    fn feature(&self, p: DVec3, _ids: &[u32]) -> Feature {
        crate::point_triangle(p, self).feature_b
    }
}

impl Swept for ConvexHull {
    type Core = ConvexHull;
    fn core(&self) -> &ConvexHull {
        self
    }
    fn margin(&self) -> f64 {
        0.0
    }
    fn feature(&self, _p: DVec3, ids: &[u32]) -> Feature {
        let mut distinct = [0u32; 4];
        let mut n = 0;
        for &i in ids {
            if !distinct[..n].contains(&i) {
                distinct[n] = i;
                n += 1;
            }
        }
        match n {
            0 | 1 => Feature::Vertex(distinct[0]),
            2 => Feature::edge(distinct[0], distinct[1]),
            _ => self
                .face_with_vertices(distinct[0], distinct[1], distinct[2])
                .map_or(Feature::Vertex(distinct[0]), Feature::Face),
        }
    }
}

/// The feature of a cuboid's boundary point `p` (local frame), classified with a relative
/// tolerance of `1e-9` (see [`Cuboid`] for the ids); an interior point gives `Face(0)`.
pub(crate) fn cuboid_feature(c: &Cuboid, p: DVec3) -> Feature {
    let h = c.half_extents();
    let tol = 1e-9 * h.max_element();
    let mut on = [false; 3];
    let mut corner = 0u32;
    for k in 0..3 {
        on[k] = p[k].abs() >= h[k] - tol;
        if p[k] > 0.0 {
            corner |= 1 << k;
        }
    }
    match on.iter().filter(|&&x| x).count() {
        3 => Feature::Vertex(corner),
        2 => {
            let free = on.iter().position(|&x| !x).unwrap_or(0);
            let bit = 1u32 << free;
            Feature::edge(corner & !bit, corner | bit)
        }
        1 => {
            let k = on.iter().position(|&x| x).unwrap_or(0);
            Feature::Face(2 * k as u32 + u32::from(p[k] < 0.0))
        }
        _ => Feature::Face(0),
    }
}

/// Combines the cores' closest pair (`pa`, `pb` in A's frame, distance `d`, slab `gap`
/// along unit `n` from A to B) with the radii of the sweeping spheres.
#[allow(clippy::too_many_arguments)]
fn swept(
    d: f64,
    gap: f64,
    pa: DVec3,
    pb: DVec3,
    n: DVec3,
    ra: f64,
    rb: f64,
    feature_a: Feature,
    feature_b: Feature,
) -> ShapeDistance {
    let m = ra + rb;
    if d > m && n != DVec3::ZERO {
        return ShapeDistance {
            distance: d - m,
            lower_bound: gap - m,
            point_a: pa + n * ra,
            point_b: pb - n * rb,
            normal: n,
            feature_a,
            feature_b,
        };
    }
    // overlapping: a point on the cores' segment within ra of pa and rb of pb
    let q = if m > 0.0 && d > 0.0 {
        pa + (pb - pa) * (ra / m)
    } else {
        pa
    };
    ShapeDistance {
        distance: 0.0,
        lower_bound: (gap - m).min(0.0),
        point_a: q,
        point_b: q,
        normal: n,
        feature_a,
        feature_b,
    }
}

/// A shape pair from the exact closest pair of the cores (A's frame), whose distance is also
/// the slab width along the closest direction (convex cores).
pub(crate) fn from_closest(
    c: &Closest,
    ra: f64,
    rb: f64,
    feature_a: Feature,
    feature_b: Feature,
) -> ShapeDistance {
    let n = if c.distance > 0.0 {
        (c.point_b - c.point_a) / c.distance
    } else {
        DVec3::ZERO
    };
    let n = if n.is_finite() { n } else { DVec3::ZERO };
    swept(
        c.distance, c.distance, c.point_a, c.point_b, n, ra, rb, feature_a, feature_b,
    )
}

/// Any pair by GJK on the cores' support mappings.
pub(crate) fn by_gjk<A: Swept + ?Sized, B: Swept + ?Sized>(
    a: &A,
    b: &B,
    pos12: &DAffine3,
) -> ShapeDistance {
    by_gjk_within(a, b, pos12, 0.0)
}

/// [`by_gjk`] stopping once the distance is known to within `tolerance` (see
/// [`gjk_support_within`](crate::gjk_support_within)).
fn by_gjk_within<A: Swept + ?Sized, B: Swept + ?Sized>(
    a: &A,
    b: &B,
    pos12: &DAffine3,
    tolerance: f64,
) -> ShapeDistance {
    let g = gjk_support_within(a.core(), b.core(), pos12, tolerance);
    let n = g.len as usize;
    let fa = a.feature(g.point_a, &g.ids_a[..n]);
    let fb = b.feature(
        rigid_inverse(pos12).transform_point3(g.point_b),
        &g.ids_b[..n],
    );
    swept(
        g.distance,
        g.gap,
        g.point_a,
        g.point_b,
        g.normal,
        a.margin(),
        b.margin(),
        fa,
        fb,
    )
}

/// A convex shape by reference, for [`convex_distance`]'s dispatch (a triangle is given in
/// its own frame, like the others).
#[derive(Clone, Copy, Debug)]
pub enum ConvexShape<'s> {
    /// A ball.
    Ball(&'s Ball),
    /// A capsule.
    Capsule(&'s Capsule),
    /// A cuboid.
    Cuboid(&'s Cuboid),
    /// A cylinder.
    Cylinder(&'s Cylinder),
    /// A convex polyhedron.
    Hull(&'s ConvexHull),
    /// A triangle.
    Triangle(&'s Triangle),
}

/// The distance between any two convex shapes: dispatches to the pair function
/// (`b` placed in `a`'s frame by `pos12`; the answer is in A's frame).
///
/// ```
/// use ccd_distance::{convex_distance, Ball, ConvexShape, Cuboid};
/// use glam::{DAffine3, DVec3};
/// let (ball, cube) = (Ball::new(0.5)?, Cuboid::new(DVec3::splat(1.0))?);
/// let pos = DAffine3::from_translation(DVec3::new(0.0, 3.0, 0.0));
/// let d = convex_distance(ConvexShape::Cuboid(&cube), ConvexShape::Ball(&ball), &pos);
/// assert_eq!(d.distance, 1.5);
/// assert_eq!(d.point_b, DVec3::new(0.0, 2.5, 0.0));
/// # Ok::<(), ccd_distance::ShapeError>(())
/// ```
#[must_use]
pub fn convex_distance(a: ConvexShape<'_>, b: ConvexShape<'_>, pos12: &DAffine3) -> ShapeDistance {
    convex_distance_within(a, b, pos12, 0.0)
}

/// [`convex_distance`] for callers that need the distance only to within `tolerance`
/// (absolute), such as conservative advancement: the pairs whose distance is iterative
/// (GJK with a smooth set: a cylinder against a cuboid, a capsule, a cylinder, a hull or a
/// triangle) may stop early, with `distance − lower_bound ≤ tolerance` (see
/// [`gjk_support_within`](crate::gjk_support_within)); every other pair is exact as in
/// [`convex_distance`]. Either way `distance` is the distance of the two reported witness
/// points of the shapes (an upper bound of the true distance) and `lower_bound` a proven
/// lower bound. `tolerance` 0 is [`convex_distance`].
///
/// ```
/// use ccd_distance::{convex_distance, convex_distance_within, ConvexShape, Cuboid, Cylinder};
/// use glam::{DAffine3, DQuat, DVec3};
/// let (cyl, cube) = (Cylinder::new(0.3, 0.5)?, Cuboid::new(DVec3::splat(0.4))?);
/// let pos = DAffine3::from_rotation_translation(DQuat::from_rotation_z(0.7), DVec3::new(1.5, 0.2, 0.1));
/// let (a, b) = (ConvexShape::Cuboid(&cube), ConvexShape::Cylinder(&cyl));
/// let exact = convex_distance(a, b, &pos);
/// let coarse = convex_distance_within(a, b, &pos, 1e-3);
/// assert!(coarse.lower_bound <= exact.distance && coarse.distance >= exact.lower_bound);
/// assert!(coarse.distance - coarse.lower_bound <= 1e-3);
/// # Ok::<(), ccd_distance::ShapeError>(())
/// ```
#[must_use]
pub fn convex_distance_within(
    a: ConvexShape<'_>,
    b: ConvexShape<'_>,
    pos12: &DAffine3,
    tolerance: f64,
) -> ShapeDistance {
    use ConvexShape as S;
    if tolerance > 0.0 {
        // the kernels of these pairs are `by_gjk` on the same arguments
        match (a, b) {
            (S::Cuboid(a), S::Cylinder(b)) => return by_gjk_within(a, b, pos12, tolerance),
            (S::Cylinder(a), S::Cuboid(b)) => return by_gjk_within(a, b, pos12, tolerance),
            (S::Capsule(a), S::Cylinder(b)) => return by_gjk_within(a, b, pos12, tolerance),
            (S::Cylinder(a), S::Capsule(b)) => return by_gjk_within(a, b, pos12, tolerance),
            (S::Cylinder(a), S::Cylinder(b)) => return by_gjk_within(a, b, pos12, tolerance),
            (S::Cylinder(a), S::Hull(b)) => return by_gjk_within(a, b, pos12, tolerance),
            (S::Hull(a), S::Cylinder(b)) => return by_gjk_within(a, b, pos12, tolerance),
            (S::Cylinder(a), S::Triangle(b)) => return by_gjk_within(a, b, pos12, tolerance),
            (S::Triangle(a), S::Cylinder(b)) => return by_gjk_within(a, b, pos12, tolerance),
            _ => {}
        }
    }
    convex_distance_exact(a, b, pos12)
}

/// The pair functions' dispatch.
fn convex_distance_exact(
    a: ConvexShape<'_>,
    b: ConvexShape<'_>,
    pos12: &DAffine3,
) -> ShapeDistance {
    use ConvexShape as S;
    match (a, b) {
        (S::Ball(a), S::Ball(b)) => ball_ball(a, b, pos12),
        (S::Ball(a), S::Capsule(b)) => ball_capsule(a, b, pos12),
        (S::Ball(a), S::Cuboid(b)) => ball_cuboid(a, b, pos12),
        (S::Ball(a), S::Cylinder(b)) => ball_cylinder(a, b, pos12),
        (S::Ball(a), S::Hull(b)) => ball_hull(a, b, pos12),
        (S::Ball(a), S::Triangle(b)) => ball_triangle(a, b, pos12),
        (S::Capsule(a), S::Ball(b)) => capsule_ball(a, b, pos12),
        (S::Capsule(a), S::Capsule(b)) => capsule_capsule(a, b, pos12),
        (S::Capsule(a), S::Cuboid(b)) => capsule_cuboid(a, b, pos12),
        (S::Capsule(a), S::Cylinder(b)) => capsule_cylinder(a, b, pos12),
        (S::Capsule(a), S::Hull(b)) => capsule_hull(a, b, pos12),
        (S::Capsule(a), S::Triangle(b)) => capsule_triangle(a, b, pos12),
        (S::Cuboid(a), S::Ball(b)) => cuboid_ball(a, b, pos12),
        (S::Cuboid(a), S::Capsule(b)) => cuboid_capsule(a, b, pos12),
        (S::Cuboid(a), S::Cuboid(b)) => cuboid_cuboid(a, b, pos12),
        (S::Cuboid(a), S::Cylinder(b)) => cuboid_cylinder(a, b, pos12),
        (S::Cuboid(a), S::Hull(b)) => cuboid_hull(a, b, pos12),
        (S::Cuboid(a), S::Triangle(b)) => cuboid_triangle(a, b, pos12),
        (S::Cylinder(a), S::Ball(b)) => cylinder_ball(a, b, pos12),
        (S::Cylinder(a), S::Capsule(b)) => cylinder_capsule(a, b, pos12),
        (S::Cylinder(a), S::Cuboid(b)) => cylinder_cuboid(a, b, pos12),
        (S::Cylinder(a), S::Cylinder(b)) => cylinder_cylinder(a, b, pos12),
        (S::Cylinder(a), S::Hull(b)) => cylinder_hull(a, b, pos12),
        (S::Cylinder(a), S::Triangle(b)) => cylinder_triangle(a, b, pos12),
        (S::Hull(a), S::Ball(b)) => hull_ball(a, b, pos12),
        (S::Hull(a), S::Capsule(b)) => hull_capsule(a, b, pos12),
        (S::Hull(a), S::Cuboid(b)) => hull_cuboid(a, b, pos12),
        (S::Hull(a), S::Cylinder(b)) => hull_cylinder(a, b, pos12),
        (S::Hull(a), S::Hull(b)) => hull_hull(a, b, pos12),
        (S::Hull(a), S::Triangle(b)) => hull_triangle(a, b, pos12),
        (S::Triangle(a), S::Ball(b)) => triangle_ball(a, b, pos12),
        (S::Triangle(a), S::Capsule(b)) => triangle_capsule(a, b, pos12),
        (S::Triangle(a), S::Cuboid(b)) => triangle_cuboid(a, b, pos12),
        (S::Triangle(a), S::Cylinder(b)) => triangle_cylinder(a, b, pos12),
        (S::Triangle(a), S::Hull(b)) => triangle_hull(a, b, pos12),
        (S::Triangle(a), S::Triangle(b)) => {
            let tb = Triangle::new(
                pos12.transform_point3(b.a),
                pos12.transform_point3(b.b),
                pos12.transform_point3(b.c),
            );
            let c = crate::triangle_triangle(a, &tb);
            from_closest(&c, 0.0, 0.0, c.feature_a, c.feature_b)
        }
    }
}
