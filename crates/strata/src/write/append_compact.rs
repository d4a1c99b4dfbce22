//! Compaction of append tables (no primary key), as Java Paimon 2.0 does it on an explicit
//! `compact`: what `strata compact`, SQL's `CALL sys.compact` and `Table::compact` run on
//! such tables.
//!
//! - Unaware-bucket tables (`bucket = -1`): Java's `AppendCompactCoordinator` picking, per
//!   partition. Files smaller than `target-file-size` × `compaction.small-file-ratio` are
//!   candidates; sorted by size, they fill a bin (each file counted with
//!   `source.split.open-file-cost` added) that becomes a task once it holds more than one file
//!   and at least 2 × `target-file-size`; what is left becomes a task when it holds at least
//!   `compaction.min.file-num` files. At most `compaction.file-num-limit` candidates are
//!   planned per run (Java's scan limit).
//! - Fixed-bucket tables (`bucket = N`): Java's `BucketedAppendCompactManager`, per bucket,
//!   files in sequence-number order. Normal: `pickCompactBefore` (the first window of
//!   `compaction.min.file-num` files whose sizes stay under 2 × `target-file-size`). Full
//!   (`FullCompactTask`): leading files of at least the small-file size are kept, the rest is
//!   rewritten when it holds more small files than big ones and at least 3 files (everything,
//!   with `compaction.force-rewrite-all-files`).
//! - `full` on an unaware-bucket table: every partition's files are rewritten together (when
//!   there are at least two).
//!
//! Each task's files are read in order and rewritten (Java's `compactRewrite`) into files
//! rolling at `target-file-size`, sequence numbers counting from the first picked file's, file
//! source COMPACT, level 0, with the file indexes writes build; one COMPACT snapshot DELETEs the
//! picked files and ADDs the new ones (`AppendCompactTask.doCompact`'s `CompactIncrement`).
//!
//! Row-tracking tables (`row-tracking.enabled`) are picked the same way (Java 2.0's
//! coordinator has no row-id rule for them) and rewritten as Java's compaction with the write
//! type `SpecialFields.rowTypeWithRowTracking` does: each row's `_ROW_ID` and
//! `_SEQUENCE_NUMBER` are read and stored as columns of the new files, whose `writeCols` are
//! the table's columns plus those two and whose `firstRowId` is null (the commit assigns no
//! ids to COMPACT files); the rows keep their ids and sequence numbers, and each new file's
//! sequence-number range is that of the `_SEQUENCE_NUMBER`s it stores (Java's
//! `RowDataFileSequenceNumberTracker`), not a counter's.
//!
//! Data-evolution tables (`data-evolution.enabled`) are planned and rewritten as Java's
//! `DataEvolutionCompactCoordinator` does (`data_evolution_compact.rs`), unaware-bucket
//! tables with deletion vectors as its coordinator in deletion-vector mode, the vectors applied
//! and their index files rewritten in the same commit (`append_compact_dv.rs`).
//!
//! Data-evolution tables with deletion vectors keep them: the anchors' vectors move to the new
//! files (Java's `DataEvolutionCompactDeletionVectorRewriter`).
//!
//! Fixed-bucket tables with deletion vectors pick as `BucketedAppendCompactManager` with a
//! `BucketedDvMaintainer` (`--full`: every file after the leading big ones without a vector),
//! read through the vectors, and rewrite the bucket's index file without the compacted files'
//! vectors.
//!
//! Row-tracking tables with deletion vectors (without data evolution) are compacted as the
//! other deletion-vector tables: Java's `compactRewrite` reads through the vectors with the read
//! type `rowTypeWithRowTracking`, so each live row keeps the `_ROW_ID` and `_SEQUENCE_NUMBER`
//! its position gave it (derived before the vector drops deleted positions), both stored in
//! the new files (`firstRowId` null); the deleted rows' ids are gone, none is reassigned, and
//! the snapshot's `nextRowId` stays.
//!
//! Refused by name: data-evolution tables with deletion vectors and
//! `data-evolution.compaction.rewrite-row-ids` = true.

use std::collections::BTreeMap;

