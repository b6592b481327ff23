//! Local advancement (LA) continuous collision detection for deforming triangle meshes
//! (Tang, Kim, Manocha, ICRA 2010): inter-object and self-collision between meshes whose
//! vertices move linearly over `t ∈ [0, 1]`.
//!
//! LA computes a conservative time of contact by repeatedly advancing `Δt = d / μ`, where
//! `d` is the current distance between two features and `μ` an upper bound of how fast that
//! distance can shrink (Lemmas 1–3 of the paper, with `|·|`-safe bounds). The same idea
//! applies to moving bounding volumes (Sec. IV), which a two-layer hybrid BVH (Sec. VI) uses
//! to cull whole subtrees by time.
//!
//! Conventions: time is normalized to `[0, 1]`; the tolerance `ε` is an absolute distance
//! (default [`DEFAULT_TOLERANCE`] = 1e-6, tighter than the rigid crate's 1e-3 because cloth
//! layers sit close together); a reported `toc` never exceeds the true first time the
//! features come within `ε` of each other. The elementary kernels' entry points take
//! coordinates up to [`MAX_COORDINATE`](ccd_distance::MAX_COORDINATE) (`1e100`, a typed error
//! beyond) at any smaller scale, down to subnormal numbers (see [`kernels`]).
//!
//! Vocabulary (shared with `ccd-ca-rigid`): a query runs in a [`Mode`] (global ToC, all
//! ToCs, Boolean), ends with a [`Status`], and reports contacts ([`SceneContact`],
//! [`PrimitiveToc`]) with the time of contact, both features, world witness points, the
//! normal and the status. Options ([`LaOptions`], [`scene::SceneOptions`]) are
//! `#[non_exhaustive]`: build them from `Default` with the `with_*` methods.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod baseline;
mod error;
pub mod kernels;
mod mesh;
mod options;
pub mod scene;

pub use error::LaError;
pub use kernels::{
    edge_edge, edge_edge_until, triangle_triangle, triangle_triangle_until, vertex_face,
    vertex_face_until,
};
pub use mesh::{DeformingMesh, OWN_EDGE, OWN_VERTEX};
pub use options::{
    DEFAULT_MAX_ITERATIONS, DEFAULT_TOLERANCE, LaOptions, Mode, PrimitiveToc, SceneContact,
    SceneStats, Status,
};
