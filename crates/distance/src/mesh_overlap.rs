//! Boolean overlap of two meshes at fixed poses (a discrete collision check), over a BVH of
//! any bounding-volume type (OBB or AABB trees are the usual choice).

use std::ops::ControlFlow;

use ccd_bvh::{BoundingVolume, MeshBvh, TraversalStats, Workspace};
use ccd_geometry::Triangle;
use glam::DAffine3;

use crate::mesh_distance::check_pose;
use crate::{Closest, MeshDistanceError, triangle_triangle};

/// A pair of triangles found within the contact distance by [`mesh_overlap`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct MeshOverlap {
    /// Triangle of `a`.
    pub triangle_a: u32,
    /// Triangle of `b`.
    pub triangle_b: u32,
    /// Their closest points (world frame) and mesh features.
    pub closest: Closest,
    /// Traversal counters.
    pub stats: TraversalStats,
}

/// Whether two meshes at world poses `pose_a`, `pose_b` come within `contact_distance` of
/// each other (`0`: they cross; touching at rounding level may or may not count — pass a
/// small positive distance to include it). Returns the first pair found, or `None`.
///
/// Node pairs are culled with the volumes' overlap test (or their distance lower bound when
/// `contact_distance > 0`), leaves with the exact triangle–triangle distance.
///
/// # Errors
/// [`MeshDistanceError::NonFinitePose`] / [`MeshDistanceError::NonRigidPose`] for a bad pose;
/// [`MeshDistanceError::InvalidOption`] for a negative or NaN `contact_distance`.
///
/// # Example
/// ```
/// use ccd_bvh::{BvhOptions, MeshBvh, Obb};
/// use ccd_distance::mesh_overlap;
/// use ccd_geometry::{glam::{DAffine3, DVec3}, TriMesh};
///
/// let tetra = TriMesh::new(
///     vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z],
///     vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
/// )?;
/// let m = MeshBvh::<Obb>::new(tetra, &BvhOptions::default())?;
/// let near = DAffine3::from_translation(DVec3::new(0.2, 0.2, 0.2));
/// let far = DAffine3::from_translation(DVec3::new(3.0, 0.0, 0.0));
/// assert!(mesh_overlap(&m, &DAffine3::IDENTITY, &m, &near, 0.0)?.is_some());
/// assert!(mesh_overlap(&m, &DAffine3::IDENTITY, &m, &far, 0.0)?.is_none());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn mesh_overlap<B: BoundingVolume>(
    a: &MeshBvh<B>,
    pose_a: &DAffine3,
    b: &MeshBvh<B>,
    pose_b: &DAffine3,
    contact_distance: f64,
) -> Result<Option<MeshOverlap>, MeshDistanceError> {
    check_pose(pose_a, 'a')?;
    check_pose(pose_b, 'b')?;
    if contact_distance.is_nan() || contact_distance < 0.0 || contact_distance.is_infinite() {
        return Err(MeshDistanceError::InvalidOption {
            name: "contact_distance",
            value: contact_distance,
        });
    }
    let inv = pose_a.matrix3.transpose();
    let pos_ab = DAffine3 {
        matrix3: inv,
        translation: -(inv * pose_a.translation),
    } * *pose_b;
    let (ma, mb) = (a.mesh(), b.mesh());
    let mut found = None;
    let mut ws = Workspace::new();
    let stats = a.bvh().traverse_pair(
        b.bvh(),
        &mut ws,
        |x, y| {
            if contact_distance > 0.0 {
                x.distance_lower_bound(y, &pos_ab) <= contact_distance
            } else {
                x.overlaps(y, &pos_ab)
            }
        },
        |ia, ib| {
            let ta = ma.triangle(ia as usize);
            let tb = mb.triangle(ib as usize);
            let tb = Triangle::new(
                pos_ab.transform_point3(tb.a),
                pos_ab.transform_point3(tb.b),
                pos_ab.transform_point3(tb.c),
            );
            let c = triangle_triangle(&ta, &tb);
            if c.distance <= contact_distance {
                let mut c = c.lifted(
                    ma.triangles()[ia as usize],
                    ia,
                    mb.triangles()[ib as usize],
                    ib,
                );
                c.point_a = pose_a.transform_point3(c.point_a);
                c.point_b = pose_a.transform_point3(c.point_b);
                found = Some((ia, ib, c));
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        },
    );
    Ok(found.map(|(triangle_a, triangle_b, closest)| MeshOverlap {
        triangle_a,
        triangle_b,
        closest,
        stats,
    }))
}
