//! Unit tests of `cone`.

use super::*;
use ccd_bvh::{BvhOptions, PrimitiveSet};
use ccd_geometry::Aabb;

/// A `n × n` grid of cells in the plane z = 0 (two triangles per cell).
fn grid(n: u32) -> (Vec<[u32; 3]>, Vec<DVec3>) {
    let mut tris = Vec::new();
    for i in 0..n {
        for j in 0..n {
            let v = |a: u32, b: u32| a * (n + 1) + b;
            tris.push([v(i, j), v(i + 1, j), v(i + 1, j + 1)]);
            tris.push([v(i, j), v(i + 1, j + 1), v(i, j + 1)]);
        }
    }
    let pts = (0..=n)
        .flat_map(|i| (0..=n).map(move |j| DVec3::new(f64::from(i), f64::from(j), 0.0)))
        .collect();
    (tris, pts)
}

struct Tris<'a>(&'a DeformingMesh);
impl PrimitiveSet for Tris<'_> {
    fn len(&self) -> usize {
        self.0.triangle_count()
    }
    fn aabb(&self, i: usize) -> Aabb {
        let t = self.0.triangles()[i];
        t.iter().fold(Aabb::EMPTY, |b, &v| {
            b.include_point(self.0.x0()[v as usize])
        })
    }
    fn push_points(&self, i: usize, out: &mut Vec<DVec3>) {
        for v in self.0.triangles()[i] {
            out.push(self.0.x0()[v as usize]);
        }
    }
}

/// Whether the root (node 0, all triangles) of `m`'s patches is certified.
fn root_certified(p: &Patches, m: &DeformingMesh) -> bool {
    let pair = [m.x0(), m.x1()].map(|x| x.iter().fold(Kdop18::EMPTY, |k, v| k.include_point(*v)));
    let all: Vec<u32> = (0..m.triangle_count() as u32).collect();
    p.certified(0, m, &all, &pair, 1e-9, &mut Scratch::default())
}

fn patches(m: &DeformingMesh) -> (Bvh<Kdop18>, Patches) {
    patches_with(m, 4)
}

fn patches_with(m: &DeformingMesh, leaf_size: u32) -> (Bvh<Kdop18>, Patches) {
    let opts = BvhOptions::default().with_leaf_size(leaf_size);
    let bvh = Bvh::<Kdop18>::build(&Tris(m), &opts).unwrap();
    let mut p = Patches::build(m, &bvh, &super::super::hybrid::pieces(m).0);
    p.fit_cones(m, &bvh);
    (bvh, p)
}

#[test]
fn a_flat_falling_sheet_is_certified_at_the_root() {
    let (tris, x0) = grid(8);
    let x1: Vec<DVec3> = x0.iter().map(|p| *p - DVec3::Z * 0.5).collect();
    let m = DeformingMesh::new(tris, x0, x1).unwrap();
    let (_, p) = patches(&m);
    assert!(p.disk[0].is_some());
    assert_eq!(p.disk[0].unwrap().edges.1, 32); // the 8 × 8 grid's boundary
    assert!(root_certified(&p, &m));
}

#[test]
fn a_sheet_folding_onto_itself_is_not_certified() {
    // the right half rotates by 180° about the line x = 4 (a full fold: the normals of
    // the moving half sweep through every direction of a half-plane)
    let (tris, x0) = grid(8);
    let x1: Vec<DVec3> = x0
        .iter()
        .map(|p| {
            if p.x > 4.0 {
                DVec3::new(8.0 - p.x, p.y, 0.01)
            } else {
                *p
            }
        })
        .collect();
    let m = DeformingMesh::new(tris, x0, x1).unwrap();
    let (_, p) = patches(&m);
    assert!(p.disk[0].is_some());
    assert!(!root_certified(&p, &m));
}

#[test]
fn a_flat_contour_that_overlaps_in_projection_is_not_certified() {
    // a strip whose far end slides over its near end (normals stay +z, but the projected
    // contour self-intersects at t = 1)
    let tris = vec![
        [0, 1, 2],
        [1, 3, 2],
        [2, 3, 4],
        [3, 5, 4],
        [4, 5, 6],
        [5, 7, 6],
    ];
    let x0: Vec<DVec3> = (0..8)
        .map(|k| DVec3::new(f64::from(k / 2), f64::from(k % 2), 0.0))
        .collect();
    let mut x1 = x0.clone();
    for (k, p) in x1.iter_mut().enumerate().skip(6) {
        *p = DVec3::new(0.5, (k % 2) as f64, 0.1);
    }
    let m = DeformingMesh::new(tris, x0, x1).unwrap();
    let (_, p) = patches(&m);
    assert!(p.disk[0].is_some());
    assert!(!root_certified(&p, &m));
}

#[test]
fn closed_and_pinched_meshes_are_not_disks() {
    // a tetrahedron (closed: χ = 2, no boundary)
    let tris = vec![[0, 1, 2], [0, 3, 1], [1, 3, 2], [2, 3, 0]];
    let x: Vec<DVec3> = vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z];
    let m = DeformingMesh::new(tris, x.clone(), x).unwrap();
    let (_, p) = patches(&m);
    assert!(p.disk[0].is_none());
    // two triangles touching at one vertex (a bow tie)
    let tris = vec![[0, 1, 2], [0, 3, 4]];
    let x: Vec<DVec3> = vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::NEG_X, DVec3::NEG_Y];
    let m = DeformingMesh::new(tris, x.clone(), x).unwrap();
    let (_, p) = patches(&m);
    assert!(p.disk[0].is_none());
    assert!(!p.closed[0]);
}

