//! Where a deforming-scene query spends its time, and the parallel query against the serial
//! one: for each frame pair given, the median build and refit times, then each query mode
//! (`Toc`, `All`, `Boolean`) serial and parallel in alternation (`REPEATS` runs each, default
//! 9; a run repeats the query for at least 200 ms and reports the mean), wall and CPU time
//! (all threads of the process), and a check that the answers are the same (global ToC bit
//! for bit, the sorted contact and resting lists, the Boolean answer).
//! It also prints the machine's ceiling for each query: two copies of the serial query run
//! side by side, one per thread, and `2 × alone / side by side` is the most two threads can
//! gain on work that needs no coordination (the two cores share caches and memory
//! bandwidth, and may be SMT siblings of one physical core); and the CPU time of such a copy
//! over the serial query's CPU time alone, the price of sharing the cores that a parallel
//! query's threads pay as well.
//! Besides wall time it prints the parallel run's critical path from its threads' CPU times:
//! the larger of the calling thread's (the serial start, the head of the serial order it
//! keeps, the merge) and the busiest helper's. With the Linux scheduler's autogroups a
//! session's threads share one session's slice of a busy machine, so wall clock shows no
//! speed-up while other sessions are busy; `serial CPU / critical path` is the speed-up two
//! free cores would give (up to cache and memory effects, and a helper that wakes late on a
//! busy machine does less of the work).
//!
//! `MODES=toc,all,boolean` picks the query modes (default: all three).
//! `ONLY=serial` or `ONLY=parallel` times one side only (for profiling). `SERIAL_WORK`
//! and `SPLIT_GRAIN` override the parallel thresholds
//! ([`SceneOptions::with_parallel_thresholds`]).
//!
//! ```sh
//! RAYON_NUM_THREADS=2 cargo run --release -p ccd-la-deformable --features parallel \
//!     --example parallel -- cloth_ball92.ply cloth_ball93.ply [more pairs...]
//! ```

use std::time::Instant;

use ccd_la_deformable::scene::{DeformingScene, SceneOptions, SceneResult, work_units};
use ccd_la_deformable::{DeformingMesh, Mode, SceneStats};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if !n.is_multiple_of(2) {
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

/// CPU time of the calling thread so far, ms (`/proc/thread-self/schedstat`; 0 where
/// unavailable).
fn own_cpu_ms() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .unwrap_or(0.0)
        * 1e-6
}

/// CPU time of each thread of the process so far, ms, by thread id.
fn thread_cpu_ms() -> Vec<(u32, f64)> {
    let Ok(dir) = std::fs::read_dir("/proc/self/task") else {
        return Vec::new();
    };
    dir.filter_map(Result::ok)
        .filter_map(|e| {
            let tid = e.file_name().to_str()?.parse().ok()?;
            let s = std::fs::read_to_string(e.path().join("schedstat")).ok()?;
            Some((
                tid,
                s.split_whitespace().next()?.parse::<f64>().ok()? * 1e-6,
            ))
        })
        .collect()
}

