//! Unit tests of `adaptive`.

use super::*;
use crate::scene::Pcl;
use crate::{ArticulatedBody, BodyStep};
use ccd_bvh::{BvhOptions, Rss};
use ccd_geometry::TriMesh;
use ccd_kinematics::{ArticulatedModel, Joint, LinkId, LinkSpec};
use glam::{DAffine3, DVec3};

/// A chain of `n` small boxes 0.3 apart, hinged about z and y in turn, over a floor.
fn coil(n: usize) -> ArticulatedScene {
    let specs = (0..n)
        .map(|i| LinkSpec {
            name: format!("l{i}"),
            parent: (i > 0).then(|| format!("l{}", i - 1)),
            joint: Joint::Revolute {
                axis: if i % 2 == 0 { DVec3::Z } else { DVec3::Y },
                limits: None,
            },
            offset: DAffine3::from_translation(if i > 0 { DVec3::X * 0.3 } else { DVec3::ZERO }),
        })
        .collect();
    let model = ArticulatedModel::new(specs).unwrap();
    let cube = |lo: DVec3, hi: DVec3| TriMesh::cuboid(lo, hi).unwrap();
    let link = cube(DVec3::splat(-0.1), DVec3::splat(0.1));
    let body = ArticulatedBody::from_meshes(model, vec![Some(link); n]).unwrap();
    let mut scene = ArticulatedScene::new();
    scene.add_articulated(body);
    let floor = cube(DVec3::new(-10.0, -10.0, -2.0), DVec3::new(10.0, 10.0, -1.0));
    scene.set_environment(Arc::new(
        MeshBvh::<Rss>::new(floor, &BvhOptions::default()).unwrap(),
    ));
    scene
}

/// The full query's and the adaptive query's answers to one step of a one-body scene.
fn both(
    scene: &ArticulatedScene,
    adaptive: &mut AdaptiveScene,
    (q0, q1): (&[f64], &[f64]),
    active: &[LinkId],
    opts: &QueryOptions,
) -> (QueryResult, QueryResult) {
    let whole = opts.with_segment_turn(f64::INFINITY);
    let full = scene.query(&[BodyStep::Joints { q0, q1 }], &whole).unwrap();
    let ours = adaptive
        .query(&[AdaptiveStep { q0, q1, active }], opts)
        .unwrap();
    (full, ours)
}

/// Every way of answering a step (interval culling as it is, with environment pairs
/// refined, with every pair refined, giving up, the full query) gives the full query's
/// answer, on a chain coiling with growing and shrinking amplitude.
#[test]
fn every_path_gives_the_full_querys_answer() {
    let n = 16;
    let scene = coil(n);
    let mut adaptive = AdaptiveScene::new(scene.clone());
    let all: Vec<LinkId> = (0..n as u32).map(LinkId).collect();
    let opts = QueryOptions::default();
    let mut seen = Vec::new();
    let mut q = vec![0.0; n];
    for step in 0..160 {
        // amplitude 0 → 1.4 rad → 0, twice (1.4: the interval pair count passes the
        // refining threshold without giving up at some steps, e.g. 15 and 75); then calm
        // steps with a sudden
        // jump to 1.6 rad every 10 steps (a step far from contact, as the full query
        // saw it, followed by one whose interval culling gives up)
        let phase = (step % 60) as f64 / 60.0;
        let amp = match step {
            0..120 => 1.4 * (std::f64::consts::PI * phase).sin().powi(2),
            _ if step % 10 == 5 => 1.6,
            _ => 0.01,
        };
        let q0 = q.clone();
        for (i, x) in q.iter_mut().enumerate() {
            *x += amp * (((i * 7 + step * 3) % 11) as f64 / 10.0 - 0.5);
        }
        let (full, ours) = both(&scene, &mut adaptive, (&q0, &q), &all, &opts);
        assert_eq!(
            full.contacts, ours.contacts,
            "step {step}, {:?}",
            adaptive.path
        );
        if !seen.contains(&adaptive.path) {
            seen.push(adaptive.path);
        }
    }
    for path in [
        StepPath::Adaptive,
        StepPath::EnvRefined,
        StepPath::Refined,
        StepPath::GaveUp,
        StepPath::Full,
    ] {
        assert!(seen.contains(&path), "{path:?} not taken; seen {seen:?}");
    }
}

