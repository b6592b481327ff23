//! Stanford PLY: header plus `ascii`, `binary_little_endian` or `binary_big_endian` body.

use std::io::Read;
use std::path::Path;

use glam::DVec3;

use super::{parse_error, read_all, read_file};
use crate::{GeometryError, TriMesh};

/// Reads a PLY file.
///
/// Supports the three standard encodings (`ascii`, `binary_little_endian`,
/// `binary_big_endian`) and every standard scalar type (`char`/`int8` … `double`/`float64`).
/// The `vertex` element must have scalar `x`, `y`, `z` properties (any numeric type); other
/// vertex properties (colours, normals, lists) and other elements are read past and ignored
/// (an element without properties has empty rows, so its count is never looped over).
/// Faces come from the `face` element's `vertex_indices` (or `vertex_index`) list, with any
/// count and index types; polygons are fan-triangulated and faces with fewer than three
/// indices are skipped. A file without a `face` element gives a mesh without triangles.
///
/// # Errors
/// - [`GeometryError::Io`] when the file cannot be read;
/// - [`GeometryError::Parse`] for an empty file, a malformed or unsupported header (with the
///   line), a body shorter than the header announces, a malformed ASCII value (with the
///   line), or a negative or over-large face index;
/// - [`GeometryError::NonFiniteVertex`] for a NaN or infinite coordinate;
/// - [`GeometryError::IndexOutOfRange`] for a face index `>=` the vertex count.
///
/// # Example
/// ```
/// use ccd_geometry::io;
///
/// let mut bytes = b"ply\nformat binary_big_endian 1.0\nelement vertex 3\n\
///     property double x\nproperty double y\nproperty double z\nproperty uchar red\n\
///     element face 1\nproperty list uchar int vertex_indices\nend_header\n"
///     .to_vec();
/// for (p, red) in [([0.0f64, 0.0, 0.0], 255u8), ([1.0, 0.0, 0.0], 0), ([0.0, 1.0, 0.0], 9)] {
///     for x in p {
///         bytes.extend_from_slice(&x.to_be_bytes());
///     }
///     bytes.push(red);
/// }
/// bytes.push(3);
/// for i in [0i32, 1, 2] {
///     bytes.extend_from_slice(&i.to_be_bytes());
/// }
/// let path = std::env::temp_dir().join(format!("ccd-read-ply-{}.ply", std::process::id()));
/// std::fs::write(&path, &bytes).unwrap();
/// let mesh = io::read_ply(&path)?;
/// std::fs::remove_file(&path).ok();
/// assert_eq!(mesh.vertex_count(), 3);
/// assert_eq!(mesh.triangles(), &[[0, 1, 2]]);
/// # Ok::<(), ccd_geometry::GeometryError>(())
/// ```
pub fn read_ply(path: impl AsRef<Path>) -> Result<TriMesh, GeometryError> {
    let path = path.as_ref();
    parse_ply(&read_file(path)?, path)
}

/// Reads PLY from `reader`; `path` is used only in error messages. See [`read_ply`].
///
/// # Errors
/// As [`read_ply`].
///
/// # Example
/// ```
/// use ccd_geometry::{io, GeometryError};
///
/// let ply = "ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\nproperty float y\n\
///            property float z\nelement face 1\nproperty list uchar uint vertex_indices\n\
///            end_header\n0 0 0\n1 0 0\n1 1 0\n0 1 0\n4 0 1 2 3\n";
/// let quad = io::read_ply_from(ply.as_bytes(), "quad.ply")?;
/// assert_eq!(quad.triangles(), &[[0, 1, 2], [0, 2, 3]]);
///
/// let bad = io::read_ply_from(ply.replace("1 1 0", "1 one 0").as_bytes(), "bad.ply");
/// assert!(matches!(bad, Err(GeometryError::Parse { line: Some(12), .. })));
/// # Ok::<(), GeometryError>(())
/// ```
pub fn read_ply_from(reader: impl Read, path: impl AsRef<Path>) -> Result<TriMesh, GeometryError> {
    let path = path.as_ref();
    parse_ply(&read_all(reader, path)?, path)
}

/// A scalar property type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scalar {
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    F32,
    F64,
}

