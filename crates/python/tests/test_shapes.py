"""Shapes, poses, motions and the rigid queries on every pair of shapes (toc, collide,
distance, toc_batch), checked against closed forms and dense sampling (reference.py-style
numpy oracles), and the collision manager."""

import math
import pickle

import numpy as np
import pytest

import ccd
from conftest import TETRA_F, TETRA_V, cube

EYE = np.eye(4)


def at(x=0.0, y=0.0, z=0.0):
    m = np.eye(4)
    m[:3, 3] = (x, y, z)
    return m


def rot_z(angle):
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])


def all_shapes():
    """One of each shape kind, each with half-width 0.5 along x (so a second copy at
    x = 1 + gap is `gap` away along x)."""
    v, f = cube(0.5)
    return {
        "ball": ccd.Ball(0.5),
        "capsule": ccd.Capsule(0.5, 1.0),  # along z
        "box": ccd.Box([1.0, 1.0, 1.0]),
        "cylinder": ccd.Cylinder(0.5, 1.0),  # along z
        "convex": ccd.Convex(v),
        "compound": ccd.Compound([(ccd.Ball(0.5), EYE), (ccd.Box([0.2, 0.2, 0.2]), at(0, 0, 2))]),
        "mesh": ccd.Mesh(v, f),
    }


SHAPES = list(all_shapes())


@pytest.mark.parametrize("kind_a", SHAPES)
@pytest.mark.parametrize("kind_b", SHAPES)
def test_every_pair_distance_collide_toc(kind_a, kind_b):
    shapes = all_shapes()
    a, b = shapes[kind_a], shapes[kind_b]
    # 0.3 apart along x
    d = ccd.distance(a, EYE, b, at(1.3))
    assert d.distance == pytest.approx(0.3, abs=1e-9), (kind_a, kind_b, d)
    assert np.linalg.norm(d.point_b - d.point_a) == pytest.approx(d.distance, abs=1e-9)
    assert d.point_a[0] == pytest.approx(0.5, abs=1e-9) and d.point_b[0] == pytest.approx(0.8, abs=1e-9)
    assert float(d) == d.distance
    assert ccd.collide(a, EYE, b, at(1.3)) is None
    c = ccd.collide(a, EYE, b, at(0.9))
    assert c is not None and c.status == "initially_touching" and c.toc == 0.0
    # B flies from x = 3.3 to x = -0.7: touches when at x = 1, t = 2.3 / 4
    c = ccd.toc(a, EYE, b, ccd.Motion(at(3.3), at(-0.7)), tolerance=1e-4)
    assert c is not None and c.status == "converged"
    assert 2.3 / 4 - 1e-4 / 4 - 1e-12 <= c.toc <= 2.3 / 4 + 1e-12
    assert c.distance <= 1e-4
    # flying past above (z = 3.5; the compound's top box reaches z = 2.1, B's top 2.1 + ... )
    assert ccd.toc(a, EYE, b, ccd.Motion(at(3.3, 0, 5), at(-3.3, 0, 5))) is None


def test_distance_witnesses_against_sampling():
    """Box-capsule at a random-ish rotation: the distance matches a dense sampling of both
    surfaces (within the sampling step) and never exceeds it."""
    rng = np.random.default_rng(3)
    box, cap = ccd.Box([1.0, 2.0, 0.5]), ccd.Capsule(0.3, 1.0)
    for _ in range(5):
        angle = rng.uniform(0, 2 * np.pi)
        t = rng.uniform(-1.0, 1.0, 3) + np.array([2.5, 0, 0])
        d = ccd.distance(box, EYE, cap, (rot_z(angle), t))
        # sample the capsule's axis and the box's volume boundary: distance from segment
        # points to the box minus the radius
        seg = np.array([[0, 0, -0.5], [0, 0, 0.5]])
        ts = np.linspace(0, 1, 2001)[:, None]
        pts = (seg[0] + ts * (seg[1] - seg[0])) @ rot_z(angle).T + t
        h = np.array([0.5, 1.0, 0.25])
        q = np.clip(pts, -h, h)
        sampled = np.min(np.linalg.norm(pts - q, axis=1)) - 0.3
        assert d.distance <= sampled + 1e-12
        assert d.distance >= sampled - 1e-3


