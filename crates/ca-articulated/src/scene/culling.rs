//! Spatial culling of the articulated query (CATCH Sec. 5): interval and Taylor-model swept
//! boxes of every part, the candidate pairs they keep, and the second-level test of two
//! links' pieces in each other's frame.

use super::*;

/// Second-level spatial culling (see [`ArticulatedScene::apart_in_link_frames`]) is tried on the
/// first this many pairs of a query whose world boxes overlap, and on later ones only
/// while it has culled at least one in [`SECOND_LEVEL_RATE`] of those it tried: where
/// overlapping boxes are mostly real near contacts (a folded chain of balls), the test
/// rarely succeeds and its relative motions cost more than the pairs it would save.
/// Skipping it only keeps a pair for the narrow phase, so answers do not change.
pub(super) const SECOND_LEVEL_TRIAL: u32 = 32;

/// See [`SECOND_LEVEL_TRIAL`].
pub(super) const SECOND_LEVEL_RATE: u32 = 4;

/// The second-level test after the Taylor-model boxes keeps its record across the queries
/// of an [`ArticulatedWorkspace`] ([`SecondLevel`]): a motion planner's queries have a handful of
/// overlapping pairs each, too few for a per-query record to ever stop the test.
/// While the test is off, one pair in this many is still tried (so a changed scene can
/// turn it back on), and the record halves every [`SECOND_LEVEL_MEMORY`] trials. The
/// interval pass keeps its per-query record ([`SECOND_LEVEL_TRIAL`]): its queries test
/// tens of overlapping pairs each, and the mannequin's spatial culling (96.03 % against
/// the 96 % target) depends on trying all of them.
pub(super) const SECOND_LEVEL_PROBE: u32 = 16;

/// See [`SECOND_LEVEL_PROBE`].
pub(super) const SECOND_LEVEL_MEMORY: u32 = 1024;

/// The test after the Taylor-model boxes stays on while it culls at least one in this
/// many of the pairs it tries (across queries, see [`SECOND_LEVEL_PROBE`]).
pub(super) const SECOND_LEVEL_RATE_ACROSS: u32 = 8;

/// The record of second-level tests after the Taylor-model boxes (see
/// [`SECOND_LEVEL_PROBE`]): trials, pairs culled, pairs skipped.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct SecondLevel {
    pub(super) tried: u32,
    pub(super) culled: u32,
    pub(super) skipped: u32,
}

impl SecondLevel {
    /// Whether to try the test on the next pair whose boxes overlap.
    pub(super) fn try_next(&mut self) -> bool {
        if self.tried < SECOND_LEVEL_TRIAL || SECOND_LEVEL_RATE_ACROSS * self.culled >= self.tried {
            return true;
        }
        self.skipped = self.skipped.wrapping_add(1);
        self.skipped.is_multiple_of(SECOND_LEVEL_PROBE)
    }

    /// Records a trial and whether it culled the pair.
    pub(super) fn record(&mut self, culled: bool) {
        self.tried += 1;
        self.culled += u32::from(culled);
        if self.tried >= SECOND_LEVEL_MEMORY {
            self.tried /= 2;
            self.culled /= 2;
        }
    }
}

/// A transform's entries bounded over the step ([`Enclosure::bound_cheap`]: the cheap
/// range is enough for the second-level culling, which only needs boxes that hold them).
pub(super) fn bounded<E: Enclosure>(w: &Transform<E>) -> Transform<Interval> {
    let t = &w.translation;
    Transform {
        rotation: ccd_taylor::Mat3 {
            rows: w.rotation.rows.map(|r| r.map(|e| e.bound_cheap())),
        },
        translation: ccd_taylor::Vec3 {
            x: t.x.bound_cheap(),
            y: t.y.bound_cheap(),
            z: t.z.bound_cheap(),
        },
    }
}

