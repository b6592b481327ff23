//! Procedural meshes of simple solids (a box, a torus) for examples, tests, benchmarks and
//! scenes.

use glam::DVec3;

use crate::{GeometryError, TriMesh};

impl TriMesh {
    /// The closed axis-aligned box `[min, max]`: 8 vertices, 12 triangles (two per face),
    /// counter-clockwise seen from outside, so normals point out of the solid.
    ///
    /// Vertex `i` has coordinate x from `max` when bit 0 of `i` is set (else from `min`),
    /// y by bit 1 and z by bit 2, so vertex 0 is `min` and vertex 7 is `max`.
    ///
    /// # Errors
    /// [`GeometryError::InvalidPrimitive`] unless every coordinate is finite and
    /// `min < max` on every axis (a flat or inverted box has degenerate or inward faces).
    ///
    /// # Example
    /// ```
    /// use ccd_geometry::TriMesh;
    /// use ccd_geometry::glam::DVec3;
    ///
    /// let b = TriMesh::cuboid(DVec3::new(-1.0, -0.5, 0.0), DVec3::new(1.0, 0.5, 2.0))?;
    /// assert_eq!((b.vertex_count(), b.triangle_count()), (8, 12));
    /// assert_eq!(b.aabb().max, DVec3::new(1.0, 0.5, 2.0));
    /// assert!(TriMesh::cuboid(DVec3::ONE, DVec3::ZERO).is_err());
    /// # Ok::<(), ccd_geometry::GeometryError>(())
    /// ```
    pub fn cuboid(min: DVec3, max: DVec3) -> Result<Self, GeometryError> {
        if !(min.is_finite() && max.is_finite() && min.cmplt(max).all()) {
            return Err(GeometryError::InvalidPrimitive {
                shape: "cuboid",
                reason: format!(
                    "corners must be finite with min < max on every axis, got {min} and {max}"
                ),
            });
        }
        let vertices = (0..8)
            .map(|i| {
                DVec3::new(
                    if i & 1 == 0 { min.x } else { max.x },
                    if i & 2 == 0 { min.y } else { max.y },
                    if i & 4 == 0 { min.z } else { max.z },
                )
            })
            .collect();
        let triangles = vec![
            [0, 2, 1], // -z
            [1, 2, 3],
            [4, 5, 6], // +z
            [5, 7, 6],
            [0, 1, 4], // -y
            [1, 5, 4],
            [2, 6, 3], // +y
            [3, 6, 7],
            [0, 4, 2], // -x
            [2, 4, 6],
            [1, 3, 5], // +x
            [3, 7, 5],
        ];
        Self::new(vertices, triangles)
    }

