//! Both methods against the brute-force reference: dense time sampling (10,000 samples) of
//! the exact capsule–triangle distances, then bisection. Random capsule chains (large
//! rotations), random triangle soups and random motions; closed-form cases (pure
//! translation, a thin plate crossed in one step); sampled containment of the capsule in the
//! tessellated, inflated swept volume.

use ccd_avatar_sv::{
    Avatar, AvatarStepOptions, Environment, ExactOptions, LinkCapsule, Methods, Status, SvOptions,
    step, tessellate,
};
use ccd_distance::segment_triangle;
use ccd_geometry::{TriMesh, Triangle};
use ccd_kinematics::glam::{DAffine3, DVec3};
use ccd_kinematics::{ArticulatedModel, ArticulatedMotion, Joint, LinkId, LinkSpec, Pose};
use proptest::prelude::*;

const SAMPLES: usize = 10_000;

/// Smallest surface gap over all capsules and triangles at time `t`.
fn gap_at(avatar: &Avatar, motion: &ArticulatedMotion, tris: &[Triangle], t: f64) -> f64 {
    let mut g = f64::INFINITY;
    for c in avatar.capsules() {
        let seg = c.world_segment(&motion.world_at(c.link, t).unwrap());
        for tri in tris {
            g = g.min(segment_triangle(&seg, tri).distance - c.radius);
        }
    }
    g
}

/// The reference TOC: first of `SAMPLES + 1` uniform samples with gap ≤ 0, refined by
/// bisection against the previous sample.
fn reference_toc(avatar: &Avatar, motion: &ArticulatedMotion, tris: &[Triangle]) -> Option<f64> {
    if gap_at(avatar, motion, tris, 0.0) <= 0.0 {
        return Some(0.0);
    }
    let mut prev = 0.0;
    for i in 1..=SAMPLES {
        let t = i as f64 / SAMPLES as f64;
        if gap_at(avatar, motion, tris, t) <= 0.0 {
            let (mut lo, mut hi) = (prev, t);
            for _ in 0..60 {
                let mid = 0.5 * (lo + hi);
                if gap_at(avatar, motion, tris, mid) <= 0.0 {
                    hi = mid;
                } else {
                    lo = mid;
                }
            }
            return Some(hi);
        }
        prev = t;
    }
    None
}

#[derive(Debug)]
struct Case {
    avatar: Avatar,
    pose0: Pose,
    pose1: Pose,
    mesh: TriMesh,
}

fn chain_model(lengths: &[f64]) -> ArticulatedModel {
    let specs = lengths
        .iter()
        .enumerate()
        .map(|(i, _)| LinkSpec {
            name: format!("l{i}"),
            parent: (i > 0).then(|| format!("l{}", i - 1)),
            joint: if i == 0 {
                Joint::Floating
            } else {
                Joint::Spherical
            },
            offset: if i == 0 {
                DAffine3::IDENTITY
            } else {
                DAffine3::from_translation(DVec3::X * lengths[i - 1])
            },
        })
        .collect();
    ArticulatedModel::new(specs).unwrap()
}

fn v3(r: f64) -> impl Strategy<Value = DVec3> {
    (-r..r, -r..r, -r..r).prop_map(|(x, y, z)| DVec3::new(x, y, z))
}

fn joint_values(n: usize) -> impl Strategy<Value = Vec<f64>> {
    // root: translation in a 1 m box and a rotation vector up to 2.5 rad; children up to 2 rad
    (v3(0.5), v3(1.45), prop::collection::vec(v3(1.15), n - 1)).prop_map(|(t, r, kids)| {
        let mut q = vec![t.x, t.y, t.z, r.x, r.y, r.z];
        for k in kids {
            q.extend([k.x, k.y, k.z]);
        }
        q
    })
}

fn case() -> impl Strategy<Value = Case> {
    (1usize..=3)
        .prop_flat_map(|n| {
            (
                prop::collection::vec((0.3f64..1.0, 0.02f64..0.2), n),
                joint_values(n),
                joint_values(n),
                prop::collection::vec((v3(2.0), v3(2.0), v3(2.0)), 1..=6),
            )
        })
        .prop_map(|(links, q0, q1, tris)| {
            let lengths: Vec<f64> = links.iter().map(|l| l.0).collect();
            let model = chain_model(&lengths);
            let capsules = links
                .iter()
                .enumerate()
                .map(|(i, &(l, r))| LinkCapsule::along_x(LinkId(i as u32), 0.0, l, r))
                .collect();
            let pose0 = model.pose_from_joints(&q0).unwrap();
            let pose1 = model.pose_from_joints(&q1).unwrap();
            let mut vertices = Vec::new();
            let mut faces = Vec::new();
            for (a, b, c) in tris {
                let k = vertices.len() as u32;
                vertices.extend([a, b, c]);
                faces.push([k, k + 1, k + 2]);
            }
            Case {
                avatar: Avatar::new(model, capsules).unwrap(),
                pose0,
                pose1,
                mesh: TriMesh::new(vertices, faces).unwrap(),
            }
        })
}

