//! `cargo xtask catch-step`: the steps of a CATCH scene queried with chosen options, for
//! profiling (`perf record -- target/release/xtask catch-step ...`) and for comparing
//! temporal culling on and off step by step (`--compare`).

use std::time::Instant;

use anyhow::{Result, bail};
use ccd_ca_articulated::{ArticulatedWorkspace, EnclosureKind, QueryOptions, QueryResult};
use clap::Args;

use crate::scenes::SceneConfig;
use crate::scenes::catch::scenes::{Setup, setup};

/// Options of `cargo xtask catch-step`.
#[derive(Args, Debug)]
pub(crate) struct CatchStepArgs {
    /// Scene: walking-mannequin, exercise, four-trains, falling-train, pr2, panda-planner.
    #[arg(long, default_value = "walking-mannequin")]
    scene: String,
    /// The bench's reduced set of steps.
    #[arg(long)]
    quick: bool,
    /// Folder of real inputs (default: ../shared/data beside the workspace).
    #[arg(long)]
    data: Option<std::path::PathBuf>,
    /// Which step list of the scene (e.g. 1 = the mannequin's every-4th-frame steps).
    #[arg(long, default_value_t = 0)]
    motion: usize,
    /// Only this step, queried `--reps` times (default: every step once per rep).
    #[arg(long)]
    step: Option<usize>,
    /// Repetitions (the minimum and median are printed).
    #[arg(long, default_value_t = 3)]
    reps: usize,
    /// Interval arithmetic instead of Taylor models for the swept boxes.
    #[arg(long)]
    interval: bool,
    /// Temporal culling off.
    #[arg(long)]
    no_temporal: bool,
    /// Compare temporal culling on and off on every step: print each step whose answers
    /// differ (free in one run, or times of contact more than `--eps` apart) with the
    /// contacts' statuses and distances.
    #[arg(long)]
    compare: bool,
    /// Print every step's answer (first contact: time, parts, distance, status; or free),
    /// to compare two builds step by step.
    #[arg(long)]
    list: bool,
    /// With `--step`: check the answer against dense sampling: the exact distance of every
    /// self pair of every articulated body at 4,000 times over `[0, toc]` (`[0, 1]` when
    /// free); prints the smallest per pair below 10 ε and flags any below ε/2.
    #[arg(long)]
    verify: bool,
    /// TOC difference reported by `--compare`.
    #[arg(long, default_value_t = 1e-3)]
    eps: f64,
}

