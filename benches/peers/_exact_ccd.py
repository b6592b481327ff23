"""Exact ground truth for vertex-face and edge-edge CCD under linear vertex motion.

Rational arithmetic (``fractions.Fraction``) on the exact values of the f64 inputs; shared by
``kernels.py`` (the reference of every query) and ``deformable.py`` (pairs the tools disagree
on). The method, after the Rust reference ``crates/la-deformable/tests/support/exact.rs``,
extended so that every query is decided (no "unknown"):

* Four points are coplanar exactly at the roots of a cubic (the signed volume). Unless the
  cubic vanishes identically, the first time of contact ``t*`` is one of its roots in
  ``[0, 1]``: roots of its square-free part are isolated by a Sturm sequence and refined by
  bisection to width ``<= 2**-50`` (dyadic roots are found exactly).
* At a root the inclusion test (point in triangle; segments crossing) is decided from the
  signs of degree-4 orientation polynomials. The sign of a polynomial ``g`` at an irrational
  root ``r`` of the square-free ``s`` is exact: ``g(r) = 0`` iff ``gcd(s, g)`` changes sign on
  the isolating interval; otherwise the interval is refined until a Lipschitz bound certifies
  the sign (it must, since ``g(r) != 0``).
* Degenerate configurations at the root (a triangle whose corners are collinear; parallel
  edges) and always-coplanar motion are decided through point-segment contacts: the first
  contact of coplanar features happens at ``t = 0`` or with a vertex on an edge of the other
  feature; the point-segment contact times are the roots of the gcd of the cross-product
  components (or, when those vanish identically, of the projections), each checked exactly.

``vertex_face(x0, x1)`` / ``edge_edge(x0, x1)`` take 4x3 nested sequences of floats (the
vertex then the face's corners; edge a then edge b) and return ``None`` (the features never
touch in ``[0, 1]``) or ``(lo, hi)``: Fractions with ``lo <= t* <= hi``, ``hi - lo <= 2**-50``.
"""

from fractions import Fraction as Q

WIDTH = Q(1, 2**50)
MAX_REFINE = 400  # bisection cap when certifying a sign at an irrational root


class ExactCapError(RuntimeError):
    """A refinement loop hit its cap (a bug: exact signs must be decided)."""


# ----------------------------------------------------------------------------- polynomials
# A polynomial is a tuple of Fractions, increasing degree, no trailing zeros; () is zero.


def trim(c):
    c = list(c)
    while c and c[-1] == 0:
        c.pop()
    return tuple(c)


def padd(a, b):
    n = max(len(a), len(b))
    return trim((a[k] if k < len(a) else 0) + (b[k] if k < len(b) else 0) for k in range(n))


def psub(a, b):
    n = max(len(a), len(b))
    return trim((a[k] if k < len(a) else 0) - (b[k] if k < len(b) else 0) for k in range(n))


def pmul(a, b):
    if not a or not b:
        return ()
    r = [Q(0)] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        if x:
            for j, y in enumerate(b):
                r[i + j] += x * y
    return trim(r)


def peval(p, t):
    acc = Q(0)
    for c in reversed(p):
        acc = acc * t + c
    return acc


def pderiv(p):
    return trim(c * k for k, c in enumerate(p) if k > 0)


def pdivmod(a, d):
    """Quotient and remainder of ``a / d`` (``d`` nonzero)."""
    r = list(a)
    q = [Q(0)] * max(len(a) - len(d) + 1, 0)
    lead = d[-1]
    while len(r) >= len(d) and r:
        shift = len(r) - len(d)
        f = r[-1] / lead
        q[shift] = f
        for k, c in enumerate(d):
            r[k + shift] -= f * c
        r.pop()
        r = list(trim(r))
    return trim(q), trim(r)


def pgcd(a, b):
    """Monic gcd (``()`` when both are zero)."""
    while b:
        a, b = b, pdivmod(a, b)[1]
    if not a:
        return ()
    return tuple(c / a[-1] for c in a)


def lipschitz(p):
    return sum(abs(c) * k for k, c in enumerate(p))


def sign(v):
    return (v > 0) - (v < 0)


# -------------------------------------------------------------------------- algebraic roots
# A root is ("exact", t) or ("interval", s, lo, hi): the only root of the square-free s in the
# open interval (lo, hi), with s(lo) * s(hi) < 0.


def sturm(p):
    s = [p, pderiv(p)]
    while s[-1]:
        r = pdivmod(s[-2], s[-1])[1]
        if not r:
            break
        s.append(tuple(-c for c in r))
    if not s[-1]:
        s.pop()
    return s


