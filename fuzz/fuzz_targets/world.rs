//! Fuzz target: many-body rigid CCD (`ccd_world::World::step`) on up to 6 bodies — balls,
//! capsules, cuboids, cylinders (sizes on a lattice of any scale) and a small convex or
//! non-convex mesh — with lattice poses and velocities (or any `f64`), declared
//! accelerations, static bodies, removals and several steps with motions changed between
//! them, in every mode with scheduling and the sweep-and-prune on or off.
//!
//! Oracle: no panic, no hang; when every brute-force pair query (every pair with a dynamic
//! body, `ccd_ca_rigid::cast` with a `RigidPair`: code of `ccd-ca-rigid` that the world calls, without
//! its pairing, culling and scheduling) is accepted, every step is accepted, each contact of
//! the all-contacts mode is the brute force's answer for its pair, and every exact brute-force
//! contact (converged, or touching at the start) is reported (an undecided one, stalled or
//! out of iterations, may be culled by the world's bounds); the earliest-contact mode
//! reports the brute force's earliest exact contact when all are exact, and no later one
//! otherwise; the Boolean mode collides when an exact contact exists.
#![no_main]

use std::collections::BTreeMap;
use std::sync::Arc;

use arbitrary::Arbitrary;
use ccd_bvh::{BvhOptions, MeshBvh, Rss};
use ccd_ca_rigid::{
    CaOptions, CastOptions, CastWorkspace, RigidBody, RigidPair, Shape, ShapeContact, Status, cast,
};
use ccd_distance::{Ball, Capsule, Cuboid, Cylinder};
use ccd_fuzz::{Num, ldexp};
use ccd_geometry::TriMesh;
use ccd_geometry::glam::{DAffine3, DVec3};
use ccd_kinematics::RigidMotion;
use ccd_world::{BodyHandle, BroadPhase, Collider, Mode, StepOptions, World};
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
enum Kind {
    Ball(u8),
    Capsule(u8, u8),
    Cuboid([u8; 3]),
    Cylinder(u8, u8),
    Tetra,
    Ell,
}

#[derive(Arbitrary, Debug)]
struct Pose {
    rotation: [i8; 4],
    translation: [i16; 3],
}

#[derive(Arbitrary, Debug)]
struct Body {
    kind: Kind,
    pose: Pose,
    /// Linear and angular velocity in lattice steps per step.
    v: [i16; 3],
    w: [i8; 3],
    acceleration: Option<Num>,
    fixed: bool,
}

#[derive(Arbitrary, Debug)]
enum Op {
    /// Body `k`'s motion restarts at a new pose with new velocities.
    Restart(u8, Pose, [i16; 3], [i8; 3]),
    /// Body `k` keeps its pose, with new velocities.
    Velocities(u8, [i16; 3], [i8; 3]),
    /// Body `k` leaves the world.
    Remove(u8),
    /// A raw velocity component (NaN, infinities...).
    Raw(u8, f64),
}

#[derive(Arbitrary, Debug)]
struct Input {
    /// Binary exponent of the lattice spacing (clamped to `[-60, 60]`: sizes and positions
    /// of any magnitude the bodies' own domain takes; beyond, inserts fail cleanly).
    exp: i8,
    bodies: Vec<Body>,
    ops: Vec<Op>,
    steps: u8,
    scheduling: bool,
    all_pairs: bool,
}

fn size(k: u8, unit: f64) -> f64 {
    unit * f64::from(k % 64 + 1) / 8.0
}

