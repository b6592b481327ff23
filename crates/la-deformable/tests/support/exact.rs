//! Exact reference for vertex–face and edge–edge CCD under linear vertex motion, in rational
//! arithmetic (`BigRational`).
//!
//! Four points are coplanar exactly at the roots of a cubic (the tetrahedron's signed volume),
//! computed with exact coefficients. Its distinct roots in `[0, 1]` are isolated with a Sturm
//! sequence (exact rational roots are found exactly) to intervals of width `≤ 2⁻⁵⁰`; at each
//! root the inclusion test (point in triangle, segments crossing) is decided from the signs
//! of degree-4 orientation polynomials, certified on the whole root interval by a Lipschitz
//! bound (`|p(t) − p(lo)| ≤ (hi − lo) Σ m |c_m|` on `[0, 1]`). A root is `Collide` (certainly
//! touching there), `Miss` (certainly apart there) or `Unknown`.

use ccd_geometry::glam::DVec3;
use num_bigint::BigInt;
use num_rational::BigRational as Q;
use num_traits::{One, Signed, Zero};

/// A polynomial in `t`, coefficients in increasing degree.
#[derive(Clone, Debug, PartialEq)]
pub struct Poly(pub Vec<Q>);

impl Poly {
    fn trim(mut self) -> Self {
        while self.0.last().is_some_and(Zero::is_zero) {
            self.0.pop();
        }
        self
    }
    pub fn constant(c: Q) -> Self {
        Poly(vec![c]).trim()
    }
    pub fn is_zero(&self) -> bool {
        self.0.is_empty()
    }
    pub fn degree(&self) -> usize {
        self.0.len().saturating_sub(1)
    }
    pub fn add(&self, o: &Poly) -> Poly {
        let n = self.0.len().max(o.0.len());
        Poly(
            (0..n)
                .map(|k| {
                    self.0.get(k).cloned().unwrap_or_else(Q::zero)
                        + o.0.get(k).cloned().unwrap_or_else(Q::zero)
                })
                .collect(),
        )
        .trim()
    }
    pub fn neg(&self) -> Poly {
        Poly(self.0.iter().map(|c| -c).collect())
    }
    pub fn sub(&self, o: &Poly) -> Poly {
        self.add(&o.neg())
    }
    pub fn mul(&self, o: &Poly) -> Poly {
        if self.is_zero() || o.is_zero() {
            return Poly(vec![]);
        }
        let mut r = vec![Q::zero(); self.0.len() + o.0.len() - 1];
        for (i, a) in self.0.iter().enumerate() {
            for (j, b) in o.0.iter().enumerate() {
                r[i + j] += a * b;
            }
        }
        Poly(r).trim()
    }
    pub fn eval(&self, t: &Q) -> Q {
        let mut acc = Q::zero();
        for c in self.0.iter().rev() {
            acc = acc * t + c;
        }
        acc
    }
    pub fn deriv(&self) -> Poly {
        Poly(
            self.0
                .iter()
                .enumerate()
                .skip(1)
                .map(|(k, c)| c * Q::from_integer(BigInt::from(k)))
                .collect(),
        )
        .trim()
    }
    /// Remainder of the division by `d` (nonzero).
    pub fn rem(&self, d: &Poly) -> Poly {
        let mut r = self.clone();
        let lead = d.0.last().expect("nonzero divisor").clone();
        while !r.is_zero() && r.degree() >= d.degree() {
            let shift = r.degree() - d.degree();
            let f = r.0.last().unwrap().clone() / &lead;
            for (k, c) in d.0.iter().enumerate() {
                let v = &r.0[k + shift] - &f * c;
                r.0[k + shift] = v;
            }
            r.0.pop();
            r = r.trim();
        }
        r
    }
    /// Divides by `(t − a)` where `a` is a root (synthetic division).
    fn deflate(&self, a: &Q) -> Poly {
        let n = self.0.len();
        let mut q = vec![Q::zero(); n - 1];
        let mut acc = Q::zero();
        for k in (1..n).rev() {
            acc = acc * a + &self.0[k];
            q[k - 1] = acc.clone();
        }
        Poly(q).trim()
    }
    /// `Σ m |c_m|`: a Lipschitz constant on `[0, 1]`.
    fn lipschitz(&self) -> Q {
        self.0
            .iter()
            .enumerate()
            .map(|(m, c)| c.abs() * Q::from_integer(BigInt::from(m)))
            .fold(Q::zero(), |a, b| a + b)
    }
}

