//! Scene queries against the brute-force reference over all feature pairs: a cloth falling
//! on a sphere (inter- and self-contacts), random soups (proptest), options and bad input.

use ccd_geometry::glam::DVec3;
use ccd_la_deformable::scene::{
    DeformingScene, Kernel, Resting, SceneOptions, SceneResult, brute_force,
};
use ccd_la_deformable::{DeformingMesh, LaError, LaOptions, Mode, SceneContact, Status};
use proptest::prelude::*;

/// A `(n+1)²`-vertex grid cloth of side `size` centred at the origin in the xz plane.
fn grid(n: u32, size: f64) -> (Vec<[u32; 3]>, Vec<DVec3>) {
    let mut tris = Vec::new();
    for i in 0..n {
        for j in 0..n {
            let v = i * (n + 1) + j;
            tris.push([v, v + 1, v + n + 2]);
            tris.push([v, v + n + 2, v + n + 1]);
        }
    }
    let pts = (0..=n)
        .flat_map(|i| {
            (0..=n).map(move |j| {
                DVec3::new(
                    (f64::from(j) / f64::from(n) - 0.5) * size,
                    0.0,
                    (f64::from(i) / f64::from(n) - 0.5) * size,
                )
            })
        })
        .collect();
    (tris, pts)
}

/// A UV sphere.
fn sphere(centre: DVec3, r: f64, rings: u32, segs: u32) -> (Vec<[u32; 3]>, Vec<DVec3>) {
    let mut pts = vec![centre + DVec3::Y * r];
    for i in 1..rings {
        let th = std::f64::consts::PI * f64::from(i) / f64::from(rings);
        for j in 0..segs {
            let ph = std::f64::consts::TAU * f64::from(j) / f64::from(segs);
            pts.push(centre + r * DVec3::new(th.sin() * ph.cos(), th.cos(), th.sin() * ph.sin()));
        }
    }
    pts.push(centre - DVec3::Y * r);
    let south = pts.len() as u32 - 1;
    let ring = |i: u32, j: u32| 1 + i * segs + j % segs;
    let mut tris = Vec::new();
    for j in 0..segs {
        tris.push([0, ring(0, j + 1), ring(0, j)]);
        tris.push([south, ring(rings - 2, j), ring(rings - 2, j + 1)]);
    }
    for i in 0..rings - 2 {
        for j in 0..segs {
            tris.push([ring(i, j), ring(i, j + 1), ring(i + 1, j + 1)]);
            tris.push([ring(i, j), ring(i + 1, j + 1), ring(i + 1, j)]);
        }
    }
    (tris, pts)
}

/// A cloth dropping onto a sphere: the end pose drapes it over the sphere and folds its
/// border back under itself (self-contacts), the sphere turns about +y.
fn cloth_on_sphere(n: u32) -> Vec<DeformingMesh> {
    let (ct, flat) = grid(n, 4.0);
    let x0: Vec<DVec3> = flat.iter().map(|p| *p + DVec3::Y * 1.3).collect();
    let x1: Vec<DVec3> = flat
        .iter()
        .map(|p| {
            let r2 = p.x * p.x + p.z * p.z;
            let on_sphere = if r2 < 1.0 { (1.0 - r2).sqrt() } else { 0.0 };
            // a fold: the outer ring swings up and back over the inner part
            let fold = if p.x > 1.2 { (p.x - 1.2) * 1.4 } else { 0.0 };
            DVec3::new(
                p.x - 1.6 * fold,
                on_sphere + 0.15 - 0.2 * r2.sqrt() + 0.9 * fold,
                p.z,
            )
        })
        .collect();
    let (st, sp) = sphere(DVec3::ZERO, 1.0, 10, 16);
    let rot = ccd_geometry::glam::DQuat::from_rotation_y(0.3);
    let sp1 = sp.iter().map(|p| rot * *p).collect();
    vec![
        DeformingMesh::new(ct, x0, x1).unwrap(),
        DeformingMesh::new(st, sp, sp1).unwrap(),
    ]
}

type Key = (u32, ccd_geometry::Feature, u32, ccd_geometry::Feature);

fn keys(r: &SceneResult) -> Vec<(Key, f64)> {
    let mut v: Vec<(Key, f64)> = r
        .contacts
        .iter()
        .map(|c: &SceneContact| ((c.mesh_a, c.feature_a, c.mesh_b, c.feature_b), c.toc))
        .collect();
    v.sort_by(|a, b| format!("{:?}", a.0).cmp(&format!("{:?}", b.0)));
    v
}

