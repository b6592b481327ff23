//! Steps 2–3 of the adaptive pipeline on [`AdaptiveScene`]: the top-down culling of the
//! bodies' assembly trees against each other, the rigid bodies and the environment's k-DOP
//! hierarchy, the refinement of the surviving pairs with the full query's Taylor-model
//! boxes, and the separation certificates that drop pairs proven apart.

use std::ops::ControlFlow;
use std::sync::Arc;

use ccd_bvh::{BoundingVolume, BvhOptions, Kdop18, MeshBvh};
use ccd_ca_rigid::details::convex_apart_along;
use ccd_ca_rigid::{CaOptions, PairMotion};
use ccd_geometry::Aabb;
use ccd_kinematics::{ArticulatedMotion, LinkId};
use ccd_taylor::{Interval, TaylorModel, Transform};
use glam::DAffine3;

use super::state::{self, BodyState, between_bodies};
use super::{AdaptiveScene, LinkSweep};
use crate::scene::{Pcl, env_overlaps};
use crate::{
    ArticulatedError, ArticulatedScene, ArticulatedStats, ArticulatedWorkspace, Part, QueryOptions,
};

impl AdaptiveScene {
    /// A k-DOP hierarchy of the environment's triangles for the node-box tests (large node
    /// boxes against the environment's RSS tree cost many rectangle distances), rebuilt when
    /// the environment changes.
    pub(super) fn environment_tree(
        &mut self,
    ) -> Result<Option<Arc<MeshBvh<Kdop18>>>, ArticulatedError> {
        let Some(env) = self.scene.environment() else {
            self.env_tree = None;
            return Ok(None);
        };
        let mesh = env.mesh_bvh().mesh();
        let key = (
            std::ptr::from_ref(env.mesh_bvh()) as usize,
            mesh.triangle_count(),
            mesh.vertices()
                .first()
                .map(|v| v.to_array().map(f64::to_bits)),
        );
        if let Some((k, tree)) = &self.env_tree
            && *k == key
        {
            return Ok(Some(Arc::clone(tree)));
        }
        let tree = Arc::new(
            MeshBvh::<Kdop18>::new(mesh.clone(), &BvhOptions::default()).map_err(|e| {
                ArticulatedError::LinkGeometry {
                    link: "environment".into(),
                    reason: e.to_string(),
                }
            })?,
        );
        self.env_tree = Some((key, Arc::clone(&tree)));
        Ok(Some(tree))
    }

    /// Drops the candidate pairs that one direction proves free over the step: the two
    /// links' convex hulls stay more than `ε` apart along it over the step, counting how far
    /// their points can move along it ([`convex_apart_along`]: two support points and the
    /// speed bounds, where the hull CA needs a GJK distance). The direction is the hull
    /// distance's with which the narrow phase proved the pair free at an earlier step
    /// (`separations`), else the one between the hulls' centroids at the step's start
    /// (wooden men, 3 of 29 joints active, 20 steps: 27 pairs left for the narrow phase
    /// with cached directions alone, 11 with the centroid one too). Any direction gives a
    /// sound test; a dropped pair stays more than `ε` apart, as one whose boxes are apart,
    /// so the answer is unchanged.
    pub(super) fn certify(
        &mut self,
        ws: &mut ArticulatedWorkspace,
        opts: &QueryOptions,
    ) -> Result<(), ArticulatedError> {
        let ca = CaOptions::default()
            .with_tolerance(opts.tolerance)
            .with_max_iterations(opts.max_iterations);
        let mut kept = 0;
        for k in 0..ws.pcls.len() {
            let p = ws.pcls[k];
            let apart = if p.b == Part::Environment {
                false
            } else {
                let (a, b, pair, _) = self.scene.pair(&ws.motions, &p)?;
                match (a.hull(), b.hull()) {
                    (Some(ha), Some(hb)) => {
                        let n = self
                            .separations
                            .get(&(p.a, p.b))
                            .copied()
                            .unwrap_or_else(|| {
                                let (pa, pb) = pair.poses(0.0);
                                pb.transform_point3(hb.centroid())
                                    - pa.transform_point3(ha.centroid())
                            });
                        convex_apart_along(a, b, &pair, n, 0.0, 1.0, &ca)?
                    }
                    _ => false,
                }
            };
            if !apart {
                ws.pcls[kept] = p;
                kept += 1;
            }
        }
        self.certified += (ws.pcls.len() - kept) as u64;
        ws.pcls.truncate(kept);
        Ok(())
    }

