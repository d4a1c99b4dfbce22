//! Committing written files: one atomic snapshot per commit (format.md §9.1).
//!
//! Vocabulary (Paimon's): a writer produces [`CommitMessage`]s (new files per partition and
//! bucket); [`TableCommit`] turns them into manifest entries, writes a delta manifest, a delta
//! manifest list and a base manifest list, and publishes `snapshot-N` with a create-if-absent.
//! Losing the race to a concurrent committer is retried from the new latest snapshot, with
//! exponential back-off, up to `commit.max-retries` times; metadata written by a failed attempt
//! is deleted. Readers never see a partial commit: until `snapshot-N` exists nothing references
//! the new manifests or data files.
//!
//! Index files (HASH files of dynamic-bucket tables, see `crate::index`) travel in
//! [`CommitMessage::index_changes`]. A commit with index changes writes a new index manifest:
//! the previous snapshot's live index entries combined with the changes by Java's rules
//! (`crate::index::combine_index_entries`; an OVERWRITE first deletes the index files of the
//! replaced partitions); otherwise the snapshot keeps the previous index manifest name.

mod conflicts;
mod overwrite;

use std::time::Duration;

use strata_spec::binary_row::BinaryRow;
use strata_spec::manifest::{
    DataFileMeta, FileKind, IndexManifestEntry, ManifestEntry, ManifestFileMeta,
};
use strata_spec::snapshot::{CommitKind, Snapshot};

pub use overwrite::OverwriteScope;

use crate::table::Table;
use crate::{Error, Result};

/// `commitIdentifier` of batch commits (Java `BatchWriteBuilder.COMMIT_IDENTIFIER`).
pub const BATCH_COMMIT_IDENTIFIER: i64 = i64::MAX;

/// New files of one (partition, bucket), produced by a writer.
#[derive(Clone, Debug)]
pub struct CommitMessage {
    pub partition: BinaryRow,
    pub bucket: i32,
    pub total_buckets: i32,
    pub new_files: Vec<DataFileMeta>,
    /// Compaction: files removed (DELETE entries; an upgraded file at its old level).
    pub compact_before: Vec<DataFileMeta>,
    /// Compaction: files added (ADD entries; an upgraded file at its new level, same name).
    pub compact_after: Vec<DataFileMeta>,
    /// Index file changes of this (partition, bucket): ADD of new index files, DELETE of the
    /// ones they replace (e.g. from `DynamicBucketAssigner::prepare_commit`). Each entry
    /// carries its own partition and bucket, which the commit uses as they are.
    pub index_changes: Vec<IndexManifestEntry>,
}

impl CommitMessage {
    /// An empty message of one (partition, bucket).
    pub fn new(partition: BinaryRow, bucket: i32, total_buckets: i32) -> Self {
        CommitMessage {
            partition,
            bucket,
            total_buckets,
            new_files: Vec::new(),
            compact_before: Vec::new(),
            compact_after: Vec::new(),
            index_changes: Vec::new(),
        }
    }

    /// Whether the message carries nothing to commit.
    pub fn is_empty(&self) -> bool {
        self.new_files.is_empty()
            && self.compact_before.is_empty()
            && self.compact_after.is_empty()
            && self.index_changes.is_empty()
    }
}

/// Puts each index change into the message of its (partition, bucket), adding a message
/// without data files (with `total_buckets`) where there is none.
pub fn attach_index_changes(
    messages: &mut Vec<CommitMessage>,
    changes: Vec<IndexManifestEntry>,
    total_buckets: i32,
) {
    for c in changes {
        match messages
            .iter_mut()
            .find(|m| m.partition == c.partition && m.bucket == c.bucket)
        {
            Some(m) => m.index_changes.push(c),
            None => messages.push(CommitMessage {
                index_changes: vec![c.clone()],
                ..CommitMessage::new(c.partition.clone(), c.bucket, total_buckets)
            }),
        }
    }
}

/// Commits [`CommitMessage`]s of one table as snapshots.
pub struct TableCommit {
    table: Table,
    commit_user: String,
    max_retries: u32,
    min_retry_wait: Duration,
    max_retry_wait: Duration,
}

impl TableCommit {
    pub fn new(table: Table) -> Result<Self> {
        let opts = table.options();
        Ok(TableCommit {
            max_retries: opts.commit_max_retries()?.max(0) as u32,
            min_retry_wait: opts.commit_min_retry_wait()?,
            max_retry_wait: opts.commit_max_retry_wait()?,
            table,
            commit_user: uuid::Uuid::new_v4().to_string(),
        })
    }

