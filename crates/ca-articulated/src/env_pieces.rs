//! The static environment split into its connected pieces, each with its convex hull: a
//! cheap screen in front of the mesh CA of a link against the environment.
//!
//! An environment is usually many separate objects (shelf boards, bottles, chessmen). The
//! mesh CA of a link against it, over a time window, expands every node pair whose safe
//! advancement is shorter than the window; near a shelf that is thousands of RSS tests.
//! Convex-hull CA of the link's hull against the hull of each piece whose box meets the
//! link's swept box is a few GJK calls per piece, and its answers carry over to the mesh
//! pair (a piece lies inside its hull, the link inside its own):
//!
//! - a hull pair proven free over the window (distance `> ε/2` throughout) proves the
//!   piece's triangles free of the link over it;
//! - a hull pair reporting contact at `τ` proved `> ε/2` over `[from, τ)`: the mesh CA of
//!   that piece need not start before `τ`.
//!
//! So the mesh CA runs only when some piece is not proven free, from the earliest hull
//! contact on, and only over the box of the pieces not proven free (triangles outside it
//! belong to pieces proven free, or lie outside the swept box: farther than `ε/2` from the
//! link over the window either way, which is what the window CA's region asks,
//! `ccd_ca_rigid::details::time_of_contact_bounded_within`). Pieces are the connected
//! components of the triangles with vertices welded by exact position; a piece whose hull
//! cannot be built (flat, degenerate) is never proven free.

use std::collections::HashMap;
use std::sync::Arc;

use ccd_bvh::{BvhOptions, MeshBvh, Rss};
use ccd_ca_rigid::details::time_of_contact_convex_bounded;
use ccd_ca_rigid::{CaOptions, Collider, RigidBody};
use ccd_distance::ConvexHull;
use ccd_geometry::{Aabb, TriMesh};

use crate::bound::MoverPair;

/// The most pieces an environment is split into: beyond it the screen is off (scanning the
/// pieces' boxes would cost more than it saves).
const MAX_PIECES: usize = 1024;

/// One connected piece of the environment: its exact box and, when it could be built, a
/// body (world frame) carrying its convex hull.
#[derive(Clone, Debug)]
struct EnvPiece {
    bx: Aabb,
    body: Option<RigidBody>,
}

/// The pieces of an environment (empty: no screen, the environment is one piece or more
/// than [`MAX_PIECES`]).
#[derive(Clone, Debug, Default)]
pub(crate) struct EnvPieces {
    pieces: Vec<EnvPiece>,
}

/// A static environment mesh (world frame) with everything an [`ArticulatedScene`](crate::ArticulatedScene)
/// derives from it, computed once: its body (the shared RSS hierarchy), the exact box of
/// each hierarchy node's triangles (spatial culling), its connected pieces welded by exact
/// position with their convex hulls (the hull screen of link–environment pairs), and its
/// largest coordinate (the domain check). Share it (`Arc`) between scenes:
/// [`ArticulatedScene::set_prepared_environment`](crate::ArticulatedScene::set_prepared_environment) is then
/// O(parts of the scene) instead of the preparation's cost (welding, hulls, box refit), and
/// the answers are those of [`ArticulatedScene::set_environment`](crate::ArticulatedScene::set_environment).
///
/// # Example
/// ```
/// use std::sync::Arc;
/// use ccd_ca_articulated::PreparedEnvironment;
/// use ccd_bvh::{BvhOptions, MeshBvh, Rss};
/// use ccd_geometry::{glam::DVec3, TriMesh};
///
/// let floor = TriMesh::cuboid(DVec3::new(-1.0, -1.0, -0.1), DVec3::new(1.0, 1.0, 0.0))?;
/// let env = PreparedEnvironment::new(Arc::new(MeshBvh::<Rss>::new(floor, &BvhOptions::default())?));
/// assert_eq!(env.mesh().mesh().triangle_count(), 12);
/// assert_eq!(env.piece_count(), 0); // one piece: no hull screen
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct PreparedEnvironment {
    body: RigidBody,
    collider: Collider,
    node_boxes: Vec<Aabb>,
    pieces: EnvPieces,
}

impl PreparedEnvironment {
    /// Prepares `mesh` (world frame): the node boxes, the welded pieces and their hulls.
    /// Linear in the mesh's size plus the pieces' hulls; done once per environment.
    ///
    /// # Example
    /// See [`PreparedEnvironment`].
    #[must_use]
    pub fn new(mesh: Arc<MeshBvh<Rss>>) -> Self {
        let mut node_boxes = vec![Aabb::EMPTY; mesh.bvh().node_count()];
        if !node_boxes.is_empty() {
            fit_node_box(&mesh, 0, &mut node_boxes);
        }
        let pieces = EnvPieces::new(mesh.mesh());
        let body = RigidBody::new(mesh);
        Self {
            collider: Collider::Mesh(body.clone()),
            body,
            node_boxes,
            pieces,
        }
    }

