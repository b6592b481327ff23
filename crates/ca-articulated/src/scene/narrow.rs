//! The narrow phase of the articulated query: link-pair and link–environment conservative
//! advancement in the order of their time-of-contact lower bounds, with temporal culling
//! (CATCH Alg. 1).

use super::*;

impl ArticulatedScene {
    pub(super) fn part_body(&self, p: Part) -> Result<&RigidBody, ArticulatedError> {
        let body = match p {
            Part::Link { body, link } => self
                .bodies
                .get(body)
                .and_then(|b| b.link_shape(link))
                .map(LinkShape::body),
            Part::Rigid(i) => self.rigid.get(i).map(|r| &r.body),
            Part::Environment => self.environment(),
        };
        body.ok_or(ArticulatedError::UnknownPart(p))
    }

    /// The part's body as the CA engine's door takes it ([`ccd_ca_rigid::cast`]).
    pub(super) fn part_collider(&self, p: Part) -> Result<&Collider, ArticulatedError> {
        let collider = match p {
            Part::Link { body, link } => self
                .bodies
                .get(body)
                .and_then(|b| b.link_shape(link))
                .map(LinkShape::collider),
            Part::Rigid(i) => self.rigid.get(i).map(|r| &r.collider),
            Part::Environment => self.env.as_deref().map(PreparedEnvironment::collider),
        };
        collider.ok_or(ArticulatedError::UnknownPart(p))
    }