    /// Sets the `commitUser` written into snapshots (default: a random UUID).
    pub fn with_commit_user(mut self, user: impl Into<String>) -> Self {
        self.commit_user = user.into();
        self
    }

    pub fn commit_user(&self) -> &str {
        &self.commit_user
    }

    /// Commits `messages`: an APPEND snapshot of the new files (and index changes), then —
    /// when the writer compacted — a COMPACT snapshot (lsm-algorithms.md §5.2). Returns the
    /// id of the last snapshot created, `None` if there was nothing to commit (no snapshot is
    /// created for an empty commit, as in Java).
    pub async fn commit(&self, messages: Vec<CommitMessage>) -> Result<Option<i64>> {
        Ok(self.commit_messages(messages, None).await?.latest())
    }

    /// OVERWRITE commit: atomically deletes the live files selected by `scope` and adds the
    /// new files (then a COMPACT snapshot if the writer compacted its new files). Returns the
    /// new snapshot id, `None` if nothing changed.
    pub async fn overwrite(
        &self,
        scope: OverwriteScope,
        messages: Vec<CommitMessage>,
    ) -> Result<Option<i64>> {
        Ok(self.commit_messages(messages, Some(scope)).await?.latest())
    }

    /// [`Self::commit`] / [`Self::overwrite`] reporting each snapshot created.
    ///
    /// A COMPACT snapshot that conflicts with a concurrent commit (a file it deletes is no
    /// longer live, or levels would overlap) is abandoned and its new files deleted. If new
    /// data was committed before it, the result is still `Ok` (with
    /// [`Committed::compact_error`] saying what happened): the data is safe and the next write
    /// compacts again. A compaction-only commit returns the error.
    pub async fn commit_messages(
        &self,
        messages: Vec<CommitMessage>,
        overwrite: Option<OverwriteScope>,
    ) -> Result<Committed> {
        let split = split_messages(messages);
        let mut out = Committed::default();
        if overwrite.is_some() || !split.adds.is_empty() || !split.index.is_empty() {
            let kind = if overwrite.is_some() {
                CommitKind::Overwrite
            } else {
                CommitKind::Append
            };
            out.append = self
                .commit_with_retry(kind, &split.adds, &split.index, overwrite.as_ref())
                .await?;
        }
        if !split.compact.is_empty() {
            match self
                .commit_with_retry(CommitKind::Compact, &split.compact, &[], None)
                .await
            {
                Ok(id) => out.compact = id,
                Err(e) => {
                    self.discard_compaction_outputs(&split.compact).await;
                    match out.append {
                        // The new data is committed: a compaction that could not land is
                        // only a missed optimisation (the next write compacts again), and an
                        // error here would invite the caller to delete committed files.
                        Some(_) => {
                            out.compact_error = Some(format!(
                                "{e}; the compaction was abandoned and its files removed"
                            ))
                        }
                        None => {
                            return Err(match e {
                                Error::CommitConflict { table, message } => Error::CommitConflict {
                                    table,
                                    message: format!(
                                        "{message}; the compaction was abandoned and its \
                                             files removed"
                                    ),
                                },
                                other => other,
                            })
                        }
                    }
                }
            }
        }
        Ok(out)
    }

    /// Deletes the files a failed COMPACT commit would have added (not the upgraded ones,
    /// which are live under the same name).
    async fn discard_compaction_outputs(&self, entries: &[ManifestEntry]) {
        for e in entries.iter().filter(|e| e.kind == FileKind::Add) {
            let upgraded = entries
                .iter()
                .any(|d| d.kind == FileKind::Delete && d.file.file_name == e.file.file_name);
            if upgraded || e.file.external_path.is_some() {
                continue;
            }
            let Ok(dir) = self.table.partition_path(&e.partition) else {
                continue;
            };
            let path = self
                .table
                .paths()
                .data_file(&dir, e.bucket, &e.file.file_name);
            let _ = self.table.file_io().delete(&path).await;
        }
    }

