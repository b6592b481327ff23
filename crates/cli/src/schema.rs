//! The JSON schema of queries and results: plain serde types, one JSON object per query.
//!
//! A batch file is JSON Lines: one [`Query`] object per line, selected by its `"kind"`
//! (`"rigid"`, `"vertex_face"`, `"edge_edge"`, `"frames"`, `"articulated"`). Each line gives
//! one [`ResultRecord`]: the line number, the query's `id` when it had one, and either
//! `"ok"` (a [`QueryAnswer`]) or `"error"` (an [`ErrorInfo`]).
//!
//! Conventions (the same as the library's, see the `ccd` facade):
//! - time is normalised to `t ∈ [0, 1]`; `"toc": null` means no contact in the step;
//! - points are `[x, y, z]` arrays; a [`PoseSpec`] is `[x, y, z, qw, qx, qy, qz]` (translation,
//!   then a unit quaternion) or a 4×4 matrix written as 4 rows (`[[r00, r01, r02, tx], …,
//!   [0, 0, 0, 1]]`), mapping the mesh's local frame to the world;
//! - a mesh ([`MeshSource`]) is a path to an OBJ, STL or PLY file (relative paths are resolved
//!   against the batch file's folder) or an inline `{"vertices": [[x, y, z], …], "triangles":
//!   [[i, j, k], …]}` (the serde form of `ccd::geometry::TriMesh`);
//! - tolerances are absolute distances; when absent they take the library defaults (`1e-3`
//!   for rigid and articulated queries, `1e-6` for deformable and elementary ones);
//! - one vocabulary with the Python module: statuses are snake case (`"converged"`,
//!   `"initially_touching"`, `"out_of_iterations"`, `"stalled"`), modes `"toc"` /
//!   `"boolean"` (`"all"`, the third shared mode, answers as `"toc"` here), resting `"contact"` / `"separate"`, and a feature is an array of its kind
//!   and indices, `["vertex", 3]`, `["edge", 1, 2]`, `["face", 0]` (Python's feature tuples);
//!   the capitalised spellings (`"Converged"`, `"Toc"`, `"Separate"`) and the externally
//!   tagged feature (`{"Vertex": 3}`, …) are read too;
//! - the JSON Schema of queries and result records is `docs/schema/ccd-cli.schema.json` in the
//!   repository (tested against the output);
//! - unknown fields are errors (a misspelt `"tolerence"` is reported, not ignored).
//!
//! # Examples
//! A rigid query (two tetrahedra, the second sliding through the first) and its result:
//! ```
//! use ccd_cli::schema::{Query, QueryAnswer};
//! use ccd_cli::run::Runner;
//!
//! let tet = r#"{"vertices": [[0,0,0],[1,0,0],[0,1,0],[0,0,1]],
//!              "triangles": [[0,2,1],[0,1,3],[0,3,2],[1,2,3]]}"#;
//! let line = format!(r#"{{"kind": "rigid", "id": "slide", "a": {tet}, "b": {tet},
//!     "b_start": [3, 0, 0, 1, 0, 0, 0], "b_end": [-1, 0, 0, 1, 0, 0, 0]}}"#);
//! let query: Query = serde_json::from_str(&line)?;
//! let result = Runner::new(".").run(&query)?;
//! let toc = result.toc().expect("they collide");
//! assert!(toc > 0.4 && toc <= 0.5); // the faces x = 1 and x = 0 + 3 - 4t meet at t = 0.5
//! let QueryAnswer::Rigid(rigid) = &result else { unreachable!() };
//! assert_eq!(rigid.contact.as_ref().map(|c| c.status), Some(ccd::ca_rigid::Status::Converged));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//! Elementary vertex–face and edge–edge queries take the four points at `t = 0` (`x0`) and
//! at `t = 1` (`x1`): the vertex then the face's three corners, or the two points of edge
//! `a` then those of edge `b`:
//! ```
//! use ccd_cli::schema::Query;
//! use ccd_cli::run::Runner;
//!
//! let vf = r#"{"kind": "vertex_face",
//!   "x0": [[0.2, 0.2, 1], [0, 0, 0], [1, 0, 0], [0, 1, 0]],
//!   "x1": [[0.2, 0.2, -1], [0, 0, 0], [1, 0, 0], [0, 1, 0]]}"#;
//! let ee = r#"{"kind": "edge_edge", "tolerance": 1e-8,
//!   "x0": [[-1, 0, 0], [1, 0, 0], [0, -1, 1], [0, 1, 1]],
//!   "x1": [[-1, 0, 0], [1, 0, 0], [0, -1, 3], [0, 1, 3]]}"#;
//! let runner = Runner::new(".");
//! let hit = runner.run(&serde_json::from_str::<Query>(vf)?)?;
//! assert!(hit.toc().is_some_and(|t| t <= 0.5 && t > 0.5 - 1e-6));
//! let miss = runner.run(&serde_json::from_str::<Query>(ee)?)?; // the edge moves away
//! assert_eq!(miss.toc(), None);
//! assert!(serde_json::to_string(&miss)?.contains(r#""toc":null"#));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//! A deforming mesh between two frames (same triangles, new vertex positions), with every
//! colliding feature pair:
//! ```
//! use ccd_cli::schema::{Query, QueryAnswer};
//! use ccd_cli::run::Runner;
//!
//! // two triangles, the upper one falling through the lower one
//! let f0 = r#"{"vertices": [[0,0,0],[1,0,0],[0,1,0],[0.1,0.1,1],[1.1,0.1,1],[0.1,1.1,1]],
//!             "triangles": [[0,1,2],[3,4,5]]}"#;
//! let f1 = r#"{"vertices": [[0,0,0],[1,0,0],[0,1,0],[0.1,0.1,-1],[1.1,0.1,-1],[0.1,1.1,-1]],
//!             "triangles": [[0,1,2],[3,4,5]]}"#;
//! let line = format!(r#"{{"kind": "frames", "f0": {f0}, "f1": {f1}, "all": true}}"#);
//! let result = Runner::new(".").run(&serde_json::from_str::<Query>(&line)?)?;
//! let QueryAnswer::Frames(frames) = &result else { unreachable!() };
//! assert!(frames.toc.is_some_and(|t| t <= 0.5 && t > 0.5 - 1e-5));
//! assert!(frames.contacts.len() > 1); // --all: every colliding vertex–face / edge–edge pair
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//! A batch line that is not a query gives an error record with its line number, and the run
//! goes on:
//! ```
//! use ccd_cli::run::Runner;
//! use ccd_cli::schema::{ErrorKind, Outcome};
//!
//! let record = Runner::new(".").process_line(br#"{"kind": "rigid", "a": "#, 7);
//! assert_eq!(record.line, Some(7));
//! let Outcome::Error(error) = &record.outcome else { unreachable!() };
//! assert_eq!(error.kind, ErrorKind::Parse);
//! let text = serde_json::to_string(&record)?;
//! assert!(text.starts_with(r#"{"line":7,"error":{"kind":"parse","message":"#));
//! # Ok::<(), serde_json::Error>(())
//! ```

