//! Re-planning a lookup compaction that did not land: the level-0 files a commit added are
//! compacted up again, on the snapshot the retry lands on.
//!
//! Tables whose batch readers skip level 0 (deletion vectors, first-row) see a write's rows
//! only once a compaction moved them up. The writer compacts them before committing
//! (`crate::write`), on the snapshot it restored; when that COMPACT loses to a concurrent
//! commit (its inputs were compacted meanwhile, its outputs overlap another writer's, or its
//! lookups missed files added since: `super::lookup_conflicts`), Java leaves the level-0 file
//! for a later compaction and the rows stay invisible. strata plans the bucket's compaction
//! again on the new latest snapshot — its level-0 files (this writer's and any other
//! writer's) pushed up with lookups into the levels and deletion vectors as they are now —
//! and commits it, until this commit's level-0 files have left level 0 (by this compaction
//! or another writer's) or `commit.max-retries` / `commit.timeout` run out.

use crate::error::ErrorDetail;
use std::collections::HashSet;
use std::sync::Arc;

use strata_spec::binary_row::BinaryRow;
use strata_spec::manifest::{FileKind, IndexManifestEntry, ManifestEntry};
use strata_spec::options::ChangelogProducer;
use strata_spec::snapshot::{CommitKind, Snapshot};

use super::message::CommitMessage;
use super::table_commit::TableCommit;
use crate::index::deletion_vectors::{read_index_vectors, DeletionVectorIndexWriter};
use crate::index::DELETION_VECTORS_INDEX;
use crate::lsm::compact::bucket::{
    compaction_changelog, plan_task, BucketLookup, TableCompaction, TaskInputs,
};
use crate::lsm::compact::levels::Levels;
use crate::lsm::compact::strategy::CompactStrategy;
use crate::lsm::compact::task::run_compact_task;
use crate::lsm::compact::universal::PickTime;
use crate::{Error, Result};

/// A data file a commit added at level 0: (partition, bucket, file name).
pub(super) type Level0File = (BinaryRow, i32, String);

impl TableCommit {
    /// The files of `ours` still live at level 0 in `snapshot`, and the live entries of their
    /// partitions.
    async fn level0_left(
        &self,
        snapshot: &Snapshot,
        ours: &[Level0File],
    ) -> Result<(Vec<(BinaryRow, i32)>, Vec<ManifestEntry>)> {
        let mut partitions: Vec<BinaryRow> = ours.iter().map(|(p, _, _)| p.clone()).collect();
        partitions.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
        partitions.dedup();
        let metas = self.table.manifest_store().data_manifests(snapshot).await?;
        let live =
            crate::scan::live_entries_of_partitions(&self.table, &metas, &partitions).await?;
        let names: HashSet<(&BinaryRow, i32, &str)> =
            ours.iter().map(|(p, b, n)| (p, *b, n.as_str())).collect();
        let mut buckets: Vec<(BinaryRow, i32)> = Vec::new();
        for e in &live {
            if e.file.level == 0
                && names.contains(&(&e.partition, e.bucket, e.file.file_name.as_str()))
                && !buckets.contains(&(e.partition.clone(), e.bucket))
            {
                buckets.push((e.partition.clone(), e.bucket));
            }
        }
        Ok((buckets, live))
    }

    /// Compacts `ours` (level-0 files this commit added) up until none is left at level 0
    /// (see the module doc). Returns the last COMPACT snapshot it created (`None` when another
    /// writer's compaction moved them) and how many compactions it planned; an error when
    /// the retries ran out (with the last reason) or a compaction failed.
    pub(super) async fn compact_level0_up(
        &self,
        identifier: i64,
        ours: &[Level0File],
        started: std::time::Instant,
    ) -> Result<(Option<i64>, u32)> {
        let mut landed = None;
        let mut planned = 0u32;
        let mut last_error: Option<Error> = None;
        loop {
            let Some(latest) = self.table.snapshot_manager().latest().await? else {
                return Ok((landed, planned));
            };
            let (buckets, live) = self.level0_left(&latest, ours).await?;
            if buckets.is_empty() {
                return Ok((landed, planned));
            }
            let timed_out = self.timeout.is_some_and(|t| started.elapsed() >= t);
            if planned > self.max_retries || timed_out {
                let why = last_error.map(|e| e.to_string()).unwrap_or_default();
                let limit = if timed_out {
                    format!(
                        "commit.timeout ({:?}) passed",
                        self.timeout.unwrap_or_default()
                    )
                } else {
                    format!(
                        "{} retries (commit.max-retries) are used up",
                        self.max_retries
                    )
                };
                return Err(ErrorDetail::CommitConflict {
                    table: self.table.identifier().to_string(),
                    message: format!(
                        "the compaction of its level-0 files lost to concurrent commits {planned} \
                         times and {limit} (last: {why})"
                    ),
                }
                .into());
            }
            if planned > 0 {
                tokio::time::sleep(self.backoff(planned)).await;
            }
            planned += 1;
            let messages = self.plan_level0(&latest, &live, &buckets).await?;
            let split = super::split::split_messages(messages);
            let attempt = self
                .commit_with_retry(super::attempt::CommitRequest {
                    kind: CommitKind::Compact,
                    identifier,
                    adds: &split.compact,
                    changelog: &split.compact_changelog,
                    index: &split.compact_index,
                    index_base: None,
                    compact_bases: Some(&split.compact_bases),
                    overwrite: None,
                })
                .await;
            match attempt {
                Ok(id) => landed = id.or(landed),
                Err(e) if e.kind() == crate::ErrorKind::OutcomeUnknown => return Err(e),
                Err(e) => {
                    self.discard_compaction_outputs(&split.compact).await;
                    self.discard_compaction_outputs(&split.compact_changelog)
                        .await;
                    self.discard_index_files(&split.compact_index).await;
                    last_error = Some(e);
                }
            }
        }
    }

