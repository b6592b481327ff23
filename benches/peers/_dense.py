"""Dense floating-point distances for the peer harnesses (numpy, vectorised over any leading
shape): point-triangle and segment-segment distances, and their minimum along linear motion
sampled densely over ``[0, t]``. Independent of both tools under test.

Point-triangle: the smaller of the plane distance (when the projection falls inside the
triangle) and the three point-segment distances. Segment-segment: the smaller of the
interior-interior distance (when the lines' closest parameters are both inside) and the four
endpoint-segment distances. Both are exact up to floating-point rounding.
"""

import numpy as np


def _dot(a, b):
    return np.einsum("...k,...k->...", a, b)


def point_segment(p, a, b):
    ab = b - a
    den = _dot(ab, ab)
    t = np.clip(_dot(p - a, ab) / np.where(den > 0, den, 1.0), 0.0, 1.0)
    t = np.where(den > 0, t, 0.0)
    return np.linalg.norm(p - (a + t[..., None] * ab), axis=-1)


def point_triangle(p, a, b, c):
    n = np.cross(b - a, c - a)
    nn = _dot(n, n)
    ok = nn > 0
    safe = np.where(ok, nn, 1.0)
    ap = p - a
    w = _dot(ap, n) / safe
    q = p - w[..., None] * n  # projection on the plane
    inside = (
        ok
        & (_dot(np.cross(b - a, q - a), n) >= 0)
        & (_dot(np.cross(c - b, q - b), n) >= 0)
        & (_dot(np.cross(a - c, q - c), n) >= 0)
    )
    plane = np.where(inside, np.abs(w) * np.sqrt(nn), np.inf)
    return np.minimum.reduce(
        [plane, point_segment(p, a, b), point_segment(p, b, c), point_segment(p, c, a)]
    )


def segment_segment(a0, a1, b0, b1):
    u, v, w0 = a1 - a0, b1 - b0, a0 - b0
    a, b, c = _dot(u, u), _dot(u, v), _dot(v, v)
    d, e = _dot(u, w0), _dot(v, w0)
    den = a * c - b * b
    ok = den > 1e-300
    safe = np.where(ok, den, 1.0)
    s = (b * e - c * d) / safe
    t = (a * e - b * d) / safe
    interior = ok & (s > 0) & (s < 1) & (t > 0) & (t < 1)
    pa = a0 + s[..., None] * u
    pb = b0 + t[..., None] * v
    mid = np.where(interior, np.linalg.norm(pa - pb, axis=-1), np.inf)
    return np.minimum.reduce(
        [
            mid,
            point_segment(a0, b0, b1),
            point_segment(a1, b0, b1),
            point_segment(b0, a0, a1),
            point_segment(b1, a0, a1),
        ]
    )


def distance(kind, x):
    """``x[..., 4, 3]``: vertex + triangle (``"vf"``) or edge a + edge b (``"ee"``)."""
    f = point_triangle if kind == "vf" else segment_segment
    return f(x[..., 0, :], x[..., 1, :], x[..., 2, :], x[..., 3, :])


def min_along(kind, x0, x1, t_end=1.0, samples=2049):
    """Minimum distance of each query (``x0``, ``x1`` of shape ``(N, 4, 3)``) over ``samples``
    equally spaced times of ``[0, t_end]`` (``t_end`` scalar or ``(N,)``), then refined by a
    golden-section search around the best sample. Returns ``(dmin, t_at)``."""
    x0 = np.asarray(x0, float)
    x1 = np.asarray(x1, float)
    n = x0.shape[0]
    t_end = np.broadcast_to(np.asarray(t_end, float), (n,))
    ts = np.linspace(0.0, 1.0, samples)[None, :] * t_end[:, None]  # (N, S)
    best = np.full(n, np.inf)
    best_t = np.zeros(n)
    step = max(1, 2_000_000 // max(n, 1) // 16)
    for k in range(0, samples, step):
        tk = ts[:, k : k + step]
        x = x0[:, None] + tk[..., None, None] * (x1 - x0)[:, None]
        d = distance(kind, x)
        j = np.argmin(d, axis=1)
        dj = d[np.arange(n), j]
        better = dj < best
        best = np.where(better, dj, best)
        best_t = np.where(better, tk[np.arange(n), j], best_t)
    h = t_end / (samples - 1)
    lo, hi = np.maximum(best_t - h, 0.0), np.minimum(best_t + h, t_end)
    g = (np.sqrt(5) - 1) / 2

    def at(t):
        return distance(kind, x0 + t[:, None, None] * (x1 - x0))

    for _ in range(60):
        m1, m2 = hi - g * (hi - lo), lo + g * (hi - lo)
        left = at(m1) < at(m2)
        hi = np.where(left, m2, hi)
        lo = np.where(left, lo, m1)
    tm = (lo + hi) / 2
    dm = at(tm)
    better = dm < best
    return np.where(better, dm, best), np.where(better, tm, best_t)
