//! `articulated` lines with the same robot and environment file share one prepared scene
//! (item 5 of the planners' issue), and answer as lines with the environment inline.

use std::path::PathBuf;

use ccd_cli::run::Runner;
use ccd_cli::schema::Outcome;

fn data() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

#[test]
fn one_prepared_scene_per_robot_and_environment_file() {
    let dir = std::env::temp_dir().join(format!("ccd-cli-scene-cache-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // two walls as separate pieces (the hull screen is on) in one OBJ file
    std::fs::write(
        dir.join("walls.obj"),
        "v 0.6 -1 -1\nv 0.6 1 -1\nv 0.6 0 3\nv -0.6 -1 -1\nv -0.6 1 -1\nv -0.6 0 3\nf 1 2 3\nf 4 6 5\n",
    )
    .unwrap();
    let inline = r#"{"vertices":[[0.6,-1,-1],[0.6,1,-1],[0.6,0,3],[-0.6,-1,-1],[-0.6,1,-1],[-0.6,0,3]],"triangles":[[0,1,2],[3,5,4]]}"#;
    let urdf = data().join("arm.urdf");
    let urdf = urdf.to_str().unwrap();
    let runner = Runner::new(&dir);
    let edges = [(0.0, 1.5), (0.0, -1.5), (0.3, 0.2), (-0.2, -1.2)];
    for (i, (q0, q1)) in edges.iter().enumerate() {
        let by_file = format!(
            r#"{{"kind":"articulated","urdf":{urdf:?},"environment":"walls.obj","q0":[{q0}],"q1":[{q1}]}}"#
        );
        let by_value = format!(
            r#"{{"kind":"articulated","urdf":{urdf:?},"environment":{inline},"q0":[{q0}],"q1":[{q1}]}}"#
        );
        let a = runner.process_line(by_file.as_bytes(), i as u64);
        let b = runner.process_line(by_value.as_bytes(), i as u64);
        let (Outcome::Ok(a), Outcome::Ok(b)) = (&a.outcome, &b.outcome) else {
            panic!("{a:?} {b:?}");
        };
        let (a, b) = (
            serde_json::to_value(a).unwrap(),
            serde_json::to_value(b).unwrap(),
        );
        assert_eq!(a, b, "edge {i}");
        if i < 2 {
            // turning 1.5 rad either way reaches a wall
            assert!(a["toc"].is_f64(), "{a}");
        }
    }
    // every file line used the one scene
    assert_eq!(runner.cached_scenes(), 1);
    std::fs::remove_dir_all(&dir).ok();
}
