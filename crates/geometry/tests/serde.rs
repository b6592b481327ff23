//! serde round trips of the value types and [`TriMesh`], and rejection of invalid meshes on
//! deserialization.
#![cfg(feature = "serde")]

use ccd_geometry::glam::DVec3;
use ccd_geometry::{Aabb, Feature, Segment, Status, TriMesh, Triangle};

fn tetra() -> TriMesh {
    TriMesh::new(
        vec![
            DVec3::ZERO,
            DVec3::new(1.0, 1e-17, 0.0),
            DVec3::new(0.0, -2.5, 1e3),
            DVec3::new(0.1, 0.2, -0.3),
        ],
        vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3], [1, 1, 2]],
    )
    .unwrap()
}

#[test]
fn trimesh_round_trips_through_json() {
    let mesh = tetra();
    let json = serde_json::to_string(&mesh).unwrap();
    assert!(json.starts_with(r#"{"vertices":[[0.0,0.0,0.0],"#), "{json}");
    let back: TriMesh = serde_json::from_str(&json).unwrap();
    assert_eq!(back.vertices(), mesh.vertices());
    assert_eq!(back.triangles(), mesh.triangles());
    // derived data is rebuilt, not read
    assert_eq!(back.degenerate_triangles(), mesh.degenerate_triangles());
    assert_eq!(back.degenerate_triangles(), &[4]);
    assert_eq!(back.aabb(), mesh.aabb());
    assert_eq!(back.edges(), mesh.edges());
}

#[test]
fn trimesh_deserialization_validates() {
    let out_of_range = r#"{"vertices":[[0,0,0],[1,0,0],[0,1,0]],"triangles":[[0,1,3]]}"#;
    let e = serde_json::from_str::<TriMesh>(out_of_range).unwrap_err();
    assert!(e.to_string().contains("refers to vertex 3"), "{e}");
    let negative = r#"{"vertices":[[0,0,0],[1,0,0],[0,1,0]],"triangles":[[0,1,-1]]}"#;
    assert!(serde_json::from_str::<TriMesh>(negative).is_err());
    let unknown = r#"{"vertices":[],"triangles":[],"edges":[]}"#;
    assert!(serde_json::from_str::<TriMesh>(unknown).is_err());
    let missing = r#"{"vertices":[]}"#;
    assert!(serde_json::from_str::<TriMesh>(missing).is_err());
    let empty: TriMesh = serde_json::from_str(r#"{"vertices":[],"triangles":[]}"#).unwrap();
    assert_eq!((empty.vertex_count(), empty.triangle_count()), (0, 0));
}

#[test]
fn value_types_round_trip() {
    let aabb = Aabb::new(DVec3::new(-1.0, 0.0, 2.0), DVec3::new(3.0, 4.0, 5.0));
    let back: Aabb = serde_json::from_str(&serde_json::to_string(&aabb).unwrap()).unwrap();
    assert_eq!(back, aabb);
    let segment = Segment::new(DVec3::X, DVec3::new(0.5, -7.0, 1e-9));
    let back: Segment = serde_json::from_str(&serde_json::to_string(&segment).unwrap()).unwrap();
    assert_eq!(back, segment);
    let triangle = Triangle::new(DVec3::ZERO, DVec3::X, DVec3::Y);
    let back: Triangle = serde_json::from_str(&serde_json::to_string(&triangle).unwrap()).unwrap();
    assert_eq!(back, triangle);
    for feature in [
        Feature::Vertex(3),
        Feature::edge(9, 2),
        Feature::Face(u32::MAX),
    ] {
        let back: Feature =
            serde_json::from_str(&serde_json::to_string(&feature).unwrap()).unwrap();
        assert_eq!(back, feature);
    }
}

/// Statuses are written in snake case (the command line's JSON and the Python module spell
/// them the same way); the capitalised spelling reads too.
#[test]
fn status_is_snake_case_and_reads_the_old_spelling() {
    for (status, new, old) in [
        (Status::Converged, "converged", "Converged"),
        (
            Status::OutOfIterations,
            "out_of_iterations",
            "OutOfIterations",
        ),
        (
            Status::InitiallyTouching,
            "initially_touching",
            "InitiallyTouching",
        ),
        (Status::Stalled, "stalled", "Stalled"),
    ] {
        assert_eq!(
            serde_json::to_string(&status).unwrap(),
            format!("\"{new}\"")
        );
        assert_eq!(
            serde_json::from_str::<Status>(&format!("\"{new}\"")).unwrap(),
            status
        );
        assert_eq!(
            serde_json::from_str::<Status>(&format!("\"{old}\"")).unwrap(),
            status
        );
    }
    assert!(serde_json::from_str::<Status>("\"converge\"").is_err());
}

/// The shared query mode is written in snake case (the command line's JSON and the Python
/// module's `mode=`); the capitalised spelling reads too, other spellings do not.
#[test]
fn mode_is_snake_case_and_reads_the_capitalised_spelling() {
    use ccd_geometry::Mode;
    for (mode, new, capitalised) in [
        (Mode::Toc, "toc", "Toc"),
        (Mode::All, "all", "All"),
        (Mode::Boolean, "boolean", "Boolean"),
    ] {
        assert_eq!(serde_json::to_string(&mode).unwrap(), format!("\"{new}\""));
        assert_eq!(
            serde_json::from_str::<Mode>(&format!("\"{new}\"")).unwrap(),
            mode
        );
        assert_eq!(
            serde_json::from_str::<Mode>(&format!("\"{capitalised}\"")).unwrap(),
            mode
        );
    }
    for other in ["BOOLEAN", "Global", "Earliest", "AllContacts", "first"] {
        assert!(
            serde_json::from_str::<Mode>(&format!("\"{other}\"")).is_err(),
            "{other}"
        );
    }
}
