//! `cargo xtask la-step`: one CCD step of a deforming-mesh scene, queried repeatedly, for
//! profiling the LA scene query (`perf record -- target/release/xtask la-step ...`).

use std::time::Instant;

use anyhow::{Result, bail};
use ccd_la_deformable::Mode;
use ccd_la_deformable::scene::{DeformingScene, Kernel, SceneOptions};
use clap::Args;

use crate::scenes::la_common::Animation;
use crate::scenes::la_run::meshes;
use crate::scenes::{cloth_ball, exploding_dragon, n_body};

/// Options of `cargo xtask la-step`.
#[derive(Args, Debug)]
pub(crate) struct LaStepArgs {
    /// Scene: cloth-ball, n-body or exploding-dragon.
    #[arg(long, default_value = "cloth-ball")]
    scene: String,
    /// The step `k → k + 1` (default: the quick bench's first step).
    #[arg(long)]
    step: Option<usize>,
    /// Queries to run (the minimum and median times are printed).
    #[arg(long, default_value_t = 10)]
    reps: usize,
    /// `global`, `all` or `boolean`.
    #[arg(long, default_value = "global")]
    output: String,
    /// Use the cubic-coplanarity baseline kernel.
    #[arg(long)]
    cubic: bool,
    /// Hybrid-BVH layer height.
    #[arg(long, default_value_t = 3)]
    layer_height: u32,
    /// Triangles per BVH leaf.
    #[arg(long, default_value_t = 8)]
    leaf_size: u32,
    /// Build the scene at this earlier step and reach `--step` by `DeformingScene::update` (refits,
    /// and rebuilds when the hierarchy has degraded), as a simulation would.
    #[arg(long)]
    from: Option<usize>,
    /// With `--from`: also run the query after every update, and print the mean query time
    /// over those steps (update + query is what a simulation pays per step).
    #[arg(long)]
    each: bool,
    /// Run the queries in parallel (`SceneOptions::parallel`) on a rayon pool of this many
    /// threads; 1 (the default) is the sequential query.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// With `--threads` above 1: the work done in the serial order before the query splits
    /// (`SceneOptions::serial_work`; default the library's).
    #[arg(long)]
    serial_work: Option<u32>,
    /// With `--threads` above 1: the smallest task (triangles of its two nodes) handed to
    /// another worker (`SceneOptions::split_grain`; default the library's).
    #[arg(long)]
    split_grain: Option<u32>,
}

pub(crate) fn run(args: &LaStepArgs) -> Result<()> {
    let (anim, quick_step): (Box<dyn Animation>, usize) = match args.scene.as_str() {
        "cloth-ball" => (Box::new(cloth_ball::animation()), cloth_ball::QUICK_STEP),
        "n-body" => (Box::new(n_body::animation()), n_body::QUICK_STEP),
        "exploding-dragon" => (
            Box::new(exploding_dragon::animation()),
            exploding_dragon::QUICK_STEP,
        ),
        s => bail!("unknown scene {s:?}; scenes: cloth-ball, n-body, exploding-dragon"),
    };
    let output = match args.output.as_str() {
        "global" => Mode::Toc,
        "all" => Mode::All,
        "boolean" => Mode::Boolean,
        o => bail!("unknown output {o:?}; outputs: global, all, boolean"),
    };
    let step = args.step.unwrap_or(quick_step);
    if step + 1 >= anim.frame_count() {
        bail!(
            "step {step} needs frame {}, the sequence has {}",
            step + 1,
            anim.frame_count()
        );
    }
    let topo = anim.topology();
    let kernel = if args.cubic {
        Kernel::CubicBaseline
    } else {
        Kernel::LocalAdvancement
    };
    let opts = SceneOptions::default()
        .with_kernel(kernel)
        .with_layer_height(args.layer_height)
        .with_parallel(args.threads > 1)
        .with_leaf_size(args.leaf_size);
    let opts = opts.with_parallel_thresholds(
        args.serial_work.unwrap_or(opts.serial_work),
        args.split_grain.unwrap_or(opts.split_grain),
    );
    // the scene is built at `--from` (default: the step itself), then updated step by step
    let first = args.from.unwrap_or(step);
    if first > step {
        bail!("--from {first} must not come after --step {step}");
    }
    let ms = meshes(&topo, &anim.frame(first), &anim.frame(first + 1))?;
    let t = Instant::now();
    let mut scene = DeformingScene::new(ms, &opts)?;
    let build = t.elapsed().as_secs_f64() * 1e3;
    if first < step {
        let mut update_ms = Vec::with_capacity(step - first);
        let mut query_ms = 0.0;
        for k in first + 1..=step {
            let (f0, f1) = (anim.frame(k), anim.frame(k + 1));
            let t = Instant::now();
            for (m, (a, b)) in f0.into_iter().zip(f1).enumerate() {
                scene.update(m, a, b)?;
            }
            update_ms.push(t.elapsed().as_secs_f64() * 1e3);
            if args.each {
                let t = Instant::now();
                let r = scene.query(output);
                std::hint::black_box(&r);
                query_ms += t.elapsed().as_secs_f64() * 1e3;
            }
        }
        let mean = update_ms.iter().sum::<f64>() / update_ms.len() as f64;
        if args.each {
            println!(
                "queries after each update: mean {:.1} ms; update + query: mean {:.1} ms per step",
                query_ms / update_ms.len() as f64,
                mean + query_ms / update_ms.len() as f64
            );
        }
        update_ms.sort_by(f64::total_cmp);
        println!(
            "reached step {step} from {first} by {} updates: mean {mean:.1} ms, min {:.1} ms, max {:.1} ms per step; {} rebuilds",
            update_ms.len(),
            update_ms[0],
            update_ms[update_ms.len() - 1],
            scene.rebuilds()
        );
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.max(1))
        .build()?;
    let mut times = Vec::with_capacity(args.reps.max(1));
    let mut last = None;
    for _ in 0..args.reps.max(1) {
        let t = Instant::now();
        let r = pool.install(|| scene.query(output));
        times.push(t.elapsed().as_secs_f64() * 1e3);
        last = Some(r);
    }
    times.sort_by(f64::total_cmp);
    let r = last.expect("at least one query");
    println!(
        "{} step {step} ({:?}, {:?}): build {build:.1} ms; query min {:.2} ms, median {:.2} ms over {} runs; toc {:?}, {} contacts; {:?}",
        args.scene,
        opts.kernel,
        output,
        times[0],
        times[times.len() / 2],
        times.len(),
        r.toc(),
        r.contacts.len(),
        r.stats
    );
    Ok(())
}
