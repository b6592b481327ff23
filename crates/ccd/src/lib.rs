//! `ccd`: continuous collision detection — the **first time of contact** (TOC) between
//! moving geometry, with the features and points that touch — for motion planning, haptics,
//! games and cloth. Every answer is conservative: a contact may be reported slightly early
//! (within the tolerance) but never missed.
//!
//! This crate is the front door: it re-exports the `ccd-*` crates, gathers the common types in
//! a [`prelude`], and wraps every crate's error in one [`Error`] so that `?` works across
//! them. It holds no algorithm of its own.
//!
//! # Which crate do I need
//!
//! | you have | you want | use |
//! |---|---|---|
//! | two rigid triangle meshes (polygon soups), each moving between two poses | the first contact, or only whether the path is free | [`ca_rigid::time_of_contact`] ([`ca_rigid`]) |
//! | two convex rigid bodies | the same, faster (GJK on hulls) | [`ca_rigid::time_of_contact_convex`] |
//! | many rigid bodies (meshes, convex bodies, analytic shapes, static ones) moving step after step | each step's earliest contact, every contact, or yes/no, with sweep-and-prune and TOC scheduling | [`world::World`] ([`world`]) |
//! | a character of capsules on a link tree driven by motion capture, and a static world mesh | the first contact per frame step: swept volumes with backtracking, or exact capsule CA | [`avatar_sv::step`], [`avatar_sv::AvatarStream`] ([`avatar_sv`]) |
//! | meshes whose vertices move linearly (cloth, soft bodies, fracture), several meshes, self-collision | the first contact in the scene, every contact, or yes/no | [`la_deformable::scene::DeformingScene`] ([`la_deformable`]) |
//! | one vertex–face or edge–edge pair moving linearly | its time of contact | [`la_deformable::vertex_face`], [`la_deformable::edge_edge`] |
//! | a start and end pose of a rigid body | the in-between motion, its poses and bounds | [`kinematics::RigidMotion`] ([`kinematics`]) |
//! | a robot (links and joints, or a URDF file) | per-link motions between two configurations | [`kinematics::ArticulatedModel`], [`kinematics::ArticulatedMotion`], `kinematics::urdf` (feature `urdf`) |
//! | a point or box moving with a rigid motion | a rigorous enclosure of where it goes | [`taylor::Transform`] over [`taylor::TaylorModel`] or [`taylor::Interval`] ([`taylor`]) |
//! | meshes to load, validate and query | `TriMesh`, OBJ/STL/PLY readers | [`geometry::TriMesh`], `geometry::io` (feature `io`) ([`geometry`]) |
//! | static distance between two meshes, points, segments, triangles, convex hulls | distance with witnesses | [`distance::mesh_distance`], [`distance::gjk_distance`] ([`distance`]) |
//! | many moving objects | broad-phase candidate pairs; bounding volume trees | [`bvh::SweepAndPrune`], [`bvh::DynamicBvh`], [`bvh::Bvh`] ([`bvh`]) |
//! | robots and characters (link trees with meshes, or URDF + SRDF), rigid bodies and a static world mesh | the first contact of a step (self-collision included), every colliding link pair, or yes/no for planner edges | [`ca_articulated::ArticulatedScene`] ([`ca_articulated`]) |
//! | the same, stepped by a simulator that moves only some joints per step (adaptive dynamics, sleeping limbs) | the same answers, with culling work that follows the joints that move | [`ca_articulated::AdaptiveScene`] with [`ca_articulated::AdaptiveStep`] |
//! | a motion planner's world: robots from URDF + SRDF, static meshes, boxes, spheres and cylinders with poses, objects attached to links, allowed-collision overrides by link name; queried from several threads | an edge's or a piecewise-linear path's first contact (segment index and toc), a batch of edges with link names, whether a pose is in collision and its clearance (closest pair) | [`ca_articulated::planning::PlanningScene`]; environments shared between many scenes: [`ca_articulated::PreparedEnvironment`] |
//! | JSON Lines files of queries, or a shell | the same queries without writing Rust: the `ccd` command (`toc`, `frames`, `batch` on all cores, `--shard I/N`) and its JSON schema | the `ccd-cli` crate (`crates/cli`; not re-exported here) |
//! | Python and numpy arrays | rigid TOC, vectorised vertex–face / edge–edge batches, deforming scenes, URDF robots, JSON Lines batches | the Python module `ccd` of the `ccd-python` crate (`crates/python`, `pip install ./crates/python`; not a Rust dependency) |
//!
//! # Examples
//!
//! ## Rigid: the first contact between two meshes
//! ```
//! use std::sync::Arc;
//! use ccd::prelude::*;
//!
//! let tetra = TriMesh::new(
//!     vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z],
//!     vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
//! )?;
//! // a body is a mesh in its local frame with its RSS tree; share it between queries
//! let body = RigidBody::new(Arc::new(MeshBvh::<Rss>::new(tetra, &BvhOptions::default())?));
//! let still = RigidMotion::stationary(DAffine3::IDENTITY)?;
//! // the second copy slides from x = 3 to x = -1 while turning about z, over t ∈ [0, 1]
//! let moving = RigidMotion::between(
//!     DAffine3::from_translation(DVec3::new(3.0, 0.0, 0.0)),
//!     DAffine3::from_rotation_translation(DQuat::from_rotation_z(0.3), DVec3::new(-1.0, 0.0, 0.0)),
//! )?;
//! let contact = time_of_contact(&body, &still, &body, &moving, &CaOptions::default())?
//!     .expect("they collide");
//! assert_eq!(contact.status, Status::Converged);
//! // world witness points at `toc`, within the tolerance (1e-3) of each other
//! assert!(contact.point_a.distance(contact.point_b) <= 1e-3);
//! assert!(contact.toc > 0.3 && contact.toc < 0.6);
//!
//! // Boolean mode, for planners: is the path free?
//! let options = CaOptions::default().with_mode(Mode::Boolean);
//! assert!(time_of_contact(&body, &still, &body, &moving, &options)?.is_some());
//! # Ok::<(), ccd::Error>(())
//! ```
//!
//! ## Deformable: one vertex–face and one edge–edge pair
//! Points move linearly from `x0` (at `t = 0`) to `x1` (at `t = 1`).
//! ```
//! use ccd::prelude::*;
//! use ccd::la_deformable::{edge_edge, vertex_face};
//!
//! // a vertex falling through the triangle z = 0: (vertex, face0, face1, face2)
//! let face = [DVec3::ZERO, DVec3::X, DVec3::Y];
//! let x0 = [DVec3::new(0.2, 0.2, 1.0), face[0], face[1], face[2]];
//! let x1 = [DVec3::new(0.2, 0.2, -1.0), face[0], face[1], face[2]];
//! let hit = vertex_face(&x0, &x1, &LaOptions::default())?.expect("contact");
//! assert!(hit.toc <= 0.5 && hit.toc > 0.5 - 1e-6);
//!
//! // an edge along y falling onto an edge along x: (a0, a1, b0, b1)
//! let x0 = [DVec3::new(-1.0, 0.0, 0.0), DVec3::new(1.0, 0.0, 0.0),
//!           DVec3::new(0.0, -1.0, 1.0), DVec3::new(0.0, 1.0, 1.0)];
//! let x1 = [x0[0], x0[1], DVec3::new(0.0, -1.0, -1.0), DVec3::new(0.0, 1.0, -1.0)];
//! let hit = edge_edge(&x0, &x1, &LaOptions::default())?.expect("contact");
//! assert_eq!((hit.closest.feature_a, hit.closest.feature_b), (Feature::Edge(0, 1), Feature::Edge(0, 1)));
//! # Ok::<(), ccd::Error>(())
//! ```
//!
//! ## Deformable: a scene of meshes, global time of contact and every contact
//! ```
//! use ccd::prelude::*;
//!
//! // a triangle falling by 2 onto a static one 1 below it: first contact at t = 0.5
//! let tri = vec![DVec3::ZERO, DVec3::X, DVec3::Y];
//! let ground = DeformingMesh::new(vec![[0, 1, 2]], tri.clone(), tri.clone())?;
//! let up: Vec<DVec3> = tri.iter().map(|p| *p + DVec3::new(0.1, 0.1, 1.0)).collect();
//! let down: Vec<DVec3> = tri.iter().map(|p| *p + DVec3::new(0.1, 0.1, -1.0)).collect();
//! let falling = DeformingMesh::new(vec![[0, 1, 2]], up, down)?;
//! let mut scene = DeformingScene::new(vec![ground, falling], &SceneOptions::default())?;
//!
//! let first = scene.query(Mode::Toc);
//! let toc = first.toc().expect("they touch");
//! assert!(toc <= 0.5 && toc > 0.5 - 1e-5);
//! // which features touch, and where (world coordinates at `toc`)
//! let c = first.contacts[0];
//! assert!(c.point_a.distance(c.point_b) < 1e-6 && c.normal.length() > 0.99);
//! // every colliding vertex–face and edge–edge pair, each with its own time of contact
//! let all = scene.query(Mode::All);
//! assert!(all.contacts.len() >= first.contacts.len());
//!
//! // next step: new positions for mesh 1, same topology; the hierarchy is refitted
//! let (a, b) = (scene.meshes()[1].x1().to_vec(), scene.meshes()[1].x1().to_vec());
//! scene.update(1, a, b)?;
//! # Ok::<(), ccd::Error>(())
//! ```
//!
//! ## Articulated: a robot arm folding into itself (CATCH)
//! ```
//! use ccd::prelude::*;
//! use ccd::kinematics::{Joint, LinkId, LinkSpec};
//!
//! // a three-link planar arm; joints 1 and 2 turn by 2.6 rad, so link 2 swings into link 0
//! let hinge = Joint::Revolute { axis: DVec3::Z, limits: None };
//! let link = |name: &str, parent: Option<&str>| LinkSpec {
//!     name: name.into(),
//!     parent: parent.map(Into::into),
//!     joint: hinge,
//!     offset: DAffine3::from_translation(if parent.is_some() { DVec3::X } else { DVec3::ZERO }),
//! };
//! let model = ArticulatedModel::new(vec![link("l0", None), link("l1", Some("l0")), link("l2", Some("l1"))])?;
//! // one mesh per link, in the link's frame
//! let rod = TriMesh::new(
//!     vec![DVec3::new(0.1, -0.05, -0.05), DVec3::new(0.9, -0.05, -0.05),
//!          DVec3::new(0.5, 0.05, -0.05), DVec3::new(0.5, 0.0, 0.05)],
//!     vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
//! )?;
//! let arm = ArticulatedBody::from_meshes(model, vec![Some(rod.clone()), Some(rod.clone()), Some(rod)])?;
//! let mut scene = ArticulatedScene::new();
//! scene.add_articulated(arm);
//! let (q0, q1) = ([0.0, 0.0, 0.0], [0.0, 2.6, 2.6]);
//! let step = [BodyStep::Joints { q0: &q0, q1: &q1 }];
//! let result = scene.query(&step, &QueryOptions::default())?;
//! let hit = result.first().expect("the arm folds into itself");
//! // which parts touch, when, where (world), and how the query ended
//! assert_eq!((hit.a, hit.b), (Part::Link { body: 0, link: LinkId(0) }, Part::Link { body: 0, link: LinkId(2) }));
//! assert!(hit.contact.toc > 0.0 && hit.contact.toc < 1.0);
//! assert!(hit.contact.point_a.distance(hit.contact.point_b) <= 1e-3);
//! assert_eq!(hit.contact.status, Status::Converged);
//! // a planner only needs yes/no: Boolean mode stops at the first certain contact
//! let free = scene.query(&step, &QueryOptions::default().with_mode(Mode::Boolean))?;
//! assert!(free.first().is_some());
//! # Ok::<(), ccd::Error>(())
//! ```
//!
//! ## Avatar: capsules on a link tree against a static world
//! ```
//! use ccd::prelude::*;
//! use ccd::avatar_sv::{Avatar, LinkCapsule, Environment, AvatarStepOptions, step};
//! use ccd::kinematics::{Joint, LinkId, LinkSpec};
//!
//! // a one-link arm swinging about z through a thin pole at x = 0.8
//! let model = ArticulatedModel::new(vec![LinkSpec {
//!     name: "arm".into(), parent: None, joint: Joint::Floating, offset: DAffine3::IDENTITY,
//! }])?;
//! let avatar = Avatar::new(model, vec![LinkCapsule::along_x(LinkId(0), 0.0, 1.0, 0.05)])?;
//! let pole = TriMesh::new(
//!     vec![DVec3::new(0.8, 0.0, -1.0), DVec3::new(0.8, 0.0, 1.0), DVec3::new(0.8, 0.001, 0.0)],
//!     vec![[0, 1, 2]],
//! )?;
//! let world = Environment::new(pole)?;
//! let p0 = Pose { relative: vec![DAffine3::from_quat(DQuat::from_rotation_z(-1.0))] };
//! let p1 = Pose { relative: vec![DAffine3::from_quat(DQuat::from_rotation_z(1.0))] };
//! let report = step(&avatar, &world, &p0, &p1, &AvatarStepOptions::default())?;
//! // the exact answer (capsule CA) and the swept-volume answer, which backtracks to a time
//! // no later than the first contact
//! let toc = report.exact.expect("exact run").contact.expect("it hits the pole").toc;
//! assert!(report.swept.expect("swept run").t_c <= toc + 1e-6);
//! # Ok::<(), ccd::Error>(())
//! ```
//!
//! ## Adaptive articulated: only the joints that move
//! A simulator that rigidifies parts of a body names the joints that move in each step; the
//! answers are those of [`ca_articulated::ArticulatedScene::query`].
//! ```
//! use std::sync::Arc;
//! use ccd::prelude::*;
//! use ccd::ca_articulated::{AdaptiveScene, AdaptiveStep};
//! use ccd::kinematics::{Joint, LinkId, LinkSpec};
//!
//! // a four-link planar arm beside a post at (3.3, 0.5)
//! let hinge = Joint::Revolute { axis: DVec3::Z, limits: None };
//! let link = |i: usize| LinkSpec {
//!     name: format!("l{i}"),
//!     parent: (i > 0).then(|| format!("l{}", i - 1)),
//!     joint: hinge,
//!     offset: DAffine3::from_translation(if i > 0 { DVec3::X } else { DVec3::ZERO }),
//! };
//! let model = ArticulatedModel::new((0..4).map(link).collect())?;
//! let tetra = |p: [DVec3; 4]| TriMesh::new(p.to_vec(), vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]);
//! let rod = tetra([DVec3::new(0.1, -0.05, -0.05), DVec3::new(0.9, -0.05, -0.05),
//!                  DVec3::new(0.5, 0.05, -0.05), DVec3::new(0.5, 0.0, 0.05)])?;
//! let post = tetra([DVec3::new(3.2, 0.4, -1.0), DVec3::new(3.4, 0.4, -1.0),
//!                   DVec3::new(3.3, 0.6, -1.0), DVec3::new(3.3, 0.5, 1.0)])?;
//! let mut scene = ArticulatedScene::new();
//! scene.add_articulated(ArticulatedBody::from_meshes(model, vec![Some(rod); 4])?);
//! scene.set_environment(Arc::new(MeshBvh::<Rss>::new(post, &BvhOptions::default())?));
//! let mut adaptive = AdaptiveScene::new(scene);
//! // only the joint of link 3 turns: the tip swings into the post
//! let (q0, q1) = ([0.0; 4], [0.0, 0.0, 0.0, 2.0]);
//! let step = AdaptiveStep { q0: &q0, q1: &q1, active: &[LinkId(3)] };
//! let result = adaptive.query(&[step], &QueryOptions::default())?;
//! let hit = result.first().expect("the tip hits the post");
//! assert_eq!((hit.a, hit.b), (Part::Link { body: 0, link: LinkId(3) }, Part::Environment));
//! assert!(hit.contact.toc > 0.0 && hit.contact.toc < 1.0);
//! # Ok::<(), ccd::Error>(())
//! ```
//!
//! ## World: many rigid bodies, step after step
//! ```
//! use std::sync::Arc;
//! use ccd::prelude::*;
//! use ccd::world::{Collider, StepOptions, World};
//!
//! let tetra = TriMesh::new(
//!     vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z],
//!     vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
//! )?;
//! // a convex body (GJK on its hull); meshes and analytic shapes are colliders too
//! let shape = Collider::convex(RigidBody::with_hull(Arc::new(MeshBvh::<Rss>::new(tetra, &BvhOptions::default())?))?)?;
//! let mut world = World::new(CaOptions::default())?; // the per-pair CA options (tolerance 1e-3)
//! world.insert_static(shape.clone(), DAffine3::IDENTITY)?;
//! // a row of falling bodies; only the one above the static body reaches it in this step
//! let mut falling = Vec::new();
//! for i in 0..5 {
//!     let start = DAffine3::from_translation(DVec3::new(3.0 * f64::from(i), 0.0, 3.0));
//!     let h = world.insert(shape.clone(), RigidMotion::stationary(start)?)?;
//!     world.set_velocities(h, DVec3::new(0.0, 0.0, -2.5), DVec3::ZERO)?; // per step
//!     falling.push(h);
//! }
//! let report = world.step(&StepOptions::default().with_mode(Mode::Toc))?;
//! let first = report.earliest().expect("body 0 lands on the static body");
//! assert_eq!(first.b, falling[0]);
//! assert!(first.contact.toc > 0.5 && first.contact.toc < 1.0);
//! // the bodies have moved to their poses at t = 1; the next step continues from there
//! assert_eq!(report.step, 0);
//! # Ok::<(), ccd::Error>(())
//! ```
//!
//! # Conventions and vocabulary
//!
//! - `f64` glam types throughout (`DVec3`, `DMat3`, `DQuat`, `DAffine3`, re-exported in the
//!   prelude); meshes live in their local frames, poses map local to world.
//! - Time is normalized to `t ∈ [0, 1]` per step: motions go from a start pose (or start
//!   positions) at `t = 0` to an end pose at `t = 1`.
//! - `Ok(None)` means no contact in `[0, 1]`; bad input (NaN, mismatched sizes, bad options)
//!   is an `Err`, never a panic.
//! - A query's **mode** says what it computes, with the same variant names everywhere:
//!   `Toc` (the first contact), `All` (every colliding pair, each with its own time) and
//!   `Boolean` (only whether anything collides, for planners); one type for every crate,
//!   [`geometry::Mode`] (a rigid query is one pair: there `All` answers as `Toc`).
//! - A **status** says how it ended; one type for every crate, [`geometry::Status`]:
//!   `Converged`, `InitiallyTouching`, `OutOfIterations`, or `Stalled` (rigid and
//!   articulated CA, when the tolerance is below what `f64` resolves at the scene's scale).
//!   Hitting a cap or stalling still gives a conservative answer: `toc` is then a lower
//!   bound.
//! - A **contact** carries the time of contact `toc`, the two features (vertex, edge or face
//!   ids into the caller's meshes; links, capsules and triangles for articulated bodies and
//!   avatars), the world witness points `point_a`/`point_b` and the unit `normal` from a to
//!   b at `toc`, the `distance` there and the `status`: [`ca_rigid::Contact`],
//!   [`ca_articulated::PartPairContact`] (a `Contact` plus the two [`ca_articulated::Part`]s),
//!   [`la_deformable::SceneContact`], [`la_deformable::PrimitiveToc`] (one feature pair,
//!   witnesses in its `closest`), [`avatar_sv::ExactContact`], [`ca_rigid::ShapeContact`]
//!   and [`world::BodyPairContact`] (a `ShapeContact` plus the two bodies' handles).
//! - **Options** start from `Default` and are `#[non_exhaustive]`: change them with the
//!   `with_*` builders, e.g. `CaOptions::default().with_tolerance(1e-4)` or
//!   `SceneOptions::default().with_tolerance(1e-5)`. Results are `#[non_exhaustive]` too, so
//!   fields can be added without breaking you.
//!
//! # Tolerances
//!
//! The tolerance `ε` is an **absolute distance** in the units of your coordinates: a contact
//! is reported once the features are within `ε`, and never after the true first time they
//! come within `ε` (so a `toc` can be early by at most the time it takes to close `ε`). The
//! defaults differ by domain: `1e-3` for rigid and articulated bodies
//! ([`ca_rigid::CaOptions`], [`ca_articulated::QueryOptions`]; robots and props measured in
//! metres: a millimetre, CATCH's setting) and `1e-6` for deformable meshes
//! ([`la_deformable::LaOptions`]; the LA paper's setting, where cloth layers sit close
//! together) and avatars' exact method ([`avatar_sv::ExactOptions`]). Scale it to your scene: larger values converge in fewer iterations.
//!
//! # Errors
//!
//! Each crate has its own error enum ([`GeometryError`], [`TaylorError`], [`BvhError`],
//! [`GjkError`], [`HullError`], [`MeshDistanceError`], [`KinematicsError`], [`CaError`],
//! [`LaError`], [`AvatarError`], [`WorldError`]); [`Error`] wraps any of them, and `?` converts.
//!
//! # Feature flags
//!
//! | feature | default | what it adds |
//! |---|---|---|
//! | `io` | yes | OBJ/STL/PLY readers and an OBJ writer: `geometry::io` |
//! | `urdf` | no | URDF/SRDF import of articulated models: `kinematics::urdf`, [`prelude`]'s `UrdfRobot` (enables `io`) |
//! | `mocap` | no | BVH (Biovision) motion-capture import: `kinematics::mocap` |
//! | `parallel` | no | rayon in the deformable scene query ([`la_deformable::scene::SceneOptions`]'s `parallel`) and the world's narrow phase ([`world::StepOptions`]'s `parallel`) |
//! | `serde` | no | `Serialize`/`Deserialize` on meshes, motions, options and results of every crate (statuses in snake case: `"converged"`) |
//!
//! # Performance
//!
//! The queries are numeric inner loops: in a debug build they run ~27× slower than in
//! release. To keep `cargo run`/`cargo test` usable, optimise dependencies in your
//! `Cargo.toml` (your own crate stays quick to compile and debug):
//! ```toml
//! [profile.dev.package."*"]
//! opt-level = 2
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod error;