/// The scene and the brute force agree on every output mode.
fn check_agreement(meshes: Vec<DeformingMesh>, opts: &SceneOptions) -> (usize, Option<f64>) {
    let all_ref = brute_force(&meshes, opts, Mode::All).unwrap();
    let global_ref = brute_force(&meshes, opts, Mode::Toc).unwrap();
    let scene = DeformingScene::new(meshes, opts).unwrap();
    let all = scene.query(Mode::All);
    assert_eq!(
        keys(&all),
        keys(&all_ref),
        "all ToCs differ from brute force"
    );
    let global = scene.query(Mode::Toc);
    assert_eq!(global.toc(), global_ref.toc(), "global ToC differs");
    assert_eq!(global.toc(), all_ref.toc());
    let boolean = scene.query(Mode::Boolean);
    assert_eq!(boolean.contacts.is_empty(), all_ref.contacts.is_empty());
    assert!(global.stats.primitive_tests <= all.stats.primitive_tests);
    (all_ref.contacts.len(), global_ref.toc())
}

#[test]
fn cloth_on_sphere_matches_brute_force() {
    let meshes = cloth_on_sphere(24); // 1152 + 288 triangles
    let (count, toc) = check_agreement(meshes.clone(), &SceneOptions::default());
    assert!(count > 50, "the scene must have contacts ({count})");
    let toc = toc.unwrap();
    assert!(toc > 0.0 && toc < 1.0);
    // both inter-object and self contacts occur
    let all = brute_force(&meshes, &SceneOptions::default(), Mode::All).unwrap();
    assert!(all.contacts.iter().any(|c| c.mesh_a != c.mesh_b));
    assert!(all.contacts.iter().any(|c| c.mesh_a == 0 && c.mesh_b == 0));
    // the conventional pipeline (swept volumes only) and the cubic kernel inside it agree
    check_agreement(
        meshes.clone(),
        &SceneOptions::default().with_moving_bounds(false),
    );
    // other layer heights and leaf sizes give the same answers
    for (layer_height, leaf_size) in [(0, 1), (1, 2), (8, 8), (100, 4)] {
        let opts = SceneOptions::default()
            .with_layer_height(layer_height)
            .with_leaf_size(leaf_size);
        check_agreement(meshes.clone(), &opts);
    }
    // without self-collision, only mesh-pair contacts remain
    let opts = SceneOptions::default().with_self_collision(false);
    let inter = DeformingScene::new(meshes, &opts).unwrap().query(Mode::All);
    assert!(!inter.contacts.is_empty());
    assert!(inter.contacts.iter().all(|c| c.mesh_a != c.mesh_b));
}

#[test]
fn cubic_baseline_scene_matches_its_brute_force() {
    let opts = SceneOptions::default().with_kernel(Kernel::CubicBaseline);
    check_agreement(cloth_on_sphere(12), &opts);
}

#[test]
fn la_and_cubic_find_contacts_at_the_same_time() {
    let meshes = cloth_on_sphere(16);
    let la = DeformingScene::new(meshes.clone(), &SceneOptions::default())
        .unwrap()
        .query(Mode::Toc)
        .toc()
        .unwrap();
    let cubic = DeformingScene::new(
        meshes,
        &SceneOptions::default().with_kernel(Kernel::CubicBaseline),
    )
    .unwrap()
    .query(Mode::Toc)
    .toc()
    .unwrap();
    // LA reports within the tolerance before the exact touching time the cubic finds
    assert!(la <= cubic + 1e-9, "LA {la} after cubic {cubic}");
    assert!(cubic - la < 1e-3, "LA {la} far before cubic {cubic}");
}

