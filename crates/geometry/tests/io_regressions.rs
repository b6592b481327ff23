//! Reproductions of reader failures found by fuzzing (issue 14) and of silently empty meshes
//! (issue 13), one test each, named after what broke. The inputs live in
//! `tests/data/regressions/` so fuzzers can use them as seeds. Each read runs under a
//! watchdog: a reader that does not return within a minute fails the test instead of hanging
//! the suite (the reads take microseconds; the limit only catches loops over unbounded counts).
#![cfg(feature = "io")]

mod support;

use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use ccd_geometry::io::{self, MeshFormat};
use ccd_geometry::{GeometryError, TriMesh};

/// How long a single read may take before it counts as a hang.
const HANG: Duration = Duration::from_secs(60);

/// Reads `bytes` as `format` on another thread; panics if that takes longer than [`HANG`] or
/// if the reader panics.
#[track_caller]
fn read_watched(bytes: Vec<u8>, format: MeshFormat) -> Result<TriMesh, GeometryError> {
    let (send, receive) = mpsc::channel();
    thread::spawn(move || {
        let got = io::read_mesh_from(&bytes[..], format, "regression");
        send.send(got).ok();
    });
    match receive.recv_timeout(HANG) {
        Ok(got) => got,
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("reader still running after {HANG:?}"),
        Err(mpsc::RecvTimeoutError::Disconnected) => panic!("reader panicked"),
    }
}

/// Reads the regression file `name`, choosing the reader from its extension.
#[track_caller]
fn read_regression(name: &str) -> Result<TriMesh, GeometryError> {
    let format = MeshFormat::from_path(name).expect("regression files have a mesh extension");
    read_watched(support::data_bytes(&format!("regressions/{name}")), format)
}

/// Asserts `r` is a parse error at `line` whose message contains `needle`.
#[track_caller]
fn assert_parse_error(r: Result<TriMesh, GeometryError>, line: Option<usize>, needle: &str) {
    match r {
        Err(GeometryError::Parse {
            line: got, reason, ..
        }) => {
            assert_eq!(got, line, "{reason}");
            assert!(reason.contains(needle), "`{reason}` lacks `{needle}`");
        }
        other => panic!("expected a parse error, got {other:?}"),
    }
}

#[test]
fn obj_texcoord_index_overflow_is_a_parse_error() {
    // tobj multiplied -214748364 by 2 in isize arithmetic: "attempt to multiply with overflow"
    assert_parse_error(
        read_regression("obj_texcoord_index_overflow.obj"),
        Some(3),
        "relative texture coordinate index -214748364",
    );
}

#[test]
fn obj_normal_index_overflow_is_a_parse_error() {
    // tobj multiplied -1073741824 by 3: overflow panic with overflow checks on
    assert_parse_error(
        read_regression("obj_normal_index_overflow.obj"),
        Some(5),
        "relative normal index -1073741824",
    );
}

#[test]
fn obj_extreme_indices_are_parse_errors() {
    // every index kind at and beyond the integer limits, positive and negative
    let head = "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvn 0 0 1\n";
    for index in [
        "-9223372036854775808",
        "9223372036854775807",
        "-9223372036854775809",
        "18446744073709551616",
        "-4611686018427387904",
        "4294967296",
        "-2147483648",
    ] {
        for corner in [
            index.to_string(),
            format!("1/{index}"),
            format!("1//{index}"),
            format!("1/1/{index}"),
        ] {
            let text = format!("{head}f {corner} 2/1/1 3/1/1\n");
            let r = read_watched(text.into_bytes(), MeshFormat::Obj);
            assert!(
                matches!(r, Err(GeometryError::Parse { line: Some(6), .. })),
                "{corner}: {r:?}"
            );
        }
    }
}

#[test]
fn obj_face_with_two_corners_is_a_parse_error() {
    // was read as a line and dropped, leaving an empty mesh
    assert_parse_error(
        read_regression("obj_face_with_two_corners.obj"),
        Some(4),
        "face has 2 vertices",
    );
}

#[test]
fn obj_without_faces_is_a_parse_error() {
    // was an empty mesh
    assert_parse_error(read_regression("obj_without_faces.obj"), None, "no faces");
}

#[test]
fn ply_propertyless_element_with_huge_count_returns() {
    // looped 1.8e19 times over rows of zero bytes (hours in unoptimised builds)
    let m = read_regression("ply_propertyless_element_huge_count.ply").unwrap();
    assert_eq!((m.vertex_count(), m.triangles()), (3, &[[0, 1, 2]][..]));
}

