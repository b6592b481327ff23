//! Fuzz target: articulated CCD (`ccd_ca_articulated::ArticulatedScene::query`, CATCH) on a chain or
//! tree of up to 4 links (revolute, prismatic or fixed joints with lattice axes and offsets,
//! link meshes of up to 2 triangles on a shared lattice of any scale) before an environment
//! of up to 3 triangles, with joint values from the whole `f64` range and arbitrary options;
//! and the same step through `AdaptiveScene` with every joint active.
//!
//! Oracle: no panic, no hang; an accepted query's contacts have `toc` in `[0, 1]`; the
//! adaptive query answers exactly as the full one on the whole step (`segment_turn = ∞`;
//! the adaptive query never splits) (same error kind, or the same first
//! contact: parts and `toc` bit for bit) unless either first contact is only a lower bound
//! (`OutOfIterations`, `Stalled`: e.g. a joint turning 30,000 rad, where the full query's
//! Taylor boxes give up and its CA hits the cap while the adaptive query's interval boxes
//! prove the step free); and if at a sampled time `t` (33 samples, both ends
//! included) a link clearly intersects the environment (an edge of one pierces a triangle of
//! the other with margins, in the normalised frame; link poses from
//! `ccd_kinematics::ArticulatedMotion::world_at`, not from the crate under test), a contact
//! is reported at or before `t` (in Boolean mode: some contact).
#![no_main]

use std::sync::Arc;

use arbitrary::Arbitrary;
use ccd_bvh::{BvhOptions, MeshBvh, Rss};
use ccd_ca_articulated::{
    AdaptiveScene, AdaptiveStep, ArticulatedBody, ArticulatedScene, BodyStep, EnclosureKind, Mode,
    QueryOptions,
};
use ccd_fuzz::{Num, Points, Tolerance, lattice_pose, normalise, triangles_clearly_intersect};
use ccd_geometry::TriMesh;
use ccd_geometry::glam::{DAffine3, DVec3};
use ccd_kinematics::{ArticulatedModel, ArticulatedMotion, Joint, LinkId, LinkSpec};
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
struct Link {
    /// Parent: an earlier link (mod its index).
    parent: u8,
    /// 0 revolute, 1 prismatic, else fixed.
    joint: u8,
    /// Joint axis (normalised; zero is refused by the model).
    axis: [i8; 3],
    /// Offset rotation, a quaternion on a small lattice (zero: identity).
    rotation: [i8; 4],
    /// Offset translation in lattice steps.
    translation: [i16; 3],
    /// Up to two triangles of the link's mesh: vertex indices mod 6 into the first six points.
    triangles: [[u8; 3]; 2],
    /// 0: no mesh; else 1 or 2 triangles.
    count: u8,
}

#[derive(Arbitrary, Debug)]
struct Input {
    /// Six vertices shared by the link meshes (link frames), then six of the environment.
    points: Points<12>,
    links: [Link; 4],
    /// 2 to 4 links.
    n_links: u8,
    /// Environment triangles (indices mod 6 into the last six points), 1 to 3.
    env: [[u8; 3]; 3],
    env_count: u8,
    /// `q0` then `q1` (one dof per revolute or prismatic link).
    q: [Num; 8],
    tolerance: Tolerance,
    mode: u8,
    interval: bool,
    self_collision: bool,
    temporal_culling: bool,
    max_iterations: Option<u16>,
}

fn mesh(vertices: &[DVec3], triangles: &[[u8; 3]]) -> Option<TriMesh> {
    let tris = triangles
        .iter()
        .map(|t| t.map(|i| u32::from(i % 6)))
        .collect();
    TriMesh::new(vertices.to_vec(), tris).ok()
}

/// World triangles of `mesh` under `pose`.
fn placed(mesh: &TriMesh, pose: &DAffine3) -> Vec<[DVec3; 3]> {
    mesh.triangle_iter()
        .map(|t| [t.a, t.b, t.c].map(|v| pose.transform_point3(v)))
        .collect()
}

/// Whether some link clearly intersects the environment at `t`.
fn clearly_hits_environment(
    meshes: &[Option<TriMesh>],
    motion: &ArticulatedMotion,
    env: &TriMesh,
    t: f64,
) -> bool {
    let world_env = placed(env, &DAffine3::IDENTITY);
    for (i, m) in meshes.iter().enumerate() {
        let Some(m) = m else { continue };
        let Ok(pose) = motion.world_at(LinkId(i as u32), t) else {
            return false;
        };
        let link = placed(m, &pose);
        let all: Vec<DVec3> = link.iter().chain(&world_env).flatten().copied().collect();
        let Some(n) = normalise(&all) else { continue };
        let tri = |k: usize| [n.points[3 * k], n.points[3 * k + 1], n.points[3 * k + 2]];
        if (0..link.len()).any(|a| {
            (0..world_env.len()).any(|b| triangles_clearly_intersect(&tri(a), &tri(link.len() + b)))
        }) {
            return true;
        }
    }
    false
}

/// Whether a result's first contact is only a lower bound (iteration cap, or stalled).
fn undecided(r: &ccd_ca_articulated::QueryResult) -> bool {
    r.first().is_some_and(|c| {
        matches!(
            c.contact.status,
            ccd_ca_rigid::Status::OutOfIterations | ccd_ca_rigid::Status::Stalled
        )
    })
}

