"""Families 1-2 with python-fcl (issue 36, `cargo xtask peers`): ccd (the installed wheel)
against python-fcl on the same shapes and motions, judged by an independent dense reference.

    python benches/peers/rigid_fcl.py --out FILE [--quick] [--repeats N]

Writes two families (peers protocol, `benches/README.md`):

- ``rigid-meshes``: ten mesh pairs (spheres, cubes, thin plates, a bar; head-on, tunnelling
  through thin plates, turning, grazing, near misses; five with ``--quick``), one moving
  between two poses. ccd: ``ccd.toc`` (tolerance 1e-3). python-fcl: ``continuousCollide`` with
  its default request (conservative advancement, translation motion) and its sampling solver
  (``CCDC_NAIVE``, ``CCDM_LINEAR``, 10 samples).
- ``analytic-shapes``: continuous pairs of analytic shapes (ball, box, capsule) under the same
  motions, same tools; and ``collide`` on random poses of ball-ball, box-ball,
  capsule-capsule, box-box and a mesh pair (misses: "free" where the shapes overlap; false
  alarms: "collision" where they are apart).

Reference (continuous): the exact distance (below) at 4,000 evenly spaced poses of the true
motion (1,000 with ``--quick``); its time of contact is the first pose where the shapes touch
(distance 0). A *miss* is "no contact" when the reference touches; *late* a time after the
reference's first touching pose; a *false alarm* a contact when the shapes never come within
the tolerance (1e-3). Answers earlier than the tolerance allows (the distance at the reported
time above twice the tolerance) are listed in the notes. The motion of the reference
(translation linear, rotation at constant angular velocity the short way) is checked against
``ccd.Motion.pose_at``. Reference distances: closed forms for ball, box-ball and capsule pairs,
the brute-force surface distance (numpy: every vertex-triangle and edge-edge distance, 0 when
an edge crosses a triangle) for boxes and meshes.

Fairness check: ccd's and python-fcl's static distances at sampled separated poses of every
shape pair agree (and agree with the reference).

Times: per query, the call only (shapes, hierarchies, pose arrays and fcl transforms built
beforehand; fcl's time includes its ``setTransform`` calls and request / result objects),
best of ``--repeats`` runs, thread CPU time of that run beside it.
"""

import os
import sys

import numpy as np

import ccd

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
# the numpy reference kernels of the Python package's tests (one implementation)
sys.path.insert(0, os.path.join(HERE, "..", "..", "crates", "python", "tests"))
from common import (  # noqa: E402
    check, family, package_version, parse_args, repeats_of, row, skipped_row, time_query, write_json,
)
from reference import point_triangle_distance, segment_segment_distance  # noqa: E402

TOL = 1e-3
SETTINGS_CCD = f"ccd.toc, tolerance {TOL}"
FCL_TOOLS = {
    "python-fcl default": "continuousCollide, default request (conservative advancement, CCDM_TRANS)",
    "python-fcl sampling": "continuousCollide, CCDC_NAIVE + CCDM_LINEAR (10 samples)",
}
# the issue states speed targets against parry3d-f64 only (peers_rust); python-fcl rows carry
# none: their ratios are data
TARGET = {"rigid-meshes": None, "analytic-shapes": None}


# ---------------------------------------------------------------- geometry helpers


def rot(axis, angle):
    """Rotation matrix about `axis` by `angle` (Rodrigues)."""
    axis = np.asarray(axis, float)
    n = np.linalg.norm(axis)
    if n == 0 or angle == 0:
        return np.eye(3)
    k = axis / n
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + np.sin(angle) * K + (1 - np.cos(angle)) * K @ K


def pose(R=None, t=(0, 0, 0)):
    m = np.eye(4)
    if R is not None:
        m[:3, :3] = R
    m[:3, 3] = t
    return m


