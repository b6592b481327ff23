//! The real CMU clips `../shared/data/mocap/cmu-131/scaled_131_0{1,3}.bvh` (31 joints,
//! 120 fps, metres, Y-up): load them, check the skeleton and frame counts, and check that
//! forward kinematics is plausible (feet reach the ground plane and stay near it, the head
//! stays at standing height, the root travels). Reported as ignored when the data is absent
//! at build time (`build.rs`).

use std::path::PathBuf;

use ccd_kinematics::glam::DVec3;
use ccd_kinematics::mocap::{BoneEnd, MocapClip};

/// `$CCD_SHARED_DIR/data/mocap/cmu-131/NAME`, else `../shared/data/mocap/cmu-131/NAME`
/// beside the repository. The tests are ignored when the folder is absent at build time
/// (`build.rs`); run anyway (`--include-ignored`) without it, they fail here.
fn clip_path(name: &str) -> PathBuf {
    let data = match std::env::var_os("CCD_SHARED_DIR") {
        Some(shared) => PathBuf::from(shared).join("data"),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"),
    };
    let path = data.join("mocap/cmu-131").join(name);
    assert!(
        path.is_file(),
        "CMU mocap test: {} not found (set CCD_SHARED_DIR)",
        path.display()
    );
    path
}

fn load(name: &str) -> MocapClip {
    let path = clip_path(name);
    let start = std::time::Instant::now();
    let clip = MocapClip::from_file(&path).unwrap();
    eprintln!(
        "{name}: {} joints, {} frames parsed in {:?}",
        clip.model().len(),
        clip.frame_count(),
        start.elapsed()
    );
    clip
}

/// World positions of the end sites named by their joint, per frame.
fn end_site(clip: &MocapClip, joint: &str) -> Vec<DVec3> {
    let link = clip.model().link_id(joint).unwrap();
    let site = clip
        .end_sites()
        .iter()
        .find(|s| s.link == link)
        .unwrap_or_else(|| panic!("{joint} has no end site"));
    clip.poses()
        .map(|p| {
            p.world_transforms(clip.model()).unwrap()[link.index()].transform_point3(site.offset)
        })
        .collect()
}

fn check_clip(name: &str, frames: usize) {
    let clip = load(name);
    assert_eq!(clip.model().len(), 31);
    assert_eq!(clip.joints().len(), 31);
    assert_eq!(clip.frame_count(), frames);
    assert!((clip.frame_time() - 1.0 / 120.0).abs() < 1e-5);
    // root: 6 channels; the others 3 rotations: 6 + 30·3
    assert_eq!(clip.channel_count(), 96);
    assert_eq!(clip.model().dof(), 96);
    assert_eq!(clip.model().links()[0].name, "Hips");
    // 30 joint bones and one bone per end site
    assert_eq!(
        clip.bones().len(),
        30 + clip.end_sites().len(),
        "bones: {:?}",
        clip.bones()
    );
    assert!(clip.end_sites().len() >= 5);
    assert!(
        clip.bones()
            .iter()
            .filter(|b| matches!(b.end, BoneEnd::Joint(_)))
            .all(|b| b.length() < 0.6)
    );

    // feet: the toes' end sites touch y ≈ 0 and never sink far below it
    for toe in ["LeftToe", "RightToe"] {
        let ys: Vec<f64> = end_site(&clip, toe).iter().map(|p| p.y).collect();
        let lo = ys.iter().copied().fold(f64::INFINITY, f64::min);
        let median = {
            let mut s = ys.clone();
            s.sort_by(f64::total_cmp);
            s[s.len() / 2]
        };
        eprintln!("{name} {toe}: min y {lo:.3}, median y {median:.3}");
        assert!((-0.08..0.08).contains(&lo), "{toe} lowest at y = {lo}");
        assert!(median < 0.25, "{toe} median height {median}");
    }
    // the head is mostly at a standing height, always above the feet's level
    let mut head: Vec<f64> = end_site(&clip, "Head").iter().map(|p| p.y).collect();
    head.sort_by(f64::total_cmp);
    let (hlo, hmed, hhi) = (head[0], head[head.len() / 2], head[head.len() - 1]);
    eprintln!("{name} head y in [{hlo:.3}, {hhi:.3}], median {hmed:.3}");
    assert!(hlo > 0.5 && hhi < 2.2, "head y in [{hlo}, {hhi}]");
    assert!((1.3..1.9).contains(&hmed), "head median height {hmed}");
    // the root travels horizontally over the clip
    let first = clip.pose(0).unwrap().relative[0].translation;
    let last = clip.pose(frames - 1).unwrap().relative[0].translation;
    let travel = DVec3::new(last.x - first.x, 0.0, last.z - first.z).length();
    eprintln!("{name}: root travels {travel:.3} m horizontally");
    assert!(travel > 1.0, "root travels {travel} m");
    // per-frame root speed stays human (< 5 m/s)
    let poses: Vec<_> = clip.poses().collect();
    for w in poses.windows(2) {
        let v = (w[1].relative[0].translation - w[0].relative[0].translation).length()
            / clip.frame_time();
        assert!(v < 5.0, "root speed {v} m/s");
    }
    // the joint-value route reproduces the directly built poses
    for f in (0..frames).step_by(97) {
        let q = clip.joint_values(f).unwrap();
        let via_q = clip.model().pose_from_joints(&q).unwrap();
        for (a, b) in via_q.relative.iter().zip(&poses[f].relative) {
            assert!(a.abs_diff_eq(*b, 1e-9), "frame {f}: {a:?} vs {b:?}");
        }
    }
}

#[test]
#[cfg_attr(
    ccd_missing_data = "mocap",
    ignore = "needs ../shared/data/mocap/cmu-131 (absent at build time)"
)]
fn cmu_131_01_loads_with_plausible_kinematics() {
    check_clip("scaled_131_01.bvh", 995);
}

#[test]
#[cfg_attr(
    ccd_missing_data = "mocap",
    ignore = "needs ../shared/data/mocap/cmu-131 (absent at build time)"
)]
fn cmu_131_03_loads_with_plausible_kinematics() {
    check_clip("scaled_131_03.bvh", 1248);
}
