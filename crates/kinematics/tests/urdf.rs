//! URDF/SRDF import on small robots written for these tests (`tests/data/`): a 3-link arm
//! with one mesh per link, a branched 15-link skeleton, and broken documents.

use std::f64::consts::FRAC_PI_2;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ccd_kinematics::glam::{DAffine3, DMat3, DVec3};
use ccd_kinematics::urdf::{
    CollisionGeometry, UrdfOptions, UrdfRobot, parse_srdf_disabled_pairs, read_srdf_disabled_pairs,
};
use ccd_kinematics::{Joint, KinematicsError, Limits};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn arm3_options() -> UrdfOptions {
    UrdfOptions::default().with_package("arm3_description", data("arm3"))
}

fn load(text: &str) -> Result<UrdfRobot, KinematicsError> {
    UrdfRobot::parse(text, data("arm3"), &arm3_options())
}

// Rotations written out, independent of glam's quaternion/axis-angle code.
fn rot_x(a: f64) -> DMat3 {
    let (s, c) = a.sin_cos();
    DMat3::from_cols(
        DVec3::new(1.0, 0.0, 0.0),
        DVec3::new(0.0, c, s),
        DVec3::new(0.0, -s, c),
    )
}
fn rot_y(a: f64) -> DMat3 {
    let (s, c) = a.sin_cos();
    DMat3::from_cols(
        DVec3::new(c, 0.0, -s),
        DVec3::new(0.0, 1.0, 0.0),
        DVec3::new(s, 0.0, c),
    )
}
fn rot_z(a: f64) -> DMat3 {
    let (s, c) = a.sin_cos();
    DMat3::from_cols(
        DVec3::new(c, s, 0.0),
        DVec3::new(-s, c, 0.0),
        DVec3::new(0.0, 0.0, 1.0),
    )
}
fn frame(xyz: [f64; 3], rot: DMat3) -> DAffine3 {
    DAffine3::from_mat3_translation(rot, DVec3::from_array(xyz))
}

#[test]
fn arm3_loads_links_joints_and_one_mesh_per_link() {
    let robot = UrdfRobot::from_file(data("arm3/arm3.urdf"), &arm3_options()).unwrap();
    let m = &robot.model;
    assert_eq!(robot.name, "arm3");
    assert_eq!(m.len(), 3);
    assert_eq!(m.dof(), 2);
    let names: Vec<&str> = m.links().iter().map(|l| l.name.as_str()).collect();
    assert_eq!(names, ["base", "upper", "fore"]);
    assert_eq!(
        robot.joint_names,
        [None, Some("shoulder".into()), Some("elbow".into())]
    );
    // the axis "0 0 2" is normalised
    assert_eq!(
        m.links()[1].joint,
        Joint::Revolute {
            axis: DVec3::Z,
            limits: Some(Limits {
                lower: -3.0,
                upper: 3.0
            })
        }
    );
    assert_eq!(robot.joint_index("shoulder"), Some(0));
    assert_eq!(robot.joint_index("elbow"), Some(1));

    // base: ASCII STL tetrahedron (its visual .dae does not exist, which is fine)
    let base = &robot.collisions[0];
    assert_eq!(base.len(), 1);
    assert_eq!(base[0].mesh.triangle_count(), 4);
    assert!(
        matches!(&base[0].geometry, CollisionGeometry::Mesh { path, scale, .. }
        if path == &data("arm3/meshes/base.stl") && *scale == DVec3::ONE)
    );

    // upper: OBJ unit cube through package://, scale baked in, origin kept separately
    let upper = &robot.collisions[1][0];
    assert_eq!(upper.name.as_deref(), Some("upper_box"));
    assert_eq!(upper.mesh.triangle_count(), 12);
    let bb = upper.mesh.aabb();
    assert!(bb.min.abs_diff_eq(DVec3::new(-0.05, -0.05, -0.25), 1e-12));
    assert!(bb.max.abs_diff_eq(DVec3::new(0.05, 0.05, 0.25), 1e-12));
    assert!(upper.origin.abs_diff_eq(
        DAffine3::from_translation(DVec3::new(0.0, 0.0, 0.25)),
        1e-15
    ));
    let merged = robot.link_mesh(m.link_id("upper").unwrap()).unwrap();
    assert!(
        merged
            .aabb()
            .min
            .abs_diff_eq(DVec3::new(-0.05, -0.05, 0.0), 1e-12)
    );
    assert!(
        merged
            .aabb()
            .max
            .abs_diff_eq(DVec3::new(0.05, 0.05, 0.5), 1e-12)
    );

    // fore: PLY tetrahedron rotated by the collision origin (yaw 90°)
    let fore = robot.link_mesh(m.link_id("fore").unwrap()).unwrap();
    assert_eq!(fore.triangle_count(), 4);
    assert!(fore.vertices()[1].abs_diff_eq(DVec3::new(0.0, 0.05, 0.0), 1e-12));
}

