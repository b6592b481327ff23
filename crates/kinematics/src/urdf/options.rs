//! [`UrdfOptions`]: how a URDF is loaded (package directories, tessellation, confinement,
//! which elements give the geometry), and the resolution of mesh URIs.

use std::path::{Path, PathBuf};

use crate::UriError;

/// How to load a URDF: where `package://` URIs point and how finely primitives are
/// tessellated. `Default` and the `with_*` builders:
///
/// ```
/// use ccd_kinematics::urdf::UrdfOptions;
/// let o = UrdfOptions::default().with_primitive_segments(8).with_package("arm", "/data/arm");
/// assert_eq!((o.primitive_segments, o.allow_outside_paths), (8, false));
/// ```
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct UrdfOptions {
    /// `(prefix, directory)` pairs: `package://PREFIX/rest` resolves to `directory/rest`.
    /// A prefix is a package name (`"panda_description"`) or a longer path
    /// (`"example-robot-data/robots/panda_description"`); the longest match wins.
    pub package_dirs: Vec<(String, PathBuf)>,
    /// Vertices around the axis of tessellated cylinders, spheres and capsules (at least 3,
    /// at most [`UrdfOptions::MAX_PRIMITIVE_SEGMENTS`]; default 16).
    pub primitive_segments: u32,
    /// Let mesh files lie outside the model directory and the package directories (default
    /// `false`: see "Confinement" in the [module docs](super)). Turn it on only for trusted
    /// documents.
    pub allow_outside_paths: bool,
    /// Which elements give the link geometry: `<collision>` (default) or `<visual>`.
    pub geometry: UrdfGeometry,
    /// Find the packages of `package://NAME/...` URIs that no
    /// [`package_dirs`](Self::package_dirs) prefix matches (default `true`): first in the
    /// model's own layout (a folder `NAME` or `NAME_description` that is the URDF directory
    /// or one of its ancestors, or a child of one of them), then in the
    /// [`ros_package_path`](Self::ros_package_path) directories. See "Packages" in the
    /// [module docs](super).
    pub search_packages: bool,
    /// The colon-separated directories searched for packages (folders with a `package.xml`)
    /// after the model's own layout; `None` (default) reads the `ROS_PACKAGE_PATH`
    /// environment variable when loading.
    pub ros_package_path: Option<String>,
}

/// Which URDF elements give each link's geometry ([`UrdfOptions::geometry`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum UrdfGeometry {
    /// The `<collision>` elements (usually simplified meshes).
    #[default]
    Collision,
    /// The `<visual>` elements (the detailed meshes robots are drawn with).
    Visual,
}

impl Default for UrdfOptions {
    fn default() -> Self {
        Self {
            package_dirs: Vec::new(),
            primitive_segments: 16,
            allow_outside_paths: false,
            geometry: UrdfGeometry::Collision,
            search_packages: true,
            ros_package_path: None,
        }
    }
}

impl UrdfOptions {
    /// Largest [`primitive_segments`](Self::primitive_segments): a sphere then has
    /// 256 × 128 vertices.
    pub const MAX_PRIMITIVE_SEGMENTS: u32 = 256;

    /// How many directories up from the URDF's directory the package search looks
    /// ([`search_packages`](Self::search_packages)).
    pub const MAX_PACKAGE_SEARCH_LEVELS: usize = 8;

    /// How many entries of one `ros_package_path` directory the package search lists when
    /// looking one level down for a package folder.
    pub const MAX_PACKAGE_PATH_ENTRIES: usize = 4096;

    /// These options with the package search ([`search_packages`](Self::search_packages))
    /// on or off.
    #[must_use]
    pub fn with_search_packages(mut self, search_packages: bool) -> Self {
        self.search_packages = search_packages;
        self
    }

    /// These options searching `ros_package_path` (colon-separated directories) instead of
    /// the `ROS_PACKAGE_PATH` environment variable.
    ///
    /// # Example
    /// ```
    /// use ccd_kinematics::urdf::UrdfOptions;
    ///
    /// let o = UrdfOptions::default().with_ros_package_path("/opt/ros/share:/home/me/ws/src");
    /// assert_eq!(o.ros_package_path.as_deref(), Some("/opt/ros/share:/home/me/ws/src"));
    /// assert!(o.search_packages);
    /// ```
    #[must_use]
    pub fn with_ros_package_path(mut self, ros_package_path: impl Into<String>) -> Self {
        self.ros_package_path = Some(ros_package_path.into());
        self
    }

    /// These options with one more `package://` prefix mapped to `dir`.
    ///
    /// # Example
    /// ```
    /// use ccd_kinematics::urdf::UrdfOptions;
    /// use std::path::Path;
    ///
    /// let opts = UrdfOptions::default().with_package("robots/arm_description", "/data/arm");
    /// let path = opts.resolve_uri("package://robots/arm_description/meshes/a.stl", Path::new("."));
    /// assert_eq!(path.unwrap(), Path::new("/data/arm/meshes/a.stl"));
    /// ```
    #[must_use]
    pub fn with_package(mut self, prefix: impl Into<String>, dir: impl Into<PathBuf>) -> Self {
        self.package_dirs.push((prefix.into(), dir.into()));
        self
    }