/// Two links of one tree whose interval spatial culling (in their root's frame) keeps them
/// are tested again with Taylor models when one of them turns by more than this (radians,
/// the sum of its and its ancestors' rotation angles over the step): the intervals' wrapping
/// grows with the turn, so on small steps (mocap frames) the Taylor models cull almost
/// nothing more and cost more than they save, while on large ones (planner edges) they cull
/// many pairs. Only which tests run depends on it, never an answer.
pub(super) const TAYLOR_TURN: f64 = 0.25;

/// A Taylor-model query whose links turn by more than this (radians, as [`TAYLOR_TURN`])
/// skips the interval boxes and computes Taylor-model boxes for every part: on such steps
/// (planner edges, tumbling trains) nearly every link would need them, and the interval
/// boxes and tests would only add their cost.
pub(super) const TAYLOR_ONLY_TURN: f64 = 0.5;

/// Whether one of two links turns by more than [`TAYLOR_TURN`] over the step.
pub(super) fn turned(turns: &[Vec<f64>], a: Part, b: Part) -> bool {
    let turn = |p: Part| match p {
        Part::Link { body, link } => turns
            .get(body)
            .and_then(|t| t.get(link.index()))
            .copied()
            .unwrap_or(f64::INFINITY),
        _ => f64::INFINITY,
    };
    turn(a).max(turn(b)) > TAYLOR_TURN
}

/// A part's interval swept box narrowed by its Taylor-model one. Both hold the part's
/// motion, so their intersection is never empty; should rounding ever make it so, the
/// Taylor-model box is kept (the box the query used before the hybrid).
pub(super) fn narrowed(interval: Aabb, taylor: Aabb) -> Aabb {
    let both = interval.intersection(taylor);
    if both.is_empty() { taylor } else { both }
}

/// The motion of `wb`'s frame in `wa`'s (`wa⁻¹ ∘ wb`) and the reverse, bounded over the
/// step (interval arithmetic) and held in midpoint–radius form for the second-level test
/// ([`crate::midrad`]); both transforms' rotation parts must enclose rotations at every
/// time (world transforms of links). `None` when a bound is unbounded.
pub(super) fn relative(
    wa: &Transform<Interval>,
    wb: &Transform<Interval>,
) -> Option<(MidRadMotion, MidRadMotion)> {
    let ab = wa.inverse_compose(wb); // b's link frame → a's
    let fwd = MidRadMotion::new(&ab.rotation.bound(), &ab.translation.bound())?;
    let rev = fwd.transposed_with(&ab.inverse().translation.bound())?;
    Some((fwd, rev))
}

/// Whether two links' pieces (`pa` of the first, `pb` of the second: OBB, root RSS, the
/// root's children's RSSs), moving relative to each other by `(fwd, rev)` (the second's
/// frame in the first's and the reverse), stay more than `eps` apart over the step: their
/// OBBs are, or their root RSSs are, or every pair of the hierarchies' second-level RSSs
/// is. Two pieces are apart when either, carried into the other's frame, clears it along
/// one of its axes ([`clear_of`]).
pub(super) fn apart_by(
    (fwd, rev): &(MidRadMotion, MidRadMotion),
    pa: &[Piece],
    pb: &[Piece],
    eps: f64,
) -> bool {
    let apart =
        |p: &Piece, q: &Piece| clear_of(p, &carry(fwd, q), eps) || clear_of(q, &carry(rev, p), eps);
    let (Some(obb_a), Some(obb_b)) = (pa.first(), pb.first()) else {
        return false;
    };
    if apart(obb_a, obb_b) {
        return true;
    }
    let (Some(ra), Some(rb)) = (pa.get(1), pb.get(1)) else {
        return false;
    };
    if apart(ra, rb) {
        return true;
    }
    // second level: the root's children (the root itself for a leaf)
    pub(super) fn level(p: &[Piece]) -> &[Piece] {
        if p.len() > 2 { &p[2..] } else { &p[1..2] }
    }
    let (ca, cb) = (level(pa), level(pb));
    if ca.len() == 1 && cb.len() == 1 {
        return false; // (tested above)
    }
    // each piece carried once into the other frame (at most two per side)
    let mut into_a = [None; 2];
    let mut into_b = [None; 2];
    ca.iter().enumerate().all(|(x, p)| {
        cb.iter().enumerate().all(|(y, q)| {
            let qa = into_a
                .get_mut(y)
                .map(|c| *c.get_or_insert_with(|| carry(fwd, q)));
            if qa.is_some_and(|qa| clear_of(p, &qa, eps)) {
                return true;
            }
            let pb = into_b
                .get_mut(x)
                .map(|c| *c.get_or_insert_with(|| carry(rev, p)));
            pb.is_some_and(|pb| clear_of(q, &pb, eps))
        })
    })
}

