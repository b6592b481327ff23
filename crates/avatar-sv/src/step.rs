//! One CCD step (two consecutive poses against the static environment) and the stream API.
//!
//! A step runs the paper's pipeline (Avatar, Sec. 3.2, Fig. 2): motion parameters of every
//! link (Sec. 4), interval swept AABBs (Sec. 5), culling of the capsules with a dynamic AABB
//! tree against the environment tree, then for the surviving capsules the swept-volume
//! method ([`crate::swept`]) and/or the exact method ([`crate::exact`]). Both only look at
//! the environment triangles that survived culling, which is sound: the swept box of a
//! capsule contains the capsule at every time of the step.

use std::time::Instant;

use ccd_bvh::{DynamicBvh, Workspace};
use ccd_geometry::{Aabb, Triangle};
use ccd_kinematics::{ArticulatedMotion, LinkId, Pose};
use ccd_taylor::Interval;

use crate::exact::{ExactContact, ExactOptions, ExactStats, capsule_exact};
use crate::swept::{SvCounters, SvOptions, capsule_sv, time_group};
use crate::{Avatar, AvatarError, Environment};

/// Which answers a step computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Methods {
    /// Only the paper's swept-volume method.
    SweptVolume,
    /// Only the exact capsule CA.
    Exact,
    /// Both.
    Both,
}

/// Options of a step: start from [`Default`] and change fields with the `with_*` builders
/// (the struct is `#[non_exhaustive]`).
///
/// # Example
/// ```
/// use ccd_avatar_sv::{ExactOptions, Methods, AvatarStepOptions};
///
/// let options = AvatarStepOptions::default()
///     .with_methods(Methods::Exact)
///     .with_exact(ExactOptions::default().with_tolerance(1e-4));
/// assert_eq!(options.exact.tolerance, 1e-4);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct AvatarStepOptions {
    /// Which methods run.
    pub methods: Methods,
    /// Options of the exact method.
    pub exact: ExactOptions,
    /// Options of the swept-volume method.
    pub swept: SvOptions,
}

impl Default for AvatarStepOptions {
    fn default() -> Self {
        Self {
            methods: Methods::Both,
            exact: ExactOptions::default(),
            swept: SvOptions::default(),
        }
    }
}

impl AvatarStepOptions {
    /// The same options running `methods`.
    #[inline]
    #[must_use]
    pub fn with_methods(mut self, methods: Methods) -> Self {
        self.methods = methods;
        self
    }

    /// The same options with exact-method options `exact`.
    #[inline]
    #[must_use]
    pub fn with_exact(mut self, exact: ExactOptions) -> Self {
        self.exact = exact;
        self
    }

    /// The same options with swept-volume options `swept`.
    #[inline]
    #[must_use]
    pub fn with_swept(mut self, swept: SvOptions) -> Self {
        self.swept = swept;
        self
    }
}

/// The swept-volume answer of a step.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct SvOutcome {
    /// The first collision found, `None` when every capsule's path is certified free on
    /// `[0, 1]`.
    pub collision: Option<SvCollision>,
    /// `t_c`: every capsule has a collision-free path on `[0, t_c]` (1 without collision).
    pub t_c: f64,
    /// The pose at `t_c` (each link's relative motion evaluated at `t_c`).
    pub safe_pose: Pose,
}

/// The collision the swept-volume method found.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct SvCollision {
    /// Upper bound of the TOC from the earliest colliding time group (Sec. 7.2).
    pub upper_bound: f64,
    /// The time after backtracking (≤ the true TOC).
    pub t_c: f64,
    /// The capsule.
    pub capsule: usize,
    /// Its link.
    pub link: LinkId,
    /// An environment triangle within the colliding sub-group's volume.
    pub triangle: u32,
}

/// The exact answer of a step.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct ExactOutcome {
    /// The first contact, `None` when there is none in `[0, 1]`.
    pub contact: Option<ExactContact>,
    /// Whether the step starts in contact: some capsule is within `ε` of the environment in
    /// the first pose (`contact.toc == 0`). Such a contact is not new: a client that stops at
    /// contacts met it in an earlier step (or placed the avatar in it).
    pub starts_in_contact: bool,
    /// Counters.
    pub stats: ExactStats,
}

