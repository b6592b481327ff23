//! Scene `rigid-pairs` (issue 16): single rigid pairs — the workloads of `ccd-ca-rigid`'s
//! criterion benches (torus vs sphere head-on, near and far miss, an 86° rotation, a bar
//! spinning 170°, thin plates at high speed, a 20K sphere dropping on a 100K terrain) and
//! analytic pairs (ball–ball, capsule–box, ball–box, capsule–capsule, cylinder–box,
//! hull–hull, ball vs mesh, a compound) — with ours (`time_of_contact_shapes`) and
//! parry3d-f64 0.31 `cast_shapes_nonlinear` on the same shapes and the same
//! `NonlinearRigidMotion`s (linear + angular velocity about `local_center`), timed in the
//! same run.
//!
//! Columns: ours µs per query, our CA iterations, parry µs, parry/ours, both TOCs and their
//! difference; a *disagreement* is a different contact decision or our TOC later than
//! parry's by more than ε over the pair's speed bound. Each query is repeated until 0.2 s
//! have passed (at least 3 runs; parry's mesh–mesh casts, which take seconds, once and only
//! without `--quick`).

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Result;
use ccd_bvh::{BvhOptions, MeshBvh, Rss};
use ccd_ca_rigid::{CaOptions, Compound, RigidBody, Shape, time_of_contact_shapes_with_stats};
use ccd_distance::{Ball, Capsule, ConvexHull, Cuboid, Cylinder};
use ccd_geometry::TriMesh;
use ccd_kinematics::RigidMotion;
use glam::{DAffine3, DQuat, DVec3};
use parry3d_f64::math::Pose;
use parry3d_f64::query::{NonlinearRigidMotion, cast_shapes_nonlinear};
use parry3d_f64::shape as ps;
use serde_json::json;

use crate::report::{Plot, SceneReport, Series};
use crate::scenes::SceneConfig;

/// A constant-velocity motion as parry states it.
#[derive(Clone, Copy)]
struct Vel {
    start: DAffine3,
    lin: DVec3,
    ang: DVec3,
    centre: DVec3,
}

impl Vel {
    fn still(at: DVec3) -> Self {
        Self {
            start: DAffine3::from_translation(at),
            lin: DVec3::ZERO,
            ang: DVec3::ZERO,
            centre: DVec3::ZERO,
        }
    }
    /// From two poses, turning `angle` about `axis` (the bench's `RigidMotion::between`).
    fn between(from: DAffine3, to: DAffine3) -> Self {
        let m = RigidMotion::between(from, to).expect("rigid poses");
        Self {
            start: from,
            lin: m.linear_velocity(),
            ang: m.angular_velocity(),
            centre: DVec3::ZERO,
        }
    }
    fn ours(&self) -> RigidMotion {
        RigidMotion::from_velocities(self.start, self.lin, self.ang, self.centre)
            .expect("motions in the domain")
    }
    fn parry(&self) -> NonlinearRigidMotion {
        NonlinearRigidMotion::new(
            Pose::from_parts(
                self.start.translation,
                DQuat::from_mat3(&self.start.matrix3),
            ),
            self.centre,
            self.lin,
            self.ang,
        )
    }
}

struct Workload {
    name: &'static str,
    a: Shape,
    pa: ps::SharedShape,
    b: Shape,
    pb: ps::SharedShape,
    ma: Vel,
    mb: Vel,
    /// Analytic pair (target: ≥ 2× parry).
    analytic: bool,
    /// parry's cast takes seconds: run once, only in full mode (or never).
    parry_slow: Option<bool>,
}

