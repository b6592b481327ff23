//! Elementary local-advancement kernels: moving vertex–face, edge–edge and triangle–triangle
//! pairs under linear vertex motion (LA Sec. V, Lemmas 1–3).
//!
//! # The advancement step (shared by all three kernels)
//! Every kernel moves two convex features `A` (points `a_i`) and `B` (points `b_j`) whose
//! vertices move linearly, `x(t) = x0 + t (x1 − x0)`, and iterates the LA step of Eq. 1/3:
//! from the current time `t`, compute the exact distance `d` and the closest direction `n`
//! (unit, from `A` to `B`), stop with a contact when `d < ε`, else advance to the first time at
//! which a certified lower bound of the distance could reach zero.
//!
//! **The bound.** For any unit `n` and any time `s`, convexity gives
//! `dist(A(s), B(s)) ≥ min_{a∈A(s), b∈B(s)} (b − a)·n = min_{i,j} (b_j(s) − a_i(s))·n`
//! (the extremes of a linear function over a hull are at its vertices). Each term is linear
//! in `s`: `ℓ_ij(s) = c_ij + (s − t) k_ij` with `c_ij = (b_j(t) − a_i(t))·n` and slope
//! `k_ij = (Δb_j − Δa_i)·n`, `Δx = x1 − x0`. So the features cannot touch before the first
//! root of `min_ij ℓ_ij`, which is `t + min { c_ij / −k_ij : k_ij < 0 }` when every `c_ij > 0`.
//! This is Lemma 1 of the paper before its last maximisation: the lemma's step is `d / μ`
//! with `μ = max_i (Δa_i·n) + max_j (−Δb_j·n) ≥ −k_ij` for every pair, and `c_ij ≥ d` when
//! `n` is the closest direction (`min c_ij = d` for convex features), so our step is never
//! shorter than the paper's. Lemmas 2 (vertex–face, `A` a
//! single point) and 3 (edge–edge, two points each) are the degenerate cases. If no slope
//! is negative the gap never closes (the paper's "μ ≤ 0": separating for the rest of the
//! step) and the query ends with no contact. The bound holds for *any* unit `n`, so it is
//! `|·|`-safe by construction: the direction only affects how far we get, never whether the
//! step is safe, and a poor `n` at worst makes no progress (handled below).
//!
//! **Floating point.** Let `M` be the largest coordinate magnitude of the eight (or twelve)
//! input points and `u = 2⁻⁵³`. Positions at `t` are computed as `x0 + Δ·t` with
//! `Δ = fl(x1 − x0)`: each coordinate is within `5uM` of the exact position. Each
//! projection `fl(x·n)` with a computed unit `n` (`|n| = 1 ± 5u`) is then within `25uM` of the
//! exact projection on `n/|n|` (input error `6uM·√3`, dot rounding `γ₃ √3 M`, normalisation
//! `5u √3 M`), so `c_ij` is within `52uM`; displacements `Δ` are within `2uM`, and
//! `fl(Δ·n)` within `32uM`, so `k_ij` is within `70uM`. We subtract `δ = 256uM` (plus
//! `1e-300` against underflow) from every `c_ij` and `k_ij`, which makes both true lower
//! bounds; the quotient is then shrunk by the relative factor `1 − 2⁻⁵⁰` (which covers the
//! three roundings of the subtraction, negation and division, `(1 + u)³ < 1 + 2⁻⁵⁰`) and
//! the new time is `next_down(fl(t + step))`, which never exceeds `t + step`. Hence the
//! computed new time never exceeds the exact first root of a true lower bound of the
//! distance: no contact is skipped. Non-finite input makes the step test fail and ends the
//! query with a conservative contact at `t = 0`.
//!
//! **Scale.** The argument above needs `M` in a range where no product overflows and no
//! rounding error is swamped by underflow. The kernels therefore run every query at a
//! largest magnitude `M ∈ [2⁻¹⁰⁰, 2¹⁰⁰]`: a query outside that window is scaled exactly by a
//! power of two ([`ccd_distance::rescale_factors`]; times are invariant, the tolerance and
//! the reported lengths scale with it). Inside it, cross products and their projections
//! (`≤ 3M³ ≤ 2³⁰²`) cannot overflow, and the only underflow left is in projections on a
//! tiny direction; the screening step covers those with an absolute allowance `2⁻¹⁰²²`, the
//! LA step (unit directions) with its `1e-300`. The public entry points take coordinates up
//! to [`MAX_COORDINATE`] (`1e100`, the workspace's domain);
//! the `_until` variants hold for every finite input.
//!
//! **Termination.** Each iteration either stops (contact: `d < ε`; no contact: no
//! negative slope or the next time exceeds `t_max`), or strictly increases `t`. If the step
//! cannot be certified positive (the bound at `t` is not positive although `d ≥ ε`, which
//! needs `ε` within a few ulps of the coordinate scale, or a stalled `t`) the query stops with
//! a contact at the current `t` and [`Status::OutOfIterations`]; so does the iteration
//! cap. Both are conservative: no contact occurs before the reported `toc`.
//!
//! **Shortcuts before the first distance** (both are the same certified bound, so they never
//! skip a contact): a *screening* step along a cheap direction — the face normal or the
//! edges' common normal, then the centroid direction — proves `d ≥ ε` on `[0, t_max]` with
//! dot products only (the offsets scaled by `|n|₁ ≥ |n|`, so no square root, and a product
//! test instead of a division); and after the first exact distance a *Lipschitz* step, `d`
//! against the largest relative displacement of the features' points, clears nearly rigid
//! pairs. Most pairs of a scene end in the screen.
//!
//! **Direction.** `n` is taken from the closest features: the face normal when the witness
//! is a face interior, the common perpendicular of two edge interiors, the perpendicular
//! from a vertex to an edge's line, or the difference of two vertices. These are the exact closest directions (so the first `c_ij` equals
//! `d`), computed from edge vectors rather than from the nearly coincident witness points
//! near contact. If that direction makes no progress the witness direction is tried too.
//!
//! **Convergence.** The iteration converges fast for head-on approaches (the bound along the
//! exact closest direction is exact for translations) and linearly when the closest direction
//! turns during the approach (rotating faces or edges): on 1000 seeded random pairs (half
//! built to collide) the mean is 29 (vertex–face) and 42 (edge–edge) iterations per contact.
//! Look-ahead directions (a secant iteration on the direction's time, mid-step directions;
//! each a valid bound) halved those counts but cost more instructions than they saved
//! (callgrind, same pairs: +20% to +50%), so the plain step is kept.

