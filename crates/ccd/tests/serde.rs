//! With the `serde` feature, options and results of every kind of query (rigid,
//! articulated, deformable, avatar, world) and the bounding volumes round-trip through JSON unchanged.

use std::sync::Arc;

use ccd::prelude::*;

fn roundtrip<T: serde::Serialize + serde::de::DeserializeOwned>(value: &T) -> T {
    let json = serde_json::to_string(value).expect("serialize");
    serde_json::from_str(&json).expect("deserialize")
}

#[test]
fn rigid_options_and_contact_roundtrip() {
    let tetra = TriMesh::new(
        vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z],
        vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
    )
    .unwrap();
    let body = RigidBody::new(Arc::new(
        MeshBvh::<Rss>::new(tetra, &BvhOptions::default()).unwrap(),
    ));
    let still = RigidMotion::stationary(DAffine3::IDENTITY).unwrap();
    let moving = RigidMotion::between(
        DAffine3::from_translation(DVec3::new(3.0, 0.0, 0.0)),
        DAffine3::from_translation(DVec3::new(-1.0, 0.0, 0.0)),
    )
    .unwrap();
    let options = CaOptions::default().with_mode(Mode::Boolean);
    assert_eq!(roundtrip(&options), options);
    let contact = time_of_contact(&body, &still, &body, &moving, &CaOptions::default())
        .unwrap()
        .unwrap();
    assert_eq!(roundtrip(&contact), contact);
}

#[test]
fn deformable_options_and_results_roundtrip() {
    let tri = vec![DVec3::ZERO, DVec3::X, DVec3::Y];
    let ground = DeformingMesh::new(vec![[0, 1, 2]], tri.clone(), tri.clone()).unwrap();
    let up: Vec<DVec3> = tri.iter().map(|p| *p + DVec3::new(0.1, 0.1, 1.0)).collect();
    let down: Vec<DVec3> = tri
        .iter()
        .map(|p| *p + DVec3::new(0.1, 0.1, -1.0))
        .collect();
    let falling = DeformingMesh::new(vec![[0, 1, 2]], up, down).unwrap();
    let options = SceneOptions::default()
        .with_tolerance(1e-5)
        .with_self_collision(false);
    assert_eq!(roundtrip(&options), options);
    let scene = DeformingScene::new(vec![ground, falling], &options).unwrap();
    let all = scene.query(Mode::All);
    assert!(!all.contacts.is_empty());
    assert_eq!(roundtrip(&all), all);
    assert_eq!(roundtrip(&Mode::Boolean), Mode::Boolean);
    assert_eq!(roundtrip(&Status::Converged), Status::Converged);
}

/// One mode for every crate, written in snake case; the capitalised spelling reads, the
/// names of the unpublished 0.1 (`Global`, `Earliest`, `AllContacts`) do not.
#[test]
fn the_shared_mode_is_snake_case_and_old_names_are_gone() {
    for (mode, new, capitalised) in [
        (Mode::Toc, "toc", "Toc"),
        (Mode::All, "all", "All"),
        (Mode::Boolean, "boolean", "Boolean"),
    ] {
        assert_eq!(serde_json::to_string(&mode).unwrap(), format!("\"{new}\""));
        assert_eq!(roundtrip(&mode), mode);
        let read: Mode = serde_json::from_str(&format!("\"{capitalised}\"")).unwrap();
        assert_eq!(read, mode);
    }
    for old in ["Global", "Earliest", "AllContacts"] {
        assert!(
            serde_json::from_str::<Mode>(&format!("\"{old}\"")).is_err(),
            "{old}"
        );
    }
}

