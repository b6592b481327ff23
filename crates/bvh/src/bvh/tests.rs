//! Unit tests of the BVH builds and refits: structure, groups, bad input, extreme inputs.

use ccd_geometry::Aabb;
use glam::DVec3;

use super::split::BuildItem;
use super::*;
use crate::{BoundingVolume, BvhError, Kdop18, Obb, Rss, SplitRule, TriangleSoup};

fn grid(n: u32) -> (Vec<DVec3>, Vec<[u32; 3]>) {
    let mut v = Vec::new();
    for j in 0..=n {
        for i in 0..=n {
            v.push(DVec3::new(
                f64::from(i),
                f64::from(j),
                (f64::from(i) * 0.3).sin(),
            ));
        }
    }
    let mut t = Vec::new();
    for j in 0..n {
        for i in 0..n {
            let a = j * (n + 1) + i;
            t.push([a, a + 1, a + n + 2]);
            t.push([a, a + n + 2, a + n + 1]);
        }
    }
    (v, t)
}

fn check_structure<B: BoundingVolume>(bvh: &Bvh<B>, soup: &TriangleSoup<'_>, leaf_size: u32) {
    let mut seen = vec![false; soup.triangles.len()];
    for &p in bvh.primitives() {
        assert!(!seen[p as usize]);
        seen[p as usize] = true;
    }
    assert!(seen.iter().all(|s| *s));
    for (i, node) in bvh.nodes().iter().enumerate() {
        for &p in bvh.node_primitives(i as u32) {
            for k in soup.triangles[p as usize] {
                assert!(
                    node.bv().contains_point(soup.vertices[k as usize], 1e-9),
                    "{} {:?} {:?}",
                    std::any::type_name::<B>(),
                    node.bv(),
                    soup.vertices[k as usize]
                );
            }
        }
        match node.children() {
            Some([l, r]) => {
                assert!(l as usize > i);
                let (a, b) = (bvh.node(l), bvh.node(r));
                assert_eq!(a.primitive_range().start, node.primitive_range().start);
                assert_eq!(a.primitive_range().end, b.primitive_range().start);
                assert_eq!(b.primitive_range().end, node.primitive_range().end);
                assert!(a.primitive_count() > 0 && b.primitive_count() > 0);
            }
            None => assert!(node.primitive_count() <= leaf_size),
        }
    }
}

#[test]
fn builds_are_well_formed_for_every_rule_and_volume() {
    let (v, t) = grid(12);
    let soup = TriangleSoup::new(&v, &t);
    for split in [SplitRule::Median, SplitRule::BinnedSah { bins: 8 }] {
        for leaf_size in [1, 3, 8] {
            let o = BvhOptions::default()
                .with_leaf_size(leaf_size)
                .with_split(split);
            check_structure(&Bvh::<Aabb>::build(&soup, &o).unwrap(), &soup, leaf_size);
            check_structure(&Bvh::<Obb>::build(&soup, &o).unwrap(), &soup, leaf_size);
            check_structure(&Bvh::<Rss>::build(&soup, &o).unwrap(), &soup, leaf_size);
        }
    }
    let b = Bvh::<Aabb>::build_bottom_up(&soup).unwrap();
    check_structure(&b, &soup, 1);
    let b = Bvh::<Rss>::build_bottom_up(&soup).unwrap();
    check_structure(&b, &soup, 1);
}

#[test]
fn identical_centroids_still_split() {
    let v = vec![DVec3::ZERO, DVec3::X, DVec3::Y];
    let t = vec![[0, 1, 2]; 20];
    let soup = TriangleSoup::new(&v, &t);
    let bvh = Bvh::<Aabb>::build(&soup, &BvhOptions::default().with_leaf_size(2)).unwrap();
    check_structure(&bvh, &soup, 2);
    assert!(bvh.depth() <= 6);
}

