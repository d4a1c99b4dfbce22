//! `snapshot/snapshot-N` files and the `LATEST` / `EARLIEST` hints.
//!
//! Hints may be stale or missing (other engines write only `LATEST`); they are trusted only
//! after checking the snapshot files, exactly as Java's `SnapshotManager` does. Publishing a
//! snapshot is a create-if-absent of `snapshot-N` ([`SnapshotManager::try_publish`]).

use strata_spec::snapshot::{format_hint, parse_hint, Snapshot};

use crate::error::{ErrorDetail, ResultExt};
use crate::io::FileIO;
use crate::meta::TablePaths;
use crate::{Error, Result};

/// Reads and publishes the snapshots of one table.
#[derive(Debug, Clone)]
pub struct SnapshotManager {
    io: FileIO,
    paths: TablePaths,
}

impl SnapshotManager {
    pub fn new(io: FileIO, paths: TablePaths) -> Self {
        SnapshotManager { io, paths }
    }

    /// Ids of every snapshot file present, ascending.
    pub async fn list_ids(&self) -> Result<Vec<i64>> {
        let (_, files) = self.io.list_dir(&self.paths.snapshot_dir()).await?;
        let mut ids: Vec<i64> = files
            .iter()
            .filter_map(|m| m.location.filename())
            .filter_map(|n| n.strip_prefix("snapshot-"))
            .filter_map(|n| n.parse().ok())
            .collect();
        ids.sort_unstable();
        Ok(ids)
    }

    /// A hint file's id; `None` when it is missing, unparsable or unreadable. Hints are
    /// advisory and other engines rewrite them in place: Java's `LocalFileIO` overwrites
    /// `LATEST` by truncating and writing, so a concurrent read can see an empty or partial
    /// file (on a local disk `object_store` then fails with "Requested range was invalid").
    /// Like Java's `HintFileUtils.readHint`, which catches and falls back, any failure here
    /// means "no hint" and the caller lists the snapshot directory instead.
    async fn read_hint(&self, path: &object_store::path::Path) -> Result<Option<i64>> {
        Ok(match self.io.get_opt(path).await {
            Ok(bytes) => bytes.and_then(|b| std::str::from_utf8(&b).ok().and_then(parse_hint)),
            Err(_) => None,
        })
    }

    /// Latest snapshot id, `None` for a table without snapshots.
    ///
    /// Java's `HintFileUtils.findLatest`: a positive `LATEST` hint is the answer when no
    /// snapshot follows it; otherwise (missing, malformed, stale) the directory is listed.
    /// strata also requires the hinted snapshot to exist, so a hint left behind by a removed
    /// snapshot is not returned (Java would return it and fail reading it).
    pub async fn latest_id(&self) -> Result<Option<i64>> {
        if let Some(h) = self.read_hint(&self.paths.latest_hint()).await? {
            // `h < i64::MAX`: a corrupt hint must not overflow `h + 1`.
            if (1..i64::MAX).contains(&h)
                && self.io.exists(&self.paths.snapshot_file(h)).await?
                && !self.io.exists(&self.paths.snapshot_file(h + 1)).await?
            {
                return Ok(Some(h));
            }
        }
        Ok(self.list_ids().await?.last().copied())
    }

    /// Earliest snapshot id still present, `None` for a table without snapshots.
    pub async fn earliest_id(&self) -> Result<Option<i64>> {
        if let Some(h) = self.read_hint(&self.paths.earliest_hint()).await? {
            if self.io.exists(&self.paths.snapshot_file(h)).await? {
                return Ok(Some(h));
            }
        }
        Ok(self.list_ids().await?.first().copied())
    }

    /// Snapshot `id`, or `ErrorDetail::SnapshotNotFound`; any error names the snapshot in its
    /// context ([`crate::Error::snapshot`]).
    pub async fn snapshot(&self, id: i64) -> Result<Snapshot> {
        self.load_snapshot(id).await.with_snapshot(id)
    }

    async fn load_snapshot(&self, id: i64) -> Result<Snapshot> {
        let path = self.paths.snapshot_file(id);
        let Some(bytes) = self.io.get_opt(&path).await? else {
            return Err(ErrorDetail::SnapshotNotFound {
                table: self.io.display(self.paths.root()),
                id,
            }
            .into());
        };
        let text = std::str::from_utf8(&bytes).map_err(|e| {
            Error::corrupt(
                self.io.display(&path),
                strata_spec::SpecError::invalid("snapshot file", format!("not UTF-8: {e}")),
            )
        })?;
        let snapshot =
            Snapshot::from_json(text).map_err(|e| Error::corrupt(self.io.display(&path), e))?;
        // A file whose id is not its name's would make the next commit reuse an id.
        if snapshot.id != id {
            return Err(Error::corrupt(
                self.io.display(&path),
                strata_spec::SpecError::invalid(
                    "snapshot file",
                    format!("file is snapshot-{id} but its id is {}", snapshot.id),
                ),
            ));
        }
        Ok(snapshot)
    }

    /// The latest snapshot, `None` for a table without snapshots.
    pub async fn latest(&self) -> Result<Option<Snapshot>> {
        match self.latest_id().await? {
            Some(id) => Ok(Some(self.snapshot(id).await?)),
            None => Ok(None),
        }
    }

    /// All snapshots present, ascending by id.
    pub async fn all(&self) -> Result<Vec<Snapshot>> {
        let mut out = Vec::new();
        for id in self.list_ids().await? {
            out.push(self.snapshot(id).await?);
        }
        Ok(out)
    }

    /// Atomically publishes `snapshot-<id>`: `Ok(false)` when that id is already taken (a
    /// concurrent commit won the race). On success the `LATEST` hint is updated (best effort:
    /// a stale hint is corrected by readers).
    pub async fn try_publish(&self, snapshot: &Snapshot) -> Result<bool> {
        let json = snapshot.to_json()?;
        let path = self.paths.snapshot_file(snapshot.id);
        if !self.io.put_if_absent(&path, json.into_bytes()).await? {
            return Ok(false);
        }
        // Best effort, like Java: a failed hint write does not fail the commit (readers check
        // the hint against the snapshot files). The fault point stands for a failed write.
        if crate::fault::inject("commit.hint-update").is_ok() {
            let _ = self
                .io
                .put(
                    &self.paths.latest_hint(),
                    format_hint(snapshot.id).into_bytes(),
                )
                .await;
        }
        Ok(true)
    }
}
