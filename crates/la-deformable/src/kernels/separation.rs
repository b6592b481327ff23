//! Separation-preserving local advancement: how long a vertex–face or edge–edge pair stays at
//! least a target distance apart (the kernel of
//! [`DeformingScene::separation_step`](crate::scene::DeformingScene::separation_step)).
//!
//! The same certified bound as the contact kernels (see the [parent module](super)): along
//! any unit `n`, `dist(A(s), B(s)) ≥ min_ij ℓ_ij(s)` with `ℓ_ij` linear in `s`. Where the
//! contact kernels advance to the first root of `min_ij ℓ_ij`, this one advances to the first
//! time `min_ij ℓ_ij` can reach the pair's target `τ`: each `c_ij` is lowered by the rounding
//! margin **and by `τ`** (rounded up), so on the whole step the distance stays `≥ τ`. Every
//! iterate is therefore safe, whatever the direction; the iteration only decides how close to
//! the exact crossing time it gets. It stops once the distance is within
//! `η = rel_tolerance · (d₀ − τ)` of the target (or at the iteration cap), and reports the end
//! of the last certified step, a time at which the pair is still `≥ τ` apart.

use ccd_distance::rescale_factors;
use ccd_geometry::glam::DVec3;

use super::{ABS_MARGIN, PairGeometry, REL_MARGIN, STEP_SHRINK, direction};
use crate::Status;

/// The separation a pair must keep: `max(δ_min, s·d₀)` when `d₀ > δ_min`, else `s·d₀` (a pair
/// already closer than `δ_min` may not come closer than the fraction `s` of its distance).
#[inline]
pub(crate) fn target(d0: f64, min_distance: f64, scale: f64) -> f64 {
    if d0 > min_distance {
        min_distance.max(scale * d0)
    } else {
        scale * d0
    }
}

/// A pair that cannot keep its target over the whole interval asked for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct SeparationHit {
    /// The pair stays `≥ target` apart on `[0, t]`.
    pub(crate) t: f64,
    /// Distance at `t = 0`.
    pub(crate) distance0: f64,
    /// The target `τ` of the pair.
    pub(crate) target: f64,
    /// Distance at the last iterate (`≤ t`).
    pub(crate) distance: f64,
    /// Distance evaluations.
    pub(crate) iterations: u32,
    /// `InitiallyTouching` (distance 0 at `t = 0`: step 0), `Converged` (within `η` of the
    /// target) or `OutOfIterations` (cap or no certified progress: `t` is still safe).
    pub(crate) status: Status,
}

