//! The world's broad phase: one sweep-and-prune per cell of a uniform grid, so that an
//! update's insertion sort only reorders boxes of the same region (a single sorted list per
//! axis reorders the endpoints of boxes far apart whenever their coordinates on one axis
//! interleave: a layer of bodies falling onto another across a wide floor).
//!
//! A box is kept in every cell it covers (and may stay in cells it left); a pair of boxes overlaps if and only if they
//! overlap in some cell both cover (a point of their intersection lies in a cell covered by
//! both, since the cell index `⌊(x − origin) · (1 / size)⌋` is monotone in `x`). The pairs are the union of
//! the cells' pairs. A box covering more than a fixed number of cells (a large ground) is
//! kept out of the cells and tested against every box.

use std::collections::HashMap;

use ccd_geometry::Aabb;
use glam::DVec3;

use ccd_bvh::SweepAndPrune;
use ccd_bvh::sap::{overlaps, pair_key, unkey};

/// The cell edge at sizing is this many times the median largest extent of the boxes.
const CELL_FACTOR: f64 = 16.0;
/// A box covering more cells than this is kept out of the grid (tested against every box).
const MAX_CELLS: f64 = 64.0;

type CellKey = [i64; 3];

/// One cell: a sweep-and-prune over local ids.
#[derive(Clone, Debug, Default)]
struct Cell {
    /// Where the cell is.
    key: CellKey,
    sap: SweepAndPrune,
    /// Local id → global slot (`u32::MAX`: a free id).
    globals: Vec<u32>,
    /// The boxes by local id, as the cell's sweep-and-prune reads them on update.
    boxes: Vec<Aabb>,
    /// Free local ids.
    free: Vec<u32>,
    /// Members.
    len: usize,
    /// Inserted, removed or moved members since the cell's last update.
    dirty: bool,
}

/// A present box.
#[derive(Clone, Debug)]
struct Member {
    b: Aabb,
    fixed: bool,
    /// The cells the box is in (inclusive index range; they hold every cell it covers, and
    /// may hold more), `None` for a box kept out of the grid.
    range: Option<(CellKey, CellKey)>,
    /// (cell index, local id) of every cell the box is in.
    places: Vec<(u32, u32)>,
}

/// Sweep-and-prune per grid cell, with slots that come and go (see the module's
/// documentation). The grid is sized from the boxes present at the first update and again
/// whenever their number has doubled since.
#[derive(Clone, Debug)]
pub(crate) struct GridSap {
    factor: f64,
    max_cells: f64,
    /// The cell edge (0: not sized yet) and its inverse.
    size: f64,
    inv: f64,
    /// A corner of the cell `[0, 0, 0]`: the boxes' mean centre at sizing lies at that
    /// cell's centre (a small world stays in one cell instead of straddling a corner).
    origin: DVec3,
    /// Present boxes when the grid was last sized.
    sized_at: usize,
    index: HashMap<CellKey, u32>,
    cells: Vec<Cell>,
    /// Indices of emptied cells, reused.
    free_cells: Vec<u32>,
    members: Vec<Option<Member>>,
    present: usize,
    /// Slots of the boxes kept out of the grid.
    big: Vec<u32>,
    /// Slots inserted since the last flush (placed by it).
    pending: Vec<u32>,
    /// The cells' sweep-and-prunes are flushed and updated on rayon's current pool (the
    /// cells are independent; each one's result is the same either way).
    #[cfg(feature = "parallel")]
    parallel: bool,
}

impl Default for GridSap {
    fn default() -> Self {
        Self::with_params(CELL_FACTOR, MAX_CELLS)
    }
}

impl GridSap {
    /// A grid whose cell edge is `factor` × the median largest box extent, boxes covering
    /// more than `max_cells` cells kept out.
    pub(crate) fn with_params(factor: f64, max_cells: f64) -> Self {
        Self {
            factor,
            max_cells,
            size: 0.0,
            inv: 0.0,
            origin: DVec3::ZERO,
            sized_at: 0,
            index: HashMap::new(),
            cells: Vec::new(),
            free_cells: Vec::new(),
            members: Vec::new(),
            present: 0,
            big: Vec::new(),
            pending: Vec::new(),
            #[cfg(feature = "parallel")]
            parallel: false,
        }
    }