pub(crate) fn run(args: &CatchStepArgs) -> Result<()> {
    let shared = crate::shared_dir(None).join("data");
    let data = args.data.clone().unwrap_or_else(|| shared.clone());
    let cfg = SceneConfig {
        quick: args.quick,
        robots: crate::robot_data::RobotSources::new(args.data.as_deref(), Some(&shared), true),
        data: Some(data),
    };
    let t = Instant::now();
    let Setup {
        scene,
        motions,
        mode,
        description,
    } = setup(&args.scene, &cfg)?;
    println!(
        "{}: {description} (set up in {:.1} s)",
        args.scene,
        t.elapsed().as_secs_f64()
    );
    let Some((label, motion)) = motions.get(args.motion) else {
        bail!("the scene has {} step lists", motions.len());
    };
    let opts = QueryOptions::default()
        .with_mode(mode)
        .with_enclosure(if args.interval {
            EnclosureKind::Interval
        } else {
            EnclosureKind::Taylor
        })
        .with_temporal_culling(!args.no_temporal);
    let steps: Vec<usize> = match args.step {
        Some(k) if k < motion.len() => {
            if let crate::scenes::catch::run::Motion::Edges(e) = motion {
                println!("step {k}: q0 = {:?}", e[k].0);
                println!("step {k}: q1 = {:?}", e[k].1);
            }
            vec![k]
        }
        Some(k) => bail!("step {k} out of range (the list has {})", motion.len()),
        None => (0..motion.len()).collect(),
    };
    let (mut ws, mut out) = (ArticulatedWorkspace::default(), QueryResult::default());
    if args.compare {
        let off = opts.with_temporal_culling(false);
        let on = opts.with_temporal_culling(true);
        let mut other = QueryResult::default();
        let mut differ = 0usize;
        for &k in &steps {
            motion.with_step(k, |s| -> Result<()> {
                scene.query_with(s, &on, &mut ws, &mut out)?;
                scene.query_with(s, &off, &mut ws, &mut other)?;
                Ok(())
            })?;
            let (a, b) = (out.first(), other.first());
            let same = match (a, b) {
                (None, None) => true,
                (Some(x), Some(y)) => {
                    mode == ccd_ca_articulated::Mode::Boolean
                        || (x.contact.toc - y.contact.toc).abs() <= args.eps
                }
                _ => false,
            };
            if !same {
                differ += 1;
                let show = |c: Option<&ccd_ca_articulated::PartPairContact>| match c {
                    None => "free".to_string(),
                    Some(c) => format!(
                        "{:?}–{:?} toc {:.6} distance {:.3e} status {:?} iterations {}",
                        c.a,
                        c.b,
                        c.contact.toc,
                        c.contact.distance,
                        c.contact.status,
                        c.contact.stats.iterations
                    ),
                };
                println!("step {k}: temporal on: {}", show(a));
                println!("step {k}: temporal off: {}", show(b));
                if let crate::scenes::catch::run::Motion::Edges(e) = motion {
                    println!("step {k}: q0 = {:?}", e[k].0);
                    println!("step {k}: q1 = {:?}", e[k].1);
                }
            }
        }
        println!(
            "{label}: {differ} of {} steps differ with temporal culling on and off",
            steps.len()
        );
        return Ok(());
    }
    if args.verify {
        let &[k] = steps.as_slice() else {
            bail!("--verify needs --step");
        };
        motion.with_step(k, |s| scene.query_with(s, &opts, &mut ws, &mut out))?;
        let end = out.first().map_or(1.0, |c| c.contact.toc);
        println!(
            "step {k}: answer {:?}, checking [0, {end}]",
            out.first()
                .map(|c| (c.a, c.b, c.contact.toc, c.contact.distance))
        );
        let eps = opts.tolerance;
        let mut low = 0usize;
        motion.with_step(k, |steps| -> Result<()> {
            for (b, (body, step)) in scene.bodies().iter().zip(steps).enumerate() {
                let model = body.model();
                let m = match *step {
                    ccd_ca_articulated::BodyStep::Joints { q0, q1 } => {
                        ccd_kinematics::ArticulatedMotion::from_joints(model, q0, q1)?
                    }
                    ccd_ca_articulated::BodyStep::Poses { p0, p1 } => {
                        ccd_kinematics::ArticulatedMotion::between(model, p0, p1)?
                    }
                };
                for (x, y) in body.self_pairs() {
                    let (Some(sx), Some(sy)) = (body.link_shape(x), body.link_shape(y)) else {
                        continue;
                    };
                    let mut best = (f64::INFINITY, 0.0);
                    for i in 0..=4000 {
                        let t = end * f64::from(i) / 4000.0;
                        let d = ccd_distance::mesh_distance(
                            sx.body().mesh_bvh(),
                            &m.world_at(x, t)?,
                            sy.body().mesh_bvh(),
                            &m.world_at(y, t)?,
                            &ccd_distance::MeshDistanceOptions::default(),
                        )?
                        .closest
                        .distance;
                        if d < best.0 {
                            best = (d, t);
                        }
                    }
                    if best.0 < 10.0 * eps {
                        println!("body {b} links {x:?}–{y:?}: smallest sampled distance {:.3e} at t = {:.6}", best.0, best.1);
                    }
                    low += usize::from(best.0 <= 0.5 * eps);
                }
            }
            Ok(())
        })?;
        println!("{low} self pairs sampled within ε/2 before the answer's toc (must be 0)");
        return Ok(());
    }
    let mut times = Vec::with_capacity(args.reps.max(1));
    let mut cpu = Vec::with_capacity(args.reps.max(1));
    let mut collisions = 0usize;
    let mut stats = ccd_ca_articulated::ArticulatedStats::default();
    for rep in 0..args.reps.max(1) {
        let t = Instant::now();
        let c = crate::clock::thread_cpu_ms();
        for &k in &steps {
            motion.with_step(k, |s| scene.query_with(s, &opts, &mut ws, &mut out))?;
            if rep == 0 {
                if args.list {
                    match out.first() {
                        None => println!("step {k}: free"),
                        Some(c) => println!(
                            "step {k}: {:?}–{:?} toc {:.9} distance {:.3e} status {:?}",
                            c.a, c.b, c.contact.toc, c.contact.distance, c.contact.status
                        ),
                    }
                }
                collisions += usize::from(out.first().is_some());
                let s = out.stats;
                stats.pairs_before += s.pairs_before;
                stats.pairs_after_spatial += s.pairs_after_spatial;
                stats.pairs_after_temporal += s.pairs_after_temporal;
                stats.ca_iterations += s.ca_iterations;
                stats.hull_iterations += s.hull_iterations;
            }
        }
        times.push(t.elapsed().as_secs_f64() * 1e3 / steps.len() as f64);
        cpu.push((crate::clock::thread_cpu_ms() - c) / steps.len() as f64);
    }
    times.sort_by(f64::total_cmp);
    cpu.sort_by(f64::total_cmp);
    let n = steps.len() as f64;
    println!(
        "{label}: {} steps, {collisions} colliding; ms per step: min {:.4}, median {:.4} over {} reps",
        steps.len(),
        times[0],
        times[times.len() / 2],
        times.len()
    );
    if !cpu.is_empty() {
        println!(
            "{label}: CPU ms per step (this thread, less sensitive to load): min {:.4}, median {:.4}",
            cpu[0],
            cpu[cpu.len() / 2]
        );
    }
    println!(
        "per step: pairs before {:.1}, after spatial {:.2}, after temporal {:.3}, CA iterations {:.1}, hull iterations {:.1}",
        stats.pairs_before as f64 / n,
        stats.pairs_after_spatial as f64 / n,
        stats.pairs_after_temporal as f64 / n,
        stats.ca_iterations as f64 / n,
        stats.hull_iterations as f64 / n
    );
    Ok(())
}
