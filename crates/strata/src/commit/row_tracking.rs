//! Row tracking at commit (Java `RowTrackingCommitUtils.assignRowTracking`, called by
//! `FileStoreCommitImpl.tryCommitOnce` on tables with `row-tracking.enabled`).
//!
//! Two stamps on the commit's delta entries, in this order:
//!
//! 1. **Sequence numbers** (`assignSnapshotId`): a file whose `minSequenceNumber` is 0 (a new
//!    file; Java's unaware-bucket writers start counting at 0) gets the new snapshot id as its
//!    min and max; one whose `maxSequenceNumber` is 0 (some rows without a sequence number)
//!    keeps its min and gets the snapshot id as max; any other file is kept. A row's
//!    `_SEQUENCE_NUMBER` is its file's `maxSequenceNumber` unless the file stores the column.
//! 2. **Row ids** (`assignRowTrackingMeta`): every `APPEND` file without a `firstRowId`, in
//!    delta order, gets the next free id (`nextRowId` of the latest snapshot, 0 on a new
//!    table) and advances it by its row count; the new snapshot's `nextRowId` is what is left.
//!    Compaction files keep their rows' ids in a stored `_ROW_ID` column and get none. A row's
//!    `_ROW_ID` is `firstRowId` + its position in the file unless the file stores the column.
//!
//! Java's BLOB and vector-store files (which share the row ids of the data file before them)
//! are never written by strata; a commit carrying one is refused.

use strata_spec::manifest::{FileSource, ManifestEntry};

use crate::error::ErrorDetail;
use crate::Result;

use strata_spec::kv::ROW_ID;

/// `row-tracking.partition-group-on-commit` (default true): the delta entries grouped by
/// partition before ids are assigned, so a partition's new rows get contiguous ids. Java
/// collects them with `Collectors.groupingBy` into a `HashMap` and walks its values, so the
/// groups come in that map's iteration order: by bin (`hash ^ hash >>> 16` masked by the
/// table size, 16 doubled while more than 3/4 full) and, within a bin, by first appearance.
/// The hash is `BinaryRow.hashCode()`.
pub(crate) fn group_by_partition(delta: Vec<ManifestEntry>) -> Vec<ManifestEntry> {
    let mut groups: Vec<(strata_spec::binary_row::BinaryRow, Vec<ManifestEntry>)> = Vec::new();
    for e in delta {
        match groups.iter_mut().find(|(p, _)| *p == e.partition) {
            Some((_, g)) => g.push(e),
            None => groups.push((e.partition.clone(), vec![e])),
        }
    }
    let mut capacity: usize = 16;
    while groups.len() * 4 > capacity * 3 {
        capacity *= 2;
    }
    let bin = |p: &strata_spec::binary_row::BinaryRow| {
        let h = p.hash_code() as u32;
        ((h ^ (h >> 16)) as usize) & (capacity - 1)
    };
    groups.sort_by_key(|(p, _)| bin(p));
    groups.into_iter().flat_map(|(_, g)| g).collect()
}