use futures::TryStreamExt;
use strata_spec::binary_row::BinaryRow;
use strata_spec::manifest::{merge_entries, DataFileMeta, FileSource};

use super::bucket_writer::{BucketWriter, WriterConfig};

// The variants of this compaction, beside this file (declared here, so that they stay part of
// the append compaction and `write`'s module list does not change).
#[path = "append_compact_dv.rs"]
mod dv;
#[path = "data_evolution_compact.rs"]
mod evolution;
use super::compact_table::{Attempt, CompactReport, CompactRequest};
use super::{CompactionMetrics, TaskMetrics};
use crate::commit::CommitMessage;
use crate::error::ErrorDetail;
use crate::scan::DataSplit;
use crate::table::Table;
use crate::{Error, Result};

/// Java `BucketedAppendCompactManager.FULL_COMPACT_MIN_FILE`.
const FULL_COMPACT_MIN_FILE: usize = 3;

/// The picking settings of one table (Java's `CoreOptions` accessors).
struct Picking {
    target_file_size: u64,
    /// `compactionFileSize(false)`: files below it are small.
    small_file_size: u64,
    open_file_cost: u64,
    min_file_num: usize,
    file_num_limit: usize,
    force_rewrite_all: bool,
    /// `compaction.delete-ratio-threshold` (deletion-vector tables).
    delete_ratio: f64,
}

impl Picking {
    fn of(table: &Table) -> Result<Self> {
        let opts = table.options();
        let target_file_size = opts.target_file_size(false)?;
        let ratio_text = opts.get_str("compaction.small-file-ratio", "0.7");
        let ratio: f64 = ratio_text.trim().parse().map_err(|_| {
            Error::from(ErrorDetail::InvalidArgument(format!(
                "compaction.small-file-ratio = {ratio_text}: not a number"
            )))
        })?;
        Ok(Picking {
            target_file_size,
            small_file_size: (target_file_size as f64 * ratio) as u64,
            open_file_cost: opts
                .get_memory_size("source.split.open-file-cost")?
                .unwrap_or(4 * 1024 * 1024),
            min_file_num: opts.compaction_min_file_num()?.max(1) as usize,
            file_num_limit: opts
                .get_i32("compaction.file-num-limit")?
                .unwrap_or(100_000)
                .max(1) as usize,
            force_rewrite_all: opts
                .get_bool("compaction.force-rewrite-all-files")?
                .unwrap_or(false),
            delete_ratio: {
                let text = opts.get_str("compaction.delete-ratio-threshold", "0.2");
                text.trim().parse().map_err(|_| {
                    Error::from(ErrorDetail::InvalidArgument(format!(
                        "compaction.delete-ratio-threshold = {text}: not a number"
                    )))
                })?
            },
        })
    }

    /// Java `AppendCompactCoordinator.SubCoordinator.pack` over one partition's candidates.
    fn pack_unaware(&self, files: &[DataFileMeta]) -> Vec<Vec<DataFileMeta>> {
        let mut files: Vec<DataFileMeta> = files
            .iter()
            .filter(|f| (f.file_size as u64) < self.small_file_size)
            .cloned()
            .collect();
        files.sort_by_key(|f| f.file_size);
        let mut out = Vec::new();
        let mut bin: Vec<DataFileMeta> = Vec::new();
        let mut total = 0u64;
        for f in files {
            total += f.file_size as u64 + self.open_file_cost;
            bin.push(f);
            if bin.len() > 1 && total >= self.target_file_size.saturating_mul(2) {
                out.push(std::mem::take(&mut bin));
                total = 0;
            }
        }
        if bin.len() >= self.min_file_num {
            out.push(bin);
        }
        out
    }

    /// Java `BucketedAppendCompactManager.pickCompactBefore` over one bucket's files in
    /// sequence-number order.
    fn pick_bucketed(&self, files: &[DataFileMeta]) -> Option<Vec<DataFileMeta>> {
        let mut candidates: std::collections::VecDeque<DataFileMeta> = Default::default();
        let mut total = 0u64;
        for f in files {
            total += f.file_size as u64;
            candidates.push_back(f.clone());
            if candidates.len() >= self.min_file_num {
                return Some(candidates.into());
            } else if total >= self.target_file_size.saturating_mul(2) {
                let removed = candidates.pop_front().expect("just pushed");
                total -= removed.file_size as u64;
            }
        }
        None
    }