    async fn commit_with_retry(
        &self,
        kind: CommitKind,
        adds: &[ManifestEntry],
        index: &[IndexManifestEntry],
        overwrite: Option<&OverwriteScope>,
    ) -> Result<Option<i64>> {
        let mut attempt = 0u32;
        loop {
            match self
                .try_commit_once(kind, adds, index, overwrite, attempt)
                .await?
            {
                Attempt::Committed(id) => return Ok(Some(id)),
                Attempt::NothingToDo => return Ok(None),
                Attempt::LostRace(id) => {
                    attempt += 1;
                    if attempt > self.max_retries {
                        return Err(Error::CommitConflict {
                            table: self.table.identifier().to_string(),
                            message: format!(
                                "snapshot {id} was taken by a concurrent commit and {} retries \
                                 (commit.max-retries) are used up; nothing was committed",
                                self.max_retries
                            ),
                        });
                    }
                    tokio::time::sleep(self.backoff(attempt)).await;
                }
            }
        }
    }

    fn backoff(&self, attempt: u32) -> Duration {
        let base = self
            .min_retry_wait
            .saturating_mul(1u32 << attempt.min(16))
            .min(self.max_retry_wait);
        // Up to 20% jitter so retrying writers spread out.
        let jitter = base.mul_f64(rand_fraction() * 0.2);
        base + jitter
    }

    async fn try_commit_once(
        &self,
        kind: CommitKind,
        adds: &[ManifestEntry],
        index: &[IndexManifestEntry],
        overwrite: Option<&OverwriteScope>,
        attempt: u32,
    ) -> Result<Attempt> {
        let table = &self.table;
        let latest = table.snapshot_manager().latest().await?;
        let store = table.manifest_store();
        let namer = crate::meta::FileNamer::new();

        // Previous manifests become this snapshot's base (no merging yet; readers do not
        // depend on it).
        let base_metas: Vec<ManifestFileMeta> = match &latest {
            Some(s) => store.data_manifests(s).await?,
            None => Vec::new(),
        };

        let index_store = crate::index::IndexManifestStore::new(table)?;
        // The previous index entries matter only when the index changes.
        let prev_index: Vec<IndexManifestEntry> = match &latest {
            Some(s) if !index.is_empty() || overwrite.is_some() => {
                index_store.read_snapshot(s).await?
            }
            _ => Vec::new(),
        };
        let mut delta: Vec<ManifestEntry> = Vec::new();
        let mut index_changes: Vec<IndexManifestEntry> = Vec::new();
        if let Some(scope) = overwrite {
            if let Some(s) = &latest {
                let live = crate::scan::live_entries(table, s, &base_metas).await?;
                delta.extend(scope.select_deletes(table, adds, live)?);
                index_changes.extend(scope.select_index_deletes(
                    table,
                    adds,
                    prev_index.clone(),
                )?);
            }
        }
        if kind == CommitKind::Compact {
            // Conflicts are checked per partition (live files, level overlaps, bucket
            // counts), so only the partitions the compaction touches are read.
            let mut touched: Vec<BinaryRow> = adds.iter().map(|e| e.partition.clone()).collect();
            touched.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
            touched.dedup();
            let base = match &latest {
                Some(_) => {
                    crate::scan::live_entries_of_partitions(table, &base_metas, &touched).await?
                }
                None => Vec::new(),
            };
            conflicts::check_compact_conflicts(
                &table.identifier().to_string(),
                &base,
                adds,
                &trimmed_key_types(table),
            )?;
        }
        delta.extend(adds.iter().cloned());
        index_changes.extend(index.iter().cloned());
        if delta.is_empty() && index_changes.is_empty() {
            return Ok(Attempt::NothingToDo);
        }

        let schema_id = table
            .schema_manager()
            .list_ids()
            .await?
            .last()
            .copied()
            .unwrap_or(0);
        let partition_type = table.schema().partition_type();
        let mut written: Vec<String> = Vec::new();
        let result = async {
            let mut delta_metas = Vec::new();
            if !delta.is_empty() {
                let delta_meta = store
                    .write_manifest(&namer, &delta, &partition_type, schema_id)
                    .await?;
                written.push(delta_meta.file_name.clone());
                delta_metas.push(delta_meta);
            }
            let (base_list, base_size) = store.write_list(&namer, &base_metas).await?;
            written.push(base_list.clone());
            let (delta_list, delta_size) = store.write_list(&namer, &delta_metas).await?;
            written.push(delta_list.clone());
            let index_manifest = if index_changes.is_empty() {
                latest.as_ref().and_then(|s| s.index_manifest.clone())
            } else {
                let bucket_unaware =
                    table.options().bucket()? == -1 && !table.is_primary_key_table();
                let combined = crate::index::combine_index_entries(
                    prev_index,
                    &index_changes,
                    bucket_unaware,
                )?;
                let name = index_store.write(&combined, attempt as u64).await?;
                written.push(name.clone());
                Some(name)
            };

            let delta_count: i64 = delta
                .iter()
                .map(|e| match e.kind {
                    FileKind::Add => e.file.row_count,
                    FileKind::Delete => -e.file.row_count,
                })
                .sum();
            let prev_total = latest.as_ref().map(|s| s.total_record_count).unwrap_or(0);
            let snapshot = Snapshot {
                version: strata_spec::snapshot::CURRENT_VERSION,
                uuid: Some(uuid::Uuid::new_v4().to_string()),
                id: latest.as_ref().map(|s| s.id + 1).unwrap_or(1),
                schema_id,
                base_manifest_list: base_list,
                base_manifest_list_size: Some(base_size),
                delta_manifest_list: delta_list,
                delta_manifest_list_size: Some(delta_size),
                changelog_manifest_list: None,
                changelog_manifest_list_size: None,
                index_manifest,
                commit_user: self.commit_user.clone(),
                writer_version: Some(format!("strata-{}", env!("CARGO_PKG_VERSION"))),
                commit_identifier: BATCH_COMMIT_IDENTIFIER,
                commit_kind: kind,
                time_millis: chrono::Utc::now().timestamp_millis(),
                total_record_count: prev_total + delta_count,
                delta_record_count: delta_count,
                changelog_record_count: None,
                watermark: latest.as_ref().and_then(|s| s.watermark),
                statistics: None,
                properties: Default::default(),
                next_row_id: Some(latest.as_ref().and_then(|s| s.next_row_id).unwrap_or(0)),
                operation: None,
            };
            let published = table.snapshot_manager().try_publish(&snapshot).await?;
            Ok::<_, Error>((snapshot.id, published))
        }
        .await;
        match result {
            Ok((id, true)) => Ok(Attempt::Committed(id)),
            Ok((id, false)) => {
                store.delete_quietly(&written).await;
                Ok(Attempt::LostRace(id))
            }
            Err(e) => {
                store.delete_quietly(&written).await;
                Err(e)
            }
        }
    }
}

