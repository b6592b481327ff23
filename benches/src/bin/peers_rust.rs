//! Rust peer runs of `cargo xtask peers`, families 1–2: ccd's rigid time of contact
//! (`time_of_contact_shapes`) against parry3d-f64's `cast_shapes_nonlinear` on the same
//! shapes and the same constant-velocity motions (the workloads of
//! [`ccd_benches::rigid`]), both judged by the dense reference of
//! [`ccd_benches::reference`]; writes the two families as protocol JSON (a list).
//!
//! `peers_rust --out FILE [--quick] [--repeats N]`
//!
//! - `rigid-meshes`: the mesh pairs (torus vs sphere head-on, near and far miss, an 86°
//!   rotation, a bar spinning 170°, thin plates at high speed, a 20K sphere on a 100K
//!   terrain). parry's mesh casts take seconds to minutes: they run once per query, with
//!   `--quick` only on the small meshes (thin plates), never on the 100K terrain (left out,
//!   as in `rigid-pairs`; rows skipped with the reason).
//! - `analytic-shapes`: ball–ball, capsule–box, ball–box, capsule–capsule, cylinder–box,
//!   hull–hull and a compound (dumbbell).
//!
//! Fairness checks: the motions agree (ccd's `pose_at` and parry's `position_at_time` at 11
//! times per workload) and the static distances agree (ccd's and parry's `query::distance`
//! at 5 poses per workload).

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use ccd_benches::protocol::{Check, Family, Row};
use ccd_benches::reference::{self, Reference, dense_reference};
use ccd_benches::rigid::{Workload, workloads};
use ccd_benches::timing::time_query;
use ccd_ca_rigid::{CaOptions, time_of_contact_shapes};
use ccd_distance::MeshDistanceWorkspace;
use glam::{DAffine3, DMat4};
use parry3d_f64::query::{cast_shapes_nonlinear, distance as parry_distance};

struct Args {
    out: PathBuf,
    quick: bool,
    repeats: Option<u32>,
}

fn parse_args() -> Result<Args> {
    let mut out = None;
    let mut quick = false;
    let mut repeats = None;
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--out" => out = Some(PathBuf::from(it.next().context("--out needs a file")?)),
            "--quick" => quick = true,
            "--repeats" => {
                repeats = Some(
                    it.next()
                        .context("--repeats needs a number")?
                        .parse()
                        .context("--repeats: a positive integer")?,
                );
            }
            // the runner passes the shared folders to every harness; unused here
            "--data" | "--robots" => {
                it.next();
            }
            "-h" | "--help" => {
                println!("peers_rust --out FILE [--quick] [--repeats N]");
                std::process::exit(0);
            }
            other => {
                bail!("unknown argument {other:?} (peers_rust --out FILE [--quick] [--repeats N])")
            }
        }
    }
    Ok(Args {
        out: out.context("--out FILE is required")?,
        quick,
        repeats,
    })
}

/// parry3d-f64's version from the workspace's Cargo.lock (the one this binary was built
/// with).
fn parry_version() -> String {
    let lock = include_str!("../../../Cargo.lock");
    let mut lines = lock.lines();
    while let Some(l) = lines.next() {
        if l == "name = \"parry3d-f64\""
            && let Some(v) = lines.next().and_then(|v| v.strip_prefix("version = "))
        {
            return v.trim_matches('"').to_string();
        }
    }
    "unknown".into()
}

/// Judges one answer against the reference: (misses, late, false alarms).
fn judge(answer: Option<f64>, r: &Reference, tolerance: f64) -> (u64, u64, u64) {
    let slack = 1e-12 + 1e-6 / r.speed;
    match (answer, r.toc) {
        (None, Some(_)) => (1, 0, 0),
        (Some(t), Some(rt)) => (0, u64::from(t > rt + slack), 0),
        (Some(_), None) => (0, 0, u64::from(r.min_lower > tolerance)),
        (None, None) => (0, 0, 0),
    }
}

fn toc_text(t: Option<f64>) -> String {
    t.map_or("none".into(), |t| format!("{t:.6}"))
}

fn pose_matrix(p: &parry3d_f64::math::Pose) -> DMat4 {
    DMat4::from_rotation_translation(p.rotation, p.translation)
}

struct Fam {
    family: Family,
    motion_diff: f64,
    distance_diff: f64,
    distance_pairs: u64,
}

