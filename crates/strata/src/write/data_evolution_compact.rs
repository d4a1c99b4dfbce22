//! Compaction of data-evolution append tables (`data-evolution.enabled`), as Java Paimon 2.0's
//! `DataEvolutionCompactCoordinator` plans it and its `DataEvolutionNormalCompactTask` runs it.
//!
//! Planning, per partition: the files are grouped into runs of adjacent row-id ranges
//! (`RangeHelper.mergeOverlappingRanges` over `[firstRowId, firstRowId + rowCount]`, so ranges
//! that touch merge); inside a run, the files of one row-id range (every file of a range
//! covers the same rows: the whole-row file and the column files written after it) form a
//! group weighing the sum of `max(fileSize, source.split.open-file-cost)`. Groups fill a bin in
//! row-id order; a group heavier than `target-file-size` drains the bin and is a bin of its
//! own, a bin heavier than `target-file-size` is drained, and the run's last bin is drained at
//! its end. A drained bin becomes a task when it holds at least `compaction.min.file-num`
//! files (`full`: at least two).
//!
//! A task reads its ranges stitched (`read::data_evolution`, Java's `DataEvolutionSplitRead`:
//! the newest file holding a column gives it) in row-id order and writes them into one file
//! of every column (`writeCols` null, as Java's writer when the write type is the table's row
//! type) but the BLOB columns, which stay in their `.blob` files (`writeCols` then names the
//! other columns, as Java's `readWriteType`), never rolled (Java's `DYNAMIC_WRITE_OPTIONS`), its `firstRowId` the first range's,
//! its sequence numbers the smallest and largest of the files it replaces
//! (`assignSequenceNumber`), level 0, file source APPEND (Java's task writes it with an
//! append writer). The rows keep their `_ROW_ID`s, since the ranges are contiguous. One
//! COMPACT snapshot DELETEs the task's files and ADDs the new one.
//!
//! `.blob` files are no part of the planning and stay as they are (Java's default,
//! `blob-compaction.enabled` = false).
//!
//! With deletion vectors (`deletion-vectors.enabled`, Java's default
//! `data-evolution.compaction.rewrite-row-ids` = false), the tasks are planned and rewritten the
//! same way, without applying the vectors (every row and row id stays), and each old range's
//! anchor vector moves to the new file, shifted to its range (Java's
//! `DataEvolutionCompactDeletionVectorRewriter`, [`Table::move_evolution_vectors`]); the index
//! files are rewritten as for append tables (`append_compact_dv.rs`).
//!
//! Refused by name: with `blob-compaction.enabled` = true, partitions holding `.blob` files
//! (Java's `DataEvolutionBlobCompactTask` merges them; not done here), vector-store files, and
//! `data-evolution.compaction.rewrite-row-ids` = true with deletion vectors (Java's
//! `DataEvolutionMaterializeDeletionCompactTask` drops the deleted rows and gives new ids).

use std::collections::HashSet;
use std::sync::Arc;

use arrow_array::{RecordBatch, RecordBatchOptions};
use strata_spec::binary_row::BinaryRow;
use strata_spec::manifest::DataFileMeta;

use crate::error::ErrorDetail;
use crate::read::deletion_vectors::DeletionVector;
use crate::table::Table;
use crate::write::bucket_writer::{BucketWriter, WriterConfig};
use crate::{Error, Result};

/// The planning settings of Java's `CompactPlanner`.
pub(super) struct EvolutionPicking {
    pub(super) target_file_size: u64,
    pub(super) open_file_cost: u64,
    pub(super) min_file_num: usize,
    /// `blob-compaction.enabled`.
    pub(super) compact_blob: bool,
}

/// Java `RangeHelper.mergeOverlappingRanges`: `items` grouped by overlapping inclusive ranges
/// (sorted by start then end), each group in input order, groups by start.
fn merge_overlapping<T: Clone>(items: &[T], range: impl Fn(&T) -> (i64, i64)) -> Vec<Vec<T>> {
    let mut order: Vec<(i64, i64, usize)> = items
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let (s, e) = range(t);
            (s, e, i)
        })
        .collect();
    order.sort_by_key(|&(s, e, _)| (s, e));
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut end = i64::MIN;
    for (s, e, i) in order {
        match groups.last_mut() {
            Some(g) if s <= end => {
                g.push(i);
                end = end.max(e);
            }
            _ => {
                groups.push(vec![i]);
                end = e;
            }
        }
    }
    groups
        .into_iter()
        .map(|mut g| {
            g.sort_unstable();
            g.into_iter().map(|i| items[i].clone()).collect()
        })
        .collect()
}

/// Whether `name` is a `.blob` file (Java's `isBlobFile`).
fn blob_file(name: &str) -> bool {
    name.to_ascii_lowercase().ends_with(".blob")
}

