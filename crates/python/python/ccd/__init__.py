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

__all__ = [
    "CONVERGED",
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
    "rigid_toc",
    "toc",
    "toc_batch",
    "vertex_face",
]
