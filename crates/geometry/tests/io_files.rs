//! Reading the small meshes of `tests/data/`, valid and broken, and the OBJ round trip.
#![cfg(feature = "io")]

mod support;

use ccd_geometry::glam::DVec3;
use ccd_geometry::io::{self, MeshFormat};
use ccd_geometry::{GeometryError, TriMesh};
use support::{data, data_bytes};

/// Asserts `r` is a parse error; returns its line.
#[track_caller]
fn parse_line(r: Result<TriMesh, GeometryError>) -> Option<usize> {
    match r {
        Err(GeometryError::Parse { line, reason, path }) => {
            assert!(!reason.is_empty());
            assert!(path.file_name().is_some());
            line
        }
        other => panic!("expected a parse error, got {other:?}"),
    }
}

/// Closed 2-manifold check: every edge has exactly two faces.
fn is_closed(m: &TriMesh) -> bool {
    m.edges().iter().all(|e| e.faces.len() == 2)
}

#[test]
fn cube_obj() {
    let m = io::read_obj(data("cube.obj")).unwrap();
    assert_eq!((m.vertex_count(), m.triangle_count()), (8, 12));
    assert_eq!(m.edges().len(), 18);
    assert!(is_closed(&m));
    assert_eq!(m.aabb().min, DVec3::ZERO);
    assert_eq!(m.aabb().max, DVec3::ONE);
    assert!(m.degenerate_triangles().is_empty());
}

#[test]
fn polygons_are_triangulated_and_groups_merged() {
    let m = io::read_mesh(data("quad.obj")).unwrap();
    assert_eq!(m.vertex_count(), 7);
    assert_eq!(m.triangle_count(), 2 + 3);
    let area: f64 = m.triangle_iter().map(|t| t.area()).sum();
    assert!((area - (1.0 + 1.25)).abs() < 1e-12, "{area}");
    // the edge between the quad and the pentagon (vertices (1,0,0)-(1,1,0)) is shared
    let shared = m.edges().iter().filter(|e| e.faces.len() == 2).count();
    assert!(shared >= 3, "{shared}");
    let seam = m.edges().iter().find(|e| {
        let [a, b] = e.vertices.map(|i| m.vertices()[i as usize]);
        (a, b) == (DVec3::X, DVec3::new(1.0, 1.0, 0.0))
            || (b, a) == (DVec3::X, DVec3::new(1.0, 1.0, 0.0))
    });
    assert_eq!(seam.map(|e| e.faces.len()), Some(2));
}

#[test]
fn stl_ascii_and_binary() {
    let a = io::read_stl(data("tetra_ascii.stl")).unwrap();
    assert_eq!((a.vertex_count(), a.triangle_count()), (4, 4));
    assert!(is_closed(&a));
    // binary whose header starts with "solid": still read as binary, welded to 8 vertices
    let b = io::read_mesh(data("cube_binary.stl")).unwrap();
    assert_eq!((b.vertex_count(), b.triangle_count()), (8, 12));
    assert!(is_closed(&b));
    assert_eq!(b.aabb().max, DVec3::ONE);
}

#[test]
fn ply_ascii_and_binary() {
    let t = io::read_ply(data("tetra_ascii.ply")).unwrap();
    assert_eq!((t.vertex_count(), t.triangle_count()), (4, 4));
    assert!(is_closed(&t));
    assert_eq!(t.vertices()[3], DVec3::Z);

    let q = io::read_ply(data("quad_le_double.ply")).unwrap();
    assert_eq!((q.vertex_count(), q.triangle_count()), (5, 3));
    assert_eq!(q.triangles(), &[[0, 1, 2], [0, 2, 3], [0, 1, 4]]);
    assert_eq!(q.vertices()[4], DVec3::new(0.5, 0.5, 1.25));

    let c = io::read_mesh(data("cube_be_float.ply")).unwrap();
    assert_eq!((c.vertex_count(), c.triangle_count()), (8, 12));
    assert!(is_closed(&c));
    // same cube as the binary STL, same numbering
    let s = io::read_stl(data("cube_binary.stl")).unwrap();
    let sorted = |m: &TriMesh| {
        let mut v: Vec<[u64; 3]> = m
            .vertices()
            .iter()
            .map(|p| p.to_array().map(f64::to_bits))
            .collect();
        v.sort_unstable();
        v
    };
    assert_eq!(sorted(&c), sorted(&s));
}

