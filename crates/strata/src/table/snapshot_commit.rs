//! How a table's commit publishes its next snapshot: [`SnapshotCommit`], Java's
//! `org.apache.paimon.catalog.SnapshotCommit`.
//!
//! The commit protocol (`crate::commit`) writes the data, manifests and manifest lists, then
//! asks the table's `SnapshotCommit` to make `snapshot-N` the table's snapshot N. Who decides is
//! the catalog's business: a filesystem warehouse decides by an atomic create-if-absent of the
//! snapshot file ([`FileSnapshotCommit`], Java's `RenamingSnapshotCommit`); a catalog that owns
//! commits (Paimon's REST catalog, Java's `CatalogSnapshotCommit` → `Catalog.commitSnapshot`)
//! decides on its server, and gives its tables a `SnapshotCommit` that asks it
//! ([`crate::catalog::CatalogSnapshotCommit`]). A table loaded through a catalog
//! ([`crate::catalog::Catalog::get_table`]) carries its catalog's; every handle derived from it
//! (time travel, dynamic options, an altered schema) keeps it.
//!
//! The same decider may manage the table's branches (Java: `AbstractFileStoreTable.
//! branchManager` is a `CatalogBranchManager` when the catalog `supportsVersionManagement`):
//! `list_branches`, `create_branch`, `drop_branch`, `fast_forward`, `rename_branch` and
//! `on_branch` answer "not handled here" by default, and the table then uses its
//! `branch/branch-NAME` directories (Java's `FileSystemBranchManager`). Tags stay files in
//! every case, as Java's `AbstractFileStoreTable.tagManager` is always a `TagManager` over them.

use std::fmt::Debug;

use async_trait::async_trait;
use strata_spec::partition::PartitionStatistics;
use strata_spec::snapshot::Snapshot;

use crate::meta::SnapshotManager;
use crate::Result;

/// What a commit tells the one who decides it besides the snapshot: the arguments of Java's
/// `SnapshotCommit.commit(baseSnapshotUuid, snapshot, branch, statistics)`. A filesystem
/// warehouse needs none of it; Paimon's REST catalog sends all of it (`CommitTableRequest`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CommitContext {
    /// The uuid of the latest snapshot the commit planned on; `None` for a table's first
    /// snapshot (or a latest snapshot written before snapshots had uuids). A catalog deciding
    /// on its side refuses the commit when its latest snapshot is another one.
    pub base_snapshot_uuid: Option<String>,
    /// The branch committed to (`main` or a branch name).
    pub branch: String,
    /// Per partition, what the commit's files change (Java `PartitionEntry.merge` of the delta
    /// entries, `toPartitionStatistics`); empty for a commit without data files.
    pub statistics: Vec<PartitionStatistics>,
}

impl CommitContext {
    /// A context for a commit on `branch` planned on the snapshot with uuid `base`.
    pub fn new(branch: impl Into<String>, base_snapshot_uuid: Option<String>) -> Self {
        CommitContext {
            base_snapshot_uuid,
            branch: branch.into(),
            statistics: Vec::new(),
        }
    }

    /// The same context with `statistics`.
    pub fn with_statistics(mut self, statistics: Vec<PartitionStatistics>) -> Self {
        self.statistics = statistics;
        self
    }
}

/// What a rollback goes back to (Java's `Instant`: `SnapshotInstant` / `TagInstant`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RollbackInstant {
    /// A snapshot id.
    Snapshot(i64),
    /// A tag name.
    Tag(String),
}

/// Publishes a table's next snapshot (Java's `SnapshotCommit`).
#[async_trait]
pub trait SnapshotCommit: Send + Sync + Debug {
    /// Makes `snapshot` the table's snapshot `snapshot.id`. `Ok(true)`: it is. `Ok(false)`: the
    /// id is taken by another commit, or the decider's latest snapshot is not the one the commit
    /// planned on (`ctx.base_snapshot_uuid`); nothing of this one was published (the committer
    /// re-plans on the newer snapshot; a retried request whose first try landed also reports
    /// this, and the committer then recognises its own snapshot). `Err`: it failed; an error
    /// whose [`crate::Error::may_have_committed`] is true may hide a published snapshot.
    async fn commit(&self, snapshot: &Snapshot, ctx: &CommitContext) -> Result<bool>;

