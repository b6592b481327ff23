//! Unit tests of `planning`.

use super::*;

#[test]
fn planning_scene_is_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<PlanningScene>();
}

#[test]
fn tessellations_hold_their_shapes() {
    let cyl = ObjectShape::Cylinder {
        radius: 0.3,
        length: 1.0,
    }
    .to_mesh("c")
    .unwrap();
    // the side faces' planes at least the radius from the axis
    for t in cyl.triangle_iter() {
        let n = (t.b - t.a).cross(t.c - t.a).normalize();
        if n.z.abs() < 1e-9 {
            assert!(n.dot(t.a) >= 0.3, "{}", n.dot(t.a));
        }
    }
    for s in [
        ObjectShape::Box {
            size: DVec3::new(1.0, 0.0, 1.0),
        },
        ObjectShape::Cylinder {
            radius: f64::NAN,
            length: 1.0,
        },
    ] {
        assert!(matches!(
            s.to_mesh("x"),
            Err(PlanningError::InvalidShape { .. })
        ));
    }
}
