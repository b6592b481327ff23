//! Runs one CCD step between two frames of a deforming mesh (PLY/OBJ/STL with the same
//! topology): global ToC, all ToCs and the cubic baseline, with timings.
//!
//! ```sh
//! cargo run --release -p ccd-la-deformable --example frame_pair -- \
//!     ../shared/data/unc-frames/cloth-ball/cloth_ball92.ply ../shared/data/unc-frames/cloth-ball/cloth_ball93.ply
//! ```

use std::time::Instant;

use ccd_la_deformable::scene::{Kernel, Scene, SceneOptions};
use ccd_la_deformable::{DeformingMesh, Output};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [f0, f1] = args.as_slice() else {
        eprintln!("usage: frame_pair <frame0> <frame1>");
        std::process::exit(2);
    };
    let (m0, m1) = (
        ccd_geometry::io::read_mesh(f0)?,
        ccd_geometry::io::read_mesh(f1)?,
    );
    if m0.triangles() != m1.triangles() {
        return Err("the frames have different topology".into());
    }
    let mesh = DeformingMesh::new(
        m0.triangles().to_vec(),
        m0.vertices().to_vec(),
        m1.vertices().to_vec(),
    )?;
    println!(
        "{} vertices, {} triangles",
        mesh.vertex_count(),
        mesh.triangle_count()
    );
    for kernel in [Kernel::LocalAdvancement, Kernel::CubicBaseline] {
        let opts = SceneOptions {
            kernel,
            ..SceneOptions::default()
        };
        let t = Instant::now();
        let scene = Scene::new(vec![mesh.clone()], &opts)?;
        let build = t.elapsed();
        for output in [Output::Global, Output::All, Output::Boolean] {
            let t = Instant::now();
            let r = scene.query(output);
            let dt = t.elapsed();
            println!(
                "{kernel:?} {output:?}: build {:.1} ms, query {:.1} ms, toc {:?}, contacts {}, {:?}",
                build.as_secs_f64() * 1e3,
                dt.as_secs_f64() * 1e3,
                r.toc(),
                r.contacts.len(),
                r.stats
            );
        }
    }
    Ok(())
}
