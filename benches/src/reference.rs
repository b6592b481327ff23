//! The dense reference of families 1–2: the exact distance between the two shapes (ccd's
//! own distance queries: `mesh_distance_with` for mesh pairs, `convex_distance` for
//! analytic pairs and the parts of compounds), sampled at `samples + 1` evenly spaced times
//! of the motion; an interval between two samples whose distances `d0`, `d1` do not prove
//! it free (`d0 + d1 > speed × width`, the distance changes at most at the pair's speed
//! bound) is bisected until it does or a sample touches. The first touching sample
//! (distance ≤ [`TOUCH`]) is the reference time of contact.
//!
//! ```
//! use ccd_benches::reference::dense_reference;
//! let w = ccd_benches::rigid::workloads().into_iter().find(|w| w.name == "ball-ball near miss").unwrap();
//! let r = dense_reference(&w, 200).unwrap();
//! assert!(r.toc.is_none() && r.min_sampled > 0.009 && r.min_lower > 0.0);
//! ```

use ccd_ca_rigid::Shape;
use ccd_distance::{
    ConvexShape, MeshDistanceOptions, MeshDistanceWorkspace, convex_distance, mesh_distance_with,
};
use glam::DAffine3;

use crate::rigid::Workload;

/// Distance at or below which the shapes count as touching.
pub const TOUCH: f64 = 1e-9;

/// Bisection depth cap per sampling interval (an interval still unresolved there is counted
/// in [`Reference::unresolved`]).
pub const MAX_DEPTH: u32 = 60;

/// The reference's answer for one workload.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reference {
    /// First time the shapes touch (`None`: never over [0, 1]).
    pub toc: Option<f64>,
    /// Least sampled distance before `toc` (or over the motion).
    pub min_sampled: f64,
    /// Proven lower bound of the distance over [0, `toc`) (or the motion).
    pub min_lower: f64,
    /// Distance evaluations.
    pub evaluations: u64,
    /// Intervals left unproven at the depth cap.
    pub unresolved: u64,
    /// The speed bound used.
    pub speed: f64,
}

fn convex(s: &Shape) -> Option<ConvexShape<'_>> {
    Some(match s {
        Shape::Ball(b) => ConvexShape::Ball(b),
        Shape::Capsule(c) => ConvexShape::Capsule(c),
        Shape::Cuboid(c) => ConvexShape::Cuboid(c),
        Shape::Cylinder(c) => ConvexShape::Cylinder(c),
        Shape::ConvexHull(h) => ConvexShape::Hull(h),
        _ => return None,
    })
}

fn parts(s: &Shape, pose: &DAffine3) -> Vec<(DAffine3, Shape)> {
    match s {
        Shape::Compound(k) => k
            .parts()
            .iter()
            .map(|(o, p)| (*pose * *o, p.clone()))
            .collect(),
        other => vec![(*pose, other.clone())],
    }
}

/// Exact distance between `a` at `pa` and `b` at `pb` (0 when they touch or overlap; meshes
/// are surfaces): mesh–mesh, convex–convex and compounds of convex parts. `None` for a
/// pair it does not cover (a mesh against an analytic shape).
///
/// ```
/// use ccd_ca_rigid::Shape;
/// use ccd_distance::Ball;
/// use glam::{DAffine3, DVec3};
/// let b = Shape::Ball(Ball::new(0.5).unwrap());
/// let mut ws = ccd_distance::MeshDistanceWorkspace::new();
/// let d = ccd_benches::reference::distance(&b, &DAffine3::IDENTITY, &b, &DAffine3::from_translation(DVec3::X * 3.0), &mut ws);
/// assert_eq!(d, Some(2.0));
/// ```
pub fn distance(
    a: &Shape,
    pa: &DAffine3,
    b: &Shape,
    pb: &DAffine3,
    ws: &mut MeshDistanceWorkspace,
) -> Option<f64> {
    if let (Shape::Mesh(ma), Shape::Mesh(mb)) = (a, b) {
        let r = mesh_distance_with(
            ma.mesh_bvh(),
            pa,
            mb.mesh_bvh(),
            pb,
            &MeshDistanceOptions::default(),
            ws,
        )
        .ok()?;
        return Some(r.closest.distance);
    }
    let mut best = f64::INFINITY;
    for (qa, xa) in parts(a, pa) {
        for (qb, xb) in parts(b, pb) {
            let (ca, cb) = (convex(&xa)?, convex(&xb)?);
            let pos12 = qa.inverse() * qb;
            best = best.min(convex_distance(ca, cb, &pos12).distance.max(0.0));
        }
    }
    Some(best)
}