/// Per-step timings in µs, the rows of the paper's Table 1 (plus the exact method), and
/// counters.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct AvatarStepStats {
    /// Validating the new pose.
    pub position_update_us: f64,
    /// Motion parameters of all links (Sec. 4).
    pub motion_parameters_us: f64,
    /// Interval swept AABBs of all capsules (Sec. 5), each intersected with the box of the
    /// capsule's one-group swept volume over the step.
    pub swept_aabbs_us: f64,
    /// Dynamic AABB tree of the capsules against the environment tree.
    pub aabb_culling_us: f64,
    /// Tessellating the swept volumes of the surviving capsules (all of them).
    pub sv_computation_us: f64,
    /// Interference of the time groups with the environment (all capsules).
    pub interference_us: f64,
    /// Backtracking (all capsules).
    pub backtracking_us: f64,
    /// The exact method (all capsules).
    pub exact_us: f64,
    /// Capsules whose swept box overlaps some environment triangle's box.
    pub surviving_capsules: usize,
    /// Candidate (capsule, triangle) pairs after culling.
    pub candidate_pairs: usize,
    /// Time groups built.
    pub time_groups: usize,
    /// Exact triangle–triangle tests of the swept-volume method.
    pub sv_triangle_tests: usize,
}

/// The result of one step.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct AvatarStepReport {
    /// The swept-volume answer (when requested).
    pub swept: Option<SvOutcome>,
    /// The exact answer (when requested).
    pub exact: Option<ExactOutcome>,
    /// Timings and counters.
    pub stats: AvatarStepStats,
}

fn us(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1e6
}

