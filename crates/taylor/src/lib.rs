//! Rigorous enclosures of functions of time: outward-rounded interval arithmetic and
//! order-3 Taylor models, and vectors, matrices and rigid transforms built from them.
//!
//! - [`Interval`]: closed intervals whose every operation rounds outward, so enclosures
//!   hold in floating point.
//! - [`TaylorModel`]: a cubic polynomial in `t − m` plus an interval remainder over a
//!   time domain (CATCH, Sec. 5.1), with exact `sin/cos(ωt + φ)` remainders.
//! - [`Enclosure`]: the trait both implement, so motion code is written once.
//! - [`Vec3`], [`Mat3`], [`Transform`]: enclosures of points, rotations and rigid
//!   transforms; [`Transform::from_motion`] encloses a [`ConstantVelocity`] motion
//!   (Avatar, Eq. 6–10), [`Transform::compose`] chains links (CATCH, Eq. 1), and
//!   [`Vec3::aabb`] bounds a trajectory by a box (CATCH, Sec. 5.2).
//!
//! Conventions: time is normalized to `t ∈ [0, 1]` per step; domains are sub-intervals of
//! it. Column vectors; `Transform` maps local points to the parent/world frame.
//!
//! # Example
//! ```
//! use ccd_taylor::{ConstantVelocity, Interval, TaylorModel, Transform};
//! use ccd_taylor::glam::{DMat3, DVec3};
//!
//! let dom = Interval::UNIT;
//! let m = ConstantVelocity::new(DMat3::IDENTITY, DVec3::ZERO, DVec3::Y, 0.8, DVec3::new(0.0, 0.0, 0.1))?;
//! let taylor: Transform<TaylorModel> = Transform::from_motion(&m, dom);
//! let interval: Transform<Interval> = Transform::from_motion(&m, dom);
//! let p = DVec3::new(1.0, 0.0, 0.0);
//! let (bt, bi) = (taylor.apply(p).aabb(), interval.apply(p).aabb());
//! // the Taylor box is much tighter along z (interval arithmetic adds up sin and t separately)
//! assert!(bt.extents().z < 0.8 * bi.extents().z);
//! for k in 0..=10 {
//!     let t = f64::from(k) / 10.0;
//!     assert!(bt.contains_point(m.pose_at(t).transform_point3(p)));
//! }
//! # Ok::<(), ccd_taylor::TaylorError>(())
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod enclosure;
mod error;
mod interval;
mod model;
mod motion;
mod transform;

pub use ccd_geometry::Aabb;
pub use enclosure::Enclosure;
pub use error::TaylorError;
pub use glam;
pub use interval::Interval;
pub use model::TaylorModel;
pub use motion::ConstantVelocity;
pub use transform::{CentredCorners, Mat3, Transform, Vec3};
