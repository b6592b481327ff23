//! CATCH against a cluttered environment: many small boxes scattered around random trees, so
//! that the environment-specific culling is at work (spatial culling of link–environment
//! pairs, and mesh CA restricted to the environment triangles inside a link's swept box).
//! Reference: dense time sampling (2,000 samples per step) with exact distances, per link
//! against each environment box, then bisection.
//!
//! Properties, for Taylor and interval enclosures, with and without temporal culling, in the
//! `Toc`, `Boolean` and `All` modes: never a miss, `toc ≤` the reference `+ 1e-9`, distance
//! at `toc ≤ ε`; `All` reports every link–environment pair the reference sees touch.

mod support;

use std::sync::Arc;

use ccd_bvh::{BvhOptions, MeshBvh};
use ccd_ca_articulated::{
    ArticulatedScene, BodyStep, EnclosureKind, Mode, Part, QueryOptions, QueryResult,
};
use ccd_ca_rigid::Status;
use ccd_distance::mesh_distance_brute_force;
use ccd_geometry::glam::{DAffine3, DVec3};
use ccd_geometry::{Aabb, TriMesh};
use ccd_kinematics::{ArticulatedMotion, LinkId};
use proptest::prelude::*;
use support::*;

const EPS: f64 = 1e-3;
const SAMPLES: u32 = 2000;

/// 4–12 small boxes around the trees' reach.
fn clutter() -> impl Strategy<Value = Vec<(DVec3, DVec3)>> {
    prop::collection::vec(
        (
            prop::array::uniform3(-1.3..1.3f64),
            prop::array::uniform3(0.02..0.2f64),
        )
            .prop_map(|(c, h)| {
                let (c, h) = (DVec3::from_array(c), DVec3::from_array(h));
                (c - h, c + h)
            }),
        4..12,
    )
}

/// The boxes as one environment mesh.
fn merged(boxes: &[(DVec3, DVec3)]) -> TriMesh {
    let (mut v, mut t) = (Vec::new(), Vec::new());
    for &(lo, hi) in boxes {
        let m = TriMesh::cuboid(lo, hi).unwrap();
        let base = v.len() as u32;
        v.extend_from_slice(m.vertices());
        t.extend(m.triangles().iter().map(|f| f.map(|i| i + base)));
    }
    TriMesh::new(v, t).expect("valid clutter")
}

/// Exact distance from link `l` at `t` to the nearest box (boxes farther than their box
/// distance are skipped).
fn env_distance(
    body: &ccd_ca_articulated::ArticulatedBody,
    motion: &ArticulatedMotion,
    boxes: &[(DVec3, DVec3)],
    l: LinkId,
    t: f64,
) -> f64 {
    let pose = motion.world_at(l, t).unwrap();
    let mesh = body.link_shape(l).unwrap().body().mesh_bvh().mesh();
    let lb = Aabb::from_points(mesh.vertices().iter().map(|&v| pose.transform_point3(v)));
    let mut best = f64::INFINITY;
    for &(lo, hi) in boxes {
        let eb = Aabb { min: lo, max: hi };
        if lb.distance(&eb) > best.min(1.0) {
            continue;
        }
        let d = mesh_distance_brute_force(
            mesh,
            &pose,
            &TriMesh::cuboid(lo, hi).unwrap(),
            &DAffine3::IDENTITY,
        )
        .distance;
        best = best.min(d);
    }
    best
}