fn collider(kind: &Kind, unit: f64) -> Option<Collider> {
    let shape = |s: Shape| Collider::shape(s).ok();
    let mesh = |v: Vec<DVec3>, t: Vec<[u32; 3]>, convex: bool| {
        let m = TriMesh::new(v.into_iter().map(|p| p * unit).collect(), t).ok()?;
        let tree = Arc::new(MeshBvh::<Rss>::new(m, &BvhOptions::default()).ok()?);
        let body = RigidBody::with_hull(tree).ok()?;
        if convex {
            Collider::convex(body).ok()
        } else {
            Collider::mesh(body).ok()
        }
    };
    match *kind {
        Kind::Ball(r) => shape(Shape::Ball(Ball::new(size(r, unit)).ok()?)),
        Kind::Capsule(h, r) => shape(Shape::Capsule(
            Capsule::new_y(size(h, unit), size(r, unit)).ok()?,
        )),
        Kind::Cuboid(h) => shape(Shape::Cuboid(
            Cuboid::new(DVec3::new(
                size(h[0], unit),
                size(h[1], unit),
                size(h[2], unit),
            ))
            .ok()?,
        )),
        Kind::Cylinder(h, r) => shape(Shape::Cylinder(
            Cylinder::new(size(h, unit), size(r, unit)).ok()?,
        )),
        Kind::Tetra => mesh(
            vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z],
            vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
            true,
        ),
        // an L of two boxes' faces (non-convex, open)
        Kind::Ell => mesh(
            vec![
                DVec3::ZERO,
                DVec3::new(2.0, 0.0, 0.0),
                DVec3::new(2.0, 0.5, 0.0),
                DVec3::new(0.0, 0.5, 0.0),
                DVec3::new(0.0, 0.5, 2.0),
                DVec3::new(0.0, 0.0, 2.0),
            ],
            vec![[0, 1, 2], [0, 2, 3], [0, 3, 4], [0, 4, 5]],
            false,
        ),
    }
}

fn pose(p: &Pose, e: i32) -> DAffine3 {
    ccd_fuzz::lattice_pose(p.rotation, p.translation, e)
}

fn velocities(v: [i16; 3], w: [i8; 3], e: i32) -> (DVec3, DVec3) {
    (
        DVec3::from_array(v.map(|c| ldexp(f64::from(c), e))),
        DVec3::from_array(w.map(|c| f64::from(c) / 16.0)),
    )
}

/// Every pair with a dynamic body, by CA; `None` when a pair query is refused.
fn brute(world: &World, mode: Mode) -> Option<BTreeMap<(u32, u32), ShapeContact>> {
    let opts = CastOptions::from(world.ca_options().with_mode(mode));
    let mut ws = CastWorkspace::default();
    let hs: Vec<BodyHandle> = world.handles().collect();
    let mut out = BTreeMap::new();
    for (i, &a) in hs.iter().enumerate() {
        for &b in &hs[i + 1..] {
            if world.is_static(a).ok()? && world.is_static(b).ok()? {
                continue;
            }
            let (ca, cb) = (world.collider(a).ok()?, world.collider(b).ok()?);
            let (ma, mb) = (world.motion(a).ok()?, world.motion(b).ok()?);
            let pair = RigidPair { a: ma, b: mb };
            if let Some(c) = cast(ca, cb, &pair, &opts, &mut ws).ok()?.contact {
                out.insert((a.index(), b.index()), c);
            }
        }
    }
    Some(out)
}

