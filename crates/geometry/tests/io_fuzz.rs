//! Property: no mesh reader panics or hangs on mutated, truncated or spliced copies of valid
//! files, on faces with extreme indices or on PLY elements with extreme counts; it returns
//! `Ok` (a valid mesh) or `Err`. Every input is read on a watchdog thread: a read that takes
//! longer than [`HANG`] fails the case (inputs are at most a few kilobytes and take
//! microseconds; the limit only catches work bounded by a header count instead of the input).
//! Case counts come from `PROPTEST_CASES` (256 when unset, as in CI).
#![cfg(feature = "io")]

mod support;

use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use ccd_geometry::io::{self, MeshFormat};
use proptest::prelude::*;

/// How long the three readers together may take on one input before it counts as a hang.
const HANG: Duration = Duration::from_secs(30);

/// Integers at the edges of the types readers convert to, as text.
const EXTREMES: [&str; 14] = [
    "0",
    "-1",
    "2147483647",
    "-2147483648",
    "4294967295",
    "4294967296",
    "-214748364",
    "-1073741824",
    "-4611686018427387904",
    "9223372036854775807",
    "-9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "1e308",
];

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
    /// Insert a number (an extreme one or any `i64`) at (position mod len + 1).
    Number(usize, String),
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
        2 => (any::<usize>(), number()).prop_map(|(p, n)| Edit::Number(p, n)),
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
        Edit::Number(p, n) => {
            let at = p % len + 1;
            bytes.splice(at..at, n.bytes());
        }
    }
}

/// An integer as text: one of [`EXTREMES`], a small one, or any `i64` / `u64`.
fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(EXTREMES.to_vec()).prop_map(str::to_owned),
        (-5i64..6).prop_map(|i| i.to_string()),
        any::<i64>().prop_map(|i| i.to_string()),
        any::<u64>().prop_map(|i| i.to_string()),
    ]
}

/// Runs every reader on `bytes` (the readers must cope with the wrong format too) on a
/// watchdog thread; fails when a reader panics, accepts an invalid mesh or takes longer than
/// [`HANG`].
fn read_all_formats(bytes: &[u8]) {
    let bytes = bytes.to_vec();
    let (send, receive) = mpsc::channel();
    thread::spawn(move || {
        for format in [MeshFormat::Obj, MeshFormat::Stl, MeshFormat::Ply] {
            if let Ok(mesh) = io::read_mesh_from(&bytes[..], format, "fuzz") {
                // whatever was accepted is a valid mesh
                let n = mesh.vertex_count();
                assert!(mesh.triangles().iter().flatten().all(|&i| (i as usize) < n));
                assert!(mesh.vertices().iter().all(|v| v.is_finite()));
            }
        }
        send.send(()).ok();
    });
    match receive.recv_timeout(HANG) {
        Ok(()) => {}
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("a reader is still running after {HANG:?}"),
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            panic!("a reader panicked or accepted an invalid mesh (message above)")
        }
    }
}

proptest! {
    // A hang found costs HANG per shrinking step: keep shrinking short.
    #![proptest_config(ProptestConfig { max_shrink_time: 60_000, ..ProptestConfig::default() })]
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
    // A hang found costs HANG per shrinking step: keep shrinking short.
    #![proptest_config(ProptestConfig { max_shrink_time: 60_000, ..ProptestConfig::default() })]
    #[test]
    fn random_bytes_never_panic(pre in 0..PREAMBLES.len(), tail in prop::collection::vec(interesting_byte(), 0..400)) {
        let bytes = [PREAMBLES[pre].as_bytes(), &tail].concat();
        read_all_formats(&bytes);
    }
}

/// One face corner `v`, `v/vt`, `v//vn` or `v/vt/vn` with arbitrary integer indices.
fn corner() -> impl Strategy<Value = String> {
    (number(), number(), number(), 0..4u8).prop_map(|(v, t, n, shape)| match shape {
        0 => v,
        1 => format!("{v}/{t}"),
        2 => format!("{v}//{n}"),
        _ => format!("{v}/{t}/{n}"),
    })
}

/// A PLY property line of any type, scalar or list.
fn ply_property() -> impl Strategy<Value = String> {
    const TYPES: [&str; 10] = [
        "char", "uchar", "short", "ushort", "int", "uint", "float", "double", "int8", "uint32",
    ];
    let ty = || prop::sample::select(TYPES.to_vec());
    prop_oneof![
        ty().prop_map(|t| format!("property {t} p\n")),
        (ty(), ty()).prop_map(|(c, t)| format!("property list {c} {t} l\n")),
    ]
}

proptest! {
    // A hang found costs HANG per shrinking step: keep shrinking short.
    #![proptest_config(ProptestConfig { max_shrink_time: 60_000, ..ProptestConfig::default() })]
    #[test]
    fn obj_faces_with_any_indices(corners in prop::collection::vec(corner(), 0..6), before in any::<bool>()) {
        // the overflow panics of issue 14 were texture and normal indices near i64::MIN / 2
        let vertices = "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvn 0 0 1\n";
        let face = format!("f {}\n", corners.join(" "));
        let text = if before { format!("{face}{vertices}") } else { format!("{vertices}{face}") };
        read_all_formats(text.as_bytes());
    }

    #[test]
    fn ply_elements_with_any_count(
        name in prop::sample::select(SEEDS.iter().filter(|(_, f)| *f == MeshFormat::Ply).map(|(n, _)| *n).collect::<Vec<_>>()),
        count in prop_oneof![Just(u64::MAX), Just(1u64 << 63), Just(u64::from(u32::MAX)), 0..4u64, any::<u64>()],
        properties in prop::collection::vec(ply_property(), 0..3),
    ) {
        // an extra element before the faces (after them it is never read); the property-less
        // one with 2^64 - 1 rows was the hang of issue 14
        let bytes = support::data_bytes(name);
        let at = find(&bytes, b"element face")
            .or_else(|| find(&bytes, b"end_header"))
            .expect("PLY seeds have a header");
        let element = format!("element extra {count}\n{}", properties.concat());
        let bytes = [&bytes[..at], element.as_bytes(), &bytes[at..]].concat();
        read_all_formats(&bytes);
        if properties.is_empty() {
            // rows of zero bytes change nothing
            let plain = io::read_ply_from(&support::data_bytes(name)[..], name).map(|m| m.triangles().to_vec());
            let extra = io::read_ply_from(&bytes[..], name).map(|m| m.triangles().to_vec());
            prop_assert_eq!(plain.ok(), extra.ok());
        }
    }
}

/// Where `needle` first occurs in `haystack`.
fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[test]
fn regression_inputs_are_handled() {
    for entry in std::fs::read_dir(support::data("regressions")).unwrap() {
        read_all_formats(&std::fs::read(entry.unwrap().path()).unwrap());
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
