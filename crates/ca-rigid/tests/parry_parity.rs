//! Parity with parry3d-f64 0.31 `cast_shapes_nonlinear` on every ordered pair of shape kinds
//! (ball, capsule, cuboid, cylinder, convex hull, triangle mesh, compound) under the same
//! `NonlinearRigidMotion`s (linear + angular velocity about a `local_center`, any angle):
//! the same contact / no-contact decision, and our `toc` never later than parry's by more
//! than the tolerance (in time: `ε` over the pair's speed bound).
//!
//! Where the two disagree, dense sampling of the exact distance decides: a pair whose
//! smallest distance over the step lies within `[0, 2ε]` (a grazing contact, which the
//! contract lets either answer) is not counted, and a case where parry reports no contact
//! while sampling finds the shapes overlapping is counted as parry's miss (ours must report
//! the contact), and one where parry reports a contact while sampling keeps the shapes more
//! than `2ε` apart (allowing for the sample spacing) as parry's false contact (ours must
//! report none). Any other disagreement fails the test.

mod support;

use ccd_geometry::TriMesh;
use std::sync::Arc;

use ccd_ca_rigid::{CaOptions, Compound, Shape, time_of_contact_shapes};
use ccd_distance::{Ball, Capsule, ConvexHull, ConvexShape, Cuboid, Cylinder, convex_distance};
use ccd_geometry::glam::{DAffine3, DQuat, DVec3};
use ccd_kinematics::RigidMotion;
use parry3d_f64::math::Pose;
use parry3d_f64::query::{NonlinearRigidMotion, cast_shapes_nonlinear};
use parry3d_f64::shape as ps;
use support::SplitMix64;

const KINDS: [&str; 7] = [
    "ball", "capsule", "cuboid", "cylinder", "hull", "mesh", "compound",
];

/// A random shape of the given kind, ours and parry's.
fn make(kind: &str, s: &mut SplitMix64) -> (Shape, ps::SharedShape) {
    match kind {
        "ball" => {
            let r = s.range(0.1, 0.6);
            (Shape::Ball(Ball::new(r).unwrap()), ps::SharedShape::ball(r))
        }
        "capsule" => {
            let (a, b, r) = (s.cube_range(0.5), s.cube_range(0.5), s.range(0.05, 0.4));
            (
                Shape::Capsule(Capsule::new(a, b, r).unwrap()),
                ps::SharedShape::new(ps::Capsule::new(a, b, r)),
            )
        }
        "cuboid" => {
            let h = DVec3::new(s.range(0.05, 0.6), s.range(0.05, 0.6), s.range(0.02, 0.6));
            (
                Shape::Cuboid(Cuboid::new(h).unwrap()),
                ps::SharedShape::cuboid(h.x, h.y, h.z),
            )
        }
        "cylinder" => {
            let (h, r) = (s.range(0.05, 0.6), s.range(0.05, 0.6));
            (
                Shape::Cylinder(Cylinder::new(h, r).unwrap()),
                ps::SharedShape::cylinder(h, r),
            )
        }
        "hull" => loop {
            let pts: Vec<DVec3> = (0..9).map(|_| s.cube_range(0.6)).collect();
            if let (Ok(h), Some(p)) = (
                ConvexHull::new_3d(&pts),
                ps::ConvexPolyhedron::from_convex_hull(&pts),
            ) {
                break (Shape::ConvexHull(Arc::new(h)), ps::SharedShape::new(p));
            }
        },
        "mesh" => {
            // a closed box mesh, skewed by a random rotation of its vertices
            let h = DVec3::new(s.range(0.1, 0.5), s.range(0.1, 0.5), s.range(0.05, 0.5));
            let c = s.cube_range(0.3);
            let mesh = TriMesh::cuboid(c - h, c + h).unwrap();
            let pm = ps::TriMesh::new(mesh.vertices().to_vec(), mesh.triangles().to_vec()).unwrap();
            (Shape::Mesh(support::body(mesh)), ps::SharedShape::new(pm))
        }
        _ => {
            // a ball and a box at offsets
            let (r, h) = (s.range(0.1, 0.3), DVec3::splat(s.range(0.1, 0.3)));
            let (oa, ob) = (
                DAffine3::from_rotation_translation(s.quaternion(), s.cube_range(0.5)),
                DAffine3::from_rotation_translation(s.quaternion(), s.cube_range(0.5)),
            );
            let ours = Compound::new(vec![
                (oa, Shape::Ball(Ball::new(r).unwrap())),
                (ob, Shape::Cuboid(Cuboid::new(h).unwrap())),
            ])
            .unwrap();
            let pose = |o: &DAffine3| Pose::from_parts(o.translation, DQuat::from_mat3(&o.matrix3));
            let theirs = ps::SharedShape::compound(vec![
                (pose(&oa), ps::SharedShape::ball(r)),
                (pose(&ob), ps::SharedShape::cuboid(h.x, h.y, h.z)),
            ]);
            (Shape::Compound(Arc::new(ours)), theirs)
        }
    }
}

