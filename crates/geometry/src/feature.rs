//! Witness features: which vertex, edge or face of a mesh a contact or closest point lies on.

/// A feature of a triangle mesh, indexing into the [`TriMesh`](crate::TriMesh) the caller
/// passed (so witnesses can be drawn or looked up).
///
/// Edges are given by their two vertex indices, smaller first when built with
/// [`Feature::edge`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Feature {
    /// A vertex, by index.
    Vertex(u32),
    /// An edge, by its two vertex indices.
    Edge(u32, u32),
    /// A face (triangle), by index.
    Face(u32),
}

impl Feature {
    /// An edge feature with its vertex indices in increasing order.
    ///
    /// ```
    /// use ccd_geometry::Feature;
    /// assert_eq!(Feature::edge(7, 3), Feature::Edge(3, 7));
    /// ```
    #[inline]
    #[must_use]
    pub fn edge(a: u32, b: u32) -> Self {
        if a <= b {
            Self::Edge(a, b)
        } else {
            Self::Edge(b, a)
        }
    }

    /// Maps a feature of a single triangle (local vertex ids 0..3, local face 0) to the
    /// corresponding feature of a mesh triangle `tri` with index `face`.
    ///
    /// Distance kernels work on lone triangles and report local features; mesh queries
    /// lift them with this.
    ///
    /// ```
    /// use ccd_geometry::Feature;
    /// let tri = [10, 11, 12];
    /// assert_eq!(Feature::Vertex(2).lift(tri, 5), Feature::Vertex(12));
    /// assert_eq!(Feature::Edge(0, 2).lift(tri, 5), Feature::Edge(10, 12));
    /// assert_eq!(Feature::Face(0).lift(tri, 5), Feature::Face(5));
    /// ```
    #[must_use]
    pub fn lift(self, tri: [u32; 3], face: u32) -> Self {
        let v = |i: u32| tri[(i as usize).min(2)];
        match self {
            Self::Vertex(i) => Self::Vertex(v(i)),
            Self::Edge(i, j) => Self::edge(v(i), v(j)),
            Self::Face(_) => Self::Face(face),
        }
    }
}