/// Stamps `delta` for snapshot `snapshot_id` (see the module docs); returns the snapshot's
/// `nextRowId`.
pub(crate) fn assign_row_tracking(
    snapshot_id: i64,
    first_row_id_start: i64,
    delta: &mut [ManifestEntry],
) -> Result<i64> {
    for e in delta.iter_mut() {
        let f = &mut e.file;
        if f.min_sequence_number == 0 {
            f.min_sequence_number = snapshot_id;
            f.max_sequence_number = snapshot_id;
        } else if f.max_sequence_number == 0 {
            f.max_sequence_number = snapshot_id;
        }
    }
    let mut next = first_row_id_start;
    for e in delta.iter_mut() {
        let f = &mut e.file;
        let Some(source) = f.file_source else {
            return Err(ErrorDetail::InvalidArgument(format!(
                "committing data file {} to a row-tracking table: its file source is unknown \
                 (Java requires one for row tracking)",
                f.file_name
            ))
            .into());
        };
        let stores_row_ids = f
            .write_cols
            .as_ref()
            .is_some_and(|c| c.iter().any(|c| c == ROW_ID));
        if source != FileSource::Append || f.first_row_id.is_some() || stores_row_ids {
            continue;
        }
        let lower = f.file_name.to_ascii_lowercase();
        if lower.ends_with(".blob") || lower.contains(".vector") {
            return Err(ErrorDetail::Unsupported(format!(
                "committing {} to a row-tracking table: BLOB and vector-store files share the \
                 row ids of their data file (Java's blob/vector row-id rules); strata does not \
                 assign them",
                f.file_name
            ))
            .into());
        }
        f.first_row_id = Some(next);
        next = next.checked_add(f.row_count).ok_or_else(|| {
            crate::Error::from(ErrorDetail::InvalidArgument(format!(
                "row ids overflow at data file {}",
                f.file_name
            )))
        })?;
    }
    Ok(next)
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_spec::binary_row::BinaryRow;
    use strata_spec::manifest::{DataFileMeta, FileKind};
    use strata_spec::stats::SimpleStats;

    fn entry(name: &str, rows: i64, min: i64, max: i64, source: FileSource) -> ManifestEntry {
        ManifestEntry {
            kind: FileKind::Add,
            partition: BinaryRow::empty(),
            bucket: 0,
            total_buckets: -1,
            file: DataFileMeta {
                file_name: name.into(),
                file_size: 1024,
                row_count: rows,
                min_key: BinaryRow::empty(),
                max_key: BinaryRow::empty(),
                key_stats: SimpleStats::empty(),
                value_stats: SimpleStats::empty(),
                min_sequence_number: min,
                max_sequence_number: max,
                schema_id: 0,
                level: 0,
                extra_files: vec![],
                creation_time: None,
                delete_row_count: Some(0),
                embedded_index: None,
                file_source: Some(source),
                value_stats_cols: None,
                external_path: None,
                first_row_id: None,
                write_cols: None,
            },
        }
    }

    #[test]
    fn new_files_get_ids_and_the_snapshot_as_sequence() {
        let mut delta = vec![
            entry("a.parquet", 3, 0, 2, FileSource::Append),
            entry("b.parquet", 5, 3, 7, FileSource::Append),
            entry("c.parquet", 4, 10, 0, FileSource::Append),
            entry("d.parquet", 9, 4, 8, FileSource::Compact),
        ];
        let next = assign_row_tracking(7, 100, &mut delta).unwrap();
        assert_eq!(next, 112);
        let got: Vec<_> = delta
            .iter()
            .map(|e| {
                (
                    e.file.first_row_id,
                    e.file.min_sequence_number,
                    e.file.max_sequence_number,
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (Some(100), 7, 7),
                (Some(103), 3, 7),
                (Some(108), 10, 7),
                (None, 4, 8)
            ]
        );
    }

    #[test]
    fn files_with_ids_or_stored_row_ids_keep_them() {
        let mut with_id = entry("a.parquet", 3, 5, 6, FileSource::Append);
        with_id.file.first_row_id = Some(40);
        let mut stored = entry("b.parquet", 3, 5, 6, FileSource::Append);
        stored.file.write_cols = Some(vec!["a".into(), ROW_ID.into()]);
        let mut delta = vec![with_id, stored];
        assert_eq!(assign_row_tracking(2, 50, &mut delta).unwrap(), 50);
        assert_eq!(delta[0].file.first_row_id, Some(40));
        assert_eq!(delta[1].file.first_row_id, None);
        let mut blob = vec![entry("x.blob", 1, 0, 0, FileSource::Append)];
        assert!(assign_row_tracking(2, 0, &mut blob).is_err());
    }

    #[test]
    fn partitions_are_grouped_in_java_hash_map_order() {
        use strata_spec::{DataType, Datum, TypeKind};
        let part = |v: i32| {
            BinaryRow::from_datums(&[Some(Datum::Int(v))], &[DataType::nullable(TypeKind::Int)])
                .unwrap()
        };
        let mut delta = Vec::new();
        for (i, p) in [3, 1, 3, 2, 1].into_iter().enumerate() {
            let mut e = entry(&format!("f{i}.parquet"), 1, 0, 0, FileSource::Append);
            e.partition = part(p);
            delta.push(e);
        }
        let grouped = group_by_partition(delta);
        // Files of one partition stay together, in their order.
        let names: Vec<_> = grouped.iter().map(|e| e.file.file_name.clone()).collect();
        let pos = |n: &str| names.iter().position(|x| x == n).unwrap();
        assert_eq!(pos("f2.parquet"), pos("f0.parquet") + 1);
        assert_eq!(pos("f4.parquet"), pos("f1.parquet") + 1);
        // Bins ascend.
        let bins: Vec<u32> = grouped
            .iter()
            .map(|e| {
                let h = e.partition.hash_code() as u32;
                (h ^ (h >> 16)) & 15
            })
            .collect();
        assert!(bins.windows(2).all(|w| w[0] <= w[1]), "{bins:?}");
    }
}