    /// Drops the candidate pairs whose Taylor-model swept boxes (those of the full query)
    /// are apart, computing the world enclosures of the links in the pairs only (and of
    /// their ancestors), once per step. The pair order is kept.
    pub(super) fn refine(
        &mut self,
        ws: &mut ArticulatedWorkspace,
        opts: &QueryOptions,
        env_tree: Option<&MeshBvh<Kdop18>>,
        only_env: bool,
    ) -> Result<(), ArticulatedError> {
        let bodies = self.scene.bodies();
        let margin = 0.5 * opts.tolerance * (1.0 + 1e-6);
        self.taylor.resize_with(bodies.len(), Vec::new);
        for (t, b) in self.taylor.iter_mut().zip(bodies) {
            t.clear();
            t.resize(b.model().len(), None);
        }
        let rigid: Vec<Aabb> = self
            .scene
            .rigid
            .iter()
            .map(|r| {
                let tr: Transform<TaylorModel> =
                    r.motion.enclosure::<TaylorModel>(Interval::UNIT)?;
                Ok(tr.aabb_of_corners(&r.corners).inflate(margin))
            })
            .collect::<Result<_, ArticulatedError>>()?;
        let mut kept = 0;
        for k in 0..ws.pcls.len() {
            let p = ws.pcls[k];
            if only_env && p.b != Part::Environment {
                ws.pcls[kept] = p;
                kept += 1;
                continue;
            }
            let mut part_box = |part: Part| -> Result<Option<Aabb>, ArticulatedError> {
                match part {
                    Part::Link { body, link } => {
                        let (Some(b), Some(m), Some(cache)) = (
                            bodies.get(body),
                            ws.motions.get(body),
                            self.taylor.get_mut(body),
                        ) else {
                            return Err(ArticulatedError::UnknownPart(part));
                        };
                        link_box(b, m, cache, &mut self.chain, link, margin)
                            .map_err(|source| ArticulatedError::Motion { body, source })
                    }
                    Part::Rigid(i) => rigid
                        .get(i)
                        .copied()
                        .map(Some)
                        .ok_or(ArticulatedError::UnknownPart(part)),
                    Part::Environment => Ok(None),
                }
            };
            let (ba, bb) = (part_box(p.a)?, part_box(p.b)?);
            // a part without a box (the environment, a link without geometry) keeps the pair
            // unless the other side's box meets no environment triangle
            let env = p.a == Part::Environment || p.b == Part::Environment;
            let keep = match (ba, bb) {
                (Some(x), Some(y)) => x.overlaps(&y),
                (Some(x), None) | (None, Some(x)) if env => {
                    env_tree.is_none_or(|tree| env_touches(tree, &x, &mut ws.bvh))
                }
                _ => true,
            };
            if keep {
                ws.pcls[kept] = p;
                kept += 1;
            }
        }
        ws.pcls.truncate(kept);
        Ok(())
    }