/// The reference first touch of link `l` with the clutter: dense sampling, then bisection.
fn env_reference(
    body: &ccd_ca_articulated::ArticulatedBody,
    motion: &ArticulatedMotion,
    boxes: &[(DVec3, DVec3)],
    l: LinkId,
) -> Option<f64> {
    let mesh = body.link_shape(l).unwrap().body().mesh_bvh().mesh();
    let touch = |t: f64| {
        let pose = motion.world_at(l, t).unwrap();
        let lb = Aabb::from_points(mesh.vertices().iter().map(|&v| pose.transform_point3(v)));
        boxes.iter().any(|&(lo, hi)| {
            lb.overlaps(&Aabb { min: lo, max: hi })
                && mesh_distance_brute_force(
                    mesh,
                    &pose,
                    &TriMesh::cuboid(lo, hi).unwrap(),
                    &DAffine3::IDENTITY,
                )
                .distance
                    <= 0.0
        })
    };
    let mut prev = 0.0;
    for k in 0..=SAMPLES {
        let t = f64::from(k) / f64::from(SAMPLES);
        if touch(t) {
            if k == 0 {
                return Some(0.0);
            }
            let (mut lo, mut hi) = (prev, t);
            while hi - lo > 1e-12 {
                let mid = 0.5 * (lo + hi);
                if touch(mid) { hi = mid } else { lo = mid }
            }
            return Some(hi);
        }
        prev = t;
    }
    None
}

fn link(l: LinkId) -> Part {
    Part::Link { body: 0, link: l }
}

fn options() -> Vec<(&'static str, QueryOptions)> {
    let with = |f: &dyn Fn(&mut QueryOptions)| {
        let mut o = QueryOptions::default();
        f(&mut o);
        o
    };
    vec![
        ("taylor", QueryOptions::default()),
        ("interval", with(&|o| o.enclosure = EnclosureKind::Interval)),
        ("no temporal culling", with(&|o| o.temporal_culling = false)),
        ("boolean", with(&|o| o.mode = Mode::Boolean)),
        (
            "boolean interval",
            with(&|o| {
                o.mode = Mode::Boolean;
                o.enclosure = EnclosureKind::Interval;
            }),
        ),
        ("all", with(&|o| o.mode = Mode::All)),
    ]
}

proptest! {
    // each case runs dense references: a quarter of PROPTEST_CASES (64 in CI)
    #![proptest_config(ProptestConfig { cases: (ProptestConfig::default().cases / 4).max(1), ..ProptestConfig::default() })]

    #[test]
    fn cluttered_environment_never_missed(
        plan in tree(4),
        boxes in clutter(),
        seed in prop::collection::vec(-1.0..1.0f64, 16),
    ) {
        let body = body_of(&plan);
        let model = body.model();
        let (q0, q1) = joints(model, &seed);
        let motion = ArticulatedMotion::from_joints(model, &q0, &q1).unwrap();
        let mut scene = ArticulatedScene::new();
        scene.add_articulated(body_of(&plan));
        scene.set_environment(Arc::new(MeshBvh::new(merged(&boxes), &BvhOptions::default()).unwrap()));
        // the reference per link against the clutter, and per self pair
        let mut refs: Vec<((Part, Part), f64)> = Vec::new();
        for i in 0..model.len() {
            let id = LinkId(i as u32);
            if body.link_shape(id).is_some()
                && let Some(r) = env_reference(&body, &motion, &boxes, id)
            {
                refs.push(((link(id), Part::Environment), r));
            }
        }
        for (a, b) in body.self_pairs() {
            if let Some(r) = reference_pair(&body, &motion, None, link(a), link(b), SAMPLES) {
                refs.push(((link(a), link(b)), r));
            }
        }
        let first = refs.iter().map(|&(_, r)| r).fold(f64::INFINITY, f64::min);
        for (what, opts) in options() {
            let res: QueryResult = scene.query(&[BodyStep::Joints { q0: &q0, q1: &q1 }], &opts).unwrap();
            if refs.is_empty() {
                continue;
            }
            let c = res.first();
            prop_assert!(c.is_some(), "{what}: missed a contact at t = {first}");
            let c = c.unwrap();
            if opts.mode != Mode::Boolean {
                prop_assert!(c.contact.toc <= first + 1e-9, "{what}: toc {} after the reference {first}", c.contact.toc);
            }
            if c.contact.status != Status::OutOfIterations && c.b == Part::Environment {
                let Part::Link { link: l, .. } = c.a else { unreachable!() };
                let d = env_distance(&body, &motion, &boxes, l, c.contact.toc);
                prop_assert!(d <= EPS + 1e-9, "{what}: distance {d} at toc {}", c.contact.toc);
            }
            if opts.mode == Mode::All {
                for &((a, b), r) in &refs {
                    let found = res.contacts.iter().find(|c| (c.a, c.b) == (a, b));
                    prop_assert!(found.is_some(), "{what}: pair {a:?}-{b:?} touches at {r} but is not reported");
                    prop_assert!(found.unwrap().contact.toc <= r + 1e-9);
                }
            }
        }
    }
}

