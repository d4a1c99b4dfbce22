//! Table metadata on storage: where things live ([`paths`]), the schema versions
//! ([`SchemaManager`]), the snapshots with their hint files ([`SnapshotManager`]) and the
//! long-lived changelogs of a decoupled changelog lifecycle ([`ChangelogManager`]).
//!
//! These managers only read and write whole metadata files; deciding *what* to commit is
//! the [`crate::commit`] layer's job.

mod changelog_manager;
pub mod manifests;
pub mod paths;
mod schema_manager;
mod snapshot_manager;

pub use changelog_manager::{ChangelogManager, CHANGELOG_PREFIX};
pub use manifests::ManifestStore;
pub use paths::{FileNamer, TablePaths};
pub use schema_manager::SchemaManager;
pub use snapshot_manager::SnapshotManager;
