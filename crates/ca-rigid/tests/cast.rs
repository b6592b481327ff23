//! The one door, [`cast`]: on every collider kind and both motion kinds it answers what the
//! query it dispatches to answers (same toc, status and counters), never misses a contact of
//! the brute-force reference, and rejects what it has no query for with a typed error.

mod support;

use ccd_ca_rigid::details::{
    BoundedScratch, time_of_contact_bounded, time_of_contact_convex_bounded_with_direction,
};
use ccd_ca_rigid::{
    CaError, CaOptions, CastOptions, CastWorkspace, Collider, PairMotion, RigidPair, RoundingScale,
    Shape, ShapeContact, SpeedBound, Status, cast, time_of_contact, time_of_contact_convex,
};
use ccd_distance::Ball;
use ccd_geometry::TriMesh;
use ccd_geometry::glam::{DAffine3, DVec3};
use proptest::prelude::*;
use support::*;

const EPS: f64 = 1e-3;

/// A rigid pair seen only through poses and speed bounds (so `cast` takes the bounded
/// queries, as for an articulated link).
struct Opaque<'m>(RigidPair<'m>);

impl PairMotion for Opaque<'_> {
    fn poses(&self, t: f64) -> (DAffine3, DAffine3) {
        self.0.poses(t)
    }
    fn speed_bounds(&self, t: f64) -> [SpeedBound; 2] {
        self.0.speed_bounds(t)
    }
    fn rounding_scale(&self) -> [RoundingScale; 2] {
        self.0.rounding_scale()
    }
}

fn shapes() -> impl Strategy<Value = ccd_geometry::TriMesh> {
    prop_oneof![
        prop::collection::vec(-1.0..1.0f64, 64).prop_map(|n| blob(0.6, 4, 0.2, &n).unwrap()),
        (prop::array::uniform3(0.05..0.8f64)).prop_map(|e| TriMesh::cuboid(
            -DVec3::from_array(e),
            DVec3::from_array(e)
        )
        .unwrap()),
    ]
}

proptest! {
    // each case runs a dense brute-force reference: a quarter of PROPTEST_CASES (64 in CI)
    #![proptest_config(ProptestConfig { cases: (ProptestConfig::default().cases / 4).max(1), ..ProptestConfig::default() })]

    #[test]
    fn cast_answers_as_the_queries_it_dispatches_to_and_never_misses(
        a in shapes(), b in shapes(), ma in motion(1.2), mb in motion(1.2), convex in any::<bool>()
    ) {
        let (ba, bb) = (body_with_hull(a.clone()), body_with_hull(b.clone()));
        let (ca, cb) = if convex {
            (Collider::convex(ba.clone()).unwrap(), Collider::convex(bb.clone()).unwrap())
        } else {
            (Collider::mesh(ba.clone()).unwrap(), Collider::mesh(bb.clone()).unwrap())
        };
        let opts = CastOptions::default().with_tolerance(EPS);
        let ca_opts = CaOptions::default().with_tolerance(EPS);
        let pair = RigidPair { a: &ma, b: &mb };
        let mut ws = CastWorkspace::default();
        let reference = reference_toc(&a, &ma, &b, &mb, 400);
        // rigid motions: the per-collider rigid query
        let rigid = cast(&ca, &cb, &pair, &opts, &mut ws).unwrap();
        let direct = if convex {
            time_of_contact_convex(&ba, &ma, &bb, &mb, &ca_opts).unwrap()
        } else {
            time_of_contact(&ba, &ma, &bb, &mb, &ca_opts).unwrap()
        };
        prop_assert_eq!(rigid.contact, direct.map(ShapeContact::from));
        // a contact carries its query's counters
        if let Some(c) = direct {
            prop_assert_eq!(rigid.stats, c.stats);
        }
        // any other motion: the bounded queries
        let opaque = Opaque(pair);
        let bounded = cast(&ca, &cb, &opaque, &opts, &mut ws).unwrap();
        if convex {
            let mut n = DVec3::ZERO;
            let d = time_of_contact_convex_bounded_with_direction(&ba, &bb, &opaque, 0.0, 1.0, &ca_opts, &mut n).unwrap();
            prop_assert_eq!(bounded.contact.map(|c| c.toc), d.map(|c| c.toc));
            prop_assert_eq!(bounded.direction, (n != DVec3::ZERO).then_some(n));
        } else {
            let d = time_of_contact_bounded(&ba, &bb, &opaque, 0.0, 1.0, &ca_opts, &mut BoundedScratch::default()).unwrap();
            prop_assert_eq!(bounded.contact.map(|c| (c.toc, c.status)), d.map(|c| (c.toc, c.status)));
        }
        if let Some(r) = reference {
            for out in [rigid, bounded] {
                let c = out.contact.expect("cast missed a contact");
                prop_assert!(c.toc <= r + 1e-9, "toc {} after the reference {r}", c.toc);
            }
        }
        // the first step alone is a lower bound of the whole search's toc
        let first = cast(&ca, &cb, &opaque, &opts.with_first_step_only(true), &mut ws).unwrap();
        if let Some(c) = bounded.contact {
            let f = first.contact.expect("the first step passed a contact");
            prop_assert!(f.toc <= c.toc, "first step {} after the search's {}", f.toc, c.toc);
        }
        // a window starting at the full search's contact finds it at once
        if let Some(c) = bounded.contact.filter(|c| c.status == Status::Converged) {
            let resumed = cast(&ca, &cb, &opaque, &opts.with_window(c.toc, 1.0), &mut ws).unwrap();
            prop_assert!(resumed.contact.is_some(), "a window from the contact found none");
        }
    }
}

