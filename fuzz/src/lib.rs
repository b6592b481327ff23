//! Shared pieces of the fuzz targets: structure-aware point sets across the whole `f64` range
//! and cheap, independent references (no code of the crates under test) for the oracles.
//!
//! The references work in a *normalised frame*: coordinates relative to one input point and
//! scaled by a power of two so that the case's extent is about 1. Power-of-two scaling is exact
//! and the relative coordinates are checked to be exact (or accurate to far below the margins
//! used), so the references answer for the inputs as given, whatever their magnitude. They
//! only ever claim a contact that holds with clear margins (a sign change of at least `1e-9`
//! of the extent, barycentric margins of 5%), so a failing oracle is a real miss, not
//! rounding.

use arbitrary::Arbitrary;
use ccd_geometry::glam::{DAffine3, DQuat, DVec3};
use ccd_geometry::{TriMesh, io};
use ccd_la_deformable::{LaError, LaOptions, PrimitiveToc};

/// `x · 2^e` for any `e` (in steps that stay exact while the result is normal).
pub fn ldexp(mut x: f64, mut e: i32) -> f64 {
    let pow2 = |k: i32| f64::from_bits(((k + 1023) as u64) << 52);
    while e > 1000 {
        x *= pow2(1000);
        e -= 1000;
    }
    while e < -1000 {
        x *= pow2(-1000);
        e += 1000;
    }
    x * pow2(e)
}

/// A rigid pose on a lattice: the quaternion `rotation` normalised (zero: the identity) and
/// the translation `translation · 2^spacing_exp`.
pub fn lattice_pose(rotation: [i8; 4], translation: [i16; 3], spacing_exp: i32) -> DAffine3 {
    let q = DQuat::from_xyzw(
        f64::from(rotation[0]),
        f64::from(rotation[1]),
        f64::from(rotation[2]),
        f64::from(rotation[3]),
    );
    let q = if q.length_squared() > 0.0 {
        q.normalize()
    } else {
        DQuat::IDENTITY
    };
    let t = translation.map(|c| ldexp(f64::from(c), spacing_exp));
    DAffine3::from_rotation_translation(q, DVec3::from_array(t))
}

/// A number of the numeric targets (`interval`, `taylor`): `k / 256`, `k · 2^e` anywhere in
/// the range, or any `f64`.
#[derive(Arbitrary, Clone, Copy, Debug)]
pub enum Num {
    /// `k / 256`.
    Small(i16),
    /// `k · 2^e` (`e` clamped to `[-1100, 1100]`).
    Scaled(i16, i16),
    /// Any value (NaN, infinities, subnormals).
    Raw(f64),
}

impl Num {
    /// The number.
    pub fn value(self) -> f64 {
        match self {
            Self::Small(k) => f64::from(k) / 256.0,
            Self::Scaled(k, e) => ldexp(f64::from(k), i32::from(e).clamp(-1100, 1100)),
            Self::Raw(v) => v,
        }
    }
}

/// A common translation added to every point of a case: large offsets put small features at
/// huge coordinates (where `u·|x|` exceeds the feature size).
#[derive(Arbitrary, Clone, Copy, Debug)]
pub struct Offset {
    /// Lattice coordinates of the offset.
    pub coords: [i16; 3],
    /// Binary exponent of the offset's lattice.
    pub exp: i16,
}

/// `N` points on an integer lattice of spacing `2^exp` (any exponent of the `f64` range),
/// optionally translated by an [`Offset`] and with one coordinate replaced by an arbitrary
/// `f64` (NaN, infinities, subnormals, anything).
#[derive(Arbitrary, Clone, Debug)]
pub struct Points<const N: usize> {
    /// Binary exponent of the lattice spacing (clamped to `[-1100, 1100]`).
    pub exp: i16,
    /// Lattice coordinates.
    pub coords: [[i16; 3]; N],
    /// Common translation.
    pub offset: Option<Offset>,
    /// `(flat coordinate index mod 3N, value)`.
    pub raw: Option<(u8, f64)>,
}

impl<const N: usize> Points<N> {
    /// The lattice spacing's exponent, clamped.
    pub fn spacing_exp(&self) -> i32 {
        i32::from(self.exp).clamp(-1100, 1100)
    }

    /// The points.
    pub fn points(&self) -> [DVec3; N] {
        let e = self.spacing_exp();
        let off = self.offset.map_or(DVec3::ZERO, |o| {
            let oe = i32::from(o.exp).clamp(-1100, 1100);
            DVec3::new(
                ldexp(f64::from(o.coords[0]), oe),
                ldexp(f64::from(o.coords[1]), oe),
                ldexp(f64::from(o.coords[2]), oe),
            )
        });
        let mut p: [DVec3; N] = std::array::from_fn(|i| {
            let c = self.coords[i];
            off + DVec3::new(
                ldexp(f64::from(c[0]), e),
                ldexp(f64::from(c[1]), e),
                ldexp(f64::from(c[2]), e),
            )
        });
        if let Some((k, v)) = self.raw {
            let k = usize::from(k) % (3 * N);
            p[k / 3][k % 3] = v;
        }
        p
    }
}

