//! Where a deforming-scene query spends its time, and the parallel query against the serial
//! one: for each frame pair given, the median build and refit times, then each query mode
//! (`Toc`, `All`, `Boolean`) serial and parallel in alternation (`REPEATS` runs each, default
//! 9), wall and CPU time (all threads of the process), and a check that the answers are the
//! same (global ToC bit for bit, the sorted contact and resting lists, the Boolean answer).
//!
//! `SERIAL_TASKS` and `SPLIT_GRAIN` override the parallel thresholds
//! ([`SceneOptions::with_parallel_thresholds`]).
//!
//! ```sh
//! RAYON_NUM_THREADS=2 cargo run --release -p ccd-la-deformable --features parallel \
//!     --example parallel -- cloth_ball92.ply cloth_ball93.ply [more pairs...]
//! ```

use std::time::Instant;

use ccd_la_deformable::scene::{Scene, SceneOptions, SceneResult};
use ccd_la_deformable::{DeformingMesh, Mode};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    }
}

/// CPU time of every thread of the process so far, ms (`/proc/self/task/*/schedstat`; 0
/// where unavailable).
fn cpu_ms() -> f64 {
    let Ok(dir) = std::fs::read_dir("/proc/self/task") else {
        return 0.0;
    };
    dir.filter_map(Result::ok)
        .filter_map(|e| std::fs::read_to_string(e.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .sum::<f64>()
        * 1e-6
}

/// Wall and CPU time of `f`, ms.
fn timed<T>(f: impl FnOnce() -> T) -> (T, f64, f64) {
    let (c, t) = (cpu_ms(), Instant::now());
    let r = f();
    (r, t.elapsed().as_secs_f64() * 1e3, cpu_ms() - c)
}

fn same(mode: Mode, a: &SceneResult, b: &SceneResult) -> bool {
    match mode {
        Mode::Toc => a.toc().map(f64::to_bits) == b.toc().map(f64::to_bits),
        Mode::All => a.contacts == b.contacts && a.resting == b.resting,
        Mode::Boolean => a.contacts.is_empty() == b.contacts.is_empty(),
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.is_empty() || args.len() % 2 != 0 {
        eprintln!("usage: parallel <frame0> <frame1> [<frame0> <frame1> ...]");
        std::process::exit(2);
    }
    let repeats: usize = std::env::var("REPEATS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(9)
        .max(1);
    let mut all_same = true;
    for pair in args.chunks(2) {
        let (m0, m1) = (
            ccd_geometry::io::read_mesh(&pair[0])?,
            ccd_geometry::io::read_mesh(&pair[1])?,
        );
        if m0.triangles() != m1.triangles() {
            return Err(format!("{}: the frames have different topology", pair[0]).into());
        }
        let mesh = DeformingMesh::new(
            m0.triangles().to_vec(),
            m0.vertices().to_vec(),
            m1.vertices().to_vec(),
        )?;
        let opts = SceneOptions::default();
        let (mut build, mut refit) = (Vec::new(), Vec::new());
        let mut scene = None;
        for _ in 0..repeats.min(5) {
            let (s, t, _) = timed(|| Scene::new(vec![mesh.clone()], &opts));
            build.push(t);
            let mut s = s?;
            let (x0, x1) = (mesh.x0().to_vec(), mesh.x1().to_vec());
            let (r, t, _) = timed(|| s.update(0, x0, x1));
            r?;
            refit.push(t);
            scene = Some(s);
        }
        let serial = scene.ok_or("no scene")?;
        let env = |k: &str, d: u32| {
            std::env::var(k)
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(d)
        };
        let par_opts = opts.with_parallel(true).with_parallel_thresholds(
            env("SERIAL_TASKS", opts.serial_tasks),
            env("SPLIT_GRAIN", opts.split_grain),
        );
        let par = Scene::new(vec![mesh.clone()], &par_opts)?;
        println!(
            "{}: {} triangles, build {:.1} ms, refit {:.1} ms (medians, 1 thread)",
            pair[0],
            mesh.triangle_count(),
            median(build),
            median(refit)
        );
        for mode in [Mode::Toc, Mode::All, Mode::Boolean] {
            let (mut ws, mut wp, mut cs, mut cp) = (vec![], vec![], vec![], vec![]);
            let mut agree = true;
            let mut work = [(0, 0); 2];
            for k in 0..repeats {
                // alternate which runs first
                let order = if k % 2 == 0 {
                    [false, true]
                } else {
                    [true, false]
                };
                let mut rs = [None, None];
                for p in order {
                    let s = if p { &par } else { &serial };
                    let (r, w, c) = timed(|| s.query(mode));
                    if p {
                        wp.push(w);
                        cp.push(c);
                    } else {
                        ws.push(w);
                        cs.push(c);
                    }
                    work[usize::from(p)] = (r.stats.bv_tests, r.stats.primitive_tests);
                    rs[usize::from(p)] = Some(r);
                }
                if let [Some(a), Some(b)] = &rs {
                    agree &= same(mode, a, b);
                }
            }
            all_same &= agree;
            let (ws, wp) = (median(ws), median(wp));
            println!(
                "  {mode:?}: serial {ws:.2} ms (CPU {:.2}), parallel {wp:.2} ms (CPU {:.2}), speed-up {:.2}×, answers {}; BV tests / kernel calls serial {:?}, parallel {:?}",
                median(cs),
                median(cp),
                ws / wp,
                if agree { "identical" } else { "DIFFER" },
                work[0],
                work[1]
            );
        }
    }
    if !all_same {
        return Err("serial and parallel answers differ".into());
    }
    Ok(())
}