def log_rot(R):
    """Rotation vector of R (angle in [0, pi])."""
    c = np.clip((np.trace(R) - 1) / 2, -1, 1)
    angle = np.arccos(c)
    if angle < 1e-12:
        return np.zeros(3)
    if np.pi - angle < 1e-6:
        # near half a turn: the axis from the symmetric part
        B = (R + np.eye(3)) / 2
        k = np.sqrt(np.clip(np.diag(B), 0, None))
        i = int(np.argmax(k))
        k = B[i] / k[i]
        return angle * k / np.linalg.norm(k)
    w = np.array([R[2, 1] - R[1, 2], R[0, 2] - R[2, 0], R[1, 0] - R[0, 1]]) / (2 * np.sin(angle))
    return angle * w


def motion_poses(p0, p1, ts):
    """Poses of the motion p0 -> p1 (linear translation, constant angular velocity the short
    way) at times ts: (S, 4, 4)."""
    w = log_rot(p1[:3, :3] @ p0[:3, :3].T)
    out = np.tile(np.eye(4), (len(ts), 1, 1))
    angle = np.linalg.norm(w)
    for i, t in enumerate(ts):
        out[i, :3, :3] = rot(w, angle * t) @ p0[:3, :3]
        out[i, :3, 3] = (1 - t) * p0[:3, 3] + t * p1[:3, 3]
    return out


def edges_of(faces):
    e = np.concatenate([faces[:, [0, 1]], faces[:, [1, 2]], faces[:, [2, 0]]])
    return np.unique(np.sort(e, axis=1), axis=0)


class RefMesh:
    """A triangle mesh for the brute-force reference."""

    def __init__(self, v, f):
        self.v = np.asarray(v, float)
        self.f = np.asarray(f, np.int64)
        self.e = edges_of(self.f)


def _apply(poses, v):
    """Vertices v (N, 3) under poses (S, 4, 4): (S, N, 3)."""
    return np.einsum("sij,nj->sni", poses[:, :3, :3], v) + poses[:, None, :3, 3]


def _segments_cross_triangles(p, q, a, b, c):
    """Whether segments p->q cross triangles abc (broadcast), by signed volumes."""
    n = np.cross(b - a, c - a)
    dp = np.einsum("...i,...i->...", p - a, n)
    dq = np.einsum("...i,...i->...", q - a, n)
    straddle = (dp * dq <= 0) & (dp != dq)
    s = np.where(straddle, dp / np.where(dp != dq, dp - dq, 1.0), 0.0)
    x = p + s[..., None] * (q - p)
    nn = np.einsum("...i,...i->...", n, n)
    nn = np.where(nn > 0, nn, 1.0)
    wa = np.einsum("...i,...i->...", np.cross(b - x, c - x), n) / nn
    wb = np.einsum("...i,...i->...", np.cross(c - x, a - x), n) / nn
    wc = 1 - wa - wb
    return straddle & (wa >= 0) & (wb >= 0) & (wc >= 0)


