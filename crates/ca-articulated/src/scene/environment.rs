//! The environment in the articulated query: whether a part's swept box (or one of its
//! time windows' boxes) meets the static environment, and the environment pairs' sweeps and
//! conservative advancement.

use super::*;

/// Whether some environment triangle's box overlaps `bx` (conservative: false only when
/// none can).
pub(crate) fn env_overlaps(env: &RigidBody, bx: &Aabb, ws: &mut ccd_bvh::Workspace) -> bool {
    let q = Rss::fit_points(&bx.corners());
    let mesh = env.mesh_bvh();
    let mut found = false;
    mesh.bvh().traverse(
        ws,
        |bv| bv.overlaps(&q, &DAffine3::IDENTITY),
        |p| {
            let t = mesh.mesh().triangle(p as usize);
            let tb = Aabb::from_points([t.a, t.b, t.c]);
            if tb.overlaps(bx) {
                found = true;
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        },
    );
    found
}

/// The sweep of a part against the environment with its window boxes, each computed and
/// tested on first use.
#[derive(Debug)]
pub(super) struct EnvSweep {
    pub(super) part: Part,
    pub(super) sweep: Sweep,
    /// Per window: not yet tested (`None`), free (`Some(None)`), or its swept box, which
    /// meets some environment triangle.
    pub(super) windows: [Option<Option<Aabb>>; WINDOWS],
}

impl EnvSweep {
    /// Window `k`'s swept box when it meets some triangle of the environment `env` (its
    /// body and node boxes), `None` when the window is free.
    pub(super) fn window(
        &mut self,
        k: usize,
        env: (&RigidBody, &[Aabb]),
        stack: &mut Vec<u32>,
    ) -> Option<Aabb> {
        *self.windows[k].get_or_insert_with(|| {
            let bx = self.sweep.window_box(k);
            env_meets_box(env.0, env.1, &bx, stack).then_some(bx)
        })
    }

    /// The first window from `k` on whose swept box meets the environment.
    pub(super) fn first_hit(
        &mut self,
        k: usize,
        env: (&RigidBody, &[Aabb]),
        stack: &mut Vec<u32>,
    ) -> Option<usize> {
        (k..WINDOWS).find(|&j| self.window(j, env, stack).is_some())
    }
}

/// A part's world motion over the step as Taylor models, for its swept box per window.
#[derive(Debug)]
pub(super) struct Sweep {
    pub(super) world: Transform<TaylorModel>,
    pub(super) corners: [DVec3; 8],
    /// `ε/2` and a relative allowance for the rounding of the inflation.
    pub(super) margin: f64,
}

impl Sweep {
    /// The part's swept box over window `k` of [`WINDOWS`] equal windows of the step (the
    /// Taylor models restricted to the window), grown by `ε/2`.
    pub(super) fn window_box(&self, k: usize) -> Aabb {
        let w = Interval::new(k as f64 / WINDOWS as f64, (k + 1) as f64 / WINDOWS as f64);
        // (the windows lie in the step: a failed restriction, not expected, falls back to
        // the whole step's box, which holds the window's)
        self.world
            .restrict(w)
            .as_ref()
            .unwrap_or(&self.world)
            .aabb_of_corners(&self.corners)
            .inflate(self.margin)
    }
}

/// Mesh CA of part `a` against the environment (`env`: its body and node boxes) over
/// `[start, end]`, run only over the time windows whose swept boxes meet some environment
/// triangle (consecutive ones merged into one window search), each restricted to the
/// triangles inside its boxes: the windows whose boxes meet none are free. The first contact
/// found is the pair's (every window before it is free). Boxes are computed as the search
/// reaches their windows. Each window search first goes through the pieces' hull screen
/// (`pieces`, see [`crate::env_pieces`]): skipped when every piece its box meets is proven
/// free, else started at the earliest hull contact and restricted to the box of the
/// pieces not proven free.
#[allow(clippy::too_many_arguments)]
pub(super) fn env_ca(
    a: &RigidBody,
    (a_collider, env_collider): (&Collider, &Collider),
    pair: &MoverPair<'_>,
    sweep: &mut EnvSweep,
    (env, env_boxes): (&RigidBody, &[Aabb]),
    pieces: &EnvPieces,
    stack: &mut Vec<u32>,
    start: f64,
    end: f64,
    ca: &CaOptions,
    scratch: &mut CastWorkspace,
    hull_iterations: &mut u64,
) -> Result<Option<Contact>, ArticulatedError> {
    let mut hit = |k: usize| sweep.window(k, (env, env_boxes), stack);
    let w = WINDOWS as f64;
    // windows are [k/W, (k+1)/W]; the search starts in the one holding `start`
    let mut k = ((start * w) as usize).min(WINDOWS - 1);
    while k < WINDOWS && (k as f64 / w) < end {
        let Some(mut region) = hit(k) else {
            k += 1;
            continue;
        };
        // the run k..m of consecutive windows whose boxes meet the environment (window m,
        // when tested, is free)
        let mut m = k + 1;
        while m < WINDOWS && (m as f64 / w) < end {
            match hit(m) {
                Some(bx) => {
                    region = region.merge(bx);
                    m += 1;
                }
                None => break,
            }
        }
        let (mut from, to) = ((k as f64 / w).max(start), (m as f64 / w).min(end));
        if from < to && !pieces.is_empty() {
            match pieces.screen(a, pair, from, to, &region, ca, hull_iterations) {
                Screened::Free => from = to,
                Screened::Search { from: f, region: r } => (from, region) = (f, r),
            }
        }
        if from < to
            && let Some(c) = cast(
                a_collider,
                env_collider,
                pair,
                &CastOptions::from(*ca)
                    .with_window(from, to)
                    .with_region(region),
                scratch,
            )?
            .contact
            .map(ShapeContact::into_contact)
        {
            return Ok(Some(c));
        }
        k = m + 1;
    }
    Ok(None)
}

/// Whether some triangle of the environment `env` meets `bx` (its node boxes `boxes`
/// tested top-down, then each triangle by an exact separating-axis test grown by a rounding
/// allowance: false only when none can).
pub(super) fn env_meets_box(
    env: &RigidBody,
    boxes: &[Aabb],
    bx: &Aabb,
    stack: &mut Vec<u32>,
) -> bool {
    let mesh = env.mesh_bvh();
    let bvh = mesh.bvh();
    if boxes.len() != bvh.node_count() || boxes.is_empty() {
        return true; // (not expected: the boxes are built with the environment)
    }
    stack.clear();
    stack.push(0);
    while let Some(i) = stack.pop() {
        if !boxes[i as usize].overlaps(bx) {
            continue;
        }
        match bvh.node(i).children() {
            Some([l, r]) => stack.extend([l, r]),
            None => {
                for &p in bvh.node_primitives(i) {
                    let t = mesh.mesh().triangle(p as usize);
                    if triangle_meets_box(t.a, t.b, t.c, bx) {
                        return true;
                    }
                }
            }
        }
    }
    false
}

/// Whether triangle `abc` meets the box `bx` (separating-axis test on the 13 axes: the box
/// normals, the triangle normal and the 9 edge cross products), with every separation
/// required to exceed a rounding allowance (`1e-12` times the coordinate scale): false only
/// when they are certainly apart.
pub(super) fn triangle_meets_box(a: DVec3, b: DVec3, c: DVec3, bx: &Aabb) -> bool {
    let tb = Aabb::from_points([a, b, c]);
    if !tb.overlaps(bx) {
        return false;
    }
    let centre = bx.center();
    let h = 0.5 * (bx.max - bx.min);
    let (a, b, c) = (a - centre, b - centre, c - centre);
    let scale = a.abs().max(b.abs()).max(c.abs()).max_element() + h.max_element();
    let slack = 1e-12 * scale;
    let (e0, e1, e2) = (b - a, c - b, a - c);
    // separated along `n` when the triangle's projection clears the box's by the allowance
    let apart = |n: DVec3| {
        let (pa, pb, pc) = (n.dot(a), n.dot(b), n.dot(c));
        let r = h.x * n.x.abs() + h.y * n.y.abs() + h.z * n.z.abs();
        let m = slack * (n.x.abs() + n.y.abs() + n.z.abs());
        pa.min(pb).min(pc) > r + m || pa.max(pb).max(pc) < -r - m
    };
    for e in [e0, e1, e2] {
        for axis in [DVec3::X, DVec3::Y, DVec3::Z] {
            if apart(axis.cross(e)) {
                return false;
            }
        }
    }
    !apart(e0.cross(e1))
}

impl ArticulatedScene {
    /// Whether some time window's Taylor-model swept box of part `p` meets an environment
    /// triangle (its sweep is added to `ws.envs`, built from the Taylor-model world
    /// transforms `world` of the query); true when the sweep cannot be built (the narrow
    /// phase reports the error).
    pub(super) fn some_window_meets_environment(
        &self,
        ws: &mut ArticulatedWorkspace,
        world: &[Vec<Option<Transform<TaylorModel>>>],
        p: Part,
        eps: f64,
    ) -> bool {
        let Some(env) = self.environment() else {
            return false;
        };
        let i = match ws.envs.iter().position(|e| e.part == p) {
            Some(i) => i,
            None => match self.env_sweep(&ws.motions, world, p, eps) {
                Ok(sweep) => {
                    ws.envs.push(EnvSweep {
                        part: p,
                        sweep,
                        windows: [None; WINDOWS],
                    });
                    ws.envs.len() - 1
                }
                Err(_) => return true,
            },
        };
        ws.envs[i]
            .first_hit(0, (env, self.env_boxes()), &mut ws.stack)
            .is_some()
    }

    /// The world motion of part `p` (a link or a rigid body) over the step as order-3
    /// Taylor models (the chain's relative motions composed as in Eq. 1), with its OBB
    /// corners, for its swept boxes per time window.
    pub(super) fn env_sweep(
        &self,
        motions: &[ArticulatedMotion],
        cached: &[Vec<Option<Transform<TaylorModel>>>],
        p: Part,
        eps: f64,
    ) -> Result<Sweep, ArticulatedError> {
        let (world, corners): (Transform<TaylorModel>, &[DVec3; 8]) = match p {
            Part::Link { body, link } => {
                let (b, m) = self
                    .bodies
                    .get(body)
                    .zip(motions.get(body))
                    .ok_or(ArticulatedError::UnknownPart(p))?;
                let shape = b.link_shape(link).ok_or(ArticulatedError::UnknownPart(p))?;
                if let Some(w) = cached
                    .get(body)
                    .and_then(|w| w.get(link.index()))
                    .and_then(Option::as_ref)
                {
                    return Ok(Sweep {
                        world: *w,
                        corners: *shape.obb_corners(),
                        margin: 0.5 * eps * (1.0 + 1e-9),
                    });
                }
                let links = b.model().links();
                // the chain from the root down to the link, composed as in Eq. 1
                let mut chain = vec![link];
                while let Some(parent) = links[chain[chain.len() - 1].index()].parent {
                    chain.push(parent);
                }
                let mut world: Option<Transform<TaylorModel>> = None;
                for &j in chain.iter().rev() {
                    let rel = &m.relatives()[j.index()];
                    world = Some(
                        match world {
                            Some(w) => chain_step(&w, rel),
                            None => rel.enclosure::<TaylorModel>(Interval::UNIT),
                        }
                        .map_err(|source| ArticulatedError::Motion { body, source })?,
                    );
                }
                (
                    world.ok_or(ArticulatedError::UnknownPart(p))?,
                    shape.obb_corners(),
                )
            }
            Part::Rigid(i) => {
                let r = self.rigid.get(i).ok_or(ArticulatedError::UnknownPart(p))?;
                (
                    r.motion.enclosure::<TaylorModel>(Interval::UNIT)?,
                    &r.corners,
                )
            }
            Part::Environment => return Err(ArticulatedError::UnknownPart(p)),
        };
        Ok(Sweep {
            world,
            corners: *corners,
            margin: 0.5 * eps * (1.0 + 1e-9),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ccd_test_support::XorShift64;

    #[test]
    fn triangle_box_test_never_separates_meeting_sets() {
        let mut s = XorShift64::new(0x9e37_79b9_7f4a_7c15);
        let mut r = |lo: f64, hi: f64| s.range(lo, hi);
        let (mut met, mut apart) = (0, 0);
        for _ in 0..20_000 {
            let c = DVec3::new(r(-1.0, 1.0), r(-1.0, 1.0), r(-1.0, 1.0));
            let h = DVec3::new(r(0.01, 0.6), r(0.01, 0.6), r(0.01, 0.6));
            let bx = Aabb {
                min: c - h,
                max: c + h,
            };
            let mut p = || DVec3::new(r(-1.6, 1.6), r(-1.6, 1.6), r(-1.6, 1.6));
            let (a, b, t) = (p(), p(), p());
            if triangle_meets_box(a, b, t, &bx) {
                met += 1;
                continue;
            }
            apart += 1;
            // no point of the triangle (on a barycentric grid) lies in the box
            for i in 0..=24 {
                for j in 0..=24 - i {
                    let (u, v) = (f64::from(i) / 24.0, f64::from(j) / 24.0);
                    let q = a + (b - a) * u + (t - a) * v;
                    assert!(!bx.contains_point(q), "{a} {b} {t} vs {bx:?}: {q} inside");
                }
            }
        }
        assert!(met > 1000 && apart > 1000, "{met} meeting, {apart} apart");
    }

    #[test]
    fn triangle_box_test_keeps_exact_touches() {
        let bx = Aabb {
            min: DVec3::ZERO,
            max: DVec3::ONE,
        };
        // a vertex on the corner, an edge along an edge, a face on a face, an edge crossing
        // a box edge diagonally; and a triangle whose box overlaps but that passes by the
        // corner (its plane x + y + z = 3.3 misses the box)
        let cases = [
            (
                [
                    DVec3::ONE,
                    DVec3::new(2.0, 1.5, 1.0),
                    DVec3::new(1.5, 2.0, 3.0),
                ],
                true,
            ),
            (
                [
                    DVec3::new(1.0, 0.0, 1.0),
                    DVec3::new(1.0, 1.0, 1.0),
                    DVec3::new(2.0, 0.5, 2.0),
                ],
                true,
            ),
            (
                [
                    DVec3::new(0.2, 0.2, 1.0),
                    DVec3::new(0.8, 0.2, 1.0),
                    DVec3::new(0.5, 0.9, 1.0),
                ],
                true,
            ),
            (
                [
                    DVec3::new(1.5, 0.5, 1.0),
                    DVec3::new(0.5, 1.5, 1.0),
                    DVec3::new(1.5, 1.5, 3.0),
                ],
                true,
            ),
            (
                [
                    DVec3::new(2.3, 0.5, 0.5),
                    DVec3::new(0.5, 2.3, 0.5),
                    DVec3::new(0.5, 0.5, 2.3),
                ],
                false,
            ),
        ];
        for ([a, b, c], meets) in cases {
            assert_eq!(triangle_meets_box(a, b, c, &bx), meets, "{a} {b} {c}");
        }
    }
}
