//! Shared fixtures of the `ccd` workspace's tests and benchmarks (not published): one
//! seeded random stream and one copy of each procedural mesh the tests and benches build
//! their cases from.
//!
//! - [`SplitMix64`]: a splitmix64 stream with the draws the cases use (uniform reals,
//!   points in a cube, unit vectors, rotations, poses), and [`noise`], the same stream
//!   indexed by a counter; [`XorShift64`], the other stream some sampled checks are
//!   pinned on.
//! - Meshes as [`ccd_geometry::TriMesh`]: the parametric [`grid`] and, on it, the
//!   [`uv_sphere`], [`rough_sphere`], [`wavy_terrain`], [`noisy_terrain`] and
//!   [`noisy_torus`]; the pole-capped [`blob`] and a random [`triangle_soup`]. Boxes are
//!   [`TriMesh::cuboid`](ccd_geometry::TriMesh::cuboid) and tori
//!   [`TriMesh::torus`](ccd_geometry::TriMesh::torus).
//!
//! Every fixture is a fixed function of its arguments (seeds included): the same vertices,
//! bit for bit, on every machine, so a test case or a bench answer pinned on a fixture stays
//! put. Builders return `Result<TriMesh, GeometryError>`: sizes that overflow `u32` indices
//! and non-finite vertices are errors, not panics.
//!
//! Use it as a path-only dev-dependency (`ccd-test-support = { path = "../test-support" }`,
//! no version), which `cargo package` strips from the published manifests.
//!
//! # Example
//! ```
//! use ccd_test_support::{SplitMix64, rough_sphere};
//!
//! let mut rng = SplitMix64::new(0xCA5E);
//! let pose = rng.pose(1.0);
//! let sphere = rough_sphere(8, 0.5, 0.02)?;
//! assert_eq!(sphere.triangle_count(), 256);
//! assert!(pose.matrix3.determinant() > 0.0);
//! # Ok::<(), ccd_geometry::GeometryError>(())
//! ```
#![forbid(unsafe_code)]

mod meshes;
mod rng;

pub use meshes::{
    GridOrder, ROUGH_SPHERE_SEED, blob, grid, noisy_terrain, noisy_torus, rough_sphere,
    triangle_soup, uv_sphere, wavy_terrain,
};
pub use rng::{DIRECTION_ROUNDS, GOLDEN_GAMMA, SplitMix64, XorShift64, axis_angle_pose, noise};
