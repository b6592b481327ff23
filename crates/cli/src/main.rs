//! The `ccd` command: `toc`, `frames` and `batch` (see the `ccd_cli` crate documentation).

use std::fs::File;
use std::io::{BufReader, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use ccd::la_deformable::scene::Resting;
use ccd_cli::batch::{BatchOptions, MAX_THREADS, Shard, run_batch};
use ccd_cli::run::Runner;
use ccd_cli::schema::{
    FramesQuery, MeshSource, PoseSpec, Query, QueryAnswer, RigidQuery, SeparationRule,
};
use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Continuous collision detection from the shell: first time of contact between moving
/// meshes, as JSON.
///
/// Poses are `x,y,z,qw,qx,qy,qz` (translation, unit quaternion) or a JSON 4x4 array of rows.
/// Time runs from the start poses (t = 0) to the end poses (t = 1); "toc": null means no
/// contact. Exit codes: 0 ok, 1 error, 2 bad arguments, 3 batch finished with error records.
#[derive(Debug, Parser)]
#[command(name = "ccd", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
// (parsed once per process)
#[allow(clippy::large_enum_variant)]
enum Command {
    /// First time of contact between two rigid meshes (OBJ, STL or PLY) moving between poses.
    Toc {
        /// Mesh A.
        a: PathBuf,
        /// Mesh B.
        b: PathBuf,
        /// Pose of A at t = 0 (default: identity).
        #[arg(long, allow_hyphen_values = true, value_name = "POSE")]
        a_start: Option<PoseSpec>,
        /// Pose of A at t = 1 (default: --a-start).
        #[arg(long, allow_hyphen_values = true, value_name = "POSE")]
        a_end: Option<PoseSpec>,
        /// Pose of B at t = 0 (default: identity).
        #[arg(long, allow_hyphen_values = true, value_name = "POSE")]
        b_start: Option<PoseSpec>,
        /// Pose of B at t = 1 (default: --b-start).
        #[arg(long, allow_hyphen_values = true, value_name = "POSE")]
        b_end: Option<PoseSpec>,
        /// Absolute distance tolerance (default 1e-3).
        #[arg(long, allow_hyphen_values = true)]
        tolerance: Option<f64>,
        /// Only whether the motion is collision-free (any contact, not the first).
        #[arg(long)]
        boolean: bool,
        /// Indented JSON.
        #[arg(long)]
        pretty: bool,
    },
    /// Global time of contact of a deforming mesh between two frames (same triangles).
    Frames {
        /// The mesh at t = 0.
        f0: PathBuf,
        /// The mesh at t = 1.
        f1: PathBuf,
        /// Every colliding vertex-face and edge-edge pair with its own time of contact.
        #[arg(long)]
        all: bool,
        /// Absolute distance tolerance (default 1e-6).
        #[arg(long, allow_hyphen_values = true)]
        tolerance: Option<f64>,
        /// Do not test the mesh against itself (an error: the frames hold one mesh, so
        /// nothing would be tested).
        #[arg(long)]
        no_self_collision: bool,
        /// List pairs already within the tolerance at t = 0 apart ("resting") instead of
        /// reporting them as contacts at 0: toc is then the first time a pair comes closer.
        #[arg(long)]
        separate_resting: bool,
        /// Also compute the separation-preserving step size ("stepsize"): every pair keeps
        /// max(--min-distance, --scale * its distance at t = 0).
        #[arg(long)]
        stepsize: bool,
        /// Minimum separation of --stepsize (default 0).
        #[arg(long, allow_hyphen_values = true, requires = "stepsize")]
        min_distance: Option<f64>,
        /// Fraction of its initial distance a pair keeps in --stepsize, in (0, 1) (default 0.2).
        #[arg(long, allow_hyphen_values = true, requires = "stepsize")]
        scale: Option<f64>,
        /// Indented JSON.
        #[arg(long)]
        pretty: bool,
    },
    /// Run a JSON Lines file of queries ("-" for stdin); results as JSON Lines on stdout, in
    /// input order, one record per non-blank line.
    Batch {
        /// Queries, one JSON object per line (relative mesh paths are resolved against the
        /// file's folder; the current folder for stdin).
        input: PathBuf,
        /// Worker threads (default: all cores).
        #[arg(long, value_name = "N")]
        threads: Option<usize>,
        /// Run only lines i (0-based) with i % N == I.
        #[arg(long, value_name = "I/N")]
        shard: Option<Shard>,
        /// No progress bar (it is drawn only when stderr is a terminal anyway).
        #[arg(long)]
        quiet: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("ccd: error: {error:#}");
            ExitCode::from(1)
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Toc {
            a,
            b,
            a_start,
            a_end,
            b_start,
            b_end,
            tolerance,
            boolean,
            pretty,
        } => {
            let query = Query::Rigid(RigidQuery {
                id: None,
                a: MeshSource::Path(a),
                b: MeshSource::Path(b),
                a_start: a_start.unwrap_or_default(),
                a_end,
                b_start: b_start.unwrap_or_default(),
                b_end,
                tolerance,
                max_iterations: None,
                mode: boolean.then_some(ccd::ca_rigid::Mode::Boolean),
            });
            let result = Runner::new("").run(&query)?;
            print_result(&result, pretty)
        }
        Command::Frames {
            f0,
            f1,
            all,
            tolerance,
            no_self_collision,
            separate_resting,
            stepsize,
            min_distance,
            scale,
            pretty,
        } => {
            let query = Query::Frames(FramesQuery {
                id: None,
                f0: MeshSource::Path(f0),
                f1: MeshSource::Path(f1),
                all,
                tolerance,
                self_collision: no_self_collision.then_some(false),
                resting: separate_resting.then_some(Resting::Separate),
                separation: stepsize.then_some(SeparationRule {
                    min_distance,
                    scale,
                }),
            });
            let result = Runner::new("").with_parallel_scene(true).run(&query)?;
            print_result(&result, pretty)
        }
        Command::Batch {
            input,
            threads,
            shard,
            quiet,
        } => batch(&input, threads, shard, quiet),
    }
}

fn print_result(result: &QueryAnswer, pretty: bool) -> anyhow::Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    if pretty {
        serde_json::to_writer_pretty(&mut out, result)?;
    } else {
        serde_json::to_writer(&mut out, result)?;
    }
    writeln!(out).context("writing the result")?;
    Ok(ExitCode::SUCCESS)
}

