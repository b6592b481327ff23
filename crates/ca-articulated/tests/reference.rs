//! CATCH against a brute-force reference on random trees (revolute, prismatic and fixed
//! joints; box and tetrahedron links; a box environment; self pairs included): dense time
//! sampling (2,000 samples per step) with exact all-triangle-pair distances per link pair,
//! then bisection.
//!
//! Properties: never a miss (the reference finds a touch ⇒ a contact is reported), `toc ≤`
//! the reference `+ 1e-9`, distance at `toc ≤ ε`, nothing touches before `toc`; the same with
//! interval enclosures, without temporal culling, on the step whole and split into short
//! sub-steps ([`QueryOptions::segment_turn`]); `All` reports every pair the
//! reference sees touch (spatial and temporal culling drop none).

mod support;

use ccd_ca_articulated::{
    ArticulatedScene, BodyStep, EnclosureKind, Mode, QueryOptions, QueryResult,
};
use ccd_ca_rigid::Status;
use ccd_geometry::TriMesh;
use ccd_geometry::glam::DVec3;
use ccd_kinematics::ArticulatedMotion;
use proptest::prelude::*;
use support::*;

const EPS: f64 = 1e-3;
const SAMPLES: u32 = 2000;

fn environment() -> impl Strategy<Value = Option<TriMesh>> {
    prop::option::of(
        (
            prop::array::uniform3(-1.2..1.2f64),
            prop::array::uniform3(0.05..0.5f64),
        )
            .prop_map(|(c, h)| {
                let (c, h) = (DVec3::from_array(c), DVec3::from_array(h));
                TriMesh::cuboid(c - h, c + h).unwrap()
            }),
    )
}

/// Checks one query result against the reference; returns the reference's first touch.
fn check(
    plan: &[LinkPlan],
    env: Option<&TriMesh>,
    q0: &[f64],
    q1: &[f64],
    res: &QueryResult,
    what: &str,
) -> Result<Option<f64>, TestCaseError> {
    let body = body_of(plan);
    let model = body.model();
    let motion = ArticulatedMotion::from_joints(model, q0, q1).unwrap();
    let pairs = all_pairs(&body, env.is_some());
    let mut reference: Option<f64> = None;
    for &(a, b) in &pairs {
        if let Some(r) = reference_pair(&body, &motion, env, a, b, SAMPLES) {
            reference = Some(reference.map_or(r, |x: f64| x.min(r)));
        }
    }
    match (res.first(), reference) {
        (None, Some(r)) => prop_assert!(false, "{what}: missed a contact at t = {r}"),
        (None, None) => {}
        (Some(c), r) => {
            if let Some(r) = r {
                prop_assert!(
                    c.contact.toc <= r + 1e-9,
                    "{what}: toc {} after the reference {r}",
                    c.contact.toc
                );
            }
            prop_assert!(
                pairs.contains(&(c.a, c.b)),
                "{what}: reported pair {:?} is not a tested pair",
                (c.a, c.b)
            );
            if c.contact.status != Status::OutOfIterations {
                let d = part_distance(&body, &motion, env, c.a, c.b, c.contact.toc);
                prop_assert!(
                    d <= EPS + 1e-9,
                    "{what}: distance {d} at toc {}",
                    c.contact.toc
                );
            }
            // nothing comes within ε/2 before toc (CA steps keep that margin, hull bounds and
            // box culling too), so no pair touches before it
            for k in 0..50 {
                let t = c.contact.toc * f64::from(k) / 50.0;
                if t >= c.contact.toc {
                    continue;
                }
                for &(a, b) in &pairs {
                    if !boxes_apart(&body, &motion, env, a, b, t, EPS) {
                        let d = part_distance(&body, &motion, env, a, b, t);
                        prop_assert!(
                            d > 0.0,
                            "{what}: {a:?}-{b:?} touch at {t} before toc {}",
                            c.contact.toc
                        );
                    }
                }
            }
        }
    }
    Ok(reference)
}

fn scene_of(plan: &[LinkPlan], env: Option<&TriMesh>) -> ArticulatedScene {
    let mut scene = ArticulatedScene::new();
    scene.add_articulated(body_of(plan));
    if let Some(e) = env {
        scene.set_environment(env_arc(e));
    }
    scene
}

