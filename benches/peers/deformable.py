"""Family ``deformable-steps``: the IPC Toolkit (``ipctk``) beside ccd on deforming triangle
meshes over one step (every vertex moves linearly from ``x0`` to ``x1``).

    python benches/peers/deformable.py --out FILE [--quick] [--data DIR] [--repeats N] [--seed S]

Two questions per workload, each tool called as its users call it from Python, build included,
1 thread (``ipctk.set_num_threads(1)``; ccd's scene queries are serial unless ``parallel``):

* ``step``: the separation-preserving step size. ccd ``ccd.collision_free_stepsize(faces, x0,
  x1)`` (every pair keeps ``max(0, 0.2 d0)``) vs ``ipctk.compute_collision_free_stepsize(
  CollisionMesh(x0, edges(faces), faces), x0, x1)`` (HashGrid broad phase, its default;
  Tight-Inclusion narrow phase at its defaults: tolerance 1e-6, max_iterations 1e7,
  conservative rescaling 0.8: the step is 0.8 of the first time of impact). min_distance 0
  for both. Reference: for every pair of ipctk's continuous candidates (swept boxes,
  HashGrid, no inflation) the distance along ``[0, t]`` must stay >= 0.2 d0: certified by a
  Lipschitz bound (a VF/EE distance changes by at most the sum of the largest vertex
  displacements), else sampled densely (1025 times + golden-section refinement, ``dense.py``).
  A violation counts as a miss of ccd; ipctk promises only that no pair touches on ``[0, t]``
  (its rescaling is of the time of impact, not of the distance: measured, its steps do let
  pairs come closer than 0.2 d0), so its misses are pairs that touch on ``[0, t]``, and its
  0.2 d0 violations are printed in the notes. Pairs outside the candidates are not checked.
* ``contacts``: every colliding vertex-face / edge-edge pair. ccd ``DeformingScene(faces, x0,
  x1).contacts()`` (tolerance 1e-6) vs ipctk ``Candidates.build(mesh, x0, x1,
  broad_phase=HashGrid())`` then ``TightInclusionCCD().point_triangle_ccd`` /
  ``edge_edge_ccd`` (defaults, min_distance 0) on every face-vertex and edge-edge candidate,
  called per candidate from Python (ipctk 1.6 has no batch narrow phase in Python; the
  broad and narrow shares are printed separately). The real frames have millions of
  candidates (cloth-ball 6.9M, n-body 31.8M), so the narrow phase runs on a seeded sample
  of at most 40,000 (20,000 in --quick) and its time is scaled up to all candidates (the
  broad phase is timed in full). Reference: the union of both answers (on the sample, when
  sampled); a pair only one tool reports is decided exactly (rational arithmetic,
  ``exact_ccd.py``; at most ``--disputed`` pairs per workload, a seeded sample beyond). A
  miss is a touching pair the tool lacks; a false alarm a reported pair that never touches
  and stays farther than 1e-6 (dense sampling). No ground-truth files ship with the frames,
  so pairs neither tool reports are not checked.

Workloads: procedural (seeded): a cloth draped over a turning ball, pulsing spheres; and the
five Scalable-CCD frame pairs under ``DIR/unc-frames`` when ``--data DIR`` is given (in
``--quick`` only cloth-funnel, the smallest). Times: one call per query timed alone (wall
``perf_counter``, CPU ``process_time`` of the same call), median of the repeats (fewer
repeats for a tool whose single call exceeds 10 s; the row's notes say how many).
"""

import argparse
import functools
import json
import os
import statistics
import sys
import time

for _k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "RAYON_NUM_THREADS"):
    os.environ.setdefault(_k, "1")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

import ccd  # noqa: E402
import _dense as dense  # noqa: E402
import _exact_ccd as exact_ccd  # noqa: E402
import _scenes as scenes  # noqa: E402

try:
    import ipctk  # noqa: E402

    IPCTK_ERROR = None
except Exception as e:  # noqa: BLE001 - any import failure makes the peer a skipped row
    ipctk = None
    IPCTK_ERROR = f"ipctk not importable: {type(e).__name__}: {e}"

