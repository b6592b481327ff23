//! The resting-contact probe of [`ArticulatedScene::query_with`]: steps that start in contact are
//! answered before any swept box is built.
//!
//! In [`Mode::Toc`] with temporal culling, a contact at `t = 0` ends the narrow phase at once
//! (every later pair could only tie), and such a contact can come only from the pairs whose
//! lower bound is 0: in the narrow phase they run first, in the order of the pair list, each
//! with its hull CA's first iteration and, when the hulls touch at `t = 0`, its mesh CA from
//! `t = 0`. The probe runs the same calls on the same pairs in the same order, without
//! spatial culling, and skips only pairs that cannot touch at `t = 0`: two links whose
//! bounding boxes are more than `ε` apart at `t = 0` (interval arithmetic: the world boxes of
//! the OBBs grown by `ε/2`, then the second-level pieces, as in spatial culling), whose hulls
//! therefore cannot come within `ε` there. Its answer is the first pair whose mesh CA reports
//! a contact at `t = 0`, which is the narrow phase's answer:
//! - a pair spatial culling would drop stays more than `ε` apart over the whole step, so its
//!   mesh CA cannot report a contact at `t = 0` (rounding aside, see below); a pair that does
//!   report one is a pair the narrow phase runs;
//! - every pair before it either does not touch at `t = 0` by its hulls (its bound is not 0:
//!   it runs after the contact at `t = 0` ends the loop, or never) or its mesh CA found it
//!   free (it changes nothing).
//!
//! The probe gives up (and the full query runs, from scratch) on anything else: a mesh CA
//! that reports a contact after `t = 0`, stops at the iteration cap or fails (it would move
//! the running minimum, or the full query might never run that pair); a link whose box at
//! `t = 0`, grown by `ε`, meets the environment (its environment pair might touch at `t = 0`
//! and runs first when its first window meets the environment); a scene with rigid bodies;
//! any error. An environment pair far from the environment at `t = 0` whose first window
//! still meets it runs in the narrow phase's first round too: should its mesh CA report a
//! contact after `t = 0` there, the later pairs of that round search a shorter window, and
//! which of several pairs touching at `t = 0` is reported could then differ (the answer's
//! time, 0, cannot). The same holds for a pair within rounding (1e-9 relative) of `ε` at
//! `t = 0`. Neither happened on the six CATCH scenes (`catch-step --list` identical).
//!
//! The counters of a probed step: `pairs_before` as always, `pairs_after_spatial` the pairs
//! the probe's box test kept among those it examined (the rest were never needed),
//! `pairs_after_temporal` the pairs on which it ran mesh CA.

use ccd_ca_rigid::{CaOptions, CastOptions, ShapeContact, Status, cast};
use ccd_geometry::Aabb;
use glam::{DAffine3, DMat3, DVec3};

use super::env_meets_box;
use super::{
    ArticulatedScene, ArticulatedStats, ArticulatedWorkspace, EnvSweep, Mode, Part, Pcl,
    QueryOptions, QueryResult, WINDOWS,
};
use crate::body::Piece;
use crate::bound::pose_below;

/// A link's OBB in world coordinates at `t = 0` (the probe's tests).
#[derive(Clone, Copy, Debug)]
pub(super) struct WorldObb {
    part: Part,
    centre: DVec3,
    /// The box's axes (columns).
    axes: DMat3,
    half: DVec3,
    /// A rounding allowance for the box's coordinates (a relative 1e-9 of their reach).
    slack: f64,
    /// The world box grown by `ε/2` ([`WorldObb::aabb`]), for the pair loop.
    grown: Aabb,
}

impl WorldObb {
    fn new(part: Part, w: &DAffine3, obb: &Piece, eps: f64) -> Self {
        let centre = w.transform_point3(obb.centre);
        let axes = w.matrix3 * obb.axes;
        let half = obb.half + DVec3::splat(obb.radius);
        let reach = centre.abs().max_element() + half.max_element();
        let mut o = Self {
            part,
            centre,
            axes,
            half,
            slack: 1e-9 * reach,
            grown: Aabb::EMPTY,
        };
        o.grown = o.aabb(0.5 * eps);
        o
    }

