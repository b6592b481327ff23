//! Property tests of `Bvh`: traversals against brute force over all primitive pairs, refit,
#![allow(clippy::needless_range_loop)] // brute-force references index pairs
//! queries and the dynamic bottom-up BVH.

mod support;

use std::collections::BTreeSet;
use std::ops::ControlFlow;

use ccd_bvh::geometry::Aabb;
use ccd_bvh::glam::{DAffine3, DVec3};
use ccd_bvh::{
    BoundingVolume, Bvh, BvhOptions, DynamicBvh, Kdop18, Obb, Rss, Sphere, SplitRule, TriangleSoup,
    Workspace,
};
use proptest::prelude::*;
use support::strategies::{boxes, point, pose, soup};

type Soup = (Vec<DVec3>, Vec<[u32; 3]>);

fn tri_points(s: &Soup, i: u32) -> [DVec3; 3] {
    s.1[i as usize].map(|k| s.0[k as usize])
}

/// Every node's volume contains the vertices of every primitive below it.
fn check_containment<B: BoundingVolume>(bvh: &Bvh<B>, s: &Soup) -> Result<(), TestCaseError> {
    for (i, node) in bvh.nodes().iter().enumerate() {
        for &p in bvh.node_primitives(i as u32) {
            for x in tri_points(s, p) {
                prop_assert!(
                    node.bv()
                        .contains_point(x, 1e-9 * (1.0 + x.abs().max_element()))
                );
            }
        }
    }
    Ok(())
}

/// Pair traversal under `pos12` with leaf size 1: reported pairs are a subset of the pairs
/// whose leaf volumes overlap (brute force), include every pair of coinciding triangles, and for
/// volumes whose parents contain their children (AABB, k-DOP) equal the brute-force set.
fn check_pair_traversal<B: BoundingVolume>(
    a: &Soup,
    b: &Soup,
    pos12: &DAffine3,
    exact: bool,
) -> Result<(), TestCaseError> {
    let name = std::any::type_name::<B>();
    let opts = BvhOptions::default().with_leaf_size(1);
    let ba = Bvh::<B>::build(&TriangleSoup::new(&a.0, &a.1), &opts).unwrap();
    let bb = Bvh::<B>::build(&TriangleSoup::new(&b.0, &b.1), &opts).unwrap();
    check_containment(&ba, a)?;
    let mut ws = Workspace::new();
    let mut out = Vec::new();
    ba.overlapping_pairs_into(&bb, pos12, &mut ws, &mut out);
    let got: BTreeSet<[u32; 2]> = out.iter().copied().collect();
    prop_assert_eq!(got.len(), out.len(), "{}: duplicate pairs", name);
    let leaf_bv = |bvh: &Bvh<B>, p: u32| -> B {
        let n = bvh
            .nodes()
            .iter()
            .position(|n| n.is_leaf() && bvh.primitives()[n.primitive_range()] == [p])
            .unwrap();
        *bvh.nodes()[n].bv()
    };
    let mut brute = BTreeSet::new();
    for i in 0..a.1.len() as u32 {
        for j in 0..b.1.len() as u32 {
            if leaf_bv(&ba, i).overlaps(&leaf_bv(&bb, j), pos12) {
                brute.insert([i, j]);
            }
        }
    }
    prop_assert!(
        got.is_subset(&brute),
        "{}: reported a pair whose leaves do not overlap",
        name
    );
    if exact {
        prop_assert_eq!(&got, &brute, "{}: traversal lost pairs", name);
    }
    Ok(())
}

fn all_pair_traversals(a: &Soup, b: &Soup, pos12: &DAffine3) -> Result<(), TestCaseError> {
    check_pair_traversal::<Aabb>(a, b, pos12, true)?;
    check_pair_traversal::<Kdop18>(a, b, pos12, false)?;
    check_pair_traversal::<Obb>(a, b, pos12, false)?;
    check_pair_traversal::<Rss>(a, b, pos12, false)?;
    check_pair_traversal::<Sphere>(a, b, pos12, false)?;
    Ok(())
}