    pub(super) fn mover<'s>(
        &'s self,
        motions: &'s [ArticulatedMotion],
        p: Part,
        base: Option<LinkId>,
    ) -> Result<Mover<'s>, ArticulatedError> {
        match p {
            Part::Link { body, link } => self
                .bodies
                .get(body)
                .zip(motions.get(body))
                .and_then(|(b, m)| Mover::link(b.model(), m, link, base))
                .ok_or(ArticulatedError::UnknownPart(p)),
            Part::Rigid(i) => self
                .rigid
                .get(i)
                .map(|r| Mover::Rigid(&r.motion))
                .ok_or(ArticulatedError::UnknownPart(p)),
            Part::Environment => Ok(Mover::Static),
        }
    }

    /// The two sides of a pair with their motions. Two links of one body are seen from the
    /// frame of their deepest common ancestor (returned with the body): the motion they
    /// share does not change their distance and stays out of the bounds.
    pub(crate) fn pair<'s>(
        &'s self,
        motions: &'s [ArticulatedMotion],
        pcl: &Pcl,
    ) -> Result<(&'s RigidBody, &'s RigidBody, MoverPair<'s>, Frame), ArticulatedError> {
        let (a, b) = (self.part_body(pcl.a)?, self.part_body(pcl.b)?);
        let frame = match (pcl.a, pcl.b) {
            (Part::Link { body: x, link: la }, Part::Link { body: y, link: lb }) if x == y => {
                let model = self
                    .bodies
                    .get(x)
                    .ok_or(ArticulatedError::UnknownPart(pcl.a))?
                    .model();
                common_ancestor(model, la, lb).map(|base| (x, base))
            }
            _ => None,
        };
        let base = frame.map(|(_, l)| l);
        let pair = MoverPair(
            self.mover(motions, pcl.a, base)?,
            self.mover(motions, pcl.b, base)?,
        );
        Ok((a, b, pair, frame))
    }

    /// Lower bounds, sorting and CA with temporal culling (CATCH Alg. 1).
    ///
    /// `cached`: `ws.world` holds Taylor-model world transforms of links of this query's
    /// motions (`None` where not computed), composed as the full query composes them, and
    /// the environment sweeps start from them.
    pub(crate) fn narrow_phase(
        &self,
        ws: &mut ArticulatedWorkspace,
        opts: &QueryOptions,
        out: &mut QueryResult,
        cached: bool,
    ) -> Result<(), ArticulatedError> {
        ws.envs.clear();
        self.narrow_phase_with(ws, opts, out, cached)
    }

    /// [`ArticulatedScene::narrow_phase`]; `cached`: `ws.world` holds this query's Taylor-model world
    /// transforms of every body's links (else they are composed where needed).
    pub(super) fn narrow_phase_with(
        &self,
        ws: &mut ArticulatedWorkspace,
        opts: &QueryOptions,
        out: &mut QueryResult,
        cached: bool,
    ) -> Result<(), ArticulatedError> {
        let ca = CaOptions::default()
            .with_tolerance(opts.tolerance)
            .with_max_iterations(opts.max_iterations);
        let ArticulatedWorkspace {
            motions,
            pcls,
            scratch,
            stack,
            world,
            envs,
            known,
            order,
            directions,
            ..
        } = ws;
        directions.clear();
        let world: &[Vec<Option<Transform<TaylorModel>>>] = if cached { world } else { &[] };
        // the sweep of part `a` against the environment (computed once per query)
        let env_entry = |envs: &mut Vec<EnvSweep>, a: Part| -> Result<usize, ArticulatedError> {
            if let Some(i) = envs.iter().position(|e| e.part == a) {
                return Ok(i);
            }
            let sweep = self.env_sweep(motions, world, a, opts.tolerance)?;
            envs.push(EnvSweep {
                part: a,
                sweep,
                windows: [None; WINDOWS],
            });
            Ok(envs.len() - 1)
        };
        let culling = opts.temporal_culling || opts.mode == Mode::All;
        // the lower bound of a pair's time of contact (CATCH Alg. 1, step 1): hull CA; the
        // start of the first time window of an environment pair whose swept box meets an
        // environment triangle; else the first mesh CA step when a side has no hull.
        // With `first`, hull CA runs one iteration: its outcome is that of the full run
        // (touching or free at once), or else the full run's first iterate, a lower bound of
        // the full run's result (`Lower::Partial`; CA only advances).
        let lower_of = |pcl: &Pcl,
                        first: bool,
                        envs: &mut Vec<EnvSweep>,
                        stack: &mut Vec<u32>,
                        scratch: &mut CastWorkspace,
                        stats: &mut ArticulatedStats,
                        directions: &mut Vec<(Part, Part, DVec3)>|
         -> Result<(Lower, f64), ArticulatedError> {
            let (a, b, pair, _) = self.pair(motions, pcl)?;
            let bound = if pcl.b == Part::Environment {
                let i = env_entry(envs, pcl.a)?;
                let env = (self.part_body(Part::Environment)?, self.env_boxes());
                envs[i]
                    .first_hit(0, env, stack)
                    .map(|k| k as f64 / WINDOWS as f64)
            } else if a.hull().is_some() && b.hull().is_some() {
                let opts = if first { ca.with_max_iterations(1) } else { ca };
                let (ca_, cb_) = (self.part_collider(pcl.a)?, self.part_collider(pcl.b)?);
                let hulls = CastOptions::from(opts).with_hulls_only(true);
                let out = cast(ca_, cb_, &pair, &hulls, scratch)?;
                let n = out.direction.unwrap_or(DVec3::ZERO);
                match out.contact {
                    Some(c) if first && c.status == Status::OutOfIterations => {
                        return Ok((Lower::Partial, c.toc));
                    }
                    Some(c) => {
                        stats.hull_iterations += u64::from(c.stats.iterations);
                        Some(c.toc)
                    }
                    None => {
                        // (the adaptive query's separation certificate for the next step)
                        if n != DVec3::ZERO {
                            directions.push((pcl.a, pcl.b, n));
                        }
                        None
                    }
                }
            } else {
                let first = CastOptions::from(ca.with_max_iterations(1));
                let (ca_, cb_) = (self.part_collider(pcl.a)?, self.part_collider(pcl.b)?);
                let r = cast(ca_, cb_, &pair, &first, scratch)?.contact;
                stats.ca_iterations += 1;
                match r {
                    Some(c) if c.status == Status::OutOfIterations => Some(c.toc),
                    Some(_) => Some(0.0),
                    None => None,
                }
            };
            Ok(bound.map_or((Lower::Free, 0.0), |l| (Lower::Known, l)))
        };
        // With temporal culling the pairs run in the order of their lower bounds, ties in
        // the order of the pair list (a stable sort), each until the running minimum
        // `t_min` stops the loop. The bounds are computed lazily: a pair whose bound is not
        // known yet stands in the queue with a lower bound of it (0, then the first hull CA
        // iterate) and gets its bound when it comes first; only a known bound lets a pair
        // run. A pair then runs only once every pair before it in the queue has a known
        // bound that is no smaller (or a smaller one and has run), so the pairs run in
        // exactly the order of the sorted bounds, with the same bounds; the pairs the loop
        // never reaches (after a contact at `t = 0`, most of them) never complete theirs.
        // In Boolean mode a pair's bound is computed whole when it first comes up: any
        // contact ends the query, so the order only decides which one, and the first
        // iterate would be computed twice for every pair that goes on.
        // Environment pairs get theirs at once: their windows were tested by spatial
        // culling, and the pairs left in `ws.pcls` (the adaptive query reads them) keep
        // every environment pair not proven free.
        known.clear();
        order.clear();
        if culling {
            for (k, pcl) in pcls.iter_mut().enumerate() {
                let state = if pcl.b == Part::Environment {
                    let (state, l) =
                        lower_of(pcl, false, envs, stack, scratch, &mut out.stats, directions)?;
                    pcl.lower = l;
                    state
                } else {
                    pcl.lower = 0.0;
                    Lower::Unknown
                };
                if state != Lower::Free {
                    order.push(std::cmp::Reverse(Queued(pcl.lower, k)));
                }
                known.push(state);
            }
        }
        let stats = &mut out.stats;
        let contact_of = |pcl: &Pcl, mut c: Contact| {
            if c.status == Status::InitiallyTouching && c.toc > 0.0 {
                c.status = Status::Converged;
            }
            PartPairContact {
                a: pcl.a,
                b: pcl.b,
                contact: c,
            }
        };
        // step 3: CA in that order with the running minimum
        let mut t_min = 1.0f64;
        let mut plain = 0..if culling { 0 } else { pcls.len() };
        loop {
            let next = if culling {
                order.pop().map(|std::cmp::Reverse(Queued(_, k))| k)
            } else {
                plain.next()
            };
            let Some(k) = next else { break };
            let pcl = pcls[k];
            let end = if opts.mode == Mode::All || !opts.temporal_culling {
                1.0
            } else {
                t_min
            };
            // sorted: every later pair starts later still. Once a contact holds `t_min`, a
            // pair whose lower bound reaches it can only tie (its TOC is at least its lower
            // bound, and a tie does not replace the first contact), so it is not run: resting
            // contacts (lower bound 0 everywhere) then cost one CA, not one per pair. (A
            // bound not known yet stands as 0, below its pair's bound: the test is sound.)
            let tied = opts.mode == Mode::Toc
                && opts.temporal_culling
                && !out.contacts.is_empty()
                && pcl.lower >= end;
            if pcl.lower > end || tied {
                break;
            }
            if culling && known[k] != Lower::Known {
                let first = known[k] == Lower::Unknown && opts.mode != Mode::Boolean;
                let (state, l) = lower_of(&pcl, first, envs, stack, scratch, stats, directions)?;
                known[k] = state;
                if state != Lower::Free {
                    pcls[k].lower = l;
                    order.push(std::cmp::Reverse(Queued(l, k)));
                }
                continue;
            }
            let (a, _, pair, frame) = self.pair(motions, &pcl)?;
            stats.pairs_after_temporal += 1;
            let r = if pcl.b == Part::Environment {
                let i = env_entry(envs, pcl.a)?;
                let env = (self.part_body(Part::Environment)?, self.env_boxes());
                let cols = (
                    self.part_collider(pcl.a)?,
                    self.part_collider(Part::Environment)?,
                );
                env_ca(
                    a,
                    cols,
                    &pair,
                    &mut envs[i],
                    env,
                    self.env_pieces(),
                    stack,
                    pcl.lower,
                    end,
                    &ca,
                    scratch,
                    &mut stats.hull_iterations,
                )?
            } else {
                let (ca_, cb_) = (self.part_collider(pcl.a)?, self.part_collider(pcl.b)?);
                let window = CastOptions::from(ca).with_window(pcl.lower, end);
                cast(ca_, cb_, &pair, &window, scratch)?
                    .contact
                    .map(ShapeContact::into_contact)
            };
            let Some(mut c) = r else { continue };
            stats.ca_iterations += u64::from(c.stats.iterations);
            if let Some((body, base)) = frame {
                // witnesses and normal from the common ancestor's frame to the world
                let w = pose_below(self.bodies[body].model(), &motions[body], base, None, c.toc);
                c.point_a = w.transform_point3(c.point_a);
                c.point_b = w.transform_point3(c.point_b);
                c.normal = w.transform_vector3(c.normal);
            }
            let pc = contact_of(&pcl, c);
            match opts.mode {
                Mode::All => out.contacts.push(pc),
                Mode::Boolean => {
                    out.contacts.push(pc);
                    break;
                }
                Mode::Toc => {
                    if pc.contact.toc < t_min || out.contacts.is_empty() {
                        t_min = t_min.min(pc.contact.toc);
                        out.contacts.clear();
                        out.contacts.push(pc);
                    }
                }
            }
        }
        if culling {
            // the pairs left: those not proven free (in the order of the pair list)
            let mut k = 0;
            pcls.retain(|_| {
                k += 1;
                known[k - 1] != Lower::Free
            });
        }
        out.contacts
            .sort_by(|x, y| x.contact.toc.total_cmp(&y.contact.toc));
        Ok(())
    }
}
