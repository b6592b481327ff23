//! The benchmark scenes. Each returns a `SceneReport` (see [`crate::report`]).

// generators land before the scene query they feed; wired into `ALL` with it
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) mod cloth_ball;
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) mod exploding_dragon;
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) mod la_common;
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) mod n_body;
pub(crate) mod taylor_chain;

use crate::report::SceneReport;

/// Settings shared by all scenes.
pub(crate) struct SceneConfig {
    /// Reduced set for CI (`--quick`).
    pub(crate) quick: bool,
}

/// A scene: name, paper anchor, and how to run it.
pub(crate) struct Scene {
    /// Name used on the command line.
    pub(crate) name: &'static str,
    /// Runs the scene.
    pub(crate) run: fn(&SceneConfig, &indicatif::ProgressBar) -> anyhow::Result<SceneReport>,
}

/// All scenes, in the order they run.
pub(crate) const ALL: &[Scene] = &[Scene {
    name: "taylor-chain",
    run: taylor_chain::run,
}];
