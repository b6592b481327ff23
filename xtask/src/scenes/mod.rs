//! The benchmark scenes. Each returns a `SceneReport` (see [`crate::report`]).

pub(crate) mod adaptive;
pub(crate) mod avatar_house;
pub(crate) mod catch;
pub(crate) mod cloth_ball;
pub(crate) mod deformable_bar;
pub(crate) mod exploding_dragon;
pub(crate) mod heart_organs;
pub(crate) mod la_common;
pub(crate) mod la_run;
pub(crate) mod n_body;
pub(crate) mod rigid_pairs;
pub(crate) mod rigid_pile;
pub(crate) mod taylor_chain;
pub(crate) mod unc_frames;

use std::path::PathBuf;

use crate::report::SceneReport;
use crate::robot_data::RobotSources;

/// Settings shared by all scenes.
pub(crate) struct SceneConfig {
    /// Reduced set for CI (`--quick`).
    pub(crate) quick: bool,
    /// Folder of real inputs (`--data`), when given or present by default.
    pub(crate) data: Option<PathBuf>,
    /// Where real robots are read from (`--data`, the shared folder, the registry package).
    pub(crate) robots: RobotSources,
}

/// A scene: name, paper anchor, and how to run it.
pub(crate) struct Scene {
    /// Name used on the command line.
    pub(crate) name: &'static str,
    /// Runs the scene. A report without rows means the scene was skipped (its description
    /// says why).
    pub(crate) run: fn(&SceneConfig, &indicatif::ProgressBar) -> anyhow::Result<SceneReport>,
}

/// All scenes, in the order they run.
pub(crate) const ALL: &[Scene] = &[
    Scene {
        name: "taylor-chain",
        run: taylor_chain::run,
    },
    Scene {
        name: "cloth-ball",
        run: cloth_ball::run,
    },
    Scene {
        name: "n-body",
        run: n_body::run,
    },
    Scene {
        name: "exploding-dragon",
        run: exploding_dragon::run,
    },
    Scene {
        name: "deformable-bar",
        run: deformable_bar::run,
    },
    Scene {
        name: "heart-organs",
        run: heart_organs::run,
    },
    Scene {
        name: "unc-frames",
        run: unc_frames::run,
    },
    Scene {
        name: "walking-mannequin",
        run: catch::scenes::walking_mannequin,
    },
    Scene {
        name: "exercise",
        run: catch::scenes::exercise,
    },
    Scene {
        name: "four-trains",
        run: catch::scenes::four_trains_scene,
    },
    Scene {
        name: "falling-train",
        run: catch::scenes::falling_train_scene,
    },
    Scene {
        name: "pr2",
        run: catch::scenes::pr2_scene,
    },
    Scene {
        name: "panda-planner",
        run: catch::scenes::panda_planner,
    },
    Scene {
        name: "robot-edge-mix",
        run: catch::edge_mix::robot_edge_mix,
    },
    Scene {
        name: "wooden-men",
        run: adaptive::wooden_men,
    },
    Scene {
        name: "pendulum",
        run: adaptive::pendulum_scene,
    },
    Scene {
        name: "falling-man",
        run: adaptive::falling_man,
    },
    Scene {
        name: "avatar-house",
        run: avatar_house::run,
    },
    Scene {
        name: "rigid-pairs",
        run: rigid_pairs::run,
    },
    Scene {
        name: "rigid-pile",
        run: rigid_pile::run,
    },
];

/// The median of `v` (sorted in place; the mean of the middle two for an even count; NaN
/// when empty).
pub(crate) fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => 0.5 * (v[n / 2 - 1] + v[n / 2]),
    }
}
