//! Validated triangle meshes (polygon soups allowed) with cached adjacency.

use std::collections::HashMap;
use std::sync::OnceLock;

use glam::DVec3;
use smallvec::SmallVec;

use crate::{Aabb, GeometryError, Triangle};

/// A unique undirected edge of a [`TriMesh`] and the faces that use it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edge {
    /// The two vertex indices, smaller first.
    pub vertices: [u32; 2],
    /// Indices of the triangles having this edge (1 on a border, 2 on a manifold interior,
    /// more on a non-manifold edge), in increasing order.
    pub faces: SmallVec<[u32; 2]>,
}

/// Vertex → faces adjacency in compressed-row form.
#[derive(Clone, Debug)]
struct VertexFaces {
    offsets: Vec<u32>,
    faces: Vec<u32>,
}

/// A triangle mesh: finite vertices and in-range triangles, nothing else assumed (it may be
/// a soup, non-manifold, open, with duplicate or zero-area triangles).
///
/// Edges and vertex→face adjacency are built on first use and cached; the mesh is
/// immutable after construction, so it can be shared across threads (`Arc<TriMesh>`).
///
/// With the `serde` feature a mesh serializes as `{ "vertices": [[x, y, z], …],
/// "triangles": [[a, b, c], …] }`, and deserializing runs the checks of [`TriMesh::new`]
/// (a NaN vertex or an out-of-range index is a deserialization error).
///
/// # Example
/// ```
/// use ccd_geometry::{glam::DVec3, GeometryError, TriMesh};
///
/// let quad = TriMesh::new(
///     vec![DVec3::ZERO, DVec3::X, DVec3::new(1.0, 1.0, 0.0), DVec3::Y],
///     vec![[0, 1, 2], [0, 2, 3]],
/// )?;
/// assert_eq!(quad.edges().len(), 5);
/// assert_eq!(quad.vertex_faces(0), &[0, 1]);
///
/// let bad = TriMesh::new(vec![DVec3::ZERO, DVec3::NAN], vec![]);
/// assert!(matches!(bad, Err(GeometryError::NonFiniteVertex { index: 1, .. })));
/// # Ok::<(), GeometryError>(())
/// ```
#[derive(Clone, Debug)]
pub struct TriMesh {
    vertices: Vec<DVec3>,
    triangles: Vec<[u32; 3]>,
    degenerate: Vec<u32>,
    aabb: Aabb,
    edges: OnceLock<Vec<Edge>>,
    vertex_faces: OnceLock<VertexFaces>,
}

impl TriMesh {
    /// Validates and builds a mesh.
    ///
    /// # Errors
    /// - [`GeometryError::NonFiniteVertex`] naming the first vertex with a NaN or infinite
    ///   coordinate;
    /// - [`GeometryError::IndexOutOfRange`] naming the first triangle with a vertex index
    ///   `>= vertices.len()`;
    /// - [`GeometryError::TooManyVertices`] when `u32` cannot index the vertices.
    ///
    /// Zero-area triangles are kept and listed by [`TriMesh::degenerate_triangles`].
    pub fn new(vertices: Vec<DVec3>, triangles: Vec<[u32; 3]>) -> Result<Self, GeometryError> {
        if vertices.len() >= u32::MAX as usize {
            return Err(GeometryError::TooManyVertices(vertices.len()));
        }
        if let Some((index, v)) = vertices.iter().enumerate().find(|(_, v)| !v.is_finite()) {
            return Err(GeometryError::NonFiniteVertex {
                index,
                x: v.x,
                y: v.y,
                z: v.z,
            });
        }
        let n = vertices.len();
        for (t, tri) in triangles.iter().enumerate() {
            if let Some(&vertex) = tri.iter().find(|&&i| i as usize >= n) {
                return Err(GeometryError::IndexOutOfRange {
                    triangle: t,
                    vertex,
                    vertex_count: n,
                });
            }
        }
        if triangles.len() >= u32::MAX as usize {
            return Err(GeometryError::TooManyVertices(triangles.len()));
        }
        let aabb = Aabb::from_points(vertices.iter().copied());
        let mut mesh = Self {
            vertices,
            triangles,
            degenerate: Vec::new(),
            aabb,
            edges: OnceLock::new(),
            vertex_faces: OnceLock::new(),
        };
        mesh.degenerate = (0..mesh.triangles.len() as u32)
            .filter(|&t| {
                let [a, b, c] = mesh.triangles[t as usize];
                a == b || b == c || a == c || mesh.triangle(t as usize).is_degenerate()
            })
            .collect();
        Ok(mesh)
    }

