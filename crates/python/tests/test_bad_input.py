"""Every bad input raises a Python exception with a message: never a crash or a hang."""

import numpy as np
import pytest

import ccd
from conftest import TETRA_F, TETRA_V, translation

EYE = np.eye(4)


@pytest.mark.parametrize(
    "vertices, faces, exc, match",
    [
        (TETRA_V[:, :2], TETRA_F, ValueError, r"vertices must have shape \(N, 3\), got \(4, 2\)"),
        (TETRA_V, TETRA_F[:, :2], ValueError, r"faces must have shape \(M, 3\)"),
        (TETRA_V.astype(complex), TETRA_F, TypeError, "vertices must be a real"),
        (np.array([["a", "b", "c"]] * 4), TETRA_F, TypeError, "vertices must be a real"),
        (TETRA_V, TETRA_F.astype(float), TypeError, "faces must be an integer array"),
        (np.where(TETRA_V == 1, np.nan, TETRA_V), TETRA_F, ValueError, r"non-finite value \(NaN\) at index \(1, 0\)"),
        (np.where(TETRA_V == 1, np.inf, TETRA_V), TETRA_F, ValueError, "non-finite"),
        (TETRA_V, TETRA_F + 1, ccd.CcdError, "refers to vertex 4"),
        (TETRA_V, -TETRA_F - 1, ValueError, "indices must be in"),
        (TETRA_V, np.zeros((0, 3), dtype=int), ValueError, "faces is empty"),
        ([[0, 0], [1]], TETRA_F, TypeError, "vertices cannot be read"),
        (None, TETRA_F, TypeError, "vertices must be a real"),
    ],
)
def test_mesh_rejects(vertices, faces, exc, match):
    with pytest.raises(exc, match=match):
        ccd.Mesh(vertices, faces)


def test_ccd_error_is_a_value_error():
    assert issubclass(ccd.CcdError, ValueError)


def test_load_missing_and_malformed_files(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        ccd.Mesh.load(tmp_path / "nope.obj")
    with pytest.raises(OSError, match="not a regular file"):
        ccd.Mesh.load(tmp_path)
    bad = tmp_path / "bad.obj"
    bad.write_text("v 0 0 0\nv 1 0 0\nf 1 2 7\n")
    with pytest.raises(ValueError, match="bad.obj"):
        ccd.Mesh.load(bad)
    garbage = tmp_path / "garbage.ply"
    garbage.write_bytes(b"\x00\xff not a ply")
    with pytest.raises(ValueError, match="garbage.ply"):
        ccd.Mesh.load(garbage)
    unknown = tmp_path / "mesh.xyz"
    unknown.write_text("1 2 3\n")
    with pytest.raises(ValueError, match="unknown mesh file extension"):
        ccd.Mesh.load(unknown)


@pytest.mark.parametrize(
    "pose, exc, match",
    [
        (np.eye(3), ValueError, r"pose_b1 must be a pose \(a 4x4 or 3x4 matrix.*got an array of shape \(3, 3\)"),
        (np.full((4, 4), np.nan), ValueError, "non-finite"),
        (np.diag([2.0, 1, 1, 1]), ccd.CcdError, "rigid|rotation"),
        (np.array([[1.0, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 1, 1]]), ValueError, "last row"),
        (translation(1e200), ccd.CcdError, "domain|1e100|range"),
        ("eye", TypeError, "pose_b1"),
    ],
)
def test_rigid_toc_rejects_poses(tetra, pose, exc, match):
    with pytest.raises(exc, match=match):
        ccd.rigid_toc(tetra, EYE, EYE, tetra, EYE, pose)


def test_rigid_toc_rejects_options_and_non_meshes(tetra):
    with pytest.raises(ccd.CcdError, match="tolerance"):
        ccd.rigid_toc(tetra, EYE, EYE, tetra, EYE, EYE, tolerance=-1.0)
    with pytest.raises(ccd.CcdError, match="tolerance"):
        ccd.rigid_toc(tetra, EYE, EYE, tetra, EYE, EYE, tolerance=float("nan"))
    with pytest.raises(ccd.CcdError, match="iteration"):
        ccd.rigid_toc(tetra, EYE, EYE, tetra, EYE, EYE, max_iterations=0)
    with pytest.raises(OverflowError):
        ccd.rigid_toc(tetra, EYE, EYE, tetra, EYE, EYE, max_iterations=-1)
    with pytest.raises(TypeError):
        ccd.rigid_toc("mesh", EYE, EYE, tetra, EYE, EYE)


def quads(n=3):
    face = [[0.0, 0, 0], [1, 0, 0], [0, 1, 0]]
    x0 = np.array([[[0.2, 0.2, 1.0]] + face] * n)
    x1 = np.array([[[0.2, 0.2, -1.0]] + face] * n)
    return x0, x1


@pytest.mark.parametrize("kernel", [ccd.vertex_face, ccd.edge_edge])
def test_kernels_reject(kernel):
    x0, x1 = quads()
    with pytest.raises(ValueError, match=r"x0 must have shape \(N, 4, 3\), got \(3, 4\)"):
        kernel(x0[:, :, 0], x1)
    with pytest.raises(ValueError, match=r"x1 must have shape \(N, 4, 3\), got \(3, 3, 3\)"):
        kernel(x0, x1[:, :3])
    with pytest.raises(ValueError, match="same shape"):
        kernel(x0, x1[:2])
    with pytest.raises(TypeError, match="x0 must be a real"):
        kernel(x0.astype(complex), x1)
    bad = x1.copy()
    bad[1, 2, 0] = np.nan
    with pytest.raises(ValueError, match="element 1: .*non-finite"):
        kernel(x0, bad)
    bad[1, 2, 0] = 1e300
    with pytest.raises(ValueError, match="element 1: .*1e100"):
        kernel(x0, bad)
    with pytest.raises(ccd.CcdError, match="tolerance"):
        kernel(x0, x1, tolerance=0.0)
    with pytest.raises(ValueError, match="threads"):
        kernel(x0, x1, threads=0)
    # empty batches are fine
    toc, status = kernel(np.zeros((0, 4, 3)), np.zeros((0, 4, 3)))
    assert toc.shape == (0,) and status.shape == (0,)


def test_deforming_scene_rejects():
    tri = np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0]])
    with pytest.raises(ValueError, match="same shape"):
        ccd.DeformingScene([[0, 1, 2]], tri, tri[:2])
    with pytest.raises(ccd.CcdError, match="vertex 5"):
        ccd.DeformingScene([[0, 1, 5]], tri, tri)
    with pytest.raises(ccd.CcdError, match="repeats vertex"):
        ccd.DeformingScene([[0, 1, 1]], tri, tri)
    with pytest.raises(ValueError, match="non-finite"):
        ccd.DeformingScene([[0, 1, 2]], tri, tri * np.nan)
    with pytest.raises(ccd.CcdError, match="tolerance"):
        ccd.DeformingScene([[0, 1, 2]], tri, tri, tolerance=-1)
    scene = ccd.DeformingScene([[0, 1, 2]], tri, tri)
    with pytest.raises(ValueError, match="x1 has 2 vertices, the scene has 3"):
        scene.update(tri, tri[:2])
    with pytest.raises(ValueError, match="non-finite"):
        scene.update(tri, tri * np.inf)
    assert scene.toc() is None  # still usable after rejected updates
