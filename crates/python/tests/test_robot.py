"""ccd.Robot: URDF (+ SRDF) loading, single edges (TOC and Boolean), batches of edges, the
real Panda from the shared data, and bad input."""

import math

import numpy as np
import pytest

import ccd
from conftest import cube, robot_dir

ARM_URDF = """<robot name="arm">
  <link name="base"><collision><geometry><box size="0.2 0.2 0.2"/></geometry></collision></link>
  <link name="bar"><collision><origin xyz="1 0 0"/><geometry><box size="2 0.1 0.1"/></geometry></collision></link>
  <link name="tip"><collision><origin xyz="0.25 0 0"/><geometry><box size="0.5 0.1 0.1"/></geometry></collision></link>
  <joint name="turn" type="continuous"><origin xyz="0 0 0.3"/><parent link="base"/><child link="bar"/>
    <axis xyz="0 0 1"/></joint>
  <joint name="bend" type="revolute"><origin xyz="2 0 0"/><parent link="bar"/><child link="tip"/>
    <axis xyz="0 0 1"/><limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
</robot>"""

ARM_SRDF = """<robot name="arm"><disable_collisions link1="base" link2="tip" reason="Never"/></robot>"""


@pytest.fixture
def arm(tmp_path):
    (tmp_path / "arm.urdf").write_text(ARM_URDF)
    (tmp_path / "arm.srdf").write_text(ARM_SRDF)
    return ccd.Robot.load(tmp_path / "arm.urdf", tmp_path / "arm.srdf")


@pytest.fixture
def post():
    """A 0.2-wide post standing at (1.5, 1.5), reached by the bar when `turn` ~ pi/4."""
    v, f = cube(0.1)
    return ccd.Mesh(v * [1, 1, 10] + [1.5, 1.5, 0.3], f)


def test_loads_names_and_dof(arm):
    assert arm.name == "arm" and arm.dof == 2
    assert arm.joint_names == ["turn", "bend"]
    assert arm.link_names == ["base", "bar", "tip"]
    assert "ccd.Robot('arm'" in repr(arm)


def test_edge_against_environment_toc_and_boolean(arm, post):
    free = arm.check_edge([0.0, 0.0], [0.5, 0.0], environment=post)
    assert free is None
    hit = arm.check_edge([0.0, 0.0], [1.5, 0.0], environment=post)
    assert hit is not None and hit.part_b == "environment" and hit.part_a in ("bar", "tip")
    # the bar's near edge reaches the post's corner before pi/4 of the 1.5 rad turn
    assert 0.2 < hit.toc < (math.pi / 4) / 1.5
    assert hit.contact.distance <= 1e-3 and hit.contact.status == "converged"
    assert hit.toc == hit.contact.toc
    assert arm.check_edge([0.0, 0.0], [1.5, 0.0], environment=post, boolean=True) is not None
    # without an environment nothing is hit
    assert arm.check_edge([0.0, 0.0], [1.5, 0.0]) is None


def test_self_collision_and_its_switch(arm):
    # the tip folds back onto the bar (bend -> 3 rad): a self contact of bar and tip is
    # filtered as adjacent; base-tip is disabled by the SRDF -> no self pair is left
    assert arm.check_edge([0.0, 0.0], [0.0, 3.0]) is None


def test_batch_of_edges_matches_single_edges(arm, post):
    rng = np.random.default_rng(1)
    q0 = rng.uniform(-0.5, 0.5, (64, 2))
    q1 = q0 + rng.uniform(0.0, 2.0, (64, 2)) * [1, 0.2]
    for boolean in (True, False):
        toc, status = arm.check_edges(q0, q1, environment=post, boolean=boolean)
        assert toc.shape == (64,) and status.dtype == np.uint8
        hits = 0
        for i in range(64):
            one = arm.check_edge(q0[i], q1[i], environment=post, boolean=boolean)
            assert (one is None) == np.isnan(toc[i]) == (status[i] == ccd.NO_CONTACT), i
            if one is not None:
                hits += 1
                assert one.toc == toc[i]
        assert 5 < hits < 60
    one_thread = arm.check_edges(q0, q1, environment=post, boolean=False, threads=1)
    np.testing.assert_array_equal(one_thread[0], arm.check_edges(q0, q1, environment=post, boolean=False)[0])