    /// Flushes and updates the cells on rayon's current pool from now on (or not).
    #[cfg(feature = "parallel")]
    pub(crate) fn set_parallel(&mut self, parallel: bool) {
        self.parallel = parallel;
    }

    /// `f` of every cell with a change since its last update, summed; on rayon's current
    /// pool when parallel (one cell per task: their sizes differ).
    fn each_dirty(&mut self, f: impl Fn(&mut Cell) -> u64 + Sync + Send) -> u64 {
        #[cfg(feature = "parallel")]
        if self.parallel {
            use rayon::prelude::*;
            return self
                .cells
                .par_iter_mut()
                .with_max_len(1)
                .filter(|c| c.dirty)
                .map(f)
                .sum();
        }
        self.cells.iter_mut().filter(|c| c.dirty).map(f).sum()
    }

    /// Adds box `b` at `slot` (which must be free; the caller checked it is finite and not
    /// empty); `fixed`: the box never moves and never pairs with another fixed box.
    pub(crate) fn insert(&mut self, slot: u32, b: Aabb, fixed: bool) {
        let s = slot as usize;
        if self.members.len() <= s {
            self.members.resize(s + 1, None);
        }
        debug_assert!(self.members[s].is_none());
        self.members[s] = Some(Member {
            b,
            fixed,
            range: None,
            places: Vec::new(),
        });
        self.present += 1;
        self.pending.push(slot);
    }

    /// Removes the box at `slot` and its pairs (a slot that is not present is ignored).
    pub(crate) fn remove(&mut self, slot: u32) {
        let s = slot as usize;
        if s >= self.members.len() || self.members[s].is_none() {
            return;
        }
        self.unplace(slot);
        self.members[s] = None;
        self.present -= 1;
    }

    /// The cells a box covers, or `None` when they are more than `max_cells`.
    fn range(&self, b: &Aabb) -> Option<(CellKey, CellKey)> {
        // (`as i64` saturates: far boxes share the extreme cells, which stays correct)
        let (o, inv) = (self.origin, self.inv);
        let cell = |x: f64, o: f64| ((x - o) * inv).floor() as i64;
        let lo = [cell(b.min.x, o.x), cell(b.min.y, o.y), cell(b.min.z, o.z)];
        let hi = [cell(b.max.x, o.x), cell(b.max.y, o.y), cell(b.max.z, o.z)];
        let count: f64 = (0..3)
            .map(|k| (hi[k] as f64 - lo[k] as f64) + 1.0)
            .product();
        (count <= self.max_cells).then_some((lo, hi))
    }

    /// Puts a present box into its cells (or the big list).
    fn place(&mut self, slot: u32) {
        let s = slot as usize;
        let Some(m) = self.members[s].as_ref() else {
            return;
        };
        let (b, fixed) = (m.b, m.fixed);
        let range = self.range(&b);
        let mut places = Vec::new();
        match range {
            None => self.big.push(slot),
            Some((lo, hi)) => {
                for x in lo[0]..=hi[0] {
                    for y in lo[1]..=hi[1] {
                        for z in lo[2]..=hi[2] {
                            let ci = self.cell_index([x, y, z]);
                            let cell = &mut self.cells[ci as usize];
                            let li = match cell.free.pop() {
                                Some(li) => li,
                                None => {
                                    cell.globals.push(u32::MAX);
                                    cell.boxes.push(b);
                                    (cell.globals.len() - 1) as u32
                                }
                            };
                            cell.globals[li as usize] = slot;
                            cell.boxes[li as usize] = b;
                            cell.sap.insert_unchecked(li, b, fixed);
                            cell.len += 1;
                            cell.dirty = true;
                            places.push((ci, li));
                        }
                    }
                }
            }
        }
        let m = self.members[s].as_mut().expect("checked above");
        m.range = range;
        m.places = places;
    }

