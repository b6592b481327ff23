//! The error type of `ccd-la-deformable`.

/// What can be wrong with the input of a local-advancement query.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum LaError {
    /// The two poses of a deforming mesh have different vertex counts.
    #[error("vertex count mismatch: {t0} vertices at t = 0, {t1} at t = 1")]
    VertexCountMismatch {
        /// Vertices at `t = 0`.
        t0: usize,
        /// Vertices at `t = 1`.
        t1: usize,
    },
    /// A coordinate is NaN or infinite.
    #[error("vertex {vertex} at t = {time} has a non-finite coordinate")]
    NonFiniteVertex {
        /// Index of the vertex (or of the point in an elementary query).
        vertex: usize,
        /// `0` or `1`: which pose.
        time: u8,
    },
    /// A coordinate's magnitude exceeds
    /// [`MAX_COORDINATE`](ccd_distance::MAX_COORDINATE) (`1e100`), the domain of the
    /// elementary kernels' entry points and of the deforming meshes of a scene.
    #[error(
        "point {vertex} at t = {time} has coordinate {value:e}, beyond the domain |x| <= 1e100"
    )]
    CoordinateOutOfRange {
        /// Index of the point in the elementary query, or of the vertex of the deforming
        /// mesh.
        vertex: usize,
        /// `0` or `1`: which pose.
        time: u8,
        /// The offending coordinate.
        value: f64,
    },
    /// A triangle refers to a vertex that does not exist.
    #[error("triangle {triangle} refers to vertex {index}, but there are only {count} vertices")]
    IndexOutOfRange {
        /// Index of the triangle.
        triangle: usize,
        /// The offending vertex index.
        index: u32,
        /// Number of vertices.
        count: usize,
    },
    /// A triangle uses the same vertex twice (it has no edges or face to test).
    #[error("triangle {triangle} repeats vertex {index}")]
    RepeatedIndex {
        /// Index of the triangle.
        triangle: usize,
        /// The repeated vertex index.
        index: u32,
    },
    /// More vertices than `u32` indices can address.
    #[error("{0} vertices exceed the u32 index range")]
    TooManyVertices(usize),
    /// The tolerance is not a positive finite distance.
    #[error("tolerance {0} must be positive and finite")]
    InvalidTolerance(f64),
    /// `max_iterations` is zero.
    #[error("max_iterations must be at least 1")]
    NoIterations,
    /// A scene option is out of range (the message says which).
    #[error("invalid option: {0}")]
    InvalidOption(String),
}
