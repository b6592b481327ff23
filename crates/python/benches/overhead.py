"""Measures the Python package for docs/benchmarks.md: overhead per call of rigid_toc and per
element of the vectorised kernels over the Rust code they wrap, and the batch throughput on
1 and 2 threads. Prints a markdown table. Run with the package installed (release build):

    python crates/python/benches/overhead.py [--n 1000000]

The Rust-only times come from ``ccd._ccd._time_rigid`` / ``_time_kernel``, which run the
same Rust loop on the same inputs after the arrays have been read, so the difference is what
the Python layer adds (argument parsing, array reading and copying, result arrays).
"""

import argparse
import os
import time

import numpy as np

import ccd
from ccd import _ccd


def best_of(repeats, f):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return min(times)


def cube():
    v = np.array([[x, y, z] for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)])
    f = np.array([[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
                  [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]])
    return ccd.Mesh(v, f)


def translation(x):
    m = np.eye(4)
    m[0, 3] = x
    return m


def rigid_rows(calls, rounds):
    mesh = cube()
    eye = np.eye(4)
    rows = []
    for name, start, end in (("sliding cubes (contact)", 3.0, -1.0), ("far miss", 10.0, 9.0)):
        a0, b0, b1 = eye, translation(start), translation(end)
        py = best_of(rounds, lambda: [ccd.rigid_toc(mesh, a0, a0, mesh, b0, b1) for _ in range(calls)]) / calls
        rust = min(_ccd._time_rigid(mesh, a0, a0, mesh, b0, b1, repeats=calls) for _ in range(rounds)) / calls
        rows.append((f"rigid_toc, {name}", "per call", rust, py))
    return rows


def queries(n, seed=0):
    rng = np.random.default_rng(seed)
    x0 = rng.uniform(-1.0, 1.0, (n, 4, 3))
    return x0, x0 + rng.uniform(-1.0, 1.0, (n, 4, 3))


def kernel_rows(n, rounds):
    x0, x1 = queries(n)
    rows, scaling = [], []
    for kind, f in (("vertex_face", ccd.vertex_face), ("edge_edge", ccd.edge_edge)):
        py = best_of(rounds, lambda: f(x0, x1, threads=1)) / n
        rust = min(_ccd._time_kernel(kind, x0, x1, repeats=1, threads=1) for _ in range(rounds)) / n
        rows.append((f"{kind}, {n} random pairs, 1 thread", "per element", rust, py))
        one = best_of(rounds, lambda: f(x0, x1, threads=1))
        two = best_of(rounds, lambda: f(x0, x1, threads=2))
        scaling.append((kind, n / one, n / two, one / two))
    return rows, scaling


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args()
    load = os.getloadavg()
    print(f"ccd {ccd.__version__}; {os.cpu_count()} CPUs; load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    rows = rigid_rows(args.calls, args.rounds)
    krows, scaling = kernel_rows(args.n, args.rounds)
    print("\n| query | unit | Rust µs | Python µs | overhead µs |\n|---|---|---:|---:|---:|")
    for name, unit, rust, py in rows + krows:
        print(f"| {name} | {unit} | {rust * 1e6:.3f} | {py * 1e6:.3f} | {(py - rust) * 1e6:.3f} |")
    print("\n| kernel | 1 thread M/s | 2 threads M/s | speed-up |\n|---|---:|---:|---:|")
    for kind, one, two, ratio in scaling:
        print(f"| {kind} | {one / 1e6:.2f} | {two / 1e6:.2f} | {ratio:.2f}× |")
    load = os.getloadavg()
    print(f"\nload average after: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")


if __name__ == "__main__":
    main()
