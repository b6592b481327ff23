//! The input of an adaptive step: [`AdaptiveStep`], the validation of its active joints
//! ([`check_active`]) and each body's motion, updated link by link from the last step's
//! ([`step_motion`]).

use ccd_kinematics::{ArticulatedMotion, LinkId};

use crate::scene::body_motion;
use crate::{ArticulatedError, BodyStep};

/// How one articulated body moves in an adaptive step: from joint vector `q0` to `q1`
/// (model joint order), with the joints that may move.
#[derive(Clone, Copy, Debug)]
pub struct AdaptiveStep<'a> {
    /// Start configuration.
    pub q0: &'a [f64],
    /// End configuration.
    pub q1: &'a [f64],
    /// The active joints, each named by the link it moves; every other joint must keep its
    /// value over the step.
    pub active: &'a [LinkId],
}

/// A body's last joint vectors and their [`ArticulatedMotion`].
#[derive(Clone, Debug)]
pub(super) struct JointsCache {
    q0: Vec<f64>,
    q1: Vec<f64>,
    motion: ArticulatedMotion,
}

/// The motion of body `i`'s step (as [`body_motion`] gives it): the relative motions of the
/// links whose joint values changed since the cached step are recomputed, the others kept
/// (bit for bit the same motion); a step that does not fit the cache goes to
/// [`body_motion`], which also reports bad input.
pub(super) fn step_motion(
    cache: &mut Option<JointsCache>,
    i: usize,
    body: &crate::ArticulatedBody,
    step: &AdaptiveStep<'_>,
    out: &mut Vec<ArticulatedMotion>,
) -> Result<(), ArticulatedError> {
    // into `out[i]`, reusing its buffers
    let put = |out: &mut Vec<ArticulatedMotion>, m: &ArticulatedMotion| match out.get_mut(i) {
        Some(w) => w.clone_from(m),
        None => out.push(m.clone()),
    };
    if let Some(c) = cache
        && c.motion
            .update_joints(body.model(), (&c.q0, &c.q1), step.q0, step.q1)
            .is_ok()
    {
        c.q0.copy_from_slice(step.q0);
        c.q1.copy_from_slice(step.q1);
        put(out, &c.motion);
        return Ok(());
    }
    let full = BodyStep::Joints {
        q0: step.q0,
        q1: step.q1,
    };
    let motion = body_motion(i, body, &full)?;
    put(out, &motion);
    *cache = Some(JointsCache {
        q0: step.q0.to_vec(),
        q1: step.q1.to_vec(),
        motion,
    });
    Ok(())
}

/// Validates the active set of body `i` and checks that the other joints keep their values.
pub(super) fn check_active(
    i: usize,
    body: &crate::ArticulatedBody,
    step: &AdaptiveStep<'_>,
    mask: &mut Vec<bool>,
) -> Result<(), ArticulatedError> {
    let links = body.model().links();
    mask.clear();
    mask.resize(links.len(), false);
    for &a in step.active {
        match mask.get_mut(a.index()) {
            Some(m) => *m = true,
            None => {
                return Err(ArticulatedError::UnknownJoint {
                    body: i,
                    joint: a.0,
                    count: links.len(),
                });
            }
        }
    }
    for (l, &active) in links.iter().zip(mask.iter()) {
        if active {
            continue;
        }
        let dofs = l.first_dof..l.first_dof + l.joint.dof();
        // lengths were checked with the motion
        if let Some(k) = dofs.clone().find(|&k| step.q0[k] != step.q1[k]) {
            return Err(ArticulatedError::InactiveJointMoved {
                body: i,
                link: l.name.clone(),
                from: step.q0[k],
                to: step.q1[k],
            });
        }
    }
    Ok(())
}
