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
//! **Dedicated columns** (a strata extension, see [`super::plan`]): a file may reserve its
//! first D columns for D frequent keys, one key each. A dedicated key always goes to its own
//! column and no other key ever does, so the column holds exactly that key's values (tight
//! statistics, and a reader can take the key from that one column without `__field_mapping`).
//! The policy places the row's other entries into the shared columns D..K-1 as above. With
//! D = 0 every policy is exactly Java's. When every column is dedicated, the other entries
//! overflow in row order.
//!
//! Every allocator also accumulates the file's statistics written to the footer: the columns
//! each field id ever occupied, the ids that ever overflowed, and the widest row.
//!
//! The allocators work on entry *positions* so the caller can gather values without a lookup:
//! [`RowAllocation::columns`]`[c]` is the position (in the row) of the entry stored in column
//! `c`, or `-1`.
//!
//! lru costs O(row width) per row, not O(K): the assigned shared columns sit in a doubly
//! linked list ordered by (last used, index) — exactly the order Java's scan for the smallest
//! `last_used` visits them — so the victim is found from the head, skipping only columns the
//! row already uses, and the row's columns move to the tail in index order.

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
    /// Most entries in one row that were not in a dedicated column (= `max_row_width` when
    /// the file has no dedicated columns). K history is kept in these.
    pub max_shared_width: usize,
    /// Per field id, the column last recorded (a fast path: keys mostly stay put).
    last_recorded: Vec<u32>,
    /// Per field id, whether it is in `overflow` (a fast path for repeated overflows).
    overflowed: Vec<bool>,
}

impl AllocationStats {
    fn record_overflow(&mut self, id: i32) {
        let slot = id as usize;
        if self.overflowed.len() <= slot {
            self.overflowed.resize(slot + 1, false);
        }
        if !self.overflowed[slot] {
            self.overflowed[slot] = true;
            self.overflow.insert(id);
        }
    }

    fn record_column(&mut self, id: i32, column: usize) {
        let id = id as usize;
        let c = column as u32;
        if self.last_recorded.len() <= id {
            self.last_recorded.resize(id + 1, u32::MAX);
            self.field_columns.resize_with(id + 1, Vec::new);
        }
        if self.last_recorded[id] == c {
            return;
        }
        self.last_recorded[id] = c;
        let cols = &mut self.field_columns[id];
        if let Err(at) = cols.binary_search(&c) {
            cols.insert(at, c);
        }
    }
}

/// A per-file column allocator for one shredded MAP column.
#[derive(Clone, Debug)]
pub struct ColumnAllocator {
    k: usize,
    /// Columns `0..dedicated` are reserved for dedicated keys.
    dedicated: usize,
    policy: PlacementPolicy,
    stats: AllocationStats,
    /// Field id → its dedicated column, or -1.
    dedicated_of: Vec<i32>,
    /// Scratch: (id, position) of the row's entries that go to shared columns.
    order: Vec<(i32, usize)>,
    lru: Option<LruState>,
}

const NIL: usize = usize::MAX;

#[derive(Clone, Debug)]
struct LruState {
    /// Column → owning field id (-1: never assigned). Indexed by global column.
    owner: Vec<i32>,
    /// Field id → column it owns (-1: none).
    column_of: Vec<i32>,
    /// The assigned shared columns from least to most recently used (ties: by index).
    prev: Vec<usize>,
    next: Vec<usize>,
    head: usize,
    tail: usize,
    /// Shared columns `< next_fresh` have been assigned.
    next_fresh: usize,
    /// Columns used by the current row (stamp = row number + 1).
    used_in_row: Vec<u64>,
    row_stamp: u64,
    /// Scratch: the columns the current row used.
    row_columns: Vec<usize>,
}

impl LruState {
    fn new(k: usize, first_shared: usize) -> Self {
        LruState {
            owner: vec![-1; k],
            column_of: Vec::new(),
            prev: vec![NIL; k],
            next: vec![NIL; k],
            head: NIL,
            tail: NIL,
            next_fresh: first_shared,
            used_in_row: vec![0; k],
            row_stamp: 0,
            row_columns: Vec::new(),
        }
    }

    fn unlink(&mut self, c: usize) {
        let (p, n) = (self.prev[c], self.next[c]);
        if p == NIL {
            self.head = n;
        } else {
            self.next[p] = n;
        }
        if n == NIL {
            self.tail = p;
        } else {
            self.prev[n] = p;
        }
        self.prev[c] = NIL;
        self.next[c] = NIL;
    }

    fn push_back(&mut self, c: usize) {
        self.prev[c] = self.tail;
        self.next[c] = NIL;
        if self.tail == NIL {
            self.head = c;
        } else {
            self.next[self.tail] = c;
        }
        self.tail = c;
    }
}

impl ColumnAllocator {
    /// An allocator over `k` columns (`k ≥ 1`), all shared.
    pub fn new(k: usize, policy: PlacementPolicy) -> Self {
        Self::with_dedicated(k, 0, policy)
    }

    /// An allocator over `k` columns whose first `dedicated` (`< k`, or `≤ k` when every key
    /// of the file is dedicated) are reserved: [`Self::dedicate`] gives each one key.
    pub fn with_dedicated(k: usize, dedicated: usize, policy: PlacementPolicy) -> Self {
        let k = k.max(1);
        let dedicated = dedicated.min(k);
        ColumnAllocator {
            k,
            dedicated,
            policy,
            stats: AllocationStats::default(),
            dedicated_of: Vec::new(),
            order: Vec::new(),
            lru: (policy == PlacementPolicy::Lru).then(|| LruState::new(k, dedicated)),
        }
    }

