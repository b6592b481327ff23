//! The 15-link mannequin of CATCH Fig. 8 on a CMU BVH skeleton: link mapping (31 BVH
//! joints → pelvis, torso, head, upper/lower arms, hands, thighs, shins, feet), procedural
//! non-convex link meshes (about 20K triangles), per-frame poses, 16 chessmen on the
//! walking path, key-framed hand-to-foot poses, and a procedural gait clip standing in for
//! the CMU files when they are absent.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result, bail};
use ccd_geometry::TriMesh;
use ccd_kinematics::mocap::MocapClip;
use ccd_kinematics::{ArticulatedModel, Joint, LinkSpec, Pose};
use glam::{DAffine3, DQuat, DVec3};

use super::meshes::{Chessman, MeshBuilder, along, chessman, limb};
use crate::rng::SceneRng;

/// `(link name, BVH joint, parent link index)`, parents first.
const LINKS: [(&str, &str, Option<usize>); 15] = [
    ("pelvis", "Hips", None),
    ("torso", "Chest", Some(0)),
    ("head", "Head", Some(1)),
    ("l_upper_arm", "LeftShoulder", Some(1)),
    ("l_lower_arm", "LeftElbow", Some(3)),
    ("l_hand", "LeftWrist", Some(4)),
    ("r_upper_arm", "RightShoulder", Some(1)),
    ("r_lower_arm", "RightElbow", Some(6)),
    ("r_hand", "RightWrist", Some(7)),
    ("l_thigh", "LeftHip", Some(0)),
    ("l_shin", "LeftKnee", Some(9)),
    ("l_foot", "LeftAnkle", Some(10)),
    ("r_thigh", "RightHip", Some(0)),
    ("r_shin", "RightKnee", Some(12)),
    ("r_foot", "RightAnkle", Some(13)),
];

/// Index of the left hand and left foot links (for the key-framed reach).
const L_HAND: usize = 5;
const L_FOOT: usize = 11;

/// A clip mapped onto the 15-link mannequin.
pub(crate) struct Mannequin {
    /// The 15-link model (root floating, spherical joints).
    pub(crate) model: ArticulatedModel,
    /// One mesh per link, in link frames.
    pub(crate) meshes: Vec<TriMesh>,
    /// Poses per frame.
    pub(crate) frames: Vec<Pose>,
    /// Where the clip came from (file name or "procedural gait").
    pub(crate) source: String,
    /// Lowest foot point over the clip (the floor height, y up).
    pub(crate) floor: f64,
    /// `to_model[k]`: the model's index of link `LINKS[k]` (the model stores links
    /// parents-first in its own order).
    to_model: Vec<usize>,
}

/// Reorders items listed in `LINKS` order into the model's link order.
fn permute<T>(items: Vec<T>, to_model: &[usize]) -> Vec<T> {
    let mut slots: Vec<Option<T>> = std::iter::repeat_with(|| None).take(items.len()).collect();
    for (k, item) in items.into_iter().enumerate() {
        slots[to_model[k]] = Some(item);
    }
    slots.into_iter().flatten().collect()
}

/// Which motion a clip shows (selects the file and the procedural stand-in).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Clip {
    /// CMU 131_01: start, walk, stop.
    Walk,
    /// CMU 131_03: start, hop, stop.
    Hop,
}

impl Clip {
    fn file(self) -> &'static str {
        match self {
            Clip::Walk => "scaled_131_01.bvh",
            Clip::Hop => "scaled_131_03.bvh",
        }
    }
}

/// Reads the clip from `data/mocap/cmu-131/` when present, else generates the procedural
/// stand-in (same joint names, y up, metres, 120 frames per second).
pub(crate) fn load_clip(data: Option<&Path>, clip: Clip) -> Result<(MocapClip, String)> {
    if let Some(path) = data
        .map(|d| d.join("mocap/cmu-131").join(clip.file()))
        .filter(|p| p.is_file())
    {
        let c =
            MocapClip::from_file(&path).with_context(|| format!("reading {}", path.display()))?;
        return Ok((c, format!("CMU {}", clip.file())));
    }
    let text = procedural_bvh(clip, 600);
    Ok((
        MocapClip::parse(&text)?,
        "procedural gait (CMU clip absent)".into(),
    ))
}

fn rest_positions(clip: &MocapClip) -> Vec<DVec3> {
    let model = clip.model();
    let mut p: Vec<DVec3> = Vec::with_capacity(model.len());
    for (j, l) in clip.joints().iter().zip(model.links()) {
        let base = l.parent.map_or(DVec3::ZERO, |q| p[q.index()]);
        p.push(base + j.offset);
    }
    p
}

