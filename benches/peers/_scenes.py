"""Procedural deforming scenes for ``deformable.py`` (seeded, numpy): one step ``x0 -> x1``
of an LA-style cloth-ball and of several deforming spheres, each as one merged triangle mesh
(``faces``, ``x0``, ``x1``). Shapes after ``xtask/src/scenes/cloth_ball.rs`` and
``n_body.rs``, written here from scratch at a few thousand to ~20K triangles.
"""

import numpy as np


def icosphere(level):
    t = (1 + 5**0.5) / 2
    v = [[-1, t, 0], [1, t, 0], [-1, -t, 0], [1, -t, 0], [0, -1, t], [0, 1, t], [0, -1, -t], [0, 1, -t],
         [t, 0, -1], [t, 0, 1], [-t, 0, -1], [-t, 0, 1]]
    f = [[0, 11, 5], [0, 5, 1], [0, 1, 7], [0, 7, 10], [0, 10, 11], [1, 5, 9], [5, 11, 4], [11, 10, 2],
         [10, 7, 6], [7, 1, 8], [3, 9, 4], [3, 4, 2], [3, 2, 6], [3, 6, 8], [3, 8, 9], [4, 9, 5],
         [2, 4, 11], [6, 2, 10], [8, 6, 7], [9, 8, 1]]
    v = [np.array(p, float) / np.linalg.norm(p) for p in v]
    for _ in range(level):
        mid = {}
        nf = []

        def m(a, b, mid=mid):
            k = (min(a, b), max(a, b))
            if k not in mid:
                p = v[a] + v[b]
                v.append(p / np.linalg.norm(p))
                mid[k] = len(v) - 1
            return mid[k]

        for a, b, c in f:
            ab, bc, ca = m(a, b), m(b, c), m(c, a)
            nf += [[a, ab, ca], [b, bc, ab], [c, ca, bc], [ab, bc, ca]]
        f = nf
    return np.array(v), np.array(f, dtype=np.int64)


def grid(n):
    idx = np.arange(n * n).reshape(n, n)
    a, b, c, d = idx[:-1, :-1].ravel(), idx[:-1, 1:].ravel(), idx[1:, :-1].ravel(), idx[1:, 1:].ravel()
    return np.concatenate([np.stack([a, b, d], 1), np.stack([a, d, c], 1)]).astype(np.int64)


def _rot_y(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])


def cloth_ball(seed, n_cloth, ball_level, tau=0.55, dtau=0.004):
    """A square cloth draped over a turning ball of radius 1 (the cloth keeps its radial arc
    length; the part beyond the contact angle hangs in folds; patches press into the ball)."""
    rng = np.random.default_rng(seed)
    fold_phase, press_phase = rng.uniform(0, 2 * np.pi, 2)
    R, off = 1.0, 0.006
    u = np.linspace(-1.8, 1.8, n_cloth)
    X, Z = np.meshgrid(u, u, indexing="ij")
    s, phi = np.hypot(X, Z).ravel(), np.arctan2(Z, X).ravel()
    ball_v, ball_f = icosphere(ball_level)

    def frame(t, squeeze):
        alpha = np.pi / 2 * min(t / 0.7, 1.0) ** 1.5 + 0.05
        press = off * (1.0 - squeeze * np.clip(np.sin(3 * phi + press_phase + 9 * t) * np.sin(5 * s - 7 * t), 0, 1))
        r = R + press
        theta = s / r
        on = theta < alpha
        hang = np.where(on, 0.0, s - alpha * r)
        th = np.where(on, theta, alpha)
        folds = 0.05 * np.clip(hang, 0, 1) * np.sin(16 * phi + fold_phase)
        ph = phi + folds
        p = np.stack([r * np.sin(th) * np.cos(ph), r * np.cos(th), r * np.sin(th) * np.sin(ph)], 1)
        tangent = np.stack([np.cos(th) * np.cos(ph), -np.sin(th), np.cos(th) * np.sin(ph)], 1)
        p = p + hang[:, None] * tangent
        ball = ball_v * R @ _rot_y(0.8 * t).T
        return np.vstack([p, ball])

    faces = np.vstack([grid(n_cloth), ball_f + n_cloth * n_cloth])
    return faces, frame(tau, 0.8), frame(tau + dtau, 1.6)


def spheres(seed, count, level):
    """``count`` pulsing, wobbling spheres moving towards their neighbours: neighbours overlap
    by a little during the step."""
    rng = np.random.default_rng(seed)
    v, f = icosphere(level)
    side = int(np.ceil(count ** (1 / 3)))
    cells = np.array([(i, j, k) for i in range(side) for j in range(side) for k in range(side)][:count], float)
    faces, x0, x1 = [], [], []
    for b, c in enumerate(cells):
        centre = c * 2.08 + rng.normal(0, 0.01, 3)
        vel = rng.normal(0, 0.03, 3) - 0.02 * (c - cells.mean(0))
        r0 = 1.0 + rng.uniform(-0.01, 0.01)
        r1 = r0 * (1 + rng.uniform(0.005, 0.03))
        wob = rng.uniform(0, 2 * np.pi, 3)
        w0 = 1 + 0.02 * np.sin(3 * v[:, 0] + wob[0]) * np.cos(2 * v[:, 1] + wob[1])
        w1 = 1 + 0.02 * np.sin(3 * v[:, 0] + wob[0] + 0.3) * np.cos(2 * v[:, 1] + wob[1] + 0.2)
        faces.append(f + b * len(v))
        x0.append(centre + (r0 * w0)[:, None] * v)
        x1.append(centre + vel + (r1 * w1)[:, None] * v @ _rot_y(0.05 * rng.normal()).T)
    return np.vstack(faces), np.vstack(x0), np.vstack(x1)
