//! What a reader may tell the Parquet layer beyond "these fields": which MAP keys it needs,
//! a conservative predicate on MAP keys, and counters of what was read.
//!
//! These hints let the format layer read less from files whose MAP columns are stored in the
//! shared-shredding layout (PIP-43, [`super::map_shredding`]): a read that needs only
//! `m['usage']` decodes the `__field_mapping` and the `__col_i` that can hold `usage`, not the
//! whole map; a predicate `m['usage'] > 30` can skip a file whose field dictionary lacks
//! `usage` and row groups whose `__col_i` statistics rule the value out. Files in the default
//! layout ignore the key hints and return whole maps; callers extract keys themselves, so
//! both layouts give the same answers.
//!
//! The hints never change results: selection and pruning are conservative, and the exact
//! answer always comes from evaluating the filter on reconstructed values.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use serde::Serialize;
use strata_spec::Datum;

use crate::expr::LeafOp;

/// One leaf of a [`MapKeyPredicate`]: `map[key] op literals` on the MAP column with field id
/// `field_id`. The literals are already of the map's value type.
#[derive(Clone, Debug, PartialEq)]
pub struct MapKeyLeaf {
    pub field_id: i32,
    pub key: String,
    pub op: LeafOp,
    pub literals: Vec<Datum>,
    /// The map's value type in the read schema. A file written before the value type changed
    /// (`ALTER TABLE … TYPE` on `m.value`) has statistics in its old type, which are not used
    /// (a string cut to a shorter length on read would no longer lie within them).
    pub value_type: strata_spec::DataType,
}

/// A conservative predicate over MAP keys used only to skip files and row groups.
/// `Unknown` stands for any part of the filter that is not about a MAP key (it may be true).
#[derive(Clone, Debug, PartialEq)]
pub enum MapKeyPredicate {
    Leaf(MapKeyLeaf),
    And(Vec<MapKeyPredicate>),
    Or(Vec<MapKeyPredicate>),
    Unknown,
}

/// Counters of one read (shared by every file the read touches; cheap atomics).
#[derive(Debug, Default)]
pub struct ReadMetrics {
    /// Data files of which at least one row group was decoded (ORC and Avro files count once read).
    pub files_read: AtomicU64,
    /// Parquet files opened whose every row group was ruled out (see
    /// [`Self::row_groups_skipped`]), so no column was decoded.
    pub files_skipped: AtomicU64,
    /// Data files not opened because their file indexes (bloom filter, bitmap: Java's
    /// `FileIndexPredicate`) prove no row matches the filter.
    pub files_skipped_by_index: AtomicU64,
    /// Parquet row groups decoded.
    pub row_groups_read: AtomicU64,
    /// Parquet row groups ruled out (by the row range, a row-group filter, statistics or the
    /// MAP-key predicate).
    pub row_groups_skipped: AtomicU64,
    /// Rows of the row groups read that the page index let the reader skip.
    pub page_rows_skipped: AtomicU64,
    /// Bytes fetched from storage (footers, column chunks, whole ORC/Avro files).
    pub bytes_read: AtomicU64,
}

/// A point-in-time copy of [`ReadMetrics`] (what `strata read --metrics` prints).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadMetricsSnapshot {
    /// See [`ReadMetrics::files_read`].
    pub files_read: u64,
    /// See [`ReadMetrics::files_skipped`].
    pub files_skipped: u64,
    /// See [`ReadMetrics::files_skipped_by_index`].
    pub files_skipped_by_index: u64,
    /// See [`ReadMetrics::row_groups_read`].
    pub row_groups_read: u64,
    /// See [`ReadMetrics::row_groups_skipped`].
    pub row_groups_skipped: u64,
    /// See [`ReadMetrics::page_rows_skipped`].
    pub page_rows_skipped: u64,
    /// See [`ReadMetrics::bytes_read`].
    pub bytes_read: u64,
}

impl ReadMetrics {
    /// Adds `n` to one of the counters (relaxed: counters are only summed, never ordered).
    pub fn add(counter: &AtomicU64, n: u64) {
        counter.fetch_add(n, Ordering::Relaxed);
    }

    /// The counters' current values.
    pub fn snapshot(&self) -> ReadMetricsSnapshot {
        ReadMetricsSnapshot {
            files_read: self.files_read.load(Ordering::Relaxed),
            files_skipped: self.files_skipped.load(Ordering::Relaxed),
            files_skipped_by_index: self.files_skipped_by_index.load(Ordering::Relaxed),
            row_groups_read: self.row_groups_read.load(Ordering::Relaxed),
            row_groups_skipped: self.row_groups_skipped.load(Ordering::Relaxed),
            page_rows_skipped: self.page_rows_skipped.load(Ordering::Relaxed),
            bytes_read: self.bytes_read.load(Ordering::Relaxed),
        }
    }
}

/// Hints passed with [`super::ParquetReadOptions::hints`].
#[derive(Clone, Debug, Default)]
pub struct ReadHints {
    /// MAP field id → the only keys the caller needs from that map, which it reads only
    /// through key access (`m['k']`). A shredded file then decodes only what can hold them
    /// and returns maps trimmed to them; a key present with a NULL value may be left out
    /// (reading it from its exclusive column cannot tell it from an absent key, and `m['k']`
    /// is NULL either way). A default-layout file returns whole maps.
    pub selected_map_keys: HashMap<i32, Arc<[String]>>,
    /// Skips files and row groups that cannot hold a row satisfying it.
    pub map_key_predicate: Option<Arc<MapKeyPredicate>>,
    /// Where to count files, row groups and bytes.
    pub metrics: Option<Arc<ReadMetrics>>,
}
