"""The python-fcl peer harness (benches/peers/rigid_fcl.py, `cargo xtask peers`) in its quick
mode: ccd has no miss, no late answer and no false alarm on every case of its dense /
analytic reference, and the fairness checks hold. Correctness only, never timing;
python-fcl's own answers are data of the report, not asserted (they are its business)."""

import importlib.util

import numpy as np
import pytest

import ccd
from conftest import REPO

BENCH = REPO / "benches" / "peers" / "rigid_fcl.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("rigid_fcl", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_reference_distance_is_exact(bench):
    """The brute-force mesh distance against closed forms: two cubes apart face to face, a
    vertex over a face, edges crossed, and a crossing (distance 0)."""
    v, f = bench.box_mesh([1, 1, 1])
    cube = bench.RefMesh(v, f)
    E = np.eye(4)
    poses = np.stack([
        bench.pose(t=[1.3, 0.2, 0.1]),                                        # faces 0.3 apart
        bench.pose(bench.rot([1, 0, 0], np.pi / 4), [0, 0, 0.5 + np.sqrt(2) / 2 + 0.2]),  # an edge 0.2 over a face
        bench.pose(t=[1.2, 1.2, 1.2]),                                        # corner to corner
        bench.pose(t=[0.5, 0.5, 0.5]),                                        # overlapping
    ])
    d = bench.mesh_distance(cube, E, cube, poses)
    assert abs(d[0] - 0.3) < 1e-12
    assert abs(d[1] - 0.2) < 1e-9
    assert abs(d[2] - 0.2 * np.sqrt(3)) < 1e-9
    assert d[3] == 0.0
    # the analytic distances agree with ccd.distance on random poses
    rng = np.random.default_rng(5)
    import fcl

    ball, box = bench.Pair(fcl, "ball", r=0.3), bench.Pair(fcl, "box", e=[1.0, 0.6, 0.4])
    for _ in range(20):
        pa = bench.pose(bench.random_rotation(rng), rng.uniform(-0.1, 0.1, 3))
        pb = bench.pose(bench.random_rotation(rng), rng.uniform(-1, 1, 3))
        ref = bench.reference_distance(box, pa, ball, pb)
        assert abs(ccd.distance(box.ccd, pa, ball.ccd, pb).distance - ref) < 1e-9


def test_motion_of_the_reference_is_ccds(bench):
    p0 = bench.pose(bench.rot([1, 2, 3], 0.4), [1, 2, 3])
    p1 = bench.pose(bench.rot([3, -1, 0], 2.5), [-1, 0, 2])
    m = ccd.Motion(p0, p1)
    for t in (0.0, 0.2, 0.5, 0.9, 1.0):
        assert np.allclose(m.pose_at(t), bench.motion_poses(p0, p1, [t])[0], atol=1e-9)


def test_box_and_icosphere_meshes(bench):
    """The harness's own box and icosphere: closed, outward, the stated sizes."""
    for v, f in (bench.box_mesh([1.0, 0.6, 0.4]), bench.sphere_mesh(0.5)):
        # closed: every edge in exactly two triangles, once each way
        edges = {}
        for a, b, c in f:
            for e in ((a, b), (b, c), (c, a)):
                edges[e] = edges.get(e, 0) + 1
        assert all(edges.get((b, a)) == 1 and n == 1 for (a, b), n in edges.items())
        # outward: positive volume
        vol = sum(np.dot(v[a], np.cross(v[b], v[c])) for a, b, c in f) / 6
        assert vol > 0
    v, f = bench.sphere_mesh(0.5)
    assert len(f) == 80 and np.allclose(np.linalg.norm(v, axis=1), 0.5)
    v, f = bench.box_mesh([1.0, 0.6, 0.4])
    assert len(f) == 12 and np.allclose(v.max(0), [0.5, 0.3, 0.2])


def test_quick_run_ccd_correct_everywhere(bench):
    families, details = bench.run(quick=True, repeats=1)
    assert [f["family"] for f in families] == ["rigid-meshes", "analytic-shapes"]
    meshes, analytic = families
    assert sum(r["workload"].startswith("collide, ") and r["is_ccd"] for r in analytic["rows"]) == 5
    for f in families:
        ccd_rows = [r for r in f["rows"] if r["is_ccd"]]
        assert len(ccd_rows) >= 5, f["family"]
        for r in ccd_rows:
            assert r["skipped"] is None, r
            assert (r["misses"], r["late"] or 0, r["false_alarms"]) == (0, 0, 0), (r, details)
            assert r["median_us"] > 0
        # every fcl row is there, timed or skipped with its reason
        for r in f["rows"]:
            assert r["skipped"] or r["median_us"] is not None
        assert f["checks"] and all(c["passed"] for c in f["checks"]), f["checks"]
    refs = {d["case"]: d["reference_toc"] for d in details}
    # the reference sees the contacts and the misses it is built with
    assert refs["sphere over a cube (miss by 0.05)"] is None
    assert refs["ball-ball near miss (0.01)"] is None
    assert abs(refs["spheres head-on"] - 1 / 3) < 0.01
    assert refs["small sphere through thin plate"] is not None