/// The largest computed `t ≤ t_max` up to which the pair provably stays at distance
/// `≥ target(d₀)`; `None` when it does so on all of `[0, t_max]`.
///
/// Input must be finite (the scene has validated it); non-finite input reports `t = 0`.
#[inline]
pub(crate) fn separation<const N: usize, G: PairGeometry<N>>(
    x0: &[DVec3; N],
    x1: &[DVec3; N],
    min_distance: f64,
    scale: f64,
    rel_tolerance: f64,
    t_max: f64,
    max_iterations: u32,
) -> Option<SeparationHit> {
    let mut mag = 0.0_f64;
    let mut finite = true;
    let mut dx = [DVec3::ZERO; N];
    for k in 0..N {
        finite &= x0[k].is_finite() && x1[k].is_finite();
        mag = mag
            .max(x0[k].abs().max_element())
            .max(x1[k].abs().max_element());
        dx[k] = x1[k] - x0[k];
    }
    if !finite {
        return Some(SeparationHit {
            t: 0.0,
            distance0: f64::NAN,
            target: f64::NAN,
            distance: f64::NAN,
            iterations: 0,
            status: Status::OutOfIterations,
        });
    }
    if let Some((up, down)) = rescale_factors(mag) {
        // times are invariant under an exact power-of-two scaling, lengths equivariant
        let (s0, s1) = (x0.map(|p| p * up), x1.map(|p| p * up));
        return separation::<N, G>(
            &s0,
            &s1,
            min_distance * up,
            scale,
            rel_tolerance,
            t_max,
            max_iterations,
        )
        .map(|mut h| {
            h.distance0 *= down;
            h.target *= down;
            h.distance *= down;
            h
        });
    }
    let t_max = if t_max >= 0.0 { t_max.min(1.0) } else { 0.0 };
    let margin = REL_MARGIN * mag + ABS_MARGIN;
    let up = 1.0 + 4.0 * f64::EPSILON;
    let mut c = G::closest(x0);
    let d0 = c.distance;
    let tau = target(d0, min_distance, scale);
    let hit = |t, distance, iterations, status| {
        Some(SeparationHit {
            t,
            distance0: d0,
            target: tau,
            distance,
            iterations,
            status,
        })
    };
    if d0.is_nan() || d0 <= 0.0 {
        return hit(0.0, d0, 1, Status::InitiallyTouching);
    }
    // Lipschitz: the distance shrinks by at most μ = max_ij |Δb_j − Δa_i| (≤ its 1-norm) per
    // unit time, so d₀ − μ·t_max ≥ τ (with margins) clears the whole interval
    let mut mu = 0.0f64;
    for i in 0..G::NA {
        for j in G::NA..N {
            let d = dx[j] - dx[i];
            mu = mu.max(d.x.abs() + d.y.abs() + d.z.abs());
        }
    }
    if d0 - margin - mu * t_max * up > tau * up + margin {
        return None;
    }
    // the offset every projected gap is lowered by: the target, rounded up, and the margin
    let offset = tau * up + margin;
    let eta = rel_tolerance * (d0 - tau);
    let max_iterations = max_iterations.max(1);
    let mut t = 0.0_f64;
    let mut iterations = 1_u32;
    let mut p = *x0;
    loop {
        let n = direction::<N, G>(&p, &c);
        let mut step = offset_step(G::NA, &p, &dx, n, margin, offset);
        if (step.is_nan() || step <= 0.0) && c.distance > 0.0 {
            let w = (c.point_b - c.point_a) / c.distance;
            step = step.max(offset_step(G::NA, &p, &dx, w, margin, offset));
        }
        if step.is_nan() || step <= 0.0 {
            // no certified progress: `t` is safe (the last step certified it)
            let status = if c.distance - tau <= eta {
                Status::Converged
            } else {
                Status::OutOfIterations
            };
            return hit(t, c.distance, iterations, status);
        }
        let t_new = (t + step * STEP_SHRINK).next_down();
        if t_new >= t_max {
            return None;
        }
        let t_safe = t_new.max(t);
        if c.distance - tau <= eta {
            return hit(t_safe, c.distance, iterations, Status::Converged);
        }
        if iterations >= max_iterations || t_new <= t {
            return hit(t_safe, c.distance, iterations, Status::OutOfIterations);
        }
        t = t_new;
        for k in 0..N {
            p[k] = x0[k] + dx[k] * t;
        }
        iterations += 1;
        c = G::closest(&p);
    }
}

/// The certified step along `n` until some projected gap, lowered by `offset` (target plus
/// rounding margin), reaches zero; slopes are lowered by `margin`. `+∞` when no slope is
/// negative, `0` (or NaN) when a lowered gap is not positive already.
#[inline(always)]
fn offset_step<const N: usize>(
    na: usize,
    p: &[DVec3; N],
    dx: &[DVec3; N],
    n: DVec3,
    margin: f64,
    offset: f64,
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
            let c = (pn[j] - pn[i]) - offset;
            if c.is_nan() || c <= 0.0 {
                return 0.0;
            }
            let k = (dn[i] - dn[j]) + margin;
            if k > 0.0 {
                best = best.min(c / k);
            } else if k.is_nan() {
                return 0.0;
            }
        }
    }
    best
}

/// [`separation`] for a vertex–face pair (`x = [vertex, f0, f1, f2]`).
#[inline]
pub(crate) fn vertex_face_separation(
    x0: &[DVec3; 4],
    x1: &[DVec3; 4],
    min_distance: f64,
    scale: f64,
    rel_tolerance: f64,
    t_max: f64,
    max_iterations: u32,
) -> Option<SeparationHit> {
    separation::<4, super::vertex_face::VertexFace>(
        x0,
        x1,
        min_distance,
        scale,
        rel_tolerance,
        t_max,
        max_iterations,
    )
}

/// [`separation`] for an edge–edge pair (`x = [a0, a1, b0, b1]`).
#[inline]
pub(crate) fn edge_edge_separation(
    x0: &[DVec3; 4],
    x1: &[DVec3; 4],
    min_distance: f64,
    scale: f64,
    rel_tolerance: f64,
    t_max: f64,
    max_iterations: u32,
) -> Option<SeparationHit> {
    separation::<4, super::edge_edge::EdgeEdge>(
        x0,
        x1,
        min_distance,
        scale,
        rel_tolerance,
        t_max,
        max_iterations,
    )
}
