//! A seeded splitmix64 stream (Steele, Lea and Flood, "Fast splittable pseudorandom number
//! generators", OOPSLA 2014) and the draws the tests and benches build their cases from.
//!
//! Every draw is a fixed function of the seed and of the draws before it, so a case is
//! named by its seed and replays bit for bit on every machine. Where two helpers give the
//! same distribution with different roundings ([`SplitMix64::cube`] and
//! [`SplitMix64::cube_range`]) both are kept: the fixtures that use them pin their cases
//! by the exact stream.

use ccd_geometry::glam::{DAffine3, DQuat, DVec3};

/// The splitmix64 increment (the golden ratio in 64-bit fixed point).
pub const GOLDEN_GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// Cap on the rejection loop of [`SplitMix64::direction`] (each round is accepted with
/// probability about 0.52).
pub const DIRECTION_ROUNDS: u32 = 1000;

/// The splitmix64 output function of a state.
#[inline]
const fn mix(state: u64) -> u64 {
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The top 53 bits of `bits` as an `f64` in `[0, 1)`.
#[inline]
fn to_unit(bits: u64) -> f64 {
    (bits >> 11) as f64 / (1u64 << 53) as f64
}

/// A counter-based draw in `[-1, 1)`: `2 u - 1` for `u` the `[0, 1)` value of splitmix64 at
/// the state `seed + index · GOLDEN_GAMMA`.
///
/// For `index ≥ 1` this is draw number `index` of the [`signed`](SplitMix64::signed) stream
/// of [`SplitMix64::new`]`(seed)`, so indexed noise and streamed noise agree.
///
/// # Example
/// ```
/// use ccd_test_support::{SplitMix64, noise};
///
/// let mut s = SplitMix64::new(7);
/// assert_eq!(noise(7, 1), s.signed());
/// assert_eq!(noise(7, 2), s.signed());
/// assert!((-1.0..1.0).contains(&noise(7, 0)));
/// ```
#[must_use]
pub fn noise(seed: u64, index: u64) -> f64 {
    2.0 * to_unit(mix(seed.wrapping_add(index.wrapping_mul(GOLDEN_GAMMA)))) - 1.0
}

/// A splitmix64 stream: 64 random bits a step, from a 64-bit seed (any seed, zero included).
///
/// # Example
/// ```
/// use ccd_test_support::SplitMix64;
///
/// let (mut a, mut b) = (SplitMix64::new(42), SplitMix64::new(42));
/// assert_eq!(a.next_u64(), b.next_u64());
/// let u = a.unit();
/// assert!((0.0..1.0).contains(&u));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// The stream of `seed`.
    ///
    /// # Example
    /// ```
    /// let mut s = ccd_test_support::SplitMix64::new(0);
    /// assert_eq!(s.next_u64(), 0xE220_A839_7B1D_CDAF);
    /// ```
    #[must_use]
    pub const fn new(seed: u64) -> Self {
        Self { state: seed }
    }

    /// The next 64 random bits.
    ///
    /// # Example
    /// ```
    /// let mut s = ccd_test_support::SplitMix64::new(1);
    /// assert_ne!(s.next_u64(), s.next_u64());
    /// ```
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GOLDEN_GAMMA);
        mix(self.state)
    }

    /// Uniform in `[0, 1)` (the top 53 bits of [`next_u64`](Self::next_u64)).
    ///
    /// # Example
    /// ```
    /// let mut s = ccd_test_support::SplitMix64::new(3);
    /// assert!((0..1000).map(|_| s.unit()).all(|u| (0.0..1.0).contains(&u)));
    /// ```
    #[inline]
    pub fn unit(&mut self) -> f64 {
        to_unit(self.next_u64())
    }

    /// Uniform in `[-1, 1)`, computed as `2 u - 1`.
    ///
    /// # Example
    /// ```
    /// use ccd_test_support::SplitMix64;
    ///
    /// let (mut a, mut b) = (SplitMix64::new(5), SplitMix64::new(5));
    /// assert_eq!(a.signed(), 2.0 * b.unit() - 1.0);
    /// ```
    #[inline]
    pub fn signed(&mut self) -> f64 {
        2.0 * self.unit() - 1.0
    }

    /// Uniform in `[lo, hi)`, computed as `lo + (hi - lo) u`.
    ///
    /// # Example
    /// ```
    /// let mut s = ccd_test_support::SplitMix64::new(9);
    /// let x = s.range(2.0, 3.0);
    /// assert!((2.0..3.0).contains(&x));
    /// ```
    #[inline]
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    /// Uniform in the cube `[-r, r)³`, each coordinate computed as `r (2 u - 1)` (x, y, z
    /// drawn in that order).
    ///
    /// # Example
    /// ```
    /// let mut s = ccd_test_support::SplitMix64::new(11);
    /// let p = s.cube(0.5);
    /// assert!(p.abs().max_element() <= 0.5);
    /// ```
    #[inline]
    pub fn cube(&mut self, r: f64) -> DVec3 {
        DVec3::new(self.signed(), self.signed(), self.signed()) * r
    }

    /// Uniform in the cube `[-r, r)³`, each coordinate computed as
    /// [`range(-r, r)`](Self::range): the distribution of [`cube`](Self::cube), rounded
    /// differently (the two agree bit for bit when `r` is a power of two).
    ///
    /// # Example
    /// ```
    /// use ccd_test_support::SplitMix64;
    ///
    /// let (mut a, mut b) = (SplitMix64::new(13), SplitMix64::new(13));
    /// assert_eq!(a.cube_range(1.0), b.cube(1.0));
    /// assert!(a.cube_range(0.3).abs().max_element() <= 0.3);
    /// ```
    #[inline]
    pub fn cube_range(&mut self, r: f64) -> DVec3 {
        DVec3::new(self.range(-r, r), self.range(-r, r), self.range(-r, r))
    }

    /// A uniformly distributed unit vector by rejection: [`cube(1)`](Self::cube) points
    /// with squared length in `(0.01, 1]`, normalised.
    ///
    /// Returns `None` when [`DIRECTION_ROUNDS`] draws in a row were rejected (a chance
    /// below `0.49^1000`).
    ///
    /// # Example
    /// ```
    /// let mut s = ccd_test_support::SplitMix64::new(17);
    /// let d = s.direction().expect("a direction");
    /// assert!((d.length() - 1.0).abs() < 1e-12);
    /// ```
    pub fn direction(&mut self) -> Option<DVec3> {
        (0..DIRECTION_ROUNDS).find_map(|_| {
            let p = self.cube(1.0);
            (p.length_squared() > 1e-2 && p.length_squared() <= 1.0).then(|| p.normalize())
        })
    }

    /// A uniformly distributed unit vector from two draws (Archimedes): `z = 2 u₁ - 1`, the
    /// azimuth `2π u₂`.
    ///
    /// # Example
    /// ```
    /// let mut s = ccd_test_support::SplitMix64::new(19);
    /// assert!((s.unit_vector().length() - 1.0).abs() < 1e-12);
    /// ```
    pub fn unit_vector(&mut self) -> DVec3 {
        let z = self.signed();
        let phi = std::f64::consts::TAU * self.unit();
        let r = (1.0 - z * z).sqrt();
        DVec3::new(r * phi.cos(), r * phi.sin(), z)
    }

    /// A random rotation: about the axis [`cube(1)`](Self::cube) (normalised; `z` if it is
    /// zero) by the angle `6 u` (radians, in `[0, 6)`).
    ///
    /// # Example
    /// ```
    /// let mut s = ccd_test_support::SplitMix64::new(23);
    /// assert!(s.rotation().is_normalized());
    /// ```
    pub fn rotation(&mut self) -> DQuat {
        let axis = self.cube(1.0).try_normalize().unwrap_or(DVec3::Z);
        DQuat::from_axis_angle(axis, 6.0 * self.unit())
    }

    /// A random rotation as a normalised quaternion whose `x, y, z, w` are drawn in
    /// `[-1, 1)` by [`range`](Self::range) (`w` shifted by `10⁻³` so that the four are
    /// never all zero). Not uniform over rotations.
    ///
    /// # Example
    /// ```
    /// let mut s = ccd_test_support::SplitMix64::new(29);
    /// assert!(s.quaternion().is_normalized());
    /// ```
    pub fn quaternion(&mut self) -> DQuat {
        DQuat::from_xyzw(
            self.range(-1.0, 1.0),
            self.range(-1.0, 1.0),
            self.range(-1.0, 1.0),
            self.range(-1.0, 1.0) + 1e-3,
        )
        .normalize()
    }

    /// A random pose: a [`rotation`](Self::rotation), then a translation in the cube
    /// `[-reach, reach)³` ([`cube_range`](Self::cube_range)).
    ///
    /// # Example
    /// ```
    /// let mut s = ccd_test_support::SplitMix64::new(31);
    /// let p = s.pose(2.0);
    /// assert!(p.translation.abs().max_element() <= 2.0);
    /// ```
    pub fn pose(&mut self, reach: f64) -> DAffine3 {
        let q = self.rotation();
        DAffine3::from_rotation_translation(q, self.cube_range(reach))
    }
}

