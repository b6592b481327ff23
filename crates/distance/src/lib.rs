//! Exact distances between geometric primitives and meshes, with witness features.
//!
//! Naming follows `[operation]_[shape1]_[shape2]` with one file per shape pair
//! (`segment_segment.rs` → [`segment_segment`]); a mirrored pair delegates and swaps the
//! result with [`Closest::swapped`].
//!
//! # Primitive distances
//! [`point_segment`], [`point_triangle`], [`segment_segment`], [`segment_triangle`],
//! [`triangle_triangle`] and their mirrors return a [`Closest`]: the distance, a witness
//! point on each primitive and the local [`Feature`](ccd_geometry::Feature) it lies on
//! (see [`Closest`] for the ids). Both primitives are given in one frame (a mesh query
//! moves body 2 into body 1's frame first). They never allocate, never panic and never
//! return NaN for finite input, including zero-length segments and zero-area triangles
//! (collinear or coincident vertices), which are treated as the segment or point they
//! are. They hold at **every finite scale**: a query whose largest coordinate magnitude lies
//! outside `[2⁻¹⁰⁰, 2¹⁰⁰]` is scaled exactly by a power of two into that window, computed
//! there (where no intermediate quantity, up to fourth powers of coordinates, can overflow or
//! underflow) and scaled back, so distances are neither lost to underflow (a distance of
//! `1e-300` is reported as such) nor to overflow. Only a distance above `f64::MAX` (points
//! near opposite ends of the `f64` range) is reported as `+∞`. The accuracy is relative to
//! the largest coordinate magnitude `M` of the query: about `1e-15·M` absolute.
//!
//! # Domain of the time-of-contact queries
//! [`MAX_COORDINATE`] (`1e100`) is the workspace's coordinate bound for the continuous
//! queries built on these kernels: mesh vertices, pose translations and moving points
//! beyond it are rejected with a typed error by [`mesh_distance`] and by the rigid and
//! deformable time-of-contact entry points (`ccd-ca-rigid`, `ccd-la-deformable`), whose
//! motion bounds multiply coordinates by speeds and angles.
//!
//! # Mesh distance
//! [`mesh_distance`] (and [`mesh_distance_with`], reusing a [`MeshDistanceWorkspace`])
//! computes the distance between two [`ccd_bvh::MeshBvh<Rss>`](ccd_bvh::MeshBvh) under world
//! poses, PQP-style: RSS lower bounds prune node pairs, leaves run [`triangle_triangle`],
//! with tolerance, upper-bound and "closer than" exits and a coherence hint (Lin survey
//! slides, "SSV/PQP"). Features are lifted to mesh ids. [`mesh_overlap`] is the Boolean
//! discrete check (any volume type, e.g. OBB or AABB trees).
//!
//! ```
//! use ccd_distance::triangle_triangle;
//! use ccd_geometry::{glam::DVec3, Feature, Triangle};
//!
//! let a = Triangle::new(DVec3::ZERO, DVec3::X, DVec3::Y);
//! let b = Triangle::new(DVec3::new(0.2, 0.2, 0.5), DVec3::new(1.0, 1.0, 2.0), DVec3::new(0.0, 1.0, 2.0));
//! let c = triangle_triangle(&a, &b);
//! assert_eq!(c.distance, 0.5);
//! assert_eq!((c.feature_a, c.feature_b), (Feature::Face(0), Feature::Vertex(0)));
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

// --- primitive distances (owned by the primitives work) ---
mod closest;
mod frame;
mod mesh_distance;
mod mesh_overlap;
mod point_segment;
mod point_triangle;
mod scale;
mod segment_segment;
mod segment_triangle;
mod triangle_triangle;

pub use closest::Closest;
pub use scale::rescale_factors;

/// Largest coordinate magnitude (`1e100`) accepted by the workspace's continuous queries:
/// mesh vertices, pose translations and moving points. Within it, squares and cubes of
/// coordinates (the motion and distance bounds of conservative and local advancement) stay
/// far from overflow, and the queries' answers are proven; input beyond it is a typed error.
/// The primitive distance kernels themselves hold at every finite scale (see the
/// [crate docs](crate)).
///
/// There is no lower bound on the scale of the distance kernels (tiny input is rescaled
/// exactly, see [`rescale_factors`]) nor of the local-advancement kernels of
/// `ccd-la-deformable`, which rescale a whole query the same way; rigid CA
/// (`ccd-ca-rigid`) takes tolerances of at least its `MIN_TOLERANCE` (`1e-100`) and treats
/// anything closer as touching. Fuzzers and callers can rely on: finite input within
/// `MAX_COORDINATE` gets a proven answer, input beyond it a typed error.
pub const MAX_COORDINATE: f64 = 1e100;
pub use mesh_distance::{
    MeshClosest, MeshDistanceError, MeshDistanceOptions, MeshDistanceStats, MeshDistanceStatus,
    MeshDistanceWorkspace, mesh_distance, mesh_distance_brute_force, mesh_distance_with,
};
pub use mesh_overlap::{MeshOverlap, mesh_overlap};
pub use point_segment::{point_segment, segment_point};
pub use point_triangle::{point_triangle, triangle_point};
pub use segment_segment::segment_segment;
pub use segment_triangle::{segment_triangle, triangle_segment};
pub use triangle_triangle::triangle_triangle;

// --- convex hulls and GJK (owned by the convex work) ---
mod convex_hull;
pub use convex_hull::{ConvexHull, HullError};
mod gjk;
// --- analytic shapes and their pair distances (owned by the shapes work) ---
mod shape;
mod shapes;
mod support_gjk;
pub use gjk::{
    GjkBody, GjkCache, GjkError, GjkOptions, GjkResult, GjkSimplex, GjkStatus, gjk_distance,
    gjk_distance_cached,
};
pub use shape::{Ball, Capsule, Cuboid, Cylinder, ShapeError, SupportMap};
pub use shapes::*;
pub use support_gjk::{
    SUPPORT_GJK_MAX_ITERATIONS, SupportDistance, gjk_support, gjk_support_within,
};
