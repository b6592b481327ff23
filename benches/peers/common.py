"""Shared helpers of the Python peer harnesses (`cargo xtask peers`, issue 36): the command
line every harness takes, per-query timing (wall and CPU), the quantiles, and the JSON of the
peers protocol (see `benches/README.md` and `ccd_benches::protocol`).

A harness::

    from common import parse_args, time_query, timing_fields, row, skipped_row, family, check, write_json

    args = parse_args(__doc__)            # --out FILE [--quick] [--data DIR] [--robots DIR] [--repeats N]
    (wall, cpu, answer) = time_query(lambda: query(), repeats)
    rows = [row("ball-ball", "ccd", is_ccd=True, version=..., settings=..., queries=1,
                misses=0, late=0, false_alarms=0, walls=[wall], cpus=[cpu])]
    write_json(args.out, family("analytic-shapes", "title", "reference sentence", args.quick, rows))

Timing: each query is one call, as a user makes it; the best wall time of `repeats` runs, with
the thread CPU time (`time.thread_time`) of that same run. Medians and p90 use the
nearest-rank rule (as `ccd_benches::timing::quantile`).
"""

import argparse
import importlib.metadata
import json
import math
import os
import time


def parse_args(description, argv=None, extra=None):
    """The harness command line: ``--out FILE`` (required), ``--quick``, ``--data DIR`` (the
    folder with ``unc-frames/`` and ``robots/``), ``--robots DIR`` (the folder with
    ``panda/`` and ``pr2/``), ``--repeats N`` (timing runs per query, best kept; ``None``
    when not given). ``extra(parser)`` may add harness-specific options."""
    parser = argparse.ArgumentParser(description=(description or "").split("\n\n")[0])
    parser.add_argument("--out", required=True, help="JSON file to write (peers protocol)")
    parser.add_argument("--quick", action="store_true", help="CI mode: fewer queries and repeats")
    parser.add_argument("--data", default=None, help="folder with unc-frames/ and robots/ (optional)")
    parser.add_argument("--robots", default=None, help="folder with panda/ and pr2/ (optional)")
    parser.add_argument("--repeats", type=int, default=None, help="timing runs per query (best kept)")
    if extra is not None:
        extra(parser)
    return parser.parse_args(argv)


def repeats_of(args, quick=3, full=7):
    """``--repeats`` when given, else `quick` or `full` by ``--quick``."""
    if args.repeats is not None:
        return max(1, args.repeats)
    return quick if args.quick else full


def time_query(f, repeats=1):
    """Runs ``f()`` `repeats` times (at least once): (best wall seconds, thread CPU seconds of
    that run, the last answer)."""
    best_wall, best_cpu, out = math.inf, math.inf, None
    for _ in range(max(1, repeats)):
        c0, w0 = time.thread_time(), time.perf_counter()
        out = f()
        wall = time.perf_counter() - w0
        cpu = time.thread_time() - c0
        if wall < best_wall:
            best_wall, best_cpu = wall, cpu
    return best_wall, best_cpu, out


def quantile(xs, q):
    """Nearest-rank `q`-quantile of `xs` (None when empty)."""
    v = sorted(xs)
    if not v:
        return None
    rank = math.ceil(min(max(q, 0.0), 1.0) * len(v))
    return v[min(max(rank, 1), len(v)) - 1]


def median(xs):
    return quantile(xs, 0.5)


def p90(xs):
    return quantile(xs, 0.9)


def timing_fields(walls, cpus=None):
    """``median_us``, ``p90_us``, ``cpu_median_us`` of per-query seconds."""
    us = lambda x: None if x is None else 1e6 * x  # noqa: E731
    return {
        "median_us": us(median(walls)),
        "p90_us": us(p90(walls)),
        "cpu_median_us": us(median(cpus)) if cpus else None,
    }


def row(workload, tool, *, is_ccd, version, settings, queries, misses, late, false_alarms,
        walls, cpus=None, target_ratio=None, threads=1):
    """One timed row of the protocol (per-query seconds in `walls` / `cpus`)."""
    r = {
        "workload": workload, "tool": tool, "is_ccd": bool(is_ccd), "version": version,
        "settings": settings, "threads": threads, "queries": queries,
        "misses": misses, "late": late, "false_alarms": false_alarms,
        "target_ratio": None if is_ccd else target_ratio, "skipped": None,
    }
    r.update(timing_fields(walls, cpus))
    return r


def skipped_row(workload, tool, reason, *, is_ccd=False, version="", settings="", target_ratio=None, threads=1):
    """A row of a tool that could not run: the numbers are null, the reason is shown."""
    return {
        "workload": workload, "tool": tool, "is_ccd": bool(is_ccd), "version": version,
        "settings": settings, "threads": threads, "queries": None, "misses": None, "late": None,
        "false_alarms": None, "median_us": None, "p90_us": None, "cpu_median_us": None,
        "target_ratio": target_ratio, "skipped": str(reason),
    }


def check(name, passed, detail=""):
    """A fairness check."""
    return {"name": name, "passed": bool(passed), "detail": detail}


def family(name, title, reference, quick, rows, checks=(), notes=()):
    """One family object."""
    return {"family": name, "title": title, "reference": reference, "quick": bool(quick),
            "notes": list(notes), "checks": list(checks), "rows": list(rows)}


def write_json(path, families):
    """Writes one family (a dict) or several (a list) to `path`."""
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    with open(path, "w") as f:
        json.dump(families, f, indent=1, allow_nan=False)


def package_version(dist):
    """The installed version of distribution `dist`, or "unknown"."""
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"