def variations(seq, x):
    count, last = 0, 0
    for p in seq:
        v = sign(peval(p, x))
        if v:
            if last and v != last:
                count += 1
            last = v
    return count


def roots_in_unit(p):
    """Distinct roots of the nonzero ``p`` in ``[0, 1]``, as exact or isolated roots."""
    out = []
    if len(p) <= 1:
        return out
    # Square-free part: every root simple, so each isolated root changes the sign.
    g = pgcd(p, pderiv(p))
    s = pdivmod(p, g)[0] if len(g) > 1 else p
    zero, one = Q(0), Q(1)
    ends = []
    if peval(s, zero) == 0:
        ends.append(zero)
        s = pdivmod(s, (zero, one))[0]
    if peval(s, one) == 0:
        ends.append(one)
        s = pdivmod(s, (-one, one))[0]
    if zero in ends:
        out.append(("exact", zero))
    if len(s) > 1:
        seq = sturm(s)
        _isolate(s, seq, zero, one, out)
    if one in ends:
        out.append(("exact", one))
    return out


def _isolate(s, seq, lo, hi, out):
    count = variations(seq, lo) - variations(seq, hi)
    if count == 0:
        return
    if count == 1:
        flo = sign(peval(s, lo))
        for _ in range(MAX_REFINE):
            if hi - lo <= WIDTH:
                out.append(("interval", s, lo, hi))
                return
            mid = (lo + hi) / 2
            v = sign(peval(s, mid))
            if v == 0:
                out.append(("exact", mid))
                return
            if v != flo:
                hi = mid
            else:
                lo, flo = mid, v
        raise ExactCapError("root isolation did not converge")
    span = hi - lo
    for k in (4, 3, 5, 2, 6, 1):
        mid = lo + span * Q(k, 7)
        if peval(s, mid) != 0:
            _isolate(s, seq, lo, mid, out)
            _isolate(s, seq, mid, hi, out)
            return
    raise ExactCapError("no non-root split point")


def root_bounds(r):
    return (r[1], r[1]) if r[0] == "exact" else (r[2], r[3])


def sign_at(g, r):
    """Exact sign of ``g`` at the root ``r`` (refines ``r`` in place when needed: returns the
    sign and the possibly narrowed root)."""
    if r[0] == "exact":
        return sign(peval(g, r[1])), r
    _, s, lo, hi = r
    if not g:
        return 0, r
    h = pgcd(s, g)
    if len(h) > 1 and sign(peval(h, lo)) * sign(peval(h, hi)) < 0:
        return 0, r
    lip = lipschitz(g)
    flo = sign(peval(s, lo))
    for _ in range(MAX_REFINE):
        v = peval(g, lo)
        bound = (hi - lo) * lip
        if v > bound:
            return 1, ("interval", s, lo, hi)
        if v < -bound:
            return -1, ("interval", s, lo, hi)
        mid = (lo + hi) / 2
        m = sign(peval(s, mid))
        if m == 0:
            return sign(peval(g, mid)), ("exact", mid)
        if m != flo:
            hi = mid
        else:
            lo = mid
    raise ExactCapError("sign certification did not converge")


# ------------------------------------------------------------------------------ geometry


def motion(x0, x1):
    """Exact ``x0 + t (x1 - x0)`` per coordinate."""
    return tuple(trim((Q(a), Q(b) - Q(a))) for a, b in zip(x0, x1))


def vsub(a, b):
    return tuple(psub(x, y) for x, y in zip(a, b))


def cross(a, b):
    return (
        psub(pmul(a[1], b[2]), pmul(a[2], b[1])),
        psub(pmul(a[2], b[0]), pmul(a[0], b[2])),
        psub(pmul(a[0], b[1]), pmul(a[1], b[0])),
    )


def dot(a, b):
    return padd(padd(pmul(a[0], b[0]), pmul(a[1], b[1])), pmul(a[2], b[2]))


class _Root:
    """A mutable holder so refinements made by one sign test serve the next."""

    def __init__(self, r):
        self.r = r

    def sign(self, g):
        s, self.r = sign_at(g, self.r)
        return s

    def bounds(self):
        return root_bounds(self.r)


def _all_zero(vec, root):
    return all(root.sign(c) == 0 for c in vec)