impl ArticulatedScene {
    /// Every part in `ws.boxes` (boxes not yet set) and every pair the query considers in
    /// `ws.cands`, in the order of the pair loop, each part marked in `ws.need`: spatial
    /// culling then tests every pair with Taylor-model boxes only.
    pub(super) fn all_pairs(
        &self,
        ws: &mut ArticulatedWorkspace,
        opts: &QueryOptions,
        stats: &mut ArticulatedStats,
    ) -> Result<(), ArticulatedError> {
        ws.boxes.clear();
        for (b, body) in self.bodies.iter().enumerate() {
            for (id, _) in body.shapes() {
                ws.boxes
                    .push((Part::Link { body: b, link: id }, Aabb::EMPTY));
            }
        }
        for i in 0..self.rigid.len() {
            ws.boxes.push((Part::Rigid(i), Aabb::EMPTY));
        }
        let n = ws.boxes.len();
        ws.need.clear();
        ws.need.resize(n, true);
        ws.cands.clear();
        for i in 0..n {
            for j in i + 1..n {
                if self.considered(opts, ws.boxes[i].0, ws.boxes[j].0) {
                    stats.pairs_before += 1;
                    ws.cands.push(Cand {
                        i,
                        j: Some(j),
                        one_tree: false,
                    });
                }
            }
            if self.env.is_some() {
                stats.pairs_before += 1;
                ws.cands.push(Cand {
                    i,
                    j: None,
                    one_tree: false,
                });
            }
        }
        Ok(())
    }