use std::path::PathBuf;

use ccd::ca_rigid::Contact;
use ccd::geometry::Mode;
use ccd::geometry::glam::{DAffine3, DMat3, DQuat, DVec3};
use ccd::geometry::{Feature, TriMesh};
use ccd::la_deformable::scene::{Resting, SeparationPair};
use ccd::la_deformable::{SceneContact, SceneStats, Status as LaStatus};
use serde::{Deserialize, Serialize};

use crate::error::{PoseError, QueryError};

/// A user-chosen identifier echoed in the result (any JSON value: a number, a string, …).
pub type QueryId = serde_json::Value;

/// Where a mesh comes from: a file path (OBJ, STL or PLY by extension) or the mesh inline.
///
/// In a batch, meshes given by path are read once and shared by every query naming the
/// same path; relative paths are resolved against the batch file's folder.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(
    untagged,
    expecting = "a mesh: a file path (string) or {\"vertices\": [[x, y, z], ...], \"triangles\": [[i, j, k], ...]}"
)]
pub enum MeshSource {
    /// A mesh file: `"meshes/bunny.obj"`.
    Path(PathBuf),
    /// An inline mesh: `{"vertices": [[x, y, z], …], "triangles": [[i, j, k], …]}`,
    /// validated like `TriMesh::new` (finite vertices, indices in range).
    Inline(TriMesh),
}