#[test]
fn refit_follows_moved_vertices() {
    let (mut v, t) = grid(6);
    let mut bvh_a = Bvh::<Aabb>::build(&TriangleSoup::new(&v, &t), &BvhOptions::default()).unwrap();
    let mut bvh_r = Bvh::<Rss>::build(&TriangleSoup::new(&v, &t), &BvhOptions::default()).unwrap();
    for (i, p) in v.iter_mut().enumerate() {
        *p += DVec3::new(0.0, 0.0, (i as f64 * 0.77).cos() * 2.0);
    }
    let soup = TriangleSoup::new(&v, &t);
    bvh_a.refit(&soup).unwrap();
    bvh_r.refit(&soup).unwrap();
    check_structure(&bvh_a, &soup, 4);
    check_structure(&bvh_r, &soup, 4);
    let short = TriangleSoup::new(&v, &t[1..]);
    assert!(matches!(
        bvh_a.refit(&short),
        Err(BvhError::CountMismatch { .. })
    ));
}

/// Every node holds either primitives of one group only, or whole groups.
fn check_groups<B>(bvh: &Bvh<B>, groups: &[u32], leaf_size: u32) {
    let mut size = std::collections::HashMap::new();
    for &g in groups {
        *size.entry(g).or_insert(0u32) += 1;
    }
    for i in 0..bvh.node_count() as u32 {
        let mut here = std::collections::HashMap::new();
        for &p in bvh.node_primitives(i) {
            *here.entry(groups[p as usize]).or_insert(0u32) += 1;
        }
        if here.len() > 1 {
            for (g, c) in &here {
                assert_eq!(*c, size[g], "node {i} splits group {g}");
            }
        }
        if bvh.node(i).is_leaf() {
            assert!(bvh.node(i).primitive_count() <= leaf_size);
        }
    }
}

#[test]
fn grouped_builds_never_split_a_group() {
    let (v, t) = grid(20);
    let soup = TriangleSoup::new(&v, &t);
    // interleaved groups (stripes, checkerboard, one big + singletons, all one)
    let rules: [&dyn Fn(usize) -> u32; 4] = [
        &|i| (i % 7) as u32,
        &|i| ((i / 40 + i % 40 / 2) % 2) as u32,
        &|i| if i % 97 == 0 { i as u32 } else { 5 },
        &|_| 9,
    ];
    for rule in rules {
        let groups: Vec<u32> = (0..t.len()).map(rule).collect();
        for split in [SplitRule::Median, SplitRule::BinnedSah { bins: 8 }] {
            for leaf_size in [1, 4, 8] {
                let o = BvhOptions::default()
                    .with_leaf_size(leaf_size)
                    .with_split(split);
                let b = Bvh::<Kdop18>::build_grouped(&soup, &groups, &o).unwrap();
                check_structure(&b, &soup, leaf_size);
                check_groups(&b, &groups, leaf_size);
                let b = Bvh::<Obb>::build_grouped(&soup, &groups, &o).unwrap();
                check_structure(&b, &soup, leaf_size);
            }
        }
    }
    assert!(matches!(
        Bvh::<Aabb>::build_grouped(&soup, &[0; 3], &BvhOptions::default()),
        Err(BvhError::CountMismatch { .. })
    ));
    let empty = TriangleSoup::new(&v, &[]);
    assert_eq!(
        Bvh::<Aabb>::build_grouped(&empty, &[], &BvhOptions::default())
            .unwrap()
            .node_count(),
        0
    );
}

