//! Fuzz target: the STL reader on arbitrary bytes. Oracle: no panic, no hang (libFuzzer
//! `-timeout`), no huge allocation (`-rss_limit_mb`); an accepted mesh is valid (finite
//! vertices, indices in range) and survives an OBJ write/read round trip unchanged.
#![no_main]

use ccd_geometry::io;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(mesh) = io::read_stl_from(data, "fuzz.stl") {
        ccd_fuzz::check_mesh(&mesh);
    }
});
