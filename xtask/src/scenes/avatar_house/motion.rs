//! The motions of `avatar-house`: the procedural walk and hop (when the CMU clips are
//! absent), the clips resampled to 100 Hz and placed in the house, with their arm swings.

use anyhow::{Context, Result, bail};
use ccd_avatar_sv::Avatar;
use ccd_kinematics::Pose;
use ccd_kinematics::mocap::MocapClip;
use glam::{DAffine3, DQuat, DVec3};

/// Resampled rate (Hz).
const RATE: f64 = 100.0;
/// Seconds between swings, swing duration, peak extra angle.
const SWING_PERIOD: f64 = 0.8;
const SWING_DURATION: f64 = 0.35;
const SWING_ANGLE_DEG: f64 = 100.0;

/// A procedural clip (BVH text) on a CMU-like skeleton: a walk (`hop = false`) or a hop.
pub(super) fn procedural_clip(hop: bool) -> Result<MocapClip> {
    let mut t = String::from(
        "HIERARCHY\nROOT Hips\n{\nOFFSET 0 0 0\nCHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation\n",
    );
    let j = |name: &str, off: [f64; 3], inner: &str| {
        format!(
            "JOINT {name}\n{{\nOFFSET {} {} {}\nCHANNELS 3 Zrotation Yrotation Xrotation\n{inner}}}\n",
            off[0], off[1], off[2]
        )
    };
    let end = |off: [f64; 3]| {
        format!(
            "End Site\n{{\nOFFSET {} {} {}\n}}\n",
            off[0], off[1], off[2]
        )
    };
    for (side, s) in [("Left", 1.0), ("Right", -1.0)] {
        t += &j(
            &format!("{side}Hip"),
            [0.1 * s, 0.0, 0.0],
            &j(
                &format!("{side}Knee"),
                [0.0, -0.45, 0.0],
                &j(
                    &format!("{side}Ankle"),
                    [0.0, -0.42, 0.0],
                    &end([0.0, -0.05, 0.12]),
                ),
            ),
        );
    }
    let mut arms = String::new();
    for (side, s) in [("Left", 1.0), ("Right", -1.0)] {
        arms += &j(
            &format!("{side}Shoulder"),
            [0.18 * s, 0.15, 0.0],
            &j(
                &format!("{side}Elbow"),
                [0.0, -0.28, 0.0],
                &j(
                    &format!("{side}Wrist"),
                    [0.0, -0.26, 0.0],
                    &end([0.0, -0.1, 0.0]),
                ),
            ),
        );
    }
    let neck = j(
        "Neck",
        [0.0, 0.2, 0.0],
        &j("Head", [0.0, 0.1, 0.0], &end([0.0, 0.15, 0.0])),
    );
    t += &j(
        "lowerback",
        [0.0, 0.1, 0.0],
        &j("Chest", [0.0, 0.25, 0.0], &(neck + &arms)),
    );
    t += "}\nMOTION\n";
    let frames = 960;
    t += &format!("Frames: {frames}\nFrame Time: 0.0083333\n");
    let w = std::f64::consts::TAU * 0.9;
    for f in 0..frames {
        let s = f as f64 / 120.0;
        let ph = (w * s).sin();
        let (z, yroot, knee_extra) = if hop {
            let h = (std::f64::consts::TAU * 1.2 * s).sin().abs();
            (0.8 * s, 0.9 + 0.15 * h, 30.0 * (1.0 - h))
        } else {
            (1.2 * s, 0.93 + 0.02 * (2.0 * w * s).cos(), 0.0)
        };
        let mut row = vec![0.0, yroot, z - 4.0, 0.0, 0.0, 0.0];
        for side in [1.0, -1.0] {
            let p = ph * side;
            row.extend([0.0, 0.0, -25.0 * p]);
            row.extend([0.0, 0.0, 20.0 * (1.0 + p) + knee_extra]);
            row.extend([0.0, 0.0, 0.0]);
        }
        row.extend([0.0, 0.0, 0.0, 0.0, 0.0, 3.0 * ph]);
        row.extend([0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
        for side in [1.0, -1.0] {
            row.extend([0.0, 0.0, 20.0 * ph * side]);
            row.extend([0.0, 0.0, -15.0]);
            row.extend([0.0, 0.0, 0.0]);
        }
        t += &row
            .iter()
            .map(|v| format!("{v:.5}"))
            .collect::<Vec<_>>()
            .join(" ");
        t.push('\n');
    }
    MocapClip::parse(&t).context("procedural clip")
}

/// Interpolates two poses per joint (translation lerp, rotation slerp).
fn lerp_pose(a: &Pose, b: &Pose, s: f64) -> Pose {
    let relative = a
        .relative
        .iter()
        .zip(&b.relative)
        .map(|(x, y)| {
            let qa = DQuat::from_mat3(&x.matrix3).normalize();
            let qb = DQuat::from_mat3(&y.matrix3).normalize();
            DAffine3::from_rotation_translation(
                qa.slerp(qb, s).normalize(),
                x.translation.lerp(y.translation, s),
            )
        })
        .collect();
    Pose { relative }
}

/// One arm swing: its frames and where the hips were at its mid-time.
#[derive(Clone, Copy, Debug)]
pub(super) struct Swing {
    /// First and last resampled frame of the swing.
    pub(super) frames: (usize, usize),
    /// Hip (root) position at the swing's mid-time (world, before lowering to the floor).
    pub(super) hips: DVec3,
    /// Horizontal unit direction from the hips to the swinging shoulder.
    pub(super) lateral: DVec3,
}

/// One clip placed in the house: resampled poses with arm swings.
pub(super) struct Placed {
    pub(super) name: &'static str,
    pub(super) poses: Vec<Pose>,
    pub(super) swings: Vec<Swing>,
}

/// Resamples `clip` to 100 Hz (at most `max_frames`), moves it so that its root path's
/// horizontal centre is at `centre` and its lowest capsule point is `floor + 0.005`, and adds
/// the arm swings.
pub(super) fn place(
    name: &'static str,
    clip: &MocapClip,
    avatar: &Avatar,
    centre: DVec3,
    floor: f64,
    max_frames: usize,
) -> Result<Placed> {
    let n_src = clip.frame_count();
    let dt = clip.frame_time();
    if n_src < 2 || !dt.is_finite() || dt <= 0.0 {
        bail!("{name}: clip too short");
    }
    let duration = (n_src - 1) as f64 * dt;
    let n = ((duration * RATE) as usize + 1).min(max_frames);
    let src: Vec<Pose> = clip.poses().collect();
    let mut poses: Vec<Pose> = (0..n)
        .map(|k| {
            let f = k as f64 / RATE / dt;
            let i = (f.floor() as usize).min(n_src - 2);
            lerp_pose(&src[i], &src[i + 1], (f - i as f64).min(1.0))
        })
        .collect();
    // placement: horizontal centre of the root path, lowest capsule point
    let (mut lo, mut hi) = (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY));
    let mut lowest = f64::INFINITY;
    for p in &poses {
        let r = p.relative[0].translation;
        lo = lo.min(r);
        hi = hi.max(r);
    }
    let shift0 = DVec3::new(
        centre.x - 0.5 * (lo.x + hi.x),
        0.0,
        centre.z - 0.5 * (lo.z + hi.z),
    );
    for p in &mut poses {
        p.relative[0].translation += shift0;
    }
    // swings
    let model = avatar.model();
    let shoulders = ["LeftShoulder", "RightShoulder"].map(|s| model.link_id(s));
    let root = model.root();
    let mut swings = Vec::new();
    let mut k = 0;
    loop {
        let start = 0.4 + SWING_PERIOD * k as f64;
        let first = (start * RATE) as usize;
        let len = (SWING_DURATION * RATE) as usize;
        if first + len >= n {
            break;
        }
        if let Some(sh) = shoulders[k % 2] {
            let mid = &poses[first + len / 2];
            let world = mid.world_transforms(model)?;
            let rp = world[root.index()].translation;
            let sp = world[sh.index()].translation;
            let lat = DVec3::new(sp.x - rp.x, 0.0, sp.z - rp.z);
            if lat.length() > 1e-3 {
                let lat = lat.normalize();
                let axis = lat.cross(DVec3::Y);
                swings.push(Swing {
                    frames: (first, first + len),
                    hips: rp,
                    lateral: lat,
                });
                for i in 0..=len {
                    let p = &mut poses[first + i];
                    let w = p.world_transforms(model)?;
                    let local = w[sh.index()].matrix3.transpose() * axis;
                    let a = SWING_ANGLE_DEG.to_radians()
                        * (std::f64::consts::PI * i as f64 / len as f64).sin();
                    p.relative[sh.index()] =
                        p.relative[sh.index()] * DAffine3::from_axis_angle(local.normalize(), a);
                }
            }
        }
        k += 1;
    }
    for p in &poses {
        for (c, seg) in avatar.capsules().iter().zip(avatar.world_segments(p)?) {
            lowest = lowest.min(seg.a.y.min(seg.b.y) - c.radius);
        }
    }
    let dy = floor + 0.005 - lowest;
    for p in &mut poses {
        p.relative[0].translation.y += dy;
    }
    Ok(Placed {
        name,
        poses,
        swings,
    })
}
