//! The queries of a [`PlanningScene`]: joint vector checks, edges, paths and batches of
//! edges (CCD), and the static pose queries (`in_collision`, `clearance`), with the parts
//! of their answers named.

use std::sync::PoisonError;

use ccd_bvh::{MeshBvh, Rss};
use ccd_distance::{MeshDistanceOptions, MeshDistanceStatus, mesh_distance};
use ccd_geometry::Feature;
use glam::DAffine3;

use super::{Clearance, PathContact, PlanningContact, PlanningError, PlanningScene};
use crate::{ArticulatedError, BodyStep, Part, QueryOptions, QueryResult};

impl PlanningScene {
    /// The display name of a part.
    fn part_name(&self, p: Part, feature: Feature) -> String {
        match p {
            Part::Link { body, link } => self
                .names
                .get(body)
                .and_then(|n| n.get(link.index()))
                .cloned()
                .unwrap_or_else(|| format!("link {}", link.index())),
            Part::Rigid(i) => format!("rigid {i}"),
            Part::Environment => self.object_of(feature),
        }
    }

    /// The environment object holding a feature of the merged environment mesh.
    fn object_of(&self, feature: Feature) -> String {
        let k = match feature {
            Feature::Vertex(v) | Feature::Edge(v, _) => {
                self.ranges.partition_point(|&(first, _)| first <= v)
            }
            Feature::Face(t) => self.ranges.partition_point(|&(_, first)| first <= t),
        };
        k.checked_sub(1)
            .and_then(|k| self.objects.get(k))
            .map_or_else(|| "environment".into(), |o| o.name.clone())
    }

    /// Checks a joint vector's width and values as every query does, naming it `which`
    /// in the error (a binding checks its rows under its own argument names first).
    ///
    /// # Errors
    /// [`PlanningError::NoRobot`], [`PlanningError::JointCount`],
    /// [`PlanningError::InvalidJointValue`].
    ///
    /// # Example
    /// ```
    /// use ccd_ca_articulated::planning::{PlanningError, PlanningScene};
    /// assert_eq!(PlanningScene::new().validate(&[0.0], "q"), Err(PlanningError::NoRobot));
    /// ```
    pub fn validate(&self, q: &[f64], which: &str) -> Result<(), PlanningError> {
        self.check_q(q, &|| which.to_owned())
    }

    /// Checks a joint vector's width and values (`which` names it in errors).
    fn check_q(&self, q: &[f64], which: &dyn Fn() -> String) -> Result<(), PlanningError> {
        if self.robots.is_empty() {
            return Err(PlanningError::NoRobot);
        }
        let joints = self.robots.iter().flat_map(|r| r.joints.iter());
        if q.len() != self.dof() {
            return Err(PlanningError::JointCount {
                which: which(),
                expected: self.dof(),
                got: q.len(),
            });
        }
        for (index, (&value, (joint, lower, upper))) in q.iter().zip(joints).enumerate() {
            if !value.is_finite() || value < lower - 1e-9 || value > upper + 1e-9 {
                return Err(PlanningError::InvalidJointValue {
                    which: which(),
                    index,
                    joint: joint.clone(),
                    value,
                    lower: *lower,
                    upper: *upper,
                });
            }
        }
        Ok(())
    }

    /// Runs one query with a pooled workspace.
    fn run(
        &self,
        q0: &[f64],
        q1: &[f64],
        opts: &QueryOptions,
    ) -> Result<QueryResult, PlanningError> {
        let mut steps = Vec::with_capacity(self.robots.len());
        let mut at = 0;
        for r in &self.robots {
            let n = r.joints.len();
            steps.push(BodyStep::Joints {
                q0: &q0[at..at + n],
                q1: &q1[at..at + n],
            });
            at += n;
        }
        let mut ws = self
            .pool
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop()
            .unwrap_or_default();
        let mut out = QueryResult::default();
        let r = self.scene.query_with(&steps, opts, &mut ws, &mut out);
        self.pool
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(ws);
        r?;
        Ok(out)
    }

    fn named(&self, result: &QueryResult) -> Option<PlanningContact> {
        result.first().map(|c| PlanningContact {
            a: self.part_name(c.a, c.contact.feature_a),
            b: self.part_name(c.b, c.contact.feature_b),
            contact: c.contact,
        })
    }

    /// Checks the edge `q0 → q1` (every joint at constant velocity): `None` when it is
    /// collision-free, else the first contact ([`Mode::Toc`](crate::Mode::Toc)) or any
    /// certain one ([`Mode::Boolean`](crate::Mode::Boolean)) with its parts' names.
    ///
    /// # Errors
    /// [`PlanningError::NoRobot`], [`PlanningError::JointCount`],
    /// [`PlanningError::InvalidJointValue`] (NaN or outside the limits: not clamped),
    /// [`PlanningError::Articulated`] for invalid options.
    ///
    /// # Example
    /// See [`PlanningScene`].
    pub fn check_edge(
        &self,
        q0: &[f64],
        q1: &[f64],
        opts: &QueryOptions,
    ) -> Result<Option<PlanningContact>, PlanningError> {
        self.check_q(q0, &|| "q0".into())?;
        self.check_q(q1, &|| "q1".into())?;
        let result = self.run(q0, q1, opts)?;
        Ok(self.named(&result))
    }

