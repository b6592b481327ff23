"""Shared fixtures of the ccd Python tests."""

import os
import pathlib
import sys

import numpy as np
import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # tests import `reference` (the numpy oracle)

REPO = HERE.parents[2]


def shared_dir():
    """The shared data folder: $CCD_SHARED_DIR, else ../shared beside the repository."""
    env = os.environ.get("CCD_SHARED_DIR")
    return pathlib.Path(env) if env else REPO.parent / "shared"


def robot_dir(name):
    """A robot's folder (`urdf/`, `srdf/`, `meshes/`): the shared data folder's
    `data/robots/NAME`, else the registry robots `cargo xtask robots` installs
    ($CCD_ROBOT_DATA, else $CARGO_TARGET_DIR/robot-data, else target/robot-data)."""
    shared = shared_dir() / "data" / "robots" / name
    if shared.is_dir():
        return shared
    if os.environ.get("CCD_ROBOT_DATA"):
        data = pathlib.Path(os.environ["CCD_ROBOT_DATA"])
    elif os.environ.get("CARGO_TARGET_DIR"):
        data = REPO / os.environ["CARGO_TARGET_DIR"] / "robot-data"
    else:
        data = REPO / "target" / "robot-data"
    return data / "robots" / name


TETRA_V = np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]])
TETRA_F = np.array([[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])


def cube(half=0.5):
    """An axis-aligned cube of half-size `half` centred at the origin (12 triangles)."""
    v = np.array(
        [[x, y, z] for x in (-half, half) for y in (-half, half) for z in (-half, half)]
    )
    f = np.array(
        [
            [0, 1, 3], [0, 3, 2],  # x = -h
            [4, 6, 7], [4, 7, 5],  # x = +h
            [0, 4, 5], [0, 5, 1],  # y = -h
            [2, 3, 7], [2, 7, 6],  # y = +h
            [0, 2, 6], [0, 6, 4],  # z = -h
            [1, 5, 7], [1, 7, 3],  # z = +h
        ]
    )
    return v, f


def translation(x=0.0, y=0.0, z=0.0):
    m = np.eye(4)
    m[:3, 3] = (x, y, z)
    return m


def rotation_z(angle, x=0.0, y=0.0, z=0.0):
    m = translation(x, y, z)
    c, s = np.cos(angle), np.sin(angle)
    m[:2, :2] = [[c, -s], [s, c]]
    return m


@pytest.fixture
def tetra():
    import ccd

    return ccd.Mesh(TETRA_V, TETRA_F)


@pytest.fixture
def unit_cube():
    import ccd

    return ccd.Mesh(*cube())