/// A tolerance: the default, a power of two relative to the lattice spacing, or any `f64`.
#[derive(Arbitrary, Clone, Copy, Debug)]
pub enum Tolerance {
    /// The entry point's default.
    Default,
    /// `2^(spacing exponent + k)`.
    Relative(i8),
    /// Any value (negative, NaN, infinite, subnormal).
    Raw(f64),
}

impl Tolerance {
    /// The tolerance for a case whose lattice spacing is `2^spacing_exp`.
    pub fn value(self, default: f64, spacing_exp: i32) -> f64 {
        match self {
            Self::Default => default,
            Self::Relative(k) => ldexp(1.0, spacing_exp + i32::from(k)),
            Self::Raw(v) => v,
        }
    }
}

/// `a − b` and whether the subtraction was exact (TwoSum error term zero).
fn diff_exact(a: f64, b: f64) -> (f64, bool) {
    let s = a - b;
    let bb = s - a;
    let err = (a - (s - bb)) + (-b - bb);
    (s, err == 0.0 && s.is_finite())
}

/// Points in the normalised frame: `(p − reference) · 2^-k` with the case's extent in
/// `[0.5, 1)`, and the factor `2^-k` (apply it to tolerances).
pub struct Normalised {
    /// The normalised points, in input order.
    pub points: Vec<DVec3>,
    /// The scale factor applied.
    pub factor: f64,
}

/// Normalises `points` (see [`Normalised`]); `None` when a point is not finite, all points
/// coincide, or a relative coordinate is not accurate to `1e-13` of the extent (then no
/// reference answer is trusted).
pub fn normalise(points: &[DVec3]) -> Option<Normalised> {
    if points.iter().any(|p| !p.is_finite()) {
        return None;
    }
    let reference = points[0];
    let mut rel = Vec::with_capacity(points.len());
    let mut all_exact = true;
    let mut max_abs = 0.0f64;
    for p in points {
        let mut r = DVec3::ZERO;
        for k in 0..3 {
            let (d, exact) = diff_exact(p[k], reference[k]);
            if !d.is_finite() {
                return None;
            }
            all_exact &= exact;
            r[k] = d;
            max_abs = max_abs.max(p[k].abs());
        }
        rel.push(r);
    }
    let extent = rel.iter().fold(0.0f64, |m, r| m.max(r.abs().max_element()));
    if extent == 0.0 {
        return None;
    }
    if !all_exact && max_abs * f64::EPSILON > 1e-13 * extent {
        return None;
    }
    // 2^-k with 2^k > extent ≥ 2^(k-1)
    let k = extent.log2().floor() as i32 + 1;
    let factor = ldexp(1.0, -k);
    let points: Vec<DVec3> = rel
        .iter()
        .map(|r| DVec3::new(ldexp(r.x, -k), ldexp(r.y, -k), ldexp(r.z, -k)))
        .collect();
    Some(Normalised { points, factor })
}

/// Positions at `t` of points moving linearly from `x0` to `x1`.
pub fn at<const N: usize>(x0: &[DVec3; N], x1: &[DVec3; N], t: f64) -> [DVec3; N] {
    std::array::from_fn(|i| x0[i] + (x1[i] - x0[i]) * t)
}

/// A configuration measure for the crossing search: `Some((signed gap, inside margin, size))`
/// when the configuration is non-degenerate, where the signed gap changes sign exactly when
/// the features pass through each other while the inside margin is positive, and `size`
/// bounds how far points may move between checks (`size / 1000` per check).
pub type Measure<const N: usize> = fn(&[DVec3; N]) -> Option<(f64, f64, f64)>;

/// Vertex `p[0]` against triangle `p[1..4]` (normalised frame): signed distance to the plane,
/// smallest barycentric coordinate of the projection, smallest altitude.
pub fn vf_measure(p: &[DVec3; 4]) -> Option<(f64, f64, f64)> {
    let (v, a, b, c) = (p[0], p[1], p[2], p[3]);
    let n = (b - a).cross(c - a);
    let area2 = n.length();
    let longest = (b - a).length().max((c - b).length()).max((a - c).length());
    if !(area2 > 1e-6 && longest > 0.0) {
        return None;
    }
    let altitude = area2 / longest;
    if altitude < 1e-3 {
        return None;
    }
    let gap = (v - a).dot(n) / area2;
    let nn = n.dot(n);
    let l0 = (c - b).cross(v - b).dot(n) / nn;
    let l1 = (a - c).cross(v - c).dot(n) / nn;
    let l2 = (b - a).cross(v - a).dot(n) / nn;
    Some((gap, l0.min(l1).min(l2), altitude))
}