def mesh_distance(A, pa, B, pbs, chunk=64):
    """Exact surface distance between mesh A at pose pa and mesh B at each pose of pbs
    (S, 4, 4): (S,)."""
    va = _apply(pa[None], A.v)[0]
    out = np.empty(len(pbs))
    for s0 in range(0, len(pbs), chunk):
        vb = _apply(pbs[s0 : s0 + chunk], B.v)  # (s, Nb, 3)
        s = len(vb)
        # vertices of A against triangles of B
        tb = vb[:, B.f]  # (s, Fb, 3, 3)
        d1 = point_triangle_distance(va[None, :, None, :], tb[:, None, :, 0], tb[:, None, :, 1], tb[:, None, :, 2])
        # vertices of B against triangles of A
        ta = va[A.f]  # (Fa, 3, 3)
        d2 = point_triangle_distance(vb[:, :, None, :], ta[None, None, :, 0], ta[None, None, :, 1], ta[None, None, :, 2])
        # edges against edges
        ea0, ea1 = va[A.e[:, 0]], va[A.e[:, 1]]
        eb0, eb1 = vb[:, B.e[:, 0]], vb[:, B.e[:, 1]]
        d3 = segment_segment_distance(ea0[None, :, None], ea1[None, :, None], eb0[:, None], eb1[:, None])
        d = np.minimum(np.minimum(d1.reshape(s, -1).min(1), d2.reshape(s, -1).min(1)), d3.reshape(s, -1).min(1))
        # an edge of one crossing a triangle of the other: distance 0
        x1 = _segments_cross_triangles(ea0[None, :, None], ea1[None, :, None], tb[:, None, :, 0], tb[:, None, :, 1], tb[:, None, :, 2])
        x2 = _segments_cross_triangles(eb0[:, :, None], eb1[:, :, None], ta[None, None, :, 0], ta[None, None, :, 1], ta[None, None, :, 2])
        crossing = x1.reshape(s, -1).any(1) | x2.reshape(s, -1).any(1)
        out[s0 : s0 + s] = np.where(crossing, 0.0, d)
    return out


# ---------------------------------------------------------------- shapes in both libraries


def fcl_bvh(fcl, v, f):
    m = fcl.BVHModel()
    m.beginModel(len(v), len(f))
    m.addSubModel(np.asarray(v, float), np.asarray(f, np.int32))
    m.endModel()
    return m


def box_mesh(extents):
    """A box of full `extents` centred at the origin: 8 vertices, 12 outward triangles."""
    h = np.asarray(extents, float) / 2
    v = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float) * h
    f = np.array([
        [0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5],  # x = -h, x = +h
        [0, 4, 5], [0, 5, 1], [2, 3, 7], [2, 7, 6],  # y = -h, y = +h
        [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3],  # z = -h, z = +h
    ], np.int64)
    return v, f


def sphere_mesh(radius, subdivisions=1):
    """An icosphere: the icosahedron with each triangle split in four `subdivisions` times,
    vertices pushed onto the sphere (subdivisions=1: 42 vertices, 80 triangles)."""
    g = (1 + 5 ** 0.5) / 2
    v = [[-1, g, 0], [1, g, 0], [-1, -g, 0], [1, -g, 0], [0, -1, g], [0, 1, g], [0, -1, -g], [0, 1, -g],
         [g, 0, -1], [g, 0, 1], [-g, 0, -1], [-g, 0, 1]]
    f = [[0, 11, 5], [0, 5, 1], [0, 1, 7], [0, 7, 10], [0, 10, 11], [1, 5, 9], [5, 11, 4], [11, 10, 2],
         [10, 7, 6], [7, 1, 8], [3, 9, 4], [3, 4, 2], [3, 2, 6], [3, 6, 8], [3, 8, 9], [4, 9, 5],
         [2, 4, 11], [6, 2, 10], [8, 6, 7], [9, 8, 1]]
    v = [list(np.asarray(p, float) / np.linalg.norm(p)) for p in v]
    for _ in range(subdivisions):
        mid = {}

        def middle(i, j):
            key = (min(i, j), max(i, j))
            if key not in mid:
                m = (np.asarray(v[i]) + np.asarray(v[j])) / 2
                v.append(list(m / np.linalg.norm(m)))
                mid[key] = len(v) - 1
            return mid[key]

        nf = []
        for a, b, c in f:
            ab, bc, ca = middle(a, b), middle(b, c), middle(c, a)
            nf += [[a, ab, ca], [b, bc, ab], [c, ca, bc], [ab, bc, ca]]
        f = nf
    return np.asarray(v) * radius, np.asarray(f, np.int64)