/// Maps a clip onto the mannequin: link meshes from the rest skeleton, one pose per frame.
pub(crate) fn mannequin(clip: &MocapClip, source: String) -> Result<Mannequin> {
    let cm = clip.model();
    let ids: Vec<usize> = LINKS
        .iter()
        .map(|(_, j, _)| {
            cm.link_id(j)
                .map(|l| l.index())
                .with_context(|| format!("BVH skeleton has no joint {j:?}"))
        })
        .collect::<Result<_>>()?;
    let rest = rest_positions(clip);
    let at = |name: &str| cm.link_id(name).map(|l| rest[l.index()]);
    let p = |k: usize| rest[ids[k]];
    let specs = LINKS
        .iter()
        .enumerate()
        .map(|(k, &(name, _, parent))| LinkSpec {
            name: name.into(),
            parent: parent.map(|q| LINKS[q].0.to_string()),
            joint: if parent.is_none() {
                Joint::Floating
            } else {
                Joint::Spherical
            },
            offset: DAffine3::from_translation(parent.map_or(DVec3::ZERO, |q| p(k) - p(q))),
        })
        .collect();
    let model = ArticulatedModel::new(specs)?;
    let to_model: Vec<usize> = LINKS
        .iter()
        .map(|(name, _, _)| {
            model
                .link_id(name)
                .map(|l| l.index())
                .context("mannequin link")
        })
        .collect::<Result<_>>()?;
    // link meshes in the rest pose (all BVH frames aligned with the world at rest)
    let shoulder_y = p(3).y.max(p(6).y);
    let mut meshes = Vec::with_capacity(15);
    for k in 0..15 {
        let mut b = MeshBuilder::new();
        let o = p(k);
        match k {
            0 => {
                // pelvis: a lobed ellipsoid across the hips
                let half = 0.5 * (p(9).x - p(12).x).abs() + 0.02;
                let xf = along(DVec3::X, DVec3::new(0.0, 0.5 * (p(9).y - o.y) + 0.01, 0.0));
                let prof: Vec<(f64, f64)> = (0..30)
                    .map(|i| {
                        let u = i as f64 / 29.0;
                        let s = (1.0 - (2.0 * u - 1.0).powi(4)).max(0.0).sqrt();
                        (
                            -half + 2.0 * half * u,
                            0.07 * s.max(0.08)
                                * (1.0 - 0.15 * (std::f64::consts::TAU * u).sin().powi(2)),
                        )
                    })
                    .collect();
                b.revolve(xf, &prof, 26, 2, 0.15);
            }
            1 => {
                // torso: from above the hips to the shoulders, wider than deep, a waist
                let top = shoulder_y - o.y + 0.03;
                let bottom = p(0).y - o.y + 0.04;
                let prof: Vec<(f64, f64)> = (0..40)
                    .map(|i| {
                        let u = i as f64 / 39.0;
                        let waist = 1.0 - 0.12 * (-((u - 0.3) / 0.15).powi(2)).exp();
                        let round = (1.0 - (2.0 * u - 1.0).powi(10)).max(0.02).sqrt();
                        (bottom + (top - bottom) * u, 0.09 * waist * round)
                    })
                    .collect();
                b.revolve(along(DVec3::Y, DVec3::ZERO), &prof, 32, 2, 0.2);
            }
            2 => {
                // head with neck: from the neck base to the crown
                let prof: Vec<(f64, f64)> = (0..30)
                    .map(|i| {
                        let u = i as f64 / 29.0;
                        let neck: f64 = 0.045;
                        let skull = 0.085 * (1.0 - ((u - 0.62) / 0.38).powi(2)).max(0.0).sqrt();
                        (
                            -0.07 + 0.27 * u,
                            neck.max(skull).max(0.01) * if u > 0.97 { 0.3 } else { 1.0 },
                        )
                    })
                    .collect();
                b.revolve(along(DVec3::Y, DVec3::ZERO), &prof, 26, 1, 0.1);
            }
            3 | 6 => limb(&mut b, p(k + 1) - o, 0.04, 0.032, 26, 24),
            4 | 7 => limb(&mut b, p(k + 1) - o, 0.03, 0.024, 26, 24),
            5 | 8 => {
                let dir = (p(k) - p(k - 1)).normalize_or(DVec3::NEG_Y);
                limb(&mut b, dir * 0.09, 0.022, 0.02, 26, 24);
            }
            9 | 12 => limb(&mut b, p(k + 1) - o, 0.048, 0.04, 26, 24),
            10 | 13 => limb(&mut b, p(k + 1) - o, 0.04, 0.03, 26, 24),
            _ => {
                // foot: to the toe joint and beyond
                let toe = if k == 11 {
                    at("LeftToe")
                } else {
                    at("RightToe")
                };
                let end = toe.map_or(DVec3::new(0.0, -0.04, 0.17), |t| (t - o) * 1.4);
                limb(&mut b, end, 0.038, 0.03, 26, 24);
            }
        }
        meshes.push(b.build()?);
    }
    let meshes = permute(meshes, &to_model);
    let frames = (0..clip.frame_count())
        .map(|f| map_pose(clip, &ids, &to_model, f, &model))
        .collect::<Result<Vec<_>>>()?;
    let mut floor = f64::INFINITY;
    for pose in &frames {
        let w = pose.world_transforms(&model)?;
        floor = floor
            .min(w[to_model[L_FOOT]].translation.y)
            .min(w[to_model[14]].translation.y);
    }
    let floor = floor - 0.05;
    Ok(Mannequin {
        model,
        meshes,
        frames,
        source,
        floor,
        to_model,
    })
}

