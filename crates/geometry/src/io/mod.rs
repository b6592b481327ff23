//! Mesh file IO (feature `io`): OBJ, STL (binary and ASCII), PLY and COLLADA readers, an OBJ
//! writer.
//!
//! | format | reader | notes |
//! |---|---|---|
//! | Wavefront OBJ | [`read_obj`], [`read_obj_from`] | `v` and `f` lines; polygons fan-triangulated, all objects/groups merged into one mesh, everything else ignored |
//! | STL | [`read_stl`], [`read_stl_from`] | binary and ASCII, detected from the content (not the first word); identical positions welded |
//! | PLY | [`read_ply`], [`read_ply_from`] | `ascii`, `binary_little_endian`, `binary_big_endian`; any scalar types, extra properties skipped, polygons fan-triangulated |
//! | COLLADA | [`read_collada`], [`read_collada_from`] | through the `mesh-loader` crate; unit and node transforms applied, `up_axis` ignored (as ROS does), all geometries merged, no triangles is [`GeometryError::NoTriangles`] |
//! | any of them | [`read_mesh`], [`read_mesh_from`] | dispatch on the extension / a [`MeshFormat`] |
//!
//! [`write_obj`] / [`write_obj_to`] write `v` and `f` lines with coordinates that read back
//! bit-exactly.
//!
//! Every reader validates through [`TriMesh::new`], so a NaN or infinite coordinate gives
//! [`GeometryError::NonFiniteVertex`] and a face naming a missing vertex gives
//! [`GeometryError::IndexOutOfRange`] (OBJ files report the latter as a parse error with the
//! line, since the reader checks it first). A malformed file gives [`GeometryError::Parse`],
//! naming the path and, for text formats, the 1-based line where known; an empty file is a
//! parse error in every format, and so is an OBJ file without faces. No reader panics on any input, and header counts are never
//! trusted for allocation: they are checked against the bytes actually present.
//!
//! The `_from` variants read any [`Read`] (a `&[u8]` works) and take a path used only in error
//! messages, so tests and callers can feed in-memory data.
//!
//! # Example
//! ```
//! use ccd_geometry::{glam::DVec3, io, TriMesh};
//!
//! let tetra = TriMesh::new(
//!     vec![DVec3::ZERO, DVec3::Y, DVec3::X, DVec3::Z],
//!     vec![[0, 1, 2], [0, 2, 3], [0, 3, 1], [2, 1, 3]],
//! )?;
//! let path = std::env::temp_dir().join(format!("ccd-io-doc-{}.obj", std::process::id()));
//! io::write_obj(&path, &tetra)?;
//! let back = io::read_mesh(&path)?; // dispatches on ".obj"
//! // (OBJ vertices come back numbered in order of first use, as these already are)
//! std::fs::remove_file(&path).ok();
//! assert_eq!(back.vertices(), tetra.vertices());
//! assert_eq!(back.triangles(), tetra.triangles());
//! # Ok::<(), ccd_geometry::GeometryError>(())
//! ```

use std::fs::File;
use std::io::Read;
use std::path::Path;

use crate::{GeometryError, TriMesh};

mod collada;
mod obj;
mod ply;
mod stl;

pub use collada::{read_collada, read_collada_from};
pub use obj::{read_obj, read_obj_from, write_obj, write_obj_to};
pub use ply::{read_ply, read_ply_from};
pub use stl::{read_stl, read_stl_from};

/// A mesh file format known to [`read_mesh_from`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MeshFormat {
    /// Wavefront OBJ (`.obj`).
    Obj,
    /// STL, binary or ASCII (`.stl`).
    Stl,
    /// Stanford PLY (`.ply`).
    Ply,
    /// COLLADA (`.dae`).
    Collada,
}

impl MeshFormat {
    /// The format for a file extension (without the dot, any letter case), or `None`.
    ///
    /// ```
    /// use ccd_geometry::io::MeshFormat;
    /// assert_eq!(MeshFormat::from_extension("PLY"), Some(MeshFormat::Ply));
    /// assert_eq!(MeshFormat::from_extension("DAE"), Some(MeshFormat::Collada));
    /// assert_eq!(MeshFormat::from_extension("3ds"), None);
    /// ```
    #[must_use]
    pub fn from_extension(ext: &str) -> Option<Self> {
        match ext.to_ascii_lowercase().as_str() {
            "obj" => Some(Self::Obj),
            "stl" => Some(Self::Stl),
            "ply" => Some(Self::Ply),
            "dae" => Some(Self::Collada),
            _ => None,
        }
    }