def test_convex_and_compound_parts_are_reported():
    dumbbell = ccd.Compound(
        [(ccd.Box([2.0, 0.2, 0.2]), EYE), (ccd.Ball(0.3), at(-1)), (ccd.Ball(0.3), at(1))]
    )
    assert len(dumbbell) == 3 and len(dumbbell.parts) == 3
    d = ccd.distance(dumbbell, EYE, ccd.Ball(0.5), at(2.3))
    assert d.part_a == 2 and d.distance == pytest.approx(0.5)
    d = ccd.distance(ccd.Ball(0.5), at(-2.3), dumbbell, EYE)
    assert d.part_b == 1 and d.part_a == 0
    c = ccd.toc(dumbbell, EYE, ccd.Ball(0.5), ccd.Motion(at(-3), at(3)))
    assert c.part_a == 1
    # nested compounds are flattened
    nested = ccd.Compound([(dumbbell, at(0, 5, 0)), (ccd.Ball(1.0), EYE)])
    assert len(nested) == 4


def test_mesh_distance_features_are_mesh_ids():
    tetra = ccd.Mesh(TETRA_V, TETRA_F)
    # a ball above the apex (vertex 3 at z = 1)
    d = ccd.distance(tetra, EYE, ccd.Ball(0.5), at(0, 0, 3))
    assert d.distance == pytest.approx(1.5)
    assert d.feature_a == ("vertex", 3) and d.feature_b == ("face", 0)
    d = ccd.distance(ccd.Ball(0.5), at(0, 0, 3), tetra, EYE)
    assert d.feature_b == ("vertex", 3)


def test_meshes_are_surfaces():
    v, f = cube(2.0)
    big = ccd.Mesh(v, f)
    # a small ball inside the closed mesh touches nothing
    assert ccd.collide(big, EYE, ccd.Ball(0.1), EYE) is None
    assert ccd.distance(big, EYE, ccd.Ball(0.1), EYE).distance == pytest.approx(1.9)


class DuckMesh:
    def __init__(self, vertices, faces):
        self.vertices, self.faces = vertices, faces


def test_duck_typed_meshes_everywhere():
    v, f = cube(0.5)
    duck = DuckMesh(v, f)
    assert ccd.distance(duck, EYE, ccd.Ball(0.5), at(2)).distance == pytest.approx(1.0)
    assert ccd.toc(duck, EYE, duck, ccd.Motion(at(3), at(-3))).toc == pytest.approx(1 / 3, abs=1e-3)
    mesh = ccd.Mesh.from_trimesh(duck)
    assert (mesh.num_vertices, mesh.num_faces) == (8, 12)
    comp = ccd.Compound([(duck, EYE)])
    assert ccd.collide(comp, EYE, mesh, at(0.9)) is not None
    world = ccd.World()
    world.add(duck, EYE)


def test_trimesh_interop():
    """Requires trimesh (installed by .ci/python and .ci/wheel): not skipped when missing."""
    import trimesh

    box = trimesh.creation.box(extents=[1.0, 1.0, 1.0])
    mesh = ccd.Mesh.from_trimesh(box)
    assert mesh.num_faces == len(box.faces)
    sphere = trimesh.creation.icosphere(subdivisions=2, radius=0.5)
    d = ccd.distance(box, EYE, sphere, at(2.0))
    assert d.distance == pytest.approx(1.0, abs=1e-9)
    # the analytic ball is the icosphere's circumscribed ball: never farther
    assert ccd.distance(box, EYE, ccd.Ball(0.5), at(2.0)).distance <= d.distance
    c = ccd.toc(box, EYE, sphere, ccd.Motion(at(3), at(-3)))
    assert c.toc == pytest.approx(2 / 6, abs=1e-3)


