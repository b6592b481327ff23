//! Property tests of `SweepAndPrune` against brute force O(n²) on random and coherent box
#![allow(clippy::needless_range_loop)] // brute-force references index pairs
//! sequences.

mod support;

use std::collections::BTreeSet;

use ccd_bvh::SweepAndPrune;
use ccd_bvh::geometry::Aabb;
use ccd_bvh::glam::DVec3;
use proptest::prelude::*;
use support::strategies::{boxes, point};

fn brute(bx: &[Aabb]) -> BTreeSet<[u32; 2]> {
    let mut out = BTreeSet::new();
    for i in 0..bx.len() {
        for j in i + 1..bx.len() {
            if bx[i].overlaps(&bx[j]) {
                out.insert([i as u32, j as u32]);
            }
        }
    }
    out
}

fn check(sap: &mut SweepAndPrune, bx: &[Aabb]) -> Result<(), TestCaseError> {
    let expected = brute(bx);
    let got: BTreeSet<[u32; 2]> = sap.pairs().collect();
    prop_assert_eq!(&got, &expected);
    prop_assert_eq!(sap.pair_count(), expected.len());
    let mut swept = Vec::new();
    sap.sweep_pairs_into(&mut swept);
    let swept_set: BTreeSet<[u32; 2]> = swept.iter().copied().collect();
    prop_assert_eq!(swept_set.len(), swept.len());
    prop_assert_eq!(&swept_set, &expected);
    Ok(())
}

/// Snaps coordinates to a coarse grid so that touching and coincident endpoints (ties) are
/// common.
fn snap(bx: Vec<Aabb>) -> Vec<Aabb> {
    bx.into_iter()
        .map(|b| Aabb::new((b.min * 2.0).round() * 0.5, (b.max * 2.0).round() * 0.5))
        .collect()
}

proptest! {
    #[test]
    fn random_sequences_match_brute_force(first in boxes(0..=50, 10.0, 4.0), steps in prop::collection::vec(boxes(50..=50, 10.0, 4.0), 1..4), snapped in any::<bool>()) {
        let prep = |b: Vec<Aabb>| if snapped { snap(b) } else { b };
        let first = prep(first);
        let mut sap = SweepAndPrune::new(&first).unwrap();
        check(&mut sap, &first)?;
        for step in steps {
            let mut step = prep(step);
            step.truncate(first.len());
            sap.update(&step).unwrap();
            check(&mut sap, &step)?;
        }
    }

    #[test]
    fn coherent_sequences_match_brute_force(
        start in boxes(1..=60, 10.0, 3.0),
        velocities in prop::collection::vec(point(0.4), 60),
        steps in 1usize..25,
        snapped in any::<bool>(),
    ) {
        let prep = |b: Vec<Aabb>| if snapped { snap(b) } else { b };
        let mut bx = prep(start);
        let mut sap = SweepAndPrune::new(&bx).unwrap();
        check(&mut sap, &bx)?;
        for step in 0..steps {
            let moved: Vec<Aabb> = bx
                .iter()
                .zip(&velocities)
                .map(|(b, v)| {
                    // bounce inside [-10, 10]
                    let dir = if step % 10 < 5 { 1.0 } else { -1.0 };
                    Aabb::new(b.min + *v * dir, b.max + *v * dir)
                })
                .collect();
            bx = prep(moved);
            let stats = sap.update(&bx).unwrap();
            prop_assert_eq!(stats.pairs, sap.pair_count());
            check(&mut sap, &bx)?;
        }
    }
}

#[test]
fn bad_boxes_are_errors() {
    let good = Aabb::new(DVec3::ZERO, DVec3::ONE);
    let nan = Aabb::new(DVec3::ZERO, DVec3::new(f64::NAN, 1.0, 1.0));
    let inverted = Aabb::new(DVec3::ONE, DVec3::ZERO);
    assert!(matches!(
        SweepAndPrune::new(&[good, nan]),
        Err(ccd_bvh::BvhError::NonFinitePrimitive { index: 1 })
    ));
    assert!(matches!(
        SweepAndPrune::new(&[inverted]),
        Err(ccd_bvh::BvhError::EmptyBox { index: 0 })
    ));
    let mut sap = SweepAndPrune::new(&[good, good]).unwrap();
    assert!(matches!(
        sap.update(&[good]),
        Err(ccd_bvh::BvhError::CountMismatch {
            expected: 2,
            actual: 1
        })
    ));
    assert!(sap.update(&[good, nan]).is_err());
    // unchanged after errors
    assert_eq!(sap.pair_count(), 1);
    let empty = SweepAndPrune::new(&[]).unwrap();
    assert!(empty.is_empty());
    assert_eq!(empty.pair_count(), 0);
}

#[test]
fn negative_zero_touching_counts() {
    let a = Aabb::new(DVec3::splat(-1.0), DVec3::new(-0.0, 1.0, 1.0));
    let b = Aabb::new(DVec3::new(0.0, -1.0, -1.0), DVec3::ONE);
    let sap = SweepAndPrune::new(&[a, b]).unwrap();
    assert_eq!(sap.pair_count(), 1);
}
