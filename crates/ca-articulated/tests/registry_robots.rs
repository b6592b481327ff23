//! Robots of the `example-robot-data` package (`cargo xtask robots`): the Panda, the PR2, a
//! UR5 and TIAGo (COLLADA collision meshes) load into a planning scene with **no package
//! map** (`package://` found from the package's layout), and random joint-space edges among
//! seeded boxes agree with dense sampling: no sampled pose before the reported contact (or
//! on a free edge) touches, and a converged contact's pose is within the tolerance.
//!
//! The package folder comes from `build.rs` (`CCD_ROBOT_DATA_ROBOTS`); when it is absent the
//! test fails, naming `cargo xtask robots` (it is never skipped).
#![cfg(feature = "urdf")]

use std::path::{Path, PathBuf};

use ccd_ca_articulated::planning::{ObjectShape, PlanningScene};
use ccd_ca_articulated::{Mode, QueryOptions};
use ccd_ca_rigid::Status;
use ccd_geometry::glam::{DAffine3, DQuat, DVec3};
use ccd_kinematics::Joint;
use ccd_kinematics::urdf::UrdfOptions;
use ccd_test_support::XorShift64;

fn package_robot(name: &str) -> PathBuf {
    let dir = Path::new(env!("CCD_ROBOT_DATA_ROBOTS")).join(name);
    assert!(
        dir.is_dir(),
        "{} is missing: run `cargo xtask robots` (installs example-robot-data into target/robot-data)",
        dir.display()
    );
    dir
}

/// The scene: the robot (SRDF when given) and `boxes` seeded boxes `ring` m (0.35-0.9 for
/// an arm, further out for a mobile base) from the base axis, 0.1-1.3 m high.
fn scene(
    urdf: &Path,
    srdf: Option<&Path>,
    seed: u64,
    boxes: usize,
    ring: (f64, f64),
) -> PlanningScene {
    let mut s = PlanningScene::new();
    s.load_robot(urdf, srdf, &UrdfOptions::default(), None)
        .unwrap_or_else(|e| panic!("{}: {e}", urdf.display()));
    let mut rng = XorShift64::new(seed);
    let mut next = || rng.unit();
    for k in 0..boxes {
        let (r, a) = (
            ring.0 + (ring.1 - ring.0) * next(),
            std::f64::consts::TAU * next(),
        );
        let size = DVec3::new(
            0.05 + 0.2 * next(),
            0.05 + 0.2 * next(),
            0.05 + 0.3 * next(),
        );
        let pose = DAffine3::from_rotation_translation(
            DQuat::from_rotation_z(a),
            DVec3::new(r * a.cos(), r * a.sin(), 0.1 + 1.2 * next()),
        );
        s.add_object(&format!("box{k}"), ObjectShape::Box { size }, pose)
            .unwrap();
    }
    s
}

/// `(q0, q1)` for the survey: q0 uniform in the limits (continuous joints in ±π), q1 a step of up to
/// `reach` rad (or metres) from it per joint, kept in the limits.
fn edge(s: &PlanningScene, next: &mut impl FnMut() -> f64, reach: f64) -> (Vec<f64>, Vec<f64>) {
    let mut q0 = vec![0.0; s.dof()];
    let mut q1 = vec![0.0; s.dof()];
    for l in s.scene().bodies()[0].model().links() {
        let (lo, hi) = match l.joint {
            Joint::Revolute {
                limits: Some(lim), ..
            }
            | Joint::Prismatic {
                limits: Some(lim), ..
            } => (lim.lower, lim.upper),
            Joint::Revolute { limits: None, .. } => (-std::f64::consts::PI, std::f64::consts::PI),
            _ => continue,
        };
        let a = lo + (hi - lo) * next();
        q0[l.first_dof] = a;
        q1[l.first_dof] = (a + reach * (2.0 * next() - 1.0)).clamp(lo, hi);
    }
    (q0, q1)
}

/// Most self pairs allowed for a robot without SRDF.
const ALLOW_CAP: usize = 64;

/// Most tries of [`free_edge`] for a collision-free start.
const START_TRIES: usize = 2000;