impl Scalar {
    fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "char" | "int8" => Self::I8,
            "uchar" | "uint8" => Self::U8,
            "short" | "int16" => Self::I16,
            "ushort" | "uint16" => Self::U16,
            "int" | "int32" => Self::I32,
            "uint" | "uint32" => Self::U32,
            "float" | "float32" => Self::F32,
            "double" | "float64" => Self::F64,
            _ => return None,
        })
    }

    const fn size(self) -> usize {
        match self {
            Self::I8 | Self::U8 => 1,
            Self::I16 | Self::U16 => 2,
            Self::I32 | Self::U32 | Self::F32 => 4,
            Self::F64 => 8,
        }
    }

    const fn is_float(self) -> bool {
        matches!(self, Self::F32 | Self::F64)
    }

    /// The range of an integer type.
    const fn range(self) -> (i64, i64) {
        match self {
            Self::I8 => (i8::MIN as i64, i8::MAX as i64),
            Self::U8 => (0, u8::MAX as i64),
            Self::I16 => (i16::MIN as i64, i16::MAX as i64),
            Self::U16 => (0, u16::MAX as i64),
            Self::I32 => (i32::MIN as i64, i32::MAX as i64),
            Self::U32 => (0, u32::MAX as i64),
            Self::F32 | Self::F64 => (i64::MIN, i64::MAX),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Scalar(Scalar),
    /// A list: count type, item type.
    List(Scalar, Scalar),
}

#[derive(Debug)]
struct Property {
    name: String,
    kind: Kind,
}

#[derive(Debug)]
struct Element {
    name: String,
    count: usize,
    properties: Vec<Property>,
}

impl Element {
    /// Lower bound on the body bytes of one row.
    fn min_row_bytes(&self, ascii: bool) -> usize {
        self.properties
            .iter()
            .map(|p| match (ascii, p.kind) {
                // a value and its separator
                (true, _) => 2,
                (false, Kind::Scalar(t) | Kind::List(t, _)) => t.size(),
            })
            .sum()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Encoding {
    Ascii,
    BinaryLittle,
    BinaryBig,
}

struct Header {
    encoding: Encoding,
    elements: Vec<Element>,
    /// Byte offset of the body.
    body_start: usize,
    /// Number of lines in the header (the body's first line is `lines + 1`).
    lines: usize,
}

/// Maximum header size accepted (real headers are a few hundred bytes).
const MAX_HEADER: usize = 1 << 20;

fn parse_header(bytes: &[u8], path: &Path) -> Result<Header, GeometryError> {
    let err = |line: usize, reason: String| parse_error(path, Some(line), reason);
    let mut pos = 0;
    let mut line_no = 0;
    let mut encoding = None;
    let mut elements: Vec<Element> = Vec::new();
    loop {
        if pos >= bytes.len() || pos > MAX_HEADER {
            return Err(parse_error(
                path,
                Some(line_no.max(1)),
                "PLY header has no `end_header` line (truncated or not a PLY file)",
            ));
        }
        let rest = &bytes[pos..];
        let (raw, next) = match rest.iter().position(|&b| b == b'\n' || b == b'\r') {
            Some(i) => {
                // "\r\n" counts as one line break
                let skip = if rest[i] == b'\r' && rest.get(i + 1) == Some(&b'\n') {
                    2
                } else {
                    1
                };
                (&rest[..i], pos + i + skip)
            }
            None => (rest, bytes.len()),
        };
        line_no += 1;
        pos = next;
        let line = std::str::from_utf8(raw)
            .map_err(|_| err(line_no, "PLY header line is not UTF-8 text".to_owned()))?;
        let words: Vec<&str> = line.split_whitespace().collect();
        if line_no == 1 {
            if words != ["ply"] {
                return Err(err(
                    1,
                    "not a PLY file (the first line must be `ply`)".to_owned(),
                ));
            }
            continue;
        }
        let Some((&key, args)) = words.split_first() else {
            continue;
        };
        match key {
            "format" => {
                if encoding.is_some() {
                    return Err(err(line_no, "second `format` line".to_owned()));
                }
                let (Some(&kind), Some(&version), None) = (args.first(), args.get(1), args.get(2))
                else {
                    return Err(err(
                        line_no,
                        "`format` needs an encoding and a version".to_owned(),
                    ));
                };
                encoding = Some(match kind {
                    "ascii" => Encoding::Ascii,
                    "binary_little_endian" => Encoding::BinaryLittle,
                    "binary_big_endian" => Encoding::BinaryBig,
                    other => {
                        return Err(err(
                            line_no,
                            format!("unknown PLY format `{}`", clip(other)),
                        ));
                    }
                });
                if !matches!(version, "1.0" | "1") {
                    return Err(err(
                        line_no,
                        format!("unsupported PLY version `{}`", clip(version)),
                    ));
                }
            }
            "comment" | "obj_info" => {}
            "element" => {
                let (Some(&name), Some(&count), None) = (args.first(), args.get(1), args.get(2))
                else {
                    return Err(err(
                        line_no,
                        "`element` needs a name and a count".to_owned(),
                    ));
                };
                let count = count
                    .parse::<usize>()
                    .map_err(|_| err(line_no, format!("bad element count `{}`", clip(count))))?;
                elements.push(Element {
                    name: name.to_owned(),
                    count,
                    properties: Vec::new(),
                });
            }
            "property" => {
                let element = elements
                    .last_mut()
                    .ok_or_else(|| err(line_no, "`property` before any `element`".to_owned()))?;
                let ty = |name: &str| {
                    Scalar::from_name(name).ok_or_else(|| {
                        err(line_no, format!("unknown property type `{}`", clip(name)))
                    })
                };
                let property = match args {
                    ["list", count, item, name] => {
                        let count = ty(count)?;
                        if count.is_float() {
                            return Err(err(
                                line_no,
                                "list count type must be an integer type".to_owned(),
                            ));
                        }
                        Property {
                            name: (*name).to_owned(),
                            kind: Kind::List(count, ty(item)?),
                        }
                    }
                    [t, name] if *t != "list" => Property {
                        name: (*name).to_owned(),
                        kind: Kind::Scalar(ty(t)?),
                    },
                    _ => return Err(err(line_no, "malformed `property` line".to_owned())),
                };
                element.properties.push(property);
            }
            "end_header" => {
                if !args.is_empty() {
                    return Err(err(line_no, "text after `end_header`".to_owned()));
                }
                let encoding = encoding
                    .ok_or_else(|| err(line_no, "PLY header has no `format` line".to_owned()))?;
                return Ok(Header {
                    encoding,
                    elements,
                    body_start: pos,
                    lines: line_no,
                });
            }
            other => {
                return Err(err(
                    line_no,
                    format!("unknown PLY header keyword `{}`", clip(other)),
                ));
            }
        }
    }
}

/// At most 32 characters of `s`, for error messages.
fn clip(s: &str) -> String {
    s.chars().take(32).collect()
}

/// Why a body value could not be read.
enum Fail {
    /// The data ended.
    Eof,
    /// A malformed value, with the reason.
    Bad(String),
}

/// A source of body values: binary bytes or ASCII tokens.
trait Body {
    /// The next value of type `ty`, as `f64`.
    fn real(&mut self, ty: Scalar) -> Result<f64, Fail>;
    /// The next value of integer type `ty` (a float type must hold an integral value).
    fn int(&mut self, ty: Scalar) -> Result<i64, Fail>;
    /// Skips `n` values of type `ty`.
    fn skip(&mut self, ty: Scalar, n: usize) -> Result<(), Fail>;
    /// Bytes left.
    fn remaining(&self) -> usize;
    /// The current line, for text bodies.
    fn line(&self) -> Option<usize>;
    /// Binary bodies: all bytes not read yet and whether they are big-endian (`None` for text
    /// bodies). Pair with [`Body::advance`].
    fn rest(&self) -> Option<(&[u8], bool)>;
    /// Marks `n <= remaining()` bytes as read (binary bodies).
    fn advance(&mut self, n: usize);
}

struct Binary<'a> {
    data: &'a [u8],
    pos: usize,
    big: bool,
}

impl Binary<'_> {
    /// The next `ty.size()` bytes (consumed).
    #[inline]
    fn value(&mut self, ty: Scalar) -> Result<&[u8], Fail> {
        let bytes = self
            .data
            .get(self.pos..self.pos + ty.size())
            .ok_or(Fail::Eof)?;
        self.pos += ty.size();
        Ok(bytes)
    }
}

impl Body for Binary<'_> {
    #[inline]
    fn real(&mut self, ty: Scalar) -> Result<f64, Fail> {
        let big = self.big;
        Ok(decode(self.value(ty)?, ty, big))
    }

    #[inline]
    fn int(&mut self, ty: Scalar) -> Result<i64, Fail> {
        let big = self.big;
        decode_int(self.value(ty)?, ty, big)
    }

    fn skip(&mut self, ty: Scalar, n: usize) -> Result<(), Fail> {
        let end = n
            .checked_mul(ty.size())
            .and_then(|b| b.checked_add(self.pos))
            .ok_or(Fail::Eof)?;
        if end > self.data.len() {
            return Err(Fail::Eof);
        }
        self.pos = end;
        Ok(())
    }

    fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    fn line(&self) -> Option<usize> {
        None
    }

    fn rest(&self) -> Option<(&[u8], bool)> {
        Some((&self.data[self.pos..], self.big))
    }

    fn advance(&mut self, n: usize) {
        self.pos = (self.pos + n).min(self.data.len());
    }
}

