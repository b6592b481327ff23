"""ccd.PlanningScene: objects with poses, attached objects, allowed-collision overrides,
edge / path / batch / in_collision / clearance queries (checked against dense sampling and
against Robot.check_edge), threads, and bad input (PlanningSceneError naming the argument)."""

import concurrent.futures
import math

import numpy as np
import pytest

import ccd
from conftest import cube, shared_dir

ARM_URDF = """<robot name="arm">
  <link name="base"><collision><geometry><box size="0.2 0.2 0.2"/></geometry></collision></link>
  <link name="bar"><collision><origin xyz="1 0 0"/><geometry><box size="2 0.1 0.1"/></geometry></collision></link>
  <link name="tip"><collision><origin xyz="0.25 0 0"/><geometry><box size="0.5 0.1 0.1"/></geometry></collision></link>
  <joint name="turn" type="revolute"><origin xyz="0 0 0.3"/><parent link="base"/><child link="bar"/>
    <axis xyz="0 0 1"/><limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <joint name="bend" type="revolute"><origin xyz="2 0 0"/><parent link="bar"/><child link="tip"/>
    <axis xyz="0 0 1"/><limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
</robot>"""


def at(x, y, z):
    m = np.eye(4)
    m[:3, 3] = [x, y, z]
    return m


@pytest.fixture
def urdf(tmp_path):
    (tmp_path / "arm.urdf").write_text(ARM_URDF)
    return tmp_path / "arm.urdf"


@pytest.fixture
def scene(urdf):
    s = ccd.PlanningScene()
    s.add_robot(urdf)
    v, f = cube(0.1)
    s.add_object("post", mesh=ccd.Mesh(v * [1, 1, 10], f), pose=at(1.5, 1.5, 0.3))
    s.add_object("ball", sphere=0.2, pose=at(-1.2, -1.2, 0.3))
    s.add_object("pillar", cylinder=(0.1, 2.0), pose=at(0.0, -2.2, 0.3))
    return s


def test_edges_paths_and_names(scene):
    assert scene.joint_names == ["turn", "bend"] and scene.dof == 2
    assert set(scene.part_names) >= {"bar", "tip", "post", "ball", "pillar"}
    assert scene.check_edge([0, 0], [0.3, 0]) is None
    hit = scene.check_edge([0, 0], [1.5, 0])
    assert hit.part_a in ("bar", "tip") and hit.part_b == "post" and 0 < hit.toc < 1
    assert scene.check_edge([0, 0], [-2.0, 0]).part_b in ("ball", "pillar")
    found = scene.check_path([[0, 0], [0.3, 0], [1.5, 0]])
    assert found.segment == 1 and found.toc == pytest.approx(hit.toc * 1.5 / 1.2 - 0.3 / 1.2, abs=0.02)
    assert scene.check_path(np.array([[0, 0], [0.3, 0], [0.0, 0.5]])) is None
    toc, status, a, b = scene.check_edges(np.zeros((3, 2)), [[0.3, 0], [1.5, 0], [-2.0, 0]], boolean=False)
    assert math.isnan(toc[0]) and status[0] == ccd.NO_CONTACT and a[0] is None
    assert toc[1] == hit.toc and (a[1], b[1]) == (hit.part_a, "post")


def test_path_against_dense_sampling(scene):
    rng = np.random.default_rng(3)
    for _ in range(10):
        w = rng.uniform(-3, 3, (3, 2))
        found = scene.check_path(w)
        for seg in range(2):
            for t in np.linspace(0, 1, 61):
                if found is not None and (seg, t) >= (found.segment, found.toc):
                    break
                q = w[seg] + t * (w[seg + 1] - w[seg])
                assert scene.clearance(q).distance > 0, (seg, t, found)
        if found is not None and found.contact.status == "converged":
            q = w[found.segment] + found.toc * (w[found.segment + 1] - w[found.segment])
            assert scene.clearance(q).distance <= 1.001e-3
            assert scene.in_collision(q)


def test_clearance_and_in_collision(scene):
    c = scene.clearance([0.0, 0.0])
    assert c.distance > 0.1 and c.part_a in ("bar", "tip", "base")
    assert np.linalg.norm(c.point_a - c.point_b) == pytest.approx(c.distance)
    assert not scene.in_collision([0.0, 0.0])
    assert scene.in_collision([0.0, 0.0], tolerance=c.distance * 1.01)
    assert not scene.in_collision([0.0, 0.0], tolerance=c.distance * 0.99)


def test_attached_objects_and_overrides(urdf):
    s = ccd.PlanningScene()
    s.add_robot(urdf)
    # folding the tip back onto the bar's far half: adjacent, so never tested ...
    assert s.check_edge([0, 0], [0, 2.9]) is None
    # ... unless the override forbids (re-enables) the pair
    s.set_allowed("bar", "tip", False)
    assert s.in_collision([0, 0])  # they touch at the joint
    s.set_allowed("bar", "tip", True)
    # a rod held at the tip's end, swinging back onto the base
    s.attach_object("rod", "tip", box=(1.0, 0.05, 0.05), pose=at(0.6, 0, 0))
    assert "rod" in s.part_names
    hit = s.check_edge([0, 0], [0, 2.9])
    assert hit is not None and "rod" in (hit.part_a, hit.part_b)
    s.set_allowed("rod", hit.part_a if hit.part_b == "rod" else hit.part_b, True)
    s.detach_object("rod")
    assert s.check_edge([0, 0], [0, 2.9]) is None


