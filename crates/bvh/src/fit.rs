//! Principal axes of a point set (covariance + Jacobi eigen-decomposition), used to orient
//! OBBs and RSSs (Gottschalk et al., OBBTree, Sec. 4; Lin survey slides, "OBB Fitting").

use glam::{DMat3, DVec3};

/// An orthonormal right-handed frame whose columns are the principal axes of `points`,
/// sorted by decreasing variance. Degenerate inputs (fewer than 2 distinct points, collinear
/// or coplanar sets) still get a valid frame; an empty slice gives the identity.
#[must_use]
pub(crate) fn principal_axes(points: &[DVec3]) -> DMat3 {
    if points.len() < 2 {
        return DMat3::IDENTITY;
    }
    // one pass: sums of d and d d^T for d = p - p0 (shifted for accuracy), then
    // cov = S2 - S1 S1^T / n
    let n = points.len() as f64;
    let p0 = points[0];
    let mut s1 = DVec3::ZERO;
    let (mut xx, mut xy, mut xz, mut yy, mut yz, mut zz) = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
    for p in points {
        let d = *p - p0;
        s1 += d;
        xx += d.x * d.x;
        xy += d.x * d.y;
        xz += d.x * d.z;
        yy += d.y * d.y;
        yz += d.y * d.z;
        zz += d.z * d.z;
    }
    let m = s1 / n;
    let c = [
        [xx - s1.x * m.x, xy - s1.x * m.y, xz - s1.x * m.z],
        [xy - s1.x * m.y, yy - s1.y * m.y, yz - s1.y * m.z],
        [xz - s1.x * m.z, yz - s1.y * m.z, zz - s1.z * m.z],
    ];
    let (values, vectors) = jacobi_eigen(c);
    let mut order = [0usize, 1, 2];
    order.sort_by(|&a, &b| values[b].total_cmp(&values[a]));
    let col = |k: usize| DVec3::new(vectors[0][k], vectors[1][k], vectors[2][k]);
    let e0 = col(order[0]).try_normalize().unwrap_or(DVec3::X);
    let mut e1 = col(order[1]);
    e1 = (e1 - e0 * e0.dot(e1))
        .try_normalize()
        .unwrap_or_else(|| e0.any_orthonormal_vector());
    let e2 = e0.cross(e1);
    DMat3::from_cols(e0, e1, e2)
}

/// Eigen-decomposition of a symmetric 3x3 matrix by cyclic Jacobi rotations (at most 12
/// sweeps; converges quadratically, typically in 3-5). Fitting only needs *an* orthonormal
/// frame close to the principal axes, so the tolerance is loose. Returns the eigenvalues and the
/// eigenvectors as the columns of the second result.
#[allow(clippy::needless_range_loop)]
fn jacobi_eigen(mut a: [[f64; 3]; 3]) -> ([f64; 3], [[f64; 3]; 3]) {
    let mut v = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    let scale = a.iter().flatten().fold(0.0f64, |m, x| m.max(x.abs()));
    if scale == 0.0 || !scale.is_finite() {
        return ([a[0][0], a[1][1], a[2][2]], v);
    }
    for _sweep in 0..12 {
        let off = a[0][1].abs() + a[0][2].abs() + a[1][2].abs();
        if off <= 1e-12 * scale {
            break;
        }
        for (p, q) in [(0usize, 1usize), (0, 2), (1, 2)] {
            if a[p][q].abs() <= 1e-300 {
                continue;
            }
            let theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
            let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
            let t = if theta == 0.0 { 1.0 } else { t };
            let c = 1.0 / (t * t + 1.0).sqrt();
            let s = t * c;
            // A' = J^T A J with J the rotation in the (p, q) plane
            for k in 0..3 {
                let akp = a[k][p];
                let akq = a[k][q];
                a[k][p] = c * akp - s * akq;
                a[k][q] = s * akp + c * akq;
            }
            for k in 0..3 {
                let apk = a[p][k];
                let aqk = a[q][k];
                a[p][k] = c * apk - s * aqk;
                a[q][k] = s * apk + c * aqk;
            }
            for row in &mut v {
                let vkp = row[p];
                let vkq = row[q];
                row[p] = c * vkp - s * vkq;
                row[q] = s * vkp + c * vkq;
            }
        }
    }
    ([a[0][0], a[1][1], a[2][2]], v)
}

/// Minimum and maximum of the projections of `points` on the three columns of `axes`.
#[inline]
pub(crate) fn project_extents(points: &[DVec3], axes: &DMat3) -> (DVec3, DVec3) {
    let mut lo = DVec3::INFINITY;
    let mut hi = DVec3::NEG_INFINITY;
    for p in points {
        let q = axes.transpose() * *p;
        lo = lo.min(q);
        hi = hi.max(q);
    }
    if points.is_empty() {
        return (DVec3::ZERO, DVec3::ZERO);
    }
    (lo, hi)
}

/// A relative rounding slack for a volume around points of magnitude `scale`: enough to
/// absorb the few roundings of a projection and reconstruction.
#[inline]
pub(crate) fn slack(scale: f64) -> f64 {
    16.0 * f64::EPSILON * scale
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_of_a_stretched_set_follow_its_spread() {
        let dir = DVec3::new(1.0, 2.0, 0.5).normalize();
        let side = dir.any_orthonormal_vector();
        let pts: Vec<DVec3> = (0..50)
            .map(|i| {
                let s = f64::from(i) / 49.0 - 0.5;
                dir * (10.0 * s) + side * (0.3 * (f64::from(i) * 1.7).sin())
            })
            .collect();
        let r = principal_axes(&pts);
        assert!(r.x_axis.dot(dir).abs() > 0.999);
        assert!((r.determinant() - 1.0).abs() < 1e-12);
        assert!(
            (r.transpose() * r - DMat3::IDENTITY)
                .abs()
                .to_cols_array()
                .iter()
                .all(|x| *x < 1e-12)
        );
    }

    #[test]
    fn degenerate_sets_get_a_frame() {
        for pts in [
            vec![],
            vec![DVec3::ONE],
            vec![DVec3::ONE; 5],
            vec![DVec3::ZERO, DVec3::X],
        ] {
            let r = principal_axes(&pts);
            assert!((r.determinant() - 1.0).abs() < 1e-12);
        }
    }

    #[test]
    fn jacobi_diagonalises() {
        let a = [[4.0, 1.0, 2.0], [1.0, 3.0, 0.5], [2.0, 0.5, 1.0]];
        let (vals, v) = jacobi_eigen(a);
        for k in 0..3 {
            let x = [v[0][k], v[1][k], v[2][k]];
            for i in 0..3 {
                let ax: f64 = (0..3).map(|j| a[i][j] * x[j]).sum();
                assert!((ax - vals[k] * x[i]).abs() < 1e-10);
            }
        }
    }
}
