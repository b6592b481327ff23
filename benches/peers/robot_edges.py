"""Peer family ``robot-edges``: Tesseract against ccd on robot joint-space edges in clutter.

The Panda and the PR2 (URDF + SRDF from ``--robots DIR``: ``DIR/panda/{urdf,srdf,meshes}``,
``DIR/pr2/...``) stand in a seeded clutter of boxes and cylinders (the same triangles in both
tools). Seeded edges within the joint limits (40 % short: every moving joint turns at most
0.1 rad, 30 % medium: 0.5 rad, 30 % long: 6 rad, clipped to the limits) whose two ends are
free in both tools. A dense reference (ccd's exact static mesh queries at poses at most 0.1
degree apart, 0.5 in ``--quick``, refined 20x around every minimum below 5 mm) says whether
and when each edge first touches (distance <= 0) and how close it comes; every tool is
counted against it (misses, late answers, false alarms) and timed one call per edge (best of
``--repeats``, wall and process CPU time). Tesseract's own exact discrete check re-checks the
reference's verdict on every peer miss / late answer and on up to 10 false alarms per row,
and the static distances of both tools are compared at sampled poses (the fairness check).

Rows per robot:

- ccd ``Robot.check_edge`` Boolean and with its time of contact (tolerance 1 mm);
- ccd 1-degree discrete (``PlanningScene.in_collision`` at poses at most 1 degree apart);
- Tesseract (``tesseract-robotics-nanobind``, Bullet) LVS continuous with exact meshes and
  with its convex-hull conversion of the link meshes (``tesseract:make_convex``), 0.05 rad
  longest valid segment, and Tesseract discrete at 1-degree steps (exact meshes).

Usage (the peers venv)::

    python benches/peers/robot_edges.py --out robot_edges.json [--quick] [--robots DIR] [--repeats N]

Writes the peer-harness JSON (family ``robot-edges``) and prints a table. When Tesseract
cannot be imported its rows are ``skipped`` with the exception text; ccd rows still run.
"""

import argparse
import json
import math
import os
import re
import statistics
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

