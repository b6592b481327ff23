//! Running queries: [`Runner`] turns a [`Query`] into a [`QueryAnswer`], loading each mesh
//! or robot file once and sharing it between queries (and threads).

use std::collections::HashMap;
use std::hash::Hash;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use ccd::bvh::{BvhOptions, MeshBvh, Rss};
use ccd::ca_articulated::{self, ArticulatedBody, BodyStep, Part, QueryOptions};
use ccd::ca_rigid::{
    CaOptions, CastOptions, CastWorkspace, Collider, RigidBody, RigidPair, ShapeContact, cast,
};
use ccd::geometry::Mode;
use ccd::geometry::TriMesh;
use ccd::geometry::glam::DVec3;
use ccd::kinematics::RigidMotion;
use ccd::kinematics::urdf::{UrdfOptions, UrdfRobot};
use ccd::la_deformable::scene::{DeformingScene, SceneOptions, SeparationOptions};
use ccd::la_deformable::{DeformingMesh, LaOptions, PrimitiveToc};

use crate::error::QueryError;
use crate::schema::{
    ArticulatedContact, ArticulatedQuery, ArticulatedResult, FramesQuery, FramesResult, MeshSource,
    Outcome, PoseSpec, PrimitiveContact, PrimitiveQuery, PrimitiveResult, Query, QueryAnswer,
    ResultRecord, RigidQuery, RigidResult,
};

/// At most this many files are kept loaded; beyond, further files are read per query.
pub const MAX_CACHED_FILES: usize = 4096;

pub use crate::limits::MAX_ITERATIONS;

fn check_iterations(max_iterations: Option<u32>) -> Result<(), QueryError> {
    match max_iterations {
        Some(n) if n > MAX_ITERATIONS => Err(QueryError::TooManyIterations(n)),
        _ => Ok(()),
    }
}

/// A loaded mesh file: the mesh, and its rigid body (RSS hierarchy) built on first use.
#[derive(Debug)]
struct LoadedMesh {
    mesh: TriMesh,
    body: OnceLock<Result<RigidBody, String>>,
}

/// A loaded robot: the body with its link hierarchies and the URDF (link names).
#[derive(Debug)]
struct LoadedRobot {
    body: Arc<ArticulatedBody>,
    robot: UrdfRobot,
}

/// A cache of loaded files: each key is loaded once, concurrent callers wait for the first.
/// Errors are cached too (as messages), so a missing file is reported per query but tried
/// once.
#[derive(Debug)]
struct Cache<K, V> {
    map: Mutex<HashMap<K, Slot<V>>>,
}

/// A cache entry: loaded once (or its error message), shared by the callers.
type Slot<V> = Arc<OnceLock<Result<Arc<V>, String>>>;

impl<K: Eq + Hash, V> Cache<K, V> {
    fn new() -> Self {
        Self {
            map: Mutex::new(HashMap::new()),
        }
    }

    fn get(&self, key: K, load: impl FnOnce() -> Result<V, String>) -> Result<Arc<V>, String> {
        let cell = {
            let mut map = self.map.lock().unwrap_or_else(PoisonError::into_inner);
            if map.len() >= MAX_CACHED_FILES && !map.contains_key(&key) {
                drop(map);
                return load().map(Arc::new);
            }
            Arc::clone(map.entry(key).or_default())
        };
        cell.get_or_init(|| load().map(Arc::new)).clone()
    }