/// A vector of polynomials.
pub type PVec = [Poly; 3];

fn vsub(a: &PVec, b: &PVec) -> PVec {
    [a[0].sub(&b[0]), a[1].sub(&b[1]), a[2].sub(&b[2])]
}
fn cross(a: &PVec, b: &PVec) -> PVec {
    [
        a[1].mul(&b[2]).sub(&a[2].mul(&b[1])),
        a[2].mul(&b[0]).sub(&a[0].mul(&b[2])),
        a[0].mul(&b[1]).sub(&a[1].mul(&b[0])),
    ]
}
fn dot(a: &PVec, b: &PVec) -> Poly {
    a[0].mul(&b[0]).add(&a[1].mul(&b[1])).add(&a[2].mul(&b[2]))
}

/// The exact rational value of a finite f64.
pub fn q(x: f64) -> Q {
    Q::from_float(x).expect("finite")
}

/// `x0 + t (x1 − x0)` exactly.
pub fn motion(x0: DVec3, x1: DVec3) -> PVec {
    let c = |a: f64, b: f64| Poly(vec![q(a), q(b) - q(a)]).trim();
    [c(x0.x, x1.x), c(x0.y, x1.y), c(x0.z, x1.z)]
}

/// A root of the coplanarity cubic.
#[derive(Clone, Debug)]
pub enum Root {
    /// An exact rational root.
    Exact(Q),
    /// Exactly one distinct root in the open interval.
    Interval(Q, Q),
}

impl Root {
    /// An upper bound of the root.
    pub fn hi(&self) -> &Q {
        match self {
            Root::Exact(t) | Root::Interval(_, t) => t,
        }
    }
    /// A lower bound of the root.
    pub fn lo(&self) -> &Q {
        match self {
            Root::Exact(t) | Root::Interval(t, _) => t,
        }
    }
}

fn sturm(p: &Poly) -> Vec<Poly> {
    let mut s = vec![p.clone(), p.deriv()];
    while !s.last().unwrap().is_zero() {
        let n = s.len();
        let r = s[n - 2].rem(&s[n - 1]).neg();
        if r.is_zero() {
            break;
        }
        s.push(r);
    }
    if s.last().unwrap().is_zero() {
        s.pop();
    }
    s
}

fn variations(s: &[Poly], x: &Q) -> usize {
    let mut count = 0;
    let mut last = 0;
    for p in s {
        let v = p.eval(x);
        let sign = if v.is_positive() {
            1
        } else if v.is_negative() {
            -1
        } else {
            0
        };
        if sign != 0 {
            if last != 0 && sign != last {
                count += 1;
            }
            last = sign;
        }
    }
    count
}

/// Distinct roots of `p` (not identically zero) in `[0, 1]`, increasing, isolated to width
/// `≤ 2⁻⁵⁰`.
pub fn roots_in_unit(p: &Poly) -> Vec<Root> {
    let mut out = Vec::new();
    let zero = Q::zero();
    let one = Q::one();
    let mut p = p.clone();
    let mut at0 = false;
    let mut at1 = false;
    while p.degree() > 0 && p.eval(&zero).is_zero() {
        at0 = true;
        p = p.deflate(&zero);
    }
    while p.degree() > 0 && p.eval(&one).is_zero() {
        at1 = true;
        p = p.deflate(&one);
    }
    if at0 {
        out.push(Root::Exact(zero.clone()));
    }
    if p.degree() > 0 {
        let s = sturm(&p);
        let width = Q::new(BigInt::one(), BigInt::one() << 50);
        isolate(&p, &s, zero, one.clone(), &width, &mut out);
    }
    if at1 {
        out.push(Root::Exact(one));
    }
    out
}