os.environ.setdefault("RAYON_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

# Tesseract first: its wheel bundles a newer libstdc++ than the OS's, and numpy would load the
# system one first (then Tesseract's libraries fail with "GLIBCXX_3.4.31 not found").
TESSERACT_ERROR = None
try:
    import tesseract_robotics
    from tesseract_robotics.tesseract_collision import (
        ContactRequest,
        ContactResultMap,
        ContactResultVector,
        ContactTestType_ALL,
        ContactTestType_FIRST,
        makeConvexMesh,
    )
    from tesseract_robotics.tesseract_common import (
        GeneralResourceLocator,
        Isometry3d,
        ResourceLocator,
        SimpleLocatedResource,
    )
    from tesseract_robotics.tesseract_environment import AddLinkCommand, Environment
    from tesseract_robotics.tesseract_geometry import Mesh as TMesh
    from tesseract_robotics.tesseract_scene_graph import Collision, Joint, JointType_FIXED, Link
except Exception as e:  # noqa: BLE001 - any import failure makes the Tesseract rows "skipped"
    TESSERACT_ERROR = f"{type(e).__name__}: {e}"

import numpy as np  # noqa: E402

import ccd  # noqa: E402

FAMILY = "robot-edges"
DEG = math.pi / 180.0
CCD_TOL = 1e-3  # ccd's contact distance (check_edge / in_collision tolerance)
LVS = 0.05  # Tesseract longest valid segment (rad, joint-space Euclidean norm)
REFINE_BELOW = 0.005  # reference: refine around sampled minima closer than this (m)
REFINE_SPLIT = 20  # reference: sub-samples per refined interval
CONFIRM_CAP = 10  # false alarms per row re-checked by Tesseract's discrete check
FA_SLACK = 1e-4  # false alarm: reference minimum > tool margin + this (sampling slack, m)
DIST_TOL = 1e-4  # fairness: |ccd distance - Tesseract distance| at sampled poses (m)
DIST_RANGE = 0.05  # fairness: Tesseract distance margin (pairs farther are not reported)
DRAW_CAP = 200  # edge draws per kept edge before the harness gives up (loop cap)

ROBOTS = {
    # moving joints; other joints held at these values (else 0); the same in both tools
    "panda": {
        "moving": [f"panda_joint{i}" for i in range(1, 8)],
        "held": {"panda_finger_joint1": 0.02, "panda_finger_joint2": 0.02},
    },
    "pr2": {
        "moving": [f"{s}_{j}_joint" for s in ("r", "l") for j in (
            "shoulder_pan", "shoulder_lift", "upper_arm_roll", "elbow_flex", "forearm_roll",
            "wrist_flex", "wrist_roll")],
        "held": {"torso_lift_joint": 0.1},
    },
}


def default_robots():
    root = os.environ.get("CCD_SHARED_DIR")
    if root:
        return Path(root) / "data" / "robots"
    return Path(__file__).resolve().parents[3] / "shared" / "data" / "robots"


# ---------------------------------------------------------------- clutter (convex parts)

def cylinder(radius, height, segments, at):
    a = np.linspace(0.0, 2 * math.pi, segments, endpoint=False)
    ring = np.stack([radius * np.cos(a), radius * np.sin(a)], axis=1)
    v = np.concatenate([np.c_[ring, np.zeros(segments)], np.c_[ring, np.full(segments, height)],
                        [[0, 0, 0], [0, 0, height]]])
    f = []
    for i in range(segments):
        j = (i + 1) % segments
        f += [[i, j, segments + j], [i, segments + j, segments + i],
              [2 * segments, j, i], [2 * segments + 1, segments + i, segments + j]]
    return v + np.asarray(at, dtype=float), np.array(f)


def box(lo, hi):
    x0, y0, z0 = lo
    x1, y1, z1 = hi
    v = np.array([[x, y, z] for x in (x0, x1) for y in (y0, y1) for z in (z0, z1)], dtype=float)
    f = np.array([[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
                  [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]])
    return v, f


def panda_clutter(rng):
    """A table, shelf boards and bottles around the arm, kept out of its base (the
    generator of crates/python/benches/robot_edge.py, as convex parts, with the table 7 cm
    below the base instead of 1 cm: the static base-table pair then stays out of the
    distance comparison's 5 cm range)."""
    parts = [box((-1.2, -1.2, -0.09), (1.2, 1.2, -0.07))]
    for _ in range(6):
        x, y = rng.uniform(-0.9, 0.9, 2)
        if math.hypot(x, y) < 0.3:
            continue
        z = rng.uniform(0.2, 0.9)
        parts.append(box((x - 0.2, y - 0.15, z), (x + 0.2, y + 0.15, z + 0.02)))
    placed = 0
    for _ in range(10_000):  # cap: about 1 draw in 9 lands in the kept-out disc
        if placed == 80:
            break
        x, y = rng.uniform(-0.95, 0.95, 2)
        if math.hypot(x, y) < 0.35:
            continue
        parts.append(cylinder(rng.uniform(0.02, 0.05), rng.uniform(0.1, 0.35), 48, (x, y, 0.0)))
        placed += 1
    else:
        raise RuntimeError("clutter: bottle placement cap hit")
    return parts


def pr2_clutter(rng):
    """A table in front of the PR2 (top at 0.72 m), counters on both sides (top at 0.85 m),
    a shelf board over the table, bottles on every surface; clear of the base (|x|, |y| < 0.4)."""
    parts = [box((0.45, -0.7, 0.68), (1.2, 0.7, 0.72))]
    for x, y in ((0.5, -0.65), (0.5, 0.65), (1.15, -0.65), (1.15, 0.65)):
        parts.append(cylinder(0.025, 0.68, 24, (x, y, 0.0)))
    parts.append(box((-0.5, -1.25, 0.0), (1.0, -0.75, 0.85)))  # counters
    parts.append(box((-0.5, 0.75, 0.0), (1.0, 1.25, 0.85)))
    parts.append(box((0.6, -0.6, 1.25), (1.1, 0.6, 1.27)))  # shelf board
    for _ in range(60):
        where = rng.integers(3)
        if where == 0:
            x, y, z = rng.uniform(0.5, 1.15), rng.uniform(-0.65, 0.65), 0.72
        else:
            x, y, z = rng.uniform(-0.45, 0.95), (1 if where == 1 else -1) * rng.uniform(0.8, 1.2), 0.85
        parts.append(cylinder(rng.uniform(0.02, 0.05), rng.uniform(0.1, 0.3), 32, (x, y, z)))
    return parts


def concat(parts):
    vs, fs, base = [], [], 0
    for v, f in parts:
        vs.append(v)
        fs.append(f + base)
        base += len(v)
    return np.concatenate(vs), np.concatenate(fs)


# ---------------------------------------------------------------- robot description

class Description:
    """URDF facts both tools need: limits, joint tree, ccd's built-in self-collision filter."""

    def __init__(self, urdf):
        root = ET.parse(urdf).getroot()
        self.limits, self.parent, self.fixed = {}, {}, set()
        for j in root.iter("joint"):
            if j.find("parent") is None:
                continue  # transmission joints
            name = j.get("name")
            lim = j.find("limit")
            if lim is not None and "lower" in lim.attrib and j.get("type") != "continuous":
                self.limits[name] = (float(lim.get("lower")), float(lim.get("upper")))
            child, par = j.find("child").get("link"), j.find("parent").get("link")
            self.parent[child] = par
            if j.get("type") == "fixed":
                self.fixed.add(child)
        self.links = [l.get("name") for l in root.iter("link")]

    def builtin_filter(self):
        """Pairs ccd never tests besides the SRDF's: parent-child links and links rigidly
        joined (every joint between them fixed) -- given to Tesseract as allowed pairs."""
        group = {}

        def g(link):
            if link not in group:
                group[link] = g(self.parent[link]) if link in self.fixed else link
            return group[link]

        pairs = {tuple(sorted((c, p))) for c, p in self.parent.items()}
        by_group = {}
        for link in self.links:
            by_group.setdefault(g(link), []).append(link)
        for members in by_group.values():
            for i, a in enumerate(members):
                for b in members[i + 1:]:
                    pairs.add(tuple(sorted((a, b))))
        return sorted(pairs)


# ---------------------------------------------------------------- Tesseract side

if TESSERACT_ERROR is None:
    class PackageLocator(ResourceLocator):
        """Resolves ``package://example-robot-data/robots/<name>_description/`` to DIR/<name>/."""

        def __init__(self, prefix, root):
            super().__init__()
            self.prefix, self.root, self.general = prefix, root, GeneralResourceLocator()

        def locateResource(self, url):  # noqa: N802 - Tesseract's name
            if url.startswith(self.prefix):
                return SimpleLocatedResource(url, str(self.root / url[len(self.prefix):]), self)
            return self.general.locateResource(url)


def tesseract_environment(name, robot_dir, parts, convex, allowed):
    """A Tesseract environment: the URDF (collision geometry; exact meshes or convex hulls by
    ``tesseract:make_convex``), an SRDF with the same allowed pairs as ccd and the contact
    manager plugins, the clutter as one static link with one collision per part."""
    urdf = ET.parse(robot_dir / "urdf" / f"{name}.urdf").getroot()
    for link in urdf.iter("link"):
        for v in link.findall("visual"):
            link.remove(v)  # Tesseract loads visual meshes too; the data ships collision only
    urdf_text = re.sub(r"<robot\b", f'<robot tesseract:make_convex="{str(convex).lower()}"',
                       ET.tostring(urdf, encoding="unicode"), count=1)
    plugins = (Path(tesseract_robotics.__file__).parent / "data" / "tesseract_support" / "urdf"
               / "contact_manager_plugins.yaml")
    srdf = (f'<robot name="{name}">'
            + "".join(f'<disable_collisions link1="{a}" link2="{b}" reason="ccd"/>' for a, b in allowed)
            + f'<contact_managers_plugin_config filename="{plugins}"/></robot>')
    env = Environment()
    locator = PackageLocator(f"package://example-robot-data/robots/{name}_description/", robot_dir)
    if not env.initFromUrdfSrdf(urdf_text, srdf, locator):
        raise RuntimeError(f"Tesseract could not load {name} (convex={convex})")
    link = Link("clutter")
    for v, f in parts:
        flat = np.c_[np.full(len(f), 3), f].astype(np.int32).ravel()
        mesh = TMesh([np.asarray(p, dtype=float) for p in v], flat)
        c = Collision()
        c.geometry = makeConvexMesh(mesh) if convex else mesh
        link.addCollision(c)
    joint = Joint("clutter_joint")
    joint.parent_link_name = env.getRootLinkName()
    joint.child_link_name = "clutter"
    joint.type = JointType_FIXED
    joint.parent_to_joint_origin_transform = Isometry3d.Identity()
    if not env.applyCommand(AddLinkCommand(link, joint)):
        raise RuntimeError("Tesseract refused the clutter link")
    return env


class TesseractChecker:
    """Tesseract's edge checks, driven from Python as its ``checkTrajectory`` does in C++:
    LVS continuous (segments of at most ``LVS`` rad joint-space norm, each cast with the
    Bullet cast manager, first contact stops) and discrete at poses at most 1 degree apart."""

    def __init__(self, env, names, fixed_q, moving):
        self.env, self.names = env, list(names)
        self.full = np.array(fixed_q, dtype=float)
        self.moving = moving  # indices into names
        self.cont = env.getContinuousContactManager()
        self.disc = env.getDiscreteContactManager()
        for m in (self.cont, self.disc):
            m.setActiveCollisionObjects(env.getActiveLinkNames())
            m.setDefaultCollisionMarginData(0.0)  # Tesseract's default margin
        state = env.getStateByNamesAndValues(self.names, self.full).link_transforms
        # links whose pose changes when the moving joints move; the rest stay where set
        q = self.full.copy()
        q[moving] += 0.3
        other = env.getStateByNamesAndValues(self.names, q).link_transforms
        self.cast_links = [n for n in env.getActiveLinkNames()
                           if not np.allclose(state[n].matrix(), other[n].matrix())]
        for n in env.getActiveLinkNames():
            self.cont.setCollisionObjectsTransform(n, state[n])
        self.disc.setCollisionObjectsTransform(state)
        self.request = ContactRequest(ContactTestType_FIRST)
        self.parts = (0.0, 0.0, 0.0)
        # distances over every pair ccd tests: static links against the clutter too
        self.dist = env.getDiscreteContactManager().clone()
        self.dist.setActiveCollisionObjects(self.dist.getCollisionObjects())
        self.dist.setCollisionObjectsTransform(state)

    def transforms(self, qm):
        q = self.full.copy()
        q[self.moving] = qm
        return self.env.getStateByNamesAndValues(self.names, q).link_transforms

    def collides(self, qm):
        self.disc.setCollisionObjectsTransform(self.transforms(qm))
        res = ContactResultMap()
        self.disc.contactTest(res, self.request)
        return res.size() > 0

    def lvs_continuous(self, q0, q1):
        """``None`` when free, else the parameter interval (t0, t1) of the first colliding
        segment. ``self.parts`` gets the call's seconds in FK (state solver + the binding's
        transform map), cast-pose updates and contactTest."""
        clock = time.perf_counter
        fk = cast = test = 0.0
        try:
            n = max(1, math.ceil(np.linalg.norm(q1 - q0) / LVS))
            t_a = 0.0
            c0 = clock()
            ta = self.transforms(q0)
            fk += clock() - c0
            for k in range(1, n + 1):
                t_b = k / n
                c0 = clock()
                tb = self.transforms(q0 + (q1 - q0) * t_b)
                c1 = clock()
                for name in self.cast_links:
                    self.cont.setCollisionObjectsTransformCast(name, ta[name], tb[name])
                c2 = clock()
                res = ContactResultMap()
                self.cont.contactTest(res, self.request)
                c3 = clock()
                fk, cast, test = fk + c1 - c0, cast + c2 - c1, test + c3 - c2
                if res.size() > 0:
                    return (t_a, t_b)
                t_a, ta = t_b, tb
            return None
        finally:
            self.parts = (fk, cast, test)

    def discrete(self, q0, q1, step):
        n = max(1, math.ceil(np.max(np.abs(q1 - q0)) / step))
        for k in range(n + 1):
            if self.collides(q0 + (q1 - q0) * (k / n)):
                return (max(0.0, (k - 1) / n), k / n)
        return None

    def distance(self, qm, margin=DIST_RANGE):
        """Smallest signed distance over the tested pairs within ``margin`` (else None)."""
        self.dist.setCollisionObjectsTransform(self.transforms(qm))
        self.dist.setDefaultCollisionMarginData(margin)
        req = ContactRequest(ContactTestType_ALL)
        req.calculate_distance = True
        res = ContactResultMap()
        self.dist.contactTest(res, req)
        vec = ContactResultVector()
        res.flattenMoveResults(vec)
        if len(vec) == 0:
            return None
        best = min(range(len(vec)), key=lambda i: vec[i].distance)
        return vec[best].distance, tuple(vec[best].link_names)


# ---------------------------------------------------------------- ccd side and reference

class CcdSide:
    def __init__(self, name, robot_dir, parts, spec, desc):
        pkg = {f"example-robot-data/robots/{name}_description": robot_dir}
        urdf, srdf = robot_dir / "urdf" / f"{name}.urdf", robot_dir / "srdf" / f"{name}.srdf"
        self.robot = ccd.Robot.load(urdf, srdf, packages=pkg)
        v, f = concat(parts)
        self.env = ccd.Mesh(v, f)
        self.scene = ccd.PlanningScene()
        self.scene.add_robot(urdf, srdf, packages=pkg)
        self.scene.add_object("clutter", mesh=self.env)
        self.names = self.robot.joint_names
        held = spec["held"]
        self.full = np.array([held.get(n, 0.0) for n in self.names])
        self.moving = np.array([self.names.index(n) for n in spec["moving"]])
        self.lo = np.array([desc.limits.get(n, (-math.pi, math.pi))[0] for n in spec["moving"]])
        self.hi = np.array([desc.limits.get(n, (-math.pi, math.pi))[1] for n in spec["moving"]])

    def q(self, qm):
        q = self.full.copy()
        q[self.moving] = qm
        return q

    def distance(self, qm):
        c = self.scene.clearance(self.q(qm))
        return math.inf if c is None else c.distance

    def check_edge(self, q0, q1, boolean):
        return self.robot.check_edge(self.q(q0), self.q(q1), environment=self.env, boolean=boolean,
                                     tolerance=CCD_TOL)

    def discrete(self, q0, q1, step):
        n = max(1, math.ceil(np.max(np.abs(q1 - q0)) / step))
        for k in range(n + 1):
            if self.scene.in_collision(self.q(q0 + (q1 - q0) * (k / n)), tolerance=CCD_TOL):
                return (max(0.0, (k - 1) / n), k / n)
        return None


def reference(side, q0, q1, step):
    """Dense reference along the edge: poses at most ``step`` apart (joint max-norm); each pose
    is tested with ccd's exact static check ``in_collision(q, REFINE_BELOW)`` and, when that
    finds a pair within REFINE_BELOW, measured with the exact ``clearance`` (else it counts
    as REFINE_BELOW). Around every sampled local minimum below REFINE_BELOW and before the
    first touching sample, REFINE_SPLIT sub-samples. Returns (first contact parameter or None,
    smallest sampled distance (REFINE_BELOW standing for "farther"), samples)."""
    n = max(1, math.ceil(np.max(np.abs(q1 - q0)) / step))
    dq = q1 - q0

    def dist(t):
        q = side.q(q0 + dq * t)
        if not side.scene.in_collision(q, tolerance=REFINE_BELOW):
            return REFINE_BELOW
        c = side.scene.clearance(q)
        return REFINE_BELOW if c is None else min(REFINE_BELOW, c.distance)

    d = [dist(0.0)]
    samples = 1
    best = d[0]

    def refine(a, b):
        nonlocal samples, best
        for j in range(1, REFINE_SPLIT):
            t = a + (b - a) * j / REFINE_SPLIT
            dt = dist(t)
            samples += 1
            best = min(best, dt)
            if dt <= 0.0:
                return t
        return None

    for k in range(1, n + 1):
        dk = dist(k / n)
        samples += 1
        best = min(best, dk)
        if dk <= 0.0:
            hit = refine((k - 1) / n, k / n)
            return (hit if hit is not None else k / n), 0.0, samples
        # the previous sample is a local minimum close to contact: look between its neighbours
        if (k >= 2 and d[-1] < REFINE_BELOW and d[-1] <= d[-2] and d[-1] <= dk
                and (d[-1] < d[-2] or d[-1] < dk)):
            hit = refine((k - 2) / n, k / n)
            if hit is not None:
                return hit, 0.0, samples
        d.append(dk)
    return None, best, samples


# ---------------------------------------------------------------- harness

START = time.perf_counter()


def log(msg):
    print(f"[{time.perf_counter() - START:6.1f} s] {msg}", file=sys.stderr, flush=True)


def timed(repeats, f):
    """Best wall and CPU time of ``repeats`` calls of f (one call = one edge) and the answer."""
    wall, cpu, out = math.inf, math.inf, None
    for _ in range(repeats):
        w, c = time.perf_counter(), time.process_time()
        out = f()
        cpu = min(cpu, time.process_time() - c)
        wall = min(wall, time.perf_counter() - w)
    return out, wall * 1e6, cpu * 1e6


def draw_edges(rng, side, tess, count, counts):
    """Seeded edges, exactly 40 % short / 30 % medium / 30 % long (kinds shuffled), whose two
    ends are free in both tools (ccd: ``in_collision`` at its 1 mm tolerance is False;
    Tesseract: no contact at margin 0); an edge with an end that is not is drawn again (same
    kind) and counted by reason."""
    lo, hi = side.lo, side.hi
    n_short, n_medium = round(0.4 * count), round(0.3 * count)
    kinds = [0] * n_short + [1] * n_medium + [2] * (count - n_short - n_medium)
    rng.shuffle(kinds)
    out = []
    draws = 0
    for kind in kinds:
        while True:
            draws += 1
            if draws > DRAW_CAP * count:
                raise RuntimeError(f"edge draw cap hit ({draws} draws for {len(out)} edges)")
            q0 = rng.uniform(lo, hi)
            step = (0.1, 0.5, 6.0)[kind]
            q1 = np.clip(q0 + rng.uniform(-1, 1, len(lo)) * step, lo, hi)
            why = None
            for q in (q0, q1):
                c = side.scene.in_collision(side.q(q), tolerance=CCD_TOL)
                t = c if tess is None else tess.collides(q)
                if c and t:
                    why = why or "end_in_collision"
                elif c != t:
                    d = side.distance(q)
                    if 0.0 < d <= CCD_TOL and not t:
                        # consistent: ccd's 1 mm contact distance, Tesseract's margin 0
                        why = why or "end_within_tolerance"
                    else:
                        why = "disagree"
                        counts.setdefault("disagree_detail", []).append(
                            f"ccd distance {d:.3e} m, Tesseract {'contact' if t else 'free'}")
            if why is None:
                out.append((q0, q1, kind))
                break
            counts[why] = counts.get(why, 0) + 1
    return out


def score(answers, refs, margin):
    """misses, late, false alarms: answers are None (free) or (earliest time, ...)."""
    misses = late = fa = 0
    for ans, (t_ref, dmin, _) in zip(answers, refs):
        if ans is None:
            misses += t_ref is not None
        elif t_ref is not None:
            late += ans[0] > t_ref + 1e-9
        else:
            fa += dmin > margin + FA_SLACK
    return misses, late, fa


def confirm(r, tess, edges, refs, step, out):
    """Tesseract's own exact discrete check on the reference's verdicts: at the reference's
    first touching pose (misses, late answers) it must see a contact; along a false alarm's
    edge at the reference step (first CONFIRM_CAP false alarms) it must see none."""
    answers = r["_answers"]
    bad_t, ok_t, bad_f, ok_f = [], 0, [], 0
    for i, (ans, (t_ref, dmin, _)) in enumerate(zip(answers, refs)):
        q0, q1, _ = edges[i]
        if t_ref is not None and (ans is None or (r["late"] is not None and ans[0] > t_ref + 1e-9)):
            if tess.collides(q0 + (q1 - q0) * t_ref):
                ok_t += 1
            else:
                bad_t.append(i)
        elif ans is not None and t_ref is None and dmin > (CCD_TOL if r["is_ccd"] or "ccd" in r["tool"]
                                                            else 0.0) + FA_SLACK:
            if ok_f + len(bad_f) >= CONFIRM_CAP:
                continue
            if tess.discrete(q0, q1, step) is None:
                ok_f += 1
            else:
                bad_f.append(i)
    if ok_t or bad_t or ok_f or bad_f:
        out["notes"].append(
            f"{r['workload']} / {r['tool']}: Tesseract discrete (exact) confirms {ok_t} of "
            f"{ok_t + len(bad_t)} misses/late answers (contact at the reference's first touching "
            f"pose) and {ok_f} of {ok_f + len(bad_f)} false alarms checked (no contact on the edge "
            f"at the reference step)" + (f"; unconfirmed edges {bad_t + bad_f}" if bad_t or bad_f else ""))


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, math.ceil(p / 100 * len(xs)) - 1))]


