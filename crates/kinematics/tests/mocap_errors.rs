//! BVH reader on small hand-written files: each malformed case gets its typed error with the
//! right line number; well-formed variants (channel orders, names with spaces, CRLF, no
//! frames) parse and pose as the format says.

use ccd_kinematics::Joint;
use ccd_kinematics::glam::{DMat3, DVec3};
use ccd_kinematics::mocap::{BoneEnd, Channel, MocapClip, MocapError};

/// A two-joint skeleton (lines 1–15) followed by a MOTION section (line 16 on: Frames 17, Frame Time 18, rows from 19).
fn skeleton() -> String {
    "HIERARCHY
ROOT Hips
{
  OFFSET 0 0 0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation
  JOINT Knee
  {
    OFFSET 0 -0.5 0
    CHANNELS 3 Zrotation Xrotation Yrotation
    End Site
    {
      OFFSET 0 -0.4 0
    }
  }
}
"
    .to_string()
}

fn with_motion(rows: &[&str]) -> String {
    let mut s = skeleton();
    s.push_str(&format!(
        "MOTION\nFrames: {}\nFrame Time: 0.01\n",
        rows.len()
    ));
    for r in rows {
        s.push_str(r);
        s.push('\n');
    }
    s
}

fn err(text: &str) -> MocapError {
    match MocapClip::parse(text) {
        Ok(_) => panic!("expected an error for:\n{text}"),
        Err(e) => e,
    }
}

#[test]
fn well_formed_clip_parses_and_poses() {
    let clip =
        MocapClip::parse(&with_motion(&["0 0 0 0 0 0 0 0 0", "1 2 3 90 0 0 0 90 0"])).unwrap();
    assert_eq!(clip.model().len(), 2);
    assert_eq!(clip.frame_count(), 2);
    assert_eq!(clip.channel_count(), 9);
    assert_eq!(clip.frame_time(), 0.01);
    assert_eq!(clip.joint_names().collect::<Vec<_>>(), ["Hips", "Knee"]);
    assert_eq!(clip.model().links()[0].joint, Joint::Floating);
    assert_eq!(clip.model().links()[1].joint, Joint::Spherical);
    assert_eq!(
        clip.joints()[1].channels,
        [Channel::Zrotation, Channel::Xrotation, Channel::Yrotation]
    );
    assert_eq!(clip.bones().len(), 2);
    assert_eq!(clip.bones()[1].end, BoneEnd::EndSite(0));
    assert_eq!(clip.end_sites()[0].line, 10);
    // frame 1 by hand: root T(1,2,3)·Rz(90°); knee T(0,-0.5,0)·Rx(90°)
    let pose = clip.pose(1).unwrap();
    let world = pose.world_transforms(clip.model()).unwrap();
    let rz = DMat3::from_rotation_z(90f64.to_radians());
    let rx = DMat3::from_rotation_x(90f64.to_radians());
    let t = DVec3::new(1.0, 2.0, 3.0);
    let knee = t + rz * DVec3::new(0.0, -0.5, 0.0);
    let foot = knee + rz * (rx * DVec3::new(0.0, -0.4, 0.0));
    assert!(world[1].translation.abs_diff_eq(knee, 1e-12));
    assert!(
        world[1]
            .transform_point3(clip.end_sites()[0].offset)
            .abs_diff_eq(foot, 1e-12)
    );
    // joint values reproduce the same pose through the model
    let q = clip.joint_values(1).unwrap();
    assert_eq!(q.len(), clip.model().dof());
    let via_q = clip.model().pose_from_joints(&q).unwrap();
    for (a, b) in via_q.relative.iter().zip(&pose.relative) {
        assert!(a.abs_diff_eq(*b, 1e-12));
    }
    assert!(clip.pose(2).is_none());
    assert_eq!(clip.poses().count(), 2);
}