fn main() -> Result<()> {
    let args = parse_args()?;
    let quick = args.quick;
    let repeats = args.repeats.unwrap_or(if quick { 3 } else { 10 });
    let samples = if quick { 1000 } else { 4000 };
    let opts = CaOptions::default();
    let eps = opts.tolerance;
    let ccd_version = env!("CARGO_PKG_VERSION");
    let parry_v = parry_version();
    let reference_text = format!(
        "exact distance (ccd-distance: mesh_distance / convex_distance) at {samples} evenly spaced times of the motion, \
         intervals not proven free by the pair's speed bound bisected (up to {} levels) until a sample touches (≤ {:e}); \
         late = a time of contact after the reference's by more than the time to move 1 µm",
        reference::MAX_DEPTH,
        reference::TOUCH
    );
    let mut meshes = Fam {
        family: Family::new(
            "rigid-meshes",
            "Rigid mesh pairs (translations and rotations, thin plates, near misses)",
            &reference_text,
            quick,
        ),
        motion_diff: 0.0,
        distance_diff: 0.0,
        distance_pairs: 0,
    };
    let mut analytic = Fam {
        family: Family::new(
            "analytic-shapes",
            "Analytic shape pairs (ball, cuboid, capsule, cylinder, hull, compound)",
            &reference_text,
            quick,
        ),
        motion_diff: 0.0,
        distance_diff: 0.0,
        distance_pairs: 0,
    };
    let ccd_settings = format!("time_of_contact_shapes, CaOptions::default (toc mode, ε = {eps})");
    let parry_settings =
        "cast_shapes_nonlinear(target_distance 0, t ∈ [0, 1], stop_at_penetration true)"
            .to_string();
    let mut ws = MeshDistanceWorkspace::new();
    for w in workloads() {
        let fam = if w.mesh_pair() {
            &mut meshes
        } else if w.analytic || matches!(w.a, ccd_ca_rigid::Shape::Compound(_)) {
            &mut analytic
        } else {
            analytic.family.notes.push(format!(
                "{}: not run (a mesh against an analytic shape: the dense reference covers mesh–mesh and convex pairs)",
                w.name
            ));
            continue;
        };
        eprintln!("peers_rust: {} ...", w.name);
        let r = dense_reference(&w, samples)
            .with_context(|| format!("{}: the reference does not cover this pair", w.name))?;
        if r.unresolved > 0 {
            fam.family.notes.push(format!(
                "{}: {} reference intervals unresolved at the depth cap",
                w.name, r.unresolved
            ));
        }
        let (ma, mb) = (w.ma.ours(), w.mb.ours());
        let (qa, qb) = (w.ma.parry(), w.mb.parry());
        fairness(fam, &w, &mut ws, quick)?;
        // ccd
        let (t, ours) = time_query(repeats, || {
            time_of_contact_shapes(&w.a, &ma, &w.b, &mb, &opts)
        });
        let ours = ours.with_context(|| format!("{}: ccd query failed", w.name))?;
        let ours_toc = ours.map(|c| c.toc);
        let (mi, la, fa) = judge(ours_toc, &r, eps);
        fam.family.rows.push(Row {
            workload: w.name.into(),
            tool: "ccd".into(),
            is_ccd: true,
            version: ccd_version.into(),
            settings: ccd_settings.clone(),
            threads: 1,
            queries: Some(1),
            misses: Some(mi),
            late: Some(la),
            false_alarms: Some(fa),
            median_us: Some(t.wall_us),
            p90_us: Some(t.wall_us),
            cpu_median_us: Some(t.cpu_us),
            target_ratio: None,
            skipped: None,
        });
        let target = if w.mesh_pair() { 1000.0 } else { 3.0 };
        // parry
        let skip = match w.parry_slow {
            None => Some(
                "not run: parry's mesh casts take seconds on the 5K-triangle pairs; the 100K terrain is left out (as in `cargo xtask bench --scene rigid-pairs`)",
            ),
            Some(true) if quick && w.name != "thin plates" => Some(
                "--quick: parry's 5K-triangle mesh casts take seconds each (run without --quick)",
            ),
            _ => None,
        };
        let parry_toc = if let Some(reason) = skip {
            let mut row = Row::skipped(w.name, "parry3d-f64", false, reason);
            row.version = parry_v.clone();
            row.settings = parry_settings.clone();
            row.target_ratio = Some(target);
            fam.family.rows.push(row);
            None
        } else {
            let reps = if w.parry_slow == Some(true) {
                1
            } else {
                repeats
            };
            let (t, theirs) = time_query(reps, || {
                cast_shapes_nonlinear(&qa, w.pa.as_ref(), &qb, w.pb.as_ref(), 0.0, 1.0, true)
            });
            let theirs = theirs
                .map_err(|e| anyhow::anyhow!("{}: parry: {e:?}", w.name))?
                .map(|h| h.time_of_impact);
            let (mi, la, fa) = judge(theirs, &r, 0.0);
            fam.family.rows.push(Row {
                workload: w.name.into(),
                tool: "parry3d-f64".into(),
                is_ccd: false,
                version: parry_v.clone(),
                settings: parry_settings.clone(),
                threads: 1,
                queries: Some(1),
                misses: Some(mi),
                late: Some(la),
                false_alarms: Some(fa),
                median_us: Some(t.wall_us),
                p90_us: Some(t.wall_us),
                cpu_median_us: Some(t.cpu_us),
                target_ratio: Some(target),
                skipped: None,
            });
            Some(theirs)
        };
        fam.family.notes.push(format!(
            "{}: reference toc {} (min distance before it ≥ {:.3e}, {} distance evaluations); ccd {}; parry {}",
            w.name,
            toc_text(r.toc),
            r.min_lower,
            r.evaluations,
            toc_text(ours_toc),
            parry_toc.map_or("not run".into(), toc_text)
        ));
    }
    let mut out = Vec::new();
    let mut failed = false;
    for fam in [meshes, analytic] {
        let mut f = fam.family;
        let motion_ok = fam.motion_diff <= 1e-9;
        f.checks.push(Check {
            name: "same motions: ccd RigidMotion::pose_at vs parry NonlinearRigidMotion::position_at_time at 11 times per workload".into(),
            passed: motion_ok,
            detail: format!("max |difference| of the pose matrices {:.2e} (≤ 1e-9)", fam.motion_diff),
        });
        let dist_ok = fam.distance_diff <= 1e-6;
        f.checks.push(Check {
            name: format!(
                "same geometry: static distances ccd vs parry query::distance at {} poses",
                fam.distance_pairs
            ),
            passed: dist_ok,
            detail: format!("max |difference| {:.2e} (≤ 1e-6)", fam.distance_diff),
        });
        failed |= !motion_ok || !dist_ok;
        out.push(f);
    }
    if let Some(dir) = args.out.parent() {
        std::fs::create_dir_all(dir).ok();
    }
    std::fs::write(&args.out, serde_json::to_string_pretty(&out)?)
        .with_context(|| format!("writing {}", args.out.display()))?;
    eprintln!("peers_rust: wrote {}", args.out.display());
    if failed {
        bail!("a fairness check failed (see {})", args.out.display());
    }
    Ok(())
}