#[test]
fn non_manifold_edges_poison_their_triangles_and_closed_pieces_are_found() {
    // three triangles on edge (0, 1), and a fourth elsewhere
    let tris = vec![[0, 1, 2], [1, 0, 3], [0, 1, 4], [5, 6, 7]];
    let x: Vec<DVec3> = (0..8)
        .map(|i| DVec3::new(f64::from(i).cos(), f64::from(i).sin(), f64::from(i) * 0.1))
        .collect();
    let m = DeformingMesh::new(tris, x.clone(), x).unwrap();
    assert_eq!(non_manifold_triangles(&m), vec![true, true, true, false]);
    // a tetrahedron is closed, and star-shaped about its centroid
    let tris = vec![[0, 1, 2], [0, 3, 1], [1, 3, 2], [2, 3, 0]];
    let x: Vec<DVec3> = vec![DVec3::ZERO, DVec3::Y, DVec3::X, DVec3::Z];
    let m = DeformingMesh::new(tris.clone(), x.clone(), x.clone()).unwrap();
    let (_, p) = patches_with(&m, 1);
    assert!(p.closed[0] && p.disk[0].is_none());
    assert!(root_certified(&p, &m));
    // with a fin on one edge it is neither closed nor certified
    let mut fin = tris;
    fin.push([1, 0, 4]);
    let mut y = x;
    y.push(DVec3::new(0.5, 0.5, -1.0));
    let m = DeformingMesh::new(fin, y.clone(), y).unwrap();
    let (_, p) = patches_with(&m, 1);
    assert!(!p.closed[0]);
    assert!(!root_certified(&p, &m));
}

#[test]
fn a_flap_folded_back_with_flipped_winding_is_not_certified() {
    // B shares A's long edge but lies folded back over A; its winding is flipped so that
    // its normal points up like A's. The two-triangle "patch" then has a simple contour
    // and a narrow cone, yet B's tip passes down through A: the winding check must stop it.
    let x0 = vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::new(0.3, 0.3, 0.1)];
    let mut x1 = x0.clone();
    x1[3].z = -0.1;
    let flipped = vec![[0, 1, 2], [2, 3, 1]];
    for tris in [flipped.clone(), vec![flipped[1], flipped[0]]] {
        let m = DeformingMesh::new(tris, x0.clone(), x1.clone()).unwrap();
        let (_, p) = patches(&m);
        assert!(p.disk[0].is_none());
        assert!(!root_certified(&p, &m));
        // one triangle per leaf: the winding is checked when the leaves merge, and when
        // the two leaves are certified as a pair
        let (bvh, p) = patches_with(&m, 1);
        let [l, r] = bvh.node(0).children().unwrap();
        assert!(p.disk[l as usize].is_some() && p.disk[r as usize].is_some());
        assert!(p.disk[0].is_none());
        let mut scratch = Scratch::default();
        assert!(!p.pair_certified(l as usize, r as usize, &m, 1e-9, &mut scratch));
    }
    // consistently wound, the folded flap's normal points down: the cone fails instead
    let m = DeformingMesh::new(vec![[0, 1, 2], [1, 3, 2]], x0, x1).unwrap();
    let (_, p) = patches(&m);
    assert!(p.disk[0].is_some());
    assert!(!root_certified(&p, &m));
}

#[test]
fn cones_merge_and_contain() {
    let u = &mut Vec::new();
    let a = cone_of(&[Some(DVec3::Z), Some(DVec3::new(0.1, 0.0, 1.0))], u);
    let b = cone_of(&[Some(DVec3::new(0.0, 0.3, 1.0))], u);
    let c = a.merge(&b);
    for d in [
        DVec3::Z,
        DVec3::new(0.1, 0.0, 1.0),
        DVec3::new(0.0, 0.3, 1.0),
    ] {
        assert!(angle(c.axis, d.normalize()) <= c.half);
    }
    assert!(!cone_of(&[Some(DVec3::Z), Some(DVec3::NEG_Z)], u).usable());
    assert!(!cone_of(&[None], u).usable());
    assert!(!a.merge(&Cone::FULL).usable());
}

#[test]
fn sweep_keys_keep_the_order_and_bound_the_values() {
    let xs = [
        -1e300,
        -3.5,
        -1e-30,
        -0.0,
        0.0,
        1e-45,
        1e-30,
        0.1,
        0.1 + 1e-12,
        2.0,
        7e37,
        1e300,
    ];
    for w in xs.windows(2) {
        assert!(ordered_bits(f32_down(w[0])) <= ordered_bits(f32_down(w[1])));
        assert!(ordered_bits(f32_up(w[0])) <= ordered_bits(f32_up(w[1])));
    }
    for &x in &xs {
        assert!(f64::from(f32_down(x)) <= x && x <= f64::from(f32_up(x)));
        assert!(ordered_bits(f32_down(x)) <= ordered_bits(f32_up(x)));
    }
}

#[test]
fn a_set_cone_holds_every_direction_and_is_tight() {
    let u = &mut Vec::new();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 11) as f64 / (1u64 << 53) as f64 - 0.5
    };
    for spread in [1e-6, 0.05, 0.4, 0.9] {
        for _ in 0..50 {
            let dirs: Vec<Option<DVec3>> = (0..24)
                .map(|_| Some(DVec3::new(spread * next(), spread * next(), 1.0 + next())))
                .collect();
            let c = cone_of(&dirs, u);
            assert!(c.usable());
            let widest = dirs
                .iter()
                .map(|d| angle(c.axis, d.unwrap().normalize()))
                .fold(0.0f64, f64::max);
            assert!(widest <= c.half, "{widest} > {}", c.half);
            // the one-arctangent bound loses at most a few percent against the widest
            assert!(c.half <= widest * 1.05 + 2.0 * ANGLE_SLACK);
        }
    }
}