/// The first `N` bytes of `b` in little-endian order.
#[inline]
fn arr<const N: usize>(b: &[u8], big: bool) -> [u8; N] {
    let mut out = [0u8; N];
    out.copy_from_slice(&b[..N]);
    if big {
        out.reverse();
    }
    out
}

/// Decodes a scalar of type `ty` at the start of `b` (which holds at least `ty.size()` bytes).
#[inline]
fn decode(b: &[u8], ty: Scalar, big: bool) -> f64 {
    match ty {
        Scalar::I8 => f64::from(i8::from_le_bytes(arr(b, big))),
        Scalar::U8 => f64::from(b[0]),
        Scalar::I16 => f64::from(i16::from_le_bytes(arr(b, big))),
        Scalar::U16 => f64::from(u16::from_le_bytes(arr(b, big))),
        Scalar::I32 => f64::from(i32::from_le_bytes(arr(b, big))),
        Scalar::U32 => f64::from(u32::from_le_bytes(arr(b, big))),
        Scalar::F32 => f64::from(f32::from_le_bytes(arr(b, big))),
        Scalar::F64 => f64::from_le_bytes(arr(b, big)),
    }
}

/// A float value that must be an integer (a list count or index stored as a float).
fn integral(x: f64) -> Result<i64, Fail> {
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        Ok(x as i64)
    } else {
        Err(Fail::Bad(format!("`{x}` is not an integer")))
    }
}

