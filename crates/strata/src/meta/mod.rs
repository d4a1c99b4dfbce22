//! Table metadata on storage: where things live ([`paths`]), the schema versions
//! ([`SchemaManager`]) and the snapshots with their hint files ([`SnapshotManager`]).
//!
//! These managers only read and write whole metadata files; deciding *what* to commit is
//! the [`crate::commit`] layer's job.

pub mod manifests;
pub mod paths;
mod schema_manager;
mod snapshot_manager;

pub use manifests::ManifestStore;
pub use paths::{FileNamer, TablePaths};
pub use schema_manager::SchemaManager;
pub use snapshot_manager::SnapshotManager;
