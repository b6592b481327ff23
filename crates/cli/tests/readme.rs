//! The README's "Command line" examples run as written: each command line between the
//! `cli-examples` markers runs through `sh` in `tests/data` (the example's `cd`), with this
//! build's `ccd` first on `PATH`; it must succeed and print JSON.

use std::path::Path;
use std::process::Command;

#[test]
fn readme_command_line_examples_run() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let start = readme
        .find("<!-- cli-examples:start -->")
        .expect("start marker");
    let end = readme
        .find("<!-- cli-examples:end -->")
        .expect("end marker");
    let block = &readme[start..end];
    let mut dir = None;
    let mut commands = Vec::new();
    for line in block.lines().map(str::trim) {
        if let Some(d) = line.strip_prefix("cd ") {
            dir = Some(root.join(d));
        } else if line.starts_with("ccd ") || line.contains("| ccd ") {
            commands.push(line.to_owned());
        }
    }
    let dir = dir.expect("the examples say where they run");
    assert!(dir.is_dir(), "{}", dir.display());
    assert!(commands.len() >= 6, "{commands:?}");
    let bin = Path::new(env!("CARGO_BIN_EXE_ccd"));
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for command in &commands {
        let out = Command::new("sh")
            .arg("-c")
            .arg(command)
            .current_dir(&dir)
            .env("PATH", &path)
            .output()
            .expect("sh runs");
        let stdout = String::from_utf8(out.stdout).expect("utf-8");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{command}: {stderr}");
        assert!(!stdout.trim().is_empty(), "{command}: no output");
        // one (pretty) JSON document, or JSON lines; `|| echo` adds its status line
        let json = stdout
            .lines()
            .filter(|l| !l.starts_with("exit status "))
            .collect::<Vec<_>>()
            .join("\n");
        let whole = serde_json::from_str::<serde_json::Value>(&json).is_ok();
        let each = json
            .lines()
            .all(|l| serde_json::from_str::<serde_json::Value>(l).is_ok());
        assert!(whole || each, "{command}: not JSON: {stdout}");
        if command.contains("|| echo") {
            assert!(stdout.contains("exit status 3"), "{command}: {stdout}");
        }
        if command.contains(" batch ") {
            assert!(
                stderr.contains(" queries: "),
                "{command}: no summary: {stderr}"
            );
        }
    }
}
