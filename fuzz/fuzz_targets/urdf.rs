//! Fuzz target: URDF + SRDF import from text. Input: 4 bytes (little-endian
//! `primitive_segments`), then the URDF text, a NUL byte, and the SRDF text. Relative mesh
//! paths resolve against a folder that does not exist. Oracle: no panic, no abort, no hang
//! (libFuzzer `-timeout`, `-rss_limit_mb`): bad input is a `KinematicsError`; an accepted robot
//! has one collision list per link and its SRDF pairs name links of the model.
#![no_main]

use ccd_kinematics::urdf::{UrdfOptions, UrdfRobot, parse_srdf_disabled_pairs};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((segments, rest)) = data.split_first_chunk::<4>() else {
        return;
    };
    let (urdf, srdf) = match rest.iter().position(|&b| b == 0) {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, &[][..]),
    };
    let (Ok(urdf), Ok(srdf)) = (std::str::from_utf8(urdf), std::str::from_utf8(srdf)) else {
        return;
    };
    let options = UrdfOptions::default()
        .with_primitive_segments(u32::from_le_bytes(*segments))
        .with_package("fuzz_description", "/nonexistent/ccd-fuzz/package");
    let Ok(robot) = UrdfRobot::parse(urdf, "/nonexistent/ccd-fuzz", &options) else {
        return;
    };
    let links = robot.model.len();
    assert_eq!(robot.collisions.len(), links);
    if let Ok(pairs) = parse_srdf_disabled_pairs(srdf, &robot.model) {
        assert!(
            pairs
                .iter()
                .all(|(a, b)| a.index() < links && b.index() < links)
        );
    }
});
