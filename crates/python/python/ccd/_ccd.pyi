"""Type stubs of the native module ``ccd._ccd`` (re-exported by ``ccd``)."""

import os
from typing import Any, Dict, Iterable, List, Literal, Mapping, Optional, Sequence, Tuple, TypedDict, Union, overload

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
# A pose (local -> world): a 4x4 or 3x4 matrix, (R 3x3, t), or (quaternion [x, y, z, w], t).
# The quaternion is SCALAR LAST (scipy's Rotation.as_quat(), ROS); a norm within 1e-3 of 1
# is normalised, farther from 1 it is rejected.
Pose = Union[ArrayLike, Tuple[ArrayLike, ArrayLike]]

class CcdError(ValueError):
    """Input rejected by a ccd query; the message says what and where."""

class Mesh:
    """A triangle mesh in its local frame with its bounding-volume hierarchy (built once).

    ``vertices``: float array ``(N, 3)``; ``faces``: integer array ``(M, 3)``.
    """

    def __init__(self, vertices: ArrayLike, faces: ArrayLike) -> None: ...
    @staticmethod
    def load(path: PathLike) -> "Mesh":
        """Reads an OBJ, PLY, STL or COLLADA (.dae) file (by extension)."""
    @staticmethod
    def from_trimesh(mesh: Any) -> "Mesh":
        """A mesh from any object with ``vertices`` and ``faces`` (a ``trimesh.Trimesh``)."""
    @property
    def vertices(self) -> F64Array: ...
    @property
    def faces(self) -> I64Array: ...
    @property
    def num_vertices(self) -> int: ...
    @property
    def num_faces(self) -> int: ...

class Contact:
    """The one contact type: time, witness points, normal, parts, features, status, iterations."""

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
    def part_a(self) -> int: ...
    @property
    def part_b(self) -> int: ...
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
    pose_a0: Pose,
    pose_a1: Pose,
    mesh_b: Mesh,
    pose_b0: Pose,
    pose_b1: Pose,
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

class Shape:
    """Base class of the analytic shapes (immutable, in their local frame)."""

class Ball(Shape):
    """A ball of radius ``radius`` centred at the origin (python-fcl's ``Sphere``)."""

    def __init__(self, radius: float) -> None: ...
    @property
    def radius(self) -> float: ...

class Capsule(Shape):
    """Points within ``radius`` of the segment of length ``length`` along local z."""

    def __init__(self, radius: float, length: float) -> None: ...
    @property
    def radius(self) -> float: ...
    @property
    def length(self) -> float: ...

class Box(Shape):
    """A box of FULL side lengths ``extents`` (x, y, z) centred at the origin."""

    def __init__(self, extents: ArrayLike) -> None: ...
    @property
    def extents(self) -> F64Array: ...
    @property
    def half_extents(self) -> F64Array: ...

class Cylinder(Shape):
    """A solid cylinder along local z (python-fcl's ``Cylinder(radius, lz)``)."""

    def __init__(self, radius: float, length: float) -> None: ...
    @property
    def radius(self) -> float: ...
    @property
    def length(self) -> float: ...

class Convex(Shape):
    """The convex hull of ``points`` ``(N, 3)``."""

    def __init__(self, points: ArrayLike) -> None: ...
    @property
    def vertices(self) -> F64Array: ...
    @property
    def faces(self) -> I64Array: ...

ShapeLike = Union[Shape, Mesh, Any]  # Any: an object with ``vertices`` and ``faces``

class Compound(Shape):
    """Shapes at local offsets: a non-empty sequence of ``(shape, pose)`` pairs."""

    def __init__(self, parts: Sequence[Tuple[ShapeLike, Pose]]) -> None: ...
    @property
    def parts(self) -> List[Tuple[ShapeLike, F64Array]]: ...
    def __len__(self) -> int: ...

class Motion:
    """A rigid motion over one step t in [0, 1] (constant linear and angular velocity)."""

    def __init__(self, start: Pose, end: Optional[Pose] = None) -> None: ...
    @staticmethod
    def from_velocities(
        start: Pose,
        linear: Optional[ArrayLike] = None,
        angular: Optional[ArrayLike] = None,
        center: Optional[ArrayLike] = None,
    ) -> "Motion":
        """``angular``: world rotation vector, radians per step, any angle."""
    def pose_at(self, t: float) -> F64Array: ...
    @property
    def start(self) -> F64Array: ...
    @property
    def end(self) -> F64Array: ...
    @property
    def linear_velocity(self) -> F64Array: ...
    @property
    def angular_velocity(self) -> F64Array: ...

MotionLike = Union[Motion, Pose]

ShapeContact = Contact  # the earlier name of the one contact type

class Distance:
    """A distance with world witness points, parts and features; ``float(d)`` is the distance."""

    @property
    def distance(self) -> float: ...
    @property
    def point_a(self) -> F64Array: ...
    @property
    def point_b(self) -> F64Array: ...
    @property
    def points(self) -> F64Array: ...
    @property
    def normal(self) -> F64Array: ...
    @property
    def part_a(self) -> int: ...
    @property
    def part_b(self) -> int: ...
    @property
    def feature_a(self) -> Feature: ...
    @property
    def feature_b(self) -> Feature: ...
    def __float__(self) -> float: ...

