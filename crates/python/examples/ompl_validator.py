"""An OMPL motion validator backed by ccd, against OMPL's discrete validator.

The Franka Panda (from the ``example-robot-data`` package, or ``../shared/data/robots``) in
a seeded cluttered scene: thin poles, plates and boxes around the arm. RRTConnect (OMPL,
``pip install ompl``) plans ``--queries`` seeded start/goal queries twice:

* **ccd**: :class:`CcdMotionValidator`, a ``ompl.base.MotionValidator`` subclass whose
  ``checkMotion(s1, s2)`` is one :meth:`ccd.PlanningScene.check_edge` (continuous: a motion
  is valid only if no pair comes within the tolerance anywhere along it);
* **discrete**: OMPL's default ``DiscreteMotionValidator`` at its default resolution
  (states every 1 % of the space's maximum extent), calling the same state validity checker
  (:meth:`ccd.PlanningScene.in_collision`).

For each it reports the planning time, the validity checks per plan (state checks and
motion checks), and how many returned paths collide under a dense check (every segment
sampled with joint steps of at most ``--dense-step`` rad, a pose colliding when some pair
is within ``1e-6`` m): the discrete validator's tunnelling. The table is written as
markdown and JSON to ``$CARGO_TARGET_DIR/bench-report/ompl.md`` / ``ompl.json`` (default
``target/bench-report/``) unless ``--out`` names another folder.

OMPL 2.0.1's Python bindings (nanobind) let Python subclass ``MotionValidator`` and
override ``checkMotion(s1, s2)``, which is what RRTConnect calls. The C++ overload with the
last valid state (``checkMotion(s1, s2, std::pair<State*, double>&)``) is not bound, so C++
planners cannot reach a Python override of it; :meth:`CcdMotionValidator.checkMotion`
accepts a third argument ``last_valid`` (a list it fills with ``(q, fraction)`` from the
contact's toc) and :meth:`CcdMotionValidator.last_valid` returns it, for Python callers.

Run: ``python crates/python/examples/ompl_validator.py --queries 20``.
"""

import argparse
import json
import math
import os
import pathlib
import statistics
import sys
import time
import xml.etree.ElementTree as ET

import numpy as np

import ccd

try:
    from ompl import base as ob
    from ompl import geometric as og
    from ompl import util as ou
except ImportError:  # pragma: no cover - the message is the point
    sys.exit("this example needs OMPL's Python bindings: pip install ompl")

REPO = pathlib.Path(__file__).resolve().parents[3]
ARM = [f"panda_joint{k}" for k in range(1, 8)]
FINGERS = 0.02  # both finger joints (within their 0..0.04 m limits)
DENSE_TOLERANCE = 1e-6


def panda_dir():
    """The Panda's folder: ../shared/data/robots/panda, else the registry robots of
    `cargo xtask robots` ($CCD_ROBOT_DATA, else $CARGO_TARGET_DIR/robot-data, else
    target/robot-data)."""
    shared = pathlib.Path(os.environ.get("CCD_SHARED_DIR", REPO.parent / "shared"))
    d = shared / "data" / "robots" / "panda"
    if d.is_dir():
        return d
    if os.environ.get("CCD_ROBOT_DATA"):
        data = pathlib.Path(os.environ["CCD_ROBOT_DATA"])
    else:
        data = REPO / os.environ.get("CARGO_TARGET_DIR", "target") / "robot-data"
    return data / "robots" / "panda"


def arm_limits(urdf):
    """(lower, upper) of the seven arm joints, read from the URDF."""
    root = ET.parse(urdf).getroot()
    lim = {}
    for j in root.iter("joint"):
        e = j.find("limit")
        if j.get("name") in ARM and e is not None:
            lim[j.get("name")] = (float(e.get("lower")), float(e.get("upper")))
    return np.array([lim[n] for n in ARM])


def _pose(xyz, yaw=0.0):
    p = np.eye(4)
    c, s = math.cos(yaw), math.sin(yaw)
    p[:3, :3] = [[c, -s, 0], [s, c, 0], [0, 0, 1]]
    p[:3, 3] = xyz
    return p


