//! Vectors, 3×3 matrices and rigid transforms whose entries are enclosures of functions of
//! time (CATCH, Sec. 5.2: "Taylor matrices"; Avatar, Sec. 5: interval matrices).

use std::ops::{Add, Neg, Sub};

use ccd_geometry::Aabb;
use glam::{DAffine3, DMat3, DVec3};

use crate::{ConstantVelocity, Enclosure, Interval};

/// A 3-vector of enclosures. Bounding its components gives an [`Aabb`] enclosing the
/// trajectory of the point it models.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Vec3<E> {
    /// x component.
    pub x: E,
    /// y component.
    pub y: E,
    /// z component.
    pub z: E,
}

impl<E: Enclosure> Vec3<E> {
    /// The constant vector `v`.
    #[must_use]
    pub fn constant(v: DVec3, domain: Interval) -> Self {
        Self {
            x: E::constant(v.x, domain),
            y: E::constant(v.y, domain),
            z: E::constant(v.z, domain),
        }
    }

    /// Component bounds over the domain.
    #[must_use]
    pub fn bound(&self) -> [Interval; 3] {
        [self.x.bound(), self.y.bound(), self.z.bound()]
    }

    /// The box enclosing the modelled trajectory over the domain.
    ///
    /// ```
    /// use ccd_taylor::{Interval, Transform, ConstantVelocity};
    /// use ccd_taylor::glam::{DMat3, DVec3};
    /// let m = ConstantVelocity::new(DMat3::IDENTITY, DVec3::ZERO, DVec3::Z, 1.0, DVec3::ZERO)?;
    /// let tr: Transform<ccd_taylor::TaylorModel> = Transform::from_motion(&m, Interval::UNIT);
    /// let b = tr.apply(DVec3::X).aabb();
    /// assert!(b.contains_point(DVec3::new(1.0f64.cos(), 1.0f64.sin(), 0.0)));
    /// # Ok::<(), ccd_taylor::TaylorError>(())
    /// ```
    #[must_use]
    pub fn aabb(&self) -> Aabb {
        let [x, y, z] = self.bound();
        Aabb::new(
            DVec3::new(x.lo(), y.lo(), z.lo()),
            DVec3::new(x.hi(), y.hi(), z.hi()),
        )
    }

    /// Component enclosures at time `t`.
    #[must_use]
    pub fn eval(&self, t: f64) -> [Interval; 3] {
        [self.x.eval(t), self.y.eval(t), self.z.eval(t)]
    }

    /// `self · n` for a constant direction `n`.
    #[must_use]
    pub fn dot_const(&self, n: DVec3) -> E {
        self.x * n.x + self.y * n.y + self.z * n.z
    }
}

impl<E: Enclosure> Add for Vec3<E> {
    type Output = Self;
    fn add(self, o: Self) -> Self {
        Self {
            x: self.x + o.x,
            y: self.y + o.y,
            z: self.z + o.z,
        }
    }
}

impl<E: Enclosure> Sub for Vec3<E> {
    type Output = Self;
    fn sub(self, o: Self) -> Self {
        Self {
            x: self.x - o.x,
            y: self.y - o.y,
            z: self.z - o.z,
        }
    }
}

impl<E: Enclosure> Neg for Vec3<E> {
    type Output = Self;
    fn neg(self) -> Self {
        Self {
            x: -self.x,
            y: -self.y,
            z: -self.z,
        }
    }
}

/// A 3×3 matrix of enclosures, stored by rows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mat3<E> {
    /// `rows[i][j]` is the entry in row `i`, column `j`.
    pub rows: [[E; 3]; 3],
}

impl<E: Enclosure> Mat3<E> {
    /// The constant matrix `m`.
    #[must_use]
    pub fn constant(m: DMat3, domain: Interval) -> Self {
        Self {
            rows: std::array::from_fn(|i| {
                std::array::from_fn(|j| E::constant(m.col(j)[i], domain))
            }),
        }
    }

    /// Matrix product `self · rhs`.
    #[must_use]
    pub fn mul_mat(&self, rhs: &Self) -> Self {
        let a = &self.rows;
        let b = &rhs.rows;
        Self {
            rows: std::array::from_fn(|i| {
                std::array::from_fn(|j| {
                    E::dot3(
                        [&a[i][0], &a[i][1], &a[i][2]],
                        [&b[0][j], &b[1][j], &b[2][j]],
                        None,
                    )
                })
            }),
        }
    }

    /// Matrix–vector product `self · v`.
    #[must_use]
    pub fn mul_vec(&self, v: &Vec3<E>) -> Vec3<E> {
        let r = &self.rows;
        let v = [&v.x, &v.y, &v.z];
        let row = |i: usize| E::dot3([&r[i][0], &r[i][1], &r[i][2]], v, None);
        Vec3 {
            x: row(0),
            y: row(1),
            z: row(2),
        }
    }

    /// `self · p` for a constant point `p` (cheaper than [`Mat3::mul_vec`]).
    #[must_use]
    pub fn mul_point(&self, p: DVec3) -> Vec3<E> {
        let r = &self.rows;
        let row = |i: usize| E::dot3_const([&r[i][0], &r[i][1], &r[i][2]], p.to_array(), None);
        Vec3 {
            x: row(0),
            y: row(1),
            z: row(2),
        }
    }