/// An edge from a collision-free start: the zero pose (clamped into the limits) moved by up
/// to 0.6 per joint, redrawn until free (at most [`START_TRIES`] draws, else a panic
/// naming the cap), then a step of up to `reach` per joint.
fn free_edge(
    s: &PlanningScene,
    next: &mut impl FnMut() -> f64,
    reach: f64,
) -> (Vec<f64>, Vec<f64>) {
    let links = s.scene().bodies()[0].model().links();
    let limits = |j: &Joint| match *j {
        Joint::Revolute {
            limits: Some(lim), ..
        }
        | Joint::Prismatic {
            limits: Some(lim), ..
        } => Some((lim.lower, lim.upper)),
        Joint::Revolute { limits: None, .. } => Some((-std::f64::consts::PI, std::f64::consts::PI)),
        _ => None,
    };
    let mut last = String::new();
    for _ in 0..START_TRIES {
        let mut q0 = vec![0.0; s.dof()];
        for l in links {
            if let Some((lo, hi)) = limits(&l.joint) {
                q0[l.first_dof] = (0.6 * (2.0 * next() - 1.0)).clamp(lo, hi);
            }
        }
        let c = s.clearance(&q0).unwrap();
        if let Some(c) = &c {
            last = format!("{} / {} at {}", c.a, c.b, c.distance);
        }
        if c.is_some_and(|c| c.distance > 1e-3) {
            let mut q1 = q0.clone();
            for l in links {
                if let Some((lo, hi)) = limits(&l.joint) {
                    let i = l.first_dof;
                    q1[i] = (q0[i] + reach * (2.0 * next() - 1.0)).clamp(lo, hi);
                }
            }
            return (q0, q1);
        }
    }
    panic!("no collision-free start in {START_TRIES} draws (last closest pair: {last})");
}

/// Checks `edges` random edges of the robot against dense sampling; returns (edges with a
/// contact, free edges).
fn check_robot(
    name: &str,
    urdf: &str,
    srdf: Option<&str>,
    edges: usize,
    seed: u64,
    ring: (f64, f64),
    reaches: [f64; 3],
) -> (usize, usize) {
    let dir = package_robot(name);
    let srdf = srdf.map(|f| dir.join(f));
    let mut s = scene(&dir.join(urdf), srdf.as_deref(), seed, 10, ring);
    if srdf.is_none() {
        // no SRDF: allow the self pairs that touch in the zero pose (what an SRDF's
        // "Default"/"Adjacent" entries say), as MoveIt's setup assistant would
        let zero = vec![0.0; s.dof()];
        let mut allowed = Vec::new();
        for _ in 0..ALLOW_CAP {
            match s.clearance(&zero).unwrap() {
                Some(c) if c.distance <= 1e-3 && !c.b.starts_with("box") => {
                    s.set_allowed(&c.a, &c.b, true).unwrap();
                    allowed.push(format!("{}/{}", c.a, c.b));
                }
                _ => break,
            }
        }
        assert!(
            allowed.len() < ALLOW_CAP,
            "{name}: still touching after {ALLOW_CAP} allowed pairs"
        );
        eprintln!("{name}: no SRDF, allowed the pairs touching at zero: {allowed:?}");
    }
    let opts = QueryOptions::default().with_mode(Mode::Toc);
    let tolerance = opts.tolerance;
    let mut rng = XorShift64::new(seed ^ 0x9e37_79b9);
    let mut next = || rng.unit();
    let (mut hits, mut free) = (0, 0);
    const SAMPLES: usize = 64;
    for k in 0..edges {
        // a third short, a third medium, a third long edges
        let reach = reaches[k % 3];
        let (q0, q1) = free_edge(&s, &mut next, reach);
        let found = s.check_edge(&q0, &q1, &opts).unwrap();
        let pose =
            |t: f64| -> Vec<f64> { q0.iter().zip(&q1).map(|(a, b)| a + t * (b - a)).collect() };
        let toc = found.as_ref().map(|c| c.contact.toc);
        for j in 0..=SAMPLES {
            let t = j as f64 / SAMPLES as f64;
            if toc.is_some_and(|toc| t >= toc) {
                break;
            }
            let c = s.clearance(&pose(t)).unwrap().unwrap();
            assert!(
                c.distance > 0.0,
                "{name} edge {k}: {} and {} touch at t = {t}, before the answer {toc:?}",
                c.a,
                c.b
            );
        }
        if let Some(f) = &found {
            hits += 1;
            if f.contact.status == Status::Converged {
                let d = s.clearance(&pose(f.contact.toc)).unwrap().unwrap().distance;
                assert!(
                    d <= tolerance * 1.001,
                    "{name} edge {k}: reported contact {} / {} at distance {d}",
                    f.a,
                    f.b
                );
            }
            // Boolean mode agrees on whether the edge is free
            let b = s
                .check_edge(&q0, &q1, &QueryOptions::default().with_mode(Mode::Boolean))
                .unwrap();
            assert!(
                b.is_some(),
                "{name} edge {k}: Boolean misses the Toc contact"
            );
        } else {
            free += 1;
        }
    }
    eprintln!(
        "{name} {urdf}: {edges} edges, {hits} with a contact, {free} free, all agree with {SAMPLES}-sample dense checks"
    );
    (hits, free)
}

