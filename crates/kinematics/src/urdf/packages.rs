//! Finding the folder of a `package://NAME/...` URI without a hand-written map: the model's
//! own layout first, then `ROS_PACKAGE_PATH` (see "Packages" in the [module docs](super)).
//! [`with_found_packages`] adds the folders found for a robot's mesh URIs to its options.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::{UrdfGeometry, UrdfOptions};
use crate::UriError;

/// Whether `dir` looks like a ROS package or a robot description folder: it has a
/// `package.xml`, or a `meshes/`, `urdf/` or `robots/` folder. A folder found by name
/// alone (not an ancestor of the model) must pass this, so that `package://etc/...` does not
/// name `/etc`.
fn looks_like_package(dir: &Path) -> bool {
    dir.join("package.xml").is_file()
        || ["meshes", "urdf", "robots"]
            .iter()
            .any(|sub| dir.join(sub).is_dir())
}

/// Whether `dir/package.xml` exists and, when it has a `<name>`, names `name`.
fn is_ros_package(dir: &Path, name: &str) -> bool {
    let Ok(text) = std::fs::read_to_string(dir.join("package.xml")) else {
        return false;
    };
    match text
        .split_once("<name>")
        .and_then(|(_, rest)| rest.split_once("</name>"))
    {
        Some((declared, _)) => declared.trim() == name,
        None => dir.file_name().is_some_and(|f| f == name),
    }
}

/// The folder of package `name`, or `None`: see [`UrdfOptions::search_packages`].
pub(super) fn find_package(name: &str, base_dir: &Path, options: &UrdfOptions) -> Option<PathBuf> {
    if name.is_empty() || name == "." || name == ".." || name.contains(['/', '\\']) {
        return None;
    }
    let described = format!("{name}_description");
    let base = base_dir.canonicalize().ok()?;
    for ancestor in base
        .ancestors()
        .take(UrdfOptions::MAX_PACKAGE_SEARCH_LEVELS + 1)
    {
        if ancestor
            .file_name()
            .is_some_and(|f| f == name || f.to_str() == Some(described.as_str()))
        {
            return Some(ancestor.to_path_buf());
        }
        for candidate in [ancestor.join(name), ancestor.join(&described)] {
            if candidate.is_dir() && looks_like_package(&candidate) {
                return Some(candidate);
            }
        }
    }
    let env;
    let path = match &options.ros_package_path {
        Some(p) => p.as_str(),
        None => {
            env = std::env::var("ROS_PACKAGE_PATH").unwrap_or_default();
            env.as_str()
        }
    };
    for dir in path.split(':').filter(|d| !d.is_empty()).map(Path::new) {
        if dir.file_name().is_some_and(|f| f == name) && is_ros_package(dir, name) {
            return Some(dir.to_path_buf());
        }
        let direct = dir.join(name);
        if is_ros_package(&direct, name) {
            return Some(direct);
        }
        // one level of grouping (a workspace's `src/` holding repositories of packages),
        // listing at most MAX_PACKAGE_PATH_ENTRIES entries
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        for entry in entries
            .flatten()
            .take(UrdfOptions::MAX_PACKAGE_PATH_ENTRIES)
        {
            let group = entry.path();
            let nested = group.join(name);
            if is_ros_package(&nested, name) {
                return Some(nested);
            }
            if group.is_dir() && group.file_name().is_some_and(|f| f != name) {
                // a package folder named differently from its package.xml <name>
                if is_ros_package(&group, name) {
                    return Some(group);
                }
            }
        }
    }
    None
}

/// `options` with a directory for every package named by a mesh URI of the elements
/// `options.geometry` reads that no prefix of `options.package_dirs` matches and that
/// [`find_package`] finds.
pub(super) fn with_found_packages(
    robot: &urdf_rs::Robot,
    base_dir: &Path,
    options: &UrdfOptions,
) -> UrdfOptions {
    let mut out = options.clone();
    let mut tried: HashSet<String> = HashSet::new();
    let geometries: Vec<&urdf_rs::Geometry> = robot
        .links
        .iter()
        .flat_map(|l| -> Vec<&urdf_rs::Geometry> {
            match options.geometry {
                UrdfGeometry::Collision => l.collision.iter().map(|c| &c.geometry).collect(),
                UrdfGeometry::Visual => l.visual.iter().map(|v| &v.geometry).collect(),
            }
        })
        .collect();
    for g in geometries {
        let urdf_rs::Geometry::Mesh { filename, .. } = g else {
            continue;
        };
        let Err(UriError::UnknownPackage { package }) = out.resolve_uri(filename, base_dir) else {
            continue;
        };
        if tried.insert(package.clone())
            && let Some(dir) = find_package(&package, base_dir, options)
        {
            out.package_dirs.push((package, dir));
        }
    }
    out
}
