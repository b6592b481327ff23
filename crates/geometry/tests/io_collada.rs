//! COLLADA reading (through `mesh-loader`): unit and node transforms applied, `up_axis`
//! ignored, no triangles and malformed documents are typed errors (never a panic).

use ccd_geometry::GeometryError;
use ccd_geometry::glam::DVec3;
use ccd_geometry::io::{MeshFormat, read_collada_from, read_mesh_from};

/// A one-triangle document with `unit`, `up` axis, a node transform `node` and the index
/// list `p`.
fn dae(unit: &str, up: &str, node: &str, p: &str) -> String {
    format!(
        r##"<?xml version="1.0"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <asset><unit meter="{unit}"/><up_axis>{up}</up_axis></asset>
  <library_geometries><geometry id="tri"><mesh>
    <source id="p"><float_array id="pa" count="9">0 0 0 1 0 0 0 2 0</float_array>
      <technique_common><accessor source="#pa" count="3" stride="3">
        <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
      </accessor></technique_common></source>
    <vertices id="v"><input semantic="POSITION" source="#p"/></vertices>
    <triangles count="1"><input semantic="VERTEX" source="#v" offset="0"/><p>{p}</p></triangles>
  </mesh></geometry></library_geometries>
  <library_visual_scenes><visual_scene id="s"><node id="n">{node}
    <instance_geometry url="#tri"/></node></visual_scene></library_visual_scenes>
  <scene><instance_visual_scene url="#s"/></scene>
</COLLADA>"##
    )
}

#[test]
fn unit_and_node_transforms_are_applied_and_up_axis_is_not() {
    let m = read_collada_from(dae("1", "Y_UP", "", "0 1 2").as_bytes(), "a.dae").unwrap();
    assert_eq!(m.triangle_count(), 1);
    let b = m.aabb();
    // Y_UP is not turned into z-up: the triangle stays in the xy plane
    assert!(
        b.min.abs_diff_eq(DVec3::ZERO, 1e-9) && b.max.abs_diff_eq(DVec3::new(1.0, 2.0, 0.0), 1e-9)
    );
    let m = read_collada_from(
        dae("0.01", "Z_UP", "<translate>0 0 5</translate>", "0 1 2").as_bytes(),
        "b.dae",
    )
    .unwrap();
    // centimetres: the node's translation is in file units too (5 cm, not 5 m)
    let b = m.aabb();
    assert!(b.min.abs_diff_eq(DVec3::new(0.0, 0.0, 0.05), 1e-7), "{b:?}");
    assert!(
        b.max.abs_diff_eq(DVec3::new(0.01, 0.02, 0.05), 1e-7),
        "{b:?}"
    );
    let m = read_mesh_from(
        dae("1", "Z_UP", "<rotate>0 0 1 90</rotate>", "0 1 2").as_bytes(),
        MeshFormat::Collada,
        "c.dae",
    )
    .unwrap();
    // a quarter turn about z: x -> y, y -> -x
    let b = m.aabb();
    assert!(b.min.abs_diff_eq(DVec3::new(-2.0, 0.0, 0.0), 1e-6), "{b:?}");
    assert!(b.max.abs_diff_eq(DVec3::new(0.0, 1.0, 0.0), 1e-6), "{b:?}");
}

#[test]
fn bad_documents_are_typed_errors() {
    // an index beyond the positions
    let e = read_collada_from(dae("1", "Z_UP", "", "0 1 7").as_bytes(), "idx.dae").unwrap_err();
    assert!(matches!(e, GeometryError::Parse { .. }), "{e}");
    // no triangles (only a line), and an empty index list
    let lines = dae("1", "Z_UP", "", "0 1")
        .replace("<triangles count=\"1\">", "<lines count=\"1\">")
        .replace("</triangles>", "</lines>");
    let e = read_collada_from(lines.as_bytes(), "none.dae").unwrap_err();
    assert!(matches!(e, GeometryError::NoTriangles { .. }), "{e}");
    let e = read_collada_from(dae("1", "Z_UP", "", "").as_bytes(), "empty.dae").unwrap_err();
    assert!(matches!(e, GeometryError::Parse { .. }), "{e}");
    // a unit that is not a positive number
    for unit in ["0", "-1", "abc"] {
        let e =
            read_collada_from(dae(unit, "Z_UP", "", "0 1 2").as_bytes(), "unit.dae").unwrap_err();
        assert!(matches!(e, GeometryError::Parse { .. }), "{e}");
    }
    // not XML, truncated, empty
    for bytes in [&b"solid x"[..], &b"<COLLADA><asset>"[..], &b""[..]] {
        let e = read_collada_from(bytes, "bad.dae").unwrap_err();
        assert!(matches!(e, GeometryError::Parse { .. }), "{e}");
    }
    // every prefix of a valid document is an error or a mesh, never a panic
    let full = dae("1", "Z_UP", "<translate>1 2 3</translate>", "0 1 2");
    for cut in (0..full.len()).step_by(7) {
        let _ = read_collada_from(&full.as_bytes()[..cut], "cut.dae");
    }
}