impl EvolutionPicking {
    /// Java `CompactPlanner.compactPlan` for one partition's live files (no BLOB compaction,
    /// no deletion vectors): the files of each task, first range first.
    pub(super) fn pack(
        &self,
        files: &[DataFileMeta],
        full: bool,
    ) -> std::result::Result<Vec<Vec<DataFileMeta>>, String> {
        if let Some(f) = files
            .iter()
            .find(|f| f.file_name.to_ascii_lowercase().contains(".vector"))
        {
            return Err(format!(
                "the partition holds vector-store file {}; strata does not compact them",
                f.file_name
            ));
        }
        if self.compact_blob {
            if let Some(f) = files.iter().find(|f| blob_file(&f.file_name)) {
                return Err(format!(
                    "blob-compaction.enabled = true and the partition holds {}; strata does not \
                     compact .blob files (Java's DataEvolutionBlobCompactTask)",
                    f.file_name
                ));
            }
        }
        // `.blob` files stay where they are: only the data files are planned.
        let files: Vec<DataFileMeta> = files
            .iter()
            .filter(|f| !blob_file(&f.file_name))
            .cloned()
            .collect();
        let files = files.as_slice();
        if let Some(f) = files.iter().find(|f| f.first_row_id.is_none()) {
            return Err(format!("data file {} has no firstRowId", f.file_name));
        }
        let first = |f: &DataFileMeta| f.first_row_id.unwrap_or_default();
        let min_files = if full { 2 } else { self.min_file_num };
        let mut tasks = Vec::new();
        let mut trigger = |bin: &mut Vec<DataFileMeta>, weight: &mut u64| {
            let files = std::mem::take(bin);
            *weight = 0;
            if !files.is_empty() && files.len() >= min_files {
                tasks.push(files);
            }
        };
        // Adjacent ranges merge: `[first, first + rowCount]`.
        for run in merge_overlapping(files, |f| (first(f), first(f) + f.row_count)) {
            let mut bin: Vec<DataFileMeta> = Vec::new();
            let mut weight = 0u64;
            for group in merge_overlapping(&run, |f| (first(f), first(f) + f.row_count - 1)) {
                if group
                    .iter()
                    .any(|f| first(f) != first(&group[0]) || f.row_count != group[0].row_count)
                {
                    let names: Vec<&str> = group.iter().map(|f| f.file_name.as_str()).collect();
                    return Err(format!(
                        "data files {names:?} overlap without covering the same row ids"
                    ));
                }
                let group_weight: u64 = group
                    .iter()
                    .map(|f| (f.file_size.max(0) as u64).max(self.open_file_cost))
                    .sum();
                if group_weight > self.target_file_size {
                    trigger(&mut bin, &mut weight);
                    let mut own = group;
                    let mut own_weight = group_weight;
                    trigger(&mut own, &mut own_weight);
                } else {
                    bin.extend(group);
                    weight += group_weight;
                    if weight > self.target_file_size {
                        trigger(&mut bin, &mut weight);
                    }
                }
            }
            trigger(&mut bin, &mut weight);
        }
        Ok(tasks)
    }
}

impl Table {
    /// This table as a data-evolution compaction writes it: one file per task, never rolled
    /// (Java's `DataEvolutionCompactTask.DYNAMIC_WRITE_OPTIONS`), of the columns other than
    /// BLOB ones (a table of those columns when there are BLOB columns, as `update_columns`
    /// writes some columns).
    pub(super) fn evolution_compaction_writer(&self) -> Result<(Table, Arc<WriterConfig>)> {
        let writing = self.with_dynamic_options([
            ("target-file-size".to_string(), "99999 G".to_string()),
            ("target-file-row-num".to_string(), i64::MAX.to_string()),
        ])?;
        let fields = evolution_write_fields(self);
        let writing = if fields.len() == self.schema().fields.len() {
            writing
        } else {
            let projected = Arc::new(strata_spec::schema::TableSchema {
                fields,
                partition_keys: Vec::new(),
                primary_keys: Vec::new(),
                ..writing.schema().as_ref().clone()
            });
            writing.with_schema(projected)?
        };
        let config = Arc::new(WriterConfig::from_table(&writing)?);
        Ok((writing, config))
    }