/// A rigid pose (local frame → world), as written in JSON.
///
/// ```
/// use ccd_cli::schema::PoseSpec;
/// use ccd::geometry::glam::DVec3;
///
/// // 2 along x, turned a quarter about z; the same pose as a 4×4 matrix (rows)
/// let tq: PoseSpec = "2,0,0,0.7071068,0,0,0.7071068".parse()?;
/// let m: PoseSpec = "[[0,-1,0,2],[1,0,0,0],[0,0,1,0],[0,0,0,1]]".parse()?;
/// let (a, b) = (tq.to_affine()?, m.to_affine()?);
/// assert!(a.transform_point3(DVec3::X).distance(DVec3::new(2.0, 1.0, 0.0)) < 1e-6);
/// assert!(b.transform_point3(DVec3::X).distance(DVec3::new(2.0, 1.0, 0.0)) < 1e-12);
/// assert!("1,2,3".parse::<PoseSpec>().is_err());
/// # Ok::<(), ccd_cli::error::PoseError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(
    untagged,
    expecting = "a pose: [x, y, z, qw, qx, qy, qz] (translation, then the unit quaternion scalar first) or a 4x4 matrix as 4 rows"
)]
pub enum PoseSpec {
    /// `[x, y, z, qw, qx, qy, qz]`: the translation, then the rotation as a quaternion
    /// (scalar first). The quaternion is normalised when its norm is within `1e-3` of 1
    /// (rounded decimal input); farther from 1 it is an error.
    TranslationQuaternion([f64; 7]),
    /// A 4×4 homogeneous matrix as 4 rows: the upper-left 3×3 block must be a rotation
    /// (checked by the motion to within `1e-6`), the last row `[0, 0, 0, 1]`.
    Matrix([[f64; 4]; 4]),
}

impl Default for PoseSpec {
    /// The identity pose.
    fn default() -> Self {
        Self::TranslationQuaternion([0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0])
    }
}

impl PoseSpec {
    /// The identity pose.
    pub const IDENTITY: Self = Self::TranslationQuaternion([0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]);

    /// The pose as an affine map (local → world).
    ///
    /// # Errors
    /// [`PoseError::NotFinite`], [`PoseError::Quaternion`] (norm not within `1e-3` of 1) or
    /// [`PoseError::LastRow`] (a matrix whose last row is not `[0, 0, 0, 1]`). Whether a
    /// matrix block is a rotation is checked by the motion built from it.
    pub fn to_affine(&self) -> Result<DAffine3, PoseError> {
        match *self {
            Self::TranslationQuaternion(v) => {
                if v.iter().any(|x| !x.is_finite()) {
                    return Err(PoseError::NotFinite);
                }
                let q = DQuat::from_xyzw(v[4], v[5], v[6], v[3]);
                let norm = q.length();
                if !(norm.is_finite() && (norm - 1.0).abs() <= 1e-3) {
                    return Err(PoseError::Quaternion(norm));
                }
                Ok(DAffine3::from_rotation_translation(
                    q / norm,
                    DVec3::new(v[0], v[1], v[2]),
                ))
            }
            Self::Matrix(m) => {
                if m.iter().flatten().any(|x| !x.is_finite()) {
                    return Err(PoseError::NotFinite);
                }
                if m[3] != [0.0, 0.0, 0.0, 1.0] {
                    return Err(PoseError::LastRow(m[3]));
                }
                let col = |j: usize| DVec3::new(m[0][j], m[1][j], m[2][j]);
                Ok(DAffine3::from_mat3_translation(
                    DMat3::from_cols(col(0), col(1), col(2)),
                    col(3),
                ))
            }
        }
    }
}

impl std::str::FromStr for PoseSpec {
    type Err = PoseError;

    /// Parses `x,y,z,qw,qx,qy,qz` (7 comma-separated numbers; spaces allowed) or JSON text
    /// (`[x, y, z, qw, qx, qy, qz]` or a 4×4 array of rows).
    fn from_str(text: &str) -> Result<Self, PoseError> {
        let text = text.trim();
        if text.starts_with('[') {
            return serde_json::from_str(text).map_err(|e| PoseError::Syntax(e.to_string()));
        }
        let parts: Vec<&str> = text.split(',').map(str::trim).collect();
        if parts.len() != 7 {
            return Err(PoseError::Syntax(format!(
                "expected 7 comma-separated numbers x,y,z,qw,qx,qy,qz or a JSON 4x4 array, got {} values",
                parts.len()
            )));
        }
        let mut v = [0.0; 7];
        for (slot, part) in v.iter_mut().zip(&parts) {
            *slot = part
                .parse()
                .map_err(|_| PoseError::Syntax(format!("{part:?} is not a number")))?;
        }
        Ok(Self::TranslationQuaternion(v))
    }
}