pub use error::Error;

#[doc(inline)]
pub use ccd_avatar_sv as avatar_sv;
#[doc(inline)]
pub use ccd_bvh as bvh;
#[doc(inline)]
pub use ccd_ca_articulated as ca_articulated;
#[doc(inline)]
pub use ccd_ca_rigid as ca_rigid;
#[doc(inline)]
pub use ccd_distance as distance;
#[doc(inline)]
pub use ccd_geometry as geometry;
#[doc(inline)]
pub use ccd_kinematics as kinematics;
#[doc(inline)]
pub use ccd_la_deformable as la_deformable;
#[doc(inline)]
pub use ccd_taylor as taylor;
#[doc(inline)]
pub use ccd_world as world;

#[doc(inline)]
pub use ccd_avatar_sv::AvatarError;
/// The error of [`bvh`] (named `Error` there).
#[doc(inline)]
pub use ccd_bvh::BvhError;
#[doc(inline)]
pub use ccd_ca_articulated::ArticulatedError;
#[doc(inline)]
pub use ccd_ca_articulated::planning::PlanningError;
#[doc(inline)]
pub use ccd_ca_rigid::CaError;
#[doc(inline)]
pub use ccd_distance::{GjkError, HullError, MeshDistanceError};
#[doc(inline)]
pub use ccd_geometry::GeometryError;
#[doc(inline)]
pub use ccd_kinematics::KinematicsError;
#[doc(inline)]
pub use ccd_la_deformable::LaError;
#[doc(inline)]
pub use ccd_taylor::TaylorError;
#[doc(inline)]
pub use ccd_world::WorldError;

