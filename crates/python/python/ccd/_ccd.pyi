"""Type stubs of the native module ``ccd._ccd`` (re-exported by ``ccd``)."""

import os
from typing import Any, Dict, Iterable, List, Literal, Mapping, Optional, Sequence, Tuple, TypedDict, Union

import numpy as np
import numpy.typing as npt

__version__: str

NO_CONTACT: int
CONVERGED: int
INITIALLY_TOUCHING: int
OUT_OF_ITERATIONS: int
STALLED: int

ArrayLike = npt.ArrayLike
F64Array = npt.NDArray[np.float64]
U8Array = npt.NDArray[np.uint8]
I64Array = npt.NDArray[np.int64]
PathLike = Union[str, "os.PathLike[str]"]
Feature = Union[Tuple[Literal["vertex"], int], Tuple[Literal["edge"], int, int], Tuple[Literal["face"], int]]
Status = Literal["converged", "initially_touching", "out_of_iterations", "stalled"]

class CcdError(ValueError):
    """Input rejected by a ccd query; the message says what and where."""

class Mesh:
    """A triangle mesh in its local frame with its bounding-volume hierarchy (built once).

    ``vertices``: float array ``(N, 3)``; ``faces``: integer array ``(M, 3)``.
    """

    def __init__(self, vertices: ArrayLike, faces: ArrayLike) -> None: ...
    @staticmethod
    def load(path: PathLike) -> "Mesh":
        """Reads an OBJ, PLY or STL file (by extension)."""
    @property
    def vertices(self) -> F64Array: ...
    @property
    def faces(self) -> I64Array: ...
    @property
    def num_vertices(self) -> int: ...
    @property
    def num_faces(self) -> int: ...

class Contact:
    """A contact: time, witness points, normal, features, status, iterations."""

    @property
    def toc(self) -> float: ...
    @property
    def point_a(self) -> F64Array: ...
    @property
    def point_b(self) -> F64Array: ...
    @property
    def points(self) -> F64Array:
        """``point_a`` and ``point_b``, shape ``(2, 3)``."""
    @property
    def normal(self) -> F64Array: ...
    @property
    def distance(self) -> float: ...
    @property
    def feature_a(self) -> Feature: ...
    @property
    def feature_b(self) -> Feature: ...
    @property
    def features(self) -> Tuple[Feature, Feature]: ...
    @property
    def status(self) -> Status: ...
    @property
    def iterations(self) -> int: ...

def rigid_toc(
    mesh_a: Mesh,
    pose_a0: ArrayLike,
    pose_a1: ArrayLike,
    mesh_b: Mesh,
    pose_b0: ArrayLike,
    pose_b1: ArrayLike,
    tolerance: float = 1e-3,
    max_iterations: int = 1000,
    boolean: bool = False,
) -> Optional[Contact]:
    """First time of contact of two rigid meshes moving between 4x4 poses (t = 0 -> 1)."""

def vertex_face(
    x0: ArrayLike,
    x1: ArrayLike,
    tolerance: float = 1e-6,
    max_iterations: int = 1000,
    threads: Optional[int] = None,
) -> Tuple[F64Array, U8Array]:
    """Batch vertex-face CCD: ``x0``, ``x1`` of shape ``(N, 4, 3)`` -> ``(toc, status)``."""

def edge_edge(
    x0: ArrayLike,
    x1: ArrayLike,
    tolerance: float = 1e-6,
    max_iterations: int = 1000,
    threads: Optional[int] = None,
) -> Tuple[F64Array, U8Array]:
    """Batch edge-edge CCD: ``x0``, ``x1`` of shape ``(N, 4, 3)`` -> ``(toc, status)``."""

def batch(
    lines: Union[str, bytes, Iterable[Union[str, bytes]]],
    threads: Optional[int] = None,
    base_dir: Optional[PathLike] = None,
) -> List[Dict[str, Any]]:
    """JSON Lines queries in the ``ccd batch`` schema -> one record dict per non-blank line."""

