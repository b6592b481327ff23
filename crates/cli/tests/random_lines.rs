//! Random bytes, and valid query lines with random damage, as batch lines: always one
//! record with the line's number (an error record unless the damage left a valid query),
//! never a panic; the record serializes and reads back.

use ccd_cli::run::Runner;
use ccd_cli::schema::{ErrorKind, Outcome, ResultRecord};
use proptest::prelude::*;

const VALID: &[&str] = &[
    r#"{"kind":"rigid","id":1,"a":{"vertices":[[0,0,0],[1,0,0],[0,1,0],[0,0,1]],"triangles":[[0,2,1],[0,1,3],[0,3,2],[1,2,3]]},"b":{"vertices":[[0,0,0],[1,0,0],[0,1,0]],"triangles":[[0,1,2]]},"b_start":[3,0,0,1,0,0,0],"b_end":[[1,0,0,-1],[0,1,0,0],[0,0,1,0],[0,0,0,1]],"tolerance":0.001}"#,
    r#"{"kind":"vertex_face","x0":[[0.2,0.2,1],[0,0,0],[1,0,0],[0,1,0]],"x1":[[0.2,0.2,-1],[0,0,0],[1,0,0],[0,1,0]]}"#,
    r#"{"kind":"edge_edge","id":"e","x0":[[-1,0,0],[1,0,0],[0,-1,1],[0,1,1]],"x1":[[-1,0,0],[1,0,0],[0,-1,-1],[0,1,-1]],"max_iterations":5}"#,
    r#"{"kind":"frames","all":true,"f0":{"vertices":[[0,0,0],[1,0,0],[0,1,0],[0.1,0.1,1],[1.1,0.1,1],[0.1,1.1,1]],"triangles":[[0,1,2],[3,4,5]]},"f1":{"vertices":[[0,0,0],[1,0,0],[0,1,0],[0.1,0.1,-1],[1.1,0.1,-1],[0.1,1.1,-1]],"triangles":[[0,1,2],[3,4,5]]}}"#,
];

fn check(runner: &Runner, bytes: &[u8], line: u64) -> ResultRecord {
    let record = runner.process_line(bytes, line);
    assert_eq!(record.line, Some(line));
    if let Outcome::Error(e) = &record.outcome {
        assert_ne!(
            e.kind,
            ErrorKind::Internal,
            "a panic was caught: {}",
            e.message
        );
        assert!(!e.message.is_empty());
    }
    let text = serde_json::to_string(&record).expect("a record serializes");
    let back: ResultRecord = serde_json::from_str(&text).expect("and reads back");
    assert_eq!(back.line, record.line);
    record
}

#[test]
fn the_valid_lines_run() {
    let runner = Runner::new(".").without_files();
    for (i, line) in VALID.iter().enumerate() {
        let record = check(&runner, line.as_bytes(), i as u64 + 1);
        let Outcome::Ok(result) = &record.outcome else {
            panic!("{record:?}")
        };
        assert!(
            result.toc().is_some(),
            "line {i}: every query here collides"
        );
    }
}

proptest! {
    #[test]
    fn random_bytes_give_an_error_record(bytes in proptest::collection::vec(any::<u8>(), 0..300), line in 1u64..u64::MAX) {
        let record = check(&Runner::new(".").without_files(), &bytes, line);
        prop_assert!(matches!(record.outcome, Outcome::Error(_)));
    }

    #[test]
    fn damaged_queries_never_panic(
        which in 0..VALID.len(),
        edits in proptest::collection::vec((any::<prop::sample::Index>(), 0u8..4, any::<u8>()), 1..6),
    ) {
        let mut bytes = VALID[which].as_bytes().to_vec();
        for (at, op, byte) in edits {
            if bytes.is_empty() {
                break;
            }
            let i = at.index(bytes.len());
            match op {
                0 => bytes[i] = byte,
                1 => { bytes.remove(i); }
                2 => bytes.insert(i, byte),
                // swap a digit for one that makes large, tiny or degenerate numbers
                _ => {
                    if bytes[i].is_ascii_digit() {
                        let repl: &[u8] = match byte % 5 {
                            0 => b"1e308",
                            1 => b"-1e-320",
                            2 => b"0",
                            3 => b"99999999999",
                            _ => b"1e99",
                        };
                        bytes.splice(i..=i, repl.iter().copied());
                    }
                }
            }
        }
        check(&Runner::new(".").without_files(), &bytes, 1);
    }
}

#[test]
fn an_iteration_cap_beyond_the_limit_is_an_input_error() {
    let runner = Runner::new(".").without_files();
    let line = VALID[2].replace(r#""max_iterations":5"#, r#""max_iterations":4000000000"#);
    let record = check(&runner, line.as_bytes(), 1);
    let Outcome::Error(e) = &record.outcome else {
        panic!("{record:?}")
    };
    assert_eq!(e.kind, ErrorKind::Input);
    assert!(e.message.contains("max_iterations"), "{}", e.message);
    let record = check(&runner, br#"{"kind":"rigid","a":"x.obj","b":"x.obj"}"#, 2);
    let Outcome::Error(e) = &record.outcome else {
        panic!("{record:?}")
    };
    assert!(e.message.contains("not allowed"), "{}", e.message);
}
