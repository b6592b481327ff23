"""Measures the shape queries of the Python package for docs/python.md: the Python overhead
of one ``ccd.toc`` call over the Rust query it wraps (``ccd._ccd._time_toc`` runs the same
Rust call in a loop on the same shapes and motions), ``collide`` and ``distance`` per call,
``toc_batch`` per element against the Rust loop, and the collision manager ``ccd.World``
(per step from Python against its Rust loop ``World._time_steps``; 40 bodies against a
Python loop over the 780 pairs). Every figure is the median of ``--rounds`` rounds. The
single-thread figures are **CPU time** of the process (``time.process_time``), which a
shared, overloaded machine inflates far less than wall time; the 2-thread batch and the
manager rows are wall time. Run with the package installed (release build):

    python crates/python/benches/shapes.py [--rounds 15] [--calls 2000]
"""

import argparse
import math
import os
import statistics
import time

import numpy as np

import ccd
from ccd import _ccd


def median_per_call(rounds, calls, f):
    times = []
    for _ in range(rounds):
        start = time.process_time()
        for _ in range(calls):
            f()
        times.append((time.process_time() - start) / calls)
    return statistics.median(times)


def cpu(f):
    start = time.process_time()
    f()
    return time.process_time() - start


def at(x=0.0, y=0.0, z=0.0):
    m = np.eye(4)
    m[:3, 3] = (x, y, z)
    return m


