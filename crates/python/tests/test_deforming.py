"""ccd.DeformingScene: global ToC, all contacts and updates, checked against the vectorised
kernels over every non-adjacent feature pair (brute force)."""

import doctest
import itertools

import numpy as np
import pytest

import ccd
import reference


def two_sheets(rng, n=4, drop=1.6):
    """Two n x n grids of triangles: a still one at z = 0 and a bumpy one falling through it."""
    g = np.linspace(0, 1, n + 1)
    xy = np.array([[x, y] for y in g for x in g])
    faces = []
    for j in range(n):
        for i in range(n):
            a = j * (n + 1) + i
            faces += [[a, a + 1, a + n + 2], [a, a + n + 2, a + n + 1]]
    faces = np.array(faces)
    k = len(xy)
    low = np.c_[xy, np.zeros(k)]
    high0 = np.c_[xy + 0.013, 0.8 + rng.uniform(0, 0.2, k)]
    high1 = high0 - [0, 0, drop] + rng.uniform(-0.05, 0.05, (k, 3))
    x0 = np.vstack([low, high0])
    x1 = np.vstack([low, high1])
    return np.vstack([faces, faces + k]), x0, x1


def brute_force_toc(faces, x0, x1, tol):
    """Min over every vertex-face and edge-edge pair that shares no vertex, by the kernels."""
    vf0, vf1, ee0, ee1 = [], [], [], []
    edges = sorted({tuple(sorted(e)) for f in faces for e in itertools.combinations(f, 2)})
    for v in range(len(x0)):
        for f in faces:
            if v not in f:
                vf0.append(np.vstack([x0[v], x0[f]]))
                vf1.append(np.vstack([x1[v], x1[f]]))
    for e, g in itertools.combinations(edges, 2):
        if not set(e) & set(g):
            ee0.append(x0[list(e + g)])
            ee1.append(x1[list(e + g)])
    t_vf, _ = ccd.vertex_face(np.array(vf0), np.array(vf1), tolerance=tol)
    t_ee, _ = ccd.edge_edge(np.array(ee0), np.array(ee1), tolerance=tol)
    both = np.concatenate([t_vf, t_ee])
    return None if np.all(np.isnan(both)) else float(np.nanmin(both)), np.sum(~np.isnan(both))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_scene_toc_matches_brute_force_kernels(seed):
    faces, x0, x1 = two_sheets(np.random.default_rng(seed))
    tol = 1e-6
    scene = ccd.DeformingScene(faces, x0, x1, tolerance=tol)
    assert (scene.num_vertices, scene.num_faces) == (len(x0), len(faces))
    expected, pairs = brute_force_toc(faces, x0, x1, tol)
    toc = scene.toc()
    assert expected is not None and toc is not None
    # both are conservative times of contact of the same first touch (within tolerance)
    assert abs(toc - expected) < 1e-5, (toc, expected)
    c = scene.contacts()
    assert set(c) == {"toc", "mesh_a", "mesh_b", "feature_a", "feature_b", "point_a", "point_b", "normal", "distance", "status"}
    assert bool(np.all(c["mesh_a"] == 0)) and bool(np.all(c["mesh_b"] == 0))
    k = len(c["toc"])
    assert 0 < k <= pairs
    assert np.all(np.diff(c["toc"]) >= 0)
    assert abs(c["toc"][0] - toc) < 1e-5
    assert c["feature_a"].shape == (k, 3) and c["point_a"].shape == (k, 3)
    assert set(np.unique(c["feature_a"][:, 0])) <= {0, 1, 2}
    assert np.all(c["distance"] <= tol * (1 + 1e-6))
    assert np.all(np.isin(c["status"], [ccd.CONVERGED, ccd.INITIALLY_TOUCHING, ccd.OUT_OF_ITERATIONS]))
    assert scene.collides()
    # parallel traversal gives the same global time
    par = ccd.DeformingScene(faces, x0, x1, tolerance=tol, parallel=True)
    assert par.toc() == toc


