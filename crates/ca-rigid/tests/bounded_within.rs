//! The window CA restricted to a region of B ([`time_of_contact_bounded_within`]) against
//! the brute-force reference of `ca_reference.rs` (dense sampling + bisection with exact
//! triangle distances): B is a static soup of small scattered triangles, most of them outside
//! A's swept box (a Taylor-model enclosure of A's motion, grown by `ε/2`), so pruning is at
//! work. Never a miss, `toc ≤ τ_ref`, distance at `toc ≤ ε`, nothing touches before `toc`;
//! a contact exactly on the region's boundary is found; an empty region, or one B does not
//! reach, proves the pair free without an evaluation; a NaN region is an error.

mod support;

use ccd_ca_rigid::details::{
    BoundedScratch, time_of_contact_bounded, time_of_contact_bounded_within,
};
use ccd_ca_rigid::{CaError, CaOptions, RigidPair, Status};
use ccd_geometry::glam::{DAffine3, DVec3};
use ccd_geometry::{Aabb, TriMesh};
use ccd_kinematics::RigidMotion;
use ccd_taylor::{Interval, TaylorModel};
use proptest::prelude::*;
use support::*;

const EPS: f64 = 1e-3;

/// A's swept box over `[0, 1]` (order-3 Taylor models of its motion, outward rounded), grown
/// by `ε/2`: the region the caller of `time_of_contact_bounded_within` vouches for.
fn swept_region(mesh: &TriMesh, motion: &RigidMotion) -> Aabb {
    let tr = motion
        .enclosure::<TaylorModel>(Interval::UNIT)
        .expect("enclosure");
    tr.aabb_of_points(mesh.vertices().iter().copied())
        .inflate(0.5 * EPS)
}

/// Small triangles scattered over `[-2.5, 2.5]³`: a cluttered static environment.
fn clutter() -> impl Strategy<Value = TriMesh> {
    prop::collection::vec(
        (
            prop::array::uniform3(-2.5..2.5f64),
            prop::array::uniform9(-0.25..0.25f64),
        ),
        8..40,
    )
    .prop_map(|tris| {
        let mut v = Vec::new();
        let mut t = Vec::new();
        for (c, d) in tris {
            let c = DVec3::from_array(c);
            let base = v.len() as u32;
            v.extend([
                c + DVec3::new(d[0], d[1], d[2]),
                c + DVec3::new(d[3], d[4], d[5]),
                c + DVec3::new(d[6], d[7], d[8]),
            ]);
            t.push([base, base + 1, base + 2]);
        }
        TriMesh::new(v, t).expect("valid soup")
    })
}