#[test]
fn update_refits_and_matches_a_fresh_scene() {
    let meshes = cloth_on_sphere(10);
    let mut scene = DeformingScene::new(meshes.clone(), &SceneOptions::default()).unwrap();
    // swap the cloth's poses: a different step over the same topology
    let (x0, x1) = (meshes[0].x1().to_vec(), meshes[0].x0().to_vec());
    scene.update(0, x0.clone(), x1.clone()).unwrap();
    let fresh = DeformingScene::new(
        vec![
            DeformingMesh::new(meshes[0].triangles().to_vec(), x0, x1).unwrap(),
            meshes[1].clone(),
        ],
        &SceneOptions::default(),
    )
    .unwrap();
    assert_eq!(keys(&scene.query(Mode::All)), keys(&fresh.query(Mode::All)));
    // a connected mesh is refitted however far it moves
    let rebuilds = scene.rebuilds();
    let far: Vec<DVec3> = meshes[1].x0().iter().map(|p| *p + DVec3::X * 3.0).collect();
    scene.update(1, far.clone(), far).unwrap();
    assert_eq!(scene.rebuilds(), rebuilds);
    // a mesh of two pieces is rebuilt once they drift apart, and stays exact
    let (ta, pa) = sphere(DVec3::new(-0.6, 0.0, 0.0), 0.5, 6, 8);
    let (tb, pb) = sphere(DVec3::new(0.6, 0.0, 0.0), 0.5, 6, 8);
    let n = pa.len() as u32;
    let tris: Vec<[u32; 3]> = ta
        .into_iter()
        .chain(tb.into_iter().map(|t| t.map(|v| v + n)))
        .collect();
    let pts: Vec<DVec3> = pa.into_iter().chain(pb).collect();
    let pair = DeformingMesh::new(tris.clone(), pts.clone(), pts.clone()).unwrap();
    let mut scene = DeformingScene::new(vec![pair], &SceneOptions::default()).unwrap();
    let spread = |d: f64| -> Vec<DVec3> {
        pts.iter()
            .map(|p| *p + DVec3::X * (d * p.x.signum()))
            .collect()
    };
    scene.update(0, spread(1e-3), spread(2e-3)).unwrap();
    assert_eq!(scene.rebuilds(), 0);
    // the pieces fly apart, then one is thrown back into the other
    scene.update(0, spread(1.0), spread(1.1)).unwrap();
    assert_eq!(scene.rebuilds(), 1);
    let back: Vec<DVec3> = spread(1.1)
        .iter()
        .map(|p| if p.x > 0.0 { *p - DVec3::X * 3.5 } else { *p })
        .collect();
    scene.update(0, spread(1.1), back.clone()).unwrap();
    let moved = vec![DeformingMesh::new(tris, spread(1.1), back).unwrap()];
    let reference = brute_force(
        &moved,
        &SceneOptions::default().with_normal_cones(false),
        Mode::All,
    )
    .unwrap();
    assert!(!reference.contacts.is_empty());
    assert_eq!(keys(&scene.query(Mode::All)), keys(&reference));
    assert!(matches!(
        scene.update(5, vec![], vec![]),
        Err(LaError::InvalidOption(_))
    ));
    assert!(matches!(
        scene.update(0, vec![DVec3::ZERO], vec![DVec3::ZERO]),
        Err(LaError::VertexCountMismatch { .. })
    ));
}

#[test]
fn bad_options_and_empty_scenes() {
    let m = cloth_on_sphere(4);
    let bad = SceneOptions::default().with_leaf_size(0);
    assert!(matches!(
        DeformingScene::new(m.clone(), &bad),
        Err(LaError::InvalidOption(_))
    ));
    let bad = SceneOptions::default().with_la(LaOptions::default().with_tolerance(f64::NAN));
    assert!(matches!(
        DeformingScene::new(m, &bad),
        Err(LaError::InvalidTolerance(_))
    ));
    let empty = DeformingScene::new(vec![], &SceneOptions::default()).unwrap();
    assert_eq!(empty.query(Mode::All).toc(), None);
    let no_tris = DeformingMesh::new(vec![], vec![DVec3::ZERO], vec![DVec3::X]).unwrap();
    let s = DeformingScene::new(vec![no_tris.clone(), no_tris], &SceneOptions::default()).unwrap();
    assert!(s.query(Mode::Toc).contacts.is_empty());
}