#[test]
fn broken_obj_files() {
    assert_eq!(parse_line(io::read_obj(data("bad_number.obj"))), Some(3));
    assert_eq!(
        parse_line(io::read_obj(data("index_out_of_range.obj"))),
        Some(5)
    );
    assert!(matches!(
        io::read_obj(data("nan_vertex.obj")),
        Err(GeometryError::NonFiniteVertex { index: 1, .. })
    ));
    assert_eq!(parse_line(io::read_obj(data("empty.obj"))), None);
}

#[test]
fn broken_stl_files() {
    let e = io::read_stl(data("truncated_binary.stl")).unwrap_err();
    assert!(e.to_string().contains("truncated"), "{e}");
    assert_eq!(parse_line(io::read_stl(data("truncated_binary.stl"))), None);
    assert_eq!(parse_line(io::read_stl(data("bad_number.stl"))), Some(13));
    assert_eq!(parse_line(io::read_stl(data("empty.stl"))), None);
    // a NaN in a binary STL
    let mut bytes = data_bytes("cube_binary.stl");
    bytes[84 + 12..84 + 16].copy_from_slice(&f32::NAN.to_le_bytes());
    assert!(matches!(
        io::read_stl_from(&bytes[..], "nan.stl"),
        Err(GeometryError::NonFiniteVertex { index: 0, .. })
    ));
}

#[test]
fn broken_ply_files() {
    assert!(matches!(
        io::read_ply(data("index_out_of_range.ply")),
        Err(GeometryError::IndexOutOfRange {
            triangle: 0,
            vertex: 7,
            vertex_count: 3
        })
    ));
    assert!(matches!(
        io::read_ply(data("nan_vertex.ply")),
        Err(GeometryError::NonFiniteVertex { index: 2, .. })
    ));
    assert_eq!(parse_line(io::read_ply(data("wrong_header.ply"))), Some(5));
    assert_eq!(
        parse_line(io::read_ply(data("unknown_format.ply"))),
        Some(2)
    );
    let e = io::read_ply(data("truncated_body.ply")).unwrap_err();
    assert!(e.to_string().contains("truncated"), "{e}");
    assert_eq!(parse_line(io::read_ply(data("empty.ply"))), None);
    // not a PLY at all
    assert_eq!(parse_line(io::read_ply(data("cube.obj"))), Some(1));
}

#[test]
fn missing_file_is_an_io_error() {
    let e = io::read_mesh(data("no-such-file.ply")).unwrap_err();
    assert!(matches!(e, GeometryError::Io { .. }), "{e}");
    assert!(e.to_string().contains("no-such-file.ply"));
    assert_eq!(parse_line(io::read_mesh(data("make_binary.py"))), None);
}