    /// The entries as f64 when every one is exactly constant ([`Enclosure::as_constant`]).
    #[must_use]
    pub fn as_constant(&self) -> Option<[[f64; 3]; 3]> {
        let mut out = [[0.0; 3]; 3];
        for (o, r) in out.iter_mut().zip(&self.rows) {
            for (x, e) in o.iter_mut().zip(r) {
                *x = e.as_constant()?;
            }
        }
        Some(out)
    }

    /// `self · d` for a constant matrix `d` (`[row][col]`): scalar products only.
    #[must_use]
    pub fn mul_const_right(&self, d: &[[f64; 3]; 3]) -> Self {
        let a = &self.rows;
        // a signed permutation (entries exactly 0 and ±1, as fixed joints without a turn
        // have): column j of the product is ±column p(j) of `self`, no rounding
        if let Some(p) = signed_permutation(d) {
            return Self {
                rows: std::array::from_fn(|i| {
                    std::array::from_fn(|j| {
                        let (src, positive) = p[j];
                        if positive { a[i][src] } else { -a[i][src] }
                    })
                }),
            };
        }
        Self {
            rows: std::array::from_fn(|i| {
                std::array::from_fn(|j| {
                    E::dot3_const(
                        [&a[i][0], &a[i][1], &a[i][2]],
                        [d[0][j], d[1][j], d[2][j]],
                        None,
                    )
                })
            }),
        }
    }

    /// `c · self` for a constant matrix `c` (`[row][col]`): scalar products only.
    #[must_use]
    pub fn mul_const_left(&self, c: &[[f64; 3]; 3]) -> Self {
        let b = &self.rows;
        Self {
            rows: std::array::from_fn(|i| {
                std::array::from_fn(|j| E::dot3_const([&b[0][j], &b[1][j], &b[2][j]], c[i], None))
            }),
        }
    }

    /// Cheap bounds ([`Enclosure::bound_cheap`]) of row `i`'s entries over the domain.
    fn row_bounds_cheap(&self, i: usize) -> [Interval; 3] {
        self.rows[i].each_ref().map(Enclosure::bound_cheap)
    }

    /// Entry bounds over the domain, `[row][col]`.
    #[must_use]
    pub fn bound(&self) -> [[Interval; 3]; 3] {
        self.rows.map(|r| r.map(|e| e.bound()))
    }
}

/// A rigid transform `p ↦ R p + T` whose rotation and translation entries are enclosures
/// of functions of time: a 4×4 homogeneous "Taylor matrix" (CATCH, Sec. 5.2) or interval
/// matrix (Avatar, Sec. 5), depending on `E`.
///
/// The world transform of link `i` of a chain (CATCH, Eq. 1) is a fold of
/// [`Transform::compose`] over the per-link relative transforms.
///
/// # Example
/// ```
/// use ccd_taylor::{ConstantVelocity, Interval, TaylorModel, Transform};
/// use ccd_taylor::glam::{DMat3, DVec3};
///
/// let dom = Interval::UNIT;
/// let link = ConstantVelocity::new(DMat3::IDENTITY, DVec3::X, DVec3::Z, 0.5, DVec3::ZERO)?;
/// let chain: Transform<TaylorModel> = (0..5)
///     .map(|_| Transform::from_motion(&link, dom))
///     .fold(Transform::identity(dom), |acc, m| acc.compose(&m));
/// let tip = chain.apply(DVec3::ZERO).aabb();
/// // at t = 0 the tip is at (5, 0, 0)
/// assert!(tip.contains_point(DVec3::new(5.0, 0.0, 0.0)));
/// # Ok::<(), ccd_taylor::TaylorError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Transform<E> {
    /// Rotation part.
    pub rotation: Mat3<E>,
    /// Translation part.
    pub translation: Vec3<E>,
}

impl<E: Enclosure> Transform<E> {
    /// The identity transform.
    #[must_use]
    pub fn identity(domain: Interval) -> Self {
        Self::constant(&DAffine3::IDENTITY, domain)
    }

    /// A transform that does not move.
    #[must_use]
    pub fn constant(pose: &DAffine3, domain: Interval) -> Self {
        Self {
            rotation: Mat3::constant(pose.matrix3, domain),
            translation: Vec3::constant(pose.translation, domain),
        }
    }

    /// The enclosure of a constant-velocity motion over `domain` (a sub-interval of
    /// `[0, 1]`): `R(t) = cos(ωt) A + sin(ωt) B + C`, `T(t) = c + t s` (Avatar, Eq. 6–10),
    /// with `A, B, C` enclosed in interval arithmetic.
    #[must_use]
    pub fn from_motion(m: &ConstantVelocity, domain: Interval) -> Self {
        if m.angle() == 0.0 {
            // no rotation: R(t) = A + C = R₀ exactly
            return Self {
                rotation: Mat3::constant(m.rotation(), domain),
                translation: Self::motion_translation(m, domain),
            };
        }
        let (cos, sin) = E::cos_sin_affine(m.angle(), 0.0, domain);
        let rows = match m.abc_nearest() {
            Some(([a, b, c], rad)) => std::array::from_fn(|i| {
                std::array::from_fn(|j| E::lin2_point(&cos, a[i][j], &sin, b[i][j], c[i][j], rad))
            }),
            None => {
                let [a, b, c] = m.abc();
                std::array::from_fn(|i| {
                    std::array::from_fn(|j| E::lin2_interval(&cos, a[i][j], &sin, b[i][j], c[i][j]))
                })
            }
        };
        Self {
            rotation: Mat3 { rows },
            translation: Self::motion_translation(m, domain),
        }
    }