mod edge_edge;
pub(crate) mod separation;
mod triangle_triangle;
mod vertex_face;

pub use edge_edge::{edge_edge, edge_edge_until};
pub use triangle_triangle::{triangle_triangle, triangle_triangle_until};
pub use vertex_face::{vertex_face, vertex_face_until};

use ccd_distance::{Closest, MAX_COORDINATE, rescale_factors};
use ccd_geometry::Feature;
use ccd_geometry::glam::DVec3;

use crate::{LaError, PrimitiveToc, Status};

/// Rounding margin of projections, relative to the largest coordinate magnitude: `256 u`
/// (see the module docs for the derivation of the `70 u` it covers).
const REL_MARGIN: f64 = 256.0 * (f64::EPSILON * 0.5);

/// Absolute margin against underflow of products of tiny coordinates.
const ABS_MARGIN: f64 = 1e-300;

/// Absolute allowance of the screening step for underflow in its dot products with a
/// possibly tiny direction (each rounds by at most `2⁻¹⁰⁷⁵` where a product is subnormal;
/// `2⁻¹⁰²²` covers them with room).
const UNDERFLOW: f64 = f64::MIN_POSITIVE;

/// Shrink factor of a computed step: `1 − 2⁻⁵⁰`.
const STEP_SHRINK: f64 = 1.0 - 4.0 * f64::EPSILON;

