//! Scene `taylor-chain` (CATCH, Fig. 5): a chain of N links, each with a random relative
//! constant-velocity motion; the swept AABB of the last link's box over `[0, 1]` from
//! interval arithmetic vs from order-3 Taylor models, against the true swept box from dense
//! sampling.
//!
//! Setup (seeded): link `i > 0` sits at `(1, 0, 0)` in its parent's frame (link length 1)
//! with a random initial bend of up to 45°; each relative motion rotates by an angle uniform
//! in `[0°, 45°]` about a uniform random axis and translates by at most 0.1. The last link's
//! box is `[0, 1] × [−0.1, 0.1]²` in its frame.

use std::time::Instant;

use anyhow::Result;
use ccd_geometry::Aabb;
use ccd_taylor::{ConstantVelocity, Enclosure, Interval, TaylorModel, Transform};
use glam::{DAffine3, DVec3};
use serde_json::json;

use crate::report::{Plot, SceneReport, Series};
use crate::rng::SceneRng;
use crate::scenes::{SceneConfig, median};

const MAX_ANGLE_DEG: f64 = 45.0;
const MAX_SHIFT: f64 = 0.1;

fn chain(n: usize, seed: u64) -> Vec<ConstantVelocity> {
    let mut rng = SceneRng::new(seed);
    (0..n)
        .map(|i| {
            let bend = rng.rotation(MAX_ANGLE_DEG.to_radians());
            let offset = if i == 0 { DVec3::ZERO } else { DVec3::X };
            let axis = rng.unit_vector();
            let angle = rng.uniform(0.0, MAX_ANGLE_DEG.to_radians());
            let shift = rng.in_ball(MAX_SHIFT);
            ConstantVelocity::new(bend, offset, axis, angle, shift)
                .expect("generated motions are rigid")
        })
        .collect()
}

fn link_box() -> Aabb {
    Aabb::new(DVec3::new(0.0, -0.1, -0.1), DVec3::new(1.0, 0.1, 0.1))
}

/// Swept box of the last link's box with enclosure arithmetic `E`.
fn swept_box<E: Enclosure>(links: &[ConstantVelocity]) -> Aabb {
    let dom = Interval::UNIT;
    let world = links
        .iter()
        .map(|m| Transform::<E>::from_motion(m, dom))
        .fold(Transform::identity(dom), |acc, m| acc.compose(&m));
    world.aabb_of_box(&link_box())
}

/// The swept box from `samples + 1` evenly spaced poses (a lower estimate of the truth).
fn sampled_box(links: &[ConstantVelocity], samples: usize) -> Aabb {
    let corners = link_box().corners();
    (0..=samples).fold(Aabb::EMPTY, |b, k| {
        let t = k as f64 / samples as f64;
        let pose = links
            .iter()
            .fold(DAffine3::IDENTITY, |acc, m| acc * m.pose_at(t));
        corners
            .iter()
            .fold(b, |b, &c| b.include_point(pose.transform_point3(c)))
    })
}

/// Mean wall time of one call of `f`, in microseconds.
fn time_us(reps: usize, mut f: impl FnMut() -> Aabb) -> f64 {
    let start = Instant::now();
    for _ in 0..reps {
        std::hint::black_box(f());
    }
    start.elapsed().as_secs_f64() * 1e6 / reps as f64
}

/// One row of the table.
struct Row {
    n: usize,
    taylor_vs_true: f64,
    interval_vs_true: f64,
    interval_vs_taylor: f64,
    taylor_us: f64,
    interval_us: f64,
    violations: usize,
}

