//! Rigid CA at the ends of its coordinate domain: the `ca_rigid` fuzz finding at `2²⁵⁶`
//! (degree-4 products of the bounding-sphere start overflowed from `|x| ≈ 2²⁵⁶ ≈ 1.2e77`
//! on: misses and late contacts at coordinates `9e77..1e94`; `tips_meeting_at_1e77_…`
//! fails on the code before the fix), and property tests of every
//! entry point (`time_of_contact`, `time_of_contact_convex`, `time_of_contact_bounded`,
//! `time_of_contact_convex_bounded`) against a brute-force reference at unit scale, with the
//! same scene scaled by powers of two up to `MAX_COORDINATE` (`1e100`) and down to
//! `1e-100`: CA is scale-invariant in time, so the scaled query must be conservative with
//! respect to the unit-scale reference.

mod support;

use std::sync::Arc;

use ccd_bvh::{BvhOptions, MeshBvh, Rss};
use ccd_ca_rigid::details::{
    BoundedScratch, time_of_contact_bounded, time_of_contact_convex_bounded,
};
use ccd_ca_rigid::{
    CaError, CaOptions, Contact, RigidBody, RigidPair, Status, time_of_contact,
    time_of_contact_convex,
};
use ccd_distance::MAX_COORDINATE;
use ccd_geometry::TriMesh;
use ccd_geometry::glam::{DAffine3, DQuat, DVec3};
use ccd_kinematics::RigidMotion;
use proptest::prelude::*;
use support::*;