fn map_pose(
    clip: &MocapClip,
    ids: &[usize],
    to_model: &[usize],
    frame: usize,
    model: &ArticulatedModel,
) -> Result<Pose> {
    let w = clip
        .pose(frame)
        .context("frame out of range")?
        .world_transforms(clip.model())?;
    let rel = LINKS
        .iter()
        .enumerate()
        .map(|(k, &(_, _, parent))| match parent {
            None => w[ids[k]],
            Some(q) => w[ids[q]].inverse() * w[ids[k]],
        })
        .map(|a| {
            // re-orthonormalise (the product of many Euler rotations drifts by ~1e-16)
            let (_, r, t) = a.to_scale_rotation_translation();
            DAffine3::from_rotation_translation(r.normalize(), t)
        })
        .collect();
    Ok(Pose::new(model, permute(rel, to_model))?)
}

impl Mannequin {
    /// Triangles over all links.
    pub(crate) fn triangles(&self) -> usize {
        self.meshes.iter().map(TriMesh::triangle_count).sum()
    }

    /// Appends key-framed poses after the last frame: the torso bends, the left thigh
    /// lifts and the left arm reaches until the left hand meets the left foot, then back
    /// (`frames` poses each way).
    pub(crate) fn add_hand_to_foot(&mut self, frames: usize) -> Result<()> {
        let Some(start) = self.frames.last().cloned() else {
            bail!("empty clip");
        };
        let ix = self.to_model.clone();
        let bend = |pose: &Pose, a: [f64; 4]| -> Pose {
            let mut rel = pose.relative.clone();
            let (torso, thigh, shin, upper) = (ix[1], ix[9], ix[10], ix[3]);
            let rot = |m: DAffine3, q: DQuat| m * DAffine3::from_quat(q);
            rel[torso] = rot(rel[torso], DQuat::from_rotation_x(a[0]));
            rel[thigh] = rot(rel[thigh], DQuat::from_rotation_x(a[1]));
            rel[shin] = rot(rel[shin], DQuat::from_rotation_x(a[2]));
            rel[upper] = rot(rel[upper], DQuat::from_rotation_x(a[3]));
            Pose { relative: rel }
        };
        // coarse search for the pose whose hand tip is closest to the foot
        let model = &self.model;
        let (hand, foot) = (ix[L_HAND], ix[L_FOOT]);
        let hand_tip = self.meshes[hand].aabb().center();
        let foot_mid = self.meshes[foot].aabb().center();
        let gap = |a: [f64; 4]| -> Result<f64> {
            let w = bend(&start, a).world_transforms(model)?;
            Ok(w[hand]
                .transform_point3(hand_tip)
                .distance(w[foot].transform_point3(foot_mid)))
        };
        let grid: Vec<f64> = (0..13).map(|i| -1.5 + 0.25 * f64::from(i)).collect();
        let mut best = ([0.0; 4], f64::INFINITY);
        for &a0 in &grid {
            for &a1 in &grid {
                for &a2 in &grid {
                    for &a3 in &grid {
                        let a = [a0, a1, a2, a3];
                        let g = gap(a)?;
                        if g < best.1 {
                            best = (a, g);
                        }
                    }
                }
            }
        }
        let target = best.0;
        let mut out = Vec::with_capacity(2 * frames);
        for i in 1..=frames {
            let s = i as f64 / frames as f64;
            let e = 0.5 - 0.5 * (std::f64::consts::PI * s).cos();
            out.push(bend(&start, target.map(|x| x * e)));
        }
        for i in (0..frames).rev() {
            let s = i as f64 / frames as f64;
            let e = 0.5 - 0.5 * (std::f64::consts::PI * s).cos();
            out.push(bend(&start, target.map(|x| x * e)));
        }
        for p in out {
            self.frames.push(Pose::new(&self.model, p.relative)?);
        }
        Ok(())
    }

