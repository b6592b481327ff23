//! The measured runs of `avatar-house`: the Table 1 rows (every step of the clips through
//! the house, timed for both methods) and the gap sweep (the swings replayed against their
//! objects alone), every checked step compared with the sampled reference.

use anyhow::{Context, Result};
use ccd_avatar_sv::{Avatar, AvatarStepOptions, AvatarStepReport, Environment, step};
use ccd_kinematics::{ArticulatedMotion, Pose};

use super::house::MeshBuilder;
use super::motion::Placed;
use super::placement::{ClipSegments, PlacedObject, lateral_shift};
use super::reference::sampled_contact;

/// Gap statistics from the swing windows replayed against each object alone.
#[derive(Default)]
pub(super) struct GapSweep {
    pub(super) steps: usize,
    pub(super) contacts: usize,
    /// Exact TOC − t_c per new contact, by stride (1, 5).
    pub(super) gaps: [Vec<f64>; 2],
    pub(super) checked: usize,
    pub(super) ref_contacts: usize,
    pub(super) missed_sv: usize,
    pub(super) missed_exact: usize,
}

/// Penetration depths of the gap sweep (m): the swinging hand reaches this far into the
/// object.
pub(super) const SWEEP_DEPTHS: [f64; 5] = [0.002, 0.005, 0.01, 0.02, 0.04];

/// Replays the frames of every swing (two frames either side) at 100 Hz and every 5th frame
/// against its object alone, moved sideways so that the swing reaches each of
/// `depths` into it: many more contacts than the house walk has, for the `t_c` gap. Every
/// step is checked against the sampled reference.
#[allow(clippy::too_many_arguments)]
pub(super) fn gap_sweep(
    avatar: &Avatar,
    clip: &Placed,
    segs: &ClipSegments,
    objects: &[PlacedObject],
    depths: &[f64],
    samples: usize,
    acc: &mut GapSweep,
    bar: &indicatif::ProgressBar,
) -> Result<()> {
    let opts = AvatarStepOptions::default();
    for o in objects {
        let (f0, f1) = o.swing.frames;
        let (a, b) = (f0.saturating_sub(2), (f1 + 2).min(clip.poses.len() - 1));
        for &depth in depths {
            let Some(s) = lateral_shift(segs, &o.tree, o.swing.lateral, f0..f1 + 1, -depth) else {
                continue;
            };
            let mut m = MeshBuilder {
                v: o.base.v.clone(),
                f: o.base.f.clone(),
            };
            m.translate(o.swing.lateral * s);
            let env = Environment::new(m.build()?)?;
            for (si, stride) in [1usize, 5].into_iter().enumerate() {
                let poses: Vec<&Pose> = clip.poses[a..=b].iter().step_by(stride).collect();
                for w in poses.windows(2) {
                    let r = step(avatar, &env, w[0], w[1], &opts)?;
                    let sv = r.swept.as_ref().context("SV answer")?;
                    let ex = r.exact.as_ref().context("exact answer")?;
                    acc.steps += 1;
                    if !ex.starts_in_contact
                        && let Some(e) = ex.contact
                    {
                        acc.contacts += 1;
                        if sv.collision.is_some() {
                            acc.gaps[si].push(e.toc - sv.t_c);
                        }
                    }
                    acc.checked += 1;
                    let motion = ArticulatedMotion::between(avatar.model(), w[0], w[1])?;
                    if let Some(t) = sampled_contact(avatar, &env, &motion, samples) {
                        acc.ref_contacts += 1;
                        if ex.contact.is_none_or(|e| e.toc > t + 1e-9) {
                            acc.missed_exact += 1;
                        }
                        if sv.collision.is_none() || sv.t_c > t + 1e-9 {
                            acc.missed_sv += 1;
                        }
                    }
                }
            }
            bar.tick();
        }
    }
    Ok(())
}