def test_robot_check_edge_matches_the_planning_scene(urdf, scene):
    robot = ccd.Robot.load(urdf)
    v, f = cube(0.1)
    post = ccd.Mesh(v * [1, 1, 10] + [1.5, 1.5, 0.3], f)
    s = ccd.PlanningScene()
    s.add_robot(urdf)
    s.add_object("post", mesh=post)
    rng = np.random.default_rng(5)
    for _ in range(30):
        q0, q1 = rng.uniform(-3, 3, 2), rng.uniform(-3, 3, 2)
        a = robot.check_edge(q0, q1, environment=post)
        b = s.check_edge(q0, q1)
        assert (a is None) == (b is None)
        if a is not None:
            assert a.toc == b.toc and a.part_a == b.part_a


def test_threads_share_one_scene(scene):
    rng = np.random.default_rng(9)
    edges = [(rng.uniform(-3, 3, 2), rng.uniform(-3, 3, 2)) for _ in range(40)]

    def answers():
        out = []
        for q0, q1 in edges:
            hit = scene.check_edge(q0, q1)
            out.append(None if hit is None else (hit.toc, hit.part_a, hit.part_b))
        return out

    one = answers()
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        for got in pool.map(lambda _: answers(), range(4)):
            assert got == one


def test_bad_input_names_the_argument(scene, urdf, tmp_path):
    E = ccd.PlanningSceneError
    assert issubclass(E, ccd.CcdError) and issubclass(E, ValueError)
    with pytest.raises(E, match="link_b \"nope\""):
        scene.set_allowed("bar", "nope")
    with pytest.raises(E, match="link \"post\""):
        scene.attach_object("x", "post", sphere=0.1)
    with pytest.raises(E, match="touch_links"):
        scene.attach_object("x", "tip", sphere=0.1, touch_links=["ghost"])
    with pytest.raises(E, match="waypoints has 1 rows"):
        scene.check_path([[0.0, 0.0]])
    with pytest.raises(E, match=r"waypoints\[0\] has 3 values"):
        scene.check_path([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    with pytest.raises(E, match=r"(?i)q1\[1\] = nan \(joint \"bend\"\)"):
        scene.check_edge([0, 0], [0, float("nan")])
    with pytest.raises(E, match=r"q0\[0\] = 3.5 .*limits \[-3, 3\]"):
        scene.check_edge([3.5, 0], [0, 0])  # not clamped
    with pytest.raises(E, match=r"q has 1 values"):
        scene.in_collision([0.0])
    with pytest.raises(E, match=r"q1\[2\]"):
        scene.check_edges(np.zeros((3, 2)), [[0, 0], [0, 0], [0, 9]])
    with pytest.raises(E, match="exactly one of mesh, box, sphere, cylinder"):
        scene.add_object("two", sphere=0.1, box=(1, 1, 1))
    with pytest.raises(E, match="sphere radius"):
        scene.add_object("neg", sphere=-0.1)
    with pytest.raises(E, match="already taken"):
        scene.add_object("post", sphere=0.1)
    with pytest.raises(E, match="not a finite rigid"):
        scene.add_object("skew", sphere=0.1, pose=np.diag([2.0, 1, 1, 1]))
    with pytest.raises(ValueError, match="pose must have shape"):
        scene.add_object("bad", sphere=0.1, pose=np.eye(3))
    with pytest.raises(E, match="not an environment object"):
        scene.remove_object("ghost")
    with pytest.raises(E, match="no robot"):
        ccd.PlanningScene().check_edge([], [])
    with pytest.raises(FileNotFoundError):
        ccd.PlanningScene().add_robot(tmp_path / "missing.urdf")


PANDA = shared_dir() / "data" / "robots" / "panda"


@pytest.mark.skipif(not (PANDA / "urdf" / "panda.urdf").is_file(), reason="needs ../shared/data/robots/panda")
def test_panda_planning_scene_matches_robot():
    kw = dict(packages={"example-robot-data/robots/panda_description": PANDA})
    robot = ccd.Robot.load(PANDA / "urdf" / "panda.urdf", PANDA / "srdf" / "panda.srdf", **kw)
    s = ccd.PlanningScene()
    s.add_robot(PANDA / "urdf" / "panda.urdf", PANDA / "srdf" / "panda.srdf", **kw)
    assert s.joint_names == robot.joint_names
    v, f = cube(1.0)
    table = ccd.Mesh(v * [1, 1, 0.05] + [0.5, 0, -0.2], f)
    s.add_object("table", mesh=table)
    rng = np.random.default_rng(1)
    lo = np.array([-2.8, -1.7, -2.8, -3.0, -2.8, 0.0, -2.8, 0.0, 0.0])
    hi = np.array([2.8, 1.7, 2.8, -0.1, 2.8, 3.7, 2.8, 0.04, 0.04])
    q0, q1 = rng.uniform(lo, hi, (20, 9)), rng.uniform(lo, hi, (20, 9))
    t_robot, s_robot = robot.check_edges(q0, q1, environment=table, boolean=False)
    t_scene, s_scene, _, _ = s.check_edges(q0, q1, boolean=False)
    np.testing.assert_array_equal(t_robot, t_scene)
    np.testing.assert_array_equal(s_robot, s_scene)
