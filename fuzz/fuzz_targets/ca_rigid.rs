//! Fuzz target: rigid conservative advancement (`ccd_ca_rigid::time_of_contact`) between two
//! small meshes (up to 4 triangles each, lattice vertices of any scale) under constant-velocity
//! motions between lattice poses, with arbitrary options. Oracle: no panic, no hang; an
//! accepted query's `toc` is in `[0, 1]`; and if at a sampled time `t` (33 samples, `t = 0`
//! and `t = 1` included) the meshes clearly intersect (an edge of one pierces a triangle of the
//! other with margins, in the normalised frame; `ccd_fuzz::triangles_clearly_intersect`), a
//! contact is reported at or before `t` (in Boolean mode: some contact).
#![no_main]

use std::sync::Arc;

use arbitrary::Arbitrary;
use ccd_bvh::{BvhOptions, MeshBvh, Rss};
use ccd_ca_rigid::{CaOptions, Mode, RigidBody, time_of_contact};
use ccd_fuzz::{Points, Tolerance, normalise, triangles_clearly_intersect};
use ccd_geometry::TriMesh;
use ccd_geometry::glam::{DAffine3, DVec3};
use ccd_kinematics::RigidMotion;
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
struct Pose {
    /// Quaternion on a small lattice (normalised; zero means identity).
    rotation: [i8; 4],
    /// Translation in lattice steps of the case's spacing.
    translation: [i16; 3],
}

#[derive(Arbitrary, Debug)]
struct Input {
    /// Six vertices of mesh A, then six of mesh B.
    points: Points<12>,
    /// Triangles of A and of B: vertex indices mod 6, 1 to 4 triangles each.
    triangles: [[[u8; 3]; 4]; 2],
    counts: [u8; 2],
    poses: [[Pose; 2]; 2],
    tolerance: Tolerance,
    max_iterations: Option<u16>,
    boolean: bool,
}

fn pose(p: &Pose, spacing_exp: i32) -> DAffine3 {
    ccd_fuzz::lattice_pose(p.rotation, p.translation, spacing_exp)
}

fn body(vertices: &[DVec3], triangles: &[[u8; 3]]) -> Option<(RigidBody, TriMesh)> {
    let tris = triangles
        .iter()
        .map(|t| t.map(|i| u32::from(i % 6)))
        .collect();
    let mesh = TriMesh::new(vertices.to_vec(), tris).ok()?;
    let bvh = MeshBvh::<Rss>::new(mesh.clone(), &BvhOptions::default()).ok()?;
    Some((RigidBody::new(Arc::new(bvh)), mesh))
}

/// World triangles of a mesh at time `t`.
fn world(mesh: &TriMesh, motion: &RigidMotion, t: f64) -> Vec<[DVec3; 3]> {
    let pose = motion.pose_at(t);
    mesh.triangle_iter()
        .map(|tri| [tri.a, tri.b, tri.c].map(|v| pose.transform_point3(v)))
        .collect()
}

/// Whether the meshes clearly intersect at `t`.
fn clearly_intersecting(meshes: [&TriMesh; 2], motions: [&RigidMotion; 2], t: f64) -> bool {
    let (wa, wb) = (
        world(meshes[0], motions[0], t),
        world(meshes[1], motions[1], t),
    );
    let all: Vec<DVec3> = wa.iter().chain(&wb).flatten().copied().collect();
    let Some(n) = normalise(&all) else {
        return false;
    };
    let tri = |k: usize| [n.points[3 * k], n.points[3 * k + 1], n.points[3 * k + 2]];
    (0..wa.len())
        .any(|i| (0..wb.len()).any(|j| triangles_clearly_intersect(&tri(i), &tri(wa.len() + j))))
}

fuzz_target!(|input: Input| {
    let e = input.points.spacing_exp();
    let p = input.points.points();
    let count = |k: usize| 1 + usize::from(input.counts[k] % 4);
    let Some((a, mesh_a)) = body(&p[..6], &input.triangles[0][..count(0)]) else {
        return;
    };
    let Some((b, mesh_b)) = body(&p[6..], &input.triangles[1][..count(1)]) else {
        return;
    };
    let [pa, pb] = &input.poses;
    let (Ok(ma), Ok(mb)) = (
        RigidMotion::between(pose(&pa[0], e), pose(&pa[1], e)),
        RigidMotion::between(pose(&pb[0], e), pose(&pb[1], e)),
    ) else {
        return;
    };
    let mut opts = CaOptions::default();
    opts.tolerance = input.tolerance.value(opts.tolerance, e);
    if let Some(n) = input.max_iterations {
        opts.max_iterations = u32::from(n);
    }
    if input.boolean {
        opts.mode = Mode::Boolean;
    }
    let Ok(result) = time_of_contact(&a, &ma, &b, &mb, &opts) else {
        return;
    };
    if let Some(c) = &result {
        assert!((0.0..=1.0).contains(&c.toc), "toc {} outside [0, 1]", c.toc);
    }
    for k in 0..=32 {
        let t = f64::from(k) / 32.0;
        if clearly_intersecting([&mesh_a, &mesh_b], [&ma, &mb], t) {
            match &result {
                None => panic!("missed: the meshes clearly intersect at t = {t}"),
                Some(c) if !input.boolean => {
                    assert!(
                        c.toc <= t,
                        "late: toc {} after an intersection at t = {t}",
                        c.toc
                    )
                }
                Some(_) => {}
            }
            break;
        }
    }
});