/// One query: a JSON object whose `"kind"` selects the variant.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
// (a query is parsed once and run; boxing the variants would only cost its users)
#[allow(clippy::large_enum_variant)]
pub enum Query {
    /// `"rigid"`: first time of contact between two rigid meshes, each moving between two
    /// poses (conservative advancement, `ccd::ca_rigid::time_of_contact`).
    Rigid(RigidQuery),
    /// `"vertex_face"`: one vertex against one triangle, all four points moving linearly
    /// (`ccd::la_deformable::vertex_face`).
    VertexFace(PrimitiveQuery),
    /// `"edge_edge"`: two edges, their four points moving linearly
    /// (`ccd::la_deformable::edge_edge`).
    EdgeEdge(PrimitiveQuery),
    /// `"frames"`: a deforming mesh between two frames (the same triangles, vertices moving
    /// linearly): global time of contact, or every colliding feature pair
    /// (`ccd::la_deformable::scene::DeformingScene`, self-collision included).
    Frames(FramesQuery),
    /// `"articulated"`: a robot (URDF, optional SRDF) moving in joint space from `q0` to
    /// `q1` against a static environment mesh, self-collision included
    /// (`ccd::ca_articulated::ArticulatedScene`).
    Articulated(ArticulatedQuery),
}

impl Query {
    /// The query's `id`, when it has one.
    pub fn id(&self) -> Option<&QueryId> {
        match self {
            Self::Rigid(q) => q.id.as_ref(),
            Self::VertexFace(q) | Self::EdgeEdge(q) => q.id.as_ref(),
            Self::Frames(q) => q.id.as_ref(),
            Self::Articulated(q) => q.id.as_ref(),
        }
    }
}

/// `"kind": "rigid"`: two meshes with start and end poses.
///
/// Each body moves from its start pose (`t = 0`) to its end pose (`t = 1`) with constant
/// linear and angular velocity about its local origin. Poses default to the identity; an
/// absent end pose equals the start pose (the body stands still).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RigidQuery {
    /// Echoed in the result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<QueryId>,
    /// Mesh of body A (its local frame).
    pub a: MeshSource,
    /// Mesh of body B (its local frame).
    pub b: MeshSource,
    /// Pose of A at `t = 0` (default: identity).
    #[serde(default)]
    pub a_start: PoseSpec,
    /// Pose of A at `t = 1` (default: `a_start`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub a_end: Option<PoseSpec>,
    /// Pose of B at `t = 0` (default: identity).
    #[serde(default)]
    pub b_start: PoseSpec,
    /// Pose of B at `t = 1` (default: `b_start`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub b_end: Option<PoseSpec>,
    /// Absolute distance tolerance (default `1e-3`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<f64>,
    /// Cap on CA iterations (default 1000); hitting it is the status `"out_of_iterations"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_iterations: Option<u32>,
    /// `"toc"` (default: the first contact) or `"boolean"` (only whether the path is free;
    /// any contact found is returned, not necessarily the first); `"all"` answers as `"toc"`
    /// (one pair has one first contact).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<Mode>,
}

/// `"kind": "vertex_face"` or `"edge_edge"`: four points at `t = 0` and at `t = 1`.
///
/// Vertex–face: the vertex, then the face's three corners. Edge–edge: edge `a`'s two
/// points, then edge `b`'s.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PrimitiveQuery {
    /// Echoed in the result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<QueryId>,
    /// The four points at `t = 0`.
    pub x0: [[f64; 3]; 4],
    /// The four points at `t = 1`.
    pub x1: [[f64; 3]; 4],
    /// Absolute distance tolerance (default `1e-6`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<f64>,
    /// Cap on LA iterations (default: the library's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_iterations: Option<u32>,
}

