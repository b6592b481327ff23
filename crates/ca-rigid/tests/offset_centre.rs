//! The mesh entry points (`time_of_contact`, `time_of_contact_convex`) under motions that
//! turn about a centre away from the frame origin (`RigidMotion::from_velocities` with a
//! non-zero `local_center`, parry's `NonlinearRigidMotion`), any angle: against dense
//! sampling of the exact mesh distance (never a miss, toc never after a sampled contact,
//! distance ≤ ε at toc, > ε/2 before it and all along when free), and the same answer as
//! the motion re-expressed about the frame origin of a shifted copy of the body.

mod support;

use std::sync::Arc;

use ccd_bvh::{BvhOptions, MeshBvh, Rss};
use ccd_ca_rigid::{
    CaOptions, Contact, RigidBody, Status, time_of_contact, time_of_contact_convex,
};
use ccd_geometry::TriMesh;
use ccd_geometry::glam::{DAffine3, DVec3};
use ccd_kinematics::RigidMotion;
use proptest::prelude::*;
use support::*;

const EPS: f64 = 1e-3;

fn vec3(s: f64) -> impl Strategy<Value = DVec3> {
    (-s..s, -s..s, -s..s).prop_map(|(x, y, z)| DVec3::new(x, y, z))
}

fn meshes() -> impl Strategy<Value = TriMesh> {
    prop_oneof![
        prop::collection::vec(-1.0..1.0f64, 64).prop_map(|n| blob(0.5, 4, 0.2, &n).unwrap()),
        (vec3(0.4), prop::array::uniform3(0.05..0.5f64)).prop_map(|(c, e)| TriMesh::cuboid(
            c - DVec3::from_array(e),
            c + DVec3::from_array(e)
        )
        .unwrap()),
        prop::collection::vec(prop::array::uniform9(-1.0..1.0f64), 1..8)
            .prop_map(|t| soup(&t, 0.6)),
    ]
}

fn boxes() -> impl Strategy<Value = TriMesh> {
    (vec3(0.4), prop::array::uniform3(0.05..0.5f64)).prop_map(|(c, e)| {
        TriMesh::cuboid(c - DVec3::from_array(e), c + DVec3::from_array(e)).unwrap()
    })
}

/// A motion about an offset centre (up to 1.5 from the frame origin), turning up to ~3
/// turns, whose centre heads roughly at `aim` from up to 3 away (so that many pairs meet).
fn aimed(aim: DVec3) -> impl Strategy<Value = RigidMotion> {
    (pose(3.0), vec3(0.8), unit(), 0.0..20.0f64, vec3(1.5)).prop_map(
        move |(start, miss, axis, angle, centre)| {
            let c0 = start.transform_point3(centre);
            let lin = (aim + miss - c0) * 1.6;
            RigidMotion::from_velocities(start, lin, axis * angle, centre).expect("in the domain")
        },
    )
}

fn still_or_spinning() -> impl Strategy<Value = RigidMotion> {
    prop_oneof![
        pose(0.3).prop_map(|p| RigidMotion::stationary(p).expect("rigid")),
        (pose(0.3), unit(), 0.0..12.0f64, vec3(1.5), vec3(0.5)).prop_map(
            |(p, axis, angle, centre, lin)| RigidMotion::from_velocities(
                p,
                lin,
                axis * angle,
                centre
            )
            .expect("in the domain")
        ),
    ]
}

/// The conservative contract of one answer against dense sampling of the exact distance.
fn check(
    a: &TriMesh,
    ma: &RigidMotion,
    b: &TriMesh,
    mb: &RigidMotion,
    got: Option<Contact>,
) -> Result<(), TestCaseError> {
    let end = got.map_or(1.0, |c| c.toc);
    let samples = 600;
    for k in 0..=samples {
        let t = f64::from(k) / f64::from(samples);
        if t >= end {
            break;
        }
        let d = distance_at(a, ma, b, mb, t);
        prop_assert!(
            d > 0.5 * EPS - 1e-9,
            "distance {d} at t = {t} before toc {end} ({got:?})"
        );
    }
    if let Some(c) = got {
        prop_assert!(
            matches!(c.status, Status::Converged | Status::InitiallyTouching),
            "{c:?}"
        );
        let d = distance_at(a, ma, b, mb, c.toc);
        prop_assert!(
            d <= EPS + 1e-9,
            "distance {d} at the reported toc {}",
            c.toc
        );
        prop_assert!(c.distance <= EPS);
    }
    Ok(())
}

/// The same body with its frame origin moved to `c` (vertices shifted by `−c`), and the
/// motion turning about that origin: every point moves exactly as before.
fn recentred(mesh: &TriMesh, m: &RigidMotion) -> (TriMesh, RigidMotion) {
    let c = m.local_center();
    let v = mesh.vertices().iter().map(|p| *p - c).collect();
    let shifted = TriMesh::new(v, mesh.triangles().to_vec()).expect("valid mesh");
    let start = m.pose_at(0.0) * DAffine3::from_translation(c);
    let about_origin = RigidMotion::from_velocities(
        start,
        m.linear_velocity(),
        m.angular_velocity(),
        DVec3::ZERO,
    )
    .expect("in the domain");
    (shifted, about_origin)
}

