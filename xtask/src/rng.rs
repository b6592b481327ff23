//! Seeded random numbers for the procedural scenes (ChaCha8: same scene on every machine).

use glam::{DMat3, DQuat, DVec3};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A seeded generator with the geometric samplers the scenes need.
pub(crate) struct SceneRng(ChaCha8Rng);

impl SceneRng {
    /// A generator from a seed.
    pub(crate) fn new(seed: u64) -> Self {
        Self(ChaCha8Rng::seed_from_u64(seed))
    }

    /// Uniform in `[lo, hi)`.
    pub(crate) fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        self.0.random_range(lo..hi)
    }

    /// A uniformly distributed unit vector.
    pub(crate) fn unit_vector(&mut self) -> DVec3 {
        let z = self.uniform(-1.0, 1.0);
        let phi = self.uniform(0.0, std::f64::consts::TAU);
        let r = (1.0 - z * z).sqrt();
        DVec3::new(r * phi.cos(), r * phi.sin(), z)
    }

    /// A point uniformly distributed in the ball of radius `r`.
    pub(crate) fn in_ball(&mut self, r: f64) -> DVec3 {
        self.unit_vector() * r * self.uniform(0.0, 1.0).cbrt()
    }

    /// A rotation by an angle uniform in `[0, max_angle]` about a uniform axis.
    pub(crate) fn rotation(&mut self, max_angle: f64) -> DMat3 {
        let axis = self.unit_vector();
        let angle = self.uniform(0.0, max_angle);
        DMat3::from_quat(DQuat::from_axis_angle(axis, angle))
    }
}