def build_scene(panda, seed, obstacles=40):
    """The Panda with its SRDF and `obstacles` seeded objects around it: thin poles
    (radius 1 cm), thin plates (1 cm) and small boxes, placed 0.3-0.8 m from the base axis."""
    scene = ccd.PlanningScene()
    scene.add_robot(
        panda / "urdf" / "panda.urdf",
        panda / "srdf" / "panda.srdf",
        packages={"example-robot-data/robots/panda_description": panda},
    )
    rng = np.random.default_rng(seed)
    for k in range(obstacles):
        r, a = rng.uniform(0.35, 0.8), rng.uniform(-math.pi, math.pi)
        x, y = r * math.cos(a), r * math.sin(a)
        kind = k % 3
        if kind == 0:
            scene.add_object(f"pole{k}", cylinder=(0.01, 0.6), pose=_pose((x, y, rng.uniform(0.2, 0.9))))
        elif kind == 1:
            size = (0.01, rng.uniform(0.15, 0.3), rng.uniform(0.15, 0.3))
            scene.add_object(f"plate{k}", box=size, pose=_pose((x, y, rng.uniform(0.2, 0.9)), a))
        else:
            size = rng.uniform(0.04, 0.1, size=3)
            scene.add_object(f"box{k}", box=size, pose=_pose((x, y, rng.uniform(0.1, 0.9)), a))
    return scene


class Problem:
    """The scene, the arm's joint limits and the mapping OMPL state <-> full `q`."""

    def __init__(self, scene, limits):
        self.scene = scene
        self.limits = limits
        names = scene.joint_names
        self.arm = [names.index(n) for n in ARM]
        self.template = np.zeros(scene.dof)
        for i, n in enumerate(names):
            if n not in ARM:
                self.template[i] = FINGERS
        self.state_checks = 0

    def q(self, values):
        q = self.template.copy()
        q[self.arm] = values
        return q

    def q_of(self, state):
        return self.q([state[i] for i in range(7)])

    def valid(self, state):
        self.state_checks += 1
        return not self.scene.in_collision(self.q_of(state))

    def dense_collides(self, path, step):
        """Whether some pose of the piecewise-linear `path` (arm values), sampled with
        joint steps of at most `step` rad, has a pair within DENSE_TOLERANCE."""
        for a, b in zip(path[:-1], path[1:]):
            n = max(1, int(math.ceil(np.max(np.abs(b - a)) / step)))
            for k in range(n + 1):
                if self.scene.in_collision(self.q(a + (b - a) * (k / n)), tolerance=DENSE_TOLERANCE):
                    return True
        return False

    def random_valid(self, rng, tries=10_000):
        for _ in range(tries):
            v = rng.uniform(self.limits[:, 0], self.limits[:, 1])
            if not self.scene.in_collision(self.q(v)):
                return v
        raise RuntimeError(f"no collision-free pose in {tries} samples")


class CcdMotionValidator(ob.MotionValidator):
    """``checkMotion`` by continuous collision detection (ccd's planning scene)."""

    def __init__(self, si, problem, tolerance=1e-3):
        super().__init__(si)
        self.problem = problem
        self.tolerance = tolerance
        self.calls = 0

    def checkMotion(self, s1, s2, last_valid=None):
        """True when the straight joint-space motion s1 -> s2 is free. With `last_valid`
        (a list, from Python), a blocked motion fills it with ``(q, fraction)``: the arm
        values at the contact's toc and the toc; every pose before it is free."""
        self.calls += 1
        q0, q1 = self.problem.q_of(s1), self.problem.q_of(s2)
        if last_valid is None:
            return self.problem.scene.check_edge(q0, q1, boolean=True, tolerance=self.tolerance) is None
        hit = self.problem.scene.check_edge(q0, q1, tolerance=self.tolerance)
        if hit is None:
            return True
        a = np.array([s1[i] for i in range(7)])
        b = np.array([s2[i] for i in range(7)])
        last_valid[:] = [a + (b - a) * hit.toc, hit.toc]
        return False

    def last_valid(self, s1, s2):
        """``(valid, q, fraction)``: the overload with the last valid state, for Python."""
        out = []
        ok = self.checkMotion(s1, s2, out)
        return (True, None, 1.0) if ok else (False, out[0], out[1])


def plan(problem, start, goal, validator, time_limit):
    """One RRTConnect query; returns a dict of its numbers and the path (arm values)."""
    space = ob.RealVectorStateSpace(7)
    bounds = ob.RealVectorBounds(7)
    for i, (lo, hi) in enumerate(problem.limits):
        bounds.setLow(i, lo)
        bounds.setHigh(i, hi)
    space.setBounds(bounds)
    si = ob.SpaceInformation(space)
    si.setStateValidityChecker(problem.valid)
    ccd_validator = None
    if validator == "ccd":
        ccd_validator = CcdMotionValidator(si, problem)
        si.setMotionValidator(ccd_validator)
    si.setup()
    ss = og.SimpleSetup(si)
    s, g = space.allocState(), space.allocState()
    for i in range(7):
        s[i], g[i] = float(start[i]), float(goal[i])
    ss.setStartAndGoalStates(s, g)
    ss.setPlanner(og.RRTConnect(si))
    problem.state_checks = 0
    t0 = time.perf_counter()
    solved = ss.solve(time_limit)
    elapsed = time.perf_counter() - t0
    exact = bool(solved) and ss.haveExactSolutionPath()
    path = None
    if exact:
        p = ss.getSolutionPath()
        path = np.array([[p.getState(k)[i] for i in range(7)] for k in range(p.getStateCount())])
    motion_checks = ccd_validator.calls if ccd_validator else si.getMotionValidator().getCheckedMotionCount()
    return {
        "solved": exact,
        "time_s": elapsed,
        "state_checks": problem.state_checks,
        "motion_checks": motion_checks,
        "path": path,
    }


