"""ccd against python-fcl in the same run, on the same shapes and poses, judged by an
independent dense reference. Run with the package (release build) and python-fcl installed:

    python crates/python/benches/vs_fcl.py [--quick] [--json out.json]

Kinds (each row: correct/total per tool, median µs per query, ratio fcl / ccd):

- ``continuous, meshes``: ten mesh pairs (spheres, cubes, thin plates, a bar; head-on,
  tunnelling through thin plates, turning, grazing, near misses), one moving between two
  poses. ccd: ``ccd.toc``. fcl: ``continuousCollide`` with its default request
  (conservative advancement, translation motion) and its sampling solver (``CCDC_NAIVE``,
  ``CCDM_LINEAR``, 10 samples). Reference: the exact mesh distance (below) at 4,000 evenly
  spaced poses of the true motion (1,000 with ``--quick``); its time of contact is the
  first pose where the meshes touch (distance 0). An answer is correct when it reports no
  contact exactly when the meshes never come within the tolerance (1e-3), and otherwise a
  time no later than the reference's (a pose where they touch) at which the meshes are
  within twice the tolerance (a contact may come early by the time it takes to close the
  tolerance, never more). The cases keep their near misses well outside the tolerance.
- ``collide`` and ``distance`` on primitives (ball-ball, box-ball, capsule-capsule,
  box-box) and meshes (icosphere-cube), random poses (about half overlapping). Reference:
  analytic distances (ball, box-ball, capsule segments) and the brute-force mesh distance
  for boxes and meshes. collide is correct when it answers "collision" exactly when the
  reference distance is 0 (poses within 1e-6 of touching are left out, and counted);
  distance is correct within 1e-6 when the shapes are apart, and when they overlap if it
  reports 0 or less (fcl returns -1 for overlapping primitives).

The brute-force mesh distance (numpy, vectorised over poses): the least of every vertex-
triangle distance (both ways) and every edge-edge distance, 0 when an edge of one crosses a
triangle of the other; meshes are surfaces (as in both libraries). The motion of the
reference is computed here (translation linear, rotation at constant angular velocity the
short way) and checked against ``ccd.Motion.pose_at``.

Times: per query, the call only (shapes, hierarchies and pose arrays or fcl transforms are
built beforehand; fcl's time includes its ``setTransform`` calls and request / result
objects), the median over queries of each query's best of ``--repeats`` runs.
"""

import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

import ccd

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
from reference import point_triangle_distance, segment_segment_distance  # noqa: E402

TOL = 1e-3


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
    import trimesh

    m = trimesh.creation.box(extents=extents)
    return np.asarray(m.vertices), np.asarray(m.faces)


def sphere_mesh(radius, subdivisions=1):
    import trimesh

    m = trimesh.creation.icosphere(subdivisions=subdivisions, radius=radius)
    return np.asarray(m.vertices), np.asarray(m.faces)


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


# ---------------------------------------------------------------- timing


def best_time(f, repeats):
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - start)
    return best


# ---------------------------------------------------------------- continuous on meshes


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


def continuous_rows(fcl, quick, repeats):
    samples = 1000 if quick else 4000
    cases = continuous_cases()
    if quick:
        cases = cases[:4] + cases[6:7]
    ts = np.linspace(0.0, 1.0, samples)
    tools = ["ccd", "fcl default (CA, translation)", "fcl sampling (naive, linear, 10)"]
    correct = {t: 0 for t in tools}
    times = {t: [] for t in tools}
    details = []
    req_default = fcl.ContinuousCollisionRequest()
    req_naive = fcl.ContinuousCollisionRequest(
        ccd_solver_type=fcl.CCDSolverType.CCDC_NAIVE, ccd_motion_type=fcl.CCDMotionType.CCDM_LINEAR
    )
    for name, (va, fa), pa, (vb, fb), b0, b1 in cases:
        A, B = RefMesh(va, fa), RefMesh(vb, fb)
        ma, mb = ccd.Mesh(va, fa), ccd.Mesh(vb, fb)
        motion = ccd.Motion(b0, b1)
        poses = motion_poses(b0, b1, ts)
        for t in (0.0, 0.37, 1.0):  # the reference's motion is ccd's motion
            assert np.allclose(motion.pose_at(t), motion_poses(b0, b1, [t])[0], atol=1e-9), name
        dist = mesh_distance(A, pa, B, poses)
        touch = np.nonzero(dist == 0.0)[0]
        ref_toc = float(ts[touch[0]]) if len(touch) else None
        near = bool((dist <= TOL).any())

        def judge(toc):
            if toc is None:
                # no contact is right when the meshes never come within the tolerance
                return not near
            if ref_toc is None and not near:
                return False
            if ref_toc is not None and toc > ref_toc + 1e-12:
                return False  # later than a pose where the meshes touch
            d = mesh_distance(A, pa, B, motion_poses(b0, b1, [toc]))[0]
            return bool(d <= 2 * TOL)  # early by at most the time to close the tolerance

        answers = {}
        c = ccd.toc(ma, pa, mb, motion, tolerance=TOL)
        answers["ccd"] = None if c is None else c.toc
        times["ccd"].append(best_time(lambda: ccd.toc(ma, pa, mb, motion, tolerance=TOL), repeats))
        tfa, tfb0, tfb1 = fcl_tf(fcl, pa), fcl_tf(fcl, b0), fcl_tf(fcl, b1)
        for tool, req in ((tools[1], req_default), (tools[2], req_naive)):
            # fresh models and objects per solver: after a conservative-advancement call on
            # the same models, the sampling solver reports contacts that are not there
            ga, gb = fcl_bvh(fcl, va, fa), fcl_bvh(fcl, vb, fb)
            oa, ob = fcl.CollisionObject(ga, fcl_tf(fcl, pa)), fcl.CollisionObject(gb, fcl_tf(fcl, b0))

            def run(req=req, oa=oa, ob=ob):
                # continuousCollide leaves the objects where it stopped: start poses again
                oa.setTransform(tfa)
                ob.setTransform(tfb0)
                res = fcl.ContinuousCollisionResult()
                fcl.continuousCollide(oa, tfa, ob, tfb1, req, res)
                return res

            res = run()
            answers[tool] = res.time_of_contact if res.is_collide else None
            times[tool].append(best_time(run, repeats))
        verdict = {t: judge(answers[t]) for t in tools}
        for t in tools:
            correct[t] += int(verdict[t])
        details.append({"case": name, "reference_toc": ref_toc, "near": near, "answers": answers, "correct": verdict})
    return {"kind": "continuous, meshes", "cases": len(cases), "tools": tools, "correct": correct,
            "median_us": {t: 1e6 * statistics.median(times[t]) for t in tools}, "details": details,
            "reference": f"{samples} poses"}