def row(workload, tool, is_ccd, version, settings, answers, refs, margin, walls, cpus, target):
    m, l, fa = score(answers, refs, margin)
    return {"workload": workload, "tool": tool, "is_ccd": is_ccd, "version": version,
            "settings": settings, "threads": 1, "queries": len(answers),
            "misses": m, "late": l, "false_alarms": fa,
            "median_us": statistics.median(walls), "p90_us": pct(walls, 90),
            "cpu_median_us": statistics.median(cpus), "target_ratio": target, "skipped": None,
            "_answers": answers}


def skipped_row(workload, tool, settings, reason, target):
    return {"workload": workload, "tool": tool, "is_ccd": False, "version": None,
            "settings": settings, "threads": 1, "queries": None, "misses": None, "late": None,
            "false_alarms": None, "median_us": None, "p90_us": None, "cpu_median_us": None,
            "target_ratio": target, "skipped": reason}


TESS_TOOLS = [
    ("tesseract LVS continuous exact", f"BulletCastBVHManager, exact meshes, LVS_CONTINUOUS "
     f"{LVS} rad (joint-space norm), margin 0, FIRST", 50.0),
    ("tesseract LVS continuous convex", f"BulletCastBVHManager, tesseract:make_convex=true "
     f"(convex hull per link mesh), LVS_CONTINUOUS {LVS} rad, margin 0, FIRST", 20.0),
    ("tesseract discrete 1deg", "BulletDiscreteBVHManager, exact meshes, poses <= 1 deg apart "
     "(max joint change), margin 0, FIRST", None),
]