    fn len(&self) -> usize {
        self.map
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}

/// Runs queries; holds the cache of files loaded so far. Share one `Runner` between the
/// threads of a batch (`&Runner` is `Sync`).
///
/// # Example
/// ```
/// use ccd_cli::run::Runner;
/// use ccd_cli::schema::Outcome;
///
/// // paths in queries are resolved against the folder given here
/// let runner = Runner::new(std::env::temp_dir());
/// let line = br#"{"kind": "rigid", "a": "no-such-file.obj", "b": "no-such-file.obj", "id": 3}"#;
/// let record = runner.process_line(line, 1);
/// assert_eq!(record.id, Some(serde_json::json!(3)));
/// assert!(matches!(record.outcome, Outcome::Error(_)));
/// ```
#[derive(Debug)]
pub struct Runner {
    base: PathBuf,
    allow_paths: bool,
    parallel_scene: bool,
    meshes: Cache<PathBuf, LoadedMesh>,
    robots: Cache<(PathBuf, Option<PathBuf>), LoadedRobot>,
    /// One prepared scene per (URDF, SRDF, environment file): the robot's body and the
    /// environment prepared once ([`ca_articulated::PreparedEnvironment`]), shared by every
    /// line (and thread) that queries them.
    scenes: Cache<(PathBuf, Option<PathBuf>, PathBuf), ca_articulated::ArticulatedScene>,
}

impl Runner {
    /// A runner resolving relative file paths against `base` (a batch file's folder).
    pub fn new(base: impl Into<PathBuf>) -> Self {
        Self {
            base: base.into(),
            allow_paths: true,
            parallel_scene: false,
            meshes: Cache::new(),
            robots: Cache::new(),
            scenes: Cache::new(),
        }
    }

    /// The same runner refusing file paths (inline meshes only; for untrusted input such
    /// as fuzzing): a path gives [`QueryError::PathsDisabled`].
    #[must_use]
    pub fn without_files(mut self) -> Self {
        self.allow_paths = false;
        self
    }

    /// The same runner with the deformable scene query running on all threads of the
    /// current rayon pool (for one large `frames` query; a batch parallelises over
    /// queries instead).
    #[must_use]
    pub fn with_parallel_scene(mut self, parallel: bool) -> Self {
        self.parallel_scene = parallel;
        self
    }

    /// How many distinct mesh and robot files have been loaded (or tried).
    pub fn cached_files(&self) -> usize {
        self.meshes.len() + self.robots.len()
    }

    /// How many prepared articulated scenes (one per URDF, SRDF and environment file) the
    /// runner holds: `articulated` lines with the same robot and environment file share one.
    ///
    /// # Example
    /// ```
    /// use ccd_cli::run::Runner;
    /// assert_eq!(Runner::new(std::env::temp_dir()).cached_scenes(), 0);
    /// ```
    pub fn cached_scenes(&self) -> usize {
        self.scenes.len()
    }

    /// Parses one batch line and runs it; never panics: every failure is an error record
    /// (a panic inside the library is caught and reported as `"internal"`).
    pub fn process_line(&self, bytes: &[u8], line: u64) -> ResultRecord {
        let query = match serde_json::from_slice::<Query>(bytes) {
            Ok(q) => q,
            Err(e) => {
                return ResultRecord {
                    line: Some(line),
                    id: id_of_unparsed(bytes),
                    outcome: Outcome::Error(QueryError::Parse(e.to_string()).to_info()),
                };
            }
        };
        let id = query.id().cloned();
        let outcome = match self.run_caught(&query) {
            Ok(result) => Outcome::Ok(result),
            Err(e) => Outcome::Error(e.to_info()),
        };
        ResultRecord {
            line: Some(line),
            id,
            outcome,
        }
    }

    /// [`run`](Self::run), with a panic reported as [`QueryError::Internal`].
    ///
    /// # Errors
    /// As [`run`](Self::run).
    pub fn run_caught(&self, query: &Query) -> Result<QueryAnswer, QueryError> {
        catch_unwind(AssertUnwindSafe(|| self.run(query))).unwrap_or_else(|payload| {
            let message = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "panic".to_owned());
            Err(QueryError::Internal(message))
        })
    }

