"""Bad input to the shapes, poses, motions, queries and the collision manager: a Python
exception naming the argument (TypeError for a wrong type or dtype, ValueError - often its
subclass ccd.CcdError - for the rest), never a crash, and no Rust names in the message."""

import numpy as np
import pytest

import ccd

E = np.eye(4)
BALL = ccd.Ball(1.0)

RUST_WORDS = ("BodyHandle", "untagged", "::", "Rust", "DAffine", "DVec")


def check(call, exc, match):
    with pytest.raises(exc, match=match) as info:
        call()
    text = str(info.value)
    assert not any(w in text for w in RUST_WORDS), text
    return text


@pytest.mark.parametrize(
    "call, exc, match",
    [
        (lambda: ccd.Ball(float("nan")), ccd.CcdError, "radius must be positive and finite"),
        (lambda: ccd.Ball(0.0), ccd.CcdError, "radius must be positive"),
        (lambda: ccd.Ball(-1), ccd.CcdError, "radius must be positive"),
        (lambda: ccd.Ball("a"), TypeError, "radius must be a real number, got str"),
        (lambda: ccd.Capsule(0.1, -1), ccd.CcdError, "length must be finite and non-negative"),
        (lambda: ccd.Capsule(0.0, 1), ccd.CcdError, "radius must be positive"),
        (lambda: ccd.Box([1, 2]), ValueError, r"extents must have shape \(3,\), got \(2,\)"),
        (lambda: ccd.Box([1, np.nan, 1]), ValueError, "extents has a non-finite value"),
        (lambda: ccd.Box([1, -1, 1]), ccd.CcdError, "extents must be positive .* at index 1"),
        (lambda: ccd.Box([1, 0, 1]), ccd.CcdError, "extents must be positive"),
        (lambda: ccd.Box("abc"), TypeError, "extents must be a real"),
        (lambda: ccd.Box(np.ones(3, dtype=complex)), TypeError, "extents must be a real"),
        (lambda: ccd.Cylinder(0, 1), ccd.CcdError, "radius must be positive"),
        (lambda: ccd.Cylinder(1, -2), ccd.CcdError, "length must be positive"),
        (lambda: ccd.Convex(np.zeros((0, 3))), ccd.CcdError, "points is empty"),
        (lambda: ccd.Convex([[np.nan, 0, 0]]), ValueError, "points has a non-finite value"),
        (lambda: ccd.Convex([[1, 2]]), ValueError, r"points must have shape \(N, 3\)"),
        (lambda: ccd.Convex([[1e200, 0, 0]]), ccd.CcdError, "points: .*1e100"),
        (lambda: ccd.Compound([]), ccd.CcdError, "parts is empty"),
        (lambda: ccd.Compound(5), TypeError, "parts must be a sequence"),
        (lambda: ccd.Compound([BALL]), TypeError, r"parts\[0\] must be a \(shape, pose\) pair, got Ball"),
        (lambda: ccd.Compound([("x", E)]), TypeError, r"parts\[0\]\[0\] must be a ccd shape"),
        (lambda: ccd.Compound([(BALL, np.diag([2.0, 1, 1, 1]))]), ccd.CcdError, r"parts\[0\]\[1\]: the rotation block is not a rotation"),
        (lambda: ccd.Mesh(np.zeros((0, 3)), np.zeros((0, 3), int)), ValueError, "faces is empty"),
        (lambda: ccd.Mesh.from_trimesh(object()), TypeError, "mesh must have vertices and faces"),
        (lambda: ccd.Mesh.from_trimesh(type("T", (), {"vertices": np.zeros((0, 3)), "faces": np.zeros((0, 3), int)})()), ValueError, "mesh.faces is empty"),
    ],
)
def test_shapes_reject(call, exc, match):
    check(call, exc, match)


