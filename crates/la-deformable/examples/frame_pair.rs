//! Runs one CCD step between two frames of a deforming mesh (PLY/OBJ/STL with the same
//! topology): global ToC, all ToCs and the cubic baseline, with timings.
//!
//! `LEAF_SIZE` and `LAYER_HEIGHT` override the scene options; `PARALLEL=1` (with the
//! `parallel` feature) runs the queries on rayon's pool.
//!
//! ```sh
//! cargo run --release -p ccd-la-deformable --example frame_pair -- \
//!     ../shared/data/unc-frames/cloth-ball/cloth_ball92.ply ../shared/data/unc-frames/cloth-ball/cloth_ball93.ply
//! ```

use std::time::Instant;

use ccd_la_deformable::scene::{DeformingScene, Kernel, SceneOptions};
use ccd_la_deformable::{DeformingMesh, Mode};

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
    let mut keys: Vec<[u64; 3]> = mesh
        .x0()
        .iter()
        .map(|p| p.to_array().map(f64::to_bits))
        .collect();
    keys.sort_unstable();
    keys.dedup();
    println!(
        "{} vertices ({} distinct positions at t = 0), {} triangles",
        mesh.vertex_count(),
        keys.len(),
        mesh.triangle_count()
    );
    for kernel in [Kernel::LocalAdvancement, Kernel::CubicBaseline] {
        let env = |k: &str, d: u32| {
            std::env::var(k)
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(d)
        };
        let opts = SceneOptions::default()
            .with_kernel(kernel)
            .with_leaf_size(env("LEAF_SIZE", 8))
            .with_layer_height(env("LAYER_HEIGHT", 3))
            .with_parallel(env("PARALLEL", 0) != 0);
        let t = Instant::now();
        let scene = DeformingScene::new(vec![mesh.clone()], &opts)?;
        let build = t.elapsed();
        for output in [Mode::Toc, Mode::All, Mode::Boolean] {
            let t = Instant::now();
            let r = scene.query(output);
            let dt = t.elapsed();
            let initially = r
                .contacts
                .iter()
                .filter(|c| c.status == ccd_la_deformable::Status::InitiallyTouching)
                .count();
            println!(
                "{kernel:?} {output:?}: build {:.1} ms, query {:.1} ms, toc {:?}, contacts {} ({initially} within tolerance at t = 0), {:?}",
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