# ---------------------------------------------------------------- discrete on primitives and meshes


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


def discrete_rows(fcl, quick, repeats, seed=1):
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
    rows = []
    for name, a, b, spread in kinds:
        tools = ["ccd", "fcl"]
        stats = {q: {"correct": {t: 0 for t in tools}, "times": {t: [] for t in tools}, "total": 0, "left_out": 0}
                 for q in ("collide", "distance")}
        oa, ob = fcl.CollisionObject(a.fcl, fcl.Transform()), fcl.CollisionObject(b.fcl, fcl.Transform())
        creq, dreq = fcl.CollisionRequest(enable_contact=True), fcl.DistanceRequest(enable_nearest_points=True)
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
                res = fcl.DistanceResult()
                return fcl.distance(oa, ob, dreq, res)

            def c_collide():
                return ccd.collide(a.ccd, pa, b.ccd, pb) is not None

            def c_distance():
                return ccd.distance(a.ccd, pa, b.ccd, pb).distance

            # collide
            st = stats["collide"]
            if 0 < ref < 1e-6:
                st["left_out"] += 1
            else:
                st["total"] += 1
                for t, f in (("ccd", c_collide), ("fcl", f_collide)):
                    st["correct"][t] += int(bool(f()) == (ref == 0))
                    st["times"][t].append(best_time(f, repeats))
            # distance
            st = stats["distance"]
            st["total"] += 1
            for t, f in (("ccd", c_distance), ("fcl", f_distance)):
                d = f()
                ok = d <= 1e-9 if ref == 0 else abs(d - ref) <= 1e-6 * max(1.0, ref)
                st["correct"][t] += int(bool(ok))
                st["times"][t].append(best_time(f, repeats))
        for q, st in stats.items():
            rows.append({"kind": f"{q}, {name}", "cases": st["total"], "left_out": st["left_out"], "tools": tools,
                         "correct": st["correct"],
                         "median_us": {t: 1e6 * statistics.median(st["times"][t]) for t in tools},
                         "reference": "analytic" if a.kind in ("ball", "capsule") or (a.kind == "box" and b.kind == "ball") else "brute-force surfaces"})
    return rows


def print_table(rows):
    print("| kind | cases | ccd correct | fcl correct | ccd µs | fcl µs | fcl / ccd |")
    print("|---|---:|---|---|---:|---:|---:|")
    for r in rows:
        ccd_us = r["median_us"]["ccd"]
        fcl_tools = [t for t in r["tools"] if t != "ccd"]
        fcl_ok = "; ".join(f"{r['correct'][t]}/{r['cases']}" + (f" ({t[4:]})" if len(fcl_tools) > 1 else "") for t in fcl_tools)
        fcl_us = "; ".join(f"{r['median_us'][t]:.1f}" for t in fcl_tools)
        ratio = "; ".join(f"{r['median_us'][t] / ccd_us:.2f}" for t in fcl_tools)
        print(f"| {r['kind']} | {r['cases']} | {r['correct']['ccd']}/{r['cases']} | {fcl_ok} | {ccd_us:.1f} | {fcl_us} | {ratio} |")


def run(quick=False, repeats=None, kinds=("continuous", "discrete")):
    """All rows (dicts); raises ImportError without python-fcl."""
    import fcl

    repeats = repeats or (3 if quick else 7)
    rows = []
    if "continuous" in kinds:
        rows.append(continuous_rows(fcl, quick, repeats))
    if "discrete" in kinds:
        rows += discrete_rows(fcl, quick, repeats)
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer cases, samples and repeats")
    parser.add_argument("--repeats", type=int, default=None, help="timing runs per query (best kept)")
    parser.add_argument("--json", help="also write the rows (with per-case answers) here")
    args = parser.parse_args()
    import fcl

    print(f"ccd {ccd.__version__}, python-fcl {getattr(fcl, '__version__', '?')}, numpy {np.__version__}")
    rows = run(args.quick, args.repeats)
    print_table(rows)
    cont = rows[0]
    print()
    print("continuous cases (reference toc over " + cont["reference"] + "):")
    for d in cont["details"]:
        fmt = lambda x: "none" if x is None else f"{x:.4f}"  # noqa: E731
        answers = ", ".join(f"{t}: {fmt(v)}{'' if d['correct'][t] else ' (wrong)'}" for t, v in d["answers"].items())
        print(f"  {d['case']}: reference {fmt(d['reference_toc'])}; {answers}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