    /// Java `FullCompactTask.doCompact` with a `BucketedDvMaintainer`: the leading big files
    /// without a deletion vector are kept, whatever follows is rewritten (always, when there
    /// is anything).
    fn full_bucketed_with_vectors(
        &self,
        files: &[DataFileMeta],
        has_vector: impl Fn(&DataFileMeta) -> bool,
    ) -> Option<Vec<DataFileMeta>> {
        let kept = if self.force_rewrite_all {
            0
        } else {
            files
                .iter()
                .take_while(|f| f.file_size as u64 >= self.small_file_size && !has_vector(f))
                .count()
        };
        (kept < files.len()).then(|| files[kept..].to_vec())
    }

    /// Java `BucketedAppendCompactManager.FullCompactTask.doCompact` (no deletion vectors).
    fn full_bucketed(&self, files: &[DataFileMeta]) -> Option<Vec<DataFileMeta>> {
        if !self.force_rewrite_all && files.len() < FULL_COMPACT_MIN_FILE {
            return None;
        }
        let mut rest: &[DataFileMeta] = files;
        if !self.force_rewrite_all {
            let big_prefix = rest
                .iter()
                .take_while(|f| f.file_size as u64 >= self.small_file_size)
                .count();
            rest = &rest[big_prefix..];
        }
        if rest.is_empty() {
            return None;
        }
        let big = rest
            .iter()
            .filter(|f| f.file_size as u64 >= self.small_file_size)
            .count();
        let small = rest.len() - big;
        (self.force_rewrite_all || (small > big && rest.len() >= FULL_COMPACT_MIN_FILE))
            .then(|| rest.to_vec())
    }
}

impl Table {
    /// Refuses append tables whose compaction strata does not do yet, naming why.
    fn refuse_unsupported_append_compaction(&self) -> Result<()> {
        // BLOB columns strata cannot write (inline `blob-descriptor-field` / `blob-view-field`
        // values, nested or primary-key BLOBs): a rewrite would drop or misplace them.
        super::blob_write::refuse_unwritable(self, "compacting")?;
        let opts = self.options();
        let dv = opts.deletion_vectors_enabled()?;
        let rewrite_row_ids = opts
            .get_bool("data-evolution.compaction.rewrite-row-ids")?
            .unwrap_or(false);
        let why = if dv && opts.data_evolution_enabled()? && rewrite_row_ids {
            Some(
                "data-evolution.enabled, deletion-vectors.enabled and \
                 data-evolution.compaction.rewrite-row-ids = true (Java's \
                 DataEvolutionMaterializeDeletionCompactTask gives the rows new ids)",
            )
        } else {
            None
        };
        match why {
            Some(why) => Err(ErrorDetail::Unsupported(format!(
                "compaction of append table {}: strata does not compact append tables with {why}; \
                 compact it with Java Paimon, Spark or Flink",
                self.identifier()
            ))
            .into()),
            None => Ok(()),
        }
    }

