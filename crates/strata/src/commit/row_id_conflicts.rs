//! Row-id range conflicts of a data-evolution commit against the latest snapshot, as Java's
//! `ConflictDetection.checkRowIdRangeConflicts` checks them on every commit attempt.
//!
//! A column update (`Table::update_columns`, SQL UPDATE / MERGE INTO) writes partial-column
//! files over the row-id ranges of the files it read; a data-evolution compaction rewrites
//! ranges into bigger files. Readers (`DataEvolutionSplitRead`) stitch the files of one row-id
//! range, so every live file must line up: after the commit, the live files of the touched
//! partitions merged with the commit's own (Java `FileEntry.mergeEntries`), taking those with
//! a `firstRowId`:
//! * data files (neither `.blob` nor vector-store files) whose ranges overlap must all have the
//!   same range: a column file stacked over a subrange of a bigger compacted file, or a
//!   compaction over a range a concurrent update stacked on, is refused;
//! * each dedicated file (`.blob`, vector-store) must lie inside the range of one data file.
//!
//! As in Java, the check runs only on data-evolution tables, for COMPACT commits and for
//! commits that carry a row-id check base snapshot (Java `FileStoreCommit.rowIdCheckConflict`,
//! set by MERGE INTO / UPDATE: here `TableCommit::with_row_id_check_from`). New files without
//! row ids yet (they are assigned after the check, Java `RowTrackingCommitUtils`) take no part.

use std::collections::HashMap;

use strata_spec::manifest::{FileKind, ManifestEntry};
use strata_spec::snapshot::CommitKind;

use crate::error::ErrorDetail;
use crate::{Error, Result};

/// Whether a commit of `kind` is checked (Java: `rowIdCheckFromSnapshot != null || kind ==
/// COMPACT`, on data-evolution tables).
pub(super) fn needs_check(data_evolution: bool, kind: CommitKind, row_id_check: bool) -> bool {
    data_evolution && (row_id_check || kind == CommitKind::Compact)
}

/// Java's `dedicatedStorageFile`: a `.blob` file (`BlobFileFormat.isBlobFile`) or a
/// vector-store file (`VectorType.isVectorStoreFile`).
fn dedicated_storage_file(name: &str) -> bool {
    name.ends_with(".blob") || name.contains(".vector.")
}

/// The inclusive row-id range of a file with a first row id (Java `nonNullRowIdRange`).
fn range(e: &ManifestEntry) -> Option<(i64, i64)> {
    let first = e.file.first_row_id?;
    Some((first, first + e.file.row_count - 1))
}

/// Java `FileEntry.mergeEntries` of `live` (ADD entries of the latest snapshot, at least of
/// the partitions the commit touches) and the commit's `delta`, by file identifier
/// (partition, bucket, level, name). A DELETE of a file that is not live is left to the
/// other checks.
fn merged<'a>(live: &'a [ManifestEntry], delta: &'a [ManifestEntry]) -> Vec<&'a ManifestEntry> {
    type Key<'k> = (&'k [u8], i32, i32, &'k str);
    let key = |e: &'a ManifestEntry| -> Key<'a> {
        (
            e.partition.as_bytes(),
            e.bucket,
            e.file.level,
            e.file.file_name.as_str(),
        )
    };
    let mut order: Vec<Key<'a>> = Vec::new();
    let mut files: HashMap<Key<'a>, &'a ManifestEntry> = HashMap::new();
    for e in live.iter().filter(|e| e.kind == FileKind::Add).chain(delta) {
        let k = key(e);
        match e.kind {
            FileKind::Add => {
                if files.insert(k, e).is_none() {
                    order.push(k);
                }
            }
            FileKind::Delete => {
                files.remove(&k);
            }
        }
    }
    order
        .into_iter()
        .filter_map(|k| files.get(&k).copied())
        .collect()
}

