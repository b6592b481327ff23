//! The error type of `ccd-bvh`.

use ccd_geometry::GeometryError;

/// What can be wrong with input handed to this crate.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BvhError {
    /// The mesh (or its raw vertices/triangles) failed validation in `ccd-geometry`.
    #[error(transparent)]
    Geometry(#[from] GeometryError),
    /// A [`MeshBvh`](crate::MeshBvh) needs at least one triangle.
    #[error("mesh has no triangles; a MeshBvh needs at least one")]
    EmptyMesh,
    /// A primitive (triangle, box, point) has a NaN or infinite coordinate.
    #[error("primitive {index} has a non-finite coordinate")]
    NonFinitePrimitive {
        /// Index of the offending primitive.
        index: usize,
    },
    /// A box has `min > max` on some axis.
    #[error("box {index} is empty (min > max on some axis)")]
    EmptyBox {
        /// Index of the offending box.
        index: usize,
    },
    /// `refit`/`update` got a different number of primitives than the structure was built on.
    #[error("expected {expected} primitives, got {actual}")]
    CountMismatch {
        /// The count the structure was built with.
        expected: usize,
        /// The count passed now.
        actual: usize,
    },
    /// More primitives than a `u32` id can address.
    #[error("{0} primitives; at most 2^32 - 1 are supported")]
    TooManyPrimitives(usize),
    /// An option is out of its valid range.
    #[error("invalid option: {0}")]
    InvalidOption(&'static str),
}