fn noise(i: u64) -> f64 {
    let mut z = i
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(0x1234_5678);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    2.0 * (((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64) - 1.0
}

fn grid(nu: usize, nv: usize, closed_v: bool, mut f: impl FnMut(f64, f64) -> DVec3) -> TriMesh {
    let rows = if closed_v { nv } else { nv + 1 };
    let mut v = Vec::with_capacity(nu * rows);
    for j in 0..rows {
        for i in 0..nu {
            v.push(f(i as f64 / nu as f64, j as f64 / nv as f64));
        }
    }
    let id = |i: usize, j: usize| ((j % rows) * nu + (i % nu)) as u32;
    let mut t = Vec::with_capacity(2 * nu * nv);
    for j in 0..nv {
        for i in 0..nu {
            t.push([id(i, j), id(i + 1, j), id(i + 1, j + 1)]);
            t.push([id(i, j), id(i + 1, j + 1), id(i, j + 1)]);
        }
    }
    TriMesh::new(v, t).expect("valid grid")
}

fn sphere(n: usize, r: f64, rough: f64) -> TriMesh {
    use std::f64::consts::{PI, TAU};
    let mut k = 0u64;
    grid(2 * n, n, false, |u, v| {
        let (a, b) = (TAU * u, PI * v);
        k += 1;
        let rr = r * (1.0 + rough * noise(k));
        DVec3::new(rr * b.sin() * a.cos(), rr * b.sin() * a.sin(), rr * b.cos())
    })
}

fn terrain(n: usize) -> TriMesh {
    grid(n, n, false, |u, v| {
        let (x, y) = (20.0 * u - 10.0, 20.0 * v - 10.0);
        DVec3::new(x, y, 0.3 * (0.7 * x).sin() * (0.5 * y).cos())
    })
}

fn mesh(m: &TriMesh) -> (Shape, ps::SharedShape) {
    let body = RigidBody::new(Arc::new(
        MeshBvh::<Rss>::new(m.clone(), &BvhOptions::default()).expect("valid mesh"),
    ));
    let theirs = ps::TriMesh::new(m.vertices().to_vec(), m.triangles().to_vec())
        .expect("valid mesh for parry");
    (Shape::Mesh(body), ps::SharedShape::new(theirs))
}

fn pose(axis: DVec3, angle: f64, at: DVec3) -> DAffine3 {
    DAffine3::from_rotation_translation(DQuat::from_axis_angle(axis.normalize(), angle), at)
}

fn ball(r: f64) -> (Shape, ps::SharedShape) {
    (
        Shape::Ball(Ball::new(r).expect("radius")),
        ps::SharedShape::ball(r),
    )
}

fn cuboid(h: DVec3) -> (Shape, ps::SharedShape) {
    (
        Shape::Cuboid(Cuboid::new(h).expect("extents")),
        ps::SharedShape::cuboid(h.x, h.y, h.z),
    )
}

fn capsule(half: f64, r: f64) -> (Shape, ps::SharedShape) {
    (
        Shape::Capsule(Capsule::new_y(half, r).expect("capsule")),
        ps::SharedShape::capsule_y(half, r),
    )
}

fn workloads() -> Vec<Workload> {
    let mut w = Vec::new();
    let mut add = |name,
                   (a, pa): (Shape, ps::SharedShape),
                   (b, pb): (Shape, ps::SharedShape),
                   ma,
                   mb,
                   analytic,
                   parry_slow| {
        w.push(Workload {
            name,
            a,
            pa,
            b,
            pb,
            ma,
            mb,
            analytic,
            parry_slow,
        });
    };
    let still = Vel::still(DVec3::ZERO);
    // --- the criterion benches' mesh workloads ---
    let tor = TriMesh::torus(1.0, 0.35, 70, 35).expect("valid torus");
    let sph = sphere(35, 0.6, 0.0);
    add(
        "torus-sphere head-on",
        mesh(&tor),
        mesh(&sph),
        still,
        Vel::between(
            pose(DVec3::Z, 0.0, DVec3::new(4.0, 0.0, 0.0)),
            pose(DVec3::Y, 0.6, DVec3::new(-1.0, 0.0, 0.0)),
        ),
        false,
        Some(true),
    );
    add(
        "torus-sphere near miss",
        mesh(&tor),
        mesh(&sph),
        still,
        Vel::between(
            pose(DVec3::Z, 0.0, DVec3::new(3.0, 0.0, 0.96)),
            pose(DVec3::Z, 0.0, DVec3::new(-3.0, 0.0, 0.96)),
        ),
        false,
        Some(true),
    );
    add(
        "torus-sphere far miss",
        mesh(&tor),
        mesh(&sph),
        still,
        Vel::between(
            pose(DVec3::Z, 0.0, DVec3::new(3.0, 0.0, 3.0)),
            pose(DVec3::Z, 0.0, DVec3::new(-3.0, 0.0, 3.0)),
        ),
        false,
        Some(true),
    );
    add(
        "torus-sphere 86° rotation",
        mesh(&tor),
        mesh(&sph),
        still,
        Vel::between(
            pose(DVec3::X, 0.0, DVec3::new(2.5, 0.0, 0.5)),
            pose(DVec3::new(1.0, 1.0, 0.0), 1.5, DVec3::new(0.0, 0.0, 0.2)),
        ),
        false,
        Some(true),
    );
    add(
        "bar spinning 170° - sphere",
        mesh(&super::rigid_pile::cuboid(DVec3::new(3.0, 0.05, 0.05))),
        mesh(&sph),
        Vel::between(
            pose(DVec3::Z, 0.0, DVec3::ZERO),
            pose(DVec3::Z, 170f64.to_radians(), DVec3::ZERO),
        ),
        Vel::still(DVec3::new(0.0, 2.0, 0.0)),
        false,
        Some(true),
    );
    let plate = super::rigid_pile::cuboid(DVec3::new(0.5, 0.5, 0.005));
    add(
        "thin plates",
        mesh(&plate),
        mesh(&plate),
        still,
        Vel::between(
            pose(DVec3::Z, 0.0, DVec3::new(0.3, 0.1, 20.0)),
            pose(DVec3::Z, 0.3, DVec3::new(0.0, 0.0, -20.0)),
        ),
        false,
        Some(true),
    );
    add(
        "sphere 20K - terrain 100K",
        mesh(&terrain(224)),
        mesh(&sphere(100, 1.0, 0.02)),
        still,
        Vel::between(
            pose(DVec3::X, 0.0, DVec3::new(0.5, 0.3, 3.0)),
            pose(DVec3::X, 0.4, DVec3::new(0.4, 0.2, -1.0)),
        ),
        false,
        None,
    );
    // --- analytic pairs (velocities as a physics engine states them) ---
    let spin = |start: DVec3, lin: DVec3, ang: DVec3, centre: DVec3| Vel {
        start: DAffine3::from_translation(start),
        lin,
        ang,
        centre,
    };
    add(
        "ball-ball head-on, spinning",
        ball(0.5),
        ball(0.3),
        still,
        spin(
            DVec3::new(4.0, 0.2, 0.1),
            DVec3::new(-8.0, 0.0, 0.0),
            DVec3::new(0.0, 20.0, 5.0),
            DVec3::ZERO,
        ),
        true,
        Some(false),
    );
    add(
        "ball-ball near miss",
        ball(0.5),
        ball(0.3),
        still,
        spin(
            DVec3::new(4.0, 0.81, 0.0),
            DVec3::new(-8.0, 0.0, 0.0),
            DVec3::ZERO,
            DVec3::ZERO,
        ),
        true,
        Some(false),
    );
    add(
        "capsule-box, 86° about an offset centre",
        capsule(0.6, 0.2),
        cuboid(DVec3::new(0.5, 0.4, 0.3)),
        spin(
            DVec3::new(-2.5, 0.3, 0.0),
            DVec3::new(3.0, 0.0, 0.0),
            DVec3::new(0.0, 0.0, 1.5),
            DVec3::new(0.0, 0.4, 0.0),
        ),
        still,
        true,
        Some(false),
    );
    add(
        "capsule-box, tumbling 2 turns",
        capsule(0.6, 0.2),
        cuboid(DVec3::new(0.5, 0.4, 0.3)),
        spin(
            DVec3::new(-3.0, 0.0, 0.2),
            DVec3::new(4.0, 0.0, 0.0),
            DVec3::new(4.0, 12.0, 0.0),
            DVec3::ZERO,
        ),
        still,
        true,
        Some(false),
    );
    add(
        "ball-box falling",
        ball(0.25),
        cuboid(DVec3::new(2.0, 0.1, 2.0)),
        spin(
            DVec3::new(0.3, 3.0, 0.1),
            DVec3::new(0.0, -5.0, 0.0),
            DVec3::new(1.0, 0.0, 3.0),
            DVec3::ZERO,
        ),
        still,
        true,
        Some(false),
    );
    add(
        "capsule-capsule crossing",
        capsule(1.0, 0.1),
        capsule(1.0, 0.1),
        still,
        spin(
            DVec3::new(0.0, 0.0, 2.0),
            DVec3::new(0.0, 0.0, -4.0),
            DVec3::new(0.0, 0.0, 0.0),
            DVec3::ZERO,
        ),
        true,
        Some(false),
    );
    add(
        "cylinder-box rolling",
        (
            Shape::Cylinder(Cylinder::new(0.3, 0.5).expect("cylinder")),
            ps::SharedShape::cylinder(0.3, 0.5),
        ),
        cuboid(DVec3::splat(0.4)),
        spin(
            DVec3::new(-3.0, 0.0, 0.0),
            DVec3::new(4.0, 0.0, 0.0),
            DVec3::new(0.0, 0.0, -8.0),
            DVec3::ZERO,
        ),
        still,
        true,
        Some(false),
    );
    let pts: Vec<DVec3> = (0..40)
        .map(|i| {
            let (t, s) = (i as f64 * 2.399_963, (i as f64 + 0.5) / 40.0);
            let z = 1.0 - 2.0 * s;
            let r = (1.0 - z * z).sqrt();
            DVec3::new(0.6 * r * t.cos(), 0.4 * r * t.sin(), 0.5 * z)
        })
        .collect();
    let hull = || {
        (
            Shape::ConvexHull(Arc::new(ConvexHull::new_3d(&pts).expect("hull"))),
            ps::SharedShape::new(ps::ConvexPolyhedron::from_convex_hull(&pts).expect("hull")),
        )
    };
    add(
        "hull-hull tumbling",
        hull(),
        hull(),
        still,
        spin(
            DVec3::new(3.0, 0.2, 0.0),
            DVec3::new(-5.0, 0.0, 0.0),
            DVec3::new(3.0, -2.0, 6.0),
            DVec3::new(0.1, 0.0, 0.0),
        ),
        true,
        Some(false),
    );
    add(
        "ball - torus mesh",
        mesh(&tor),
        ball(0.3),
        still,
        spin(
            DVec3::new(0.0, 1.0, 2.0),
            DVec3::new(0.0, 0.0, -4.0),
            DVec3::new(2.0, 0.0, 0.0),
            DVec3::new(0.0, 0.2, 0.0),
        ),
        false,
        Some(false),
    );
    let dumbbell = || {
        let offs = [DVec3::new(-0.8, 0.0, 0.0), DVec3::new(0.8, 0.0, 0.0)];
        let ours = Compound::new(vec![
            (
                DAffine3::IDENTITY,
                Shape::Cuboid(Cuboid::new(DVec3::new(0.8, 0.05, 0.05)).expect("bar")),
            ),
            (
                DAffine3::from_translation(offs[0]),
                Shape::Ball(Ball::new(0.25).expect("ball")),
            ),
            (
                DAffine3::from_translation(offs[1]),
                Shape::Ball(Ball::new(0.25).expect("ball")),
            ),
        ])
        .expect("compound");
        let p = |v: DVec3| Pose::from_translation(v);
        let theirs = ps::SharedShape::compound(vec![
            (p(DVec3::ZERO), ps::SharedShape::cuboid(0.8, 0.05, 0.05)),
            (p(offs[0]), ps::SharedShape::ball(0.25)),
            (p(offs[1]), ps::SharedShape::ball(0.25)),
        ]);
        (Shape::Compound(Arc::new(ours)), theirs)
    };
    add(
        "dumbbell-dumbbell spinning",
        dumbbell(),
        dumbbell(),
        Vel {
            start: DAffine3::IDENTITY,
            lin: DVec3::ZERO,
            ang: DVec3::new(0.0, 0.0, 4.0),
            centre: DVec3::ZERO,
        },
        spin(
            DVec3::new(0.0, 3.0, 0.3),
            DVec3::new(0.0, -4.0, 0.0),
            DVec3::new(0.0, 0.0, -6.0),
            DVec3::ZERO,
        ),
        false,
        Some(false),
    );
    w
}

/// Mean µs per call of `f`, repeated until `budget` has passed (at least `min` runs).
fn time_us<T>(budget: Duration, min: u32, mut f: impl FnMut() -> T) -> (f64, T) {
    let start = Instant::now();
    let mut n = 0u32;
    let mut last;
    loop {
        last = black_box(f());
        n += 1;
        if n >= min && start.elapsed() >= budget {
            break;
        }
    }
    (start.elapsed().as_secs_f64() * 1e6 / f64::from(n), last)
}

struct Row {
    name: &'static str,
    analytic: bool,
    ours_us: f64,
    iterations: u32,
    parry_us: Option<f64>,
    ours_toc: Option<f64>,
    parry_toc: Option<Option<f64>>,
    disagree: bool,
}

fn toc_text(t: Option<f64>) -> String {
    t.map_or("none".into(), |t| format!("{t:.6}"))
}

pub(crate) fn run(cfg: &SceneConfig, progress: &indicatif::ProgressBar) -> Result<SceneReport> {
    let opts = CaOptions::default();
    let eps = opts.tolerance;
    let budget = Duration::from_millis(if cfg.quick { 50 } else { 200 });
    let loads = workloads();
    progress.set_length(loads.len() as u64);
    let mut rows = Vec::new();
    for w in &loads {
        progress.set_message(w.name);
        let (ma, mb) = (w.ma.ours(), w.mb.ours());
        let (ours_us, ours) = time_us(budget, 3, || {
            time_of_contact_shapes_with_stats(&w.a, &ma, &w.b, &mb, &opts)
        });
        let (ours, ours_stats) = ours?;
        let (qa, qb) = (w.ma.parry(), w.mb.parry());
        let cast = || {
            cast_shapes_nonlinear(&qa, w.pa.as_ref(), &qb, w.pb.as_ref(), 0.0, 1.0, true)
                .map(|h| h.map(|h| h.time_of_impact))
        };
        let parry = match w.parry_slow {
            None => None,
            Some(true) if cfg.quick => None,
            Some(true) => Some(time_us(Duration::ZERO, 1, cast)),
            Some(false) => Some(time_us(budget, 3, cast)),
        };
        let parry = match parry {
            Some((us, r)) => Some((us, r.map_err(|e| anyhow::anyhow!("parry: {e:?}"))?)),
            None => None,
        };
        let speed = (mb.linear_velocity() - ma.linear_velocity()).length()
            + ma.angle() * w.a.radius_about(ma.local_center())
            + mb.angle() * w.b.radius_about(mb.local_center());
        let disagree = match (ours, parry.map(|p| p.1)) {
            (_, None) => false,
            (Some(o), Some(Some(p))) => o.toc - p > eps / speed + 1e-12,
            (None, Some(None)) => false,
            _ => true,
        };
        rows.push(Row {
            name: w.name,
            analytic: w.analytic,
            ours_us,
            iterations: ours_stats.iterations,
            parry_us: parry.map(|p| p.0),
            ours_toc: ours.map(|c| c.toc),
            parry_toc: parry.map(|p| p.1),
            disagree,
        });
        progress.inc(1);
    }
    let ratio = |r: &Row| r.parry_us.map(|p| p / r.ours_us);
    let disagreements = rows.iter().filter(|r| r.disagree).count();
    let compared = rows.iter().filter(|r| r.parry_toc.is_some()).count();
    let find = |prefix: &str| {
        rows.iter()
            .filter(|r| r.name.starts_with(prefix))
            .filter_map(ratio)
            .fold(f64::INFINITY, f64::min)
    };
    let (bb, cb) = (find("ball-ball"), find("capsule-box"));
    let analytic_min = rows
        .iter()
        .filter(|r| r.analytic)
        .filter_map(ratio)
        .fold(f64::INFINITY, f64::min);
    let met = |x: f64| if x >= 2.0 { "met" } else { "NOT met" };
    let headline = format!(
        "ball–ball {bb:.1}× and capsule–box {cb:.1}× faster than parry3d-f64 (slowest of each; target ≥ 2×: {} / {}); \
         every analytic pair ≥ {analytic_min:.1}×; {disagreements} disagreements beyond ε in {compared} compared queries{}",
        met(bb),
        met(cb),
        if cfg.quick {
            " (--quick: parry's mesh–mesh casts skipped)"
        } else {
            ""
        }
    );
    let xs: Vec<f64> = (1..=rows.len()).map(|i| i as f64).collect();
    let plot = Plot {
        file: "rigid-pairs.svg".into(),
        title: "Time per query, ours vs parry3d-f64".into(),
        x_label: "workload".into(),
        y_label: "µs per query (log)".into(),
        log_y: true,
        targets: Vec::new(),
        categories: rows.iter().map(|r| r.name.to_string()).collect(),
        series: vec![
            Series {
                name: "ours".into(),
                x: xs.clone(),
                y: rows.iter().map(|r| r.ours_us).collect(),
                band: None,
            },
            Series {
                name: "parry3d-f64 cast_shapes_nonlinear".into(),
                x: rows
                    .iter()
                    .zip(&xs)
                    .filter(|(r, _)| r.parry_us.is_some())
                    .map(|(_, x)| *x)
                    .collect(),
                y: rows.iter().filter_map(|r| r.parry_us).collect(),
                band: None,
            },
        ],
    };
    let summary = json!({
        "ball_ball_ratio": bb,
        "capsule_box_ratio": cb,
        "analytic_min_ratio": analytic_min,
        "disagreements": disagreements,
        "compared": compared,
        "rows": rows.iter().map(|r| json!({
            "pair": r.name,
            "analytic": r.analytic,
            "ours_us": r.ours_us,
            "iterations": r.iterations,
            "parry_us": r.parry_us,
            "ours_toc": r.ours_toc,
            "parry_toc": r.parry_toc,
            "disagree": r.disagree,
        })).collect::<Vec<_>>(),
    });
    Ok(SceneReport {
        name: "rigid-pairs".into(),
        paper: "Lin survey slides, C2A; issue 16".into(),
        description: format!(
            "single rigid pairs: the ccd-ca-rigid criterion workloads (meshes) and analytic pairs; ours = time_of_contact_shapes (ε = {eps}), parry = parry3d-f64 0.31 cast_shapes_nonlinear on the same shapes and NonlinearRigidMotions, timed in the same run (mean of repeated queries; parry's mesh–mesh casts once, skipped with --quick, not run on the 100K terrain); disagreement = different contact decision, or our TOC later than parry's by more than ε / speed bound"
        ),
        columns: [
            "pair",
            "ours µs",
            "iterations",
            "parry µs",
            "parry/ours",
            "ours toc",
            "parry toc",
            "toc diff",
            "agree",
        ]
        .map(String::from)
        .to_vec(),
        rows: rows
            .iter()
            .map(|r| {
                vec![
                    r.name.to_string(),
                    format!("{:.2}", r.ours_us),
                    r.iterations.to_string(),
                    r.parry_us.map_or("—".into(), |p| format!("{p:.2}")),
                    ratio(r).map_or("—".into(), |x| format!("{x:.1}")),
                    toc_text(r.ours_toc),
                    r.parry_toc.map_or("—".into(), toc_text),
                    match (r.ours_toc, r.parry_toc) {
                        (Some(o), Some(Some(p))) => format!("{:+.2e}", o - p),
                        _ => "—".into(),
                    },
                    match r.parry_toc {
                        None => "—".into(),
                        Some(_) if r.disagree => "NO".into(),
                        Some(_) => "yes".into(),
                    },
                ]
            })
            .collect(),
        headline,
        summary,
        plots: vec![plot],
    })
}