    /// Interval swept boxes of every part with geometry over `[0, 1]` (the OBB corners'
    /// box in midpoint–radius form, [`corner_box`]), inflated by `ε/2`, into `ws.boxes`, with the interval world transforms of each body's links left in
    /// `worlds` (one entry per body), and in `ws.rel` the links' transforms relative to the
    /// root link of their tree (`ws.roots`: that root): two links of one tree seen from
    /// their root's frame move only as the chain between them does, without the root's
    /// world motion, so their relative motion gets much tighter bounds.
    pub(super) fn interval_boxes(
        &self,
        ws: &mut ArticulatedWorkspace,
        eps: f64,
        worlds: &mut Vec<Vec<Option<Transform<Interval>>>>,
    ) -> Result<(), ArticulatedError> {
        ws.boxes.clear();
        worlds.clear();
        ws.rel.clear();
        ws.roots.clear();
        ws.turns.clear();
        for (b, (body, motion)) in self.bodies.iter().zip(&ws.motions).enumerate() {
            let links = body.model().links();
            let mut world: Vec<Option<Transform<Interval>>> = Vec::with_capacity(links.len());
            let mut rel: Vec<Option<Transform<Interval>>> = Vec::with_capacity(links.len());
            let mut roots: Vec<usize> = Vec::with_capacity(links.len());
            let mut turns: Vec<f64> = Vec::with_capacity(links.len());
            for (i, link) in links.iter().enumerate() {
                let m = &motion.relatives()[i];
                let local = interval_enclosure(m);
                // (a model lists parents before their children; a parent not yet seen is
                // an error, never a root)
                let parent = match link.parent {
                    Some(p) => Some(
                        world
                            .get(p.index())
                            .and_then(Option::as_ref)
                            .zip(rel.get(p.index()).and_then(Option::as_ref))
                            .zip(roots.get(p.index()).zip(turns.get(p.index())))
                            .ok_or(ArticulatedError::UnknownPart(Part::Link {
                                body: b,
                                link: p,
                            }))?,
                    ),
                    None => None,
                };
                let (w, r, root, turn) = match parent {
                    Some(((wp, rp), (&root, &turn))) => {
                        (wp.compose(&local), rp.compose(&local), root, turn)
                    }
                    None => (local, Transform::identity(Interval::UNIT), i, 0.0),
                };
                let turn = turn + m.params().angle().abs();
                world.push(Some(w));
                rel.push(Some(r));
                roots.push(root);
                turns.push(turn);
            }
            for (id, shape) in body.shapes() {
                if let Some(w) = &world[id.index()] {
                    let corners = shape.obb_corners();
                    let bx = corner_box(w, corners).unwrap_or_else(|| w.aabb_of_corners(corners));
                    ws.boxes
                        .push((Part::Link { body: b, link: id }, bx.inflate(0.5 * eps)));
                }
            }
            worlds.push(world);
            ws.rel.push(rel);
            ws.roots.push(roots);
            ws.turns.push(turns);
        }
        for (i, r) in self.rigid.iter().enumerate() {
            let tr = interval_enclosure(&r.motion);
            let bx = corner_box(&tr, &r.corners).unwrap_or_else(|| tr.aabb_of_corners(&r.corners));
            ws.boxes.push((Part::Rigid(i), bx.inflate(0.5 * eps)));
        }
        Ok(())
    }

    /// Whether the query considers the pair of parts `a`, `b` at all (two links of one body
    /// only when self-collision is on and the body's filter keeps them).
    pub(super) fn considered(&self, opts: &QueryOptions, a: Part, b: Part) -> bool {
        match (a, b) {
            (Part::Link { body: x, link: la }, Part::Link { body: y, link: lb }) if x == y => {
                opts.self_collision && self.bodies[x].is_self_pair(la, lb)
            }
            _ => true,
        }
    }

    /// Spatial culling with the interval swept boxes in `ws.boxes` and the interval world
    /// transforms `worlds`: box pairs (self pairs after the filter, other bodies), then for
    /// two links whose boxes overlap a second, sharper test ([`ArticulatedScene::apart_in_link_frames`]:
    /// each link's bounding pieces swept in the other's frame; tried while it pays, see
    /// [`SECOND_LEVEL_TRIAL`]), and each box against the environment's triangle boxes. The
    /// pairs left are `ws.cands` (in the order of the pair loop; `None`: the environment),
    /// and `ws.need` marks the parts in one of them (the Taylor-model query computes
    /// Taylor-model boxes for those only: every culling test is conservative, so a pair
    /// culled here is culled whatever its Taylor-model boxes).
    pub(super) fn interval_pairs(
        &self,
        ws: &mut ArticulatedWorkspace,
        opts: &QueryOptions,
        stats: &mut ArticulatedStats,
        worlds: &[Vec<Option<Transform<Interval>>>],
    ) {
        let n = ws.boxes.len();
        ws.need.clear();
        ws.need.resize(n, false);
        ws.cands.clear();
        ws.frames.clear();
        ws.frames.resize(n, None);
        ws.frames_rel.clear();
        ws.frames_rel.resize(n, None);
        // second-level tests tried and pairs they culled (see SECOND_LEVEL_TRIAL)
        let (mut tried, mut culled) = (0u32, 0u32);
        for i in 0..n {
            let (pa, ba) = ws.boxes[i];
            for j in i + 1..n {
                let (pb, bb) = ws.boxes[j];
                if !self.considered(opts, pa, pb) {
                    continue;
                }
                stats.pairs_before += 1;
                let one_tree = match (pa, pb) {
                    (Part::Link { body: x, link: la }, Part::Link { body: y, link: lb }) => {
                        x == y
                            && ws.roots.get(x).is_some_and(|r| {
                                r.get(la.index()).is_some()
                                    && r.get(la.index()) == r.get(lb.index())
                            })
                    }
                    _ => false,
                };
                let keep = ba.overlaps(&bb) && {
                    let trial = tried < SECOND_LEVEL_TRIAL || SECOND_LEVEL_RATE * culled >= tried;
                    let (w, frames) = if one_tree {
                        (&ws.rel[..], &mut ws.frames_rel)
                    } else {
                        (worlds, &mut ws.frames)
                    };
                    let apart = trial
                        && self.apart_in_link_frames(w, frames, (i, pa), (j, pb), opts.tolerance);
                    tried += u32::from(trial);
                    culled += u32::from(apart);
                    !apart
                };
                if keep {
                    ws.cands.push(Cand {
                        i,
                        j: Some(j),
                        one_tree,
                    });
                    if !one_tree || turned(&ws.turns, pa, pb) {
                        ws.need[i] = true;
                        ws.need[j] = true;
                    }
                }
            }
            if let Some(env) = self.environment() {
                stats.pairs_before += 1;
                if env_meets_box(env, self.env_boxes(), &ba, &mut ws.stack) {
                    ws.cands.push(Cand {
                        i,
                        j: None,
                        one_tree: false,
                    });
                    ws.need[i] = true;
                }
            }
        }
    }