    /// Rolls the table back to `instant` on the decider's side (Java's `Catalog.rollbackTo`,
    /// used when the catalog `supportsVersionManagement`), `from_snapshot` being the latest
    /// snapshot the caller saw (the decider refuses when its latest is another). `Ok(false)`:
    /// this decider does not manage versions, the table rolls back through its own files (the
    /// default). `Ok(true)`: done.
    async fn rollback_to(
        &self,
        instant: &RollbackInstant,
        from_snapshot: Option<i64>,
    ) -> Result<bool> {
        let _ = (instant, from_snapshot);
        Ok(false)
    }

    /// The table's branches as the decider lists them (Java's `CatalogBranchManager.branches`
    /// → `Catalog.listBranches`), sorted or not; `None` (the default): this decider does not
    /// manage branches, they are the table's `branch/branch-NAME` directories.
    async fn list_branches(&self) -> Result<Option<Vec<String>>> {
        Ok(None)
    }

    /// Creates branch `name` on the decider's side (Java's `Catalog.createBranch(identifier,
    /// name, fromTag)`): empty, or from tag `from_tag`, or from snapshot `from_snapshot` (a start
    /// a decider may refuse by name: Paimon's REST API takes a tag only). `Ok(false)` (the
    /// default): not managed here, the table writes its files. `Ok(true)`: done.
    async fn create_branch(
        &self,
        name: &str,
        from_tag: Option<&str>,
        from_snapshot: Option<i64>,
    ) -> Result<bool> {
        let _ = (name, from_tag, from_snapshot);
        Ok(false)
    }

    /// Drops branch `name` on the decider's side (Java's `Catalog.dropBranch`); `Ok(false)` (the
    /// default): not managed here.
    async fn drop_branch(&self, name: &str) -> Result<bool> {
        let _ = name;
        Ok(false)
    }

    /// Fast-forwards the table's branch to branch `name` on the decider's side (Java's
    /// `Catalog.fastForward`); `Ok(false)` (the default): not managed here.
    async fn fast_forward(&self, name: &str) -> Result<bool> {
        let _ = name;
        Ok(false)
    }

    /// Renames branch `from` to `to` on the decider's side (Java's `Catalog.renameBranch`);
    /// `Ok(false)` (the default): not managed here.
    async fn rename_branch(&self, from: &str, to: &str) -> Result<bool> {
        let _ = (from, to);
        Ok(false)
    }

    /// The decider of the same table on branch `branch` (Java's `switchToBranch` keeps the
    /// catalog environment with the branch's identifier); `None` (the default): the branch's
    /// handle publishes through its own files ([`FileSnapshotCommit`]).
    fn on_branch(&self, branch: &str) -> Option<std::sync::Arc<dyn SnapshotCommit>> {
        let _ = branch;
        None
    }

    /// Whether this is the warehouse's own create-if-absent ([`FileSnapshotCommit`]), so a
    /// handle opened from the table's path alone commits the same way. `false` (the default)
    /// for a catalog that decides commits or guards them with a lock of its own.
    fn is_file_commit(&self) -> bool {
        false
    }
}

/// The filesystem warehouse's [`SnapshotCommit`]: an atomic create-if-absent of
/// `snapshot/snapshot-N` (a conditional PUT on object stores, `O_EXCL` on local disks), then a
/// best-effort `LATEST` hint — Java's `RenamingSnapshotCommit`, whose rename is a
/// create-if-absent as well.
#[derive(Clone, Debug)]
pub struct FileSnapshotCommit {
    snapshots: SnapshotManager,
}

impl FileSnapshotCommit {
    pub(crate) fn new(snapshots: SnapshotManager) -> Self {
        FileSnapshotCommit { snapshots }
    }
}

#[async_trait]
impl SnapshotCommit for FileSnapshotCommit {
    async fn commit(&self, snapshot: &Snapshot, _ctx: &CommitContext) -> Result<bool> {
        self.snapshots.try_publish(snapshot).await
    }

    fn is_file_commit(&self) -> bool {
        true
    }
}
