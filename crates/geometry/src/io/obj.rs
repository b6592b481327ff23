//! Wavefront OBJ: reading through `tobj`, writing `v`/`f` lines.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::Path;

use glam::DVec3;

use super::{io_error, parse_error, read_all, read_file};
use crate::{GeometryError, TriMesh};

/// Reads a Wavefront OBJ file into one mesh.
///
/// Only positions and faces are used (normals, texture coordinates and materials are
/// ignored; `mtllib` files are never opened). Polygons are fan-triangulated, points and
/// lines are skipped, and every object/group is merged into one mesh.
///
/// Vertex numbering: `tobj` renumbers the vertices of each object in order of first use by a
/// face and drops vertices no face uses. A file written by [`write_obj`] from a mesh whose
/// vertices are all used, in first-use order, reads back with identical numbering. Where
/// objects/groups share a vertex, `tobj` gives each its own copy; the reader joins copies
/// from different objects that have bit-identical positions, so the merged mesh stays
/// connected across group seams.
///
/// # Errors
/// - [`GeometryError::Io`] when the file cannot be read;
/// - [`GeometryError::Parse`] (with the line where it can be located) for an empty file,
///   text that is not UTF-8, a malformed number or face, or a face index naming a vertex
///   that does not exist;
/// - [`GeometryError::NonFiniteVertex`] for a `nan`/`inf` coordinate.
///
/// # Example
/// ```
/// use ccd_geometry::io;
///
/// let path = std::env::temp_dir().join(format!("ccd-read-obj-{}.obj", std::process::id()));
/// std::fs::write(&path, "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n").unwrap();
/// let quad = io::read_obj(&path)?;
/// std::fs::remove_file(&path).ok();
/// assert_eq!(quad.vertex_count(), 4);
/// assert_eq!(quad.triangle_count(), 2); // the quad is split in two
/// # Ok::<(), ccd_geometry::GeometryError>(())
/// ```
pub fn read_obj(path: impl AsRef<Path>) -> Result<TriMesh, GeometryError> {
    let path = path.as_ref();
    parse_obj(&read_file(path)?, path)
}

/// Reads OBJ text from `reader`; `path` is used only in error messages. See [`read_obj`].
///
/// # Errors
/// As [`read_obj`].
///
/// # Example
/// ```
/// use ccd_geometry::{io, GeometryError};
///
/// let mesh = io::read_obj_from(&b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"[..], "tri.obj")?;
/// assert_eq!(mesh.triangles(), &[[0, 1, 2]]);
///
/// let bad = io::read_obj_from(&b"v 0 0 0\nv 1 zero 0\n"[..], "bad.obj");
/// assert!(matches!(bad, Err(GeometryError::Parse { line: Some(2), .. })));
/// # Ok::<(), GeometryError>(())
/// ```
pub fn read_obj_from(reader: impl Read, path: impl AsRef<Path>) -> Result<TriMesh, GeometryError> {
    let path = path.as_ref();
    parse_obj(&read_all(reader, path)?, path)
}

/// Writes `mesh` as an OBJ file (`v` lines, then 1-based `f` lines). Coordinates are
/// written in the shortest form that reads back to the same `f64`.
///
/// # Errors
/// [`GeometryError::Io`] when the file cannot be created or written.
///
/// # Example
/// ```
/// use ccd_geometry::{glam::DVec3, io, TriMesh};
///
/// let tri = TriMesh::new(vec![DVec3::ZERO, DVec3::X, DVec3::new(0.1, 1e-20, 3.5)], vec![[0, 1, 2]])?;
/// let path = std::env::temp_dir().join(format!("ccd-write-obj-{}.obj", std::process::id()));
/// io::write_obj(&path, &tri)?;
/// let back = io::read_obj(&path)?;
/// std::fs::remove_file(&path).ok();
/// assert_eq!(back.vertices(), tri.vertices()); // bit-exact
/// # Ok::<(), ccd_geometry::GeometryError>(())
/// ```
pub fn write_obj(path: impl AsRef<Path>, mesh: &TriMesh) -> Result<(), GeometryError> {
    let path = path.as_ref();
    let file = File::create(path).map_err(|e| io_error(path, e))?;
    write_obj_to(file, mesh, path)
}