    /// Step 2: the potentially colliding pairs in `ws.pcls` (the states advanced to the
    /// step's motions), in the full query's order; false (and an incomplete list) when the
    /// culling gave up after finding more than `budget` pairs.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn cull<E: state::NodeArith>(
        scene: &ArticulatedScene,
        states: &mut [BodyState<E>],
        node_stack: &mut Vec<u32>,
        pair_stack: &mut Vec<(u32, u32)>,
        rigid_boxes: &mut Vec<Aabb>,
        env_tree: Option<&MeshBvh<Kdop18>>,
        ws: &mut ArticulatedWorkspace,
        opts: &QueryOptions,
        budget: usize,
        stats: &mut ArticulatedStats,
    ) -> Result<bool, ArticulatedError> {
        let bodies = scene.bodies();
        let margin = 0.5 * opts.tolerance * (1.0 + 1e-6);
        rigid_boxes.clear();
        for r in &scene.rigid {
            let tr: Transform<E> = E::enclose(&r.motion)?;
            rigid_boxes.push(E::corners_box(&tr, &r.corners).inflate(margin));
        }
        let pcls = &mut ws.pcls;
        pcls.clear();
        for x in 0..states.len() {
            let (head, tail) = states.split_at_mut(x + 1);
            let sx = &mut head[x];
            let body = &bodies[x];
            if opts.self_collision {
                sx.self_pairs(body, &ws.motions[x], pair_stack, budget, pcls)?;
            }
            for (y, sy) in tail.iter_mut().enumerate() {
                if pcls.len() > budget {
                    return Ok(false);
                }
                between_bodies(sx, body, sy, &bodies[x + 1 + y], pair_stack, budget, pcls)?;
            }
            for (i, rb) in rigid_boxes.iter().enumerate() {
                if pcls.len() > budget {
                    return Ok(false);
                }
                let mut meets = |b: &Aabb| b.overlaps(rb);
                sx.against(body, Part::Rigid(i), &mut meets, node_stack, budget, pcls)?;
            }
            if let Some(tree) = env_tree {
                let bvh = &mut ws.bvh;
                sx.against(
                    body,
                    Part::Environment,
                    &mut |b| env_touches(tree, b, bvh),
                    node_stack,
                    budget,
                    pcls,
                )?;
            }
            if pcls.len() > budget {
                return Ok(false);
            }
        }
        for (i, bi) in rigid_boxes.iter().enumerate() {
            for (j, bj) in rigid_boxes.iter().enumerate().skip(i + 1) {
                if bi.overlaps(bj) {
                    pcls.push(Pcl {
                        a: Part::Rigid(i),
                        b: Part::Rigid(j),
                        lower: 0.0,
                    });
                }
            }
            if let Some(env) = scene.environment()
                && env_overlaps(env, bi, &mut ws.bvh)
            {
                pcls.push(Pcl {
                    a: Part::Rigid(i),
                    b: Part::Environment,
                    lower: 0.0,
                });
            }
        }
        if pcls.len() > budget {
            return Ok(false);
        }
        // the full query's order: lexicographic in (a, b), so that the narrow phase meets
        // the pairs both queries keep in the same order
        pcls.sort_by_key(|p| (p.a, p.b));
        stats.pairs_after_spatial = pcls.len() as u64;
        Ok(true)
    }
}

/// The Taylor-model swept box of `link` over the step (inflated by `margin`), from the
/// world enclosures of its chain composed from the root down as in the full query (CATCH
/// Eq. 1), memoised in `cache` (per link: enclosure and box). `None` (no box: the pair is
/// kept) for a link without geometry or outside the model.
fn link_box(
    body: &crate::ArticulatedBody,
    motion: &ArticulatedMotion,
    cache: &mut [Option<LinkSweep>],
    chain: &mut Vec<LinkId>,
    link: LinkId,
    margin: f64,
) -> Result<Option<Aabb>, ccd_kinematics::KinematicsError> {
    let links = body.model().links();
    if link.index() >= links.len() || link.index() >= cache.len() {
        return Ok(None);
    }
    // the link and its ancestors up to the first one already enclosed
    chain.clear();
    let mut cur = Some(link);
    while let Some(l) = cur {
        if cache[l.index()].is_some() {
            break;
        }
        chain.push(l);
        cur = links[l.index()].parent;
    }
    // from the top down: each parent is enclosed before its child
    while let Some(l) = chain.pop() {
        let rel = &motion.relatives()[l.index()];
        let world = match links[l.index()].parent {
            Some(p) => match &cache[p.index()] {
                Some((w, _)) => crate::scene::chain_step(w, rel)?,
                None => return Ok(None),
            },
            None => rel.enclosure::<TaylorModel>(Interval::UNIT)?,
        };
        let bx = body.link_shape(l).map_or(Aabb::EMPTY, |s| {
            world.aabb_of_corners(s.obb_corners()).inflate(margin)
        });
        cache[l.index()] = Some((world, bx));
    }
    Ok(body
        .link_shape(link)
        .and_then(|_| cache[link.index()].as_ref().map(|c| c.1)))
}

/// Whether some environment triangle's box overlaps `bx` (conservative: false only when
/// none can), on the k-DOP hierarchy.
fn env_touches(tree: &MeshBvh<Kdop18>, bx: &Aabb, ws: &mut ccd_bvh::Workspace) -> bool {
    let q = Kdop18::fit_points(&bx.corners());
    let mut found = false;
    tree.bvh().traverse(
        ws,
        |bv| bv.overlaps(&q, &DAffine3::IDENTITY),
        |p| {
            let t = tree.mesh().triangle(p as usize);
            if Aabb::from_points([t.a, t.b, t.c]).overlaps(bx) {
                found = true;
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        },
    );
    found
}
