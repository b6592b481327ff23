//! Articulated bodies from URDF (+ SRDF) files (feature `urdf`).

use std::path::Path;

use ccd_kinematics::LinkId;
use ccd_kinematics::urdf::{UrdfOptions, UrdfRobot, read_srdf_disabled_pairs};

use crate::{ArticulatedBody, ArticulatedError};

impl ArticulatedBody {
    /// Loads a URDF with its link meshes and, when given, an SRDF whose
    /// `disable_collisions` pairs join the self-collision filter. Returns the body and the
    /// loaded robot (joint names → indices in `q` through [`UrdfRobot::joint_index`]).
    ///
    /// Link geometry is the URDF's `<collision>` elements, or its `<visual>` ones with
    /// [`UrdfOptions::geometry`] = [`UrdfGeometry::Visual`](ccd_kinematics::urdf::UrdfGeometry)
    /// (the user's choice; all of a link's shapes merged in the link frame,
    /// [`UrdfRobot::link_mesh`]). A link without such geometry takes part in the kinematics
    /// only (not an error); a missing mesh file is
    /// [`ccd_kinematics::KinematicsError::MeshUnavailable`] (or `MissingMesh` with confinement
    /// turned off), which names it.
    ///
    /// # Errors
    /// Every error of [`UrdfRobot::from_file`] and [`read_srdf_disabled_pairs`] as
    /// [`ArticulatedError::Kinematics`]; [`ArticulatedError::LinkGeometry`] when a link mesh
    /// cannot be turned into a hierarchy.
    ///
    /// # Example
    /// ```
    /// use ccd_ca_articulated::ArticulatedBody;
    /// use ccd_kinematics::urdf::UrdfOptions;
    ///
    /// let dir = std::env::temp_dir().join(format!("ccd-art-urdf-doc-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir).unwrap();
    /// std::fs::write(dir.join("arm.urdf"), r#"<robot name="arm">
    ///   <link name="base"><collision><geometry><box size="0.2 0.2 0.2"/></geometry></collision></link>
    ///   <link name="upper"><collision><origin xyz="0 0 0.5"/><geometry><box size="0.1 0.1 1"/></geometry></collision></link>
    ///   <link name="hand"><collision><geometry><sphere radius="0.05"/></geometry></collision></link>
    ///   <joint name="shoulder" type="revolute"><origin xyz="0 0 0.1"/><parent link="base"/><child link="upper"/>
    ///     <axis xyz="0 1 0"/><limit lower="-2" upper="2" effort="1" velocity="1"/></joint>
    ///   <joint name="wrist" type="fixed"><origin xyz="0 0 1"/><parent link="upper"/><child link="hand"/></joint>
    /// </robot>"#).unwrap();
    /// std::fs::write(dir.join("arm.srdf"), r#"<robot name="arm">
    ///   <disable_collisions link1="base" link2="hand" reason="Never"/></robot>"#).unwrap();
    /// let loaded = ArticulatedBody::from_urdf(dir.join("arm.urdf"), Some(&dir.join("arm.srdf")), &UrdfOptions::default());
    /// std::fs::remove_dir_all(&dir).ok();
    /// let (body, robot) = loaded?;
    /// assert_eq!(robot.joint_index("shoulder"), Some(0));
    /// assert_eq!(body.self_pairs().count(), 0); // base–upper adjacent, upper–hand fixed, base–hand disabled
    /// # Ok::<(), ccd_ca_articulated::ArticulatedError>(())
    /// ```
    #[cfg_attr(docsrs, doc(cfg(feature = "urdf")))]
    pub fn from_urdf(
        urdf: impl AsRef<Path>,
        srdf: Option<&Path>,
        options: &UrdfOptions,
    ) -> Result<(Self, UrdfRobot), ArticulatedError> {
        let robot = UrdfRobot::from_file(urdf, options)?;
        let mut body = Self::from_urdf_robot(&robot)?;
        if let Some(srdf) = srdf {
            let pairs = read_srdf_disabled_pairs(srdf, &robot.model)?;
            body.disable_pairs(pairs)?;
        }
        Ok((body, robot))
    }

    /// The body of an already loaded [`UrdfRobot`] (its link meshes merged per link), with
    /// only the built-in self-collision filter.
    ///
    /// # Errors
    /// [`ArticulatedError::LinkGeometry`] when a link mesh cannot be turned into a hierarchy.
    ///
    /// # Example
    /// ```
    /// use ccd_ca_articulated::ArticulatedBody;
    /// use ccd_kinematics::urdf::{UrdfOptions, UrdfRobot};
    ///
    /// let robot = UrdfRobot::parse(
    ///     r#"<robot name="r"><link name="a"><collision><geometry><box size="1 1 1"/></geometry></collision></link></robot>"#,
    ///     ".",
    ///     &UrdfOptions::default(),
    /// )?;
    /// let body = ArticulatedBody::from_urdf_robot(&robot)?;
    /// assert!(body.link_shape(robot.model.root()).is_some());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[cfg_attr(docsrs, doc(cfg(feature = "urdf")))]
    pub fn from_urdf_robot(robot: &UrdfRobot) -> Result<Self, ArticulatedError> {
        let meshes = (0..robot.model.len() as u32)
            .map(|i| robot.link_mesh(LinkId(i)))
            .collect();
        Self::from_meshes(robot.model.clone(), meshes)
    }
}
