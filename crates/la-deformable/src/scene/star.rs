//! Self-collision culling of closed pieces by central projection from a moving centre
//! (the closed-surface counterpart of the normal-cone test in [`super::cone`]; the idea of
//! certifying star-shaped patches is Schvartzman, Pérez and Otaduy's "star-contours",
//! SIGGRAPH 2010, here made continuous over the step).
//!
//! **The criterion.** Let `S` be a closed, connected, consistently wound triangle surface and
//! `c(t) = (1 − t)·c₀ + t·c₁` a point moving with it. If every triangle `(p, q, r)` keeps
//! `det(p − c, q − c, r − c) > 0` for all `t ∈ [0, 1]`, then at every `t` the central
//! projection of `S` from `c(t)` onto the unit sphere is an orientation-preserving local
//! homeomorphism away from the vertices (each triangle maps injectively, the two triangles
//! at an edge map to opposite sides of it), i.e. a branched covering of the sphere. Its degree
//! is the total solid angle of the triangles seen from `c` over `4π`; it cannot change while
//! no triangle passes through `c`, so it is checked once, at `t = 0`. Degree 1 makes the
//! covering one-to-one (Riemann–Hurwitz: no branch points are left), hence `S(t)` has no
//! self-intersection at any time of the step, and its self-collision subtree is skipped.
//!
//! With linear vertex motion each determinant is a cubic in `t`; its four Bernstein
//! coefficients (sums of determinants of the vectors at `t = 0` and `t = 1`) must all exceed
//! the rounding bound of their evaluation, and then the cubic (a convex combination of them)
//! is positive on the whole step. Balls, ellipsoids and other star-shaped bodies pass,
//! whatever they turn or wobble, while a surface that dents through itself, or is not
//! star-shaped about its centroid, does not (it is then traversed as usual).
//!
//! Like the disk test, this proves the absence of intersections, not of proximity: features
//! of a certified piece that come within `ε` without touching are not reported.

use ccd_geometry::glam::DVec3;

use crate::DeformingMesh;

/// Unit roundoff of `f64`.
const U: f64 = 0.5 * f64::EPSILON;

/// Halvings of the step tried when a determinant's Bernstein coefficients are not all
/// positive (a fast turn makes the middle ones dip while the cubic stays positive).
const SUBDIVISIONS: u32 = 4;

/// Whether the cubic with Bernstein coefficients `d` on `[0, 1]` (each within `margin` of
/// the exact one) is positive there: all coefficients above the margin, else the two halves
/// (de Casteljau) up to `depth` times. Every split coefficient is a convex combination of
/// the originals, so it is off by at most the margin plus its own rounding (`4u` of the
/// largest coefficient, added to the margin at each level).
fn positive(d: [f64; 4], margin: f64, depth: u32) -> bool {
    if d.iter().all(|&x| x > margin) {
        return true;
    }
    if depth == 0 || d[0] <= margin || d[3] <= margin {
        return false;
    }
    let [a, b, c, e] = d;
    let (ab, bc, ce) = (0.5 * (a + b), 0.5 * (b + c), 0.5 * (c + e));
    let (abc, bce) = (0.5 * (ab + bc), 0.5 * (bc + ce));
    let mid = 0.5 * (abc + bce);
    let big = d.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let margin = margin + 4.0 * U * big;
    positive([a, ab, abc, mid], margin, depth - 1) && positive([mid, bce, ce, e], margin, depth - 1)
}

/// Whether the closed surface made of triangles `prims` of `mesh` (connected, consistently
/// wound, no boundary: the caller's topology check) provably does not intersect itself at
/// any time of the step (see the module docs), about the moving centroid of its corners.
/// `boxes` bound its vertices at `t = 0` and at `t = 1` (`[min, max]` corners; they size the
/// rounding margins).
pub(crate) fn star_shaped(mesh: &DeformingMesh, prims: &[u32], boxes: [[DVec3; 2]; 2]) -> bool {
    star_shaped_along(mesh, prims, boxes, RAY)
}

/// A direction unlikely to graze an edge of a typical mesh (no rational relation between its
/// coordinates and none aligned with an axis).
const RAY: DVec3 = DVec3::new(0.577_215_664_9, 0.618_033_988_7, 0.533_426_719_7);

