//! Committing written files: one atomic snapshot per commit.
//!
//! Vocabulary (Paimon's): a writer produces [`CommitMessage`]s (new files per partition and
//! bucket); [`TableCommit`] turns them into manifest entries, writes a delta manifest, a delta
//! manifest list and a base manifest list, and publishes `snapshot-N` with a create-if-absent.
//! Losing the race to a concurrent committer is retried from the new latest snapshot, with
//! exponential back-off, up to `commit.max-retries` times and within `commit.timeout`; metadata
//! written by a failed attempt is deleted. Readers never see a partial commit: until
//! `snapshot-N` exists nothing references the new manifests or data files.
//!
//! Files: `attempt` (one attempt: conflicts, manifests, lists, publish, fault points),
//! `retry` (the loop, de-duplication of uncertain attempts by commit user + identifier,
//! `filter_committed`), `conflicts` (Java's conflict detection), `overwrite` (INSERT OVERWRITE
//! scopes), `manifest_merge` (the base list of each new snapshot).
//!
//! Index files (HASH files of dynamic-bucket tables, see `crate::index`) travel in
//! [`CommitMessage::index_changes`]. A commit with index changes writes a new index manifest:
//! the previous snapshot's live index entries combined with the changes by Java's rules
//! (`crate::index::combine_index_entries`; an OVERWRITE first deletes the index files of the
//! replaced partitions); otherwise the snapshot keeps the previous index manifest name.

mod attempt;
mod conflicts;
mod lookup_conflicts;
pub mod manifest_merge;
mod overwrite;
mod recompact;
mod retry;
pub mod wire;

use crate::error::ErrorDetail;
use crate::ErrorKind;
use std::time::Duration;

use strata_spec::binary_row::BinaryRow;
use strata_spec::manifest::{DataFileMeta, FileKind, IndexManifestEntry, ManifestEntry};
use strata_spec::snapshot::CommitKind;

pub use overwrite::OverwriteScope;

use crate::error::{ReportedError, ResultExt};
use crate::table::Table;
use crate::{Error, Result};

/// `commitIdentifier` of batch commits (Java `BatchWriteBuilder.COMMIT_IDENTIFIER`).
pub const BATCH_COMMIT_IDENTIFIER: i64 = i64::MAX;

/// New files of one (partition, bucket), produced by a writer.
#[derive(Clone, Debug)]
pub struct CommitMessage {
    /// The partition the files belong to, as Paimon's `BinaryRow` of the partition columns
    /// (Java's `CommitMessage.partition`; empty for an unpartitioned table).
    pub partition: BinaryRow,
    /// The bucket the files belong to (Java's `CommitMessage.bucket`; `0` for the files of
    /// `bucket = -1` append tables).
    pub bucket: i32,
    /// The partition's number of buckets when the files were written (Java's
    /// `CommitMessage.totalBuckets`), written into each entry's `totalBuckets`; after a bucket
    /// rescale, a commit refuses a count that differs from the partition's live files.
    pub total_buckets: i32,
    /// Data files the writer added (Java `DataIncrement.newFiles`): ADD entries of the APPEND
    /// snapshot.
    pub new_files: Vec<DataFileMeta>,
    /// Files of the table this commit removes alongside `new_files`, in the same APPEND
    /// snapshot (Java `DataIncrement.deletedFiles`): a copy-on-write UPDATE or DELETE replaces
    /// the files it rewrote. Each must still be live when the commit lands, or the commit
    /// fails as a conflict.
    pub deleted_files: Vec<DataFileMeta>,
    /// Changelog files of the new data (Java `DataIncrement.changelogFiles`; written by
    /// `changelog-producer = input`): ADD entries of the APPEND snapshot's changelog manifest
    /// list, read by streaming and incremental readers of the changelog.
    pub new_changelog: Vec<DataFileMeta>,
    /// Compaction: files removed (DELETE entries; an upgraded file at its old level).
    pub compact_before: Vec<DataFileMeta>,
    /// Compaction: files added (ADD entries; an upgraded file at its new level, same name).
    pub compact_after: Vec<DataFileMeta>,
    /// Changelog files produced by the compaction (Java `CompactIncrement.changelogFiles`):
    /// the COMPACT snapshot's changelog manifest list.
    pub compact_changelog: Vec<DataFileMeta>,
    /// Index file changes of this (partition, bucket): ADD of new index files, DELETE of the
    /// ones they replace (e.g. from `DynamicBucketAssigner::prepare_commit`). Each entry
    /// carries its own partition and bucket, which the commit uses as they are.
    pub index_changes: Vec<IndexManifestEntry>,
    /// Index file changes of the compaction (Java `CompactIncrement.newIndexFiles` /
    /// `deletedIndexFiles`): the bucket's new deletion-vector index file (ADD) and the one it
    /// replaces (DELETE), committed with the COMPACT snapshot.
    pub compact_index_changes: Vec<IndexManifestEntry>,
    /// The snapshot whose index `index_changes` were computed against
    /// (`DynamicBucketAssigner::base_snapshot`; `None`: an empty table, or unknown). The commit
    /// rebases HASH changes onto the snapshot it lands on when other writers changed the index
    /// since (see `crate::index::rebase`); `None` only makes that check read more files.
    pub index_base: Option<i64>,
    /// The snapshot the compaction of this bucket was planned on (the writer restored the
    /// bucket's levels and deletion vectors from it). Lookup compactions (deletion vectors,
    /// first-row, `changelog-producer = lookup`) are checked against what changed in the
    /// bucket since and their deletion vectors rebased (`lookup_conflicts`); `None` (unknown)
    /// skips that check.
    pub compact_base: Option<i64>,
}

