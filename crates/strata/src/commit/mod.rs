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
mod dv_conflicts;
mod key_dynamic;
mod lookup_conflicts;
pub mod manifest_merge;
mod message;
mod overwrite;
mod recompact;
mod retry;
mod row_id_columns;
mod row_id_conflicts;
pub(crate) mod row_tracking;
mod split;
mod statistics;
mod table_commit;
pub mod wire;

use crate::error::{ErrorDetail, ReportedError, ResultExt};
use strata_spec::binary_row::BinaryRow;
use strata_spec::manifest::{FileKind, IndexManifestEntry, ManifestEntry};
use strata_spec::snapshot::CommitKind;

pub use message::{attach_index_changes, CommitMessage, BATCH_COMMIT_IDENTIFIER};
pub use overwrite::OverwriteScope;
pub use strata_spec::snapshot::SnapshotOperation;
pub(crate) use table_commit::bucket_num_mismatch;
pub use table_commit::TableCommit;

use split::{split_messages, SplitMessages};

use crate::table::Table;
use crate::Result;

impl Table {
    /// A committer of [`CommitMessage`]s into snapshots of this table.
    pub fn new_commit(&self) -> Result<TableCommit> {
        TableCommit::new(self.clone())
    }
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
            operation: None,
            row_id_check_from: None,
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
        self.refuse_rtas_after_truncate().await?;
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
                Err(e) if e.kind() == crate::ErrorKind::OutcomeUnknown => return Err(e),
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
            Err(e) if e.kind() == crate::ErrorKind::OutcomeUnknown => Err(e),
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
