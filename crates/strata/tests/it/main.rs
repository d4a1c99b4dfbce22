//! strata's integration tests, one binary (one link, one process) for all of them.
//!
//! Each module is one area; shared helpers live in `tests/common` and
//! `tests/lifecycle_support`. Two tests stay binaries of their own because they need their
//! process to themselves: `tests/fault_injection.rs` arms process-wide fault points that every
//! other test would reach, and `tests/memory_bounds.rs` measures the process's peak RSS.

#[path = "../common/mod.rs"]
mod common;
#[path = "../lifecycle_support/mod.rs"]
mod lifecycle_support;
#[path = "../common/maps.rs"]
mod maps;

mod append_compaction;
mod append_row_kinds;
mod append_table;
mod blob_update;
mod blob_write;
mod branches;
mod bucket_rescale;
mod catalog;
mod changelog_input;
mod changelog_lifecycle;
mod changelog_lookup;
mod clock;
mod column_defaults;
mod commit_protocol;
mod compact_write_only;
mod compaction;
mod corrupt_files;
mod cross_partition;
mod data_evolution_dml;
mod deletion_vectors;
mod dv_commit_conflicts;
mod dv_concurrency;
mod dynamic_bucket;
mod fallback_branch;
mod file_index;
mod fuzz_corpus;
mod incremental_read;
mod lifecycle_expire;
mod lifecycle_orphans;
mod lifecycle_rollback;
mod lookup_compaction;
mod manifest_merging;
mod map_dedicated;
mod map_key_read;
mod map_shredding;
mod object_store_s3;
mod option_support;
mod page_pruning;
mod pk_table;
mod postpone_bucket;
mod read_audit;
mod rest_client;
mod row_id_column_conflicts;
mod row_id_commit_conflicts;
mod row_kinds;
mod row_tracking;
mod scan_incremental_cache;
mod scan_planning;
mod schema_evolution;
mod snapshot_operation;
mod split_slices;
mod streaming;
mod system_tables;
mod system_tables_pk;
mod table_model;
mod variant_blob;
mod wire;