def run(queries=20, seed=1, time_limit=10.0, dense_step=0.005, obstacles=40, log=print):
    """Plans `queries` seeded queries with both validators; returns (rows, per-query)."""
    panda = panda_dir()
    if not (panda / "urdf" / "panda.urdf").is_file():
        raise FileNotFoundError(f"{panda}: no Panda (run `cargo xtask robots`)")
    ou.setLogLevel(ou.LogLevel.LOG_WARN)
    ou.RNG.setSeed(seed)
    scene = build_scene(panda, seed, obstacles)
    problem = Problem(scene, arm_limits(panda / "urdf" / "panda.urdf"))
    rng = np.random.default_rng(seed)
    pairs = [(problem.random_valid(rng), problem.random_valid(rng)) for _ in range(queries)]
    per_query = []
    for k, (start, goal) in enumerate(pairs):
        for validator in ("ccd", "discrete"):
            r = plan(problem, start, goal, validator, time_limit)
            r["collides"] = bool(r["solved"] and problem.dense_collides(r["path"], dense_step))
            r.update(query=k, validator=validator)
            log(
                f"query {k} {validator}: solved {r['solved']} in {r['time_s']:.3f} s, "
                f"{r['state_checks']} state + {r['motion_checks']} motion checks, "
                f"dense check {'COLLIDES' if r['collides'] else 'free'}"
            )
            per_query.append(r)
    rows = []
    for validator in ("ccd", "discrete"):
        rs = [r for r in per_query if r["validator"] == validator]
        ok = [r for r in rs if r["solved"]]
        rows.append({
            "validator": validator,
            "queries": len(rs),
            "solved": len(ok),
            "time_median_s": statistics.median(r["time_s"] for r in rs) if rs else None,
            "time_mean_s": statistics.fmean(r["time_s"] for r in rs) if rs else None,
            "state_checks_median": statistics.median(r["state_checks"] for r in ok) if ok else None,
            "motion_checks_median": statistics.median(r["motion_checks"] for r in ok) if ok else None,
            "paths_colliding_dense": sum(r["collides"] for r in ok),
        })
    return rows, per_query


def markdown(rows, args):
    head = (
        f"RRTConnect (OMPL {getattr(ou, '__version__', '2.0.1')}), Franka Panda, {args.obstacles} thin "
        f"obstacles, {args.queries} seeded queries (seed {args.seed}), time limit {args.time_limit} s; "
        f"dense check: joint steps ≤ {args.dense_step} rad, contact within {DENSE_TOLERANCE} m.\n\n"
        "| motion validator | solved | plan time median (mean), s | state checks / plan (median) "
        "| motion checks / plan (median) | returned paths colliding (dense) |\n|---|---|---|---|---|---|\n"
    )
    name = {"ccd": "ccd `checkMotion` (continuous)", "discrete": "OMPL default (discrete, 1 % resolution)"}
    lines = [
        f"| {name[r['validator']]} | {r['solved']}/{r['queries']} | {r['time_median_s']:.3f} "
        f"({r['time_mean_s']:.3f}) | {r['state_checks_median']} | {r['motion_checks_median']} "
        f"| {r['paths_colliding_dense']}/{r['solved']} |"
        for r in rows
    ]
    return head + "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--queries", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--time-limit", type=float, default=10.0)
    ap.add_argument("--dense-step", type=float, default=0.005)
    ap.add_argument("--obstacles", type=int, default=40)
    ap.add_argument("--out", type=pathlib.Path, default=None)
    args = ap.parse_args(argv)
    out = args.out or REPO / os.environ.get("CARGO_TARGET_DIR", "target") / "bench-report"
    rows, per_query = run(args.queries, args.seed, args.time_limit, args.dense_step, args.obstacles)
    out.mkdir(parents=True, exist_ok=True)
    md = markdown(rows, args)
    (out / "ompl.md").write_text(md)
    for r in per_query:
        r.pop("path")
    (out / "ompl.json").write_text(json.dumps({"args": vars(args) | {"out": str(out)}, "rows": rows, "queries": per_query}, indent=1))
    print(md)
    print(f"written to {out / 'ompl.md'} and {out / 'ompl.json'}")
    return rows


if __name__ == "__main__":
    main()