    /// One compaction attempt of an append table on the latest snapshot (see the module doc).
    pub(super) async fn compact_append_once(
        &self,
        request: &CompactRequest,
        progress: &(dyn Fn(usize, usize) + Send + Sync),
    ) -> Attempt {
        let plan = match self.append_compact_plan(request).await {
            Ok(p) => p,
            Err(e) => return Attempt::Failed(e),
        };
        if plan.tasks.is_empty() {
            return Attempt::Done(CompactReport {
                buckets: plan.buckets,
                ..Default::default()
            });
        }
        let mut writers: Vec<BucketWriter> = Vec::new();
        let mut dv_writer = None;
        let mut dv_written = Vec::new();
        let mut committing = false;
        let result = async {
            let evolution = self.options().data_evolution_enabled()?;
            let tracking = self.options().row_tracking_enabled()?;
            let (writing, config) = if evolution {
                self.evolution_compaction_writer()?
            } else if tracking {
                let c = WriterConfig::with_row_tracking_columns(self)?;
                (self.clone(), std::sync::Arc::new(c))
            } else {
                let c = WriterConfig::from_table(self)?;
                (self.clone(), std::sync::Arc::new(c))
            };
            let mut messages: Vec<CommitMessage> = Vec::new();
            let mut metrics = Vec::new();
            // Each task's new files, in task order.
            let mut afters: Vec<Vec<DataFileMeta>> = Vec::new();
            for task in &plan.tasks {
                let started = std::time::Instant::now();
                let after = if evolution {
                    let files = (&task.partition, task.bucket, task.files.as_slice());
                    self.rewrite_evolution_files(&writing, &config, files, &mut writers)
                        .await?
                } else {
                    self.rewrite_append_files(&config, task, plan.snapshot_id, &mut writers)
                        .await?
                };
                metrics.push(task_metrics(task, &after, started.elapsed()));
                afters.push(after.clone());
                let at = messages
                    .iter()
                    .position(|m| m.partition == task.partition && m.bucket == task.bucket);
                let m = match at {
                    Some(i) => &mut messages[i],
                    None => {
                        messages.push(CommitMessage::new(
                            task.partition.clone(),
                            task.bucket,
                            task.total_buckets,
                        ));
                        messages.last_mut().expect("pushed")
                    }
                };
                m.compact_before.extend(task.files.iter().cloned());
                m.compact_after.extend(after);
                let done = plan
                    .buckets
                    .iter()
                    .position(|(p, b)| *p == task.partition && *b == task.bucket)
                    .map_or(0, |i| i + 1);
                progress(done, plan.buckets.len());
            }
            // The index files holding vectors of rewritten files are rewritten without them.
            for m in &mut messages {
                let Some(vectors) = plan.vectors.get(m.partition.as_bytes()) else {
                    continue;
                };
                let (compacted, added) = if evolution {
                    // Java's DataEvolutionCompactDeletionVectorRewriter: the anchors' vectors
                    // move to the new files.
                    let tasks = plan.tasks.iter().zip(&afters);
                    let mine = tasks.filter(|(t, _)| t.partition == m.partition);
                    let moves = mine.map(|(t, a)| (t.files.as_slice(), a.as_slice()));
                    self.move_evolution_vectors(vectors, moves.collect())
                        .await?
                } else {
                    let names = m.compact_before.iter().map(|f| f.file_name.clone());
                    (names.collect(), Vec::new())
                };
                // A fixed bucket keeps one index file, written even when it ends up empty
                // (Java's `BucketedDvMaintainer.writeDeletionVectorsIndex`).
                let bucketed = self.options().bucket()? != -1;
                let (changes, paths) = vectors
                    .rewrite_index(
                        self,
                        &m.partition,
                        &compacted,
                        added,
                        bucketed,
                        &mut dv_writer,
                    )
                    .await?;
                dv_written.extend(paths);
                m.compact_index_changes.extend(changes);
            }
            committing = true;
            if self.options().deletion_vectors_enabled()? {
                let compacted: Vec<_> = messages
                    .iter()
                    .map(|m| {
                        let names = m.compact_before.iter().map(|f| f.file_name.clone());
                        (m.partition.clone(), names.collect())
                    })
                    .collect();
                dv::check_vectors_unchanged(self, plan.snapshot_id, &plan.vectors, &compacted)
                    .await?;
            }
            let committed = self.new_commit()?.commit_messages(messages, None).await?;
            Ok::<_, Error>((committed, metrics))
        }
        .await;
        match result {
            Ok((committed, metrics)) => Attempt::Done(CompactReport {
                buckets: plan.buckets,
                snapshot: committed.compact,
                metrics,
            }),
            Err(e) => {
                if !e.may_have_committed() {
                    for w in &mut writers {
                        w.abort().await;
                    }
                    if let Some(w) = &dv_writer {
                        w.delete_quietly(&dv_written).await;
                    }
                }
                if committing && e.kind() == crate::ErrorKind::Conflict && !e.may_have_committed() {
                    Attempt::Lost(e)
                } else {
                    Attempt::Failed(e)
                }
            }
        }
    }

