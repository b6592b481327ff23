//! Wavefront OBJ: a small reader of `v` and `f` lines, and a writer.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::Path;

use glam::DVec3;

use super::{io_error, parse_error, read_all, read_file};
use crate::{GeometryError, TriMesh};

/// Reads a Wavefront OBJ file into one mesh.
///
/// Only `v` (positions, with an optional weight `w` that divides them or an ignored colour)
/// and `f` (faces) are used; texture coordinates, normals, materials, points and lines are
/// ignored (`mtllib` files are never opened), though the texture and normal indices of face
/// corners are checked. Text after `#` is a comment. Polygons are fan-triangulated and every
/// object/group is merged into one mesh.
///
/// Vertex numbering: vertices are numbered in order of first use by a face, and vertices no
/// face uses are dropped. A file written by [`write_obj`] from a mesh whose vertices are all
/// used, in first-use order, reads back with identical numbering. When a group (`o`/`g`)
/// uses a position bit-identical to one an earlier group used, both get the same vertex, so
/// groups exported with their own copies of seam vertices stay connected.
///
/// Indices may be negative (counting back from the last line of their kind before the face)
/// and positive ones may name lines further down the file.
///
/// # Errors
/// - [`GeometryError::Io`] when the file cannot be read;
/// - [`GeometryError::Parse`] with the 1-based line for text that is not UTF-8, a malformed
///   number, a `v` line with a wrong number of values or a zero weight, a face with fewer
///   than three corners, a malformed, zero or overflowing index, or an index (vertex, texture
///   coordinate or normal) naming a line that does not exist;
/// - [`GeometryError::Parse`] without a line for an empty file or a file without faces;
/// - [`GeometryError::NonFiniteVertex`] for a `nan`/`inf` coordinate of a used vertex.
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
/// written in the shortest form that reads back to the same `f64`. Every mesh this accepts
/// reads back with [`read_obj`] (same triangles, bit-identical corner positions).
///
/// # Errors
/// [`GeometryError::EmptyMesh`] for a mesh without triangles (no file is created: a faceless
/// OBJ file would not read back); [`GeometryError::Io`] when the file cannot be created or
/// written.
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
    check_writable(mesh, path)?;
    let file = File::create(path).map_err(|e| io_error(path, e))?;
    write_obj_to(file, mesh, path)
}

/// Writes `mesh` as OBJ text to `writer` (buffered internally); `path` is used only in error
/// messages. See [`write_obj`].
///
/// # Errors
/// [`GeometryError::EmptyMesh`] for a mesh without triangles (nothing is written);
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
    check_writable(mesh, path)?;
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