struct Ascii<'a> {
    data: &'a [u8],
    pos: usize,
    line: usize,
}

impl<'a> Ascii<'a> {
    fn token(&mut self) -> Result<&'a str, Fail> {
        while let Some(&b) = self.data.get(self.pos) {
            if !b.is_ascii_whitespace() {
                break;
            }
            if b == b'\n' {
                self.line += 1;
            }
            self.pos += 1;
        }
        let start = self.pos;
        while self
            .data
            .get(self.pos)
            .is_some_and(|b| !b.is_ascii_whitespace())
        {
            self.pos += 1;
        }
        if start == self.pos {
            return Err(Fail::Eof);
        }
        std::str::from_utf8(&self.data[start..self.pos])
            .map_err(|_| Fail::Bad("value is not UTF-8 text".to_owned()))
    }
}

impl Body for Ascii<'_> {
    fn real(&mut self, ty: Scalar) -> Result<f64, Fail> {
        if ty.is_float() {
            let t = self.token()?;
            t.parse::<f64>()
                .map_err(|_| Fail::Bad(format!("bad number `{}`", clip(t))))
        } else {
            Ok(self.int(ty)? as f64)
        }
    }

    fn int(&mut self, ty: Scalar) -> Result<i64, Fail> {
        if ty.is_float() {
            return integral(self.real(ty)?);
        }
        let t = self.token()?;
        let v = t
            .parse::<i64>()
            .map_err(|_| Fail::Bad(format!("bad integer `{}`", clip(t))))?;
        let (lo, hi) = ty.range();
        if v < lo || v > hi {
            return Err(Fail::Bad(format!("{v} is out of range for its type")));
        }
        Ok(v)
    }

    fn skip(&mut self, ty: Scalar, n: usize) -> Result<(), Fail> {
        for _ in 0..n {
            self.real(ty)?;
        }
        Ok(())
    }

    fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    fn line(&self) -> Option<usize> {
        Some(self.line)
    }

    fn rest(&self) -> Option<(&[u8], bool)> {
        None
    }

    fn advance(&mut self, _n: usize) {}
}

