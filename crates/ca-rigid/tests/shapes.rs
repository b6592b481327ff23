//! `time_of_contact_shapes` against dense sampling: random pairs of every kind (ball,
//! capsule, cuboid, cylinder, convex hull, mesh, compound) under motions with any angle and
//! an offset rotation centre. Conservative: the sampled distance stays above `ε/2` before
//! the reported `toc` (over the whole step for `None`), and the distance at `toc` is `≤ ε`.
//! Closed-form cases pin the TOC from both sides.

mod support;

use ccd_geometry::TriMesh;
use std::sync::Arc;

use ccd_ca_rigid::{
    CaError, CaOptions, Compound, Shape, ShapeContact, Status, time_of_contact_shapes,
};
use ccd_distance::{
    Ball, Capsule, ConvexHull, ConvexShape, Cuboid, Cylinder, ShapeError, convex_distance,
};
use ccd_geometry::Triangle;
use ccd_geometry::glam::{DAffine3, DQuat, DVec3};
use ccd_kinematics::RigidMotion;
use proptest::prelude::*;

/// The convex pieces of a shape in its frame: (offset, piece), a mesh giving its triangles.
enum Piece {
    Convex(Shape),
    Tri(Triangle),
}

fn pieces(s: &Shape, offset: DAffine3, out: &mut Vec<(DAffine3, Piece)>) {
    match s {
        Shape::Compound(k) => {
            for (o, p) in k.parts() {
                pieces(p, offset * *o, out);
            }
        }
        Shape::Mesh(m) => {
            let mesh = m.mesh_bvh().mesh();
            for i in 0..mesh.triangles().len() {
                out.push((offset, Piece::Tri(mesh.triangle(i))));
            }
        }
        other => out.push((offset, Piece::Convex(other.clone()))),
    }
}

fn convex(p: &Piece) -> ConvexShape<'_> {
    match p {
        Piece::Tri(t) => ConvexShape::Triangle(t),
        Piece::Convex(Shape::Ball(b)) => ConvexShape::Ball(b),
        Piece::Convex(Shape::Capsule(b)) => ConvexShape::Capsule(b),
        Piece::Convex(Shape::Cuboid(b)) => ConvexShape::Cuboid(b),
        Piece::Convex(Shape::Cylinder(b)) => ConvexShape::Cylinder(b),
        Piece::Convex(Shape::ConvexHull(b)) => ConvexShape::Hull(b),
        Piece::Convex(_) => unreachable!("flattened"),
    }
}

/// Distance between the shapes at time `t` (minimum over their convex pieces).
fn distance_at(
    a: &[(DAffine3, Piece)],
    ma: &RigidMotion,
    b: &[(DAffine3, Piece)],
    mb: &RigidMotion,
    t: f64,
) -> f64 {
    let (pa, pb) = (ma.pose_at(t), mb.pose_at(t));
    let mut d = f64::INFINITY;
    for (oa, x) in a {
        for (ob, y) in b {
            let pos = ((pa * *oa).inverse()) * (pb * *ob);
            d = d.min(convex_distance(convex(x), convex(y), &pos).distance);
        }
    }
    d
}

fn tetra_mesh(s: f64, hull: bool) -> Shape {
    let mesh = ccd_geometry::TriMesh::new(
        vec![
            DVec3::new(-s, -s, -s),
            DVec3::new(s, -s, s),
            DVec3::new(-s, s, s),
            DVec3::new(s, s, -s),
        ],
        vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
    )
    .unwrap();
    Shape::Mesh(support::body_maybe_hull(mesh, hull))
}

