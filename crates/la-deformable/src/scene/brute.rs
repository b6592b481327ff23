//! The brute-force reference of a scene query: every vertex–face and edge–edge pair of the
//! scene (no BVH, no ownership), pre-filtered only by a sweep over the x extents of their
//! swept boxes (exact for the filter: features whose swept boxes are apart never touch).

use ccd_geometry::Feature;
use ccd_geometry::glam::DVec3;

use super::traverse::{edge_edge_resting, vertex_face_resting};
use super::{SceneOptions, SceneResult, contact, sort_contacts};
use crate::{DeformingMesh, LaError, Mode, SceneContact, SceneStats, Status};

/// A feature with its swept box.
#[derive(Clone, Copy)]
struct Item {
    min: DVec3,
    max: DVec3,
    mesh: u32,
    /// Vertex: `[v, v, v]`, edge: `[a, b, b]`, face: the triangle's vertices.
    verts: [u32; 3],
    /// Vertex 0, edge 1, face 2.
    kind: u8,
    /// Face index (faces only).
    face: u32,
}

fn swept(mesh: &DeformingMesh, verts: &[u32]) -> (DVec3, DVec3) {
    let mut lo = DVec3::INFINITY;
    let mut hi = DVec3::NEG_INFINITY;
    for &v in verts {
        for p in [mesh.x0()[v as usize], mesh.x1()[v as usize]] {
            lo = lo.min(p);
            hi = hi.max(p);
        }
    }
    (lo, hi)
}

/// The brute-force answer to [`DeformingScene::query`](super::DeformingScene::query) on `meshes`: every
/// vertex–face pair (each vertex used by a triangle against every face; within a mesh, faces
/// containing the vertex are skipped) and every edge–edge pair (within a mesh, edges sharing
/// a vertex are skipped), each run through the same elementary kernel on the whole step
/// `[0, 1]`. The scene query returns the same contacts (`Mode::All`) and the same earliest
/// ToC (`Mode::Toc`) with [`SceneOptions::normal_cones`] off; with it on, pairs inside a
/// patch certified free of self-intersection that only come within the tolerance may be
/// missing (no real contact ever is). Use it on small meshes (it is quadratic in the worst
/// case).
///
/// # Errors
/// Invalid options.
///
/// # Example
/// ```
/// use ccd_geometry::glam::DVec3;
/// use ccd_la_deformable::{DeformingMesh, Mode};
/// use ccd_la_deformable::scene::{DeformingScene, SceneOptions, brute_force};
///
/// let tri = vec![DVec3::ZERO, DVec3::X, DVec3::Y];
/// let ground = DeformingMesh::new(vec![[0, 1, 2]], tri.clone(), tri.clone())?;
/// let up: Vec<DVec3> = tri.iter().map(|p| *p + DVec3::new(0.1, 0.1, 1.0)).collect();
/// let down: Vec<DVec3> = tri.iter().map(|p| *p + DVec3::new(0.1, 0.1, -1.0)).collect();
/// let meshes = vec![ground, DeformingMesh::new(vec![[0, 1, 2]], up, down)?];
/// let opts = SceneOptions::default();
/// let reference = brute_force(&meshes, &opts, Mode::Toc)?;
/// let scene = DeformingScene::new(meshes, &opts)?;
/// assert_eq!(scene.query(Mode::Toc).toc(), reference.toc());
/// # Ok::<(), ccd_la_deformable::LaError>(())
/// ```
pub fn brute_force(
    meshes: &[DeformingMesh],
    opts: &SceneOptions,
    output: Mode,
) -> Result<SceneResult, LaError> {
    opts.validate()?;
    let margin = opts.la.tolerance + super::round_off(meshes);
    let mut items = Vec::new();
    for (mi, m) in meshes.iter().enumerate() {
        let mi = mi as u32;
        let mut used = vec![false; m.vertex_count()];
        let mut edges = Vec::new();
        for (f, t) in m.triangles().iter().enumerate() {
            let (lo, hi) = swept(m, t);
            items.push(Item {
                min: lo,
                max: hi,
                mesh: mi,
                verts: *t,
                kind: 2,
                face: f as u32,
            });
            for k in 0..3 {
                used[t[k] as usize] = true;
                let (a, b) = (t[k], t[(k + 1) % 3]);
                edges.push([a.min(b), a.max(b)]);
            }
        }
        edges.sort_unstable();
        edges.dedup();
        for (v, _) in used.iter().enumerate().filter(|(_, u)| **u) {
            let v = v as u32;
            let (lo, hi) = swept(m, &[v]);
            items.push(Item {
                min: lo,
                max: hi,
                mesh: mi,
                verts: [v; 3],
                kind: 0,
                face: 0,
            });
        }
        for e in edges {
            let (lo, hi) = swept(m, &e);
            items.push(Item {
                min: lo,
                max: hi,
                mesh: mi,
                verts: [e[0], e[1], e[1]],
                kind: 1,
                face: 0,
            });
        }
    }
    items.sort_by(|a, b| a.min.x.total_cmp(&b.min.x));

    let mut stats = SceneStats::default();
    let mut contacts: Vec<SceneContact> = Vec::new();
    let mut resting: Vec<SceneContact> = Vec::new();
    'outer: for (i, p) in items.iter().enumerate() {
        for q in &items[i + 1..] {
            if q.min.x - p.max.x > margin {
                break;
            }
            stats.bv_tests += 1;
            let apart =
                (q.min - p.max).max_element() > margin || (p.min - q.max).max_element() > margin;
            if apart {
                stats.culled_bv_pairs += 1;
                continue;
            }
            let found = match (p.kind, q.kind) {
                (0, 2) => vf(meshes, opts, p, q, &mut stats, &mut resting),
                (2, 0) => vf(meshes, opts, q, p, &mut stats, &mut resting),
                (1, 1) => ee(meshes, opts, p, q, &mut stats, &mut resting),
                _ => None,
            };
            if let Some(c) = found {
                if c.status == Status::OutOfIterations {
                    stats.capped += 1;
                }
                contacts.push(c);
                if output == Mode::Boolean {
                    break 'outer;
                }
            }
        }
    }
    sort_contacts(&mut contacts);
    if output == Mode::Toc {
        contacts.truncate(1);
    }
    super::sort_resting(&mut resting);
    Ok(SceneResult {
        contacts,
        resting,
        stats,
    })
}