/// Rejects a mesh the OBJ reader could not read back: one without triangles.
fn check_writable(mesh: &TriMesh, path: &Path) -> Result<(), GeometryError> {
    if mesh.triangle_count() == 0 {
        return Err(GeometryError::EmptyMesh {
            path: path.to_path_buf(),
        });
    }
    Ok(())
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

/// What one face corner names: a 0-based position (resolved when the text is relative, else
/// still to be checked against the final count).
#[derive(Clone, Copy)]
enum Corner {
    /// A relative index, already resolved against the positions defined before the face.
    Resolved(usize),
    /// A 1-based absolute index, checked once every `v` line has been read (OBJ allows faces
    /// before the vertices they name).
    Absolute(u64),
}

/// A face as read: where its corners start in the shared corner list, its line, its group.
struct Face {
    start: usize,
    line: usize,
    group: u32,
}

/// Counts of `v`, `vt`, `vn` lines so far.
#[derive(Clone, Copy, Default)]
struct Counts {
    v: usize,
    vt: usize,
    vn: usize,
}

/// The largest absolute `vt` / `vn` index used, with its line, for the end-of-file check.
#[derive(Clone, Copy, Default)]
struct MaxRef {
    index: u64,
    line: usize,
}

fn parse_obj(bytes: &[u8], path: &Path) -> Result<TriMesh, GeometryError> {
    // A UTF-8 byte order mark would hide the first line's keyword.
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
    let err = |line: usize, reason: String| parse_error(path, Some(line), reason);

    let mut positions: Vec<DVec3> = Vec::new();
    let mut counts = Counts::default();
    let mut max_vt = MaxRef::default();
    let mut max_vn = MaxRef::default();
    let mut corners: Vec<Corner> = Vec::new();
    let mut faces: Vec<Face> = Vec::new();
    // Objects and groups (`o`, `g`) number the groups of faces; only groups with faces count.
    let mut group = 0u32;
    let mut group_has_faces = false;
    for (i, raw) in text.split('\n').enumerate() {
        let n = i + 1;
        // Anything after `#` is a comment.
        let line = raw.split_once('#').map_or(raw, |(data, _)| data);
        let mut words = line.split_ascii_whitespace();
        let Some(key) = words.next() else { continue };
        match key {
            "v" => {
                let mut xyz = [0.0; 3];
                for slot in &mut xyz {
                    let w = words
                        .next()
                        .ok_or_else(|| err(n, "`v` needs three coordinates".to_owned()))?;
                    *slot =
                        number(w).ok_or_else(|| err(n, format!("bad coordinate `{}`", clip(w))))?;
                }
                let extra: Vec<&str> = words.collect();
                let mut p = DVec3::from_array(xyz);
                match extra[..] {
                    [] => {}
                    // a homogeneous weight
                    [w] => {
                        let w =
                            number(w).ok_or_else(|| err(n, format!("bad weight `{}`", clip(w))))?;
                        if w == 0.0 {
                            return Err(err(n, "vertex weight `w` is zero".to_owned()));
                        }
                        p /= w;
                    }
                    // a vertex colour (not used)
                    [_, _, _] => {}
                    _ => {
                        return Err(err(
                            n,
                            format!(
                                "`v` has {} values; expected x y z, x y z w or x y z r g b",
                                3 + extra.len()
                            ),
                        ));
                    }
                }
                positions.push(p);
                counts.v += 1;
            }
            "vt" => counts.vt += 1,
            "vn" => counts.vn += 1,
            "o" | "g" if group_has_faces => {
                group = group.saturating_add(1);
                group_has_faces = false;
            }
            "f" => {
                let start = corners.len();
                for w in words {
                    let corner = face_corner(w, counts, &mut max_vt, &mut max_vn, n)
                        .map_err(|why| err(n, why))?;
                    corners.push(corner);
                }
                let k = corners.len() - start;
                if k < 3 {
                    return Err(err(
                        n,
                        format!("face has {k} vertices; at least 3 are needed"),
                    ));
                }
                faces.push(Face {
                    start,
                    line: n,
                    group,
                });
                group_has_faces = true;
            }
            // Points, lines, materials, smoothing groups, free-form geometry: not used.
            _ => {}
        }
    }
    for (what, max, count) in [
        ("texture coordinate", max_vt, counts.vt),
        ("normal", max_vn, counts.vn),
    ] {
        if max.index > count as u64 {
            return Err(err(
                max.line,
                format!(
                    "face refers to {what} {} but the file has {count}",
                    max.index
                ),
            ));
        }
    }
    if faces.is_empty() {
        return Err(parse_error(
            path,
            None,
            format!(
                "OBJ file has no faces ({} vertices); a mesh needs at least one `f` line",
                positions.len()
            ),
        ));
    }
    build_mesh(&positions, &corners, &faces, path)
}

/// Numbers the used positions in order of first use, fan-triangulates the faces and
/// validates the mesh.
///
/// A position is one vertex within a group. A group meeting a position whose bit-identical
/// copy (`-0.0` = `0.0`) was first used by an earlier group reuses that vertex, so groups
/// exported with their own copies of seam vertices stay connected; copies within one group
/// are kept apart, as the file says.
fn build_mesh(
    positions: &[DVec3],
    corners: &[Corner],
    faces: &[Face],
    path: &Path,
) -> Result<TriMesh, GeometryError> {
    let multi = faces.first().map(|f| f.group) != faces.last().map(|f| f.group);
    // Per position: (group of its last use, vertex index).
    let mut used: Vec<Option<(u32, u32)>> = vec![None; positions.len()];
    // Per bit pattern: (group that created it, vertex index).
    let mut seen: HashMap<[u64; 3], (u32, u32)> = HashMap::new();
    let mut vertices: Vec<DVec3> = Vec::new();
    let mut triangles: Vec<[u32; 3]> =
        Vec::with_capacity(corners.len().saturating_sub(2 * faces.len()));
    let mut fan: Vec<u32> = Vec::new();
    for (k, face) in faces.iter().enumerate() {
        let end = faces.get(k + 1).map_or(corners.len(), |f| f.start);
        fan.clear();
        for &corner in &corners[face.start..end] {
            let p = match corner {
                Corner::Resolved(p) => p,
                Corner::Absolute(a) => usize::try_from(a - 1)
                    .ok()
                    .filter(|&p| p < positions.len())
                    .ok_or_else(|| {
                        parse_error(
                            path,
                            Some(face.line),
                            format!(
                                "face refers to vertex {a} but the file has {} vertices",
                                positions.len()
                            ),
                        )
                    })?,
            };
            let vertex = match used[p] {
                Some((g, v)) if g == face.group => v,
                _ => {
                    let pos = positions[p] + DVec3::ZERO; // -0.0 + 0.0 = 0.0
                    let key = pos.to_array().map(f64::to_bits);
                    let earlier = seen
                        .get(&key)
                        .filter(|&&(g, _)| multi && g < face.group)
                        .map(|&(_, v)| v);
                    let v = match earlier {
                        Some(v) => v,
                        None => {
                            let v = u32::try_from(vertices.len())
                                .ok()
                                .filter(|&v| v < u32::MAX)
                                .ok_or(GeometryError::TooManyVertices(vertices.len()))?;
                            vertices.push(positions[p]);
                            seen.entry(key).or_insert((face.group, v));
                            v
                        }
                    };
                    used[p] = Some((face.group, v));
                    v
                }
            };
            fan.push(vertex);
        }
        for i in 1..fan.len() - 1 {
            triangles.push([fan[0], fan[i], fan[i + 1]]);
        }
    }
    TriMesh::new(vertices, triangles)
}

/// A coordinate: any `f64` text Rust reads (`nan`/`inf` included; [`TriMesh::new`] rejects
/// those with a typed error).
fn number(w: &str) -> Option<f64> {
    w.parse().ok()
}

/// At most 32 characters of `s`, for error messages.
fn clip(s: &str) -> String {
    s.chars().take(32).collect()
}

/// One face corner `v`, `v/vt`, `v//vn` or `v/vt/vn` on line `line`. Every index must be a
/// non-zero integer; a negative one counts back from the lines of its kind read so far and
/// must stay inside them. Texture and normal indices are only checked (they are not used);
/// the largest absolute ones are recorded in `max_vt` / `max_vn` for the end-of-file check.
fn face_corner(
    word: &str,
    counts: Counts,
    max_vt: &mut MaxRef,
    max_vn: &mut MaxRef,
    line: usize,
) -> Result<Corner, String> {
    let mut parts = word.split('/');
    let v = parts.next().unwrap_or_default();
    let vt = parts.next();
    let vn = parts.next();
    if parts.next().is_some() {
        return Err(format!(
            "face corner `{}` has more than three indices",
            clip(word)
        ));
    }
    let corner = match index(v, counts.v, "vertex", word)? {
        Some(Index::Relative(p)) => Corner::Resolved(p),
        Some(Index::Absolute(a)) => Corner::Absolute(a),
        None => return Err(format!("face corner `{}` has no vertex index", clip(word))),
    };
    for (text, count, what, max) in [
        (vt, counts.vt, "texture coordinate", max_vt),
        (vn, counts.vn, "normal", max_vn),
    ] {
        if let Some(Index::Absolute(a)) = index(text.unwrap_or_default(), count, what, word)?
            && a > max.index
        {
            *max = MaxRef { index: a, line };
        }
    }
    Ok(corner)
}

/// A checked OBJ index.
enum Index {
    /// A negative index resolved to a 0-based one.
    Relative(usize),
    /// A positive (1-based) index, not yet checked against the final count.
    Absolute(u64),
}

/// Reads one index of a face corner (`None` when `text` is empty). `so_far` is the number of
/// lines of its kind before the face.
fn index(text: &str, so_far: usize, what: &str, word: &str) -> Result<Option<Index>, String> {
    if text.is_empty() {
        return Ok(None);
    }
    let x: i64 = text.parse().map_err(|_| {
        format!(
            "bad {what} index `{}` in face corner `{}`",
            clip(text),
            clip(word)
        )
    })?;
    match x {
        0 => Err(format!("{what} index 0 in face corner `{}` (OBJ indices start at 1)", clip(word))),
        1.. => Ok(Some(Index::Absolute(x.unsigned_abs()))),
        _ => usize::try_from(x.unsigned_abs())
            .ok()
            .and_then(|back| so_far.checked_sub(back))
            .map(|p| Some(Index::Relative(p)))
            .ok_or_else(|| {
                format!(
                    "relative {what} index {x} in face corner `{}` reaches before the first (only {so_far} defined so far)",
                    clip(word)
                )
            }),
    }
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
    fn short_faces_and_faceless_files_are_errors() {
        let e = read("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 1 2\n").unwrap_err();
        assert!(
            matches!(e, GeometryError::Parse { line: Some(5), .. }),
            "{e}"
        );
        assert!(e.to_string().contains("at least 3"), "{e}");
        let e = read("v 0 0 0\nv 1 0 0\nv 0 1 0\nf\n").unwrap_err();
        assert!(
            matches!(e, GeometryError::Parse { line: Some(4), .. }),
            "{e}"
        );
        let e = read("v 0 0 0\nv 1 0 0\nv 0 1 0\n# no faces\n").unwrap_err();
        assert!(matches!(e, GeometryError::Parse { line: None, .. }), "{e}");
        assert!(e.to_string().contains("no faces"), "{e}");
    }

    #[test]
    fn texture_and_normal_indices_are_checked() {
        let base = "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvn 0 0 1\n";
        let ok = read(&format!("{base}f 1/1/1 2/-1/-1 3//1\n")).unwrap();
        assert_eq!(ok.triangles(), &[[0, 1, 2]]);
        for (face, what) in [
            ("f 1/2 2/1 3/1", "texture coordinate 2"),
            ("f 1//1 2//7 3//1", "normal 7"),
            ("f 1/-2 2/1 3/1", "relative texture coordinate index -2"),
            ("f 1/0 2/1 3/1", "index 0"),
            ("f 1/x 2/1 3/1", "bad texture coordinate index"),
            ("f 1/1/1/1 2 3", "more than three"),
            ("f /1 2 3", "no vertex index"),
            ("f 1 2 99999999999999999999", "bad vertex index"),
            ("f 1 2 -9223372036854775808", "relative vertex index"),
        ] {
            let e = read(&format!("{base}{face}\n")).unwrap_err();
            assert!(
                matches!(e, GeometryError::Parse { line: Some(6), .. }),
                "{face}: {e}"
            );
            assert!(e.to_string().contains(what), "{face}: {e}");
        }
    }

    #[test]
    fn forward_references_weights_and_comments() {
        // faces may name vertices defined later; `w` divides; `#` starts a comment
        let m = read("f 1 2 3 # first\nv 0 0 0\nv 2 0 0 2\nv 0 1 0 1 0 0\n").unwrap();
        assert_eq!(m.vertices(), &[DVec3::ZERO, DVec3::X, DVec3::Y]);
        let e = read("v 0 0 0\nv 1 0 0 0\nv 0 1 0\nf 1 2 3\n").unwrap_err();
        assert!(
            matches!(e, GeometryError::Parse { line: Some(2), .. }),
            "{e}"
        );
        let e = read("v 0 0 0\nv 1 0 0 1 1\nv 0 1 0\nf 1 2 3\n").unwrap_err();
        assert!(
            matches!(e, GeometryError::Parse { line: Some(2), .. }),
            "{e}"
        );
        // a relative index counts back from the vertices read so far
        let m = read("v 0 0 0\nv 1 0 0\nv 0 1 0\nf -3 -2 -1\nv 0 0 1\nf -4 -1 -3\n").unwrap();
        assert_eq!(m.triangles(), &[[0, 1, 2], [0, 3, 1]]);
    }

    #[test]
    fn unused_vertices_are_dropped_and_numbering_follows_first_use() {
        let m = read("v 9 9 9\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 4 2 3\nf 3 2 4\n").unwrap();
        assert_eq!(m.vertices(), &[DVec3::Y, DVec3::ZERO, DVec3::X]);
        assert_eq!(m.triangles(), &[[0, 1, 2], [2, 1, 0]]);
    }

    #[test]
    fn copies_join_across_groups_only() {
        // group b has its own copies of two of group a's positions: joined
        let m = read(
            "o a\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\no b\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 4 6 5\n",
        )
        .unwrap();
        assert_eq!(m.vertex_count(), 4);
        assert_eq!(m.triangles(), &[[0, 1, 2], [1, 3, 2]]);
        // the same copies inside one group stay apart
        let m = read("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nv -0 0 0\nv 1 1 0\nf 4 5 3\n").unwrap();
        assert_eq!(m.vertex_count(), 5);
        // and `-0.0` joins `0.0` across groups
        let m =
            read("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\ng b\nv -0 0 0\nv 1 1 0\nf 4 5 3\n").unwrap();
        assert_eq!(m.vertex_count(), 4);
    }

    #[test]
    fn points_and_lines_are_ignored() {
        let m = read("v 0 0 0\nv 1 0 0\nv 0 1 0\np 1\nl 1 2\nvp 0.5\ns off\nusemtl x\nf 1 2 3\n")
            .unwrap();
        assert_eq!(m.triangle_count(), 1);
        assert!(m.degenerate_triangles().is_empty());
    }
}
