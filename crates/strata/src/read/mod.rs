//! Reading splits into Arrow: [`TableRead`].
//!
//! For every data file the reader takes the schema the file was written with (its
//! `_SCHEMA_ID`) and reads the requested current-schema columns by field id
//! ([`crate::format::parquet_reader`]), so files written before columns were added, renamed
//! or dropped — by strata or any other engine — read correctly. Row groups and pages the
//! filter rules out by their Parquet statistics are skipped (`format::page_pruning`; not in
//! files with a deletion vector, whose row positions must stay contiguous); the filter is then
//! applied exactly (SQL semantics), after decoding or, where that pays, inside it
//! (`plan::ReadPlan::pushed_filter`); the projection is applied last. A split with a row range
//! ([`DataSplit::row_range`]) reads only those rows of its one file; top-level strings can be
//! read as views ([`TableRead::with_string_views`]).
//!
//! MAP key access: a projection item or filter column `m['k']` (a `MAP<STRING, T>` column `m`,
//! key `k`) is a derived column of type `T` (nullable), NULL when the map is NULL or lacks the
//! key ([`plan`], [`map_keys`]). A map needed only through key accesses is read with
//! `selected_map_keys` so the format layer may read only what holds those keys (the
//! shared-shredding layout), and the filter's MAP-key part is passed as a pruning hint. Merge
//! reads of primary-key tables read whole maps (merge engines need whole values) and derive
//! the key columns after merging. [`TableRead::with_metrics`] collects read counters.
//!
//! [`IncrementalRead`] (`incremental`, `incremental_diff`) reads the plans of
//! [`crate::scan::IncrementalScan`]: the records of delta and changelog files with their row
//! kinds, and the key-by-key diff of two snapshots.
//!
//! Files are decoded concurrently: a bounded number of files ahead of the consumer are read
//! by spawned tasks into small bounded channels, so memory stays bounded by
//! `READ_AHEAD_FILES × CHANNEL_BATCHES` batches while both cores decode.

mod batching;
mod blob_files;
pub(crate) mod data_evolution;
pub mod deletion_vectors;
mod fallback;
mod file_index;
mod incremental;
mod incremental_diff;
mod kv_read;
mod limit;
mod map_keys;
mod plan;
pub mod row_kinds;
pub(crate) mod row_tracking;
mod table_read;

pub use crate::format::read_hints::{ReadMetrics, ReadMetricsSnapshot};
pub use batching::DEFAULT_BATCH_SIZE;
pub use incremental::IncrementalRead;
pub use limit::limit_rows;
pub use table_read::TableRead;
