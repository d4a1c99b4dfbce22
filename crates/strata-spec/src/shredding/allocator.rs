//! Column allocators: which of the K shared columns each entry of a row goes to.
//!
//! Java's `MapSharedShreddingColumnAllocator` family, one per placement policy:
//!
//! * **plain** — the row's entries in row order: the first K go to columns 0..K-1, the rest
//!   to the overflow map. No state across rows.
//! * **sequential** — the row's field ids ascending (ids are assigned in first-seen order in
//!   the file), then as plain.
//! * **lru** — the state is each column's current owner and when it was last used.
//!   Ids are taken ascending; an id that owns a column keeps it (a hit); each other id takes,
//!   among the columns this row has not used yet, the lowest never-assigned column, else the
//!   least recently used one (ties: lowest index), evicting its owner; with no column left it
//!   overflows. Every column the row used is stamped with the clock, which advances when the
//!   row used at least one column. Overflow victims are therefore the largest new ids.
//!
//! Every allocator also accumulates the file's statistics written to the footer: the columns
//! each field id ever occupied, the ids that ever overflowed, and the widest row.
//!
//! The allocators work on entry *positions* so the caller can gather values without a lookup:
//! [`RowAllocation::columns`]`[c]` is the position (in the row) of the entry stored in column
//! `c`, or `-1`.

use std::collections::BTreeSet;

use super::options::PlacementPolicy;

/// Where one row's entries go.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RowAllocation {
    /// For each of the K columns, the position of the entry it holds in the row, or `-1`.
    pub columns: Vec<i32>,
    /// Positions of the entries sent to the overflow map, in allocation order.
    pub overflow: Vec<usize>,
}

/// File-level statistics accumulated by an allocator.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AllocationStats {
    /// Field id → every column it occupied (sorted, distinct), indexed by field id.
    pub field_columns: Vec<Vec<u32>>,
    /// Field ids that ever overflowed.
    pub overflow: BTreeSet<i32>,
    /// Most entries in one row.
    pub max_row_width: usize,
}

impl AllocationStats {
    fn record_column(&mut self, id: i32, column: usize) {
        let id = id as usize;
        if self.field_columns.len() <= id {
            self.field_columns.resize_with(id + 1, Vec::new);
        }
        let cols = &mut self.field_columns[id];
        let c = column as u32;
        if let Err(at) = cols.binary_search(&c) {
            cols.insert(at, c);
        }
    }
}

/// A per-file column allocator for one shredded MAP column.
#[derive(Clone, Debug)]
pub struct ColumnAllocator {
    k: usize,
    policy: PlacementPolicy,
    stats: AllocationStats,
    /// Scratch: (id, position) of the current row.
    order: Vec<(i32, usize)>,
    lru: Option<LruState>,
}

#[derive(Clone, Debug)]
struct LruState {
    /// Column → owning field id (-1: never assigned).
    owner: Vec<i32>,
    /// Field id → column it owns (-1: none).
    column_of: Vec<i32>,
    last_used: Vec<u64>,
    /// Assigned columns ordered by (last used, index).
    by_age: BTreeSet<(u64, usize)>,
    /// Columns `< next_fresh` have been assigned.
    next_fresh: usize,
    clock: u64,
    /// Columns used by the current row (stamp = row number + 1).
    used_in_row: Vec<u64>,
    row_stamp: u64,
}

impl ColumnAllocator {
    /// An allocator over `k` columns (`k ≥ 1`).
    pub fn new(k: usize, policy: PlacementPolicy) -> Self {
        let k = k.max(1);
        ColumnAllocator {
            k,
            policy,
            stats: AllocationStats::default(),
            order: Vec::new(),
            lru: (policy == PlacementPolicy::Lru).then(|| LruState {
                owner: vec![-1; k],
                column_of: Vec::new(),
                last_used: vec![0; k],
                by_age: BTreeSet::new(),
                next_fresh: 0,
                clock: 0,
                used_in_row: vec![0; k],
                row_stamp: 0,
            }),
        }
    }

    pub fn num_columns(&self) -> usize {
        self.k
    }

    pub fn stats(&self) -> &AllocationStats {
        &self.stats
    }

    /// Allocates one non-null row whose entries have the field ids `ids` (distinct, ≥ 0), and
    /// records it in the statistics. `out` is overwritten.
    pub fn allocate(&mut self, ids: &[i32], out: &mut RowAllocation) {
        out.columns.clear();
        out.columns.resize(self.k, -1);
        out.overflow.clear();
        self.stats.max_row_width = self.stats.max_row_width.max(ids.len());
        match self.policy {
            PlacementPolicy::Plain => {
                for (pos, &id) in ids.iter().enumerate() {
                    if pos < self.k {
                        out.columns[pos] = pos as i32;
                        self.stats.record_column(id, pos);
                    } else {
                        out.overflow.push(pos);
                        self.stats.overflow.insert(id);
                    }
                }
            }
            PlacementPolicy::Sequential => {
                self.sort_row(ids);
                for (c, &(id, pos)) in self.order.iter().enumerate() {
                    if c < self.k {
                        out.columns[c] = pos as i32;
                        self.stats.record_column(id, c);
                    } else {
                        out.overflow.push(pos);
                        self.stats.overflow.insert(id);
                    }
                }
            }
            PlacementPolicy::Lru => {
                self.sort_row(ids);
                let lru = self.lru.as_mut().expect("created for the lru policy");
                lru.allocate(&self.order, out, &mut self.stats);
            }
        }
    }