/// Box ring radii around a fixed arm and around a mobile base.
const ARM: (f64, f64) = (0.35, 0.9);
const MOBILE: (f64, f64) = (0.75, 1.3);
/// Largest joint steps of the short, medium and long edges (TIAGo's 48 joint values, its
/// fingers among them, collide on almost every long step: it gets shorter ones).
const REACH: [f64; 3] = [0.3, 1.0, 3.0];

#[test]
fn panda_edges_agree_with_dense_sampling() {
    let (hits, free) = check_robot(
        "panda",
        "urdf/panda.urdf",
        Some("srdf/panda.srdf"),
        12,
        1,
        ARM,
        REACH,
    );
    assert!(
        hits > 0 && free > 0,
        "{hits} hits, {free} free: the mix should have both"
    );
}

#[test]
fn pr2_edges_agree_with_dense_sampling() {
    let (hits, free) = check_robot(
        "pr2",
        "urdf/pr2.urdf",
        Some("srdf/pr2.srdf"),
        9,
        2,
        MOBILE,
        REACH,
    );
    assert!(
        hits > 0 && free > 0,
        "{hits} hits, {free} free: the mix should have both"
    );
}

#[test]
fn ur5_edges_agree_with_dense_sampling() {
    let (hits, free) = check_robot(
        "ur",
        "urdf/ur5_robot.urdf",
        Some("srdf/ur5.srdf"),
        12,
        3,
        ARM,
        REACH,
    );
    assert!(
        hits > 0 && free > 0,
        "{hits} hits, {free} free: the mix should have both"
    );
}

#[test]
fn tiago_edges_agree_with_dense_sampling() {
    // TIAGo's package has no SRDF: only adjacent links are excluded
    let (hits, free) = check_robot(
        "tiago",
        "robots/tiago.urdf",
        None,
        9,
        4,
        MOBILE,
        [0.02, 0.1, 0.5],
    );
    assert!(
        hits > 0 && free > 0,
        "{hits} hits, {free} free: the mix should have both"
    );
}

/// The folder of the package's robots (`.../example-robot-data/robots`, where each
/// `NAME_description` lies), found through the `robots/panda` link.
fn package_root() -> PathBuf {
    package_robot("panda")
        .canonicalize()
        .unwrap()
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Every robot description of the package: `*.urdf` and `*.xacro` files in each
/// description's `urdf/` or `robots/` folder, sorted.
fn package_files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut packages: Vec<PathBuf> = std::fs::read_dir(root)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    packages.sort();
    for p in packages {
        for sub in ["urdf", "robots"] {
            let Ok(entries) = std::fs::read_dir(p.join(sub)) else {
                continue;
            };
            let mut files: Vec<PathBuf> = entries
                .flatten()
                .map(|e| e.path())
                .filter(|f| f.extension().is_some_and(|e| e == "urdf" || e == "xacro"))
                .collect();
            files.sort();
            out.extend(files);
        }
    }
    out
}