fn parse_ply(bytes: &[u8], path: &Path) -> Result<TriMesh, GeometryError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(parse_error(path, None, "file is empty"));
    }
    let header = parse_header(bytes, path)?;
    let body = &bytes[header.body_start..];
    let (vertices, triangles) = match header.encoding {
        Encoding::Ascii => read_body(
            &header,
            &mut Ascii {
                data: body,
                pos: 0,
                line: header.lines + 1,
            },
            path,
        )?,
        Encoding::BinaryLittle => read_body(
            &header,
            &mut Binary {
                data: body,
                pos: 0,
                big: false,
            },
            path,
        )?,
        Encoding::BinaryBig => read_body(
            &header,
            &mut Binary {
                data: body,
                pos: 0,
                big: true,
            },
            path,
        )?,
    };
    TriMesh::new(vertices, triangles)
}

/// What the reader does with an element's rows.
#[derive(Clone, Copy)]
enum Role {
    /// Property indices of x, y, z.
    Vertex([usize; 3]),
    /// Property index of the index list.
    Face(usize),
    Skip,
}

fn read_body<B: Body>(
    header: &Header,
    body: &mut B,
    path: &Path,
) -> Result<(Vec<DVec3>, Vec<[u32; 3]>), GeometryError> {
    let ascii = header.encoding == Encoding::Ascii;
    let fail = |body: &B, f: Fail, element: &Element, row: usize| {
        let reason = match f {
            Fail::Eof => format!(
                "unexpected end of data in element `{}` row {row} of {} (truncated body)",
                clip(&element.name),
                element.count
            ),
            Fail::Bad(why) => format!("element `{}` row {row}: {why}", clip(&element.name)),
        };
        parse_error(path, body.line(), reason)
    };
    let roles = roles(header, path)?;
    let last_needed = roles.iter().rposition(|r| !matches!(r, Role::Skip));
    let mut vertices: Vec<DVec3> = Vec::new();
    let mut triangles: Vec<[u32; 3]> = Vec::new();
    let mut corners: Vec<u32> = Vec::new();
    let mut values: Vec<f64> = Vec::new();
    for (e, (element, role)) in header.elements.iter().zip(&roles).enumerate() {
        if Some(e) > last_needed {
            break; // nothing after this is used
        }
        // Check the announced count against the bytes present before trusting it.
        let min_bytes = (element.count as u128) * (element.min_row_bytes(ascii) as u128);
        let min_bytes = if ascii {
            min_bytes.saturating_sub(1)
        } else {
            min_bytes
        };
        if min_bytes > body.remaining() as u128 {
            return Err(parse_error(
                path,
                body.line(),
                format!(
                    "truncated body: element `{}` announces {} rows (at least {min_bytes} bytes) but {} bytes remain",
                    clip(&element.name),
                    element.count,
                    body.remaining()
                ),
            ));
        }
        if element.properties.is_empty() {
            // Rows of zero bytes: nothing to read, however many the header announces (a
            // loop over them would be bounded by the count, not by the input).
            continue;
        }
        match *role {
            Role::Vertex(xyz) => {
                vertices.reserve_exact(element.count);
                // Fast path: a binary element of scalars only has fixed-size rows (the
                // count was checked against the bytes left above).
                if let (Some((row_bytes, offsets)), Some((rest, big))) =
                    (fixed_rows(element, xyz), body.rest())
                {
                    let total = row_bytes * element.count;
                    if row_bytes > 0 && total <= rest.len() {
                        vertices.extend(rest[..total].chunks_exact(row_bytes).map(|r| {
                            let c = |(at, ty): (usize, Scalar)| decode(&r[at..], ty, big);
                            DVec3::new(c(offsets[0]), c(offsets[1]), c(offsets[2]))
                        }));
                        body.advance(total);
                        continue;
                    }
                }
                values.resize(element.properties.len(), 0.0);
                for row in 0..element.count {
                    for (k, p) in element.properties.iter().enumerate() {
                        let got = match p.kind {
                            Kind::Scalar(t) => body.real(t).map(|v| values[k] = v),
                            Kind::List(c, t) => skip_list(body, c, t),
                        };
                        got.map_err(|f| fail(body, f, element, row))?;
                    }
                    vertices.push(DVec3::new(values[xyz[0]], values[xyz[1]], values[xyz[2]]));
                }
            }
            Role::Face(list) => {
                triangles.reserve(element.count);
                // Fast path: a binary element holding only the index list.
                if let ([p], Some((rest, big))) = (&element.properties[..], body.rest())
                    && let Kind::List(count, item) = p.kind
                {
                    let (used, result) =
                        binary_faces(rest, big, count, item, element.count, &mut triangles);
                    body.advance(used);
                    result.map_err(|(f, row)| fail(body, f, element, row))?;
                    continue;
                }
                for row in 0..element.count {
                    for (k, p) in element.properties.iter().enumerate() {
                        let got = match p.kind {
                            Kind::Scalar(t) => body.skip(t, 1),
                            Kind::List(c, t) if k == list => read_face(body, c, t, &mut corners)
                                .map(|()| {
                                    for i in 1..corners.len().saturating_sub(1) {
                                        triangles.push([corners[0], corners[i], corners[i + 1]]);
                                    }
                                }),
                            Kind::List(c, t) => skip_list(body, c, t),
                        };
                        got.map_err(|f| fail(body, f, element, row))?;
                    }
                }
            }
            Role::Skip => {
                for row in 0..element.count {
                    for p in &element.properties {
                        let got = match p.kind {
                            Kind::Scalar(t) => body.skip(t, 1),
                            Kind::List(c, t) => skip_list(body, c, t),
                        };
                        got.map_err(|f| fail(body, f, element, row))?;
                    }
                }
            }
        }
    }
    Ok((vertices, triangles))
}