    /// The compaction tasks of the buckets `request` selects.
    async fn append_compact_plan(&self, request: &CompactRequest) -> Result<AppendPlan> {
        self.refuse_unsupported_append_compaction()?;
        let picking = Picking::of(self)?;
        let unaware = self.options().bucket()? == -1;
        let Some(snapshot) = self.snapshot_manager().latest().await? else {
            return Ok(AppendPlan::default());
        };
        let selected = self.select_buckets(request).await?;
        let store = self.manifest_store();
        let metas = store.data_manifests(&snapshot).await?;
        let batches = store.read_manifests(&metas).await?;
        let merged = merge_entries(batches.into_iter().flatten())?;
        let mut groups: BTreeMap<(Vec<u8>, i32), BucketFiles> = BTreeMap::new();
        for e in merged.adds {
            if !selected.contains(&(e.partition.clone(), e.bucket)) {
                continue;
            }
            let g = groups
                .entry((e.partition.as_bytes().to_vec(), e.bucket))
                .or_insert_with(|| (e.partition.clone(), e.total_buckets, Vec::new()));
            g.2.push(e.file);
        }
        let evolution = self.options().data_evolution_enabled()?;
        let evolution_picking = evolution::EvolutionPicking {
            target_file_size: picking.target_file_size,
            open_file_cost: picking.open_file_cost,
            min_file_num: picking.min_file_num,
            compact_blob: self
                .options()
                .get_bool("blob-compaction.enabled")?
                .unwrap_or(false),
        };
        let mut vectors = if self.options().deletion_vectors_enabled()? {
            dv::load(self, &snapshot).await?
        } else {
            BTreeMap::new()
        };
        let mut plan = AppendPlan {
            snapshot_id: snapshot.id,
            buckets: selected,
            tasks: Vec::new(),
            vectors: BTreeMap::new(),
        };
        let mut candidates_left = picking.file_num_limit;
        let table_buckets = self.options().bucket()?;
        for ((_, bucket), (partition, total_buckets, mut files)) in groups {
            if !unaware && total_buckets != table_buckets {
                // Java's writer refuses a partition left in its old bucket count after
                // `ALTER TABLE … SET ('bucket')`; so does its compaction.
                return Err(crate::commit::bucket_num_mismatch(
                    self,
                    &partition,
                    table_buckets,
                    total_buckets,
                ));
            }
            let dvs = vectors.get(partition.as_bytes());
            let picked: Vec<Vec<DataFileMeta>> = if evolution {
                evolution_picking
                    .pack(&files, request.full)
                    .map_err(|why| {
                        Error::from(ErrorDetail::Unsupported(format!(
                            "data-evolution compaction of {}: {why}",
                            self.identifier()
                        )))
                    })?
            } else if unaware {
                let with_vector = |f: &DataFileMeta| dvs.is_some_and(|d| d.has_vector(f));
                if request.full {
                    if files.len() >= 2 || files.iter().any(with_vector) {
                        files.sort_by_key(|f| f.min_sequence_number);
                        vec![files]
                    } else {
                        Vec::new()
                    }
                } else if let Some(dvs) = dvs {
                    // Java `shouldCompact`: small, or too many rows deleted.
                    files.retain(|f| {
                        (f.file_size as u64) < picking.small_file_size
                            || dvs.too_high_delete_ratio(f, picking.delete_ratio)
                    });
                    files.truncate(candidates_left);
                    candidates_left -= files.len();
                    let (mut tasks, rest) =
                        dvs.pack(&files, picking.target_file_size, picking.open_file_cost);
                    if rest.len() > 1 {
                        tasks.extend(picking.pack_unaware(&rest));
                    }
                    tasks
                } else {
                    files.retain(|f| (f.file_size as u64) < picking.small_file_size);
                    files.truncate(candidates_left);
                    candidates_left -= files.len();
                    picking.pack_unaware(&files)
                }
            } else {
                files.sort_by_key(|f| f.min_sequence_number);
                let one = if request.full && self.options().deletion_vectors_enabled()? {
                    picking.full_bucketed_with_vectors(&files, |f| {
                        dvs.is_some_and(|d| d.has_vector(f))
                    })
                } else if request.full {
                    picking.full_bucketed(&files)
                } else {
                    picking.pick_bucketed(&files)
                };
                one.into_iter().collect()
            };
            if !picked.is_empty() {
                if let Some(v) = vectors.remove(partition.as_bytes()) {
                    plan.vectors.insert(partition.as_bytes().to_vec(), v);
                }
            }
            for files in picked {
                plan.tasks.push(AppendTask {
                    partition: partition.clone(),
                    bucket,
                    total_buckets,
                    files,
                });
            }
        }
        Ok(plan)
    }

