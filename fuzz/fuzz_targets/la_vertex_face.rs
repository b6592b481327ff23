//! Fuzz target: the LA kernel `vertex_face` (vertex `p[0]` and triangle `p[1..4]` moving linearly) on lattice points of any scale, offset and with
//! arbitrary raw coordinates, options included. Oracle (`ccd_fuzz::check_la_kernel`): no
//! panic, no hang; non-finite input is an error; an accepted query's `toc` is in `[0, 1]`;
//! and when the reference (normalised frame, see `ccd_fuzz::first_crossing`) finds the
//! features clearly passing through each other by time `t`, the kernel reports a contact at
//! or before `t` (never `None`, never later).
#![no_main]

use ccd_fuzz::{LaInput, check_la_kernel, vf_measure};
use ccd_la_deformable::kernels::vertex_face;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: LaInput| check_la_kernel(&input, vertex_face, vf_measure));