#[test]
fn refit_from_leaves_matches_refit_for_exact_merges() {
    let (mut v, t) = grid(7);
    let mut bvh = Bvh::<Kdop18>::build(&TriangleSoup::new(&v, &t), &BvhOptions::default()).unwrap();
    for (i, p) in v.iter_mut().enumerate() {
        *p += DVec3::new((i as f64 * 1.3).sin(), 0.0, (i as f64 * 0.77).cos() * 2.0);
    }
    let soup = TriangleSoup::new(&v, &t);
    let mut by_leaves = bvh.clone();
    bvh.refit(&soup).unwrap();
    let mut leaves = 0;
    by_leaves.refit_from_leaves(|_, prims| {
        leaves += 1;
        let pts: Vec<DVec3> = prims
            .iter()
            .flat_map(|&p| t[p as usize].map(|k| v[k as usize]))
            .collect();
        Kdop18::fit_points(&pts)
    });
    assert!(leaves > 1);
    for (a, b) in bvh.nodes().iter().zip(by_leaves.nodes()) {
        assert_eq!(a.bv(), b.bv());
    }
    check_structure(&by_leaves, &soup, 4);
}

#[test]
fn bad_input_is_an_error() {
    let v = vec![DVec3::ZERO, DVec3::X, DVec3::new(f64::NAN, 0.0, 0.0)];
    let t = vec![[0, 1, 2]];
    let e = Bvh::<Aabb>::build(&TriangleSoup::new(&v, &t), &BvhOptions::default()).unwrap_err();
    assert!(matches!(e, BvhError::NonFinitePrimitive { index: 0 }));
    let t = vec![[0, 1, 7]];
    let e = Bvh::<Aabb>::build(&TriangleSoup::new(&v, &t), &BvhOptions::default()).unwrap_err();
    assert!(e.to_string().contains("triangle 0"));
    let e = Bvh::<Aabb>::build(
        &TriangleSoup::new(&v, &[]),
        &BvhOptions::default().with_leaf_size(0),
    );
    assert!(matches!(e, Err(BvhError::InvalidOption(_))));
    let empty = Bvh::<Aabb>::build(&TriangleSoup::new(&v, &[]), &BvhOptions::default()).unwrap();
    assert!(empty.root().is_none());
    assert_eq!(empty.depth(), 0);
}

#[test]
fn build_item_ids_round_trip_through_the_float_lane() {
    let b = Aabb::new(DVec3::ZERO, DVec3::ONE);
    for id in [
        0,
        1,
        (1 << 23) - 1,
        1 << 23,
        0x3F80_0000,
        0x7F80_0001,
        u32::MAX - 1,
    ] {
        let it = BuildItem::new(&b, id);
        // copies and partition swaps keep the bits
        let copy = [it, it][1];
        assert_eq!(copy.id(), id);
    }
}

#[test]
fn huge_and_tiny_coordinates_still_build() {
    // beyond the f32 range (clamped for the split records) and far below it
    let mut v = Vec::new();
    let mut t = Vec::new();
    for i in 0..60u32 {
        let s = match i % 3 {
            0 => 1e300,
            1 => 1e-300,
            _ => 1.0,
        };
        let x = f64::from(i) * s;
        let k = v.len() as u32;
        v.extend([
            DVec3::new(x, 0.0, 0.0),
            DVec3::new(x + s, 0.0, 0.0),
            DVec3::new(x, s, -s),
        ]);
        t.push([k, k + 1, k + 2]);
    }
    let soup = TriangleSoup::new(&v, &t);
    for split in [SplitRule::Median, SplitRule::BinnedSah { bins: 16 }] {
        let o = BvhOptions::default().with_leaf_size(2).with_split(split);
        check_structure(&Bvh::<Aabb>::build(&soup, &o).unwrap(), &soup, 2);
    }
}

#[test]
fn collinear_points_give_balanced_trees() {
    // every SAH cost is zero (flat boxes): ties must not degrade into a chain
    let pts: Vec<DVec3> = (0..1000)
        .map(|i| DVec3::new(f64::from(i), 0.0, 0.0))
        .collect();
    let bvh = Bvh::<Aabb>::build(pts.as_slice(), &BvhOptions::default()).unwrap();
    // a perfectly balanced tree with leaves of 4 has depth 9
    assert!(bvh.depth() <= 11, "depth {}", bvh.depth());
}
