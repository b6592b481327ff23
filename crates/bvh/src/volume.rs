//! The [`BoundingVolume`] trait shared by every bounding-volume type of this crate.

use ccd_geometry::Aabb;
use glam::{DAffine3, DVec3};

/// How a top-down [`Bvh`](crate::Bvh) build splits a node's primitives in two.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum SplitRule {
    /// Binned surface-area heuristic over the primitive centroids, along the axis of largest
    /// centroid extent (Wald, "On fast construction of SAH-based BVHs", 2007), with this many
    /// bins (clamped to `2..=64`; 16 by default); nodes of at most 16 primitives are split by
    /// an exact SAH sweep over their sorted centroids instead (one bin per primitive). The
    /// default for every volume type of this crate: measured on a 20K-triangle noisy torus
    /// (`benches/build.rs`), SAH trees beat median trees for AABB overlap (−36% time), RSS
    /// overlap (−28%) and RSS best-first closest-point search (−23%), and the build is no
    /// slower than the median build (100K triangles, AABB: about 18 vs 19 ms).
    BinnedSah {
        /// Number of bins per axis.
        bins: u32,
    },
    /// Median split of the centroids along the longest axis of their bounding box, close to
    /// the OBBTree and PQP builders (Lin survey slides, "Building an OBBTree"): balanced trees
    /// (the smallest depth).
    Median,
}

/// A bounding volume: something a [`Bvh`](crate::Bvh) can fit around primitives, merge, and
/// test for overlap and distance against another volume of the same type under a relative
/// rigid pose.
///
/// Conventions: a volume lives in its body's local frame. `pos12` is the pose of body 2 (the
/// `other` volume's frame) expressed in body 1's frame (the frame of `self`), as in parry; it
/// must be rigid (rotation + translation, no scale or shear). A non-finite `pos12` (NaN or
/// infinite entries) gets the conservative answers: overlap, distance bound 0.
///
/// Every operation is *conservative*: a fitted volume contains its points; when the contents
/// of two volumes touch, [`overlaps`](Self::overlaps) is `true`; and
/// [`distance_lower_bound`](Self::distance_lower_bound) never exceeds the distance between any
/// two points the volumes contain.
///
/// # Example
/// ```
/// use ccd_bvh::{BoundingVolume, Rss};
/// use ccd_bvh::glam::{DAffine3, DVec3};
///
/// let a = Rss::fit_points(&[DVec3::ZERO, DVec3::X, DVec3::Y]);
/// let b = a; // the same points in body 2's frame
/// let pos12 = DAffine3::from_translation(DVec3::new(0.0, 0.0, 3.0));
/// assert!(!a.overlaps(&b, &pos12));
/// let d = a.distance_lower_bound(&b, &pos12);
/// assert!(d > 2.9 && d <= 3.0);
/// ```
pub trait BoundingVolume: Copy + core::fmt::Debug + Send + Sync + 'static {
    /// The split rule [`BvhOptions::default`](crate::BvhOptions) picks for this volume type.
    const DEFAULT_SPLIT: SplitRule;

    /// True when [`merge`](Self::merge) of two fitted volumes equals the fit of the union of
    /// their points (AABB, k-DOP). [`Bvh::refit`](crate::Bvh::refit) then updates inner nodes
    /// bottom-up from their children instead of refitting them from their primitives.
    const MERGE_IS_EXACT: bool;

    /// A volume containing all `points`. An empty slice gives a zero-size volume at the origin
    /// (the builders in this crate never pass one).
    #[must_use]
    fn fit_points(points: &[DVec3]) -> Self;

    /// A volume containing all `points`, keeping this volume's orientation where it has one
    /// (OBB, RSS): the cheap refit used after vertices move. Defaults to
    /// [`fit_points`](Self::fit_points).
    #[must_use]
    fn refit_points(&self, points: &[DVec3]) -> Self {
        Self::fit_points(points)
    }

    /// A volume containing both volumes (same frame).
    #[must_use]
    fn merge(&self, other: &Self) -> Self;

    /// False only when the two volumes are certainly disjoint; `other` is placed by `pos12`
    /// (its frame in `self`'s frame).
    #[must_use]
    fn overlaps(&self, other: &Self, pos12: &DAffine3) -> bool;

    /// A lower bound (≥ 0) on the distance between any point of `self` and any point of
    /// `other` placed by `pos12`; 0 when they may overlap. Exact for [`Sphere`](crate::Sphere)
    /// and [`Rss`](crate::Rss) (up to rounding, which is absorbed conservatively), a
    /// separating-axis bound for boxes and k-DOPs.
    #[must_use]
    fn distance_lower_bound(&self, other: &Self, pos12: &DAffine3) -> f64;

    /// A volume of this type containing this volume moved by the rigid `pose` (exact for
    /// sphere, OBB and RSS; a bound of the moved volume for AABB and k-DOP).
    #[must_use]
    fn transformed(&self, pose: &DAffine3) -> Self;

    /// True when `p` lies in the volume grown by `tolerance`.
    #[must_use]
    fn contains_point(&self, p: DVec3, tolerance: f64) -> bool;

    /// A point inside the volume, used as its centre.
    #[must_use]
    fn center(&self) -> DVec3;

    /// An axis-aligned box containing the volume.
    #[must_use]
    fn aabb(&self) -> Aabb;

    /// A size measure (an upper bound on the distance from [`center`](Self::center) to any
    /// point of the volume). Pair traversals descend into the larger of two nodes.
    #[must_use]
    fn size(&self) -> f64;
}