fn batch(
    input: &Path,
    threads: Option<usize>,
    shard: Option<Shard>,
    quiet: bool,
) -> anyhow::Result<ExitCode> {
    let defaults = BatchOptions::default();
    let options = BatchOptions::default()
        .with_threads(match threads {
            Some(0) | None => defaults.threads,
            Some(n) if n > MAX_THREADS => anyhow::bail!("--threads {n}: at most {MAX_THREADS}"),
            Some(n) => n,
        })
        .with_shard(shard.unwrap_or_default());
    let show = !quiet && std::io::stderr().is_terminal();
    let out = BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let summary = if input == Path::new("-") {
        let bar = progress_bar(None, show);
        let stdin = std::io::stdin().lock();
        let s = run_batch(stdin, "stdin", out, &Runner::new(""), &options, |n| {
            bar.inc(n);
        })?;
        bar.finish_and_clear();
        s
    } else {
        let file = File::open(input).with_context(|| format!("opening {}", input.display()))?;
        let len = file.metadata().map(|m| m.len()).ok();
        let base = input.parent().unwrap_or(Path::new("."));
        let bar = progress_bar(len, show);
        let name = input.display().to_string();
        let reader = BufReader::with_capacity(1 << 16, file);
        let s = run_batch(reader, &name, out, &Runner::new(base), &options, |n| {
            bar.inc(n);
        })?;
        bar.finish_and_clear();
        s
    };
    let shard_text = if options.shard.count > 1 {
        format!(" (shard {}/{})", options.shard.index, options.shard.count)
    } else {
        String::new()
    };
    eprintln!("ccd batch{shard_text}: {summary}");
    Ok(if summary.errors > 0 {
        ExitCode::from(3)
    } else {
        ExitCode::SUCCESS
    })
}

/// A byte-count progress bar on stderr, hidden unless `show`.
fn progress_bar(len: Option<u64>, show: bool) -> ProgressBar {
    if !show {
        return ProgressBar::hidden();
    }
    let bar = match len {
        Some(len) => ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr()),
        None => ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()),
    };
    let style = if len.is_some() {
        "{elapsed_precise} [{wide_bar}] {bytes}/{total_bytes} ({eta} left)"
    } else {
        "{elapsed_precise} {spinner} {bytes} read"
    };
    if let Ok(style) = ProgressStyle::with_template(style) {
        bar.set_style(style);
    }
    bar
}