fuzz_target!(|input: Input| {
    let e = i32::from(input.exp).clamp(-60, 60);
    let unit = ldexp(1.0, e);
    let base = StepOptions::default()
        .with_scheduling(input.scheduling)
        .with_broad_phase(if input.all_pairs {
            BroadPhase::AllPairs
        } else {
            BroadPhase::SweepAndPrune
        });
    let modes = [Mode::All, Mode::Toc, Mode::Boolean];
    let ca = CaOptions::default();
    let mut worlds: Vec<World> = modes.iter().filter_map(|_| World::new(ca).ok()).collect();
    let mut handles: Vec<Option<BodyHandle>> = Vec::new();
    for b in input.bodies.iter().take(6) {
        let Some(c) = collider(&b.kind, unit) else {
            continue;
        };
        let start = pose(&b.pose, e);
        let (v, w) = velocities(b.v, b.w, e);
        let mut got = Vec::new();
        for world in &mut worlds {
            let h = if b.fixed {
                world.insert_static(c.clone(), start).map_err(|_| ())
            } else {
                RigidMotion::from_velocities(start, v, w, DVec3::ZERO)
                    .map_err(|_| ())
                    .and_then(|m| world.insert(c.clone(), m).map_err(|_| ()))
            };
            if let (Ok(h), Some(a)) = (&h, b.acceleration) {
                let _ = world.declare_acceleration(*h, a.value());
            }
            got.push(h.ok());
        }
        // the same input gives the same answer in every world
        assert!(got.windows(2).all(|p| p[0] == p[1]), "inserts differ");
        handles.push(got[0]);
    }
    let mut ops = input.ops.iter();
    for _ in 0..=usize::from(input.steps % 4) {
        let all = brute(&worlds[0], Mode::Toc);
        let answers: Vec<_> = worlds
            .iter_mut()
            .zip(modes)
            .map(|(w, m)| w.step(&base.with_mode(m)))
            .collect();
        if let Some(reference) = &all {
            let [Ok(a), Ok(t), Ok(b)] = &answers[..] else {
                panic!(
                    "a step failed although every pair query is accepted: {:?}",
                    answers.iter().filter_map(|r| r.as_ref().err()).next()
                );
            };
            let got: BTreeMap<(u32, u32), ShapeContact> = a
                .contacts
                .iter()
                .map(|c| ((c.a.index(), c.b.index()), c.contact))
                .collect();
            // a pair's CA answer is the world's whenever the world queries it; a pair the
            // brute force leaves undecided (stalled: a tolerance below the rounding
            // allowance of huge coordinates; or out of iterations) may be culled by the
            // world's bounds, which decide it
            let exact = |c: &ShapeContact| {
                matches!(c.status, Status::Converged | Status::InitiallyTouching)
            };
            for (k, c) in &got {
                assert_eq!(
                    reference.get(k),
                    Some(c),
                    "all-contacts pair {k:?} differs from the brute force"
                );
            }
            for (k, c) in reference {
                if exact(c) {
                    assert_eq!(got.get(k), Some(c), "all-contacts mode missed pair {k:?}");
                }
            }
            let best = reference
                .values()
                .filter(|c| exact(c))
                .map(|c| c.toc)
                .fold(f64::INFINITY, f64::min);
            let all_exact = reference.values().all(exact);
            match t.earliest() {
                None => assert!(best == f64::INFINITY, "earliest mode missed"),
                Some(c) if all_exact => assert_eq!(c.contact.toc, best, "earliest mode"),
                Some(c) => assert!(c.contact.toc <= best, "earliest mode late"),
            }
            if best < f64::INFINITY {
                assert!(b.collides(), "Boolean mode missed");
            }
        }
        // the caller's changes between steps, the same in every world
        for op in ops.by_ref().take(3) {
            for world in &mut worlds {
                let h = |k: &u8| {
                    handles
                        .get(usize::from(*k) % handles.len().max(1))
                        .copied()
                        .flatten()
                };
                match op {
                    Op::Restart(k, p, v, w) => {
                        if let Some(h) = h(k) {
                            let (v, w) = velocities(*v, *w, e);
                            if let Ok(m) =
                                RigidMotion::from_velocities(pose(p, e), v, w, DVec3::ZERO)
                            {
                                let _ = world.set_motion(h, m);
                            }
                        }
                    }
                    Op::Velocities(k, v, w) => {
                        if let Some(h) = h(k) {
                            let (v, w) = velocities(*v, *w, e);
                            let _ = world.set_velocities(h, v, w);
                        }
                    }
                    Op::Remove(k) => {
                        if let Some(h) = h(k) {
                            let _ = world.remove(h);
                        }
                    }
                    Op::Raw(k, x) => {
                        if let Some(h) = h(k) {
                            let _ = world.set_velocities(h, DVec3::new(*x, 0.0, 0.0), DVec3::ZERO);
                        }
                    }
                }
            }
        }
    }
});