class Pair:
    """One shape in both libraries and the reference."""

    def __init__(self, fcl, kind, **kw):
        self.kind, self.kw = kind, kw
        if kind == "mesh":
            v, f = kw["v"], kw["f"]
            self.ccd = ccd.Mesh(v, f)
            self.fcl = fcl_bvh(fcl, v, f)
            self.ref = RefMesh(v, f)
        elif kind == "ball":
            self.ccd, self.fcl = ccd.Ball(kw["r"]), fcl.Sphere(kw["r"])
        elif kind == "box":
            self.ccd, self.fcl = ccd.Box(kw["e"]), fcl.Box(*kw["e"])
            self.ref = RefMesh(*box_mesh(kw["e"]))
        elif kind == "capsule":
            self.ccd, self.fcl = ccd.Capsule(kw["r"], kw["l"]), fcl.Capsule(kw["r"], kw["l"])


def fcl_tf(fcl, m):
    return fcl.Transform(m[:3, :3].copy(), m[:3, 3].copy())


def continuous_cases():
    """(name, mesh A, pose A, mesh B, start B, end B)."""
    ball_v, ball_f = sphere_mesh(0.5)
    small_v, small_f = sphere_mesh(0.1)
    cube_v, cube_f = box_mesh([1, 1, 1])
    plate_v, plate_f = box_mesh([2, 2, 0.01])
    bar_v, bar_f = box_mesh([3, 0.1, 0.1])
    post_v, post_f = box_mesh([0.2, 0.2, 1])
    E = np.eye(4)
    rz = lambda a: rot([0, 0, 1], a)  # noqa: E731
    return [
        ("spheres head-on", (ball_v, ball_f), E, (ball_v, ball_f), pose(t=[3, 0, 0]), pose(t=[-3, 0, 0])),
        ("cube through thin plate", (plate_v, plate_f), E, (cube_v, cube_f), pose(t=[0, 0, 2]), pose(t=[0, 0, -2])),
        ("small sphere through thin plate", (plate_v, plate_f), E, (small_v, small_f), pose(t=[0.3, 0.2, 1]), pose(t=[0.3, 0.2, -1])),
        ("sphere over a cube (miss by 0.05)", (cube_v, cube_f), E, (ball_v, ball_f), pose(t=[-3, 0, 1.05]), pose(t=[3, 0, 1.05])),
        ("cube turning 90 deg into a cube", (cube_v, cube_f), E, (cube_v, cube_f), pose(t=[2.5, 0.3, 0]), pose(rz(np.pi / 2), [0.9, 0.3, 0])),
        ("cubes sliding past at gap 0.01", (cube_v, cube_f), E, (cube_v, cube_f), pose(t=[-3, 1.01, 0]), pose(t=[3, 1.01, 0])),
        ("bar sweeping 170 deg onto a post", (post_v, post_f), pose(t=[1.0, 1.0, 0]), (bar_v, bar_f), pose(rz(-np.pi / 2)), pose(rz(-np.pi / 2 + np.radians(170)))),
        ("sphere grazing a plate corner", (plate_v, plate_f), E, (ball_v, ball_f), pose(t=[1.3, 1.3, 2]), pose(t=[1.3, 1.3, -2])),
        ("cubes moving apart", (cube_v, cube_f), E, (cube_v, cube_f), pose(t=[1.2, 0, 0]), pose(t=[4, 0, 0])),
        ("cube edge-on through a plate, turning", (plate_v, plate_f), E, (cube_v, cube_f), pose(rot([1, 0, 0], 0.3), [0.5, -0.4, 1.5]), pose(rot([1, 1, 0], 1.2), [-0.2, 0.3, -1.5])),
    ]


def random_rotation(rng):
    q = rng.normal(size=4)
    q /= np.linalg.norm(q)
    x, y, z, w = q
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])