struct Motion {
    start: DAffine3,
    lin: DVec3,
    ang: DVec3,
    centre: DVec3,
}

impl Motion {
    fn ours(&self) -> RigidMotion {
        RigidMotion::from_velocities(self.start, self.lin, self.ang, self.centre).unwrap()
    }
    fn parry(&self) -> NonlinearRigidMotion {
        NonlinearRigidMotion::new(
            Pose::from_parts(
                self.start.translation,
                DQuat::from_mat3(&self.start.matrix3),
            ),
            self.centre,
            self.lin,
            self.ang,
        )
    }
}

/// Convex pieces of a shape (triangles for meshes), for the sampled reference.
fn pieces(
    s: &Shape,
    o: DAffine3,
    out: &mut Vec<(DAffine3, Shape, Option<ccd_geometry::Triangle>)>,
) {
    match s {
        Shape::Compound(k) => k.parts().iter().for_each(|(p, c)| pieces(c, o * *p, out)),
        Shape::Mesh(m) => {
            let mesh = m.mesh_bvh().mesh();
            for i in 0..mesh.triangles().len() {
                out.push((o, s.clone(), Some(mesh.triangle(i))));
            }
        }
        other => out.push((o, other.clone(), None)),
    }
}

fn as_convex<'a>(s: &'a Shape, t: &'a Option<ccd_geometry::Triangle>) -> ConvexShape<'a> {
    if let Some(t) = t {
        return ConvexShape::Triangle(t);
    }
    match s {
        Shape::Ball(b) => ConvexShape::Ball(b),
        Shape::Capsule(b) => ConvexShape::Capsule(b),
        Shape::Cuboid(b) => ConvexShape::Cuboid(b),
        Shape::Cylinder(b) => ConvexShape::Cylinder(b),
        Shape::ConvexHull(b) => ConvexShape::Hull(b),
        _ => unreachable!(),
    }
}

/// Sample intervals of [`sampled_min`].
const SAMPLES: u32 = 4000;

/// Smallest sampled distance over `[0, 1]` (`SAMPLES + 1` times).
fn sampled_min(a: &Shape, ma: &RigidMotion, b: &Shape, mb: &RigidMotion) -> f64 {
    let (mut pa, mut pb) = (Vec::new(), Vec::new());
    pieces(a, DAffine3::IDENTITY, &mut pa);
    pieces(b, DAffine3::IDENTITY, &mut pb);
    let mut best = f64::INFINITY;
    for k in 0..=SAMPLES {
        let t = f64::from(k) / f64::from(SAMPLES);
        let (xa, xb) = (ma.pose_at(t), mb.pose_at(t));
        for (oa, sa, ta) in &pa {
            for (ob, sb, tb) in &pb {
                let pos = (xa * *oa).inverse() * (xb * *ob);
                best =
                    best.min(convex_distance(as_convex(sa, ta), as_convex(sb, tb), &pos).distance);
            }
        }
    }
    best
}