#[test]
fn arm3_forward_kinematics_match_the_hand_computed_chain() {
    let robot = UrdfRobot::from_file(data("arm3/arm3.urdf"), &arm3_options()).unwrap();
    let m = &robot.model;
    for (q_shoulder, q_elbow) in [(0.0, 0.0), (0.7, -0.4), (-2.5, 1.9)] {
        let mut q = vec![0.0; m.dof()];
        q[robot.joint_index("shoulder").unwrap()] = q_shoulder;
        q[robot.joint_index("elbow").unwrap()] = q_elbow;
        let world = m.pose_from_joints(&q).unwrap().world_transforms(m).unwrap();
        let upper = frame([0.0, 0.0, 0.1], rot_z(q_shoulder));
        let fore = upper * frame([0.0, 0.0, 0.5], rot_x(0.3) * rot_y(q_elbow));
        assert!(world[0].abs_diff_eq(DAffine3::IDENTITY, 0.0));
        assert!(world[1].abs_diff_eq(upper, 1e-12));
        assert!(world[2].abs_diff_eq(fore, 1e-12));
        // the fore tetrahedron's tip (0, 0, 0.4) in the world
        let tip = fore.transform_point3(DVec3::new(0.0, 0.0, 0.4));
        let mesh_tip = world[2].transform_point3(
            robot
                .link_mesh(m.link_id("fore").unwrap())
                .unwrap()
                .vertices()[3],
        );
        assert!(tip.abs_diff_eq(mesh_tip, 1e-12));
    }
    // out of limits is refused by the model
    assert!(matches!(
        m.pose_from_joints(&[0.0, 2.5]),
        Err(KinematicsError::InvalidJointValue { .. })
    ));
}

#[test]
fn loading_from_a_string_with_a_base_dir_equals_loading_the_file() {
    let text = std::fs::read_to_string(data("arm3/arm3.urdf")).unwrap();
    let a = load(&text).unwrap();
    let b = UrdfRobot::from_file(data("arm3/arm3.urdf"), &arm3_options()).unwrap();
    assert_eq!(a.model.links(), b.model.links());
    for (x, y) in a
        .collisions
        .iter()
        .flatten()
        .zip(b.collisions.iter().flatten())
    {
        assert_eq!(x.geometry, y.geometry);
        assert_eq!(x.mesh.vertices(), y.mesh.vertices());
    }
    // a relative mesh path is taken against the base dir given, not the working directory
    assert!(matches!(
        UrdfRobot::parse(&text, "/nonexistent", &arm3_options()),
        Err(KinematicsError::MeshUnavailable { ref link, .. }) if link == "base"
    ));
}

#[test]
fn a_mesh_used_twice_with_the_same_scale_is_loaded_once() {
    let robot = load(
        r#"<robot name="r">
          <link name="a">
            <collision><geometry><mesh filename="meshes/fore.ply"/></geometry></collision>
            <collision><geometry><mesh filename="meshes/fore.ply" scale="-1 1 1"/></geometry></collision>
          </link>
          <link name="b">
            <collision><geometry><mesh filename="package://arm3_description/meshes/fore.ply"/></geometry></collision>
          </link>
          <joint name="ab" type="fixed"><parent link="a"/><child link="b"/></joint>
        </robot>"#,
    )
    .unwrap();
    let (a, b) = (&robot.collisions[0], &robot.collisions[1]);
    assert!(Arc::ptr_eq(&a[0].mesh, &b[0].mesh));
    assert!(!Arc::ptr_eq(&a[0].mesh, &a[1].mesh));
    // the mirrored copy has mirrored vertices and reversed triangles
    assert_eq!(a[1].mesh.vertices()[1], DVec3::new(-0.05, 0.0, 0.0));
    assert_eq!(a[1].mesh.triangles()[0], [0, 1, 2]);
    assert_eq!(a[0].mesh.triangles()[0], [0, 2, 1]);
}

