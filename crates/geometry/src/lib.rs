//! Geometry shared by every crate of the `ccd` workspace.
//!
//! - [`TriMesh`]: validated vertices (`DVec3`, finite) and triangles (`[u32; 3]`, in range),
//!   with unique edges and vertex→face adjacency built on demand and cached. Zero-area
//!   triangles are kept (polygon soups have them) and listed by
//!   [`TriMesh::degenerate_triangles`].
//! - [`Aabb`], [`Segment`], [`Triangle`]: small value types used by bounding-volume and
//!   distance code.
//! - [`Feature`]: a vertex, edge or face of a caller's mesh, used as a contact witness.
//! - [`Status`]: how a query ended, and [`Mode`]: what a query computes, shared by every
//!   query crate.
//! - Procedural meshes: [`TriMesh::torus`] (the examples', tests', benchmarks' and scenes'
//!   torus).
//! - Mesh IO (feature `io`, on by default): OBJ, STL (binary and ASCII) and PLY readers and an
//!   OBJ writer, in [`io`].
//! - Feature `serde`: `Serialize`/`Deserialize` for [`TriMesh`] (vertices and triangles,
//!   validated again when read), [`Aabb`], [`Segment`], [`Triangle`], [`Feature`], [`Status`]
//!   and [`Mode`].
//!
//! Conventions: f64 everywhere, right-handed coordinates, counter-clockwise triangles seen
//! from the side their normal points to. Geometry lives in its local frame; poses are passed
//! per query by the crates above this one.
//!
//! # Example
//! ```
//! use ccd_geometry::{glam::DVec3, TriMesh};
//!
//! let mesh = TriMesh::new(
//!     vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z],
//!     vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
//! )?;
//! assert_eq!(mesh.edges().len(), 6);
//! assert!(mesh.degenerate_triangles().is_empty());
//! # Ok::<(), ccd_geometry::GeometryError>(())
//! ```
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

mod aabb;
mod error;
mod feature;
#[cfg(feature = "io")]
#[cfg_attr(docsrs, doc(cfg(feature = "io")))]
pub mod io;
mod mesh;
mod mode;
mod procedural;
mod segment;
mod status;
mod transform;
mod triangle;

pub use aabb::Aabb;
pub use error::GeometryError;
pub use feature::Feature;
pub use glam;
pub use mesh::{Edge, TriMesh};
pub use mode::Mode;
pub use segment::Segment;
pub use status::Status;
pub use transform::rigid_inverse;
pub use triangle::Triangle;
