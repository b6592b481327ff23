//! STL, binary and ASCII, with vertex welding.

use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

use glam::DVec3;

use super::{parse_error, read_all, read_file};
use crate::{GeometryError, TriMesh};

/// Bytes of the binary header (80 bytes of text + the `u32` triangle count).
const HEADER: usize = 84;
/// Bytes of one binary triangle record (normal, three vertices, attribute word).
const RECORD: usize = 50;

/// Reads an STL file, binary or ASCII.
///
/// The encoding is detected from the content, not from the first word (binary files written
/// by some exporters also start with `solid`): a file whose size is exactly
/// `84 + 50 n`, `n` being the count in bytes 80..84, is binary; otherwise a file starting with
/// `solid` (any case, after an optional byte order mark) and free of NUL bytes is ASCII; anything else is treated as binary and must then
/// have that exact size. Facet normals are ignored. STL stores each triangle's corners
/// separately, so bit-identical positions are welded (in first-seen order) to give the mesh
/// shared vertices and edges.
///
/// # Errors
/// - [`GeometryError::Io`] when the file cannot be read;
/// - [`GeometryError::Parse`] for an empty file, a binary file whose size does not match
///   its triangle count (truncated), or malformed ASCII (with the line);
/// - [`GeometryError::NonFiniteVertex`] for a NaN or infinite coordinate.
///
/// # Example
/// ```
/// use ccd_geometry::io;
///
/// // A binary STL with one triangle, written by hand.
/// let mut bytes = vec![0u8; 80];
/// bytes.extend_from_slice(&1u32.to_le_bytes());
/// for f in [0.0f32, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0] {
///     bytes.extend_from_slice(&f.to_le_bytes());
/// }
/// bytes.extend_from_slice(&[0, 0]);
/// let path = std::env::temp_dir().join(format!("ccd-read-stl-{}.stl", std::process::id()));
/// std::fs::write(&path, &bytes).unwrap();
/// let mesh = io::read_stl(&path)?;
/// std::fs::remove_file(&path).ok();
/// assert_eq!(mesh.triangles(), &[[0, 1, 2]]);
/// # Ok::<(), ccd_geometry::GeometryError>(())
/// ```
pub fn read_stl(path: impl AsRef<Path>) -> Result<TriMesh, GeometryError> {
    let path = path.as_ref();
    parse_stl(&read_file(path)?, path)
}

/// Reads STL (binary or ASCII) from `reader`; `path` is used only in error messages. See
/// [`read_stl`].
///
/// # Errors
/// As [`read_stl`].
///
/// # Example
/// ```
/// use ccd_geometry::{io, GeometryError};
///
/// let text = "solid two\n\
///   facet normal 0 0 1\n outer loop\n  vertex 0 0 0\n  vertex 1 0 0\n  vertex 0 1 0\n endloop\n endfacet\n\
///   facet normal 0 0 1\n outer loop\n  vertex 1 0 0\n  vertex 1 1 0\n  vertex 0 1 0\n endloop\n endfacet\n\
///   endsolid two\n";
/// let mesh = io::read_stl_from(text.as_bytes(), "two.stl")?;
/// assert_eq!(mesh.vertex_count(), 4); // six corners welded into four vertices
/// assert_eq!(mesh.triangles(), &[[0, 1, 2], [1, 3, 2]]);
///
/// let truncated = io::read_stl_from(&[0u8; 90][..], "short.stl");
/// assert!(matches!(truncated, Err(GeometryError::Parse { .. })));
/// # Ok::<(), GeometryError>(())
/// ```
pub fn read_stl_from(reader: impl Read, path: impl AsRef<Path>) -> Result<TriMesh, GeometryError> {
    let path = path.as_ref();
    parse_stl(&read_all(reader, path)?, path)
}