/// Writes `mesh` as OBJ text to `writer` (buffered internally); `path` is used only in error
/// messages. See [`write_obj`].
///
/// # Errors
/// [`GeometryError::Io`] when writing fails.
///
/// # Example
/// ```
/// use ccd_geometry::{glam::DVec3, io, TriMesh};
///
/// let tri = TriMesh::new(vec![DVec3::ZERO, DVec3::X, DVec3::Y], vec![[0, 1, 2]])?;
/// let mut text = Vec::new();
/// io::write_obj_to(&mut text, &tri, "memory.obj")?;
/// let text = String::from_utf8(text).unwrap();
/// assert!(text.contains("v 1 0 0\n"));
/// assert!(text.ends_with("f 1 2 3\n"));
/// # Ok::<(), ccd_geometry::GeometryError>(())
/// ```
pub fn write_obj_to(
    writer: impl Write,
    mesh: &TriMesh,
    path: impl AsRef<Path>,
) -> Result<(), GeometryError> {
    let path = path.as_ref();
    let mut out = BufWriter::with_capacity(1 << 16, writer);
    let mut write = || -> std::io::Result<()> {
        writeln!(
            out,
            "# ccd-geometry: {} vertices, {} triangles",
            mesh.vertex_count(),
            mesh.triangle_count()
        )?;
        for v in mesh.vertices() {
            writeln!(out, "v {} {} {}", Coord(v.x), Coord(v.y), Coord(v.z))?;
        }
        for [a, b, c] in mesh.triangles() {
            writeln!(
                out,
                "f {} {} {}",
                u64::from(*a) + 1,
                u64::from(*b) + 1,
                u64::from(*c) + 1
            )?;
        }
        out.flush()
    };
    write().map_err(|e| io_error(path, e))
}

/// A finite coordinate in the shortest text that parses back to the same `f64`: plain
/// decimal for moderate magnitudes, exponent form otherwise (never hundreds of zeros).
struct Coord(f64);

impl std::fmt::Display for Coord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let a = self.0.abs();
        if a == 0.0 || (1e-5..1e16).contains(&a) {
            write!(f, "{}", self.0)
        } else {
            write!(f, "{:e}", self.0)
        }
    }
}

fn parse_obj(bytes: &[u8], path: &Path) -> Result<TriMesh, GeometryError> {
    // A UTF-8 byte order mark would hide the first line's keyword from tobj.
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(parse_error(path, None, "file is empty"));
    }
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let line = 1 + bytes[..e.valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        parse_error(path, Some(line), "not UTF-8 text")
    })?;
    let options = tobj::LoadOptions {
        single_index: false,
        triangulate: true,
        ignore_points: true,
        ignore_lines: true,
    };
    // Materials are irrelevant here; never open files named by `mtllib`.
    let loaded = tobj::load_obj_buf(&mut text.as_bytes(), &options, |_| {
        Err(tobj::LoadError::OpenFileFailed)
    });
    let models = match loaded {
        Ok((models, _materials)) => models,
        Err(e) => return Err(parse_error(path, locate_error(text, &e), obj_reason(&e))),
    };
    merge_models(&models, path)
}

