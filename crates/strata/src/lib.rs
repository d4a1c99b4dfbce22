//! # strata — a Rust engine for Apache Paimon tables
//!
//! The public surface is what an application or another engine embeds:
//!
//! | module | what |
//! |---|---|
//! | [`catalog`] | the filesystem catalog: databases, tables, `create_table`, `get_table` |
//! | [`table`] | [`table::Table`], the context every operation starts from, and `Identifier` |
//! | [`write`], [`commit`] | `TableWrite` → `CommitMessage`s → `TableCommit` → snapshot |
//! | [`scan`], [`read`] | `TableScan` → `DataSplit`s → `TableRead` → Arrow batches |
//! | [`maintenance`] | snapshot expiry, tags, rollback, time travel, orphan cleanup |
//! | [`system`] | Paimon's system tables (`$snapshots`, `$files`, …) as Arrow batches |
//! | [`expr`] | predicates (SQL text with the `sql` feature, or built in code) |
//! | [`arrow`] | Paimon schemas, types and values to Arrow and back (the front ends' conversions) |
//! | [`clock`] | the [`clock::Clock`] commits, expiry, cleanup and writers read time from |
//! | [`cache`] | the shared metadata [`cache::Cache`] (weight-bounded LRU built in) |
//! | [`io`] | [`io::FileIO`] over `object_store` (local FS, S3 with the `s3` feature, memory) |
//! | [`Error`], [`ErrorKind`] | errors naming what they concern, and their classes |
//!
//! [`fault`] names the fault points strata's crash tests arm (armed only in builds with the
//! `failpoints` feature). The internals (formats, LSM, metadata managers, indexes) are private;
//! the `unstable` feature exposes the few that strata's own benchmarks, fuzzers and tests reach,
//! as `strata::unstable`, with no stability promise. Layers, lower never importing higher, are in
//! ARCHITECTURE.md and checked by a test.

// Every `pub` item is reachable from the crate root (the public API, or `strata::unstable` for
// strata's own benchmarks, fuzzers and tests); everything else is `pub(crate)`. Checked in builds
// with the `unstable` feature, which the workspace's benchmarks turn on: without it the few items
// only `strata::unstable` exposes are unreachable on purpose.
#![cfg_attr(feature = "unstable", warn(unreachable_pub))]
#![warn(missing_docs)]

pub mod arrow;
pub mod cache;
pub mod catalog;
pub mod clock;
pub mod commit;
pub mod error;
pub mod expr;
pub mod io;
pub mod maintenance;
pub mod read;
pub mod scan;
pub mod stream;
pub mod system;
pub mod table;
pub mod write;

pub mod fault;

#[cfg(feature = "unstable")]
pub mod unstable;

/// Data-file formats: Parquet read/write with Paimon's layout, ORC/Avro read, types, stats.
mod format;
/// Dynamic-bucket HASH index, deletion-vector index files and index manifests.
mod index;
/// The LSM tree of primary-key tables: layouts, buffers, merging, compaction.
mod lsm;
/// Table directory layout, schema and snapshot managers, manifest I/O.
mod meta;

pub use error::{Error, ErrorContext, ErrorKind, ReportedError, Result};
pub use strata_spec as spec;