    /// The translation `T(t) = c + t s` of a constant-velocity motion (exactly `c` when it
    /// does not slide).
    fn motion_translation(m: &ConstantVelocity, domain: Interval) -> Vec3<E> {
        if m.displacement() == DVec3::ZERO {
            return Vec3::constant(m.translation(), domain);
        }
        let t = |k: usize| E::affine(m.translation()[k], m.displacement()[k], domain);
        Vec3 {
            x: t(0),
            y: t(1),
            z: t(2),
        }
    }

    /// `R_self t + T_self` for a child translation `t` (scalar products when `t` is a
    /// constant point).
    fn carry(&self, t: &Vec3<E>) -> Vec3<E> {
        let tp = [
            &self.translation.x,
            &self.translation.y,
            &self.translation.z,
        ];
        let tc = [&t.x, &t.y, &t.z];
        let r = &self.rotation.rows;
        let point = match (t.x.as_constant(), t.y.as_constant(), t.z.as_constant()) {
            (Some(x), Some(y), Some(z)) => Some([x, y, z]),
            _ => None,
        };
        let row = |i: usize| {
            let ri = [&r[i][0], &r[i][1], &r[i][2]];
            match point {
                Some(p) => E::dot3_const(ri, p, Some(tp[i])),
                None => E::dot3(ri, tc, Some(tp[i])),
            }
        };
        Vec3 {
            x: row(0),
            y: row(1),
            z: row(2),
        }
    }

    /// `self ∘ child`: first `child`, then `self` (`R = R₁R₂`, `T = R₁T₂ + T₁`), as in the
    /// chain product `M₁⁰ M₂¹ … Mᵢⁱ⁻¹` of CATCH Eq. 1.
    ///
    /// A constant rotation on either side (a fixed joint, a prismatic joint, a still root)
    /// is multiplied in with scalar products, which enclose the same product at a fraction
    /// of the cost of general products.
    #[must_use]
    pub fn compose(&self, child: &Self) -> Self {
        let tp = [
            &self.translation.x,
            &self.translation.y,
            &self.translation.z,
        ];
        let t = &child.translation;
        let tc = [&t.x, &t.y, &t.z];
        if let Some(c) = self.rotation.as_constant() {
            let row = |i: usize| E::dot3_const(tc, c[i], Some(tp[i]));
            return Self {
                rotation: child.rotation.mul_const_left(&c),
                translation: Vec3 {
                    x: row(0),
                    y: row(1),
                    z: row(2),
                },
            };
        }
        let translation = self.carry(t);
        let rotation = match child.rotation.as_constant() {
            Some(d) => self.rotation.mul_const_right(&d),
            None => self.rotation.mul_mat(&child.rotation),
        };
        Self {
            rotation,
            translation,
        }
    }

