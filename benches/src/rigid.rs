//! The rigid-pair workloads shared by `cargo xtask bench --scene rigid-pairs`, the Rust peer
//! runs of `cargo xtask peers` (`peers_rust`) and the criterion peer groups: the
//! `ccd-ca-rigid` mesh workloads (torus vs sphere head-on, near and far miss, an 86°
//! rotation, a bar spinning 170°, thin plates at high speed, a 20K sphere dropping on a 100K
//! terrain) and analytic pairs (ball–ball, capsule–box, ball–box, capsule–capsule,
//! cylinder–box, hull–hull, ball vs mesh, a compound), each shape stated in both libraries
//! (ours: [`Shape`]; parry3d-f64: `SharedShape`) and each motion as the same constant linear
//! and angular velocity about a centre ([`Vel`]).
//!
//! ```
//! let loads = ccd_benches::rigid::workloads();
//! assert!(loads.iter().any(|w| w.name == "thin plates"));
//! ```

use std::sync::Arc;

use ccd_bvh::{BvhOptions, MeshBvh, Rss};
use ccd_ca_rigid::{Compound, RigidBody, Shape};
use ccd_distance::{Ball, Capsule, ConvexHull, Cuboid, Cylinder};
use ccd_geometry::TriMesh;
use ccd_kinematics::RigidMotion;
use ccd_test_support::{axis_angle_pose, rough_sphere, wavy_terrain};
use glam::{DAffine3, DQuat, DVec3};
use parry3d_f64::math::Pose;
use parry3d_f64::query::NonlinearRigidMotion;
use parry3d_f64::shape as ps;

/// A constant-velocity motion as parry states it: a start pose, a linear and an angular
/// velocity (rad per unit time) about `centre` (in the body's frame), for t in [0, 1].
#[derive(Clone, Copy, Debug)]
pub struct Vel {
    /// Pose at t = 0.
    pub start: DAffine3,
    /// Linear velocity (of `centre`).
    pub lin: DVec3,
    /// Angular velocity.
    pub ang: DVec3,
    /// Centre of rotation in the body's frame.
    pub centre: DVec3,
}

