//! `DeformingScene::separation_step` and the one-shot `scene::separation_step` (one mesh against
//! itself) against a dense reference: every non-adjacent vertex–face and edge–edge pair of
//! the scene, enumerated directly from the triangles, sampled densely over the step with the
//! exact distance functions. The step is safe (no sample in `[0, step]` below a pair's
//! target) and tight (no later than the first sampled time a pair comes within its stopping
//! tolerance of its target, up to the sampling).

use ccd_distance::{point_triangle, segment_segment};
use ccd_geometry::glam::DVec3;
use ccd_geometry::{Segment, Triangle};
use ccd_la_deformable::scene::{
    DeformingScene, SceneOptions, SeparationOptions, SeparationStep, separation_step,
};
use ccd_la_deformable::{DeformingMesh, LaError, Status};
use proptest::prelude::*;

/// A pair of the reference: mesh and vertex indices of both features.
enum Pair {
    Vf(usize, u32, usize, [u32; 3]),
    Ee(usize, [u32; 2], usize, [u32; 2]),
}

fn edges(m: &DeformingMesh) -> Vec<[u32; 2]> {
    let mut e: Vec<[u32; 2]> = m
        .triangles()
        .iter()
        .flat_map(|t| (0..3).map(move |k| [t[k].min(t[(k + 1) % 3]), t[k].max(t[(k + 1) % 3])]))
        .collect();
    e.sort_unstable();
    e.dedup();
    e
}