    /// `self ∘ Transform::from_motion(m, domain)` with the same enclosure contract, cheaper
    /// when `m` turns about a coordinate axis of the moving frame — a revolute joint about
    /// its own x, y or z axis, as most URDF joints are — and `self` moves.
    ///
    /// `m`'s rotation `Rot(u, ωt) R₀ = cos(ωt) A + sin(ωt) B + C` is written
    /// `R₀ Rot(e, ωt) + D(t)` with `e = ±e_k` the coordinate axis nearest `R₀ᵀ u` (taken
    /// when within ~1.4e-6 rad of it, `|(R₀ᵀu)_k| ≥ 1 − 1e-12`). The first
    /// term times `self`'s rotation is `X = R_self R₀` (scalar products) with two columns
    /// turned by the plane rotation: 12 products of enclosures instead of the 27 of a
    /// general product, and `m`'s nine rotation entries are never enclosed. `D` (the
    /// difference made by `R₀ᵀ u` not being exactly `e`, and by rounding) is bounded entry
    /// by entry from `m`'s `A, B, C` ([`ConstantVelocity::abc_nearest`], each within its
    /// radius of the exact matrix) against the exact `A', B', C'` of `R₀ Rot(e, ·)` (columns
    /// of `R₀`, zeros, signs): `|D_ij(t)| ≤ |A − A'|_ij + |B − B'|_ij + |C − C'|_ij`, and
    /// `R_self D` is added to each entry through the bounds of `|R_self|`. When `R₀`'s
    /// column `k` is a signed coordinate axis (to 1e-9), as in a joint frame turned by
    /// quarter turns (URDF origins), `R₀ = P Rot(e_k, φ) + E` with `P` a signed permutation:
    /// then `X = R_self P` is `R_self`'s columns moved and negated (no products), the plane
    /// rotation turns by `φ + ωt`, and `E` (rounding-sized, bounded per row) joins `D`. The
    /// plane
    /// rotation's products use [`Enclosure::dot2_unit`] (cosine and sine stay in `[−1, 1]`),
    /// which keeps remainders from growing faster than in the general product down long
    /// chains. Other cases
    /// (no rotation, a constant `self`, an axis far from every coordinate axis) are
    /// `self.compose(&Transform::from_motion(m, domain))`.
    ///
    /// ```
    /// use ccd_taylor::{ConstantVelocity, Enclosure, Interval, TaylorModel, Transform};
    /// use ccd_taylor::glam::{DMat3, DQuat, DVec3};
    ///
    /// let dom = Interval::UNIT;
    /// let parent = ConstantVelocity::new(DMat3::IDENTITY, DVec3::ZERO, DVec3::X, 0.8, DVec3::Y)?;
    /// // a hinge about the child's own z axis, its frame turned by R₀
    /// let r0 = DMat3::from_quat(DQuat::from_rotation_y(0.4));
    /// let hinge = ConstantVelocity::new(r0, DVec3::X, r0 * DVec3::Z, 1.2, DVec3::ZERO)?;
    /// let p = Transform::<TaylorModel>::from_motion(&parent, dom);
    /// let fast = p.compose_motion(&hinge, dom);
    /// let t = 0.3;
    /// let exact = (parent.pose_at(t) * hinge.pose_at(t)).transform_point3(DVec3::ONE);
    /// let [x, y, z] = fast.apply(DVec3::ONE).eval(t);
    /// assert!(x.contains(exact.x) && y.contains(exact.y) && z.contains(exact.z));
    /// # Ok::<(), ccd_taylor::TaylorError>(())
    /// ```
    #[must_use]
    pub fn compose_motion(&self, m: &ConstantVelocity, domain: Interval) -> Self {
        let general = || self.compose(&Self::from_motion(m, domain));
        if m.angle() == 0.0 || self.rotation.as_constant().is_some() {
            return general();
        }
        let r0 = m.rotation();
        let v = r0.transpose() * m.axis();
        let k = if v.x.abs() >= v.y.abs() && v.x.abs() >= v.z.abs() {
            0
        } else if v.y.abs() >= v.z.abs() {
            1
        } else {
            2
        };
        // (within ~1.4e-6 rad of the axis, where D is negligible; NaN fails the test)
        if v[k].is_nan() || v[k].abs() < 1.0 - 1e-12 {
            return general();
        }
        let Some(([a, b, c], rad)) = m.abc_nearest() else {
            return general();
        };
        let sign = v[k].signum();
        let (i, j) = ((k + 1) % 3, (k + 2) % 3);
        // exact A', B', C' of R₀ Rot(e, ·), e = sign·e_k, `[row][col]`: C' keeps column k
        // of R₀, A' the others; B' = R₀ [e]×: column i is sign·R₀e_j, column j is
        // −sign·R₀e_i (e × e_i = sign·e_j, e × e_j = −sign·e_i)
        let col = |n: usize| r0.col(n);
        let mut delta = [[0.0f64; 3]; 3];
        for (row, d) in delta.iter_mut().enumerate() {
            for (n, dn) in d.iter_mut().enumerate() {
                let r = col(n)[row];
                let (ap, cp) = if n == k { (0.0, r) } else { (r, 0.0) };
                let bp = if n == i {
                    sign * col(j)[row]
                } else if n == j {
                    -sign * col(i)[row]
                } else {
                    0.0
                };
                // each |x − y| rounded up, their sum with margin (all terms ≥ 0)
                let sum = crate::interval::up((a[row][n] - ap).abs())
                    + crate::interval::up((b[row][n] - bp).abs())
                    + crate::interval::up((c[row][n] - cp).abs())
                    + 3.0 * rad;
                *dn = crate::interval::up(sum * (1.0 + 1e-12));
            }
        }
        let omega = sign * m.angle();
        // X = R_self R₀, then the plane rotation by θ = sign·ω t of columns i, j; or, when
        // R₀ = P Rot(e_k, φ) + E with P a signed permutation (a joint frame turned by
        // multiples of 90°, as URDF origins mostly are), X = R_self P (columns of R_self,
        // signs) turned by φ + θ, and `E Rot` charged to D (|(E Rot)_ln| ≤ Σ_m |E_lm|)
        let (x, phi) = match permuted_turn(r0, k) {
            Some((p, phi, err)) => {
                for (d, e) in delta.iter_mut().zip(err) {
                    for dn in d.iter_mut() {
                        *dn = crate::interval::up(*dn + e);
                    }
                }
                let rows = std::array::from_fn(|row| {
                    let r = &self.rotation.rows[row];
                    std::array::from_fn(|n| {
                        let (a, positive) = p[n];
                        if positive { r[a] } else { -r[a] }
                    })
                });
                (Mat3 { rows }, phi)
            }
            None => {
                let r0_rows: [[f64; 3]; 3] =
                    std::array::from_fn(|row| std::array::from_fn(|n| col(n)[row]));
                (self.rotation.mul_const_right(&r0_rows), 0.0)
            }
        };
        let (cos, sin) = E::cos_sin_affine(omega, phi, domain);
        let nsin = -sin;
        // |R_self| entry bounds, for R_self D
        let mag: [[f64; 3]; 3] =
            std::array::from_fn(|row| self.rotation.row_bounds_cheap(row).map(|b| b.mag()));
        let rows = std::array::from_fn(|row| {
            let xr = &x.rows[row];
            let mut out = [xr[0], xr[1], xr[2]];
            out[i] = E::dot2_unit([&cos, &sin], [&xr[i], &xr[j]]);
            out[j] = E::dot2_unit([&cos, &nsin], [&xr[j], &xr[i]]);
            for (n, o) in out.iter_mut().enumerate() {
                let e = (mag[row][0] * delta[0][n]
                    + mag[row][1] * delta[1][n]
                    + mag[row][2] * delta[2][n])
                    * (1.0 + 1e-12);
                if e != 0.0 {
                    *o = o.add_interval(Interval::new(-e, e));
                }
            }
            out
        });
        // translation: R_self (c + t s) + T_self
        let translation = self.carry(&Self::motion_translation(m, domain));
        Self {
            rotation: Mat3 { rows },
            translation,
        }
    }

