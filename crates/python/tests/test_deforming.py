"""ccd.DeformingScene: global ToC, all contacts and updates, checked against the vectorised
kernels over every non-adjacent feature pair (brute force)."""

import itertools

import numpy as np
import pytest

import ccd


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
    assert set(c) == {"toc", "feature_a", "feature_b", "point_a", "point_b", "normal", "distance", "status"}
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
    # the two sheets are one mesh: their contacts are self-collisions of that mesh
    faces, x0, x1 = two_sheets(np.random.default_rng(5))
    assert ccd.DeformingScene(faces, x0, x1).toc() is not None
    assert ccd.DeformingScene(faces, x0, x1, self_collision=False).toc() is None