/// One line of the survey: the file relative to the package, and what happened.
fn survey_one(root: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(root).unwrap().display().to_string();
    let srdf = file
        .parent()
        .and_then(Path::parent)
        .map(|d| {
            d.join("srdf")
                .join(file.file_stem().unwrap())
                .with_extension("srdf")
        })
        .filter(|p| p.is_file());
    let mut s = PlanningScene::new();
    let mut loaded = s.load_robot(file, srdf.as_deref(), &UrdfOptions::default(), None);
    let mut srdf_note = if srdf.is_some() { ", SRDF" } else { "" };
    if let (Err(e), Some(_)) = (&loaded, &srdf)
        && e.to_string().contains("SRDF")
    {
        // an SRDF of the same name that belongs to another variant: the URDF alone
        s = PlanningScene::new();
        loaded = s.load_robot(file, None, &UrdfOptions::default(), None);
        srdf_note = ", without its SRDF (which names links the URDF does not have)";
    }
    let status = match loaded {
        Err(e) => {
            let msg = e.to_string().replace(&format!("{}/", root.display()), "");
            format!("fails: {}", msg.replace('|', "\\|"))
        }
        Ok(()) => {
            let body = &s.scene().bodies()[0];
            let model = body.model();
            let mut triangles = 0;
            let mut with_geometry = 0;
            for i in 0..model.len() {
                if let Some(shape) = body.link_shape(ccd_kinematics::LinkId(i as u32)) {
                    with_geometry += 1;
                    triangles += shape.body().mesh_bvh().mesh().triangle_count();
                }
            }
            // three random edges (short, medium, long) must be answered
            let mut rng = XorShift64::new(7);
            let mut next = || rng.unit();
            let mut answered = 0;
            let mut edge_errors = Vec::new();
            if s.dof() > 0 && with_geometry > 0 {
                for reach in [0.3, 1.0, 3.0] {
                    let (q0, q1) = edge(&s, &mut next, reach);
                    match s.check_edge(&q0, &q1, &QueryOptions::default().with_mode(Mode::Boolean))
                    {
                        Ok(_) => answered += 1,
                        Err(e) => edge_errors.push(e.to_string()),
                    }
                }
            }
            if edge_errors.is_empty() {
                format!(
                    "loads: {} links ({with_geometry} with geometry), {} joint values, {triangles} triangles{srdf_note}; {answered} edges checked",
                    model.len(),
                    s.dof()
                )
            } else {
                format!("loads, but edges fail: {}", edge_errors.join("; "))
            }
        }
    };
    format!("| `{rel}` | {status} |")
}

/// Tries every robot of the package and compares the list with the section "Robots from
/// example-robot-data" of docs/planning.md; `CCD_WRITE_SURVEY=1` rewrites that section
/// instead. Every file either loads and answers three edges, or fails with a typed error
/// (a panic fails the test).
#[test]
fn every_robot_of_the_package_loads_or_fails_with_a_reason() {
    let root = package_root();
    let files = package_files(&root);
    assert!(
        files.len() >= 60,
        "{} robot files in {}",
        files.len(),
        root.display()
    );
    let lines: Vec<String> = files.iter().map(|f| survey_one(&root, f)).collect();
    let loads = lines.iter().filter(|l| l.contains("| loads:")).count();
    let edged = lines
        .iter()
        .filter(|l| l.contains("; 3 edges checked"))
        .count();
    let table = format!(
        "{loads} of {} robot descriptions load; {edged} of them answer three random edges \
         (the others have no collision geometry or no joints); the rest fail with the \
         reason shown (generated by `crates/ca-articulated/tests/registry_robots.rs`; \
         `CCD_WRITE_SURVEY=1 cargo test -p ccd-ca-articulated --features urdf --test \
         registry_robots` rewrites this list).\n\n| file (in `example-robot-data/robots`) | result |\n|---|---|\n{}\n",
        files.len(),
        lines.join("\n")
    );
    eprintln!("{table}");
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/planning.md");
    let text = std::fs::read_to_string(&docs).unwrap();
    const HEAD: &str = "## Robots from example-robot-data\n";
    const BEGIN: &str = "<!-- survey begin -->\n";
    const END: &str = "<!-- survey end -->\n";
    let current = text
        .split_once(BEGIN)
        .and_then(|(_, rest)| rest.split_once(END))
        .map(|(body, _)| body.to_string());
    if std::env::var_os("CCD_WRITE_SURVEY").is_some() {
        let new = match text.split_once(BEGIN) {
            Some((before, rest)) => {
                let after = rest.split_once(END).map_or("", |(_, a)| a);
                format!("{before}{BEGIN}{table}{END}{after}")
            }
            None => format!("{}\n{HEAD}\n{BEGIN}{table}{END}", text.trim_end()),
        };
        std::fs::write(&docs, new).unwrap();
    } else {
        assert_eq!(
            current.as_deref(),
            Some(table.as_str()),
            "docs/planning.md's robot list is stale: rerun with CCD_WRITE_SURVEY=1"
        );
    }
    assert!(loads >= 4);
}