/// Pairs that the narrow phase proved free at one step are dropped at the next by
/// their cached separating direction while it still separates them (a coil folded on
/// itself, three joints wiggling): the certificates act, and every answer, contacts
/// included (the fold closes at the end), is the full query's.
#[test]
fn separation_certificates_drop_pairs_without_changing_answers() {
    let n = 16;
    let scene = coil(n);
    let mut adaptive = AdaptiveScene::new(scene.clone());
    let active = [LinkId(5), LinkId(9), LinkId(12)];
    let opts = QueryOptions::default();
    let mut q: Vec<f64> = (0..n).map(|i| if i % 2 == 0 { 0.9 } else { 0.3 }).collect();
    let mut contacts = 0;
    for step in 0..40 {
        let q0 = q.clone();
        for (k, a) in active.iter().enumerate() {
            // small waves, then joint 12 folds the tail onto the coil
            let wave = 0.02 * ((step + 3 * k) as f64 * 0.7).sin();
            q[a.index()] += if step >= 30 && k == 2 { 0.15 } else { wave };
        }
        let (full, ours) = both(&scene, &mut adaptive, (&q0, &q), &active, &opts);
        assert_eq!(
            full.contacts, ours.contacts,
            "step {step}, {:?}",
            adaptive.path
        );
        contacts += usize::from(!ours.contacts.is_empty());
    }
    assert!(adaptive.certified > 0, "no pair certified");
    assert!(contacts > 0, "the fold never closed");
}

/// With most links moving, a step whose interval culling kept more than
/// `PREDICT_PER_PART` pairs per part (refined or not) or gave up is followed by the full
/// query as long as no fewer joints move: the coil swinging at constant amplitudes never
/// tries the culling again after such a step; every answer is the full query's.
#[test]
fn a_crowded_step_keeps_the_full_query() {
    let n = 16;
    let scene = coil(n);
    let all: Vec<LinkId> = (0..n as u32).map(LinkId).collect();
    let opts = QueryOptions::default();
    // the top 6 joints (every link moves) or the last 10 (10 of 16 links move,
    // fewer than 3/4)
    for (first, count) in [(0, 6), (n - 10, 10)] {
        let mut triggers = Vec::new();
        for amp in [0.1, 0.2, 0.3, 0.45, 0.6, 0.8, 1.2, 1.6, 2.0] {
            let mut adaptive = AdaptiveScene::new(scene.clone());
            let mut q = vec![0.05; n];
            let mut crowded_at = None;
            for step in 0..40 {
                let q0 = q.clone();
                // `count` joints move every step (no increment is zero): fewer than
                // 3/4 of the joints (the rule for near steps does not apply)
                for (i, x) in q.iter_mut().enumerate().skip(first).take(count) {
                    let sign = if (i + step) % 2 == 0 { 1.0 } else { -1.0 };
                    *x += sign * amp * (0.5 + ((i * 7 + step * 3) % 11) as f64 / 20.0);
                }
                let (full, ours) = both(&scene, &mut adaptive, (&q0, &q), &all, &opts);
                assert_eq!(
                    full.contacts, ours.contacts,
                    "{first} amp {amp} step {step}"
                );
                if let Some(at) = crowded_at {
                    assert_eq!(
                        adaptive.path,
                        StepPath::Full,
                        "first {first}, amp {amp}: step {step} after the crowded step {at}"
                    );
                }
                let crowded = match adaptive.path {
                    StepPath::Refined | StepPath::GaveUp => true,
                    StepPath::Adaptive => {
                        ours.stats.pairs_after_spatial > (PREDICT_PER_PART * n) as u64
                    }
                    StepPath::EnvRefined | StepPath::Full | StepPath::Resting => false,
                };
                if crowded && crowded_at.is_none() {
                    crowded_at = Some(step);
                    triggers.push((amp, step, adaptive.path));
                }
            }
        }
        // the rule was exercised by a step the older rules let try again (not a give-up)
        assert!(
            triggers.iter().any(|t| t.2 != StepPath::GaveUp),
            "first {first}: {triggers:?}"
        );
    }
}