pub mod prelude {
    //! The types most programs need, in one import: `use ccd::prelude::*;`.
    //!
    //! Rigid queries: [`TriMesh`], [`MeshBvh`]`<`[`Rss`]`>`, [`RigidBody`], [`RigidMotion`],
    //! [`time_of_contact`] with [`CaOptions`], answering a [`Contact`]; any two [`Collider`]s
    //! along a [`PairMotion`] (a [`RigidPair`]) through the one door [`cast`] with
    //! [`CastOptions`] and a [`CastWorkspace`], answering a [`CastOutcome`]. Every query crate
    //! shares one [`Mode`] (what a query computes) and one [`Status`] (how it ended).
    //! Deformable queries: [`DeformingMesh`], [`DeformingScene`] with [`SceneOptions`],
    //! queried in a [`Mode`], answering a [`SceneResult`] of [`SceneContact`]s; elementary
    //! kernels take [`LaOptions`].
    //! Articulated queries (CATCH): [`ArticulatedBody`] in an [`ArticulatedScene`], moved by
    //! [`BodyStep`]s with [`QueryOptions`] ([`Mode`]; per-frame loops keep an
    //! [`ArticulatedWorkspace`]), answering a [`QueryResult`] whose contacts name each side's
    //! [`Part`].

    pub use crate::Error;
    pub use ccd_bvh::{
        BoundingVolume, Bvh, BvhOptions, MeshBvh, Obb, Rss, SweepAndPrune, Workspace,
    };
    pub use ccd_ca_articulated::{
        ArticulatedBody, ArticulatedScene, ArticulatedWorkspace, BodyStep, Part, QueryOptions,
        QueryResult,
    };
    pub use ccd_ca_rigid::{
        CaOptions, CastOptions, CastOutcome, CastWorkspace, Collider, Compound, Contact,
        PairMotion, RigidBody, RigidPair, Shape, ShapeContact, cast, time_of_contact,
        time_of_contact_convex, time_of_contact_shapes,
    };
    pub use ccd_distance::{
        Ball, Capsule, Closest, ConvexHull, Cuboid, Cylinder, ShapeError, gjk_distance,
    };
    pub use ccd_geometry::glam::{DAffine3, DMat3, DQuat, DVec3};
    pub use ccd_geometry::{
        Aabb, Feature, GeometryError, Mode, Segment, Status, TriMesh, Triangle,
    };
    #[cfg(feature = "urdf")]
    #[cfg_attr(docsrs, doc(cfg(feature = "urdf")))]
    pub use ccd_kinematics::urdf::UrdfRobot;
    pub use ccd_kinematics::{ArticulatedModel, ArticulatedMotion, Pose, RigidMotion};
    pub use ccd_la_deformable::scene::{DeformingScene, SceneOptions, SceneResult};
    pub use ccd_la_deformable::{DeformingMesh, LaOptions, SceneContact};
    pub use ccd_taylor::{Enclosure, Interval, TaylorError, TaylorModel, Transform};
}

/// The README's code blocks and each crate's README run as doctests here, so the examples a
/// newcomer reads first cannot go stale.
#[cfg(doctest)]
mod readme_doctests {
    #[doc = include_str!("../README.md")]
    struct Facade;
    #[doc = include_str!("../../geometry/README.md")]
    struct Geometry;
    #[doc = include_str!("../../taylor/README.md")]
    struct Taylor;
    #[doc = include_str!("../../bvh/README.md")]
    struct Bvh;
    #[doc = include_str!("../../distance/README.md")]
    struct Distance;
    #[doc = include_str!("../../kinematics/README.md")]
    struct Kinematics;
    #[doc = include_str!("../../ca-rigid/README.md")]
    struct CaRigid;
    #[doc = include_str!("../../ca-articulated/README.md")]
    struct CaArticulated;
    #[doc = include_str!("../../la-deformable/README.md")]
    struct LaDeformable;
    #[doc = include_str!("../../avatar-sv/README.md")]
    struct AvatarSv;
    #[doc = include_str!("../../world/README.md")]
    struct World;
    #[doc = include_str!("../../../README.md")]
    struct Workspace;
}