@pytest.mark.parametrize(
    "pose, exc, match",
    [
        (([0, 0, 0, 2], [0, 0, 0]), ccd.CcdError, r"motion_b\[0\] is a quaternion \[x, y, z, w\] of norm 2"),
        (([0, 0, 0, 0], [0, 0, 0]), ccd.CcdError, "of norm 0"),
        (([0, 0, 0, 1.01], [0, 0, 0]), ccd.CcdError, "norm 1.01"),
        (([0, 0, np.nan, 1], [0, 0, 0]), ValueError, r"motion_b\[0\] \(quaternion\) has a non-finite value"),
        (([0, 0, 1], [0, 0, 0]), ccd.CcdError, r"motion_b\[0\] must be a 3x3 rotation matrix or a quaternion"),
        ((np.eye(3), [0, 0]), ValueError, r"motion_b\[1\] \(translation\) must have shape \(3,\)"),
        ((np.eye(3), [0, 0, np.nan]), ValueError, r"motion_b\[1\] \(translation\) has a non-finite"),
        ((np.eye(3) * 2, [0, 0, 0]), ccd.CcdError, "motion_b: the rotation block is not a rotation"),
        ((np.diag([1.0, 1, -1]), [0, 0, 0]), ccd.CcdError, "not a rotation .*det R = -1"),
        (np.zeros((2, 2)), ccd.CcdError, r"motion_b must be a pose .*got an array of shape \(2, 2\)"),
        (np.zeros((4, 3)), ccd.CcdError, r"shape \(4, 3\)"),
        (np.full((4, 4), np.nan), ValueError, "motion_b has a non-finite value"),
        (E.astype(complex), TypeError, "motion_b must be a pose of real numbers .*complex"),
        ("eye", TypeError, "motion_b must be a ccd.Motion or a pose"),
        (None, TypeError, "motion_b must be a ccd.Motion or a pose .*NoneType"),
        (((0, 0, 0, 1), (1e200, 0, 0)), ccd.CcdError, "motion_b: translation 1e200 is beyond"),
    ],
)
def test_poses_reject(pose, exc, match):
    check(lambda: ccd.toc(BALL, E, BALL, pose), exc, match)


def test_unit_quaternion_within_1e3_is_normalised():
    a = ccd.Motion(([0, 0, 0, 1.0009], [0, 0, 0])).pose_at(0)
    assert np.allclose(a, E)
    assert np.isclose(np.linalg.det(a[:3, :3]), 1.0, atol=1e-15)


