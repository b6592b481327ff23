//! Robots of the `example-robot-data` package (installed by `cargo xtask robots`) load with
//! no package map: `package://` URIs are found from the package's own layout. COLLADA
//! collision meshes load with their unit and node transforms (checked against the STL
//! collision meshes of the same links), and xacro documents, missing meshes, `.dae` files
//! without triangles and cyclic URDFs are typed errors.
//!
//! The package folder is exported by `build.rs` (`CCD_ROBOT_DATA_ROBOTS`, `CCD_ROBOT_UR`,
//! `CCD_ROBOT_TIAGO`); a missing folder fails these tests, naming `cargo xtask robots`.
#![cfg(feature = "urdf")]

use std::path::{Path, PathBuf};

use ccd_kinematics::KinematicsError;
use ccd_kinematics::urdf::{CollisionGeometry, UrdfGeometry, UrdfOptions, UrdfRobot};

/// `robots/NAME` of the installed package (a link to `NAME_description`).
fn package_robot(name: &str) -> PathBuf {
    let dir = match name {
        "ur" => PathBuf::from(env!("CCD_ROBOT_UR")),
        "tiago" => PathBuf::from(env!("CCD_ROBOT_TIAGO")),
        _ => Path::new(env!("CCD_ROBOT_DATA_ROBOTS")).join(name),
    };
    assert!(
        dir.is_dir(),
        "{} is missing: run `cargo xtask robots` (installs example-robot-data into target/robot-data)",
        dir.display()
    );
    dir
}