    /// `self⁻¹ ∘ other` for rigid transforms: `other` seen from the frame of `self`
    /// (`R = R₁ᵀ R₂`, `T = R₁ᵀ (T₂ − T₁)`). The transpose is the inverse of a rotation, so
    /// the result encloses the relative motion at every time of the domain when `self`'s
    /// rotation part encloses a rotation matrix at every time (the transforms built by
    /// [`Transform::from_motion`], [`Transform::constant`] of a rigid pose and their
    /// compositions).
    ///
    /// ```
    /// use ccd_taylor::{ConstantVelocity, Interval, TaylorModel, Transform};
    /// use ccd_taylor::glam::{DMat3, DVec3};
    ///
    /// let dom = Interval::UNIT;
    /// let a = ConstantVelocity::new(DMat3::IDENTITY, DVec3::X, DVec3::Z, 0.5, DVec3::Y)?;
    /// let b = ConstantVelocity::new(DMat3::IDENTITY, DVec3::ZERO, DVec3::Y, -0.3, DVec3::X)?;
    /// let (ta, tb) = (Transform::<TaylorModel>::from_motion(&a, dom), Transform::from_motion(&b, dom));
    /// let rel = ta.inverse_compose(&tb);
    /// let t = 0.6;
    /// let p = DVec3::new(0.2, -0.4, 1.0);
    /// let exact = a.pose_at(t).inverse().transform_point3(b.pose_at(t).transform_point3(p));
    /// let [x, y, z] = rel.apply(p).eval(t);
    /// assert!(x.contains(exact.x) && y.contains(exact.y) && z.contains(exact.z));
    /// # Ok::<(), ccd_taylor::TaylorError>(())
    /// ```
    #[must_use]
    pub fn inverse_compose(&self, other: &Self) -> Self {
        let a = &self.rotation.rows;
        let b = &other.rotation.rows;
        let col = |i: usize| [&a[0][i], &a[1][i], &a[2][i]];
        let rotation = Mat3 {
            rows: std::array::from_fn(|i| {
                std::array::from_fn(|j| E::dot3(col(i), [&b[0][j], &b[1][j], &b[2][j]], None))
            }),
        };
        let d = [
            other.translation.x - self.translation.x,
            other.translation.y - self.translation.y,
            other.translation.z - self.translation.z,
        ];
        let row = |i: usize| E::dot3(col(i), [&d[0], &d[1], &d[2]], None);
        Self {
            rotation,
            translation: Vec3 {
                x: row(0),
                y: row(1),
                z: row(2),
            },
        }
    }

    /// `self⁻¹` for a rigid transform (`Rᵀ`, `−Rᵀ T`; see [`Transform::inverse_compose`]).
    ///
    /// ```
    /// use ccd_taylor::{ConstantVelocity, Interval, TaylorModel, Transform};
    /// use ccd_taylor::glam::{DMat3, DVec3};
    ///
    /// let m = ConstantVelocity::new(DMat3::IDENTITY, DVec3::X, DVec3::Z, 0.5, DVec3::Y)?;
    /// let inv = Transform::<TaylorModel>::from_motion(&m, Interval::UNIT).inverse();
    /// let exact = m.pose_at(0.3).inverse().transform_point3(DVec3::ONE);
    /// let [x, y, z] = inv.apply(DVec3::ONE).eval(0.3);
    /// assert!(x.contains(exact.x) && y.contains(exact.y) && z.contains(exact.z));
    /// # Ok::<(), ccd_taylor::TaylorError>(())
    /// ```
    #[must_use]
    pub fn inverse(&self) -> Self {
        let a = &self.rotation.rows;
        let col = |i: usize| [&a[0][i], &a[1][i], &a[2][i]];
        let t = &self.translation;
        let row = |i: usize| -E::dot3(col(i), [&t.x, &t.y, &t.z], None);
        Self {
            rotation: Mat3 {
                rows: std::array::from_fn(|i| std::array::from_fn(|j| a[j][i])),
            },
            translation: Vec3 {
                x: row(0),
                y: row(1),
                z: row(2),
            },
        }
    }

    /// Coordinate `i` of the trajectory of the local point `p`: row `i` of `R p`, plus
    /// the translation (what [`Transform::apply`] and [`Transform::aabb_of_corners`] bound).
    #[inline]
    fn coordinate(&self, i: usize, p: DVec3) -> E {
        let r = &self.rotation.rows[i];
        let t = [
            &self.translation.x,
            &self.translation.y,
            &self.translation.z,
        ];
        E::dot3_const([&r[0], &r[1], &r[2]], p.to_array(), Some(t[i]))
    }

    /// The trajectory of a point given in the local frame.
    #[must_use]
    pub fn apply(&self, p: DVec3) -> Vec3<E> {
        Vec3 {
            x: self.coordinate(0, p),
            y: self.coordinate(1, p),
            z: self.coordinate(2, p),
        }
    }