/// Decodes an integer scalar at the start of `b`; float types must hold an integral value.
#[inline]
fn decode_int(b: &[u8], ty: Scalar, big: bool) -> Result<i64, Fail> {
    Ok(match ty {
        Scalar::I8 => i64::from(i8::from_le_bytes(arr(b, big))),
        Scalar::U8 => i64::from(b[0]),
        Scalar::I16 => i64::from(i16::from_le_bytes(arr(b, big))),
        Scalar::U16 => i64::from(u16::from_le_bytes(arr(b, big))),
        Scalar::I32 => i64::from(i32::from_le_bytes(arr(b, big))),
        Scalar::U32 => i64::from(u32::from_le_bytes(arr(b, big))),
        Scalar::F32 | Scalar::F64 => integral(decode(b, ty, big))?,
    })
}

/// Reads `rows` faces of one index list each from binary `data`, fan-triangulating into
/// `triangles`. Returns the bytes used and, on failure, why and in which row.
fn binary_faces(
    data: &[u8],
    big: bool,
    count: Scalar,
    item: Scalar,
    rows: usize,
    triangles: &mut Vec<[u32; 3]>,
) -> (usize, Result<(), (Fail, usize)>) {
    let mut pos = 0;
    let (cs, is) = (count.size(), item.size());
    let mut corners: Vec<u32> = Vec::new();
    for row in 0..rows {
        let Some(c) = data.get(pos..pos + cs) else {
            return (pos, Err((Fail::Eof, row)));
        };
        let n = match decode_int(c, count, big) {
            Ok(n) => n,
            Err(f) => return (pos, Err((f, row))),
        };
        let Ok(n) = usize::try_from(n) else {
            return (
                pos,
                Err((Fail::Bad(format!("negative list length {n}")), row)),
            );
        };
        pos += cs;
        let Some(list) = n.checked_mul(is).and_then(|b| data.get(pos..pos + b)) else {
            return (pos, Err((Fail::Eof, row)));
        };
        pos += list.len();
        corners.clear();
        for chunk in list.chunks_exact(is) {
            let i = match decode_int(chunk, item, big) {
                Ok(i) => i,
                Err(f) => return (pos, Err((f, row))),
            };
            let Ok(i) = u32::try_from(i) else {
                return (
                    pos,
                    Err((Fail::Bad(format!("vertex index {i} out of range")), row)),
                );
            };
            corners.push(i);
        }
        for k in 1..corners.len().saturating_sub(1) {
            triangles.push([corners[0], corners[k], corners[k + 1]]);
        }
    }
    (pos, Ok(()))
}