fn used_vertices(m: &DeformingMesh) -> Vec<u32> {
    let mut v: Vec<u32> = m.triangles().iter().flatten().copied().collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// Every pair a scene with `self_collision` tests.
fn all_pairs(meshes: &[DeformingMesh], self_collision: bool) -> Vec<Pair> {
    let mut out = Vec::new();
    for a in 0..meshes.len() {
        for b in 0..meshes.len() {
            if a == b && !self_collision {
                continue;
            }
            for &v in &used_vertices(&meshes[a]) {
                for t in meshes[b].triangles() {
                    if a == b && t.contains(&v) {
                        continue;
                    }
                    out.push(Pair::Vf(a, v, b, *t));
                }
            }
            if b < a {
                continue;
            }
            let (ea, eb) = (edges(&meshes[a]), edges(&meshes[b]));
            for (i, e) in ea.iter().enumerate() {
                for (j, f) in eb.iter().enumerate() {
                    if a == b && (j <= i || e.iter().any(|x| f.contains(x))) {
                        continue;
                    }
                    out.push(Pair::Ee(a, *e, b, *f));
                }
            }
        }
    }
    out
}

fn distance(meshes: &[DeformingMesh], p: &Pair, t: f64) -> f64 {
    let at = |m: usize, v: u32| meshes[m].position_at(v, t);
    match p {
        Pair::Vf(a, v, b, f) => {
            point_triangle(
                at(*a, *v),
                &Triangle::new(at(*b, f[0]), at(*b, f[1]), at(*b, f[2])),
            )
            .distance
        }
        Pair::Ee(a, e, b, f) => {
            segment_segment(
                &Segment::new(at(*a, e[0]), at(*a, e[1])),
                &Segment::new(at(*b, f[0]), at(*b, f[1])),
            )
            .distance
        }
    }
}

/// The documented rule, written out independently of the library.
fn target(d0: f64, rule: &SeparationOptions) -> f64 {
    if d0 > rule.min_distance {
        rule.min_distance.max(rule.scale * d0)
    } else {
        rule.scale * d0
    }
}

/// Checks a scene's step against the dense reference (and, for one mesh with
/// self-collision, the one-shot step of that mesh); returns the scene's step.
fn check(meshes: Vec<DeformingMesh>, opts: &SceneOptions, rule: &SeparationOptions) -> f64 {
    let pairs = all_pairs(&meshes, opts.self_collision);
    let scene = DeformingScene::new(meshes.clone(), opts).unwrap();
    let r = scene.separation_step(rule).unwrap();
    if meshes.len() == 1 && opts.self_collision {
        let once = separation_step(&meshes[0], rule).unwrap();
        check_step(&meshes, &pairs, rule, &once);
    }
    check_step(&meshes, &pairs, rule, &r)
}

/// Checks one step answer against the dense reference of `pairs`; returns the step.
fn check_step(
    meshes: &[DeformingMesh],
    pairs: &[Pair],
    rule: &SeparationOptions,
    r: &SeparationStep,
) -> f64 {
    let meshes = meshes.to_vec();
    let step = r.step;
    assert!((0.0..=1.0).contains(&step), "step {step}");
    let d0: Vec<f64> = pairs.iter().map(|p| distance(&meshes, p, 0.0)).collect();
    if d0.contains(&0.0) {
        // the documented rule: a pair at distance 0 that moves stops the step at 0; one
        // whose features keep their distance 0 (no relative motion) does not limit it
        if step > 0.0 {
            for (p, _) in pairs.iter().zip(&d0).filter(|(_, d)| **d == 0.0) {
                for k in 0..=64 {
                    let t = step * f64::from(k) / 64.0;
                    assert!(
                        distance(&meshes, p, t) <= 1e-12,
                        "a pair touching at t = 0 moves apart or through by t = {t}, yet the step is {step}"
                    );
                }
            }
        }
        return step;
    }
    // safe: dense samples of [0, step] and the step itself
    const K: usize = 400;
    for (p, &d) in pairs.iter().zip(&d0) {
        let tau = target(d, rule);
        for k in 0..=K {
            let t = step * k as f64 / K as f64;
            let dt = distance(&meshes, p, t);
            assert!(
                dt >= tau * (1.0 - 1e-12) - 1e-14,
                "pair below its target {tau} at t = {t} (distance {dt}, d0 {d}, step {step})"
            );
        }
    }
    // tight: the first sampled time some pair comes within 2η of its target bounds the step
    // from above, up to two sample spacings (a capped pair may stop earlier)
    if r.stats.capped == 0 && step < 1.0 {
        const FINE: usize = 4000;
        let near = |t: f64| {
            pairs.iter().zip(&d0).any(|(p, &d)| {
                let tau = target(d, rule);
                distance(&meshes, p, t) - tau <= 2.0 * rule.rel_tolerance * (d - tau)
            })
        };
        // the first near-target time on a grid over [0, 1], and on a grid as fine relative
        // to the step over [0, 4·step] (a pair with a tiny d₀ may pass its target between
        // two samples of the coarse grid); the step may be short of it by two spacings
        let on_grid = |width: f64| {
            (0..=FINE)
                .map(|k| width * k as f64 / FINE as f64)
                .find(|&t| near(t))
                .map(|t| (t, width / FINE as f64))
        };
        let (first, spacing) = on_grid((4.0 * step).min(1.0))
            .or_else(|| on_grid(1.0))
            .unwrap_or((1.0, 1.0 / FINE as f64));
        assert!(
            step >= first - 2.0 * spacing,
            "step {step} short of the first near-target time {first}"
        );
        let lim = r.limiting.expect("a limiting pair below 1");
        assert!(lim.distance >= lim.target, "{lim:?}");
    }
    step
}

/// A random small soup: `n` triangles near the origin moving by random displacements.
fn soup(n: usize, spread: f64) -> impl Strategy<Value = DeformingMesh> {
    let coord = -spread..spread;
    let p = [coord.clone(), coord.clone(), coord];
    (
        proptest::collection::vec(p, 3 * n),
        proptest::collection::vec([-0.8..0.8f64, -0.8..0.8f64, -0.8..0.8f64], 3 * n),
        0..3usize,
    )
        .prop_map(move |(pts, moves, shared)| {
            let x0: Vec<DVec3> = pts.iter().map(|c| DVec3::from_array(*c)).collect();
            let x1: Vec<DVec3> = x0
                .iter()
                .zip(&moves)
                .map(|(p, d)| *p + DVec3::from_array(*d))
                .collect();
            let tris = (0..n as u32)
                .map(|t| {
                    if t > 0 && (t as usize) % 3 < shared {
                        [3 * t - 1, 3 * t, 3 * t + 1]
                    } else {
                        [3 * t, 3 * t + 1, 3 * t + 2]
                    }
                })
                .collect();
            DeformingMesh::new(tris, x0, x1).unwrap()
        })
}

proptest! {
    // each case checks two answers against every pair densely: fewer cases than the default
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// One mesh against itself, large enough for a tree of several levels: the scene's and
    /// the one-shot step (see `check`).
    #[test]
    fn one_mesh_soups_keep_their_separation(
        a in soup(11, 1.5),
        scale in 0.05..0.9f64,
        min_distance in prop_oneof![Just(0.0), 0.0..0.3f64],
    ) {
        let rule = SeparationOptions::default().with_scale(scale).with_min_distance(min_distance);
        check(vec![a], &SceneOptions::default(), &rule);
    }
}

proptest! {
    #[test]
    fn random_soups_keep_their_separation(
        a in soup(5, 2.0),
        b in soup(4, 2.0),
        leaf in 1u32..5,
        scale in 0.05..0.9f64,
        min_distance in prop_oneof![Just(0.0), 0.0..0.3f64],
        self_collision in any::<bool>(),
    ) {
        let opts = SceneOptions::default().with_leaf_size(leaf).with_self_collision(self_collision);
        let rule = SeparationOptions::default().with_scale(scale).with_min_distance(min_distance);
        check(vec![a, b], &opts, &rule);
    }
}

#[test]
fn falling_triangle_keeps_a_fifth_of_its_gap() {
    let tri = vec![DVec3::ZERO, DVec3::X, DVec3::Y];
    let ground = DeformingMesh::new(vec![[0, 1, 2]], tri.clone(), tri.clone()).unwrap();
    let up: Vec<DVec3> = tri.iter().map(|p| *p + DVec3::new(0.2, 0.2, 1.0)).collect();
    let down: Vec<DVec3> = tri
        .iter()
        .map(|p| *p + DVec3::new(0.2, 0.2, -1.0))
        .collect();
    let falling = DeformingMesh::new(vec![[0, 1, 2]], up, down).unwrap();
    let opts = SceneOptions::default();
    // s = 0.2: down to 0.2 at t = 0.4
    let step = check(
        vec![ground.clone(), falling.clone()],
        &opts,
        &SeparationOptions::default(),
    );
    assert!(step <= 0.4 && step > 0.4 - 1e-3, "{step}");
    // δ_min = 0.5 > s·d₀: down to 0.5 at t = 0.25
    let rule = SeparationOptions::default().with_min_distance(0.5);
    let step = check(vec![ground.clone(), falling.clone()], &opts, &rule);
    assert!(step <= 0.25 && step > 0.25 - 1e-3, "{step}");
    // δ_min = 2 > d₀ = 1: the pair already closer than δ_min keeps s·d₀ = 0.2
    let rule = SeparationOptions::default().with_min_distance(2.0);
    let step = check(vec![ground, falling], &opts, &rule);
    assert!(step <= 0.4 && step > 0.4 - 1e-3, "{step}");
}

#[test]
fn separating_and_resting_pairs_do_not_limit_the_step() {
    let tri = vec![DVec3::ZERO, DVec3::X, DVec3::Y];
    let ground = DeformingMesh::new(vec![[0, 1, 2]], tri.clone(), tri.clone()).unwrap();
    // resting 1e-9 above the ground, sliding sideways: the distance never shrinks
    let rest0: Vec<DVec3> = tri
        .iter()
        .map(|p| *p + DVec3::new(0.2, 0.2, 1e-9))
        .collect();
    let rest1: Vec<DVec3> = rest0
        .iter()
        .map(|p| *p + DVec3::new(0.05, 0.0, 0.0))
        .collect();
    let resting = DeformingMesh::new(vec![[0, 1, 2]], rest0, rest1).unwrap();
    let step = check(
        vec![ground.clone(), resting],
        &SceneOptions::default(),
        &SeparationOptions::default(),
    );
    assert_eq!(step, 1.0);
    // rising away
    let up0: Vec<DVec3> = tri.iter().map(|p| *p + DVec3::new(0.2, 0.2, 0.1)).collect();
    let up1: Vec<DVec3> = up0.iter().map(|p| *p + DVec3::Z).collect();
    let rising = DeformingMesh::new(vec![[0, 1, 2]], up0, up1).unwrap();
    let step = check(
        vec![ground, rising],
        &SceneOptions::default(),
        &SeparationOptions::default(),
    );
    assert_eq!(step, 1.0);
}

#[test]
fn touching_at_t0_gives_step_zero_with_the_pair() {
    let tri = vec![DVec3::ZERO, DVec3::X, DVec3::Y];
    let ground = DeformingMesh::new(vec![[0, 1, 2]], tri.clone(), tri.clone()).unwrap();
    // a vertex exactly on the ground at t = 0 (coincident with a ground vertex)
    let on: Vec<DVec3> = vec![
        DVec3::ZERO,
        DVec3::new(0.0, 0.0, 1.0),
        DVec3::new(0.0, 1.0, 1.0),
    ];
    let still = DeformingMesh::new(vec![[0, 1, 2]], on.clone(), on.clone()).unwrap();
    let scene = DeformingScene::new(vec![ground.clone(), still], &SceneOptions::default()).unwrap();
    // no relative motion at all: the distance stays 0 = s·0, the rule holds on [0, 1]
    assert_eq!(
        scene
            .separation_step(&SeparationOptions::default())
            .unwrap()
            .step,
        1.0
    );
    // moving (even away): the pair touching at t = 0 makes the step 0
    let away: Vec<DVec3> = on.iter().map(|p| *p + DVec3::Z).collect();
    let other = DeformingMesh::new(vec![[0, 1, 2]], on, away).unwrap();
    let scene = DeformingScene::new(vec![ground, other], &SceneOptions::default()).unwrap();
    let r = scene
        .separation_step(&SeparationOptions::default())
        .unwrap();
    assert_eq!(r.step, 0.0);
    let lim = r.limiting.unwrap();
    assert_eq!(lim.status, Status::InitiallyTouching);
    assert_eq!(lim.distance0, 0.0);
}

#[test]
fn bad_rules_are_typed_errors() {
    let tri = vec![DVec3::ZERO, DVec3::X, DVec3::Y];
    let m = DeformingMesh::new(vec![[0, 1, 2]], tri.clone(), tri).unwrap();
    let scene = DeformingScene::new(vec![m], &SceneOptions::default()).unwrap();
    for rule in [
        SeparationOptions::default().with_scale(0.0),
        SeparationOptions::default().with_scale(1.0),
        SeparationOptions::default().with_scale(f64::NAN),
        SeparationOptions::default().with_min_distance(-1e-3),
        SeparationOptions::default().with_min_distance(f64::INFINITY),
        SeparationOptions::default().with_rel_tolerance(0.0),
    ] {
        assert!(matches!(
            scene.separation_step(&rule),
            Err(LaError::InvalidOption(_))
        ));
    }
    assert_eq!(
        scene.separation_step(&SeparationOptions::default().with_max_iterations(0)),
        Err(LaError::NoIterations)
    );
}

/// A cloth sheet folding over itself: many self pairs, a real limiting pair.
#[test]
fn folding_sheet_keeps_its_separation() {
    let n = 8u32;
    let mut tris = Vec::new();
    for i in 0..n {
        for j in 0..n {
            let v = i * (n + 1) + j;
            tris.push([v, v + 1, v + n + 2]);
            tris.push([v, v + n + 2, v + n + 1]);
        }
    }
    let x0: Vec<DVec3> = (0..(n + 1) * (n + 1))
        .map(|k| {
            let (i, j) = (f64::from(k / (n + 1)), f64::from(k % (n + 1)));
            DVec3::new(j / f64::from(n), 0.01 * (i * 0.7).sin(), i / f64::from(n))
        })
        .collect();
    let x1: Vec<DVec3> = x0
        .iter()
        .map(|p| {
            if p.x > 0.5 {
                // fold the right half up and over (angle 170 degrees about x = 0.5)
                let a = 170f64.to_radians();
                let r = p.x - 0.5;
                DVec3::new(0.5 + r * a.cos(), p.y + r * a.sin(), p.z)
            } else {
                *p
            }
        })
        .collect();
    let m = DeformingMesh::new(tris, x0, x1).unwrap();
    let step = check(
        vec![m],
        &SceneOptions::default(),
        &SeparationOptions::default(),
    );
    assert!(step < 1.0);
}