    /// A box enclosing the trajectories of all `points` over the domain.
    #[must_use]
    pub fn aabb_of_points<I: IntoIterator<Item = DVec3>>(&self, points: I) -> Aabb {
        points
            .into_iter()
            .fold(Aabb::EMPTY, |b, p| b.merge(self.apply(p).aabb()))
    }

    /// A box enclosing the trajectories of eight local points over the domain, corner `k`
    /// on the upper side of local edge direction `j` when bit `j` of `k` is set (the order
    /// of [`Aabb::corners`] and of OBB corner lists): contained in
    /// [`Transform::aabb_of_points`] of the same points, and cheaper.
    ///
    /// Per world axis `i`, each edge direction `j` is tested first: when the change of the
    /// world coordinate `i` from the lower to the upper corner of every edge along `j` has
    /// a certain sign over the whole domain (a cheap bound of row `i` of the rotation
    /// times an interval holding the four edge vectors), one side of every such edge is
    /// at least as far along axis `i` at every time. Walking the edges from any corner to
    /// the corner on the winning sides never decreases the coordinate, so only the corners
    /// on the winning sides can hold the extreme over the domain: with every sign certain,
    /// two corner trajectories are bounded per axis (one for each end) instead of eight.
    /// The points need not form a box (the argument uses only the four point pairs per
    /// bit); non-finite points fall back to [`Transform::aabb_of_points`].
    ///
    /// ```
    /// use ccd_taylor::{ConstantVelocity, Interval, TaylorModel, Transform};
    /// use ccd_geometry::{glam::{DMat3, DVec3}, Aabb};
    ///
    /// let m = ConstantVelocity::new(DMat3::IDENTITY, DVec3::ZERO, DVec3::Z, 0.5, DVec3::X)?;
    /// let tr = Transform::<TaylorModel>::from_motion(&m, Interval::UNIT);
    /// let local = Aabb::new(DVec3::new(0.5, -0.1, -0.1), DVec3::new(1.5, 0.1, 0.1));
    /// let fast = tr.aabb_of_corners(&local.corners());
    /// let all = tr.aabb_of_points(local.corners());
    /// assert!(all.contains_point(fast.min) && all.contains_point(fast.max));
    /// // the far end at t = 1: (1.5 cos 0.5 + 1, 1.5 sin 0.5)
    /// let end = DVec3::new(1.5 * 0.5f64.cos() + 1.0, 1.5 * 0.5f64.sin(), 0.1);
    /// assert!(fast.contains_point(end));
    /// # Ok::<(), ccd_taylor::TaylorError>(())
    /// ```
    #[must_use]
    pub fn aabb_of_corners(&self, corners: &[DVec3; 8]) -> Aabb {
        if !corners.iter().all(|p| p.is_finite()) {
            return self.aabb_of_points(corners.iter().copied());
        }
        // per edge direction j, per local coordinate: an interval holding the four edges'
        // components (outward-rounded differences)
        let edges: [[Interval; 3]; 3] = std::array::from_fn(|j| {
            let bit = 1 << j;
            std::array::from_fn(|c| {
                (0..8usize)
                    .filter(|k| k & bit == 0)
                    .map(|k| Interval::point(corners[k | bit][c]) - Interval::point(corners[k][c]))
                    .reduce(Interval::hull)
                    .unwrap_or(Interval::ZERO)
            })
        });
        let mut lo = [0.0; 3];
        let mut hi = [0.0; 3];
        for i in 0..3 {
            let rb = self.rotation.row_bounds_cheap(i);
            // bit j of `fixed`: the sign along edge direction j is certain; of `up`: it is
            // non-negative (the upper corner wins the maximum)
            let (mut fixed, mut up) = (0usize, 0usize);
            for (j, e) in edges.iter().enumerate() {
                let s = rb[0] * e[0] + rb[1] * e[1] + rb[2] * e[2];
                if s.lo() >= 0.0 {
                    fixed |= 1 << j;
                    up |= 1 << j;
                } else if s.hi() <= 0.0 {
                    fixed |= 1 << j;
                }
            }
            let down = fixed & !up;
            let mut range: Option<Interval> = None;
            for (k, p) in corners.iter().enumerate() {
                if k & fixed == up || k & fixed == down {
                    // as `apply`
                    let x = self.coordinate(i, *p).bound();
                    range = Some(range.map_or(x, |b| b.hull(x)));
                }
            }
            let range = range.unwrap_or(Interval::ENTIRE); // (not reached: a corner matches)
            lo[i] = range.lo();
            hi[i] = range.hi();
        }
        Aabb::new(DVec3::from_array(lo), DVec3::from_array(hi))
    }

