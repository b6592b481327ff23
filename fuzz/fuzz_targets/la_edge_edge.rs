//! Fuzz target: the LA kernel `edge_edge` (edges `p[0]p[1]` and `p[2]p[3]` moving linearly) on lattice points of any scale, offset and with
//! arbitrary raw coordinates, options included. Oracle (`ccd_fuzz::check_la_kernel`): no
//! panic, no hang; non-finite input is an error; an accepted query's `toc` is in `[0, 1]`;
//! and when the reference (normalised frame, see `ccd_fuzz::first_crossing`) finds the
//! features clearly passing through each other by time `t`, the kernel reports a contact at
//! or before `t` (never `None`, never later).
#![no_main]

use ccd_fuzz::{LaInput, check_la_kernel, ee_measure};
use ccd_la_deformable::kernels::edge_edge;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: LaInput| check_la_kernel(&input, edge_edge, ee_measure));
