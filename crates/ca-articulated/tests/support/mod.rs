//! Shared strategies and the brute-force reference of the articulated CCD tests.
#![allow(dead_code, unreachable_pub)]

use std::sync::Arc;

use ccd_ca_articulated::{ArticulatedBody, Part};
use ccd_distance::mesh_distance_brute_force;
use ccd_geometry::TriMesh;
use ccd_geometry::glam::{DAffine3, DQuat, DVec3};
use ccd_kinematics::{ArticulatedModel, ArticulatedMotion, Joint, LinkId, LinkSpec};
use proptest::prelude::*;

/// A tetrahedron with the given vertices.
pub fn tetra(v: [DVec3; 4]) -> TriMesh {
    TriMesh::new(v.to_vec(), vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]).expect("tetra")
}

/// A random link mesh near the link frame's origin: a box or a tetrahedron.
pub fn link_mesh() -> impl Strategy<Value = TriMesh> {
    prop_oneof![
        (
            prop::array::uniform3(-0.3..0.3f64),
            prop::array::uniform3(0.03..0.25f64)
        )
            .prop_map(|(c, h)| {
                let (c, h) = (DVec3::from_array(c), DVec3::from_array(h));
                TriMesh::cuboid(c - h, c + h).unwrap()
            }),
        prop::array::uniform4(prop::array::uniform3(-0.35..0.35f64))
            .prop_map(|v| tetra(v.map(DVec3::from_array)))
            .prop_filter("a tetrahedron with volume", |m| {
                let v = m.vertices();
                (v[1] - v[0]).cross(v[2] - v[0]).dot(v[3] - v[0]).abs() > 1e-3
            }),
    ]
}

pub fn unit() -> impl Strategy<Value = DVec3> {
    prop::array::uniform3(-1.0..1.0f64)
        .prop_map(DVec3::from_array)
        .prop_filter("non-zero", |v| v.length() > 0.1)
        .prop_map(|v| v.normalize())
}

/// Joint kinds: 0 revolute, 1 prismatic, 2 fixed.
#[derive(Clone, Debug)]
pub struct LinkPlan {
    pub parent: usize,
    pub kind: u8,
    pub axis: DVec3,
    pub offset: DAffine3,
    pub mesh: Option<TriMesh>,
}

/// A random tree of 2..=max links (each link's parent is an earlier link), with random
/// joints, offsets and meshes.
pub fn tree(max: usize) -> impl Strategy<Value = Vec<LinkPlan>> {
    prop::collection::vec(
        (
            0usize..64,
            0u8..3,
            unit(),
            prop::array::uniform3(-0.6..0.6f64),
            unit(),
            -1.5..1.5f64,
            prop::option::weighted(0.9, link_mesh()),
        ),
        2..=max,
    )
    .prop_map(|v| {
        v.into_iter()
            .enumerate()
            .map(|(i, (p, kind, axis, off, rax, ang, mesh))| LinkPlan {
                parent: if i == 0 { 0 } else { p % i },
                kind,
                axis,
                offset: DAffine3::from_rotation_translation(
                    DQuat::from_axis_angle(rax, ang),
                    DVec3::from_array(off),
                ),
                mesh,
            })
            .collect()
    })
}

pub fn model_of(plan: &[LinkPlan]) -> ArticulatedModel {
    let specs = plan
        .iter()
        .enumerate()
        .map(|(i, l)| LinkSpec {
            name: format!("l{i}"),
            parent: (i > 0).then(|| format!("l{}", l.parent)),
            joint: match l.kind {
                0 => Joint::Revolute {
                    axis: l.axis,
                    limits: None,
                },
                1 => Joint::Prismatic {
                    axis: l.axis,
                    limits: None,
                },
                _ => Joint::Fixed,
            },
            offset: if i == 0 { DAffine3::IDENTITY } else { l.offset },
        })
        .collect();
    ArticulatedModel::new(specs).expect("valid tree")
}

pub fn body_of(plan: &[LinkPlan]) -> ArticulatedBody {
    let model = model_of(plan);
    // the model keeps this order (parents come first already)
    ArticulatedBody::from_meshes(model, plan.iter().map(|l| l.mesh.clone()).collect())
        .expect("valid body")
}

