//! Exact power-of-two rescaling of CA queries: every query runs at a coordinate scale where
//! none of its intermediate quantities can overflow, whatever the scale of its input.
//!
//! Conservative advancement is equivariant under a uniform scaling of space: scaling every
//! vertex, every translation and the tolerance by `2ᵏ` leaves the motions' rotations and
//! every time unchanged, and scales distances and witness points by `2ᵏ`. Multiplying by a
//! power of two is exact in binary floating point (barring underflow), so a query whose
//! coordinate scale `G` (the largest vertex coordinate or translation magnitude) lies
//! outside `[2⁻¹⁰⁰, 2¹⁰⁰]` runs on a copy scaled into that window
//! ([`ccd_distance::rescale_factors`]: `G·2ᵏ ∈ [2⁹⁹, 2¹⁰⁰)` from above, `[2⁻¹⁰⁰, 2⁻⁹⁹)` from
//! below), and its contact is scaled back by `2⁻ᵏ`.
//!
//! Why the window is safe: the traversal's products are of degree at most four in
//! coordinates (`|x|⁴ ≤ 2⁴⁰⁰` there, far from overflow), and the quantities that carry its
//! safety (gaps, distances, motion bounds) are of degree at most two. Scaling down from
//! `G ≤ 1e100` loses only bits below `2⁻¹⁰⁷⁴` of the scaled copy, far below its rounding
//! allowance (`1e-12 G·2ᵏ ≥ 1e-12·2⁹⁹`); scaling up is exact. Without the rescaling, degree-4
//! products overflow from `|x| ≈ 2²⁵⁶ ≈ 1.2e77` on, inside the accepted domain (a fuzz
//! finding: misses and late contacts at coordinates `9e77..1e94`).
//!
//! The scaled copy of a body is rebuilt (mesh, RSS tree, hull when present), which costs
//! one BVH build per body and query: only queries outside the window pay it.

use std::sync::Arc;

use ccd_bvh::{BvhOptions, MeshBvh, Rss};
use ccd_geometry::TriMesh;
use ccd_kinematics::RigidMotion;
use glam::DVec3;

use crate::{CaError, Contact, RigidBody};

pub(crate) use ccd_distance::rescale_factors;

/// The body with its mesh scaled by `up` (a power of two), with its RSS tree rebuilt (and its
/// hull, when it has one). Triangle and vertex indices are unchanged, so the features of a
/// contact on the copy name the same mesh elements.
pub(crate) fn scaled_body(body: &RigidBody, up: f64) -> Result<RigidBody, CaError> {
    let mesh = body.mesh_bvh().mesh();
    let vertices = mesh.vertices().iter().map(|v| *v * up).collect();
    let scaled = TriMesh::new(vertices, mesh.triangles().to_vec())
        .map_err(|e| CaError::Rescaling(e.to_string()))?;
    let bvh = MeshBvh::<Rss>::new(scaled, &BvhOptions::default())
        .map_err(|e| CaError::Rescaling(e.to_string()))?;
    let bvh = Arc::new(bvh);
    if body.hull().is_some() {
        RigidBody::with_hull(bvh).map_err(|e| CaError::Rescaling(e.to_string()))
    } else {
        Ok(RigidBody::new(bvh))
    }
}

/// Scaled copies of the two bodies; one copy serves both when they share their mesh.
pub(crate) fn scaled_bodies(
    a: &RigidBody,
    b: &RigidBody,
    up: f64,
) -> Result<(RigidBody, RigidBody), CaError> {
    let sa = scaled_body(a, up)?;
    let sb = if Arc::ptr_eq(a.shared(), b.shared()) && a.hull().is_some() == b.hull().is_some() {
        sa.clone()
    } else {
        scaled_body(b, up)?
    };
    Ok((sa, sb))
}