fn shape() -> impl Strategy<Value = Shape> {
    let v = || -0.6f64..0.6;
    let p = move || (v(), v(), v()).prop_map(|(x, y, z)| DVec3::new(x, y, z));
    let leaf = prop_oneof![
        (0.05f64..0.6).prop_map(|r| Shape::Ball(Ball::new(r).unwrap())),
        (p(), p(), 0.05f64..0.4)
            .prop_map(|(a, b, r)| Shape::Capsule(Capsule::new(a, b, r).unwrap())),
        (0.05f64..0.6, 0.05f64..0.6, 0.02f64..0.6)
            .prop_map(|(x, y, z)| Shape::Cuboid(Cuboid::new(DVec3::new(x, y, z)).unwrap())),
        (0.05f64..0.6, 0.05f64..0.6)
            .prop_map(|(h, r)| Shape::Cylinder(Cylinder::new(h, r).unwrap())),
        prop::collection::vec(p(), 5..10).prop_filter_map("flat", |pts| ConvexHull::new_3d(&pts)
            .ok()
            .map(|h| Shape::ConvexHull(Arc::new(h)))),
        // meshes with and without hulls (with: the hulls' advancement comes first)
        (0.1f64..0.6, any::<bool>()).prop_map(|(s, h)| tetra_mesh(s, h)),
        (p(), 0.2f64..0.5, any::<bool>()).prop_map(|(c, s, h)| {
            let b = TriMesh::cuboid(c - DVec3::splat(s), c + DVec3::splat(s)).unwrap();
            Shape::Mesh(support::body_maybe_hull(b, h))
        }),
    ];
    leaf.prop_recursive(1, 4, 3, |inner| {
        prop::collection::vec((support::pose(0.8), inner), 1..3)
            .prop_map(|parts| Shape::Compound(Arc::new(Compound::new(parts).unwrap())))
    })
}

fn motion() -> impl Strategy<Value = RigidMotion> {
    let v = |s: f64| (-s..s, -s..s, -s..s).prop_map(|(x, y, z)| DVec3::new(x, y, z));
    (support::pose(2.5), v(5.0), v(9.0), v(0.6), 0u8..4).prop_map(|(start, lin, ang, c, kind)| {
        let (ang, c) = match kind {
            0 => (DVec3::ZERO, c),   // translation only
            1 => (ang, DVec3::ZERO), // about the frame origin
            _ => (ang, c),           // about an offset centre, any angle
        };
        RigidMotion::from_velocities(start, lin, ang, c).unwrap()
    })
}

/// Checks the conservative contract of one query against `samples` evenly spaced times.
fn check(
    a: &Shape,
    ma: &RigidMotion,
    b: &Shape,
    mb: &RigidMotion,
    samples: u32,
) -> Result<Option<ShapeContact>, TestCaseError> {
    let opts = CaOptions::default();
    let eps = opts.tolerance;
    let got = time_of_contact_shapes(a, ma, b, mb, &opts).unwrap();
    let (mut pa, mut pb) = (Vec::new(), Vec::new());
    pieces(a, DAffine3::IDENTITY, &mut pa);
    pieces(b, DAffine3::IDENTITY, &mut pb);
    let end = got.map_or(1.0, |c| c.toc);
    for k in 0..=samples {
        let t = f64::from(k) / f64::from(samples);
        if t >= end {
            break;
        }
        let d = distance_at(&pa, ma, &pb, mb, t);
        prop_assert!(
            d > 0.5 * eps - 1e-9,
            "distance {d} at t = {t} before toc {end} ({got:?})"
        );
    }
    if let Some(c) = got {
        prop_assert!(
            matches!(c.status, Status::Converged | Status::InitiallyTouching),
            "{c:?}"
        );
        let d = distance_at(&pa, ma, &pb, mb, c.toc);
        prop_assert!(
            d <= eps + 1e-9,
            "distance {d} at the reported toc {}",
            c.toc
        );
        prop_assert!(c.distance <= eps);
        prop_assert!(((c.point_b - c.point_a).length() - c.distance).abs() < 1e-9);
    }
    Ok(got)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(256)
    ))]

    #[test]
    fn shapes_toc_is_conservative(a in shape(), b in shape(), ma in motion(), mb in motion()) {
        let got = check(&a, &ma, &b, &mb, 1500)?;
        // symmetric decision
        let rev = time_of_contact_shapes(&b, &mb, &a, &ma, &CaOptions::default()).unwrap();
        prop_assert_eq!(got.is_some(), rev.is_some());
    }

    /// Pairs aimed at each other (B's rotation centre heads through A's origin), so many
    /// of them collide.
    #[test]
    fn aimed_pairs_are_conservative(a in shape(), b in shape(), from in support::unit(), spin in (-9.0f64..9.0), c in (-0.5f64..0.5)) {
        let ma = RigidMotion::stationary(DAffine3::IDENTITY).unwrap();
        let start = DAffine3::from_translation(from * 3.0);
        let mb = RigidMotion::from_velocities(start, -from * 5.0, DVec3::new(0.3, 1.0, -0.2).normalize() * spin, DVec3::new(c, -c, 0.5 * c)).unwrap();
        check(&a, &ma, &b, &mb, 1500)?;
    }
}