/// A pair of convex features given by `N` moving points, the first `NA` of which span
/// feature `A`.
pub(crate) trait PairGeometry<const N: usize> {
    /// Number of points of feature `A`.
    const NA: usize;
    /// Exact distance with witnesses between the features at positions `p`, with local
    /// feature ids (`A`'s index `p[0..NA]`, `B`'s index `p[NA..]`).
    fn closest(p: &[DVec3; N]) -> Closest;

    /// Cheap candidate direction number `which` (0 or 1; unnormalised, either sign, possibly
    /// zero) for the screening step at `t = 0` (see [`screen`]): any direction is safe.
    fn quick_direction(p: &[DVec3; N], which: usize) -> DVec3;
}

/// The screening step: proves with one certified bound along a cheap direction (no distance
/// computation, no square root, no division) that the features stay at least `tolerance`
/// apart on `[0, t_max]`.
///
/// Along a direction `d` oriented from `A` to `B`, every projected gap `ℓ_ij(s)` of the module
/// docs, divided by `|d|`, bounds `dist(A(s), B(s))` from below. With `L = |d|₁ ≥ |d|`, the
/// pair is cleared when, for every `(i, j)`, the gap at `t = 0` lowered by `(δ + ε)·L` is
/// positive and either the slope raised by `δ·L` is not negative (the gap never closes) or
/// the gap reaches `(δ + ε)·L` only after `t_max` (`c ≥ k·t_max·(1 + 2⁻⁴⁰)`: the factor covers
/// the roundings of the two subtractions and the product, a relative `3u`, with room). Then
/// the distance stays `≥ ε` on `[0, t_max]`, so the full iteration (which stops only at
/// `d < ε`) would not report a contact either. `true` means "provably no contact on
/// `[0, t_max]`"; `false` says nothing (the full iteration runs from `t = 0`). `δ` is the
/// rounding margin of the projections, scaled by `L` like the tolerance (the dot products'
/// errors scale with `|d|`).
#[inline(always)]
fn screen<const N: usize, G: PairGeometry<N>>(
    p: &[DVec3; N],
    dx: &[DVec3; N],
    margin: f64,
    tolerance: f64,
    t_max: f64,
) -> bool {
    // from the centroid of A to the centroid of B, scaled by NA·NB > 0 (orients `d`)
    let (mut sum_a, mut sum_b) = (DVec3::ZERO, DVec3::ZERO);
    for (k, q) in p.iter().enumerate() {
        if k < G::NA {
            sum_a += *q;
        } else {
            sum_b += *q;
        }
    }
    let toward = sum_b * G::NA as f64 - sum_a * (N - G::NA) as f64;
    let t_far = t_max * (1.0 + 1.0 / (1u64 << 40) as f64);
    // rounds the scaled offsets up (two products)
    let up = 1.0 + 4.0 * f64::EPSILON;
    for which in 0..2 {
        let d = G::quick_direction(p, which);
        let len = d.x.abs() + d.y.abs() + d.z.abs();
        if !(len > 0.0 && len.is_finite()) {
            continue;
        }
        let d = if toward.dot(d) < 0.0 { -d } else { d };
        let c_off = (margin + tolerance * up) * len * up + UNDERFLOW;
        let k_off = margin * len * up + UNDERFLOW;
        if clears::<N>(G::NA, p, dx, d, c_off, k_off, t_far) {
            return true;
        }
    }
    false
}

/// Whether every projected gap along `d` (lowered by `c_off`, slope raised by `k_off`) stays
/// positive until after `t_far` (see [`screen`]). NaN anywhere fails.
#[inline(always)]
fn clears<const N: usize>(
    na: usize,
    p: &[DVec3; N],
    dx: &[DVec3; N],
    d: DVec3,
    c_off: f64,
    k_off: f64,
    t_far: f64,
) -> bool {
    let mut pn = [0.0; N];
    let mut dn = [0.0; N];
    for k in 0..N {
        pn[k] = p[k].dot(d);
        dn[k] = dx[k].dot(d);
    }
    let mut ok = true;
    for i in 0..na {
        for j in na..N {
            let c = (pn[j] - pn[i]) - c_off;
            let k = (dn[i] - dn[j]) + k_off; // −(lower bound of the slope)
            ok &= c > 0.0 && (k <= 0.0 || c >= k * t_far);
        }
    }
    ok
}

