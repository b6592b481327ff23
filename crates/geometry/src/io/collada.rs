//! COLLADA (`.dae`) meshes, parsed by the `mesh-loader` crate and merged into one
//! [`TriMesh`].
//!
//! What is applied, as ROS tools (`urdfdom` users such as RViz and MoveIt) read collision
//! meshes: the node transforms of the `<visual_scene>` (`matrix`, `translate`, `rotate`,
//! `scale`, `lookat`, by `mesh-loader`) and then the `<unit meter>` scale (here, outermost,
//! so that node translations are scaled too); `<up_axis>` is **not** applied (ROS ignores it as well: URDF frames are
//! z-up whatever the file says). Every `<geometry>` of the file is kept, all merged; a
//! geometry instanced by several nodes gets the transform of one of them (a limitation of
//! `mesh-loader`). Polygons are triangulated by `mesh-loader`; lines and points are
//! dropped. Bit-identical positions are welded as in the STL reader.

use std::io::Read;
use std::path::Path;

use glam::DVec3;

use super::stl::Welder;
use super::{parse_error, read_all, read_file};
use crate::{GeometryError, TriMesh};

/// Reads a COLLADA (`.dae`) file: all its triangles, merged, with the unit and node
/// transforms applied.
///
/// As ROS tools read collision meshes: the node transforms of the `<visual_scene>`
/// (`matrix`, `translate`, `rotate`, `scale`, `lookat`, by the `mesh-loader` crate) and the
/// `<unit meter>` scale (outermost: node translations are in file units too) are baked into
/// the vertices; `<up_axis>` is **not** applied (URDF frames
/// are z-up whatever the file says). Every `<geometry>` is kept, all merged; a geometry
/// instanced by several nodes gets the transform of one of them. Lines and points are
/// dropped; bit-identical positions are welded as in [`read_stl`](crate::io::read_stl).
///
/// # Errors
/// - [`GeometryError::Io`] when the file cannot be read;
/// - [`GeometryError::Parse`] for malformed XML or COLLADA (as `mesh-loader` reports it),
///   a `<unit meter>` that is not a positive number, and a document whose parsing fails in
///   any other way (never a panic);
/// - [`GeometryError::NoTriangles`] for a valid document without any triangle;
/// - [`GeometryError::NonFiniteVertex`] for a NaN or infinite coordinate.
///
/// # Example
/// ```
/// use ccd_geometry::io;
///
/// let dae = r##"<?xml version="1.0"?>
/// <COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
///   <asset><unit meter="0.001"/><up_axis>Z_UP</up_axis></asset>
///   <library_geometries><geometry id="tri"><mesh>
///     <source id="p"><float_array id="pa" count="9">0 0 0 1000 0 0 0 1000 0</float_array>
///       <technique_common><accessor source="#pa" count="3" stride="3">
///         <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
///       </accessor></technique_common></source>
///     <vertices id="v"><input semantic="POSITION" source="#p"/></vertices>
///     <triangles count="1"><input semantic="VERTEX" source="#v" offset="0"/><p>0 1 2</p></triangles>
///   </mesh></geometry></library_geometries>
///   <library_visual_scenes><visual_scene id="s"><node id="n">
///     <instance_geometry url="#tri"/></node></visual_scene></library_visual_scenes>
///   <scene><instance_visual_scene url="#s"/></scene>
/// </COLLADA>"##;
/// let path = std::env::temp_dir().join(format!("ccd-read-dae-{}.dae", std::process::id()));
/// std::fs::write(&path, dae).unwrap();
/// let mesh = io::read_collada(&path);
/// std::fs::remove_file(&path).ok();
/// let mesh = mesh?;
/// assert_eq!(mesh.triangle_count(), 1);
/// // millimetres in the file, metres in the mesh
/// assert!((mesh.aabb().max.x - 1.0).abs() < 1e-6);
/// # Ok::<(), ccd_geometry::GeometryError>(())
/// ```
pub fn read_collada(path: impl AsRef<Path>) -> Result<TriMesh, GeometryError> {
    let path = path.as_ref();
    parse_collada(&read_file(path)?, path)
}