/// The soup `a` expressed in a frame placed by `pos12`: under `pos12` triangle `i` of the copy
/// coincides with triangle `i` of `a`, so every pair `(i, i)` must be reported.
fn check_coinciding<B: BoundingVolume>(
    a: &Soup,
    pos12: &DAffine3,
    split: SplitRule,
) -> Result<(), TestCaseError> {
    let inv = pos12.inverse();
    let moved: Vec<DVec3> = a.0.iter().map(|p| inv.transform_point3(*p)).collect();
    let opts = BvhOptions::default().with_leaf_size(2).with_split(split);
    let ba = Bvh::<B>::build(&TriangleSoup::new(&a.0, &a.1), &opts).unwrap();
    let bb = Bvh::<B>::build(&TriangleSoup::new(&moved, &a.1), &opts).unwrap();
    let mut out = Vec::new();
    ba.overlapping_pairs_into(&bb, pos12, &mut Workspace::new(), &mut out);
    for i in 0..a.1.len() as u32 {
        prop_assert!(
            out.contains(&[i, i]),
            "{}: coinciding triangles {i} not paired",
            std::any::type_name::<B>()
        );
    }
    Ok(())
}

/// Best-first traversal with vertex-vertex leaf distances finds the brute-force minimum.
fn check_best_first<B: BoundingVolume>(
    a: &Soup,
    b: &Soup,
    pos12: &DAffine3,
) -> Result<(), TestCaseError> {
    let opts = BvhOptions::default();
    let ba = Bvh::<B>::build(&TriangleSoup::new(&a.0, &a.1), &opts).unwrap();
    let bb = Bvh::<B>::build(&TriangleSoup::new(&b.0, &b.1), &opts).unwrap();
    let mut best = f64::INFINITY;
    let (thr, stats) = ba.traverse_pair_best_first(
        &bb,
        &mut Workspace::new(),
        f64::INFINITY,
        |x, y| x.distance_lower_bound(y, pos12),
        |i, j| {
            for p in tri_points(a, i) {
                for q in tri_points(b, j) {
                    best = best.min(p.distance(pos12.transform_point3(q)));
                }
            }
            best
        },
    );
    let mut brute = f64::INFINITY;
    for i in 0..a.1.len() as u32 {
        for j in 0..b.1.len() as u32 {
            for p in tri_points(a, i) {
                for q in tri_points(b, j) {
                    brute = brute.min(p.distance(pos12.transform_point3(q)));
                }
            }
        }
    }
    prop_assert_eq!(thr, brute, "{}", std::any::type_name::<B>());
    prop_assert!(stats.primitive_tests as usize <= a.1.len() * b.1.len());
    Ok(())
}

