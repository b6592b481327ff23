//! Quick start (the README's): the first time of contact between two rigid meshes read from
//! files. Run with `cargo run -p ccd --example quick_start [-- A.obj B.obj]`; its tests run
//! with `cargo test -p ccd` (`test = true` in Cargo.toml).

// quick-start:begin
use ccd::prelude::*;
use std::sync::Arc;

/// The first contact of mesh `a` (standing still) with mesh `b` sliding from x = 3 to x = -1.
fn first_contact(a: &str, b: &str) -> Result<Option<Contact>, ccd::Error> {
    let body = |path| -> Result<RigidBody, ccd::Error> {
        let mesh = ccd::geometry::io::read_mesh(path)?; // OBJ, STL or PLY
        let tree = MeshBvh::<Rss>::new(mesh, &BvhOptions::default())?;
        Ok(RigidBody::new(Arc::new(tree)))
    };
    let (a, b) = (body(a)?, body(b)?);
    let still = RigidMotion::stationary(DAffine3::IDENTITY)?;
    let sliding = RigidMotion::between(
        DAffine3::from_translation(DVec3::new(3.0, 0.0, 0.0)),
        DAffine3::from_translation(DVec3::new(-1.0, 0.0, 0.0)),
    )?;
    let options = CaOptions::default(); // tolerance 1e-3 (absolute), first contact
    Ok(time_of_contact(&a, &still, &b, &sliding, &options)?)
}
// quick-start:end

fn main() -> Result<(), ccd::Error> {
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/data");
    let mut args = std::env::args().skip(1);
    let a = args.next().unwrap_or_else(|| format!("{data}/cube.obj"));
    let b = args.next().unwrap_or_else(|| format!("{data}/tetra.obj"));
    match first_contact(&a, &b)? {
        Some(c) => println!(
            "first contact at t = {:.6}: {:?} of A at {} touches {:?} of B at {}, normal {}",
            c.toc, c.feature_a, c.point_a, c.feature_b, c.point_b, c.normal
        ),
        None => println!("no contact during the step"),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::first_contact;

    const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/data");

    /// The cube's face x = 0.5 meets the tetrahedron's vertex at its origin when
    /// 3 - 4t = 0.5: t = 0.625. The reported toc is conservative (not later) and within the
    /// time the tolerance 1e-3 takes to close at speed 4.
    #[test]
    fn quick_start_finds_the_first_contact() {
        let c = first_contact(&format!("{DATA}/cube.obj"), &format!("{DATA}/tetra.obj"))
            .expect("valid input")
            .expect("they collide");
        assert!(
            c.toc <= 0.625 && c.toc >= 0.625 - 1e-3 / 4.0 - 1e-9,
            "toc {}",
            c.toc
        );
        assert!(c.point_a.distance(c.point_b) <= 1e-3);
        assert!(
            (c.point_a.x - 0.5).abs() < 1e-3,
            "witness on the cube's +x face: {}",
            c.point_a
        );
    }

    #[test]
    fn quick_start_reports_a_missing_file_as_a_geometry_error() {
        let err = first_contact("no/such/file.obj", &format!("{DATA}/tetra.obj"))
            .expect_err("missing file");
        assert!(matches!(err, ccd::Error::Geometry(_)), "{err:?}");
    }

    /// The README shows the example's code between its `quick-start` markers, unchanged.
    #[test]
    fn readme_quick_start_is_the_tested_example() {
        let example = include_str!("../examples/quick_start.rs");
        let begin = example
            .find("// quick-start:begin\n")
            .expect("begin marker")
            + 21;
        let end = example.find("// quick-start:end").expect("end marker");
        let code = &example[begin..end];
        let readme = include_str!("../../../README.md");
        assert!(
            readme.contains(code),
            "README.md's quick start differs from crates/ccd/examples/quick_start.rs:\n{code}"
        );
    }
}