/// Edge `p[0]p[1]` against edge `p[2]p[3]` (normalised frame): signed distance between the
/// lines, smallest margin of the closest points' parameters from the segments' ends, smallest
/// edge length times the sine of the angle between them.
pub fn ee_measure(p: &[DVec3; 4]) -> Option<(f64, f64, f64)> {
    let (d1, d2) = (p[1] - p[0], p[3] - p[2]);
    let n = d1.cross(d2);
    let (l1, l2) = (d1.length(), d2.length());
    let cross = n.length();
    if !(l1 > 1e-3 && l2 > 1e-3 && cross > 1e-3 * l1 * l2) {
        return None;
    }
    let gap = (p[2] - p[0]).dot(n) / cross;
    // closest points of the lines: p0 + s d1, p2 + u d2
    let r = p[0] - p[2];
    let (a, b, c, d, e) = (d1.dot(d1), d1.dot(d2), d2.dot(d2), d1.dot(r), d2.dot(r));
    let den = a * c - b * b;
    let s = (b * e - c * d) / den;
    let u = (a * e - b * d) / den;
    let margin = s.min(1.0 - s).min(u).min(1.0 - u);
    let sine = cross / (l1 * l2);
    Some((gap, margin, l1.min(l2) * sine))
}

/// The end of the first clear crossing of two features moving linearly (normalised frame):
/// `Some(t)` when the features provably pass through each other at some time `≤ t`.
///
/// Scans 64 steps; a step whose ends have signed gaps of opposite signs, each at least
/// `1e-9`, and inside margins ≥ 0.05 is checked densely (steps in which no point moves more
/// than `size / 1000`, each with an inside margin ≥ 0.05), so the features stay non-degenerate
/// and the crossing point stays inside both while the gap changes sign.
pub fn first_crossing<const N: usize>(
    x0: &[DVec3; N],
    x1: &[DVec3; N],
    measure: Measure<N>,
) -> Option<f64> {
    const STEPS: u32 = 64;
    let max_move = (0..N).fold(0.0f64, |m, i| m.max((x1[i] - x0[i]).length()));
    let clear = |t: f64| measure(&at(x0, x1, t)).filter(|&(g, m, _)| g.abs() >= 1e-9 && m >= 0.05);
    let mut prev = (0.0, clear(0.0));
    for k in 1..=STEPS {
        let t = f64::from(k) / f64::from(STEPS);
        let cur = clear(t);
        if let ((ta, Some((ga, _, sa))), Some((gb, _, sb))) = (prev, cur) {
            if (ga > 0.0) != (gb > 0.0) {
                let size = sa.min(sb);
                let pieces = (max_move * (t - ta) / (size * 1e-3)).ceil().max(1.0);
                if pieces <= 20_000.0 {
                    let n = pieces as u32;
                    let ok = (1..n).all(|j| {
                        let s = ta + (t - ta) * f64::from(j) / f64::from(n);
                        measure(&at(x0, x1, s))
                            .is_some_and(|(_, m, sz)| m >= 0.05 && sz >= size * 0.5)
                    });
                    if ok {
                        return Some(t);
                    }
                }
            }
        }
        prev = (t, cur);
    }
    None
}

/// The input of the LA kernel targets (`la_vertex_face`, `la_edge_edge`): four points at
/// `t = 0` and four at `t = 1` on a lattice of any scale, and the options.
#[derive(Arbitrary, Debug)]
pub struct LaInput {
    /// `x0[0..4]` then `x1[0..4]`.
    pub points: Points<8>,
    /// The tolerance.
    pub tolerance: Tolerance,
    /// The iteration cap (`None`: the default).
    pub max_iterations: Option<u16>,
}

/// An LA kernel entry point (`vertex_face` or `edge_edge`).
pub type LaKernel =
    fn(&[DVec3; 4], &[DVec3; 4], &LaOptions) -> Result<Option<PrimitiveToc>, LaError>;

/// The oracle of the LA kernel targets: no panic (the caller's harness), non-finite input
/// is an error, an accepted query's `toc` is in `[0, 1]`, and when the reference (normalised
/// frame, [`first_crossing`] with `measure`) finds the features clearly passing through
/// each other by time `t`, the kernel reports a contact at or before `t`.
pub fn check_la_kernel(input: &LaInput, kernel: LaKernel, measure: Measure<4>) {
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
    let result = kernel(&x0, &x1, &opts);
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
    if let Some(t) = first_crossing(&n0, &n1, measure) {
        match hit {
            None => panic!("missed: the features pass through each other by t = {t}"),
            Some(h) => assert!(
                h.toc <= t,
                "late: toc {} after a crossing by t = {t}",
                h.toc
            ),
        }
    }
}

