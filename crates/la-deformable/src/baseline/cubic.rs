//! Real roots of a cubic on an interval, in floating point (for the baseline only).

/// Evaluates `c0 + c1 t + c2 t² + c3 t³` (Horner).
#[inline]
fn eval(c: [f64; 4], t: f64) -> f64 {
    ((c[3] * t + c[2]) * t + c[1]) * t + c[0]
}

/// The roots of the cubic `c0 + c1 t + c2 t² + c3 t³` in `[0, t_max]`, increasing, and their
/// count (at most 3). The interval is split at the critical points (roots of the derivative)
/// into monotone pieces; a piece whose end values have opposite signs (or a zero) holds one
/// root, found by bisection to full precision. A root where the cubic touches zero without
/// crossing is found only if it is exactly zero at a piece end (the baseline's known weakness).
///
/// # Example
/// ```
/// use ccd_la_deformable::baseline::cubic_roots_in;
///
/// // (t - 0.25)(t - 0.5)(t - 2) = t³ - 2.75 t² + 1.625 t - 0.25
/// let (roots, n) = cubic_roots_in([-0.25, 1.625, -2.75, 1.0], 1.0);
/// assert_eq!(n, 2);
/// assert!((roots[0] - 0.25).abs() < 1e-15 && (roots[1] - 0.5).abs() < 1e-15);
/// ```
#[must_use]
pub fn cubic_roots_in(c: [f64; 4], t_max: f64) -> ([f64; 3], usize) {
    // Critical points: 3 c3 t² + 2 c2 t + c1 = 0.
    let mut cuts = [0.0, t_max, t_max, t_max];
    let mut ncuts = 1;
    let (qa, qb, qc) = (3.0 * c[3], 2.0 * c[2], c[1]);
    let mut crit = [f64::NAN; 2];
    if qa != 0.0 {
        let disc = qb * qb - 4.0 * qa * qc;
        if disc >= 0.0 {
            let s = disc.sqrt();
            // Numerically stable pair of roots.
            let q = -0.5 * (qb + if qb >= 0.0 { s } else { -s });
            crit = [q / qa, if q != 0.0 { qc / q } else { 0.0 }];
        }
    } else if qb != 0.0 {
        crit[0] = -qc / qb;
    }
    if crit[0] > crit[1] {
        crit.swap(0, 1);
    }
    for r in crit {
        if r > 0.0 && r < t_max {
            cuts[ncuts] = r;
            ncuts += 1;
        }
    }
    cuts[ncuts] = t_max;
    ncuts += 1;
    let mut roots = [0.0; 3];
    let mut n = 0;
    let push = |r: f64, roots: &mut [f64; 3], n: &mut usize| {
        if *n < 3 && (*n == 0 || r > roots[*n - 1]) {
            roots[*n] = r;
            *n += 1;
        }
    };
    for w in cuts[..ncuts].windows(2) {
        let (mut lo, mut hi) = (w[0], w[1]);
        let (flo, fhi) = (eval(c, lo), eval(c, hi));
        if flo == 0.0 {
            push(lo, &mut roots, &mut n);
            continue;
        }
        if fhi == 0.0 {
            push(hi, &mut roots, &mut n);
            continue;
        }
        if (flo < 0.0) == (fhi < 0.0) || flo.is_nan() || fhi.is_nan() {
            continue;
        }
        // Bisection to adjacent floats (at most ~64 halvings on [0, 1]).
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if mid <= lo || mid >= hi {
                break;
            }
            let fm = eval(c, mid);
            if fm == 0.0 {
                lo = mid;
                break;
            }
            if (fm < 0.0) == (flo < 0.0) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        push(lo, &mut roots, &mut n);
    }
    (roots, n)
}
