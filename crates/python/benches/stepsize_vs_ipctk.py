"""Separation-preserving step size on the real frame pairs: ``ccd.collision_free_stepsize``
beside ``ipctk.compute_collision_free_stepsize`` (when ipctk is installed), both on 1 thread,
build included, median of alternated runs.

    python crates/python/benches/stepsize_vs_ipctk.py [../shared/data/unc-frames] [repeats]

ipctk's rule is ``min_distance + (1 - 0.8) * (d0 - min_distance)`` over the pairs its broad
phase finds (swept boxes inflated by ``min_distance``), 0 when a candidate starts closer than
``min_distance``; ccd's is ``max(min_distance, 0.2 * d0)`` over every pair (see
docs/deformable.md): with ``min_distance = 0`` both keep a fifth of each pair's distance.
"""

import os
import statistics
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import ccd  # noqa: E402

FRAMES = {
    "cloth-ball": ("cloth-ball/cloth_ball92.ply", "cloth-ball/cloth_ball93.ply"),
    "n-body": ("n-body-simulation/balls16_18.ply", "n-body-simulation/balls16_19.ply"),
    "rod-twist": ("rod-twist/3036.ply", "rod-twist/3037.ply"),
    "cloth-funnel": ("cloth-funnel/227.ply", "cloth-funnel/228.ply"),
    "armadillo-rollers": ("armadillo-rollers/326.ply", "armadillo-rollers/327.ply"),
}


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "../shared/data/unc-frames"
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    try:
        import ipctk

        ipctk.set_num_threads(1)
    except ImportError:
        ipctk = None
        print("ipctk not installed: ccd only")
    for name, (a, b) in FRAMES.items():
        m0, m1 = ccd.Mesh.load(os.path.join(root, a)), ccd.Mesh.load(os.path.join(root, b))
        faces = np.asarray(m0.faces, dtype=np.int64)
        v0 = np.asarray(m0.vertices, dtype=np.float64)
        v1 = np.asarray(m1.vertices, dtype=np.float64)
        ours, theirs = [], []
        t_ccd = t_ipc = None
        for _ in range(repeats):
            start = time.process_time()
            t_ccd = ccd.collision_free_stepsize(faces, v0, v1)
            ours.append(time.process_time() - start)
            if ipctk is not None:
                start = time.process_time()
                edges = ipctk.edges(faces)
                mesh = ipctk.CollisionMesh(v0, edges, faces)
                t_ipc = ipctk.compute_collision_free_stepsize(mesh, v0, v1)
                theirs.append(time.process_time() - start)
        line = f"{name}: ccd {1e3 * statistics.median(ours):.1f} ms (step {t_ccd:.6g})"
        if theirs:
            ratio = statistics.median(theirs) / statistics.median(ours)
            line += f", ipctk {1e3 * statistics.median(theirs):.1f} ms (step {t_ipc:.6g}), ratio {ratio:.1f}x"
        print(line, flush=True)


if __name__ == "__main__":
    main()
