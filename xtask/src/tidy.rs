//! `cargo xtask tidy`: every Rust file starts with a `//!` line; no stub macros (`todo`,
//! `unimplemented`) anywhere.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Result, bail};

/// Runs the checks over `crates/` and `xtask/` and fails listing every offence.
pub(crate) fn run(root: &Path) -> Result<()> {
    let mut files = Vec::new();
    for dir in ["crates", "xtask"] {
        collect(&root.join(dir), &mut files)?;
    }
    let problems = check(&files)?;
    if problems.is_empty() {
        println!("tidy: {} files ok", files.len());
        Ok(())
    } else {
        for p in &problems {
            eprintln!("tidy: {p}");
        }
        bail!("tidy: {} problem(s)", problems.len())
    }
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    if !dir.is_dir() {
        return Ok(());
    }
    for entry in fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n == "target") {
                continue;
            }
            collect(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    Ok(())
}

/// The problems found in `files`.
pub(crate) fn check(files: &[PathBuf]) -> Result<Vec<String>> {
    let mut problems = Vec::new();
    let stub_todo = concat!("todo", "!(");
    let stub_unimpl = concat!("unimplemented", "!(");
    for f in files {
        let text = fs::read_to_string(f)?;
        let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        if !first.starts_with("//!") {
            problems.push(format!(
                "{} does not start with a `//!` doc line",
                f.display()
            ));
        }
        for (i, line) in text.lines().enumerate() {
            if line.contains(stub_todo) || line.contains(stub_unimpl) {
                problems.push(format!("{}:{} has a stub macro", f.display(), i + 1));
            }
        }
    }
    Ok(problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workspace_is_tidy() {
        let root = crate::workspace_root();
        let mut files = Vec::new();
        for dir in ["crates", "xtask"] {
            collect(&root.join(dir), &mut files).unwrap();
        }
        assert!(files.len() > 10);
        let problems = check(&files).unwrap();
        assert!(problems.is_empty(), "{problems:#?}");
    }

    #[test]
    fn tidy_catches_a_missing_doc_line() {
        let dir = std::env::temp_dir().join(format!("ccd-tidy-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let f = dir.join("bad.rs");
        fs::write(&f, "fn main() {}\n").unwrap();
        let problems = check(std::slice::from_ref(&f)).unwrap();
        assert_eq!(problems.len(), 1);
        fs::remove_dir_all(&dir).ok();
    }
}