/// The motion in coordinates scaled by `up` (a power of two): the same rotation, the
/// translation and displacement scaled, so `pose_at(t)` is the original's with its
/// translation scaled, exactly.
pub(crate) fn scaled_motion(m: &RigidMotion, up: f64) -> Result<RigidMotion, CaError> {
    m.scaled(up).map_err(|e| CaError::Rescaling(e.to_string()))
}

/// The tolerance `ε` of a query in coordinates scaled by `up`, whose scaled coordinate
/// scale is `g` (`≥ 2⁻¹⁰⁰`): `ε·2ᵏ`, capped at `16 g` (where `ε·2ᵏ` would overflow). The
/// cap keeps the contract: all points of both bodies lie within `2√3 g` of the origin at the
/// start of the query, so their distance is at most `7 g < 16 g`, and the query reports a
/// contact at its start under either tolerance.
pub(crate) fn scaled_tolerance(eps: f64, up: f64, g: f64) -> f64 {
    (eps * up).min(16.0 * g)
}

/// A contact found on the scaled copy, in the caller's coordinates: witness points and
/// distance scaled by `down = 2⁻ᵏ` (time, normal, features and status unchanged).
pub(crate) fn contact_back(c: Contact, down: f64) -> Contact {
    Contact {
        point_a: c.point_a * down,
        point_b: c.point_b * down,
        distance: c.distance * down,
        ..c
    }
}

/// The largest magnitude of the coordinates of `points` (`0` when empty).
pub(crate) fn max_abs(points: impl IntoIterator<Item = DVec3>) -> f64 {
    points
        .into_iter()
        .fold(0.0f64, |m, p| m.max(p.abs().max_element()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ccd_geometry::glam::DAffine3;

    #[test]
    fn a_scaled_body_keeps_its_indices_and_scales_exactly() {
        let mesh = TriMesh::new(
            vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::new(0.3, 0.2, 1.5)],
            vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
        )
        .unwrap();
        let body = RigidBody::with_hull(Arc::new(
            MeshBvh::<Rss>::new(mesh.clone(), &BvhOptions::default()).unwrap(),
        ))
        .unwrap();
        // (the factor of a query at scale 1e120: the unit mesh goes down to ~1e-90)
        let (up, down) = rescale_factors(1e120).unwrap();
        let s = scaled_body(&body, up).unwrap();
        assert_eq!(s.mesh_bvh().mesh().triangles(), mesh.triangles());
        for (v, w) in mesh.vertices().iter().zip(s.mesh_bvh().mesh().vertices()) {
            assert_eq!(*w * down, *v);
        }
        assert!(s.hull().is_some());
        assert_eq!(s.radius(), body.radius() * up);
        let (sa, sb) = scaled_bodies(&body, &body.clone(), up).unwrap();
        assert!(Arc::ptr_eq(sa.shared(), sb.shared()));
    }

    #[test]
    fn scaled_motions_move_the_scaled_points_exactly() {
        let m = RigidMotion::between(
            DAffine3::from_rotation_translation(
                glam::DQuat::from_rotation_y(0.4),
                DVec3::new(3e90, -1e90, 2.5e89),
            ),
            DAffine3::from_rotation_translation(
                glam::DQuat::from_rotation_x(2.0),
                DVec3::new(-1e90, 7e89, 0.0),
            ),
        )
        .unwrap();
        let (up, down) = rescale_factors(3e90).unwrap();
        let s = scaled_motion(&m, up).unwrap();
        for k in 0..=8 {
            let t = f64::from(k) / 8.0;
            let (p, q) = (m.pose_at(t), s.pose_at(t));
            assert_eq!(p.matrix3, q.matrix3);
            assert_eq!(q.translation * down, p.translation);
        }
    }

    #[test]
    fn the_tolerance_is_scaled_and_capped() {
        let (up, _) = rescale_factors(1e-200).unwrap();
        assert_eq!(scaled_tolerance(1e-210, up, 1e-200 * up), 1e-210 * up);
        let g = 1e-200 * up;
        assert_eq!(scaled_tolerance(1e300, up, g), 16.0 * g);
    }
}
