//! Postpone compaction (`bucket = -2` tables): the postponed records of each partition move
//! into real buckets, in one COMPACT commit — Java's postpone compaction (Flink
//! `CompactAction.buildForPostponeBucketCompaction`: `PostponeBucketCompactSplitSource`,
//! `PostponeBucketCompactOperator`, `RewritePostponeBucketCommittableOperator`).
//!
//! For every partition with postpone files (or with a level-0 file in a real bucket), on the
//! latest snapshot:
//! * the bucket count is the partition's own when it has real-bucket files (every such file
//!   must agree), else `ceil(rows / postpone.target-row-num-per-bucket)` when that option is
//!   set, else `postpone.default-bucket-num` (default 1) — `PostponeUtils.determineBucketNum`;
//! * the postpone files are replayed in creation-time order, each file's records in file
//!   order with their row kinds, through an ordinary fixed-bucket writer of the table with
//!   that bucket count (`PostponeUtils.tableForPostponeCompact`: new sequence numbers after
//!   the bucket's, merge engine, changelog as a normal write);
//! * the buckets written, and the real buckets holding level-0 files, are compacted (the
//!   table's strategy; fully with `full`);
//! * each bucket's new files and compaction become one compaction message (Java
//!   `BucketFiles`: a new file compacted away in the same run is deleted and left out), and
//!   the postpone files are removed by a compaction message of bucket `-2`
//!   (`RemovePostponeBucketFilesOperator`).

use std::collections::{BTreeMap, HashMap, HashSet};

use arrow_array::RecordBatch;
use futures::TryStreamExt;
use strata_spec::binary_row::BinaryRow;
use strata_spec::kv::RowKind;
use strata_spec::manifest::DataFileMeta;
use strata_spec::options::POSTPONE_BUCKET;
use strata_spec::Datum;

use super::compact_table::{Attempt, CompactReport, CompactRequest};
use super::TableWrite;
use crate::commit::CommitMessage;
use crate::error::ErrorDetail;
use crate::lsm::kv_file_reader::KvFileReader;
use crate::lsm::kv_layout::kind_column;
use crate::table::Table;
use crate::{Error, Result};

/// What the latest snapshot holds for the postpone compaction.
#[derive(Default)]
struct Plan {
    /// Postpone files per partition.
    postponed: BTreeMap<Vec<u8>, (BinaryRow, Vec<DataFileMeta>)>,
    /// The bucket count of partitions with real-bucket files.
    known: HashMap<BinaryRow, i32>,
    /// Real buckets holding a level-0 file, per partition.
    level0: HashMap<BinaryRow, HashSet<i32>>,
    base: Option<i64>,
}

/// Java `PostponeUtils.computeBucketNumByRowCount`.
pub(crate) fn bucket_num_by_row_count(rows: i64, target: i64) -> Result<i32> {
    if target <= 0 {
        return Err(ErrorDetail::InvalidOption {
            key: "postpone.target-row-num-per-bucket".into(),
            message: "Option 'postpone.target-row-num-per-bucket' must be greater than 0.".into(),
        }
        .into());
    }
    let n = if rows <= 0 {
        1
    } else {
        (rows - 1) / target + 1
    };
    i32::try_from(n).map_err(|_| {
        ErrorDetail::InvalidOption {
            key: "postpone.target-row-num-per-bucket".into(),
            message: format!(
                "Computed postpone bucket number {n} exceeds the maximum integer value; \
                 increase 'postpone.target-row-num-per-bucket'"
            ),
        }
        .into()
    })
}

impl Table {
    async fn postpone_plan(&self, request: &CompactRequest) -> Result<Plan> {
        let mut plan = Plan::default();
        let Some(snapshot) = self.snapshot_manager().latest().await? else {
            return Ok(plan);
        };
        plan.base = Some(snapshot.id);
        let mut specs: Vec<Vec<(usize, Option<Datum>)>> = Vec::new();
        for spec in &request.partitions {
            specs.push(self.partition_computer().parse_partial_spec(spec)?);
        }
        let types = self.schema().partition_type().types();
        let metas = self.manifest_store().data_manifests(&snapshot).await?;
        for e in crate::scan::live_entries(self, &snapshot, &metas).await? {
            let values = e.partition.to_datums(&types)?;
            let selected = specs.is_empty()
                || specs
                    .iter()
                    .any(|s| s.iter().all(|(i, v)| values.get(*i) == Some(v)));
            if e.bucket == POSTPONE_BUCKET {
                if selected {
                    plan.postponed
                        .entry(e.partition.as_bytes().to_vec())
                        .or_insert_with(|| (e.partition.clone(), Vec::new()))
                        .1
                        .push(e.file);
                }
                continue;
            }
            if e.total_buckets >= 0 {
                if let Some(old) = plan.known.insert(e.partition.clone(), e.total_buckets) {
                    if old != e.total_buckets {
                        return Err(ErrorDetail::InvalidArgument(format!(
                            "Partition {} has different totalBuckets {old} and {}",
                            self.partition_text(&e.partition)?,
                            e.total_buckets
                        ))
                        .into());
                    }
                }
            }
            if selected && e.bucket >= 0 && e.total_buckets > 0 && e.file.level == 0 {
                plan.level0
                    .entry(e.partition.clone())
                    .or_default()
                    .insert(e.bucket);
            }
        }
        for p in plan.level0.keys() {
            plan.postponed
                .entry(p.as_bytes().to_vec())
                .or_insert_with(|| (p.clone(), Vec::new()));
        }
        Ok(plan)
    }

