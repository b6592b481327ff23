//! Witness features: which vertex, edge or face of a mesh a contact or closest point lies on.

/// A feature of a triangle mesh, indexing into the [`TriMesh`](crate::TriMesh) the caller
/// passed (so witnesses can be drawn or looked up).
///
/// Edges are given by their two vertex indices, smaller first when built with
/// [`Feature::edge`].
///
/// With the `serde` feature a feature is written as an array: its kind in lower case, then
/// its indices — `["vertex", 5]`, `["edge", 1, 2]`, `["face", 0]` — the same value as the
/// Python module's feature tuples (`("vertex", 5)`, …), so one spelling serves the command
/// line's JSON, `ccd.batch` and Python objects. The externally tagged form (`{"Vertex": 5}`,
/// `{"Edge": [1, 2]}`, `{"Face": 0}`) is read too.
///
/// ```
/// # #[cfg(feature = "serde")] {
/// use ccd_geometry::Feature;
/// let text = serde_json::to_string(&[Feature::Vertex(5), Feature::Edge(1, 2)]).unwrap();
/// assert_eq!(text, r#"[["vertex",5],["edge",1,2]]"#);
/// let back: Vec<Feature> = serde_json::from_str(&text).unwrap();
/// assert_eq!(back, [Feature::Vertex(5), Feature::Edge(1, 2)]);
/// assert!(serde_json::from_str::<Feature>(r#"["corner", 1]"#).is_err());
/// assert!(serde_json::from_str::<Feature>(r#"["edge", 1]"#).is_err());
/// let old: Feature = serde_json::from_str(r#"{"Edge": [1, 2]}"#).unwrap();
/// assert_eq!(old, Feature::Edge(1, 2));
/// # }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
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

#[cfg(feature = "serde")]
mod serde_impl {
    //! serde for [`Feature`]: `["vertex", i]`, `["edge", i, j]`, `["face", i]`; the externally
    //! tagged `{"Vertex": i}`, `{"Edge": [i, j]}`, `{"Face": i}` is read too.

    use super::Feature;
    use serde::de::{self, MapAccess, SeqAccess, Visitor};
    use serde::ser::SerializeTuple;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    impl Serialize for Feature {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            match *self {
                Self::Vertex(i) | Self::Face(i) => {
                    let mut t = serializer.serialize_tuple(2)?;
                    t.serialize_element(if matches!(self, Self::Vertex(_)) {
                        "vertex"
                    } else {
                        "face"
                    })?;
                    t.serialize_element(&i)?;
                    t.end()
                }
                Self::Edge(i, j) => {
                    let mut t = serializer.serialize_tuple(3)?;
                    t.serialize_element("edge")?;
                    t.serialize_element(&i)?;
                    t.serialize_element(&j)?;
                    t.end()
                }
            }
        }
    }

    const EXPECTING: &str = "a feature: [\"vertex\", i], [\"edge\", i, j] or [\"face\", i]";

    struct FeatureVisitor;

    impl<'de> Visitor<'de> for FeatureVisitor {
        type Value = Feature;

        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(EXPECTING)
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Feature, A::Error> {
            let kind: String = seq
                .next_element()?
                .ok_or_else(|| de::Error::invalid_length(0, &self))?;
            let mut index = |n: usize| -> Result<u32, A::Error> {
                seq.next_element()?
                    .ok_or_else(|| de::Error::invalid_length(n, &FeatureVisitor))
            };
            let feature = match kind.as_str() {
                "vertex" => Feature::Vertex(index(1)?),
                "face" => Feature::Face(index(1)?),
                "edge" => Feature::Edge(index(1)?, index(2)?),
                other => {
                    return Err(de::Error::unknown_variant(
                        other,
                        &["vertex", "edge", "face"],
                    ));
                }
            };
            if seq.next_element::<de::IgnoredAny>()?.is_some() {
                return Err(de::Error::custom(format!(
                    "too many entries: expected {EXPECTING}"
                )));
            }
            Ok(feature)
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Feature, A::Error> {
            let kind: String = map
                .next_key()?
                .ok_or_else(|| de::Error::invalid_length(0, &self))?;
            let feature = match kind.as_str() {
                "Vertex" => Feature::Vertex(map.next_value()?),
                "Face" => Feature::Face(map.next_value()?),
                "Edge" => {
                    let (i, j): (u32, u32) = map.next_value()?;
                    Feature::Edge(i, j)
                }
                other => {
                    return Err(de::Error::unknown_variant(
                        other,
                        &["Vertex", "Edge", "Face"],
                    ));
                }
            };
            if map.next_key::<de::IgnoredAny>()?.is_some() {
                return Err(de::Error::custom(format!(
                    "more than one key: expected {EXPECTING}"
                )));
            }
            Ok(feature)
        }
    }

    impl<'de> Deserialize<'de> for Feature {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            deserializer.deserialize_any(FeatureVisitor)
        }
    }
}
