//! The next time of a conservative-advancement loop, certified exactly.
//!
//! An evaluation at `t` certifies that the bodies stay apart over `[t, t + step)` for the
//! exact sum `t + step`. Its floating-point sum may round up: near the end of a search
//! `fl(t + step)` can equal `end` while `t + step < end`, which leaves a sliver of the step
//! below the resolution of `t` uncertified. A loop that returned "no contact" there missed
//! contacts (a fuzz finding: a link moving 1e20 per step, whose contact fell 5e-17 before
//! the end of the step, was reported free).

/// The next time of a loop at `t ∈ [0, end]` whose evaluation certified `step`, searching up
/// to `end`: `None` when `step` certifies all of `[t, end]` exactly; else the next time,
/// never past the exact `t + step`: `fl(t + step)` when that is below `end`, and the float
/// below `end` when `fl(t + step)` rounded up to `end` or past it (the exact sum is then at
/// least halfway from that float to `end`). A NaN step gives NaN (the callers stop on it).
#[inline]
pub(crate) fn advance(t: f64, step: f64, end: f64) -> Option<f64> {
    if step.is_nan() {
        return Some(f64::NAN);
    }
    let next = t + step;
    if next < end {
        return Some(next);
    }
    if covers(t, step, end) {
        None
    } else {
        Some(end.next_down())
    }
}

/// Whether `step ≥ end − t` exactly (`0 ≤ t ≤ end`): `fl(end − t)` is exact when `t = 0` or
/// `t ≥ end/2` (Sterbenz), and a step above the rounded difference is at least the float
/// above it, which exceeds the exact difference.
#[inline]
fn covers(t: f64, step: f64, end: f64) -> bool {
    let rest = end - t;
    step > rest || (step == rest && (t == 0.0 || 2.0 * t >= end))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_that_rounds_up_to_the_end_leaves_the_last_float() {
        let t = 1.0f64.next_down(); // 1 − 2⁻⁵³
        // exact t + step = 1 − 2⁻⁵⁴ − …: rounds to 1, but does not reach it
        let step = 0.75 * (1.0 - t);
        assert_eq!(t + step, 1.0);
        assert_eq!(advance(t, step, 1.0), Some(t)); // no progress: the caller stalls
        // a step that reaches the end exactly, or passes it
        assert_eq!(advance(t, 1.0 - t, 1.0), None);
        assert_eq!(advance(t, 1.0, 1.0), None);
        // far from the end: the plain sum
        assert_eq!(advance(0.25, 0.25, 1.0), Some(0.5));
        assert_eq!(advance(0.0, 1.0, 1.0), None);
        // a step landing in the last ulp below a window's end
        let (t, end) = (0.1, 0.3);
        let step = (end - t) * (1.0 - 1e-17);
        match advance(t, step, end) {
            None => assert!(step >= end - t),
            Some(n) => assert!(n < end && n >= t),
        }
        assert!(advance(0.5, f64::NAN, 1.0).is_some_and(f64::is_nan));
    }
}
