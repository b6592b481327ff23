//! Loads the real meshes of the shared data folder: every UNC frame PLY (counts from
//! `shared/data/README.md`) and the Panda collision STLs. Reported as ignored (with the
//! missing folder) when the data is absent at build time (`build.rs`).
#![cfg(feature = "io")]

mod support;

use ccd_geometry::io;

/// `shared/data/README.md`, unc-frames table: folder, both frames, vertices, triangles.
const FRAMES: [(&str, [&str; 2], usize, usize); 5] = [
    (
        "cloth-ball",
        ["cloth_ball92.ply", "cloth_ball93.ply"],
        46_598,
        92_230,
    ),
    (
        "n-body-simulation",
        ["balls16_18.ply", "balls16_19.ply"],
        73_960,
        146_480,
    ),
    ("cloth-funnel", ["227.ply", "228.ply"], 9_450, 18_484),
    ("rod-twist", ["3036.ply", "3037.ply"], 39_940, 79_864),
    ("armadillo-rollers", ["326.ply", "327.ply"], 12_135, 24_242),
];

#[test]
#[cfg_attr(
    ccd_missing_data = "unc-frames",
    ignore = "needs ../shared/data/unc-frames (absent at build time)"
)]
fn unc_frames_match_the_readme_table() {
    let shared = support::shared_data("UNC frame PLYs");
    let root = shared.join("unc-frames");
    let mut listed = 0;
    for (folder, frames, vertex_count, triangle_count) in FRAMES {
        let dir = root.join(folder);
        let mut meshes = Vec::new();
        for frame in frames {
            let path = dir.join(frame);
            let mesh = io::read_ply(&path).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(mesh.vertex_count(), vertex_count, "{}", path.display());
            assert_eq!(mesh.triangle_count(), triangle_count, "{}", path.display());
            assert!(!mesh.aabb().is_empty());
            meshes.push(mesh);
        }
        // consecutive frames share their topology and move a little
        assert_eq!(meshes[0].triangles(), meshes[1].triangles(), "{folder}");
        assert_ne!(meshes[0].vertices(), meshes[1].vertices(), "{folder}");
        // every .ply of the folder is one of the two listed frames
        let plys = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(Result::ok)
            .filter(|e| e.path().extension().is_some_and(|x| x == "ply"))
            .count();
        assert_eq!(plys, 2, "{folder}");
        listed += 1;
    }
    let folders = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.path().is_dir())
        .count();
    assert_eq!(folders, listed, "a frame folder is missing from the table");
}

#[test]
#[cfg_attr(
    ccd_missing_data = "panda-meshes",
    ignore = "needs ../shared/data/robots/panda/meshes/collision or `cargo xtask robots` (absent at build time)"
)]
fn panda_collision_stls() {
    // the shared checkout's robots/panda, or the registry robots (build.rs chose)
    let dir = std::path::PathBuf::from(env!("CCD_ROBOT_PANDA")).join("meshes/collision");
    assert!(
        dir.is_dir(),
        "Panda collision STLs: {} not found",
        dir.display()
    );
    // (file, triangles) as counted from the binary headers; every one is a closed hull.
    let expected = [
        ("finger.stl", 32),
        ("hand.stl", 200),
        ("link0.stl", 200),
        ("link1.stl", 300),
        ("link2.stl", 300),
        ("link3.stl", 300),
        ("link4.stl", 300),
        ("link5.stl", 300),
        ("link6.stl", 200),
        ("link7.stl", 200),
    ];
    for (name, triangles) in expected {
        let path = dir.join(name);
        let mesh = io::read_mesh(&path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(mesh.triangle_count(), triangles, "{name}");
        // welded: a closed triangle mesh of genus 0 has V = T / 2 + 2
        assert_eq!(mesh.vertex_count(), triangles / 2 + 2, "{name}");
        assert!(
            mesh.edges().iter().all(|e| e.faces.len() == 2),
            "{name} is not closed after welding"
        );
        // metres: the Panda's links are a few centimetres to ~0.3 m across
        let size = mesh.aabb().extents().max_element();
        assert!((0.01..0.5).contains(&size), "{name}: {size}");
    }
    let stls = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(Result::ok)
        .count();
    assert_eq!(stls, expected.len());
}

#[test]
#[cfg_attr(
    ccd_missing_data = "pr2-meshes",
    ignore = "needs ../shared/data/robots/pr2/meshes or `cargo xtask robots` (absent at build time)"
)]
fn pr2_stls_starting_with_solid_are_binary() {
    let root = std::path::PathBuf::from(env!("CCD_ROBOT_PR2")).join("meshes");
    assert!(root.is_dir(), "PR2 STLs: {} not found", root.display());
    let mut files: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(Result::ok)
        .flat_map(|d| std::fs::read_dir(d.path()).unwrap().filter_map(Result::ok))
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "stl"))
        .collect();
    files.sort();
    let (mut total, mut solid) = (0, 0);
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        // every PR2 mesh is binary: its size is 84 + 50 n for the n in its header
        let n = u32::from_le_bytes(bytes[80..84].try_into().unwrap()) as usize;
        assert_eq!(bytes.len(), 84 + 50 * n, "{}", path.display());
        let mesh = io::read_stl(path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(mesh.triangle_count(), n, "{}", path.display());
        assert!(mesh.vertex_count() <= 3 * n && mesh.vertex_count() >= 3);
        // metres: parts of a human-sized robot
        let size = mesh.aabb().extents().max_element();
        assert!((0.01..2.0).contains(&size), "{}: {size}", path.display());
        if bytes.starts_with(b"solid") {
            solid += 1;
        }
        total += n;
    }
    // shared/data/README.md: 18,211 triangles in all; pr2_wheel, hok_tilt and torso start
    // with `solid`, the trap this checks
    assert_eq!((files.len(), total, solid), (32, 18_211, 3));
}