def reference_distance(a, pa, b, pb):
    """Exact distance between shapes a at pa and b at pb (0 when they overlap)."""
    if a.kind == "ball" and b.kind == "ball":
        return max(0.0, np.linalg.norm(pa[:3, 3] - pb[:3, 3]) - a.kw["r"] - b.kw["r"])
    if a.kind == "box" and b.kind == "ball":
        c = pa[:3, :3].T @ (pb[:3, 3] - pa[:3, 3])
        h = np.asarray(a.kw["e"]) / 2
        return max(0.0, np.linalg.norm(c - np.clip(c, -h, h)) - b.kw["r"])
    if a.kind == "capsule" and b.kind == "capsule":
        def seg(s, p):
            half = np.array([0, 0, s.kw["l"] / 2])
            return p[:3, :3] @ -half + p[:3, 3], p[:3, :3] @ half + p[:3, 3]
        (a0, a1), (b0, b1) = seg(a, pa), seg(b, pb)
        return max(0.0, float(segment_segment_distance(a0, a1, b0, b1)) - a.kw["r"] - b.kw["r"])
    # boxes and meshes: their surfaces (the poses never put one inside the other)
    return float(mesh_distance(a.ref, pa, b.ref, pb[None])[0])




# ---------------------------------------------------------------- continuous queries


def analytic_cases(fcl):
    """(name, shape A, pose A, shape B, start B, end B) with analytic shapes."""
    rz = lambda a: rot([0, 0, 1], a)  # noqa: E731
    E = np.eye(4)
    ball5, ball3 = Pair(fcl, "ball", r=0.5), Pair(fcl, "ball", r=0.3)
    slab = Pair(fcl, "box", e=[4.0, 0.2, 4.0])
    cap = Pair(fcl, "capsule", r=0.1, l=2.0)
    box = Pair(fcl, "box", e=[1.0, 0.6, 0.4])
    cube = Pair(fcl, "box", e=[0.5, 0.5, 0.5])
    return [
        ("ball-ball head-on", ball5, E, ball3, pose(t=[4, 0.2, 0.1]), pose(t=[-4, 0.2, 0.1])),
        ("ball-ball near miss (0.01)", ball5, E, ball3, pose(t=[4, 0.81, 0]), pose(t=[-4, 0.81, 0])),
        ("box-ball falling through a slab", slab, E, ball3, pose(t=[0.3, 3, 0.1]), pose(t=[0.3, -3, 0.1])),
        ("capsule-capsule crossing, turning", cap, pose(rot([1, 0, 0], np.pi / 2)), cap,
         pose(rot([0, 1, 0], np.pi / 2), [0, 0, 2]), pose(rz(1.2) @ rot([0, 1, 0], np.pi / 2), [0, 0, -2])),
        ("box-box turning 90 deg", box, E, cube, pose(t=[2.5, 0.3, 0]), pose(rz(np.pi / 2), [0.4, 0.3, 0])),
        ("box-box sliding past (gap 0.01)", box, E, cube, pose(t=[-3, 0.56, 0]), pose(t=[3, 0.56, 0])),
    ]


def mesh_cases(fcl):
    return [(name, Pair(fcl, "mesh", v=va, f=fa), pa, Pair(fcl, "mesh", v=vb, f=fb), b0, b1)
            for name, (va, fa), pa, (vb, fb), b0, b1 in continuous_cases()]


