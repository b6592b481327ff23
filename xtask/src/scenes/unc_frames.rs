//! Scene `unc-frames`: real frame sequences (PLY or OBJ, same topology) from `--data DIR`
//! run through the LA scene query, one table row per sequence — every consecutive pair of
//! frames is one CCD step (LA Table I's workload on the UNC dynamic-scene data).
//!
//! Sequences are the subfolders of `DIR/unc-frames/` (cloth-ball, n-body, cloth-funnel,
//! rod-twist, armadillo-rollers in `../shared/data`), or `DIR` itself when it holds numbered
//! frames. Files are ordered by the last number in their name. Each sequence is one mesh
//! with self-collision on (the files merge all bodies of a scene). The scene's global ToC and
//! contact count are checked against brute force over every feature pair: the whole first
//! step on sequences of at most [`BRUTE_FORCE_LIMIT`] triangles, a patch around the first
//! contact on larger ones.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use ccd_geometry::Feature;
use ccd_la_deformable::Mode;
use ccd_la_deformable::scene::{DeformingScene, SceneOptions, brute_force};
use glam::DVec3;
use serde_json::json;

use crate::report::{Plot, SceneReport, Series};
use crate::scenes::SceneConfig;
use crate::scenes::la_common::Animation;
use crate::scenes::la_run::{COLUMN_NOTE, columns, measure, meshes, our_row, summary};

/// Sequences up to this many triangles get a brute-force agreement check.
const BRUTE_FORCE_LIMIT: usize = 25_000;
/// Triangles in the patch checked against brute force on larger sequences.
const PATCH: usize = 1_500;

/// Frames loaded from files: one mesh, fixed topology.
struct LoadedFrames {
    triangles: Vec<[u32; 3]>,
    frames: Vec<Vec<DVec3>>,
}

impl Animation for LoadedFrames {
    fn topology(&self) -> Vec<Vec<[u32; 3]>> {
        vec![self.triangles.clone()]
    }

    fn frame_count(&self) -> usize {
        self.frames.len()
    }

    fn frame(&self, k: usize) -> Vec<Vec<DVec3>> {
        vec![self.frames[k].clone()]
    }
}

/// The last run of digits in a file stem (`cloth_ball92` → 92, `balls16_18` → 18).
fn frame_number(path: &Path) -> Option<u64> {
    let stem = path.file_stem()?.to_str()?;
    let end = stem.rfind(|c: char| c.is_ascii_digit())? + 1;
    let start = stem[..end]
        .rfind(|c: char| !c.is_ascii_digit())
        .map_or(0, |i| i + 1);
    stem[start..end].parse().ok()
}

/// Frame files (`.ply` / `.obj`) in `dir`, ordered by frame number then name.
fn frame_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.is_file()
                && p.extension()
                    .and_then(|e| e.to_str())
                    .is_some_and(|e| e.eq_ignore_ascii_case("ply") || e.eq_ignore_ascii_case("obj"))
        })
        .collect();
    files.sort_by_key(|p| (frame_number(p), p.clone()));
    Ok(files)
}

/// Writes `frames` consecutive frames of each procedural LA scene (from the step its quick
/// run starts at, where the contacts are) into `dir/NAME/fK.obj`, every mesh of a scene
/// merged into one (as the UNC files merge a scene's bodies): the stand-in for the UNC frame
/// pairs on a machine without them.
fn write_procedural_frames(dir: &Path, frames: usize) -> Result<Vec<(String, Vec<PathBuf>)>> {
    use crate::scenes::{cloth_ball, exploding_dragon, n_body};
    let scenes: [(&str, Box<dyn Animation>, usize); 3] = [
        (
            "cloth-ball (procedural)",
            Box::new(cloth_ball::animation()),
            cloth_ball::QUICK_STEP,
        ),
        (
            "n-body (procedural)",
            Box::new(n_body::animation()),
            n_body::QUICK_STEP,
        ),
        (
            "exploding-dragon (procedural)",
            Box::new(exploding_dragon::animation()),
            exploding_dragon::QUICK_STEP,
        ),
    ];
    let mut out = Vec::new();
    for (name, anim, first) in scenes {
        let folder = dir.join(name.split(' ').next().unwrap_or(name));
        std::fs::create_dir_all(&folder)
            .with_context(|| format!("creating {}", folder.display()))?;
        let topology = anim.topology();
        let mut files = Vec::new();
        for k in first..(first + frames).min(anim.frame_count()) {
            let positions = anim.frame(k);
            let (mut vertices, mut triangles) = (Vec::new(), Vec::new());
            for (tris, verts) in topology.iter().zip(&positions) {
                let base = u32::try_from(vertices.len())?;
                triangles.extend(tris.iter().map(|t| t.map(|i| i + base)));
                vertices.extend_from_slice(verts);
            }
            let mesh = ccd_geometry::TriMesh::new(vertices, triangles)?;
            let path = folder.join(format!("f{k}.obj"));
            ccd_geometry::io::write_obj(&path, &mesh)
                .with_context(|| format!("writing {}", path.display()))?;
            files.push(path);
        }
        out.push((name.to_string(), files));
    }
    Ok(out)
}

