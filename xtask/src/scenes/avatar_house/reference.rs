//! The sampled reference of `avatar-house`: the first of many uniform times of a step at
//! which some capsule touches a triangle, refined by bisection.

use ccd_avatar_sv::{Avatar, Environment};
use ccd_bvh::Workspace;
use ccd_distance::segment_triangle;
use ccd_geometry::{Aabb, Segment, Triangle};
use ccd_kinematics::ArticulatedMotion;

/// The sampled reference of one step: the first of `samples + 1` uniform times at which some
/// capsule is within its radius of a triangle (capsule–triangle distances), refined by
/// bisection against the sample before it; `None` when no sample touches.
pub(super) fn sampled_contact(
    avatar: &Avatar,
    env: &Environment,
    motion: &ArticulatedMotion,
    samples: usize,
) -> Option<f64> {
    let caps = avatar.capsules();
    let segs: Vec<Vec<Segment>> = (0..=samples)
        .map(|i| {
            let world = motion.world_all_at(i as f64 / samples as f64);
            caps.iter()
                .map(|c| c.world_segment(&world[c.link.index()]))
                .collect()
        })
        .collect();
    // per capsule, the triangles near any of its sampled positions (environment tree)
    let mesh = env.mesh();
    let mut ws = Workspace::new();
    let mut ids = Vec::new();
    let near: Vec<Vec<Triangle>> = caps
        .iter()
        .enumerate()
        .map(|(ci, c)| {
            let b = segs
                .iter()
                .fold(Aabb::EMPTY, |b, s| {
                    b.include_point(s[ci].a).include_point(s[ci].b)
                })
                .inflate(c.radius + 1e-9);
            ids.clear();
            env.mesh_bvh().bvh().query_aabb_into(&b, &mut ws, &mut ids);
            ids.iter()
                .map(|&t| mesh.triangle(t as usize))
                .filter(|t| t.aabb().overlaps(&b))
                .collect()
        })
        .collect();
    let touches = |segs: &[Segment]| {
        caps.iter().enumerate().any(|(ci, c)| {
            let s = &segs[ci];
            let sb = Aabb::from_points([s.a, s.b]).inflate(c.radius + 1e-9);
            near[ci]
                .iter()
                .any(|t| t.aabb().overlaps(&sb) && segment_triangle(s, t).distance <= c.radius)
        })
    };
    let i = (0..=samples).find(|&i| touches(&segs[i]))?;
    if i == 0 {
        return Some(0.0);
    }
    // Bisection between the last free sample and the first touching one: the reported time
    // is never after the first touching sample.
    let (mut lo, mut hi) = ((i - 1) as f64 / samples as f64, i as f64 / samples as f64);
    for _ in 0..40 {
        let mid = 0.5 * (lo + hi);
        let world = motion.world_all_at(mid);
        let at: Vec<Segment> = caps
            .iter()
            .map(|c| c.world_segment(&world[c.link.index()]))
            .collect();
        if touches(&at) { hi = mid } else { lo = mid }
    }
    Some(hi)
}