/// The dense reference of workload `w` with `samples` intervals over [0, 1] (`None` when
/// [`distance`] does not cover its shapes).
///
/// ```
/// let w = ccd_benches::rigid::workloads().into_iter().find(|w| w.name == "thin plates").unwrap();
/// let r = ccd_benches::reference::dense_reference(&w, 100).unwrap();
/// assert!(r.toc.is_some() && r.unresolved == 0);
/// ```
pub fn dense_reference(w: &Workload, samples: u32) -> Option<Reference> {
    let (ma, mb) = (w.ma.ours(), w.mb.ours());
    let speed = w.speed_bound().max(1e-300);
    let mut ws = MeshDistanceWorkspace::new();
    let mut r = Reference {
        toc: None,
        min_sampled: f64::INFINITY,
        min_lower: f64::INFINITY,
        evaluations: 0,
        unresolved: 0,
        speed,
    };
    let mut dist = |t: f64, r: &mut Reference| -> Option<f64> {
        r.evaluations += 1;
        distance(&w.a, &ma.pose_at(t), &w.b, &mb.pose_at(t), &mut ws)
    };
    let n = samples.max(1);
    let mut t0 = 0.0;
    let mut d0 = dist(0.0, &mut r)?;
    for i in 1..=n {
        if d0 <= TOUCH {
            r.toc = Some(t0);
            return Some(r);
        }
        r.min_sampled = r.min_sampled.min(d0);
        let t1 = f64::from(i) / f64::from(n);
        let d1 = dist(t1, &mut r)?;
        // depth-first over the interval: the first touching time in (t0, t1], if any
        let mut stack = vec![(t0, d0, t1, d1, 0u32)];
        while let Some((a, da, b, db, depth)) = stack.pop() {
            if da <= TOUCH {
                r.toc = Some(a);
                return Some(r);
            }
            r.min_sampled = r.min_sampled.min(da);
            let width = b - a;
            if da + db > speed * width {
                r.min_lower = r.min_lower.min(0.5 * (da + db - speed * width));
                continue;
            }
            if depth >= MAX_DEPTH {
                r.unresolved += 1;
                r.min_lower = 0.0;
                continue;
            }
            let m = 0.5 * (a + b);
            let dm = dist(m, &mut r)?;
            // right half below, left half on top: the left one is examined first
            stack.push((m, dm, b, db, depth + 1));
            stack.push((a, da, m, dm, depth + 1));
        }
        t0 = t1;
        d0 = d1;
    }
    if d0 <= TOUCH {
        r.toc = Some(1.0);
    } else {
        r.min_sampled = r.min_sampled.min(d0);
    }
    Some(r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rigid::Vel;
    use ccd_distance::Ball;
    use glam::DVec3;
    use parry3d_f64::shape::SharedShape;

    fn balls(lateral: f64) -> Workload {
        Workload {
            name: "test",
            a: Shape::Ball(Ball::new(0.5).unwrap()),
            pa: SharedShape::ball(0.5),
            b: Shape::Ball(Ball::new(0.3).unwrap()),
            pb: SharedShape::ball(0.3),
            ma: Vel::still(DVec3::ZERO),
            mb: Vel::between(
                DAffine3::from_translation(DVec3::new(4.0, lateral, 0.0)),
                DAffine3::from_translation(DVec3::new(-4.0, lateral, 0.0)),
            ),
            analytic: true,
            parry_slow: Some(false),
        }
    }

    #[test]
    fn head_on_balls_touch_at_the_closed_form_time() {
        // centres 0.8 apart at x = 0.8: t = (4 - 0.8) / 8 = 0.4
        for samples in [3, 10, 1000] {
            let r = dense_reference(&balls(0.0), samples).unwrap();
            let toc = r.toc.unwrap();
            assert!((toc - 0.4).abs() < 1e-8, "{samples}: {toc}");
            assert!(toc <= 0.4 + 1e-12);
            assert_eq!(r.unresolved, 0);
        }
    }

    #[test]
    fn near_miss_is_free_with_a_proven_gap() {
        // closest approach 0.81 - 0.8 = 0.01 at t = 0.5, even with few samples
        for samples in [2, 50, 4000] {
            let r = dense_reference(&balls(0.81), samples).unwrap();
            assert_eq!(r.toc, None);
            assert!(
                r.min_lower > 0.0 && r.min_lower <= 0.01 + 1e-12,
                "{}",
                r.min_lower
            );
            assert!((r.min_sampled - 0.01).abs() < 1e-3 || samples == 2);
        }
    }

    #[test]
    fn grazing_within_touch_is_a_contact() {
        // closest approach 1e-10 < TOUCH: the reference must find it between the samples
        let r = dense_reference(&balls(0.8 + 1e-10), 7).unwrap();
        let toc = r.toc.expect("a touch within 1e-9");
        assert!((toc - 0.5).abs() < 1e-3, "{toc}");
    }
}
