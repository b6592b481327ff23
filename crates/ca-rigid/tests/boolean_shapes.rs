//! `time_of_contact_shapes` in Boolean mode: a pair within `ε` at the end of the step is
//! reported at `t = 1` without iterating to the first contact; otherwise the answer is the
//! first-contact query's. Checked on closed-form cases and on a deterministic spread of
//! random pairs of every kind against the first-contact (`Toc`) query.

mod support;

use std::sync::Arc;

use ccd_bvh::{BvhOptions, MeshBvh, Rss};
use ccd_ca_rigid::{CaOptions, Compound, Mode, RigidBody, Shape, Status, time_of_contact_shapes};
use ccd_distance::{Ball, Capsule, Cuboid, Cylinder};
use ccd_geometry::TriMesh;
use ccd_geometry::glam::{DAffine3, DVec3};
use ccd_kinematics::RigidMotion;
use support::{SplitMix64, random_motion};

fn boolean() -> CaOptions {
    CaOptions::default().with_mode(Mode::Boolean)
}

fn fly(from: DVec3, to: DVec3) -> RigidMotion {
    RigidMotion::between(
        DAffine3::from_translation(from),
        DAffine3::from_translation(to),
    )
    .unwrap()
}

#[test]
fn a_ball_ending_inside_a_box_is_reported_at_the_end_without_iterating() {
    let cube = Shape::Cuboid(Cuboid::new(DVec3::ONE).unwrap());
    let ball = Shape::Ball(Ball::new(0.5).unwrap());
    let still = RigidMotion::stationary(DAffine3::IDENTITY).unwrap();
    // from x = 5 to x = 0.5 (inside): first contact at x = 1.5, t = 7/9
    let m = fly(DVec3::new(5.0, 0.0, 0.0), DVec3::new(0.5, 0.0, 0.0));
    let toc = time_of_contact_shapes(&cube, &still, &ball, &m, &CaOptions::default())
        .unwrap()
        .expect("contact");
    assert!(
        toc.toc <= 7.0 / 9.0 && toc.toc > 7.0 / 9.0 - 1e-3,
        "{}",
        toc.toc
    );
    let b = time_of_contact_shapes(&cube, &still, &ball, &m, &boolean())
        .unwrap()
        .expect("contact");
    assert_eq!((b.toc, b.status), (1.0, Status::Converged));
    assert!(b.distance <= 1e-3);
    assert_eq!(b.stats.iterations, 0);
    assert!(toc.stats.iterations > 0);
    // passing through and out the other side: nothing at t = 1, the Toc answer
    let through = fly(DVec3::new(5.0, 0.0, 0.0), DVec3::new(-5.0, 0.0, 0.0));
    let t = time_of_contact_shapes(&cube, &still, &ball, &through, &CaOptions::default()).unwrap();
    let b = time_of_contact_shapes(&cube, &still, &ball, &through, &boolean()).unwrap();
    assert!(t.is_some());
    assert_eq!(b.map(|c| (c.toc, c.status)), t.map(|c| (c.toc, c.status)));
    // a miss: nothing in either mode
    let miss = fly(DVec3::new(5.0, 3.0, 0.0), DVec3::new(-5.0, 3.0, 0.0));
    assert!(
        time_of_contact_shapes(&cube, &still, &ball, &miss, &boolean())
            .unwrap()
            .is_none()
    );
}

fn tetra_mesh() -> Shape {
    let m = TriMesh::new(
        vec![
            DVec3::new(-0.4, -0.3, -0.3),
            DVec3::new(0.5, -0.3, -0.3),
            DVec3::new(-0.4, 0.5, -0.3),
            DVec3::new(-0.4, -0.3, 0.5),
        ],
        vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
    )
    .unwrap();
    Shape::Mesh(RigidBody::new(Arc::new(
        MeshBvh::<Rss>::new(m, &BvhOptions::default()).unwrap(),
    )))
}

#[test]
fn boolean_answers_agree_with_first_contact_answers_on_random_pairs() {
    let shapes = [
        Shape::Ball(Ball::new(0.4).unwrap()),
        Shape::Capsule(Capsule::new_y(0.4, 0.2).unwrap()),
        Shape::Cuboid(Cuboid::new(DVec3::new(0.5, 0.3, 0.2)).unwrap()),
        Shape::Cylinder(Cylinder::new(0.3, 0.3).unwrap()),
        tetra_mesh(),
        Shape::Compound(Arc::new(
            Compound::new(vec![
                (
                    DAffine3::from_translation(DVec3::X * 0.3),
                    Shape::Ball(Ball::new(0.2).unwrap()),
                ),
                (DAffine3::IDENTITY, tetra_mesh()),
            ])
            .unwrap(),
        )),
    ];
    let mut rng = SplitMix64::new(0xB001_EA11);
    let (mut both, mut at_end) = (0, 0);
    for _ in 0..400 {
        let a = &shapes[(rng.next_u64() % shapes.len() as u64) as usize];
        let b = &shapes[(rng.next_u64() % shapes.len() as u64) as usize];
        let ma = random_motion(&mut rng);
        // B ends near where A ends (within about a body size): many pairs end touching
        let mb = {
            let m = random_motion(&mut rng);
            let start = m.pose_at(0.0);
            let target = ma.pose_at(1.0).translation + rng.cube(0.8);
            RigidMotion::from_velocities(
                start,
                target - start.translation,
                m.angular_velocity(),
                m.local_center(),
            )
            .unwrap()
        };
        let toc = time_of_contact_shapes(a, &ma, b, &mb, &CaOptions::default()).unwrap();
        let bool = time_of_contact_shapes(a, &ma, b, &mb, &boolean()).unwrap();
        match (toc, bool) {
            // a first contact is never missed by the Boolean query
            (Some(_), None) => panic!("Boolean missed a contact: {a:?} {b:?} {ma:?} {mb:?}"),
            (t, Some(c)) if c.toc == 1.0 && t.is_none_or(|t| t.toc < 1.0) => {
                // reported at the end: the shapes are within ε there (a query at the end
                // poses starts touching)
                let end = |m: &RigidMotion| RigidMotion::stationary(m.pose_at(1.0)).unwrap();
                let e = time_of_contact_shapes(a, &end(&ma), b, &end(&mb), &CaOptions::default())
                    .unwrap()
                    .expect("touching at the end");
                assert_eq!(e.status, Status::InitiallyTouching);
                assert!(c.distance <= 1e-3 + 1e-12, "{}", c.distance);
                at_end += 1;
            }
            (Some(t), Some(c)) => {
                // not touching at the end: the first-contact answer
                assert_eq!((t.toc, t.status), (c.toc, c.status));
                both += 1;
            }
            (None, Some(c)) => panic!("Boolean contact {c:?} that is not at the end"),
            (None, None) => {}
        }
    }
    assert!(
        at_end > 50 && both > 30,
        "cases: {at_end} at the end, {both} agreeing"
    );
}