/// Row size and the byte offsets and types of x, y, z when every property is a scalar.
fn fixed_rows(element: &Element, xyz: [usize; 3]) -> Option<(usize, [(usize, Scalar); 3])> {
    let mut offsets = Vec::with_capacity(element.properties.len());
    let mut row = 0;
    for p in &element.properties {
        let Kind::Scalar(t) = p.kind else { return None };
        offsets.push((row, t));
        row += t.size();
    }
    Some((row, xyz.map(|k| offsets[k])))
}

/// Assigns each element its role; checks the vertex element has usable x, y, z.
fn roles(header: &Header, path: &Path) -> Result<Vec<Role>, GeometryError> {
    let mut roles = Vec::with_capacity(header.elements.len());
    let mut seen_vertex = false;
    let mut seen_face = false;
    for element in &header.elements {
        let find = |name: &str| element.properties.iter().position(|p| p.name == name);
        let role = match element.name.as_str() {
            "vertex" if !seen_vertex => {
                seen_vertex = true;
                let mut xyz = [0; 3];
                for (slot, axis) in xyz.iter_mut().zip(["x", "y", "z"]) {
                    let k = find(axis).ok_or_else(|| {
                        parse_error(
                            path,
                            None,
                            format!("PLY `vertex` element has no `{axis}` property"),
                        )
                    })?;
                    if matches!(element.properties[k].kind, Kind::List(..)) {
                        return Err(parse_error(
                            path,
                            None,
                            format!("PLY vertex property `{axis}` is a list"),
                        ));
                    }
                    *slot = k;
                }
                Role::Vertex(xyz)
            }
            "face" if !seen_face => {
                seen_face = true;
                let k = find("vertex_indices")
                    .or_else(|| find("vertex_index"))
                    .ok_or_else(|| {
                        parse_error(
                            path,
                            None,
                            "PLY `face` element has no `vertex_indices` property",
                        )
                    })?;
                if matches!(element.properties[k].kind, Kind::Scalar(_)) {
                    return Err(parse_error(
                        path,
                        None,
                        "PLY face property `vertex_indices` is not a list",
                    ));
                }
                Role::Face(k)
            }
            _ => Role::Skip,
        };
        roles.push(role);
    }
    if !seen_vertex {
        return Err(parse_error(path, None, "PLY file has no `vertex` element"));
    }
    Ok(roles)
}

fn list_len<B: Body>(body: &mut B, count: Scalar) -> Result<usize, Fail> {
    let n = body.int(count)?;
    usize::try_from(n).map_err(|_| Fail::Bad(format!("negative list length {n}")))
}

fn skip_list<B: Body>(body: &mut B, count: Scalar, item: Scalar) -> Result<(), Fail> {
    let n = list_len(body, count)?;
    body.skip(item, n)
}

/// Reads one face's index list into `corners` (cleared first).
fn read_face<B: Body>(
    body: &mut B,
    count: Scalar,
    item: Scalar,
    corners: &mut Vec<u32>,
) -> Result<(), Fail> {
    let n = list_len(body, count)?;
    corners.clear();
    for _ in 0..n {
        let i = body.int(item)?;
        let i =
            u32::try_from(i).map_err(|_| Fail::Bad(format!("vertex index {i} out of range")))?;
        corners.push(i);
    }
    Ok(())
}

#[cfg(test)]
mod tests;
