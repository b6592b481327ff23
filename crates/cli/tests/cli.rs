//! Runs the `ccd` binary on the small meshes of `tests/data` and on bad input: JSON results,
//! record order, shards, exit codes, and clear errors instead of crashes.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

/// Runs `ccd ARGS` in `tests/data`, with `stdin` as standard input.
fn ccd_in(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ccd"))
        .args(args)
        .current_dir(data())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ccd starts");
    let mut pipe = child.stdin.take().expect("stdin");
    pipe.write_all(stdin).expect("stdin written");
    drop(pipe);
    child.wait_with_output().expect("ccd runs")
}

fn ccd(args: &[&str]) -> Output {
    ccd_in(args, b"")
}

fn code(out: &Output) -> i32 {
    out.status.code().expect("exited, not killed by a signal")
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

fn lines(out: &Output) -> Vec<Value> {
    std::str::from_utf8(&out.stdout)
        .expect("utf-8")
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A temporary folder for one test, removed at the end.
struct Temp(PathBuf);

impl Temp {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("ccd-cli-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        Self(dir)
    }

    fn file(&self, name: &str, content: &[u8]) -> String {
        let path = self.0.join(name);
        std::fs::write(&path, content).expect("temp file");
        path.to_str().expect("utf-8 path").to_owned()
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        std::fs::remove_dir_all(&self.0).ok();
    }
}

#[test]
fn toc_of_a_sliding_cube_is_just_before_half() {
    // cube [0,1]^3 + (3 - 4t) x: its face x = 3 - 4t meets the tetrahedron's vertex x = 1
    // at t = 0.5; the tolerance 1e-3 allows reporting up to 1e-3 / 4 earlier
    let out = ccd(&[
        "toc",
        "tetra.obj",
        "cube.stl",
        "--b-start",
        "3,0,0,1,0,0,0",
        "--b-end",
        "-1,0,0,1,0,0,0",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let v = json(&out);
    assert_eq!(v["kind"], "rigid");
    let toc = v["toc"].as_f64().expect("a contact");
    assert!((0.5 - 1e-3 / 4.0 - 1e-9..=0.5).contains(&toc), "toc {toc}");
    assert_eq!(v["contact"]["toc"], v["toc"]);
    assert_eq!(v["contact"]["status"], "converged");
    assert!(v["contact"]["distance"].as_f64().unwrap() <= 1e-3);
}

#[test]
fn toc_takes_matrix_poses_and_hyphen_values() {
    // the same motion mirrored: the cube comes from x = -4 (a 4x4 start pose), the contact
    // is the cube's face x = 1 reaching the tetrahedron's face x = 0 at t = 0.75
    let out = ccd(&[
        "toc",
        "tetra.obj",
        "cube.stl",
        "--b-start",
        "[[1,0,0,-4],[0,1,0,0],[0,0,1,0],[0,0,0,1]]",
        "--b-end=-0,0,0,1,0,0,0",
        "--pretty",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let toc = json(&out)["toc"].as_f64().expect("a contact");
    assert!(
        (0.75 - 1e-3 / 4.0 - 1e-9..=0.75).contains(&toc),
        "toc {toc}"
    );
}

#[test]
fn toc_without_contact_is_null() {
    let out = ccd(&[
        "toc",
        "tetra.obj",
        "tetra.obj",
        "--b-start",
        "0,3,0,1,0,0,0",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let v = json(&out);
    assert!(v["toc"].is_null() && v["contact"].is_null(), "{v}");
}

#[test]
fn frames_reports_the_fall_and_every_pair() {
    let first = ccd(&["frames", "f0.ply", "f1.ply"]);
    assert_eq!(code(&first), 0, "{}", stderr(&first));
    let v = json(&first);
    let toc = v["toc"].as_f64().expect("a contact");
    assert!(toc <= 0.5 && toc > 0.5 - 1e-5, "toc {toc}");
    assert_eq!(v["contacts"].as_array().unwrap().len(), 1);
    let all = json(&ccd(&["frames", "f0.ply", "f1.ply", "--all"]));
    let contacts = all["contacts"].as_array().unwrap();
    // the vertex (0.1, 0.1) of the falling triangle hits the face, and its edges cross two
    // edges of the lower triangle
    assert!(contacts.len() >= 3, "{all}");
    assert!(
        contacts
            .iter()
            .any(|c| c["feature_b"] == serde_json::json!(["face", 0]))
    );
    assert_eq!(all["toc"], v["toc"]);
}

#[test]
fn frames_stepsize_and_resting_apart() {
    // the upper triangle falls from 1 above the lower one: with s = 0.2 the step ends at 0.4
    let out = ccd(&["frames", "f0.ply", "f1.ply", "--stepsize"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let v = json(&out);
    let step = v["stepsize"].as_f64().expect("a step size");
    assert!(step > 0.0 && step < v["toc"].as_f64().unwrap(), "{v}");
    assert!(v["limiting"]["target"].as_f64().is_some(), "{v}");
    let half = json(&ccd(&[
        "frames",
        "f0.ply",
        "f1.ply",
        "--stepsize",
        "--scale",
        "0.5",
    ]));
    assert!(half["stepsize"].as_f64().unwrap() < step);
    // a bad rule is an error naming it
    let bad = ccd(&["frames", "f0.ply", "f1.ply", "--stepsize", "--scale", "1.5"]);
    assert_eq!(code(&bad), 1);
    assert!(stderr(&bad).contains("scale"), "{}", stderr(&bad));
    let bad = ccd(&[
        "frames",
        "f0.ply",
        "f1.ply",
        "--stepsize",
        "--min-distance",
        "-1",
    ]);
    assert_eq!(code(&bad), 1);
    assert!(stderr(&bad).contains("min_distance"), "{}", stderr(&bad));
    // nothing rests at t = 0 here: the same toc, no resting list
    let apart = json(&ccd(&["frames", "f0.ply", "f1.ply", "--separate-resting"]));
    assert_eq!(apart["toc"], v["toc"]);
    assert!(apart.get("resting").is_none());
    // one mesh without self-collision tests nothing: an error, not a silent null
    let none = ccd(&["frames", "f0.ply", "f1.ply", "--no-self-collision"]);
    assert_eq!(code(&none), 1);
    assert!(
        stderr(&none).contains("self_collision"),
        "{}",
        stderr(&none)
    );
}

#[test]
fn frames_with_different_topology_is_an_error() {
    let out = ccd(&["frames", "f0.ply", "tetra.obj"]);
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).contains("frames differ in topology"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn batch_writes_records_in_input_order_on_any_thread_count() {
    let one = ccd(&["batch", "queries.jsonl", "--threads", "1"]);
    let two = ccd(&["batch", "queries.jsonl", "--threads", "2"]);
    assert_eq!(code(&one), 0, "{}", stderr(&one));
    assert_eq!(one.stdout, two.stdout, "same records, same order");
    let records = lines(&one);
    let kinds: Vec<&str> = records
        .iter()
        .map(|r| r["ok"]["kind"].as_str().expect("ok"))
        .collect();
    assert_eq!(
        kinds,
        ["rigid", "rigid", "vertex_face", "edge_edge", "frames"]
    );
    for (i, r) in records.iter().enumerate() {
        assert_eq!(r["line"], i as u64 + 1);
    }
    assert_eq!(records[0]["id"], "slide");
    assert!(records[1]["ok"]["toc"].is_null());
    assert!(records[4]["ok"]["toc"].as_f64().is_some());
    let summary = stderr(&one);
    assert!(
        summary.contains("5 queries: 5 ok (4 with contact), 0 errors"),
        "{summary}"
    );
}

/// A record depends on its query only, not on what ran before it in the batch: the rigid
/// query of the cube and the tetrahedron used to order the two bodies by their address, so
/// its last bits changed when the tetrahedron happened to be loaded first (as happens with
/// several threads).
#[test]
fn a_record_does_not_depend_on_the_order_files_were_loaded_in() {
    let query = r#"{"kind":"rigid","id":1,"a":"cube.stl","b":"tetra.obj","a_start":[-0.896765,-0.125412,0.212417,0.7357213552064729,0.5256220587470523,-0.42318914207182934,-0.05784884514119828],"a_end":[0.758325,1.40808,-1.527501,0.8647944884334575,0.21131797740131483,0.21789382034635688,-0.3999968603089298],"b_start":[0.075913,-0.097051,1.429045,0.9847834275699798,-0.15258097804193096,0.04999969735149384,0.06648816577443735],"b_end":[0.737658,-1.986143,0.528742,0.7846634976449193,-0.46587494818084574,0.33561285238256683,0.2337257825674643]}"#;
    let load = |first: &str| {
        format!(
            r#"{{"kind":"rigid","id":0,"a":"{first}","b":"{first}","b_start":[0,5,0,1,0,0,0]}}"#
        )
    };
    let mut records = Vec::new();
    for prefix in ["", "tetra.obj", "cube.stl"] {
        let input = if prefix.is_empty() {
            format!("{query}\n")
        } else {
            format!("{}\n{query}\n", load(prefix))
        };
        let out = ccd_in(&["batch", "-", "--threads", "1"], input.as_bytes());
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let mut record = lines(&out).pop().expect("a record");
        assert!(record["ok"]["toc"].as_f64().is_some(), "{record}");
        record["line"] = Value::Null;
        records.push(record);
    }
    assert_eq!(records[0], records[1], "tetrahedron loaded first");
    assert_eq!(records[0], records[2], "cube loaded first");
}

#[test]
fn batch_shards_partition_the_input() {
    let all = lines(&ccd(&["batch", "queries.jsonl"]));
    let mut parts = Vec::new();
    for shard in ["0/2", "1/2"] {
        let out = ccd(&["batch", "queries.jsonl", "--shard", shard]);
        assert_eq!(code(&out), 0);
        assert!(stderr(&out).contains(&format!("shard {shard}")));
        parts.extend(lines(&out));
    }
    parts.sort_by_key(|r| r["line"].as_u64());
    assert_eq!(parts, all);
    let lines0: Vec<u64> = lines(&ccd(&["batch", "queries.jsonl", "--shard", "0/2"]))
        .iter()
        .map(|r| r["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines0, [1, 3, 5]);
}

#[test]
fn batch_bad_lines_are_error_records_and_the_run_goes_on() {
    let out = ccd(&["batch", "bad.jsonl"]);
    assert_eq!(code(&out), 3, "some records are errors");
    let records = lines(&out);
    assert_eq!(records.len(), 3);
    assert_eq!(records[0]["error"]["kind"], "parse");
    assert!(
        records[0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("tolerence")
    );
    assert_eq!(records[0]["id"], "typo");
    assert_eq!(
        (
            records[1]["line"].as_u64(),
            records[1]["error"]["kind"].as_str()
        ),
        (Some(2), Some("parse"))
    );
    assert_eq!(records[2]["error"]["kind"], "file");
    assert!(
        records[2]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no-such-mesh.obj")
    );
    assert!(stderr(&out).contains("3 queries: 0 ok (0 with contact), 3 errors"));
}

#[test]
fn batch_reads_stdin_and_skips_blank_lines() {
    let input = std::fs::read(data().join("queries.jsonl")).unwrap();
    let mut with_blanks = b"\n   \n".to_vec();
    with_blanks.extend_from_slice(&input);
    let out = ccd_in(&["batch", "-", "--threads", "2"], &with_blanks);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let records = lines(&out);
    assert_eq!(records.len(), 5);
    assert_eq!(records[0]["line"], 3, "line numbers count the blank lines");
}

#[test]
fn batch_of_garbage_gives_one_error_record_per_line() {
    let mut garbage = Vec::new();
    for i in 0u32..200 {
        // arbitrary bytes (no newline inside), including invalid UTF-8, NUL, deep nesting
        let line: Vec<u8> = (0..(i % 37))
            .map(|j| (i.wrapping_mul(2_654_435_761).wrapping_add(j * 97) >> 7) as u8)
            .filter(|&b| b != b'\n' && !b.is_ascii_whitespace())
            .collect();
        garbage.extend_from_slice(if line.is_empty() { b"{" } else { &line });
        garbage.push(b'\n');
    }
    garbage.extend_from_slice(&[b'['; 10_000]);
    garbage.push(b'\n');
    garbage.extend_from_slice(br#"{"kind":"vertex_face","x0":[[1e999,0,0],[0,0,0],[1,0,0],[0,1,0]],"x1":[[0,0,0],[0,0,0],[1,0,0],[0,1,0]]}"#);
    let out = ccd_in(&["batch", "-"], &garbage);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    let records = lines(&out);
    assert_eq!(records.len(), 202);
    for (i, r) in records.iter().enumerate() {
        assert_eq!(r["line"], i as u64 + 1);
        assert_eq!(r["error"]["kind"], "parse", "{r}");
    }
}

#[test]
fn missing_and_broken_files_are_clear_errors() {
    let temp = Temp::new("broken");
    let huge_ply = temp.file(
        "huge.ply",
        b"ply\nformat ascii 1.0\nelement vertex 4000000000\nproperty double x\nproperty double y\nproperty double z\nelement face 4000000000\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n",
    );
    let binary = temp.file("noise.stl", &[0xFFu8; 300]);
    let nan_obj = temp.file("nan.obj", b"v nan 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    let dir = temp.0.to_str().unwrap().to_owned();
    for (args, needle) in [
        (vec!["toc", "no-such.obj", "tetra.obj"], "no-such.obj"),
        (vec!["toc", "tetra.obj", huge_ply.as_str()], "huge.ply"),
        (vec!["toc", binary.as_str(), "tetra.obj"], "noise.stl"),
        (vec!["toc", nan_obj.as_str(), "tetra.obj"], "nan.obj"),
        (vec!["toc", dir.as_str(), "tetra.obj"], "ccd-cli-broken"),
        (vec!["toc", "tetra.mesh", "tetra.obj"], "extension"),
        (vec!["frames", "f0.ply", "no-such.ply"], "no-such.ply"),
        (vec!["batch", "no-such.jsonl"], "no-such.jsonl"),
    ] {
        let out = ccd(&args);
        assert_eq!(code(&out), 1, "{args:?}: {}", stderr(&out));
        assert!(out.stdout.is_empty(), "{args:?}");
        let err = stderr(&out);
        assert!(
            err.starts_with("ccd: error: ") && err.contains(needle),
            "{args:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn a_bad_pose_is_explained_once_without_serde_names() {
    // the reason of a pose error was also its error `source`, so the printed chain said it
    // twice ("b_start: pose has a non-finite entry: pose has a non-finite entry")
    let out = ccd(&[
        "toc",
        "tetra.obj",
        "cube.stl",
        "--b-start",
        "nan,0,0,1,0,0,0",
    ]);
    let err = stderr(&out);
    assert_eq!(code(&out), 1, "{err}");
    assert_eq!(err.matches("non-finite").count(), 1, "{err}");
    assert!(err.contains("b_start"), "{err}");
    // a JSON pose that is neither form names the forms, not serde's "untagged enum Pose"
    let out = ccd(&["toc", "tetra.obj", "cube.stl", "--b-start", "[1, 2]"]);
    let err = stderr(&out);
    assert_eq!(code(&out), 2, "{err}");
    assert!(!err.contains("untagged"), "{err}");
    assert!(err.contains("qw, qx, qy, qz"), "{err}");
}

#[test]
fn bad_poses_and_options_are_errors_not_panics() {
    for (args, want) in [
        // parsed by clap: usage errors
        (vec!["--b-start", "1,2,3"], 2),
        (vec!["--b-start", "a,0,0,1,0,0,0"], 2),
        (vec!["--b-start", "[[1,0,0],[0,1,0]]"], 2),
        (vec!["--tolerance", "fast"], 2),
        // parsed, then rejected by the query
        (vec!["--b-start", "nan,0,0,1,0,0,0"], 1),
        (vec!["--b-start", "inf,0,0,1,0,0,0"], 1),
        (vec!["--b-start", "0,0,0,2,0,0,0"], 1),
        (vec!["--b-start", "0,0,0,0,0,0,0"], 1),
        (vec!["--b-start", "1e300,0,0,1,0,0,0"], 1),
        (
            vec!["--b-start", "[[2,0,0,0],[0,1,0,0],[0,0,1,0],[0,0,0,1]]"],
            1,
        ),
        (
            vec!["--b-start", "[[1,0,0,0],[0,1,0,0],[0,0,1,0],[1,0,0,1]]"],
            1,
        ),
        (vec!["--tolerance", "0"], 1),
        (vec!["--tolerance", "-1"], 1),
        (vec!["--tolerance", "NaN"], 1),
    ] {
        let mut all = vec!["toc", "tetra.obj", "cube.stl"];
        all.extend(&args);
        let out = ccd(&all);
        assert_eq!(code(&out), want, "{args:?}: {}", stderr(&out));
        assert!(
            !stderr(&out).contains("panicked"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    for args in [
        vec!["batch", "queries.jsonl", "--threads", "100000"],
        vec!["batch", "queries.jsonl", "--threads", "-1"],
        vec!["batch", "queries.jsonl", "--shard", "2/2"],
        vec!["batch", "queries.jsonl", "--shard", "1/0"],
        vec!["batch", "queries.jsonl", "--shard", "x"],
        vec!["frames", "f0.ply", "f1.ply", "--tolerance", "inf"],
    ] {
        let out = ccd(&args);
        assert!(matches!(code(&out), 1 | 2), "{args:?}: {}", stderr(&out));
        assert!(out.stdout.is_empty() && !stderr(&out).contains("panicked"));
    }
}

#[test]
fn batch_paths_are_relative_to_the_batch_file() {
    let temp = Temp::new("relative");
    let mesh = std::fs::read(data().join("tetra.obj")).unwrap();
    temp.file("t.obj", &mesh);
    let batch = temp.file(
        "q.jsonl",
        br#"{"kind":"rigid","a":"t.obj","b":"t.obj","b_start":[0,0.5,0,1,0,0,0]}
{"kind":"rigid","a":"t.obj","b":"t.obj","b_start":[0,3,0,1,0,0,0],"b_end":[0,-3,0,1,0,0,0]}
"#,
    );
    let out = ccd(&["batch", &batch]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let records = lines(&out);
    assert_eq!(records[0]["ok"]["contact"]["status"], "initially_touching");
    assert!(records[1]["ok"]["toc"].as_f64().is_some());
}

#[test]
fn articulated_queries_report_the_link_that_hits() {
    // the arm (a 0.1-thick box from z = 0.1 to 1.1) turns about y from 0 to 1.5 rad towards
    // a wall at x = 0.6: its far corner (x = 0.05, z = 1.1 above the joint at z = 0.1)
    // reaches x = 0.6 at angle asin(0.6 / |(0.05, 1.0)|) - atan(0.05) ~ 0.594, t ~ 0.40
    let urdf = data().join("arm.urdf");
    let urdf = urdf.to_str().unwrap();
    let wall = r#"{"vertices":[[0.6,-1,-1],[0.6,1,-1],[0.6,0,3]],"triangles":[[0,1,2]]}"#;
    let temp = Temp::new("articulated");
    let batch = temp.file(
        "q.jsonl",
        format!(
            "{{\"kind\":\"articulated\",\"urdf\":{urdf:?},\"environment\":{wall},\"q0\":[0],\"q1\":[1.5]}}\n\
             {{\"kind\":\"articulated\",\"urdf\":{urdf:?},\"environment\":{wall},\"q0\":[0],\"q1\":[-1.5]}}\n\
             {{\"kind\":\"articulated\",\"urdf\":{urdf:?},\"environment\":{wall},\"q0\":[0,1],\"q1\":[1,2]}}\n"
        )
        .as_bytes(),
    );
    let out = ccd(&["batch", &batch]);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    let records = lines(&out);
    let hit = &records[0]["ok"];
    let toc = hit["toc"].as_f64().expect("the arm hits the wall");
    let exact = ((0.6f64 / 0.05f64.hypot(1.0)).asin() - 0.05f64.atan()) / 1.5;
    assert!(
        toc <= exact && toc > exact - 0.01,
        "toc {toc}, exact {exact}"
    );
    assert_eq!(hit["contact"]["link_a"], "upper");
    assert!(hit["contact"]["link_b"].is_null());
    assert!(
        records[1]["ok"]["toc"].is_null(),
        "turning away: {}",
        records[1]
    );
    assert_eq!(records[2]["error"]["kind"], "input", "{}", records[2]);
}
