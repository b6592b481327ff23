//! Cases found by the `ca_rigid` fuzz target (`fuzz/fuzz_targets/ca_rigid.rs`), replayed as
//! plain tests so that `cargo test` keeps them fixed (the crashing inputs themselves are in
//! `fuzz/corpus/ca_rigid/`).

use std::sync::Arc;

use ccd_bvh::{BvhOptions, MeshBvh, Rss};
use ccd_ca_rigid::{CaOptions, RigidBody, time_of_contact};
use ccd_geometry::TriMesh;
use ccd_geometry::glam::{DAffine3, DVec3};
use ccd_kinematics::RigidMotion;

fn body(vertices: Vec<DVec3>, triangles: Vec<[u32; 3]>) -> RigidBody {
    let mesh = TriMesh::new(vertices, triangles).unwrap();
    RigidBody::new(Arc::new(
        MeshBvh::<Rss>::new(mesh, &BvhOptions::default()).unwrap(),
    ))
}

/// The fuzz case at lattice spacing `s`: A is a degenerate triangle (a segment), B a thin
/// triangle in the plane `y = 0` with an edge on the line `x = 0`, which the segment crosses
/// at `z ≈ 122 s`: they touch at `t = 0`, and B, moving along `+x` by `2000 s`, has the
/// segment through its interior from then on (the fuzz oracle saw a clear intersection at
/// `t = 1/16`). Every point is shifted by `offset`, which is absorbed by rounding in the
/// coordinates of size `s` once `s ≳ 2⁶⁰`: the touching pair is then computed a few hundred
/// units apart, far below the rounding allowance. Returns the time of contact.
fn sliver_and_segment(s: f64, offset: DVec3) -> Option<f64> {
    let p = |x: f64, y: f64, z: f64| offset + DVec3::new(x, y, z) * s;
    let a = body(
        vec![p(0.0, -234.0, 0.0), p(0.0, 256.0, 256.0)],
        vec![[1, 0, 0]],
    );
    let b = body(
        vec![p(0.0, 0.0, 256.0), p(-1280.0, 0.0, 1.0), p(0.0, 0.0, 0.0)],
        vec![[0, 0, 0], [0, 1, 2]],
    );
    let up = DAffine3::from_translation(DVec3::new(0.0, 0.0, 256.0) * s);
    let ma = RigidMotion::between(up, up).unwrap();
    let across = DAffine3::from_translation(DVec3::new(2000.0, 0.0, 0.0) * s);
    let mb = RigidMotion::between(up, across).unwrap();
    time_of_contact(&a, &ma, &b, &mb, &CaOptions::default())
        .unwrap()
        .map(|c| c.toc)
}

#[test]
fn sliver_and_segment_touching_at_huge_scale_is_reported() {
    // the fuzz input: spacing 2^248, offset (-30721, 1536, 0) / 4. The pair's exact distance
    // is computed as 384 along y, B's motion has no y component (speed bound 0): the leaf
    // step ignored that 384 is far inside the rounding allowance (~5e15 at 2^80) and
    // passed the whole step as free.
    let offset = DVec3::new(-30721.0 / 4.0, 384.0, 0.0);
    for e in [
        -300, -120, -100, -50, 0, 50, 60, 70, 80, 99, 100, 101, 150, 200, 248,
    ] {
        let s = 2f64.powi(e);
        for off in [DVec3::ZERO, offset] {
            let toc = sliver_and_segment(s, off);
            assert!(
                toc.is_some_and(|t| t <= 0.0625),
                "spacing 2^{e}, offset {off}: toc {toc:?}"
            );
        }
    }
}

/// A pose computed as `c + t·s` carries the rounding of `c` however small the result: a
/// triangle sliding from `far·(0, 1, 1)/√2` back to the origin, where it crosses a static
/// triangle, is computed ~`1e-16·far` off near the end of the step. The window query took
/// its rounding allowance from the pose being evaluated (small there) and proved the last
/// part of the step free from `far = 1e20` on (found through the `articulated` fuzz target:
/// a prismatic joint at 1.43e32). The allowance now comes from the motion's
/// `RoundingScale` (its end translations).
#[test]
fn a_contact_after_a_huge_slide_is_reported_by_the_window_query() {
    use ccd_ca_rigid::RigidPair;
    use ccd_ca_rigid::details::{BoundedScratch, time_of_contact_bounded};
    let a = body(
        vec![
            DVec3::new(-100.0, -100.0, 0.0),
            DVec3::new(100.0, -100.0, 0.0),
            DVec3::new(0.0, 100.0, 0.0),
        ],
        vec![[0, 1, 2]],
    );
    let b = body(
        vec![
            DVec3::new(0.0, 0.0, -1.0),
            DVec3::new(0.0, 0.0, 1.0),
            DVec3::new(1.0, 0.0, 1.0),
        ],
        vec![[0, 1, 2]],
    );
    let still = RigidMotion::stationary(DAffine3::IDENTITY).unwrap();
    let dir = DVec3::new(0.0, 1.0, 1.0).normalize();
    for far in [1e4, 1e16, 1e20, 1e30, 1.43e32, 1e40] {
        let slide = RigidMotion::between(DAffine3::from_translation(far * dir), DAffine3::IDENTITY)
            .unwrap();
        let pair = RigidPair {
            a: &still,
            b: &slide,
        };
        let c = time_of_contact_bounded(
            &a,
            &b,
            &pair,
            0.0,
            1.0,
            &CaOptions::default(),
            &mut BoundedScratch::default(),
        )
        .unwrap()
        .unwrap_or_else(|| panic!("missed at far = {far:e}"));
        assert!(c.toc <= 1.0, "far {far:e}: toc {}", c.toc);
    }
}