    /// The world box of the OBB grown by `by` and the rounding allowance.
    fn aabb(&self, by: f64) -> Aabb {
        let e = self.axes.abs() * self.half + DVec3::splat(by * (1.0 + 1e-9) + self.slack);
        Aabb {
            min: self.centre - e,
            max: self.centre + e,
        }
    }

    /// The world box of the OBB grown by `by` less the rounding allowance (inside the true
    /// box grown by `by`).
    fn aabb_within(&self, by: f64) -> Aabb {
        let e = self.axes.abs() * self.half + DVec3::splat(by * (1.0 - 1e-9) - self.slack);
        let e = e.max(DVec3::ZERO);
        Aabb {
            min: self.centre - e,
            max: self.centre + e,
        }
    }

    /// Whether the two boxes are more than `eps` apart along one of the 15 separating axes
    /// of two boxes (with the rounding allowances of both).
    fn apart(&self, other: &Self, eps: f64) -> bool {
        let d = other.centre - self.centre;
        let margin = eps * (1.0 + 1e-9) + self.slack + other.slack;
        let reach = |x: &Self, n: DVec3| (x.axes.transpose() * n).abs().dot(x.half);
        let clears = |n: DVec3| {
            let len = n.length();
            len > 1e-6 && d.dot(n).abs() - reach(self, n) - reach(other, n) > margin * len
        };
        (0..3).any(|k| clears(self.axes.col(k)) || clears(other.axes.col(k)))
            || (0..3).any(|k| (0..3).any(|l| clears(self.axes.col(k).cross(other.axes.col(l)))))
    }
}

/// What the probe found.
enum Probe {
    /// A contact at `t = 0`: the query's answer (in `out`).
    Answered,
    /// Nothing certain: the full query must run.
    GiveUp,
}

impl ArticulatedScene {
    /// The resting-contact probe (see the module docs): true when it answered the query
    /// (`out` holds the contact at `t = 0` and the counters), false when the full query
    /// must run (`out.stats` reset).
    pub(crate) fn resting_contact(
        &self,
        ws: &mut ArticulatedWorkspace,
        opts: &QueryOptions,
        out: &mut QueryResult,
    ) -> bool {
        if !opts.resting_probe
            || opts.mode != Mode::Toc
            || !opts.temporal_culling
            || !self.rigid.is_empty()
        {
            return false;
        }
        match self.probe(ws, opts, out) {
            Probe::Answered => true,
            Probe::GiveUp => {
                out.contacts.clear();
                out.stats = ArticulatedStats::default();
                false
            }
        }
    }

    fn probe(
        &self,
        ws: &mut ArticulatedWorkspace,
        opts: &QueryOptions,
        out: &mut QueryResult,
    ) -> Probe {
        // world poses at t = 0 and the OBBs there, in the order of the pair loop
        ws.rest_obbs.clear();
        for (b, (body, motion)) in self.bodies.iter().zip(&ws.motions).enumerate() {
            let links = body.model().links();
            if motion.relatives().len() != links.len() {
                return Probe::GiveUp;
            }
            ws.rest_world.clear();
            for (i, link) in links.iter().enumerate() {
                let local = motion.relatives()[i].pose_at(0.0);
                let w = match link.parent {
                    Some(p) if p.index() < i => ws.rest_world[p.index()] * local,
                    Some(_) => return Probe::GiveUp,
                    None => local,
                };
                ws.rest_world.push(w);
            }
            for (id, shape) in body.shapes() {
                let Some(obb) = shape.pieces().first() else {
                    return Probe::GiveUp;
                };
                let w = ws.rest_world[id.index()];
                ws.rest_obbs.push(WorldObb::new(
                    Part::Link { body: b, link: id },
                    &w,
                    obb,
                    opts.tolerance,
                ));
            }
        }
        self.probe_pairs(ws, opts, out)
    }

