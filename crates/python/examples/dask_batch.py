"""A million vertex-face / edge-edge CCD queries as Dask tasks (dask.distributed).

The queries are split into partitions; each partition is one task that builds (or, in a real
job, loads) its queries and runs them through ``ccd.vertex_face`` / ``ccd.edge_edge`` on the
worker. Results come back in partition order, so the output is the same as one process
running every partition in turn (the test ``tests/test_dask.py`` checks this bit for bit).

Run it on this machine (a LocalCluster of 2 worker processes, 1 thread each)::

    python crates/python/examples/dask_batch.py --n 1000000 --partitions 64

or on a running cluster, given its scheduler's address (every worker needs the ``ccd``
package installed: ``pip install ./crates/python`` there, or the wheel from
``maturin build --release``)::

    dask scheduler                                   # on the head node: tcp://HEAD:8786
    dask worker tcp://HEAD:8786 --nthreads 1        # on each node, one per core
    python crates/python/examples/dask_batch.py --scheduler tcp://HEAD:8786 --n 100000000

To run your own queries, replace ``make_partition`` with a function that reads partition
``start .. start + count`` of your data (e.g. a ``.npy`` shard on shared storage) and
returns ``x0, x1`` of shape ``(count, 4, 3)``.
"""

import argparse
import time

import numpy as np


def make_partition(seed, start, count):
    """Deterministic random queries for the partition starting at ``start`` (seeded by
    ``(seed, start)``): features of size ~1 in a unit box, moving by up to ~1 during the
    step."""
    rng = np.random.default_rng([seed, start])
    x0 = rng.uniform(-1.0, 1.0, (count, 4, 3))
    x1 = x0 + rng.uniform(-1.0, 1.0, (count, 4, 3))
    return x0, x1


def run_partition(kind, seed, start, count, threads=1):
    """One task: the queries of one partition through the ccd kernel ``kind``
    (``"vertex_face"`` or ``"edge_edge"``). Returns ``(toc, status)``."""
    import ccd

    kernel = {"vertex_face": ccd.vertex_face, "edge_edge": ccd.edge_edge}[kind]
    x0, x1 = make_partition(seed, start, count)
    return kernel(x0, x1, threads=threads)


def split(n, partitions):
    """``(start, count)`` of each partition of ``n`` queries."""
    bounds = np.linspace(0, n, partitions + 1).astype(np.int64)
    return [(int(a), int(b - a)) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]


def run_single_process(kind, n, partitions, seed=0, threads=1):
    """Every partition in turn, in this process: the reference the Dask run must equal."""
    parts = [run_partition(kind, seed, s, c, threads) for s, c in split(n, partitions)]
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def run_dask(client, kind, n, partitions, seed=0, threads=1):
    """Every partition as a Dask task on ``client``'s cluster; results in partition order."""
    futures = [
        client.submit(run_partition, kind, seed, s, c, threads, pure=False)
        for s, c in split(n, partitions)
    ]
    parts = client.gather(futures)
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=1_000_000, help="queries per kind")
    parser.add_argument("--partitions", type=int, default=64)
    parser.add_argument("--kind", choices=["vertex_face", "edge_edge", "both"], default="both")
    parser.add_argument("--scheduler", help="address of a running scheduler (tcp://HOST:8786)")
    parser.add_argument("--workers", type=int, default=2, help="local worker processes")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    from dask.distributed import Client, LocalCluster

    if args.scheduler:
        client = Client(args.scheduler)
    else:
        cluster = LocalCluster(
            n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=None
        )
        client = Client(cluster)
    workers = len(client.scheduler_info()["workers"])
    kinds = ["vertex_face", "edge_edge"] if args.kind == "both" else [args.kind]
    try:
        for kind in kinds:
            start = time.perf_counter()
            toc, status = run_dask(client, kind, args.n, args.partitions, args.seed)
            elapsed = time.perf_counter() - start
            hits = int(np.count_nonzero(~np.isnan(toc)))
            print(
                f"{kind}: {args.n} queries in {args.partitions} tasks on {workers} workers: "
                f"{elapsed:.2f} s, {args.n / elapsed / 1e6:.2f} M queries/s, {hits} contacts"
            )
    finally:
        client.close()


if __name__ == "__main__":
    main()