/// The Lipschitz bound at `t = 0`: the distance of the features changes by at most the
/// largest relative displacement `μ = max_ij |Δb_j − Δa_i|` over the step (the relative
/// displacement of any two of their points is a convex combination of those), so a distance
/// `d` with `d − μ·t_max ≥ ε` (after rounding margins; `|·|₁ ≥ |·|` bounds `μ` without a
/// square root) never drops below the tolerance on `[0, t_max]`. Cheap, and decisive for
/// nearly rigid relative motion, where the feature directions of the iteration add nothing.
#[inline(always)]
fn lipschitz_clears<const N: usize>(
    na: usize,
    dx: &[DVec3; N],
    distance: f64,
    margin: f64,
    tolerance: f64,
    t_max: f64,
) -> bool {
    let mut mu = 0.0f64;
    for i in 0..na {
        for j in na..N {
            let d = dx[j] - dx[i];
            mu = mu.max(d.x.abs() + d.y.abs() + d.z.abs());
        }
    }
    let up = 1.0 + 4.0 * f64::EPSILON;
    distance - mu * t_max * up > tolerance * up + margin
}

/// The direction (unnormalised, either sign) that separates the two witness features at
/// positions `p`: a face normal when either witness is a face interior, the common
/// perpendicular of two edges, the perpendicular from a vertex to an edge's line, or the
/// difference of two vertices. `None` when degenerate (zero vector).
#[inline(always)]
fn feature_direction<const N: usize>(na: usize, p: &[DVec3; N], c: &Closest) -> Option<DVec3> {
    let face = |base: usize| (p[base + 1] - p[base]).cross(p[base + 2] - p[base]);
    let point = |base: usize, i: u32| p[(base + i as usize).min(N - 1)];
    let dir = match (c.feature_a, c.feature_b) {
        (Feature::Face(_), _) => face(0),
        (_, Feature::Face(_)) => face(na),
        (Feature::Edge(i, j), Feature::Edge(k, l)) => {
            (point(0, j) - point(0, i)).cross(point(na, l) - point(na, k))
        }
        (Feature::Vertex(i), Feature::Edge(k, l)) => {
            perpendicular(point(na, k) - point(0, i), point(na, l) - point(na, k))
        }
        (Feature::Edge(i, j), Feature::Vertex(k)) => {
            perpendicular(point(na, k) - point(0, i), point(0, j) - point(0, i))
        }
        (Feature::Vertex(i), Feature::Vertex(k)) => point(na, k) - point(0, i),
    };
    (dir != DVec3::ZERO && dir.is_finite()).then_some(dir)
}

/// The component of `w` orthogonal to `e` (`w` itself when `e` is zero).
#[inline(always)]
fn perpendicular(w: DVec3, e: DVec3) -> DVec3 {
    let ee = e.length_squared();
    if ee > 0.0 { w - e * (w.dot(e) / ee) } else { w }
}

/// Checks that all points are finite, reporting the first offending index as an error.
pub(crate) fn check_finite<const N: usize>(
    x0: &[DVec3; N],
    x1: &[DVec3; N],
) -> Result<(), LaError> {
    for (time, xs) in [(0u8, x0), (1u8, x1)] {
        if let Some(vertex) = xs.iter().position(|p| !p.is_finite()) {
            return Err(LaError::NonFiniteVertex { vertex, time });
        }
    }
    Ok(())
}

/// The unit contact direction from `A` to `B` for a witness: the feature direction oriented
/// by `point_b − point_a` (or as is when the witnesses coincide), else the witness direction.
#[inline]
fn direction<const N: usize, G: PairGeometry<N>>(p: &[DVec3; N], c: &Closest) -> DVec3 {
    let w = c.point_b - c.point_a;
    if let Some(f) = feature_direction(G::NA, p, c).and_then(DVec3::try_normalize) {
        if f.dot(w) < 0.0 { -f } else { f }
    } else if c.distance > 0.0 {
        w / c.distance
    } else {
        DVec3::ZERO
    }
}

