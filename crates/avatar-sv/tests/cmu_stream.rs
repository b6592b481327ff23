//! The real CMU walk `../shared/data/mocap/cmu-131/scaled_131_03.bvh` streamed through
//! [`AvatarStream`] against a floor and a thin plate across the path: every step's answers
//! are checked against a sampled reference on a subset of steps, contacts are found, and the
//! Table 1 averages are printed. Reported as ignored when the data is absent at build time
//! (`build.rs`).

use std::path::PathBuf;

use ccd_avatar_sv::{
    Avatar, AvatarStepOptions, AvatarStepReport, AvatarStream, Environment, RadiusTable,
};
use ccd_distance::segment_triangle;
use ccd_geometry::{TriMesh, Triangle};
use ccd_kinematics::glam::DVec3;
use ccd_kinematics::mocap::MocapClip;
use ccd_kinematics::{ArticulatedMotion, Pose};

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
        "CMU avatar stream test: {} not found (set CCD_SHARED_DIR)",
        path.display()
    );
    path
}

/// A floor at height `y` and a thin vertical plate (1 mm thick, two faces) across the
/// walking path at the root's position of frame `at`.
fn scene(clip: &MocapClip, y: f64, at: usize) -> TriMesh {
    let root = clip.pose(at).unwrap().relative[0].translation;
    let next = clip.pose(at + 10).unwrap().relative[0].translation;
    let dir = DVec3::new(next.x - root.x, 0.0, next.z - root.z).normalize();
    let side = DVec3::new(-dir.z, 0.0, dir.x);
    let c = DVec3::new(root.x, 0.0, root.z);
    let mut v = vec![
        DVec3::new(-20.0, y, -20.0),
        DVec3::new(20.0, y, -20.0),
        DVec3::new(20.0, y, 20.0),
        DVec3::new(-20.0, y, 20.0),
    ];
    let mut f = vec![[0, 2, 1], [0, 3, 2]];
    for (k, off) in [0.0, 0.001].into_iter().enumerate() {
        let b = c + dir * off;
        let s = v.len() as u32;
        v.extend([
            b - side * 0.6 + DVec3::Y * 0.9,
            b + side * 0.6 + DVec3::Y * 0.9,
            b + side * 0.6 + DVec3::Y * 1.3,
            b - side * 0.6 + DVec3::Y * 1.3,
        ]);
        if k == 0 {
            f.extend([[s, s + 1, s + 2], [s, s + 2, s + 3]]);
        } else {
            f.extend([[s, s + 2, s + 1], [s, s + 3, s + 2]]);
        }
    }
    TriMesh::new(v, f).unwrap()
}

fn gap_at(avatar: &Avatar, motion: &ArticulatedMotion, tris: &[Triangle], t: f64) -> f64 {
    let mut g = f64::INFINITY;
    for c in avatar.capsules() {
        let seg = c.world_segment(&motion.world_at(c.link, t).unwrap());
        for tri in tris {
            g = g.min(segment_triangle(&seg, tri).distance - c.radius);
        }
    }
    g
}

/// First of 2,000 samples with gap ≤ 0 (no bisection: a coarse check on real frames).
fn first_sampled_contact(
    avatar: &Avatar,
    motion: &ArticulatedMotion,
    tris: &[Triangle],
) -> Option<f64> {
    (0..=2000)
        .map(|i| f64::from(i) / 2000.0)
        .find(|&t| gap_at(avatar, motion, tris, t) <= 0.0)
}