#[test]
fn primitives_are_tessellated_in_their_collision_frame() {
    let robot = UrdfRobot::parse(
        r#"<robot name="r"><link name="a">
          <collision><origin xyz="1 2 3" rpy="0 1.5707963267948966 0"/><geometry><cylinder radius="0.1" length="2"/></geometry></collision>
          <collision><geometry><sphere radius="0.5"/></geometry></collision>
          <collision><geometry><box size="1 2 3"/></geometry></collision>
        </link></robot>"#,
        ".",
        &UrdfOptions::default().with_primitive_segments(8),
    )
    .unwrap();
    let c = &robot.collisions[0];
    assert_eq!(
        c[0].geometry,
        CollisionGeometry::Cylinder {
            radius: 0.1,
            length: 2.0
        }
    );
    assert!((c[0].mesh.aabb().max.z - 1.0).abs() < 1e-15);
    assert_eq!(c[1].geometry, CollisionGeometry::Sphere { radius: 0.5 });
    assert_eq!(c[2].mesh.triangle_count(), 12);
    // the cylinder's axis (z in its frame) lies along x in the link frame after pitch 90°
    let merged = robot.link_mesh(robot.model.root()).unwrap();
    assert!((merged.aabb().max.x - 2.0).abs() < 1e-12);
    assert!((merged.aabb().max.z - 3.1).abs() < 1e-12);
}

#[test]
fn humanoid_skeleton_is_a_branched_tree_in_breadth_first_order() {
    let robot = UrdfRobot::from_file(data("humanoid.urdf"), &UrdfOptions::default()).unwrap();
    let m = &robot.model;
    assert_eq!(m.len(), 15);
    // 9 revolute/continuous (spine, neck, l/r elbow, l/r hip, l/r knee, l_ankle), 1 prismatic
    // (r_ankle), 2 spherical shoulders (3 each), 2 fixed wrists
    assert_eq!(m.dof(), 16);
    assert_eq!(m.links()[0].name, "pelvis");
    let kids = |name: &str| -> Vec<String> {
        let mut v: Vec<String> = m
            .children(m.link_id(name).unwrap())
            .iter()
            .map(|c| m.links()[c.index()].name.clone())
            .collect();
        v.sort();
        v
    };
    assert_eq!(kids("pelvis"), ["l_thigh", "r_thigh", "torso"]);
    assert_eq!(kids("torso"), ["head", "l_upper_arm", "r_upper_arm"]);
    assert!(kids("l_hand").is_empty());
    for (i, l) in m.links().iter().enumerate() {
        if let Some(p) = l.parent {
            assert!(p.index() < i, "parents come first");
        }
    }
    assert!(robot.collisions.iter().all(Vec::is_empty));
    assert!(robot.link_mesh(m.root()).is_none());
    assert!(matches!(
        m.links()[m.link_id("l_upper_arm").unwrap().index()].joint,
        Joint::Spherical
    ));
    assert!(matches!(
        m.links()[m
            .link_id("neck")
            .map_or(m.link_id("head").unwrap(), |x| x)
            .index()]
        .joint,
        Joint::Revolute { limits: None, .. }
    ));

    // the left hand's chain by hand: pelvis → torso → l_upper_arm → l_forearm → l_hand
    let mut q = vec![0.0; m.dof()];
    q[robot.joint_index("spine").unwrap()] = 0.4;
    let shoulder = robot.joint_index("l_shoulder").unwrap();
    q[shoulder..shoulder + 3].copy_from_slice(&[0.0, FRAC_PI_2, 0.0]); // rotation vector: +90° about y
    q[robot.joint_index("l_elbow").unwrap()] = 1.0;
    q[robot.joint_index("r_ankle").unwrap()] = 0.015;
    q[robot.joint_index("l_hip").unwrap()] = -0.6;
    let world = m.pose_from_joints(&q).unwrap().world_transforms(m).unwrap();
    let torso = frame([0.0, 0.0, 0.1], rot_z(0.4));
    let upper_arm = torso * frame([0.0, 0.2, 0.45], rot_y(FRAC_PI_2));
    let forearm = upper_arm * frame([0.0, 0.0, -0.3], rot_y(1.0));
    let hand = forearm * frame([0.0, 0.0, -0.25], DMat3::IDENTITY);
    assert!(world[m.link_id("l_hand").unwrap().index()].abs_diff_eq(hand, 1e-12));
    let thigh = frame([0.0, 0.1, -0.05], rot_x(0.1) * rot_y(-0.6));
    assert!(world[m.link_id("l_thigh").unwrap().index()].abs_diff_eq(thigh, 1e-12));
    let r_foot = frame([0.0, -0.1, -0.05], rot_x(-0.1))
        * frame([0.0, 0.0, -0.45], DMat3::IDENTITY)
        * frame([0.0, 0.0, -0.42 + 0.015], DMat3::IDENTITY);
    assert!(world[m.link_id("r_foot").unwrap().index()].abs_diff_eq(r_foot, 1e-12));
}