/// The certified step along `n` from positions `p` (see the module docs): a lower bound of
/// the first time (after the current one, relative to it) at which `min_ij ℓ_ij` reaches
/// zero; `+∞` when no slope is negative; `0` (or NaN) when no progress can be certified.
#[inline(always)]
fn certified_step<const N: usize>(
    na: usize,
    p: &[DVec3; N],
    dx: &[DVec3; N],
    n: DVec3,
    margin: f64,
) -> f64 {
    let mut pn = [0.0; N];
    let mut dn = [0.0; N];
    for k in 0..N {
        pn[k] = p[k].dot(n);
        dn[k] = dx[k].dot(n);
    }
    let mut best = f64::INFINITY;
    for i in 0..na {
        for j in na..N {
            let c = (pn[j] - pn[i]) - margin;
            if c.is_nan() || c <= 0.0 {
                return 0.0;
            }
            let k = (dn[i] - dn[j]) + margin; // −(lower bound of the slope)
            if k > 0.0 {
                let r = c / k;
                if r < best {
                    best = r;
                }
            } else if k.is_nan() {
                return 0.0;
            }
        }
    }
    best
}

/// The `_until` form shared by the elementary queries (LA kernels and the cubic baseline):
/// points at `t = 0` and `t = 1`, `t_max`, tolerance, iteration cap.
pub(crate) type Until<const N: usize> =
    fn(&[DVec3; N], &[DVec3; N], f64, f64, u32) -> Option<PrimitiveToc>;

/// The checked entry point of every elementary query: validates the options and the points
/// (`check`), then runs `until` over the whole step with the options' tolerance and cap.
pub(crate) fn checked<const N: usize>(
    x0: &[DVec3; N],
    x1: &[DVec3; N],
    opts: &crate::LaOptions,
    check: fn(&[DVec3; N], &[DVec3; N]) -> Result<(), LaError>,
    until: Until<N>,
) -> Result<Option<PrimitiveToc>, LaError> {
    opts.validate()?;
    check(x0, x1)?;
    Ok(until(x0, x1, 1.0, opts.tolerance, opts.max_iterations))
}

/// Checks the domain of the elementary kernels' entry points: every coordinate finite and
/// at most [`MAX_COORDINATE`] in magnitude, reporting the first offending point.
pub(crate) fn check_points<const N: usize>(
    x0: &[DVec3; N],
    x1: &[DVec3; N],
) -> Result<(), LaError> {
    check_finite(x0, x1)?;
    for (time, xs) in [(0u8, x0), (1u8, x1)] {
        for (vertex, p) in xs.iter().enumerate() {
            let value = p.abs().max_element();
            if value > MAX_COORDINATE {
                let value = p
                    .to_array()
                    .into_iter()
                    .find(|c| c.abs() == value)
                    .unwrap_or(value);
                return Err(LaError::CoordinateOutOfRange {
                    vertex,
                    time,
                    value,
                });
            }
        }
    }
    Ok(())
}

/// A conservative contact reported when the input is not finite.
fn non_finite_contact() -> PrimitiveToc {
    PrimitiveToc {
        toc: 0.0,
        distance: f64::NAN,
        iterations: 0,
        status: Status::OutOfIterations,
        closest: Closest::new(
            f64::NAN,
            DVec3::NAN,
            DVec3::NAN,
            Feature::Vertex(0),
            Feature::Vertex(0),
        ),
        normal: DVec3::ZERO,
    }
}

