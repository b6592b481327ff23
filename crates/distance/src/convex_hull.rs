//! Convex hulls of point sets (quickhull with exact orientation predicates) and their support mapping.
//!
//! # Robustness
//!
//! Every visibility decision ("is point `p` strictly outside face `abc`?") is taken with
//! Shewchuk's adaptive exact predicate [`robust::orient3d`], and the dimension of the input
//! (0D point, 1D segment, 2D polygon, 3D polytope) is decided with exact `orient2d`/`orient3d`
//! signs. Hull vertices are input points copied bit for bit, so the hull is convex *exactly*
//! and no epsilon has to be scaled to the input: coplanar, collinear and duplicate points
//! never create inconsistent topology. Points exactly on the plane of a face are treated as
//! inside (they are not added), so a cube's corners plus points on its faces give 8 vertices.
//! Floating-point distances are only used to pick *which* outside point to add next (the
//! farthest), which affects speed but never correctness. Coordinates are limited to
//! ±[`ConvexHull::MAX_COORDINATE`] (1e100) so the predicates' products cannot overflow;
//! like Shewchuk's predicates themselves, exactness assumes no underflow (coordinate
//! differences far below 1e-100 are not guarded).
//!
//! # Flat hulls
//!
//! [`ConvexHull::new`] accepts inputs that span fewer than three dimensions and returns a
//! flat hull: a convex polygon (dimension 2, faces are a fan triangulation oriented
//! counter-clockwise about [`ConvexHull::plane_normal`]), a segment (dimension 1, no faces)
//! or a single point (dimension 0, no faces). [`ConvexHull::new_3d`] rejects such inputs.

use glam::DVec3;
use robust::{Coord, Coord3D, orient2d, orient3d};

/// Error building a [`ConvexHull`].
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum HullError {
    /// The point set is empty.
    #[error("cannot build a convex hull of an empty point set")]
    Empty,
    /// A coordinate is NaN or infinite.
    #[error("point {index} is not finite: {point}")]
    NonFinite {
        /// Index of the offending point in the input slice.
        index: usize,
        /// The offending point.
        point: DVec3,
    },
    /// A 3D hull was requested ([`ConvexHull::new_3d`]) but the points are coplanar,
    /// collinear or all identical.
    #[error("the points span only {dimension} dimension(s); a 3D hull needs 4 non-coplanar points")]
    NotThreeDimensional {
        /// The dimension actually spanned (0, 1 or 2).
        dimension: u8,
    },
    /// A coordinate's magnitude exceeds [`ConvexHull::MAX_COORDINATE`], where the exact predicates'
    /// products could overflow.
    #[error("point {index} has a coordinate beyond ±1e100: {point}")]
    OutOfRange {
        /// Index of the offending point in the input slice.
        index: usize,
        /// The offending point.
        point: DVec3,
    },
    /// More points than `u32` indices can address.
    #[error("too many points ({count}); at most {max} are supported", max = u32::MAX)]
    TooManyPoints {
        /// Number of points passed.
        count: usize,
    },
    /// The horizon of the visible region was not a simple loop. Exact predicates make this
    /// unreachable for valid input; it is reported instead of panicking.
    #[error("quickhull found an inconsistent horizon while adding point {index}")]
    Inconsistent {
        /// Index of the input point being added.
        index: usize,
    },
}

/// Hulls with at most this many vertices use a linear scan in [`ConvexHull::support`];
/// larger hulls climb the vertex adjacency graph.
const LINEAR_SCAN_MAX: usize = 32;

/// A convex hull: its vertices (a subset of the input points), triangular faces with
/// outward counter-clockwise winding, and vertex adjacency for a fast support mapping.
///
/// Coordinates are in the frame of the input points (the body's local frame); queries such as
/// GJK distance take the pose separately.
#[derive(Debug, Clone, PartialEq)]
pub struct ConvexHull {
    vertices: Vec<DVec3>,
    input_indices: Vec<u32>,
    faces: Vec<[u32; 3]>,
    adjacency_start: Vec<u32>,
    adjacency: Vec<u32>,
    vertex_faces_start: Vec<u32>,
    vertex_faces: Vec<u32>,
    dimension: u8,
    plane_normal: DVec3,
    centroid: DVec3,
    /// Vertices extreme along +x, −x, +y, −y, +z, −z: hill-climbing starts without a hint.
    axis_extremes: [u32; 6],
}

impl ConvexHull {
    /// Largest coordinate magnitude accepted by [`ConvexHull::new`]: the exact `orient3d`
    /// predicate multiplies three coordinate differences, which must not overflow.
    pub const MAX_COORDINATE: f64 = 1e100;

