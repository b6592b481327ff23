//! The geometry of one `<collision>` (or `<visual>`) element: primitives checked and
//! tessellated, mesh files resolved, confined to the allowed directories, loaded once per file
//! and scale, and scaled.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ccd_geometry::TriMesh;
use glam::DVec3;

use super::links::origin;
use super::{Collision, CollisionGeometry, UrdfOptions, shapes};
use crate::KinematicsError;

/// A positive finite dimension, or an error naming it.
fn positive(value: f64, what: &str, link: &str) -> Result<f64, KinematicsError> {
    if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(KinematicsError::InvalidUrdf(format!(
            "a collision {what} of link {link:?} is {value} (must be positive and finite)"
        )))
    }
}

/// Where mesh files are looked up and which directories they must lie in.
pub(super) struct MeshContext<'a> {
    pub(super) base_dir: &'a Path,
    pub(super) options: &'a UrdfOptions,
    /// Canonical allowed directories; `None` when confinement is off.
    pub(super) roots: Option<&'a [PathBuf]>,
}

/// The canonical path of `path` when it exists and lies inside one of `roots`.
fn confined(path: &Path, roots: &[PathBuf]) -> Option<PathBuf> {
    let canonical = path.canonicalize().ok()?;
    roots
        .iter()
        .any(|r| canonical.starts_with(r))
        .then_some(canonical)
}

/// One `<collision>` element: its origin and geometry, with the mesh loaded or tessellated.
pub(super) fn collision(
    link: &str,
    c: &urdf_rs::Collision,
    ctx: &MeshContext<'_>,
    cache: &mut HashMap<(PathBuf, [u64; 3]), Arc<TriMesh>>,
) -> Result<Collision, KinematicsError> {
    use urdf_rs::Geometry as G;
    let options = ctx.options;
    let origin = origin(&c.origin, &format!("a collision of link {link:?}"))?;
    let segments = options.primitive_segments.max(3);
    let tessellation_failed = || {
        KinematicsError::InvalidUrdf(format!(
            "a collision primitive of link {link:?} cannot be tessellated"
        ))
    };
    let (geometry, mesh) = match &c.geometry {
        G::Box { size } => {
            let size = DVec3::from_array(size.0);
            for s in size.to_array() {
                positive(s, "box size", link)?;
            }
            let mesh = shapes::box_mesh(size).ok_or_else(tessellation_failed)?;
            (CollisionGeometry::Box { size }, Arc::new(mesh))
        }
        G::Cylinder { radius, length } => {
            let (radius, length) = (
                positive(*radius, "cylinder radius", link)?,
                positive(*length, "cylinder length", link)?,
            );
            let mesh =
                shapes::cylinder_mesh(radius, length, segments).ok_or_else(tessellation_failed)?;
            (
                CollisionGeometry::Cylinder { radius, length },
                Arc::new(mesh),
            )
        }
        G::Capsule { radius, length } => {
            let radius = positive(*radius, "capsule radius", link)?;
            let length = if *length == 0.0 {
                0.0
            } else {
                positive(*length, "capsule length", link)?
            };
            let mesh =
                shapes::capsule_mesh(radius, length, segments).ok_or_else(tessellation_failed)?;
            (
                CollisionGeometry::Capsule { radius, length },
                Arc::new(mesh),
            )
        }
        G::Sphere { radius } => {
            let radius = positive(*radius, "sphere radius", link)?;
            let mesh = shapes::sphere_mesh(radius, segments).ok_or_else(tessellation_failed)?;
            (CollisionGeometry::Sphere { radius }, Arc::new(mesh))
        }
        G::Mesh { filename, scale } => {
            let scale = scale.map_or(DVec3::ONE, |s| DVec3::from_array(s.0));
            if !scale.is_finite() || scale.x * scale.y * scale.z == 0.0 {
                return Err(KinematicsError::InvalidUrdf(format!(
                    "collision mesh {filename:?} of link {link:?} has scale {scale} \
                     (components must be non-zero and finite)"
                )));
            }
            let path = options
                .resolve_uri(filename, ctx.base_dir)
                .map_err(|reason| KinematicsError::UnresolvedUri {
                    link: link.to_owned(),
                    uri: filename.clone(),
                    reason,
                })?;
            let path = match ctx.roots {
                None => path,
                Some(roots) => {
                    confined(&path, roots).ok_or_else(|| KinematicsError::MeshUnavailable {
                        link: link.to_owned(),
                        uri: filename.clone(),
                    })?
                }
            };
            let key = (path.clone(), scale.to_array().map(f64::to_bits));
            let mesh = match cache.get(&key) {
                Some(m) => Arc::clone(m),
                None => {
                    let m = Arc::new(load_mesh(link, filename, &path, scale)?);
                    cache.insert(key, Arc::clone(&m));
                    m
                }
            };
            (
                CollisionGeometry::Mesh {
                    uri: filename.clone(),
                    path,
                    scale,
                },
                mesh,
            )
        }
    };
    Ok(Collision {
        name: c.name.clone(),
        origin,
        geometry,
        mesh,
    })
}

/// Reads a collision mesh file and bakes in its scale.
fn load_mesh(link: &str, uri: &str, path: &Path, scale: DVec3) -> Result<TriMesh, KinematicsError> {
    if !path.is_file() {
        return Err(KinematicsError::MissingMesh {
            link: link.to_owned(),
            uri: uri.to_owned(),
            path: path.to_path_buf(),
        });
    }
    let load_error = |reason: String| KinematicsError::MeshLoad {
        link: link.to_owned(),
        path: path.to_path_buf(),
        reason,
    };
    let mesh = ccd_geometry::io::read_mesh(path).map_err(|e| load_error(e.to_string()))?;
    if scale == DVec3::ONE {
        return Ok(mesh);
    }
    shapes::scaled(&mesh, scale)
        .ok_or_else(|| load_error(format!("scaling by {scale} gives non-finite vertices")))
}
