//! strata's internals, with **no stability promise**: they change whenever the engine needs
//! them to. Build on the modules at the crate root instead. They are public so that strata's
//! own CLI, benchmarks, fuzzers and tests can reach them; inside the crate they are used as
//! `crate::format`, `crate::lsm`, ... (re-exported at the root, crate-visible only).

/// Fault points (test builds only: the `failpoints` feature).
#[path = "fault.rs"]
pub mod fault;
/// Data-file formats: Parquet read/write with Paimon's layout, ORC/Avro read, types, stats.
#[path = "format/mod.rs"]
pub mod format;
/// Dynamic-bucket HASH index and index manifests.
#[path = "index/mod.rs"]
pub mod index;
/// The LSM tree of primary-key tables: layouts, buffers, merging, compaction.
#[path = "lsm/mod.rs"]
pub mod lsm;
/// Table directory layout, schema and snapshot managers, manifest I/O.
#[path = "meta/mod.rs"]
pub mod meta;
