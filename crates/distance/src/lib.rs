//! Exact distances between geometric primitives and meshes, with witness features.
//!
//! Naming follows `[operation]_[shape1]_[shape2]` with one file per shape pair
//! (`segment_segment.rs` → [`segment_segment`]); a mirrored pair delegates and swaps the
//! result with [`Closest::swapped`].

#![forbid(unsafe_code)]
#![warn(missing_docs)]

// --- primitive distances (owned by the primitives work) ---

// --- convex hulls and GJK (owned by the convex work) ---
mod convex_hull;
pub use convex_hull::{ConvexHull, HullError};
mod gjk;
pub use gjk::{
    GjkBody, GjkCache, GjkError, GjkOptions, GjkResult, GjkSimplex, GjkStatus, gjk_distance,
    gjk_distance_cached,
};