fn moving_shape() -> impl Strategy<Value = TriMesh> {
    prop_oneof![
        prop::collection::vec(-1.0..1.0f64, 64).prop_map(|n| blob(0.4, 4, 0.2, &n).unwrap()),
        (prop::array::uniform3(0.05..0.5f64)).prop_map(|e| TriMesh::cuboid(
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
    fn region_pruning_never_misses(a in moving_shape(), b in clutter(), ma in motion(1.5)) {
        let still = RigidMotion::stationary(DAffine3::IDENTITY).unwrap();
        let (ba, bb) = (body(a.clone()), body(b.clone()));
        let opts = CaOptions::default().with_tolerance(EPS);
        let pair = RigidPair { a: &ma, b: &still };
        let region = swept_region(&a, &ma);
        let mut scratch = BoundedScratch::default();
        let res = time_of_contact_bounded_within(&ba, &bb, &pair, 0.0, 1.0, &region, &opts, &mut scratch).unwrap();
        let reference = reference_toc(&a, &ma, &b, &still, 400);
        if let Some(r) = reference {
            let c = res.expect("region-pruned CA missed a contact");
            prop_assert!(c.toc <= r + 1e-9, "toc {} after the reference {r}", c.toc);
            // and so does the unpruned search
            let full = time_of_contact_bounded(&ba, &bb, &pair, 0.0, 1.0, &opts, &mut scratch).unwrap();
            prop_assert!(full.is_some_and(|f| f.toc <= r + 1e-9));
        }
        match res {
            Some(c) => {
                if c.status != Status::OutOfIterations {
                    let d = distance_at(&a, &ma, &b, &still, c.toc);
                    prop_assert!(d <= EPS + 1e-9, "distance {d} at toc {}", c.toc);
                }
                for k in 0..100 {
                    let t = c.toc * f64::from(k) / 100.0;
                    if t < c.toc {
                        prop_assert!(distance_at(&a, &ma, &b, &still, t) > 0.0, "touching at {t} before toc {}", c.toc);
                    }
                }
            }
            None => {
                for k in 0..=200 {
                    let t = f64::from(k) / 200.0;
                    prop_assert!(distance_at(&a, &ma, &b, &still, t) > 0.0, "touching at {t} but None");
                }
            }
        }
    }
}

/// A unit cube sliding along x until its face `x = 1` lies on the plane `x = 2` at `t = 1`;
/// B is one triangle in that plane and one far away: the contact sits exactly on the face of
/// the region (the swept box grown by `ε/2`).
#[test]
fn contact_on_the_region_boundary_is_found() {
    let cube = TriMesh::cuboid(DVec3::ZERO, DVec3::ONE).unwrap();
    let wall = TriMesh::new(
        vec![
            DVec3::new(2.0, 0.2, 0.2),
            DVec3::new(2.0, 0.8, 0.2),
            DVec3::new(2.0, 0.5, 0.8),
            DVec3::new(9.0, 9.0, 9.0),
            DVec3::new(9.5, 9.0, 9.0),
            DVec3::new(9.0, 9.5, 9.0),
        ],
        vec![[0, 1, 2], [3, 4, 5]],
    )
    .unwrap();
    let slide = RigidMotion::between(
        DAffine3::IDENTITY,
        DAffine3::from_translation(DVec3::new(1.0, 0.0, 0.0)),
    )
    .unwrap();
    let still = RigidMotion::stationary(DAffine3::IDENTITY).unwrap();
    let pair = RigidPair {
        a: &slide,
        b: &still,
    };
    let exact = Aabb {
        min: DVec3::ZERO,
        max: DVec3::new(2.0, 1.0, 1.0),
    };
    let opts = CaOptions::default().with_tolerance(EPS);
    let mut scratch = BoundedScratch::default();
    for region in [exact, exact.inflate(0.5 * EPS)] {
        let c = time_of_contact_bounded_within(
            &body(cube.clone()),
            &body(wall.clone()),
            &pair,
            0.0,
            1.0,
            &region,
            &opts,
            &mut scratch,
        )
        .unwrap()
        .expect("the cube reaches the wall at t = 1");
        assert!(c.toc <= 1.0 && c.toc >= 1.0 - EPS, "toc {}", c.toc);
        assert!(c.distance <= EPS);
    }
}

#[test]
fn empty_or_unreached_region_is_free_and_nan_is_an_error() {
    let cube = body(TriMesh::cuboid(DVec3::ZERO, DVec3::ONE).unwrap());
    let still = RigidMotion::stationary(DAffine3::IDENTITY).unwrap();
    let pair = RigidPair {
        a: &still,
        b: &still,
    };
    let opts = CaOptions::default();
    let mut scratch = BoundedScratch::default();
    let mut run = |region: Aabb| {
        time_of_contact_bounded_within(&cube, &cube, &pair, 0.0, 1.0, &region, &opts, &mut scratch)
    };
    // the two copies overlap: unpruned, a contact at t = 0
    let around = Aabb {
        min: DVec3::splat(-1.0),
        max: DVec3::splat(2.0),
    };
    assert_eq!(
        run(around).unwrap().map(|c| c.status),
        Some(Status::InitiallyTouching)
    );
    assert!(run(Aabb::EMPTY).unwrap().is_none());
    let away = Aabb {
        min: DVec3::splat(5.0),
        max: DVec3::splat(6.0),
    };
    assert!(run(away).unwrap().is_none());
    let nan = Aabb {
        min: DVec3::new(f64::NAN, 0.0, 0.0),
        max: DVec3::ONE,
    };
    assert!(matches!(run(nan), Err(CaError::InvalidRegion)));
}
