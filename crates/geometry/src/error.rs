//! The error type of `ccd-geometry`.

use std::path::PathBuf;

/// What can be wrong with geometry handed to this crate.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GeometryError {
    /// A vertex coordinate is NaN or infinite.
    #[error("vertex {index} has a non-finite coordinate ({x}, {y}, {z})")]
    NonFiniteVertex {
        /// Index of the offending vertex.
        index: usize,
        /// Its x coordinate.
        x: f64,
        /// Its y coordinate.
        y: f64,
        /// Its z coordinate.
        z: f64,
    },
    /// A triangle refers to a vertex that does not exist.
    #[error(
        "triangle {triangle} refers to vertex {vertex}, but the mesh has {vertex_count} vertices"
    )]
    IndexOutOfRange {
        /// Index of the offending triangle.
        triangle: usize,
        /// The out-of-range vertex index.
        vertex: u32,
        /// Number of vertices in the mesh.
        vertex_count: usize,
    },
    /// More vertices than a `u32` index can address.
    #[error("mesh has {0} vertices; at most 2^32 - 1 are supported")]
    TooManyVertices(usize),
    /// A mesh file could not be parsed.
    #[error("cannot parse {}{}: {reason}", path.display(), line.map(|l| format!(" (line {l})")).unwrap_or_default())]
    Parse {
        /// The file being read.
        path: PathBuf,
        /// The 1-based line, for text formats when known.
        line: Option<usize>,
        /// What is wrong.
        reason: String,
    },
    /// A mesh without triangles cannot be written as OBJ: the format (and this crate's
    /// reader, [`read_obj`](crate::io::read_obj)) needs at least one face, so the file would
    /// not read back.
    #[error("cannot write {} as OBJ: the mesh has no triangles (an OBJ mesh needs at least one face)", path.display())]
    EmptyMesh {
        /// The file that was to be written.
        path: PathBuf,
    },
    /// A mesh file that is valid but holds no triangle (a COLLADA document with only lines,
    /// points or empty geometries, say).
    #[error("{} holds no triangles", path.display())]
    NoTriangles {
        /// The file.
        path: PathBuf,
    },
    /// A procedural mesh was asked for with parameters that describe no valid solid (see
    /// [`TriMesh::torus`](crate::TriMesh::torus)).
    #[error("invalid {shape} parameters: {reason}")]
    InvalidPrimitive {
        /// The solid asked for (`"cuboid"`, `"torus"`).
        shape: &'static str,
        /// What is wrong.
        reason: String,
    },
    /// A file could not be read or written.
    #[error("cannot access {}: {source}", path.display())]
    Io {
        /// The file being accessed.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}