#[test]
fn coordinates_beyond_max_coordinate_are_typed_errors_in_scenes() {
    use ccd_distance::MAX_COORDINATE;
    // the kernels' domain holds for scene meshes too: rejected when built and when updated,
    // the scene unchanged after a rejected update
    let (tris, x) = grid(2, 1.0);
    let mut far = x.clone();
    far[4].y = 1.5e100;
    assert_eq!(
        DeformingMesh::new(tris.clone(), x.clone(), far.clone()).unwrap_err(),
        LaError::CoordinateOutOfRange {
            vertex: 4,
            time: 1,
            value: 1.5e100
        }
    );
    // at the bound: a scene at 1e100 scale finds the same contacts as at unit scale
    let scaled = |s: f64| -> Vec<DVec3> { x.iter().map(|p| *p * s).collect() };
    let lifted = |s: f64| -> Vec<DVec3> { x.iter().map(|p| (*p + DVec3::Y * 0.5) * s).collect() };
    let falling = |s: f64| {
        vec![
            DeformingMesh::new(tris.clone(), scaled(s), scaled(s)).unwrap(),
            DeformingMesh::new(
                tris.clone(),
                lifted(s),
                scaled(s).iter().map(|p| *p - DVec3::Y * 0.5 * s).collect(),
            )
            .unwrap(),
        ]
    };
    // 2³³⁰ ≈ 2.2e99: exact scaling, every coordinate within MAX_COORDINATE
    let s = 2f64.powi(330);
    assert!(s < MAX_COORDINATE);
    let opts =
        |s: f64| SceneOptions::default().with_la(LaOptions::default().with_tolerance(1e-6 * s));
    let unit = DeformingScene::new(falling(1.0), &opts(1.0))
        .unwrap()
        .query(Mode::Toc);
    let mut big = DeformingScene::new(falling(s), &opts(s)).unwrap();
    let huge = big.query(Mode::Toc);
    let (tu, th) = (
        unit.toc().expect("the sheets meet"),
        huge.toc().expect("at 5e99 too"),
    );
    assert!((tu - th).abs() < 1e-6, "{tu} vs {th}");
    assert!(tu <= 0.5 && tu > 0.49, "{tu}");
    let e = big.update(1, far.clone(), far).unwrap_err();
    assert!(
        matches!(e, LaError::CoordinateOutOfRange { vertex: 4, .. }),
        "{e}"
    );
    assert_eq!(big.query(Mode::Toc).toc(), huge.toc());
}

#[cfg(feature = "parallel")]
#[test]
fn parallel_query_matches_sequential() {
    let meshes = cloth_on_sphere(24);
    let seq = DeformingScene::new(meshes.clone(), &SceneOptions::default()).unwrap();
    let par = DeformingScene::new(meshes, &SceneOptions::default().with_parallel(true)).unwrap();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    pool.install(|| {
        assert_eq!(keys(&par.query(Mode::All)), keys(&seq.query(Mode::All)));
        assert_eq!(par.query(Mode::Toc).toc(), seq.query(Mode::Toc).toc());
        assert_eq!(
            par.query(Mode::Boolean).contacts.is_empty(),
            seq.query(Mode::Boolean).contacts.is_empty()
        );
    });
}

/// Serial and parallel answers are the same bit for bit: the global ToC, the sorted
/// contact and resting lists of `All` (every field), the Boolean answer; `thresholds` force
/// the split (`(0, 1)`: split at once, down to single leaves).
#[cfg(feature = "parallel")]
fn check_parallel_identical(meshes: &[DeformingMesh], opts: &SceneOptions, thresholds: (u32, u32)) {
    let seq = DeformingScene::new(meshes.to_vec(), opts).unwrap();
    let par_opts = opts
        .with_parallel(true)
        .with_parallel_thresholds(thresholds.0, thresholds.1);
    let par = DeformingScene::new(meshes.to_vec(), &par_opts).unwrap();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    pool.install(|| {
        let (sa, pa) = (seq.query(Mode::All), par.query(Mode::All));
        assert_eq!(
            pa.contacts, sa.contacts,
            "All contacts, thresholds {thresholds:?}"
        );
        assert_eq!(
            pa.resting, sa.resting,
            "All resting, thresholds {thresholds:?}"
        );
        let (st, pt) = (seq.query(Mode::Toc), par.query(Mode::Toc));
        assert_eq!(
            pt.toc().map(f64::to_bits),
            st.toc().map(f64::to_bits),
            "Toc, thresholds {thresholds:?}"
        );
        // the global ToC is the earliest of All's contacts
        assert_eq!(
            st.toc().map(f64::to_bits),
            sa.contacts.first().map(|c| c.toc.to_bits())
        );
        assert_eq!(
            par.query(Mode::Boolean).contacts.is_empty(),
            seq.query(Mode::Boolean).contacts.is_empty(),
            "Boolean, thresholds {thresholds:?}"
        );
    });
}

#[cfg(feature = "parallel")]
#[test]
fn parallel_split_answers_are_bit_identical() {
    let meshes = cloth_on_sphere(24);
    let mut folds = Vec::new();
    for seed in [3u64, 8] {
        folds.push(folding_sheet(seed * 7919, std::f64::consts::PI));
    }
    for resting in [Resting::Contact, Resting::Separate] {
        let opts = SceneOptions::default().with_resting(resting);
        // (0, u32::MAX): split at once, but no task is big enough to hand out
        for th in [
            (0, 1),
            (0, 16),
            (0, 128),
            (100, 64),
            (500, 512),
            (0, u32::MAX),
        ] {
            check_parallel_identical(&meshes, &opts, th);
            for f in &folds {
                check_parallel_identical(std::slice::from_ref(f), &opts, th);
            }
        }
    }
}

