"""OMPL (`pip install ompl`) with a ccd-backed motion validator: the example
`examples/ompl_validator.py` plans seeded RRTConnect queries for the Panda in clutter;
every path the ccd validator accepts is collision-free under a dense check. Timing is
reported by the example, never asserted here."""

import importlib.util
import json
import pathlib

import numpy as np
import pytest

from conftest import robot_dir

# a missing OMPL fails here (the test scripts install it), it is not skipped
import ompl.base as ob  # noqa: E402

EXAMPLE = pathlib.Path(__file__).resolve().parents[1] / "examples" / "ompl_validator.py"
PANDA = robot_dir("panda")


def _example():
    spec = importlib.util.spec_from_file_location("ompl_validator", EXAMPLE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_panda_is_there():
    # the robot tests must not pass vacuously: the Panda is required
    assert (PANDA / "urdf" / "panda.urdf").is_file(), f"{PANDA}: run `cargo xtask robots`"


def test_ccd_validated_paths_are_collision_free(tmp_path):
    ex = _example()
    ex.panda_dir = lambda: PANDA
    rows = ex.main(["--queries", "3", "--seed", "5", "--time-limit", "20", "--out", str(tmp_path)])
    ccd_row = next(r for r in rows if r["validator"] == "ccd")
    assert ccd_row["solved"] >= 1, rows
    assert ccd_row["paths_colliding_dense"] == 0, rows
    report = json.loads((tmp_path / "ompl.json").read_text())
    ccd_queries = [q for q in report["queries"] if q["validator"] == "ccd" and q["solved"]]
    assert ccd_queries and all(not q["collides"] for q in ccd_queries)
    assert all(q["motion_checks"] > 0 for q in ccd_queries)
    assert "| ccd" in (tmp_path / "ompl.md").read_text()


def test_check_motion_and_the_last_valid_state():
    ex = _example()
    scene = ex.build_scene(PANDA, seed=5)
    problem = ex.Problem(scene, ex.arm_limits(PANDA / "urdf" / "panda.urdf"))
    space = ob.RealVectorStateSpace(7)
    bounds = ob.RealVectorBounds(7)
    for i, (lo, hi) in enumerate(problem.limits):
        bounds.setLow(i, lo)
        bounds.setHigh(i, hi)
    space.setBounds(bounds)
    si = ob.SpaceInformation(space)
    si.setStateValidityChecker(problem.valid)
    mv = ex.CcdMotionValidator(si, problem)
    si.setMotionValidator(mv)
    si.setup()
    rng = np.random.default_rng(11)
    blocked = free = 0
    for _ in range(40):
        a, b = problem.random_valid(rng), problem.random_valid(rng)
        s1, s2 = space.allocState(), space.allocState()
        for i in range(7):
            s1[i], s2[i] = float(a[i]), float(b[i])
        ok = mv.checkMotion(s1, s2)
        valid, q_last, fraction = mv.last_valid(s1, s2)
        assert ok == valid
        # OMPL's own entry point reaches the Python override
        assert si.checkMotion(s1, s2) == ok
        if ok:
            free += 1
            assert not problem.dense_collides(np.array([a, b]), 0.01)
            continue
        blocked += 1
        assert 0.0 <= fraction <= 1.0
        assert np.allclose(q_last, a + (b - a) * fraction)
        # every pose before the toc is free; the pose at the toc is within the tolerance
        if fraction > 0:
            assert not problem.dense_collides(np.array([a, a + (b - a) * fraction * (1 - 1e-9)]), 0.01)
        assert scene.in_collision(problem.q(q_last), tolerance=1.001e-3)
    assert blocked > 0 and free > 0, (blocked, free)
