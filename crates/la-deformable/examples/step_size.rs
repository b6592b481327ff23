//! Measures the separation-preserving step size ([`DeformingScene::separation_step`], and the
//! one-shot [`separation_step`] of a mesh seen once) and the global time of contact with and
//! without resting pairs on frame pairs: build + query, 1 thread, median of `REPEATS` runs
//! (default 7).
//!
//! `COMPARE_PARALLEL=1` (with the `parallel` feature, `RAYON_NUM_THREADS=2`) instead times
//! each query mode serial and parallel, alternated, and checks the answers agree.
//!
//! ```sh
//! cargo run --release -p ccd-la-deformable --example step_size -- \
//!     ../shared/data/unc-frames/cloth-ball/cloth_ball92.ply ../shared/data/unc-frames/cloth-ball/cloth_ball93.ply
//! ```

use std::time::Instant;

use ccd_la_deformable::scene::{
    DeformingScene, Resting, SceneOptions, SeparationOptions, separation_step,
};
use ccd_la_deformable::{DeformingMesh, Mode};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [f0, f1] = args.as_slice() else {
        eprintln!("usage: step_size <frame0> <frame1>");
        std::process::exit(2);
    };
    let repeats: usize = std::env::var("REPEATS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(7);
    let min_distance: f64 = std::env::var("MIN_DISTANCE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.0);
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
    let opts = SceneOptions::default();
    if std::env::var("COMPARE_PARALLEL").is_ok_and(|v| v == "1") {
        return compare_parallel(&mesh, &opts, repeats.max(1));
    }
    let rule = SeparationOptions::default().with_min_distance(min_distance);
    let mut times = Vec::new();
    let mut answer = None;
    // the step does not use the normal cones: build without them
    let step_opts = opts.with_normal_cones(false);
    for _ in 0..repeats.max(1) {
        let t = Instant::now();
        let scene = DeformingScene::new(vec![mesh.clone()], &step_opts)?;
        let r = scene.separation_step(&rule)?;
        times.push(t.elapsed().as_secs_f64() * 1e3);
        answer = Some(r);
    }
    let r = answer.unwrap_or_else(|| unreachable!());
    println!(
        "separation_step (s = {}, min_distance = {min_distance}): build + query median {:.1} ms over {} runs (min {:.1}), step {}, limiting {:?}, stats {:?}",
        rule.scale,
        median(times.clone()),
        times.len(),
        times.iter().copied().fold(f64::INFINITY, f64::min),
        r.step,
        r.limiting,
        r.stats
    );
    let mut times = Vec::new();
    let mut once = None;
    for _ in 0..repeats.max(1) {
        let t = Instant::now();
        once = Some(separation_step(&mesh, &rule)?);
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let once = once.unwrap_or_else(|| unreachable!());
    println!(
        "one-shot separation_step: build + query median {:.1} ms (min {:.1}), step {}, stats {:?}",
        median(times.clone()),
        times.iter().copied().fold(f64::INFINITY, f64::min),
        once.step,
        once.stats
    );
    let scene = DeformingScene::new(vec![mesh.clone()], &step_opts)?;
    let mut qt = Vec::new();
    for _ in 0..repeats.max(1) {
        let t = Instant::now();
        let _ = scene.separation_step(&rule)?;
        qt.push(t.elapsed().as_secs_f64() * 1e3);
    }
    println!(
        "separation_step query alone (built scene): median {:.1} ms",
        median(qt)
    );
    for resting in [Resting::Contact, Resting::Separate] {
        let scene = DeformingScene::new(vec![mesh.clone()], &opts.with_resting(resting))?;
        for mode in [Mode::Toc, Mode::All] {
            let mut times = Vec::new();
            let mut r = None;
            // every contact is slow to list on the large frames: once
            let runs = if mode == Mode::All { 1 } else { repeats.max(1) };
            for _ in 0..runs {
                let t = Instant::now();
                r = Some(scene.query(mode));
                times.push(t.elapsed().as_secs_f64() * 1e3);
            }
            let r = r.unwrap_or_else(|| unreachable!());
            let at0 = r.contacts.iter().filter(|c| c.toc == 0.0).count();
            println!(
                "{resting:?} {mode:?}: query median {:.1} ms, toc {:?}, contacts {} ({at0} at t = 0), resting {}",
                median(times),
                r.toc(),
                r.contacts.len(),
                r.resting.len()
            );
        }
    }
    Ok(())
}

/// Serial against `SceneOptions::parallel`, alternated runs, per mode and resting treatment.
fn compare_parallel(
    mesh: &DeformingMesh,
    opts: &SceneOptions,
    repeats: usize,
) -> Result<(), Box<dyn std::error::Error>> {
    for resting in [Resting::Contact, Resting::Separate] {
        let o = opts.with_resting(resting);
        let serial = DeformingScene::new(vec![mesh.clone()], &o)?;
        let par = DeformingScene::new(vec![mesh.clone()], &o.with_parallel(true))?;
        for mode in [Mode::Toc, Mode::All, Mode::Boolean] {
            let (mut ts, mut tp) = (Vec::new(), Vec::new());
            let (mut rs, mut rp) = (None, None);
            let runs = if mode == Mode::All {
                repeats.min(3)
            } else {
                repeats
            };
            for _ in 0..runs {
                let t = Instant::now();
                rs = Some(serial.query(mode));
                ts.push(t.elapsed().as_secs_f64() * 1e3);
                let t = Instant::now();
                rp = Some(par.query(mode));
                tp.push(t.elapsed().as_secs_f64() * 1e3);
            }
            let (rs, rp) = (rs.unwrap_or_default(), rp.unwrap_or_default());
            let same = match mode {
                Mode::Toc => rs.toc() == rp.toc(),
                Mode::All => rs.contacts == rp.contacts,
                Mode::Boolean => rs.contacts.is_empty() == rp.contacts.is_empty(),
            };
            let (ms, mp) = (median(ts), median(tp));
            println!(
                "{resting:?} {mode:?}: serial {ms:.2} ms, parallel {mp:.2} ms, speed-up {:.2}x, same answer {same}",
                ms / mp
            );
        }
    }
    Ok(())
}
