//! The parallel traversal's scheduling against the serial traversal: the owner's share of
//! the work and the answers.

use ccd_geometry::glam::DVec3;

use super::schedule::parallel;
use super::{Walker, run, serial_budget};
use crate::scene::{DeformingScene, Resting, SceneOptions};
use crate::{DeformingMesh, Mode, SceneStats};

/// An `n × n` grid of unit squares (two triangles each) at `z0` (t = 0) and `z1`
/// (t = 1), shifted by `(dx, dy)`, its vertices from `base`.
fn grid(n: u32, base: u32, z: [f64; 2], shift: [f64; 2]) -> (Vec<[u32; 3]>, [Vec<DVec3>; 2]) {
    let (mut tris, mut x0, mut x1) = (Vec::new(), Vec::new(), Vec::new());
    for j in 0..=n {
        for i in 0..=n {
            let p = DVec3::new(f64::from(i) + shift[0], f64::from(j) + shift[1], 0.0);
            x0.push(p + DVec3::Z * z[0]);
            x1.push(p + DVec3::Z * z[1]);
        }
    }
    let v = |i: u32, j: u32| base + j * (n + 1) + i;
    for j in 0..n {
        for i in 0..n {
            tris.push([v(i, j), v(i + 1, j), v(i + 1, j + 1)]);
            tris.push([v(i, j), v(i + 1, j + 1), v(i, j + 1)]);
        }
    }
    (tris, [x0, x1])
}

/// One mesh of several sheets: a static floor, a sheet falling through it, and a small
/// sheet resting on it (within the tolerance at t = 0) at its far corner.
fn sheets(rest_at: f64) -> DeformingMesh {
    let (mut tris, mut x0, mut x1) = (Vec::new(), Vec::new(), Vec::new());
    let parts = [
        (40, [0.0, 0.0], [0.0, 0.0]),
        (24, [1.0, -1.0], [3.3, 2.7]),
        (3, [rest_at, rest_at], [33.2, 34.1]),
    ];
    for (n, z, shift) in parts {
        let (t, [a, b]) = grid(n, x0.len() as u32, z, shift);
        tris.extend(t);
        x0.extend(a);
        x1.extend(b);
    }
    DeformingMesh::new(tris, x0, x1).unwrap()
}

fn le(own: &SceneStats, serial: &SceneStats) -> bool {
    own.bv_tests <= serial.bv_tests
        && own.leaf_pairs <= serial.leaf_pairs
        && own.primitive_tests <= serial.primitive_tests
        && own.certificate_items <= serial.certificate_items
}

/// In `All` and `Boolean` the owner (the calling thread) keeps the head of the serial
/// order and gives away its tail: its own work is never more than the serial query's,
/// so such a parallel query is never longer than the serial one by more than the cost
/// of sharing the cores. `Toc` hands out the next task instead (see [`Shared`]), which
/// does not keep that bound; every mode's answer is the serial one.
#[test]
fn owner_work_is_within_the_serial_work_when_the_tail_is_given_away() {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    for (rest_at, resting) in [
        (1e-7, Resting::Contact),
        (1e-7, Resting::Separate),
        (0.5, Resting::Contact),
    ] {
        let mesh = sheets(rest_at);
        let opts = SceneOptions::default().with_resting(resting);
        let serial = DeformingScene::new(vec![mesh.clone()], &opts).unwrap();
        let par_opts = opts.with_parallel(true).with_parallel_thresholds(0, 1);
        let par = DeformingScene::new(vec![mesh], &par_opts).unwrap();
        for mode in [Mode::Toc, Mode::All, Mode::Boolean] {
            let s = run(&serial, mode);
            for _ in 0..20 {
                let (r, own) = pool.install(|| {
                    let mut w = Walker::new(&par, mode);
                    let roots = w.roots();
                    let rest = w.run_budget(roots, 0);
                    parallel::run_counted(w, rest, true)
                });
                if mode != Mode::Toc {
                    assert!(
                        le(&own, &s.stats),
                        "{mode:?}, {resting:?}: owner {own:?}, serial {:?}",
                        s.stats
                    );
                }
                assert_eq!(r.toc().map(f64::to_bits), s.toc().map(f64::to_bits));
                if mode == Mode::All {
                    assert_eq!(r.contacts, s.contacts);
                    assert_eq!(r.resting, s.resting);
                }
            }
        }
    }
}

/// A Boolean query's serial head start is `BOOLEAN_SERIAL_FACTOR` times the others', and
/// `serial_work = 0` still splits every mode at once.
#[test]
fn boolean_queries_start_serially_for_longer() {
    let opts = SceneOptions::default();
    let base = u64::from(opts.serial_work);
    assert_eq!(serial_budget(&opts, Mode::Toc), base);
    assert_eq!(serial_budget(&opts, Mode::All), base);
    assert_eq!(
        serial_budget(&opts, Mode::Boolean),
        base * u64::from(super::schedule::BOOLEAN_SERIAL_FACTOR)
    );
    const { assert!(super::schedule::BOOLEAN_SERIAL_FACTOR > 1) };
    let at_once = opts.with_parallel_thresholds(0, 1);
    for mode in [Mode::Toc, Mode::All, Mode::Boolean] {
        assert_eq!(serial_budget(&at_once, mode), 0);
    }
    // no overflow at the largest budget
    let max = opts.with_parallel_thresholds(u32::MAX, 1);
    assert!(serial_budget(&max, Mode::Boolean) > u64::from(u32::MAX));
}