    /// A closed ring torus about the z axis, centred at the origin: tube centre circle of
    /// radius `major` in the xy plane, tube radius `minor`, sampled at `segments` angles
    /// around z and `rings` angles around the tube (`2 · segments · rings` triangles,
    /// counter-clockwise seen from outside, so normals point out of the solid).
    ///
    /// Vertex `i · rings + j` sits at angle `2π i / segments` around z and `2π j / rings`
    /// around the tube, so the mesh is the same for the same arguments on every machine.
    /// Every vertex lies on the smooth torus; the mesh is inside it (chords cut the
    /// curved surface).
    ///
    /// # Errors
    /// [`GeometryError::InvalidPrimitive`] unless `0 < minor < major` (finite; a torus whose
    /// tube reaches the axis would intersect itself) and `3 ≤ segments, rings` with
    /// `segments · rings` vertices addressable by `u32`.
    ///
    /// # Example
    /// ```
    /// use ccd_geometry::TriMesh;
    ///
    /// let torus = TriMesh::torus(1.0, 0.35, 24, 12)?;
    /// assert_eq!((torus.vertex_count(), torus.triangle_count()), (288, 576));
    /// // A closed surface: every edge has exactly two triangles.
    /// assert_eq!(torus.edges().len(), 3 * 576 / 2);
    /// # Ok::<(), ccd_geometry::GeometryError>(())
    /// ```
    pub fn torus(major: f64, minor: f64, segments: u32, rings: u32) -> Result<Self, GeometryError> {
        let invalid = |reason: String| GeometryError::InvalidPrimitive {
            shape: "torus",
            reason,
        };
        if !(minor > 0.0 && minor < major && major.is_finite()) {
            return Err(invalid(format!(
                "radii must satisfy 0 < minor < major (finite), got major {major}, minor {minor}"
            )));
        }
        if segments < 3 || rings < 3 {
            return Err(invalid(format!(
                "at least 3 segments and 3 rings are needed, got {segments} and {rings}"
            )));
        }
        let count = u64::from(segments) * u64::from(rings);
        if count >= u64::from(u32::MAX) {
            return Err(GeometryError::TooManyVertices(
                usize::try_from(count).unwrap_or(usize::MAX),
            ));
        }
        let tau = std::f64::consts::TAU;
        let mut vertices = Vec::with_capacity(count as usize);
        for i in 0..segments {
            let (sa, ca) = (tau * f64::from(i) / f64::from(segments)).sin_cos();
            for j in 0..rings {
                let (sb, cb) = (tau * f64::from(j) / f64::from(rings)).sin_cos();
                let r = major + minor * cb;
                vertices.push(DVec3::new(r * ca, r * sa, minor * sb));
            }
        }
        let id = |i: u32, j: u32| (i % segments) * rings + (j % rings);
        let mut triangles = Vec::with_capacity(2 * count as usize);
        for i in 0..segments {
            for j in 0..rings {
                let (p, q, r, s) = (id(i, j), id(i + 1, j), id(i + 1, j + 1), id(i, j + 1));
                triangles.push([p, q, r]);
                triangles.push([p, r, s]);
            }
        }
        Self::new(vertices, triangles)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn torus_is_closed_outward_and_on_the_surface() {
        let (major, minor) = (1.0, 0.35);
        let t = TriMesh::torus(major, minor, 16, 7).unwrap();
        assert_eq!((t.vertex_count(), t.triangle_count()), (112, 224));
        assert!(t.degenerate_triangles().is_empty());
        // Closed two-manifold: V - E + F = 0 (genus 1), every edge shared by two faces.
        assert_eq!(t.edges().len(), 336);
        assert_eq!(
            t.vertex_count() as i64 - t.edges().len() as i64 + t.triangle_count() as i64,
            0
        );
        for v in t.vertices() {
            let ring = (v.x.hypot(v.y) - major).hypot(v.z);
            assert!((ring - minor).abs() < 1e-12, "{v} off the torus");
        }
        // Outward: each face normal points away from its tube centre circle.
        for tri in t.triangle_iter() {
            let c = (tri.a + tri.b + tri.c) / 3.0;
            let axis = DVec3::new(c.x, c.y, 0.0).normalize() * major;
            let n = (tri.b - tri.a).cross(tri.c - tri.a);
            assert!(n.dot(c - axis) > 0.0, "inward face at {c}");
        }
    }

    #[test]
    fn cuboid_is_closed_and_outward() {
        let (lo, hi) = (DVec3::new(-1.0, 2.0, -0.5), DVec3::new(0.5, 3.0, 4.0));
        let b = TriMesh::cuboid(lo, hi).unwrap();
        assert!(b.degenerate_triangles().is_empty());
        assert_eq!(b.edges().len(), 18);
        assert_eq!((b.aabb().min, b.aabb().max), (lo, hi));
        let centre = 0.5 * (lo + hi);
        for tri in b.triangle_iter() {
            let c = (tri.a + tri.b + tri.c) / 3.0;
            let n = (tri.b - tri.a).cross(tri.c - tri.a);
            assert!(n.dot(c - centre) > 0.0, "inward face at {c}");
        }
        for (lo, hi) in [
            (DVec3::ZERO, DVec3::new(1.0, 1.0, 0.0)),
            (DVec3::ONE, DVec3::ZERO),
            (DVec3::new(f64::NAN, 0.0, 0.0), DVec3::ONE),
            (DVec3::ZERO, DVec3::splat(f64::INFINITY)),
        ] {
            assert!(
                matches!(
                    TriMesh::cuboid(lo, hi),
                    Err(GeometryError::InvalidPrimitive {
                        shape: "cuboid",
                        ..
                    })
                ),
                "{lo}, {hi}"
            );
        }
    }

    #[test]
    fn bad_torus_arguments_are_typed_errors() {
        for (major, minor) in [
            (1.0, 0.0),
            (1.0, -0.1),
            (0.3, 0.3),
            (0.2, 0.3),
            (f64::NAN, 0.1),
            (f64::INFINITY, 0.1),
            (1.0, f64::NAN),
        ] {
            assert!(
                matches!(
                    TriMesh::torus(major, minor, 8, 8),
                    Err(GeometryError::InvalidPrimitive { shape: "torus", .. })
                ),
                "{major}, {minor}"
            );
        }
        for (s, r) in [(2, 8), (8, 2), (0, 0)] {
            assert!(matches!(
                TriMesh::torus(1.0, 0.3, s, r),
                Err(GeometryError::InvalidPrimitive { .. })
            ));
        }
        assert!(matches!(
            TriMesh::torus(1.0, 0.3, 1 << 16, 1 << 16),
            Err(GeometryError::TooManyVertices(_))
        ));
    }
}