def test_bad_input(arm, post, tmp_path):
    with pytest.raises(ValueError, match=r"q0 must have shape \(2,\), got \(3,\)"):
        arm.check_edge([0, 0, 0], [0, 0])
    with pytest.raises(ValueError, match="non-finite"):
        arm.check_edge([0, np.nan], [0, 0])
    with pytest.raises(ccd.CcdError, match="limit"):
        arm.check_edge([0, 0], [0, 5.0])  # beyond the bend's limits
    with pytest.raises(ValueError, match=r"q1 must have shape \(N, 2\)"):
        arm.check_edges(np.zeros((3, 2)), np.zeros((3, 3)))
    with pytest.raises(ValueError, match="same shape"):
        arm.check_edges(np.zeros((3, 2)), np.zeros((4, 2)))
    with pytest.raises(ValueError, match="edge 1: .*limit"):
        arm.check_edges(np.zeros((3, 2)), [[0, 0], [0, 9], [0, 0]])
    with pytest.raises(TypeError):
        arm.check_edge([0, 0], [0, 0], environment="post")
    with pytest.raises(FileNotFoundError, match="URDF file .* does not exist"):
        ccd.Robot.load(tmp_path / "missing.urdf")
    (tmp_path / "a.urdf").write_text(ARM_URDF)
    with pytest.raises(FileNotFoundError, match="SRDF file"):
        ccd.Robot.load(tmp_path / "a.urdf", tmp_path / "missing.srdf")
    (tmp_path / "broken.urdf").write_text("<robot name='x'><link name='a'>")
    with pytest.raises(ccd.CcdError, match="broken.urdf|parse"):
        ccd.Robot.load(tmp_path / "broken.urdf")
    (tmp_path / "mesh.urdf").write_text(
        "<robot name='m'><link name='a'><collision><geometry><mesh filename='nope.stl'/>"
        "</geometry></collision></link></robot>"
    )
    with pytest.raises(ccd.CcdError, match="nope.stl"):
        ccd.Robot.load(tmp_path / "mesh.urdf")


PANDA = robot_dir("panda")
READY = [0.0, -math.pi / 4, 0.0, -3 * math.pi / 4, 0.0, math.pi / 2, math.pi / 4]
FOLDED = [0.9597538034, -1.6311082632, -1.4391236776, -2.928121278, -1.3434548316, 1.96276413, -2.5193819826]


@pytest.mark.skipif(not (PANDA / "urdf" / "panda.urdf").is_file(), reason="needs ../shared/data/robots/panda or `cargo xtask robots`")
def test_panda_from_urdf_and_srdf():
    robot = ccd.Robot.load(
        PANDA / "urdf" / "panda.urdf",
        PANDA / "srdf" / "panda.srdf",
        packages={"example-robot-data/robots/panda_description": PANDA},
    )
    assert robot.dof == 9 and len(robot.link_names) == 13

    def q(arm):
        out = np.zeros(robot.dof)
        for k, v in enumerate(arm):
            out[robot.joint_names.index(f"panda_joint{k + 1}")] = v
        return out

    assert robot.check_edge(q(READY), q(READY)) is None
    hit = robot.check_edge(q(READY), q(FOLDED))
    assert hit is not None and hit.part_b != "environment"
    assert hit.contact.distance <= 1e-3
    # a table just below the hand's reach in the ready pose, as the environment
    v, f = cube(1.0)
    table = ccd.Mesh(v * [1, 1, 0.05] + [0.5, 0, -0.2], f)
    toc, status = robot.check_edges(np.array([q(READY)] * 2), np.array([q(READY), q(FOLDED)]), environment=table)
    assert status[0] == ccd.NO_CONTACT and status[1] != ccd.NO_CONTACT