/// The serial budget counts work, not time: a query whose work fits in it runs the serial
/// traversal exactly (the same counters, run after run, whatever the machine's load); a
/// budget of a quarter of the query's work splits it, with the serial answer.
#[cfg(feature = "parallel")]
#[test]
fn parallel_budget_counts_work_not_time() {
    use ccd_la_deformable::scene::work_units;
    let meshes = cloth_on_sphere(24);
    let seq = DeformingScene::new(meshes.clone(), &SceneOptions::default()).unwrap();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    for mode in [Mode::All, Mode::Toc] {
        let serial = seq.query(mode);
        let work = u32::try_from(work_units(&serial.stats)).unwrap();
        assert!(
            work > 100,
            "{mode:?}: the scene is too small to split ({work} units)"
        );
        for _ in 0..5 {
            let within = SceneOptions::default()
                .with_parallel(true)
                .with_parallel_thresholds(work, 1);
            let par = DeformingScene::new(meshes.clone(), &within).unwrap();
            let r = pool.install(|| par.query(mode));
            assert_eq!(r.stats, serial.stats, "{mode:?}: budget {work} units");
        }
        let split = SceneOptions::default()
            .with_parallel(true)
            .with_parallel_thresholds(work / 4, 1);
        let par = DeformingScene::new(meshes.clone(), &split).unwrap();
        let r = pool.install(|| par.query(mode));
        assert_eq!(r.toc().map(f64::to_bits), serial.toc().map(f64::to_bits));
        if mode == Mode::All {
            assert_eq!(r.contacts, serial.contacts);
        }
    }
}

/// A Boolean query runs `BOOLEAN_SERIAL_FACTOR` times the serial budget before it splits:
/// within that it is the serial query, counters included; below it, it splits with the same
/// answer.
#[cfg(feature = "parallel")]
#[test]
fn boolean_queries_have_a_longer_serial_head_start() {
    use ccd_la_deformable::scene::{BOOLEAN_SERIAL_FACTOR, work_units};
    let meshes = cloth_on_sphere(24);
    let seq = DeformingScene::new(meshes.clone(), &SceneOptions::default()).unwrap();
    let serial = seq.query(Mode::Boolean);
    let work = u32::try_from(work_units(&serial.stats)).unwrap();
    assert!(
        work > 400,
        "the Boolean query is too small to split ({work} units)"
    );
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    for _ in 0..5 {
        // a Toc or All query would split after this much work; a Boolean one does not
        let within = SceneOptions::default()
            .with_parallel(true)
            .with_parallel_thresholds(work.div_ceil(BOOLEAN_SERIAL_FACTOR), 1);
        let par = DeformingScene::new(meshes.clone(), &within).unwrap();
        let r = pool.install(|| par.query(Mode::Boolean));
        assert_eq!(r.stats, serial.stats, "budget {work} units");
    }
    let split = SceneOptions::default()
        .with_parallel(true)
        .with_parallel_thresholds(work / (4 * BOOLEAN_SERIAL_FACTOR), 1);
    let par = DeformingScene::new(meshes, &split).unwrap();
    let r = pool.install(|| par.query(Mode::Boolean));
    assert_eq!(r.toc().is_some(), serial.toc().is_some());
}

#[cfg(feature = "parallel")]
proptest! {
    #[test]
    fn parallel_split_matches_serial_on_random_soups(
        a in soup(12),
        b in soup(8),
        leaf in 1u32..5,
        grain in 1u32..40,
        separate in proptest::bool::ANY,
    ) {
        let resting = if separate { Resting::Separate } else { Resting::Contact };
        let opts = SceneOptions::default().with_leaf_size(leaf).with_resting(resting);
        check_parallel_identical(&[a, b], &opts, (0, grain));
    }
}