    /// The format named by the extension of `path`, or `None`.
    ///
    /// ```
    /// use ccd_geometry::io::MeshFormat;
    /// assert_eq!(MeshFormat::from_path("meshes/link0.STL"), Some(MeshFormat::Stl));
    /// assert_eq!(MeshFormat::from_path("README"), None);
    /// ```
    #[must_use]
    pub fn from_path(path: impl AsRef<Path>) -> Option<Self> {
        path.as_ref()
            .extension()
            .and_then(|e| e.to_str())
            .and_then(Self::from_extension)
    }
}

/// Reads a mesh file, choosing the reader from the extension (`.obj`, `.stl`, `.ply`, `.dae`,
/// any letter case).
///
/// # Errors
/// [`GeometryError::Parse`] for an unknown extension or a malformed file,
/// [`GeometryError::Io`] when the file cannot be read, and the validation errors of
/// [`TriMesh::new`].
///
/// # Example
/// ```
/// use ccd_geometry::io;
///
/// let path = std::env::temp_dir().join(format!("ccd-read-mesh-{}.stl", std::process::id()));
/// std::fs::write(
///     &path,
///     "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\n\
///      endloop\nendfacet\nendsolid t\n",
/// )
/// .unwrap();
/// let mesh = io::read_mesh(&path)?;
/// std::fs::remove_file(&path).ok();
/// assert_eq!(mesh.triangle_count(), 1);
///
/// let unknown = io::read_mesh("robot.3ds");
/// assert!(matches!(unknown, Err(ccd_geometry::GeometryError::Parse { .. })));
/// # Ok::<(), ccd_geometry::GeometryError>(())
/// ```
pub fn read_mesh(path: impl AsRef<Path>) -> Result<TriMesh, GeometryError> {
    let path = path.as_ref();
    match MeshFormat::from_path(path) {
        Some(MeshFormat::Obj) => read_obj(path),
        Some(MeshFormat::Stl) => read_stl(path),
        Some(MeshFormat::Ply) => read_ply(path),
        Some(MeshFormat::Collada) => read_collada(path),
        None => Err(parse_error(
            path,
            None,
            "unknown mesh file extension (expected .obj, .stl, .ply or .dae)",
        )),
    }
}

/// Reads a mesh of the given `format` from `reader`; `path` is used only in error messages.
///
/// # Errors
/// As [`read_obj_from`], [`read_stl_from`], [`read_ply_from`] or [`read_collada_from`].
///
/// # Example
/// ```
/// use ccd_geometry::io::{read_mesh_from, MeshFormat};
///
/// let ply = "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n\
///            property float z\nelement face 1\nproperty list uchar int vertex_indices\n\
///            end_header\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n";
/// let mesh = read_mesh_from(ply.as_bytes(), MeshFormat::Ply, "in-memory.ply")?;
/// assert_eq!(mesh.triangles(), &[[0, 1, 2]]);
/// # Ok::<(), ccd_geometry::GeometryError>(())
/// ```
pub fn read_mesh_from(
    reader: impl Read,
    format: MeshFormat,
    path: impl AsRef<Path>,
) -> Result<TriMesh, GeometryError> {
    match format {
        MeshFormat::Obj => read_obj_from(reader, path),
        MeshFormat::Stl => read_stl_from(reader, path),
        MeshFormat::Ply => read_ply_from(reader, path),
        MeshFormat::Collada => read_collada_from(reader, path),
    }
}

/// A [`GeometryError::Parse`] for `path`.
pub(crate) fn parse_error(
    path: &Path,
    line: Option<usize>,
    reason: impl Into<String>,
) -> GeometryError {
    GeometryError::Parse {
        path: path.to_path_buf(),
        line,
        reason: reason.into(),
    }
}

/// A [`GeometryError::Io`] for `path`.
pub(crate) fn io_error(path: &Path, source: std::io::Error) -> GeometryError {
    GeometryError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The whole content of the file at `path`.
pub(crate) fn read_file(path: &Path) -> Result<Vec<u8>, GeometryError> {
    let file = File::open(path).map_err(|e| io_error(path, e))?;
    read_all(file, path)
}

/// Everything `reader` yields (bounded by what it actually holds, never by a header count).
pub(crate) fn read_all(reader: impl Read, path: &Path) -> Result<Vec<u8>, GeometryError> {
    let mut bytes = Vec::new();
    std::io::BufReader::with_capacity(1 << 16, reader)
        .read_to_end(&mut bytes)
        .map_err(|e| io_error(path, e))?;
    Ok(bytes)
}
