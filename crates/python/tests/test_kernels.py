"""ccd.vertex_face / ccd.edge_edge against a pure-numpy dense-sampling reference on random
inputs, closed-form cases, and thread-count invariance."""

import numpy as np
import pytest

import ccd
import reference as ref

TOL = 1e-6


def random_vf(rng, n):
    """Triangles of size ~1 drifting a little; vertices starting on one side of the plane
    and ending near the triangle, on either side (about half cross it)."""
    tri0 = rng.uniform(-1, 1, (n, 3, 3))
    tri1 = tri0 + rng.uniform(-0.2, 0.2, (n, 3, 3))
    normal = np.cross(tri0[:, 1] - tri0[:, 0], tri0[:, 2] - tri0[:, 0])
    normal /= np.linalg.norm(normal, axis=1, keepdims=True)
    w = rng.dirichlet([1, 1, 1], n) * 1.4 - 0.2  # a little outside the triangle sometimes
    at0 = np.einsum("ni,nij->nj", rng.dirichlet([1, 1, 1], n), tri0)
    at1 = np.einsum("ni,nij->nj", w, tri1)
    h0 = rng.uniform(0.05, 1.0, (n, 1))
    h1 = rng.uniform(-1.0, 0.3, (n, 1))
    v0 = at0 + h0 * normal
    v1 = at1 + h1 * normal
    x0 = np.concatenate([v0[:, None], tri0], axis=1)
    x1 = np.concatenate([v1[:, None], tri1], axis=1)
    return x0, x1


def random_ee(rng, n):
    """Edge a drifting a little; edge b crossing over it or passing near it."""
    a0 = rng.uniform(-1, 1, (n, 2, 3))
    a1 = a0 + rng.uniform(-0.2, 0.2, (n, 2, 3))
    mid = 0.5 * (a0[:, 0] + a0[:, 1])
    d = rng.normal(size=(n, 3))
    d /= np.linalg.norm(d, axis=1, keepdims=True)
    off = rng.normal(size=(n, 3))
    off /= np.linalg.norm(off, axis=1, keepdims=True)
    b0 = np.stack([mid + off * 0.6 - d * 0.8, mid + off * 0.6 + d * 0.8], axis=1)
    shift = rng.uniform(-1.2, 0.2, (n, 1, 1)) * off[:, None] + rng.uniform(-0.3, 0.3, (n, 2, 3))
    b1 = b0 + shift
    return np.concatenate([a0, b0], axis=1), np.concatenate([a1, b1], axis=1)


CASES = [
    (ccd.vertex_face, random_vf, ref.vf_first_touch, ref.vf_distance),
    (ccd.edge_edge, random_ee, ref.ee_first_touch, ref.ee_distance),
]


@pytest.mark.parametrize("kernel, make, first_touch, distance", CASES)
def test_matches_dense_sampling_reference(kernel, make, first_touch, distance):
    rng = np.random.default_rng(19)
    n = 400
    x0, x1 = make(rng, n)
    toc, status = kernel(x0, x1, tolerance=TOL)
    assert toc.shape == (n,) and toc.dtype == np.float64 and status.dtype == np.uint8
    assert np.array_equal(np.isnan(toc), status == ccd.NO_CONTACT)
    touches = 0
    for i in range(n):
        t_ref = first_touch(x0[i], x1[i])
        if t_ref is not None:
            touches += 1
            # never a miss, never late: a touch happens by t_ref
            assert status[i] != ccd.NO_CONTACT, (i, t_ref)
            assert toc[i] <= t_ref + 1e-12, (i, toc[i], t_ref)
        if status[i] == ccd.NO_CONTACT:
            continue
        assert 0.0 <= toc[i] <= 1.0
        if status[i] in (ccd.CONVERGED, ccd.INITIALLY_TOUCHING):
            # within the tolerance at toc (exact distance computed by numpy)
            d = distance(x0[i], x1[i], np.array([toc[i]]))[0]
            assert d <= TOL * (1 + 1e-6) + 1e-12, (i, d)
        # apart before toc: sampled distances before it are positive
        ts = np.linspace(0.0, toc[i], 257)[:-1]
        if ts.size:
            assert np.all(distance(x0[i], x1[i], ts) > 0.0), i
    # the test exercises both outcomes
    assert 0.25 * n < touches < 0.9 * n, touches
    assert np.sum(status == ccd.NO_CONTACT) > 0.1 * n


def test_vertex_face_closed_form():
    rng = np.random.default_rng(7)
    n = 200
    # a vertex falling straight down through z = 0 inside a fixed triangle: toc = h0 / (h0 - h1)
    face = np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0]])
    xy = rng.dirichlet([1, 1, 1], n) @ face
    h0 = rng.uniform(0.1, 1, n)
    h1 = -rng.uniform(0.1, 1, n)
    x0 = np.concatenate([(xy + np.c_[0 * h0, 0 * h0, h0])[:, None], np.broadcast_to(face, (n, 3, 3))], axis=1)
    x1 = x0.copy()
    x1[:, 0, 2] = h1
    toc, status = ccd.vertex_face(x0, x1)
    exact = h0 / (h0 - h1)
    speed = h0 - h1
    assert np.all(status == ccd.CONVERGED)
    assert np.all(toc <= exact + 1e-12)
    assert np.all(toc >= exact - TOL / speed - 1e-12)


@pytest.mark.parametrize("kernel, make", [(c[0], c[1]) for c in CASES])
def test_thread_counts_agree(kernel, make):
    x0, x1 = make(np.random.default_rng(3), 3000)
    base = kernel(x0, x1, threads=1)
    for threads in (None, 2, 3):
        toc, status = kernel(x0, x1, threads=threads)
        np.testing.assert_array_equal(toc, base[0])
        np.testing.assert_array_equal(status, base[1])


def test_lists_and_float32_are_accepted():
    x0, x1 = random_vf(np.random.default_rng(5), 4)
    a = ccd.vertex_face(x0.tolist(), x1.tolist())
    b = ccd.vertex_face(x0, x1)
    np.testing.assert_array_equal(a[0], b[0])
    c = ccd.vertex_face(x0.astype(np.float32), x1.astype(np.float32))
    assert c[0].shape == (4,)


def test_gil_is_released_for_threads():
    # two Python threads running big batches at once finish with the same answers
    import threading

    x0, x1 = random_ee(np.random.default_rng(11), 20000)
    expected = ccd.edge_edge(x0, x1, threads=1)
    out = [None, None]

    def run(k):
        out[k] = ccd.edge_edge(x0, x1, threads=1)

    workers = [threading.Thread(target=run, args=(k,)) for k in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=120)
    for k in range(2):
        np.testing.assert_array_equal(out[k][0], expected[0])


def test_benchmark_hooks_time_the_same_loop():
    from ccd import _ccd

    x0, x1 = random_vf(np.random.default_rng(9), 500)
    assert _ccd._time_kernel("vertex_face", x0, x1, repeats=2) > 0.0
    assert _ccd._time_kernel("edge_edge", x0, x1, threads=2) > 0.0
    with pytest.raises(ValueError, match="unknown kernel"):
        _ccd._time_kernel("face_face", x0, x1)
    tet = ccd.Mesh([[0.0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])
    a, b = np.eye(4), np.eye(4)
    b[0, 3] = 3.0
    assert _ccd._time_rigid(tet, a, a, tet, b, a, repeats=3) > 0.0