fn hull_body(mesh: TriMesh) -> RigidBody {
    RigidBody::with_hull(Arc::new(
        MeshBvh::<Rss>::new(mesh, &BvhOptions::default()).expect("non-empty"),
    ))
    .expect("hull")
}

proptest! {
    // each case samples the exact mesh distance 600+ times: a quarter of PROPTEST_CASES
    #![proptest_config(ProptestConfig { cases: (ProptestConfig::default().cases / 4).max(1), ..ProptestConfig::default() })]

    #[test]
    fn mesh_ca_about_offset_centres_is_conservative(
        a in meshes(), b in meshes(), ma in still_or_spinning(), mb in aimed(DVec3::ZERO),
        hulls in any::<bool>(),
    ) {
        let opts = CaOptions::default().with_tolerance(EPS);
        // (bodies with hulls: the hulls' advancement about the centres comes first)
        let (ba, bb) = if hulls { (hull_body(a.clone()), hull_body(b.clone())) } else { (body(a.clone()), body(b.clone())) };
        let got = time_of_contact(&ba, &ma, &bb, &mb, &opts).unwrap();
        check(&a, &ma, &b, &mb, got)?;
        // swapped roles: the same decision, toc within the tolerance's time
        let rev = time_of_contact(&bb, &mb, &ba, &ma, &opts).unwrap();
        prop_assert_eq!(got.is_some(), rev.is_some());
        // the motion about the frame origin of a shifted copy moves the same points: both
        // answers keep the contract (they may differ within it: other radii, other bounds)
        let (sb, smb) = recentred(&b, &mb);
        let shifted = time_of_contact(&ba, &ma, &body(sb.clone()), &smb, &opts).unwrap();
        check(&a, &ma, &sb, &smb, shifted)?;
    }

    #[test]
    fn convex_ca_about_offset_centres_is_conservative(
        a in boxes(), b in boxes(), ma in still_or_spinning(), mb in aimed(DVec3::ZERO),
    ) {
        let opts = CaOptions::default().with_tolerance(EPS);
        let got = time_of_contact_convex(&hull_body(a.clone()), &ma, &hull_body(b.clone()), &mb, &opts).unwrap();
        check(&a, &ma, &b, &mb, got)?;
    }
}

/// A bar swinging about a pivot 2 away from its centre (its frame origin) into a post: the
/// bar's end sweeps a circle of radius 3 about the pivot and reaches the post after a
/// quarter turn; both entry points find the contact no later than the sampled one.
#[test]
fn a_bar_swinging_about_a_pivot_hits_the_post() {
    let bar = TriMesh::cuboid(DVec3::new(-1.0, -0.05, -0.05), DVec3::new(1.0, 0.05, 0.05)).unwrap();
    let post = TriMesh::cuboid(DVec3::new(-0.1, -0.1, -1.0), DVec3::new(0.1, 0.1, 1.0)).unwrap();
    // the bar lies along x with its centre at (2, 0, 0); the pivot is the world origin,
    // (−2, 0, 0) in the bar's frame; it turns π about z
    let start = DAffine3::from_translation(DVec3::new(2.0, 0.0, 0.0));
    let swing = RigidMotion::from_velocities(
        start,
        DVec3::ZERO,
        DVec3::Z * std::f64::consts::PI,
        DVec3::new(-2.0, 0.0, 0.0),
    )
    .unwrap();
    // the post stands at (0, 2.5, 0): the bar (radii 1..3 from the pivot) reaches it at a
    // quarter turn, minus the post's and the bar's half widths
    let post_at =
        RigidMotion::stationary(DAffine3::from_translation(DVec3::new(0.0, 2.5, 0.0))).unwrap();
    let reference = reference_toc(&post, &post_at, &bar, &swing, 2000).expect("they meet");
    assert!(reference > 0.4 && reference < 0.5, "{reference}");
    let opts = CaOptions::default().with_tolerance(EPS);
    let c = time_of_contact(
        &body(post.clone()),
        &post_at,
        &body(bar.clone()),
        &swing,
        &opts,
    )
    .unwrap()
    .expect("the mesh CA finds it");
    assert_eq!(c.status, Status::Converged);
    assert!(
        c.toc <= reference && c.toc > reference - 0.01,
        "{} vs {reference}",
        c.toc
    );
    let h = time_of_contact_convex(&hull_body(post), &post_at, &hull_body(bar), &swing, &opts)
        .unwrap()
        .expect("the convex CA finds it");
    assert!(
        h.toc <= reference && h.toc > reference - 0.01,
        "{} vs {reference}",
        h.toc
    );
}
