"""The python-fcl comparison bench (benches/vs_fcl.py) in its quick mode: ccd is correct on
every case of its dense / analytic reference. Correctness only, never timing; python-fcl's
own answers are printed by the bench, not asserted (they are its business)."""

import importlib.util

import numpy as np
import pytest

import ccd
from conftest import REPO

BENCH = REPO / "crates" / "python" / "benches" / "vs_fcl.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("vs_fcl", BENCH)
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


def test_quick_run_ccd_correct_everywhere(bench):
    rows = bench.run(quick=True, repeats=1)
    kinds = [r["kind"] for r in rows]
    assert kinds[0] == "continuous, meshes"
    assert sum(k.startswith("collide, ") for k in kinds) == 5
    assert sum(k.startswith("distance, ") for k in kinds) == 5
    for r in rows:
        assert r["cases"] >= 5, r["kind"]
        assert r["correct"]["ccd"] == r["cases"], (r["kind"], r.get("details"))
    cont = rows[0]
    refs = {d["case"]: d["reference_toc"] for d in cont["details"]}
    # the reference sees the contacts and the miss it is built with
    assert refs["sphere over a cube (miss by 0.05)"] is None
    assert abs(refs["spheres head-on"] - 1 / 3) < 0.01
    assert refs["small sphere through thin plate"] is not None