    /// The environment's mesh and hierarchy.
    #[inline]
    #[must_use]
    pub fn mesh(&self) -> &Arc<MeshBvh<Rss>> {
        self.body.shared()
    }

    /// The number of connected pieces with the hull screen (0: the screen is off, the mesh is
    /// one piece or has more than 1024).
    #[inline]
    #[must_use]
    pub fn piece_count(&self) -> usize {
        self.pieces.pieces.len()
    }

    /// The environment as a rigid body (world frame).
    #[inline]
    pub(crate) fn body(&self) -> &RigidBody {
        &self.body
    }

    /// The environment as a mesh [`Collider`].
    pub(crate) fn collider(&self) -> &Collider {
        &self.collider
    }

    /// Per node of the hierarchy, the exact box of the node's triangles.
    #[inline]
    pub(crate) fn node_boxes(&self) -> &[Aabb] {
        &self.node_boxes
    }

    /// The connected pieces with their hulls.
    #[inline]
    pub(crate) fn pieces(&self) -> &EnvPieces {
        &self.pieces
    }
}

/// What the screen left of a window of a link–environment search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Screened {
    /// Every piece the window's box meets was proven free over the window.
    Free,
    /// Run the mesh CA from `from` on, over `region` (the window's box cut to the pieces
    /// not proven free).
    Search { from: f64, region: Aabb },
}

impl EnvPieces {
    /// No pieces (no screen).
    pub(crate) const NONE: Self = Self { pieces: Vec::new() };

    /// Splits `mesh` into its connected pieces (vertices welded by exact position) and
    /// builds each one's hull. No pieces when there are fewer than two or more than
    /// [`MAX_PIECES`].
    pub(crate) fn new(mesh: &TriMesh) -> Self {
        let (vertices, triangles) = (mesh.vertices(), mesh.triangles());
        let n = vertices.len();
        // weld: one representative per exact position (-0.0 and 0.0 apart: harmless)
        let mut weld: HashMap<[u64; 3], u32> = HashMap::with_capacity(n);
        let rep: Vec<u32> = vertices
            .iter()
            .enumerate()
            .map(|(i, v)| {
                *weld
                    .entry([v.x.to_bits(), v.y.to_bits(), v.z.to_bits()])
                    .or_insert(i as u32)
            })
            .collect();
        let mut parent: Vec<u32> = (0..n as u32).collect();
        fn find(parent: &mut [u32], mut x: u32) -> u32 {
            while parent[x as usize] != x {
                let up = parent[parent[x as usize] as usize];
                parent[x as usize] = up;
                x = up;
            }
            x
        }
        for t in triangles {
            let r0 = find(&mut parent, rep[t[0] as usize]);
            for &v in &t[1..] {
                let r = find(&mut parent, rep[v as usize]);
                if r != r0 {
                    parent[r as usize] = r0;
                }
            }
        }
        // triangles grouped by component
        let mut group_of: HashMap<u32, usize> = HashMap::new();
        let mut groups: Vec<Vec<[u32; 3]>> = Vec::new();
        for t in triangles {
            let root = find(&mut parent, rep[t[0] as usize]);
            let g = *group_of.entry(root).or_insert_with(|| {
                groups.push(Vec::new());
                groups.len() - 1
            });
            groups[g].push(*t);
            if groups.len() > MAX_PIECES {
                return Self::default();
            }
        }
        if groups.len() < 2 {
            return Self::default();
        }
        let pieces = groups
            .into_iter()
            .map(|tris| {
                // the piece's own vertices, renumbered
                let mut index: HashMap<u32, u32> = HashMap::new();
                let mut verts = Vec::new();
                let tris: Vec<[u32; 3]> = tris
                    .iter()
                    .map(|t| {
                        t.map(|v| {
                            *index.entry(v).or_insert_with(|| {
                                verts.push(vertices[v as usize]);
                                verts.len() as u32 - 1
                            })
                        })
                    })
                    .collect();
                let bx = Aabb::from_points(verts.iter().copied());
                // the body carries only the hull's own faces (the hull CA reads the hull
                // and the radius, the same for the hull's vertices): a large piece costs
                // no second copy of its triangles; a hull without faces (a segment, a
                // point) keeps the piece's
                let (verts, tris) = match ConvexHull::new(&verts) {
                    Ok(h) if !h.faces().is_empty() => (h.vertices().to_vec(), h.faces().to_vec()),
                    _ => (verts, tris),
                };
                let body = TriMesh::new(verts, tris)
                    .ok()
                    .and_then(|m| MeshBvh::<Rss>::new(m, &BvhOptions::default()).ok())
                    .and_then(|m| RigidBody::with_hull(Arc::new(m)).ok());
                EnvPiece { bx, body }
            })
            .collect();
        Self { pieces }
    }