    /// Takes a present box out of its cells (or the big list).
    fn unplace(&mut self, slot: u32) {
        let s = slot as usize;
        let Some(m) = self.members[s].as_mut() else {
            return;
        };
        if m.range.is_none() {
            if let Some(at) = self.big.iter().position(|&g| g == slot) {
                self.big.swap_remove(at);
            }
            return;
        }
        m.range = None;
        for (ci, li) in std::mem::take(&mut m.places) {
            let cell = &mut self.cells[ci as usize];
            cell.sap.remove(li);
            cell.globals[li as usize] = u32::MAX;
            cell.free.push(li);
            cell.len -= 1;
            cell.dirty = true;
            if cell.len == 0 {
                // (an emptied cell goes, pending removals and all)
                self.index.remove(&cell.key);
                *cell = Cell::default();
                self.free_cells.push(ci);
            }
        }
    }

    /// The index of the cell at `key`, created if absent.
    fn cell_index(&mut self, key: CellKey) -> u32 {
        if let Some(&i) = self.index.get(&key) {
            return i;
        }
        let i = match self.free_cells.pop() {
            Some(i) => i,
            None => {
                self.cells.push(Cell::default());
                (self.cells.len() - 1) as u32
            }
        };
        self.index.insert(key, i);
        self.cells[i as usize].key = key;
        i
    }

    /// Sizes the grid from the present boxes and puts every box into it.
    fn resize(&mut self) {
        let mut extents: Vec<f64> = self
            .members
            .iter()
            .flatten()
            .map(|m| (m.b.max - m.b.min).max_element())
            .collect();
        let median = if extents.is_empty() {
            1.0
        } else {
            let mid = extents.len() / 2;
            *extents.select_nth_unstable_by(mid, f64::total_cmp).1
        };
        let size = self.factor * median;
        self.size = if size.is_finite() && size > 0.0 {
            size
        } else if size > 0.0 {
            f64::MAX
        } else {
            1.0
        };
        let (mut sum, mut count) = (DVec3::ZERO, 0.0);
        for m in self.members.iter().flatten() {
            sum += 0.5 * (m.b.min + m.b.max);
            count += 1.0;
        }
        self.inv = 1.0 / self.size;
        let mean = if count > 0.0 {
            sum / count
        } else {
            DVec3::ZERO
        };
        let origin = mean - DVec3::splat(0.5 * self.size);
        self.origin = if origin.is_finite() {
            origin
        } else {
            DVec3::ZERO
        };
        self.sized_at = self.present;
        self.index.clear();
        self.cells.clear();
        self.free_cells.clear();
        self.big.clear();
        self.pending.clear();
        for m in self.members.iter_mut().flatten() {
            m.range = None;
            m.places.clear();
        }
        for s in 0..self.members.len() {
            self.place(s as u32);
        }
    }

    /// Applies the insertions since the last flush (sizing the grid when due) and the
    /// cells' pending insertions and removals.
    pub(crate) fn flush(&mut self) {
        if self.size == 0.0 || self.present >= 2 * self.sized_at.max(1) {
            if self.present > 0 {
                self.resize();
            }
        } else {
            for slot in std::mem::take(&mut self.pending) {
                if self.members[slot as usize]
                    .as_ref()
                    .is_some_and(|m| m.range.is_none() && m.places.is_empty())
                    && !self.big.contains(&slot)
                {
                    self.place(slot);
                }
            }
        }
        self.each_dirty(|cell| {
            cell.sap.flush();
            0
        });
    }