def continuous_family(fcl, name, title, cases, quick, repeats, fcl_version):
    samples = 1000 if quick else 4000
    ts = np.linspace(0.0, 1.0, samples)
    req = {
        "python-fcl default": fcl.ContinuousCollisionRequest(),
        "python-fcl sampling": fcl.ContinuousCollisionRequest(
            ccd_solver_type=fcl.CCDSolverType.CCDC_NAIVE, ccd_motion_type=fcl.CCDMotionType.CCDM_LINEAR),
    }
    rows, notes, details = [], [], []
    for case, a, pa, b, b0, b1 in cases:
        motion = ccd.Motion(b0, b1)
        poses = motion_poses(b0, b1, ts)
        for t in (0.0, 0.37, 1.0):  # the reference's motion is ccd's motion
            assert np.allclose(motion.pose_at(t), motion_poses(b0, b1, [t])[0], atol=1e-9), case
        surfaces = a.kind in ("mesh", "box") and b.kind in ("mesh", "box")
        dist = mesh_distance(a.ref, pa, b.ref, poses) if surfaces \
            else np.array([reference_distance(a, pa, b, p) for p in poses])
        touch = np.nonzero(dist == 0.0)[0]
        ref_toc = float(ts[touch[0]]) if len(touch) else None
        near = bool((dist <= TOL).any())

        def verdict(toc):
            """(miss, late, false alarm, too early)."""
            if toc is None:
                return int(ref_toc is not None), 0, 0, 0
            late = int(ref_toc is not None and toc > ref_toc + 1e-12)
            alarm = int(ref_toc is None and not near)
            d = reference_distance(a, pa, b, motion_poses(b0, b1, [toc])[0])
            return 0, late, alarm, int(not alarm and d > 2 * TOL)

        answers = {}
        wall, cpu, c = time_query(lambda: ccd.toc(a.ccd, pa, b.ccd, motion, tolerance=TOL), repeats)
        answers["ccd"] = None if c is None else c.toc
        m, l_, fa, early = verdict(answers["ccd"])
        rows.append(row(case, "ccd", is_ccd=True, version=ccd.__version__, settings=SETTINGS_CCD, queries=1,
                        misses=m, late=l_, false_alarms=fa, walls=[wall], cpus=[cpu]))
        if early:
            notes.append(f"{case}: ccd's time of contact is earlier than the tolerance allows")
        tfa, tfb0, tfb1 = fcl_tf(fcl, pa), fcl_tf(fcl, b0), fcl_tf(fcl, b1)
        for tool, settings in FCL_TOOLS.items():
            # fresh geometry and objects per solver: after a conservative-advancement call on
            # the same models, the sampling solver reports contacts that are not there
            ga, gb = Pair(fcl, a.kind, **a.kw).fcl, Pair(fcl, b.kind, **b.kw).fcl
            oa, ob = fcl.CollisionObject(ga, fcl_tf(fcl, pa)), fcl.CollisionObject(gb, fcl_tf(fcl, b0))

            def run(req=req[tool], oa=oa, ob=ob):
                # continuousCollide leaves the objects where it stopped: start poses again
                oa.setTransform(tfa)
                ob.setTransform(tfb0)
                res = fcl.ContinuousCollisionResult()
                fcl.continuousCollide(oa, tfa, ob, tfb1, req, res)
                return res

            try:
                wall, cpu, res = time_query(run, repeats)
            except Exception as e:  # an unsupported pair is the peer's answer: a skipped row
                rows.append(skipped_row(case, tool, f"continuousCollide raised {type(e).__name__}: {e}",
                                        version=fcl_version, settings=settings, target_ratio=TARGET[name]))
                answers[tool] = "error"
                continue
            answers[tool] = res.time_of_contact if res.is_collide else None
            m, l_, fa, early = verdict(answers[tool])
            rows.append(row(case, tool, is_ccd=False, version=fcl_version, settings=settings, queries=1,
                            misses=m, late=l_, false_alarms=fa, walls=[wall], cpus=[cpu], target_ratio=TARGET[name]))
            if early:
                notes.append(f"{case}: {tool}'s time of contact is earlier than the tolerance allows")
        fmt = lambda x: x if isinstance(x, str) else ("none" if x is None else f"{x:.4f}")  # noqa: E731
        notes.append(f"{case}: reference toc {fmt(ref_toc)}; " + ", ".join(f"{t} {fmt(v)}" for t, v in answers.items()))
        details.append({"case": case, "reference_toc": ref_toc, "near": near, "answers": answers})
    reference = (f"exact distance at {samples} evenly spaced poses of the motion (closed forms for primitives, "
                 "brute-force surface distance for boxes and meshes); contact = first pose at distance 0")
    return family(name, title, reference, quick, rows, notes=notes), details