    /// The root (pelvis) path on the floor plane over the clip.
    fn path(&self) -> Vec<DVec3> {
        self.frames
            .iter()
            .map(|p| {
                let t = p.relative[0].translation;
                DVec3::new(t.x, self.floor, t.z)
            })
            .collect()
    }
}

/// 16 chessmen (about `per_piece` triangles each) standing on the floor beside the
/// mannequin's path, as one environment mesh. Each piece stands at a point of the pelvis
/// track, on alternating sides of the walking direction there, with its widest radius
/// 0.2–0.55 m clear of the track: feet and swinging hands pass centimetres from the near
/// pieces (the CA work of near misses and the occasional brush), while the legs do not walk
/// through solid pieces. (An earlier placement offset the pieces across the clip's overall
/// direction, which the curved CMU walk does not follow: the left leg stood inside a piece in
/// 731 of 994 steps.)
pub(crate) fn chessmen(m: &Mannequin, seed: u64, per_piece: usize) -> Result<TriMesh> {
    let path = m.path();
    let mut rng = SceneRng::new(seed);
    let segments = 48usize;
    let rings = (per_piece / (2 * segments)).max(8);
    let kinds = [
        Chessman::Pawn,
        Chessman::Rook,
        Chessman::Knight,
        Chessman::Bishop,
        Chessman::Queen,
        Chessman::King,
    ];
    let mut b = MeshBuilder::new();
    let last = path.len() - 1;
    for i in 0..16 {
        let s = (i as f64 + 0.5) / 16.0;
        let idx = (last as f64 * s) as usize;
        // the walking direction here: the track over ±0.25 s of frames around the point
        let (lo, hi) = (idx.saturating_sub(30), (idx + 30).min(last));
        let along = (path[hi] - path[lo]).normalize_or(DVec3::Z);
        let side = along.cross(DVec3::Y).normalize_or(DVec3::X);
        let sign = if i % 2 == 0 { 1.0 } else { -1.0 };
        let h = rng.uniform(0.45, 0.85);
        let kind = kinds[i % kinds.len()];
        // widest profile radius (the foot, 0.28 h × 0.9) plus the knight's lobe
        let radius = 0.28
            * 0.9
            * h
            * if matches!(kind, Chessman::Knight) {
                1.25
            } else {
                1.0
            };
        let lateral = sign * (radius + rng.uniform(0.2, 0.55));
        let ahead = rng.uniform(-0.2, 0.2);
        let piece = chessman(kind, h, rings, segments)?;
        let pos = path[idx] + side * lateral + along * ahead;
        let spin = DQuat::from_rotation_y(rng.uniform(0.0, std::f64::consts::TAU));
        b.append(&piece, DAffine3::from_rotation_translation(spin, pos));
    }
    b.build()
}