/// Joins the per-object meshes of `tobj` into one vertex and triangle list.
fn merge_models(models: &[tobj::Model], path: &Path) -> Result<TriMesh, GeometryError> {
    let vertex_total: usize = models.iter().map(|m| m.mesh.positions.len() / 3).sum();
    let index_total: usize = models.iter().map(|m| m.mesh.indices.len()).sum();
    let mut vertices: Vec<DVec3> = Vec::with_capacity(vertex_total);
    let mut triangles: Vec<[u32; 3]> = Vec::with_capacity(index_total / 3);
    // Only needed to re-join vertices that tobj copied into several objects.
    let mut seen: HashMap<[u64; 3], u32> = HashMap::new();
    let multi = models.len() > 1;
    for model in models {
        let mesh = &model.mesh;
        if mesh.positions.len() % 3 != 0
            || mesh.indices.len() % 3 != 0
            || !mesh.face_arities.is_empty()
        {
            return Err(parse_error(
                path,
                None,
                "OBJ loader returned a non-triangulated mesh",
            ));
        }
        let first_own = vertices.len();
        let mut map: Vec<u32> = Vec::with_capacity(mesh.positions.len() / 3);
        for p in mesh.positions.chunks_exact(3) {
            let v = DVec3::new(p[0], p[1], p[2]);
            let index = u32::try_from(vertices.len())
                .map_err(|_| GeometryError::TooManyVertices(vertices.len()))?;
            if multi {
                let key = [
                    (v.x + 0.0).to_bits(),
                    (v.y + 0.0).to_bits(),
                    (v.z + 0.0).to_bits(),
                ];
                match seen.get(&key) {
                    Some(&earlier) if (earlier as usize) < first_own => {
                        map.push(earlier);
                        continue;
                    }
                    Some(_) => {}
                    None => {
                        seen.insert(key, index);
                    }
                }
            }
            map.push(index);
            vertices.push(v);
        }
        for t in mesh.indices.chunks_exact(3) {
            let get = |i: u32| {
                map.get(i as usize).copied().ok_or_else(|| {
                    parse_error(
                        path,
                        None,
                        format!("face refers to vertex {i} that the OBJ loader did not return"),
                    )
                })
            };
            triangles.push([get(t[0])?, get(t[1])?, get(t[2])?]);
        }
    }
    TriMesh::new(vertices, triangles)
}

/// A readable reason for a `tobj` error.
fn obj_reason(e: &tobj::LoadError) -> String {
    match e {
        tobj::LoadError::FaceVertexOutOfBounds => {
            "a face refers to a vertex that does not exist".to_owned()
        }
        other => other.to_string(),
    }
}

/// The 1-based line where `tobj` most likely failed (it does not say), found by re-checking
/// the lines its error kind is about. `None` when no line can be singled out.
fn locate_error(text: &str, e: &tobj::LoadError) -> Option<usize> {
    use tobj::LoadError as E;
    let floats_ok = |words: &[&str], n: usize| {
        words.len() >= n && words[..n].iter().all(|w| w.parse::<f64>().is_ok())
    };
    let position_count = text
        .lines()
        .filter(|l| l.split_whitespace().next() == Some("v"))
        .count();
    let mut positions_so_far = 0usize;
    for (i, line) in text.lines().enumerate() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some((&key, rest)) = words.split_first() else {
            continue;
        };
        let bad = match (key, e) {
            ("v", E::PositionParseError | E::ScalingByZeroError | E::ColorParseError) => {
                !floats_ok(rest, 3)
                    || match rest.len() {
                        3 | 6 => false,
                        4 => rest[3].parse::<f64>().map_or(true, |w| w == 0.0),
                        _ => true,
                    }
            }
            ("vn", E::NormalParseError) => !floats_ok(rest, 3),
            ("vt", E::TexcoordParseError) => !floats_ok(rest, 2),
            ("f" | "l", E::FaceParseError) => rest
                .iter()
                .any(|w| face_vertex(w, positions_so_far).is_none()),
            ("f" | "l", E::FaceVertexOutOfBounds) => rest.iter().any(|w| {
                face_vertex(w, positions_so_far)
                    .is_some_and(|v| v.is_none_or(|v| v >= position_count))
            }),
            _ => false,
        };
        if key == "v" {
            positions_so_far += 1;
        }
        if bad {
            return Some(i + 1);
        }
    }
    None
}

