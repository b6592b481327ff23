"""Measures what one ``Robot.check_edge`` call costs against the per-edge cost of the batch
``Robot.check_edges`` (1 thread), for the planners' issue (target: one call at most 1.05x the
batch's per-edge cost): the Panda from ``../shared/data/robots/panda`` in a seeded clutter
environment (boxes and cylinders around the arm, ~12-16K triangles), seeded random
joint-space edges within the limits (40 % short, 30 % medium, 30 % long). Medians over
``--repeats`` runs of the whole edge list (the machine is shared and noisy). Run with the
package installed (release build):

    python crates/python/benches/robot_edge.py [--edges 200] [--repeats 7] [--data DIR]
"""

import argparse
import math
import os
import statistics
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

import ccd


def shared_data():
    root = os.environ.get("CCD_SHARED_DIR")
    if root:
        return Path(root) / "data"
    return Path(__file__).resolve().parents[4] / "shared" / "data"


def cylinder(radius, height, segments):
    a = np.linspace(0.0, 2 * math.pi, segments, endpoint=False)
    ring = np.stack([radius * np.cos(a), radius * np.sin(a)], axis=1)
    v = np.concatenate([np.c_[ring, np.zeros(segments)], np.c_[ring, np.full(segments, height)],
                        [[0, 0, 0], [0, 0, height]]])
    f = []
    for i in range(segments):
        j = (i + 1) % segments
        f += [[i, j, segments + j], [i, segments + j, segments + i],
              [2 * segments, j, i], [2 * segments + 1, segments + i, segments + j]]
    return v, np.array(f)


def box(lo, hi):
    x0, y0, z0 = lo
    x1, y1, z1 = hi
    v = np.array([[x, y, z] for x in (x0, x1) for y in (y0, y1) for z in (z0, z1)], dtype=float)
    f = np.array([[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
                  [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]])
    return v, f


def clutter(rng):
    """A table, shelf boards and bottles around the arm, kept out of its base."""
    parts = [box((-1.2, -1.2, -0.06), (1.2, 1.2, -0.01))]
    for _ in range(6):
        x, y = rng.uniform(-0.9, 0.9, 2)
        if math.hypot(x, y) < 0.3:
            continue
        z = rng.uniform(0.2, 0.9)
        parts.append(box((x - 0.2, y - 0.15, z), (x + 0.2, y + 0.15, z + 0.02)))
    placed = 0
    while placed < 80:
        x, y = rng.uniform(-0.95, 0.95, 2)
        if math.hypot(x, y) < 0.35:
            continue
        v, f = cylinder(rng.uniform(0.02, 0.05), rng.uniform(0.1, 0.35), 48)
        v = v + [x, y, 0.0]
        parts.append((v, f))
        placed += 1
    vs, fs, base = [], [], 0
    for v, f in parts:
        vs.append(v)
        fs.append(f + base)
        base += len(v)
    return np.concatenate(vs), np.concatenate(fs)


def limits(urdf, joint_names):
    lim = {}
    for j in ET.parse(urdf).getroot().iter("joint"):
        l = j.find("limit")
        if l is not None and "lower" in l.attrib:
            lim[j.get("name")] = (float(l.get("lower")), float(l.get("upper")))
    return np.array([lim.get(n, (-math.pi, math.pi)) for n in joint_names])


def edges(rng, lim, n):
    lo, hi = lim[:, 0], lim[:, 1]
    q0 = rng.uniform(lo, hi, (n, len(lo)))
    kinds = rng.choice(3, n, p=[0.4, 0.3, 0.3])
    step = np.where(kinds == 0, 0.1, np.where(kinds == 1, 0.5, 6.0))[:, None]
    q1 = np.clip(q0 + rng.uniform(-1, 1, q0.shape) * step, lo, hi)
    return q0, q1, kinds


def median_time(repeats, f):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return statistics.median(times), times


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--edges", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--seed", type=int, default=33)
    parser.add_argument("--data", type=Path, default=shared_data())
    args = parser.parse_args()
    panda = args.data / "robots" / "panda"
    robot = ccd.Robot.load(panda / "urdf" / "panda.urdf", panda / "srdf" / "panda.srdf",
                           packages={"example-robot-data/robots/panda_description": panda})
    rng = np.random.default_rng(args.seed)
    v, f = clutter(rng)
    env = ccd.Mesh(v, f)
    q0, q1, kinds = edges(rng, limits(panda / "urdf" / "panda.urdf", robot.joint_names), args.edges)
    n = len(q0)
    print(f"Panda, clutter of {env.num_faces} triangles, {n} edges, medians of {args.repeats} runs")
    print()
    print("| mode | batch per edge (us) | check_edge per call (us) | ratio | check_edge(q, q) (us) |")
    print("|---|---|---|---|---|")
    for boolean in (True, False):
        # warm-up: prepares the environment once (cached with the Mesh object)
        robot.check_edges(q0, q1, environment=env, boolean=boolean, threads=1)
        batch_answers = robot.check_edges(q0, q1, environment=env, boolean=boolean, threads=1)
        singles = [robot.check_edge(q0[i], q1[i], environment=env, boolean=boolean) for i in range(n)]
        for i, hit in enumerate(singles):
            same = (hit is None) == math.isnan(batch_answers[0][i])
            if hit is not None and not boolean:
                same = same and hit.toc == batch_answers[0][i]
            assert same, f"edge {i}: check_edge {hit} against the batch's {batch_answers[0][i]}"
        batch, _ = median_time(args.repeats, lambda: robot.check_edges(
            q0, q1, environment=env, boolean=boolean, threads=1))
        single, _ = median_time(args.repeats, lambda: [
            robot.check_edge(q0[i], q1[i], environment=env, boolean=boolean) for i in range(n)])
        still, _ = median_time(args.repeats, lambda: [
            robot.check_edge(q0[i], q0[i], environment=env, boolean=boolean) for i in range(n)])
        print(f"| {'Boolean' if boolean else 'Toc'} | {1e6 * batch / n:.1f} | {1e6 * single / n:.1f} "
              f"| {single / batch:.3f} | {1e6 * still / n:.1f} |")
    # what every call paid before the preparation was cached: a new Mesh object's first call
    # prepares it (node boxes, welded pieces and their hulls)
    build, _ = median_time(args.repeats, lambda: ccd.Mesh(v, f))
    first, _ = median_time(args.repeats, lambda: robot.check_edge(q0[0], q0[0], environment=ccd.Mesh(v, f)))
    # the batch's per-edge cost by kind of edge (Boolean, 1 thread): where long edges stand
    print()
    print("| edges (Boolean batch, 1 thread) | count | largest joint turn (rad, median) | per edge (us) |")
    print("|---|---|---|---|")
    for k, name in enumerate(("short (<= 0.1 rad)", "medium (<= 0.5 rad)", "long (<= 6 rad)")):
        sel = kinds == k
        a, b = q0[sel], q1[sel]
        t, _ = median_time(args.repeats, lambda: robot.check_edges(a, b, environment=env, threads=1))
        turn = float(np.median(np.abs(b - a).max(axis=1)))
        print(f"| {name} | {int(sel.sum())} | {turn:.2f} | {1e6 * t / max(1, sel.sum()):.1f} |")
    print()
    print(f"preparing the environment (first call on a new Mesh, less building the Mesh): "
          f"{1e3 * (first - build - still / n):.2f} ms")


if __name__ == "__main__":
    main()