/// Checks the commit's `delta` against `live`, the live entries of the latest snapshot (at
/// least of the partitions the commit touches). A mismatch is a `CommitConflict` with Java's
/// message (nothing published).
pub(super) fn check_row_id_range_conflicts(
    table: &str,
    live: &[ManifestEntry],
    delta: &[ManifestEntry],
) -> Result<()> {
    let conflict = |message: String| -> Error {
        ErrorDetail::CommitConflict {
            table: table.to_string(),
            message: format!(
                "For Data Evolution table, multiple 'MERGE INTO' and 'COMPACT' operations have \
                 encountered conflicts, {message}"
            ),
        }
        .into()
    };
    let mut data: Vec<(i64, i64, &str)> = Vec::new();
    let mut dedicated: Vec<(i64, i64, &str)> = Vec::new();
    for e in merged(live, delta) {
        if let Some((from, to)) = range(e) {
            let name = e.file.file_name.as_str();
            if dedicated_storage_file(name) {
                dedicated.push((from, to, name));
            } else {
                data.push((from, to, name));
            }
        }
    }
    // Java `RangeHelper.mergeOverlappingRanges` then `areAllRangesSame` per group.
    data.sort();
    let mut i = 0;
    while i < data.len() {
        let (from, to, _) = data[i];
        let mut end = to;
        let mut j = i + 1;
        while j < data.len() && data[j].0 <= end {
            end = end.max(data[j].1);
            j += 1;
        }
        let group = &data[i..j];
        if group.iter().any(|&(f, t, _)| (f, t) != (from, to)) {
            let files: Vec<String> = group
                .iter()
                .map(|(f, t, n)| format!("{n} [{f}, {t}]"))
                .collect();
            return Err(conflict(format!(
                "data files: [{}] (a concurrent compaction, overwrite or column update \
                 changed the row-id ranges this commit was written against; nothing was \
                 committed, run it again)",
                files.join(", ")
            )));
        }
        i = j;
    }
    // Java `checkDedicatedFileRowIdRangeConflicts`: every dedicated file inside one data
    // file range (the groups above are single ranges now).
    for &(from, to, name) in &dedicated {
        if data.iter().any(|&(f, t, _)| f <= from && to <= t) {
            continue;
        }
        let hits: Vec<String> = data
            .iter()
            .filter(|&&(f, t, _)| f <= to && from <= t)
            .map(|(f, t, n)| format!("{n} [{f}, {t}]"))
            .collect();
        let reason = if hits.len() > 1 {
            "spans multiple data file ranges"
        } else {
            "is not covered by one data file range"
        };
        return Err(conflict(format!(
            "dedicated file {name} [{from}, {to}] {reason}: [{}]",
            hits.join(", ")
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_spec::binary_row::BinaryRow;
    use strata_spec::manifest::{DataFileMeta, FileSource};
    use strata_spec::stats::SimpleStats;

    fn entry(kind: FileKind, name: &str, first: Option<i64>, rows: i64) -> ManifestEntry {
        ManifestEntry {
            kind,
            partition: BinaryRow::empty(),
            bucket: 0,
            total_buckets: -1,
            file: DataFileMeta {
                file_name: name.to_string(),
                file_size: 1024,
                row_count: rows,
                min_key: BinaryRow::empty(),
                max_key: BinaryRow::empty(),
                key_stats: SimpleStats::empty(),
                value_stats: SimpleStats::empty(),
                min_sequence_number: 0,
                max_sequence_number: 0,
                schema_id: 0,
                level: 0,
                extra_files: vec![],
                creation_time: None,
                delete_row_count: Some(0),
                embedded_index: None,
                file_source: Some(FileSource::Append),
                value_stats_cols: None,
                external_path: None,
                first_row_id: first,
                write_cols: None,
            },
        }
    }
    fn add(name: &str, first: i64, rows: i64) -> ManifestEntry {
        entry(FileKind::Add, name, Some(first), rows)
    }
    fn del(name: &str, first: i64, rows: i64) -> ManifestEntry {
        entry(FileKind::Delete, name, Some(first), rows)
    }
    fn check(live: &[ManifestEntry], delta: &[ManifestEntry]) -> Result<()> {
        check_row_id_range_conflicts("t", live, delta)
    }

    #[test]
    fn kinds_checked_as_java() {
        assert!(needs_check(true, CommitKind::Compact, false));
        assert!(needs_check(true, CommitKind::Append, true));
        assert!(!needs_check(true, CommitKind::Append, false));
        assert!(!needs_check(false, CommitKind::Compact, true));
    }

    #[test]
    fn column_file_over_the_same_ranges_passes() {
        let live = [add("a.parquet", 0, 5), add("b.parquet", 5, 5)];
        check(&live, &[add("u.parquet", 0, 5), add("v.parquet", 5, 5)]).unwrap();
        // New files without row ids yet take no part.
        check(&live, &[entry(FileKind::Add, "n.parquet", None, 3)]).unwrap();
    }

    #[test]
    fn column_file_over_a_compacted_range_conflicts() {
        // A compaction rewrote [0,4] and [5,9] into [0,9]; the update was planned on [0,4].
        let live = [add("c.parquet", 0, 10)];
        let err = check(&live, &[add("u.parquet", 0, 5)]).unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::Conflict, "{err}");
        assert!(err.to_string().contains("u.parquet [0, 4]"), "{err}");
        assert!(err.to_string().contains("c.parquet [0, 9]"), "{err}");
    }

    #[test]
    fn compaction_over_a_stacked_subrange_conflicts_and_removed_files_do_not_count() {
        // An update stacked u over [0,4] after the compaction of a, b was planned.
        let live = [
            add("a.parquet", 0, 5),
            add("b.parquet", 5, 5),
            add("u.parquet", 0, 5),
        ];
        let compact = [
            del("a.parquet", 0, 5),
            del("b.parquet", 5, 5),
            add("c.parquet", 0, 10),
        ];
        assert!(check(&live, &compact).is_err());
        // Without the concurrent update the compaction lines up.
        check(&live[..2], &compact).unwrap();
    }

    #[test]
    fn dedicated_files_lie_inside_one_data_range() {
        let live = [add("a.parquet", 0, 5), add("b.parquet", 5, 5)];
        check(&live, &[add("x.blob", 0, 3), add("y.blob", 3, 2)]).unwrap();
        let err = check(&live, &[add("z.blob", 3, 4)]).unwrap_err();
        assert!(err.to_string().contains("spans multiple"), "{err}");
        let err = check(&live[..1], &[add("w.blob", 5, 1)]).unwrap_err();
        assert!(err.to_string().contains("is not covered"), "{err}");
        // Vector-store files are dedicated too.
        check(&live, &[add("v.vector.lance", 5, 5)]).unwrap();
    }
}