@pytest.mark.parametrize(
    "call, exc, match",
    [
        (lambda: ccd.toc(BALL, E, 3, E), TypeError, "b must be a ccd shape"),
        (lambda: ccd.toc(BALL, E, BALL, E, tolerance=-1), ccd.CcdError, "tolerance"),
        (lambda: ccd.toc(BALL, E, BALL, E, tolerance=float("nan")), ccd.CcdError, "tolerance"),
        (lambda: ccd.toc(BALL, E, BALL, E, max_iterations=0), ccd.CcdError, "max_iterations|iteration"),
        (lambda: ccd.collide(BALL, "x", BALL, E), TypeError, "pose_a must be a pose"),
        (lambda: ccd.collide(BALL, E, BALL, E, tolerance=0), ccd.CcdError, "tolerance"),
        (lambda: ccd.distance(BALL, E, BALL, (np.eye(3) * 2, [0, 0, 0])), ccd.CcdError, "pose_b: the rotation block"),
        (lambda: ccd.distance(object(), E, BALL, E), TypeError, "a must be a ccd shape .*got object"),
        (lambda: ccd.Motion.from_velocities(E, angular=[0, 0, np.nan]), ValueError, "angular has a non-finite"),
        (lambda: ccd.Motion.from_velocities(E, angular=[0, 0, 1e300]), ccd.CcdError, "angular: 1e300 is beyond"),
        (lambda: ccd.Motion.from_velocities(E, linear=[0, 0]), ValueError, r"linear must have shape \(3,\)"),
        (lambda: ccd.Motion.from_velocities(E, center=[np.inf, 0, 0]), ValueError, "center has a non-finite"),
        (lambda: ccd.Motion(E).pose_at(float("nan")), ccd.CcdError, "t must be finite"),
        (lambda: ccd.Motion(E, "x"), TypeError, "end must be a pose"),
        (lambda: ccd.toc_batch(BALL, np.zeros((3, 4, 4)), E, BALL, E, E), ccd.CcdError, r"poses_a0\[0\] must be a homogeneous"),
        (lambda: ccd.toc_batch(BALL, E, E, BALL, E, np.full((4, 4), np.nan)), ccd.CcdError, r"poses_b1 has a non-finite value"),
        (lambda: ccd.toc_batch(BALL, E, np.tile(np.diag([1.0, 1, -1, 1]), (2, 1, 1)), BALL, E, E), ccd.CcdError, r"poses_a1\[0\]: the rotation block"),
        (lambda: ccd.toc_batch(BALL, np.tile(E, (3, 1, 1)), np.tile(E, (2, 1, 1)), BALL, E, E), ValueError, "poses_a1 has 2 poses, the others 3"),
        (lambda: ccd.toc_batch(BALL, np.zeros((3, 3, 4)), E, BALL, E, E), ValueError, r"poses_a0 must have shape \(N, 4, 4\)"),
        (lambda: ccd.toc_batch(BALL, E, E, BALL, E, E, threads=0), ValueError, "threads"),
        (lambda: ccd.toc_batch(BALL, E, E, BALL, E, E, tolerance=0), ccd.CcdError, "tolerance"),
        (lambda: ccd.toc_batch(BALL, E.astype(str), E, BALL, E, E), TypeError, "poses_a0 must be a real"),
    ],
)
def test_queries_reject(call, exc, match):
    check(call, exc, match)


def test_world_rejects():
    w = ccd.World()
    check(lambda: ccd.World(tolerance=0), ccd.CcdError, "tolerance")
    check(lambda: w.add(BALL, ccd.Motion.from_velocities(E, angular=[0, 0, 1], center=[1, 0, 0])), ccd.CcdError, "motion: a world body must turn about its own origin")
    check(lambda: w.add(BALL, ccd.Motion(E), static=True), ccd.CcdError, "a static body takes a pose")
    check(lambda: w.add("ball", E), TypeError, "shape must be a ccd shape")
    check(lambda: w.pose(3), ccd.CcdError, "body: body 3 is not in the world")
    check(lambda: w.set_velocities(3, [0, 0, 0], [0, 0, 0]), ccd.CcdError, "body 3 is not in the world")
    b = w.add(BALL, E)
    check(lambda: w.set_velocities(b, [0, 0, np.nan], [0, 0, 0]), ValueError, "linear has a non-finite")
    check(lambda: w.step(mode="Toc"), ValueError, "mode must be 'toc', 'all' or 'boolean'")
    with pytest.raises(OverflowError):
        w.remove(-1)
    assert w.step() is None  # still usable


def test_cli_schema_errors_say_it_once():
    """The batch (and CLI) messages for a bad pose: no 'untagged enum', the reason once."""
    rec = ccd.batch('{"kind":"rigid","a":"x.obj","b":"x.obj","a_start":[1,2]}')[0]
    msg = rec["error"]["message"]
    assert "untagged" not in msg and "a pose: [x, y, z, qw, qx, qy, qz]" in msg
    tetra = '{"vertices": [[0,0,0],[1,0,0],[0,1,0],[0,0,1]], "triangles": [[0,2,1],[0,1,3],[0,3,2],[1,2,3]]}'
    rec = ccd.batch('{"kind":"rigid","a":%s,"b":%s,"a_start":[0,0,0,2,0,0,0]}' % (tetra, tetra))[0]
    msg = rec["error"]["message"]
    assert msg.count("quaternion") == 1 and msg.startswith("a_start: "), msg
