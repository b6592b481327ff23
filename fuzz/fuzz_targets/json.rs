//! Fuzz target: one batch line of the `ccd` command (`ccd_cli::run::Runner::process_line`)
//! on arbitrary bytes, with file paths refused (inline meshes only). Oracle: no panic, no
//! hang, no abort; exactly one record, carrying the line number; never an `internal` record
//! (a panic caught inside the runner); the record serializes to JSON that reads back as a
//! record with the same line and outcome kind.
#![no_main]

use std::sync::OnceLock;

use ccd_cli::run::Runner;
use ccd_cli::schema::{ErrorKind, Outcome, ResultRecord};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    static RUNNER: OnceLock<Runner> = OnceLock::new();
    let runner = RUNNER.get_or_init(|| Runner::new(".").without_files());
    let record = runner.process_line(data, 7);
    assert_eq!(record.line, Some(7));
    if let Outcome::Error(e) = &record.outcome {
        assert_ne!(e.kind, ErrorKind::Internal, "caught panic: {}", e.message);
    }
    let text = serde_json::to_string(&record).expect("a record serializes");
    let back: ResultRecord = serde_json::from_str(&text).expect("and reads back");
    assert_eq!(back.line, Some(7));
    assert_eq!(
        matches!(back.outcome, Outcome::Ok(_)),
        matches!(record.outcome, Outcome::Ok(_))
    );
});