/// Whether two triangles (normalised frame) clearly intersect: an edge of one crosses the
/// other's plane with both ends at least `1e-6` away on opposite sides, at a point whose
/// barycentric coordinates in the other triangle are all ≥ 0.05 (both non-degenerate).
pub fn triangles_clearly_intersect(t1: &[DVec3; 3], t2: &[DVec3; 3]) -> bool {
    edge_pierces(t1, t2) || edge_pierces(t2, t1)
}

fn edge_pierces(edges_of: &[DVec3; 3], face: &[DVec3; 3]) -> bool {
    (0..3).any(|i| {
        let (p, q) = (edges_of[i], edges_of[(i + 1) % 3]);
        let Some((gp, _, _)) = vf_measure(&[p, face[0], face[1], face[2]]) else {
            return false;
        };
        let Some((gq, _, _)) = vf_measure(&[q, face[0], face[1], face[2]]) else {
            return false;
        };
        if !(gp.abs() >= 1e-6 && gq.abs() >= 1e-6 && (gp > 0.0) != (gq > 0.0)) {
            return false;
        }
        let x = p + (q - p) * (gp / (gp - gq));
        vf_measure(&[x, face[0], face[1], face[2]]).is_some_and(|(_, m, _)| m >= 0.05)
    })
}

/// Checks a mesh a reader accepted: finite vertices, indices in range, and (with at least one
/// triangle) an OBJ round trip that keeps every triangle's corner positions bit-exact (the
/// writer's promise), reaching a fixed point after one more write/read.
pub fn check_mesh(mesh: &TriMesh) {
    assert!(mesh.vertices().iter().all(|v| v.is_finite()));
    let n = mesh.vertex_count();
    assert!(mesh.triangles().iter().flatten().all(|&i| (i as usize) < n));
    if mesh.triangle_count() == 0 {
        // PLY/STL accept a mesh without triangles; the OBJ reader rejects a faceless file, so
        // the writer refuses to write one (nothing written)
        let mut text = Vec::new();
        let e = io::write_obj_to(&mut text, mesh, "fuzz.obj");
        assert!(
            matches!(e, Err(ccd_geometry::GeometryError::EmptyMesh { .. })) && text.is_empty(),
            "a mesh without triangles was written: {e:?}"
        );
        return;
    }
    let back = obj_round_trip(mesh);
    assert_eq!(
        back.triangle_count(),
        mesh.triangle_count(),
        "round trip lost triangles"
    );
    for (i, (t, u)) in mesh.triangle_iter().zip(back.triangle_iter()).enumerate() {
        let bits =
            |t: &ccd_geometry::Triangle| [t.a, t.b, t.c].map(|v| v.to_array().map(f64::to_bits));
        let same = bits(&t) == bits(&u);
        assert!(same, "round trip moved triangle {i}: {t:?} -> {u:?}");
    }
    let again = obj_round_trip(&back);
    assert_eq!(again.vertices(), back.vertices());
    assert_eq!(again.triangles(), back.triangles());
}

fn obj_round_trip(mesh: &TriMesh) -> TriMesh {
    let mut text = Vec::new();
    io::write_obj_to(&mut text, mesh, "fuzz.obj").expect("writing to memory");
    io::read_obj_from(text.as_slice(), "fuzz.obj").expect("a written mesh reads back")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crossing_found_for_a_falling_vertex() {
        let face = [DVec3::ZERO, DVec3::X, DVec3::Y];
        let x0 = [DVec3::new(0.2, 0.2, 0.5), face[0], face[1], face[2]];
        let x1 = [DVec3::new(0.2, 0.2, -0.5), face[0], face[1], face[2]];
        let t = first_crossing(&x0, &x1, vf_measure).unwrap();
        assert!((0.5..0.6).contains(&t));
        let x1 = [DVec3::new(0.9, 0.9, -0.5), face[0], face[1], face[2]];
        assert_eq!(first_crossing(&x0, &x1, vf_measure), None);
    }

    #[test]
    fn normalise_is_exact_for_an_offset_case() {
        let o = ldexp(1.0, 500);
        let p = [
            DVec3::splat(o),
            DVec3::splat(o) + DVec3::X * ldexp(1.0, 460),
        ];
        let n = normalise(&p).unwrap();
        assert_eq!(n.points[1], DVec3::X * 0.5);
    }
}