#[test]
fn channel_order_is_applied_in_file_order() {
    // the same angles in the two orders give R_x·R_y vs R_y·R_x
    let text = |order: &str| {
        format!(
            "HIERARCHY\nROOT A\n{{\nOFFSET 0 0 0\nCHANNELS 2 {order}\nEnd Site\n{{\nOFFSET 1 0 0\n}}\n}}\nMOTION\nFrames: 1\nFrame Time: 1\n30 60\n"
        )
    };
    let xy = MocapClip::parse(&text("Xrotation Yrotation")).unwrap();
    let yx = MocapClip::parse(&text("Yrotation Xrotation")).unwrap();
    let (a, b) = (30f64.to_radians(), 60f64.to_radians());
    let expect_xy = DMat3::from_rotation_x(a) * DMat3::from_rotation_y(b);
    let expect_yx = DMat3::from_rotation_y(a) * DMat3::from_rotation_x(b);
    assert!(
        xy.pose(0).unwrap().relative[0]
            .matrix3
            .abs_diff_eq(expect_xy, 1e-12)
    );
    assert!(
        yx.pose(0).unwrap().relative[0]
            .matrix3
            .abs_diff_eq(expect_yx, 1e-12)
    );
    assert!(!expect_xy.abs_diff_eq(expect_yx, 1e-3));
}

#[test]
fn crlf_names_with_spaces_braces_on_the_same_line_and_zero_frames() {
    let text = "HIERARCHY\r\nROOT My Root {\r\nOFFSET 0 0 0\r\nCHANNELS 3 Xposition Yposition Zposition\r\nJOINT Left Arm {\r\nOFFSET 1 0 0\r\nCHANNELS 0\r\n}\r\n}\r\nMOTION\r\nFrames: 0\r\nFrame Time: 0.5\r\n";
    let clip = MocapClip::parse(text).unwrap();
    assert_eq!(
        clip.joint_names().collect::<Vec<_>>(),
        ["My Root", "Left Arm"]
    );
    assert_eq!(clip.frame_count(), 0);
    assert_eq!(clip.model().links()[1].joint, Joint::Fixed);
    assert_eq!(clip.model().links()[0].joint, Joint::Floating);
}

#[test]
fn missing_channels_line() {
    let text = skeleton().replace("    CHANNELS 3 Zrotation Xrotation Yrotation\n", "");
    let text = format!("{text}MOTION\nFrames: 0\nFrame Time: 0.01\n");
    match err(&text) {
        MocapError::Channels { line, joint, .. } => {
            assert_eq!((line, joint.as_str()), (9, "Knee"));
        }
        e => panic!("{e}"),
    }
}

#[test]
fn missing_channels_on_a_leaf_joint() {
    let text = "HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 0\nJOINT B\n{\nOFFSET 0 0 0\n}\n}\nMOTION\nFrames: 0\nFrame Time: 1\n";
    assert!(matches!(err(text), MocapError::Channels { line: 9, .. }));
}

#[test]
fn channel_count_differs_from_names() {
    let text = with_motion(&[]).replace(
        "CHANNELS 3 Zrotation Xrotation Yrotation",
        "CHANNELS 3 Zrotation Xrotation",
    );
    assert_eq!(
        err(&text),
        MocapError::ChannelCount {
            line: 9,
            declared: 3,
            named: 2
        }
    );
}

#[test]
fn unknown_and_duplicate_channels() {
    let text = with_motion(&[]).replace(
        "Zrotation Xrotation Yrotation",
        "Zrotation Xrotation Wrotation",
    );
    assert!(
        matches!(err(&text), MocapError::UnknownChannel { line: 9, ref name } if name == "Wrotation")
    );
    let text = with_motion(&[]).replace(
        "Zrotation Xrotation Yrotation",
        "Zrotation Xrotation Zrotation",
    );
    assert!(matches!(
        err(&text),
        MocapError::DuplicateChannel { line: 9, .. }
    ));
}

