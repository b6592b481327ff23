//! Unit tests of `ply`.

use super::*;

const HEAD: &str = "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n";

fn read(s: &str) -> Result<TriMesh, GeometryError> {
    read_ply_from(s.as_bytes(), "t.ply")
}

#[test]
fn ascii_with_extra_elements_and_crlf() {
    let text = "ply\r\nformat ascii 1.0\r\ncomment hi\r\nelement vertex 3\r\nproperty float x\r\n\
                property list uchar float junk\r\nproperty float y\r\nproperty float z\r\n\
                element edge 1\r\nproperty int a\r\nproperty int b\r\nelement face 1\r\n\
                property uchar flags\r\nproperty list uchar int vertex_index\r\nend_header\r\n\
                0 2 7 7 0 0\r\n1 0 0 0\r\n0 0 1 0\r\n0 1\r\n9 3 0 1 2\r\n";
    let m = read(text).unwrap();
    assert_eq!(m.vertices(), &[DVec3::ZERO, DVec3::X, DVec3::Y]);
    assert_eq!(m.triangles(), &[[0, 1, 2]]);
}

#[test]
fn header_errors_name_the_line() {
    let e = read(&format!("{HEAD}property foo w\nend_header\n")).unwrap_err();
    assert!(
        matches!(e, GeometryError::Parse { line: Some(7), .. }),
        "{e}"
    );
    let e = read("ply\nformat ascii 2.0\nend_header\n").unwrap_err();
    assert!(
        matches!(e, GeometryError::Parse { line: Some(2), .. }),
        "{e}"
    );
    let e = read("ply\nelement vertex 0\nend_header\n").unwrap_err();
    assert!(e.to_string().contains("no `format`"), "{e}");
    let e = read("ply\nformat ascii 1.0\nelement vertex 0\nproperty float x\nend_header\n")
        .unwrap_err();
    assert!(e.to_string().contains("no `y`"), "{e}");
}

#[test]
fn huge_counts_do_not_allocate() {
    let e = read(&HEAD.replace("vertex 3", "vertex 18446744073709551615")).unwrap_err();
    assert!(matches!(e, GeometryError::Parse { .. }));
    let bin = "ply\nformat binary_little_endian 1.0\nelement vertex 4000000000\nproperty double x\n\
               property double y\nproperty double z\nend_header\n";
    let e = read(bin).unwrap_err();
    assert!(e.to_string().contains("truncated"), "{e}");
}

#[test]
fn bad_indices() {
    let e = read(&format!("{HEAD}element face 1\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n3 0 -1 2\n"))
        .unwrap_err();
    assert!(
        matches!(e, GeometryError::Parse { line: Some(13), .. }),
        "{e}"
    );
    let e = read(&format!("{HEAD}element face 1\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n3 0 1 3\n"))
        .unwrap_err();
    assert!(
        matches!(
            e,
            GeometryError::IndexOutOfRange {
                triangle: 0,
                vertex: 3,
                vertex_count: 3
            }
        ),
        "{e}"
    );
    // a uchar count of 300 is out of range in ASCII
    let e = read(&format!("{HEAD}element face 1\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n300 0 1 2\n"))
        .unwrap_err();
    assert!(e.to_string().contains("out of range"), "{e}");
}

/// A binary little-endian triangle whose face list uses `item` indices `idx`.
fn binary_face(item: &str, idx: &[u8]) -> Vec<u8> {
    let mut b = format!(
        "ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty float x\nproperty float y\n\
         property float z\nelement face 1\nproperty list uchar {item} vertex_indices\nend_header\n"
    )
    .into_bytes();
    for x in [0.0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0] {
        b.extend_from_slice(&x.to_le_bytes());
    }
    b.push(3);
    b.extend_from_slice(idx);
    b
}

#[test]
fn binary_face_index_types() {
    let ints: Vec<u8> = [0i32, 1, 2].iter().flat_map(|i| i.to_le_bytes()).collect();
    let m = read_ply_from(&binary_face("int", &ints)[..], "b.ply").unwrap();
    assert_eq!(m.triangles(), &[[0, 1, 2]]);
    let neg: Vec<u8> = [0i32, -1, 2].iter().flat_map(|i| i.to_le_bytes()).collect();
    let e = read_ply_from(&binary_face("int", &neg)[..], "b.ply").unwrap_err();
    assert!(e.to_string().contains("-1 out of range"), "{e}");
    let floats: Vec<u8> = [0.0f32, 1.0, 2.0]
        .iter()
        .flat_map(|i| i.to_le_bytes())
        .collect();
    let m = read_ply_from(&binary_face("float", &floats)[..], "b.ply").unwrap();
    assert_eq!(m.triangles(), &[[0, 1, 2]]);
    let half: Vec<u8> = [0.0f32, 1.5, 2.0]
        .iter()
        .flat_map(|i| i.to_le_bytes())
        .collect();
    let e = read_ply_from(&binary_face("float", &half)[..], "b.ply").unwrap_err();
    assert!(e.to_string().contains("not an integer"), "{e}");
    let e = read_ply_from(&binary_face("ushort", &[0, 0, 1, 0])[..], "b.ply").unwrap_err();
    assert!(e.to_string().contains("truncated"), "{e}");
    let m = read_ply_from(&binary_face("ushort", &[0, 0, 1, 0, 2, 0])[..], "b.ply").unwrap();
    assert_eq!(m.triangles(), &[[0, 1, 2]]);
}

#[test]
fn binary_big_endian_generic_rows() {
    // A vertex element with a list property (no fixed row size) and an extra element.
    let mut b = b"ply\nformat binary_big_endian 1.0\nelement vertex 3\nproperty short x\n\
        property list uchar double junk\nproperty double y\nproperty int z\nelement face 1\n\
        property list ushort uint vertex_indices\nproperty uchar tag\nelement extra 2\n\
        property char c\nend_header\n"
        .to_vec();
    for (x, n, y, z) in [(0i16, 0u8, 0.0f64, 0i32), (1, 2, 0.0, 0), (0, 1, 1.0, -3)] {
        b.extend_from_slice(&x.to_be_bytes());
        b.push(n);
        for k in 0..n {
            b.extend_from_slice(&f64::from(k).to_be_bytes());
        }
        b.extend_from_slice(&y.to_be_bytes());
        b.extend_from_slice(&z.to_be_bytes());
    }
    b.extend_from_slice(&3u16.to_be_bytes());
    for i in [0u32, 1, 2] {
        b.extend_from_slice(&i.to_be_bytes());
    }
    b.push(7);
    let m = read_ply_from(&b[..], "g.ply").unwrap(); // `extra` rows absent: never read
    assert_eq!(
        m.vertices(),
        &[DVec3::ZERO, DVec3::X, DVec3::new(0.0, 1.0, -3.0)]
    );
    assert_eq!(m.triangles(), &[[0, 1, 2]]);
    let e = read_ply_from(&b[..b.len() - 2], "g.ply").unwrap_err();
    assert!(e.to_string().contains("truncated"), "{e}");
}

#[test]
fn short_faces_are_skipped_and_points_only_is_fine() {
    let m = read(&format!("{HEAD}element face 2\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n2 0 1\n3 0 1 2\n"))
        .unwrap();
    assert_eq!(m.triangle_count(), 1);
    let m = read(&format!("{HEAD}end_header\n0 0 0\n1 0 0\n0 1 0\n")).unwrap();
    assert_eq!((m.vertex_count(), m.triangle_count()), (3, 0));
}
