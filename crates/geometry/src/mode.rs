//! What a collision query computes: one [`Mode`] type shared by every query crate.

/// What a collision query computes — the same type and meanings in every crate of the
/// workspace (rigid pairs, articulated scenes, deforming scenes, worlds of rigid bodies).
///
/// - [`Toc`](Self::Toc): the first time of contact of the query (over all its pairs, with
///   temporal culling: a pair whose lower bound reaches the best time found so far is not
///   queried).
/// - [`All`](Self::All): the first time of contact of every pair that touches, each pair
///   with its own contact. A query of one pair (`ccd_ca_rigid::time_of_contact` and its
///   siblings) has one first contact, so there `All` answers exactly as `Toc`.
/// - [`Boolean`](Self::Boolean): only whether anything touches (motion-planning edge checks):
///   the query stops at the first contact that is certain; its time is a time of contact,
///   not necessarily the first.
///
/// With the `serde` feature a mode is written in snake case (`"toc"`, `"all"`, `"boolean"`:
/// the spelling of the command line's JSON and of the Python module); the capitalised
/// spelling (`"Toc"`, `"All"`, `"Boolean"`) is read too.
///
/// # Example
/// ```
/// use ccd_geometry::Mode;
///
/// // a planner only needs to know whether an edge is free
/// let planner = Mode::Boolean;
/// assert_ne!(planner, Mode::default());
/// assert_eq!(Mode::default(), Mode::Toc);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Mode {
    /// The first time of contact (CATCH, Sec. 3.3).
    #[default]
    #[cfg_attr(feature = "serde", serde(alias = "Toc"))]
    Toc,
    /// The first time of contact of every pair that touches (for one pair: as
    /// [`Toc`](Self::Toc)).
    #[cfg_attr(feature = "serde", serde(alias = "All"))]
    All,
    /// Only whether anything touches: returns as soon as contact within the tolerance is
    /// certain somewhere in the step, or the step is proven free. The reported time is then a
    /// time at which the features are within the tolerance, not necessarily the first.
    #[cfg_attr(feature = "serde", serde(alias = "Boolean"))]
    Boolean,
}