def test_update_moves_to_the_next_step():
    faces, x0, x1 = two_sheets(np.random.default_rng(4))
    scene = ccd.DeformingScene(faces, x0, x1)
    assert scene.toc() is not None
    lifted = x0 + [0, 0, 0]
    lifted[len(x0) // 2 :, 2] += 5.0  # the upper sheet far above, not moving
    scene.update(lifted, lifted)
    assert scene.toc() is None and not scene.collides()
    assert len(scene.contacts()["toc"]) == 0
    scene.update(x0, x1)
    assert scene.toc() == ccd.DeformingScene(faces, x0, x1).toc()


def test_self_collision_switch():
    # the two sheets are one mesh: their contacts are self-collisions of that mesh, and
    # turning self-collision off would test nothing: an error, never a silent None
    faces, x0, x1 = two_sheets(np.random.default_rng(5))
    assert ccd.DeformingScene(faces, x0, x1).toc() is not None
    with pytest.raises(ccd.CcdError, match="self_collision"):
        ccd.DeformingScene(faces, x0, x1, self_collision=False)


def split_sheets(faces, x0, x1):
    """The two sheets of :func:`two_sheets` as two objects."""
    k = len(x0) // 2
    m = len(faces) // 2
    return [(faces[:m], x0[:k], x1[:k]), (faces[m:] - k, x0[k:], x1[k:])]


@pytest.mark.parametrize("seed", [0, 1])
def test_several_objects_match_the_merged_mesh(seed):
    faces, x0, x1 = two_sheets(np.random.default_rng(seed))
    merged = ccd.DeformingScene(faces, x0, x1)
    objects = ccd.DeformingScene.from_meshes(split_sheets(faces, x0, x1))
    assert objects.num_meshes == 2 and objects.num_faces == merged.num_faces
    # the same pairs: a merged mesh's self pairs are the objects' own and mutual pairs
    assert objects.toc() == merged.toc()
    assert len(objects.contacts()["toc"]) == len(merged.contacts()["toc"])
    # self-collision off for both objects: only the pairs between them remain
    apart = ccd.DeformingScene.from_meshes(split_sheets(faces, x0, x1), self_collision=False)
    c = apart.contacts()
    assert len(c["toc"]) > 0 and bool(np.all(c["mesh_a"] != c["mesh_b"]))
    per = ccd.DeformingScene.from_meshes(split_sheets(faces, x0, x1), self_collision=[True, False])
    assert len(per.contacts()["toc"]) >= len(c["toc"])


def test_from_meshes_bad_input_names_the_argument():
    faces, x0, x1 = two_sheets(np.random.default_rng(0))
    parts = split_sheets(faces, x0, x1)
    with pytest.raises(ValueError, match=r"meshes\[1\]\.x1"):
        ccd.DeformingScene.from_meshes([parts[0], (parts[1][0], parts[1][1], parts[1][2][:-1])])
    with pytest.raises(ValueError, match=r"meshes\[0\] must be"):
        ccd.DeformingScene.from_meshes([(faces, x0)])
    with pytest.raises(ValueError, match="self_collision has 1 entries"):
        ccd.DeformingScene.from_meshes(parts, self_collision=[True])
    with pytest.raises(ValueError, match="meshes is empty"):
        ccd.DeformingScene.from_meshes([])
    with pytest.raises(ValueError, match="resting"):
        ccd.DeformingScene(faces, x0, x1, resting="ignore")
    with pytest.raises(ValueError, match="mesh 2 out of range"):
        ccd.DeformingScene.from_meshes(parts).update(x0, x1, mesh=2)


def all_pairs_distance(faces, x0, x1, t):
    """Distances of every non-adjacent vertex-face and edge-edge pair at time t (numpy)."""
    xt = x0 + t * (x1 - x0)
    out = []
    used = sorted({int(v) for f in faces for v in f})
    for v in used:
        others = np.array([f for f in faces if v not in f])
        if len(others):
            p = np.repeat(xt[v][None], len(others), axis=0)
            out.append(reference.point_triangle_distance(p, xt[others[:, 0]], xt[others[:, 1]], xt[others[:, 2]]))
    edges = sorted({tuple(sorted(e)) for f in faces for e in itertools.combinations(f, 2)})
    pairs = np.array([e + g for e, g in itertools.combinations(edges, 2) if not set(e) & set(g)])
    if len(pairs):
        out.append(reference.segment_segment_distance(xt[pairs[:, 0]], xt[pairs[:, 1]], xt[pairs[:, 2]], xt[pairs[:, 3]]))
    return np.concatenate(out)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("min_distance,scale", [(0.0, 0.2), (0.05, 0.1), (0.3, 0.5)])
def test_stepsize_keeps_the_separation_densely(seed, min_distance, scale):
    faces, x0, x1 = two_sheets(np.random.default_rng(seed), n=3)
    t = ccd.collision_free_stepsize(faces, x0, x1, min_distance=min_distance, scale=scale)
    assert 0.0 <= t <= 1.0
    d0 = all_pairs_distance(faces, x0, x1, 0.0)
    target = np.where(d0 > min_distance, np.maximum(min_distance, scale * d0), scale * d0)
    # safe: no pair below its target anywhere in [0, t]
    for s in np.linspace(0.0, t, 101):
        d = all_pairs_distance(faces, x0, x1, s)
        assert np.all(d >= target * (1 - 1e-9)), (s, t)
    # tight: shortly after t some pair is (nearly) at its target, unless t == 1
    if t < 1.0:
        gaps = [np.min(all_pairs_distance(faces, x0, x1, s) - target - 2e-3 * (d0 - target)) for s in np.linspace(t, min(1.0, t + 0.01), 11)]
        assert min(gaps) <= 0.0
    # the scene method gives the same step
    scene = ccd.DeformingScene(faces, x0, x1)
    assert scene.stepsize(min_distance=min_distance, scale=scale) == t


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"scale": 1.0}, "scale must be in"),
        ({"scale": 0.0}, "scale must be in"),
        ({"min_distance": -1.0}, "min_distance must be finite"),
        ({"min_distance": float("nan")}, "min_distance must be finite"),
        ({"rel_tolerance": 2.0}, "rel_tolerance must be in"),
        ({"max_iterations": 0}, "max_iterations"),
    ],
)
def test_stepsize_rejects_bad_rules(kwargs, match):
    faces, x0, x1 = two_sheets(np.random.default_rng(0), n=2)
    with pytest.raises(ccd.CcdError, match=match):
        ccd.collision_free_stepsize(faces, x0, x1, **kwargs)