def run_robot(name, args, rng, out):
    robot_dir = args.robots / name
    spec = ROBOTS[name]
    desc = Description(robot_dir / "urdf" / f"{name}.urdf")
    parts = (panda_clutter if name == "panda" else pr2_clutter)(rng)
    side = CcdSide(name, robot_dir, parts, spec, desc)
    n_tri = side.env.num_faces
    tess = tess_convex = None
    tess_error = TESSERACT_ERROR
    srdf_pairs = [(d.get("link1"), d.get("link2")) for d in
                  ET.parse(robot_dir / "srdf" / f"{name}.srdf").getroot().iter("disable_collisions")]
    allowed = sorted({tuple(sorted(p)) for p in srdf_pairs} | set(desc.builtin_filter()))
    if tess_error is None:
        try:
            envs = [tesseract_environment(name, robot_dir, parts, c, allowed) for c in (False, True)]
            names = envs[0].getActiveJointNames()
            full = [side.full[side.names.index(n)] if n in side.names else 0.0 for n in names]
            moving = np.array([names.index(n) for n in spec["moving"]])
            tess = TesseractChecker(envs[0], names, full, moving)
            tess_convex = TesseractChecker(envs[1], names, full, moving)
        except Exception as e:  # noqa: BLE001
            tess_error = f"{type(e).__name__}: {e}"
            tess = tess_convex = None
    log(f"{name}: tools loaded")
    counts = {}
    t0 = time.perf_counter()
    edges = draw_edges(rng, side, tess, args.edges, counts)
    log(f"{name}: {len(edges)} edges drawn")
    step = args.ref_step * DEG
    refs = [reference(side, q0, q1, step) for q0, q1, _ in edges]
    t_ref = time.perf_counter() - t0
    log(f"{name}: reference done")
    colliding = sum(r[0] is not None for r in refs)
    grazing = sum(r[0] is None and r[1] <= CCD_TOL + FA_SLACK for r in refs)
    kinds = [sum(k == i for _, _, k in edges) for i in range(3)]
    out["notes"].append(
        f"{name}: {len(edges)} edges ({kinds[0]} short / {kinds[1]} medium / {kinds[2]} long), "
        f"{colliding} touch in the reference, {grazing} come within 1.1 mm without touching; "
        f"clutter {len(parts)} parts / {n_tri} triangles; redrawn: "
        f"{counts.get('end_in_collision', 0)} with an end in collision (both tools), "
        f"{counts.get('end_within_tolerance', 0)} with an end within ccd's 1 mm (Tesseract "
        f"free at margin 0), {counts.get('disagree', 0)} where the tools disagreed; reference "
        f"{sum(r[2] for r in refs)} distance queries in {t_ref:.1f} s")
    for detail in counts.get("disagree_detail", [])[:5]:
        out["notes"].append(f"{name}: static disagreement at an edge end: {detail}")
    if tess is not None:
        out["checks"].append({
            "name": f"{name}: ccd and Tesseract agree statically at every drawn edge end",
            "passed": counts.get("disagree", 0) == 0,
            "detail": f"{counts.get('disagree', 0)} disagreements (agreement: both in contact, "
                      f"both free, or ccd within its {CCD_TOL * 1e3:g} mm tolerance with Tesseract "
                      f"free at margin 0)"})

    rows = []
    version = ccd.__version__
    # the first call on a new environment Mesh prepares it (cached): not an edge's cost
    side.check_edge(edges[0][0], edges[0][0], True)
    side.scene.in_collision(side.q(edges[0][0]), tolerance=CCD_TOL)
    # ccd Boolean
    walls, cpus, answers = [], [], []
    for q0, q1, _ in edges:
        hit, w, c = timed(args.repeats, lambda: side.check_edge(q0, q1, True))
        walls.append(w)
        cpus.append(c)
        answers.append(None if hit is None else (0.0,))
    r = row(name, "ccd check_edge Boolean", True, version,
            f"Robot.check_edge(boolean=True), tolerance {CCD_TOL} m, exact meshes",
            answers, refs, CCD_TOL, walls, cpus, None)
    r["late"] = None  # a Boolean answer has no time
    rows.append(r)
    # ccd time of contact
    walls, cpus, answers = [], [], []
    for q0, q1, _ in edges:
        hit, w, c = timed(args.repeats, lambda: side.check_edge(q0, q1, False))
        walls.append(w)
        cpus.append(c)
        answers.append(None if hit is None else (hit.toc,))
    rows.append(row(name, "ccd check_edge toc", True, version,
                    f"Robot.check_edge(boolean=False), tolerance {CCD_TOL} m, exact meshes",
                    answers, refs, CCD_TOL, walls, cpus, None))
    # ccd discrete 1 degree (ours, but a discrete check: its misses are data)
    walls, cpus, answers = [], [], []
    for q0, q1, _ in edges:
        hit, w, c = timed(args.repeats, lambda: side.discrete(q0, q1, DEG))
        walls.append(w)
        cpus.append(c)
        answers.append(hit)
    rows.append(row(name, "ccd discrete 1deg", False, version,
                    f"PlanningScene.in_collision at poses <= 1 deg apart (max joint change), "
                    f"tolerance {CCD_TOL} m, first hit stops",
                    answers, refs, CCD_TOL, walls, cpus, None))
    # Tesseract
    tversion = getattr(tesseract_robotics, "__version__", None) if TESSERACT_ERROR is None else None
    if tess is None:
        for tool, settings, target in TESS_TOOLS:
            rows.append(skipped_row(name, tool, settings, tess_error, target))
    else:
        for (tool, settings, target), fn in zip(TESS_TOOLS, (
                lambda a, b: tess.lvs_continuous(a, b),
                lambda a, b: tess_convex.lvs_continuous(a, b),
                lambda a, b: tess.discrete(a, b, DEG))):
            walls, cpus, answers, parts = [], [], [], []
            checker = tess_convex if "convex" in tool else tess
            for q0, q1, _ in edges:
                best = (math.inf, math.inf, None, None)
                for _ in range(args.repeats):
                    w, c = time.perf_counter(), time.process_time()
                    hit = fn(q0, q1)
                    c = time.process_time() - c
                    w = time.perf_counter() - w
                    best = (min(best[0], w), min(best[1], c), hit,
                            checker.parts if w < best[0] else best[3])
                walls.append(best[0] * 1e6)
                cpus.append(best[1] * 1e6)
                answers.append(best[2])
                parts.append(best[3])
            log(f"{name}: {tool} timed")
            r = row(name, tool, False, tversion, settings, answers, refs, 0.0, walls, cpus, target)
            if "continuous" in tool:
                fk, cast, test = (statistics.median(p[i] * 1e6 for p in parts) for i in range(3))
                work = statistics.median((p[1] + p[2]) * 1e6 for p in parts)
                r["settings"] += ("; segments driven from Python as checkTrajectory does in C++ "
                                  "(FK, cast poses of the moving links, contactTest)")
                r["collision_work_median_us"] = work
                out["notes"].append(
                    f"{name} / {tool}: per edge (medians) FK + binding {fk:.0f} us, cast-pose "
                    f"updates {cast:.0f} us, contactTest {test:.0f} us; Tesseract's collision work "
                    f"alone (cast updates + contactTest, what the C++ loop cannot avoid) "
                    f"{work:.0f} us = {work / rows[0]['median_us']:.1f}x ccd check_edge Boolean")
            rows.append(r)
        log(f"{name}: confirming peer misses / late answers / false alarms with Tesseract")
        for r in rows:
            if r["skipped"] is None:
                confirm(r, tess, edges, refs, step, out)
        log(f"{name}: fairness check")
        # fairness: static distances at sampled poses (edge ends and middles)
        diffs, compared = [], 0
        poses = []
        for (q0, q1, _), (t_ref, _, _) in zip(edges, refs):
            poses += [q0, 0.5 * (q0 + q1)]
            if t_ref is not None:  # just before the first contact: a near pose
                poses.append(q0 + (q1 - q0) * max(0.0, t_ref - step / np.max(np.abs(q1 - q0))))
        for qm in poses[: args.fair_poses]:
            if True:
                dc = side.distance(qm)
                dt = tess.distance(qm)
                if dt is None:
                    if dc < DIST_RANGE - DIST_TOL:
                        diffs.append((math.inf, qm, dc, None))
                    continue
                if dc <= 0.0 and dt[0] <= 0.0:
                    continue  # both touching: penetration depth is not compared
                compared += 1
                diffs.append((abs(dc - dt[0]), qm, dc, dt))
        worst = max(diffs, key=lambda x: x[0]) if diffs else (0.0, None, None, None)
        out["checks"].append({
            "name": f"{name}: static distances ccd vs Tesseract (exact meshes) at {compared} poses",
            "passed": bool(compared > 0 and worst[0] <= DIST_TOL),
            "detail": f"max |diff| {worst[0]:.2e} m (tolerance {DIST_TOL:g} m; ccd {worst[2]}, "
                      f"Tesseract {worst[3]})"})
    out["rows"].extend(rows)
    return rows


