//! A well-conditioned local frame of a triangle, shared by the triangle kernels.
//!
//! The frame takes the longest edge `i → j` as first axis `e` and the component `h` of
//! `v[k] - v[i]` orthogonal to it (two Gram–Schmidt passes) as second axis, so `v[k] = o + s e + h` up to one rounding
//! and the plane `o + x e + y h` passes through all three vertices within a few ulps of the
//! triangle's size, even for slivers (a plain `(b - a) × (c - a)` normal tilts by
//! `ε / sin θ` for a sliver of angle `θ`). In frame coordinates `(x, y)` the triangle is
//! `(0, 0), (1, 0), (s, 1)` and the barycentric weights are
//! `w_k = y`, `w_j = x - s y`, `w_i = 1 - w_j - w_k`.

use ccd_geometry::Feature;
use glam::DVec3;

use crate::point_segment::closest_on_segment;

/// Squared sine bound below which a triangle is treated as the segment of its longest edge
/// (it is then at most `1e-15` times its size away from that edge).
const FLAT: f64 = 1e-30;

/// What a (possibly degenerate) triangle is geometrically.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// A proper triangle.
    Triangle,
    /// Collinear vertices: the segment `v[i] → v[j]` (longest edge) contains `v[k]`.
    Segment,
    /// All three vertices coincide.
    Point,
}

/// Local frame of a triangle (see the module docs).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Frame {
    /// The vertices.
    pub(crate) v: [DVec3; 3],
    /// Local ids: longest edge `i → j`, apex `k`.
    pub(crate) i: usize,
    pub(crate) j: usize,
    pub(crate) k: usize,
    /// Origin `v[i]`.
    pub(crate) o: DVec3,
    /// First axis `v[j] - v[i]`.
    pub(crate) e: DVec3,
    /// Second axis: component of `v[k] - v[i]` orthogonal to `e`.
    pub(crate) h: DVec3,
    /// `v[k] = o + s e + h`.
    pub(crate) s: f64,
    pub(crate) inv_ee: f64,
    pub(crate) inv_hh: f64,
    pub(crate) shape: Shape,
}

impl Frame {
    #[inline]
    pub(crate) fn new(v: [DVec3; 3]) -> Self {
        let l01 = (v[1] - v[0]).length_squared();
        let l12 = (v[2] - v[1]).length_squared();
        let l20 = (v[0] - v[2]).length_squared();
        let (i, j, k) = if l01 >= l12 && l01 >= l20 {
            (0, 1, 2)
        } else if l12 >= l20 {
            (1, 2, 0)
        } else {
            (2, 0, 1)
        };
        let o = v[i];
        let e = v[j] - o;
        let ee = e.length_squared();
        if ee == 0.0 {
            return Self {
                v,
                i,
                j,
                k,
                o,
                e,
                h: DVec3::ZERO,
                s: 0.0,
                inv_ee: 0.0,
                inv_hh: 0.0,
                shape: Shape::Point,
            };
        }
        let inv_ee = 1.0 / ee;
        let ok = v[k] - o;
        let s0 = ok.dot(e) * inv_ee;
        let h0 = ok - e * s0;
        // Second Gram–Schmidt pass: after one pass `h·e` is only `ε |ok| |e|`, which for a
        // sliver (|h| ≪ |ok|) skews the frame coordinates by `ε |ok| / |h|`.
        let ds = h0.dot(e) * inv_ee;
        let h = h0 - e * ds;
        let s = s0 + ds;
        let hh = h.length_squared();
        let shape = if hh > FLAT * ee {
            Shape::Triangle
        } else {
            Shape::Segment
        };
        let inv_hh = if shape == Shape::Triangle {
            1.0 / hh
        } else {
            0.0
        };
        Self {
            v,
            i,
            j,
            k,
            o,
            e,
            h,
            s,
            inv_ee,
            inv_hh,
            shape,
        }
    }

    /// A normal of the plane (not normalized; length `|e| |h|`).
    #[inline]
    pub(crate) fn normal(&self) -> DVec3 {
        self.e.cross(self.h)
    }

    /// Frame coordinates `(x, y)` of the projection of `p` onto the plane.
    #[inline]
    pub(crate) fn coords(&self, p: DVec3) -> (f64, f64) {
        let op = p - self.o;
        (op.dot(self.e) * self.inv_ee, op.dot(self.h) * self.inv_hh)
    }

    /// Barycentric weights `(w_i, w_j, w_k)` of frame coordinates `(x, y)`.
    #[inline]
    pub(crate) fn weights(&self, x: f64, y: f64) -> (f64, f64, f64) {
        let wj = x - self.s * y;
        (1.0 - wj - y, wj, y)
    }

    /// The point of the plane at frame coordinates `(x, y)`.
    #[inline]
    pub(crate) fn point(&self, x: f64, y: f64) -> DVec3 {
        self.o + self.e * x + self.h * y
    }

    /// If the projection of `p` lies strictly inside a proper triangle, that projection.
    #[inline]
    pub(crate) fn project_inside(&self, p: DVec3) -> Option<DVec3> {
        let (x, y) = self.coords(p);
        let (wi, wj, wk) = self.weights(x, y);
        (wi > 0.0 && wj > 0.0 && wk > 0.0).then(|| self.point(x, y))
    }

    /// The segment `v[i] → v[j]` a degenerate triangle reduces to, with local ids.
    #[inline]
    pub(crate) fn long_edge(&self) -> (DVec3, DVec3, u32, u32) {
        (self.v[self.i], self.v[self.j], self.i as u32, self.j as u32)
    }

    /// Closest point of the triangle to `p`, with its local feature.
    #[inline]
    pub(crate) fn closest(&self, p: DVec3) -> (DVec3, Feature) {
        let (a, b, ia, ib) = self.long_edge();
        match self.shape {
            Shape::Point => (self.v[0], Feature::Vertex(0)),
            Shape::Segment => closest_on_segment(p, a, b, ia, ib),
            Shape::Triangle => {
                let (x, y) = self.coords(p);
                let (wi, wj, wk) = self.weights(x, y);
                if wi > 0.0 && wj > 0.0 && wk > 0.0 {
                    return (self.point(x, y), Feature::Face(0));
                }
                // Outside: the closest point is on an edge whose opposite weight is <= 0.
                let c = self.v[self.k];
                let ic = self.k as u32;
                let mut best: Option<(DVec3, Feature, f64)> = None;
                let mut consider = |q: DVec3, f: Feature| {
                    let d2 = (q - p).length_squared();
                    if best.is_none_or(|(_, _, bd)| d2 < bd) {
                        best = Some((q, f, d2));
                    }
                };
                if wk <= 0.0 {
                    let (q, f) = closest_on_segment(p, a, b, ia, ib);
                    consider(q, f);
                }
                if wj <= 0.0 {
                    let (q, f) = closest_on_segment(p, a, c, ia, ic);
                    consider(q, f);
                }
                if wi <= 0.0 {
                    let (q, f) = closest_on_segment(p, b, c, ib, ic);
                    consider(q, f);
                }
                match best {
                    Some((q, f, _)) => (q, f),
                    // Only reachable with NaN input: report the apex.
                    None => (c, Feature::Vertex(ic)),
                }
            }
        }
    }
}