    /// Runs one query.
    ///
    /// # Errors
    /// [`QueryError::File`] when a file cannot be read or parsed, [`QueryError::Pose`],
    /// [`QueryError::FrameMismatch`], [`QueryError::PathsDisabled`], and the library's own
    /// errors ([`QueryError::Ccd`]) for input outside its domain.
    pub fn run(&self, query: &Query) -> Result<QueryAnswer, QueryError> {
        match query {
            Query::Rigid(q) => self.rigid(q).map(QueryAnswer::Rigid),
            Query::VertexFace(q) => {
                primitive(q, ccd::la_deformable::vertex_face).map(QueryAnswer::VertexFace)
            }
            Query::EdgeEdge(q) => {
                primitive(q, ccd::la_deformable::edge_edge).map(QueryAnswer::EdgeEdge)
            }
            Query::Frames(q) => self.frames(q).map(QueryAnswer::Frames),
            Query::Articulated(q) => self.articulated(q).map(QueryAnswer::Articulated),
        }
    }

    fn resolve(&self, path: &Path) -> Result<PathBuf, QueryError> {
        if !self.allow_paths {
            return Err(QueryError::PathsDisabled);
        }
        Ok(self.base.join(path))
    }

    fn load_mesh(&self, path: &Path) -> Result<Arc<LoadedMesh>, QueryError> {
        let path = self.resolve(path)?;
        self.meshes
            .get(path.clone(), || {
                let mesh = ccd::geometry::io::read_mesh(&path).map_err(|e| {
                    // name the file unless the reader's message already does
                    let (message, name) = (e.to_string(), path.display().to_string());
                    if message.contains(&name) {
                        message
                    } else {
                        format!("{name}: {message}")
                    }
                })?;
                Ok(LoadedMesh {
                    mesh,
                    body: OnceLock::new(),
                })
            })
            .map_err(|message| QueryError::File { path, message })
    }

    /// The rigid body of a mesh source (built once per file).
    fn body(&self, source: &MeshSource) -> Result<RigidBody, QueryError> {
        match source {
            MeshSource::Inline(mesh) => Ok(RigidBody::new(Arc::new(bvh(mesh.clone())?))),
            MeshSource::Path(path) => {
                let loaded = self.load_mesh(path)?;
                loaded
                    .body
                    .get_or_init(|| {
                        bvh(loaded.mesh.clone())
                            .map(|t| RigidBody::new(Arc::new(t)))
                            .map_err(|e| e.to_string())
                    })
                    .clone()
                    .map_err(|message| {
                        let path = self.base.join(path);
                        QueryError::File {
                            message: format!("{}: {message}", path.display()),
                            path,
                        }
                    })
            }
        }
    }

    fn with_mesh<T>(
        &self,
        source: &MeshSource,
        f: impl FnOnce(&TriMesh) -> Result<T, QueryError>,
    ) -> Result<T, QueryError> {
        match source {
            MeshSource::Inline(mesh) => f(mesh),
            MeshSource::Path(path) => f(&self.load_mesh(path)?.mesh),
        }
    }

    fn rigid(&self, q: &RigidQuery) -> Result<RigidResult, QueryError> {
        let pose = |p: &PoseSpec, field| {
            p.to_affine()
                .map_err(|reason| QueryError::Pose { field, reason })
        };
        let a0 = pose(&q.a_start, "a_start")?;
        let a1 = q.a_end.as_ref().map_or(Ok(a0), |p| pose(p, "a_end"))?;
        let b0 = pose(&q.b_start, "b_start")?;
        let b1 = q.b_end.as_ref().map_or(Ok(b0), |p| pose(p, "b_end"))?;
        let ma = RigidMotion::between(a0, a1).map_err(ccd::Error::from)?;
        let mb = RigidMotion::between(b0, b1).map_err(ccd::Error::from)?;
        check_iterations(q.max_iterations)?;
        let defaults = CaOptions::default();
        let options = defaults
            .with_tolerance(q.tolerance.unwrap_or(defaults.tolerance))
            .with_max_iterations(q.max_iterations.unwrap_or(defaults.max_iterations))
            .with_mode(q.mode.unwrap_or(defaults.mode));
        let a = self.body(&q.a)?;
        let b = self.body(&q.b)?;
        let (a, b) = (Collider::Mesh(a), Collider::Mesh(b));
        let pair = RigidPair { a: &ma, b: &mb };
        let options = CastOptions::from(options);
        let contact = cast(&a, &b, &pair, &options, &mut CastWorkspace::default())
            .map_err(ccd::Error::from)?
            .contact
            .map(ShapeContact::into_contact);
        Ok(RigidResult {
            toc: contact.map(|c| c.toc),
            contact,
        })
    }