/// A random small soup: `n` triangles near the origin moving by random displacements.
fn soup(n: usize) -> impl Strategy<Value = DeformingMesh> {
    let coord = -1.0..1.0f64;
    let p = [coord.clone(), coord.clone(), coord];
    (
        proptest::collection::vec(p.clone(), 3 * n),
        proptest::collection::vec([-0.8..0.8f64, -0.8..0.8f64, -0.8..0.8f64], 3 * n),
        0..3usize,
    )
        .prop_map(move |(pts, moves, shared)| {
            let x0: Vec<DVec3> = pts.iter().map(|c| DVec3::from_array(*c)).collect();
            let x1: Vec<DVec3> = x0
                .iter()
                .zip(&moves)
                .map(|(p, d)| *p + DVec3::from_array(*d))
                .collect();
            // some triangles share vertices with the previous one (adjacency)
            let tris = (0..n as u32)
                .map(|t| {
                    if t > 0 && (t as usize) % 3 < shared {
                        [3 * t - 1, 3 * t, 3 * t + 1]
                    } else {
                        [3 * t, 3 * t + 1, 3 * t + 2]
                    }
                })
                .collect();
            DeformingMesh::new(tris, x0, x1).unwrap()
        })
}

proptest! {
    #[test]
    fn random_soups_match_brute_force(a in soup(12), b in soup(8), leaf in 1u32..5, layer in 0u32..4) {
        let opts = SceneOptions::default().with_leaf_size(leaf).with_layer_height(layer);
        check_agreement(vec![a, b], &opts);
    }
}

/// A 20 × 20 sheet in the plane y = 0 moving by a smooth random field plus a fold: the part
/// beyond a random line rotates about it by `angle` (radians) and drops a little, so large
/// flat regions (normal-cone culled) and a folding crease (real self-contacts when the angle
/// nears π) occur in one step.
fn folding_sheet(seed: u64, angle: f64) -> DeformingMesh {
    let (tris, x0) = grid(20, 4.0);
    let mut s = seed | 1;
    let mut rnd = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 11) as f64 / (1u64 << 53) as f64
    };
    let (a, b, c) = (rnd() - 0.5, rnd() - 0.5, rnd() * 0.8 - 0.4);
    let (k1, k2) = (1.0 + 3.0 * rnd(), 1.0 + 3.0 * rnd());
    let shift = DVec3::new(rnd() - 0.5, -rnd(), rnd() - 0.5) * 0.5;
    let x1 = x0
        .iter()
        .map(|p| {
            let wave = DVec3::new(
                0.02 * (k1 * p.z).sin(),
                0.05 * (k2 * p.x + a).sin() * (k1 * p.z + b).cos(),
                0.02 * (k2 * p.x).cos(),
            );
            let mut q = *p + wave + shift;
            // fold about the line x = c (in the sheet's plane)
            if p.x > c {
                let r = p.x - c;
                q.x = c + r * angle.cos() + shift.x;
                q.y += r * angle.sin() + 0.002;
            }
            q
        })
        .collect();
    DeformingMesh::new(tris, x0, x1).unwrap()
}

#[test]
fn normal_cone_culling_keeps_every_contact_on_folding_sheets() {
    let mut skipped = 0;
    let mut contacts = 0;
    for seed in 1..=12u64 {
        // from a gentle bend to a full fold onto itself (π: the halves meet)
        let angle = std::f64::consts::PI * (0.2 + 0.8 * (seed % 5) as f64 / 4.0);
        let mesh = folding_sheet(seed * 7919, angle);
        let opts = SceneOptions::default();
        let (n, _) = check_agreement(vec![mesh.clone()], &opts);
        contacts += n;
        let scene = DeformingScene::new(vec![mesh.clone()], &opts).unwrap();
        skipped += scene.query(Mode::All).stats.patches_skipped;
        // culling off gives the same contacts, with no patch skipped
        let off = opts.with_normal_cones(false);
        let scene_off = DeformingScene::new(vec![mesh], &off).unwrap();
        let r = scene_off.query(Mode::All);
        assert_eq!(r.stats.patches_skipped, 0);
        assert_eq!(keys(&r), keys(&scene.query(Mode::All)));
    }
    assert!(skipped > 50, "normal cones must cull here ({skipped})");
    assert!(contacts > 0, "the full folds must touch ({contacts})");
}