    /// Rewrites one data-evolution task: its row-id ranges read stitched, in row-id order,
    /// into one file of every column (Java's `DataEvolutionNormalCompactTask.doCompact`).
    pub(super) async fn rewrite_evolution_files(
        &self,
        writing: &Table,
        config: &Arc<WriterConfig>,
        (partition, bucket, files): (&BinaryRow, i32, &[DataFileMeta]),
        writers: &mut Vec<BucketWriter>,
    ) -> Result<Vec<DataFileMeta>> {
        let dir = self.partition_path(partition)?;
        let groups = crate::read::data_evolution::group_by_row_ranges(self, files.to_vec())?;
        let first_row_id = groups
            .first()
            .and_then(|g| g.first())
            .and_then(|f| f.first_row_id)
            .ok_or_else(|| invalid(self, "a compaction task without files".to_string()))?;
        let min_seq = files.iter().map(|f| f.min_sequence_number).min();
        let max_seq = files.iter().map(|f| f.max_sequence_number).max();
        writers.push(BucketWriter::new(
            writing.clone(),
            config.clone(),
            partition.clone(),
            dir.clone(),
            bucket,
            0,
        ));
        let writer = writers.last_mut().expect("pushed");
        let fields = evolution_write_fields(self);
        let all_columns = fields.len() == self.schema().fields.len();
        let arrow_schema = crate::format::arrow_types::to_arrow_schema(
            &strata_spec::RowType::new(fields.clone()),
        )?;
        let mut expected = first_row_id;
        let mut rows_total = 0i64;
        for group in &groups {
            let from = group[0].first_row_id.unwrap_or_default();
            if from != expected {
                return Err(invalid(
                    self,
                    format!(
                        "row-id ranges of the task are not contiguous (expected {expected}, \
                         found {from})"
                    ),
                ));
            }
            let (columns, n) = crate::read::data_evolution::read_group(
                self,
                &dir,
                bucket,
                group,
                &fields,
                crate::read::DEFAULT_BATCH_SIZE,
            )
            .await?;
            expected = from + n as i64;
            rows_total += n as i64;
            let options = RecordBatchOptions::new().with_row_count(Some(n));
            let batch = RecordBatch::try_new_with_options(arrow_schema.clone(), columns, &options)
                .map_err(|e| Error::arrow("stitching a row-id range for compaction", e))?;
            writer.write(&batch).await?;
        }
        let mut after = writer.prepare_commit().await?;
        if after.len() != 1 || after[0].row_count != rows_total {
            return Err(invalid(
                self,
                format!(
                    "compacting the range {first_row_id}..{expected} wrote {} files of {} rows \
                     where Java writes one of {rows_total}",
                    after.len(),
                    after.iter().map(|f| f.row_count).sum::<i64>()
                ),
            ));
        }
        let file = &mut after[0];
        file.first_row_id = Some(first_row_id);
        file.write_cols = (!all_columns).then(|| fields.iter().map(|f| f.name.clone()).collect());
        file.min_sequence_number = min_seq.unwrap_or_default();
        file.max_sequence_number = max_seq.unwrap_or_default();
        Ok(after)
    }
}

impl Table {
    /// Java `DataEvolutionCompactDeletionVectorRewriter.collectMaintainers` for one partition:
    /// the tasks were rewritten without applying deletion vectors (every row kept, row ids
    /// stable), so the vector of each old range's anchor file (`retrieveAnchorFile`: the
    /// smallest `maxSequenceNumber`, then file name) moves to the task's new file, its
    /// positions shifted by the difference of the two ranges' first row ids. Returns the
    /// anchors whose vectors moved and the new files' vectors.
    pub(super) async fn move_evolution_vectors(
        &self,
        vectors: &super::dv::PartitionVectors,
        moves: Vec<(&[DataFileMeta], &[DataFileMeta])>,
    ) -> Result<(HashSet<String>, Vec<(String, DeletionVector)>)> {
        let bitmap64 = self
            .options()
            .get_bool("deletion-vectors.bitmap64")?
            .unwrap_or(false);
        let first = |f: &DataFileMeta| f.first_row_id.unwrap_or_default();
        // (anchor, its range's first row id) of every old range, per task.
        let mut anchors: Vec<Vec<(String, i64)>> = Vec::new();
        let mut names = HashSet::new();
        for (before, _) in &moves {
            let normal: Vec<DataFileMeta> = before
                .iter()
                .filter(|f| !blob_file(&f.file_name))
                .cloned()
                .collect();
            let mut task = Vec::new();
            for group in merge_overlapping(&normal, |f| (first(f), first(f) + f.row_count - 1)) {
                let anchor = group.iter().min_by(|a, b| {
                    (a.max_sequence_number, &a.file_name)
                        .cmp(&(b.max_sequence_number, &b.file_name))
                });
                if let Some(a) = anchor {
                    names.insert(a.file_name.clone());
                    task.push((a.file_name.clone(), first(a)));
                }
            }
            anchors.push(task);
        }
        let old = vectors.vectors_of(self, &names).await?;
        let mut removed = HashSet::new();
        let mut added = Vec::new();
        for ((_, after), task) in moves.iter().zip(anchors) {
            let Some(new_file) = after.iter().find(|f| !blob_file(&f.file_name)) else {
                continue;
            };
            let new_from = first(new_file);
            let mut merged = DeletionVector::new_empty(bitmap64);
            for (anchor, old_from) in task {
                let Some(dv) = old.get(&anchor).filter(|v| !v.is_empty()) else {
                    continue;
                };
                let positions: Vec<u64> = match dv {
                    DeletionVector::Bitmap32(b) => b.iter().map(u64::from).collect(),
                    DeletionVector::Bitmap64(b) => b.iter().collect(),
                };
                for p in positions {
                    let moved = old_from + p as i64 - new_from;
                    if moved < 0 || moved >= new_file.row_count {
                        return Err(invalid(
                            self,
                            format!(
                                "cannot move deleted position {p} of {anchor} (range from \
                                 {old_from}) into {} (range from {new_from}, {} rows)",
                                new_file.file_name, new_file.row_count
                            ),
                        ));
                    }
                    merged
                        .delete(moved as u64)
                        .map_err(|e| invalid(self, e.to_string()))?;
                }
                removed.insert(anchor);
            }
            if !merged.is_empty() {
                added.push((new_file.file_name.clone(), merged));
            }
        }
        Ok((removed, added))
    }
}