def print_table(out):
    print(f"## {out['title']}")
    print(f"reference: {out['reference']}")
    print()
    print("| robot | tool | edges | misses | late | false alarms | median us | p90 us | cpu median us "
          "| ratio to ccd Boolean (wall / cpu) | target |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    base = {r["workload"]: r for r in out["rows"] if r["tool"] == "ccd check_edge Boolean"
            and r["skipped"] is None}
    for r in out["rows"]:
        if r["skipped"]:
            print(f"| {r['workload']} | {r['tool']} | skipped: {r['skipped']} |||||||||")
            continue
        b = base.get(r["workload"])
        ratio = r["median_us"] / b["median_us"] if b else float("nan")
        cratio = r["cpu_median_us"] / b["cpu_median_us"] if b else float("nan")
        target = ""
        if r["target_ratio"]:
            verdict = lambda x: "holds" if x >= r["target_ratio"] else "FAILS"  # noqa: E731
            target = f">= {r['target_ratio']:g}x: wall {verdict(ratio)}, cpu {verdict(cratio)}"
        late = "-" if r["late"] is None else r["late"]
        print(f"| {r['workload']} | {r['tool']} | {r['queries']} | {r['misses']} | {late} | "
              f"{r['false_alarms']} | {r['median_us']:.0f} | {r['p90_us']:.0f} | "
              f"{r['cpu_median_us']:.0f} | {ratio:.1f}x / {cratio:.1f}x | {target} |")
    print()
    for c in out["checks"]:
        print(f"check {'ok' if c['passed'] else 'FAILED'}: {c['name']}: {c['detail']}")
    for n in out["notes"]:
        print(f"note: {n}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--robots", type=Path, default=None)
    parser.add_argument("--data", type=Path, default=None, help="folder holding robots/")
    parser.add_argument("--repeats", type=int, default=None)
    parser.add_argument("--edges", type=int, default=None, help="edges per robot")
    parser.add_argument("--seed", type=int, default=36)
    args = parser.parse_args()
    if args.robots is None:
        args.robots = args.data / "robots" if args.data else default_robots()
    args.edges = args.edges or (20 if args.quick else 250)
    args.repeats = args.repeats or 3
    args.ref_step = 0.5 if args.quick else 0.1  # degrees, max joint change between samples
    args.fair_poses = 40 if args.quick else 300
    out = {
        "family": FAMILY,
        "title": "Robot edges (Panda, PR2) in clutter",
        "reference": (f"ccd's exact static mesh distance at poses <= {args.ref_step:g} deg apart "
                      f"(max joint change), {REFINE_SPLIT}x finer around minima below "
                      f"{REFINE_BELOW * 100:g} cm; contact = distance <= 0"),
        "quick": args.quick,
        "notes": [
            "miss: tool says free, the reference touches; late: the tool's earliest contact time "
            "(ccd: toc; Tesseract / discrete: start of the first colliding segment or step) is "
            "after the reference's first touching sample; false alarm: contact while the "
            f"reference minimum stays above the tool's margin + {FA_SLACK * 1e3:g} mm",
            "one call per edge, best of --repeats, 1 thread; ratios against ccd check_edge Boolean; "
            "on a loaded machine long calls (ms) are preempted more than short ones, so the CPU "
            "ratio is the steadier one",
            "same geometry in both tools: URDF collision meshes, the SRDF disabled pairs plus "
            "ccd's built-in filter (parent-child and rigidly joined links) as Tesseract's "
            "allowed-collision matrix, the clutter as triangle meshes (convex parts)",
        ],
        "checks": [],
        "rows": [],
    }
    if TESSERACT_ERROR is not None:
        out["notes"].append(f"Tesseract not importable: {TESSERACT_ERROR}")
    if not args.robots.is_dir():
        out["notes"].append(f"no robots at {args.robots}: family skipped")
        for name in ROBOTS:
            for tool in ("ccd check_edge Boolean", "ccd check_edge toc"):
                out["rows"].append(skipped_row(name, tool, "", f"no robot data at {args.robots}", None))
    else:
        rng = np.random.default_rng(args.seed)
        for name in ROBOTS:
            run_robot(name, args, rng, out)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    for r in out["rows"]:
        r.pop("_answers", None)
    args.out.write_text(json.dumps(out, indent=2, default=float))
    log("done")
    print_table(out)
    sys.stdout.flush()
    sys.stderr.flush()
    failed = any(not c["passed"] for c in out["checks"])
    # os._exit: Tesseract's nanobind module reports leaked references at interpreter exit
    os._exit(1 if failed else 0)


if __name__ == "__main__":
    main()