impl CommitMessage {
    /// An empty message of one (partition, bucket).
    pub fn new(partition: BinaryRow, bucket: i32, total_buckets: i32) -> Self {
        CommitMessage {
            partition,
            bucket,
            total_buckets,
            new_files: Vec::new(),
            deleted_files: Vec::new(),
            new_changelog: Vec::new(),
            compact_before: Vec::new(),
            compact_after: Vec::new(),
            compact_changelog: Vec::new(),
            index_changes: Vec::new(),
            compact_index_changes: Vec::new(),
            index_base: None,
            compact_base: None,
        }
    }

    /// Whether the message carries nothing to commit.
    pub fn is_empty(&self) -> bool {
        self.new_files.is_empty()
            && self.deleted_files.is_empty()
            && self.new_changelog.is_empty()
            && self.compact_before.is_empty()
            && self.compact_after.is_empty()
            && self.compact_changelog.is_empty()
            && self.index_changes.is_empty()
            && self.compact_index_changes.is_empty()
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

/// Java's refusal of a write into a partition whose live files were written with another
/// bucket count (`AbstractFileStoreWrite.scanExistingFileMetas`,
/// `ConflictDetection.bucketNumMismatch`): the table's `bucket` changed and the partition was
/// not rewritten since. Nothing is written or committed.
pub(crate) fn bucket_num_mismatch(
    table: &Table,
    partition: &BinaryRow,
    total: i32,
    previous: i32,
) -> Error {
    let part = if table.schema().partition_keys.is_empty() {
        "table".to_string()
    } else {
        format!(
            "partition {}",
            table
                .partition_text(partition)
                .unwrap_or_else(|_| format!("{partition:?}"))
        )
    };
    ErrorDetail::CommitConflict {
        table: table.identifier().to_string(),
        message: format!(
            "Try to write {part} with a new bucket num {total}, but the previous bucket num is \
             {previous}. Please switch to batch mode, and perform INSERT OVERWRITE to rescale \
             current data layout first."
        ),
    }
    .into()
}

impl Table {
    /// A committer of [`CommitMessage`]s into snapshots of this table.
    pub fn new_commit(&self) -> Result<TableCommit> {
        TableCommit::new(self.clone())
    }
}

/// Commits [`CommitMessage`]s of one table as snapshots.
pub struct TableCommit {
    table: Table,
    commit_user: String,
    max_retries: u32,
    min_retry_wait: Duration,
    max_retry_wait: Duration,
    timeout: Option<Duration>,
}

impl TableCommit {
    /// A committer of `table` under a random `commitUser`, with its retry bounds taken from
    /// `commit.max-retries`, `commit.min-retry-wait`, `commit.max-retry-wait` and `commit.timeout`.
    /// Fails when one of those options does not parse.
    pub fn new(table: Table) -> Result<Self> {
        let opts = table.options();
        Ok(TableCommit {
            max_retries: opts.commit_max_retries()?.max(0) as u32,
            min_retry_wait: opts.commit_min_retry_wait()?,
            max_retry_wait: opts.commit_max_retry_wait()?,
            timeout: opts.commit_timeout()?,
            table,
            commit_user: uuid::Uuid::new_v4().to_string(),
        })
    }

    /// Sets the `commitUser` written into snapshots (default: a random UUID).
    ///
    /// A commit user stands for one committer: commits of one user are made one after the
    /// other, with increasing identifiers ([`Self::commit_identified`]), which is what makes
    /// [`Self::filter_committed`] and retry de-duplication exact. Two live committers must not
    /// share a user.
    pub fn with_commit_user(mut self, user: impl Into<String>) -> Self {
        self.commit_user = user.into();
        self
    }

    /// The `commitUser` written into this committer's snapshots.
    pub fn commit_user(&self) -> &str {
        &self.commit_user
    }

    /// Commits `messages`: an APPEND snapshot of the new files (and index changes), then —
    /// when the writer compacted — a COMPACT snapshot. Returns the
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
        self.commit_messages_as(BATCH_COMMIT_IDENTIFIER, messages, overwrite)
            .await
    }

    /// Commits `messages` as commit `identifier` of this commit user, exactly once: if the
    /// user already committed `identifier` (or a later one) — e.g. the process died after the
    /// snapshot landed and before it learned so — nothing is committed again and the result
    /// says [`Committed::already_committed`]. Identifiers of one user must increase (Java's
    /// streaming checkpoint ids); [`BATCH_COMMIT_IDENTIFIER`] is for one-shot batch commits.
    pub async fn commit_identified(
        &self,
        identifier: i64,
        messages: Vec<CommitMessage>,
        overwrite: Option<OverwriteScope>,
    ) -> Result<Committed> {
        if self.filter_committed(&[identifier]).await?.is_empty() {
            return Ok(Committed {
                already_committed: true,
                ..Committed::default()
            });
        }
        self.commit_messages_as(identifier, messages, overwrite)
            .await
    }

    /// Every commit path goes through here: an error names the table in its context.
    async fn commit_messages_as(
        &self,
        identifier: i64,
        messages: Vec<CommitMessage>,
        overwrite: Option<OverwriteScope>,
    ) -> Result<Committed> {
        self.commit_messages_impl(identifier, messages, overwrite)
            .await
            .with_table(self.table.identifier())
    }

    async fn commit_messages_impl(
        &self,
        identifier: i64,
        messages: Vec<CommitMessage>,
        overwrite: Option<OverwriteScope>,
    ) -> Result<Committed> {
        let mut split = split_messages(messages);
        if overwrite.is_some() && !split.changelog.is_empty() {
            // An OVERWRITE commits no changelog (Java `overwritePartition` ignores it):
            // streaming readers of the changelog never see overwrites.
            let changelog = std::mem::take(&mut split.changelog);
            self.discard_compaction_outputs(&changelog).await;
        }
        let started = std::time::Instant::now();
        let mut out = Committed::default();
        if overwrite.is_some()
            || !split.adds.is_empty()
            || !split.changelog.is_empty()
            || !split.index.is_empty()
        {
            let kind = if overwrite.is_some() {
                CommitKind::Overwrite
            } else {
                CommitKind::Append
            };
            let appended = self
                .commit_with_retry(attempt::CommitRequest {
                    kind,
                    identifier,
                    adds: &split.adds,
                    changelog: &split.changelog,
                    index: &split.index,
                    index_base: split.index_base,
                    compact_bases: None,
                    overwrite: overwrite.as_ref(),
                })
                .await;
            out.append = match appended {
                Ok(id) => id,
                Err(e) => {
                    // Certainly not committed: nothing may reference what this commit wrote.
                    if !e.may_have_committed() {
                        self.discard_uncommitted(&split).await;
                    }
                    return Err(e);
                }
            };
        }
        if !split.compact.is_empty()
            || !split.compact_changelog.is_empty()
            || !split.compact_index.is_empty()
        {
            match self
                .commit_with_retry(attempt::CommitRequest {
                    kind: CommitKind::Compact,
                    identifier,
                    adds: &split.compact,
                    changelog: &split.compact_changelog,
                    index: &split.compact_index,
                    index_base: None,
                    compact_bases: Some(&split.compact_bases),
                    overwrite: None,
                })
                .await
            {
                Ok(id) => out.compact = id,
                // The compaction may have landed: its files must stay.
                Err(e) if e.kind() == ErrorKind::OutcomeUnknown => return Err(e),
                Err(e) => {
                    self.discard_compaction_outputs(&split.compact).await;
                    self.discard_compaction_outputs(&split.compact_changelog)
                        .await;
                    self.discard_index_files(&split.compact_index).await;
                    match out.append {
                        // The new data is committed: a compaction that could not land is
                        // only a missed optimisation (the next write compacts again), and an
                        // error here would invite the caller to delete committed files.
                        Some(_) => {
                            out.compact_error = Some(ReportedError::new(
                                &e,
                                "; the compaction was abandoned and its files removed",
                            ))
                        }
                        None => {
                            return Err(e.map_detail(|d| match d {
                                ErrorDetail::CommitConflict { table, message } => {
                                    ErrorDetail::CommitConflict {
                                        table,
                                        message: format!(
                                            "{message}; the compaction was abandoned and its \
                                             files removed"
                                        ),
                                    }
                                }
                                other => other,
                            }))
                        }
                    }
                }
            }
        }
        if let Some(append) = out.append {
            self.make_level0_visible(identifier, &split, append, &mut out, started)
                .await?;
        }
        if out.latest().is_some() {
            // Snapshot expiry after every successful commit, as Java does (not for
            // `write-only`); the commit has landed, so a failure is reported, not returned.
            if let Err(e) = crate::maintenance::expire_after_commit(&self.table).await {
                out.expire_error = Some(
                    ReportedError::new(&e, "").after("snapshot expiry after the commit failed: "),
                );
            }
        }
        Ok(out)
    }

    /// After the APPEND (or OVERWRITE) snapshot `append` landed: on a lookup table whose
    /// compaction did not move every level-0 file this commit added (it lost to a concurrent
    /// commit, or picked nothing), compacts them up again on the latest snapshot
    /// (`recompact`). Readers that skip level 0 (deletion vectors, first-row) would not see
    /// the rows otherwise, so for those tables running out of retries is an error
    /// (`ErrorDetail::CommittedNotVisible`); for the others (the lookup changelog producer,
    /// merge-on-read deletion vectors) the rows are visible and only their changelog waits
    /// for a later compaction ([`Committed::compact_error`]). `write-only` tables are never
    /// compacted here: a dedicated compaction job owns that.
    async fn make_level0_visible(
        &self,
        identifier: i64,
        split: &SplitMessages,
        append: i64,
        out: &mut Committed,
        started: std::time::Instant,
    ) -> Result<()> {
        let opts = self.table.options();
        if !self.table.is_primary_key_table()
            || crate::lsm::compact::bucket::lookup_mode(opts)?.is_none()
            || opts.write_only()?
        {
            return Ok(());
        }
        let skips = crate::lsm::compact::bucket::readers_skip_level0(opts)?;
        let compact_failed = out.compact_error.is_some();
        if !skips && !compact_failed {
            return Ok(());
        }
        let ours: Vec<recompact::Level0File> = split
            .adds
            .iter()
            .filter(|e| e.kind == FileKind::Add && e.file.level == 0)
            .map(|e| (e.partition.clone(), e.bucket, e.file.file_name.clone()))
            .collect();
        // The common case: the writer's compaction landed and took every new file up.
        let compacted: std::collections::HashSet<(&BinaryRow, i32, &str)> = split
            .compact
            .iter()
            .filter(|e| e.kind == FileKind::Delete)
            .map(|e| (&e.partition, e.bucket, e.file.file_name.as_str()))
            .collect();
        let covered = out.compact.is_some()
            && ours
                .iter()
                .all(|(p, b, n)| compacted.contains(&(p, *b, n.as_str())));
        if ours.is_empty() || covered {
            return Ok(());
        }
        match self.compact_level0_up(identifier, &ours, started).await {
            Ok((landed, planned)) => {
                if landed.is_some() {
                    out.compact = landed;
                }
                out.recompactions = planned;
                out.compact_error = None;
                Ok(())
            }
            Err(e) if e.kind() == ErrorKind::OutcomeUnknown => Err(e),
            Err(e) if skips => Err(ErrorDetail::CommittedNotVisible {
                table: self.table.identifier().to_string(),
                snapshot: append,
                message: format!(
                    "its level-0 files could not be compacted up, which readers of this table \
                     (deletion vectors or first-row: level 0 is skipped) need to see them: {e}. \
                     They become visible with the next compaction of their buckets: run \
                     `strata compact {}` (or write to the table again)",
                    self.table.identifier()
                ),
            }
            .into()),
            Err(e) => {
                let earlier = out.compact_error.take().map(|r| r.to_string());
                out.compact_error = Some(ReportedError::new(&e, "").after(&format!(
                    "{}; compacting the new level-0 files again failed too: ",
                    earlier.unwrap_or_default()
                )));
                Ok(())
            }
        }
    }

    /// Deletes every file a commit that certainly failed would have added: the new data
    /// files, the compaction outputs and the new index files (Java leaves this to the
    /// caller's `abort`; strata never leaves a failed commit's files behind).
    async fn discard_uncommitted(&self, split: &SplitMessages) {
        for e in split.adds.iter().filter(|e| e.kind == FileKind::Add) {
            if e.file.external_path.is_some() {
                continue;
            }
            if let Ok(dir) = self.table.partition_path(&e.partition) {
                let path = self
                    .table
                    .paths()
                    .data_file(&dir, e.bucket, &e.file.file_name);
                let _ = self.table.file_io().delete(&path).await;
            }
        }
        self.discard_compaction_outputs(&split.compact).await;
        self.discard_compaction_outputs(&split.changelog).await;
        self.discard_compaction_outputs(&split.compact_changelog)
            .await;
        self.discard_index_files(&split.index).await;
        self.discard_index_files(&split.compact_index).await;
    }

    /// Deletes the index files `entries` add (a commit that certainly failed).
    async fn discard_index_files(&self, entries: &[IndexManifestEntry]) {
        for e in entries.iter().filter(|e| e.kind == FileKind::Add) {
            let path = self.table.paths().index_file(&e.index_file.file_name);
            let _ = self.table.file_io().delete(&path).await;
        }
    }

    /// Deletes the files a failed COMPACT commit (or a changelog list) would have added (not
    /// the upgraded ones,
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
}

/// Snapshots created by one [`TableCommit::commit_messages`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Committed {
    /// The APPEND (or OVERWRITE) snapshot of the new files.
    pub append: Option<i64>,
    /// The COMPACT snapshot of the compaction result.
    pub compact: Option<i64>,
    /// Why the compaction did not land after the data was committed (a concurrent commit
    /// removed one of its input files, ...): the error's kind, message and context.
    pub compact_error: Option<ReportedError>,
    /// [`TableCommit::commit_identified`] found this identifier committed already; nothing
    /// was committed again.
    pub already_committed: bool,
    /// Why the snapshot expiry that runs after a successful commit failed (the commit itself
    /// landed; see `crate::maintenance::expire`): the error's kind, message and context.
    pub expire_error: Option<ReportedError>,
    /// How many times the compaction of this commit's level-0 files was planned again on a
    /// newer snapshot after the writer's compaction did not land (lookup tables; see
    /// `TableCommit::commit_messages`).
    pub recompactions: u32,
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
    /// The oldest `index_base` of the messages with index changes (`None` if any is `None`).
    index_base: Option<i64>,
    /// DELETE entries of compacted files, then ADD entries of compaction outputs (Java
    /// `ManifestEntryChanges`).
    compact: Vec<ManifestEntry>,
    /// ADD entries of the new data's changelog files (`appendChangelog`).
    changelog: Vec<ManifestEntry>,
    /// ADD entries of the compaction's changelog files (`compactChangelog`).
    compact_changelog: Vec<ManifestEntry>,
    /// Index changes of the compaction (deletion-vector index files).
    compact_index: Vec<IndexManifestEntry>,
    /// The planning snapshot of each compacted (partition, bucket).
    compact_bases: lookup_conflicts::CompactBases,
}

