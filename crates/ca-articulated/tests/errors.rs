//! Bad input gets a typed error, never a panic: joint vectors of the wrong length, NaN or
//! out-of-limit joints, wrong step counts, bad options, per-link poses that do not fit,
//! mesh counts that do not fit, unknown links, a URDF whose mesh file is missing, parts
//! beyond the coordinate domain; an
//! iteration cap is a status with a conservative lower bound.

mod support;

use std::sync::Arc;

use ccd_bvh::{BvhOptions, MeshBvh, Rss};
use ccd_ca_articulated::{
    AdaptiveScene, AdaptiveStep, ArticulatedBody, ArticulatedError, ArticulatedScene, BodyStep,
    Part, QueryOptions,
};
use ccd_ca_rigid::Status;
use ccd_geometry::TriMesh;
use ccd_geometry::glam::{DAffine3, DVec3};
use ccd_kinematics::{ArticulatedModel, Joint, Limits, LinkId, LinkSpec, Pose};

fn arm() -> ArticulatedBody {
    let link = |name: &str, parent: Option<&str>, joint| LinkSpec {
        name: name.into(),
        parent: parent.map(Into::into),
        joint,
        offset: DAffine3::from_translation(if parent.is_some() {
            DVec3::X
        } else {
            DVec3::ZERO
        }),
    };
    let hinge = Joint::Revolute {
        axis: DVec3::Z,
        limits: Some(Limits {
            lower: -3.0,
            upper: 3.0,
        }),
    };
    let model = ArticulatedModel::new(vec![
        link("l0", None, Joint::Fixed),
        link("l1", Some("l0"), hinge),
        link("l2", Some("l1"), hinge),
    ])
    .unwrap();
    let rod = TriMesh::cuboid(DVec3::new(0.1, -0.05, -0.05), DVec3::new(0.9, 0.05, 0.05)).unwrap();
    ArticulatedBody::from_meshes(model, vec![Some(rod.clone()), Some(rod.clone()), Some(rod)])
        .unwrap()
}

fn scene() -> ArticulatedScene {
    let mut s = ArticulatedScene::new();
    s.add_articulated(arm());
    s
}

fn joints<'a>(q0: &'a [f64], q1: &'a [f64]) -> [BodyStep<'a>; 1] {
    [BodyStep::Joints { q0, q1 }]
}

#[test]
fn joint_vector_of_the_wrong_length() {
    let e = scene()
        .query(&joints(&[0.0], &[0.0, 0.0]), &QueryOptions::default())
        .unwrap_err();
    assert_eq!(
        e,
        ArticulatedError::JointCount {
            body: 0,
            which: "start",
            expected: 2,
            got: 1
        }
    );
    let e = scene()
        .query(
            &joints(&[0.0, 0.0], &[0.0, 0.0, 1.0]),
            &QueryOptions::default(),
        )
        .unwrap_err();
    assert!(matches!(
        e,
        ArticulatedError::JointCount {
            which: "end",
            got: 3,
            ..
        }
    ));
}

#[test]
fn nan_infinite_and_out_of_limit_joints() {
    for bad in [f64::NAN, f64::INFINITY, 3.5] {
        let e = scene()
            .query(&joints(&[0.0, 0.0], &[0.0, bad]), &QueryOptions::default())
            .unwrap_err();
        assert!(
            matches!(e, ArticulatedError::InvalidJointValue { body: 0, which: "end", ref link, .. } if link == "l2"),
            "{e:?}"
        );
        assert!(e.to_string().contains("l2"));
    }
}

#[test]
fn step_count_options_and_poses() {
    let s = scene();
    let e = s.query(&[], &QueryOptions::default()).unwrap_err();
    assert_eq!(
        e,
        ArticulatedError::StepCount {
            expected: 1,
            got: 0
        }
    );
    // (below the per-link CA's `MIN_TOLERANCE`: refused up front, also when every pair is
    // culled before the narrow phase, as in this motionless scene)
    for opts in [
        QueryOptions::default().with_tolerance(0.0),
        QueryOptions::default().with_tolerance(f64::NAN),
        QueryOptions::default().with_tolerance(1e-311),
        QueryOptions::default().with_tolerance(0.5 * ccd_ca_rigid::MIN_TOLERANCE),
        QueryOptions::default().with_max_iterations(0),
        QueryOptions::default().with_segment_turn(0.0),
        QueryOptions::default().with_segment_turn(-1.0),
        QueryOptions::default().with_segment_turn(f64::NAN),
    ] {
        let e = s
            .query(&joints(&[0.0, 0.0], &[0.0, 0.0]), &opts)
            .unwrap_err();
        assert!(matches!(e, ArticulatedError::InvalidOptions(_)), "{e:?}");
    }
    // per-link poses: too few, or not rigid
    let ok = Pose {
        relative: vec![DAffine3::IDENTITY; 3],
    };
    let short = Pose {
        relative: vec![DAffine3::IDENTITY; 2],
    };
    let e = s
        .query(
            &[BodyStep::Poses {
                p0: &short,
                p1: &ok,
            }],
            &QueryOptions::default(),
        )
        .unwrap_err();
    assert!(
        matches!(e, ArticulatedError::Motion { body: 0, .. }),
        "{e:?}"
    );
    let mut sheared = ok.clone();
    sheared.relative[1].matrix3.x_axis.y = 0.5;
    let e = s
        .query(
            &[BodyStep::Poses {
                p0: &ok,
                p1: &sheared,
            }],
            &QueryOptions::default(),
        )
        .unwrap_err();
    assert!(
        matches!(e, ArticulatedError::Motion { body: 0, .. }),
        "{e:?}"
    );
    // check_edges needs exactly one body
    let e = ArticulatedScene::new()
        .check_edges(&[], &QueryOptions::default())
        .unwrap_err();
    assert_eq!(e, ArticulatedError::NotOneBody(0));
}