    /// Builds the convex hull of `points` (quickhull with exact predicates).
    ///
    /// Inputs spanning fewer than three dimensions give a flat hull (polygon, segment or
    /// point; see [`ConvexHull::dimension`]). Duplicate points are allowed.
    ///
    /// # Errors
    /// [`HullError::Empty`] for no points, [`HullError::NonFinite`] for NaN/infinite
    /// coordinates, [`HullError::OutOfRange`] for coordinates beyond [`ConvexHull::MAX_COORDINATE`],
    /// [`HullError::TooManyPoints`] beyond `u32` indexing.
    ///
    /// # Example
    /// ```
    /// use ccd_distance::ConvexHull;
    /// use glam::DVec3;
    ///
    /// let mut points = Vec::new();
    /// for i in 0..8 {
    ///     points.push(DVec3::new((i & 1) as f64, ((i >> 1) & 1) as f64, ((i >> 2) & 1) as f64));
    /// }
    /// points.push(DVec3::splat(0.5)); // interior point
    /// let hull = ConvexHull::new(&points)?;
    /// assert_eq!(hull.dimension(), 3);
    /// assert_eq!(hull.vertices().len(), 8);
    /// assert_eq!(hull.faces().len(), 12);
    /// # Ok::<(), ccd_distance::HullError>(())
    /// ```
    pub fn new(points: &[DVec3]) -> Result<Self, HullError> {
        build(points)
    }

    /// Builds the convex hull of `points`, requiring it to be a solid (3D) polytope.
    ///
    /// # Errors
    /// As [`ConvexHull::new`], plus [`HullError::NotThreeDimensional`] when the points are
    /// coplanar, collinear or all identical.
    ///
    /// # Example
    /// ```
    /// use ccd_distance::{ConvexHull, HullError};
    /// use glam::DVec3;
    ///
    /// let square = [DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::new(1.0, 1.0, 0.0)];
    /// assert_eq!(
    ///     ConvexHull::new_3d(&square),
    ///     Err(HullError::NotThreeDimensional { dimension: 2 })
    /// );
    /// assert_eq!(ConvexHull::new(&square)?.dimension(), 2);
    /// # Ok::<(), HullError>(())
    /// ```
    pub fn new_3d(points: &[DVec3]) -> Result<Self, HullError> {
        let hull = build(points)?;
        if hull.dimension < 3 {
            return Err(HullError::NotThreeDimensional {
                dimension: hull.dimension,
            });
        }
        Ok(hull)
    }

    /// The hull vertices, a subset of the input points (copied exactly).
    #[inline]
    #[must_use]
    pub fn vertices(&self) -> &[DVec3] {
        &self.vertices
    }

    /// For each hull vertex, the index of the input point it came from.
    #[inline]
    #[must_use]
    pub fn input_indices(&self) -> &[u32] {
        &self.input_indices
    }

    /// Triangular faces as indices into [`ConvexHull::vertices`], counter-clockwise seen from
    /// outside. A 2D hull has a fan triangulation of its polygon, counter-clockwise about
    /// [`ConvexHull::plane_normal`]; 1D and 0D hulls have no faces.
    #[inline]
    #[must_use]
    pub fn faces(&self) -> &[[u32; 3]] {
        &self.faces
    }

    /// The dimension of the hull: 3 (polytope), 2 (polygon), 1 (segment) or 0 (point).
    #[inline]
    #[must_use]
    pub fn dimension(&self) -> u8 {
        self.dimension
    }

    /// Unit normal of the plane of a 2D hull (its faces wind counter-clockwise about it);
    /// zero for other dimensions.
    #[inline]
    #[must_use]
    pub fn plane_normal(&self) -> DVec3 {
        self.plane_normal
    }

    /// The mean of the hull vertices (a point inside the hull).
    #[inline]
    #[must_use]
    pub fn centroid(&self) -> DVec3 {
        self.centroid
    }

    /// Vertices joined to vertex `v` by a hull edge (for a polygon: its two neighbours on the
    /// boundary). Empty if `v` is out of range.
    #[inline]
    #[must_use]
    pub fn neighbors(&self, v: u32) -> &[u32] {
        csr_slice(&self.adjacency_start, &self.adjacency, v)
    }

    /// Faces incident to vertex `v`. Empty if `v` is out of range or the hull has no faces.
    #[inline]
    #[must_use]
    pub fn faces_of_vertex(&self, v: u32) -> &[u32] {
        csr_slice(&self.vertex_faces_start, &self.vertex_faces, v)
    }

    /// Unit outward normal of face `f` (zero for a degenerate triangle).
    ///
    /// # Panics
    /// If `f` is out of range.
    #[inline]
    #[must_use]
    pub fn face_normal(&self, f: usize) -> DVec3 {
        let [a, b, c] = self.faces[f].map(|i| self.vertices[i as usize]);
        accurate_cross(a, b, c).normalize_or_zero()
    }

