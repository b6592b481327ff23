//! Temporal culling (CATCH Alg. 1) changes no answer: random trees (revolute, prismatic and
//! fixed joints, box and tetrahedron links, a box environment, self pairs) queried with
//! temporal culling on and off, in `Toc` and `Boolean` mode, against dense sampling (400
//! samples per step, exact distances per part pair) and the reference first touch (2,000
//! samples, then bisection).
//!
//! Both answers must keep the same contract: a free step never comes within `ε/2`; a certain
//! contact is within `ε` at its `toc`; in `Toc` mode nothing comes within `ε/2` before
//! `toc` and `toc` is at most the first touch. So the two answers can differ only where the
//! contract lets them: a near miss whose smallest distance lies in `[ε/2, ε]` (one run lands
//! on it, the other steps over it), a pair stopped by the iteration cap (not proven free),
//! and two times of contact inside the band between the first approach within `ε/2` and
//! the first touch. Anything else fails.

mod support;

use ccd_ca_articulated::{ArticulatedScene, BodyStep, Mode, Part, QueryOptions, QueryResult};
use ccd_ca_rigid::Status;
use ccd_geometry::TriMesh;
use ccd_geometry::glam::DVec3;
use ccd_kinematics::ArticulatedMotion;
use proptest::prelude::*;
use support::*;

const EPS: f64 = 1e-3;
const SAMPLES: u32 = 400;
const TOUCH_SAMPLES: u32 = 2000;

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

/// Sampled distances of one step: per sample time, the smallest distance over the pairs
/// (pairs whose boxes are more than `ε` apart count as `ε`-far).
struct Sampled {
    times: Vec<f64>,
    min: Vec<f64>,
}

impl Sampled {
    fn new(
        body: &ccd_ca_articulated::ArticulatedBody,
        motion: &ArticulatedMotion,
        env: Option<&TriMesh>,
        pairs: &[(Part, Part)],
    ) -> Self {
        let times: Vec<f64> = (0..=SAMPLES)
            .map(|k| f64::from(k) / f64::from(SAMPLES))
            .collect();
        let min = times
            .iter()
            .map(|&t| {
                pairs
                    .iter()
                    .map(|&(a, b)| {
                        if boxes_apart(body, motion, env, a, b, t, EPS) {
                            EPS
                        } else {
                            part_distance(body, motion, env, a, b, t).min(EPS)
                        }
                    })
                    .fold(EPS, f64::min)
            })
            .collect();
        Self { times, min }
    }

    /// The smallest sampled distance at times `< end` (`EPS` when none comes closer).
    fn before(&self, end: f64) -> f64 {
        self.times
            .iter()
            .zip(&self.min)
            .filter(|(t, _)| **t < end)
            .map(|(_, d)| *d)
            .fold(EPS, f64::min)
    }

    /// The first sample time whose distance is below `ε/2` (1 when none).
    fn first_within_half(&self) -> f64 {
        self.times
            .iter()
            .zip(&self.min)
            .find(|(_, d)| **d < 0.5 * EPS - 1e-9)
            .map_or(1.0, |(t, _)| *t)
    }
}