/// `"kind": "frames"`: one mesh at two frames.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FramesQuery {
    /// Echoed in the result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<QueryId>,
    /// The mesh at `t = 0`.
    pub f0: MeshSource,
    /// The mesh at `t = 1`: the same triangles, new vertex positions.
    pub f1: MeshSource,
    /// `true`: every colliding vertex–face and edge–edge pair with its own time of
    /// contact; `false` (default): the first contact only.
    #[serde(default)]
    pub all: bool,
    /// Absolute distance tolerance (default `1e-6`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<f64>,
    /// Test the mesh against itself (default `true`; adjacent features are never paired).
    /// `false` is an error: the frames hold one mesh, so nothing would be tested.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub self_collision: Option<bool>,
    /// `"contact"` (default): pairs within the tolerance at `t = 0` are contacts at `0`;
    /// `"separate"`: they are listed in the result's `resting` and are contacts only once
    /// they come within half their initial distance (the library's `Resting`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resting: Option<Resting>,
    /// Also compute the separation-preserving step size with this rule (the result's
    /// `stepsize`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub separation: Option<SeparationRule>,
}

/// The rule of a separation-preserving step: every vertex–face and edge–edge pair keeps a
/// distance `≥ max(min_distance, scale · d₀)` over `[0, stepsize]` (the library's
/// `SeparationOptions`; a pair already closer than `min_distance` keeps `scale · d₀`).
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeparationRule {
    /// `δ_min ≥ 0` (default `0`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_distance: Option<f64>,
    /// `s ∈ (0, 1)` (default `0.2`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<f64>,
}

/// `"kind": "articulated"`: a URDF robot's joint-space edge against an environment.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArticulatedQuery {
    /// Echoed in the result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<QueryId>,
    /// The URDF file (its meshes are confined to its folder, as the library's loader does).
    pub urdf: PathBuf,
    /// An SRDF whose `disable_collisions` pairs are skipped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub srdf: Option<PathBuf>,
    /// The static environment (world frame).
    pub environment: MeshSource,
    /// Joint values at `t = 0`, one per movable joint in URDF order.
    pub q0: Vec<f64>,
    /// Joint values at `t = 1`.
    pub q1: Vec<f64>,
    /// Absolute distance tolerance (default `1e-3`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<f64>,
    /// `"toc"` (default) or `"boolean"` (stop at the first contact found); `"all"` answers
    /// as `"toc"` (the record holds the first contact).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<Mode>,
}

/// The answer to one query, tagged with the query's `"kind"`.
///
/// Every variant has a `toc` field: the time of contact, `null` when nothing touches in
/// `[0, 1]`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum QueryAnswer {
    /// Answer to [`Query::Rigid`].
    Rigid(RigidResult),
    /// Answer to [`Query::VertexFace`].
    VertexFace(PrimitiveResult),
    /// Answer to [`Query::EdgeEdge`].
    EdgeEdge(PrimitiveResult),
    /// Answer to [`Query::Frames`].
    Frames(FramesResult),
    /// Answer to [`Query::Articulated`].
    Articulated(ArticulatedResult),
}

impl QueryAnswer {
    /// The time of contact, `None` when nothing touches in `[0, 1]`.
    pub fn toc(&self) -> Option<f64> {
        match self {
            Self::Rigid(r) => r.toc,
            Self::VertexFace(r) | Self::EdgeEdge(r) => r.toc,
            Self::Frames(r) => r.toc,
            Self::Articulated(r) => r.toc,
        }
    }
}

/// The answer to a rigid query: the library's `Contact` (time, world witness points and
/// normal at `toc`, features of each mesh, distance, status, counters).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RigidResult {
    /// Time of contact (`contact.toc`), `null` for no contact.
    pub toc: Option<f64>,
    /// The contact, `null` for no contact.
    pub contact: Option<Contact>,
}

/// The answer to a vertex–face or edge–edge query.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PrimitiveResult {
    /// Time of contact, `null` for no contact.
    pub toc: Option<f64>,
    /// The contact, `null` for no contact.
    pub contact: Option<PrimitiveContact>,
}