    fn frames(&self, q: &FramesQuery) -> Result<FramesResult, QueryError> {
        let mesh = self.with_mesh(&q.f0, |m0| {
            self.with_mesh(&q.f1, |m1| {
                same_topology(m0, m1)?;
                DeformingMesh::new(
                    m0.triangles().to_vec(),
                    m0.vertices().to_vec(),
                    m1.vertices().to_vec(),
                )
                .map_err(|e| QueryError::Ccd(e.into()))
            })
        })?;
        let mut options = SceneOptions::default().with_parallel(self.parallel_scene);
        if let Some(tolerance) = q.tolerance {
            options = options.with_tolerance(tolerance);
        }
        if let Some(self_collision) = q.self_collision {
            options = options.with_self_collision(self_collision);
        }
        if let Some(resting) = q.resting {
            options = options.with_resting(resting);
        }
        let scene = DeformingScene::new(vec![mesh], &options).map_err(ccd::Error::from)?;
        let step = match &q.separation {
            Some(rule) => {
                let mut opts = SeparationOptions::default();
                if let Some(d) = rule.min_distance {
                    opts = opts.with_min_distance(d);
                }
                if let Some(s) = rule.scale {
                    opts = opts.with_scale(s);
                }
                Some(scene.separation_step(&opts).map_err(ccd::Error::from)?)
            }
            None => None,
        };
        let result = scene.query(if q.all { Mode::All } else { Mode::Toc });
        Ok(FramesResult {
            toc: result.toc(),
            contacts: result.contacts,
            resting: result.resting,
            stepsize: step.as_ref().map(|s| s.step),
            limiting: step.and_then(|s| s.limiting),
            stats: result.stats,
        })
    }

    fn articulated(&self, q: &ArticulatedQuery) -> Result<ArticulatedResult, QueryError> {
        let urdf = self.resolve(&q.urdf)?;
        let srdf = q.srdf.as_deref().map(|p| self.resolve(p)).transpose()?;
        let loaded = self
            .robots
            .get((urdf.clone(), srdf.clone()), || {
                let (body, robot) =
                    ArticulatedBody::from_urdf(&urdf, srdf.as_deref(), &UrdfOptions::default())
                        .map_err(|e| {
                            // the loader's messages mostly name the file already: once
                            let (path, message) = (urdf.display().to_string(), e.to_string());
                            if message.contains(&path) {
                                message
                            } else {
                                format!("{path}: {message}")
                            }
                        })?;
                Ok(LoadedRobot {
                    body: Arc::new(body),
                    robot,
                })
            })
            .map_err(|message| QueryError::File {
                path: urdf.clone(),
                message,
            })?;
        let assemble = |environment: Arc<MeshBvh<Rss>>| {
            let mut scene = ca_articulated::ArticulatedScene::new();
            scene.add_articulated(Arc::clone(&loaded.body));
            scene.set_prepared_environment(Arc::new(ca_articulated::PreparedEnvironment::new(
                environment,
            )));
            scene
        };
        // a file environment: one prepared scene per (robot, environment) for every line;
        // an inline one is prepared for its line
        let scene = match &q.environment {
            MeshSource::Inline(mesh) => Arc::new(assemble(Arc::new(bvh(mesh.clone())?))),
            MeshSource::Path(path) => {
                let environment = Arc::clone(self.body(&q.environment)?.shared());
                let key = (urdf.clone(), srdf.clone(), self.resolve(path)?);
                self.scenes
                    .get(key, || Ok(assemble(environment)))
                    .map_err(|message| QueryError::File {
                        path: urdf.clone(),
                        message,
                    })?
            }
        };
        let defaults = QueryOptions::default();
        let options = defaults
            .with_tolerance(q.tolerance.unwrap_or(defaults.tolerance))
            // the record holds one contact: "all" answers as "toc"
            .with_mode(match q.mode.unwrap_or_default() {
                Mode::Toc | Mode::All => Mode::Toc,
                Mode::Boolean => Mode::Boolean,
            });
        let step = BodyStep::Joints {
            q0: &q.q0,
            q1: &q.q1,
        };
        let result = scene.query(&[step], &options).map_err(ccd::Error::from)?;
        let name = |part: Part| match part {
            Part::Link { link, .. } => loaded
                .robot
                .model
                .links()
                .get(link.index())
                .map(|l| l.name.clone()),
            Part::Rigid(_) | Part::Environment => None,
        };
        let contact = result.first().map(|c| ArticulatedContact {
            link_a: name(c.a).unwrap_or_default(),
            link_b: name(c.b),
            contact: c.contact,
        });
        Ok(ArticulatedResult {
            toc: contact.as_ref().map(|c| c.contact.toc),
            contact,
        })
    }
}