fn parse_stl(bytes: &[u8], path: &Path) -> Result<TriMesh, GeometryError> {
    if bytes.is_empty() {
        return Err(parse_error(path, None, "file is empty"));
    }
    let announced = bytes
        .get(80..HEADER)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    let binary_size = announced.map(|n| HEADER as u64 + RECORD as u64 * u64::from(n));
    if binary_size == Some(bytes.len() as u64) {
        return parse_binary(bytes, path);
    }
    let text = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes); // UTF-8 byte order mark
    let starts_with_solid = text
        .trim_ascii_start()
        .get(..5)
        .is_some_and(|w| w.eq_ignore_ascii_case(b"solid"));
    if starts_with_solid && !bytes.contains(&0) {
        return parse_ascii(text, path);
    }
    match (announced, binary_size) {
        (Some(n), Some(size)) => {
            let have = bytes.len();
            let reason = if (have as u64) < size {
                format!(
                    "truncated binary STL: the header announces {n} triangles ({size} bytes) but the file has {have} bytes"
                )
            } else {
                format!(
                    "binary STL has {} bytes after the {n} triangles its header announces",
                    have as u64 - size
                )
            };
            Err(parse_error(path, None, reason))
        }
        _ => Err(parse_error(
            path,
            None,
            format!(
                "{} bytes: too short for a binary STL and not an ASCII STL (no leading `solid`)",
                bytes.len()
            ),
        )),
    }
}

/// Welds corners with bit-identical positions (`-0.0` and `0.0` count as one).
pub(crate) struct Welder {
    map: HashMap<[u64; 3], u32>,
    vertices: Vec<DVec3>,
    triangles: Vec<[u32; 3]>,
}

impl Welder {
    pub(crate) fn with_capacity(triangles: usize) -> Self {
        Self {
            map: HashMap::with_capacity(triangles),
            vertices: Vec::with_capacity(triangles),
            triangles: Vec::with_capacity(triangles),
        }
    }

    fn vertex(&mut self, p: DVec3) -> Result<u32, GeometryError> {
        let p = p + DVec3::ZERO; // -0.0 + 0.0 = 0.0
        let key = [p.x.to_bits(), p.y.to_bits(), p.z.to_bits()];
        if let Some(&i) = self.map.get(&key) {
            return Ok(i);
        }
        let i = u32::try_from(self.vertices.len())
            .ok()
            .filter(|&i| i < u32::MAX)
            .ok_or(GeometryError::TooManyVertices(self.vertices.len()))?;
        self.map.insert(key, i);
        self.vertices.push(p);
        Ok(i)
    }

    pub(crate) fn triangle(&mut self, corners: [DVec3; 3]) -> Result<(), GeometryError> {
        let tri = [
            self.vertex(corners[0])?,
            self.vertex(corners[1])?,
            self.vertex(corners[2])?,
        ];
        self.triangles.push(tri);
        Ok(())
    }

    pub(crate) fn finish(self) -> Result<TriMesh, GeometryError> {
        TriMesh::new(self.vertices, self.triangles)
    }
}

fn parse_binary(bytes: &[u8], path: &Path) -> Result<TriMesh, GeometryError> {
    let body = bytes
        .get(HEADER..)
        .ok_or_else(|| parse_error(path, None, "binary STL shorter than its header"))?;
    let mut welder = Welder::with_capacity(body.len() / RECORD);
    let f = |r: &[u8], at: usize| {
        f64::from(f32::from_le_bytes([r[at], r[at + 1], r[at + 2], r[at + 3]]))
    };
    for r in body.chunks_exact(RECORD) {
        let corner = |k: usize| DVec3::new(f(r, 12 + 12 * k), f(r, 16 + 12 * k), f(r, 20 + 12 * k));
        welder.triangle([corner(0), corner(1), corner(2)])?;
    }
    welder.finish()
}