/// [`star_shaped`], counting the covering degree along `ray`.
fn star_shaped_along(
    mesh: &DeformingMesh,
    prims: &[u32],
    boxes: [[DVec3; 2]; 2],
    ray: DVec3,
) -> bool {
    if prims.is_empty() {
        return false;
    }
    let (x0, x1, tris) = (mesh.x0(), mesh.x1(), mesh.triangles());
    // the centre: the mean of the triangles' corners (inside the boxes)
    let (mut c0, mut c1) = (DVec3::ZERO, DVec3::ZERO);
    for &t in prims {
        for v in tris[t as usize] {
            c0 += x0[v as usize];
            c1 += x1[v as usize];
        }
    }
    let k = 3.0 * prims.len() as f64;
    let (c0, c1) = (c0 / k, c1 / k);
    let [[lo0, hi0], [lo1, hi1]] = boxes;
    // every vertex is within the sum of its box's extents of a centre in the box, in the
    // 1-norm (with room for rounding)
    let reach = |lo: DVec3, hi: DVec3| (hi - lo).element_sum();
    let m = reach(lo0, hi0).max(reach(lo1, hi1));
    if !(c0.is_finite() && c1.is_finite() && m.is_finite()) {
        return false;
    }
    // each determinant is off by at most ~8u·|a|₁|b|₁|e|₁ (the differences to the centre
    // included); 32u·m³ covers that and the averages of the middle coefficients
    let margin = 32.0 * U * m * m * m;
    // the ray test's Cramer numerators, likewise
    let slack = 32.0 * U * (ray.x.abs() + ray.y.abs() + ray.z.abs()) * m * m;
    let (mut hits, mut grazed) = (0u32, false);
    for &t in prims {
        let [p, q, r] = tris[t as usize].map(|v| v as usize);
        let (a0, b0, e0) = (x0[p] - c0, x0[q] - c0, x0[r] - c0);
        let (a1, b1, e1) = (x1[p] - c1, x1[q] - c1, x1[r] - c1);
        // Bernstein coefficients of det(a(t), b(t), e(t)) on [0, 1], from four cross products
        let (x00, x11, x10, x01) = (b0.cross(e0), b1.cross(e1), b1.cross(e0), b0.cross(e1));
        let d0 = a0.dot(x00);
        let d3 = a1.dot(x11);
        let d1 = (a1.dot(x00) + a0.dot(x10) + a0.dot(x01)) / 3.0;
        let d2 = (a0.dot(x11) + a1.dot(x01) + a1.dot(x10)) / 3.0;
        let all_above = d0 > margin && d1 > margin && d2 > margin && d3 > margin;
        if !all_above && !positive([d0, d1, d2, d3], margin, SUBDIVISIONS) {
            return false;
        }
        // the ray crosses the (positive) triangle iff it is a positive combination of a, b, e:
        // Cramer's numerators det(w, b, e), det(a, w, e), det(a, b, w) all positive (the
        // first, free, settles most triangles)
        let n0 = ray.dot(x00);
        if n0 < -slack {
            continue;
        }
        let n = [n0, ray.dot(e0.cross(a0)), ray.dot(a0.cross(b0))];
        if n.iter().all(|&x| x > slack) {
            hits += 1;
        } else if n.iter().all(|&x| x > -slack) {
            grazed = true;
        }
    }
    if !grazed {
        return hits == 1;
    }
    // solid angles at t = 0 (Van Oosterom–Strackee), each in (0, 2π) for a positive
    // triangle: 4π times the covering degree (≥ 1), and degree 1 is anything below 8π
    let mut solid = 0.0;
    for &t in prims {
        let [p, q, r] = tris[t as usize].map(|v| x0[v as usize] - c0);
        let (la, lb, le) = (p.length(), q.length(), r.length());
        let den = la * lb * le + p.dot(q) * le + p.dot(r) * lb + q.dot(r) * la;
        solid += 2.0 * p.dot(q.cross(r)).atan2(den);
    }
    let four_pi = 4.0 * std::f64::consts::PI;
    solid.is_finite() && solid > 0.5 * four_pi && solid < 1.5 * four_pi
}

#[cfg(test)]
mod tests {
    use super::*;
    use ccd_geometry::glam::DQuat;

    /// A UV sphere of radius `r` at the origin, outward winding.
    fn sphere(r: f64, slices: u32, stacks: u32) -> (Vec<[u32; 3]>, Vec<DVec3>) {
        let mut pts = vec![DVec3::new(0.0, 0.0, r)];
        for i in 1..stacks {
            let th = std::f64::consts::PI * f64::from(i) / f64::from(stacks);
            for j in 0..slices {
                let ph = std::f64::consts::TAU * f64::from(j) / f64::from(slices);
                pts.push(r * DVec3::new(th.sin() * ph.cos(), th.sin() * ph.sin(), th.cos()));
            }
        }
        pts.push(DVec3::new(0.0, 0.0, -r));
        let south = pts.len() as u32 - 1;
        let ring = |i: u32, j: u32| 1 + (i - 1) * slices + j % slices;
        let mut tris = Vec::new();
        for j in 0..slices {
            tris.push([0, ring(1, j), ring(1, j + 1)]);
            tris.push([south, ring(stacks - 1, j + 1), ring(stacks - 1, j)]);
        }
        for i in 1..stacks - 1 {
            for j in 0..slices {
                let (a, b, c, d) = (
                    ring(i, j),
                    ring(i, j + 1),
                    ring(i + 1, j),
                    ring(i + 1, j + 1),
                );
                tris.push([a, c, d]);
                tris.push([a, d, b]);
            }
        }
        (tris, pts)
    }

