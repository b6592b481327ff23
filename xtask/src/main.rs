//! Workspace tasks for `ccd`.
//!
//! - `cargo xtask bench [--quick] [--data DIR] [--scene NAME]... [--results]`: runs the
//!   benchmark scenes (procedural, seeded; real frame data from `--data` where a scene uses
//!   it), prints the papers' tables, and writes `target/bench-report/results.json`,
//!   `target/bench-report/table.md` and one SVG plot per scene. `--results` also rewrites the
//!   generated section of `docs/results.md` between its `bench:start` / `bench:end` markers.
//! - `cargo xtask la-step [--scene NAME] [--step K] [--reps N] [--output global|all|boolean]
//!   [--cubic]`: one step of a deforming-mesh scene queried `N` times (for profiling).
//! - `cargo xtask catch-step [--scene NAME] [--motion I] [--step K] [--reps N] [--interval]
//!   [--no-temporal] [--compare]`: the steps of a CATCH scene with chosen options (profiling;
//!   `--compare` lists the steps whose answers differ with temporal culling on and off).
//! - `cargo xtask adaptive-step [--scene NAME] [--active M] [--steps S] [--reps R]
//!   [--only adaptive|full] [--verbose]`: one point of an adaptive scene's sweep, the
//!   adaptive and full queries timed step by step (or one of them alone, for profiling).
//! - `cargo xtask pile [--bodies N] [--steps S] [--threads T] [--no-scheduling] [--all-pairs]
//!   [--reps R]`: the `rigid-pile` simulation alone (profiling, before/after timings).
//! - `cargo xtask results [--from FILE]...`: rewrites `docs/results.md`'s generated section from saved
//!   `results.json` files (default `target/bench-report/results.json`; a later file's scene
//!   replaces an earlier one's) without re-running scenes.
//! - `cargo xtask plots --from FILE --out DIR`: renders a saved report's SVG plots again.
//! - `cargo xtask robots [--force]`: installs the Panda, the PR2 and the other robots of the
//!   `example-robot-data` package (PyPI) under `target/robot-data/` for the tests and the
//!   bench, unless the shared data folder has them (`robot_data` says where robots come from).
//! - `cargo xtask peers [--quick] [--data DIR] [--out DIR]`: installs the peers
//!   (parry3d-f64 is a Rust dependency; python-fcl, Tesseract, ipctk and the ccd wheel go
//!   into `target/peers/venv`), runs the peer harnesses of `benches/` against their dense
//!   references and prints one table per family; writes `target/bench-report/peers.md`,
//!   `peers.json` and a plot per family (`peers` module). Fails on any ccd miss or late
//!   answer, failed fairness check or crashed harness.
//! - `cargo xtask tidy`: source checks (every `.rs` file starts with a `//!` line, no
//!   stub macros (`todo` / `unimplemented`)).

/// The document whose generated section `bench --results` and `results` rewrite (relative
/// to the workspace root): every scene's summary row and full table.
pub(crate) const RESULTS_DOC: &str = "docs/results.md";

mod adaptive_step;
mod bench;
mod catch_step;
mod clock;
mod la_step;
mod peers;
mod pile;
mod report;
mod rng;
mod robot_data;
mod scenes;
mod tidy;

use std::path::PathBuf;

use anyhow::Result;
use clap::{Parser, Subcommand};

/// Workspace tasks for the ccd workspace.
#[derive(Parser)]
#[command(name = "xtask", about = "ccd workspace tasks")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the benchmark scenes and print the papers' tables.
    Bench(bench::BenchArgs),
    /// Query one step of a deforming-mesh scene repeatedly (profiling).
    LaStep(la_step::LaStepArgs),
    /// Query the steps of a CATCH scene with chosen options (profiling, `--compare`).
    CatchStep(catch_step::CatchStepArgs),
    /// Time one point of an adaptive scene's sweep (profiling, before/after).
    AdaptiveStep(adaptive_step::AdaptiveStepArgs),
    /// Run ccd and its peers (parry3d-f64, python-fcl, Tesseract, ipctk) side by side on
    /// the peer families and print one table per family (installs the peers into
    /// target/peers/venv).
    Peers(peers::PeersArgs),
    /// Run the rigid-pile simulation with chosen size and options (profiling).
    Pile(pile::PileArgs),
    /// Rewrite the generated section of docs/results.md from saved reports (default:
    /// target/bench-report/results.json), without running the scenes again (`readme` is an
    /// older name).
    #[command(alias = "readme")]
    Results {
        /// The `results.json` of an earlier `cargo xtask bench` run (repeatable: a later
        /// file's scene replaces an earlier file's scene of the same name).
        #[arg(long)]
        from: Vec<PathBuf>,
    },
    /// Render the SVG plots of a saved report again (after a plot-style change).
    Plots {
        /// The `results.json` of an earlier `cargo xtask bench` run.
        #[arg(long)]
        from: PathBuf,
        /// Output folder for the SVG files.
        #[arg(long)]
        out: PathBuf,
    },
    /// Install the robots of the `example-robot-data` package (PyPI) for the tests and the
    /// bench, unless the shared data folder has them (prints where each comes from).
    Robots {
        /// Install the package even when the shared data folder has the robots.
        #[arg(long)]
        force: bool,
    },
    /// Check source conventions (module docs, no stubs).
    Tidy,
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Command::Bench(args) => bench::run(&args),
        Command::LaStep(args) => la_step::run(&args),
        Command::CatchStep(args) => catch_step::run(&args),
        Command::AdaptiveStep(args) => adaptive_step::run(&args),
        Command::Pile(args) => pile::run(&args),
        Command::Peers(args) => peers::run(&args),
        Command::Results { from } => {
            let root = workspace_root();
            let from = if from.is_empty() {
                vec![target_dir().join("bench-report/results.json")]
            } else {
                from
            };
            report::readme_from_results(&root.join(RESULTS_DOC), &from)?;
            let names: Vec<String> = from.iter().map(|p| p.display().to_string()).collect();
            println!(
                "{RESULTS_DOC} generated section rewritten from {}",
                names.join(", ")
            );
            Ok(())
        }
        Command::Plots { from, out } => {
            let n = report::plots_from_results(&from, &out)?;
            println!("{n} plots written to {}", out.display());
            Ok(())
        }
        Command::Robots { force } => robot_data::run_robots(force),
        Command::Tidy => tidy::run(&workspace_root()),
    }
}

/// The build output folder: `$CARGO_TARGET_DIR` when set, else `target/` in the workspace.
/// The bench report and the registry robots go there.
pub(crate) fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(d) => {
            let d = PathBuf::from(d);
            if d.is_absolute() {
                d
            } else {
                workspace_root().join(d)
            }
        }
        None => workspace_root().join("target"),
    }
}

/// The shared checkout (real data and conformance cases): `arg` (`--shared`) when given,
/// else `$CCD_SHARED_DIR`, else `../shared` beside the workspace.
pub(crate) fn shared_dir(arg: Option<&std::path::Path>) -> PathBuf {
    if let Some(d) = arg {
        return d.to_path_buf();
    }
    std::env::var_os("CCD_SHARED_DIR")
        .map_or_else(|| workspace_root().join("../shared"), PathBuf::from)
}

/// The workspace root (the parent of this crate's directory).
pub(crate) fn workspace_root() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().map(PathBuf::from).unwrap_or(manifest)
}
