//! The CLI's integration tests, one binary for all of them: each module runs the `strata` and
//! `strata-workload` binaries of this build (built with fault points: see `strata::fault`).

#[path = "../common/mod.rs"]
mod common;

mod branches;
mod catalog_options;
mod compact_write_only;
mod incremental;
mod levels;
mod maintenance;
mod map_keys;
mod object_store_s3;
mod reliability;
mod rescaled_buckets;
mod scan;
mod snapshot_operation;
mod sql;
mod tail;
mod write_notes;
mod write_row_kinds;
