//! The CATCH scenes (articulated CCD, CATCH Sec. 8): walking and exercising mannequin among
//! chessmen, four colliding trains, a train falling onto a mountain, the PR2 in a kitchen
//! the Panda as a motion planner's edge checker, and both robots on a short / medium / long
//! edge mix.

pub(crate) mod discrete;
pub(crate) mod edge_mix;
pub(crate) mod mannequin;
pub(crate) mod meshes;
pub(crate) mod robots;
pub(crate) mod run;
pub(crate) mod scenes;
pub(crate) mod trains;
