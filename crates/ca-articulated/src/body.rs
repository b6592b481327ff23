//! Articulated bodies: a kinematic model, per-link geometry and a self-collision filter.

use std::sync::Arc;

use ccd_bvh::{BoundingVolume, BvhOptions, MeshBvh, Obb, Rss};
use ccd_ca_rigid::{Collider, RigidBody};
use ccd_geometry::TriMesh;
use ccd_kinematics::{ArticulatedModel, Joint, LinkId};
use ccd_taylor::CentredCorners;
use glam::DVec3;

use crate::ArticulatedError;

/// The geometry of one link: its mesh hierarchy (with the convex hull when it can be built)
/// and the corners of its oriented bounding box, all in the link frame.
#[derive(Clone, Debug)]
pub struct LinkShape {
    body: RigidBody,
    /// The same body as the door of the CA engine takes it ([`ccd_ca_rigid::cast`]).
    collider: Collider,
    corners: [DVec3; 8],
    centred: Option<CentredCorners>,
    /// Rounded boxes holding the mesh, for the second-level spatial culling: `[0]` the
    /// OBB, `[1]` the RSS of the mesh hierarchy's root, then the RSSs of the root's
    /// children when it has any (together they hold the mesh).
    pieces: Vec<Piece>,
}

/// A rounded box in a link frame: the points within `radius` of the box `[−half, half]` of
/// its own frame.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Piece {
    /// The box's axes in the link frame (columns, orthonormal up to rounding).
    pub(crate) axes: glam::DMat3,
    /// The box's centre in the link frame.
    pub(crate) centre: DVec3,
    /// Half extents of the box.
    pub(crate) half: DVec3,
    /// Radius around the box.
    pub(crate) radius: f64,
}

impl Piece {
    /// The piece of an oriented box (`rotation`'s columns are its axes) with centre `c` and
    /// half extents `h`, grown by `radius`.
    fn new(rotation: glam::DMat3, c: DVec3, h: DVec3, radius: f64) -> Self {
        Self {
            axes: rotation,
            centre: c,
            half: h,
            radius,
        }
    }

    /// The piece of an RSS (its rectangle as a flat box, its radius grown by a relative
    /// 1e-12 of its reach for the rounding of the centre).
    fn of_rss(r: &Rss) -> Self {
        let (l0, l1) = (0.5 * r.lengths[0], 0.5 * r.lengths[1]);
        let c = r.origin + r.rotation * DVec3::new(l0, l1, 0.0);
        let reach = c.abs().max_element() + l0 + l1 + r.radius;
        Self::new(
            r.rotation,
            c,
            DVec3::new(l0, l1, 0.0),
            r.radius + 1e-12 * reach,
        )
    }
}

impl LinkShape {
    fn new(mesh: Arc<MeshBvh<Rss>>) -> Self {
        let obb = Obb::fit_points(mesh.mesh().vertices());
        let mut corners = [DVec3::ZERO; 8];
        // inflate by a few ulps of the box's reach so the corners' hull holds every vertex
        let reach = obb.center.abs().max_element() + obb.half_extents.max_element();
        let h = obb.half_extents + DVec3::splat(16.0 * f64::EPSILON * reach);
        for (k, c) in corners.iter_mut().enumerate() {
            let s = DVec3::new(
                if k & 1 == 0 { -1.0 } else { 1.0 },
                if k & 2 == 0 { -1.0 } else { 1.0 },
                if k & 4 == 0 { -1.0 } else { 1.0 },
            );
            *c = obb.center + obb.rotation * (s * h);
        }
        let bvh = mesh.bvh();
        let mut pieces = vec![Piece::new(obb.rotation, obb.center, h, 0.0)];
        if let Some(root) = bvh.root() {
            pieces.push(Piece::of_rss(root.bv()));
            if let Some([l, r]) = root.children() {
                pieces.push(Piece::of_rss(bvh.node(l).bv()));
                pieces.push(Piece::of_rss(bvh.node(r).bv()));
            }
        }
        // a body with its convex hull when the hull exists (flat or degenerate meshes have
        // none: their pairs skip the hull lower bound)
        let body = RigidBody::with_hull(Arc::clone(&mesh)).unwrap_or_else(|_| RigidBody::new(mesh));
        Self {
            collider: Collider::Mesh(body.clone()),
            body,
            centred: CentredCorners::new(&corners),
            corners,
            pieces,
        }
    }