/// The sequences under `data`: `(name, frame files)`.
fn sequences(data: &Path) -> Result<Vec<(String, Vec<PathBuf>)>> {
    let root = if data.join("unc-frames").is_dir() {
        data.join("unc-frames")
    } else {
        data.to_path_buf()
    };
    let own = frame_files(&root)?;
    if own.len() >= 2 {
        let name = root
            .file_name()
            .map_or_else(|| "frames".into(), |n| n.to_string_lossy().into_owned());
        return Ok(vec![(name, own)]);
    }
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    let mut out = Vec::new();
    for d in dirs {
        let files = frame_files(&d)?;
        if files.len() >= 2 {
            out.push((
                d.file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned(),
                files,
            ));
        }
    }
    Ok(out)
}

/// Loads a sequence; triangles that repeat a vertex index (collapsed in the file) are
/// dropped. Also returns how many were dropped and how many vertices coincide with an
/// earlier one in every frame (unwelded copies; kept as they are).
fn load(files: &[PathBuf]) -> Result<(LoadedFrames, usize, usize)> {
    let first = ccd_geometry::io::read_mesh(&files[0])
        .with_context(|| format!("reading {}", files[0].display()))?;
    let mut frames = vec![first.vertices().to_vec()];
    for f in &files[1..] {
        let m =
            ccd_geometry::io::read_mesh(f).with_context(|| format!("reading {}", f.display()))?;
        if m.triangles() != first.triangles() || m.vertex_count() != first.vertex_count() {
            bail!(
                "{} has a different topology from {}",
                f.display(),
                files[0].display()
            );
        }
        frames.push(m.vertices().to_vec());
    }
    let all = first.triangles();
    let triangles: Vec<[u32; 3]> = all
        .iter()
        .copied()
        .filter(|t| t[0] != t[1] && t[1] != t[2] && t[0] != t[2])
        .collect();
    let dropped = all.len() - triangles.len();
    let mut seen = std::collections::HashSet::new();
    let dup = (0..frames[0].len())
        .filter(|&v| {
            let key: Vec<[u64; 3]> = frames
                .iter()
                .map(|f| f[v].to_array().map(f64::to_bits))
                .collect();
            !seen.insert(key)
        })
        .count();
    Ok((LoadedFrames { triangles, frames }, dropped, dup))
}

/// The `k` triangles whose centroids at `t = 0` are nearest to `p`, reindexed.
fn patch(
    tris: &[[u32; 3]],
    x0: &[DVec3],
    x1: &[DVec3],
    p: DVec3,
    k: usize,
) -> (Vec<[u32; 3]>, Vec<DVec3>, Vec<DVec3>) {
    let mut order: Vec<(f64, usize)> = tris
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let c = (x0[t[0] as usize] + x0[t[1] as usize] + x0[t[2] as usize]) / 3.0;
            (c.distance_squared(p), i)
        })
        .collect();
    order.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut map = vec![u32::MAX; x0.len()];
    let (mut y0, mut y1, mut out) = (Vec::new(), Vec::new(), Vec::new());
    for &(_, i) in order.iter().take(k) {
        out.push(tris[i].map(|v| {
            if map[v as usize] == u32::MAX {
                map[v as usize] = y0.len() as u32;
                y0.push(x0[v as usize]);
                y1.push(x1[v as usize]);
            }
            map[v as usize]
        }));
    }
    (out, y0, y1)
}

