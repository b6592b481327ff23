//! Shared helpers of the `ccd-bvh` integration tests.
#![allow(dead_code, unreachable_pub)]

pub mod strategies;

use ccd_bvh::glam::{DAffine3, DVec3};

/// Smallest distance between the point sets `p` and `pos12 * q`.
pub fn min_point_distance(p: &[DVec3], q: &[DVec3], pos12: &DAffine3) -> f64 {
    let mut best = f64::INFINITY;
    for b in q {
        let b = pos12.transform_point3(*b);
        for a in p {
            best = best.min(a.distance(b));
        }
    }
    best
}

/// A length scale of a point set (for tolerances).
pub fn scale(p: &[DVec3]) -> f64 {
    p.iter().fold(1.0f64, |m, x| m.max(x.abs().max_element()))
}