#[test]
fn geometry_counts_and_unknown_links() {
    let model = arm().model().clone();
    let e = ArticulatedBody::from_meshes(model.clone(), vec![None]).unwrap_err();
    assert_eq!(
        e,
        ArticulatedError::LinkCount {
            expected: 3,
            got: 1
        }
    );
    let e = ArticulatedBody::new(model.clone(), vec![None; 4]).unwrap_err();
    assert_eq!(
        e,
        ArticulatedError::LinkCount {
            expected: 3,
            got: 4
        }
    );
    let mut body = ArticulatedBody::from_meshes(model, vec![None, None, None]).unwrap();
    assert_eq!(
        body.disable_pair(LinkId(0), LinkId(9)),
        Err(ArticulatedError::UnknownLink { link: 9, count: 3 })
    );
    // links without geometry are skipped: nothing to collide
    let mut s = ArticulatedScene::new();
    s.add_articulated(body);
    let r = s
        .query(&joints(&[0.0, 0.0], &[2.9, 2.9]), &QueryOptions::default())
        .unwrap();
    assert!(r.first().is_none());
    assert_eq!(r.stats.pairs_before, 0);
}

#[test]
fn iteration_cap_is_a_status_with_a_lower_bound() {
    // the arm folds onto itself: first contact somewhere in (0, 1)
    let s = scene();
    let step = joints(&[0.0, 0.0], &[2.6, 2.6]);
    let full = s.query(&step, &QueryOptions::default()).unwrap();
    let toc = full.first().expect("folds into itself").contact.toc;
    let capped = s
        .query(&step, &QueryOptions::default().with_max_iterations(1))
        .unwrap();
    let c = capped.first().expect("a capped query still reports");
    assert_eq!(c.contact.status, Status::OutOfIterations);
    assert!(c.contact.toc <= toc + 1e-12, "{} > {toc}", c.contact.toc);
}

#[cfg(feature = "urdf")]
#[test]
fn urdf_with_a_missing_mesh_names_it() {
    use ccd_kinematics::KinematicsError;
    use ccd_kinematics::urdf::UrdfOptions;
    let dir = std::env::temp_dir().join(format!("ccd-art-missing-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("r.urdf"),
        r#"<robot name="r"><link name="a"><collision><geometry><mesh filename="nowhere.stl"/></geometry></collision></link></robot>"#,
    )
    .unwrap();
    let e =
        ArticulatedBody::from_urdf(dir.join("r.urdf"), None, &UrdfOptions::default()).unwrap_err();
    std::fs::remove_dir_all(&dir).ok();
    assert!(
        matches!(&e, ArticulatedError::Kinematics(KinematicsError::MeshUnavailable { uri, .. }) if uri == "nowhere.stl"),
        "{e:?}"
    );
    assert!(e.to_string().contains("nowhere.stl"));
}

/// A part with coordinates beyond the CA's domain (1e100) is refused by every query of the
/// scene, full and adaptive, also when its pairs are culled before the narrow phase (a fuzz
/// finding: an environment triangle at 1.7e289 was refused only by the queries whose CA
/// reached it); replacing it lifts the refusal.
#[test]
fn parts_beyond_the_domain_are_refused_by_every_query() {
    let far = |x: f64| {
        Arc::new(
            MeshBvh::<Rss>::new(
                TriMesh::cuboid(DVec3::splat(x), DVec3::splat(x + 0.5 * x.abs())).unwrap(),
                &BvhOptions::default(),
            )
            .unwrap(),
        )
    };
    let still = joints(&[0.0, 0.0], &[0.0, 0.0]);
    let mut s = scene();
    s.set_environment(far(1e200));
    let e = s.query(&still, &QueryOptions::default()).unwrap_err();
    assert!(
        matches!(e, ArticulatedError::OutOfDomain { part: Part::Environment, value } if value > 1e200),
        "{e:?}"
    );
    let mut a = AdaptiveScene::new(s.clone());
    let step = AdaptiveStep {
        q0: &[0.0, 0.0],
        q1: &[0.0, 0.0],
        active: &[],
    };
    let e2 = a.query(&[step], &QueryOptions::default()).unwrap_err();
    assert_eq!(e, e2);
    // a rigid body too
    let mut r = scene();
    r.add_rigid(
        far(-3e150),
        ccd_kinematics::RigidMotion::stationary(DAffine3::IDENTITY).unwrap(),
    );
    assert!(matches!(
        r.query(&still, &QueryOptions::default()),
        Err(ArticulatedError::OutOfDomain {
            part: Part::Rigid(0),
            ..
        })
    ));
    // a far environment replaced by a near one: accepted again
    s.set_environment(far(5.0));
    assert!(s.query(&still, &QueryOptions::default()).is_ok());
}