#[test]
fn broken_files_give_typed_errors() {
    let open = |name: &str| UrdfRobot::from_file(data(name), &UrdfOptions::default());
    match open("broken/cycle.urdf") {
        Err(KinematicsError::UrdfCycle { links }) => assert_eq!(links, ["a", "b", "c"]),
        other => panic!("expected a cycle, got {other:?}"),
    }
    match open("broken/two_parents.urdf") {
        Err(KinematicsError::LinkWithTwoParents {
            link,
            first,
            second,
        }) => {
            assert_eq!(
                (link.as_str(), first.as_str(), second.as_str()),
                ("c", "ac", "bc")
            );
        }
        other => panic!("expected two parents, got {other:?}"),
    }
    match open("broken/unknown_joint.urdf") {
        Err(KinematicsError::UnknownJointType { joint, kind }) => {
            assert_eq!((joint.as_str(), kind.as_str()), ("j", "hinge"));
        }
        other => panic!("expected an unknown joint type, got {other:?}"),
    }
    match open("broken/planar.urdf") {
        Err(e @ KinematicsError::UnsupportedJointType { .. }) => {
            assert!(e.to_string().contains("unsupported"), "{e}");
        }
        other => panic!("expected an unsupported joint type, got {other:?}"),
    }
    match open("broken/missing_mesh.urdf") {
        Err(e @ KinematicsError::MeshUnavailable { .. }) => {
            assert!(e.to_string().contains("meshes/does_not_exist.stl"), "{e}");
            let KinematicsError::MeshUnavailable { link, uri } = e else {
                unreachable!()
            };
            assert_eq!(
                (link.as_str(), uri.as_str()),
                ("b", "meshes/does_not_exist.stl")
            );
        }
        other => panic!("expected a missing mesh, got {other:?}"),
    }
    let trusting = UrdfOptions::default().with_allow_outside_paths(true);
    match UrdfRobot::from_file(data("broken/missing_mesh.urdf"), &trusting) {
        Err(KinematicsError::MissingMesh { link, uri, path }) => {
            assert_eq!(
                (link.as_str(), uri.as_str()),
                ("b", "meshes/does_not_exist.stl")
            );
            assert_eq!(path, data("broken/meshes/does_not_exist.stl"));
        }
        other => panic!("expected a missing mesh, got {other:?}"),
    }
    match open("broken/missing_link.urdf") {
        Err(KinematicsError::UnknownLink { link, context }) => {
            assert_eq!(link, "c");
            assert!(
                context.contains("\"bc\"") && context.contains("child"),
                "{context}"
            );
        }
        other => panic!("expected a missing link, got {other:?}"),
    }
    match open("broken/malformed.urdf") {
        Err(KinematicsError::UrdfParse {
            source_name,
            reason,
        }) => {
            assert!(source_name.ends_with("malformed.urdf"));
            assert!(reason.contains("line 6"), "{reason}");
        }
        other => panic!("expected a parse error, got {other:?}"),
    }
    assert!(matches!(
        open("broken/nope.urdf"),
        Err(KinematicsError::FileRead { .. })
    ));
}