fn check_against_reference(c: &Case, options: &AvatarStepOptions) -> Result<(), TestCaseError> {
    let env = Environment::new(c.mesh.clone()).unwrap();
    let report = step(&c.avatar, &env, &c.pose0, &c.pose1, options).unwrap();
    let motion = ArticulatedMotion::between(c.avatar.model(), &c.pose0, &c.pose1).unwrap();
    let tris: Vec<Triangle> = c.mesh.triangle_iter().collect();
    let reference = reference_toc(&c.avatar, &motion, &tris);
    let eps = options.exact.tolerance;
    if let Some(exact) = report.exact {
        match (reference, exact.contact) {
            (Some(r), None) => {
                return Err(TestCaseError::fail(format!(
                    "exact method missed the contact at {r}"
                )));
            }
            (Some(r), Some(e)) => prop_assert!(e.toc <= r + 1e-9, "exact toc {} > ref {r}", e.toc),
            _ => {}
        }
        if let Some(e) = exact.contact {
            // a reported contact is genuine within ε (the reference may miss a graze)
            let g = gap_at(&c.avatar, &motion, &tris, e.toc);
            if e.status == Status::Converged {
                prop_assert!(g <= eps + 1e-9, "gap {g} at the reported toc {}", e.toc);
            }
            prop_assert!((e.distance - g).abs() <= 1e-9 || e.distance >= g);
        }
    }
    if let Some(sv) = report.swept {
        if let Some(r) = reference {
            prop_assert!(
                sv.collision.is_some(),
                "SV method missed the contact at {r}"
            );
            prop_assert!(sv.t_c <= r + 1e-9, "t_c {} > reference {r}", sv.t_c);
        }
        // the paper's t_c is never after the exact TOC (both are lower bounds of the first
        // contact; t_c could pass the exact TOC only when the contact begins within ε of a
        // backtracking sub-group's start)
        if let Some(e) = report.exact.and_then(|x| x.contact) {
            prop_assert!(
                sv.t_c <= e.toc + 1e-9,
                "t_c {} after the exact TOC {}",
                sv.t_c,
                e.toc
            );
        }
        if let Some(col) = sv.collision {
            prop_assert!(col.t_c <= col.upper_bound && col.upper_bound <= 1.0);
            prop_assert_eq!(col.t_c, sv.t_c);
        } else {
            prop_assert_eq!(sv.t_c, 1.0);
        }
        // the safe pose is the motion at t_c
        let world = sv.safe_pose.world_transforms(c.avatar.model()).unwrap();
        let expect = motion.world_all_at(sv.t_c);
        for (a, b) in world.iter().zip(&expect) {
            prop_assert!(a.abs_diff_eq(*b, 1e-9));
        }
    }
    Ok(())
}