    fn all(m: &DeformingMesh) -> Vec<u32> {
        (0..m.triangle_count() as u32).collect()
    }

    /// The bounding boxes of `m`'s vertices at both times.
    fn boxes(m: &DeformingMesh) -> [[DVec3; 2]; 2] {
        [m.x0(), m.x1()].map(|x| {
            x.iter()
                .fold([DVec3::INFINITY, DVec3::NEG_INFINITY], |[lo, hi], p| {
                    [lo.min(*p), hi.max(*p)]
                })
        })
    }

    #[test]
    fn a_turning_wobbling_flying_ball_is_certified() {
        let (t, p) = sphere(1.0, 16, 12);
        // (a fast turn: the determinants' middle Bernstein coefficients dip below zero
        // and the step is halved)
        let q = DQuat::from_axis_angle(DVec3::new(1.0, 2.0, 0.5).normalize(), 2.0);
        let x1: Vec<DVec3> = p
            .iter()
            .map(|v| q * (*v * DVec3::new(1.4, 0.7, 1.0)) + DVec3::new(5.0, -3.0, 2.0))
            .collect();
        let m = DeformingMesh::new(t, p, x1).unwrap();
        assert!(star_shaped(&m, &all(&m), boxes(&m)));
    }

    #[test]
    fn subdivision_finds_positive_cubics_and_rejects_roots() {
        // positive on [0, 1] (0.1 at t = ½, its minimum) though its middle coefficients are not
        let q = [1.0, -0.2, -0.2, 1.0];
        assert!(!q.iter().all(|&x| x > 0.0));
        assert!(positive(q, 1e-12, SUBDIVISIONS));
        // a double root inside: never certified
        let root = [1.0, -1.0, -1.0, 1.0];
        assert!(!positive(root, 1e-12, 12));
        assert!(!positive([0.0, 1.0, 1.0, 1.0], 1e-12, 4));
    }

    #[test]
    fn a_ray_through_a_vertex_falls_back_to_the_solid_angle() {
        let (t, p) = sphere(1.0, 16, 12);
        let m = DeformingMesh::new(t.clone(), p.clone(), p.clone()).unwrap();
        // the centroid is (about) the origin: +z runs through the north pole, -x through a
        // ring vertex and along edges
        for ray in [DVec3::Z, DVec3::NEG_X, RAY] {
            assert!(star_shaped_along(&m, &all(&m), boxes(&m), ray));
        }
        let flipped: Vec<[u32; 3]> = t.iter().map(|f| [f[0], f[2], f[1]]).collect();
        let m = DeformingMesh::new(flipped, p.clone(), p).unwrap();
        assert!(!star_shaped_along(&m, &all(&m), boxes(&m), DVec3::Z));
    }

    #[test]
    fn a_ball_dented_through_itself_is_not_certified() {
        let (t, p) = sphere(1.0, 16, 12);
        // the north cap is pushed down through the south side during the step
        let x1: Vec<DVec3> = p
            .iter()
            .map(|v| {
                if v.z > 0.5 {
                    DVec3::new(v.x, v.y, -1.6)
                } else {
                    *v
                }
            })
            .collect();
        let m = DeformingMesh::new(t, p, x1).unwrap();
        assert!(!star_shaped(&m, &all(&m), boxes(&m)));
    }

    #[test]
    fn inside_out_and_doubly_wrapped_surfaces_are_not_certified() {
        let (t, p) = sphere(1.0, 12, 8);
        let flipped: Vec<[u32; 3]> = t.iter().map(|f| [f[0], f[2], f[1]]).collect();
        let m = DeformingMesh::new(flipped, p.clone(), p.clone()).unwrap();
        assert!(!star_shaped(&m, &all(&m), boxes(&m)));
        // two copies of the sphere's triangles around one centre: solid angle 8π
        let n = p.len() as u32;
        let twice: Vec<[u32; 3]> = t
            .iter()
            .copied()
            .chain(t.iter().map(|f| f.map(|v| v + n)))
            .collect();
        let pts: Vec<DVec3> = p.iter().chain(p.iter()).copied().collect();
        let m = DeformingMesh::new(twice, pts.clone(), pts).unwrap();
        assert!(!star_shaped(&m, &all(&m), boxes(&m)));
    }
}