# ---------------------------------------------------------------- discrete: collide, and the fairness check


def collide_rows(fcl, quick, repeats, fcl_version, seed=1):
    """Collide on random poses per shape pair (rows), and the static distances of ccd and fcl
    at separated poses compared (the fairness check)."""
    rng = np.random.default_rng(seed)
    n = 30 if quick else 200
    ico_v, ico_f = sphere_mesh(0.5)
    cube_v, cube_f = box_mesh([0.8, 0.8, 0.8])
    kinds = [
        ("ball-ball", Pair(fcl, "ball", r=0.5), Pair(fcl, "ball", r=0.3), 1.1),
        ("box-ball", Pair(fcl, "box", e=[1.0, 0.6, 0.4]), Pair(fcl, "ball", r=0.3), 0.9),
        ("capsule-capsule", Pair(fcl, "capsule", r=0.2, l=1.0), Pair(fcl, "capsule", r=0.15, l=0.8), 0.9),
        ("box-box", Pair(fcl, "box", e=[1.0, 0.6, 0.4]), Pair(fcl, "box", e=[0.5, 0.5, 0.5]), 1.0),
        ("mesh-mesh (icosphere 80 tris, cube 12)", Pair(fcl, "mesh", v=ico_v, f=ico_f), Pair(fcl, "mesh", v=cube_v, f=cube_f), 1.1),
    ]
    rows, notes = [], []
    worst, compared, wrong_ref = 0.0, 0, 0
    creq, dreq = fcl.CollisionRequest(), fcl.DistanceRequest()
    for name, a, b, spread in kinds:
        oa, ob = fcl.CollisionObject(a.fcl, fcl.Transform()), fcl.CollisionObject(b.fcl, fcl.Transform())
        st = {t: {"walls": [], "cpus": [], "misses": 0, "alarms": 0} for t in ("ccd", "python-fcl")}
        dtimes = {"ccd": [], "python-fcl": []}
        left_out = queries = 0
        for _ in range(n):
            pa = pose(random_rotation(rng), rng.uniform(-0.1, 0.1, 3))
            pb = pose(random_rotation(rng), rng.normal(size=3) / np.sqrt(3) * spread)
            ref = reference_distance(a, pa, b, pb)
            tfa, tfb = fcl_tf(fcl, pa), fcl_tf(fcl, pb)

            def f_collide():
                oa.setTransform(tfa)
                ob.setTransform(tfb)
                res = fcl.CollisionResult()
                fcl.collide(oa, ob, creq, res)
                return res.is_collision

            def f_distance():
                oa.setTransform(tfa)
                ob.setTransform(tfb)
                return fcl.distance(oa, ob, dreq, fcl.DistanceResult())

            def c_collide():
                return ccd.collide(a.ccd, pa, b.ccd, pb) is not None

            def c_distance():
                return ccd.distance(a.ccd, pa, b.ccd, pb).distance

            if 0 < ref < 1e-6:
                left_out += 1
            else:
                queries += 1
                for t, f in (("ccd", c_collide), ("python-fcl", f_collide)):
                    wall, cpu, hit = time_query(f, repeats)
                    st[t]["walls"].append(wall)
                    st[t]["cpus"].append(cpu)
                    st[t]["misses"] += int(ref == 0 and not hit)
                    st[t]["alarms"] += int(ref > 0 and bool(hit))
            if ref > TOL:
                # fairness: the same geometry in both libraries (and in the reference)
                wall_c, _, dc = time_query(c_distance, repeats)
                wall_f, _, df = time_query(f_distance, repeats)
                dtimes["ccd"].append(wall_c)
                dtimes["python-fcl"].append(wall_f)
                worst = max(worst, abs(dc - df) / max(1.0, ref))
                wrong_ref += int(abs(dc - ref) > 1e-6 * max(1.0, ref))
                compared += 1
        workload = f"collide, {name}"
        for t in ("ccd", "python-fcl"):
            rows.append(row(workload, t, is_ccd=(t == "ccd"),
                            version=ccd.__version__ if t == "ccd" else fcl_version,
                            settings="ccd.collide" if t == "ccd" else "fcl.collide, default request",
                            queries=queries, misses=st[t]["misses"], late=None, false_alarms=st[t]["alarms"],
                            walls=st[t]["walls"], cpus=st[t]["cpus"], target_ratio=None))
        if left_out:
            notes.append(f"{workload}: {left_out} poses within 1e-6 of touching left out")
        med = lambda xs: 1e6 * float(np.median(xs)) if xs else float("nan")  # noqa: E731
        notes.append(f"distance, {name}: ccd.distance {med(dtimes['ccd']):.2f} µs, fcl.distance {med(dtimes['python-fcl']):.2f} µs "
                     f"(median over {len(dtimes['ccd'])} separated poses)")
    ok = worst <= 1e-6 and wrong_ref == 0
    return rows, notes, check(
        f"same geometry: static distances ccd.distance vs fcl.distance at {compared} separated poses of 5 shape pairs",
        ok, f"max |difference| {worst:.2e} (relative to max(1, d); ≤ 1e-6); ccd vs the reference: {wrong_ref} beyond 1e-6")


