//! The Tight-Inclusion conformance queries (published vertex–face and edge–edge cases with
//! exact ground truth): LA must have no false negatives; false positives and the cubic
//! baseline's errors are counted and printed (`--nocapture`). Reported as ignored when the
//! data folder `../shared/conformance/tight-inclusion` beside the workspace is absent at
//! build time (`build.rs`).

mod support;

use std::time::Instant;

use ccd_distance::{point_triangle, segment_segment};
use ccd_geometry::glam::DVec3;
use ccd_geometry::{Segment, Triangle};
use ccd_la_deformable::baseline::{edge_edge_cubic, vertex_face_cubic};
use ccd_la_deformable::kernels::{edge_edge, vertex_face};
use ccd_la_deformable::{LaOptions, PrimitiveToc, Status};
use support::conformance::{Query, load, root};
use support::exact::{Reference, edge_edge_reference, q, vertex_face_reference};

type Kernel = fn(
    &[DVec3; 4],
    &[DVec3; 4],
    &LaOptions,
) -> Result<Option<PrimitiveToc>, ccd_la_deformable::LaError>;

fn distance_at(kind: &str, x0: &[DVec3; 4], x1: &[DVec3; 4], t: f64) -> f64 {
    let p: [DVec3; 4] = std::array::from_fn(|k| x0[k] + (x1[k] - x0[k]) * t);
    if kind == "vertex-face" {
        point_triangle(p[0], &Triangle::new(p[1], p[2], p[3])).distance
    } else {
        segment_segment(&Segment::new(p[0], p[1]), &Segment::new(p[2], p[3])).distance
    }
}

/// Approximate minimum distance over `[0, 1]`: dense sampling, then golden-section
/// refinement around the best sample (floating point, for the report only).
fn min_distance(kind: &str, x0: &[DVec3; 4], x1: &[DVec3; 4]) -> (f64, f64) {
    let n = 20_000;
    let (mut best, mut bt) = (f64::INFINITY, 0.0);
    for k in 0..=n {
        let t = k as f64 / n as f64;
        let d = distance_at(kind, x0, x1, t);
        if d < best {
            (best, bt) = (d, t);
        }
    }
    let (mut a, mut b) = (
        (bt - 1.0 / n as f64).max(0.0),
        (bt + 1.0 / n as f64).min(1.0),
    );
    let g = 0.618_033_988_749_895;
    for _ in 0..200 {
        let c = b - g * (b - a);
        let d = a + g * (b - a);
        if distance_at(kind, x0, x1, c) < distance_at(kind, x0, x1, d) {
            b = d;
        } else {
            a = c;
        }
    }
    let t = 0.5 * (a + b);
    let d = distance_at(kind, x0, x1, t);
    if d < best { (d, t) } else { (best, bt) }
}

#[derive(Default)]
struct Tally {
    queries: usize,
    positives: usize,
    false_negatives: Vec<String>,
    false_positives: Vec<String>,
    iterations: Vec<u32>,
    capped: usize,
    nanos: u128,
}

fn run(kind: &str, queries: &[Query], kernel: Kernel, label: &str, check_reference: bool) -> Tally {
    let opts = LaOptions::default();
    let mut t = Tally::default();
    for query in queries {
        let start = Instant::now();
        let got = kernel(&query.x0, &query.x1, &opts).expect("valid input");
        t.nanos += start.elapsed().as_nanos();
        t.queries += 1;
        t.positives += usize::from(query.truth);
        if let Some(hit) = &got {
            t.iterations.push(hit.iterations);
            t.capped += usize::from(hit.status == Status::OutOfIterations);
        }
        if query.truth && got.is_none() {
            t.false_negatives.push(query.name.clone());
        }
        if !query.truth
            && let Some(hit) = &got
        {
            let (d, at) = min_distance(kind, &query.x0, &query.x1);
            t.false_positives.push(format!(
                "{} (toc {:.9}, distance at toc {:.3e}, status {:?}; min distance over [0,1] ≈ {d:.3e} at t ≈ {at:.6})",
                query.name, hit.toc, hit.distance, hit.status
            ));
        }
        if check_reference {
            let reference: Reference = if kind == "vertex-face" {
                vertex_face_reference(&query.x0, &query.x1)
            } else {
                edge_edge_reference(&query.x0, &query.x1)
            };
            // The exact reference never contradicts the published truth.
            if reference.first_collision().is_some() {
                assert!(
                    query.truth,
                    "{}: reference collides, truth says no",
                    query.name
                );
            }
            if reference.certainly_apart() {
                assert!(
                    !query.truth,
                    "{}: reference apart, truth says contact",
                    query.name
                );
            }
            // LA's toc is a lower bound of the certified first contact.
            if let (Some(hit), Some(tc)) = (&got, reference.first_collision()) {
                assert!(
                    q(hit.toc) <= *tc,
                    "{}: toc {} after the contact",
                    query.name,
                    hit.toc
                );
            }
        }
    }
    let n = t.iterations.len().max(1);
    let mean_it = t.iterations.iter().map(|&i| f64::from(i)).sum::<f64>() / n as f64;
    let max_it = t.iterations.iter().max().copied().unwrap_or(0);
    println!(
        "{label:>9} {kind:<11}: {} queries ({} colliding): FN {}, FP {}; contacts' iterations mean {mean_it:.1} max {max_it}, capped {}; mean time {:.2} µs/query (test profile; timing in benches/kernels.rs)",
        t.queries,
        t.positives,
        t.false_negatives.len(),
        t.false_positives.len(),
        t.capped,
        t.nanos as f64 / 1e3 / t.queries.max(1) as f64,
    );
    for f in &t.false_negatives {
        println!("    FN {f}");
    }
    for f in &t.false_positives {
        println!("    FP {f}");
    }
    t
}

#[test]
#[cfg_attr(
    ccd_missing_data = "tight-inclusion",
    ignore = "needs ../shared/conformance/tight-inclusion (absent at build time)"
)]
fn tight_inclusion_conformance() {
    let dir = root();
    let mut checked = 0;
    for (kind, la, cubic) in [
        (
            "vertex-face",
            vertex_face as Kernel,
            vertex_face_cubic as Kernel,
        ),
        ("edge-edge", edge_edge as Kernel, edge_edge_cubic as Kernel),
    ] {
        let queries = load(&dir, kind);
        assert!(
            !queries.is_empty(),
            "no {kind} queries in {}",
            dir.display()
        );
        checked += queries.len();
        let la = run(kind, &queries, la, "LA", true);
        assert!(
            la.false_negatives.is_empty(),
            "LA false negatives: {:?}",
            la.false_negatives
        );
        // The baseline is only reported.
        run(kind, &queries, cubic, "cubic", false);
    }
    assert_eq!(checked, 324, "the README announces 250 + 74 queries");
}
