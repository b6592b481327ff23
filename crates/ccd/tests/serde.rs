//! With the `serde` feature, options and results of the rigid and deformable queries
//! round-trip through JSON unchanged.

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
    let options = CaOptions {
        mode: Mode::Boolean,
        ..CaOptions::default()
    };
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
    let scene = Scene::new(vec![ground, falling], &options).unwrap();
    let all = scene.query(SceneMode::All);
    assert!(!all.contacts.is_empty());
    assert_eq!(roundtrip(&all), all);
    assert_eq!(roundtrip(&SceneMode::Boolean), SceneMode::Boolean);
    assert_eq!(roundtrip(&SceneStatus::Converged), SceneStatus::Converged);
}