@pytest.mark.parametrize(
    "pose",
    [
        at(1, 2, 3),
        at(1, 2, 3)[:3],
        (np.eye(3), [1, 2, 3]),
        ([0, 0, 0, 1], [1, 2, 3]),
        [[0, 0, 0, 1], (1, 2, 3)],
        ([0, 0, 0, 1.0004], [1, 2, 3]),  # normalised (within 1e-3 of unit)
    ],
)
def test_pose_forms_agree(pose):
    d = ccd.distance(ccd.Ball(0.5), EYE, ccd.Ball(0.5), pose)
    assert d.distance == pytest.approx(math.sqrt(14) - 1.0)
    assert np.allclose(ccd.Motion(pose).pose_at(0.3), at(1, 2, 3))


def test_quaternion_order_is_xyzw():
    # a quarter turn about z, scalar last: [0, 0, sin(pi/4), cos(pi/4)]
    q = [0, 0, math.sin(math.pi / 4), math.cos(math.pi / 4)]
    m = ccd.Motion((q, [0, 0, 0])).pose_at(0)
    assert np.allclose(m[:3, :3], rot_z(math.pi / 2))
    try:
        from scipy.spatial.transform import Rotation
    except ImportError:  # scipy is not a test dependency: the closed form above is the check
        return
    assert np.allclose(Rotation.from_quat(q).as_matrix(), m[:3, :3])


def test_motion_any_angle_and_pose_at():
    # 2.5 turns about z while moving along x: the short-way motion between the end poses
    # would turn by half a turn at most
    m = ccd.Motion.from_velocities(EYE, linear=[2, 0, 0], angular=[0, 0, 5 * math.pi])
    for t in np.linspace(0, 1, 11):
        p = m.pose_at(t)
        assert np.allclose(p[:3, :3], rot_z(5 * math.pi * t), atol=1e-12)
        assert np.allclose(p[:3, 3], [2 * t, 0, 0])
    assert np.allclose(m.angular_velocity, [0, 0, 5 * math.pi])
    assert np.allclose(m.start, EYE) and np.allclose(m.end, m.pose_at(1.0))
    # a bar spinning 2.5 turns hits a post the short way would miss: post at (0, 1.5),
    # bar of half length 2 along x
    bar = ccd.Box([4.0, 0.1, 0.1])
    post = ccd.Ball(0.1)
    spin = ccd.Motion.from_velocities(EYE, angular=[0, 0, 5 * math.pi])
    assert ccd.toc(bar, spin, post, at(0, 1.5)) is not None
    # with a centre: rolling wheel
    wheel = ccd.Motion.from_velocities(EYE, linear=[2 * math.pi, 0, 0], angular=[0, 0, -2 * math.pi], center=[0, 1, 0])
    assert np.allclose(wheel.pose_at(1.0)[:3, 3], [2 * math.pi, 0, 0], atol=1e-9)


def test_toc_is_conservative_against_dense_sampling():
    """A tumbling capsule passing a box: toc is never later than the first sampled contact
    and the shapes are within the tolerance at toc."""
    box, cap = ccd.Box([1.0, 1.0, 1.0]), ccd.Capsule(0.2, 1.5)
    motion = ccd.Motion.from_velocities(at(-3, 0.3, 0), linear=[6, 0, 0], angular=[0, 7.0, 3.0])
    c = ccd.toc(box, EYE, cap, motion, tolerance=1e-4)
    ts = np.linspace(0, 1, 4001)
    dists = np.array([ccd.distance(box, EYE, cap, motion.pose_at(t)).distance for t in ts])
    first = ts[np.argmax(dists <= 0)] if (dists <= 0).any() else None
    assert c is not None and first is not None
    assert c.toc <= first + 1e-12
    assert ccd.distance(box, EYE, cap, motion.pose_at(c.toc)).distance <= 1e-4 + 1e-12
    assert (dists[ts < c.toc] > 0).all()


