//! The six CATCH benchmark scenes (CATCH Sec. 8, Figs. 8 and 11, Tables 1–2, and the
//! robot scenes of issue 15): setup, step lists and targets. Each runs the default
//! (Taylor models + temporal culling), interval-arithmetic and no-temporal-culling
//! variants in the same run.

use std::sync::Arc;

use anyhow::{Result, bail};
use ccd_bvh::{BvhOptions, MeshBvh, Rss};
use ccd_ca_articulated::{ArticulatedBody, ArticulatedScene, Mode};
use ccd_geometry::TriMesh;
use serde_json::json;

use super::discrete::Discrete;
use super::mannequin::{Clip, chessmen, load_clip, mannequin};
use super::robots::{Robot, kitchen, panda, pr2, shelf};
use super::run::{Measured, Motion, Target, disagreements, measure, plot, report, row, variants};
use super::trains::{falling_train, four_trains};
use crate::clock::Stopwatch;
use crate::report::SceneReport;
use crate::rng::SceneRng;
use crate::scenes::SceneConfig;

fn env_bvh(mesh: TriMesh) -> Result<Arc<MeshBvh<Rss>>> {
    Ok(Arc::new(MeshBvh::<Rss>::new(mesh, &BvhOptions::default())?))
}

/// Runs the three variants over each motion; rows are prefixed by the motion's label.
fn run_all(
    scene: &ArticulatedScene,
    motions: &[(&str, Motion)],
    mode: Mode,
    bar: &indicatif::ProgressBar,
) -> Result<Vec<(String, [Measured; 3])>> {
    bar.set_length(3 * motions.iter().map(|(_, m)| m.len()).sum::<usize>() as u64);
    motions
        .iter()
        .map(|(label, m)| {
            let [a, b, c] = variants(mode);
            Ok((
                (*label).to_string(),
                [
                    measure(scene, m, &a, bar)?,
                    measure(scene, m, &b, bar)?,
                    measure(scene, m, &c, bar)?,
                ],
            ))
        })
        .collect()
}

fn rows_of(runs: &[(String, [Measured; 3])]) -> Vec<Vec<String>> {
    let several = runs.len() > 1;
    runs.iter()
        .flat_map(|(label, ms)| {
            ms.iter()
                .map(move |m| row(if several { label } else { "" }, m))
        })
        .collect()
}

/// Temporal culling must not change an answer beyond the tolerance contract: a note with the
/// steps free in one run and colliding in the other (those whose contact lies within ε/2 break
/// the contract and must be 0; those in the (ε/2, ε] band are valid either way), and the
/// largest TOC difference where both collide.
fn agreement_note(runs: &[(String, [Measured; 3])]) -> String {
    let (mut contract, mut band, mut dt) = (0, 0, 0.0f64);
    for (_, [a, _, c]) in runs {
        let d = disagreements(a, c);
        contract += d.contract;
        band += d.band;
        dt = dt.max(d.max_toc_difference);
    }
    let total: usize = runs.iter().map(|(_, [a, _, _])| a.ms.len()).sum();
    format!(
        "temporal culling on vs off: {contract} of {total} steps free in one and colliding within ε/2 in the other (must be 0: {}), {band} free in one and touching in the (ε/2, ε] band in the other (valid either way), largest TOC difference {dt:.2e}",
        if contract == 0 { "met" } else { "NOT met" }
    )
}

fn numbers(runs: &[(String, [Measured; 3])]) -> serde_json::Value {
    json!(
        runs.iter()
            .map(|(label, ms)| {
                (
                    label.clone(),
                    json!(ms.iter().map(|m| {
                let [ta, tf, tc, tw] = m.table1();
                let [b, s, t, it] = m.table2();
                json!({ "variant": m.label, "steps": m.ms.len(), "collisions": m.collisions(),
                        "t_a_ms": ta, "t_f_ms": tf, "t_c_ms": tc, "t_w_ms": tw,
                        "pcl_before": b, "pcl_spatial": s, "pcl_temporal": t, "ca_iterations": it })
            }).collect::<Vec<_>>()),
                )
            })
            .collect::<serde_json::Map<_, _>>()
    )
}