    /// The interval-first hybrid of the Taylor-model query: Taylor-model world transforms
    /// (`worlds`, one entry per body; `None` where not computed) only for the links that
    /// `ws.need` marks and their ancestors (one pass down each body's tree), and the boxes of
    /// needed parts in `ws.boxes` narrowed to their intersection with the Taylor-model swept
    /// box (both hold the part's motion grown by `ε/2`, so their intersection does too).
    /// Without `narrow` the boxes are replaced by the Taylor-model ones (for every part that
    /// `ws.need` marks). A link's Taylor-model box is the coarse one of its OBB's centre
    /// ([`Transform::aabb_of_centred`], marked in `ws.coarse`), three bounded models
    /// instead of up to twenty-four; rigid bodies get their corners' boxes.
    pub(super) fn taylor_boxes(
        &self,
        ws: &mut ArticulatedWorkspace,
        eps: f64,
        worlds: &mut Vec<Vec<Option<Transform<TaylorModel>>>>,
        narrow: bool,
    ) -> Result<(), ArticulatedError> {
        worlds.clear();
        ws.coarse.clear();
        ws.coarse.resize(ws.boxes.len(), false);
        let mut k = 0;
        for (b, (body, motion)) in self.bodies.iter().zip(&ws.motions).enumerate() {
            let links = body.model().links();
            let mut need = vec![false; links.len()];
            // the parts of this body are its shapes, in order, at ws.boxes[k..]
            let start = k;
            for (id, _) in body.shapes() {
                need[id.index()] = ws.need[k];
                k += 1;
            }
            // parents come before their children: mark ancestors from the leaves up
            for i in (0..links.len()).rev() {
                if need[i]
                    && let Some(p) = links[i].parent
                {
                    need[p.index()] = true;
                }
            }
            let mut world: Vec<Option<Transform<TaylorModel>>> = vec![None; links.len()];
            for i in 0..links.len() {
                if !need[i] {
                    continue;
                }
                let rel = &motion.relatives()[i];
                world[i] = Some(match links[i].parent {
                    // (marked with the link, and listed before it)
                    Some(p) => {
                        let pw = world
                            .get(p.index())
                            .and_then(Option::as_ref)
                            .filter(|_| p.index() < i)
                            .ok_or(ArticulatedError::UnknownPart(Part::Link {
                                body: b,
                                link: p,
                            }))?;
                        chain_step(pw, rel)
                            .map_err(|source| ArticulatedError::Motion { body: b, source })?
                    }
                    None => rel
                        .enclosure::<TaylorModel>(Interval::UNIT)
                        .map_err(|source| ArticulatedError::Motion { body: b, source })?,
                });
            }
            for (m, (id, shape)) in body.shapes().enumerate() {
                let kk = start + m;
                if let (true, Some(w)) = (ws.need[kk], world[id.index()].as_ref()) {
                    // the coarse box first: the corners' box only where it does not cull
                    let (bx, coarse) = match shape.centred() {
                        Some(c) => (w.aabb_of_centred(c), true),
                        None => (w.aabb_of_corners(shape.obb_corners()), false),
                    };
                    let bx = bx.inflate(0.5 * eps);
                    ws.boxes[kk].1 = if narrow {
                        narrowed(ws.boxes[kk].1, bx)
                    } else {
                        bx
                    };
                    ws.coarse[kk] = coarse;
                }
            }
            worlds.push(world);
        }
        for (i, r) in self.rigid.iter().enumerate() {
            if ws.need[k] {
                let tr: Transform<TaylorModel> =
                    r.motion.enclosure::<TaylorModel>(Interval::UNIT)?;
                let bx = tr.aabb_of_corners(&r.corners).inflate(0.5 * eps);
                debug_assert_eq!(ws.boxes[k].0, Part::Rigid(i));
                ws.boxes[k].1 = if narrow {
                    narrowed(ws.boxes[k].1, bx)
                } else {
                    bx
                };
            }
            k += 1;
        }
        Ok(())
    }