fn load(name: &str, file: &str, geometry: UrdfGeometry) -> UrdfRobot {
    let path = package_robot(name).join(file);
    let opts = UrdfOptions::default().with_geometry(geometry);
    UrdfRobot::from_file(&path, &opts).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Mesh extensions (lower case) used by the robot's collision shapes.
fn extensions(robot: &UrdfRobot) -> Vec<String> {
    let mut out: Vec<String> = robot
        .collisions
        .iter()
        .flatten()
        .filter_map(|c| match &c.geometry {
            CollisionGeometry::Mesh { path, .. } => {
                path.extension().map(|e| e.to_string_lossy().to_lowercase())
            }
            _ => None,
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

#[test]
fn panda_pr2_ur_and_tiago_load_without_a_package_map() {
    for (name, file, dof, formats) in [
        ("panda", "urdf/panda.urdf", 9, &["stl"][..]),
        ("pr2", "urdf/pr2.urdf", 0, &["stl"][..]),
        ("ur", "urdf/ur5_robot.urdf", 6, &["stl"][..]),
        ("ur", "urdf/ur10_robot.urdf", 6, &["stl"][..]),
        ("tiago", "robots/tiago.urdf", 0, &["dae", "stl"][..]),
    ] {
        let robot = load(name, file, UrdfGeometry::Collision);
        let with_geometry = robot.collisions.iter().filter(|c| !c.is_empty()).count();
        let exts = extensions(&robot);
        eprintln!(
            "{name} {file}: {} links ({with_geometry} with geometry), {} dof, meshes {exts:?}",
            robot.model.len(),
            robot.model.dof()
        );
        assert!(
            with_geometry >= 6,
            "{file}: {with_geometry} links with geometry"
        );
        if dof > 0 {
            assert_eq!(robot.model.dof(), dof, "{file}");
        }
        for f in formats {
            assert!(
                exts.iter().any(|e| e == f),
                "{file}: no .{f} mesh in {exts:?}"
            );
        }
    }
}

/// The UR arms' visual meshes are COLLADA, their collision meshes STL of the same shapes:
/// every link's visual box (unit and node transforms applied) matches its collision box, to
/// 1 mm on the UR5 (measured: at most 0.5 mm) and 3 cm on the UR10 (whose upper-arm
/// collision mesh leaves out a 2.6 cm protrusion of the visual one; the other six links
/// agree to 0.3 mm). A wrong unit would be 1000× off, an applied Y-up rotation would swap
/// the axes.
#[test]
fn collada_visuals_of_the_ur5_match_its_stl_collision_meshes() {
    for (file, tolerance) in [
        ("urdf/ur5_robot.urdf", 1e-3),
        ("urdf/ur10_robot.urdf", 0.03),
    ] {
        let visual = load("ur", file, UrdfGeometry::Visual);
        let collision = load("ur", file, UrdfGeometry::Collision);
        let mut compared = 0;
        for (i, link) in visual.model.links().iter().enumerate() {
            let is_dae = visual.collisions[i].iter().any(|c| {
                matches!(&c.geometry, CollisionGeometry::Mesh { path, .. }
                    if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("dae")))
            });
            let (Some(v), Some(c)) = (
                visual.link_mesh(ccd_kinematics::LinkId(i as u32)),
                collision.link_mesh(ccd_kinematics::LinkId(i as u32)),
            ) else {
                continue;
            };
            if !is_dae {
                continue;
            }
            let (bv, bc) = (v.aabb(), c.aabb());
            let gap = (bv.min - bc.min)
                .abs()
                .max((bv.max - bc.max).abs())
                .max_element();
            eprintln!(
                "{file} {}: visual .dae box {:?}..{:?}, collision .stl box {:?}..{:?}, largest gap {gap:.4} m",
                link.name, bv.min, bv.max, bc.min, bc.max
            );
            assert!(gap < tolerance, "{}: boxes differ by {gap} m", link.name);
            compared += 1;
        }
        assert!(compared >= 6, "{file}: {compared} links compared");
    }
}

/// A scratch folder removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("ccd-registry-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }
    fn write(&self, rel: &str, text: &str) -> PathBuf {
        let p = self.0.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
        p
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

const TRI_STL: &str = "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\n\
                       vertex 0 1 0\nendloop\nendfacet\nendsolid t\n";

fn one_link(filename: &str) -> String {
    format!(
        r#"<robot name="r"><link name="base"><collision><geometry>
           <mesh filename="{filename}"/></geometry></collision></link></robot>"#
    )
}

/// A document with no instanced triangles: one geometry holding only lines.
const DAE_LINES: &str = r##"<?xml version="1.0"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <asset><unit meter="1"/><up_axis>Z_UP</up_axis></asset>
  <library_geometries><geometry id="g"><mesh>
    <source id="p"><float_array id="pa" count="6">0 0 0 1 0 0</float_array>
      <technique_common><accessor source="#pa" count="2" stride="3">
        <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
      </accessor></technique_common></source>
    <vertices id="v"><input semantic="POSITION" source="#p"/></vertices>
    <lines count="1"><input semantic="VERTEX" source="#v" offset="0"/><p>0 1</p></lines>
  </mesh></geometry></library_geometries>
</COLLADA>"##;

#[test]
fn packages_are_found_from_the_layout_and_from_ros_package_path() {
    let s = Scratch::new("pkgs");
    // the model inside its own package, meshes of a sibling package, and a third package
    // only on the ROS package path (with package.xml naming it)
    s.write("ws/arm_description/meshes/a.stl", TRI_STL);
    s.write("ws/tool_description/meshes/b.stl", TRI_STL);
    s.write(
        "elsewhere/src/repo/gripper/package.xml",
        "<package><name>gripper</name></package>",
    );
    s.write("elsewhere/src/repo/gripper/meshes/c.stl", TRI_STL);
    let urdf = s.write(
        "ws/arm_description/urdf/arm.urdf",
        r#"<robot name="r">
             <link name="a"><collision><geometry><mesh filename="package://arm_description/meshes/a.stl"/></geometry></collision></link>
             <link name="b"><collision><geometry><mesh filename="package://tool/meshes/b.stl"/></geometry></collision></link>
             <link name="c"><collision><geometry><mesh filename="package:///gripper/meshes/c.stl"/></geometry></collision></link>
             <joint name="ab" type="fixed"><parent link="a"/><child link="b"/></joint>
             <joint name="bc" type="fixed"><parent link="b"/><child link="c"/></joint>
           </robot>"#,
    );
    let ros = format!("/nonexistent:{}", s.0.join("elsewhere/src").display());
    let opts = UrdfOptions::default().with_ros_package_path(ros);
    let robot = UrdfRobot::from_file(&urdf, &opts).unwrap();
    assert!(robot.collisions.iter().all(|c| c.len() == 1));
    // without the ROS path the third package is unknown: a typed error naming it
    let opts = UrdfOptions::default().with_ros_package_path("");
    let err = UrdfRobot::from_file(&urdf, &opts).unwrap_err();
    assert!(
        matches!(&err, KinematicsError::UnresolvedUri { uri, .. } if uri.contains("gripper")),
        "{err}"
    );
    // with the search off, nothing but the explicit map
    let opts = UrdfOptions::default().with_search_packages(false);
    let err = UrdfRobot::from_file(&urdf, &opts).unwrap_err();
    assert!(
        matches!(err, KinematicsError::UnresolvedUri { .. }),
        "{err}"
    );
    // a package name that is an ordinary folder up the tree (no package.xml, meshes/, urdf/
    // or robots/ inside) is not taken: `package://etc/passwd` stays unresolved
    let etc = s.write(
        "ws/arm_description/urdf/etc.urdf",
        &one_link("package://etc/passwd"),
    );
    let err =
        UrdfRobot::from_file(&etc, &UrdfOptions::default().with_ros_package_path("")).unwrap_err();
    assert!(
        matches!(err, KinematicsError::UnresolvedUri { .. }),
        "{err}"
    );
}

#[test]
fn bad_robots_are_typed_errors() {
    let s = Scratch::new("bad");
    let opts = UrdfOptions::default().with_ros_package_path("");
    // a missing mesh
    let urdf = s.write("missing.urdf", &one_link("meshes/none.stl"));
    let err = UrdfRobot::from_file(&urdf, &opts).unwrap_err();
    assert!(
        matches!(err, KinematicsError::MeshUnavailable { .. }),
        "{err}"
    );
    let err =
        UrdfRobot::from_file(&urdf, &opts.clone().with_allow_outside_paths(true)).unwrap_err();
    assert!(matches!(err, KinematicsError::MissingMesh { .. }), "{err}");
    // a .dae without triangles, and a truncated one
    s.write("lines.dae", DAE_LINES);
    let urdf = s.write("lines.urdf", &one_link("lines.dae"));
    let err = UrdfRobot::from_file(&urdf, &opts).unwrap_err();
    assert!(
        matches!(&err, KinematicsError::MeshLoad { reason, .. } if reason.contains("no triangles")),
        "{err}"
    );
    s.write("cut.dae", &DAE_LINES[..200]);
    let urdf = s.write("cut.urdf", &one_link("cut.dae"));
    let err = UrdfRobot::from_file(&urdf, &opts).unwrap_err();
    assert!(matches!(err, KinematicsError::MeshLoad { .. }), "{err}");
    // a cycle of joints
    let cyclic = r#"<robot name="r"><link name="root"/><link name="a"/><link name="b"/>
        <joint name="ra" type="fixed"><parent link="root"/><child link="a"/></joint>
        <joint name="ab" type="fixed"><parent link="a"/><child link="b"/></joint>
        <joint name="ba" type="fixed"><parent link="b"/><child link="a"/></joint></robot>"#;
    let err = UrdfRobot::parse(cyclic, ".", &opts).unwrap_err();
    assert!(
        matches!(
            err,
            KinematicsError::UrdfCycle { .. } | KinematicsError::LinkWithTwoParents { .. }
        ),
        "{err}"
    );
    let cyclic = r#"<robot name="r"><link name="a"/><link name="b"/>
        <joint name="ab" type="fixed"><parent link="a"/><child link="b"/></joint>
        <joint name="ba" type="fixed"><parent link="b"/><child link="a"/></joint></robot>"#;
    let err = UrdfRobot::parse(cyclic, ".", &opts).unwrap_err();
    assert!(matches!(err, KinematicsError::UrdfCycle { .. }), "{err}");
}

#[test]
fn xacro_documents_are_rejected() {
    let opts = UrdfOptions::default();
    let cases = [
        r#"<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro">
             <xacro:property name="w" value="1"/><link name="a"/></robot>"#,
        r#"<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro">
             <link name="a"><collision><geometry><box size="${w} 1 1"/></geometry></collision></link></robot>"#,
        r#"<robot name="r"><link name="a"><collision><geometry>
             <mesh filename="$(find arm)/meshes/a.stl"/></geometry></collision></link></robot>"#,
    ];
    for text in cases {
        let err = UrdfRobot::parse(text, ".", &opts).unwrap_err();
        assert!(matches!(err, KinematicsError::Xacro { .. }), "{err}");
        assert!(err.to_string().contains("expand it first"), "{err}");
    }
    // an expanded document that only declares the namespace (and mentions ${...} in a
    // comment) loads
    let expanded = r#"<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro">
        <!-- <xacro:macro name="m"/> ${x} --><link name="a"/></robot>"#;
    UrdfRobot::parse(expanded, ".", &opts).unwrap();
    // a file named .xacro, whatever it holds
    let s = Scratch::new("xacro");
    let path = s.write(
        "arm.urdf.xacro",
        r#"<robot name="r"><link name="a"/></robot>"#,
    );
    let err = UrdfRobot::from_file(&path, &opts).unwrap_err();
    assert!(matches!(err, KinematicsError::Xacro { .. }), "{err}");
}

/// `<texture/>` without a filename (as in the package's iCub and Romeo) is accepted:
/// materials are ignored.
#[test]
fn empty_textures_are_accepted() {
    let text = r#"<robot name="r"><link name="a"><visual><geometry><box size="1 1 1"/></geometry>
        <material name="m"><texture /></material></visual>
        <collision><geometry><box size="1 1 1"/></geometry></collision></link>
        <material name="n"><texture/><color rgba="1 1 1 1"/></material></robot>"#;
    let robot = UrdfRobot::parse(text, ".", &UrdfOptions::default()).unwrap();
    assert_eq!(robot.collisions[0].len(), 1);
}