/// One CCD step of `avatar` from `pose0` to `pose1` (each link moving with constant
/// velocities relative to its parent, Sec. 4) against `env`.
///
/// # Errors
/// [`AvatarError::InvalidPose`] for a pose that does not fit, is not rigid or not finite;
/// [`AvatarError::OutOfRange`] when a capsule's swept box reaches beyond
/// [`crate::MAX_COORDINATE`]; [`AvatarError::InvalidOption`] for bad options.
///
/// # Example
/// ```
/// use ccd_avatar_sv::{Avatar, LinkCapsule, Environment, AvatarStepOptions, step};
/// use ccd_geometry::TriMesh;
/// use ccd_kinematics::{ArticulatedModel, Joint, LinkId, LinkSpec, Pose};
/// use ccd_kinematics::glam::{DAffine3, DVec3};
///
/// let model = ArticulatedModel::new(vec![LinkSpec {
///     name: "body".into(), parent: None, joint: Joint::Floating, offset: DAffine3::IDENTITY,
/// }])?;
/// let avatar = Avatar::new(model, vec![LinkCapsule::along_x(LinkId(0), -0.5, 0.5, 0.1)])?;
/// let wall = TriMesh::new(
///     vec![DVec3::new(1.0, -1.0, -1.0), DVec3::new(1.0, 1.0, -1.0), DVec3::new(1.0, 0.0, 1.0)],
///     vec![[0, 1, 2]],
/// )?;
/// let env = Environment::new(wall)?;
/// let p0 = Pose { relative: vec![DAffine3::IDENTITY] };
/// let p1 = Pose { relative: vec![DAffine3::from_translation(DVec3::X)] };
/// let report = step(&avatar, &env, &p0, &p1, &AvatarStepOptions::default())?;
/// // the tip (0.5 + 0.1) reaches x = 1 at t = 0.4
/// let toc = report.exact.unwrap().contact.unwrap().toc;
/// assert!((toc - 0.4).abs() < 1e-5 && toc <= 0.4);
/// let t_c = report.swept.unwrap().t_c;
/// assert!(t_c <= 0.4 && t_c > 0.3);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn step(
    avatar: &Avatar,
    env: &Environment,
    pose0: &Pose,
    pose1: &Pose,
    options: &AvatarStepOptions,
) -> Result<AvatarStepReport, AvatarError> {
    options.exact.validate()?;
    options.swept.validate()?;
    let mut stats = AvatarStepStats::default();
    let clock = Instant::now();
    avatar.check_pose(pose0)?;
    avatar.check_pose(pose1)?;
    stats.position_update_us = us(clock);
    let model = avatar.model();

    let clock = Instant::now();
    let motion =
        ArticulatedMotion::between(model, pose0, pose1).map_err(AvatarError::InvalidPose)?;
    stats.motion_parameters_us = us(clock);

    // swept AABBs by interval arithmetic over [0, 1] (Sec. 5), each intersected with the box
    // of the capsule's one-group swept volume over the step (`crate::swept`: the corners at
    // t = 0 and 1 inflated by the radius and the second-order bound): both enclose the
    // capsule at every time of the step, so their intersection does
    let clock = Instant::now();
    let enclosures = motion.enclosures::<Interval>(Interval::UNIT)?;
    let mut boxes: Vec<Aabb> = avatar
        .capsules()
        .iter()
        .map(|c| {
            enclosures[c.link.index()]
                .aabb_of_points([c.a, c.b])
                .inflate(c.radius)
        })
        .collect();
    for (i, b) in boxes.iter().enumerate() {
        let m = crate::magnitude(b);
        if m.is_nan() || m > crate::MAX_COORDINATE {
            return Err(AvatarError::OutOfRange {
                what: format!("capsule {i}'s swept box"),
                magnitude: m,
                limit: crate::MAX_COORDINATE,
            });
        }
    }
    for (i, (c, b)) in avatar.capsules().iter().zip(&mut boxes).enumerate() {
        let g = time_group(&motion, avatar.chain(i), c, 0.0, 1.0)?;
        *b = b.intersection(g.aabb());
    }
    stats.swept_aabbs_us = us(clock);

    // culling: dynamic tree of capsule boxes against the environment tree
    let clock = Instant::now();
    let mut dynamic = DynamicBvh::new();
    dynamic.rebuild(&boxes)?;
    let mut pairs = Vec::new();
    dynamic.pairs_with_into(env.mesh_bvh().bvh(), &mut Workspace::new(), &mut pairs);
    let mesh = env.mesh();
    let mut candidates: Vec<Vec<(u32, Triangle)>> = vec![Vec::new(); boxes.len()];
    for [c, t] in pairs {
        let tri = mesh.triangle(t as usize);
        if boxes[c as usize].overlaps(&tri.aabb()) {
            candidates[c as usize].push((t, tri));
        }
    }
    stats.surviving_capsules = candidates.iter().filter(|c| !c.is_empty()).count();
    stats.candidate_pairs = candidates.iter().map(Vec::len).sum();
    stats.aabb_culling_us = us(clock);

    let run_sv = matches!(options.methods, Methods::SweptVolume | Methods::Both);
    let run_exact = matches!(options.methods, Methods::Exact | Methods::Both);

    let swept = if run_sv {
        let mut counters = SvCounters::default();
        let mut best: Option<SvCollision> = None;
        for (i, c) in avatar.capsules().iter().enumerate() {
            if candidates[i].is_empty() {
                continue;
            }
            let limit = best.map_or(1.0, |b| b.t_c);
            if let Some((u, t_c, tri)) = capsule_sv(
                &motion,
                avatar.chain(i),
                c,
                &candidates[i],
                limit,
                &options.swept,
                &mut counters,
            )? && best.is_none_or(|b| t_c < b.t_c)
            {
                best = Some(SvCollision {
                    upper_bound: u,
                    t_c,
                    capsule: i,
                    link: c.link,
                    triangle: tri,
                });
            }
        }
        stats.sv_computation_us = counters.sv_us;
        stats.interference_us = counters.interference_us;
        stats.backtracking_us = counters.backtracking_us;
        stats.time_groups = counters.groups;
        stats.sv_triangle_tests = counters.triangle_tests;
        let t_c = best.map_or(1.0, |b| b.t_c);
        let safe_pose = Pose {
            relative: motion.relatives().iter().map(|m| m.pose_at(t_c)).collect(),
        };
        Some(SvOutcome {
            collision: best,
            t_c,
            safe_pose,
        })
    } else {
        None
    };

    let exact = if run_exact {
        let clock = Instant::now();
        let mut st = ExactStats::default();
        let mut best: Option<ExactContact> = None;
        for (i, c) in avatar.capsules().iter().enumerate() {
            let limit = best.map_or(1.0, |b| b.toc);
            if limit <= 0.0 {
                // a contact at t = 0 cannot be beaten
                break;
            }
            if candidates[i].is_empty() {
                continue;
            }
            if let Some(contact) = capsule_exact(
                &motion,
                avatar.chain(i),
                c,
                i,
                &candidates[i],
                limit,
                &options.exact,
                &mut st,
            )? && best.is_none_or(|b| contact.toc < b.toc)
            {
                best = Some(contact);
            }
        }
        stats.exact_us = us(clock);
        Some(ExactOutcome {
            contact: best,
            starts_in_contact: best
                .is_some_and(|c| c.status == ccd_geometry::Status::InitiallyTouching),
            stats: st,
        })
    } else {
        None
    };

    Ok(AvatarStepReport {
        swept,
        exact,
        stats,
    })
}

