"""examples/dask_batch.py on a LocalCluster with 2 worker processes equals a single-process
run, bit for bit."""

import pathlib
import sys

import numpy as np
import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"
# on sys.path before the cluster starts: spawned workers inherit it and import the module
sys.path.insert(0, str(EXAMPLES))
import dask_batch  # noqa: E402


@pytest.fixture(scope="module")
def client():
    from dask.distributed import Client, LocalCluster

    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster, Client(cluster) as c:
        c.wait_for_workers(2, timeout=120)
        assert len(c.scheduler_info()["workers"]) == 2
        yield c


@pytest.mark.parametrize("kind", ["vertex_face", "edge_edge"])
def test_local_cluster_equals_single_process(client, kind):
    n, parts = 30_000, 12
    toc, status = dask_batch.run_dask(client, kind, n, parts, seed=5)
    ref_toc, ref_status = dask_batch.run_single_process(kind, n, parts, seed=5)
    assert toc.shape == (n,)
    np.testing.assert_array_equal(toc, ref_toc)  # NaN positions must match too
    np.testing.assert_array_equal(status, ref_status)
    hits = np.count_nonzero(~np.isnan(toc))
    assert 0 < hits < n  # both outcomes occur


def test_tasks_ran_on_both_workers(client):
    import os

    pids = client.run(os.getpid)
    assert len(set(pids.values())) == 2 and os.getpid() not in pids.values()