/// Global ToC and contact count of the scene query vs brute force over every feature pair
/// of the first step: on the whole mesh when it has at most [`BRUTE_FORCE_LIMIT`] triangles,
/// else on the [`PATCH`] triangles nearest to the scene's first contact (or to the first
/// vertex when there is none).
fn agreement(seq: &LoadedFrames) -> Result<(String, serde_json::Value)> {
    let (x0, x1) = (&seq.frames[0], &seq.frames[1]);
    let opts = SceneOptions::default();
    let (t, y0, y1, label) = if seq.triangles.len() <= BRUTE_FORCE_LIMIT {
        (
            seq.triangles.clone(),
            x0.clone(),
            x1.clone(),
            "whole mesh".to_string(),
        )
    } else {
        let full = DeformingScene::new(
            meshes(
                std::slice::from_ref(&seq.triangles),
                std::slice::from_ref(x0),
                std::slice::from_ref(x1),
            )?,
            &opts,
        )?;
        let first = full.query(Mode::Toc);
        let centre = first.contacts.first().map_or(x0[0], |c| match c.feature_a {
            Feature::Vertex(v) | Feature::Edge(v, _) | Feature::Face(v) => x0[v as usize],
        });
        let (t, y0, y1) = patch(&seq.triangles, x0, x1, centre, PATCH);
        (t, y0, y1, format!("patch of {PATCH} tris"))
    };
    let ms = meshes(&[t], &[y0], &[y1])?;
    let scene = DeformingScene::new(ms.clone(), &opts)?;
    let (g, a) = (scene.query(Mode::Toc), scene.query(Mode::All));
    let (bg, ba) = (
        brute_force(&ms, &opts, Mode::Toc)?,
        brute_force(&ms, &opts, Mode::All)?,
    );
    let toc_ok = match (g.toc(), bg.toc()) {
        (None, None) => true,
        (Some(s), Some(b)) => (s - b).abs() <= 1e-9,
        _ => false,
    };
    let count_ok = a.contacts.len() == ba.contacts.len();
    let fmt = |t: Option<f64>| t.map_or("none".into(), |t| format!("{t:.6}"));
    let text = format!(
        "{} ({label}: ToC {} vs {}, contacts {}/{})",
        if toc_ok && count_ok {
            "agree"
        } else {
            "DISAGREE"
        },
        fmt(g.toc()),
        fmt(bg.toc()),
        a.contacts.len(),
        ba.contacts.len()
    );
    let js = json!({
        "agree": toc_ok && count_ok,
        "checked": label,
        "scene_toc": g.toc(),
        "brute_force_toc": bg.toc(),
        "scene_contacts": a.contacts.len(),
        "brute_force_contacts": ba.contacts.len(),
    });
    Ok((text, js))
}