def run(quick=False, repeats=None):
    """Both families (dicts) and the continuous cases' details; without python-fcl, every fcl
    row is skipped with the reason."""
    repeats = repeats or (3 if quick else 7)
    try:
        import fcl
    except ImportError as e:
        return unavailable(quick, f"python-fcl does not import: {e}"), []
    fcl_version = package_version("python-fcl")
    cases = mesh_cases(fcl)
    if quick:
        cases = cases[:4] + cases[6:7]
    meshes, d1 = continuous_family(fcl, "rigid-meshes", "Rigid mesh pairs (Python: ccd wheel vs python-fcl)",
                                   cases, quick, repeats, fcl_version)
    analytic, d2 = continuous_family(fcl, "analytic-shapes", "Analytic shape pairs (Python: ccd wheel vs python-fcl)",
                                     analytic_cases(fcl), quick, repeats, fcl_version)
    rows, notes, fair = collide_rows(fcl, quick, repeats, fcl_version)
    analytic["rows"] += rows
    analytic["notes"] += notes
    analytic["checks"].append(fair)
    meshes["checks"].append(fair)
    motion = check("same motion: the reference's poses vs ccd.Motion.pose_at (3 times per case)", True,
                   "asserted within 1e-9 for every case")
    meshes["checks"].append(motion)
    analytic["checks"].append(motion)
    return [meshes, analytic], d1 + d2


def unavailable(quick, reason):
    """Both families with every python-fcl row skipped (ccd not run: nothing to compare)."""
    out = []
    for name in ("rigid-meshes", "analytic-shapes"):
        rows = [skipped_row("python-fcl (all workloads)", t, reason, settings=s, target_ratio=TARGET[name])
                for t, s in FCL_TOOLS.items()]
        out.append(family(name, f"{name} (Python: python-fcl unavailable)", "not run", quick, rows,
                          notes=[reason]))
    return out


def main():
    args = parse_args(__doc__)
    families, _ = run(args.quick, repeats_of(args))
    write_json(args.out, families)
    for f in families:
        ccd_rows = [r for r in f["rows"] if r["is_ccd"]]
        print(f"{f['family']}: {len(f['rows'])} rows, ccd misses {sum(r['misses'] or 0 for r in ccd_rows)}, "
              f"late {sum(r['late'] or 0 for r in ccd_rows)}")
    # exit 0 when it ran (a failed fairness check is reported by `cargo xtask peers`, and here)
    return 0 if all(c["passed"] for f in families for c in f["checks"]) else 1


if __name__ == "__main__":
    sys.exit(main())