fn ball(r: f64) -> Shape {
    Shape::Ball(Ball::new(r).unwrap())
}

#[test]
fn head_on_balls_hit_at_the_closed_form_time() {
    // centres 10 apart closing at speed 10, radii 0.5 + 0.5: contact at t = 0.9
    let still = RigidMotion::stationary(DAffine3::IDENTITY).unwrap();
    let fly = RigidMotion::from_velocities(
        DAffine3::from_translation(DVec3::new(10.0, 0.0, 0.0)),
        DVec3::new(-10.0, 0.0, 0.0),
        DVec3::new(0.0, 40.0, 3.0), // spinning about its own centre changes nothing
        DVec3::ZERO,
    )
    .unwrap();
    let c = time_of_contact_shapes(&ball(0.5), &still, &ball(0.5), &fly, &CaOptions::default())
        .unwrap()
        .unwrap();
    assert_eq!(c.status, Status::Converged);
    assert!(c.toc <= 0.9 && c.toc >= 0.9 - 1e-3 / 10.0, "{}", c.toc);
    // the spin about the centre is free: few iterations
    assert!(c.stats.iterations < 10, "{}", c.stats.iterations);
}

#[test]
fn orbiting_ball_about_an_offset_centre() {
    // B: a ball of radius 0.5 whose centre is 2 from the rotation centre (its local offset
    // −2 x), which sits at the origin; it turns by 3π/2 about z. A: a still ball of radius
    // 0.5 at (0, 2) — 90° along the orbit of B's centre starting at (2, 0), turning
    // counter-clockwise: the centres meet when the chord is 1, at angle θ with
    // 2·2 sin((π/2 − θ)/2) = 1.
    let a_pose = DAffine3::from_translation(DVec3::new(0.0, 2.0, 0.0));
    let still = RigidMotion::stationary(a_pose).unwrap();
    let b_start = DAffine3::from_translation(DVec3::new(2.0, 0.0, 0.0));
    let total = 1.5 * std::f64::consts::PI;
    let orbit = RigidMotion::from_velocities(
        b_start,
        DVec3::ZERO,
        DVec3::Z * total,
        DVec3::new(-2.0, 0.0, 0.0),
    )
    .unwrap();
    let theta = std::f64::consts::FRAC_PI_2 - 2.0 * (0.25f64).asin();
    let exact = theta / total;
    let c = time_of_contact_shapes(
        &ball(0.5),
        &still,
        &ball(0.5),
        &orbit,
        &CaOptions::default(),
    )
    .unwrap()
    .unwrap();
    assert_eq!(c.status, Status::Converged);
    // the centre moves at speed 2·total per unit time
    assert!(
        c.toc <= exact && c.toc >= exact - 1e-3 / (2.0 * total),
        "{} vs {exact}",
        c.toc
    );
}

#[test]
fn a_spinning_bar_sweeps_through_a_ball_beyond_half_a_turn() {
    // a 2-long bar turning 1.9 turns about its centre; the ball sits at 270° from the bar's
    // start direction: the bar's tip reaches it after 3/4 of a turn (t ≈ 0.75 / 1.9, minus
    // the angular width of the ball and bar)
    let bar = Shape::Cuboid(Cuboid::new(DVec3::new(1.0, 0.02, 0.02)).unwrap());
    let spin = RigidMotion::from_axis_angle(
        DAffine3::IDENTITY,
        DVec3::Z,
        1.9 * std::f64::consts::TAU,
        DVec3::ZERO,
    )
    .unwrap();
    let still =
        RigidMotion::stationary(DAffine3::from_translation(DVec3::new(0.3, -0.8, 0.0))).unwrap();
    let got = check(&bar, &spin, &ball(0.05), &still, 20_000)
        .unwrap()
        .expect("the bar hits the ball");
    assert!(got.toc > 0.1 && got.toc < 0.75 / 1.9);
}

