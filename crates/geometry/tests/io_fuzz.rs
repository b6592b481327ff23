//! Property: no mesh reader panics on mutated, truncated or spliced copies of valid files; it
//! returns `Ok` or `Err`.
#![cfg(feature = "io")]

mod support;

use ccd_geometry::io::{self, MeshFormat};
use proptest::prelude::*;

/// Valid seed files and their formats.
const SEEDS: [(&str, MeshFormat); 8] = [
    ("cube.obj", MeshFormat::Obj),
    ("quad.obj", MeshFormat::Obj),
    ("tetra_ascii.stl", MeshFormat::Stl),
    ("cube_binary.stl", MeshFormat::Stl),
    ("tetra_ascii.ply", MeshFormat::Ply),
    ("quad_le_double.ply", MeshFormat::Ply),
    ("cube_be_float.ply", MeshFormat::Ply),
    ("nan_vertex.ply", MeshFormat::Ply),
];

/// One edit of a byte string.
#[derive(Clone, Debug)]
enum Edit {
    /// Overwrite the byte at (position mod len).
    Set(usize, u8),
    /// Insert bytes at (position mod len + 1).
    Insert(usize, Vec<u8>),
    /// Remove up to `n` bytes from (position mod len).
    Remove(usize, usize),
    /// Keep only the first (position mod len + 1) bytes.
    Truncate(usize),
}

/// Bytes that matter to the parsers: digits, signs, separators, keywords' letters, NUL, 0xff.
fn interesting_byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        any::<u8>(),
        prop::sample::select(b"0123456789-+.eE /\n\r\t nafivx#".to_vec()),
        Just(0u8),
        Just(0xffu8),
    ]
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        4 => (any::<usize>(), interesting_byte()).prop_map(|(p, b)| Edit::Set(p, b)),
        2 => (any::<usize>(), prop::collection::vec(interesting_byte(), 1..12)).prop_map(|(p, b)| Edit::Insert(p, b)),
        2 => (any::<usize>(), 1usize..40).prop_map(|(p, n)| Edit::Remove(p, n)),
        1 => any::<usize>().prop_map(Edit::Truncate),
    ]
}

fn apply(bytes: &mut Vec<u8>, edit: &Edit) {
    if bytes.is_empty() {
        return;
    }
    let len = bytes.len();
    match edit {
        Edit::Set(p, b) => bytes[p % len] = *b,
        Edit::Insert(p, b) => {
            let at = p % len + 1;
            bytes.splice(at..at, b.iter().copied());
        }
        Edit::Remove(p, n) => {
            let at = p % len;
            bytes.drain(at..(at + n).min(len));
        }
        Edit::Truncate(p) => bytes.truncate(p % len + 1),
    }
}

/// Runs every reader on `bytes` (the readers must cope with the wrong format too).
fn read_all_formats(bytes: &[u8]) {
    for format in [MeshFormat::Obj, MeshFormat::Stl, MeshFormat::Ply] {
        if let Ok(mesh) = io::read_mesh_from(bytes, format, "fuzz") {
            // whatever was accepted is a valid mesh
            let n = mesh.vertex_count();
            assert!(mesh.triangles().iter().flatten().all(|&i| (i as usize) < n));
            assert!(mesh.vertices().iter().all(|v| v.is_finite()));
        }
    }
}

proptest! {
    #[test]
    fn mutated_files_never_panic(seed in 0..SEEDS.len(), edits in prop::collection::vec(edit(), 1..6)) {
        let (name, _) = SEEDS[seed];
        let mut bytes = support::data_bytes(name);
        for e in &edits {
            apply(&mut bytes, e);
        }
        read_all_formats(&bytes);
    }

    #[test]
    fn header_counts_are_not_trusted(seed in 0..SEEDS.len(), count in any::<u32>(), wide in any::<u64>()) {
        // Bogus counts in STL headers and PLY `element` lines.
        let (name, format) = SEEDS[seed];
        let mut bytes = support::data_bytes(name);
        match format {
            MeshFormat::Stl if bytes.len() >= 84 => {
                bytes[80..84].copy_from_slice(&count.to_le_bytes());
            }
            MeshFormat::Ply => {
                let end = bytes.windows(11).position(|w| w == b"end_header\n").map_or(0, |i| i + 11);
                let header = String::from_utf8_lossy(&bytes[..end]).into_owned();
                let header: String = header
                    .lines()
                    .map(|line| match line.split_whitespace().collect::<Vec<_>>()[..] {
                        ["element", "vertex", _] => format!("element vertex {wide}\n"),
                        ["element", "face", _] => format!("element face {count}\n"),
                        _ => format!("{line}\n"),
                    })
                    .collect();
                bytes = [header.as_bytes(), &bytes[end..]].concat();
            }
            _ => {}
        }
        read_all_formats(&bytes);
    }
}

/// Format preambles after which random bytes follow.
const PREAMBLES: [&str; 6] = [
    "",
    "solid x\n",
    "ply\nformat ascii 1.0\n",
    "ply\nformat binary_little_endian 1.0\nelement vertex 2\nproperty double x\nproperty float y\nproperty uchar z\n",
    "ply\nformat binary_big_endian 1.0\nelement vertex 1\nproperty float x\nproperty float y\nproperty float z\nelement face 3\nproperty list uchar int vertex_indices\nend_header\n",
    "v 0 0 0\nv 1 0 0\nv 0 1 0\n",
];

proptest! {
    #[test]
    fn random_bytes_never_panic(pre in 0..PREAMBLES.len(), tail in prop::collection::vec(interesting_byte(), 0..400)) {
        let bytes = [PREAMBLES[pre].as_bytes(), &tail].concat();
        read_all_formats(&bytes);
    }
}

#[test]
fn all_prefixes_of_every_seed_are_handled() {
    for (name, format) in SEEDS {
        let bytes = support::data_bytes(name);
        for end in 0..bytes.len() {
            let _ = io::read_mesh_from(&bytes[..end], format, name);
        }
    }
}