    /// The pair loop of the probe over the boxes of `ws.rest_obbs` (see
    /// [`ArticulatedScene::resting_contact`]).
    fn probe_pairs(
        &self,
        ws: &mut ArticulatedWorkspace,
        opts: &QueryOptions,
        out: &mut QueryResult,
    ) -> Probe {
        let eps = opts.tolerance;
        let ca = CaOptions::default()
            .with_tolerance(eps)
            .with_max_iterations(opts.max_iterations);
        let n = ws.rest_obbs.len();
        let mut stats = ArticulatedStats::default();
        let mut answer = None;
        for i in 0..n {
            let oa = ws.rest_obbs[i];
            for j in i + 1..n {
                let ob = &ws.rest_obbs[j];
                if !self.considered(opts, oa.part, ob.part) {
                    continue;
                }
                stats.pairs_before += 1;
                if answer.is_some() {
                    continue;
                }
                if !oa.grown.overlaps(&ob.grown) || oa.apart(ob, eps) {
                    continue;
                }
                stats.pairs_after_spatial += 1;
                let pcl = Pcl {
                    a: oa.part,
                    b: ob.part,
                    lower: 0.0,
                };
                match self.probe_pair(ws, &pcl, &ca, &mut stats) {
                    Some(Some(c)) => answer = Some(c),
                    Some(None) => {}
                    None => return Probe::GiveUp,
                }
            }
            let Some(env) = self.environment() else {
                continue;
            };
            stats.pairs_before += 1;
            if answer.is_some() {
                continue;
            }
            // a link more than ε from the environment at t = 0 (by its box) cannot touch it
            // there; one whose box grown by ε/2 (less the rounding allowance) meets an
            // environment triangle has its pair kept by spatial culling with the first
            // window meeting the environment (every swept box the query builds holds that
            // box), so the narrow phase runs it in its first round: run it here the same
            // way. In between, give up.
            if !env_meets_box(env, self.env_boxes(), &oa.aabb(eps), &mut ws.stack) {
                continue;
            }
            if !env_meets_box(
                env,
                self.env_boxes(),
                &oa.aabb_within(0.5 * eps),
                &mut ws.stack,
            ) {
                return Probe::GiveUp;
            }
            stats.pairs_after_spatial += 1;
            let pcl = Pcl {
                a: oa.part,
                b: Part::Environment,
                lower: 0.0,
            };
            match self.probe_env_pair(ws, &pcl, &ca, eps, &mut stats) {
                Some(Some(c)) => answer = Some(c),
                Some(None) => {}
                None => return Probe::GiveUp,
            }
        }
        match answer {
            Some(c) => {
                out.contacts.push(c);
                out.stats = stats;
                ws.pcls.clear();
                ws.directions.clear();
                Probe::Answered
            }
            None => Probe::GiveUp,
        }
    }

