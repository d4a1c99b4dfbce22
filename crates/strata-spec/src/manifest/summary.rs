//! Building the [`ManifestFileMeta`] of a manifest file from its entries, as Java's manifest
//! writer does: counts of ADD/DELETE entries, max schema id, bucket/level ranges, row-id range
//! (only when every entry has a first row id) and full partition statistics (min/max/null
//! count per partition column, over ADD and DELETE entries alike).

use std::collections::HashMap;

use super::model::{FileKind, ManifestEntry, ManifestFileMeta};
use crate::binary_row::BinaryRow;
use crate::error::{Result, SpecError};
use crate::stats::{ColumnStats, SimpleStats};
use crate::{DataType, Datum};

/// Accumulates the summary of one manifest file while its entries are written.
pub struct ManifestStatsCollector {
    partition_types: Vec<DataType>,
    num_added: i64,
    num_deleted: i64,
    schema_id: Option<i64>,
    buckets: Option<(i32, i32)>,
    levels: Option<(i32, i32)>,
    row_ids: RowIds,
    /// Distinct partitions and how many entries carry each (decoded once in `finish`).
    partitions: HashMap<BinaryRow, i64>,
}

/// Row-id range of the entries so far.
#[derive(Clone, Copy)]
enum RowIds {
    /// No entry yet.
    Empty,
    /// Every entry had a first row id; min first id, max last id.
    Range(i64, i64),
    /// Some entry had no first row id.
    Untracked,
}

fn widen(range: &mut Option<(i32, i32)>, v: i32) {
    *range = Some(match *range {
        None => (v, v),
        Some((lo, hi)) => (lo.min(v), hi.max(v)),
    });
}

impl ManifestStatsCollector {
    /// `partition_types`: the table's partition column types, in partition-key order.
    pub fn new(partition_types: &[DataType]) -> ManifestStatsCollector {
        ManifestStatsCollector {
            partition_types: partition_types.to_vec(),
            num_added: 0,
            num_deleted: 0,
            schema_id: None,
            buckets: None,
            levels: None,
            row_ids: RowIds::Empty,
            partitions: HashMap::new(),
        }
    }

    /// Adds one entry to the summary.
    pub fn collect(&mut self, entry: &ManifestEntry) {
        match entry.kind {
            FileKind::Add => self.num_added += 1,
            FileKind::Delete => self.num_deleted += 1,
        }
        let file = &entry.file;
        self.schema_id = Some(
            self.schema_id
                .map_or(file.schema_id, |s| s.max(file.schema_id)),
        );
        widen(&mut self.buckets, entry.bucket);
        widen(&mut self.levels, file.level);
        self.row_ids = match (self.row_ids, file.first_row_id) {
            (RowIds::Untracked, _) | (_, None) => RowIds::Untracked,
            (range, Some(first)) => {
                let last = first.saturating_add(file.row_count).saturating_sub(1);
                match range {
                    RowIds::Range(lo, hi) => RowIds::Range(lo.min(first), hi.max(last)),
                    _ => RowIds::Range(first, last),
                }
            }
        };
        *self.partitions.entry(entry.partition.clone()).or_insert(0) += 1;
    }

    /// The manifest-list row for the file. `latest_schema_id` is used when no entry was
    /// collected (Java: the table's latest schema); the ranges are then `None`.
    pub fn finish(
        self,
        file_name: impl Into<String>,
        file_size: i64,
        latest_schema_id: i64,
    ) -> Result<ManifestFileMeta> {
        let partition_stats = partition_stats(&self.partition_types, &self.partitions)?;
        let row_ids = match self.row_ids {
            RowIds::Range(lo, hi) => Some((lo, hi)),
            RowIds::Empty | RowIds::Untracked => None,
        };
        Ok(ManifestFileMeta {
            file_name: file_name.into(),
            file_size,
            num_added_files: self.num_added,
            num_deleted_files: self.num_deleted,
            partition_stats,
            schema_id: self.schema_id.unwrap_or(latest_schema_id),
            min_bucket: self.buckets.map(|b| b.0),
            max_bucket: self.buckets.map(|b| b.1),
            min_level: self.levels.map(|l| l.0),
            max_level: self.levels.map(|l| l.1),
            min_row_id: row_ids.map(|r| r.0),
            max_row_id: row_ids.map(|r| r.1),
        })
    }
}

/// Full min/max/null-count statistics over the partitions (each with its entry count).
fn partition_stats(
    types: &[DataType],
    partitions: &HashMap<BinaryRow, i64>,
) -> Result<SimpleStats> {
    let mut columns = vec![
        ColumnStats {
            min: None,
            max: None,
            null_count: Some(0),
        };
        types.len()
    ];
    for (row, &count) in partitions {
        let datums = row.to_datums(types)?;
        if datums.len() != types.len() {
            return Err(SpecError::invalid(
                "_PARTITION",
                format!(
                    "partition row has {} fields, the partition type has {}",
                    datums.len(),
                    types.len()
                ),
            ));
        }
        for (i, datum) in datums.into_iter().enumerate() {
            let col = &mut columns[i];
            match datum {
                None => col.null_count = Some(col.null_count.unwrap_or(0) + count),
                Some(d) => {
                    col.min = Some(pick(col.min.take(), d.clone(), std::cmp::Ordering::Less)?);
                    col.max = Some(pick(col.max.take(), d, std::cmp::Ordering::Greater)?);
                }
            }
        }
    }
    SimpleStats::from_columns(&columns, types)
}