def cube_mesh(n=1):
    """A cube of half-size 0.5 as a triangle mesh (12 triangles)."""
    v = np.array([[x, y, z] for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)])
    f = np.array([[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
                  [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]])
    return ccd.Mesh(v, f)


def sphere_mesh(n=32):
    """A UV sphere of radius 0.5 (2 n (n - 1) triangles)."""
    verts = [[0, 0, 0.5], [0, 0, -0.5]]
    for i in range(1, n):
        th = math.pi * i / n
        for j in range(n):
            ph = 2 * math.pi * j / n
            verts.append([0.5 * math.sin(th) * math.cos(ph), 0.5 * math.sin(th) * math.sin(ph), 0.5 * math.cos(th)])
    idx = lambda i, j: 2 + (i - 1) * n + (j % n)
    faces = []
    for j in range(n):
        faces.append([0, idx(1, j), idx(1, j + 1)])
        faces.append([1, idx(n - 1, j + 1), idx(n - 1, j)])
    for i in range(1, n - 1):
        for j in range(n):
            a, b, c, d = idx(i, j), idx(i, j + 1), idx(i + 1, j), idx(i + 1, j + 1)
            faces += [[a, c, b], [b, c, d]]
    return ccd.Mesh(np.array(verts), np.array(faces))


def toc_rows(rounds, calls):
    cases = [
        ("ball-ball", ccd.Ball(0.5), ccd.Ball(0.5)),
        ("box-capsule", ccd.Box([1, 1, 1]), ccd.Capsule(0.3, 1.0)),
        ("cylinder-convex", ccd.Cylinder(0.5, 1.0), ccd.Convex(np.random.default_rng(0).normal(size=(30, 3)) * 0.3)),
        ("mesh-mesh cubes (12 tris)", cube_mesh(), cube_mesh()),
        ("mesh-mesh spheres (1984 tris)", sphere_mesh(), sphere_mesh()),
    ]
    still = ccd.Motion(np.eye(4))
    rows = []
    for name, a, b in cases:
        for what, motion in (
            ("contact", ccd.Motion.from_velocities(at(3.0, 0.2, 0.1), linear=[-6, 0, 0], angular=[0.5, 1.0, 2.0])),
            ("miss", ccd.Motion.from_velocities(at(3.0, 3.0, 0.1), linear=[-6, 0, 0], angular=[0.5, 1.0, 2.0])),
        ):
            n = calls if "1984" not in name else max(calls // 10, 50)
            py = median_per_call(rounds, n, lambda: ccd.toc(a, still, b, motion))
            rust = statistics.median(cpu(lambda: _ccd._time_toc(a, still, b, motion, repeats=n)) / n for _ in range(rounds))
            rows.append((f"toc {name}, {what}", rust, py))
    return rows


def discrete_rows(rounds, calls):
    rows = []
    for name, a, b in (
        ("ball-ball", ccd.Ball(0.5), ccd.Ball(0.5)),
        ("box-cylinder", ccd.Box([1, 1, 1]), ccd.Cylinder(0.3, 1.0)),
        ("mesh-mesh spheres (1984 tris)", sphere_mesh(), sphere_mesh()),
    ):
        pose = at(1.2, 0.1, 0.0)
        eye = np.eye(4)
        rows.append((f"distance {name}", statistics.median(
            [median_per_call(1, calls, lambda: ccd.distance(a, eye, b, pose)) for _ in range(rounds)])))
        rows.append((f"collide {name} (apart)", median_per_call(rounds, calls, lambda: ccd.collide(a, eye, b, pose))))
        rows.append((f"collide {name} (touching)", median_per_call(rounds, calls, lambda: ccd.collide(a, eye, b, at(0.9)))))
    return rows


def batch_rows(rounds, n=20000):
    rng = np.random.default_rng(1)
    a, b = ccd.Box([1, 1, 1]), ccd.Capsule(0.3, 1.0)
    b0 = np.tile(np.eye(4), (n, 1, 1))
    b1 = b0.copy()
    b0[:, :3, 3] = rng.uniform(-3, 3, (n, 3))
    b1[:, :3, 3] = rng.uniform(-3, 3, (n, 3))
    eye = np.eye(4)
    one = statistics.median(cpu(lambda: ccd.toc_batch(a, eye, eye, b, b0, b1, threads=1)) for _ in range(rounds)) / n
    one_wall = statistics.median(_time(lambda: ccd.toc_batch(a, eye, eye, b, b0, b1, threads=1)) for _ in range(rounds)) / n
    two = statistics.median(_time(lambda: ccd.toc_batch(a, eye, eye, b, b0, b1, threads=2)) for _ in range(rounds)) / n
    # the Rust call on each of the same queries, one thread (each timed alone, in Rust)
    motions = [ccd.Motion(b0[i], b1[i]) for i in range(n)]
    # CPU time of the Rust call on every 25th motion, each repeated 50 times in Rust (the
    # Python call amortised), averaged: the same distribution as the batch
    sample = motions[::25]
    rust = statistics.median(
        sum(cpu(lambda: _ccd._time_toc(a, eye, b, m, repeats=50)) / 50 for m in sample) / len(sample)
        for _ in range(rounds)
    )
    return one, one_wall, two, rust


def _time(f):
    start = time.perf_counter()
    f()
    return time.perf_counter() - start


def tumbling(world_n, seed=2, spread=None):
    rng = np.random.default_rng(seed)
    spread = spread or (world_n ** (1 / 3)) * 1.5
    shapes = [ccd.Ball(0.3), ccd.Box([0.5, 0.4, 0.3]), ccd.Capsule(0.2, 0.5), ccd.Cylinder(0.25, 0.5)]
    bodies = []
    for i in range(world_n):
        start = at(*rng.uniform(-spread, spread, 3))
        m = ccd.Motion.from_velocities(start, linear=rng.uniform(-0.5, 0.5, 3), angular=rng.uniform(-2, 2, 3))
        bodies.append((shapes[i % 4], m))
    return bodies


def world_rows(rounds):
    out = []
    # 40 bodies, one step, all contacts: manager vs a Python loop over the 780 pairs
    bodies = tumbling(40, spread=3.0)

    def manager():
        w = ccd.World()
        for s, m in bodies:
            w.add(s, m)
        return w.step(mode="all")

    def loop():
        found = []
        for i in range(40):
            for j in range(i + 1, 40):
                c = ccd.toc(bodies[i][0], bodies[i][1], bodies[j][0], bodies[j][1])
                if c is not None:
                    found.append((i, j, c))
        return found

    assert len(manager()) == len(loop())
    out.append(("40 bodies, all contacts (world built + 1 step)", statistics.median(_time(manager) for _ in range(rounds)),
                statistics.median(_time(loop) for _ in range(rounds)), len(loop())))
    # 1000 tumbling bodies, steps from Python vs the same steps in a Rust loop
    bodies = tumbling(1000)

    def build():
        w = ccd.World()
        for s, m in bodies:
            w.add(s, m)
        w.step()  # the first step fills the broad phase
        return w

    w_py, w_rust = build(), build()
    steps = 20
    py = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(steps):
            w_py.step()
        py.append((time.perf_counter() - start) / steps)
    rust = [w_rust._time_steps(steps) / steps for _ in range(rounds)]
    out.append(("1000 tumbling bodies, earliest contact, per step", statistics.median(rust), statistics.median(py), None))
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args()
    load = os.getloadavg()
    print(f"ccd {ccd.__version__}; {os.cpu_count()} CPUs; load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    print(f"medians of {args.rounds} rounds\n")
    print("| query | Rust µs | Python µs | overhead µs | overhead % |\n|---|---:|---:|---:|---:|")
    for name, rust, py in toc_rows(args.rounds, args.calls):
        print(f"| {name} | {rust * 1e6:.3f} | {py * 1e6:.3f} | {(py - rust) * 1e6:.3f} | {100 * (py - rust) / rust:.1f} |")
    print("\n| discrete query | Python µs per call |\n|---|---:|")
    for name, py in discrete_rows(args.rounds, args.calls // 4):
        print(f"| {name} | {py * 1e6:.3f} |")
    one, one_wall, two, rust = batch_rows(max(args.rounds // 3, 3))
    print("\n| toc_batch box-capsule, 20000 random motions | µs per element |\n|---|---:|")
    print(f"| Rust call, 1 thread, CPU (800 sampled motions) | {rust * 1e6:.3f} |")
    print(f"| toc_batch, 1 thread, CPU | {one * 1e6:.3f} (overhead {(one - rust) * 1e6:.3f}) |")
    print(f"| toc_batch, 1 thread, wall | {one_wall * 1e6:.3f} |")
    print(f"| toc_batch, 2 threads, wall | {two * 1e6:.3f} ({one_wall / two:.2f}× of 1 thread) |")
    print("\n| collision manager | Rust / manager ms | Python ms | ratio |\n|---|---:|---:|---:|")
    for name, a, b, n in world_rows(max(args.rounds // 3, 3)):
        extra = f" ({n} contacts)" if n is not None else ""
        print(f"| {name}{extra} | {a * 1e3:.3f} | {b * 1e3:.3f} | {b / a:.2f}× |")
    load = os.getloadavg()
    print(f"\nload average after: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")


if __name__ == "__main__":
    main()