/// Random joint vectors for the model (revolute ±2.5 rad, prismatic ±0.4).
pub fn joints(model: &ArticulatedModel, seed: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let mut q0 = Vec::new();
    let mut q1 = Vec::new();
    let mut k = 0;
    for l in model.links() {
        let scale = match l.joint {
            Joint::Prismatic { .. } => 0.4,
            _ => 2.5,
        };
        for _ in 0..l.joint.dof() {
            q0.push(seed[k % seed.len()] * scale);
            q1.push(seed[(k + 7) % seed.len()] * scale);
            k += 1;
        }
    }
    (q0, q1)
}

/// Exact distance between two parts at time `t` (brute force over all triangle pairs).
pub fn part_distance(
    body: &ArticulatedBody,
    motion: &ArticulatedMotion,
    env: Option<&TriMesh>,
    a: Part,
    b: Part,
    t: f64,
) -> f64 {
    let side = |p: Part| -> (&TriMesh, DAffine3) {
        match p {
            Part::Link { link, .. } => (
                body.link_shape(link).unwrap().body().mesh_bvh().mesh(),
                motion.world_at(link, t).unwrap(),
            ),
            Part::Environment => (env.unwrap(), DAffine3::IDENTITY),
            Part::Rigid(_) => unreachable!("no rigid bodies in these tests"),
        }
    };
    let (ma, pa) = side(a);
    let (mb, pb) = side(b);
    mesh_distance_brute_force(ma, &pa, mb, &pb).distance
}

/// Whether the world boxes of the two parts' vertices at `t` are more than `margin` apart
/// (then so are the meshes).
pub fn boxes_apart(
    body: &ArticulatedBody,
    motion: &ArticulatedMotion,
    env: Option<&TriMesh>,
    a: Part,
    b: Part,
    t: f64,
    margin: f64,
) -> bool {
    let bx = |p: Part| match p {
        Part::Link { link, .. } => {
            let pose = motion.world_at(link, t).unwrap();
            let m = body.link_shape(link).unwrap().body().mesh_bvh().mesh();
            ccd_geometry::Aabb::from_points(m.vertices().iter().map(|&v| pose.transform_point3(v)))
        }
        Part::Environment => env.unwrap().aabb(),
        Part::Rigid(_) => unreachable!("no rigid bodies in these tests"),
    };
    !bx(a).inflate(margin + 1e-9).overlaps(&bx(b))
}

/// The pairs a query may report: self pairs after the filter, and links vs environment.
pub fn all_pairs(body: &ArticulatedBody, env: bool) -> Vec<(Part, Part)> {
    let link = |l: LinkId| Part::Link { body: 0, link: l };
    let mut out: Vec<(Part, Part)> = body.self_pairs().map(|(a, b)| (link(a), link(b))).collect();
    if env {
        for i in 0..body.model().len() as u32 {
            if body.link_shape(LinkId(i)).is_some() {
                out.push((link(LinkId(i)), Part::Environment));
            }
        }
    }
    out
}

/// Reference first touch (distance 0) of one pair: dense sampling with `samples` steps, then
/// bisection to 1e-12 between the last separated sample and the first touching one.
pub fn reference_pair(
    body: &ArticulatedBody,
    motion: &ArticulatedMotion,
    env: Option<&TriMesh>,
    a: Part,
    b: Part,
    samples: u32,
) -> Option<f64> {
    let d = |t: f64| {
        if boxes_apart(body, motion, env, a, b, t, 0.0) {
            1.0
        } else {
            part_distance(body, motion, env, a, b, t)
        }
    };
    if d(0.0) <= 0.0 {
        return Some(0.0);
    }
    let mut prev = 0.0;
    for k in 1..=samples {
        let t = f64::from(k) / f64::from(samples);
        if d(t) <= 0.0 {
            let (mut lo, mut hi) = (prev, t);
            while hi - lo > 1e-12 {
                let mid = 0.5 * (lo + hi);
                if d(mid) <= 0.0 { hi = mid } else { lo = mid }
            }
            return Some(hi);
        }
        prev = t;
    }
    None
}

/// Shared environment helper.
pub fn env_arc(m: &TriMesh) -> Arc<ccd_bvh::MeshBvh<ccd_bvh::Rss>> {
    Arc::new(ccd_bvh::MeshBvh::new(m.clone(), &ccd_bvh::BvhOptions::default()).unwrap())
}