#[test]
fn wrong_value_count_in_a_frame_row() {
    let text = with_motion(&["0 0 0 0 0 0 0 0 0", "0.0 0.0 0.0 0 0 0 0 0"]);
    assert_eq!(
        err(&text),
        MocapError::FrameValueCount {
            line: 20,
            frame: 1,
            expected: 9,
            found: 8
        }
    );
    let text = with_motion(&["0 0 0 0 0 0 0 0 0 0"]);
    assert!(matches!(
        err(&text),
        MocapError::FrameValueCount {
            line: 19,
            found: 10,
            ..
        }
    ));
}

#[test]
fn non_numeric_values() {
    let text = with_motion(&["0 0 0 0 zero 0 0 0 0"]);
    assert!(matches!(err(&text), MocapError::NotANumber { line: 19, ref text } if text == "zero"));
    let text = with_motion(&[]).replace("OFFSET 0 -0.5 0", "OFFSET 0 -0.5 x");
    assert!(matches!(err(&text), MocapError::NotANumber { line: 8, .. }));
    let text = with_motion(&[]).replace("Frames: 0", "Frames: many");
    assert!(matches!(
        err(&text),
        MocapError::NotANumber { line: 17, .. }
    ));
}

#[test]
fn nan_and_infinite_values() {
    for bad in ["NaN", "inf", "-inf", "1e999"] {
        let row = format!("0 0 0 0 0 0 0 {bad} 0");
        let text = with_motion(&[&row]);
        assert!(
            matches!(err(&text), MocapError::NonFinite { line: 19, .. }),
            "{bad}"
        );
    }
    let text = with_motion(&[]).replace("OFFSET 0 -0.4 0", "OFFSET 0 nan 0");
    assert!(matches!(err(&text), MocapError::NonFinite { line: 12, .. }));
    let text = with_motion(&[]).replace("Frame Time: 0.01", "Frame Time: inf");
    assert!(matches!(err(&text), MocapError::NonFinite { line: 18, .. }));
}

#[test]
fn huge_values_are_out_of_range() {
    let text = with_motion(&["1e300 0 0 0 0 0 0 0 0"]);
    assert!(matches!(
        err(&text),
        MocapError::OutOfRange { line: 19, .. }
    ));
    let text = with_motion(&["0 0 0 1e10 0 0 0 0 0"]);
    assert!(matches!(
        err(&text),
        MocapError::OutOfRange { line: 19, .. }
    ));
}

#[test]
fn bad_frame_time() {
    for bad in ["0", "-0.01"] {
        let text = with_motion(&[]).replace("Frame Time: 0.01", &format!("Frame Time: {bad}"));
        assert!(matches!(err(&text), MocapError::FrameTime { line: 18, .. }));
    }
}

#[test]
fn huge_frame_count_is_rejected_before_reading_rows() {
    let text =
        with_motion(&["0 0 0 0 0 0 0 0 0"]).replace("Frames: 1", "Frames: 18446744073709551615");
    match err(&text) {
        MocapError::FrameCountTooLarge {
            line,
            channels,
            available,
            ..
        } => assert_eq!((line, channels, available), (17, 9, 18)),
        e => panic!("{e}"),
    }
    // a count that fits the bytes but has too few rows
    let text =
        with_motion(&["0 0 0 0 0 0 0 0 0", "0 0 0 0 0 0 0 0 0"]).replace("Frames: 2", "Frames: 3");
    let e = err(&text);
    assert!(
        matches!(
            e,
            MocapError::MissingFrames {
                line: 17,
                declared: 3,
                found: 2
            }
        ) || matches!(e, MocapError::FrameCountTooLarge { line: 17, .. }),
        "{e}"
    );
    let mut text =
        with_motion(&["0 0 0 0 0 0 0 0 0", "0 0 0 0 0 0 0 0 0"]).replace("Frames: 2", "Frames: 3");
    text.push_str(&"\n".repeat(30));
    assert_eq!(
        err(&text),
        MocapError::MissingFrames {
            line: 17,
            declared: 3,
            found: 2
        }
    );
}