FRAMES = {
    "cloth-ball": ("cloth-ball/cloth_ball92.ply", "cloth-ball/cloth_ball93.ply"),
    "n-body": ("n-body-simulation/balls16_18.ply", "n-body-simulation/balls16_19.ply"),
    "rod-twist": ("rod-twist/3036.ply", "rod-twist/3037.ply"),
    "cloth-funnel": ("cloth-funnel/227.ply", "cloth-funnel/228.ply"),
    "armadillo-rollers": ("armadillo-rollers/326.ply", "armadillo-rollers/327.ply"),
}
QUICK_FRAMES = ("cloth-funnel",)
SCALE = 0.2  # both tools: a pair keeps 0.2 d0 (ccd scale 0.2 = ipctk rescaling 0.8)
TOL = 1e-6
TARGET_STEP = 20.0
TARGET_CONTACTS = 50.0
SLOW_CALL = 10.0  # seconds: a call this slow is not repeated more than twice


def timed(fn, repeats):
    """Median wall and CPU seconds of ``fn()`` over up to ``repeats`` calls, and its answer."""
    walls, cpus, answer = [], [], None
    for k in range(repeats):
        c0, w0 = time.process_time(), time.perf_counter()
        answer = fn()
        walls.append(time.perf_counter() - w0)
        cpus.append(time.process_time() - c0)
        if sum(walls) > SLOW_CALL and k >= 0 and (walls[0] > SLOW_CALL or k >= 1):
            break
    return statistics.median(walls), statistics.median(cpus), len(walls), answer


# ------------------------------------------------------------------------------ tools


def ccd_step(faces, x0, x1):
    return float(ccd.collision_free_stepsize(faces, x0, x1, min_distance=0.0, scale=SCALE))


def ipctk_step(faces, x0, x1):
    mesh = ipctk.CollisionMesh(x0, ipctk.edges(faces), faces)
    return float(ipctk.compute_collision_free_stepsize(mesh, x0, x1, min_distance=0.0, broad_phase=ipctk.HashGrid()))


def ccd_contacts(faces, x0, x1):
    c = ccd.DeformingScene(faces, x0, x1, tolerance=TOL).contacts()
    return c


def ccd_pair_keys(c, faces):
    """Canonical keys: ('vf', v, f) and ('ee', a, b, c, d) with a < b, c < d, (a, b) < (c, d)."""
    keys = {}
    fa, fb, toc = c["feature_a"], c["feature_b"], c["toc"]
    for k in range(len(toc)):
        a, b = fa[k], fb[k]
        if a[0] == 1 and b[0] == 1:
            e1 = (min(a[1], a[2]), max(a[1], a[2]))
            e2 = (min(b[1], b[2]), max(b[1], b[2]))
            key = ("ee", *min(e1, e2), *max(e1, e2))
        else:
            v, f = (a, b) if a[0] == 0 else (b, a)
            key = ("vf", int(v[1]), tuple(sorted(int(x) for x in faces[f[1]])))
        keys[key if key[0] == "vf" else tuple(int(x) if not isinstance(x, str) else x for x in key)] = float(toc[k])
    return keys


def ipctk_build(faces, x0, x1):
    """ipctk's broad phase as its users call it: continuous candidates, HashGrid, swept boxes."""
    edges = ipctk.edges(faces)
    mesh = ipctk.CollisionMesh(x0, edges, faces)
    cands = ipctk.Candidates()
    cands.build(mesh, x0, x1, 0.0, ipctk.HashGrid())
    return edges, cands


def candidate_sample(edges, faces, cands, cap, seed):
    """A seeded sample of at most ``cap`` candidates (all when fewer) as (kind, 4 vertex ids)."""
    n = len(cands)
    pick = np.arange(n) if n <= cap else np.sort(np.random.default_rng(seed).choice(n, cap, replace=False))
    vf, ee = [], []
    for i in pick:
        st = cands[int(i)]
        ids = st.vertex_ids(edges, faces)
        (vf if isinstance(st, ipctk.FaceVertexCandidate) else ee).append(ids)
    return np.array(vf, dtype=np.int64).reshape(-1, 4), np.array(ee, dtype=np.int64).reshape(-1, 4), n