    /// The compaction of level 0 of each of `buckets` on `snapshot` (`live`: the live entries
    /// of their partitions there), as COMPACT messages based on `snapshot`. A failure deletes
    /// what was written.
    async fn plan_level0(
        &self,
        snapshot: &Snapshot,
        live: &[ManifestEntry],
        buckets: &[(BinaryRow, i32)],
    ) -> Result<Vec<CommitMessage>> {
        let mut out: Vec<CommitMessage> = Vec::new();
        let result = self
            .plan_level0_into(snapshot, live, buckets, &mut out)
            .await;
        if let Err(e) = result {
            let split = super::split::split_messages(out);
            self.discard_compaction_outputs(&split.compact).await;
            self.discard_compaction_outputs(&split.compact_changelog)
                .await;
            self.discard_index_files(&split.compact_index).await;
            return Err(e);
        }
        Ok(out)
    }

    async fn plan_level0_into(
        &self,
        snapshot: &Snapshot,
        live: &[ManifestEntry],
        buckets: &[(BinaryRow, i32)],
        out: &mut Vec<CommitMessage>,
    ) -> Result<()> {
        let table = &self.table;
        let opts = table.options();
        let tc = TableCompaction::new(table)?;
        let Some(mode) = tc.lookup else {
            return Ok(());
        };
        let changelog = match opts.changelog_producer()? {
            ChangelogProducer::Lookup => Some(compaction_changelog(table.schema())?),
            _ => None,
        };
        let index: Vec<IndexManifestEntry> = crate::index::IndexManifestStore::new(table)?
            .read_snapshot(snapshot)
            .await?;
        let dv_writer = DeletionVectorIndexWriter::new(table)?;
        for (partition, bucket) in buckets {
            let entries: Vec<&ManifestEntry> = live
                .iter()
                .filter(|e| &e.partition == partition && e.bucket == *bucket)
                .collect();
            let Some(total_buckets) = entries.first().map(|e| e.total_buckets) else {
                continue;
            };
            let files: Vec<_> = entries.iter().map(|e| e.file.clone()).collect();
            let levels = Levels::new(tc.key_types.to_vec(), tc.num_levels, files.clone())?;
            let mut strategy = CompactStrategy::for_bucket(opts, true, &files)?;
            let Some(unit) = strategy.pick_level0_up(
                levels.number_of_levels(),
                &levels.level_sorted_runs(),
                PickTime::now(),
            ) else {
                continue;
            };
            let dv_entries: Vec<&IndexManifestEntry> = index
                .iter()
                .filter(|e| {
                    e.index_file.index_type == DELETION_VECTORS_INDEX
                        && &e.partition == partition
                        && e.bucket == *bucket
                })
                .collect();
            let mut lookup = BucketLookup {
                mode,
                vectors: if tc.deletion_vectors {
                    read_index_vectors(table, &dv_entries).await?
                } else {
                    Default::default()
                },
                bitmap64: tc.bitmap64,
                dirty: false,
                changelog: changelog.clone(),
            };
            let (options, rewriter) = plan_task(
                &levels,
                &unit,
                TaskInputs {
                    base: &tc.task,
                    key_types: &tc.key_types,
                    deletion_vectors: tc.deletion_vectors,
                    full_changelog: None,
                    lookup: Some(&lookup),
                    rewriter: Arc::new(tc.rewriter(partition, *bucket)?),
                },
            );
            let (result, _) = run_compact_task(unit, &tc.key_types, &options, &rewriter).await?;
            lookup.apply(&result, *bucket)?;
            let mut message = CommitMessage {
                compact_before: result.before,
                compact_after: result.after,
                compact_changelog: result.changelog,
                compact_base: Some(snapshot.id),
                ..CommitMessage::new(partition.clone(), *bucket, total_buckets)
            };
            if let Some(vectors) = lookup.take_changed_vectors() {
                let mut list: Vec<_> = vectors.into_iter().filter(|(_, v)| !v.is_empty()).collect();
                list.sort_by(|a, b| a.0.cmp(&b.0));
                let (entry, _) = dv_writer.write(partition, *bucket, &list).await?;
                message.compact_index_changes = dv_entries
                    .iter()
                    .map(|e| IndexManifestEntry {
                        kind: FileKind::Delete,
                        ..(*e).clone()
                    })
                    .collect();
                message.compact_index_changes.push(entry);
            }
            out.push(message);
        }
        Ok(())
    }
}