/// Marsaglia's xorshift64 (shifts 13, 7, 17; "Xorshift RNGs", J. Stat. Softw. 8(14), 2003):
/// the stream of the sampled checks of the articulated and deformable scenes, kept beside
/// [`SplitMix64`] because their cases are pinned on it.
///
/// Xorshift never leaves the all-zero state, so a zero seed is taken as 1.
///
/// # Example
/// ```
/// use ccd_test_support::XorShift64;
///
/// let mut x = XorShift64::new(1);
/// assert_eq!(x.next_u64(), 0x4082_2041);
/// assert_eq!(XorShift64::new(0), XorShift64::new(1));
/// assert!((0.0..1.0).contains(&x.unit()));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct XorShift64 {
    state: u64,
}

impl XorShift64 {
    /// The stream of `seed` (1 for a zero seed).
    ///
    /// # Example
    /// ```
    /// let mut x = ccd_test_support::XorShift64::new(7);
    /// assert_ne!(x.next_u64(), 7);
    /// ```
    #[must_use]
    pub const fn new(seed: u64) -> Self {
        Self {
            state: if seed == 0 { 1 } else { seed },
        }
    }

    /// The next state, which is also the output (never zero).
    ///
    /// # Example
    /// ```
    /// let mut x = ccd_test_support::XorShift64::new(3);
    /// assert!((0..1000).all(|_| x.next_u64() != 0));
    /// ```
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.state ^= self.state << 13;
        self.state ^= self.state >> 7;
        self.state ^= self.state << 17;
        self.state
    }

    /// In `[0, 1)`: the top 53 bits of [`next_u64`](Self::next_u64).
    ///
    /// # Example
    /// ```
    /// let mut x = ccd_test_support::XorShift64::new(5);
    /// assert!((0..1000).map(|_| x.unit()).all(|u| (0.0..1.0).contains(&u)));
    /// ```
    #[inline]
    pub fn unit(&mut self) -> f64 {
        to_unit(self.next_u64())
    }

    /// In `[lo, hi)`, computed as `lo + (hi - lo) u`.
    ///
    /// # Example
    /// ```
    /// let mut x = ccd_test_support::XorShift64::new(9);
    /// assert!((-2.0..2.0).contains(&x.range(-2.0, 2.0)));
    /// ```
    #[inline]
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }
}