proptest! {
    #[test]
    fn both_methods_never_miss_and_never_report_late(c in case()) {
        check_against_reference(&c, &AvatarStepOptions::default())?;
    }

    #[test]
    fn coarse_tessellation_stays_conservative(c in case()) {
        let options = AvatarStepOptions::default().with_methods(Methods::SweptVolume).with_swept(
            SvOptions::default().with_tessellation_error(0.5).with_max_groups(2).with_backtrack_steps(2),
        );
        check_against_reference(&c, &options)?;
    }

    #[test]
    fn exact_method_is_conservative_with_any_culling_group_count(
        c in case(),
        groups in prop::sample::select(vec![1usize, 2, 64]),
    ) {
        let options = AvatarStepOptions::default()
            .with_methods(Methods::Exact)
            .with_exact(ExactOptions::default().with_max_groups(groups));
        check_against_reference(&c, &options)?;
    }

    #[test]
    fn exact_method_is_conservative_at_any_iteration_cap(
        c in case(),
        cap in prop::sample::select(vec![1usize, 2, 5, 50]),
    ) {
        // the groups share the cap through the driver's counter: a capped answer is the time
        // reached, never after the first contact
        let options = AvatarStepOptions::default()
            .with_methods(Methods::Exact)
            .with_exact(ExactOptions::default().with_max_iterations(cap));
        check_against_reference(&c, &options)?;
    }

    #[test]
    fn tessellated_volume_contains_every_sampled_capsule_point(
        c in case(),
        samples in prop::collection::vec((0.0f64..=1.0, 0.0f64..=1.0, v3(1.0), 0.0f64..=1.0), 200),
        coarse in any::<bool>(),
    ) {
        let options = if coarse {
            SvOptions::default().with_tessellation_error(0.3).with_max_groups(3).with_backtrack_steps(1)
        } else {
            SvOptions::default()
        };
        let motion = ArticulatedMotion::between(c.avatar.model(), &c.pose0, &c.pose1).unwrap();
        for cap in c.avatar.capsules() {
            let groups = tessellate(&motion, c.avatar.model(), cap, 0.0, 1.0, &options).unwrap();
            prop_assert!(groups.len() <= options.max_groups);
            prop_assert_eq!(groups[0].t0, 0.0);
            prop_assert_eq!(groups[groups.len() - 1].t1, 1.0);
            for w in groups.windows(2) {
                prop_assert_eq!(w[0].t1, w[1].t0);
            }
            for &(t, s, dir, depth) in &samples {
                let seg = cap.world_segment(&motion.world_at(cap.link, t).unwrap());
                let p = seg.point_at(s) + dir.normalize_or_zero() * cap.radius * depth;
                let g = groups.iter().find(|g| g.t0 <= t && t <= g.t1).unwrap();
                let gap = g.signed_gap(p);
                prop_assert!(gap <= 1e-9, "point at t = {t} outside its group by {gap} (δ = {})", g.error);
            }
        }
    }
}

fn single_link(radius: f64) -> Avatar {
    let model = chain_model(&[1.0]);
    Avatar::new(
        model,
        vec![LinkCapsule::along_x(LinkId(0), 0.0, 1.0, radius)],
    )
    .unwrap()
}

#[test]
fn pure_translation_onto_a_plane_in_closed_form() {
    // capsule (0,0,0)–(1,0,0), r = 0.1, falls 1 m onto z = -0.5: contact at t = 0.4
    let avatar = single_link(0.1);
    let floor = TriMesh::new(
        vec![
            DVec3::new(-5.0, -5.0, -0.5),
            DVec3::new(5.0, -5.0, -0.5),
            DVec3::new(0.0, 5.0, -0.5),
        ],
        vec![[0, 1, 2]],
    )
    .unwrap();
    let env = Environment::new(floor).unwrap();
    let p0 = Pose {
        relative: vec![DAffine3::IDENTITY],
    };
    let p1 = Pose {
        relative: vec![DAffine3::from_translation(DVec3::new(0.0, 0.0, -1.0))],
    };
    let r = step(&avatar, &env, &p0, &p1, &AvatarStepOptions::default()).unwrap();
    let e = r.exact.unwrap().contact.unwrap();
    assert!(e.toc <= 0.4 && e.toc > 0.4 - 1e-5, "{}", e.toc);
    assert!((e.point_b.z + 0.5).abs() < 1e-12);
    let sv = r.swept.unwrap();
    assert!(sv.t_c <= 0.4 && sv.t_c > 0.3, "{}", sv.t_c);
    assert!(sv.collision.unwrap().upper_bound >= sv.t_c);
}

#[test]
fn a_step_starting_in_contact_is_reported_as_such() {
    // the capsule lies across the plane z = 0 in the first pose and moves away from it
    let avatar = single_link(0.1);
    let floor = TriMesh::new(
        vec![
            DVec3::new(-5.0, -5.0, 0.05),
            DVec3::new(5.0, -5.0, 0.05),
            DVec3::new(0.0, 5.0, 0.05),
        ],
        vec![[0, 1, 2]],
    )
    .unwrap();
    let env = Environment::new(floor).unwrap();
    let p0 = Pose {
        relative: vec![DAffine3::IDENTITY],
    };
    let p1 = Pose {
        relative: vec![DAffine3::from_translation(DVec3::new(0.0, 0.0, -1.0))],
    };
    let r = step(&avatar, &env, &p0, &p1, &AvatarStepOptions::default()).unwrap();
    let exact = r.exact.unwrap();
    assert!(exact.starts_in_contact);
    let e = exact.contact.unwrap();
    assert_eq!(e.toc, 0.0);
    assert!(
        e.distance < 0.0 && (e.distance + 0.05).abs() < 1e-12,
        "{}",
        e.distance
    );
    assert_eq!(r.swept.unwrap().t_c, 0.0);
    // the same motion from above the plane: a new contact, not a starting one
    let p0 = Pose {
        relative: vec![DAffine3::from_translation(DVec3::new(0.0, 0.0, 0.5))],
    };
    let r = step(&avatar, &env, &p0, &p1, &AvatarStepOptions::default()).unwrap();
    let exact = r.exact.unwrap();
    assert!(!exact.starts_in_contact);
    assert!(exact.contact.unwrap().toc > 0.2);
}