def _point_on_segment(p, a, b, root):
    """Exactly: is ``p(r)`` on the closed segment ``[a(r), b(r)]``?"""
    ab, ap = vsub(b, a), vsub(p, a)
    if not _all_zero(cross(ab, ap), root):
        return False
    if root.sign(dot(ab, ab)) == 0:
        return _all_zero(ap, root)
    return root.sign(dot(ap, ab)) >= 0 and root.sign(dot(vsub(p, b), vsub(a, b))) >= 0


def _point_segment_times(p, a, b):
    """Candidate roots for the first contact of ``p`` with segment ``[a, b]``."""
    c = cross(vsub(b, a), vsub(p, a))
    h = pgcd(pgcd(c[0], c[1]), c[2])
    if h:
        return [_Root(r) for r in roots_in_unit(h)] if len(h) > 1 else []
    # p stays on the line through a, b: contact starts at 0 or where a projection changes sign
    # (or where the segment degenerates to a point).
    ab, ap, bp = vsub(b, a), vsub(p, a), vsub(p, b)
    cands = [_Root(("exact", Q(0)))]
    for g in (dot(ap, ab), dot(bp, tuple(psub((), x) for x in ab)), dot(ab, ab)):
        if len(g) > 1:
            cands += [_Root(r) for r in roots_in_unit(g)]
    return cands


def _vf_touch(p, root):
    v, f0, f1, f2 = p
    n = cross(vsub(f1, f0), vsub(f2, f0))
    if not _all_zero(n, root):
        o = (
            dot(cross(vsub(f1, f0), vsub(v, f0)), n),
            dot(cross(vsub(f2, f1), vsub(v, f1)), n),
            dot(cross(vsub(f0, f2), vsub(v, f2)), n),
        )
        return all(root.sign(g) >= 0 for g in o)
    # Collinear (or coincident) corners: the triangle is its edges.
    return any(_point_on_segment(v, a, b, root) for a, b in ((f0, f1), (f1, f2), (f2, f0)))


def _ee_touch(p, root):
    a0, a1, b0, b1 = p
    da, db = vsub(a1, a0), vsub(b1, b0)
    n = cross(da, db)
    if not _all_zero(n, root):
        sa = (root.sign(dot(cross(da, vsub(b0, a0)), n)), root.sign(dot(cross(da, vsub(b1, a0)), n)))
        sb = (root.sign(dot(cross(db, vsub(a0, b0)), n)), root.sign(dot(cross(db, vsub(a1, b0)), n)))
        return sa[0] * sa[1] <= 0 and sb[0] * sb[1] <= 0
    # Parallel (or degenerate) edges: touching means an endpoint on the other segment.
    return (
        _point_on_segment(a0, b0, b1, root)
        or _point_on_segment(a1, b0, b1, root)
        or _point_on_segment(b0, a0, a1, root)
        or _point_on_segment(b1, a0, a1, root)
    )


def _first(p, touch, segments):
    cubic = dot(cross(vsub(p[1], p[0]), vsub(p[2], p[0])), vsub(p[3], p[0]))
    if cubic:
        cands = [_Root(r) for r in roots_in_unit(cubic)]
    else:
        # Always coplanar: touching at 0, or first contact with a vertex on an edge.
        cands = [_Root(("exact", Q(0)))]
        for q, a, b in segments:
            cands += _point_segment_times(q, a, b)
    best = None
    for c in cands:
        lo, hi = c.bounds()
        if best is not None and lo >= best[1]:
            continue
        if touch(p, c):
            lo, hi = c.bounds()
            best = (lo, hi) if best is None else (min(best[0], lo), min(best[1], hi))
    return best


def vertex_face(x0, x1):
    """Exact first contact of vertex ``x[0]`` with triangle ``x[1..4]``: ``None`` or
    ``(lo, hi)``."""
    p = tuple(motion(x0[k], x1[k]) for k in range(4))
    v, f0, f1, f2 = p
    return _first(p, _vf_touch, ((v, f0, f1), (v, f1, f2), (v, f2, f0)))


def edge_edge(x0, x1):
    """Exact first contact of edge ``x[0]x[1]`` with edge ``x[2]x[3]``: ``None`` or
    ``(lo, hi)``."""
    p = tuple(motion(x0[k], x1[k]) for k in range(4))
    a0, a1, b0, b1 = p
    return _first(p, _ee_touch, ((a0, b0, b1), (a1, b0, b1), (b0, a0, a1), (b1, a0, a1)))


def touches_at(kind, x0, x1, t):
    """Exactly: do the features touch at the rational time ``t``?"""
    p = tuple(motion(x0[k], x1[k]) for k in range(4))
    r = _Root(("exact", Q(t)))
    return (_vf_touch if kind == "vf" else _ee_touch)(p, r)