fn isolate(p: &Poly, s: &[Poly], lo: Q, hi: Q, width: &Q, out: &mut Vec<Root>) {
    let count = variations(s, &lo) - variations(s, &hi);
    if count == 0 {
        return;
    }
    if count == 1 {
        // Refine by bisection, keeping exactly one distinct root inside (lo, hi): by the sign
        // change when the root is simple (odd multiplicity), else by Sturm counts.
        let (mut lo, mut hi) = (lo, hi);
        let mut flo = p.eval(&lo);
        let crossing = flo.is_positive() != p.eval(&hi).is_positive();
        let two = Q::from_integer(BigInt::from(2));
        while &(&hi - &lo) > width {
            let mid = (&lo + &hi) / &two;
            let v = p.eval(&mid);
            if v.is_zero() {
                out.push(Root::Exact(mid));
                return;
            }
            let left = if crossing {
                v.is_positive() != flo.is_positive()
            } else {
                variations(s, &lo) - variations(s, &mid) == 1
            };
            if left {
                hi = mid;
            } else {
                lo = mid;
                flo = v;
            }
        }
        out.push(Root::Interval(lo, hi));
        return;
    }
    // Split at a point that is not a root (a cubic has at most three).
    let span = &hi - &lo;
    for k in [4, 3, 5, 2, 6, 1] {
        let mid = &lo + &span * Q::new(BigInt::from(k), BigInt::from(7));
        if !p.eval(&mid).is_zero() {
            isolate(p, s, lo, mid.clone(), width, out);
            isolate(p, s, mid, hi, width, out);
            return;
        }
    }
    unreachable!("a nonzero polynomial of degree ≤ 4 has at most four roots");
}

/// Certified sign of `p` at the root: `Some(±1)` when strict on the whole root interval,
/// `Some(0)` only for an exact root where `p` vanishes.
fn sign_at(p: &Poly, r: &Root) -> Option<i8> {
    let sign = |v: &Q| {
        if v.is_positive() {
            1
        } else if v.is_negative() {
            -1
        } else {
            0
        }
    };
    match r {
        Root::Exact(t) => Some(sign(&p.eval(t))),
        Root::Interval(lo, hi) => {
            let v = p.eval(lo);
            let bound = (hi - lo) * p.lipschitz();
            if v > bound {
                Some(1)
            } else if v < -bound {
                Some(-1)
            } else {
                None
            }
        }
    }
}

/// What happens at one coplanarity root.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The features certainly touch at this root.
    Collide,
    /// The features are certainly apart at this root.
    Miss,
    /// Not decided (boundary or degenerate configuration).
    Unknown,
}

/// The exact answer of the reference for one query.
#[derive(Clone, Debug)]
pub struct Reference {
    /// The roots of the coplanarity cubic in `[0, 1]` with their verdicts, increasing.
    pub roots: Vec<(Root, Verdict)>,
    /// The cubic vanishes identically (always coplanar): nothing is decided.
    pub always_coplanar: bool,
}

impl Reference {
    /// An upper bound of the first time of contact, if a contact is certain.
    pub fn first_collision(&self) -> Option<&Q> {
        self.roots
            .iter()
            .find(|(_, v)| *v == Verdict::Collide)
            .map(|(r, _)| r.hi())
    }
    /// `true` when the features certainly never touch in `[0, 1]`.
    pub fn certainly_apart(&self) -> bool {
        !self.always_coplanar && self.roots.iter().all(|(_, v)| *v == Verdict::Miss)
    }
    /// A lower bound of the first time at which the features may touch (`None`: never).
    pub fn earliest_possible(&self) -> Option<&Q> {
        self.roots
            .iter()
            .find(|(_, v)| *v != Verdict::Miss)
            .map(|(r, _)| r.lo())
    }
}

