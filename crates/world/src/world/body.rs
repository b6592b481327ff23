//! A world's bodies: their motions over the step, speed bounds, swept and sweep-and-prune
//! boxes (refreshed each step, in parallel with `parallel`).

use super::*;

/// One body.
#[derive(Clone, Debug)]
pub(super) struct Body {
    pub(super) collider: Collider,
    pub(super) is_static: bool,
    /// The motion of the coming step.
    pub(super) motion: RigidMotion,
    /// Where the last step ended (the pose the next motion should start from).
    pub(super) end: DAffine3,
    /// Declared bound on how much the body's point speed (per step) can grow per step.
    pub(super) accel: f64,
    /// The envelope's anchor: the speed at the last step (or at insertion).
    pub(super) anchor_speed: f64,
    /// Whether the speed envelope holds from its anchor (false right after insertion).
    pub(super) anchored: bool,
    /// Changes whenever the body breaks its declared bounds (jumps, speeds up beyond the
    /// declaration, gets a new declaration).
    pub(super) epoch: u64,
    /// This step: point-speed bound, box at t = 0 and t = 1, swept box.
    pub(super) speed: f64,
    pub(super) box0: Aabb,
    pub(super) box1: Aabb,
    pub(super) swept: Aabb,
    /// The box the sweep-and-prune keeps: for a turning body the box of its bounding
    /// sphere swept over the step (it does not change with the body's orientation, so
    /// bodies moving together keep their endpoints' order; the rotated box `swept` jitters
    /// with every turn), otherwise `swept`. Both hold the body over the step widened by
    /// `ε/2`; a pair is a broad pair when both kinds of boxes overlap.
    pub(super) sap_box: Aabb,
    /// A dynamic body's position in [`World`]'s list of dynamic slots.
    pub(super) dyn_pos: u32,
    /// A dynamic body's pose at `t = 1` and the motion that continues its current one
    /// from there (same velocities), computed by the step's refresh and applied by the
    /// step's advance.
    pub(super) next: Option<(DAffine3, Result<RigidMotion, KinematicsError>)>,
}

#[derive(Clone, Debug, Default)]
pub(super) struct Slot {
    pub(super) generation: u32,
    pub(super) body: Option<Body>,
}

/// The world box of a local box under `pose`, widened by `margin` plus a rounding allowance.
pub(super) fn world_box(local: &Aabb, pose: &DAffine3, margin: f64) -> Aabb {
    let c = pose.transform_point3(local.center());
    let h = 0.5 * (local.max - local.min);
    let m = pose.matrix3;
    let e = DVec3::new(
        m.row(0).abs().dot(h),
        m.row(1).abs().dot(h),
        m.row(2).abs().dot(h),
    );
    let slack = 1e-12 * (c.abs() + e).max_element() + margin;
    Aabb::new(c - e - DVec3::splat(slack), c + e + DVec3::splat(slack))
}

impl Body {
    /// Point-speed bound of the motion (per step): `|v| + ω r`.
    pub(super) fn motion_speed(&self) -> f64 {
        if self.is_static {
            return 0.0;
        }
        (self.motion.linear_velocity().length() + self.motion.angle() * self.collider.radius())
            * (1.0 + 1e-12)
    }

    /// Refreshes a dynamic body for the step ([`refresh`](Self::refresh)) and its anchor
    /// (the point speed its declared acceleration is measured from); true when its epoch
    /// must be renewed (its motion starts away from where the last one ended, it sped up
    /// beyond its declaration, or it was never anchored): then the epoch is set to
    /// `u64::MAX`, a placeholder the caller numbers.
    ///
    /// Also computes the body's pose at `t = 1` and its continued motion (`next`).
    pub(super) fn refresh_dynamic(&mut self, half: f64) -> bool {
        let (start, end) = self.refresh(half);
        let m = &self.motion;
        let cont = RigidMotion::from_axis_angle(end, m.axis(), m.angle(), m.linear_velocity());
        self.next = Some((end, cont));
        let jumped = start != self.end;
        let over = self.anchored && self.speed > self.anchor_speed + self.accel;
        let renew = jumped || over || !self.anchored;
        if renew {
            self.epoch = u64::MAX;
        }
        self.anchor_speed = self.speed;
        self.anchored = true;
        renew
    }

