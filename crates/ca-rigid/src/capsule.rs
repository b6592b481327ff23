//! Bounding capsules of convex hulls: a cheap first stage of hull CA.
//!
//! A capsule (the points within `radius` of a segment) that contains a body's hull gives a
//! lower bound of the hull pair's separation along any direction `n` from four endpoint
//! projections: `min_B b·n − max_A a·n ≥ min(b₀·n, b₁·n) − r_B − max(a₀·n, a₁·n) − r_A`.
//! Conservative advancement may step on that gap with the speed bounds of the meshes (the
//! capsules only bound where the meshes are, the motion is still the meshes'), and switch to
//! GJK on the hulls once the capsules come within the tolerance. For an elongated link (a
//! robot arm's) the capsule is nearly as tight as the hull and its gap costs a
//! segment–segment closest-point computation instead of a GJK run.

use ccd_bvh::{BoundingVolume, Obb};
use ccd_distance::{point_segment, segment_segment};
use ccd_geometry::Segment;
use ccd_geometry::glam::{DAffine3, DVec3};

/// A capsule in a body's local frame: the points within `radius` of the segment `[p0, p1]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Capsule {
    pub(crate) p0: DVec3,
    pub(crate) p1: DVec3,
    pub(crate) radius: f64,
}

/// A capsule is kept only when its volume is at most this many times the volume of the
/// points' oriented bounding box: a loose capsule (a squat body's) would make the first stage
/// take more, smaller steps than GJK on the hull saves. The Panda's links fit at 0.99–1.85
/// (the fingers the loosest); measured on `panda-planner` (limits from 1.25 to none: 2 is
/// the fastest) with `pr2`, the trains, the mannequin and the wooden men within noise of
/// no capsules at 2.
const MAX_VOLUME_RATIO: f64 = 2.0;

impl Capsule {
    /// A capsule holding every point of `points` (hence their hull), along the longest axis
    /// of their oriented bounding box, with its radius the largest computed distance of a
    /// point from the segment rounded up by a margin that covers the rounding of that
    /// computation; `None` for fewer than two points, non-finite input, or a capsule looser
    /// than [`MAX_VOLUME_RATIO`] times the box.
    pub(crate) fn fit(points: &[DVec3]) -> Option<Self> {
        if points.len() < 2 || !points.iter().all(|p| p.is_finite()) {
            return None;
        }
        let obb = Obb::fit_points(points);
        let h = obb.half_extents;
        let k = if h.x >= h.y && h.x >= h.z {
            0
        } else if h.y >= h.z {
            1
        } else {
            2
        };
        let u = obb.rotation.col(k);
        let c = obb.center;
        // axial position and radial distance of every point
        let (mut radial, mut lo, mut hi) = (0.0f64, f64::INFINITY, f64::NEG_INFINITY);
        for p in points {
            let d = *p - c;
            let s = d.dot(u);
            radial = radial.max((d - s * u).length());
            lo = lo.min(s);
            hi = hi.max(s);
        }
        // the segment's ends: a point at axial s and radial ρ ≤ r lies within r of the
        // segment [s0, s1] when s0 − √(r² − ρ²) ≤ s ≤ s1 + √(r² − ρ²)
        let (mut s0, mut s1) = (hi, lo);
        for p in points {
            let d = *p - c;
            let s = d.dot(u);
            let rho = (d - s * u).length();
            let reach = (radial * radial - rho * rho).max(0.0).sqrt();
            s0 = s0.min(s + reach);
            s1 = s1.max(s - reach);
        }
        if s0 > s1 {
            let mid = 0.5 * (s0 + s1);
            (s0, s1) = (mid, mid);
        }
        let (p0, p1) = (c + s0 * u, c + s1 * u);
        // the radius actually needed by the computed segment, with a margin for the
        // rounding of the distances (relative to the coordinates' magnitude)
        let scale = points
            .iter()
            .fold(p0.abs().max(p1.abs()).max_element(), |m, p| {
                m.max(p.abs().max_element())
            });
        let need = points
            .iter()
            .fold(0.0f64, |m, p| m.max(segment_point_distance(p0, p1, *p)));
        let radius = need * (1.0 + 1e-12) + 64.0 * f64::EPSILON * scale;
        if !(radius.is_finite() && p0.is_finite() && p1.is_finite()) {
            return None;
        }
        let length = (p1 - p0).length();
        let volume = std::f64::consts::PI * radius * radius * (length + 4.0 / 3.0 * radius);
        let box_volume = 8.0 * h.x * h.y * h.z;
        (volume <= MAX_VOLUME_RATIO * box_volume).then_some(Self { p0, p1, radius })
    }

    /// The capsule's separation from `other` along the direction between their segments'
    /// closest points, poses applied: `(n, gap)` with `n` a unit vector from `self` towards
    /// `other` and `gap` a lower bound of `min_{b ∈ other} b·n − max_{a ∈ self} a·n` (rounding
    /// included); `None` when the segments (nearly) meet, where no direction is reliable.
    pub(crate) fn gap(
        &self,
        pose: &DAffine3,
        other: &Self,
        other_pose: &DAffine3,
    ) -> Option<(DVec3, f64)> {
        let (a0, a1) = (
            pose.transform_point3(self.p0),
            pose.transform_point3(self.p1),
        );
        let (b0, b1) = (
            other_pose.transform_point3(other.p0),
            other_pose.transform_point3(other.p1),
        );
        // (only a direction is taken from the closest points: the gap along it is computed
        // from the endpoints)
        let c = segment_segment(&Segment::new(a0, a1), &Segment::new(b0, b1));
        let n = (c.point_b - c.point_a).try_normalize()?;
        let scale = a0
            .abs()
            .max(a1.abs())
            .max(b0.abs())
            .max(b1.abs())
            .max_element();
        let gap = b0.dot(n).min(b1.dot(n))
            - other.radius
            - a0.dot(n).max(a1.dot(n))
            - self.radius
            - 64.0 * f64::EPSILON * (scale + self.radius + other.radius);
        gap.is_finite().then_some((n, gap))
    }
}