class SceneContacts(TypedDict):
    toc: F64Array
    mesh_a: I64Array
    mesh_b: I64Array
    feature_a: I64Array
    feature_b: I64Array
    point_a: F64Array
    point_b: F64Array
    normal: F64Array
    distance: F64Array
    status: U8Array

class DeformingScene:
    """Deforming triangle meshes over one step (vertices move linearly x0 -> x1)."""

    def __init__(
        self,
        faces: ArrayLike,
        x0: ArrayLike,
        x1: ArrayLike,
        tolerance: float = 1e-6,
        max_iterations: int = 1000,
        self_collision: bool = True,
        parallel: bool = False,
        resting: Literal["contact", "separate"] = "contact",
    ) -> None: ...
    @staticmethod
    def from_meshes(
        meshes: Sequence[Tuple[ArrayLike, ArrayLike, ArrayLike]],
        tolerance: float = 1e-6,
        max_iterations: int = 1000,
        self_collision: Union[bool, Sequence[bool], None] = None,
        parallel: bool = False,
        resting: Literal["contact", "separate"] = "contact",
    ) -> "DeformingScene":
        """Several objects: every object pair is tested, self-collision per object."""
    def toc(self) -> Optional[float]:
        """Global time of contact, ``None`` when nothing touches."""
    def collides(self) -> bool: ...
    def contacts(self) -> SceneContacts:
        """Every colliding vertex-face / edge-edge pair with its own time, sorted by time."""
    def resting(self) -> SceneContacts:
        """Pairs within the tolerance at t = 0 (``resting="separate"``), by distance."""
    def stepsize(
        self,
        min_distance: float = 0.0,
        scale: float = 0.2,
        rel_tolerance: float = 1e-3,
        max_iterations: int = 1000,
    ) -> float:
        """Largest t such that every pair keeps max(min_distance, scale * d0) on [0, t]."""
    def update(self, x0: ArrayLike, x1: ArrayLike, mesh: int = 0) -> None: ...
    @property
    def num_vertices(self) -> int: ...
    @property
    def num_faces(self) -> int: ...
    @property
    def num_meshes(self) -> int: ...

def collision_free_stepsize(
    faces: ArrayLike,
    x0: ArrayLike,
    x1: ArrayLike,
    min_distance: float = 0.0,
    scale: float = 0.2,
    rel_tolerance: float = 1e-3,
    max_iterations: int = 1000,
) -> float:
    """Largest t in [0, 1] such that every vertex-face / edge-edge pair keeps
    max(min_distance, scale * d0) on [0, t] (ipctk.compute_collision_free_stepsize's question)."""

class RobotContact:
    @property
    def part_a(self) -> str: ...
    @property
    def part_b(self) -> str: ...
    @property
    def contact(self) -> Contact: ...
    @property
    def toc(self) -> float: ...

class Robot:
    """A URDF robot (+ optional SRDF) checked along joint-space edges q0 -> q1."""

    @staticmethod
    def load(
        urdf: PathLike,
        srdf: Optional[PathLike] = None,
        packages: Optional[Mapping[str, PathLike]] = None,
        allow_outside_paths: bool = False,
    ) -> "Robot": ...
    @property
    def name(self) -> str: ...
    @property
    def dof(self) -> int: ...
    @property
    def joint_names(self) -> list[str]: ...
    @property
    def link_names(self) -> list[str]: ...
    def check_edge(
        self,
        q0: ArrayLike,
        q1: ArrayLike,
        environment: Optional[Mesh] = None,
        boolean: bool = False,
        tolerance: float = 1e-3,
        max_iterations: int = 1000,
        self_collision: bool = True,
    ) -> Optional[RobotContact]: ...
    def check_edges(
        self,
        q0: ArrayLike,
        q1: ArrayLike,
        environment: Optional[Mesh] = None,
        boolean: bool = True,
        tolerance: float = 1e-3,
        max_iterations: int = 1000,
        self_collision: bool = True,
        threads: Optional[int] = None,
    ) -> Tuple[F64Array, U8Array]: ...
