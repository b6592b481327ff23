//! Loading a [`UrdfRobot`] from a file or a string: the pre-pass, `urdf-rs`, package search,
//! the link tree and each link's collision geometry.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ccd_geometry::TriMesh;

use super::geometry::{MeshContext, collision};
use super::links::link_specs;
use super::packages::with_found_packages;
use super::xml::{scan, with_texture_filenames};
use super::{UrdfGeometry, UrdfOptions, UrdfRobot};
use crate::{ArticulatedModel, KinematicsError};

impl UrdfRobot {
    /// Loads a URDF file; relative mesh paths are resolved against its directory.
    ///
    /// # Errors
    /// [`KinematicsError::FileRead`] when the file cannot be read, and everything
    /// [`UrdfRobot::parse`] reports.
    ///
    /// # Example
    /// ```
    /// use ccd_kinematics::urdf::{UrdfOptions, UrdfRobot};
    ///
    /// let dir = std::env::temp_dir().join(format!("ccd-urdf-doc-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir).unwrap();
    /// std::fs::write(
    ///     dir.join("tri.stl"),
    ///     "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\n\
    ///      endloop\nendfacet\nendsolid t\n",
    /// )
    /// .unwrap();
    /// std::fs::write(
    ///     dir.join("one.urdf"),
    ///     r#"<robot name="one"><link name="base"><collision><geometry>
    ///        <mesh filename="tri.stl" scale="2 2 2"/></geometry></collision></link></robot>"#,
    /// )
    /// .unwrap();
    /// let robot = UrdfRobot::from_file(dir.join("one.urdf"), &UrdfOptions::default());
    /// std::fs::remove_dir_all(&dir).ok();
    /// let robot = robot?;
    /// assert_eq!(robot.collisions[0][0].mesh.aabb().max.x, 2.0);
    /// # Ok::<(), ccd_kinematics::KinematicsError>(())
    /// ```
    pub fn from_file(
        path: impl AsRef<Path>,
        options: &UrdfOptions,
    ) -> Result<Self, KinematicsError> {
        let path = path.as_ref();
        if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("xacro"))
        {
            return Err(KinematicsError::Xacro {
                source_name: path.display().to_string(),
                reason: "the file name ends in .xacro".into(),
            });
        }
        let text = std::fs::read_to_string(path).map_err(|e| KinematicsError::FileRead {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })?;
        let base = path.parent().unwrap_or(Path::new("."));
        Self::load(&text, &path.display().to_string(), base, options)
    }

    /// Loads a URDF document given as text; relative mesh paths are resolved against
    /// `base_dir`.
    ///
    /// # Errors
    /// - [`KinematicsError::UrdfParse`]: malformed XML (with its line), a root element
    ///   other than `<robot>`, missing or unparsable elements and attributes.
    /// - [`KinematicsError::Xacro`]: a xacro document (`<xacro:...>` elements or attributes,
    ///   `${...}` / `$(...)` substitutions in attribute values; [`UrdfRobot::from_file`] also
    ///   rejects a file name ending in `.xacro`), which must be expanded first.
    /// - [`KinematicsError::UnknownJointType`], [`KinematicsError::UnsupportedJointType`]
    ///   (`planar`).
    /// - [`KinematicsError::UnknownLink`]: a joint's parent or child does not exist.
    /// - [`KinematicsError::LinkWithTwoParents`], [`KinematicsError::UrdfCycle`].
    /// - [`KinematicsError::InvalidUrdf`]: no links, duplicate link or joint names, several
    ///   roots, a zero or non-finite axis, origin or dimension, a revolute or prismatic
    ///   joint without `<limit>`, `lower > upper`, a zero or non-finite mesh scale.
    /// - [`KinematicsError::UnresolvedUri`], [`KinematicsError::MeshUnavailable`] (missing,
    ///   unreadable or outside the allowed directories), [`KinematicsError::MeshLoad`] (not a
    ///   mesh) for collision meshes; [`KinematicsError::MissingMesh`] instead of
    ///   `MeshUnavailable` with [`UrdfOptions::allow_outside_paths`].
    /// - [`KinematicsError::TooManySegments`] when [`UrdfOptions::primitive_segments`]
    ///   exceeds [`UrdfOptions::MAX_PRIMITIVE_SEGMENTS`].
    ///
    /// # Example
    /// ```
    /// use ccd_kinematics::urdf::{UrdfOptions, UrdfRobot};
    /// use ccd_kinematics::KinematicsError;
    ///
    /// let bad = r#"<robot name="r"><link name="a"/><link name="b"/>
    ///   <joint name="j" type="hinge"><parent link="a"/><child link="b"/></joint></robot>"#;
    /// let err = UrdfRobot::parse(bad, ".", &UrdfOptions::default()).unwrap_err();
    /// assert!(matches!(err, KinematicsError::UnknownJointType { ref kind, .. } if kind == "hinge"));
    /// ```
    pub fn parse(
        text: &str,
        base_dir: impl AsRef<Path>,
        options: &UrdfOptions,
    ) -> Result<Self, KinematicsError> {
        Self::load(text, "<string>", base_dir.as_ref(), options)
    }

    fn load(
        text: &str,
        source_name: &str,
        base_dir: &Path,
        options: &UrdfOptions,
    ) -> Result<Self, KinematicsError> {
        if options.primitive_segments > UrdfOptions::MAX_PRIMITIVE_SEGMENTS {
            return Err(KinematicsError::TooManySegments {
                segments: options.primitive_segments,
                max: UrdfOptions::MAX_PRIMITIVE_SEGMENTS,
            });
        }
        let scans = scan(text, source_name)?;
        let text = with_texture_filenames(text);
        let robot = urdf_rs::read_from_string(&text).map_err(|e| KinematicsError::UrdfParse {
            source_name: source_name.to_owned(),
            reason: e.to_string(),
        })?;
        let searched;
        let options = if options.search_packages {
            searched = with_found_packages(&robot, base_dir, options);
            &searched
        } else {
            options
        };
        let (specs, joint_of_link) = link_specs(&robot, &scans)?;
        let model = ArticulatedModel::new(specs)?;

        let by_name: HashMap<&str, usize> = robot
            .links
            .iter()
            .enumerate()
            .map(|(i, l)| (l.name.as_str(), i))
            .collect();
        let mut cache: HashMap<(PathBuf, [u64; 3]), Arc<TriMesh>> = HashMap::new();
        // the directories mesh files must lie in (canonical), unless confinement is off
        let roots = (!options.allow_outside_paths).then(|| {
            std::iter::once(base_dir)
                .chain(options.package_dirs.iter().map(|(_, d)| d.as_path()))
                .filter_map(|d| d.canonicalize().ok())
                .collect::<Vec<_>>()
        });
        let ctx = MeshContext {
            base_dir,
            options,
            roots: roots.as_deref(),
        };
        let mut collisions = Vec::with_capacity(model.len());
        let mut joint_names = Vec::with_capacity(model.len());
        for link in model.links() {
            let i = by_name[link.name.as_str()];
            joint_names.push(joint_of_link[i].map(|j| robot.joints[j].name.clone()));
            let visuals: Vec<urdf_rs::Collision>;
            let elements: &[urdf_rs::Collision] = match options.geometry {
                UrdfGeometry::Collision => &robot.links[i].collision,
                UrdfGeometry::Visual => {
                    visuals = robot.links[i]
                        .visual
                        .iter()
                        .map(|v| urdf_rs::Collision {
                            name: v.name.clone(),
                            origin: v.origin.clone(),
                            geometry: v.geometry.clone(),
                        })
                        .collect();
                    &visuals
                }
            };
            let mut shapes = Vec::with_capacity(elements.len());
            for c in elements {
                shapes.push(collision(&link.name, c, &ctx, &mut cache)?);
            }
            collisions.push(shapes);
        }
        Ok(Self {
            name: robot.name,
            model,
            joint_names,
            collisions,
        })
    }
}
