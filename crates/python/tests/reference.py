"""Pure-numpy references for the elementary kernels: exact distances (vectorised) and a
dense-sampling detector of touches (a vertex crossing a triangle, two edges crossing)."""

import numpy as np


def _dot(a, b):
    return np.einsum("...i,...i->...", a, b)


def point_segment_distance(p, a, b):
    """Distance from points p to segments [a, b] (broadcast over leading axes)."""
    ab = b - a
    denom = _dot(ab, ab)
    t = np.where(denom > 0, _dot(p - a, ab) / np.where(denom > 0, denom, 1.0), 0.0)
    t = np.clip(t, 0.0, 1.0)
    return np.linalg.norm(p - (a + t[..., None] * ab), axis=-1)


def point_triangle_distance(p, a, b, c):
    """Exact Euclidean distance from p to triangle abc: the plane distance when the
    projection falls inside, else the nearest edge."""
    d = np.minimum(
        np.minimum(point_segment_distance(p, a, b), point_segment_distance(p, b, c)),
        point_segment_distance(p, c, a),
    )
    n = np.cross(b - a, c - a)
    nn = _dot(n, n)
    ok = nn > 0
    nn = np.where(ok, nn, 1.0)
    # barycentric coordinates of the projection, from signed sub-areas
    w_a = _dot(np.cross(b - p, c - p), n) / nn
    w_b = _dot(np.cross(c - p, a - p), n) / nn
    w_c = 1.0 - w_a - w_b
    inside = ok & (w_a >= 0) & (w_b >= 0) & (w_c >= 0)
    plane = np.abs(_dot(p - a, n)) / np.sqrt(nn)
    return np.where(inside, np.minimum(d, plane), d)


def segment_segment_distance(a0, a1, b0, b1):
    """Exact distance between segments [a0, a1] and [b0, b1]: the lines' closest points when
    both are interior, else the nearest endpoint-to-segment distance."""
    d = np.minimum(
        np.minimum(point_segment_distance(a0, b0, b1), point_segment_distance(a1, b0, b1)),
        np.minimum(point_segment_distance(b0, a0, a1), point_segment_distance(b1, a0, a1)),
    )
    s, u, ok = _line_params(a0, a1, b0, b1)
    interior = ok & (s >= 0) & (s <= 1) & (u >= 0) & (u <= 1)
    pa = a0 + s[..., None] * (a1 - a0)
    pb = b0 + u[..., None] * (b1 - b0)
    return np.where(interior, np.minimum(d, np.linalg.norm(pa - pb, axis=-1)), d)


def _line_params(a0, a1, b0, b1):
    """Parameters of the closest points of the two lines, and whether they are not parallel."""
    da, db, r = a1 - a0, b1 - b0, a0 - b0
    aa, bb, ab = _dot(da, da), _dot(db, db), _dot(da, db)
    ar, br = _dot(da, r), _dot(db, r)
    den = aa * bb - ab * ab
    ok = den > 1e-12 * aa * bb
    den = np.where(ok, den, 1.0)
    s = (ab * br - bb * ar) / den
    u = (aa * br - ab * ar) / den
    return s, u, ok


def positions(x0, x1, t):
    """Points at times t: x0, x1 of shape (4, 3), t of shape (K,) -> (K, 4, 3)."""
    return x0[None] + t[:, None, None] * (x1 - x0)[None]


def vf_distance(x0, x1, t):
    p = positions(x0, x1, t)
    return point_triangle_distance(p[:, 0], p[:, 1], p[:, 2], p[:, 3])


def ee_distance(x0, x1, t):
    p = positions(x0, x1, t)
    return segment_segment_distance(p[:, 0], p[:, 1], p[:, 2], p[:, 3])


def vf_first_touch(x0, x1, samples=4097, margin=1e-2):
    """Dense sampling: the end of the first sampling interval over which the vertex crosses
    the triangle's plane with its projection inside the triangle (barycentrics >= margin at
    both ends), or None. A touch certainly happens at or before the returned time."""
    t = np.linspace(0.0, 1.0, samples)
    p = positions(x0, x1, t)
    v, a, b, c = p[:, 0], p[:, 1], p[:, 2], p[:, 3]
    n = np.cross(b - a, c - a)
    side = _dot(v - a, n)
    nn = _dot(n, n)
    w_a = _dot(np.cross(b - v, c - v), n) / nn
    w_b = _dot(np.cross(c - v, a - v), n) / nn
    w_c = 1.0 - w_a - w_b
    inside = (w_a >= margin) & (w_b >= margin) & (w_c >= margin)
    cross = (np.sign(side[:-1]) != np.sign(side[1:])) | (side[:-1] == 0)
    hit = np.nonzero(cross & inside[:-1] & inside[1:])[0]
    return None if hit.size == 0 else float(t[hit[0] + 1])


def ee_first_touch(x0, x1, samples=4097, margin=1e-2):
    """Dense sampling: the end of the first sampling interval over which the two edges'
    lines become coplanar with both closest-point parameters inside [margin, 1 - margin] at
    both ends, or None. A touch certainly happens at or before the returned time."""
    t = np.linspace(0.0, 1.0, samples)
    p = positions(x0, x1, t)
    a0, a1, b0, b1 = p[:, 0], p[:, 1], p[:, 2], p[:, 3]
    vol = _dot(b0 - a0, np.cross(a1 - a0, b1 - b0))
    s, u, ok = _line_params(a0, a1, b0, b1)
    inside = ok & (s >= margin) & (s <= 1 - margin) & (u >= margin) & (u <= 1 - margin)
    cross = (np.sign(vol[:-1]) != np.sign(vol[1:])) | (vol[:-1] == 0)
    hit = np.nonzero(cross & inside[:-1] & inside[1:])[0]
    return None if hit.size == 0 else float(t[hit[0] + 1])