def ipctk_narrow(vf, ee, x0, x1):
    """Tight-Inclusion (defaults) on each candidate, one call each: keys, wall, CPU, errors."""
    tic = ipctk.TightInclusionCCD()
    keys, errors = {}, 0
    c0, w0 = time.process_time(), time.perf_counter()
    for kind, idx, f in (("vf", vf, tic.point_triangle_ccd), ("ee", ee, tic.edge_edge_ccd)):
        if len(idx) == 0:
            continue
        p0, p1 = x0[idx], x1[idx]
        for k in range(len(idx)):
            a, b = p0[k], p1[k]
            try:
                hit, toi = f(a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3])
            except MemoryError:
                errors += 1
                continue
            if hit:
                keys[quad_key(kind, idx[k])] = toi
    return keys, time.perf_counter() - w0, time.process_time() - c0, errors


def quad_key(kind, q):
    q = [int(v) for v in q]
    if kind == "vf":
        return ("vf", q[0], tuple(sorted(q[1:])))
    e1, e2 = tuple(sorted(q[:2])), tuple(sorted(q[2:]))
    return ("ee", *min(e1, e2), *max(e1, e2))


def distinct(q):
    """Quads whose four vertices differ (pairs sharing a vertex are pairs for neither rule)."""
    if len(q) == 0:
        return q
    s = np.sort(q, axis=1)
    return q[np.all(s[:, 1:] != s[:, :-1], axis=1)]


def separation_violations(kind, idx, x0, x1, t, sample_cap):
    """Pairs closer than 0.2 d0 somewhere on [0, t], and pairs that touch (sampled distance
    <= 1e-12) there: (violations, touching, certified, sampled, skipped)."""
    if len(idx) == 0 or t <= 0:
        return 0, 0, len(idx), 0, 0
    q0, q1 = x0[idx], x1[idx]
    d0 = dense.distance(kind, q0)
    disp = np.linalg.norm(q1 - q0, axis=2)  # (n, 4)
    if kind == "vf":
        lip = disp[:, 0] + disp[:, 1:].max(axis=1)
    else:
        lip = disp[:, :2].max(axis=1) + disp[:, 2:].max(axis=1)
    live = d0 > 0
    safe = ~live | (d0 - t * lip >= SCALE * d0)
    todo = np.nonzero(~safe)[0]
    skipped = 0
    if len(todo) > sample_cap:
        skipped = len(todo) - sample_cap
        todo = np.random.default_rng(0).choice(todo, sample_cap, replace=False)
    viol = touch = 0
    for s in range(0, len(todo), 20_000):
        part = todo[s : s + 20_000]
        dmin, _ = dense.min_along(kind, q0[part], q1[part], t_end=t, samples=1025)
        viol += int(np.sum(dmin < SCALE * d0[part] * (1 - 1e-9)))
        touch += int(np.sum(dmin <= 1e-12))
    return viol, touch, int(np.sum(safe)), len(todo), skipped


# ------------------------------------------------------------------------------- driver


def workloads(a):
    out, skipped = [], []
    if a.quick:
        out.append(("cloth-ball-procedural", lambda: scenes.cloth_ball(a.seed, 40, 3)))
        out.append(("spheres-procedural", lambda: scenes.spheres(a.seed, 4, 3)))
    else:
        out.append(("cloth-ball-procedural", lambda: scenes.cloth_ball(a.seed, 90, 4)))
        out.append(("spheres-procedural", lambda: scenes.spheres(a.seed, 12, 3)))
    for name, (f0, f1) in FRAMES.items():
        if not a.data:
            skipped.append((name, "not run: no --data DIR (the Scalable-CCD frames are not on this machine)"))
            continue
        p0, p1 = (os.path.join(a.data, "unc-frames", f) for f in (f0, f1))
        if not (os.path.exists(p0) and os.path.exists(p1)):
            skipped.append((name, f"not run: {p0} or {p1} missing"))
            continue
        if a.quick and name not in QUICK_FRAMES:
            skipped.append((name, "not run in --quick (ipctk takes 5-25 s per call on it)"))
            continue

        def load(p0=p0, p1=p1):
            m0, m1 = ccd.Mesh.load(p0), ccd.Mesh.load(p1)
            return (np.ascontiguousarray(m0.faces, dtype=np.int64),
                    np.ascontiguousarray(m0.vertices, dtype=np.float64),
                    np.ascontiguousarray(m1.vertices, dtype=np.float64))

        out.append((name, load))
    return out, skipped


