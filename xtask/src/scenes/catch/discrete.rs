//! The discrete edge check motion planners use today: collision tests (mesh overlap within
//! `ε`, `ccd_distance::mesh_overlap`) at poses spaced at most `step_deg` degrees per joint and
//! `step_len` of straight-line travel of any link's box corner apart along the edge.

use anyhow::Result;
use ccd_bvh::{MeshBvh, Rss};
use ccd_ca_articulated::ArticulatedBody;
use ccd_distance::mesh_overlap;
use ccd_kinematics::LinkId;
use glam::{DAffine3, DVec3};

/// A robot against a static environment, tested at single poses.
pub(crate) struct Discrete<'a> {
    body: &'a ArticulatedBody,
    env: &'a MeshBvh<Rss>,
    pairs: Vec<(LinkId, LinkId)>,
    links: Vec<LinkId>,
    eps: f64,
}

impl<'a> Discrete<'a> {
    /// The checker for `body` (its self-collision filter) in `env`, contact within `eps`.
    pub(crate) fn new(body: &'a ArticulatedBody, env: &'a MeshBvh<Rss>, eps: f64) -> Self {
        let links = (0..body.model().len() as u32)
            .map(LinkId)
            .filter(|&l| body.link_shape(l).is_some())
            .collect();
        Self {
            body,
            env,
            pairs: body.self_pairs().collect(),
            links,
            eps,
        }
    }

    fn world(&self, q: &[f64]) -> Result<Vec<DAffine3>> {
        Ok(self
            .body
            .model()
            .pose_from_joints(q)?
            .world_transforms(self.body.model())?)
    }

    /// Whether the robot at `q` touches the environment or itself (within `eps`).
    pub(crate) fn collides(&self, q: &[f64]) -> Result<bool> {
        let w = self.world(q)?;
        let mesh = |l: LinkId| self.body.link_shape(l).map(|s| s.body().mesh_bvh());
        for &l in &self.links {
            if let Some(m) = mesh(l)
                && mesh_overlap(m, &w[l.index()], self.env, &DAffine3::IDENTITY, self.eps)?
                    .is_some()
            {
                return Ok(true);
            }
        }
        for &(a, b) in &self.pairs {
            if let (Some(ma), Some(mb)) = (mesh(a), mesh(b))
                && mesh_overlap(ma, &w[a.index()], mb, &w[b.index()], self.eps)?.is_some()
            {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Checks the straight joint-space edge `q0 → q1` at evenly spaced poses (at most
    /// `step_deg` per joint and `step_len` of box-corner travel apart): whether some pose
    /// collides, and how many poses were tested.
    /// Poses a check at `step_deg` per joint and `step_len` of box-corner travel takes on
    /// the edge `q0 → q1` (at least 1 step, so 2 poses).
    fn steps(&self, q0: &[f64], q1: &[f64], step_deg: f64, step_len: f64) -> Result<usize> {
        let dq = q0
            .iter()
            .zip(q1)
            .map(|(a, b)| (b - a).abs())
            .fold(0.0, f64::max);
        let (w0, w1) = (self.world(q0)?, self.world(q1)?);
        let mut travel: f64 = 0.0;
        for &l in &self.links {
            if let Some(s) = self.body.link_shape(l) {
                for &c in s.obb_corners() {
                    let d: DVec3 =
                        w1[l.index()].transform_point3(c) - w0[l.index()].transform_point3(c);
                    travel = travel.max(d.length());
                }
            }
        }
        Ok(((dq / step_deg.to_radians())
            .ceil()
            .max((travel / step_len).ceil()) as usize)
            .max(1))
    }

    /// The first of the evenly spaced poses of the edge at which the robot collides, as a
    /// time in `[0, 1]`, or `None`; and the number of poses checked.
    fn scan(
        &self,
        q0: &[f64],
        q1: &[f64],
        step_deg: f64,
        step_len: f64,
    ) -> Result<(Option<f64>, usize)> {
        let n = self.steps(q0, q1, step_deg, step_len)?;
        let mut q = q0.to_vec();
        for i in 0..=n {
            let t = i as f64 / n as f64;
            for ((x, a), b) in q.iter_mut().zip(q0).zip(q1) {
                *x = a + t * (b - a);
            }
            if self.collides(&q)? {
                return Ok((Some(t), i + 1));
            }
        }
        Ok((None, n + 1))
    }

    /// Whether the edge collides at one of its evenly spaced poses, and how many poses were
    /// checked.
    pub(crate) fn edge(
        &self,
        q0: &[f64],
        q1: &[f64],
        step_deg: f64,
        step_len: f64,
    ) -> Result<(bool, usize)> {
        let (hit, k) = self.scan(q0, q1, step_deg, step_len)?;
        Ok((hit.is_some(), k))
    }

    /// The time of the first colliding pose of the edge, or `None` (a dense reference).
    pub(crate) fn first_hit(
        &self,
        q0: &[f64],
        q1: &[f64],
        step_deg: f64,
        step_len: f64,
    ) -> Result<Option<f64>> {
        Ok(self.scan(q0, q1, step_deg, step_len)?.0)
    }
}