/// Aggregates of one row.
#[derive(Default)]
pub(super) struct Acc {
    pub(super) steps: usize,
    pub(super) table: [f64; 7],
    pub(super) exact_us: f64,
    pub(super) sv_total: Vec<f64>,
    pub(super) exact_total: Vec<f64>,
    /// Steps whose exact answer is a contact at t = 0 (the capsules touch at the step's
    /// first pose: the contact is not new).
    pub(super) start_contacts: usize,
    /// Steps with a new contact (exact TOC > 0) / SV collisions at t_c > 0.
    pub(super) exact_contacts: usize,
    pub(super) sv_contacts: usize,
    /// Exact TOC − t_c over steps with a new exact contact.
    pub(super) gaps: Vec<f64>,
    /// (exact TOC, or 1 without contact) − t_c over steps not starting in contact where the SV
    /// method stops early (t_c < 1): the motion the paper's method gives up.
    pub(super) lost: Vec<f64>,
    pub(super) checked: usize,
    pub(super) ref_contacts: usize,
    pub(super) missed_sv: usize,
    pub(super) missed_exact: usize,
}

#[allow(clippy::too_many_arguments)]
pub(super) fn run_row(
    avatar: &Avatar,
    env: &Environment,
    clips: &[Placed],
    stride: usize,
    samples: usize,
    check_every: usize,
    reps: usize,
    bar: &indicatif::ProgressBar,
) -> Result<Acc> {
    let opts = AvatarStepOptions::default();
    let mut acc = Acc::default();
    for clip in clips {
        let poses: Vec<&Pose> = clip.poses.iter().step_by(stride).collect();
        for (k, w) in poses.windows(2).enumerate() {
            // each timing is the median of `reps` runs of the step (a shared machine)
            let mut runs: Vec<[f64; 8]> = Vec::with_capacity(reps);
            let mut report = None;
            for _ in 0..reps {
                let r: AvatarStepReport = step(avatar, env, w[0], w[1], &opts)
                    .with_context(|| format!("{} step {k}", clip.name))?;
                let s = &r.stats;
                runs.push([
                    s.position_update_us,
                    s.motion_parameters_us,
                    s.swept_aabbs_us,
                    s.aabb_culling_us,
                    s.sv_computation_us,
                    s.interference_us,
                    s.backtracking_us,
                    s.exact_us,
                ]);
                report = Some(r);
            }
            let r = report.context("no repeat")?;
            let med: Vec<f64> = (0..8)
                .map(|i| quantile(&runs.iter().map(|x| x[i]).collect::<Vec<_>>(), 0.5))
                .collect();
            let row = &med[..7];
            let shared = row[0] + row[1] + row[2] + row[3];
            for (a, v) in acc.table.iter_mut().zip(row) {
                *a += v;
            }
            acc.exact_us += med[7];
            acc.sv_total.push(shared + row[4] + row[5] + row[6]);
            acc.exact_total.push(shared + med[7]);
            acc.steps += 1;
            let sv = r.swept.as_ref().context("SV answer")?;
            let exact_out = r.exact.as_ref().context("exact answer")?;
            let exact = exact_out.contact;
            if exact_out.starts_in_contact {
                acc.start_contacts += 1;
            } else {
                acc.exact_contacts += usize::from(exact.is_some());
                acc.sv_contacts += usize::from(sv.collision.is_some());
                if let (Some(e), Some(_)) = (exact, sv.collision) {
                    acc.gaps.push(e.toc - sv.t_c);
                }
                if sv.t_c < 1.0 {
                    acc.lost.push(exact.map_or(1.0, |e| e.toc) - sv.t_c);
                }
            }
            if k % check_every == 0 || exact.is_some() || sv.collision.is_some() {
                acc.checked += 1;
                let motion = ArticulatedMotion::between(avatar.model(), w[0], w[1])?;
                if let Some(t) = sampled_contact(avatar, env, &motion, samples) {
                    acc.ref_contacts += 1;
                    if exact.is_none_or(|e| e.toc > t + 1e-9) {
                        acc.missed_exact += 1;
                    }
                    if sv.collision.is_none() || sv.t_c > t + 1e-9 {
                        acc.missed_sv += 1;
                    }
                }
            }
            bar.inc(1);
        }
    }
    Ok(acc)
}

pub(super) fn quantile(v: &[f64], q: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s[((s.len() - 1) as f64 * q).round() as usize]
}

pub(super) fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}