def test_toc_batch_matches_single_queries():
    rng = np.random.default_rng(0)
    n = 50
    a0 = np.tile(EYE, (n, 1, 1))
    b0 = np.tile(EYE, (n, 1, 1))
    b1 = np.tile(EYE, (n, 1, 1))
    b0[:, :3, 3] = rng.uniform(-3, 3, (n, 3))
    b1[:, :3, 3] = rng.uniform(-3, 3, (n, 3))
    box, cyl = ccd.Box([1, 1, 1]), ccd.Cylinder(0.3, 1.0)
    toc, status = ccd.toc_batch(box, a0, EYE, cyl, b0, b1, threads=2)
    assert toc.shape == (n,) and status.dtype == np.uint8
    for i in range(n):
        c = ccd.toc(box, a0[i], cyl, ccd.Motion(b0[i], b1[i]))
        if c is None:
            assert status[i] == ccd.NO_CONTACT and np.isnan(toc[i])
        else:
            assert toc[i] == c.toc
            assert status[i] == {"converged": ccd.CONVERGED, "initially_touching": ccd.INITIALLY_TOUCHING}[c.status]
    assert (status != 0).sum() > 5


def test_pickle_shapes():
    for name, s in all_shapes().items():
        s2 = pickle.loads(pickle.dumps(s))
        assert type(s2) is type(s)
        assert ccd.distance(s, EYE, ccd.Ball(0.5), at(3)).distance == pytest.approx(
            ccd.distance(s2, EYE, ccd.Ball(0.5), at(3)).distance
        ), name


def test_world_matches_pairwise_loop():
    """40 bodies: the manager's contacts are the pairs a Python loop over all 780 pairs
    finds, with the same times."""
    rng = np.random.default_rng(7)
    shapes = [ccd.Ball(0.3), ccd.Box([0.5, 0.4, 0.3]), ccd.Capsule(0.2, 0.5), ccd.Cylinder(0.25, 0.5)]
    world = ccd.World(tolerance=1e-4)
    bodies = []
    for i in range(40):
        start = at(*rng.uniform(-4, 4, 3))
        m = ccd.Motion.from_velocities(start, linear=rng.uniform(-2, 2, 3), angular=rng.uniform(-3, 3, 3))
        s = shapes[i % 4]
        bodies.append((world.add(s, m), s, m))
    contacts = world.step(mode="all")
    found = {(c.body_a, c.body_b): c.toc for c in contacts}
    expected = {}
    for i in range(40):
        for j in range(i + 1, 40):
            c = ccd.toc(bodies[i][1], bodies[i][2], bodies[j][1], bodies[j][2], tolerance=1e-4)
            if c is not None:
                expected[(bodies[i][0], bodies[j][0])] = c.toc
    assert found.keys() == expected.keys()
    assert len(found) > 0
    for k in found:
        assert found[k] == pytest.approx(expected[k], abs=1e-4)


def test_world_bodies_and_bad_ids():
    world = ccd.World()
    a = world.add(ccd.Ball(0.5), EYE)
    b = world.add(ccd.Ball(0.5), at(3), static=True)
    assert world.bodies == [a, b] and len(world) == 2
    world.set_velocities(a, [4, 0, 0], [0, 0, 0])
    hit = world.step()
    assert (hit.body_a, hit.body_b) == (a, b) and hit.toc == pytest.approx(0.5, abs=1e-3)
    assert np.allclose(world.pose(a)[:3, 3], [4, 0, 0])
    world.remove(a)
    with pytest.raises(ccd.CcdError, match="body: body 0 is not in the world"):
        world.remove(a)
    with pytest.raises(ccd.CcdError, match="body: body 99"):
        world.set_motion(99, EYE)
    with pytest.raises(ccd.CcdError, match="static"):
        world.set_motion(b, EYE)
    with pytest.raises(ValueError, match="mode must be"):
        world.step(mode="earliest")
    with pytest.raises(OverflowError):
        world.remove(-1)
    assert world.step(mode="boolean") is False