fn vf(
    meshes: &[DeformingMesh],
    opts: &SceneOptions,
    v: &Item,
    f: &Item,
    stats: &mut SceneStats,
    resting: &mut Vec<SceneContact>,
) -> Option<SceneContact> {
    if v.mesh == f.mesh && f.verts.contains(&v.verts[0]) {
        return None;
    }
    let (mv, mf) = (&meshes[v.mesh as usize], &meshes[f.mesh as usize]);
    let at = |xs: fn(&DeformingMesh) -> &[DVec3]| {
        [
            xs(mv)[v.verts[0] as usize],
            xs(mf)[f.verts[0] as usize],
            xs(mf)[f.verts[1] as usize],
            xs(mf)[f.verts[2] as usize],
        ]
    };
    stats.primitive_tests += 1;
    let (hit, rest) = vertex_face_resting(
        opts.kernel,
        &at(DeformingMesh::x0),
        &at(DeformingMesh::x1),
        1.0,
        opts,
    );
    let (fa, fb) = (Feature::Vertex(v.verts[0]), Feature::Face(f.face));
    if let Some(r) = rest {
        resting.push(contact(v.mesh, fa, f.mesh, fb, &r));
    }
    Some(contact(v.mesh, fa, f.mesh, fb, &hit?))
}

fn ee(
    meshes: &[DeformingMesh],
    opts: &SceneOptions,
    a: &Item,
    b: &Item,
    stats: &mut SceneStats,
    resting: &mut Vec<SceneContact>,
) -> Option<SceneContact> {
    let (ea, eb) = ([a.verts[0], a.verts[1]], [b.verts[0], b.verts[1]]);
    if a.mesh == b.mesh && (eb.contains(&ea[0]) || eb.contains(&ea[1])) {
        return None;
    }
    // a canonical order (lower mesh, then lower edge) so the scene's owned order matches
    let (a, b, ea, eb) = if (a.mesh, ea) <= (b.mesh, eb) {
        (a, b, ea, eb)
    } else {
        (b, a, eb, ea)
    };
    let (ma, mb) = (&meshes[a.mesh as usize], &meshes[b.mesh as usize]);
    let at = |xs: fn(&DeformingMesh) -> &[DVec3]| {
        [
            xs(ma)[ea[0] as usize],
            xs(ma)[ea[1] as usize],
            xs(mb)[eb[0] as usize],
            xs(mb)[eb[1] as usize],
        ]
    };
    stats.primitive_tests += 1;
    let (hit, rest) = edge_edge_resting(
        opts.kernel,
        &at(DeformingMesh::x0),
        &at(DeformingMesh::x1),
        1.0,
        opts,
    );
    let (fa, fb) = (Feature::edge(ea[0], ea[1]), Feature::edge(eb[0], eb[1]));
    if let Some(r) = rest {
        resting.push(contact(a.mesh, fa, b.mesh, fb, &r));
    }
    Some(contact(a.mesh, fa, b.mesh, fb, &hit?))
}