    /// The index of a face whose three vertices are `a`, `b` and `c` (in any order), if any.
    #[must_use]
    pub fn face_with_vertices(&self, a: u32, b: u32, c: u32) -> Option<u32> {
        self.faces_of_vertex(a).iter().copied().find(|&f| {
            let face = self.faces[f as usize];
            face.contains(&b) && face.contains(&c)
        })
    }

    /// The support point of the hull in direction `dir` (a vertex maximising `dir · v`) and
    /// its vertex index. Small hulls scan all vertices; larger ones climb the vertex
    /// adjacency graph (see [`ConvexHull::support_from`]) from the vertex extreme along the
    /// coordinate axis closest to `dir`.
    ///
    /// # Example
    /// ```
    /// use ccd_distance::ConvexHull;
    /// use glam::DVec3;
    ///
    /// let hull = ConvexHull::new(&[DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z])?;
    /// let (p, i) = hull.support(DVec3::new(1.0, 0.1, 0.2));
    /// assert_eq!(p, DVec3::X);
    /// assert_eq!(hull.vertices()[i as usize], p);
    /// # Ok::<(), ccd_distance::HullError>(())
    /// ```
    #[inline]
    #[must_use]
    pub fn support(&self, dir: DVec3) -> (DVec3, u32) {
        self.support_from(dir, u32::MAX)
    }

    /// The support point in direction `dir`, starting the hill climb at vertex `start`
    /// (e.g. the previous answer, for coherent queries). The climb moves to a neighbour with a
    /// strictly larger `dir · v` until none exists; on a convex polytope such a local maximum
    /// is global. It ends after at most one step per vertex. Small hulls scan linearly and
    /// ignore `start`; an out-of-range `start` (e.g. `u32::MAX` for "no hint") starts at the
    /// vertex extreme along the coordinate axis closest to `dir`.
    ///
    /// # Example
    /// ```
    /// use ccd_distance::ConvexHull;
    /// use glam::DVec3;
    ///
    /// let points: Vec<DVec3> = (0..200)
    ///     .map(|i| {
    ///         let (t, s) = (i as f64 * 2.399_963, (i as f64 + 0.5) / 200.0);
    ///         let z = 1.0 - 2.0 * s;
    ///         let r = (1.0 - z * z).sqrt();
    ///         DVec3::new(r * t.cos(), r * t.sin(), z)
    ///     })
    ///     .collect();
    /// let hull = ConvexHull::new(&points)?;
    /// let dir = DVec3::new(0.3, -0.2, 0.9);
    /// let (_, first) = hull.support(dir);
    /// let (p, again) = hull.support_from(dir * 1.01, first);
    /// assert_eq!(again, first);
    /// let best = hull.vertices().iter().map(|v| v.dot(dir)).fold(f64::MIN, f64::max);
    /// assert_eq!(p.dot(dir), best);
    /// # Ok::<(), ccd_distance::HullError>(())
    /// ```
    #[inline]
    #[must_use]
    pub fn support_from(&self, dir: DVec3, start: u32) -> (DVec3, u32) {
        let n = self.vertices.len();
        if n <= LINEAR_SCAN_MAX {
            let mut best = 0usize;
            let mut best_dot = dir.dot(self.vertices[0]);
            for (i, v) in self.vertices.iter().enumerate().skip(1) {
                let d = dir.dot(*v);
                if d > best_dot {
                    best_dot = d;
                    best = i;
                }
            }
            return (self.vertices[best], best as u32);
        }
        let mut best = if (start as usize) < n {
            start
        } else {
            let a = dir.abs();
            let axis = if a.x >= a.y && a.x >= a.z {
                0
            } else if a.y >= a.z {
                1
            } else {
                2
            };
            self.axis_extremes[2 * axis + usize::from(dir[axis] < 0.0)]
        };
        let mut best_dot = dir.dot(self.vertices[best as usize]);
        // Each pass strictly increases `best_dot`, so at most `n` passes happen.
        for _ in 0..n {
            let current = best;
            for &nb in self.neighbors(current) {
                let d = dir.dot(self.vertices[nb as usize]);
                if d > best_dot {
                    best_dot = d;
                    best = nb;
                }
            }
            if best == current {
                break;
            }
        }
        (self.vertices[best as usize], best)
    }
}

#[inline]
fn csr_slice<'a>(start: &[u32], items: &'a [u32], v: u32) -> &'a [u32] {
    let v = v as usize;
    if v + 1 >= start.len() {
        return &[];
    }
    &items[start[v] as usize..start[v + 1] as usize]
}