/// The RSS hierarchy of a mesh, with the default build options.
fn bvh(mesh: TriMesh) -> Result<MeshBvh<Rss>, QueryError> {
    MeshBvh::new(mesh, &BvhOptions::default()).map_err(|e| QueryError::Ccd(e.into()))
}

fn same_topology(m0: &TriMesh, m1: &TriMesh) -> Result<(), QueryError> {
    let (v0, t0, v1, t1) = (
        m0.vertex_count(),
        m0.triangle_count(),
        m1.vertex_count(),
        m1.triangle_count(),
    );
    let differing = m0
        .triangles()
        .iter()
        .zip(m1.triangles())
        .position(|(a, b)| a != b);
    if v0 == v1 && t0 == t1 && differing.is_none() {
        return Ok(());
    }
    Err(QueryError::FrameMismatch {
        v0,
        t0,
        v1,
        t1,
        detail: differing.map_or_else(String::new, |i| format!(", triangle {i} differs")),
    })
}

type Kernel = fn(
    &[DVec3; 4],
    &[DVec3; 4],
    &LaOptions,
) -> Result<Option<PrimitiveToc>, ccd::la_deformable::LaError>;

fn primitive(q: &PrimitiveQuery, kernel: Kernel) -> Result<PrimitiveResult, QueryError> {
    check_iterations(q.max_iterations)?;
    let points = |x: &[[f64; 3]; 4]| x.map(DVec3::from_array);
    let mut options = LaOptions::default();
    if let Some(tolerance) = q.tolerance {
        options = options.with_tolerance(tolerance);
    }
    if let Some(max_iterations) = q.max_iterations {
        options = options.with_max_iterations(max_iterations);
    }
    let hit = kernel(&points(&q.x0), &points(&q.x1), &options).map_err(ccd::Error::from)?;
    let contact = hit.map(|h| PrimitiveContact {
        toc: h.toc,
        distance: h.distance,
        iterations: h.iterations,
        status: h.status,
        point_a: h.closest.point_a,
        point_b: h.closest.point_b,
        normal: h.normal,
        feature_a: h.closest.feature_a,
        feature_b: h.closest.feature_b,
    });
    Ok(PrimitiveResult {
        toc: contact.map(|c| c.toc),
        contact,
    })
}

/// The `"id"` of a line that did not parse as a query, when it is at least a JSON object
/// with one (so that error records can be matched to their input).
fn id_of_unparsed(bytes: &[u8]) -> Option<serde_json::Value> {
    match serde_json::from_slice::<serde_json::Value>(bytes) {
        Ok(serde_json::Value::Object(mut map)) => map.remove("id"),
        _ => None,
    }
}