proptest! {
    #[test]
    fn pair_traversal_matches_brute_force(a in soup(30), b in soup(30), pos12 in pose(4.0)) {
        all_pair_traversals(&a, &b, &pos12)?;
        all_pair_traversals(&a, &b, &DAffine3::from_translation(pos12.translation))?;
    }

    #[test]
    fn coinciding_triangles_are_always_paired(a in soup(40), pos12 in pose(10.0)) {
        for split in [SplitRule::Median, SplitRule::BinnedSah { bins: 8 }] {
            check_coinciding::<Aabb>(&a, &pos12, split)?;
            check_coinciding::<Kdop18>(&a, &pos12, split)?;
            check_coinciding::<Obb>(&a, &pos12, split)?;
            check_coinciding::<Rss>(&a, &pos12, split)?;
            check_coinciding::<Sphere>(&a, &pos12, split)?;
        }
    }

    #[test]
    fn best_first_finds_the_minimum(a in soup(30), b in soup(30), pos12 in pose(8.0)) {
        check_best_first::<Rss>(&a, &b, &pos12)?;
        check_best_first::<Obb>(&a, &b, &pos12)?;
        check_best_first::<Sphere>(&a, &b, &pos12)?;
        check_best_first::<Aabb>(&a, &b, &pos12)?;
        check_best_first::<Kdop18>(&a, &b, &pos12)?;
    }

    #[test]
    fn self_traversal_reports_each_pair_once(s in soup(40), leaf_size in 1u32..6) {
        let bvh = Bvh::<Aabb>::build(&TriangleSoup::new(&s.0, &s.1), &BvhOptions::default().with_leaf_size(leaf_size)).unwrap();
        let mut all = Vec::new();
        bvh.traverse_self(&mut Workspace::new(), |_, _| true, |a, b| { all.push([a.min(b), a.max(b)]); ControlFlow::Continue(()) });
        let n = s.1.len();
        let set: BTreeSet<[u32; 2]> = all.iter().copied().collect();
        prop_assert_eq!(all.len(), n * (n - 1) / 2);
        prop_assert_eq!(set.len(), all.len());
        prop_assert!(all.iter().all(|[a, b]| a != b));
        // with leaf size 1 the overlapping pairs are exactly the brute-force box overlaps
        let bvh = Bvh::<Aabb>::build(&TriangleSoup::new(&s.0, &s.1), &BvhOptions::default().with_leaf_size(1)).unwrap();
        let mut out = Vec::new();
        bvh.self_overlapping_pairs_into(&mut Workspace::new(), &mut out);
        let got: BTreeSet<[u32; 2]> = out.iter().map(|[a, b]| [*a.min(b), *a.max(b)]).collect();
        let soup = TriangleSoup::new(&s.0, &s.1);
        let mut brute = BTreeSet::new();
        for i in 0..n {
            for j in i + 1..n {
                let (bi, bj) = (ccd_bvh::PrimitiveSet::aabb(&soup, i), ccd_bvh::PrimitiveSet::aabb(&soup, j));
                if bi.overlaps(&bj) {
                    brute.insert([i as u32, j as u32]);
                }
            }
        }
        prop_assert_eq!(got, brute);
    }

    #[test]
    fn refit_and_query_match_brute_force(s in soup(40), moves in prop::collection::vec(point(1.5), 120), q in boxes(1..=1, 6.0, 5.0)) {
        let (mut v, t) = s.clone();
        let mut ba = Bvh::<Aabb>::build(&TriangleSoup::new(&v, &t), &BvhOptions::default().with_leaf_size(1)).unwrap();
        let mut bk = Bvh::<Kdop18>::build(&TriangleSoup::new(&v, &t), &BvhOptions::default()).unwrap();
        let mut br = Bvh::<Rss>::build(&TriangleSoup::new(&v, &t), &BvhOptions::default()).unwrap();
        for (p, m) in v.iter_mut().zip(&moves) {
            *p += *m;
        }
        let moved = (v.clone(), t.clone());
        let soup = TriangleSoup::new(&v, &t);
        ba.refit(&soup).unwrap();
        bk.refit(&soup).unwrap();
        br.refit(&soup).unwrap();
        check_containment(&ba, &moved)?;
        check_containment(&bk, &moved)?;
        check_containment(&br, &moved)?;
        let mut out = Vec::new();
        ba.query_aabb_into(&q[0], &mut Workspace::new(), &mut out);
        out.sort_unstable();
        let brute: Vec<u32> = (0..t.len() as u32).filter(|&i| ccd_bvh::PrimitiveSet::aabb(&soup, i as usize).overlaps(&q[0])).collect();
        prop_assert_eq!(out, brute);
    }

    #[test]
    fn dynamic_bvh_matches_brute_force(steps in prop::collection::vec(boxes(0..=60, 8.0, 3.0), 1..4), q in boxes(1..=1, 8.0, 4.0), env in boxes(1..=40, 8.0, 2.0)) {
        let mut dynamic = DynamicBvh::new();
        let mut ws = Workspace::new();
        let env_bvh = Bvh::<Aabb>::build(env.as_slice(), &BvhOptions::default().with_leaf_size(1)).unwrap();
        for bx in &steps {
            dynamic.rebuild(bx).unwrap();
            prop_assert_eq!(dynamic.bvh().primitive_count(), bx.len());
            let mut pairs = Vec::new();
            dynamic.self_pairs_into(&mut ws, &mut pairs);
            let got: BTreeSet<[u32; 2]> = pairs.iter().map(|[a, b]| [*a.min(b), *a.max(b)]).collect();
            prop_assert_eq!(got.len(), pairs.len());
            let mut brute = BTreeSet::new();
            for i in 0..bx.len() {
                for j in i + 1..bx.len() {
                    if bx[i].overlaps(&bx[j]) {
                        brute.insert([i as u32, j as u32]);
                    }
                }
            }
            prop_assert_eq!(got, brute);
            let mut hits = Vec::new();
            dynamic.query_aabb_into(&q[0], &mut ws, &mut hits);
            hits.sort_unstable();
            let brute: Vec<u32> = (0..bx.len() as u32).filter(|&i| bx[i as usize].overlaps(&q[0])).collect();
            prop_assert_eq!(hits, brute);
            let mut cross = Vec::new();
            dynamic.pairs_with_into(&env_bvh, &mut ws, &mut cross);
            cross.sort_unstable();
            let mut brute = Vec::new();
            for i in 0..bx.len() {
                for j in 0..env.len() {
                    if bx[i].overlaps(&env[j]) {
                        brute.push([i as u32, j as u32]);
                    }
                }
            }
            prop_assert_eq!(cross, brute);
        }
    }
}

