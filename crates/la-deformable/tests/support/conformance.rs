//! Reader of the Tight-Inclusion conformance queries (`../shared/conformance/tight-inclusion`,
//! format in its README): exact rational coordinates with power-of-two denominators.

use std::path::{Path, PathBuf};

use ccd_geometry::glam::DVec3;
use num_bigint::BigInt;
use num_rational::BigRational;

/// One query: the four points at `t = 0` and `t = 1`, and the ground truth.
#[derive(Clone, Debug)]
pub struct Query {
    pub x0: [DVec3; 4],
    pub x1: [DVec3; 4],
    pub truth: bool,
    /// `file:query-index`.
    pub name: String,
}

/// The conformance folder (`$CCD_SHARED_DIR/conformance/tight-inclusion`, else
/// `../shared/conformance/tight-inclusion` beside the repository), if present.
pub fn find() -> Option<PathBuf> {
    let shared = std::env::var_os("CCD_SHARED_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
        PathBuf::from,
    );
    let dir = shared.join("conformance/tight-inclusion");
    dir.is_dir().then_some(dir)
}

/// [`find`] for the tests, which are ignored when the folder is absent at build time
/// (`build.rs`): run anyway without it (`--include-ignored`), they fail here.
pub fn root() -> PathBuf {
    find().expect("Tight-Inclusion conformance: ../shared/conformance/tight-inclusion not found (set CCD_SHARED_DIR)")
}

fn coordinate(num: &str, den: &str) -> f64 {
    let num: BigInt = num.trim().parse().expect("numerator");
    let den: BigInt = den.trim().parse().expect("denominator");
    let exact = BigRational::new(num, den);
    // Power-of-two denominators and ≤ 53 significant bits: exact in f64 (checked).
    let (n, d) = (exact.numer().clone(), exact.denom().clone());
    let f = n.to_string().parse::<f64>().unwrap() / d.to_string().parse::<f64>().unwrap();
    assert_eq!(
        BigRational::from_float(f),
        Some(exact),
        "coordinate {n}/{d} is not exact in f64"
    );
    f
}

/// Reads every CSV under `dir/unit-tests/<kind>` (`vertex-face` or `edge-edge`), sorted.
pub fn load(dir: &Path, kind: &str) -> Vec<Query> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("unit-tests").join(kind))
        .map(|r| r.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "csv"));
    files.sort();
    let mut out = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("readable csv");
        let rows: Vec<(DVec3, bool)> = text
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .map(|l| {
                let c: Vec<&str> = l.split(',').collect();
                assert_eq!(c.len(), 7, "7 columns in {l}");
                (
                    DVec3::new(
                        coordinate(c[0], c[1]),
                        coordinate(c[2], c[3]),
                        coordinate(c[4], c[5]),
                    ),
                    c[6].trim() == "1",
                )
            })
            .collect();
        assert_eq!(rows.len() % 8, 0, "8 rows per query in {}", file.display());
        let stem = file.file_stem().unwrap().to_string_lossy().to_string();
        for (k, q) in rows.chunks(8).enumerate() {
            out.push(Query {
                x0: [q[0].0, q[1].0, q[2].0, q[3].0],
                x1: [q[4].0, q[5].0, q[6].0, q[7].0],
                truth: q[0].1,
                name: format!("{kind}/{stem}:{k}"),
            });
        }
    }
    out
}