    /// Moves every present box that is not fixed to `boxes[slot]` (a fixed box must be
    /// unchanged there): boxes that change cells leave and enter them, every cell with a
    /// change restores its order by insertion sort. Returns the swaps.
    pub(crate) fn update(&mut self, boxes: &[Aabb]) -> u64 {
        self.flush();
        for (s, b) in boxes.iter().enumerate().take(self.members.len()) {
            let Some(m) = self.members[s].as_mut() else {
                continue;
            };
            if m.fixed {
                debug_assert!(m.b == *b);
                continue;
            }
            m.b = *b;
            let was = m.range;
            let now = self.range(b);
            // a box that still lies within the cells it is in stays there (in cells it no
            // longer covers too, where its pairs are still tested on the boxes themselves):
            // a box jittering across a border does not leave and enter cells every step
            let within = match (was, now) {
                (Some((olo, ohi)), Some((nlo, nhi))) => {
                    (0..3).all(|k| olo[k] <= nlo[k] && nhi[k] <= ohi[k])
                }
                _ => false,
            };
            if within {
                let m = self.members[s].as_ref().expect("present");
                for &(ci, li) in &m.places {
                    let cell = &mut self.cells[ci as usize];
                    cell.boxes[li as usize] = *b;
                    cell.dirty = true;
                }
            } else if was.is_some() || now.is_some() {
                self.unplace(s as u32);
                self.place(s as u32);
            }
        }
        self.each_dirty(|cell| {
            cell.dirty = false;
            cell.sap.update_unchecked(&cell.boxes).swaps
        })
    }

    /// Appends the overlapping pairs' keys (as of the last flush or update; a pair may
    /// appear more than once: the caller sorts and deduplicates), never two fixed boxes.
    pub(crate) fn pairs_into(&self, out: &mut Vec<u64>) {
        for cell in &self.cells {
            if cell.len < 2 {
                continue;
            }
            out.extend(cell.sap.pair_keys().iter().map(|&k| {
                let [a, b] = unkey(k);
                pair_key(cell.globals[a as usize], cell.globals[b as usize])
            }));
        }
        for &g in &self.big {
            let Some(mg) = self.members[g as usize].as_ref() else {
                continue;
            };
            for (s, m) in self.members.iter().enumerate() {
                if let Some(m) = m
                    && s != g as usize
                    && !(m.fixed && mg.fixed)
                    && overlaps(&m.b, &mg.b)
                {
                    out.push(pair_key(g, s as u32));
                }
            }
        }
    }

