//! proptest strategies for points, poses, boxes and triangle soups.

use ccd_bvh::geometry::Aabb;
use ccd_bvh::glam::{DAffine3, DQuat, DVec3};
use proptest::prelude::*;

/// A point in `[-r, r]^3`.
pub fn point(r: f64) -> impl Strategy<Value = DVec3> {
    (-r..r, -r..r, -r..r).prop_map(|(x, y, z)| DVec3::new(x, y, z))
}

/// A unit rotation (from a random non-zero axis and an angle).
pub fn rotation() -> impl Strategy<Value = DQuat> {
    (point(1.0), -std::f64::consts::PI..std::f64::consts::PI).prop_map(|(axis, angle)| {
        DQuat::from_axis_angle(axis.try_normalize().unwrap_or(DVec3::Z), angle)
    })
}

/// A rigid pose with translation in `[-t, t]^3`.
pub fn pose(t: f64) -> impl Strategy<Value = DAffine3> {
    (rotation(), point(t)).prop_map(|(q, t)| DAffine3::from_rotation_translation(q, t))
}

/// 1..=n points in `[-5, 5]^3`, sometimes squashed flat or onto a line along a random
/// direction (degenerate fits), sometimes all equal.
pub fn cloud(n: usize) -> impl Strategy<Value = Vec<DVec3>> {
    (
        prop::collection::vec(point(5.0), 1..=n),
        rotation(),
        0u8..4,
        point(3.0),
    )
        .prop_map(|(pts, rot, kind, offset)| {
            let squash = match kind {
                0 => DVec3::ONE,
                1 => DVec3::new(1.0, 1.0, 0.0),
                2 => DVec3::new(1.0, 0.0, 0.0),
                _ => DVec3::ZERO,
            };
            pts.into_iter()
                .map(|p| rot * (p * squash) + offset)
                .collect()
        })
}

/// `n` boxes with corners in `[-r, r]^3` and sizes up to `s`.
pub fn boxes(
    n: std::ops::RangeInclusive<usize>,
    r: f64,
    s: f64,
) -> impl Strategy<Value = Vec<Aabb>> {
    prop::collection::vec((point(r), (0.0..s, 0.0..s, 0.0..s)), n).prop_map(|v| {
        v.into_iter()
            .map(|(c, (x, y, z))| Aabb::new(c, c + DVec3::new(x, y, z)))
            .collect()
    })
}

/// A triangle soup: up to `n` small triangles (edge ≤ 2) scattered in `[-6, 6]^3`, some
/// degenerate.
pub fn soup(n: usize) -> impl Strategy<Value = (Vec<DVec3>, Vec<[u32; 3]>)> {
    prop::collection::vec((point(6.0), point(1.0), point(1.0), any::<bool>()), 1..=n).prop_map(
        |tris| {
            let mut v = Vec::new();
            let mut t = Vec::new();
            for (i, (a, e1, e2, flat)) in tris.into_iter().enumerate() {
                let e2 = if flat && i % 3 == 0 { e1 * 0.5 } else { e2 };
                v.extend_from_slice(&[a, a + e1, a + e2]);
                let k = (3 * i) as u32;
                t.push([k, k + 1, k + 2]);
            }
            (v, t)
        },
    )
}
