//! `cargo xtask pile`: the `rigid-pile` simulation with chosen size and options, for
//! profiling (`perf record -- target/release/xtask pile ...`) and quick before/after timings.

use std::time::Instant;

use anyhow::Result;
use ccd_world::{BroadPhase, Mode, StepOptions};
use clap::Args;

use crate::scenes::rigid_pile::{library, simulate};

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
    /// Folder of real inputs (default: ../shared/data beside the workspace).
    #[arg(long)]
    data: Option<std::path::PathBuf>,
}

pub(crate) fn run(args: &PileArgs) -> Result<()> {
    let data = args
        .data
        .clone()
        .unwrap_or_else(|| crate::workspace_root().join("../shared/data"));
    let (shapes, note) = library(Some(&data), !args.meshes_only)?;
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
    let mut means = Vec::new();
    let mut cpus = Vec::new();
    for rep in 0..args.reps.max(1) {
        let t = Instant::now();
        let cpu0 = crate::clock::thread_cpu_ms();
        let r = simulate(&shapes, args.bodies, args.steps, opts, pool.as_ref())?;
        let cpu = (crate::clock::thread_cpu_ms() - cpu0) / args.steps.max(1) as f64;
        let mean = r.mean_ms();
        cpus.push(cpu);
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
    means.sort_by(f64::total_cmp);
    cpus.sort_by(f64::total_cmp);
    println!(
        "median {:.3} ms/step, min {:.3} ({} reps); this thread's CPU median {:.3} ms/step",
        means[means.len() / 2],
        means[0],
        means.len(),
        cpus[cpus.len() / 2],
    );
    Ok(())
}