/// Compressed adjacency from a list of (vertex, item) pairs.
fn build_csr(n: usize, pairs: &[(u32, u32)]) -> (Vec<u32>, Vec<u32>) {
    let mut start = vec![0u32; n + 1];
    for &(v, _) in pairs {
        start[v as usize + 1] += 1;
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut items = vec![0u32; pairs.len()];
    for &(v, x) in pairs {
        items[fill[v as usize] as usize] = x;
        fill[v as usize] += 1;
    }
    (start, items)
}

#[inline]
fn c3(p: DVec3) -> Coord3D<f64> {
    Coord3D {
        x: p.x,
        y: p.y,
        z: p.z,
    }
}

/// Exact: `true` iff `p` lies strictly on the outer side of the plane of the
/// counter-clockwise triangle `abc` (the side its normal `(b − a) × (c − a)` points to).
#[inline]
fn above(a: DVec3, b: DVec3, c: DVec3, p: DVec3) -> bool {
    // Shewchuk's orient3d is positive when `p` is below the plane in which `a, b, c`
    // appear counter-clockwise.
    orient3d(c3(a), c3(b), c3(c), c3(p)) < 0.0
}

/// The 2D orientation of `a, b, c` projected on the coordinate plane `(axis+1, axis+2)`;
/// equals (up to rounding, with exact sign) component `axis` of `(b − a) × (c − a)`.
#[inline]
fn orient_projected(a: DVec3, b: DVec3, c: DVec3, axis: usize) -> f64 {
    let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
    orient2d(
        Coord { x: a[u], y: a[v] },
        Coord { x: b[u], y: b[v] },
        Coord { x: c[u], y: c[v] },
    )
}

/// Exact collinearity test: the cross product vanishes iff all three projections do.
fn collinear(a: DVec3, b: DVec3, c: DVec3) -> bool {
    (0..3).all(|axis| orient_projected(a, b, c, axis) == 0.0)
}

/// Error-free `a + b = s + e`.
#[inline]
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// `(b − a) × (c − a)` with the differences kept exactly (hi + lo) and the products split
/// with fused multiply-adds, summed with compensation: accurate to a few ulps unless the
/// cancellation exceeds double-double precision.
fn accurate_cross(a: DVec3, b: DVec3, c: DVec3) -> DVec3 {
    let d1: [(f64, f64); 3] = [0, 1, 2].map(|k| two_sum(b[k], -a[k]));
    let d2: [(f64, f64); 3] = [0, 1, 2].map(|k| two_sum(c[k], -a[k]));
    let component = |u: usize, v: usize| {
        let (x, y) = (d1[u], d2[v]);
        let (z, w) = (d1[v], d2[u]);
        let p1 = x.0 * y.0;
        let p2 = z.0 * w.0;
        let terms = [
            p1,
            x.0.mul_add(y.0, -p1),
            x.0 * y.1 + x.1 * y.0,
            -p2,
            -z.0.mul_add(w.0, -p2),
            -(z.0 * w.1 + z.1 * w.0),
        ];
        // Neumaier's compensated sum.
        let (mut sum, mut comp) = (0.0f64, 0.0f64);
        for t in terms {
            let (s, e) = two_sum(sum, t);
            sum = s;
            comp += e;
        }
        sum + comp
    };
    DVec3::new(component(1, 2), component(2, 0), component(0, 1))
}

fn build(points: &[DVec3]) -> Result<ConvexHull, HullError> {
    if points.is_empty() {
        return Err(HullError::Empty);
    }
    if points.len() >= u32::MAX as usize {
        return Err(HullError::TooManyPoints {
            count: points.len(),
        });
    }
    if let Some((index, &point)) = points.iter().enumerate().find(|(_, p)| !p.is_finite()) {
        return Err(HullError::NonFinite { index, point });
    }
    if let Some((index, &point)) = points
        .iter()
        .enumerate()
        .find(|(_, p)| p.abs().max_element() > ConvexHull::MAX_COORDINATE)
    {
        return Err(HullError::OutOfRange { index, point });
    }

    // Initial simplex: extreme in x, then farthest from it, farthest from that line, and
    // farthest from that plane; each dimension decision is exact.
    let i0 = (0..points.len())
        .min_by(|&i, &j| points[i].x.total_cmp(&points[j].x))
        .unwrap_or(0);
    let p0 = points[i0];
    let i1 = (0..points.len())
        .max_by(|&i, &j| {
            points[i]
                .distance_squared(p0)
                .total_cmp(&points[j].distance_squared(p0))
        })
        .unwrap_or(0);
    if points[i1] == p0 {
        return Ok(from_parts(
            points,
            vec![i0 as u32],
            Vec::new(),
            0,
            DVec3::ZERO,
        ));
    }
    let p1 = points[i1];
    let e = p1 - p0;
    let candidate = (0..points.len())
        .max_by(|&i, &j| {
            e.cross(points[i] - p0)
                .length_squared()
                .total_cmp(&e.cross(points[j] - p0).length_squared())
        })
        .unwrap_or(0);
    let i2 = if collinear(p0, p1, points[candidate]) {
        match (0..points.len()).find(|&i| !collinear(p0, p1, points[i])) {
            Some(i) => i,
            None => return Ok(segment_hull(points)),
        }
    } else {
        candidate
    };
    let p2 = points[i2];
    let i3 = (0..points.len())
        .map(|i| (i, orient3d(c3(p0), c3(p1), c3(p2), c3(points[i])).abs()))
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .filter(|&(_, o)| o > 0.0)
        .map(|(i, _)| i);
    match i3 {
        None => Ok(polygon_hull(points, [p0, p1, p2])),
        Some(i3) => quickhull(points, [i0, i1, i2, i3]),
    }
}

/// Assembles a hull from chosen input indices and faces over those (local) indices.
fn from_parts(
    points: &[DVec3],
    input_indices: Vec<u32>,
    faces: Vec<[u32; 3]>,
    dimension: u8,
    plane_normal: DVec3,
) -> ConvexHull {
    let vertices: Vec<DVec3> = input_indices.iter().map(|&i| points[i as usize]).collect();
    let n = vertices.len();
    let mut adjacency_pairs = Vec::new();
    match dimension {
        3 => {
            // Each undirected edge appears once in each direction over the closed surface.
            for f in &faces {
                for k in 0..3 {
                    adjacency_pairs.push((f[k], f[(k + 1) % 3]));
                }
            }
        }
        2 => {
            for i in 0..n {
                let j = (i + 1) % n;
                adjacency_pairs.push((i as u32, j as u32));
                adjacency_pairs.push((j as u32, i as u32));
            }
        }
        1 => adjacency_pairs.extend([(0, 1), (1, 0)]),
        _ => {}
    }
    let (adjacency_start, adjacency) = build_csr(n, &adjacency_pairs);
    let incidence: Vec<(u32, u32)> = faces
        .iter()
        .enumerate()
        .flat_map(|(fi, f)| f.map(|v| (v, fi as u32)))
        .collect();
    let (vertex_faces_start, vertex_faces) = build_csr(n, &incidence);
    let centroid = vertices.iter().copied().sum::<DVec3>() / n as f64;
    let mut axis_extremes = [0u32; 6];
    for (k, slot) in axis_extremes.iter_mut().enumerate() {
        let sign = if k % 2 == 0 { 1.0 } else { -1.0 };
        let axis = k / 2;
        *slot = (0..n)
            .max_by(|&i, &j| (sign * vertices[i][axis]).total_cmp(&(sign * vertices[j][axis])))
            .unwrap_or(0) as u32;
    }
    ConvexHull {
        vertices,
        input_indices,
        faces,
        adjacency_start,
        adjacency,
        vertex_faces_start,
        vertex_faces,
        dimension,
        plane_normal,
        centroid,
        axis_extremes,
    }
}

/// Hull of exactly collinear (not all identical) points: the two extreme points.
fn segment_hull(points: &[DVec3]) -> ConvexHull {
    let p0 = points[0];
    let far = points
        .iter()
        .copied()
        .max_by(|a, b| a.distance_squared(p0).total_cmp(&b.distance_squared(p0)))
        .unwrap_or(p0);
    let dir = far - p0;
    let key = |i: &usize| dir.dot(points[*i]);
    let lo = (0..points.len())
        .min_by(|a, b| key(a).total_cmp(&key(b)))
        .unwrap_or(0);
    let hi = (0..points.len())
        .max_by(|a, b| key(a).total_cmp(&key(b)))
        .unwrap_or(0);
    if points[lo] == points[hi] {
        return from_parts(points, vec![lo as u32], Vec::new(), 0, DVec3::ZERO);
    }
    from_parts(
        points,
        vec![lo as u32, hi as u32],
        Vec::new(),
        1,
        DVec3::ZERO,
    )
}

/// Hull of exactly coplanar points spanning a plane: Andrew's monotone chain on the
/// projection to the coordinate plane where the polygon has the largest area (dropping a
/// coordinate is exact, so `orient2d` decides every turn exactly).
fn polygon_hull(points: &[DVec3], tri: [DVec3; 3]) -> ConvexHull {
    let [p0, p1, p2] = tri;
    let axis = (0..3)
        .max_by(|&a, &b| {
            orient_projected(p0, p1, p2, a)
                .abs()
                .total_cmp(&orient_projected(p0, p1, p2, b).abs())
        })
        .unwrap_or(2);
    let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
    let coord = |i: u32| Coord {
        x: points[i as usize][u],
        y: points[i as usize][v],
    };
    let mut order: Vec<u32> = (0..points.len() as u32).collect();
    order.sort_by(|&a, &b| {
        let (ca, cb) = (coord(a), coord(b));
        ca.x.total_cmp(&cb.x).then(ca.y.total_cmp(&cb.y))
    });
    order.dedup_by(|a, b| coord(*a) == coord(*b));
    // Lower then upper chain, keeping only strict left turns.
    let mut chain: Vec<u32> = Vec::with_capacity(order.len() + 1);
    for pass in 0..2 {
        let floor = chain.len();
        let iter: Box<dyn Iterator<Item = &u32>> = if pass == 0 {
            Box::new(order.iter())
        } else {
            Box::new(order.iter().rev())
        };
        for &i in iter {
            while chain.len() >= floor + 2
                && orient2d(
                    coord(chain[chain.len() - 2]),
                    coord(chain[chain.len() - 1]),
                    coord(i),
                ) <= 0.0
            {
                chain.pop();
            }
            chain.push(i);
        }
        chain.pop(); // the last point of each chain starts the other one
    }
    // Counter-clockwise in (u, v) means the polygon normal has a positive `axis` component.
    let n = chain.len();
    let faces: Vec<[u32; 3]> = (1..n.saturating_sub(1))
        .map(|i| [0, i as u32, i as u32 + 1])
        .collect();
    let verts: Vec<DVec3> = chain.iter().map(|&i| points[i as usize]).collect();
    // Area-weighted normal of the fan, each cross product to double-double accuracy: a
    // sliver polygon's plane is ill-conditioned in plain floating point.
    let mut normal = DVec3::ZERO;
    for i in 1..n.saturating_sub(1) {
        normal += accurate_cross(verts[0], verts[i], verts[i + 1]);
    }
    let mut normal = normal.normalize_or_zero();
    if normal[axis] < 0.0 {
        normal = -normal;
    }
    from_parts(points, chain, faces, 2, normal)
}

struct Face {
    v: [u32; 3],
    /// `adj[k]` is the face across edge `(v[k], v[k+1])`.
    adj: [u32; 3],
    outside: Vec<u32>,
    alive: bool,
}

fn quickhull(points: &[DVec3], init: [usize; 4]) -> Result<ConvexHull, HullError> {
    let p = |i: u32| points[i as usize];
    let [a, mut b, mut c, d] = init.map(|i| i as u32);
    if above(p(a), p(b), p(c), p(d)) {
        std::mem::swap(&mut b, &mut c);
    }
    // `d` is now strictly below `abc`; these four faces wind outward.
    let mut faces: Vec<Face> = [[a, b, c], [a, d, b], [a, c, d], [b, d, c]]
        .into_iter()
        .map(|v| Face {
            v,
            adj: [u32::MAX; 3],
            outside: Vec::new(),
            alive: true,
        })
        .collect();
    for f in 0..4 {
        for k in 0..3 {
            let (s, e) = (faces[f].v[k], faces[f].v[(k + 1) % 3]);
            let g = (0..4)
                .find(|&g| {
                    g != f && (0..3).any(|m| faces[g].v[m] == e && faces[g].v[(m + 1) % 3] == s)
                })
                .unwrap_or(f);
            faces[f].adj[k] = g as u32;
        }
    }
    for i in 0..points.len() as u32 {
        if init.contains(&(i as usize)) {
            continue;
        }
        if let Some(f) = faces.iter_mut().find(|f| {
            let [x, y, z] = f.v.map(p);
            above(x, y, z, p(i))
        }) {
            f.outside.push(i);
        }
    }

    let mut work: Vec<u32> = (0..4)
        .filter(|&f| !faces[f].outside.is_empty())
        .map(|f| f as u32)
        .collect();
    // Marks per face: `2·epoch` = visible, `2·epoch + 1` = seen and not visible.
    let mut mark: Vec<u64> = vec![0; 4];
    let mut cone_stamp: Vec<u64> = vec![0; points.len()];
    let mut cone_face: Vec<u32> = vec![0; points.len()];
    let mut epoch: u64 = 0;
    let mut visible: Vec<u32> = Vec::new();
    let mut horizon: Vec<(u32, u32, u32)> = Vec::new();
    let mut stack: Vec<u32> = Vec::new();
    let mut orphans: Vec<u32> = Vec::new();

    // Each iteration adds one input point as a vertex, so there are at most `n` of them.
    for _ in 0..points.len() {
        let Some(f) = work.pop() else { break };
        let f = f as usize;
        if !faces[f].alive || faces[f].outside.is_empty() {
            continue;
        }
        // The eye: the farthest outside point (floating-point choice; any would do).
        let [x, y, z] = faces[f].v.map(p);
        let n = (y - x).cross(z - x);
        let eye = faces[f]
            .outside
            .iter()
            .copied()
            .max_by(|&i, &j| n.dot(p(i) - x).total_cmp(&n.dot(p(j) - x)))
            .unwrap_or(faces[f].outside[0]);
        let pe = p(eye);

        epoch += 1;
        let (vis, seen) = (2 * epoch, 2 * epoch + 1);
        mark.resize(faces.len(), 0);
        visible.clear();
        horizon.clear();
        stack.clear();
        mark[f] = vis;
        stack.push(f as u32);
        while let Some(g) = stack.pop() {
            visible.push(g);
            for k in 0..3 {
                let h = faces[g as usize].adj[k];
                let hm = mark[h as usize];
                if hm == vis {
                    continue;
                }
                let is_visible = hm != seen && {
                    let [x, y, z] = faces[h as usize].v.map(p);
                    above(x, y, z, pe)
                };
                if is_visible {
                    mark[h as usize] = vis;
                    stack.push(h);
                } else {
                    mark[h as usize] = seen;
                    let gv = faces[g as usize].v;
                    horizon.push((gv[k], gv[(k + 1) % 3], h));
                }
            }
        }

        // Cone of new faces over the horizon: face (s, e, eye) for horizon edge s → e.
        let first_new = faces.len() as u32;
        for (offset, &(s, e, h)) in horizon.iter().enumerate() {
            let nf = first_new + offset as u32;
            if cone_stamp[s as usize] == epoch {
                return Err(HullError::Inconsistent {
                    index: eye as usize,
                });
            }
            cone_stamp[s as usize] = epoch;
            cone_face[s as usize] = nf;
            let hv = faces[h as usize].v;
            let Some(k) = (0..3).find(|&k| hv[k] == e && hv[(k + 1) % 3] == s) else {
                return Err(HullError::Inconsistent {
                    index: eye as usize,
                });
            };
            faces[h as usize].adj[k] = nf;
            faces.push(Face {
                v: [s, e, eye],
                adj: [h, u32::MAX, u32::MAX],
                outside: Vec::new(),
                alive: true,
            });
        }
        for (offset, &(_, e, _)) in horizon.iter().enumerate() {
            let nf = (first_new as usize) + offset;
            // Edge (e, eye) is shared with the cone face starting at `e`; edge (eye, s)
            // with the cone face ending at `s`, which links back through its own edge 1.
            if cone_stamp[e as usize] != epoch {
                return Err(HullError::Inconsistent {
                    index: eye as usize,
                });
            }
            let next = cone_face[e as usize];
            faces[nf].adj[1] = next;
            faces[next as usize].adj[2] = nf as u32;
        }
        if faces[first_new as usize..]
            .iter()
            .any(|f| f.adj.contains(&u32::MAX))
        {
            return Err(HullError::Inconsistent {
                index: eye as usize,
            });
        }

        // Retire the visible faces and hand their outside points to the new faces.
        orphans.clear();
        for &g in &visible {
            let face = &mut faces[g as usize];
            face.alive = false;
            orphans.append(&mut face.outside);
        }
        for &q in &orphans {
            if q == eye {
                continue;
            }
            let pq = p(q);
            if let Some(nf) = faces[first_new as usize..].iter_mut().find(|f| {
                let [x, y, z] = f.v.map(p);
                above(x, y, z, pq)
            }) {
                nf.outside.push(q);
            }
        }
        for nf in first_new..faces.len() as u32 {
            if !faces[nf as usize].outside.is_empty() {
                work.push(nf);
            }
        }
    }

    // Compact the surviving faces onto the vertices they use.
    let mut local = vec![u32::MAX; points.len()];
    let mut input_indices = Vec::new();
    let mut out_faces = Vec::new();
    for face in faces.iter().filter(|f| f.alive) {
        let tri = face.v.map(|i| {
            if local[i as usize] == u32::MAX {
                local[i as usize] = input_indices.len() as u32;
                input_indices.push(i);
            }
            local[i as usize]
        });
        out_faces.push(tri);
    }
    Ok(from_parts(points, input_indices, out_faces, 3, DVec3::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cube() -> Vec<DVec3> {
        (0..8)
            .map(|i| DVec3::new((i & 1) as f64, ((i >> 1) & 1) as f64, ((i >> 2) & 1) as f64))
            .collect()
    }

    #[test]
    fn accurate_cross_matches_plain_cross_and_resolves_slivers() {
        let (a, b, c) = (
            DVec3::new(1.0, 2.0, 3.0),
            DVec3::new(-1.0, 0.5, 2.0),
            DVec3::ONE,
        );
        assert!(accurate_cross(a, b, c).abs_diff_eq((b - a).cross(c - a), 1e-15));
        // Midpoint of a segment nudged off it: plain cross products lose the direction.
        let (p, q) = (DVec3::new(0.1, 0.9, 0.0), DVec3::new(0.3, 0.3, 1.4));
        let m = DVec3::new(0.2, 0.6, 0.7);
        let n = accurate_cross(p, q, m).normalize();
        assert!(n.dot(m - p).abs() < 1e-15 && n.dot(q - p).abs() < 1e-15);
    }

    #[test]
    fn orient3d_sign_convention() {
        assert!(above(DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z));
        assert!(!above(DVec3::ZERO, DVec3::X, DVec3::Y, -DVec3::Z));
        assert!(!above(
            DVec3::ZERO,
            DVec3::X,
            DVec3::Y,
            DVec3::new(3.0, 4.0, 0.0)
        ));
    }

    #[test]
    fn cube_with_face_and_edge_points_keeps_only_corners() {
        let mut pts = cube();
        pts.push(DVec3::new(0.5, 0.5, 1.0)); // face centre
        pts.push(DVec3::new(0.5, 0.0, 0.0)); // edge midpoint
        pts.push(DVec3::new(0.5, 0.5, 0.5)); // interior
        pts.extend(cube()); // duplicates
        let hull = ConvexHull::new(&pts).unwrap();
        assert_eq!(hull.dimension(), 3);
        assert_eq!(hull.vertices().len(), 8);
        assert_eq!(hull.faces().len(), 12);
        for v in 0..8 {
            assert!(hull.neighbors(v).len() >= 3);
        }
    }

    #[test]
    fn empty_and_non_finite_are_errors() {
        assert_eq!(ConvexHull::new(&[]), Err(HullError::Empty));
        let bad = [DVec3::ZERO, DVec3::new(f64::NAN, 0.0, 0.0)];
        assert!(matches!(
            ConvexHull::new(&bad),
            Err(HullError::NonFinite { index: 1, .. })
        ));
        let inf = [DVec3::new(0.0, f64::INFINITY, 0.0)];
        assert!(matches!(
            ConvexHull::new(&inf),
            Err(HullError::NonFinite { index: 0, .. })
        ));
        let huge = [DVec3::ZERO, DVec3::X, DVec3::new(0.0, 0.0, -1e101)];
        assert!(matches!(
            ConvexHull::new(&huge),
            Err(HullError::OutOfRange { index: 2, .. })
        ));
        let big = [
            DVec3::ZERO,
            DVec3::X * 1e100,
            DVec3::Y * 1e100,
            DVec3::Z * 1e100,
        ];
        assert_eq!(ConvexHull::new_3d(&big).map(|h| h.faces().len()), Ok(4));
    }

    #[test]
    fn lower_dimensional_inputs() {
        let point = ConvexHull::new(&[DVec3::ONE; 5]).unwrap();
        assert_eq!(point.dimension(), 0);
        assert_eq!(point.vertices(), &[DVec3::ONE]);
        assert_eq!(point.support(DVec3::X), (DVec3::ONE, 0));

        let line: Vec<DVec3> = [0.5, -1.0, 2.0, 0.0, 2.0]
            .iter()
            .map(|&t| DVec3::new(1.0, 2.0, 3.0) * t)
            .collect();
        let seg = ConvexHull::new(&line).unwrap();
        assert_eq!(seg.dimension(), 1);
        let mut ends = seg.input_indices().to_vec();
        ends.sort_unstable();
        assert!(ends == [1, 2] || ends == [1, 4]);
        assert_eq!(
            ConvexHull::new_3d(&line),
            Err(HullError::NotThreeDimensional { dimension: 1 })
        );

        let mut plane: Vec<DVec3> = cube().into_iter().filter(|p| p.z == 0.0).collect();
        plane.push(DVec3::new(0.5, 0.5, 0.0));
        plane.push(DVec3::new(0.5, 0.0, 0.0));
        let poly = ConvexHull::new(&plane).unwrap();
        assert_eq!(poly.dimension(), 2);
        assert_eq!(poly.vertices().len(), 4);
        assert_eq!(poly.faces().len(), 2);
        assert_eq!(poly.plane_normal(), DVec3::Z);
        for f in 0..poly.faces().len() {
            assert_eq!(poly.face_normal(f), DVec3::Z);
        }
    }

    #[test]
    fn faces_are_outward() {
        let hull = ConvexHull::new(&cube()).unwrap();
        for (f, face) in hull.faces().iter().enumerate() {
            let n = hull.face_normal(f);
            let centre = face
                .iter()
                .map(|&i| hull.vertices()[i as usize])
                .sum::<DVec3>()
                / 3.0;
            assert!(n.dot(centre - hull.centroid()) > 0.0);
        }
    }
}