/// Local advancement over `[0, t_max]` for a pair of convex features given by `N` moving
/// points (the first `G::NA` are feature `A`). See the module docs for the step and its
/// floating-point argument. Never panics; every path terminates within `max_iterations`
/// distance evaluations.
#[inline(always)]
pub(crate) fn advance<const N: usize, G: PairGeometry<N>>(
    x0: &[DVec3; N],
    x1: &[DVec3; N],
    t_max: f64,
    tolerance: f64,
    max_iterations: u32,
) -> Option<PrimitiveToc> {
    let mut scale = 0.0_f64;
    let mut finite = true;
    let mut dx = [DVec3::ZERO; N];
    for k in 0..N {
        finite &= x0[k].is_finite() && x1[k].is_finite();
        scale = scale
            .max(x0[k].abs().max_element())
            .max(x1[k].abs().max_element());
        dx[k] = x1[k] - x0[k];
    }
    if !finite {
        return Some(non_finite_contact());
    }
    if let Some((up, down)) = rescale_factors(scale) {
        return advance_rescaled::<N, G>(x0, x1, up, down, t_max, tolerance, max_iterations);
    }
    let margin = REL_MARGIN * scale + ABS_MARGIN;
    // NaN or negative t_max: the whole step (NaN) or only t = 0 (negative).
    let t_max = if t_max >= 0.0 {
        t_max.min(1.0)
    } else if t_max < 0.0 {
        0.0
    } else {
        1.0
    };
    let max_iterations = max_iterations.max(1);
    // NaN tolerance: no screening (the iteration handles it)
    if tolerance >= 0.0 && screen::<N, G>(x0, &dx, margin, tolerance, t_max) {
        return None;
    }
    let mut t = 0.0_f64;
    let mut iterations = 0_u32;
    let mut p = *x0;
    loop {
        iterations += 1;
        let c = G::closest(&p);
        let n = direction::<N, G>(&p, &c);
        let contact = |status| {
            Some(PrimitiveToc {
                toc: t,
                distance: c.distance,
                iterations,
                status,
                closest: c,
                normal: n,
            })
        };
        if c.distance < tolerance {
            return contact(if t == 0.0 {
                Status::InitiallyTouching
            } else {
                Status::Converged
            });
        }
        if iterations == 1
            && lipschitz_clears::<N>(G::NA, &dx, c.distance, margin, tolerance, t_max)
        {
            return None;
        }
        if iterations >= max_iterations {
            return contact(Status::OutOfIterations);
        }
        let mut step = certified_step(G::NA, &p, &dx, n, margin);
        if (step.is_nan() || step <= 0.0) && c.distance > 0.0 {
            // The feature direction made no progress: try the witness direction.
            let w = (c.point_b - c.point_a) / c.distance;
            step = certified_step(G::NA, &p, &dx, w, margin);
        }
        if step.is_nan() || step <= 0.0 {
            return contact(Status::OutOfIterations);
        }
        let t_new = (t + step * STEP_SHRINK).next_down();
        if t_new > t_max {
            return None;
        }
        if t_new.is_nan() || t_new <= t {
            return contact(Status::OutOfIterations);
        }
        t = t_new;
        for k in 0..N {
            p[k] = x0[k] + dx[k] * t;
        }
    }
}

/// [`advance`] for input whose largest coordinate magnitude lies outside the window
/// `[2⁻¹⁰⁰, 2¹⁰⁰]` of [`rescale_factors`]: runs on the input and the tolerance scaled
/// exactly by `up = 2ᵏ` (times are invariant, distances equivariant) and scales the lengths
/// of the result back by `down = 2⁻ᵏ`.
#[cold]
#[inline(never)]
fn advance_rescaled<const N: usize, G: PairGeometry<N>>(
    x0: &[DVec3; N],
    x1: &[DVec3; N],
    up: f64,
    down: f64,
    t_max: f64,
    tolerance: f64,
    max_iterations: u32,
) -> Option<PrimitiveToc> {
    let (s0, s1) = (x0.map(|p| p * up), x1.map(|p| p * up));
    advance::<N, G>(&s0, &s1, t_max, tolerance * up, max_iterations).map(|mut hit| {
        hit.distance *= down;
        hit.closest.distance *= down;
        hit.closest.point_a *= down;
        hit.closest.point_b *= down;
        hit
    })
}

pub(crate) mod moving_bv;

pub use moving_bv::{moving_aabb_toc, moving_kdop_toc};