#[test]
fn thin_plate_crossed_in_one_step_is_found() {
    // the arm swings 180° about z; a thin plate at y = 0.5 stands in its way; neither end
    // pose touches it
    let avatar = single_link(0.01);
    let plate = TriMesh::new(
        vec![
            DVec3::new(0.2, 0.5, -0.1),
            DVec3::new(0.9, 0.5, -0.1),
            DVec3::new(0.5, 0.5, 0.1),
        ],
        vec![[0, 1, 2]],
    )
    .unwrap();
    let env = Environment::new(plate.clone()).unwrap();
    let p0 = Pose {
        relative: vec![DAffine3::from_rotation_z(-1.5)],
    };
    let p1 = Pose {
        relative: vec![DAffine3::from_rotation_z(1.5)],
    };
    let r = step(&avatar, &env, &p0, &p1, &AvatarStepOptions::default()).unwrap();
    let motion = ArticulatedMotion::between(avatar.model(), &p0, &p1).unwrap();
    let tris: Vec<Triangle> = plate.triangle_iter().collect();
    let reference = reference_toc(&avatar, &motion, &tris).unwrap();
    let e = r.exact.unwrap().contact.unwrap();
    assert!(e.toc <= reference + 1e-9 && e.toc > reference - 1e-4);
    let sv = r.swept.unwrap();
    assert!(
        sv.t_c <= reference && sv.t_c > reference - 0.1,
        "{} vs {reference}",
        sv.t_c
    );
}

#[test]
fn bad_options_and_poses_are_errors() {
    let avatar = single_link(0.1);
    let env = Environment::new(
        TriMesh::new(
            vec![DVec3::X * 5.0, DVec3::Y * 5.0, DVec3::Z * 5.0],
            vec![[0, 1, 2]],
        )
        .unwrap(),
    )
    .unwrap();
    let p = Pose {
        relative: vec![DAffine3::IDENTITY],
    };
    let mut bad = AvatarStepOptions::default();
    bad.exact.tolerance = 0.0;
    assert!(step(&avatar, &env, &p, &p, &bad).is_err());
    let mut bad = AvatarStepOptions::default();
    bad.swept.tessellation_error = f64::NAN;
    assert!(step(&avatar, &env, &p, &p, &bad).is_err());
    let nan = Pose {
        relative: vec![DAffine3::from_translation(DVec3::NAN)],
    };
    assert!(step(&avatar, &env, &p, &nan, &AvatarStepOptions::default()).is_err());
    let two = Pose {
        relative: vec![DAffine3::IDENTITY; 2],
    };
    assert!(step(&avatar, &env, &p, &two, &AvatarStepOptions::default()).is_err());
    // a stationary avatar far from the environment: no contact, t_c = 1
    let r = step(&avatar, &env, &p, &p, &AvatarStepOptions::default()).unwrap();
    assert!(r.exact.unwrap().contact.is_none());
    assert_eq!(r.swept.unwrap().t_c, 1.0);
}

#[test]
fn random_cases_cover_new_contacts_starting_contacts_and_misses() {
    // the property tests above are only as strong as their cases: this many of a fixed sample
    // of them must touch later in the step, touch at its start, and stay free
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let (mut new, mut start, mut free) = (0, 0, 0);
    for _ in 0..100 {
        let c = case().new_tree(&mut runner).unwrap().current();
        let motion = ArticulatedMotion::between(c.avatar.model(), &c.pose0, &c.pose1).unwrap();
        let tris: Vec<Triangle> = c.mesh.triangle_iter().collect();
        match reference_toc(&c.avatar, &motion, &tris) {
            Some(0.0) => start += 1,
            Some(_) => new += 1,
            None => free += 1,
        }
    }
    eprintln!("of 100 sampled cases: {new} new contacts, {start} start in contact, {free} free");
    assert!(
        new >= 10 && start >= 5 && free >= 10,
        "new {new}, start {start}, free {free}"
    );
}