impl Vel {
    /// Standing at `at`.
    ///
    /// ```
    /// let v = ccd_benches::rigid::Vel::still(glam::DVec3::X);
    /// assert_eq!(v.ours().pose_at(1.0).translation, glam::DVec3::X);
    /// ```
    pub fn still(at: DVec3) -> Self {
        Self {
            start: DAffine3::from_translation(at),
            lin: DVec3::ZERO,
            ang: DVec3::ZERO,
            centre: DVec3::ZERO,
        }
    }
    /// From two poses, turning `angle` about `axis` (the bench's `RigidMotion::between`).
    ///
    /// ```
    /// use glam::{DAffine3, DVec3};
    /// let v = ccd_benches::rigid::Vel::between(DAffine3::IDENTITY, DAffine3::from_translation(DVec3::X));
    /// assert_eq!(v.lin, DVec3::X);
    /// ```
    pub fn between(from: DAffine3, to: DAffine3) -> Self {
        let m = RigidMotion::between(from, to).expect("rigid poses");
        Self {
            start: from,
            lin: m.linear_velocity(),
            ang: m.angular_velocity(),
            centre: DVec3::ZERO,
        }
    }
    /// The motion as ccd states it.
    ///
    /// ```
    /// let m = ccd_benches::rigid::Vel::still(glam::DVec3::ZERO).ours();
    /// assert_eq!(m.angle(), 0.0);
    /// ```
    pub fn ours(&self) -> RigidMotion {
        RigidMotion::from_velocities(self.start, self.lin, self.ang, self.centre)
            .expect("motions in the domain")
    }
    /// The motion as parry3d-f64 states it.
    ///
    /// ```
    /// let m = ccd_benches::rigid::Vel::still(glam::DVec3::ZERO).parry();
    /// assert_eq!(m.linvel, glam::DVec3::ZERO);
    /// ```
    pub fn parry(&self) -> NonlinearRigidMotion {
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

/// One rigid pair: both shapes in both libraries and both motions.
pub struct Workload {
    /// Name (the workload column of the reports).
    pub name: &'static str,
    /// Shape A, ours.
    pub a: Shape,
    /// Shape A, parry's.
    pub pa: ps::SharedShape,
    /// Shape B, ours.
    pub b: Shape,
    /// Shape B, parry's.
    pub pb: ps::SharedShape,
    /// Motion of A.
    pub ma: Vel,
    /// Motion of B.
    pub mb: Vel,
    /// Analytic pair (target: ≥ 2× parry in `rigid-pairs`).
    pub analytic: bool,
    /// parry's cast takes seconds: run once, only in full mode (`Some(true)`), or never
    /// (`None`, the 100K terrain).
    pub parry_slow: Option<bool>,
}

impl Workload {
    /// An upper bound of the speed at which the distance between the shapes can change
    /// (|Δv| plus each angular speed times the shape's radius about its rotation centre):
    /// the pair's `rigid-pairs` speed bound, and the Lipschitz constant of the dense
    /// reference.
    ///
    /// ```
    /// let w = &ccd_benches::rigid::workloads()[0];
    /// assert!(w.speed_bound() > 0.0);
    /// ```
    pub fn speed_bound(&self) -> f64 {
        let (ma, mb) = (self.ma.ours(), self.mb.ours());
        (mb.linear_velocity() - ma.linear_velocity()).length()
            + ma.angle() * self.a.radius_about(ma.local_center())
            + mb.angle() * self.b.radius_about(mb.local_center())
    }

    /// Both shapes are triangle meshes.
    ///
    /// ```
    /// let w = &ccd_benches::rigid::workloads()[0];
    /// assert!(w.mesh_pair());
    /// ```
    pub fn mesh_pair(&self) -> bool {
        matches!((&self.a, &self.b), (Shape::Mesh(_), Shape::Mesh(_)))
    }
}

fn mesh(m: &TriMesh) -> (Shape, ps::SharedShape) {
    let body = RigidBody::new(Arc::new(
        MeshBvh::<Rss>::new(m.clone(), &BvhOptions::default()).expect("valid mesh"),
    ));
    let theirs = ps::TriMesh::new(m.vertices().to_vec(), m.triangles().to_vec())
        .expect("valid mesh for parry");
    (Shape::Mesh(body), ps::SharedShape::new(theirs))
}

fn ball(r: f64) -> (Shape, ps::SharedShape) {
    (
        Shape::Ball(Ball::new(r).expect("radius")),
        ps::SharedShape::ball(r),
    )
}

fn cuboid(h: DVec3) -> (Shape, ps::SharedShape) {
    (
        Shape::Cuboid(Cuboid::new(h).expect("extents")),
        ps::SharedShape::cuboid(h.x, h.y, h.z),
    )
}

fn capsule(half: f64, r: f64) -> (Shape, ps::SharedShape) {
    (
        Shape::Capsule(Capsule::new_y(half, r).expect("capsule")),
        ps::SharedShape::capsule_y(half, r),
    )
}

/// Every workload, in the `rigid-pairs` order (meshes first, then analytic pairs, a ball vs
/// a mesh and a compound).
///
/// ```
/// assert_eq!(ccd_benches::rigid::workloads().len(), 17);
/// ```
pub fn workloads() -> Vec<Workload> {
    let mut w = Vec::new();
    let mut add = |name,
                   (a, pa): (Shape, ps::SharedShape),
                   (b, pb): (Shape, ps::SharedShape),
                   ma,
                   mb,
                   analytic,
                   parry_slow| {
        w.push(Workload {
            name,
            a,
            pa,
            b,
            pb,
            ma,
            mb,
            analytic,
            parry_slow,
        });
    };
    let still = Vel::still(DVec3::ZERO);
    // --- the criterion benches' mesh workloads ---
    let tor = TriMesh::torus(1.0, 0.35, 70, 35).expect("valid torus");
    let sph = rough_sphere(35, 0.6, 0.0).expect("valid sphere");
    add(
        "torus-sphere head-on",
        mesh(&tor),
        mesh(&sph),
        still,
        Vel::between(
            axis_angle_pose(DVec3::Z, 0.0, DVec3::new(4.0, 0.0, 0.0)),
            axis_angle_pose(DVec3::Y, 0.6, DVec3::new(-1.0, 0.0, 0.0)),
        ),
        false,
        Some(true),
    );
    add(
        "torus-sphere near miss",
        mesh(&tor),
        mesh(&sph),
        still,
        Vel::between(
            axis_angle_pose(DVec3::Z, 0.0, DVec3::new(3.0, 0.0, 0.96)),
            axis_angle_pose(DVec3::Z, 0.0, DVec3::new(-3.0, 0.0, 0.96)),
        ),
        false,
        Some(true),
    );
    add(
        "torus-sphere far miss",
        mesh(&tor),
        mesh(&sph),
        still,
        Vel::between(
            axis_angle_pose(DVec3::Z, 0.0, DVec3::new(3.0, 0.0, 3.0)),
            axis_angle_pose(DVec3::Z, 0.0, DVec3::new(-3.0, 0.0, 3.0)),
        ),
        false,
        Some(true),
    );
    add(
        "torus-sphere 86° rotation",
        mesh(&tor),
        mesh(&sph),
        still,
        Vel::between(
            axis_angle_pose(DVec3::X, 0.0, DVec3::new(2.5, 0.0, 0.5)),
            axis_angle_pose(DVec3::new(1.0, 1.0, 0.0), 1.5, DVec3::new(0.0, 0.0, 0.2)),
        ),
        false,
        Some(true),
    );
    let bar = DVec3::new(3.0, 0.05, 0.05);
    add(
        "bar spinning 170° - sphere",
        mesh(&TriMesh::cuboid(-bar, bar).expect("valid box")),
        mesh(&sph),
        Vel::between(
            axis_angle_pose(DVec3::Z, 0.0, DVec3::ZERO),
            axis_angle_pose(DVec3::Z, 170f64.to_radians(), DVec3::ZERO),
        ),
        Vel::still(DVec3::new(0.0, 2.0, 0.0)),
        false,
        Some(true),
    );
    let plate = DVec3::new(0.5, 0.5, 0.005);
    let plate = TriMesh::cuboid(-plate, plate).expect("valid box");
    add(
        "thin plates",
        mesh(&plate),
        mesh(&plate),
        still,
        Vel::between(
            axis_angle_pose(DVec3::Z, 0.0, DVec3::new(0.3, 0.1, 20.0)),
            axis_angle_pose(DVec3::Z, 0.3, DVec3::new(0.0, 0.0, -20.0)),
        ),
        false,
        Some(true),
    );
    add(
        "sphere 20K - terrain 100K",
        mesh(&wavy_terrain(224).expect("valid terrain")),
        mesh(&rough_sphere(100, 1.0, 0.02).expect("valid sphere")),
        still,
        Vel::between(
            axis_angle_pose(DVec3::X, 0.0, DVec3::new(0.5, 0.3, 3.0)),
            axis_angle_pose(DVec3::X, 0.4, DVec3::new(0.4, 0.2, -1.0)),
        ),
        false,
        None,
    );
    // --- analytic pairs (velocities as a physics engine states them) ---
    let spin = |start: DVec3, lin: DVec3, ang: DVec3, centre: DVec3| Vel {
        start: DAffine3::from_translation(start),
        lin,
        ang,
        centre,
    };
    add(
        "ball-ball head-on, spinning",
        ball(0.5),
        ball(0.3),
        still,
        spin(
            DVec3::new(4.0, 0.2, 0.1),
            DVec3::new(-8.0, 0.0, 0.0),
            DVec3::new(0.0, 20.0, 5.0),
            DVec3::ZERO,
        ),
        true,
        Some(false),
    );
    add(
        "ball-ball near miss",
        ball(0.5),
        ball(0.3),
        still,
        spin(
            DVec3::new(4.0, 0.81, 0.0),
            DVec3::new(-8.0, 0.0, 0.0),
            DVec3::ZERO,
            DVec3::ZERO,
        ),
        true,
        Some(false),
    );
    add(
        "capsule-box, 86° about an offset centre",
        capsule(0.6, 0.2),
        cuboid(DVec3::new(0.5, 0.4, 0.3)),
        spin(
            DVec3::new(-2.5, 0.3, 0.0),
            DVec3::new(3.0, 0.0, 0.0),
            DVec3::new(0.0, 0.0, 1.5),
            DVec3::new(0.0, 0.4, 0.0),
        ),
        still,
        true,
        Some(false),
    );
    add(
        "capsule-box, tumbling 2 turns",
        capsule(0.6, 0.2),
        cuboid(DVec3::new(0.5, 0.4, 0.3)),
        spin(
            DVec3::new(-3.0, 0.0, 0.2),
            DVec3::new(4.0, 0.0, 0.0),
            DVec3::new(4.0, 12.0, 0.0),
            DVec3::ZERO,
        ),
        still,
        true,
        Some(false),
    );
    add(
        "ball-box falling",
        ball(0.25),
        cuboid(DVec3::new(2.0, 0.1, 2.0)),
        spin(
            DVec3::new(0.3, 3.0, 0.1),
            DVec3::new(0.0, -5.0, 0.0),
            DVec3::new(1.0, 0.0, 3.0),
            DVec3::ZERO,
        ),
        still,
        true,
        Some(false),
    );
    add(
        "capsule-capsule crossing",
        capsule(1.0, 0.1),
        capsule(1.0, 0.1),
        still,
        spin(
            DVec3::new(0.0, 0.0, 2.0),
            DVec3::new(0.0, 0.0, -4.0),
            DVec3::new(0.0, 0.0, 0.0),
            DVec3::ZERO,
        ),
        true,
        Some(false),
    );
    add(
        "cylinder-box rolling",
        (
            Shape::Cylinder(Cylinder::new(0.3, 0.5).expect("cylinder")),
            ps::SharedShape::cylinder(0.3, 0.5),
        ),
        cuboid(DVec3::splat(0.4)),
        spin(
            DVec3::new(-3.0, 0.0, 0.0),
            DVec3::new(4.0, 0.0, 0.0),
            DVec3::new(0.0, 0.0, -8.0),
            DVec3::ZERO,
        ),
        still,
        true,
        Some(false),
    );
    let pts: Vec<DVec3> = (0..40)
        .map(|i| {
            let (t, s) = (i as f64 * 2.399_963, (i as f64 + 0.5) / 40.0);
            let z = 1.0 - 2.0 * s;
            let r = (1.0 - z * z).sqrt();
            DVec3::new(0.6 * r * t.cos(), 0.4 * r * t.sin(), 0.5 * z)
        })
        .collect();
    let hull = || {
        (
            Shape::ConvexHull(Arc::new(ConvexHull::new_3d(&pts).expect("hull"))),
            ps::SharedShape::new(ps::ConvexPolyhedron::from_convex_hull(&pts).expect("hull")),
        )
    };
    add(
        "hull-hull tumbling",
        hull(),
        hull(),
        still,
        spin(
            DVec3::new(3.0, 0.2, 0.0),
            DVec3::new(-5.0, 0.0, 0.0),
            DVec3::new(3.0, -2.0, 6.0),
            DVec3::new(0.1, 0.0, 0.0),
        ),
        true,
        Some(false),
    );
    add(
        "ball - torus mesh",
        mesh(&tor),
        ball(0.3),
        still,
        spin(
            DVec3::new(0.0, 1.0, 2.0),
            DVec3::new(0.0, 0.0, -4.0),
            DVec3::new(2.0, 0.0, 0.0),
            DVec3::new(0.0, 0.2, 0.0),
        ),
        false,
        Some(false),
    );
    let dumbbell = || {
        let offs = [DVec3::new(-0.8, 0.0, 0.0), DVec3::new(0.8, 0.0, 0.0)];
        let ours = Compound::new(vec![
            (
                DAffine3::IDENTITY,
                Shape::Cuboid(Cuboid::new(DVec3::new(0.8, 0.05, 0.05)).expect("bar")),
            ),
            (
                DAffine3::from_translation(offs[0]),
                Shape::Ball(Ball::new(0.25).expect("ball")),
            ),
            (
                DAffine3::from_translation(offs[1]),
                Shape::Ball(Ball::new(0.25).expect("ball")),
            ),
        ])
        .expect("compound");
        let p = |v: DVec3| Pose::from_translation(v);
        let theirs = ps::SharedShape::compound(vec![
            (p(DVec3::ZERO), ps::SharedShape::cuboid(0.8, 0.05, 0.05)),
            (p(offs[0]), ps::SharedShape::ball(0.25)),
            (p(offs[1]), ps::SharedShape::ball(0.25)),
        ]);
        (Shape::Compound(Arc::new(ours)), theirs)
    };
    add(
        "dumbbell-dumbbell spinning",
        dumbbell(),
        dumbbell(),
        Vel {
            start: DAffine3::IDENTITY,
            lin: DVec3::ZERO,
            ang: DVec3::new(0.0, 0.0, 4.0),
            centre: DVec3::ZERO,
        },
        spin(
            DVec3::new(0.0, 3.0, 0.3),
            DVec3::new(0.0, -4.0, 0.0),
            DVec3::new(0.0, 0.0, -6.0),
            DVec3::ZERO,
        ),
        false,
        Some(false),
    );
    w
}