#[test]
fn ply_binary_propertyless_element_with_huge_count_returns() {
    let mut b = b"ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty float x\n\
        property float y\nproperty float z\nelement junk 18446744073709551615\n\
        element face 1\nproperty list uchar int vertex_indices\nend_header\n"
        .to_vec();
    for x in [0.0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0] {
        b.extend_from_slice(&x.to_le_bytes());
    }
    b.push(3);
    for i in [0i32, 1, 2] {
        b.extend_from_slice(&i.to_le_bytes());
    }
    let m = read_watched(b, MeshFormat::Ply).unwrap();
    assert_eq!(m.triangles(), &[[0, 1, 2]]);
}

#[test]
fn ply_huge_counts_are_checked_against_the_bytes_present() {
    let head = |encoding: &str, junk: &str| {
        format!(
            "ply\nformat {encoding} 1.0\nelement vertex 3\nproperty float x\nproperty float y\n\
             property float z\nelement junk {junk}\nelement face 1\n\
             property list uchar int vertex_indices\nend_header\n"
        )
    };
    let body = "0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n";
    for encoding in ["ascii", "binary_little_endian", "binary_big_endian"] {
        for junk in [
            "18446744073709551615\nproperty uchar a",
            "9223372036854775808\nproperty list uint double l",
            "4294967295\nproperty list uchar uchar l\nproperty double d",
            "1000\nproperty char c",
        ] {
            let text = format!("{}{body}", head(encoding, junk));
            let e = read_watched(text.into_bytes(), MeshFormat::Ply).unwrap_err();
            assert!(
                e.to_string().contains("truncated"),
                "{encoding} {junk}: {e}"
            );
        }
    }
}

#[test]
fn ply_huge_list_lengths_are_truncation_errors() {
    // list lengths far beyond the data, in the face list and in skipped lists
    let ascii = "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n\
                 property float z\nproperty list uint float junk\nelement face 1\n\
                 property list uint int vertex_indices\nend_header\n";
    for (rows, needle) in [
        ("0 0 0 0\n1 0 0 0\n0 1 0 0\n4294967295 0 1 2\n", "face"),
        ("0 0 0 4294967295 1\n1 0 0 0\n0 1 0 0\n3 0 1 2\n", "vertex"),
    ] {
        let e = read_watched(format!("{ascii}{rows}").into_bytes(), MeshFormat::Ply).unwrap_err();
        assert!(
            e.to_string().contains("truncated") && e.to_string().contains(needle),
            "{e}"
        );
    }
    let mut b = ascii.replace("ascii", "binary_big_endian").into_bytes();
    for p in [[0.0f32, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]] {
        for x in p {
            b.extend_from_slice(&x.to_be_bytes());
        }
        b.extend_from_slice(&0u32.to_be_bytes());
    }
    b.extend_from_slice(&u32::MAX.to_be_bytes());
    for i in [0i32, 1, 2] {
        b.extend_from_slice(&i.to_be_bytes());
    }
    let e = read_watched(b, MeshFormat::Ply).unwrap_err();
    assert!(e.to_string().contains("truncated"), "{e}");
}

/// A binary STL of `n` copies of one triangle under an 80-byte `header`, announcing `count`.
fn binary_stl(header: &[u8], count: u32, n: usize) -> Vec<u8> {
    let mut b = header.to_vec();
    b.resize(80, b' ');
    b.extend_from_slice(&count.to_le_bytes());
    for _ in 0..n {
        for x in [
            0.0f32, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0,
        ] {
            b.extend_from_slice(&x.to_le_bytes());
        }
        b.extend_from_slice(&[0, 0]);
    }
    b
}

#[test]
fn stl_count_must_match_the_file_size() {
    for header in [&b"binary"[..], b"solid but binary"] {
        let ok = read_watched(binary_stl(header, 3, 3), MeshFormat::Stl).unwrap();
        assert_eq!(ok.triangle_count(), 3);
        for (count, n, needle) in [
            (u32::MAX, 3, "truncated"),
            (4, 3, "truncated"),
            (2, 3, "after the 2 triangles"),
            (0, 1, "after the 0 triangles"),
        ] {
            let e = read_watched(binary_stl(header, count, n), MeshFormat::Stl).unwrap_err();
            assert!(e.to_string().contains(needle), "{count}/{n}: {e}");
        }
    }
    // header and count only, no triangles: an empty but valid binary STL
    let empty = read_watched(binary_stl(b"solid x", 0, 0), MeshFormat::Stl).unwrap();
    assert_eq!(empty.triangle_count(), 0);
}