    /// A link–environment pair of the probe, as the narrow phase runs it from `t = 0`
    /// (windowed mesh CA, [`env_ca`], over the sweep the query would build): its contact
    /// when at `t = 0`, `Some(None)` when free, `None` (give up) otherwise.
    fn probe_env_pair(
        &self,
        ws: &mut ArticulatedWorkspace,
        pcl: &Pcl,
        ca: &CaOptions,
        eps: f64,
        stats: &mut ArticulatedStats,
    ) -> Option<Option<super::PartPairContact>> {
        let (_, _, pair, _) = self.pair(&ws.motions, pcl).ok()?;
        let env = (self.environment()?, self.env_boxes());
        let cols = (
            self.part_collider(pcl.a).ok()?,
            self.part_collider(Part::Environment).ok()?,
        );
        let sweep = self.env_sweep(&ws.motions, &[], pcl.a, eps).ok()?;
        let mut sweep = EnvSweep {
            part: pcl.a,
            sweep,
            windows: [None; WINDOWS],
        };
        // the narrow phase's windowed mesh CA from t = 0 ([`env_ca`]), each run of windows
        // whose boxes meet the environment by its first evaluation alone: the first run's
        // contact at t = 0 is the answer, a later run or an undecided one gives up
        stats.pairs_after_temporal += 1;
        let mut k = 0;
        while k < WINDOWS {
            let Some(mut region) = sweep.window(k, env, &mut ws.stack) else {
                if k == 0 {
                    return None;
                }
                k += 1;
                continue;
            };
            let mut m = k + 1;
            while m < WINDOWS {
                match sweep.window(m, env, &mut ws.stack) {
                    Some(bx) => {
                        region = region.merge(bx);
                        m += 1;
                    }
                    None => break,
                }
            }
            let (from, to) = (
                k as f64 / WINDOWS as f64,
                (m as f64 / WINDOWS as f64).min(1.0),
            );
            let first = CastOptions::from(*ca)
                .with_window(from, to)
                .with_region(region)
                .with_first_step_only(true);
            let r = cast(cols.0, cols.1, &pair, &first, &mut ws.scratch)
                .ok()?
                .contact
                .map(ShapeContact::into_contact);
            match r {
                None => k = m + 1,
                Some(c) if k == 0 && c.toc == 0.0 && c.status != Status::OutOfIterations => {
                    stats.ca_iterations += u64::from(c.stats.iterations);
                    return Some(Some(super::PartPairContact {
                        a: pcl.a,
                        b: pcl.b,
                        contact: c,
                    }));
                }
                Some(_) => return None,
            }
        }
        Some(None)
    }

