//! `changelog/changelog-N` files and their `LATEST` / `EARLIEST` hints (Java
//! `ChangelogManager`): the long-lived changelogs of a table whose changelog lifecycle is
//! decoupled from its snapshots' (`changelog.num-retained.*` / `changelog.time-retained`
//! longer than `snapshot.*`).
//!
//! When such a table's snapshot `N` expires, its JSON is written to `changelog/changelog-N`
//! (Java class `Changelog`, a `Snapshot` subclass with the same fields and JSON) and the
//! files its changes are read from stay: the changelog manifest list and files
//! (`changelog-producer` other than `none`), or the delta manifest list and the delta's data
//! files (`none`). Streaming reads then find snapshot `N` here. Hints follow Java's
//! `HintFileUtils`: advisory, checked against the files, the directory listed otherwise.

use strata_spec::snapshot::{format_hint, parse_hint, Snapshot};

use crate::error::ErrorDetail;
use crate::io::FileIO;
use crate::meta::TablePaths;
use crate::{Error, Result};

/// The file name prefix of long-lived changelogs (Java `CHANGELOG_PREFIX`).
pub(crate) const CHANGELOG_PREFIX: &str = "changelog-";

/// Reads and writes the long-lived changelogs of one table.
#[derive(Debug, Clone)]
pub struct ChangelogManager {
    io: FileIO,
    paths: TablePaths,
}

impl ChangelogManager {
    pub fn new(io: FileIO, paths: TablePaths) -> Self {
        ChangelogManager { io, paths }
    }

    /// `changelog/`.
    pub fn dir(&self) -> object_store::path::Path {
        self.paths.changelog_dir()
    }

    /// `changelog/changelog-<id>` (Java `longLivedChangelogPath`).
    pub fn file(&self, id: i64) -> object_store::path::Path {
        self.dir().join(format!("{CHANGELOG_PREFIX}{id}"))
    }

    pub fn latest_hint(&self) -> object_store::path::Path {
        self.dir().join("LATEST")
    }

    pub fn earliest_hint(&self) -> object_store::path::Path {
        self.dir().join("EARLIEST")
    }

    /// Ids of every changelog file present, ascending.
    pub async fn list_ids(&self) -> Result<Vec<i64>> {
        let (_, files) = self.io.list_dir(&self.dir()).await?;
        let mut ids: Vec<i64> = files
            .iter()
            .filter_map(|m| m.location.filename())
            .filter_map(|n| n.strip_prefix(CHANGELOG_PREFIX))
            .filter_map(|n| n.parse().ok())
            .collect();
        ids.sort_unstable();
        Ok(ids)
    }

    /// A hint's id; any failure to read or parse it means "no hint" (Java `readHint`).
    async fn read_hint(&self, path: &object_store::path::Path) -> Option<i64> {
        match self.io.get_opt(path).await {
            Ok(bytes) => bytes.and_then(|b| std::str::from_utf8(&b).ok().and_then(parse_hint)),
            Err(_) => None,
        }
    }

    /// The latest long-lived changelog id (Java `latestLongLivedChangelogId`): a positive
    /// `LATEST` hint with no changelog after it, else the directory listed. Like strata's
    /// `SnapshotManager`, the hinted file must exist too (a rollback writes `-1`).
    pub async fn latest_id(&self) -> Result<Option<i64>> {
        if let Some(h) = self.read_hint(&self.latest_hint()).await {
            if (1..i64::MAX).contains(&h)
                && self.io.exists(&self.file(h)).await?
                && !self.io.exists(&self.file(h + 1)).await?
            {
                return Ok(Some(h));
            }
        }
        Ok(self.list_ids().await?.last().copied())
    }

    /// The earliest long-lived changelog id (Java `earliestLongLivedChangelogId`).
    pub async fn earliest_id(&self) -> Result<Option<i64>> {
        if let Some(h) = self.read_hint(&self.earliest_hint()).await {
            if self.io.exists(&self.file(h)).await? {
                return Ok(Some(h));
            }
        }
        Ok(self.list_ids().await?.first().copied())
    }

    /// Whether `changelog-<id>` exists (Java `longLivedChangelogExists`).
    pub async fn exists(&self, id: i64) -> Result<bool> {
        self.io.exists(&self.file(id)).await
    }

    /// Changelog `id`, `None` when there is no such file. A file that is not a snapshot JSON
    /// of that id is a corrupt-file error naming it.
    pub async fn get(&self, id: i64) -> Result<Option<Snapshot>> {
        let path = self.file(id);
        let Some(bytes) = self.io.get_opt(&path).await? else {
            return Ok(None);
        };
        let corrupt = |m: String| {
            Error::corrupt(
                self.io.display(&path),
                strata_spec::SpecError::invalid("changelog file", m),
            )
        };
        let text = std::str::from_utf8(&bytes).map_err(|e| corrupt(format!("not UTF-8: {e}")))?;
        let c = Snapshot::from_json(text).map_err(|e| Error::corrupt(self.io.display(&path), e))?;
        if c.id != id {
            return Err(corrupt(format!(
                "file is {CHANGELOG_PREFIX}{id} but its id is {}",
                c.id
            )));
        }
        Ok(Some(c))
    }

    /// Changelog `id`, or an error naming the missing file.
    pub async fn changelog(&self, id: i64) -> Result<Snapshot> {
        self.get(id).await?.ok_or_else(|| {
            ErrorDetail::NotFound(format!(
                "changelog {id} does not exist: no {}",
                self.io.display(&self.file(id))
            ))
            .into()
        })
    }

    /// Every long-lived changelog present, ascending by id (one removed meanwhile is skipped).
    pub async fn all(&self) -> Result<Vec<Snapshot>> {
        let mut out = Vec::new();
        for id in self.list_ids().await? {
            out.extend(self.get(id).await?);
        }
        Ok(out)
    }

    /// Writes `changelog-<id>` with the snapshot's JSON (overwriting, as Java's
    /// `commitChangelog` does: a rerun after a crash writes the same content), then the
    /// `LATEST` hint (Java `ExpireSnapshotsImpl.commitChangelog`).
    pub async fn commit(&self, snapshot: &Snapshot) -> Result<()> {
        self.io
            .put(&self.file(snapshot.id), snapshot.to_json()?.into_bytes())
            .await?;
        self.commit_latest_hint(snapshot.id).await
    }

    pub async fn commit_latest_hint(&self, id: i64) -> Result<()> {
        self.io
            .put(&self.latest_hint(), format_hint(id).into_bytes())
            .await
    }

    pub async fn commit_earliest_hint(&self, id: i64) -> Result<()> {
        self.io
            .put(&self.earliest_hint(), format_hint(id).into_bytes())
            .await
    }
}
