"""Continuous collision detection: the first time of contact between moving shapes.

Shapes (:class:`Ball`, :class:`Capsule`, :class:`Box`, :class:`Cylinder`, :class:`Convex`,
:class:`Compound`, :class:`Mesh`, or any object with ``vertices`` and ``faces`` such as a
``trimesh.Trimesh``), poses (4x4, 3x4, ``(R, t)``, ``(quaternion xyzw, t)``) and motions
(:class:`Motion`); the queries :func:`toc` (continuous: first time of contact),
:func:`collide` (discrete) and :func:`distance`, :func:`toc_batch` (many motions on all
cores) and the collision manager :class:`World`. Also: rigid meshes between two poses
(:func:`rigid_toc`), vectorised vertex-face and edge-edge kernels (:func:`vertex_face`,
:func:`edge_edge`), deforming meshes (:class:`DeformingScene`, :func:`collision_free_stepsize`), URDF robots
(:class:`Robot`), planning scenes (:class:`PlanningScene`: robots, objects, attached
objects, allowed collisions; edge, path, in-collision and clearance queries) and JSON Lines
batches in the command line's schema (:func:`batch`).
Arrays in and out are numpy arrays; time is normalised to ``t`` in [0, 1] over a step;
every answer is conservative (a contact may be reported early, within the tolerance, but
never missed). Bad input raises ``TypeError``, ``ValueError`` (:class:`CcdError` is a
``ValueError``) or ``FileNotFoundError``, naming the argument.

The distribution is ``ccd-toc`` on the registry (``pip install ccd-toc``); the import name
is ``ccd``.
"""

from typing import Any, Dict, Iterable, Tuple

from ._ccd import (
    CONVERGED,
    INITIALLY_TOUCHING,
    NO_CONTACT,
    OUT_OF_ITERATIONS,
    STALLED,
    Ball,
    Box,
    Capsule,
    CcdError,
    Compound,
    Contact,
    Convex,
    Cylinder,
    DeformingScene,
    Clearance,
    Distance,
    Mesh,
    Motion,
    PathContact,
    PlanningScene,
    PlanningSceneError,
    Robot,
    RobotContact,
    Shape,
    ShapeContact,
    World,
    WorldContact,
    __version__,
    batch,
    collide,
    collision_free_stepsize,
    distance,
    edge_edge,
    rigid_toc,
    toc,
    toc_batch,
    vertex_face,
)

#: Status codes of array outputs (``toc_batch``, ``vertex_face``, ``edge_edge``,
#: ``DeformingScene.contacts()["status"]``, ``Robot.check_edges``, …) by the status string of
#: :class:`Contact` (``"no_contact"`` is the code of an element without contact, where a
#: single query returns ``None``).
STATUS_CODES: Dict[str, int] = {
    "no_contact": NO_CONTACT,
    "converged": CONVERGED,
    "initially_touching": INITIALLY_TOUCHING,
    "out_of_iterations": OUT_OF_ITERATIONS,
    "stalled": STALLED,
}
#: The status string of each code: ``STATUS_NAMES[code]``; ``np.array(ccd.STATUS_NAMES)[codes]``
#: turns a whole status array into strings.
STATUS_NAMES: Tuple[str, ...] = tuple(sorted(STATUS_CODES, key=STATUS_CODES.get))
#: Feature kind codes of array outputs (the first column of ``DeformingScene.contacts()``'s
#: ``feature_a`` / ``feature_b`` rows ``(kind, i, j)``) by the kind string of a feature tuple
#: (``("vertex", i)``, ``("edge", i, j)``, ``("face", i)``).
FEATURE_CODES: Dict[str, int] = {"vertex": 0, "edge": 1, "face": 2}
#: The kind string of each feature code: ``FEATURE_NAMES[kind]``.
FEATURE_NAMES: Tuple[str, ...] = tuple(sorted(FEATURE_CODES, key=FEATURE_CODES.get))


def feature(row: "Iterable[int]") -> "Tuple[Any, ...]":
    """The feature tuple of an array row ``(kind, i, j)`` (``DeformingScene.contacts()``'s
    ``feature_a`` / ``feature_b`` rows): ``("vertex", i)``, ``("edge", i, j)`` or
    ``("face", i)``, as :class:`Contact` and the JSON of the command line (``["vertex", i]``)
    spell it. Raises ``ValueError`` naming ``row`` for anything else.

    Example:
        >>> import ccd
        >>> ccd.feature([0, 5, -1]), ccd.feature([1, 2, 7]), ccd.feature((2, 3, -1))
        (('vertex', 5), ('edge', 2, 7), ('face', 3))
    """
    try:
        values = [int(x) for x in row]
    except (TypeError, ValueError):
        raise ValueError(f"row must be 3 integers (kind, i, j), got {row!r}") from None
    if len(values) != 3 or values[0] not in (0, 1, 2) or values[1] < 0:
        raise ValueError(f"row must be (kind, i, j) with kind 0, 1 or 2 and i >= 0, got {row!r}")
    kind, i, j = values
    if kind == 1:
        if j < 0:
            raise ValueError(f"row: an edge needs j >= 0, got {row!r}")
        return ("edge", i, j)
    return (FEATURE_NAMES[kind], i)


__all__ = [
    "CONVERGED",
    "FEATURE_CODES",
    "FEATURE_NAMES",
    "STATUS_CODES",
    "STATUS_NAMES",
    "INITIALLY_TOUCHING",
    "NO_CONTACT",
    "OUT_OF_ITERATIONS",
    "STALLED",
    "Ball",
    "Box",
    "Capsule",
    "CcdError",
    "Compound",
    "Contact",
    "Convex",
    "Cylinder",
    "DeformingScene",
    "Clearance",
    "Distance",
    "Mesh",
    "Motion",
    "PathContact",
    "PlanningScene",
    "PlanningSceneError",
    "Robot",
    "RobotContact",
    "Shape",
    "ShapeContact",
    "World",
    "WorldContact",
    "__version__",
    "batch",
    "collide",
    "collision_free_stepsize",
    "distance",
    "edge_edge",
    "feature",
    "rigid_toc",
    "toc",
    "toc_batch",
    "vertex_face",
]