/// Checks one answer's contract; returns its kind for the comparison.
fn check_contract(
    (body, motion, env): (
        &ccd_ca_articulated::ArticulatedBody,
        &ArticulatedMotion,
        Option<&TriMesh>,
    ),
    res: &QueryResult,
    mode: Mode,
    touch: Option<f64>,
    sampled: &Sampled,
    what: &str,
) -> Result<Answer, TestCaseError> {
    let Some(c) = res.first() else {
        // free: nothing came within ε/2 anywhere in the step
        let d = sampled.before(f64::INFINITY);
        prop_assert!(
            d >= 0.5 * EPS - 1e-9,
            "{what}: free, but a pair comes within {d} (< ε/2)"
        );
        prop_assert!(
            touch.is_none(),
            "{what}: free, but a pair touches at {touch:?}"
        );
        return Ok(Answer::Free);
    };
    let certain = matches!(
        c.contact.status,
        Status::Converged | Status::InitiallyTouching
    );
    if certain {
        let d = part_distance(body, motion, env, c.a, c.b, c.contact.toc);
        prop_assert!(
            d <= EPS + 1e-9,
            "{what}: distance {d} at the certain contact's toc {}",
            c.contact.toc
        );
    }
    if mode == Mode::Toc {
        let d = sampled.before(c.contact.toc);
        prop_assert!(
            d >= 0.5 * EPS - 1e-9,
            "{what}: a pair comes within {d} (< ε/2) before toc {}",
            c.contact.toc
        );
        if let Some(r) = touch {
            prop_assert!(
                c.contact.toc <= r + 1e-9,
                "{what}: toc {} after the first touch {r}",
                c.contact.toc
            );
        }
    }
    Ok(if certain {
        Answer::Contact(c.contact.toc)
    } else {
        Answer::Unproven(c.contact.toc)
    })
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Answer {
    Free,
    Contact(f64),
    Unproven(f64),
}

proptest! {
    // each case samples every pair densely: a quarter of PROPTEST_CASES (64 in CI)
    #![proptest_config(ProptestConfig { cases: (ProptestConfig::default().cases / 4).max(1), ..ProptestConfig::default() })]

    #[test]
    fn temporal_culling_on_and_off_give_the_same_answers(
        plan in tree(5),
        env in environment(),
        seed in prop::collection::vec(-1.0..1.0f64, 16),
        boolean in any::<bool>(),
    ) {
        let body = body_of(&plan);
        let model = body.model();
        let (q0, q1) = joints(model, &seed);
        let motion = ArticulatedMotion::from_joints(model, &q0, &q1).unwrap();
        let mut scene = ArticulatedScene::new();
        scene.add_articulated(body_of(&plan));
        if let Some(e) = &env {
            scene.set_environment(env_arc(e));
        }
        let mode = if boolean { Mode::Boolean } else { Mode::Toc };
        let step = [BodyStep::Joints { q0: &q0, q1: &q1 }];
        let on = scene.query(&step, &QueryOptions::default().with_mode(mode)).unwrap();
        let off = scene
            .query(&step, &QueryOptions::default().with_mode(mode).with_temporal_culling(false))
            .unwrap();
        let pairs = all_pairs(&body, env.is_some());
        let sampled = Sampled::new(&body, &motion, env.as_ref(), &pairs);
        let touch = pairs
            .iter()
            .filter_map(|&(a, b)| reference_pair(&body, &motion, env.as_ref(), a, b, TOUCH_SAMPLES))
            .reduce(f64::min);
        let x = check_contract((&body, &motion, env.as_ref()), &on, mode, touch, &sampled, "on")?;
        let y = check_contract((&body, &motion, env.as_ref()), &off, mode, touch, &sampled, "off")?;
        let closest = sampled.before(f64::INFINITY);
        match (x, y) {
            (Answer::Free, Answer::Free) => {}
            // one run lands on a near miss the other steps over: the contract allows it only
            // when the step never comes within ε/2 (the free answer's check above) and the
            // contact is within ε (the certain answer's check above)
            (Answer::Free, _) | (_, Answer::Free) => prop_assert!(
                closest >= 0.5 * EPS - 1e-9,
                "free vs {x:?}/{y:?} with a pair within {closest}"
            ),
            (Answer::Contact(a), Answer::Contact(b)) if mode == Mode::Toc => {
                // both in the band [first approach within ε/2, first touch]
                let band = touch.unwrap_or(1.0) - sampled.first_within_half().min(a.min(b));
                let lo = a.min(b) - 1.0 / f64::from(SAMPLES);
                prop_assert!(
                    (a - b).abs() <= band.max(0.0) + 1.0 / f64::from(SAMPLES),
                    "tocs {a} and {b} differ by more than the band [{lo}, {touch:?}]"
                );
            }
            _ => {}
        }
        // a pair that comes clearly closer than ε/2 is a contact in both runs
        if closest < 0.5 * EPS - 1e-9 {
            prop_assert!(x != Answer::Free && y != Answer::Free);
        }
    }
}

/// Resting contacts: four links of one body all touch the environment at `t = 0`. Their lower
/// bounds are all 0, so once the first one's contact holds `t_min = 0` the others can only
/// tie: temporal culling runs one pair's CA, and the answer (time, pair, status) is the one
/// the query gives without temporal culling. (With temporal culling the resting-contact
/// probe answers the step from the first pair before any swept box is built: the spatial
/// culling counter then counts only the pairs it examined, one.)
#[test]
fn resting_contacts_run_one_pair_and_keep_the_answer() {
    use ccd_ca_articulated::ArticulatedBody;
    use ccd_geometry::glam::DAffine3;
    use ccd_kinematics::{ArticulatedModel, Joint, LinkSpec};
    let links = (0..4usize)
        .map(|k| LinkSpec {
            name: format!("l{k}"),
            parent: k.checked_sub(1).map(|p| format!("l{p}")),
            joint: if k == 0 {
                Joint::Prismatic {
                    axis: DVec3::X,
                    limits: None,
                }
            } else {
                Joint::Fixed
            },
            offset: DAffine3::from_translation(DVec3::new(
                if k == 0 { 0.0 } else { 1.5 },
                0.0,
                0.0,
            )),
        })
        .collect();
    let model = ArticulatedModel::new(links).unwrap();
    let meshes = (0..4)
        .map(|_| Some(TriMesh::cuboid(DVec3::ZERO, DVec3::ONE).unwrap()))
        .collect();
    let mut scene = ArticulatedScene::new();
    scene.add_articulated(ArticulatedBody::from_meshes(model, meshes).unwrap());
    // a floor whose top face is the links' bottom face (z = 0)
    scene.set_environment(env_arc(
        &TriMesh::cuboid(DVec3::new(-2.0, -2.0, -1.0), DVec3::new(9.0, 3.0, 0.0)).unwrap(),
    ));
    let step = [BodyStep::Joints {
        q0: &[0.0],
        q1: &[0.5],
    }];
    let on = scene.query(&step, &QueryOptions::default()).unwrap();
    let off = scene
        .query(&step, &QueryOptions::default().with_temporal_culling(false))
        .unwrap();
    assert_eq!(on.stats.pairs_after_spatial, 1, "{:?}", on.stats);
    assert_eq!(off.stats.pairs_after_spatial, 4, "{:?}", off.stats);
    assert_eq!(on.stats.pairs_after_temporal, 1, "{:?}", on.stats);
    assert_eq!(off.stats.pairs_after_temporal, 4, "{:?}", off.stats);
    // without the resting-contact probe, spatial culling keeps the 4 resting pairs and
    // temporal culling runs one of them: CATCH's Table 2 counts
    let unprobed = scene
        .query(&step, &QueryOptions::default().with_resting_probe(false))
        .unwrap();
    assert_eq!(
        unprobed.stats.pairs_after_spatial, 4,
        "{:?}",
        unprobed.stats
    );
    assert_eq!(
        unprobed.stats.pairs_after_temporal, 1,
        "{:?}",
        unprobed.stats
    );
    let (a, b) = (on.first().unwrap(), off.first().unwrap());
    assert_eq!(a.contact.toc, 0.0);
    assert_eq!((a.a, a.b, a.contact.toc), (b.a, b.b, b.contact.toc));
    assert_eq!(a.contact.status, b.contact.status);
    let c = unprobed.first().unwrap();
    assert_eq!((a.a, a.b, a.contact.toc), (c.a, c.b, c.contact.toc));
}