fn split_messages(messages: Vec<CommitMessage>) -> SplitMessages {
    let mut out = SplitMessages {
        adds: Vec::new(),
        index: Vec::new(),
        index_base: None,
        compact: Vec::new(),
        changelog: Vec::new(),
        compact_changelog: Vec::new(),
        compact_index: Vec::new(),
        compact_bases: Default::default(),
    };
    let mut compact_adds = Vec::new();
    let mut bases: Vec<Option<i64>> = Vec::new();
    for m in messages {
        if !m.index_changes.is_empty() {
            bases.push(m.index_base);
        }
        if !m.compact_before.is_empty()
            || !m.compact_after.is_empty()
            || !m.compact_index_changes.is_empty()
        {
            out.compact_bases
                .insert((m.partition.clone(), m.bucket), m.compact_base);
        }
        out.index.extend(m.index_changes);
        out.compact_index.extend(m.compact_index_changes);
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
        for f in m.deleted_files {
            out.adds.push(entry(FileKind::Delete, f));
        }
        for f in m.compact_before {
            out.compact.push(entry(FileKind::Delete, f));
        }
        for f in m.compact_after {
            compact_adds.push(entry(FileKind::Add, f));
        }
        for f in m.new_changelog {
            out.changelog.push(entry(FileKind::Add, f));
        }
        for f in m.compact_changelog {
            out.compact_changelog.push(entry(FileKind::Add, f));
        }
    }
    out.compact.extend(compact_adds);
    out.index_base = if bases.contains(&None) {
        None
    } else {
        bases.into_iter().flatten().min()
    };
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
