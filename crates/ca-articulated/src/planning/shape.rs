//! [`ObjectShape`]: the shapes of planning scene objects (boxes, spheres, cylinders,
//! meshes) and their tessellation into closed meshes that contain them.

use std::sync::Arc;

use ccd_geometry::TriMesh;
use glam::DVec3;

use super::error::PlanningError;

/// A shape of a planning scene object, in its own frame: boxes, spheres and cylinders (axis
/// z) centred on the origin, or a triangle mesh. Analytic shapes are tessellated into
/// closed meshes that *contain* them (every face at or outside the surface), so a contact
/// with the shape is never missed; the tessellation may report contacts up to the
/// tessellation's gap early (about `1 − cos(π / 32)` ≈ 0.5 % of the radius).
#[derive(Clone, Debug)]
pub enum ObjectShape {
    /// A box of full extents `size`, centred.
    Box {
        /// Full extents along x, y, z.
        size: DVec3,
    },
    /// A sphere of `radius`, centred.
    Sphere {
        /// The radius.
        radius: f64,
    },
    /// A cylinder of `radius` and `length` along z, centred.
    Cylinder {
        /// The radius.
        radius: f64,
        /// The length along z.
        length: f64,
    },
    /// A triangle mesh.
    Mesh(Arc<TriMesh>),
}

/// Segments around the tessellated spheres and cylinders.
const SEGMENTS: u32 = 32;

impl ObjectShape {
    /// The shape as a closed triangle mesh containing it (see [`ObjectShape`]).
    ///
    /// # Errors
    /// [`PlanningError::InvalidShape`] for a non-positive or non-finite size or a mesh
    /// without triangles (`name` names the object in the message).
    ///
    /// # Example
    /// ```
    /// use ccd_ca_articulated::planning::ObjectShape;
    /// use ccd_geometry::glam::DVec3;
    ///
    /// let ball = ObjectShape::Sphere { radius: 0.5 }.to_mesh("ball")?;
    /// // every face plane is at least the radius from the centre: the ball is inside
    /// assert!(ball.triangle_iter().all(|t| {
    ///     let n = (t.b - t.a).cross(t.c - t.a).normalize();
    ///     n.dot(t.a) >= 0.5
    /// }));
    /// assert!(ObjectShape::Sphere { radius: -1.0 }.to_mesh("ball").is_err());
    /// # Ok::<(), ccd_ca_articulated::planning::PlanningError>(())
    /// ```
    pub fn to_mesh(&self, name: &str) -> Result<TriMesh, PlanningError> {
        let bad = |reason: String| PlanningError::InvalidShape {
            name: name.into(),
            reason,
        };
        let positive = |v: f64, what: &str| {
            if v.is_finite() && v > 0.0 {
                Ok(v)
            } else {
                Err(bad(format!("{what} {v} is not a positive finite number")))
            }
        };
        match self {
            ObjectShape::Box { size } => {
                for v in size.to_array() {
                    positive(v, "box size")?;
                }
                TriMesh::cuboid(-0.5 * *size, 0.5 * *size).map_err(|e| bad(e.to_string()))
            }
            ObjectShape::Sphere { radius } => {
                let r = positive(*radius, "sphere radius")?;
                let bands = SEGMENTS / 2;
                let mut profile = Vec::with_capacity(bands as usize + 1);
                for k in 0..=bands {
                    let phi = -std::f64::consts::FRAC_PI_2
                        + std::f64::consts::PI * f64::from(k) / f64::from(bands);
                    let rho = if k == 0 || k == bands { 0.0 } else { phi.cos() };
                    profile.push((rho, phi.sin()));
                }
                let unit = lathe(&profile).map_err(|e| bad(e.to_string()))?;
                // grow the inscribed polyhedron until every face plane is at least 1 from
                // the centre (it is convex and holds the centre): it then holds the ball
                let closest = unit
                    .triangle_iter()
                    .map(|t| {
                        let n = (t.b - t.a).cross(t.c - t.a);
                        n.dot(t.a) / n.length()
                    })
                    .fold(f64::INFINITY, f64::min);
                if closest.is_nan() || closest <= 0.5 {
                    return Err(bad("tessellation failed".into()));
                }
                let s = r / closest * (1.0 + 1e-12);
                let v = unit.vertices().iter().map(|&p| p * s).collect();
                TriMesh::new(v, unit.triangles().to_vec()).map_err(|e| bad(e.to_string()))
            }
            ObjectShape::Cylinder { radius, length } => {
                let r = positive(*radius, "cylinder radius")?;
                let h = 0.5 * positive(*length, "cylinder length")?;
                // the polygon's edges at distance r from the axis: its vertices at r / cos(π/n)
                let rv = r / (std::f64::consts::PI / f64::from(SEGMENTS)).cos() * (1.0 + 1e-12);
                lathe(&[(0.0, -h), (rv, -h), (rv, h), (0.0, h)]).map_err(|e| bad(e.to_string()))
            }
            ObjectShape::Mesh(m) => {
                if m.triangle_count() == 0 {
                    Err(bad("the mesh has no triangles".into()))
                } else {
                    Ok((**m).clone())
                }
            }
        }
    }
}

/// A closed surface of revolution about z: `profile` lists `(radius, z)` from the bottom
/// pole (radius 0) to the top pole (radius 0), rings of [`SEGMENTS`] vertices in between.
fn lathe(profile: &[(f64, f64)]) -> Result<TriMesh, ccd_geometry::GeometryError> {
    let n = SEGMENTS;
    let rings = &profile[1..profile.len() - 1];
    let mut vertices = vec![DVec3::new(0.0, 0.0, profile[0].1)];
    for &(r, z) in rings {
        for j in 0..n {
            let a = std::f64::consts::TAU * f64::from(j) / f64::from(n);
            vertices.push(DVec3::new(r * a.cos(), r * a.sin(), z));
        }
    }
    let top = vertices.len() as u32;
    vertices.push(DVec3::new(0.0, 0.0, profile[profile.len() - 1].1));
    let ring = |i: usize, j: u32| 1 + i as u32 * n + j % n;
    let mut triangles = Vec::new();
    for j in 0..n {
        triangles.push([0, ring(0, j + 1), ring(0, j)]);
    }
    for i in 0..rings.len() - 1 {
        for j in 0..n {
            let (a, b) = (ring(i, j), ring(i, j + 1));
            let (c, d) = (ring(i + 1, j + 1), ring(i + 1, j));
            triangles.push([a, b, c]);
            triangles.push([a, c, d]);
        }
    }
    let last = rings.len() - 1;
    for j in 0..n {
        triangles.push([ring(last, j), ring(last, j + 1), top]);
    }
    TriMesh::new(vertices, triangles)
}