    /// A box enclosing the trajectories of the eight points of `corners` over the domain
    /// from one trajectory per axis, the centre's: cheaper than
    /// [`Transform::aabb_of_corners`] (three bounded Taylor models instead of up to
    /// twenty-four) and looser when the rotation turns far (each half edge is charged
    /// with the cheap bound of the rotation's row over the whole domain). For a first
    /// culling test, with [`Transform::aabb_of_corners`] where it does not settle.
    ///
    /// Coordinate `i` of corner `k` is `R_i c + T_i + Σ_j ±R_i h_j + R_i r_k` (centre
    /// `c`, half edges `h_j`, residual `r_k` in the corners' slack): the first term
    /// bounded as a Taylor model, the others with the row's cheap interval bound.
    ///
    /// ```
    /// use ccd_taylor::{CentredCorners, ConstantVelocity, Interval, TaylorModel, Transform};
    /// use ccd_geometry::{glam::{DMat3, DVec3}, Aabb};
    ///
    /// let m = ConstantVelocity::new(DMat3::IDENTITY, DVec3::ZERO, DVec3::Z, 0.5, DVec3::X)?;
    /// let tr = Transform::<TaylorModel>::from_motion(&m, Interval::UNIT);
    /// let local = Aabb::new(DVec3::new(0.5, -0.1, -0.1), DVec3::new(1.5, 0.1, 0.1));
    /// let corners = CentredCorners::new(&local.corners()).expect("finite corners");
    /// let coarse = tr.aabb_of_centred(&corners);
    /// // the far end at t = 1: (1.5 cos 0.5 + 1, 1.5 sin 0.5)
    /// let end = DVec3::new(1.5 * 0.5f64.cos() + 1.0, 1.5 * 0.5f64.sin(), 0.1);
    /// assert!(coarse.contains_point(end));
    /// # Ok::<(), ccd_taylor::TaylorError>(())
    /// ```
    #[must_use]
    pub fn aabb_of_centred(&self, corners: &CentredCorners) -> Aabb {
        let mut lo = [0.0; 3];
        let mut hi = [0.0; 3];
        for i in 0..3 {
            let rb = self.rotation.row_bounds_cheap(i);
            // each entry as mid ± rad (rad rounded up), so |R_i h| ≤ |mid·h| + rad·|h|
            let mid = DVec3::new(rb[0].midpoint(), rb[1].midpoint(), rb[2].midpoint());
            let rad = DVec3::new(
                crate::interval::up(rb[0].hi() - mid.x)
                    .max(crate::interval::up(mid.x - rb[0].lo())),
                crate::interval::up(rb[1].hi() - mid.y)
                    .max(crate::interval::up(mid.y - rb[1].lo())),
                crate::interval::up(rb[2].hi() - mid.z)
                    .max(crate::interval::up(mid.z - rb[2].lo())),
            );
            let mag = mid.abs() + rad;
            // Σ_j |mid·h_j| in f64 (each dot off by at most 3 ulps of Σ|mid||h_j|, the
            // sum of the three by 2 more: `slop` covers both), Σ_j rad·|h_j| = rad·H,
            // and the slack: all terms ≥ 0, their f64 sum rounded up with margin
            let turned: f64 = corners.half.iter().map(|h| mid.dot(*h).abs()).sum();
            let slop = mid.abs().dot(corners.half_abs_sum);
            let reach = turned
                + 8.0 * f64::EPSILON * slop
                + rad.dot(corners.half_abs_sum)
                + mag.dot(corners.slack_mag);
            let reach = crate::interval::up(reach * (1.0 + 16.0 * f64::EPSILON));
            let x = self.coordinate(i, corners.centre).bound();
            lo[i] = crate::interval::down(x.lo() - reach);
            hi[i] = crate::interval::up(x.hi() + reach);
        }
        Aabb::new(DVec3::from_array(lo), DVec3::from_array(hi))
    }

    /// A box enclosing the whole swept volume of a local box over the domain: the box of
    /// its eight corners' trajectories (by convexity, CATCH Sec. 5.2 and Fig. 4).
    #[must_use]
    pub fn aabb_of_box(&self, local: &Aabb) -> Aabb {
        self.aabb_of_points(local.corners())
    }

    /// The enclosure of `(R, T)` over a sub-domain.
    ///
    /// # Errors
    /// [`crate::TaylorError::NotASubdomain`] when `sub` is outside the domain.
    pub fn restrict(&self, sub: Interval) -> Result<Self, crate::TaylorError> {
        let mut rows = self.rotation.rows;
        for row in &mut rows {
            for e in row.iter_mut() {
                *e = e.restrict(sub)?;
            }
        }
        let v = &self.translation;
        Ok(Self {
            rotation: Mat3 { rows },
            translation: Vec3 {
                x: v.x.restrict(sub)?,
                y: v.y.restrict(sub)?,
                z: v.z.restrict(sub)?,
            },
        })
    }
}

#[cfg(test)]
mod tests;

/// A signed permutation matrix as (source, positive) per column: `R P` has column `n`
/// equal to ± column `p[n].0` of `R`.
type SignedPermutation = [(usize, bool); 3];

/// Per column `j` of `d` (`[row][col]`) the row of its only non-zero entry and whether it
/// is `+1`, when every entry is exactly `0`, `1` or `−1` and each column has one non-zero
/// entry; `None` otherwise.
fn signed_permutation(d: &[[f64; 3]; 3]) -> Option<SignedPermutation> {
    let mut p = [(0usize, true); 3];
    for (j, pj) in p.iter_mut().enumerate() {
        let mut found = None;
        for (r, row) in d.iter().enumerate() {
            let x = row[j];
            if x == 0.0 {
                continue;
            }
            if found.is_some() || x.abs() != 1.0 {
                return None;
            }
            found = Some((r, x > 0.0));
        }
        *pj = found?;
    }
    Some(p)
}