/// The critical path of a parallel run from its threads' CPU times (`before` → `after`):
/// the larger of the calling thread's CPU (the serial start, its share of the traversal,
/// the merge) and the busiest helper's (which run alongside it). On a machine
/// whose scheduler shares CPU between sessions (autogroups), a session's threads split its
/// share however many there are, so wall clock cannot show a parallel speed-up while other
/// sessions are busy; this is what the wall time would be with two free cores.
fn critical_path_ms(before: &[(u32, f64)], after: &[(u32, f64)]) -> f64 {
    let main = std::process::id();
    let used = |tid: u32, t: f64| t - before.iter().find(|b| b.0 == tid).map_or(0.0, |b| b.1);
    let (mut m, mut w) = (0.0f64, 0.0f64);
    for &(tid, t) in after {
        if tid == main {
            m = used(tid, t);
        } else {
            w = w.max(used(tid, t));
        }
    }
    m.max(w)
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
    if args.is_empty() || !args.len().is_multiple_of(2) {
        eprintln!("usage: parallel <frame0> <frame1> [<frame0> <frame1> ...]");
        std::process::exit(2);
    }
    let repeats: usize = std::env::var("REPEATS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(9)
        .max(1);
    // ONLY=serial / ONLY=parallel runs one side (for profiling)
    let only = std::env::var("ONLY").ok().map(|v| v == "parallel");
    // MODES=toc,all,boolean picks the query modes (default: all three)
    let modes: Vec<String> = std::env::var("MODES")
        .map(|v| v.split(',').map(|m| m.trim().to_lowercase()).collect())
        .unwrap_or_default();
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
            let (s, t, _) = timed(|| DeformingScene::new(vec![mesh.clone()], &opts));
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
            env("SERIAL_WORK", opts.serial_work),
            env("SPLIT_GRAIN", opts.split_grain),
        );
        let par = DeformingScene::new(vec![mesh.clone()], &par_opts)?;
        println!(
            "{}: {} triangles, build {:.1} ms, refit {:.1} ms (medians, 1 thread)",
            pair[0],
            mesh.triangle_count(),
            median(build),
            median(refit)
        );
        for mode in [Mode::Toc, Mode::All, Mode::Boolean] {
            if !modes.is_empty() && !modes.contains(&format!("{mode:?}").to_lowercase()) {
                continue;
            }
            let (mut ws, mut wp, mut cs, mut cp) = (vec![], vec![], vec![], vec![]);
            let mut crit = vec![];
            let mut agree = true;
            let mut work = [SceneStats::default(); 2];
            for k in 0..repeats {
                // alternate which runs first
                let order = if k.is_multiple_of(2) {
                    [false, true]
                } else {
                    [true, false]
                };
                let mut rs = [None, None];
                for p in order {
                    if only.is_some_and(|o| o != p) {
                        continue;
                    }
                    let s = if p { &par } else { &serial };
                    // repeated for at least 200 ms (CPU clocks advance in scheduler ticks)
                    let before = thread_cpu_ms();
                    let ((r, k), w, c) = timed(|| {
                        let t = Instant::now();
                        let mut k = 1u32;
                        let mut r = s.query(mode);
                        while t.elapsed().as_secs_f64() < 0.2 && k < 100_000 {
                            r = s.query(mode);
                            k += 1;
                        }
                        (r, f64::from(k))
                    });
                    let (w, c) = (w / k, c / k);
                    if p {
                        crit.push(critical_path_ms(&before, &thread_cpu_ms()) / k);
                    }
                    if p {
                        wp.push(w);
                        cp.push(c);
                    } else {
                        ws.push(w);
                        cs.push(c);
                    }
                    work[usize::from(p)] = r.stats;
                    rs[usize::from(p)] = Some(r);
                }
                if let [Some(a), Some(b)] = &rs
                    && only.is_none()
                {
                    agree &= same(mode, a, b);
                }
            }
            all_same &= agree;
            if only.is_some() {
                let (w, c) = if only == Some(true) {
                    (wp, cp)
                } else {
                    (ws, cs)
                };
                let st = work[usize::from(only == Some(true))];
                println!(
                    "  {mode:?}: {:.3} ms (CPU {:.3}); BV tests {}, kernel calls {}, leaf pairs {}, certificate items {}, work units {}",
                    median(w),
                    median(c),
                    st.bv_tests,
                    st.primitive_tests,
                    st.leaf_pairs,
                    st.certificate_items,
                    work_units(&st)
                );
                continue;
            }
            let (ws, wp) = (median(ws), median(wp));
            let (cs, crit) = (median(cs), median(crit));
            // the machine's ceiling for this query: two serial copies side by side, one per
            // thread; `2 × alone / side by side` is what two threads can gain on work that
            // needs no coordination at all (shared caches, memory bandwidth, SMT siblings)
            let (mut side, mut side_cpu) = (Vec::new(), Vec::new());
            for _ in 0..repeats.min(5) {
                let (per_query, cpu_per_query) = std::thread::scope(|sc| {
                    let runs: Vec<_> = (0..2)
                        .map(|_| {
                            sc.spawn(|| {
                                let (c, t) = (own_cpu_ms(), Instant::now());
                                let mut k = 0u32;
                                while t.elapsed().as_secs_f64() < 0.2 && k < 100_000 {
                                    std::hint::black_box(serial.query(mode));
                                    k += 1;
                                }
                                let k = f64::from(k);
                                (t.elapsed().as_secs_f64() * 1e3 / k, (own_cpu_ms() - c) / k)
                            })
                        })
                        .collect();
                    let times: Vec<(f64, f64)> =
                        runs.into_iter().filter_map(|h| h.join().ok()).collect();
                    let n = times.len().max(1) as f64;
                    (
                        times.iter().map(|t| t.0).sum::<f64>() / n,
                        times.iter().map(|t| t.1).sum::<f64>() / n,
                    )
                });
                side.push(per_query);
                side_cpu.push(cpu_per_query);
            }
            // CPU time of one query when two run side by side, over its CPU time alone: what
            // sharing the cores costs (caches, memory bandwidth) on work that needs no
            // coordination; a parallel query's threads pay it too
            let sharing = median(side_cpu) / cs;
            let ceiling = 2.0 * ws / median(side);
            println!(
                "  {mode:?}: serial {ws:.2} ms (CPU {cs:.2}), parallel {wp:.2} ms (CPU {:.2}, critical path {crit:.2}), speed-up {:.2}× wall, {:.2}× CPU (serial CPU / critical path), ceiling {ceiling:.2}× (two serial copies side by side, each at {sharing:.2}× its CPU alone), answers {}; BV tests / kernel calls serial ({}, {}), parallel ({}, {}), work units {}",
                median(cp),
                ws / wp,
                cs / crit,
                if agree { "identical" } else { "DIFFER" },
                work[0].bv_tests,
                work[0].primitive_tests,
                work[1].bv_tests,
                work[1].primitive_tests,
                work_units(&work[0])
            );
        }
    }
    if !all_same {
        return Err("serial and parallel answers differ".into());
    }
    Ok(())
}