    /// Checks a piecewise-linear joint path (`waypoints[i] → waypoints[i + 1]`, each a
    /// [`PlanningScene::check_edge`]) segment by segment: `None` when it is free, else the
    /// first segment in contact with its time of contact (the first one in
    /// [`Mode::Toc`](crate::Mode::Toc); with [`Mode::Boolean`](crate::Mode::Boolean) a
    /// time in contact of that segment).
    ///
    /// # Errors
    /// [`PlanningError::TooFewWaypoints`], and those of [`PlanningScene::check_edge`]
    /// naming the waypoint (`waypoints[i]`); every waypoint is checked before any segment.
    ///
    /// # Example
    /// See [`PlanningScene`].
    pub fn check_path<Q: AsRef<[f64]>>(
        &self,
        waypoints: &[Q],
        opts: &QueryOptions,
    ) -> Result<Option<PathContact>, PlanningError> {
        if waypoints.len() < 2 {
            return Err(PlanningError::TooFewWaypoints(waypoints.len()));
        }
        for (i, w) in waypoints.iter().enumerate() {
            self.check_q(w.as_ref(), &|| format!("waypoints[{i}]"))?;
        }
        for (segment, w) in waypoints.windows(2).enumerate() {
            let result = self.run(w[0].as_ref(), w[1].as_ref(), opts)?;
            if let Some(contact) = self.named(&result) {
                return Ok(Some(PathContact {
                    segment,
                    toc: contact.contact.toc,
                    contact,
                }));
            }
        }
        Ok(None)
    }