def row(wl, tool, is_ccd, version, settings, queries, misses, late, fa, wall, cpu, target):
    return {
        "workload": wl, "tool": tool, "is_ccd": is_ccd, "version": version, "settings": settings,
        "threads": 1, "queries": queries, "misses": misses, "late": late, "false_alarms": fa,
        "median_us": None if wall is None else wall * 1e6, "p90_us": None if wall is None else wall * 1e6,
        "cpu_median_us": None if cpu is None else cpu * 1e6,
        "target_ratio": None if is_ccd else target, "skipped": None,
    }


def skipped_row(wl, tool, is_ccd, settings, target, reason):
    r = row(wl, tool, is_ccd, None, settings, None, None, None, None, None, None, target)
    r["skipped"] = reason
    return r


CCD_STEP = "ccd.collision_free_stepsize(faces, x0, x1), min_distance 0, scale 0.2, rel_tolerance 1e-3, build included"
IPC_STEP = "compute_collision_free_stepsize, HashGrid broad phase, TightInclusionCCD defaults (tol 1e-6, max_iter 1e7, rescaling 0.8), min_distance 0, CollisionMesh build included"
CCD_ALL = "DeformingScene(faces, x0, x1, tolerance=1e-6).contacts(), build included"
IPC_ALL = "Candidates.build (HashGrid, swept boxes, inflation 0) + TightInclusionCCD defaults per FV/EE candidate (Python loop), min_distance 0"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--data", default=None)
    ap.add_argument("--robots", default=None, help="(the runner's common argument; not used by this family)")
    ap.add_argument("--repeats", type=int, default=None)
    ap.add_argument("--seed", type=int, default=36)
    ap.add_argument("--disputed", type=int, default=None, help="pairs decided exactly per workload")
    a = ap.parse_args(argv)
    repeats = a.repeats or (3 if a.quick else 5)
    disputed_cap = a.disputed or (300 if a.quick else 1500)
    sample_cap = 20_000 if a.quick else 40_000  # candidates run through ipctk's narrow phase
    dense_cap = 5_000 if a.quick else 20_000  # pairs sampled densely in the step check
    t_start = time.perf_counter()
    try:
        import resource

        # Tight-Inclusion at max_iterations 1e7 can grow its queue until memory runs out
        # (see kernels.py): cap the address space so that ends in MemoryError, not swap.
        cap = 12 << 30
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    except (ImportError, ValueError, OSError):
        pass
    if ipctk is not None:
        ipctk.set_num_threads(1)
        ipctk.set_logger_level(ipctk.LoggerLevel.error)
    ipc_version = getattr(ipctk, "__version__", None)

    wls, skipped = workloads(a)
    rows, checks, notes, table = [], [], [], []
    for name, reason in skipped:
        for q, t, s in (("step", TARGET_STEP, (CCD_STEP, IPC_STEP)), ("contacts", TARGET_CONTACTS, (CCD_ALL, IPC_ALL))):
            rows.append(skipped_row(f"{name}/{q}", "ccd", True, s[0], t, reason))
            rows.append(skipped_row(f"{name}/{q}", "ipctk", False, s[1], t, reason))
        notes.append(f"{name}: {reason}")

    for name, make in wls:
        faces, x0, x1 = make()
        copies = (faces.copy(), x0.copy(), x1.copy())
        ntri = len(faces)
        print(f"{name}: {ntri} triangles, {len(x0)} vertices", flush=True)

        # ---- step size
        w_c, c_c, n_c, t_c = timed(functools.partial(ccd_step, faces, x0, x1), repeats)
        if ipctk is None:
            rows.append(row(f"{name}/step", "ccd", True, ccd.__version__, CCD_STEP, 1, None, None, None, w_c, c_c, None))
            rows.append(skipped_row(f"{name}/step", "ipctk", False, IPC_STEP, TARGET_STEP, IPCTK_ERROR))
            w_c, c_c, n_c, cc = timed(functools.partial(ccd_contacts, faces, x0, x1), repeats)
            rows.append(row(f"{name}/contacts", "ccd", True, ccd.__version__, CCD_ALL, len(cc["toc"]), None, None, None, w_c, c_c, None))
            rows.append(skipped_row(f"{name}/contacts", "ipctk", False, IPC_ALL, TARGET_CONTACTS, IPCTK_ERROR))
            continue
        w_i, c_i, n_i, t_i = timed(functools.partial(ipctk_step, faces, x0, x1), repeats)
        # ipctk's broad phase (timed: part of its all-pairs answer), reused for the checks.
        w_b, c_b, _, (edges, cands) = timed(functools.partial(ipctk_build, faces, x0, x1), repeats)
        vf_s, ee_s, ncand = candidate_sample(edges, faces, cands, sample_cap, a.seed)
        del cands
        nsample = len(vf_s) + len(ee_s)
        vf_d, ee_d = distinct(vf_s), distinct(ee_s)
        viol = {}
        for tool, t in (("ccd", t_c), ("ipctk", t_i)):
            v1 = separation_violations("vf", vf_d, x0, x1, t, dense_cap)
            v2 = separation_violations("ee", ee_d, x0, x1, t, dense_cap)
            viol[tool] = tuple(x + y for x, y in zip(v1, v2))
        npairs = len(vf_d) + len(ee_d)
        of = "" if nsample == ncand else f" (a seeded sample of {nsample} of {ncand} candidates)"
        # ccd promises every pair keeps 0.2 d0 on [0, t]; ipctk's promise is "no pair
        # touches on [0, t]" (Tight-Inclusion's rescaling is of the time of impact, not of
        # the distance), so each tool's misses are counted against its own promise.
        rows.append(row(f"{name}/step", "ccd", True, ccd.__version__, CCD_STEP, 1, viol["ccd"][0], None, None, w_c, c_c, None))
        rows.append(row(f"{name}/step", "ipctk", False, ipc_version, IPC_STEP, 1, viol["ipctk"][1], None, None, w_i, c_i, TARGET_STEP))
        notes.append(
            f"{name} step: ccd {t_c:.6g} ({c_c * 1e3:.1f} ms CPU, {n_c} runs), ipctk {t_i:.6g} ({c_i * 1e3:.1f} ms CPU, {n_i} runs), "
            f"CPU ratio {c_i / c_c:.1f}x; on {npairs} candidate pairs{of}, pairs closer than 0.2 d0 on [0, t]: ccd {viol['ccd'][0]} / ipctk {viol['ipctk'][0]}, "
            f"pairs touching on [0, t]: ccd {viol['ccd'][1]} / ipctk {viol['ipctk'][1]} "
            f"(certified by the Lipschitz bound {viol['ccd'][2]} / {viol['ipctk'][2]}, sampled densely {viol['ccd'][3]} / {viol['ipctk'][3]}, not checked {viol['ccd'][4]} / {viol['ipctk'][4]})"
        )
        table.append((f"{name}/step", ntri, f"{t_c:.4g}", f"{t_i:.4g}", viol["ccd"][0], viol["ipctk"][1], "", "", w_c, c_c, w_i, c_i))

        # ---- all colliding pairs
        w_c, c_c, n_c, cc = timed(functools.partial(ccd_contacts, faces, x0, x1), repeats)
        ccd_keys = ccd_pair_keys(cc, faces)
        ipc_keys, w_n, c_n, errors = ipctk_narrow(vf_s, ee_s, x0, x1)
        scale_up = ncand / max(nsample, 1)
        w_i, c_i = w_b + w_n * scale_up, c_b + c_n * scale_up
        broad_m, narrow_m = w_b, w_n * scale_up
        sampled_keys = {quad_key("vf", q) for q in vf_d} | {quad_key("ee", q) for q in ee_d}

        # Fairness: the arrays were not modified by either tool.
        same = all(np.array_equal(u, v) for u, v in zip((faces, x0, x1), copies))
        checks.append({"name": f"{name}: both tools got the identical faces/x0/x1 arrays (unchanged after every call)", "passed": bool(same), "detail": f"{ntri} triangles"})

        # Reference: union, disputed pairs decided exactly.
        # With a sample of the candidates, only the sampled pairs are compared; with all of
        # them, ccd's pairs outside ipctk's candidates are disputed too.
        ck = set(ccd_keys) if nsample == ncand else set(ccd_keys) & sampled_keys
        only_c = sorted(ck - set(ipc_keys))
        only_i = sorted(set(ipc_keys) - ck)
        both = len(ck & set(ipc_keys))
        disputed = [(k, "ccd") for k in only_c] + [(k, "ipctk") for k in only_i]
        rng = np.random.default_rng(a.seed)
        sampled = disputed
        if len(disputed) > disputed_cap:
            sel = rng.choice(len(disputed), disputed_cap, replace=False)
            sampled = [disputed[j] for j in sorted(sel)]
        verdict = {"ccd": [0, 0, 0], "ipctk": [0, 0, 0]}  # reporter: touching, within tol, false alarm
        late_c = 0
        for key, who in sampled:
            if key[0] == "vf":
                idx = [key[1], *key[2]]
                truth = exact_ccd.vertex_face(x0[idx].tolist(), x1[idx].tolist())
            else:
                idx = list(key[1:])
                truth = exact_ccd.edge_edge(x0[idx].tolist(), x1[idx].tolist())
            if truth is not None:
                verdict[who][0] += 1
                if who == "ccd" and exact_ccd.Q(ccd_keys[key]) > truth[1]:
                    late_c += 1
            else:
                dmin, _ = dense.min_along(key[0], x0[idx][None], x1[idx][None])
                verdict[who][1 if dmin[0] <= TOL else 2] += 1
        # A touching pair reported only by one tool is a miss of the other.
        miss_c, miss_i = verdict["ipctk"][0], verdict["ccd"][0]
        est = "" if len(sampled) == len(disputed) else f" (exact check on a seeded sample of {len(sampled)} of {len(disputed)} disputed pairs; counts are of the sample)"
        # Static distances at t = 0: ccd's reported contact distances vs the dense reference at
        # the same toc, and ipctk's distance functions vs the dense reference.
        m = min(len(cc["toc"]), 500)
        diff_c = 0.0
        for j in range(m):
            fa_, fb_ = cc["feature_a"][j], cc["feature_b"][j]
            if fa_[0] == 1 and fb_[0] == 1:
                kind, idx = "ee", [fa_[1], fa_[2], fb_[1], fb_[2]]
            else:
                v, f = (fa_, fb_) if fa_[0] == 0 else (fb_, fa_)
                kind, idx = "vf", [v[1], *faces[f[1]]]
            t = cc["toc"][j]
            q = x0[idx] + t * (x1[idx] - x0[idx])
            diff_c = max(diff_c, abs(float(dense.distance(kind, q[None])[0]) - float(cc["distance"][j])))
        vf_idx, ee_idx = vf_d, ee_d
        srng = np.random.default_rng(1)
        diff_i = 0.0
        for kind, idxs, fn in (("vf", vf_idx, ipctk.point_triangle_distance), ("ee", ee_idx, ipctk.edge_edge_distance)):
            if len(idxs) == 0:
                continue
            pick = idxs[srng.choice(len(idxs), min(250, len(idxs)), replace=False)]
            ours = dense.distance(kind, x0[pick])
            theirs = np.sqrt([fn(*x0[p]) for p in pick])
            diff_i = max(diff_i, float(np.max(np.abs(ours - theirs) / np.maximum(1.0, ours))))
        checks.append({
            "name": f"{name}: static distances agree at sampled pairs (ccd contact distance at its toc, ipctk distance at t=0, vs the dense reference)",
            "passed": bool(diff_c <= 1e-9 * max(1.0, float(np.abs(x0).max())) and diff_i <= 1e-9),
            "detail": f"ccd {m} contacts max |diff| {diff_c:.2e}; ipctk 500 candidates max rel diff {diff_i:.2e}",
        })
        rows.append(row(f"{name}/contacts", "ccd", True, ccd.__version__, CCD_ALL, len(ccd_keys), miss_c, late_c, verdict["ccd"][2], w_c, c_c, None))
        rows.append(row(f"{name}/contacts", "ipctk", False, ipc_version, IPC_ALL, len(ipc_keys), miss_i, None, verdict["ipctk"][2], w_i, c_i, TARGET_CONTACTS))
        if nsample != ncand:
            rows[-1]["settings"] += f"; narrow phase run on a seeded sample of {nsample} of {ncand} candidates and its time scaled up; misses/false alarms of both tools counted on the sample"
        notes.append(
            f"{name} contacts: ccd {len(ccd_keys)} pairs, ipctk {len(ipc_keys)} of {nsample} candidates run ({ncand} candidates; broad {broad_m * 1e3:.0f} ms + narrow {narrow_m * 1e3:.0f} ms wall"
            f"{'' if nsample == ncand else ', narrow phase extrapolated from the sample'}, "
            f"{errors} MemoryError), both {both}; only ccd {len(only_c)}: {verdict['ccd'][0]} touch, {verdict['ccd'][1]} within 1e-6, {verdict['ccd'][2]} farther; "
            f"only ipctk {len(only_i)}: {verdict['ipctk'][0]} touch, {verdict['ipctk'][1]} within 1e-6, {verdict['ipctk'][2]} farther{est}; "
            f"CPU ratio {c_i / c_c:.1f}x (ipctk broad phase alone {broad_m / max(w_c, 1e-12):.1f}x ccd's wall)"
        )
        table.append((f"{name}/contacts", ntri, str(len(ccd_keys)), str(len(ipc_keys)), miss_c, miss_i, verdict["ccd"][2], verdict["ipctk"][2], w_c, c_c, w_i, c_i))

    notes.append("times: one call per query (build included) timed alone, median of the repeats; 'median_us' = 'p90_us' = that median (one query per workload); ratios below use CPU time")
    out = {
        "family": "deformable-steps",
        "title": "Deforming meshes over one step: separation-preserving step size and all colliding pairs (ipctk vs ccd)",
        "reference": "step: Lipschitz-certified or densely sampled (1025 times + refinement) distances of ipctk's candidate pairs on [0, t] vs 0.2 d0; contacts: union of both tools, disputed pairs decided exactly in rational arithmetic",
        "quick": bool(a.quick),
        "notes": notes,
        "checks": checks,
        "rows": rows,
    }
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "w") as f:
        json.dump(out, f, indent=1)

    print(f"\ndeformable-steps ({'quick' if a.quick else 'full'}, seed {a.seed}, {repeats} repeats; 1 thread; CPU ms, build included)")
    print(f"{'workload':34} {'tris':>7} {'ccd ans':>10} {'ipctk ans':>10} {'miss c/i':>9} {'f.a. c/i':>9} {'ccd ms':>9} {'ipctk ms':>10} {'ratio':>7} {'target':>6}")
    for wl, ntri, ac, ai, mc, mi, fc, fi, wc, cc_, wi, ci in table:
        target = TARGET_STEP if wl.endswith("/step") else TARGET_CONTACTS
        fa = f"{fc}/{fi}" if fc != "" else "-"
        print(f"{wl:34} {ntri:7d} {ac:>10} {ai:>10} {f'{mc}/{mi}':>9} {fa:>9} {cc_ * 1e3:9.1f} {ci * 1e3:10.1f} {ci / cc_:6.1f}x {target:5.0f}x")
    for c in checks:
        print(f"check: {c['name']}: {'ok' if c['passed'] else 'FAILED'} ({c['detail']})")
    for n_ in notes:
        print("note:", n_)
    print(f"total {time.perf_counter() - t_start:.1f} s")
    return 0 if all(c["passed"] for c in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