    /// One pair of the probe, as the narrow phase's first round runs it: hull CA's first
    /// iteration (or mesh CA's without hulls); when that touches at `t = 0`, mesh CA from
    /// `t = 0`. `Some(Some(contact))`: a contact at `t = 0`; `Some(None)`: the pair cannot
    /// change the round's outcome (its bound is not 0, or its mesh CA proved it free);
    /// `None`: give up.
    fn probe_pair(
        &self,
        ws: &mut ArticulatedWorkspace,
        pcl: &Pcl,
        ca: &CaOptions,
        stats: &mut ArticulatedStats,
    ) -> Option<Option<super::PartPairContact>> {
        let (a, b, pair, frame) = self.pair(&ws.motions, pcl).ok()?;
        let cols = (
            self.part_collider(pcl.a).ok()?,
            self.part_collider(pcl.b).ok()?,
        );
        let first = CastOptions::from(*ca).with_first_step_only(true);
        let lower = if a.hull().is_some() && b.hull().is_some() {
            let hulls = first.with_hulls_only(true);
            let r = cast(cols.0, cols.1, &pair, &hulls, &mut ws.scratch).ok()?;
            match r.contact {
                Some(c) if c.status == Status::OutOfIterations => return Some(None),
                Some(c) => {
                    stats.hull_iterations += u64::from(c.stats.iterations);
                    c.toc
                }
                None => return Some(None),
            }
        } else {
            let r = cast(cols.0, cols.1, &pair, &first, &mut ws.scratch)
                .ok()?
                .contact;
            stats.ca_iterations += 1;
            match r {
                Some(c) if c.status == Status::OutOfIterations => c.toc,
                Some(_) => 0.0,
                None => return Some(None),
            }
        };
        if lower != 0.0 {
            return Some(None);
        }
        stats.pairs_after_temporal += 1;
        // (the first evaluation of the narrow phase's mesh CA from t = 0: a contact there is
        // that CA's answer; an undecided pair would search on and might move the minimum)
        let r = cast(cols.0, cols.1, &pair, &first, &mut ws.scratch)
            .ok()?
            .contact
            .map(ShapeContact::into_contact);
        let Some(mut c) = r else {
            return Some(None);
        };
        if c.toc != 0.0 || c.status == Status::OutOfIterations {
            return None;
        }
        stats.ca_iterations += u64::from(c.stats.iterations);
        if let Some((body, base)) = frame {
            // witnesses and normal from the common ancestor's frame to the world
            let w = pose_below(
                self.bodies[body].model(),
                &ws.motions[body],
                base,
                None,
                c.toc,
            );
            c.point_a = w.transform_point3(c.point_a);
            c.point_b = w.transform_point3(c.point_b);
            c.normal = w.transform_vector3(c.normal);
        }
        Some(Some(super::PartPairContact {
            a: pcl.a,
            b: pcl.b,
            contact: c,
        }))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use ccd_bvh::{BvhOptions, MeshBvh, Rss};
    use ccd_kinematics::{ArticulatedModel, Joint, LinkSpec};
    use glam::{DAffine3, DQuat};

    use super::*;
    use crate::ArticulatedBody;
    use crate::scene::{BodyStep, body_motion};
    use ccd_test_support::XorShift64;

    /// The probe's box tests never drop two boxes that come within `ε`: boxes whose grown
    /// world boxes are apart, or that a separating axis clears, keep every sampled pair
    /// of their points (corners and a grid on every face) more than `ε` apart.
    #[test]
    fn box_tests_never_drop_boxes_within_eps() {
        let mut s = XorShift64::new(0x2545_f491_4f6c_dd1d);
        let mut r = |lo: f64, hi: f64| s.range(lo, hi);
        let eps = 0.05;
        let (mut apart, mut kept) = (0, 0);
        for _ in 0..4000 {
            let obb = |r: &mut dyn FnMut(f64, f64) -> f64| {
                let q =
                    DQuat::from_scaled_axis(DVec3::new(r(-3.0, 3.0), r(-3.0, 3.0), r(-3.0, 3.0)));
                let w = DAffine3::from_rotation_translation(
                    q,
                    DVec3::new(r(-0.6, 0.6), r(-0.6, 0.6), r(-0.6, 0.6)),
                );
                let piece = Piece {
                    axes: glam::DMat3::IDENTITY,
                    centre: DVec3::new(r(-0.1, 0.1), r(-0.1, 0.1), r(-0.1, 0.1)),
                    half: DVec3::new(r(0.01, 0.4), r(0.01, 0.4), r(0.01, 0.4)),
                    radius: 0.0,
                };
                (WorldObb::new(Part::Environment, &w, &piece, eps), w, piece)
            };
            let (a, wa, pa) = obb(&mut r);
            let (b, wb, pb) = obb(&mut r);
            let dropped = !a.aabb(0.5 * eps).overlaps(&b.aabb(0.5 * eps)) || a.apart(&b, eps);
            if !dropped {
                kept += 1;
                continue;
            }
            apart += 1;
            let points = |w: &DAffine3, p: &Piece| {
                let mut out = Vec::new();
                let n = 6;
                for face in 0..6 {
                    let (axis, sign) = (face / 2, if face % 2 == 0 { -1.0 } else { 1.0 });
                    for i in 0..=n {
                        for j in 0..=n {
                            let (u, v) = (
                                2.0 * f64::from(i) / f64::from(n) - 1.0,
                                2.0 * f64::from(j) / f64::from(n) - 1.0,
                            );
                            let mut c = [u, v, u];
                            c[axis] = sign;
                            c[(axis + 1) % 3] = u;
                            c[(axis + 2) % 3] = v;
                            out.push(w.transform_point3(p.centre + DVec3::from_array(c) * p.half));
                        }
                    }
                }
                out
            };
            let (qa, qb) = (points(&wa, &pa), points(&wb, &pb));
            for x in &qa {
                for y in &qb {
                    assert!(
                        x.distance(*y) > eps,
                        "dropped boxes with points {x} {y} within ε"
                    );
                }
            }
        }
        assert!(apart > 500 && kept > 500, "{apart} dropped, {kept} kept");
    }

    /// A chain of three box links over a floor slab, started in contact (self and
    /// environment contacts at `t = 0`) and apart: the probe answers the steps that start
    /// in contact, and every answer is the full query's bit for bit.
    #[test]
    fn the_probe_answers_as_the_full_query() {
        let spec = |name: &str, parent: Option<&str>, x: f64| LinkSpec {
            name: name.into(),
            parent: parent.map(str::to_string),
            joint: Joint::Revolute {
                axis: DVec3::Z,
                limits: None,
            },
            offset: DAffine3::from_translation(DVec3::new(x, 0.0, 0.0)),
        };
        let model = ArticulatedModel::new(vec![
            spec("a", None, 0.0),
            spec("b", Some("a"), 0.5),
            spec("c", Some("b"), 0.5),
        ])
        .expect("chain");
        let link = || {
            Some(
                ccd_geometry::TriMesh::cuboid(
                    DVec3::new(0.0, -0.05, -0.05),
                    DVec3::new(0.5, 0.05, 0.05),
                )
                .expect("box mesh"),
            )
        };
        let body = ArticulatedBody::from_meshes(model, vec![link(), link(), link()]).expect("body");
        let mut scene = ArticulatedScene::new();
        scene.add_articulated(body);
        let floor = ccd_geometry::TriMesh::cuboid(
            DVec3::new(-2.0, -2.0, -0.5),
            DVec3::new(2.0, 2.0, -0.05),
        )
        .expect("box mesh");
        scene.set_environment(Arc::new(
            MeshBvh::<Rss>::new(floor, &BvhOptions::default()).expect("floor"),
        ));
        let mut s = XorShift64::new(0x1234_5678_9abc_def1);
        let opts = QueryOptions::default();
        let (mut ws, mut probed, mut full) = (
            ArticulatedWorkspace::default(),
            QueryResult::default(),
            QueryResult::default(),
        );
        let (mut answered, mut touching) = (0, 0);
        for _ in 0..400 {
            let mut r = |lo: f64, hi: f64| s.range(lo, hi);
            // joint 2 folds link c back onto link a (a self contact at about ±2.9 rad)
            let q0 = [r(-3.2, 3.2), r(-3.2, 3.2), r(-3.2, 3.2)];
            let q1 = [
                q0[0] + r(-0.8, 0.8),
                q0[1] + r(-0.8, 0.8),
                q0[2] + r(-0.8, 0.8),
            ];
            let steps = [BodyStep::Joints { q0: &q0, q1: &q1 }];
            scene
                .query_with(&steps, &opts, &mut ws, &mut probed)
                .expect("query");
            ws.motions.clear();
            ws.motions
                .push(body_motion(0, &scene.bodies()[0], &steps[0]).expect("motion"));
            full.contacts.clear();
            full.stats = ArticulatedStats::default();
            scene
                .query_motions(&mut ws, &opts, &mut full)
                .expect("full query");
            let key = |q: &QueryResult| {
                q.contacts
                    .iter()
                    .map(|c| {
                        (
                            c.a,
                            c.b,
                            c.contact.toc.to_bits(),
                            c.contact.distance.to_bits(),
                            c.contact.status,
                            c.contact.point_a.to_array().map(f64::to_bits),
                        )
                    })
                    .collect::<Vec<_>>()
            };
            assert_eq!(key(&probed), key(&full), "{q0:?} → {q1:?}");
            touching += usize::from(full.first().is_some_and(|c| c.contact.toc == 0.0));
            // (the probe answered when it ran mesh CA on fewer pairs than spatial culling kept)
            ws.motions.clear();
            ws.motions
                .push(body_motion(0, &scene.bodies()[0], &steps[0]).expect("motion"));
            let mut out = QueryResult::default();
            answered += usize::from(scene.resting_contact(&mut ws, &opts, &mut out));
        }
        assert!(touching > 20, "only {touching} steps start in contact");
        assert!(
            answered > 10,
            "the probe answered only {answered} of {touching}"
        );
    }
}