    /// The box at a present slot.
    #[cfg(test)]
    fn box_at(&self, slot: u32) -> Aabb {
        self.members[slot as usize].as_ref().expect("present").b
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_ops::{Op, op};
    use glam::DVec3;
    use proptest::prelude::*;

    /// The overlapping pairs of the `live` slots but those of two fixed boxes.
    fn brute(g: &GridSap, live: &[u32], fixed: &[bool]) -> Vec<u64> {
        let mut out = Vec::new();
        for (i, &a) in live.iter().enumerate() {
            for &b in &live[i + 1..] {
                let both_fixed = fixed[a as usize] && fixed[b as usize];
                if !both_fixed && overlaps(&g.box_at(a), &g.box_at(b)) {
                    out.push(pair_key(a, b));
                }
            }
        }
        out.sort_unstable();
        out
    }

    fn sorted(g: &mut GridSap) -> Vec<u64> {
        g.flush();
        let mut v = Vec::new();
        g.pairs_into(&mut v);
        v.sort_unstable();
        v.dedup();
        v
    }

    #[test]
    fn boxes_across_cells_pair_once_and_big_boxes_pair_with_all() {
        let unit = |p: DVec3| Aabb::new(p, p + DVec3::ONE);
        // cells of edge 2 (median extent 1), at most 8 cells per box
        let mut g = GridSap::with_params(2.0, 8.0);
        g.insert(0, unit(DVec3::splat(1.5)), false); // straddles 8 cells
        g.insert(1, unit(DVec3::splat(2.0)), false);
        g.insert(2, unit(DVec3::splat(10.0)), false);
        g.insert(3, Aabb::new(DVec3::splat(-50.0), DVec3::splat(50.0)), true); // big
        g.insert(4, unit(DVec3::splat(20.0)), true);
        let fixed = [false, false, false, true, true];
        let live = [0, 1, 2, 3, 4];
        assert_eq!(sorted(&mut g), brute(&g, &live, &fixed));
        assert!(sorted(&mut g).contains(&pair_key(0, 1)));
        assert!(g.big.contains(&3));
        // moving across cells
        let mut boxes = vec![
            unit(DVec3::splat(9.5)),
            unit(DVec3::splat(2.0)),
            unit(DVec3::splat(10.0)),
            Aabb::new(DVec3::splat(-50.0), DVec3::splat(50.0)),
            unit(DVec3::splat(20.0)),
        ];
        g.update(&boxes);
        let pairs = sorted(&mut g);
        assert!(pairs.contains(&pair_key(0, 2)) && !pairs.contains(&pair_key(0, 1)));
        assert!(!pairs.contains(&pair_key(3, 4)));
        assert_eq!(pairs, brute(&g, &live, &fixed));
        // a box growing out of the grid and back
        boxes[2] = Aabb::new(DVec3::splat(-20.0), DVec3::splat(20.0));
        g.update(&boxes);
        assert_eq!(sorted(&mut g), brute(&g, &live, &fixed));
        boxes[2] = unit(DVec3::splat(19.5));
        g.update(&boxes);
        assert_eq!(sorted(&mut g), brute(&g, &live, &fixed));
        assert!(sorted(&mut g).contains(&pair_key(2, 4)));
        g.remove(2);
        g.remove(2); // twice: nothing happens (the world reports the error)
        assert_eq!(sorted(&mut g), brute(&g, &[0, 1, 3, 4], &fixed));
    }

    proptest! {
        /// The grid's pair set equals brute-force box overlap after random insertions,
        /// removals and moves (boxes crossing cells, growing out of the grid and back, the
        /// grid resized as boxes come), for small cells with few cells per box and for the
        /// world's parameters; fixed boxes stay put and never pair with each other.
        #[test]
        fn pairs_equal_brute_force(
            ops in prop::collection::vec((op(1.5, 4.0), any::<bool>()), 1..40),
            small in any::<bool>(),
            parallel in any::<bool>(),
        ) {
            let mut g = if small {
                GridSap::with_params(1.5, 8.0)
            } else {
                GridSap::default()
            };
            #[cfg(feature = "parallel")]
            g.set_parallel(parallel);
            let _ = parallel;
            let mut boxes: Vec<Aabb> = Vec::new();
            let mut live: Vec<u32> = Vec::new();
            let mut free: Vec<u32> = Vec::new();
            let mut fixed: Vec<bool> = Vec::new();
            let last = ops.len() - 1;
            for (i, (op, check)) in ops.into_iter().enumerate() {
                match op {
                    Op::Insert(p, e, f) => {
                        let slot = free.pop().unwrap_or(boxes.len() as u32);
                        let b = Aabb::new(p, p + e);
                        if slot as usize == boxes.len() {
                            boxes.push(b);
                            fixed.push(f);
                        } else {
                            boxes[slot as usize] = b;
                            fixed[slot as usize] = f;
                        }
                        g.insert(slot, b, f);
                        live.push(slot);
                    }
                    Op::Remove(i) => {
                        if !live.is_empty() {
                            let slot = live.swap_remove(i % live.len());
                            g.remove(slot);
                            free.push(slot);
                        }
                    }
                    Op::Move(m) => {
                        for (k, b) in boxes.iter_mut().enumerate() {
                            if fixed[k] {
                                continue;
                            }
                            let (d, e) = m[k % m.len()];
                            let p = b.min + d;
                            // a few boxes snap to a shared coordinate (equal endpoints, cell
                            // borders), some grow large
                            let p = if k % 5 == 0 { p.round() } else { p };
                            let e = if k % 7 == 0 { DVec3::ZERO } else if k % 11 == 3 { e * 6.0 } else { e };
                            *b = Aabb::new(p, p + e);
                        }
                        g.update(&boxes);
                    }
                }
                if !check && i < last {
                    continue;
                }
                live.sort_unstable();
                prop_assert_eq!(sorted(&mut g), brute(&g, &live, &fixed));
                for &s in &live {
                    prop_assert_eq!(g.box_at(s), boxes[s as usize]);
                }
            }
        }
    }
}
