//! Mesh IO tour: writes a mesh as OBJ under the temp folder and reads it back; with file
//! arguments, loads each (OBJ, STL or PLY, chosen by extension) and prints its size and the
//! time the read took.
//!
//! ```text
//! cargo run -p ccd-geometry --example mesh_io
//! cargo run -p ccd-geometry --release --example mesh_io -- ../shared/data/unc-frames/*/*.ply
//! ```

use std::time::Instant;

use ccd_geometry::glam::DVec3;
use ccd_geometry::{GeometryError, TriMesh, io};

fn main() -> Result<(), GeometryError> {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    if paths.is_empty() {
        return round_trip();
    }
    for path in paths {
        let start = Instant::now();
        match io::read_mesh(&path) {
            Ok(mesh) => {
                let ms = start.elapsed().as_secs_f64() * 1e3;
                let b = mesh.aabb();
                println!(
                    "{path}: {} vertices, {} triangles ({} degenerate), box {:.3?}..{:.3?}, read in {ms:.1} ms",
                    mesh.vertex_count(),
                    mesh.triangle_count(),
                    mesh.degenerate_triangles().len(),
                    b.min.to_array(),
                    b.max.to_array(),
                );
            }
            Err(e) => println!("{path}: error: {e}"),
        }
    }
    Ok(())
}

/// An octahedron written to and read back from `<temp>/ccd-mesh-io-example.obj`.
fn round_trip() -> Result<(), GeometryError> {
    let vertices = vec![
        DVec3::X,
        DVec3::Y,
        DVec3::Z,
        -DVec3::X,
        -DVec3::Y,
        -DVec3::Z,
    ];
    let triangles = vec![
        [0, 1, 2],
        [1, 3, 2],
        [3, 4, 2],
        [4, 0, 2],
        [1, 0, 5],
        [3, 1, 5],
        [4, 3, 5],
        [0, 4, 5],
    ];
    let mesh = TriMesh::new(vertices, triangles)?;
    let path = std::env::temp_dir().join("ccd-mesh-io-example.obj");
    io::write_obj(&path, &mesh)?;
    let back = io::read_mesh(&path)?;
    std::fs::remove_file(&path).ok();
    println!(
        "wrote and read {}: {} vertices, {} triangles, {} edges; identical: {}",
        path.display(),
        back.vertex_count(),
        back.triangle_count(),
        back.edges().len(),
        back.vertices() == mesh.vertices() && back.triangles() == mesh.triangles()
    );
    // A malformed file is an error, never a panic.
    let bad = io::read_mesh_from(&b"v 0 0 0\nf 1 2 3\n"[..], io::MeshFormat::Obj, "bad.obj");
    println!(
        "malformed input: {}",
        bad.map(|_| "accepted".to_owned())
            .unwrap_or_else(|e| e.to_string())
    );
    Ok(())
}