/// Separating-axis test between two boxes, box 1 axis-aligned at the origin with half extents
/// `h1`, box 2 with half extents `h2`, axes given by the columns of `r` and centre `t` (both in
/// box 1's frame). Returns the largest gap found along the 15 candidate axes (normalised, so
/// it is a lower bound on the distance between the boxes); returns as soon as a gap larger
/// than `stop_above` is found. A value `<= 0` means the boxes overlap. Every gap is reduced by
/// a rounding slack relative to `scale` (the magnitude of the coordinates involved), so that
/// contents touching up to rounding are never reported separate.
///
/// `|r|` is inflated by a small epsilon so that nearly parallel edge pairs, whose cross
/// product is numerically meaningless, make the radii larger (conservative) rather than
/// produce a false separation (Gottschalk et al., OBBTree, Sec. 5).
#[inline]
pub(crate) fn box_box_gap(
    h1: DVec3,
    h2: DVec3,
    r: &glam::DMat3,
    t: DVec3,
    scale: f64,
    stop_above: f64,
) -> f64 {
    const EPS: f64 = 1e-12;
    let margin =
        crate::fit::slack(scale + t.abs().max_element() + h1.max_element() + h2.max_element());
    // rows of r: r.row(i) = (r[0][i], r[1][i], r[2][i]) = components along box-1 axis i of box-2 axes
    let rm = [
        [r.x_axis.x, r.y_axis.x, r.z_axis.x],
        [r.x_axis.y, r.y_axis.y, r.z_axis.y],
        [r.x_axis.z, r.y_axis.z, r.z_axis.z],
    ];
    let mut ar = [[0.0f64; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            ar[i][j] = rm[i][j].abs() + EPS;
        }
    }
    let a = h1.to_array();
    let b = h2.to_array();
    let tv = t.to_array();
    let mut best = f64::NEG_INFINITY;
    // face axes of box 1
    for i in 0..3 {
        let ra = a[i];
        let rb = b[0] * ar[i][0] + b[1] * ar[i][1] + b[2] * ar[i][2];
        let gap = tv[i].abs() - ra - rb - margin;
        if gap > best {
            best = gap;
            if best > stop_above {
                return best;
            }
        }
    }
    // face axes of box 2
    for j in 0..3 {
        let ra = a[0] * ar[0][j] + a[1] * ar[1][j] + a[2] * ar[2][j];
        let rb = b[j];
        let tp = tv[0] * rm[0][j] + tv[1] * rm[1][j] + tv[2] * rm[2][j];
        let gap = tp.abs() - ra - rb - margin;
        if gap > best {
            best = gap;
            if best > stop_above {
                return best;
            }
        }
    }
    // edge-edge axes: L = e_i x f_j
    for i in 0..3 {
        let i1 = (i + 1) % 3;
        let i2 = (i + 2) % 3;
        for j in 0..3 {
            let j1 = (j + 1) % 3;
            let j2 = (j + 2) % 3;
            let norm2 = 1.0 - rm[i][j] * rm[i][j];
            if norm2 <= 1e-12 {
                // parallel edges: the axis is covered by the face axes
                continue;
            }
            let ra = a[i1] * ar[i2][j] + a[i2] * ar[i1][j];
            let rb = b[j1] * ar[i][j2] + b[j2] * ar[i][j1];
            let tp = tv[i2] * rm[i1][j] - tv[i1] * rm[i2][j];
            let gap = (tp.abs() - ra - rb) / norm2.sqrt() - margin;
            if gap > best {
                best = gap;
                if best > stop_above {
                    return best;
                }
            }
        }
    }
    best
}

/// Rotation part of a pose as a matrix.
#[inline]
pub(crate) fn rot(pose: &DAffine3) -> glam::DMat3 {
    pose.matrix3
}