pub(crate) fn run(cfg: &SceneConfig, bar: &indicatif::ProgressBar) -> Result<SceneReport> {
    let ns: Vec<usize> = if cfg.quick {
        vec![2, 5, 10, 15, 20]
    } else {
        (2..=20).collect()
    };
    let trials = if cfg.quick { 10 } else { 40 };
    let samples = if cfg.quick { 1000 } else { 4000 };
    let reps = if cfg.quick { 20 } else { 200 };
    bar.set_length((ns.len() * trials) as u64);
    let mut rows = Vec::new();
    for &n in &ns {
        let (mut rt, mut ri, mut rit, mut tt, mut ti) = (vec![], vec![], vec![], vec![], vec![]);
        let mut violations = 0;
        for trial in 0..trials {
            let links = chain(n, 1_000 * n as u64 + trial as u64);
            let (bt, bi, truth) = (
                swept_box::<TaylorModel>(&links),
                swept_box::<Interval>(&links),
                sampled_box(&links, samples),
            );
            // Enclosure is non-negotiable: a sampled pose outside a box is a bug.
            if !bt.contains(&truth) || !bi.contains(&truth) {
                violations += 1;
            }
            rt.push(bt.volume() / truth.volume());
            ri.push(bi.volume() / truth.volume());
            rit.push(bi.volume() / bt.volume());
            tt.push(time_us(reps, || swept_box::<TaylorModel>(&links)));
            ti.push(time_us(reps, || swept_box::<Interval>(&links)));
            bar.inc(1);
        }
        rows.push(Row {
            n,
            taylor_vs_true: median(&mut rt),
            interval_vs_true: median(&mut ri),
            interval_vs_taylor: median(&mut rit),
            taylor_us: median(&mut tt),
            interval_us: median(&mut ti),
            violations,
        });
    }
    let total_violations: usize = rows.iter().map(|r| r.violations).sum();
    if total_violations > 0 {
        anyhow::bail!(
            "taylor-chain: {total_violations} swept boxes do not contain the sampled motion"
        );
    }
    let at10 = rows.iter().find(|r| r.n == 10);
    let summary = at10.map_or(json!(null), |r| {
        json!({ "n": 10, "taylor_vs_true": r.taylor_vs_true, "interval_vs_true": r.interval_vs_true, "interval_vs_taylor": r.interval_vs_taylor })
    });
    let headline = at10.map_or_else(String::new, |r| {
        format!(
            "N = 10: Taylor box {:.2}× the sampled swept box, interval box {:.1}× (interval/Taylor {:.1}×)",
            r.taylor_vs_true, r.interval_vs_true, r.interval_vs_taylor
        )
    });
    let xs: Vec<f64> = rows.iter().map(|r| r.n as f64).collect();
    Ok(SceneReport {
        name: "taylor-chain".into(),
        paper: "CATCH Fig. 5".into(),
        description: format!(
            "swept AABB volume of the last link of an N-link chain over [0,1] / sampled truth ({samples} poses); median of {trials} seeded chains per N"
        ),
        columns: [
            "N",
            "Taylor / true",
            "interval / true",
            "interval / Taylor",
            "Taylor µs",
            "interval µs",
        ]
        .map(String::from)
        .to_vec(),
        rows: rows
            .iter()
            .map(|r| {
                vec![
                    r.n.to_string(),
                    format!("{:.3}", r.taylor_vs_true),
                    format!("{:.3}", r.interval_vs_true),
                    format!("{:.2}", r.interval_vs_taylor),
                    format!("{:.2}", r.taylor_us),
                    format!("{:.2}", r.interval_us),
                ]
            })
            .collect(),
        headline,
        summary,
        plots: vec![Plot {
            file: "taylor-chain.svg".into(),
            title: "Swept-box volume / sampled truth (CATCH Fig. 5)".into(),
            x_label: "links N".into(),
            y_label: "volume ratio (log)".into(),
            log_y: true,
            targets: Vec::new(),
            categories: Vec::new(),
            series: vec![
                Series {
                    name: "interval arithmetic".into(),
                    x: xs.clone(),
                    y: rows.iter().map(|r| r.interval_vs_true).collect(),
                    band: None,
                },
                Series {
                    name: "Taylor models".into(),
                    x: xs,
                    y: rows.iter().map(|r| r.taylor_vs_true).collect(),
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
    fn boxes_enclose_samples_and_taylor_is_tighter_at_ten_links() {
        let links = chain(10, 7);
        let (bt, bi, truth) = (
            swept_box::<TaylorModel>(&links),
            swept_box::<Interval>(&links),
            sampled_box(&links, 500),
        );
        assert!(bt.contains(&truth) && bi.contains(&truth));
        assert!(bt.volume() < bi.volume());
    }
}
