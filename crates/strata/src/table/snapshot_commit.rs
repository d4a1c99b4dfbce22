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

use std::fmt::Debug;

use async_trait::async_trait;
use strata_spec::snapshot::Snapshot;

use crate::meta::SnapshotManager;
use crate::Result;

/// Publishes a table's next snapshot (Java's `SnapshotCommit`).
#[async_trait]
pub trait SnapshotCommit: Send + Sync + Debug {
    /// Makes `snapshot` the table's snapshot `snapshot.id`. `Ok(true)`: it is. `Ok(false)`: the
    /// id is taken by another commit, nothing of this one was published (the committer re-plans
    /// on the newer snapshot; a retried request whose first try landed also reports this, and
    /// the committer then recognises its own snapshot). `Err`: it failed; an error whose
    /// [`crate::Error::may_have_committed`] is true may hide a published snapshot.
    async fn commit(&self, snapshot: &Snapshot) -> Result<bool>;
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
    async fn commit(&self, snapshot: &Snapshot) -> Result<bool> {
        self.snapshots.try_publish(snapshot).await
    }
}