    /// A batch of independent edges `(q0, q1)`, each answered as by
    /// [`PlanningScene::check_edge`] (with feature `parallel` on all cores), in the order
    /// of `edges`; a bad edge gets its own error (naming `edges[i].q0` or `edges[i].q1`).
    ///
    /// # Example
    /// ```
    /// use ccd_ca_articulated::planning::{PlanningScene, ObjectShape};
    /// use ccd_ca_articulated::{ArticulatedBody, QueryOptions};
    /// use ccd_kinematics::{ArticulatedModel, Joint, LinkSpec};
    /// use ccd_geometry::{glam::{DAffine3, DVec3}, TriMesh};
    ///
    /// let model = ArticulatedModel::new(vec![LinkSpec { name: "bar".into(), parent: None, joint: Joint::Revolute { axis: DVec3::Z, limits: None }, offset: DAffine3::IDENTITY }])?;
    /// let bar = TriMesh::cuboid(DVec3::new(0.2, -0.05, -0.05), DVec3::new(2.0, 0.05, 0.05))?;
    /// let mut scene = PlanningScene::new();
    /// scene.add_robot("arm", ArticulatedBody::from_meshes(model, vec![Some(bar)])?)?;
    /// scene.add_object("post", ObjectShape::Sphere { radius: 0.1 }, DAffine3::from_translation(DVec3::new(0.0, 1.5, 0.0)))?;
    /// let edges = vec![(vec![0.0], vec![0.5]), (vec![0.0], vec![2.0]), (vec![0.0], vec![f64::NAN])];
    /// let answers = scene.check_edges(&edges, &QueryOptions::default());
    /// assert!(answers[0].as_ref().unwrap().is_none());
    /// assert_eq!(answers[1].as_ref().unwrap().as_ref().unwrap().b, "post");
    /// assert!(answers[2].is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn check_edges(
        &self,
        edges: &[(Vec<f64>, Vec<f64>)],
        opts: &QueryOptions,
    ) -> Vec<Result<Option<PlanningContact>, PlanningError>> {
        let one = |(i, (q0, q1)): (usize, &(Vec<f64>, Vec<f64>))| -> Result<Option<PlanningContact>, PlanningError> {
            self.check_q(q0, &|| format!("edges[{i}].q0"))?;
            self.check_q(q1, &|| format!("edges[{i}].q1"))?;
            let result = self.run(q0, q1, opts)?;
            Ok(self.named(&result))
        };
        #[cfg(feature = "parallel")]
        {
            use rayon::prelude::*;
            edges.par_iter().enumerate().map(one).collect()
        }
        #[cfg(not(feature = "parallel"))]
        {
            edges.iter().enumerate().map(one).collect()
        }
    }

    /// The world transforms of every body's links at `q`.
    fn worlds(&self, q: &[f64]) -> Result<Vec<Vec<DAffine3>>, PlanningError> {
        let mut out = Vec::with_capacity(self.robots.len());
        let mut at = 0;
        for (b, body) in self.scene.bodies().iter().enumerate() {
            let model = body.model();
            let n = model.dof();
            let pose = model
                .pose_from_joints(&q[at..at + n])
                .and_then(|p| p.world_transforms(model))
                .map_err(|source| ArticulatedError::Motion { body: b, source })?;
            out.push(pose);
            at += n;
        }
        Ok(out)
    }

    /// The closest pair at `q` among the pairs the queries test (self pairs after the
    /// filter and overrides, pairs of different robots, each link and attached object
    /// against the environment), each pair's search cut at the best distance so far;
    /// `stop_below`: stop at the first pair closer than it. `None` without pairs.
    fn closest(
        &self,
        q: &[f64],
        stop_below: Option<f64>,
    ) -> Result<Option<Clearance>, PlanningError> {
        self.check_q(q, &|| "q".into())?;
        let worlds = self.worlds(q)?;
        let bodies = self.scene.bodies();
        let mut parts = Vec::new();
        for (b, body) in bodies.iter().enumerate() {
            for (id, shape) in body.shapes() {
                parts.push((b, id, shape.body().mesh_bvh(), worlds[b][id.index()]));
            }
        }
        let env = self.scene.prepared_environment();
        let mut best: Option<Clearance> = None;
        let mut cut = f64::INFINITY;
        let mut opts = MeshDistanceOptions::default();
        opts.stop_below = stop_below.unwrap_or(0.0);
        let mut consider = |a: &MeshBvh<Rss>,
                            pa: &DAffine3,
                            b: &MeshBvh<Rss>,
                            pb: &DAffine3,
                            names: &dyn Fn(Feature) -> (String, String),
                            best: &mut Option<Clearance>|
         -> Result<bool, PlanningError> {
            let mut o = opts;
            // only distances below the best so far (or the threshold) matter
            o.upper_bound = stop_below.unwrap_or(cut);
            let r = mesh_distance(a, pa, b, pb, &o)?;
            if r.status == MeshDistanceStatus::AboveUpperBound {
                return Ok(false);
            }
            let d = r.closest.distance;
            if d < cut || best.is_none() {
                cut = cut.min(d);
                let (na, nb) = names(r.closest.feature_b);
                *best = Some(Clearance {
                    distance: d,
                    a: na,
                    b: nb,
                    point_a: r.closest.point_a,
                    point_b: r.closest.point_b,
                });
            }
            Ok(stop_below.is_some_and(|s| d <= s))
        };
        for (i, &(ba, la, ma, pa)) in parts.iter().enumerate() {
            for &(bb, lb, mb, pb) in &parts[i + 1..] {
                if ba == bb && !bodies[ba].is_self_pair(la, lb) {
                    continue;
                }
                let names = |_: Feature| {
                    (
                        self.names[ba][la.index()].clone(),
                        self.names[bb][lb.index()].clone(),
                    )
                };
                if consider(ma, &pa, mb, &pb, &names, &mut best)? {
                    return Ok(best);
                }
            }
            if let Some(env) = env {
                let names = |f: Feature| (self.names[ba][la.index()].clone(), self.object_of(f));
                if consider(
                    ma,
                    &pa,
                    env.mesh().as_ref(),
                    &DAffine3::IDENTITY,
                    &names,
                    &mut best,
                )? {
                    return Ok(best);
                }
            }
        }
        Ok(best)
    }

    /// Whether the pose `q` is in collision: some pair the queries test comes within the
    /// tolerance `opts.tolerance` (the contact distance of [`PlanningScene::check_edge`]).
    ///
    /// # Errors
    /// [`PlanningError::NoRobot`], [`PlanningError::JointCount`],
    /// [`PlanningError::InvalidJointValue`]; a tolerance that is negative or not finite is
    /// [`PlanningError::Articulated`] ([`ArticulatedError::InvalidOptions`]).
    ///
    /// # Example
    /// See [`PlanningScene`].
    pub fn in_collision(&self, q: &[f64], opts: &QueryOptions) -> Result<bool, PlanningError> {
        let eps = opts.tolerance;
        if !(eps.is_finite() && eps >= 0.0) {
            return Err(ArticulatedError::InvalidOptions(format!(
                "tolerance {eps} must be finite and not negative"
            ))
            .into());
        }
        // stop at the first pair within eps (a strict "closer than" just above it)
        let stop = eps + f64::MIN_POSITIVE.max(eps * f64::EPSILON);
        Ok(self
            .closest(q, Some(stop))?
            .is_some_and(|c| c.distance <= eps))
    }

    /// The closest pair at `q` among the pairs the queries test, with its distance and
    /// witness points (world); `None` when the scene has no pair to test.
    ///
    /// # Errors
    /// As [`PlanningScene::in_collision`].
    ///
    /// # Example
    /// See [`PlanningScene`].
    pub fn clearance(&self, q: &[f64]) -> Result<Option<Clearance>, PlanningError> {
        self.closest(q, None)
    }
}