proptest! {
    // each case runs dense references over all pairs: a quarter of PROPTEST_CASES (64 in CI)
    #![proptest_config(ProptestConfig { cases: (ProptestConfig::default().cases / 4).max(1), ..ProptestConfig::default() })]

    #[test]
    fn never_misses_and_is_conservative(
        plan in tree(5),
        env in environment(),
        seed in prop::collection::vec(-1.0..1.0f64, 16),
    ) {
        let model = model_of(&plan);
        let (q0, q1) = joints(&model, &seed);
        let scene = scene_of(&plan, env.as_ref());
        let step = [BodyStep::Joints { q0: &q0, q1: &q1 }];
        let taylor = scene.query(&step, &QueryOptions::default()).unwrap();
        let reference = check(&plan, env.as_ref(), &q0, &q1, &taylor, "taylor")?;
        let interval = scene
            .query(&step, &QueryOptions::default().with_enclosure(EnclosureKind::Interval))
            .unwrap();
        check(&plan, env.as_ref(), &q0, &q1, &interval, "interval")?;
        let no_temporal = scene
            .query(&step, &QueryOptions::default().with_temporal_culling(false))
            .unwrap();
        check(&plan, env.as_ref(), &q0, &q1, &no_temporal, "no temporal culling")?;
        // the step whole (never split) and in short sub-steps (nearly always split)
        let whole = scene
            .query(&step, &QueryOptions::default().with_segment_turn(f64::INFINITY))
            .unwrap();
        check(&plan, env.as_ref(), &q0, &q1, &whole, "whole step")?;
        let split = scene
            .query(&step, &QueryOptions::default().with_segment_turn(0.2))
            .unwrap();
        check(&plan, env.as_ref(), &q0, &q1, &split, "split into sub-steps")?;
        let split_boolean = scene
            .query(&step, &QueryOptions::default().with_segment_turn(0.2).with_mode(Mode::Boolean))
            .unwrap();
        if reference.is_some() {
            prop_assert!(split_boolean.first().is_some(), "Boolean on sub-steps missed a contact");
        }
        // temporal culling changes no answer: both find a contact iff either does when the
        // reference sees a touch, and they agree on the pair's time to within the tolerance
        // band (CA stops anywhere the distance is in [ε/2, ε])
        if reference.is_some() {
            let (a, b) = (taylor.first().unwrap(), no_temporal.first().unwrap());
            prop_assert!((a.contact.toc - b.contact.toc).abs() <= 0.05,
                "temporal culling moved the toc: {} vs {}", a.contact.toc, b.contact.toc);
        }
        // Boolean: a contact iff Toc finds one (when the reference is clear-cut)
        let boolean = scene
            .query(&step, &QueryOptions::default().with_mode(Mode::Boolean))
            .unwrap();
        if reference.is_some() {
            prop_assert!(boolean.first().is_some(), "Boolean missed a contact");
        }
        // culling counters are consistent
        let s = taylor.stats;
        prop_assert!(s.pairs_after_spatial <= s.pairs_before);
        prop_assert!(s.pairs_after_temporal <= s.pairs_after_spatial);
    }

    #[test]
    fn all_pairs_reports_every_touching_pair(
        plan in tree(4),
        env in environment(),
        seed in prop::collection::vec(-1.0..1.0f64, 16),
        interval in any::<bool>(),
    ) {
        let model = model_of(&plan);
        let (q0, q1) = joints(&model, &seed);
        let scene = scene_of(&plan, env.as_ref());
        let body = body_of(&plan);
        let motion = ArticulatedMotion::from_joints(&model, &q0, &q1).unwrap();
        let opts = QueryOptions::default().with_mode(Mode::All).with_enclosure(if interval {
            EnclosureKind::Interval
        } else {
            EnclosureKind::Taylor
        });
        let res = scene.query(&[BodyStep::Joints { q0: &q0, q1: &q1 }], &opts).unwrap();
        for (a, b) in all_pairs(&body, env.is_some()) {
            if let Some(r) = reference_pair(&body, &motion, env.as_ref(), a, b, SAMPLES) {
                let found = res.contacts.iter().find(|c| (c.a, c.b) == (a, b));
                prop_assert!(found.is_some(), "pair {a:?}-{b:?} touches at {r} but is not reported");
                prop_assert!(found.unwrap().contact.toc <= r + 1e-9);
            }
        }
        prop_assert!(res.contacts.windows(2).all(|w| w[0].contact.toc <= w[1].contact.toc));
    }
}
