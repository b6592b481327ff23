//! URDF loading is confined to the model directory and the package directories (issue 14
//! items 3–4): mesh paths that leave them (`..`, absolute, `file://`, `package://pkg/..`,
//! a symbolic link) give the same error as a missing file, unless
//! `UrdfOptions::allow_outside_paths` is set; tessellation sizes are capped; a missing mesh
//! is an error naming it and a link without geometry is kept (issue 15). Each case builds
//! its own directory tree under the system temp directory.

use std::path::{Path, PathBuf};

use ccd_kinematics::urdf::{UrdfOptions, UrdfRobot};
use ccd_kinematics::{KinematicsError, UriError};

const TRIANGLE_STL: &str = "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\n\
    vertex 1 0 0\nvertex 0 1 0\nendloop\nendfacet\nendsolid t\n";

/// `TMP/ccd-urdf-security-PID-NAME/` with `model/meshes/ok.stl`, `outside/secret.stl` and
/// `pkg/meshes/part.stl`; removed when dropped.
struct Tree {
    root: PathBuf,
}

impl Tree {
    fn new(name: &str) -> Self {
        let root =
            std::env::temp_dir().join(format!("ccd-urdf-security-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for (dir, file) in [
            ("model/meshes", "ok.stl"),
            ("outside", "secret.stl"),
            ("pkg/meshes", "part.stl"),
        ] {
            std::fs::create_dir_all(root.join(dir)).unwrap();
            std::fs::write(root.join(dir).join(file), TRIANGLE_STL).unwrap();
        }
        Self { root }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    fn options(&self) -> UrdfOptions {
        UrdfOptions::default().with_package("pkg", self.path("pkg"))
    }

    /// Writes `model/robot.urdf` with one link whose collision mesh is `filename`, and loads it.
    fn load(&self, filename: &str, options: &UrdfOptions) -> Result<UrdfRobot, KinematicsError> {
        let urdf = self.path("model/robot.urdf");
        std::fs::write(
            &urdf,
            format!(
                r#"<robot name="r"><link name="base"><collision><geometry>
                   <mesh filename="{filename}"/></geometry></collision></link></robot>"#
            ),
        )
        .unwrap();
        UrdfRobot::from_file(&urdf, options)
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

fn unavailable(r: Result<UrdfRobot, KinematicsError>, uri: &str) -> String {
    match r {
        Err(e @ KinematicsError::MeshUnavailable { .. }) => {
            let KinematicsError::MeshUnavailable { link, uri: u } = &e else {
                unreachable!()
            };
            assert_eq!((link.as_str(), u.as_str()), ("base", uri));
            // the message names the URI but no resolved path
            let text = e.to_string();
            assert!(text.contains(uri), "{text}");
            text.replace(uri, "URI")
        }
        other => panic!("{uri}: expected MeshUnavailable, got {other:?}"),
    }
}

#[test]
fn meshes_outside_the_model_and_package_directories_are_refused() {
    let t = Tree::new("outside");
    let opts = t.options();
    // inside: plain relative, package://, file:// to a file inside the model directory
    let inside = format!("file://{}", t.path("model/meshes/ok.stl").display());
    for ok in [
        "meshes/ok.stl",
        "package://pkg/meshes/part.stl",
        inside.as_str(),
    ] {
        let robot = t.load(ok, &opts).unwrap_or_else(|e| panic!("{ok}: {e}"));
        assert_eq!(robot.collisions[0][0].mesh.triangle_count(), 1);
    }
    // outside, existing: every form is refused with the same error as a missing file
    let secret = t.path("outside/secret.stl");
    let escapes = [
        "../outside/secret.stl".to_string(),
        "meshes/../../outside/secret.stl".to_string(),
        secret.display().to_string(),
        format!("file://{}", secret.display()),
        "package://pkg/../outside/secret.stl".to_string(),
        "package://pkg/meshes/../../outside/secret.stl".to_string(),
    ];
    let missing = [
        "meshes/nope.stl",
        "../outside/nope.stl",
        "package://pkg/nope.stl",
        "/nonexistent/ccd/secret.stl",
    ];
    let mut messages = Vec::new();
    for uri in escapes.iter().map(String::as_str).chain(missing) {
        messages.push(unavailable(t.load(uri, &opts), uri));
    }
    // one message for all: an existing outside file reads like a missing one
    assert!(messages.windows(2).all(|w| w[0] == w[1]), "{messages:?}");

    // opted out: outside files load, and a missing file says where it looked
    let open = t.options().with_allow_outside_paths(true);
    for uri in &escapes {
        assert!(t.load(uri, &open).is_ok(), "{uri}");
    }
    assert!(matches!(
        t.load("../outside/nope.stl", &open),
        Err(KinematicsError::MissingMesh { ref path, .. }) if path.ends_with("outside/nope.stl")
    ));
}

#[cfg(unix)]
#[test]
fn a_symbolic_link_out_of_the_model_directory_is_refused() {
    let t = Tree::new("symlink");
    std::os::unix::fs::symlink(t.path("outside"), t.path("model/meshes/link")).unwrap();
    std::os::unix::fs::symlink(
        t.path("outside/secret.stl"),
        t.path("model/meshes/secret.stl"),
    )
    .unwrap();
    for uri in ["meshes/link/secret.stl", "meshes/secret.stl"] {
        unavailable(t.load(uri, &t.options()), uri);
        let open = t.options().with_allow_outside_paths(true);
        assert!(t.load(uri, &open).is_ok());
    }
    // a link inside the model directory to a file inside it is fine
    std::os::unix::fs::symlink(t.path("model/meshes/ok.stl"), t.path("model/alias.stl")).unwrap();
    assert!(t.load("alias.stl", &t.options()).is_ok());
}

#[test]
fn unresolvable_uris_are_typed() {
    let t = Tree::new("uris");
    let opts = t.options();
    assert_eq!(
        opts.resolve_uri("package://other/a.stl", Path::new(".")),
        Err(UriError::UnknownPackage {
            package: "other".into()
        })
    );
    assert_eq!(
        opts.resolve_uri("https://example.invalid/a.stl", Path::new(".")),
        Err(UriError::UnsupportedScheme {
            scheme: "https".into()
        })
    );
    assert!(matches!(
        t.load("ftp://host/a.stl", &opts),
        Err(KinematicsError::UnresolvedUri {
            reason: UriError::UnsupportedScheme { .. },
            ..
        })
    ));
}

#[test]
fn primitive_segments_are_capped() {
    let sphere = r#"<robot name="r"><link name="a"><collision><geometry><sphere radius="1"/>
        </geometry></collision></link></robot>"#;
    for segments in [UrdfOptions::MAX_PRIMITIVE_SEGMENTS + 1, 100_000, u32::MAX] {
        let opts = UrdfOptions::default().with_primitive_segments(segments);
        assert_eq!(
            UrdfRobot::parse(sphere, ".", &opts).unwrap_err(),
            KinematicsError::TooManySegments {
                segments,
                max: UrdfOptions::MAX_PRIMITIVE_SEGMENTS
            }
        );
    }
    let opts = UrdfOptions::default().with_primitive_segments(UrdfOptions::MAX_PRIMITIVE_SEGMENTS);
    let robot = UrdfRobot::parse(sphere, ".", &opts).unwrap();
    assert_eq!(robot.collisions[0][0].mesh.vertices().len(), 256 * 127 + 2);
}

#[test]
fn a_missing_mesh_is_named_and_a_link_without_geometry_is_kept() {
    let t = Tree::new("geometry");
    let urdf = t.path("model/two.urdf");
    let text = |mesh: &str| {
        format!(
            r#"<robot name="r">
                 <link name="bare"/>
                 <link name="shown"><visual><geometry><mesh filename="meshes/no_such_visual.stl"/></geometry></visual></link>
                 <link name="arm"><collision><geometry><mesh filename="{mesh}"/></geometry></collision></link>
                 <joint name="j1" type="fixed"><parent link="bare"/><child link="shown"/></joint>
                 <joint name="j2" type="fixed"><parent link="shown"/><child link="arm"/></joint>
               </robot>"#
        )
    };
    std::fs::write(&urdf, text("meshes/ok.stl")).unwrap();
    let robot = UrdfRobot::from_file(&urdf, &t.options()).unwrap();
    let m = &robot.model;
    for name in ["bare", "shown"] {
        let id = m.link_id(name).unwrap();
        assert!(robot.collisions[id.index()].is_empty(), "{name}");
        assert!(robot.link_mesh(id).is_none(), "{name}");
    }
    assert!(robot.link_mesh(m.link_id("arm").unwrap()).is_some());

    std::fs::write(&urdf, text("meshes/gone.stl")).unwrap();
    let err = UrdfRobot::from_file(&urdf, &t.options()).unwrap_err();
    assert!(
        matches!(&err, KinematicsError::MeshUnavailable { link, uri } if link == "arm" && uri == "meshes/gone.stl"),
        "{err:?}"
    );
    assert!(err.to_string().contains("meshes/gone.stl"));
}