def test_stepsize_bad_meshes_are_value_errors():
    faces, x0, x1 = two_sheets(np.random.default_rng(0), n=2)
    with pytest.raises(ValueError, match="x0 and x1 must have the same shape"):
        ccd.collision_free_stepsize(faces, x0, x1[:-1])
    bad = x1.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="non-finite"):
        ccd.collision_free_stepsize(faces, x0, bad)
    with pytest.raises(ccd.CcdError, match="refers to vertex"):
        ccd.collision_free_stepsize(faces + len(x0), x0, x1)
    # a zero-area triangle and coincident vertices at t = 0 are a documented answer: step 0
    # when a pair at distance 0 moves
    tri = np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0]])
    x0 = np.vstack([tri, tri])  # the second triangle coincides with the first
    x1 = np.vstack([tri, tri + [0, 0, 1.0]])
    assert ccd.collision_free_stepsize([[0, 1, 2], [3, 4, 5]], x0, x1) == 0.0
    flat = np.array([[0.0, 0, 0], [1, 0, 0], [2, 0, 0], [0, 0, 1], [1, 0, 1], [0, 1, 1]])
    t = ccd.collision_free_stepsize([[0, 1, 2], [3, 4, 5]], flat, flat - np.repeat([[0, 0, 0], [0, 0, 2]], 3, axis=0))
    assert 0.0 < t < 1.0


def test_resting_pairs_are_listed_apart_and_do_not_stall_toc():
    tri = np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0]])
    rest = tri + [0.2, 0.2, 1e-8]
    ground = ([[0, 1, 2]], tri, tri)
    sliding = ([[0, 1, 2]], rest, rest + [0.05, 0, 0])
    plain = ccd.DeformingScene.from_meshes([ground, sliding])
    assert plain.toc() == 0.0 and len(plain.resting()["toc"]) == 0
    apart = ccd.DeformingScene.from_meshes([ground, sliding], resting="separate")
    assert apart.toc() is None
    r = apart.resting()
    assert len(r["toc"]) > 0 and bool(np.all(r["distance"] < 1e-6))
    pressed = ([[0, 1, 2]], rest, rest - [0, 0, 1.0])
    toc = ccd.DeformingScene.from_meshes([ground, pressed], resting="separate").toc()
    assert 0.0 < toc <= 1e-8 / (1 + 1e-8)


@pytest.mark.parametrize(
    "obj",
    [ccd.DeformingScene.from_meshes, ccd.DeformingScene.stepsize, ccd.DeformingScene.resting],
    ids=lambda o: o.__name__,
)
def test_method_docstring_examples_run(obj):
    # test_docs collects module-level docstrings; these methods' examples run here
    test = doctest.DocTestParser().get_doctest(obj.__doc__, {}, obj.__name__, None, 0)
    assert test.examples
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0