/// Streams every `stride`-th frame of the clip over a floor at height `floor` and the plate.
fn run(clip: &MocapClip, stride: usize, floor: f64) {
    let avatar = Avatar::from_mocap(clip, &RadiusTable::human()).unwrap();
    let mesh = scene(clip, floor, 700);
    let tris: Vec<Triangle> = mesh.triangle_iter().collect();
    let mut stream = AvatarStream::new(
        avatar.clone(),
        Environment::new(mesh).unwrap(),
        AvatarStepOptions::default(),
    )
    .unwrap();
    let frames = clip.frame_count();
    let mut reports: Vec<AvatarStepReport> = Vec::new();
    let mut prev: Option<Pose> = None;
    let (mut checked, mut exact_contacts, mut sv_contacts) = (0, 0, 0);
    let mut gaps = Vec::new();
    for f in (0..frames).step_by(stride) {
        let pose = clip.pose(f).unwrap();
        let Some(report) = stream.push(pose.clone()).unwrap() else {
            prev = Some(pose);
            continue;
        };
        let exact = report.exact.unwrap().contact;
        let sv = report.swept.as_ref().unwrap();
        exact_contacts += usize::from(exact.is_some());
        if let (Some(e), Some(c)) = (exact, sv.collision)
            && e.toc > 0.0
        {
            gaps.push(e.toc - c.t_c);
        }
        sv_contacts += usize::from(sv.collision.is_some());
        if f % (25 * stride) == 0 || exact.is_some() != sv.collision.is_some() {
            checked += 1;
            let motion =
                ArticulatedMotion::between(avatar.model(), prev.as_ref().unwrap(), &pose).unwrap();
            if let Some(r) = first_sampled_contact(&avatar, &motion, &tris) {
                let e = exact.unwrap_or_else(|| panic!("frame {f}: exact missed {r}"));
                assert!(e.toc <= r + 1e-9, "frame {f}: exact toc {} > {r}", e.toc);
                assert!(sv.collision.is_some(), "frame {f}: SV missed {r}");
                assert!(sv.t_c <= r + 1e-9, "frame {f}: t_c {} > {r}", sv.t_c);
            }
        }
        reports.push(report);
        prev = Some(pose);
    }
    assert_eq!(stream.steps(), frames.div_ceil(stride) - 1);
    let n = reports.len() as f64;
    let mean = |f: fn(&AvatarStepReport) -> f64| reports.iter().map(f).sum::<f64>() / n;
    eprintln!(
        "every {stride} frames, floor at {floor}: {} steps ({checked} checked against 2,000 samples), {} capsules: exact contacts {exact_contacts}, SV collisions {sv_contacts}",
        reports.len(),
        avatar.capsules().len()
    );
    eprintln!(
        "mean µs: position {:.1}, motion {:.1}, swept AABBs {:.1}, culling {:.1}, SV {:.1}, interference {:.1}, backtracking {:.1}, exact {:.1}; surviving capsules {:.2}, time groups {:.1}",
        mean(|r| r.stats.position_update_us),
        mean(|r| r.stats.motion_parameters_us),
        mean(|r| r.stats.swept_aabbs_us),
        mean(|r| r.stats.aabb_culling_us),
        mean(|r| r.stats.sv_computation_us),
        mean(|r| r.stats.interference_us),
        mean(|r| r.stats.backtracking_us),
        mean(|r| r.stats.exact_us),
        mean(|r| r.stats.surviving_capsules as f64),
        mean(|r| r.stats.time_groups as f64),
    );
    eprintln!(
        "exact: mean {:.1} CA iterations, {:.1} distance tests per step; candidate pairs {:.1}",
        mean(|r| r.exact.unwrap().stats.iterations as f64),
        mean(|r| r.exact.unwrap().stats.distance_tests as f64),
        mean(|r| r.stats.candidate_pairs as f64),
    );
    gaps.sort_by(f64::total_cmp);
    if !gaps.is_empty() {
        eprintln!(
            "exact toc − t_c over {} steps with a contact after t = 0: median {:.4}, p95 {:.4}, max {:.4}",
            gaps.len(),
            gaps[gaps.len() / 2],
            gaps[gaps.len() * 95 / 100],
            gaps[gaps.len() - 1]
        );
    }
    // the walk meets the plate and the feet graze the floor
    assert!(exact_contacts > 0 && sv_contacts > 0);
    assert!(exact_contacts < reports.len());
}

#[test]
#[cfg_attr(
    ccd_missing_data = "mocap",
    ignore = "needs ../shared/data/mocap/cmu-131 (absent at build time)"
)]
fn cmu_walk_streams_against_floor_and_plate() {
    let clip = MocapClip::from_file(clip_path("scaled_131_03.bvh")).unwrap();
    run(&clip, 1, -0.02);
}

#[test]
#[cfg_attr(
    ccd_missing_data = "mocap",
    ignore = "needs ../shared/data/mocap/cmu-131 (absent at build time)"
)]
fn cmu_walk_every_fifth_frame_fast_motion() {
    let clip = MocapClip::from_file(clip_path("scaled_131_03.bvh")).unwrap();
    run(&clip, 5, -0.04);
}