    /// The potentially colliding pairs from the pairs `ws.cands` that
    /// [`ArticulatedScene::interval_pairs`] left. Without `taylor` (the interval query) they are all
    /// kept. With `taylor` (the Taylor-model world transforms of the needed links and the
    /// narrowed boxes of [`ArticulatedScene::taylor_boxes`], coarse ones for links) each is tested
    /// again: two parts when their boxes overlap and [`ArticulatedScene::apart_in_link_frames`] with
    /// the Taylor-model transforms does not cull them (tried while it pays, counted
    /// afresh), a part and the environment when its box meets an environment triangle box,
    /// again once a coarse box is narrowed by the corners' box ([`ArticulatedScene::refine_box`]),
    /// and then some window's box ([`WINDOWS`] Taylor-model swept boxes over sub-intervals
    /// of the step, exact triangle tests) meets an environment triangle. (Two links' coarse
    /// boxes are not refined: on `panda-planner` the corners' boxes of both cost more than
    /// the hull CA runs of the pairs they would cull.) The sweeps stay in `ws.envs` for the narrow
    /// phase, which needs the same windows.
    pub(super) fn potential_pairs(
        &self,
        ws: &mut ArticulatedWorkspace,
        opts: &QueryOptions,
        stats: &mut ArticulatedStats,
        taylor: Option<&[Vec<Option<Transform<TaylorModel>>>]>,
    ) {
        ws.pcls.clear();
        let mut cands = std::mem::take(&mut ws.cands);
        ws.frames.clear();
        ws.frames.resize(ws.boxes.len(), None);
        for &Cand { i, j, one_tree } in &cands {
            let (pa, ba) = ws.boxes[i];
            let keep = match (taylor, j) {
                (None, _) => true,
                // (boxes narrowed only when the links' Taylor models were computed anyway)
                (Some(_), Some(j)) if one_tree && !turned(&ws.turns, pa, ws.boxes[j].0) => {
                    ba.overlaps(&ws.boxes[j].1)
                }
                (Some(w), None) => self.environment().is_some_and(|env| {
                    env_meets_box(env, self.env_boxes(), &ba, &mut ws.stack)
                        && (!self.refine_box(ws, w, i, opts.tolerance)
                            || env_meets_box(env, self.env_boxes(), &ws.boxes[i].1, &mut ws.stack))
                        && self.some_window_meets_environment(ws, w, pa, opts.tolerance)
                }),
                (Some(w), Some(j)) => {
                    let (pb, bb) = ws.boxes[j];
                    ba.overlaps(&bb) && {
                        let trial = ws.second_level.try_next();
                        let apart = trial
                            && self.apart_in_link_frames(
                                w,
                                &mut ws.frames,
                                (i, pa),
                                (j, pb),
                                opts.tolerance,
                            );
                        if trial {
                            ws.second_level.record(apart);
                        }
                        !apart
                    }
                }
            };
            if keep {
                ws.pcls.push(Pcl {
                    a: pa,
                    b: j.map_or(Part::Environment, |j| ws.boxes[j].0),
                    lower: 0.0,
                });
            }
        }
        cands.clear();
        ws.cands = cands;
        stats.pairs_after_spatial = ws.pcls.len() as u64;
    }