/// The position index of one face corner `v`, `v/vt`, `v//vn` or `v/vt/vn` as `tobj` reads it:
/// `None` when the text is malformed, `Some(None)` when it resolves below zero.
fn face_vertex(word: &str, positions_so_far: usize) -> Option<Option<usize>> {
    let mut parts = word.split('/');
    let v = parts.next()?;
    let mut count = 1;
    for p in parts {
        count += 1;
        if !p.is_empty() && p.parse::<isize>().is_err() {
            return None;
        }
    }
    if count > 3 {
        return None;
    }
    if v.is_empty() {
        return Some(None);
    }
    let x = v.parse::<isize>().ok()?;
    Some(if x < 0 {
        positions_so_far.checked_sub(x.unsigned_abs())
    } else {
        (x as usize).checked_sub(1)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(s: &str) -> Result<TriMesh, GeometryError> {
        read_obj_from(s.as_bytes(), "t.obj")
    }

    #[test]
    fn coord_text_round_trips() {
        for x in [
            0.0,
            -0.0,
            1.0,
            0.1,
            -2.5e-7,
            1e300,
            -1e-300,
            123_456.789,
            f64::MIN_POSITIVE,
            f64::MAX,
        ] {
            let s = Coord(x).to_string();
            assert_eq!(
                s.parse::<f64>().unwrap().to_bits(),
                x.to_bits(),
                "{x} -> {s}"
            );
            assert!(s.len() < 30, "{s}");
        }
    }

    #[test]
    fn groups_share_vertices_after_merge() {
        let m = read("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\ng a\nf 1 2 3\ng b\nf 2 4 3\n").unwrap();
        assert_eq!(m.vertex_count(), 4);
        assert_eq!(m.triangle_count(), 2);
        // the shared edge 2-3 (1-based) has both faces
        assert!(m.edges().iter().any(|e| e.faces.len() == 2));
    }

    #[test]
    fn negative_indices_and_slashes() {
        let m = read("v 0 0 0\nv 1 0 0\nv 0 1 0\nvn 0 0 1\nf -3//1 -2//1 -1//1\n").unwrap();
        assert_eq!(m.triangles(), &[[0, 1, 2]]);
    }

    #[test]
    fn errors_are_located() {
        let e = read("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 x\n").unwrap_err();
        assert!(
            matches!(e, GeometryError::Parse { line: Some(4), .. }),
            "{e}"
        );
        let e = read("v 0 0 0\nv 1 0 0\nv 0 1 0\n# c\nf 1 2 3\nf 1 2 9\n").unwrap_err();
        assert!(
            matches!(e, GeometryError::Parse { line: Some(6), .. }),
            "{e}"
        );
        let e = read("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 0\n").unwrap_err();
        assert!(
            matches!(e, GeometryError::Parse { line: Some(4), .. }),
            "{e}"
        );
        let e = read_obj_from(&b"v 0 0 0\n\xff\n"[..], "t.obj").unwrap_err();
        assert!(
            matches!(e, GeometryError::Parse { line: Some(2), .. }),
            "{e}"
        );
    }

    #[test]
    fn byte_order_mark_is_skipped() {
        let m = read("\u{feff}v 0 0 0\r\nv 1 0 0\r\nv 0 1 0\r\nf 1 2 3\r\n").unwrap();
        assert_eq!(m.vertices()[0], DVec3::ZERO);
        assert_eq!(m.triangle_count(), 1);
    }

    #[test]
    fn points_and_lines_are_ignored() {
        let m = read("v 0 0 0\nv 1 0 0\nv 0 1 0\np 1\nl 1 2\nf 1 2 3\n").unwrap();
        assert_eq!(m.triangle_count(), 1);
        assert!(m.degenerate_triangles().is_empty());
    }
}