fn parse_ascii(bytes: &[u8], path: &Path) -> Result<TriMesh, GeometryError> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let line = 1 + bytes[..e.valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        parse_error(path, Some(line), "ASCII STL is not UTF-8 text")
    })?;
    let err = |line: usize, reason: String| parse_error(path, Some(line), reason);
    // `vertex x y z` lines are about 40 bytes; a facet is about 7 lines.
    let mut welder = Welder::with_capacity(bytes.len() / 256);
    #[derive(PartialEq)]
    enum State {
        Outside,
        InSolid,
        InFacet,
        InLoop,
    }
    let mut state = State::Outside;
    let mut corners: Vec<DVec3> = Vec::with_capacity(3);
    let mut last_line = 0;
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        last_line = n;
        let mut words = line.split_whitespace();
        let Some(word) = words.next() else { continue };
        let key = word.to_ascii_lowercase(); // some exporters write upper case
        match (key.as_str(), &state) {
            ("solid", State::Outside) => state = State::InSolid,
            ("endsolid", State::InSolid) => state = State::Outside,
            ("facet", State::InSolid) => state = State::InFacet,
            ("outer", State::InFacet) => {
                if !words.next().is_some_and(|w| w.eq_ignore_ascii_case("loop")) {
                    return Err(err(n, "expected `outer loop`".to_owned()));
                }
                corners.clear();
                state = State::InLoop;
            }
            ("vertex", State::InLoop) => {
                let mut c = [0.0; 3];
                for slot in &mut c {
                    let w = words
                        .next()
                        .ok_or_else(|| err(n, "`vertex` needs three coordinates".to_owned()))?;
                    *slot = w
                        .parse()
                        .map_err(|_| err(n, format!("bad coordinate `{w}`")))?;
                }
                if words.next().is_some() {
                    return Err(err(
                        n,
                        "`vertex` has more than three coordinates".to_owned(),
                    ));
                }
                corners.push(DVec3::from_array(c));
            }
            ("endloop", State::InLoop) => {
                if corners.len() < 3 {
                    return Err(err(
                        n,
                        format!("facet has {} vertices; at least 3 needed", corners.len()),
                    ));
                }
                // Polygons (non-standard) are fan-triangulated.
                for k in 1..corners.len() - 1 {
                    welder.triangle([corners[0], corners[k], corners[k + 1]])?;
                }
                state = State::InFacet;
            }
            ("endfacet", State::InFacet) => state = State::InSolid,
            _ => {
                let expected = match state {
                    State::Outside => "`solid`",
                    State::InSolid => "`facet` or `endsolid`",
                    State::InFacet => "`outer loop` or `endfacet`",
                    State::InLoop => "`vertex` or `endloop`",
                };
                let shown: String = word.chars().take(32).collect();
                return Err(err(n, format!("unexpected `{shown}`, expected {expected}")));
            }
        }
    }
    if state != State::Outside {
        return Err(err(
            last_line,
            "unexpected end of file (missing `endsolid`)".to_owned(),
        ));
    }
    welder.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn binary(tris: &[[[f32; 3]; 3]], header: &[u8]) -> Vec<u8> {
        let mut b = header.to_vec();
        b.resize(80, b' ');
        b.extend_from_slice(&(tris.len() as u32).to_le_bytes());
        for t in tris {
            b.extend_from_slice(&[0u8; 12]);
            for c in t {
                for x in c {
                    b.extend_from_slice(&x.to_le_bytes());
                }
            }
            b.extend_from_slice(&[0, 0]);
        }
        b
    }

    #[test]
    fn binary_starting_with_solid_is_binary() {
        let tris = [
            [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
            [[1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0]],
        ];
        let b = binary(&tris, b"solid exported by a tool that should not");
        let m = read_stl_from(&b[..], "s.stl").unwrap();
        assert_eq!(m.vertex_count(), 4);
        assert_eq!(m.triangle_count(), 2);
        // truncated: still detected as binary (NUL bytes), reported as truncated
        let e = read_stl_from(&b[..b.len() - 7], "s.stl").unwrap_err();
        assert!(e.to_string().contains("truncated"), "{e}");
    }

    #[test]
    fn negative_zero_welds_with_zero() {
        let tris = [
            [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
            [[-0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
        ];
        let m = read_stl_from(&binary(&tris, b"x")[..], "z.stl").unwrap();
        assert_eq!(m.vertex_count(), 4);
    }

    #[test]
    fn ascii_errors_name_the_line() {
        let e = read_stl_from(
            &b"solid a\nfacet normal 0 0 1\nouter loop\nvertex 0 0 zz\n"[..],
            "a.stl",
        )
        .unwrap_err();
        assert!(
            matches!(e, GeometryError::Parse { line: Some(4), .. }),
            "{e}"
        );
        let e = read_stl_from(
            &b"solid a\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\n"[..],
            "a.stl",
        )
        .unwrap_err();
        assert!(
            matches!(e, GeometryError::Parse { line: Some(4), .. }),
            "{e}"
        );
        let e = read_stl_from(
            &b"solid a\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nendloop\n"[..],
            "a.stl",
        )
        .unwrap_err();
        assert!(e.to_string().contains("at least 3"), "{e}");
        let m = read_stl_from(&b"solid empty\nendsolid empty\n"[..], "a.stl").unwrap();
        assert_eq!(m.triangle_count(), 0);
        let upper = "\u{feff}SOLID X\nFACET NORMAL 0 0 1\nOUTER LOOP\nVERTEX 0 0 0\nVERTEX 1 0 0\nVERTEX 0 1 0\n\
                     ENDLOOP\nENDFACET\nENDSOLID X\n";
        let m = read_stl_from(upper.as_bytes(), "a.stl").unwrap();
        assert_eq!(m.triangle_count(), 1);
    }
}