/// With most joints moving, a step after one near contact goes to the full query
/// without trying the interval culling; with few moving, or after a step far from
/// contact, the interval culling answers; every answer is the full query's.
#[test]
fn most_joints_moving_near_contact_take_the_full_query() {
    let n = 16;
    let scene = coil(n);
    let all: Vec<LinkId> = (0..n as u32).map(LinkId).collect();
    let opts = QueryOptions::default();
    let q0 = vec![0.1; n];
    let mut most = q0.clone();
    most.iter_mut().for_each(|x| *x += 0.01);
    let mut one = q0.clone();
    one[n - 1] += 0.01;
    for (near, q1, full_path) in [
        (false, &most, false),
        (true, &most, true),
        (true, &one, false),
    ] {
        let mut adaptive = AdaptiveScene::new(scene.clone());
        adaptive.near = near;
        let (full, ours) = both(&scene, &mut adaptive, (&q0, q1), &all, &opts);
        assert_eq!(full.contacts, ours.contacts);
        assert_eq!(
            adaptive.path == StepPath::Full,
            full_path,
            "near {near}: {:?}",
            adaptive.path
        );
    }
    // many culled pairs, or an environment pair left by the lower bounds
    let env = Pcl {
        a: Part::Link {
            body: 0,
            link: LinkId(0),
        },
        b: Part::Environment,
        lower: 0.0,
    };
    assert!(is_near(11, 10, &[]));
    assert!(!is_near(10, 10, &[]));
    assert!(is_near(0, 10, &[env]));
    // a full step counts its pairs INTERVAL_PER_FULL times (wooden men: 58 parts, the
    // full query's 16 pairs before an interval step keeping 131)
    assert!(full_step_is_near(16, 58, &[]));
    assert!(!full_step_is_near(14, 58, &[]));
    assert!(full_step_is_near(0, 58, &[env]));
}

/// Pairs cached for a rigid group (two nodes whose links no moving joint separates) are
/// dropped when a still joint between them jumps to another value: the chain folds back
/// onto itself at a joint that does not move during the steps, and the adaptive query
/// still gives the full query's contacts between the two halves.
#[test]
fn a_still_joint_jumping_renews_the_rigid_groups_pairs() {
    let n = 12;
    let scene = coil(n);
    let mut adaptive = AdaptiveScene::new(scene.clone());
    // every pair's contact, not only the first one (at the fold, many touch at t = 0)
    let opts = QueryOptions::default().with_mode(crate::Mode::All);
    let mut folded_contact = false;
    for step in 0..12 {
        let mut q0 = vec![0.0; n];
        // the root's principal joint (link 6) holds the chain's second half bent back
        // over the first one, then folds it closer at step 6 and stays
        q0[6] = if step >= 6 { 3.0 } else { 2.5 };
        let mut q1 = q0.clone();
        q0[n - 1] = 0.05 * step as f64;
        q1[n - 1] = 0.05 * (step + 1) as f64;
        let (full, ours) = both(
            &scene,
            &mut adaptive,
            (&q0, &q1),
            &[LinkId(n as u32 - 1)],
            &opts,
        );
        assert_eq!(full.contacts, ours.contacts, "step {step}");
        assert_eq!(adaptive.path, StepPath::Adaptive, "step {step}");
        // a contact between the halves, neither of them the moving link
        folded_contact |= full.contacts.iter().any(|c| {
            matches!(
                (c.a, c.b),
                (Part::Link { link: x, .. }, Part::Link { link: y, .. })
                    if x.0 < 6 && (6..11).contains(&y.0)
            )
        });
    }
    assert!(
        folded_contact,
        "the fold made no contact between the halves"
    );
}
