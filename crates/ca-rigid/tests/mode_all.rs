//! `Mode::All` on a rigid query: one pair has one first contact, so the shared mode's `All`
//! answers exactly as `Toc` (same contact, same counters) on meshes, convex hulls and
//! analytic shapes. Checked on a deterministic spread of random pairs, hits and misses.

mod support;

use std::sync::Arc;

use ccd_bvh::{BvhOptions, MeshBvh, Rss};
use ccd_ca_rigid::{
    CaOptions, Mode, RigidBody, Shape, time_of_contact, time_of_contact_convex,
    time_of_contact_shapes,
};
use ccd_distance::{Ball, Capsule, Cuboid};
use ccd_geometry::TriMesh;
use ccd_geometry::glam::DVec3;
use support::{SplitMix64, random_motion};

fn body(mesh: TriMesh) -> RigidBody {
    RigidBody::with_hull(Arc::new(
        MeshBvh::<Rss>::new(mesh, &BvhOptions::default()).unwrap(),
    ))
    .unwrap()
}

fn with(mode: Mode) -> CaOptions {
    CaOptions::default().with_mode(mode)
}

#[test]
fn all_answers_as_toc_for_one_pair() {
    let meshes = [
        body(TriMesh::cuboid(DVec3::splat(-0.4), DVec3::splat(0.4)).unwrap()),
        body(TriMesh::cuboid(DVec3::new(-0.6, -0.1, -0.2), DVec3::new(0.6, 0.1, 0.2)).unwrap()),
        body(TriMesh::torus(0.5, 0.15, 12, 8).unwrap()),
    ];
    let shapes = [
        Shape::Ball(Ball::new(0.4).unwrap()),
        Shape::Capsule(Capsule::new_y(0.4, 0.2).unwrap()),
        Shape::Cuboid(Cuboid::new(DVec3::new(0.5, 0.3, 0.2)).unwrap()),
        Shape::Mesh(meshes[2].clone()),
    ];
    let mut rng = SplitMix64::new(0xA11_70C);
    let (mut hits, mut misses) = (0, 0);
    for _ in 0..300 {
        let (ma, mb) = (random_motion(&mut rng), random_motion(&mut rng));
        let a = &meshes[(rng.next_u64() % meshes.len() as u64) as usize];
        let b = &meshes[(rng.next_u64() % meshes.len() as u64) as usize];
        let toc = time_of_contact(a, &ma, b, &mb, &with(Mode::Toc)).unwrap();
        let all = time_of_contact(a, &ma, b, &mb, &with(Mode::All)).unwrap();
        assert_eq!(all, toc, "meshes {ma:?} {mb:?}");
        let toc = time_of_contact_convex(a, &ma, b, &mb, &with(Mode::Toc)).unwrap();
        let all = time_of_contact_convex(a, &ma, b, &mb, &with(Mode::All)).unwrap();
        assert_eq!(all, toc, "hulls {ma:?} {mb:?}");
        let sa = &shapes[(rng.next_u64() % shapes.len() as u64) as usize];
        let sb = &shapes[(rng.next_u64() % shapes.len() as u64) as usize];
        let toc = time_of_contact_shapes(sa, &ma, sb, &mb, &with(Mode::Toc)).unwrap();
        let all = time_of_contact_shapes(sa, &ma, sb, &mb, &with(Mode::All)).unwrap();
        assert_eq!(all, toc, "shapes {sa:?} {sb:?} {ma:?} {mb:?}");
        if toc.is_some() {
            hits += 1;
        } else {
            misses += 1;
        }
    }
    // the spread has both answers, so the equality is tested on contacts and on misses
    assert!(hits > 30 && misses > 30, "{hits} hits, {misses} misses");
}