/// `2ᵏ` for `|k| ≤ 1022`.
fn pow2(k: i32) -> f64 {
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// A pose as the `ca_rigid` fuzz target builds it: a normalised lattice quaternion and a
/// lattice translation of spacing `spacing`.
fn lattice_pose(q: [i8; 4], t: [i16; 3], spacing: f64) -> DAffine3 {
    let q = DQuat::from_xyzw(
        f64::from(q[0]),
        f64::from(q[1]),
        f64::from(q[2]),
        f64::from(q[3]),
    );
    let q = if q.length_squared() > 0.0 {
        q.normalize()
    } else {
        DQuat::IDENTITY
    };
    DAffine3::from_rotation_translation(q, DVec3::from_array(t.map(f64::from)) * spacing)
}

/// The scene of the fuzz input `seed-finding-reported-at-2e77` (`corpus/ca_rigid/`), with
/// lattice spacing `spacing` (the input's is `2²⁴⁸`).
fn fuzz_finding(spacing: f64) -> (TriMesh, RigidMotion, TriMesh, RigidMotion) {
    let p = |c: [i16; 3]| DVec3::from_array(c.map(f64::from)) * spacing;
    let a = TriMesh::new(
        [
            [255, 0, 0],
            [256, 0, 0],
            [0, 256, 0],
            [0, 0, 256],
            [256, 256, 0],
            [0, 0, 0],
        ]
        .map(p)
        .to_vec(),
        vec![[0, 1, 2], [0, 1, 3]],
    )
    .unwrap();
    let b = TriMesh::new(
        [
            [50, 50, -100],
            [50, 50, 100],
            [100, 4, 0],
            [0, 0, 0],
            [1, 2, 3],
            [4, 37, 6],
        ]
        .map(p)
        .to_vec(),
        vec![[2, 3, 1], [2, 3, 0], [1, 2, 0]],
    )
    .unwrap();
    let ma = RigidMotion::between(
        lattice_pose([0, 1, 2, 0], [513, 3, 0], spacing),
        lattice_pose([1, 0, 0, 0], [0, 0, 0], spacing),
    )
    .unwrap();
    let mb = RigidMotion::between(
        lattice_pose([0, 1, 0, 0], [0, 0, 0], spacing),
        lattice_pose([0, -48, 7, 0], [0, 1, 0], spacing),
    )
    .unwrap();
    (a, ma, b, mb)
}

#[test]
fn fuzz_input_at_2_pow_256_gets_no_false_contact() {
    // the decoded scene never comes closer than ~140 lattice units: at every scale, no
    // contact within ε may be reported (a stalled query is allowed)
    let (a, ma, b, mb) = fuzz_finding(1.0);
    assert_eq!(reference_toc(&a, &ma, &b, &mb, 2000), None);
    for k in [248, 0, 200, 260, 320, -150, -300] {
        let spacing = pow2(k);
        let (a, ma, b, mb) = fuzz_finding(spacing);
        let opts =
            CaOptions::default().with_tolerance((1e-3 * spacing).max(ccd_ca_rigid::MIN_TOLERANCE));
        let r = time_of_contact(&body(a), &ma, &body(b), &mb, &opts).unwrap();
        assert!(
            r.is_none_or(|c| matches!(c.status, Status::Stalled | Status::OutOfIterations)),
            "2^{k}: {r:?}"
        );
    }
}

/// Two triangles meeting tip to tip: A's in the plane z = 0 with its tip at `(s, 0, 0)`, B's
/// in the plane y = 0 with its tip at `(−s, 0, 0)` of its frame, B sliding from `x = 4s` to
/// `x = −4s`. The tips touch at `t = 1/4` (exactly where the bounding spheres meet), then the
/// triangles cross each other until `t = 1/2`.
fn tips(s: f64) -> (TriMesh, RigidMotion, TriMesh, RigidMotion) {
    let a = TriMesh::new(
        vec![DVec3::X * s, DVec3::Y * s, DVec3::Y * -s],
        vec![[0, 1, 2]],
    )
    .unwrap();
    let b = TriMesh::new(
        vec![DVec3::X * -s, DVec3::Z * s, DVec3::Z * -s],
        vec![[0, 1, 2]],
    )
    .unwrap();
    let still = RigidMotion::stationary(DAffine3::IDENTITY).unwrap();
    let slide = RigidMotion::between(
        DAffine3::from_translation(DVec3::X * 4.0 * s),
        DAffine3::from_translation(DVec3::X * -4.0 * s),
    )
    .unwrap();
    (a, still, b, slide)
}

#[test]
fn tips_meeting_at_1e77_are_not_reported_late() {
    // the fuzz finding's failure (late contacts from 9e77 on): the bounding-sphere start
    // squared products of degree four, b² and vv·c overflowed to infinity, their difference
    // was NaN and the start fell to c/(−b) = 0.375 here, after the contact at 0.25
    for s in [1e77, 2e77, 1e90, 2e98, 1.0, 1e-77, 1e-98] {
        let (a, ma, b, mb) = tips(s);
        for tolerance in [1e-3 * s, 1e-3, ccd_ca_rigid::MIN_TOLERANCE] {
            if tolerance < ccd_ca_rigid::MIN_TOLERANCE {
                continue;
            }
            let opts = CaOptions::default().with_tolerance(tolerance);
            let c = time_of_contact(&body(a.clone()), &ma, &body(b.clone()), &mb, &opts)
                .unwrap()
                .unwrap_or_else(|| panic!("{s:e}, ε {tolerance:e}: contact missed"));
            assert!(
                c.toc <= 0.25,
                "{s:e}, ε {tolerance:e}: toc {} after the contact at 0.25 ({:?})",
                c.toc,
                c.status
            );
            if tolerance == 1e-3 * s {
                assert_eq!(c.status, Status::Converged, "{s:e}");
                assert!(c.toc > 0.249, "{s:e}: toc {}", c.toc);
            }
        }
    }
}

fn hull_body(mesh: TriMesh) -> RigidBody {
    RigidBody::with_hull(Arc::new(
        MeshBvh::<Rss>::new(mesh, &BvhOptions::default()).unwrap(),
    ))
    .unwrap()
}

/// A scene at unit scale: two noisy blobs (radius ~1) under random motions within 3 of the
/// origin, and its copy scaled by `s` (meshes and translations).
#[derive(Clone, Debug)]
struct Scene {
    a: TriMesh,
    b: TriMesh,
    pa: [DAffine3; 2],
    pb: [DAffine3; 2],
}

impl Scene {
    fn scaled(&self, s: f64) -> (TriMesh, RigidMotion, TriMesh, RigidMotion) {
        let mesh = |m: &TriMesh| {
            TriMesh::new(
                m.vertices().iter().map(|v| *v * s).collect(),
                m.triangles().to_vec(),
            )
            .unwrap()
        };
        let pose = |p: DAffine3| DAffine3 {
            translation: p.translation * s,
            ..p
        };
        let motion = |p: &[DAffine3; 2]| RigidMotion::between(pose(p[0]), pose(p[1])).unwrap();
        (
            mesh(&self.a),
            motion(&self.pa),
            mesh(&self.b),
            motion(&self.pb),
        )
    }
}

fn scene() -> impl Strategy<Value = Scene> {
    let noise = || prop::collection::vec(-0.2..0.2f64, 64);
    (
        noise(),
        noise(),
        [pose(3.0), pose(3.0)],
        [pose(3.0), pose(3.0)],
    )
        .prop_map(|(na, nb, pa, pb)| Scene {
            a: blob(1.0, 4, 0.2, &na).unwrap(),
            b: blob(0.7, 4, 0.2, &nb).unwrap(),
            pa,
            pb,
        })
}

/// The exponents the property tests scale by: both ends of the domain (`2³²⁹ ≈ 1.1e99`
/// keeps displacements of up to 6 units within `1e100`; `2⁻³²⁹ ≈ 9e-100`), the window
/// edges of the rescaling (`2±¹⁰⁰`), the old overflow threshold (`2²⁵⁶`) and unit scale.
fn exponent() -> impl Strategy<Value = i32> {
    prop_oneof![
        Just(0),
        Just(329),
        Just(-329),
        Just(100),
        Just(101),
        Just(-100),
        Just(-101),
        Just(256),
        -329..=329i32,
    ]
}

/// Checks a contact of a query scaled by `s` against the unit-scale reference `r`.
fn check(what: &str, c: Option<Contact>, r: Option<f64>, s: f64, eps: f64) {
    match (c, r) {
        (None, Some(r)) => panic!("{what}: contact at {r} missed"),
        (Some(c), Some(r)) => {
            assert!(c.toc <= r, "{what}: toc {} after the contact at {r}", c.toc);
            if c.status == Status::Converged || c.status == Status::InitiallyTouching {
                assert!(c.distance <= eps, "{what}: {c:?}");
                assert!(c.point_a.is_finite() && c.point_b.is_finite(), "{what}");
                assert!((c.point_b - c.point_a).length() <= eps * 1.001 + 1e-12 * s);
            }
        }
        _ => {}
    }
}

proptest! {
    /// Every entry point, on a scene scaled by `2ᵏ` with the tolerance scaled along
    /// (`1e-3 · 2ᵏ`, or the smallest accepted one): never a contact later than the unit
    /// scale reference, never a miss.
    #[test]
    fn scaled_scenes_are_conservative_at_both_ends_of_the_domain(
        sc in scene(),
        k in exponent(),
    ) {
        let s = pow2(k);
        let (ua, uma, ub, umb) = sc.scaled(1.0);
        let r = reference_toc(&ua, &uma, &ub, &umb, 256);
        let (a, ma, b, mb) = sc.scaled(s);
        let eps = (1e-3 * s).max(ccd_ca_rigid::MIN_TOLERANCE);
        let opts = CaOptions::default().with_tolerance(eps);
        let (ba, bb) = (body(a.clone()), body(b.clone()));
        let what = format!("2^{k}");
        check(&format!("{what} mesh"), time_of_contact(&ba, &ma, &bb, &mb, &opts).unwrap(), r, s, eps);
        let pair = RigidPair { a: &ma, b: &mb };
        let mut scratch = BoundedScratch::default();
        check(
            &format!("{what} bounded"),
            time_of_contact_bounded(&ba, &bb, &pair, 0.0, 1.0, &opts, &mut scratch).unwrap(),
            r, s, eps,
        );
        let (ha, hb) = (hull_body(a), hull_body(b));
        // the hulls contain the meshes: their contact is no later than the meshes'
        check(&format!("{what} convex"), time_of_contact_convex(&ha, &ma, &hb, &mb, &opts).unwrap(), r, s, eps);
        check(
            &format!("{what} convex bounded"),
            time_of_contact_convex_bounded(&ha, &hb, &pair, 0.0, 1.0, &opts).unwrap(),
            r, s, eps,
        );
    }

    /// The same query at a scale outside the window (rescaled into it) and at unit scale gives
    /// the same answer, up to the rounding of the advancement (`|k| ≤ 322`: the scaled
    /// tolerance `1e-3 · 2ᵏ` stays at least `MIN_TOLERANCE`).
    #[test]
    fn rescaled_queries_agree_with_the_unit_scale_query(sc in scene(), k in 101..=322i32, down in any::<bool>()) {
        let k = if down { -k } else { k };
        let s = pow2(k);
        let unit = sc.scaled(1.0);
        let far = sc.scaled(s);
        let opts = |s: f64| CaOptions::default().with_tolerance(1e-3 * s);
        let u = time_of_contact(&body(unit.0.clone()), &unit.1, &body(unit.2.clone()), &unit.3, &opts(1.0)).unwrap();
        let f = time_of_contact(&body(far.0), &far.1, &body(far.2), &far.3, &opts(s)).unwrap();
        prop_assert_eq!(u.is_some(), f.is_some(), "2^{}: {:?} vs {:?}", k, u, f);
        if let (Some(u), Some(f)) = (u, f) {
            // Both are valid answers to the unit-scale query: a converged toc is any time at
            // which the meshes are within the tolerance and not yet touching, so the two runs
            // may stop at different points of that window (its width is tolerance / closing
            // speed; a CI case had 1.3e-4 between them). Check the far answer against the unit
            // scene: within the tolerance (plus rounding) at its toc.
            if f.status == Status::Converged {
                let d = distance_at(&unit.0, &unit.1, &unit.2, &unit.3, f.toc);
                prop_assert!(d <= 1e-3 * (1.0 + 1e-9) + 1e-12, "2^{}: far toc {} leaves the unit scene at {} (unit toc {})", k, f.toc, d, u.toc);
            }
            prop_assert_eq!(u.status, f.status);
        }
    }
}

#[test]
fn bounded_queries_check_the_domain() {
    let unit = body(TriMesh::cuboid(DVec3::ZERO, DVec3::ONE).unwrap());
    let huge = body(TriMesh::cuboid(DVec3::ZERO, DVec3::new(1.0, 2e100, 1.0)).unwrap());
    let still = RigidMotion::stationary(DAffine3::IDENTITY).unwrap();
    let opts = CaOptions::default();
    let mut scratch = BoundedScratch::default();
    let pair = RigidPair {
        a: &still,
        b: &still,
    };
    assert_eq!(
        time_of_contact_bounded(&huge, &unit, &pair, 0.0, 1.0, &opts, &mut scratch),
        Err(CaError::OutOfDomain {
            body: 0,
            what: "vertex coordinate",
            value: 2e100
        })
    );
    // a translation beyond the domain at t = 1 (start and displacement each within it)
    let away = RigidMotion::from_axis_angle(
        DAffine3::from_translation(DVec3::new(0.0, 0.0, MAX_COORDINATE)),
        DVec3::Z,
        0.0,
        DVec3::new(0.0, 0.0, MAX_COORDINATE),
    )
    .unwrap();
    let pair = RigidPair {
        a: &still,
        b: &away,
    };
    let r = time_of_contact_bounded(&unit, &unit, &pair, 0.0, 1.0, &opts, &mut scratch);
    assert!(
        matches!(
            r,
            Err(CaError::OutOfDomain {
                body: 1,
                what: "translation",
                ..
            })
        ),
        "{r:?}"
    );
    let (ha, hb) = (
        hull_body(TriMesh::cuboid(DVec3::ZERO, DVec3::ONE).unwrap()),
        hull_body(TriMesh::cuboid(DVec3::ZERO, DVec3::ONE).unwrap()),
    );
    let r = time_of_contact_convex_bounded(&ha, &hb, &pair, 0.5, 1.0, &opts);
    assert!(
        matches!(
            r,
            Err(CaError::OutOfDomain {
                body: 1,
                what: "translation",
                ..
            })
        ),
        "{r:?}"
    );
}

#[test]
fn tolerance_below_the_rounding_allowance_is_sound_or_an_error() {
    // unit scale, tolerances below what f64 resolves there (the earlier finding: a miss
    // with ε ≈ 3e-30): never a contact after the reference, never a miss; a tolerance
    // below MIN_TOLERANCE is a typed error
    let (a, b) = (
        TriMesh::cuboid(DVec3::ZERO, DVec3::ONE).unwrap(),
        TriMesh::cuboid(DVec3::ZERO, DVec3::ONE).unwrap(),
    );
    let m = RigidMotion::between(
        DAffine3::from_rotation_translation(
            DQuat::from_rotation_z(0.3),
            DVec3::new(-3.0, 0.2, 0.1),
        ),
        DAffine3::from_rotation_translation(DQuat::from_rotation_x(1.0), DVec3::new(3.0, 0.1, 0.0)),
    )
    .unwrap();
    let still = RigidMotion::stationary(DAffine3::IDENTITY).unwrap();
    let r = reference_toc(&a, &still, &b, &m, 4000).expect("reference contact");
    for tolerance in [3e-30, 1e-50, ccd_ca_rigid::MIN_TOLERANCE] {
        let opts = CaOptions::default().with_tolerance(tolerance);
        let c = time_of_contact(&body(a.clone()), &still, &body(b.clone()), &m, &opts)
            .unwrap()
            .unwrap_or_else(|| panic!("ε {tolerance:e}: missed"));
        assert!(c.toc <= r, "ε {tolerance:e}: toc {} after {r}", c.toc);
        assert_eq!(c.status, Status::Stalled, "ε {tolerance:e}");
        assert!(
            c.stats.iterations < 1000,
            "{} iterations",
            c.stats.iterations
        );
    }
    let opts = CaOptions::default().with_tolerance(3e-101);
    assert_eq!(
        time_of_contact(&body(a.clone()), &still, &body(b), &m, &opts),
        Err(CaError::InvalidTolerance(3e-101))
    );
}