#[test]
fn bvh_values_and_primitive_toc_roundtrip() {
    use ccd::bvh::{BoundingVolume, Kdop18, Sphere, SplitRule};
    let points = [DVec3::ZERO, DVec3::X, DVec3::new(0.3, 2.0, -1.0)];
    let rss = Rss::fit_points(&points);
    assert_eq!(roundtrip(&rss), rss);
    let obb = Obb::fit_points(&points);
    assert_eq!(roundtrip(&obb), obb);
    let kdop = Kdop18::fit_points(&points);
    assert_eq!(roundtrip(&kdop), kdop);
    let sphere = Sphere::fit_points(&points);
    assert_eq!(roundtrip(&sphere), sphere);
    let options = BvhOptions::default()
        .with_leaf_size(2)
        .with_split(SplitRule::Median);
    assert_eq!(roundtrip(&options), options);

    let face = [DVec3::ZERO, DVec3::X, DVec3::Y];
    let x0 = [DVec3::new(0.2, 0.2, 1.0), face[0], face[1], face[2]];
    let x1 = [DVec3::new(0.2, 0.2, -1.0), face[0], face[1], face[2]];
    let hit = ccd::la_deformable::vertex_face(&x0, &x1, &LaOptions::default())
        .unwrap()
        .unwrap();
    assert_eq!(roundtrip(&hit), hit);
}

#[test]
fn articulated_options_and_results_roundtrip() {
    use ccd::ca_articulated::EnclosureKind;
    use ccd::kinematics::{Joint, LinkSpec};
    let hinge = Joint::Revolute {
        axis: DVec3::Z,
        limits: None,
    };
    let link = |name: &str, parent: Option<&str>| LinkSpec {
        name: name.into(),
        parent: parent.map(Into::into),
        joint: hinge,
        offset: DAffine3::from_translation(if parent.is_some() {
            DVec3::X
        } else {
            DVec3::ZERO
        }),
    };
    let model = ArticulatedModel::new(vec![
        link("l0", None),
        link("l1", Some("l0")),
        link("l2", Some("l1")),
    ])
    .unwrap();
    let rod = TriMesh::new(
        vec![
            DVec3::new(0.1, -0.05, -0.05),
            DVec3::new(0.9, -0.05, -0.05),
            DVec3::new(0.5, 0.05, -0.05),
            DVec3::new(0.5, 0.0, 0.05),
        ],
        vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
    )
    .unwrap();
    let arm =
        ArticulatedBody::from_meshes(model, vec![Some(rod.clone()), Some(rod.clone()), Some(rod)])
            .unwrap();
    let mut scene = ArticulatedScene::new();
    scene.add_articulated(arm);
    let options = QueryOptions::default()
        .with_mode(Mode::All)
        .with_enclosure(EnclosureKind::Interval);
    assert_eq!(roundtrip(&options), options);
    let (q0, q1) = ([0.0, 0.0, 0.0], [0.0, 2.6, 2.6]);
    let result = scene
        .query(&[BodyStep::Joints { q0: &q0, q1: &q1 }], &options)
        .unwrap();
    assert!(!result.contacts.is_empty());
    assert_eq!(roundtrip(&result), result);
}

#[test]
fn avatar_options_and_report_roundtrip() {
    use ccd::avatar_sv::{Avatar, AvatarStepOptions, Environment, ExactOptions, LinkCapsule, step};
    use ccd::kinematics::{Joint, LinkId, LinkSpec};
    let model = ArticulatedModel::new(vec![LinkSpec {
        name: "arm".into(),
        parent: None,
        joint: Joint::Floating,
        offset: DAffine3::IDENTITY,
    }])
    .unwrap();
    let avatar = Avatar::new(model, vec![LinkCapsule::along_x(LinkId(0), 0.0, 1.0, 0.05)]).unwrap();
    let pole = TriMesh::new(
        vec![
            DVec3::new(0.8, 0.0, -1.0),
            DVec3::new(0.8, 0.0, 1.0),
            DVec3::new(0.8, 0.001, 0.0),
        ],
        vec![[0, 1, 2]],
    )
    .unwrap();
    let world = Environment::new(pole).unwrap();
    let p0 = Pose {
        relative: vec![DAffine3::from_quat(DQuat::from_rotation_z(-1.0))],
    };
    let p1 = Pose {
        relative: vec![DAffine3::from_quat(DQuat::from_rotation_z(1.0))],
    };
    let options =
        AvatarStepOptions::default().with_exact(ExactOptions::default().with_tolerance(1e-5));
    assert_eq!(roundtrip(&options), options);
    let report = step(&avatar, &world, &p0, &p1, &options).unwrap();
    let contact = report.exact.unwrap().contact.unwrap();
    assert_eq!(contact.status, Status::Converged);
    assert!((contact.normal.length() - 1.0).abs() < 1e-12);
    assert_eq!(roundtrip(&report), report);
}