/// A BVH clip with the joint names the mapping needs (y up, z forward, metres, 120 Hz): a
/// sinusoidal walk along `+z` or a hop in place.
pub(crate) fn procedural_bvh(clip: Clip, frames: usize) -> String {
    // (name, parent, offset); channel order Zrotation Xrotation Yrotation
    let joints: [(&str, Option<usize>, [f64; 3]); 17] = [
        ("Hips", None, [0.0, 0.0, 0.0]),
        ("Chest", Some(0), [0.0, 0.11, 0.0]),
        ("Head", Some(1), [0.0, 0.29, 0.0]),
        ("LeftShoulder", Some(1), [0.17, 0.19, 0.0]),
        ("LeftElbow", Some(3), [0.0, -0.25, 0.0]),
        ("LeftWrist", Some(4), [0.0, -0.19, 0.0]),
        ("RightShoulder", Some(1), [-0.17, 0.19, 0.0]),
        ("RightElbow", Some(6), [0.0, -0.25, 0.0]),
        ("RightWrist", Some(7), [0.0, -0.19, 0.0]),
        ("LeftHip", Some(0), [0.09, -0.09, 0.0]),
        ("LeftKnee", Some(9), [0.0, -0.41, 0.0]),
        ("LeftAnkle", Some(10), [0.0, -0.39, 0.0]),
        ("LeftToe", Some(11), [0.0, -0.03, 0.12]),
        ("RightHip", Some(0), [-0.09, -0.09, 0.0]),
        ("RightKnee", Some(13), [0.0, -0.41, 0.0]),
        ("RightAnkle", Some(14), [0.0, -0.39, 0.0]),
        ("RightToe", Some(15), [0.0, -0.03, 0.12]),
    ];
    let mut s = String::from("HIERARCHY\n");
    let mut open: Vec<usize> = Vec::new();
    for (i, (name, parent, off)) in joints.iter().enumerate() {
        while let Some(&top) = open.last() {
            if Some(top) == *parent {
                break;
            }
            open.pop();
            let _ = writeln!(s, "}}");
        }
        let kw = if parent.is_none() { "ROOT" } else { "JOINT" };
        let ch = if parent.is_none() {
            "CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation"
        } else {
            "CHANNELS 3 Zrotation Xrotation Yrotation"
        };
        let _ = writeln!(
            s,
            "{kw} {name}\n{{\nOFFSET {} {} {}\n{ch}",
            off[0], off[1], off[2]
        );
        if !joints.iter().any(|j| j.1 == Some(i)) {
            let _ = writeln!(s, "End Site\n{{\nOFFSET 0 -0.05 0\n}}");
        }
        open.push(i);
    }
    for _ in open {
        let _ = writeln!(s, "}}");
    }
    let _ = writeln!(s, "MOTION\nFrames: {frames}\nFrame Time: 0.008333");
    for f in 0..frames {
        let t = f as f64 / 120.0;
        let ph = std::f64::consts::TAU * 0.9 * t;
        let mut row = Vec::with_capacity(6 + 3 * 16);
        let (x, y, z) = match clip {
            Clip::Walk => (0.0, 0.9 + 0.02 * (2.0 * ph).cos(), 1.2 * t),
            Clip::Hop => (0.0, 0.9 + 0.12 * (2.0 * ph).sin().abs(), 0.0),
        };
        row.extend([x, y, z, 0.0, 0.0, 0.0]);
        for (name, _, _) in &joints[1..] {
            let (sw, knee, arm, elbow) = match clip {
                Clip::Walk => (
                    30.0 * ph.sin(),
                    30.0 * (1.0 + ph.sin()),
                    25.0 * ph.sin(),
                    20.0,
                ),
                Clip::Hop => (
                    15.0 * (2.0 * ph).sin(),
                    25.0 * (1.0 + (2.0 * ph).sin()),
                    60.0 * (2.0 * ph).sin().abs(),
                    40.0,
                ),
            };
            let x_rot = match *name {
                "LeftHip" => -sw,
                "RightHip" => sw,
                "LeftKnee" | "RightKnee" => knee,
                "LeftShoulder" => arm,
                "RightShoulder" => -arm,
                "LeftElbow" | "RightElbow" => -elbow,
                _ => 0.0,
            };
            row.extend([0.0, x_rot, 0.0]);
        }
        let line: Vec<String> = row.iter().map(|v| format!("{v:.4}")).collect();
        let _ = writeln!(s, "{}", line.join(" "));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn procedural_clip_maps_onto_fifteen_links_with_about_twenty_thousand_triangles() {
        let (clip, src) = load_clip(None, Clip::Walk).unwrap();
        assert!(src.contains("procedural"));
        let m = mannequin(&clip, src).unwrap();
        assert_eq!((m.model.len(), m.meshes.len()), (15, 15));
        assert!(
            (18_000..24_000).contains(&m.triangles()),
            "{}",
            m.triangles()
        );
        assert_eq!(m.frames.len(), clip.frame_count());
        // the pelvis moves forward along +z
        let z = |f: usize| m.frames[f].relative[0].translation.z;
        assert!(z(clip.frame_count() - 1) > z(0) + 1.0);
        let env = chessmen(&m, 1, 6250).unwrap();
        assert!(
            (90_000..110_000).contains(&env.triangle_count()),
            "{}",
            env.triangle_count()
        );
    }

    #[test]
    fn hand_to_foot_keyframes_bring_the_hand_near_the_foot() {
        let (clip, src) = load_clip(None, Clip::Hop).unwrap();
        let mut m = mannequin(&clip, src).unwrap();
        let n = m.frames.len();
        m.add_hand_to_foot(20).unwrap();
        assert_eq!(m.frames.len(), n + 40);
        let w = m.frames[n + 19].world_transforms(&m.model).unwrap();
        let d = w[m.to_model[L_HAND]]
            .translation
            .distance(w[m.to_model[L_FOOT]].translation);
        assert!(d < 0.3, "hand–foot {d}");
    }
}