    /// The vertex positions.
    #[inline]
    #[must_use]
    pub fn vertices(&self) -> &[DVec3] {
        &self.vertices
    }

    /// The triangles as vertex-index triples.
    #[inline]
    #[must_use]
    pub fn triangles(&self) -> &[[u32; 3]] {
        &self.triangles
    }

    /// Number of vertices.
    #[inline]
    #[must_use]
    pub fn vertex_count(&self) -> usize {
        self.vertices.len()
    }

    /// Number of triangles.
    #[inline]
    #[must_use]
    pub fn triangle_count(&self) -> usize {
        self.triangles.len()
    }

    /// Triangle `i` as a [`Triangle`] value.
    ///
    /// # Panics
    /// When `i >= triangle_count()` (an index bug in the caller, not bad input data).
    #[inline]
    #[must_use]
    pub fn triangle(&self, i: usize) -> Triangle {
        let [a, b, c] = self.triangles[i];
        Triangle::new(
            self.vertices[a as usize],
            self.vertices[b as usize],
            self.vertices[c as usize],
        )
    }

    /// Iterator over all triangles as [`Triangle`] values.
    pub fn triangle_iter(&self) -> impl ExactSizeIterator<Item = Triangle> + '_ {
        (0..self.triangles.len()).map(|i| self.triangle(i))
    }

    /// Indices of zero-area triangles (repeated indices, collinear or coincident vertices).
    #[inline]
    #[must_use]
    pub fn degenerate_triangles(&self) -> &[u32] {
        &self.degenerate
    }

    /// Bounding box of all vertices (empty for a mesh without vertices).
    #[inline]
    #[must_use]
    pub fn aabb(&self) -> Aabb {
        self.aabb
    }

    /// Unique undirected edges with their adjacent faces, sorted by vertex pair.
    /// Built on first call and cached. Edges of a triangle with repeated vertex indices
    /// that join a vertex to itself are skipped.
    pub fn edges(&self) -> &[Edge] {
        self.edges.get_or_init(|| {
            let mut map: HashMap<[u32; 2], usize> =
                HashMap::with_capacity(self.triangles.len() * 3 / 2 + 1);
            let mut edges: Vec<Edge> = Vec::with_capacity(self.triangles.len() * 3 / 2 + 1);
            for (f, tri) in self.triangles.iter().enumerate() {
                for k in 0..3 {
                    let (a, b) = (tri[k], tri[(k + 1) % 3]);
                    if a == b {
                        continue;
                    }
                    let key = [a.min(b), a.max(b)];
                    let slot = *map.entry(key).or_insert_with(|| {
                        edges.push(Edge {
                            vertices: key,
                            faces: SmallVec::new(),
                        });
                        edges.len() - 1
                    });
                    let faces = &mut edges[slot].faces;
                    if faces.last() != Some(&(f as u32)) {
                        faces.push(f as u32);
                    }
                }
            }
            edges.sort_unstable_by_key(|e| e.vertices);
            edges
        })
    }

    /// Faces using vertex `v`, in increasing order. Built on first call (for all vertices)
    /// and cached. Returns an empty slice for an out-of-range `v`.
    pub fn vertex_faces(&self, v: u32) -> &[u32] {
        let vf = self.vertex_faces.get_or_init(|| {
            let n = self.vertices.len();
            let mut counts = vec![0u32; n + 1];
            for tri in &self.triangles {
                for (k, &i) in tri.iter().enumerate() {
                    if !tri[..k].contains(&i) {
                        counts[i as usize + 1] += 1;
                    }
                }
            }
            for i in 0..n {
                counts[i + 1] += counts[i];
            }
            let mut fill = counts.clone();
            let mut faces = vec![0u32; counts[n] as usize];
            for (f, tri) in self.triangles.iter().enumerate() {
                for (k, &i) in tri.iter().enumerate() {
                    if !tri[..k].contains(&i) {
                        faces[fill[i as usize] as usize] = f as u32;
                        fill[i as usize] += 1;
                    }
                }
            }
            VertexFaces {
                offsets: counts,
                faces,
            }
        });
        let v = v as usize;
        if v + 1 >= vf.offsets.len() {
            return &[];
        }
        &vf.faces[vf.offsets[v] as usize..vf.offsets[v + 1] as usize]
    }
}