#[test]
fn write_obj_round_trip() {
    // vertices in first-use order (the writer's numbering survives the reader's renumbering)
    let vertices = vec![
        DVec3::new(0.1, -0.2, 0.3),
        DVec3::new(1e-300, 1e300, -0.0),
        DVec3::new(std::f64::consts::PI, -std::f64::consts::E, 1.0 / 3.0),
        DVec3::new(123_456_789.123_456_78, f64::MIN_POSITIVE, -5e-324),
    ];
    let triangles = vec![[0, 1, 2], [0, 2, 3], [3, 2, 1], [1, 1, 0]];
    let mesh = TriMesh::new(vertices, triangles).unwrap();
    let path =
        std::env::temp_dir().join(format!("ccd-geometry-roundtrip-{}.obj", std::process::id()));
    io::write_obj(&path, &mesh).unwrap();
    let back = io::read_obj(&path);
    std::fs::remove_file(&path).ok();
    let back = back.unwrap();
    let bits = |m: &TriMesh| {
        m.vertices()
            .iter()
            .map(|v| v.to_array().map(f64::to_bits))
            .collect::<Vec<_>>()
    };
    assert_eq!(bits(&back), bits(&mesh));
    assert_eq!(back.triangles(), mesh.triangles());
    assert_eq!(back.degenerate_triangles(), mesh.degenerate_triangles());

    // The other test meshes survive write -> read too. The OBJ reader numbers vertices in order of
    // first use, so a mesh not in that order (the PLY cube starts with face 0 2 1) comes back
    // renumbered: same triangles in the same order, same corner positions.
    for name in [
        "cube.obj",
        "cube_be_float.ply",
        "tetra_ascii.stl",
        "quad_le_double.ply",
        "quad.obj",
    ] {
        let m = io::read_mesh(data(name)).unwrap();
        let mut text = Vec::new();
        io::write_obj_to(&mut text, &m, "memory.obj").unwrap();
        let again = io::read_mesh_from(&text[..], MeshFormat::Obj, "memory.obj").unwrap();
        assert_eq!(again.vertex_count(), m.vertex_count(), "{name}");
        let corners = |m: &TriMesh| m.triangle_iter().map(|t| t.vertices()).collect::<Vec<_>>();
        assert_eq!(corners(&again), corners(&m), "{name}");
        let in_first_use_order = first_use_order(&m);
        assert_eq!(
            again.vertices() == m.vertices(),
            in_first_use_order,
            "{name}"
        );
        assert_eq!(
            again.triangles() == m.triangles(),
            in_first_use_order,
            "{name}"
        );
    }
}

/// True when the triangles use the vertices in the order 0, 1, 2, ... and use them all.
fn first_use_order(m: &TriMesh) -> bool {
    let mut next = 0;
    for &i in m.triangles().iter().flatten() {
        if i == next {
            next += 1;
        } else if i > next {
            return false;
        }
    }
    next as usize == m.vertex_count()
}

#[test]
fn a_mesh_without_triangles_is_not_written() {
    // the reader rejects a faceless OBJ file, so the writer refuses to produce one: every
    // mesh the writer accepts reads back
    for mesh in [
        TriMesh::new(vec![], vec![]).unwrap(),
        TriMesh::new(vec![DVec3::ZERO, DVec3::X, DVec3::Y], vec![]).unwrap(),
    ] {
        let mut text = Vec::new();
        let e = io::write_obj_to(&mut text, &mesh, "memory.obj").unwrap_err();
        assert!(matches!(e, GeometryError::EmptyMesh { .. }), "{e}");
        assert!(e.to_string().contains("memory.obj"), "{e}");
        assert!(text.is_empty(), "nothing is written");
        // no file is created either
        let path = std::env::temp_dir().join(format!(
            "ccd-geometry-empty-{}-{}.obj",
            std::process::id(),
            mesh.vertex_count()
        ));
        let e = io::write_obj(&path, &mesh).unwrap_err();
        assert!(matches!(e, GeometryError::EmptyMesh { .. }), "{e}");
        assert!(!path.exists());
        // what a faceless file would have been: rejected by the reader
        let faceless = "v 0 0 0\nv 1 0 0\nv 0 1 0\n";
        assert!(io::read_obj_from(faceless.as_bytes(), "faceless.obj").is_err());
    }
    // one triangle is enough, and it reads back
    let tri = TriMesh::new(vec![DVec3::ZERO, DVec3::X, DVec3::Y], vec![[0, 1, 2]]).unwrap();
    let mut text = Vec::new();
    io::write_obj_to(&mut text, &tri, "memory.obj").unwrap();
    let back = io::read_obj_from(&text[..], "memory.obj").unwrap();
    assert_eq!(back.vertices(), tri.vertices());
    assert_eq!(back.triangles(), tri.triangles());
}

#[test]
fn writing_to_a_missing_folder_is_an_io_error() {
    let mesh = TriMesh::new(vec![DVec3::ZERO, DVec3::X, DVec3::Y], vec![[0, 1, 2]]).unwrap();
    let e = io::write_obj(data("no-such-dir/out.obj"), &mesh).unwrap_err();
    assert!(matches!(e, GeometryError::Io { .. }), "{e}");
}