/// The hull screen of link–environment pairs (`env_pieces`): an environment of separate
/// pieces, a cube sliding through a slot. A piece whose hull the cube enters without
/// touching the piece (the slot of a U, one welded mesh) must fall through to the mesh CA
/// (free), pieces whose hulls stay clear are proven free by their hulls, and a contact with
/// the U's floor is found at its time.
#[test]
fn hull_screen_of_environment_pieces_keeps_the_mesh_answer() {
    use ccd_ca_articulated::{ArticulatedBody, BodyStep};
    use ccd_kinematics::{ArticulatedModel, Joint, LinkSpec};
    let v = DVec3::new;
    // the U: two walls and a floor whose corners coincide (welded into one piece)
    let mut parts = vec![
        (v(-0.2, 0.15, -0.3), v(0.2, 0.45, 0.3)),
        (v(-0.2, -0.45, -0.3), v(0.2, -0.15, 0.3)),
        (v(-0.2, -0.45, -0.6), v(0.2, 0.45, -0.3)),
    ];
    // separate pieces: two cubes beside the path, one far away
    parts.extend([
        (v(0.6, 0.25, -0.2), v(0.9, 0.55, 0.2)),
        (v(0.6, -0.55, -0.2), v(0.9, -0.25, 0.2)),
        (v(5.0, 5.0, 5.0), v(6.0, 6.0, 6.0)),
    ]);
    let env = env_arc(&merged(&parts));
    let slide = |axis: DVec3| {
        ArticulatedModel::new(vec![LinkSpec {
            name: "cube".into(),
            parent: None,
            joint: Joint::Prismatic { axis, limits: None },
            offset: DAffine3::IDENTITY,
        }])
        .unwrap()
    };
    let cube = TriMesh::cuboid(v(-0.1, -0.1, -0.1), v(0.1, 0.1, 0.1)).unwrap();
    let scene_of = |axis: DVec3| {
        let body = ArticulatedBody::from_meshes(slide(axis), vec![Some(cube.clone())]).unwrap();
        let mut s = ArticulatedScene::new();
        s.add_articulated(body);
        s.set_environment(env.clone());
        s
    };
    // along x through the slot (0.05 clear of each wall, 0.2 above the floor) and between
    // the two cubes: free in every mode
    let along = scene_of(DVec3::X);
    for (name, opts) in options() {
        let r = along
            .query(
                &[BodyStep::Joints {
                    q0: &[-2.0],
                    q1: &[2.0],
                }],
                &opts,
            )
            .unwrap();
        assert!(r.first().is_none(), "{name}: {:?}", r.first());
    }
    // down z onto the floor: the cube's bottom (z − 0.1) meets z = −0.3 at t = 0.7
    let down = scene_of(DVec3::Z);
    for (name, opts) in options() {
        let r = down
            .query(
                &[BodyStep::Joints {
                    q0: &[0.5],
                    q1: &[-0.5],
                }],
                &opts,
            )
            .unwrap();
        let c = r.first().unwrap_or_else(|| panic!("{name}: missed"));
        assert_eq!(c.b, Part::Environment, "{name}");
        assert!(
            c.contact.toc <= 0.7 && c.contact.toc >= 0.7 - 2e-3,
            "{name}: toc {}",
            c.contact.toc
        );
    }
}