fuzz_target!(|input: Input| {
    let e = input.points.spacing_exp();
    let p = input.points.points();
    let n = 2 + usize::from(input.n_links % 3);
    let links = &input.links[..n];
    let specs: Vec<LinkSpec> = links
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let axis = DVec3::new(
                f64::from(l.axis[0]),
                f64::from(l.axis[1]),
                f64::from(l.axis[2]),
            );
            let axis = axis.try_normalize().unwrap_or(axis);
            LinkSpec {
                name: format!("l{i}"),
                parent: (i > 0).then(|| format!("l{}", usize::from(l.parent) % i)),
                joint: match l.joint % 3 {
                    0 => Joint::Revolute { axis, limits: None },
                    1 => Joint::Prismatic { axis, limits: None },
                    _ => Joint::Fixed,
                },
                offset: if i == 0 {
                    DAffine3::IDENTITY
                } else {
                    lattice_pose(l.rotation, l.translation, e)
                },
            }
        })
        .collect();
    let Ok(model) = ArticulatedModel::new(specs) else {
        return;
    };
    let meshes: Vec<Option<TriMesh>> = links
        .iter()
        .map(|l| match l.count % 3 {
            0 => None,
            c => mesh(&p[..6], &l.triangles[..usize::from(c)]),
        })
        .collect();
    let Ok(body) = ArticulatedBody::from_meshes(model.clone(), meshes.clone()) else {
        return;
    };
    let env = mesh(&p[6..], &input.env[..1 + usize::from(input.env_count % 3)]);
    let mut scene = ArticulatedScene::new();
    scene.add_articulated(body);
    if let Some(env) = &env {
        let Ok(bvh) = MeshBvh::<Rss>::new(env.clone(), &BvhOptions::default()) else {
            return;
        };
        scene.set_environment(Arc::new(bvh));
    }
    let dof = model.dof();
    let q0: Vec<f64> = input.q[..dof].iter().map(|x| x.value()).collect();
    let q1: Vec<f64> = input.q[4..4 + dof].iter().map(|x| x.value()).collect();
    let mut opts = QueryOptions::default();
    opts.tolerance = input.tolerance.value(opts.tolerance, e);
    opts.mode = match input.mode % 3 {
        0 => Mode::Toc,
        1 => Mode::Boolean,
        _ => Mode::All,
    };
    if input.interval {
        opts.enclosure = EnclosureKind::Interval;
    }
    opts.self_collision = input.self_collision;
    opts.temporal_culling = input.temporal_culling;
    if let Some(k) = input.max_iterations {
        opts.max_iterations = u32::from(k);
    }
    let full = scene.query(&[BodyStep::Joints { q0: &q0, q1: &q1 }], &opts);
    // the adaptive query, every joint active, answers as the full one on the whole step (it
    // never splits long steps: `QueryOptions::segment_turn`)
    let whole = scene.query(
        &[BodyStep::Joints { q0: &q0, q1: &q1 }],
        &opts.with_segment_turn(f64::INFINITY),
    );
    let active: Vec<LinkId> = (0..n as u32).map(LinkId).collect();
    let mut adaptive = AdaptiveScene::new(scene.clone());
    let ours = adaptive.query(
        &[AdaptiveStep {
            q0: &q0,
            q1: &q1,
            active: &active,
        }],
        &opts,
    );
    match (&whole, &ours) {
        // (an answer at the iteration cap, or stalled, is only a lower bound: the other
        // query may decide the step where this one could not)
        (Ok(f), Ok(a)) if !(undecided(f) || undecided(a)) => {
            let key = |r: &ccd_ca_articulated::QueryResult| {
                r.first().map(|c| (c.a, c.b, c.contact.toc.to_bits()))
            };
            assert_eq!(
                key(f),
                key(a),
                "adaptive and full queries disagree: full {:?}, adaptive {:?}",
                f.first().map(|c| c.contact.status),
                a.first().map(|c| c.contact.status)
            );
        }
        (Ok(_), Ok(_)) => {}
        (Err(x), Err(y)) => assert_eq!(
            std::mem::discriminant(x),
            std::mem::discriminant(y),
            "different errors: {x} / {y}"
        ),
        (x, y) => panic!(
            "one query failed: full (whole step) {:?}, adaptive {:?}",
            x.as_ref().err(),
            y.as_ref().err()
        ),
    }
    let Ok(result) = full else {
        return;
    };
    for c in &result.contacts {
        assert!(
            (0.0..=1.0).contains(&c.contact.toc),
            "toc {} outside [0, 1]",
            c.contact.toc
        );
    }
    let (Some(env), Ok(motion)) = (&env, ArticulatedMotion::from_joints(&model, &q0, &q1)) else {
        return;
    };
    for k in 0..=32 {
        let t = f64::from(k) / 32.0;
        if clearly_hits_environment(&meshes, &motion, env, t) {
            match result.first() {
                None => panic!("missed: a link clearly intersects the environment at t = {t}"),
                Some(c) if opts.mode != Mode::Boolean => assert!(
                    c.contact.toc <= t,
                    "late: toc {} after an intersection at t = {t}",
                    c.contact.toc
                ),
                Some(_) => {}
            }
            break;
        }
    }
});