/// Closed balls (pieces of one mesh) that turn and wobble, and one whose cap is pushed in
/// through its own far side: the star test skips the intact balls' self-collision and
/// nothing differs from brute force.
#[test]
fn star_culling_of_closed_pieces_keeps_every_contact() {
    let mut tris = Vec::new();
    let (mut x0, mut x1) = (Vec::new(), Vec::new());
    for (k, dent) in [(0u32, false), (1, false), (2, true)] {
        let c = DVec3::new(2.5 * f64::from(k), 0.0, 0.0);
        let (t, p) = sphere(c, 0.8, 8, 12);
        let base = x0.len() as u32;
        tris.extend(t.into_iter().map(|f| f.map(|v| v + base)));
        let q = ccd_geometry::glam::DQuat::from_rotation_z(0.4 + 0.3 * f64::from(k));
        for v in p {
            x0.push(v);
            let local = v - c;
            let moved = if dent && local.y > 0.4 {
                // the north cap goes down through the south side
                c + DVec3::new(local.x, -1.2, local.z)
            } else {
                c + q * (local * DVec3::new(1.2, 0.9, 1.0)) + DVec3::new(0.0, 0.3, 0.0)
            };
            x1.push(moved);
        }
    }
    let mesh = DeformingMesh::new(tris, x0, x1).unwrap();
    let opts = SceneOptions::default();
    let (contacts, toc) = check_agreement(vec![mesh.clone()], &opts);
    assert!(
        contacts > 0 && toc.is_some(),
        "the dented ball must touch itself"
    );
    let scene = DeformingScene::new(vec![mesh], &opts).unwrap();
    let r = scene.query(Mode::All);
    assert!(
        r.stats.patches_skipped >= 2,
        "the intact balls are certified"
    );
    assert!(
        r.contacts.iter().all(|c| c.mesh_a == 0 && c.mesh_b == 0),
        "contacts are self-contacts"
    );
}

/// Every scene contact carries world witness points at its `toc`: `point_a` on feature `a`
/// and `point_b` on feature `b` (both moved to `toc`), `distance = |point_b - point_a|`
/// below the tolerance (unless capped), and a unit normal from `a` towards `b`.
#[test]
fn scene_contacts_carry_world_witnesses_on_their_features() {
    use ccd_distance::{point_segment, point_triangle};
    use ccd_geometry::{Feature, Segment, Triangle};
    use ccd_la_deformable::Status;

    let meshes = cloth_on_sphere(10);
    for kernel in [Kernel::LocalAdvancement, Kernel::CubicBaseline] {
        let opts = SceneOptions::default().with_kernel(kernel);
        let scene = DeformingScene::new(meshes.clone(), &opts).unwrap();
        let all = scene.query(Mode::All);
        assert!(
            all.contacts.len() > 10,
            "{kernel:?}: {}",
            all.contacts.len()
        );
        for c in &all.contacts {
            let at = |mesh: u32, v: u32| scene.meshes()[mesh as usize].position_at(v, c.toc);
            let off = |mesh: u32, f: Feature, p: DVec3| match f {
                Feature::Vertex(v) => at(mesh, v).distance(p),
                Feature::Edge(i, j) => {
                    point_segment(p, &Segment::new(at(mesh, i), at(mesh, j))).distance
                }
                Feature::Face(t) => {
                    let [i, j, k] = scene.meshes()[mesh as usize].triangles()[t as usize];
                    point_triangle(p, &Triangle::new(at(mesh, i), at(mesh, j), at(mesh, k)))
                        .distance
                }
            };
            assert!(off(c.mesh_a, c.feature_a, c.point_a) < 1e-9, "{c:?}");
            assert!(off(c.mesh_b, c.feature_b, c.point_b) < 1e-9, "{c:?}");
            assert!(
                (c.point_a.distance(c.point_b) - c.distance).abs() < 1e-12,
                "{c:?}"
            );
            if c.status != Status::OutOfIterations {
                assert!(c.distance < opts.la.tolerance, "{c:?}");
            }
            let n = c.normal.length();
            assert!(n == 0.0 || (n - 1.0).abs() < 1e-12, "{c:?}");
            assert!(c.normal.dot(c.point_b - c.point_a) >= -1e-15, "{c:?}");
        }
    }
}

fn resting_keys(r: &SceneResult) -> Vec<Key> {
    let mut v: Vec<Key> = r
        .resting
        .iter()
        .map(|c| (c.mesh_a, c.feature_a, c.mesh_b, c.feature_b))
        .collect();
    v.sort_by_key(|k| format!("{k:?}"));
    v
}