/// The columns a data-evolution compaction reads and writes: the table's, but the top-level
/// BLOB ones (Java's `BlobType.fieldNamesInBlobFile`; strata refuses BLOB descriptor and view
/// fields, so every BLOB column lives in `.blob` files).
fn evolution_write_fields(table: &Table) -> Vec<strata_spec::DataField> {
    table
        .schema()
        .fields
        .iter()
        .filter(|f| !matches!(f.data_type.kind, strata_spec::TypeKind::Blob))
        .cloned()
        .collect()
}

fn invalid(table: &Table, what: String) -> Error {
    ErrorDetail::InvalidArgument(format!(
        "data-evolution compaction of {}: {what}",
        table.identifier()
    ))
    .into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_spec::manifest::FileSource;

    fn file(name: &str, first: i64, rows: i64, size: i64) -> DataFileMeta {
        DataFileMeta {
            file_name: name.into(),
            file_size: size,
            row_count: rows,
            min_key: BinaryRow::empty(),
            max_key: BinaryRow::empty(),
            key_stats: strata_spec::stats::SimpleStats::empty(),
            value_stats: strata_spec::stats::SimpleStats::empty(),
            min_sequence_number: 0,
            max_sequence_number: 0,
            schema_id: 0,
            level: 0,
            extra_files: Vec::new(),
            creation_time: None,
            delete_row_count: Some(0),
            embedded_index: None,
            file_source: Some(FileSource::Append),
            value_stats_cols: None,
            external_path: None,
            first_row_id: Some(first),
            write_cols: None,
        }
    }

    fn names(tasks: &[Vec<DataFileMeta>]) -> Vec<Vec<&str>> {
        tasks
            .iter()
            .map(|t| t.iter().map(|f| f.file_name.as_str()).collect())
            .collect()
    }

    #[test]
    fn packs_as_data_evolution_compact_coordinator() {
        let p = EvolutionPicking {
            target_file_size: 100,
            open_file_cost: 1,
            min_file_num: 2,
            compact_blob: false,
        };
        // Two adjacent ranges (0..4, 4..7) plus a column file of the first; a gap before 10.
        let files = [
            file("b", 4, 3, 10),
            file("a", 0, 4, 10),
            file("a_col", 0, 4, 5),
            file("far", 10, 2, 10),
        ];
        let tasks = p.pack(&files, false).unwrap();
        assert_eq!(names(&tasks), vec![vec!["a", "a_col", "b"]]);
        // A heavy range is a task of its own, draining what was binned before it.
        let files = [
            file("a", 0, 4, 10),
            file("b", 4, 3, 10),
            file("big", 7, 3, 150),
            file("big_col", 7, 3, 5),
        ];
        let tasks = p.pack(&files, false).unwrap();
        assert_eq!(names(&tasks), vec![vec!["a", "b"], vec!["big", "big_col"]]);
        // One file alone is left, unless min.file-num is 1.
        assert!(p.pack(&files[..1], true).unwrap().is_empty());
        // Partial overlaps are refused; .blob files stay out of the tasks (refused with
        // blob-compaction.enabled).
        assert!(p
            .pack(&[file("a", 0, 4, 1), file("c", 2, 4, 1)], false)
            .is_err());
        let with_blob = [
            file("a", 0, 4, 1),
            file("a1", 0, 4, 1),
            file("x.blob", 0, 4, 1),
        ];
        assert_eq!(
            names(&p.pack(&with_blob, false).unwrap()),
            vec![vec!["a", "a1"]]
        );
        let p = EvolutionPicking {
            compact_blob: true,
            ..p
        };
        assert!(p.pack(&with_blob, false).is_err());
    }
}