    /// Narrows the coarse Taylor-model box of part `k` of `ws.boxes` (a link's, from
    /// [`Transform::aabb_of_centred`]) by the box of its OBB corners' trajectories
    /// ([`Transform::aabb_of_corners`], with the link's world transform in `world`); whether
    /// the box changed (false when it was not coarse: nothing to test again).
    pub(super) fn refine_box(
        &self,
        ws: &mut ArticulatedWorkspace,
        world: &[Vec<Option<Transform<TaylorModel>>>],
        k: usize,
        eps: f64,
    ) -> bool {
        if !std::mem::replace(&mut ws.coarse[k], false) {
            return false;
        }
        if let Part::Link { body, link } = ws.boxes[k].0
            && let Some(w) = world.get(body).and_then(|b| b.get(link.index()))
            && let Some(w) = w.as_ref()
            && let Some(shape) = self.bodies.get(body).and_then(|b| b.link_shape(link))
        {
            let bx = w.aabb_of_corners(shape.obb_corners()).inflate(0.5 * eps);
            ws.boxes[k].1 = narrowed(ws.boxes[k].1, bx);
            return true;
        }
        false
    }

    /// Second-level spatial culling of two parts (at `i` and `j` in `ws.boxes`) whose world
    /// swept boxes overlap: true when they certainly stay more than `eps` apart over the
    /// step. Both must be links whose bodies' world enclosures are in `worlds` (else false:
    /// the pair is kept). Each link's world transform is bounded entry by entry over the
    /// step once per query (`frames`, interval arithmetic, also for Taylor-model worlds:
    /// refining with the Taylor models' relative motion culled more but cost more than it
    /// saved); the relative motion of `b`'s link frame in `a`'s
    /// ([`Transform::inverse_compose`]) and the reverse motion carry each side's rounded
    /// boxes ([`crate::body::Piece`]) into the frame of the other side's ([`apart_by`]).
    /// World-aligned boxes of long, slanted or crossing links overlap where these do not.
    pub(super) fn apart_in_link_frames<E: Enclosure>(
        &self,
        worlds: &[Vec<Option<Transform<E>>>],
        frames: &mut [Option<Transform<Interval>>],
        (i, a): (usize, Part),
        (j, b): (usize, Part),
        eps: f64,
    ) -> bool {
        let side = |p: Part| match p {
            Part::Link { body, link } => Some((
                worlds.get(body)?.get(link.index())?.as_ref()?,
                self.bodies.get(body)?.link_shape(link)?.pieces(),
            )),
            _ => None,
        };
        let (Some((wa, pa)), Some((wb, pb))) = (side(a), side(b)) else {
            return false;
        };
        let mut frame = |k: usize, w: &Transform<E>| -> Option<Transform<Interval>> {
            let f = frames.get_mut(k)?;
            Some(*f.get_or_insert_with(|| bounded(w)))
        };
        let (Some(fa), Some(fb)) = (frame(i, wa), frame(j, wb)) else {
            return false;
        };
        relative(&fa, &fb).is_some_and(|m| apart_by(&m, pa, pb, eps))
    }
}