#[test]
fn early_stop_is_reported() {
    let pts: Vec<DVec3> = (0..64)
        .map(|i| DVec3::new(f64::from(i), 0.0, 0.0))
        .collect();
    let bvh = Bvh::<Aabb>::build(pts.as_slice(), &BvhOptions::default().with_leaf_size(1)).unwrap();
    let mut n = 0;
    let stats = bvh.traverse_pair(
        &bvh,
        &mut Workspace::new(),
        |_, _| true,
        |_, _| {
            n += 1;
            if n == 5 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        },
    );
    assert!(stats.stopped);
    assert_eq!(n, 5);
    assert_eq!(stats.primitive_tests, 5);
}

#[test]
fn nan_pose_traversal_terminates_and_is_conservative() {
    let pts: Vec<DVec3> = (0..40)
        .map(|i| DVec3::new(f64::from(i), 0.0, 0.0))
        .collect();
    let bvh = Bvh::<Rss>::build(pts.as_slice(), &BvhOptions::default()).unwrap();
    let pose = DAffine3::from_translation(DVec3::new(f64::NAN, 0.0, 0.0));
    let mut out = Vec::new();
    bvh.overlapping_pairs_into(&bvh, &pose, &mut Workspace::new(), &mut out);
    assert_eq!(out.len(), 40 * 40);
    let (thr, _) = bvh.traverse_pair_best_first(
        &bvh,
        &mut Workspace::new(),
        f64::INFINITY,
        |a, b| a.distance_lower_bound(b, &pose),
        |_, _| f64::NAN,
    );
    assert!(thr.is_nan());
}

#[test]
fn single_and_all_degenerate_triangles() {
    // one triangle
    let v = [DVec3::ZERO, DVec3::X, DVec3::Y];
    let one =
        Bvh::<Rss>::build(&TriangleSoup::new(&v, &[[0, 1, 2]]), &BvhOptions::default()).unwrap();
    assert_eq!(one.node_count(), 1);
    assert_eq!(one.depth(), 1);
    // all triangles collapsed to points or segments
    let v: Vec<DVec3> = (0..30)
        .map(|i| DVec3::new(f64::from(i / 3), 0.0, 0.0))
        .collect();
    let t: Vec<[u32; 3]> = (0..10u32).map(|i| [3 * i, 3 * i + 1, 3 * i + 2]).collect();
    for leaf_size in [1, 4] {
        let opts = BvhOptions::default().with_leaf_size(leaf_size);
        let b = Bvh::<Obb>::build(&TriangleSoup::new(&v, &t), &opts).unwrap();
        let mut out = Vec::new();
        b.self_overlapping_pairs_into(&mut Workspace::new(), &mut out);
        assert!(out.is_empty() || leaf_size > 1);
        let r = Bvh::<Rss>::build(&TriangleSoup::new(&v, &t), &opts).unwrap();
        assert_eq!(r.primitive_count(), 10);
    }
}