    fn sort_row(&mut self, ids: &[i32]) {
        self.order.clear();
        self.order
            .extend(ids.iter().enumerate().map(|(pos, &id)| (id, pos)));
        self.order.sort_unstable();
    }
}

impl LruState {
    fn allocate(
        &mut self,
        sorted: &[(i32, usize)],
        out: &mut RowAllocation,
        stats: &mut AllocationStats,
    ) {
        self.row_stamp += 1;
        let stamp = self.row_stamp;
        let max_id = sorted.last().map_or(0, |&(id, _)| id as usize);
        if self.column_of.len() <= max_id {
            self.column_of.resize(max_id + 1, -1);
        }
        // Hits keep their column.
        let mut used = 0usize;
        for &(id, pos) in sorted {
            let c = self.column_of[id as usize];
            if c >= 0 {
                let c = c as usize;
                out.columns[c] = pos as i32;
                self.used_in_row[c] = stamp;
                used += 1;
                stats.record_column(id, c);
            }
        }
        // Misses, ascending: a fresh column, else the least recently used free one.
        for &(id, pos) in sorted {
            // Only this row's misses are unprocessed here and none owns a column, so an id
            // owning one is a hit (evictions below only touch ids absent from the row).
            if self.column_of[id as usize] >= 0 {
                continue;
            }
            if used == self.owner.len() {
                out.overflow.push(pos);
                stats.overflow.insert(id);
                continue;
            }
            let c = if self.next_fresh < self.owner.len() {
                // Fresh columns are never used by this row yet (using one assigns it).
                let c = self.next_fresh;
                self.next_fresh += 1;
                c
            } else {
                let &(age, c) = self
                    .by_age
                    .iter()
                    .find(|&&(_, c)| self.used_in_row[c] != stamp)
                    .expect("fewer columns used than exist, so one is free");
                self.by_age.remove(&(age, c));
                let evicted = self.owner[c];
                if evicted >= 0 {
                    self.column_of[evicted as usize] = -1;
                }
                c
            };
            self.owner[c] = id;
            self.column_of[id as usize] = c as i32;
            out.columns[c] = pos as i32;
            self.used_in_row[c] = stamp;
            used += 1;
            stats.record_column(id, c);
        }
        if used > 0 {
            for (c, &p) in out.columns.iter().enumerate() {
                if p >= 0 {
                    self.by_age.remove(&(self.last_used[c], c));
                    self.last_used[c] = self.clock;
                    self.by_age.insert((self.clock, c));
                }
            }
            self.clock += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(
        policy: PlacementPolicy,
        k: usize,
        rows: &[&[i32]],
    ) -> (Vec<Vec<i32>>, Vec<Vec<i32>>, ColumnAllocator) {
        let mut a = ColumnAllocator::new(k, policy);
        let mut out = RowAllocation::default();
        let (mut cols, mut over) = (Vec::new(), Vec::new());
        for ids in rows {
            a.allocate(ids, &mut out);
            cols.push(
                out.columns
                    .iter()
                    .map(|&p| if p < 0 { -1 } else { ids[p as usize] })
                    .collect(),
            );
            over.push(out.overflow.iter().map(|&p| ids[p]).collect());
        }
        (cols, over, a)
    }

    #[test]
    fn lru_hit_retain_evict_and_overflow() {
        // paimon-cpp LruMapSharedShreddingColumnAllocatorTest.AllocatesWithHitRetainEvictAndOverflow
        let (cols, over, a) = run(
            PlacementPolicy::Lru,
            3,
            &[&[0, 1, 2], &[0, 1], &[3, 4, 5], &[0, 3, 4, 5]],
        );
        assert_eq!(
            cols,
            vec![vec![0, 1, 2], vec![0, 1, -1], vec![4, 5, 3], vec![4, 5, 3]]
        );
        assert_eq!(over, vec![vec![], vec![], vec![], vec![0]]);
        assert_eq!(a.stats().max_row_width, 4);
        assert_eq!(a.stats().overflow, BTreeSet::from([0]));
        assert_eq!(a.stats().field_columns[0], vec![0]);
        assert_eq!(a.stats().field_columns[3], vec![2]);
    }

    #[test]
    fn lru_row_order_does_not_matter() {
        let (cols, _, _) = run(PlacementPolicy::Lru, 3, &[&[2, 0, 1], &[1, 0]]);
        assert_eq!(cols, vec![vec![0, 1, 2], vec![0, 1, -1]]);
    }

    #[test]
    fn plain_and_sequential() {
        let (cols, over, _) = run(PlacementPolicy::Plain, 2, &[&[2, 0, 1]]);
        assert_eq!((cols[0].clone(), over[0].clone()), (vec![2, 0], vec![1]));
        let (cols, over, _) = run(PlacementPolicy::Sequential, 2, &[&[2, 0, 1]]);
        assert_eq!((cols[0].clone(), over[0].clone()), (vec![0, 1], vec![2]));
    }

    #[test]
    fn policies_choose_different_overflow_victims() {
        // ids a=0 b=1 c=2 d=3; the second row is written as c, d, a, b with K = 3: plain
        // overflows the last entry in row order (b), sequential and lru the largest id (d).
        let rows: &[&[i32]] = &[&[0, 1, 2], &[2, 3, 0, 1]];
        let (_, over, _) = run(PlacementPolicy::Plain, 3, rows);
        assert_eq!(over[1], vec![1]);
        let (_, over, _) = run(PlacementPolicy::Sequential, 3, rows);
        assert_eq!(over[1], vec![3]);
        let (_, over, _) = run(PlacementPolicy::Lru, 3, rows);
        assert_eq!(over[1], vec![3]);
    }
}