proptest! {
    #[test]
    fn resting_pairs_apart_match_brute_force(a in soup(10), b in soup(6), leaf in 1u32..5) {
        // a coarse tolerance so that random soups have resting pairs
        let opts = SceneOptions::default()
            .with_leaf_size(leaf)
            .with_tolerance(0.05)
            .with_normal_cones(false)
            .with_resting(Resting::Separate);
        let meshes = vec![a, b];
        let all_ref = brute_force(&meshes, &opts, Mode::All).unwrap();
        let scene = DeformingScene::new(meshes, &opts).unwrap();
        let all = scene.query(Mode::All);
        prop_assert_eq!(keys(&all), keys(&all_ref));
        prop_assert_eq!(resting_keys(&all), resting_keys(&all_ref));
        // resting pairs are never contacts at 0 (unless their advancement is stuck there)
        prop_assert!(all.contacts.iter().all(|c| c.toc > 0.0 || c.status == Status::OutOfIterations));
        prop_assert!(all.resting.iter().all(|c| c.toc == 0.0 && c.distance < 0.05));
        let toc = scene.query(Mode::Toc);
        prop_assert_eq!(toc.toc(), all.toc());
        // the Contact mode reports the same pairs plus the resting ones at 0
        let plain = DeformingScene::new(scene.meshes().to_vec(), &opts.with_resting(Resting::Contact))
            .unwrap()
            .query(Mode::All);
        prop_assert!(plain.resting.is_empty());
        let at0 = plain
            .contacts
            .iter()
            .filter(|c| c.status == Status::InitiallyTouching)
            .count();
        prop_assert_eq!(at0, all.resting.len());
    }
}

#[test]
fn resting_contact_does_not_stall_the_global_toc() {
    let tri = vec![DVec3::ZERO, DVec3::X, DVec3::Y];
    let ground = DeformingMesh::new(vec![[0, 1, 2]], tri.clone(), tri.clone()).unwrap();
    // resting 1e-8 above the ground and sliding: a contact at 0 in the default mode only
    let rest0: Vec<DVec3> = tri
        .iter()
        .map(|p| *p + DVec3::new(0.2, 0.2, 1e-8))
        .collect();
    let rest1: Vec<DVec3> = rest0.iter().map(|p| *p + DVec3::X * 0.05).collect();
    let resting = DeformingMesh::new(vec![[0, 1, 2]], rest0.clone(), rest1).unwrap();
    let opts = SceneOptions::default();
    let meshes = vec![ground.clone(), resting];
    assert_eq!(
        DeformingScene::new(meshes.clone(), &opts)
            .unwrap()
            .query(Mode::Toc)
            .toc(),
        Some(0.0)
    );
    let apart = opts.with_resting(Resting::Separate);
    let r = DeformingScene::new(meshes, &apart)
        .unwrap()
        .query(Mode::Toc);
    assert_eq!(r.toc(), None);
    assert!(!r.resting.is_empty());
    assert!(r.resting.iter().all(|c| c.distance < 1e-6));
    // resting, then pressed through the ground by 1: touches at t = 1e-8 / (1 + 1e-8)
    let down: Vec<DVec3> = rest0.iter().map(|p| *p - DVec3::Z).collect();
    let pressed = DeformingMesh::new(vec![[0, 1, 2]], rest0, down).unwrap();
    let r = DeformingScene::new(vec![ground, pressed], &apart)
        .unwrap()
        .query(Mode::Toc);
    let toc = r.toc().unwrap();
    let touch = 1e-8 / (1.0 + 1e-8);
    assert!(toc > 0.0 && toc <= touch, "{toc}");
    // within d0 / 2 at its toc: not earlier than halfway
    assert!(toc >= 0.5 * touch * (1.0 - 1e-6), "{toc}");
}

#[test]
fn objects_are_never_silently_skipped() {
    let meshes = cloth_on_sphere(6);
    // one mesh without self-collision would test nothing: an error
    let off = SceneOptions::default().with_self_collision(false);
    assert!(matches!(
        DeformingScene::new(vec![meshes[0].clone()], &off),
        Err(LaError::InvalidOption(_))
    ));
    // per object: the cloth collides with itself, the sphere does not
    let mut scene = DeformingScene::new(meshes.clone(), &SceneOptions::default()).unwrap();
    scene.set_self_collision(1, false).unwrap();
    assert_eq!(scene.self_collision(), &[true, false]);
    assert!(scene.set_self_collision(2, false).is_err());
    let all = scene.query(Mode::All);
    let reference = brute_force(&meshes, &SceneOptions::default(), Mode::All).unwrap();
    // exactly the reference's pairs minus the sphere's self pairs
    let expect: Vec<(Key, f64)> = keys(&reference)
        .into_iter()
        .filter(|((ma, _, mb, _), _)| !(*ma == 1 && *mb == 1))
        .collect();
    assert_eq!(keys(&all), expect);
    assert!(all.contacts.iter().any(|c| c.mesh_a == 0 && c.mesh_b == 0));
    assert!(all.contacts.iter().any(|c| c.mesh_a != c.mesh_b));
}