/// Poses arriving one at a time (the paper's client receives one every 10 ms); each new pose
/// makes one step from the previous one.
///
/// # Example
/// ```
/// use ccd_avatar_sv::{Avatar, AvatarStream, LinkCapsule, Environment, AvatarStepOptions};
/// use ccd_geometry::TriMesh;
/// use ccd_kinematics::{ArticulatedModel, Joint, LinkId, LinkSpec, Pose};
/// use ccd_kinematics::glam::{DAffine3, DVec3};
///
/// let model = ArticulatedModel::new(vec![LinkSpec {
///     name: "body".into(), parent: None, joint: Joint::Floating, offset: DAffine3::IDENTITY,
/// }])?;
/// let avatar = Avatar::new(model, vec![LinkCapsule::along_x(LinkId(0), -0.5, 0.5, 0.1)])?;
/// let floor = TriMesh::new(
///     vec![DVec3::new(-9.0, -1.0, -9.0), DVec3::new(9.0, -1.0, -9.0), DVec3::new(0.0, -1.0, 9.0)],
///     vec![[0, 1, 2]],
/// )?;
/// let mut stream = AvatarStream::new(avatar, Environment::new(floor)?, AvatarStepOptions::default())?;
/// assert!(stream.push(Pose { relative: vec![DAffine3::IDENTITY] })?.is_none());
/// let report = stream.push(Pose { relative: vec![DAffine3::from_translation(DVec3::X)] })?.unwrap();
/// assert!(report.exact.unwrap().contact.is_none());
/// assert_eq!(report.swept.unwrap().t_c, 1.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct AvatarStream {
    avatar: Avatar,
    env: Environment,
    options: AvatarStepOptions,
    previous: Option<Pose>,
    steps: usize,
}

impl AvatarStream {
    /// A stream with no pose yet.
    ///
    /// # Errors
    /// [`AvatarError::InvalidOption`] for bad options.
    pub fn new(
        avatar: Avatar,
        env: Environment,
        options: AvatarStepOptions,
    ) -> Result<Self, AvatarError> {
        options.exact.validate()?;
        options.swept.validate()?;
        Ok(Self {
            avatar,
            env,
            options,
            previous: None,
            steps: 0,
        })
    }

    /// Takes the next pose: `None` for the first one, otherwise the report of the step from
    /// the previous pose. An invalid pose is rejected and leaves the stream unchanged.
    ///
    /// # Errors
    /// As [`step`].
    pub fn push(&mut self, pose: Pose) -> Result<Option<AvatarStepReport>, AvatarError> {
        let report = match &self.previous {
            None => {
                self.avatar.check_pose(&pose)?;
                None
            }
            Some(prev) => Some(step(&self.avatar, &self.env, prev, &pose, &self.options)?),
        };
        if report.is_some() {
            self.steps += 1;
        }
        self.previous = Some(pose);
        Ok(report)
    }

    /// Steps computed so far.
    #[inline]
    #[must_use]
    pub fn steps(&self) -> usize {
        self.steps
    }

    /// The avatar.
    #[inline]
    #[must_use]
    pub fn avatar(&self) -> &Avatar {
        &self.avatar
    }
}
