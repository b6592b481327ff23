//! URDF import with visual or collision geometry (the user's choice,
//! `UrdfOptions::geometry`): the same document gives different link meshes and different
//! answers, and the real PR2 loads with either (its visual meshes are STL).
#![cfg(feature = "urdf")]

use std::path::PathBuf;

use ccd_ca_articulated::{ArticulatedBody, ArticulatedScene, BodyStep, QueryOptions};
use ccd_kinematics::LinkId;
use ccd_kinematics::urdf::{UrdfGeometry, UrdfOptions};

/// An arm whose visual link is a 2 m bar and whose collision link is a 1 m bar, turning
/// about z towards a post at x = 1.5 (on the y axis after a quarter turn).
const ARM: &str = r#"<robot name="arm">
  <link name="base"><collision><geometry><box size="0.1 0.1 0.1"/></geometry></collision></link>
  <link name="bar">
    <visual><origin xyz="1 0 0"/><geometry><box size="2 0.1 0.1"/></geometry></visual>
    <collision><origin xyz="0.5 0 0"/><geometry><box size="1 0.1 0.1"/></geometry></collision>
  </link>
  <link name="post">
    <visual><origin xyz="0 1.5 0"/><geometry><box size="0.1 0.1 1"/></geometry></visual>
    <collision><origin xyz="0 1.5 0"/><geometry><box size="0.1 0.1 1"/></geometry></collision>
  </link>
  <joint name="turn" type="revolute"><parent link="base"/><child link="bar"/>
    <axis xyz="0 0 1"/><limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <joint name="fix" type="fixed"><parent link="base"/><child link="post"/></joint>
</robot>"#;

fn load(dir: &std::path::Path, geometry: UrdfGeometry) -> ArticulatedBody {
    let opts = UrdfOptions::default().with_geometry(geometry);
    ArticulatedBody::from_urdf(dir.join("arm.urdf"), None, &opts)
        .unwrap()
        .0
}

#[test]
fn visual_and_collision_geometry_give_their_own_meshes_and_answers() {
    let dir = std::env::temp_dir().join(format!("ccd-art-urdf-geometry-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("arm.urdf"), ARM).unwrap();
    let visual = load(&dir, UrdfGeometry::Visual);
    let collision = load(&dir, UrdfGeometry::Collision);
    std::fs::remove_dir_all(&dir).ok();
    let extent = |b: &ArticulatedBody, l: u32| {
        b.link_shape(LinkId(l))
            .map(|s| s.body().mesh_bvh().mesh().aabb().max.x)
    };
    // the bar: 2 m visual, 1 m collision; the base has no visual element: no geometry
    assert_eq!(extent(&visual, 1), Some(2.0));
    assert_eq!(extent(&collision, 1), Some(1.0));
    assert_eq!(extent(&visual, 0), None);
    assert!(extent(&collision, 0).is_some());
    // a quarter turn: the 2 m visual bar sweeps through the post at 1.5 m, the 1 m
    // collision bar does not reach it
    let answer = |body: ArticulatedBody| {
        let mut scene = ArticulatedScene::new();
        scene.add_articulated(body);
        scene
            .query(
                &[BodyStep::Joints {
                    q0: &[0.0],
                    q1: &[std::f64::consts::FRAC_PI_2],
                }],
                &QueryOptions::default(),
            )
            .unwrap()
    };
    let hit = answer(visual);
    let c = hit.first().expect("the visual bar hits the post");
    assert!(
        c.contact.toc > 0.5 && c.contact.toc < 1.0,
        "toc {}",
        c.contact.toc
    );
    assert!(answer(collision).first().is_none());
}

fn pr2_dir() -> PathBuf {
    // the shared checkout's robots/pr2, or the registry robots (build.rs chose)
    let dir = PathBuf::from(env!("CCD_ROBOT_PR2"));
    assert!(
        dir.join("urdf").is_dir(),
        "{} not found (set CCD_SHARED_DIR, or run `cargo xtask robots`)",
        dir.display()
    );
    dir
}

#[test]
#[cfg_attr(
    ccd_missing_data = "pr2",
    ignore = "needs ../shared/data/robots/pr2 or `cargo xtask robots` (absent at build time)"
)]
fn pr2_loads_with_visual_or_collision_meshes() {
    let dir = pr2_dir();
    let urdf = dir.join("urdf").join("pr2.urdf");
    let opts = |g| {
        UrdfOptions::default()
            .with_package("example-robot-data/robots/pr2_description", &dir)
            .with_geometry(g)
    };
    let (visual, _) = ArticulatedBody::from_urdf(&urdf, None, &opts(UrdfGeometry::Visual)).unwrap();
    let (collision, _) =
        ArticulatedBody::from_urdf(&urdf, None, &opts(UrdfGeometry::Collision)).unwrap();
    let triangles = |b: &ArticulatedBody| -> Vec<usize> {
        (0..b.model().len() as u32)
            .map(|l| {
                b.link_shape(LinkId(l))
                    .map_or(0, |s| s.body().mesh_bvh().mesh().triangle_count())
            })
            .collect()
    };
    let (tv, tc) = (triangles(&visual), triangles(&collision));
    assert!(tv.iter().sum::<usize>() > 0 && tc.iter().sum::<usize>() > 0);
    assert_ne!(
        tv, tc,
        "visual and collision meshes should differ somewhere"
    );
}