#[test]
fn invalid_documents_give_typed_errors() {
    let joint = |body: &str| {
        load(&format!(
            r#"<robot name="r"><link name="a"/><link name="b"/>
               <joint name="j" {body}<parent link="a"/><child link="b"/></joint></robot>"#
        ))
    };
    let invalid = |r: Result<UrdfRobot, KinematicsError>, needle: &str| match r {
        Err(KinematicsError::InvalidUrdf(m)) => assert!(m.contains(needle), "{m}"),
        other => panic!("expected InvalidUrdf({needle}), got {other:?}"),
    };
    invalid(joint(r#"type="continuous"><axis xyz="0 0 0"/>"#), "axis");
    invalid(
        joint(r#"type="revolute"><axis xyz="0 0 1"/>"#),
        "no <limit>",
    );
    invalid(joint(r#"type="prismatic">"#), "no <limit>");
    invalid(
        joint(r#"type="revolute"><limit lower="1" upper="-1" effort="1" velocity="1"/>"#),
        "limits",
    );
    invalid(
        joint(r#"type="fixed"><origin xyz="0 nan 0"/>"#),
        "non-finite origin",
    );
    // default axis (1, 0, 0) and continuous joints
    let ok = joint(r#"type="continuous">"#).unwrap();
    assert_eq!(
        ok.model.links()[1].joint,
        Joint::Revolute {
            axis: DVec3::X,
            limits: None
        }
    );
    let floating = joint(r#"type="floating">"#).unwrap();
    assert_eq!(floating.model.dof(), 6);

    invalid(
        load(r#"<robot name="r"><link name="a"/><link name="b"/></robot>"#),
        "roots",
    );
    invalid(
        load(r#"<robot name="r"><link name="a"/><link name="a"/></robot>"#),
        "two links",
    );
    invalid(load(r#"<robot name="r"></robot>"#), "no links");
    invalid(
        load(
            r#"<robot name="r"><link name="a"/><link name="b"/><link name="c"/>
               <joint name="j" type="fixed"><parent link="a"/><child link="b"/></joint>
               <joint name="j" type="fixed"><parent link="a"/><child link="c"/></joint></robot>"#,
        ),
        "two joints",
    );
    invalid(
        load(
            r#"<robot name="r"><link name="a"><collision><geometry><mesh filename="meshes/base.stl" scale="1 0 1"/></geometry></collision></link></robot>"#,
        ),
        "scale",
    );
    invalid(
        load(
            r#"<robot name="r"><link name="a"><collision><geometry><sphere radius="-1"/></geometry></collision></link></robot>"#,
        ),
        "radius",
    );
    match load(
        r#"<robot name="r"><link name="a"/><joint name="j" type="fixed"><parent link="a"/><child link="a"/></joint></robot>"#,
    ) {
        Err(KinematicsError::UrdfCycle { links }) => assert_eq!(links, ["a"]),
        other => panic!("expected a cycle, got {other:?}"),
    }
    // every link a child: a cycle with no root
    match load(
        r#"<robot name="r"><link name="a"/><link name="b"/>
           <joint name="ab" type="fixed"><parent link="a"/><child link="b"/></joint>
           <joint name="ba" type="fixed"><parent link="b"/><child link="a"/></joint></robot>"#,
    ) {
        Err(KinematicsError::UrdfCycle { links }) => assert_eq!(links, ["a", "b"]),
        other => panic!("expected a cycle, got {other:?}"),
    }

    let mesh = |filename: &str| {
        load(&format!(
            r#"<robot name="r"><link name="a"><collision><geometry><mesh filename="{filename}"/></geometry></collision></link></robot>"#
        ))
    };
    assert!(matches!(mesh("package://unknown_pkg/a.stl"),
        Err(KinematicsError::UnresolvedUri { reason: ccd_kinematics::UriError::UnknownPackage { package }, .. }) if package == "unknown_pkg"));
    assert!(matches!(
        mesh("https://example.invalid/a.stl"),
        Err(KinematicsError::UnresolvedUri { .. })
    ));
    // an existing file that is not a mesh
    assert!(matches!(
        mesh("arm3.urdf"),
        Err(KinematicsError::MeshLoad { .. })
    ));
    // an absolute file:// URI
    let abs = format!("file://{}", data("arm3/meshes/base.stl").display());
    assert_eq!(
        mesh(&abs).unwrap().collisions[0][0].mesh.triangle_count(),
        4
    );

    for (text, needle) in [
        ("", "no root element"),
        ("<robot name=\"r\"><link name=\"a\">", "unclosed"),
        ("<model name=\"r\"/>", "not <robot>"),
        (
            "<robot name=\"r\"><link name=\"a\"/></robot><robot/>",
            "more than one root",
        ),
        ("<robot name=\"r\"><link/></robot>", ""),
        (
            "<robot name=\"r\"><link name=\"a\"><collision><geometry><box size=\"1 2\"/></geometry></collision></link></robot>",
            "",
        ),
        (
            "<robot name=\"r\"><joint type=\"fixed\"/></robot>",
            "no name",
        ),
    ] {
        match load(text) {
            Err(KinematicsError::UrdfParse { reason, .. }) => {
                assert!(reason.contains(needle), "{text:?}: {reason}");
            }
            other => panic!("{text:?}: expected a parse error, got {other:?}"),
        }
    }
}

#[test]
fn srdf_pairs_are_normalised_and_checked() {
    let robot = UrdfRobot::from_file(data("arm3/arm3.urdf"), &arm3_options()).unwrap();
    let m = &robot.model;
    let id = |n: &str| m.link_id(n).unwrap();
    let pairs = read_srdf_disabled_pairs(data("arm3/arm3.srdf"), m).unwrap();
    assert_eq!(pairs.len(), 2);
    assert!(pairs.contains(&(id("base"), id("upper"))));
    assert!(pairs.contains(&(id("upper"), id("fore"))));
    assert!(pairs.iter().all(|(a, b)| a <= b));
    assert_eq!(
        robot.srdf_disabled_pairs(data("arm3/arm3.srdf")).unwrap(),
        pairs
    );

    assert!(matches!(
        parse_srdf_disabled_pairs(r#"<robot name="r"><disable_collisions link1="base" link2="hand"/></robot>"#, m),
        Err(KinematicsError::UnknownLink { link, .. }) if link == "hand"
    ));
    for bad in [
        r#"<robot name="r"><disable_collisions link1="base"/></robot>"#,
        r#"<robot name="r"><disable_collisions link1="base" link2="upper"></robot>"#,
        r#"<srdf/>"#,
        "",
    ] {
        assert!(
            matches!(
                parse_srdf_disabled_pairs(bad, m),
                Err(KinematicsError::UrdfParse { .. })
            ),
            "{bad:?}"
        );
    }
    assert!(matches!(
        read_srdf_disabled_pairs(data("arm3/nope.srdf"), m),
        Err(KinematicsError::FileRead { .. })
    ));
}

mod never_panics {
    //! Bad input is an error, never a panic: arbitrary edits of valid URDF and SRDF text.
    use super::*;
    use proptest::prelude::*;

    /// `text` with up to 4 edits: a byte range deleted, or a snippet inserted, at arbitrary
    /// (char-boundary) positions.
    fn mutated(text: &'static str) -> impl Strategy<Value = String> {
        let snippets = prop::sample::select(vec![
            "<",
            ">",
            "/>",
            "</joint>",
            "<link name=\"x\"/>",
            "\"",
            "=",
            " type=\"planar\"",
            "nan",
            "-",
            "1e400",
            "package://",
            "<joint name=\"j\">",
            "&amp;",
            "&bogus;",
            "\u{e9}",
            "<![CDATA[",
            "<!--",
        ]);
        prop::collection::vec(
            (
                any::<prop::sample::Index>(),
                0usize..12,
                prop::option::of(snippets),
            ),
            1..5,
        )
        .prop_map(move |edits| {
            let mut s = text.to_owned();
            for (at, len, insert) in edits {
                let mut i = at.index(s.len() + 1);
                while !s.is_char_boundary(i) {
                    i -= 1;
                }
                match insert {
                    Some(snippet) => s.insert_str(i, snippet),
                    None => {
                        let mut j = (i + len).min(s.len());
                        while !s.is_char_boundary(j) {
                            j -= 1;
                        }
                        s.replace_range(i..j, "");
                    }
                }
            }
            s
        })
    }

    const ARM3: &str = include_str!("data/arm3/arm3.urdf");
    const SRDF: &str = include_str!("data/arm3/arm3.srdf");

    proptest! {
        #[test]
        fn mutated_urdf_loads_or_errors(text in mutated(ARM3)) {
            // either a valid robot or a typed error; both are fine, a panic is not
            if let Ok(robot) = load(&text) {
                prop_assert_eq!(robot.collisions.len(), robot.model.len());
            }
        }

        #[test]
        fn mutated_srdf_parses_or_errors(text in mutated(SRDF)) {
            let robot = UrdfRobot::from_file(data("arm3/arm3.urdf"), &arm3_options()).unwrap();
            if let Ok(pairs) = parse_srdf_disabled_pairs(&text, &robot.model) {
                prop_assert!(pairs.iter().all(|(a, b)| a <= b));
            }
        }
    }
}