    /// Rewrites one task's files into new files (Java's `compactRewrite`).
    async fn rewrite_append_files(
        &self,
        config: &std::sync::Arc<WriterConfig>,
        task: &AppendTask,
        snapshot_id: i64,
        writers: &mut Vec<BucketWriter>,
    ) -> Result<Vec<DataFileMeta>> {
        let first_seq = task.files.first().map_or(0, |f| f.min_sequence_number);
        let dir = self.partition_path(&task.partition)?;
        writers.push(BucketWriter::new(
            self.clone(),
            config.clone(),
            task.partition.clone(),
            dir,
            task.bucket,
            first_seq,
        ));
        let writer = writers.last_mut().expect("pushed");
        let split = DataSplit {
            snapshot_id,
            partition: task.partition.clone(),
            bucket: task.bucket,
            total_buckets: task.total_buckets,
            files: task.files.clone(),
            raw_convertible: true,
            row_range: None,
            branch: None,
        };
        let mut read = self.new_read();
        if self.options().row_tracking_enabled()? {
            // The rows keep their ids and sequence numbers: both are read (from the files'
            // `firstRowId` or stored columns) and written as columns.
            let mut columns: Vec<String> = self
                .schema()
                .fields
                .iter()
                .map(|f| f.name.clone())
                .collect();
            columns.extend(strata_spec::kv::row_tracking_fields().map(|f| f.name));
            read = read.with_projection(columns);
        }
        let mut rows = read.to_stream(vec![split])?;
        while let Some(batch) = rows.try_next().await? {
            writer.write(&batch).await?;
        }
        let mut after = writer.prepare_commit().await?;
        for f in &mut after {
            f.file_source = Some(FileSource::Compact);
        }
        Ok(after)
    }
}

/// The metrics record of one rewritten task (everything is rewritten at level 0).
fn task_metrics(
    task: &AppendTask,
    after: &[DataFileMeta],
    duration: std::time::Duration,
) -> CompactionMetrics {
    let input_bytes: i64 = task.files.iter().map(|f| f.file_size).sum();
    CompactionMetrics {
        partition: task.partition.clone(),
        bucket: task.bucket,
        task: TaskMetrics {
            output_level: 0,
            input_files: task.files.len(),
            input_bytes,
            upgraded_files: 0,
            upgraded_bytes: 0,
            rewritten_input_files: task.files.len(),
            rewritten_input_bytes: input_bytes,
            rewrites: 1,
            output_files: after.len(),
            output_bytes: after.iter().map(|f| f.file_size).sum(),
            input_rows: task.files.iter().map(|f| f.row_count).sum(),
            output_rows: after.iter().map(|f| f.row_count).sum(),
            duration,
        },
    }
}

/// One (partition, bucket)'s live files: partition, total buckets, files.
type BucketFiles = (BinaryRow, i32, Vec<DataFileMeta>);

/// The picked files of one compaction run.
#[derive(Default)]
struct AppendPlan {
    snapshot_id: i64,
    buckets: Vec<(BinaryRow, i32)>,
    tasks: Vec<AppendTask>,
    /// The deletion vectors of the partitions with tasks (deletion-vector tables).
    vectors: BTreeMap<Vec<u8>, dv::PartitionVectors>,
}

/// Files of one (partition, bucket) rewritten together (Java's `AppendCompactTask`).
struct AppendTask {
    partition: BinaryRow,
    bucket: i32,
    total_buckets: i32,
    files: Vec<DataFileMeta>,
}

#[cfg(test)]
#[path = "append_compact_tests.rs"]
mod tests;