/// serde (feature `serde`): a mesh is written as its `vertices` (`[x, y, z]` arrays) and
/// `triangles` (`[a, b, c]` index arrays); the cached adjacency is not written. Reading
/// validates through [`TriMesh::new`], so a deserialized mesh upholds the same invariants as
/// a constructed one (finite vertices, in-range indices) and bad data is a deserialization
/// error, never an invalid mesh.
#[cfg(feature = "serde")]
mod serde_impl {
    use glam::DVec3;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::TriMesh;

    /// The written form, borrowed for writing.
    #[derive(Serialize)]
    #[serde(rename = "TriMesh")]
    struct MeshRef<'a> {
        vertices: &'a [DVec3],
        triangles: &'a [[u32; 3]],
    }

    /// The written form, owned for reading; becomes a mesh only through [`TriMesh::new`].
    #[derive(Deserialize)]
    #[serde(rename = "TriMesh", deny_unknown_fields)]
    struct MeshData {
        vertices: Vec<DVec3>,
        triangles: Vec<[u32; 3]>,
    }

    impl TryFrom<MeshData> for TriMesh {
        type Error = crate::GeometryError;

        fn try_from(data: MeshData) -> Result<Self, Self::Error> {
            Self::new(data.vertices, data.triangles)
        }
    }

    impl Serialize for TriMesh {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            MeshRef {
                vertices: &self.vertices,
                triangles: &self.triangles,
            }
            .serialize(serializer)
        }
    }

    impl<'de> Deserialize<'de> for TriMesh {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            let data = MeshData::deserialize(deserializer)?;
            Self::try_from(data).map_err(serde::de::Error::custom)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tetra() -> TriMesh {
        TriMesh::new(
            vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z],
            vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
        )
        .unwrap()
    }

    #[test]
    fn closed_tetra_has_manifold_edges() {
        let m = tetra();
        assert_eq!(m.edges().len(), 6);
        assert!(m.edges().iter().all(|e| e.faces.len() == 2));
        assert_eq!(m.vertex_faces(3), &[1, 2, 3]);
        assert_eq!(m.vertex_faces(99), &[] as &[u32]);
        assert_eq!(m.aabb(), Aabb::new(DVec3::ZERO, DVec3::ONE));
    }

    #[test]
    fn rejects_bad_index_and_nan() {
        let e = TriMesh::new(vec![DVec3::ZERO; 3], vec![[0, 1, 2], [0, 1, 3]]).unwrap_err();
        assert!(matches!(
            e,
            GeometryError::IndexOutOfRange {
                triangle: 1,
                vertex: 3,
                vertex_count: 3
            }
        ));
        assert!(e.to_string().contains("triangle 1"));
        let e = TriMesh::new(
            vec![DVec3::ZERO, DVec3::new(0.0, f64::INFINITY, 0.0)],
            vec![],
        )
        .unwrap_err();
        assert!(matches!(e, GeometryError::NonFiniteVertex { index: 1, .. }));
        assert!(e.to_string().contains("vertex 1"));
    }

    #[test]
    fn degenerate_triangles_are_kept_and_reported() {
        let m = TriMesh::new(
            vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::X * 2.0],
            vec![[0, 1, 2], [0, 1, 3], [2, 2, 1]],
        )
        .unwrap();
        assert_eq!(m.triangle_count(), 3);
        assert_eq!(m.degenerate_triangles(), &[1, 2]);
        // the self-loop 2-2 is not an edge
        assert!(m.edges().iter().all(|e| e.vertices[0] != e.vertices[1]));
        assert_eq!(m.vertex_faces(2), &[0, 2]);
    }
}