    /// The link's mesh and hierarchy as a [`RigidBody`] (the link frame is its local frame).
    #[inline]
    #[must_use]
    pub fn body(&self) -> &RigidBody {
        &self.body
    }

    /// The link's body as a mesh [`Collider`] (with its hull when it has one).
    #[inline]
    #[must_use]
    pub fn collider(&self) -> &Collider {
        &self.collider
    }

    /// Corners of the link's oriented bounding box (link frame), slightly inflated: their
    /// convex hull contains the mesh.
    #[inline]
    #[must_use]
    pub fn obb_corners(&self) -> &[DVec3; 8] {
        &self.corners
    }

    /// [`LinkShape::obb_corners`] in centred form (`None` when not finite), for the
    /// coarse swept boxes.
    #[inline]
    pub(crate) fn centred(&self) -> Option<&CentredCorners> {
        self.centred.as_ref()
    }

    /// Rounded boxes that hold the mesh (up to the rounding of their frames' rotations):
    /// `[0]` the OBB of [`LinkShape::obb_corners`], `[1]` the RSS of the mesh hierarchy's
    /// root, `[2..]` the RSSs of the root's children (none when the root is a leaf).
    #[inline]
    pub(crate) fn pieces(&self) -> &[Piece] {
        &self.pieces
    }
}

/// An articulated body for CCD: an [`ArticulatedModel`], optional geometry per link
/// (links without geometry take part in the kinematics only) and a self-collision filter.
///
/// Self-collision pairs: every pair of links with geometry except
/// - adjacent links (parent and child), always — CATCH does not test them (Sec. 3.3);
/// - links rigidly attached to each other (every joint on the path between them is
///   [`Joint::Fixed`]): their distance cannot change under joint motion;
/// - pairs disabled by [`ArticulatedBody::disable_pair`] (e.g. SRDF `disable_collisions`).
///
/// # Example
/// ```
/// use ccd_ca_articulated::ArticulatedBody;
/// use ccd_kinematics::{ArticulatedModel, Joint, LinkId, LinkSpec};
/// use ccd_geometry::{glam::{DAffine3, DVec3}, TriMesh};
///
/// let hinge = Joint::Revolute { axis: DVec3::Z, limits: None };
/// let link = |name: &str, parent: Option<&str>| LinkSpec {
///     name: name.into(),
///     parent: parent.map(Into::into),
///     joint: hinge,
///     offset: DAffine3::from_translation(if parent.is_some() { DVec3::X } else { DVec3::ZERO }),
/// };
/// let model = ArticulatedModel::new(vec![link("a", None), link("b", Some("a")), link("c", Some("b"))])?;
/// let rod = TriMesh::new(
///     vec![DVec3::ZERO, DVec3::new(0.9, 0.0, 0.0), DVec3::new(0.0, 0.1, 0.0), DVec3::new(0.0, 0.0, 0.1)],
///     vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
/// )?;
/// let body = ArticulatedBody::from_meshes(model, vec![Some(rod.clone()), Some(rod.clone()), Some(rod)])?;
/// // only a–c is a self-collision pair (a–b and b–c are adjacent)
/// assert_eq!(body.self_pairs().collect::<Vec<_>>(), vec![(LinkId(0), LinkId(2))]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct ArticulatedBody {
    model: ArticulatedModel,
    links: Vec<Option<LinkShape>>,
    /// `excluded[i * n + j]` (symmetric): pair `(i, j)` is never tested.
    excluded: Vec<bool>,
}