#[test]
fn world_options_and_report_roundtrip() {
    use ccd::world::{BroadPhase, Collider, StepOptions, World};
    let tetra = TriMesh::new(
        vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z],
        vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
    )
    .unwrap();
    let tree = Arc::new(MeshBvh::<Rss>::new(tetra, &BvhOptions::default()).unwrap());
    let shape = Collider::convex(RigidBody::with_hull(tree).unwrap()).unwrap();
    let mut world = World::new(CaOptions::default()).unwrap();
    world
        .insert_static(shape.clone(), DAffine3::IDENTITY)
        .unwrap();
    let start = DAffine3::from_translation(DVec3::new(0.0, 0.0, 3.0));
    let h = world
        .insert(shape, RigidMotion::stationary(start).unwrap())
        .unwrap();
    world
        .set_velocities(h, DVec3::new(0.0, 0.0, -2.5), DVec3::ZERO)
        .unwrap();
    let options = StepOptions::default()
        .with_mode(Mode::All)
        .with_broad_phase(BroadPhase::AllPairs);
    assert_eq!(roundtrip(&options), options);
    let report = world.step(&options).unwrap();
    assert!(report.collides());
    assert_eq!(roundtrip(&report), report);
    // the world's modes are the shared ones, in the shared spelling
    assert_eq!(serde_json::to_string(&options.mode).unwrap(), "\"all\"");
    assert!(
        serde_json::to_string(&options)
            .unwrap()
            .contains("\"mode\":\"all\"")
    );
    assert!(serde_json::from_str::<ccd::world::Mode>("\"Earliest\"").is_err());
    assert!(serde_json::from_str::<ccd::world::Mode>("\"AllContacts\"").is_err());
}

#[test]
fn distance_results_roundtrip() {
    use ccd::distance::{
        Ball, ConvexHull, ConvexShape, Cuboid, Cylinder, GjkOptions, MeshDistanceOptions,
        convex_distance, gjk_distance, gjk_support, mesh_distance, mesh_overlap,
    };
    let tetra = TriMesh::new(
        vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z],
        vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
    )
    .unwrap();
    let bvh = MeshBvh::<Rss>::new(tetra, &BvhOptions::default()).unwrap();
    let near = DAffine3::from_translation(DVec3::new(2.0, 0.0, 0.0));
    let closest = mesh_distance(
        &bvh,
        &DAffine3::IDENTITY,
        &bvh,
        &near,
        &MeshDistanceOptions::default(),
    )
    .unwrap();
    assert_eq!(roundtrip(&closest), closest);
    assert_eq!(roundtrip(&closest.stats), closest.stats);
    let overlap = mesh_overlap(&bvh, &DAffine3::IDENTITY, &bvh, &near, 1.5)
        .unwrap()
        .expect("within 1.5");
    assert_eq!(roundtrip(&overlap), overlap);
    let points = [DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z];
    let hull = ConvexHull::new(&points).unwrap();
    let gjk = gjk_distance(
        &hull,
        &DAffine3::IDENTITY,
        &hull,
        &near,
        &GjkOptions::default(),
    )
    .unwrap();
    assert_eq!(roundtrip(&gjk), gjk);
    assert!(
        serde_json::to_string(&gjk.status)
            .unwrap()
            .starts_with("\"converged")
    );
    let (ball, cube) = (
        Ball::new(0.5).unwrap(),
        Cuboid::new(DVec3::splat(0.5)).unwrap(),
    );
    let cylinder = Cylinder::new(1.0, 0.5).unwrap();
    let support = gjk_support(&cube, &cylinder, &near);
    assert_eq!(roundtrip(&support), support);
    let shapes = convex_distance(ConvexShape::Ball(&ball), ConvexShape::Cuboid(&cube), &near);
    assert_eq!(roundtrip(&shapes), shapes);
}