/// The fairness checks of one workload: motions at 11 times, static distances at 5 poses
/// (parry's mesh distance on the 100K terrain only without `--quick`).
fn fairness(
    fam: &mut Fam,
    w: &Workload,
    ws: &mut MeshDistanceWorkspace,
    quick: bool,
) -> Result<()> {
    let (ma, mb) = (w.ma.ours(), w.mb.ours());
    let (qa, qb) = (w.ma.parry(), w.mb.parry());
    for i in 0..=10 {
        let t = f64::from(i) / 10.0;
        for (ours, theirs) in [
            (ma.pose_at(t), qa.position_at_time(t)),
            (mb.pose_at(t), qb.position_at_time(t)),
        ] {
            let d = (DMat4::from(ours) - pose_matrix(&theirs))
                .abs()
                .to_cols_array();
            fam.motion_diff = fam.motion_diff.max(d.iter().copied().fold(0.0, f64::max));
        }
    }
    if quick && w.parry_slow.is_none() {
        return Ok(());
    }
    for i in 0..5 {
        let t = (f64::from(i) + 0.5) / 5.0;
        let (pa, pb): (DAffine3, DAffine3) = (ma.pose_at(t), mb.pose_at(t));
        let ours = reference::distance(&w.a, &pa, &w.b, &pb, ws)
            .with_context(|| format!("{}: no ccd distance", w.name))?;
        let theirs = parry_distance(
            &qa.position_at_time(t),
            w.pa.as_ref(),
            &qb.position_at_time(t),
            w.pb.as_ref(),
        )
        .map_err(|e| anyhow::anyhow!("{}: parry distance: {e:?}", w.name))?
        .distance
        .max(0.0);
        let diff = (ours - theirs).abs();
        if diff > 1e-6 {
            eprintln!("{}: t = {t}: ccd distance {ours}, parry {theirs}", w.name);
        }
        fam.distance_diff = fam.distance_diff.max(diff);
        fam.distance_pairs += 1;
    }
    Ok(())
}
