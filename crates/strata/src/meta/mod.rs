//! Table metadata on storage: where things live ([`paths`]), the schema versions
//! ([`SchemaManager`]), the snapshots with their hint files ([`SnapshotManager`]) and the
//! long-lived changelogs of a decoupled changelog lifecycle ([`ChangelogManager`]).
//!
//! These managers only read and write whole metadata files; deciding *what* to commit is
//! the [`crate::commit`] layer's job.

mod changelog_manager;
pub(crate) mod manifests;
pub(crate) mod paths;
mod schema_manager;
mod snapshot_manager;

pub(crate) use changelog_manager::ChangelogManager;
pub(crate) use manifests::ManifestStore;
pub(crate) use paths::{FileNamer, TablePaths};
pub(crate) use schema_manager::SchemaManager;
pub(crate) use snapshot_manager::SnapshotManager;

// Paths strata's unit tests use (the crate uses the defining modules).
#[cfg(test)]
#[allow(unused_imports)]
pub(crate) use changelog_manager::CHANGELOG_PREFIX;