/// Reads COLLADA from `reader`; `path` is used only in error messages. See
/// [`read_collada`].
///
/// # Errors
/// As [`read_collada`].
///
/// # Example
/// ```
/// use ccd_geometry::{io, GeometryError};
///
/// // one geometry holding only a line: no triangles
/// let lines = r##"<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
///   <asset/><library_geometries><geometry id="g"><mesh>
///     <source id="p"><float_array id="pa" count="6">0 0 0 1 0 0</float_array>
///       <technique_common><accessor source="#pa" count="2" stride="3">
///         <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
///       </accessor></technique_common></source>
///     <vertices id="v"><input semantic="POSITION" source="#p"/></vertices>
///     <lines count="1"><input semantic="VERTEX" source="#v" offset="0"/><p>0 1</p></lines>
///   </mesh></geometry></library_geometries></COLLADA>"##;
/// let err = io::read_collada_from(lines.as_bytes(), "lines.dae").unwrap_err();
/// assert!(matches!(err, GeometryError::NoTriangles { .. }));
/// assert!(matches!(
///     io::read_collada_from(&b"<COLLADA"[..], "cut.dae"),
///     Err(GeometryError::Parse { .. })
/// ));
/// ```
pub fn read_collada_from(
    reader: impl Read,
    path: impl AsRef<Path>,
) -> Result<TriMesh, GeometryError> {
    let path = path.as_ref();
    parse_collada(&read_all(reader, path)?, path)
}

fn parse_collada(bytes: &[u8], path: &Path) -> Result<TriMesh, GeometryError> {
    if bytes.is_empty() {
        return Err(parse_error(path, None, "file is empty"));
    }
    // `mesh-loader` applies `<unit meter>` to the root node only, after the child nodes'
    // transforms, so their translations stay in file units; the document is handed over
    // with unit 1 and the whole result scaled here (a uniform scale outermost, as COLLADA
    // means it).
    let (unit, rewritten) = take_unit(bytes);
    let bytes = rewritten.as_deref().unwrap_or(bytes);
    if !(unit.is_finite() && unit > 0.0) {
        return Err(parse_error(
            path,
            None,
            format!("COLLADA: <unit meter> is {unit} (must be positive and finite)"),
        ));
    }
    // `mesh-loader` indexes its sources with the indices of `<p>` without checking them
    // everywhere; a malformed document must be an error here, not a panic of the caller.
    let parsed = std::panic::catch_unwind(|| mesh_loader::collada::from_slice(bytes));
    let scene = match parsed {
        Ok(Ok(scene)) => scene,
        Ok(Err(e)) => return Err(parse_error(path, None, format!("COLLADA: {e}"))),
        Err(_) => {
            return Err(parse_error(
                path,
                None,
                "COLLADA: malformed document (an index or count out of range)",
            ));
        }
    };
    let triangles: usize = scene.meshes.iter().map(|m| m.faces.len()).sum();
    if triangles == 0 {
        return Err(GeometryError::NoTriangles {
            path: path.to_path_buf(),
        });
    }
    let mut welder = Welder::with_capacity(triangles);
    for mesh in &scene.meshes {
        let corner = |i: u32| {
            mesh.vertices
                .get(i as usize)
                .map(|v| unit * DVec3::new(f64::from(v[0]), f64::from(v[1]), f64::from(v[2])))
                .ok_or_else(|| {
                    parse_error(
                        path,
                        None,
                        format!(
                            "COLLADA mesh {:?}: a face names vertex {i} of {}",
                            mesh.name,
                            mesh.vertices.len()
                        ),
                    )
                })
        };
        for f in &mesh.faces {
            welder.triangle([corner(f[0])?, corner(f[1])?, corner(f[2])?])?;
        }
    }
    welder.finish()
}

/// The document's first `<unit meter="...">` (1 when absent or unreadable as UTF-8) and the
/// document with that value replaced by `1` (`None` when nothing was replaced).
fn take_unit(bytes: &[u8]) -> (f64, Option<Vec<u8>>) {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return (1.0, None);
    };
    let Some(at) = text.find("<unit") else {
        return (1.0, None);
    };
    let Some(end) = text[at..].find('>').map(|e| at + e) else {
        return (1.0, None);
    };
    let tag = &text[at..end];
    let Some(key) = tag.find("meter=") else {
        return (1.0, None);
    };
    let value_start = at + key + "meter=".len();
    let Some(quote) = text[value_start..]
        .chars()
        .next()
        .filter(|c| *c == '"' || *c == '\'')
    else {
        return (1.0, None);
    };
    let Some(len) = text[value_start + 1..end].find(quote) else {
        return (1.0, None);
    };
    let value = &text[value_start + 1..value_start + 1 + len];
    let unit = value.trim().parse::<f64>().unwrap_or(f64::NAN);
    let mut out = String::with_capacity(text.len());
    out.push_str(&text[..value_start + 1]);
    out.push('1');
    out.push_str(&text[value_start + 1 + len..]);
    (unit, Some(out.into_bytes()))
}
