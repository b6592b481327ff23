//! Unit tests of `avatar_house`.

use super::house::MIN_TRIANGLES;
use super::placement::ObjectTree;
use super::*;

#[test]
fn procedural_clips_parse_and_place_above_the_floor() {
    let clip = procedural_clip(false).unwrap();
    let avatar = Avatar::from_mocap(&clip, &RadiusTable::human()).unwrap();
    let placed = place("walk", &clip, &avatar, DVec3::ZERO, 0.0, 200).unwrap();
    assert_eq!(placed.poses.len(), 200);
    assert!(!placed.swings.is_empty());
    let lowest = placed
        .poses
        .iter()
        .flat_map(|p| {
            avatar
                .capsules()
                .iter()
                .zip(avatar.world_segments(p).unwrap())
                .map(|(c, s)| s.a.y.min(s.b.y) - c.radius)
                .collect::<Vec<_>>()
        })
        .fold(f64::INFINITY, f64::min);
    assert!((lowest - 0.005).abs() < 1e-9, "{lowest}");
}

#[test]
fn house_is_large_enough() {
    let mesh = house(0.0, &[]).unwrap();
    assert!(mesh.triangle_count() >= MIN_TRIANGLES);
}

#[test]
fn objects_keep_their_target_gaps() {
    // near misses keep at least their gap over the whole clip; contact swings reach into
    // their object during the swing only
    let clip = procedural_clip(false).unwrap();
    let avatar = Avatar::from_mocap(&clip, &RadiusTable::human()).unwrap();
    let placed = place("walk", &clip, &avatar, DVec3::ZERO, 0.0, 400).unwrap();
    let segs = ClipSegments::new(&avatar, &placed.poses).unwrap();
    let objects = place_objects(&placed, &segs, 0.0, 0).unwrap();
    let contacts = objects.iter().filter(|o| o.contact).count();
    assert!(
        objects.len() >= 3 && contacts >= 1,
        "{} {contacts}",
        objects.len()
    );
    let all = 0..placed.poses.len();
    let mut touching = 0;
    for o in &objects {
        let o = ObjectTree::new(&o.mesh).unwrap();
        assert!(!segs.closer_than(all.clone(), &o, DVec3::ZERO, -0.016));
        if segs.closer_than(all.clone(), &o, DVec3::ZERO, 0.0) {
            touching += 1;
        } else {
            assert!(!segs.closer_than(all.clone(), &o, DVec3::ZERO, 0.0049));
        }
    }
    assert_eq!(touching, contacts);
}
