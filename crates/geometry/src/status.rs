//! How a collision query ended: one [`Status`] type shared by every query crate.

/// How a time-of-contact query ended — the same type and meanings in every crate of the
/// workspace (rigid and articulated conservative advancement, deformable local advancement,
/// avatar capsule advancement).
///
/// Every status comes with a conservative time of contact: a converged `toc` is the first time
/// the features come within the tolerance `ε` (possibly early by the time it takes to close
/// `ε`, never late); the other statuses give a `toc` that is a lower bound of the time of
/// contact (nothing touches before it), so a caller that stops there misses nothing.
///
/// With the `serde` feature a status is written in snake case (`"converged"`,
/// `"out_of_iterations"`, `"initially_touching"`, `"stalled"`: the spelling of the command
/// line's JSON and of the Python module); the capitalised spelling (`"Converged"`, …) is read
/// too.
///
/// # Example
/// ```
/// use ccd_geometry::Status;
///
/// // only Converged and InitiallyTouching are certain contacts within the tolerance
/// let certain = |s: Status| matches!(s, Status::Converged | Status::InitiallyTouching);
/// assert!(certain(Status::Converged) && !certain(Status::OutOfIterations));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Status {
    /// The distance fell to the tolerance: `toc` is the time of contact (within `ε`).
    #[cfg_attr(feature = "serde", serde(alias = "Converged"))]
    Converged,
    /// The iteration cap was hit before convergence: `toc` is a conservative lower bound of
    /// the time of contact (separated on `[0, toc)`), and contact may or may not happen later
    /// in the step; the contact is reported so that nothing is missed.
    #[cfg_attr(feature = "serde", serde(alias = "OutOfIterations"))]
    OutOfIterations,
    /// The features are within the tolerance at `t = 0` (`toc = 0`).
    #[cfg_attr(feature = "serde", serde(alias = "InitiallyTouching"))]
    InitiallyTouching,
    /// The advancement stopped making progress: the certified step is below the resolution of
    /// `t` (or not positive), which happens when the tolerance is below what `f64` resolves
    /// at the query's coordinate scale (about `1e-12` of it) and the features come that
    /// close. As with [`OutOfIterations`](Self::OutOfIterations), `toc` is a conservative
    /// lower bound with the distance above `ε` there. Reported instead of spinning to the
    /// iteration cap (rigid and articulated conservative advancement).
    #[cfg_attr(feature = "serde", serde(alias = "Stalled"))]
    Stalled,
}
