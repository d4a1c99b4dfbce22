//! Table lifecycle: snapshot expiry, tags, rollback, time travel by tag or timestamp, and
//! orphan file cleanup — the operations that delete files, with Java Paimon's rules.
//!
//! | module | what | Java |
//! |---|---|---|
//! | [`files`] | where referenced files live, what a snapshot uses, idempotent deletion | `FileDeletionBase` |
//! | [`expire`] | snapshot expiry after every commit and on demand | `ExpireSnapshotsImpl`, `SnapshotDeletion` |
//! | [`expire_changelog`] | expiry of `changelog/changelog-N` (decoupled changelog lifecycle) | `ExpireChangelogImpl`, `ChangelogDeletion` |
//! | `expire_settings` | expiry asked for by hand: table options with a caller's overrides ([`ExpireOverrides`]), "older than" arguments ([`older_than`]) | `ExpireSnapshotsProcedure` |
//! | [`tags`] | `tag/tag-<name>` files (in [`crate::table::tags`]: scans read them too) | `TagManager`, `Tag` |
//! | [`tag_ops`] | create / delete tags, tag retention | `TagManager.deleteTag`, `TagDeletion`, `TagTimeExpire` |
//! | [`rollback`] | roll back to a snapshot or tag | `RollbackHelper` |
//! | [`time_travel`] | snapshot of an id, tag or timestamp (in [`crate::scan::time_travel`]: scans apply the table's `scan.*` options) | `TimeTravelUtil` |
//! | [`orphans`] | delete unreferenced old files | `LocalOrphanFilesClean` |
//! | [`consumers`] | `consumer/consumer-<id>` progress files of streaming readers | `ConsumerManager` |
//!
//! Every deletion follows one rule: a file any retained snapshot or tag uses is never deleted,
//! and a data file is "used" by name whatever its level (a compaction upgrade changes only
//! the level). [`TableLifecycle`] puts the operations on [`Table`].

pub mod consumers;
pub mod expire;
pub mod expire_changelog;
mod expire_settings;
pub mod files;
pub mod orphans;
mod retention;
pub mod rollback;
pub mod tag_ops;
pub use crate::scan::time_travel;
pub use crate::table::tags;

use std::time::Duration;

pub use expire::{
    changelog_decoupled, expire_after_commit, ExpireConfig, ExpirePlan, ExpireReport,
    ExpireSnapshots,
};
pub use expire_changelog::{
    ChangelogExpireConfig, ChangelogExpirePlan, ChangelogExpireReport, ExpireChangelogs,
};
pub use expire_settings::{older_than, retained_until, ExpireOverrides};
pub use files::{Deletion, DeletionCounts, FileCategory};
pub use orphans::{OrphanFilesClean, OrphanReport};
pub use rollback::RollbackReport;
pub use tag_ops::TagDeletionReport;
pub use tags::{Tag, TagManager};
pub use time_travel::TravelTarget;

use crate::scan::TableScan;
use crate::table::Table;
use crate::Result;

/// The lifecycle operations as methods of [`Table`].
#[allow(async_fn_in_trait)]
pub trait TableLifecycle {
    /// Expires snapshots with the table's retention options.
    async fn expire_snapshots(&self) -> Result<ExpireReport>;
    /// Creates tag `name` of snapshot `snapshot_id` (default latest).
    async fn create_tag(
        &self,
        name: &str,
        snapshot_id: Option<i64>,
        time_retained: Option<Duration>,
    ) -> Result<Tag>;
    /// Deletes tag `name` and the files only it used.
    async fn delete_tag(&self, name: &str) -> Result<TagDeletionReport>;
    /// Every tag, by snapshot id.
    async fn tags(&self) -> Result<Vec<Tag>>;
    /// Rolls back to snapshot `id`.
    async fn rollback_to_snapshot(&self, id: i64) -> Result<RollbackReport>;
    /// Rolls back to tag `name`.
    async fn rollback_to_tag(&self, name: &str) -> Result<RollbackReport>;
    /// The table at `target` (its schema then) and a scan of that snapshot.
    async fn travel_to(&self, target: &TravelTarget) -> Result<(Table, TableScan)>;
    /// Deletes files nothing references that are older than `older_than_millis`.
    async fn remove_orphan_files(
        &self,
        older_than_millis: i64,
        dry_run: bool,
    ) -> Result<OrphanReport>;
}

impl TableLifecycle for Table {
    async fn expire_snapshots(&self) -> Result<ExpireReport> {
        ExpireSnapshots::new(self)?.expire().await
    }
    async fn create_tag(
        &self,
        name: &str,
        snapshot_id: Option<i64>,
        time_retained: Option<Duration>,
    ) -> Result<Tag> {
        tag_ops::create_tag(self, name, snapshot_id, time_retained).await
    }
    async fn delete_tag(&self, name: &str) -> Result<TagDeletionReport> {
        tag_ops::delete_tag(self, name).await
    }
    async fn tags(&self) -> Result<Vec<Tag>> {
        TagManager::new(self).all().await
    }
    async fn rollback_to_snapshot(&self, id: i64) -> Result<RollbackReport> {
        rollback::rollback_to_snapshot(self, id).await
    }
    async fn rollback_to_tag(&self, name: &str) -> Result<RollbackReport> {
        rollback::rollback_to_tag(self, name).await
    }
    async fn travel_to(&self, target: &TravelTarget) -> Result<(Table, TableScan)> {
        crate::scan::travel(self, target).await
    }
    async fn remove_orphan_files(
        &self,
        older_than_millis: i64,
        dry_run: bool,
    ) -> Result<OrphanReport> {
        OrphanFilesClean::new(self, older_than_millis)
            .dry_run(dry_run)
            .clean()
            .await
    }
}
