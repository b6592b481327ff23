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

use super::{ABS_MARGIN, PairGeometry, REL_MARGIN, STEP_SHRINK, UNDERFLOW, direction};
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
    // Lipschitz: the distance shrinks by at most μ = max_ij |Δb_j − Δa_i| per unit time (the
    // relative displacement of any two points of the features is a convex combination of
    // those); `mu` is rounded up, its error from the rounded displacements (`≤ 4uM` per
    // component) is within the `margin` the tests below take off the distance
    let mut mu2 = 0.0f64;
    for i in 0..G::NA {
        for j in G::NA..N {
            mu2 = mu2.max((dx[j] - dx[i]).length_squared());
        }
    }
    let mu = mu2.sqrt() * up;
    if screen_clears::<N, G>(x0, mu, margin, min_distance, scale, t_max) {
        return None;
    }
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
    // d₀ − μ·t_max ≥ τ (with margins) clears the whole interval
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

/// The screening step of the separation kernel, before any distance computation: a
/// certified lower bound `L ≤ d₀` from the gap of the two features' projections on a cheap
/// direction (the face normal or the edges' common normal, then the centroid direction; any
/// direction `n` separates: `d₀ ≥ gap / |n|`), against the Lipschitz bound `d(t) ≥ d₀ − μt`.
/// Clears the pair on `[0, t_max]` when `L > δ_min` and `L − τ(L) > μ·t_max` (margins added):
/// `x − τ(x)` does not decrease on `x > δ_min`, so then `d₀ − τ(d₀) ≥ L − τ(L)` and the pair
/// keeps `d(t) ≥ d₀ − μt ≥ τ(d₀)`.
///
/// Rounding (coordinates of magnitude `≤ M`, after the kernel's rescaling): `n` is any vector
/// of doubles (its own rounding does not matter); each projection `fl(x·n)` is within
/// `γ₃ M |n|₁` of `x·n`, so the computed gap lowered by `margin·|n|₁` (`margin ≥ 256 u M`,
/// plus `2⁻¹⁰²²` against underflow) bounds the exact gap from below; `|n|` is rounded up by
/// `(1 + 4u)` and the quotient down by `(1 − 4u)`. `mu` is rounded up; its error from the
/// rounded displacements (`≤ 4 u M` per component) is covered by one more `margin` taken
/// from `L`.
#[inline(always)]
fn screen_clears<const N: usize, G: PairGeometry<N>>(
    p: &[DVec3; N],
    mu: f64,
    margin: f64,
    min_distance: f64,
    scale: f64,
    t_max: f64,
) -> bool {
    let up = 1.0 + 4.0 * f64::EPSILON;
    let reach = mu * t_max * up;
    let mut best = 0.0f64;
    for which in 0..2 {
        let n = G::quick_direction(p, which);
        let len = n.x.abs() + n.y.abs() + n.z.abs();
        let nn = n.length_squared();
        // a tiny direction (its square near underflow) gives no useful bound
        if !(len.is_finite() && nn > 1e-280) {
            continue;
        }
        let (mut lo_a, mut hi_a, mut lo_b, mut hi_b) = (
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
        );
        for (k, q) in p.iter().enumerate() {
            let s = q.dot(n);
            if k < G::NA {
                lo_a = lo_a.min(s);
                hi_a = hi_a.max(s);
            } else {
                lo_b = lo_b.min(s);
                hi_b = hi_b.max(s);
            }
        }
        let gap = (lo_b - hi_a).max(lo_a - hi_b) - (margin * len * up + UNDERFLOW);
        let l = gap / (nn.sqrt() * up) * (1.0 - 4.0 * f64::EPSILON) - margin;
        if l > best {
            best = l;
        }
        // the first direction alone settles it when it clears
        if best > min_distance && best - target(best, min_distance, scale) * up > reach + margin {
            return true;
        }
    }
    false
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::{edge_edge::EdgeEdge, vertex_face::VertexFace};
    use ccd_distance::{point_triangle, segment_segment};
    use ccd_geometry::{Segment, Triangle};
    use proptest::prelude::*;

    fn distance(vf: bool, x0: &[DVec3; 4], x1: &[DVec3; 4], t: f64) -> f64 {
        let p = std::array::from_fn::<DVec3, 4, _>(|k| x0[k] + (x1[k] - x0[k]) * t);
        if vf {
            point_triangle(p[0], &Triangle::new(p[1], p[2], p[3])).distance
        } else {
            segment_segment(&Segment::new(p[0], p[1]), &Segment::new(p[2], p[3])).distance
        }
    }

    /// A pair near the origin at scale `s`: a face or edge and a point or edge 10⁻⁴…1 from
    /// it, with small relative motion (the neighbours the screen is for) or large.
    fn pair() -> impl Strategy<Value = (bool, [DVec3; 4], [DVec3; 4], f64)> {
        let p = || [-1.0..1.0f64, -1.0..1.0f64, -1.0..1.0f64];
        (
            any::<bool>(),
            proptest::collection::vec(p(), 4),
            proptest::collection::vec(p(), 4),
            prop_oneof![Just(1e-3), Just(0.1), Just(1.0)],
            prop_oneof![Just(1e-6), Just(1.0), Just(1e6)],
            -4.0..0.0f64,
        )
            .prop_map(|(vf, a, d, speed, scale, lift)| {
                let mut x0: [DVec3; 4] = std::array::from_fn(|k| DVec3::from_array(a[k]));
                // lift the second feature off the first along the first's normal
                let n = if vf {
                    (x0[2] - x0[1]).cross(x0[3] - x0[1])
                } else {
                    (x0[1] - x0[0]).cross(x0[3] - x0[2])
                };
                let off = n.normalize_or_zero() * 10f64.powf(lift);
                let (from, to) = if vf { (0, 1) } else { (2, 4) };
                for q in &mut x0[from..to] {
                    *q += off;
                }
                let x1: [DVec3; 4] =
                    std::array::from_fn(|k| (x0[k] + DVec3::from_array(d[k]) * speed) * scale);
                let x0 = x0.map(|q| q * scale);
                (vf, x0, x1, scale)
            })
    }

    proptest! {
        /// Whenever the screen clears a pair, a dense sampling of `[0, t_max]` finds it at
        /// least at its target everywhere; and the kernel's answer (screen included) is safe.
        #[test]
        fn screen_and_kernel_keep_the_target(
            (vf, x0, x1, scale) in pair(),
            s in 0.05..0.9f64,
            delta in prop_oneof![Just(0.0), 0.0..1e-3f64],
            t_max in 0.01..1.0f64,
        ) {
            let delta = delta * scale;
            let d0 = distance(vf, &x0, &x1, 0.0);
            let tau = target(d0, delta, s);
            let mag = x0.iter().chain(&x1).fold(0.0f64, |m, p| m.max(p.abs().max_element()));
            let margin = REL_MARGIN * mag + ABS_MARGIN;
            let rel = |i: usize, j: usize| ((x1[j] - x0[j]) - (x1[i] - x0[i])).length();
            let mu = if vf {
                (1..4).map(|j| rel(0, j)).fold(0.0f64, f64::max)
            } else {
                (0..2)
                    .flat_map(|i| (2..4).map(move |j| (i, j)))
                    .map(|(i, j)| rel(i, j))
                    .fold(0.0f64, f64::max)
            } * (1.0 + 4.0 * f64::EPSILON);
            let cleared = if vf {
                screen_clears::<4, VertexFace>(&x0, mu, margin, delta, s, t_max)
            } else {
                screen_clears::<4, EdgeEdge>(&x0, mu, margin, delta, s, t_max)
            };
            let hit = if vf {
                vertex_face_separation(&x0, &x1, delta, s, 1e-3, t_max, 10_000)
            } else {
                edge_edge_separation(&x0, &x1, delta, s, 1e-3, t_max, 10_000)
            };
            prop_assert!(!cleared || hit.is_none(), "the screen cleared, the kernel did not: {hit:?}");
            let end = hit.map_or(t_max, |h| h.t);
            for k in 0..=200 {
                let t = end * f64::from(k) / 200.0;
                let d = distance(vf, &x0, &x1, t);
                prop_assert!(
                    d >= tau * (1.0 - 1e-9) - 1e-12 * scale,
                    "below the target {tau} at t = {t}: {d} (d0 {d0}, cleared {cleared}, {hit:?})"
                );
            }
        }
    }

    /// The screen is not idle: on neighbours moving slowly relative to their distance it
    /// clears most pairs before any distance is computed.
    #[test]
    fn screen_clears_slow_neighbours() {
        let tri = [DVec3::ZERO, DVec3::X, DVec3::Y];
        let mut cleared = 0;
        for k in 0..100 {
            let h = 0.01 + 0.001 * f64::from(k);
            // a vertex above the face (outside the face's box on z only by h)
            let x0 = [DVec3::new(0.3, 0.3, h), tri[0], tri[1], tri[2]];
            let x1 = x0.map(|p| p + DVec3::new(0.0, 0.0, 1e-4 * p.x));
            let mu = 1e-4;
            cleared += usize::from(screen_clears::<4, VertexFace>(
                &x0, mu, 1e-13, 0.0, 0.2, 1.0,
            ));
            // two skew edges h apart
            let e0 = [
                DVec3::ZERO,
                DVec3::X,
                DVec3::new(0.5, -0.5, h),
                DVec3::new(0.5, 0.5, h),
            ];
            cleared += usize::from(screen_clears::<4, EdgeEdge>(&e0, mu, 1e-13, 0.0, 0.2, 1.0));
            assert!(vertex_face_separation(&x0, &x1, 0.0, 0.2, 1e-3, 1.0, 100).is_none());
        }
        assert_eq!(cleared, 200);
    }
}
