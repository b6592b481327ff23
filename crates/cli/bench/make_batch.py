#!/usr/bin/env python3
"""Writes the batch-throughput input of docs/benchmarks.md ("ccd batch"): N_PRIM vertex-face
and edge-edge queries (half of each kind; random points in the unit cube moving by up to 1,
about 8% of all queries report a contact) and N_RIGID rigid queries between the tetrahedron and the cube of
tests/data (by absolute path, so each is read once per run), random start and end poses.
Deterministic (fixed seed). Usage: make_batch.py OUT.jsonl [N_PRIM [N_RIGID]].
"""
import json
import math
import os
import random
import sys

out = sys.argv[1]
n_prim = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
n_rigid = int(sys.argv[3]) if len(sys.argv) > 3 else 2_000
data = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
meshes = [os.path.normpath(os.path.join(data, m)) for m in ("tetra.obj", "cube.stl")]
rng = random.Random(19)


def point():
    return [round(rng.uniform(0, 1), 6) for _ in range(3)]


def moved(p):
    return [round(x + rng.uniform(-0.5, 0.5), 6) for x in p]


def pose():
    axis = [rng.gauss(0, 1) for _ in range(3)]
    norm = math.sqrt(sum(a * a for a in axis)) or 1.0
    half = rng.uniform(-1.5, 1.5) / 2
    q = [math.cos(half)] + [math.sin(half) * a / norm for a in axis]
    return [round(rng.uniform(-2, 2), 6) for _ in range(3)] + q


lines = []
for i in range(n_prim):
    x0 = [point() for _ in range(4)]
    x1 = [moved(p) for p in x0]
    kind = "vertex_face" if i % 2 == 0 else "edge_edge"
    lines.append({"kind": kind, "id": i, "x0": x0, "x1": x1})
for i in range(n_rigid):
    a, b = rng.choice(meshes), rng.choice(meshes)
    lines.append({"kind": "rigid", "id": n_prim + i, "a": a, "b": b,
                  "a_start": pose(), "a_end": pose(), "b_start": pose(), "b_end": pose()})
rng.shuffle(lines)
with open(out, "w") as f:
    for line in lines:
        f.write(json.dumps(line, separators=(",", ":")) + "\n")
