//! `cargo xtask adaptive-step`: one point of an adaptive scene's sweep (a scene and a number
//! of active joints), timed step by step for the adaptive and the full query as the bench
//! does, or one of the two queries alone in a loop for profiling
//! (`perf record -- target/release/xtask adaptive-step --only adaptive ...`).

use std::time::Instant;

use anyhow::{Result, bail};
use ccd_ca_articulated::{AdaptiveScene, ArticulatedWorkspace, QueryOptions, QueryResult};
use clap::Args;

use crate::scenes::adaptive::{SETUPS, Setup, adaptive_steps, full_steps, setup, time_runs};

/// Options of `cargo xtask adaptive-step`.
#[derive(Args, Debug)]
pub(crate) struct AdaptiveStepArgs {
    /// Scene: wooden-men, pendulum-30, pendulum-100, falling-man.
    #[arg(long, default_value = "wooden-men")]
    scene: String,
    /// Number of active joints (the first of the scene's seeded order).
    #[arg(long, default_value_t = 3)]
    active: usize,
    /// Steps per run (step 0 warms up and is not timed), as the full bench's 21.
    #[arg(long, default_value_t = 21)]
    steps: usize,
    /// Runs (a fresh adaptive state each); per step the fastest thread CPU time is reported.
    #[arg(long, default_value_t = 5)]
    reps: usize,
    /// Only this query (`adaptive` or `full`), all steps `--reps` times, untimed per step
    /// (for a profiler).
    #[arg(long)]
    only: Option<String>,
    /// With `--only`: run steps before this one once, then repeat only the steps from it on
    /// (`--reps` times, each from a copy of the state reached), to profile late steps alone.
    #[arg(long, default_value_t = 0)]
    from: usize,
    /// With `--only`: repeat the steps before this one only (default: all `--steps`; the
    /// scene's motion spans `--steps`, so change this, not `--steps`, to profile early
    /// steps alone).
    #[arg(long)]
    to: Option<usize>,
    /// Print every step's times.
    #[arg(long)]
    verbose: bool,
}

pub(crate) fn run(args: &AdaptiveStepArgs) -> Result<()> {
    if args.steps < 2 || args.reps == 0 {
        bail!("need at least 2 steps and 1 rep");
    }
    let Setup {
        scene,
        motions,
        links,
    } = setup(&args.scene, args.active, args.steps)?;
    if args.active > links {
        bail!("{} has {links} joints per body", args.scene);
    }
    if let Some(only) = &args.only {
        let to = args.to.unwrap_or(args.steps).min(args.steps);
        if args.from >= to {
            bail!("--from {} must be below --to / --steps {to}", args.from);
        }
        // whole steps, as the adaptive query answers them (it never splits long steps)
        let opts = QueryOptions::default().with_segment_turn(f64::INFINITY);
        let (mut ws, mut out) = (ArticulatedWorkspace::default(), QueryResult::default());
        let mut warm = AdaptiveScene::new(scene.clone());
        for k in 0..args.from {
            warm.query_with(&adaptive_steps(&motions, k), &opts, &mut ws, &mut out)?;
        }
        let t = Instant::now();
        for _ in 0..args.reps {
            let mut adaptive = warm.clone();
            for k in args.from..to {
                match only.as_str() {
                    "adaptive" => {
                        adaptive.query_with(
                            &adaptive_steps(&motions, k),
                            &opts,
                            &mut ws,
                            &mut out,
                        )?;
                    }
                    "full" => {
                        scene.query_with(&full_steps(&motions, k), &opts, &mut ws, &mut out)?;
                    }
                    other => bail!("--only adaptive or full, not {other}"),
                }
            }
        }
        println!(
            "{} {} active, {only} only: {:.4} ms per step",
            args.scene,
            args.active,
            t.elapsed().as_secs_f64() * 1e3 / (args.reps * (to - args.from)) as f64
        );
        return Ok(());
    }
    let t = time_runs(&scene, &motions, args.reps)?;
    if args.verbose {
        // whole steps, as the adaptive query answers them (it never splits long steps)
        let opts = QueryOptions::default().with_segment_turn(f64::INFINITY);
        let (mut ws, mut out) = (ArticulatedWorkspace::default(), QueryResult::default());
        let (mut ws_a, mut out_a) = (ArticulatedWorkspace::default(), QueryResult::default());
        let mut adaptive = AdaptiveScene::new(scene.clone());
        adaptive.query_with(&adaptive_steps(&motions, 0), &opts, &mut ws_a, &mut out_a)?;
        for (k, (a, f)) in t.adaptive_ms.iter().zip(&t.full_ms).enumerate() {
            let s = adaptive_steps(&motions, k + 1);
            adaptive.query_with(&s, &opts, &mut ws_a, &mut out_a)?;
            scene.query_with(&full_steps(&motions, k + 1), &opts, &mut ws, &mut out)?;
            let name = |p: ccd_ca_articulated::Part| match p {
                ccd_ca_articulated::Part::Link { body, link } => format!(
                    "{body}:{}",
                    scene.bodies()[body].model().links()[link.index()].name
                ),
                other => format!("{other:?}"),
            };
            let first = out.first().map_or("free".to_string(), |c| {
                format!(
                    "{}–{} toc {:.4} ({:?}, distance {:.1e})",
                    name(c.a),
                    name(c.b),
                    c.contact.toc,
                    c.contact.status,
                    c.contact.distance
                )
            });
            let st = out.stats;
            println!(
                "step {:>3}: adaptive {a:.4} ms, full {f:.4} ms, ratio {:.2}; pairs {} spatial, {} temporal (adaptive {}, {}); {first}",
                k + 1,
                a / f,
                st.pairs_after_spatial,
                st.pairs_after_temporal,
                out_a.stats.pairs_after_spatial,
                out_a.stats.pairs_after_temporal
            );
        }
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let (a, f) = (mean(&t.adaptive_ms), mean(&t.full_ms));
    let worst = t
        .adaptive_ms
        .iter()
        .zip(&t.full_ms)
        .map(|(a, f)| a / f)
        .fold(0.0, f64::max);
    println!(
        "{} ({links} links per body), {} active: adaptive {a:.4} ms, full {f:.4} ms, ratio {:.3}, worst step {worst:.2}; {} of {} steps with contact, {} disagreements (scenes: {SETUPS:?})",
        args.scene,
        args.active,
        a / f,
        t.contacts,
        t.full_ms.len(),
        t.disagreements
    );
    if t.disagreements > 0 {
        bail!("{} steps where the answers differ", t.disagreements);
    }
    Ok(())
}