#[test]
fn decisions_and_times_match_parry_on_every_pair() {
    let cases: u32 = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256)
        / 8
        + 4;
    let opts = CaOptions::default();
    let eps = opts.tolerance;
    let mut rng = SplitMix64::new(0x5EED);
    let (mut compared, mut grazing, mut parry_misses, mut contacts) = (0, 0, 0, 0);
    let mut parry_false = 0;
    let mut worst_late = f64::NEG_INFINITY;
    for ka in KINDS {
        for kb in KINDS {
            for _ in 0..cases {
                let (a, pa) = make(ka, &mut rng);
                let (b, pb) = make(kb, &mut rng);
                let still_or_moving = Motion {
                    start: DAffine3::from_rotation_translation(
                        rng.quaternion(),
                        rng.cube_range(0.3),
                    ),
                    lin: rng.cube_range(0.5),
                    ang: rng.cube_range(3.0),
                    centre: rng.cube_range(0.3),
                };
                // B comes from ~3 away towards A, spinning up to ~2 turns about an offset centre
                let from = rng.cube_range(1.0).normalize_or(DVec3::X) * 3.0;
                let aim = rng.cube_range(0.6);
                let mb_ = Motion {
                    start: DAffine3::from_rotation_translation(rng.quaternion(), from),
                    lin: (aim - from) * rng.range(0.6, 2.0),
                    ang: rng.cube_range(8.0),
                    centre: rng.cube_range(0.3),
                };
                let (ma, mb) = (still_or_moving.ours(), mb_.ours());
                let ours = time_of_contact_shapes(&a, &ma, &b, &mb, &opts).unwrap();
                let theirs = cast_shapes_nonlinear(
                    &still_or_moving.parry(),
                    pa.as_ref(),
                    &mb_.parry(),
                    pb.as_ref(),
                    0.0,
                    1.0,
                    true,
                )
                .expect("parry supports the pair")
                .map(|h| h.time_of_impact);
                compared += 1;
                match (ours, theirs) {
                    (Some(o), Some(p)) => {
                        contacts += 1;
                        // ε in time: over the pair's speed bound
                        let speed = (mb.linear_velocity() - ma.linear_velocity()).length()
                            + ma.angle() * a.radius_about(ma.local_center())
                            + mb.angle() * b.radius_about(mb.local_center());
                        let late = o.toc - p;
                        worst_late = worst_late.max(late);
                        assert!(
                            late <= eps / speed + 1e-9,
                            "{ka}-{kb}: ours {} later than parry {p} (ε/speed {})",
                            o.toc,
                            eps / speed
                        );
                    }
                    (None, None) => {}
                    (o, p) => {
                        let d = sampled_min(&a, &ma, &b, &mb);
                        // how far the true minimum can lie below the sampled one: half a
                        // sample spacing at the pair's speed bound
                        let speed = (mb.linear_velocity() - ma.linear_velocity()).length()
                            + ma.angle().abs() * a.radius_about(ma.local_center())
                            + mb.angle().abs() * b.radius_about(mb.local_center());
                        let gap = d - speed / (2.0 * f64::from(SAMPLES));
                        if d <= 2.0 * eps && d > 0.0 {
                            grazing += 1;
                        } else if o.is_some() && p.is_none() && d == 0.0 {
                            parry_misses += 1;
                        } else if o.is_none() && p.is_some() && gap > 2.0 * eps {
                            // the shapes stay more than 2ε apart over the whole step: parry's
                            // contact is false (seen on a cuboid–mesh pair 8 cm apart,
                            // `PROPTEST_CASES=512`)
                            parry_false += 1;
                        } else {
                            panic!("{ka}-{kb}: ours {o:?}, parry {p:?}, sampled min distance {d}");
                        }
                    }
                }
            }
        }
    }
    eprintln!(
        "parity: {compared} queries ({} per ordered pair), {contacts} contacts on both sides, \
         {grazing} grazing (within 2ε, either answer allowed), {parry_misses} parry misses, \
         {parry_false} parry contacts where sampling keeps the shapes more than 2ε apart; \
         ours at most {worst_late:e} later than parry",
        cases
    );
    assert!(contacts > compared / 4, "too few contacts to compare times");
}