#[test]
fn zero_channel_skeleton_with_huge_frame_count() {
    let text = "HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 0\n}\nMOTION\nFrames: 1000000000\nFrame Time: 1\n\n\n";
    assert!(matches!(
        err(text),
        MocapError::FrameCountTooLarge { line: 8, .. }
    ));
}

#[test]
fn trailing_rows_after_the_declared_frames() {
    let text =
        with_motion(&["0 0 0 0 0 0 0 0 0", "0 0 0 0 0 0 0 0 0"]).replace("Frames: 2", "Frames: 1");
    assert_eq!(
        err(&text),
        MocapError::TrailingData {
            line: 20,
            declared: 1
        }
    );
}

#[test]
fn unbalanced_braces() {
    // a missing closing brace: MOTION arrives while the root is open
    let text = with_motion(&[]).replacen("}\n}\n", "}\n", 1);
    assert!(
        matches!(err(&text), MocapError::UnbalancedBraces { .. }),
        "{}",
        err(&text)
    );
    // the input ends inside the hierarchy
    let text = "HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 0\n";
    assert!(matches!(
        err(text),
        MocapError::UnbalancedBraces { line: 3, .. }
    ));
    // one } too many
    let text = with_motion(&[]).replace("MOTION", "}\nMOTION");
    assert!(matches!(
        err(&text),
        MocapError::UnbalancedBraces { line: 16, .. }
    ));
    // a stray {
    let text = with_motion(&[]).replace("    OFFSET 0 -0.5 0\n", "    OFFSET 0 -0.5 0\n{\n");
    assert!(matches!(
        err(&text),
        MocapError::UnbalancedBraces { line: 9, .. }
    ));
}

#[test]
fn empty_hierarchy() {
    assert_eq!(
        err("HIERARCHY\nMOTION\nFrames: 0\nFrame Time: 0.01\n"),
        MocapError::EmptyHierarchy { line: 2 }
    );
    assert!(matches!(
        err("HIERARCHY\n"),
        MocapError::UnexpectedEnd { line: 1, .. }
    ));
    assert!(matches!(err(""), MocapError::UnexpectedEnd { .. }));
    assert!(matches!(
        err("MOTION\n"),
        MocapError::Unexpected { line: 1, .. }
    ));
}

#[test]
fn duplicate_joint_names_second_root_missing_offset() {
    let text = with_motion(&[]).replace("JOINT Knee", "JOINT Hips");
    assert!(matches!(
        err(&text),
        MocapError::DuplicateJoint { line: 6, .. }
    ));
    let text = with_motion(&[]).replace("MOTION", "ROOT Other\n{\n}\nMOTION");
    assert!(matches!(
        err(&text),
        MocapError::SecondRoot { line: 16, .. }
    ));
    let text = with_motion(&[]).replace("    OFFSET 0 -0.5 0\n", "");
    assert!(matches!(err(&text), MocapError::Offset { line: 13, .. }));
    let text = with_motion(&[]).replace("      OFFSET 0 -0.4 0\n", "");
    assert!(matches!(err(&text), MocapError::Offset { line: 12, .. }));
    let text = with_motion(&[]).replace(
        "    OFFSET 0 -0.5 0\n",
        "    OFFSET 0 -0.5 0\n OFFSET 1 1 1\n",
    );
    assert!(matches!(err(&text), MocapError::Offset { line: 9, .. }));
}

#[test]
fn deep_nesting_does_not_overflow_the_stack() {
    let depth = 100_000;
    let mut s = String::from("HIERARCHY\nROOT J0\n{\nOFFSET 0 0 0\nCHANNELS 0\n");
    for i in 1..depth {
        s.push_str(&format!("JOINT J{i}\n{{\nOFFSET 0 0.001 0\nCHANNELS 0\n"));
    }
    // never closed: the error names the innermost open brace
    let e = err(&s);
    assert!(matches!(e, MocapError::UnbalancedBraces { .. }), "{e}");
}