    pub fn num_columns(&self) -> usize {
        self.k
    }

    /// Columns reserved for dedicated keys (`0..n`).
    pub fn num_dedicated(&self) -> usize {
        self.dedicated
    }

    pub fn stats(&self) -> &AllocationStats {
        &self.stats
    }

    /// Reserves dedicated column `column` (`< num_dedicated()`) for field id `id`, before any
    /// row holding `id` is allocated. Each column and each id is dedicated at most once.
    pub fn dedicate(&mut self, id: i32, column: usize) {
        debug_assert!(
            column < self.dedicated,
            "column {column} is not a dedicated one"
        );
        let slot = id as usize;
        if self.dedicated_of.len() <= slot {
            self.dedicated_of.resize(slot + 1, -1);
        }
        self.dedicated_of[slot] = column as i32;
    }

    fn dedicated_column(&self, id: i32) -> Option<usize> {
        match self.dedicated_of.get(id as usize) {
            Some(&c) if c >= 0 => Some(c as usize),
            _ => None,
        }
    }

    /// Allocates one non-null row whose entries have the field ids `ids` (distinct, ≥ 0), and
    /// records it in the statistics. `out` is overwritten.
    pub fn allocate(&mut self, ids: &[i32], out: &mut RowAllocation) {
        out.columns.clear();
        out.columns.resize(self.k, -1);
        out.overflow.clear();
        self.stats.max_row_width = self.stats.max_row_width.max(ids.len());
        // Dedicated keys first; the others are collected for the policy.
        self.order.clear();
        if self.dedicated == 0 {
            self.order
                .extend(ids.iter().enumerate().map(|(pos, &id)| (id, pos)));
        } else {
            for (pos, &id) in ids.iter().enumerate() {
                match self.dedicated_column(id) {
                    Some(c) => {
                        out.columns[c] = pos as i32;
                        self.stats.record_column(id, c);
                    }
                    None => self.order.push((id, pos)),
                }
            }
        }
        self.stats.max_shared_width = self.stats.max_shared_width.max(self.order.len());
        let first = self.dedicated;
        if first == self.k {
            // No shared column: the other keys overflow in row order, whatever the policy.
            for &(id, pos) in &self.order {
                out.overflow.push(pos);
                self.stats.record_overflow(id);
            }
            return;
        }
        match self.policy {
            PlacementPolicy::Plain => self.place_in_order(first, out),
            PlacementPolicy::Sequential => {
                self.order.sort_unstable();
                self.place_in_order(first, out);
            }
            PlacementPolicy::Lru => {
                self.order.sort_unstable();
                let lru = self.lru.as_mut().expect("created for the lru policy");
                lru.allocate(&self.order, first, out, &mut self.stats);
            }
        }
    }

    /// `order`'s entries into columns `first..k` in order; the rest overflow.
    fn place_in_order(&mut self, first: usize, out: &mut RowAllocation) {
        for (i, &(id, pos)) in self.order.iter().enumerate() {
            let c = first + i;
            if c < self.k {
                out.columns[c] = pos as i32;
                self.stats.record_column(id, c);
            } else {
                out.overflow.push(pos);
                self.stats.record_overflow(id);
            }
        }
    }
}

impl LruState {
    fn allocate(
        &mut self,
        sorted: &[(i32, usize)],
        first_shared: usize,
        out: &mut RowAllocation,
        stats: &mut AllocationStats,
    ) {
        let shared = self.owner.len() - first_shared;
        self.row_stamp += 1;
        let stamp = self.row_stamp;
        self.row_columns.clear();
        let max_id = sorted.last().map_or(0, |&(id, _)| id as usize);
        if self.column_of.len() <= max_id {
            self.column_of.resize(max_id + 1, -1);
        }
        // Hits keep their column.
        for &(id, pos) in sorted {
            let c = self.column_of[id as usize];
            if c >= 0 {
                let c = c as usize;
                out.columns[c] = pos as i32;
                self.used_in_row[c] = stamp;
                self.row_columns.push(c);
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
            if self.row_columns.len() == shared {
                out.overflow.push(pos);
                stats.record_overflow(id);
                continue;
            }
            let c = if self.next_fresh < self.owner.len() {
                // Fresh columns are never used by this row yet (using one assigns it).
                let c = self.next_fresh;
                self.next_fresh += 1;
                c
            } else {
                let mut c = self.head;
                // Fewer columns are used than exist and every shared column is assigned (no
                // fresh one is left), so an unused one is in the list.
                while self.used_in_row[c] == stamp {
                    c = self.next[c];
                }
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
            self.row_columns.push(c);
            stats.record_column(id, c);
        }
        // The row's columns become the most recently used, in index order (equal stamps).
        self.row_columns.sort_unstable();
        for i in 0..self.row_columns.len() {
            let c = self.row_columns[i];
            if self.prev[c] != NIL || self.head == c {
                self.unlink(c);
            }
            self.push_back(c);
        }
    }
}

#[cfg(test)]
#[path = "allocator_tests.rs"]
mod tests;