def random_rotation(rng):
    q = rng.normal(size=4)
    q /= np.linalg.norm(q)
    x, y, z, w = q
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ]), q


@pytest.mark.parametrize("seed", range(8))
def test_mesh_and_convex_distances_match_the_closed_form(seed):
    """A box given as a mesh, as a convex hull, as a Box and inside a compound, at a random
    pose, against a ball outside it: the distance is the ball centre's distance to the box
    minus the radius, and the quaternion and matrix forms of the pose agree."""
    rng = np.random.default_rng(seed)
    v, f = cube(0.5)
    h = np.array([0.5, 0.5, 0.5])
    shapes = [ccd.Mesh(v, f), ccd.Convex(v), ccd.Box([1, 1, 1]), ccd.Compound([(ccd.Box([1, 1, 1]), EYE)])]
    for _ in range(20):
        r, q = random_rotation(rng)
        t = rng.uniform(-2, 2, 3)
        centre = t + r @ (rng.normal(size=3) * 2)
        local = r.T @ (centre - t)
        gap = np.linalg.norm(local - np.clip(local, -h, h))
        if gap < 0.3:
            continue
        exact = gap - 0.25
        for s in shapes:
            for pose in ((r, t), (q, t)):
                d = ccd.distance(s, pose, ccd.Ball(0.25), (np.eye(3), centre))
                assert d.distance == pytest.approx(exact, abs=1e-9), (type(s).__name__, d)
                d = ccd.distance(ccd.Ball(0.25), (np.eye(3), centre), s, pose)
                assert d.distance == pytest.approx(exact, abs=1e-9)


PAIRS = [("box", "capsule"), ("cylinder", "convex"), ("mesh", "cylinder"), ("compound", "mesh"),
         ("ball", "cylinder"), ("convex", "mesh"), ("cylinder", "cylinder")]


@pytest.mark.parametrize("kind_a, kind_b", PAIRS)
@pytest.mark.parametrize("seed", range(3))
def test_tumbling_toc_is_never_late_against_sampled_distances(kind_a, kind_b, seed):
    """Both shapes tumble (any angle, up to ~2 turns per step) and fly at each other: the
    reported toc is never after the first of 1500 sampled times at which `ccd.distance` (an
    independent computation) finds them touching, no sample before toc touches, and at toc
    they are within the tolerance."""
    rng = np.random.default_rng(100 + seed)
    shapes = all_shapes()
    a, b = shapes[kind_a], shapes[kind_b]
    ma = ccd.Motion.from_velocities(at(*rng.uniform(-0.3, 0.3, 3)), linear=rng.uniform(-1, 1, 3), angular=rng.uniform(-12, 12, 3))
    mb = ccd.Motion.from_velocities(at(3.0, *rng.uniform(-0.4, 0.4, 2)), linear=[-5.0, 0, 0], angular=rng.uniform(-12, 12, 3))
    tol = 1e-4
    c = ccd.toc(a, ma, b, mb, tolerance=tol)
    ts = np.linspace(0, 1, 1501)
    dists = np.array([ccd.distance(a, ma.pose_at(t), b, mb.pose_at(t)).distance for t in ts])
    touching = dists <= 0
    if c is None:
        assert dists.min() > tol / 2 - 1e-12
        return
    assert (dists[ts < c.toc] > 0).all()
    if touching.any():
        assert c.toc <= ts[np.argmax(touching)] + 1e-12
    assert ccd.distance(a, ma.pose_at(c.toc), b, mb.pose_at(c.toc)).distance <= tol + 1e-12
