"""Continuous collision detection: the first time of contact between moving meshes.

Rigid meshes (:class:`Mesh`, :func:`rigid_toc`), vectorised vertex-face and edge-edge
kernels (:func:`vertex_face`, :func:`edge_edge`), deforming meshes
(:class:`DeformingScene`, :func:`collision_free_stepsize`), URDF robots (:class:`Robot`) and JSON Lines batches in the
command line's schema (:func:`batch`). Arrays in and out are numpy
arrays; time is normalised to ``t`` in [0, 1] over a step; every answer is conservative (a
contact may be reported early, within the tolerance, but never missed). Bad input raises
``TypeError``, ``ValueError`` (:class:`CcdError` is a ``ValueError``) or
``FileNotFoundError``.
"""

from ._ccd import (
    CONVERGED,
    INITIALLY_TOUCHING,
    NO_CONTACT,
    OUT_OF_ITERATIONS,
    STALLED,
    CcdError,
    Contact,
    DeformingScene,
    Mesh,
    Robot,
    RobotContact,
    __version__,
    batch,
    collision_free_stepsize,
    edge_edge,
    rigid_toc,
    vertex_face,
)

__all__ = [
    "CONVERGED",
    "INITIALLY_TOUCHING",
    "NO_CONTACT",
    "OUT_OF_ITERATIONS",
    "STALLED",
    "CcdError",
    "Contact",
    "DeformingScene",
    "Mesh",
    "Robot",
    "RobotContact",
    "__version__",
    "batch",
    "collision_free_stepsize",
    "edge_edge",
    "rigid_toc",
    "vertex_face",
]