pub(crate) fn run(cfg: &SceneConfig, bar: &indicatif::ProgressBar) -> Result<SceneReport> {
    // real frames from the data folder; else the procedural stand-in: frames of the three
    // procedural LA scenes written as OBJ files and read back through the same pipeline
    let real = match cfg.data.as_deref().filter(|d| d.is_dir()) {
        Some(data) => sequences(data)?,
        None => Vec::new(),
    };
    let (seqs, origin) = if real.is_empty() {
        let dir = crate::target_dir().join("procedural-frames");
        bar.set_message("writing the procedural frames");
        (
            write_procedural_frames(&dir, if cfg.quick { 2 } else { 3 })?,
            format!(
                "PROCEDURAL stand-in (no UNC frames in {}): frames of the procedural cloth-ball, n-body and exploding-dragon scenes around their first contacts, merged into one mesh each, written as OBJ under {} and read back",
                cfg.data
                    .as_deref()
                    .map_or_else(|| "--data".into(), |d| d.display().to_string()),
                dir.display()
            ),
        )
    } else {
        (real, "real UNC frames".to_string())
    };
    bar.set_message("step");
    let reps = if cfg.quick { 1 } else { 3 };
    let mut rows = Vec::new();
    let mut notes = Vec::new();
    let mut summaries = serde_json::Map::new();
    let mut plot_x = Vec::new();
    let mut plot_names = Vec::new();
    let mut plot_global = Vec::new();
    let mut plot_all = Vec::new();
    for (name, files) in &seqs {
        let (seq, dropped, dup) = match load(files) {
            Ok(x) => x,
            Err(e) => {
                notes.push(format!("{name}: skipped ({e:#})"));
                continue;
            }
        };
        let rec = measure(&seq, 0..seq.frames.len() - 1, reps, bar)
            .with_context(|| format!("sequence {name}"))?;
        let mut row = our_row(name, &rec);
        let mut js = summary(&rec);
        let a = rec.averages();
        let (check, v) = agreement(&seq)?;
        js["brute_force"] = v;
        row.push(check);
        rows.push(row);
        let tocs: Vec<String> = rec
            .steps
            .iter()
            .map(|s| s.toc.map_or("none".into(), |t| format!("{t:.6}")))
            .collect();
        notes.push(format!(
            "{name}: {} frames{}{}; global ToC {}; contacts already within ε at t = 0: {}",
            files.len(),
            if dropped > 0 {
                format!(", {dropped} collapsed triangles dropped")
            } else {
                String::new()
            },
            if dup > 0 {
                format!(", {dup} coincident vertices")
            } else {
                String::new()
            },
            tocs.join(", "),
            rec.steps
                .iter()
                .map(|s| s.initial_contacts.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
        plot_x.push(rows.len() as f64);
        plot_names.push(name.clone());
        plot_global.push(a.global_ms);
        plot_all.push(a.all_ms);
        summaries.insert(name.clone(), js);
    }
    let mut cols = columns("sequence");
    cols.push("brute force".into());
    Ok(SceneReport {
        name: "unc-frames".into(),
        paper: "LA Table I, real frames".into(),
        description: format!(
            "{origin} (one mesh each, self-collision on; best of {reps} runs per query). {COLUMN_NOTE}{}",
            notes.iter().map(|n| format!("\n- {n}")).collect::<String>()
        ),
        columns: cols,
        rows,
        headline: String::new(),
        summary: serde_json::Value::Object(summaries),
        plots: vec![Plot {
            file: "unc-frames.svg".into(),
            title: "frame pairs: ms per step".into(),
            x_label: "sequence".into(),
            y_label: "ms per step".into(),
            log_y: true,
            targets: Vec::new(),
            categories: plot_names,
            series: vec![
                Series {
                    name: "LA global ToC".into(),
                    x: plot_x.clone(),
                    y: plot_global,
                    band: None,
                },
                Series {
                    name: "LA all ToCs".into(),
                    x: plot_x,
                    y: plot_all,
                    band: None,
                },
            ],
        }],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_numbers_sort_numerically() {
        let n = |s: &str| frame_number(Path::new(s));
        assert_eq!(n("cloth_ball92.ply"), Some(92));
        assert_eq!(n("balls16_18.ply"), Some(18));
        assert_eq!(n("3036.ply"), Some(3036));
        assert_eq!(n("frame.obj"), None);
    }

    #[test]
    fn patch_keeps_nearest_triangles_reindexed() {
        let x: Vec<DVec3> = (0..6).map(|i| DVec3::new(f64::from(i), 0.0, 0.0)).collect();
        let tris = vec![[0, 1, 2], [3, 4, 5]];
        let (t, y0, _) = patch(&tris, &x, &x, DVec3::new(4.0, 0.0, 0.0), 1);
        assert_eq!(t, vec![[0, 1, 2]]);
        assert_eq!(y0, x[3..].to_vec());
    }

    #[test]
    fn a_plain_folder_of_numbered_obj_frames_runs_and_agrees_with_brute_force() {
        let dir = std::env::temp_dir().join(format!("ccd-unc-frames-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // a static triangle and one falling through it, written as frames 9, 10, 11
        for (k, z) in [(9, 1.0), (10, -1.0), (11, -3.0)] {
            let v = vec![
                DVec3::ZERO,
                DVec3::X,
                DVec3::Z,
                DVec3::new(0.1, z, 0.1),
                DVec3::new(1.1, z, 0.1),
                DVec3::new(0.1, z, 1.1),
            ];
            let m = ccd_geometry::TriMesh::new(v, vec![[0, 1, 2], [3, 4, 5]]).unwrap();
            ccd_geometry::io::write_obj(dir.join(format!("f{k}.obj")), &m).unwrap();
        }
        let seqs = sequences(&dir).unwrap();
        assert_eq!(seqs.len(), 1);
        assert_eq!(seqs[0].1.len(), 3);
        assert!(seqs[0].1[0].ends_with("f9.obj"));
        let (seq, dropped, dup) = load(&seqs[0].1).unwrap();
        assert_eq!((seq.frames.len(), dropped, dup), (3, 0, 0));
        let (text, js) = agreement(&seq).unwrap();
        assert!(text.starts_with("agree"), "{text}");
        assert!(js["scene_toc"].as_f64().unwrap() <= 0.5);
        let cfg = SceneConfig {
            quick: true,
            data: Some(dir.clone()),
            robots: crate::robot_data::RobotSources::none(),
        };
        let report = run(&cfg, &indicatif::ProgressBar::hidden()).unwrap();
        std::fs::remove_dir_all(&dir).ok();
        assert_eq!(report.rows.len(), 1);
        assert_eq!(report.rows[0][2], "2");
    }
}
