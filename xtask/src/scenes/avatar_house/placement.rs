//! The thin objects beside the arm swings of `avatar-house`, each moved sideways until the
//! clip's closest approach to it is its target gap (a contact during the swing, or a near
//! miss over the whole clip).

use anyhow::{Context, Result};
use ccd_avatar_sv::Avatar;
use ccd_bvh::{BvhOptions, MeshBvh, Workspace};
use ccd_distance::segment_triangle;
use ccd_geometry::{Aabb, Segment, TriMesh};
use ccd_kinematics::Pose;
use glam::DVec3;

use super::house::{MeshBuilder, thin_object};
use super::motion::{Placed, Swing};
use crate::rng::SceneRng;

/// Capsule world segments of every pose of a clip, with the capsules' radii.
pub(super) struct ClipSegments {
    radii: Vec<f64>,
    frames: Vec<Vec<Segment>>,
}

/// A thin object's triangles and their tree, for the placement queries.
pub(super) struct ObjectTree {
    tree: MeshBvh<Aabb>,
    bb: Aabb,
}

impl ObjectTree {
    pub(super) fn new(m: &MeshBuilder) -> Result<Self> {
        let mesh = TriMesh::new(m.v.clone(), m.f.clone()).context("thin object")?;
        let bb = mesh.aabb();
        let tree = MeshBvh::new(mesh, &BvhOptions::default()).context("thin object tree")?;
        Ok(Self { tree, bb })
    }
}

impl ClipSegments {
    pub(super) fn new(avatar: &Avatar, poses: &[Pose]) -> Result<Self> {
        Ok(Self {
            radii: avatar.capsules().iter().map(|c| c.radius).collect(),
            frames: poses
                .iter()
                .map(|p| avatar.world_segments(p))
                .collect::<Result<_, _>>()?,
        })
    }

    /// Whether some capsule of some frame in `range` comes closer than `gap` (surface gap,
    /// negative for penetration) to the object moved by `shift`.
    pub(super) fn closer_than(
        &self,
        range: std::ops::Range<usize>,
        object: &ObjectTree,
        shift: DVec3,
        gap: f64,
    ) -> bool {
        let margin = gap.max(0.0);
        let mesh = object.tree.mesh();
        let mut ws = Workspace::new();
        let mut ids = Vec::new();
        self.frames[range].iter().any(|segs| {
            segs.iter().zip(&self.radii).any(|(s, &r)| {
                let seg = Segment::new(s.a - shift, s.b - shift);
                let sb = Aabb::from_points([seg.a, seg.b]).inflate(r + margin);
                if !sb.overlaps(&object.bb) {
                    return false;
                }
                ids.clear();
                object.tree.bvh().query_aabb_into(&sb, &mut ws, &mut ids);
                ids.iter()
                    .any(|&t| segment_triangle(&seg, &mesh.triangle(t as usize)).distance - r < gap)
            })
        })
    }
}

/// Surface gap the placement aims at for swing `k`: the swings come in fours (one of each
/// object kind); those of every other four go 1.5 cm into their objects (contacts), the
/// others pass them at 5–30 mm (near misses).
fn target_gap(k: usize, rng: &mut SceneRng) -> f64 {
    if (k / 4).is_multiple_of(2) {
        -0.015
    } else {
        rng.uniform(0.005, 0.03)
    }
}

/// The smallest shift of `object` along `lateral` (0 to 1.6 m, to 0.1 mm) with the clip's
/// closest approach to it over the frames `range` at least `gap`; `None` when even 1.6 m is
/// too close.
pub(super) fn lateral_shift(
    segs: &ClipSegments,
    object: &ObjectTree,
    lateral: DVec3,
    range: std::ops::Range<usize>,
    gap: f64,
) -> Option<f64> {
    let (mut lo, mut hi) = (0.0, 1.6);
    if segs.closer_than(range.clone(), object, lateral * hi, gap) {
        return None;
    }
    for _ in 0..14 {
        let mid = 0.5 * (lo + hi);
        if segs.closer_than(range.clone(), object, lateral * mid, gap) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(hi)
}

/// A thin object beside a swing.
pub(super) struct PlacedObject {
    /// The object where it stands in the house.
    pub(super) mesh: MeshBuilder,
    /// The object at the hips (before the sideways shift) and its tree.
    pub(super) base: MeshBuilder,
    pub(super) tree: ObjectTree,
    pub(super) swing: Swing,
    /// Whether the swing reaches into it.
    pub(super) contact: bool,
}

/// The thin objects beside the swings of `clip`: object `k0 + i` of kind `(k0 + i) % 4`
/// stands on the floor beside the hips of swing `i`, moved sideways (along the swing's lateral
/// direction) until the clip's closest approach to it is the target gap: for a contact
/// swing that gap is reached during the swing and the rest of the clip keeps 5 mm away (else
/// it becomes a near miss); for a near miss it holds over the whole clip.
pub(super) fn place_objects(
    clip: &Placed,
    segs: &ClipSegments,
    floor: f64,
    k0: usize,
) -> Result<Vec<PlacedObject>> {
    let all = 0..clip.poses.len();
    let mut out = Vec::new();
    for (i, sw) in clip.swings.iter().enumerate() {
        let k = k0 + i;
        let mut rng = SceneRng::new(17 + k as u64);
        let mut m = MeshBuilder::default();
        let base = DVec3::new(sw.hips.x, floor, sw.hips.z);
        thin_object(&mut m, k, base, sw.lateral, &mut rng);
        let tree = ObjectTree::new(&m)?;
        let gap = target_gap(k, &mut rng);
        let mut shift = None;
        let mut contact = false;
        if gap < 0.0 {
            let (f0, f1) = sw.frames;
            if let Some(s) = lateral_shift(segs, &tree, sw.lateral, f0..f1 + 1, gap) {
                let d = sw.lateral * s;
                let rest_clear = !segs.closer_than(0..f0, &tree, d, 0.005)
                    && !segs.closer_than(f1 + 1..all.end, &tree, d, 0.005);
                if rest_clear {
                    shift = Some(s);
                    contact = true;
                }
            }
        }
        if shift.is_none() {
            shift = lateral_shift(segs, &tree, sw.lateral, all.clone(), gap.abs().max(0.005));
        }
        if let Some(s) = shift {
            let mut mesh = MeshBuilder {
                v: m.v.clone(),
                f: m.f.clone(),
            };
            mesh.translate(sw.lateral * s);
            out.push(PlacedObject {
                mesh,
                base: m,
                tree,
                swing: *sw,
                contact,
            });
        }
    }
    Ok(out)
}