enum Attempt {
    Committed(i64),
    LostRace(i64),
    NothingToDo,
}

/// Snapshots created by one [`TableCommit::commit_messages`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Committed {
    /// The APPEND (or OVERWRITE) snapshot of the new files.
    pub append: Option<i64>,
    /// The COMPACT snapshot of the compaction result.
    pub compact: Option<i64>,
    /// Why the compaction did not land after the data was committed (a concurrent commit
    /// removed one of its input files, ...).
    pub compact_error: Option<String>,
}

impl Committed {
    /// The last snapshot created.
    pub fn latest(&self) -> Option<i64> {
        self.compact.or(self.append)
    }
}

struct SplitMessages {
    /// ADD entries of new files.
    adds: Vec<ManifestEntry>,
    index: Vec<IndexManifestEntry>,
    /// DELETE entries of compacted files, then ADD entries of compaction outputs (Java
    /// `ManifestEntryChanges`).
    compact: Vec<ManifestEntry>,
}

fn split_messages(messages: Vec<CommitMessage>) -> SplitMessages {
    let mut out = SplitMessages {
        adds: Vec::new(),
        index: Vec::new(),
        compact: Vec::new(),
    };
    let mut compact_adds = Vec::new();
    for m in messages {
        out.index.extend(m.index_changes);
        let entry = |kind, file| ManifestEntry {
            kind,
            partition: m.partition.clone(),
            bucket: m.bucket,
            total_buckets: m.total_buckets,
            file,
        };
        for f in m.new_files {
            out.adds.push(entry(FileKind::Add, f));
        }
        for f in m.compact_before {
            out.compact.push(entry(FileKind::Delete, f));
        }
        for f in m.compact_after {
            compact_adds.push(entry(FileKind::Add, f));
        }
    }
    out.compact.extend(compact_adds);
    out
}

/// Types of the trimmed primary key (min/max keys of data files).
fn trimmed_key_types(table: &Table) -> Vec<strata_spec::DataType> {
    let schema = table.schema();
    let row_type = schema.row_type();
    schema
        .trimmed_primary_keys()
        .iter()
        .filter_map(|k| row_type.field(k).map(|f| f.data_type.clone()))
        .collect()
}

fn rand_fraction() -> f64 {
    // Sub-second clock noise is plenty for retry jitter; no RNG dependency needed.
    let n = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    (n % 1000) as f64 / 1000.0
}