    /// Recomputes the step's speed, boxes and swept box (`half` = half the tolerance);
    /// returns the poses at `t = 0` and `t = 1`.
    pub(super) fn refresh(&mut self, half: f64) -> (DAffine3, DAffine3) {
        let local = self.collider.local_aabb();
        let (p0, p1) = (self.motion.pose_at(0.0), self.motion.pose_at(1.0));
        self.speed = self.motion_speed();
        self.box0 = world_box(&local, &p0, half);
        self.box1 = world_box(&local, &p1, half);
        // a point x is at c(t) + R(t) x; c(t) + R(0) x sweeps box0 ∪ (box0 + disp) and is
        // within min(θ, 2) r of it; independently every point is within r of c(t)
        let disp = self.motion.linear_velocity();
        let moved = Aabb::new(self.box0.min + disp, self.box0.max + disp);
        let theta = self.motion.angle();
        let r = self.collider.radius();
        let lin = self.box0.merge(moved);
        let (swept, ball) = if theta > 0.0 {
            let turn = theta.min(2.0) * r * (1.0 + 1e-12);
            let lin = lin.inflate(turn);
            let c0 = p0.translation;
            let c1 = c0 + disp;
            let rr = r * (1.0 + 1e-12) + half + 1e-12 * (c0.abs().max(c1.abs())).max_element();
            let ball = Aabb::new(c0.min(c1) - DVec3::splat(rr), c0.max(c1) + DVec3::splat(rr));
            (lin.intersection(ball), Some(ball))
        } else {
            (lin, None)
        };
        self.swept = swept.merge(self.box1);
        self.sap_box = match ball {
            Some(b) if !self.is_static => b,
            _ => self.swept,
        };
        (p0, p1)
    }
}

/// The bodies of a pair key (both slots live).
pub(super) fn pair_in(slots: &[Slot], key: u64) -> (&Body, &Body) {
    let [a, b] = unkey(key);
    let get = |s: u32| {
        slots[s as usize]
            .body
            .as_ref()
            .expect("pairs name live slots")
    };
    (get(a), get(b))
}

/// [`World::refresh_dynamic`] on the world's slots, swept boxes and dynamic bodies (so
/// that it can run beside the sweep-and-prune's flush, which holds another part).
pub(super) fn refresh_in(
    slots: &mut [Slot],
    swept: &mut [Aabb],
    dynamic: &[u32],
    half: f64,
    parallel: bool,
) -> usize {
    #[cfg(feature = "parallel")]
    if parallel && dynamic.len() >= PAR_MIN_BODIES {
        use rayon::prelude::*;
        // (every slot is visited: the dynamic ones are the live bodies not static; pieces
        // of PAR_MIN_BODIES / 16 slots, because as bodies fall asleep the dynamic ones are
        // spread unevenly and larger pieces leave a thread idle: `rigid-pile`'s 2-thread row)
        return slots
            .par_iter_mut()
            .zip(swept.par_iter_mut())
            .with_min_len(PAR_MIN_BODIES / 16)
            .map(|(slot, swept)| match slot.body.as_mut() {
                Some(body) if !body.is_static => {
                    let renew = body.refresh_dynamic(half);
                    *swept = body.sap_box;
                    usize::from(renew)
                }
                _ => 0,
            })
            .sum();
    }
    let _ = parallel;
    let mut renewed = 0;
    for &i in dynamic {
        let Some(body) = slots[i as usize].body.as_mut() else {
            continue;
        };
        renewed += usize::from(body.refresh_dynamic(half));
        swept[i as usize] = body.sap_box;
    }
    renewed
}

/// The sweep-and-prune's pairs in key order, its pending insertions and removals applied
/// first (the joined parallel step's first guess of the due pairs,
/// [`World::all_work_joined`]).
#[cfg(feature = "parallel")]
pub(super) fn listed_pairs(sap: &mut GridSap) -> Vec<u64> {
    sap.flush();
    let mut keys: Vec<u64> = Vec::new();
    sap.pairs_into(&mut keys);
    keys.sort_unstable();
    keys.dedup();
    keys
}
