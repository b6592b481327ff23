//! Test support of the grid broad phase's property tests (`grid.rs`): random
//! operations on a set of boxes, to compare a broad phase's pairs with brute force.

use glam::DVec3;
use proptest::prelude::*;

/// One operation on the box set.
#[derive(Clone, Debug)]
pub(crate) enum Op {
    /// A box (corner, extent), and whether it is fixed.
    Insert(DVec3, DVec3, bool),
    /// Removes the box in this slot (modulo the live count).
    Remove(usize),
    /// Moves every live box: per slot, a shift of its corner and a new extent.
    Move(Vec<(DVec3, DVec3)>),
}

/// A point with every coordinate in `lo..hi`.
pub(crate) fn vec3(lo: f64, hi: f64) -> impl Strategy<Value = DVec3> {
    (lo..hi, lo..hi, lo..hi).prop_map(|(x, y, z)| DVec3::new(x, y, z))
}

/// Insertions of boxes up to 2 wide around the origin, removals, and moves of every box by
/// at most `shift` per axis to extents up to `extent`.
pub(crate) fn op(shift: f64, extent: f64) -> impl Strategy<Value = Op> {
    prop_oneof![
        (vec3(-5.0, 5.0), vec3(0.0, 2.0), any::<bool>()).prop_map(|(p, e, f)| Op::Insert(p, e, f)),
        (0usize..64).prop_map(Op::Remove),
        prop::collection::vec((vec3(-shift, shift), vec3(0.0, extent)), 64).prop_map(Op::Move),
    ]
}