#[test]
fn near_miss_above_the_tolerance_is_none() {
    // balls passing with a gap of 0.01 (ε = 1e-3)
    let still = RigidMotion::stationary(DAffine3::IDENTITY).unwrap();
    let pass = RigidMotion::between(
        DAffine3::from_translation(DVec3::new(-5.0, 1.01, 0.0)),
        DAffine3::from_translation(DVec3::new(5.0, 1.01, 0.0)),
    )
    .unwrap();
    let r = time_of_contact_shapes(&ball(0.5), &still, &ball(0.5), &pass, &CaOptions::default())
        .unwrap();
    assert_eq!(r, None);
    let cap = Shape::Capsule(Capsule::new_y(0.5, 0.5).unwrap());
    let over = RigidMotion::between(
        DAffine3::from_translation(DVec3::new(-5.0, 2.01, 0.0)),
        DAffine3::from_translation(DVec3::new(5.0, 2.01, 0.0)),
    )
    .unwrap();
    assert_eq!(
        time_of_contact_shapes(&cap, &still, &ball(0.5), &over, &CaOptions::default()).unwrap(),
        None
    );
}

#[test]
fn mesh_pairs_accept_offset_rotation_centres() {
    let still = RigidMotion::stationary(DAffine3::IDENTITY).unwrap();
    let start = DAffine3::from_translation(DVec3::new(3.0, 0.0, 0.0));
    let spin =
        RigidMotion::from_velocities(start, -DVec3::X * 3.0, DVec3::Z * 10.0, DVec3::Y).unwrap();
    let got = check(
        &tetra_mesh(0.5, false),
        &still,
        &tetra_mesh(0.5, true),
        &spin,
        20_000,
    )
    .unwrap();
    assert!(got.is_some());
}

#[test]
fn bad_input_is_a_typed_error() {
    let still = RigidMotion::stationary(DAffine3::IDENTITY).unwrap();
    let nan = CaOptions::default().with_tolerance(f64::NAN);
    assert!(matches!(
        time_of_contact_shapes(&ball(1.0), &still, &ball(1.0), &still, &nan),
        Err(CaError::InvalidTolerance(_))
    ));
    let zero = CaOptions::default().with_max_iterations(0);
    assert_eq!(
        time_of_contact_shapes(&ball(1.0), &still, &ball(1.0), &still, &zero),
        Err(CaError::NoIterations)
    );
    let far = Shape::Capsule(Capsule::new(DVec3::ZERO, DVec3::X * 1e100, 1.0).unwrap());
    let huge = Shape::Compound(Arc::new(
        Compound::new(vec![(DAffine3::from_translation(DVec3::X * 1e100), far)]).unwrap(),
    ));
    assert!(matches!(
        time_of_contact_shapes(&huge, &still, &ball(1.0), &still, &CaOptions::default()),
        Err(CaError::OutOfDomain { body: 0, .. })
    ));
    // shapes themselves cannot be built from bad parameters
    assert!(matches!(
        Ball::new(0.0),
        Err(ShapeError::NonPositive { .. })
    ));
    assert!(matches!(
        Ball::new(f64::NAN),
        Err(ShapeError::NonFinite { .. })
    ));
    assert!(matches!(
        Cuboid::new(DVec3::new(1.0, -1.0, 1.0)),
        Err(ShapeError::NonPositive { .. })
    ));
    assert!(matches!(
        Cylinder::new(1.0, -0.5),
        Err(ShapeError::NonPositive { .. })
    ));
    let rot = DAffine3::from_quat(DQuat::from_rotation_x(0.5));
    assert!(Compound::new(vec![(rot, ball(1.0))]).is_ok());
}

#[test]
fn out_of_iterations_is_a_conservative_status() {
    let still = RigidMotion::stationary(DAffine3::IDENTITY).unwrap();
    let fly = RigidMotion::between(
        DAffine3::from_translation(DVec3::new(0.0, 5.0, 0.0)),
        DAffine3::from_translation(DVec3::new(0.0, -5.0, 0.0)),
    )
    .unwrap();
    let cyl = Shape::Cylinder(Cylinder::new(0.5, 0.5).unwrap());
    let opts = CaOptions::default().with_max_iterations(1);
    let c = time_of_contact_shapes(&cyl, &still, &cyl, &fly, &opts)
        .unwrap()
        .unwrap();
    assert_eq!(c.status, Status::OutOfIterations);
    // exact contact at y = 1: t = 0.4
    assert!(c.toc <= 0.4);
}