    /// Java `PostponeUtils.determineBucketNum`.
    fn postpone_bucket_num(&self, plan: &Plan, partition: &BinaryRow) -> Result<i32> {
        if let Some(n) = plan.known.get(partition) {
            return Ok(*n);
        }
        let opts = self.options();
        if let Some(target) = opts.get_i64("postpone.target-row-num-per-bucket")? {
            let rows = plan
                .postponed
                .get(partition.as_bytes())
                .map(|(_, files)| files.iter().map(|f| f.row_count).sum())
                .unwrap_or(0);
            return bucket_num_by_row_count(rows, target);
        }
        let n = opts.get_i64("postpone.default-bucket-num")?.unwrap_or(1);
        i32::try_from(n).ok().filter(|n| *n > 0).ok_or_else(|| {
            ErrorDetail::InvalidOption {
                key: "postpone.default-bucket-num".into(),
                message: format!("must be a positive int, got {n}"),
            }
            .into()
        })
    }

    /// One postpone compaction attempt on the latest snapshot (see the module docs).
    pub(super) async fn compact_postpone_once(
        &self,
        request: &CompactRequest,
        progress: &(dyn Fn(usize, usize) + Send + Sync),
    ) -> Attempt {
        if request.bucket.is_some() {
            return Attempt::Failed(
                ErrorDetail::InvalidArgument(format!(
                    "{} is a postpone-bucket table (bucket = -2): its compaction moves the \
                     postponed rows of whole partitions into real buckets and takes no bucket",
                    self.identifier()
                ))
                .into(),
            );
        }
        let plan = match self.postpone_plan(request).await {
            Ok(p) if p.postponed.is_empty() => return Attempt::Done(CompactReport::default()),
            Ok(p) => p,
            Err(e) => return Attempt::Failed(e),
        };
        let total = plan.postponed.len();
        let mut writes: Vec<TableWrite> = Vec::new();
        let mut committing = false;
        let result = async {
            let mut messages = Vec::new();
            let mut visited = Vec::new();
            // One writer per bucket count: partitions that share a count share its restore.
            let mut groups: BTreeMap<i32, Vec<&(BinaryRow, Vec<DataFileMeta>)>> = BTreeMap::new();
            for entry in plan.postponed.values() {
                let n = self.postpone_bucket_num(&plan, &entry.0)?;
                groups.entry(n).or_default().push(entry);
            }
            let mut done = 0;
            // A bucket count of this compaction: the table its expiry runs with.
            let real_bucket = groups.keys().next().copied();
            for (n, partitions) in groups {
                let real = self.with_dynamic_options([
                    ("bucket".to_string(), n.to_string()),
                    ("write-only".to_string(), "false".to_string()),
                ])?;
                writes.push(real.new_write()?);
                let write = writes.last_mut().expect("pushed just above");
                let mut touched: HashSet<(BinaryRow, i32)> = HashSet::new();
                for (partition, files) in partitions {
                    if let Some(buckets) = plan.level0.get(partition) {
                        touched.extend(buckets.iter().map(|b| (partition.clone(), *b)));
                    }
                    replay(self, write, partition, files).await?;
                    if !files.is_empty() {
                        messages.push(CommitMessage {
                            compact_before: files.clone(),
                            compact_base: plan.base,
                            ..CommitMessage::new(
                                partition.clone(),
                                POSTPONE_BUCKET,
                                POSTPONE_BUCKET,
                            )
                        });
                    }
                    done += 1;
                    progress(done, total);
                }
                touched.extend(write.written_buckets());
                write
                    .compact(&|p, b| touched.contains(&(p.clone(), b)), request.full)
                    .await?;
                let mut buckets: Vec<(BinaryRow, i32)> = touched.into_iter().collect();
                buckets.sort_by(|a, b| (a.0.as_bytes(), a.1).cmp(&(b.0.as_bytes(), b.1)));
                visited.extend(buckets);
                for m in write.prepare_commit().await? {
                    messages.push(as_compaction(&real, m).await?);
                }
            }
            let metrics = writes
                .iter_mut()
                .flat_map(|w| w.take_compaction_metrics())
                .collect();
            committing = true;
            let committed = self.new_commit()?.commit_messages(messages, None).await?;
            // Java commits postpone compaction through the table with a real bucket count
            // and `write-only = false` (`PostponeUtils.tableForPostponeCompact`), so its
            // commit expires snapshots, which a commit of the `bucket = -2` table does not
            // (`maintenance::expire_after_commit`). The compaction has landed: an expiry
            // failure leaves snapshots for the next expiry, as after any commit.
            if let Some(n) = real_bucket.filter(|_| committed.compact.is_some()) {
                let real = self.with_dynamic_options([
                    ("bucket".to_string(), n.to_string()),
                    ("write-only".to_string(), "false".to_string()),
                ])?;
                let _ = crate::maintenance::expire_after_commit(&real).await;
            }
            Ok::<_, Error>(CompactReport {
                buckets: visited,
                snapshot: committed.compact,
                metrics,
            })
        }
        .await;
        match result {
            Ok(report) => Attempt::Done(report),
            Err(e) => {
                if !e.may_have_committed() {
                    for w in &mut writes {
                        w.abort().await;
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
}

/// Replays the postpone `files` of `partition` (creation-time order, each in file order, row
/// kinds kept) into `write`.
async fn replay(
    table: &Table,
    write: &mut TableWrite,
    partition: &BinaryRow,
    files: &[DataFileMeta],
) -> Result<()> {
    let mut files: Vec<&DataFileMeta> = files.iter().collect();
    files.sort_by_key(|f| f.creation_time.unwrap_or(i64::MIN));
    let layout = crate::lsm::kv_layout::KvLayout::for_table(table.schema())?;
    let reader = KvFileReader::new(
        table.file_io().clone(),
        table.schema_manager().clone(),
        layout.clone(),
        8192,
    );
    let dir = table.partition_path(partition)?;
    let arrow_schema = write.arrow_schema().clone();
    for file in files {
        let path = table
            .paths()
            .data_file(&dir, POSTPONE_BUCKET, &file.file_name);
        let fields = reader.read_fields(file).await?;
        let mut stream = reader.read(&path, file, &fields, None, None).await?;
        while let Some(batch) = stream.try_next().await? {
            let kinds = kind_column(&layout, &batch)?
                .values()
                .iter()
                .map(|k| RowKind::from_byte(*k).map_err(Error::from))
                .collect::<Result<Vec<_>>>()?;
            let values = RecordBatch::try_new(arrow_schema.clone(), layout.values_of(&batch))
                .map_err(|e| Error::arrow("postponed records", e))?;
            write.write_with_kinds(&values, &kinds).await?;
        }
    }
    Ok(())
}

/// A real bucket's write and compaction as one compaction message (Java `BucketFiles`): new
/// files join `compact_after`, a new file the same run compacted away is deleted and left out.
async fn as_compaction(real: &Table, m: CommitMessage) -> Result<CommitMessage> {
    let mut new_files: Vec<DataFileMeta> = m.new_files;
    let mut before = Vec::new();
    let mut to_delete: Vec<DataFileMeta> = Vec::new();
    for f in m.compact_before {
        match new_files.iter().position(|n| n.file_name == f.file_name) {
            Some(i) => to_delete.push(new_files.remove(i)),
            None => before.push(f),
        }
    }
    to_delete.retain(|d| !m.compact_after.iter().any(|a| a.file_name == d.file_name));
    let dir = real.partition_path(&m.partition)?;
    for f in &to_delete {
        let path = real.paths().data_file(&dir, m.bucket, &f.file_name);
        let _ = real.file_io().delete(&path).await;
    }
    let mut after = new_files;
    after.extend(m.compact_after);
    let mut changelog = m.new_changelog;
    changelog.extend(m.compact_changelog);
    let mut index = m.index_changes;
    index.extend(m.compact_index_changes);
    Ok(CommitMessage {
        compact_before: before,
        compact_after: after,
        compact_changelog: changelog,
        compact_index_changes: index,
        compact_base: m.compact_base,
        ..CommitMessage::new(m.partition, m.bucket, m.total_buckets)
    })
}

#[cfg(test)]
mod tests {
    use super::bucket_num_by_row_count;

    #[test]
    fn bucket_count_by_rows_as_java() {
        // Java `PostponeUtils.computeBucketNumByRowCount`.
        assert_eq!(bucket_num_by_row_count(0, 4).unwrap(), 1);
        assert_eq!(bucket_num_by_row_count(4, 4).unwrap(), 1);
        assert_eq!(bucket_num_by_row_count(5, 4).unwrap(), 2);
        assert_eq!(bucket_num_by_row_count(10, 4).unwrap(), 3);
        assert!(bucket_num_by_row_count(10, 0).is_err());
        assert!(bucket_num_by_row_count(i64::MAX, 1).is_err());
    }
}