/// Distance from `p` to the segment `[a, b]` (`ccd_distance`'s exact point–segment query).
fn segment_point_distance(a: DVec3, b: DVec3, p: DVec3) -> f64 {
    point_segment(p, &Segment::new(a, b)).distance
}

#[cfg(test)]
mod tests {
    use super::*;
    use ccd_geometry::glam::DQuat;

    /// Points on a rounded rod (a tight fit) and on a cube (too loose: no capsule).
    #[test]
    fn fits_rods_and_refuses_cubes() {
        let mut rod = Vec::new();
        for i in 0..=20 {
            for k in 0..12 {
                let a = f64::from(k) * std::f64::consts::TAU / 12.0;
                rod.push(DVec3::new(
                    0.1 * a.cos(),
                    0.1 * a.sin(),
                    f64::from(i) * 0.05,
                ));
            }
        }
        let c = Capsule::fit(&rod).expect("a rod fits a capsule");
        assert!(c.radius < 0.101 && c.radius >= 0.1 - 1e-9, "{c:?}");
        for p in &rod {
            assert!(segment_point_distance(c.p0, c.p1, *p) <= c.radius);
        }
        let cube: Vec<DVec3> = (0..8)
            .map(|k| DVec3::new(f64::from(k & 1), f64::from((k >> 1) & 1), f64::from(k >> 2)))
            .collect();
        assert!(Capsule::fit(&cube).is_none());
        assert!(Capsule::fit(&[DVec3::ZERO]).is_none());
        assert!(Capsule::fit(&[DVec3::ZERO, DVec3::NAN]).is_none());
    }

    /// Random clouds, squat to needle-like, scaled up to 1e6 and offset: every point lies
    /// within the radius of the fitted segment (when a capsule is kept).
    #[test]
    fn fitted_capsules_hold_their_points() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut rnd = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        };
        let mut kept = 0;
        for case in 0..400 {
            let scale = 10f64.powi(case % 7 - 1);
            let stretch = DVec3::new(
                1.0 + 8.0 * rnd().abs(),
                0.2 + rnd().abs(),
                0.2 + rnd().abs(),
            );
            let turn = DQuat::from_scaled_axis(DVec3::new(rnd(), rnd(), rnd()) * 3.0);
            let offset = DVec3::new(rnd(), rnd(), rnd()) * 5.0 * scale;
            let points: Vec<DVec3> = (0..(8 + case as usize % 60))
                .map(|_| offset + turn * (stretch * DVec3::new(rnd(), rnd(), rnd())) * scale)
                .collect();
            if let Some(c) = Capsule::fit(&points) {
                kept += 1;
                for p in &points {
                    assert!(
                        segment_point_distance(c.p0, c.p1, *p) <= c.radius,
                        "case {case}"
                    );
                }
            }
        }
        assert!(kept > 100, "only {kept} capsules kept");
    }

    /// The gap along the returned direction never exceeds the true separation of points
    /// sampled inside both capsules along it.
    #[test]
    fn gap_is_a_lower_bound_of_the_separation_along_n() {
        let a = Capsule {
            p0: DVec3::new(-0.5, 0.0, 0.0),
            p1: DVec3::new(0.5, 0.0, 0.0),
            radius: 0.1,
        };
        let b = Capsule {
            p0: DVec3::new(0.0, -0.3, 0.0),
            p1: DVec3::new(0.0, 0.3, 0.2),
            radius: 0.05,
        };
        let pa = DAffine3::from_rotation_translation(DQuat::from_rotation_z(0.3), DVec3::ZERO);
        let pb = DAffine3::from_rotation_translation(
            DQuat::from_rotation_x(-0.7),
            DVec3::new(0.2, 0.1, 0.9),
        );
        let (n, gap) = a.gap(&pa, &b, &pb).expect("apart");
        assert!((n.length() - 1.0).abs() < 1e-12);
        // extreme points of each capsule along ±n: endpoints moved by the radius
        let wa = [pa.transform_point3(a.p0), pa.transform_point3(a.p1)];
        let wb = [pb.transform_point3(b.p0), pb.transform_point3(b.p1)];
        let max_a = wa
            .iter()
            .map(|p| (*p + a.radius * n).dot(n))
            .fold(f64::MIN, f64::max);
        let min_b = wb
            .iter()
            .map(|p| (*p - b.radius * n).dot(n))
            .fold(f64::MAX, f64::min);
        assert!(gap <= min_b - max_a && gap > min_b - max_a - 1e-12);
        // and the segments' distance minus the radii is at least the gap
        let d = segment_segment(&Segment::new(wa[0], wa[1]), &Segment::new(wb[0], wb[1]));
        assert!(d.distance - a.radius - b.radius >= gap - 1e-12);
        // crossing segments: no direction
        let c = Capsule {
            p0: DVec3::new(0.0, -1.0, 0.0),
            p1: DVec3::new(0.0, 1.0, 0.0),
            radius: 0.1,
        };
        assert!(
            a.gap(&DAffine3::IDENTITY, &c, &DAffine3::IDENTITY)
                .is_none()
        );
    }
}