impl ArticulatedBody {
    /// A body from a model and a shared mesh hierarchy per link (`None`: no geometry).
    ///
    /// # Errors
    /// [`ArticulatedError::LinkCount`] when `meshes.len()` differs from the model's links.
    ///
    /// # Example
    /// ```
    /// use std::sync::Arc;
    /// use ccd_ca_articulated::ArticulatedBody;
    /// use ccd_bvh::{BvhOptions, MeshBvh, Rss};
    /// use ccd_kinematics::{ArticulatedModel, Joint, LinkSpec};
    /// use ccd_geometry::{glam::{DAffine3, DVec3}, TriMesh};
    ///
    /// let model = ArticulatedModel::new(vec![LinkSpec { name: "base".into(), parent: None, joint: Joint::Fixed, offset: DAffine3::IDENTITY }])?;
    /// let tri = TriMesh::new(vec![DVec3::ZERO, DVec3::X, DVec3::Y], vec![[0, 1, 2]])?;
    /// let shared = Arc::new(MeshBvh::<Rss>::new(tri, &BvhOptions::default())?);
    /// let body = ArticulatedBody::new(model, vec![Some(shared)])?;
    /// assert!(body.link_shape(ccd_kinematics::LinkId(0)).is_some());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(
        model: ArticulatedModel,
        meshes: Vec<Option<Arc<MeshBvh<Rss>>>>,
    ) -> Result<Self, ArticulatedError> {
        let n = model.len();
        if meshes.len() != n {
            return Err(ArticulatedError::LinkCount {
                expected: n,
                got: meshes.len(),
            });
        }
        let links: Vec<Option<LinkShape>> = meshes
            .into_iter()
            .map(|m| {
                m.filter(|m| m.mesh().triangle_count() > 0)
                    .map(LinkShape::new)
            })
            .collect();
        Ok(Self::from_shapes(model, links))
    }

    /// A body from a model and its links' shapes (one per link), with the built-in
    /// self-collision filter (adjacent links, rigidly attached links).
    fn from_shapes(model: ArticulatedModel, links: Vec<Option<LinkShape>>) -> Self {
        let n = model.len();
        // rigid groups: links joined to their parent by a fixed joint share the parent's group
        let mut group = vec![0usize; n];
        for (i, l) in model.links().iter().enumerate() {
            group[i] = match (l.parent, l.joint) {
                (Some(p), Joint::Fixed) => group[p.index()],
                _ => i,
            };
        }
        let mut excluded = vec![false; n * n];
        for (i, l) in model.links().iter().enumerate() {
            excluded[i * n + i] = true;
            if let Some(p) = l.parent {
                excluded[i * n + p.index()] = true;
                excluded[p.index() * n + i] = true;
            }
            for j in 0..i {
                if group[i] == group[j] {
                    excluded[i * n + j] = true;
                    excluded[j * n + i] = true;
                }
            }
        }
        Self {
            model,
            links,
            excluded,
        }
    }

    /// This body with extra links rigidly attached (`Joint::Fixed`) to existing ones,
    /// e.g. objects grasped by a hand: `(name, parent link, offset in the parent's frame,
    /// mesh in the new link's frame)` each. The joint vector is unchanged (fixed joints
    /// take no values); link ids may change (the model keeps parents before children), so
    /// links are matched by name. Existing links keep their shapes (no hull rebuilt) and
    /// their self-collision filter; a new link is excluded with its parent and the links
    /// rigidly attached to it, as [`ArticulatedBody::new`] does.
    ///
    /// # Errors
    /// [`ArticulatedError::Kinematics`] for a duplicate or unknown link name or a non-rigid
    /// offset; [`ArticulatedError::LinkGeometry`] when a mesh has no triangles.
    ///
    /// # Example
    /// ```
    /// # use ccd_ca_articulated::ArticulatedBody;
    /// # use ccd_kinematics::{ArticulatedModel, Joint, LinkSpec};
    /// # use ccd_geometry::{glam::{DAffine3, DVec3}, TriMesh};
    /// # use ccd_bvh::{BvhOptions, MeshBvh, Rss};
    /// # use std::sync::Arc;
    /// # let hinge = Joint::Revolute { axis: DVec3::Z, limits: None };
    /// # let link = |name: &str, parent: Option<&str>| LinkSpec { name: name.into(), parent: parent.map(Into::into), joint: hinge, offset: DAffine3::from_translation(DVec3::X) };
    /// # let model = ArticulatedModel::new(vec![link("a", None), link("b", Some("a")), link("c", Some("b"))])?;
    /// # let tri = TriMesh::new(vec![DVec3::ZERO, DVec3::X, DVec3::Y], vec![[0, 1, 2]])?;
    /// let body = ArticulatedBody::from_meshes(model, vec![Some(tri.clone()), Some(tri.clone()), Some(tri.clone())])?;
    /// let part = Arc::new(MeshBvh::<Rss>::new(tri, &BvhOptions::default())?);
    /// let holding = body.with_fixed_links(vec![("part".into(), "c".into(), DAffine3::IDENTITY, part)])?;
    /// assert_eq!(holding.model().dof(), 3);
    /// let (a, part) = (holding.model().link_id("a").unwrap(), holding.model().link_id("part").unwrap());
    /// assert!(holding.is_self_pair(a, part)); // the grasped part may hit the first link
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_fixed_links(
        &self,
        extra: Vec<(String, String, glam::DAffine3, Arc<MeshBvh<Rss>>)>,
    ) -> Result<Self, ArticulatedError> {
        let old = self.model.links();
        let mut specs: Vec<ccd_kinematics::LinkSpec> = old
            .iter()
            .map(|l| ccd_kinematics::LinkSpec {
                name: l.name.clone(),
                parent: l.parent.map(|p| old[p.index()].name.clone()),
                joint: l.joint,
                offset: l.offset,
            })
            .collect();
        let mut meshes = Vec::with_capacity(extra.len());
        for (name, parent, offset, mesh) in extra {
            if mesh.mesh().triangle_count() == 0 {
                return Err(ArticulatedError::LinkGeometry {
                    link: name,
                    reason: "the mesh has no triangles".into(),
                });
            }
            specs.push(ccd_kinematics::LinkSpec {
                name: name.clone(),
                parent: Some(parent),
                joint: Joint::Fixed,
                offset,
            });
            meshes.push((name, mesh));
        }
        let model = ArticulatedModel::new(specs)?;
        let id = |name: &str| {
            model
                .link_id(name)
                .ok_or_else(|| ArticulatedError::LinkGeometry {
                    link: name.into(),
                    reason: "not in the rebuilt model".into(),
                })
        };
        let mut shapes: Vec<Option<LinkShape>> = vec![None; model.len()];
        let mut new_id = Vec::with_capacity(old.len());
        for (l, shape) in old.iter().zip(&self.links) {
            let i = id(&l.name)?;
            shapes[i.index()].clone_from(shape);
            new_id.push(i.index());
        }
        for (name, mesh) in meshes {
            shapes[id(&name)?.index()] = Some(LinkShape::new(mesh));
        }
        let mut body = Self::from_shapes(model, shapes);
        let (n_old, n) = (old.len(), body.model.len());
        for i in 0..n_old {
            for j in 0..n_old {
                if self.excluded[i * n_old + j] {
                    body.excluded[new_id[i] * n + new_id[j]] = true;
                }
            }
        }
        Ok(body)
    }

    /// Includes the pair `(a, b)` in self-collision tests again, whatever excluded it
    /// (an SRDF entry, [`ArticulatedBody::disable_pair`], even adjacency: the caller's
    /// override; a link is never paired with itself). Links without geometry stay out.
    ///
    /// # Errors
    /// [`ArticulatedError::UnknownLink`] for a link index outside the model.
    ///
    /// # Example
    /// ```
    /// # use ccd_ca_articulated::ArticulatedBody;
    /// # use ccd_kinematics::{ArticulatedModel, Joint, LinkId, LinkSpec};
    /// # use ccd_geometry::{glam::{DAffine3, DVec3}, TriMesh};
    /// # let hinge = Joint::Revolute { axis: DVec3::Z, limits: None };
    /// # let link = |name: &str, parent: Option<&str>| LinkSpec { name: name.into(), parent: parent.map(Into::into), joint: hinge, offset: DAffine3::from_translation(DVec3::X) };
    /// # let model = ArticulatedModel::new(vec![link("a", None), link("b", Some("a")), link("c", Some("b"))])?;
    /// # let tri = TriMesh::new(vec![DVec3::ZERO, DVec3::X, DVec3::Y], vec![[0, 1, 2]])?;
    /// let mut body = ArticulatedBody::from_meshes(model, vec![Some(tri.clone()), Some(tri.clone()), Some(tri)])?;
    /// body.disable_pair(LinkId(0), LinkId(2))?;
    /// body.enable_pair(LinkId(2), LinkId(0))?;
    /// assert!(body.is_self_pair(LinkId(0), LinkId(2)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn enable_pair(&mut self, a: LinkId, b: LinkId) -> Result<(), ArticulatedError> {
        let n = self.model.len();
        for l in [a, b] {
            if l.index() >= n {
                return Err(ArticulatedError::UnknownLink {
                    link: l.0,
                    count: n,
                });
            }
        }
        if a != b {
            self.excluded[a.index() * n + b.index()] = false;
            self.excluded[b.index() * n + a.index()] = false;
        }
        Ok(())
    }

    /// A body from a model and one mesh per link (`None`: no geometry), building each
    /// mesh's RSS hierarchy.
    ///
    /// # Errors
    /// [`ArticulatedError::LinkCount`]; [`ArticulatedError::LinkGeometry`] when a hierarchy
    /// cannot be built.
    ///
    /// # Example
    /// See [`ArticulatedBody`].
    pub fn from_meshes(
        model: ArticulatedModel,
        meshes: Vec<Option<TriMesh>>,
    ) -> Result<Self, ArticulatedError> {
        if meshes.len() != model.len() {
            return Err(ArticulatedError::LinkCount {
                expected: model.len(),
                got: meshes.len(),
            });
        }
        let mut shared = Vec::with_capacity(meshes.len());
        for (l, m) in model.links().iter().zip(meshes) {
            shared.push(match m {
                Some(m) if m.triangle_count() > 0 => Some(Arc::new(
                    MeshBvh::<Rss>::new(m, &BvhOptions::default()).map_err(|e| {
                        ArticulatedError::LinkGeometry {
                            link: l.name.clone(),
                            reason: e.to_string(),
                        }
                    })?,
                )),
                _ => None,
            });
        }
        Self::new(model, shared)
    }

    /// Excludes the pair `(a, b)` from self-collision tests (e.g. an SRDF
    /// `disable_collisions` entry).
    ///
    /// # Errors
    /// [`ArticulatedError::UnknownLink`] for a link index outside the model.
    ///
    /// # Example
    /// ```
    /// # use ccd_ca_articulated::ArticulatedBody;
    /// # use ccd_kinematics::{ArticulatedModel, Joint, LinkId, LinkSpec};
    /// # use ccd_geometry::{glam::{DAffine3, DVec3}, TriMesh};
    /// # let hinge = Joint::Revolute { axis: DVec3::Z, limits: None };
    /// # let link = |name: &str, parent: Option<&str>| LinkSpec { name: name.into(), parent: parent.map(Into::into), joint: hinge, offset: DAffine3::from_translation(DVec3::X) };
    /// # let model = ArticulatedModel::new(vec![link("a", None), link("b", Some("a")), link("c", Some("b"))])?;
    /// # let tri = TriMesh::new(vec![DVec3::ZERO, DVec3::X, DVec3::Y], vec![[0, 1, 2]])?;
    /// let mut body = ArticulatedBody::from_meshes(model, vec![Some(tri.clone()), Some(tri.clone()), Some(tri)])?;
    /// body.disable_pair(LinkId(2), LinkId(0))?;
    /// assert_eq!(body.self_pairs().count(), 0);
    /// assert!(body.disable_pair(LinkId(0), LinkId(7)).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn disable_pair(&mut self, a: LinkId, b: LinkId) -> Result<(), ArticulatedError> {
        let n = self.model.len();
        for l in [a, b] {
            if l.index() >= n {
                return Err(ArticulatedError::UnknownLink {
                    link: l.0,
                    count: n,
                });
            }
        }
        self.excluded[a.index() * n + b.index()] = true;
        self.excluded[b.index() * n + a.index()] = true;
        Ok(())
    }

    /// Excludes every pair of `pairs` ([`ArticulatedBody::disable_pair`] for each), e.g.
    #[cfg_attr(
        feature = "urdf",
        doc = "the set [`ccd_kinematics::urdf::read_srdf_disabled_pairs`] returns."
    )]
    #[cfg_attr(
        not(feature = "urdf"),
        doc = "the set `ccd_kinematics::urdf::read_srdf_disabled_pairs` returns (feature `urdf`)."
    )]
    ///
    /// # Errors
    /// [`ArticulatedError::UnknownLink`] for a link index outside the model.
    ///
    /// # Example
    /// ```
    /// # use ccd_ca_articulated::ArticulatedBody;
    /// # use ccd_kinematics::{ArticulatedModel, Joint, LinkId, LinkSpec};
    /// # use ccd_geometry::{glam::{DAffine3, DVec3}, TriMesh};
    /// # let hinge = Joint::Revolute { axis: DVec3::Z, limits: None };
    /// # let link = |name: &str, parent: Option<&str>| LinkSpec { name: name.into(), parent: parent.map(Into::into), joint: hinge, offset: DAffine3::from_translation(DVec3::X) };
    /// # let model = ArticulatedModel::new(vec![link("a", None), link("b", Some("a")), link("c", Some("b"))])?;
    /// # let tri = TriMesh::new(vec![DVec3::ZERO, DVec3::X, DVec3::Y], vec![[0, 1, 2]])?;
    /// let mut body = ArticulatedBody::from_meshes(model, vec![Some(tri.clone()), Some(tri.clone()), Some(tri)])?;
    /// body.disable_pairs([(LinkId(0), LinkId(2))])?;
    /// assert!(!body.is_self_pair(LinkId(0), LinkId(2)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn disable_pairs(
        &mut self,
        pairs: impl IntoIterator<Item = (LinkId, LinkId)>,
    ) -> Result<(), ArticulatedError> {
        for (a, b) in pairs {
            self.disable_pair(a, b)?;
        }
        Ok(())
    }

    /// The kinematic model.
    #[inline]
    #[must_use]
    pub fn model(&self) -> &ArticulatedModel {
        &self.model
    }

    /// The geometry of link `id`, `None` when it has none.
    #[inline]
    #[must_use]
    pub fn link_shape(&self, id: LinkId) -> Option<&LinkShape> {
        self.links.get(id.index()).and_then(Option::as_ref)
    }

    /// Whether the link pair is tested for self-collision (both have geometry and the pair
    /// is not filtered).
    #[must_use]
    pub fn is_self_pair(&self, a: LinkId, b: LinkId) -> bool {
        let n = self.model.len();
        a.index() < n
            && b.index() < n
            && !self.excluded[a.index() * n + b.index()]
            && self.links[a.index()].is_some()
            && self.links[b.index()].is_some()
    }

    /// The self-collision pairs `(a, b)` with `a < b`.
    pub fn self_pairs(&self) -> impl Iterator<Item = (LinkId, LinkId)> + '_ {
        let n = self.model.len() as u32;
        (0..n).flat_map(move |i| {
            (i + 1..n)
                .map(move |j| (LinkId(i), LinkId(j)))
                .filter(|&(a, b)| self.is_self_pair(a, b))
        })
    }

    /// Links with geometry.
    pub(crate) fn shapes(&self) -> impl Iterator<Item = (LinkId, &LinkShape)> + '_ {
        self.links
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.as_ref().map(|s| (LinkId(i as u32), s)))
    }
}