    /// These options with the `(prefix, directory)` pairs `package_dirs` (replacing any).
    #[must_use]
    pub fn with_package_dirs(mut self, package_dirs: Vec<(String, PathBuf)>) -> Self {
        self.package_dirs = package_dirs;
        self
    }

    /// These options tessellating primitives with `primitive_segments` vertices around the
    /// axis (checked when loading: at least 3, at most
    /// [`MAX_PRIMITIVE_SEGMENTS`](Self::MAX_PRIMITIVE_SEGMENTS)).
    #[must_use]
    pub fn with_primitive_segments(mut self, primitive_segments: u32) -> Self {
        self.primitive_segments = primitive_segments;
        self
    }

    /// These options letting mesh files lie outside the model and package directories
    /// (`true` only for trusted documents).
    #[must_use]
    pub fn with_allow_outside_paths(mut self, allow_outside_paths: bool) -> Self {
        self.allow_outside_paths = allow_outside_paths;
        self
    }

    /// These options reading link geometry from `geometry`'s elements.
    ///
    /// # Example
    /// ```
    /// use ccd_kinematics::urdf::{UrdfGeometry, UrdfOptions, UrdfRobot};
    ///
    /// let urdf = r#"<robot name="r"><link name="a">
    ///     <visual><geometry><box size="2 2 2"/></geometry></visual>
    ///     <collision><geometry><box size="1 1 1"/></geometry></collision></link></robot>"#;
    /// let visual = UrdfOptions::default().with_geometry(UrdfGeometry::Visual);
    /// let robot = UrdfRobot::parse(urdf, ".", &visual)?;
    /// assert_eq!(robot.collisions[0][0].mesh.aabb().max.x, 1.0); // the 2 m visual box
    /// let robot = UrdfRobot::parse(urdf, ".", &UrdfOptions::default())?;
    /// assert_eq!(robot.collisions[0][0].mesh.aabb().max.x, 0.5); // the 1 m collision box
    /// # Ok::<(), ccd_kinematics::KinematicsError>(())
    /// ```
    #[must_use]
    pub fn with_geometry(mut self, geometry: UrdfGeometry) -> Self {
        self.geometry = geometry;
        self
    }

    /// The file a mesh `filename` refers to (see the [module docs](super)); `base_dir` is the
    /// URDF's directory.
    ///
    /// This only maps the URI to a path; the loader then checks that the file lies inside
    /// the allowed directories (unless [`allow_outside_paths`](Self::allow_outside_paths)).
    ///
    /// # Errors
    /// [`UriError::UnknownPackage`] when no package prefix matches,
    /// [`UriError::UnsupportedScheme`] when the scheme is not `package://` or `file://`.
    ///
    /// # Example
    /// ```
    /// use ccd_kinematics::urdf::UrdfOptions;
    /// use ccd_kinematics::UriError;
    /// use std::path::Path;
    ///
    /// let opts = UrdfOptions::default().with_package("arm", "/pkgs/arm");
    /// let base = Path::new("/robots/urdf");
    /// assert_eq!(opts.resolve_uri("../meshes/a.stl", base).unwrap(), base.join("../meshes/a.stl"));
    /// assert_eq!(opts.resolve_uri("package://arm/a.obj", base).unwrap(), Path::new("/pkgs/arm/a.obj"));
    /// assert_eq!(opts.resolve_uri("file:///abs/a.ply", base).unwrap(), Path::new("/abs/a.ply"));
    /// assert!(matches!(opts.resolve_uri("package://other/a.stl", base), Err(UriError::UnknownPackage { .. })));
    /// assert!(matches!(opts.resolve_uri("https://example.invalid/a.stl", base), Err(UriError::UnsupportedScheme { .. })));
    /// ```
    pub fn resolve_uri(&self, uri: &str, base_dir: &Path) -> Result<PathBuf, UriError> {
        if let Some(rest) = uri.strip_prefix("package://") {
            // `package:///name/...` (an empty authority, as some exporters write) is read as
            // `package://name/...`
            let rest = rest.trim_start_matches('/');
            let mut best: Option<(usize, &Path)> = None;
            for (prefix, dir) in &self.package_dirs {
                let p = prefix.trim_matches('/');
                let matches = !p.is_empty()
                    && rest.starts_with(p)
                    && (rest.len() == p.len() || rest[p.len()..].starts_with('/'));
                if matches && best.is_none_or(|(len, _)| p.len() > len) {
                    best = Some((p.len(), dir));
                }
            }
            match best {
                Some((len, dir)) => Ok(dir.join(rest[len..].trim_start_matches('/'))),
                None => Err(UriError::UnknownPackage {
                    package: rest.split('/').next().unwrap_or(rest).to_owned(),
                }),
            }
        } else if let Some(path) = uri.strip_prefix("file://") {
            Ok(PathBuf::from(path))
        } else if let Some((scheme, _)) = uri.split_once("://") {
            Err(UriError::UnsupportedScheme {
                scheme: scheme.to_owned(),
            })
        } else {
            Ok(base_dir.join(uri))
        }
    }
}