/// The pose turned by `angle` (radians) about `axis` (normalised here) and moved to `at`.
///
/// # Example
/// ```
/// use ccd_test_support::axis_angle_pose;
/// use ccd_geometry::glam::DVec3;
///
/// let p = axis_angle_pose(DVec3::new(0.0, 0.0, 2.0), std::f64::consts::FRAC_PI_2, DVec3::X);
/// assert!((p.transform_point3(DVec3::X) - DVec3::new(1.0, 1.0, 0.0)).length() < 1e-12);
/// ```
#[must_use]
pub fn axis_angle_pose(axis: DVec3, angle: f64, at: DVec3) -> DAffine3 {
    DAffine3::from_rotation_translation(DQuat::from_axis_angle(axis.normalize(), angle), at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_zero_gives_the_published_splitmix64_outputs() {
        // The first outputs of splitmix64 from seed 0 (Vigna's reference implementation).
        let mut s = SplitMix64::new(0);
        assert_eq!(s.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(s.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        assert_eq!(s.next_u64(), 0x06C4_5D18_8009_454F);
    }

    #[test]
    fn xorshift_follows_its_recurrence() {
        // x ^= x << 13; x ^= x >> 7; x ^= x << 17, from 1, by hand for the first step.
        let mut x = XorShift64::new(1);
        let a = 1u64 ^ (1 << 13);
        let b = a ^ (a >> 7);
        assert_eq!(x.next_u64(), b ^ (b << 17));
        let mut y = XorShift64::new(0x9E37_79B9);
        let u: Vec<f64> = (0..1000).map(|_| y.unit()).collect();
        assert!(u.iter().all(|u| (0.0..1.0).contains(u)));
        let mean = u.iter().sum::<f64>() / 1000.0;
        assert!((mean - 0.5).abs() < 0.05, "{mean}");
    }

    #[test]
    fn noise_is_the_indexed_signed_stream() {
        let mut s = SplitMix64::new(0x1234_5678);
        for k in 1..100 {
            assert_eq!(noise(0x1234_5678, k), s.signed());
        }
    }

    #[test]
    fn draws_stay_in_their_ranges() {
        let mut s = SplitMix64::new(99);
        for _ in 0..10_000 {
            assert!((0.0..1.0).contains(&s.unit()));
            assert!((-1.0..1.0).contains(&s.signed()));
            assert!((-3.0..5.0).contains(&s.range(-3.0, 5.0)));
            assert!(s.cube(0.7).abs().max_element() <= 0.7);
            assert!(s.cube_range(0.7).abs().max_element() <= 0.7);
            let d = s.direction().unwrap();
            assert!((d.length() - 1.0).abs() < 1e-12);
            assert!((s.unit_vector().length() - 1.0).abs() < 1e-12);
            assert!(s.rotation().is_normalized());
            assert!(s.quaternion().is_normalized());
        }
    }

    #[test]
    fn unit_is_roughly_uniform() {
        // 10 bins of 100 000 draws: each within 5 standard deviations of 10 000.
        let mut s = SplitMix64::new(2026);
        let mut bins = [0u32; 10];
        for _ in 0..100_000 {
            bins[(s.unit() * 10.0) as usize] += 1;
        }
        for b in bins {
            assert!((9_525..=10_475).contains(&b), "{bins:?}");
        }
    }
}