#[test]
fn counters_come_back_whatever_the_answer() {
    let tetra = body_with_hull(TriMesh::cuboid(-DVec3::ONE * 0.5, DVec3::ONE * 0.5).unwrap());
    let c = Collider::mesh(tetra).unwrap();
    let still = ccd_kinematics::RigidMotion::stationary(DAffine3::IDENTITY).unwrap();
    let passing = ccd_kinematics::RigidMotion::between(
        DAffine3::from_translation(DVec3::new(3.0, 0.0, 1.2)),
        DAffine3::from_translation(DVec3::new(-3.0, 0.0, 1.2)),
    )
    .unwrap();
    let pair = RigidPair {
        a: &still,
        b: &passing,
    };
    let mut ws = CastWorkspace::default();
    for out in [
        cast(&c, &c, &pair, &CastOptions::default(), &mut ws).unwrap(),
        cast(&c, &c, &Opaque(pair), &CastOptions::default(), &mut ws).unwrap(),
    ] {
        assert!(out.contact.is_none());
        assert!(out.stats.iterations >= 1, "{:?}", out.stats);
    }
    // the plain function answers the same (its counters are the outcome's: a free answer
    // has no contact to carry them)
    let plain = time_of_contact(
        c.body().unwrap(),
        &still,
        c.body().unwrap(),
        &passing,
        &CaOptions::default(),
    )
    .unwrap();
    assert!(plain.is_none());
}

#[test]
fn what_cast_cannot_answer_is_a_typed_error() {
    let ball = Collider::shape(Shape::Ball(Ball::new(0.5).unwrap())).unwrap();
    let mesh = Collider::mesh(body(TriMesh::cuboid(-DVec3::ONE, DVec3::ONE).unwrap())).unwrap();
    let still = ccd_kinematics::RigidMotion::stationary(DAffine3::IDENTITY).unwrap();
    let pair = RigidPair {
        a: &still,
        b: &still,
    };
    let mut ws = CastWorkspace::default();
    let opts = CastOptions::default();
    // analytic shapes under bounded motions, or with a window
    assert!(matches!(
        cast(&ball, &mesh, &Opaque(pair), &opts, &mut ws),
        Err(CaError::Unsupported(_))
    ));
    assert!(matches!(
        cast(&mesh, &ball, &pair, &opts.with_window(0.5, 1.0), &mut ws),
        Err(CaError::Unsupported(_))
    ));
    // but whole-step rigid motions are answered (here: the ball on the box's face x = 1,
    // touching from the start)
    let on_face =
        ccd_kinematics::RigidMotion::stationary(DAffine3::from_translation(DVec3::X)).unwrap();
    let touching = RigidPair {
        a: &on_face,
        b: &still,
    };
    let out = cast(&ball, &mesh, &touching, &opts, &mut ws).unwrap();
    assert_eq!(
        out.contact.map(|c| c.status),
        Some(Status::InitiallyTouching)
    );
    // bad options, windows and regions are the queries' errors
    for (o, what) in [
        (opts.with_tolerance(f64::NAN), "tolerance"),
        (opts.with_max_iterations(0), "cap"),
        (opts.with_window(-0.5, 1.0), "window"),
        (
            opts.with_region(ccd_geometry::Aabb {
                min: DVec3::NAN,
                max: DVec3::ONE,
            }),
            "region",
        ),
    ] {
        assert!(
            cast(&mesh, &mesh, &Opaque(pair), &o, &mut ws).is_err(),
            "{what} accepted"
        );
    }
    // a convex collider needs a hull
    assert!(matches!(
        Collider::convex(body(TriMesh::cuboid(-DVec3::ONE, DVec3::ONE).unwrap())),
        Err(CaError::InvalidCollider(_))
    ));
}

#[test]
fn a_warm_direction_that_still_separates_answers_free_without_gjk() {
    let cube = Collider::convex(body_with_hull(
        TriMesh::cuboid(-DVec3::ONE * 0.5, DVec3::ONE * 0.5).unwrap(),
    ))
    .unwrap();
    let still = ccd_kinematics::RigidMotion::stationary(DAffine3::IDENTITY).unwrap();
    let far = ccd_kinematics::RigidMotion::between(
        DAffine3::from_translation(DVec3::new(3.0, 0.0, 0.0)),
        DAffine3::from_translation(DVec3::new(2.5, 0.0, 0.0)),
    )
    .unwrap();
    let pair = Opaque(RigidPair { a: &still, b: &far });
    let mut ws = CastWorkspace::default();
    let cold = cast(&cube, &cube, &pair, &CastOptions::default(), &mut ws).unwrap();
    assert!(cold.contact.is_none() && cold.stats.iterations >= 1);
    let n = cold.direction.expect("a convex pair reports its direction");
    let warm = cast(
        &cube,
        &cube,
        &pair,
        &CastOptions::default().with_warm_direction(n),
        &mut ws,
    )
    .unwrap();
    assert!(warm.contact.is_none());
    assert_eq!(warm.stats.iterations, 0);
    assert_eq!(warm.direction, Some(n));
}