def toc(
    a: ShapeLike,
    motion_a: MotionLike,
    b: ShapeLike,
    motion_b: MotionLike,
    tolerance: float = 1e-3,
    max_iterations: int = 1000,
    boolean: bool = False,
) -> Optional[ShapeContact]:
    """First time of contact of two shapes over one step (conservative)."""

def collide(
    a: ShapeLike, pose_a: Pose, b: ShapeLike, pose_b: Pose, tolerance: float = 1e-9
) -> Optional[ShapeContact]:
    """Discrete check: a contact (toc 0, ``"initially_touching"``) or ``None``."""

def distance(a: ShapeLike, pose_a: Pose, b: ShapeLike, pose_b: Pose) -> Distance:
    """Distance with world witness points."""

def toc_batch(
    a: ShapeLike,
    poses_a0: ArrayLike,
    poses_a1: ArrayLike,
    b: ShapeLike,
    poses_b0: ArrayLike,
    poses_b1: ArrayLike,
    tolerance: float = 1e-3,
    max_iterations: int = 1000,
    threads: Optional[int] = None,
) -> Tuple[F64Array, U8Array]:
    """``(N, 4, 4)`` pose arrays -> ``(toc, status)``; NaN / ``NO_CONTACT`` where apart."""

class WorldContact:
    @property
    def body_a(self) -> int: ...
    @property
    def body_b(self) -> int: ...
    @property
    def contact(self) -> ShapeContact: ...
    @property
    def toc(self) -> float: ...

class World:
    """Collision manager: bodies with motions; ``step`` gives the step's contacts."""

    def __init__(self, tolerance: float = 1e-3, max_iterations: int = 1000) -> None: ...
    def add(self, shape: ShapeLike, motion: MotionLike, static: bool = False) -> int: ...
    def remove(self, body: int) -> None: ...
    def set_motion(self, body: int, motion: MotionLike) -> None: ...
    def set_velocities(self, body: int, linear: ArrayLike, angular: ArrayLike) -> None: ...
    def pose(self, body: int) -> F64Array: ...
    @property
    def bodies(self) -> List[int]: ...
    def __len__(self) -> int: ...
    @overload
    def step(self, mode: Literal["toc"] = "toc", parallel: bool = False) -> Optional[WorldContact]: ...
    @overload
    def step(self, mode: Literal["all"], parallel: bool = False) -> List[WorldContact]: ...
    @overload
    def step(self, mode: Literal["boolean"], parallel: bool = False) -> bool: ...
class PlanningSceneError(CcdError): ...

class PathContact:
    @property
    def segment(self) -> int: ...
    @property
    def toc(self) -> float: ...
    @property
    def part_a(self) -> str: ...
    @property
    def part_b(self) -> str: ...
    @property
    def contact(self) -> Contact: ...

class Clearance:
    @property
    def distance(self) -> float: ...
    @property
    def part_a(self) -> str: ...
    @property
    def part_b(self) -> str: ...
    @property
    def point_a(self) -> F64Array: ...
    @property
    def point_b(self) -> F64Array: ...

class PlanningScene:
    """Robots, static objects, attached objects and allowed collisions; planner queries."""

    def __init__(self) -> None: ...
    def add_robot(
        self,
        urdf: PathLike,
        srdf: Optional[PathLike] = None,
        packages: Optional[Mapping[str, PathLike]] = None,
        name: Optional[str] = None,
        allow_outside_paths: bool = False,
    ) -> None: ...
    def add_object(
        self,
        name: str,
        mesh: Optional[Mesh] = None,
        box: Optional[ArrayLike] = None,
        sphere: Optional[float] = None,
        cylinder: Optional[Tuple[float, float]] = None,
        pose: Optional[ArrayLike] = None,
    ) -> None: ...
    def remove_object(self, name: str) -> None: ...
    def attach_object(
        self,
        name: str,
        link: str,
        mesh: Optional[Mesh] = None,
        box: Optional[ArrayLike] = None,
        sphere: Optional[float] = None,
        cylinder: Optional[Tuple[float, float]] = None,
        pose: Optional[ArrayLike] = None,
        touch_links: Sequence[str] = (),
    ) -> None: ...
    def detach_object(self, name: str) -> None: ...
    def set_allowed(self, link_a: str, link_b: str, allowed: bool = True) -> None: ...
    @property
    def joint_names(self) -> list[str]: ...
    @property
    def dof(self) -> int: ...
    @property
    def part_names(self) -> list[str]: ...
    def check_edge(
        self,
        q0: ArrayLike,
        q1: ArrayLike,
        boolean: bool = False,
        tolerance: float = 1e-3,
        max_iterations: int = 1000,
    ) -> Optional[RobotContact]: ...
    def check_path(
        self,
        waypoints: ArrayLike,
        boolean: bool = False,
        tolerance: float = 1e-3,
        max_iterations: int = 1000,
    ) -> Optional[PathContact]: ...
    def check_edges(
        self,
        q0: ArrayLike,
        q1: ArrayLike,
        boolean: bool = True,
        tolerance: float = 1e-3,
        max_iterations: int = 1000,
        threads: Optional[int] = None,
    ) -> Tuple[F64Array, U8Array, list[Optional[str]], list[Optional[str]]]: ...
    def in_collision(self, q: ArrayLike, tolerance: float = 1e-3) -> bool: ...
    def clearance(self, q: ArrayLike) -> Optional[Clearance]: ...