/// `R₀ = P Rot(e_k, φ) + E` for a signed permutation `P` when column `k` of `R₀` is a
/// signed coordinate axis (other entries ≤ 1e-9): `P` as (source column, sign) per column
/// (`R P` has column `n` = ±column `p[n].0` of `R`), `φ`, and per row `l` an upper bound of
/// `Σ_m |E_lm|` (the rounding of `cos φ`, `sin φ` included). `None` otherwise.
fn permuted_turn(r0: DMat3, k: usize) -> Option<(SignedPermutation, f64, [f64; 3])> {
    let ck = r0.col(k);
    let m = if ck.x.abs() >= ck.y.abs() && ck.x.abs() >= ck.z.abs() {
        0
    } else if ck.y.abs() >= ck.z.abs() {
        1
    } else {
        2
    };
    let (m1, m2) = ((m + 1) % 3, (m + 2) % 3);
    if !(ck[m1].abs() <= 1e-9 && ck[m2].abs() <= 1e-9 && ck[m].abs() > 0.5) {
        return None;
    }
    let (i, j) = ((k + 1) % 3, (k + 2) % 3);
    let sk = ck[m] > 0.0;
    // P e_k = ±e_m, P e_i = e_{m+1}, P e_j = P e_k × P e_i = ±e_{m+2} (det P = 1)
    let mut p = [(0usize, true); 3];
    p[k] = (m, sk);
    p[i] = (m1, true);
    p[j] = (m2, sk);
    let pe = |n: usize| {
        let (a, s) = p[n];
        let mut v = DVec3::ZERO;
        v[a] = if s { 1.0 } else { -1.0 };
        v
    };
    let ci = r0.col(i);
    let phi = ci.dot(pe(j)).atan2(ci.dot(pe(i)));
    if !phi.is_finite() {
        return None;
    }
    let (sin, cos) = phi.sin_cos();
    // columns of P Rot(e_k, φ)
    let cols = |n: usize| {
        if n == k {
            pe(k)
        } else if n == i {
            cos * pe(i) + sin * pe(j)
        } else {
            cos * pe(j) - sin * pe(i)
        }
    };
    let mut err = [0.0f64; 3];
    for (l, e) in err.iter_mut().enumerate() {
        let sum = (0..3).fold(0.0, |acc, n| {
            acc + crate::interval::up((r0.col(n)[l] - cols(n)[l]).abs())
        });
        // + libm's cos/sin within an ulp of 1 per entry (three entries)
        *e = crate::interval::up(sum * (1.0 + 1e-12) + 8.0 * f64::EPSILON);
    }
    err.iter().all(|e| e.is_finite()).then_some((p, phi, err))
}

/// Eight local points (corner `k` on the upper side of edge direction `j` when bit `j` of
/// `k` is set, the order of [`Aabb::corners`] and of OBB corner lists) in centred form for
/// [`Transform::aabb_of_centred`]: a centre `c`, three half edges `h_j` and a slack box
/// `S` with `p_k ∈ c + Σ_j ±h_j + S` (sign `+` when bit `j` of `k` is set), `S` computed
/// with outward rounding so that this holds exactly for any eight finite points (for the
/// corners of a box, `S` is a few ulps wide).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CentredCorners {
    centre: DVec3,
    half: [DVec3; 3],
    /// `Σ_j |h_j|` per coordinate (rounded up).
    half_abs_sum: DVec3,
    /// The slack box's largest magnitude per coordinate.
    slack_mag: DVec3,
}

impl CentredCorners {
    /// The centred form of `corners`; `None` when a coordinate is not finite (or the
    /// slack overflows).
    ///
    /// ```
    /// use ccd_taylor::CentredCorners;
    /// use ccd_geometry::{glam::DVec3, Aabb};
    /// let b = Aabb::new(DVec3::ZERO, DVec3::new(2.0, 1.0, 1.0));
    /// assert!(CentredCorners::new(&b.corners()).is_some());
    /// assert!(CentredCorners::new(&[DVec3::NAN; 8]).is_none());
    /// ```
    #[must_use]
    pub fn new(corners: &[DVec3; 8]) -> Option<Self> {
        if !corners.iter().all(|p| p.is_finite()) {
            return None;
        }
        let centre = 0.5 * (corners[0] + corners[7]);
        let half: [DVec3; 3] = std::array::from_fn(|j| {
            let bit = 1 << j;
            let sum = (0..8usize)
                .filter(|k| k & bit == 0)
                .fold(DVec3::ZERO, |s, k| s + (corners[k | bit] - corners[k]));
            sum * 0.125
        });
        let slack: [Interval; 3] = std::array::from_fn(|c| {
            (0..8usize)
                .map(|k| {
                    (0..3).fold(Interval::point(corners[k][c]) - centre[c], |r, j| {
                        if k & (1 << j) == 0 {
                            r + half[j][c]
                        } else {
                            r - half[j][c]
                        }
                    })
                })
                .reduce(Interval::hull)
                .unwrap_or(Interval::ZERO)
        });
        let half_abs_sum =
            (half[0].abs() + half[1].abs() + half[2].abs()) * (1.0 + 4.0 * f64::EPSILON);
        let slack_mag = DVec3::new(slack[0].mag(), slack[1].mag(), slack[2].mag());
        (centre.is_finite() && half_abs_sum.is_finite() && slack_mag.is_finite()).then_some(Self {
            centre,
            half,
            half_abs_sum,
            slack_mag,
        })
    }
}