fn reference(p: [PVec; 4], verdict: impl Fn(&[PVec; 4], &Root) -> Verdict) -> Reference {
    let cubic = dot(
        &cross(&vsub(&p[1], &p[0]), &vsub(&p[2], &p[0])),
        &vsub(&p[3], &p[0]),
    );
    if cubic.is_zero() {
        return Reference {
            roots: vec![(Root::Exact(Q::zero()), Verdict::Unknown)],
            always_coplanar: true,
        };
    }
    let roots = roots_in_unit(&cubic)
        .into_iter()
        .map(|r| {
            let v = verdict(&p, &r);
            (r, v)
        })
        .collect();
    Reference {
        roots,
        always_coplanar: false,
    }
}

fn points(x0: &[DVec3; 4], x1: &[DVec3; 4]) -> [PVec; 4] {
    std::array::from_fn(|k| motion(x0[k], x1[k]))
}

/// Exact vertex–face reference; points `(v, f0, f1, f2)`.
pub fn vertex_face_reference(x0: &[DVec3; 4], x1: &[DVec3; 4]) -> Reference {
    reference(points(x0, x1), |p, r| {
        let [v, f0, f1, f2] = p;
        let n = cross(&vsub(f1, f0), &vsub(f2, f0));
        let o = [
            dot(&cross(&vsub(f1, f0), &vsub(v, f0)), &n),
            dot(&cross(&vsub(f2, f1), &vsub(v, f1)), &n),
            dot(&cross(&vsub(f0, f2), &vsub(v, f2)), &n),
        ];
        let s: Vec<Option<i8>> = o.iter().map(|o| sign_at(o, r)).collect();
        if s.contains(&Some(-1)) {
            Verdict::Miss
        } else if s.iter().all(|x| *x == Some(1)) {
            Verdict::Collide
        } else if let Root::Exact(t) = r
            && s.iter().all(|x| x.is_some_and(|x| x >= 0))
            && n.iter().any(|c| !c.eval(t).is_zero())
        {
            Verdict::Collide
        } else {
            Verdict::Unknown
        }
    })
}

/// Exact edge–edge reference; points `(a0, a1, b0, b1)`.
pub fn edge_edge_reference(x0: &[DVec3; 4], x1: &[DVec3; 4]) -> Reference {
    reference(points(x0, x1), |p, r| {
        let [a0, a1, b0, b1] = p;
        let da = vsub(a1, a0);
        let db = vsub(b1, b0);
        let n = cross(&da, &db);
        let sa = [
            sign_at(&dot(&cross(&da, &vsub(b0, a0)), &n), r),
            sign_at(&dot(&cross(&da, &vsub(b1, a0)), &n), r),
        ];
        let sb = [
            sign_at(&dot(&cross(&db, &vsub(a0, b0)), &n), r),
            sign_at(&dot(&cross(&db, &vsub(a1, b0)), &n), r),
        ];
        let same = |s: [Option<i8>; 2]| match s {
            [Some(x), Some(y)] => x != 0 && x == y,
            _ => false,
        };
        let opposite_strict = |s: [Option<i8>; 2]| matches!(s, [Some(x), Some(y)] if x * y < 0);
        let opposite_weak = |s: [Option<i8>; 2]| matches!(s, [Some(x), Some(y)] if x * y <= 0);
        if same(sa) || same(sb) {
            Verdict::Miss
        } else if opposite_strict(sa) && opposite_strict(sb) {
            Verdict::Collide
        } else if let Root::Exact(t) = r
            && opposite_weak(sa)
            && opposite_weak(sb)
            && n.iter().any(|c| !c.eval(t).is_zero())
        {
            Verdict::Collide
        } else {
            Verdict::Unknown
        }
    })
}
