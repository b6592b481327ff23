//! Fuzz target: the LA kernel `edge_edge` (edges `p[0]p[1]` and `p[2]p[3]` moving linearly) on lattice points of any
//! scale, offset and with arbitrary raw coordinates, options included. Oracle: no panic, no
//! hang; non-finite input is an error; an accepted query's `toc` is in `[0, 1]`; and when
//! the reference (normalised frame, see `ccd_fuzz::first_crossing`) finds the features
//! clearly passing through each other by time `t`, the kernel reports a contact at or before
//! `t` (never `None`, never later).
#![no_main]

use arbitrary::Arbitrary;
use ccd_fuzz::{Points, Tolerance, ee_measure, first_crossing, normalise};
use ccd_la_deformable::{LaOptions, kernels::edge_edge};
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
struct Input {
    /// `x0[0..4]` then `x1[0..4]`.
    points: Points<8>,
    tolerance: Tolerance,
    max_iterations: Option<u16>,
}

fuzz_target!(|input: Input| {
    let p = input.points.points();
    let x0 = [p[0], p[1], p[2], p[3]];
    let x1 = [p[4], p[5], p[6], p[7]];
    let mut opts = LaOptions::default();
    opts.tolerance = input
        .tolerance
        .value(opts.tolerance, input.points.spacing_exp());
    if let Some(n) = input.max_iterations {
        opts.max_iterations = u32::from(n);
    }
    let result = edge_edge(&x0, &x1, &opts);
    if p.iter().any(|q| !q.is_finite()) {
        assert!(result.is_err(), "non-finite input accepted: {result:?}");
        return;
    }
    let Ok(hit) = result else { return };
    if let Some(h) = &hit {
        assert!((0.0..=1.0).contains(&h.toc), "toc {} outside [0, 1]", h.toc);
    }
    let Some(n) = normalise(&p) else { return };
    let q = &n.points;
    let (n0, n1) = ([q[0], q[1], q[2], q[3]], [q[4], q[5], q[6], q[7]]);
    if let Some(t) = first_crossing(&n0, &n1, ee_measure) {
        match hit {
            None => panic!("missed: the features pass through each other by t = {t}"),
            Some(h) => assert!(
                h.toc <= t,
                "late: toc {} after a crossing by t = {t}",
                h.toc
            ),
        }
    }
});