/// A vertex–face or edge–edge contact at `toc`.
///
/// Features are local to the query's four points: `["vertex", 0]` is the first point; for
/// vertex–face `a` is the vertex and `b` the face (`["vertex", 0..=2]`, `["edge", i, j]`,
/// `["face", 0]` of its corners), for edge–edge `["vertex", 0|1]` / `["edge", 0, 1]` of each
/// edge.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PrimitiveContact {
    /// Conservative time of contact.
    pub toc: f64,
    /// Distance between the features at `toc`.
    pub distance: f64,
    /// LA iterations taken.
    pub iterations: u32,
    /// How the query ended.
    pub status: LaStatus,
    /// Witness point on feature `a` at `toc`.
    pub point_a: DVec3,
    /// Witness point on feature `b` at `toc`.
    pub point_b: DVec3,
    /// Unit normal from `a` to `b` (zero when undefined).
    pub normal: DVec3,
    /// Witness feature of `a`.
    pub feature_a: Feature,
    /// Witness feature of `b`.
    pub feature_b: Feature,
}

/// The answer to a frames query: the library's `SceneContact`s (mesh 0 is the only mesh;
/// features index its vertices and triangles) and its counters.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[non_exhaustive]
pub struct FramesResult {
    /// The earliest time of contact, `null` when nothing collides.
    pub toc: Option<f64>,
    /// First contact (at most one), or with `all` every colliding pair sorted by `toc`.
    pub contacts: Vec<SceneContact>,
    /// With `"resting": "separate"`: the pairs within the tolerance at `t = 0`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resting: Vec<SceneContact>,
    /// With `separation`: the separation-preserving step size in `[0, 1]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stepsize: Option<f64>,
    /// With `separation`: the pair that limits the step (`null` when nothing limits it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limiting: Option<SeparationPair>,
    /// Counters of the scene query.
    pub stats: SceneStats,
}

/// The answer to an articulated query.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ArticulatedResult {
    /// The earliest time of contact, `null` when the edge is collision-free.
    pub toc: Option<f64>,
    /// The first contact, `null` when the edge is free.
    pub contact: Option<ArticulatedContact>,
}

/// The first contact of an articulated query: which parts touch, and the library's
/// `Contact` (features index the meshes of those parts: a link's collision mesh, or the
/// environment).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ArticulatedContact {
    /// The robot link that touches (URDF name).
    pub link_a: String,
    /// What it touches: another link's name, or `null` for the environment.
    pub link_b: Option<String>,
    /// Time, world witness points and normal, features, distance, status, counters.
    pub contact: Contact,
}

/// One line of batch output.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ResultRecord {
    /// 1-based line number in the input (`null` outside a batch).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    /// The query's `id`, when it had one (and the line parsed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<QueryId>,
    /// `"ok": {…}` or `"error": {…}`.
    #[serde(flatten)]
    pub outcome: Outcome,
}

/// The result of a query, or why there is none.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The query ran.
    Ok(QueryAnswer),
    /// The line could not be parsed, its input was invalid, or a file could not be read.
    Error(ErrorInfo),
}

/// An error record: a machine-readable kind and a message for people.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ErrorInfo {
    /// What went wrong.
    pub kind: ErrorKind,
    /// What and where, in words.
    pub message: String,
}

/// Classes of errors in records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ErrorKind {
    /// Not JSON, not a query object, an unknown kind or field, a wrong type, a line too long.
    Parse,
    /// A mesh or URDF file could not be read or parsed.
    File,
    /// Parsed, but invalid: a bad pose, non-finite or out-of-domain coordinates, bad options,
    /// frames with different triangles.
    Input,
    /// A bug: the query panicked (reported instead of stopping the run).
    Internal,
}

/// The record view of a query's error (kept beside the record types, so that `error` does
/// not depend on them).
impl QueryError {
    /// The class of this error in a record.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::Parse(_) | Self::LineTooLong { .. } => ErrorKind::Parse,
            Self::File { .. } => ErrorKind::File,
            Self::Pose { .. }
            | Self::FrameMismatch { .. }
            | Self::PathsDisabled
            | Self::TooManyIterations(_)
            | Self::Ccd(_) => ErrorKind::Input,
            Self::Internal(_) => ErrorKind::Internal,
        }
    }

    /// The error as a record's `"error"` object.
    pub fn to_info(&self) -> ErrorInfo {
        ErrorInfo {
            kind: self.kind(),
            message: self.to_string(),
        }
    }
}