/// `candidate` if it compares `wanted` against `current`, else `current`.
fn pick(current: Option<Datum>, candidate: Datum, wanted: std::cmp::Ordering) -> Result<Datum> {
    let Some(current) = current else {
        return Ok(candidate);
    };
    match candidate.compare(&current) {
        Some(o) if o == wanted => Ok(candidate),
        Some(_) => Ok(current),
        None => Err(SpecError::invalid(
            "_PARTITION",
            format!("partition values {candidate} and {current} have different types"),
        )),
    }
}

impl ManifestFileMeta {
    /// The manifest-list row of a manifest file holding `entries` (see
    /// [`ManifestStatsCollector`]); same as [`manifest_file_meta`].
    pub fn from_entries(
        file_name: impl Into<String>,
        file_size: i64,
        entries: &[ManifestEntry],
        partition_types: &[DataType],
        latest_schema_id: i64,
    ) -> Result<ManifestFileMeta> {
        manifest_file_meta(
            file_name,
            file_size,
            entries,
            partition_types,
            latest_schema_id,
        )
    }
}

/// Summary of a manifest file holding `entries` (see [`ManifestStatsCollector`]).
pub fn manifest_file_meta(
    file_name: impl Into<String>,
    file_size: i64,
    entries: &[ManifestEntry],
    partition_types: &[DataType],
    latest_schema_id: i64,
) -> Result<ManifestFileMeta> {
    let mut c = ManifestStatsCollector::new(partition_types);
    for e in entries {
        c.collect(e);
    }
    c.finish(file_name, file_size, latest_schema_id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::testkit::{entry, int_row};
    use crate::TypeKind;
    use FileKind::{Add, Delete};

    #[test]
    fn summarises_counts_ranges_and_partition_stats() {
        let types = [
            DataType::nullable(TypeKind::Int),
            DataType::nullable(TypeKind::Int),
        ];
        let mut entries = vec![
            entry(Add, 0, 2, "a"),
            entry(Add, 0, 0, "b"),
            entry(Delete, 0, 3, "c"),
        ];
        entries[0].partition = int_row(&[Some(5), None]);
        entries[1].partition = int_row(&[Some(-3), Some(8)]);
        entries[2].partition = int_row(&[Some(5), None]);
        entries[0].file.level = 4;
        entries[2].file.level = 1;
        entries[1].file.schema_id = 3;
        let meta = manifest_file_meta("manifest-x-0", 777, &entries, &types, 9).unwrap();
        assert_eq!(meta.file_name, "manifest-x-0");
        assert_eq!(meta.file_size, 777);
        assert_eq!((meta.num_added_files, meta.num_deleted_files), (2, 1));
        assert_eq!(meta.schema_id, 3);
        assert_eq!((meta.min_bucket, meta.max_bucket), (Some(0), Some(3)));
        assert_eq!((meta.min_level, meta.max_level), (Some(0), Some(4)));
        assert_eq!((meta.min_row_id, meta.max_row_id), (None, None));
        let want = SimpleStats::from_columns(
            &[
                ColumnStats {
                    min: Some(Datum::Int(-3)),
                    max: Some(Datum::Int(5)),
                    null_count: Some(0),
                },
                ColumnStats {
                    min: Some(Datum::Int(8)),
                    max: Some(Datum::Int(8)),
                    null_count: Some(2),
                },
            ],
            &types,
        )
        .unwrap();
        assert_eq!(meta.partition_stats, want);
    }

    #[test]
    fn row_ids_need_every_entry_to_have_one() {
        let types = [DataType::nullable(TypeKind::Int)];
        let mut entries = vec![entry(Add, 1, 0, "a"), entry(Add, 1, 0, "b")];
        entries[0].file.first_row_id = Some(100);
        entries[0].file.row_count = 10;
        entries[1].file.first_row_id = Some(20);
        entries[1].file.row_count = 5;
        let meta = manifest_file_meta("m", 1, &entries, &types, 0).unwrap();
        assert_eq!((meta.min_row_id, meta.max_row_id), (Some(20), Some(109)));
        entries.push(entry(Add, 1, 0, "c"));
        let meta = manifest_file_meta("m", 1, &entries, &types, 0).unwrap();
        assert_eq!((meta.min_row_id, meta.max_row_id), (None, None));
    }

    #[test]
    fn empty_manifest_uses_latest_schema_and_has_no_ranges() {
        let types = [DataType::nullable(TypeKind::Int)];
        let meta = ManifestFileMeta::from_entries("m", 1, &[], &types, 7).unwrap();
        assert_eq!(meta.schema_id, 7);
        assert_eq!((meta.num_added_files, meta.num_deleted_files), (0, 0));
        assert_eq!(
            (meta.min_bucket, meta.max_level, meta.min_row_id),
            (None, None, None)
        );
        let want = SimpleStats::from_columns(
            &[ColumnStats {
                min: None,
                max: None,
                null_count: Some(0),
            }],
            &types,
        )
        .unwrap();
        assert_eq!(meta.partition_stats, want);
    }
}