    /// Whether there is no screen.
    pub(crate) fn is_empty(&self) -> bool {
        self.pieces.is_empty()
    }

    /// The number of pieces.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.pieces.len()
    }

    /// Screens the window `[from, to]` of link body `a` (with a hull) moving by `pair`
    /// (the environment side static, world frame) whose swept box, grown by `ε/2`, is
    /// `region`: hull CA of `a` against every piece whose box meets `region` (their
    /// iterations added to `hull_iterations`, a free answer counted as one).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn screen(
        &self,
        a: &RigidBody,
        pair: &MoverPair<'_>,
        from: f64,
        to: f64,
        region: &Aabb,
        ca: &CaOptions,
        hull_iterations: &mut u64,
    ) -> Screened {
        let mut keep = Aabb::EMPTY;
        let mut start = to;
        let hull = a.hull().is_some();
        for p in &self.pieces {
            if !p.bx.overlaps(region) {
                continue;
            }
            let contact = match &p.body {
                Some(body) if hull => {
                    // (an error of the hull CA proves nothing: the piece is kept, and the
                    // mesh CA, which the query ran before the screen existed, answers)
                    match time_of_contact_convex_bounded(a, body, pair, from, to, ca) {
                        Ok(c) => {
                            // (a free answer's iterations are not reported; a contact's are)
                            *hull_iterations += c.map_or(1, |c| u64::from(c.stats.iterations));
                            c.map(|c| c.toc)
                        }
                        Err(_) => Some(from),
                    }
                }
                _ => Some(from),
            };
            if let Some(toc) = contact {
                keep = keep.merge(p.bx);
                start = start.min(toc.max(from));
            }
        }
        if keep.is_empty() {
            return Screened::Free;
        }
        Screened::Search {
            from: start,
            region: region.intersection(keep),
        }
    }
}

/// Fills `boxes[i]` and its subtree's boxes with the exact boxes of their triangles.
fn fit_node_box(mesh: &MeshBvh<Rss>, i: u32, boxes: &mut [Aabb]) -> Aabb {
    let b = match mesh.bvh().node(i).children() {
        Some([l, r]) => fit_node_box(mesh, l, boxes).merge(fit_node_box(mesh, r, boxes)),
        None => mesh
            .bvh()
            .node_primitives(i)
            .iter()
            .fold(Aabb::EMPTY, |b, &p| {
                let t = mesh.mesh().triangle(p as usize);
                b.merge(Aabb::from_points([t.a, t.b, t.c]))
            }),
    };
    boxes[i as usize] = b;
    b
}

#[cfg(test)]
mod tests {
    use super::*;
    use ccd_geometry::glam::DVec3;

    /// Appends the cube of half side `h` at `at` to a vertex and triangle list.
    fn cube(at: DVec3, h: f64, out: &mut (Vec<DVec3>, Vec<[u32; 3]>)) {
        let m = TriMesh::cuboid(at - DVec3::splat(h), at + DVec3::splat(h)).expect("cube");
        let base = out.0.len() as u32;
        out.0.extend_from_slice(m.vertices());
        out.1
            .extend(m.triangles().iter().map(|f| f.map(|v| base + v)));
    }

    #[test]
    fn pieces_are_welded_components() {
        let mut m = (Vec::new(), Vec::new());
        cube(DVec3::ZERO, 0.5, &mut m);
        cube(DVec3::new(3.0, 0.0, 0.0), 0.5, &mut m);
        // a third cube given as two halves with duplicated vertices: welded into one piece
        let mut half = (Vec::new(), Vec::new());
        cube(DVec3::new(6.0, 0.0, 0.0), 0.5, &mut half);
        let base = m.0.len() as u32;
        m.0.extend(half.0.iter().copied());
        m.0.extend(half.0.iter().copied());
        for (k, t) in half.1.iter().enumerate() {
            let off = if k < 6 { base } else { base + 8 };
            m.1.push(t.map(|v| v + off));
        }
        let mesh = TriMesh::new(m.0, m.1).unwrap();
        let pieces = EnvPieces::new(&mesh);
        assert_eq!(pieces.len(), 3);
        assert!(pieces.pieces.iter().all(|p| p.body.is_some()));
        // one piece alone: no screen
        let mut one = (Vec::new(), Vec::new());
        cube(DVec3::ZERO, 0.5, &mut one);
        assert!(EnvPieces::new(&TriMesh::new(one.0, one.1).unwrap()).is_empty());
    }
}
