//! `cargo xtask pile`: the `rigid-pile` simulation with chosen size and options, for
//! profiling (`perf record -- target/release/xtask pile ...`) and quick before/after timings.

use std::time::Instant;

use anyhow::Result;
use ccd_world::{BroadPhase, Mode, StepOptions};
use clap::Args;

use crate::scenes::rigid_pile::{LAYERS, Layout, library, simulate_in};

/// Options of `cargo xtask pile`.
#[derive(Args, Debug)]
pub(crate) struct PileArgs {
    /// Number of dynamic bodies.
    #[arg(long, default_value_t = 1000)]
    bodies: usize,
    /// Number of steps.
    #[arg(long, default_value_t = 200)]
    steps: usize,
    /// Narrow phase on this many threads (1: sequential).
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Scheduling off.
    #[arg(long)]
    no_scheduling: bool,
    /// The all-pairs broad phase.
    #[arg(long)]
    all_pairs: bool,
    /// Repetitions (the median and minimum of the mean step time are printed).
    #[arg(long, default_value_t = 1)]
    reps: usize,
    /// The library before the world took analytic shapes: boxes and plates as convex
    /// meshes, no balls, capsules or cylinders (and the bin's walls as convex meshes).
    #[arg(long)]
    meshes_only: bool,
    /// Layers of the starting block (the scene: 10 at every size, footprint ∝ bodies);
    /// 0: a cube of ⌈∛n⌉ layers (the pile's height grows as n^(1/3)).
    #[arg(long, default_value_t = LAYERS)]
    layers: usize,
    /// Print a per-step trace in buckets of this many steps (awake bodies, broad pairs,
    /// deferred, CA pairs, contacts, ms) for the first repetition (0: none).
    #[arg(long, default_value_t = 0)]
    trace: usize,
    /// Folder of real inputs (default: ../shared/data beside the workspace).
    #[arg(long)]
    data: Option<std::path::PathBuf>,
}

pub(crate) fn run(args: &PileArgs) -> Result<()> {
    let shared = crate::shared_dir(None).join("data");
    let data = args.data.clone().unwrap_or_else(|| shared.clone());
    let robots = crate::robot_data::RobotSources::new(args.data.as_deref(), Some(&shared), true);
    let (shapes, note) = library(Some(&data), &robots, !args.meshes_only)?;
    println!("{note}");
    let mut opts = StepOptions::default()
        .with_mode(Mode::All)
        .with_scheduling(!args.no_scheduling);
    if args.all_pairs {
        opts = opts.with_broad_phase(BroadPhase::AllPairs);
    }
    let pool = if args.threads > 1 {
        opts = opts.with_parallel(true);
        Some(
            rayon::ThreadPoolBuilder::new()
                .num_threads(args.threads)
                .build()?,
        )
    } else {
        None
    };
    let layout = if args.layers == 0 {
        Layout::Cube
    } else {
        Layout::Layers(args.layers)
    };
    let (sx, sy, layers) = layout.grid(args.bodies);
    println!(
        "layout {layout:?}: {sx} × {sy} bodies per layer, {layers} layers ({} bodies)",
        args.bodies
    );
    let mut means = Vec::new();
    let mut cpus = Vec::new();
    let mut walls = Vec::new();
    let mut checksums = Vec::new();
    for rep in 0..args.reps.max(1) {
        let t = Instant::now();
        let cpu0 = crate::clock::thread_cpu_ms();
        let r = simulate_in(
            &shapes,
            args.bodies,
            layout,
            args.steps,
            opts,
            pool.as_ref(),
        )?;
        let cpu = (crate::clock::thread_cpu_ms() - cpu0) / args.steps.max(1) as f64;
        let mean = r.mean_ms();
        cpus.push(cpu);
        walls.push(r.mean_wall_ms());
        if rep == 0 && args.trace > 0 {
            trace(&r, args.trace);
        }
        let (ca, broad) = (
            r.per_step(|s| s.ca_pairs as f64),
            r.per_step(|s| s.broad_pairs as f64),
        );
        let c = cpu;
        println!(
            "rep {rep}: per body {:.3} µs, per CA pair {:.1} µs, per broad pair {:.2} µs (on-CPU); CA pairs per body {:.4}, broad pairs per body {:.4}; contacts checksum {:016x}",
            c * 1e3 / args.bodies.max(1) as f64,
            c * 1e3 / ca.max(1e-12),
            c * 1e3 / broad.max(1e-12),
            ca / args.bodies.max(1) as f64,
            broad / args.bodies.max(1) as f64,
            r.checksum,
        );
        checksums.push(r.checksum);
        println!(
            "rep {rep}: {mean:.3} ms/step (this thread's CPU {:.3} ms/step incl. set-up), worst {:.3}, broad {:.1}, deferred {:.1}, bound-free {:.1}, CA pairs {:.1}, CA iters {:.1}, contacts {:.1}, asleep {}, contacts total {} ({:.1} s wall)",
            cpu,
            r.worst_ms(),
            r.per_step(|s| s.broad_pairs as f64),
            r.per_step(|s| s.deferred as f64),
            r.per_step(|s| s.bound_free as f64),
            r.per_step(|s| s.ca_pairs as f64),
            r.per_step(|s| s.ca_iterations as f64),
            r.per_step(|s| s.contacts as f64),
            r.asleep,
            r.contacts_per_step.iter().sum::<usize>(),
            t.elapsed().as_secs_f64()
        );
        means.push(mean);
    }
    if checksums.windows(2).any(|w| w[0] != w[1]) {
        anyhow::bail!("the repetitions' contacts differ: {checksums:x?}");
    }
    means.sort_by(f64::total_cmp);
    cpus.sort_by(f64::total_cmp);
    walls.sort_by(f64::total_cmp);
    println!(
        "median {:.3} ms/step, min {:.3} ({} reps); World::step wall median {:.3} ms/step, min {:.3}; this thread's CPU median {:.3} ms/step",
        means[means.len() / 2],
        means[0],
        means.len(),
        walls[walls.len() / 2],
        walls[0],
        cpus[cpus.len() / 2],
    );
    Ok(())
}

/// The run in buckets of `every` steps: awake bodies at the bucket's start, and per step
/// broad pairs, deferred pairs, CA pairs, contacts, sweep-and-prune swaps and
/// `World::step` ms.
fn trace(r: &crate::scenes::rigid_pile::Run, every: usize) {
    println!("steps      awake  broad/step  deferred  CA pairs  contacts     swaps  ms/step");
    for (b, chunk) in r.stats.chunks(every).enumerate() {
        let lo = b * every;
        let k = chunk.len() as f64;
        let sum = |f: &dyn Fn(&ccd_world::StepStats) -> usize| {
            chunk.iter().map(f).sum::<usize>() as f64 / k
        };
        let ms = r.ms[lo..lo + chunk.len()].iter().sum::<f64>() / k;
        println!(
            "{lo:>4}-{:<4} {:>6} {:>11.1} {:>9.1} {:>9.1} {:>9.1} {:>9.0} {:>8.3}",
            lo + chunk.len() - 1,
            r.awake[lo],
            sum(&|s| s.broad_pairs),
            sum(&|s| s.deferred),
            sum(&|s| s.ca_pairs),
            sum(&|s| s.contacts),
            chunk.iter().map(|s| s.swaps as f64).sum::<f64>() / k,
            ms,
        );
    }
}
