//! # strata — a Rust engine for Apache Paimon tables
//!
//! Layers, lower never importing higher (see ARCHITECTURE.md):
//!
//! | layer | module | what |
//! |---|---|---|
//! | on-disk spec | `strata_spec` (crate) | types, schema/snapshot JSON, BinaryRow, manifests — pure |
//! | cache | [`cache`] | the shared [`cache::Cache`] (weight-bounded LRU built in) for metadata |
//! | file I/O | [`io`] | [`io::FileIO`] over `object_store` (local FS default, in-memory for tests) |
//! | formats | [`format`] | Parquet read/write with Paimon's column layout, Arrow ⇄ Paimon types, stats |
//! | expressions | [`expr`] | predicates: binding, stats pruning, exact row filtering |
//! | metadata | [`meta`] | schema and snapshot managers (`schema/`, `snapshot/`, hints) |
//! | indexes | [`index`] | dynamic-bucket assignment, HASH index files, index manifests |
//! | LSM | [`lsm`] | primary-key tables: merge engines, sorted runs, merge reading |
//! | table ops | [`write`], [`commit`], [`scan`], [`read`] | write → commit → scan → read |
//! | entry points | [`catalog`], [`table`] | filesystem catalog and the `Table` facade |
//! | lifecycle | [`maintenance`] | snapshot expiry, tags, rollback, time travel, orphan cleanup |

pub mod cache;
pub mod catalog;
pub mod commit;
pub mod error;
pub mod expr;
pub mod fault;
pub mod format;
pub mod index;
pub mod io;
pub mod lsm;
pub mod maintenance;
pub mod meta;
pub mod read;
pub mod scan;
pub mod table;
pub mod write;

pub use error::{Error, ErrorKind, Result};
pub use strata_spec as spec;