/// A scene ready to query: the scene, its step lists (label, motion), the query mode, and
/// the description of its report.
pub(crate) struct Setup {
    pub(crate) scene: ArticulatedScene,
    pub(crate) motions: Vec<(&'static str, Motion)>,
    pub(crate) mode: Mode,
    pub(crate) description: String,
}

/// Builds the named CATCH scene (for `cargo xtask catch-step`).
pub(crate) fn setup(name: &str, cfg: &SceneConfig) -> Result<Setup> {
    match name {
        "walking-mannequin" => walking_mannequin_setup(cfg),
        "exercise" => exercise_setup(cfg),
        "four-trains" => four_trains_setup(cfg),
        "falling-train" => falling_train_setup(cfg),
        "pr2" => pr2_setup(cfg),
        "panda-planner" => Ok(panda_planner_setup(cfg, &indicatif::ProgressBar::hidden())?.0),
        other => bail!(
            "unknown CATCH scene {other:?} (walking-mannequin, exercise, four-trains, falling-train, pr2, panda-planner)"
        ),
    }
}

fn walking_mannequin_setup(cfg: &SceneConfig) -> Result<Setup> {
    let (clip, src) = load_clip(cfg.data.as_deref(), Clip::Walk)?;
    let m = mannequin(&clip, src)?;
    let env = chessmen(&m, 131, 6250)?;
    let env_tris = env.triangle_count();
    let mut scene = ArticulatedScene::new();
    scene.add_articulated(ArticulatedBody::from_meshes(
        m.model.clone(),
        m.meshes.iter().cloned().map(Some).collect(),
    )?);
    scene.set_environment(env_bvh(env)?);
    let last = m.frames.len() - 1;
    let (n1, n4) = if cfg.quick {
        (120.min(last), 30.min(last / 4))
    } else {
        (last, last / 4)
    };
    let frames = vec![m.frames.clone()];
    let motions = vec![
        (
            "every frame",
            Motion::Frames {
                frames: frames.clone(),
                start: 0,
                stride: 1,
                steps: n1,
            },
        ),
        (
            "every 4th frame",
            Motion::Frames {
                frames,
                start: 0,
                stride: 4,
                steps: n4,
            },
        ),
    ];
    Ok(Setup {
        scene,
        motions,
        mode: Mode::Toc,
        description: format!(
            "15-link mannequin ({} triangles, self-collision on) driven by {} ({} frames) among 16 chessmen ({} triangles); CPU ms per step, mean PCLs per step",
            m.triangles(),
            m.source,
            m.frames.len(),
            env_tris
        ),
    })
}

/// `walking-mannequin` (CATCH Fig. 8, Tables 1–2 "Walk").
pub(crate) fn walking_mannequin(
    cfg: &SceneConfig,
    bar: &indicatif::ProgressBar,
) -> Result<SceneReport> {
    let Setup {
        scene,
        motions,
        description,
        ..
    } = walking_mannequin_setup(cfg)?;
    let runs = run_all(&scene, &motions, Mode::Toc, bar)?;
    let d = &runs[0].1[0];
    let (spatial, _) = d.culling();
    let targets = [
        Target::at_most("T_a", d.table1()[0], 0.25, "ms"),
        Target::at_least("spatial culling", 100.0 * spatial, 96.0, "%"),
    ];
    let note = agreement_note(&runs);
    let (floor, floor_json) = contact_floor(&scene, &runs, &motions)?;
    let mut summary = numbers(&runs);
    summary["contact_floor"] = floor_json;
    Ok(report(
        ("walking-mannequin", "CATCH Fig. 8 / Tables 1–2 (Walk)"),
        description,
        rows_of(&runs),
        &targets,
        &[note, floor],
        summary,
        vec![plot(
            "walking-mannequin.svg",
            "walking mannequin: time per step (every frame)",
            &runs[0].1.iter().collect::<Vec<_>>(),
        )],
    ))
}

fn exercise_setup(cfg: &SceneConfig) -> Result<Setup> {
    let (clip, src) = load_clip(cfg.data.as_deref(), Clip::Hop)?;
    let mut m = mannequin(&clip, src)?;
    if cfg.quick {
        let keep = 60.min(m.frames.len());
        m.frames.drain(..m.frames.len() - keep);
    }
    let key = if cfg.quick { 30 } else { 90 };
    m.add_hand_to_foot(key)?;
    let mut scene = ArticulatedScene::new();
    scene.add_articulated(ArticulatedBody::from_meshes(
        m.model.clone(),
        m.meshes.iter().cloned().map(Some).collect(),
    )?);
    let steps = m.frames.len() - 1;
    let motions = vec![(
        "",
        Motion::Frames {
            frames: vec![m.frames.clone()],
            start: 0,
            stride: 1,
            steps,
        },
    )];
    Ok(Setup {
        scene,
        motions,
        mode: Mode::Toc,
        description: format!(
            "the mannequin ({} triangles, self-collision only) on {} then {} key-framed poses bringing the left hand to the left foot and back; {steps} steps",
            m.triangles(),
            m.source,
            2 * key
        ),
    })
}

/// `exercise` (CATCH Fig. 8, Tables 1–2 "Exercise").
pub(crate) fn exercise(cfg: &SceneConfig, bar: &indicatif::ProgressBar) -> Result<SceneReport> {
    let Setup {
        scene,
        motions,
        description,
        ..
    } = exercise_setup(cfg)?;
    let runs = run_all(&scene, &motions, Mode::Toc, bar)?;
    let d = &runs[0].1[0];
    let targets = [Target::at_most("T_a", d.table1()[0], 0.08, "ms")];
    let note = agreement_note(&runs);
    Ok(report(
        ("exercise", "CATCH Fig. 8 / Tables 1–2 (Exercise)"),
        description,
        rows_of(&runs),
        &targets,
        &[note],
        numbers(&runs),
        vec![plot(
            "exercise.svg",
            "exercising mannequin: time per step",
            &runs[0].1.iter().collect::<Vec<_>>(),
        )],
    ))
}

/// The floor under any enclosure's PCL count, on the first step list (the one `runs[0]`
/// measured): the mean number of link pairs per step that come within ε during the step (the
/// `All` query's contacts). Pairs in contact survive every conservative culling, so
/// `1 − floor / PCLs before` bounds spatial culling from above and `floor / interval PCLs`
/// bounds the Taylor/interval ratio from below, whatever the enclosure.
fn contact_floor(
    scene: &ArticulatedScene,
    runs: &[(String, [Measured; 3])],
    motions: &[(&str, Motion)],
) -> Result<(String, serde_json::Value)> {
    let opts = ccd_ca_articulated::QueryOptions::default().with_mode(Mode::All);
    let m = &motions[0].1;
    let mut contacts = 0usize;
    let mut by_pair = std::collections::BTreeMap::<(String, String), usize>::new();
    let name = |p: ccd_ca_articulated::Part| match p {
        ccd_ca_articulated::Part::Link { body, link } => scene.bodies()[body]
            .model()
            .links()
            .get(link.index())
            .map_or_else(|| format!("{link:?}"), |l| l.name.clone()),
        ccd_ca_articulated::Part::Rigid(i) => format!("rigid {i}"),
        ccd_ca_articulated::Part::Environment => "environment".to_string(),
    };
    for k in 0..m.len() {
        let r = m.with_step(k, |s| scene.query(s, &opts))?;
        contacts += r.contacts.len();
        for c in &r.contacts {
            *by_pair.entry((name(c.a), name(c.b))).or_default() += 1;
        }
    }
    let floor = contacts as f64 / m.len().max(1) as f64;
    let mut common: Vec<_> = by_pair.into_iter().collect();
    common.sort_by_key(|e| std::cmp::Reverse(e.1));
    let common = common
        .iter()
        .take(4)
        .map(|((a, b), n)| format!("{a}–{b} in {n} steps"))
        .collect::<Vec<_>>()
        .join(", ");
    let [d, i, _] = &runs[0].1;
    let [before, ts, ..] = d.table2();
    let is = i.table2()[1];
    let best_spatial = 100.0 * (1.0 - floor / before.max(f64::MIN_POSITIVE));
    let ratio_floor = floor / is.max(f64::MIN_POSITIVE);
    let note = format!(
        "link pairs in contact within a step (`All` mode): {floor:.2} per step, of {before:.1} pairs before culling, {ts:.2} after Taylor boxes and {is:.2} after interval boxes; no conservative culling removes them, so spatial culling cannot exceed {best_spatial:.1} % and the Taylor/interval ratio cannot go below {ratio_floor:.3} on this motion (most frequent: {common})"
    );
    Ok((
        note,
        json!({ "pairs_in_contact": floor, "best_spatial_culling_percent": best_spatial, "ratio_floor": ratio_floor }),
    ))
}

fn train_targets(runs: &[(String, [Measured; 3])], per_frame_ms: f64) -> Vec<Target> {
    let [d, i, _] = &runs[0].1;
    let (_, temporal) = d.culling();
    let (ts, is) = (d.table2()[1], i.table2()[1]);
    vec![
        Target::at_most("T_a", d.table1()[0], per_frame_ms, "ms"),
        Target::at_least("temporal culling", 100.0 * temporal, 90.0, "%"),
        Target::at_most("Taylor PCLs / interval PCLs", ts / is, 0.2, "×"),
    ]
}

fn four_trains_setup(cfg: &SceneConfig) -> Result<Setup> {
    // quick: 8 steps where the trains meet
    let (start, steps) = if cfg.quick { (45, 8) } else { (0, 240) };
    let trains = four_trains(404, 10, 20, 240)?;
    let tris: usize = trains[0].meshes.iter().map(TriMesh::triangle_count).sum();
    let mut scene = ArticulatedScene::new();
    for t in &trains {
        scene.add_articulated(ArticulatedBody::from_meshes(
            t.model.clone(),
            t.meshes.iter().cloned().map(Some).collect(),
        )?);
    }
    let motions = vec![(
        "",
        Motion::Frames {
            frames: trains.into_iter().map(|t| t.frames).collect(),
            start,
            stride: 1,
            steps,
        },
    )];
    Ok(Setup {
        scene,
        motions,
        mode: Mode::Toc,
        description: format!(
            "4 trains × 10 non-convex cars ({tris} triangles per train) meeting and tangling under a seeded position-based dynamics; steps {start}–{}",
            start + steps
        ),
    })
}

/// `four-trains` (CATCH Fig. 11 top, Tables 1–2 "Four Trains").
pub(crate) fn four_trains_scene(
    cfg: &SceneConfig,
    bar: &indicatif::ProgressBar,
) -> Result<SceneReport> {
    let Setup {
        scene,
        motions,
        description,
        ..
    } = four_trains_setup(cfg)?;
    let runs = run_all(&scene, &motions, Mode::Toc, bar)?;
    let targets = train_targets(&runs, 100.0);
    let note = agreement_note(&runs);
    let (floor, floor_json) = contact_floor(&scene, &runs, &motions)?;
    let mut summary = numbers(&runs);
    summary["contact_floor"] = floor_json;
    Ok(report(
        ("four-trains", "CATCH Fig. 11 / Tables 1–2 (Four Trains)"),
        description,
        rows_of(&runs),
        &targets,
        &[note, floor],
        summary,
        vec![plot(
            "four-trains.svg",
            "four trains: time per step",
            &runs[0].1.iter().collect::<Vec<_>>(),
        )],
    ))
}

fn falling_train_setup(cfg: &SceneConfig) -> Result<Setup> {
    // quick: 20 steps around the landing
    let (start, steps) = if cfg.quick { (70, 20) } else { (0, 240) };
    let (train, terrain) = falling_train(1717, 17, 22, 120, 240)?;
    let tris: usize = train.meshes.iter().map(TriMesh::triangle_count).sum();
    let terrain_tris = terrain.triangle_count();
    let mut scene = ArticulatedScene::new();
    scene.add_articulated(ArticulatedBody::from_meshes(
        train.model.clone(),
        train.meshes.iter().cloned().map(Some).collect(),
    )?);
    scene.set_environment(env_bvh(terrain)?);
    let motions = vec![(
        "",
        Motion::Frames {
            frames: vec![train.frames],
            start,
            stride: 1,
            steps,
        },
    )];
    Ok(Setup {
        scene,
        motions,
        mode: Mode::Toc,
        description: format!(
            "a 17-car train ({tris} triangles) dropped onto a {terrain_tris}-triangle mountain (seeded position-based dynamics, gravity, friction); steps {start}–{}",
            start + steps
        ),
    })
}

/// `falling-train` (CATCH Fig. 11 bottom, Tables 1–2 "Falling Train").
pub(crate) fn falling_train_scene(
    cfg: &SceneConfig,
    bar: &indicatif::ProgressBar,
) -> Result<SceneReport> {
    let Setup {
        scene,
        motions,
        description,
        ..
    } = falling_train_setup(cfg)?;
    let runs = run_all(&scene, &motions, Mode::Toc, bar)?;
    let targets = train_targets(&runs, 50.0);
    let note = agreement_note(&runs);
    let (floor, floor_json) = contact_floor(&scene, &runs, &motions)?;
    let mut summary = numbers(&runs);
    summary["contact_floor"] = floor_json;
    Ok(report(
        (
            "falling-train",
            "CATCH Fig. 11 / Tables 1–2 (Falling Train)",
        ),
        description,
        rows_of(&runs),
        &targets,
        &[note, floor],
        summary,
        vec![plot(
            "falling-train.svg",
            "falling train: time per step",
            &runs[0].1.iter().collect::<Vec<_>>(),
        )],
    ))
}

/// `plot` with a target drawn across it (in its `y` unit).
fn with_target(mut plot: crate::report::Plot, label: &str, y: f64) -> crate::report::Plot {
    plot.targets.push(crate::report::TargetLine {
        label: label.into(),
        y,
    });
    plot
}

/// The robot's links as an articulated body with its SRDF-disabled pairs.
pub(crate) fn robot_body(r: &Robot) -> Result<ArticulatedBody> {
    let mut body = ArticulatedBody::from_meshes(r.model.clone(), r.meshes.clone())?;
    body.disable_pairs(r.disabled.iter().copied())?;
    Ok(body)
}

fn pr2_setup(cfg: &SceneConfig) -> Result<Setup> {
    let robot = pr2(&cfg.robots)?;
    let env = kitchen(22, 30)?;
    let env_tris = env.triangle_count();
    let body = robot_body(&robot)?;
    let pairs = body.self_pairs().count();
    let mut scene = ArticulatedScene::new();
    scene.add_articulated(body);
    scene.set_environment(env_bvh(env)?);
    let n = if cfg.quick { 15 } else { 300 };
    let mut rng = SceneRng::new(2);
    let mut q = robot.random_config(&mut rng);
    let edges = (0..n)
        .map(|_| {
            let q1 = robot.nearby_config(&q, 0.5, &mut rng);
            (std::mem::replace(&mut q, q1.clone()), q1)
        })
        .collect();
    let motions = vec![("", Motion::Edges(edges))];
    Ok(Setup {
        scene,
        motions,
        mode: Mode::Toc,
        description: format!(
            "{} ({} links with geometry, {} triangles, {pairs} self pairs after the SRDF filter): both 7-dof arms on {n} chained random joint-space edges (≤ 0.5 rad per joint) in a {env_tris}-triangle kitchen",
            robot.source,
            robot.meshes.iter().flatten().count(),
            robot.triangles()
        ),
    })
}

/// `pr2`: both arms on random joint-space edges in a kitchen, self-collision with the
/// SRDF filter.
pub(crate) fn pr2_scene(cfg: &SceneConfig, bar: &indicatif::ProgressBar) -> Result<SceneReport> {
    let Setup {
        scene,
        motions,
        description,
        ..
    } = pr2_setup(cfg)?;
    bar.set_message("edge (3 variants)");
    let runs = run_all(&scene, &motions, Mode::Toc, bar)?;
    let d = &runs[0].1[0];
    let targets = [Target::at_most("T_a", d.table1()[0], 0.5, "ms")];
    let note = agreement_note(&runs);
    Ok(report(
        ("pr2", "issue 15 (real robot)"),
        description,
        rows_of(&runs),
        &targets,
        &[note],
        numbers(&runs),
        vec![with_target(
            plot(
                "pr2.svg",
                "PR2: time per edge",
                &runs[0].1.iter().collect::<Vec<_>>(),
            ),
            "target: mean T_a ≤ 0.5 ms",
            0.5,
        )],
    ))
}

/// Start configurations [`free_edges`] tries before giving up when none has given an edge
/// (a few seconds of discrete checks).
const PROBE_TRIES: usize = 2_000;
/// Start configurations [`free_edges`] tries per edge wanted, in all.
const EDGE_TRIES_PER_EDGE: usize = 50;

/// `n` planner edges from seeded random collision-free configurations to collision-free
/// configurations at most 0.7 rad per joint away. Stops with an error, within seconds, when
/// the robot has too few free configurations: after [`PROBE_TRIES`] start configurations
/// with no edge, or after `EDGE_TRIES_PER_EDGE × n` in all.
fn free_edges(
    robot: &Robot,
    body: &ArticulatedBody,
    env: &MeshBvh<Rss>,
    n: usize,
    eps: f64,
    bar: &indicatif::ProgressBar,
) -> Result<Vec<(Vec<f64>, Vec<f64>)>> {
    let check = Discrete::new(body, env, eps);
    let mut rng = SceneRng::new(77);
    let mut out = Vec::with_capacity(n);
    let mut tries = 0usize;
    bar.set_message("free edge found");
    bar.set_length(n as u64);
    while out.len() < n {
        tries += 1;
        if (out.is_empty() && tries > PROBE_TRIES) || tries > EDGE_TRIES_PER_EDGE * n + PROBE_TRIES
        {
            bail!(
                "panda-planner: too few collision-free configurations of {} ({} edges of {n} in {} start configurations): its self-collision filter or its scene is broken",
                robot.source,
                out.len(),
                tries - 1
            );
        }
        let q0 = robot.random_config(&mut rng);
        if check.collides(&q0)? {
            continue;
        }
        for _ in 0..100 {
            let q1 = robot.nearby_config(&q0, 0.7, &mut rng);
            if !check.collides(&q1)? {
                out.push((q0, q1));
                bar.inc(1);
                break;
            }
        }
    }
    bar.set_position(0);
    bar.set_message("edge");
    Ok(out)
}

fn panda_planner_setup(
    cfg: &SceneConfig,
    bar: &indicatif::ProgressBar,
) -> Result<(Setup, Arc<MeshBvh<Rss>>)> {
    let robot = panda(&cfg.robots)?;
    let env = env_bvh(shelf(7)?)?;
    let env_tris = env.mesh().triangle_count();
    let body = robot_body(&robot)?;
    let n = if cfg.quick { 60 } else { 10_000 };
    let eps = ccd_ca_articulated::QueryOptions::default().tolerance;
    let edges = free_edges(&robot, &body, &env, n, eps, bar)?;
    let mut scene = ArticulatedScene::new();
    scene.add_articulated(body);
    scene.set_environment(Arc::clone(&env));
    let motions = vec![("", Motion::Edges(edges))];
    let description = format!(
        "{} ({} triangles): {n} planner edges between collision-free random configurations (≤ 0.7 rad per joint) before a {env_tris}-triangle cluttered shelf; Boolean mode; discrete rows: mesh overlap within ε at evenly spaced poses",
        robot.source,
        robot.triangles()
    );
    Ok((
        Setup {
            scene,
            motions,
            mode: Mode::Boolean,
            description,
        },
        env,
    ))
}

/// `panda-planner`: Boolean edge checks of a planner (free endpoints, ≤ 0.7 rad per joint)
/// before a cluttered shelf, against the discrete check at 1° / 1 cm and 5° / 5 cm.
pub(crate) fn panda_planner(
    cfg: &SceneConfig,
    bar: &indicatif::ProgressBar,
) -> Result<SceneReport> {
    let (
        Setup {
            scene,
            motions,
            description,
            ..
        },
        env,
    ) = panda_planner_setup(cfg, bar)?;
    let Some((_, Motion::Edges(edges))) = motions.first() else {
        bail!("panda-planner: the setup gives one list of edges");
    };
    bar.set_message("edge (3 variants)");
    let runs = run_all(&scene, &motions, Mode::Boolean, bar)?;
    let d = &runs[0].1[0];
    let body = &scene.bodies()[0];
    let eps = ccd_ca_articulated::QueryOptions::default().tolerance;
    let check = Discrete::new(body, &env, eps);
    let mut rows = rows_of(&runs);
    let mut discrete_runs = Vec::new();
    for (deg, len, label) in [
        (1.0, 0.01, "discrete 1° / 1 cm"),
        (5.0, 0.05, "discrete 5° / 5 cm"),
    ] {
        let mut m = Measured {
            label: label.into(),
            ms: Vec::new(),
            wall_ms: Vec::new(),
            ms_slowest: Vec::new(),
            toc: Vec::new(),
            distance: Vec::new(),
            tolerance: eps,
            stats: Vec::new(),
        };
        let mut poses = 0usize;
        bar.set_message(format!("{label}: edge"));
        bar.set_length(edges.len() as u64);
        bar.set_position(0);
        for (q0, q1) in edges {
            bar.inc(1);
            let watch = Stopwatch::start();
            let (hit, k) = check.edge(q0, q1, deg, len)?;
            let (cpu, wall) = watch.ms();
            m.ms.push(cpu);
            m.wall_ms.push(wall);
            m.ms_slowest.extend(m.ms.last());
            m.toc.push(hit.then_some(0.0));
            poses += k;
        }
        let missed = d
            .toc
            .iter()
            .zip(&m.toc)
            .filter(|(c, s)| c.is_some() && s.is_none())
            .count();
        let catch_missed = d
            .toc
            .iter()
            .zip(&m.toc)
            .filter(|(c, s)| c.is_none() && s.is_some())
            .count();
        let [ta, tf, tc, tw] = m.table1();
        let f = |x: f64| {
            if x.is_finite() {
                format!("{x:.3}")
            } else {
                "–".into()
            }
        };
        rows.push(vec![
            label.into(),
            m.ms.len().to_string(),
            m.collisions().to_string(),
            f(ta),
            f(tf),
            f(tc),
            f(tw),
            format!("{:.1} poses/edge", poses as f64 / edges.len() as f64),
            "–".into(),
            "–".into(),
            "–".into(),
            "–".into(),
            format!("missed {missed}"),
            f(m.wall_ms.iter().sum::<f64>() / m.wall_ms.len().max(1) as f64),
        ]);
        discrete_runs.push((label, m, missed, catch_missed));
    }
    let us = 1e3 * d.table1()[0];
    let free_share = 100.0 * (1.0 - d.collisions() as f64 / d.ms.len() as f64);
    let (_, one_deg, missed, catch_missed) = &discrete_runs[0];
    let speedup = one_deg.table1()[0] / d.table1()[0];
    let targets = [
        Target::at_most("µs per edge", us, 50.0, "µs"),
        Target::at_least("speed-up over the 1° discrete check", speedup, 10.0, "×"),
        Target::at_most(
            "collisions CATCH misses (discrete finds, CATCH does not)",
            *catch_missed as f64,
            0.0,
            "edges",
        ),
    ];
    let notes = vec![
        format!("{free_share:.1}% of edges collision-free (CATCH)"),
        format!(
            "colliding edges the 1° / 1 cm discrete check passes as free: {missed}; 5° / 5 cm: {}",
            discrete_runs[1].2
        ),
    ];
    let mut plots_runs: Vec<&Measured> = runs[0].1.iter().collect();
    plots_runs.push(&discrete_runs[0].1);
    Ok(report(
        (
            "panda-planner",
            "CATCH Sec. 8 (planner edges, Boolean mode)",
        ),
        description,
        rows,
        &targets,
        &notes,
        json!({ "catch": numbers(&runs), "us_per_edge": us, "free_share_pct": free_share, "speedup_vs_1deg": speedup,
                "discrete_missed_1deg": missed, "discrete_missed_5deg": discrete_runs[1].2, "catch_missed": catch_missed }),
        vec![with_target(
            plot(
                "panda-planner.svg",
                "Panda planner edges: time per edge",
                &plots_runs,
            ),
            "target: mean ≤ 50 µs per edge",
            0.05,
        )],
    ))
}
