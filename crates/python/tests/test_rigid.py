"""ccd.Mesh, ccd.Mesh.load and ccd.rigid_toc: closed-form contacts, poses, files, pickling."""

import math
import pickle

import numpy as np
import pytest

import ccd
from conftest import TETRA_F, TETRA_V, cube, rotation_z, translation


def test_mesh_round_trips_its_arrays(tetra):
    assert (tetra.num_vertices, tetra.num_faces) == (4, 4)
    np.testing.assert_array_equal(tetra.vertices, TETRA_V)
    np.testing.assert_array_equal(tetra.faces, TETRA_F)
    assert tetra.faces.dtype == np.int64
    assert "4 vertices" in repr(tetra)


def test_mesh_accepts_lists_and_int_or_float32_vertices():
    m = ccd.Mesh(TETRA_V.tolist(), TETRA_F.tolist())
    assert m.num_faces == 4
    m = ccd.Mesh(TETRA_V.astype(np.float32), TETRA_F.astype(np.uint32))
    assert m.num_vertices == 4
    m = ccd.Mesh(TETRA_V.astype(np.int32), TETRA_F)
    np.testing.assert_array_equal(m.vertices, TETRA_V)
    # a non-contiguous view is read correctly
    big = np.zeros((4, 6))
    big[:, ::2] = TETRA_V
    np.testing.assert_array_equal(ccd.Mesh(big[:, ::2], TETRA_F).vertices, TETRA_V)


@pytest.mark.parametrize("gap", [0.25, 1.0, 2.5])
def test_cubes_sliding_together_touch_at_the_closed_form_time(unit_cube, gap):
    # cube B slides along x from distance `gap` (between faces) to overlap: the faces meet
    # after covering `gap` of the 2 * gap + 1 travelled
    still = np.eye(4)
    start, end = translation(1.0 + gap), translation(-gap)
    c = ccd.rigid_toc(unit_cube, still, still, unit_cube, start, end, tolerance=1e-4)
    assert c is not None and c.status == "converged"
    exact = gap / (1.0 + 2.0 * gap)
    # conservative: not after the exact time, early by at most the tolerance's travel time
    speed = 1.0 + 2.0 * gap
    assert exact - 1e-4 / speed - 1e-9 <= c.toc <= exact + 1e-12
    assert c.distance <= 1e-4
    assert np.linalg.norm(c.point_a - c.point_b) <= 1e-4 + 1e-12
    np.testing.assert_allclose(c.points, np.stack([c.point_a, c.point_b]))
    np.testing.assert_allclose(np.abs(c.normal), [1, 0, 0], atol=1e-6)
    assert c.iterations >= 1
    assert len(c.features) == 2 and c.features[0][0] in ("vertex", "edge", "face")


def test_rotating_bar_hits_post_and_misses_when_turning_back():
    bar_v, bar_f = cube()
    bar_v = bar_v * [4.0, 0.2, 0.2] + [2.0, 0, 0]  # from x = 0 to 4 along +x
    bar = ccd.Mesh(bar_v, bar_f)
    post_v, post_f = cube(0.1)
    post = ccd.Mesh(post_v, post_f)
    at = translation(0.0, 2.0)  # post at (0, 2): the bar's tip side passes at angle ~ pi/2
    c = ccd.rigid_toc(bar, rotation_z(0.0), rotation_z(2.0), post, at, at)
    assert c is not None and 1.0 < c.toc * 2.0 < math.pi / 2
    assert ccd.rigid_toc(bar, rotation_z(0.0), rotation_z(-1.0), post, at, at) is None
    # boolean mode agrees on both
    assert ccd.rigid_toc(bar, rotation_z(0.0), rotation_z(2.0), post, at, at, boolean=True)
    assert ccd.rigid_toc(bar, rotation_z(0.0), rotation_z(-1.0), post, at, at, boolean=True) is None


def test_initially_touching(unit_cube):
    c = ccd.rigid_toc(unit_cube, np.eye(4), np.eye(4), unit_cube, translation(0.5), translation(3))
    assert c.status == "initially_touching" and c.toc == 0.0


def test_swapping_bodies_swaps_features(unit_cube, tetra):
    a = ccd.rigid_toc(unit_cube, np.eye(4), np.eye(4), tetra, translation(3), translation(-1))
    b = ccd.rigid_toc(tetra, translation(3), translation(-1), unit_cube, np.eye(4), np.eye(4))
    assert a.toc == b.toc
    assert a.feature_a == b.feature_b and a.feature_b == b.feature_a
    np.testing.assert_allclose(a.normal, -b.normal)


def write_files(tmp_path):
    v, f = cube()
    obj = tmp_path / "cube.obj"
    obj.write_text(
        "".join(f"v {x} {y} {z}\n" for x, y, z in v)
        + "".join(f"f {a + 1} {b + 1} {c + 1}\n" for a, b, c in f)
    )
    ply = tmp_path / "cube.ply"
    ply.write_text(
        "ply\nformat ascii 1.0\n"
        f"element vertex {len(v)}\nproperty double x\nproperty double y\nproperty double z\n"
        f"element face {len(f)}\nproperty list uchar int vertex_indices\nend_header\n"
        + "".join(f"{x} {y} {z}\n" for x, y, z in v)
        + "".join(f"3 {a} {b} {c}\n" for a, b, c in f)
    )
    stl = tmp_path / "cube.stl"
    facets = []
    for tri in f:
        facets.append("facet normal 0 0 0\nouter loop\n")
        facets += [f"vertex {x} {y} {z}\n" for x, y, z in v[tri]]
        facets.append("endloop\nendfacet\n")
    stl.write_text("solid cube\n" + "".join(facets) + "endsolid cube\n")
    return obj, ply, stl


def test_load_obj_ply_stl_give_the_same_contact(tmp_path, unit_cube):
    expected = ccd.rigid_toc(unit_cube, np.eye(4), np.eye(4), unit_cube, translation(3), translation(-1))
    for path in write_files(tmp_path):
        m = ccd.Mesh.load(path)
        assert m.num_faces == 12, path
        c = ccd.rigid_toc(m, np.eye(4), np.eye(4), m, translation(3), translation(-1))
        assert abs(c.toc - expected.toc) < 1e-9, path
    assert ccd.Mesh.load(str(path)).num_faces == 12  # str paths too


def test_mesh_pickles_and_rebuilds(unit_cube):
    m = pickle.loads(pickle.dumps(unit_cube))
    np.testing.assert_array_equal(m.vertices, unit_cube.vertices)
    c1 = ccd.rigid_toc(m, np.eye(4), np.eye(4), m, translation(3), translation(-1))
    c2 = ccd.rigid_toc(unit_cube, np.eye(4), np.eye(4), unit_cube, translation(3), translation(-1))
    assert c1.toc == c2.toc


def test_contact_repr_and_rotation_centre(unit_cube):
    # rotation about the body's own origin while translating: a valid pose pair
    c = ccd.rigid_toc(unit_cube, np.eye(4), np.eye(4), unit_cube, rotation_z(0, 3), rotation_z(1.0, -1))
    assert c is not None and "ccd.Contact(" in repr(c)
