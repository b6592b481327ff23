//! The umbrella error type: every crate's error converts into [`Error`], so `?` works across
//! crates in user code.

/// Any error of the `ccd` crates.
///
/// Each variant wraps one crate's error unchanged (its message is shown as is, and
/// [`std::error::Error::source`] reaches the same causes), and `From` converts each of them,
/// so a function returning `Result<_, ccd::Error>` can use `?` on every query.
///
/// # Example
/// ```
/// use ccd::prelude::*;
///
/// fn build() -> Result<TriMesh, ccd::Error> {
///     // a triangle that refers to a vertex that does not exist: a GeometryError
///     Ok(TriMesh::new(vec![DVec3::ZERO, DVec3::X, DVec3::Y], vec![[0, 1, 3]])?)
/// }
/// assert!(matches!(build(), Err(ccd::Error::Geometry(_))));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A mesh, box or mesh file was rejected ([`ccd_geometry`]).
    #[error(transparent)]
    Geometry(#[from] ccd_geometry::GeometryError),
    /// An interval, Taylor model or motion parameter was rejected ([`ccd_taylor`]).
    #[error(transparent)]
    Taylor(#[from] ccd_taylor::TaylorError),
    /// A bounding-volume hierarchy could not be built or refitted ([`ccd_bvh`]).
    #[error(transparent)]
    Bvh(#[from] ccd_bvh::BvhError),
    /// A GJK query was rejected ([`ccd_distance`]).
    #[error(transparent)]
    Gjk(#[from] ccd_distance::GjkError),
    /// A convex hull could not be built ([`ccd_distance`]).
    #[error(transparent)]
    Hull(#[from] ccd_distance::HullError),
    /// An analytic shape (ball, capsule, cuboid, cylinder) has invalid parameters
    /// ([`ccd_distance`]).
    #[error(transparent)]
    Shape(#[from] ccd_distance::ShapeError),
    /// A mesh distance query was rejected ([`ccd_distance`]).
    #[error(transparent)]
    MeshDistance(#[from] ccd_distance::MeshDistanceError),
    /// A motion, articulated model or URDF file was rejected ([`ccd_kinematics`]).
    #[error(transparent)]
    Kinematics(#[from] ccd_kinematics::KinematicsError),
    /// A rigid conservative-advancement query was rejected ([`ccd_ca_rigid`]).
    #[error(transparent)]
    Rigid(#[from] ccd_ca_rigid::CaError),
    /// An articulated body, scene or query was rejected ([`ccd_ca_articulated`]).
    #[error(transparent)]
    Articulated(#[from] ccd_ca_articulated::ArticulatedError),
    /// A planning scene's input was rejected ([`ccd_ca_articulated::planning`]).
    #[error(transparent)]
    Planning(#[from] ccd_ca_articulated::planning::PlanningError),
    /// A deformable (local advancement) mesh, option or query was rejected
    /// ([`ccd_la_deformable`]).
    #[error(transparent)]
    Deformable(#[from] ccd_la_deformable::LaError),
    /// An avatar, environment, pose or step option was rejected ([`ccd_avatar_sv`]).
    #[error(transparent)]
    Avatar(#[from] ccd_avatar_sv::AvatarError),
    /// A world body, motion or step was rejected ([`ccd_world`]).
    #[error(transparent)]
    World(#[from] ccd_world::WorldError),
}

#[cfg(test)]
mod tests {
    use super::Error;
    use ccd_geometry::glam::{DAffine3, DVec3};

    /// `?` converts each crate's error; the message and the variant are kept.
    #[test]
    fn question_mark_wraps_each_crate_error() {
        fn geometry() -> Result<(), Error> {
            ccd_geometry::TriMesh::new(vec![DVec3::ZERO], vec![[0, 1, 2]])?;
            Ok(())
        }
        fn kinematics() -> Result<(), Error> {
            let mut bad = DAffine3::IDENTITY;
            bad.translation.x = f64::NAN;
            ccd_kinematics::RigidMotion::stationary(bad)?;
            Ok(())
        }
        fn deformable() -> Result<(), Error> {
            let p = vec![DVec3::ZERO, DVec3::X, DVec3::Y];
            ccd_la_deformable::DeformingMesh::new(vec![[0, 1, 2]], p, vec![DVec3::ZERO])?;
            Ok(())
        }
        fn rigid() -> Result<(), Error> {
            let body = ccd_ca_rigid::RigidBody::new(std::sync::Arc::new(ccd_bvh::MeshBvh::<
                ccd_bvh::Rss,
            >::new(
                ccd_geometry::TriMesh::new(vec![DVec3::ZERO, DVec3::X, DVec3::Y], vec![[0, 1, 2]])?,
                &ccd_bvh::BvhOptions::default(),
            )?));
            let still = ccd_kinematics::RigidMotion::stationary(DAffine3::IDENTITY)?;
            let options = ccd_ca_rigid::CaOptions::default().with_tolerance(-1.0);
            ccd_ca_rigid::time_of_contact(&body, &still, &body, &still, &options)?;
            Ok(())
        }
        fn taylor() -> Result<(), Error> {
            ccd_taylor::Interval::new(-4.0, -1.0).sqrt()?;
            Ok(())
        }
        let g = geometry().unwrap_err();
        assert!(matches!(g, Error::Geometry(_)), "{g:?}");
        assert!(matches!(kinematics().unwrap_err(), Error::Kinematics(_)));
        let d = deformable().unwrap_err();
        assert!(matches!(d, Error::Deformable(_)), "{d:?}");
        assert_eq!(
            d.to_string(),
            "vertex count mismatch: 3 vertices at t = 0, 1 at t = 1"
        );
        assert!(matches!(rigid().unwrap_err(), Error::Rigid(_)));
        assert!(matches!(taylor().unwrap_err(), Error::Taylor(_)));
    }
}
